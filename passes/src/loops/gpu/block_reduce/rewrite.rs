//! The rewrite of `gpu-block-reduce`: which point bodies fit one block per point (their reduce
//! nests, reductions and global stores), and how the threads split the reduce axis and combine
//! their partial results with `loop.block_reduce` after each reduce nest.

use super::super::mapping::{body_ops, const_index, is_pure};
use dlc_arith::{build_cmpi, CmpIPredicate, ConstantOp};
use dlc_ir::{Block, Context, InsertPoint, Location, Op, OpSpec, Value, ValueMap};
use dlc_loop::analysis::access::scalar_access;
use dlc_loop::index_expr::from_ir;
use dlc_loop::ops::{
    before_terminator, build_if, build_load, build_store, ForOp, IterKind, LoadOp, LoopKind,
    LoopOps, ReduceKind, ScheduleBlockOp, StoreOp,
};
use dlc_loop::{buffer_parts, AccessKind, MemorySpace};
use rustc_hash::{FxHashMap, FxHashSet};

/// What `gpu-block-reduce` does with the point body of one kernel.
pub(super) struct BlockPlan {
    /// Threads per block.
    pub(super) threads: i64,
    /// The reduce nests (`loop.for serial k = 0 to K step 1`), in order.
    nests: Vec<Op>,
    /// The reductions, each in one nest.
    reductions: Vec<Reduction>,
    /// The stores to global buffers outside the nests: thread 0 alone runs them, while every
    /// thread runs the rest of their schedule blocks (later code may read the registers
    /// those blocks write).
    guarded: Vec<Op>,
}

/// A reduction schedule block with a plain combine into a local register.
struct Reduction {
    nest: Op,
    block: Op,
    /// The register (a local buffer) and its indices (defined outside the schedule block).
    acc: Value,
    indices: Vec<Value>,
    /// The `loop.block_reduce` kind.
    kind: ReduceKind,
}

/// Where an access to a buffer happens.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Place {
    Outside,
    Nest(usize),
}

/// One access to a buffer the rewrite may move, as the reduction's placement sees it (the
/// loop dialect's own `Access` describes the op; this records where it is).
struct BufferUse {
    place: Place,
    store: bool,
    /// The schedule block the access is in, if any.
    block: Option<Op>,
    /// Dims indexed by the reduce iteration variable.
    k_dims: Vec<usize>,
}

/// Whether constant op `op` holds the identity of `kind`.
fn is_identity(ctx: &Context, op: Op, kind: ReduceKind) -> bool {
    let Some(attr) = ctx.view::<ConstantOp>(op).and_then(|c| c.value(ctx)) else {
        return false;
    };
    kind.is_identity_attr(ctx, attr, ctx.value_type(ctx.result(op, 0)))
}

/// Whether `v` is (computed from) an iter var bound to the reduce loop, inside `block`.
fn depends_on(ctx: &Context, v: Value, k_args: &FxHashSet<Value>, depth: usize) -> bool {
    if k_args.contains(&v) {
        return true;
    }
    if depth > 64 {
        return true;
    }
    match ctx.defining_op(v) {
        Some(op) => ctx
            .operands(op)
            .iter()
            .any(|&o| depends_on(ctx, o, k_args, depth + 1)),
        None => false,
    }
}

/// Analyses the point body `ops` (the innermost body of the mapped nest); `None` when the
/// kernel does not fit one block per point.
pub(super) fn plan(ctx: &Context, ops: &[Op], block_size: i64) -> Option<BlockPlan> {
    let mut nests = Vec::new();
    let mut upper: Option<Value> = None;
    let mut upper_const: Option<i64> = None;
    let mut allocs = Vec::new();
    let mut segments = Vec::new();
    for &op in ops {
        match LoopOps::of(ctx, op) {
            Some(LoopOps::ForOp(f)) => {
                if f.loop_kind(ctx)? != LoopKind::Serial {
                    return None;
                }
                let [lb, ub, step] = ctx.operands(op) else {
                    return None;
                };
                if from_ir(ctx, *lb).as_constant() != Some(0)
                    || from_ir(ctx, *step).as_constant() != Some(1)
                {
                    return None;
                }
                let c = from_ir(ctx, *ub).as_constant();
                match (upper, c) {
                    (None, _) => {
                        upper = Some(*ub);
                        upper_const = c;
                    }
                    (Some(u), Some(c)) if upper_const == Some(c) || u == *ub => {}
                    (Some(u), None) if u == *ub => {}
                    _ => return None,
                }
                nests.push(op);
            }
            Some(LoopOps::AllocOp(alloc)) => {
                let buffer = alloc.result(ctx);
                let ty = ctx.value_type(buffer);
                if !matches!(buffer_parts(ctx, ty), Some((_, _, MemorySpace::Local))) {
                    return None;
                }
                allocs.push(buffer);
            }
            Some(LoopOps::ScheduleBlockOp(_)) => segments.push(op),
            _ if is_pure(ctx, op) => {}
            _ => return None,
        }
    }
    if nests.is_empty() {
        return None;
    }
    let mut accesses: FxHashMap<Value, Vec<BufferUse>> = FxHashMap::default();
    let mut reductions = Vec::new();
    let mut guarded = Vec::new();
    // Segments: schedule blocks without reduce iter vars or nested regions.
    for &seg in &segments {
        let sb = ctx.view::<ScheduleBlockOp>(seg)?;
        if sb.iter_kind_list(ctx).contains(&IterKind::Reduce) {
            return None;
        }
        for op in body_ops(ctx, sb.body(ctx)?) {
            if !ctx.regions(op).is_empty() {
                return None;
            }
            if let Some(access) = scalar_access(ctx, op) {
                let store = access.kind == AccessKind::Write;
                if store
                    && !matches!(
                        buffer_parts(ctx, ctx.value_type(access.buffer)),
                        Some((_, _, MemorySpace::Local))
                    )
                {
                    guarded.push(op);
                }
                accesses.entry(access.buffer).or_default().push(BufferUse {
                    place: Place::Outside,
                    store,
                    block: Some(seg),
                    k_dims: Vec::new(),
                });
            }
        }
    }
    for (n, &nest) in nests.iter().enumerate() {
        let f = ctx.view::<ForOp>(nest)?;
        let iv = f.induction_var(ctx)?;
        for op in body_ops(ctx, f.body(ctx)?) {
            if is_pure(ctx, op) {
                continue;
            }
            let sb = ctx.view::<ScheduleBlockOp>(op)?;
            let body = sb.body(ctx)?;
            let kinds = sb.iter_kind_list(ctx);
            let values = sb.iter_values(ctx).to_vec();
            if kinds.len() != values.len() {
                return None;
            }
            // The nest's induction variable itself counts as `k` (used directly).
            let mut k_args = FxHashSet::from_iter([iv]);
            let mut reduce_on_k = false;
            for (p, (&v, kind)) in values.iter().zip(&kinds).enumerate() {
                if v == iv {
                    k_args.insert(*ctx.block_args(body).get(p)?);
                    reduce_on_k |= *kind == IterKind::Reduce;
                } else if *kind == IterKind::Reduce || ctx.value_block(v) == f.body(ctx) {
                    // A second reduce axis, or an iter value computed in the nest.
                    return None;
                }
            }
            let init = sb.init_block(ctx);
            if init.is_some() && !reduce_on_k {
                return None;
            }
            let mut block_ops = body_ops(ctx, body);
            if let Some(init) = init {
                block_ops.extend(body_ops(ctx, init));
            }
            for &inner in &block_ops {
                if !ctx.regions(inner).is_empty() {
                    return None;
                }
                let Some(access) = scalar_access(ctx, inner) else {
                    continue;
                };
                let mut k_dims = Vec::new();
                for (d, &index) in access.indices.iter().enumerate() {
                    if k_args.contains(&index) {
                        k_dims.push(d);
                    } else if depends_on(ctx, index, &k_args, 0) {
                        return None;
                    }
                }
                accesses.entry(access.buffer).or_default().push(BufferUse {
                    place: Place::Nest(n),
                    store: access.kind == AccessKind::Write,
                    block: Some(op),
                    k_dims,
                });
            }
            if reduce_on_k {
                let r = reduction(ctx, nest, op, body, init?)?;
                if r.indices.iter().any(|&i| depends_on(ctx, i, &k_args, 0)) {
                    return None;
                }
                reductions.push(r);
            }
        }
    }
    if reductions.is_empty() {
        return None;
    }
    // Every buffer access must keep its meaning when iterations spread over threads.
    let accs: FxHashMap<Value, Op> = reductions.iter().map(|r| (r.acc, r.block)).collect();
    if accs.len() != reductions.len() {
        return None;
    }
    for (buf, list) in &accesses {
        let local = allocs.contains(buf);
        if !local {
            // A global (or outer) buffer: never both read and written in the kernel, and a
            // store in a nest writes the element of its own iteration.
            let loads = list.iter().any(|a| !a.store);
            let stores = list.iter().any(|a| a.store);
            if loads && stores {
                return None;
            }
            if list
                .iter()
                .any(|a| a.store && matches!(a.place, Place::Nest(_)) && a.k_dims.is_empty())
            {
                return None;
            }
            continue;
        }
        if let Some(&block) = accs.get(buf) {
            // The register: written only by its reduction.
            if list.iter().any(|a| a.store && a.block != Some(block)) {
                return None;
            }
            let nest = list
                .iter()
                .find(|a| a.block == Some(block))
                .map(|a| a.place);
            if list
                .iter()
                .any(|a| Some(a.place) == nest && a.block != Some(block))
            {
                return None;
            }
            continue;
        }
        let k_indexed = list.iter().any(|a| !a.k_dims.is_empty());
        if k_indexed {
            // Per-thread elements: only in nests, always through the same dims.
            let dims = &list[0].k_dims;
            if list
                .iter()
                .any(|a| a.place == Place::Outside || &a.k_dims != dims)
            {
                return None;
            }
            continue;
        }
        let stored_in: Vec<Place> = list
            .iter()
            .filter(|a| a.store)
            .map(|a| a.place)
            .filter(|p| *p != Place::Outside)
            .collect();
        if let Some(&place) = stored_in.first() {
            // A per-iteration temporary: only in its nest, written before it is read.
            if list.iter().any(|a| a.place != place) || !list[0].store {
                return None;
            }
        }
    }
    let threads = match upper_const {
        Some(k) if k >= 1 => (k as u64).next_power_of_two().min(block_size as u64) as i64,
        Some(_) => 1,
        None => block_size,
    };
    Some(BlockPlan {
        threads,
        nests,
        reductions,
        guarded,
    })
}

/// Reads a plain-combine reduction: the init stores the identity into a local register, the
/// body stores `combine(load reg, x)` into it.
fn reduction(ctx: &Context, nest: Op, op: Op, body: Block, init: Block) -> Option<Reduction> {
    let ops = body_ops(ctx, body);
    let stores: Vec<StoreOp> = ops.iter().filter_map(|&o| ctx.view::<StoreOp>(o)).collect();
    let [store] = stores[..] else {
        return None;
    };
    let acc = store.buffer(ctx);
    let indices = store.indices(ctx).to_vec();
    if indices
        .iter()
        .any(|&i| owner(ctx, i).is_some_and(|o| ctx.is_ancestor(op, o)))
    {
        return None;
    }
    let value = store.value(ctx);
    let combine = ctx.defining_op(value)?;
    let kind = ReduceKind::of_combiner(ctx, combine)?;
    let loads: Vec<LoadOp> = ops
        .iter()
        .filter_map(|&o| ctx.view::<LoadOp>(o))
        .filter(|l| l.buffer(ctx) == acc)
        .collect();
    let [load] = loads[..] else {
        return None;
    };
    if load.indices(ctx) != indices {
        return None;
    }
    let partial = load.result(ctx);
    if ctx.uses(partial).len() != 1 || !ctx.operands(combine).contains(&partial) {
        return None;
    }
    if ctx.operands(combine).len() != 2 || ctx.uses(value).len() != 1 {
        return None;
    }
    // The init: constants and one store of the identity to the same element.
    let init_ops = body_ops(ctx, init);
    let mut init_stores = 0;
    for &o in &init_ops {
        if ctx.view::<ConstantOp>(o).is_some() {
            continue;
        }
        let store = ctx.view::<StoreOp>(o)?;
        init_stores += 1;
        let ok = store.buffer(ctx) == acc
            && store.indices(ctx) == indices
            && ctx
                .defining_op(store.value(ctx))
                .is_some_and(|c| is_identity(ctx, c, kind));
        if !ok {
            return None;
        }
    }
    if init_stores != 1 {
        return None;
    }
    Some(Reduction {
        nest,
        block: op,
        acc,
        indices,
        kind,
    })
}

/// The op defining `v`, or owning the block it is an argument of.
fn owner(ctx: &Context, v: Value) -> Option<Op> {
    match ctx.defining_op(v) {
        Some(op) => Some(op),
        None => ctx.value_block(v).and_then(|b| ctx.block_parent_op(b)),
    }
}

/// Rewrites the point body after mapping: `thread` is the thread id of the block.
pub(super) fn apply(ctx: &mut Context, plan: &BlockPlan, thread: Value, loc: Location) -> u64 {
    let mut inserted = 0;
    // The op after each nest, before anything is inserted: the totals go right after it.
    let next: FxHashMap<Op, Op> = plan
        .nests
        .iter()
        .filter_map(|&n| Some((n, ctx.next_op(n)?)))
        .collect();
    let Some(&first) = plan.nests.first() else {
        return 0;
    };
    let b = const_index(ctx, InsertPoint::Before(first), plan.threads, loc);
    for &nest in &plan.nests {
        ctx.set_operand(nest, 0, thread);
        ctx.set_operand(nest, 2, b);
    }
    for r in &plan.reductions {
        let Some(sb) = ctx.view::<ScheduleBlockOp>(r.block) else {
            continue;
        };
        // The init runs in every thread before the nest; the register starts at the identity.
        if let Some(init) = sb.init_block(ctx) {
            let mut map = ValueMap::new();
            for op in body_ops(ctx, init) {
                let copy = ctx.clone_op(op, &mut map);
                ctx.insert_op(InsertPoint::Before(r.nest), copy);
            }
            ctx.erase_block(init);
        }
        let Some(elem) = buffer_parts(ctx, ctx.value_type(r.acc)).map(|(_, e, _)| e) else {
            continue;
        };
        let Some(&next) = next.get(&r.nest) else {
            continue;
        };
        let at = InsertPoint::Before(next);
        let partial = build_load(ctx, at, r.acc, &r.indices, loc);
        let kind = ctx.string_attr(r.kind.name());
        let spec = OpSpec::new(ctx, "loop.block_reduce", loc)
            .operands(&[partial])
            .attr(ctx, "kind", kind)
            .results(&[elem]);
        let total = ctx.build(at, spec);
        let total = ctx.result(total, 0);
        build_store(ctx, at, total, r.acc, &r.indices, loc);
        inserted += 1;
    }
    for &op in &plan.guarded {
        let at = InsertPoint::Before(op);
        let zero = const_index(ctx, at, 0, loc);
        let cmp = build_cmpi(ctx, at, CmpIPredicate::Eq, thread, zero, loc);
        let cond = ctx.result(cmp, 0);
        let (_, then_block, _) = build_if(ctx, at, cond, false, loc);
        let inside = before_terminator(ctx, then_block);
        ctx.move_op(op, inside);
    }
    inserted
}
