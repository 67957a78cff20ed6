//! The `func` dialect: `func.func`, `func.return`, `func.call`, `func.constant` and
//! `func.call_indirect`, with MLIR's names, custom syntax, verifier rules and canonicalization,
//! so functions move between dlc-opt and mlir-opt unchanged.

mod canonicalize;
mod ops;
mod syntax;

pub use ops::{CallIndirectOp, CallOp, ConstantOp, FuncOp, FuncOps, ReturnOp};

use dlc_ir::Dialect;

/// The `func` dialect, ready for [`dlc_ir::Context::register_dialect`].
pub fn dialect() -> Dialect {
    Dialect::new("func", FuncOps::defs())
}
