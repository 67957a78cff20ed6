//! Turns reductions whose reduce axis is bound to GPU threads into warp and block reductions,
//! and expands every `loop.block_reduce` into warp shuffles and a shared-memory exchange.
//!
//! # Applies when
//! A GPU-bound kernel reduces along an axis bound to a `thread.*` loop (CINN's
//! `replace_cross_thread_reduction`): a `loop.for thread.x %k` whose body holds a schedule
//! block with a `reduce` iter var bound to `%k`, whose body is `acc = combine(acc, v)` with
//! `combine` one of `addf`/`addi`, `mulf`/`muli`, `maximumf`/`maxsi`, `minimumf`/`minsi`,
//! `andi`, `ori`, and `acc` a buffer element whose indices do not depend on `%k`. Written this
//! way, every thread adds its element into `acc` in turn, which on a GPU is a data race; row
//! reductions (softmax, norms, sums) scheduled with one row per block take this shape. The loop
//! must give each thread exactly one iteration: its extent is the block size along its axis, the
//! other block axes are 1, and it is reached by all threads (no enclosing `loop.if`). Its extent
//! must be at most 1024, the most threads a CUDA block has (CINN declines larger thread extents
//! too).
//! Separately, every `loop.block_reduce` (made here, or emitted by `gpu-map`) is expanded.
//!
//! # Changes to the IR
//! - Matched reduction, by extent `E` of the thread loop (the block's `reduce_method` is set to
//!   the method used; a block already marked `discrete` is left alone):
//!   `none` (`E = 1`, the loop starts at 0 and the init region stores the combine's identity to
//!   `acc`): the body stores `v` directly. `warp` (`E <= 32`) / `block` (`E > 32`): `v` goes
//!   through `loop.warp_reduce` / `loop.block_reduce`; for a `global` or `shared` `acc` only the
//!   thread with `%k = lb` loads, combines and stores (`loop.if`), followed by a `loop.barrier`
//!   so that the block sees the result before reading it; for a `local` `acc` (lb 0,
//!   one reduce iter var) every thread combines into its own copy, and the threads other than
//!   thread 0 first run a copy of the init region, so each copy holds the whole reduction.
//! - Every `loop.block_reduce %v` (option `expand-block-reduce`, default true) becomes: when the
//!   block is known to have at most 32 threads, one `loop.warp_reduce`; otherwise a
//!   `loop.warp_reduce` per warp, lane 0 of each warp stores its partial to a `shared` buffer
//!   of one slot per warp plus one for the total (one `loop.alloc` per element type at the top
//!   of the kernel, CINN's `shm32_<dtype>_reduce`: `ceil(threads / 32)` slots for a static
//!   block, at most 32 since a block has at most 1024 threads, and 32 for a block sized at
//!   launch), `loop.barrier`, warp 0 reads the partials (lanes beyond the number of warps read
//!   slot 0 and take the identity instead), warp-reduces them and lane 0 stores the total to
//!   the last slot (not slot 0, which other lanes may still be reading: a shuffle orders no
//!   memory), `loop.barrier`, every thread reads the total, and a last `loop.barrier` keeps the next reduction from
//!   overwriting the buffer before everyone has read it. The barriers are in the block_reduce's
//!   own (uniform) control flow, never inside a `loop.if`. A `loop.block_reduce` in a static
//!   block of more than 1024 threads is left alone: no device launches that block, and code
//!   generation refuses the kernel.
//!
//! The pass counts the reductions replaced, the block reductions expanded and the reductions
//! left alone because their thread loop has more than 1024 iterations.
//!
//! # Performance impact
//! Replaces a serialized (and, on a real GPU, racy) read-modify-write of one element by all
//! threads with a log-depth shuffle tree: 5 shuffle steps per warp plus two barriers per block.
//!
//! # Risks and limitations
//! - Floating-point results are reassociated (tree order instead of thread order), which changes
//!   the last bits.
//! - The block shape must be static (constant `block` attribute or constant `thread.*` extents)
//!   for the pattern; a thread loop over more iterations than threads is left alone.
//! - The body must be straight-line: loads and pure ops computing `v`, then the combine; no
//!   other stores and no other reads of `acc`.
//! - A `loop.block_reduce` is expanded where it stands: like the op itself, its barriers must
//!   be reached by every thread of the block, so it must not sit in a divergent `loop.if`.
//! - Only thread 0 writes a `global`/`shared` `acc`; the barrier after the write orders it
//!   within the block, not across blocks.
//! - `discrete` reductions (CINN's `DiscreteReduce`) are not produced.
//! - A warp may have fewer than 32 threads (a block of 16, or a last warp of 8 in a block of
//!   40): `loop.warp_reduce` combines over the lanes that exist, and code generation shuffles
//!   among exactly those (docs/codegen.md, GPU), so no lanes are padded here.
//!
//! # Examples
//! 1. A row sum with one row per block and 64 threads:
//!    ```text
//!    loop.kernel @row_sum(%x: !loop.buffer<4x64xf32, global>, %out: !loop.buffer<4xf32, global>) {
//!      %c0 = arith.constant 0 : index
//!      %c1 = arith.constant 1 : index
//!      %c4 = arith.constant 4 : index
//!      %c64 = arith.constant 64 : index
//!      loop.for block.x %row = %c0 to %c4 step %c1 {
//!        loop.for thread.x %k = %c0 to %c64 step %c1 {
//!          loop.schedule_block "row_sum" (%i = %row, %kk = %k reduce) init {
//!            %zero = arith.constant 0.0 : f32
//!            loop.store %zero, %out[%i] : !loop.buffer<4xf32, global>
//!          } {
//!            %v = loop.load %x[%i, %kk] : !loop.buffer<4x64xf32, global>
//!            %a = loop.load %out[%i] : !loop.buffer<4xf32, global>
//!            %s = arith.addf %a, %v : f32
//!            loop.store %s, %out[%i] : !loop.buffer<4xf32, global>
//!          }
//!        }
//!      }
//!      loop.return
//!    }
//!    ```
//!    becomes (with `expand-block-reduce=false`)
//!    ```text
//!    loop.schedule_block "row_sum" (%arg4 = %arg2, %arg5 = %arg3 reduce) attributes {reduce_method = "block"} init {
//!      ...
//!    } {
//!      %0 = loop.load %arg0[%arg4, %arg5] : !loop.buffer<4x64xf32, global>
//!      %1 = loop.block_reduce %0 {kind = "add"} : f32
//!      %c0_0 = arith.constant 0 : index
//!      %2 = arith.cmpi eq, %arg5, %c0_0 : index
//!      loop.if %2 {
//!        %3 = loop.load %arg1[%arg4] : !loop.buffer<4xf32, global>
//!        %4 = arith.addf %3, %1 : f32
//!        loop.store %4, %arg1[%arg4] : !loop.buffer<4xf32, global>
//!      }
//!      loop.barrier
//!    }
//!    ```
//!    and with the default options the `loop.block_reduce` is expanded into a
//!    `loop.warp_reduce`, a store of lane 0's partial to `%shm[warp]` (a
//!    `!loop.buffer<2xf32, shared>`, one slot per warp, allocated at the top of the kernel),
//!    barriers, and the second-level `loop.warp_reduce` in warp 0.
//! 2. A warp reduction: the same kernel with 32 threads and `arith.maximumf` uses
//!    `loop.warp_reduce %0 {kind = "max"}` and `reduce_method = "warp"`; nothing touches shared
//!    memory.
//!
//! # Counter-examples
//! 1. `loop.for thread.x %k = %c0 to %n step %c1` with a symbolic `%n`: the number of threads is
//!    unknown, so the pass cannot tell that each thread runs one iteration; it is left alone.
//! 2. A body that stores to another buffer besides `acc`: replacing the reduction would still
//!    run that store in every thread but with different timing; it is left alone.
//! 3. `loop.for thread.x %k = %c0 to %c2048 step %c1`: no block has 2048 threads, so no block
//!    reduction covers the loop; it is left alone (counted in `reductions-too-wide`), and the
//!    kernel, still needing a block of 2048 threads, is refused by code generation.

use dlc_arith::{
    build_cmpi, build_index_constant, build_op, build_select, CmpIPredicate, ConstantOp,
};
use dlc_ir::pass::{Anchor, OptionKind, OptionSpec, OptionValues, Pass, PassInfo, PassRun};
use dlc_ir::{
    Block, Context, Diagnostic, EffectKind, InsertPoint, Op, OpSpec, Type, Value, ValueMap,
};
use dlc_loop::analysis::kernel::static_block_dims;
use dlc_loop::analysis::loops::{const_range, loop_kind, ConstRange};
use dlc_loop::index_expr::{from_ir, Symbol};
use dlc_loop::{
    before_terminator, buffer_parts, buffer_type, build_alloc, build_barrier, build_if, build_load,
    build_store, is_gpu_kernel, BlockReduceOp, ForOp, IterKind, KernelOp, LoadOp, LoopKind,
    LoopOps, MemorySpace, ReduceKind, ReduceMethod, ScheduleBlockOp, StoreOp, YieldOp,
    MAX_BLOCK_THREADS,
};
use rustc_hash::FxHashMap;

/// Threads per warp.
const WARP: i64 = 32;
/// The most warps a block may have.
const MAX_WARPS: i64 = MAX_BLOCK_THREADS / WARP;

/// The pass description.
pub static INFO: PassInfo = PassInfo {
    argument: "cross-thread-reduce",
    summary: "Turns reductions whose reduce axis is bound to GPU threads into warp and block \
              reductions, and expands every `loop.block_reduce` into warp shuffles and a \
              shared-memory exchange.",
    anchor: Anchor::op::<KernelOp>(),
    options: &[OptionSpec::new(
        "expand-block-reduce",
        OptionKind::Bool,
        "true",
        "Expand loop.block_reduce into warp reductions, shared memory and barriers",
    )],
    statistics: &[
        (
            "reductions-replaced",
            "Thread-bound reductions replaced by warp/block reductions",
        ),
        (
            "block-reduces-expanded",
            "loop.block_reduce ops expanded into warp reductions and shared memory",
        ),
        (
            "reductions-too-wide",
            "Thread-bound reductions left alone: their thread loop exceeds a block's 1024 threads",
        ),
    ],
    create,
};

fn create(options: &OptionValues) -> Result<Box<dyn Pass>, String> {
    Ok(Box::new(CrossThreadReduce {
        expand: options.bool("expand-block-reduce"),
    }))
}

struct CrossThreadReduce {
    /// Expand `loop.block_reduce` (else leave it for a later lowering).
    expand: bool,
}

impl Pass for CrossThreadReduce {
    fn run(&self, ctx: &mut Context, run: &mut PassRun<'_>) -> Result<(), Diagnostic> {
        let kernel = run.op();
        if !is_gpu_kernel(ctx, kernel) {
            run.preserve_all();
            return Ok(());
        }
        let dims = static_block_dims(ctx, kernel);
        let mut blocks = Vec::new();
        ctx.for_each_op(kernel, &mut |op| {
            if ctx.view::<ScheduleBlockOp>(op).is_some() {
                blocks.push(op);
            }
        });
        let (mut replaced, mut too_wide) = (0, 0);
        for block in blocks {
            match match_reduction(ctx, block, dims) {
                Some(Match::Replace(m)) => {
                    rewrite_reduction(ctx, &m);
                    replaced += 1;
                }
                Some(Match::TooWide) => too_wide += 1,
                None => {}
            }
        }
        let mut expanded = 0;
        if self.expand {
            let mut reduces = Vec::new();
            ctx.for_each_op(kernel, &mut |op| {
                if ctx.view::<BlockReduceOp>(op).is_some() {
                    reduces.push(op);
                }
            });
            let mut shm = FxHashMap::default();
            for op in reduces {
                if expand_block_reduce(ctx, kernel, op, dims, &mut shm) {
                    expanded += 1;
                }
            }
        }
        run.add_stat("reductions-replaced", replaced);
        run.add_stat("block-reduces-expanded", expanded);
        run.add_stat("reductions-too-wide", too_wide);
        if replaced + expanded == 0 {
            run.preserve_all();
        }
        Ok(())
    }
}

/// A matched thread-bound reduction `acc = combine(acc, v)`.
struct Reduction {
    /// The schedule block.
    block: Op,
    /// Its body.
    body: Block,
    /// The body's iter var bound to the thread loop's induction variable.
    k: Value,
    /// The thread loop's lower bound.
    lb: i64,
    load: Op,
    combine: Op,
    store: Op,
    /// The per-thread value.
    value: Value,
    kind: ReduceKind,
    method: ReduceMethod,
    /// `acc` is thread-private.
    local: bool,
}

/// A schedule block that has the thread-bound reduction pattern.
enum Match {
    /// It can be replaced.
    Replace(Reduction),
    /// Its thread loop has more iterations than a block may have threads
    /// ([`MAX_BLOCK_THREADS`]): no block reduction can cover it (CINN declines it too).
    TooWide,
}

/// Matches `block` against the thread-bound reduction pattern.
fn match_reduction(ctx: &Context, block: Op, dims: Option<[i64; 3]>) -> Option<Match> {
    let sb = ctx.view::<ScheduleBlockOp>(block)?;
    if sb.method(ctx) == ReduceMethod::Discrete {
        return None;
    }
    let thread_loop = ctx.parent_op(block)?;
    let Some(LoopKind::Thread(axis)) = loop_kind(ctx, thread_loop) else {
        return None;
    };
    let ConstRange { lb, extent, .. } = const_range(ctx, thread_loop)?;
    let method = match extent {
        1 => ReduceMethod::None,
        2..=32 => ReduceMethod::Warp,
        _ => ReduceMethod::Block,
    };
    if method != ReduceMethod::None {
        let dims = dims?;
        let others: i64 = (0..3)
            .filter(|&d| d != axis.index())
            .map(|d| dims[d])
            .product();
        if dims[axis.index()] != extent || others != 1 {
            return None;
        }
    }
    // Every thread must reach the loop: only loops and schedule blocks above it.
    let mut cur = ctx.parent_op(thread_loop);
    while let Some(p) = cur {
        match LoopOps::of(ctx, p) {
            Some(LoopOps::KernelOp(_)) => break,
            Some(LoopOps::ScheduleBlockOp(_)) => {}
            Some(LoopOps::ForOp(_)) if !matches!(loop_kind(ctx, p), Some(LoopKind::Thread(_))) => {}
            _ => return None,
        }
        cur = ctx.parent_op(p);
    }
    let iv = ctx.view::<ForOp>(thread_loop)?.induction_var(ctx)?;
    let kinds = sb.iter_kind_list(ctx);
    let values = sb.iter_values(ctx);
    let pos = values.iter().position(|&v| v == iv)?;
    if kinds.get(pos) != Some(&IterKind::Reduce) {
        return None;
    }
    let reduce_count = kinds.iter().filter(|k| **k == IterKind::Reduce).count();
    let body = sb.body(ctx)?;
    let k = *ctx.block_args(body).get(pos)?;

    // The body: straight-line, ending in `store combine(load acc, v), acc[idx]`.
    let ops = body_ops(ctx, body);
    let store_op = ctx.view::<StoreOp>(*ops.last()?)?;
    let store = store_op.0;
    let (c, acc) = (store_op.value(ctx), store_op.buffer(ctx));
    let idx = store_op.indices(ctx).to_vec();
    let combine = ctx.defining_op(c)?;
    let kind = ReduceKind::of_combiner(ctx, combine)?;
    if ctx.op_block(combine) != Some(body) || ctx.uses(c).len() != 1 {
        return None;
    }
    let (lhs, rhs) = match ctx.operands(combine) {
        [l, r] => (*l, *r),
        _ => return None,
    };
    let is_acc_load = |v: Value| {
        ctx.defining_op(v).filter(|&l| {
            ctx.view::<LoadOp>(l)
                .is_some_and(|load| load.buffer(ctx) == acc && load.indices(ctx) == idx)
                && ctx.op_block(l) == Some(body)
                && ctx.uses(v).len() == 1
        })
    };
    let (load, value) = match (is_acc_load(lhs), is_acc_load(rhs)) {
        (Some(l), _) => (l, rhs),
        (None, Some(l)) => (l, lhs),
        _ => return None,
    };
    // Nothing else writes or allocates memory (a barrier counts as a write), is a warp or
    // block collective, reads `acc` or has regions.
    for &o in &ops {
        if o == store || o == load || o == combine {
            continue;
        }
        let only_reads = ctx
            .memory_effects(o)
            .is_some_and(|effects| effects.iter().all(|e| e.kind == EffectKind::Read));
        let collective = matches!(
            LoopOps::of(ctx, o),
            Some(LoopOps::WarpReduceOp(_) | LoopOps::BlockReduceOp(_))
        );
        if !ctx.regions(o).is_empty() || !only_reads || collective || ctx.operands(o).contains(&acc)
        {
            return None;
        }
    }
    // `acc`'s element must be the same in every thread.
    for &i in &idx {
        let syms = from_ir(ctx, i).symbols();
        if i == k
            || i == iv
            || syms.contains(&Symbol::Value(k))
            || syms.contains(&Symbol::Value(iv))
        {
            return None;
        }
    }
    let (_, _, space) = buffer_parts(ctx, ctx.value_type(acc))?;
    let local = space == MemorySpace::Local;
    if local && method != ReduceMethod::None && (lb != 0 || reduce_count != 1) {
        return None;
    }
    if method == ReduceMethod::None
        && (lb != 0 || !init_stores_identity(ctx, block, &sb, body, kind, acc, &idx))
    {
        return None;
    }
    if extent > MAX_BLOCK_THREADS {
        return Some(Match::TooWide);
    }
    Some(Match::Replace(Reduction {
        block,
        body,
        k,
        lb,
        load,
        combine,
        store,
        value,
        kind,
        method,
        local,
    }))
}

/// True when the init region is `store identity, acc[idx]` (the body's indices, read through
/// the init block's own iter vars).
fn init_stores_identity(
    ctx: &Context,
    _block: Op,
    sb: &ScheduleBlockOp,
    body: Block,
    kind: ReduceKind,
    acc: Value,
    idx: &[Value],
) -> bool {
    let Some(init) = sb.init_block(ctx) else {
        return false;
    };
    let ops = body_ops(ctx, init);
    let [cst, store] = ops[..] else {
        return false;
    };
    let (Some(cst), Some(store)) = (ctx.view::<ConstantOp>(cst), ctx.view::<StoreOp>(store)) else {
        return false;
    };
    let stored = store.value(ctx);
    if store.indices(ctx).len() != idx.len()
        || stored != cst.result(ctx)
        || store.buffer(ctx) != acc
    {
        return false;
    }
    let (body_args, init_args) = (ctx.block_args(body), ctx.block_args(init));
    let same_index = store.indices(ctx).iter().zip(idx).all(|(&a, &b)| {
        a == b
            || init_args
                .iter()
                .position(|&x| x == a)
                .is_some_and(|p| body_args.get(p) == Some(&b))
    });
    let Some(value) = cst.value(ctx) else {
        return false;
    };
    same_index && kind.is_identity_attr(ctx, value, ctx.value_type(stored))
}

/// The ops of `block` but its `loop.yield`.
fn body_ops(ctx: &Context, block: Block) -> Vec<Op> {
    ctx.block_ops(block)
        .filter(|&o| ctx.view::<YieldOp>(o).is_none())
        .collect()
}

/// Builds `loop.warp_reduce` / `loop.block_reduce` of `v`.
fn build_reduce(
    ctx: &mut Context,
    at: InsertPoint,
    name: &str,
    v: Value,
    kind: ReduceKind,
    loc: dlc_ir::Location,
) -> Value {
    let ty = ctx.value_type(v);
    let kind = ctx.string_attr(kind.name());
    let spec = OpSpec::new(ctx, name, loc)
        .operands(&[v])
        .attr(ctx, "kind", kind)
        .results(&[ty]);
    let op = ctx.build(at, spec);
    ctx.result(op, 0)
}

/// Rewrites a matched reduction (see the module docs).
fn rewrite_reduction(ctx: &mut Context, m: &Reduction) {
    let loc = ctx.op_loc(m.combine);
    let method = ctx.string_attr(m.method.name());
    ctx.set_attr(m.block, "reduce_method", method);
    if m.method == ReduceMethod::None {
        // The init stored the identity: acc = v.
        ctx.set_operand(m.store, 0, m.value);
        ctx.erase_op(m.combine);
        ctx.erase_op(m.load);
        return;
    }
    let name = if m.method == ReduceMethod::Warp {
        "loop.warp_reduce"
    } else {
        "loop.block_reduce"
    };
    let r = build_reduce(
        ctx,
        InsertPoint::Before(m.combine),
        name,
        m.value,
        m.kind,
        loc,
    );
    let value_pos = ctx
        .operands(m.combine)
        .iter()
        .position(|&v| v == m.value)
        .unwrap_or(1);
    ctx.set_operand(m.combine, value_pos, r);
    ctx.move_op(m.load, InsertPoint::Before(m.combine));
    let lb = {
        let o = build_index_constant(ctx, InsertPoint::Before(m.load), m.lb, loc);
        ctx.result(o, 0)
    };
    if m.local {
        // Threads other than the first run the init on their own copy of `acc` first.
        let sb = ScheduleBlockOp(m.block);
        if let Some(init) = sb.init_block(ctx) {
            let ne = {
                let o = build_cmpi(
                    ctx,
                    InsertPoint::Before(m.load),
                    CmpIPredicate::Ne,
                    m.k,
                    lb,
                    loc,
                );
                ctx.result(o, 0)
            };
            let (_, then_block, _) = build_if(ctx, InsertPoint::Before(m.load), ne, false, loc);
            let mut map = ValueMap::new();
            for (a, b) in ctx
                .block_args(init)
                .to_vec()
                .into_iter()
                .zip(ctx.block_args(m.body).to_vec())
            {
                map.map(a, b);
            }
            for o in body_ops(ctx, init) {
                let clone = ctx.clone_op(o, &mut map);
                let at = before_terminator(ctx, then_block);
                ctx.insert_op(at, clone);
            }
        }
        return;
    }
    // One thread combines the total into the element all threads see; a barrier makes it
    // visible to the block before anyone reads it.
    let eq = {
        let o = build_cmpi(
            ctx,
            InsertPoint::Before(m.load),
            CmpIPredicate::Eq,
            m.k,
            lb,
            loc,
        );
        ctx.result(o, 0)
    };
    let (guard, then_block, _) = build_if(ctx, InsertPoint::Before(m.load), eq, false, loc);
    for op in [m.load, m.combine, m.store] {
        let at = before_terminator(ctx, then_block);
        ctx.move_op(op, at);
    }
    build_barrier(ctx, InsertPoint::After(guard.0), loc);
}

/// Expands one `loop.block_reduce`; false when it is left alone (a type without an identity).
fn expand_block_reduce(
    ctx: &mut Context,
    kernel: Op,
    op: Op,
    dims: Option<[i64; 3]>,
    shm: &mut FxHashMap<Type, Value>,
) -> bool {
    let (Some(kind), [v]) = (dlc_loop::reduce_kind(ctx, op), ctx.operands(op)) else {
        return false;
    };
    let v = *v;
    if ctx.num_results(op) != 1 {
        return false;
    }
    let loc = ctx.op_loc(op);
    let ty = ctx.value_type(v);
    let at = InsertPoint::Before(op);
    let threads = dims.map(|d| d.iter().product::<i64>());
    if threads.is_some_and(|n| n <= WARP) {
        let w = build_reduce(ctx, at, "loop.warp_reduce", v, kind, loc);
        ctx.replace_all_uses(ctx.result(op, 0), w);
        ctx.erase_op(op);
        return true;
    }
    // A static block over the limit cannot be launched (code generation reports it); any
    // block that can has at most `MAX_WARPS` warps, one shared slot each. A symbolic block gets
    // `MAX_WARPS` slots, of which its launch uses the first ceil(threads / 32).
    if threads.is_some_and(|n| n > MAX_BLOCK_THREADS) {
        return false;
    }
    let slots = threads.map_or(MAX_WARPS, |n| (n + WARP - 1) / WARP);
    let Some(identity) = kind.identity_attr(ctx, ty) else {
        return false;
    };
    let Some(entry) = ctx
        .regions(kernel)
        .first()
        .and_then(|&r| ctx.blocks(r).first().copied())
    else {
        return false;
    };
    let buf = match shm.get(&ty) {
        Some(b) => *b,
        None => {
            // One slot per warp, and one more for the total (see below).
            let bty = buffer_type(ctx, &[slots + 1], ty, MemorySpace::Shared);
            let b = build_alloc(ctx, InsertPoint::Start(entry), bty, &[], loc);
            shm.insert(ty, b);
            b
        }
    };
    let idx = |ctx: &mut Context, n: i64| {
        let o = build_index_constant(ctx, at, n, loc);
        ctx.result(o, 0)
    };
    let binop = |ctx: &mut Context, name: &str, a: Value, b: Value| {
        let ty = ctx.value_type(a);
        {
            let o = build_op(ctx, at, name, &[a, b], ty, loc);
            ctx.result(o, 0)
        }
    };
    let gpu = |ctx: &mut Context, name: &str, dim: &str| {
        let d = ctx.string_attr(dim);
        let spec = OpSpec::new(ctx, name, loc)
            .attr(ctx, "dim", d)
            .results(&[Type::INDEX]);
        let o = ctx.build(at, spec);
        ctx.result(o, 0)
    };
    let w = build_reduce(ctx, at, "loop.warp_reduce", v, kind, loc);
    let (c0, c32, total_slot) = (idx(ctx, 0), idx(ctx, WARP), idx(ctx, slots));
    // tid = tx + bx * (ty + by * tz); warps = ceil(bx * by * bz / 32), the number of partial
    // slots (and the index of the total's) when the block shape is static. A one-dimensional block needs only thread_id x.
    let tx = gpu(ctx, "loop.thread_id", "x");
    let (tid, warps) = match dims {
        Some([_, 1, 1]) => (tx, total_slot),
        _ => {
            let (ty_, tz) = (
                gpu(ctx, "loop.thread_id", "y"),
                gpu(ctx, "loop.thread_id", "z"),
            );
            let (bx, by, bz) = match dims {
                Some([x, y, z]) => (idx(ctx, x), idx(ctx, y), idx(ctx, z)),
                None => (
                    gpu(ctx, "loop.block_dim", "x"),
                    gpu(ctx, "loop.block_dim", "y"),
                    gpu(ctx, "loop.block_dim", "z"),
                ),
            };
            let t = binop(ctx, "arith.muli", by, tz);
            let t = binop(ctx, "arith.addi", ty_, t);
            let t = binop(ctx, "arith.muli", bx, t);
            let tid = binop(ctx, "arith.addi", tx, t);
            let warps = if dims.is_some() {
                total_slot
            } else {
                let n = binop(ctx, "arith.muli", bx, by);
                let n = binop(ctx, "arith.muli", n, bz);
                let c31 = idx(ctx, WARP - 1);
                let n = binop(ctx, "arith.addi", n, c31);
                binop(ctx, "arith.divui", n, c32)
            };
            (tid, warps)
        }
    };
    let lane = binop(ctx, "arith.remui", tid, c32);
    let warp = binop(ctx, "arith.divui", tid, c32);
    let is_lane0 = {
        let o = build_cmpi(ctx, at, CmpIPredicate::Eq, lane, c0, loc);
        ctx.result(o, 0)
    };
    let (_, then1, _) = build_if(ctx, at, is_lane0, false, loc);
    let at1 = before_terminator(ctx, then1);
    build_store(ctx, at1, w, buf, &[warp], loc);
    build_barrier(ctx, at, loc);
    let is_warp0 = {
        let o = build_cmpi(ctx, at, CmpIPredicate::Eq, warp, c0, loc);
        ctx.result(o, 0)
    };
    let (_, then2, _) = build_if(ctx, at, is_warp0, false, loc);
    let at2 = before_terminator(ctx, then2);
    // Lane `l` takes warp `l`'s partial for `l < warps` and the identity beyond: the load reads
    // slot 0 there, so it stays inside the `warps`-slot buffer.
    let has = {
        let o = build_cmpi(ctx, at2, CmpIPredicate::Ult, lane, warps, loc);
        ctx.result(o, 0)
    };
    let slot = {
        let o = build_select(ctx, at2, has, lane, c0, loc);
        ctx.result(o, 0)
    };
    let partial = build_load(ctx, at2, buf, &[slot], loc);
    let id = {
        let o = dlc_arith::build_constant(ctx, at2, identity, ty, loc);
        ctx.result(o, 0)
    };
    let p = {
        let o = build_select(ctx, at2, has, partial, id, loc);
        ctx.result(o, 0)
    };
    let total = build_reduce(ctx, at2, "loop.warp_reduce", p, kind, loc);
    let (_, then3, _) = build_if(ctx, at2, is_lane0, false, loc);
    let at3 = before_terminator(ctx, then3);
    // The total goes to the slot after the partials: lanes of warp 0 may still be reading
    // slot 0 in this barrier interval (their shuffle orders no memory).
    build_store(ctx, at3, total, buf, &[total_slot], loc);
    build_barrier(ctx, at, loc);
    let r = build_load(ctx, at, buf, &[total_slot], loc);
    build_barrier(ctx, at, loc);
    ctx.replace_all_uses(ctx.result(op, 0), r);
    ctx.erase_op(op);
    true
}
