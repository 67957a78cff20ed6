//! Mapping a kernel's outermost nest of loops onto a grid of GPU blocks and threads: what
//! `gpu-map` (one thread per point) and `gpu-block-reduce` (one block per point) share. A
//! [`Mapper`] finds the nest ([`Mapper::plan`]), collapses it into a linear index over block
//! and thread ids ([`Mapper::map_nest`]), sets the launch attributes and makes the host compute
//! a symbolic grid size (host.rs).

mod host;

use dlc_arith::{
    build_binary, build_cmpi, build_index_constant, AddIOp, CmpIPredicate, ConstantOp, DivSIOp,
    MulIOp, RemSIOp,
};
use dlc_ir::pass::{OptionKind, OptionSpec, OptionValues};
use dlc_ir::{Block, Context, InsertPoint, Location, Op, OpSpec, OpView, Traits, Type, Value};
use dlc_loop::index_expr::{from_ir, range_of, Bounds, Emitter, IndexExpr, Symbol};
use dlc_loop::ops::{build_for, build_if, BlockIdOp, DimOp, ForOp, KernelOp, LoopKind, ThreadIdOp};
use dlc_loop::{is_gpu_kernel, module_kernels};
use host::{host_symbol, HostSymbol};
use rustc_hash::FxHashMap;

/// The options both mapping passes take.
pub(super) const OPTIONS: &[OptionSpec] = &[
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
];

/// The statistics both mapping passes count, with [`Mapper::map_nest`]'s counters.
pub(super) const STATISTICS: [(&str, &str); 4] = [
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
        "Number of local-buffer axes replaced by 0 and shrunk to 1 (update-buffer-axis's rule)",
    ),
];

/// The loop kinds `loops` may name.
const MAPPABLE_KINDS: &[&str] = &["parallel", "serial", "vectorize", "unroll"];
/// The most threads a CUDA block may have.
const MAX_BLOCK_SIZE: i64 = 1024;

/// How kernels are mapped: the options of [`OPTIONS`].
pub(super) struct Mapper {
    /// Threads per block, `B` (with one block per point: the most threads).
    pub(super) block_size: i64,
    /// Grid size cap (0: none).
    max_blocks: i64,
    /// Names of the loop kinds mapped.
    kinds: Vec<String>,
}

/// What a mapping pass counts (see [`STATISTICS`]).
#[derive(Default)]
pub(super) struct MapStats {
    pub(super) mapped: u64,
    pub(super) guards: u64,
    pub(super) launch_args: u64,
    pub(super) zeroed: u64,
}

impl MapStats {
    /// Reports the counters under the names of [`STATISTICS`].
    pub(super) fn report(&self, run: &mut dlc_ir::pass::PassRun<'_>) {
        let values = [self.mapped, self.guards, self.launch_args, self.zeroed];
        for ((name, _), n) in STATISTICS.iter().zip(values) {
            run.add_stat(name, n);
        }
    }
}

/// The kernels of `module` not yet bound to a grid, in order.
pub(super) fn unmapped_kernels(ctx: &Context, module: Op) -> Vec<Op> {
    module_kernels(ctx, module)
        .into_iter()
        .filter(|&k| !is_gpu_kernel(ctx, k))
        .collect()
}

/// Gives `kernel` one block of one thread.
pub(super) fn map_single_thread(ctx: &mut Context, kernel: Op, stats: &mut MapStats) {
    set_launch_attrs(ctx, kernel, LaunchSize::Const(1), 1);
    stats.mapped += 1;
}

/// Replaces the axes of the kernel's local buffers that every access indexes with the same
/// expression by 0 (each thread holds only its point's element): `update-buffer-axis`'s rule,
/// applied to `local` buffers.
pub(super) fn shrink_local_buffers(ctx: &mut Context, kernel: Op, stats: &mut MapStats) {
    stats.zeroed += crate::loops::memory::shrink_local_buffers(ctx, kernel);
}

/// What a mapping pass does with one kernel.
pub(super) enum Plan {
    /// No loop at all: one block of one thread runs the body.
    SingleThread,
    /// Map this nest.
    Nest(Nest),
}

/// The outermost perfect nest of mappable loops of a kernel.
pub(super) struct Nest {
    /// The kernel's entry block.
    entry: Block,
    /// Outermost first.
    pub(super) levels: Vec<Level>,
    /// The iteration count of the whole nest: the product of the levels' extents.
    total: IndexExpr,
    /// Known ranges of the kernel values the extents use.
    bounds: Bounds,
    /// How the host computes each symbol of `total` from a launch's operands.
    host_symbols: Vec<(Value, HostSymbol)>,
}

/// One loop of the nest.
pub(super) struct Level {
    op: Op,
    iv: Value,
    lower: Value,
    step: i64,
    /// `max(ub - lb, 0)` divided by the step, rounded up.
    extent: IndexExpr,
    /// The ops of this loop's body other than the next loop and the terminator (pure; they
    /// move into the innermost body). For the innermost loop: its whole body.
    pub(super) ops: Vec<Op>,
}

/// A grid size: a constant, or the kernel argument at this position.
#[derive(Copy, Clone)]
enum LaunchSize {
    Const(i64),
    Arg(usize),
}

impl Mapper {
    /// Reads the options of [`OPTIONS`].
    pub(super) fn new(options: &OptionValues) -> Result<Mapper, String> {
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
        Ok(Mapper {
            block_size,
            max_blocks,
            kinds,
        })
    }

    fn maps(&self, ctx: &Context, op: Op) -> bool {
        ctx.view::<ForOp>(op)
            .and_then(|f| f.loop_kind(ctx))
            .is_some_and(|k| self.kinds.iter().any(|name| name == k.name()))
    }

    /// Decides what to do with `kernel`; `None` leaves it alone.
    pub(super) fn plan(&self, ctx: &Context, kernel: Op) -> Option<Plan> {
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
    /// With `threads` (`gpu-block-reduce`), each point is one block of that many threads.
    /// Returns the thread id when the kernel was mapped.
    pub(super) fn map_nest(
        &self,
        ctx: &mut Context,
        module: Op,
        kernel: Op,
        nest: Nest,
        threads: Option<i64>,
        stats: &mut MapStats,
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
                KernelOp(kernel).append_arg(ctx, Type::INDEX);
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
        }
        for level in &nest.levels {
            for &op in &level.ops {
                ctx.move_op(op, at);
            }
        }
        ctx.erase_op(outer);
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
pub(super) fn body_ops(ctx: &Context, block: Block) -> Vec<Op> {
    ctx.block_ops(block)
        .filter(|&op| !ctx.has_trait(op, Traits::TERMINATOR))
        .collect()
}

/// Side-effect free and without regions: safe to run in every thread, or once per point.
pub(super) fn is_pure(ctx: &Context, op: Op) -> bool {
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

pub(super) fn const_index(ctx: &mut Context, at: InsertPoint, value: i64, loc: Location) -> Value {
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
