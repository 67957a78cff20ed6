//! Numerical gradient check of the `grad` pass: the derivative rules of the graph ops
//! (`dlc_graph::autodiff::rules`) and the pass that chains them, against central finite
//! differences in `f64`, as `torch.autograd.gradcheck` checks PyTorch's.
//!
//! Each random function of `dlc_graph::generate::GraphGen` (seeds `0..GENERATED`, times
//! `DLC_TEST_SCALE`), generated with every float forced to `f64` and, for odd seeds, with `?`
//! dims, is differentiated with `grad{func=graph result=K}`, `K` its first float result, with
//! respect to every float argument. At random inputs `x`, a random direction `d` (one tensor per
//! float argument) and a random cotangent `u` of the result (the seed argument of `@graph_grad`;
//! 1 when the pass takes none), the directional derivative of `f(x) = <u, F_K(x)>` is computed
//! both ways:
//! - numerically, `(f(x + h·d) − f(x − h·d)) / 2h` with `h` = [`EPS`];
//! - by the pass, `Σ_i <grad_i, d_i>` from the gradients `@graph_grad` returns;
//!
//! and must agree within [`RTOL`] of the larger plus [`ATOL`].
//!
//! # Skipped programs
//! A program is skipped (counted, not failed) only when the finite difference is not reliable
//! there, judged from the forward function alone (a copy of `@graph` returning every value on
//! the path), never from the analytic gradient:
//! - a value the result depends on is NaN or infinite at `x` (a `log` or `sqrt` of a negative,
//!   a division by 0; the inputs are drawn from [-2, 2] and, when that happens, once more from
//!   [0.25, 2]), or `f` is at `x ± h·d`;
//! - a piecewise-constant op on the path (`floor`, `ceil`, `round`, `sign`, `cmp`, `argmax`,
//!   `argmin`, a cast to an integer, the quotient of a `rem`) has another value at one of
//!   `x ± h·d`, `x ± 10h·d` than at `x`: the difference spans a jump (where the jumps are
//!   denser than `h`, as in a `ceil` of a huge value, both estimates see a smooth average slope
//!   and agree with each other, but not with the derivative);
//! - the estimates at `h` and `10·h` differ by more than a tenth of the tolerance (a `relu`,
//!   `abs`, `max` or `reduce_max` kink within `10·h` of `x`, or rounding noise larger than the
//!   derivative);
//! - the path evaluates an op where it has no derivative although its value is finite: a
//!   `sqrt` or a `pow` at 0 (the operand, the base), or a `pow` of a negative base with an
//!   exponent computed from the arguments (a negative base has a power only at integer
//!   exponents, so the derivative in the exponent, `y · ln a`, is NaN). The chain rule then
//!   multiplies an infinity or a NaN by the zero derivative of what made the value (a window of
//!   `conv2d` padding, an `x − x`), while the function is constant there, as PyTorch does.
//!
//! # Refused programs
//! A program the pass refuses with a diagnostic (the result depends on the arguments only
//! through an integer cast or an `argmax`, an op without a rule on the path) counts as refused
//! by the op the diagnostic names. Any other error, an invalid `@graph_grad` or a panic fails.
//!
//! # Coverage
//! The test prints, per op, how many programs with it on the gradient's path (an active
//! operand and a result the differentiated one depends on) passed, were skipped or were refused
//! by it, and requires [`MIN_PASSED`] passes for every op with a derivative rule and every
//! composite differentiated through its decomposition.
//!
//! # Control flow
//! `GraphGen` generates neither `graph.if` nor `graph.loop`: a third test wraps generated
//! functions in them (a `graph.if` on a condition argument with a copy of the body in each
//! region, a `graph.loop` of 0 to 3 iterations recomputing the body and carrying an
//! accumulator, with a scan output) and checks the wrappers the same way, the skips judged on
//! the generated function's path ([`control_flow_matches_finite_differences`]).

use crate::pipeline;

use dlc_func::module_funcs;
use dlc_graph::autodiff::Differentiable;
use dlc_graph::control::{build_if, build_loop};
use dlc_graph::decompose::GraphBuilder;
use dlc_graph::generate::{GraphGen, Rng};
use dlc_graph::interp::interpret;
use dlc_graph::GraphOps;
use dlc_ir::attributes::DenseValue;
use dlc_ir::pass::{parse_pipeline, PassRegistry};
use dlc_ir::symbol::symbol_name;
use dlc_ir::{
    print_op, verify, Block, Context, InsertPoint, Location, Op, OpSpec, PrintOptions, Type, Value,
    ValueMap, DYNAMIC,
};
use dlc_tensor::{DType, Literal};
use dlc_testkit::{par_cases, report, scaled};
use pipeline::{context, registry};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;

/// Random functions in the default tier; seeds `0..scaled(GENERATED)` (`dlc_testkit`).
const GENERATED: u64 = 10000;
/// Passing programs each differentiable op needs in the default tier.
const MIN_PASSED: u64 = 50;
/// The finite-difference step.
const EPS: f64 = 1e-6;
/// Relative tolerance of the directional derivative.
const RTOL: f64 = 1e-3;
/// Absolute tolerance of the directional derivative.
const ATOL: f64 = 1e-6;

#[test]
fn gradients_match_finite_differences() {
    let registry = registry();
    let seeds: Vec<u64> = (0..scaled(GENERATED)).collect();
    let outcomes = par_cases(&seeds, |&seed| check(&registry, seed));
    report("grad_check", seeds.len());
    let mut table: BTreeMap<String, [u64; 3]> = BTreeMap::new();
    let mut differentiable: BTreeSet<String> = BTreeSet::new();
    let mut totals = [0u64; 4];
    let mut skips: BTreeMap<&str, u64> = BTreeMap::new();
    let mut failures = Vec::new();
    for (seed, outcome) in seeds.iter().zip(outcomes) {
        let outcome = match outcome {
            Ok(outcome) => outcome,
            Err(e) => {
                failures.push(format!("seed {seed}: {e}"));
                continue;
            }
        };
        differentiable.extend(outcome.differentiable.iter().cloned());
        let column = match &outcome.verdict {
            Verdict::Passed => 0,
            Verdict::Skipped(why) => {
                *skips.entry(why).or_default() += 1;
                1
            }
            Verdict::Refused(op) => {
                table.entry(op.clone()).or_default()[2] += 1;
                totals[2] += 1;
                continue;
            }
            Verdict::NoFloatResult => {
                totals[3] += 1;
                continue;
            }
        };
        totals[column] += 1;
        for op in &outcome.path {
            table.entry(op.clone()).or_default()[column] += 1;
        }
    }
    let mut text = format!(
        "grad_check: {} programs: {} passed, {} skipped, {} refused, {} without a float \
         result\n{:<24} {:>7} {:>7} {:>7}\n",
        seeds.len(),
        totals[0],
        totals[1],
        totals[2],
        totals[3],
        "op",
        "passed",
        "skipped",
        "refused"
    );
    for (why, n) in &skips {
        text += &format!("  skipped {n}: {why}\n");
    }
    for (op, [passed, skipped, refused]) in &table {
        text += &format!("{op:<24} {passed:>7} {skipped:>7} {refused:>7}\n");
    }
    let _ = std::io::stderr().write_all(text.as_bytes());
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    let short: Vec<String> = differentiable
        .iter()
        .filter(|op| table.get(*op).map_or(0, |row| row[0]) < MIN_PASSED)
        .cloned()
        .collect();
    assert!(
        short.is_empty(),
        "fewer than {MIN_PASSED} passing programs for {short:?}"
    );
}

/// What one program showed.
struct Outcome {
    verdict: Verdict,
    /// The names of the ops on the gradient's path.
    path: BTreeSet<String>,
    /// Those of them with a derivative rule or a decomposition.
    differentiable: BTreeSet<String>,
}

enum Verdict {
    Passed,
    /// Why the finite difference was not reliable.
    Skipped(&'static str),
    /// The op the pass's diagnostic names.
    Refused(String),
    NoFloatResult,
}

/// The generator's configuration for `seed`: every float `f64`, `?` dims for odd seeds.
fn config(seed: u64) -> GraphGen {
    GraphGen {
        float: Some(Type::F64),
        dynamic: seed % 2 == 1,
        ..GraphGen::new(seed)
    }
}

/// Generates the function of `seed`, differentiates it and checks the directional derivative.
fn check(registry: &PassRegistry, seed: u64) -> Result<Outcome, String> {
    let mut ctx = context();
    let g = config(seed).generate(&mut ctx);
    let outputs = ctx.operands(ret(&ctx, g.func)).to_vec();
    let Some(k) = outputs.iter().position(|v| is_float(&ctx, *v)) else {
        return Ok(Outcome {
            verdict: Verdict::NoFloatResult,
            path: BTreeSet::new(),
            differentiable: BTreeSet::new(),
        });
    };
    let path = GradientPath::of(&ctx, g.func, outputs[k]);
    let names = |keep: &dyn Fn(Op) -> bool| -> BTreeSet<String> {
        let kept = path.ops.iter().filter(|op| keep(**op));
        kept.map(|op| ctx.op_name(*op).to_string()).collect()
    };
    let on_path = names(&|_| true);
    let differentiable = names(&|op| {
        ctx.interface::<dyn Differentiable>(op).is_some()
            || GraphOps::of(&ctx, op).is_some_and(|g| g.decomposition().is_some())
    });
    let outcome = |verdict| Outcome {
        verdict,
        path: on_path.clone(),
        differentiable: differentiable.clone(),
    };
    let probe = Probe::add(&mut ctx, g.func, &path);
    if let Err(diagnostics) = run_pass(
        registry,
        &mut ctx,
        g.module,
        &format!("grad{{func=graph result={k}}}"),
    ) {
        return match refusal(&diagnostics) {
            Some(op) => Ok(outcome(Verdict::Refused(op))),
            None => Err(format!(
                "grad failed: {}\n{}",
                diagnostics.join("\n"),
                print(&ctx, g.func)
            )),
        };
    }
    verify(&ctx, g.module)
        .map_err(|d| format!("@graph_grad is invalid: {d:?}\n{}", print(&ctx, g.module)))?;
    let grad = module_funcs(&ctx, g.module)
        .into_iter()
        .find(|f| symbol_name(&ctx, *f) == Some("graph_grad"))
        .ok_or_else(|| format!("no @graph_grad\n{}", print(&ctx, g.module)))?;
    let checker = Checker {
        ctx: &ctx,
        func: g.func,
        grad,
        probe,
        k,
        shapes: &g.arg_shapes,
        dtypes: arg_dtypes(&ctx, g.func),
        extra: Vec::new(),
        wrapped: false,
    };
    checker.run(seed).map(outcome)
}

/// The op a refusal of the pass names, or `None` when the diagnostics are no refusal.
fn refusal(diagnostics: &[String]) -> Option<String> {
    // The op a diagnostic is about: `'graph.cast' op grad: ...`.
    let op = diagnostics
        .iter()
        .find_map(|m| m.split('\'').nth(1))
        .unwrap_or_default()
        .to_string();
    // A refusal is the pass's `grad:` diagnostic at a graph op, but for a rule that built a
    // cotangent of the wrong type, which is a bug of that rule.
    let refused = op.starts_with("graph.")
        && diagnostics
            .iter()
            .all(|m| m.contains("grad: ") && !m.contains("gave operand"));
    refused.then_some(op)
}

/// The gradient check of one differentiated program.
struct Checker<'a> {
    ctx: &'a Context,
    /// The differentiated function: `@graph`, or a wrapper of it taking its arguments and then
    /// [`Checker::extra`].
    func: Op,
    grad: Op,
    /// The probe of `@graph`, whose path decides the skips (a wrapper evaluates the same
    /// values).
    probe: Probe,
    /// The differentiated result.
    k: usize,
    /// The shapes and dtypes of `@graph`'s arguments.
    shapes: &'a [Vec<usize>],
    dtypes: Vec<DType>,
    /// Fixed non-float arguments of a wrapper after `@graph`'s (a `graph.if`'s condition).
    extra: Vec<Literal>,
    /// Whether `func` wraps `@graph`: the result is `func`'s, not the probe's first value.
    wrapped: bool,
}

impl Checker<'_> {
    fn run(&self, seed: u64) -> Result<Verdict, String> {
        let mut rng = Rng::new(seed ^ 0x6AAD);
        // Inputs in [-2, 2]; where they make a value on the path NaN or infinite, in [0.25, 2].
        let mut x = self.inputs(&mut rng, -2.0, 2.0);
        let mut at_x = self.point(&x)?;
        if !at_x.finite {
            x = self.inputs(&mut rng, 0.25, 2.0);
            at_x = self.point(&x)?;
            if !at_x.finite {
                return Ok(Verdict::Skipped("a value on the path is not finite"));
            }
        }
        if at_x.singular {
            return Ok(Verdict::Skipped(
                "a sqrt or pow at 0, or a pow of a negative base with a varying exponent",
            ));
        }
        let d: Vec<Option<Vec<f64>>> = x
            .iter()
            .map(|t| {
                t.dtype()
                    .is_float()
                    .then(|| (0..t.len()).map(|_| rng.unit() * 2.0 - 1.0).collect())
            })
            .collect();
        let takes_seed =
            self.ctx.block_args(entry(self.ctx, self.grad)).len() > x.len() + self.extra.len();
        let fx = &at_x.result;
        let u: Vec<f64> = if takes_seed {
            (0..fx.len()).map(|_| rng.unit() * 2.0 - 1.0).collect()
        } else {
            vec![1.0; fx.len()]
        };
        // The central differences at h and 10h.
        let mut estimates = [0.0; 2];
        for (estimate, h) in estimates.iter_mut().zip([EPS, 10.0 * EPS]) {
            let mut f = [0.0; 2];
            for (f, sign) in f.iter_mut().zip([1.0, -1.0]) {
                let moved: Vec<Literal> = x
                    .iter()
                    .zip(&d)
                    .map(|(t, d)| match d {
                        Some(d) => {
                            let v: Vec<f64> = t
                                .to_f64_vec()
                                .iter()
                                .zip(d)
                                .map(|(a, b)| a + sign * h * b)
                                .collect();
                            Literal::from_f64(t.dtype(), t.shape(), &v)
                        }
                        None => t.clone(),
                    })
                    .collect();
                let at = self.point(&moved)?;
                if at.steps != at_x.steps {
                    return Ok(Verdict::Skipped(
                        "a piecewise-constant op on the path (floor, round, sign, cmp, rem, \
                         ...) changes within 10h",
                    ));
                }
                *f = dot(&u, &at.result);
            }
            *estimate = (f[0] - f[1]) / (2.0 * h);
        }
        let [fd, fd10] = estimates;
        if !fd.is_finite() || !fd10.is_finite() {
            return Ok(Verdict::Skipped("f is not finite at x ± h·d"));
        }
        if (fd - fd10).abs() > 0.1 * (RTOL * fd.abs().max(fd10.abs()) + ATOL) {
            return Ok(Verdict::Skipped(
                "the estimates at h and 10h differ (a kink nearby, or rounding)",
            ));
        }
        // The analytic directional derivative.
        let mut args = x.clone();
        args.extend(self.extra.iter().cloned());
        if takes_seed {
            args.push(Literal::from_f64(DType::F64, fx.shape(), &u));
        }
        let outs = interpret(self.ctx, self.grad, &args)
            .map_err(|e| format!("@graph_grad failed: {e:?}\n{}", self.text()))?;
        let results = self.ctx.operands(ret(self.ctx, self.func)).len();
        let wrt: Vec<usize> = (0..x.len()).filter(|i| d[*i].is_some()).collect();
        if outs.len() != results + wrt.len() {
            return Err(format!(
                "@graph_grad returns {} values, not {results} results and {} gradients\n{}",
                outs.len(),
                wrt.len(),
                self.text()
            ));
        }
        // The forward result, computed again (its composites decomposed): the same up to
        // rounding.
        let (want, got) = (fx.to_f64_vec(), outs[self.k].to_f64_vec());
        let scale = want.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        if outs[self.k].shape() != fx.shape()
            || want
                .iter()
                .zip(&got)
                .any(|(a, b)| (a - b).abs() > 1e-9 * scale + 1e-12)
        {
            return Err(format!(
                "@graph_grad's result #{} differs from @graph's: {got:?}, not {want:?}\n{}",
                self.k,
                self.text()
            ));
        }
        let mut analytic = 0.0;
        for (grad, i) in outs[results..].iter().zip(&wrt) {
            if grad.shape() != x[*i].shape() {
                return Err(format!(
                    "the gradient of argument #{i} has shape {:?}, the argument {:?}\n{}",
                    grad.shape(),
                    x[*i].shape(),
                    self.text()
                ));
            }
            analytic += dot(d[*i].as_deref().unwrap_or_default(), grad);
        }
        let tolerance = RTOL * fd.abs().max(analytic.abs()) + ATOL;
        if (fd - analytic).abs() <= tolerance {
            return Ok(Verdict::Passed);
        }
        Err(format!(
            "the directional derivative of result #{} is {analytic} by @graph_grad and {fd} by \
             finite differences ({fd10} with 10h)\n{}",
            self.k,
            self.text()
        ))
    }

    /// Random inputs: floats uniform in [lo, hi), integers in [-4, 4], booleans fair.
    fn inputs(&self, rng: &mut Rng, lo: f64, hi: f64) -> Vec<Literal> {
        self.dtypes
            .iter()
            .zip(self.shapes)
            .map(|(dtype, shape)| {
                let n: usize = shape.iter().product();
                if dtype.is_float() {
                    let values: Vec<f64> = (0..n).map(|_| lo + rng.unit() * (hi - lo)).collect();
                    Literal::from_f64(*dtype, shape, &values)
                } else if dtype.is_bool() {
                    let values: Vec<bool> = (0..n).map(|_| rng.chance(0.5)).collect();
                    Literal::from_bools(shape, &values)
                } else {
                    let values: Vec<i64> = (0..n).map(|_| rng.range(-4, 4)).collect();
                    Literal::from_i64(*dtype, shape, &values)
                }
            })
            .collect()
    }

    /// The path's values at `x`, through `@graph_probe`.
    fn point(&self, x: &[Literal]) -> Result<Point, String> {
        let mut values = interpret(self.ctx, self.probe.func, x)
            .map_err(|e| format!("@graph failed: {e:?}\n{}", self.text()))?;
        let [path, nonzero, positive, steps] = self.probe.ends;
        let finite = values[..path]
            .iter()
            .all(|v| v.to_f64_vec().iter().all(|e| e.is_finite()));
        let singular = values[path..nonzero]
            .iter()
            .any(|v| v.to_f64_vec().contains(&0.0))
            || values[nonzero..positive]
                .iter()
                .any(|v| v.to_f64_vec().iter().any(|e| *e <= 0.0));
        let mut marks: Vec<Vec<f64>> = values[positive..steps]
            .iter()
            .map(Literal::to_f64_vec)
            .collect();
        marks.extend(
            values[steps..]
                .iter()
                .map(|q| q.to_f64_vec().iter().map(|e| e.trunc()).collect()),
        );
        let result = if self.wrapped {
            let mut args = x.to_vec();
            args.extend(self.extra.iter().cloned());
            let mut outs = interpret(self.ctx, self.func, &args)
                .map_err(|e| format!("the wrapper failed: {e:?}\n{}", self.text()))?;
            outs.swap_remove(self.k)
        } else {
            values.swap_remove(0)
        };
        Ok(Point {
            result,
            finite,
            singular,
            steps: marks,
        })
    }

    /// `@graph` and `@graph_grad`, for messages.
    fn text(&self) -> String {
        format!(
            "{}\n{}",
            print(self.ctx, self.func),
            print(self.ctx, self.grad)
        )
    }
}

/// What the probe shows at one point.
struct Point {
    /// `F_K`.
    result: Literal,
    /// Every float value `F_K` depends on is finite.
    finite: bool,
    /// A `sqrt` or `pow` on the path is at a point where it has no derivative.
    singular: bool,
    /// The results of the piecewise-constant ops on the path, and the truncated quotients of
    /// its `rem`s.
    steps: Vec<Vec<f64>>,
}

/// `Σ a_i · b_i` over the elements of `b`.
fn dot(a: &[f64], b: &Literal) -> f64 {
    a.iter().zip(b.to_f64_vec()).map(|(x, y)| x * y).sum()
}

/// What the differentiated result of a function depends on.
struct GradientPath {
    /// The ops on the gradient's path: an operand computed from a float argument (active) and
    /// an active result the differentiated one depends on.
    ops: Vec<Op>,
    /// The float values the differentiated result depends on, itself first.
    values: Vec<Value>,
    /// Operands that must not be 0: those of `sqrt`, the bases of `pow` with a constant
    /// exponent.
    nonzero: Vec<Value>,
    /// Operands that must be positive: the bases of `pow` with an active exponent (where a
    /// negative base has a value only at integer exponents).
    positive: Vec<Value>,
    /// The results of the piecewise-constant ops with an active operand the differentiated
    /// result depends on: `floor`, `ceil`, `round`, `sign`, `cmp`, `argmax`, `argmin` and
    /// casts from a float to an integer.
    steps: Vec<Value>,
    /// The operands `(a, b)` of the `rem`s with an active operand the result depends on,
    /// which jump where `a / b` crosses an integer.
    rems: Vec<(Value, Value)>,
}

impl GradientPath {
    /// The path of `result` in `func`.
    fn of(ctx: &Context, func: Op, result: Value) -> GradientPath {
        let entry = entry(ctx, func);
        let mut active: BTreeSet<Value> = ctx
            .block_args(entry)
            .iter()
            .copied()
            .filter(|a| is_float(ctx, *a))
            .collect();
        let ops: Vec<Op> = ctx.block_ops(entry).collect();
        for &op in &ops {
            if ctx.operands(op).iter().any(|v| active.contains(v)) {
                active.extend(ctx.results(op).filter(|r| is_float(ctx, *r)));
            }
        }
        let mut needed: BTreeSet<Value> = [result].into_iter().collect();
        let mut path = GradientPath {
            ops: Vec::new(),
            values: vec![result],
            nonzero: Vec::new(),
            positive: Vec::new(),
            steps: Vec::new(),
            rems: Vec::new(),
        };
        for &op in ops.iter().rev() {
            let results: Vec<Value> = ctx.results(op).filter(|r| needed.contains(r)).collect();
            if results.is_empty() {
                continue;
            }
            let operands = ctx.operands(op).to_vec();
            needed.extend(operands.iter().copied());
            path.values.extend(
                results
                    .iter()
                    .copied()
                    .filter(|r| *r != result && is_float(ctx, *r)),
            );
            let is_active = |v: &Value| active.contains(v);
            if !operands.iter().any(is_active) {
                continue;
            }
            if results.iter().any(is_active) {
                path.ops.push(op);
            }
            match ctx.op_name(op) {
                "graph.sqrt" => path.nonzero.push(operands[0]),
                "graph.pow" if is_active(&operands[1]) => path.positive.push(operands[0]),
                "graph.pow" => path.nonzero.push(operands[0]),
                "graph.floor" | "graph.ceil" | "graph.round" | "graph.sign" | "graph.cmp"
                | "graph.argmax" | "graph.argmin" => path.steps.extend(&results),
                "graph.cast" if !is_float(ctx, results[0]) => path.steps.extend(&results),
                "graph.rem" => path.rems.push((operands[0], operands[1])),
                _ => {}
            }
        }
        path
    }
}

/// `@graph_probe`: a copy of `@graph` that returns the values of a [`GradientPath`] in groups:
/// its `values` (the differentiated result first), `nonzero`, `positive`, `steps`, and the
/// quotient `a / b` of each of its `rems`.
#[derive(Clone, Copy)]
struct Probe {
    func: Op,
    /// Where each group but the last ends among the results.
    ends: [usize; 4],
}

impl Probe {
    /// Adds the probe of `path` after `func`.
    fn add(ctx: &mut Context, func: Op, path: &GradientPath) -> Probe {
        let mut map = ValueMap::new();
        let copy = ctx.clone_op(func, &mut map);
        ctx.insert_op(InsertPoint::After(func), copy);
        let name = ctx.string_attr("graph_probe");
        ctx.set_attr(copy, "sym_name", name);
        let entry = entry(ctx, copy);
        let ret = ctx.last_op(entry).expect("a return");
        let mut returned = Vec::new();
        let mut ends = [0; 4];
        for (end, group) in
            ends.iter_mut()
                .zip([&path.values, &path.nonzero, &path.positive, &path.steps])
        {
            returned.extend(group.iter().map(|v| map.lookup(*v)));
            *end = returned.len();
        }
        let mut b = GraphBuilder::new(ctx, InsertPoint::Before(ret), Location::Unknown);
        for (a, d) in &path.rems {
            returned.push(b.binary("graph.div", map.lookup(*a), map.lookup(*d)));
        }
        ctx.set_operands(ret, &returned);
        let inputs: Vec<Type> = ctx
            .block_args(entry)
            .iter()
            .map(|a| ctx.value_type(*a))
            .collect();
        let results: Vec<Type> = returned.iter().map(|v| ctx.value_type(*v)).collect();
        let ty = ctx.function_type(&inputs, &results);
        let attr = ctx.type_attr(ty);
        ctx.set_attr(copy, "function_type", attr);
        Probe { func: copy, ends }
    }
}

/// Runs `pipeline` on `module`; the messages of the diagnostics when it fails.
fn run_pass(
    registry: &PassRegistry,
    ctx: &mut Context,
    module: Op,
    pipeline: &str,
) -> Result<(), Vec<String>> {
    let spec = parse_pipeline(pipeline).map_err(|e| vec![e.render("--pipeline", pipeline)])?;
    let mut pm = registry
        .build(&spec, "builtin.module")
        .map_err(|e| vec![e.render("--pipeline", pipeline)])?;
    pm.run(ctx, module)
        .map(|_| ())
        .map_err(|f| f.diagnostics.iter().map(|d| d.message.clone()).collect())
}

/// True for a tensor of a float element type.
fn is_float(ctx: &Context, v: Value) -> bool {
    let ty = ctx.value_type(v);
    ctx.shape(ty).is_some() && ctx.float_kind(ctx.element_type(ty)).is_some()
}

/// The dtypes of `func`'s arguments.
fn arg_dtypes(ctx: &Context, func: Op) -> Vec<DType> {
    ctx.block_args(entry(ctx, func))
        .iter()
        .map(|&arg| {
            DType::from_type(ctx, ctx.element_type(ctx.value_type(arg))).expect("a graph dtype")
        })
        .collect()
}

/// The entry block of `func`.
fn entry(ctx: &Context, func: Op) -> Block {
    ctx.blocks(ctx.region(func, 0))[0]
}

/// The `func.return` of `func`.
fn ret(ctx: &Context, func: Op) -> Op {
    ctx.last_op(entry(ctx, func)).expect("a return")
}

fn print(ctx: &Context, module: Op) -> String {
    print_op(ctx, module, PrintOptions::default())
}

/// Seeds of [`control_flow_matches_finite_differences`] in the default tier, times
/// `DLC_TEST_SCALE`.
const WRAPPED: u64 = 500;

/// How [`control_flow_matches_finite_differences`] wraps a generated function.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Wrap {
    /// A `graph.if` on a condition argument: the function's result `K` on one side, `-K` or
    /// `tanh(K)` on the other.
    If,
    /// A `graph.loop` of a constant trip count recomputing `K` in its body.
    Loop,
}

/// The gradients through `graph.if` and `graph.loop` (which `GraphGen` never generates),
/// against central finite differences as in [`gradients_match_finite_differences`]: each
/// random function of seeds `0..WRAPPED` (times `DLC_TEST_SCALE`, with the same configuration,
/// inputs and directions), with `K` its first float result, is wrapped in a new function
/// `@wrapped`, differentiated with `grad{func=wrapped}` and checked:
/// - `graph.if`: `@graph`'s arguments and a `tensor<i1>` condition; the then-region holds a copy
///   of `@graph`'s body (reading the arguments from above) and yields `K`, the else-region
///   another copy yielding `-K` (even `seed / 2`) or `tanh(K)`. Checked with the condition
///   true and false.
/// - `graph.loop`: `(seed / 2) % 4` iterations (a constant trip count, condition true)
///   carrying `acc`, initialised from an argument of `K`'s type (even `seed / 8`, where there
///   is one) or zeros of it; the body recomputes `K` from the arguments read from above and
///   yields `acc·tanh(K) + tanh(K)` and the scan element `K` (its result's leading dim static
///   for even `seed / 16`, `?` otherwise). The function returns the carried result plus the
///   scan result summed over its leading axis.
///
/// The skip policy is that of the generated program: its probe judges the values on its path
/// at the perturbed points (the wrapper evaluates the same values, then smooth ops); a wrapper
/// whose `f` is not finite at `x ± h·d` is skipped too. A refusal of the wrapper counts as
/// refused when the pass refuses `@graph` itself as well (and fails otherwise). The test
/// prints the counts per branch and trip count and requires [`MIN_PASSED`] passes for each
/// branch of `graph.if` and for `graph.loop`.
#[test]
fn control_flow_matches_finite_differences() {
    let registry = registry();
    let seeds: Vec<u64> = (0..scaled(WRAPPED)).collect();
    let mut cases = Vec::new();
    for &seed in &seeds {
        cases.push((seed, Wrap::If));
        cases.push((seed, Wrap::Loop));
    }
    let outcomes = par_cases(&cases, |&(seed, wrap)| check_wrapped(&registry, seed, wrap));
    report("grad_check control flow", cases.len());
    // Per label: passed, skipped, refused, without a float result.
    let mut table: BTreeMap<String, [u64; 4]> = BTreeMap::new();
    let mut skips: BTreeMap<&str, u64> = BTreeMap::new();
    let mut refusals: BTreeMap<String, u64> = BTreeMap::new();
    let mut failures = Vec::new();
    for (&(seed, wrap), outcome) in cases.iter().zip(outcomes) {
        let checks = match outcome {
            Ok(checks) => checks,
            Err(e) => {
                failures.push(format!("seed {seed}, {wrap:?}: {e}"));
                continue;
            }
        };
        // A refused program: every check of it refused, counted once here.
        if let Some((_, Verdict::Refused(op))) = checks.first() {
            *refusals.entry(format!("{wrap:?} by {op}")).or_default() += 1;
        }
        for (label, verdict) in checks {
            let column = match verdict {
                Verdict::Passed => 0,
                Verdict::Skipped(why) => {
                    *skips.entry(why).or_default() += 1;
                    1
                }
                Verdict::Refused(_) => 2,
                Verdict::NoFloatResult => 3,
            };
            table.entry(label).or_default()[column] += 1;
        }
    }
    let mut text = format!(
        "grad_check control flow: {} programs\n{:<28} {:>7} {:>7} {:>7} {:>9}\n",
        cases.len(),
        "wrapper",
        "passed",
        "skipped",
        "refused",
        "no float"
    );
    for (label, [passed, skipped, refused, none]) in &table {
        text += &format!("{label:<28} {passed:>7} {skipped:>7} {refused:>7} {none:>9}\n");
    }
    for (why, n) in &skips {
        text += &format!("  skipped {n}: {why}\n");
    }
    for (what, n) in &refusals {
        text += &format!("  refused {n}: {what}\n");
    }
    let _ = std::io::stderr().write_all(text.as_bytes());
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    let passed = |prefix: &str| -> u64 {
        let rows = table.iter().filter(|(label, _)| label.starts_with(prefix));
        rows.map(|(_, row)| row[0]).sum()
    };
    for wrapper in ["graph.if then", "graph.if else", "graph.loop"] {
        let n = passed(wrapper);
        assert!(
            n >= MIN_PASSED,
            "{n} passing programs for {wrapper}, fewer than {MIN_PASSED}"
        );
    }
}

/// Generates the function of `seed`, wraps it as `wrap` says, differentiates the wrapper and
/// checks it: a verdict per check, labelled (`graph.if then`, `graph.loop 2 trips`, ...).
fn check_wrapped(
    registry: &PassRegistry,
    seed: u64,
    wrap: Wrap,
) -> Result<Vec<(String, Verdict)>, String> {
    let mut ctx = context();
    let g = config(seed).generate(&mut ctx);
    let outputs = ctx.operands(ret(&ctx, g.func)).to_vec();
    let trips = (seed / 2) % 4;
    let labels: Vec<String> = match wrap {
        Wrap::If => vec!["graph.if then".into(), "graph.if else".into()],
        Wrap::Loop => vec![format!("graph.loop {trips} trips")],
    };
    let all =
        |verdict: &dyn Fn() -> Verdict| labels.iter().map(|l| (l.clone(), verdict())).collect();
    let Some(k) = outputs.iter().position(|v| is_float(&ctx, *v)) else {
        return Ok(all(&|| Verdict::NoFloatResult));
    };
    let path = GradientPath::of(&ctx, g.func, outputs[k]);
    let probe = Probe::add(&mut ctx, g.func, &path);
    let wrapper = build_wrapper(&mut ctx, g.module, g.func, k, wrap, seed);
    verify(&ctx, g.module)
        .map_err(|d| format!("@wrapped is invalid: {d:?}\n{}", print(&ctx, wrapper)))?;
    if let Err(diagnostics) = run_pass(registry, &mut ctx, g.module, "grad{func=wrapped}") {
        let failed = || {
            format!(
                "grad failed: {}\n{}",
                diagnostics.join("\n"),
                print(&ctx, wrapper)
            )
        };
        let op = refusal(&diagnostics).ok_or_else(failed)?;
        // The wrapper is refused where `@graph` itself is.
        let mut base = context();
        let b = config(seed).generate(&mut base);
        let pipeline = format!("grad{{func=graph result={k}}}");
        if run_pass(registry, &mut base, b.module, &pipeline).is_ok() {
            return Err(format!("{}\n(@graph itself is not refused)", failed()));
        }
        return Ok(all(&|| Verdict::Refused(op.clone())));
    }
    verify(&ctx, g.module)
        .map_err(|d| format!("@wrapped_grad is invalid: {d:?}\n{}", print(&ctx, g.module)))?;
    let grad = module_funcs(&ctx, g.module)
        .into_iter()
        .find(|f| symbol_name(&ctx, *f) == Some("wrapped_grad"))
        .ok_or_else(|| format!("no @wrapped_grad\n{}", print(&ctx, g.module)))?;
    let extras: Vec<Vec<Literal>> = match wrap {
        Wrap::If => [true, false]
            .iter()
            .map(|c| vec![Literal::from_bools(&[], &[*c])])
            .collect(),
        Wrap::Loop => vec![Vec::new()],
    };
    let mut checks = Vec::new();
    for (label, extra) in labels.into_iter().zip(extras) {
        let checker = Checker {
            ctx: &ctx,
            func: wrapper,
            grad,
            probe,
            k: 0,
            shapes: &g.arg_shapes,
            dtypes: arg_dtypes(&ctx, g.func),
            extra,
            wrapped: true,
        };
        checks.push((label, checker.run(seed)?));
    }
    Ok(checks)
}

/// Adds `@wrapped` to `module`: result `k` of `func` wrapped as [`Wrap`] and
/// [`control_flow_matches_finite_differences`] say.
fn build_wrapper(ctx: &mut Context, module: Op, func: Op, k: usize, wrap: Wrap, seed: u64) -> Op {
    let loc = Location::Unknown;
    let source = entry(ctx, func);
    let params = ctx.block_args(source).to_vec();
    let ops: Vec<Op> = ctx.block_ops(source).collect();
    let (ret_op, body) = ops.split_last().expect("a return");
    let result = ctx.operand(*ret_op, k);
    let ty = ctx.value_type(result);
    let mut types: Vec<Type> = params.iter().map(|a| ctx.value_type(*a)).collect();
    if wrap == Wrap::If {
        types.push(ctx.tensor_type(&[], Type::I1));
    }
    let (region, block) = ctx.create_region_with_block(&types);
    let args = ctx.block_args(block).to_vec();
    // A copy of `@graph`'s body at the end of `at`, reading the new arguments; its `K`.
    let copy = |ctx: &mut Context, at: Block| -> Value {
        let mut map = ValueMap::new();
        for (p, a) in params.iter().zip(&args) {
            map.map(*p, *a);
        }
        for &op in body {
            let c = ctx.clone_op(op, &mut map);
            ctx.insert_op(InsertPoint::End(at), c);
        }
        map.lookup(result)
    };
    let end_with = |ctx: &mut Context, at: Block, name: &str, values: &[Value]| {
        let spec = OpSpec::new(ctx, name, loc).operands(values);
        ctx.build(InsertPoint::End(at), spec);
    };
    let out = match wrap {
        Wrap::If => {
            let cond = args[params.len()];
            let (op, then_block, else_block) =
                build_if(ctx, InsertPoint::End(block), cond, &[ty], loc);
            let then_k = copy(ctx, then_block);
            end_with(ctx, then_block, "graph.yield", &[then_k]);
            let else_k = copy(ctx, else_block);
            let name = if (seed / 2).is_multiple_of(2) {
                "graph.neg"
            } else {
                "graph.tanh"
            };
            let other =
                GraphBuilder::new(ctx, InsertPoint::End(else_block), loc).unary(name, else_k);
            end_with(ctx, else_block, "graph.yield", &[other]);
            ctx.result(op, 0)
        }
        Wrap::Loop => {
            let trips = (seed / 2) % 4;
            // An argument of `K`'s type has `K`'s sizes only when the type has no `?` dim.
            let shape = ctx.shape(ty).expect("a tensor").to_vec();
            let dynamic = shape.contains(&DYNAMIC);
            let same = params.iter().position(|p| ctx.value_type(*p) == ty);
            let init = match same.filter(|_| !dynamic) {
                Some(i) if (seed / 8).is_multiple_of(2) => args[i],
                _ => {
                    let outer = copy(ctx, block);
                    GraphBuilder::new(ctx, InsertPoint::End(block), loc).zeros_like(outer)
                }
            };
            let mut b = GraphBuilder::new(ctx, InsertPoint::End(block), loc);
            let max_trip = b.splat(trips as f64, Type::I64, &[]);
            let i1 = b.ctx.tensor_type(&[], Type::I1);
            let cond = b.constant(i1, &[DenseValue::Int(1)]);
            let lead = if (seed / 16).is_multiple_of(2) {
                trips as i64
            } else {
                DYNAMIC
            };
            let mut dims = vec![lead];
            dims.extend_from_slice(&shape);
            let scan_ty = ctx.tensor_type(&dims, ctx.element_type(ty));
            let (op, body_block) = build_loop(
                ctx,
                InsertPoint::End(block),
                max_trip,
                cond,
                &[init],
                &[ty, scan_ty],
                loc,
            );
            let inner = ctx.block_args(body_block).to_vec();
            let k = copy(ctx, body_block);
            let mut b = GraphBuilder::new(ctx, InsertPoint::End(body_block), loc);
            let t = b.unary("graph.tanh", k);
            let scaled = b.binary("graph.mul", inner[2], t);
            let next = b.binary("graph.add", scaled, t);
            end_with(ctx, body_block, "graph.yield", &[inner[1], next, k]);
            let (carried, scan) = (ctx.result(op, 0), ctx.result(op, 1));
            let mut b = GraphBuilder::new(ctx, InsertPoint::End(block), loc);
            // Summed over its leading axis, or over all where `K` has a `?` dim (with no
            // iteration, each `?` dim of the scan result is 0: it does not broadcast to `K`).
            let axes: Vec<i64> = if dynamic {
                (0..=shape.len() as i64).collect()
            } else {
                vec![0]
            };
            let summed = b.reduce("graph.reduce_sum", scan, &axes, false);
            b.binary("graph.add", carried, summed)
        }
    };
    end_with(ctx, block, "func.return", &[out]);
    let fn_ty = ctx.function_type(&types, &[ctx.value_type(out)]);
    let name = ctx.string_attr("wrapped");
    let fn_ty = ctx.type_attr(fn_ty);
    let spec = OpSpec::new(ctx, "func.func", loc)
        .attr(ctx, "sym_name", name)
        .attr(ctx, "function_type", fn_ty)
        .region(region);
    let module_block = entry(ctx, module);
    ctx.build(InsertPoint::End(module_block), spec)
}

/// An activation of `graph.rnn`: its name, `α` and `β`.
type RnnActivation = (&'static str, f64, f64);

/// The activation sets of [`recurrences_match_finite_differences`], per cell function (cycled
/// over the functions of every direction): ONNX's defaults (`None`), smooth functions, and
/// functions with kinks or a jump, with their own `α`, `β`.
const RNN_ACTIVATIONS: [Option<&[RnnActivation]>; 3] = [
    None,
    Some(&[
        ("softsign", 0.0, 0.0),
        ("scaled_tanh", 0.8, 1.3),
        ("softplus", 0.0, 0.0),
        ("elu", 1.0, 0.0),
        ("affine", 0.7, 0.2),
        ("sigmoid", 0.0, 0.0),
        ("tanh", 0.0, 0.0),
    ]),
    Some(&[
        ("hard_sigmoid", 0.3, 0.4),
        ("leaky_relu", 0.2, 0.0),
        ("thresholded_relu", 0.1, 0.0),
        ("relu", 0.0, 0.0),
        ("elu", 0.6, 0.0),
    ]),
];

/// The gradients of `graph.rnn` (unrolled by the `grad` pass into ops with rules), against
/// central finite differences: for each cell, direction and activation set of
/// [`RNN_ACTIVATIONS`] (the kinked set with `clip`), with and without `sequence_lens` (with a
/// full, a partial and an empty sequence), an f64 function `@loss` of the op's operands,
/// `Σ y⊙U + Σ y_h⊙V (+ Σ y_c⊙W)` with random constants `U, V, W`, is differentiated with
/// respect to every float operand; each gradient's directional derivative along a random
/// direction must agree with the central difference as in
/// [`gradients_match_finite_differences`] (skipped, and counted, only where the estimates at
/// `h` and `10h` disagree: a kink). Odd configurations leave the batch dim `?`.
#[test]
fn recurrences_match_finite_differences() {
    let registry = registry();
    let cells = ["lstm", "gru", "rnn"];
    let directions = ["forward", "reverse", "bidirectional"];
    let mut configs = Vec::new();
    for cell in cells {
        for direction in directions {
            for set in 0..RNN_ACTIVATIONS.len() {
                for lens in [false, true] {
                    configs.push((cell, direction, set, lens));
                }
            }
        }
    }
    let (mut checked, mut skipped) = (0, 0);
    let mut failures = Vec::new();
    for (i, &(cell, direction, set, lens)) in configs.iter().enumerate() {
        let name = format!(
            "{cell} {direction} activations #{set}{}{}",
            if lens { " sequence_lens" } else { "" },
            if i % 2 == 1 { " ?-batch" } else { "" }
        );
        match check_rnn(&registry, i as u64, cell, direction, set, lens) {
            Ok((c, s)) => {
                checked += c;
                skipped += s;
            }
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    let _ = writeln!(
        std::io::stderr(),
        "grad_check rnn: {} programs, {checked} gradients checked, {skipped} skipped (a kink)",
        configs.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(
        skipped * 20 <= checked,
        "{skipped} of {} gradients skipped",
        checked + skipped
    );
}

/// Builds `@loss` for one configuration of [`recurrences_match_finite_differences`] (`T` = 3,
/// `B` = 3, `H` = 2), differentiates it and checks each gradient; the gradients checked and
/// skipped.
fn check_rnn(
    registry: &PassRegistry,
    seed: u64,
    cell: &str,
    direction: &str,
    set: usize,
    with_lens: bool,
) -> Result<(usize, usize), String> {
    let mut ctx = context();
    let mut rng = Rng::new(seed ^ 0x2AA);
    let (t, b, h) = (3usize, 3usize, 2usize);
    let (gates, functions) = match cell {
        "lstm" => (4, 3),
        "gru" => (3, 2),
        _ => (1, 1),
    };
    let d = if direction == "bidirectional" { 2 } else { 1 };
    let mut shapes = vec![
        vec![t, b, d * gates * h],
        vec![d, h, gates * h],
        vec![d, gates * h],
        vec![d, b, h],
    ];
    if cell == "lstm" {
        shapes.push(vec![d, b, h]);
        shapes.push(vec![d, 3 * h]);
    }
    let floats = shapes.len();
    if with_lens {
        shapes.push(vec![b]);
    }
    // Odd seeds: the batch dim `?` in the types.
    let batch = if seed % 2 == 1 {
        dlc_ir::DYNAMIC
    } else {
        b as i64
    };
    let types: Vec<Type> = shapes
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let mut dims: Vec<i64> = s.iter().map(|d| *d as i64).collect();
            match i {
                _ if i == floats => dims[0] = batch,
                0 | 3 | 4 => dims[1] = batch,
                _ => {}
            }
            let elem = if i == floats { Type::I32 } else { Type::F64 };
            ctx.tensor_type(&dims, elem)
        })
        .collect();
    let mut attrs = vec![
        ("cell", ctx.string_attr(cell)),
        ("direction", ctx.string_attr(direction)),
    ];
    if let Some(list) = RNN_ACTIVATIONS[set] {
        let chosen: Vec<RnnActivation> = (0..functions * d)
            .map(|k| list[(k + seed as usize) % list.len()])
            .collect();
        let names: Vec<_> = chosen.iter().map(|(n, _, _)| ctx.string_attr(n)).collect();
        attrs.push(("activations", ctx.array_attr(&names)));
        for (attr, pick) in [("activation_alpha", 1), ("activation_beta", 2)] {
            let values: Vec<i64> = chosen
                .iter()
                .map(|c| if pick == 1 { c.1 } else { c.2 }.to_bits() as i64)
                .collect();
            let value = ctx.intern_attr(dlc_ir::AttrKind::DenseArray {
                element: Type::F64,
                values: values.into(),
            });
            attrs.push((attr, value));
        }
    }
    if set == 2 {
        attrs.push(("clip", ctx.float_attr(1.5, Type::F64)));
    }
    if cell == "gru" && seed % 4 < 2 {
        attrs.push(("linear_before_reset", ctx.bool_attr(true)));
    }
    if cell == "lstm" && seed % 4 >= 2 {
        attrs.push(("input_forget", ctx.bool_attr(true)));
    }
    let loc = Location::Unknown;
    let (module_region, module_block) = ctx.create_region_with_block(&[]);
    let spec = dlc_ir::OpSpec::new(&mut ctx, "builtin.module", loc).region(module_region);
    let module = ctx.create_op(spec);
    let (body, entry) = ctx.create_region_with_block(&types);
    let args = ctx.block_args(entry).to_vec();
    let op =
        dlc_graph::recurrence::build_rnn(&mut ctx, InsertPoint::End(entry), &args, &attrs, loc)
            .map_err(|e| e.message)?;
    let results: Vec<Value> = ctx.results(op).collect();
    let mut gb = GraphBuilder::new(&mut ctx, InsertPoint::End(entry), loc);
    let mut loss = None;
    for r in results {
        // A random weight per element (broadcast over a `?` batch).
        let shape: Vec<i64> = gb.shape(r).iter().map(|d| (*d).max(1)).collect();
        let n: i64 = shape.iter().product();
        let values: Vec<dlc_ir::attributes::DenseValue> = (0..n)
            .map(|_| dlc_ir::attributes::DenseValue::Float(rng.unit() * 2.0 - 1.0))
            .collect();
        let ty = gb.ctx.tensor_type(&shape, Type::F64);
        let weights = gb.constant(ty, &values);
        let product = gb.binary("graph.mul", r, weights);
        let axes: Vec<i64> = (0..shape.len() as i64).collect();
        let sum = gb.reduce("graph.reduce_sum", product, &axes, false);
        loss = Some(match loss {
            Some(l) => gb.binary("graph.add", l, sum),
            None => sum,
        });
    }
    let loss = loss.expect("a result");
    let loss_ty = ctx.value_type(loss);
    let spec = dlc_ir::OpSpec::new(&mut ctx, "func.return", loc).operands(&[loss]);
    ctx.build(InsertPoint::End(entry), spec);
    let fn_ty = ctx.function_type(&types, &[loss_ty]);
    let name = ctx.string_attr("loss");
    let ty = ctx.type_attr(fn_ty);
    let spec = dlc_ir::OpSpec::new(&mut ctx, "func.func", loc)
        .attr(&mut ctx, "sym_name", name)
        .attr(&mut ctx, "function_type", ty)
        .region(body);
    let func = ctx.build(InsertPoint::End(module_block), spec);
    verify(&ctx, module).map_err(|e| format!("@loss is invalid: {e:?}"))?;
    run_pass(registry, &mut ctx, module, "grad{func=loss}")
        .map_err(|d| format!("grad failed: {}\n{}", d.join("\n"), print(&ctx, func)))?;
    verify(&ctx, module)
        .map_err(|e| format!("@loss_grad is invalid: {e:?}\n{}", print(&ctx, module)))?;
    let grad = module_funcs(&ctx, module)
        .into_iter()
        .find(|f| symbol_name(&ctx, *f) == Some("loss_grad"))
        .ok_or("no @loss_grad")?;
    // Inputs: the recurrent weights in [-0.8, 0.8), the others in [-1.5, 1.5); a full, a
    // partial and an empty sequence.
    let x: Vec<Literal> = shapes
        .iter()
        .enumerate()
        .map(|(i, s)| {
            if i == floats {
                return Literal::from_i64(DType::I32, s, &[t as i64, 1, 0]);
            }
            let scale = if i == 1 { 0.8 } else { 1.5 };
            let n: usize = s.iter().product();
            let v: Vec<f64> = (0..n).map(|_| (rng.unit() * 2.0 - 1.0) * scale).collect();
            Literal::from_f64(DType::F64, s, &v)
        })
        .collect();
    let text = || format!("{}\n{}", print(&ctx, func), print(&ctx, grad));
    let f = |args: &[Literal]| -> Result<f64, String> {
        let out = interpret(&ctx, func, args).map_err(|e| format!("@loss failed: {e:?}"))?;
        Ok(out[0].to_f64_vec()[0])
    };
    let outs =
        interpret(&ctx, grad, &x).map_err(|e| format!("@loss_grad failed: {e:?}\n{}", text()))?;
    if outs.len() != 1 + floats {
        return Err(format!(
            "@loss_grad returns {} values, not {}",
            outs.len(),
            1 + floats
        ));
    }
    let (want, got) = (f(&x)?, outs[0].to_f64_vec()[0]);
    if (want - got).abs() > 1e-9 * want.abs() + 1e-12 {
        return Err(format!(
            "@loss_grad's loss is {got}, @loss's {want}\n{}",
            text()
        ));
    }
    let (mut checked, mut skipped) = (0, 0);
    for i in 0..floats {
        let g = &outs[1 + i];
        if g.shape() != x[i].shape() {
            return Err(format!(
                "the gradient of operand #{i} has shape {:?}, the operand {:?}",
                g.shape(),
                x[i].shape()
            ));
        }
        let dir: Vec<f64> = (0..x[i].len()).map(|_| rng.unit() * 2.0 - 1.0).collect();
        let mut estimates = [0.0; 2];
        for (estimate, h) in estimates.iter_mut().zip([EPS, 10.0 * EPS]) {
            let mut at = [0.0; 2];
            for (value, sign) in at.iter_mut().zip([1.0, -1.0]) {
                let mut moved = x.clone();
                let v: Vec<f64> = x[i]
                    .to_f64_vec()
                    .iter()
                    .zip(&dir)
                    .map(|(a, b)| a + sign * h * b)
                    .collect();
                moved[i] = Literal::from_f64(DType::F64, x[i].shape(), &v);
                *value = f(&moved)?;
            }
            *estimate = (at[0] - at[1]) / (2.0 * h);
        }
        let [fd, fd10] = estimates;
        if (fd - fd10).abs() > 0.1 * (RTOL * fd.abs().max(fd10.abs()) + ATOL) {
            skipped += 1;
            continue;
        }
        let analytic = dot(&dir, g);
        if (fd - analytic).abs() > RTOL * fd.abs().max(analytic.abs()) + ATOL {
            return Err(format!(
                "operand #{i}: the directional derivative is {analytic} by @loss_grad and {fd} \
                 by finite differences ({fd10} with 10h)\n{}",
                text()
            ));
        }
        checked += 1;
    }
    Ok((checked, skipped))
}
