//! Constants, shapes and data movement: Constant, ConstantOfShape, Shape, Size, Reshape,
//! Flatten, Squeeze, Unsqueeze, Transpose, Concat, Split, Slice, Gather, Expand, Tile, Pad,
//! Range, Identity-like Dropout, Trilu, OneHot, GatherElements.
//!
//! Shape-valued inputs (Reshape's shape, Slice's bounds, axes, pads, repeats) must be constants
//! or fold to constants during import; `Shape` of a static tensor is a constant, so the usual
//! `Shape → Gather → Concat → Reshape` chains fold away. Over `?` dims, Reshape, Flatten,
//! Expand and ConstantOfShape also take shapes computed from run-time sizes
//! ([`crate::shape_values`]).

use super::{axes, axis, table, Handler};
use crate::importer::{show_shape, NodeCx, NodeResult};
use crate::shape_values::{known, Dim};
use dlc_ir::{Value, DYNAMIC};
use dlc_tensor::{DType, Literal, Scalar};

pub(super) const OPS: &[(&str, Handler)] = &[
    ("Constant", constant),
    ("ConstantOfShape", constant_of_shape),
    ("Shape", shape),
    ("Size", size),
    ("Reshape", reshape),
    ("Flatten", flatten),
    ("Squeeze", squeeze),
    ("Unsqueeze", unsqueeze),
    ("Transpose", transpose),
    ("Concat", concat),
    ("Split", split),
    ("Slice", slice),
    ("Gather", gather),
    ("Expand", expand),
    ("Tile", tile),
    ("Pad", pad),
    ("Range", range),
    ("Dropout", dropout),
    ("Trilu", trilu),
    ("OneHot", one_hot),
    ("GatherElements", gather_elements),
];

fn constant(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    if let Some(t) = cx.attr_tensor("value") {
        return Ok(vec![cx.tensor_constant(t)?]);
    }
    if cx.has_attr("value_float") {
        let v = cx.float_or("value_float", 0.0);
        return Ok(vec![cx.constant(Literal::from_f64(DType::F32, &[], &[v]))]);
    }
    if let Some(v) = cx.attr_floats("value_floats") {
        let v: Vec<f64> = v.iter().map(|x| *x as f64).collect();
        return Ok(vec![cx.constant(Literal::from_f64(
            DType::F32,
            &[v.len()],
            &v,
        ))]);
    }
    if let Some(v) = cx.attr_int("value_int") {
        return Ok(vec![cx.constant(Literal::from_i64(DType::I64, &[], &[v]))]);
    }
    if let Some(v) = cx.attr_ints("value_ints") {
        return Ok(vec![cx.i64_vector(&v)]);
    }
    Err("needs a 'value', 'value_float(s)' or 'value_int(s)' attribute (sparse and string constants are not supported)".into())
}

/// A shape given as a tensor: non-negative sizes.
fn sizes(values: &[i64]) -> NodeResult<Vec<usize>> {
    values
        .iter()
        .map(|d| {
            usize::try_from(*d).map_err(|_| format!("shape {values:?} has a negative dim").into())
        })
        .collect()
}

/// A shape computed from `?` dims gives a `graph.fill` with its sizes as operands.
fn constant_of_shape(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let dims = cx.dims_input(0)?.ok_or("input #0 (shape) is required")?;
    let value = match cx.attr_tensor("value") {
        Some(t) => {
            let v = cx.tensor_constant(t)?;
            cx.const_value(v)?
        }
        None => Literal::from_f64(DType::F32, &[1], &[0.0]),
    };
    if value.len() != 1 {
        return Err("attribute 'value' must hold one element".into());
    }
    let Some(dims) = known(&dims) else {
        let mut shape = Vec::with_capacity(dims.len());
        let mut operands = Vec::new();
        for d in dims {
            match d {
                Dim::Known(k) if k < 0 => {
                    return Err(format!("shape has a negative dim {k}").into())
                }
                Dim::Known(k) => shape.push(k),
                Dim::Size { value, .. } => {
                    shape.push(DYNAMIC);
                    operands.push(value);
                }
            }
        }
        let ty = cx.ctx().tensor_type(&shape, value.dtype().to_type());
        let attr = match value.get(0) {
            Scalar::Float(v) => cx.ctx().float_attr(v, value.dtype().to_type()),
            Scalar::Int(v) => cx.ctx().integer_attr(v as i128, value.dtype().to_type()),
            Scalar::Bool(b) => cx.ctx().integer_attr(b as i128, dlc_ir::Type::I1),
        };
        return Ok(vec![cx.op_typed(
            "graph.fill",
            &operands,
            &[("value", attr)],
            ty,
        )?]);
    };
    sizes(&dims)?;
    Ok(vec![cx.splat_constant(&value, &dims)?])
}

impl NodeCx<'_, '_> {
    /// The value of constant `v` (made by this handler).
    fn const_value(&mut self, v: Value) -> NodeResult<Literal> {
        self.imp
            .constant_value(v)
            .ok_or_else(|| "expected a constant".into())
    }
}

/// Opset 15's `start`/`end` clamp like Python slices. A `?` dim makes the result a shape
/// computation (`crate::shape_values`).
fn shape(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let r = cx.shape(x).len() as i64;
    let clamp = |v: i64| (if v < 0 { v + r } else { v }).clamp(0, r) as usize;
    let start = clamp(cx.int_or("start", 0));
    let end = clamp(cx.int_or("end", r));
    let dims = cx.dims(x);
    let part = if start < end { &dims[start..end] } else { &[] };
    Ok(vec![cx.dims_tensor(part)?])
}

fn size(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let dims = cx.dims(x);
    let shape = cx.dims_tensor(&dims)?;
    Ok(vec![cx.reduce("graph.reduce_prod", shape, &[0], false)?])
}

/// Opset < 5: the `shape` attribute; later an input. A 0 copies the input's dim (unless
/// `allowzero`), one −1 is inferred. A shape computed from `?` dims gives a `graph.reshape`
/// with its sizes as operands.
fn reshape(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let target = if cx.opset < 5 {
        let ints = cx
            .attr_ints("shape")
            .ok_or("attribute 'shape' is required")?;
        ints.into_iter().map(Dim::Known).collect()
    } else {
        cx.dims_input(1)?.ok_or("input #1 (shape) is required")?
    };
    let allowzero = cx.int_or("allowzero", 0) != 0;
    let input = cx.shape(x);
    let shown = || {
        let t: Vec<String> = target.iter().map(show_dim).collect();
        format!("[{}]", t.join(", "))
    };
    let mut out = Vec::with_capacity(target.len());
    for (i, d) in target.iter().enumerate() {
        out.push(match *d {
            Dim::Known(0) if !allowzero => match input.get(i) {
                Some(&DYNAMIC) => Dim::Size {
                    value: cx.dim_size(x, i),
                    nonneg: true,
                },
                Some(&d) => Dim::Known(d),
                None => {
                    return Err(format!(
                        "shape {} copies dim {i}, which the input (rank {}) lacks",
                        shown(),
                        input.len()
                    )
                    .into())
                }
            },
            Dim::Known(d) if d < -1 => {
                return Err(format!("shape {} has a negative dim", shown()).into())
            }
            d => d,
        });
    }
    if out.iter().filter(|d| **d == Dim::Known(-1)).count() > 1 {
        return Err(format!(
            "shape {} of an input of shape {} has more than one -1",
            shown(),
            show_shape(&input)
        )
        .into());
    }
    let sized = out.iter().any(|d| matches!(d, Dim::Size { .. }))
        || (out.contains(&Dim::Known(-1)) && input.iter().filter(|d| **d == DYNAMIC).count() > 1);
    if let (false, Some(shape)) = (sized, known(&out)) {
        return Ok(vec![cx.reshape(x, &shape)?]);
    }
    // Sizes for every `?` dim of the result: the −1 one is the element count over the rest.
    if let Some(at) = out.iter().position(|d| *d == Dim::Known(-1)) {
        let dims = cx.dims(x);
        let rest: Vec<Dim> = out
            .iter()
            .filter(|d| **d != Dim::Known(-1))
            .copied()
            .collect();
        let inferred = cx
            .dims_product(&dims)
            .zip(cx.dims_product(&rest))
            .and_then(|(total, rest)| cx.dims_quotient(total, rest))
            .ok_or_else(|| format!("shape {} has no size for its -1 entry", shown()))?;
        out[at] = inferred;
    }
    Ok(vec![cx.sized_reshape(x, &out)?])
}

fn show_dim(d: &Dim) -> String {
    match d {
        Dim::Known(k) => k.to_string(),
        Dim::Size { .. } => "?".to_string(),
    }
}

fn flatten(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let shape = cx.shape(x);
    let a = cx.int_or("axis", 1);
    let a = if a == shape.len() as i64 {
        a
    } else {
        axis(a, shape.len())?
    } as usize;
    let product = |dims: &[i64]| -> i64 {
        if dims.contains(&DYNAMIC) {
            -1
        } else {
            dims.iter().product()
        }
    };
    let (outer, inner) = (product(&shape[..a]), product(&shape[a..]));
    if outer == -1 && inner == -1 {
        // Both halves dynamic: their sizes as operands.
        let dims = cx.dims(x);
        let halves = cx
            .dims_product(&dims[..a])
            .zip(cx.dims_product(&dims[a..]))
            .ok_or("the flattened sizes overflow")?;
        return Ok(vec![cx.sized_reshape(x, &[halves.0, halves.1])?]);
    }
    Ok(vec![cx.reshape(x, &[outer, inner])?])
}

/// The axes of Squeeze/Unsqueeze: an attribute before opset 13, an input after.
fn axes_operand(cx: &mut NodeCx) -> NodeResult<Option<Vec<i64>>> {
    if cx.opset < 13 {
        Ok(cx.attr_ints("axes"))
    } else {
        cx.ints_input(1)
    }
}

fn squeeze(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let shape = cx.shape(x);
    let list = match axes_operand(cx)? {
        Some(list) => axes(&list, shape.len())?,
        None => {
            if shape.contains(&DYNAMIC) {
                return Err("Squeeze without axes needs a static shape".into());
            }
            (0..shape.len() as i64)
                .filter(|i| shape[*i as usize] == 1)
                .collect()
        }
    };
    for a in &list {
        if shape[*a as usize] != 1 && shape[*a as usize] != DYNAMIC {
            return Err(format!("cannot squeeze axis {a} of size {}", shape[*a as usize]).into());
        }
    }
    let kept: Vec<usize> = (0..shape.len())
        .filter(|i| !list.contains(&(*i as i64)))
        .collect();
    if kept.iter().filter(|&&i| shape[i] == DYNAMIC).count() > 1 {
        let dims = cx.dims(x);
        let out: Vec<Dim> = kept.iter().map(|&i| dims[i]).collect();
        return Ok(vec![cx.sized_reshape(x, &out)?]);
    }
    let out: Vec<i64> = kept
        .iter()
        .map(|&i| if shape[i] == DYNAMIC { -1 } else { shape[i] })
        .collect();
    Ok(vec![cx.reshape(x, &out)?])
}

fn unsqueeze(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let shape = cx.shape(x);
    let list = axes_operand(cx)?.ok_or("axes are required")?;
    let rank = shape.len() + list.len();
    let list = axes(&list, rank)?;
    if shape.iter().filter(|&&d| d == DYNAMIC).count() > 1 {
        let mut dims = cx.dims(x).into_iter();
        let out: Vec<Dim> = (0..rank as i64)
            .map(|i| {
                if list.contains(&i) {
                    Dim::Known(1)
                } else {
                    dims.next().unwrap_or(Dim::Known(1))
                }
            })
            .collect();
        return Ok(vec![cx.sized_reshape(x, &out)?]);
    }
    let mut dims = shape.iter().map(|d| if *d == DYNAMIC { -1 } else { *d });
    let out: Vec<i64> = (0..rank as i64)
        .map(|i| {
            if list.contains(&i) {
                1
            } else {
                dims.next().unwrap_or(1)
            }
        })
        .collect();
    Ok(vec![cx.reshape(x, &out)?])
}

fn transpose(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let rank = cx.shape(x).len();
    let perm = cx
        .attr_ints("perm")
        .unwrap_or_else(|| (0..rank as i64).rev().collect());
    Ok(vec![cx.transpose(x, &perm)?])
}

fn concat(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let inputs = cx.inputs()?;
    let first = *inputs.first().ok_or("needs at least one input")?;
    let a = cx.attr_int("axis").ok_or("attribute 'axis' is required")?;
    let a = axis(a, cx.shape(first).len())?;
    let attr = cx.int_attr(a);
    Ok(vec![cx.op("graph.concat", &inputs, &[("axis", attr)])?])
}

/// Split sizes: the `split` attribute (opset < 13) or input, else equal parts (`num_outputs`
/// in opset 18, else the number of outputs; the last part may be smaller).
fn split(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let shape = cx.shape(x);
    let a = axis(cx.int_or("axis", 0), shape.len())? as usize;
    let dim = shape[a];
    let given = if cx.opset < 13 {
        cx.attr_ints("split")
    } else {
        cx.ints_input(1)?
    };
    let outputs = cx.node.output.len() as i64;
    let parts = match given {
        Some(p) => p,
        None => {
            if dim == DYNAMIC {
                return Err("Split of a dynamic axis needs explicit sizes".into());
            }
            let n = cx.attr_int("num_outputs").unwrap_or(outputs);
            if n != outputs || n <= 0 {
                return Err(
                    format!("num_outputs {n} does not match the node's {outputs} outputs").into(),
                );
            }
            let chunk = (dim + n - 1) / n;
            (0..n).map(|i| (dim - i * chunk).clamp(0, chunk)).collect()
        }
    };
    if parts.len() as i64 != outputs {
        return Err(format!("{} split sizes for {outputs} outputs", parts.len()).into());
    }
    if parts.iter().any(|p| *p < 0) {
        return Err("split sizes must be non-negative".into());
    }
    let total = parts.iter().try_fold(0i64, |a, p| a.checked_add(*p));
    if dim != DYNAMIC && total != Some(dim) {
        return Err(format!("split sizes {parts:?} do not add up to the axis size {dim}").into());
    }
    let mut out = Vec::with_capacity(parts.len());
    let mut start = 0;
    for p in parts {
        out.push(slice_axis(cx, x, a, start, start.saturating_add(p), 1)?);
        start = start.saturating_add(p);
    }
    Ok(out)
}

/// `x[start:end:step]` along axis `a`, other axes whole.
fn slice_axis(
    cx: &mut NodeCx,
    x: Value,
    a: usize,
    start: i64,
    end: i64,
    step: i64,
) -> NodeResult<Value> {
    let rank = cx.shape(x).len();
    let mut starts = vec![0; rank];
    let mut ends = vec![i64::MAX; rank];
    let mut steps = vec![1; rank];
    starts[a] = start;
    ends[a] = end;
    steps[a] = step;
    cx.slice(x, &starts, &ends, &steps)
}

/// The indices ONNX's Slice selects on an axis of size `dim` (clamping as the spec says).
fn slice_indices(dim: i64, start: i64, end: i64, step: i64) -> Vec<i64> {
    let norm = |v: i64| if v < 0 { v.saturating_add(dim) } else { v };
    let (mut s, mut e) = (norm(start), norm(end));
    if step > 0 {
        s = s.clamp(0, dim);
        e = e.clamp(0, dim);
        (s..e).step_by(step as usize).collect()
    } else {
        s = s.clamp(-1, dim - 1);
        e = e.clamp(-1, dim - 1);
        let mut out = Vec::new();
        let mut i = s;
        while i > e {
            out.push(i);
            i = i.saturating_add(step);
        }
        out
    }
}

/// Opset < 10: `starts`/`ends`/`axes` attributes; later inputs, with `steps`. Positive steps
/// are `graph.slice`; a negative step gathers the selected indices.
fn slice(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let shape = cx.shape(x);
    let rank = shape.len();
    let known_dims = |v: Vec<i64>| v.into_iter().map(Dim::Known).collect::<Vec<_>>();
    let (starts, ends, list, steps) = if cx.opset < 10 {
        (
            known_dims(
                cx.attr_ints("starts")
                    .ok_or("attribute 'starts' is required")?,
            ),
            known_dims(cx.attr_ints("ends").ok_or("attribute 'ends' is required")?),
            cx.attr_ints("axes"),
            None,
        )
    } else {
        // Bounds may be sizes computed from `Shape`s.
        (
            cx.dims_input(1)?.ok_or("input #1 (starts) is required")?,
            cx.dims_input(2)?.ok_or("input #2 (ends) is required")?,
            cx.ints_input(3)?,
            cx.ints_input(4)?,
        )
    };
    let list = list.unwrap_or_else(|| (0..starts.len() as i64).collect());
    let list = axes(&list, rank)?;
    let steps = steps.unwrap_or_else(|| vec![1; starts.len()]);
    if ends.len() != starts.len() || list.len() != starts.len() || steps.len() != starts.len() {
        return Err("starts, ends, axes and steps must have the same length".into());
    }
    let (mut s, mut e, mut t) = (vec![0; rank], vec![i64::MAX; rank], vec![1; rank]);
    let mut reversed = Vec::new();
    let mut sized = Vec::new();
    for (k, &a) in list.iter().enumerate() {
        let a = a as usize;
        match (steps[k], starts[k], ends[k]) {
            (0, _, _) => return Err("a slice step is 0".into()),
            (step, Dim::Known(start), Dim::Known(end)) if step > 0 => {
                (s[a], e[a], t[a]) = (start, end, step)
            }
            (step, Dim::Known(start), Dim::Known(end)) => reversed.push((a, start, end, step)),
            (step, start, end) if step > 0 => sized.push((a, start, end, step)),
            _ => {
                let what = "a negative slice step with bounds computed at run time";
                return Err(format!("{what} is not supported").into());
            }
        }
    }
    // Every axis with run-time bounds: no static slice to take.
    let mut y = if sized.len() == list.len() {
        x
    } else {
        cx.slice(x, &s, &e, &t)?
    };
    for (a, start, end, step) in reversed {
        let dim = shape[a];
        if dim == DYNAMIC {
            return Err("a negative slice step on a dynamic axis is not supported".into());
        }
        // At most `dim` indices are selected.
        table(dim as i128)?;
        let idx = slice_indices(dim, start, end, step);
        let idx = cx.i64_vector(&idx);
        let attr = cx.int_attr(a as i64);
        y = cx.op("graph.gather", &[y, idx], &[("axis", attr)])?;
    }
    // Bounds known at run time (`x[:, 1 : Shape(x)[1] − 1]`): the positions
    // `first + i·step`, `i < count`, `first` and `count` computed on the host from the clamped
    // bounds ([`NodeCx::slice_bound`]).
    let dims = if sized.is_empty() {
        Vec::new()
    } else {
        cx.dims(x)
    };
    for (a, start, end, step) in sized {
        let overflow = "the slice bounds overflow";
        let first = cx.slice_bound(start, dims[a]).ok_or(overflow)?;
        let last = cx.slice_bound(end, dims[a]).ok_or(overflow)?;
        let count = cx.range_count(first, last, step).ok_or(overflow)?;
        y = gather_positions(cx, y, a, first, count, step)?;
    }
    Ok(vec![y])
}

/// The axes a Pad's `pads` cover (all, or its `axes` input normalized), checked against the
/// number of pads (two per axis).
fn pad_axes(list: Option<Vec<i64>>, rank: usize, pads: usize) -> NodeResult<Vec<i64>> {
    let list = match list {
        Some(l) => axes(&l, rank)?,
        None => (0..rank as i64).collect(),
    };
    if pads != 2 * list.len() {
        return Err(format!("pads has {pads} entries, expected {}", 2 * list.len()).into());
    }
    Ok(list)
}

/// A constant-mode Pad whose amounts are sizes computed at run time: per padded axis, the
/// positive parts as sized `graph.fill`s concatenated on either side, then the negative parts
/// cropped by a gather of the positions kept.
fn sized_pad(
    cx: &mut NodeCx,
    x: Value,
    list: Option<Vec<i64>>,
    pads: &[Dim],
    value: f64,
) -> NodeResult<Value> {
    let rank = cx.shape(x).len();
    let list = pad_axes(list, rank, pads.len())?;
    let overflow = "the pads overflow";
    let mut y = x;
    for (k, &a) in list.iter().enumerate() {
        let a = a as usize;
        let (low, high) = (pads[k], pads[k + list.len()]);
        if low == Dim::Known(0) && high == Dim::Known(0) {
            continue;
        }
        let grow = |cx: &mut NodeCx, p: Dim| cx.dims_max(p, Dim::Known(0)).ok_or(overflow);
        let (grow_low, grow_high) = (grow(cx, low)?, grow(cx, high)?);
        let mut pieces = Vec::new();
        for (side, amount) in [(0, grow_low), (1, grow_high)] {
            if amount == Dim::Known(0) {
                continue;
            }
            let mut dims = cx.dims(y);
            dims[a] = amount;
            let fill = cx.sized_fill(&dims, cx.elem(y), value)?;
            pieces.insert(if side == 0 { 0 } else { pieces.len() }, fill);
        }
        if !pieces.is_empty() {
            let at = usize::from(grow_low != Dim::Known(0));
            pieces.insert(at, y);
            let attr = cx.int_attr(a as i64);
            y = cx.op("graph.concat", &pieces, &[("axis", attr)])?;
        }
        let crop = |cx: &mut NodeCx, p: Dim| {
            let negated = cx.dims_difference(Dim::Known(0), p).ok_or(overflow)?;
            cx.dims_max(negated, Dim::Known(0)).ok_or(overflow)
        };
        let (crop_low, crop_high) = (crop(cx, low)?, crop(cx, high)?);
        if crop_low == Dim::Known(0) && crop_high == Dim::Known(0) {
            continue;
        }
        let size = cx.dims(y)[a];
        let first = cx.dims_min(crop_low, size).ok_or(overflow)?;
        let end = cx.dims_difference(size, crop_high).ok_or(overflow)?;
        let count = cx.range_count(first, end, 1).ok_or(overflow)?;
        y = gather_positions(cx, y, a, first, count, 1)?;
    }
    Ok(y)
}

/// `y` gathered along axis `a` at the positions `first + i·step`, `i < count` (sizes known at
/// run time or not).
fn gather_positions(
    cx: &mut NodeCx,
    y: Value,
    a: usize,
    first: Dim,
    count: Dim,
    step: i64,
) -> NodeResult<Value> {
    let mut idx = cx.positions(count, 1, 0)?;
    if step != 1 {
        let s = cx.scalar(step as f64, idx);
        idx = cx.binary("graph.mul", idx, s)?;
    }
    if first != Dim::Known(0) {
        let f = cx.dim_scalar(first)?;
        idx = cx.binary("graph.add", idx, f)?;
    }
    let attr = cx.int_attr(a as i64);
    cx.op("graph.gather", &[y, idx], &[("axis", attr)])
}

/// Negative indices count from the end: constant ones are normalized here, runtime ones by a
/// select (on a static axis).
fn gather(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let (x, idx) = (cx.input(0)?, cx.input(1)?);
    let shape = cx.shape(x);
    let a = axis(cx.int_or("axis", 0), shape.len())?;
    let dim = shape[a as usize];
    let idx = match cx.imp.constant_value(idx) {
        Some(t) if dim != DYNAMIC && t.dtype().is_int() => {
            let values = t.to_i64_vec();
            if let Some(bad) = values.iter().find(|i| **i < -dim || **i >= dim) {
                return Err(
                    format!("index {bad} is out of range for an axis of size {dim}").into(),
                );
            }
            let fixed: Vec<i64> = values
                .iter()
                .map(|i| if *i < 0 { i + dim } else { *i })
                .collect();
            cx.constant(Literal::from_i64(t.dtype(), t.shape(), &fixed))
        }
        _ if dim != DYNAMIC => {
            let zero = cx.scalar(0.0, idx);
            let n = cx.scalar(dim as f64, idx);
            let neg = cx.cmp("lt", idx, zero)?;
            let wrapped = cx.binary("graph.add", idx, n)?;
            cx.select(neg, wrapped, idx)?
        }
        _ => idx,
    };
    let attr = cx.int_attr(a);
    Ok(vec![cx.op("graph.gather", &[x, idx], &[("axis", attr)])?])
}

/// Bidirectional broadcasting: the result is the broadcast of the input's shape and the given
/// one (a 1 in the given shape keeps the input's dim).
fn expand(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let target = cx.dims_input(1)?.ok_or("input #1 (shape) is required")?;
    let Some(target) = known(&target) else {
        return Ok(vec![expand_to_sizes(cx, x, &target)?]);
    };
    let input = cx.shape(x);
    let rank = input.len().max(target.len());
    let mut out = Vec::with_capacity(rank);
    for i in 0..rank {
        let from_end = rank - i;
        let a = if from_end <= input.len() {
            input[input.len() - from_end]
        } else {
            1
        };
        let b = if from_end <= target.len() {
            target[target.len() - from_end]
        } else {
            1
        };
        out.push(match (a, b) {
            (a, 1) => {
                if a == DYNAMIC {
                    -1
                } else {
                    a
                }
            }
            (1, b) => b,
            (a, b) if a == b => b,
            (DYNAMIC, b) => b,
            _ => {
                return Err(
                    format!("cannot expand shape {} to {target:?}", show_shape(&input)).into(),
                )
            }
        });
    }
    let s = cx.array_attr(&out);
    Ok(vec![cx.op("graph.broadcast_to", &[x], &[("shape", s)])?])
}

/// Expand to a shape computed from `?` dims: `x` combined with a `graph.fill` of the target's
/// new sizes (1 where `x` keeps its dim), so the op's own broadcasting gives the result.
fn expand_to_sizes(cx: &mut NodeCx, x: Value, target: &[Dim]) -> NodeResult<Value> {
    let input = cx.shape(x);
    let rank = input.len().max(target.len());
    let mut shape = Vec::with_capacity(rank);
    let mut sizes = Vec::new();
    for i in 0..rank {
        let from_end = rank - i;
        let a = (from_end <= input.len()).then(|| input[input.len() - from_end]);
        let t = if from_end <= target.len() {
            target[target.len() - from_end]
        } else {
            Dim::Known(1)
        };
        match (a, t) {
            (_, Dim::Known(1)) => shape.push(1),
            (Some(a), Dim::Known(k)) if a == k => shape.push(1),
            (None | Some(1), Dim::Known(k)) if k >= 0 => shape.push(k),
            (Some(DYNAMIC), Dim::Known(k)) if k >= 0 => shape.push(k),
            (a, Dim::Known(k)) => {
                let a = a.map_or("no dim".to_string(), |a| format!("a dim of {a}"));
                return Err(format!("cannot expand {a} to {k}").into());
            }
            // A run-time size against a static dim other than 1: that dim (the size must be 1
            // or equal to it).
            (Some(a), Dim::Size { .. }) if a != 1 && a != DYNAMIC => shape.push(1),
            (_, Dim::Size { value, .. }) => {
                shape.push(DYNAMIC);
                sizes.push(value);
            }
        }
    }
    let elem = cx.elem(x);
    let ty = cx.ctx().tensor_type(&shape, elem);
    let (zero, combine) = if elem == dlc_ir::Type::I1 {
        (cx.ctx().integer_attr(0, elem), "graph.or")
    } else if cx.is_float(x) {
        (cx.ctx().float_attr(0.0, elem), "graph.add")
    } else {
        (cx.ctx().integer_attr(0, elem), "graph.add")
    };
    let fill = cx.op_typed("graph.fill", &sizes, &[("value", zero)], ty)?;
    cx.binary(combine, x, fill)
}

/// Repeats along each axis: `x` with a new axis of size 1 before each repeated one, broadcast
/// to the repeat count, and merged back (`[.., d, ..]` → `[.., r, d, ..]` → `[.., r·d, ..]`).
/// `?` dims and repeats computed from `Shape`s ([`Dim`]s) give sized reshapes, and run-time
/// repeats an expand against a sized fill.
fn tile(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let repeats = cx.dims_input(1)?.ok_or("input #1 (repeats) is required")?;
    let dims = cx.dims(x);
    if repeats.len() != dims.len() {
        return Err("repeats must have one entry per axis".into());
    }
    if repeats.iter().any(|r| matches!(r, Dim::Known(k) if *k < 0)) {
        return Err("repeats must be non-negative".into());
    }
    if repeats.iter().all(|r| *r == Dim::Known(1)) {
        return Ok(vec![x]);
    }
    let mut out = Vec::with_capacity(dims.len());
    for (d, r) in dims.iter().zip(&repeats) {
        out.push(
            cx.dims_product(&[*d, *r])
                .ok_or("the tiled shape overflows")?,
        );
    }
    if let Some(sizes) = known(&out) {
        crate::importer::check_size(&sizes)?;
    }
    let lifted: Vec<Dim> = dims.iter().flat_map(|d| [Dim::Known(1), *d]).collect();
    let y = cx.sized_reshape(x, &lifted)?;
    let y = match known(&repeats) {
        Some(counts) => {
            // `broadcast_to`'s −1 keeps the input's `?` dim.
            let spread: Vec<i64> = counts
                .iter()
                .zip(&dims)
                .flat_map(|(r, d)| match d {
                    Dim::Known(k) => [*r, *k],
                    Dim::Size { .. } => [*r, -1],
                })
                .collect();
            let s = cx.array_attr(&spread);
            cx.op("graph.broadcast_to", &[y], &[("shape", s)])?
        }
        None => {
            let target: Vec<Dim> = repeats.iter().flat_map(|r| [*r, Dim::Known(1)]).collect();
            expand_to_sizes(cx, y, &target)?
        }
    };
    Ok(vec![cx.sized_reshape(y, &out)?])
}

/// Opset < 11: `pads` and `value` attributes (opset < 2: `paddings`); later inputs `pads`,
/// `constant_value`, and (opset 18) `axes`. Negative pads crop. Constant mode is `graph.pad`;
/// `edge`, `reflect` and `wrap` gather each padded axis with a constant index table.
fn pad(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let rank = cx.shape(x).len();
    let mode = cx.attr_string("mode").unwrap_or_else(|| "constant".into());
    let source: Option<fn(i64, i64) -> i64> = match mode.as_str() {
        "constant" => None,
        "edge" => Some(|j, n| j.clamp(0, n - 1)),
        "wrap" => Some(|j, n| j.rem_euclid(n)),
        // A triangle wave of period 2(n − 1), as numpy's repeated reflections give.
        "reflect" => Some(|j, n| {
            if n == 1 {
                return 0;
            }
            let m = j.rem_euclid(2 * (n - 1));
            if m < n {
                m
            } else {
                2 * (n - 1) - m
            }
        }),
        other => {
            return Err(format!(
                "mode '{other}' is not one of 'constant', 'reflect', 'edge', 'wrap'"
            )
            .into())
        }
    };
    let (pads, value, list) = if cx.opset < 11 {
        let pads = cx
            .attr_ints("pads")
            .or_else(|| cx.attr_ints("paddings"))
            .ok_or("attribute 'pads' is required")?;
        (pads, cx.float_or("value", 0.0), None)
    } else {
        let pads = cx.dims_input(1)?.ok_or("input #1 (pads) is required")?;
        let value = match cx.const_input(2)? {
            Some(t) if t.len() == 1 => t.get(0).as_f64(),
            Some(_) => return Err("constant_value must hold one element".into()),
            None => 0.0,
        };
        let list = cx.ints_input(3)?;
        match known(&pads) {
            Some(pads) => (pads, value, list),
            None if source.is_some() => {
                return Err(format!(
                    "mode '{mode}' needs constant pads (these are computed at run time)"
                )
                .into())
            }
            None => return sized_pad(cx, x, list, &pads, value).map(|y| vec![y]),
        }
    };
    let list = pad_axes(list, rank, pads.len())?;
    if pads
        .iter()
        .any(|p| p.unsigned_abs() > crate::importer::MAX_TENSOR_ELEMENTS as u64)
    {
        return Err(format!("pads {pads:?} are larger than any tensor").into());
    }
    let (mut low, mut high) = (vec![0; rank], vec![0; rank]);
    for (k, a) in list.iter().enumerate() {
        low[*a as usize] = pads[k];
        high[*a as usize] = pads[k + list.len()];
    }
    let Some(source) = source else {
        return Ok(vec![cx.pad_or_crop(x, &low, &high, value)?]);
    };
    let shape = cx.shape(x);
    let mut y = x;
    for a in 0..rank {
        if low[a] == 0 && high[a] == 0 {
            continue;
        }
        let n = shape[a];
        if n == DYNAMIC {
            return Err(format!("mode '{mode}' needs a static size on padded axis {a}").into());
        }
        if n == 0 {
            return Err(format!("mode '{mode}' cannot pad the empty axis {a}").into());
        }
        // Output position j (from −low) reads source(j); pads are bounded above, so no overflow.
        let (first, end) = (-low[a], n + high[a]);
        if end < first {
            return Err(format!("pads {pads:?} crop more than axis {a} holds ({n})").into());
        }
        let len = table(i128::from(end) - i128::from(first))?;
        let idx: Vec<i64> = (first..end).map(|j| source(j, n)).collect();
        let idx = cx.constant(Literal::from_i64(DType::I64, &[len], &idx));
        let attr = cx.int_attr(a as i64);
        y = cx.op("graph.gather", &[y, idx], &[("axis", attr)])?;
    }
    Ok(vec![y])
}

/// `start, start + delta, ...` below `limit`: all three must be constants.
fn range(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    if let Some(y) = range_to_size(cx)? {
        return Ok(vec![y]);
    }
    let scalar = |cx: &mut NodeCx, i: usize| -> NodeResult<Literal> {
        let t = cx
            .const_input(i)?
            .ok_or_else(|| format!("input #{i} is required"))?;
        if t.len() != 1 {
            return Err(format!("input #{i} must be a scalar").into());
        }
        Ok(t)
    };
    let (start, limit, delta) = (scalar(cx, 0)?, scalar(cx, 1)?, scalar(cx, 2)?);
    let dtype = start.dtype();
    let values: Vec<Scalar> = if dtype.is_float() {
        let (s, l, d) = (
            start.get(0).as_f64(),
            limit.get(0).as_f64(),
            delta.get(0).as_f64(),
        );
        if d == 0.0 {
            return Err("delta is 0".into());
        }
        let n = ((l - s) / d).ceil().max(0.0);
        if !n.is_finite() {
            return Err("Range bounds must be finite".into());
        }
        let n = table(n as i128)?;
        (0..n).map(|i| Scalar::Float(s + i as f64 * d)).collect()
    } else {
        // Integers count exactly: ceil((limit − start) / delta) in i128.
        let (s, l, d) = (
            i128::from(start.get(0).as_i64()),
            i128::from(limit.get(0).as_i64()),
            i128::from(delta.get(0).as_i64()),
        );
        if d == 0 {
            return Err("delta is 0".into());
        }
        let span = l - s;
        let n = if (span > 0) == (d > 0) && span != 0 {
            (span + d - d.signum()) / d
        } else {
            0
        };
        let n = table(n)?;
        (0..n as i128)
            .map(|i| Scalar::Int((s + i * d) as i64))
            .collect()
    };
    let len = values.len();
    Ok(vec![cx.constant(Literal::from_scalars(
        dtype,
        vec![len],
        values,
    ))])
}

/// A Range whose start or limit is a size computed at run time (`Range(0, Shape(x)[1], 1)`,
/// the position ids of a transformer; `Range(−s, 0, 1)`; in floats, `Range(0.0,
/// Cast(Shape(x)[3]), 1.0)`, a detector's anchor grid) with a constant whole delta: a
/// `graph.iota` of `⌈(limit − start) / delta⌉` elements (at least 0), scaled
/// by the delta and shifted by the start (the start's own tensor when it is computed). `None`
/// for any other Range.
fn range_to_size(cx: &mut NodeCx) -> NodeResult<Option<Value>> {
    let single = |cx: &mut NodeCx, i: usize| match cx.opt_input(i).map(|v| cx.whole_dims_of(v)) {
        Some(Some(dims)) if dims.len() == 1 => Some(dims[0]),
        _ => None,
    };
    let (Some(start), Some(limit)) = (single(cx, 0), single(cx, 1)) else {
        return Ok(None);
    };
    if known(&[start, limit]).is_some() {
        return Ok(None);
    }
    let Some(Dim::Known(delta)) = single(cx, 2) else {
        return Err("a Range whose bounds are run-time sizes needs a constant delta".into());
    };
    let count = match delta {
        0 => return Err("delta is 0".into()),
        d if d > 0 => cx.range_count(start, limit, d),
        d => cx.range_count(limit, start, -d),
    }
    .ok_or("the Range's bounds overflow")?;
    let elem = cx.elem(cx.input(1)?);
    let n = cx.size_value(count);
    let ty = cx.ctx().tensor_type(&[DYNAMIC], elem);
    let axis = cx.int_attr(0);
    let mut y = cx.op_typed("graph.iota", &[n], &[("axis", axis)], ty)?;
    if delta != 1 {
        let d = cx.scalar(delta as f64, y);
        y = cx.binary("graph.mul", y, d)?;
    }
    match start {
        Dim::Known(0) => {}
        Dim::Known(k) => {
            let s = cx.scalar(k as f64, y);
            y = cx.binary("graph.add", y, s)?;
        }
        Dim::Size { .. } => {
            let s = cx.input(0)?;
            let s = cx.reshape(s, &[])?;
            y = cx.binary("graph.add", y, s)?;
        }
    }
    Ok(Some(y))
}

/// Inference mode: the identity. A requested mask output is all true.
fn dropout(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    cx.ignore("seed");
    cx.ignore("ratio");
    cx.ignore("is_test");
    if let Some(training) = cx.const_input(2)? {
        if training.len() == 1 && training.get(0).as_bool() {
            return Err("training_mode = true is not supported (dlc runs inference)".into());
        }
    }
    let mut out = vec![x];
    if cx.num_outputs() > 1 {
        let shape = cx.static_shape(x, "Dropout's mask")?;
        // A boolean mask from opset 10; before, the mask had the input's type.
        let one = if cx.opset >= 10 {
            Literal::from_bools(&[1], &[true])
        } else {
            Literal::splat(super::dtype(cx.elem(x)), &[1], Scalar::Float(1.0))
        };
        out.push(cx.splat_constant(&one, &shape)?);
    }
    Ok(out)
}

/// Keeps the upper (`upper = 1`) or lower triangle of the last two axes, from diagonal `k`: a
/// select with the mask `j − i ≥ k` (`≤ k` for the lower one) over the positions `i`, `j` of
/// the two axes. Static axes and a constant `k` fold it to a constant; `?` axes and a `k`
/// given at run time compute it.
fn trilu(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let dims = cx.dims(x);
    let rank = dims.len();
    if rank < 2 {
        return Err("Trilu needs rank ≥ 2".into());
    }
    let k = match cx.opt_input(1) {
        Some(k) => {
            if cx.shape(k).iter().product::<i64>() != 1 {
                return Err("k must be a scalar".into());
            }
            let k = cx.cast(k, dlc_ir::Type::I64)?;
            cx.reshape(k, &[])?
        }
        None => cx.scalar_of(0.0, dlc_ir::Type::I64),
    };
    let upper = cx.int_or("upper", 1) != 0;
    let i = cx.positions(dims[rank - 2], 2, 0)?;
    let j = cx.positions(dims[rank - 1], 2, 1)?;
    let diagonal = cx.binary("graph.sub", j, i)?;
    let keep = cx.cmp(if upper { "ge" } else { "le" }, diagonal, k)?;
    let zero = cx.scalar(0.0, x);
    Ok(vec![cx.select(keep, x, zero)?])
}

/// `values[1]` where the index (wrapped when negative) equals the position along the new axis,
/// else `values[0]`.
fn one_hot(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let (idx, values) = (cx.input(0)?, cx.input(2)?);
    let depth = cx.const_input(1)?.ok_or("input #1 (depth) is required")?;
    if depth.len() != 1 {
        return Err("depth must be a scalar".into());
    }
    let depth = depth.get(0).as_f64() as i64;
    if depth <= 0 {
        return Err(format!("depth {depth} must be positive").into());
    }
    table(depth as i128)?;
    let shape = cx.shape(idx);
    let rank = shape.len() + 1;
    let a = axis(cx.int_or("axis", -1), rank)? as usize;
    let idx = cx.cast(idx, dlc_ir::Type::I64)?;
    let zero = cx.scalar(0.0, idx);
    let d = cx.scalar(depth as f64, idx);
    let neg = cx.cmp("lt", idx, zero)?;
    let wrapped = cx.binary("graph.add", idx, d)?;
    let idx = cx.select(neg, wrapped, idx)?;
    let mut dims: Vec<i64> = shape
        .iter()
        .map(|d| if *d == DYNAMIC { -1 } else { *d })
        .collect();
    dims.insert(a, 1);
    if dims.iter().filter(|d| **d == -1).count() > 1 {
        return Err("OneHot of indices with more than one dynamic dim".into());
    }
    let idx = cx.reshape(idx, &dims)?;
    let mut iota_shape = vec![1usize; rank];
    iota_shape[a] = depth as usize;
    let positions: Vec<i64> = (0..depth).collect();
    let iota = cx.constant(Literal::from_i64(DType::I64, &iota_shape, &positions));
    let hit = cx.cmp("eq", idx, iota)?;
    let off = cx.slice(values, &[0], &[1], &[1])?;
    let on = cx.slice(values, &[1], &[2], &[1])?;
    let off = cx.reshape(off, &[])?;
    let on = cx.reshape(on, &[])?;
    Ok(vec![cx.select(hit, on, off)?])
}

/// `out[i…] = data[i… with index[i…] on axis]`.
fn gather_elements(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let (data, idx) = (cx.input(0)?, cx.input(1)?);
    let rank = cx.shape(data).len();
    let a = axis(cx.int_or("axis", 0), rank)? as usize;
    Ok(vec![gather_along(cx, data, idx, a)?])
}

/// GatherElements' semantics: a gather from the flattened data at
/// `index · stride(axis) + (the other coordinates' offset)`, the offset a sum of positions
/// times strides (a constant table when the shapes are static; computed over `?` dims).
/// Negative indices count from the end; an index still out of range, or a position past the
/// data's dim on another axis (only possible with `?` dims), is sent past the flat range (to
/// the product of the dims up to the axis, which times the stride is the element count), so
/// the gather reports it instead of reading another row.
pub(super) fn gather_along(
    cx: &mut NodeCx,
    data: Value,
    idx: Value,
    a: usize,
) -> NodeResult<Value> {
    let ds = cx.dims(data);
    let is = cx.dims(idx);
    if ds.len() != is.len() {
        return Err("data and indices must have the same rank".into());
    }
    let rank = ds.len();
    let overflow = "the data's element count overflows";
    let mut strides = Vec::with_capacity(rank);
    for d in 0..rank {
        strides.push(cx.dims_product(&ds[d + 1..]).ok_or(overflow)?);
    }
    let far = cx.dims_product(&ds[..=a]).ok_or(overflow)?;
    let idx = cx.cast(idx, dlc_ir::Type::I64)?;
    let n = cx.dim_scalar(ds[a])?;
    let zero = cx.scalar(0.0, idx);
    let neg = cx.cmp("lt", idx, zero)?;
    let wrapped = cx.binary("graph.add", idx, n)?;
    let idx = cx.select(neg, wrapped, idx)?;
    let below = cx.cmp("lt", idx, n)?;
    let above = cx.cmp("ge", idx, zero)?;
    let mut in_range = cx.binary("graph.and", below, above)?;
    let mut offsets: Option<Value> = None;
    for d in (0..rank).filter(|d| *d != a) {
        match (is[d], ds[d]) {
            (Dim::Known(i), Dim::Known(x)) if i > x => {
                return Err(format!("indices dim {d} ({i}) exceeds the data's ({x})").into())
            }
            (Dim::Known(_), Dim::Known(_)) => {}
            (i, x) if i == x => {}
            (_, x) => {
                let p = cx.positions(is[d], rank, d)?;
                let limit = cx.dim_scalar(x)?;
                let fits = cx.cmp("lt", p, limit)?;
                in_range = cx.binary("graph.and", in_range, fits)?;
            }
        }
        let p = cx.positions(is[d], rank, d)?;
        let stride = cx.dim_scalar(strides[d])?;
        let term = cx.binary("graph.mul", p, stride)?;
        offsets = Some(match offsets {
            Some(o) => cx.binary("graph.add", o, term)?,
            None => term,
        });
    }
    let far = cx.dim_scalar(far)?;
    let idx = cx.select(in_range, idx, far)?;
    let stride = cx.dim_scalar(strides[a])?;
    let mut flat_idx = cx.binary("graph.mul", idx, stride)?;
    if let Some(o) = offsets {
        flat_idx = cx.binary("graph.add", flat_idx, o)?;
    }
    let total = cx.dims_product(&ds).ok_or(overflow)?;
    let flat = cx.sized_reshape(data, &[total])?;
    let attr = cx.int_attr(0);
    cx.op("graph.gather", &[flat, flat_idx], &[("axis", attr)])
}
