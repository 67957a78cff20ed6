//! `loop.compiled_kernel`: a kernel whose body was compiled to machine code and left out of the
//! module, and [`KernelSymbol`], what a host function sees of a kernel of either form.
//!
//! A lowered module whose kernels have been compiled keeps only what its host functions need
//! of them: the signature (`function_type`, `arg_attrs` with [`crate::NOALIAS`]), which
//! arguments the kernel writes (`written`), its [`crate::INDEX_CHECKS`], and `content`, the
//! hash of the body the code generator compiled (it names the kernel's object in the kernel
//! cache), and `serial` when the body has no `parallel` loop (the runtime then runs the
//! program without its thread pool). It is the analogue of MLIR's `gpu.binary` replacing a `gpu.module` once its kernels
//! are serialized: a model cache entry stores the module in this form, so that loading it
//! parses the host program and not the kernels' loop nests. Passes and interpreters see no
//! kernel in it; only a code generator that can find the object by `content` runs it.
//!
//! ```text
//! "loop.compiled_kernel"() {sym_name = "k", function_type = (!loop.buffer<4xf32, global>) -> (),
//!                           written = array<i64: 0>, content = "<64 hex digits>"} : () -> ()
//! ```

use crate::ops::{kernel_signature, module_ops, KernelOp};
use crate::types::buffer_parts;
use crate::verify::{kernel_inputs, verify_arg_attrs, verify_index_checks};
use dlc_ir::{op_error, AttrKind, Context, Op, OpSpec, OpView, Traits, Type};

/// The unit attribute of a compiled kernel whose body had no `parallel` loop: it never runs
/// work on the thread pool. A compiled kernel without it may.
pub const SERIAL: &str = "serial";

/// True when `op` or an op nested in it may run work on the thread pool: a `parallel` loop, or
/// a compiled kernel not marked [`SERIAL`] (its body, left out, may hold one).
pub fn may_use_pool(ctx: &Context, op: Op) -> bool {
    let mut pool = false;
    ctx.for_each_op(op, &mut |o| {
        pool |= crate::analysis::loops::loop_kind(ctx, o) == Some(crate::LoopKind::Parallel)
            || ctx.view::<CompiledKernelOp>(o).is_some() && ctx.attr(o, SERIAL).is_none();
    });
    pool
}

/// The number of hex digits of `content`.
const CONTENT_DIGITS: usize = 64;

dlc_ir::define_op! {
    /// A kernel compiled and left out: its signature, the arguments it writes and the hash of
    /// its compiled body.
    pub struct CompiledKernelOp = "loop.compiled_kernel";
    traits = Traits::SYMBOL;
    operands = [];
    results = [];
    attributes = [sym_name, function_type, arg_attrs, written, content];
    verify = verify_compiled_kernel;
}

/// A kernel as a host function's `loop.launch` sees it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum KernelSymbol {
    /// A `loop.kernel` with its body.
    Body(KernelOp),
    /// A `loop.compiled_kernel`.
    Compiled(CompiledKernelOp),
}

impl KernelSymbol {
    /// `op` as a kernel of either form.
    pub fn of(ctx: &Context, op: Op) -> Option<KernelSymbol> {
        if let Some(k) = ctx.view::<KernelOp>(op) {
            return Some(KernelSymbol::Body(k));
        }
        ctx.view::<CompiledKernelOp>(op).map(KernelSymbol::Compiled)
    }

    /// The op.
    pub fn op(self) -> Op {
        match self {
            KernelSymbol::Body(k) => k.0,
            KernelSymbol::Compiled(k) => k.0,
        }
    }

    /// The argument types from `function_type`.
    pub fn argument_types(self, ctx: &Context) -> Option<Vec<Type>> {
        Some(kernel_signature(ctx, self.op())?.0.to_vec())
    }

    /// For each argument, whether the kernel may write memory through it.
    pub fn written_args(self, ctx: &Context) -> Vec<bool> {
        match self {
            KernelSymbol::Body(k) => k.written_args(ctx),
            KernelSymbol::Compiled(k) => {
                let n = kernel_signature(ctx, k.0).map_or(0, |(inputs, _)| inputs.len());
                let mut written = vec![false; n];
                for i in k.written_list(ctx) {
                    if let Some(w) = written.get_mut(i) {
                        *w = true;
                    }
                }
                written
            }
        }
    }

    /// Whether argument `i` carries [`crate::NOALIAS`].
    pub fn is_noalias(self, ctx: &Context, i: usize) -> bool {
        crate::ops::arg_attr_dict(ctx, self.op(), i)
            .is_some_and(|d| d.iter().any(|a| ctx.ident_str(a.name) == crate::NOALIAS))
    }

    /// Whether passing overlapping memory for arguments `i` and `j` breaks a
    /// [`crate::NOALIAS`] promise: one of them carries it and the kernel may write through one
    /// of them (as with LLVM's `noalias`, memory that is only read may be shared). Returns the
    /// marked argument.
    pub fn noalias_conflict(self, ctx: &Context, i: usize, j: usize) -> Option<usize> {
        let marked = [i, j].into_iter().find(|&k| self.is_noalias(ctx, k))?;
        let written = self.written_args(ctx);
        let writes = |k: usize| written.get(k).copied().unwrap_or(false);
        (writes(i) || writes(j)).then_some(marked)
    }
}

impl CompiledKernelOp {
    /// The arguments listed in `written`, in order; empty when the attribute is malformed
    /// (the verifier rejects that).
    pub fn written_list(self, ctx: &Context) -> Vec<usize> {
        match self.written(ctx).map(|a| ctx.attr_kind(a)) {
            Some(AttrKind::DenseArray { values, .. }) => values
                .iter()
                .filter_map(|&v| usize::try_from(v).ok())
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The hash of the compiled body, as 32 bytes.
    pub fn content_hash(self, ctx: &Context) -> Option<[u8; 32]> {
        let text = ctx.attr_as_str(self.content(ctx)?)?;
        if text.len() != CONTENT_DIGITS {
            return None;
        }
        let mut out = [0u8; 32];
        for (i, byte) in out.iter_mut().enumerate() {
            *byte = u8::from_str_radix(text.get(2 * i..2 * i + 2)?, 16).ok()?;
        }
        Some(out)
    }
}

/// The `loop.compiled_kernel` ops directly in `module` (a `builtin.module`), in order.
pub fn module_compiled_kernels(ctx: &Context, module: Op) -> Vec<CompiledKernelOp> {
    module_ops(ctx, module)
        .filter_map(|op| ctx.view::<CompiledKernelOp>(op))
        .collect()
}

/// Builds, before `kernel`, the `loop.compiled_kernel` standing for it with body hash
/// `content`, and erases `kernel`.
pub fn replace_with_compiled(ctx: &mut Context, kernel: KernelOp, content: &[u8; 32]) {
    let op = kernel.0;
    let written: Vec<i64> = (kernel.written_args(ctx).into_iter().enumerate())
        .filter(|&(_, w)| w)
        .map(|(i, _)| i as i64)
        .collect();
    let hex: String = content.iter().map(|b| format!("{b:02x}")).collect();
    let loc = ctx.op_loc(op);
    let mut spec = OpSpec::new(ctx, CompiledKernelOp::NAME, loc);
    // The kernel's attributes (its name, signature, argument attributes, index checks, launch
    // geometry) carry over.
    spec.attrs = ctx.attrs(op).to_vec();
    let written = ctx.intern_attr(AttrKind::DenseArray {
        element: Type::I64,
        values: written.into(),
    });
    let content = ctx.string_attr(&hex);
    spec = spec
        .attr(ctx, "written", written)
        .attr(ctx, "content", content);
    if !may_use_pool(ctx, op) {
        let unit = ctx.unit_attr();
        spec = spec.attr(ctx, SERIAL, unit);
    }
    ctx.build(dlc_ir::InsertPoint::Before(op), spec);
    ctx.erase_op(op);
}

fn verify_compiled_kernel(ctx: &Context, op: Op) -> Result<(), dlc_ir::Diagnostic> {
    let kernel = CompiledKernelOp(op);
    let inputs = kernel_inputs(ctx, op)?;
    let written = match kernel.written(ctx).map(|a| ctx.attr_kind(a)) {
        Some(AttrKind::DenseArray { values, .. }) => values,
        _ => {
            return Err(op_error(
                ctx,
                op,
                "requires attribute 'written' holding an array<i64> of argument numbers",
            ))
        }
    };
    let increasing = written.windows(2).all(|w| w[0] < w[1]);
    let buffers = written.iter().all(|&i| {
        usize::try_from(i)
            .ok()
            .and_then(|i| inputs.get(i))
            .is_some_and(|t| buffer_parts(ctx, *t).is_some())
    });
    if !increasing || !buffers {
        return Err(op_error(
            ctx,
            op,
            "'written' must list buffer arguments in increasing order",
        ));
    }
    if kernel.content_hash(ctx).is_none() {
        return Err(op_error(
            ctx,
            op,
            format!("'content' must be a string of {CONTENT_DIGITS} hex digits"),
        ));
    }
    verify_arg_attrs(ctx, op, inputs)?;
    verify_index_checks(ctx, op, inputs)
}
