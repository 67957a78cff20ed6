//! Slot-ABI entry points: a CPU kernel callable the way the dlc runtime calls every kernel.
//!
//! The runtime launches a kernel through one C type, `void (const uint64_t *slots)`
//! (`dlc_runtime::abi`): for a buffer argument its data pointer and then every dim as an `i64`,
//! for a scalar its bits in one 8-byte slot. For kernel `@k` this module adds
//! `func.func @k_slots(%slots: !llvm.ptr)`, which loads the slots, builds each memref
//! descriptor in the LLVM dialect — `llvm.mlir.undef`, then `llvm.insertvalue` of the allocated
//! and aligned pointer (both the data pointer), offset 0, the sizes and the row-major strides —
//! casts it to the memref type with `builtin.unrealized_conversion_cast`, and calls `@k`. After
//! `finalize-memref-to-llvm`, `convert-func-to-llvm` and `reconcile-unrealized-casts` the casts
//! cancel against the ones the call's lowering makes and `@k_slots` is a plain `void (ptr)`
//! function, so no `llvm.emit_c_interface` wrapper is needed: its own symbol is the entry.

use crate::error::ExResult;
use crate::function::{first_block, FnExport};
use dlc_ir::{Type, TypeKind};
use dlc_loop::buffer_parts;
use melior::dialect::llvm::r#type as llvm_type;
use melior::ir::attribute::{
    DenseI32ArrayAttribute, DenseI64ArrayAttribute, FlatSymbolRefAttribute,
};
use melior::ir::r#type::{FunctionType, IntegerType};
use melior::ir::{BlockLike, BlockRef, Type as MType, Value as MValue, ValueLike};

/// The suffix of a kernel's slot entry symbol.
pub const SLOT_SUFFIX: &str = "_slots";

impl<'c, 'm> FnExport<'c, 'm, '_> {
    /// Appends `@<name>_slots` for the CPU kernel `name` with these argument types to `at`.
    pub(crate) fn slot_entry(
        &mut self,
        at: BlockRef<'c, 'm>,
        name: &str,
        arg_types: &[Type],
    ) -> ExResult<()> {
        let mlir = self.mlir;
        let ptr = llvm_type::pointer(mlir, 0);
        let fn_type = FunctionType::new(mlir, &[ptr], &[]).into();
        let (_, blocks) = self.emit_with_regions(
            at,
            "func.func",
            &[],
            &[
                ("sym_name", self.string(&format!("{name}{SLOT_SUFFIX}"))),
                ("function_type", self.type_attr(fn_type)),
            ],
            &[Some(&[ptr])],
        )?;
        let body = first_block(&blocks, 0)?;
        let slots: MValue<'c, 'm> = body.argument(0)?.into();
        let i64t: MType<'c> = IntegerType::new(mlir, 64).into();
        let mut next = 0i32;
        let mut args = Vec::with_capacity(arg_types.len());
        for &ty in arg_types {
            let arg = match buffer_parts(self.ctx, ty) {
                Some((dims, _, _)) => {
                    let data = self.load_slot(body, slots, &mut next, ptr)?;
                    let mut sizes = Vec::with_capacity(dims.len());
                    for _ in &dims {
                        sizes.push(self.load_slot(body, slots, &mut next, i64t)?);
                    }
                    let desc = self.descriptor(body, data, &sizes)?;
                    let memref = self.ty(ty)?;
                    self.emit1(
                        body,
                        "builtin.unrealized_conversion_cast",
                        &[desc],
                        memref,
                        &[],
                    )?
                }
                None => {
                    let bits = self.load_slot(body, slots, &mut next, i64t)?;
                    self.scalar_from_bits(body, ty, bits)?
                }
            };
            args.push(arg);
        }
        let callee = FlatSymbolRefAttribute::new(mlir, name).into();
        self.emit(body, "func.call", &args, &[], &[("callee", callee)])?;
        self.emit(body, "func.return", &[], &[], &[])?;
        Ok(())
    }

    /// Loads slot `*next` as `ty` and advances `next`.
    fn load_slot(
        &self,
        block: BlockRef<'c, 'm>,
        slots: MValue<'c, 'm>,
        next: &mut i32,
        ty: MType<'c>,
    ) -> ExResult<MValue<'c, 'm>> {
        let at = if *next == 0 {
            slots
        } else {
            let i64t: MType<'c> = IntegerType::new(self.mlir, 64).into();
            let indices = DenseI32ArrayAttribute::new(self.mlir, &[*next]).into();
            self.emit1(
                block,
                "llvm.getelementptr",
                &[slots],
                slots.r#type(),
                &[
                    ("elem_type", self.type_attr(i64t)),
                    ("rawConstantIndices", indices),
                ],
            )?
        };
        *next += 1;
        self.emit1(block, "llvm.load", &[at], ty, &[])
    }

    /// The memref descriptor of a row-major buffer at `data` with these sizes.
    fn descriptor(
        &self,
        block: BlockRef<'c, 'm>,
        data: MValue<'c, 'm>,
        sizes: &[MValue<'c, 'm>],
    ) -> ExResult<MValue<'c, 'm>> {
        let mlir = self.mlir;
        let i64t: MType<'c> = IntegerType::new(mlir, 64).into();
        let ptr = data.r#type();
        let mut fields = vec![ptr, ptr, i64t];
        if !sizes.is_empty() {
            let rank = u32::try_from(sizes.len()).map_err(|_| "buffer rank too large")?;
            let array = llvm_type::array(i64t, rank);
            fields.extend([array, array]);
        }
        let ty = llvm_type::r#struct(mlir, &fields, false);
        let mut desc = self.emit1(block, "llvm.mlir.undef", &[], ty, &[])?;
        let insert = |desc, value, position: &[i64]| -> ExResult<MValue<'c, 'm>> {
            let position = DenseI64ArrayAttribute::new(mlir, position).into();
            self.emit1(
                block,
                "llvm.insertvalue",
                &[desc, value],
                ty,
                &[("position", position)],
            )
        };
        desc = insert(desc, data, &[0])?;
        desc = insert(desc, data, &[1])?;
        let zero = self.const_int(block, i64t, 0)?;
        desc = insert(desc, zero, &[2])?;
        let mut stride = self.const_int(block, i64t, 1)?;
        for (d, &size) in sizes.iter().enumerate().rev() {
            let d = d as i64;
            desc = insert(desc, size, &[3, d])?;
            desc = insert(desc, stride, &[4, d])?;
            if d > 0 {
                stride = self.emit1(block, "arith.muli", &[stride, size], i64t, &[])?;
            }
        }
        Ok(desc)
    }

    /// The scalar of dlc type `ty` held in the low bits of an `i64` slot.
    fn scalar_from_bits(
        &self,
        block: BlockRef<'c, 'm>,
        ty: Type,
        bits: MValue<'c, 'm>,
    ) -> ExResult<MValue<'c, 'm>> {
        let target = self.ty(ty)?;
        let int = |w: u32| -> MType<'c> { IntegerType::new(self.mlir, w).into() };
        match self.ctx.type_kind(ty) {
            TypeKind::Index => self.emit1(block, "arith.index_cast", &[bits], target, &[]),
            TypeKind::Integer { width: 64 } => Ok(bits),
            TypeKind::Integer { .. } => self.emit1(block, "arith.trunci", &[bits], target, &[]),
            TypeKind::Float(f) if f.width() == 64 => {
                self.emit1(block, "arith.bitcast", &[bits], target, &[])
            }
            TypeKind::Float(f) => {
                let low = self.emit1(block, "arith.trunci", &[bits], int(f.width()), &[])?;
                self.emit1(block, "arith.bitcast", &[low], target, &[])
            }
            _ => Err("a kernel scalar argument must be an integer, index or float".into()),
        }
    }
}
