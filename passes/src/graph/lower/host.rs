//! The host side of `lower`: a graph `func.func` becomes a host `func.func` over global
//! buffers that computes dynamic sizes, allocates every intermediate and output, and launches
//! one `loop.kernel` per fusion group (or unfused op), in program order.
//!
//! Sizes are per symbol of [`SymbolicShapes`]: a symbol of an argument is a `loop.dim` of it;
//! a symbol an op creates (a reshape's inferred dim, a concat or pad of a `?` axis, a fill's or
//! iota's size operand) is computed from its operands' sizes with index arithmetic, the way the
//! shape rule defines it; a size from data (`graph.read_size`) is a `loop.read_size` of the
//! buffer a kernel computed it in, and a dim of a call's result a `loop.dim` of it. Each size
//! is computed once, where it is first needed.

use super::control;
use super::kernel::{self, global_buffer};
use super::padded::{self, Padded};
use super::plan::{self, i64_array, int_attr, normalize_axis, Group, Kind};
use super::{Stats, Target};
use crate::loops::cpu::target::ByteDot;
use dlc_arith::{ArithOps, CmpIPredicate};
use dlc_func::ReturnOp;
use dlc_graph::ops::{ConstantOp, FusionOp, YieldOp};
use dlc_graph::shapes::{DimExpr, SymbolOrigin, SymbolicShapes};
use dlc_graph::sym_expr::{Def, Poly};
use dlc_graph::GraphOps;
use dlc_ir::{
    Block, Context, Diagnostic, InsertPoint, Location, Op, OpSpec, Type, Value, ValueMap,
};
use dlc_loop::KernelOp;
use rustc_hash::{FxHashMap, FxHashSet};

use super::element::Emit;

/// How `lower` builds kernels: the pass's options.
#[derive(Copy, Clone, Debug)]
pub(super) struct Options {
    pub target: Target,
    /// Write a result that is only padded into the pad's buffer (`padded.rs`).
    pub padded_outputs: bool,
    /// Compute movement ops in their consumers' kernels where they can (`read_through.rs`).
    pub read_through: bool,
    /// The largest operand of a transpose moving the innermost dim that is read through.
    pub strided_bytes: u64,
    /// Bits of the target CPU's SIMD registers, for the depthwise convolutions that read their
    /// padding (`padded::read_by_convs`); 0 for none (the GPU, or `padded-outputs` or
    /// `read-through` off).
    pub vector_bits: u32,
    /// How the target CPU's `tile` computes 8-bit products, and its `i32` lanes: with
    /// `loop.dot4` or `loop.dot2` it packs the `B` operand of an 8-bit matmul, which may then
    /// read a gather through (`read_through::packs_operand`).
    pub dot: (ByteDot, i64),
}

/// Lowers one graph function: builds the host function after it and its kernels before it,
/// then erases it.
pub(super) fn lower_function(
    ctx: &mut Context,
    func: Op,
    shapes: &SymbolicShapes,
    options: Options,
    stats: &mut Stats,
) -> Result<(), Diagnostic> {
    let loc = ctx.op_loc(func);
    let region = *ctx
        .regions(func)
        .first()
        .ok_or_else(|| err(loc, "a function without a body"))?;
    let blocks = ctx.blocks(region).to_vec();
    let [entry] = blocks[..] else {
        return Err(err(loc, "'lower' needs a function with one block"));
    };
    let name = dlc_ir::symbol::symbol_name(ctx, func)
        .unwrap_or("graph")
        .to_string();
    // The host function's signature: tensors become global buffers.
    let mut arg_types = Vec::new();
    for &a in ctx.block_args(entry).to_vec().iter() {
        arg_types.push(host_type(ctx, shapes, a).map_err(|m| err(loc, m))?);
    }
    let (host_region, host_entry) = ctx.create_region_with_block(&arg_types);
    let mut host = Host {
        shapes,
        options,
        func,
        entry: host_entry,
        map: ValueMap::new(),
        sizes: FxHashMap::default(),
        pending: Vec::new(),
        args: ctx.block_args(host_entry).to_vec(),
        name,
        stats,
        absorbed: FxHashSet::default(),
        read_through: FxHashMap::default(),
    };
    if options.read_through {
        let chosen = super::read_through::read_through(ctx, entry, shapes, &options);
        for op in chosen {
            host.read_through.insert(ctx.result(op, 0), op);
            host.stats.read_through += 1;
        }
    }
    for (&old, &new) in ctx.block_args(entry).to_vec().iter().zip(&host.args) {
        host.map.map(old, new);
    }
    // Those between two argument dims the runtime checks on the inputs (`loop.dim_symbols`).
    let argument = |s: u32| matches!(shapes.origin(s), Some(SymbolOrigin::Arg { .. }));
    host.pending = shapes
        .constraints()
        .iter()
        .copied()
        .filter(|&(a, b)| !(argument(a) && argument(b)))
        .collect();
    host.check_constraints(ctx, loc).map_err(|m| err(loc, m))?;
    let mut result_types = Vec::new();
    for op in ctx.block_ops(entry).collect::<Vec<_>>() {
        if ctx.view::<ReturnOp>(op).is_some() {
            let values: Vec<Value> = ctx
                .operands(op)
                .iter()
                .map(|v| host.map.lookup(*v))
                .collect();
            result_types = values.iter().map(|v| ctx.value_type(*v)).collect();
            let spec = OpSpec::new(ctx, "func.return", ctx.op_loc(op)).operands(&values);
            ctx.build(InsertPoint::End(host_entry), spec);
        } else {
            host.lower_op(ctx, op)?;
            host.check_constraints(ctx, loc).map_err(|m| err(loc, m))?;
        }
    }
    let fn_ty = ctx.function_type(&arg_types, &result_types);
    let ty_attr = ctx.type_attr(fn_ty);
    let mut spec = OpSpec::new(ctx, "func.func", loc).attr(ctx, "function_type", ty_attr);
    for attr in ctx.attrs(func).to_vec() {
        if ctx.ident_str(attr.name) != "function_type" {
            spec.attrs.push(attr);
        }
    }
    let spec = spec.region(host_region);
    let host_func = ctx.build(InsertPoint::After(func), spec);
    let graph_args = ctx.block_args(entry).to_vec();
    super::signature::record_dim_symbols(ctx, shapes, &graph_args, host_func);
    super::signature::record_source_type(ctx, func, host_func);
    ctx.erase_op(func);
    Ok(())
}

fn err(loc: Location, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::error(loc, msg)
}

/// The host type of a function argument: a global buffer for a tensor, else unchanged.
fn host_type(ctx: &mut Context, shapes: &SymbolicShapes, v: Value) -> Result<Type, String> {
    if dlc_graph::tensor_parts(ctx, ctx.value_type(v)).is_some() {
        global_buffer(ctx, shapes, v)
    } else {
        Ok(ctx.value_type(v))
    }
}

struct Host<'a> {
    shapes: &'a SymbolicShapes,
    options: Options,
    /// The graph function (kernels go before it).
    func: Op,
    entry: Block,
    /// Graph values to host values.
    map: ValueMap,
    /// Symbol sizes computed so far.
    sizes: FxHashMap<u32, Value>,
    /// Runtime equalities of symbols still to check (a side is not computed yet); those
    /// between two argument dims are the runtime's.
    pending: Vec<(u32, u32)>,
    args: Vec<Value>,
    name: String,
    stats: &'a mut Stats,
    /// Pads whose producer's kernel writes the padded buffer (`padded.rs`): nothing left to
    /// lower.
    absorbed: FxHashSet<Op>,
    /// Values (results, and the fusion arguments they feed) that their consumers' kernels
    /// compute by the movement op mapped to, which has no kernel (`read_through.rs`).
    read_through: FxHashMap<Value, Op>,
}

impl Host<'_> {
    fn at(&self) -> InsertPoint {
        InsertPoint::End(self.entry)
    }

    fn lower_op(&mut self, ctx: &mut Context, op: Op) -> Result<(), Diagnostic> {
        let read_through = ctx.results(op).any(|r| self.read_through.contains_key(&r));
        if self.absorbed.contains(&op) || read_through {
            return Ok(());
        }
        let loc = ctx.op_loc(op);
        let e = Emit { at: self.at(), loc };
        match GraphOps::of(ctx, op) {
            Some(GraphOps::ConstantOp(_)) => {
                let v = self.constant(ctx, op).map_err(|m| err(loc, m))?;
                self.map.map(ctx.result(op, 0), v);
            }
            Some(GraphOps::DimOp(_)) => {
                let x = ctx.operand(op, 0);
                let rank = self.shapes.shape(x).map_or(0, <[_]>::len);
                let axis = normalize_axis(int_attr(ctx, op, "axis").unwrap_or(0), rank)
                    .map_err(|m| err(loc, m))?;
                let v = dlc_loop::build_dim(ctx, e.at, self.map.lookup(x), axis, loc);
                self.map.map(ctx.result(op, 0), v);
            }
            Some(GraphOps::ReadSizeOp(_)) => {
                // A size from data: read on the host once the kernel computing it has run.
                let x = self.map.lookup(ctx.operand(op, 0));
                let v = dlc_loop::build_read_size(ctx, e.at, x, loc);
                self.map.map(ctx.result(op, 0), v);
            }
            Some(GraphOps::FusionOp(_)) => self.lower_fusion(ctx, op)?,
            Some(GraphOps::IfOp(_)) => self.lower_if(ctx, op)?,
            Some(GraphOps::LoopOp(_)) => self.lower_loop(ctx, op)?,
            Some(GraphOps::RnnOp(_)) => self.lower_rnn(ctx, op)?,
            Some(GraphOps::ReshapeOp(_)) => {
                // The same row-major elements in a new shape: the source's memory, no kernel.
                let y = ctx.result(op, 0);
                let ty = global_buffer(ctx, self.shapes, y).map_err(|m| err(loc, m))?;
                let mut sizes = Vec::new();
                for d in self.shapes.shape(y).unwrap_or(&[]).to_vec() {
                    if let DimExpr::Symbol(s) = d {
                        sizes.push(self.symbol(ctx, s, loc).map_err(|m| err(loc, m))?);
                    }
                }
                let source = self.map.lookup(ctx.operand(op, 0));
                let v = dlc_loop::build_reshape(ctx, e.at, source, &sizes, ty, loc);
                self.stats.host_reshapes += 1;
                self.map.map(y, v);
            }
            Some(_) => {
                let group = self.group(ctx, vec![op], vec![ctx.result(op, 0)]);
                self.launch(ctx, &group, op)?;
            }
            None if ArithOps::of(ctx, op).is_some() => {
                let clone = ctx.clone_op(op, &mut self.map);
                ctx.insert_op(e.at, clone);
            }
            None => {
                return Err(err(
                    loc,
                    format!(
                        "'lower' cannot lower '{}' in a graph function",
                        ctx.op_name(op)
                    ),
                ))
            }
        }
        Ok(())
    }

    /// Moves each region of control-flow op `op` into a function of its own, lowered to a
    /// host function (`control.rs`), named after this function and its `labels`; returns the
    /// names and the host values of the captures every one of them takes.
    fn callees(
        &mut self,
        ctx: &mut Context,
        op: Op,
        labels: &[&str],
    ) -> Result<(Vec<String>, Vec<Value>), Diagnostic> {
        let loc = ctx.op_loc(op);
        let mut captured = Vec::new();
        for &region in ctx.regions(op) {
            control::captures(ctx, region, &mut captured);
        }
        let module_block = ctx
            .op_block(self.func)
            .ok_or_else(|| err(loc, "a graph function outside a module"))?;
        let mut names = Vec::new();
        for (index, label) in labels.iter().enumerate() {
            let name = control::fresh_name(ctx, module_block, &format!("{}_{label}", self.name));
            let func = control::outline(ctx, op, index, name.clone(), self.func, &captured)?;
            let shapes = <SymbolicShapes as dlc_ir::pass::Analysis>::compute(ctx, func);
            lower_function(ctx, func, &shapes, self.options, self.stats)?;
            names.push(name);
        }
        self.stats.host_calls += 1;
        let args = captured.iter().map(|v| self.map.lookup(*v)).collect();
        Ok((names, args))
    }

    /// The host types of `op`'s results.
    fn result_types(&self, ctx: &mut Context, op: Op) -> Result<Vec<Type>, Diagnostic> {
        let loc = ctx.op_loc(op);
        ctx.results(op)
            .collect::<Vec<_>>()
            .into_iter()
            .map(|r| global_buffer(ctx, self.shapes, r).map_err(|m| err(loc, m)))
            .collect()
    }

    /// `graph.if` → `loop.call_if` of its two outlined branches.
    fn lower_if(&mut self, ctx: &mut Context, op: Op) -> Result<(), Diagnostic> {
        let loc = ctx.op_loc(op);
        let types = self.result_types(ctx, op)?;
        let (names, args) = self.callees(ctx, op, &["then", "else"])?;
        let cond = self.map.lookup(ctx.operand(op, 0));
        let call = dlc_loop::build_call_if(
            ctx,
            self.at(),
            cond,
            &args,
            &names[0],
            &names[1],
            &types,
            loc,
        );
        for (old, new) in ctx.results(op).zip(ctx.results(call)).collect::<Vec<_>>() {
            self.map.map(old, new);
        }
        Ok(())
    }

    /// `graph.loop` → `loop.call_loop` of its outlined body.
    fn lower_loop(&mut self, ctx: &mut Context, op: Op) -> Result<(), Diagnostic> {
        let loc = ctx.op_loc(op);
        let types = self.result_types(ctx, op)?;
        let (names, captures) = self.callees(ctx, op, &["body"])?;
        let operands: Vec<Value> = ctx
            .operands(op)
            .iter()
            .map(|v| self.map.lookup(*v))
            .collect();
        let [max_trip, cond, carried @ ..] = &operands[..] else {
            return Err(err(
                loc,
                "a 'graph.loop' without its trip count and condition",
            ));
        };
        let call = dlc_loop::build_call_loop(
            ctx,
            self.at(),
            *max_trip,
            *cond,
            carried,
            &captures,
            &names[0],
            &types,
            loc,
        );
        for (old, new) in ctx.results(op).zip(ctx.results(call)).collect::<Vec<_>>() {
            self.map.map(old, new);
        }
        Ok(())
    }

    /// A `loop.constant` buffer holding constant `op`'s value.
    fn constant(&mut self, ctx: &mut Context, op: Op) -> Result<Value, String> {
        let value = ctx.attr(op, "value").ok_or("a constant without a value")?;
        let value = ctx.dense_signless(value);
        let ty = global_buffer(ctx, self.shapes, ctx.result(op, 0))?;
        Ok(dlc_loop::build_constant(
            ctx,
            self.at(),
            value,
            ty,
            ctx.op_loc(op),
        ))
    }

    /// The kernel group of `ops` writing `outputs`: its inputs are the tensors the ops read
    /// from outside themselves, in order of first use, a value read through replaced by the
    /// inputs of its movement op (recursively).
    fn group(&self, ctx: &Context, ops: Vec<Op>, outputs: Vec<Value>) -> Group {
        let mut inputs = Vec::new();
        let mut read_through = FxHashMap::default();
        let mut pending = self.tensor_operands(ctx, &ops);
        pending.reverse();
        while let Some(v) = pending.pop() {
            match self.read_through.get(&v) {
                Some(&op) => {
                    read_through.insert(v, op);
                    pending.extend(self.tensor_operands(ctx, &[op]).into_iter().rev());
                }
                None if !inputs.contains(&v) => inputs.push(v),
                None => {}
            }
        }
        Group {
            ops,
            inputs,
            outputs,
            read_through,
        }
    }

    /// The tensors `ops` read from outside themselves, in order of first use.
    fn tensor_operands(&self, ctx: &Context, ops: &[Op]) -> Vec<Value> {
        let mut seen = Vec::new();
        for &op in ops {
            for &v in ctx.operands(op) {
                let inside = ctx.defining_op(v).is_some_and(|d| ops.contains(&d));
                let tensor = dlc_graph::tensor_parts(ctx, ctx.value_type(v)).is_some();
                if !inside && tensor && !seen.contains(&v) {
                    seen.push(v);
                }
            }
        }
        seen
    }

    fn lower_fusion(&mut self, ctx: &mut Context, fusion: Op) -> Result<(), Diagnostic> {
        let loc = ctx.op_loc(fusion);
        let body = ctx
            .regions(fusion)
            .first()
            .and_then(|&r| ctx.blocks(r).first().copied())
            .ok_or_else(|| err(loc, "a fusion without a body"))?;
        for (&arg, &operand) in ctx.block_args(body).iter().zip(ctx.operands(fusion)) {
            if let Some(&op) = self.read_through.get(&operand) {
                self.read_through.insert(arg, op);
            }
            let v = self.map.lookup(operand);
            self.map.map(arg, v);
        }
        let mut ops = Vec::new();
        let mut yielded = Vec::new();
        for op in ctx.block_ops(body).collect::<Vec<_>>() {
            if ctx.view::<YieldOp>(op).is_some() {
                yielded = ctx.operands(op).to_vec();
            } else {
                ops.push(op);
            }
        }
        // Non-splat constants are host buffers the kernel reads.
        let mut members = Vec::new();
        for &op in &ops {
            if ctx.view::<ConstantOp>(op).is_some() && !plan::is_splat(ctx, op) {
                let v = self.constant(ctx, op).map_err(|m| err(loc, m))?;
                self.map.map(ctx.result(op, 0), v);
            } else {
                members.push(op);
            }
        }
        let mut outputs = Vec::new();
        for &v in &yielded {
            let computed = ctx
                .defining_op(v)
                .is_some_and(|d| members.contains(&d) && kernel::is_computed(ctx, d));
            if computed && !outputs.contains(&v) {
                outputs.push(v);
            }
        }
        let group = self.group(ctx, members.clone(), outputs);
        let computing = members
            .iter()
            .filter(|&&op| kernel::is_computed(ctx, op))
            .count();
        match plan::plan(ctx, &group, self.shapes) {
            Ok(_) => self.launch(ctx, &group, fusion)?,
            Err(_) if computing > 1 => {
                // Ops that cannot share loops: one kernel each, intermediates in memory.
                self.stats.split_groups += 1;
                for &op in &members {
                    self.lower_op(ctx, op)?;
                }
            }
            Err(m) => return Err(err(loc, m)),
        }
        // Yielded splat constants and pass-through arguments are host values too.
        for &v in &yielded {
            if let Some(def) = ctx
                .defining_op(v)
                .filter(|&d| ctx.view::<ConstantOp>(d).is_some() && plan::is_splat(ctx, d))
            {
                let c = self.constant(ctx, def).map_err(|m| err(loc, m))?;
                self.map.map(v, c);
            }
        }
        for (i, &v) in yielded.iter().enumerate() {
            let host = self.map.lookup(v);
            self.map.map(ctx.result(fusion, i), host);
        }
        Ok(())
    }

    /// Plans and builds the kernel of `group`, allocates its outputs and launches it.
    fn launch(&mut self, ctx: &mut Context, group: &Group, anchor: Op) -> Result<(), Diagnostic> {
        let loc = ctx.op_loc(anchor);
        let plan = plan::plan(ctx, group, self.shapes).map_err(|m| err(loc, m))?;
        let computing = group
            .ops
            .iter()
            .filter(|op| plan.kind[op] != Kind::Splat)
            .count();
        let label = if computing > 1 {
            "fusion".to_string()
        } else {
            group
                .ops
                .iter()
                .find(|op| plan.kind[op] != Kind::Splat)
                .map_or("op".into(), |&op| plan::short_name(ctx, op).to_string())
        };
        let kernel_name = format!("{}_{}_{}", self.name, self.stats.kernels, label);
        let padded = self.padded_outputs(ctx, group, anchor);
        let request = kernel::Request {
            name: &kernel_name,
            group,
            plan: &plan,
            shapes: self.shapes,
            target: self.options.target,
            loc,
            padded: &padded,
        };
        let (kernel, built) = kernel::build(ctx, InsertPoint::Before(self.func), &request)
            .map_err(|m| err(loc, m))?;
        self.stats.kernels += 1;
        self.stats.blocks += built.blocks;
        self.stats.locals += built.locals;
        let mut args: Vec<Value> = group.inputs.iter().map(|v| self.map.lookup(*v)).collect();
        for &out in &group.outputs {
            // A padded result's buffer is its pad's, and the pad has no kernel of its own.
            let pad = padded.get(&out).map(|p| p.pad);
            let tensor = pad.map_or(out, |p| ctx.result(p, 0));
            let buf = self.allocate(ctx, tensor, loc).map_err(|m| err(loc, m))?;
            self.map.map(out, buf);
            self.map.map(tensor, buf);
            if let Some(pad) = pad {
                self.stats.padded_outputs += 1;
                self.absorbed.insert(pad);
            }
            args.push(buf);
        }
        for &s in &built.symbols {
            args.push(self.symbol(ctx, s, loc).map_err(|m| err(loc, m))?);
        }
        // Each tensor has its own buffer (an argument, a constant or a fresh allocation; a
        // `loop.reshape` is its source's), so a buffer argument is `loop.noalias` unless the
        // launch passes its buffer twice.
        let root = |v: Value| dlc_loop::reshape_root(ctx, v);
        let roots: Vec<Value> = args.iter().map(|&a| root(a)).collect();
        for (i, &a) in args.iter().enumerate() {
            if dlc_loop::is_buffer(ctx, ctx.value_type(a))
                && roots.iter().filter(|&&b| b == roots[i]).count() == 1
            {
                KernelOp(kernel).set_noalias(ctx, i, true);
            }
        }
        dlc_loop::build_launch(ctx, self.at(), &kernel_name, &args, loc);
        Ok(())
    }

    /// The outputs of `group` (launched for `anchor`) that are written into the buffer of the
    /// pad that consumes them ([`Padded::of`]), if the options ask for it.
    fn padded_outputs(&self, ctx: &Context, group: &Group, anchor: Op) -> FxHashMap<Value, Padded> {
        let mut padded = FxHashMap::default();
        if !self.options.padded_outputs {
            return padded;
        }
        // The value outside the kernel: the fusion's result that yields it, or itself.
        let yielded = ctx
            .view::<FusionOp>(anchor)
            .map(|_| padded::fusion_yields(ctx, anchor));
        for &out in &group.outputs {
            let outside = match &yielded {
                Some(values) => match padded::yielded_once(values, out) {
                    Some(i) => ctx.result(anchor, i),
                    None => continue,
                },
                None => out,
            };
            if let Some(p) = Padded::of(ctx, self.shapes, outside) {
                padded.insert(out, p);
            }
        }
        padded
    }

    /// Builds the one kernel of a `graph.rnn` (`recurrence`), allocates its results and
    /// launches it with the `?` sizes of its time and batch dims.
    fn lower_rnn(&mut self, ctx: &mut Context, op: Op) -> Result<(), Diagnostic> {
        let loc = ctx.op_loc(op);
        let name = format!("{}_{}_rnn", self.name, self.stats.kernels);
        let at = InsertPoint::Before(self.func);
        let built =
            super::recurrence::build(ctx, at, &name, op, self.shapes).map_err(|m| err(loc, m))?;
        self.stats.kernels += 1;
        let mut args: Vec<Value> = ctx
            .operands(op)
            .iter()
            .map(|v| self.map.lookup(*v))
            .collect();
        for r in ctx.results(op).collect::<Vec<_>>() {
            let buf = self.allocate(ctx, r, loc).map_err(|m| err(loc, m))?;
            self.map.map(r, buf);
            args.push(buf);
        }
        for (v, axis) in built.sizes {
            args.push(self.dim(ctx, v, axis, loc).map_err(|m| err(loc, m))?);
        }
        for (i, &a) in args.iter().enumerate() {
            if dlc_loop::is_buffer(ctx, ctx.value_type(a))
                && args.iter().filter(|&&b| b == a).count() == 1
            {
                KernelOp(built.kernel).set_noalias(ctx, i, true);
            }
        }
        dlc_loop::build_launch(ctx, self.at(), &name, &args, loc);
        Ok(())
    }

    /// A fresh global buffer for graph value `v`.
    fn allocate(&mut self, ctx: &mut Context, v: Value, loc: Location) -> Result<Value, String> {
        let ty = global_buffer(ctx, self.shapes, v)?;
        let mut sizes = Vec::new();
        for d in self.shapes.shape(v).unwrap_or(&[]).to_vec() {
            if let DimExpr::Symbol(s) = d {
                sizes.push(self.symbol(ctx, s, loc)?);
            }
        }
        Ok(dlc_loop::build_alloc(ctx, self.at(), ty, &sizes, loc))
    }

    /// Dim `axis` of graph value `v` on the host.
    fn dim(
        &mut self,
        ctx: &mut Context,
        v: Value,
        axis: usize,
        loc: Location,
    ) -> Result<Value, String> {
        let d = *self
            .shapes
            .shape(v)
            .and_then(|s| s.get(axis))
            .ok_or("a dim of a value without a shape")?;
        match d {
            DimExpr::Static(n) => Ok(Emit { at: self.at(), loc }.int(ctx, n, Type::INDEX)),
            DimExpr::Symbol(s) => self.symbol(ctx, s, loc),
        }
    }

    /// The size of symbol `s`, computed on first use.
    fn symbol(&mut self, ctx: &mut Context, s: u32, loc: Location) -> Result<Value, String> {
        if let Some(&v) = self.sizes.get(&s) {
            return Ok(v);
        }
        let v = match self
            .shapes
            .origin(s)
            .ok_or("an unknown size symbol")?
            .clone()
        {
            SymbolOrigin::Arg { arg, axis } => {
                let buf = *self
                    .args
                    .get(arg as usize)
                    .ok_or("a symbol of a missing argument")?;
                dlc_loop::build_dim(ctx, self.at(), buf, axis as usize, loc)
            }
            SymbolOrigin::Result { value, axis } => {
                self.result_size(ctx, value, axis as usize, loc)?
            }
            SymbolOrigin::Derived(def) => {
                let e = Emit { at: self.at(), loc };
                match &def {
                    Def::Poly(p) => self.poly_size(ctx, p, loc)?,
                    Def::Quotient(p, k) => {
                        let n = self.poly_size(ctx, p, loc)?;
                        let k = e.int(ctx, *k, Type::INDEX);
                        e.arith(ctx, "divsi", &[n, k], Type::INDEX)
                    }
                    Def::Max(a, b) | Def::Min(a, b) => {
                        let op = if matches!(def, Def::Max(..)) {
                            "maxsi"
                        } else {
                            "minsi"
                        };
                        let (a, b) = (self.poly_size(ctx, a, loc)?, self.poly_size(ctx, b, loc)?);
                        e.arith(ctx, op, &[a, b], Type::INDEX)
                    }
                }
            }
        };
        self.sizes.insert(s, v);
        Ok(v)
    }

    /// Checks the runtime equality constraints the kernels rely on as soon as both sides are
    /// known on the host: before any kernel runs for sizes derived from the arguments' dims
    /// (`(h + 1) / 2` against `2 * ((h + 3) / 4)` where an FPN adds two levels), right after
    /// the op that gives one for a size read from data: a `loop.check` of each pending one.
    fn check_constraints(&mut self, ctx: &mut Context, loc: Location) -> Result<(), String> {
        let mut pending = std::mem::take(&mut self.pending);
        let mut i = 0;
        while i < pending.len() {
            let (a, b) = pending[i];
            if !self.known(a) || !self.known(b) {
                i += 1;
                continue;
            }
            pending.swap_remove(i);
            let (x, y) = (self.symbol(ctx, a, loc)?, self.symbol(ctx, b, loc)?);
            let equal = Emit { at: self.at(), loc }.cmpi(ctx, CmpIPredicate::Eq, x, y);
            let mut definitions = Vec::new();
            self.describe(ctx, a, &mut definitions);
            self.describe(ctx, b, &mut definitions);
            let message = format!(
                "the input sizes do not fit the model: s{a} and s{b} must be equal ({})",
                definitions.join(", ")
            );
            dlc_loop::build_check(ctx, self.at(), equal, &message, loc);
        }
        self.pending = pending;
        Ok(())
    }

    /// True when the host can compute symbol `s` here: an argument's dim, the dim of a value
    /// already lowered, or a definition over such symbols.
    fn known(&self, s: u32) -> bool {
        match self.shapes.origin(s) {
            Some(SymbolOrigin::Arg { .. }) => true,
            Some(SymbolOrigin::Result { value, .. }) => self.map.lookup(*value) != *value,
            Some(SymbolOrigin::Derived(def)) => def.symbols().into_iter().all(|t| self.known(t)),
            None => false,
        }
    }

    /// `"s3 = (s1 + 1) / 2"` for `s` and the symbols it is defined by, down to the arguments'
    /// dims (with their `graph.dim_names`), each once, into `out`.
    fn describe(&self, ctx: &Context, s: u32, out: &mut Vec<String>) {
        let mut line = self.shapes.symbol_str(ctx, s);
        if let Some(&SymbolOrigin::Arg { arg, axis }) = self.shapes.origin(s) {
            let name = dlc_graph::shapes::arg_dim_name(ctx, self.func, arg as usize, axis as usize);
            if let Some(name) = name {
                line += &format!(" ('{name}')");
            }
        }
        if out.contains(&line) {
            return;
        }
        out.push(line);
        if let Some(SymbolOrigin::Derived(def)) = self.shapes.origin(s) {
            for t in def.symbols() {
                self.describe(ctx, t, out);
            }
        }
    }

    /// The value of polynomial `p` over the symbols' sizes.
    fn poly_size(&mut self, ctx: &mut Context, p: &Poly, loc: Location) -> Result<Value, String> {
        let mut total: Option<Value> = None;
        for (atoms, c) in p.terms() {
            let mut term: Option<Value> = None;
            for &a in atoms {
                let v = self.symbol(ctx, a, loc)?;
                let e = Emit { at: self.at(), loc };
                term = Some(match term {
                    Some(t) => e.arith(ctx, "muli", &[t, v], Type::INDEX),
                    None => v,
                });
            }
            let e = Emit { at: self.at(), loc };
            let term = match term {
                Some(t) if *c == 1 => t,
                Some(t) => {
                    let k = e.int(ctx, *c, Type::INDEX);
                    e.arith(ctx, "muli", &[t, k], Type::INDEX)
                }
                None => e.int(ctx, *c, Type::INDEX),
            };
            total = Some(match total {
                Some(t) => e.arith(ctx, "addi", &[t, term], Type::INDEX),
                None => term,
            });
        }
        Ok(total.unwrap_or_else(|| Emit { at: self.at(), loc }.int(ctx, 0, Type::INDEX)))
    }

    /// Dim `axis` of op result `value`, which the shape rule could not relate to its operands'
    /// symbols, computed from the op's definition.
    fn result_size(
        &mut self,
        ctx: &mut Context,
        value: Value,
        axis: usize,
        loc: Location,
    ) -> Result<Value, String> {
        let op = ctx.defining_op(value).ok_or("a size of a block argument")?;
        let e = Emit { at: self.at(), loc };
        match GraphOps::of(ctx, op) {
            Some(GraphOps::ReshapeOp(_)) if ctx.operands(op).len() > 1 => {
                // Given: the operand after the source for each -1 entry of `shape` up to `axis`.
                let k = i64_array(ctx, op, "shape")
                    .iter()
                    .take(axis)
                    .filter(|&&t| t == -1)
                    .count();
                let size = *ctx
                    .operands(op)
                    .get(1 + k)
                    .ok_or("reshape without its size operand")?;
                Ok(self.map.lookup(size))
            }
            Some(GraphOps::FillOp(_) | GraphOps::IotaOp(_)) => {
                let ty = dlc_graph::tensor_parts(ctx, ctx.value_type(value))
                    .ok_or("fill of a non-tensor")?;
                let k = ty.shape[..axis]
                    .iter()
                    .filter(|&&d| d == dlc_ir::DYNAMIC)
                    .count();
                let size = *ctx
                    .operands(op)
                    .get(k)
                    .ok_or("fill without its size operand")?;
                Ok(self.map.lookup(size))
            }
            Some(GraphOps::BroadcastToOp(_)) => Ok(e.int(ctx, 1, Type::INDEX)),
            // Known once the call returns: the size of the buffer it gave.
            Some(GraphOps::IfOp(_) | GraphOps::LoopOp(_)) => Ok(dlc_loop::build_dim(
                ctx,
                e.at,
                self.map.lookup(value),
                axis,
                loc,
            )),
            _ => Err(format!(
                "'lower' cannot compute dim {axis} of '{}' on the host",
                ctx.op_name(op)
            )),
        }
    }
}
