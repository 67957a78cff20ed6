//! The kernel of a `graph.rnn` (`dlc_graph::recurrence`): the whole scan of every direction
//! and batch entry in one `loop.kernel`, so a sequence of any length is one launch.
//!
//! For each direction `d` (unrolled: its activations and time order are constants) a loop over
//! the batch holds the scan of one sequence: the state `h` (and `c`) in `local` buffers of `H`
//! elements, loaded from `h0`/`c0`; a serial loop over the steps `s < len` (`len` the entry's
//! clamped `sequence_lens`, else `T`), at time `t = s` or `len − 1 − s`, holding
//! - the recurrent product `g = v · r[d]` over the gate columns, in register strips (see
//!   `Scan::matvec`), which `vectorize` turns into SIMD multiply-adds;
//! - the cell block per hidden unit: projected input, recurrent bias, peepholes, clip, the
//!   activations and the new state, stored into `h`, `c` and `y[t, d, b]`.
//!
//! A gru cell without `linear_before_reset` needs `r⊙h` before the candidate row's product:
//! its step runs the z and r rows, a block storing `r⊙h` into a third local buffer, then the
//! candidate rows over that. After the steps, `y[t ≥ len]` is zeroed and the states are stored
//! into `y_h` (and `y_c`), zeros for an empty sequence.
//!
//! Threads share the batch loop when the batch is `?` or large; for a few sequences they share
//! each step's product instead (its strip loop is `parallel`: a launch per step, which pays off
//! because the product streams all of `r` and each core reads its half from its own cache). On
//! the LSTM of the issue (batch 1, 256 inputs and hidden units, 100 steps, 2 cores) the kernel
//! took 1.3 ms on one thread and 1.05 ms this way.

use super::element::Emit;
use super::kernel::global_buffer;
use crate::loops::cpu::target::{inherit_target_cpu, CpuInfo};
use dlc_arith::{CmpFPredicate, CmpIPredicate};
use dlc_graph::recurrence::{Activation, ActivationKind, Cell, RnnSpec};
use dlc_graph::shapes::SymbolicShapes;
use dlc_graph::tensor_parts;
use dlc_ir::{Block, Context, InsertPoint, Location, Op, Type, Value, DYNAMIC};
use dlc_loop::{
    before_terminator, buffer_type, build_alloc, build_for, build_kernel, build_load,
    build_schedule_block, build_store, IterKind, LoopKind, MemorySpace,
};
use rustc_hash::FxHashMap;

/// The batch size from which threads take batch entries rather than the strips of each step's
/// product (onnxruntime's LSTM splits the batch from 4 up too).
const PARALLEL_BATCH: i64 = 4;

/// A built kernel: the op, and which dims the host passes after the buffers (`(value, axis)`
/// of the `graph.rnn`'s operand 0, for each of `T` and `B` that is `?`).
pub(super) struct Built {
    pub kernel: Op,
    pub sizes: Vec<(Value, usize)>,
}

/// Builds the kernel `name` of `graph.rnn` `op` at `at`. Its arguments: a global buffer per
/// operand and per result, then an `index` per `?` of `T` and `B`.
pub(super) fn build(
    ctx: &mut Context,
    at: InsertPoint,
    name: &str,
    op: Op,
    shapes: &SymbolicShapes,
) -> Result<Built, String> {
    let spec = RnnSpec::of(ctx, op)?;
    let loc = ctx.op_loc(op);
    let operands = ctx.operands(op).to_vec();
    let results: Vec<Value> = ctx.results(op).collect();
    let xp = tensor_parts(ctx, ctx.value_type(operands[0])).ok_or("xp is not a tensor")?;
    let r = tensor_parts(ctx, ctx.value_type(operands[1])).ok_or("r is not a tensor")?;
    let hidden = r.shape[1];
    if hidden == DYNAMIC {
        return Err("'lower' needs a static hidden size for 'graph.rnn'".into());
    }
    let mut types = Vec::new();
    for &v in operands.iter().chain(&results) {
        types.push(global_buffer(ctx, shapes, v)?);
    }
    let sizes: Vec<(Value, usize)> = [0, 1]
        .into_iter()
        .filter(|&a| xp.shape[a] == DYNAMIC)
        .map(|a| (operands[0], a))
        .collect();
    types.extend(std::iter::repeat_n(Type::INDEX, sizes.len()));
    let (kernel, entry) = build_kernel(ctx, at, name, &types, loc);
    inherit_target_cpu(ctx, kernel.0);
    let args = ctx.block_args(entry).to_vec();
    let n = operands.len();
    let m = results.len();
    let e = Emit {
        at: before_terminator(ctx, entry),
        loc,
    };
    let mut extra = args[n + m..].iter().copied();
    let mut size = |d: i64| match d {
        DYNAMIC => extra.next().ok_or("a missing size argument"),
        d => Ok(e.int(ctx, d, Type::INDEX)),
    };
    let steps = size(xp.shape[0])?;
    let batch = size(xp.shape[1])?;
    let base = spec.cell.operands();
    let cpu = CpuInfo::for_op(ctx, kernel.0, "")?;
    let k = Scan {
        spec: &spec,
        loc,
        elem: xp.element,
        hidden: hidden as usize,
        xp: args[0],
        r: args[1],
        rb: args[2],
        h0: args[3],
        c0: (spec.cell == Cell::Lstm).then(|| args[4]),
        p: (spec.cell == Cell::Lstm).then(|| args[5]),
        lens: (n > base).then(|| args[base]),
        y: args[n],
        y_h: args[n + 1],
        y_c: (spec.cell == Cell::Lstm).then(|| args[n + 2]),
        steps,
        entry,
        consts: FxHashMap::default(),
        lanes: cpu.lanes(elem_bits(xp.element)) as usize,
        fma: cpu.fma,
        batch_parallel: xp.shape[1] == DYNAMIC || xp.shape[1] >= PARALLEL_BATCH,
        blocks: 0,
    };
    k.build(ctx, entry, batch)?;
    Ok(Built {
        kernel: kernel.0,
        sizes,
    })
}

/// The kernel arguments and what the builder needs to know of the op.
struct Scan<'s> {
    spec: &'s RnnSpec,
    loc: Location,
    elem: Type,
    hidden: usize,
    xp: Value,
    r: Value,
    rb: Value,
    h0: Value,
    c0: Option<Value>,
    p: Option<Value>,
    lens: Option<Value>,
    y: Value,
    y_h: Value,
    y_c: Option<Value>,
    steps: Value,
    /// The kernel's entry block, where [`Scan::index`] puts its constants.
    entry: Block,
    consts: FxHashMap<usize, Value>,
    /// SIMD lanes of the target for the element type (the width of a matvec vector).
    lanes: usize,
    /// Whether the target has fused multiply-add (the product uses `math.fma`).
    fma: bool,
    /// Threads split the batch (`?` or at least [`PARALLEL_BATCH`] entries), else the strips
    /// of each step's product (a few sequences: one step's work is what there is to share).
    batch_parallel: bool,
    blocks: usize,
}

impl Scan<'_> {
    fn emit(&self, ctx: &Context, block: Block) -> Emit {
        Emit {
            at: before_terminator(ctx, block),
            loc: self.loc,
        }
    }

    /// The `index` constant `v`, made once at the top of the kernel.
    fn index(&mut self, ctx: &mut Context, v: usize) -> Value {
        if let Some(&c) = self.consts.get(&v) {
            return c;
        }
        let e = Emit {
            at: InsertPoint::Start(self.entry),
            loc: self.loc,
        };
        let c = e.int(ctx, v as i64, Type::INDEX);
        self.consts.insert(v, c);
        c
    }

    /// `loop.for kind %iv = lb to ub step s` at the end of `block`.
    fn for_loop(
        &self,
        ctx: &mut Context,
        block: Block,
        bounds: (Value, Value, Value),
        kind: LoopKind,
    ) -> (Block, Value) {
        let at = before_terminator(ctx, block);
        let (_, body, iv) = build_for(ctx, at, bounds, kind, self.loc);
        (body, iv)
    }

    /// A loop over `[0, n)`.
    fn count(&mut self, ctx: &mut Context, block: Block, n: usize) -> (Block, Value) {
        let zero = self.index(ctx, 0);
        let ub = self.index(ctx, n);
        let one = self.index(ctx, 1);
        self.for_loop(ctx, block, (zero, ub, one), LoopKind::Serial)
    }

    /// A schedule block named `name` at the end of `block`, binding `iters` (spatial); returns
    /// its body and the iter vars.
    fn sblock(
        &mut self,
        ctx: &mut Context,
        block: Block,
        name: &str,
        iters: &[Value],
    ) -> (Block, Vec<Value>) {
        let iters: Vec<(Value, IterKind)> = iters.iter().map(|v| (*v, IterKind::Spatial)).collect();
        let at = before_terminator(ctx, block);
        let label = format!("{name}_{}", self.blocks);
        self.blocks += 1;
        let (_, body, _) = build_schedule_block(ctx, at, &label, &iters, false, self.loc);
        let vars = ctx.block_args(body).to_vec();
        (body, vars)
    }

    fn local(&self, ctx: &mut Context, block: Block, n: usize) -> Value {
        let ty = buffer_type(ctx, &[n as i64], self.elem, MemorySpace::Local);
        build_alloc(ctx, before_terminator(ctx, block), ty, &[], self.loc)
    }

    fn load(&self, ctx: &mut Context, block: Block, buf: Value, idx: &[Value]) -> Value {
        build_load(ctx, before_terminator(ctx, block), buf, idx, self.loc)
    }

    fn store(&self, ctx: &mut Context, block: Block, v: Value, buf: Value, idx: &[Value]) {
        build_store(ctx, before_terminator(ctx, block), v, buf, idx, self.loc);
    }

    /// The whole kernel body: one batch loop per direction.
    fn build(mut self, ctx: &mut Context, entry: Block, batch: Value) -> Result<(), String> {
        let h = self.hidden;
        for d in 0..self.spec.direction.count() {
            let zero = self.index(ctx, 0);
            let one = self.index(ctx, 1);
            let kind = if self.batch_parallel {
                LoopKind::Parallel
            } else {
                LoopKind::Serial
            };
            let (body, b) = self.for_loop(ctx, entry, (zero, batch, one), kind);
            let state = self.local(ctx, body, h);
            let cell_state = self.c0.map(|_| self.local(ctx, body, h));
            let gh = self.spec.cell.gates() * h;
            let gates = self.local(ctx, body, gh);
            let reset = (self.spec.cell == Cell::Gru && !self.spec.linear_before_reset)
                .then(|| self.local(ctx, body, h));
            let dv = self.index(ctx, d);
            // Initial states.
            let (l, i) = self.count(ctx, body, h);
            let (sb, v) = self.sblock(ctx, l, "init", &[b, i]);
            let x = self.load(ctx, sb, self.h0, &[dv, v[0], v[1]]);
            self.store(ctx, sb, x, state, &[v[1]]);
            if let (Some(c0), Some(cs)) = (self.c0, cell_state) {
                let x = self.load(ctx, sb, c0, &[dv, v[0], v[1]]);
                self.store(ctx, sb, x, cs, &[v[1]]);
            }
            let len = self.length(ctx, body, b);
            // The steps.
            let (step, s) = self.for_loop(ctx, body, (zero, len, one), LoopKind::Serial);
            let t = if self.spec.direction.is_reverse(d) {
                let e = self.emit(ctx, step);
                let last = e.arith(ctx, "subi", &[len, one], Type::INDEX);
                e.arith(ctx, "subi", &[last, s], Type::INDEX)
            } else {
                s
            };
            let st = State {
                d,
                dv,
                b,
                t,
                h: state,
                c: cell_state,
                g: gates,
            };
            match reset {
                Some(rh) => {
                    self.matvec(ctx, step, &st, 0, 2 * h, state);
                    self.reset_block(ctx, step, &st, rh);
                    self.matvec(ctx, step, &st, 2 * h, 3 * h, rh);
                }
                None => self.matvec(ctx, step, &st, 0, gh, state),
            }
            self.cell_block(ctx, step, &st)?;
            // Zeros after the sequence, then the final states.
            if self.lens.is_some() {
                let (l, t) = self.for_loop(ctx, body, (len, self.steps, one), LoopKind::Serial);
                let (l, i) = self.count(ctx, l, h);
                let (sb, v) = self.sblock(ctx, l, "pad", &[t, b, i]);
                let z = self.emit(ctx, sb).float(ctx, 0.0, self.elem);
                self.store(ctx, sb, z, self.y, &[v[0], dv, v[1], v[2]]);
            }
            // An empty sequence has zero final states (as onnxruntime).
            let e = self.emit(ctx, body);
            let ran = e.cmpi(ctx, CmpIPredicate::Sgt, len, zero);
            let (l, i) = self.count(ctx, body, h);
            let (sb, v) = self.sblock(ctx, l, "final", &[b, i]);
            let z = self.emit(ctx, sb).float(ctx, 0.0, self.elem);
            let finals = [(Some(self.y_h), Some(state)), (self.y_c, cell_state)];
            for (out, buf) in finals {
                if let (Some(out), Some(buf)) = (out, buf) {
                    let x = self.load(ctx, sb, buf, &[v[1]]);
                    let x = self.emit(ctx, sb).select(ctx, ran, x, z);
                    self.store(ctx, sb, x, out, &[dv, v[0], v[1]]);
                }
            }
        }
        Ok(())
    }

    /// The steps of batch entry `b`: its `sequence_lens` entry clamped to `[0, T]`, or `T`.
    fn length(&mut self, ctx: &mut Context, block: Block, b: Value) -> Value {
        let Some(lens) = self.lens else {
            return self.steps;
        };
        let zero = self.index(ctx, 0);
        let raw = self.load(ctx, block, lens, &[b]);
        let e = self.emit(ctx, block);
        let n = e.arith(ctx, "index_cast", &[raw], Type::INDEX);
        let n = e.arith(ctx, "maxsi", &[n, zero], Type::INDEX);
        e.arith(ctx, "minsi", &[n, self.steps], Type::INDEX)
    }

    /// `g[j] = Σ_k v[k] · r[d, k, j]` for the columns `j` in `[from, to)`: strips of
    /// `vectors` SIMD registers' worth of columns (the target's lanes each), then one strip for
    /// the columns left. A strip's sums stay in a local buffer while `k` runs, each `k` adding
    /// `v[k]` times a contiguous piece of row `k` of `r`, so `r` is read once per step at one
    /// multiply-add per element.
    fn matvec(
        &mut self,
        ctx: &mut Context,
        block: Block,
        st: &State,
        from: usize,
        to: usize,
        v: Value,
    ) {
        let (vectors, lanes) = (4, self.lanes);
        let whole = (to - from) / (vectors * lanes) * (vectors * lanes);
        if whole > 0 {
            self.strips(ctx, block, st, v, (from, from + whole), vectors, lanes);
        }
        if from + whole < to {
            self.strips(ctx, block, st, v, (from + whole, to), 1, to - from - whole);
        }
    }

    /// The strips of `vectors · width` columns over `cols`: per strip, the sums in a local
    /// buffer, zeroed; a loop over `k` holding one loop of `width` columns per vector (each
    /// one SIMD multiply-add once `vectorize` is through, at a constant offset of the buffer,
    /// which LLVM keeps in registers); then the sums stored into `g`.
    #[allow(clippy::too_many_arguments)]
    fn strips(
        &mut self,
        ctx: &mut Context,
        block: Block,
        st: &State,
        v: Value,
        cols: (usize, usize),
        vectors: usize,
        width: usize,
    ) {
        let size = vectors * width;
        let lb = self.index(ctx, cols.0);
        let ub = self.index(ctx, cols.1);
        let step = self.index(ctx, size);
        let kind = if self.batch_parallel {
            LoopKind::Serial
        } else {
            LoopKind::Parallel
        };
        let (strip, jb) = self.for_loop(ctx, block, (lb, ub, step), kind);
        let acc = self.local(ctx, strip, size);
        // Every access of `acc` is at a constant offset plus a vector loop's index, so LLVM's
        // SROA can split it into registers once the loops are single vectors.
        for q in 0..vectors {
            let (l, jj) = self.count(ctx, strip, width);
            let (sb, vars) = self.sblock(ctx, l, "zero", &[jj]);
            let e = self.emit(ctx, sb);
            let zero = e.float(ctx, 0.0, self.elem);
            let offset = e.int(ctx, (q * width) as i64, Type::INDEX);
            let at = e.arith(ctx, "addi", &[vars[0], offset], Type::INDEX);
            self.store(ctx, sb, zero, acc, &[at]);
        }
        let (kl, k) = self.count(ctx, strip, self.hidden);
        for q in 0..vectors {
            let (l, jj) = self.count(ctx, kl, width);
            let at = before_terminator(ctx, l);
            let label = format!("matvec_{}", self.blocks);
            self.blocks += 1;
            let iters = [
                (jj, IterKind::Spatial),
                (k, IterKind::Reduce),
                (jb, IterKind::Spatial),
            ];
            let (_, body, _) = build_schedule_block(ctx, at, &label, &iters, false, self.loc);
            let vars = ctx.block_args(body).to_vec();
            let e = self.emit(ctx, body);
            let offset = e.int(ctx, (q * width) as i64, Type::INDEX);
            let at = e.arith(ctx, "addi", &[vars[0], offset], Type::INDEX);
            let col = e.arith(ctx, "addi", &[vars[2], at], Type::INDEX);
            let w = self.load(ctx, body, self.r, &[st.dv, vars[1], col]);
            let x = self.load(ctx, body, v, &[vars[1]]);
            let a = self.load(ctx, body, acc, &[at]);
            let e = self.emit(ctx, body);
            let sum = if self.fma {
                e.math(ctx, "fma", &[x, w, a])
            } else {
                let p = e.arith(ctx, "mulf", &[x, w], self.elem);
                e.arith(ctx, "addf", &[a, p], self.elem)
            };
            self.store(ctx, body, sum, acc, &[at]);
        }
        for q in 0..vectors {
            let (l, jj) = self.count(ctx, strip, width);
            let (sb, vars) = self.sblock(ctx, l, "store", &[jj, jb]);
            let e = self.emit(ctx, sb);
            let offset = e.int(ctx, (q * width) as i64, Type::INDEX);
            let at = e.arith(ctx, "addi", &[vars[0], offset], Type::INDEX);
            let col = e.arith(ctx, "addi", &[vars[1], at], Type::INDEX);
            let a = self.load(ctx, sb, acc, &[at]);
            self.store(ctx, sb, a, st.g, &[col]);
        }
    }

    /// Gate `q`'s pre-activation at hidden unit `i` (iter var), from the projected input, the
    /// matvec and the recurrent bias: `xp[t, b, d·G·H + q·H + i] + g[q·H + i] + rb[d, q·H + i]`.
    fn gate(&self, ctx: &mut Context, sb: Block, st: &State, v: &[Value], q: usize) -> Value {
        let h = self.hidden;
        let gh = self.spec.cell.gates() * h;
        let e = self.emit(ctx, sb);
        let col = e.int(ctx, (q * h) as i64, Type::INDEX);
        let j = e.arith(ctx, "addi", &[v[0], col], Type::INDEX);
        let base = e.int(ctx, (st.d * gh) as i64, Type::INDEX);
        let xj = e.arith(ctx, "addi", &[j, base], Type::INDEX);
        let x = self.load(ctx, sb, self.xp, &[v[1], v[2], xj]);
        let g = self.load(ctx, sb, st.g, &[j]);
        let rb = self.load(ctx, sb, self.rb, &[st.dv, j]);
        let e = self.emit(ctx, sb);
        let s = e.arith(ctx, "addf", &[x, g], self.elem);
        e.arith(ctx, "addf", &[s, rb], self.elem)
    }

    /// gru without `linear_before_reset`: `rh[i] = f(r gate) · h[i]`.
    fn reset_block(&mut self, ctx: &mut Context, block: Block, st: &State, rh: Value) {
        let (l, i) = self.count(ctx, block, self.hidden);
        let (sb, v) = self.sblock(ctx, l, "reset", &[i, st.t, st.b]);
        let pre = self.gate(ctx, sb, st, &v, 1);
        let r = self.activate(ctx, sb, st.d, 0, pre);
        let h = self.load(ctx, sb, st.h, &[v[0]]);
        let p = self.emit(ctx, sb).arith(ctx, "mulf", &[r, h], self.elem);
        self.store(ctx, sb, p, rh, &[v[0]]);
    }

    /// The cell at each hidden unit: the new state into `h` (and `c`) and `y[t, d, b]`.
    fn cell_block(&mut self, ctx: &mut Context, block: Block, st: &State) -> Result<(), String> {
        let hsz = self.hidden;
        let (l, i) = self.count(ctx, block, hsz);
        let (sb, v) = self.sblock(ctx, l, "cell", &[i, st.t, st.b]);
        let elem = self.elem;
        let h_old = self.load(ctx, sb, st.h, &[v[0]]);
        let new_h = match self.spec.cell {
            Cell::Rnn => {
                let pre = self.gate(ctx, sb, st, &v, 0);
                self.activate(ctx, sb, st.d, 0, pre)
            }
            Cell::Gru => {
                let pre_z = self.gate(ctx, sb, st, &v, 0);
                let z = self.activate(ctx, sb, st.d, 0, pre_z);
                let pre = if self.spec.linear_before_reset {
                    let pre_r = self.gate(ctx, sb, st, &v, 1);
                    let r = self.activate(ctx, sb, st.d, 0, pre_r);
                    // xp_h + r ⊙ (g_h + rb_h)
                    let e = self.emit(ctx, sb);
                    let h2 = e.int(ctx, (2 * hsz) as i64, Type::INDEX);
                    let j = e.arith(ctx, "addi", &[v[0], h2], Type::INDEX);
                    let gh = (self.spec.cell.gates() * hsz * st.d) as i64;
                    let base = e.int(ctx, gh, Type::INDEX);
                    let xj = e.arith(ctx, "addi", &[j, base], Type::INDEX);
                    let x = self.load(ctx, sb, self.xp, &[v[1], v[2], xj]);
                    let g = self.load(ctx, sb, st.g, &[j]);
                    let rb = self.load(ctx, sb, self.rb, &[st.dv, j]);
                    let e = self.emit(ctx, sb);
                    let s = e.arith(ctx, "addf", &[g, rb], elem);
                    let s = e.arith(ctx, "mulf", &[r, s], elem);
                    e.arith(ctx, "addf", &[x, s], elem)
                } else {
                    self.gate(ctx, sb, st, &v, 2)
                };
                let cand = self.activate(ctx, sb, st.d, 1, pre);
                // (1 − z)·ĥ + z·h = ĥ + z·(h − ĥ)
                let e = self.emit(ctx, sb);
                let diff = e.arith(ctx, "subf", &[h_old, cand], elem);
                let zd = e.arith(ctx, "mulf", &[z, diff], elem);
                e.arith(ctx, "addf", &[cand, zd], elem)
            }
            Cell::Lstm => {
                let (p, cs) = match (self.p, st.c) {
                    (Some(p), Some(c)) => (p, c),
                    _ => return Err("an lstm without peepholes or cell state".into()),
                };
                let c_old = self.load(ctx, sb, cs, &[v[0]]);
                let peep = |this: &Self, ctx: &mut Context, q: usize, c: Value| -> Value {
                    let e = this.emit(ctx, sb);
                    let off = e.int(ctx, (q * hsz) as i64, Type::INDEX);
                    let at = e.arith(ctx, "addi", &[v[0], off], Type::INDEX);
                    let w = this.load(ctx, sb, p, &[st.dv, at]);
                    this.emit(ctx, sb).arith(ctx, "mulf", &[w, c], elem)
                };
                let pre_i = self.gate(ctx, sb, st, &v, 0);
                let pi = peep(self, ctx, 0, c_old);
                let pre_i = self.emit(ctx, sb).arith(ctx, "addf", &[pre_i, pi], elem);
                let ig = self.activate(ctx, sb, st.d, 0, pre_i);
                let fg = if self.spec.input_forget {
                    let e = self.emit(ctx, sb);
                    let one = e.float(ctx, 1.0, elem);
                    e.arith(ctx, "subf", &[one, ig], elem)
                } else {
                    let pre_f = self.gate(ctx, sb, st, &v, 2);
                    let pf = peep(self, ctx, 2, c_old);
                    let pre_f = self.emit(ctx, sb).arith(ctx, "addf", &[pre_f, pf], elem);
                    self.activate(ctx, sb, st.d, 0, pre_f)
                };
                let pre_c = self.gate(ctx, sb, st, &v, 3);
                let cand = self.activate(ctx, sb, st.d, 1, pre_c);
                let e = self.emit(ctx, sb);
                let fc = e.arith(ctx, "mulf", &[fg, c_old], elem);
                let ic = e.arith(ctx, "mulf", &[ig, cand], elem);
                let c_new = e.arith(ctx, "addf", &[fc, ic], elem);
                self.store(ctx, sb, c_new, cs, &[v[0]]);
                let pre_o = self.gate(ctx, sb, st, &v, 1);
                let po = peep(self, ctx, 1, c_new);
                let pre_o = self.emit(ctx, sb).arith(ctx, "addf", &[pre_o, po], elem);
                let og = self.activate(ctx, sb, st.d, 0, pre_o);
                // The cell state is no gate: h(c') takes it unclipped.
                let act = self.spec.activation(st.d, 2);
                let hc = activation(ctx, self.emit(ctx, sb), act, c_new, elem);
                self.emit(ctx, sb).arith(ctx, "mulf", &[og, hc], elem)
            }
        };
        self.store(ctx, sb, new_h, st.h, &[v[0]]);
        self.store(ctx, sb, new_h, self.y, &[v[1], st.dv, v[2], v[0]]);
        Ok(())
    }

    /// Activation `k` of direction `d` at `x`, after the clip.
    fn activate(&self, ctx: &mut Context, sb: Block, d: usize, k: usize, x: Value) -> Value {
        let e = self.emit(ctx, sb);
        let ty = self.elem;
        let x = match self.spec.clip {
            Some(c) => {
                let hi = e.float(ctx, c, ty);
                let lo = e.float(ctx, -c, ty);
                let x = e.arith(ctx, "maximumf", &[x, lo], ty);
                e.arith(ctx, "minimumf", &[x, hi], ty)
            }
            None => x,
        };
        activation(ctx, e, self.spec.activation(d, k), x, ty)
    }
}

/// Where a step is: direction `d` (also as the index `dv`), batch entry `b`, time `t`, and the
/// local buffers of the state and the gates.
struct State {
    d: usize,
    dv: Value,
    b: Value,
    t: Value,
    h: Value,
    c: Option<Value>,
    g: Value,
}

/// `act(x)` as scalar ops of float type `ty`, as `Activation::apply` computes it.
fn activation(ctx: &mut Context, e: Emit, act: Activation, x: Value, ty: Type) -> Value {
    use ActivationKind::*;
    let alpha = |ctx: &mut Context| e.float(ctx, act.alpha, ty);
    let beta = |ctx: &mut Context| e.float(ctx, act.beta, ty);
    match act.kind {
        Relu => {
            let zero = e.float(ctx, 0.0, ty);
            let keep = e.cmpf(ctx, CmpFPredicate::Ugt, x, zero);
            e.select(ctx, keep, x, zero)
        }
        Tanh => e.math(ctx, "tanh", &[x]),
        Sigmoid => {
            let neg = e.arith(ctx, "negf", &[x], ty);
            let exp = e.math(ctx, "exp", &[neg]);
            let one = e.float(ctx, 1.0, ty);
            let den = e.arith(ctx, "addf", &[one, exp], ty);
            e.arith(ctx, "divf", &[one, den], ty)
        }
        Affine => {
            let (a, b) = (alpha(ctx), beta(ctx));
            let ax = e.arith(ctx, "mulf", &[a, x], ty);
            e.arith(ctx, "addf", &[ax, b], ty)
        }
        LeakyRelu => {
            let zero = e.float(ctx, 0.0, ty);
            let a = alpha(ctx);
            let ax = e.arith(ctx, "mulf", &[a, x], ty);
            let pos = e.cmpf(ctx, CmpFPredicate::Oge, x, zero);
            e.select(ctx, pos, x, ax)
        }
        ThresholdedRelu => {
            let zero = e.float(ctx, 0.0, ty);
            let a = alpha(ctx);
            let keep = e.cmpf(ctx, CmpFPredicate::Ogt, x, a);
            e.select(ctx, keep, x, zero)
        }
        ScaledTanh => {
            let (a, b) = (alpha(ctx), beta(ctx));
            let bx = e.arith(ctx, "mulf", &[b, x], ty);
            let t = e.math(ctx, "tanh", &[bx]);
            e.arith(ctx, "mulf", &[a, t], ty)
        }
        HardSigmoid => {
            let (a, b) = (alpha(ctx), beta(ctx));
            let ax = e.arith(ctx, "mulf", &[a, x], ty);
            let v = e.arith(ctx, "addf", &[ax, b], ty);
            let (zero, one) = (e.float(ctx, 0.0, ty), e.float(ctx, 1.0, ty));
            let v = e.arith(ctx, "maximumf", &[v, zero], ty);
            e.arith(ctx, "minimumf", &[v, one], ty)
        }
        Elu => {
            let zero = e.float(ctx, 0.0, ty);
            let (a, one) = (alpha(ctx), e.float(ctx, 1.0, ty));
            let ex = e.math(ctx, "exp", &[x]);
            let em1 = e.arith(ctx, "subf", &[ex, one], ty);
            let neg = e.arith(ctx, "mulf", &[a, em1], ty);
            let pos = e.cmpf(ctx, CmpFPredicate::Oge, x, zero);
            e.select(ctx, pos, x, neg)
        }
        Softsign => {
            let one = e.float(ctx, 1.0, ty);
            let abs = e.math(ctx, "absf", &[x]);
            let den = e.arith(ctx, "addf", &[one, abs], ty);
            e.arith(ctx, "divf", &[x, den], ty)
        }
        Softplus => {
            let one = e.float(ctx, 1.0, ty);
            let ex = e.math(ctx, "exp", &[x]);
            let s = e.arith(ctx, "addf", &[one, ex], ty);
            e.math(ctx, "log", &[s])
        }
    }
}

/// Bits of float type `ty`.
fn elem_bits(ty: Type) -> u32 {
    match ty {
        Type::F16 | Type::BF16 => 16,
        Type::F64 => 64,
        _ => 32,
    }
}
