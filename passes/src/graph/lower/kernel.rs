//! Builds the `loop.kernel` of one planned group: arguments, the point loops, the reduce
//! nests, and one schedule block per op (plus a write-back block per reduction output).
//!
//! Arguments are the input buffers, the output buffers, then one `index` per symbolic dim the
//! kernel needs, in symbol order ([`Built::symbols`] tells the host which). Inside the point
//! loops every op result lives in a rank-0 `local` buffer (a register), a spilled value in a
//! `local` buffer over the reduce axes, and a reduction accumulates in its register: the init
//! region stores the identity at the first reduce point, the body combines.

use super::element::scalar_attr;
use super::element::{self, class, Class, Emit};
use super::padded::Padded;
use super::plan::{i64_array, is_splat, matmul_transposes, short_name, Group, Kind, Plan, Slot};
use super::Target;
use crate::loops::cpu::target::inherit_target_cpu;
use dlc_graph::decompose::direct_conv;
use dlc_graph::ops::{ConstantOp, PadOp, ReduceMaxOp, ReduceMeanOp, ReduceMinOp};
use dlc_graph::shapes::{DimExpr, SymbolicShapes};
use dlc_graph::{family_of, tensor_parts, Family, GraphOps, Reduction};
use dlc_ir::{AttrKind, Block, Context, DenseValue, InsertPoint, Location, Op, Type, Value};
use dlc_loop::{
    before_terminator, buffer_type, build_alloc, build_for, build_kernel, build_load,
    build_load_padded, build_schedule_block, build_store, IterKind, LoopKind, MemorySpace,
    ReduceKind,
};
use rustc_hash::{FxHashMap, FxHashSet};

/// What the host needs to launch a built kernel.
pub(super) struct Built {
    /// The symbols whose sizes follow the buffer arguments, in order.
    pub symbols: Vec<u32>,
    /// Schedule blocks built.
    pub blocks: u64,
    /// Local buffers (registers and spills) allocated.
    pub locals: u64,
}

/// What to build: kernel `name` for `group` as `plan` says, with the `target`'s schedule.
pub(super) struct Request<'a> {
    pub name: &'a str,
    pub group: &'a Group,
    pub plan: &'a Plan,
    pub shapes: &'a SymbolicShapes,
    pub target: Target,
    pub loc: Location,
    /// Results written into the buffer of the pad that is their only consumer.
    pub padded: &'a FxHashMap<Value, Padded>,
}

/// Builds the kernel `req` describes at `at` (in the module).
pub(super) fn build(
    ctx: &mut Context,
    at: InsertPoint,
    req: &Request<'_>,
) -> Result<(Op, Built), String> {
    let Request {
        name,
        group,
        plan,
        shapes,
        target,
        loc,
        padded,
    } = *req;
    let symbols = kernel_symbols(ctx, group, plan, shapes);
    let mut arg_types = Vec::new();
    for &v in group.inputs.iter().chain(&group.outputs) {
        let buffer = padded.get(&v).map_or(v, |p| ctx.result(p.pad, 0));
        arg_types.push(global_buffer(ctx, shapes, buffer)?);
    }
    arg_types.extend(std::iter::repeat_n(Type::INDEX, symbols.len()));
    let (kernel, entry) = build_kernel(ctx, at, name, &arg_types, loc);
    inherit_target_cpu(ctx, kernel.0);
    let args = ctx.block_args(entry).to_vec();
    let nbuf = group.inputs.len() + group.outputs.len();
    let mut k = Kernel {
        plan,
        shapes,
        loc,
        entry,
        last_const: None,
        consts: FxHashMap::default(),
        inputs: group
            .inputs
            .iter()
            .copied()
            .zip(args.iter().copied())
            .collect(),
        read_through: &group.read_through,
        outputs: group
            .outputs
            .iter()
            .copied()
            .zip(args[group.inputs.len()..].iter().copied())
            .collect(),
        symbols: symbols
            .iter()
            .copied()
            .zip(args[nbuf..].iter().copied())
            .collect(),
        storage: FxHashMap::default(),
        scratch: FxHashMap::default(),
        index_checks: Vec::new(),
        padded,
        blocks: 0,
        locals: 0,
    };
    let built = k.body(ctx, group, target).and_then(|()| {
        for (&r, p) in padded {
            let out = *k
                .outputs
                .get(&r)
                .ok_or("a padded value that is no output")?;
            k.fill_border(ctx, entry, out, p)?;
        }
        Ok(())
    });
    match built {
        Ok(()) => {
            if !k.index_checks.is_empty() {
                let checks = ctx.intern_attr(AttrKind::DenseArray {
                    element: Type::I64,
                    values: k.index_checks.into(),
                });
                ctx.set_attr(kernel.0, dlc_loop::INDEX_CHECKS, checks);
            }
            Ok((
                kernel.0,
                Built {
                    symbols,
                    blocks: k.blocks,
                    locals: k.locals,
                },
            ))
        }
        Err(e) => {
            ctx.erase_op(kernel.0);
            Err(e)
        }
    }
}

/// The `!loop.buffer<..., global>` for tensor value `v`.
pub(super) fn global_buffer(
    ctx: &mut Context,
    shapes: &SymbolicShapes,
    v: Value,
) -> Result<Type, String> {
    let t = tensor_parts(ctx, ctx.value_type(v)).ok_or("a non-tensor kernel operand")?;
    let dims: Vec<i64> = match shapes.shape(v) {
        Some(s) => s
            .iter()
            .map(|d| match d {
                DimExpr::Static(n) => *n,
                DimExpr::Symbol(_) => dlc_ir::DYNAMIC,
            })
            .collect(),
        None => t.shape,
    };
    let elem = ctx.signless(t.element);
    if dlc_loop::elem_size_bytes(ctx, elem).is_none() {
        return Err("an element type loop buffers cannot hold".into());
    }
    Ok(buffer_type(ctx, &dims, elem, MemorySpace::Global))
}

/// The symbols of every dim the kernel touches, sorted.
fn kernel_symbols(ctx: &Context, group: &Group, plan: &Plan, shapes: &SymbolicShapes) -> Vec<u32> {
    let mut set = FxHashSet::default();
    let mut add = |dims: &[DimExpr]| {
        for d in dims {
            if let DimExpr::Symbol(s) = d {
                set.insert(*s);
            }
        }
    };
    add(&plan.domain);
    for &v in group.inputs.iter().chain(&group.outputs) {
        add(shapes.shape(v).unwrap_or(&[]));
    }
    for &op in &group.ops {
        for &v in ctx.operands(op) {
            add(shapes.shape(v).unwrap_or(&[]));
        }
    }
    let mut list: Vec<u32> = set.into_iter().collect();
    list.sort_unstable();
    list
}

/// The kernel under construction.
pub(super) struct Kernel<'p> {
    /// Results written into the buffer of the pad that is their only consumer.
    padded: &'p FxHashMap<Value, Padded>,
    pub plan: &'p Plan,
    pub shapes: &'p SymbolicShapes,
    pub loc: Location,
    entry: Block,
    last_const: Option<Op>,
    consts: FxHashMap<(Type, u128), Value>,
    inputs: FxHashMap<Value, Value>,
    /// Values loaded through the movement op that maps them to the inputs.
    read_through: &'p FxHashMap<Value, Op>,
    outputs: FxHashMap<Value, Value>,
    symbols: FxHashMap<u32, Value>,
    /// Member result -> its register or spill buffer.
    storage: FxHashMap<Value, Value>,
    /// Movement op -> a register its branches write.
    scratch: FxHashMap<Op, Value>,
    /// The kernel's `index_checks` (see [`dlc_loop::INDEX_CHECKS`]): triples of the argument
    /// numbers of an index buffer and the buffer it indexes, and the indexed axis.
    index_checks: Vec<i64>,
    pub(super) blocks: u64,
    locals: u64,
}

/// The domain point of a block: the iter var of each domain axis in scope.
pub(super) type Point = Vec<Option<Value>>;

impl Kernel<'_> {
    fn body(&mut self, ctx: &mut Context, group: &Group, target: Target) -> Result<(), String> {
        let plan = self.plan;
        let d = plan.domain.len();
        // Point loops around everything.
        let mut point: Point = vec![None; d];
        let mut body = self.entry;
        let axes = plan.point_axes();
        let count = axes.len();
        for (n, a) in axes.into_iter().enumerate() {
            // On the CPU every point loop but the innermost is parallel: `parallelize` collapses
            // the nest into one loop of tasks, and a batched contraction's row loop is parallel,
            // as `tile` needs it. The innermost stays serial (unless it is the only one) for
            // `vectorize` and `tile`'s columns.
            let kind = match target {
                Target::Cpu if n > 0 && n + 1 == count => LoopKind::Serial,
                _ => LoopKind::Parallel,
            };
            let (b, iv) = self.build_loop(ctx, body, a, kind)?;
            body = b;
            point[a] = Some(iv);
        }
        self.allocate(ctx, group, body)?;
        let computing: Vec<Op> = group
            .ops
            .iter()
            .copied()
            .filter(|op| plan.kind[op] != Kind::Splat)
            .collect();
        for stage in 0..=plan.nests {
            // Write-backs of the reductions the previous nest finished.
            for &op in &computing {
                let r = ctx.result(op, 0);
                if plan.slot[&op] == Slot::Nest(stage.wrapping_sub(1))
                    && plan.is_reduction_value(ctx, r)
                    && self.outputs.contains_key(&r)
                {
                    self.write_back(ctx, body, r, &point)?;
                }
            }
            for &op in &computing {
                if plan.slot[&op] == Slot::Segment(stage) {
                    self.op_block(ctx, body, op, &point, false)?;
                }
            }
            if stage == plan.nests {
                break;
            }
            let mut nest_point = point.clone();
            let mut inner = body;
            for a in plan.reduce_axes() {
                let (b, iv) = self.build_loop(ctx, inner, a, LoopKind::Serial)?;
                inner = b;
                nest_point[a] = Some(iv);
            }
            for &op in &computing {
                if plan.slot[&op] == Slot::Nest(stage) {
                    self.op_block(ctx, inner, op, &nest_point, true)?;
                }
            }
            let empty = plan
                .reduce_axes()
                .into_iter()
                .any(|a| plan.domain[a] == DimExpr::Static(0));
            if empty {
                for &op in &computing {
                    if plan.slot[&op] == Slot::Nest(stage) {
                        self.empty_nest_init(ctx, body, op, &point)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// The accumulator of reduction `op` when its nest is statically empty (a reduced dim of
    /// size 0): the nest's loops never run, and with them the block's init, so a spatial block
    /// after the nest stores what the init would have: a `reduce_*`'s identity, a matmul's or
    /// convolution's zero. Arg-reductions over no elements have no result (ONNX rejects
    /// them) and keep their empty nest, as do accumulators spilled along the reduced axes.
    fn empty_nest_init(
        &mut self,
        ctx: &mut Context,
        body: Block,
        op: Op,
        point: &Point,
    ) -> Result<(), String> {
        let r = ctx.result(op, 0);
        let elem = element_type(ctx, r)?;
        let value = match self.plan.kind[&op] {
            Kind::Reduce => self.reduce_identity(ctx, op)?,
            Kind::Matmul | Kind::Conv => DenseValue::Int(0),
            _ => return Ok(()),
        };
        if self.plan.spilled.contains(&r) {
            return Ok(());
        }
        let iters: Vec<(Value, IterKind)> = self
            .plan
            .point_axes()
            .into_iter()
            .map(|a| {
                point[a]
                    .map(|v| (v, IterKind::Spatial))
                    .ok_or("a point axis is not in scope")
            })
            .collect::<Result<_, _>>()?;
        let name = format!("{}_empty_{}", short_name(ctx, op), self.blocks);
        let at = before_terminator(ctx, body);
        let (_, sb_body, _) = build_schedule_block(ctx, at, &name, &iters, false, self.loc);
        self.blocks += 1;
        let e = Emit {
            at: before_terminator(ctx, sb_body),
            loc: ctx.op_loc(op),
        };
        let v = e.constant(ctx, value, elem);
        build_store(ctx, e.at, v, self.storage[&r], &[], e.loc);
        Ok(())
    }

    fn build_loop(
        &mut self,
        ctx: &mut Context,
        body: Block,
        axis: usize,
        kind: LoopKind,
    ) -> Result<(Block, Value), String> {
        let lb = self.index(ctx, 0);
        let step = self.index(ctx, 1);
        let ub = self.dim(ctx, self.plan.domain[axis]);
        let at = before_terminator(ctx, body);
        let (_, b, iv) = build_for(ctx, at, (lb, ub, step), kind, self.loc);
        Ok((b, iv))
    }

    /// Registers for member results read in the kernel, spill buffers, accumulators.
    fn allocate(&mut self, ctx: &mut Context, group: &Group, body: Block) -> Result<(), String> {
        let plan = self.plan;
        let read: FxHashSet<Value> = group
            .ops
            .iter()
            .flat_map(|&op| ctx.operands(op).to_vec())
            .collect();
        let at = before_terminator(ctx, body);
        for &op in &group.ops {
            let kind = plan.kind[&op];
            if kind == Kind::Splat {
                continue;
            }
            let r = ctx.result(op, 0);
            let elem = element_type(ctx, r)?;
            let reduction = plan.is_reduction_value(ctx, r);
            if plan.spilled.contains(&r) {
                let dims: Vec<DimExpr> = plan
                    .reduce_axes()
                    .into_iter()
                    .map(|a| plan.domain[a])
                    .collect();
                let static_dims: Vec<i64> = dims
                    .iter()
                    .map(|d| match d {
                        DimExpr::Static(n) => *n,
                        DimExpr::Symbol(_) => dlc_ir::DYNAMIC,
                    })
                    .collect();
                let mut sizes = Vec::new();
                for d in dims {
                    if let DimExpr::Symbol(_) = d {
                        sizes.push(self.dim(ctx, d));
                    }
                }
                let ty = buffer_type(ctx, &static_dims, elem, MemorySpace::Local);
                let buf = build_alloc(ctx, at, ty, &sizes, self.loc);
                self.storage.insert(r, buf);
                self.locals += 1;
            } else if reduction || read.contains(&r) {
                let reg = self.register(ctx, at, elem);
                self.storage.insert(r, reg);
            }
            if matches!(
                GraphOps::of(ctx, op),
                Some(GraphOps::PadOp(_) | GraphOps::ConcatOp(_))
            ) {
                let reg = self.register(ctx, at, elem);
                self.scratch.insert(op, reg);
            }
        }
        Ok(())
    }

    fn register(&mut self, ctx: &mut Context, at: InsertPoint, elem: Type) -> Value {
        let ty = buffer_type(ctx, &[], elem, MemorySpace::Local);
        self.locals += 1;
        build_alloc(ctx, at, ty, &[], self.loc)
    }

    /// Builds the schedule block of `op` in `body` at the loop point `loops`.
    fn op_block(
        &mut self,
        ctx: &mut Context,
        body: Block,
        op: Op,
        loops: &Point,
        in_nest: bool,
    ) -> Result<(), String> {
        let plan = self.plan;
        let kind = plan.kind[&op];
        let reduction = kind.is_reduction();
        let mut axes = plan.point_axes();
        if in_nest {
            axes.extend(plan.reduce_axes());
        }
        let iters: Vec<(Value, IterKind)> = axes
            .iter()
            .map(|&a| {
                let kind = if reduction && plan.reduce[a] {
                    IterKind::Reduce
                } else {
                    IterKind::Spatial
                };
                (loops[a].expect("loop axes are in scope"), kind)
            })
            .collect();
        let name = format!("{}_{}", short_name(ctx, op), self.blocks);
        let at = before_terminator(ctx, body);
        let (_, sb_body, init) = build_schedule_block(ctx, at, &name, &iters, reduction, self.loc);
        self.blocks += 1;
        let point = block_point(ctx, plan.domain.len(), &axes, sb_body);
        let e = Emit {
            at: before_terminator(ctx, sb_body),
            loc: ctx.op_loc(op),
        };
        let r = ctx.result(op, 0);
        match kind {
            Kind::Elementwise => {
                let raxes = plan.axes[&r].clone();
                let mut args = Vec::new();
                for &v in ctx.operands(op).to_vec().iter() {
                    args.push(self.read(ctx, e, v, &raxes, &point)?);
                }
                let elem = element_type(ctx, r)?;
                let pred = element::str_attr(ctx, op, "predicate").map(str::to_string);
                let graph_op = GraphOps::of(ctx, op)
                    .ok_or_else(|| format!("'{}' has no scalar form", ctx.op_name(op)))?;
                // The last operand has the element type of the computation (`select`'s first
                // is its `i1` condition).
                let operands = ctx.operands(op);
                let signs = element::Signs {
                    operand: operands.last().is_some_and(|&x| is_unsigned(ctx, x)),
                    result: is_unsigned(ctx, r),
                };
                let v =
                    element::elementwise(ctx, e, graph_op, &args, (elem, signs), pred.as_deref())?;
                self.store_result(ctx, e, r, v, &point);
            }
            Kind::Movement => {
                let v = self.movement(ctx, e, op, &point)?;
                self.store_result(ctx, e, r, v, &point);
            }
            Kind::Reduce => {
                let init = init.expect("reductions have an init block");
                self.reduce_block(ctx, e, op, init, &point)?
            }
            Kind::Matmul => {
                let init = init.expect("reductions have an init block");
                self.matmul_block(ctx, e, op, init, &point)?
            }
            Kind::Conv => {
                let init = init.expect("reductions have an init block");
                self.conv_block(ctx, e, op, init, &point)?
            }
            Kind::Splat => {}
        }
        Ok(())
    }

    /// Stores result `r` of value `v` to its register or spill and to its output buffer.
    fn store_result(&mut self, ctx: &mut Context, e: Emit, r: Value, v: Value, point: &Point) {
        if let Some(&buf) = self.storage.get(&r) {
            let idx = if self.plan.spilled.contains(&r) {
                self.plan
                    .reduce_axes()
                    .into_iter()
                    .filter_map(|a| point[a])
                    .collect()
            } else {
                Vec::new()
            };
            build_store(ctx, e.at, v, buf, &idx, e.loc);
        }
        if let Some(&out) = self.outputs.get(&r) {
            let idx = self.result_index(ctx, e, r, point);
            build_store(ctx, e.at, v, out, &idx, e.loc);
        }
    }

    /// The output index of member result `r` at `point` (in the pad's buffer, for a padded
    /// result).
    fn result_index(&mut self, ctx: &mut Context, e: Emit, r: Value, point: &Point) -> Vec<Value> {
        let axes = self.plan.axes[&r].clone();
        let shape = self.shapes.shape(r).unwrap_or(&[]).to_vec();
        let mut idx = Vec::with_capacity(axes.len());
        for (a, dim) in axes.into_iter().zip(shape) {
            idx.push(match (dim, point[a]) {
                (DimExpr::Static(1), _) | (_, None) => self.index(ctx, 0),
                (_, Some(iv)) => iv,
            });
        }
        match self.padded.get(&r) {
            Some(p) => self.padded_index(ctx, e, p, &idx),
            None => idx,
        }
    }

    /// A block after a reduction's nest storing its result to the output buffer.
    fn write_back(
        &mut self,
        ctx: &mut Context,
        body: Block,
        r: Value,
        loops: &Point,
    ) -> Result<(), String> {
        let axes = self.plan.point_axes();
        let iters: Vec<(Value, IterKind)> = axes
            .iter()
            .map(|&a| {
                (
                    loops[a].expect("point axes are in scope"),
                    IterKind::Spatial,
                )
            })
            .collect();
        let at = before_terminator(ctx, body);
        let name = format!("store_{}", self.blocks);
        let (_, sb_body, _) = build_schedule_block(ctx, at, &name, &iters, false, self.loc);
        self.blocks += 1;
        let point = block_point(ctx, self.plan.domain.len(), &axes, sb_body);
        let e = Emit {
            at: before_terminator(ctx, sb_body),
            loc: self.loc,
        };
        let v = self.read_member(ctx, e, r, &point)?;
        let out = self.outputs[&r];
        let idx = self.result_index(ctx, e, r, &point);
        build_store(ctx, e.at, v, out, &idx, e.loc);
        Ok(())
    }

    /// The element of `v` a consumer reads at `point`, where the consumer's result dims walk
    /// `caxes` (numpy alignment: `v`'s dims line up with the last ones).
    pub(super) fn read(
        &mut self,
        ctx: &mut Context,
        e: Emit,
        v: Value,
        caxes: &[usize],
        point: &Point,
    ) -> Result<Value, String> {
        if let Some(def) = ctx.defining_op(v) {
            if self.plan.kind.get(&def) == Some(&Kind::Splat) {
                return self.splat(ctx, def);
            }
        }
        if self.plan.is_member(v) {
            return self.read_member(ctx, e, v, point);
        }
        let shape = self.shapes.shape(v).unwrap_or(&[]).to_vec();
        let off = caxes
            .len()
            .checked_sub(shape.len())
            .ok_or("an operand of higher rank than its consumer")?;
        let mut idx = Vec::with_capacity(shape.len());
        for (i, dim) in shape.iter().enumerate() {
            idx.push(match (dim, point[caxes[off + i]]) {
                (DimExpr::Static(1), _) | (_, None) => self.index(ctx, 0),
                (_, Some(iv)) => iv,
            });
        }
        self.load_input(ctx, e, v, &idx)
    }

    /// Records that input `indices` holds indices into axis `axis` of input `data`, a
    /// precondition the runtime checks before each launch (see [`dlc_loop::INDEX_CHECKS`]).
    pub(super) fn check_indices(
        &mut self,
        ctx: &Context,
        indices: Value,
        data: Value,
        axis: usize,
    ) -> Result<(), String> {
        let args = ctx.block_args(self.entry);
        let number = |v: Value| -> Result<i64, String> {
            let buf = self.input_buffer(v)?;
            args.iter()
                .position(|&a| a == buf)
                .map(|i| i as i64)
                .ok_or_else(|| "an input that is not a kernel argument".to_string())
        };
        let check = [number(indices)?, number(data)?, axis as i64];
        self.index_checks.extend(check);
        Ok(())
    }

    /// True when `v` is loaded through the movement op that defines it (no buffer holds it).
    pub(super) fn reads_through(&self, v: Value) -> bool {
        self.read_through.contains_key(&v)
    }

    /// The buffer argument of kernel input `v`.
    pub(super) fn input_buffer(&self, v: Value) -> Result<Value, String> {
        self.inputs
            .get(&v)
            .copied()
            .ok_or_else(|| "a kernel operand that is neither an input nor computed".into())
    }

    /// Loads element `idx` of kernel input `v` (the value of a splat constant member).
    pub(super) fn load_input(
        &mut self,
        ctx: &mut Context,
        e: Emit,
        v: Value,
        idx: &[Value],
    ) -> Result<Value, String> {
        // A splat constant in the group (a matmul's constant weights) is its value, not a load.
        if let Some(def) = ctx.defining_op(v) {
            if self.plan.kind.get(&def) == Some(&Kind::Splat) {
                return self.splat(ctx, def);
            }
        }
        if let Some(&op) = self.read_through.get(&v) {
            if ctx.view::<PadOp>(op).is_some() {
                return self.load_padded(ctx, e, op, idx);
            }
            let point: Point = idx.iter().copied().map(Some).collect();
            return self.movement(ctx, e, op, &point);
        }
        let buf = self.input_buffer(v)?;
        Ok(build_load(ctx, e.at, buf, idx, e.loc))
    }

    /// Element `idx` of the result of `pad`, read through (a depthwise convolution's input,
    /// `padded::read_by_convs`): one `loop.load_padded` of the pad's operand at `idx - low`,
    /// the pad's value outside it. No branch: `vectorize` makes it a masked vector load.
    fn load_padded(
        &mut self,
        ctx: &mut Context,
        e: Emit,
        pad: Op,
        idx: &[Value],
    ) -> Result<Value, String> {
        let x = ctx.operand(pad, 0);
        let buf = self.input_buffer(x)?;
        let elem = element_type(ctx, x)?;
        let value = scalar_attr(ctx, pad, "value").ok_or("a pad without a constant value")?;
        let fill = self.constant(ctx, value, elem);
        let low = i64_array(ctx, pad, "low");
        if low.len() != idx.len() {
            return Err("pad low of the wrong length".into());
        }
        let at: Vec<Value> = idx
            .iter()
            .zip(&low)
            .map(|(&i, &l)| self.offset(ctx, e, i, -l))
            .collect();
        Ok(build_load_padded(ctx, e.at, buf, &at, fill, e.loc))
    }

    /// The value of member result `v` from its register (a mean divided by its count).
    fn read_member(
        &mut self,
        ctx: &mut Context,
        e: Emit,
        v: Value,
        point: &Point,
    ) -> Result<Value, String> {
        let buf = *self
            .storage
            .get(&v)
            .ok_or("a kernel value without storage")?;
        let idx: Vec<Value> = if self.plan.spilled.contains(&v) {
            self.plan
                .reduce_axes()
                .into_iter()
                .filter_map(|a| point[a])
                .collect()
        } else {
            Vec::new()
        };
        let loaded = build_load(ctx, e.at, buf, &idx, e.loc);
        let def = ctx.defining_op(v).ok_or("a kernel value without an op")?;
        if flips_order(ctx, def) {
            return Ok(flip_sign_bit(ctx, e, loaded));
        }
        if ctx.view::<ReduceMeanOp>(def).is_none() {
            return Ok(loaded);
        }
        let ty = ctx.value_type(loaded);
        let mut count = self.index(ctx, 1);
        for a in self.plan.reduce_axes() {
            let ext = self.dim(ctx, self.plan.domain[a]);
            count = e.arith(ctx, "muli", &[count, ext], Type::INDEX);
        }
        Ok(match class(ctx, ty) {
            Class::Float => {
                let n = e.arith(ctx, "index_cast", &[count], Type::I64);
                let n = e.arith(ctx, "sitofp", &[n], ty);
                e.arith(ctx, "divf", &[loaded, n], ty)
            }
            Class::Int => {
                let n = e.arith(ctx, "index_cast", &[count], ty);
                let div = if is_unsigned(ctx, v) {
                    "divui"
                } else {
                    "divsi"
                };
                e.arith(ctx, div, &[loaded, n], ty)
            }
            Class::Bool => loaded,
        })
    }

    fn reduce_block(
        &mut self,
        ctx: &mut Context,
        e: Emit,
        op: Op,
        init: Block,
        point: &Point,
    ) -> Result<(), String> {
        let r = ctx.result(op, 0);
        let acc = self.storage[&r];
        let elem = element_type(ctx, r)?;
        let identity = self.reduce_identity(ctx, op)?;
        let (kind, cls) = self.reduce_kind_of(ctx, op)?;
        let ie = Emit {
            at: before_terminator(ctx, init),
            loc: e.loc,
        };
        let id = ie.constant(ctx, identity, elem);
        build_store(ctx, ie.at, id, acc, &[], e.loc);
        let identity_axes: Vec<usize> = (0..self.plan.domain.len()).collect();
        let mut x = self.read(ctx, e, ctx.operand(op, 0), &identity_axes, point)?;
        if flips_order(ctx, op) {
            x = flip_sign_bit(ctx, e, x);
        }
        let old = build_load(ctx, e.at, acc, &[], e.loc);
        let new = e.arith(ctx, combiner(kind, cls), &[old, x], elem);
        build_store(ctx, e.at, new, acc, &[], e.loc);
        Ok(())
    }

    /// The combining kind of `reduce_*` op `op` and the class of its element type.
    fn reduce_kind_of(&self, ctx: &Context, op: Op) -> Result<(ReduceKind, Class), String> {
        let elem = element_type(ctx, ctx.result(op, 0))?;
        let Some(Family::Reduce(red)) = family_of(ctx, op) else {
            return Err("not a reduction".into());
        };
        let cls = class(ctx, elem);
        Ok((reduce_kind(red, cls), cls))
    }

    /// The value a `reduce_*` op's accumulator starts from (in the sign-flipped order of an
    /// unsigned max or min).
    fn reduce_identity(&self, ctx: &mut Context, op: Op) -> Result<DenseValue, String> {
        let elem = element_type(ctx, ctx.result(op, 0))?;
        let (kind, cls) = self.reduce_kind_of(ctx, op)?;
        // `ReduceKind` gives `i1` no identity (its signed max and min are ambiguous); the
        // identities of `and` and `or` are the same bits at every width, and an `i1` constant
        // keeps the low bit.
        let identity_ty = if cls == Class::Bool { Type::I8 } else { elem };
        kind.identity(ctx, identity_ty)
            .ok_or_else(|| "a reduction without an identity".to_string())
    }

    fn matmul_block(
        &mut self,
        ctx: &mut Context,
        e: Emit,
        op: Op,
        init: Block,
        point: &Point,
    ) -> Result<(), String> {
        let (ta, tb) = matmul_transposes(ctx, op);
        let d = self.plan.domain.len();
        let vr = self.plan.value_rank;
        let (m, n, k) = (vr - 2, vr - 1, d - 1);
        let (x, y) = (ctx.operand(op, 0), ctx.operand(op, 1));
        let a = self.matmul_operand(ctx, e, x, point, vr - 2, [m, k], ta)?;
        let b = self.matmul_operand(ctx, e, y, point, vr - 2, [k, n], tb)?;
        // 8-bit integer operands widen to the `i32` result by their signedness.
        let elem = element_type(ctx, ctx.result(op, 0))?;
        let [a, b] = [(a, x), (b, y)].map(|(loaded, operand)| {
            if ctx.value_type(loaded) == elem {
                return loaded;
            }
            let ext = if is_unsigned(ctx, operand) {
                "extui"
            } else {
                "extsi"
            };
            e.arith(ctx, ext, &[loaded], elem)
        });
        self.multiply_accumulate(ctx, e, ctx.result(op, 0), init, &[(a, b)])
    }

    /// One step of a direct convolution (an implicit GEMM, domain `[N, O, OH, OW, C/G]`): for
    /// input channel `c'` of the group, `acc += Σ x[n, c, oh·sh + kh·dh, ow + kw·dw] ·
    /// w[o, c', kh, kw]` over the window's taps `(kh, kw)`, unrolled in the block, with
    /// `c = o / (O/G) · C/G + c'`. The window indices are computed here, from the loop point,
    /// with no division on the reduction's index: nothing is gathered.
    fn conv_block(
        &mut self,
        ctx: &mut Context,
        e: Emit,
        op: Op,
        init: Block,
        point: &Point,
    ) -> Result<(), String> {
        let conv = direct_conv(ctx, op).ok_or("a convolution that is not direct")?;
        let (window, groups, outputs) = (&conv.window, conv.groups, conv.outputs);
        let (x, w) = (ctx.operand(op, 0), ctx.operand(op, 1));
        let at = |a: usize| point[a].ok_or("a convolution axis is not in scope");
        let (n, o, oh, ow, c) = (at(0)?, at(1)?, at(2)?, at(3)?, at(4)?);
        let c_in = if groups == 1 {
            c
        } else {
            let per_group = self.index(ctx, outputs / groups);
            let g = e.arith(ctx, "divui", &[o, per_group], Type::INDEX);
            let base = self.scaled(ctx, e, g, window.input[1] / groups);
            e.arith(ctx, "addi", &[base, c], Type::INDEX)
        };
        let row = self.scaled(ctx, e, oh, window.strides[0]);
        let rows: Vec<Value> = (0..window.kh)
            .map(|kh| self.offset(ctx, e, row, kh * window.dilations[0]))
            .collect();
        let col = self.scaled(ctx, e, ow, window.strides[1]);
        let cols: Vec<Value> = (0..window.kw)
            .map(|kw| self.offset(ctx, e, col, kw * window.dilations[1]))
            .collect();
        let mut products = Vec::new();
        for (kh, &ih) in rows.iter().enumerate() {
            for (kw, &iw) in cols.iter().enumerate() {
                let (khv, kwv) = (self.index(ctx, kh as i64), self.index(ctx, kw as i64));
                let a = self.load_input(ctx, e, x, &[n, c_in, ih, iw])?;
                let b = self.load_input(ctx, e, w, &[o, c, khv, kwv])?;
                products.push((a, b));
            }
        }
        self.multiply_accumulate(ctx, e, ctx.result(op, 0), init, &products)
    }

    /// `v + d` on indices, without an op when `d` is 0.
    pub(super) fn offset(&mut self, ctx: &mut Context, e: Emit, v: Value, d: i64) -> Value {
        if d == 0 {
            return v;
        }
        let dv = self.index(ctx, d);
        e.arith(ctx, "addi", &[v, dv], Type::INDEX)
    }

    /// `v · s` on indices, without an op when `s` is 1.
    fn scaled(&mut self, ctx: &mut Context, e: Emit, v: Value, s: i64) -> Value {
        if s == 1 {
            return v;
        }
        let sv = self.index(ctx, s);
        e.arith(ctx, "muli", &[v, sv], Type::INDEX)
    }

    /// The body of a contraction's block: the init region zeroes the accumulator of `result`,
    /// the body adds each `a · b` of `products` to it in turn (`and`/`or` on booleans).
    fn multiply_accumulate(
        &mut self,
        ctx: &mut Context,
        e: Emit,
        result: Value,
        init: Block,
        products: &[(Value, Value)],
    ) -> Result<(), String> {
        let acc = self.storage[&result];
        let elem = element_type(ctx, result)?;
        let ie = Emit {
            at: before_terminator(ctx, init),
            loc: e.loc,
        };
        let zero = ie.constant(ctx, DenseValue::Int(0), elem);
        build_store(ctx, ie.at, zero, acc, &[], e.loc);
        let (mul, add) = match class(ctx, elem) {
            Class::Float => ("mulf", "addf"),
            Class::Int => ("muli", "addi"),
            Class::Bool => ("andi", "ori"),
        };
        let prods: Vec<Value> = products
            .iter()
            .map(|&(a, b)| e.arith(ctx, mul, &[a, b], elem))
            .collect();
        let mut sum = build_load(ctx, e.at, acc, &[], e.loc);
        for prod in prods {
            sum = e.arith(ctx, add, &[sum, prod], elem);
        }
        build_store(ctx, e.at, sum, acc, &[], e.loc);
        Ok(())
    }

    /// Loads one element of a matmul operand: batch dims broadcast against the result's
    /// `batch` leading axes, the last two dims walk `last` (swapped when `transposed`).
    #[allow(clippy::too_many_arguments)]
    fn matmul_operand(
        &mut self,
        ctx: &mut Context,
        e: Emit,
        v: Value,
        point: &Point,
        batch: usize,
        last: [usize; 2],
        transposed: bool,
    ) -> Result<Value, String> {
        let shape = self.shapes.shape(v).unwrap_or(&[]).to_vec();
        let rb = shape
            .len()
            .checked_sub(2)
            .ok_or("a matmul operand of rank < 2")?;
        let off = batch
            .checked_sub(rb)
            .ok_or("matmul batch dims do not broadcast")?;
        let mut idx = Vec::with_capacity(shape.len());
        for (i, dim) in shape[..rb].iter().enumerate() {
            idx.push(match (dim, point[off + i]) {
                (DimExpr::Static(1), _) | (_, None) => self.index(ctx, 0),
                (_, Some(iv)) => iv,
            });
        }
        let [p, q] = if transposed { [last[1], last[0]] } else { last };
        for a in [p, q] {
            idx.push(point[a].ok_or("a matmul axis is not in scope")?);
        }
        self.load_input(ctx, e, v, &idx)
    }

    /// The splat value of constant `op`, as a scalar at the kernel's start.
    fn splat(&mut self, ctx: &mut Context, op: Op) -> Result<Value, String> {
        let attr = ctx.attr(op, "value").ok_or("a constant without a value")?;
        let AttrKind::DenseElements(d) = ctx.attr_kind(attr) else {
            return Err("a constant without dense elements".into());
        };
        let value = ctx.dense_element(d, 0);
        let elem = element_type(ctx, ctx.result(op, 0))?;
        Ok(self.constant(ctx, value, elem))
    }

    /// A scalar constant at the kernel's start (one per type and value).
    pub(super) fn constant(&mut self, ctx: &mut Context, value: DenseValue, ty: Type) -> Value {
        let bits = match value {
            DenseValue::Int(i) => i as u128,
            DenseValue::Float(f) => f.to_bits() as u128 | 1 << 100,
        };
        if let Some(&v) = self.consts.get(&(ty, bits)) {
            return v;
        }
        let at = match self.last_const {
            Some(op) => InsertPoint::After(op),
            None => InsertPoint::Start(self.entry),
        };
        let e = Emit { at, loc: self.loc };
        let v = e.constant(ctx, value, ty);
        self.last_const = ctx.defining_op(v);
        self.consts.insert((ty, bits), v);
        v
    }

    /// An `index` constant.
    pub(super) fn index(&mut self, ctx: &mut Context, n: i64) -> Value {
        self.constant(ctx, DenseValue::Int(n.into()), Type::INDEX)
    }

    /// A dim as an `index` value: a constant or a symbol argument.
    pub(super) fn dim(&mut self, ctx: &mut Context, d: DimExpr) -> Value {
        match d {
            DimExpr::Static(n) => self.index(ctx, n),
            DimExpr::Symbol(s) => self.symbols[&s],
        }
    }

    /// Dim `axis` of tensor `v` as an `index` value.
    pub(super) fn dim_of(&mut self, ctx: &mut Context, v: Value, axis: usize) -> Value {
        let d = self.shapes.shape(v).map_or(DimExpr::Static(0), |s| s[axis]);
        self.dim(ctx, d)
    }

    /// The scratch register of movement op `op`.
    pub(super) fn scratch(&self, op: Op) -> Option<Value> {
        self.scratch.get(&op).copied()
    }
}

/// The element type buffers hold for tensor value `v`: its graph element type, with an
/// unsigned integer's signedness dropped (`ui8` → `i8`), since loop code computes on signless
/// integers and picks the unsigned ops itself ([`is_unsigned`]).
pub(super) fn element_type(ctx: &Context, v: Value) -> Result<Type, String> {
    tensor_parts(ctx, ctx.value_type(v))
        .map(|t| ctx.signless(t.element))
        .ok_or_else(|| "a non-tensor value".to_string())
}

/// True when tensor value `v` holds unsigned integers (`ui8` .. `ui64`).
pub(super) fn is_unsigned(ctx: &Context, v: Value) -> bool {
    tensor_parts(ctx, ctx.value_type(v)).is_some_and(|t| dlc_graph::verify::is_unsigned(t.element))
}

/// Maps each domain axis in `axes` to the matching block argument of `block`.
fn block_point(ctx: &Context, rank: usize, axes: &[usize], block: Block) -> Point {
    let mut point = vec![None; rank];
    for (i, &a) in axes.iter().enumerate() {
        point[a] = Some(ctx.block_args(block)[i]);
    }
    point
}

/// The loop-level reduction that graph reduction `red` performs on elements of class `cls`:
/// `i1` reduces as 0/1 and keeps `!= 0`, so sum, max and mean are "any", prod and min "all".
fn reduce_kind(red: Reduction, cls: Class) -> ReduceKind {
    match (cls, red) {
        (Class::Bool, Reduction::Sum | Reduction::Mean | Reduction::Max) => ReduceKind::Or,
        (Class::Bool, Reduction::Prod | Reduction::Min) => ReduceKind::And,
        (_, Reduction::Sum | Reduction::Mean) => ReduceKind::Add,
        (_, Reduction::Prod) => ReduceKind::Mul,
        (_, Reduction::Max) => ReduceKind::Max,
        (_, Reduction::Min) => ReduceKind::Min,
    }
}

/// The arith op (its name after `arith.`) that combines two elements of class `cls` under
/// `kind` ([`ReduceKind::float_combiner`], [`ReduceKind::int_combiner`]; booleans reduce as
/// integers).
fn combiner(kind: ReduceKind, cls: Class) -> &'static str {
    let float = (cls == Class::Float)
        .then(|| kind.float_combiner())
        .flatten();
    let name = float.unwrap_or_else(|| kind.int_combiner());
    name.trim_start_matches("arith.")
}

/// True for an unsigned max or min reduction, which `lower` computes as the signed one on
/// values with the sign bit flipped ([`flip_sign_bit`]): the flip maps unsigned order onto
/// signed order, so every loop-level reduction (identities, vector and GPU combiners) stays
/// signed, and reading the result flips it back.
fn flips_order(ctx: &Context, op: Op) -> bool {
    let minmax = ctx.view::<ReduceMaxOp>(op).is_some() || ctx.view::<ReduceMinOp>(op).is_some();
    minmax && is_unsigned(ctx, ctx.result(op, 0))
}

/// `x` with its sign bit flipped (`x xor 1 << (w - 1)`).
fn flip_sign_bit(ctx: &mut Context, e: Emit, x: Value) -> Value {
    let ty = ctx.value_type(x);
    let width = ctx.integer_width(ty).unwrap_or(64);
    let bit = e.constant(ctx, DenseValue::Int(-1i128 << (width - 1)), ty);
    e.arith(ctx, "xori", &[x, bit], ty)
}

/// True for a group member that the kernel computes (not a splat constant).
pub(super) fn is_computed(ctx: &Context, op: Op) -> bool {
    !(ctx.view::<ConstantOp>(op).is_some() && is_splat(ctx, op))
}
