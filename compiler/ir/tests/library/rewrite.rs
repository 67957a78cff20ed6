//! The greedy rewrite driver on a toy dialect: folding, constant uniquing, dead-code removal,
//! patterns and their order, worklist requeueing, iteration limits, and linear cost.
//!
//! The `t` dialect has a constant, a commutative `add` that folds constants and `x + 0`, a
//! `neg` with a `neg(neg(x)) → x` pattern, and a `sink` with side effects that keeps values
//! alive; ops of the unregistered `u` dialect stand for everything else. IR is written in
//! generic form and printed back for comparison.

use dlc_ir::rewrite::{
    apply_patterns_greedily, greedy_rewrite, GreedyConfig, PatternSet, RewritePattern, Rewriter,
};
use dlc_ir::{
    parse_source, print_op, Attribute, Context, Dialect, FoldResult, Location, Op, OpDef, OpSpec,
    PrintOptions, Traits, Type,
};
use smallvec::{smallvec, SmallVec};
use std::sync::{Arc, Mutex};

fn fold_add(
    ctx: &mut Context,
    op: Op,
    c: &[Option<Attribute>],
) -> Option<SmallVec<[FoldResult; 1]>> {
    let ty = ctx.value_type(ctx.result(op, 0));
    let int = |a: Option<Attribute>| a.and_then(|a| ctx.attr_as_int(a));
    match (int(c[0]), int(c[1])) {
        (Some(a), Some(b)) => Some(smallvec![FoldResult::Constant(ctx.integer_attr(a + b, ty))]),
        (_, Some(0)) => Some(smallvec![FoldResult::Value(ctx.operand(op, 0))]),
        _ => None,
    }
}

fn materialize(ctx: &mut Context, value: Attribute, ty: Type, loc: Location) -> Option<OpSpec> {
    Some(
        OpSpec::new(ctx, "t.const", loc)
            .attr(ctx, "value", value)
            .results(&[ty]),
    )
}

fn context() -> Context {
    let mut ctx = Context::new();
    let mut constant = OpDef::new("t.const");
    constant.traits = Traits::PURE | Traits::CONSTANT_LIKE;
    let mut add = OpDef::new("t.add");
    add.traits = Traits::PURE | Traits::COMMUTATIVE;
    add.fold = Some(fold_add);
    let mut neg = OpDef::new("t.neg");
    neg.traits = Traits::PURE;
    let sink = OpDef::new("t.sink");
    let mut dialect = Dialect::new("t", vec![constant, add, neg, sink]);
    dialect.materialize_constant = Some(materialize);
    ctx.register_dialect(dialect);
    ctx.allow_unregistered = true;
    ctx
}

/// `neg(neg(x)) → x`.
struct NegNeg;

impl RewritePattern for NegNeg {
    fn name(&self) -> &str {
        "NegNeg"
    }
    fn root(&self) -> Option<&'static str> {
        Some("t.neg")
    }
    fn match_and_rewrite(&self, op: Op, rw: &mut Rewriter<'_>) -> bool {
        let ctx = rw.ctx();
        let Some(inner) = ctx.defining_op(ctx.operand(op, 0)) else {
            return false;
        };
        if ctx.op_name(inner) != "t.neg" {
            return false;
        }
        let x = ctx.operand(inner, 0);
        rw.replace_op(op, &[x]);
        true
    }
}

fn run(
    src: &str,
    patterns: &PatternSet,
    config: GreedyConfig,
) -> (String, dlc_ir::rewrite::GreedyStats) {
    let mut ctx = context();
    let module = parse_source(&mut ctx, src, "test.mlir", 1).expect("parses");
    let stats = greedy_rewrite(&mut ctx, module, patterns, config);
    let text = print_op(&ctx, module, PrintOptions::default());
    (text, stats)
}

fn body(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && *l != "module {" && *l != "}")
        .map(str::to_string)
        .collect()
}

#[test]
fn folds_hoists_and_erases() {
    let src = r#"
        %x = "u.arg"() : () -> i32
        %c1 = "t.const"() {value = 1 : i32} : () -> i32
        %c2 = "t.const"() {value = 2 : i32} : () -> i32
        %s = "t.add"(%c1, %c2) : (i32, i32) -> i32
        %z = "t.const"() {value = 0 : i32} : () -> i32
        %y = "t.add"(%x, %z) : (i32, i32) -> i32
        %unused = "t.add"(%x, %x) : (i32, i32) -> i32
        "t.sink"(%s, %y) : (i32, i32) -> ()
    "#;
    let (text, stats) = run(src, &PatternSet::new(), GreedyConfig::default());
    assert_eq!(
        body(&text),
        [
            r#"%0 = "t.const"() {value = 3 : i32} : () -> i32"#,
            r#"%1 = "u.arg"() : () -> i32"#,
            r#""t.sink"(%0, %1) : (i32, i32) -> ()"#,
        ],
        "{text}"
    );
    assert_eq!((stats.folded, stats.erased), (2, 4), "{stats:?}");
    assert!(stats.converged && stats.changed);
    assert_eq!(stats.iterations, 2);
}

#[test]
fn constants_move_right_and_merge() {
    let src = r#"
        %x = "u.arg"() : () -> i32
        %c1 = "t.const"() {value = 7 : i32} : () -> i32
        %a = "t.add"(%c1, %x) : (i32, i32) -> i32
        %c2 = "t.const"() {value = 7 : i32} : () -> i32
        %b = "t.add"(%x, %c2) : (i32, i32) -> i32
        "t.sink"(%a, %b) : (i32, i32) -> ()
    "#;
    let (text, stats) = run(src, &PatternSet::new(), GreedyConfig::default());
    assert_eq!(
        body(&text),
        [
            r#"%0 = "t.const"() {value = 7 : i32} : () -> i32"#,
            r#"%1 = "u.arg"() : () -> i32"#,
            r#"%2 = "t.add"(%1, %0) : (i32, i32) -> i32"#,
            r#"%3 = "t.add"(%1, %0) : (i32, i32) -> i32"#,
            r#""t.sink"(%2, %3) : (i32, i32) -> ()"#,
        ],
        "{text}"
    );
    assert_eq!(stats.constants_deduplicated, 1);
}

#[test]
fn side_effects_and_unknown_ops_stay() {
    let src = r#"
        %x = "u.arg"() : () -> i32
        %u = "u.unknown"(%x) : (i32) -> i32
        "t.sink"(%x) : (i32) -> ()
    "#;
    let (text, stats) = run(src, &PatternSet::new(), GreedyConfig::default());
    assert_eq!(body(&text).len(), 3, "{text}");
    assert!(!stats.changed && stats.converged);
    assert_eq!(stats.iterations, 1);
}

#[test]
fn rewrites_requeue_what_they_enable() {
    // Each `neg(neg(x))` found makes the next pair visible; dead negs go as their users do.
    let src = r#"
        %x = "u.arg"() : () -> i32
        %a = "t.neg"(%x) : (i32) -> i32
        %b = "t.neg"(%a) : (i32) -> i32
        %c = "t.neg"(%b) : (i32) -> i32
        %d = "t.neg"(%c) : (i32) -> i32
        "t.sink"(%d) : (i32) -> ()
    "#;
    let mut patterns = PatternSet::new();
    patterns.add(NegNeg);
    for top_down in [true, false] {
        let config = GreedyConfig {
            top_down,
            ..GreedyConfig::default()
        };
        let (text, stats) = run(src, &patterns, config);
        assert_eq!(
            body(&text),
            [
                r#"%0 = "u.arg"() : () -> i32"#,
                r#""t.sink"(%0) : (i32) -> ()"#
            ],
            "top_down={top_down}: {text}"
        );
        assert_eq!(stats.iterations, 2, "top_down={top_down}: {stats:?}");
    }
}

/// Records the ops it sees, never rewrites.
struct Recorder(Arc<Mutex<Vec<String>>>);

impl RewritePattern for Recorder {
    fn name(&self) -> &str {
        "Recorder"
    }
    fn root(&self) -> Option<&'static str> {
        None
    }
    fn match_and_rewrite(&self, op: Op, rw: &mut Rewriter<'_>) -> bool {
        let name = rw.ctx().op_name(op).to_string();
        self.0.lock().expect("not poisoned").push(name);
        false
    }
}

#[test]
fn seeding_order_follows_top_down() {
    let src = r#"
        %x = "u.first"() : () -> i32
        %y = "u.second"(%x) : (i32) -> i32
        "u.third"(%y) : (i32) -> ()
    "#;
    for (top_down, want) in [
        (true, ["u.first", "u.second", "u.third"]),
        (false, ["u.third", "u.second", "u.first"]),
    ] {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let mut patterns = PatternSet::new();
        patterns.add(Recorder(Arc::clone(&seen)));
        let config = GreedyConfig {
            top_down,
            ..GreedyConfig::default()
        };
        run(src, &patterns, config);
        assert_eq!(
            *seen.lock().expect("not poisoned"),
            want,
            "top_down={top_down}"
        );
    }
}

/// Flips an attribute of `t.sink` and claims a change, without telling the driver (so the op is
/// not requeued): each iteration changes the IR once, and the driver can never converge.
struct Flip;

impl RewritePattern for Flip {
    fn name(&self) -> &str {
        "Flip"
    }
    fn root(&self) -> Option<&'static str> {
        Some("t.sink")
    }
    fn match_and_rewrite(&self, op: Op, rw: &mut Rewriter<'_>) -> bool {
        let ctx = rw.ctx_mut();
        if ctx.remove_attr(op, "flag").is_none() {
            let unit = ctx.unit_attr();
            ctx.set_attr(op, "flag", unit);
        }
        true
    }
}

#[test]
fn non_convergence_is_reported() {
    let src = r#"
        %x = "u.arg"() : () -> i32
        "t.sink"(%x) : (i32) -> ()
    "#;
    let mut patterns = PatternSet::new();
    patterns.add(Flip);
    let mut ctx = context();
    let module = parse_source(&mut ctx, src, "test.mlir", 1).expect("parses");
    let config = GreedyConfig {
        max_iterations: 3,
        ..GreedyConfig::default()
    };
    let err = apply_patterns_greedily(&mut ctx, module, &patterns, config).expect_err("spins");
    assert_eq!(
        err.message,
        "greedy pattern rewriting did not converge after 3 iterations"
    );
    // The error points at the op that kept changing.
    assert_eq!(ctx.file_position(err.location).map(|(_, l, _)| l), Some(3));

    // One rewrite per iteration at most: still no convergence, but each iteration stops early.
    let config = GreedyConfig {
        max_iterations: 4,
        max_num_rewrites: 1,
        ..GreedyConfig::default()
    };
    let stats = greedy_rewrite(&mut ctx, module, &patterns, config);
    assert_eq!((stats.iterations, stats.patterns_applied), (4, 4));
    assert!(!stats.converged);

    // Zero iterations allowed: nothing happens, which counts as converged (as in MLIR).
    let config = GreedyConfig {
        max_iterations: 0,
        ..GreedyConfig::default()
    };
    let stats = greedy_rewrite(&mut ctx, module, &patterns, config);
    assert!(stats.converged && !stats.changed);
}

#[test]
fn higher_benefit_patterns_go_first() {
    struct Rename(&'static str, u16, &'static str);
    impl RewritePattern for Rename {
        fn name(&self) -> &str {
            self.0
        }
        fn root(&self) -> Option<&'static str> {
            Some("u.old")
        }
        fn benefit(&self) -> u16 {
            self.1
        }
        fn match_and_rewrite(&self, op: Op, rw: &mut Rewriter<'_>) -> bool {
            let spec = OpSpec::new(rw.ctx_mut(), self.2, Location::Unknown);
            rw.replace_op_with_new(op, spec);
            true
        }
    }
    let mut patterns = PatternSet::new();
    patterns.add(Rename("low", 1, "u.low"));
    patterns.add(Rename("high", 5, "u.high"));
    let (text, stats) = run(
        r#""u.old"() : () -> ()"#,
        &patterns,
        GreedyConfig::default(),
    );
    assert_eq!(body(&text), [r#""u.high"() : () -> ()"#], "{text}");
    assert_eq!(stats.patterns_applied, 1);
}

/// A long chain of `x + 0` and `c + c`: linear in the number of ops, so this finishes quickly
/// even in a debug build (a rescan per rewrite would take minutes).
#[test]
fn long_chains_fold_in_one_sweep() {
    const N: usize = 40_000;
    let mut src = String::from("%x = \"u.arg\"() : () -> i32\n");
    src.push_str("%z = \"t.const\"() {value = 0 : i32} : () -> i32\n");
    src.push_str("%v0 = \"t.add\"(%x, %z) : (i32, i32) -> i32\n");
    for i in 1..N {
        src.push_str(&format!(
            "%v{i} = \"t.add\"(%v{}, %z) : (i32, i32) -> i32\n",
            i - 1
        ));
    }
    src.push_str(&format!("\"t.sink\"(%v{}) : (i32) -> ()\n", N - 1));
    let (text, stats) = run(&src, &PatternSet::new(), GreedyConfig::default());
    assert_eq!(stats.folded, N as u64);
    assert_eq!(stats.iterations, 2);
    assert_eq!(body(&text).len(), 2, "{text}");
}
