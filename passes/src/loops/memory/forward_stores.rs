//! Forwards a value stored to a kernel-local buffer to the loads that read it back in the same
//! block, then drops the stores and buffers nothing reads any more.
//!
//! # Applies when
//! `lower` gives every op of a fused kernel its own schedule block, and the blocks pass each
//! intermediate value through a register buffer (`!loop.buffer<f32, local>`): a store in one
//! block, a load in the next. `vectorize` widens those registers to one vector each, and once
//! `remove-schedule-block` has dissolved the blocks, the store and the load stand side by side
//! in one loop body (`loop.vstore %v, %r[%c0]` then `loop.vload %r[%c0]`). Every fused
//! elementwise chain has them: ppocr_det's kernels held 1,300 such vector registers and 500
//! scalar ones. The code generator turns each into a stack slot that LLVM's SROA promotes back
//! into a register, and LLVM's time grows with every instruction it is given. This is MLIR's
//! `affine-scalrep` for kernel-local buffers.
//!
//! # Changes to the IR
//! - Candidates: the `loop.alloc`s of `local` buffers whose every use is the buffer of a
//!   load, vector load, store, vector store or prefetch. (`shared` buffers are other threads'
//!   too, and a buffer used otherwise may be written where this pass does not look.)
//! - In each block, ops in order: a store (or vector store) of value `v` to a candidate at
//!   indices `I` makes `v` the known content of `I` and forgets what was known of every element
//!   range it may overlap (ranges overlap unless some dim has two different constant indices,
//!   or the last dims are constants whose `lanes`-wide ranges are disjoint). A load of a
//!   candidate at indices equal to known ones (the same values, or equal constants), with the
//!   same number of lanes and the known value's type, has its uses replaced by the known value
//!   and is erased; any other load's result becomes the known content of its indices. An op
//!   with regions forgets everything known of the candidates stored inside it. Nested blocks
//!   start with nothing known.
//! - Then every candidate with no load left loses its stores, prefetches and `loop.alloc`.
//!
//! The pass counts the loads it replaced (`loads-forwarded`) and the buffers it removed
//! (`buffers-removed`).
//!
//! # Performance impact
//! Little on the optimized tier's machine code (LLVM's SROA did the same), but less for every
//! later pass and for LLVM to read. In `cpu-default`, after `remove-schedule-block`, on
//! ppocr_det at 1x3x320x320: 1,975 `loop.alloc`s → 177, the printed loop IR 25.3k → 19.3k
//! lines, and its LLVM IR before any LLVM pass 53.3k → 45.3k lines; with the two code generator
//! changes of the same session, the cold first result fell by 12–19% on ppocr_det, ppocr_cls
//! and nudenet_320n (docs/benchmarks.md, "Sixteenth session").
//!
//! # Risks and limitations
//! - Only within one block: a value stored before a loop and read inside it is still loaded
//!   (LLVM's SROA promotes that one).
//! - Indices are compared as values, not as expressions: `%i + 1` computed twice is two
//!   different indices unless `cse` ran first.
//!
//! # Examples
//! 1. An intermediate passed through a vector register:
//!    ```text
//!    loop.kernel @chain(%x: !loop.buffer<32xf32, global>, %y: !loop.buffer<32xf32, global>) {
//!      %c0 = arith.constant 0 : index
//!      %c16 = arith.constant 16 : index
//!      %c32 = arith.constant 32 : index
//!      %r = loop.alloc : !loop.buffer<16xf32, local>
//!      loop.for vectorize(16) %i = %c0 to %c32 step %c16 {
//!        %v = loop.vload %x[%i] : !loop.buffer<32xf32, global> -> vector<16xf32>
//!        %e = math.exp %v : vector<16xf32>
//!        loop.vstore %e, %r[%c0] : vector<16xf32>, !loop.buffer<16xf32, local>
//!        %w = loop.vload %r[%c0] : !loop.buffer<16xf32, local> -> vector<16xf32>
//!        %s = arith.addf %w, %v : vector<16xf32>
//!        loop.vstore %s, %y[%i] : vector<16xf32>, !loop.buffer<32xf32, global>
//!        loop.yield
//!      }
//!      loop.return
//!    }
//!    ```
//!    becomes
//!    ```text
//!    loop.kernel @chain(%arg0: !loop.buffer<32xf32, global>, %arg1: !loop.buffer<32xf32, global>) {
//!      %c0 = arith.constant 0 : index
//!      %c16 = arith.constant 16 : index
//!      %c32 = arith.constant 32 : index
//!      loop.for vectorize(16) %arg2 = %c0 to %c32 step %c16 {
//!        %0 = loop.vload %arg0[%arg2] : !loop.buffer<32xf32, global> -> vector<16xf32>
//!        %1 = math.exp %0 : vector<16xf32>
//!        %2 = arith.addf %1, %0 : vector<16xf32>
//!        loop.vstore %2, %arg1[%arg2] : vector<16xf32>, !loop.buffer<32xf32, global>
//!        loop.yield
//!      }
//!      loop.return
//!    }
//!    ```
//!
//! # Counter-examples
//! 1. An accumulator zeroed in a schedule block's `init` region and updated in its body: the
//!    store and the load are in different blocks, so the load stays (and so does the buffer).
//! 2. A store to `%acc[%i]` between a store to `%acc[%c0]` and a load of `%acc[%c0]`: `%i` may
//!    be 0, so the load reads memory.

use dlc_arith::constant_int;
use dlc_ir::pass::{Anchor, OptionValues, Pass, PassInfo, PassRun};
use dlc_ir::{Block, Context, Diagnostic, Op, Value, WalkOrder, WalkResult};
use dlc_loop::analysis::access::{accesses_of, stored_buffer};
use dlc_loop::{access, buffer_parts, AccessKind, AllocOp, KernelOp, MemorySpace};
use rustc_hash::{FxHashMap, FxHashSet};

/// The pass description.
pub static INFO: PassInfo = PassInfo {
    argument: "forward-stores",
    summary: "Forwards a value stored to a kernel-local buffer to the loads that read it back \
              in the same block, then drops the stores and buffers nothing reads any more.",
    anchor: Anchor::op::<KernelOp>(),
    options: &[],
    statistics: &[
        (
            "loads-forwarded",
            "Number of loads replaced by the value stored or loaded before them",
        ),
        (
            "buffers-removed",
            "Number of local buffers erased with their stores",
        ),
    ],
    create,
};

fn create(_: &OptionValues) -> Result<Box<dyn Pass>, String> {
    Ok(Box::new(ForwardStores))
}

struct ForwardStores;

impl Pass for ForwardStores {
    fn run(&self, ctx: &mut Context, run: &mut PassRun<'_>) -> Result<(), Diagnostic> {
        let kernel = run.op();
        let (candidates, blocks) = candidates_and_blocks(ctx, kernel);
        if candidates.is_empty() {
            run.preserve_all();
            return Ok(());
        }
        let forwarded: u64 = blocks
            .into_iter()
            .map(|block| forward_in_block(ctx, block, &candidates))
            .sum();
        let removed = remove_unread(ctx, &candidates);
        run.add_stat("loads-forwarded", forwarded);
        run.add_stat("buffers-removed", removed);
        if forwarded + removed == 0 {
            run.preserve_all();
        }
        Ok(())
    }
}

/// The local buffers allocated in `kernel` whose every use is an access naming them as its
/// buffer, and every block nested in `kernel`, in one walk.
fn candidates_and_blocks(ctx: &mut Context, kernel: Op) -> (FxHashSet<Value>, Vec<Block>) {
    let mut found = FxHashSet::default();
    let mut blocks = Vec::new();
    ctx.walk(kernel, WalkOrder::PreOrder, &mut |ctx, op| {
        for &region in ctx.regions(op) {
            blocks.extend_from_slice(ctx.blocks(region));
        }
        if ctx.view::<AllocOp>(op).is_some() {
            let buffer = ctx.result(op, 0);
            let local = matches!(
                buffer_parts(ctx, ctx.value_type(buffer)),
                Some((_, _, MemorySpace::Local))
            );
            if local && accesses_of(ctx, buffer).is_some() {
                found.insert(buffer);
            }
        }
        WalkResult::Advance
    });
    (found, blocks)
}

/// What a block's ops so far leave known of one candidate's elements: the indices, lanes and
/// value of each access since the last store that may have changed them.
type Known = FxHashMap<Value, Vec<(Vec<Value>, u32, Value)>>;

/// Forwards within `block` (not the blocks nested in it); the number of loads replaced.
fn forward_in_block(ctx: &mut Context, block: Block, candidates: &FxHashSet<Value>) -> u64 {
    let mut known = Known::default();
    let mut forwarded = 0;
    let mut cur = ctx.first_op(block);
    while let Some(op) = cur {
        cur = ctx.next_op(op);
        if !ctx.regions(op).is_empty() {
            // Nothing known, nothing to forget: no walk of the nested ops.
            if !known.is_empty() {
                for buffer in stored_inside(ctx, op) {
                    known.remove(&buffer);
                }
            }
            continue;
        }
        let Some(a) = access(ctx, op).filter(|a| candidates.contains(&a.buffer)) else {
            continue;
        };
        let (buffer, lanes, indices) = (a.buffer, a.lanes, a.indices.to_vec());
        match (a.kind, a.value) {
            (AccessKind::Write, Some(value)) => {
                let entries = known.entry(buffer).or_default();
                entries.retain(|(other, other_lanes, _)| {
                    !may_overlap(ctx, (&indices, lanes), (other, *other_lanes))
                });
                entries.push((indices, lanes, value));
            }
            (AccessKind::Read, Some(result)) => {
                let ty = ctx.value_type(result);
                let same = known.get(&buffer).and_then(|entries| {
                    entries.iter().find(|(other, other_lanes, v)| {
                        *other_lanes == lanes
                            && ctx.value_type(*v) == ty
                            && same_indices(ctx, &indices, other)
                    })
                });
                match same {
                    Some(&(_, _, value)) => {
                        ctx.replace_all_uses(result, value);
                        ctx.erase_op(op);
                        forwarded += 1;
                    }
                    None => known
                        .entry(buffer)
                        .or_default()
                        .push((indices, lanes, result)),
                }
            }
            _ => {}
        }
    }
    forwarded
}

/// The buffers stored to by ops nested in `op`.
fn stored_inside(ctx: &mut Context, op: Op) -> Vec<Value> {
    let mut stored = Vec::new();
    ctx.walk(op, WalkOrder::PreOrder, &mut |ctx, inner| {
        stored.extend(stored_buffer(ctx, inner));
        WalkResult::Advance
    });
    stored
}

/// Whether two index lists name the same element: each pair the same value or equal constants.
fn same_indices(ctx: &Context, a: &[Value], b: &[Value]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(&x, &y)| {
        x == y
            || matches!((constant_int(ctx, x), constant_int(ctx, y)), (Some(p), Some(q)) if p == q)
    })
}

/// Whether the `lanes` elements from two accesses' indices may share an element: not when some
/// dim before the last has two different constants, or the last dim's constant ranges are
/// disjoint.
fn may_overlap(
    ctx: &Context,
    (a, a_lanes): (&[Value], u32),
    (b, b_lanes): (&[Value], u32),
) -> bool {
    let Some(last) = a.len().checked_sub(1) else {
        return true; // a rank-0 register has one element
    };
    for (k, (&x, &y)) in a.iter().zip(b).enumerate() {
        let (Some(p), Some(q)) = (constant_int(ctx, x), constant_int(ctx, y)) else {
            continue;
        };
        let disjoint = if k == last {
            p + i128::from(a_lanes) <= q || q + i128::from(b_lanes) <= p
        } else {
            p != q
        };
        if disjoint {
            return false;
        }
    }
    true
}

/// Erases each candidate no load reads any more, with its stores and prefetches; the number
/// erased.
fn remove_unread(ctx: &mut Context, candidates: &FxHashSet<Value>) -> u64 {
    let mut removed = 0;
    for &buffer in candidates {
        let Some(users) = accesses_of(ctx, buffer) else {
            continue;
        };
        let read = users
            .iter()
            .any(|&u| access(ctx, u).is_some_and(|a| a.kind == AccessKind::Read));
        if read {
            continue;
        }
        let Some(alloc) = ctx.defining_op(buffer) else {
            continue;
        };
        for u in users {
            ctx.erase_op(u);
        }
        ctx.erase_op(alloc);
        removed += 1;
    }
    removed
}
