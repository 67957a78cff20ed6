//! Places the intermediate buffers of a host function in one arena, reusing the bytes of
//! buffers that are dead and letting a kernel write its output over an input that dies there.
//!
//! # Applies when
//! A host function (a `func.func` with one block that holds a `loop.launch`, as `lower` makes)
//! allocates intermediates: every value a kernel hands to the next one gets its own
//! `loop.alloc`, so a model's memory is the sum of all its activations although only a few are
//! live at once. A transformer block at batch 2 allocates 44 KiB of intermediates of which at
//! most 16 KiB are live at a time.
//!
//! # Changes to the IR
//! - **Candidates**: the global `loop.alloc`s of the function's block whose result is used only
//!   as `loop.launch` operands (at least once) and `loop.dim` operands, directly or through
//!   `loop.reshape`s (whose uses count as the buffer's: they share its memory). Function arguments,
//!   `loop.constant`s and returned buffers are never candidates: the caller owns them or they
//!   outlive the call. A candidate lives from its first use to its last (op positions).
//! - **In place** (option `in-place`): at a launch where candidate I has its last use and
//!   candidate O its first, with the same type and the same dynamic size values, O becomes I
//!   (its uses are replaced, its alloc erased; I lives on to O's end) when the kernel provably
//!   reads each element of I only in the iteration that writes the same element of O: I's
//!   argument is only loaded and O's only stored, once; each load and the store have the same
//!   indices once schedule-block iter vars are replaced by the values bound to them, are nested
//!   in the same innermost `loop.for`, the loads before the store; those indices are the
//!   induction variables of all the loops around the store, each once (so every iteration
//!   writes its own element); neither I nor O is passed twice; and neither is reshaped. The launch then passes one
//!   buffer for both arguments, so the kernel's two arguments lose `loop.noalias`.
//! - **Slots**: candidates are taken in order of their first use; each goes to a free slot (one
//!   whose last occupant died before), preferring one of provably equal size (same static
//!   bytes, or the same factor times the same size values), else the largest, else a new slot.
//!   A slot is as large as its largest occupant (`arith.maxsi` when sizes are dynamic), rounded
//!   up to 64 bytes; slots follow one another in the arena.
//! - **The arena**: `loop.alloc` of `!loop.buffer<Nxi8, global>` (or `?xi8` with the total
//!   computed on the host) at the start of the function, after the size arithmetic; each
//!   candidate's alloc becomes `loop.view %arena[%offset](sizes)` of the same type, where it
//!   was. A size must be index arithmetic (`arith`) on `loop.dim`s of arguments and index
//!   arguments: those ops are hoisted to the start of the function in their order. A candidate
//!   with any other size (a `loop.dim` of an allocated buffer, say) keeps its own alloc.
//!
//! Statistics: `buffers-planned`, `slots`, `in-place`, `peak-bytes` (the arena's bytes when
//! static, else 0) and `unplanned-bytes` (what the planned buffers, in-place ones included,
//! would take as separate allocations; 0 when a size is dynamic).
//!
//! # Performance impact
//! Memory footprint and allocation count: one allocation per call instead of one per
//! intermediate. On docs/examples/transformer_block.mlir with batch 2 (after `decompose`,
//! `fuse`, `lower`), 11 buffers of 45056 bytes share 4 slots, a 20480-byte arena; on
//! docs/examples/mlp.mlir the one intermediate takes a 1024-byte arena. In-place reuse also
//! keeps an elementwise chain in the same cache lines.
//!
//! # Risks and limitations
//! - Correctness rests on the intervals: a kernel that kept a pointer to a buffer across
//!   launches would break it; kernels here only read and write their arguments while they run.
//! - Slot choice is greedy: the arena can be larger than the largest set of buffers live at
//!   once (the transformer block's 20480 bytes against 16384 live at most).
//! - Dynamic sizes are compared symbolically: `?x16` and `?x32` over the same `?` fold into
//!   one size, but sizes over different values keep an `arith.maxsi` each.
//! - In place is only recognised in the loop structure `lower` makes (indices that are
//!   induction variables); a kernel tiled or mapped to GPU threads is not reused in place.
//! - In place edits the launched kernel, a sibling of the function (it drops `loop.noalias`):
//!   it happens only where the kernel is visible, which a function run on its own thread
//!   (several functions, threading on) is not; there nothing is reused in place.
//!
//! # TODO
//! - Use `arith.maxui` for slot sizes once the arith dialect has it (`maxsi` is the same on
//!   sizes, which are non-negative).
//!
//! # Examples
//! 1. Three intermediates used one after another (kernels left out; test/passes/plan-memory.mlir
//!    has them): the first one dies at the first transpose, so the third takes its slot.
//!    ```text
//!    func.func @seq(%arg0: !loop.buffer<4x16xf32, global>) -> !loop.buffer<4x16xf32, global> {
//!      %0 = loop.alloc : !loop.buffer<4x16xf32, global>
//!      loop.launch @seq_0_exp(%arg0, %0) : (!loop.buffer<4x16xf32, global>, !loop.buffer<4x16xf32, global>) -> ()
//!      %1 = loop.alloc : !loop.buffer<16x4xf32, global>
//!      loop.launch @seq_1_transpose(%0, %1) : (!loop.buffer<4x16xf32, global>, !loop.buffer<16x4xf32, global>) -> ()
//!      %2 = loop.alloc : !loop.buffer<4x16xf32, global>
//!      loop.launch @seq_2_transpose(%1, %2) : (!loop.buffer<16x4xf32, global>, !loop.buffer<4x16xf32, global>) -> ()
//!      %3 = loop.alloc : !loop.buffer<4x16xf32, global>
//!      loop.launch @seq_3_neg(%2, %3) : (!loop.buffer<4x16xf32, global>, !loop.buffer<4x16xf32, global>) -> ()
//!      return %3 : !loop.buffer<4x16xf32, global>
//!    }
//!    ```
//!    becomes
//!    ```text
//!    func.func @seq(%arg0: !loop.buffer<4x16xf32, global>) -> !loop.buffer<4x16xf32, global> {
//!      %c0 = arith.constant 0 : index
//!      %c256 = arith.constant 256 : index
//!      %0 = loop.alloc : !loop.buffer<512xi8, global>
//!      %1 = loop.view %0[%c0] : !loop.buffer<512xi8, global> -> !loop.buffer<4x16xf32, global>
//!      loop.launch @seq_0_exp(%arg0, %1) : (!loop.buffer<4x16xf32, global>, !loop.buffer<4x16xf32, global>) -> ()
//!      %2 = loop.view %0[%c256] : !loop.buffer<512xi8, global> -> !loop.buffer<16x4xf32, global>
//!      loop.launch @seq_1_transpose(%1, %2) : (!loop.buffer<4x16xf32, global>, !loop.buffer<16x4xf32, global>) -> ()
//!      %3 = loop.view %0[%c0] : !loop.buffer<512xi8, global> -> !loop.buffer<4x16xf32, global>
//!      loop.launch @seq_2_transpose(%2, %3) : (!loop.buffer<16x4xf32, global>, !loop.buffer<4x16xf32, global>) -> ()
//!      %4 = loop.alloc : !loop.buffer<4x16xf32, global>
//!      loop.launch @seq_3_neg(%3, %4) : (!loop.buffer<4x16xf32, global>, !loop.buffer<4x16xf32, global>) -> ()
//!      return %4 : !loop.buffer<4x16xf32, global>
//!    }
//!    ```
//! 2. An elementwise chain: `neg` reads each element of `%0` where it writes `%1`, and `%0`
//!    dies there, so `%1` becomes `%0`; `abs` writes the returned buffer, which stays.
//!    ```text
//!    func.func @chain(%arg0: !loop.buffer<4x16xf32, global>) -> !loop.buffer<4x16xf32, global> {
//!      %0 = loop.alloc : !loop.buffer<4x16xf32, global>
//!      loop.launch @chain_0_exp(%arg0, %0) : (!loop.buffer<4x16xf32, global>, !loop.buffer<4x16xf32, global>) -> ()
//!      %1 = loop.alloc : !loop.buffer<4x16xf32, global>
//!      loop.launch @chain_1_neg(%0, %1) : (!loop.buffer<4x16xf32, global>, !loop.buffer<4x16xf32, global>) -> ()
//!      %2 = loop.alloc : !loop.buffer<4x16xf32, global>
//!      loop.launch @chain_2_abs(%1, %2) : (!loop.buffer<4x16xf32, global>, !loop.buffer<4x16xf32, global>) -> ()
//!      return %2 : !loop.buffer<4x16xf32, global>
//!    }
//!    ```
//!    becomes
//!    ```text
//!    func.func @chain(%arg0: !loop.buffer<4x16xf32, global>) -> !loop.buffer<4x16xf32, global> {
//!      %c0 = arith.constant 0 : index
//!      %0 = loop.alloc : !loop.buffer<256xi8, global>
//!      %1 = loop.view %0[%c0] : !loop.buffer<256xi8, global> -> !loop.buffer<4x16xf32, global>
//!      loop.launch @chain_0_exp(%arg0, %1) : (!loop.buffer<4x16xf32, global>, !loop.buffer<4x16xf32, global>) -> ()
//!      loop.launch @chain_1_neg(%1, %1) : (!loop.buffer<4x16xf32, global>, !loop.buffer<4x16xf32, global>) -> ()
//!      %2 = loop.alloc : !loop.buffer<4x16xf32, global>
//!      loop.launch @chain_2_abs(%1, %2) : (!loop.buffer<4x16xf32, global>, !loop.buffer<4x16xf32, global>) -> ()
//!      return %2 : !loop.buffer<4x16xf32, global>
//!    }
//!    ```
//!
//! # Counter-examples
//! 1. A transpose of a 4x4 buffer into another (test/passes/plan-memory.mlir, `@transposed`):
//!    same type, and the input dies there, but the kernel reads `in[j, i]` where it writes
//!    `out[i, j]`, so writing over the input would clobber elements not read yet. Not in place.
//! 2. An input still used by a later launch (`@live`): it does not die at this launch.
//! 3. Buffers the function returns (`@returned`): the caller owns them; nothing is planned.

mod arena;
mod in_place;

use dlc_func::FuncOp;
use dlc_ir::pass::{Anchor, OptionSpec, OptionValues, Pass, PassInfo, PassRun};
use dlc_ir::{Block, Context, Diagnostic, Op, Type, Value};
use dlc_loop::{AllocOp, LaunchOp, LoopOps, MemorySpace, ReshapeOp};
use rustc_hash::FxHashMap;

/// The pass description.
pub static INFO: PassInfo = PassInfo {
    argument: "plan-memory",
    summary:
        "Places the intermediate buffers of a host function in one arena, reusing the bytes of \
              buffers that are dead and letting a kernel write its output over an input that \
              dies there.",
    anchor: Anchor::op::<FuncOp>(),
    options: &[OptionSpec::bool(
        "in-place",
        true,
        "Let a kernel write its output over an input that dies at the launch, when it reads \
         each input element only where it writes the same output element",
    )],
    statistics: &[
        (
            "buffers-planned",
            "Number of intermediate buffers placed in the arena",
        ),
        ("slots", "Number of arena slots the planned buffers share"),
        (
            "in-place",
            "Number of outputs that reuse a dying input of the same launch",
        ),
        (
            "peak-bytes",
            "Bytes of the arenas, when their sizes are static (0 otherwise)",
        ),
        (
            "unplanned-bytes",
            "Bytes the planned buffers would take as separate allocations, when static (0 \
             otherwise)",
        ),
    ],
    create,
};

fn create(options: &OptionValues) -> Result<Box<dyn Pass>, String> {
    Ok(Box::new(PlanMemory {
        in_place: options.bool("in-place"),
    }))
}

struct PlanMemory {
    /// Whether outputs may take over dying inputs.
    in_place: bool,
}

/// Counters the pass reports.
#[derive(Default)]
struct Stats {
    planned: u64,
    slots: u64,
    in_place: u64,
    peak_bytes: u64,
    unplanned_bytes: u64,
}

impl Pass for PlanMemory {
    fn run(&self, ctx: &mut Context, run: &mut PassRun<'_>) -> Result<(), Diagnostic> {
        let func = run.op();
        let Some(entry) = host_entry(ctx, func) else {
            run.preserve_all();
            return Ok(());
        };
        let mut stats = Stats::default();
        // Buffers that took over another: each counts as one more allocation of its size.
        let mut merged: FxHashMap<Value, u64> = FxHashMap::default();
        if self.in_place {
            stats.in_place = in_place::reuse(ctx, entry, &mut merged);
        }
        arena::plan(ctx, entry, &merged, &mut stats);
        run.add_stat("buffers-planned", stats.planned);
        run.add_stat("slots", stats.slots);
        run.add_stat("in-place", stats.in_place);
        run.add_stat("peak-bytes", stats.peak_bytes);
        run.add_stat("unplanned-bytes", stats.unplanned_bytes);
        if stats.planned == 0 && stats.in_place == 0 {
            run.preserve_all();
        }
        Ok(())
    }
}

/// The entry block of `func` if it is a host function: one block holding a `loop.launch`.
fn host_entry(ctx: &Context, func: Op) -> Option<Block> {
    let region = *ctx.regions(func).first()?;
    let [entry] = ctx.blocks(region) else {
        return None;
    };
    ctx.block_ops(*entry)
        .any(|op| ctx.view::<LaunchOp>(op).is_some())
        .then_some(*entry)
}

/// An intermediate buffer the function allocates for itself.
#[derive(Clone, Debug)]
struct Candidate {
    /// The `loop.alloc`.
    alloc: Op,
    /// Its result.
    value: Value,
    ty: Type,
    /// Position in the block of the first and the last use (through reshapes).
    start: usize,
    end: usize,
    /// Whether a `loop.reshape` shares its memory: it is then never reused in place.
    reshaped: bool,
}

/// The position of every op of `block`.
fn positions(ctx: &Context, block: Block) -> FxHashMap<Op, usize> {
    ctx.block_ops(block)
        .enumerate()
        .map(|(i, op)| (op, i))
        .collect()
}

/// The ops that use buffer `v` or a `loop.reshape` of it (the reshapes included), following
/// chains of reshapes.
fn users_through_reshapes(ctx: &Context, v: Value) -> Vec<Op> {
    let mut users = Vec::new();
    let mut todo = vec![v];
    while let Some(v) = todo.pop() {
        for u in ctx.uses(v) {
            if ctx.view::<ReshapeOp>(u.user).is_some() && ctx.num_results(u.user) == 1 {
                todo.push(ctx.result(u.user, 0));
            }
            users.push(u.user);
        }
    }
    users
}

/// The candidates of `block` in program order: global `loop.alloc`s used only by `loop.launch`
/// (at least once) and `loop.dim` ops of the block, directly or through `loop.reshape`s (which
/// share its memory, so they extend its interval). A returned buffer, an argument or a
/// `loop.constant` is never one: the caller owns it or it outlives the call.
fn candidates(ctx: &Context, block: Block, pos: &FxHashMap<Op, usize>) -> Vec<Candidate> {
    let mut found = Vec::new();
    for op in ctx.block_ops(block) {
        if ctx.view::<AllocOp>(op).is_none() || ctx.num_results(op) != 1 {
            continue;
        }
        let value = ctx.result(op, 0);
        let ty = ctx.value_type(value);
        let global = matches!(
            dlc_loop::buffer_parts(ctx, ty),
            Some((_, elem, MemorySpace::Global)) if dlc_loop::elem_size_bytes(ctx, elem).is_some()
        );
        if !global {
            continue;
        }
        let users = users_through_reshapes(ctx, value);
        let allowed = users.iter().all(|&u| {
            pos.contains_key(&u)
                && matches!(
                    LoopOps::of(ctx, u),
                    Some(LoopOps::LaunchOp(_) | LoopOps::DimOp(_) | LoopOps::ReshapeOp(_))
                )
        });
        let launched = users.iter().any(|&u| ctx.view::<LaunchOp>(u).is_some());
        if !allowed || !launched {
            continue;
        }
        let at = users.iter().map(|u| pos[u]);
        let start = at.clone().min().unwrap_or(0);
        let end = at.max().unwrap_or(0);
        let reshaped = users.iter().any(|&u| ctx.view::<ReshapeOp>(u).is_some());
        found.push(Candidate {
            alloc: op,
            value,
            ty,
            start,
            end,
            reshaped,
        });
    }
    found
}
