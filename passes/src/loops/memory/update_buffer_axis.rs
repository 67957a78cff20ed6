//! Replaces an axis of a shared or local buffer that every access indexes with the same
//! expression by 0, and shrinks that dim to 1.
//!
//! # Applies when
//! A kernel-local buffer (`shared` or `local`) is indexed, on some axis, by one and the same
//! expression in every load and store: after fusion a temporary often keeps the full shape of
//! the tensor it replaced although each iteration only touches the element of its own loop
//! indices. Such an axis carries no information: at any moment only one position along it is
//! used. This is CINN's `update_buffer_axis_pass`.
//!
//! # Changes to the IR
//! - Candidates: every `loop.alloc` of a `shared` or `local` buffer in the kernel whose result
//!   is used only as the buffer of `loop.load`/`store`/`vload`/`vstore`.
//! - Each index is read as an index expression with schedule-block iter vars replaced by the
//!   values bound to them (`dlc_loop::index_expr`), so `%t[%i0]` in two blocks binding
//!   `%i0 = %i` is the same expression `%i`; two loops' different induction variables are not.
//! - An axis qualifies when all accesses have equal expressions there, it is not the last axis
//!   of a buffer accessed with vectors, and, for a `shared` buffer, the expression does not
//!   depend on a GPU block or thread index (`block.*`/`thread.*` induction variables,
//!   `loop.block_id`, `loop.thread_id`: the threads of a block share the buffer and must keep
//!   different elements). A `local` buffer is private to its thread, so a thread-indexed axis
//!   qualifies there (CINN's LocalAxisVisitor); `gpu-map` applies this rule to local buffers
//!   after mapping.
//! - Every access gets index `0` on each qualifying axis (a new `arith.constant`; the old index
//!   arithmetic is erased when unused) and the dim becomes `1` in the buffer type; a dynamic
//!   dim's size operand is dropped from the `loop.alloc`. An axis whose expression is already
//!   the constant 0 on a dim of size 1 is left as it is.
//!
//! The pass counts the axes it removed (`axes-removed`).
//!
//! # Performance impact
//! Smaller local buffers fit in registers; a shrunk shared buffer frees shared memory for more
//! resident blocks.
//!
//! # Risks and limitations
//! - A program that reads an element along such an axis before writing it in the same
//!   iteration reads uninitialised memory; after the rewrite it reads the value of an earlier
//!   iteration instead. Both are undefined, but they may differ.
//! - Equality is structural on the canonical form; expressions equal only under bounds (say
//!   `%i % 8` and `%i` for `%i < 8`) are not recognised.
//! - Single flattened indices are not split into dims first, as CINN does.
//!
//! # Examples
//! 1. A staging buffer indexed by the loop indices in both blocks:
//!    ```text
//!    loop.kernel @stage(%x: !loop.buffer<4x8xf32, global>, %y: !loop.buffer<4x8xf32, global>) {
//!      %c0 = arith.constant 0 : index
//!      %c1 = arith.constant 1 : index
//!      %c4 = arith.constant 4 : index
//!      %c8 = arith.constant 8 : index
//!      %t = loop.alloc : !loop.buffer<4x8xf32, local>
//!      loop.for serial %i = %c0 to %c4 step %c1 {
//!        loop.for serial %j = %c0 to %c8 step %c1 {
//!          loop.schedule_block "a" (%i0 = %i, %j0 = %j) {
//!            %v = loop.load %x[%i0, %j0] : !loop.buffer<4x8xf32, global>
//!            loop.store %v, %t[%i0, %j0] : !loop.buffer<4x8xf32, local>
//!          }
//!          loop.schedule_block "b" (%i0 = %i, %j0 = %j) {
//!            %v = loop.load %t[%i0, %j0] : !loop.buffer<4x8xf32, local>
//!            loop.store %v, %y[%i0, %j0] : !loop.buffer<4x8xf32, global>
//!          }
//!        }
//!      }
//!      loop.return
//!    }
//!    ```
//!    becomes (the body of `%j`)
//!    ```text
//!    loop.schedule_block "a" (%arg4 = %arg2, %arg5 = %arg3) {
//!      %1 = loop.load %arg0[%arg4, %arg5] : !loop.buffer<4x8xf32, global>
//!      %c0_0 = arith.constant 0 : index
//!      loop.store %1, %0[%c0_0, %c0_0] : !loop.buffer<1x1xf32, local>
//!      loop.yield
//!    }
//!    loop.schedule_block "b" (%arg4 = %arg2, %arg5 = %arg3) {
//!      %c0_0 = arith.constant 0 : index
//!      %1 = loop.load %0[%c0_0, %c0_0] : !loop.buffer<1x1xf32, local>
//!      loop.store %1, %arg1[%arg4, %arg5] : !loop.buffer<4x8xf32, global>
//!      loop.yield
//!    }
//!    ```
//!
//! # Counter-examples
//! 1. A buffer written in one loop over `%j` and read in another loop over `%k`: the indices
//!    are different induction variables, so the axis carries information and stays.
//! 2. A shared buffer indexed by a `thread.x` induction variable: each thread owns its element.

use dlc_arith::build_index_constant;
use dlc_ir::pass::{Anchor, OptionValues, Pass, PassInfo, PassRun};
use dlc_ir::{Context, Diagnostic, InsertPoint, Op, DYNAMIC};
use dlc_loop::analysis::access::{accesses_of, first_index_operand, is_vector_access, Resolver};
use dlc_loop::index_expr::erase_dead_index_ops;
use dlc_loop::index_expr::IndexExpr;
use dlc_loop::KernelOp;
use dlc_loop::{buffer_parts, buffer_type, AllocOp, MemorySpace};

/// The pass description.
pub static INFO: PassInfo = PassInfo {
    argument: "update-buffer-axis",
    summary: "Replaces an axis of a shared or local buffer that every access indexes with the \
              same expression by 0, and shrinks that dim to 1.",
    anchor: Anchor::op::<KernelOp>(),
    options: &[],
    statistics: &[(
        "axes-removed",
        "Number of buffer axes replaced by 0 and shrunk to 1",
    )],
    create,
};

fn create(_options: &OptionValues) -> Result<Box<dyn Pass>, String> {
    Ok(Box::new(UpdateBufferAxis))
}

struct UpdateBufferAxis;

impl Pass for UpdateBufferAxis {
    fn run(&self, ctx: &mut Context, run: &mut PassRun<'_>) -> Result<(), Diagnostic> {
        let removed = update_buffers(ctx, run.op(), |_| true);
        run.add_stat("axes-removed", removed);
        if removed == 0 {
            run.preserve_all();
        }
        Ok(())
    }
}

/// Removes the uninformative axes of the kernel's shared and local buffers whose memory space
/// `spaces` accepts; returns how many.
fn update_buffers(ctx: &mut Context, kernel: Op, spaces: impl Fn(MemorySpace) -> bool) -> u64 {
    let resolver = Resolver::new(ctx, kernel);
    let mut allocs = Vec::new();
    ctx.for_each_op(kernel, &mut |op| allocs.extend(ctx.view::<AllocOp>(op)));
    let mut removed = 0;
    for alloc in allocs {
        let space = buffer_parts(ctx, ctx.value_type(alloc.result(ctx))).map(|(_, _, s)| s);
        if space.is_some_and(&spaces) {
            removed += update_alloc(ctx, &resolver, alloc);
        }
    }
    removed
}

/// The pass's rewrite on the `local` buffers of `kernel` alone (what `gpu-map` runs after
/// mapping a kernel); returns the axes removed.
pub(crate) fn shrink_local_buffers(ctx: &mut Context, kernel: Op) -> u64 {
    update_buffers(ctx, kernel, |space| space == MemorySpace::Local)
}

/// Removes the uninformative axes of the buffer `alloc` makes; returns how many.
fn update_alloc(ctx: &mut Context, resolver: &Resolver, alloc: AllocOp) -> u64 {
    let buffer = alloc.result(ctx);
    let Some((dims, elem, space)) = buffer_parts(ctx, ctx.value_type(buffer)) else {
        return 0;
    };
    if space == MemorySpace::Global {
        return 0;
    }
    let Some(accesses) = accesses_of(ctx, buffer) else {
        return 0;
    };
    if accesses.is_empty() {
        return 0;
    }
    let vector = accesses.iter().any(|op| is_vector_access(ctx, *op));
    let mut axes = Vec::new();
    for (d, &dim) in dims.iter().enumerate() {
        if vector && d + 1 == dims.len() {
            continue;
        }
        let mut first: Option<IndexExpr> = None;
        let mut same = true;
        for &op in &accesses {
            let Some(at) = first_index_operand(ctx, op) else {
                same = false;
                break;
            };
            let Some(&index) = ctx.operands(op).get(at + d) else {
                same = false;
                break;
            };
            let e = resolver.resolve(ctx, index);
            match &first {
                None => first = Some(e),
                Some(f) => same &= *f == e,
            }
        }
        let Some(e) = first else {
            continue;
        };
        // A local buffer is private to its thread: a thread-indexed axis holds that thread's
        // element only. In shared memory each thread keeps its own element along it.
        let per_thread = space == MemorySpace::Shared && resolver.is_gpu_dependent(&e);
        if !same || per_thread || (dim == 1 && e.as_constant() == Some(0)) {
            continue;
        }
        axes.push(d);
    }
    if axes.is_empty() {
        return 0;
    }
    // The alloc's size operands follow the dynamic dims in order.
    let sizes: Vec<_> = ctx.operands(alloc.0).to_vec();
    let mut kept_sizes = Vec::new();
    let mut next = 0;
    let mut new_dims = dims.clone();
    for (d, &dim) in dims.iter().enumerate() {
        if dim == DYNAMIC {
            if !axes.contains(&d) {
                if let Some(&s) = sizes.get(next) {
                    kept_sizes.push(s);
                }
            }
            next += 1;
        }
        if axes.contains(&d) {
            new_dims[d] = 1;
        }
    }
    let new_ty = buffer_type(ctx, &new_dims, elem, space);
    ctx.set_operands(alloc.0, &kept_sizes);
    ctx.set_value_type(buffer, new_ty);
    for op in accesses {
        let Some(at) = first_index_operand(ctx, op) else {
            continue;
        };
        let loc = ctx.op_loc(op);
        let mut zero = None;
        for &d in &axes {
            let old = ctx.operand(op, at + d);
            if dlc_loop::index_expr::from_ir(ctx, old).as_constant() == Some(0) {
                continue;
            }
            let z = *zero.get_or_insert_with(|| {
                let c = build_index_constant(ctx, InsertPoint::Before(op), 0, loc);
                ctx.result(c, 0)
            });
            ctx.set_operand(op, at + d, z);
            erase_dead_index_ops(ctx, old);
        }
    }
    axes.len() as u64
}
