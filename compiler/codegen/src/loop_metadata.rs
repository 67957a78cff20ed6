//! `llvm.loop` metadata on a loop's back edge.
//!
//! LLVM only reads a loop ID that lists itself as its first operand, a cycle inkwell's safe
//! metadata API cannot build; this builds it with a temporary node, as clang does.

use inkwell::context::Context as LlvmContext;
use inkwell::llvm_sys::core::{
    LLVMMDNodeInContext2, LLVMMetadataAsValue, LLVMSetMetadata, LLVMValueAsMetadata,
};
use inkwell::llvm_sys::debuginfo::{LLVMMetadataReplaceAllUsesWith, LLVMTemporaryMDNode};
use inkwell::values::{AsValueRef, BasicMetadataValueEnum, InstructionValue};

/// Sets `branch`'s `llvm.loop` to a loop ID holding `properties` (each an MD node such as
/// `!{!"llvm.loop.unroll.count", i32 4}`).
pub(crate) fn attach<'ctx>(
    llvm: &'ctx LlvmContext,
    branch: InstructionValue<'ctx>,
    properties: &[BasicMetadataValueEnum<'ctx>],
) {
    // SAFETY: every reference comes from live inkwell objects of this context; the temporary
    // node is replaced (and so freed by LLVM) before it could be seen by anything else, and the
    // operand array outlives the calls that read it.
    unsafe {
        let raw_ctx = llvm.raw();
        let temp = LLVMTemporaryMDNode(raw_ctx, std::ptr::null_mut(), 0);
        let mut operands = vec![temp];
        operands.extend(
            properties
                .iter()
                .map(|p| LLVMValueAsMetadata(p.as_value_ref())),
        );
        let loop_id = LLVMMDNodeInContext2(raw_ctx, operands.as_mut_ptr(), operands.len());
        LLVMMetadataReplaceAllUsesWith(temp, loop_id);
        let kind = llvm.get_kind_id("llvm.loop");
        LLVMSetMetadata(
            branch.as_value_ref(),
            kind,
            LLVMMetadataAsValue(raw_ctx, loop_id),
        );
    }
}
