//! The one place that knows every dialect dlc ships: [`register_all_dialects`] registers them
//! in a context (MLIR's `registerAllDialects`), and every tool and cross-dialect test calls it
//! instead of listing dialects by hand. A dialect's own tests register just that dialect,
//! which brings the dialects it depends on.

use dlc_ir::Context;

// The README's Rust example runs as a doctest of this crate.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;

/// Registers `builtin`'s companions: `func`, `arith`, `math`, `graph` and `loop`.
///
/// ```
/// let mut ctx = dlc_ir::Context::new();
/// dlc_dialects::register_all_dialects(&mut ctx);
/// assert!(ctx.is_dialect_registered("graph") && ctx.is_dialect_registered("math"));
/// ```
pub fn register_all_dialects(ctx: &mut Context) {
    ctx.register_dialect(dlc_func::dialect());
    ctx.register_dialect(dlc_graph::dialect());
    ctx.register_dialect(dlc_loop::dialect());
}

/// A new context with every dialect registered.
pub fn context() -> Context {
    let mut ctx = Context::new();
    register_all_dialects(&mut ctx);
    ctx
}
