//! Differentiates a graph function in reverse mode: adds `@f_grad`, which returns what `@f`
//! returns and then the gradients of one of its results with respect to the chosen arguments.
//!
//! # Applies when
//! Training: a function computing a loss from parameters and data (`@loss(%w, %b, %x, %y)`)
//! needs the loss's gradients with respect to the parameters, which this pass derives from the
//! forward program instead of a user writing them out. `grad{func=loss wrt=0,1}` asks for the
//! gradients of result 0 of `@loss` with respect to arguments 0 and 1.
//!
//! # Changes to the IR
//! - A copy of `@func` named `name` (default `<func>_grad`) is inserted after it; `@func`
//!   itself is unchanged. A declaration of that name (`func.func private @f_grad(...)`, so
//!   that other functions of the module can call the gradient before it exists) is replaced
//!   by the copy, which takes its visibility; its type must be the copy's. In the copy:
//! - Composite ops on the gradient's path that state no derivative rule of their own
//!   (`layer_norm`, `gelu`, `sdpa`, `linear`, pools, ...) are replaced by their decomposition
//!   (`dlc_graph::decompose::decompose_op`), repeatedly; composites with a rule (`softmax`,
//!   `log_softmax`, `silu`, `conv2d`) stay whole. A `graph.fusion` on the path is replaced by
//!   the ops it groups. A `graph.rnn` on the path is replaced by its
//!   time loop unrolled into primitives (`dlc_graph::autodiff::unroll::unroll_rnn`: one slice,
//!   matmul and gate computation per step and direction, `sequence_lens` as masks), which needs
//!   a static number of steps.
//! - A value is *active* when it is a float tensor computed from a `wrt` argument. Walking the
//!   ops backwards from the differentiated result, each op with a cotangent on a result and an
//!   active operand builds its operands' cotangents with its `Differentiable` rule
//!   (`dlc_graph::autodiff`), just before the `func.return`, at its own location; cotangents of
//!   a value used several times are added. Forward values the rules read are reused, not
//!   recomputed.
//! - A `graph.if` on the path is differentiated by a second `graph.if` on the same condition,
//!   built before the `func.return`: each of its regions recomputes the forward region (cloned,
//!   composites on the path expanded in it), differentiates it back from the result
//!   cotangents, and yields the cotangents of the outer values the forward regions read (zeros
//!   from a region that does not read one).
//! - A `graph.loop` on the path is replaced, where it stands, by a *tape* loop: the same body,
//!   which also counts its iterations and stacks each iteration's carried values as scan
//!   results. Before the `func.return`, a backward `graph.loop` runs as many iterations;
//!   iteration `j` reads the state of forward iteration `n − 1 − j` from the stacks, recomputes
//!   the body on it and differentiates it back, carrying the carried values' cotangents and
//!   summing those of the outer values the body reads. Its results are the cotangents of the
//!   initial carried values and of those outer values.
//! - The differentiated result's cotangent (the seed) is 1 when it has one element and static
//!   dims; otherwise the function takes one more argument, the seed, of the result's type.
//! - The return gains one value per `wrt` argument, its gradient, of the argument's type:
//!   zeros when the result does not depend on it. `res_attrs` are dropped, and `arg_attrs`
//!   when a seed argument is added.
//!
//! The pass counts the ops it differentiated, the composites it decomposed and the recurrences
//! it unrolled. A missing function, an index out of range, a non-float argument or result, a
//! name taken by a function with a body, or a declaration of another type is an error at the
//! function. An op on the gradient's path without a rule (`graph.bitcast`, an op of another
//! dialect without `Differentiable`; an op whose regions read an active value counts as on the
//! path), a rule refusing its
//! instance (a `conv2d` over `?` spatial dims, a `graph.rnn` over a `?` number of steps) or a
//! result that depends on a `wrt` argument only through integer values (a cast to `i32`, an
//! `argmax`) is an error at that op. Through `graph.dim` (a shape) a gradient is zero, not an
//! error.
//!
//! # Risks and limitations
//! - Derivatives at points where they are not defined follow PyTorch: `relu` and `abs` give 0
//!   at 0, ties of `max`/`min` and of `reduce_max`/`reduce_min` share the cotangent, `floor`,
//!   `ceil`, `round` and `sign` give 0; `sqrt` at 0 gives an infinite gradient.
//! - The function's entry block is walked, and the regions of each `graph.if` and
//!   `graph.loop` on the path; any other op with regions on the path is refused. A
//!   `graph.if`'s forward region runs again in its backward `graph.if` (recomputed, not
//!   stored); a loop stores each iteration's carried values (memory grows with the trip count)
//!   and recomputes the rest of its body. Every float carried value of a loop is taken as
//!   active. A carried value whose size changes between iterations cannot be stacked: a
//!   run-time error, as for any scan of such a value.
//! - A broadcast of a `?` dim that is 1 at run time against a larger one is not seen: a `?` dim
//!   is taken to have the other operand's size.
//!
//! # Examples
//! 1. The gradient of a sum of squares:
//!    ```text
//!    func.func @f(%x: tensor<3xf32>) -> tensor<f32> {
//!      %0 = graph.mul %x, %x : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
//!      %1 = graph.reduce_sum %0 {axes = array<i64: 0>, keepdim = false} : tensor<3xf32> -> tensor<f32>
//!      return %1 : tensor<f32>
//!    }
//!    ```
//!    with `grad{func=f}` gains
//!    ```text
//!    func.func @f_grad(%arg0: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>) {
//!      %0 = graph.mul %arg0, %arg0 : tensor<3xf32>
//!      %1 = graph.reduce_sum %0 {axes = array<i64: 0>, keepdim = false} : tensor<3xf32> -> tensor<f32>
//!      %2 = graph.constant dense<1.000000e+00> : tensor<f32>
//!      %3 = graph.reshape %2 {shape = array<i64: 1>} : tensor<f32> -> tensor<1xf32>
//!      %4 = graph.broadcast_to %3 {shape = array<i64: 3>} : tensor<1xf32> -> tensor<3xf32>
//!      %5 = graph.mul %4, %arg0 : tensor<3xf32>
//!      %6 = graph.mul %4, %arg0 : tensor<3xf32>
//!      %7 = graph.add %5, %6 : tensor<3xf32>
//!      return %1, %7 : tensor<f32>, tensor<3xf32>
//!    }
//!    ```
//! 2. A result that is not a scalar takes its seed as an argument: with `grad{func=g wrt=1}`,
//!    ```text
//!    func.func @g(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
//!      %0 = graph.add %a, %b : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
//!      return %0 : tensor<2x3xf32>
//!    }
//!    ```
//!    gains
//!    ```text
//!    func.func @g_grad(%arg0: tensor<2x3xf32>, %arg1: tensor<3xf32>, %arg2: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>) {
//!      %0 = graph.add %arg0, %arg1 : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
//!      %1 = graph.reduce_sum %arg2 {axes = array<i64: 0>, keepdim = true} : tensor<2x3xf32> -> tensor<1x3xf32>
//!      %2 = graph.reshape %1 {shape = array<i64: 3>} : tensor<1x3xf32> -> tensor<3xf32>
//!      return %0, %2 : tensor<2x3xf32>, tensor<3xf32>
//!    }
//!    ```
//!
//! # Counter-examples
//! 1. `%i = graph.cast %x : tensor<4xf32> -> tensor<4xi32>` followed by a cast back and a sum:
//!    the result depends on `%x` only through integers, so no gradient flows; the pass
//!    reports the cast instead of returning zeros.

use dlc_func::{module_funcs, FuncOp};
use dlc_graph::autodiff::unroll::unroll_rnn;
use dlc_graph::autodiff::{Differentiable, Vjp};
use dlc_graph::control::{build_if, build_loop};
use dlc_graph::decompose::{decompose_op, GraphBuilder};
use dlc_graph::ops::{DimOp, FusionOp, IfOp, LoopOp, RnnOp, YieldOp};
use dlc_graph::verify::types_compatible;
use dlc_graph::{tensor_parts, GraphOps};
use dlc_ir::builtin::ModuleOp;
use dlc_ir::pass::{Anchor, OptionKind, OptionSpec, OptionValues, Pass, PassInfo, PassRun};
use dlc_ir::symbol::symbol_name;
use dlc_ir::{
    op_error, Block, Context, DenseValue, Diagnostic, InsertPoint, Op, OpSpec, OpView, Type, Value,
    ValueMap, DYNAMIC,
};
use rustc_hash::{FxHashMap, FxHashSet};

/// The pass description.
pub static INFO: PassInfo = PassInfo {
    argument: "grad",
    summary: "Differentiates a graph function in reverse mode: adds `@f_grad`, which returns \
              what `@f` returns and then the gradients of one of its results with respect to \
              the chosen arguments.",
    anchor: Anchor::op::<ModuleOp>(),
    options: &[
        OptionSpec::new("func", OptionKind::Str, "", "The function to differentiate"),
        OptionSpec::new(
            "wrt",
            OptionKind::IntList,
            "",
            "The arguments to differentiate with respect to (default: every float argument)",
        ),
        OptionSpec::new(
            "result",
            OptionKind::Int,
            "0",
            "The result to differentiate",
        ),
        OptionSpec::new(
            "name",
            OptionKind::Str,
            "",
            "The new function's name (default: the function's name with `_grad`)",
        ),
    ],
    statistics: &[
        (
            "ops-differentiated",
            "Number of ops whose derivative rule ran",
        ),
        (
            "composites-decomposed",
            "Number of composite ops decomposed to be differentiated",
        ),
        (
            "recurrences-unrolled",
            "Number of graph.rnn ops unrolled to be differentiated",
        ),
    ],
    create,
};

fn create(options: &OptionValues) -> Result<Box<dyn Pass>, String> {
    let func = options.str("func").to_string();
    if func.is_empty() {
        return Err("option 'func' is required: the function to differentiate".into());
    }
    let result = usize::try_from(options.int("result"))
        .map_err(|_| "option 'result' must not be negative".to_string())?;
    let wrt = options
        .int_list("wrt")
        .iter()
        .map(|&i| usize::try_from(i).map_err(|_| format!("option 'wrt': {i} is negative")))
        .collect::<Result<Vec<_>, _>>()?;
    let name = match options.str("name") {
        "" => format!("{func}_grad"),
        n => n.to_string(),
    };
    Ok(Box::new(Grad {
        func,
        wrt,
        result,
        name,
    }))
}

/// What one run counted.
struct Counts {
    differentiated: usize,
    decomposed: usize,
    unrolled: usize,
}

struct Grad {
    func: String,
    /// Empty: every float argument.
    wrt: Vec<usize>,
    result: usize,
    name: String,
}

impl Pass for Grad {
    fn run(&self, ctx: &mut Context, run: &mut PassRun<'_>) -> Result<(), Diagnostic> {
        let module = run.op();
        let funcs = module_funcs(ctx, module);
        let named = |name: &str| {
            funcs
                .iter()
                .copied()
                .find(|f| symbol_name(ctx, *f) == Some(name))
        };
        let Some(func) = named(&self.func) else {
            return Err(op_error(
                ctx,
                module,
                format!("grad: no function named @{}", self.func),
            ));
        };
        // A declaration of the name is what the new function defines (so a function written
        // beside `@func` can call the gradient); anything else of that name is a clash.
        let declared = named(&self.name);
        if let Some(existing) = declared.filter(|f| !FuncOp(*f).is_declaration(ctx)) {
            return Err(op_error(
                ctx,
                existing,
                format!("grad: a function named @{} already exists", self.name),
            ));
        }
        if FuncOp(func).is_declaration(ctx) || ctx.blocks(ctx.region(func, 0)).len() != 1 {
            return Err(op_error(
                ctx,
                func,
                "grad: the function must have a body of one block",
            ));
        }
        let mut map = ValueMap::new();
        let copy = ctx.clone_op(func, &mut map);
        ctx.insert_op(InsertPoint::After(func), copy);
        let name = ctx.string_attr(&self.name);
        ctx.set_attr(copy, "sym_name", name);
        let stats = match self.differentiate(ctx, copy) {
            Ok(stats) => stats,
            Err(e) => {
                ctx.erase_op(copy);
                return Err(e);
            }
        };
        if let Some(declaration) = declared {
            let (want, have) = (
                FuncOp(declaration).function_type(ctx),
                FuncOp(copy).function_type(ctx),
            );
            if want != have {
                let text = |t: Option<dlc_ir::Attribute>| {
                    t.and_then(|t| ctx.attr_as_type(t))
                        .map_or_else(String::new, |t| type_text(ctx, t))
                };
                let message = format!(
                    "grad: @{} is declared as {}, but the gradient function is {}",
                    self.name,
                    text(want),
                    text(have)
                );
                ctx.erase_op(copy);
                return Err(op_error(ctx, declaration, message));
            }
            if let Some(visibility) = ctx.attr(declaration, "sym_visibility") {
                ctx.set_attr(copy, "sym_visibility", visibility);
            }
            ctx.erase_op(declaration);
        }
        run.add_stat("ops-differentiated", stats.differentiated as u64);
        run.add_stat("composites-decomposed", stats.decomposed as u64);
        run.add_stat("recurrences-unrolled", stats.unrolled as u64);
        Ok(())
    }
}

impl Grad {
    /// Turns `func` (the copy) into the gradient function; what it counted.
    fn differentiate(&self, ctx: &mut Context, func: Op) -> Result<Counts, Diagnostic> {
        let entry = ctx.blocks(ctx.region(func, 0))[0];
        let args = ctx.block_args(entry).to_vec();
        let ret = ctx
            .last_op(entry)
            .filter(|op| ctx.num_results(*op) == 0 && !ctx.operands(*op).is_empty())
            .ok_or_else(|| op_error(ctx, func, "grad: the function returns nothing"))?;
        let Some(&result) = ctx.operands(ret).get(self.result) else {
            return Err(op_error(
                ctx,
                func,
                format!(
                    "grad: option 'result' is {}, but the function returns {} value(s)",
                    self.result,
                    ctx.operands(ret).len()
                ),
            ));
        };
        if !is_float_tensor(ctx, result) {
            return Err(op_error(
                ctx,
                func,
                format!(
                    "grad: result #{} has type {}; only a float tensor can be differentiated",
                    self.result,
                    type_text(ctx, ctx.value_type(result))
                ),
            ));
        }
        let wrt = self.wrt_args(ctx, func, &args)?;
        let expanded = expand(ctx, entry, &wrt, &[result])?;
        // The result again: a decomposed composite's value was replaced.
        let result = ctx.operand(ret, self.result);
        let active = active_values(ctx, entry, &wrt);
        // Each argument on its own: one that reaches the result only through integers would
        // get zeros, silently, while another keeps the result active.
        let needed = needed_values(ctx, entry, &[result]);
        for &arg in &wrt {
            let reach = active_values(ctx, entry, &[arg]);
            if let Some(op) = lost_on_the_way(ctx, entry, &reach, &needed, result) {
                return Err(op_error(
                    ctx,
                    op,
                    "grad: the differentiated result depends on a 'wrt' argument only through \
                     this op's non-float result, which carries no gradient",
                ));
            }
        }
        let seed = self.seed(ctx, func, entry, ret, result);
        let mut cotangents: FxHashMap<Value, Value> = FxHashMap::default();
        cotangents.insert(result, seed);
        let mut count = 0;
        if active.contains(&result) {
            let ops: Vec<Op> = ctx.block_ops(entry).filter(|op| *op != ret).collect();
            count = backprop(ctx, &ops, ret, &active, &mut cotangents)?;
        }
        let loc = ctx.op_loc(func);
        let mut returned = ctx.operands(ret).to_vec();
        for &arg in &wrt {
            let mut b = GraphBuilder::new(ctx, InsertPoint::Before(ret), loc);
            returned.push(cotangent_or_zeros(&mut b, &cotangents, arg));
        }
        ctx.set_operands(ret, &returned);
        let inputs: Vec<_> = ctx
            .block_args(entry)
            .iter()
            .map(|a| ctx.value_type(*a))
            .collect();
        let results: Vec<_> = returned.iter().map(|v| ctx.value_type(*v)).collect();
        let ty = ctx.function_type(&inputs, &results);
        let attr = ctx.type_attr(ty);
        ctx.set_attr(func, "function_type", attr);
        ctx.remove_attr(func, "res_attrs");
        if inputs.len() != args.len() {
            ctx.remove_attr(func, "arg_attrs");
        }
        Ok(Counts {
            differentiated: count,
            decomposed: expanded.0,
            unrolled: expanded.1,
        })
    }

    /// The arguments to differentiate with respect to, each a float tensor.
    fn wrt_args(&self, ctx: &Context, func: Op, args: &[Value]) -> Result<Vec<Value>, Diagnostic> {
        if self.wrt.is_empty() {
            return Ok(args
                .iter()
                .copied()
                .filter(|a| is_float_tensor(ctx, *a))
                .collect());
        }
        self.wrt
            .iter()
            .map(|&i| {
                let arg = *args.get(i).ok_or_else(|| {
                    op_error(
                        ctx,
                        func,
                        format!(
                            "grad: option 'wrt' names argument #{i}, but the function has {} \
                             argument(s)",
                            args.len()
                        ),
                    )
                })?;
                if !is_float_tensor(ctx, arg) {
                    return Err(op_error(
                        ctx,
                        func,
                        format!(
                            "grad: argument #{i} has type {}; only float tensors can be \
                             differentiated",
                            type_text(ctx, ctx.value_type(arg))
                        ),
                    ));
                }
                Ok(arg)
            })
            .collect()
    }

    /// The cotangent of the differentiated result: a constant 1 for one element, otherwise a
    /// new last argument of the function.
    fn seed(&self, ctx: &mut Context, func: Op, entry: Block, ret: Op, result: Value) -> Value {
        let ty = ctx.value_type(result);
        let shape = ctx.shape(ty).unwrap_or(&[]).to_vec();
        if shape.iter().all(|d| *d == 1) {
            let loc = ctx.op_loc(func);
            let mut b = GraphBuilder::new(ctx, InsertPoint::Before(ret), loc);
            let elem = b.elem(result);
            return b.splat(1.0, elem, &shape);
        }
        ctx.add_block_arg(entry, ty)
    }
}

/// Walks `ops` backwards, building before `end` each one's operand cotangents from its results'
/// cotangents in `cotangents` (for the `active` operands only) and adding them there; the
/// number of ops differentiated. A `graph.if` is differentiated by [`if_vjp`].
fn backprop(
    ctx: &mut Context,
    ops: &[Op],
    end: Op,
    active: &FxHashSet<Value>,
    cotangents: &mut FxHashMap<Value, Value>,
) -> Result<usize, Diagnostic> {
    let mut count = 0;
    for &op in ops.iter().rev() {
        let outs: Vec<Option<Value>> = ctx
            .results(op)
            .map(|r| cotangents.get(&r).copied())
            .collect();
        if outs.iter().all(Option::is_none) {
            continue;
        }
        if ctx.view::<IfOp>(op).is_some() {
            let captured = captured_active(ctx, op, active);
            if captured.is_empty() {
                continue;
            }
            let (grads, inner) = if_vjp(ctx, op, end, &outs, &captured, active)?;
            count += 1 + inner;
            for (v, g) in captured.into_iter().zip(grads) {
                accumulate(ctx, end, op, cotangents, v, g);
            }
            continue;
        }
        if ctx.view::<LoopOp>(op).is_some() {
            let captured = captured_active(ctx, op, active);
            let init: Vec<Value> = ctx.operands(op)[2..].to_vec();
            if captured.is_empty() && !init.iter().any(|v| active.contains(v)) {
                continue;
            }
            let (grads, inner) = loop_vjp(ctx, op, end, &outs, &captured, active)?;
            count += 1 + inner;
            let targets = init.into_iter().chain(captured);
            for (v, g) in targets.zip(grads) {
                if active.contains(&v) {
                    accumulate(ctx, end, op, cotangents, v, g);
                }
            }
            continue;
        }
        let wanted: Vec<bool> = ctx
            .operands(op)
            .iter()
            .map(|v| active.contains(v))
            .collect();
        // An op with regions (`graph.loop`) may read active values there rather than as
        // operands: the gradient flows through it all the same, and it has no rule.
        let reads_active =
            !ctx.regions(op).is_empty() && !captured_active(ctx, op, active).is_empty();
        if !wanted.iter().any(|w| *w) && !reads_active {
            continue;
        }
        let grads = apply_rule(ctx, op, end, &outs, &wanted)?;
        count += 1;
        let operands = ctx.operands(op).to_vec();
        for ((v, g), want) in operands.into_iter().zip(grads).zip(wanted) {
            if let (Some(g), true) = (g, want) {
                accumulate(ctx, end, op, cotangents, v, g);
            }
        }
    }
    Ok(count)
}

/// Adds cotangent `g` of `v` (from `op`'s rule) to `cotangents`, with a `graph.add` before
/// `end` when `v` has one already.
fn accumulate(
    ctx: &mut Context,
    end: Op,
    op: Op,
    cotangents: &mut FxHashMap<Value, Value>,
    v: Value,
    g: Value,
) {
    let total = match cotangents.get(&v) {
        Some(&old) => {
            let loc = ctx.op_loc(op);
            let mut b = GraphBuilder::new(ctx, InsertPoint::Before(end), loc);
            b.binary("graph.add", old, g)
        }
        None => g,
    };
    cotangents.insert(v, total);
}

/// The active values defined outside `op` that ops nested in its regions read, in order of
/// first use.
fn captured_active(ctx: &Context, op: Op, active: &FxHashSet<Value>) -> Vec<Value> {
    let mut inside: FxHashSet<Value> = FxHashSet::default();
    let mut used = Vec::new();
    ctx.for_each_op(op, &mut |inner| {
        if inner == op {
            return;
        }
        inside.extend(ctx.results(inner));
        for &region in ctx.regions(inner) {
            for &block in ctx.blocks(region) {
                inside.extend(ctx.block_args(block));
            }
        }
        used.extend_from_slice(ctx.operands(inner));
    });
    let mut captured: Vec<Value> = Vec::new();
    for v in used {
        if active.contains(&v) && !inside.contains(&v) && !captured.contains(&v) {
            captured.push(v);
        }
    }
    captured
}

/// The cotangents of the active outer values `captured` that the regions of `if_op` read,
/// given the cotangents `outs` of its results: a `graph.if` on the same condition, built before
/// `end`, whose regions recompute the forward region (its ops cloned, composites on the path
/// expanded) and differentiate it back to `captured` (zeros for one that region does not read).
/// Also the number of ops differentiated inside.
fn if_vjp(
    ctx: &mut Context,
    if_op: Op,
    end: Op,
    outs: &[Option<Value>],
    captured: &[Value],
    active: &FxHashSet<Value>,
) -> Result<(Vec<Value>, usize), Diagnostic> {
    let loc = ctx.op_loc(if_op);
    // The results' cotangents, zeros where none flows, defined before the new `graph.if`.
    let mut seeds = Vec::with_capacity(outs.len());
    for (i, out) in outs.iter().enumerate() {
        let seed = match out {
            Some(g) => *g,
            None => {
                let y = ctx.result(if_op, i);
                let mut b = GraphBuilder::new(ctx, InsertPoint::Before(end), loc);
                b.zeros_like(y)
            }
        };
        seeds.push(seed);
    }
    let types: Vec<_> = captured.iter().map(|v| ctx.value_type(*v)).collect();
    let cond = ctx.operand(if_op, 0);
    let (back, then_block, else_block) = build_if(ctx, InsertPoint::Before(end), cond, &types, loc);
    let mut count = 0;
    for (index, block) in [(0, then_block), (1, else_block)] {
        let source = ctx.blocks(ctx.region(if_op, index))[0];
        let body: Vec<Op> = ctx.block_ops(source).collect();
        let Some((&terminator, body)) = body.split_last() else {
            continue;
        };
        let mut map = ValueMap::new();
        let (yield_op, inner_active) =
            recompute(ctx, body, terminator, block, &mut map, captured, active)?;
        let yielded = ctx.operands(yield_op).to_vec();
        let mut inner: FxHashMap<Value, Value> = FxHashMap::default();
        for (&v, &seed) in yielded.iter().zip(&seeds) {
            if inner_active.contains(&v) {
                accumulate(ctx, yield_op, if_op, &mut inner, v, seed);
            }
        }
        let ops: Vec<Op> = ctx.block_ops(block).filter(|op| *op != yield_op).collect();
        count += backprop(ctx, &ops, yield_op, &inner_active, &mut inner)?;
        let mut b = GraphBuilder::new(ctx, InsertPoint::Before(yield_op), loc);
        let grads: Vec<Value> = captured
            .iter()
            .map(|&c| cotangent_or_zeros(&mut b, &inner, c))
            .collect();
        ctx.set_operands(yield_op, &grads);
    }
    Ok((ctx.results(back).collect(), count))
}

/// `v`'s cotangent in `cotangents`, given `v`'s type exactly, or zeros of that type.
fn cotangent_or_zeros(
    b: &mut GraphBuilder<'_>,
    cotangents: &FxHashMap<Value, Value>,
    v: Value,
) -> Value {
    match cotangents.get(&v) {
        Some(&g) => b.reshape_like(g, v),
        None => b.zeros_like(v),
    }
}

/// A region's `body` (its ops but the `terminator`) computed again at the end of `block`, its
/// values mapped through `map` (pre-seeded with what stands for the region's arguments), and
/// ended by a `graph.yield` of the terminator's operands. The ops the yielded floats need that
/// read one of `seeds` and have no rule are expanded (the yield stays current). The yield, and
/// the values active in `block`: those computed from `seeds`, and `active`.
fn recompute(
    ctx: &mut Context,
    body: &[Op],
    terminator: Op,
    block: Block,
    map: &mut ValueMap,
    seeds: &[Value],
    active: &FxHashSet<Value>,
) -> Result<(Op, FxHashSet<Value>), Diagnostic> {
    let loc = ctx.op_loc(terminator);
    clone_into(ctx, body, block, map);
    let yielded: Vec<Value> = ctx
        .operands(terminator)
        .iter()
        .map(|v| map.lookup(*v))
        .collect();
    let spec = OpSpec::new(ctx, YieldOp::NAME, loc).operands(&yielded);
    let yield_op = ctx.build(InsertPoint::End(block), spec);
    let targets: Vec<Value> = yielded
        .into_iter()
        .filter(|v| is_float_tensor(ctx, *v))
        .collect();
    expand(ctx, block, seeds, &targets)?;
    let mut inner_active = active_values(ctx, block, seeds);
    inner_active.extend(active.iter().copied());
    Ok((yield_op, inner_active))
}

/// Copies of `ops`, in order, at the end of `block`, their operands mapped through `map`.
fn clone_into(ctx: &mut Context, ops: &[Op], block: Block, map: &mut ValueMap) {
    for &op in ops {
        let copy = ctx.clone_op(op, map);
        ctx.insert_op(InsertPoint::End(block), copy);
    }
}

/// The cotangents of a `graph.loop`'s initial carried values, then of the active outer values
/// `captured` its body reads, given the cotangents `outs` of its results; and the number of
/// ops differentiated inside. The loop is first replaced, where it stands, by a *tape* loop
/// that also counts its iterations and stacks each iteration's carried values (as scan
/// results). Before `end`, a backward `graph.loop` then runs as many iterations, iteration `j`
/// reading the state of forward iteration `k = n − 1 − j` from the stacks, recomputing the body
/// on it (cloned; composites on the path expanded) and differentiating it back: it carries the
/// carried values' cotangents and sums the captured values'. Every float carried value is taken
/// as active. A carried value whose size changes between iterations cannot be stacked (a
/// run-time error, as for any scan).
fn loop_vjp(
    ctx: &mut Context,
    loop_op: Op,
    end: Op,
    outs: &[Option<Value>],
    captured: &[Value],
    active: &FxHashSet<Value>,
) -> Result<(Vec<Value>, usize), Diagnostic> {
    let loc = ctx.op_loc(loop_op);
    let operands = ctx.operands(loop_op).to_vec();
    let (max_trip, cond, init) = (operands[0], operands[1], operands[2..].to_vec());
    let carried = init.len();
    let result_types: Vec<Type> = ctx.results(loop_op).map(|r| ctx.value_type(r)).collect();
    let scan_types = result_types[carried..].to_vec();
    let carried_types = result_types[..carried].to_vec();
    let source = ctx.blocks(ctx.region(loop_op, 0))[0];
    let body: Vec<Op> = ctx.block_ops(source).collect();
    let Some((&terminator, body)) = body.split_last() else {
        return Err(op_error(ctx, loop_op, "grad: the loop has an empty body"));
    };
    let body_args = ctx.block_args(source).to_vec();
    let i64_scalar = ctx.tensor_type(&[], Type::I64);

    // The tape loop: the original body, a counter, and each iteration's carried values stacked.
    let stacked: Vec<Type> = carried_types
        .iter()
        .map(|t| {
            let mut shape = vec![DYNAMIC];
            shape.extend_from_slice(ctx.shape(*t).unwrap_or(&[]));
            ctx.tensor_type(&shape, ctx.element_type(*t))
        })
        .collect();
    let mut tape_types = carried_types.clone();
    tape_types.push(i64_scalar);
    tape_types.extend(&scan_types);
    tape_types.extend(&stacked);
    let zero = {
        let mut b = GraphBuilder::new(ctx, InsertPoint::Before(loop_op), loc);
        b.splat(0.0, Type::I64, &[])
    };
    let mut tape_init = init.clone();
    tape_init.push(zero);
    let (tape, tape_block) = build_loop(
        ctx,
        InsertPoint::Before(loop_op),
        max_trip,
        cond,
        &tape_init,
        &tape_types,
        loc,
    );
    let tape_args = ctx.block_args(tape_block).to_vec();
    let mut map = ValueMap::new();
    for (old, new) in body_args.iter().zip(&tape_args) {
        map.map(*old, *new);
    }
    clone_into(ctx, body, tape_block, &mut map);
    let yielded: Vec<Value> = ctx
        .operands(terminator)
        .iter()
        .map(|v| map.lookup(*v))
        .collect();
    let counter = tape_args[2 + carried];
    let next_count = {
        let mut b = GraphBuilder::new(ctx, InsertPoint::End(tape_block), loc);
        let one = b.splat(1.0, Type::I64, &[]);
        b.binary("graph.add", counter, one)
    };
    let mut tape_yield = yielded[..1 + carried].to_vec();
    tape_yield.push(next_count);
    tape_yield.extend_from_slice(&yielded[1 + carried..]);
    tape_yield.extend_from_slice(&tape_args[2..2 + carried]);
    let spec = OpSpec::new(ctx, YieldOp::NAME, loc).operands(&tape_yield);
    ctx.build(InsertPoint::End(tape_block), spec);
    let tape_results: Vec<Value> = ctx.results(tape).collect();
    let mut replacing = tape_results[..carried].to_vec();
    replacing.extend_from_slice(&tape_results[carried + 1..carried + 1 + scan_types.len()]);
    let trips = tape_results[carried];
    let stacks = tape_results[carried + 1 + scan_types.len()..].to_vec();

    // The backward loop, before `end`: it carries the carried values' cotangents and the
    // captured values' sums.
    let mut seeds = Vec::with_capacity(carried + captured.len());
    {
        let mut b = GraphBuilder::new(ctx, InsertPoint::Before(end), loc);
        for (i, out) in outs.iter().enumerate().take(carried) {
            let r = replacing[i];
            seeds.push(match out {
                Some(g) => b.reshape_like(*g, r),
                None => b.zeros_like(r),
            });
        }
        for &c in captured {
            seeds.push(b.zeros_like(c));
        }
    }
    let true_cond = {
        let mut b = GraphBuilder::new(ctx, InsertPoint::Before(end), loc);
        let ty = b.ctx.tensor_type(&[], Type::I1);
        b.constant(ty, &[DenseValue::Int(1)])
    };
    let back_types: Vec<Type> = seeds.iter().map(|v| ctx.value_type(*v)).collect();
    let (back, block) = build_loop(
        ctx,
        InsertPoint::Before(end),
        trips,
        true_cond,
        &seeds,
        &back_types,
        loc,
    );
    let args = ctx.block_args(block).to_vec();
    let (j, ct_carried, sums) = (args[0], &args[2..2 + carried], &args[2 + carried..]);
    // k = n − 1 − j, the forward iteration this one undoes, and its state from the stacks.
    let (k, states) = {
        let mut b = GraphBuilder::new(ctx, InsertPoint::End(block), loc);
        let one = b.splat(1.0, Type::I64, &[]);
        let last = b.binary("graph.sub", trips, one);
        let k = b.binary("graph.sub", last, j);
        let states: Vec<Value> = stacks.iter().map(|s| b.gather(*s, k, 0)).collect();
        (k, states)
    };
    // The body again on that state.
    let mut map = ValueMap::new();
    map.map(body_args[0], k);
    map.map(body_args[1], true_cond);
    for (old, new) in body_args[2..].iter().zip(&states) {
        map.map(*old, *new);
    }
    let mut seeds_in: Vec<Value> = states
        .iter()
        .copied()
        .filter(|s| is_float_tensor(ctx, *s))
        .collect();
    seeds_in.extend_from_slice(captured);
    let (yield_op, inner_active) =
        recompute(ctx, body, terminator, block, &mut map, &seeds_in, active)?;
    let forward = ctx.operands(yield_op).to_vec();
    let mut inner: FxHashMap<Value, Value> = FxHashMap::default();
    // The next carried values' cotangents are what this iteration carries in; a scan element's
    // is row k of its result's cotangent.
    for (i, &v) in forward[1..1 + carried].iter().enumerate() {
        if inner_active.contains(&v) {
            accumulate(ctx, yield_op, loop_op, &mut inner, v, ct_carried[i]);
        }
    }
    for (s, &v) in forward[1 + carried..].iter().enumerate() {
        if let (Some(g), true) = (outs[carried + s], inner_active.contains(&v)) {
            let row = {
                let mut b = GraphBuilder::new(ctx, InsertPoint::Before(yield_op), loc);
                b.gather(g, k, 0)
            };
            accumulate(ctx, yield_op, loop_op, &mut inner, v, row);
        }
    }
    let ops: Vec<Op> = ctx.block_ops(block).filter(|op| *op != yield_op).collect();
    let count = backprop(ctx, &ops, yield_op, &inner_active, &mut inner)?;
    // The next iteration carries the states' cotangents (each of its carried value's type, as
    // the states are) and the sums.
    let mut next = vec![true_cond];
    let mut b = GraphBuilder::new(ctx, InsertPoint::Before(yield_op), loc);
    for &state in &states {
        next.push(cotangent_or_zeros(&mut b, &inner, state));
    }
    for (&c, &sum) in captured.iter().zip(sums) {
        next.push(match inner.get(&c) {
            Some(&g) => {
                let g = b.reshape_like(g, c);
                b.binary("graph.add", sum, g)
            }
            None => sum,
        });
    }
    ctx.set_operands(yield_op, &next);
    // The tape loop takes the original's place (its body was the source of both copies).
    ctx.replace_op(loop_op, &replacing);
    Ok((ctx.results(back).collect(), count))
}

/// Runs `op`'s derivative rule with its builder before `end`; an error at `op` when it has no
/// rule, the rule refuses, or a cotangent does not have its operand's shape.
fn apply_rule(
    ctx: &mut Context,
    op: Op,
    end: Op,
    outs: &[Option<Value>],
    wanted: &[bool],
) -> Result<Vec<Option<Value>>, Diagnostic> {
    let name = ctx.op_name(op).to_string();
    let Some(rule) = ctx.interface::<dyn Differentiable>(op) else {
        return Err(op_error(
            ctx,
            op,
            "grad: no derivative rule (the Differentiable interface) for this op, and the \
             gradient flows through it",
        ));
    };
    let loc = ctx.op_loc(op);
    let mut b = GraphBuilder::new(ctx, InsertPoint::Before(end), loc);
    let mut v = Vjp::new(&mut b, op, outs, wanted);
    let grads = rule
        .vjp(&mut v)
        .map_err(|m| op_error(ctx, op, format!("grad: this op {m}")))?;
    if grads.len() != ctx.operands(op).len() {
        return Err(op_error(
            ctx,
            op,
            format!(
                "grad: the derivative rule of '{name}' gave {} cotangent(s) for {} operand(s)",
                grads.len(),
                ctx.operands(op).len()
            ),
        ));
    }
    for (i, g) in grads.iter().enumerate() {
        let Some(g) = g else { continue };
        let operand = ctx.operand(op, i);
        let parts = |v: Value| tensor_parts(ctx, ctx.value_type(v));
        let fits = match (parts(*g), parts(operand)) {
            (Some(gt), Some(xt)) => types_compatible(&xt, &gt),
            _ => false,
        };
        if !fits {
            return Err(op_error(
                ctx,
                op,
                format!(
                    "grad: the derivative rule of '{name}' gave operand #{i} a cotangent of \
                     type {}, not of its type {}",
                    type_text(ctx, ctx.value_type(*g)),
                    type_text(ctx, ctx.value_type(operand))
                ),
            ));
        }
    }
    Ok(grads)
}

/// The text of `ty`, for messages.
fn type_text(ctx: &Context, ty: dlc_ir::Type) -> String {
    dlc_ir::printer::Printer::new(ctx).type_to_string(ty)
}

/// True for a tensor of a float element type.
fn is_float_tensor(ctx: &Context, v: Value) -> bool {
    let ty = ctx.value_type(v);
    ctx.shape(ty).is_some() && ctx.float_kind(ctx.element_type(ty)).is_some()
}

/// The values used by `op`, its operands and the outer values its regions read.
fn uses(ctx: &Context, op: Op) -> Vec<Value> {
    let mut used = ctx.operands(op).to_vec();
    if !ctx.regions(op).is_empty() {
        ctx.for_each_op(op, &mut |inner| {
            if inner != op {
                used.extend_from_slice(ctx.operands(inner));
            }
        });
    }
    used
}

/// The float values of `entry` computed from the `wrt` arguments.
fn active_values(ctx: &Context, entry: Block, wrt: &[Value]) -> FxHashSet<Value> {
    let mut active: FxHashSet<Value> = wrt.iter().copied().collect();
    for op in ctx.block_ops(entry) {
        if uses(ctx, op).iter().any(|v| active.contains(v)) {
            active.extend(ctx.results(op).filter(|r| is_float_tensor(ctx, *r)));
        }
    }
    active
}

/// The ops of `graph.fusion` `op` copied before it, its block arguments mapped to its
/// operands; the values its `graph.yield` returns.
fn ungroup(ctx: &mut Context, op: Op) -> Vec<Value> {
    let body = ctx.blocks(ctx.region(op, 0))[0];
    let mut map = ValueMap::new();
    for (arg, operand) in ctx.block_args(body).iter().zip(ctx.operands(op)) {
        map.map(*arg, *operand);
    }
    let ops: Vec<Op> = ctx.block_ops(body).collect();
    let Some((&terminator, ops)) = ops.split_last() else {
        return Vec::new();
    };
    for &inner in ops {
        let copy = ctx.clone_op(inner, &mut map);
        ctx.insert_op(InsertPoint::Before(op), copy);
    }
    ctx.operands(terminator)
        .iter()
        .map(|v| map.lookup(*v))
        .collect()
}

/// Replaces, in `targets`, each result of `op` by its replacement in `values`.
fn retarget(ctx: &Context, op: Op, values: &[Value], targets: &mut [Value]) {
    for (old, &new) in ctx.results(op).zip(values) {
        for t in targets.iter_mut().filter(|t| **t == old) {
            *t = new;
        }
    }
}

/// The values of `block` that `targets` depend on (themselves included), through operands
/// and the values nested regions read.
fn needed_values(ctx: &Context, block: Block, targets: &[Value]) -> FxHashSet<Value> {
    let ops: Vec<Op> = ctx.block_ops(block).collect();
    let mut needed: FxHashSet<Value> = targets.iter().copied().collect();
    for &op in ops.iter().rev() {
        if ctx.results(op).any(|r| needed.contains(&r)) {
            needed.extend(uses(ctx, op));
        }
    }
    needed
}

/// When `result` depends on an active value but is not active itself, the first op that takes
/// an active value and gives a non-float result on the way to `result` (not `graph.dim`, whose
/// result depends on a shape only). `needed`: what `result` depends on ([`needed_values`]).
fn lost_on_the_way(
    ctx: &Context,
    entry: Block,
    active: &FxHashSet<Value>,
    needed: &FxHashSet<Value>,
    result: Value,
) -> Option<Op> {
    if active.contains(&result) {
        return None;
    }
    ctx.block_ops(entry).find(|&op| {
        // `graph.dim` reads a shape, not values: through it the gradient is truly zero.
        ctx.view::<DimOp>(op).is_none()
            && ctx
                .results(op)
                .any(|r| needed.contains(&r) && !active.contains(&r))
            && uses(ctx, op).iter().any(|v| active.contains(v))
    })
}

/// Replaces the ops of `entry` that read an active value, that `targets` depend on, and that
/// have no derivative rule of their own by the primitives that compute them, until none is
/// left: a composite by its
/// decomposition (one that cannot be decomposed stays, and the sweep reports it), `graph.rnn`
/// by its time loop unrolled (`dlc_graph::autodiff::unroll::unroll_rnn`; an error at the op
/// when it cannot be). The counts of composites decomposed and recurrences unrolled.
fn expand(
    ctx: &mut Context,
    entry: Block,
    wrt: &[Value],
    targets: &[Value],
) -> Result<(usize, usize), Diagnostic> {
    let (mut decomposed, mut unrolled) = (0, 0);
    let mut declined = FxHashSet::default();
    // The targets, kept current as the ops computing them are replaced.
    let mut targets = targets.to_vec();
    loop {
        let active = active_values(ctx, entry, wrt);
        let needed = needed_values(ctx, entry, &targets);
        let found: Vec<Op> = ctx
            .block_ops(entry)
            .filter(|op| {
                !declined.contains(op)
                    && ctx.results(*op).any(|r| needed.contains(&r))
                    && ctx.interface::<dyn Differentiable>(*op).is_none()
                    && (GraphOps::of(ctx, *op).is_some_and(|g| g.decomposition().is_some())
                        || ctx.view::<RnnOp>(*op).is_some()
                        || ctx.view::<FusionOp>(*op).is_some())
                    && ctx.operands(*op).iter().any(|v| active.contains(v))
            })
            .collect();
        if found.is_empty() {
            return Ok((decomposed, unrolled));
        }
        for op in found {
            if ctx.view::<RnnOp>(op).is_some() {
                let loc = ctx.op_loc(op);
                let mut b = GraphBuilder::new(ctx, InsertPoint::Before(op), loc);
                let values = unroll_rnn(&mut b, op).map_err(|m| {
                    op_error(
                        ctx,
                        op,
                        format!("grad: this op {m} (a recurrence is differentiated unrolled)"),
                    )
                })?;
                retarget(ctx, op, &values, &mut targets);
                ctx.replace_op(op, &values);
                unrolled += 1;
            } else if ctx.view::<FusionOp>(op).is_some() {
                let values = ungroup(ctx, op);
                if values.len() != ctx.num_results(op) {
                    declined.insert(op);
                    continue;
                }
                retarget(ctx, op, &values, &mut targets);
                ctx.replace_op(op, &values);
            } else if let Some(values) = decompose_op(ctx, op) {
                retarget(ctx, op, &values, &mut targets);
                ctx.replace_op(op, &values);
                decomposed += 1;
            } else {
                declined.insert(op);
            }
        }
    }
}
