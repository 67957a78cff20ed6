//! `graph.rnn` unrolled into primitive graph ops, so that the `grad` pass can differentiate a
//! recurrent layer: [`unroll_rnn`] spells the time loop of [`crate::recurrence`] step by step
//! with slices, matmuls, elementwise ops and selects, all of which have derivative rules.
//!
//! The semantics are the interpreter's (`crate::interp::recurrence`), the math the same though
//! not the order of every operation: per direction `d` the state is kept as `[1, B, H]`, each
//! step reads `xp[t, :, d·G·H..(d+1)·G·H]` (a `[1, B, G·H]` slice), adds `h·r[d]` (a batched
//! `graph.matmul`) and `rb[d]`, and applies the cell's gate math with the direction's
//! activations, `clip` clamping every gate before its activation (not the cell state before
//! lstm's `h`). With `sequence_lens`, every step is masked: a batch entry with `t ≥ len` keeps
//! its state and gets `y[t] = 0`. A reverse direction walks `t = T−1..0` under the same mask,
//! so each entry's walk starts at its own `len − 1` with the initial state, as the
//! interpreter's `t = len−1..0` does. The final states are zeroed where `len ≤ 0`.
//!
//! The number of steps `T` and the hidden size `H` must be static; the batch may be `?`. The
//! unrolled program has `O(T·D)` ops (about 30 per step of an lstm direction).
//!
//! tests/library/unroll.rs compares the interpreter on random `graph.rnn`s (every cell,
//! direction and activation, `clip`, the cell flags, `sequence_lens`, `?` dims) with the
//! interpreter on their unrolling; passes/tests/library/grad_check.rs checks the gradients through it.

use crate::decompose::GraphBuilder;
use crate::ops::RnnOp;
use crate::recurrence::{Activation, ActivationKind, Cell, RnnSpec};
use dlc_ir::{Op, Type, Value, DYNAMIC};

/// The most time steps [`unroll_rnn`] unrolls (per direction): beyond, the program it builds
/// (about 30 ops a step of an lstm direction) is too large to compile in reasonable time.
pub const MAX_STEPS: i64 = 4096;

/// graph.rnn's time loop unrolled into primitive graph ops (built through `b`, positioned
/// before `op`), returning the values that replace op's results (y, y_h, and y_c for lstm), or
/// why it cannot be unrolled.
///
/// The values have exactly the types of `op`'s results (a `graph.reshape` adjusts a `?` the
/// op's types know statically or the other way round), so `ctx.replace_op(op, &values)` keeps
/// the function valid. Every op built has a derivative rule or carries no gradient
/// (`graph.constant`, `graph.cmp`, `graph.dim`, `graph.fill`). Refused, before anything is
/// built: an op that is not a well-formed `graph.rnn`, a `?` number of steps or more than
/// [`MAX_STEPS`], a hidden size `?` in every operand that gives it. With no steps (`T` = 0)
/// the results are zeros.
pub fn unroll_rnn(b: &mut GraphBuilder<'_>, op: Op) -> Result<Vec<Value>, String> {
    if b.ctx.view::<RnnOp>(op).is_none() {
        return Err(format!(
            "is '{}', not 'graph.rnn': only a recurrence can be unrolled",
            b.ctx.op_name(op)
        ));
    }
    let spec = RnnSpec::of(b.ctx, op)?;
    let cell = spec.cell;
    let operands = b.ctx.operands(op).to_vec();
    let n = cell.operands();
    if operands.len() != n && operands.len() != n + 1 {
        return Err(format!(
            "has {} operands; a {} cell takes {n} and an optional sequence_lens",
            operands.len(),
            cell.name()
        ));
    }
    let declared: Vec<Type> = b.ctx.results(op).map(|r| b.ctx.value_type(r)).collect();
    if declared.len() != cell.results() {
        return Err(format!(
            "has {} results; a {} cell has {}",
            declared.len(),
            cell.name(),
            cell.results()
        ));
    }
    let shapes: Vec<Vec<i64>> = operands.iter().map(|v| b.shape(*v)).collect();
    let mut ranks = vec![3, 3, 2, 3];
    if cell == Cell::Lstm {
        ranks.extend([3, 2]);
    }
    ranks.push(1);
    if let Some(i) = (0..operands.len()).find(|&i| shapes[i].len() != ranks[i]) {
        return Err(format!("has operand #{i} of rank {}", shapes[i].len()));
    }
    let steps = shapes[0][0];
    if steps == DYNAMIC {
        return Err(
            "needs a static number of steps to be unrolled, but the time dim of xp is ?".into(),
        );
    }
    if steps > MAX_STEPS {
        return Err(format!(
            "has {steps} steps: unrolled, it would build some 30 ops for each of them; at most \
             {MAX_STEPS} are unrolled"
        ));
    }
    if steps == 0 {
        return Ok(zeros(b, op, operands[0], operands[3]));
    }
    let (dirs, gates) = (spec.direction.count() as i64, cell.gates() as i64);
    let hidden = hidden_size(&shapes, dirs, gates).ok_or(
        "needs a static hidden size to be unrolled, but it is ? in every operand (r, h0, rb, xp)",
    )?;
    // The batch: the first operand that knows it.
    let mut batch_dims = vec![shapes[0][1], shapes[3][1]];
    if cell == Cell::Lstm {
        batch_dims.push(shapes[4][1]);
    }
    if let Some(lens) = shapes.get(n) {
        batch_dims.push(lens[0]);
    }
    let batch = batch_dims
        .into_iter()
        .find(|d| *d != DYNAMIC)
        .unwrap_or(DYNAMIC);
    let gh = gates * hidden;
    // Every operand with the shape the unrolling slices, `?` only for the batch.
    let mut wants = vec![
        vec![steps, batch, dirs * gh],
        vec![dirs, hidden, gh],
        vec![dirs, gh],
        vec![dirs, batch, hidden],
    ];
    if cell == Cell::Lstm {
        wants.push(vec![dirs, batch, hidden]);
        wants.push(vec![dirs, 3 * hidden]);
    }
    wants.push(vec![batch]);
    let values: Vec<Value> = operands
        .iter()
        .zip(&wants)
        .map(|(v, want)| shaped(b, *v, want))
        .collect();
    let lens = values.get(n).map(|l| {
        let lead = if batch == DYNAMIC { -1 } else { batch };
        b.reshape(*l, &[1, lead, 1])
    });
    let mut u = Unroll {
        b,
        spec: &spec,
        like: values[3],
        constants: Vec::new(),
        hidden,
        steps,
        lens,
    };
    let mut ys = Vec::new();
    let mut finals: Vec<Vec<Value>> = vec![Vec::new(); cell.results() - 1];
    for d in 0..dirs {
        let (y, states) = u.direction(d, &values);
        ys.push(y);
        for (list, s) in finals.iter_mut().zip(states) {
            list.push(s);
        }
    }
    let mut results = vec![concat(u.b, &ys, 1)];
    for list in &finals {
        results.push(concat(u.b, list, 0));
    }
    Ok(results
        .into_iter()
        .zip(declared)
        .map(|(v, ty)| retype(b, v, ty))
        .collect())
}

/// `H`, from the first operand that knows it (`r`'s dim 1, `h0`'s dim 2, or a gate-sized dim
/// divided by the gates).
fn hidden_size(shapes: &[Vec<i64>], dirs: i64, gates: i64) -> Option<i64> {
    let known = |d: i64, per: i64| (d != DYNAMIC).then_some(d / per);
    known(shapes[1][1], 1)
        .or_else(|| known(shapes[3][2], 1))
        .or_else(|| known(shapes[1][2], gates))
        .or_else(|| known(shapes[2][1], gates))
        .or_else(|| known(shapes[0][2], dirs * gates))
}

/// `v` with the shape `want` (whose only `?` is the batch): itself when it has it, else a
/// `graph.reshape` to it (an operand whose types left a static dim `?`).
fn shaped(b: &mut GraphBuilder<'_>, v: Value, want: &[i64]) -> Value {
    if b.shape(v) == want {
        return v;
    }
    let target: Vec<i64> = want
        .iter()
        .map(|d| if *d == DYNAMIC { -1 } else { *d })
        .collect();
    b.reshape(v, &target)
}

/// `xs` concatenated along `axis`; the one value itself.
fn concat(b: &mut GraphBuilder<'_>, xs: &[Value], axis: i64) -> Value {
    if xs.len() == 1 {
        xs[0]
    } else {
        b.concat(xs, axis)
    }
}

/// `v` with type `ty` (a shape compatible with its own): itself, or a `graph.reshape` whose
/// `?` dims are `v`'s (`graph.dim`).
fn retype(b: &mut GraphBuilder<'_>, v: Value, ty: Type) -> Value {
    if b.ctx.value_type(v) == ty {
        return v;
    }
    let shape = b.ctx.shape(ty).map(<[i64]>::to_vec).unwrap_or_default();
    let sizes: Vec<Value> = (0..shape.len())
        .filter(|&axis| shape[axis] == DYNAMIC)
        .map(|axis| b.dim(v, axis))
        .collect();
    b.reshape_to(v, &shape, &sizes)
}

/// The results of a recurrence of no steps: zeros (`y` is empty, and the final states are 0 as
/// for an empty sequence). A `?` dim is read from `xp` (`y`'s dim 0) or `h0` (`[D, B, H]`,
/// `y`'s dims 1.. and the states').
fn zeros(b: &mut GraphBuilder<'_>, op: Op, xp: Value, h0: Value) -> Vec<Value> {
    let types: Vec<Type> = b.ctx.results(op).map(|r| b.ctx.value_type(r)).collect();
    let mut out = Vec::new();
    for (i, ty) in types.into_iter().enumerate() {
        let shape = b.ctx.shape(ty).map(<[i64]>::to_vec).unwrap_or_default();
        let skip = usize::from(i == 0);
        let mut sizes = Vec::new();
        for (axis, d) in shape.iter().enumerate() {
            if *d == DYNAMIC {
                let size = if axis < skip {
                    b.dim(xp, 0)
                } else {
                    b.dim(h0, axis - skip)
                };
                sizes.push(size);
            }
        }
        let zero = b.scalar_attr(0.0, b.ctx.element_type(ty));
        out.push(b.build_one("graph.fill", &sizes, vec![("value", zero)], ty));
    }
    out
}

/// The state of one unrolling: the builder, the spec, the shared constants.
struct Unroll<'s, 'b, 'c> {
    b: &'b mut GraphBuilder<'c>,
    spec: &'s RnnSpec,
    /// A rank-3 value, for the rank of the constants.
    like: Value,
    /// The `[1, 1, 1]` float constants built so far, by their bits.
    constants: Vec<(u64, Value)>,
    /// `H`.
    hidden: i64,
    /// `T`.
    steps: i64,
    /// `sequence_lens` as `[1, B, 1]`.
    lens: Option<Value>,
}

/// The weights of one direction, sliced once.
struct Weights {
    /// `r[d]`: `[1, H, G·H]`.
    r: Value,
    /// `rb[d]`: `[1, G·H]`.
    rb: Value,
    /// lstm: the peepholes `p_i, p_o, p_f`, each `[1, H]`.
    peepholes: Vec<Value>,
    /// gru: `r[d]` and `rb[d]` split by gates.
    gru: Option<GruWeights>,
}

/// A gru direction's weights split into the columns of the z and r gates and those of the h
/// gate. Without `linear_before_reset` all four are built; with it only `rb_h` (the product
/// `h·r[d]` is taken whole).
struct GruWeights {
    /// `[1, H, 2·H]`.
    r_zr: Option<Value>,
    /// `[1, 2·H]`.
    rb_zr: Option<Value>,
    /// `[1, H, H]`.
    r_h: Option<Value>,
    /// `[1, H]`.
    rb_h: Value,
}

impl Unroll<'_, '_, '_> {
    /// A float constant `c`, `[1, 1, 1]` (broadcasts against the `[1, B, H]` states).
    fn c(&mut self, c: f64) -> Value {
        if let Some((_, v)) = self.constants.iter().find(|(bits, _)| *bits == c.to_bits()) {
            return *v;
        }
        let v = self.b.scalar_like(c, self.like);
        self.constants.push((c.to_bits(), v));
        v
    }

    /// Binary op `name` with broadcasting.
    fn bin(&mut self, name: &str, a: Value, b: Value) -> Value {
        self.b.binary(name, a, b)
    }

    /// `a + b`.
    fn add(&mut self, a: Value, b: Value) -> Value {
        self.bin("graph.add", a, b)
    }

    /// `a · b`.
    fn mul(&mut self, a: Value, b: Value) -> Value {
        self.bin("graph.mul", a, b)
    }

    /// Columns `[lo, hi)` of the last dim of a rank-3 `[1, B, N]` or rank-2 `[1, N]` value.
    fn columns(&mut self, x: Value, lo: i64, hi: i64) -> Value {
        let rank = self.b.rank(x);
        let mut starts = vec![0; rank];
        let mut ends = vec![i64::MAX; rank];
        starts[rank - 1] = lo;
        ends[rank - 1] = hi;
        self.b.slice(x, &starts, &ends, &vec![1; rank])
    }

    /// Gate `q` (`[q·H, (q+1)·H)`) of a `[1, B, k·H]` value.
    fn gate(&mut self, x: Value, q: i64) -> Value {
        let h = self.hidden;
        self.columns(x, q * h, (q + 1) * h)
    }

    /// Entry `i` of the leading dim of `x`, kept as a dim of 1.
    fn lead(&mut self, x: Value, i: i64) -> Value {
        let rank = self.b.rank(x);
        let mut starts = vec![0; rank];
        let mut ends = vec![i64::MAX; rank];
        starts[0] = i;
        ends[0] = i + 1;
        self.b.slice(x, &starts, &ends, &vec![1; rank])
    }

    /// `clip(x)`: clamped to `[−clip, clip]`, or `x`.
    fn clip(&mut self, x: Value) -> Value {
        let Some(c) = self.spec.clip else {
            return x;
        };
        let hi = self.c(c);
        let lo = self.c(-c);
        let m = self.bin("graph.min", x, hi);
        self.bin("graph.max", m, lo)
    }

    /// Gate activation `k` of direction `d` at `x`, clipped first.
    fn act(&mut self, d: usize, k: usize, x: Value) -> Value {
        let x = self.clip(x);
        self.activate(self.spec.activation(d, k), x)
    }

    /// The activation `a` at `x`, in graph ops.
    fn activate(&mut self, a: Activation, x: Value) -> Value {
        use ActivationKind::*;
        match a.kind {
            Relu => self.b.unary("graph.relu", x),
            Tanh => self.b.unary("graph.tanh", x),
            Sigmoid => self.b.unary("graph.sigmoid", x),
            Affine => {
                let alpha = self.c(a.alpha);
                let ax = self.mul(alpha, x);
                let beta = self.c(a.beta);
                self.add(ax, beta)
            }
            LeakyRelu => {
                let zero = self.c(0.0);
                let pos = self.b.cmp("ge", x, zero);
                let alpha = self.c(a.alpha);
                let ax = self.mul(alpha, x);
                self.b.select(pos, x, ax)
            }
            ThresholdedRelu => {
                let alpha = self.c(a.alpha);
                let above = self.b.cmp("gt", x, alpha);
                let zero = self.c(0.0);
                self.b.select(above, x, zero)
            }
            ScaledTanh => {
                let beta = self.c(a.beta);
                let bx = self.mul(beta, x);
                let t = self.b.unary("graph.tanh", bx);
                let alpha = self.c(a.alpha);
                self.mul(alpha, t)
            }
            HardSigmoid => {
                let alpha = self.c(a.alpha);
                let ax = self.mul(alpha, x);
                let beta = self.c(a.beta);
                let v = self.add(ax, beta);
                let one = self.c(1.0);
                let m = self.bin("graph.min", v, one);
                let zero = self.c(0.0);
                self.bin("graph.max", m, zero)
            }
            Elu => {
                // `exp(min(x, 0))`: the branch not taken stays finite, so its zero cotangent
                // stays zero (an `exp` overflowing to ∞ would make it NaN).
                let zero = self.c(0.0);
                let pos = self.b.cmp("ge", x, zero);
                let neg = self.bin("graph.min", x, zero);
                let e = self.b.unary("graph.exp", neg);
                let one = self.c(1.0);
                let em1 = self.bin("graph.sub", e, one);
                let alpha = self.c(a.alpha);
                let ae = self.mul(alpha, em1);
                self.b.select(pos, x, ae)
            }
            Softsign => {
                let abs = self.b.unary("graph.abs", x);
                let one = self.c(1.0);
                let den = self.add(one, abs);
                self.bin("graph.div", x, den)
            }
            Softplus => {
                // `log(1 + eˣ) = max(x, 0) + log(1 + e^−|x|)`: no overflow, and `max`'s tie
                // at 0 gives the derivative ½ there.
                let zero = self.c(0.0);
                let pos = self.bin("graph.max", x, zero);
                let abs = self.b.unary("graph.abs", x);
                let neg = self.b.unary("graph.neg", abs);
                let e = self.b.unary("graph.exp", neg);
                let one = self.c(1.0);
                let s = self.add(one, e);
                let l = self.b.unary("graph.log", s);
                self.add(pos, l)
            }
        }
    }

    /// `cond ? a : b` where a mask applies (`sequence_lens`), else `a`.
    fn masked(&mut self, mask: Option<Value>, a: Value, b: Value) -> Value {
        match mask {
            Some(m) => self.b.select(m, a, b),
            None => a,
        }
    }

    /// Direction `d` of the recurrence on the (reshaped) operands: `y[:, d]` as `[T, 1, B, H]`
    /// and the final states (`y_h`, and `y_c` for lstm), each `[1, B, H]`.
    fn direction(&mut self, d: i64, ops: &[Value]) -> (Value, Vec<Value>) {
        let spec = self.spec;
        let cell = spec.cell;
        let (h, gh) = (self.hidden, cell.gates() as i64 * self.hidden);
        let r = self.lead(ops[1], d);
        let rb = self.lead(ops[2], d);
        let mut state = self.lead(ops[3], d);
        let mut cstate = None;
        let mut peepholes = Vec::new();
        if cell == Cell::Lstm {
            cstate = Some(self.lead(ops[4], d));
            let p = self.lead(ops[5], d);
            for q in 0..3 {
                peepholes.push(self.columns(p, q * h, (q + 1) * h));
            }
        }
        let gru = (cell == Cell::Gru).then(|| {
            let split = !spec.linear_before_reset;
            GruWeights {
                r_zr: split.then(|| self.columns(r, 0, 2 * h)),
                rb_zr: split.then(|| self.columns(rb, 0, 2 * h)),
                r_h: split.then(|| self.columns(r, 2 * h, 3 * h)),
                rb_h: self.columns(rb, 2 * h, 3 * h),
            }
        });
        let w = Weights {
            r,
            rb,
            peepholes,
            gru,
        };
        let order: Vec<i64> = if spec.direction.is_reverse(d as usize) {
            (0..self.steps).rev().collect()
        } else {
            (0..self.steps).collect()
        };
        let mut ys: Vec<Option<Value>> = vec![None; self.steps as usize];
        for t in order {
            // `xp[t, :, d·G·H..(d+1)·G·H]`.
            let x = self.b.slice(
                ops[0],
                &[t, 0, d * gh],
                &[t + 1, i64::MAX, (d + 1) * gh],
                &[1, 1, 1],
            );
            // `t < len`: the step runs for the entry (`[1, B, 1]`).
            let mask = self.lens.map(|lens| {
                let elem = self.b.elem(lens);
                let at = self.b.splat(t as f64, elem, &[1, 1, 1]);
                self.b.cmp("lt", at, lens)
            });
            let (hn, cn) = self.step(d as usize, &w, x, state, cstate);
            let zero = self.c(0.0);
            ys[t as usize] = Some(self.masked(mask, hn, zero));
            state = self.masked(mask, hn, state);
            if let (Some(cn), Some(c)) = (cn, cstate) {
                cstate = Some(self.masked(mask, cn, c));
            }
        }
        // The final states: 0 for an empty sequence.
        let nonempty = self.lens.map(|lens| {
            let elem = self.b.elem(lens);
            let zero = self.b.splat(0.0, elem, &[1, 1, 1]);
            self.b.cmp("gt", lens, zero)
        });
        let zero = self.c(0.0);
        let mut finals = vec![self.masked(nonempty, state, zero)];
        if let Some(c) = cstate {
            finals.push(self.masked(nonempty, c, zero));
        }
        let ys: Vec<Value> = ys.into_iter().flatten().collect();
        let y = concat(self.b, &ys, 0);
        let batch = self.b.shape(y)[1];
        let batch = if batch == DYNAMIC { -1 } else { batch };
        (self.b.reshape(y, &[self.steps, 1, batch, h]), finals)
    }

    /// `x + h·r + rb` (in the interpreter's order of the sums), and `h·r`.
    fn preactivation(&mut self, x: Value, h: Value, r: Value, rb: Value) -> (Value, Value) {
        let hr = self.b.matmul(h, r);
        let xh = self.add(x, hr);
        (self.add(xh, rb), hr)
    }

    /// One step of direction `d` on the inputs `x` (`[1, B, G·H]`, this step's part of `xp`)
    /// from the state `h` (and `c` for lstm): the new `h` and `c`.
    fn step(
        &mut self,
        d: usize,
        w: &Weights,
        x: Value,
        h: Value,
        c: Option<Value>,
    ) -> (Value, Option<Value>) {
        let spec = self.spec;
        match spec.cell {
            Cell::Lstm => {
                let c = c.expect("an lstm has a cell state");
                let (pre, _) = self.preactivation(x, h, w.r, w.rb);
                let gi = self.gate(pre, 0);
                let pc = self.mul(w.peepholes[0], c);
                let pi = self.add(gi, pc);
                let i = self.act(d, 0, pi);
                let f = if spec.input_forget {
                    let one = self.c(1.0);
                    self.bin("graph.sub", one, i)
                } else {
                    let gf = self.gate(pre, 2);
                    let pc = self.mul(w.peepholes[2], c);
                    let pf = self.add(gf, pc);
                    self.act(d, 0, pf)
                };
                let gc = self.gate(pre, 3);
                let cand = self.act(d, 1, gc);
                let fc = self.mul(f, c);
                let ic = self.mul(i, cand);
                let cn = self.add(fc, ic);
                let go = self.gate(pre, 1);
                let pc = self.mul(w.peepholes[1], cn);
                let po = self.add(go, pc);
                let o = self.act(d, 0, po);
                // The cell state is no gate: h(c') takes it unclipped.
                let hc = self.activate(spec.activation(d, 2), cn);
                (self.mul(o, hc), Some(cn))
            }
            Cell::Gru => {
                let g = w.gru.as_ref().expect("gru weights");
                let x_h = self.gate(x, 2);
                let (z, pre_h) = match (g.r_zr, g.rb_zr, g.r_h) {
                    (Some(r_zr), Some(rb_zr), Some(r_h)) => {
                        // `x_h + (r⊙h)·r_h + rb_h`.
                        let hd = self.hidden;
                        let x_zr = self.columns(x, 0, 2 * hd);
                        let (pre, _) = self.preactivation(x_zr, h, r_zr, rb_zr);
                        let (z, r) = (self.gate(pre, 0), self.gate(pre, 1));
                        let (z, r) = (self.act(d, 0, z), self.act(d, 0, r));
                        let rh = self.mul(r, h);
                        let (pre_h, _) = self.preactivation(x_h, rh, r_h, g.rb_h);
                        (z, pre_h)
                    }
                    _ => {
                        // `x_h + r⊙(h·r_h + rb_h)`.
                        let (pre, hr) = self.preactivation(x, h, w.r, w.rb);
                        let (z, r) = (self.gate(pre, 0), self.gate(pre, 1));
                        let (z, r) = (self.act(d, 0, z), self.act(d, 0, r));
                        let hr_h = self.gate(hr, 2);
                        let inner = self.add(hr_h, g.rb_h);
                        let ri = self.mul(r, inner);
                        (z, self.add(x_h, ri))
                    }
                };
                let cand = self.act(d, 1, pre_h);
                let one = self.c(1.0);
                let keep = self.bin("graph.sub", one, z);
                let a = self.mul(keep, cand);
                let zh = self.mul(z, h);
                (self.add(a, zh), None)
            }
            Cell::Rnn => {
                let (pre, _) = self.preactivation(x, h, w.r, w.rb);
                (self.act(d, 0, pre), None)
            }
        }
    }
}
