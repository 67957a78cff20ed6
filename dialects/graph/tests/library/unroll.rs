//! `graph.rnn` unrolled into primitive graph ops (`src/autodiff/unroll.rs`): the interpreter
//! on random `graph.rnn`s (every cell, direction and activation, `clip`, the cell flags,
//! `sequence_lens`, `?` dims) agrees with the interpreter on their unrolling, every op the
//! unrolling builds has a derivative rule or carries no gradient, and what it refuses.

use dlc_graph::autodiff::unroll::unroll_rnn;
use dlc_graph::autodiff::Differentiable;
use dlc_graph::decompose::GraphBuilder;
use dlc_graph::generate::Rng;
use dlc_graph::interp::interpret;
use dlc_graph::recurrence::{build_rnn, ActivationKind, Cell, Direction};
use dlc_ir::{
    verify, AttrKind, Attribute, Context, InsertPoint, Location, Op, OpSpec, PrintOptions, Type,
    Value, DYNAMIC,
};
use dlc_tensor::{DType, Literal};

/// Random configurations checked against the interpreter.
const CASES: u64 = 60;

/// One random `graph.rnn`: its attributes, sizes and operand types.
struct Case {
    cell: Cell,
    direction: Direction,
    attrs: Vec<(&'static str, Attribute)>,
    /// `T, B, H`.
    sizes: [usize; 3],
    /// Per operand, the dims its type leaves `?`.
    erased: Vec<Vec<usize>>,
    /// `sequence_lens` (and its dtype), if any.
    lens: Option<(DType, Vec<i64>)>,
    /// Describes the case, for messages.
    text: String,
}

fn context() -> Context {
    let mut ctx = Context::new();
    ctx.register_dialect(dlc_func::dialect());
    ctx.register_dialect(dlc_graph::dialect());
    ctx
}

/// The case of `seed`: every cell, direction and activation, `clip`, the cell flags,
/// `sequence_lens` (entries from −1 to `T + 1`, so clamping is seen), `T ≤ 5`, and `?` dims
/// in the operand types (but `xp`'s time dim and `h0`'s hidden dim).
fn case(ctx: &mut Context, seed: u64) -> Case {
    let mut rng = Rng::new(seed);
    let cell = [Cell::Lstm, Cell::Gru, Cell::Rnn][seed as usize % 3];
    let direction = [
        Direction::Forward,
        Direction::Reverse,
        Direction::Bidirectional,
    ][(seed / 3) as usize % 3];
    let sizes = [
        rng.range(1, 5) as usize,
        rng.range(1, 3) as usize,
        rng.range(1, 3) as usize,
    ];
    let mut attrs = vec![
        ("cell", ctx.string_attr(cell.name())),
        (
            "direction",
            ctx.string_attr(["forward", "reverse", "bidirectional"][(seed / 3) as usize % 3]),
        ),
    ];
    let mut text = format!("seed {seed}: {cell:?} {direction:?} T, B, H = {sizes:?}");
    if rng.chance(0.8) {
        let count = cell.functions() * direction.count();
        let kinds: Vec<ActivationKind> = (0..count)
            .map(|_| rng.pick(&ActivationKind::ALL).1)
            .collect();
        let names: Vec<Attribute> = kinds.iter().map(|k| ctx.string_attr(k.name())).collect();
        attrs.push(("activations", ctx.array_attr(&names)));
        text += &format!(" activations {kinds:?}");
        if rng.chance(0.7) {
            let mut params = |lo: f64, hi: f64| -> Vec<f64> {
                (0..count).map(|_| lo + rng.unit() * (hi - lo)).collect()
            };
            let (alphas, betas) = (params(0.1, 1.5), params(-0.5, 0.5));
            text += &format!(" alpha {alphas:?} beta {betas:?}");
            for (name, values) in [("activation_alpha", alphas), ("activation_beta", betas)] {
                let attr = ctx.intern_attr(AttrKind::DenseArray {
                    element: Type::F64,
                    values: values.iter().map(|f| f.to_bits() as i64).collect(),
                });
                attrs.push((name, attr));
            }
        }
    }
    if rng.chance(0.4) {
        let clip = 0.3 + rng.unit() * 2.0;
        attrs.push(("clip", ctx.float_attr(clip, Type::F64)));
        text += &format!(" clip {clip}");
    }
    if cell == Cell::Gru && rng.chance(0.5) {
        attrs.push(("linear_before_reset", ctx.bool_attr(true)));
        text += " linear_before_reset";
    }
    if cell == Cell::Lstm && rng.chance(0.4) {
        attrs.push(("input_forget", ctx.bool_attr(true)));
        text += " input_forget";
    }
    let lens = rng.chance(0.5).then(|| {
        let dtype = if rng.chance(0.5) {
            DType::I32
        } else {
            DType::I64
        };
        let t = sizes[0] as i64;
        (dtype, (0..sizes[1]).map(|_| rng.range(-1, t + 1)).collect())
    });
    if let Some((_, l)) = &lens {
        text += &format!(" sequence_lens {l:?}");
    }
    let ranks = [3, 3, 2, 3, 3, 2, 1];
    let erased = (0..cell.operands() + usize::from(lens.is_some()))
        .map(|i| {
            let rank = if i == cell.operands() { 1 } else { ranks[i] };
            (0..rank)
                .filter(|&axis| (i, axis) != (0, 0) && (i, axis) != (3, 2) && rng.chance(0.15))
                .collect()
        })
        .collect();
    Case {
        cell,
        direction,
        attrs,
        sizes,
        erased,
        lens,
        text,
    }
}

impl Case {
    /// The operand shapes: `xp, r, rb, h0`, for lstm `c0, p`, then `sequence_lens`.
    fn shapes(&self) -> Vec<Vec<usize>> {
        let [t, b, h] = self.sizes;
        let (d, g) = (self.direction.count(), self.cell.gates());
        let mut shapes = vec![
            vec![t, b, d * g * h],
            vec![d, h, g * h],
            vec![d, g * h],
            vec![d, b, h],
        ];
        if self.cell == Cell::Lstm {
            shapes.push(vec![d, b, h]);
            shapes.push(vec![d, 3 * h]);
        }
        if self.lens.is_some() {
            shapes.push(vec![b]);
        }
        shapes
    }

    /// A module with `@main` applying the op to its arguments and returning its results,
    /// and the op.
    fn build(&self, ctx: &mut Context) -> (Op, Op, Op) {
        let loc = Location::Unknown;
        let types: Vec<Type> = self
            .shapes()
            .iter()
            .enumerate()
            .map(|(i, shape)| {
                let dims: Vec<i64> = shape
                    .iter()
                    .enumerate()
                    .map(|(axis, d)| {
                        if self.erased[i].contains(&axis) {
                            DYNAMIC
                        } else {
                            *d as i64
                        }
                    })
                    .collect();
                let elem = match (&self.lens, i == self.cell.operands()) {
                    (Some((DType::I32, _)), true) => Type::I32,
                    (Some(_), true) => Type::I64,
                    _ => Type::F64,
                };
                ctx.tensor_type(&dims, elem)
            })
            .collect();
        let (module_region, module_block) = ctx.create_region_with_block(&[]);
        let spec = OpSpec::new(ctx, "builtin.module", loc).region(module_region);
        let module = ctx.create_op(spec);
        let (body, entry) = ctx.create_region_with_block(&types);
        let args = ctx.block_args(entry).to_vec();
        let op = build_rnn(ctx, InsertPoint::End(entry), &args, &self.attrs, loc)
            .unwrap_or_else(|d| panic!("{}: {}", self.text, d.message));
        let results: Vec<Value> = ctx.results(op).collect();
        let spec = OpSpec::new(ctx, "func.return", loc).operands(&results);
        ctx.build(InsertPoint::End(entry), spec);
        let result_types: Vec<Type> = results.iter().map(|v| ctx.value_type(*v)).collect();
        let fn_ty = ctx.function_type(&types, &result_types);
        let name = ctx.string_attr("main");
        let ty = ctx.type_attr(fn_ty);
        let spec = OpSpec::new(ctx, "func.func", loc)
            .attr(ctx, "sym_name", name)
            .attr(ctx, "function_type", ty)
            .region(body);
        let func = ctx.build(InsertPoint::End(module_block), spec);
        (module, func, op)
    }

    /// Random inputs: floats in [-1.5, 1.5) (the recurrent weights in [-0.8, 0.8)).
    fn inputs(&self, rng: &mut Rng) -> Vec<Literal> {
        self.shapes()
            .iter()
            .enumerate()
            .map(|(i, shape)| {
                if let (true, Some((dtype, lens))) = (i == self.cell.operands(), &self.lens) {
                    return Literal::from_i64(*dtype, shape, lens);
                }
                let scale = if i == 1 { 0.8 } else { 1.5 };
                let n: usize = shape.iter().product();
                let v: Vec<f64> = (0..n).map(|_| (rng.unit() * 2.0 - 1.0) * scale).collect();
                Literal::from_f64(DType::F64, shape, &v)
            })
            .collect()
    }
}

/// Unrolls `op` in place; the error if it refuses.
fn unroll(ctx: &mut Context, op: Op) -> Result<(), String> {
    let loc = ctx.op_loc(op);
    let mut b = GraphBuilder::new(ctx, InsertPoint::Before(op), loc);
    let values = unroll_rnn(&mut b, op)?;
    ctx.replace_op(op, &values);
    Ok(())
}

#[test]
fn unrolled_recurrences_match_the_interpreter() {
    for seed in 0..CASES {
        let mut ctx = context();
        let case = case(&mut ctx, seed);
        check(&mut ctx, &case, seed);
    }
}

/// Checks the unrolling of `case` against the interpreter on random inputs; also that every
/// op it builds has a derivative rule or carries no gradient.
fn check(ctx: &mut Context, case: &Case, seed: u64) {
    let (module, func, op) = case.build(ctx);
    verify(ctx, module).unwrap_or_else(|d| panic!("{}: {d:?}", case.text));
    let mut rng = Rng::new(seed ^ 0x5eed);
    let inputs = case.inputs(&mut rng);
    let want = interpret(ctx, func, &inputs).unwrap_or_else(|d| panic!("{}: {d:?}", case.text));
    unroll(ctx, op).unwrap_or_else(|m| panic!("{}: refused: {m}", case.text));
    let text = dlc_ir::print_op(ctx, func, PrintOptions::default());
    verify(ctx, module).unwrap_or_else(|d| panic!("{}: {d:?}\n{text}", case.text));
    let inert = [
        "func.func",
        "func.return",
        "graph.constant",
        "graph.cmp",
        "graph.dim",
        "graph.fill",
    ];
    ctx.for_each_op(func, &mut |inner| {
        let name = ctx.op_name(inner);
        assert!(
            inert.contains(&name) || ctx.interface::<dyn Differentiable>(inner).is_some(),
            "{}: {name} has no derivative rule\n{text}",
            case.text
        );
    });
    let got =
        interpret(ctx, func, &inputs).unwrap_or_else(|d| panic!("{}: {d:?}\n{text}", case.text));
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g.shape(), w.shape(), "{}: result #{i}\n{text}", case.text);
        let close = g
            .to_f64_vec()
            .iter()
            .zip(w.to_f64_vec())
            .all(|(a, b)| (a - b).abs() <= 1e-9 * (1.0 + b.abs()));
        assert!(
            close,
            "{}: result #{i}: got {:?}, want {:?}\n{text}",
            case.text,
            g.to_f64_vec(),
            w.to_f64_vec()
        );
    }
}

#[test]
fn refusals_and_empty_sequences() {
    let mut ctx = context();
    let mut base = case(&mut ctx, 4);
    // A `?` number of steps.
    base.erased[0] = vec![0];
    let (_, _, op) = base.build(&mut ctx);
    let err = unroll(&mut ctx, op).unwrap_err();
    assert!(err.contains("needs a static number of steps"), "{err}");
    // A hidden size `?` everywhere.
    base.erased = vec![vec![2], vec![1, 2], vec![1], vec![2]];
    if base.cell == Cell::Lstm {
        base.erased.extend([vec![2], vec![1]]);
    }
    base.erased.resize(base.shapes().len(), Vec::new());
    let (_, _, op) = base.build(&mut ctx);
    let err = unroll(&mut ctx, op).unwrap_err();
    assert!(err.contains("needs a static hidden size"), "{err}");
    // No steps: zeros, `?` dims included.
    for seed in 0..6 {
        let mut ctx = context();
        let mut case = case(&mut ctx, seed);
        case.sizes[0] = 0;
        if let Some((_, lens)) = &mut case.lens {
            lens.iter_mut().for_each(|l| *l = (*l).min(0));
        }
        check(&mut ctx, &case, seed);
    }
}
