//! Merges the kernels of a module that differ only in their name: the launches of each copy
//! launch the first one, and the copies are erased.
//!
//! # Applies when
//! A network repeats a block at the same shapes: the stages of a detector's backbone, the
//! layers of a transformer encoder, the branches of an inception cell. `lower` makes one kernel
//! per fusion group, so each repetition is a kernel of its own, op for op the same as the
//! others. Code generation compiled such kernels once already (it keys objects by content), but
//! every loop pass after `lower` still ran on each copy: nudenet_320n lowers to 148 kernels of
//! which 95 differ, ppocr_det to 114 (96), ppocr_cls to 78 (64). It is the first pass of
//! `cpu-default` and `gpu-default`, so the kernel passes run once per distinct kernel.
//!
//! # Changes to the IR
//! Runs on a `builtin.module`. Two `loop.kernel`s directly in it are copies when they are
//! structurally equivalent apart from `sym_name` (`dlc_ir::equivalence`: the same argument types
//! and argument attributes, attributes, and body op for op, up to value names and locations). In
//! module order, a kernel that copies an earlier kept kernel is erased, and every `loop.launch`
//! in the module whose `callee` names it (in the module's symbol table, not in a nested one)
//! names the kept kernel instead; the launch's operands are unchanged. The kept kernel keeps its name and location. A kernel that an op references
//! any other way (a symbol reference in another attribute, nested ones included) is kept
//! whatever it copies, since only launches are rewritten. The pass counts the kernels it erased.
//!
//! # Performance impact
//! The loop passes run on fewer kernels, and they run before the first result of a cold
//! start. `dlc-run MODEL.onnx --inputs ... --no-cache`, alternating three rounds with and
//! without this pass ("Intel(R) Xeon(R) Processor", 2 cores): dlc's passes on nudenet_320n took
//! 105–133 ms against 141–175 ms, on ppocr_cls 54–64 ms against 65–75 ms. The generated code
//! is the same, as code generation already shared one object among the copies.
//!
//! # Risks and limitations
//! - The kernel a launch names changes: a profile (`dlc-run --profile`) then reports the copies'
//!   launches under the kept kernel's name, and argument facts that code generation derives
//!   from the launches (alignment, `noalias`) are the meet over all of them.
//! - Kernels are launched, never called from outside the module, so their visibility is not
//!   consulted: a public copy is erased like a private one.
//! - Kernels equal up to a permutation of their arguments, or up to a constant they hold, are
//!   not merged; nor are `loop.compiled_kernel`s (code generation shares those by their hash).
//!
//! # Examples
//! 1. The same `exp` on two arguments (the output of `lower` for two `graph.exp` of
//!    `tensor<16xf32>`), kernel bodies shortened:
//!    ```text
//!    loop.kernel @twice_0_exp(%arg0: !loop.buffer<16xf32, global> {loop.noalias}, %arg1: !loop.buffer<16xf32, global> {loop.noalias}) {
//!      ...
//!    }
//!    loop.kernel @twice_1_exp(%arg0: !loop.buffer<16xf32, global> {loop.noalias}, %arg1: !loop.buffer<16xf32, global> {loop.noalias}) {
//!      ...
//!    }
//!    func.func @twice(%arg0: !loop.buffer<16xf32, global>, %arg1: !loop.buffer<16xf32, global>) -> (!loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>) {
//!      %0 = loop.alloc : !loop.buffer<16xf32, global>
//!      loop.launch @twice_0_exp(%arg0, %0) : (!loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>) -> ()
//!      %1 = loop.alloc : !loop.buffer<16xf32, global>
//!      loop.launch @twice_1_exp(%arg1, %1) : (!loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>) -> ()
//!      return %0, %1 : !loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>
//!    }
//!    ```
//!    becomes
//!    ```text
//!    loop.kernel @twice_0_exp(%arg0: !loop.buffer<16xf32, global> {loop.noalias}, %arg1: !loop.buffer<16xf32, global> {loop.noalias}) {
//!      ...
//!    }
//!    func.func @twice(%arg0: !loop.buffer<16xf32, global>, %arg1: !loop.buffer<16xf32, global>) -> (!loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>) {
//!      %0 = loop.alloc : !loop.buffer<16xf32, global>
//!      loop.launch @twice_0_exp(%arg0, %0) : (!loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>) -> ()
//!      %1 = loop.alloc : !loop.buffer<16xf32, global>
//!      loop.launch @twice_0_exp(%arg1, %1) : (!loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>) -> ()
//!      return %0, %1 : !loop.buffer<16xf32, global>, !loop.buffer<16xf32, global>
//!    }
//!    ```
//!
//! # Counter-examples
//! 1. The same `exp` over `tensor<16xf32>` and over `tensor<32xf32>`: the argument types and
//!    the loop bound differ, so both kernels stay.
//! 2. Two kernels alike except the `loop.noalias` of one argument: argument attributes count,
//!    as the schedule may rely on them.
//! 3. A copy named by an op other than `loop.launch` (`func.func @f() attributes {kernels =
//!    [@k1]}`): it stays, and so does the reference.

use dlc_ir::builtin::ModuleOp;
use dlc_ir::equivalence::{equivalent, structural_hash};
use dlc_ir::pass::{Anchor, OptionValues, Pass, PassInfo, PassRun};
use dlc_ir::symbol::{referenced_symbols, SymbolTables};
use dlc_ir::{Context, Diagnostic, Ident, Op};
use dlc_loop::{KernelOp, LaunchOp};
use rustc_hash::{FxHashMap, FxHashSet};

/// The pass description.
pub static INFO: PassInfo = PassInfo {
    argument: "merge-kernels",
    summary: "Merges the kernels of a module that differ only in their name: the launches of \
              each copy launch the first one, and the copies are erased.",
    anchor: Anchor::op::<ModuleOp>(),
    options: &[],
    statistics: &[(
        "num-merged",
        "Number of kernels erased as copies of another",
    )],
    create,
};

fn create(_: &OptionValues) -> Result<Box<dyn Pass>, String> {
    Ok(Box::new(MergeKernels))
}

struct MergeKernels;

impl Pass for MergeKernels {
    fn run(&self, ctx: &mut Context, run: &mut PassRun<'_>) -> Result<(), Diagnostic> {
        let module = run.op();
        let kernels = dlc_loop::module_kernels(ctx, module);
        let pinned = referenced_otherwise(ctx, module);
        let sym_name = ctx.ident("sym_name");
        let kept_of = copies(ctx, &kernels, &pinned, sym_name);
        run.add_stat("num-merged", kept_of.len() as u64);
        if kept_of.is_empty() {
            run.preserve_all();
            return Ok(());
        }
        // A launch names a copy when its callee resolves to it: a launch in a nested symbol
        // table resolves there, whatever the copy's name.
        let mut tables = SymbolTables::new();
        let mut launches = Vec::new();
        ctx.for_each_op(module, &mut |op| {
            if let Some(&kept) = ctx
                .view::<LaunchOp>(op)
                .and_then(|launch| launch.callee(ctx))
                .and_then(|callee| ctx.attr_as_symbol(callee))
                .and_then(|name| tables.resolve(ctx, op, name))
                .and_then(|kernel| kept_of.get(&kernel))
            {
                launches.push((op, kept));
            }
        });
        for (launch, kept) in launches {
            let name = KernelOp(kept).name(ctx).to_string();
            let callee = ctx.symbol_ref_attr(&name);
            ctx.set_attr(launch, "callee", callee);
        }
        for copy in kept_of.into_keys() {
            ctx.erase_op(copy);
        }
        Ok(())
    }
}

/// The root names of the symbols that ops of `module` reference other than as a launch's
/// `callee`.
fn referenced_otherwise(ctx: &Context, module: Op) -> FxHashSet<Ident> {
    let callee = ctx.find_ident("callee");
    let mut seen = FxHashSet::default();
    let mut paths = Vec::new();
    ctx.for_each_op(module, &mut |op| {
        let launch = ctx.view::<LaunchOp>(op).is_some();
        for a in ctx.attrs(op) {
            if !(launch && Some(a.name) == callee) {
                referenced_symbols(ctx, a.value, &mut seen, &mut paths);
            }
        }
    });
    paths.iter().filter_map(|p| p.first().copied()).collect()
}

/// Each kernel of `kernels` (in module order) that copies an earlier one, with the earlier
/// kernel it copies, which stays; `sym_name` is left out of the comparison. Kernels named in
/// `pinned` are never copies.
fn copies(
    ctx: &Context,
    kernels: &[Op],
    pinned: &FxHashSet<Ident>,
    sym_name: Ident,
) -> FxHashMap<Op, Op> {
    let mut kept: FxHashMap<u64, Vec<Op>> = FxHashMap::default();
    let mut copies = FxHashMap::default();
    for &kernel in kernels {
        let class = kept
            .entry(structural_hash(ctx, kernel, &[sym_name]))
            .or_default();
        let original = class
            .iter()
            .copied()
            .find(|&k| equivalent(ctx, k, kernel, &[sym_name]));
        let is_pinned = ctx
            .find_ident(KernelOp(kernel).name(ctx))
            .is_some_and(|name| pinned.contains(&name));
        match original {
            Some(original) if !is_pinned => {
                copies.insert(kernel, original);
            }
            _ => class.push(kernel),
        }
    }
    copies
}
