//! Einsum: the equation parsed into one label per operand axis (ellipsis dims get labels of
//! their own, right-aligned and broadcast as numpy does), then
//!
//! 1. per operand: a label repeated within it takes the diagonal (the two axes moved last,
//!    merged, and gathered at `i·(n + 1)`); a label no other operand and not the output has is
//!    summed out;
//! 2. operands combined left to right: the labels both share and something later needs are
//!    batch dims, the shared ones nothing later needs are contracted, and `graph.matmul`
//!    multiplies `[batch, left, contracted]` by `[batch, contracted, right]` (size-1 dims
//!    broadcast first);
//! 3. the result transposed to the output's order.
//!
//! Shapes must be static.

use super::Handler;
use crate::importer::{NodeCx, NodeResult};
use dlc_ir::Value;
use dlc_tensor::{DType, Literal};

pub(super) const OPS: &[(&str, Handler)] = &[("Einsum", einsum)];

/// An axis label: a letter's code, or `ELLIPSIS + i` for ellipsis dim `i` (counted from the
/// left of the widest ellipsis).
type Label = u32;
const ELLIPSIS: Label = 1 << 16;

/// One side's term: its letters with the position of `...`, if any.
struct Term {
    letters: Vec<Label>,
    ellipsis: Option<usize>,
}

fn parse_term(text: &str) -> NodeResult<Term> {
    let mut letters = Vec::new();
    let mut ellipsis = None;
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if rest.starts_with("...") {
            if ellipsis.is_some() {
                return Err(format!("term '{text}' has more than one ellipsis").into());
            }
            ellipsis = Some(letters.len());
            rest = &rest[3..];
            continue;
        }
        if !c.is_ascii_alphabetic() {
            return Err(format!("term '{text}' has '{c}', which is not a letter").into());
        }
        letters.push(c as Label);
        rest = &rest[1..];
    }
    Ok(Term { letters, ellipsis })
}

/// The labels of a term for an operand of rank `rank`, with `width` the widest ellipsis.
fn expand(term: &Term, ellipsis_dims: usize, width: usize) -> Vec<Label> {
    let mut out = term.letters.clone();
    if let Some(at) = term.ellipsis {
        let labels = (width - ellipsis_dims..width).map(|i| ELLIPSIS + i as Label);
        out.splice(at..at, labels);
    }
    out
}

fn einsum(cx: &mut NodeCx) -> NodeResult<Vec<Value>> {
    let equation = cx
        .attr_string("equation")
        .ok_or("attribute 'equation' is required")?;
    let compact: String = equation.chars().filter(|c| *c != ' ').collect();
    let (lhs, rhs) = match compact.split_once("->") {
        Some((l, r)) => (l, Some(r)),
        None => (compact.as_str(), None),
    };
    let terms: Vec<Term> = lhs.split(',').map(parse_term).collect::<NodeResult<_>>()?;
    let inputs = cx.inputs()?;
    if terms.len() != inputs.len() {
        return Err(format!(
            "equation '{equation}' has {} terms for {} inputs",
            terms.len(),
            inputs.len()
        )
        .into());
    }
    // Each operand's labels and shape.
    let mut width = 0;
    let mut ranks = Vec::with_capacity(inputs.len());
    for (t, v) in terms.iter().zip(&inputs) {
        let shape = cx.static_shape(*v, "Einsum")?;
        let dims = match t.ellipsis {
            Some(_) if shape.len() >= t.letters.len() => shape.len() - t.letters.len(),
            None if shape.len() == t.letters.len() => 0,
            _ => {
                return Err(format!(
                    "equation '{equation}' does not fit an operand of rank {}",
                    shape.len()
                )
                .into())
            }
        };
        width = width.max(dims);
        ranks.push((shape, dims));
    }
    let mut operands: Vec<(Value, Vec<Label>)> = Vec::with_capacity(inputs.len());
    for ((t, v), (_, dims)) in terms.iter().zip(&inputs).zip(&ranks) {
        operands.push((*v, expand(t, *dims, width)));
    }
    // The size of each label: equal wherever it appears, or 1 (broadcast).
    let mut sizes: Vec<(Label, i64)> = Vec::new();
    for ((_, labels), (shape, _)) in operands.iter().zip(&ranks) {
        for (l, d) in labels.iter().zip(shape) {
            match sizes.iter_mut().find(|(x, _)| x == l) {
                Some((_, s)) if *s == *d || *d == 1 => {}
                Some((_, s)) if *s == 1 => *s = *d,
                Some((_, s)) => {
                    return Err(format!("label '{}' has sizes {s} and {d}", name(*l)).into())
                }
                None => sizes.push((*l, *d)),
            }
        }
    }
    let output: Vec<Label> = match rhs {
        Some(r) => {
            let t = parse_term(r)?;
            let out = expand(&t, width, width);
            for (i, l) in out.iter().enumerate() {
                if out[..i].contains(l) {
                    return Err(format!("output label '{}' is repeated", name(*l)).into());
                }
                if *l < ELLIPSIS && !sizes.iter().any(|(x, _)| x == l) {
                    return Err(format!("output label '{}' is in no input", name(*l)).into());
                }
            }
            if t.ellipsis.is_none() && width > 0 {
                return Err("the inputs have an ellipsis and the output does not".into());
            }
            out
        }
        None => {
            let mut once: Vec<Label> = sizes
                .iter()
                .map(|(l, _)| *l)
                .filter(|l| {
                    *l < ELLIPSIS
                        && operands
                            .iter()
                            .map(|(_, ls)| ls.iter().filter(|x| *x == l).count())
                            .sum::<usize>()
                            == 1
                })
                .collect();
            once.sort_unstable();
            let mut out: Vec<Label> = (0..width).map(|i| ELLIPSIS + i as Label).collect();
            out.extend(once);
            out
        }
    };
    let size = |l: Label| sizes.iter().find(|(x, _)| *x == l).map_or(1, |(_, s)| *s);

    // 1. Diagonals and labels only one operand has.
    for i in 0..operands.len() {
        let (mut v, mut labels) = operands[i].clone();
        while let Some((p, q)) = repeated(&labels) {
            v = diagonal(cx, v, p, q)?;
            labels.remove(q);
        }
        let needed = |l: &Label, cx_ops: &[(Value, Vec<Label>)]| {
            output.contains(l)
                || cx_ops
                    .iter()
                    .enumerate()
                    .any(|(j, (_, ls))| j != i && ls.contains(l))
        };
        let lonely: Vec<i64> = (0..labels.len())
            .filter(|a| !needed(&labels[*a], &operands))
            .map(|a| a as i64)
            .collect();
        if !lonely.is_empty() {
            v = cx.reduce("graph.reduce_sum", v, &lonely, false)?;
            labels = labels
                .iter()
                .enumerate()
                .filter(|(a, _)| !lonely.contains(&(*a as i64)))
                .map(|(_, l)| *l)
                .collect();
        }
        operands[i] = (v, labels);
    }

    // 2. Pairwise products, left to right.
    let mut acc = operands[0].clone();
    for i in 1..operands.len() {
        let (b, lb) = operands[i].clone();
        let (a, la) = acc;
        let later = |l: &Label| {
            output.contains(l) || operands[i + 1..].iter().any(|(_, ls)| ls.contains(l))
        };
        let batch: Vec<Label> = la
            .iter()
            .filter(|l| lb.contains(l) && later(l))
            .copied()
            .collect();
        let contracted: Vec<Label> = la
            .iter()
            .filter(|l| lb.contains(l) && !later(l))
            .copied()
            .collect();
        let left: Vec<Label> = la.iter().filter(|l| !lb.contains(l)).copied().collect();
        let right: Vec<Label> = lb.iter().filter(|l| !la.contains(l)).copied().collect();
        let order_a: Vec<Label> = [&batch[..], &left, &contracted].concat();
        let order_b: Vec<Label> = [&batch[..], &contracted, &right].concat();
        let a3 = arrange(cx, a, &la, &order_a, &size)?;
        let b3 = arrange(cx, b, &lb, &order_b, &size)?;
        let product = |ls: &[Label]| -> NodeResult<i64> {
            ls.iter()
                .try_fold(1i64, |n, l| n.checked_mul(size(*l)))
                .filter(|n| *n <= crate::importer::MAX_TENSOR_ELEMENTS)
                .ok_or_else(|| "the operands' product is larger than any tensor".into())
        };
        let (nb, nl, nk, nr) = (
            product(&batch)?,
            product(&left)?,
            product(&contracted)?,
            product(&right)?,
        );
        let a3 = cx.reshape(a3, &[nb, nl, nk])?;
        let b3 = cx.reshape(b3, &[nb, nk, nr])?;
        let y = cx.op("graph.matmul", &[a3, b3], &[])?;
        let labels: Vec<Label> = [&batch[..], &left, &right].concat();
        let dims: Vec<i64> = labels.iter().map(|l| size(*l)).collect();
        let y = cx.reshape(y, &dims)?;
        acc = (y, labels);
    }

    // 3. The output's order (a label only broadcast so far keeps its size-1 dim: broadcast).
    let (mut v, mut labels) = acc;
    let spare: Vec<i64> = (0..labels.len())
        .filter(|a| !output.contains(&labels[*a]))
        .map(|a| a as i64)
        .collect();
    if !spare.is_empty() {
        v = cx.reduce("graph.reduce_sum", v, &spare, false)?;
        labels.retain(|l| output.contains(l));
    }
    let v = arrange(cx, v, &labels, &output, &size)?;
    Ok(vec![v])
}

/// The first label repeated in `labels`, as its two positions.
fn repeated(labels: &[Label]) -> Option<(usize, usize)> {
    (0..labels.len()).find_map(|q| {
        labels[..q]
            .iter()
            .position(|l| *l == labels[q])
            .map(|p| (p, q))
    })
}

/// A label as written.
fn name(l: Label) -> String {
    if l >= ELLIPSIS {
        format!("...#{}", l - ELLIPSIS)
    } else {
        char::from_u32(l).map_or_else(|| "?".into(), String::from)
    }
}

/// The diagonal of axes `p < q` (equal sizes) of `x`, left at axis `p`.
fn diagonal(cx: &mut NodeCx, x: Value, p: usize, q: usize) -> NodeResult<Value> {
    let shape = cx.shape(x);
    let (n, m) = (shape[p], shape[q]);
    if n != m {
        return Err(format!("a repeated label has sizes {n} and {m}").into());
    }
    let rank = shape.len();
    let mut perm: Vec<i64> = (0..rank as i64)
        .filter(|a| *a != p as i64 && *a != q as i64)
        .collect();
    perm.extend([p as i64, q as i64]);
    let moved = cx.transpose(x, &perm)?;
    let mut merged: Vec<i64> = perm[..rank - 2]
        .iter()
        .map(|a| shape[*a as usize])
        .collect();
    let square = n
        .checked_mul(n)
        .ok_or("the diagonal's axes are too large")?;
    merged.push(square);
    let flat = cx.reshape(moved, &merged)?;
    let len = super::table(n.into())?;
    let idx: Vec<i64> = (0..n).map(|i| i * (n + 1)).collect();
    let idx = cx.constant(Literal::from_i64(DType::I64, &[len], &idx));
    let attr = cx.int_attr(rank as i64 - 2);
    let d = cx.op("graph.gather", &[flat, idx], &[("axis", attr)])?;
    // Back to axis p: the diagonal is last among the rank − 1 remaining axes.
    let mut back: Vec<i64> = (0..rank as i64 - 2).collect();
    back.insert(p, rank as i64 - 2);
    cx.transpose(d, &back)
}

/// `x` (axes labelled `from`) transposed to the order `to` (a permutation of `from`) and
/// broadcast to every label's full size.
fn arrange(
    cx: &mut NodeCx,
    x: Value,
    from: &[Label],
    to: &[Label],
    size: &dyn Fn(Label) -> i64,
) -> NodeResult<Value> {
    let mut perm = Vec::with_capacity(to.len());
    for l in to {
        let p = from
            .iter()
            .position(|f| f == l)
            .ok_or_else(|| format!("label '{}' is missing", name(*l)))?;
        perm.push(p as i64);
    }
    let y = cx.transpose(x, &perm)?;
    let full: Vec<i64> = to.iter().map(|l| size(*l)).collect();
    if cx.shape(y) == full {
        return Ok(y);
    }
    let s = cx.array_attr(&full);
    cx.op("graph.broadcast_to", &[y], &[("shape", s)])
}
