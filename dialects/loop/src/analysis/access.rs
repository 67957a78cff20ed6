//! Buffer accesses: which ops access a buffer and how (through the [`MemoryAccess`] interface,
//! so a downstream dialect's own loads and stores count), and their indices read as index
//! expressions over loop induction variables, with schedule-block iter vars replaced by the
//! values bound to them ([`Resolver`]).
//!
//! [`MemoryAccess`]: crate::MemoryAccess

use crate::index_expr::{from_ir_with, range_of, Atom, Bounds, FromIr, IndexExpr, Symbol};
use crate::{Access, AccessKind, LoopKind, LoopOps};
use dlc_ir::{Context, Op, Value};
use rustc_hash::FxHashMap;

/// The access of a scalar `loop.load` or `loop.store`; `None` for a vector access, a prefetch
/// and every other op. Passes that reason about one element per access (a thread's register,
/// a scratch buffer's size) accept only these.
pub fn scalar_access(ctx: &Context, op: Op) -> Option<Access<'_>> {
    match LoopOps::of(ctx, op)? {
        LoopOps::LoadOp(_) | LoopOps::StoreOp(_) => crate::access(ctx, op),
        _ => None,
    }
}

/// The operand position of the first index of the access `op` (its indices are its last
/// operands, as in every loop-dialect access, or come just before a padded read's padding),
/// `None` for other ops.
pub fn first_index_operand(ctx: &Context, op: Op) -> Option<usize> {
    index_operands(ctx, op).map(|r| r.start)
}

/// The operand positions of the indices of the access `op`, `None` for other ops.
pub fn index_operands(ctx: &Context, op: Op) -> Option<std::ops::Range<usize>> {
    let access = crate::access(ctx, op)?;
    let operands = ctx.operands(op);
    let end = operands.len() - usize::from(access.padding.is_some());
    let first = end.checked_sub(access.indices.len())?;
    (operands.get(first..end)? == access.indices).then_some(first..end)
}

/// True for an access of more than one lane (`loop.vload` / `loop.vstore`), which spans its
/// buffer's last dim.
pub fn is_vector_access(ctx: &Context, op: Op) -> bool {
    crate::access(ctx, op).is_some_and(|a| a.lanes > 1)
}

/// The accesses that use `buffer` as their buffer, or `None` when it has any other use
/// (passed to a launch, measured by `loop.dim`), which a pass that changes the buffer's type
/// or indices cannot follow. A buffer is never an index or a stored value.
pub fn accesses_of(ctx: &Context, buffer: Value) -> Option<Vec<Op>> {
    let mut out = Vec::new();
    for u in ctx.uses(buffer) {
        // A padded read's bounds are the buffer's own: a pass reshaping the buffer would
        // move them.
        if crate::access(ctx, u.user).is_none_or(|a| a.buffer != buffer || a.padding.is_some()) {
            return None;
        }
        if !out.contains(&u.user) {
            out.push(u.user);
        }
    }
    Some(out)
}

/// The buffer `op` stores to, `None` when it is not a store.
pub fn stored_buffer(ctx: &Context, op: Op) -> Option<Value> {
    crate::access(ctx, op)
        .filter(|a| a.kind == AccessKind::Write)
        .map(|a| a.buffer)
}

/// Whether `v` is the result of a load (a value read from memory, not index arithmetic).
pub fn is_loaded(ctx: &Context, v: Value) -> bool {
    ctx.defining_op(v)
        .and_then(|d| crate::access(ctx, d))
        .is_some_and(|a| a.kind == AccessKind::Read)
}

/// The index-expression view of a kernel: every schedule-block iter var maps to the expression
/// of the value bound to it (itself resolved), and every induction variable of a loop with
/// constant bounds and a positive constant step has its range.
///
/// Built once per kernel ([`Resolver::new`]); a pass that changes the loops or blocks builds a
/// new one.
pub struct Resolver {
    iters: FxHashMap<Symbol, IndexExpr>,
    bounds: Bounds,
    /// Values that differ per GPU block or thread: `block.*`/`thread.*` induction variables,
    /// `loop.thread_id`, `loop.block_id`, and iter vars bound to expressions of them.
    gpu_values: Vec<Symbol>,
}

impl Resolver {
    /// Reads the schedule blocks and loops nested in `root`.
    pub fn new(ctx: &Context, root: Op) -> Self {
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
                            let (lo, hi) = range_of(&e, &r.bounds);
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
                if super::loops::loop_kind(ctx, op).is_some_and(LoopKind::is_gpu) {
                    r.gpu_values.push(Symbol::Value(iv));
                }
                if ops.len() != 3 {
                    return;
                }
                let lb = r.resolve(ctx, ops[0]);
                let ub = r.resolve(ctx, ops[1]);
                let step = r.resolve(ctx, ops[2]).as_constant();
                let (lo, _) = range_of(&lb, &r.bounds);
                let (_, ub_hi) = range_of(&ub, &r.bounds);
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
    pub fn resolve(&self, ctx: &Context, v: Value) -> IndexExpr {
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

    /// The ranges of the induction variables and iter vars of the kernel, as [`Resolver::new`]
    /// found them: what [`range_of`] and the simplifier need to reason about the resolved
    /// expressions.
    pub fn bounds(&self) -> &Bounds {
        &self.bounds
    }

    /// Whether `e` depends on a GPU block or thread index.
    pub fn is_gpu_dependent(&self, e: &IndexExpr) -> bool {
        e.symbols().iter().any(|s| self.gpu_values.contains(s))
    }
}

/// `e` with each symbol `s` for which `f(s)` is `Some(x)` replaced by `x`.
pub fn substitute(e: &IndexExpr, f: &dyn Fn(Symbol) -> Option<IndexExpr>) -> IndexExpr {
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
