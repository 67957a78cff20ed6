//! What the memory passes share: buffer accesses with their indices read as index expressions
//! over loop induction variables (schedule-block iter vars replaced by the values bound to
//! them), loop bounds, and the small IR queries (is this a global store, a GPU-bound value).

use dlc_arith::ArithOps;
use dlc_ir::{Context, Op, Value};
use dlc_loop::index_expr::{from_ir_with, Atom, Bounds, FromIr, IndexExpr, Symbol};
use dlc_loop::{buffer_parts, AccessKind, BarrierOp, ForOp, LoopKind, LoopOps, MemorySpace};
use rustc_hash::FxHashMap;

/// The operand position of the first index of the access `op` (its indices are its last
/// operands, as in every loop-dialect access), `None` for other ops.
pub(super) fn first_index_operand(ctx: &Context, op: Op) -> Option<usize> {
    let access = dlc_loop::access(ctx, op)?;
    let operands = ctx.operands(op);
    operands
        .ends_with(access.indices)
        .then(|| operands.len() - access.indices.len())
}

/// True for an access of more than one lane (`loop.vload` / `loop.vstore`), which spans its
/// buffer's last dim.
pub(super) fn is_vector_access(ctx: &Context, op: Op) -> bool {
    dlc_loop::access(ctx, op).is_some_and(|a| a.lanes > 1)
}

/// The accesses that use `buffer` as their buffer, or `None` when it has any other use
/// (passed to a launch, measured by `loop.dim`), which a pass that changes the buffer's type
/// or indices cannot follow. A buffer is never an index or a stored value.
pub(super) fn accesses_of(ctx: &Context, buffer: Value) -> Option<Vec<Op>> {
    let mut out = Vec::new();
    for u in ctx.uses(buffer) {
        if dlc_loop::access(ctx, u.user).is_none_or(|a| a.buffer != buffer) {
            return None;
        }
        if !out.contains(&u.user) {
            out.push(u.user);
        }
    }
    Some(out)
}

/// The buffer `op` stores to, `None` when it is not a store.
pub(super) fn stored_buffer(ctx: &Context, op: Op) -> Option<Value> {
    dlc_loop::access(ctx, op)
        .filter(|a| a.kind == AccessKind::Write)
        .map(|a| a.buffer)
}

/// Whether `v` is the result of a load (a value read from memory, not index arithmetic).
pub(super) fn is_loaded(ctx: &Context, v: Value) -> bool {
    ctx.defining_op(v)
        .and_then(|d| dlc_loop::access(ctx, d))
        .is_some_and(|a| a.kind == AccessKind::Read)
}

/// Whether `op` (or an op nested in it) stores to a global buffer whose element type is `elem`
/// (any element type when `None`): such a buffer may be the same memory as another global
/// kernel argument of that type, since a launch may pass one buffer twice.
pub(super) fn stores_global(ctx: &Context, op: Op, elem: Option<dlc_ir::Type>) -> bool {
    let mut found = false;
    ctx.for_each_op(op, &mut |o| {
        let Some(buf) = stored_buffer(ctx, o) else {
            return;
        };
        if let Some((_, e, MemorySpace::Global)) = buffer_parts(ctx, ctx.value_type(buf)) {
            found |= elem.is_none_or(|want| want == e);
        }
    });
    found
}

/// Whether `op` is or contains a `loop.barrier`.
pub(super) fn has_barrier(ctx: &Context, op: Op) -> bool {
    let mut found = false;
    ctx.for_each_op(op, &mut |o| found |= ctx.view::<BarrierOp>(o).is_some());
    found
}

/// The kind of a `loop.for`, `None` for other ops.
pub(super) fn for_kind(ctx: &Context, op: Op) -> Option<LoopKind> {
    ctx.view::<ForOp>(op)?.loop_kind(ctx)
}

/// A `loop.for` with constant bounds `0..extent` step 1: its extent.
pub(super) fn constant_extent(ctx: &Context, op: Op) -> Option<i64> {
    let ops = ctx.operands(op);
    let [lb, ub, step] = [ops.first()?, ops.get(1)?, ops.get(2)?]
        .map(|v| dlc_loop::index_expr::from_ir(ctx, *v).as_constant());
    (lb? == 0 && step? == 1 && ub? > 0).then_some(ub?)
}

/// The index-expression view of a kernel: every schedule-block iter var maps to the expression
/// of the value bound to it (itself resolved), and every induction variable of a loop with
/// constant bounds and a positive constant step has its range.
pub(super) struct Resolver {
    iters: FxHashMap<Symbol, IndexExpr>,
    pub(super) bounds: Bounds,
    /// Values that differ per GPU block or thread: `block.*`/`thread.*` induction variables,
    /// `loop.thread_id`, `loop.block_id`, and iter vars bound to expressions of them.
    gpu_values: Vec<Symbol>,
}

impl Resolver {
    /// Reads the schedule blocks and loops nested in `root`.
    pub(super) fn new(ctx: &Context, root: Op) -> Self {
        let mut r = Resolver {
            iters: FxHashMap::default(),
            bounds: Bounds::new(),
            gpu_values: Vec::new(),
        };
        // Pre-order: a block's iter values are resolved before the blocks nested in it.
        ctx.for_each_op(root, &mut |op| match LoopOps::of(ctx, op) {
            Some(LoopOps::ScheduleBlockOp(_)) => {
                let values = ctx.operands(op).to_vec();
                for &region in ctx.regions(op) {
                    for &b in ctx.blocks(region) {
                        for (arg, v) in ctx.block_args(b).iter().zip(&values) {
                            let e = r.resolve(ctx, *v);
                            let (lo, hi) = dlc_loop::index_expr::range_of(&e, &r.bounds);
                            if r.is_gpu_dependent(&e) {
                                r.gpu_values.push(Symbol::Value(*arg));
                            }
                            r.iters.insert(Symbol::Value(*arg), e);
                            r.bounds.insert(Symbol::Value(*arg), lo, hi);
                        }
                    }
                }
            }
            Some(LoopOps::ForOp(_)) => {
                let ops = ctx.operands(op);
                let Some(body) = ctx
                    .regions(op)
                    .first()
                    .and_then(|rg| ctx.blocks(*rg).first())
                else {
                    return;
                };
                let Some(&iv) = ctx.block_args(*body).first() else {
                    return;
                };
                if for_kind(ctx, op).is_some_and(LoopKind::is_gpu) {
                    r.gpu_values.push(Symbol::Value(iv));
                }
                if ops.len() != 3 {
                    return;
                }
                let lb = r.resolve(ctx, ops[0]);
                let ub = r.resolve(ctx, ops[1]);
                let step = r.resolve(ctx, ops[2]).as_constant();
                let (lo, _) = dlc_loop::index_expr::range_of(&lb, &r.bounds);
                let (_, ub_hi) = dlc_loop::index_expr::range_of(&ub, &r.bounds);
                if step.is_some_and(|s| s > 0) && lo != i64::MIN {
                    let hi = if ub_hi == i64::MAX { ub_hi } else { ub_hi - 1 };
                    r.bounds.insert(Symbol::Value(iv), lo, hi.max(lo));
                }
            }
            Some(LoopOps::ThreadIdOp(_) | LoopOps::BlockIdOp(_)) => {
                if let Some(v) = ctx.results(op).next() {
                    r.gpu_values.push(Symbol::Value(v));
                }
            }
            _ => {}
        });
        r
    }

    /// The expression of an index value, with iter vars replaced by what they are bound to.
    /// Divisions are read as floor divisions: loop indices are non-negative.
    pub(super) fn resolve(&self, ctx: &Context, v: Value) -> IndexExpr {
        let e = from_ir_with(
            ctx,
            v,
            FromIr {
                bounds: None,
                assume_non_negative: true,
            },
        );
        substitute(&e, &|s| self.iters.get(&s).cloned())
    }

    /// Whether `e` depends on a GPU block or thread index.
    pub(super) fn is_gpu_dependent(&self, e: &IndexExpr) -> bool {
        e.symbols().iter().any(|s| self.gpu_values.contains(s))
    }
}

/// `e` with each symbol `s` for which `f(s)` is `Some(x)` replaced by `x`.
pub(super) fn substitute(e: &IndexExpr, f: &dyn Fn(Symbol) -> Option<IndexExpr>) -> IndexExpr {
    let mut acc = IndexExpr::constant(e.constant_term());
    for (m, c) in e.terms() {
        let mut product = IndexExpr::constant(*c);
        for a in m {
            let x = substitute_atom(a, f);
            product = &product * &x;
        }
        acc = &acc + &product;
    }
    acc
}

fn substitute_atom(a: &Atom, f: &dyn Fn(Symbol) -> Option<IndexExpr>) -> IndexExpr {
    match a {
        Atom::Sym(s) => f(*s).unwrap_or_else(|| IndexExpr::symbol(*s)),
        Atom::FloorDiv(x, y) => substitute(x, f).floordiv(&substitute(y, f)),
        Atom::Mod(x, y) => substitute(x, f).modulo(&substitute(y, f)),
        Atom::Min(x, y) => substitute(x, f).minimum(&substitute(y, f)),
        Atom::Max(x, y) => substitute(x, f).maximum(&substitute(y, f)),
    }
}

/// Erases `v`'s defining op when it is an unused `arith` op, and then its operands' likewise:
/// the index arithmetic a rewrite leaves behind.
pub(super) fn erase_dead_index_ops(ctx: &mut Context, v: Value) {
    let mut work = vec![v];
    let mut seen = rustc_hash::FxHashSet::default();
    while let Some(v) = work.pop() {
        if !seen.insert(v) {
            continue;
        }
        let Some(op) = ctx.defining_op(v) else {
            continue;
        };
        if ArithOps::of(ctx, op).is_none() || ctx.results(op).any(|r| !ctx.is_unused(r)) {
            continue;
        }
        work.extend(ctx.operands(op).iter().copied());
        ctx.erase_op(op);
    }
}

/// A readable name for a buffer: `argN` for kernel argument N, else `buf`.
pub(super) fn buffer_name(ctx: &Context, buffer: Value) -> String {
    match ctx.value_def(buffer) {
        dlc_ir::ValueDef::BlockArg { index, .. } => format!("arg{index}"),
        _ => "buf".to_string(),
    }
}
