//! Inlines calls to single-block, non-recursive functions defined in the module.
//!
//! # Applies when
//! Models are written as layers of small functions (an activation, a norm, a block of a
//! network), and front ends emit a call for each. A call hides its callee's body from every
//! function-local pass: CSE, folding and fusion across the call boundary only happen once the
//! body is in the caller, and the call itself costs time at run time.
//!
//! # Changes to the IR
//! Runs on a `builtin.module`. A `func.call @f` anywhere in a function of the module (nested
//! regions included) is replaced by a copy of `@f`'s body when:
//! - `@f` is a `func.func` defined directly in the module (not a declaration), whose body is one
//!   block ending in `func.return`; and
//! - `@f` is not recursive: it is in no cycle of the call graph (a function calling itself, or
//!   functions calling each other); and
//! - neither the call nor `@f` carries MLIR's `no_inline` unit attribute
//!   (`func.call @f(...) {no_inline}`, `func.func @f(...) attributes {no_inline}`).
//!
//! The body's ops are cloned in front of the call with the callee's arguments mapped to the
//! call's operands; the call's results are replaced by the (mapped) `func.return` operands, and
//! the call is erased. Functions are processed callees first, so a callee's own calls are
//! already inlined when it is copied, and one run inlines every eligible call at any depth. If
//! the call has a known location, each copied op's location becomes
//! `callsite(<its location> at <the call's location>)`, as in MLIR. Callees are kept, even when
//! no call is left: `symbol-dce` removes the private ones.
//!
//! As MLIR's inliner, the pass simplifies each function with a pipeline, callees first: once
//! before inlining into it, then again after each round that inlined a call, for at most
//! `max-iterations` rounds (default 4; one round simplifies only before inlining). Every
//! function with a body is simplified, called or not, recursive or not. Options, as in MLIR:
//! - `default-pipeline` (default `canonicalize`): the pipeline, run on each `func.func`: flat
//!   (`canonicalize,cse`) or nested (`func.func(cse)`); empty (`inline{default-pipeline=}`)
//!   runs none, which leaves the module exactly as inlining made it.
//! - `op-pipelines` (default none): `func.func(...)` replaces `default-pipeline` for functions.
//! - `max-iterations` (default 4).
//!
//! A bad nested pipeline is a pipeline error at its place in the text (mlir-opt prints its error
//! and goes on without the pipeline).
//!
//! # Performance impact
//! Removes the call overhead and exposes the callee's ops to the caller's optimizations.
//!
//! # Risks and limitations
//! - Code grows with every inlined call, with no cost model or size limit (MLIR's default
//!   inliner has none either): a chain of functions each calling the next twice grows
//!   exponentially.
//! - Callees with several blocks are not inlined (that needs splitting the caller's block and
//!   branch ops dlc does not define yet).
//! - No call inside a call-graph cycle is inlined. MLIR's inliner does inline within a cycle
//!   until it reaches a call to the function being inlined into.
//! - Unlike MLIR's `inline`, the pass does not erase private callees left unused; follow it
//!   with `symbol-dce`. MLIR's `inlining-threshold` option is not supported (its default
//!   inlines regardless of size, as here).
//! - The simplification pipeline runs on each function up to `max-iterations` times per run;
//!   `inline{default-pipeline=}` is the cheap form.
//! - Any op may be copied into a caller. MLIR asks each dialect first (its inliner interface)
//!   and refuses callees holding ops of dialects that do not agree, unregistered ops included.
//!   No dlc op depends on the function it sits in today; one that does (a stack allocation
//!   scope, say) will need a way to refuse.
//!
//! # Examples
//! 1. A helper called twice:
//!    ```text
//!    func.func private @square(%a: i32) -> i32 {
//!      %0 = arith.muli %a, %a : i32
//!      return %0 : i32
//!    }
//!    func.func @main(%x: i32) -> i32 {
//!      %0 = func.call @square(%x) : (i32) -> i32
//!      %1 = func.call @square(%0) : (i32) -> i32
//!      return %1 : i32
//!    }
//!    ```
//!    becomes
//!    ```text
//!    func.func private @square(%arg0: i32) -> i32 {
//!      %0 = arith.muli %arg0, %arg0 : i32
//!      return %0 : i32
//!    }
//!    func.func @main(%arg0: i32) -> i32 {
//!      %0 = arith.muli %arg0, %arg0 : i32
//!      %1 = arith.muli %0, %0 : i32
//!      return %1 : i32
//!    }
//!    ```
//!
//! # Counter-examples
//! 1. A recursive function: `func.func @fact(%n: i64) -> i64` calling `@fact` keeps its call,
//!    and so does every call to `@fact` from elsewhere: inlining it would never end.
//! 2. A call to a declaration (`func.func private @extern(i32) -> i32`): there is no body.
//! 3. `func.call @sq(%x) {no_inline}`, or any call to a function with `attributes {no_inline}`,
//!    stays a call (test/passes/inline.mlir).

use dlc_func::{CallOp, FuncOp, ReturnOp};
use dlc_ir::builtin::ModuleOp;
use dlc_ir::location::CompositeLocKind;
use dlc_ir::pass::{
    Anchor, NestedPipeline, OptionKind, OptionSpec, OptionValues, Pass, PassInfo, PassRun,
};
use dlc_ir::symbol::symbol_name;
use dlc_ir::{AttrKind, Context, Diagnostic, Ident, InsertPoint, Location, Op, Value, ValueMap};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

/// The pass description.
pub static INFO: PassInfo = PassInfo {
    argument: "inline",
    summary: "Inlines calls to single-block, non-recursive functions defined in the module.",
    anchor: Anchor::op::<ModuleOp>(),
    options: &[
        OptionSpec::new(
            "default-pipeline",
            OptionKind::Pipeline("func.func"),
            "canonicalize",
            "The pipeline run on each function before and after inlining into it (empty: none)",
        ),
        OptionSpec::new(
            "op-pipelines",
            OptionKind::OpPipelines,
            "",
            "Pipelines for callables of one op name, replacing default-pipeline for them: 'func.func(...)'",
        ),
        OptionSpec::new(
            "max-iterations",
            OptionKind::Int,
            "4",
            "How many rounds of simplifying and inlining a function gets at most",
        ),
    ],
    statistics: &[("calls-inlined", "Number of calls inlined")],
    create,
};

fn create(options: &OptionValues) -> Result<Box<dyn Pass>, String> {
    let max_iterations = options.int("max-iterations");
    if max_iterations < 0 {
        return Err(format!(
            "option 'max-iterations' must not be negative, got {max_iterations}"
        ));
    }
    Ok(Box::new(Inline {
        default_pipeline: options.pipelines("default-pipeline").first().cloned(),
        op_pipelines: options.pipelines("op-pipelines").to_vec(),
        max_iterations,
    }))
}

struct Inline {
    /// The simplification pipeline of functions without an op pipeline; `None`: no simplification.
    default_pipeline: Option<NestedPipeline>,
    /// Pipelines by the op name of the callable they simplify.
    op_pipelines: Vec<NestedPipeline>,
    max_iterations: i64,
}

impl Pass for Inline {
    fn run(&self, ctx: &mut Context, run: &mut PassRun<'_>) -> Result<(), Diagnostic> {
        let graph = CallGraph::build(ctx, run.op());
        let recursive = graph.recursive();
        let mut inlined = 0;
        let mut simplified = false;
        for f in graph.bottom_up() {
            let func = graph.funcs[f];
            if ctx.blocks(ctx.region(func, 0)).is_empty() {
                continue;
            }
            // As MLIR's inliner: simplify, inline, and again while calls were inlined, up to
            // `max-iterations` rounds (at least one).
            let mut round = 0;
            loop {
                simplified |= self.simplify(ctx, func, run)?;
                let mut inlined_now = 0;
                for (call, callee) in graph.calls_in(ctx, func) {
                    let refused = ctx
                        .view::<CallOp>(call)
                        .is_some_and(|c| c.no_inline(ctx).is_some())
                        || ctx
                            .view::<FuncOp>(graph.funcs[callee])
                            .is_some_and(|f| f.no_inline(ctx).is_some());
                    if !recursive[callee] && !refused && can_inline(ctx, graph.funcs[callee]) {
                        inline_call(ctx, call, graph.funcs[callee]);
                        inlined_now += 1;
                    }
                }
                inlined += inlined_now;
                round += 1;
                if inlined_now == 0 || round >= self.max_iterations {
                    break;
                }
            }
        }
        run.add_stat("calls-inlined", inlined);
        if inlined == 0 && !simplified {
            run.preserve_all();
        }
        Ok(())
    }
}

impl Inline {
    /// Runs the simplification pipeline for `func` (its op pipeline, else the default one) on
    /// it, passing on what the passes report; false when there is none.
    fn simplify(
        &self,
        ctx: &mut Context,
        func: Op,
        run: &mut PassRun<'_>,
    ) -> Result<bool, Diagnostic> {
        let name = ctx.op_name(func);
        let pipeline = self
            .op_pipelines
            .iter()
            .find(|p| p.anchor == name)
            .or(self.default_pipeline.as_ref());
        let Some(pipeline) = pipeline else {
            return Ok(false);
        };
        match pipeline.run(ctx, func) {
            Ok(notes) => {
                notes.into_iter().for_each(|d| run.emit(d));
                Ok(true)
            }
            Err(failure) => {
                let mut diagnostics = failure.diagnostics;
                let last = diagnostics.pop().unwrap_or_else(|| {
                    Diagnostic::error(
                        ctx.op_loc(func),
                        format!("the inliner's pipeline failed in pass '{}'", failure.pass),
                    )
                });
                diagnostics.into_iter().for_each(|d| run.emit(d));
                Err(last)
            }
        }
    }
}

/// The functions of a module and the calls between them.
struct CallGraph {
    /// The `func.func` ops directly in the module, in order.
    funcs: Vec<Op>,
    /// The index of each function by name.
    by_name: FxHashMap<Ident, usize>,
    /// For each function, the calls in it (nested ones included) to functions of the module,
    /// in program order, with the callee's index, as the module was before inlining.
    calls: Vec<Vec<(Op, usize)>>,
}

impl CallGraph {
    fn build(ctx: &Context, module: Op) -> Self {
        let funcs: Vec<Op> = ctx
            .regions(module)
            .iter()
            .flat_map(|r| ctx.blocks(*r))
            .flat_map(|b| ctx.block_ops(*b))
            .filter(|op| ctx.view::<FuncOp>(*op).is_some())
            .collect();
        let mut by_name: FxHashMap<Ident, usize> = FxHashMap::default();
        for (i, &f) in funcs.iter().enumerate() {
            if let Some(name) = symbol_name(ctx, f).and_then(|n| ctx.find_ident(n)) {
                by_name.entry(name).or_insert(i);
            }
        }
        let mut graph = CallGraph {
            funcs,
            by_name,
            calls: Vec::new(),
        };
        graph.calls = graph
            .funcs
            .iter()
            .map(|&f| graph.calls_in(ctx, f))
            .collect();
        graph
    }

    /// The calls in `func` now (nested ones included) to functions of the module, in program
    /// order, with the callee's index.
    fn calls_in(&self, ctx: &Context, func: Op) -> Vec<(Op, usize)> {
        let mut calls = Vec::new();
        ctx.for_each_op(func, &mut |op| {
            if let Some(callee) = callee_name(ctx, op).and_then(|n| self.by_name.get(&n)) {
                calls.push((op, *callee));
            }
        });
        calls
    }

    /// For each function, whether it lies on a cycle of the call graph.
    fn recursive(&self) -> Vec<bool> {
        let (component, sizes) = self.components();
        (0..self.funcs.len())
            .map(|f| sizes[component[f]] > 1 || self.calls[f].iter().any(|&(_, c)| c == f))
            .collect()
    }

    /// The functions, callees before their callers (cycles in some order).
    fn bottom_up(&self) -> Vec<usize> {
        let (component, _) = self.components();
        let mut order: Vec<usize> = (0..self.funcs.len()).collect();
        // Tarjan numbers components in reverse topological order: callees first.
        order.sort_by_key(|&f| component[f]);
        order
    }

    /// Strongly connected components (Tarjan, iterative): the component of each function and
    /// the size of each component.
    fn components(&self) -> (Vec<usize>, Vec<usize>) {
        const UNSEEN: usize = usize::MAX;
        let n = self.funcs.len();
        let (mut index, mut low) = (vec![UNSEEN; n], vec![0; n]);
        let mut on_stack = vec![false; n];
        let mut component = vec![UNSEEN; n];
        let mut sizes = Vec::new();
        let mut stack = Vec::new();
        let mut next = 0;
        for root in 0..n {
            if index[root] != UNSEEN {
                continue;
            }
            // (function, next call to follow)
            let mut frames = vec![(root, 0usize)];
            index[root] = next;
            low[root] = next;
            next += 1;
            stack.push(root);
            on_stack[root] = true;
            while let Some((f, k)) = frames.last_mut() {
                let f = *f;
                if let Some(&(_, callee)) = self.calls[f].get(*k) {
                    *k += 1;
                    if index[callee] == UNSEEN {
                        index[callee] = next;
                        low[callee] = next;
                        next += 1;
                        stack.push(callee);
                        on_stack[callee] = true;
                        frames.push((callee, 0));
                    } else if on_stack[callee] {
                        low[f] = low[f].min(index[callee]);
                    }
                    continue;
                }
                frames.pop();
                if let Some(&(caller, _)) = frames.last() {
                    low[caller] = low[caller].min(low[f]);
                }
                if low[f] == index[f] {
                    let id = sizes.len();
                    let mut size = 0;
                    while let Some(g) = stack.pop() {
                        on_stack[g] = false;
                        component[g] = id;
                        size += 1;
                        if g == f {
                            break;
                        }
                    }
                    sizes.push(size);
                }
            }
        }
        (component, sizes)
    }
}

/// The callee of a `func.call` naming a symbol of the enclosing table directly (`@f`, not
/// `@m::@f`).
fn callee_name(ctx: &Context, op: Op) -> Option<Ident> {
    let attr = ctx.view::<CallOp>(op)?.callee(ctx)?;
    match ctx.attr_kind(attr) {
        AttrKind::SymbolRef(path) if path.len() == 1 => Some(path[0]),
        _ => None,
    }
}

/// True if `func` has a body of one block ending in `func.return`.
fn can_inline(ctx: &Context, func: Op) -> bool {
    let blocks = ctx.blocks(ctx.region(func, 0));
    blocks.len() == 1
        && ctx
            .last_op(blocks[0])
            .is_some_and(|t| ctx.view::<ReturnOp>(t).is_some())
}

/// Replaces `call` with a copy of the body of `callee`.
fn inline_call(ctx: &mut Context, call: Op, callee: Op) {
    let body = ctx.blocks(ctx.region(callee, 0))[0];
    let mut map = ValueMap::new();
    for (&arg, &operand) in ctx.block_args(body).iter().zip(ctx.operands(call)) {
        map.map(arg, operand);
    }
    let call_loc = ctx.op_loc(call);
    let mut locations: FxHashMap<Location, Location> = FxHashMap::default();
    let ops: Vec<Op> = ctx.block_ops(body).collect();
    let (terminator, ops) = ops.split_last().expect("can_inline checked the terminator");
    for &op in ops {
        let copy = ctx.clone_op(op, &mut map);
        if call_loc != Location::Unknown {
            let mut copied = Vec::new();
            ctx.for_each_op(copy, &mut |o| copied.push(o));
            for o in copied {
                let loc = ctx.op_loc(o);
                let at = *locations.entry(loc).or_insert_with(|| {
                    ctx.composite_loc(CompositeLocKind::CallSite {
                        callee: loc,
                        caller: call_loc,
                    })
                });
                ctx.set_op_loc(o, at);
            }
        }
        ctx.insert_op(InsertPoint::Before(call), copy);
    }
    let results: SmallVec<[Value; 2]> = ctx
        .operands(*terminator)
        .iter()
        .map(|v| map.lookup(*v))
        .collect();
    ctx.replace_op(call, &results);
}
