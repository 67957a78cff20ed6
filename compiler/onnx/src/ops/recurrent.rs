//! The recurrent operators LSTM, GRU and RNN: the input projection of every time step as one
//! `graph.matmul` (`X·Wᵀ + Wb`, a GEMM over `T·B` rows), then the scan as one `graph.rnn`
//! (`dlc_graph::recurrence`), which takes the recurrent weights (transposed to `[D, H, G·H]`,
//! folded for constant weights), the recurrent bias, the initial states (zeros when absent),
//! the peepholes and `sequence_lens`. `layout = 1` transposes the
//! batch-major inputs and outputs around it. The activations are resolved here: ONNX gives
//! `activation_alpha`/`activation_beta` only to the functions that take them, in order; the op
//! takes one value per function.

use super::Handler;
use crate::importer::{NodeCx, NodeResult};
use dlc_graph::recurrence::{ActivationKind, Cell};
use dlc_ir::{Type, Value, DYNAMIC};

pub(super) const OPS: &[(&str, Handler)] = &[("LSTM", lstm), ("GRU", gru), ("RNN", rnn)];

fn lstm(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    recurrent(cx, Cell::Lstm)
}

fn gru(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    recurrent(cx, Cell::Gru)
}

fn rnn(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    recurrent(cx, Cell::Rnn)
}

/// The ONNX spelling of each activation the recurrent operators accept.
const ONNX_ACTIVATIONS: [(&str, ActivationKind); 11] = [
    ("Relu", ActivationKind::Relu),
    ("Tanh", ActivationKind::Tanh),
    ("Sigmoid", ActivationKind::Sigmoid),
    ("Affine", ActivationKind::Affine),
    ("LeakyRelu", ActivationKind::LeakyRelu),
    ("ThresholdedRelu", ActivationKind::ThresholdedRelu),
    ("ScaledTanh", ActivationKind::ScaledTanh),
    ("HardSigmoid", ActivationKind::HardSigmoid),
    ("Elu", ActivationKind::Elu),
    ("Softsign", ActivationKind::Softsign),
    ("Softplus", ActivationKind::Softplus),
];

fn recurrent(cx: &mut NodeCx, cell: Cell) -> NodeResult<Vec<Value>> {
    let op_type = match cell {
        Cell::Lstm => "LSTM",
        Cell::Gru => "GRU",
        Cell::Rnn => "RNN",
    };
    let (mut x, w, r) = (cx.input(0)?, cx.input(1)?, cx.input(2)?);
    let b = cx.opt_input(3);
    let lens = cx.opt_input(4);
    let mut h0 = cx.opt_input(5);
    let (mut c0, p) = match cell {
        Cell::Lstm => (cx.opt_input(6), cx.opt_input(7)),
        _ => (None, None),
    };
    let max_inputs = if cell == Cell::Lstm { 8 } else { 6 };
    if cx.num_inputs() > max_inputs {
        return Err(format!("{op_type} takes at most {max_inputs} inputs").into());
    }
    if !cx.is_float(x) {
        return Err(format!("{op_type} needs a float input X").into());
    }
    let direction = cx
        .attr_string("direction")
        .unwrap_or_else(|| "forward".into());
    let dirs: i64 = match direction.as_str() {
        "forward" | "reverse" => 1,
        "bidirectional" => 2,
        other => {
            return Err(format!(
                "attribute 'direction' must be forward, reverse or bidirectional, not '{other}'"
            )
            .into())
        }
    };
    let layout = cx.int_or("layout", 0);
    if !(0..=1).contains(&layout) {
        return Err(format!("attribute 'layout' must be 0 or 1, not {layout}").into());
    }
    let gates = cell.gates() as i64;
    let ws = cx.static_shape(w, &format!("{op_type}'s W"))?;
    let rs = cx.static_shape(r, &format!("{op_type}'s R"))?;
    let [wd, wg, input_size] = ws[..] else {
        return Err(
            format!("W must be 3-D [num_directions, {gates}·hidden_size, input_size]").into(),
        );
    };
    let hidden = rs.get(2).copied().unwrap_or(0);
    if rs != [dirs, gates * hidden, hidden] || wd != dirs || wg != gates * hidden {
        return Err(format!(
            "W {ws:?} and R {rs:?} do not fit {dirs} direction(s) of {gates} gates ({direction})"
        )
        .into());
    }
    if let Some(hs) = cx.attr_int("hidden_size") {
        if hs != hidden {
            return Err(format!("attribute 'hidden_size' is {hs}, but R holds {hidden}").into());
        }
    }
    let xs = cx.shape(x);
    if xs.len() != 3 || (xs[2] != DYNAMIC && xs[2] != input_size) {
        return Err(format!(
            "X must be 3-D with {input_size} features (W's last dim), but has shape {xs:?}"
        )
        .into());
    }
    // Everything below is time-major: [T, B, ...] and states [D, B, H].
    if layout == 1 {
        x = cx.transpose(x, &[1, 0, 2])?;
        h0 = h0.map(|h| cx.transpose(h, &[1, 0, 2])).transpose()?;
        c0 = c0.map(|c| cx.transpose(c, &[1, 0, 2])).transpose()?;
    }
    let xs = cx.shape(x);
    let (steps, batch) = (xs[0], xs[1]);
    let gh = gates * hidden;

    // The projection X·Wᵀ (+ Wb) of every step at once: [T·B, I] · [I, D·G·H] when one of
    // T and B is known, so it is one GEMM; a batched product otherwise.
    let w2 = cx.reshape(w, &[dirs * gh, input_size])?;
    let wt = cx.transpose(w2, &[1, 0])?;
    // The input bias Wb, [D·G·H].
    let wb = match b {
        Some(b) => {
            let bs = cx.shape(b);
            if bs != [dirs, 2 * gh] {
                return Err(
                    format!("B must have shape [{dirs}, {}], but has {bs:?}", 2 * gh).into(),
                );
            }
            let wb = cx.slice(b, &[0, 0], &[dirs, gh], &[1, 1])?;
            Some(cx.reshape(wb, &[dirs * gh])?)
        }
        None => None,
    };
    let with_bias = |cx: &mut NodeCx, y: Value| match wb {
        Some(wb) => cx.binary("graph.add", y, wb),
        None => Ok(y),
    };
    let xp = if steps != DYNAMIC || batch != DYNAMIC {
        let rows = cx.reshape(x, &[-1, input_size])?;
        let y = cx.op("graph.matmul", &[rows, wt], &[])?;
        // The bias before the reshape, so `fuse` makes it the GEMM's epilogue.
        let y = with_bias(cx, y)?;
        let shape = if steps == DYNAMIC {
            [-1, batch, dirs * gh]
        } else {
            [steps, -1, dirs * gh]
        };
        cx.reshape(y, &shape)?
    } else {
        let y = cx.op("graph.matmul", &[x, wt], &[])?;
        with_bias(cx, y)?
    };
    let rb = match b {
        Some(b) => cx.slice(b, &[0, gh], &[dirs, 2 * gh], &[1, 1])?,
        None => zeros(cx, x, &[dirs, gh])?,
    };
    let rt = cx.transpose(r, &[0, 2, 1])?;
    let state = |cx: &mut NodeCx, given: Option<Value>, what: &str| -> NodeResult<Value> {
        match given {
            Some(v) => {
                if cx.elem(v) != cx.elem(x) {
                    return Err(format!("{what} must have X's element type").into());
                }
                Ok(v)
            }
            None => zeros(cx, x, &[dirs, batch, hidden]),
        }
    };
    let mut operands = vec![xp, rt, rb, state(cx, h0, "initial_h")?];
    if cell == Cell::Lstm {
        operands.push(state(cx, c0, "initial_c")?);
        operands.push(match p {
            Some(p) => p,
            None => zeros(cx, x, &[dirs, 3 * hidden])?,
        });
    }
    if let Some(l) = lens {
        if ![Type::I32, Type::I64].contains(&cx.elem(l)) {
            return Err("sequence_lens must be an int32 tensor".into());
        }
        operands.push(l);
    }

    let mut attrs = vec![
        ("cell", cx.ctx().string_attr(cell.name())),
        ("direction", cx.ctx().string_attr(&direction)),
    ];
    if let Some(list) = activation_attrs(cx, cell, dirs as usize)? {
        attrs.extend(list);
    }
    if cx.has_attr("clip") {
        let clip = cx.float_or("clip", 0.0);
        if clip.is_nan() || clip <= 0.0 {
            return Err(format!("attribute 'clip' must be positive, not {clip}").into());
        }
        attrs.push(("clip", cx.f64_attr(clip)));
    }
    if cell == Cell::Gru && cx.int_or("linear_before_reset", 0) != 0 {
        attrs.push(("linear_before_reset", cx.ctx().bool_attr(true)));
    }
    if cell == Cell::Lstm && cx.int_or("input_forget", 0) != 0 {
        attrs.push(("input_forget", cx.ctx().bool_attr(true)));
    }
    let mut results = cx.rnn_op(&operands, &attrs)?;
    if layout == 1 {
        results[0] = cx.transpose(results[0], &[2, 0, 1, 3])?;
        for s in &mut results[1..] {
            *s = cx.transpose(*s, &[1, 0, 2])?;
        }
    }
    Ok(results)
}

/// An attribute of the op, by name.
type NamedAttr = (&'static str, dlc_ir::Attribute);

/// The `activations`, `activation_alpha` and `activation_beta` attributes of the op, or `None`
/// for the defaults: ONNX names `functions` per direction (the first direction's repeated when
/// only those are given) and gives α and β, in order, only to the functions that take them.
fn activation_attrs(
    cx: &mut NodeCx,
    cell: Cell,
    dirs: usize,
) -> NodeResult<Option<Vec<NamedAttr>>> {
    cx.ignore("activations");
    let names: Option<Vec<String>> = cx
        .node
        .attribute
        .iter()
        .find(|a| a.name == "activations")
        .map(|a| {
            a.strings
                .iter()
                .map(|s| String::from_utf8_lossy(s).into_owned())
                .collect()
        });
    let alphas = cx.attr_floats("activation_alpha").unwrap_or_default();
    let betas = cx.attr_floats("activation_beta").unwrap_or_default();
    let Some(names) = names else {
        if !alphas.is_empty() || !betas.is_empty() {
            return Err("activation_alpha/activation_beta are given without activations".into());
        }
        return Ok(None);
    };
    let per = cell.functions();
    let names = if names.len() == per && dirs == 2 {
        [names.clone(), names].concat()
    } else {
        names
    };
    if names.len() != per * dirs {
        return Err(format!(
            "attribute 'activations' must name {} functions ({per} per direction), but names {}",
            per * dirs,
            names.len()
        )
        .into());
    }
    let (mut next_alpha, mut next_beta) = (alphas.iter(), betas.iter());
    let mut kinds = Vec::new();
    let (mut a_out, mut b_out) = (Vec::new(), Vec::new());
    for name in &names {
        let Some(&(_, kind)) = ONNX_ACTIVATIONS
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
        else {
            return Err(format!("activation '{name}' is not supported").into());
        };
        let (mut alpha, mut beta) = kind.defaults();
        if kind.takes_alpha() {
            if let Some(a) = next_alpha.next() {
                alpha = *a as f64;
            }
        }
        if kind.takes_beta() {
            if let Some(b) = next_beta.next() {
                beta = *b as f64;
            }
        }
        kinds.push(cx.ctx().string_attr(kind.name()));
        a_out.push(alpha);
        b_out.push(beta);
    }
    let list = cx.ctx().array_attr(&kinds);
    let f64_array = |cx: &mut NodeCx, v: &[f64]| {
        cx.ctx().intern_attr(dlc_ir::AttrKind::DenseArray {
            element: Type::F64,
            values: v.iter().map(|f| f.to_bits() as i64).collect(),
        })
    };
    let alpha = f64_array(cx, &a_out);
    let beta = f64_array(cx, &b_out);
    Ok(Some(vec![
        ("activations", list),
        ("activation_alpha", alpha),
        ("activation_beta", beta),
    ]))
}

/// Zeros of `x`'s element type and shape `dims`, whose `?` dim (the batch) is `x`'s dim 1.
fn zeros(cx: &mut NodeCx, x: Value, dims: &[i64]) -> NodeResult<Value> {
    let elem = cx.elem(x);
    if !dims.contains(&DYNAMIC) {
        let t = dlc_tensor::Literal::zeros(super::dtype(elem), &[]);
        return cx.splat_constant(&t, dims);
    }
    let axis = cx.int_attr(1);
    let b = cx.op_typed("graph.dim", &[x], &[("axis", axis)], Type::INDEX)?;
    let zero = cx.ctx().float_attr(0.0, elem);
    let ty = cx.ctx().tensor_type(dims, elem);
    cx.op_typed("graph.fill", &[b], &[("value", zero)], ty)
}
