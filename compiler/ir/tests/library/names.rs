//! The parser's table of SSA names, through `parse_source`: every layout of a name (prefix and
//! number, short, long, leading zeros) and numbers too sparse for a vector resolve to their own
//! definition, a name defined twice is refused, and an unknown one is reported.

use dlc_ir::{parse_source, Context, Op};

/// Parses `src` (generic syntax, unregistered ops), or returns the parser's message.
fn parse(ctx: &mut Context, src: &str) -> Result<Op, String> {
    ctx.allow_unregistered = true;
    parse_source(ctx, src, "names.mlir", 1).map_err(|d| d.message)
}

/// Names of every layout, each defined with its own type, so that a use resolved to another
/// definition fails to parse (its type would not match).
const NAMES: [(&str, &str); 10] = [
    ("%0", "i1"),
    ("%1", "i8"),
    ("%arg0", "index"),
    ("%a", "i16"),
    ("%a_very_long_value_name", "i32"),
    ("%007", "i64"),
    ("%7", "f16"),
    ("%v9", "f32"),
    ("%999999999", "f64"),
    ("%5", "bf16"),
];

#[test]
fn every_layout_finds_its_names() {
    let mut src = String::new();
    for (name, ty) in NAMES {
        src += &format!("{name} = \"t.def\"() : () -> {ty}\n");
    }
    let names: Vec<&str> = NAMES.iter().map(|(n, _)| *n).collect();
    let types: Vec<&str> = NAMES.iter().map(|(_, t)| *t).collect();
    src += &format!(
        "\"t.use\"({}) : ({}) -> ()\n",
        names.join(", "),
        types.join(", ")
    );
    let mut ctx = Context::new();
    let module = parse(&mut ctx, &src).unwrap_or_else(|m| panic!("{m}\n{src}"));
    let body = ctx.blocks(ctx.region(module, 0))[0];
    let ops: Vec<_> = ctx.block_ops(body).collect();
    let user = *ops.last().expect("the use");
    for (i, &v) in ctx.operands(user).iter().enumerate() {
        assert_eq!(ctx.defining_op(v), Some(ops[i]), "{}", NAMES[i].0);
    }
}

#[test]
fn a_name_defined_twice_is_refused() {
    for name in ["%1", "%999999999", "%a", "%a_very_long_value_name"] {
        let src = format!("{name} = \"t.def\"() : () -> i8\n{name} = \"t.def\"() : () -> i8\n");
        let err = parse(&mut Context::new(), &src).expect_err(name);
        assert_eq!(err, format!("redefinition of SSA value '{name}'"));
    }
}

#[test]
fn unknown_names_are_reported() {
    let defs = "%1 = \"t.def\"() : () -> i8\n%v9 = \"t.def\"() : () -> i8\n";
    for name in ["%2", "%v8", "%01"] {
        let src = format!("{defs}\"t.use\"({name}) : (i8) -> ()\n");
        let err = parse(&mut Context::new(), &src).expect_err(name);
        assert_eq!(err, format!("use of undeclared SSA value name '{name}'"));
    }
}
