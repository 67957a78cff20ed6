//! The kernel of a `graph.rnn` (`dlc_graph::recurrence`): the whole scan of every direction
//! and batch entry in one `loop.kernel`, so a sequence of any length is one launch.
//!
//! For each direction `d` (unrolled: its activations and time order are constants) a loop over
//! the batch holds the scan of one sequence: the state `h` in two `local` buffers (a step reads
//! one and writes the other, which a copy then moves into the first) and `c` in a third, loaded
//! from `h0`/`c0`; a serial loop over the steps `s < len` (`len` the entry's clamped
//! `sequence_lens`, else `T`), one per iteration. Step `s`, at time `t = s` or `len − 1 − s`,
//! is a loop over blocks of hidden units (`Scan::phase`): per block, the recurrent product
//! `h · r[d]` at the block's columns of every gate, accumulated in SIMD registers (up to 4
//! vectors per gate, half the register file) while `k` runs, so each row of `r` is read in
//! contiguous pieces at one multiply-add per element; then the cell at each of the block's units:
//! projected input, recurrent bias, peepholes, clip, the activations, the new state into `h`,
//! `c` and `y[t, d, b]`.
//!
//! Threads share the batch loop when the batch is `?` or large, else each step's unit blocks
//! (a launch per step, which pays off because the product streams all of `r` and each core
//! reads its share from its own cache; the two state buffers keep the threads apart). On the
//! LSTM of the issue (batch 1, 256 inputs and hidden units, 100 steps, 2 cores) this kernel took
//! 1.1 ms where a gate-major version, its cell a serial loop after each step's product, took
//! 1.4 ms. A gru cell without `linear_before_reset` needs all of `r⊙h` before the candidate's
//! product: its step is two such loops, the z and r gates (storing `z` and `r⊙h`) then the
//! candidate over `r⊙h`. After the steps, `y[t ≥ len]` is zeroed and the states are stored into
//! `y_h` (and `y_c`), zeros for an empty sequence.
//!
//! The copy of the new state (`H` elements, one vector loop) replaced two steps per iteration,
//! the second in a `loop.if` with the buffers swapped: the kernel is half the code for dlc's
//! passes and LLVM, so a recurrent model's first result comes sooner (`dlc-run --no-cache`,
//! alternating with the code before, three rounds: lstm_256 58–63 → 46–47 ms, bigru_256 75–81
//! → 55–65, oww_hey_mycroft 62–80 → 45–60, silero_vad_seq 87–90 → 63–76), and the steady
//! state moved within noise (`--no-tiers --bench 100`, four rounds: lstm_256 1.03–1.23 →
//! 1.05–1.27 ms, bigru_256 1.74–1.95 → 1.78–1.93, oww_hey_mycroft 0.056–0.079 → 0.060–0.073,
//! silero_vad_seq 0.63–0.68 → 0.63–0.70; "Intel(R) Xeon(R) Processor", 2 cores). One buffer
//! of `2H` read and written at the halves `(s & 1)·H` instead kept the code small too, but
//! `vectorize` could not tell the halves apart and left the cells scalar (oww_hey_mycroft's
//! recurrence kernels 0.044 ms against 0.035).

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

/// The batch size from which threads take batch entries rather than the columns of each step's
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
        registers: cpu.vector_registers as usize,
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
    /// SIMD registers of the target (a unit block's sums take at most half).
    registers: usize,
    /// Whether the target has fused multiply-add (the matvec uses `math.fma`).
    fma: bool,
    /// Threads split the batch (`?` or at least [`PARALLEL_BATCH`] entries), else each step's
    /// product (a few sequences: one step's work is what there is to share).
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
            // The state in two buffers: a step reads `ha` and writes `hb`, so the threads
            // sharing it never read what another one writes; once they are done, `hb` is
            // copied into `ha` for the next step.
            let ha = self.local(ctx, body, h);
            let hb = self.local(ctx, body, h);
            let cell_state = self.c0.map(|_| self.local(ctx, body, h));
            let gru_halves = (self.spec.cell == Cell::Gru && !self.spec.linear_before_reset)
                .then(|| (self.local(ctx, body, h), self.local(ctx, body, h)));
            let dv = self.index(ctx, d);
            // Initial states.
            let (l, i) = self.count(ctx, body, h);
            let (sb, v) = self.sblock(ctx, l, "init", &[b, i]);
            let x = self.load(ctx, sb, self.h0, &[dv, v[0], v[1]]);
            self.store(ctx, sb, x, ha, &[v[1]]);
            if let (Some(c0), Some(cs)) = (self.c0, cell_state) {
                let x = self.load(ctx, sb, c0, &[dv, v[0], v[1]]);
                self.store(ctx, sb, x, cs, &[v[1]]);
            }
            let len = self.length(ctx, body, b);
            let (step, s) = self.for_loop(ctx, body, (zero, len, one), LoopKind::Serial);
            let at = StepAt {
                d,
                dv,
                b,
                len,
                s,
                h: (ha, hb),
                c: cell_state,
            };
            self.step(ctx, step, &at, gru_halves)?;
            let (l, i) = self.count(ctx, step, h);
            let (sb, v) = self.sblock(ctx, l, "next", &[i]);
            let x = self.load(ctx, sb, hb, &[v[0]]);
            self.store(ctx, sb, x, ha, &[v[0]]);
            // Zeros after the sequence, then the final states.
            if self.lens.is_some() {
                let (l, t) = self.for_loop(ctx, body, (len, self.steps, one), LoopKind::Serial);
                let (l, i) = self.count(ctx, l, h);
                let (sb, v) = self.sblock(ctx, l, "pad", &[t, b, i]);
                let z = self.emit(ctx, sb).float(ctx, 0.0, self.elem);
                self.store(ctx, sb, z, self.y, &[v[0], dv, v[1], v[2]]);
            }
            // The last state is in `ha`; an empty sequence has zero final states (as
            // onnxruntime).
            let e = self.emit(ctx, body);
            let ran = e.cmpi(ctx, CmpIPredicate::Sgt, len, zero);
            let (l, i) = self.count(ctx, body, h);
            let (sb, v) = self.sblock(ctx, l, "final", &[b, i]);
            let z = self.emit(ctx, sb).float(ctx, 0.0, self.elem);
            let last = self.load(ctx, sb, ha, &[v[1]]);
            let last = self.emit(ctx, sb).select(ctx, ran, last, z);
            self.store(ctx, sb, last, self.y_h, &[dv, v[0], v[1]]);
            if let (Some(y_c), Some(cs)) = (self.y_c, cell_state) {
                let x = self.load(ctx, sb, cs, &[v[1]]);
                let x = self.emit(ctx, sb).select(ctx, ran, x, z);
                self.store(ctx, sb, x, y_c, &[dv, v[0], v[1]]);
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

    /// Step `at.s` at the end of `block`: its time, then its phases.
    fn step(
        &mut self,
        ctx: &mut Context,
        block: Block,
        at: &StepAt,
        gru_halves: Option<(Value, Value)>,
    ) -> Result<(), String> {
        let one = self.index(ctx, 1);
        let e = self.emit(ctx, block);
        let t = if self.spec.direction.is_reverse(at.d) {
            let last = e.arith(ctx, "subi", &[at.len, one], Type::INDEX);
            e.arith(ctx, "subi", &[last, at.s], Type::INDEX)
        } else {
            at.s
        };
        let st = State {
            d: at.d,
            dv: at.dv,
            b: at.b,
            t,
            h: at.h.0,
            next: at.h.1,
            c: at.c,
        };
        match gru_halves {
            Some((z, rh)) => {
                self.phase(ctx, block, &st, &[0, 1], st.h, Phase::Reset { z, rh })?;
                self.phase(ctx, block, &st, &[2], rh, Phase::Update { z })
            }
            None => {
                let all: Vec<usize> = (0..self.spec.cell.gates()).collect();
                self.phase(ctx, block, &st, &all, st.h, Phase::Cell)
            }
        }
    }

    /// One phase of a step over blocks of `U` hidden units (`vectors` times the SIMD lanes, or
    /// the largest power of two dividing `H`), shared by threads when the batch is not: for
    /// each block, the product `v · r[d]` at the columns of `gates` for its units, accumulated
    /// in a local buffer of `|gates|·U` elements (accessed only at constant offsets plus a
    /// one-vector loop's index, so LLVM keeps it in registers while `k` runs), then `what` at
    /// each unit of the block, a vector of units at a time.
    fn phase(
        &mut self,
        ctx: &mut Context,
        block: Block,
        st: &State,
        gates: &[usize],
        v: Value,
        what: Phase,
    ) -> Result<(), String> {
        let h = self.hidden;
        let width = (0..=self.lanes.trailing_zeros())
            .rev()
            .map(|p| 1usize << p)
            .find(|w| h.is_multiple_of(*w))
            .unwrap_or(1);
        // Vectors per gate: a block's sums use at most half the SIMD registers.
        let vectors = [4, 2, 1]
            .into_iter()
            .find(|v| h.is_multiple_of(v * width) && gates.len() * v * 2 <= self.registers)
            .unwrap_or(1);
        let size = vectors * width;
        let kind = if self.batch_parallel {
            LoopKind::Serial
        } else {
            LoopKind::Parallel
        };
        let zero = self.index(ctx, 0);
        let ub = self.index(ctx, h);
        let step = self.index(ctx, size);
        let (units, u0) = self.for_loop(ctx, block, (zero, ub, step), kind);
        let acc = self.local(ctx, units, gates.len() * size);
        for slot in 0..gates.len() * vectors {
            let (l, jj) = self.count(ctx, units, width);
            let (sb, vars) = self.sblock(ctx, l, "zero", &[jj]);
            let e = self.emit(ctx, sb);
            let z = e.float(ctx, 0.0, self.elem);
            let offset = e.int(ctx, (slot * width) as i64, Type::INDEX);
            let at = e.arith(ctx, "addi", &[vars[0], offset], Type::INDEX);
            self.store(ctx, sb, z, acc, &[at]);
        }
        let (kl, k) = self.count(ctx, units, h);
        for (slot, (q, c)) in (0..gates.len())
            .flat_map(|q| (0..vectors).map(move |c| (q, c)))
            .enumerate()
        {
            let gate = gates[q];
            let (l, jj) = self.count(ctx, kl, width);
            let at = before_terminator(ctx, l);
            let label = format!("matvec_{}", self.blocks);
            self.blocks += 1;
            let iters = [
                (jj, IterKind::Spatial),
                (k, IterKind::Reduce),
                (u0, IterKind::Spatial),
            ];
            let (_, body, _) = build_schedule_block(ctx, at, &label, &iters, false, self.loc);
            let vars = ctx.block_args(body).to_vec();
            let e = self.emit(ctx, body);
            let offset = e.int(ctx, (slot * width) as i64, Type::INDEX);
            let slot = e.arith(ctx, "addi", &[vars[0], offset], Type::INDEX);
            let unit = e.arith(ctx, "addi", &[vars[2], vars[0]], Type::INDEX);
            let base = e.int(ctx, (gate * h + c * width) as i64, Type::INDEX);
            let col = e.arith(ctx, "addi", &[unit, base], Type::INDEX);
            let w = self.load(ctx, body, self.r, &[st.dv, vars[1], col]);
            let x = self.load(ctx, body, v, &[vars[1]]);
            let a = self.load(ctx, body, acc, &[slot]);
            let e = self.emit(ctx, body);
            let sum = if self.fma {
                e.math(ctx, "fma", &[x, w, a])
            } else {
                let p = e.arith(ctx, "mulf", &[x, w], self.elem);
                e.arith(ctx, "addf", &[a, p], self.elem)
            };
            self.store(ctx, body, sum, acc, &[slot]);
        }
        // The units one vector at a time, so `acc` is read at constant offsets too.
        for c in 0..vectors {
            let (l, jj) = self.count(ctx, units, width);
            let (sb, vars) = self.sblock(ctx, l, what.name(), &[jj, u0, st.t, st.b]);
            let e = self.emit(ctx, sb);
            let first = e.int(ctx, (c * width) as i64, Type::INDEX);
            let lane = e.arith(ctx, "addi", &[vars[0], first], Type::INDEX);
            let unit = Unit {
                jj: vars[0],
                i: e.arith(ctx, "addi", &[vars[1], lane], Type::INDEX),
                t: vars[2],
                b: vars[3],
                acc,
                width,
                vector: c,
                vectors,
            };
            self.unit_math(ctx, sb, st, gates, &unit, what)?;
        }
        Ok(())
    }

    /// The parts of gate `gate` (phase slot `q`) at a unit: the projected input, the product
    /// and the recurrent bias.
    fn parts(
        &self,
        ctx: &mut Context,
        sb: Block,
        st: &State,
        u: &Unit,
        q: usize,
        gate: usize,
    ) -> [Value; 3] {
        let h = self.hidden;
        let gh = self.spec.cell.gates() * h;
        let e = self.emit(ctx, sb);
        let offset = e.int(
            ctx,
            ((q * u.vectors + u.vector) * u.width) as i64,
            Type::INDEX,
        );
        let slot = e.arith(ctx, "addi", &[u.jj, offset], Type::INDEX);
        let base = e.int(ctx, (gate * h) as i64, Type::INDEX);
        let j = e.arith(ctx, "addi", &[u.i, base], Type::INDEX);
        let dir = e.int(ctx, (st.d * gh) as i64, Type::INDEX);
        let xj = e.arith(ctx, "addi", &[j, dir], Type::INDEX);
        let x = self.load(ctx, sb, self.xp, &[u.t, u.b, xj]);
        let m = self.load(ctx, sb, u.acc, &[slot]);
        let rb = self.load(ctx, sb, self.rb, &[st.dv, j]);
        [x, m, rb]
    }

    /// Gate slot `q`'s pre-activation `x + m + rb`.
    fn pre(
        &self,
        ctx: &mut Context,
        sb: Block,
        st: &State,
        u: &Unit,
        q: usize,
        gate: usize,
    ) -> Value {
        let [x, m, rb] = self.parts(ctx, sb, st, u, q, gate);
        let e = self.emit(ctx, sb);
        let s = e.arith(ctx, "addf", &[x, m], self.elem);
        e.arith(ctx, "addf", &[s, rb], self.elem)
    }

    /// The math of a phase at one hidden unit: the cell (new state into `h`'s next half, `c`
    /// and `y[t, d, b]`), or a gru's reset and update halves.
    fn unit_math(
        &mut self,
        ctx: &mut Context,
        sb: Block,
        st: &State,
        gates: &[usize],
        u: &Unit,
        what: Phase,
    ) -> Result<(), String> {
        let elem = self.elem;
        let hsz = self.hidden;
        let h_old = self.load(ctx, sb, st.h, &[u.i]);
        let new_h = match (what, self.spec.cell) {
            (Phase::Reset { z, rh }, _) => {
                let pz = self.pre(ctx, sb, st, u, 0, gates[0]);
                let zg = self.activate(ctx, sb, st.d, 0, pz);
                self.store(ctx, sb, zg, z, &[u.i]);
                let pr = self.pre(ctx, sb, st, u, 1, gates[1]);
                let r = self.activate(ctx, sb, st.d, 0, pr);
                let p = self.emit(ctx, sb).arith(ctx, "mulf", &[r, h_old], elem);
                self.store(ctx, sb, p, rh, &[u.i]);
                return Ok(());
            }
            (Phase::Update { z }, _) => {
                let pre = self.pre(ctx, sb, st, u, 0, gates[0]);
                let cand = self.activate(ctx, sb, st.d, 1, pre);
                let zg = self.load(ctx, sb, z, &[u.i]);
                blend(ctx, self.emit(ctx, sb), zg, cand, h_old, elem)
            }
            (Phase::Cell, Cell::Rnn) => {
                let pre = self.pre(ctx, sb, st, u, 0, 0);
                self.activate(ctx, sb, st.d, 0, pre)
            }
            (Phase::Cell, Cell::Gru) => {
                // linear_before_reset: xp_h + r ⊙ (g_h + rb_h).
                let pz = self.pre(ctx, sb, st, u, 0, 0);
                let zg = self.activate(ctx, sb, st.d, 0, pz);
                let pr = self.pre(ctx, sb, st, u, 1, 1);
                let r = self.activate(ctx, sb, st.d, 0, pr);
                let [x, m, rb] = self.parts(ctx, sb, st, u, 2, 2);
                let e = self.emit(ctx, sb);
                let s = e.arith(ctx, "addf", &[m, rb], elem);
                let s = e.arith(ctx, "mulf", &[r, s], elem);
                let pre = e.arith(ctx, "addf", &[x, s], elem);
                let cand = self.activate(ctx, sb, st.d, 1, pre);
                blend(ctx, self.emit(ctx, sb), zg, cand, h_old, elem)
            }
            (Phase::Cell, Cell::Lstm) => {
                let (p, cs) = match (self.p, st.c) {
                    (Some(p), Some(c)) => (p, c),
                    _ => return Err("an lstm without peepholes or cell state".into()),
                };
                let c_old = self.load(ctx, sb, cs, &[u.i]);
                let peep = |this: &Self, ctx: &mut Context, q: usize, c: Value| -> Value {
                    let e = this.emit(ctx, sb);
                    let off = e.int(ctx, (q * hsz) as i64, Type::INDEX);
                    let at = e.arith(ctx, "addi", &[u.i, off], Type::INDEX);
                    let w = this.load(ctx, sb, p, &[st.dv, at]);
                    this.emit(ctx, sb).arith(ctx, "mulf", &[w, c], elem)
                };
                let pre_i = self.pre(ctx, sb, st, u, 0, 0);
                let pi = peep(self, ctx, 0, c_old);
                let pre_i = self.emit(ctx, sb).arith(ctx, "addf", &[pre_i, pi], elem);
                let ig = self.activate(ctx, sb, st.d, 0, pre_i);
                let fg = if self.spec.input_forget {
                    let e = self.emit(ctx, sb);
                    let one = e.float(ctx, 1.0, elem);
                    e.arith(ctx, "subf", &[one, ig], elem)
                } else {
                    let pre_f = self.pre(ctx, sb, st, u, 2, 2);
                    let pf = peep(self, ctx, 2, c_old);
                    let pre_f = self.emit(ctx, sb).arith(ctx, "addf", &[pre_f, pf], elem);
                    self.activate(ctx, sb, st.d, 0, pre_f)
                };
                let pre_c = self.pre(ctx, sb, st, u, 3, 3);
                let cand = self.activate(ctx, sb, st.d, 1, pre_c);
                let e = self.emit(ctx, sb);
                let fc = e.arith(ctx, "mulf", &[fg, c_old], elem);
                let ic = e.arith(ctx, "mulf", &[ig, cand], elem);
                let c_new = e.arith(ctx, "addf", &[fc, ic], elem);
                self.store(ctx, sb, c_new, cs, &[u.i]);
                let pre_o = self.pre(ctx, sb, st, u, 1, 1);
                let po = peep(self, ctx, 1, c_new);
                let pre_o = self.emit(ctx, sb).arith(ctx, "addf", &[pre_o, po], elem);
                let og = self.activate(ctx, sb, st.d, 0, pre_o);
                // The cell state is no gate: h(c') takes it unclipped.
                let act = self.spec.activation(st.d, 2);
                let hc = activation(ctx, self.emit(ctx, sb), act, c_new, elem);
                self.emit(ctx, sb).arith(ctx, "mulf", &[og, hc], elem)
            }
        };
        self.store(ctx, sb, new_h, st.next, &[u.i]);
        self.store(ctx, sb, new_h, self.y, &[u.t, st.dv, u.b, u.i]);
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

/// Which step to build: direction `d` (also as the index `dv`), batch entry `b` with `len`
/// steps, step number `s`, the state buffers `(read, written)` and the cell state.
struct StepAt {
    d: usize,
    dv: Value,
    b: Value,
    len: Value,
    s: Value,
    h: (Value, Value),
    c: Option<Value>,
}

/// Where a step is: direction `d` (also as the index `dv`), batch entry `b`, time `t`; the
/// state buffer `h` it reads, the one it writes (`next`) and the cell state.
struct State {
    d: usize,
    dv: Value,
    b: Value,
    t: Value,
    h: Value,
    next: Value,
    c: Option<Value>,
}

/// What a phase computes at each unit once its gate products are done.
#[derive(Copy, Clone)]
enum Phase {
    /// The cell: the new state.
    Cell,
    /// gru without `linear_before_reset`, first half: `z` into `z`, `r⊙h` into `rh`.
    Reset { z: Value, rh: Value },
    /// Its second half, over `r⊙h`: the candidate and the new state.
    Update { z: Value },
}

impl Phase {
    fn name(self) -> &'static str {
        match self {
            Phase::Cell => "cell",
            Phase::Reset { .. } => "reset",
            Phase::Update { .. } => "update",
        }
    }
}

/// One hidden unit in a phase's unit block: its lane `jj` in the block and number `i`, the
/// step's time and batch entry as the block's iter vars, and the block's sums.
struct Unit {
    jj: Value,
    i: Value,
    t: Value,
    b: Value,
    acc: Value,
    width: usize,
    /// Which of the block's `vectors` vectors of `width` units this one is in.
    vector: usize,
    vectors: usize,
}

/// `(1 − z)·ĥ + z·h`, as `ĥ + z·(h − ĥ)`.
fn blend(ctx: &mut Context, e: Emit, z: Value, cand: Value, h: Value, ty: Type) -> Value {
    let diff = e.arith(ctx, "subf", &[h, cand], ty);
    let zd = e.arith(ctx, "mulf", &[z, diff], ty);
    e.arith(ctx, "addf", &[cand, zd], ty)
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
