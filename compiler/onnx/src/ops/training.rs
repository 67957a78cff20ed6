//! The optimizers of domain `ai.onnx.preview.training` (version 1) — Adagrad, Adam and
//! Momentum — as compositions of element-wise graph ops, following the spec's pseudo code and
//! its reference (`onnx.reference.ops.aionnx_preview_training`). Each node updates n tensors
//! at once: its inputs are the learning rate R and the update count T (rank-0 float and int64
//! tensors), then n of each of the optimizer's per-tensor inputs (Adagrad `X G H`, Adam
//! `X G V H`, Momentum `X G V`), and its outputs n of each new state (Adagrad `X_new H_new`,
//! Adam `X_new V_new H_new`, Momentum `X_new V_new`), each tensor updated independently. R and
//! T may be graph inputs: the learning-rate factors are computed in R's type from T cast to
//! it (`graph.pow` for Adam's `alpha^T`, `beta^T`), and the branches on `T > 0` (Adam's bias
//! correction, Momentum's first step with a gradient coefficient of 1) are a `graph.cmp` and
//! a `graph.select`; with constant R and T they fold away at import.

use super::{dtype, Handler};
use crate::importer::{NodeCx, NodeResult};
use dlc_graph::verify::dims_compatible;
use dlc_ir::{Type, Value, DYNAMIC};

pub(super) const OPS: &[(&str, Handler)] =
    &[("Adagrad", adagrad), ("Adam", adam), ("Momentum", momentum)];

/// The element types the spec allows for R and the optimized tensors.
fn spec_float(ty: Type) -> bool {
    matches!(ty, Type::F32 | Type::F64)
}

/// dlc's spelling of `v`'s element type, for messages.
fn type_name(cx: &NodeCx, v: Value) -> &'static str {
    dtype(cx.elem(v)).name()
}

/// `v`'s element type and shape, for messages: "f32 of shape [2, ?]".
fn describe(cx: &NodeCx, v: Value) -> String {
    let dims: Vec<String> = (cx.shape(v).iter())
        .map(|d| match *d {
            DYNAMIC => "?".to_string(),
            d => d.to_string(),
        })
        .collect();
    format!("{} of shape [{}]", type_name(cx, v), dims.join(", "))
}

/// The inputs of an optimizer node whose per-tensor inputs are `names` (Adagrad: X, G, H):
/// R, T, one group of n tensors per name (`groups[k][i]` is tensor `i`'s input `names[k]`),
/// and their element type. Checks the count (2 + n · K, n ≥ 1), that R and T are rank-0 float
/// or double and int64 tensors, and that the other inputs are float or double tensors of one
/// type, as the spec's type constraints say.
fn optimizer_inputs<const K: usize>(
    cx: &mut NodeCx,
    names: [&str; K],
) -> NodeResult<(Value, Value, [Vec<Value>; K], Type)> {
    let given = cx.num_inputs();
    if given < 2 + K || (given - 2) % K != 0 {
        return Err(format!(
            "the inputs must be R, T, then n of each of {} (2 + {K}·n inputs, n ≥ 1), not {given}",
            names.join(", ")
        )
        .into());
    }
    let n = (given - 2) / K;
    let (r, t) = (cx.input(0)?, cx.input(1)?);
    if !spec_float(cx.elem(r)) || !cx.shape(r).is_empty() {
        return Err(format!(
            "R (input #0) must be a rank-0 float or double tensor, not {}",
            describe(cx, r)
        )
        .into());
    }
    if cx.elem(t) != Type::I64 || !cx.shape(t).is_empty() {
        return Err(format!(
            "T (input #1) must be a rank-0 int64 tensor, not {}",
            describe(cx, t)
        )
        .into());
    }
    let ty = cx.elem(cx.input(2)?);
    let mut groups: [Vec<Value>; K] = std::array::from_fn(|_| Vec::with_capacity(n));
    for (k, group) in groups.iter_mut().enumerate() {
        for i in 0..n {
            let index = 2 + k * n + i;
            let v = cx.input(index)?;
            if !spec_float(cx.elem(v)) || cx.elem(v) != ty {
                return Err(format!(
                    "input #{index} ('{}') is {}; {} must be float or double tensors of one \
                     type (input #2 is {})",
                    cx.node.input[index],
                    type_name(cx, v),
                    names.join(", "),
                    dtype(ty).name()
                )
                .into());
            }
            group.push(v);
        }
    }
    // The i-th tensor of every group is one tensor's value, gradient and state: one shape.
    for i in 0..n {
        let first = groups[0][i];
        for (k, group) in groups.iter().enumerate().skip(1) {
            let (a, b) = (cx.shape(group[i]), cx.shape(first));
            let same = a.len() == b.len() && a.iter().zip(&b).all(|(x, y)| dims_compatible(*x, *y));
            if !same {
                let index = 2 + k * n + i;
                return Err(format!(
                    "input #{index} ('{}') has shape {:?}, input #{} ('{}') {:?}: {} of one \
                     tensor must have one shape",
                    cx.node.input[index],
                    cx.shape(group[i]),
                    2 + i,
                    cx.node.input[2 + i],
                    cx.shape(first),
                    names.join(", ")
                )
                .into());
            }
        }
    }
    Ok((r, t, groups, ty))
}

/// Float attribute `name`, which the operator requires.
fn required_float(cx: &mut NodeCx, name: &str) -> NodeResult<f64> {
    if !cx.has_attr(name) {
        return Err(format!("attribute '{name}' is required").into());
    }
    Ok(cx.float_or(name, 0.0))
}

/// `c · x` for a constant `c` of `x`'s type (`x` itself for `c = 1`, which is exact).
fn scaled(cx: &mut NodeCx, c: f64, x: Value) -> NodeResult<Value> {
    if c == 1.0 {
        return Ok(x);
    }
    let c = cx.scalar(c, x);
    cx.binary("graph.mul", c, x)
}

/// `G_regularized = norm_coefficient · X + G`, the gradient of `½ · norm_coefficient · ‖X‖²`
/// added.
fn regularized(cx: &mut NodeCx, norm: f64, x: Value, g: Value) -> NodeResult<Value> {
    let nx = scaled(cx, norm, x)?;
    cx.binary("graph.add", nx, g)
}

/// `T > 0`, a rank-0 boolean.
fn after_first_step(cx: &mut NodeCx, t: Value) -> NodeResult<Value> {
    let zero = cx.scalar(0.0, t);
    cx.cmp("gt", t, zero)
}

/// Adagrad: `r = R / (1 + T · decay_factor)`, `H_new = H + G_r²`,
/// `X_new = X − r · G_r / (√H_new + epsilon)` with `G_r` the regularized gradient.
fn adagrad(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let decay = cx.float_or("decay_factor", 0.0);
    let epsilon = cx.float_or("epsilon", 1e-6);
    let norm = cx.float_or("norm_coefficient", 0.0);
    let (r, t, [xs, gs, hs], ty) = optimizer_inputs(cx, ["X", "G", "H"])?;
    let rty = cx.elem(r);
    let tf = cx.cast(t, rty)?;
    let td = scaled(cx, decay, tf)?;
    let one = cx.scalar(1.0, r);
    let denominator = cx.binary("graph.add", one, td)?;
    let rate = cx.binary("graph.div", r, denominator)?;
    let rate = cx.cast(rate, ty)?;
    let (mut x_new, mut h_new) = (Vec::new(), Vec::new());
    for ((x, g), h) in xs.into_iter().zip(gs).zip(hs) {
        let gr = regularized(cx, norm, x, g)?;
        let g2 = cx.binary("graph.mul", gr, gr)?;
        let hn = cx.binary("graph.add", h, g2)?;
        let root = cx.unary("graph.sqrt", hn)?;
        let eps = cx.scalar(epsilon, root);
        let adaptive = cx.binary("graph.add", root, eps)?;
        let step = cx.binary("graph.mul", rate, gr)?;
        let step = cx.binary("graph.div", step, adaptive)?;
        x_new.push(cx.binary("graph.sub", x, step)?);
        h_new.push(hn);
    }
    x_new.extend(h_new);
    Ok(x_new)
}

/// Adam: `V_new = alpha · V + (1 − alpha) · G_r`, `H_new = beta · H + (1 − beta) · G_r²`,
/// `R_adjusted = T > 0 ? R · √(1 − beta^T) / (1 − alpha^T) : R`,
/// `X_final = (1 − norm_coefficient_post) · (X − R_adjusted · V_new / (√H_new + epsilon))`.
fn adam(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let alpha = cx.float_or("alpha", 0.9);
    let beta = cx.float_or("beta", 0.999);
    let epsilon = cx.float_or("epsilon", 1e-6);
    let norm = cx.float_or("norm_coefficient", 0.0);
    let norm_post = cx.float_or("norm_coefficient_post", 0.0);
    let (r, t, [xs, gs, vs, hs], ty) = optimizer_inputs(cx, ["X", "G", "V", "H"])?;
    // The bias-corrected rate, in R's type; the select keeps R itself at T = 0, where the
    // correction is 0 / 0.
    let rty = cx.elem(r);
    let tf = cx.cast(t, rty)?;
    let one = cx.scalar(1.0, r);
    let mut one_minus_power = |base: f64| -> NodeResult<Value> {
        let b = cx.scalar(base, r);
        let power = cx.binary("graph.pow", b, tf)?;
        cx.binary("graph.sub", one, power)
    };
    let (beta_t, alpha_t) = (one_minus_power(beta)?, one_minus_power(alpha)?);
    let root = cx.unary("graph.sqrt", beta_t)?;
    let corrected = cx.binary("graph.mul", r, root)?;
    let corrected = cx.binary("graph.div", corrected, alpha_t)?;
    let positive = after_first_step(cx, t)?;
    let rate = cx.select(positive, corrected, r)?;
    let rate = cx.cast(rate, ty)?;
    let (mut x_new, mut v_new, mut h_new) = (Vec::new(), Vec::new(), Vec::new());
    for (((x, g), v), h) in xs.into_iter().zip(gs).zip(vs).zip(hs) {
        let gr = regularized(cx, norm, x, g)?;
        let av = scaled(cx, alpha, v)?;
        let ag = scaled(cx, 1.0 - alpha, gr)?;
        let vn = cx.binary("graph.add", av, ag)?;
        let bh = scaled(cx, beta, h)?;
        let g2 = cx.binary("graph.mul", gr, gr)?;
        let bg = scaled(cx, 1.0 - beta, g2)?;
        let hn = cx.binary("graph.add", bh, bg)?;
        let sqrt = cx.unary("graph.sqrt", hn)?;
        let eps = cx.scalar(epsilon, sqrt);
        let denominator = cx.binary("graph.add", sqrt, eps)?;
        let direction = cx.binary("graph.div", vn, denominator)?;
        let step = cx.binary("graph.mul", rate, direction)?;
        let xn = cx.binary("graph.sub", x, step)?;
        x_new.push(scaled(cx, 1.0 - norm_post, xn)?);
        v_new.push(vn);
        h_new.push(hn);
    }
    x_new.extend(v_new);
    x_new.extend(h_new);
    Ok(x_new)
}

/// Momentum: `V_new = alpha · V + (T > 0 ? beta : 1) · G_r`, then `X_new = X − R · V_new`
/// (`mode = "standard"`) or `X_new = X − R · (G_r + alpha · V_new)` (`"nesterov"`).
fn momentum(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let alpha = required_float(cx, "alpha")?;
    let beta = required_float(cx, "beta")?;
    let norm = required_float(cx, "norm_coefficient")?;
    let nesterov = match cx.attr_string("mode").as_deref() {
        Some("standard") => false,
        Some("nesterov") => true,
        Some(other) => {
            return Err(
                format!("attribute 'mode' must be standard or nesterov, not '{other}'").into(),
            )
        }
        None => return Err("attribute 'mode' is required".into()),
    };
    let (r, t, [xs, gs, vs], ty) = optimizer_inputs(cx, ["X", "G", "V"])?;
    let rate = cx.cast(r, ty)?;
    let positive = after_first_step(cx, t)?;
    let (b, one) = (cx.scalar_of(beta, ty), cx.scalar_of(1.0, ty));
    let coefficient = cx.select(positive, b, one)?;
    let (mut x_new, mut v_new) = (Vec::new(), Vec::new());
    for ((x, g), v) in xs.into_iter().zip(gs).zip(vs) {
        let gr = regularized(cx, norm, x, g)?;
        let av = scaled(cx, alpha, v)?;
        let bg = cx.binary("graph.mul", coefficient, gr)?;
        let vn = cx.binary("graph.add", av, bg)?;
        let direction = if nesterov {
            let avn = scaled(cx, alpha, vn)?;
            cx.binary("graph.add", gr, avn)?
        } else {
            vn
        };
        let step = cx.binary("graph.mul", rate, direction)?;
        x_new.push(cx.binary("graph.sub", x, step)?);
        v_new.push(vn);
    }
    x_new.extend(v_new);
    Ok(x_new)
}
