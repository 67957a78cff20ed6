//! Declarative assembly formats (`format = "..."` in `define_op!`, `dlc_ir::format`): ops
//! parse and print through their format, typed attributes are written as bare values, the
//! attributes a format does not name go in the attribute dict, bad input is a located error,
//! and a malformed format is refused with the rule it breaks. Dialect attributes defined with
//! `define_attr!` (`dlc_ir::attr_def`) parse and print in generic syntax and in formats.

use dlc_ir::format::{AsmFormat, AttrSyntax};
use dlc_ir::{define_attr, define_op, parse_source, print_op, verify, Context, Dialect};
use dlc_ir::{Arity, AttrValue, Op, OpDef, PrintOptions, Traits, Type};

define_op! {
    /// Two values for the ops under test (generic syntax: no format).
    pub struct SourceOp = "fmt.source";
    traits = Traits::empty();
    operands = [];
    results = [x, y];
}

define_op! {
    /// Scales its operand: a typed attribute between an operand and a type.
    pub struct ScaleOp = "fmt.scale";
    traits = Traits::PURE.union(Traits::SAME_OPERANDS_AND_RESULT_TYPE);
    operands = [input];
    results = [result];
    attributes = [factor: f64];
    format = "$input `,` $factor attr-dict `:` type($input)";
}

define_op! {
    /// A conversion with a keyword, two types and every other attribute kind.
    pub struct ConvertOp = "fmt.convert";
    traits = Traits::PURE;
    operands = [input, other];
    results = [result];
    attributes = [axis: i64, flag: bool, label: String, perm: Vec<i64>, ty: Type, raw];
    format = "$input `,` $other `to` type($result) `[` $axis `]` `(` $perm `,` $flag `,` $label `,` $ty `,` $raw `)` attr-dict `:` type($input) `,` type($other)";
}

define_attr! {
    /// A dialect attribute with two parameters: `#fmt.range<0.0, 6.0>`.
    pub struct Range = "fmt.range";
    params = [low: f64, high: f64];
}

define_attr! {
    /// A dialect attribute without parameters: `#fmt.marker`.
    pub struct Marker = "fmt.marker";
    params = [];
}

define_op! {
    /// Limits its operand to a range: a dialect attribute in a format.
    pub struct ClampOp = "fmt.clamp";
    traits = Traits::PURE.union(Traits::SAME_OPERANDS_AND_RESULT_TYPE);
    operands = [input];
    results = [result];
    attributes = [range: Range];
    format = "$input `,` $range attr-dict `:` type($input)";
}

fn context() -> Context {
    let mut ctx = Context::new();
    let ops = vec![
        SourceOp::def(),
        ScaleOp::def(),
        ConvertOp::def(),
        ClampOp::def(),
    ];
    let mut dialect = Dialect::new("fmt", ops);
    dialect.attrs = vec![Range::DEF, Marker::DEF];
    ctx.register_dialect(dialect);
    ctx
}

/// `body` after an op defining `%x: f32` and `%y: i32`.
fn program(body: &str) -> String {
    format!("%x:2 = \"fmt.source\"() : () -> (f32, i32)\n{body}\n")
}

/// The ops of `module`'s body.
fn ops(ctx: &Context, module: Op) -> Vec<Op> {
    let body = ctx.blocks(ctx.region(module, 0))[0];
    ctx.block_ops(body).collect()
}

fn round_trip(body: &str) -> String {
    let mut ctx = context();
    let src = program(body);
    let module = parse_source(&mut ctx, &src, "fmt.mlir", 1)
        .unwrap_or_else(|d| panic!("{body}: does not parse: {d:?}"));
    verify(&ctx, module).unwrap_or_else(|d| panic!("{body}: invalid: {d:?}"));
    let printed = print_op(&ctx, module, PrintOptions::default());
    // Printed text parses back to the same text.
    let mut again = context();
    let reparsed = parse_source(&mut again, &printed, "printed.mlir", 1)
        .unwrap_or_else(|d| panic!("printed form does not parse: {d:?}\n{printed}"));
    assert_eq!(print_op(&again, reparsed, PrintOptions::default()), printed);
    printed
}

#[test]
fn ops_parse_and_print_through_their_format() {
    let printed = round_trip("%s = fmt.scale %x#0, 0.5 : f32");
    assert!(
        printed.contains("%1 = fmt.scale %0#0, 5.000000e-01 : f32"),
        "{printed}"
    );
    let printed = round_trip(
        "%c = fmt.convert %x#0, %x#1 to i8 [-3] ([1, 0], true, \"a\\\"b\", f16, 7 : i32) {note = 1 : i64} : f32, i32",
    );
    assert!(
        printed.contains(
            "fmt.convert %0#0, %0#1 to i8 [-3] ([1, 0], true, \"a\\22b\", f16, 7 : i32) {note = 1 : i64} : f32, i32"
        ),
        "{printed}"
    );
}

#[test]
fn typed_attributes_hold_their_rust_values() {
    let mut ctx = context();
    let src = program(
        "%s = fmt.scale %x#0, 6 : f32\n%c = fmt.convert %x#0, %x#1 to i8 [2] ([], false, \"\", index, unit) : f32, i32",
    );
    let module = parse_source(&mut ctx, &src, "fmt.mlir", 1).expect("parses");
    let ops = ops(&ctx, module);
    let scale = ops.iter().find_map(|&op| ctx.view::<ScaleOp>(op));
    let convert = ops.iter().find_map(|&op| ctx.view::<ConvertOp>(op));
    let (scale, convert) = (scale.expect("a scale"), convert.expect("a convert"));
    assert_eq!(scale.factor(&ctx), Some(6.0));
    assert_eq!(
        ctx.value_type(scale.result(&ctx)),
        ctx.value_type(scale.input(&ctx))
    );
    assert_eq!(convert.axis(&ctx), Some(2));
    assert_eq!(convert.flag(&ctx), Some(false));
    assert_eq!(convert.label(&ctx).as_deref(), Some(""));
    assert_eq!(convert.perm(&ctx), Some(vec![]));
    assert_eq!(convert.ty(&ctx), Some(Type::INDEX));
    assert_eq!(ctx.value_type(convert.result(&ctx)), Type::I8);
}

#[test]
fn bad_input_is_a_located_error() {
    // Each body with the text the error must point at: the unexpected token, or for a missing
    // punctuation the end of the token before it, as MLIR's parser reports.
    let cases = [
        ("%s = fmt.scale %x#0, abc : f32", "abc"),
        ("%s = fmt.scale %x#0 0.5 : f32", " 0.5"),
        ("%s = fmt.scale %x#0, 0.5 f32", " f32"),
        ("%c = fmt.convert %x#0, %x#1 into i8 [0] ([], true, \"\", f16, 1) : f32, i32", "into"),
        ("%c = fmt.convert %x#0, %x#1 to i8 [99999999999999999999] ([], true, \"\", f16, 1) : f32, i32", "9999"),
        ("%c = fmt.convert %x#0, %x#1 to i8 [0] ([], maybe, \"\", f16, 1) : f32, i32", "maybe"),
        ("%c = fmt.convert %x#0, %x#1 to i8 [0] ([], true, 3, f16, 1) : f32, i32", "3,"),
        // Parsed, then refused by the verifier: the operand is not the result's f32.
        ("%s = fmt.scale %x#1, 0.5 : f32", "%x#1"),
    ];
    for (body, token) in cases {
        let mut ctx = context();
        let err = match parse_source(&mut ctx, &program(body), "bad.mlir", 1) {
            Ok(module) => verify(&ctx, module).expect_err(body),
            Err(d) => d,
        };
        let col = body.find(token).expect("the token is in the body") + 1;
        let rendered = format!("{err:?}");
        let at = format!("line: 2, col: {col} }}");
        assert!(
            rendered.contains(&at),
            "{body}: expected an error at {at}: {rendered}"
        );
    }
}

#[test]
fn values_without_a_decimal_form_round_trip() {
    // Infinity and NaN print as their bits in hex, which the format's f64 reads back.
    let printed = round_trip("%s = fmt.scale %x#0, 0x7FF0000000000000 : f32");
    assert!(
        printed.contains("fmt.scale %0#0, 0x7FF0000000000000 : f32"),
        "{printed}"
    );
    // 12345678 has no six-digit form that reads back and no '.' in its shortest one: hex too.
    let printed = round_trip("%s = fmt.scale %x#0, 12345678.0 : f32");
    assert!(
        printed.contains("fmt.scale %0#0, 0x41678C29C0000000 : f32"),
        "{printed}"
    );
}

#[test]
fn a_written_attribute_cannot_come_again_in_the_dictionary() {
    let mut ctx = context();
    let src = program("%s = fmt.scale %x#0, 0.5 {factor = 2.0 : f64} : f32");
    let err = parse_source(&mut ctx, &src, "twice.mlir", 1).expect_err("refused");
    assert!(
        err.message
            .contains("'factor' is written in the op's syntax"),
        "{err:?}"
    );
}

#[test]
fn an_op_its_format_cannot_write_prints_generically() {
    let mut ctx = context();
    // A scale whose factor is a string, and one whose factor is an f32: the format writes an
    // f64, which neither would read back as.
    let src = program(concat!(
        "%s = \"fmt.scale\"(%x#0) {factor = \"half\"} : (f32) -> f32\n",
        "%t = \"fmt.scale\"(%x#0) {factor = 0.5 : f32} : (f32) -> f32",
    ));
    let module = parse_source(&mut ctx, &src, "generic.mlir", 1).expect("parses");
    let printed = print_op(&ctx, module, PrintOptions::default());
    assert!(
        printed.contains("\"fmt.scale\"(%0#0) <{factor = \"half\"}> : (f32) -> f32"),
        "{printed}"
    );
    assert!(
        printed.contains("\"fmt.scale\"(%0#0) <{factor = 5.000000e-01 : f32}> : (f32) -> f32"),
        "{printed}"
    );
}

#[test]
fn dialect_attributes_parse_and_print() {
    // In a format: without the dialect prefix; the generic spelling is accepted too.
    let printed = round_trip("%c = fmt.clamp %x#0, range<0.5, 6> {m = #fmt.marker} : f32");
    assert!(
        printed.contains(
            "%1 = fmt.clamp %0#0, range<5.000000e-01, 6.000000e+00> {m = #fmt.marker} : f32"
        ),
        "{printed}"
    );
    let printed = round_trip("%c = fmt.clamp %x#0, #fmt.range<-1.0, 1.0> : f32");
    assert!(
        printed.contains("fmt.clamp %0#0, range<-1.000000e+00, 1.000000e+00> : f32"),
        "{printed}"
    );
    // In generic syntax and in attribute dictionaries: with it.
    let printed =
        round_trip("%s = fmt.scale %x#0, 0.5 {r = #fmt.range<1.0, 2.0>, a = [#fmt.marker]} : f32");
    assert!(
        printed.contains("{a = [#fmt.marker], r = #fmt.range<1.000000e+00, 2.000000e+00>}"),
        "{printed}"
    );
    // The typed accessor and the Rust value's attribute.
    let mut ctx = context();
    let src = program("%c = fmt.clamp %x#0, range<0.0, 6.0> : f32");
    let module = parse_source(&mut ctx, &src, "fmt.mlir", 1).expect("parses");
    let clamp = ops(&ctx, module)
        .into_iter()
        .find_map(|op| ctx.view::<ClampOp>(op))
        .expect("a clamp");
    let range = Range {
        low: 0.0,
        high: 6.0,
    };
    assert_eq!(clamp.range(&ctx), Some(range.clone()));
    let attr = range.to_attr(&mut ctx);
    assert_eq!(ctx.attr(clamp.0, "range"), Some(attr));
    assert_eq!(Marker::from_attr(&ctx, attr), None);
    let marker = Marker {}.to_attr(&mut ctx);
    assert_eq!(Marker::from_attr(&ctx, marker), Some(Marker {}));
}

#[test]
fn bad_dialect_attributes_are_located_errors() {
    let cases = [
        (
            "%c = fmt.clamp %x#0, range<1.0> : f32",
            "> :",
            "expected ','",
        ),
        (
            "%c = fmt.clamp %x#0, range<1.0, \"a\"> : f32",
            "\"a\"",
            "float",
        ),
        (
            "%c = fmt.clamp %x#0, span<1.0, 2.0> : f32",
            " span",
            "expected 'range'",
        ),
        (
            "%c = fmt.clamp %x#0, #fmt.marker : f32",
            "#fmt",
            "expected a #fmt.range",
        ),
        (
            "%s = fmt.scale %x#0, 1.0 {r = #fmt.range<1.0 2.0>} : f32",
            " 2.0",
            "expected ','",
        ),
        (
            "%s = fmt.scale %x#0, 1.0 {r = #fmt.rnge<1.0, 2.0>} : f32",
            "#fmt",
            "unknown attribute 'rnge' of dialect 'fmt'",
        ),
    ];
    for (body, token, message) in cases {
        let mut ctx = context();
        let err = parse_source(&mut ctx, &program(body), "bad.mlir", 1).expect_err(body);
        let col = body.find(token).expect("the token is in the body") + 1;
        let rendered = format!("{err:?}");
        assert!(
            rendered.contains(&format!("line: 2, col: {col} }}")) && err.message.contains(message),
            "{body}: expected '{message}' at column {col}: {rendered}"
        );
    }
}

#[test]
fn malformed_formats_are_refused_with_the_rule() {
    const ATTRS: &[&str] = &["factor"];
    const SYNTAX: &[Option<AttrSyntax>] = &[Some(AttrSyntax::of::<f64>())];
    let same = Traits::SAME_OPERANDS_AND_RESULT_TYPE;
    let cases = [
        ("$input `:` type($input)", same, "'attr-dict' is missing"),
        (
            "$input $input attr-dict `:` type($input)",
            same,
            "appears twice",
        ),
        (
            "$nope attr-dict `:` type($input)",
            same,
            "'$nope' is neither",
        ),
        (
            "attr-dict `:` type($input)",
            same,
            "operand 'input' is not in the format",
        ),
        ("$input attr-dict", same, "'input' has no type"),
        (
            "$input attr-dict `:` type($input)",
            Traits::empty(),
            "'result' has no type",
        ),
        ("$input attr-dict `:` type($input", same, "needs its ')'"),
        (
            "$input attr-dict `;` type($input)",
            same,
            "neither punctuation nor a keyword",
        ),
        (
            "$input attr-dict `: type($input)",
            same,
            "unterminated literal",
        ),
        (
            "$input attr-dict : type($input)",
            same,
            "unknown format element ':'",
        ),
        (
            "$input attr-dict `:` type($other)",
            same,
            "names no operand or result",
        ),
    ];
    let def = |traits: Traits, operands: Arity, regions: u32| {
        let mut def = OpDef::new("fmt.test");
        def.inherent_attrs = ATTRS;
        def.attr_syntax = SYNTAX;
        def.traits = traits;
        def.operands = operands;
        def.results = Arity::Exact(1);
        def.regions = Arity::Exact(regions);
        def
    };
    let one = Arity::Exact(1);
    let fixed = [("nothing", Type::INDEX)];
    let err = AsmFormat::new(
        "$input attr-dict",
        &def(same, one, 0),
        &["input"],
        &[],
        &fixed,
    );
    assert!(err.err().is_some_and(|e| e.contains("named operands")));
    let err = AsmFormat::new(
        "$input attr-dict",
        &def(same, one, 0),
        &["input"],
        &["result"],
        &fixed,
    );
    assert!(err
        .err()
        .is_some_and(|e| e.contains("no operand or result")));
    let shapes = [
        (def(same, Arity::AtLeast(0), 0), &[][..], "named operands"),
        (def(same, one, 1), &["input"][..], "cannot write regions"),
    ];
    for (def, operands, rule) in shapes {
        let err = AsmFormat::new("attr-dict", &def, operands, &["result"], &[]);
        assert!(err.err().is_some_and(|e| e.contains(rule)), "{rule}");
    }
    // An untyped attribute before `:` would read the `:` as its own type.
    const RAW: &[&str] = &["raw"];
    let mut raw = def(same, one, 0);
    raw.inherent_attrs = RAW;
    raw.attr_syntax = &[None];
    let err = AsmFormat::new(
        "$input `,` $raw `:` type($input) attr-dict",
        &raw,
        &["input"],
        &["result"],
        &[],
    );
    assert!(err
        .err()
        .is_some_and(|e| e.contains("untyped attribute 'raw'")));
    for (text, traits, rule) in cases {
        let err = AsmFormat::new(text, &def(traits, one, 0), &["input"], &["result"], &[])
            .err()
            .unwrap_or_else(|| panic!("'{text}' was accepted"));
        assert!(err.contains(rule), "'{text}': {err}");
    }
}
