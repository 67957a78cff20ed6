//! Simplifies loop kernels and host functions to a fixpoint: folds constants, simplifies index
//! arithmetic with the index-expression library, folds constant conditions, turns selects into
//! min/max, and removes unit loops and empty loops, ifs and schedule blocks.
//!
//! # Applies when
//! After lowering and after every loop pass that rewrites indices or bounds (`gpu-map`, tiling,
//! buffer-axis updates): such passes leave `x * 1`, `x + 0`, `(i * 3 + j) / 3` with `j < 3`,
//! bound checks that the loop ranges already imply, loops of one iteration and empty bodies.
//! CINN runs `ir_simplify` between most of its backend passes for the same reason; later
//! passes (and code generation) match simple forms only.
//!
//! # Changes to the IR
//! The pass runs on one `loop.kernel` or `func.func` (its anchor; a flat pipeline runs it as
//! `any(simplify)`, on every kernel and function of the module, in parallel with threading on),
//! repeating two steps until neither changes anything (at most `max-iterations` times; step 2
//! is not repeated when step 1 changed nothing since it last ran, as it would read the same
//! expressions again: its own rewrites replace values by equal ones):
//! 1. The greedy rewrite driver with the canonicalization patterns of every registered op
//!    (constant folding of `arith`, same-type and constant casts, `and`/`or`/`xor` with
//!    constants, double negation, constant comparisons, `select` with a constant condition;
//!    unused pure ops are erased, constants are hoisted to the top of the kernel and merged),
//!    plus the patterns of this pass:
//!    - `loop.if` with a constant condition: the ops of the taken region move before the `if`,
//!      which is erased (`ifs-folded`).
//!    - `arith.select(cmpi slt|sle a, b), a, b` → `arith.minsi a, b`, and
//!      `select(cmpi slt|sle a, b), b, a` → `arith.maxsi a, b` (and mirrored for
//!      `sgt`/`sge`) (`selects-to-minmax`). Integers only: see the risks.
//!    - A `loop.for` of at most one iteration (constant `lb`, `ub`, `step` with
//!      `ub - lb <= step`) whose kind is not a GPU binding: its body replaces it, with the
//!      induction variable replaced by `lb`; one of no iterations is erased
//!      (`unit-loops-removed`).
//!    - A `loop.schedule_block` whose reduce iter vars are all bound to the constant 0 (a
//!      reduction over one point, as inlining a unit loop leaves a depthwise convolution's
//!      reduction over its one channel per group), with the reduce method `none`: its init
//!      runs at every execution, so the init's ops move to the start of the body (its
//!      arguments mapped to the body's), the init region goes, and every iter var becomes
//!      spatial (`one-point-reductions`). `vectorize` then takes the block like any
//!      elementwise one: ppocr_det's depthwise convolutions had run scalar in the quick tier
//!      (2.5 ms a launch instead of 0.1, LLVM's loop vectorizer aside).
//!    - A `loop.for` or `loop.if` whose regions hold only their `loop.yield`, and a
//!      `loop.schedule_block` whose body and init hold only their `loop.yield`, are erased.
//! 2. Index simplification: each `index` value used by a `loop.load`, `loop.store`,
//!    `loop.vload`, `loop.vstore`, `loop.for` (bounds), `loop.schedule_block` (iter values)
//!    or `arith.cmpi` is read as an index expression (`index_expr::from_ir_with`) and
//!    simplified with `index_expr::simplify` under the ranges below. When the simplified
//!    expression takes fewer `arith` ops to build than the one read, it is built just after
//!    the value's defining op and replaces every use of the value (`index-exprs-simplified`);
//!    an expression that is only rearranged is left alone. An `arith.cmpi` on `index` values
//!    whose outcome the ranges decide becomes an `i1` constant (step 1 then folds the `if` or
//!    `select` it feeds). A `loop.load_padded` or `loop.vload_padded` whose indices (every
//!    lane's) the ranges keep inside a buffer of static shape becomes the plain `loop.load`
//!    or `loop.vload`: a depthwise convolution's centre tap reads its row without a mask.
//!
//! Ranges: an induction variable lies in `[lo(lb), hi(ub) - 1]` and below its `ub` even when
//! `ub` is symbolic (`iv < ub` is decided); a schedule-block iter var lies in the range of its
//! iter value; `loop.thread_id`/`loop.block_id` lie in `[0, n)` for a constant `block`/`grid`
//! launch size `n` (else are non-negative), `loop.block_dim` is that size, `loop.dim` results
//! are non-negative, and so are the `index` arguments of kernels and host functions (shapes).
//!
//! # Risks and limitations
//! - `index` arguments of kernels and host functions are assumed non-negative (they carry
//!   shapes in lowered programs); a hand-written kernel that passes a negative index offset
//!   may be simplified wrongly where a division or a comparison depends on its sign.
//! - Float `select(cmpf ...)` is never turned into `minimumf`/`maximumf`/`minnumf`/`maxnumf`:
//!   with a NaN operand, `select(a < b, a, b)` returns `b` whatever `b` is, which none of the
//!   four float ops does. Unsigned predicates are left alone (dlc's `arith` has no
//!   `minui`/`maxui`).
//! - Loops bound to the GPU (`block.*`, `thread.*`) are never inlined, even with one iteration:
//!   they define the launch shape.
//! - No `math` folding (`math.exp` of a constant stays), no CINN L4 broadcast rules.
//!
//! # Examples
//! 1. Index arithmetic and a bound check that the loop ranges decide:
//!    ```text
//!    loop.kernel @k(%a: !loop.buffer<16xf32, global>, %b: !loop.buffer<48xf32, global>) {
//!      %c0 = arith.constant 0 : index
//!      %c1 = arith.constant 1 : index
//!      %c3 = arith.constant 3 : index
//!      %c16 = arith.constant 16 : index
//!      loop.for serial %i = %c0 to %c16 step %c1 {
//!        loop.for serial %j = %c0 to %c3 step %c1 {
//!          %0 = arith.muli %i, %c3 : index
//!          %1 = arith.addi %0, %j : index
//!          %2 = arith.divsi %1, %c3 : index
//!          %ok = arith.cmpi slt, %i, %c16 : index
//!          loop.if %ok {
//!            %v = loop.load %a[%2] : !loop.buffer<16xf32, global>
//!            loop.store %v, %b[%1] : !loop.buffer<48xf32, global>
//!          }
//!        }
//!      }
//!      loop.return
//!    }
//!    ```
//!    becomes
//!    ```text
//!    loop.kernel @k(%arg0: !loop.buffer<16xf32, global>, %arg1: !loop.buffer<48xf32, global>) {
//!      %c0 = arith.constant 0 : index
//!      %c1 = arith.constant 1 : index
//!      %c3 = arith.constant 3 : index
//!      %c16 = arith.constant 16 : index
//!      loop.for serial %arg2 = %c0 to %c16 step %c1 {
//!        loop.for serial %arg3 = %c0 to %c3 step %c1 {
//!          %0 = arith.muli %arg2, %c3 : index
//!          %1 = arith.addi %0, %arg3 : index
//!          %2 = loop.load %arg0[%arg2] : !loop.buffer<16xf32, global>
//!          loop.store %2, %arg1[%1] : !loop.buffer<48xf32, global>
//!          loop.yield
//!        }
//!        loop.yield
//!      }
//!      loop.return
//!    }
//!    ```
//! 2. A unit loop is inlined and a select becomes a max:
//!    ```text
//!    loop.kernel @u(%a: !loop.buffer<4xi32, global>, %n: index) {
//!      %c0 = arith.constant 0 : index
//!      %c1 = arith.constant 1 : index
//!      %c2 = arith.constant 2 : index
//!      loop.for serial %i = %c1 to %c2 step %c1 {
//!        %x = loop.load %a[%i] : !loop.buffer<4xi32, global>
//!        %y = loop.load %a[%c0] : !loop.buffer<4xi32, global>
//!        %le = arith.cmpi sle, %x, %y : i32
//!        %m = arith.select %le, %y, %x : i32
//!        loop.store %m, %a[%i] : !loop.buffer<4xi32, global>
//!      }
//!      loop.return
//!    }
//!    ```
//!    becomes
//!    ```text
//!    loop.kernel @u(%arg0: !loop.buffer<4xi32, global>, %arg1: index) {
//!      %c0 = arith.constant 0 : index
//!      %c1 = arith.constant 1 : index
//!      %0 = loop.load %arg0[%c1] : !loop.buffer<4xi32, global>
//!      %1 = loop.load %arg0[%c0] : !loop.buffer<4xi32, global>
//!      %2 = arith.maxsi %0, %1 : i32
//!      loop.store %2, %arg0[%c1] : !loop.buffer<4xi32, global>
//!      loop.return
//!    }
//!    ```
//!
//! # Counter-examples
//! 1. `loop.for thread.x %t = %c0 to %c1 step %c1` stays: a GPU binding is never inlined.
//! 2. `arith.select(cmpf olt %a, %b), %a, %b` on `f32` stays: no float min/max op has its NaN
//!    behaviour.
//! 3. `(i * 3 + j) / 3` stays a division when `j` is not provably in `[0, 3)`.

use dlc_arith::{CmpIOp, CmpIPredicate, ConstantOp, MaxSIOp, MinSIOp, SelectOp};
use dlc_func::FuncOp;
use dlc_ir::pass::{Anchor, OptionKind, OptionSpec, OptionValues, Pass, PassInfo, PassRun};
use dlc_ir::rewrite::{greedy_rewrite, GreedyConfig, PatternSet, RewritePattern, Rewriter};
use dlc_ir::{
    Block, Context, Diagnostic, InsertPoint, Op, OpSpec, OpView, Traits, TypeKind, Value,
};
use dlc_loop::index_expr::{
    equal, erase_dead_index_ops, from_ir_with, prove_le, prove_lt, range_of, simplify, Atom,
    Bounds, Emitter, FromIr, IndexExpr, Reader, Symbol,
};
use dlc_loop::{
    gpu_dim, ForOp, IfOp, IterKind, KernelOp, LaunchDim, LoopOps, ReduceMethod, ScheduleBlockOp,
};
use std::cell::OnceCell;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// The pass description.
pub static INFO: PassInfo = PassInfo {
    argument: "simplify",
    summary: "Simplifies loop kernels and host functions to a fixpoint: folds constants, \
              simplifies index arithmetic with the index-expression library, folds constant \
              conditions, turns selects into min/max, and removes unit loops and empty loops, \
              ifs and schedule blocks.",
    anchor: Anchor::OneOf(&[KernelOp::NAME, FuncOp::NAME]),
    options: &[OptionSpec::new(
        "max-iterations",
        OptionKind::Int,
        "10",
        "Maximum number of rounds of folding and index simplification",
    )],
    statistics: &[
        ("folded", "Number of ops folded or erased as unused"),
        (
            "index-exprs-simplified",
            "Number of index operands rewritten, index comparisons decided or padded loads \
             proven inside their buffer",
        ),
        (
            "unit-loops-removed",
            "Number of loops of at most one iteration inlined or erased",
        ),
        (
            "one-point-reductions",
            "Number of schedule blocks reducing over one point made plain blocks",
        ),
        (
            "ifs-folded",
            "Number of loop.if ops with a constant condition folded",
        ),
        (
            "selects-to-minmax",
            "Number of selects turned into minsi/maxsi",
        ),
        (
            "empty-ops-removed",
            "Number of empty loops, ifs and schedule blocks erased",
        ),
    ],
    create,
};

fn create(options: &OptionValues) -> Result<Box<dyn Pass>, String> {
    let max_iterations = options.int("max-iterations");
    if max_iterations < 1 {
        return Err("max-iterations must be at least 1".into());
    }
    Ok(Box::new(Simplify { max_iterations }))
}

struct Simplify {
    max_iterations: i64,
}

/// Counters the patterns share with the pass (patterns must be `Send + Sync`).
#[derive(Default)]
struct Counters {
    unit_loops: AtomicU64,
    one_point: AtomicU64,
    ifs: AtomicU64,
    selects: AtomicU64,
    empty: AtomicU64,
}

impl Pass for Simplify {
    fn run(&self, ctx: &mut Context, run: &mut PassRun<'_>) -> Result<(), Diagnostic> {
        let counters = Arc::new(Counters::default());
        let mut patterns = PatternSet::from_canonicalizers(ctx);
        add_patterns(&mut patterns, &counters);
        let mut changed = false;
        let (mut folded, mut indices) = (0, 0);
        let root = run.op();
        // Whether an index sweep has run since the last rewrite by the patterns: another sweep
        // would read the same expressions (the sweep's own rewrites replace values by equal
        // ones) and find nothing. On ppocr_det this skips 40% of the sweeps and of the
        // pass's time, with the same output (docs/benchmarks.md).
        let mut swept = false;
        for _ in 0..self.max_iterations {
            let config = GreedyConfig {
                max_iterations: self.max_iterations,
                ..GreedyConfig::default()
            };
            let stats = greedy_rewrite(ctx, root, &patterns, config);
            folded += stats.folded + stats.erased;
            changed |= stats.changed;
            let rewrote = stats.patterns_applied + stats.folded + stats.erased > 0;
            if swept && !rewrote {
                break;
            }
            let n = simplify_indices(ctx, root);
            indices += n;
            changed |= n > 0;
            if !(rewrote || n > 0) {
                break;
            }
            swept = true;
        }
        run.add_stat("folded", folded);
        run.add_stat("index-exprs-simplified", indices);
        let load = |c: &AtomicU64| c.load(Ordering::Relaxed);
        run.add_stat("unit-loops-removed", load(&counters.unit_loops));
        run.add_stat("one-point-reductions", load(&counters.one_point));
        run.add_stat("ifs-folded", load(&counters.ifs));
        run.add_stat("selects-to-minmax", load(&counters.selects));
        run.add_stat("empty-ops-removed", load(&counters.empty));
        if !changed {
            run.preserve_all();
        }
        Ok(())
    }
}

fn add_patterns(patterns: &mut PatternSet, counters: &Arc<Counters>) {
    patterns.add(ConstantIf(counters.clone()));
    patterns.add(SelectToMinMax(counters.clone()));
    patterns.add(UnitLoop(counters.clone()));
    patterns.add(OnePointReduction(counters.clone()));
    for root in [ForOp::NAME, IfOp::NAME, ScheduleBlockOp::NAME] {
        patterns.add(EmptyRegionOp {
            root,
            counters: counters.clone(),
        });
    }
}

// ---------------------------------------------------------------------------------------------
// Patterns.

/// True if `block` holds nothing but its terminator (or nothing at all).
fn only_terminator(ctx: &Context, block: Option<Block>) -> bool {
    match block {
        None => true,
        Some(b) => ctx
            .block_ops(b)
            .all(|op| ctx.has_trait(op, Traits::TERMINATOR)),
    }
}

/// The single block of region `i` of `op`, if the region has exactly one.
fn region_block(ctx: &Context, op: Op, i: usize) -> Option<Option<Block>> {
    let region = *ctx.regions(op).get(i)?;
    match ctx.blocks(region) {
        [] => Some(None),
        [b] => Some(Some(*b)),
        _ => None,
    }
}

/// Moves the ops of `block` except its terminator before `op`, mapping the block arguments to
/// `args`.
fn inline_before(rw: &mut Rewriter<'_>, block: Block, op: Op, args: &[Value]) {
    let block_args: Vec<Value> = rw.ctx().block_args(block).to_vec();
    for (arg, v) in block_args.into_iter().zip(args) {
        rw.replace_all_uses(arg, *v);
    }
    let ops: Vec<Op> = rw.ctx().block_ops(block).collect();
    for inner in ops {
        if rw.ctx().has_trait(inner, Traits::TERMINATOR) {
            continue;
        }
        rw.move_op(inner, InsertPoint::Before(op));
    }
}

/// `loop.if` on a constant: keep the taken region's ops.
struct ConstantIf(Arc<Counters>);

impl RewritePattern for ConstantIf {
    fn name(&self) -> &str {
        "LoopIfConstantCondition"
    }
    fn root(&self) -> Option<&'static str> {
        Some(IfOp::NAME)
    }
    fn match_and_rewrite(&self, op: Op, rw: &mut Rewriter<'_>) -> bool {
        let ctx = rw.ctx();
        let Some(&cond) = ctx.operands(op).first() else {
            return false;
        };
        let Some(c) = dlc_arith::constant_int(ctx, cond) else {
            return false;
        };
        let Some(taken) = region_block(ctx, op, if c != 0 { 0 } else { 1 }) else {
            return false;
        };
        if let Some(block) = taken {
            inline_before(rw, block, op, &[]);
        }
        rw.erase_op(op);
        self.0.ifs.fetch_add(1, Ordering::Relaxed);
        true
    }
}

/// `select(cmpi a, b), a|b, b|a` on integers → `minsi`/`maxsi`.
struct SelectToMinMax(Arc<Counters>);

impl RewritePattern for SelectToMinMax {
    fn name(&self) -> &str {
        "SelectCmpToMinMax"
    }
    fn root(&self) -> Option<&'static str> {
        Some(SelectOp::NAME)
    }
    fn match_and_rewrite(&self, op: Op, rw: &mut Rewriter<'_>) -> bool {
        let ctx = rw.ctx();
        let [cond, t, f] = ctx.operands(op) else {
            return false;
        };
        let (cond, t, f) = (*cond, *t, *f);
        let Some(cmp) = ctx.defining_op(cond).and_then(|d| ctx.view::<CmpIOp>(d)) else {
            return false;
        };
        let [a, b] = ctx.operands(cmp.0) else {
            return false;
        };
        let (a, b) = (*a, *b);
        let ty = ctx.value_type(op_result(ctx, op));
        if ctx.value_type(a) != ty || !ctx.is_integer_or_index(ty) {
            return false;
        }
        let Some(pred) = cmp.cmp_predicate(ctx) else {
            return false;
        };
        // `less` is true when the condition holds exactly when a is (weakly) below b.
        let less = match pred {
            CmpIPredicate::Slt | CmpIPredicate::Sle => true,
            CmpIPredicate::Sgt | CmpIPredicate::Sge => false,
            _ => return false,
        };
        let picks_a = if (t, f) == (a, b) {
            true
        } else if (t, f) == (b, a) {
            false
        } else {
            return false;
        };
        // a < b ? a : b is the min; a < b ? b : a the max.
        let name = if less == picks_a {
            MinSIOp::NAME
        } else {
            MaxSIOp::NAME
        };
        let loc = ctx.op_loc(op);
        let spec = OpSpec::new(rw.ctx_mut(), name, loc)
            .operands(&[a, b])
            .results(&[ty]);
        rw.replace_op_with_new(op, spec);
        self.0.selects.fetch_add(1, Ordering::Relaxed);
        true
    }
}

fn op_result(ctx: &Context, op: Op) -> Value {
    ctx.result(op, 0)
}

/// A non-GPU `loop.for` of at most one iteration: inline it (or erase it).
struct UnitLoop(Arc<Counters>);

impl RewritePattern for UnitLoop {
    fn name(&self) -> &str {
        "LoopForUnitExtent"
    }
    fn root(&self) -> Option<&'static str> {
        Some(ForOp::NAME)
    }
    fn match_and_rewrite(&self, op: Op, rw: &mut Rewriter<'_>) -> bool {
        let ctx = rw.ctx();
        let for_op = ForOp(op);
        match for_op.loop_kind(ctx) {
            Some(kind) if !kind.is_gpu() => {}
            _ => return false,
        }
        let [lb, ub, step] = ctx.operands(op) else {
            return false;
        };
        let lb_value = *lb;
        let (Some(l), Some(u), Some(s)) = (
            dlc_arith::constant_int(ctx, *lb),
            dlc_arith::constant_int(ctx, *ub),
            dlc_arith::constant_int(ctx, *step),
        ) else {
            return false;
        };
        if s <= 0 || u - l > s {
            return false;
        }
        let Some(body) = for_op.body(ctx) else {
            return false;
        };
        if u > l {
            inline_before(rw, body, op, &[lb_value]);
        }
        rw.erase_op(op);
        self.0.unit_loops.fetch_add(1, Ordering::Relaxed);
        true
    }
}

/// A schedule block whose reduce iter vars are all bound to the constant 0 (what inlining a
/// unit loop leaves of a reduction over one element, a depthwise convolution's over its one
/// channel per group): its init runs at every execution, so the init's ops go first in the
/// body, the init region goes, and every iter var is spatial. Left alone on a GPU reduce
/// method, which names how a reduction is split over threads.
struct OnePointReduction(Arc<Counters>);

impl RewritePattern for OnePointReduction {
    fn name(&self) -> &str {
        "ScheduleBlockOnePointReduction"
    }
    fn root(&self) -> Option<&'static str> {
        Some(ScheduleBlockOp::NAME)
    }
    fn match_and_rewrite(&self, op: Op, rw: &mut Rewriter<'_>) -> bool {
        let ctx = rw.ctx();
        let block = ScheduleBlockOp(op);
        let kinds = block.iter_kind_list(ctx);
        let values = block.iter_values(ctx);
        let one_point = kinds.len() == values.len()
            && kinds.contains(&IterKind::Reduce)
            && kinds
                .iter()
                .zip(values)
                .filter(|(k, _)| **k == IterKind::Reduce)
                .all(|(_, v)| dlc_arith::constant_int(ctx, *v) == Some(0));
        if !one_point || block.method(ctx) != ReduceMethod::None {
            return false;
        }
        let Some(body) = block.body(ctx) else {
            return false;
        };
        if let Some(init) = block.init_block(ctx) {
            let (Some(first), Some(yield_op)) = (ctx.first_op(body), ctx.last_op(init)) else {
                return false;
            };
            let body_args = ctx.block_args(body).to_vec();
            inline_before(rw, init, first, &body_args);
            rw.erase_op(yield_op);
            rw.modify_in_place(op, |ctx| ctx.erase_block(init));
        }
        rw.modify_in_place(op, |ctx| {
            let spatial = ctx.string_attr(IterKind::Spatial.name());
            let kinds = ctx.array_attr(&vec![spatial; kinds.len()]);
            ctx.set_attr(op, "iter_kinds", kinds);
        });
        self.0.one_point.fetch_add(1, Ordering::Relaxed);
        true
    }
}

/// A loop, if or schedule block with nothing in its regions but terminators.
struct EmptyRegionOp {
    root: &'static str,
    counters: Arc<Counters>,
}

impl RewritePattern for EmptyRegionOp {
    fn name(&self) -> &str {
        "LoopEmptyRegionOp"
    }
    fn root(&self) -> Option<&'static str> {
        Some(self.root)
    }
    fn match_and_rewrite(&self, op: Op, rw: &mut Rewriter<'_>) -> bool {
        let ctx = rw.ctx();
        if ctx.num_results(op) != 0 {
            return false;
        }
        let regions = ctx.regions(op).len();
        let empty = (0..regions).all(|i| match region_block(ctx, op, i) {
            Some(block) => only_terminator(ctx, block),
            None => false,
        });
        if !empty {
            return false;
        }
        rw.erase_op(op);
        self.counters.empty.fetch_add(1, Ordering::Relaxed);
        true
    }
}

// ---------------------------------------------------------------------------------------------
// Index simplification.

/// Rewrites the index operands of loads, stores and loops in `root` to their simplified
/// expressions and decides index comparisons; returns the number of changes.
fn simplify_indices(ctx: &mut Context, root: Op) -> u64 {
    let ranges = collect_bounds(ctx, root);
    let bounds = &ranges.bounds;
    let mut ops = Vec::new();
    ctx.for_each_op(root, &mut |o| ops.push(o));
    let mut changes = 0;
    let mut done = HashSet::new();
    // What the readers learned, shared by the values of this sweep: its changes only add ops
    // and replace values by equal ones, so an expression read once stays right.
    let mut memo = HashMap::new();
    for op in ops {
        if !ctx.is_alive(op) {
            continue;
        }
        if unpad_load(ctx, op, &ranges) {
            changes += 1;
            continue;
        }
        // The positions of the operands that may be indices: an access's indices, all of a
        // comparison's, a loop's or a schedule block's.
        let n = ctx.operands(op).len();
        let positions = if let Some(at) = dlc_loop::analysis::access::index_operands(ctx, op) {
            at
        } else if let Some(cmp) = ctx.view::<CmpIOp>(op) {
            if decide_cmpi(ctx, cmp, &ranges) {
                changes += 1;
                continue;
            }
            0..n
        } else {
            match LoopOps::of(ctx, op) {
                Some(LoopOps::ForOp(_) | LoopOps::ScheduleBlockOp(_)) => 0..n,
                _ => continue,
            }
        };
        for i in positions {
            let v = ctx.operand(op, i);
            if ctx.value_type(v) != dlc_ir::Type::INDEX || !done.insert(v) {
                continue;
            }
            let Some(def) = ctx.defining_op(v) else {
                continue;
            };
            let mut reader =
                Reader::with_memo(ctx, read_options(bounds), std::mem::take(&mut memo));
            let simple = simplify(&reader.read(v), bounds);
            // What was read is already canonical (like terms merged), so it is the IR that the
            // rewrite must beat: `i*4 - i*2` reads as `i*2`, one op where the IR has three.
            let before = ir_cost(ctx, &mut reader, v);
            memo = reader.into_memo();
            if cost(&simple) >= before {
                continue;
            }
            // Every symbol of the expression is a value `def` depends on, so building it just
            // after `def` lets it replace `v` everywhere.
            let loc = ctx.op_loc(def);
            let mut emitter =
                Emitter::new(InsertPoint::After(def), loc).with_bounds(bounds.clone());
            let Ok(new) = emitter.emit(ctx, &simple) else {
                continue;
            };
            if new == v {
                continue;
            }
            // The emitter may build a form longer than `cost` counts; keep the old one then.
            if ir_cost(ctx, &mut Reader::new(ctx, read_options(bounds)), new) >= before {
                erase_dead_index_ops(ctx, new);
                continue;
            }
            ctx.replace_all_uses(v, new);
            erase_dead_index_ops(ctx, v);
            changes += 1;
        }
    }
    changes
}

/// The number of `arith` ops building `e` takes (without sharing): the measure an index
/// rewrite must lower, so the pass never trades one form for an equally long one.
fn cost(e: &IndexExpr) -> usize {
    let terms = e.terms();
    let mut n = terms.len().saturating_sub(1);
    if e.constant_term() != 0 && !terms.is_empty() {
        n += 1;
    }
    for (monomial, coefficient) in terms {
        n += monomial.len() - 1 + usize::from(*coefficient != 1);
        for atom in monomial {
            n += match atom {
                Atom::Sym(_) => 0,
                Atom::FloorDiv(a, b) | Atom::Mod(a, b) | Atom::Min(a, b) | Atom::Max(a, b) => {
                    1 + cost(a) + cost(b)
                }
            };
        }
    }
    n
}

/// The number of distinct `arith` ops that compute `v` as `reader` reads it: ops it looks
/// through, not constants, not the values it takes as symbols.
fn ir_cost(ctx: &Context, reader: &mut Reader<'_>, v: Value) -> usize {
    let mut seen = HashSet::new();
    let mut work = vec![v];
    let mut n = 0;
    while let Some(v) = work.pop() {
        let Some(def) = ctx.defining_op(v) else {
            continue;
        };
        if !seen.insert(def) || ctx.view::<ConstantOp>(def).is_some() {
            continue;
        }
        if reader.read(v) == IndexExpr::value(v) {
            continue;
        }
        n += 1;
        work.extend(ctx.operands(def).iter().copied());
    }
    n
}

/// How the pass reads index values: divisions only where `bounds` prove they floor.
fn read_options(bounds: &Bounds) -> FromIr<'_> {
    FromIr {
        bounds: Some(bounds),
        assume_non_negative: false,
    }
}

fn read_index(ctx: &Context, v: Value, bounds: &Bounds) -> IndexExpr {
    from_ir_with(ctx, v, read_options(bounds))
}

/// Replaces a `loop.load_padded` or `loop.vload_padded` whose indices the ranges keep inside
/// its buffer (every lane's, for a vector) by the plain `loop.load` or `loop.vload` at the
/// same indices: the padding is never read. Static dims only.
fn unpad_load(ctx: &mut Context, op: Op, ranges: &Ranges) -> bool {
    let name = match LoopOps::of(ctx, op) {
        Some(LoopOps::LoadPaddedOp(_)) => "loop.load",
        Some(LoopOps::VLoadPaddedOp(_)) => "loop.vload",
        _ => return false,
    };
    let Some(access) = dlc_loop::access(ctx, op) else {
        return false;
    };
    let Some((dims, _, _)) = dlc_loop::buffer_parts(ctx, ctx.value_type(access.buffer)) else {
        return false;
    };
    let bounds = &ranges.bounds;
    let last = access.indices.len().saturating_sub(1);
    let inside = access.indices.iter().enumerate().all(|(k, &i)| {
        let lanes = if k == last {
            i64::from(access.lanes)
        } else {
            1
        };
        let (lo, hi) = range_of(&read_index(ctx, i, bounds), bounds);
        dims.get(k)
            .is_some_and(|&d| d >= 0 && lo >= 0 && hi.checked_add(lanes).is_some_and(|e| e <= d))
    });
    if !inside {
        return false;
    }
    let mut operands = vec![access.buffer];
    operands.extend_from_slice(access.indices);
    let result = ctx.result(op, 0);
    let ty = ctx.value_type(result);
    let spec = OpSpec::new(ctx, name, ctx.op_loc(op))
        .operands(&operands)
        .results(&[ty]);
    let load = ctx.build(InsertPoint::Before(op), spec);
    let new = ctx.result(load, 0);
    ctx.replace_all_uses(result, new);
    ctx.erase_op(op);
    true
}

/// Replaces an `index` `arith.cmpi` whose outcome the ranges decide by an `i1` constant.
fn decide_cmpi(ctx: &mut Context, cmp: CmpIOp, ranges: &Ranges) -> bool {
    let op = cmp.0;
    let bounds = &ranges.bounds;
    let [a, b] = ctx.operands(op) else {
        return false;
    };
    let (a, b) = (*a, *b);
    if ctx.value_type(a) != dlc_ir::Type::INDEX
        || !matches!(
            ctx.type_kind(ctx.value_type(ctx.result(op, 0))),
            TypeKind::Integer { width: 1 }
        )
    {
        return false;
    }
    let Some(pred) = cmp.cmp_predicate(ctx) else {
        return false;
    };
    let x = simplify(&read_index(ctx, a, bounds), bounds);
    let y = simplify(&read_index(ctx, b, bounds), bounds);
    let non_negative = range_of(&x, bounds).0 >= 0 && range_of(&y, bounds).0 >= 0;
    use CmpIPredicate::*;
    let outcome = match pred {
        Eq => equal(&x, &y, bounds),
        Ne => equal(&x, &y, bounds).map(|e| !e),
        Slt => ranges.order(&x, &y, true),
        Sle => ranges.order(&x, &y, false),
        Sgt => ranges.order(&y, &x, true),
        Sge => ranges.order(&y, &x, false),
        Ult if non_negative => ranges.order(&x, &y, true),
        Ule if non_negative => ranges.order(&x, &y, false),
        Ugt if non_negative => ranges.order(&y, &x, true),
        Uge if non_negative => ranges.order(&y, &x, false),
        _ => None,
    };
    let Some(outcome) = outcome else {
        return false;
    };
    let loc = ctx.op_loc(op);
    let attr = ctx.bool_attr(outcome);
    let c = dlc_arith::build_constant(ctx, InsertPoint::Before(op), attr, dlc_ir::Type::I1, loc);
    let (old, new) = (ctx.result(op, 0), ctx.result(c, 0));
    ctx.replace_all_uses(old, new);
    ctx.erase_op(op);
    true
}

/// `x < y` (strict) or `x <= y`, when the ranges decide it.
fn order(x: &IndexExpr, y: &IndexExpr, bounds: &Bounds, strict: bool) -> Option<bool> {
    if strict {
        if prove_lt(x, y, bounds) {
            Some(true)
        } else if prove_le(y, x, bounds) {
            Some(false)
        } else {
            None
        }
    } else if prove_le(x, y, bounds) {
        Some(true)
    } else if prove_lt(y, x, bounds) {
        Some(false)
    } else {
        None
    }
}

/// The ranges of the index values in `root`: induction variables, iter vars, shapes and GPU
/// ids (see the module docs).
fn collect_bounds(ctx: &Context, root: Op) -> Ranges {
    let mut bounds = Bounds::new();
    let mut upper = HashMap::new();
    let kernel = ctx.view::<KernelOp>(root);
    let grid = kernel.and_then(|k| k.grid_dims(ctx));
    let block = kernel.and_then(|k| k.block_dims(ctx));
    let mut ops = Vec::new();
    ctx.for_each_op(root, &mut |o| ops.push(o));
    let non_negative = |bounds: &mut Bounds, v: Value, lo: i64| {
        if ctx.value_type(v) == dlc_ir::Type::INDEX {
            bounds.insert(Symbol::Value(v), lo, i64::MAX);
        }
    };
    for op in ops {
        if ctx.view::<KernelOp>(op).is_some() || ctx.view::<FuncOp>(op).is_some() {
            for &region in ctx.regions(op) {
                if let Some(&entry) = ctx.blocks(region).first() {
                    for &arg in ctx.block_args(entry) {
                        non_negative(&mut bounds, arg, 0);
                    }
                }
            }
            continue;
        }
        match LoopOps::of(ctx, op) {
            Some(LoopOps::DimOp(dim)) => non_negative(&mut bounds, dim.result(ctx), 0),
            Some(
                id @ (LoopOps::ThreadIdOp(_) | LoopOps::BlockIdOp(_) | LoopOps::BlockDimOp(_)),
            ) => {
                let dims = if matches!(id, LoopOps::BlockIdOp(_)) {
                    grid
                } else {
                    block
                };
                let size = gpu_dim(ctx, op).and_then(|d| match dims?[d.index()] {
                    LaunchDim::Const(n) if n > 0 => Some(n),
                    _ => None,
                });
                let v = ctx.result(op, 0);
                match (matches!(id, LoopOps::BlockDimOp(_)), size) {
                    (true, Some(n)) => {
                        bounds.insert(Symbol::Value(v), n, n);
                    }
                    (true, None) => non_negative(&mut bounds, v, 1),
                    (false, Some(n)) => {
                        bounds.insert(Symbol::Value(v), 0, n - 1);
                    }
                    (false, None) => non_negative(&mut bounds, v, 0),
                }
            }
            Some(LoopOps::ForOp(for_op)) => {
                let (Some(iv), [lb, ub, _]) = (for_op.induction_var(ctx), ctx.operands(op)) else {
                    continue;
                };
                let lo = range_of(&read_index(ctx, *lb, &bounds), &bounds).0;
                let ub_expr = read_index(ctx, *ub, &bounds);
                let hi = range_of(&ub_expr, &bounds).1;
                upper.insert(iv, (ub_expr, OnceCell::new()));
                let hi = if hi == i64::MAX { hi } else { hi - 1 };
                bounds.insert(Symbol::Value(iv), lo, hi.max(lo));
            }
            Some(LoopOps::ScheduleBlockOp(sb)) => {
                let ranges: Vec<(i64, i64)> = sb
                    .iter_values(ctx)
                    .iter()
                    .map(|v| range_of(&read_index(ctx, *v, &bounds), &bounds))
                    .collect();
                for block in [sb.body(ctx), sb.init_block(ctx)].into_iter().flatten() {
                    for (&arg, &(lo, hi)) in ctx.block_args(block).iter().zip(&ranges) {
                        bounds.insert(Symbol::Value(arg), lo, hi);
                    }
                }
            }
            _ => {}
        }
    }
    Ranges { bounds, upper }
}

/// What the pass knows about index values: interval bounds, and the exclusive upper bound of
/// each induction variable as an expression (`iv < ub` holds even when `ub` is symbolic),
/// simplified when first asked for (most never are; simplifying every loop's bound up front
/// was most of the time this analysis took).
struct Ranges {
    bounds: Bounds,
    upper: HashMap<Value, (IndexExpr, OnceCell<IndexExpr>)>,
}

impl Ranges {
    /// `x < y` (strict) or `x <= y`, when the ranges or a loop bound decide it.
    fn order(&self, x: &IndexExpr, y: &IndexExpr, strict: bool) -> Option<bool> {
        if let Some(out) = order(x, y, &self.bounds, strict) {
            return Some(out);
        }
        // iv < ub <= y.
        // The bound's symbols are those of the loops around it, whose ranges `bounds` held
        // already when the bound was read: simplifying it now gives what it gave then.
        let ub = match x.as_symbol() {
            Some(Symbol::Value(v)) => {
                let (read, simplified) = self.upper.get(&v)?;
                simplified.get_or_init(|| simplify(read, &self.bounds))
            }
            _ => return None,
        };
        let proven = if strict {
            prove_le(ub, y, &self.bounds)
        } else {
            prove_le(ub, &(y + &IndexExpr::constant(1)), &self.bounds)
        };
        proven.then_some(true)
    }
}
