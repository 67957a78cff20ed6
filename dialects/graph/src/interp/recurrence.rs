//! Reference semantics of `graph.rnn` (see [`crate::recurrence`]): the scan written step by
//! step in `f64`, each direction and batch entry on its own, rounded to the operand dtype once
//! at the end.

use crate::recurrence::{Cell, RnnSpec};
use dlc_tensor::{DType, Literal};

/// The results `y`, `y_h` (and `y_c` for lstm) of `graph.rnn` with `spec` on `operands`
/// (`xp, r, rb, h0`, for lstm `c0, p`, then the optional `sequence_lens`).
pub fn rnn(spec: &RnnSpec, operands: &[&Literal]) -> Result<Vec<Literal>, String> {
    let cell = spec.cell;
    let n = cell.operands();
    if operands.len() != n && operands.len() != n + 1 {
        return Err(format!(
            "expects {n} or {} operands, got {}",
            n + 1,
            operands.len()
        ));
    }
    let dtype = operands[0].dtype();
    if !dtype.is_float() {
        return Err(format!("is defined on floats only, not {dtype}"));
    }
    let f = |i: usize| operands[i].to_f64_vec();
    let (xp, r, rb, h0) = (f(0), f(1), f(2), f(3));
    let (c0, p) = if cell == Cell::Lstm {
        (f(4), f(5))
    } else {
        (Vec::new(), Vec::new())
    };
    let xs = operands[0].shape();
    let (steps, batch) = (xs[0], xs[1]);
    let dirs = spec.direction.count();
    let hidden = operands[1].shape().get(1).copied().ok_or("r must be 3-D")?;
    let gh = cell.gates() * hidden;
    if xs[2] != dirs * gh || operands[3].shape() != [dirs, batch, hidden] {
        return Err("operand shapes do not agree".into());
    }
    let lens: Vec<usize> = match operands.get(n) {
        Some(l) => {
            let v = l.to_i64_vec();
            if v.len() != batch {
                return Err(format!(
                    "sequence_lens has {} entries for a batch of {batch}",
                    v.len()
                ));
            }
            v.iter()
                .map(|&x| x.clamp(0, steps as i64) as usize)
                .collect()
        }
        None => vec![steps; batch],
    };
    let mut y = vec![0.0; steps * dirs * batch * hidden];
    let mut y_h = vec![0.0; dirs * batch * hidden];
    let mut y_c = vec![0.0; dirs * batch * hidden];
    let clip = |x: f64| spec.clip.map_or(x, |c| x.clamp(-c, c));
    for d in 0..dirs {
        let act = |k: usize, x: f64| spec.activation(d, k).apply(clip(x));
        let w = &r[d * gh * hidden..(d + 1) * gh * hidden];
        let bias = &rb[d * gh..(d + 1) * gh];
        // Column `j` of `v · r[d]`.
        let dot = |j: usize, v: &[f64]| -> f64 { (0..hidden).map(|k| v[k] * w[k * gh + j]).sum() };
        for (b, &len) in lens.iter().enumerate() {
            let state = (d * batch + b) * hidden;
            let mut h = h0[state..state + hidden].to_vec();
            let mut c = if cell == Cell::Lstm {
                c0[state..state + hidden].to_vec()
            } else {
                Vec::new()
            };
            for s in 0..len {
                let t = if spec.direction.is_reverse(d) {
                    len - 1 - s
                } else {
                    s
                };
                let x = &xp[(t * batch + b) * dirs * gh + d * gh..][..gh];
                let gate = |j: usize, v: &[f64]| x[j] + dot(j, v) + bias[j];
                match cell {
                    Cell::Lstm => {
                        let pd = &p[d * 3 * hidden..(d + 1) * 3 * hidden];
                        for k in 0..hidden {
                            let g = |q: usize| gate(q * hidden + k, &h);
                            let i = act(0, g(0) + pd[k] * c[k]);
                            let fg = if spec.input_forget {
                                1.0 - i
                            } else {
                                act(0, g(2) + pd[2 * hidden + k] * c[k])
                            };
                            let cand = act(1, g(3));
                            let cn = fg * c[k] + i * cand;
                            let o = act(0, g(1) + pd[hidden + k] * cn);
                            // h is read by later k's gates: write the new values after the loop.
                            // The cell state is no gate: h(c') takes it unclipped.
                            let hc = spec.activation(d, 2).apply(cn);
                            y[((t * dirs + d) * batch + b) * hidden + k] = o * hc;
                            y_c[state + k] = cn;
                        }
                        c.copy_from_slice(&y_c[state..state + hidden]);
                    }
                    Cell::Gru => {
                        let z: Vec<f64> = (0..hidden).map(|k| act(0, gate(k, &h))).collect();
                        let rg: Vec<f64> =
                            (0..hidden).map(|k| act(0, gate(hidden + k, &h))).collect();
                        let rh: Vec<f64> = rg.iter().zip(&h).map(|(a, b)| a * b).collect();
                        for k in 0..hidden {
                            let j = 2 * hidden + k;
                            let pre = if spec.linear_before_reset {
                                x[j] + rg[k] * (dot(j, &h) + bias[j])
                            } else {
                                x[j] + dot(j, &rh) + bias[j]
                            };
                            let cand = act(1, pre);
                            y[((t * dirs + d) * batch + b) * hidden + k] =
                                (1.0 - z[k]) * cand + z[k] * h[k];
                        }
                    }
                    Cell::Rnn => {
                        for k in 0..hidden {
                            y[((t * dirs + d) * batch + b) * hidden + k] = act(0, gate(k, &h));
                        }
                    }
                }
                let at = ((t * dirs + d) * batch + b) * hidden;
                h.copy_from_slice(&y[at..at + hidden]);
            }
            // An empty sequence leaves zero final states (as onnxruntime).
            if len > 0 {
                y_h[state..state + hidden].copy_from_slice(&h);
                if cell == Cell::Lstm {
                    y_c[state..state + hidden].copy_from_slice(&c);
                }
            }
        }
    }
    let round = |shape: &[usize], v: &[f64]| Literal::from_f64(DType::F64, shape, v).cast(dtype);
    let mut out = vec![
        round(&[steps, dirs, batch, hidden], &y),
        round(&[dirs, batch, hidden], &y_h),
    ];
    if cell == Cell::Lstm {
        out.push(round(&[dirs, batch, hidden], &y_c));
    }
    Ok(out)
}
