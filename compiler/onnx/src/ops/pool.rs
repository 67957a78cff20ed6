//! Pools of any spatial rank by unfolding the windows with gathers: LpPool, and the MaxPool
//! and AveragePool cases the graph dialect's 2-D pools do not cover (dilations, 3-D and higher
//! windows, MaxPool's `Indices` output).
//!
//! The input is padded (with the reduction's identity: −∞ or the integer type's minimum for
//! max, 0 for sums), then each spatial axis `i` is gathered with a constant `[out_i, k_i]`
//! table of window positions (`o · stride + j · dilation`), turning `[N, C, S₁, ...]` into
//! `[N, C, o₁, k₁, o₂, k₂, ...]`, and the `k` axes are reduced. Like the graph dialect's own
//! im2col lowering, the unfolded tensor holds `N·C·Π(o_i·k_i)` elements; the index tables
//! hold `Σ o_i·k_i`.

use super::nn::Window;
use super::table;
use crate::importer::{NodeCx, NodeResult};
use dlc_ir::{Type, Value};
use dlc_tensor::{DType, Literal, Scalar};

/// What a pool computes over each window.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Reduction {
    Max,
    /// The mean; with `include_pad`, explicit padding counts in the divisor (what `ceil_mode`
    /// adds never does).
    Average {
        include_pad: bool,
    },
    /// `(Σ |x|ᵖ)^(1/p)`, padding counting as 0.
    Lp(i64),
}

/// The geometry of the unfolded windows, one entry per spatial axis.
struct Unfold {
    axes: Vec<AxisWindow>,
}

/// One spatial axis of a window.
#[derive(Clone, Copy)]
struct AxisWindow {
    /// The input's size.
    size: i64,
    /// The begin pad, and the end pad with ceil_mode's extra.
    begin: i64,
    end: i64,
    /// The end pad without ceil_mode's extra.
    explicit_end: i64,
    kernel: i64,
    stride: i64,
    dilation: i64,
    out: i64,
}

impl AxisWindow {
    /// The position in the padded input of window `o`'s element `j`.
    fn at(&self, o: i64, j: i64) -> i64 {
        o * self.stride + j * self.dilation
    }
}

impl Unfold {
    /// Checks the window against the static spatial dims `spatial`: every product the tables
    /// need is computed in i128 and bounded by [`table`].
    fn new(spatial: &[i64], w: &Window) -> NodeResult<Unfold> {
        let n = spatial.len();
        let mut axes = Vec::with_capacity(n);
        for (i, &size) in spatial.iter().enumerate() {
            let wide = |v: i64| i128::from(v);
            let (begin, explicit_end) = (w.pads[i], w.pads[n + i]);
            let end = explicit_end.saturating_add(w.ceil_extra[i]);
            if begin.max(end) > crate::importer::MAX_TENSOR_ELEMENTS {
                return Err(
                    format!("the pads of spatial axis {i} are larger than any tensor").into(),
                );
            }
            let padded = wide(size) + wide(begin) + wide(end);
            let reach = (wide(w.kernel[i]) - 1) * wide(w.dilations[i]) + 1;
            if padded < reach {
                return Err(format!(
                    "the window (reach {reach}) is larger than the padded spatial axis {i} ({padded})"
                )
                .into());
            }
            let out = (padded - reach) / wide(w.strides[i]) + 1;
            table(out * wide(w.kernel[i]))?;
            axes.push(AxisWindow {
                size,
                begin,
                end,
                explicit_end,
                kernel: w.kernel[i],
                stride: w.strides[i],
                dilation: w.dilations[i],
                out: out as i64,
            });
        }
        Ok(Unfold { axes })
    }

    /// The output's spatial dims.
    fn out_dims(&self) -> Vec<usize> {
        self.axes.iter().map(|a| a.out as usize).collect()
    }

    /// `x` padded by `fill` and gathered into `[N, C, o₁, k₁, ...]`.
    fn windows(&self, cx: &mut NodeCx, x: Value, fill: f64) -> NodeResult<Value> {
        let rank = 2 + self.axes.len();
        let (mut low, mut high) = (vec![0; rank], vec![0; rank]);
        for (i, a) in self.axes.iter().enumerate() {
            (low[2 + i], high[2 + i]) = (a.begin, a.end);
        }
        let mut y = cx.pad_or_crop(x, &low, &high, fill)?;
        for (i, a) in self.axes.iter().enumerate() {
            let positions: Vec<i64> = (0..a.out)
                .flat_map(|o| (0..a.kernel).map(move |j| a.at(o, j)))
                .collect();
            let idx = cx.constant(Literal::from_i64(
                DType::I64,
                &[a.out as usize, a.kernel as usize],
                &positions,
            ));
            let attr = cx.int_attr(2 + 2 * i as i64);
            y = cx.op("graph.gather", &[y, idx], &[("axis", attr)])?;
        }
        Ok(y)
    }

    /// The window axes of [`Unfold::windows`]' result.
    fn window_axes(&self) -> Vec<i64> {
        (0..self.axes.len() as i64).map(|i| 3 + 2 * i).collect()
    }

    /// How many elements of each window an average divides by, as a `[1, 1, o₁, ...]`
    /// constant of `like`'s type: the positions inside the input (or inside the explicit
    /// padding, with `include_pad`).
    fn counts(&self, cx: &mut NodeCx, like: Value, include_pad: bool) -> NodeResult<Value> {
        let per_axis: Vec<Vec<f64>> = self
            .axes
            .iter()
            .map(|a| {
                let (lo, hi) = if include_pad {
                    (0, a.begin + a.size + a.explicit_end)
                } else {
                    (a.begin, a.begin + a.size)
                };
                (0..a.out)
                    .map(|o| {
                        (0..a.kernel)
                            .filter(|j| (lo..hi).contains(&a.at(o, *j)))
                            .count() as f64
                    })
                    .collect()
            })
            .collect();
        let dims = self.out_dims();
        let total = table(dims.iter().map(|d| *d as i128).product())?;
        let mut values = Vec::with_capacity(total);
        let mut index = vec![0usize; dims.len()];
        for _ in 0..total {
            values.push(
                index
                    .iter()
                    .enumerate()
                    .map(|(i, o)| per_axis[i][*o])
                    .product::<f64>()
                    .max(1.0),
            );
            for d in (0..dims.len()).rev() {
                index[d] += 1;
                if index[d] < dims[d] {
                    break;
                }
                index[d] = 0;
            }
        }
        let mut shape = vec![1, 1];
        shape.extend(&dims);
        Ok(cx.float_table(like, &shape, &values))
    }
}

/// The smallest value of `ty` (max pooling's padding).
fn lowest(ty: Type) -> f64 {
    match ty {
        Type::I1 => 0.0,
        Type::I8 => f64::from(i8::MIN),
        Type::I32 => f64::from(i32::MIN),
        Type::I64 => i64::MIN as f64,
        _ => f64::NEG_INFINITY,
    }
}

/// `x` (N×C×spatial, static spatial dims) pooled over `window` by `reduction`.
pub(super) fn pool(
    cx: &mut NodeCx,
    x: Value,
    window: &Window,
    reduction: Reduction,
) -> NodeResult<Value> {
    let xs = cx.static_shape(x, &cx.node.op_type)?;
    let unfold = Unfold::new(&xs[2..], window)?;
    let axes = unfold.window_axes();
    match reduction {
        Reduction::Max => {
            let fill = lowest(cx.elem(x));
            let w = unfold.windows(cx, x, fill)?;
            cx.reduce("graph.reduce_max", w, &axes, false)
        }
        Reduction::Average { include_pad } => {
            let w = unfold.windows(cx, x, 0.0)?;
            let sum = cx.reduce("graph.reduce_sum", w, &axes, false)?;
            let count = unfold.counts(cx, sum, include_pad)?;
            cx.binary("graph.div", sum, count)
        }
        Reduction::Lp(p) => {
            let m = cx.unary("graph.abs", x)?;
            let powered = match p {
                1 => m,
                2 => cx.binary("graph.mul", m, m)?,
                _ => {
                    let e = cx.scalar(p as f64, m);
                    cx.binary("graph.pow", m, e)?
                }
            };
            let w = unfold.windows(cx, powered, 0.0)?;
            let sum = cx.reduce("graph.reduce_sum", w, &axes, false)?;
            match p {
                1 => Ok(sum),
                2 => cx.unary("graph.sqrt", sum),
                _ => {
                    let e = cx.scalar(1.0 / p as f64, sum);
                    cx.binary("graph.pow", sum, e)
                }
            }
        }
    }
}

/// MaxPool with its `Indices` output: the maximum of each window and the flat index (over
/// the whole N×C×spatial input, row-major, or column-major over the spatial axes with
/// `storage_order = 1`) of its first occurrence. The windows are moved to one trailing axis,
/// `graph.argmax` picks the position in the window, and a gather from a constant table of
/// each window position's spatial index turns it into the input's index.
pub(super) fn max_pool_with_indices(
    cx: &mut NodeCx,
    x: Value,
    window: &Window,
    column_major: bool,
) -> NodeResult<[Value; 2]> {
    let xs = cx.static_shape(x, "MaxPool's Indices")?;
    let unfold = Unfold::new(&xs[2..], window)?;
    let n = unfold.axes.len();
    let fill = lowest(cx.elem(x));
    let w = unfold.windows(cx, x, fill)?;
    // [N, C, o₁, k₁, ...] → [N, C, o₁, ..., oₙ, k₁·...·kₙ].
    let mut perm: Vec<i64> = vec![0, 1];
    perm.extend((0..n as i64).map(|i| 2 + 2 * i));
    perm.extend(unfold.window_axes());
    let w = cx.transpose(w, &perm)?;
    let outs = unfold.out_dims();
    let kernel: i128 = unfold.axes.iter().map(|a| i128::from(a.kernel)).product();
    let kernel = table(kernel)?;
    let mut flat_shape: Vec<i64> = xs[..2].to_vec();
    flat_shape.extend(outs.iter().map(|o| *o as i64));
    flat_shape.push(kernel as i64);
    let w = cx.reshape(w, &flat_shape)?;
    let last = flat_shape.len() as i64 - 1;
    let y = cx.reduce("graph.reduce_max", w, &[last], false)?;
    let (axis_attr, keep) = (cx.int_attr(last), cx.ctx().bool_attr(false));
    let arg = cx.op(
        "graph.argmax",
        &[w],
        &[("axis", axis_attr), ("keepdim", keep)],
    )?;
    let arg = cx.cast(arg, Type::I64)?;
    // The spatial index of window position (o, j), windows in row-major order.
    let positions = table(outs.iter().map(|o| *o as i128).product::<i128>() * kernel as i128)?;
    let strides: Vec<i64> = (0..n)
        .map(|i| {
            let range = if column_major { 0..i } else { i + 1..n };
            xs[2..][range].iter().product()
        })
        .collect();
    let mut table_values = Vec::with_capacity(positions);
    let out_count = positions / kernel.max(1);
    for flat_o in 0..out_count {
        for flat_j in 0..kernel {
            let (mut ro, mut rj) = (flat_o, flat_j);
            let mut spatial = 0i64;
            for i in (0..n).rev() {
                let a = &unfold.axes[i];
                let (o, j) = (ro % outs[i], rj % a.kernel as usize);
                (ro, rj) = (ro / outs[i], rj / a.kernel as usize);
                // Padding is never a window's first maximum unless the whole window is; it
                // then reads as the nearest input position.
                let p = (a.at(o as i64, j as i64) - a.begin).clamp(0, (a.size - 1).max(0));
                spatial += p * strides[i];
            }
            table_values.push(spatial);
        }
    }
    let lookup = cx.constant(Literal::from_i64(DType::I64, &[positions], &table_values));
    // Window o's entries start at o·K in the table.
    let mut base_shape = vec![1usize; 2];
    base_shape.extend(&outs);
    let base = Literal::from_fn(DType::I64, &base_shape, |index| {
        let mut flat = 0i64;
        for (i, o) in index[2..].iter().enumerate() {
            flat = flat * outs[i] as i64 + *o as i64;
        }
        Ok(Scalar::Int(flat * kernel as i64))
    })?;
    let base = cx.constant(base);
    let at = cx.binary("graph.add", arg, base)?;
    let attr = cx.int_attr(0);
    let spatial = cx.op("graph.gather", &[lookup, at], &[("axis", attr)])?;
    // Plus (n·C + c) · Π spatial for the sample and channel.
    let (batch, channels) = (xs[0], xs[1]);
    let plane: i64 = xs[2..].iter().product();
    let planes = table(i128::from(batch) * i128::from(channels))?;
    let offsets: Vec<i64> = (0..planes as i64).map(|p| p * plane).collect();
    let mut offset_shape = vec![batch as usize, channels as usize];
    offset_shape.extend(vec![1; n]);
    let offsets = cx.constant(Literal::from_i64(DType::I64, &offset_shape, &offsets));
    let indices = cx.binary("graph.add", spatial, offsets)?;
    Ok([y, indices])
}
