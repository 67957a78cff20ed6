//! Shape and dtype inference for the graph ops: the [`InferShapes`] interface and the rule of
//! every op family.
//!
//! Each op's family has a shape rule that computes its result type from its operand types and
//! attributes with the rules of the dialect spec (numpy broadcasting, axis bounds, reshape
//! element counts, conv/pool output sizes, ...). Every graph op implements [`InferShapes`] with
//! its family's rule ([`ShapeRule`]); [`infer`] applies the rule of an op given by name. The
//! rules work on shapes only, so they need no `&mut Context`: the verifier (`verify.rs`) asks
//! the op's `InferShapes` and compares the declared result type, and [`infer_result_type`]
//! interns the answer for builders.
//!
//! Static checks treat `?` as unknown: two dims are compatible when equal or either is `?`, and a
//! rule that needs a `?` dim's value gives `?`.

use crate::ops::{family, DTypeClass, Family, Reduction};
use crate::verify::{
    check_scalar_for, dim_str, dims_compatible, meet, shape_str, tensor_parts, type_str, Attrs,
    TensorType, PREDICATES,
};
use dlc_ir::{Context, NamedAttr, Type, DYNAMIC};

/// Operand `i` as a tensor of `class`.
pub(crate) fn operand(
    ctx: &Context,
    operands: &[Type],
    i: usize,
    class: DTypeClass,
) -> Result<TensorType, String> {
    let ty = *operands
        .get(i)
        .ok_or_else(|| format!("expected at least {} operands", i + 1))?;
    match tensor_parts(ctx, ty) {
        Some(t) if class.contains(t.element) => Ok(t),
        _ => Err(format!(
            "operand #{i} must be {}, but got '{}'",
            class.description(),
            type_str(ctx, ty)
        )),
    }
}

fn expect_operands(operands: &[Type], n: usize) -> Result<(), String> {
    if operands.len() == n {
        return Ok(());
    }
    Err(format!(
        "expected {n} operand{}, but found {}",
        if n == 1 { "" } else { "s" },
        operands.len()
    ))
}

fn same_element(
    ctx: &Context,
    a: &TensorType,
    ai: usize,
    b: &TensorType,
    bi: usize,
) -> Result<(), String> {
    if a.element == b.element {
        return Ok(());
    }
    Err(format!(
        "operand #{bi} has element type '{}', but operand #{ai} has '{}'",
        type_str(ctx, b.element),
        type_str(ctx, a.element)
    ))
}

/// An axis in `[0, rank)`.
pub(crate) fn check_axis(axis: i64, rank: usize, what: &str) -> Result<usize, String> {
    if axis < 0 || axis as usize >= rank {
        return Err(format!(
            "axis {axis} is out of bounds for {what} of rank {rank}"
        ));
    }
    Ok(axis as usize)
}

/// numpy broadcasting of labelled shapes (`operand #i`).
pub fn broadcast_shapes(shapes: &[(usize, &[i64])]) -> Result<Vec<i64>, String> {
    let rank = shapes.iter().map(|(_, s)| s.len()).max().unwrap_or(0);
    let mut out = vec![1i64; rank];
    let mut from: Vec<Option<usize>> = vec![None; rank];
    for (label, shape) in shapes {
        let offset = rank - shape.len();
        for (k, &d) in shape.iter().enumerate() {
            let j = offset + k;
            let cur = out[j];
            let merged = if cur == d || d == 1 {
                cur
            } else if cur == 1 || cur == DYNAMIC {
                d
            } else if d == DYNAMIC {
                cur
            } else {
                let other =
                    from[j].map_or("another operand".to_string(), |o| format!("operand #{o}"));
                return Err(format!(
                    "operands are not broadcast-compatible: dim {k} of operand #{label} is {d}, but {other} has {cur} there"
                ));
            };
            // Remember which operand set the dim, to name it in a later mismatch.
            if merged != cur || (from[j].is_none() && d != 1) {
                from[j] = Some(*label);
            }
            out[j] = merged;
        }
    }
    Ok(out)
}

/// Infers an op's result type from its operand types and attributes, as MLIR's
/// `InferTypeOpInterface`: the verifier checks the declared type against it. Every graph op
/// implements it (with [`ShapeRule`]); it needs no op, so it also serves before one is built.
pub trait InferShapes: Sync {
    /// The result type for these operand types and attributes. Errors are the verifier's
    /// messages (without the `'op' op` prefix).
    fn infer(
        &self,
        ctx: &Context,
        operands: &[Type],
        attrs: &[NamedAttr],
    ) -> Result<TensorType, String>;

    /// The result's symbolic shape from the operands' ([`crate::shapes::SymbolicShapes`] asks
    /// this of ops outside the graph dialect, whose rules it knows): a dim equal to an
    /// operand's dim names the same symbol, so a `?` flows through the op. `None`, the
    /// default, leaves each `?` of the result type a symbol of its own.
    fn infer_symbolic(
        &self,
        _operands: &[Vec<crate::shapes::DimExpr>],
        _attrs: &[NamedAttr],
    ) -> Option<Vec<crate::shapes::DimExpr>> {
        None
    }
}

/// The shape rule of an op whose result has its one operand's type and shape (a unary
/// elementwise op), symbolic dims included: for other dialects' ops
/// (`interfaces = [dyn InferShapes => SameShape]`).
pub struct SameShape;

impl InferShapes for SameShape {
    fn infer(
        &self,
        ctx: &Context,
        operands: &[Type],
        _: &[NamedAttr],
    ) -> Result<TensorType, String> {
        let [input] = operands else {
            return Err(format!("expects one operand, not {}", operands.len()));
        };
        crate::tensor_parts(ctx, *input).ok_or_else(|| "operand must be a tensor".into())
    }

    fn infer_symbolic(
        &self,
        operands: &[Vec<crate::shapes::DimExpr>],
        _: &[NamedAttr],
    ) -> Option<Vec<crate::shapes::DimExpr>> {
        operands.first().cloned()
    }
}

/// The [`InferShapes`] implementation of a graph op: the shape rule of its family.
pub struct ShapeRule {
    /// The op's name, for messages.
    pub name: &'static str,
    /// The op's family, which picks the rule.
    pub family: Family,
}

impl InferShapes for ShapeRule {
    fn infer(
        &self,
        ctx: &Context,
        operands: &[Type],
        attrs: &[NamedAttr],
    ) -> Result<TensorType, String> {
        infer_family(ctx, self.name, self.family, operands, attrs)
    }
}

/// The result type of graph op `name` given its operand types and attributes, as a
/// [`TensorType`]. Errors are the verifier's messages (without the `'op' op` prefix).
pub fn infer(
    ctx: &Context,
    name: &str,
    operands: &[Type],
    attrs: &[NamedAttr],
) -> Result<TensorType, String> {
    let Some(fam) = family(name) else {
        return Err(format!("'{name}' is not a graph op"));
    };
    infer_family(ctx, name, fam, operands, attrs)
}

/// The shape rule of family `fam` (of op `name`).
fn infer_family(
    ctx: &Context,
    name: &str,
    fam: Family,
    operands: &[Type],
    attrs: &[NamedAttr],
) -> Result<TensorType, String> {
    let a = Attrs::new(ctx, attrs);
    match fam {
        Family::Unary(_) | Family::Softmax(_) | Family::Gelu | Family::Silu => {
            expect_operands(operands, 1)?;
            let class = match fam {
                Family::Unary(c) => c,
                _ => DTypeClass::Float,
            };
            let x = operand(ctx, operands, 0, class)?;
            if let Family::Softmax(_) = fam {
                check_axis(a.req_int("axis")?, x.rank(), "operand #0")?;
            }
            if fam == Family::Gelu {
                if let Some(s) = a.string("approximate")? {
                    if s != "none" && s != "tanh" {
                        return Err(format!(
                            "attribute 'approximate' must be \"none\" or \"tanh\", but got \"{s}\""
                        ));
                    }
                }
            }
            Ok(x)
        }
        Family::Binary(class) => {
            expect_operands(operands, 2)?;
            let x = operand(ctx, operands, 0, class)?;
            let y = operand(ctx, operands, 1, class)?;
            same_element(ctx, &x, 0, &y, 1)?;
            let shape = broadcast_shapes(&[(0, &x.shape), (1, &y.shape)])?;
            Ok(TensorType {
                shape,
                element: x.element,
            })
        }
        Family::Cmp => {
            expect_operands(operands, 2)?;
            match a.string("predicate")? {
                Some(p) if PREDICATES.contains(&p) => {}
                Some(p) => {
                    return Err(format!(
                        "attribute 'predicate' must be one of eq, ne, lt, le, gt, ge, but got \"{p}\""
                    ))
                }
                None => return Err("requires string attribute 'predicate'".to_string()),
            }
            let x = operand(ctx, operands, 0, DTypeClass::Any)?;
            let y = operand(ctx, operands, 1, DTypeClass::Any)?;
            same_element(ctx, &x, 0, &y, 1)?;
            let shape = broadcast_shapes(&[(0, &x.shape), (1, &y.shape)])?;
            Ok(TensorType {
                shape,
                element: Type::I1,
            })
        }
        Family::Select => {
            expect_operands(operands, 3)?;
            let c = operand(ctx, operands, 0, DTypeClass::Any)?;
            if c.element != Type::I1 {
                return Err(format!(
                    "operand #0 (the condition) must be a tensor of i1 values, but got '{}'",
                    type_str(ctx, operands[0])
                ));
            }
            let x = operand(ctx, operands, 1, DTypeClass::Any)?;
            let y = operand(ctx, operands, 2, DTypeClass::Any)?;
            same_element(ctx, &x, 1, &y, 2)?;
            let shape = broadcast_shapes(&[(0, &c.shape), (1, &x.shape), (2, &y.shape)])?;
            Ok(TensorType {
                shape,
                element: x.element,
            })
        }
        Family::Cast => Err(
            "the result dtype of 'graph.cast' is not determined by its operand; give the result type"
                .to_string(),
        ),
        Family::BroadcastTo => {
            expect_operands(operands, 1)?;
            let x = operand(ctx, operands, 0, DTypeClass::Any)?;
            let target = a.req_array("shape")?;
            infer_broadcast_to(&x, &target)
        }
        Family::Reshape => {
            let x = operand(ctx, operands, 0, DTypeClass::Any)?;
            let target = a.req_array("shape")?;
            let sizes = &operands[1..];
            if let Some(i) = sizes.iter().position(|t| *t != Type::INDEX) {
                return Err(format!(
                    "operand #{} must be a size of type 'index', but got '{}'",
                    i + 1,
                    type_str(ctx, sizes[i])
                ));
            }
            let shape = if sizes.is_empty() {
                infer_reshape(&x.shape, &target)?
            } else {
                sized_reshape(&x.shape, &target, sizes.len())?
            };
            Ok(TensorType {
                shape,
                element: x.element,
            })
        }
        Family::Transpose => {
            expect_operands(operands, 1)?;
            let x = operand(ctx, operands, 0, DTypeClass::Any)?;
            let perm = a.req_array("perm")?;
            check_perm(&perm, x.rank())?;
            Ok(TensorType {
                shape: perm.iter().map(|p| x.shape[*p as usize]).collect(),
                element: x.element,
            })
        }
        Family::Slice => {
            expect_operands(operands, 1)?;
            let x = operand(ctx, operands, 0, DTypeClass::Any)?;
            let (starts, ends, steps) = (
                a.req_array("starts")?,
                a.req_array("ends")?,
                a.req_array("steps")?,
            );
            for (n, v) in [("starts", &starts), ("ends", &ends), ("steps", &steps)] {
                if v.len() != x.rank() {
                    return Err(format!(
                        "attribute '{n}' has {} entries, but the operand has rank {}",
                        v.len(),
                        x.rank()
                    ));
                }
            }
            let mut shape = Vec::with_capacity(x.rank());
            for i in 0..x.rank() {
                if steps[i] <= 0 {
                    return Err(format!(
                        "step {} of axis {i} must be positive",
                        steps[i]
                    ));
                }
                shape.push(slice_size(x.shape[i], starts[i], ends[i], steps[i]));
            }
            Ok(TensorType {
                shape,
                element: x.element,
            })
        }
        Family::Concat => {
            if operands.is_empty() {
                return Err("expected at least 1 operand".to_string());
            }
            let first = operand(ctx, operands, 0, DTypeClass::Any)?;
            let axis = check_axis(a.req_int("axis")?, first.rank(), "operand #0")?;
            let mut shape = first.shape.clone();
            for i in 1..operands.len() {
                let t = operand(ctx, operands, i, DTypeClass::Any)?;
                same_element(ctx, &first, 0, &t, i)?;
                if t.rank() != first.rank() {
                    return Err(format!(
                        "operand #{i} has rank {}, but operand #0 has rank {}",
                        t.rank(),
                        first.rank()
                    ));
                }
                for (k, &d) in t.shape.iter().enumerate() {
                    if k == axis {
                        shape[k] = if shape[k] == DYNAMIC || d == DYNAMIC {
                            DYNAMIC
                        } else {
                            shape[k]
                                .checked_add(d)
                                .ok_or_else(|| format!("the concatenated dim {k} overflows i64"))?
                        };
                    } else if !dims_compatible(shape[k], d) {
                        return Err(format!(
                            "dim {k} of operand #{i} is {d}, but operand #0 has {} (only axis {axis} may differ)",
                            dim_str(shape[k])
                        ));
                    } else {
                        shape[k] = meet(shape[k], d);
                    }
                }
            }
            Ok(TensorType {
                shape,
                element: first.element,
            })
        }
        Family::Pad => {
            expect_operands(operands, 1)?;
            let x = operand(ctx, operands, 0, DTypeClass::Any)?;
            let (low, high) = (a.req_array("low")?, a.req_array("high")?);
            for (n, v) in [("low", &low), ("high", &high)] {
                if v.len() != x.rank() {
                    return Err(format!(
                        "attribute '{n}' has {} entries, but the operand has rank {}",
                        v.len(),
                        x.rank()
                    ));
                }
                if let Some(i) = v.iter().position(|p| *p < 0) {
                    return Err(format!(
                        "attribute '{n}' has negative padding {} on axis {i}",
                        v[i]
                    ));
                }
            }
            if let Some(v) = a.get("value") {
                check_scalar_for(ctx, "value", v, x.element)?;
            }
            let shape = x
                .shape
                .iter()
                .enumerate()
                .map(|(i, &d)| {
                    if d == DYNAMIC {
                        return Ok(DYNAMIC);
                    }
                    d.checked_add(low[i])
                        .and_then(|v| v.checked_add(high[i]))
                        .ok_or_else(|| format!("the padded dim {i} overflows i64"))
                })
                .collect::<Result<_, String>>()?;
            Ok(TensorType {
                shape,
                element: x.element,
            })
        }
        Family::Gather => {
            expect_operands(operands, 2)?;
            let x = operand(ctx, operands, 0, DTypeClass::Any)?;
            let idx = operand(ctx, operands, 1, DTypeClass::Any)?;
            if idx.element != Type::I32 && idx.element != Type::I64 {
                return Err(format!(
                    "operand #1 (the indices) must be a tensor of i32 or i64 values, but got '{}'",
                    type_str(ctx, operands[1])
                ));
            }
            let axis = check_axis(a.req_int("axis")?, x.rank(), "operand #0")?;
            let mut shape = x.shape[..axis].to_vec();
            shape.extend(&idx.shape);
            shape.extend(&x.shape[axis + 1..]);
            Ok(TensorType {
                shape,
                element: x.element,
            })
        }
        Family::Reduce(kind) => {
            expect_operands(operands, 1)?;
            let class = if kind == Reduction::Mean {
                DTypeClass::Float
            } else {
                DTypeClass::Numeric
            };
            let x = operand(ctx, operands, 0, class)?;
            let axes = a.req_array("axes")?;
            let keepdim = a.flag("keepdim")?;
            let mut reduced = vec![false; x.rank()];
            for &ax in &axes {
                let i = check_axis(ax, x.rank(), "operand #0")?;
                if reduced[i] {
                    return Err(format!("axis {ax} appears twice in 'axes'"));
                }
                reduced[i] = true;
            }
            Ok(TensorType {
                shape: reduce_shape(&x.shape, &reduced, keepdim),
                element: x.element,
            })
        }
        Family::ArgReduce(_) => {
            expect_operands(operands, 1)?;
            let x = operand(ctx, operands, 0, DTypeClass::Numeric)?;
            let axis = check_axis(a.req_int("axis")?, x.rank(), "operand #0")?;
            let keepdim = a.flag("keepdim")?;
            let mut reduced = vec![false; x.rank()];
            reduced[axis] = true;
            Ok(TensorType {
                shape: reduce_shape(&x.shape, &reduced, keepdim),
                element: Type::I64,
            })
        }
        Family::Matmul => {
            expect_operands(operands, 2)?;
            let x = operand(ctx, operands, 0, DTypeClass::Numeric)?;
            let y = operand(ctx, operands, 1, DTypeClass::Numeric)?;
            let bytes = is_byte(x.element) && is_byte(y.element);
            if !bytes {
                same_element(ctx, &x, 0, &y, 1)?;
            }
            let mut t = infer_matmul(
                &x,
                &y,
                a.flag("transpose_a")?,
                a.flag("transpose_b")?,
            )?;
            if bytes {
                t.element = Type::I32;
            }
            Ok(t)
        }
        Family::LayerNorm | Family::RmsNorm => {
            let n = if fam == Family::LayerNorm { 3 } else { 2 };
            expect_operands(operands, n)?;
            let x = operand(ctx, operands, 0, DTypeClass::Float)?;
            let axis = check_axis(a.req_int("axis")?, x.rank(), "operand #0")?;
            if a.float("epsilon")?.is_none() {
                return Err("requires float attribute 'epsilon'".to_string());
            }
            let normalized = &x.shape[axis..];
            for (i, role) in ["gamma", "beta"].iter().enumerate().take(n - 1) {
                let t = operand(ctx, operands, i + 1, DTypeClass::Float)?;
                same_element(ctx, &x, 0, &t, i + 1)?;
                let ok = t.rank() == normalized.len()
                    && t.shape
                        .iter()
                        .zip(normalized)
                        .all(|(a, b)| dims_compatible(*a, *b));
                if !ok {
                    return Err(format!(
                        "operand #{} ({role}) has shape {}, but the normalized shape (operand #0 from axis {axis}) is {}",
                        i + 1,
                        shape_str(&t.shape),
                        shape_str(normalized)
                    ));
                }
            }
            Ok(x)
        }
        Family::Linear => {
            expect_operands(operands, 3)?;
            let x = operand(ctx, operands, 0, DTypeClass::Float)?;
            let w = operand(ctx, operands, 1, DTypeClass::Float)?;
            let b = operand(ctx, operands, 2, DTypeClass::Float)?;
            same_element(ctx, &x, 0, &w, 1)?;
            same_element(ctx, &x, 0, &b, 2)?;
            if x.rank() < 1 || w.rank() != 2 || b.rank() != 1 {
                return Err(format!(
                    "expects operand #0 of rank ≥ 1, weight (operand #1) of rank 2 and bias (operand #2) of rank 1, but got ranks {}, {} and {}",
                    x.rank(),
                    w.rank(),
                    b.rank()
                ));
            }
            let k = x.shape[x.rank() - 1];
            if !dims_compatible(k, w.shape[0]) {
                return Err(format!(
                    "inner dims do not match: operand #0 has {} in its last dim, but the weight (operand #1) has {} rows",
                    dim_str(k),
                    dim_str(w.shape[0])
                ));
            }
            if !dims_compatible(b.shape[0], w.shape[1]) {
                return Err(format!(
                    "the bias (operand #2) has {} elements, but the weight (operand #1) has {} columns",
                    dim_str(b.shape[0]),
                    dim_str(w.shape[1])
                ));
            }
            let mut shape = x.shape[..x.rank() - 1].to_vec();
            shape.push(meet(w.shape[1], b.shape[0]));
            Ok(TensorType {
                shape,
                element: x.element,
            })
        }
        Family::Conv2d => {
            expect_operands(operands, 2)?;
            let x = operand(ctx, operands, 0, DTypeClass::Numeric)?;
            let w = operand(ctx, operands, 1, DTypeClass::Numeric)?;
            // Two 8-bit operands, each of its own signedness, give `i32`, as `graph.matmul`.
            let bytes = is_byte(x.element) && is_byte(w.element);
            if !bytes {
                operand(ctx, operands, 0, DTypeClass::Float)?;
                same_element(ctx, &x, 0, &w, 1)?;
            }
            let mut t = infer_conv2d(&x, &w, &a)?;
            if bytes {
                t.element = Type::I32;
            }
            Ok(t)
        }
        Family::Pool2d(is_max) => {
            expect_operands(operands, 1)?;
            let class = if is_max {
                DTypeClass::Numeric
            } else {
                DTypeClass::Float
            };
            let x = operand(ctx, operands, 0, class)?;
            infer_pool2d(&x, &a)
        }
        Family::Sdpa => {
            if operands.len() != 3 && operands.len() != 4 {
                return Err(format!(
                    "expected 3 or 4 operands (q, k, v [, mask]), but found {}",
                    operands.len()
                ));
            }
            let q = operand(ctx, operands, 0, DTypeClass::Float)?;
            let k = operand(ctx, operands, 1, DTypeClass::Float)?;
            let v = operand(ctx, operands, 2, DTypeClass::Float)?;
            same_element(ctx, &q, 0, &k, 1)?;
            same_element(ctx, &q, 0, &v, 2)?;
            if a.float("scale")?.is_none() {
                return Err("requires float attribute 'scale'".to_string());
            }
            let mask = if operands.len() == 4 {
                let m = operand(ctx, operands, 3, DTypeClass::Float)?;
                same_element(ctx, &q, 0, &m, 3)?;
                Some(m)
            } else {
                None
            };
            infer_sdpa(&q, &k, &v, mask.as_ref())
        }
        Family::Constant | Family::Iota | Family::Fill => Err(format!(
            "the result shape of '{name}' is not determined by its operands; give the result type"
        )),
        Family::Dim | Family::ReadSize => Err(format!("'{name}' returns an index, not a tensor")),
        Family::Rnn => crate::recurrence::infer_rnn(ctx, operands, attrs).map(|mut r| r.remove(0)),
        Family::Fusion | Family::If | Family::Loop | Family::Yield => {
            Err(format!("'{name}' has no single inferred result"))
        }
    }
}

fn reduce_shape(shape: &[i64], reduced: &[bool], keepdim: bool) -> Vec<i64> {
    shape
        .iter()
        .zip(reduced)
        .filter_map(|(&d, &r)| match (r, keepdim) {
            (false, _) => Some(d),
            (true, true) => Some(1),
            (true, false) => None,
        })
        .collect()
}

fn check_perm(perm: &[i64], rank: usize) -> Result<(), String> {
    if perm.len() != rank {
        return Err(format!(
            "attribute 'perm' has {} entries, but the operand has rank {rank}",
            perm.len()
        ));
    }
    let mut seen = vec![false; rank];
    for &p in perm {
        if p < 0 || p as usize >= rank || std::mem::replace(&mut seen[p as usize], true) {
            return Err(format!(
                "attribute 'perm' must be a permutation of 0..{rank}, but has entry {p}"
            ));
        }
    }
    Ok(())
}

/// The size of `start:end:step` (numpy, step > 0) over a dim of size `d`.
pub fn slice_size(d: i64, start: i64, end: i64, step: i64) -> i64 {
    if d == DYNAMIC {
        return DYNAMIC;
    }
    let (s, e) = (slice_bound(start, d), slice_bound(end, d));
    if e > s {
        // In i128: `e - s + step - 1` may exceed i64 for extreme steps; the quotient cannot.
        ((e as i128 - s as i128 + step as i128 - 1) / step as i128) as i64
    } else {
        0
    }
}

/// A numpy slice bound normalized into `[0, d]` (negative counts from the end).
pub fn slice_bound(b: i64, d: i64) -> i64 {
    let b = if b < 0 { b.saturating_add(d) } else { b };
    b.clamp(0, d)
}

fn infer_broadcast_to(x: &TensorType, target: &[i64]) -> Result<TensorType, String> {
    if target.len() < x.rank() {
        return Err(format!(
            "cannot broadcast an operand of rank {} to the lower rank {}",
            x.rank(),
            target.len()
        ));
    }
    let offset = target.len() - x.rank();
    let mut shape = Vec::with_capacity(target.len());
    for (j, &t) in target.iter().enumerate() {
        if t < -1 {
            return Err(format!("attribute 'shape' has invalid entry {t}"));
        }
        let d = if j >= offset { x.shape[j - offset] } else { 1 };
        let out = if t == -1 {
            if d != 1 && d != DYNAMIC {
                d
            } else {
                DYNAMIC
            }
        } else {
            if !(d == 1 || d == DYNAMIC || d == t) {
                return Err(format!(
                    "dim {} of the operand ({d}) cannot be broadcast to {t}",
                    j - offset
                ));
            }
            t
        };
        shape.push(out);
    }
    Ok(TensorType {
        shape,
        element: x.element,
    })
}

/// The result shape of a reshape of `input` to `target` (entries ≥ 0, at most one -1).
pub fn infer_reshape(input: &[i64], target: &[i64]) -> Result<Vec<i64>, String> {
    let mut inferred = None;
    let mut known: i64 = 1;
    for (i, &t) in target.iter().enumerate() {
        if t == -1 {
            if inferred.replace(i).is_some() {
                return Err("attribute 'shape' may contain at most one -1".to_string());
            }
        } else if t < 0 {
            return Err(format!("attribute 'shape' has invalid entry {t}"));
        } else {
            known = known
                .checked_mul(t)
                .ok_or("attribute 'shape' has too many elements")?;
        }
    }
    let total = if input.contains(&DYNAMIC) {
        None
    } else {
        Some(
            input
                .iter()
                .try_fold(1i64, |n, &d| n.checked_mul(d))
                .ok_or("the input has more elements than fit in i64")?,
        )
    };
    let mut shape = target.to_vec();
    match (inferred, total) {
        (Some(i), Some(total)) => {
            if known == 0 || total % known != 0 {
                return Err(format!(
                    "cannot reshape {} ({total} elements) into {}: the -1 entry has no integer size",
                    shape_str(input),
                    shape_str(target)
                ));
            }
            shape[i] = total / known;
        }
        (Some(i), None) => shape[i] = DYNAMIC,
        (None, Some(total)) if total != known => {
            return Err(format!(
                "cannot reshape {} ({total} elements) into {} ({known} elements)",
                shape_str(input),
                shape_str(target)
            ));
        }
        (None, _) => {}
    }
    Ok(shape)
}

/// The result shape of a reshape of `input` to `target` whose `sizes` -1 entries are given by
/// as many `index` operands: a `?` dim each.
fn sized_reshape(input: &[i64], target: &[i64], sizes: usize) -> Result<Vec<i64>, String> {
    if let Some(t) = target.iter().find(|&&t| t < -1) {
        return Err(format!("attribute 'shape' has invalid entry {t}"));
    }
    let given = target.iter().filter(|&&t| t == -1).count();
    if given != sizes {
        return Err(format!(
            "expects one index operand per -1 entry of 'shape' ({given}), but has {sizes}"
        ));
    }
    let known = target
        .iter()
        .filter(|&&t| t >= 0)
        .try_fold(1i64, |n, &t| n.checked_mul(t))
        .ok_or("attribute 'shape' has too many elements")?;
    let total = (!input.contains(&DYNAMIC))
        .then(|| input.iter().try_fold(1i64, |n, &d| n.checked_mul(d)))
        .flatten();
    if let Some(total) = total.filter(|&t| known > 0 && t % known != 0) {
        return Err(format!(
            "cannot reshape {} ({total} elements) into {}: the -1 entries have no integer sizes",
            shape_str(input),
            shape_str(target)
        ));
    }
    Ok(target
        .iter()
        .map(|&t| if t == -1 { DYNAMIC } else { t })
        .collect())
}

/// Whether `ty` is an 8-bit integer type (`i8` or `ui8`): `graph.matmul` and `graph.conv2d`
/// of two of them widen each (by its signedness) and accumulate in `i32`.
pub fn is_byte(ty: Type) -> bool {
    ty == Type::I8 || ty == Type::UI8
}

fn infer_matmul(
    x: &TensorType,
    y: &TensorType,
    transpose_a: bool,
    transpose_b: bool,
) -> Result<TensorType, String> {
    if x.rank() < 2 || y.rank() < 2 {
        return Err(format!(
            "operands must have rank ≥ 2, but have ranks {} and {}",
            x.rank(),
            y.rank()
        ));
    }
    let (xr, yr) = (x.rank(), y.rank());
    let (m, k) = if transpose_a {
        (x.shape[xr - 1], x.shape[xr - 2])
    } else {
        (x.shape[xr - 2], x.shape[xr - 1])
    };
    let (k2, n) = if transpose_b {
        (y.shape[yr - 1], y.shape[yr - 2])
    } else {
        (y.shape[yr - 2], y.shape[yr - 1])
    };
    if !dims_compatible(k, k2) {
        return Err(format!(
            "inner dims do not match: operand #0 is {} and operand #1 is {} (K = {} vs {})",
            shape_str(&x.shape),
            shape_str(&y.shape),
            dim_str(k),
            dim_str(k2)
        ));
    }
    let mut shape = broadcast_shapes(&[(0, &x.shape[..xr - 2]), (1, &y.shape[..yr - 2])])
        .map_err(|e| format!("batch dims: {e}"))?;
    shape.extend([m, n]);
    Ok(TensorType {
        shape,
        element: x.element,
    })
}

fn array_len(
    a: &Attrs<'_>,
    name: &str,
    len: usize,
    default: Option<Vec<i64>>,
) -> Result<Vec<i64>, String> {
    let v = match (a.array(name)?, default) {
        (Some(v), _) => v,
        (None, Some(d)) => return Ok(d),
        (None, None) => return Err(format!("requires attribute '{name}' (array<i64: ...>)")),
    };
    if v.len() != len {
        return Err(format!(
            "attribute '{name}' must have {len} entries, but has {}",
            v.len()
        ));
    }
    Ok(v)
}

fn positive(name: &str, v: &[i64]) -> Result<(), String> {
    match v.iter().find(|x| **x <= 0) {
        Some(x) => Err(format!(
            "attribute '{name}' entries must be positive, but got {x}"
        )),
        None => Ok(()),
    }
}

fn non_negative(name: &str, v: &[i64]) -> Result<(), String> {
    match v.iter().find(|x| **x < 0) {
        Some(x) => Err(format!(
            "attribute '{name}' entries must be non-negative, but got {x}"
        )),
        None => Ok(()),
    }
}

/// The output size of a window of `k` (after dilation) over `d` padded by `lo`/`hi`. A window
/// larger than the padded input is an error for a convolution and an empty output for a pool
/// (`empty_ok`), as onnxruntime has them (ONNX's pool output-size formula gives 0).
fn window_out(
    d: i64,
    (lo, hi): (i64, i64),
    k: i64,
    stride: i64,
    what: &str,
    empty_ok: bool,
) -> Result<i64, String> {
    if d == DYNAMIC || k == DYNAMIC {
        return Ok(DYNAMIC);
    }
    let padded = d as i128 + lo as i128 + hi as i128;
    let span = padded - k as i128;
    if span < 0 {
        if empty_ok {
            return Ok(0);
        }
        return Err(format!(
            "the {what} window ({k}) is larger than the padded input ({padded})"
        ));
    }
    i64::try_from(span / stride as i128 + 1)
        .map_err(|_| format!("the {what} output size overflows i64"))
}

fn infer_conv2d(x: &TensorType, w: &TensorType, a: &Attrs<'_>) -> Result<TensorType, String> {
    if x.rank() != 4 || w.rank() != 4 {
        return Err(format!(
            "expects a rank-4 NCHW input and rank-4 OIHW weights, but got ranks {} and {}",
            x.rank(),
            w.rank()
        ));
    }
    let strides = array_len(a, "strides", 2, Some(vec![1, 1]))?;
    let padding = array_len(a, "padding", 4, Some(vec![0, 0, 0, 0]))?;
    let dilations = array_len(a, "dilations", 2, Some(vec![1, 1]))?;
    let groups = a.int("groups")?.unwrap_or(1);
    positive("strides", &strides)?;
    positive("dilations", &dilations)?;
    non_negative("padding", &padding)?;
    if groups <= 0 {
        return Err(format!(
            "attribute 'groups' must be positive, but got {groups}"
        ));
    }
    let (c, o, wc) = (x.shape[1], w.shape[0], w.shape[1]);
    if c != DYNAMIC && wc != DYNAMIC && wc.checked_mul(groups) != Some(c) {
        return Err(format!(
            "input channels ({c}) must equal weight input channels ({wc}) × groups ({groups})"
        ));
    }
    if o != DYNAMIC && o % groups != 0 {
        return Err(format!(
            "output channels ({o}) must be divisible by groups ({groups})"
        ));
    }
    let eff = |k: i64, dil: i64| -> Result<i64, String> {
        if k == DYNAMIC {
            return Ok(DYNAMIC);
        }
        dil.checked_mul(k - 1)
            .and_then(|v| v.checked_add(1))
            .ok_or_else(|| "the dilated kernel size overflows i64".to_string())
    };
    let h = window_out(
        x.shape[2],
        (padding[0], padding[2]),
        eff(w.shape[2], dilations[0])?,
        strides[0],
        "kernel",
        false,
    )?;
    let wd = window_out(
        x.shape[3],
        (padding[1], padding[3]),
        eff(w.shape[3], dilations[1])?,
        strides[1],
        "kernel",
        false,
    )?;
    Ok(TensorType {
        shape: vec![x.shape[0], o, h, wd],
        element: x.element,
    })
}

fn infer_pool2d(x: &TensorType, a: &Attrs<'_>) -> Result<TensorType, String> {
    if x.rank() != 4 {
        return Err(format!(
            "expects a rank-4 NCHW input, but got rank {}",
            x.rank()
        ));
    }
    let kernel = array_len(a, "kernel", 2, None)?;
    let strides = array_len(a, "strides", 2, None)?;
    let padding = array_len(a, "padding", 4, Some(vec![0, 0, 0, 0]))?;
    positive("kernel", &kernel)?;
    positive("strides", &strides)?;
    non_negative("padding", &padding)?;
    for (i, p) in padding.iter().enumerate() {
        let k = kernel[i % 2];
        if *p >= k {
            return Err(format!(
                "padding {p} must be smaller than the kernel size {k}"
            ));
        }
    }
    let h = window_out(
        x.shape[2],
        (padding[0], padding[2]),
        kernel[0],
        strides[0],
        "pooling",
        true,
    )?;
    let w = window_out(
        x.shape[3],
        (padding[1], padding[3]),
        kernel[1],
        strides[1],
        "pooling",
        true,
    )?;
    Ok(TensorType {
        shape: vec![x.shape[0], x.shape[1], h, w],
        element: x.element,
    })
}

fn infer_sdpa(
    q: &TensorType,
    k: &TensorType,
    v: &TensorType,
    mask: Option<&TensorType>,
) -> Result<TensorType, String> {
    let r = q.rank();
    if r < 2 || k.rank() != r || v.rank() != r {
        return Err(format!(
            "q, k and v must have one rank ≥ 2, but have ranks {}, {} and {}",
            r,
            k.rank(),
            v.rank()
        ));
    }
    let (lq, d) = (q.shape[r - 2], q.shape[r - 1]);
    let (lk, dk) = (k.shape[r - 2], k.shape[r - 1]);
    let (lv, dv) = (v.shape[r - 2], v.shape[r - 1]);
    if !dims_compatible(d, dk) {
        return Err(format!(
            "the head dim of q ({}) and k ({}) must match",
            dim_str(d),
            dim_str(dk)
        ));
    }
    if !dims_compatible(lk, lv) {
        return Err(format!(
            "k and v must have the same sequence length, but have {} and {}",
            dim_str(lk),
            dim_str(lv)
        ));
    }
    let batch = broadcast_shapes(&[
        (0, &q.shape[..r - 2]),
        (1, &k.shape[..r - 2]),
        (2, &v.shape[..r - 2]),
    ])
    .map_err(|e| format!("batch dims: {e}"))?;
    if let Some(m) = mask {
        let mut scores = batch.clone();
        scores.extend([lq, meet(lk, lv)]);
        let b = broadcast_shapes(&[(0, &scores), (3, &m.shape)]).map_err(|_| {
            format!(
                "the mask (operand #3) of shape {} does not broadcast to the scores' shape {}",
                shape_str(&m.shape),
                shape_str(&scores)
            )
        })?;
        if b.len() != scores.len()
            || b.iter()
                .zip(&scores)
                .any(|(x, y)| !dims_compatible(*x, *y) || (*y == 1 && *x != 1))
        {
            return Err(format!(
                "the mask (operand #3) of shape {} does not broadcast to the scores' shape {}",
                shape_str(&m.shape),
                shape_str(&scores)
            ));
        }
    }
    let mut shape = batch;
    shape.extend([lq, dv]);
    Ok(TensorType {
        shape,
        element: q.element,
    })
}

/// The result type of graph op `op_name` for these operand types and attributes, interned; an
/// error message (as the verifier would give it) when the operands do not fit the op or the op's
/// result is not determined by them (`graph.cast`, `graph.constant`, `graph.iota`, `graph.fill`).
pub fn infer_result_type(
    ctx: &mut Context,
    op_name: &str,
    operand_types: &[Type],
    attrs: &[NamedAttr],
) -> Result<Type, String> {
    let t = infer(ctx, op_name, operand_types, attrs)?;
    Ok(t.to_type(ctx))
}
