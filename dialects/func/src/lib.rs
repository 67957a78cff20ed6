//! The `func` dialect: `func.func`, `func.return` and `func.call`, with MLIR's names, custom
//! syntax and verifier rules, so functions move between dlc-opt and mlir-opt unchanged.

mod ops;
mod syntax;

pub use ops::{CallOp, FuncOp, ReturnOp};

use dlc_ir::{Dialect, Traits};

/// The `func` dialect, ready for [`dlc_ir::Context::register_dialect`].
pub fn dialect() -> Dialect {
    let mut func = FuncOp::def();
    func.default_dialect = Some("func");
    func.parse = Some(syntax::parse_func);
    func.print = Some(syntax::print_func);
    func.verify = Some(ops::verify_func);

    let mut ret = ReturnOp::def();
    ret.parents = &["func.func"];
    ret.parse = Some(syntax::parse_return);
    ret.print = Some(syntax::print_return);
    ret.verify = Some(ops::verify_return);

    let mut call = CallOp::def();
    call.parse = Some(syntax::parse_call);
    call.print = Some(syntax::print_call);
    call.verify_symbols = Some(ops::verify_call);
    debug_assert!(call.traits.is_empty() && ret.traits.contains(Traits::TERMINATOR));

    Dialect::new("func", vec![func, ret, call])
}
