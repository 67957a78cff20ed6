//! Register-tiles matmul-like reductions on the CPU: an `R x (V*W)` block of outputs is
//! accumulated in vector registers while the reduction loop runs innermost over it.
//!
//! # Applies when
//! A CPU kernel holds the nest `lower` gives a contraction (matmul, batched matmul, the
//! projections of attention and MLPs):
//! `parallel i { serial j { %acc = alloc rank-0 local; serial k { schedule_block (.., k reduce)
//! init {acc = ..} {acc = f(acc, ..)} }; <epilogue reading acc> } }`, where
//! - the `i` loop is `parallel` with step 1 and its body is only the `j` loop; the `j` loop is
//!   `serial` with step 1, its body rank-0 allocs (`%acc`, the one the `k` loop uses, and the
//!   registers of a fused epilogue), the `k` loop, then the epilogue; the `k` loop starts at 0
//!   with a constant positive step, its body is only the schedule block, and the bounds of `j`
//!   and `k` are defined outside the `i` loop;
//! - the block binds one reduce iter var to `k`, its other iter vars to `i`, `j` or values
//!   defined outside the nest, and has an init region;
//! - in the block, `j` is only the last index of loads, alone or plus a value that does not
//!   depend on `j` (`B[k, j]`: consecutive elements), the only store is to `%acc`, and the other
//!   ops are loads and `arith`/`math` ops;
//! - no buffer the block reads is stored by the epilogue;
//! - the trip counts are at least `rows` (`i`) and `vectors * width` (`j`) when constant.
//!
//! Without the pass the `k` loop is innermost: one scalar multiply-add per element of `B`
//! loaded with a stride of a whole row, which runs at about 1 GFLOP/s.
//!
//! # Changes to the IR
//! With `R` = `rows`, `V` = `vectors`, `W` = `width` and `T` the accumulator's element type:
//! - the `i` loop becomes a loop of the same kind over `ceil(trips / R)` row blocks (the count
//!   is computed before the outermost loop around the nest that its bounds allow, so a
//!   `parallel` nest around it still collapses); block `b` covers rows `i0 = lb + b*R ..`;
//! - when `R` does not divide a constant trip count, or the count is symbolic, a `loop.if`
//!   on `i0 + R <= ub` chooses the tiled path, and its else branch runs the original `j` loop
//!   for each of the last rows (`serial` loop from `i0` to `ub`);
//! - the tiled path is a `serial` loop over column blocks `jb` (step `V*W`, up to the end of the
//!   whole blocks) whose body holds:
//!   - a local `R x (V*W)` tile; the init region cloned for each row `r` and vector `v`, its
//!     store to `%acc` as a `loop.vstore` of `vector<WxT>` to `tile[r, v*W]`;
//!   - a copy of the `k` loop whose body is the block's body unrolled over `r` and `v`:
//!     ops that do not depend on `j` cloned once per row (with `i` = `i0 + r`), loads contiguous
//!     in `j` as `loop.vload` at `j` = `jb + v*W`, loads and stores of `%acc` as `loop.vload` /
//!     `loop.vstore` of `tile[r, v*W]`, the other `arith`/`math` ops on vectors (scalar operands
//!     splat through a `W`-element local buffer, constants as dense splats); with `fma`, an
//!     `arith.addf` of a vector `arith.mulf` used only there becomes `math.fma`;
//!   - the write-back: `serial` loops over `r < R` and `jj < V*W` that load `tile[r, jj]` into a
//!     fresh rank-0 `%acc` and run the epilogue (its allocs first) at `i = i0 + r`,
//!     `j = jb + jj`;
//! - after the column blocks, unless they cover the constant `j` range, the original `j` loop
//!   from the end of the whole blocks, once for each row of the block (`serial` over `r < R`).
//!
//! The pass counts the nests it tiled and the row-remainder paths it kept.
//!
//! # Performance impact
//! Each `k` step loads `R` elements of `A` and `V` vectors of `B` for `R*V` vector FMAs, all
//! accumulators staying in registers (LLVM's SROA promotes the tile and turns the splat
//! buffers into broadcasts); with the defaults `R = 4`, `V = 4`, `W = 16` that is 16 of the 32
//! AVX-512 registers. A 1024³ f32 matmul on 2 Zen 4 cores went from 0.3 GFLOP/s to about
//! 270 GFLOP/s (`dlc-run --bench`; 6x2 and 8x3 tiles measured far slower there).
//!
//! # Risks and limitations
//! - `math.fma` rounds once where `mulf` + `addf` rounded twice; results move within the float
//!   tolerance (turn it off with `fma=false` for bit-identical results).
//! - Distinct buffer arguments are assumed not to overlap partially (as `vectorize` assumes).
//! - When the `k` range is empty the tile starts from the init value, where the original left
//!   the accumulator as allocated.
//! - `B` is read straight from memory: no packing or cache blocking of `k`, so very large
//!   `K x N` panels are bound by the cache.
//!
//! # TODO
//! - Cache-block `k` and pack panels of `B`; tile the column remainder with narrower vectors.
//! - Several reductions sharing one `k` loop (a fused QKV projection) and `j` loops nested in a
//!   serial batch loop are left alone (`lower` makes a batched matmul's batch and row loops
//!   parallel, so its nests do tile: 12x256x64 by 12x64x256 runs at about 250 GFLOP/s on 2
//!   AVX-512 cores, `dlc-run --bench 20`).
//!
//! # Examples
//! 1. A 12x64 by 64x32 matmul with `tile{rows=4 vectors=2}`:
//!    ```text
//!    loop.kernel @mm(%a: !loop.buffer<12x64xf32, global>, %b: !loop.buffer<64x32xf32, global>, %c: !loop.buffer<12x32xf32, global>) {
//!      %c0 = arith.constant 0 : index
//!      %c1 = arith.constant 1 : index
//!      %c12 = arith.constant 12 : index
//!      %c32 = arith.constant 32 : index
//!      %c64 = arith.constant 64 : index
//!      loop.for parallel %i = %c0 to %c12 step %c1 {
//!        loop.for serial %j = %c0 to %c32 step %c1 {
//!          %acc = loop.alloc : !loop.buffer<f32, local>
//!          loop.for serial %k = %c0 to %c64 step %c1 {
//!            loop.schedule_block "mm" (%i0 = %i, %j0 = %j, %k0 = %k reduce) init {
//!              %z = arith.constant 0.000000e+00 : f32
//!              loop.store %z, %acc[] : !loop.buffer<f32, local>
//!            } {
//!              %x = loop.load %a[%i0, %k0] : !loop.buffer<12x64xf32, global>
//!              %y = loop.load %b[%k0, %j0] : !loop.buffer<64x32xf32, global>
//!              %p = arith.mulf %x, %y : f32
//!              %s = loop.load %acc[] : !loop.buffer<f32, local>
//!              %t = arith.addf %s, %p : f32
//!              loop.store %t, %acc[] : !loop.buffer<f32, local>
//!            }
//!          }
//!          loop.schedule_block "store" (%i0 = %i, %j0 = %j) {
//!            %v = loop.load %acc[] : !loop.buffer<f32, local>
//!            loop.store %v, %c[%i0, %j0] : !loop.buffer<12x32xf32, global>
//!          }
//!        }
//!      }
//!      loop.return
//!    }
//!    ```
//!    becomes a parallel loop over 3 row blocks, one 32-column block each (a splat buffer per
//!    row, the tile), and a `k` loop of 4x2 vector FMAs:
//!    ```text
//!    loop.for parallel %arg3 = %c0_0 to %c3 step %c1_1 {
//!      ...
//!      %1 = arith.addi %c0, %0 : index
//!      ...
//!      loop.for serial %arg4 = %c0 to %c32_2 step %c32_3 {
//!        %2 = loop.alloc : !loop.buffer<16xf32, local>
//!        ...
//!        %6 = loop.alloc : !loop.buffer<4x32xf32, local>
//!        ...
//!        loop.for serial %arg5 = %c0 to %c64 step %c1 {
//!          ...
//!          %15 = loop.load %arg0[%1, %arg5] : !loop.buffer<12x64xf32, global>
//!          %16 = loop.vload %arg1[%arg5, %arg4] : !loop.buffer<64x32xf32, global> -> vector<16xf32>
//!          %17 = loop.vload %6[%c0_33, %c0_34] : !loop.buffer<4x32xf32, local> -> vector<16xf32>
//!          ...
//!          %18 = loop.vload %2[%c0_41] : !loop.buffer<16xf32, local> -> vector<16xf32>
//!          %19 = math.fma %18, %16, %17 : vector<16xf32>
//!          loop.vstore %19, %6[%c0_33, %c0_34] : vector<16xf32>, !loop.buffer<4x32xf32, local>
//!    ```
//! 2. The same matmul with 13 rows and 40 columns keeps a `loop.if` whose else branch runs the
//!    last row as before, and a column remainder `loop.for serial` from 32 to 40 per row.
//!
//! # Counter-examples
//! 1. A reduction along the last index (`acc += x[i, k]`, a row sum) has no `j` loop over
//!    consecutive elements, so nothing is tiled.
//! 2. `B` read as `b[j, k]` (a transposed operand): `j` is not the last index, the loads are
//!    strided, so the nest is left alone.

use super::util::{
    const_int, const_trip_count, constant_splat, index_binary, index_const, loop_parts,
    whole_groups_end, LoopParts,
};
use dlc_arith::{build_cmpi, fastmath_attr, CmpIPredicate, FastMathFlags};
use dlc_ir::pass::{Anchor, OptionKind, OptionSpec, OptionValues, Pass, PassInfo, PassRun};
use dlc_ir::{
    Block, Context, Diagnostic, InsertPoint, Location, Op, OpSpec, Traits, Type, TypeKind, Value,
    ValueMap,
};
use dlc_loop::{
    before_terminator, buffer_parts, buffer_type, build_alloc, build_for, build_if, build_load,
    build_store, is_gpu_kernel, ForOp, IterKind, LoopKind, MemorySpace, ScheduleBlockOp,
};
use rustc_hash::{FxHashMap, FxHashSet};

/// The pass description.
pub static INFO: PassInfo = PassInfo {
    argument: "tile",
    summary: "Register-tiles matmul-like reductions on the CPU: an `R x (V*W)` block of outputs \
              is accumulated in vector registers while the reduction loop runs innermost over it.",
    anchor: Anchor::Op("loop.kernel"),
    options: &[
        OptionSpec::new("rows", OptionKind::Int, "4", "Rows of the tile (R)"),
        OptionSpec::new("vectors", OptionKind::Int, "4", "Vectors per tile row (V)"),
        OptionSpec::new(
            "width",
            OptionKind::Int,
            "16",
            "Lanes per vector (W; 16 f32 lanes fill an AVX-512 register)",
        ),
        OptionSpec::new(
            "fma",
            OptionKind::Bool,
            "true",
            "Contract a multiply feeding an add into math.fma",
        ),
    ],
    statistics: &[
        ("nests-tiled", "Number of reduction nests register-tiled"),
        (
            "row-remainders",
            "Number of tiled nests that keep a path for the last rows",
        ),
    ],
    create,
};

fn create(options: &OptionValues) -> Result<Box<dyn Pass>, String> {
    let rows = options.int("rows");
    let vectors = options.int("vectors");
    let width = options.int("width");
    if !(1..=64).contains(&rows) || !(1..=64).contains(&vectors) || !(2..=256).contains(&width) {
        return Err(format!(
            "options need 1 <= rows <= 64, 1 <= vectors <= 64, 2 <= width <= 256; got rows={rows}, \
             vectors={vectors}, width={width}"
        ));
    }
    Ok(Box::new(Tile {
        rows,
        vectors,
        width,
        fma: options.bool("fma"),
    }))
}

struct Tile {
    /// Rows per tile (R).
    rows: i64,
    /// Vectors per tile row (V).
    vectors: i64,
    /// Lanes per vector (W).
    width: i64,
    /// Whether `addf(mulf(a, b), c)` becomes `math.fma`.
    fma: bool,
}

impl Pass for Tile {
    fn run(&self, ctx: &mut Context, run: &mut PassRun<'_>) -> Result<(), Diagnostic> {
        let kernel = run.op();
        if is_gpu_kernel(ctx, kernel) {
            run.preserve_all();
            return Ok(());
        }
        let mut candidates = Vec::new();
        ctx.for_each_op(kernel, &mut |op| {
            if ctx.op_name(op) == "loop.for" && ForOp(op).loop_kind(ctx) == Some(LoopKind::Parallel)
            {
                candidates.push(op);
            }
        });
        let nests: Vec<Nest> = candidates
            .into_iter()
            .filter_map(|op| self.analyze(ctx, op))
            .collect();
        // A nest inside another one's epilogue goes away with the outer rewrite.
        let outer: Vec<Op> = nests.iter().map(|n| n.i_loop).collect();
        let nests: Vec<Nest> = nests
            .into_iter()
            .filter(|n| {
                !outer
                    .iter()
                    .any(|&o| o != n.i_loop && ctx.is_ancestor(o, n.i_loop))
            })
            .collect();
        let (mut tiled, mut remainders) = (0, 0);
        for nest in nests {
            if self.rewrite(ctx, &nest) {
                remainders += 1;
            }
            tiled += 1;
        }
        run.add_stat("nests-tiled", tiled);
        run.add_stat("row-remainders", remainders);
        if tiled == 0 {
            run.preserve_all();
        }
        Ok(())
    }
}

/// A matched reduction nest.
struct Nest {
    i_loop: Op,
    i: LoopParts,
    j_loop: Op,
    j: LoopParts,
    k: LoopParts,
    /// The rank-0 accumulator and the op that allocates it.
    acc: Value,
    acc_alloc: Op,
    /// What each iter var of the schedule block stands for, in order.
    roles: Vec<Role>,
    /// The init and body blocks of the schedule block.
    init: Block,
    body: Block,
    /// How each op of `init` and `body` is emitted.
    plan: FxHashMap<Op, Class>,
    /// The `j` body's other allocs, then its ops after the `k` loop (without the terminator).
    epilogue: Vec<Op>,
    /// The accumulator's element type.
    elem: Type,
}

/// What an iter var of the schedule block is bound to.
#[derive(Copy, Clone)]
enum Role {
    Row,
    Col,
    Reduce,
    Fixed(Value),
}

/// How one op of the schedule block is emitted in the tile.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Class {
    /// Cloned once per row.
    Scalar,
    /// Index arithmetic on `j`: cloned once per vector.
    ColIndex,
    /// A load contiguous in `j`: `loop.vload` per vector.
    VLoad,
    /// A load of the accumulator: `loop.vload` of the tile.
    AccLoad,
    /// A store to the accumulator: `loop.vstore` to the tile.
    AccStore,
    /// An `arith`/`math` op on vectors.
    Vector,
    /// An `arith.addf` fused with the `arith.mulf` that feeds it.
    Fma(Op),
    /// Not emitted: the terminator, or a multiply folded into an `Fma`.
    Skip,
}

/// True when `v` is defined inside `op` (by an op in it, or as an argument of one of its blocks).
fn defined_inside(ctx: &Context, op: Op, v: Value) -> bool {
    match ctx.defining_op(v) {
        Some(def) => ctx.is_ancestor(op, def),
        None => ctx
            .value_block(v)
            .and_then(|b| ctx.block_parent_op(b))
            .is_some_and(|p| ctx.is_ancestor(op, p)),
    }
}

/// The ops of `block` but its terminator.
fn body_ops(ctx: &Context, block: Block) -> Vec<Op> {
    ctx.block_ops(block)
        .filter(|&op| !ctx.has_trait(op, Traits::TERMINATOR))
        .collect()
}

fn is_float(ctx: &Context, ty: Type) -> bool {
    matches!(ctx.type_kind(ty), TypeKind::Float(_))
}

fn is_loop(ctx: &Context, op: Op, kind: LoopKind) -> bool {
    ctx.op_name(op) == "loop.for" && ForOp(op).loop_kind(ctx) == Some(kind)
}

impl Tile {
    /// The nest rooted at the parallel loop `i_loop`, when it has the shape the pass tiles.
    fn analyze(&self, ctx: &Context, i_loop: Op) -> Option<Nest> {
        let i = loop_parts(ctx, i_loop)?;
        let &[j_loop] = &body_ops(ctx, i.body)[..] else {
            return None;
        };
        if !is_loop(ctx, j_loop, LoopKind::Serial) || const_int(ctx, i.step) != Some(1) {
            return None;
        }
        let j = loop_parts(ctx, j_loop)?;
        // The `j` body: allocs, the `k` loop, the epilogue.
        let j_ops = body_ops(ctx, j.body);
        let k_at = j_ops
            .iter()
            .position(|&op| ctx.op_name(op) != "loop.alloc")?;
        let (allocs, rest) = j_ops.split_at(k_at);
        let (&k_loop, tail) = rest.split_first()?;
        // The accumulator is the one alloc the reduction uses; the others belong to the epilogue.
        let used_in_k = |op: Op| {
            ctx.uses(ctx.result(op, 0))
                .iter()
                .any(|u| ctx.is_ancestor(k_loop, u.user))
        };
        let mut in_k = allocs.iter().copied().filter(|&op| used_in_k(op));
        let (Some(acc_alloc), None) = (in_k.next(), in_k.next()) else {
            return None;
        };
        let epilogue: Vec<Op> = allocs
            .iter()
            .copied()
            .filter(|&op| op != acc_alloc)
            .chain(tail.iter().copied())
            .collect();
        if const_int(ctx, j.step) != Some(1) || !is_loop(ctx, k_loop, LoopKind::Serial) {
            return None;
        }
        let k = loop_parts(ctx, k_loop)?;
        if const_int(ctx, k.lb) != Some(0) || const_int(ctx, k.step).is_none_or(|s| s <= 0) {
            return None;
        }
        let outside = [j.lb, j.ub, k.lb, k.ub, k.step];
        if outside.iter().any(|&v| defined_inside(ctx, i_loop, v)) {
            return None;
        }
        let tile_cols = self.vectors * self.width;
        if const_trip_count(ctx, &i).is_some_and(|t| t < self.rows)
            || const_trip_count(ctx, &j).is_some_and(|t| t < tile_cols)
        {
            return None;
        }
        // The accumulator: a rank-0 float local buffer.
        if ctx.op_name(acc_alloc) != "loop.alloc" || !ctx.operands(acc_alloc).is_empty() {
            return None;
        }
        let acc = ctx.result(acc_alloc, 0);
        let (dims, elem, space) = buffer_parts(ctx, ctx.value_type(acc))?;
        if !dims.is_empty() || space != MemorySpace::Local || !is_float(ctx, elem) {
            return None;
        }
        // The schedule block.
        let &[block] = &body_ops(ctx, k.body)[..] else {
            return None;
        };
        if ctx.op_name(block) != "loop.schedule_block" {
            return None;
        }
        let sb = ScheduleBlockOp(block);
        let kinds = sb.iter_kind_list(ctx);
        let values = ctx.operands(block).to_vec();
        if kinds.len() != values.len() {
            return None;
        }
        let mut roles = Vec::with_capacity(values.len());
        for (&v, kind) in values.iter().zip(&kinds) {
            let role = match (*kind, v) {
                (IterKind::Reduce, v) if v == k.iv => Role::Reduce,
                (IterKind::Spatial, v) if v == i.iv => Role::Row,
                (IterKind::Spatial, v) if v == j.iv => Role::Col,
                (IterKind::Spatial, v) if !defined_inside(ctx, i_loop, v) => Role::Fixed(v),
                _ => return None,
            };
            roles.push(role);
        }
        if roles.iter().filter(|r| matches!(r, Role::Reduce)).count() != 1
            || !roles.iter().any(|r| matches!(r, Role::Col))
        {
            return None;
        }
        let init = sb.init_block(ctx)?;
        let body = sb.body(ctx)?;
        let mut analyzer = Analyzer {
            ctx,
            acc,
            width: self.width,
            fma: self.fma,
            col: FxHashSet::default(),
            vector: FxHashSet::default(),
            plan: FxHashMap::default(),
            reads: FxHashSet::default(),
        };
        for b in [init, body] {
            let args = ctx.block_args(b);
            if args.len() != roles.len() {
                return None;
            }
            for (&arg, role) in args.iter().zip(&roles) {
                if matches!(role, Role::Col) {
                    analyzer.col.insert(arg);
                }
            }
            analyzer.block(b)?;
        }
        // The accumulator is used by the block and the epilogue only.
        let users_ok = ctx.uses(acc).iter().all(|u| {
            ctx.is_ancestor(block, u.user) || epilogue.iter().any(|&e| ctx.is_ancestor(e, u.user))
        });
        // The epilogue runs later than before relative to the reduction of other columns: it
        // must not store what the reduction reads.
        let mut clash = false;
        for &e in &epilogue {
            ctx.for_each_op(e, &mut |op| {
                let buffer = match ctx.op_name(op) {
                    "loop.store" | "loop.vstore" => ctx.operands(op).get(1).copied(),
                    _ => None,
                };
                clash |= buffer.is_some_and(|b| analyzer.reads.contains(&b));
            });
        }
        if !users_ok || clash {
            return None;
        }
        let plan = analyzer.plan;
        Some(Nest {
            i_loop,
            i,
            j_loop,
            j,
            k,
            acc,
            acc_alloc,
            roles,
            init,
            body,
            plan,
            epilogue,
            elem,
        })
    }
}

/// Classifies the ops of the schedule block.
struct Analyzer<'a> {
    ctx: &'a Context,
    acc: Value,
    width: i64,
    fma: bool,
    /// Index values that depend on `j` (the lane-0 column plus an offset).
    col: FxHashSet<Value>,
    /// Values that become vectors.
    vector: FxHashSet<Value>,
    plan: FxHashMap<Op, Class>,
    /// The buffers the block reads, the accumulator aside.
    reads: FxHashSet<Value>,
}

impl Analyzer<'_> {
    fn block(&mut self, block: Block) -> Option<()> {
        for op in self.ctx.block_ops(block) {
            let class = self.op(op)?;
            self.plan.insert(op, class);
        }
        // Contract `addf(mulf(a, b), c)` on vectors.
        if self.fma {
            let ctx = self.ctx;
            for op in ctx.block_ops(block) {
                if ctx.op_name(op) != "arith.addf" || self.plan.get(&op) != Some(&Class::Vector) {
                    continue;
                }
                let mul = ctx.operands(op).iter().find_map(|&v| {
                    let def = ctx.defining_op(v)?;
                    (ctx.op_name(def) == "arith.mulf"
                        && self.plan.get(&def) == Some(&Class::Vector)
                        && ctx.uses(v).len() == 1
                        && ctx.op_block(def) == Some(block))
                    .then_some(def)
                });
                if let Some(mul) = mul {
                    self.plan.insert(mul, Class::Skip);
                    self.plan.insert(op, Class::Fma(mul));
                }
            }
        }
        Some(())
    }

    fn op(&mut self, op: Op) -> Option<Class> {
        let ctx = self.ctx;
        let name = ctx.op_name(op);
        let operands = ctx.operands(op);
        if operands
            .iter()
            .any(|v| self.col.contains(v) && !matches!(name, "arith.addi" | "loop.load"))
        {
            return None;
        }
        match name {
            "loop.yield" => Some(Class::Skip),
            "loop.load" => {
                let (&buffer, indices) = operands.split_first()?;
                if buffer == self.acc {
                    self.vector.insert(ctx.result(op, 0));
                    return Some(Class::AccLoad);
                }
                if indices.iter().any(|v| self.vector.contains(v)) {
                    return None;
                }
                self.reads.insert(buffer);
                let (last, rest) = indices.split_last()?;
                if rest.iter().any(|v| self.col.contains(v)) {
                    return None;
                }
                if !self.col.contains(last) {
                    return Some(Class::Scalar);
                }
                let fits = buffer_parts(ctx, ctx.value_type(buffer))
                    .and_then(|(dims, _, _)| dims.last().copied())
                    .is_some_and(|d| d < 0 || d >= self.width);
                if !fits {
                    return None;
                }
                self.vector.insert(ctx.result(op, 0));
                Some(Class::VLoad)
            }
            "loop.store" => {
                let &[value, buffer] = operands else {
                    return None;
                };
                (buffer == self.acc && ctx.value_type(value) != Type::INDEX)
                    .then_some(Class::AccStore)
            }
            "arith.addi" if operands.iter().any(|v| self.col.contains(v)) => {
                let &[a, b] = operands else {
                    return None;
                };
                // `j + x` with `x` independent of `j`.
                if (self.col.contains(&a) && self.col.contains(&b))
                    || self.vector.contains(&a)
                    || self.vector.contains(&b)
                {
                    return None;
                }
                self.col.insert(ctx.result(op, 0));
                Some(Class::ColIndex)
            }
            _ if (name.starts_with("arith.") || name.starts_with("math."))
                && ctx.regions(op).is_empty()
                && ctx.num_results(op) == 1 =>
            {
                let r = ctx.result(op, 0);
                if operands.iter().any(|v| self.vector.contains(v)) {
                    if !is_float(ctx, ctx.value_type(r)) {
                        return None;
                    }
                    self.vector.insert(r);
                    Some(Class::Vector)
                } else {
                    Some(Class::Scalar)
                }
            }
            _ => None,
        }
    }
}

impl Tile {
    /// Rewrites the nest; returns true when a path for the last rows was kept.
    fn rewrite(&self, ctx: &mut Context, nest: &Nest) -> bool {
        let loc = ctx.op_loc(nest.i_loop);
        let rows = self.rows;
        let hoist = hoist_point(ctx, nest.i_loop, &[nest.i.lb, nest.i.ub]);
        let trips = const_trip_count(ctx, &nest.i);
        let exact = trips.is_some_and(|t| t % rows == 0) && const_int(ctx, nest.i.lb).is_some();
        let blocks = match trips {
            Some(t) => index_const(ctx, hoist, (t + rows - 1) / rows, loc),
            None => {
                let zero = index_const(ctx, hoist, 0, loc);
                let diff = index_binary(ctx, hoist, "arith.subi", nest.i.ub, nest.i.lb, loc);
                let n = index_binary(ctx, hoist, "arith.maxsi", diff, zero, loc);
                let bump = index_const(ctx, hoist, rows - 1, loc);
                let up = index_binary(ctx, hoist, "arith.addi", n, bump, loc);
                let r = index_const(ctx, hoist, rows, loc);
                index_binary(ctx, hoist, "arith.divsi", up, r, loc)
            }
        };
        let at = InsertPoint::Before(nest.i_loop);
        let zero = index_const(ctx, at, 0, loc);
        let one = index_const(ctx, at, 1, loc);
        let (_, body, b) = build_for(ctx, at, (zero, blocks, one), LoopKind::Parallel, loc);
        let inside = before_terminator(ctx, body);
        let r = index_const(ctx, inside, rows, loc);
        let offset = index_binary(ctx, inside, "arith.muli", b, r, loc);
        let i0 = index_binary(ctx, inside, "arith.addi", nest.i.lb, offset, loc);
        if exact {
            self.tile_path(ctx, nest, inside, i0);
        } else {
            let i1 = index_binary(ctx, inside, "arith.addi", i0, r, loc);
            let cmp = build_cmpi(ctx, inside, CmpIPredicate::Sle, i1, nest.i.ub, loc);
            let full = ctx.result(cmp, 0);
            let (_, then_block, else_block) = build_if(ctx, inside, full, true, loc);
            let then_at = before_terminator(ctx, then_block);
            self.tile_path(ctx, nest, then_at, i0);
            if let Some(else_block) = else_block {
                let else_at = before_terminator(ctx, else_block);
                let step = index_const(ctx, else_at, 1, loc);
                let (_, rest, ii) =
                    build_for(ctx, else_at, (i0, nest.i.ub, step), LoopKind::Serial, loc);
                let mut map = ValueMap::new();
                map.map(nest.i.iv, ii);
                let copy = ctx.clone_op(nest.j_loop, &mut map);
                ctx.insert_op(before_terminator(ctx, rest), copy);
            }
        }
        ctx.erase_op(nest.i_loop);
        !exact
    }

    /// The tiled rows `i0 .. i0 + R`, built at `at`.
    fn tile_path(&self, ctx: &mut Context, nest: &Nest, at: InsertPoint, i0: Value) {
        let loc = ctx.op_loc(nest.j_loop);
        let cols = self.vectors * self.width;
        let end = whole_groups_end(ctx, at, &nest.j, 1, cols, loc);
        let step = index_const(ctx, at, cols, loc);
        let (_, jb_body, jb) = build_for(ctx, at, (nest.j.lb, end, step), LoopKind::Serial, loc);
        let inside = before_terminator(ctx, jb_body);
        let tile_ty = buffer_type(ctx, &[self.rows, cols], nest.elem, MemorySpace::Local);
        let tile = build_alloc(ctx, inside, tile_ty, &[], loc);
        let mut row_values = vec![i0];
        for r in 1..self.rows {
            let c = index_const(ctx, inside, r, loc);
            row_values.push(index_binary(ctx, inside, "arith.addi", i0, c, loc));
        }
        let splat_at = match ctx.defining_op(tile) {
            Some(op) => InsertPoint::Before(op),
            None => inside,
        };
        let mut emitter = Emitter {
            cfg: self,
            nest,
            tile_buf: tile,
            splat_at,
            rows: row_values,
            jb,
            loc,
        };
        // Init (the reduce iter var is 0 there), then the reduction over the tile.
        let k0 = index_const(ctx, inside, 0, loc);
        emitter.block(ctx, nest.init, k0, inside);
        let (_, k_body, k) = build_for(
            ctx,
            inside,
            (nest.k.lb, nest.k.ub, nest.k.step),
            LoopKind::Serial,
            loc,
        );
        let k_at = before_terminator(ctx, k_body);
        emitter.block(ctx, nest.body, k, k_at);
        self.write_back(ctx, nest, inside, tile, i0, jb);
        // The columns after the whole blocks, row by row.
        let covered = const_trip_count(ctx, &nest.j).is_some_and(|t| t % cols == 0)
            && const_int(ctx, nest.j.lb).is_some();
        if !covered {
            let zero = index_const(ctx, at, 0, loc);
            let rows = index_const(ctx, at, self.rows, loc);
            let one = index_const(ctx, at, 1, loc);
            let (_, r_body, r) = build_for(ctx, at, (zero, rows, one), LoopKind::Serial, loc);
            let r_at = before_terminator(ctx, r_body);
            let ii = index_binary(ctx, r_at, "arith.addi", i0, r, loc);
            let mut map = ValueMap::new();
            map.map(nest.i.iv, ii);
            let copy = ctx.clone_op(nest.j_loop, &mut map);
            ctx.insert_op(r_at, copy);
            ctx.set_operand(copy, 0, end);
        }
    }

    /// The epilogue for every element of the tile: `serial` loops over rows and columns that
    /// load the element into a fresh accumulator and run the original epilogue on it.
    fn write_back(
        &self,
        ctx: &mut Context,
        nest: &Nest,
        at: InsertPoint,
        tile: Value,
        i0: Value,
        jb: Value,
    ) {
        let loc = ctx.op_loc(nest.j_loop);
        let mut map = ValueMap::new();
        let acc = ctx.clone_op(nest.acc_alloc, &mut map);
        ctx.insert_op(at, acc);
        let zero = index_const(ctx, at, 0, loc);
        let one = index_const(ctx, at, 1, loc);
        let rows = index_const(ctx, at, self.rows, loc);
        let cols = index_const(ctx, at, self.vectors * self.width, loc);
        let (_, r_body, r) = build_for(ctx, at, (zero, rows, one), LoopKind::Serial, loc);
        let r_at = before_terminator(ctx, r_body);
        let ii = index_binary(ctx, r_at, "arith.addi", i0, r, loc);
        let (_, c_body, c) = build_for(ctx, r_at, (zero, cols, one), LoopKind::Serial, loc);
        let c_at = before_terminator(ctx, c_body);
        let jj = index_binary(ctx, c_at, "arith.addi", jb, c, loc);
        let value = build_load(ctx, c_at, tile, &[r, c], loc);
        let acc = ctx.result(acc, 0);
        build_store(ctx, c_at, value, acc, &[], loc);
        map.map(nest.acc, acc);
        map.map(nest.i.iv, ii);
        map.map(nest.j.iv, jj);
        for &op in &nest.epilogue {
            let copy = ctx.clone_op(op, &mut map);
            ctx.insert_op(c_at, copy);
        }
    }
}

/// Before the outermost loop around `op` (or `op` itself) outside which all of `values` are
/// defined, so that a parallel nest around `op` keeps a body of one loop.
fn hoist_point(ctx: &Context, op: Op, values: &[Value]) -> InsertPoint {
    let mut cur = op;
    while let Some(p) = ctx.parent_op(cur) {
        if ctx.op_name(p) != "loop.for" || values.iter().any(|&v| defined_inside(ctx, p, v)) {
            break;
        }
        cur = p;
    }
    InsertPoint::Before(cur)
}

/// Emits the schedule block's init or body unrolled over the tile.
struct Emitter<'n> {
    cfg: &'n Tile,
    nest: &'n Nest,
    /// The local tile buffer.
    tile_buf: Value,
    /// Where splat buffers are allocated (outside the reduction loop).
    splat_at: InsertPoint,
    /// The row index of each tile row.
    rows: Vec<Value>,
    /// The first column of the tile.
    jb: Value,
    loc: Location,
}

/// The values of one row (scalars) and one vector (vectors, column indices).
struct Maps {
    scalar: ValueMap,
    vector: FxHashMap<Value, Value>,
    /// Splats of scalars, shared by the vectors of a row.
    splats: FxHashMap<Value, Value>,
}

impl Maps {
    fn get(&self, v: Value) -> Value {
        self.vector
            .get(&v)
            .copied()
            .unwrap_or_else(|| self.scalar.lookup(v))
    }
}

impl Emitter<'_> {
    /// Emits `block` (init or body) at `at` for every row and vector, with the reduce iter var
    /// bound to `k`.
    fn block(&mut self, ctx: &mut Context, block: Block, k: Value, at: InsertPoint) {
        let nest = self.nest;
        let width = self.cfg.width;
        let ops: Vec<Op> = ctx.block_ops(block).collect();
        let args = ctx.block_args(block).to_vec();
        for r in 0..self.cfg.rows {
            let mut maps = Maps {
                scalar: ValueMap::new(),
                vector: FxHashMap::default(),
                splats: FxHashMap::default(),
            };
            let row = self.rows[r as usize];
            for (&arg, role) in args.iter().zip(&nest.roles) {
                match role {
                    Role::Row => maps.scalar.map(arg, row),
                    Role::Reduce => maps.scalar.map(arg, k),
                    Role::Fixed(v) => maps.scalar.map(arg, *v),
                    Role::Col => {}
                }
            }
            let row_index = index_const(ctx, at, r, self.loc);
            for v in 0..self.cfg.vectors {
                let col = if v == 0 {
                    self.jb
                } else {
                    let off = index_const(ctx, at, v * width, self.loc);
                    index_binary(ctx, at, "arith.addi", self.jb, off, self.loc)
                };
                maps.vector.clear();
                for (&arg, role) in args.iter().zip(&nest.roles) {
                    if matches!(role, Role::Col) {
                        maps.vector.insert(arg, col);
                    }
                }
                let tile_col = index_const(ctx, at, v * width, self.loc);
                for &op in &ops {
                    self.op(ctx, op, v, &mut maps, at, [row_index, tile_col]);
                }
            }
        }
    }

    /// Emits one op for row map `maps` and vector `v`; `tile_at` indexes the tile.
    fn op(
        &mut self,
        ctx: &mut Context,
        op: Op,
        v: i64,
        maps: &mut Maps,
        at: InsertPoint,
        tile_at: [Value; 2],
    ) {
        let loc = ctx.op_loc(op);
        let class = self.nest.plan.get(&op).copied().unwrap_or(Class::Skip);
        match class {
            Class::Skip => {}
            Class::Scalar => {
                if v == 0 {
                    let copy = ctx.clone_op(op, &mut maps.scalar);
                    ctx.insert_op(at, copy);
                }
            }
            Class::ColIndex => {
                let operands: Vec<Value> = ctx.operands(op).iter().map(|&x| maps.get(x)).collect();
                let spec = OpSpec::with_name(ctx.op_name_id(op), loc)
                    .operands(&operands)
                    .results(&[Type::INDEX]);
                let new = ctx.build(at, spec);
                maps.vector.insert(ctx.result(op, 0), ctx.result(new, 0));
            }
            Class::VLoad => {
                let operands: Vec<Value> = ctx.operands(op).iter().map(|&x| maps.get(x)).collect();
                let value = self.vload(ctx, op, &operands, at);
                maps.vector.insert(ctx.result(op, 0), value);
            }
            Class::AccLoad => {
                let value = self.vload(ctx, op, &[self.tile_buf, tile_at[0], tile_at[1]], at);
                maps.vector.insert(ctx.result(op, 0), value);
            }
            Class::AccStore => {
                let value = self.vector_of(ctx, ctx.operands(op)[0], maps, at);
                let spec = OpSpec::new(ctx, "loop.vstore", loc).operands(&[
                    value,
                    self.tile_buf,
                    tile_at[0],
                    tile_at[1],
                ]);
                ctx.build(at, spec);
            }
            Class::Vector => {
                let operands: Vec<Value> = ctx
                    .operands(op)
                    .to_vec()
                    .into_iter()
                    .map(|x| self.vector_of(ctx, x, maps, at))
                    .collect();
                let ty = self.vector_type(ctx, ctx.value_type(ctx.result(op, 0)));
                let mut spec = OpSpec::with_name(ctx.op_name_id(op), loc)
                    .operands(&operands)
                    .results(&[ty]);
                spec.attrs = ctx.attrs(op).to_vec();
                let new = ctx.build(at, spec);
                maps.vector.insert(ctx.result(op, 0), ctx.result(new, 0));
            }
            Class::Fma(mul) => {
                let product = ctx.result(mul, 0);
                let addend = ctx
                    .operands(op)
                    .iter()
                    .copied()
                    .find(|&x| x != product)
                    .unwrap_or(product);
                let mut factors = ctx.operands(mul).to_vec();
                factors.push(addend);
                let operands: Vec<Value> = factors
                    .into_iter()
                    .map(|x| self.vector_of(ctx, x, maps, at))
                    .collect();
                let ty = self.vector_type(ctx, ctx.value_type(ctx.result(op, 0)));
                let flags = fastmath_attr(ctx, FastMathFlags::empty());
                let spec = OpSpec::new(ctx, "math.fma", loc)
                    .operands(&operands)
                    .results(&[ty])
                    .attr(ctx, "fastmath", flags);
                let new = ctx.build(at, spec);
                maps.vector.insert(ctx.result(op, 0), ctx.result(new, 0));
            }
        }
    }

    fn vector_type(&self, ctx: &mut Context, elem: Type) -> Type {
        ctx.vector_type(&[self.cfg.width], elem)
    }

    /// A `loop.vload` of the element type of load `op`, from `operands` (buffer, indices).
    fn vload(&self, ctx: &mut Context, op: Op, operands: &[Value], at: InsertPoint) -> Value {
        let ty = self.vector_type(ctx, ctx.value_type(ctx.result(op, 0)));
        let spec = OpSpec::new(ctx, "loop.vload", ctx.op_loc(op))
            .operands(operands)
            .results(&[ty]);
        let new = ctx.build(at, spec);
        ctx.result(new, 0)
    }

    /// The vector of original value `v`: its vector form, or a splat of its scalar clone.
    fn vector_of(&self, ctx: &mut Context, v: Value, maps: &mut Maps, at: InsertPoint) -> Value {
        if let Some(&vec) = maps.vector.get(&v).or_else(|| maps.splats.get(&v)) {
            return vec;
        }
        let scalar = maps.scalar.lookup(v);
        let elem = ctx.value_type(scalar);
        let ty = self.vector_type(ctx, elem);
        let splat = if let Some(attr) = constant_splat(ctx, scalar, ty) {
            let spec = dlc_arith::constant_spec(ctx, attr, ty, self.loc);
            let op = ctx.build(at, spec);
            ctx.result(op, 0)
        } else {
            // No broadcast op: the scalar goes to every lane of a local buffer, read back as one
            // vector (LLVM turns this into a broadcast).
            let buf_ty = buffer_type(ctx, &[self.cfg.width], elem, MemorySpace::Local);
            let buf = build_alloc(ctx, self.splat_at, buf_ty, &[], self.loc);
            for lane in 0..self.cfg.width {
                let i = index_const(ctx, at, lane, self.loc);
                build_store(ctx, at, scalar, buf, &[i], self.loc);
            }
            let zero = index_const(ctx, at, 0, self.loc);
            let spec = OpSpec::new(ctx, "loop.vload", self.loc)
                .operands(&[buf, zero])
                .results(&[ty]);
            let op = ctx.build(at, spec);
            ctx.result(op, 0)
        };
        maps.splats.insert(v, splat);
        splat
    }
}
