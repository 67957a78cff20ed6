//! Differential tests of the composite decompositions: each composite runs in the interpreter
//! by its own reference semantics, then again after `decompose_all` rewrote it into primitives,
//! on the same random inputs; the results must agree within a tolerance.
//!
//! Tolerance: |got - want| <= ATOL + RTOL·|want| with 1e-4 for f32 and 1e-9 for f64 (the
//! decompositions reorder float operations, e.g. `x/√2` vs the reference's own formula, and
//! each interpreter op rounds to the tensor's format).

use dlc_graph::decompose::{decompose_all, direct_conv, is_composite, DIRECT_MIN_COLUMNS};
use dlc_graph::generate::Rng;
use dlc_graph::interp::interpret;
use dlc_ir::{parse_source, verify, Context, Op, PrintOptions, DYNAMIC};
use dlc_tensor::{DType, Literal};

fn context() -> Context {
    let mut ctx = Context::new();
    ctx.register_dialect(dlc_func::dialect());
    ctx.register_dialect(dlc_graph::dialect());
    ctx
}

/// The first `func.func` of a parsed module.
fn first_func(ctx: &Context, module: Op) -> Op {
    let body = ctx.blocks(ctx.region(module, 0))[0];
    ctx.first_op(body).expect("a function")
}

/// Random inputs for the arguments of `func`; `?` dims take `dynamic_size`.
fn random_inputs(ctx: &Context, func: Op, dynamic_size: usize, rng: &mut Rng) -> Vec<Literal> {
    let entry = ctx.blocks(ctx.region(func, 0))[0];
    ctx.block_args(entry)
        .iter()
        .map(|&arg| {
            let ty = ctx.value_type(arg);
            let shape: Vec<usize> = ctx
                .shape(ty)
                .expect("tensor argument")
                .iter()
                .map(|d| {
                    if *d == DYNAMIC {
                        dynamic_size
                    } else {
                        *d as usize
                    }
                })
                .collect();
            let dtype = DType::from_type(ctx, ctx.element_type(ty)).expect("known dtype");
            random_literal(dtype, &shape, rng)
        })
        .collect()
}

fn random_literal(dtype: DType, shape: &[usize], rng: &mut Rng) -> Literal {
    let n: usize = shape.iter().product();
    if dtype.is_float() {
        let values: Vec<f64> = (0..n).map(|_| rng.unit() * 4.0 - 2.0).collect();
        Literal::from_f64(dtype, shape, &values)
    } else if dtype.is_bool() {
        let values: Vec<bool> = (0..n).map(|_| rng.chance(0.5)).collect();
        Literal::from_bools(shape, &values)
    } else {
        let values: Vec<i64> = (0..n).map(|_| rng.range(-4, 4)).collect();
        Literal::from_i64(dtype, shape, &values)
    }
}

/// Checks that decomposing the composites of `src` keeps its results, on `runs` random inputs.
fn check(name: &str, src: &str, dynamic_size: usize) {
    let mut ctx = context();
    let module = parse_source(&mut ctx, src, name, 1).unwrap_or_else(|d| panic!("{name}: {d:?}"));
    verify(&ctx, module).unwrap_or_else(|d| panic!("{name}: {d:?}"));
    let func = first_func(&ctx, module);
    let mut rng = Rng::new(name.len() as u64 * 7919);
    let mut cases = Vec::new();
    for _ in 0..3 {
        let inputs = random_inputs(&ctx, func, dynamic_size, &mut rng);
        let want = interpret(&ctx, func, &inputs)
            .unwrap_or_else(|d| panic!("{name}: reference run failed: {d:?}"));
        cases.push((inputs, want));
    }

    let count = decompose_all(&mut ctx, module);
    assert!(count > 0, "{name}: nothing was decomposed");
    let text = dlc_ir::print_op(&ctx, module, PrintOptions::default());
    verify(&ctx, module).unwrap_or_else(|d| panic!("{name}: {d:?}\n{text}"));
    let mut left = Vec::new();
    ctx.for_each_op(module, &mut |op| {
        if is_composite(ctx.op_name(op)) && direct_conv(&ctx, op).is_none() {
            left.push(ctx.op_name(op).to_string());
        }
    });
    assert!(left.is_empty(), "{name}: composites left: {left:?}\n{text}");

    for (inputs, want) in cases {
        let got = interpret(&ctx, func, &inputs)
            .unwrap_or_else(|d| panic!("{name}: decomposed run failed: {d:?}\n{text}"));
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(&want) {
            assert_close(name, g, w, &text);
        }
    }
}

fn assert_close(name: &str, got: &Literal, want: &Literal, text: &str) {
    assert_eq!(got.shape(), want.shape(), "{name}: shapes differ\n{text}");
    assert_eq!(got.dtype(), want.dtype(), "{name}: dtypes differ");
    let tol = if want.dtype() == DType::F64 {
        1e-9
    } else {
        1e-4
    };
    for i in 0..want.len() {
        let (g, w) = (got.get(i).as_f64(), want.get(i).as_f64());
        let ok = (g.is_nan() && w.is_nan()) || g == w || (g - w).abs() <= tol + tol * w.abs();
        assert!(ok, "{name}: element {i}: got {g}, want {w}\n{text}");
    }
}

#[test]
fn softmax() {
    check(
        "softmax",
        r#"func.func @f(%x: tensor<4x7xf32>) -> tensor<4x7xf32> {
  %0 = "graph.softmax"(%x) {axis = 1 : i64} : (tensor<4x7xf32>) -> tensor<4x7xf32>
  return %0 : tensor<4x7xf32>
}"#,
        1,
    );
    check(
        "softmax_axis0_dynamic",
        r#"func.func @f(%x: tensor<?x7xf32>) -> tensor<?x7xf32> {
  %0 = "graph.softmax"(%x) {axis = 0 : i64} : (tensor<?x7xf32>) -> tensor<?x7xf32>
  return %0 : tensor<?x7xf32>
}"#,
        3,
    );
}

#[test]
fn log_softmax() {
    check(
        "log_softmax",
        r#"func.func @f(%x: tensor<2x3x5xf64>) -> tensor<2x3x5xf64> {
  %0 = "graph.log_softmax"(%x) {axis = 2 : i64} : (tensor<2x3x5xf64>) -> tensor<2x3x5xf64>
  return %0 : tensor<2x3x5xf64>
}"#,
        1,
    );
}

#[test]
fn layer_norm() {
    check(
        "layer_norm",
        r#"func.func @f(%x: tensor<2x3x8xf32>, %g: tensor<3x8xf32>, %b: tensor<3x8xf32>) -> tensor<2x3x8xf32> {
  %0 = "graph.layer_norm"(%x, %g, %b) {axis = 1 : i64, epsilon = 1.0e-05 : f64} : (tensor<2x3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<2x3x8xf32>
  return %0 : tensor<2x3x8xf32>
}"#,
        1,
    );
}

#[test]
fn rms_norm() {
    check(
        "rms_norm",
        r#"func.func @f(%x: tensor<?x8xf32>, %g: tensor<8xf32>) -> tensor<?x8xf32> {
  %0 = "graph.rms_norm"(%x, %g) {axis = 1 : i64, epsilon = 1.0e-06 : f64} : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}"#,
        4,
    );
}

#[test]
fn gelu() {
    for mode in ["none", "tanh"] {
        check(
            &format!("gelu_{mode}"),
            &format!(
                r#"func.func @f(%x: tensor<3x5xf32>) -> tensor<3x5xf32> {{
  %0 = "graph.gelu"(%x) {{approximate = "{mode}"}} : (tensor<3x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}}"#
            ),
            1,
        );
    }
    check(
        "gelu_f64",
        r#"func.func @f(%x: tensor<6xf64>) -> tensor<6xf64> {
  %0 = "graph.gelu"(%x) {approximate = "none"} : (tensor<6xf64>) -> tensor<6xf64>
  return %0 : tensor<6xf64>
}"#,
        1,
    );
}

#[test]
fn silu() {
    check(
        "silu",
        r#"func.func @f(%x: tensor<2x?xf32>) -> tensor<2x?xf32> {
  %0 = "graph.silu"(%x) : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return %0 : tensor<2x?xf32>
}"#,
        5,
    );
}

#[test]
fn linear() {
    check(
        "linear",
        r#"func.func @f(%x: tensor<2x3x4xf32>, %w: tensor<4x5xf32>, %b: tensor<5xf32>) -> tensor<2x3x5xf32> {
  %0 = "graph.linear"(%x, %w, %b) : (tensor<2x3x4xf32>, tensor<4x5xf32>, tensor<5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}"#,
        1,
    );
    check(
        "linear_vector",
        r#"func.func @f(%x: tensor<4xf32>, %w: tensor<4x5xf32>, %b: tensor<5xf32>) -> tensor<5xf32> {
  %0 = "graph.linear"(%x, %w, %b) : (tensor<4xf32>, tensor<4x5xf32>, tensor<5xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}"#,
        1,
    );
}

#[test]
fn conv2d() {
    check(
        "conv2d",
        r#"func.func @f(%x: tensor<1x3x5x5xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x3x3xf32> {
  %0 = "graph.conv2d"(%x, %w) {dilations = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x3x3xf32>
  return %0 : tensor<1x4x3x3xf32>
}"#,
        1,
    );
    // Output rows of 33 columns: the padding becomes a `graph.pad`, the convolution stays whole.
    check(
        "conv2d_direct",
        r#"func.func @f(%x: tensor<1x3x3x33xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x3x33xf32> {
  %0 = "graph.conv2d"(%x, %w) {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x3x3x33xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x3x33xf32>
  return %0 : tensor<1x4x3x33xf32>
}"#,
        1,
    );
    // A 1x1 window over narrow rows: a matmul over every pixel, with no gather.
    check(
        "conv2d_pointwise",
        r#"func.func @f(%x: tensor<2x6x3x4xf32>, %w: tensor<4x3x1x1xf32>) -> tensor<2x4x3x4xf32> {
  %0 = "graph.conv2d"(%x, %w) {groups = 2 : i64} : (tensor<2x6x3x4xf32>, tensor<4x3x1x1xf32>) -> tensor<2x4x3x4xf32>
  return %0 : tensor<2x4x3x4xf32>
}"#,
        1,
    );
    // Strides, asymmetric padding, dilation and two groups at once.
    check(
        "conv2d_grouped",
        r#"func.func @f(%x: tensor<2x4x7x6xf32>, %w: tensor<6x2x3x2xf32>) -> tensor<2x6x4x5xf32> {
  %0 = "graph.conv2d"(%x, %w) {dilations = array<i64: 1, 2>, groups = 2 : i64, padding = array<i64: 1, 0, 1, 1>, strides = array<i64: 2, 1>} : (tensor<2x4x7x6xf32>, tensor<6x2x3x2xf32>) -> tensor<2x6x4x5xf32>
  return %0 : tensor<2x6x4x5xf32>
}"#,
        1,
    );
    check(
        "conv2d_dynamic_batch",
        r#"func.func @f(%x: tensor<?x3x5x5xf32>, %w: tensor<2x3x1x1xf32>) -> tensor<?x2x3x3xf32> {
  %0 = "graph.conv2d"(%x, %w) {dilations = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<?x3x5x5xf32>, tensor<2x3x1x1xf32>) -> tensor<?x2x3x3xf32>
  return %0 : tensor<?x2x3x3xf32>
}"#,
        2,
    );
}

/// An unpadded convolution with a column stride of 1 is left whole for `lower` when its output
/// rows have at least `DIRECT_MIN_COLUMNS` columns or it is depthwise; otherwise it is
/// decomposed (im2col).
#[test]
fn direct_conv2d_is_kept() {
    let src = |width: i64, stride: i64, groups: i64| {
        let ow = (width - 3) / stride + 1;
        let wc = 4 / groups;
        format!(
            r#"func.func @f(%x: tensor<1x4x6x{width}xf32>, %w: tensor<4x{wc}x3x3xf32>) -> tensor<1x4x4x{ow}xf32> {{
  %0 = "graph.conv2d"(%x, %w) {{strides = array<i64: 1, {stride}>, groups = {groups} : i64}} : (tensor<1x4x6x{width}xf32>, tensor<4x{wc}x3x3xf32>) -> tensor<1x4x4x{ow}xf32>
  return %0 : tensor<1x4x4x{ow}xf32>
}}"#
        )
    };
    let wide = DIRECT_MIN_COLUMNS + 2;
    for (width, stride, groups, decomposed) in [
        (wide, 1, 1, 0),
        (wide, 2, 1, 1),
        (wide - 1, 1, 1, 1),
        (6, 1, 4, 0),
    ] {
        let mut ctx = context();
        let text = src(width, stride, groups);
        let module = parse_source(&mut ctx, &text, "conv", 1).expect("parses");
        assert_eq!(decompose_all(&mut ctx, module), decomposed, "{text}");
    }
}

#[test]
fn pools() {
    for name in ["max_pool2d", "avg_pool2d"] {
        check(
            name,
            &format!(
                r#"func.func @f(%x: tensor<1x2x6x5xf32>) -> tensor<1x2x3x3xf32> {{
  %0 = "graph.{name}"(%x) {{kernel = array<i64: 3, 2>, padding = array<i64: 1, 1, 1, 0>, strides = array<i64: 2, 2>}} : (tensor<1x2x6x5xf32>) -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}}"#
            ),
            1,
        );
        check(
            &format!("{name}_dynamic_batch"),
            &format!(
                r#"func.func @f(%x: tensor<?x2x4x4xf64>) -> tensor<?x2x2x2xf64> {{
  %0 = "graph.{name}"(%x) {{kernel = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>}} : (tensor<?x2x4x4xf64>) -> tensor<?x2x2x2xf64>
  return %0 : tensor<?x2x2x2xf64>
}}"#
            ),
            3,
        );
    }
}

#[test]
fn sdpa() {
    check(
        "sdpa_mask",
        r#"func.func @f(%q: tensor<2x3x4xf32>, %k: tensor<2x5x4xf32>, %v: tensor<2x5x6xf32>, %m: tensor<3x5xf32>) -> tensor<2x3x6xf32> {
  %0 = "graph.sdpa"(%q, %k, %v, %m) {scale = 5.000000e-01 : f64} : (tensor<2x3x4xf32>, tensor<2x5x4xf32>, tensor<2x5x6xf32>, tensor<3x5xf32>) -> tensor<2x3x6xf32>
  return %0 : tensor<2x3x6xf32>
}"#,
        1,
    );
    check(
        "sdpa",
        r#"func.func @f(%q: tensor<?x4xf32>, %k: tensor<?x4xf32>, %v: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %0 = "graph.sdpa"(%q, %k, %v) {scale = 2.500000e-01 : f64} : (tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}"#,
        5,
    );
}
