//! Facts about a whole `loop.kernel`.

use super::loops::{const_range, loop_kind};
use crate::{KernelOp, LaunchDim, LoopKind};
use dlc_ir::{Context, Op};

/// The threads per block along x, y, z when they are known at compile time: the constant
/// `block` launch attribute, or (without launch attributes) the largest constant extent of the
/// `thread.*` loops along each axis, as the interpreter and `gpu-map` define it.
pub fn static_block_dims(ctx: &Context, kernel: Op) -> Option<[i64; 3]> {
    let k = ctx.view::<KernelOp>(kernel)?;
    if ctx.attr(kernel, "grid").is_some() || ctx.attr(kernel, "block").is_some() {
        let Some(dims) = k.block_dims(ctx) else {
            return Some([1; 3]);
        };
        let mut out = [1; 3];
        for (slot, d) in out.iter_mut().zip(dims) {
            match d {
                LaunchDim::Const(n) => *slot = n,
                LaunchDim::Arg(_) => return None,
            }
        }
        return Some(out);
    }
    let mut out = [1i64; 3];
    let mut known = true;
    ctx.for_each_op(kernel, &mut |op| {
        if let Some(LoopKind::Thread(d)) = loop_kind(ctx, op) {
            match const_range(ctx, op) {
                Some(range) => {
                    out[d.index()] = out[d.index()].max(range.extent);
                }
                None => known = false,
            }
        }
    });
    known.then_some(out)
}
