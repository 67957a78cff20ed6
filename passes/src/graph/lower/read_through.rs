//! Movement ops read through: a `graph.transpose`, `slice`, `reshape` or `gather` whose every
//! consumer can compute its elements where it needs them gets no kernel and no buffer. Each
//! consumer's kernel loads an element from the op's operands at the index the op maps the
//! consumer's point to (`access.rs`), as it would have loaded it from the op's result; chains
//! of such ops compose (a gather, then a reshape, then a transpose is one index map).
//!
//! A consumer reads through when its kernel reads the value only with loads at computed
//! indices: an elementwise or reduction kernel (a fusion without a matmul or convolution, or
//! such an op alone), a data-movement kernel other than a pad's, or another op read through.
//! Not a matmul or convolution: their tiled, vectorized loads of contiguous rows would become
//! scalar loads at mapped indices in their innermost loop, where a transpose kernel before
//! them costs one pass over the data. The exception is an im2col convolution's window
//! gather read by its matmul's `B` operand, `f32` or 8-bit where `tile` computes the product
//! with `loop.dot4` or `loop.dot2` (on x86 CPUs, or as the `dot` option says): `tile` copies
//! each block of those gathered columns into a packed buffer column by column, so the gather
//! costs its loads in that copy, where a gather kernel wrote the columns to memory for the
//! product's packing to read back ([`packs_operand`]). qdq_convnet lowers to 6 kernels so,
//! against 9; nudenet_320n to 121 launches, against 148. Not a pad (its
//! producer writes it padded, `padded.rs`), a reshape that stays a host view (it needs the
//! buffer), a recurrence, a call, a return, or a gather's indices (the runtime checks those
//! in their buffer). A gather reads its data operand through only when its indices are a
//! constant whose every value is in range, since there is then no buffer for the runtime to
//! check them against and nothing to check. A gather is itself read through only when
//! data-movement kernels or packed `B` operands alone read it, through any chain: its loads
//! are at data-dependent indices, which `vectorize` leaves scalar, and an elementwise or
//! reduction consumer would lose its vector loop (nudenet_320n's max pools, reductions over
//! gathered windows, took 0.65 ms a launch so, against 0.15 for the gather kernel and the
//! vectorized reduction).
//!
//! A transpose that moves the innermost dim is read through only when its operand fits in a
//! 16th of the target CPU's L2 (32 KiB on a Zen 1 core; never on the GPU): the consumer's
//! innermost loop then reads it with a stride, and the lines it touches must stay cached.
//! magika's `[512, 256]` transpose read by a gather took 0.8 ms that way, against 0.3 for its
//! own kernel and the gather (`dlc-run --bench 30 --profile`, an "Intel(R) Xeon(R)
//! Processor"); silero_vad_seq's `[64, 32]` ones cost nothing measurable.
//!
//! A pad is read through only by direct depthwise convolutions, which load its operand with
//! `loop.load_padded` (`padded::read_by_convs` says when); its operand keeps its buffer.
//!
//! A reshape is a view of its operand's memory at no cost, so it is read through only when its
//! operand is, or when it only adds or removes unit dims and movement ops read it through.
//! Shapes must be static: the consumer's kernel then needs no sizes for the intermediate dims.

use super::host::Options;
use super::padded::{sole_reader, static_shape};
use super::plan::{i64_array, int_attr, kind_of, matmul_transposes, normalize_axis, Kind};
use super::Target;
use crate::loops::cpu::target::ByteDot;
use dlc_graph::ops::{ConstantOp, FusionOp, GatherOp, MatmulOp, PadOp, ReshapeOp, TransposeOp};
use dlc_graph::shapes::{DimExpr, SymbolicShapes};
use dlc_graph::{family_of, Family};
use dlc_ir::{AttrKind, Block, Context, Op, Type, Value};
use rustc_hash::FxHashSet;

/// The movement ops of `body` that its consumers read through; a transpose that moves the
/// innermost dim only when its operand takes at most `strided_bytes`; and the pads that
/// direct depthwise convolutions read padded on a CPU of `vector_bits` (0: none,
/// `padded::read_by_convs`).
pub(super) fn read_through(
    ctx: &Context,
    body: Block,
    shapes: &SymbolicShapes,
    options: &Options,
) -> FxHashSet<Op> {
    let (strided_bytes, vector_bits) = (options.strided_bytes, options.vector_bits);
    let cpu = options.target == Target::Cpu;
    let packs = |u: &dlc_ir::Use| cpu && packs_operand(ctx, shapes, u.user, u.operand, options.dot);
    let ops: Vec<Op> = ctx.block_ops(body).collect();
    // Consumers come after producers, so in reverse every consumer is decided first.
    let mut readable = FxHashSet::default();
    // Readable ops whose elements only data-movement kernels read, through any chain.
    let mut moved_only = FxHashSet::default();
    for &op in ops.iter().rev() {
        if super::padded::read_by_convs(ctx, op, vector_bits) {
            // Its convolutions load their input padded (`Kernel::load_padded`).
            readable.insert(op);
            continue;
        }
        if !candidate(ctx, shapes, op, strided_bytes) {
            continue;
        }
        let uses = ctx.uses(ctx.result(op, 0));
        let reads =
            |u: &dlc_ir::Use| reads_through(ctx, shapes, &readable, u.user, u.operand) || packs(u);
        if uses.is_empty() || !uses.iter().all(reads) {
            continue;
        }
        let moves = |u: &dlc_ir::Use| {
            let kernel = !readable.contains(&u.user) && kind_of(ctx, u.user) == Ok(Kind::Movement);
            kernel || moved_only.contains(&u.user) || packs(u)
        };
        let moved = uses.iter().all(moves);
        // A gather's loads are at data-dependent indices, which `vectorize` leaves scalar: read
        // through by data-movement kernels only, themselves scalar copies.
        if ctx.view::<GatherOp>(op).is_some() && !moved {
            continue;
        }
        readable.insert(op);
        if moved {
            moved_only.insert(op);
        }
    }
    let mut chosen = FxHashSet::default();
    for op in ops {
        if !readable.contains(&op) {
            continue;
        }
        let view_of_buffer = ctx.view::<ReshapeOp>(op).is_some()
            && !ctx
                .defining_op(ctx.operand(op, 0))
                .is_some_and(|d| chosen.contains(&d))
            && !(unit_dims_only(ctx, shapes, op)
                && ctx
                    .uses(ctx.result(op, 0))
                    .iter()
                    .all(|u| readable.contains(&u.user)));
        if !view_of_buffer {
            chosen.insert(op);
        }
    }
    chosen
}

/// Whether `user` reads its operand `operand` only as the `B` operand of a matmul whose
/// gathered columns the CPU's `tile` packs: an `f32` one, or an 8-bit one that `tile`
/// computes with `loop.dot4` or `loop.dot2` (`dot`, the CPU's and its `i32` lanes, as
/// [`ByteDot::for_product`] chooses: `acc += ext(A[i, k]) · ext(B[k, j])` into `i32`, over
/// at least a group of `k` steps); either
/// over a static `k` range and at least 16 columns, one matrix for every batch, its columns
/// gathered ([`gathered_columns`]). `tile` copies each block of such a `B` into a packed buffer
/// column by column, so a gather read through there costs its loads in that copy, where a
/// kernel of its own wrote the columns to memory and the copy read them back. `user` is the
/// matmul or a fusion whose only use of the operand is as its one matmul's `B`.
fn packs_operand(
    ctx: &Context,
    shapes: &SymbolicShapes,
    user: Op,
    operand: u32,
    dot: (ByteDot, i64),
) -> bool {
    let Some(matmul) = sole_reader(ctx, user, operand as usize, 1)
        .filter(|&op| ctx.view::<MatmulOp>(op).is_some())
    else {
        return false;
    };
    let parts = |v: Value| dlc_graph::tensor_parts(ctx, ctx.value_type(v));
    let (Some(a), Some(b), Some(c)) = (
        parts(ctx.operand(matmul, 0)),
        parts(ctx.operand(matmul, 1)),
        parts(ctx.result(matmul, 0)),
    ) else {
        return false;
    };
    let unsigned = dlc_graph::verify::is_unsigned;
    let (cpu_dot, lanes) = dot;
    let dot = cpu_dot.for_product(!unsigned(a.element), !unsigned(b.element), lanes);
    let bytes = dlc_graph::infer::is_byte(a.element)
        && dlc_graph::infer::is_byte(b.element)
        && dot != ByteDot::Widen
        && ctx.signless(c.element) == Type::I32;
    let floats = [a.element, b.element, c.element] == [Type::F32; 3];
    let shape = static_shape(shapes, ctx.operand(matmul, 1)).unwrap_or_default();
    // One matrix for every batch: a grouped convolution's columns, one matrix per group,
    // would be gathered per row of the tile, which the packing shares between rows.
    let sized = match shape[..] {
        [ref batch @ .., k, n] => {
            batch.iter().all(|&d| d == 1)
                && n >= 16
                && (floats || (bytes && k >= dot.group()))
                && gathered_columns(ctx, shapes, ctx.operand(user, operand as usize), n)
        }
        _ => false,
    };
    sized && matmul_transposes(ctx, matmul) == (false, false)
}

/// Whether `b`, a matmul's `B` operand of `n` columns, holds the columns of a gather through
/// a table whose last dim is the column, as an im2col convolution's does: reshapes that keep
/// the last dim, then a gather along its data's last axis with indices of `n` columns, whose
/// data has a buffer (reshapes of an op that is not read through). `tile` then finds each
/// column's index in a load of the table at the column; any other map of the column (a
/// division of it, a second gather) would leave the product untiled.
fn gathered_columns(ctx: &Context, shapes: &SymbolicShapes, b: Value, n: i64) -> bool {
    let last = |v: Value| static_shape(shapes, v).and_then(|s| s.last().copied());
    let through_reshapes = |mut v: Value| {
        while let Some(def) = ctx.defining_op(v) {
            if ctx.view::<ReshapeOp>(def).is_none() {
                return Some(def);
            }
            v = ctx.operand(def, 0);
        }
        None
    };
    let mut v = b;
    while let Some(def) = ctx
        .defining_op(v)
        .filter(|&d| ctx.view::<ReshapeOp>(d).is_some())
    {
        if last(v) != Some(n) {
            return false;
        }
        v = ctx.operand(def, 0);
    }
    let Some(gather) = ctx
        .defining_op(v)
        .filter(|&d| ctx.view::<GatherOp>(d).is_some())
    else {
        return false;
    };
    let (data, indices) = (ctx.operand(gather, 0), ctx.operand(gather, 1));
    let rank = static_shape(shapes, data).map_or(0, |s| s.len());
    let axis = normalize_axis(int_attr(ctx, gather, "axis").unwrap_or(0), rank);
    let movement = |op: Op| {
        matches!(
            family_of(ctx, op),
            Some(Family::Transpose | Family::Slice | Family::Gather)
        )
    };
    last(v) == Some(n)
        && rank > 0
        && axis == Ok(rank - 1)
        && last(indices) == Some(n)
        && !through_reshapes(data).is_some_and(movement)
}

/// True for a reshape that only adds or removes dims of size 1. Read through by movement ops,
/// it costs no division, and the chain then reads its operand's buffer, whose last dim is the
/// one its producer wrote: a `[1, C, W, 1]` view would leave the loads along `W` strided for
/// `vectorize`, which looks for the loop index in the last index.
fn unit_dims_only(ctx: &Context, shapes: &SymbolicShapes, op: Op) -> bool {
    let dims = |v: Value| -> Option<Vec<DimExpr>> {
        Some(
            shapes
                .shape(v)?
                .iter()
                .copied()
                .filter(|&d| d != DimExpr::Static(1))
                .collect(),
        )
    };
    let (x, y) = (dims(ctx.operand(op, 0)), dims(ctx.result(op, 0)));
    x.is_some() && x == y
}

/// True for a transpose, slice, reshape or gather with one result, its tensors of static
/// shapes; a transpose that moves the innermost dim only over at most `strided_bytes`.
fn candidate(ctx: &Context, shapes: &SymbolicShapes, op: Op, strided_bytes: u64) -> bool {
    let movement = matches!(
        family_of(ctx, op),
        Some(Family::Transpose | Family::Slice | Family::Reshape | Family::Gather)
    );
    movement
        && ctx.num_results(op) == 1
        && (ctx.view::<TransposeOp>(op).is_none()
            || keeps_inner_dim(ctx, shapes, op)
            || bytes(ctx, shapes, ctx.operand(op, 0)).is_some_and(|b| b <= strided_bytes))
        && ctx
            .operands(op)
            .iter()
            .copied()
            .filter(|&v| dlc_graph::tensor_parts(ctx, ctx.value_type(v)).is_some())
            .chain([ctx.result(op, 0)])
            .all(|v| static_shape(shapes, v).is_some())
}

/// Whether transpose `op` leaves the innermost dim of size above 1 innermost. One that moves
/// it makes a consumer's innermost loop read its operand with a stride, element by element,
/// where a transpose kernel of its own reads and writes in tiles (`tile-transpose`): cheap
/// only while the operand stays in cache.
fn keeps_inner_dim(ctx: &Context, shapes: &SymbolicShapes, op: Op) -> bool {
    let inner = |v: Value| {
        shapes
            .shape(v)
            .and_then(|s| s.iter().rposition(|&d| d != DimExpr::Static(1)))
    };
    let perm = i64_array(ctx, op, "perm");
    match (inner(ctx.result(op, 0)), inner(ctx.operand(op, 0))) {
        (Some(y), Some(x)) => perm.get(y) == Some(&(x as i64)),
        _ => true,
    }
}

/// Whether `user` reads its operand `operand` through, the operand's producer being a
/// candidate; `readable` holds the candidates decided so far (every later op).
fn reads_through(
    ctx: &Context,
    shapes: &SymbolicShapes,
    readable: &FxHashSet<Op>,
    user: Op,
    operand: u32,
) -> bool {
    if ctx.view::<GatherOp>(user).is_some() {
        return operand == 0 && constant_indices_in_range(ctx, shapes, user);
    }
    if ctx.view::<PadOp>(user).is_some() {
        // A pad read through loads its operand from that operand's buffer.
        return false;
    }
    if readable.contains(&user) {
        return true;
    }
    if ctx.view::<FusionOp>(user).is_some() {
        return fusion_reads_through(ctx, user, operand);
    }
    match kind_of(ctx, user) {
        Ok(Kind::Elementwise | Kind::Reduce) => true,
        Ok(Kind::Movement) => {
            ctx.view::<PadOp>(user).is_none() && ctx.view::<ReshapeOp>(user).is_none()
        }
        _ => false,
    }
}

/// Whether fusion `fusion` reads its operand `operand` only through its members' loads: no
/// member is a matmul or convolution, and the operand's block argument is not yielded as is.
fn fusion_reads_through(ctx: &Context, fusion: Op, operand: u32) -> bool {
    let Some(body) = ctx
        .regions(fusion)
        .first()
        .and_then(|&r| ctx.blocks(r).first().copied())
    else {
        return false;
    };
    let Some(&arg) = ctx.block_args(body).get(operand as usize) else {
        return false;
    };
    let yielded = super::padded::fusion_yields(ctx, fusion);
    let contracts = ctx
        .block_ops(body)
        .any(|op| matches!(kind_of(ctx, op), Ok(Kind::Matmul | Kind::Conv)));
    !contracts && !yielded.contains(&arg)
}

/// True when gather `op`'s indices are a constant, every value of which lies in `[-n, n)` for
/// the static size `n` of the gathered axis: no index needs checking at run time.
pub(super) fn constant_indices_in_range(ctx: &Context, shapes: &SymbolicShapes, op: Op) -> bool {
    constant_indices(ctx, shapes, op).is_some_and(|c| c.in_range)
}

/// What a gather's constant indices are known to be at compile time.
#[derive(Copy, Clone, Debug)]
pub(super) struct ConstantIndices {
    /// Every index lies in `[-n, n)` for the static size `n` of the gathered axis.
    pub in_range: bool,
    /// No index is negative (none needs wrapping from the end).
    pub non_negative: bool,
}

/// The facts about gather `op`'s indices when they are a constant and the gathered axis has
/// a static size, `None` otherwise.
pub(super) fn constant_indices(
    ctx: &Context,
    shapes: &SymbolicShapes,
    op: Op,
) -> Option<ConstantIndices> {
    let (x, indices) = (ctx.operand(op, 0), ctx.operand(op, 1));
    let shape = static_shape(shapes, x)?;
    let axis = normalize_axis(int_attr(ctx, op, "axis").unwrap_or(0), shape.len()).ok()?;
    let n = shape[axis] as i128;
    let dense = ctx
        .defining_op(indices)
        .filter(|&c| ctx.view::<ConstantOp>(c).is_some())
        .and_then(|c| ctx.attr(c, "value"))
        .and_then(|a| match ctx.attr_kind(a) {
            AttrKind::DenseElements(d) => Some(d),
            _ => None,
        })?;
    let count = static_shape(shapes, indices).and_then(|s| {
        s.iter()
            .try_fold(1usize, |acc, &d| acc.checked_mul(d.try_into().ok()?))
    })?;
    if count == 0 {
        return Some(ConstantIndices {
            in_range: true,
            non_negative: true,
        });
    }
    let (lo, hi) = ctx.dense_int_range(dense, count)?;
    Some(ConstantIndices {
        in_range: -n <= lo && hi < n,
        non_negative: lo >= 0,
    })
}

/// The bytes of tensor `v` of static shape.
fn bytes(ctx: &Context, shapes: &SymbolicShapes, v: Value) -> Option<u64> {
    let elem = dlc_graph::tensor_parts(ctx, ctx.value_type(v))?.element;
    let size = dlc_loop::elem_size_bytes(ctx, ctx.signless(elem))?;
    static_shape(shapes, v)?
        .iter()
        .try_fold(size, |acc, &d| acc.checked_mul(d.try_into().ok()?))
}
