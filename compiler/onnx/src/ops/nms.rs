//! NonMaxSuppression: greedy selection of boxes by score, each batch and class on its own.
//!
//! ONNX's algorithm takes the candidates (boxes scoring above `score_threshold`) in order of
//! score, highest first (ties by lower index), and keeps one unless it overlaps a box kept
//! before by more than `iou_threshold` (intersection over union), until
//! `max_output_boxes_per_class` are kept. The same selection, run for every batch and class at
//! once: a `graph.loop` whose step picks each class's best box still alive (an argmax), keeps it
//! while the class is under its maximum, and kills it and every alive box it overlaps (so a box
//! that would be suppressed by a kept one is never picked). Step `t` records what it kept at
//! position `t` of `[B, C, N]` masks, so the result is read out after the loop in batch, class,
//! then selection order, as a data-sized `[n, 3]` (`compact.rs`). Each step costs `B·C·N`; the
//! loop runs at most `min(max_output_boxes_per_class, N)` steps and stops once no class has an
//! alive box left under its maximum. Boxes, scores and the class count need static shapes.

use super::{compact::true_positions, control::loop_of, Handler};
use crate::importer::{NodeCx, NodeResult};
use dlc_ir::{Type, Value, DYNAMIC};
use dlc_tensor::{DType, Literal};

pub(super) const OPS: &[(&str, Handler)] = &[("NonMaxSuppression", nms)];

/// The one element of optional input `i` as a rank-0 tensor of element type `ty`, or
/// `default`.
fn scalar_input(cx: &mut NodeCx, i: usize, ty: Type, default: Literal) -> NodeResult<Value> {
    let Some(v) = cx.opt_input(i) else {
        return Ok(cx.constant(default));
    };
    if cx.shape(v).iter().any(|&d| d != 1) {
        return Err(format!("input #{i} must hold one value").into());
    }
    if cx.elem(v) != ty {
        return Err(format!("input #{i} has the wrong element type").into());
    }
    cx.reshape(v, &[])
}

fn nms(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let boxes = cx.input(0)?;
    let scores = cx.input(1)?;
    let center = cx.int_or("center_point_box", 0);
    if center != 0 && center != 1 {
        return Err(format!("attribute 'center_point_box' must be 0 or 1, not {center}").into());
    }
    let (b, n) = match cx.shape(boxes)[..] {
        [b, n, 4] if b != DYNAMIC && n != DYNAMIC => (b, n),
        _ => return Err("boxes must have the static shape [batches, boxes, 4]".into()),
    };
    let c = match cx.shape(scores)[..] {
        [sb, c, sn] if sb == b && sn == n && c != DYNAMIC => c,
        _ => return Err(format!("scores must have the static shape [{b}, classes, {n}]").into()),
    };
    let float = cx.elem(boxes);
    if !cx.is_float(boxes) || cx.elem(scores) != float {
        return Err("boxes and scores must be floats of one type".into());
    }
    let max_out = scalar_input(cx, 2, Type::I64, Literal::from_i64(DType::I64, &[], &[0]))?;
    let dt = super::dtype(float);
    let iou_threshold = scalar_input(cx, 3, float, Literal::from_f64(dt, &[], &[0.0]))?;
    // The box edges and areas, each [B, N].
    let column = |cx: &mut NodeCx, k: i64| -> NodeResult<Value> {
        let s = cx.slice(boxes, &[0, 0, k], &[b, n, k + 1], &[1, 1, 1])?;
        cx.reshape(s, &[b, n])
    };
    let [c0, c1, c2, c3] = [0, 1, 2, 3].map(|k| column(cx, k));
    let (c0, c1, c2, c3) = (c0?, c1?, c2?, c3?);
    let (x_min, x_max, y_min, y_max) = if center == 0 {
        // [y1, x1, y2, x2], either corner first.
        (
            cx.binary("graph.min", c1, c3)?,
            cx.binary("graph.max", c1, c3)?,
            cx.binary("graph.min", c0, c2)?,
            cx.binary("graph.max", c0, c2)?,
        )
    } else {
        // [x_center, y_center, width, height].
        let half = cx.scalar(0.5, c2);
        let (hw, hh) = (
            cx.binary("graph.mul", c2, half)?,
            cx.binary("graph.mul", c3, half)?,
        );
        (
            cx.binary("graph.sub", c0, hw)?,
            cx.binary("graph.add", c0, hw)?,
            cx.binary("graph.sub", c1, hh)?,
            cx.binary("graph.add", c1, hh)?,
        )
    };
    let w = cx.binary("graph.sub", x_max, x_min)?;
    let h = cx.binary("graph.sub", y_max, y_min)?;
    let area = cx.binary("graph.mul", w, h)?;
    let edges = [x_min, x_max, y_min, y_max, area];
    // The candidates: every box, or those scoring above the threshold.
    let alive = match cx.opt_input(4) {
        Some(_) => {
            let t = scalar_input(cx, 4, float, Literal::from_f64(dt, &[], &[0.0]))?;
            cx.cmp("gt", scores, t)?
        }
        None => cx.splat_constant(&Literal::from_bools(&[], &[true]), &[b, c, n])?,
    };
    let count = cx.splat_constant(&Literal::from_i64(DType::I64, &[], &[0]), &[b, c])?;
    let sel = cx.splat_constant(&Literal::from_i64(DType::I64, &[], &[0]), &[b, c, n])?;
    let kept = cx.splat_constant(&Literal::from_bools(&[], &[false]), &[b, c, n])?;
    let boxes_n = cx.constant(Literal::from_i64(DType::I64, &[], &[n]));
    let trips = cx.binary("graph.min", max_out, boxes_n)?;
    let go = cx.constant(Literal::from_bools(&[], &[true]));
    let positions = cx.i64_vector(&(0..n).collect::<Vec<_>>());
    let positions = cx.reshape(positions, &[1, 1, n])?;
    let offsets = cx.i64_vector(&(0..b).map(|k| k * n).collect::<Vec<_>>());
    let offsets = cx.reshape(offsets, &[b, 1])?;
    let flat_edges = edges
        .iter()
        .map(|&e| cx.reshape(e, &[b * n]))
        .collect::<NodeResult<Vec<_>>>()?;
    let step = |cx: &mut NodeCx, args: &[Value]| -> NodeResult<Vec<Value>> {
        let [t, _, alive, count, sel, kept] = args[..] else {
            return Err("the NonMaxSuppression step takes six values".into());
        };
        // Each class's best alive box, and whether it is kept.
        let lowest = cx.scalar(f64::NEG_INFINITY, scores);
        let remaining = cx.select(alive, scores, lowest)?;
        let (two, no) = (cx.int_attr(2), cx.ctx().bool_attr(false));
        let best = cx.op(
            "graph.argmax",
            &[remaining],
            &[("axis", two), ("keepdim", no)],
        )?;
        let any = cx.cast(alive, Type::I64)?;
        let any = cx.reduce("graph.reduce_max", any, &[2], false)?;
        let zero = cx.scalar_of(0.0, Type::I64);
        let has = cx.cmp("gt", any, zero)?;
        let under = cx.cmp("lt", count, max_out)?;
        let took = cx.binary("graph.and", has, under)?;
        // The kept box's edges against every box of its batch: [B, C, N].
        let flat = cx.binary("graph.add", best, offsets)?;
        let zero_axis = cx.int_attr(0);
        let mut picked = Vec::with_capacity(5);
        for &e in &flat_edges {
            let v = cx.op("graph.gather", &[e, flat], &[("axis", zero_axis)])?;
            picked.push(cx.reshape(v, &[b, c, 1])?);
        }
        let all: Vec<Value> = edges
            .iter()
            .map(|&e| cx.reshape(e, &[b, 1, n]))
            .collect::<NodeResult<_>>()?;
        let lo_x = cx.binary("graph.max", picked[0], all[0])?;
        let hi_x = cx.binary("graph.min", picked[1], all[1])?;
        let lo_y = cx.binary("graph.max", picked[2], all[2])?;
        let hi_y = cx.binary("graph.min", picked[3], all[3])?;
        let iw = cx.binary("graph.sub", hi_x, lo_x)?;
        let ih = cx.binary("graph.sub", hi_y, lo_y)?;
        let inter = cx.binary("graph.mul", iw, ih)?;
        let sum = cx.binary("graph.add", picked[4], all[4])?;
        let union = cx.binary("graph.sub", sum, inter)?;
        let fzero = cx.scalar(0.0, scores);
        let mut ok = cx.cmp("gt", iw, fzero)?;
        for v in [ih, inter, picked[4], all[4], union] {
            let positive = cx.cmp("gt", v, fzero)?;
            ok = cx.binary("graph.and", ok, positive)?;
        }
        let iou = cx.binary("graph.div", inter, union)?;
        let over = cx.cmp("gt", iou, iou_threshold)?;
        let suppressed = cx.binary("graph.and", ok, over)?;
        // The kept box and the boxes it overlaps die; it is recorded at position t.
        let best3 = cx.reshape(best, &[b, c, 1])?;
        let itself = cx.cmp("eq", positions, best3)?;
        let dead = cx.binary("graph.or", suppressed, itself)?;
        let took3 = cx.reshape(took, &[b, c, 1])?;
        let dead = cx.binary("graph.and", dead, took3)?;
        let live = cx.unary("graph.not", dead)?;
        let alive = cx.binary("graph.and", alive, live)?;
        let one = cx.cast(took, Type::I64)?;
        let count = cx.binary("graph.add", count, one)?;
        let here = cx.cmp("eq", positions, t)?;
        let write = cx.binary("graph.and", here, took3)?;
        let sel = cx.select(write, best3, sel)?;
        let kept = cx.binary("graph.or", kept, write)?;
        // Go on while some class has an alive box and room for it.
        let under = cx.cmp("lt", count, max_out)?;
        let under = cx.reshape(under, &[b, c, 1])?;
        let open = cx.binary("graph.and", alive, under)?;
        let open = cx.cast(open, Type::I64)?;
        let open = cx.reduce("graph.reduce_max", open, &[0, 1, 2], false)?;
        let go = cx.cmp("gt", open, zero)?;
        Ok(vec![go, alive, count, sel, kept])
    };
    let finals = loop_of(cx, trips, go, vec![alive, count, sel, kept], step)?;
    let (sel, kept) = (finals[2], finals[3]);
    // Read out in batch, class, selection order.
    let mask = cx.reshape(kept, &[b * c * n])?;
    let at = true_positions(cx, mask, "the selection")?;
    let per_batch = cx.scalar_of((c * n) as f64, Type::I64);
    let batch = cx.binary("graph.div", at, per_batch)?;
    let per_class = cx.scalar_of(n as f64, Type::I64);
    let class = cx.binary("graph.div", at, per_class)?;
    let classes = cx.scalar_of(c as f64, Type::I64);
    let class = cx.binary("graph.rem", class, classes)?;
    let flat_sel = cx.reshape(sel, &[b * c * n])?;
    let zero_axis = cx.int_attr(0);
    let index = cx.op("graph.gather", &[flat_sel, at], &[("axis", zero_axis)])?;
    let columns = [batch, class, index]
        .into_iter()
        .map(|v| cx.reshape(v, &[-1, 1]))
        .collect::<NodeResult<Vec<_>>>()?;
    let one_axis = cx.int_attr(1);
    Ok(vec![cx.op(
        "graph.concat",
        &columns,
        &[("axis", one_axis)],
    )?])
}
