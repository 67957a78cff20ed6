//! Gives dynamically sized `shared` and `local` buffers their constant upper bound as a static
//! size, and checks that each kernel's shared memory fits the device.
//!
//! # Applies when
//! A kernel allocates scratch (`loop.alloc` in `shared` or `local` memory) whose size depends on
//! a value known only at run time, typically a symbolic dim clamped by a schedule tile:
//! `min(%n, 8)`. A GPU allocates shared memory and registers per block at launch, so such a
//! buffer needs a size known when the kernel is compiled (CINN's
//! `trans_buffer_with_dynamic_shape`); and a kernel whose shared buffers exceed what a block may
//! use fails at launch, which is better reported when compiling.
//!
//! # Changes to the IR
//! - The pass runs on the module and visits every `loop.kernel`.
//! - Each size operand of a `shared`/`local` `loop.alloc` is bounded from above with the
//!   index-expression library: loop induction variables range over their loops' bounds,
//!   schedule-block iter vars over their iter values, kernel arguments are unbounded. A `?` dim
//!   whose bound is a positive constant becomes that static size and its operand is dropped
//!   (other `?` dims stay). Buffers read through `loop.dim` or vector accesses keep their type.
//! - The static shared bytes of each kernel (elements × `elem_size_bytes`, summed over its
//!   shared allocs) are checked: more than `max-shared-bytes` (default 49152, CUDA's default
//!   per-block limit) is an error at the kernel, and so is a shared buffer with a dim that has
//!   no constant bound.
//!
//! The pass counts the allocs it bounded and reports the largest kernel's shared bytes.
//!
//! # Risks and limitations
//! - Bounds come from interval arithmetic: sound, not tight, so a bound may be larger than any
//!   size that occurs (the buffer is then larger than needed, never too small).
//! - A `local` buffer without a bound is left dynamic (only shared buffers must be bounded).
//! - A buffer allocated inside a loop is counted once (it lives for one iteration).
//!
//! # Examples
//! 1. A local buffer of `min(%n, 8)` elements:
//!    ```text
//!    loop.kernel @tile(%x: !loop.buffer<?xf32, global>, %n: index) {
//!      %c8 = arith.constant 8 : index
//!      %m = arith.minsi %n, %c8 : index
//!      %t = loop.alloc(%m) : !loop.buffer<?xf32, local>
//!      loop.return
//!    }
//!    ```
//!    becomes
//!    ```text
//!    %t = loop.alloc : !loop.buffer<8xf32, local>
//!    ```
//!
//! # Counter-examples
//! 1. `loop.alloc(%n) : !loop.buffer<?xf32, shared>` with `%n` a kernel argument: no constant
//!    bound, so the type stays and the kernel gets an error
//!    ("shared buffer has no constant size bound").

use dlc_arith::ArithOps;
use dlc_ir::builtin::ModuleOp;
use dlc_ir::pass::{Anchor, OptionKind, OptionSpec, OptionValues, Pass, PassInfo, PassRun};
use dlc_ir::{Context, Diagnostic, Op, DYNAMIC};
use dlc_loop::analysis::access::scalar_access;
use dlc_loop::analysis::loops::{loop_bounds, value_range};
use dlc_loop::index_expr::Bounds;
use dlc_loop::{buffer_parts, buffer_type, elem_size_bytes, AllocOp, KernelOp, MemorySpace};

/// The pass description.
pub static INFO: PassInfo = PassInfo {
    argument: "check-shared-memory",
    summary: "Gives dynamically sized `shared` and `local` buffers their constant upper bound \
              as a static size, and checks that each kernel's shared memory fits the device.",
    anchor: Anchor::op::<ModuleOp>(),
    options: &[OptionSpec::new(
        "max-shared-bytes",
        OptionKind::Int,
        "49152",
        "The most static shared memory a kernel may use, in bytes",
    )],
    statistics: &[
        (
            "allocs-bounded",
            "Shared/local allocs given a static size from an upper bound",
        ),
        (
            "shared-bytes",
            "The largest static shared memory of a kernel, in bytes",
        ),
    ],
    create,
};

fn create(options: &OptionValues) -> Result<Box<dyn Pass>, String> {
    let max = options.int("max-shared-bytes");
    if max < 0 {
        return Err(format!("option 'max-shared-bytes' must be >= 0, got {max}"));
    }
    Ok(Box::new(CheckSharedMemory {
        max_bytes: max as u64,
    }))
}

struct CheckSharedMemory {
    /// The per-kernel shared memory limit.
    max_bytes: u64,
}

impl Pass for CheckSharedMemory {
    fn run(&self, ctx: &mut Context, run: &mut PassRun<'_>) -> Result<(), Diagnostic> {
        let module = run.op();
        let mut kernels = Vec::new();
        ctx.for_each_op(module, &mut |op| {
            if ctx.view::<KernelOp>(op).is_some() {
                kernels.push(op);
            }
        });
        let mut bounded = 0;
        let mut largest = 0;
        for kernel in kernels {
            bounded += bound_allocs(ctx, kernel);
            let bytes = shared_bytes(ctx, kernel)?;
            if bytes > self.max_bytes {
                return Err(Diagnostic::error(
                    ctx.op_loc(kernel),
                    format!(
                        "kernel uses {bytes} bytes of shared memory, more than the limit of {} (option max-shared-bytes)",
                        self.max_bytes
                    ),
                ));
            }
            largest = largest.max(bytes);
        }
        run.add_stat("allocs-bounded", bounded);
        run.add_stat("shared-bytes", largest);
        if bounded == 0 {
            run.preserve_all();
        }
        Ok(())
    }
}

/// Rewrites the boundable `?` dims of `kernel`'s scratch allocs; returns how many allocs changed.
fn bound_allocs(ctx: &mut Context, kernel: Op) -> u64 {
    let bounds = loop_bounds(ctx, kernel, Bounds::new());
    let mut allocs = Vec::new();
    ctx.for_each_op(kernel, &mut |op| {
        if ctx.view::<AllocOp>(op).is_some() && ctx.num_results(op) == 1 {
            allocs.push(op);
        }
    });
    let mut changed = 0;
    for alloc in allocs {
        let result = ctx.result(alloc, 0);
        let Some((dims, elem, space)) = buffer_parts(ctx, ctx.value_type(result)) else {
            continue;
        };
        if space == MemorySpace::Global || !dims.contains(&DYNAMIC) {
            continue;
        }
        let scalar_users = ctx
            .uses(result)
            .iter()
            .all(|u| scalar_access(ctx, u.user).is_some_and(|a| a.buffer == result));
        if !scalar_users {
            continue;
        }
        let sizes = ctx.operands(alloc).to_vec();
        if sizes.len() != dims.iter().filter(|&&d| d == DYNAMIC).count() {
            continue;
        }
        let mut new_dims = dims.clone();
        let mut kept = Vec::new();
        let mut next = sizes.iter();
        for d in new_dims.iter_mut().filter(|d| **d == DYNAMIC) {
            let Some(&size) = next.next() else { break };
            let (_, hi) = value_range(ctx, size, &bounds);
            if hi >= 1 && hi != i64::MAX {
                *d = hi;
            } else {
                kept.push(size);
            }
        }
        if kept.len() == sizes.len() {
            continue;
        }
        let ty = buffer_type(ctx, &new_dims, elem, space);
        ctx.set_value_type(result, ty);
        ctx.set_operands(alloc, &kept);
        // The size computations nobody else uses (pure index arithmetic) go too.
        for size in sizes {
            if let Some(def) = ctx.defining_op(size) {
                let pure = ArithOps::of(ctx, def).is_some() && ctx.regions(def).is_empty();
                if pure && ctx.is_alive(def) && ctx.results(def).all(|r| ctx.is_unused(r)) {
                    ctx.erase_op(def);
                }
            }
        }
        changed += 1;
    }
    changed
}

/// The static shared bytes `kernel` allocates; an error for a shared buffer with a `?` dim.
fn shared_bytes(ctx: &Context, kernel: Op) -> Result<u64, Diagnostic> {
    let mut total: u64 = 0;
    let mut error = None;
    ctx.for_each_op(kernel, &mut |op| {
        if ctx.view::<AllocOp>(op).is_none() || ctx.num_results(op) != 1 || error.is_some() {
            return;
        }
        let Some((dims, elem, MemorySpace::Shared)) =
            buffer_parts(ctx, ctx.value_type(ctx.result(op, 0)))
        else {
            return;
        };
        if dims.contains(&DYNAMIC) {
            error = Some(Diagnostic::error(
                ctx.op_loc(op),
                "shared buffer has no constant size bound",
            ));
            return;
        }
        let elems = dims
            .iter()
            .try_fold(1u64, |n, &d| n.checked_mul(u64::try_from(d).ok()?));
        let bytes = elems.and_then(|n| n.checked_mul(elem_size_bytes(ctx, elem)?));
        total = total.saturating_add(bytes.unwrap_or(u64::MAX));
    });
    match error {
        Some(e) => Err(e),
        None => Ok(total),
    }
}
