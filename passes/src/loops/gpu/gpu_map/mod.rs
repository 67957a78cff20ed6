//! Maps each kernel's outermost nest of parallel loops to GPU blocks and threads.
//!
//! # Applies when
//! A kernel from `lower{target=gpu}` is not yet GPU-bound (no `grid`/`block` attributes, no
//! `block.*`/`thread.*` loop): its point loops are `parallel`, its reduce nests `serial`, its
//! registers `local` allocs in the innermost point body. Every such kernel needs a launch shape
//! before code generation, so the pass fires on every lowered GPU program. CINN does this in
//! `transform_gpu_forloop` (bind, then `RemoveGpuForLoops` and the local-axis visitor).
//!
//! # Changes to the IR
//! - The outermost perfect nest of loops whose kind is in `loops` (between the loops only pure
//!   ops; bounds defined outside the nest; constant positive steps) is collapsed into one linear
//!   index `i = block_id.x * B + thread_id.x` over `total`, the product of the extents
//!   (`max(ub - lb, 0)` over the step, rounded up). The loops are removed: `i` is split back
//!   into the induction variables by `remsi`/`divsi` by the extents (innermost fastest), plus
//!   `lb` and times the step, and the loop bodies (pure ops between levels first) are inlined.
//! - The kernel gets `block = [B, 1, 1]` and `grid = [G, 1, 1]`, `G = max(ceil(total / B), 1)`.
//!   The top level of the kernel may hold only that nest and pure ops, else it is left alone.
//! - When `total` is not a static multiple of `B`, the body is wrapped in
//!   `loop.if i < total` (a bound guard); a static divisible total has no guard.
//! - A symbolic `total`: `G` becomes a new trailing `index` argument of the kernel (`grid`
//!   names it `"argN"`), and every `loop.launch` of the kernel in the module computes `G` with
//!   `arith` ops before the launch, from the launch operands that the extents use (index
//!   arguments, or `loop.dim` of buffer arguments), and passes it.
//! - With `max-blocks` > 0 and a grid that would be larger (always, for a symbolic total), the
//!   grid is capped and the body runs in a block-stride loop
//!   `loop.for serial %i = i0 to total step G * B`.
//! - A kernel with no loop at all (rank-0 work) gets `grid = block = [1, 1, 1]`.
//! - Local buffers allocated in the mapped body: an axis that every access indexes with the
//!   same mapped loop index holds one element per thread, and its index becomes 0 (CINN's
//!   LocalAxisVisitor). Shared buffers do not occur before mapping, so CINN's shared-axis rule
//!   has nothing to do here.
//! - `reduce=block` (default `serial`: the above), for a kernel whose point body holds only
//!   local allocs, pure ops, schedule blocks and reduce nests `loop.for serial k = 0 to K step
//!   1` (one reduce axis: every nest has the same `K`, no loop inside) with at least one plain
//!   reduction (`acc = combine(load acc, x)` into a local register, init storing the identity):
//!   each point is one block (`grid` = number of points, linear index = `block_id`, guard
//!   `block_id < total` uniform per block) of `B` threads, `B` the next power of two `>= K`
//!   capped at `block-size` (`block-size` for a symbolic `K`). Every nest becomes
//!   `for k = thread_id to K step B`; each reduction's init moves before its nest (every thread
//!   starts at the identity) and after the nest `loop.block_reduce` (kind from the combine:
//!   `addf` -> `add`, `maximumf` -> `max`, ...) of the thread's partial is stored back into the
//!   register, so later code reads the total in every thread. Schedule blocks outside the
//!   nests that store to global buffers run in thread 0 only (`loop.if thread_id == 0`).
//!   Kernels that do not fit (several reduce axes, no reduction, an init that is not the
//!   identity, a global buffer both read and written, a per-iteration local read outside its
//!   nest, ...) are mapped as with `serial`.
//!
//! # Performance impact
//! One thread per point, consecutive threads on consecutive innermost indices, so global
//! accesses along the innermost point axis coalesce. Reductions run serially in the thread of
//! their point. With `reduce=block` a point's reduction is split over up to `block-size`
//! threads (coalesced loads along the reduce axis) and combined in a log-depth tree; small
//! point counts with long reductions gain most, many points with short reductions may lose
//! (each point holds a whole block).
//!
//! # Risks and limitations
//! - `loops=serial` (or unroll, vectorize) asserts that those loops' iterations are
//!   independent; the pass does not check it.
//! - A kernel whose top level holds other work than the nest (several nests, stores, allocs)
//!   or whose symbolic extents the host cannot compute is left unmapped.
//!
//! - `reduce=block` reassociates reductions (tree order), changing float results' last bits.
//!
//! # TODO
//! - `reduce=block` with several reduce axes (flatten them) or a non-identity init.
//! - Use the y and z grid dimensions for nests whose total overflows the x dimension.
//!
//! # Examples
//! 1. A static nest of 4 x 64 points is one block of 256 threads, without a guard:
//!    ```text
//!    loop.kernel @scale(%x: !loop.buffer<4x64xf32, global>, %y: !loop.buffer<4x64xf32, global>) {
//!      %c0 = arith.constant 0 : index
//!      %c1 = arith.constant 1 : index
//!      %c4 = arith.constant 4 : index
//!      %c64 = arith.constant 64 : index
//!      loop.for parallel %i = %c0 to %c4 step %c1 {
//!        loop.for parallel %j = %c0 to %c64 step %c1 {
//!          %v = loop.load %x[%i, %j] : !loop.buffer<4x64xf32, global>
//!          %s = arith.addf %v, %v : f32
//!          loop.store %s, %y[%i, %j] : !loop.buffer<4x64xf32, global>
//!          loop.yield
//!        }
//!        loop.yield
//!      }
//!      loop.return
//!    }
//!    ```
//!    becomes
//!    ```text
//!    loop.kernel @scale(%arg0: !loop.buffer<4x64xf32, global>, %arg1: !loop.buffer<4x64xf32, global>) attributes {block = [256 : index, 1 : index, 1 : index], grid = [1 : index, 1 : index, 1 : index]} {
//!      ...
//!      %c64 = arith.constant 64 : index
//!      %0 = loop.block_id x
//!      %1 = loop.thread_id x
//!      %c256 = arith.constant 256 : index
//!      %2 = arith.muli %0, %c256 : index
//!      %3 = arith.addi %2, %1 : index
//!      %4 = arith.remsi %3, %c64 : index
//!      %5 = arith.divsi %3, %c64 : index
//!      %6 = loop.load %arg0[%5, %4] : !loop.buffer<4x64xf32, global>
//!      %7 = arith.addf %6, %6 : f32
//!      loop.store %7, %arg1[%5, %4] : !loop.buffer<4x64xf32, global>
//!      loop.return
//!    }
//!    ```
//! 2. A symbolic extent: a guard, and the host computes the grid size:
//!    ```text
//!    loop.kernel @rows(%x: !loop.buffer<?x8xf32, global>, %y: !loop.buffer<?x8xf32, global>, %n: index) {
//!      ...
//!      loop.for parallel %i = %c0 to %n step %c1 {
//!        loop.for parallel %j = %c0 to %c8 step %c1 { ... }
//!        loop.yield
//!      }
//!      loop.return
//!    }
//!    func.func @main(%x: !loop.buffer<?x8xf32, global>) -> !loop.buffer<?x8xf32, global> {
//!      %n = loop.dim %x, 0 : !loop.buffer<?x8xf32, global>
//!      %y = loop.alloc(%n) : !loop.buffer<?x8xf32, global>
//!      loop.launch @rows(%x, %y, %n) : (!loop.buffer<?x8xf32, global>, !loop.buffer<?x8xf32, global>, index) -> ()
//!      return %y : !loop.buffer<?x8xf32, global>
//!    }
//!    ```
//!    becomes
//!    ```text
//!    loop.kernel @rows(..., %arg2: index, %arg3: index) attributes {block = [256 : index, 1 : index, 1 : index], grid = ["arg3", 1 : index, 1 : index]} {
//!      ...
//!      %0 = arith.maxsi %c0_0, %arg2 : index
//!      %1 = arith.muli %0, %c8_1 : index
//!      ...
//!      %6 = arith.cmpi slt, %5, %1 : index
//!      loop.if %6 {
//!        %7 = arith.remsi %5, %c8 : index
//!        %8 = arith.divsi %5, %c8 : index
//!        ...
//!      }
//!      loop.return
//!    }
//!    func.func @main(%arg0: !loop.buffer<?x8xf32, global>) -> !loop.buffer<?x8xf32, global> {
//!      ...
//!      %4 = arith.addi %3, %c255 : index
//!      %5 = arith.divsi %4, %c256 : index
//!      %6 = arith.maxsi %c1, %5 : index
//!      loop.launch @rows(%arg0, %1, %0, %6) : (..., index, index) -> ()
//!      ...
//!    }
//!    ```
//!
//! 3. `reduce=block` on a row sum of 4 rows x 100: 4 blocks of 128 threads, the write-back in
//!    thread 0:
//!    ```text
//!    loop.for parallel %i = %c0 to %c4 step %c1 {
//!      %acc = loop.alloc : !loop.buffer<1xf32, local>
//!      loop.for serial %k = %c0 to %c100 step %c1 {
//!        loop.schedule_block "sum" (%i0 = %i, %k0 = %k reduce) init { ... store 0.0 to %acc ... } {
//!          ... %acc[%c0] = %acc[%c0] + %x[%i0, %k0] ...
//!        }
//!        loop.yield
//!      }
//!      loop.schedule_block "write" (%i0 = %i) { ... store %acc[%c0] to %y[%i0] ... }
//!      loop.yield
//!    }
//!    ```
//!    becomes (`block = [128, 1, 1]`, `grid = [4, 1, 1]`)
//!    ```text
//!    %0 = loop.block_id x
//!    %1 = loop.thread_id x
//!    %2 = loop.alloc : !loop.buffer<1xf32, local>
//!    %c128 = arith.constant 128 : index
//!    %cst = arith.constant 0.000000e+00 : f32
//!    loop.store %cst, %2[%c0] : !loop.buffer<1xf32, local>
//!    loop.for serial %arg2 = %1 to %c100 step %c128 {
//!      loop.schedule_block "sum" (%arg3 = %0, %arg4 = %arg2 reduce) { ... }
//!      loop.yield
//!    }
//!    %3 = loop.load %2[%c0] : !loop.buffer<1xf32, local>
//!    %4 = loop.block_reduce %3 {kind = "add"} : f32
//!    loop.store %4, %2[%c0] : !loop.buffer<1xf32, local>
//!    %5 = arith.cmpi eq, %1, %c0_0 : index
//!    loop.if %5 {
//!      loop.schedule_block "write" (%arg2 = %0) { ... }
//!      loop.yield
//!    }
//!    ```
//!
//! # Counter-examples
//! 1. A kernel with a `thread.x` loop (already GPU-bound) is left alone.
//! 2. A kernel whose loops are all `serial` is left alone under `loops=parallel`: its
//!    iterations may depend on each other.
//! 3. Under `reduce=block`, a kernel with two nested reduce loops (two reduce axes) is mapped
//!    one thread per point, as with `serial`.

mod host;
mod local_axes;
mod reduce_block;

use dlc_arith::{
    build_binary, build_cmpi, build_index_constant, AddIOp, CmpIPredicate, ConstantOp, DivSIOp,
    MulIOp, RemSIOp,
};
use dlc_ir::builtin::ModuleOp;
use dlc_ir::pass::{Anchor, OptionKind, OptionSpec, OptionValues, Pass, PassInfo, PassRun};
use dlc_ir::{
    Block, Context, Diagnostic, InsertPoint, Location, Op, OpSpec, OpView, Traits, Type, Value,
};
use dlc_loop::index_expr::{from_ir, range_of, Bounds, Emitter, IndexExpr, Symbol};
use dlc_loop::ops::{build_for, build_if, BlockIdOp, DimOp, ForOp, KernelOp, LoopKind, ThreadIdOp};
use dlc_loop::{is_gpu_kernel, module_kernels};
use host::{host_symbol, HostSymbol};
use local_axes::zero_local_axes;
use rustc_hash::FxHashMap;

/// The pass description.
pub static INFO: PassInfo = PassInfo {
    argument: "gpu-map",
    summary: "Maps each kernel's outermost nest of parallel loops to GPU blocks and threads.",
    anchor: Anchor::Op(ModuleOp::NAME),
    options: &[
        OptionSpec::new(
            "block-size",
            OptionKind::Int,
            "256",
            "Threads per block (1 to 1024)",
        ),
        OptionSpec::new(
            "max-blocks",
            OptionKind::Int,
            "0",
            "Most blocks in the grid (0: unlimited); a larger grid becomes a block-stride loop",
        ),
        OptionSpec::new(
            "loops",
            OptionKind::StrList,
            "parallel",
            "Loop kinds to map (parallel, serial, vectorize, unroll)",
        ),
        OptionSpec::new(
            "reduce",
            OptionKind::Str,
            "serial",
            "How a point's reduce nests run: serial (in its thread) or block (one block per point, its threads split the reduce axis)",
        ),
    ],
    statistics: &[
        ("kernels-mapped", "Number of kernels given a grid and block"),
        (
            "guards-inserted",
            "Number of bound guards (`loop.if i < total`) inserted",
        ),
        (
            "launch-args-added",
            "Number of host launches given a computed grid-size argument",
        ),
        (
            "local-axes-zeroed",
            "Number of local-buffer index axes set to 0 (they held a mapped loop index)",
        ),
        (
            "block-reduced-kernels",
            "Number of kernels mapped with reduce=block (one block per point)",
        ),
        (
            "block-reduces-inserted",
            "Number of loop.block_reduce ops inserted",
        ),
    ],
    create,
};

/// The loop kinds `loops` may name.
const MAPPABLE_KINDS: &[&str] = &["parallel", "serial", "vectorize", "unroll"];
/// The most threads a CUDA block may have.
const MAX_BLOCK_SIZE: i64 = 1024;

fn create(options: &OptionValues) -> Result<Box<dyn Pass>, String> {
    let block_size = options.int("block-size");
    if !(1..=MAX_BLOCK_SIZE).contains(&block_size) {
        return Err(format!(
            "option 'block-size': {block_size} is not in 1..={MAX_BLOCK_SIZE}"
        ));
    }
    let max_blocks = options.int("max-blocks");
    if max_blocks < 0 {
        return Err(format!("option 'max-blocks': {max_blocks} is negative"));
    }
    let kinds = options.str_list("loops").to_vec();
    if let Some(bad) = kinds.iter().find(|k| !MAPPABLE_KINDS.contains(&k.as_str())) {
        return Err(format!(
            "option 'loops': '{bad}' is not a mappable loop kind (one of {})",
            MAPPABLE_KINDS.join(", ")
        ));
    }
    let block_reduce = match options.str("reduce") {
        "serial" => false,
        "block" => true,
        other => {
            return Err(format!(
                "option 'reduce': '{other}' is not one of serial, block"
            ))
        }
    };
    Ok(Box::new(GpuMap {
        block_size,
        max_blocks,
        kinds,
        block_reduce,
    }))
}

struct GpuMap {
    /// Threads per block, `B`.
    block_size: i64,
    /// Grid size cap (0: none).
    max_blocks: i64,
    /// Names of the loop kinds mapped.
    kinds: Vec<String>,
    /// `reduce=block`: one block per point, its threads splitting the reduce axis.
    block_reduce: bool,
}

#[derive(Default)]
struct Stats {
    mapped: u64,
    guards: u64,
    launch_args: u64,
    zeroed: u64,
    block_kernels: u64,
    block_reduces: u64,
}

impl Pass for GpuMap {
    fn run(&self, ctx: &mut Context, run: &mut PassRun<'_>) -> Result<(), Diagnostic> {
        let module = run.op();
        let kernels = module_kernels(ctx, module);
        let mut stats = Stats::default();
        for kernel in kernels {
            if is_gpu_kernel(ctx, kernel) {
                continue;
            }
            match self.plan(ctx, kernel) {
                Some(Plan::SingleThread) => {
                    set_launch_attrs(ctx, kernel, LaunchSize::Const(1), 1);
                    stats.mapped += 1;
                }
                Some(Plan::Nest(nest)) => {
                    let block_plan = self
                        .block_reduce
                        .then(|| nest.levels.last())
                        .flatten()
                        .and_then(|l| reduce_block::plan(ctx, &l.ops, self.block_size));
                    let threads = block_plan.as_ref().map(|p| p.threads);
                    let thread = self.map_nest(ctx, module, kernel, nest, threads, &mut stats);
                    if let (Some(p), Some(t)) = (block_plan, thread) {
                        let loc = ctx.op_loc(kernel);
                        stats.block_reduces += reduce_block::apply(ctx, &p, t, loc);
                        stats.block_kernels += 1;
                    }
                }
                None => {}
            }
        }
        run.add_stat("kernels-mapped", stats.mapped);
        run.add_stat("guards-inserted", stats.guards);
        run.add_stat("launch-args-added", stats.launch_args);
        run.add_stat("local-axes-zeroed", stats.zeroed);
        run.add_stat("block-reduced-kernels", stats.block_kernels);
        run.add_stat("block-reduces-inserted", stats.block_reduces);
        if stats.mapped == 0 {
            run.preserve_all();
        }
        Ok(())
    }
}

/// What the pass does with one kernel.
enum Plan {
    /// No loop at all: one block of one thread runs the body.
    SingleThread,
    /// Map this nest.
    Nest(Nest),
}

/// The outermost perfect nest of mappable loops of a kernel.
struct Nest {
    /// The kernel's entry block.
    entry: Block,
    /// Outermost first.
    levels: Vec<Level>,
    /// The iteration count of the whole nest: the product of the levels' extents.
    total: IndexExpr,
    /// Known ranges of the kernel values the extents use.
    bounds: Bounds,
    /// How the host computes each symbol of `total` from a launch's operands.
    host_symbols: Vec<(Value, HostSymbol)>,
}

/// One loop of the nest.
struct Level {
    op: Op,
    iv: Value,
    lower: Value,
    step: i64,
    /// `max(ub - lb, 0)` divided by the step, rounded up.
    extent: IndexExpr,
    /// The ops of this loop's body other than the next loop and the terminator (pure; they
    /// move into the innermost body). For the innermost loop: its whole body.
    ops: Vec<Op>,
}

/// A grid size: a constant, or the kernel argument at this position.
#[derive(Copy, Clone)]
enum LaunchSize {
    Const(i64),
    Arg(usize),
}

impl GpuMap {
    fn maps(&self, ctx: &Context, op: Op) -> bool {
        ctx.view::<ForOp>(op)
            .and_then(|f| f.loop_kind(ctx))
            .is_some_and(|k| self.kinds.iter().any(|name| name == k.name()))
    }

    /// Decides what to do with `kernel`; `None` leaves it alone.
    fn plan(&self, ctx: &Context, kernel: Op) -> Option<Plan> {
        let entry = ctx.view::<KernelOp>(kernel)?.body(ctx)?;
        let mut has_loop = false;
        ctx.for_each_op(kernel, &mut |op| {
            has_loop |= ctx.view::<ForOp>(op).is_some()
        });
        if !has_loop {
            return Some(Plan::SingleThread);
        }
        // The top level: one mappable loop, and pure ops (constants, index arithmetic) that
        // every thread may run.
        let (outer, others) = split_body(ctx, entry, |op| self.maps(ctx, op))?;
        if !others.iter().all(|&op| is_pure(ctx, op)) {
            return None;
        }
        let mut bounds = Bounds::new();
        let mut levels: Vec<Level> = Vec::new();
        let mut current = outer;
        while let Some(level) = self.level(ctx, current, outer, &mut bounds) {
            let body = ctx.view::<ForOp>(current)?.body(ctx)?;
            levels.push(level);
            // Descend while the body is one mappable loop among pure ops.
            match split_body(ctx, body, |op| self.maps(ctx, op)) {
                Some((inner, rest)) if rest.iter().all(|&op| is_pure(ctx, op)) => {
                    if self.level(ctx, inner, outer, &mut bounds.clone()).is_none() {
                        levels.last_mut()?.ops = body_ops(ctx, body);
                        break;
                    }
                    levels.last_mut()?.ops = rest;
                    current = inner;
                }
                _ => {
                    levels.last_mut()?.ops = body_ops(ctx, body);
                    break;
                }
            }
        }
        if levels.is_empty() {
            return None;
        }
        let total = levels
            .iter()
            .fold(IndexExpr::constant(1), |acc, l| &acc * &l.extent);
        let mut host_symbols = Vec::new();
        for symbol in total.symbols() {
            let Symbol::Value(v) = symbol else {
                return None;
            };
            host_symbols.push((v, host_symbol(ctx, entry, v)?));
        }
        Some(Plan::Nest(Nest {
            entry,
            levels,
            total,
            bounds,
            host_symbols,
        }))
    }

    /// Reads loop `op` of a nest rooted at `outer`: a constant positive step and bounds
    /// defined outside the nest. Records non-negative `loop.dim` symbols in `bounds`.
    fn level(&self, ctx: &Context, op: Op, outer: Op, bounds: &mut Bounds) -> Option<Level> {
        let f = ctx.view::<ForOp>(op)?;
        let iv = f.induction_var(ctx)?;
        let (lower, upper, step) = match ctx.operands(op) {
            [l, u, s] => (*l, *u, *s),
            _ => return None,
        };
        if ![lower, upper, step]
            .iter()
            .all(|&v| defined_outside(ctx, v, outer))
        {
            return None;
        }
        let step = from_ir(ctx, step).as_constant().filter(|&s| s > 0)?;
        let (lo, hi) = (from_ir(ctx, lower), from_ir(ctx, upper));
        for symbol in lo.symbols().into_iter().chain(hi.symbols()) {
            if let Symbol::Value(v) = symbol {
                if ctx
                    .defining_op(v)
                    .is_some_and(|d| ctx.view::<DimOp>(d).is_some())
                {
                    bounds.insert(symbol, 0, i64::MAX);
                }
            }
        }
        let mut span = &hi - &lo;
        if range_of(&span, bounds).0 < 0 {
            span = span.maximum(&IndexExpr::constant(0));
        }
        let extent = if step == 1 {
            span
        } else {
            (span + (step - 1)).floordiv(&IndexExpr::constant(step))
        };
        Some(Level {
            op,
            iv,
            lower,
            step,
            extent,
            ops: Vec::new(),
        })
    }

    /// Rewrites the kernel: block/thread ids replace the nest, launches get the grid size.
    /// With `threads` (reduce=block), each point is one block of that many threads. Returns
    /// the thread id when the kernel was mapped.
    fn map_nest(
        &self,
        ctx: &mut Context,
        module: Op,
        kernel: Op,
        nest: Nest,
        threads: Option<i64>,
        stats: &mut Stats,
    ) -> Option<Value> {
        // Points per block.
        let b = if threads.is_some() {
            1
        } else {
            self.block_size
        };
        let outer = nest.levels[0].op;
        let loc = ctx.op_loc(outer);
        let at = InsertPoint::Before(outer);
        let mut values = KernelValues {
            emitter: Emitter::new(at, loc).with_bounds(nest.bounds.clone()),
            constants: index_constants(ctx, nest.entry, outer),
            at,
            loc,
        };
        // The grid: constant when the trip count is, else a new kernel argument the host
        // computes. `stride`: a block-stride loop covers what a capped grid leaves out.
        let (grid, grid_value, stride, guard) = match nest.total.as_constant() {
            Some(t) => {
                let t = t.max(0);
                let blocks = ((t + b - 1) / b).max(1);
                if self.max_blocks > 0 && blocks > self.max_blocks {
                    let g = self.max_blocks;
                    (LaunchSize::Const(g), Some(g), true, false)
                } else {
                    (LaunchSize::Const(blocks), None, false, t % b != 0 || t == 0)
                }
            }
            None => {
                let stride = self.max_blocks > 0;
                (LaunchSize::Arg(usize::MAX), None, stride, !stride)
            }
        };
        let total = if stride || guard {
            let total = values.get(ctx, &nest.total)?;
            Some(total)
        } else {
            None
        };
        let mut extents = vec![None; nest.levels.len()];
        for (slot, level) in extents.iter_mut().zip(&nest.levels).skip(1) {
            if level.extent.as_constant() != Some(1) {
                *slot = Some(values.get(ctx, &level.extent)?);
            }
        }
        let grid = match grid {
            LaunchSize::Arg(_) => {
                ctx.add_block_arg(nest.entry, Type::INDEX);
                update_function_type(ctx, kernel, nest.entry);
                LaunchSize::Arg(ctx.block_args(nest.entry).len() - 1)
            }
            g => g,
        };
        let grid_value = match (grid, grid_value) {
            (LaunchSize::Arg(p), _) => Some(ctx.block_args(nest.entry)[p]),
            (_, Some(g)) => Some(values.constant(ctx, g)),
            _ => None,
        };
        let block_id = gpu_id::<BlockIdOp>(ctx, at, loc);
        let thread_id = gpu_id::<ThreadIdOp>(ctx, at, loc);
        let b_value = values.constant(ctx, b);
        let start = if threads.is_some() {
            block_id
        } else {
            let base = binary::<MulIOp>(ctx, at, block_id, b_value, loc);
            binary::<AddIOp>(ctx, at, base, thread_id, loc)
        };
        let (anchor, linear) = if let (true, Some(total), Some(g)) = (stride, total, grid_value) {
            let step = match grid {
                LaunchSize::Const(n) => values.constant(ctx, n * b),
                LaunchSize::Arg(_) => binary::<MulIOp>(ctx, at, g, b_value, loc),
            };
            let (_, body, iv) = build_for(ctx, at, (start, total, step), LoopKind::Serial, loc);
            (terminator(ctx, body), iv)
        } else if let (true, Some(total)) = (guard, total) {
            let cmp = build_cmpi(ctx, at, CmpIPredicate::Slt, start, total, loc);
            let cond = ctx.result(cmp, 0);
            let (_, then_block, _) = build_if(ctx, at, cond, false, loc);
            stats.guards += 1;
            (terminator(ctx, then_block), start)
        } else {
            (Some(outer), start)
        };
        let anchor = anchor?;
        let at = InsertPoint::Before(anchor);
        // Delinearize: the innermost loop varies fastest.
        let n = nest.levels.len();
        let mut index = vec![linear; n];
        let mut rest = linear;
        for k in (1..n).rev() {
            match extents[k] {
                None => index[k] = values.constant(ctx, 0),
                Some(e) => {
                    index[k] = binary::<RemSIOp>(ctx, at, rest, e, loc);
                    rest = binary::<DivSIOp>(ctx, at, rest, e, loc);
                }
            }
        }
        index[0] = rest;
        let mut new_ivs = Vec::new();
        for (level, &i) in nest.levels.iter().zip(&index) {
            let mut iv = i;
            if level.step != 1 {
                let s = values.constant(ctx, level.step);
                iv = binary::<MulIOp>(ctx, at, iv, s, loc);
            }
            if from_ir(ctx, level.lower).as_constant() != Some(0) {
                iv = binary::<AddIOp>(ctx, at, level.lower, iv, loc);
            }
            ctx.replace_all_uses(level.iv, iv);
            new_ivs.push(iv);
        }
        for level in &nest.levels {
            for &op in &level.ops {
                ctx.move_op(op, at);
            }
        }
        ctx.erase_op(outer);
        if let Some(innermost) = nest.levels.last() {
            stats.zeroed += zero_local_axes(ctx, &innermost.ops, &new_ivs, loc);
        }
        set_launch_attrs(ctx, kernel, grid, threads.unwrap_or(b));
        stats.mapped += 1;
        if let LaunchSize::Arg(_) = grid {
            stats.launch_args += self.pass_grid_size(ctx, module, kernel, &nest, b);
        }
        Some(thread_id)
    }
}

/// Builds the kernel-side index values before the nest, reusing the kernel's constants.
struct KernelValues {
    emitter: Emitter,
    constants: FxHashMap<i64, Value>,
    at: InsertPoint,
    loc: Location,
}

impl KernelValues {
    fn constant(&mut self, ctx: &mut Context, c: i64) -> Value {
        if let Some(&v) = self.constants.get(&c) {
            return v;
        }
        let v = const_index(ctx, self.at, c, self.loc);
        self.constants.insert(c, v);
        v
    }

    fn get(&mut self, ctx: &mut Context, e: &IndexExpr) -> Option<Value> {
        match e.as_constant() {
            Some(c) => Some(self.constant(ctx, c)),
            None => self.emitter.emit(ctx, e).ok(),
        }
    }
}

/// The `index` constants of the kernel's top level before `outer`, by value.
fn index_constants(ctx: &Context, entry: Block, outer: Op) -> FxHashMap<i64, Value> {
    let mut found = FxHashMap::default();
    for op in ctx.block_ops(entry) {
        if op == outer {
            break;
        }
        let Some(constant) = ctx.view::<ConstantOp>(op) else {
            continue;
        };
        if ctx.num_results(op) != 1 {
            continue;
        }
        let v = ctx.result(op, 0);
        let c = constant.value(ctx).and_then(|a| ctx.attr_as_int(a));
        if let (Type::INDEX, Some(c)) = (ctx.value_type(v), c) {
            if let Ok(c) = i64::try_from(c) {
                found.entry(c).or_insert(v);
            }
        }
    }
    found
}

/// Splits `block`'s non-terminator ops into the single op satisfying `pick` and the rest;
/// `None` unless exactly one op does.
fn split_body(ctx: &Context, block: Block, pick: impl Fn(Op) -> bool) -> Option<(Op, Vec<Op>)> {
    let mut picked = None;
    let mut rest = Vec::new();
    for op in body_ops(ctx, block) {
        if pick(op) {
            if picked.replace(op).is_some() {
                return None;
            }
        } else {
            rest.push(op);
        }
    }
    Some((picked?, rest))
}

/// The ops of `block` before its terminator.
fn body_ops(ctx: &Context, block: Block) -> Vec<Op> {
    ctx.block_ops(block)
        .filter(|&op| !ctx.has_trait(op, Traits::TERMINATOR))
        .collect()
}

/// Side-effect free and without regions: safe to run in every thread, or once per point.
fn is_pure(ctx: &Context, op: Op) -> bool {
    ctx.has_trait(op, Traits::PURE) && ctx.regions(op).is_empty()
}

/// Whether `v` is defined outside the loop `outer` (so it dominates it).
fn defined_outside(ctx: &Context, v: Value, outer: Op) -> bool {
    let owner = match ctx.defining_op(v) {
        Some(op) => Some(op),
        None => ctx.value_block(v).and_then(|b| ctx.block_parent_op(b)),
    };
    owner.is_none_or(|op| op != outer && !ctx.is_ancestor(outer, op))
}

/// Rewrites the kernel's `function_type` to its entry block's arguments.
fn update_function_type(ctx: &mut Context, kernel: Op, entry: Block) {
    let types: Vec<Type> = ctx
        .block_args(entry)
        .iter()
        .map(|&a| ctx.value_type(a))
        .collect();
    let ty = ctx.function_type(&types, &[]);
    let attr = ctx.type_attr(ty);
    ctx.set_attr(kernel, "function_type", attr);
}

/// Sets `grid = [grid, 1, 1]` and `block = [block, 1, 1]`.
fn set_launch_attrs(ctx: &mut Context, kernel: Op, grid: LaunchSize, block: i64) {
    let one = ctx.integer_attr(1, Type::INDEX);
    let grid_x = match grid {
        LaunchSize::Const(n) => ctx.integer_attr(n.into(), Type::INDEX),
        LaunchSize::Arg(p) => ctx.string_attr(&format!("arg{p}")),
    };
    let block_x = ctx.integer_attr(block.into(), Type::INDEX);
    let grid = ctx.array_attr(&[grid_x, one, one]);
    let block = ctx.array_attr(&[block_x, one, one]);
    ctx.set_attr(kernel, "grid", grid);
    ctx.set_attr(kernel, "block", block);
}

/// Builds `loop.block_id x` / `loop.thread_id x`.
fn gpu_id<T: OpView>(ctx: &mut Context, at: InsertPoint, loc: Location) -> Value {
    let x = ctx.string_attr("x");
    let spec = OpSpec::new(ctx, T::NAME, loc)
        .attr(ctx, "dim", x)
        .results(&[Type::INDEX]);
    let op = ctx.build(at, spec);
    ctx.result(op, 0)
}

fn const_index(ctx: &mut Context, at: InsertPoint, value: i64, loc: Location) -> Value {
    let op = build_index_constant(ctx, at, value, loc);
    ctx.result(op, 0)
}

fn binary<T: dlc_arith::BinaryOp>(
    ctx: &mut Context,
    at: InsertPoint,
    lhs: Value,
    rhs: Value,
    loc: Location,
) -> Value {
    let op = build_binary::<T>(ctx, at, lhs, rhs, loc);
    ctx.result(op, 0)
}

/// The terminator of `block`.
fn terminator(ctx: &Context, block: Block) -> Option<Op> {
    ctx.last_op(block)
        .filter(|&op| ctx.has_trait(op, Traits::TERMINATOR))
}
