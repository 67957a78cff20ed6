//! Table-driven tests of the index-expression library: canonical form, each simplification
//! level, ranges and proofs, the IR bridge, and a brute-force check that simplification keeps
//! the value of random expressions on every point of small symbol ranges.

use dlc_arith::{build_binary, build_index_constant, AddIOp, DivSIOp, MulIOp, RemSIOp, SubIOp};
use dlc_ir::{parse_source, verify, Context, InsertPoint, Location, Op, Type, Value};
use dlc_loop::index_expr::{
    equal, from_ir, from_ir_with, parse, prove_eq, prove_le, prove_lt, range_of, simplify,
    simplify_at, to_ir, to_ir_with, Bounds, FromIr, IndexExpr, Level, Symbol,
};
use dlc_testkit::Rng;

/// Symbol names of the tables: `Symbol::Free(i)` is `NAMES[i]`.
const NAMES: [&str; 9] = ["i", "j", "k", "x", "y", "a", "b", "n", "m"];

fn ex(text: &str) -> IndexExpr {
    parse(text, &NAMES).unwrap_or_else(|e| panic!("bad expression `{text}`: {e}"))
}

fn sym(name: &str) -> Symbol {
    let i = NAMES.iter().position(|n| *n == name).expect("known name");
    Symbol::Free(i as u32)
}

/// Inclusive ranges `(name, lo, hi)`.
type Ranges = &'static [(&'static str, i64, i64)];

fn bounds(ranges: Ranges) -> Bounds {
    let mut b = Bounds::new();
    for (n, lo, hi) in ranges {
        b.insert(sym(n), *lo, *hi);
    }
    b
}

fn show(e: &IndexExpr) -> String {
    e.display(&NAMES).to_string()
}

fn check_table(level: Level, table: &[(&str, Ranges, &str)]) {
    let mut failures = Vec::new();
    for (input, ranges, expected) in table {
        let got = simplify_at(&ex(input), level, &bounds(ranges));
        if got != ex(expected) {
            failures.push(format!(
                "{input} with {ranges:?}: got {}, expected {expected}",
                show(&got)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

const NONE: Ranges = &[];
const IJ8: Ranges = &[("i", 0, 15), ("j", 0, 7)];
const B8: Ranges = &[("b", 0, 7)];
const X0: Ranges = &[("x", 0, 1000)];

/// The canonical form alone: reassociation, commutation, distribution, merged coefficients.
const CANONICAL: &[(&str, Ranges, &str)] = &[
    ("i + j", NONE, "j + i"),
    ("i*j", NONE, "j*i"),
    ("2*i + 3*i", NONE, "5*i"),
    ("i - i", NONE, "0"),
    ("(i + j) - j", NONE, "i"),
    ("i*0 + 2*a + 3*a + 1 + 2", NONE, "5*a + 3"),
    ("i + 0", NONE, "i"),
    ("i * 1", NONE, "i"),
    ("(i + 1)*(i - 1)", NONE, "i*i - 1"),
    ("2*(x + y) - x", NONE, "x + 2*y"),
    ("-(-x)", NONE, "x"),
    ("3 - (x - 3)", NONE, "6 - x"),
    ("x/1", NONE, "x"),
    ("x%1", NONE, "0"),
    ("17/5", NONE, "3"),
    ("-17/5", NONE, "-4"),
    ("-17%5", NONE, "3"),
    ("17%5", NONE, "2"),
    ("min(3, 7)", NONE, "2 + 1"),
    ("max(3, 7)", NONE, "7"),
    ("min(x, y)", NONE, "min(y, x)"),
    ("max(x + 1, x + 1)", NONE, "x + 1"),
    ("0/x", NONE, "0"),
    ("(a + b)*(a - b)", NONE, "a*a - b*b"),
    ("x*y*2 - y*x", NONE, "x*y"),
];

/// Level 1 (sequential): single-node rewrites that hold everywhere.
const SEQUENTIAL: &[(&str, Ranges, &str)] = &[
    ("(a*8 + b)/8", NONE, "a + b/8"),
    ("(a*8 + b)%8", NONE, "b%8"),
    ("(i*256 + j)/128", NONE, "i*2 + j/128"),
    ("(x + 9)/8", NONE, "(x + 1)/8 + 1"),
    ("(x + 9)%8", NONE, "(x + 1)%8"),
    ("(x - 1)%8", NONE, "(x + 7)%8"),
    ("(8*x)%8", NONE, "0"),
    ("(6*x)/3", NONE, "2*x"),
    ("(6*x + 4*y)/2", NONE, "3*x + 2*y"),
    ("(x/4)/2", NONE, "x/8"),
    ("((x/2)/3)/4", NONE, "x/24"),
    ("(x%32)/8", NONE, "(x/8)%4"),
    ("(x%32)%8", NONE, "x%8"),
    ("(x%8)%8", NONE, "x%8"),
    ("(x%n)%n", NONE, "x%n"),
    ("(a*n + b)/n", NONE, "a + b/n"),
    ("(a*n + b)%n", NONE, "b%n"),
    ("(a*n*2 + b)/n", NONE, "2*a + b/n"),
    ("(x/n)/m", NONE, "x/(n*m)"),
    ("(4*x*n)/(2*n)", NONE, "2*x"),
    ("min(x + 1, x)", NONE, "x"),
    ("max(x + 1, x)", NONE, "x + 1"),
    ("min(x + 5, y + 3)", NONE, "min(x + 2, y) + 3"),
    ("max(x + i, y + i)", NONE, "max(x, y) + i"),
    ("min(2*x, 2*x - 3)", NONE, "2*x - 3"),
    ("(i*16 + j*4 + 2)/4", NONE, "i*4 + j + (2/4)"),
    ("(i*16 + j*4 + 6)%4", NONE, "2"),
    ("(a*8 + b + 8)/8", NONE, "a + 1 + b/8"),
];

/// Level 2 (pairwise): rules that match two terms of a sum.
const PAIRWISE: &[(&str, Ranges, &str)] = &[
    ("x/2*2 + x%2", NONE, "x"),
    ("x/8*8 + x%8", NONE, "x"),
    ("(x)/3*144 + 48*(x%3)", NONE, "48*x"),
    ("x%8 + (x/8)*8 + y", NONE, "x + y"),
    ("3*(x%4) + 12*(x/4)", NONE, "3*x"),
    ("(x + y)%4 + (x + y)/4*4", NONE, "x + y"),
    ("x - (x/8)*8", NONE, "x%8"),
    ("2*x - 16*(x/8)", NONE, "2*(x%8)"),
    ("x + 1 - (x + 1)/4*4", NONE, "(x + 1)%4"),
    ("(x%n) + (x/n)*n", NONE, "x"),
    ("x%8 + (x/8)*4", NONE, "x%8 + (x/8)*4"),
    ("(x/2*2 + x%2)/2", NONE, "x/2"),
    ("((i*8 + j)/8)*8 + (i*8 + j)%8", NONE, "i*8 + j"),
];

/// Level 3 (bounds): rules that use the ranges of symbols and of subexpressions.
const BOUNDS: &[(&str, Ranges, &str)] = &[
    ("(a*8 + b)%8", B8, "b"),
    ("(a*8 + b)/8", B8, "a"),
    ("(i*256 + j)/128", &[("j", 0, 127)], "i*2"),
    ("(i*256 + j)/128", &[("j", 0, 255)], "i*2 + j/128"),
    ("(i*256 + j)%128", &[("j", 0, 127)], "j"),
    ("(i*8 + j)%8", IJ8, "j"),
    ("(i*8 + j)/8", IJ8, "i"),
    ("x%8", &[("x", 0, 7)], "x"),
    ("x%8", &[("x", 0, 8)], "x%8"),
    ("x/8", &[("x", 0, 7)], "0"),
    ("x/8", &[("x", 8, 15)], "1"),
    ("x%8", &[("x", 8, 15)], "x - 8"),
    ("x%8", &[("x", -8, -1)], "x + 8"),
    ("x/8", &[("x", -8, -1)], "-1"),
    ("x%n", &[("x", 0, 7), ("n", 8, 64)], "x"),
    ("x/n", &[("x", 0, 7), ("n", 8, 64)], "0"),
    ("x%n", &[("x", 0, 8), ("n", 8, 64)], "x%n"),
    ("(x%8)/8", NONE, "0"),
    ("(x%8)%16", NONE, "x%8"),
    ("(x%16)%8", NONE, "x%8"),
    ("(x%4)/4", NONE, "0"),
    ("(x%4 + 4)/4", NONE, "1"),
    ("(x%4 + 8*y)/4", NONE, "2*y"),
    ("min(x, 10)", &[("x", 0, 7)], "x"),
    ("max(x, 10)", &[("x", 0, 7)], "10"),
    ("min(x, y)", &[("x", 0, 7), ("y", 8, 9)], "x"),
    ("max(x, y)", &[("x", 0, 7), ("y", 8, 9)], "y"),
    ("min(x, y)", &[("x", 0, 8), ("y", 8, 9)], "x"),
    ("min(x, y)", &[("x", 0, 9), ("y", 8, 9)], "min(x, y)"),
    ("min(x%8, 8)", NONE, "x%8"),
    ("max(x/4, 0)", X0, "x/4"),
    ("max(x%4, 0)", NONE, "x%4"),
    ("min(i*4 + j, 64)", &[("i", 0, 15), ("j", 0, 3)], "i*4 + j"),
    ("(i*4 + j)/4", &[("j", 0, 3)], "i"),
    ("(i*4 + j)%4", &[("j", 0, 3)], "j"),
    ("((i*4 + j)%4)*8 + (i*4 + j)/4", &[("j", 0, 3)], "8*j + i"),
    ("(k*32 + i*8 + j)/8", &[("i", 0, 3), ("j", 0, 7)], "4*k + i"),
    (
        "(k*32 + i*8 + j)%32",
        &[("i", 0, 3), ("j", 0, 7)],
        "i*8 + j",
    ),
    ("((k*32 + i*8 + j)%32)/8", &[("i", 0, 3), ("j", 0, 7)], "i"),
    ("((k*32 + i*8 + j)/8)%4", &[("i", 0, 3), ("j", 0, 7)], "i"),
    ("(x + 3)/4", &[("x", 0, 0)], "0"),
    ("(x + 3)/4", &[("x", 1, 4)], "1"),
    ("(x*y)%8", &[("x", 0, 2), ("y", 0, 3)], "x*y"),
    ("(x*y)/8", &[("x", 0, 2), ("y", 0, 3)], "0"),
    ("(x - y)%8", &[("x", 4, 7), ("y", 0, 3)], "x - y"),
    ("(x - y)/8", &[("x", 0, 3), ("y", 4, 7)], "-1"),
    ("(min(x, 5))%8", X0, "min(x, 5)"),
    ("(max(x, 5))%8", &[("x", 0, 7)], "max(x, 5)"),
    ("(x/2)%16", &[("x", 0, 31)], "x/2"),
    ("(x/2)/16", &[("x", 0, 31)], "0"),
    ("x/32*32 + x%32", X0, "x"),
    ("(a*n + b)%n", &[("b", 0, 3), ("n", 4, 8)], "b"),
    ("(a*n + b)/n", &[("b", 0, 3), ("n", 4, 8)], "a"),
    ("(x/n)%m", &[("x", 0, 5), ("n", 1, 9), ("m", 7, 9)], "x/n"),
];

#[test]
fn canonical_form() {
    check_table(Level::Fold, CANONICAL);
}

#[test]
fn sequential_level() {
    check_table(Level::Sequential, SEQUENTIAL);
}

#[test]
fn pairwise_level() {
    check_table(Level::Pairwise, PAIRWISE);
}

#[test]
fn bounds_level() {
    check_table(Level::Bounds, BOUNDS);
}

#[test]
fn lower_levels_leave_higher_level_patterns() {
    check_table(
        Level::Sequential,
        &[
            ("x/2*2 + x%2", NONE, "x/2*2 + x%2"),
            ("x%8", &[("x", 0, 7)], "x%8"),
        ],
    );
    check_table(
        Level::Fold,
        &[
            ("(a*8 + b)/8", NONE, "(a*8 + b)/8"),
            ("(x/4)/2", NONE, "(x/4)/2"),
        ],
    );
    check_table(Level::Pairwise, &[("(a*8 + b)%8", B8, "b%8")]);
}

#[test]
fn ranges() {
    let table: &[(&str, Ranges, (i64, i64))] = &[
        ("x", &[("x", 2, 5)], (2, 5)),
        ("2*x - y", &[("x", 0, 3), ("y", 1, 2)], (-2, 5)),
        ("x*y", &[("x", -2, 3), ("y", -1, 4)], (-8, 12)),
        ("x%8", NONE, (0, 7)),
        ("x%8", &[("x", 9, 12)], (1, 4)),
        ("x/4", &[("x", -5, 9)], (-2, 2)),
        ("x/n", &[("x", 0, 100), ("n", 2, 10)], (0, 50)),
        ("x%n", &[("n", 1, 10)], (0, 9)),
        ("min(x, 4)", &[("x", 0, 10)], (0, 4)),
        ("max(x, 4)", &[("x", 0, 10)], (4, 10)),
        ("x + 1", NONE, (i64::MIN, i64::MAX)),
        ("7", NONE, (7, 7)),
    ];
    for (e, r, want) in table {
        assert_eq!(range_of(&ex(e), &bounds(r)), *want, "{e}");
    }
}

#[test]
fn proofs() {
    let b = bounds(&[("x", 0, 7), ("y", 8, 15)]);
    assert!(prove_lt(&ex("x"), &ex("y"), &b));
    assert!(prove_le(&ex("x"), &ex("x"), &b));
    assert!(!prove_lt(&ex("x"), &ex("x"), &b));
    assert!(prove_le(&ex("x%8"), &ex("7"), &Bounds::new()));
    assert!(prove_eq(&ex("x/2*2 + x%2"), &ex("x"), &Bounds::new()));
    assert!(prove_eq(&ex("(i*8 + j)/8"), &ex("i"), &bounds(IJ8)));
    assert!(!prove_eq(&ex("(i*8 + j)/8"), &ex("i"), &Bounds::new()));
    assert_eq!(equal(&ex("x + y"), &ex("y + x"), &b), Some(true));
    assert_eq!(equal(&ex("x"), &ex("y"), &b), Some(false));
    assert_eq!(equal(&ex("x"), &ex("y"), &Bounds::new()), None);
    assert_eq!(
        equal(&ex("x%4"), &ex("x%4 + 4"), &Bounds::new()),
        Some(false)
    );
}

#[test]
fn parse_and_print() {
    assert_eq!(show(&ex("(i*8 + j) % 8")), "((8*i + j) % 8)");
    assert_eq!(show(&ex("2*(x/8)")), "2*(x / 8)");
    assert_eq!(show(&ex("x - 3")), "x - 3");
    assert_eq!(show(&ex("-2*x")), "-2*x");
    assert_eq!(show(&ex("min(x, y)")), "min(x, y)");
    assert!(parse("x +", &NAMES).is_err());
    assert!(parse("q", &NAMES).is_err());
    assert!(parse("(x", &NAMES).is_err());
    assert!(parse("x y", &NAMES).is_err());
}

// ---------------------------------------------------------------------------------------------
// The IR bridge.

fn context() -> Context {
    let mut ctx = Context::new();
    ctx.allow_unregistered = true;
    ctx.register_dialect(dlc_arith::dialect());
    ctx
}

/// A module with `"test.region"` whose entry block has `n` index arguments, the block's args and
/// its terminator.
fn scaffold(ctx: &mut Context, n: usize) -> (Op, Vec<Value>, Op) {
    let args: Vec<String> = (0..n).map(|i| format!("%a{i}: index")).collect();
    let src = format!(
        "\"test.region\"() ({{\n^bb0({}):\n  \"test.end\"() : () -> ()\n}}) : () -> ()\n",
        args.join(", ")
    );
    let module = parse_source(ctx, &src, "t.mlir", 1).expect("parses");
    let body = ctx.blocks(ctx.region(module, 0))[0];
    let region_op = ctx.first_op(body).expect("region op");
    let block = ctx.blocks(ctx.region(region_op, 0))[0];
    let end = ctx.last_op(block).expect("terminator");
    (module, ctx.block_args(block).to_vec(), end)
}

/// Maps free symbol `i` to block argument `i`.
fn bind(e: &IndexExpr, args: &[Value]) -> IndexExpr {
    // Rebuild through the text form is not possible for values; substitute term by term.
    let env: Vec<IndexExpr> = args.iter().map(|v| IndexExpr::value(*v)).collect();
    substitute(e, &env)
}

fn substitute(e: &IndexExpr, env: &[IndexExpr]) -> IndexExpr {
    use dlc_loop::index_expr::Atom;
    let mut acc = IndexExpr::constant(e.constant_term());
    for (m, c) in e.terms() {
        let mut p = IndexExpr::constant(*c);
        for a in m {
            let f = match a {
                Atom::Sym(Symbol::Free(i)) => env[*i as usize].clone(),
                Atom::Sym(s) => IndexExpr::symbol(*s),
                Atom::FloorDiv(x, y) => substitute(x, env).floordiv(&substitute(y, env)),
                Atom::Mod(x, y) => substitute(x, env).modulo(&substitute(y, env)),
                Atom::Min(x, y) => substitute(x, env).minimum(&substitute(y, env)),
                Atom::Max(x, y) => substitute(x, env).maximum(&substitute(y, env)),
            };
            p = &p * &f;
        }
        acc = &acc + &p;
    }
    acc
}

#[test]
fn reads_arith_ops() {
    let mut ctx = context();
    let (module, args, end) = scaffold(&mut ctx, 2);
    let (i, j) = (args[0], args[1]);
    let at = InsertPoint::Before(end);
    let loc = Location::Unknown;
    // (i * 8 + j) % 8 and (i * 8 + j) / 8, then i - j.
    let c8 = build_index_constant(&mut ctx, at, 8, loc);
    let c8 = ctx.result(c8, 0);
    let mul = build_binary::<MulIOp>(&mut ctx, at, i, c8, loc);
    let mul = ctx.result(mul, 0);
    let add = build_binary::<AddIOp>(&mut ctx, at, mul, j, loc);
    let add = ctx.result(add, 0);
    let rem = build_binary::<RemSIOp>(&mut ctx, at, add, c8, loc);
    let rem = ctx.result(rem, 0);
    let div = build_binary::<DivSIOp>(&mut ctx, at, add, c8, loc);
    let div = ctx.result(div, 0);
    let sub = build_binary::<SubIOp>(&mut ctx, at, i, j, loc);
    let sub = ctx.result(sub, 0);
    verify(&ctx, module).expect("verifies");

    let (ie, je) = (IndexExpr::value(i), IndexExpr::value(j));
    assert_eq!(from_ir(&ctx, add), &ie.scale(8) + &je);
    assert_eq!(from_ir(&ctx, sub), &ie - &je);
    // Without bounds, signed division is not floor division: the result stays a symbol.
    assert_eq!(from_ir(&ctx, rem), IndexExpr::value(rem));
    let mut b = Bounds::new();
    b.insert(Symbol::Value(i), 0, 15)
        .insert(Symbol::Value(j), 0, 7);
    let opts = FromIr {
        bounds: Some(&b),
        assume_non_negative: false,
    };
    let rem_e = from_ir_with(&ctx, rem, opts);
    assert_eq!(simplify(&rem_e, &b), je);
    let div_e = from_ir_with(&ctx, div, opts);
    assert_eq!(simplify(&div_e, &b), ie);
    let assumed = from_ir_with(
        &ctx,
        div,
        FromIr {
            bounds: None,
            assume_non_negative: true,
        },
    );
    assert_eq!(
        assumed,
        (&ie.scale(8) + &je).floordiv(&IndexExpr::constant(8))
    );
}

/// Builds each expression as IR, reads it back, simplifies, builds again, and checks that the
/// IR verifies and the read-back equals the simplified original.
#[test]
fn ir_round_trips() {
    let table: &[(&str, Ranges)] = &[
        ("(i*8 + j)%8", IJ8),
        ("(i*8 + j)/8", IJ8),
        ("(i*256 + j)/128", &[("i", 0, 3), ("j", 0, 127)]),
        ("x/2*2 + x%2", X0),
        (
            "min(x, 10) + max(i, j) - 3",
            &[("x", 0, 7), ("i", 0, 3), ("j", 0, 3)],
        ),
        ("2*i*j - 5*k + 7", &[("i", 0, 3), ("j", 0, 3), ("k", 0, 3)]),
        ("(x - 5)/4 + (x - 5)%4", NONE),
        ("-x", NONE),
        ("(x%n)*(i + 1)", &[("x", 0, 9), ("n", 1, 4), ("i", 0, 2)]),
    ];
    for (text, ranges) in table {
        let mut ctx = context();
        let (module, args, end) = scaffold(&mut ctx, NAMES.len());
        let e = bind(&ex(text), &args);
        let b = bind_bounds(ranges, &args);
        let at = InsertPoint::Before(end);
        // Without bounds, divisions get the floor correction (cmpi + select), which reads back
        // as a symbol; with bounds they are plain `divsi`/`remsi` and read back exactly.
        let exact = to_ir(&mut ctx, &e, at, Location::Unknown).expect("builds");
        verify(&ctx, module).unwrap_or_else(|d| panic!("{text}: {}", d.message));
        assert_eq!(ctx.value_type(exact), Type::INDEX);
        let v = to_ir_with(&mut ctx, &e, &b, at, Location::Unknown).expect("builds");
        verify(&ctx, module).unwrap_or_else(|d| panic!("{text}: {}", d.message));
        let back = from_ir_with(
            &ctx,
            v,
            FromIr {
                bounds: Some(&b),
                assume_non_negative: false,
            },
        );
        let simplified = simplify(&e, &b);
        if ranges.len() == e.symbols().len() {
            assert_eq!(simplify(&back, &b), simplified, "{text}");
        }
        let v2 = to_ir_with(&mut ctx, &simplified, &b, at, Location::Unknown).expect("builds");
        verify(&ctx, module).unwrap_or_else(|d| panic!("{text}: {}", d.message));
        let back2 = from_ir_with(
            &ctx,
            v2,
            FromIr {
                bounds: Some(&b),
                assume_non_negative: false,
            },
        );
        if ranges.len() == e.symbols().len() {
            assert_eq!(simplify(&back2, &b), simplified, "{text}");
        }
    }
}

fn bind_bounds(ranges: Ranges, args: &[Value]) -> Bounds {
    let mut b = Bounds::new();
    for (n, lo, hi) in ranges {
        let Symbol::Free(i) = sym(n) else {
            unreachable!()
        };
        b.insert(Symbol::Value(args[i as usize]), *lo, *hi);
    }
    b
}

#[test]
fn to_ir_reuses_constants_and_rejects_free_symbols() {
    let mut ctx = context();
    let (module, args, end) = scaffold(&mut ctx, 1);
    let x = IndexExpr::value(args[0]);
    let e = &(&x.scale(8) + &x.modulo(&IndexExpr::constant(8))) + &IndexExpr::constant(8);
    let before = ctx.block_ops(ctx.op_block(end).expect("block")).count();
    to_ir(&mut ctx, &e, InsertPoint::Before(end), Location::Unknown).expect("builds");
    verify(&ctx, module).expect("verifies");
    let block = ctx.op_block(end).expect("block");
    let constants = ctx
        .block_ops(block)
        .filter(|op| ctx.op_name(*op) == "arith.constant")
        .count();
    assert_eq!(
        constants, 2,
        "8 and 0 (for the floor correction), each once"
    );
    assert!(ctx.block_ops(block).count() > before);
    assert!(to_ir(
        &mut ctx,
        &ex("x"),
        InsertPoint::Before(end),
        Location::Unknown
    )
    .is_err());
    // At a block start, later ops still follow the ones they use.
    let (module, args, end) = scaffold(&mut ctx, 1);
    let block = ctx.op_block(end).expect("block");
    let y = IndexExpr::value(args[0]);
    let e = &(&y * &y).floordiv(&IndexExpr::constant(3)) + &IndexExpr::constant(2);
    to_ir(&mut ctx, &e, InsertPoint::Start(block), Location::Unknown).expect("builds");
    verify(&ctx, module).expect("verifies");
}

// ---------------------------------------------------------------------------------------------
// Brute force: simplification keeps the value on every point of the bounds.

fn random_expr(rng: &mut Rng, depth: u32, nsyms: u32) -> IndexExpr {
    if depth == 0 || rng.below(4) == 0 {
        return if rng.below(3) == 0 {
            IndexExpr::constant(rng.below(19) as i64 - 6)
        } else {
            IndexExpr::free(rng.below(nsyms as usize) as u32)
        };
    }
    let a = random_expr(rng, depth - 1, nsyms);
    match rng.below(8) {
        0 => &a + &random_expr(rng, depth - 1, nsyms),
        1 => &a - &random_expr(rng, depth - 1, nsyms),
        2 => &a * &IndexExpr::constant(rng.below(9) as i64 - 2),
        3 => a.floordiv(&divisor(rng)),
        4 => a.modulo(&divisor(rng)),
        5 => a.minimum(&random_expr(rng, depth - 1, nsyms)),
        6 => a.maximum(&random_expr(rng, depth - 1, nsyms)),
        _ => &a * &random_expr(rng, 0, nsyms),
    }
}

fn divisor(rng: &mut Rng) -> IndexExpr {
    // Mostly constants; sometimes the positive symbol `n` (index 7, range 1..=5).
    if rng.below(5) == 0 {
        IndexExpr::free(7)
    } else {
        IndexExpr::constant([2, 3, 4, 8, 16][rng.below(5)])
    }
}

#[test]
fn simplification_preserves_values() {
    let mut rng = Rng::new(0x2545_f491_4f6c_dd1d);
    let mut changed = 0;
    for case in 0..600 {
        // Symbols i, j, k with random small ranges (some negative), n in 1..=5.
        let mut b = Bounds::new();
        let mut ranges = Vec::new();
        for s in 0..3 {
            let lo = rng.below(12) as i64 - 4;
            let hi = lo + rng.below(10) as i64;
            b.insert(Symbol::Free(s), lo, hi);
            ranges.push((lo, hi));
        }
        b.insert(Symbol::Free(7), 1, 5);
        ranges.push((1, 5));
        let e = random_expr(&mut rng, 4, 3);
        for level in [
            Level::Fold,
            Level::Sequential,
            Level::Pairwise,
            Level::Bounds,
        ] {
            let s = simplify_at(&e, level, &b);
            if s != e {
                changed += 1;
            }
            let (lo, hi) = range_of(&s, &b);
            for i in ranges[0].0..=ranges[0].1 {
                for j in ranges[1].0..=ranges[1].1 {
                    for k in ranges[2].0..=ranges[2].1 {
                        for n in 1..=5 {
                            let env = |sym: Symbol| match sym {
                                Symbol::Free(0) => i,
                                Symbol::Free(1) => j,
                                Symbol::Free(2) => k,
                                _ => n,
                            };
                            let Some(want) = e.eval(&env) else { continue };
                            let got = s.eval(&env);
                            assert_eq!(
                                got,
                                Some(want),
                                "case {case} {level:?}: {} → {} at i={i} j={j} k={k} n={n}",
                                show(&e),
                                show(&s)
                            );
                            assert!(
                                (lo..=hi).contains(&want),
                                "range [{lo}, {hi}] of {} misses {want}",
                                show(&s)
                            );
                        }
                    }
                }
            }
        }
    }
    assert!(
        changed > 300,
        "the generator should exercise the rules ({changed})"
    );
}

#[test]
fn simplify_is_idempotent() {
    let mut rng = Rng::new(7);
    for _ in 0..300 {
        let e = random_expr(&mut rng, 4, 3);
        let b = Bounds::new()
            .with(Symbol::Free(0), 0, 7)
            .with(Symbol::Free(1), 0, 3)
            .with(Symbol::Free(7), 1, 5);
        let once = simplify(&e, &b);
        assert_eq!(simplify(&once, &b), once, "{}", show(&e));
    }
}

// ---------------------------------------------------------------------------------------------
// Known divisors (alignment proofs).

/// The kernel of the divisor tests: `%v` walks `[4, 64)` by 8 (multiples of 4), `%r` is
/// `%v * 6 + 16` (multiples of 8), `%w` is bound to `%v + %n` for an unknown `%n`.
const DIVISOR_KERNEL: &str = r#"
loop.kernel @k(%b: !loop.buffer<?x32x64xf32, global>, %n: index) {
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  loop.for serial %v = %c4 to %c64 step %c8 {
    %m = arith.muli %v, %c6 : index
    %r = arith.addi %m, %c16 : index
    %s = arith.addi %v, %n : index
    loop.schedule_block "b" (%w = %s, %u = %r) {
      %x = loop.load %b[%n, %w, %u] : !loop.buffer<?x32x64xf32, global>
    }
  }
  loop.return
}
"#;

#[test]
fn known_divisors_follow_loops_and_arith() {
    use dlc_loop::index_expr::divisor::{known_divisor, offset_divisor, MAX_DIVISOR};
    let mut ctx = Context::new();
    ctx.register_dialect(dlc_arith::dialect());
    ctx.register_dialect(dlc_loop::dialect());
    let module = parse_source(&mut ctx, DIVISOR_KERNEL, "div.mlir", 1).expect("parses");
    verify(&ctx, module).expect("verifies");
    let mut load = None;
    ctx.for_each_op(module, &mut |op| {
        if ctx.op_name(op) == "loop.load" {
            load = Some(op);
        }
    });
    let load = load.expect("the kernel has a load");
    let [n, w, u] = ctx.operands(load)[1..] else {
        panic!("three indices");
    };
    let block = ctx.op_block(load).expect("in the schedule block");
    let sb = ctx.block_parent_op(block).expect("schedule block");
    let [s, r] = ctx.operands(sb)[..] else {
        panic!("two iter values");
    };
    let v = ctx.operand(ctx.defining_op(s).expect("addi"), 0);
    assert_eq!(known_divisor(&ctx, v), 4, "lb 4, step 8");
    assert_eq!(known_divisor(&ctx, r), 8, "v*6 + 16");
    assert_eq!(known_divisor(&ctx, u), 8, "iter var bound to r");
    assert_eq!(known_divisor(&ctx, n), 1, "a kernel argument");
    assert_eq!(known_divisor(&ctx, w), 1, "v + n");
    let zero = build_index_constant(&mut ctx, InsertPoint::Before(load), 0, Location::Unknown);
    let zero = ctx.result(zero, 0);
    assert_eq!(known_divisor(&ctx, zero), MAX_DIVISOR);
    // Offset n*2048 + w*64 + u: min(2048, 64, 8) = 8.
    let dims = [-1, 32, 64];
    assert_eq!(offset_divisor(&ctx, &dims, &[n, w, u]), 8);
    assert_eq!(offset_divisor(&ctx, &dims, &[n, u, zero]), 512);
    assert_eq!(offset_divisor(&ctx, &dims, &[n, zero, zero]), 2048);
    assert_eq!(offset_divisor(&ctx, &dims, &[n, zero, w]), 1);
    // A dynamic dim counts as 1 in the strides above it: with dims [?, ?, 64], n's stride
    // `? * 64` is only known to be a multiple of 64.
    assert_eq!(offset_divisor(&ctx, &[-1, -1, 64], &[n, zero, zero]), 64);
}
