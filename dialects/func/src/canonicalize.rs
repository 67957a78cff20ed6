//! Canonicalization of the func ops: an indirect call of a `func.constant` becomes a direct
//! `func.call` of the function it names (MLIR's `SimplifyIndirectCallWithKnownCallee`); the
//! call's other attributes are dropped, as MLIR drops them.

use crate::{CallIndirectOp, CallOp, ConstantOp};
use dlc_ir::rewrite::{RewritePattern, Rewriter};
use dlc_ir::{Op, OpSpec, OpView};

/// The patterns of `func.call_indirect` (its `canonicalize` hook).
pub(crate) fn call_indirect() -> Vec<Box<dyn RewritePattern>> {
    vec![Box::new(IndirectCallOfConstant)]
}

/// `call_indirect (constant @f)(args) → call @f(args)`.
struct IndirectCallOfConstant;

impl RewritePattern for IndirectCallOfConstant {
    fn name(&self) -> &str {
        "SimplifyIndirectCallWithKnownCallee"
    }

    fn root(&self) -> Option<&'static str> {
        Some(CallIndirectOp::NAME)
    }

    fn match_and_rewrite(&self, op: Op, rw: &mut Rewriter<'_>) -> bool {
        let ctx = rw.ctx();
        let Some((&callee, args)) = ctx.operands(op).split_first() else {
            return false;
        };
        let Some(symbol) = ctx
            .defining_op(callee)
            .and_then(|d| ctx.view::<ConstantOp>(d))
            .and_then(|c| c.value(ctx))
        else {
            return false;
        };
        let args = args.to_vec();
        let results = ctx.result_types(op).to_vec();
        let loc = ctx.op_loc(op);
        let ctx = rw.ctx_mut();
        let spec = OpSpec::new(ctx, CallOp::NAME, loc)
            .attr(ctx, "callee", symbol)
            .operands(&args)
            .results(&results);
        rw.replace_op_with_new(op, spec);
        true
    }
}
