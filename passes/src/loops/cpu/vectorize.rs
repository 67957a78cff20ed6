//! Vectorizes innermost CPU loops over contiguous elements into `width`-lane vector loads,
//! stores and arithmetic, with a scalar loop for the tail.
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
//! # Changes to the IR
//! With `W` = `width` (or the loop's own `vectorize(w)`), the loop `[lb, ub)` becomes:
//! - a main loop `loop.for vectorize(W) %v = lb to end step W`, where `end` is `lb` plus the
//!   largest multiple of `W` not above the trip count (an `arith.constant` for constant bounds);
//!   its body is the original body with
//!   - each load or store whose last index is `iv + c` (`c`, and every other index, the same in
//!     every iteration) as `loop.vload` / `loop.vstore` of `vector<WxT>` at the lane-0 indices;
//!   - each `arith`/`math` op with a vector operand on `vector<WxT>` (its scalar operands splat);
//!   - loads with indices the same in every iteration, and ops on them only, kept scalar;
//!   - a splat of a scalar: a `dense` splat `arith.constant` for a constant, otherwise `W` stores
//!     into a new `W`-element local buffer (allocated before the main loop) and one `loop.vload`
//!     (dlc has no broadcast op);
//! - the original loop, now from `end` to `ub`, as the scalar remainder (kind `serial`); it is
//!   erased when the bounds are constants and `W` divides the trip count.
//!
//! Registers: a rank-0 `local` buffer used only inside the loop, whose first access in every
//! iteration is an unconditional store, holds one value per iteration; it gets a `W`-element
//! local buffer (allocated before the main loop) accessed at index 0 with `loop.vload` /
//! `loop.vstore`, one lane per iteration. The remainder keeps the scalar register.
//!
//! The loop is left alone when anything else appears: other ops (`loop.if`, loops, allocs,
//! barriers), index arithmetic that is not `iv + c` in the last index (strided, transposed or
//! gathered accesses), a reduction iter var bound to the loop index (the accumulator is carried
//! across iterations), a store of the same element in every iteration to a non-register buffer,
//! or a buffer both stored and loaded at different indices. The pass counts the loops it
//! vectorized and the remainder loops it kept.
//!
//! # Performance impact
//! Up to `W` times fewer load, store and arithmetic instructions in elementwise loops (8 lanes of
//! f32 fill an AVX2 register).
//!
//! # Risks and limitations
//! - Distinct buffer arguments are assumed not to overlap partially (an in-place launch passing
//!   one buffer twice is fine when both are accessed at the same indices).
//! - Reductions along the loop (a vector accumulator plus a horizontal reduce) are not handled.
//! - The splat through a local buffer is slower than a broadcast instruction would be.
//!
//! # TODO
//! - Vectorize reductions along the innermost loop.
//!
//! # Examples
//! 1. A row scale `y[i, j] = x[i, j] * s[i]` over 20 columns, width 8:
//!    ```text
//!    loop.kernel @scale(%x: !loop.buffer<?x20xf32, global>, %s: !loop.buffer<?xf32, global>, %y: !loop.buffer<?x20xf32, global>, %i: index) {
//!      %c0 = arith.constant 0 : index
//!      %c1 = arith.constant 1 : index
//!      %c20 = arith.constant 20 : index
//!      loop.for serial %j = %c0 to %c20 step %c1 {
//!        loop.schedule_block "scale" (%i0 = %i, %j0 = %j) {
//!          %a = loop.load %x[%i0, %j0] : !loop.buffer<?x20xf32, global>
//!          %b = loop.load %s[%i0] : !loop.buffer<?xf32, global>
//!          %p = arith.mulf %a, %b : f32
//!          loop.store %p, %y[%i0, %j0] : !loop.buffer<?x20xf32, global>
//!        }
//!      }
//!      loop.return
//!    }
//!    ```
//!    becomes a `vectorize(8)` loop to 16 and a serial remainder from 16:
//!    ```text
//!    %c16 = arith.constant 16 : index
//!    %c8 = arith.constant 8 : index
//!    %0 = loop.alloc : !loop.buffer<8xf32, local>
//!    loop.for vectorize(8) %arg4 = %c0 to %c16 step %c8 {
//!      loop.schedule_block "scale" (%arg5 = %arg3, %arg6 = %arg4) {
//!        %1 = loop.vload %arg0[%arg5, %arg6] : !loop.buffer<?x20xf32, global> -> vector<8xf32>
//!        %2 = loop.load %arg1[%arg5] : !loop.buffer<?xf32, global>
//!        loop.store %2, %0[%c0_0] : !loop.buffer<8xf32, local>
//!        ...
//!        %3 = loop.vload %0[%c0_2] : !loop.buffer<8xf32, local> -> vector<8xf32>
//!        %4 = arith.mulf %1, %3 : vector<8xf32>
//!        loop.vstore %4, %arg2[%arg5, %arg6] : vector<8xf32>, !loop.buffer<?x20xf32, global>
//!    ...
//!    loop.for serial %arg4 = %c16 to %c20 step %c1 {
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
    const_int, const_trip_count, constant_splat, index_const, loop_parts, whole_groups_end,
    LoopParts,
};
use dlc_ir::pass::{Anchor, OptionKind, OptionSpec, OptionValues, Pass, PassInfo, PassRun};
use dlc_ir::{
    Block, Context, Diagnostic, InsertPoint, Location, Op, OpSpec, Type, TypeKind, Value, ValueMap,
};
use dlc_loop::index_expr::{Atom, IndexExpr, Symbol};
use dlc_loop::{
    buffer_parts, buffer_type, build_alloc, is_gpu_kernel, ForOp, LoopKind, MemorySpace,
};
use rustc_hash::{FxHashMap, FxHashSet};

/// The pass description.
pub static INFO: PassInfo = PassInfo {
    argument: "vectorize",
    summary: "Vectorizes innermost CPU loops over contiguous elements into `width`-lane vector \
              loads, stores and arithmetic, with a scalar loop for the tail.",
    anchor: Anchor::Op("loop.kernel"),
    options: &[OptionSpec::new(
        "width",
        OptionKind::Int,
        "8",
        "Lanes per vector for serial loops (a vectorize(w) loop uses its own w)",
    )],
    statistics: &[
        (
            "loops-vectorized",
            "Number of loops turned into vector loops",
        ),
        (
            "remainder-loops",
            "Number of scalar remainder loops kept after a vector loop",
        ),
    ],
    create,
};

fn create(options: &OptionValues) -> Result<Box<dyn Pass>, String> {
    let width = options.int("width");
    if width < 2 {
        return Err(format!("option 'width' must be at least 2, got {width}"));
    }
    Ok(Box::new(Vectorize { width }))
}

struct Vectorize {
    /// Lanes per vector for unmarked loops.
    width: i64,
}

impl Pass for Vectorize {
    fn run(&self, ctx: &mut Context, run: &mut PassRun<'_>) -> Result<(), Diagnostic> {
        let kernel = run.op();
        if is_gpu_kernel(ctx, kernel) {
            run.preserve_all();
            return Ok(());
        }
        let mut loops = Vec::new();
        ctx.for_each_op(kernel, &mut |op| {
            if ctx.op_name(op) == "loop.for" && is_innermost(ctx, op) {
                loops.push(op);
            }
        });
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
            let Some(plan) = Plan::analyze(ctx, op, &parts, width) else {
                continue;
            };
            if rewrite(ctx, op, &parts, width, &plan) {
                remainders += 1;
            }
            vectorized += 1;
        }
        run.add_stat("loops-vectorized", vectorized);
        run.add_stat("remainder-loops", remainders);
        if vectorized == 0 {
            run.preserve_all();
        }
        Ok(())
    }
}

/// True when no loop is nested in `op`.
fn is_innermost(ctx: &Context, op: Op) -> bool {
    let mut nested = false;
    ctx.for_each_op(op, &mut |o| {
        nested |= o != op && ctx.op_name(o) == "loop.for"
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
    /// `loop.store` → `loop.vstore` at the same indices.
    VStore,
    /// A load of a register → `loop.vload` of its wide buffer.
    RegLoad,
    /// A store to a register → `loop.vstore` to its wide buffer.
    RegStore,
    /// An `arith`/`math` op on vectors.
    Lanes,
    /// A schedule block, rewritten region by region.
    Block,
}

/// One load or store of a non-register buffer: the buffer, whether it stores, the indices.
struct Access {
    buffer: Value,
    store: bool,
    indices: Vec<IndexExpr>,
}

/// The analysis of one candidate loop.
struct Plan {
    actions: FxHashMap<Op, Action>,
    /// The rank-0 local buffers that become `W`-element buffers.
    registers: Vec<Value>,
}

/// The state of the analysis walk.
struct Analyzer<'a> {
    ctx: &'a Context,
    lp: Op,
    iv: Value,
    width: i64,
    exprs: FxHashMap<Value, IndexExpr>,
    vector: FxHashSet<Value>,
    registers: FxHashSet<Value>,
    actions: FxHashMap<Op, Action>,
    accesses: Vec<Access>,
}

impl Plan {
    /// The plan for vectorizing `lp`, or `None` when its body does not qualify.
    fn analyze(ctx: &Context, lp: Op, parts: &LoopParts, width: i64) -> Option<Plan> {
        let registers = find_registers(ctx, lp, parts.body);
        let mut a = Analyzer {
            ctx,
            lp,
            iv: parts.iv,
            width,
            exprs: FxHashMap::default(),
            vector: FxHashSet::default(),
            registers: registers.iter().copied().collect(),
            actions: FxHashMap::default(),
            accesses: Vec::new(),
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
            .any(|&x| x == Action::VStore || x == Action::RegStore)
        {
            return None;
        }
        Some(Plan {
            actions: a.actions,
            registers,
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
        Some(IndexExpr::value(v))
    }

    fn defined_inside(&self, v: Value) -> bool {
        let ctx = self.ctx;
        match ctx.defining_op(v) {
            Some(def) => ctx.is_ancestor(self.lp, def),
            None => ctx
                .value_block(v)
                .and_then(|b| ctx.block_parent_op(b))
                .is_some_and(|p| ctx.is_ancestor(self.lp, p)),
        }
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
        let name = ctx.op_name(op);
        let operands = ctx.operands(op);
        match name {
            "loop.yield" => Some(Action::Scalar),
            "arith.constant" => {
                let r = ctx.result(op, 0);
                let e = const_int(ctx, r).map_or_else(|| IndexExpr::value(r), IndexExpr::constant);
                self.exprs.insert(r, e);
                Some(Action::Scalar)
            }
            "arith.addi" | "arith.subi" | "arith.muli"
                if operands.len() == 2 && ctx.value_type(ctx.result(op, 0)) == Type::INDEX =>
            {
                let (a, b) = (self.expr(operands[0])?, self.expr(operands[1])?);
                let e = match name {
                    "arith.addi" => &a + &b,
                    "arith.subi" => &a - &b,
                    _ => &a * &b,
                };
                self.exprs.insert(ctx.result(op, 0), e);
                Some(Action::Scalar)
            }
            "loop.schedule_block" => {
                let kinds = dlc_loop::ScheduleBlockOp(op).iter_kind_list(ctx);
                let values: Vec<IndexExpr> = operands
                    .iter()
                    .map(|&v| self.expr(v))
                    .collect::<Option<_>>()?;
                for (k, e) in kinds.iter().zip(&values) {
                    if *k == dlc_loop::IterKind::Reduce && self.mentions_iv(e) {
                        return None;
                    }
                }
                for &region in ctx.regions(op) {
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
            "loop.load" => self.load(op),
            "loop.store" => self.store(op),
            _ if (name.starts_with("arith.") || name.starts_with("math."))
                && ctx.regions(op).is_empty()
                && ctx.num_results(op) == 1 =>
            {
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
                    if INTEGER_DIVISIONS.contains(&name) {
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
            _ => None,
        }
    }

    /// The index expressions of a load's or store's indices (operands from `first`).
    fn indices(&self, op: Op, first: usize) -> Option<Vec<IndexExpr>> {
        self.ctx.operands(op)[first..]
            .iter()
            .map(|&v| self.expr(v))
            .collect()
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

    fn load(&mut self, op: Op) -> Option<Action> {
        let ctx = self.ctx;
        let buffer = *ctx.operands(op).first()?;
        let r = ctx.result(op, 0);
        if self.registers.contains(&buffer) {
            self.vector.insert(r);
            return Some(Action::RegLoad);
        }
        let indices = self.indices(op, 1)?;
        let contiguous = self.contiguous(&indices)?;
        self.accesses.push(Access {
            buffer,
            store: false,
            indices,
        });
        if contiguous {
            if !self.fits(buffer) {
                return None;
            }
            self.vector.insert(r);
            Some(Action::VLoad)
        } else {
            self.exprs.insert(r, IndexExpr::value(r));
            Some(Action::Scalar)
        }
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
        let indices = self.indices(op, 2)?;
        if !self.contiguous(&indices)? || !self.fits(buffer) {
            return None;
        }
        self.accesses.push(Access {
            buffer,
            store: true,
            indices,
        });
        Some(Action::VStore)
    }
}

/// True for integer and float scalar types.
/// Integer divisions, which stay scalar (see `Analyzer::op`).
const INTEGER_DIVISIONS: [&str; 6] = [
    "arith.divsi",
    "arith.divui",
    "arith.remsi",
    "arith.remui",
    "arith.ceildivsi",
    "arith.floordivsi",
];

fn is_scalar(ctx: &Context, ty: Type) -> bool {
    matches!(
        ctx.type_kind(ty),
        TypeKind::Integer { .. } | TypeKind::Float(_)
    )
}

/// The rank-0 local buffers used only inside `lp` whose first access in an iteration is always
/// a store (so each iteration's value is its own).
fn find_registers(ctx: &Context, lp: Op, body: Block) -> Vec<Value> {
    // First access per buffer, in execution order: true when an unconditional store.
    let mut first: Vec<(Value, bool)> = Vec::new();
    fn walk(ctx: &Context, block: Block, conditional: bool, first: &mut Vec<(Value, bool)>) {
        for op in ctx.block_ops(block) {
            let (buffer, store) = match ctx.op_name(op) {
                "loop.load" => (ctx.operands(op).first().copied(), false),
                "loop.store" => (ctx.operands(op).get(1).copied(), true),
                _ => (None, false),
            };
            if let Some(b) = buffer {
                if !first.iter().any(|(v, _)| *v == b) {
                    first.push((b, store && !conditional));
                }
            }
            if ctx.op_name(op) == "loop.schedule_block" {
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
                && buffer_parts(ctx, ctx.value_type(b)).is_some_and(|(dims, elem, space)| {
                    dims.is_empty() && space == MemorySpace::Local && is_scalar(ctx, elem)
                })
                && ctx.uses(b).iter().all(|u| {
                    ctx.is_ancestor(lp, u.user)
                        && matches!(
                            (ctx.op_name(u.user), u.operand),
                            ("loop.load", 0) | ("loop.store", 1)
                        )
                })
        })
        .map(|(b, _)| b)
        .collect()
}

/// Rewrites `lp` into a vector main loop and (returned true) a scalar remainder.
fn rewrite(ctx: &mut Context, lp: Op, parts: &LoopParts, width: i64, plan: &Plan) -> bool {
    let loc = ctx.op_loc(lp);
    let at = InsertPoint::Before(lp);
    let end = whole_groups_end(ctx, at, parts, 1, width, loc);
    let step = index_const(ctx, at, width, loc);
    let mut wide = FxHashMap::default();
    for &r in &plan.registers {
        let elem = buffer_parts(ctx, ctx.value_type(r)).map_or(Type::F32, |(_, e, _)| e);
        let ty = buffer_type(ctx, &[width], elem, MemorySpace::Local);
        wide.insert(r, build_alloc(ctx, at, ty, &[], loc));
    }
    let (main, body, iv) = dlc_loop::build_for(
        ctx,
        at,
        (parts.lb, end, step),
        LoopKind::Vectorize(width),
        loc,
    );
    // The builder's terminator is replaced by the clone of the original one.
    if let Some(term) = ctx.last_op(body) {
        ctx.erase_op(term);
    }
    let mut emitter = Emitter {
        plan,
        width,
        main: main.0,
        map: ValueMap::new(),
        vector: FxHashMap::default(),
        wide,
        loc,
    };
    emitter.map.map(parts.iv, iv);
    emitter.block(ctx, parts.body, body);
    // The original loop becomes the remainder, unless the main loop covers everything.
    let covered = const_trip_count(ctx, parts).is_some_and(|t| t % width == 0)
        && const_int(ctx, parts.lb).is_some();
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

/// Builds the main loop's body from the original body, following a [`Plan`].
struct Emitter<'p> {
    plan: &'p Plan,
    width: i64,
    /// The main loop, before which splat buffers are allocated.
    main: Op,
    /// Scalar values: original → clone.
    map: ValueMap,
    /// Vector values: original scalar → its vector.
    vector: FxHashMap<Value, Value>,
    /// Registers: scalar buffer → wide buffer.
    wide: FxHashMap<Value, Value>,
    loc: Location,
}

impl Emitter<'_> {
    fn block(&mut self, ctx: &mut Context, src: Block, dst: Block) {
        let ops: Vec<Op> = ctx.block_ops(src).collect();
        for op in ops {
            let at = InsertPoint::End(dst);
            match self.plan.actions.get(&op).copied() {
                Some(Action::Block) => self.schedule_block(ctx, op, dst),
                Some(Action::VLoad) => {
                    let operands: Vec<Value> = ctx
                        .operands(op)
                        .iter()
                        .map(|&v| self.map.lookup(v))
                        .collect();
                    self.vload(ctx, op, &operands, at);
                }
                Some(Action::RegLoad) => {
                    let buffer = ctx.operands(op)[0];
                    let wide = self.wide.get(&buffer).copied().unwrap_or(buffer);
                    let zero = index_const(ctx, at, 0, self.loc);
                    self.vload(ctx, op, &[wide, zero], at);
                }
                Some(Action::VStore) => {
                    let value = self.vector_of(ctx, ctx.operands(op)[0], at);
                    let rest: Vec<Value> = ctx.operands(op)[1..]
                        .iter()
                        .map(|&v| self.map.lookup(v))
                        .collect();
                    self.vstore(ctx, value, &rest, at);
                }
                Some(Action::RegStore) => {
                    let value = self.vector_of(ctx, ctx.operands(op)[0], at);
                    let buffer = ctx.operands(op)[1];
                    let wide = self.wide.get(&buffer).copied().unwrap_or(buffer);
                    let zero = index_const(ctx, at, 0, self.loc);
                    self.vstore(ctx, value, &[wide, zero], at);
                }
                Some(Action::Lanes) => self.lanes(ctx, op, at),
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
        for region in ctx.regions(op).to_vec() {
            let new_region = ctx.create_region();
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

    /// `loop.vload` replacing the load `op`, with `operands` (buffer, indices).
    fn vload(&mut self, ctx: &mut Context, op: Op, operands: &[Value], at: InsertPoint) {
        let old = ctx.result(op, 0);
        let ty = self.vector_type(ctx, ctx.value_type(old));
        let spec = OpSpec::new(ctx, "loop.vload", ctx.op_loc(op))
            .operands(operands)
            .results(&[ty]);
        let new = ctx.build(at, spec);
        self.vector.insert(old, ctx.result(new, 0));
    }

    /// `loop.vstore value, rest` (rest: buffer, indices).
    fn vstore(&mut self, ctx: &mut Context, value: Value, rest: &[Value], at: InsertPoint) {
        let spec = OpSpec::new(ctx, "loop.vstore", self.loc)
            .operands(&[value])
            .operands(rest);
        ctx.build(at, spec);
    }

    /// An `arith`/`math` op on vectors replacing `op`.
    fn lanes(&mut self, ctx: &mut Context, op: Op, at: InsertPoint) {
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
        let elem = ctx.value_type(scalar);
        let ty = self.vector_type(ctx, elem);
        if let Some(attr) = constant_splat(ctx, scalar, ty) {
            let spec = dlc_arith::constant_spec(ctx, attr, ty, self.loc);
            let op = ctx.build(at, spec);
            return ctx.result(op, 0);
        }
        // No broadcast op: write the scalar to every lane of a local buffer and load it back.
        let buf_ty = buffer_type(ctx, &[self.width], elem, MemorySpace::Local);
        let buf = build_alloc(ctx, InsertPoint::Before(self.main), buf_ty, &[], self.loc);
        for lane in 0..self.width {
            let i = index_const(ctx, at, lane, self.loc);
            dlc_loop::build_store(ctx, at, scalar, buf, &[i], self.loc);
        }
        let zero = index_const(ctx, at, 0, self.loc);
        let spec = OpSpec::new(ctx, "loop.vload", self.loc)
            .operands(&[buf, zero])
            .results(&[ty]);
        let op = ctx.build(at, spec);
        ctx.result(op, 0)
    }
}
