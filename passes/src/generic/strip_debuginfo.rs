//! Replaces every location in the op with `loc(unknown)`.
//!
//! # Applies when
//! Always: every op carries a location, and locations from a front end (file positions, names,
//! call sites) are often not wanted in test output, reproducers or shipped IR.
//!
//! # Changes to the IR
//! The location of the op the pass runs on and of every op nested in it becomes
//! `loc(unknown)`. Nothing else changes; the pass counts the locations it dropped.
//!
//! # Examples
//! 1. A located op:
//!    ```text
//!    %0 = arith.addi %a, %b : i32 loc("model.py":3:7)
//!    ```
//!    becomes (printed with `--print-debuginfo`)
//!    ```text
//!    %0 = arith.addi %arg0, %arg1 : i32 loc(unknown)
//!    ```

use dlc_ir::pass::{Anchor, OptionValues, Pass, PassInfo, PassRun};
use dlc_ir::{Context, Diagnostic, Location, WalkOrder, WalkResult};

/// The pass description.
pub static INFO: PassInfo = PassInfo {
    argument: "strip-debuginfo",
    summary: "Replaces every location in the op with `loc(unknown)`.",
    anchor: Anchor::Any,
    options: &[],
    statistics: &[(
        "locations-stripped",
        "Number of locations replaced by loc(unknown)",
    )],
    create,
};

fn create(_: &OptionValues) -> Result<Box<dyn Pass>, String> {
    Ok(Box::new(StripDebugInfo))
}

struct StripDebugInfo;

impl Pass for StripDebugInfo {
    fn run(&self, ctx: &mut Context, run: &mut PassRun<'_>) -> Result<(), Diagnostic> {
        let mut stripped = 0;
        ctx.walk(run.op(), WalkOrder::PreOrder, &mut |ctx, op| {
            if ctx.op_loc(op) != Location::Unknown {
                ctx.set_op_loc(op, Location::Unknown);
                stripped += 1;
            }
            WalkResult::Advance
        });
        run.add_stat("locations-stripped", stripped);
        run.preserve_all();
        Ok(())
    }
}
