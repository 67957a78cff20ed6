//! Rewrites composite graph ops (softmax, layer_norm, gelu, linear, conv2d, sdpa, ...) into the
//! primitive ops they are defined by.
//!
//! # Applies when
//! A graph holds composite ops, which every model imported from a framework does: attention
//! (`graph.sdpa`), norms, activations and linear layers are what models are written in. Passes
//! that only understand primitives (fusion, lowering to loops) need them spelled out first; a
//! pipeline that wants to keep some composites whole (say, a hand-written softmax kernel) names
//! them in `keep`.
//!
//! # Changes to the IR
//! - Every op nested in the op the pass runs on whose name is a composite of
//!   `dlc_graph::decompose::DECOMPOSITIONS`, and not listed in `keep`, is replaced by its
//!   decomposition (`dlc_graph::decompose::decompose_op`), built just before it, and erased.
//!   The table in docs/dialects/graph.md gives each composite's expansion.
//! - Composites built by a decomposition are decomposed too (the pass repeats until none is
//!   left), so no composite outside `keep` remains unless it cannot be decomposed.
//! - An instance that cannot be decomposed (a convolution or pool over dynamic spatial dims, a
//!   `gelu` with an unknown `approximate`) is left alone, as are primitives and kept composites.
//! - A `graph.conv2d` with a column stride of 1 and output rows of at least 32 columns, or one
//!   channel per group, becomes a `graph.pad` (when it pads) and an unpadded `graph.conv2d`,
//!   which stays: `lower` runs it as an implicit GEMM, a direct loop nest that computes the
//!   window indices (`dlc_graph::decompose::direct_conv`). Other convolutions become im2col (a
//!   gather through a constant index table, none for a 1x1 window, and a matmul).
//! - Scalars of a decomposition (`eps`, `0.5`, `√2`) become `graph.constant` splats; the result
//!   types of the replaced op stay as declared, so its users see the types they verified with.
//!
//! The pass counts the composites it decomposed. A name in `keep` that is not a composite is an
//! error when the pipeline is built.
//!
//! # Risks and limitations
//! - Floats may differ in the last bits from the composite's reference semantics: the
//!   decomposition orders the operations differently (`x/√2` against the interpreter's own
//!   formula, a mean as a sum then a division).
//! - The result is larger and less structured; run `canonicalize` and `cse` after it to merge
//!   the repeated constant splats.
//!
//! # Examples
//! 1. A softmax over the last axis:
//!    ```text
//!    func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
//!      %0 = graph.softmax %x {axis = 1 : i64} : tensor<4x8xf32>
//!      return %0 : tensor<4x8xf32>
//!    }
//!    ```
//!    becomes
//!    ```text
//!    func.func @softmax(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {
//!      %0 = graph.reduce_max %arg0 {axes = array<i64: 1>, keepdim = true} : tensor<4x8xf32> -> tensor<4x1xf32>
//!      %1 = graph.sub %arg0, %0 : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
//!      %2 = graph.exp %1 : tensor<4x8xf32>
//!      %3 = graph.reduce_sum %2 {axes = array<i64: 1>, keepdim = true} : tensor<4x8xf32> -> tensor<4x1xf32>
//!      %4 = graph.div %2, %3 : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
//!      return %4 : tensor<4x8xf32>
//!    }
//!    ```
//! 2. `keep` leaves the named composites alone: with `decompose{keep=graph.gelu}`,
//!    ```text
//!    func.func @mlp(%x: tensor<2x4xf32>, %w: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<2x8xf32> {
//!      %0 = graph.linear %x, %w, %b : tensor<2x4xf32>, tensor<4x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
//!      %1 = graph.gelu %0 {approximate = "tanh"} : tensor<2x8xf32>
//!      return %1 : tensor<2x8xf32>
//!    }
//!    ```
//!    becomes
//!    ```text
//!    func.func @mlp(%arg0: tensor<2x4xf32>, %arg1: tensor<4x8xf32>, %arg2: tensor<8xf32>) -> tensor<2x8xf32> {
//!      %0 = graph.matmul %arg0, %arg1 : tensor<2x4xf32>, tensor<4x8xf32> -> tensor<2x8xf32>
//!      %1 = graph.add %0, %arg2 : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
//!      %2 = graph.gelu %1 {approximate = "tanh"} : tensor<2x8xf32>
//!      return %2 : tensor<2x8xf32>
//!    }
//!    ```
//!
//! # Counter-examples
//! 1. `graph.conv2d` on `tensor<1x3x?x?xf32>`: the im2col decomposition needs static spatial
//!    dims, so the op stays.

use dlc_graph::decompose::{decompose_op, is_composite, DECOMPOSITIONS};
use dlc_ir::pass::{Anchor, OptionKind, OptionSpec, OptionValues, Pass, PassInfo, PassRun};
use dlc_ir::{Context, Diagnostic, Op};
use rustc_hash::FxHashSet;

/// The pass description.
pub static INFO: PassInfo = PassInfo {
    argument: "decompose",
    summary: "Rewrites composite graph ops (softmax, layer_norm, gelu, linear, conv2d, sdpa, \
              ...) into the primitive ops they are defined by.",
    anchor: Anchor::Any,
    options: &[OptionSpec::new(
        "keep",
        OptionKind::StrList,
        "",
        "Names of the composite ops not to decompose (e.g. graph.softmax,graph.gelu)",
    )],
    statistics: &[(
        "composites-decomposed",
        "Number of composite ops replaced by primitives",
    )],
    create,
};

fn create(options: &OptionValues) -> Result<Box<dyn Pass>, String> {
    let keep = options.str_list("keep").to_vec();
    if let Some(bad) = keep.iter().find(|name| !is_composite(name)) {
        let known: Vec<&str> = DECOMPOSITIONS.iter().map(|(n, _)| *n).collect();
        return Err(format!(
            "option 'keep': '{bad}' is not a composite op (composites: {})",
            known.join(", ")
        ));
    }
    Ok(Box::new(Decompose { keep }))
}

struct Decompose {
    /// Composite op names left alone.
    keep: Vec<String>,
}

impl Pass for Decompose {
    fn run(&self, ctx: &mut Context, run: &mut PassRun<'_>) -> Result<(), Diagnostic> {
        let root = run.op();
        // Instances `decompose_op` declined: they stay, and are not tried again.
        let mut declined = FxHashSet::default();
        let mut decomposed = 0;
        // A decomposition builds its ops before the composite, where a walk that has already
        // passed would not see them; so each round collects the composites afresh, until a
        // round finds none (or only ones declined).
        loop {
            let composites = self.composites(ctx, root, &declined);
            if composites.is_empty() {
                break;
            }
            for op in composites {
                match decompose_op(ctx, op) {
                    Some(values) => {
                        ctx.replace_op(op, &values);
                        decomposed += 1;
                    }
                    None => {
                        declined.insert(op);
                    }
                }
            }
        }
        run.add_stat("composites-decomposed", decomposed);
        if decomposed == 0 {
            run.preserve_all();
        }
        Ok(())
    }
}

impl Decompose {
    /// The composites nested in `root` (not `root` itself, which the pass cannot replace) that
    /// are neither kept nor declined, in program order.
    fn composites(&self, ctx: &Context, root: Op, declined: &FxHashSet<Op>) -> Vec<Op> {
        let mut found = Vec::new();
        ctx.for_each_op(root, &mut |op| {
            // Op name compared because the `keep` option names the ops to keep as the user
            // typed them, and the decomposition table is keyed by name.
            let name = ctx.op_name(op);
            if op != root
                && is_composite(name)
                && !declined.contains(&op)
                && !self.keep.iter().any(|k| k == name)
            {
                found.push(op);
            }
        });
        found
    }
}
