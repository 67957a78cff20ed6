//! A pass defined outside dlc, to show what one costs: `tag-functions` below is 23 lines of code,
//! its registration included (the imports, the [`PassInfo`], the pass and [`register`]).
//! `src/main.rs` is `downstream-opt`, a dlc-opt-like tool that knows dlc's passes and this one:
//!
//! ```text
//! downstream-opt input.mlir 'cse,tag-functions'
//! ```
//!
//! The crate's documentation goes on with dlc's pass manager guide (docs/pass-manager.md), whose
//! code examples are compiled and run as this crate's doctests.
//!
#![doc = include_str!("../../../../docs/pass-manager.md")]

use dlc_func::FuncOp;
use dlc_ir::pass::{Anchor, OptionValues, Pass, PassInfo, PassRegistry, PassRun};
use dlc_ir::{Context, Diagnostic};

/// `tag-functions`: adds the unit attribute `tagged` to every function.
pub static TAG_FUNCTIONS: PassInfo = PassInfo {
    argument: "tag-functions",
    summary: "Adds the unit attribute `tagged` to every function.",
    anchor: Anchor::op::<FuncOp>(),
    options: &[],
    statistics: &[("tagged", "Number of functions tagged")],
    create: |_: &OptionValues| Ok(Box::new(TagFunctions)),
};

struct TagFunctions;

impl Pass for TagFunctions {
    fn run(&self, ctx: &mut Context, run: &mut PassRun<'_>) -> Result<(), Diagnostic> {
        let unit = ctx.unit_attr();
        ctx.set_attr(run.op(), "tagged", unit);
        run.add_stat("tagged", 1);
        run.preserve_all();
        Ok(())
    }
}

/// Registers this crate's passes (next to dlc's, in a tool's registry).
pub fn register(registry: &mut PassRegistry) {
    registry.register(&TAG_FUNCTIONS);
}
