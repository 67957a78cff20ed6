//! The `func` dialect: `func.func`, `func.return` and `func.call`, with MLIR's names, custom
//! syntax and verifier rules, so functions move between dlc-opt and mlir-opt unchanged.

mod ops;
mod syntax;

pub use ops::{CallOp, FuncOp, FuncOps, ReturnOp};

use dlc_ir::Dialect;

/// The `func` dialect, ready for [`dlc_ir::Context::register_dialect`].
pub fn dialect() -> Dialect {
    Dialect::new("func", FuncOps::defs())
}
