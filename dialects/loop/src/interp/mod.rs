//! The reference interpreter of the loop dialect: the executable meaning of `loop.kernel` and of
//! the host functions that launch kernels, against which loop passes and code generation are
//! tested (run a kernel before and after a pass, or against its compiled form, and compare
//! buffers).
//!
//! It is written to be obviously right, not fast. Every loop kind runs with serial meaning
//! (vectorize and unroll included); GPU-bound kernels simulate the grid block by block, with the
//! threads of a block interleaved at barriers and collectives as on a GPU. The simulation is as
//! strict as the hardware, since nothing else runs GPU kernels before PTX is emitted: what a
//! GPU would get wrong or leave undefined is an error here, not a value. Errors a kernel can
//! make at run time — out-of-bounds accesses, uses of values read from uninitialised scratch
//! memory, data races on shared memory between barriers, warp shuffles not run in lockstep by
//! a full warp, launches beyond the device limits, division by zero, barrier divergence,
//! unsupported ops, wrong arguments — come back as diagnostics at the op (or the kernel), never
//! as a panic. CPU kernels run as one block of one thread under the same rules (only the
//! uninitialised-read check can apply to them).
//!
//! Conventions the spec leaves open, fixed here:
//! - A schedule block's init region runs when every reduce iter value is 0 (the first iteration
//!   of the reduction, as TVM's `T.init()`), before the body.
//! - A GPU-bound loop of extent E gives E threads (or blocks) along its axis; the block/grid size
//!   is the largest such extent, or the `grid`/`block` launch attrs when present. Thread `t` runs
//!   iterations `lb + t*step`, `lb + (t + n)*step`, ... (n the block size), so threads beyond a
//!   loop's extent skip it. Ops outside the bound loops run in every thread, as after `gpu-map`.
//! - Shared and local buffers start uninitialised: reading an element before it is written
//!   gives poison, which pure ops propagate, `arith.select` may discard, and any other use
//!   makes an error. A local `loop.alloc` makes a fresh buffer each time it runs. Integers read from
//!   `i1` buffers are 0 or -1 (MLIR's sign-extended reading of true).
//!
//! Buffers are `dlc_tensor`'s [`Literal`](dlc_tensor::Literal)s, the host values the graph
//! interpreter computes on too (and the runtime's tensors convert to and from exactly), so
//! values pass between them without conversion.
//!
//! - [`buffer`]: [`KernelArg`], element loads and stores, and `!loop.buffer` type decoding.
//! - `scalar`: `arith` and `math` semantics on scalars and vector lanes.
//! - `exec`: one thread as a resumable state machine (loops, ifs, schedule blocks, memory).
//! - `grid`: launch shape and limits, and the per-block scheduler (barriers, warp and block
//!   reductions, warp lockstep).
//! - `memcheck`: initialised elements of scratch buffers and shared-memory races.
//! - `host`: [`run_host`], host functions (`func.func` with `loop.alloc`, `loop.constant`,
//!   `loop.view`, `loop.reshape`, `loop.dim`, `loop.read_size`, `loop.launch`) over byte
//!   storages, launching kernels here, and calling one another with `loop.call_if` and
//!   `loop.call_loop`.

pub mod buffer;
mod env;
mod exec;
mod grid;
mod host;
mod memcheck;
mod scalar;

pub use buffer::KernelArg;
pub use host::{run_host, run_host_traced, Launch};

use crate::{KernelOp, MemorySpace};
use buffer::buffer_type;
use dlc_ir::{Context, Diagnostic, Op};
use dlc_tensor::Literal;
use env::{Env, Slots};
use exec::{op_err, Machine};
use rustc_hash::FxHashMap as HashMap;
use scalar::Val;
use std::rc::Rc;

/// Runs `kernel` (a `loop.kernel` op) on `args`, updating buffer arguments in place.
///
/// The arguments must match the kernel's signature: a [`KernelArg::Buffer`] of the declared
/// element type, rank and static sizes for every `!loop.buffer` argument, a
/// [`KernelArg::Index`] for every `index` or integer argument. Buffers keep whatever the kernel
/// wrote before an error.
pub fn run_kernel(ctx: &Context, kernel: Op, args: &mut [KernelArg]) -> Result<(), Diagnostic> {
    // Move the buffers out of `args` for the run (one memory slot each), and back afterwards.
    let mut buffers = Vec::new();
    let mut slots = Vec::new();
    let refs: Vec<ArgRef> = args
        .iter_mut()
        .enumerate()
        .map(|(i, arg)| match arg {
            KernelArg::Buffer(buf) => {
                let empty = Literal::zeros(buf.dtype(), &[0]);
                buffers.push(std::mem::replace(buf, empty));
                slots.push(i);
                ArgRef::Buffer(buffers.len() - 1)
            }
            KernelArg::Index(v) => ArgRef::Index(*v),
        })
        .collect();
    let result = run_kernel_with(ctx, kernel, &mut buffers, &refs);
    for (i, buf) in slots.into_iter().zip(buffers) {
        args[i] = KernelArg::Buffer(buf);
    }
    result
}

/// One kernel argument of [`run_kernel_with`]: a slot of its buffer list, or a scalar.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum ArgRef {
    /// The buffer at this index of `buffers`. Several arguments may name the same buffer, and
    /// then see each other's writes (aliasing, as when a host passes one buffer twice).
    Buffer(usize),
    /// An `index` (or integer) value.
    Index(i64),
}

/// Runs `kernel` with its arguments drawn from `buffers` and scalars, updating `buffers` in
/// place; the checks and errors are those of [`run_kernel`].
pub(crate) fn run_kernel_with(
    ctx: &Context,
    kernel: Op,
    buffers: &mut [Literal],
    args: &[ArgRef],
) -> Result<(), Diagnostic> {
    if ctx.view::<KernelOp>(kernel).is_none() {
        return Err(op_err(
            ctx,
            kernel,
            format!("expected a 'loop.kernel', got '{}'", ctx.op_name(kernel)),
        ));
    }
    let entry = ctx
        .regions(kernel)
        .first()
        .and_then(|&r| ctx.blocks(r).first().copied())
        .ok_or_else(|| op_err(ctx, kernel, "loop.kernel has no body"))?;
    let params = ctx.block_args(entry);
    if params.len() != args.len() {
        return Err(op_err(
            ctx,
            kernel,
            format!(
                "kernel takes {} arguments but {} were given",
                params.len(),
                args.len()
            ),
        ));
    }
    // Each thread's environment is a clone of this one.
    let slots = Rc::new(Slots::of_kernel(ctx, kernel));
    let mut env = Env::new(slots.clone());
    for (i, (&param, arg)) in params.iter().zip(args).enumerate() {
        let ty = ctx.value_type(param);
        let bad = |msg: String| op_err(ctx, kernel, format!("argument #{i}: {msg}"));
        match (buffer_type(ctx, ty), *arg) {
            (Some(bt), ArgRef::Buffer(slot)) => {
                let buf = buffers
                    .get(slot)
                    .ok_or_else(|| bad(format!("no buffer #{slot}")))?;
                if bt.space != MemorySpace::Global {
                    return Err(bad("kernel arguments must be global buffers".into()));
                }
                bt.accepts(ctx, buf).map_err(bad)?;
                env.insert(param, Val::Buf(slot));
            }
            (None, ArgRef::Index(v)) if ctx.is_integer_or_index(ty) => {
                env.insert(param, scalar::normalize(ctx, ty, Val::Int(v)));
            }
            (Some(_), ArgRef::Index(_)) => {
                return Err(bad("expected a buffer, got an index".into()))
            }
            (None, ArgRef::Buffer(_)) if ctx.is_integer_or_index(ty) => {
                return Err(bad("expected an index, got a buffer".into()))
            }
            (None, _) => return Err(bad("unsupported argument type".into())),
        }
    }
    // The machine owns its memory for the run: the global buffers first, then allocations.
    let mem: Vec<Literal> = buffers
        .iter_mut()
        .map(|b| {
            let empty = Literal::zeros(b.dtype(), &[0]);
            std::mem::replace(b, empty)
        })
        .collect();
    let mut machine = Machine {
        ctx,
        n_global: mem.len(),
        mem,
        shared: HashMap::default(),
        local: HashMap::default(),
        scratch: Vec::new(),
        interval: 0,
        launch: exec::Launch {
            grid: [1; 3],
            block: [1; 3],
        },
        block_id: [0; 3],
        decoded: vec![None; slots.ops()],
        slots,
    };
    let outcome = grid::launch_shape(ctx, kernel, &env, params).and_then(|launch| {
        machine.launch = launch;
        machine.run_grid(&env, ctx.first_op(entry))
    });
    machine.mem.truncate(machine.n_global);
    for (slot, buf) in buffers.iter_mut().zip(machine.mem) {
        *slot = buf;
    }
    outcome
}
