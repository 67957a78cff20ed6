//! In-place reuse: an output of a launch takes over an input that dies there, when the kernel
//! reads every element of the input only in the iteration that writes the same element of
//! the output. The two kernel arguments then share memory, so they lose `loop.noalias`.

use super::{candidates, positions, Candidate};
use dlc_ir::symbol::SymbolTables;
use dlc_ir::{Block, Context, Op, Value, ValueDef};
use dlc_loop::{KernelOp, LaunchOp, LoopOps, ScheduleBlockOp};
use rustc_hash::FxHashMap;

/// Rewrites every safe (input, output) pair of each launch of `block` so that the output is
/// the input: its uses are replaced and its alloc erased. `merged` counts, per surviving
/// buffer, the allocations it replaced. Returns the number of pairs rewritten.
pub(super) fn reuse(ctx: &mut Context, block: Block, merged: &mut FxHashMap<Value, u64>) -> u64 {
    // Erasing an alloc keeps the order of the other ops, so the positions stay valid, and a
    // merge only moves the surviving candidate's end: both are found once.
    let pos = positions(ctx, block);
    let mut by_value: FxHashMap<Value, Candidate> = candidates(ctx, block, &pos)
        .into_iter()
        .map(|c| (c.value, c))
        .collect();
    let launches: Vec<LaunchOp> = ctx
        .block_ops(block)
        .filter_map(|op| ctx.view::<LaunchOp>(op))
        .collect();
    let mut tables = SymbolTables::new();
    let mut count = 0;
    for launch in launches {
        while let Some(Pair {
            input,
            output,
            kernel,
            args,
        }) = find_pair(ctx, pos[&launch.0], launch, &by_value, &mut tables)
        {
            ctx.replace_all_uses(output.value, input.value);
            ctx.erase_op(output.alloc);
            // The input now has the output's uses too: it lives on to the output's end.
            by_value.remove(&output.value);
            if let Some(c) = by_value.get_mut(&input.value) {
                c.end = c.end.max(output.end);
            }
            // The launch passes one buffer for both arguments now: neither is `loop.noalias`.
            for i in args {
                kernel.set_noalias(ctx, i, false);
            }
            let taken = merged.remove(&output.value).unwrap_or(0);
            *merged.entry(input.value).or_default() += 1 + taken;
            count += 1;
        }
    }
    count
}

/// An (input, output) pair of one launch that may share a buffer.
struct Pair {
    input: Candidate,
    output: Candidate,
    /// The launched kernel.
    kernel: KernelOp,
    /// The positions of the input and the output among the launch's arguments.
    args: [usize; 2],
}

/// An (input, output) pair of `launch`, at position `at` of its block, that may share a
/// buffer; `by_value` holds the block's candidates.
fn find_pair(
    ctx: &Context,
    at: usize,
    launch: LaunchOp,
    by_value: &FxHashMap<Value, Candidate>,
    tables: &mut SymbolTables,
) -> Option<Pair> {
    let args = launch.args(ctx);
    let once = |v: Value| args.iter().filter(|&&a| a == v).count() == 1;
    let kernel = launch
        .callee_name(ctx)
        .and_then(|name| ctx.find_ident(name))
        .and_then(|name| tables.resolve(ctx, launch.0, name))
        .and_then(|k| ctx.view::<KernelOp>(k))?;
    for (i, input) in args.iter().enumerate() {
        let Some(input) = by_value
            .get(input)
            .filter(|c| c.end == at && once(c.value) && !c.reshaped)
        else {
            continue;
        };
        for (o, output) in args.iter().enumerate() {
            let Some(output) = by_value.get(output).filter(|c| {
                c.start == at && c.value != input.value && once(c.value) && !c.reshaped
            }) else {
                continue;
            };
            if input.ty == output.ty
                && ctx.operands(input.alloc) == ctx.operands(output.alloc)
                && reads_where_written(ctx, kernel, i, o)
            {
                return Some(Pair {
                    input: input.clone(),
                    output: output.clone(),
                    kernel,
                    args: [i, o],
                });
            }
        }
    }
    None
}

/// True if `kernel` only loads its argument `input` and only stores its argument `output`,
/// with one store, and every load of `input` reads the element that store writes, earlier in
/// the same iteration of the same innermost loop, whose indices are distinct for distinct
/// iterations of the enclosing loops.
fn reads_where_written(ctx: &Context, kernel: KernelOp, input: usize, output: usize) -> bool {
    let Some(body) = kernel.body(ctx) else {
        return false;
    };
    let (Some(&in_arg), Some(&out_arg)) = (
        ctx.block_args(body).get(input),
        ctx.block_args(body).get(output),
    ) else {
        return false;
    };
    // A buffer is never an index or a stored value: a load or store using it has it as its
    // buffer.
    let mut loads = Vec::new();
    for u in ctx.uses(in_arg) {
        match LoopOps::of(ctx, u.user) {
            Some(LoopOps::LoadOp(load)) => loads.push(load),
            Some(LoopOps::DimOp(_)) => {}
            _ => return false,
        }
    }
    let mut stores = Vec::new();
    for u in ctx.uses(out_arg) {
        match LoopOps::of(ctx, u.user) {
            Some(LoopOps::StoreOp(store)) => stores.push(store),
            Some(LoopOps::DimOp(_)) => {}
            _ => return false,
        }
    }
    let [store] = stores[..] else {
        return false;
    };
    let written = resolved(ctx, store.indices(ctx));
    let Some(innermost) = enclosing_for(ctx, store.0) else {
        return false;
    };
    if !one_element_per_iteration(ctx, store.0, &written) {
        return false;
    }
    let mut order = FxHashMap::default();
    ctx.for_each_op(kernel.0, &mut |op| {
        let n = order.len();
        order.insert(op, n);
    });
    loads.iter().all(|&load| {
        resolved(ctx, load.indices(ctx)) == written
            && enclosing_for(ctx, load.0) == Some(innermost)
            && order[&load.0] < order[&store.0]
    })
}

/// `indices` with each schedule-block iter var replaced by the value bound to it, repeatedly.
fn resolved(ctx: &Context, indices: &[Value]) -> Vec<Value> {
    indices.iter().map(|&v| resolve(ctx, v)).collect()
}

fn resolve(ctx: &Context, mut v: Value) -> Value {
    while let ValueDef::BlockArg { block, index } = ctx.value_def(v) {
        let Some(op) = ctx.block_parent_op(block) else {
            break;
        };
        let Some(schedule_block) = ctx.view::<ScheduleBlockOp>(op) else {
            break;
        };
        match schedule_block.iter_values(ctx).get(index as usize) {
            Some(&bound) => v = bound,
            None => break,
        }
    }
    v
}

/// The innermost `loop.for` around `op`.
fn enclosing_for(ctx: &Context, op: Op) -> Option<Op> {
    let mut cur = ctx.parent_op(op);
    while let Some(p) = cur {
        match LoopOps::of(ctx, p) {
            Some(LoopOps::ForOp(_)) => return Some(p),
            Some(LoopOps::KernelOp(_)) => return None,
            _ => cur = ctx.parent_op(p),
        }
    }
    None
}

/// True if `indices` (resolved) are distinct induction variables of the loops around `op`,
/// one for every loop: then each iteration of the nest writes its own element.
fn one_element_per_iteration(ctx: &Context, op: Op, indices: &[Value]) -> bool {
    let mut ivs = Vec::new();
    let mut cur = ctx.parent_op(op);
    while let Some(p) = cur {
        match LoopOps::of(ctx, p) {
            Some(LoopOps::ForOp(for_op)) => match for_op.induction_var(ctx) {
                Some(iv) => ivs.push(iv),
                None => return false,
            },
            Some(LoopOps::KernelOp(_)) => break,
            _ => {}
        }
        cur = ctx.parent_op(p);
    }
    let mut seen = Vec::new();
    for v in indices {
        if !ivs.contains(v) || seen.contains(v) {
            return false;
        }
        seen.push(*v);
    }
    !ivs.is_empty() && seen.len() == ivs.len()
}
