//! GPU grid simulation: the launch shape of a kernel and the per-block thread scheduler.
//!
//! A kernel is GPU-bound when it carries launch attributes (`grid`, `block`) or contains loops of
//! kind `block.*`/`thread.*`; otherwise it runs as one block of one thread. The launch must fit
//! a CUDA device (threads per block, block and grid dims, static shared memory), else it is an
//! error at the kernel. Blocks run in turn. Within a block every thread runs until it finishes
//! or stops at a collective op; then a warp whose lanes all wait at the same `loop.warp_reduce`
//! is released with the combined value (a block's partial last warp has fewer lanes: the ones
//! that exist, as the code generator's member mask), and a block whose threads all wait at the
//! same `loop.barrier` or `loop.block_reduce` is released, which starts a new barrier interval
//! for the race check (`memcheck`). Warps run shuffles in lockstep: a shuffle in a warp with a
//! lane finished or waiting at another op is an error at the shuffle naming the lanes; any other
//! mismatch is barrier divergence, reported at the op.
//! Shared buffers live for one block, local ones per thread.

use super::env::Env;
use super::exec::{op_err, Launch, Machine, Status, Thread, MAX_SHARED_BYTES};
use super::scalar::{self, Val};
use crate::analysis::loops::loop_kind;
use crate::math::ScalarOp;
use crate::{AllocOp, LoopKind, LoopOps, MemorySpace, WarpReduceOp};
use dlc_ir::{AttrKind, Context, Diagnostic, Op, Value};

/// Threads per warp.
pub(crate) const WARP_SIZE: usize = 32;
/// The most threads a block may have, as on CUDA devices.
const MAX_BLOCK_THREADS: i64 = 1024;
/// The largest block dims (x, y, z), as on CUDA devices.
const MAX_BLOCK_DIMS: [i64; 3] = [1024, 1024, 64];
/// The largest grid dims (x, y, z), as on CUDA devices.
const MAX_GRID_DIMS: [i64; 3] = [(1 << 31) - 1, 65535, 65535];

/// Computes the launch shape of `kernel`. `args` holds the kernel arguments' values.
pub(crate) fn launch_shape(
    ctx: &Context,
    kernel: Op,
    args: &Env,
    arg_values: &[Value],
) -> Result<Launch, Diagnostic> {
    let mut launch = Launch {
        grid: [1; 3],
        block: [1; 3],
    };
    let (grid, block) = (ctx.attr(kernel, "grid"), ctx.attr(kernel, "block"));
    if grid.is_some() || block.is_some() {
        for (attr, dims) in [(grid, &mut launch.grid), (block, &mut launch.block)] {
            if let Some(attr) = attr {
                *dims = launch_attr(ctx, kernel, attr, args, arg_values)?;
            }
        }
    } else {
        let mut bound = Vec::new();
        ctx.for_each_op(kernel, &mut |op| match loop_kind(ctx, op) {
            Some(LoopKind::Block(d)) => bound.push((op, true, d.index())),
            Some(LoopKind::Thread(d)) => bound.push((op, false, d.index())),
            _ => {}
        });
        for (op, is_block, d) in bound {
            let value = |i: usize| -> Result<i64, Diagnostic> {
                let v = *ctx
                    .operands(op)
                    .get(i)
                    .ok_or_else(|| op_err(ctx, op, "loop.for needs lb, ub and step"))?;
                launch_value(ctx, v, args).map_err(|m| {
                    op_err(
                        ctx,
                        op,
                        format!("the bounds of a GPU-bound loop must be computable at launch from constants and index arguments: {m}"),
                    )
                })
            };
            let (lb, ub, step) = (value(0)?, value(1)?, value(2)?);
            if step <= 0 {
                return Err(op_err(
                    ctx,
                    op,
                    format!("loop step must be positive, got {step}"),
                ));
            }
            let extent = if ub > lb {
                (ub - lb + step - 1) / step
            } else {
                0
            };
            let dims = if is_block {
                &mut launch.grid
            } else {
                &mut launch.block
            };
            dims[d] = dims[d].max(extent);
        }
    }
    check_limits(ctx, kernel, &launch)?;
    Ok(launch)
}

/// Checks `launch` and the kernel's static shared memory against the limits of CUDA devices:
/// at most [`MAX_BLOCK_THREADS`] threads per block, block dims within [`MAX_BLOCK_DIMS`], grid
/// dims within [`MAX_GRID_DIMS`], and at most [`MAX_SHARED_BYTES`] of shared buffers with static
/// dims (those with `?` dims count when allocated).
fn check_limits(ctx: &Context, kernel: Op, launch: &Launch) -> Result<(), Diagnostic> {
    if launch.grid.iter().chain(&launch.block).any(|&n| n < 1) {
        return Err(op_err(
            ctx,
            kernel,
            format!(
                "launch dims must be positive: grid {:?}, block {:?}",
                launch.grid, launch.block
            ),
        ));
    }
    let threads = launch
        .block
        .iter()
        .try_fold(1i64, |n, &d| n.checked_mul(d))
        .unwrap_or(i64::MAX);
    if threads > MAX_BLOCK_THREADS {
        return Err(op_err(
            ctx,
            kernel,
            format!(
                "a block of {threads} threads ({:?}) exceeds the limit of {MAX_BLOCK_THREADS}",
                launch.block
            ),
        ));
    }
    for (what, dims, max) in [
        ("block", launch.block, MAX_BLOCK_DIMS),
        ("grid", launch.grid, MAX_GRID_DIMS),
    ] {
        for ((&n, &m), axis) in dims.iter().zip(&max).zip(["x", "y", "z"]) {
            if n > m {
                return Err(op_err(
                    ctx,
                    kernel,
                    format!("{what} dim {axis} is {n}, over the limit of {m}"),
                ));
            }
        }
    }
    let mut shared = 0u64;
    let mut largest: Option<(u64, Op)> = None;
    ctx.for_each_op(kernel, &mut |op| {
        if ctx.view::<AllocOp>(op).is_none() {
            return;
        }
        let Some((dims, elem, MemorySpace::Shared)) = ctx
            .result_types(op)
            .first()
            .and_then(|&ty| crate::buffer_parts(ctx, ty))
        else {
            return;
        };
        let count = dims.iter().try_fold(1u64, |n, &d| {
            u64::try_from(d).ok().map(|d| n.saturating_mul(d))
        });
        if let (Some(count), Some(size)) = (count, crate::elem_size_bytes(ctx, elem)) {
            let bytes = count.saturating_mul(size);
            shared = shared.saturating_add(bytes);
            if largest.is_none_or(|(b, _)| bytes > b) {
                largest = Some((bytes, op));
            }
        }
    });
    if let Some((bytes, op)) = largest.filter(|_| shared > MAX_SHARED_BYTES as u64) {
        return Err(op_err(
            ctx,
            kernel,
            format!(
                "the kernel's shared buffers take {shared} bytes per block, over the limit of {MAX_SHARED_BYTES}"
            ),
        )
        .with_note(
            ctx.op_loc(op),
            format!("the largest shared buffer, of {bytes} bytes"),
        ));
    }
    Ok(())
}

/// One `grid`/`block` attribute: three entries, each an integer or a string naming an index
/// argument (`argN`, `%argN` or `N` by position, or a name listed in an `arg_names` attribute).
fn launch_attr(
    ctx: &Context,
    kernel: Op,
    attr: dlc_ir::Attribute,
    args: &Env,
    arg_values: &[Value],
) -> Result<[i64; 3], Diagnostic> {
    let AttrKind::Array(items) = ctx.attr_kind(attr) else {
        return Err(op_err(
            ctx,
            kernel,
            "launch attribute must be an array of 3 entries",
        ));
    };
    let mut dims = [1i64; 3];
    if items.len() > 3 {
        return Err(op_err(
            ctx,
            kernel,
            "launch attribute must be an array of 3 entries",
        ));
    }
    for (slot, &item) in dims.iter_mut().zip(items.iter()) {
        *slot = if let Some(n) = ctx.attr_as_int(item) {
            n as i64
        } else if let Some(name) = ctx.attr_as_str(item) {
            let pos = symbolic_arg_position(ctx, kernel, name).ok_or_else(|| {
                op_err(
                    ctx,
                    kernel,
                    format!("launch dim '{name}' names no kernel argument"),
                )
            })?;
            arg_values
                .get(pos)
                .and_then(|&v| args.get(v))
                .and_then(|v| v.as_int().ok())
                .ok_or_else(|| {
                    op_err(
                        ctx,
                        kernel,
                        format!("launch dim '{name}' is not an index argument"),
                    )
                })?
        } else {
            return Err(op_err(
                ctx,
                kernel,
                "launch dim must be an integer or a string",
            ));
        };
    }
    Ok(dims)
}

fn symbolic_arg_position(ctx: &Context, kernel: Op, name: &str) -> Option<usize> {
    let bare = name.trim_start_matches('%');
    if let Some(AttrKind::Array(names)) = ctx.attr(kernel, "arg_names").map(|a| ctx.attr_kind(a)) {
        if let Some(p) = names.iter().position(|&a| ctx.attr_as_str(a) == Some(bare)) {
            return Some(p);
        }
    }
    bare.strip_prefix("arg").unwrap_or(bare).parse().ok()
}

/// Evaluates a value from kernel arguments and pure scalar ops, for loop bounds at launch.
fn launch_value(ctx: &Context, v: Value, args: &Env) -> Result<i64, String> {
    if let Some(a) = args.get(v) {
        return a.as_int();
    }
    let op = ctx
        .defining_op(v)
        .ok_or("a bound is defined inside the kernel's loops")?;
    let scalar_op = ScalarOp::of(ctx, op)
        .filter(|_| ctx.regions(op).is_empty())
        .ok_or_else(|| format!("a bound depends on '{}'", ctx.op_name(op)))?;
    let operands = ctx
        .operands(op)
        .iter()
        .map(|&o| launch_value(ctx, o, args).map(Val::Int))
        .collect::<Result<Vec<_>, _>>()?;
    scalar::eval(ctx, scalar_op, &operands)?.as_int()
}

impl Machine<'_> {
    /// Runs every block of the grid, x fastest.
    pub(crate) fn run_grid(&mut self, env: &Env, first: Option<Op>) -> Result<(), Diagnostic> {
        let [gx, gy, gz] = self.launch.grid;
        for z in 0..gz {
            for y in 0..gy {
                for x in 0..gx {
                    self.block_id = [x, y, z];
                    self.run_block(env, first)?;
                }
            }
        }
        Ok(())
    }

    fn run_block(&mut self, env: &Env, first: Option<Op>) -> Result<(), Diagnostic> {
        self.mem.truncate(self.n_global);
        self.scratch.clear();
        self.shared.clear();
        self.local.clear();
        let n = self.launch.block.iter().product::<i64>() as usize;
        let mut threads: Vec<Thread> = (0..n)
            .map(|l| Thread::new(l, self.thread_id(l), env.clone(), first))
            .collect();
        // None: runnable.
        let mut status: Vec<Option<Status>> = vec![None; n];
        loop {
            for (th, st) in threads.iter_mut().zip(status.iter_mut()) {
                if st.is_none() {
                    *st = Some(self.run_thread(th)?);
                }
            }
            if status.iter().all(|s| *s == Some(Status::Done)) {
                return Ok(());
            }
            // Every thread has stopped, so a warp with a lane at a shuffle either has all its
            // lanes there or can never complete it.
            let mut released = false;
            for start in (0..n).step_by(WARP_SIZE) {
                let end = (start + WARP_SIZE).min(n);
                let shuffle = status[start..end].iter().find_map(|s| match s {
                    Some(Status::Waiting(op)) if self.ctx.view::<WarpReduceOp>(*op).is_some() => {
                        Some(*op)
                    }
                    _ => None,
                });
                if let Some(op) = shuffle {
                    self.check_warp(op, start, &status)?;
                    self.collective(op, &mut threads[start..end])?;
                    status[start..end].fill(None);
                    released = true;
                }
            }
            if !released {
                self.release_block(&mut threads, &mut status)?;
            }
        }
    }

    /// Checks that the warp starting at thread `start` runs the shuffle `op` in lockstep: all
    /// its lanes that exist in the block (all [`WARP_SIZE`], or fewer in a block's partial last
    /// warp, whose member mask the code generator builds from the block size) wait at `op`.
    fn check_warp(
        &self,
        op: Op,
        start: usize,
        status: &[Option<Status>],
    ) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let lanes = WARP_SIZE.min(status.len() - start);
        let (warp, block) = (start / WARP_SIZE, self.block_id);
        let lockstep = format!(
            "warp {warp} of block {block:?} does not run this '{}' in lockstep (a shuffle of its {lanes} lanes):",
            ctx.op_name(op)
        );
        let finished: Vec<usize> = (0..lanes)
            .filter(|&l| status[start + l] == Some(Status::Done))
            .collect();
        if let Some(&first) = finished.first() {
            return Err(op_err(
                ctx,
                op,
                format!(
                    "{lockstep} {} finished (thread {:?} first) while the others wait here",
                    lane_list(&finished),
                    self.thread_id(start + first)
                ),
            ));
        }
        let elsewhere: Vec<(usize, Op)> = (0..lanes)
            .filter_map(|l| match status[start + l] {
                Some(Status::Waiting(o)) if o != op => Some((l, o)),
                _ => None,
            })
            .collect();
        if let Some(&(first, other)) = elsewhere.first() {
            let which: Vec<usize> = elsewhere.iter().map(|&(l, _)| l).collect();
            let verb = if which.len() == 1 { "waits" } else { "wait" };
            return Err(op_err(
                ctx,
                op,
                format!(
                    "{lockstep} {} {verb} at another op (thread {:?} at a '{}') while the others wait here",
                    lane_list(&which),
                    self.thread_id(start + first),
                    ctx.op_name(other)
                ),
            )
            .with_note(ctx.op_loc(other), "the other lanes wait here"));
        }
        Ok(())
    }

    /// Releases a block whose threads all wait at the same barrier or block reduction, which
    /// ends the barrier interval, or reports the divergence. No thread waits at a warp shuffle
    /// (`run_block` released or reported those).
    fn release_block(
        &mut self,
        threads: &mut [Thread],
        status: &mut [Option<Status>],
    ) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let n = status.len();
        let waiting: Vec<(usize, Op)> = status
            .iter()
            .enumerate()
            .filter_map(|(i, s)| match s {
                Some(Status::Waiting(op)) => Some((i, *op)),
                _ => None,
            })
            .collect();
        let Some(&(first_thread, op)) = waiting.first() else {
            return Ok(());
        };
        let name = ctx.op_name(op);
        let at_op = waiting.iter().filter(|(_, o)| *o == op).count();
        if at_op == n {
            if let Some(LoopOps::BlockReduceOp(_)) = LoopOps::of(ctx, op) {
                self.collective(op, threads)?;
            }
            self.interval += 1;
            status.fill(None);
            return Ok(());
        }
        let tid = threads[first_thread].tid;
        let block = self.block_id;
        if let Some(&(other_thread, other)) = waiting.iter().find(|(_, o)| *o != op) {
            let other_tid = threads[other_thread].tid;
            return Err(op_err(
                ctx,
                op,
                format!(
                    "barrier divergence in block {block:?}: thread {tid:?} waits at this '{name}' while thread {other_tid:?} waits at another '{}'",
                    ctx.op_name(other)
                ),
            )
            .with_note(ctx.op_loc(other), "the other thread waits here"));
        }
        Err(op_err(
            ctx,
            op,
            format!(
                "barrier divergence in block {block:?}: '{name}' reached by {at_op} of {n} threads while other threads of the block finished (collectives must be reached in uniform control flow)"
            ),
        ))
    }

    /// Combines the operand of the reduction `op` over `threads` and gives each the result.
    fn collective(&mut self, op: Op, threads: &mut [Thread]) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let operand = *ctx
            .operands(op)
            .first()
            .ok_or_else(|| op_err(ctx, op, "reduction without an operand"))?;
        let kind = crate::ops::reduce_kind(ctx, op).ok_or_else(|| {
            op_err(
                ctx,
                op,
                "reduction without a 'kind' of add, mul, max, min, and or or",
            )
        })?;
        if ctx.num_results(op) != 1 {
            return Err(op_err(ctx, op, "expected exactly one result"));
        }
        let vals = threads
            .iter()
            .map(|t| {
                if let Some(p) = t.poison.get(&operand) {
                    return Err(self.poison_use(t, op, p));
                }
                t.env
                    .get(operand)
                    .cloned()
                    .ok_or_else(|| op_err(ctx, op, "operand has no value"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let result = ctx.result(op, 0);
        let ty = ctx.value_type(result);
        // A warp's lanes combine in a shuffle tree; a block reduction combines each warp's
        // total, then the warps' totals in warp 0, as the GPU code does.
        let combined = vals
            .chunks(WARP_SIZE)
            .map(|warp| scalar::combine_lanes(ctx, kind, ty, warp))
            .collect::<Result<Vec<_>, _>>()
            .and_then(|warps| scalar::combine_lanes(ctx, kind, ty, &warps))
            .map_err(|m| op_err(ctx, op, m))?;
        for t in threads {
            t.env.insert(result, combined.clone());
        }
        Ok(())
    }
}

/// "lane 3" or "lanes 0, 4..7, 9" for ascending lane numbers.
fn lane_list(lanes: &[usize]) -> String {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for &l in lanes {
        match runs.last_mut() {
            Some((_, end)) if *end + 1 == l => *end = l,
            _ => runs.push((l, l)),
        }
    }
    let text: Vec<String> = runs
        .iter()
        .map(|&(a, b)| {
            if a == b {
                a.to_string()
            } else {
                format!("{a}..{b}")
            }
        })
        .collect();
    let noun = if lanes.len() == 1 { "lane" } else { "lanes" };
    format!("{noun} {}", text.join(", "))
}
