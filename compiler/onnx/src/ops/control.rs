//! Control flow: `If`, `Loop` and `Scan`.
//!
//! - **If** whose condition is a constant (a shape test, as exporters and ONNX function bodies
//!   write them) imports only the branch taken. A condition known only at run time becomes
//!   `graph.if`, each branch imported into its region: only the branch taken runs. The
//!   branches must give their outputs in one element type and rank; where their sizes differ
//!   the result dim is `?`. When a branch does not import (written for other input shapes) or
//!   the branches do not join, and the condition is computed from a graph input, the import
//!   asks for that input's value (`ImportError::NeedsConstant`: `dlc-run --inputs` gives it,
//!   and only the branch taken is imported).
//! - **Loop** with a constant trip count of at most [`UNROLL_TRIPS`] iterations (and at most
//!   [`UNROLL_NODES`] nodes in all), whose `cond` is a constant and whose body computes its
//!   next `cond` from constants and the iteration number only, is unrolled: the body is
//!   imported once per iteration, carried values threaded through and scan outputs stacked, so
//!   the iterations fuse like any other ops. Every other Loop becomes `graph.loop`, its body
//!   imported once into its region: the trip count and condition are then read at run time.
//!   A carried value whose size changes between iterations gets a `?` dim. A body that needs
//!   its iteration number at import (a Slice by it) is unrolled after all when the trip count
//!   is known, up to [`MAX_TRIPS`] iterations.
//! - **Scan** over a static sequence axis is unrolled under the same bounds, or becomes a
//!   `graph.loop` over the sequence (each iteration gathers its slice of every scan input;
//!   reversed and non-leading scan outputs are flipped and transposed after it). A `?`
//!   sequence axis is refused.
//!
//! Unrolled iterations and subgraphs together are bounded by the importer's node budget, so a
//! model cannot make the IR grow without bound; a `graph.loop`'s trip count costs nothing at
//! import.
//!
//! Subgraphs see the enclosing graphs' values (captured outer values) by name, as ONNX scopes
//! them; their own names end with them.

use super::{dtype, Handler};
use crate::importer::{NodeCx, NodeError, NodeResult};
use crate::proto::{type_proto, GraphProto, ValueInfoProto};
use crate::tensor::element_type;
use dlc_graph::control::{fits, loop_arg_types};
use dlc_graph::tensor_parts;
use dlc_ir::{Type, Value, DYNAMIC};
use dlc_tensor::{DType, Literal};
use std::collections::HashSet;

pub(super) const OPS: &[(&str, Handler)] = &[("If", if_op), ("Loop", loop_op), ("Scan", scan)];

/// The most iterations a `Loop` or `Scan` is unrolled for; longer ones become `graph.loop`.
pub const UNROLL_TRIPS: i64 = 16;

/// The most body nodes all iterations of an unrolled `Loop` or `Scan` may import together.
pub const UNROLL_NODES: usize = 512;

/// The most iterations a `Loop` whose body cannot be a `graph.loop` region is unrolled for.
pub const MAX_TRIPS: i64 = 1 << 14;

/// Whether a loop of `trips` iterations over `g` is unrolled.
fn unrolls(trips: i64, g: &GraphProto) -> bool {
    trips <= UNROLL_TRIPS && (trips.max(0) as usize).saturating_mul(g.node.len()) <= UNROLL_NODES
}

/// The graph attribute `name`, which the operator requires.
fn body<'i>(cx: &mut NodeCx<'i, '_>, name: &str) -> NodeResult<&'i GraphProto> {
    cx.attr_graph(name)
        .ok_or_else(|| format!("attribute '{name}' (a graph) is required").into())
}

/// The single boolean of a condition tensor.
fn truth(t: &Literal, what: &str) -> NodeResult<bool> {
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
    let c = condition(cx, cond, "the condition")?;
    match runtime_if(cx, c, then_branch, else_branch) {
        Ok(results) => Ok(results),
        // Without its condition, both branches must import for the shapes at hand and join;
        // a condition computed from a graph input asks for that input's value instead, and the
        // import repeated with it keeps only the branch taken (silero-vad's sample rate input
        // picks its 16 kHz or 8 kHz network, each written for its own input length).
        Err(err) => Err(match cx.const_input(0) {
            Err(needs @ NodeError::NeedsConstant(_)) => needs,
            _ => err,
        }),
    }
}

/// `graph.if` on the one-boolean `c`, each branch imported into its region.
fn runtime_if(
    cx: &mut NodeCx,
    c: Value,
    then_branch: &GraphProto,
    else_branch: &GraphProto,
) -> NodeResult<Vec<Value>> {
    let (then_region, then_values) = cx.region_block(&[], |cx, _| {
        cx.inline_graph("then_branch", then_branch, &[])
    })?;
    let (else_region, else_values) = match cx.region_block(&[], |cx, _| {
        cx.inline_graph("else_branch", else_branch, &[])
    }) {
        Ok(r) => r,
        Err(e) => {
            cx.discard_region(then_region);
            return Err(e);
        }
    };
    let joined = if then_values.len() != else_values.len() {
        Err(format!(
            "the branches have {} and {} outputs",
            then_values.len(),
            else_values.len()
        )
        .into())
    } else {
        then_values
            .iter()
            .zip(&else_values)
            .enumerate()
            .map(|(i, (&a, &b))| {
                let (ta, tb) = (cx.ctx().value_type(a), cx.ctx().value_type(b));
                join(cx, ta, tb).ok_or_else(|| {
                    let p = dlc_ir::Printer::new(cx.ctx());
                    let (ta, tb) = (p.type_to_string(ta), p.type_to_string(tb));
                    format!(
                        "output #{i} is '{ta}' in one branch and '{tb}' in the other; dlc needs \
                         one element type and rank"
                    )
                    .into()
                })
            })
            .collect::<NodeResult<Vec<Type>>>()
    };
    match joined {
        Ok(types) => Ok(cx.region_op("graph.if", &[c], &types, vec![then_region, else_region])),
        Err(e) => {
            cx.discard_region(then_region);
            cx.discard_region(else_region);
            Err(e)
        }
    }
}

/// `cond` as the one-element `i1` tensor of rank 0 that `graph.if` and `graph.loop` take.
fn condition(cx: &mut NodeCx, cond: Value, what: &str) -> NodeResult<Value> {
    if cx.shape(cond).iter().any(|&d| d != 1) || cx.elem(cond) != Type::I1 {
        return Err(format!("{what} must be one boolean").into());
    }
    cx.reshape(cond, &[])
}

/// The type both `a` and `b` fit: their element type and rank, `?` where their dims differ;
/// `None` when they have different element types or ranks.
fn join(cx: &mut NodeCx, a: Type, b: Type) -> Option<Type> {
    let (ta, tb) = (tensor_parts(cx.ctx(), a)?, tensor_parts(cx.ctx(), b)?);
    if ta.element != tb.element || ta.shape.len() != tb.shape.len() {
        return None;
    }
    let dims: Vec<i64> = ta
        .shape
        .iter()
        .zip(&tb.shape)
        .map(|(&x, &y)| if x == y { x } else { DYNAMIC })
        .collect();
    Some(cx.ctx().tensor_type(&dims, ta.element))
}

fn loop_op(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let graph = body(cx, "body")?;
    let known = |cx: &mut NodeCx, i: usize| cx.opt_input(i).map(|v| (v, cx.constant_of(v)));
    let trips = match known(cx, 0) {
        Some((_, Some(m))) if m.len() == 1 && m.dtype().is_int() => Some(Some(m.get(0).as_i64())),
        Some((_, Some(_))) => return Err("'M' must be one integer".into()),
        Some((_, None)) => Some(None),
        None => None,
    };
    // A `cond` input makes the body's `cond` output decide; without one it is ignored.
    let cond = match known(cx, 1) {
        Some((_, Some(c))) => Some(Some(truth(&c, "'cond'")?)),
        Some((_, None)) => Some(None),
        None => None,
    };
    if trips.is_none() && cond.is_none() {
        return Err("a Loop with neither 'M' nor 'cond' never ends".into());
    }
    let carried_count = cx.num_inputs().saturating_sub(2);
    let carried = (2..cx.num_inputs())
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
    let unrolled = match (trips, cond) {
        (Some(Some(m)), None | Some(Some(_))) => {
            unrolls(m, graph) && (cond.is_none() || cond_known_at_import(cx, graph))
        }
        _ => false,
    };
    if !unrolled {
        let err = match rolled_loop(cx, graph, cond.is_some(), carried.clone()) {
            Ok(results) => return Ok(results),
            Err(e) => e,
        };
        // A body that needs its iteration number at import (a Slice by it, say) is unrolled
        // instead when the trip count is known, up to `MAX_TRIPS`; one given by a graph input
        // may be pinned (`--const`, `--inputs`) to get there.
        for (i, given) in [(0, trips), (1, cond.map(|c| c.map(i64::from)))] {
            if matches!(given, Some(None)) {
                return Err(match cx.const_input(i) {
                    Err(needs @ NodeError::NeedsConstant(_)) => needs,
                    _ => err,
                });
            }
        }
        if trips.flatten().is_none_or(|m| m > MAX_TRIPS) {
            return Err(err);
        }
    }
    let limit = trips.flatten().unwrap_or(i64::MAX);
    let mut cond = cond.flatten();
    let mut carried = carried;
    let scan_count = outputs - 1 - carried_count;
    let mut scans: Vec<Vec<Value>> = vec![Vec::new(); scan_count];
    let mut i = 0i64;
    while i < limit && cond != Some(false) {
        let iteration = cx.constant(Literal::from_i64(DType::I64, &[], &[i]));
        let cond_in = cx.constant(Literal::from_bools(&[], &[cond.unwrap_or(true)]));
        let mut inputs = vec![iteration, cond_in];
        inputs.extend(&carried);
        let out = cx.inline_graph("body", graph, &inputs)?;
        if cond.is_some() {
            let c = cx
                .constant_of(out[0])
                .ok_or("the body's 'cond' output did not fold to a constant")?;
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

/// Whether the body's `cond` output is computed from constants, the iteration number and the
/// incoming `cond` only (so each unrolled iteration folds it to a constant): every node on the
/// way reads only such values (initializers, `Constant` nodes, outer values that are
/// constants), and none holds a subgraph.
fn cond_known_at_import(cx: &mut NodeCx, g: &GraphProto) -> bool {
    let mut known: HashSet<&str> = g.input.iter().take(2).map(|i| i.name.as_str()).collect();
    known.extend(g.initializer.iter().map(|t| t.name.as_str()));
    let locals: HashSet<&str> = g
        .input
        .iter()
        .map(|i| i.name.as_str())
        .chain(
            g.node
                .iter()
                .flat_map(|n| n.output.iter().map(String::as_str)),
        )
        .collect();
    for node in &g.node {
        let has_graph = node
            .attribute
            .iter()
            .any(|a| a.g.is_some() || !a.graphs.is_empty());
        let inputs_known = node.input.iter().all(|i| {
            i.is_empty()
                || known.contains(i.as_str())
                || (!locals.contains(i.as_str()) && cx.outer_constant(i).is_some())
        });
        if inputs_known && !has_graph {
            known.extend(node.output.iter().map(String::as_str));
        }
    }
    g.output
        .first()
        .is_some_and(|o| known.contains(o.name.as_str()))
}

/// A `Loop` as `graph.loop`: `M` and `cond` are read at run time (absent ones become `i64::MAX`
/// and `true`; without a `cond` input the body's `cond` output is ignored, as ONNX has it).
fn rolled_loop(
    cx: &mut NodeCx,
    graph: &GraphProto,
    has_cond: bool,
    init: Vec<Value>,
) -> NodeResult<Vec<Value>> {
    let max_trip = match cx.opt_input(0) {
        Some(m) => {
            if cx.shape(m).iter().any(|&d| d != 1) || cx.elem(m) != Type::I64 {
                return Err("'M' must be one int64".into());
            }
            cx.reshape(m, &[])?
        }
        None => cx.constant(Literal::from_i64(DType::I64, &[], &[i64::MAX])),
    };
    let cond = match cx.opt_input(1) {
        Some(c) => condition(cx, c, "'cond'")?,
        None => cx.constant(Literal::from_bools(&[], &[true])),
    };
    let body = |cx: &mut NodeCx, args: &[Value]| -> NodeResult<Vec<Value>> {
        let mut out = cx.inline_graph("body", graph, args)?;
        out[0] = if has_cond {
            condition(cx, out[0], "the body's 'cond' output")?
        } else {
            cx.constant(Literal::from_bools(&[], &[true]))
        };
        Ok(out)
    };
    loop_of(cx, max_trip, cond, init, body)
}

/// Builds a `graph.loop` on `max_trip`, `cond` and the carried values `init`, its body made by
/// `body` (given the body's arguments, returning the next condition, the carried values and
/// the scan elements). A carried value the body gives in another size than it gets has its
/// type widened to `?` there and the body is imported again, until the types settle.
pub(super) fn loop_of(
    cx: &mut NodeCx,
    max_trip: Value,
    cond: Value,
    init: Vec<Value>,
    body: impl Fn(&mut NodeCx, &[Value]) -> NodeResult<Vec<Value>>,
) -> NodeResult<Vec<Value>> {
    let n = init.len();
    let mut carried: Vec<Type> = init.iter().map(|v| cx.ctx().value_type(*v)).collect();
    // Each pass widens at least one dim to `?`, so the dims bound the passes.
    let dims: usize = init.iter().map(|v| cx.shape(*v).len()).sum();
    for _ in 0..=dims {
        let args = loop_arg_types(cx.ctx(), &carried);
        let (region, out) = cx.region_block(&args, &body)?;
        let mut widened = false;
        for k in 0..n {
            let got = cx.ctx().value_type(out[1 + k]);
            if fits(cx.ctx(), got, carried[k]) {
                continue;
            }
            match join(cx, carried[k], got) {
                Some(t) => {
                    carried[k] = t;
                    widened = true;
                }
                None => {
                    cx.discard_region(region);
                    let p = dlc_ir::Printer::new(cx.ctx());
                    return Err(format!(
                        "carried value #{k} enters the body as '{}' and leaves it as '{}'; dlc \
                         needs one element type and rank",
                        p.type_to_string(carried[k]),
                        p.type_to_string(got)
                    )
                    .into());
                }
            }
        }
        if widened {
            cx.discard_region(region);
            continue;
        }
        let mut types = carried.clone();
        for &e in &out[1 + n..] {
            let ty = cx.ctx().value_type(e);
            let t = tensor_parts(cx.ctx(), ty).ok_or("a scan element must be a tensor")?;
            let mut dims = vec![DYNAMIC];
            dims.extend(&t.shape);
            types.push(cx.ctx().tensor_type(&dims, t.element));
        }
        let mut operands = vec![max_trip, cond];
        operands.extend(&init);
        return Ok(cx.region_op("graph.loop", &operands, &types, vec![region]));
    }
    Err("the carried values' types do not settle".into())
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
        let shape = cx.shape(x);
        let a = super::axis(a, shape.len())? as usize;
        // A static length wins over a `?` one (equal at run time, or a gather out of range).
        match length {
            Some(l) if l != DYNAMIC && shape[a] != DYNAMIC && l != shape[a] => {
                return Err("the scan inputs have different sequence lengths".into())
            }
            Some(l) if l != DYNAMIC => {}
            _ => length = Some(shape[a]),
        }
        axes.push(a);
    }
    let length = length.unwrap_or(0);
    if length == DYNAMIC || !unrolls(length, graph) {
        return rolled_scan(cx, graph, plan, states, xs, &axes, length);
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

/// A scan of `length` steps (`?` when the sequence axis is dynamic) as `graph.loop`: each
/// iteration gathers its element of every scan input (the iteration number, or `length − 1 −`
/// it for a reversed input), and the stacked scan outputs are flipped and moved to their axes
/// after the loop.
fn rolled_scan(
    cx: &mut NodeCx,
    graph: &GraphProto,
    plan: &Plan,
    states: Vec<Value>,
    xs: &[Value],
    axes: &[usize],
    length: i64,
) -> NodeResult<Vec<Value>> {
    let n = states.len();
    // The length as a tensor (a count of positions when it is known only at run time), and as
    // an `index` for the positions of a reversed output.
    let (max_trip, size) = if length == DYNAMIC {
        let (x, a) = xs
            .iter()
            .zip(axes)
            .find(|(x, a)| cx.shape(**x)[**a] == DYNAMIC)
            .ok_or("a dynamic scan length without a dynamic scan axis")?;
        let size = cx.dim_size(*x, *a);
        (cx.size_tensor(size, false)?, Some(size))
    } else {
        (
            cx.constant(Literal::from_i64(DType::I64, &[], &[length])),
            None,
        )
    };
    let one = cx.constant(Literal::from_i64(DType::I64, &[], &[1]));
    let last = cx.binary("graph.sub", max_trip, one)?;
    let cond = cx.constant(Literal::from_bools(&[], &[true]));
    let body = |cx: &mut NodeCx, args: &[Value]| -> NodeResult<Vec<Value>> {
        let i = args[0];
        let mut inputs = args[2..].to_vec();
        for ((&x, &a), &rev) in xs.iter().zip(axes).zip(&plan.in_reverse) {
            let at = if rev {
                cx.op("graph.sub", &[last, i], &[])?
            } else {
                i
            };
            let axis = cx.int_attr(a as i64);
            inputs.push(cx.op("graph.gather", &[x, at], &[("axis", axis)])?);
        }
        let mut out = vec![args[1]];
        out.extend(cx.inline_graph("body", graph, &inputs)?);
        Ok(out)
    };
    let mut results = loop_of(cx, max_trip, cond, states, body)?;
    for (j, r) in results.iter_mut().enumerate().skip(n) {
        let k = j - n;
        if plan.out_reverse[k] {
            let idx = match size {
                Some(size) => {
                    let ty = cx.ctx().tensor_type(&[DYNAMIC], Type::I64);
                    let zero = cx.int_attr(0);
                    let forward = cx.op_typed("graph.iota", &[size], &[("axis", zero)], ty)?;
                    cx.binary("graph.sub", last, forward)?
                }
                None => {
                    let order: Vec<i64> = (0..length).rev().collect();
                    cx.constant(Literal::from_i64(DType::I64, &[length as usize], &order))
                }
            };
            let axis = cx.int_attr(0);
            *r = cx.op("graph.gather", &[*r, idx], &[("axis", axis)])?;
        }
        let rank = cx.shape(*r).len();
        let axis = super::axis(plan.out_axes[k], rank)? as usize;
        if axis != 0 {
            // The stacked axis 0 moves to `axis`, the element's axes keep their order.
            let mut perm: Vec<i64> = (1..rank as i64).collect();
            perm.insert(axis, 0);
            *r = cx.transpose(*r, &perm)?;
        }
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
        return Ok(cx.constant(Literal::zeros(dt, &dims)));
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
