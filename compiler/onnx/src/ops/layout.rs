//! Operators that lay data out anew or generate it from a shape: DepthToSpace, SpaceToDepth
//! (reshape, transpose, reshape), CenterCropPad (a pad or crop per axis) and EyeLike (a
//! comparison of two small iotas).

use super::{axes, Handler};
use crate::importer::{NodeCx, NodeResult};
use crate::tensor::element_type;
use dlc_ir::{Value, DYNAMIC};
use dlc_tensor::{DType, Literal};

pub(super) const OPS: &[(&str, Handler)] = &[
    ("DepthToSpace", depth_to_space),
    ("SpaceToDepth", space_to_depth),
    ("CenterCropPad", center_crop_pad),
    ("EyeLike", eye_like),
];

/// The `[N, C, H, W]` input of DepthToSpace/SpaceToDepth, its `blocksize` and whether `mode`
/// is CRD (column-row-depth) rather than the default DCR.
fn blocks(cx: &mut NodeCx) -> NodeResult<(Value, [i64; 4], i64, bool)> {
    let x = cx.input(0)?;
    let shape = cx.static_shape(x, &cx.node.op_type)?;
    let [n, c, h, w] = shape[..] else {
        return Err(format!("the input must have rank 4 (N×C×H×W), not {}", shape.len()).into());
    };
    let b = cx
        .attr_int("blocksize")
        .ok_or("attribute 'blocksize' is required")?;
    if b <= 0 {
        return Err(format!("blocksize {b} must be positive").into());
    }
    // SpaceToDepth has `mode` from opset 28, DepthToSpace from 11.
    let mode = cx.attr_string("mode").unwrap_or_else(|| "DCR".into());
    let crd = match mode.as_str() {
        "DCR" => false,
        "CRD" => true,
        other => return Err(format!("mode '{other}' is not one of 'DCR', 'CRD'").into()),
    };
    Ok((x, [n, c, h, w], b, crd))
}

/// Channels spread into `b × b` spatial blocks: DCR takes the channel as (row, column,
/// depth), CRD as (depth, row, column).
fn depth_to_space(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let (x, [n, c, h, w], b, crd) = blocks(cx)?;
    let bb = b.checked_mul(b).ok_or("blocksize is too large")?;
    if c % bb != 0 {
        return Err(format!("{c} channels are not a multiple of blocksize² ({bb})").into());
    }
    let d = c / bb;
    let (split, perm) = if crd {
        ([n, d, b, b, h, w], [0, 1, 4, 2, 5, 3])
    } else {
        ([n, b, b, d, h, w], [0, 3, 4, 1, 5, 2])
    };
    let y = cx.reshape(x, &split)?;
    let y = cx.transpose(y, &perm)?;
    let grow = |v: i64| v.checked_mul(b).ok_or("the output shape overflows");
    let out = [n, d, grow(h)?, grow(w)?];
    Ok(vec![cx.reshape(y, &out)?])
}

/// `b × b` spatial blocks gathered into channels: DCR orders the new channel as (row, column,
/// depth), CRD as (depth, row, column).
fn space_to_depth(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let (x, [n, c, h, w], b, crd) = blocks(cx)?;
    if h % b != 0 || w % b != 0 {
        return Err(format!("the spatial dims {h}×{w} are not multiples of blocksize {b}").into());
    }
    let y = cx.reshape(x, &[n, c, h / b, b, w / b, b])?;
    let perm = if crd {
        [0, 1, 3, 5, 2, 4]
    } else {
        [0, 3, 5, 1, 2, 4]
    };
    let y = cx.transpose(y, &perm)?;
    let depth = c
        .checked_mul(b)
        .and_then(|v| v.checked_mul(b))
        .ok_or("the output shape overflows")?;
    let out = [n, depth, h / b, w / b];
    Ok(vec![cx.reshape(y, &out)?])
}

/// Each listed axis cropped or zero-padded to the given size around its center: a crop starts
/// at ⌊(dim − size)/2⌋, a pad puts ⌊(size − dim)/2⌋ before and the rest after.
fn center_crop_pad(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let shape = cx.shape(x);
    let rank = shape.len();
    let sizes = cx.ints_input(1)?.ok_or("input #1 (shape) is required")?;
    let list = match cx.attr_ints("axes") {
        Some(l) => axes(&l, rank)?,
        None => (0..rank as i64).collect(),
    };
    if sizes.len() != list.len() {
        return Err(format!("shape has {} entries for {} axes", sizes.len(), list.len()).into());
    }
    let (mut low, mut high) = (vec![0; rank], vec![0; rank]);
    for (a, size) in list.iter().zip(&sizes) {
        let a = *a as usize;
        let dim = shape[a];
        if *size < 0 || *size > crate::importer::MAX_TENSOR_ELEMENTS {
            return Err(format!("size {size} for axis {a} is not a valid dim").into());
        }
        if dim == DYNAMIC {
            return Err(format!("axis {a} is dynamic; CenterCropPad needs its size").into());
        }
        let diff = size - dim;
        let before = diff.signum() * (diff.abs() / 2);
        (low[a], high[a]) = (before, diff - before);
    }
    Ok(vec![cx.pad_or_crop(x, &low, &high, 0.0)?])
}

/// Ones where `column − row = k`, zeros elsewhere, of the input's 2-D shape, in `dtype` (the
/// input's type by default): an `eq` of a `[n, 1]` and a `[1, m]` index constant, cast.
fn eye_like(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let shape = cx.static_shape(x, "EyeLike")?;
    let [n, m] = shape[..] else {
        return Err(format!("the input must have rank 2, not {}", shape.len()).into());
    };
    let ty = match cx.attr_int("dtype") {
        Some(d) => {
            let d = i32::try_from(d).map_err(|_| format!("'dtype' = {d} is not a data type"))?;
            element_type(d)?
        }
        None => cx.elem(x),
    };
    let k = cx.int_or("k", 0);
    let (rows, cols) = (super::table(n.into())?, super::table(m.into())?);
    // Row i matches column i + k (computed in i128: k is the model's).
    let shifted: Vec<i64> = (0..n)
        .map(|i| (i128::from(i) + i128::from(k)).clamp(-1, i128::from(m)) as i64)
        .collect();
    let row = cx.constant(Literal::from_i64(DType::I64, &[rows, 1], &shifted));
    let iota: Vec<i64> = (0..m).collect();
    let col = cx.constant(Literal::from_i64(DType::I64, &[1, cols], &iota));
    let hit = cx.cmp("eq", col, row)?;
    Ok(vec![cx.cast(hit, ty)?])
}
