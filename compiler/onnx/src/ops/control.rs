//! Control flow: `If`, `Loop` and `Scan`, imported inline into the one graph function.
//!
//! - **If** whose condition is a constant (a shape test, as exporters and ONNX function bodies
//!   write them) imports only the branch taken. A condition known only at run time imports
//!   both branches and picks each output with `graph.select` (if-conversion), which needs the
//!   branches' outputs to have the same type; both branches then run, so a branch that would
//!   fail at run time (an integer division by zero) fails the model even when not taken.
//! - **Loop** and **Scan** are unrolled: the body is imported once per iteration with that
//!   iteration's values bound to its inputs, loop-carried values threaded through, and scan
//!   outputs stacked. The trip count must be known at import time: `Loop`'s `M` and `cond` must
//!   be constants (or fold to them) and each iteration's `cond` output must fold; `Scan`'s
//!   sequence axis must be static. Iterations are bounded by [`MAX_TRIPS`] and all subgraphs
//!   together by the importer's node budget, so a 2^40-step loop is an error, not a hang.
//!
//! Subgraphs see the enclosing graphs' values (captured outer values) by name, as ONNX scopes
//! them; their own names end with them.

use super::{dtype, Handler};
use crate::importer::{NodeCx, NodeResult};
use crate::proto::{type_proto, GraphProto, ValueInfoProto};
use crate::tensor::element_type;
use dlc_ir::Value;
use dlc_tensor::{DType, Tensor};

pub(super) const OPS: &[(&str, Handler)] = &[("If", if_op), ("Loop", loop_op), ("Scan", scan)];

/// The most iterations an unrolled `Loop` or `Scan` may take.
pub const MAX_TRIPS: i64 = 1 << 14;

/// The graph attribute `name`, which the operator requires.
fn body<'i>(cx: &mut NodeCx<'i, '_>, name: &str) -> NodeResult<&'i GraphProto> {
    cx.attr_graph(name)
        .ok_or_else(|| format!("attribute '{name}' (a graph) is required").into())
}

/// The single boolean of a condition tensor.
fn truth(t: &Tensor, what: &str) -> NodeResult<bool> {
    if t.len() != 1 {
        return Err(format!("{what} must hold one element, not {}", t.len()).into());
    }
    Ok(t.get(0).as_bool())
}

fn if_op(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let cond = cx.input(0)?;
    let then_branch = body(cx, "then_branch")?;
    let else_branch = body(cx, "else_branch")?;
    if let Some(c) = cx.constant_of(cond) {
        let taken = if truth(&c, "the condition")? {
            then_branch
        } else {
            else_branch
        };
        let name = if std::ptr::eq(taken, then_branch) {
            "then_branch"
        } else {
            "else_branch"
        };
        return cx.inline_graph(name, taken, &[]);
    }
    let then_values = cx.inline_graph("then_branch", then_branch, &[])?;
    let else_values = cx.inline_graph("else_branch", else_branch, &[])?;
    if then_values.len() != else_values.len() {
        return Err(format!(
            "the branches have {} and {} outputs",
            then_values.len(),
            else_values.len()
        )
        .into());
    }
    if cx.shape(cond).iter().any(|&d| d != 1) {
        return Err("the condition must hold one element".into());
    }
    let c = cx.reshape(cond, &[])?;
    let mut out = Vec::with_capacity(then_values.len());
    for (i, (&a, &b)) in then_values.iter().zip(&else_values).enumerate() {
        let (ta, tb) = (cx.ctx().value_type(a), cx.ctx().value_type(b));
        if ta != tb {
            let p = dlc_ir::Printer::new(cx.ctx());
            let (ta, tb) = (p.type_to_string(ta), p.type_to_string(tb));
            return Err(format!(
                "output #{i} is '{ta}' in one branch and '{tb}' in the other; with a condition \
                 known only at run time dlc needs branches of one type"
            )
            .into());
        }
        out.push(cx.select(c, a, b)?);
    }
    Ok(out)
}

fn loop_op(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let graph = body(cx, "body")?;
    let trips = match cx.const_input(0)? {
        Some(m) if m.len() == 1 && m.dtype().is_int() => Some(m.get(0).as_i64()),
        Some(_) => return Err("'M' must be one integer".into()),
        None => None,
    };
    // A `cond` input makes the body's `cond` output decide; without one it is ignored.
    let mut cond = match cx.const_input(1)? {
        Some(c) => Some(truth(&c, "'cond'")?),
        None => None,
    };
    let limit = trips.unwrap_or(i64::MAX);
    if trips.is_none() && cond.is_none() {
        return Err("a Loop with neither 'M' nor 'cond' never ends".into());
    }
    let carried_count = cx.num_inputs().saturating_sub(2);
    let mut carried = (2..cx.num_inputs())
        .map(|i| cx.input(i))
        .collect::<NodeResult<Vec<_>>>()?;
    let outputs = graph.output.len();
    if graph.input.len() != carried_count + 2 || outputs < carried_count + 1 {
        return Err(format!(
            "the body takes {} inputs and gives {} outputs, but the node carries {carried_count} \
             values (the body must take 2 + {carried_count} and give at least 1 + {carried_count})",
            graph.input.len(),
            outputs
        )
        .into());
    }
    let scan_count = outputs - 1 - carried_count;
    let mut scans: Vec<Vec<Value>> = vec![Vec::new(); scan_count];
    let mut i = 0i64;
    while i < limit && cond != Some(false) {
        if i >= MAX_TRIPS {
            return Err(format!(
                "the loop runs more than {MAX_TRIPS} iterations (dlc unrolls loops at import)"
            )
            .into());
        }
        let iteration = cx.constant(Tensor::from_i64(DType::I64, &[], &[i]));
        let cond_in = cx.constant(Tensor::from_bools(&[], &[cond.unwrap_or(true)]));
        let mut inputs = vec![iteration, cond_in];
        inputs.extend(&carried);
        let out = cx.inline_graph("body", graph, &inputs)?;
        if cond.is_some() {
            let c = cx.constant_of(out[0]).ok_or(
                "the body's 'cond' output depends on the graph inputs; dlc unrolls loops at \
                 import and needs it to be known then",
            )?;
            cond = Some(truth(&c, "the body's 'cond' output")?);
        }
        carried = out[1..1 + carried_count].to_vec();
        for (k, v) in out[1 + carried_count..].iter().enumerate() {
            scans[k].push(*v);
        }
        i += 1;
    }
    let mut results = carried;
    for (k, values) in scans.into_iter().enumerate() {
        let info = &graph.output[1 + carried_count + k];
        results.push(stack(cx, &values, 0, false, info)?);
    }
    Ok(results)
}

fn scan(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let graph = body(cx, "body")?;
    let scan_inputs = cx
        .attr_int("num_scan_inputs")
        .ok_or("attribute 'num_scan_inputs' is required")?;
    // Opset 8 puts an optional `sequence_lens` first and a batch axis before the sequence.
    let batched = cx.opset < 9;
    let first = usize::from(batched);
    let given = cx.num_inputs().saturating_sub(first);
    let m = usize::try_from(scan_inputs)
        .ok()
        .filter(|&m| m >= 1 && m <= given)
        .ok_or_else(|| format!("'num_scan_inputs' = {scan_inputs} does not fit {given} inputs"))?;
    let n = given - m;
    let directions = |cx: &mut NodeCx, name: &str, count: usize| -> NodeResult<Vec<bool>> {
        let d = cx.attr_ints(name).unwrap_or_else(|| vec![0; count]);
        if d.len() != count || d.iter().any(|x| *x != 0 && *x != 1) {
            return Err(format!("'{name}' must be {count} values of 0 or 1, not {d:?}").into());
        }
        Ok(d.into_iter().map(|x| x == 1).collect())
    };
    let name = if batched {
        "directions"
    } else {
        "scan_input_directions"
    };
    let in_reverse = directions(cx, name, m)?;
    let k = graph
        .output
        .len()
        .checked_sub(n)
        .ok_or("the body has fewer outputs than states")?;
    let out_reverse = if batched {
        vec![false; k]
    } else {
        directions(cx, "scan_output_directions", k)?
    };
    let in_axes = if batched {
        vec![0; m]
    } else {
        cx.attr_ints("scan_input_axes")
            .unwrap_or_else(|| vec![0; m])
    };
    let out_axes = if batched {
        vec![0; k]
    } else {
        cx.attr_ints("scan_output_axes")
            .unwrap_or_else(|| vec![0; k])
    };
    if in_axes.len() != m || out_axes.len() != k {
        return Err("'scan_input_axes' and 'scan_output_axes' need one axis per scan value".into());
    }
    if graph.input.len() != n + m {
        return Err(format!(
            "the body takes {} inputs, but the node has {n} states and {m} scan inputs",
            graph.input.len()
        )
        .into());
    }
    let states = (first..first + n)
        .map(|i| cx.input(i))
        .collect::<NodeResult<Vec<_>>>()?;
    let xs = (first + n..first + n + m)
        .map(|i| cx.input(i))
        .collect::<NodeResult<Vec<_>>>()?;
    if !batched {
        let plan = Plan {
            in_reverse,
            out_reverse,
            in_axes,
            out_axes,
        };
        return scan_once(cx, graph, &plan, states, &xs);
    }
    // Opset 8: every input has a batch axis 0 and the sequence at axis 1; each batch entry is
    // scanned on its own and the results stacked again.
    if let Some(lens) = cx.opt_input(0) {
        let lens = cx
            .constant_of(lens)
            .ok_or("'sequence_lens' must be a constant")?;
        let t = xs
            .first()
            .map(|&x| cx.shape(x))
            .and_then(|s| s.get(1).copied());
        if lens.to_i64_vec().iter().any(|&l| Some(l) != t) {
            return Err("'sequence_lens' shorter than the sequence is not supported".into());
        }
    }
    let batch = cx.static_shape(xs[0], "a scan input")?[0];
    let plan = Plan {
        in_reverse,
        out_reverse,
        in_axes,
        out_axes,
    };
    let mut per_batch: Vec<Vec<Value>> = vec![Vec::new(); n + k];
    for b in 0..batch {
        let pick = |cx: &mut NodeCx, v: Value| -> NodeResult<Value> { take(cx, v, 0, b) };
        let s: Vec<Value> = states
            .iter()
            .map(|&v| pick(cx, v))
            .collect::<NodeResult<_>>()?;
        let x: Vec<Value> = xs.iter().map(|&v| pick(cx, v)).collect::<NodeResult<_>>()?;
        for (j, v) in scan_once(cx, graph, &plan, s, &x)?.into_iter().enumerate() {
            per_batch[j].push(v);
        }
    }
    per_batch
        .iter()
        .zip(&graph.output)
        .map(|(values, info)| stack(cx, values, 0, false, info))
        .collect()
}

/// The per-value directions and axes of one `Scan`.
struct Plan {
    in_reverse: Vec<bool>,
    out_reverse: Vec<bool>,
    in_axes: Vec<i64>,
    out_axes: Vec<i64>,
}

/// One scan over the sequence axes of `xs`, from `states`: the final states, then the stacked
/// scan outputs.
fn scan_once(
    cx: &mut NodeCx,
    graph: &GraphProto,
    plan: &Plan,
    mut states: Vec<Value>,
    xs: &[Value],
) -> NodeResult<Vec<Value>> {
    let n = states.len();
    let mut axes = Vec::with_capacity(xs.len());
    let mut length = None;
    for (&x, &a) in xs.iter().zip(&plan.in_axes) {
        let shape = cx.static_shape(x, "a scan input")?;
        let a = super::axis(a, shape.len())? as usize;
        if *length.get_or_insert(shape[a]) != shape[a] {
            return Err("the scan inputs have different sequence lengths".into());
        }
        axes.push(a);
    }
    let length = length.unwrap_or(0);
    if length > MAX_TRIPS {
        return Err(format!(
            "the scan runs {length} iterations, more than {MAX_TRIPS} (dlc unrolls scans at import)"
        )
        .into());
    }
    let k = graph.output.len() - n;
    let mut outs: Vec<Vec<Value>> = vec![Vec::new(); k];
    for t in 0..length {
        let mut inputs = states.clone();
        for ((&x, &a), &rev) in xs.iter().zip(&axes).zip(&plan.in_reverse) {
            let at = if rev { length - 1 - t } else { t };
            inputs.push(take(cx, x, a, at)?);
        }
        let out = cx.inline_graph("body", graph, &inputs)?;
        states = out[..n].to_vec();
        for (j, v) in out[n..].iter().enumerate() {
            outs[j].push(*v);
        }
    }
    let mut results = states;
    for (j, values) in outs.into_iter().enumerate() {
        let info = &graph.output[n + j];
        let rank = 1 + value_rank(cx, values.first().copied(), info)?;
        let axis = super::axis(plan.out_axes[j], rank)? as usize;
        results.push(stack(cx, &values, axis, plan.out_reverse[j], info)?);
    }
    Ok(results)
}

/// Element `at` of `x` along `axis`, with that axis removed.
fn take(cx: &mut NodeCx, x: Value, axis: usize, at: i64) -> NodeResult<Value> {
    let shape = cx.static_shape(x, "a scanned value")?;
    let rank = shape.len();
    let mut starts = vec![0; rank];
    let mut ends = shape.clone();
    starts[axis] = at;
    ends[axis] = at + 1;
    let piece = cx.slice(x, &starts, &ends, &vec![1; rank])?;
    let mut kept = shape;
    kept.remove(axis);
    cx.reshape(piece, &kept)
}

/// The rank of a scan output: of its first value, or as the body declares it when there is
/// none.
fn value_rank(cx: &NodeCx, first: Option<Value>, info: &ValueInfoProto) -> NodeResult<usize> {
    match first {
        Some(v) => Ok(cx.shape(v).len()),
        None => Ok(declared(info)?.1.len()),
    }
}

/// The element type and static shape the body declares for output `info`.
fn declared(info: &ValueInfoProto) -> NodeResult<(DType, Vec<i64>)> {
    let unknown = || -> crate::importer::NodeError {
        format!(
            "no iteration ran, and the body does not declare a static type for '{}'",
            info.name
        )
        .into()
    };
    let Some(type_proto::Value::TensorType(t)) =
        info.r#type.as_ref().and_then(|t| t.value.as_ref())
    else {
        return Err(unknown());
    };
    use crate::proto::tensor_shape_proto::dimension::Value as Dim;
    let dims = t
        .shape
        .as_ref()
        .ok_or_else(unknown)?
        .dim
        .iter()
        .map(|d| match d.value {
            Some(Dim::DimValue(v)) if v >= 0 => Ok(v),
            _ => Err(unknown()),
        })
        .collect::<NodeResult<Vec<_>>>()?;
    Ok((dtype(element_type(t.elem_type)?), dims))
}

/// `values` (one per iteration, of one shape) stacked along a new `axis`, in reverse order
/// when `reverse`; with no values, an empty tensor of the type `info` declares.
fn stack(
    cx: &mut NodeCx,
    values: &[Value],
    axis: usize,
    reverse: bool,
    info: &ValueInfoProto,
) -> NodeResult<Value> {
    let Some(&first) = values.first() else {
        let (dt, mut shape) = declared(info)?;
        shape.insert(axis.min(shape.len()), 0);
        let dims: Vec<usize> = shape.iter().map(|&d| d as usize).collect();
        return Ok(cx.constant(Tensor::zeros(dt, &dims)));
    };
    let shape = cx.static_shape(first, "a scan output")?;
    let mut grown = shape.clone();
    grown.insert(axis, 1);
    let mut parts = Vec::with_capacity(values.len());
    for &v in values {
        if cx.shape(v) != shape {
            return Err("the scan outputs change shape between iterations".into());
        }
        parts.push(cx.reshape(v, &grown)?);
    }
    if reverse {
        parts.reverse();
    }
    if parts.len() == 1 {
        return Ok(parts[0]);
    }
    let a = cx.int_attr(axis as i64);
    cx.op("graph.concat", &parts, &[("axis", a)])
}
