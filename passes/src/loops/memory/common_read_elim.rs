//! Reads a global element that several schedule blocks of one loop body load only once, into
//! a register or a small local buffer, and lets the blocks read that instead.
//!
//! # Applies when
//! Fusion puts several consumers of one input in one kernel, and lowering gives each its own
//! schedule block, each loading the input again: softmax and layer_norm read `x` in the nests
//! of their max, sum and normalise steps, and two fused reductions over the same row read it
//! twice in one loop body. Global memory is the slow part of such kernels. A fused kernel with
//! several outputs stores between such reads; the reads stay valid when its arguments are
//! `loop.noalias`, as `lower` makes them. This is CINN's `eliminate_common_global_memory_read`,
//! without its quirks (it gives up on any `select` and matches buffers by name).
//!
//! # Changes to the IR
//! - Scope: each loop body, each branch of a `loop.if` (where `gpu-map` puts the work of a
//!   thread), and the kernel body, outermost first. Inside a scope, a load counts
//!   when it is a `loop.load` of a global buffer directly in the body of a schedule block that
//!   is in the scope or nested in it only through `serial`/`unroll` loops from 0 to a constant
//!   extent with step 1 (so it runs at every point of those loops, on every iteration of the
//!   scope).
//! - Its indices are read as index expressions with iter vars replaced by the values bound to
//!   them, and the induction variables of those inner loops renamed by position: two loads are
//!   the same read when buffer, expressions and the extents of the inner loops they use are
//!   equal (identity by value, not by names).
//! - A group of the same read qualifies when it spans at least two schedule blocks; the buffer
//!   is never stored in the kernel; the expressions use no loaded value (an indirect access)
//!   and only values defined before the group's first op in the scope; between that op and the
//!   group's last (inclusive) there is no `loop.barrier` and no store to a global buffer that
//!   may be the read buffer's memory: one of the same element type, unless both are kernel
//!   arguments and one is `loop.noalias` (without it a launch may pass one buffer for two
//!   arguments); and the cache, one
//!   element per point of the inner loops the indices use, has at most `max-local-elements`
//!   (default 8) elements.
//! - Before the group's first op: a `loop.alloc` of the cache (`!loop.buffer<f32, local>`, a
//!   register, when the indices use no inner loop; otherwise one dim per inner loop used), a
//!   nest of `serial` loops over those extents (none for a register), and in it a schedule
//!   block `<buf>_local` (`arg0_local` for kernel argument 0) that loads the global element and
//!   stores it to the cache. Each load of the group becomes a load of the cache at the inner
//!   loop indices (the block's iter var when it binds that index).
//!
//! The pass counts the loads removed (`loads-eliminated`: a group of n loads removes n - 1)
//! and the caches it created (`caches-created`).
//!
//! # Performance impact
//! Each element is read from global memory once per iteration of the scope instead of once
//! per block; a register cache costs nothing more.
//!
//! # Risks and limitations
//! - A local cache buffer (not a register) lives in thread-local memory when codegen cannot
//!   keep it in registers; `max-local-elements` keeps it small.
//! - Loads under a `loop.if`, in init regions, or behind parallel, vectorized or GPU-bound
//!   loops are not considered.
//! - Correctness across stores rests on `loop.noalias`: the verifier and the interpreter check
//!   launches against it, but an overlap they cannot see (views at dynamic offsets) is the
//!   producer's promise.
//!
//! # Examples
//! 1. Two reductions over one row read `x[%i, %k]` in one loop body:
//!    ```text
//!    loop.kernel @two_sums(%x: !loop.buffer<4x8xf32, global>, %o: !loop.buffer<4xf32, global>) {
//!      %c0 = arith.constant 0 : index
//!      %c1 = arith.constant 1 : index
//!      %c4 = arith.constant 4 : index
//!      %c8 = arith.constant 8 : index
//!      loop.for parallel %i = %c0 to %c4 step %c1 {
//!        %s = loop.alloc : !loop.buffer<f32, local>
//!        %m = loop.alloc : !loop.buffer<f32, local>
//!        loop.for serial %k = %c0 to %c8 step %c1 {
//!          loop.schedule_block "sum" (%i0 = %i, %k0 = %k reduce) {
//!            %v = loop.load %x[%i0, %k0] : !loop.buffer<4x8xf32, global>
//!            %a = loop.load %s[] : !loop.buffer<f32, local>
//!            %r = arith.addf %a, %v : f32
//!            loop.store %r, %s[] : !loop.buffer<f32, local>
//!          }
//!          loop.schedule_block "max" (%i0 = %i, %k0 = %k reduce) {
//!            %v = loop.load %x[%i0, %k0] : !loop.buffer<4x8xf32, global>
//!            %a = loop.load %m[] : !loop.buffer<f32, local>
//!            %r = arith.maximumf %a, %v : f32
//!            loop.store %r, %m[] : !loop.buffer<f32, local>
//!          }
//!        }
//!      }
//!      loop.return
//!    }
//!    ```
//!    becomes, with `max-local-elements=4` (the row has 8 elements, so the body of `%i` does
//!    not cache it; the body of `%k` gets a register)
//!    ```text
//!    loop.for serial %arg3 = %c0 to %c8 step %c1 {
//!      %2 = loop.alloc : !loop.buffer<f32, local>
//!      loop.schedule_block "arg0_local" (%arg4 = %arg2, %arg5 = %arg3) {
//!        %3 = loop.load %arg0[%arg4, %arg5] : !loop.buffer<4x8xf32, global>
//!        loop.store %3, %2[] : !loop.buffer<f32, local>
//!        loop.yield
//!      }
//!      loop.schedule_block "sum" (%arg4 = %arg2, %arg5 = %arg3 reduce) {
//!        %3 = loop.load %2[] : !loop.buffer<f32, local>
//!        %4 = loop.load %0[] : !loop.buffer<f32, local>
//!        %5 = arith.addf %4, %3 : f32
//!        loop.store %5, %0[] : !loop.buffer<f32, local>
//!        loop.yield
//!      }
//!      loop.schedule_block "max" (%arg4 = %arg2, %arg5 = %arg3 reduce) {
//!        %3 = loop.load %2[] : !loop.buffer<f32, local>
//!        ...
//!    ```
//!    With the default limit of 8 the body of `%i` instead gets `!loop.buffer<8xf32, local>`,
//!    filled by a new loop over 8 in front of the nest, and both blocks read it at `%k`.
//! 2. The same row read in two nests, `for k { A: x[i, k] } for j { B: x[i, j] }` with
//!    extent 8 each: the body of `%i` gets an `!loop.buffer<8xf32, local>` filled by a new
//!    nest in front of the first one, and `A` and `B` read it at their own index
//!    (test/passes/loops/common-read-elim.mlir, `@two_nests`).
//!
//! # Counter-examples
//! 1. A buffer the kernel also stores: the cached value could be stale.
//! 2. Reads with a store to a global buffer of the same element type between them, when the
//!    arguments are not `loop.noalias`: a launch may pass that buffer for the one read
//!    (test/passes/loops/common-read-elim.mlir, `@two_outputs_may_alias`; with the attribute,
//!    `@two_outputs` is cached).
//! 3. `x[%k + 1]` and `x[%k]`: different reads.

use super::rearrange_loads::defined_before;
use dlc_arith::build_index_constant;
use dlc_ir::pass::{Anchor, OptionKind, OptionSpec, OptionValues, Pass, PassInfo, PassRun};
use dlc_ir::{Block, Context, Diagnostic, InsertPoint, Op, Value};
use dlc_loop::analysis::access::{is_loaded, stored_buffer, substitute, Resolver};
use dlc_loop::analysis::effects::{has_barrier, stores_global};
use dlc_loop::analysis::loops::{const_range, loop_kind};
use dlc_loop::index_expr::erase_dead_index_ops;
use dlc_loop::index_expr::{Emitter, IndexExpr, Symbol};
use dlc_loop::KernelOp;
use dlc_loop::{
    before_terminator, buffer_parts, buffer_type, build_alloc, build_for, build_load,
    build_schedule_block, build_store, IterKind, LoadOp, LoopKind, LoopOps, MemorySpace,
};

/// The pass description.
pub static INFO: PassInfo = PassInfo {
    argument: "common-read-elim",
    summary: "Reads a global element that several schedule blocks of one loop body load only \
              once, into a register or a small local buffer, and lets the blocks read that \
              instead.",
    anchor: Anchor::op::<KernelOp>(),
    options: &[OptionSpec::new(
        "max-local-elements",
        OptionKind::Int,
        "8",
        "The most elements one cache buffer may have",
    )],
    statistics: &[
        (
            "loads-eliminated",
            "Number of global loads removed (a group of n loads read once removes n - 1)",
        ),
        (
            "caches-created",
            "Number of registers or local buffers created",
        ),
    ],
    create,
};

fn create(options: &OptionValues) -> Result<Box<dyn Pass>, String> {
    let max = options.int("max-local-elements");
    if max < 1 {
        return Err(format!(
            "option 'max-local-elements' must be >= 1, got {max}"
        ));
    }
    Ok(Box::new(CommonReadElim {
        max_local_elements: max,
    }))
}

struct CommonReadElim {
    /// The most elements of one cache buffer.
    max_local_elements: i64,
}

/// One candidate load, found from a scope.
struct Candidate {
    load: LoadOp,
    /// The op of the scope that contains the load.
    top: Op,
    /// The schedule block whose body holds the load.
    block: Op,
    /// The induction variables of the inner loops the indices use, outermost first.
    used_ivs: Vec<Value>,
}

/// What identifies one read: buffer, indices with the used inner induction variables renamed
/// `Free(0..)`, and the extents of those loops.
type ReadKey = (Value, Vec<IndexExpr>, Vec<i64>);

impl Pass for CommonReadElim {
    fn run(&self, ctx: &mut Context, run: &mut PassRun<'_>) -> Result<(), Diagnostic> {
        let kernel = run.op();
        let mut scopes = Vec::new();
        ctx.for_each_op(kernel, &mut |op| {
            let control_flow = matches!(
                LoopOps::of(ctx, op),
                Some(LoopOps::ForOp(_) | LoopOps::IfOp(_))
            );
            if op == kernel || control_flow {
                for r in ctx.regions(op) {
                    scopes.extend(ctx.blocks(*r).first().copied());
                }
            }
        });
        let stored = stored_buffers(ctx, kernel);
        let (mut eliminated, mut created) = (0, 0);
        let mut resolver = Resolver::new(ctx, kernel);
        for scope in scopes {
            let groups = self.groups(ctx, &resolver, scope, &stored);
            if groups.is_empty() {
                continue;
            }
            for (key, members) in groups {
                eliminated += members.len() as u64 - 1;
                created += 1;
                cache(ctx, &resolver, &key, &members)?;
            }
            // The fill blocks bind new iter vars: read the kernel again.
            resolver = Resolver::new(ctx, kernel);
        }
        run.add_stat("loads-eliminated", eliminated);
        run.add_stat("caches-created", created);
        if created == 0 {
            run.preserve_all();
        }
        Ok(())
    }
}

/// The buffers some op of `kernel` stores to.
fn stored_buffers(ctx: &Context, kernel: Op) -> Vec<Value> {
    let mut out = Vec::new();
    ctx.for_each_op(kernel, &mut |o| out.extend(stored_buffer(ctx, o)));
    out
}

impl CommonReadElim {
    /// The qualifying groups of one scope, in program order of their first load.
    fn groups(
        &self,
        ctx: &Context,
        resolver: &Resolver,
        scope: Block,
        stored: &[Value],
    ) -> Vec<(ReadKey, Vec<Candidate>)> {
        let mut found = Vec::new();
        for top in ctx.block_ops(scope) {
            collect(ctx, top, top, &mut Vec::new(), &mut found);
        }
        let mut groups: Vec<(ReadKey, Vec<Candidate>)> = Vec::new();
        for (load, top, block, chain) in found {
            let buffer = load.buffer(ctx);
            if stored.contains(&buffer) {
                continue;
            }
            let indices: Vec<IndexExpr> = load
                .indices(ctx)
                .iter()
                .map(|v| resolver.resolve(ctx, *v))
                .collect();
            let symbols: Vec<Symbol> = indices.iter().flat_map(|e| e.symbols()).collect();
            let used: Vec<(Value, i64)> = chain
                .iter()
                .filter(|(iv, _)| symbols.contains(&Symbol::Value(*iv)))
                .copied()
                .collect();
            let invariant = symbols.iter().all(|s| match s {
                Symbol::Value(v) => {
                    used.iter().any(|(iv, _)| iv == v)
                        || (!is_loaded(ctx, *v) && defined_before(ctx, *v, top))
                }
                Symbol::Free(_) => false,
            });
            if !invariant {
                continue;
            }
            let renamed: Vec<IndexExpr> = indices
                .iter()
                .map(|e| {
                    substitute(e, &|s| {
                        used.iter()
                            .position(|(iv, _)| Symbol::Value(*iv) == s)
                            .map(|u| IndexExpr::free(u as u32))
                    })
                })
                .collect();
            let extents: Vec<i64> = used.iter().map(|(_, e)| *e).collect();
            let key = (buffer, renamed, extents);
            let candidate = Candidate {
                load,
                top,
                block,
                used_ivs: used.iter().map(|(iv, _)| *iv).collect(),
            };
            match groups.iter_mut().find(|(k, _)| *k == key) {
                Some((_, members)) => members.push(candidate),
                None => groups.push((key, vec![candidate])),
            }
        }
        groups.retain(|(key, members)| self.qualifies(ctx, scope, key, members));
        groups
    }

    /// Whether a group of equal reads may share one cache.
    fn qualifies(&self, ctx: &Context, scope: Block, key: &ReadKey, members: &[Candidate]) -> bool {
        let (buffer, _, extents) = key;
        let mut blocks: Vec<Op> = members.iter().map(|m| m.block).collect();
        blocks.dedup();
        if blocks.len() < 2 {
            return false;
        }
        let mut size: i64 = 1;
        for e in extents {
            size = size.saturating_mul(*e);
        }
        if size > self.max_local_elements {
            return false;
        }
        // The window from the first member's op of the scope to the last one's.
        let first = members[0].top;
        let last = members[members.len() - 1].top;
        let mut inside = false;
        for op in ctx.block_ops(scope) {
            inside |= op == first;
            if inside && (has_barrier(ctx, op) || stores_global(ctx, op, *buffer)) {
                return false;
            }
            if op == last {
                break;
            }
        }
        true
    }
}

/// A load found under a scope: the load, the scope's op holding it, its schedule block, and
/// the loops between (induction variable, extent).
type Found = (LoadOp, Op, Op, Vec<(Value, i64)>);

/// Collects the candidate loads under `op`, an op of the scope (`top`) or nested in it through
/// the loops of `chain` (induction variable, extent).
fn collect(ctx: &Context, op: Op, top: Op, chain: &mut Vec<(Value, i64)>, out: &mut Vec<Found>) {
    match LoopOps::of(ctx, op) {
        Some(LoopOps::ScheduleBlockOp(_)) => {
            let Some(body) = ctx.regions(op).first().and_then(|r| ctx.blocks(*r).first()) else {
                return;
            };
            for o in ctx.block_ops(*body) {
                let well_formed = ctx.num_results(o) == 1 && !ctx.operands(o).is_empty();
                let Some(load) = ctx.view::<LoadOp>(o).filter(|_| well_formed) else {
                    continue;
                };
                if is_global(ctx, load.buffer(ctx)) {
                    out.push((load, top, op, chain.clone()));
                }
            }
        }
        Some(LoopOps::ForOp(_)) => {
            if !matches!(
                loop_kind(ctx, op),
                Some(LoopKind::Serial | LoopKind::Unroll(_))
            ) {
                return;
            }
            // Loops over `0..extent` by 1 only.
            let Some(extent) = const_range(ctx, op)
                .filter(|r| r.lb == 0 && r.step == 1 && r.extent > 0)
                .map(|r| r.extent)
            else {
                return;
            };
            let Some(&body) = ctx.regions(op).first().and_then(|r| ctx.blocks(*r).first()) else {
                return;
            };
            let Some(&iv) = ctx.block_args(body).first() else {
                return;
            };
            chain.push((iv, extent));
            for o in ctx.block_ops(body) {
                collect(ctx, o, top, chain, out);
            }
            chain.pop();
        }
        _ => {}
    }
}

fn is_global(ctx: &Context, buffer: Value) -> bool {
    matches!(
        buffer_parts(ctx, ctx.value_type(buffer)),
        Some((_, _, MemorySpace::Global))
    )
}

/// Builds the cache of one group before its first op and redirects the group's loads to it.
fn cache(
    ctx: &mut Context,
    resolver: &Resolver,
    key: &ReadKey,
    members: &[Candidate],
) -> Result<(), Diagnostic> {
    let (buffer, indices, extents) = key;
    let first = members[0].top;
    let loc = ctx.op_loc(members[0].load.0);
    let Some((_, elem, _)) = buffer_parts(ctx, ctx.value_type(*buffer)) else {
        return Ok(());
    };
    let cache_ty = buffer_type(ctx, extents, elem, MemorySpace::Local);
    let at = InsertPoint::Before(first);
    let local = build_alloc(ctx, at, cache_ty, &[], loc);
    // The fill nest: one serial loop per used inner loop.
    let mut fill_at = at;
    let mut ivs: Vec<Value> = Vec::new();
    if !extents.is_empty() {
        let c0 = index_constant(ctx, at, 0, loc);
        let c1 = index_constant(ctx, at, 1, loc);
        // All constants first: each loop goes inside the previous one, after them.
        let ubs: Vec<Value> = extents
            .iter()
            .map(|&e| index_constant(ctx, at, e, loc))
            .collect();
        for ce in ubs {
            let (_, body, iv) = build_for(ctx, fill_at, (c0, ce, c1), LoopKind::Serial, loc);
            fill_at = before_terminator(ctx, body);
            ivs.push(iv);
        }
    }
    // The block binds the fill loops' variables, then every other index value the indices
    // use (the scope's induction variables), so its body indexes through iter vars only.
    let mut outer: Vec<Value> = Vec::new();
    for e in indices {
        for s in e.symbols() {
            if let Symbol::Value(v) = s {
                if ctx.value_type(v) == dlc_ir::Type::INDEX && !outer.contains(&v) {
                    outer.push(v);
                }
            }
        }
    }
    let iters: Vec<(Value, IterKind)> = ivs
        .iter()
        .chain(&outer)
        .map(|v| (*v, IterKind::Spatial))
        .collect();
    let name = format!("{}_local", buffer_name(ctx, *buffer));
    let (_, sb_body, _) = build_schedule_block(ctx, fill_at, &name, &iters, false, loc);
    let iter_vars: Vec<Value> = ctx.block_args(sb_body).to_vec();
    let inner_at = before_terminator(ctx, sb_body);
    let mut bounds = resolver.bounds().clone();
    for (u, e) in extents.iter().enumerate() {
        if let Some(v) = iter_vars.get(u) {
            bounds.insert(Symbol::Value(*v), 0, e - 1);
        }
    }
    for (p, v) in outer.iter().enumerate() {
        if let (Some((lo, hi)), Some(arg)) = (
            resolver.bounds().get(Symbol::Value(*v)),
            iter_vars.get(extents.len() + p),
        ) {
            bounds.insert(Symbol::Value(*arg), lo, hi);
        }
    }
    let mut emitter = Emitter::new(inner_at, loc).with_bounds(bounds);
    let mut built = Vec::with_capacity(indices.len());
    for e in indices {
        let e = substitute(e, &|s| {
            let at = match s {
                Symbol::Free(u) => u as usize,
                Symbol::Value(v) => extents.len() + outer.iter().position(|o| *o == v)?,
            };
            iter_vars
                .get(at)
                .map(|v| IndexExpr::symbol(Symbol::Value(*v)))
        });
        built.push(emitter.emit(ctx, &e)?);
    }
    let v = build_load(ctx, inner_at, *buffer, &built, loc);
    build_store(ctx, inner_at, v, local, &iter_vars[..extents.len()], loc);
    // Redirect the loads.
    for m in members {
        let binding: Vec<(Value, Value)> = {
            let values = ctx.operands(m.block).to_vec();
            let args = ctx
                .regions(m.block)
                .first()
                .and_then(|r| ctx.blocks(*r).first())
                .map(|b| ctx.block_args(*b).to_vec())
                .unwrap_or_default();
            values.into_iter().zip(args).collect()
        };
        let cache_indices: Vec<Value> = m
            .used_ivs
            .iter()
            .map(|iv| {
                binding
                    .iter()
                    .find(|(value, _)| value == iv)
                    .map_or(*iv, |(_, arg)| *arg)
            })
            .collect();
        let old_indices: Vec<Value> = m.load.indices(ctx).to_vec();
        let new = build_load(
            ctx,
            InsertPoint::Before(m.load.0),
            local,
            &cache_indices,
            ctx.op_loc(m.load.0),
        );
        let old = m.load.result(ctx);
        ctx.replace_all_uses(old, new);
        ctx.erase_op(m.load.0);
        for v in old_indices {
            erase_dead_index_ops(ctx, v);
        }
    }
    Ok(())
}

fn index_constant(ctx: &mut Context, at: InsertPoint, value: i64, loc: dlc_ir::Location) -> Value {
    let op = build_index_constant(ctx, at, value, loc);
    ctx.result(op, 0)
}

/// A readable name for a buffer: `argN` for kernel argument N, else `buf`.
fn buffer_name(ctx: &Context, buffer: Value) -> String {
    match ctx.value_def(buffer) {
        dlc_ir::ValueDef::BlockArg { index, .. } => format!("arg{index}"),
        _ => "buf".to_string(),
    }
}
