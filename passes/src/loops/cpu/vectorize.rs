//! Vectorizes innermost CPU loops over contiguous elements into `width`-lane vector loads,
//! stores and arithmetic, with a scalar loop for the tail; reductions along the loop
//! accumulate lane by lane.
//!
//! # Applies when
//! An innermost `serial` (or `vectorize(w)`-marked) loop of a CPU kernel has step 1 and a body of
//! schedule blocks whose loads and stores touch consecutive elements of the last dim per
//! iteration (`x[i, j]` for loop index `j`) or one element for the whole loop (`b[i]`, a value
//! computed by an earlier loop), and whose other ops are `arith`/`math` ops other than integer
//! divisions on the varying elements (code generation guards those only as scalars, so a zero
//! divisor gives 0 instead of a trap). This is every
//! elementwise stage of a lowered kernel: the normalize step of a softmax or layer norm, bias
//! adds, activations. SIMD units do `width` of these at once.
//!
//! A schedule block whose reduce iter var walks the loop (a row max or sum along the last
//! dim) qualifies when its body loads a rank-0 local accumulator once, combines it with one
//! value by a reduction's combining op (`arith.addf`, `arith.maximumf`, `arith.maxnumf`,
//! `arith.mulf`, `arith.addi`, ...: `dlc_loop::ReduceKind::of_combiner`) and stores the result
//! back, nothing else in the loop touches the accumulator (its init aside), and neither its
//! iter values (the loop index aside) nor its init read a value computed in the loop body.
//!
//! # Changes to the IR
//! With `W` = `width` (or the loop's own `vectorize(w)`), the loop `[lb, ub)` becomes:
//! - a main loop `loop.for vectorize(W) %v = lb to end step W`, where `end` is `lb` plus the
//!   largest multiple of `W` not above the trip count (an `arith.constant` for constant bounds);
//!   its body is the original body with
//!   - each load or store whose last index is `iv + c` (`c`, and every other index, the same in
//!     every iteration) as `loop.vload` / `loop.vstore` of `vector<WxT>` at the lane-0 indices;
//!   - each `arith`/`math` op with a vector operand on `vector<WxT>` (its scalar operands splat);
//!     an `arith.divf` of a vector by a value the same in every lane as one scalar reciprocal
//!     (`1 / d`, the division's attributes kept) and a vector `arith.mulf`;
//!   - each `loop.load_padded` whose last index is `iv + c` as `loop.vload_padded` (the same
//!     padding, which must be the same in every iteration): lanes past the buffer's edges are
//!     the padding;
//!   - loads with indices the same in every iteration, and ops on them only, kept scalar;
//!   - a splat of a scalar: a `dense` splat `arith.constant` for a constant, otherwise a
//!     `loop.broadcast`;
//! - with constant bounds and no reduction along the loop, narrower vector loops for the
//!   columns left: one iteration of `W/2` lanes when at least `W/2` columns are left, then
//!   of `W/4`, ... down to 4 lanes (a row of 28 `f32` with AVX-512 is vectors of 16, 8 and 4);
//! - the original loop, now from the last vector loop's end to `ub`, as the scalar remainder
//!   (kind `serial`); it is erased when the vector loops cover a constant range.
//!
//! Padded loads at the borders: when every padded load along the loop is at `iv + c`, `c` a
//! constant, in a buffer of static nonzero dims, and the bounds are constants, each vector
//! loop is split into the iterations before the first whose padded loads' lanes all lie
//! inside their rows, those iterations, and the ones after. In the middle loop each padded load
//! is a plain `loop.vload`, its leading indices replaced by 0 when one is outside its dim
//! (`arith.cmpi ult`, `arith.select`), then an `arith.select` of the padding on that test: a
//! depthwise convolution's input rows above and below the image are a branch on a value the
//! same in the whole loop, not a mask per load. (`simplify` then makes the loads of the
//! iterations left outside plain where their indices are constants inside the row.)
//!
//! Registers: a rank-0 `local` buffer used only inside the loop, whose first access in every
//! iteration is an unconditional store, holds one value per iteration; it gets a `W`-element
//! local buffer (allocated before the main loop) accessed at index 0 with `loop.vload` /
//! `loop.vstore`, one lane per iteration. A register allocated in the loop body (what `lower`
//! emits for a fused elementwise nest) loses that `loop.alloc` in the main loop. The remainder
//! keeps the scalar register.
//!
//! Reductions along the loop: the accumulator gets a `W`-element local buffer filled with the
//! reduction's identity before the main loop; in the main loop the block (without its init)
//! combines lane by lane; after it, a copy of the block at the loop's first iteration (so its
//! init runs exactly when the original's first iteration would have run it) combines the `W`
//! lanes in order and then the accumulator with their result. The remainder continues from
//! there. When the loop body has at most 16 ops (a row max or sum alone, whose one chain of
//! combines would be the critical path), the accumulator has `4*W` lanes instead: a main loop
//! `step 4*W` holds 4 copies of the body, copy `c` at `iv + c*W` combining into lanes
//! `[c*W, (c+1)*W)`; a `vectorize(W)` loop does the whole vectors left (into the first `W`
//! lanes); then the other three slices are combined into the first, vector by vector, before
//! the lanes are merged as above. Registers get `4*W` lanes the same way.
//!
//! Streaming stores: a vector store into a global buffer of static shape of at least
//! `nontemporal-bytes` bytes that the kernel never reads, whose element offset is a provable
//! multiple of `W` (`dlc_loop::index_expr::divisor`, the proof code generation also uses), gets
//! the `nontemporal` hint (code generation streams it past the caches where it also proves the
//! base aligned). Such outputs are larger than the
//! caches, so keeping them there only evicts the inputs, and each line costs a read before it
//! is written.
//!
//! `W` is the `width` option, else one register of f32 on the target: the `cpu` option, else
//! the kernel's `dlc.target_cpu` attribute, else the host (16 with AVX-512, 8 with AVX2;
//! passes/src/loops/cpu/target.rs). `nontemporal-bytes` defaults to 8 times the target's L2
//! (4 MiB for an x86-64 level, which assumes 512 KiB).
//!
//! The loop is left alone when anything else appears: other ops (`loop.if`, loops, allocs
//! other than a register's, barriers), index arithmetic that is not `iv + c` in the last index
//! (strided, transposed or gathered accesses), a reduction along the loop of another form, a
//! store of the same element in every iteration to a non-register buffer, or a buffer both
//! stored and loaded at different indices. The pass counts the loops it vectorized, the
//! remainder loops it kept and the stores it marked `nontemporal`.
//!
//! # Performance impact
//! Up to `W` times fewer load, store and arithmetic instructions in elementwise loops; a row
//! softmax's max, exp-and-sum and normalize loops all vectorize (4096x4096 f32 on 2 AVX-512
//! cores: 25 ms before, 15-20 ms after, `dlc-run --bench 10`; onnxruntime about 10 ms). The
//! partial vectors of the row max and the streaming output store took it to 10-11 ms, level
//! with onnxruntime in the same `dlc-bench` run (docs/benchmarks.md).
//!
//! # Risks and limitations
//! - Distinct buffer arguments are assumed not to overlap partially (an in-place launch passing
//!   one buffer twice is fine when both are accessed at the same indices).
//! - A float sum or product along the loop is reassociated (`W` partial results, combined at
//!   the end), and a division by a lane-invariant value rounds twice (reciprocal, then
//!   product): results move within the float tolerance, as a BLAS or numpy sum's do.
//! - A `nontemporal` output that the next kernel reads at once is fetched from memory, not the
//!   cache; the threshold keeps the hint to outputs that would not have stayed cached anyway.
//! - A row read from memory in one loop and computed on in the next (a softmax's max, then its
//!   exp) leaves the memory bus idle in the second; the `prefetch` pass, run after this one,
//!   fetches the next row there.
//!
//! # Examples
//! 1. A row scale `y[i, j] = x[i, j] * s[i]` over 21 columns, width 8:
//!    ```text
//!    loop.kernel @scale(%x: !loop.buffer<?x21xf32, global>, %s: !loop.buffer<?xf32, global>, %y: !loop.buffer<?x21xf32, global>, %i: index) {
//!      %c0 = arith.constant 0 : index
//!      %c1 = arith.constant 1 : index
//!      %c21 = arith.constant 21 : index
//!      loop.for serial %j = %c0 to %c21 step %c1 {
//!        loop.schedule_block "scale" (%i0 = %i, %j0 = %j) {
//!          %a = loop.load %x[%i0, %j0] : !loop.buffer<?x21xf32, global>
//!          %b = loop.load %s[%i0] : !loop.buffer<?xf32, global>
//!          %p = arith.mulf %a, %b : f32
//!          loop.store %p, %y[%i0, %j0] : !loop.buffer<?x21xf32, global>
//!        }
//!      }
//!      loop.return
//!    }
//!    ```
//!    becomes a `vectorize(8)` loop to 16, a `vectorize(4)` loop from 16 to 20 and a serial
//!    remainder from 20:
//!    ```text
//!    loop.for vectorize(8) %arg4 = %c0 to %c16 step %c8 {
//!      loop.schedule_block "scale" (%arg5 = %arg3, %arg6 = %arg4) {
//!        %0 = loop.vload %arg0[%arg5, %arg6] : !loop.buffer<?x21xf32, global> -> vector<8xf32>
//!        %1 = loop.load %arg1[%arg5] : !loop.buffer<?xf32, global>
//!        %2 = loop.broadcast %1 : f32 to vector<8xf32>
//!        %3 = arith.mulf %0, %2 : vector<8xf32>
//!        loop.vstore %3, %arg2[%arg5, %arg6] : vector<8xf32>, !loop.buffer<?x21xf32, global>
//!    ...
//!    loop.for vectorize(4) %arg4 = %c16_0 to %c20 step %c4 {
//!    ...
//!        %3 = arith.mulf %0, %2 : vector<4xf32>
//!    ...
//!    loop.for serial %arg4 = %c20_1 to %c21 step %c1 {
//!    ```
//! 2. Values passed through a register between two blocks:
//!    ```text
//!    loop.kernel @reg(%x: !loop.buffer<16xf32, global>, %y: !loop.buffer<16xf32, global>) {
//!      %c0 = arith.constant 0 : index
//!      %c1 = arith.constant 1 : index
//!      %c16 = arith.constant 16 : index
//!      %r = loop.alloc : !loop.buffer<f32, local>
//!      loop.for serial %j = %c0 to %c16 step %c1 {
//!        loop.schedule_block "exp" (%j0 = %j) {
//!          %a = loop.load %x[%j0] : !loop.buffer<16xf32, global>
//!          %e = math.exp %a : f32
//!          loop.store %e, %r[] : !loop.buffer<f32, local>
//!        }
//!        loop.schedule_block "double" (%j0 = %j) {
//!          %e = loop.load %r[] : !loop.buffer<f32, local>
//!          %two = arith.constant 2.000000e+00 : f32
//!          %d = arith.mulf %e, %two : f32
//!          loop.store %d, %y[%j0] : !loop.buffer<16xf32, global>
//!        }
//!      }
//!      loop.return
//!    }
//!    ```
//!    becomes one `vectorize(8)` loop and no remainder; the register is an 8-lane buffer:
//!    ```text
//!    %1 = loop.alloc : !loop.buffer<8xf32, local>
//!    loop.for vectorize(8) %arg2 = %c0 to %c16_0 step %c8 {
//!      ...
//!        %3 = math.exp %2 : vector<8xf32>
//!        loop.vstore %3, %1[%c0_1] : vector<8xf32>, !loop.buffer<8xf32, local>
//!      ...
//!        %2 = loop.vload %1[%c0_1] : !loop.buffer<8xf32, local> -> vector<8xf32>
//!        %cst = arith.constant 2.000000e+00 : f32
//!        %cst_2 = arith.constant dense<2.000000e+00> : vector<8xf32>
//!        %3 = arith.mulf %2, %cst_2 : vector<8xf32>
//!    ```
//!
//! # Counter-examples
//! 1. A row sum `acc[] += x[i, j]` bound as `(%j0 = %j reduce)`: the accumulator is carried from
//!    one iteration to the next, so the loop stays scalar.
//! 2. `y[j, i]` stored in a loop over `j`: the accesses are strided, not contiguous.

use super::util::{
    self, const_int, const_trip_count, defined_inside, index_binary, index_const,
    is_scalar_compute, whole_groups_end,
};
use dlc_ir::pass::{Anchor, OptionKind, OptionSpec, OptionValues, Pass, PassInfo, PassRun};
use dlc_ir::{
    Block, Context, Diagnostic, InsertPoint, Location, Op, OpSpec, Type, TypeKind, Value, ValueMap,
};
use dlc_loop::analysis::loops::{loop_parts, LoopParts};
use dlc_loop::index_expr::divisor::offset_divisor;
use dlc_loop::index_expr::{Atom, IndexExpr, Symbol};
use dlc_loop::{
    buffer_parts, buffer_type, build_alloc, elem_size_bytes, is_gpu_kernel, AccessKind, ForOp,
    KernelOp, LoadOp, LoopKind, LoopOps, MemorySpace, ScheduleBlockOp, StoreOp, VStoreOp,
};
use rustc_hash::{FxHashMap, FxHashSet};

use super::target::CpuInfo;
use dlc_arith::{splat_attr, ArithOps, CmpIPredicate, DivFOp};
use dlc_loop::analysis::access::scalar_access;
use dlc_loop::ReduceKind;

/// The pass description.
pub static INFO: PassInfo = PassInfo {
    argument: "vectorize",
    summary: "Vectorizes innermost CPU loops over contiguous elements into `width`-lane vector \
              loads, stores and arithmetic, with a scalar loop for the tail; reductions along \
              the loop accumulate lane by lane.",
    anchor: Anchor::op::<KernelOp>(),
    options: &[
        OptionSpec::new(
            "width",
            OptionKind::Int,
            "0",
            "Lanes per vector for serial loops (0: one register of f32 on the target; a \
             vectorize(w) loop uses its own w)",
        ),
        OptionSpec::new(
            "cpu",
            OptionKind::Str,
            "",
            "The CPU to vectorize for (host, x86-64-v3, ...; empty: the module's \
             dlc.target_cpu, else the host)",
        ),
        OptionSpec::new(
            "nontemporal-bytes",
            OptionKind::Int,
            "0",
            "Vector stores into a write-only global buffer of at least this many bytes stream \
             past the caches (0: 8 times the target's L2)",
        ),
    ],
    statistics: &[
        (
            "loops-vectorized",
            "Number of loops turned into vector loops",
        ),
        (
            "remainder-loops",
            "Number of scalar remainder loops kept after a vector loop",
        ),
        (
            "nontemporal-stores",
            "Number of vector stores marked nontemporal",
        ),
    ],
    create,
};

fn create(options: &OptionValues) -> Result<Box<dyn Pass>, String> {
    let width = options.int("width");
    if width != 0 && width < 2 {
        return Err(format!(
            "option 'width' must be 0 (from the target) or at least 2, got {width}"
        ));
    }
    let cpu = options.str("cpu").to_string();
    CpuInfo::named(&cpu)?;
    let stream_bytes = options.int("nontemporal-bytes");
    if stream_bytes < 0 {
        return Err(format!(
            "option 'nontemporal-bytes' must be 0 (from the target) or positive, got {stream_bytes}"
        ));
    }
    Ok(Box::new(VectorizePass {
        width,
        cpu,
        stream_bytes: stream_bytes as u64,
    }))
}

/// The pass with its options as given (0 and "" ask the target).
struct VectorizePass {
    width: i64,
    cpu: String,
    stream_bytes: u64,
}

impl Pass for VectorizePass {
    fn run(&self, ctx: &mut Context, run: &mut PassRun<'_>) -> Result<(), Diagnostic> {
        let kernel = run.op();
        let cpu = CpuInfo::for_op(ctx, kernel, &self.cpu)
            .map_err(|e| Diagnostic::error(ctx.op_loc(kernel), e))?;
        let width = if self.width > 0 {
            self.width
        } else {
            cpu.lanes(32)
        };
        let stream_bytes = if self.stream_bytes > 0 {
            self.stream_bytes
        } else {
            8 * cpu.l2_bytes
        };
        Vectorize {
            width,
            stream_bytes,
        }
        .run(ctx, run)
    }
}

struct Vectorize {
    /// Lanes per vector for unmarked loops.
    width: i64,
    /// The smallest write-only global buffer whose vector stores stream past the caches.
    stream_bytes: u64,
}

impl Vectorize {
    fn run(&self, ctx: &mut Context, run: &mut PassRun<'_>) -> Result<(), Diagnostic> {
        let kernel = run.op();
        if is_gpu_kernel(ctx, kernel) {
            run.preserve_all();
            return Ok(());
        }
        let mut loops = Vec::new();
        ctx.for_each_op(kernel, &mut |op| {
            if ctx.view::<ForOp>(op).is_some() && is_innermost(ctx, op) {
                loops.push(op);
            }
        });
        let streaming_before = count_streaming_stores(ctx, kernel);
        let (mut vectorized, mut remainders) = (0, 0);
        for op in loops {
            let Some(parts) = loop_parts(ctx, op) else {
                continue;
            };
            let width = match ForOp(op).loop_kind(ctx) {
                Some(LoopKind::Serial) => self.width,
                Some(LoopKind::Vectorize(w)) if w >= 2 => w,
                _ => continue,
            };
            if const_int(ctx, parts.step) != Some(1)
                || const_trip_count(ctx, &parts).is_some_and(|t| t < width)
            {
                continue;
            }
            let Some(plan) = Plan::analyze(ctx, op, &parts, width, self.stream_bytes) else {
                continue;
            };
            if rewrite(ctx, op, &parts, width, &plan) {
                remainders += 1;
            }
            vectorized += 1;
        }
        run.add_stat("loops-vectorized", vectorized);
        run.add_stat("remainder-loops", remainders);
        let streamed = count_streaming_stores(ctx, kernel) - streaming_before;
        run.add_stat("nontemporal-stores", streamed);
        if vectorized == 0 {
            run.preserve_all();
        }
        Ok(())
    }
}

/// The `nontemporal` vector stores in `kernel`.
fn count_streaming_stores(ctx: &Context, kernel: Op) -> u64 {
    let mut n = 0;
    ctx.for_each_op(kernel, &mut |op| {
        if ctx
            .view::<VStoreOp>(op)
            .is_some_and(|s| s.is_nontemporal(ctx))
        {
            n += 1;
        }
    });
    n
}

/// True when no loop is nested in `op`.
fn is_innermost(ctx: &Context, op: Op) -> bool {
    let mut nested = false;
    ctx.for_each_op(op, &mut |o| {
        nested |= o != op && ctx.view::<ForOp>(o).is_some()
    });
    !nested
}

/// How one op of the loop body is rewritten.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Action {
    /// Cloned as it is (the same in every lane).
    Scalar,
    /// `loop.load` → `loop.vload` at the same indices.
    VLoad,
    /// `loop.load_padded` → `loop.vload_padded` at the same indices, with the same padding.
    VLoadPadded,
    /// `loop.store` → `loop.vstore` at the same indices.
    VStore,
    /// A [`Action::VStore`] into a large buffer the kernel only writes: marked `nontemporal`
    /// where every vector provably starts at a multiple of `W` elements.
    StreamStore,
    /// A load of a register → `loop.vload` of its wide buffer.
    RegLoad,
    /// A store to a register → `loop.vstore` to its wide buffer.
    RegStore,
    /// An `arith`/`math` op on vectors.
    Lanes,
    /// A schedule block, rewritten region by region.
    Block,
    /// The `loop.alloc` of a register inside the loop: dropped, the register's wide buffer is
    /// allocated before the vector loop.
    RegisterAlloc,
}

/// One load or store of a non-register buffer: the buffer, whether it stores, the indices.
struct IndexedAccess {
    buffer: Value,
    store: bool,
    indices: Vec<IndexExpr>,
}

/// The analysis of one candidate loop.
struct Plan {
    actions: FxHashMap<Op, Action>,
    /// The rank-0 local buffers that become `W`-element buffers.
    registers: Vec<Value>,
    /// The reductions along the loop, accumulated lane by lane.
    reductions: Vec<LaneReduction>,
    /// Each padded vector load along the loop as `(c, n)`: its last index is the loop index
    /// plus the constant `c`, in a static last dim of `n`; `None` when one is not of that
    /// form (no peeling then).
    padded: Option<Vec<(i64, i64)>>,
}

/// A reduction along the loop: a schedule block whose reduce iter var walks the loop, whose
/// body loads a rank-0 local accumulator, combines it with one value and stores it back.
struct LaneReduction {
    /// The schedule block.
    block: Op,
    /// The accumulator.
    acc: Value,
    /// The combining op (`arith.addf`, `arith.maxnumf`, ...).
    combine: Op,
    kind: ReduceKind,
}

/// The state of the analysis walk.
struct Analyzer<'a> {
    ctx: &'a Context,
    lp: Op,
    iv: Value,
    width: i64,
    stream_bytes: u64,
    exprs: FxHashMap<Value, IndexExpr>,
    vector: FxHashSet<Value>,
    registers: FxHashSet<Value>,
    actions: FxHashMap<Op, Action>,
    accesses: Vec<IndexedAccess>,
    reductions: Vec<LaneReduction>,
    padded: Option<Vec<(i64, i64)>>,
}

impl Plan {
    /// The plan for vectorizing `lp`, or `None` when its body does not qualify.
    fn analyze(
        ctx: &Context,
        lp: Op,
        parts: &LoopParts,
        width: i64,
        stream_bytes: u64,
    ) -> Option<Plan> {
        let registers = find_registers(ctx, lp, parts.body);
        let mut a = Analyzer {
            ctx,
            lp,
            iv: parts.iv,
            width,
            stream_bytes,
            exprs: FxHashMap::default(),
            vector: FxHashSet::default(),
            registers: registers.iter().copied().collect(),
            actions: FxHashMap::default(),
            accesses: Vec::new(),
            reductions: Vec::new(),
            padded: Some(Vec::new()),
        };
        a.exprs.insert(parts.iv, IndexExpr::value(parts.iv));
        a.block(parts.body)?;
        // A buffer stored in the loop must be accessed at one index list only, so each lane
        // touches its own elements in the original order.
        for s in a.accesses.iter().filter(|x| x.store) {
            let clash = a
                .accesses
                .iter()
                .any(|x| x.buffer == s.buffer && x.indices != s.indices);
            if clash {
                return None;
            }
        }
        // Something must actually become a vector.
        if !a
            .actions
            .values()
            .any(|&x| matches!(x, Action::VStore | Action::StreamStore | Action::RegStore))
        {
            return None;
        }
        Some(Plan {
            actions: a.actions,
            registers,
            reductions: a.reductions,
            padded: a.padded,
        })
    }
}

impl Analyzer<'_> {
    fn block(&mut self, block: Block) -> Option<()> {
        for op in self.ctx.block_ops(block) {
            let action = self.op(op)?;
            self.actions.insert(op, action);
        }
        Some(())
    }

    /// The index expression of `v` in terms of the loop index and loop-invariant values.
    fn expr(&self, v: Value) -> Option<IndexExpr> {
        if let Some(e) = self.exprs.get(&v) {
            return Some(e.clone());
        }
        if self.vector.contains(&v) || self.defined_inside(v) {
            return None;
        }
        // A constant hoisted out of the loop is still a constant (a padded load's column
        // offset, for `peel`).
        Some(const_int(self.ctx, v).map_or_else(|| IndexExpr::value(v), IndexExpr::constant))
    }

    fn defined_inside(&self, v: Value) -> bool {
        defined_inside(self.ctx, self.lp, v)
    }

    fn mentions_iv(&self, e: &IndexExpr) -> bool {
        e.symbols().contains(&Symbol::Value(self.iv))
    }

    /// True when `v` differs between iterations.
    fn varies(&self, v: Value) -> bool {
        self.vector.contains(&v) || self.expr(v).is_none_or(|e| self.mentions_iv(&e))
    }

    fn op(&mut self, op: Op) -> Option<Action> {
        let ctx = self.ctx;
        if let Some(kind) = LoopOps::of(ctx, op) {
            return match kind {
                LoopOps::YieldOp(_) => Some(Action::Scalar),
                LoopOps::ScheduleBlockOp(sb) => self.schedule_block(sb),
                LoopOps::LoadOp(_) => self.load(op, false),
                LoopOps::LoadPaddedOp(_) => self.load(op, true),
                LoopOps::StoreOp(_) => self.store(op),
                LoopOps::AllocOp(alloc) if self.registers.contains(&alloc.result(ctx)) => {
                    Some(Action::RegisterAlloc)
                }
                _ => None,
            };
        }
        let operands = ctx.operands(op);
        let index_result =
            || operands.len() == 2 && ctx.value_type(ctx.result(op, 0)) == Type::INDEX;
        match ArithOps::of(ctx, op) {
            Some(ArithOps::ConstantOp(_)) => {
                let r = ctx.result(op, 0);
                let e = const_int(ctx, r).map_or_else(|| IndexExpr::value(r), IndexExpr::constant);
                self.exprs.insert(r, e);
                return Some(Action::Scalar);
            }
            Some(arith @ (ArithOps::AddIOp(_) | ArithOps::SubIOp(_) | ArithOps::MulIOp(_)))
                if index_result() =>
            {
                let (a, b) = (self.expr(operands[0])?, self.expr(operands[1])?);
                let e = match arith {
                    ArithOps::AddIOp(_) => &a + &b,
                    ArithOps::SubIOp(_) => &a - &b,
                    _ => &a * &b,
                };
                self.exprs.insert(ctx.result(op, 0), e);
                return Some(Action::Scalar);
            }
            _ => {}
        }
        if !is_scalar_compute(ctx, op) {
            return None;
        }
        let r = ctx.result(op, 0);
        let any_vector = operands.iter().any(|v| self.vector.contains(v));
        if operands
            .iter()
            .any(|&v| !self.vector.contains(&v) && self.varies(v))
        {
            // Index arithmetic on the loop index that is not `+ - *`.
            return None;
        }
        if any_vector {
            let ty = ctx.value_type(r);
            if ty == Type::INDEX || !is_scalar(ctx, ty) {
                return None;
            }
            if is_integer_division(ctx, op) {
                // Code generation guards a division lane by lane only for scalars (a
                // zero divisor gives 0, never a trap): keep the loop scalar.
                return None;
            }
            self.vector.insert(r);
            Some(Action::Lanes)
        } else {
            self.exprs.insert(r, IndexExpr::value(r));
            Some(Action::Scalar)
        }
    }

    /// A schedule block in the loop: its regions are analyzed with the iter vars bound to
    /// their values; a reduction along the loop is accumulated lane by lane.
    fn schedule_block(&mut self, sb: ScheduleBlockOp) -> Option<Action> {
        let ctx = self.ctx;
        let op = sb.0;
        let kinds = sb.iter_kind_list(ctx);
        let values: Vec<IndexExpr> = ctx
            .operands(op)
            .iter()
            .map(|&v| self.expr(v))
            .collect::<Option<_>>()?;
        let along = kinds
            .iter()
            .zip(&values)
            .any(|(k, e)| *k == dlc_loop::IterKind::Reduce && self.mentions_iv(e));
        let mut regions = ctx.regions(op).to_vec();
        if along {
            let r = self.lane_reduction(op)?;
            self.registers.insert(r.acc);
            self.reductions.push(r);
            // The init runs once, outside the vector loop (see `rewrite`).
            regions.truncate(1);
        }
        for region in regions {
            for &block in ctx.blocks(region) {
                if ctx.block_args(block).len() != values.len() {
                    return None;
                }
                for (&arg, e) in ctx.block_args(block).iter().zip(&values) {
                    self.exprs.insert(arg, e.clone());
                }
                self.block(block)?;
            }
        }
        Some(Action::Block)
    }

    /// The reduction along the loop that schedule block `op` performs, if it has the form
    /// `s = load acc[]; t = combine(s, x); store t, acc[]` on a rank-0 local `acc` that nothing
    /// else in the loop touches (its init aside), `combine` a reduction's combining op.
    fn lane_reduction(&self, op: Op) -> Option<LaneReduction> {
        let ctx = self.ctx;
        let body = *ctx.blocks(*ctx.regions(op).first()?).first()?;
        let mut stores = ctx.block_ops(body).filter(|&o| {
            ctx.view::<StoreOp>(o)
                .is_some_and(|s| is_register_buffer(ctx, s.buffer(ctx)))
        });
        let (Some(store), None) = (stores.next(), stores.next()) else {
            return None;
        };
        // `merge_lanes` copies the block to before the loop with only the loop index replaced,
        // so its iter values and whatever its init reads must not come from the loop body.
        let from_body = |v: Value| v != self.iv && self.defined_inside(v);
        if ctx.operands(op).iter().any(|&v| from_body(v)) {
            return None;
        }
        let mut init_reads_body = false;
        if let Some(&init) = ctx.regions(op).get(1) {
            for top in ctx.blocks(init).iter().flat_map(|&b| ctx.block_ops(b)) {
                ctx.for_each_op(top, &mut |o| {
                    init_reads_body |= ctx
                        .operands(o)
                        .iter()
                        .any(|&v| !defined_inside(ctx, op, v) && from_body(v));
                });
            }
        }
        if init_reads_body {
            return None;
        }
        let acc = ctx.operand(store, 1);
        let t = ctx.operand(store, 0);
        let combine = ctx.defining_op(t)?;
        let kind = ReduceKind::of_combiner(ctx, combine)?;
        let elem = ctx.value_type(t);
        if ctx.op_block(combine) != Some(body)
            || ctx.uses(t).len() != 1
            || ctx.operands(combine).len() != 2
            || kind.identity(ctx, elem).is_none()
        {
            return None;
        }
        let load = ctx
            .block_ops(body)
            .find(|&o| ctx.view::<LoadOp>(o).is_some_and(|l| l.buffer(ctx) == acc))?;
        let s = ctx.result(load, 0);
        if !ctx.operands(combine).contains(&s) || ctx.uses(s).len() != 1 {
            return None;
        }
        // Inside the loop, only this load, this store and the init's stores touch `acc`.
        let ok = ctx.uses(acc).iter().all(|u| {
            let in_init = || {
                let block = ctx.op_block(u.user);
                block != Some(body) && block.and_then(|b| ctx.block_parent_op(b)) == Some(op)
            };
            !ctx.is_ancestor(self.lp, u.user)
                || u.user == load
                || u.user == store
                || (ctx.view::<StoreOp>(u.user).is_some() && in_init())
        });
        ok.then_some(LaneReduction {
            block: op,
            acc,
            combine,
            kind,
        })
    }

    /// The index expressions of a load's or store's indices (operands from `first`).
    fn indices(&self, values: &[Value]) -> Option<Vec<IndexExpr>> {
        values.iter().map(|&v| self.expr(v)).collect()
    }

    /// Whether the indices are the same in every iteration (`Some(false)`), or contiguous in the
    /// loop index along the last dim (`Some(true)`); `None` otherwise.
    fn contiguous(&self, indices: &[IndexExpr]) -> Option<bool> {
        let Some((last, rest)) = indices.split_last() else {
            return Some(false);
        };
        if rest.iter().any(|e| self.mentions_iv(e)) {
            return None;
        }
        let iv = Atom::Sym(Symbol::Value(self.iv));
        let mut unit = false;
        for (m, c) in last.terms() {
            if m.contains(&iv) {
                if m.len() != 1 || *c != 1 || unit {
                    return None;
                }
                unit = true;
            }
        }
        // Anything the index reads other than the iv must be loop-invariant (true by `expr`).
        Some(unit)
    }

    /// True when a `width`-lane access of `buffer` passes the verifier's width rule.
    fn fits(&self, buffer: Value) -> bool {
        let ctx = self.ctx;
        buffer_parts(ctx, ctx.value_type(buffer))
            .and_then(|(dims, _, _)| dims.last().copied())
            .is_some_and(|d| d < 0 || d >= self.width)
    }

    /// A load of the loop body, `loop.load`, or `loop.load_padded` when `padded` (a
    /// convolution's input read through its padding, `lower`): a `loop.vload` (or
    /// `loop.vload_padded`, its lanes past the buffer's edges the padding) where it walks the
    /// last dim with the loop; kept scalar where its indices are the same in every
    /// iteration. A padding must be the same in every iteration.
    fn load(&mut self, op: Op, padded: bool) -> Option<Action> {
        let ctx = self.ctx;
        let operands = ctx.operands(op);
        let access = if padded {
            let (&padding, access) = operands.split_last()?;
            if self.varies(padding) {
                return None;
            }
            access
        } else {
            operands
        };
        let buffer = *access.first()?;
        let r = ctx.result(op, 0);
        if self.registers.contains(&buffer) {
            if padded {
                return None;
            }
            self.vector.insert(r);
            return Some(Action::RegLoad);
        }
        let indices = self.indices(&access[1..])?;
        let contiguous = self.contiguous(&indices)?;
        let column = indices
            .last()
            .and_then(|last| (last - &IndexExpr::value(self.iv)).as_constant());
        self.accesses.push(IndexedAccess {
            buffer,
            store: false,
            indices,
        });
        if !contiguous {
            self.exprs.insert(r, IndexExpr::value(r));
            return Some(Action::Scalar);
        }
        if !self.fits(buffer) {
            return None;
        }
        self.vector.insert(r);
        if !padded {
            return Some(Action::VLoad);
        }
        // Where `peel` can find the vectors inside the row: a constant column offset in a
        // buffer of static nonzero dims.
        let dims = buffer_parts(ctx, ctx.value_type(buffer)).map(|(d, _, _)| d);
        let whole = dims.as_ref().is_some_and(|d| d.iter().all(|&n| n > 0));
        let width = dims.and_then(|d| d.last().copied());
        match (column, width, &mut self.padded) {
            (Some(c), Some(n), Some(padded)) if whole => padded.push((c, n)),
            _ => self.padded = None,
        }
        Some(Action::VLoadPadded)
    }

    fn store(&mut self, op: Op) -> Option<Action> {
        let ctx = self.ctx;
        let (&value, &buffer) = (ctx.operands(op).first()?, ctx.operands(op).get(1)?);
        if !self.vector.contains(&value) && self.varies(value) {
            return None;
        }
        if self.registers.contains(&buffer) {
            return Some(Action::RegStore);
        }
        let indices = self.indices(ctx.operands(op).get(2..)?)?;
        if !self.contiguous(&indices)? || !self.fits(buffer) {
            return None;
        }
        let streams = self.streams(buffer);
        self.accesses.push(IndexedAccess {
            buffer,
            store: true,
            indices,
        });
        Some(if streams {
            Action::StreamStore
        } else {
            Action::VStore
        })
    }

    /// True when vector stores into `buffer` may stream past the caches: a global buffer of at
    /// least `stream_bytes` static bytes that the kernel only writes. (Each store is marked
    /// only if its offset is also a multiple of `W`: see [`Emitter::block`].)
    fn streams(&self, buffer: Value) -> bool {
        let ctx = self.ctx;
        let Some((dims, elem, MemorySpace::Global)) = buffer_parts(ctx, ctx.value_type(buffer))
        else {
            return false;
        };
        let elems = dims.iter().try_fold(1u64, |n, &d| {
            u64::try_from(d).ok().and_then(|d| n.checked_mul(d))
        });
        let bytes = elems.and_then(|n| n.checked_mul(elem_size_bytes(ctx, elem)?));
        if bytes.is_none_or(|b| b < self.stream_bytes) {
            return false;
        }
        ctx.uses(buffer).iter().all(|u| {
            dlc_loop::access(ctx, u.user)
                .is_some_and(|a| a.kind == AccessKind::Write && a.buffer == buffer)
        })
    }
}

/// True for the integer divisions and remainders, which stay scalar (see `Analyzer::op`).
fn is_integer_division(ctx: &Context, op: Op) -> bool {
    matches!(
        ArithOps::of(ctx, op),
        Some(
            ArithOps::DivSIOp(_)
                | ArithOps::DivUIOp(_)
                | ArithOps::RemSIOp(_)
                | ArithOps::RemUIOp(_)
        )
    )
}

/// True for integer and float scalar types.
fn is_scalar(ctx: &Context, ty: Type) -> bool {
    matches!(
        ctx.type_kind(ty),
        TypeKind::Integer { .. } | TypeKind::Float(_)
    )
}

/// True for a rank-0 local buffer of integers or floats: a register.
fn is_register_buffer(ctx: &Context, buffer: Value) -> bool {
    buffer_parts(ctx, ctx.value_type(buffer)).is_some_and(|(dims, elem, space)| {
        dims.is_empty() && space == MemorySpace::Local && is_scalar(ctx, elem)
    })
}

/// The rank-0 local buffers used only inside `lp` whose first access in an iteration is always
/// a store (so each iteration's value is its own).
fn find_registers(ctx: &Context, lp: Op, body: Block) -> Vec<Value> {
    // First access per buffer, in execution order: true when an unconditional store.
    let mut first: Vec<(Value, bool)> = Vec::new();
    fn walk(ctx: &Context, block: Block, conditional: bool, first: &mut Vec<(Value, bool)>) {
        for op in ctx.block_ops(block) {
            if let Some(access) = scalar_access(ctx, op) {
                let b = access.buffer;
                if !first.iter().any(|(v, _)| *v == b) {
                    let store = access.kind == AccessKind::Write;
                    first.push((b, store && !conditional));
                }
            }
            if ctx.view::<ScheduleBlockOp>(op).is_some() {
                // The init region (region 1) runs first, and only on some iterations.
                let regions = ctx.regions(op);
                if let Some(&init) = regions.get(1) {
                    for &b in ctx.blocks(init) {
                        walk(ctx, b, true, first);
                    }
                }
                if let Some(&main) = regions.first() {
                    for &b in ctx.blocks(main) {
                        walk(ctx, b, conditional, first);
                    }
                }
            }
        }
    }
    walk(ctx, body, false, &mut first);
    first
        .into_iter()
        .filter(|&(b, store)| {
            store
                && is_register_buffer(ctx, b)
                && ctx.uses(b).iter().all(|u| {
                    ctx.is_ancestor(lp, u.user)
                        && scalar_access(ctx, u.user).is_some_and(|a| a.buffer == b)
                })
        })
        .map(|(b, _)| b)
        .collect()
}

/// The most ops a loop body with a reduction may have for the reduction to get
/// [`PARTIAL_VECTORS`] accumulators: in a body this small, the chain of combines through one
/// accumulator (4 cycles or more per iteration) is the critical path.
const SMALL_BODY_OPS: usize = 16;

/// Independent accumulators of a reduction in a small loop body: enough to cover a combine's
/// latency at two vector operations per cycle.
const PARTIAL_VECTORS: i64 = 4;

/// Rewrites `lp` into vector loops and (returned true) a scalar remainder.
///
/// With reductions in a small body, a main loop does [`PARTIAL_VECTORS`] vectors per iteration,
/// each into its own slice of the accumulators, and a second vector loop does the whole vectors
/// left; the slices are then combined into the first one.
fn rewrite(ctx: &mut Context, lp: Op, parts: &LoopParts, width: i64, plan: &Plan) -> bool {
    let loc = ctx.op_loc(lp);
    let at = InsertPoint::Before(lp);
    let mut body_ops = 0;
    ctx.for_each_op(lp, &mut |_| body_ops += 1);
    let partials = if !plan.reductions.is_empty() && body_ops <= SMALL_BODY_OPS {
        PARTIAL_VECTORS
    } else {
        1
    };
    let slots = partials * width;
    let end = whole_groups_end(ctx, at, parts, 1, width, loc);
    let mut wide = FxHashMap::default();
    for &r in &plan.registers {
        let elem = buffer_parts(ctx, ctx.value_type(r)).map_or(Type::F32, |(_, e, _)| e);
        let ty = buffer_type(ctx, &[slots], elem, MemorySpace::Local);
        wide.insert(r, build_alloc(ctx, at, ty, &[], loc));
    }
    // Reductions along the loop: vectors of partial results, each lane starting from the
    // identity.
    for r in &plan.reductions {
        let elem = ctx.value_type(ctx.result(r.combine, 0));
        let ty = buffer_type(ctx, &[slots], elem, MemorySpace::Local);
        let lanes = build_alloc(ctx, at, ty, &[], loc);
        let vty = ctx.vector_type(&[width], elem);
        let identity = r
            .kind
            .identity(ctx, elem)
            .and_then(|x| splat_attr(ctx, vty, x));
        if let Some(attr) = identity {
            let spec = dlc_arith::constant_spec(ctx, attr, vty, loc);
            let splat = ctx.build(at, spec);
            for p in 0..partials {
                let slot = index_const(ctx, at, p * width, loc);
                let spec = OpSpec::new(ctx, "loop.vstore", loc).operands(&[
                    ctx.result(splat, 0),
                    lanes,
                    slot,
                ]);
                ctx.build(at, spec);
            }
        }
        wide.insert(r.acc, lanes);
    }
    let mut lb = parts.lb;
    if partials > 1 {
        let main_end = whole_groups_end(ctx, at, parts, 1, slots, loc);
        wide = vector_loop(
            ctx,
            at,
            parts,
            plan,
            (lb, main_end),
            (partials, width),
            false,
            wide,
            loc,
        );
        lb = main_end;
    }
    let empty = matches!(
        (const_int(ctx, lb), const_int(ctx, end)),
        (Some(l), Some(e)) if l == e
    );
    if !empty {
        wide = peeled_loops(ctx, at, parts, plan, (lb, end), width, wide, loc);
    }
    // Narrower vectors for the columns left, `W/2`, `W/4`, ... lanes down to
    // `MIN_TAIL_LANES`, each at most once (without reductions along the loop, whose lanes
    // are merged at `W`).
    let mut end = end;
    if let (true, Some(mut at_col), Some(ub)) = (
        plan.reductions.is_empty(),
        const_int(ctx, end),
        const_int(ctx, parts.ub),
    ) {
        let mut lanes = width / 2;
        while lanes >= MIN_TAIL_LANES && at_col < ub {
            if ub - at_col >= lanes {
                let range = (
                    index_const(ctx, at, at_col, loc),
                    index_const(ctx, at, at_col + lanes, loc),
                );
                wide = peeled_loops(ctx, at, parts, plan, range, lanes, wide, loc);
                at_col += lanes;
            }
            lanes /= 2;
        }
        end = index_const(ctx, at, at_col, loc);
    }
    for r in &plan.reductions {
        let lanes = wide.get(&r.acc).copied().unwrap_or(r.acc);
        for p in 1..partials {
            combine_slices(ctx, at, r, lanes, p * width, width);
        }
        merge_lanes(ctx, at, parts, r, lanes, width);
    }
    // The original loop becomes the remainder, unless the vector loops cover everything.
    let covered = matches!(
        (const_int(ctx, end), const_int(ctx, parts.ub)),
        (Some(e), Some(u)) if e >= u
    ) && const_int(ctx, parts.lb).is_some();
    if covered {
        ctx.erase_op(lp);
        return false;
    }
    ctx.set_operand(lp, 0, end);
    let serial = ctx.string_attr(LoopKind::Serial.name());
    ctx.set_attr(lp, "kind", serial);
    ctx.remove_attr(lp, "width");
    true
}

/// The fewest lanes of the narrower vector loops after the full-width one (`rewrite`): four
/// lanes (a 128-bit register of `f32`); fewer columns run scalar.
const MIN_TAIL_LANES: i64 = 4;

/// The `lanes`-wide vector loops over `range`, one body copy each, split where the padded
/// loads' lanes start and stop lying inside their rows ([`peel`]). Returns `wide` for the next
/// loop.
#[allow(clippy::too_many_arguments)]
fn peeled_loops(
    ctx: &mut Context,
    at: InsertPoint,
    parts: &LoopParts,
    plan: &Plan,
    range: (Value, Value),
    lanes: i64,
    mut wide: FxHashMap<Value, Value>,
    loc: Location,
) -> FxHashMap<Value, Value> {
    for (range, inside) in peel(ctx, at, plan, range, lanes, loc) {
        wide = vector_loop(ctx, at, parts, plan, range, (1, lanes), inside, wide, loc);
    }
    wide
}

/// The vector loop over `[lb, end)` in up to three parts, each with whether its padded loads'
/// lanes all lie inside their rows: the iterations before the first where they do, those
/// where they do, and those after. One part, not inside, when a padded load is not at the
/// loop index plus a constant in a static row, or the bounds are not constants.
fn peel(
    ctx: &mut Context,
    at: InsertPoint,
    plan: &Plan,
    (lb, end): (Value, Value),
    width: i64,
    loc: Location,
) -> Vec<((Value, Value), bool)> {
    let whole = vec![((lb, end), false)];
    let (Some(padded), Some(l), Some(e)) = (&plan.padded, const_int(ctx, lb), const_int(ctx, end))
    else {
        return whole;
    };
    if padded.is_empty() || e <= l {
        return whole;
    }
    // Iteration `k` starts at `l + k*W`; a load at column `c` of a row of `n` reads inside
    // it when `0 <= l + k*W + c` and `l + k*W + c + W <= n`: an interval of `k`.
    let inside = |k: i64| {
        padded.iter().all(|&(c, n)| {
            let first = l + k * width + c;
            first >= 0 && first + width <= n
        })
    };
    let trips = (e - l) / width;
    let Some(first) = (0..trips).find(|&k| inside(k)) else {
        return whole;
    };
    let last = (first..trips)
        .take_while(|&k| inside(k))
        .last()
        .unwrap_or(first);
    let (from, to) = (l + first * width, l + (last + 1) * width);
    let mut parts = Vec::with_capacity(3);
    if from > l {
        parts.push(((lb, index_const(ctx, at, from, loc)), false));
    }
    let inner = (
        index_const(ctx, at, from, loc),
        index_const(ctx, at, to, loc),
    );
    parts.push((inner, true));
    if to < e {
        parts.push(((index_const(ctx, at, to, loc), end), false));
    }
    parts
}

/// A `vectorize(W)` loop over `[lb, end)` at `at` whose body is `copies` rewritten copies of
/// the original body, copy `c` at loop index `iv + c*W` using slice `c` of the `wide`
/// buffers; where `inside`, its padded loads' lanes all lie inside their rows ([`peel`]).
/// Returns `wide` for the next loop.
#[allow(clippy::too_many_arguments)]
fn vector_loop(
    ctx: &mut Context,
    at: InsertPoint,
    parts: &LoopParts,
    plan: &Plan,
    (lb, end): (Value, Value),
    (copies, width): (i64, i64),
    inside: bool,
    wide: FxHashMap<Value, Value>,
    loc: Location,
) -> FxHashMap<Value, Value> {
    let step = index_const(ctx, at, copies * width, loc);
    let (_, body, iv) =
        dlc_loop::build_for(ctx, at, (lb, end, step), LoopKind::Vectorize(width), loc);
    let mut emitter = Emitter {
        plan,
        width,
        inside,
        map: ValueMap::new(),
        vector: FxHashMap::default(),
        wide,
        slot: 0,
        loc,
    };
    for c in 0..copies {
        // The builder's terminator, then each copy's but the last, make way for the next copy
        // (each copy clones the original terminator).
        if let Some(term) = ctx.last_op(body) {
            ctx.erase_op(term);
        }
        let end_of_body = InsertPoint::End(body);
        let iv_c = if c == 0 {
            iv
        } else {
            let offset = index_const(ctx, end_of_body, c * width, loc);
            index_binary(ctx, end_of_body, "arith.addi", iv, offset, loc)
        };
        emitter.map.map(parts.iv, iv_c);
        emitter.slot = c * width;
        emitter.block(ctx, parts.body, body);
    }
    emitter.wide
}

/// At `at`: the partial vector at `slot` of `lanes` combined into the one at 0.
fn combine_slices(
    ctx: &mut Context,
    at: InsertPoint,
    r: &LaneReduction,
    lanes: Value,
    slot: i64,
    width: i64,
) {
    let loc = ctx.op_loc(r.block);
    let elem = ctx.value_type(ctx.result(r.combine, 0));
    let vty = ctx.vector_type(&[width], elem);
    let zero = index_const(ctx, at, 0, loc);
    let other = index_const(ctx, at, slot, loc);
    let load = |ctx: &mut Context, index: Value| {
        let spec = OpSpec::new(ctx, "loop.vload", loc)
            .operands(&[lanes, index])
            .results(&[vty]);
        let op = ctx.build(at, spec);
        ctx.result(op, 0)
    };
    let (a, b) = (load(ctx, zero), load(ctx, other));
    let mut spec = OpSpec::with_name(ctx.op_name_id(r.combine), loc)
        .operands(&[a, b])
        .results(&[vty]);
    spec.attrs = ctx.attrs(r.combine).to_vec();
    let combined = ctx.build(at, spec);
    let spec =
        OpSpec::new(ctx, "loop.vstore", loc).operands(&[ctx.result(combined, 0), lanes, zero]);
    ctx.build(at, spec);
}

/// After the vector loop, at `at`: the reduction's schedule block once more at the loop's first
/// iteration (so its init runs exactly when it would have), its body combining the lanes of
/// `lanes` in order and then the accumulator with them. The scalar remainder continues from
/// there.
fn merge_lanes(
    ctx: &mut Context,
    at: InsertPoint,
    parts: &LoopParts,
    r: &LaneReduction,
    lanes: Value,
    width: i64,
) {
    let loc = ctx.op_loc(r.block);
    let mut map = ValueMap::new();
    map.map(parts.iv, parts.lb);
    let copy = ctx.clone_op(r.block, &mut map);
    ctx.insert_op(at, copy);
    let Some(body) = ctx
        .regions(copy)
        .first()
        .and_then(|&region| ctx.blocks(region).first().copied())
    else {
        return;
    };
    // Users before their operands' definitions.
    for op in ctx.block_ops(body).collect::<Vec<_>>().into_iter().rev() {
        ctx.erase_op(op);
    }
    let elem = ctx.value_type(ctx.result(r.combine, 0));
    let combine = |ctx: &mut Context, a: Value, b: Value| {
        let mut spec = OpSpec::with_name(ctx.op_name_id(r.combine), loc)
            .operands(&[a, b])
            .results(&[elem]);
        spec.attrs = ctx.attrs(r.combine).to_vec();
        let op = ctx.build(InsertPoint::End(body), spec);
        ctx.result(op, 0)
    };
    let end = InsertPoint::End(body);
    let mut total = None;
    for lane in 0..width {
        let i = index_const(ctx, end, lane, loc);
        let x = dlc_loop::build_load(ctx, end, lanes, &[i], loc);
        total = Some(match total {
            None => x,
            Some(t) => combine(ctx, t, x),
        });
    }
    let Some(total) = total else {
        return;
    };
    let acc = dlc_loop::build_load(ctx, end, r.acc, &[], loc);
    let merged = combine(ctx, acc, total);
    dlc_loop::build_store(ctx, end, merged, r.acc, &[], loc);
    let spec = OpSpec::new(ctx, "loop.yield", loc);
    ctx.build(end, spec);
}

/// Builds the main loop's body from the original body, following a [`Plan`].
struct Emitter<'p> {
    plan: &'p Plan,
    width: i64,
    /// Whether the padded loads' lanes all lie inside their rows in this loop ([`peel`]).
    inside: bool,
    /// Scalar values: original → clone.
    map: ValueMap,
    /// Vector values: original scalar → its vector.
    vector: FxHashMap<Value, Value>,
    /// Registers and reduction accumulators: scalar buffer → wide buffer.
    wide: FxHashMap<Value, Value>,
    /// The first element of this copy's slice of the wide buffers.
    slot: i64,
    loc: Location,
}

impl Emitter<'_> {
    fn block(&mut self, ctx: &mut Context, src: Block, dst: Block) {
        let ops: Vec<Op> = ctx.block_ops(src).collect();
        for op in ops {
            let at = InsertPoint::End(dst);
            match self.plan.actions.get(&op).copied() {
                Some(Action::Block) => self.schedule_block(ctx, op, dst),
                Some(action @ (Action::VLoad | Action::VLoadPadded)) => {
                    let operands: Vec<Value> = ctx
                        .operands(op)
                        .iter()
                        .map(|&v| self.map.lookup(v))
                        .collect();
                    if action == Action::VLoad {
                        self.vload(ctx, op, "loop.vload", &operands, at);
                    } else if self.inside {
                        self.inside_load(ctx, op, &operands, at);
                    } else {
                        self.vload(ctx, op, "loop.vload_padded", &operands, at);
                    }
                }
                Some(Action::RegLoad) => {
                    let buffer = ctx.operands(op)[0];
                    let wide = self.wide.get(&buffer).copied().unwrap_or(buffer);
                    let slot = index_const(ctx, at, self.slot, self.loc);
                    self.vload(ctx, op, "loop.vload", &[wide, slot], at);
                }
                Some(action @ (Action::VStore | Action::StreamStore)) => {
                    let value = self.vector_of(ctx, ctx.operands(op)[0], at);
                    let rest: Vec<Value> = ctx.operands(op)[1..]
                        .iter()
                        .map(|&v| self.map.lookup(v))
                        .collect();
                    let store = self.vstore(ctx, value, &rest, at);
                    // The offset must be a multiple of the vector (the alignment a streaming
                    // store needs, given an aligned base): the analysis code generation uses
                    // to prove it, on the indices the store now has.
                    let on_grid = |ctx: &Context| {
                        buffer_parts(ctx, ctx.value_type(rest[0])).is_some_and(|(dims, _, _)| {
                            offset_divisor(ctx, &dims, &rest[1..]).is_multiple_of(self.width as u64)
                        })
                    };
                    if action == Action::StreamStore && on_grid(ctx) {
                        let unit = ctx.unit_attr();
                        ctx.set_attr(store, "nontemporal", unit);
                    }
                }
                Some(Action::RegStore) => {
                    let value = self.vector_of(ctx, ctx.operands(op)[0], at);
                    let buffer = ctx.operands(op)[1];
                    let wide = self.wide.get(&buffer).copied().unwrap_or(buffer);
                    let slot = index_const(ctx, at, self.slot, self.loc);
                    self.vstore(ctx, value, &[wide, slot], at);
                }
                Some(Action::Lanes) => self.lanes(ctx, op, at),
                Some(Action::RegisterAlloc) => {}
                Some(Action::Scalar) | None => {
                    let new = ctx.clone_op(op, &mut self.map);
                    ctx.insert_op(at, new);
                }
            }
        }
    }

    /// A copy of the schedule block `op` at the end of `dst`, its regions rewritten.
    fn schedule_block(&mut self, ctx: &mut Context, op: Op, dst: Block) {
        let mut spec = OpSpec::with_name(ctx.op_name_id(op), ctx.op_loc(op));
        spec.operands = ctx
            .operands(op)
            .iter()
            .map(|&v| self.map.lookup(v))
            .collect();
        spec.attrs = ctx.attrs(op).to_vec();
        let mut pairs = Vec::new();
        // A reduction along the loop runs its init outside the vector loop (`merge_lanes`).
        let reduction = self.plan.reductions.iter().any(|r| r.block == op);
        for (index, region) in ctx.regions(op).to_vec().into_iter().enumerate() {
            let new_region = ctx.create_region();
            if reduction && index > 0 {
                spec.regions.push(new_region);
                continue;
            }
            for block in ctx.blocks(region).to_vec() {
                let types: Vec<Type> = ctx
                    .block_args(block)
                    .iter()
                    .map(|&v| ctx.value_type(v))
                    .collect();
                let new_block = ctx.create_block(&types);
                for (old, new) in ctx
                    .block_args(block)
                    .to_vec()
                    .into_iter()
                    .zip(ctx.block_args(new_block).to_vec())
                {
                    self.map.map(old, new);
                }
                ctx.append_block(new_region, new_block);
                pairs.push((block, new_block));
            }
            spec.regions.push(new_region);
        }
        let new = ctx.create_op(spec);
        ctx.insert_op(InsertPoint::End(dst), new);
        for (src, dst) in pairs {
            self.block(ctx, src, dst);
        }
    }

    fn vector_type(&self, ctx: &mut Context, elem: Type) -> Type {
        ctx.vector_type(&[self.width], elem)
    }

    /// A vector load `name` (`loop.vload`, `loop.vload_padded`) replacing the load `op`, with
    /// `operands` (buffer, indices and a padded load's padding).
    fn vload(
        &mut self,
        ctx: &mut Context,
        op: Op,
        name: &str,
        operands: &[Value],
        at: InsertPoint,
    ) {
        let old = ctx.result(op, 0);
        let ty = self.vector_type(ctx, ctx.value_type(old));
        let spec = OpSpec::new(ctx, name, ctx.op_loc(op))
            .operands(operands)
            .results(&[ty]);
        let new = ctx.build(at, spec);
        self.vector.insert(old, ctx.result(new, 0));
    }

    /// The padded load `op` (`operands`: buffer, indices, padding) where its lanes lie inside
    /// their row ([`peel`]): a plain `loop.vload`, its leading indices taken as 0 when one of
    /// them is outside its dim (`arith.cmpi ult`), and an `arith.select` of the padding on
    /// that test. The leading indices are the same in every iteration, so the test is too
    /// (a convolution's input row above or below the image).
    fn inside_load(&mut self, ctx: &mut Context, op: Op, operands: &[Value], at: InsertPoint) {
        let loc = self.loc;
        let Some((&padding, access)) = operands.split_last() else {
            return;
        };
        let Some((&buffer, idx)) = access.split_first() else {
            return;
        };
        let dims = buffer_parts(ctx, ctx.value_type(buffer)).map_or_else(Vec::new, |(d, _, _)| d);
        let Some((&last, leading)) = idx.split_last() else {
            return;
        };
        let mut inside: Option<Value> = None;
        for (&i, &d) in leading.iter().zip(&dims) {
            let n = index_const(ctx, at, d, loc);
            let cmp = dlc_arith::build_cmpi(ctx, at, CmpIPredicate::Ult, i, n, loc);
            let ok = ctx.result(cmp, 0);
            inside = Some(match inside {
                None => ok,
                Some(prev) => {
                    let spec = OpSpec::new(ctx, "arith.andi", loc)
                        .operands(&[prev, ok])
                        .results(&[Type::I1]);
                    let and = ctx.build(at, spec);
                    ctx.result(and, 0)
                }
            });
        }
        let mut indices = Vec::with_capacity(idx.len());
        if let Some(ok) = inside {
            let zero = index_const(ctx, at, 0, loc);
            for &i in leading {
                let select = dlc_arith::build_select(ctx, at, ok, i, zero, loc);
                indices.push(ctx.result(select, 0));
            }
        }
        indices.push(last);
        let mut load = vec![buffer];
        load.extend(indices);
        self.vload(ctx, op, "loop.vload", &load, at);
        let Some(ok) = inside else {
            return;
        };
        let old = ctx.result(op, 0);
        let Some(&loaded) = self.vector.get(&old) else {
            return;
        };
        let fill = self.splat(ctx, padding, at);
        let select = dlc_arith::build_select(ctx, at, ok, loaded, fill, loc);
        self.vector.insert(old, ctx.result(select, 0));
    }

    /// `loop.vstore value, rest` (rest: buffer, indices).
    fn vstore(&mut self, ctx: &mut Context, value: Value, rest: &[Value], at: InsertPoint) -> Op {
        let spec = OpSpec::new(ctx, "loop.vstore", self.loc)
            .operands(&[value])
            .operands(rest);
        ctx.build(at, spec)
    }

    /// An `arith`/`math` op on vectors replacing `op`. A float division by a value that is
    /// the same in every lane becomes one scalar reciprocal and a vector multiply (a softmax's
    /// normalization, a mean): a vector division costs about ten times a multiply.
    fn lanes(&mut self, ctx: &mut Context, op: Op, at: InsertPoint) {
        if let Some(div) = ctx.view::<DivFOp>(op) {
            let (a, b) = (div.lhs(ctx), div.rhs(ctx));
            if self.vector.contains_key(&a) && !self.vector.contains_key(&b) {
                let divisor = self.map.lookup(b);
                let ty = ctx.value_type(divisor);
                let loc = ctx.op_loc(op);
                let one_attr = ctx.float_attr(1.0, ty);
                let one = dlc_arith::build_constant(ctx, at, one_attr, ty, loc);
                let mut spec = OpSpec::with_name(ctx.op_name_id(op), loc)
                    .operands(&[ctx.result(one, 0), divisor])
                    .results(&[ty]);
                spec.attrs = ctx.attrs(op).to_vec();
                let reciprocal = ctx.build(at, spec);
                let reciprocal = ctx.result(reciprocal, 0);
                let splat = self.splat(ctx, reciprocal, at);
                let numerator = self.vector_of(ctx, a, at);
                let vty = ctx.value_type(numerator);
                let mut spec = OpSpec::new(ctx, "arith.mulf", loc)
                    .operands(&[numerator, splat])
                    .results(&[vty]);
                spec.attrs = ctx.attrs(op).to_vec();
                let product = ctx.build(at, spec);
                self.vector
                    .insert(ctx.result(op, 0), ctx.result(product, 0));
                return;
            }
        }
        let operands: Vec<Value> = ctx
            .operands(op)
            .to_vec()
            .into_iter()
            .map(|v| self.vector_of(ctx, v, at))
            .collect();
        let old = ctx.result(op, 0);
        let ty = self.vector_type(ctx, ctx.value_type(old));
        let mut spec = OpSpec::with_name(ctx.op_name_id(op), ctx.op_loc(op))
            .operands(&operands)
            .results(&[ty]);
        spec.attrs = ctx.attrs(op).to_vec();
        let new = ctx.build(at, spec);
        self.vector.insert(old, ctx.result(new, 0));
    }

    /// The vector of original value `v`: its vector form, or a splat of its scalar clone.
    fn vector_of(&mut self, ctx: &mut Context, v: Value, at: InsertPoint) -> Value {
        if let Some(&vec) = self.vector.get(&v) {
            return vec;
        }
        let scalar = self.map.lookup(v);
        self.splat(ctx, scalar, at)
    }

    /// `scalar` (a value of the new loop body) in every lane.
    fn splat(&mut self, ctx: &mut Context, scalar: Value, at: InsertPoint) -> Value {
        let elem = ctx.value_type(scalar);
        let ty = self.vector_type(ctx, elem);
        util::splat(ctx, scalar, ty, at, self.loc)
    }
}
