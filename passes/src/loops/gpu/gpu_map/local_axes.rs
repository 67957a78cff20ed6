//! CINN's local-axis rule for `gpu-map`: index axes of per-thread buffers that only ever hold
//! the thread's own point.

use super::const_index;
use dlc_ir::{Context, InsertPoint, Location, Op, Value};
use dlc_loop::{buffer_parts, AllocOp, LoopOps, MemorySpace};

/// CINN's LocalAxisVisitor: a `local` buffer allocated in the mapped body is private to one
/// point, so an axis that every access indexes with the same mapped loop index holds one
/// element; it becomes 0. Returns the axes zeroed.
pub(super) fn zero_local_axes(ctx: &mut Context, body: &[Op], ivs: &[Value], loc: Location) -> u64 {
    let mut zeroed = 0;
    for &alloc in body {
        if ctx.view::<AllocOp>(alloc).is_none() || ctx.num_results(alloc) != 1 {
            continue;
        }
        let buffer = ctx.result(alloc, 0);
        let Some((dims, _, MemorySpace::Local)) = buffer_parts(ctx, ctx.value_type(buffer)) else {
            continue;
        };
        // Every use must be a scalar load or store of the buffer (operand 0 / 1); each access
        // is kept with the position of its first index.
        let accesses: Option<Vec<(Op, usize)>> = ctx
            .uses(buffer)
            .iter()
            .map(|u| match LoopOps::of(ctx, u.user) {
                Some(LoopOps::LoadOp(_)) if u.operand == 0 => Some((u.user, 1)),
                Some(LoopOps::StoreOp(_)) if u.operand == 1 => Some((u.user, 2)),
                _ => None,
            })
            .collect();
        let Some(accesses) = accesses else {
            continue;
        };
        for d in 0..dims.len() {
            let first = accesses
                .first()
                .and_then(|&(op, at)| ctx.operands(op).get(at + d).copied());
            let Some(index) = first.filter(|v| ivs.contains(v)) else {
                continue;
            };
            let same = accesses
                .iter()
                .all(|&(op, at)| ctx.operands(op).get(at + d) == Some(&index));
            if !same {
                continue;
            }
            let zero = const_index(ctx, InsertPoint::Before(alloc), 0, loc);
            for &(op, at) in &accesses {
                ctx.set_operand(op, at + d, zero);
            }
            zeroed += 1;
        }
    }
    zeroed
}
