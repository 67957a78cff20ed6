//! Fuzzes compile-and-run: fuzzer bytes pick a GraphGen configuration (seed, size, ranks,
//! dims, dynamic dims, composites) and the input values, including NaN, infinities, denormals,
//! signed zeros, extreme integers and zero-size dynamic dims. The program goes through
//! `dlc-run`'s default pipeline (`decompose,fuse,lower,cpu-default`), is JIT-compiled and run
//! twice (the second time on poisoned memory), and is compared with the graph interpreter.
//!
//! A finding is a panic, a signal, a run whose outputs differ between the two runs, or outputs
//! outside the documented tolerance (`dlc_driver::check`) of the interpreter's, when the inputs
//! are finite and no op turns a last-bit difference into a large one (the policy of the JIT
//! differential test). An error that the compiler or runtime reports is not a finding: it is
//! how bad input must end.

#![no_main]

use dlc_graph::decompose::discontinuous_after_composite;
use dlc_graph::generate::{GraphGen, Rng};
use dlc_ir::{print_op, Context, PrintOptions};
use dlc_driver::{check, inputs, Model, ModelOptions};
use dlc_runtime::{DimSpec, Outputs, Tensor};
use dlc_tensor::{DType, Scalar};
use libfuzzer_sys::fuzz_target;

/// Float values that stress the code generator's math.
const SPECIAL_FLOATS: [f64; 10] = [
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    0.0,
    -0.0,
    1e-40, // an f32 denormal
    -1e-310,
    65504.0, // the largest f16
    3.4e38,
    -1.0,
];

fuzz_target!(|data: &[u8]| {
    let mut bytes = Bytes(data);
    let config = GraphGen {
        seed: u64::from_le_bytes(bytes.take::<8>()),
        num_ops: 1 + usize::from(bytes.byte() % 20),
        max_rank: 1 + usize::from(bytes.byte() % 4),
        max_dim: 1 + i64::from(bytes.byte() % 6),
        dynamic: bytes.byte() % 2 == 0,
        composites: bytes.byte() % 2 == 0,
        max_outputs: 1 + usize::from(bytes.byte() % 3),
        max_elements: 4096,
        float: None,
    };
    let mut ctx = Context::new();
    dlc_dialects::register_all_dialects(&mut ctx);
    let g = config.generate(&mut ctx);
    let text = print_op(&ctx, g.module, PrintOptions::default());
    let comparable = !discontinuous_after_composite(&ctx, g.func);
    let Ok(model) = Model::compile(&text, "fuzz", &ModelOptions::default()) else {
        return;
    };
    let specs = &model.program().signature().inputs;
    assert_eq!(specs.len(), g.arg_shapes.len(), "{text}");
    // One fuzzer byte decides whether the `?` dims take size 0 (each symbol consistently, so
    // dims that must agree still do) instead of the generator's sizes.
    let zero_size = bytes.byte() % 4 == 0;
    let mut rng = Rng::new(config.seed ^ 0xF022);
    let mut ordinary = true;
    let inputs: Vec<Tensor> = specs
        .iter()
        .zip(&g.arg_shapes)
        .map(|(spec, shape)| {
            let shape: Vec<usize> = spec
                .dims
                .iter()
                .zip(shape)
                .map(|(d, &n)| match d {
                    DimSpec::Symbol(_) if zero_size => 0,
                    _ => n,
                })
                .collect();
            let t = inputs::random_tensor(spec.dtype, &shape, &mut rng).expect("a small tensor");
            let (t, plain) = sprinkle(t, &mut bytes);
            ordinary &= plain;
            t
        })
        .collect();
    let refs: Vec<&Tensor> = inputs.iter().collect();
    let mut session = model.session();
    let Ok(first) = session.run(&refs).map(|o| outputs(&o)) else {
        return;
    };
    session.set_poison(true);
    let second = outputs(
        &session
            .run(&refs)
            .expect("a second run of the same inputs fails"),
    );
    // Bit for bit: NaN outputs must come back as the same NaN.
    let bits = |o: &[Tensor]| o.iter().map(|t| t.bytes().to_vec()).collect::<Vec<_>>();
    assert!(
        bits(&first) == bits(&second),
        "outputs change when memory is poisoned\n{text}"
    );
    if !(comparable && ordinary) {
        return;
    }
    let Ok(reference) = check::reference(&model, &inputs) else {
        return;
    };
    let floor = {
        let (ctx, func) = model.source().expect("compiled from source");
        check::loosest(ctx, func)
    };
    let first: Vec<_> = first.iter().map(Tensor::to_literal).collect();
    let reports =
        check::compare(&reference, &first, floor).unwrap_or_else(|e| panic!("{e}\n{text}"));
    for (i, r) in reports.iter().enumerate() {
        assert!(
            r.ok,
            "output {i}: max |error| {} over the tolerance\n{text}",
            r.max_abs
        );
    }
});

/// The outputs of a run, copied out of the session.
fn outputs(o: &Outputs<'_>) -> Vec<Tensor> {
    o.iter()
        .map(|v| v.to_tensor().expect("an output fits a tensor"))
        .collect()
}

/// The fuzzer's bytes, read front to back; zeros once they run out.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn byte(&mut self) -> u8 {
        let Some((&b, rest)) = self.0.split_first() else {
            return 0;
        };
        self.0 = rest;
        b
    }

    fn take<const N: usize>(&mut self) -> [u8; N] {
        std::array::from_fn(|_| self.byte())
    }
}

/// `t` with some elements replaced by special values, one fuzzer byte per element while bytes
/// last (a byte below 48 picks a special value); also whether `t` kept ordinary values only,
/// the ones whose results the interpreter comparison holds to the tolerance. Integers get
/// their dtype's extremes, which wrap the same way in compiled code and the interpreter, so
/// they stay comparable.
fn sprinkle(t: Tensor, bytes: &mut Bytes<'_>) -> (Tensor, bool) {
    let mut values = t.to_literal();
    let (min, max) = match values.dtype() {
        DType::I8 => (i64::from(i8::MIN), i64::from(i8::MAX)),
        DType::I32 => (i64::from(i32::MIN), i64::from(i32::MAX)),
        _ => (i64::MIN, i64::MAX),
    };
    let mut plain = true;
    for i in 0..values.len() {
        let b = bytes.byte();
        let special = match values.get(i) {
            Scalar::Float(_) if b < 48 => {
                plain = false;
                Scalar::Float(SPECIAL_FLOATS[usize::from(b) % SPECIAL_FLOATS.len()])
            }
            Scalar::Int(_) if b < 48 => Scalar::Int([min, max, 0, -1, 1][usize::from(b) % 5]),
            Scalar::Bool(_) => Scalar::Bool(b % 2 == 1),
            _ => continue,
        };
        values.set(i, special);
    }
    let t = Tensor::from_literal(&values).expect("same shape and dtype");
    (t, plain)
}
