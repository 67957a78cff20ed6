//! The loop structure of one kernel, decided before any loop IR is built: the iteration domain,
//! which domain axis each dim of each value walks, and where each op's schedule block goes.
//!
//! A kernel iterates one *domain*: the result shape for elementwise and data-movement ops, the
//! input shape of the reductions for a reduction group, `[..batch, M, N, K]` for a matmul
//! group, and `[N, O, OH, OW, C/G]` for a direct convolution (its point loops nest
//! `n, oh, o, ow`). Its axes are *point* axes (loops around everything, parallel) or *reduce* axes.
//! Inside the point loops, ops run in *slots*: segment 0, reduce nest 0, segment 1, nest 1, ...
//! An op that walks a reduce axis (or is a reduction) goes in a nest; other ops go in a
//! segment. A reduction's result is ready in the segment after its nest, so a value broadcast
//! back over the reduced axes (`x - max(x)`) lands in the next nest: softmax is nest 0
//! (max), nest 1 (exp and sum), nest 2 (divide). A nest value read in a later nest is *spilled*
//! to a local buffer over the reduce axes; every other value lives in a register.
//!
//! Planning fails (and the caller lowers the group's ops one kernel each) when a value would be
//! read at a point other than the one it was computed at, which the fuse rules never produce
//! but hand-written fusions may.

use dlc_graph::decompose::direct_conv;
use dlc_graph::shapes::{DimExpr, SymbolicShapes};
use dlc_graph::{family_of, Family};
use dlc_ir::{AttrKind, Context, Op, Traits, Value};
use rustc_hash::{FxHashMap, FxHashSet};

/// The ops of one kernel.
pub(super) struct Group {
    /// Members in program order, splat constants included.
    pub ops: Vec<Op>,
    /// Tensors read from outside the group, in order: the kernel's first buffer arguments.
    pub inputs: Vec<Value>,
    /// Member results written to global buffers: the kernel's next buffer arguments.
    pub outputs: Vec<Value>,
    /// Values the members read that no kernel writes, each with the movement op that maps
    /// it to the inputs (`read_through.rs`): loaded from those wherever it is read.
    pub read_through: FxHashMap<Value, Op>,
}

/// What an op is to the planner.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(super) enum Kind {
    /// A splat `graph.constant`: an `arith.constant` wherever it is read.
    Splat,
    /// One element from the elements of its operands at the same point.
    Elementwise,
    /// `reduce_*` over the domain's reduce axes.
    Reduce,
    /// `matmul` over the last (K) domain axis.
    Matmul,
    /// A `conv2d` run as an implicit GEMM ([`direct_conv`]) over the last domain axis, the
    /// input channels of one group; the window's taps are unrolled in its block.
    Conv,
    /// Reshape, transpose, slice, concat, pad, gather, iota, fill: alone in a kernel, or read
    /// through by its consumers' kernels (`read_through.rs`).
    Movement,
}

impl Kind {
    /// True for the kinds whose result is complete only after their reduce nest: reductions
    /// and contractions.
    pub fn is_reduction(self) -> bool {
        matches!(self, Kind::Reduce | Kind::Matmul | Kind::Conv)
    }
}

/// Where an op's schedule block goes.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(super) enum Slot {
    Segment(usize),
    Nest(usize),
}

/// The plan of one kernel.
pub(super) struct Plan {
    /// The domain's dims.
    pub domain: Vec<DimExpr>,
    /// Per domain axis: is it a reduce axis?
    pub reduce: Vec<bool>,
    /// The point axes in the order their loops nest, outermost first: domain order, except
    /// that a convolution's output rows go outside its channels (`n, oh, o, ow`), so that the
    /// loop around the innermost point loop walks the weights' rows, as a matmul's does.
    pub point_order: Vec<usize>,
    /// The rank of the space values live in: the domain's, less a contraction's K axis.
    pub value_rank: usize,
    /// Per member op.
    pub kind: FxHashMap<Op, Kind>,
    /// Per member result: the domain axis each of its dims walks.
    pub axes: FxHashMap<Value, Vec<usize>>,
    /// Per non-splat member op.
    pub slot: FxHashMap<Op, Slot>,
    /// Nest values read in a later nest.
    pub spilled: FxHashSet<Value>,
    /// How many reduce nests there are.
    pub nests: usize,
}

impl Plan {
    /// The point (non-reduce) axes, in the order their loops nest.
    pub fn point_axes(&self) -> Vec<usize> {
        self.point_order.clone()
    }

    /// The reduce axes, in order.
    pub fn reduce_axes(&self) -> Vec<usize> {
        (0..self.domain.len()).filter(|&a| self.reduce[a]).collect()
    }

    /// True if `v` is computed inside the kernel (a non-splat member result).
    pub fn is_member(&self, v: Value) -> bool {
        self.axes.contains_key(&v)
    }
}

/// The kind of graph op `op`.
pub(super) fn kind_of(ctx: &Context, op: Op) -> Result<Kind, String> {
    let name = ctx.op_name(op);
    let fam = family_of(ctx, op).ok_or_else(|| format!("'{name}' is not a graph op"))?;
    // The kinds the ops' traits say, then the graph dialect's own distinctions.
    let traits = ctx.traits(op);
    Ok(match fam {
        _ if traits.contains(Traits::ELEMENTWISE) => Kind::Elementwise,
        _ if traits.contains(Traits::REDUCTION) => Kind::Reduce,
        Family::Matmul => Kind::Matmul,
        Family::Conv2d if direct_conv(ctx, op).is_some() => Kind::Conv,
        Family::Constant if is_splat(ctx, op) => Kind::Splat,
        f if f.is_data_movement() => Kind::Movement,
        f if f.is_composite() => {
            return Err(format!(
                "'{name}' is a composite op; run 'decompose' before 'lower'"
            ))
        }
        _ => return Err(format!("'{name}' cannot be lowered to a kernel")),
    })
}

/// The name of graph op `op` without its dialect (`add` for `graph.add`): the label of its
/// kernel and schedule blocks.
pub(super) fn short_name(ctx: &Context, op: Op) -> &str {
    let name = ctx.op_name(op);
    name.split_once('.').map_or(name, |(_, short)| short)
}

/// True for a `graph.constant` whose elements are all one value (stored as a splat).
pub(super) fn is_splat(ctx: &Context, op: Op) -> bool {
    ctx.attr(op, "value")
        .is_some_and(|a| matches!(ctx.attr_kind(a), AttrKind::DenseElements(d) if d.splat))
}

/// The `i64` array attribute `name` of `op`.
pub(super) fn i64_array(ctx: &Context, op: Op, name: &str) -> Vec<i64> {
    match ctx.attr(op, name).map(|a| ctx.attr_kind(a)) {
        Some(AttrKind::DenseArray { values, .. }) => values.to_vec(),
        _ => Vec::new(),
    }
}

/// The integer attribute `name` of `op` (booleans as 0/1).
pub(super) fn int_attr(ctx: &Context, op: Op, name: &str) -> Option<i64> {
    ctx.attr(op, name)
        .and_then(|a| ctx.attr_as_int(a))
        .map(|v| v as i64)
}

/// `axis` counted from the end when negative.
pub(super) fn normalize_axis(axis: i64, rank: usize) -> Result<usize, String> {
    let a = if axis < 0 { axis + rank as i64 } else { axis };
    usize::try_from(a)
        .ok()
        .filter(|&a| a < rank)
        .ok_or_else(|| format!("axis {axis} is out of range for rank {rank}"))
}

/// The reduced axes of reduction `op` over an operand of `rank`.
pub(super) fn reduced_axes(ctx: &Context, op: Op, rank: usize) -> Result<Vec<bool>, String> {
    let mut reduced = vec![false; rank];
    for a in i64_array(ctx, op, "axes") {
        reduced[normalize_axis(a, rank)?] = true;
    }
    Ok(reduced)
}

/// Matmul flags `transpose_a`, `transpose_b` ([`dlc_graph::ops::MatmulOp::transposes`]; false for
/// another op).
pub(super) fn matmul_transposes(ctx: &Context, op: Op) -> (bool, bool) {
    ctx.view::<dlc_graph::ops::MatmulOp>(op)
        .map_or((false, false), |m| m.transposes(ctx))
}

fn shape_of(shapes: &SymbolicShapes, v: Value) -> Result<Vec<DimExpr>, String> {
    shapes
        .shape(v)
        .map(<[DimExpr]>::to_vec)
        .ok_or_else(|| "a value without a tensor shape".to_string())
}

/// Plans `group`; the error says why its ops cannot share one loop structure.
pub(super) fn plan(ctx: &Context, group: &Group, shapes: &SymbolicShapes) -> Result<Plan, String> {
    let mut kind = FxHashMap::default();
    for &op in &group.ops {
        kind.insert(op, kind_of(ctx, op)?);
    }
    let computing: Vec<Op> = group
        .ops
        .iter()
        .copied()
        .filter(|op| kind[op] != Kind::Splat)
        .collect();
    if computing.len() > 1 && computing.iter().any(|op| kind[op] == Kind::Movement) {
        return Err("data-movement ops are lowered one kernel each".into());
    }
    let contractions = computing
        .iter()
        .filter(|op| matches!(kind[op], Kind::Matmul | Kind::Conv))
        .count();
    let has_conv = computing.iter().any(|op| kind[op] == Kind::Conv);
    if has_conv && contractions > 1 {
        return Err("a convolution shares its kernel with another contraction".into());
    }
    let (domain, reduce) = domain(ctx, &computing, &kind, shapes)?;
    let mut point_order: Vec<usize> = (0..domain.len()).filter(|&a| !reduce[a]).collect();
    if has_conv {
        point_order.swap(1, 2);
    }
    let mut plan = Plan {
        value_rank: domain.len() - usize::from(contractions > 0),
        domain,
        reduce,
        point_order,
        kind,
        axes: FxHashMap::default(),
        slot: FxHashMap::default(),
        spilled: FxHashSet::default(),
        nests: 0,
    };
    for &op in &computing {
        plan.place(ctx, op, shapes)?;
    }
    Ok(plan)
}

/// `[3, 5]`, `[?, 4]`: a shape for a message.
fn dims_text(dims: &[DimExpr]) -> String {
    let dims: Vec<String> = dims
        .iter()
        .map(|d| match d {
            DimExpr::Static(n) => n.to_string(),
            _ => "?".to_string(),
        })
        .collect();
    format!("[{}]", dims.join(", "))
}

/// The domain dims and reduce flags of a group.
fn domain(
    ctx: &Context,
    computing: &[Op],
    kind: &FxHashMap<Op, Kind>,
    shapes: &SymbolicShapes,
) -> Result<(Vec<DimExpr>, Vec<bool>), String> {
    if let Some(&c) = computing.iter().find(|op| kind[op] == Kind::Conv) {
        // [N, O, OH, OW] and the input channels of one group, `C/G`.
        let mut dims = shape_of(shapes, ctx.result(c, 0))?;
        let conv = direct_conv(ctx, c).ok_or("a convolution that is not direct")?;
        dims.push(DimExpr::Static(conv.window.input[1] / conv.groups));
        let reduce = vec![false, false, false, false, true];
        return Ok((dims, reduce));
    }
    if let Some(&m) = computing.iter().find(|op| kind[op] == Kind::Matmul) {
        let mut dims = shape_of(shapes, ctx.result(m, 0))?;
        let a = shape_of(shapes, ctx.operand(m, 0))?;
        let (ta, _) = matmul_transposes(ctx, m);
        let k = a[a.len() - if ta { 2 } else { 1 }];
        dims.push(k);
        let mut reduce = vec![false; dims.len()];
        reduce[dims.len() - 1] = true;
        return Ok((dims, reduce));
    }
    if let Some(&r) = computing.iter().find(|op| kind[op] == Kind::Reduce) {
        let dims = shape_of(shapes, ctx.operand(r, 0))?;
        let reduce = reduced_axes(ctx, r, dims.len())?;
        return Ok((dims, reduce));
    }
    // Elementwise or data movement: the numpy broadcast of the result shapes. Results that do
    // not broadcast to one nest are refused: a kernel over either shape would index the
    // other's buffers out of bounds.
    let results = computing
        .iter()
        .map(|&op| shape_of(shapes, ctx.result(op, 0)))
        .collect::<Result<Vec<_>, _>>()?;
    let dims = shapes
        .broadcast_nest(results.iter().map(Vec::as_slice))
        .map_err(|(dims, s)| {
            format!(
                "the results of one kernel do not broadcast to one loop nest: {} and {}",
                dims_text(&dims),
                dims_text(&s)
            )
        })?;
    let n = dims.len();
    Ok((dims, vec![false; n]))
}

impl Plan {
    /// Computes the axes and slot of `op`'s result.
    fn place(&mut self, ctx: &Context, op: Op, shapes: &SymbolicShapes) -> Result<(), String> {
        let d = self.domain.len();
        let result = ctx.result(op, 0);
        let rshape = shape_of(shapes, result)?;
        let identity: Vec<usize> = (0..d).collect();
        let axes = match self.kind[&op] {
            Kind::Reduce => {
                let x = ctx.operand(op, 0);
                if shape_of(shapes, x)?.len() != d
                    || reduced_axes(ctx, op, d)? != self.reduce
                    || self.differs_from_domain(ctx, op, shapes)?
                {
                    return Err("reductions over different loop nests".into());
                }
                self.check_read(x, &identity, d, shapes)?;
                if rshape.len() == d {
                    identity
                } else {
                    self.point_axes()
                }
            }
            Kind::Matmul => {
                self.operands_from_outside(ctx, op, "matmul")?;
                // Several matmuls (a horizontal fusion) share the nest only if they agree.
                let a = shape_of(shapes, ctx.operand(op, 0))?;
                let (ta, _) = matmul_transposes(ctx, op);
                let k = a[a.len() - if ta { 2 } else { 1 }];
                let same = |x: DimExpr, y: DimExpr| shapes.equal_under_constraints(x, y);
                if rshape.len() != d - 1
                    || !rshape.iter().zip(&self.domain).all(|(x, y)| same(*x, *y))
                    || !same(k, self.domain[d - 1])
                {
                    return Err("matmuls over different loop nests".into());
                }
                (0..d - 1).collect()
            }
            Kind::Conv => {
                self.operands_from_outside(ctx, op, "convolution")?;
                if rshape.len() != d - 1 {
                    return Err("a convolution over another loop nest".into());
                }
                (0..d - 1).collect()
            }
            Kind::Movement => identity,
            Kind::Elementwise => self.elementwise_axes(ctx, op, rshape.len(), shapes)?,
            Kind::Splat => return Ok(()),
        };
        if axes.len() != rshape.len() {
            return Err("a result whose rank does not fit the kernel's domain".into());
        }
        // Its dims must be the domain's at its axes (or broadcast ones): a result of another
        // `?` size than the nest it would share (a sum over one length added to a vector of
        // another) needs its own loops.
        if axes.iter().zip(&rshape).any(|(&a, &dim)| {
            dim != DimExpr::Static(1) && !shapes.equal_under_constraints(dim, self.domain[a])
        }) {
            return Err("a result whose dims differ from the kernel's domain".into());
        }
        let walks_reduce_axis = axes
            .iter()
            .zip(&rshape)
            .any(|(&a, &dim)| self.reduce[a] && dim != DimExpr::Static(1));
        let is_reduction = self.kind[&op].is_reduction();
        let slot = if is_reduction || walks_reduce_axis {
            let mut nest = 0;
            for v in self.member_operands(ctx, op) {
                nest = nest.max(match self.slot[&self.def(ctx, v)] {
                    Slot::Segment(k) => k,
                    Slot::Nest(n) if self.is_reduction_value(ctx, v) => n + 1,
                    Slot::Nest(n) => n,
                });
            }
            self.nests = self.nests.max(nest + 1);
            Slot::Nest(nest)
        } else {
            let mut seg = 0;
            for v in self.member_operands(ctx, op) {
                seg = seg.max(match self.slot[&self.def(ctx, v)] {
                    Slot::Segment(k) => k,
                    Slot::Nest(n) if self.is_reduction_value(ctx, v) => n + 1,
                    Slot::Nest(_) => {
                        return Err("a value walking a reduce axis read outside its nest".into())
                    }
                });
            }
            Slot::Segment(seg)
        };
        // A non-reduction nest value read in a later nest is kept in a local buffer.
        if let Slot::Nest(n) = slot {
            for v in self.member_operands(ctx, op) {
                if let Slot::Nest(m) = self.slot[&self.def(ctx, v)] {
                    if m < n && !self.is_reduction_value(ctx, v) {
                        self.spilled.insert(v);
                    }
                }
            }
        }
        self.axes.insert(result, axes);
        self.slot.insert(op, slot);
        Ok(())
    }

    /// Checks that no operand of contraction `op` (a `what`) is computed in the kernel: its
    /// block loads them from the kernel's inputs.
    fn operands_from_outside(&self, ctx: &Context, op: Op, what: &str) -> Result<(), String> {
        if !self.member_operands(ctx, op).is_empty() {
            return Err(format!("a {what} operand computed in the same kernel"));
        }
        Ok(())
    }

    /// True if reduction `op` has an operand shape that differs from the domain's (so it
    /// needs another loop nest).
    fn differs_from_domain(
        &self,
        ctx: &Context,
        op: Op,
        shapes: &SymbolicShapes,
    ) -> Result<bool, String> {
        let x = shape_of(shapes, ctx.operand(op, 0))?;
        Ok(x.iter()
            .zip(&self.domain)
            .any(|(a, b)| !shapes.equal_under_constraints(*a, *b)))
    }

    /// The axes of an elementwise result of rank `rank`: from its member operands where they
    /// walk an axis, else the domain's trailing axes (numpy alignment).
    fn elementwise_axes(
        &self,
        ctx: &Context,
        op: Op,
        rank: usize,
        shapes: &SymbolicShapes,
    ) -> Result<Vec<usize>, String> {
        let d = self.value_rank;
        if rank > d {
            return Err("a result of higher rank than the kernel's domain".into());
        }
        let mut axes: Vec<usize> = (d - rank..d).collect();
        let mut from_operand = vec![false; rank];
        for &v in ctx.operands(op) {
            let Some(vaxes) = self.axes.get(&v) else {
                continue;
            };
            let vshape = shape_of(shapes, v)?;
            let off = rank - vshape.len();
            for (i, &dim) in vshape.iter().enumerate() {
                if dim == DimExpr::Static(1) {
                    continue;
                }
                if from_operand[off + i] && axes[off + i] != vaxes[i] {
                    return Err("operands walk different axes at one dim".into());
                }
                axes[off + i] = vaxes[i];
                from_operand[off + i] = true;
            }
        }
        for &v in ctx.operands(op) {
            self.check_read(v, &axes, rank, shapes)?;
        }
        Ok(axes)
    }

    /// Checks that member `v`, read by a consumer whose result dims walk `axes` (rank `rank`),
    /// is read at the point it was computed at.
    fn check_read(
        &self,
        v: Value,
        axes: &[usize],
        rank: usize,
        shapes: &SymbolicShapes,
    ) -> Result<(), String> {
        let Some(vaxes) = self.axes.get(&v) else {
            return Ok(());
        };
        let vshape = shape_of(shapes, v)?;
        let Some(off) = rank.checked_sub(vshape.len()) else {
            return Err("an operand of higher rank than its consumer".into());
        };
        for (i, &dim) in vshape.iter().enumerate() {
            if dim != DimExpr::Static(1) && vaxes[i] != axes[off + i] {
                return Err("a value read at another point than it was computed at".into());
            }
        }
        Ok(())
    }

    /// The operands of `op` computed in the kernel.
    fn member_operands(&self, ctx: &Context, op: Op) -> Vec<Value> {
        ctx.operands(op)
            .iter()
            .copied()
            .filter(|v| self.is_member(*v))
            .collect()
    }

    fn def(&self, ctx: &Context, v: Value) -> Op {
        ctx.defining_op(v).expect("members are op results")
    }

    /// True if member `v` is the result of a reduction (complete only after its nest).
    pub fn is_reduction_value(&self, ctx: &Context, v: Value) -> bool {
        ctx.defining_op(v).is_some_and(|op| {
            matches!(
                self.kind.get(&op),
                Some(kind) if kind.is_reduction()
            )
        })
    }
}
