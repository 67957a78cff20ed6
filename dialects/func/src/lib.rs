//! The `func` dialect: `func.func`, `func.return`, `func.call`, `func.constant` and
//! `func.call_indirect`, with MLIR's names, custom syntax, verifier rules and canonicalization,
//! so functions move between dlc-opt and mlir-opt unchanged.

mod canonicalize;
mod ops;
mod syntax;

pub use ops::{CallIndirectOp, CallOp, ConstantOp, FuncOp, FuncOps, ReturnOp};

use dlc_ir::{Context, Dialect, Op};

/// The `func` dialect, ready for [`dlc_ir::Context::register_dialect`].
pub fn dialect() -> Dialect {
    Dialect::new("func", FuncOps::defs())
}

/// The `func.func` ops directly in `module`'s body, in order.
pub fn module_funcs(ctx: &Context, module: Op) -> Vec<Op> {
    ctx.regions(module)
        .iter()
        .flat_map(|&r| ctx.blocks(r).iter())
        .flat_map(|&b| ctx.block_ops(b))
        .filter(|&op| ctx.view::<FuncOp>(op).is_some())
        .collect()
}
