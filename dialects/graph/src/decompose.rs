//! Decompositions of the composite graph ops into primitives.
//!
//! Every composite (`graph.softmax`, `graph.conv2d`, `graph.sdpa`, ...) is spelled with
//! primitive ops by a function here, which its op definition names (`decompose = ...` in
//! [`crate::ops`]; all of them: [`DECOMPOSITIONS`]). Passes that only understand primitives
//! (fusion, lowering) run [`decompose_all`] first; the interpreter runs composites by their own
//! reference semantics, so the two can be compared (`tests/library/decompose_differential.rs`).
//!
//! The ops are built through [`GraphBuilder`], which creates graph ops by name and attribute
//! names and computes result types with the shape rules of the spec, so the decompositions need
//! nothing from the op definitions but their names. Scalars (`eps`, `0.5`, `√2`) become
//! `graph.constant` splats of the operand's element type, shaped all-ones with the operand's
//! rank so they broadcast against it.
//!
//! Convolutions and pools are expanded im2col-style with a single `graph.gather` over the
//! flattened spatial axis (the gathered indices are a compile-time constant), which keeps batch
//! and channel dims free to be dynamic; their spatial dims (and the weights) must be static.
//! Padding is one element after the flattened axis, holding the padding value, which the
//! window positions in the border read.

use crate::ops::{ConstantOp, Conv2dOp, Family, GraphOps, ReshapeOp};
use dlc_ir::attributes::{AttrKind, DenseValue};
use dlc_ir::{Attribute, Context, InsertPoint, Location, Op, OpSpec, Type, Value, DYNAMIC};

/// A decomposition: builds primitives through the builder (positioned before `op`) and returns
/// the values that replace `op`'s results, or `None` when this instance cannot be decomposed
/// (say, a convolution over dynamic spatial dims).
pub type DecomposeFn = fn(&mut GraphBuilder<'_>, Op) -> Option<Vec<Value>>;

/// Every composite op and its decomposition: the `decompose` entries of the op definitions
/// ([`GraphOps::DECOMPOSITIONS`]).
pub const DECOMPOSITIONS: &[(&str, DecomposeFn)] = GraphOps::DECOMPOSITIONS;

/// The decomposition of the composite op called `name`, if it is one (for names a user gives,
/// as the `keep` option of `decompose`; [`GraphOps::decomposition`] for an op).
pub fn decomposition(name: &str) -> Option<DecomposeFn> {
    // Op name compared because the name is text a user gave, not an op.
    DECOMPOSITIONS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, f)| *f)
}

/// True if `name` is a composite op (one with a decomposition).
pub fn is_composite(name: &str) -> bool {
    decomposition(name).is_some()
}

/// The decomposition of `op`, if it is a composite.
fn decomposition_of(ctx: &Context, op: Op) -> Option<DecomposeFn> {
    GraphOps::of(ctx, op)?.decomposition()
}

/// True for the ops after which a last-bit float difference may become a large one: `floor`,
/// `ceil`, `round`, `sign`, `cmp`, `argmax`/`argmin`, `rem`, `pow`, and a `cast` from a float to
/// a non-float type.
fn is_discontinuous(ctx: &Context, op: Op) -> bool {
    use GraphOps as G;
    match GraphOps::of(ctx, op) {
        Some(
            G::FloorOp(_)
            | G::CeilOp(_)
            | G::RoundOp(_)
            | G::SignOp(_)
            | G::CmpOp(_)
            | G::ArgMaxOp(_)
            | G::ArgMinOp(_)
            | G::RemOp(_)
            | G::PowOp(_),
        ) => true,
        Some(G::CastOp(_)) => float_to_int(ctx, op),
        _ => false,
    }
}

/// True when, in `func`, a discontinuous op (`floor`, `ceil`, `round`, `sign`, `cmp`,
/// `argmax`/`argmin`, `rem`, `pow`, or a `cast` from a float to a non-float type) depends on
/// the result of a composite op. Decomposing or compiling a composite changes its results in
/// the last bits, and such an op can turn that into a large difference, so differential tests
/// compare the results of these functions by count, dtype and shape only.
pub fn discontinuous_after_composite(ctx: &Context, func: Op) -> bool {
    let mut tainted: rustc_hash::FxHashSet<Value> = rustc_hash::FxHashSet::default();
    let mut found = false;
    ctx.for_each_op(func, &mut |op| {
        let depends = decomposition_of(ctx, op).is_some()
            || ctx.operands(op).iter().any(|v| tainted.contains(v));
        if !depends {
            return;
        }
        tainted.extend(ctx.results(op));
        found |= is_discontinuous(ctx, op);
    });
    found
}

/// True for a `graph.cast` from a float element type to a non-float one.
fn float_to_int(ctx: &Context, op: Op) -> bool {
    let is_float = |v| {
        ctx.float_kind(ctx.element_type(ctx.value_type(v)))
            .is_some()
    };
    is_float(ctx.operand(op, 0)) && !is_float(ctx.result(op, 0))
}

/// Builds the primitive expansion of the composite `op` just before it and returns the values
/// that replace its results; the caller replaces and erases `op`. `None` when `op` is not a
/// composite or this instance cannot be decomposed (nothing is built then).
pub fn decompose_op(ctx: &mut Context, op: Op) -> Option<Vec<Value>> {
    let f = decomposition_of(ctx, op)?;
    let loc = ctx.op_loc(op);
    if let Some(empty) = empty_results(ctx, op) {
        return Some(empty);
    }
    let mut b = GraphBuilder::new(ctx, InsertPoint::Before(op), loc);
    let mut values = f(&mut b, op)?;
    // The op's declared result types are at least as precise as the ones the builder inferred
    // (a `?` the verifier accepted may be known statically): the last op built takes them, so
    // the users of `op` see the types they were verified against.
    for (i, v) in values.iter_mut().enumerate() {
        let declared = ctx.value_type(ctx.result(op, i));
        if ctx.value_type(*v) != declared {
            if ctx
                .defining_op(*v)
                .is_some_and(|d| d != op && ctx.num_results(d) == 1)
            {
                ctx.set_value_type(*v, declared);
            } else {
                // A value that is also used elsewhere keeps its type; reshape it into place.
                let shape: Vec<i64> = ctx.shape(declared)?.to_vec();
                let mut b = GraphBuilder::new(ctx, InsertPoint::Before(op), loc);
                let attr = b.shape_array(&shape);
                *v = b.build_one("graph.reshape", &[*v], vec![("shape", attr)], declared);
            }
        }
    }
    Some(values)
}

/// When every result of `op` is a tensor of static shape with no element (a window larger than
/// its padded input), `graph.fill`s of those shapes: nothing to compute, whatever the op.
fn empty_results(ctx: &mut Context, op: Op) -> Option<Vec<Value>> {
    let types: Vec<Type> = ctx.results(op).map(|r| ctx.value_type(r)).collect();
    let empty = |t: &Type| {
        ctx.shape(*t)
            .is_some_and(|s| !s.contains(&DYNAMIC) && s.contains(&0))
    };
    if types.is_empty() || !types.iter().all(empty) {
        return None;
    }
    let loc = ctx.op_loc(op);
    let mut values = Vec::with_capacity(types.len());
    for ty in types {
        let elem = ctx.element_type(ty);
        let zero = if ctx.float_kind(elem).is_some() {
            ctx.float_attr(0.0, elem)
        } else {
            ctx.integer_attr(0, elem)
        };
        let mut b = GraphBuilder::new(ctx, InsertPoint::Before(op), loc);
        values.push(b.build_one("graph.fill", &[], vec![("value", zero)], ty));
    }
    Some(values)
}

/// Decomposes every composite op nested in `root`, returning how many were decomposed.
pub fn decompose_all(ctx: &mut Context, root: Op) -> usize {
    let mut composites = Vec::new();
    ctx.for_each_op(root, &mut |op| {
        if decomposition_of(ctx, op).is_some() {
            composites.push(op);
        }
    });
    let mut count = 0;
    for op in composites {
        if let Some(values) = decompose_op(ctx, op) {
            ctx.replace_op(op, &values);
            count += 1;
        }
    }
    count
}

// ---------------------------------------------------------------------------------------------
// The decompositions, in the order of `DECOMPOSITIONS`.

/// softmax(x) = exp(x - max(x)) / sum(exp(x - max(x))), max-subtracted for stability.
pub(crate) fn softmax(b: &mut GraphBuilder<'_>, op: Op) -> Option<Vec<Value>> {
    let x = b.ctx.operand(op, 0);
    let axis = b.axis_attr(op, "axis", b.rank(x), -1)?;
    Some(vec![b.softmax(x, axis)])
}

/// argmax(x) = the first index along `axis` where `x` equals its maximum, or is NaN (the
/// maximum then is NaN, and the first NaN wins, as numpy has it); argmin likewise with the
/// minimum: `reduce_min(select(x == max(x) | x != x, position, i64::MAX))`. The index nest
/// reads the finished maximum as softmax's second nest does, so both reductions share one
/// kernel and vectorize, where a fused compare-and-select chain per element would not.
pub(crate) fn arg_reduction(b: &mut GraphBuilder<'_>, op: Op) -> Option<Vec<Value>> {
    let x = b.ctx.operand(op, 0);
    let rank = b.rank(x);
    let axis = b.axis_attr(op, "axis", rank, 0)?;
    let keepdim = b.rank(b.ctx.result(op, 0)) == rank;
    let max = matches!(GraphOps::of(b.ctx, op), Some(GraphOps::ArgMaxOp(_)));
    let extreme = if max {
        "graph.reduce_max"
    } else {
        "graph.reduce_min"
    };
    let m = b.reduce(extreme, x, &[axis], true);
    let mut hit = b.cmp("eq", x, m);
    if b.is_float(x) {
        let nan = b.cmp("ne", x, x);
        hit = b.binary("graph.or", hit, nan);
    }
    // The positions along the axis, `[1, .., D, .., 1]`.
    let d = b.shape(x)[axis as usize];
    let mut dims = vec![1; rank];
    dims[axis as usize] = d;
    let ty = b.ctx.tensor_type(&dims, Type::I64);
    let a = b.i64_attr(axis);
    let sizes = if d == DYNAMIC {
        vec![b.build_one("graph.dim", &[x], vec![("axis", a)], Type::INDEX)]
    } else {
        Vec::new()
    };
    let at = b.build_one("graph.iota", &sizes, vec![("axis", a)], ty);
    let scalar = b.ctx.tensor_type(&[], Type::I64);
    let none = b.constant(scalar, &[DenseValue::Int(i64::MAX as i128)]);
    let candidates = b.select(hit, at, none);
    Some(vec![b.reduce(
        "graph.reduce_min",
        candidates,
        &[axis],
        keepdim,
    )])
}

/// log_softmax(x) = (x - max) - log(sum(exp(x - max))).
pub(crate) fn log_softmax(b: &mut GraphBuilder<'_>, op: Op) -> Option<Vec<Value>> {
    let x = b.ctx.operand(op, 0);
    let axis = b.axis_attr(op, "axis", b.rank(x), -1)?;
    let m = b.reduce("graph.reduce_max", x, &[axis], true);
    let d = b.binary("graph.sub", x, m);
    let e = b.unary("graph.exp", d);
    let s = b.reduce("graph.reduce_sum", e, &[axis], true);
    let l = b.unary("graph.log", s);
    Some(vec![b.binary("graph.sub", d, l)])
}

/// layer_norm(x) = (x - mean) · rsqrt(var + eps) · gamma + beta over the axes from `axis` on.
pub(crate) fn layer_norm(b: &mut GraphBuilder<'_>, op: Op) -> Option<Vec<Value>> {
    let operands = b.ctx.operands(op).to_vec();
    let x = operands[0];
    let rank = b.rank(x);
    let axis = b.axis_attr(op, "axis", rank, -1)?;
    let eps = b.f64_attr(op, "epsilon").unwrap_or(1e-5);
    let axes: Vec<i64> = (axis..rank as i64).collect();
    let mean = b.reduce("graph.reduce_mean", x, &axes, true);
    let d = b.binary("graph.sub", x, mean);
    let d2 = b.binary("graph.mul", d, d);
    let var = b.reduce("graph.reduce_mean", d2, &axes, true);
    let eps = b.scalar_like(eps, var);
    let v = b.binary("graph.add", var, eps);
    let r = b.unary("graph.rsqrt", v);
    let mut y = b.binary("graph.mul", d, r);
    if let Some(&gamma) = operands.get(1) {
        y = b.binary("graph.mul", y, gamma);
    }
    if let Some(&beta) = operands.get(2) {
        y = b.binary("graph.add", y, beta);
    }
    Some(vec![y])
}

/// rms_norm(x) = x · rsqrt(mean(x²) + eps) · gamma over the axes from `axis` on.
pub(crate) fn rms_norm(b: &mut GraphBuilder<'_>, op: Op) -> Option<Vec<Value>> {
    let operands = b.ctx.operands(op).to_vec();
    let x = operands[0];
    let rank = b.rank(x);
    let axis = b.axis_attr(op, "axis", rank, -1)?;
    let eps = b.f64_attr(op, "epsilon").unwrap_or(1e-6);
    let axes: Vec<i64> = (axis..rank as i64).collect();
    let x2 = b.binary("graph.mul", x, x);
    let ms = b.reduce("graph.reduce_mean", x2, &axes, true);
    let eps = b.scalar_like(eps, ms);
    let v = b.binary("graph.add", ms, eps);
    let r = b.unary("graph.rsqrt", v);
    let mut y = b.binary("graph.mul", x, r);
    if let Some(&gamma) = operands.get(1) {
        y = b.binary("graph.mul", y, gamma);
    }
    Some(vec![y])
}

/// gelu(x) = 0.5·x·(1 + erf(x/√2)), or with `approximate = "tanh"`
/// 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).
pub(crate) fn gelu(b: &mut GraphBuilder<'_>, op: Op) -> Option<Vec<Value>> {
    let x = b.ctx.operand(op, 0);
    let approximate = b
        .ctx
        .attr(op, "approximate")
        .and_then(|a| b.ctx.attr_as_str(a).map(str::to_string));
    let inner = match approximate.as_deref() {
        None | Some("none") => {
            let sqrt2 = b.scalar_like(std::f64::consts::SQRT_2, x);
            let s = b.binary("graph.div", x, sqrt2);
            b.unary("graph.erf", s)
        }
        Some("tanh") => {
            let x2 = b.binary("graph.mul", x, x);
            let x3 = b.binary("graph.mul", x2, x);
            let c = b.scalar_like(0.044715, x);
            let cx3 = b.binary("graph.mul", x3, c);
            let s = b.binary("graph.add", x, cx3);
            let k = b.scalar_like((2.0 / std::f64::consts::PI).sqrt(), x);
            let ks = b.binary("graph.mul", s, k);
            b.unary("graph.tanh", ks)
        }
        Some(_) => return None,
    };
    let one = b.scalar_like(1.0, x);
    let p = b.binary("graph.add", inner, one);
    let xp = b.binary("graph.mul", x, p);
    let half = b.scalar_like(0.5, x);
    Some(vec![b.binary("graph.mul", xp, half)])
}

/// silu(x) = x · sigmoid(x).
pub(crate) fn silu(b: &mut GraphBuilder<'_>, op: Op) -> Option<Vec<Value>> {
    let x = b.ctx.operand(op, 0);
    let s = b.unary("graph.sigmoid", x);
    Some(vec![b.binary("graph.mul", x, s)])
}

/// linear(x, w, b) = x·w + b with w: [K, N].
pub(crate) fn linear(b: &mut GraphBuilder<'_>, op: Op) -> Option<Vec<Value>> {
    let operands = b.ctx.operands(op).to_vec();
    let (x, w) = (operands[0], operands[1]);
    if b.rank(w) != 2 || b.rank(x) == 0 {
        return None;
    }
    let mut y = if b.rank(x) == 1 {
        // matmul wants rank ≥ 2: a vector is a one-row matrix.
        let row = b.reshape(x, &[1, -1]);
        let y = b.matmul(row, w);
        let n = b.shape(w)[1];
        b.reshape(y, &[if n == DYNAMIC { -1 } else { n }])
    } else {
        b.matmul(x, w)
    };
    if let Some(&bias) = operands.get(2) {
        y = b.binary("graph.add", y, bias);
    }
    Some(vec![y])
}

/// conv2d (NCHW, weights OIHW). A float one that runs direct ([`Window::runs_direct`]) is a padding
/// (`graph.pad`) and an unpadded conv2d, which stays whole (see [`direct_conv`]). Otherwise
/// im2col: pad, flatten the spatial axes, gather every window position with one constant index
/// table (`[KH·KW, OH·OW]`; a 1x1 window with unit strides needs no gather), and multiply by
/// the weights reshaped to `[G, O/G, C/G·KH·KW]`; groups fall out of the reshapes as a batch
/// dim. With several images and fewer than [`DIRECT_MIN_COLUMNS`] output pixels each, the
/// images' columns go side by side (`[G, C/G·KH·KW, N·OH·OW]`) for one wide matmul.
pub(crate) fn conv2d(b: &mut GraphBuilder<'_>, op: Op) -> Option<Vec<Value>> {
    let (x, w) = (b.ctx.operand(op, 0), b.ctx.operand(op, 1));
    let Conv {
        window,
        groups,
        outputs: o,
    } = Conv::of(b.ctx, op)?;
    if window.dynamic() && is_byte_conv(b.ctx, op) {
        return None; // im2col needs static windows
    }
    let positions = window.kh * window.kw;
    if window.dynamic()
        && window.strides[1] != 1
        && groups == 1
        && (2..=STRIDED_WINDOWS_MAX_POSITIONS).contains(&positions)
    {
        return Some(vec![strided_windows_conv(b, op, &window)]);
    }
    if window.runs_direct(groups) && !is_byte_conv(b.ctx, op) {
        if window.padding == [0; 4] {
            return None;
        }
        let xp = window.pad(b, x, 0.0);
        let attrs = vec![
            ("strides", b.i64_array(&window.strides)),
            ("dilations", b.i64_array(&window.dilations)),
            ("groups", b.i64_attr(groups)),
        ];
        let ty = b.ctx.value_type(b.ctx.result(op, 0));
        return Some(vec![b.build_one("graph.conv2d", &[xp, w], attrs, ty)]);
    }
    let [n, c, _, _] = window.input;
    let l = window.oh * window.ow;
    let kk = window.kh * window.kw;
    let batch = if n == DYNAMIC { -1 } else { n };
    let cols = if kk == 1 && window.strides == [1, 1] {
        window.pad(b, x, 0.0) // every pixel is its own window
    } else {
        window.padded_gather(b, x, 0.0) // [N, C, KK, L]
    };
    let cols = b.reshape(cols, &[batch, groups, c / groups * kk, l]);
    let wr = b.reshape(w, &[groups, o / groups, c / groups * kk]);
    if n != 1 && l < DIRECT_MIN_COLUMNS {
        // Few output columns per image (a 1-D convolution over a short window: 5 columns
        // for each of 32 frames): the images' columns side by side make one matmul of `N·L`
        // columns that `tile` blocks, where `N` matmuls of `L` columns would run scalar.
        let side = b.transpose(cols, &[1, 2, 0, 3]); // [G, C/G·KK, N, L]
        let side = b.reshape(side, &[groups, c / groups * kk, -1]);
        let columns = if n == DYNAMIC { DYNAMIC } else { n * l };
        let y = narrow_matmul(b, wr, side, columns, o / groups); // [G, O/G, N·L]
        let y = b.reshape(y, &[groups, o / groups, batch, l]);
        let y = b.transpose(y, &[2, 0, 1, 3]); // [N, G, O/G, L]
        return Some(vec![b.reshape(y, &[batch, o, window.oh, window.ow])]);
    }
    let y = narrow_matmul(b, wr, cols, l, o / groups); // [N, G, O/G, L]
    Some(vec![b.reshape(y, &[batch, o, window.oh, window.ow])])
}

/// The largest window [`strided_windows_conv`] takes apart: each position is a slice and a
/// copy. openWakeWord's mel front end, an STFT as a 1x400 conv with stride 160 over a `?`
/// length, took 2.8 s to compile and 2.4 ms a run as 400 slices, 0.3 s and 0.75 ms direct.
const STRIDED_WINDOWS_MAX_POSITIONS: i64 = 9;

/// A float conv2d with one group, a column stride above 1, a window of at most
/// [`STRIDED_WINDOWS_MAX_POSITIONS`] positions and output dims known only at run time, where
/// no index table can list the windows (im2col) and a direct conv would read strided columns
/// one element at a time: the `KH·KW` window positions of the padded input as
/// strided slices (`[N, C, OH, OW]` each) side by side along the channels, then one 1x1 conv
/// with unit strides (which runs direct, as an implicit GEMM) over them with the weights
/// reordered to match (`[O, C, KH, KW]` → `[O, KH·KW·C, 1, 1]`). YOLOv8n over `?` dims:
/// 90 ms a run direct, 28–36 ms this way (21 ms with pinned sizes, through im2col); PaddleOCR
/// det's first conv (3 channels): 11.9–12.4 ms a run this way, 12.5–14.7 ms direct
/// (`dlc-run --bench`, "Intel(R) Xeon(R) Processor").
fn strided_windows_conv(b: &mut GraphBuilder<'_>, op: Op, window: &Window) -> Value {
    let (x, w) = (b.ctx.operand(op, 0), b.ctx.operand(op, 1));
    let xp = window.pad(b, x, 0.0);
    let positions = window.slices(b, xp);
    // [N, KH·KW·C, OH, OW], and the weights [O, C, KH, KW] → [O, KH, KW, C] → [O, KH·KW·C, 1, 1]
    let columns = b.concat(&positions, 1);
    let o = b.shape(w)[0];
    let wr = reordered(b, w, &[0, 2, 3, 1], Some(&[o, -1, 1, 1]));
    let attrs = vec![
        ("strides", b.i64_array(&[1, 1])),
        ("dilations", b.i64_array(&[1, 1])),
        ("groups", b.i64_attr(1)),
    ];
    let ty = b.ctx.value_type(b.ctx.result(op, 0));
    b.build_one("graph.conv2d", &[columns, wr], attrs, ty)
}

/// `x` transposed by `perm`, then reshaped to `shape` (one -1 allowed) when given. A constant
/// `x` is reordered here, once, into a new constant (its bytes moved, not decoded), rather than
/// by a kernel at every run (its own op is erased when nothing else uses it); anything else
/// gets `graph.transpose` (and `graph.reshape`) ops.
fn reordered(b: &mut GraphBuilder<'_>, x: Value, perm: &[i64], shape: Option<&[i64]>) -> Value {
    let dims = b.shape(x);
    let transposed: Vec<i64> = perm.iter().map(|&p| dims[p as usize]).collect();
    let target = match shape {
        Some(shape) => reshape_shape(&transposed, shape),
        None => transposed,
    };
    let ty = b.tensor(&target, b.elem(x));
    let folded = constant_value(b.ctx, x).and_then(|value| {
        let shape = dims
            .iter()
            .map(|&d| usize::try_from(d).ok())
            .collect::<Option<Vec<_>>>()?;
        let perm: Vec<usize> = perm.iter().map(|&p| p as usize).collect();
        b.ctx.dense_transposed(value, &shape, &perm, ty)
    });
    let Some(value) = folded else {
        let xt = b.transpose(x, perm);
        return shape.map_or(xt, |shape| b.reshape(xt, shape));
    };
    let folded = b.build_one("graph.constant", &[], vec![("value", value)], ty);
    if let Some(dead) = b.ctx.defining_op(x).filter(|_| b.ctx.uses(x).is_empty()) {
        b.ctx.erase_op(dead);
    }
    folded
}

/// The dense value of `v` when it is a `graph.constant`, or reshapes of one (a reshape keeps
/// the row-major bytes).
fn constant_value(ctx: &Context, v: Value) -> Option<Attribute> {
    let def = ctx.defining_op(v)?;
    if ctx.view::<ConstantOp>(def).is_some() {
        ctx.attr(def, "value")
    } else if ctx.view::<ReshapeOp>(def).is_some() {
        constant_value(ctx, ctx.operand(def, 0))
    } else {
        None
    }
}

/// `wr · cols` over the last two dims. With fewer `columns` than 16 (a vector of `f32` on
/// AVX-512) and at least 16 `rows`, as `(colsᵀ · wrᵀ)ᵀ`: its 16 or more columns are what
/// `tile` blocks, where the narrow product would run scalar (a short-time Fourier transform
/// as a 1-D convolution: 257 frequencies by 8 frames).
fn narrow_matmul(
    b: &mut GraphBuilder<'_>,
    wr: Value,
    cols: Value,
    columns: i64,
    rows: i64,
) -> Value {
    if columns == DYNAMIC || columns >= 16 || rows < 16 {
        return b.matmul(wr, cols);
    }
    let swap_last = |rank: usize| -> Vec<i64> {
        let mut perm: Vec<i64> = (0..rank as i64).collect();
        perm.swap(rank - 2, rank - 1);
        perm
    };
    let (rc, rw) = (b.rank(cols), b.rank(wr));
    let ct = b.transpose(cols, &swap_last(rc));
    let wt = reordered(b, wr, &swap_last(rw), None);
    let yt = b.matmul(ct, wt);
    let ry = b.rank(yt);
    b.transpose(yt, &swap_last(ry))
}

/// A `graph.conv2d` with static spatial dims, channels and weights that match them.
pub struct Conv {
    /// Its window: input, kernel, strides, dilations, padding, output size.
    pub window: Window,
    /// The `groups` attribute (1 when absent).
    pub groups: i64,
    /// The output channels (`O`, the weights' first dim).
    pub outputs: i64,
}

impl Conv {
    /// The geometry of conv2d `op`; `None` for dynamic spatial dims, channels or weights,
    /// groups that do not divide them, or malformed attributes.
    pub(crate) fn of(ctx: &Context, op: Op) -> Option<Conv> {
        let (x, w) = (ctx.operand(op, 0), ctx.operand(op, 1));
        let window = Window::of(ctx, op, x, Some(w))?;
        let groups = int_attr(ctx, op, "groups").unwrap_or(1);
        let ws = shape(ctx, w);
        let c = window.input[1];
        let matches = ws.len() == 4
            && !ws.contains(&DYNAMIC)
            && c != DYNAMIC
            && groups >= 1
            && c % groups == 0
            && ws[0] % groups == 0
            && ws[1] * groups == c;
        matches.then_some(Conv {
            window,
            groups,
            outputs: ws[0],
        })
    }
}

/// The `graph.conv2d` ops that decompositions leave whole for the loop lowering to run as an
/// implicit GEMM (a direct loop nest computing its window indices in the loop): unpadded ones
/// that [`Window::runs_direct`]. `None` for any other op.
pub fn direct_conv(ctx: &Context, op: Op) -> Option<Conv> {
    if ctx.view::<Conv2dOp>(op).is_none() || ctx.operands(op).len() != 2 {
        return None;
    }
    Conv::of(ctx, op).filter(|conv| {
        conv.window.padding == [0; 4]
            && conv.window.runs_direct(conv.groups)
            && !is_byte_conv(ctx, op)
    })
}

/// True for a convolution of 8-bit integers: it always runs as im2col, whose byte `matmul`
/// `tile` computes with the CPU's dot-product instructions.
fn is_byte_conv(ctx: &Context, op: Op) -> bool {
    let byte =
        |i: usize| crate::infer::is_byte(ctx.element_type(ctx.value_type(ctx.operand(op, i))));
    ctx.operands(op).len() == 2 && byte(0) && byte(1)
}

/// Output columns from which a convolution runs direct: at least two vectors of AVX-512 (four
/// of AVX2) per output row for `tile`'s register tile; narrower rows keep the whole map as the
/// columns of an im2col matmul (a 1x1 convolution over 10x10 pixels: 100 columns, not 10).
pub const DIRECT_MIN_COLUMNS: i64 = 32;

/// max_pool2d: pad with -∞ (the type's minimum for integers, 0 for unsigned ones), gather the
/// windows, reduce_max.
pub(crate) fn max_pool2d(b: &mut GraphBuilder<'_>, op: Op) -> Option<Vec<Value>> {
    let x = b.ctx.operand(op, 0);
    let window = Window::of(b.ctx, op, x, None)?;
    let low = match b.ctx.any_integer(b.elem(x)) {
        None => f64::NEG_INFINITY,
        Some((_, true)) => 0.0,
        Some((bits, false)) => -(2f64.powi(bits as i32 - 1)),
    };
    if window.dynamic() {
        let xp = window.pad(b, x, low);
        let slices = window.slices(b, xp);
        return Some(vec![fold_binary(b, "graph.max", slices)]);
    }
    let cols = window.padded_gather(b, x, low);
    let m = b.reduce("graph.reduce_max", cols, &[2], false);
    window.unflatten(b, m)
}

/// `op(op(v0, v1), v2)...` over `values` (at least one).
fn fold_binary(b: &mut GraphBuilder<'_>, op: &str, values: Vec<Value>) -> Value {
    let mut values = values.into_iter();
    let first = values.next().expect("a window has at least one position");
    values.fold(first, |acc, v| b.binary(op, acc, v))
}

/// avg_pool2d: the sum over each window divided by the number of unpadded elements in it,
/// computed by pooling a zero-padded mask of ones the same way.
pub(crate) fn avg_pool2d(b: &mut GraphBuilder<'_>, op: Op) -> Option<Vec<Value>> {
    let x = b.ctx.operand(op, 0);
    let window = Window::of(b.ctx, op, x, None)?;
    if window.dynamic() {
        let xp = window.pad(b, x, 0.0);
        let slices = window.slices(b, xp);
        let sum = fold_binary(b, "graph.add", slices);
        let count = if window.padding == [0; 4] {
            b.splat((window.kh * window.kw) as f64, b.elem(x), &[])
        } else {
            // The unpadded elements of each window: the same sum over a padded mask of ones.
            let [_, _, h, w] = window.input;
            let mut sizes = Vec::new();
            for (axis, d) in [(2usize, h), (3, w)] {
                if d == DYNAMIC {
                    sizes.push(b.dim(x, axis));
                }
            }
            let one = b.scalar_attr(1.0, b.elem(x));
            let ty = b.ctx.tensor_type(&[1, 1, h, w], b.elem(x));
            let ones = b.build_one("graph.fill", &sizes, vec![("value", one)], ty);
            let mask = window.pad(b, ones, 0.0);
            let slices = window.slices(b, mask);
            fold_binary(b, "graph.add", slices)
        };
        return Some(vec![b.binary("graph.div", sum, count)]);
    }
    let cols = window.padded_gather(b, x, 0.0);
    let sum = b.reduce("graph.reduce_sum", cols, &[2], false); // [N, C, L]
    let [_, _, h, w] = window.input;
    let ones = b.splat(1.0, b.elem(x), &[1, 1, h, w]);
    let mask = window.pad(b, ones, 0.0);
    let mask = window.gather(b, mask);
    let count = b.reduce("graph.reduce_sum", mask, &[2], false); // [1, 1, L]
    let avg = b.binary("graph.div", sum, count);
    window.unflatten(b, avg)
}

/// sdpa(q, k, v, mask) = softmax(q·kᵀ·scale + mask)·v over the last two dims.
pub(crate) fn sdpa(b: &mut GraphBuilder<'_>, op: Op) -> Option<Vec<Value>> {
    let operands = b.ctx.operands(op).to_vec();
    let (q, k, v) = (operands[0], operands[1], operands[2]);
    let rank = b.rank(k);
    if rank < 2 {
        return None;
    }
    let scale = match b.f64_attr(op, "scale") {
        Some(s) => s,
        None => {
            let d = *b.shape(q).last()?;
            if d == DYNAMIC {
                return None;
            }
            1.0 / (d as f64).sqrt()
        }
    };
    let mut perm: Vec<i64> = (0..rank as i64).collect();
    perm.swap(rank - 2, rank - 1);
    let kt = b.transpose(k, &perm);
    let s = b.matmul(q, kt);
    let c = b.scalar_like(scale, s);
    let mut s = b.binary("graph.mul", s, c);
    if let Some(&mask) = operands.get(3) {
        s = b.binary("graph.add", s, mask);
    }
    let last = b.rank(s) as i64 - 1;
    let p = b.softmax(s, last);
    Some(vec![b.matmul(p, v)])
}

/// The geometry of a 2-d window op (conv or pool) over an NCHW input.
pub struct Window {
    /// The input shape (any dim may be [`DYNAMIC`]).
    pub input: [i64; 4],
    /// The window's height and width.
    pub kh: i64,
    pub kw: i64,
    /// Row and column strides.
    pub strides: [i64; 2],
    /// Row and column dilations.
    pub dilations: [i64; 2],
    /// top, left, bottom, right.
    pub padding: [i64; 4],
    /// The output's height and width ([`DYNAMIC`] over a dynamic input dim).
    pub oh: i64,
    pub ow: i64,
}

impl Window {
    /// Reads the attributes of `op` over input `x`; the kernel comes from `weights` (OIHW) or
    /// the `kernel` attribute. `None` for a dynamic kernel or malformed attributes.
    pub fn of(ctx: &Context, op: Op, x: Value, weights: Option<Value>) -> Option<Window> {
        let input: [i64; 4] = shape(ctx, x).try_into().ok()?;
        let (kh, kw) = match weights {
            Some(w) => {
                let ws = shape(ctx, w);
                (*ws.get(2)?, *ws.get(3)?)
            }
            None => {
                let k = array_attr(ctx, op, "kernel")?;
                match k[..] {
                    [k] => (k, k),
                    [kh, kw] => (kh, kw),
                    _ => return None,
                }
            }
        };
        let pair = |name: &str, default: [i64; 2]| -> Option<[i64; 2]> {
            match array_attr(ctx, op, name).as_deref() {
                None => Some(default),
                Some([v]) => Some([*v, *v]),
                Some([a, c]) => Some([*a, *c]),
                Some(_) => None,
            }
        };
        let strides = pair("strides", if weights.is_some() { [1, 1] } else { [kh, kw] })?;
        let dilations = pair("dilations", [1, 1])?;
        let padding = match array_attr(ctx, op, "padding").as_deref() {
            None => [0; 4],
            Some([p]) => [*p; 4],
            Some([ph, pw]) => [*ph, *pw, *ph, *pw],
            Some([t, l, bo, r]) => [*t, *l, *bo, *r],
            Some(_) => return None,
        };
        let [_, _, h, w] = input;
        if kh == DYNAMIC || kw == DYNAMIC {
            return None;
        }
        if strides.iter().chain(&dilations).any(|s| *s < 1) || padding.iter().any(|p| *p < 0) {
            return None;
        }
        let out = |size: i64, lo: i64, hi: i64, k: i64, s: i64, d: i64| {
            if size == DYNAMIC {
                return Some(DYNAMIC);
            }
            let span = size + lo + hi - d * (k - 1) - 1;
            (span >= 0).then(|| span / s + 1)
        };
        let oh = out(h, padding[0], padding[2], kh, strides[0], dilations[0])?;
        let ow = out(w, padding[1], padding[3], kw, strides[1], dilations[1])?;
        Some(Window {
            input,
            kh,
            kw,
            strides,
            dilations,
            padding,
            oh,
            ow,
        })
    }

    /// True when a conv over this window runs direct, as an implicit GEMM: a column stride of
    /// 1 (an output row's input columns are then contiguous) and either one channel per group
    /// (depthwise: as im2col, each group would be a one-row matmul) or output rows of at least
    /// [`DIRECT_MIN_COLUMNS`].
    pub fn runs_direct(&self, groups: i64) -> bool {
        self.dynamic()
            || (self.strides[1] == 1 && (groups == self.input[1] || self.ow >= DIRECT_MIN_COLUMNS))
    }

    /// True when an output dim is known only at run time: no index table can list the
    /// windows, so a conv runs direct (any stride) and a pool reads strided slices.
    pub fn dynamic(&self) -> bool {
        self.oh == DYNAMIC || self.ow == DYNAMIC
    }

    /// The `KH·KW` window positions of the padded `xp` as strided slices `[N, C, OH, OW]`, for
    /// dynamic output dims: position `(i, j)` starts at `(i·dh, j·dw)` and ends as many
    /// elements before the end as the window reaches past it, so every slice has `OH` rows
    /// and `OW` columns whatever the size.
    fn slices(&self, b: &mut GraphBuilder<'_>, xp: Value) -> Vec<Value> {
        let (reach_h, reach_w) = (
            self.dilations[0] * (self.kh - 1),
            self.dilations[1] * (self.kw - 1),
        );
        let end = |reach: i64, at: i64| if reach == at { i64::MAX } else { at - reach };
        let mut out = Vec::with_capacity((self.kh * self.kw) as usize);
        for i in 0..self.kh {
            for j in 0..self.kw {
                let (y, x) = (i * self.dilations[0], j * self.dilations[1]);
                out.push(b.slice(
                    xp,
                    &[0, 0, y, x],
                    &[i64::MAX, i64::MAX, end(reach_h, y), end(reach_w, x)],
                    &[1, 1, self.strides[0], self.strides[1]],
                ));
            }
        }
        out
    }

    /// The padded input's height and width.
    pub(crate) fn padded(&self) -> (i64, i64) {
        let [_, _, h, w] = self.input;
        let p = self.padding;
        (h + p[0] + p[2], w + p[1] + p[3])
    }

    /// `x` padded with `value` on the spatial axes (`x` itself without padding).
    pub(crate) fn pad(&self, b: &mut GraphBuilder<'_>, x: Value, value: f64) -> Value {
        let [t, l, bo, r] = self.padding;
        if self.padding == [0; 4] {
            return x;
        }
        b.pad(x, &[0, 0, t, l], &[0, 0, bo, r], value)
    }

    /// Gathers the windows of the padded `xp` ([N, C, Hp, Wp]) into [N, C, KH·KW, OH·OW].
    pub(crate) fn gather(&self, b: &mut GraphBuilder<'_>, xp: Value) -> Value {
        let (hp, wp) = self.padded();
        let flat = flatten_pixels(b, xp, hp * wp);
        self.gather_table(b, flat, self.indices())
    }

    /// Gathers `flat` ([N, C, P]) along its last axis through the constant `[KH·KW, OH·OW]`
    /// table `indices`.
    fn gather_table(&self, b: &mut GraphBuilder<'_>, flat: Value, indices: Vec<i64>) -> Value {
        // `i32` where every index fits, as they do but for inputs of 2^31 pixels: the gather
        // kernel reads a table element per element it copies, and `i64`s made the table eight
        // times the bytes of an 8-bit convolution's columns.
        let narrow = indices.iter().all(|&i| i32::try_from(i).is_ok());
        let elem = if narrow { Type::I32 } else { Type::I64 };
        let idx_ty = b
            .ctx
            .tensor_type(&[self.kh * self.kw, self.oh * self.ow], elem);
        // Packed as the attribute stores them, with no `DenseValue` per element: a network's
        // tables take megabytes.
        let mut data = Vec::with_capacity(indices.len() * if narrow { 4 } else { 8 });
        for &i in &indices {
            if narrow {
                data.extend_from_slice(&(i as i32).to_le_bytes()); // fits: `narrow`
            } else {
                data.extend_from_slice(&i.to_le_bytes());
            }
        }
        let value = b.ctx.dense_attr_packed(idx_ty, data);
        let idx = b.build_one("graph.constant", &[], vec![("value", value)], idx_ty);
        b.gather(flat, idx, 2)
    }

    /// Gathers the windows of `x` ([N, C, H, W]) padded with `value` into [N, C, KH·KW, OH·OW].
    /// When `x` is computed as `[.., H·W]` and reshaped (an im2col convolution's matmul, its
    /// epilogue between), `x` itself is not padded: the flattened `[N, C, H·W]` gets one
    /// element more at the end, holding `value`, and every window position in the padding
    /// reads it ([`Window::padded_indices`]). That pad moves above the reshape (`fuse`) to
    /// the matmul's result, which `lower` then has the matmul's kernel write with the longer
    /// row (its padded outputs) instead of a pad kernel copying it; a pad of `[H, W]` would
    /// put the border inside its rows. Otherwise `x` is padded as a `[N, C, H, W]`, which a
    /// kernel computing it in that shape writes the same way.
    pub(crate) fn padded_gather(&self, b: &mut GraphBuilder<'_>, x: Value, value: f64) -> Value {
        if self.padding == [0; 4] {
            return self.gather(b, x);
        }
        let [_, _, h, w] = self.input;
        if !computed_flat(b.ctx, x, h * w) {
            let xp = self.pad(b, x, value);
            return self.gather(b, xp);
        }
        let flat = flatten_pixels(b, x, h * w);
        let extended = b.pad(flat, &[0, 0, 0], &[0, 0, 1], value);
        self.gather_table(b, extended, self.padded_indices())
    }

    /// The index table of [`Window::padded_gather`], row-major `[KH·KW, OH·OW]`: for each
    /// window position and output pixel, the flattened input pixel it reads, or `H·W` (the
    /// element holding the padding value) where it reads the padding.
    fn padded_indices(&self) -> Vec<i64> {
        let [_, _, h, w] = self.input;
        let [top, left, _, _] = self.padding;
        self.table(|y, x| {
            let (y, x) = (y - top, x - left);
            let inside = (0..h).contains(&y) && (0..w).contains(&x);
            if inside {
                y * w + x
            } else {
                h * w
            }
        })
    }

    /// `place(y, x)` of the padded input's pixel that each window position reads for each
    /// output pixel, row-major `[KH·KW, OH·OW]`.
    fn table(&self, place: impl Fn(i64, i64) -> i64) -> Vec<i64> {
        let mut indices = Vec::with_capacity((self.kh * self.kw * self.oh * self.ow) as usize);
        for i in 0..self.kh {
            for j in 0..self.kw {
                for oy in 0..self.oh {
                    for ox in 0..self.ow {
                        let y = i * self.dilations[0] + oy * self.strides[0];
                        let x = j * self.dilations[1] + ox * self.strides[1];
                        indices.push(place(y, x));
                    }
                }
            }
        }
        indices
    }

    /// The index table of [`Window::gather`], row-major `[KH·KW, OH·OW]`: for each window
    /// position and output pixel, the flattened padded input pixel it reads.
    pub(crate) fn indices(&self) -> Vec<i64> {
        let wp = self.padded().1;
        self.table(|y, x| y * wp + x)
    }

    /// Reshapes a pooled [N, C, OH·OW] back to [N, C, OH, OW].
    fn unflatten(&self, b: &mut GraphBuilder<'_>, v: Value) -> Option<Vec<Value>> {
        let s = b.shape(v);
        if s[0] == DYNAMIC && s[1] == DYNAMIC {
            return None;
        }
        let lead = |d: i64| if d == DYNAMIC { -1 } else { d };
        Some(vec![
            b.reshape(v, &[lead(s[0]), lead(s[1]), self.oh, self.ow])
        ])
    }
}

/// `x` ([N, C, H, W]) reshaped to [N, C, `pixels`]. At most one of N and C is dynamic (checked
/// by `unflatten`'s callers through shapes); the reshape infers it.
fn flatten_pixels(b: &mut GraphBuilder<'_>, x: Value, pixels: i64) -> Value {
    let s = b.shape(x);
    let lead = |d: i64| if d == DYNAMIC { -1 } else { d };
    b.reshape(x, &[lead(s[0]), lead(s[1]), pixels])
}

/// Whether `x` is a reshape of a value whose last dim is `hw` (the pixels of a plane, in
/// one dim), seen through the elementwise ops between them.
fn computed_flat(ctx: &Context, x: Value, hw: i64) -> bool {
    let mut v = x;
    loop {
        let Some(d) = ctx.defining_op(v) else {
            return false;
        };
        match crate::family_of(ctx, d) {
            Some(Family::Reshape) => return shape(ctx, ctx.operand(d, 0)).last() == Some(&hw),
            Some(Family::Unary(_) | Family::Binary(_) | Family::Cast | Family::Select) => {
                let full = shape(ctx, v);
                let Some(&next) = ctx.operands(d).iter().find(|&&o| shape(ctx, o) == full) else {
                    return false;
                };
                v = next;
            }
            _ => return false,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The builder.

/// Creates graph ops at an insertion point by op name and attribute names, computing each
/// result type with the spec's shape rules (numpy broadcasting, reductions, matmul, ...).
///
/// Consecutive ops come out in program order whatever the insertion point.
pub struct GraphBuilder<'a> {
    pub ctx: &'a mut Context,
    at: InsertPoint,
    loc: Location,
}

impl<'a> GraphBuilder<'a> {
    /// A builder inserting at `at`, giving new ops location `loc`.
    pub fn new(ctx: &'a mut Context, at: InsertPoint, loc: Location) -> Self {
        GraphBuilder { ctx, at, loc }
    }

    /// The shape of tensor value `v` ([`DYNAMIC`] for `?`); empty for scalars.
    pub fn shape(&self, v: Value) -> Vec<i64> {
        shape(self.ctx, v)
    }

    /// The rank of tensor value `v`.
    pub fn rank(&self, v: Value) -> usize {
        self.shape(v).len()
    }

    /// The element type of `v`.
    pub fn elem(&self, v: Value) -> Type {
        self.ctx.element_type(self.ctx.value_type(v))
    }

    /// True if `v` has a float element type.
    pub fn is_float(&self, v: Value) -> bool {
        self.ctx.float_kind(self.elem(v)).is_some()
    }

    /// Builds op `name` with the given operands, attributes and result types.
    pub fn build(
        &mut self,
        name: &str,
        operands: &[Value],
        attrs: Vec<(&str, Attribute)>,
        results: &[Type],
    ) -> Op {
        let mut spec = OpSpec::new(self.ctx, name, self.loc)
            .operands(operands)
            .results(results);
        for (n, a) in attrs {
            spec.set_attr(self.ctx, n, a);
        }
        let op = self.ctx.create_op(spec);
        self.ctx.insert_op(self.at, op);
        if let InsertPoint::Start(_) | InsertPoint::After(_) = self.at {
            self.at = InsertPoint::After(op);
        }
        op
    }

    /// Builds a one-result op and returns its result.
    pub fn build_one(
        &mut self,
        name: &str,
        operands: &[Value],
        attrs: Vec<(&str, Attribute)>,
        result: Type,
    ) -> Value {
        let op = self.build(name, operands, attrs, &[result]);
        self.ctx.result(op, 0)
    }

    fn tensor(&mut self, shape: &[i64], elem: Type) -> Type {
        self.ctx.tensor_type(shape, elem)
    }

    /// `array<i64: ...>`.
    pub fn i64_array(&mut self, values: &[i64]) -> Attribute {
        self.ctx.intern_attr(AttrKind::DenseArray {
            element: Type::I64,
            values: values.into(),
        })
    }

    /// A target-shape array: `?` dims written as -1.
    pub fn shape_array(&mut self, shape: &[i64]) -> Attribute {
        let values: Vec<i64> = shape
            .iter()
            .map(|d| if *d == DYNAMIC { -1 } else { *d })
            .collect();
        self.i64_array(&values)
    }

    /// `v : i64`.
    pub fn i64_attr(&mut self, v: i64) -> Attribute {
        self.ctx.integer_attr(v as i128, Type::I64)
    }

    /// A scalar attribute of element type `elem` holding `v` (truncated for integers).
    pub fn scalar_attr(&mut self, v: f64, elem: Type) -> Attribute {
        if self.ctx.float_kind(elem).is_some() {
            self.ctx.float_attr(v, elem)
        } else {
            self.ctx.integer_attr(v as i128, elem)
        }
    }

    /// `graph.constant` with the given elements (one element makes a splat).
    pub fn constant(&mut self, ty: Type, values: &[DenseValue]) -> Value {
        let value = self.ctx.dense_attr(ty, values);
        self.build_one("graph.constant", &[], vec![("value", value)], ty)
    }

    /// A splat `graph.constant` of element type `elem` and static shape `shape`.
    pub fn splat(&mut self, v: f64, elem: Type, shape: &[i64]) -> Value {
        let ty = self.tensor(shape, elem);
        let value = if self.ctx.float_kind(elem).is_some() {
            DenseValue::Float(v)
        } else {
            DenseValue::Int(v as i128)
        };
        self.constant(ty, &[value])
    }

    /// A splat of `v` with `like`'s element type and rank, all dims 1 (broadcastable to it).
    pub fn scalar_like(&mut self, v: f64, like: Value) -> Value {
        let ones = vec![1; self.rank(like)];
        self.splat(v, self.elem(like), &ones)
    }

    /// A unary elementwise op (result type = operand type).
    pub fn unary(&mut self, name: &str, x: Value) -> Value {
        let ty = self.ctx.value_type(x);
        self.build_one(name, &[x], vec![], ty)
    }

    /// `graph.cast` to element type `elem`.
    pub fn cast(&mut self, x: Value, elem: Type) -> Value {
        let ty = self.tensor(&self.shape(x), elem);
        self.build_one("graph.cast", &[x], vec![], ty)
    }

    /// A binary elementwise op with numpy broadcasting.
    pub fn binary(&mut self, name: &str, a: Value, b: Value) -> Value {
        let shape = broadcast_shapes(&self.shape(a), &self.shape(b));
        let ty = self.tensor(&shape, self.elem(a));
        self.build_one(name, &[a, b], vec![], ty)
    }

    /// `graph.cmp` with `predicate` (`"lt"`, ...), producing i1.
    pub fn cmp(&mut self, predicate: &str, a: Value, b: Value) -> Value {
        let shape = broadcast_shapes(&self.shape(a), &self.shape(b));
        let ty = self.tensor(&shape, Type::I1);
        let p = self.ctx.string_attr(predicate);
        self.build_one("graph.cmp", &[a, b], vec![("predicate", p)], ty)
    }

    /// `graph.select(cond, a, b)`.
    pub fn select(&mut self, cond: Value, a: Value, b: Value) -> Value {
        let shape = broadcast_shapes(&self.shape(cond), &self.shape(a));
        let shape = broadcast_shapes(&shape, &self.shape(b));
        let ty = self.tensor(&shape, self.elem(a));
        self.build_one("graph.select", &[cond, a, b], vec![], ty)
    }

    /// A reduction (`graph.reduce_sum`, ...) over non-negative `axes`.
    pub fn reduce(&mut self, name: &str, x: Value, axes: &[i64], keepdim: bool) -> Value {
        let shape = reduced_shape(&self.shape(x), axes, keepdim);
        let ty = self.tensor(&shape, self.elem(x));
        let a = self.i64_array(axes);
        let k = self.ctx.bool_attr(keepdim);
        self.build_one(name, &[x], vec![("axes", a), ("keepdim", k)], ty)
    }

    /// `graph.argmax` / `graph.argmin` over `axis`, producing i64.
    pub fn arg_reduce(&mut self, name: &str, x: Value, axis: i64, keepdim: bool) -> Value {
        let shape = reduced_shape(&self.shape(x), &[axis], keepdim);
        let ty = self.tensor(&shape, Type::I64);
        let a = self.i64_attr(axis);
        let k = self.ctx.bool_attr(keepdim);
        self.build_one(name, &[x], vec![("axis", a), ("keepdim", k)], ty)
    }

    /// Max-subtracted softmax over `axis`, in primitives.
    pub fn softmax(&mut self, x: Value, axis: i64) -> Value {
        let m = self.reduce("graph.reduce_max", x, &[axis], true);
        let d = self.binary("graph.sub", x, m);
        let e = self.unary("graph.exp", d);
        let s = self.reduce("graph.reduce_sum", e, &[axis], true);
        self.binary("graph.div", e, s)
    }

    /// `graph.matmul` with numpy semantics (batch dims broadcast); two 8-bit integer operands
    /// give `i32`.
    pub fn matmul(&mut self, a: Value, b: Value) -> Value {
        self.matmul_of(a, b, false)
    }

    /// [`Self::matmul`] reading `b` transposed (`transpose_b`: `b` is `[.., N, K]`).
    pub fn matmul_transposed_b(&mut self, a: Value, b: Value) -> Value {
        self.matmul_of(a, b, true)
    }

    fn matmul_of(&mut self, a: Value, b: Value, transpose_b: bool) -> Value {
        let mut b_shape = self.shape(b);
        let rank = b_shape.len();
        if transpose_b && rank >= 2 {
            b_shape.swap(rank - 2, rank - 1);
        }
        let shape = matmul_shape(&self.shape(a), &b_shape);
        let elem = match (self.elem(a), self.elem(b)) {
            (x, y) if crate::infer::is_byte(x) && crate::infer::is_byte(y) => Type::I32,
            (x, _) => x,
        };
        let ty = self.tensor(&shape, elem);
        let attrs = if transpose_b {
            vec![("transpose_b", self.ctx.unit_attr())]
        } else {
            vec![]
        };
        self.build_one("graph.matmul", &[a, b], attrs, ty)
    }

    /// `graph.transpose` by `perm` (result dim i = input dim perm[i]).
    pub fn transpose(&mut self, x: Value, perm: &[i64]) -> Value {
        let s = self.shape(x);
        let shape: Vec<i64> = perm.iter().map(|p| s[*p as usize]).collect();
        let ty = self.tensor(&shape, self.elem(x));
        let p = self.i64_array(perm);
        self.build_one("graph.transpose", &[x], vec![("perm", p)], ty)
    }

    /// `graph.reshape` to `shape` (one -1 allowed: inferred when the input is static); `x`
    /// itself when that is its own static shape.
    pub fn reshape(&mut self, x: Value, shape: &[i64]) -> Value {
        let result = reshape_shape(&self.shape(x), shape);
        // To its own static shape (a depthwise convolution's groups): nothing to build, where a
        // `graph.reshape` would become a copy kernel.
        if result == self.shape(x) && !result.contains(&DYNAMIC) {
            return x;
        }
        let ty = self.tensor(&result, self.elem(x));
        let s = self.i64_array(shape);
        self.build_one("graph.reshape", &[x], vec![("shape", s)], ty)
    }

    /// `graph.slice` with per-axis starts, ends and steps (numpy rules).
    pub fn slice(&mut self, x: Value, starts: &[i64], ends: &[i64], steps: &[i64]) -> Value {
        let s = self.shape(x);
        let shape: Vec<i64> = (0..s.len())
            .map(|i| slice_dim(s[i], starts[i], ends[i], steps[i]))
            .collect();
        let ty = self.tensor(&shape, self.elem(x));
        let attrs = vec![
            ("starts", self.i64_array(starts)),
            ("ends", self.i64_array(ends)),
            ("steps", self.i64_array(steps)),
        ];
        self.build_one("graph.slice", &[x], attrs, ty)
    }

    /// `graph.concat` along `axis`.
    pub fn concat(&mut self, xs: &[Value], axis: i64) -> Value {
        let mut shape = self.shape(xs[0]);
        let a = axis as usize;
        for &x in &xs[1..] {
            let s = self.shape(x);
            for (i, d) in shape.iter_mut().enumerate() {
                if i == a {
                    *d = if *d == DYNAMIC || s[i] == DYNAMIC {
                        DYNAMIC
                    } else {
                        *d + s[i]
                    };
                } else if *d == DYNAMIC {
                    *d = s[i];
                }
            }
        }
        let ty = self.tensor(&shape, self.elem(xs[0]));
        let ax = self.i64_attr(axis);
        self.build_one("graph.concat", xs, vec![("axis", ax)], ty)
    }

    /// `graph.pad` with constant `value`.
    pub fn pad(&mut self, x: Value, low: &[i64], high: &[i64], value: f64) -> Value {
        let shape: Vec<i64> = self
            .shape(x)
            .iter()
            .enumerate()
            .map(|(i, d)| {
                if *d == DYNAMIC {
                    DYNAMIC
                } else {
                    d + low[i] + high[i]
                }
            })
            .collect();
        let elem = self.elem(x);
        let ty = self.tensor(&shape, elem);
        let attrs = vec![
            ("low", self.i64_array(low)),
            ("high", self.i64_array(high)),
            ("value", self.scalar_attr(value, elem)),
        ];
        self.build_one("graph.pad", &[x], attrs, ty)
    }

    /// `graph.gather` (numpy take) along `axis`.
    pub fn gather(&mut self, x: Value, indices: Value, axis: i64) -> Value {
        let s = self.shape(x);
        let a = axis as usize;
        let mut shape = s[..a].to_vec();
        shape.extend(self.shape(indices));
        shape.extend(&s[a + 1..]);
        let ty = self.tensor(&shape, self.elem(x));
        let ax = self.i64_attr(axis);
        self.build_one("graph.gather", &[x, indices], vec![("axis", ax)], ty)
    }

    /// Dim `axis` of `v` as an `index` (`graph.dim`).
    pub fn dim(&mut self, v: Value, axis: usize) -> Value {
        let a = self.i64_attr(axis as i64);
        self.build_one("graph.dim", &[v], vec![("axis", a)], Type::INDEX)
    }

    /// The `index` values of the `?` dims of `like`, in order (`graph.dim`).
    pub fn dynamic_dims(&mut self, like: Value) -> Vec<Value> {
        let shape = self.shape(like);
        let mut dims = Vec::new();
        for (axis, d) in shape.iter().enumerate() {
            if *d == DYNAMIC {
                dims.push(self.dim(like, axis));
            }
        }
        dims
    }

    /// Zeros of `like`'s type (`graph.fill`, sized by `like`'s dims where they are `?`).
    pub fn zeros_like(&mut self, like: Value) -> Value {
        let ty = self.ctx.value_type(like);
        let sizes = self.dynamic_dims(like);
        let zero = self.scalar_attr(0.0, self.elem(like));
        self.build_one("graph.fill", &sizes, vec![("value", zero)], ty)
    }

    /// `x` reshaped to `shape`, whose `?` entries take the sizes `dynamic` in order (one size
    /// per `?`; none at all lets a single `?` be inferred); `x` itself when its shape is
    /// already `shape`.
    pub fn reshape_to(&mut self, x: Value, shape: &[i64], dynamic: &[Value]) -> Value {
        if self.shape(x) == shape {
            return x;
        }
        let ty = self.tensor(shape, self.elem(x));
        let attr = self.shape_array(shape);
        let mut operands = vec![x];
        operands.extend_from_slice(dynamic);
        self.build_one("graph.reshape", &operands, vec![("shape", attr)], ty)
    }

    /// `x` reshaped to `like`'s shape (its `?` dims read from `like`); `x` when the types
    /// already agree.
    pub fn reshape_like(&mut self, x: Value, like: Value) -> Value {
        if self.ctx.value_type(x) == self.ctx.value_type(like) {
            return x;
        }
        let shape = self.shape(like);
        let dynamic = self.dynamic_dims(like);
        self.reshape_to(x, &shape, &dynamic)
    }

    /// `graph.broadcast_to` the target `shape` ([`DYNAMIC`] entries are written -1).
    pub fn broadcast_to(&mut self, x: Value, shape: &[i64]) -> Value {
        let ty = self.tensor(shape, self.elem(x));
        let s = self.shape_array(shape);
        self.build_one("graph.broadcast_to", &[x], vec![("shape", s)], ty)
    }

    /// Attribute `name` of `op` as an integer.
    pub fn int_attr(&self, op: Op, name: &str) -> Option<i64> {
        int_attr(self.ctx, op, name)
    }

    /// Attribute `name` of `op` as a float (integers accepted).
    pub fn f64_attr(&self, op: Op, name: &str) -> Option<f64> {
        let a = self.ctx.attr(op, name)?;
        self.ctx
            .attr_as_float(a)
            .or_else(|| self.ctx.attr_as_int(a).map(|v| v as f64))
    }

    /// Attribute `name` of `op` as a list of integers (`array<i64: ...>` or `[1, 2]`).
    pub fn array_attr(&self, op: Op, name: &str) -> Option<Vec<i64>> {
        array_attr(self.ctx, op, name)
    }

    /// An axis attribute normalized to `0..rank` (`default` when absent; negative counts from
    /// the end); `None` when out of range.
    pub fn axis_attr(&self, op: Op, name: &str, rank: usize, default: i64) -> Option<i64> {
        let axis = self.int_attr(op, name).unwrap_or(default);
        let axis = if axis < 0 { axis + rank as i64 } else { axis };
        (0..rank as i64).contains(&axis).then_some(axis)
    }
}

/// The shape of tensor value `v` ([`DYNAMIC`] for `?`); empty for scalars.
fn shape(ctx: &Context, v: Value) -> Vec<i64> {
    ctx.shape(ctx.value_type(v))
        .map_or_else(Vec::new, <[i64]>::to_vec)
}

/// Attribute `name` of `op` as an integer.
fn int_attr(ctx: &Context, op: Op, name: &str) -> Option<i64> {
    let a = ctx.attr(op, name)?;
    ctx.attr_as_int(a).map(|v| v as i64)
}

/// Attribute `name` of `op` as a list of integers (`array<i64: ...>` or `[1, 2]`).
fn array_attr(ctx: &Context, op: Op, name: &str) -> Option<Vec<i64>> {
    let a = ctx.attr(op, name)?;
    match ctx.attr_kind(a) {
        AttrKind::DenseArray { values, .. } => Some(values.to_vec()),
        AttrKind::Array(items) => items
            .iter()
            .map(|i| ctx.attr_as_int(*i).map(|v| v as i64))
            .collect(),
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------------
// Shape rules (the verifier's, on `DYNAMIC`-marked static shapes).

/// Numpy broadcasting of two shapes: the verifier's rule (`crate::infer::broadcast_shapes`);
/// shapes that do not broadcast keep `a`, and the op built with it fails to verify.
pub fn broadcast_shapes(a: &[i64], b: &[i64]) -> Vec<i64> {
    crate::infer::broadcast_shapes(&[(0, a), (1, b)]).unwrap_or_else(|_| a.to_vec())
}

/// The shape of a reduction over `axes`.
pub fn reduced_shape(shape: &[i64], axes: &[i64], keepdim: bool) -> Vec<i64> {
    let mut out = Vec::with_capacity(shape.len());
    for (i, d) in shape.iter().enumerate() {
        if axes.contains(&(i as i64)) {
            if keepdim {
                out.push(1);
            }
        } else {
            out.push(*d);
        }
    }
    out
}

/// The shape of a numpy matmul of two rank ≥ 2 operands (lower ranks are treated as rank 2).
pub fn matmul_shape(a: &[i64], b: &[i64]) -> Vec<i64> {
    let pad = |s: &[i64]| -> Vec<i64> {
        let mut p = vec![1; 2usize.saturating_sub(s.len())];
        p.extend_from_slice(s);
        p
    };
    let (a, b) = (pad(a), pad(b));
    let (ra, rb) = (a.len(), b.len());
    let mut out = broadcast_shapes(&a[..ra - 2], &b[..rb - 2]);
    out.push(a[ra - 2]);
    out.push(b[rb - 1]);
    out
}

/// The shape of a reshape of `input` to `target` (one -1 entry: inferred when possible).
pub fn reshape_shape(input: &[i64], target: &[i64]) -> Vec<i64> {
    let known: Option<i64> = input.iter().try_fold(1i64, |acc, d| {
        (*d != DYNAMIC).then(|| acc.saturating_mul(*d))
    });
    let rest: i64 = target.iter().filter(|d| **d != -1).product();
    target
        .iter()
        .map(|d| match (*d, known) {
            (-1, Some(total)) if rest != 0 => total / rest,
            (-1, _) => DYNAMIC,
            (d, _) => d,
        })
        .collect()
}

/// The size of one axis of a numpy slice: the verifier's rule ([`crate::infer::slice_size`]).
pub fn slice_dim(dim: i64, start: i64, end: i64, step: i64) -> i64 {
    crate::infer::slice_size(dim, start, end, step)
}
