//! Model building blocks with a fixed expansion: RotaryEmbedding, SwiGLU, LRN and Col2Im.
//!
//! - RotaryEmbedding rotates pairs of features (the two halves, or even/odd features when
//!   `interleaved`) by the cached angles, read at `position_ids` with a `graph.gather`.
//! - SwiGLU is `a·σ(α·a)·b`.
//! - LRN sums the squares over a window of channels with a constant banded `[C, C]` matrix
//!   along the channel axis (`graph.matmul`).
//! - Col2Im adds each column entry into the image pixel its block covers. The mapping is
//!   static, so every pixel gathers its (at most `M`) contributions from the columns through
//!   a constant `[P, M]` index table, missing ones pointing at an appended zero column, and
//!   sums them.

use super::{table, Handler};
use crate::importer::{NodeCx, NodeResult};
use dlc_ir::Value;
use dlc_tensor::{DType, Literal};

pub(super) const OPS: &[(&str, Handler)] = &[
    ("RotaryEmbedding", rotary_embedding),
    ("SwiGLU", swiglu),
    ("LRN", lrn),
    ("Col2Im", col2im),
];

fn rotary_embedding(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let cos = cx.input(1)?;
    let sin = cx.input(2)?;
    let positions = cx.opt_input(3);
    let shape = cx.static_shape(x, "RotaryEmbedding")?;
    let heads_attr = cx.int_or("num_heads", 0);
    let rot_attr = cx.int_or("rotary_embedding_dim", 0);
    let interleaved = match cx.int_or("interleaved", 0) {
        0 => false,
        1 => true,
        v => return Err(format!("interleaved {v} is not 0 or 1").into()),
    };
    if !cx.is_float(x) {
        return Err("X must be a float tensor".into());
    }
    // Work on [B, H, S, D] (4-D input) or [B, S, H, D] (3-D input split into heads).
    let (x4, b, s, head) = match shape[..] {
        [b, h, s, d] => {
            if heads_attr != 0 && heads_attr != h {
                return Err(format!("num_heads {heads_attr} differs from X's {h} heads").into());
            }
            (x, b, s, d)
        }
        [b, s, hidden] => {
            if heads_attr <= 0 {
                return Err("num_heads is required (and positive) for a 3-D input".into());
            }
            if hidden % heads_attr != 0 {
                return Err(format!(
                    "the hidden size {hidden} is not a multiple of num_heads {heads_attr}"
                )
                .into());
            }
            let d = hidden / heads_attr;
            (cx.reshape(x, &[b, s, heads_attr, d])?, b, s, d)
        }
        _ => return Err(format!("X must have rank 3 or 4, not {}", shape.len()).into()),
    };
    let rot = if rot_attr == 0 { head } else { rot_attr };
    if rot <= 0 || rot > head || rot % 2 != 0 {
        return Err(format!(
            "rotary_embedding_dim {rot} must be even and in [2, head size {head}]"
        )
        .into());
    }
    let half = rot / 2;
    // The caches at each token: [B, S, rot/2].
    let at = |cx: &mut NodeCx, cache: Value, what: &str| -> NodeResult<Value> {
        let cs = cx.shape(cache);
        let picked = match positions {
            Some(p) => {
                if cs.len() != 2 {
                    return Err(format!(
                        "{what} must have rank 2 with position_ids, not {}",
                        cs.len()
                    )
                    .into());
                }
                let p = cx.cast(p, dlc_ir::Type::I64)?;
                // Positions past the cache are clamped: a gather must stay in range.
                let top = cx.scalar((cs[0] - 1).max(0) as f64, p);
                let zero = cx.scalar(0.0, p);
                let p = cx.binary("graph.min", p, top)?;
                let p = cx.binary("graph.max", p, zero)?;
                let attr = cx.int_attr(0);
                cx.op("graph.gather", &[cache, p], &[("axis", attr)])?
            }
            None => cache,
        };
        let ps = cx.shape(picked);
        if ps != [b, s, half] {
            return Err(format!(
                "{what} gives angles of shape {ps:?} per token, and [{b}, {s}, {half}] is needed"
            )
            .into());
        }
        let picked = cx.cast(picked, cx.elem(x))?;
        // Broadcast over the heads axis.
        if shape.len() == 4 {
            cx.reshape(picked, &[b, 1, s, half])
        } else {
            cx.reshape(picked, &[b, s, 1, half])
        }
    };
    let cos = at(cx, cos, "cos_cache")?;
    let sin = at(cx, sin, "sin_cache")?;
    let r4 = cx.shape(x4).len();
    let cut = |cx: &mut NodeCx, start: i64, end: i64, step: i64| {
        let mut starts = vec![0; r4];
        let mut ends = vec![i64::MAX; r4];
        let mut steps = vec![1; r4];
        (starts[3], ends[3], steps[3]) = (start, end, step);
        cx.slice(x4, &starts, &ends, &steps)
    };
    let (x1, x2) = if interleaved {
        (cut(cx, 0, rot, 2)?, cut(cx, 1, rot, 2)?)
    } else {
        (cut(cx, 0, half, 1)?, cut(cx, half, rot, 1)?)
    };
    let c1 = cx.binary("graph.mul", cos, x1)?;
    let s2 = cx.binary("graph.mul", sin, x2)?;
    let real = cx.binary("graph.sub", c1, s2)?;
    let s1 = cx.binary("graph.mul", sin, x1)?;
    let c2 = cx.binary("graph.mul", cos, x2)?;
    let imag = cx.binary("graph.add", s1, c2)?;
    let a3 = cx.int_attr(3);
    let rotated = if interleaved {
        let mut pair = cx.shape(real);
        pair.push(1);
        let re = cx.reshape(real, &pair)?;
        let im = cx.reshape(imag, &pair)?;
        let a4 = cx.int_attr(4);
        let both = cx.op("graph.concat", &[re, im], &[("axis", a4)])?;
        let mut joined = cx.shape(real);
        joined[3] = rot;
        cx.reshape(both, &joined)?
    } else {
        cx.op("graph.concat", &[real, imag], &[("axis", a3)])?
    };
    let y = if rot < head {
        let rest = cut(cx, rot, head, 1)?;
        cx.op("graph.concat", &[rotated, rest], &[("axis", a3)])?
    } else {
        rotated
    };
    Ok(vec![cx.reshape(y, &shape)?])
}

/// `a·σ(α·a)·b`, `a` and `b` of one shape.
fn swiglu(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let a = cx.input(0)?;
    let b = cx.input(1)?;
    let alpha = cx.float_or("alpha", 1.0);
    if cx.shape(a) != cx.shape(b) || cx.elem(a) != cx.elem(b) {
        return Err("A and B must have the same shape and type (SwiGLU does not broadcast)".into());
    }
    if !cx.is_float(a) {
        return Err("SwiGLU needs float inputs".into());
    }
    let scaled = if alpha == 1.0 {
        a
    } else {
        let s = cx.scalar(alpha, a);
        cx.binary("graph.mul", a, s)?
    };
    let gate = cx.unary("graph.sigmoid", scaled)?;
    let swish = cx.binary("graph.mul", a, gate)?;
    Ok(vec![cx.binary("graph.mul", swish, b)?])
}

/// `x / (bias + α/size · Σ x²)^β`, the sum over channels `[c − ⌊(size−1)/2⌋, c +
/// ⌈(size−1)/2⌉]` clipped to the axis.
fn lrn(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let shape = cx.static_shape(x, "LRN")?;
    let size = cx.attr_int("size").ok_or("attribute 'size' is required")?;
    let alpha = cx.float_or("alpha", 1e-4);
    let beta = cx.float_or("beta", 0.75);
    let bias = cx.float_or("bias", 1.0);
    if size <= 0 {
        return Err(format!("size {size} must be positive").into());
    }
    if shape.len() < 3 {
        return Err(format!("X must have rank 3 or more (N×C×…), not {}", shape.len()).into());
    }
    if !cx.is_float(x) {
        return Err("LRN needs a float input".into());
    }
    let c = shape[1];
    let n = table(i128::from(c) * i128::from(c))?;
    let (before, after) = ((size - 1) / 2, (size - 1) - (size - 1) / 2);
    // w[j, i] = 1 when input channel j is in output channel i's window.
    let mut w = vec![0.0; n];
    for i in 0..c {
        for j in (i - before).max(0)..=(i + after).min(c - 1) {
            w[(j * c + i) as usize] = 1.0;
        }
    }
    let cu = c as usize;
    let wv = cx.float_table(x, &[cu, cu], &w);
    let sq = cx.binary("graph.mul", x, x)?;
    let sum = cx.matmul_along(sq, 1, wv)?;
    let k = cx.scalar(alpha / size as f64, x);
    let t = cx.binary("graph.mul", sum, k)?;
    let b = cx.scalar(bias, x);
    let t = cx.binary("graph.add", t, b)?;
    let p = cx.scalar(beta, x);
    let d = cx.binary("graph.pow", t, p)?;
    Ok(vec![cx.binary("graph.div", x, d)?])
}

/// `[N, C·∏block, L]` column blocks summed back into `[N, C, image…]`.
fn col2im(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let x = cx.input(0)?;
    let shape = cx.static_shape(x, "Col2Im")?;
    let image = cx
        .ints_input(1)?
        .ok_or("input #1 (image_shape) is required")?;
    let block = cx
        .ints_input(2)?
        .ok_or("input #2 (block_shape) is required")?;
    let k = image.len();
    let ones = vec![1; k];
    let dilations = cx.attr_ints("dilations").unwrap_or_else(|| ones.clone());
    let strides = cx.attr_ints("strides").unwrap_or_else(|| ones.clone());
    let pads = cx.attr_ints("pads").unwrap_or_else(|| vec![0; 2 * k]);
    let [n, cols, l] = shape[..] else {
        return Err(format!("the input must have rank 3, not {}", shape.len()).into());
    };
    if k == 0
        || block.len() != k
        || dilations.len() != k
        || strides.len() != k
        || pads.len() != 2 * k
    {
        return Err(format!(
            "image_shape ({k}), block_shape ({}), dilations ({}), strides ({}) and pads ({}, twice the others) must agree in length",
            block.len(),
            dilations.len(),
            strides.len(),
            pads.len()
        )
        .into());
    }
    let bad = |v: &[i64], low: i64| v.iter().any(|d| *d < low);
    if bad(&image, 1) || bad(&block, 1) || bad(&dilations, 1) || bad(&strides, 1) || bad(&pads, 0) {
        return Err(
            "image and block sizes, dilations and strides must be positive, pads not negative"
                .into(),
        );
    }
    // Sizes as i128: the model's attributes may be anything.
    let wide = |v: &[i64]| v.iter().map(|d| i128::from(*d)).collect::<Vec<_>>();
    let (im, bl, di, st, pa) = (
        wide(&image),
        wide(&block),
        wide(&dilations),
        wide(&strides),
        wide(&pads),
    );
    let kernel: i128 = bl.iter().product();
    let mut counts = Vec::with_capacity(k);
    for i in 0..k {
        let span = di[i] * (bl[i] - 1) + 1;
        let c = (im[i] + pa[i] + pa[i + k] - span).div_euclid(st[i]) + 1;
        if c < 1 {
            return Err(format!("axis {i} holds no block (the block spans {span} pixels)").into());
        }
        counts.push(c);
    }
    let blocks: i128 = counts.iter().product();
    if i128::from(cols) % kernel != 0 || i128::from(l) != blocks {
        return Err(format!(
            "the input {shape:?} must be [N, C·{kernel}, {blocks}] for these blocks"
        )
        .into());
    }
    let channels = (i128::from(cols) / kernel) as i64;
    let pixels = table(im.iter().product())?;
    let entries = table(kernel * blocks)?;
    // The column entries (kernel offset, block) landing on each pixel.
    let mut sources: Vec<Vec<i64>> = vec![Vec::new(); pixels];
    let mut offset = vec![0i128; k];
    for kk in 0..kernel {
        let mut at = vec![0i128; k];
        for b in 0..blocks {
            let mut pixel = 0i128;
            let mut inside = true;
            for i in 0..k {
                let p = at[i] * st[i] - pa[i] + offset[i] * di[i];
                inside &= (0..im[i]).contains(&p);
                pixel = pixel * im[i] + p;
            }
            if inside {
                sources[pixel as usize].push((kk * blocks + b) as i64);
            }
            increment(&mut at, &counts);
        }
        increment(&mut offset, &bl);
    }
    let most = sources.iter().map(Vec::len).max().unwrap_or(0).max(1);
    let count = table(pixels as i128 * most as i128)?;
    let zero_column = entries as i64;
    let mut idx = Vec::with_capacity(count);
    for s in &sources {
        idx.extend(s.iter().copied());
        idx.extend(std::iter::repeat_n(zero_column, most - s.len()));
    }
    let flat = cx.reshape(x, &[n, channels, entries as i64])?;
    let (low, high) = (cx.array_attr(&[0, 0, 0]), cx.array_attr(&[0, 0, 1]));
    let fill = if cx.is_float(x) {
        let ty = cx.elem(x);
        cx.ctx().float_attr(0.0, ty)
    } else {
        let ty = cx.elem(x);
        cx.ctx().integer_attr(0, ty)
    };
    let padded = cx.op(
        "graph.pad",
        &[flat],
        &[("low", low), ("high", high), ("value", fill)],
    )?;
    let table_v = cx.constant(Literal::from_i64(DType::I64, &[pixels, most], &idx));
    let a2 = cx.int_attr(2);
    let picked = cx.op("graph.gather", &[padded, table_v], &[("axis", a2)])?;
    let sum = cx.reduce("graph.reduce_sum", picked, &[3], false)?;
    let mut out = vec![n, channels];
    out.extend_from_slice(&image);
    Ok(vec![cx.reshape(sum, &out)?])
}

/// Steps the row-major multi-index `at` within `dims` (wrapping to zeros at the end).
fn increment(at: &mut [i128], dims: &[i128]) {
    for i in (0..at.len()).rev() {
        at[i] += 1;
        if at[i] < dims[i] {
            return;
        }
        at[i] = 0;
    }
}
