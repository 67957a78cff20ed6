//! Computes a kernel's buffer index arithmetic in 32-bit integers when every loop trip count and
//! buffer size is known to fit.
//!
//! # Applies when
//! A kernel whose loops all have constant (or, with `assume-symbols-below`, bounded) extents,
//! whose nested extents multiply to at most `i32::MAX` along every loop nest, and whose buffers
//! have at most `i32::MAX` elements (CINN's `longlong2int`). `index` is 64-bit, but most
//! kernels of a model are small enough that their flattened offsets fit in 32 bits, and 32-bit
//! integer math is cheaper on GPUs (twice the throughput of 64-bit multiplies, half the
//! registers). Kernels with symbolic extents are the common counter-example.
//!
//! # Changes to the IR
//! - Loop bounds and buffer indices stay `index`, as the loop dialect requires. What changes is
//!   the `arith` computation of each buffer index operand of `loop.load`, `loop.store`,
//!   `loop.vload` and `loop.vstore`: every `addi`, `subi`, `muli`, `divsi`, `divui`, `remsi`,
//!   `remui`, `minsi`, `maxsi` in the tree computing it gets an `i32` twin right after it; the
//!   leaves (induction variables, iter vars, other values) are `arith.index_cast` to `i32`
//!   right after their definition, integer constants become `i32` constants, and the root is
//!   `arith.index_cast` back to `index` and used by the access. Index operands that are a
//!   plain value (an iter var) have no arithmetic and are left alone.
//! - Every value narrowed must provably lie in the `i32` range (index-expression bounds over the
//!   loop ranges, and over a constant `block`/`grid` launch shape for `loop.thread_id` and
//!   `loop.block_id`, which is what `gpu-map`'s linear indices are made of); a tree with a value
//!   that does not is left in `index`.
//! - The `index` ops left without users are erased.
//!
//! The pass counts the kernels it narrowed and the arithmetic ops it rewrote in `i32`.
//!
//! # Performance impact
//! Halves the width of address arithmetic; on NVPTX a 64-bit multiply is several 32-bit
//! instructions.
//!
//! # Risks and limitations
//! - Only index operands of memory accesses are narrowed; loop bounds, `loop.if` conditions
//!   and `loop.dim` stay 64-bit.
//! - `assume-symbols-below=N` takes the user's word that every index kernel argument and every
//!   `loop.dim` is below `N`; a larger value at run time overflows silently.
//!
//! # Examples
//! 1. A flattened index into a static buffer:
//!    ```text
//!    loop.kernel @flat(%x: !loop.buffer<256xf32, global>, %y: !loop.buffer<16x16xf32, global>) {
//!      %c0 = arith.constant 0 : index
//!      %c1 = arith.constant 1 : index
//!      %c16 = arith.constant 16 : index
//!      loop.for serial %i = %c0 to %c16 step %c1 {
//!        loop.for serial %j = %c0 to %c16 step %c1 {
//!          %m = arith.muli %i, %c16 : index
//!          %o = arith.addi %m, %j : index
//!          %v = loop.load %x[%o] : !loop.buffer<256xf32, global>
//!          loop.store %v, %y[%i, %j] : !loop.buffer<16x16xf32, global>
//!        }
//!      }
//!      loop.return
//!    }
//!    ```
//!    becomes
//!    ```text
//!    %c16_i32 = arith.constant 16 : i32
//!    loop.for serial %arg2 = %c0 to %c16 step %c1 {
//!      %0 = arith.index_cast %arg2 : index to i32
//!      loop.for serial %arg3 = %c0 to %c16 step %c1 {
//!        %1 = arith.index_cast %arg3 : index to i32
//!        %2 = arith.muli %0, %c16_i32 : i32
//!        %3 = arith.addi %2, %1 : i32
//!        %4 = arith.index_cast %3 : i32 to index
//!        %5 = loop.load %arg0[%4] : !loop.buffer<256xf32, global>
//!        loop.store %5, %arg1[%arg2, %arg3] : !loop.buffer<16x16xf32, global>
//!      }
//!    }
//!    ```
//!
//! # Counter-examples
//! 1. The same kernel over `loop.for serial %i = %c0 to %n step %c1` with `%n` a kernel argument:
//!    the trip count is unbounded, so the kernel is left alone (unless `assume-symbols-below`
//!    bounds `%n`).

use dlc_arith::{ArithOps, ConstantOp};
use dlc_ir::pass::{Anchor, OptionKind, OptionSpec, OptionValues, Pass, PassInfo, PassRun};
use dlc_ir::{
    Context, Diagnostic, InsertPoint, Location, Op, Type, TypeKind, Value, ValueDef, DYNAMIC,
};
use dlc_loop::analysis::loops::{loop_bounds, value_range};
use dlc_loop::index_expr::{Bounds, Symbol};
use dlc_loop::{buffer_parts, AllocOp, DimOp, ForOp, KernelOp, LaunchDim, LoopOps};
use rustc_hash::FxHashMap;

/// The pass description.
pub static INFO: PassInfo = PassInfo {
    argument: "long-to-int",
    summary: "Computes a kernel's buffer index arithmetic in 32-bit integers when every loop \
              trip count and buffer size is known to fit.",
    anchor: Anchor::op::<KernelOp>(),
    options: &[OptionSpec::new(
        "assume-symbols-below",
        OptionKind::Int,
        "0",
        "Assume every index kernel argument and loop.dim is below this value (0: no assumption)",
    )],
    statistics: &[
        (
            "kernels-narrowed",
            "Kernels whose index arithmetic was narrowed",
        ),
        ("ops-narrowed", "Index arithmetic ops rewritten in i32"),
    ],
    create,
};

fn create(options: &OptionValues) -> Result<Box<dyn Pass>, String> {
    let below = options.int("assume-symbols-below");
    if below < 0 {
        return Err(format!(
            "option 'assume-symbols-below' must be >= 0, got {below}"
        ));
    }
    Ok(Box::new(LongToInt {
        symbols_below: below,
    }))
}

struct LongToInt {
    /// Exclusive bound on symbolic index values; 0 for none.
    symbols_below: i64,
}

const I32_MAX: i64 = i32::MAX as i64;
const I32_MIN: i64 = i32::MIN as i64;

/// True for the arith ops narrowed one for one.
fn is_narrowable(ctx: &Context, op: Op) -> bool {
    use ArithOps as A;
    matches!(
        A::of(ctx, op),
        Some(
            A::AddIOp(_)
                | A::SubIOp(_)
                | A::MulIOp(_)
                | A::DivSIOp(_)
                | A::DivUIOp(_)
                | A::RemSIOp(_)
                | A::RemUIOp(_)
                | A::MinSIOp(_)
                | A::MaxSIOp(_)
        )
    )
}

impl Pass for LongToInt {
    fn run(&self, ctx: &mut Context, run: &mut PassRun<'_>) -> Result<(), Diagnostic> {
        let kernel = run.op();
        // The buffer sizes first: they need no ranges, which take most of the pass's time, and
        // most kernels with a `?` dim stop there.
        if !buffers_fit_i32(ctx, kernel, self.symbols_below) {
            run.preserve_all();
            return Ok(());
        }
        let Some(bounds) = self.kernel_bounds(ctx, kernel) else {
            run.preserve_all();
            return Ok(());
        };
        if !nest_fits(ctx, kernel, 1, &bounds) {
            run.preserve_all();
            return Ok(());
        }
        let narrowed = narrow_kernel(ctx, kernel, &bounds);
        run.add_stat("ops-narrowed", narrowed);
        if narrowed == 0 {
            run.preserve_all();
        } else {
            run.add_stat("kernels-narrowed", 1);
        }
        Ok(())
    }
}

impl LongToInt {
    /// Ranges of the kernel's loop variables (and, with the option, of its symbols).
    fn kernel_bounds(&self, ctx: &Context, kernel: Op) -> Option<Bounds> {
        let mut base = Bounds::new();
        if self.symbols_below > 0 {
            let hi = self.symbols_below - 1;
            let entry = ctx.blocks(*ctx.regions(kernel).first()?).first().copied()?;
            for &arg in ctx.block_args(entry) {
                if ctx.value_type(arg) == Type::INDEX {
                    base.insert(Symbol::Value(arg), 0, hi);
                }
            }
            ctx.for_each_op(kernel, &mut |op| {
                if ctx.view::<DimOp>(op).is_some() && ctx.num_results(op) == 1 {
                    base.insert(Symbol::Value(ctx.result(op, 0)), 0, hi);
                }
            });
        }
        // Thread and block ids range over a static launch shape.
        let (threads, blocks) = (
            KernelOp(kernel).block_dims(ctx),
            KernelOp(kernel).grid_dims(ctx),
        );
        ctx.for_each_op(kernel, &mut |op| {
            let dims = match LoopOps::of(ctx, op) {
                Some(LoopOps::ThreadIdOp(_)) => threads,
                Some(LoopOps::BlockIdOp(_)) => blocks,
                _ => return,
            };
            if ctx.num_results(op) != 1 {
                return;
            }
            let d = dlc_loop::gpu_dim(ctx, op).map(|d| d.index());
            if let (Some(dims), Some(d)) = (dims, d) {
                if let LaunchDim::Const(n) = dims[d] {
                    if n >= 1 {
                        base.insert(Symbol::Value(ctx.result(op, 0)), 0, n - 1);
                    }
                }
            }
        });
        Some(loop_bounds(ctx, kernel, base))
    }
}

/// Half of the safety check: every buffer's element count fits in `i32` (a `?` dim counting
/// as `symbols_below - 1`, and failing the check without the option). [`nest_fits`] is the
/// other half.
fn buffers_fit_i32(ctx: &Context, kernel: Op, symbols_below: i64) -> bool {
    let mut ok = true;
    let mut check = |ty: Type| {
        if let Some((dims, _, _)) = buffer_parts(ctx, ty) {
            let mut n: i64 = 1;
            for d in dims {
                let d = if d == DYNAMIC {
                    if symbols_below > 0 {
                        symbols_below - 1
                    } else {
                        ok = false;
                        return;
                    }
                } else {
                    d
                };
                n = n.saturating_mul(d.max(0));
            }
            ok &= n <= I32_MAX;
        }
    };
    if let Some(&entry) = ctx
        .regions(kernel)
        .first()
        .and_then(|&r| ctx.blocks(r).first())
    {
        for &arg in ctx.block_args(entry) {
            check(ctx.value_type(arg));
        }
    }
    ctx.for_each_op(kernel, &mut |op| {
        if ctx.view::<AllocOp>(op).is_some() && ctx.num_results(op) == 1 {
            check(ctx.value_type(ctx.result(op, 0)));
        }
    });
    ok
}

/// True when every loop nest under `op` has a bounded trip-count product `<= i32::MAX`.
fn nest_fits(ctx: &Context, op: Op, product: i64, bounds: &Bounds) -> bool {
    for &region in ctx.regions(op) {
        for &block in ctx.blocks(region) {
            for inner in ctx.block_ops(block) {
                let mut p = product;
                if ctx.view::<ForOp>(inner).is_some() {
                    let operands = ctx.operands(inner);
                    if operands.len() != 3 {
                        return false;
                    }
                    let (lo, _) = value_range(ctx, operands[0], bounds);
                    let (_, hi) = value_range(ctx, operands[1], bounds);
                    if lo == i64::MIN || hi == i64::MAX {
                        return false;
                    }
                    let extent = hi.saturating_sub(lo).max(0);
                    p = p.saturating_mul(extent);
                    if p > I32_MAX {
                        return false;
                    }
                }
                if !nest_fits(ctx, inner, p, bounds) {
                    return false;
                }
            }
        }
    }
    true
}

/// Narrows the index trees of every memory access of `kernel`; returns the arith ops narrowed.
fn narrow_kernel(ctx: &mut Context, kernel: Op, bounds: &Bounds) -> u64 {
    let mut accesses = Vec::new();
    ctx.for_each_op(kernel, &mut |op| {
        let Some(positions) = dlc_loop::analysis::access::index_operands(ctx, op) else {
            return;
        };
        for i in positions {
            accesses.push((op, i));
        }
    });
    let mut n = Narrower {
        bounds,
        narrow: FxHashMap::default(),
        back: FxHashMap::default(),
        twins: Vec::new(),
        originals: Vec::new(),
        leaves: Vec::new(),
    };
    for (op, i) in accesses {
        let v = ctx.operand(op, i);
        if !is_narrowable_op(ctx, v) {
            continue;
        }
        let back = match n.back.get(&v) {
            Some(b) => *b,
            None => {
                let Some(narrow) = n.narrow(ctx, v) else {
                    continue;
                };
                let loc = ctx.op_loc(op);
                let Some(at) = after_def(ctx, narrow) else {
                    continue;
                };
                let b = cast(ctx, at, narrow, Type::INDEX, loc);
                n.back.insert(v, b);
                b
            }
        };
        ctx.set_operand(op, i, back);
    }
    // The index ops nobody uses any more (users before their operands).
    for op in n
        .originals
        .into_iter()
        .rev()
        .chain(n.leaves.into_iter().rev())
    {
        if ctx.is_alive(op) && ctx.results(op).all(|r| ctx.is_unused(r)) {
            ctx.erase_op(op);
        }
    }
    n.twins.iter().filter(|&&t| ctx.is_alive(t)).count() as u64
}

/// `v` is the index result of a narrowable arith op.
fn is_narrowable_op(ctx: &Context, v: Value) -> bool {
    ctx.value_type(v) == Type::INDEX && ctx.defining_op(v).is_some_and(|d| is_narrowable(ctx, d))
}

/// Where the twin of `v` goes: right after its definition.
fn after_def(ctx: &Context, v: Value) -> Option<InsertPoint> {
    match ctx.value_def(v) {
        ValueDef::Result { op, .. } => Some(InsertPoint::After(op)),
        ValueDef::BlockArg { block, .. } => Some(InsertPoint::Start(block)),
        ValueDef::Placeholder => None,
    }
}

fn cast(ctx: &mut Context, at: InsertPoint, v: Value, to: Type, loc: Location) -> Value {
    let op = dlc_arith::build_op(ctx, at, "arith.index_cast", &[v], to, loc);
    ctx.result(op, 0)
}

/// Builds the `i32` twins of index trees, memoized.
struct Narrower<'a> {
    bounds: &'a Bounds,
    /// Index value → its `i32` twin.
    narrow: FxHashMap<Value, Value>,
    /// Root index value → its twin cast back to `index`.
    back: FxHashMap<Value, Value>,
    /// The `i32` twins of arith ops.
    twins: Vec<Op>,
    /// The index ops that got a twin, in creation order.
    originals: Vec<Op>,
    /// The `i32` ops made, in creation order: a tree that fails to narrow may leave some unused.
    leaves: Vec<Op>,
}

impl Narrower<'_> {
    /// The `i32` twin of index value `v`, if every value of its tree fits in `i32`.
    fn narrow(&mut self, ctx: &mut Context, v: Value) -> Option<Value> {
        if let Some(&t) = self.narrow.get(&v) {
            return Some(t);
        }
        if ctx.value_type(v) != Type::INDEX {
            return None;
        }
        let (lo, hi) = value_range(ctx, v, self.bounds);
        if lo < I32_MIN || hi > I32_MAX {
            return None;
        }
        let def = ctx.defining_op(v);
        let twin = match def {
            Some(op) if is_narrowable(ctx, op) => {
                let operands = ctx.operands(op).to_vec();
                let mut narrowed = Vec::new();
                for o in operands {
                    narrowed.push(self.narrow(ctx, o)?);
                }
                let name = ctx.op_name(op).to_string();
                let loc = ctx.op_loc(op);
                let twin = dlc_arith::build_op(
                    ctx,
                    InsertPoint::After(op),
                    &name,
                    &narrowed,
                    Type::I32,
                    loc,
                );
                self.twins.push(twin);
                self.originals.push(op);
                self.leaves.push(twin);
                ctx.result(twin, 0)
            }
            Some(op) if ctx.view::<ConstantOp>(op).is_some() => {
                let c = ConstantOp(op).value(ctx).and_then(|a| ctx.attr_as_int(a))?;
                let attr = ctx.integer_attr(c, Type::I32);
                let loc = ctx.op_loc(op);
                let twin =
                    dlc_arith::build_constant(ctx, InsertPoint::After(op), attr, Type::I32, loc);
                self.leaves.push(twin);
                ctx.result(twin, 0)
            }
            _ => {
                if !matches!(ctx.type_kind(ctx.value_type(v)), TypeKind::Index) {
                    return None;
                }
                let loc = match def {
                    Some(op) => ctx.op_loc(op),
                    None => Location::Unknown,
                };
                let at = after_def(ctx, v)?;
                let c = cast(ctx, at, v, Type::I32, loc);
                if let Some(op) = ctx.defining_op(c) {
                    self.leaves.push(op);
                }
                c
            }
        };
        self.narrow.insert(v, twin);
        Some(twin)
    }
}
