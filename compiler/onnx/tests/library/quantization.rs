//! The quantization operators: the values of the compositions where the node tests are thin
//! (ties rounding to even on both signs, saturation at both ends, 16- and 32-bit zero points,
//! per-axis and blocked scales, the integer products' zero points, the `com.microsoft` ops),
//! and the errors that bad inputs end in (an axis out of range, a zero point or scale of the
//! wrong shape or type, a block size that does not fit, float8 outputs).

use dlc_graph::interp::interpret;
use dlc_ir::Context;
use dlc_onnx::proto::{
    AttributeProto, AttributeType, DataType, GraphProto, ModelProto, NodeProto, OperatorSetIdProto,
    TensorProto, ValueInfoProto,
};
use dlc_onnx::{import_model, ImportOptions};
use dlc_tensor::{DType, Literal};

/// One node `op` of domain `domain` at `opset`, inputs `names` (graph inputs first, then
/// initializers), output "y".
fn model(
    op: &str,
    domain: &str,
    opset: i64,
    attrs: Vec<AttributeProto>,
    names: &[&str],
    inputs: Vec<ValueInfoProto>,
    initializers: Vec<TensorProto>,
) -> ModelProto {
    let mut opset_import = vec![OperatorSetIdProto {
        domain: String::new(),
        version: opset,
    }];
    if !domain.is_empty() {
        opset_import.push(OperatorSetIdProto {
            domain: domain.into(),
            version: 1,
        });
    }
    ModelProto {
        ir_version: 9,
        opset_import,
        graph: Some(GraphProto {
            node: vec![NodeProto {
                input: names.iter().map(|s| s.to_string()).collect(),
                output: vec!["y".into()],
                name: "n".into(),
                op_type: op.into(),
                domain: domain.into(),
                attribute: attrs,
                ..Default::default()
            }],
            name: "g".into(),
            initializer: initializers,
            input: inputs,
            output: vec![ValueInfoProto {
                name: "y".into(),
                ..Default::default()
            }],
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn input(name: &str, elem: DataType, dims: &[i64]) -> ValueInfoProto {
    crate::robustness::value_info(name, Some((elem, dims)))
}

fn floats(name: &str, dims: &[i64], values: &[f32]) -> TensorProto {
    TensorProto {
        name: name.into(),
        dims: dims.to_vec(),
        data_type: DataType::Float as i32,
        float_data: values.to_vec(),
        ..Default::default()
    }
}

/// An integer initializer of type `dt` (8-, 16- and 32-bit types live in `int32_data`).
fn ints(name: &str, dt: DataType, dims: &[i64], values: &[i64]) -> TensorProto {
    let mut t = TensorProto {
        name: name.into(),
        dims: dims.to_vec(),
        data_type: dt as i32,
        ..Default::default()
    };
    match dt {
        DataType::Uint32 | DataType::Uint64 => {
            t.uint64_data = values.iter().map(|v| *v as u64).collect()
        }
        DataType::Int64 => t.int64_data = values.to_vec(),
        _ => t.int32_data = values.iter().map(|v| *v as i32).collect(),
    }
    t
}

/// A MatMulInteger node (opset 10) with inputs `names`.
fn matmul_integer(
    names: &[&str],
    inputs: Vec<ValueInfoProto>,
    initializers: Vec<TensorProto>,
) -> ModelProto {
    model("MatMulInteger", "", 10, vec![], names, inputs, initializers)
}

fn int_attr(name: &str, i: i64) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        r#type: AttributeType::Int as i32,
        i,
        ..Default::default()
    }
}

fn ints_attr(name: &str, v: &[i64]) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        r#type: AttributeType::Ints as i32,
        ints: v.to_vec(),
        ..Default::default()
    }
}

fn float_attr(name: &str, f: f32) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        r#type: AttributeType::Float as i32,
        f,
        ..Default::default()
    }
}

fn context() -> Context {
    let mut ctx = Context::new();
    dlc_dialects::register_all_dialects(&mut ctx);
    ctx
}

/// Imports `m` (verifying the module) and runs it in the interpreter on `args`; returns the
/// output's dtype and values.
fn run(m: &ModelProto, args: &[Literal]) -> (DType, Vec<f64>) {
    let mut ctx = context();
    let imported = import_model(&mut ctx, m, None, &ImportOptions::default())
        .unwrap_or_else(|e| panic!("the model does not import: {e}"));
    if let Err(d) = dlc_ir::verify(&ctx, imported.module) {
        panic!("the imported module does not verify: {}", d.message);
    }
    let out = interpret(&ctx, imported.func, args)
        .unwrap_or_else(|d| panic!("the interpreter fails: {}", d.message));
    (out[0].dtype(), out[0].to_f64_vec())
}

/// The import error of `m`, which must have one, as displayed.
fn error(m: &ModelProto) -> String {
    let mut ctx = context();
    match import_model(&mut ctx, m, None, &ImportOptions::default()) {
        Ok(_) => panic!("expected an import error"),
        Err(e) => e.to_string(),
    }
}

fn assert_mentions(message: &str, parts: &[&str]) {
    for part in parts {
        assert!(
            message.contains(part),
            "the error should mention {part:?}: {message}"
        );
    }
}

fn f32s(shape: &[usize], v: &[f64]) -> Literal {
    Literal::from_f64(DType::F32, shape, v)
}

/// QuantizeLinear of `x` (f32 `[n]`) by a scalar scale and a zero point of type `dt`.
fn quantize(x: &[f64], scale: f32, dt: DataType, zp: i64) -> (DType, Vec<f64>) {
    let n = x.len() as i64;
    let m = model(
        "QuantizeLinear",
        "",
        21,
        vec![],
        &["x", "s", "z"],
        vec![input("x", DataType::Float, &[n])],
        vec![floats("s", &[], &[scale]), ints("z", dt, &[], &[zp])],
    );
    run(&m, &[f32s(&[x.len()], x)])
}

#[test]
fn quantize_rounds_ties_to_even_and_saturates() {
    let x = [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, -1000.0, 1000.0];
    let (dt, y) = quantize(&x, 1.0, DataType::Int8, 0);
    assert_eq!(dt, DType::I8);
    assert_eq!(y, [-2.0, -2.0, -0.0, 0.0, 2.0, 2.0, -128.0, 127.0]);
    // The zero point is added after rounding, then the sum saturates.
    let (dt, y) = quantize(&x, 1.0, DataType::Uint8, 3);
    assert_eq!(dt, DType::U8);
    assert_eq!(y, [1.0, 1.0, 3.0, 3.0, 5.0, 5.0, 0.0, 255.0]);
    let (dt, y) = quantize(&[-1e9, -65.0, 65.0, 1e9], 0.5, DataType::Int16, -100);
    assert_eq!(dt, DType::I16);
    assert_eq!(y, [-32768.0, -230.0, 30.0, 32767.0]);
    let (dt, y) = quantize(&[-1.0, 0.25, 1e9], 0.5, DataType::Uint16, 60000);
    assert_eq!(dt, DType::U16);
    assert_eq!(y, [59998.0, 60000.0, 65535.0]);
}

/// The sum and clip of an 8- or 16-bit quantizer run in `f32`: exact where `round(x / s) + zp`
/// is below 2^24, and past that the sum rounds but still clips to the same bound.
#[test]
fn quantize_to_narrow_types_is_exact_at_the_edge_of_f32() {
    let big = 16_777_216.0; // 2^24
    let x = [
        -65535.0,
        -65536.0,
        -big,
        -big - 2.0,
        big,
        big + 2.0,
        3e38,
        -3e38,
    ];
    let (_, y) = quantize(&x, 1.0, DataType::Uint16, 65535);
    assert_eq!(y, [0.0, 0.0, 0.0, 0.0, 65535.0, 65535.0, 65535.0, 0.0]);
    let x = [
        32767.0,
        65535.0,
        65536.0,
        big - 1.0,
        -big + 1.0,
        1e30,
        -1e30,
    ];
    let (_, y) = quantize(&x, 1.0, DataType::Int16, -32768);
    assert_eq!(
        y,
        [-1.0, 32767.0, 32767.0, 32767.0, -32768.0, 32767.0, -32768.0]
    );
    let x = [-255.0, -256.0, -big, big, 0.5, 1.5];
    let (_, y) = quantize(&x, 1.0, DataType::Uint8, 255);
    assert_eq!(y, [0.0, 0.0, 0.0, 255.0, 255.0, 255.0]);
    let (_, y) = quantize(&[-big - 2.0, big - 1.0], 1.0, DataType::Int8, -128);
    assert_eq!(y, [-128.0, 127.0]);
}

#[test]
fn quantize_without_zero_point_is_uint8_or_output_dtype() {
    let x = [-3.0, 1.6, 300.0];
    let m = |attrs| {
        model(
            "QuantizeLinear",
            "",
            21,
            attrs,
            &["x", "s"],
            vec![input("x", DataType::Float, &[3])],
            vec![floats("s", &[], &[1.0])],
        )
    };
    assert_eq!(
        run(&m(vec![]), &[f32s(&[3], &x)]),
        (DType::U8, vec![0.0, 2.0, 255.0])
    );
    let with_dtype = m(vec![int_attr("output_dtype", DataType::Int8 as i64)]);
    assert_eq!(
        run(&with_dtype, &[f32s(&[3], &x)]),
        (DType::I8, vec![-3.0, 2.0, 127.0])
    );
}

#[test]
fn quantize_per_axis_and_blocked() {
    // Per axis 1 of a 2x3 input.
    let m = model(
        "QuantizeLinear",
        "",
        13,
        vec![int_attr("axis", 1)],
        &["x", "s", "z"],
        vec![input("x", DataType::Float, &[2, 3])],
        vec![
            floats("s", &[3], &[1.0, 2.0, 4.0]),
            ints("z", DataType::Uint8, &[3], &[0, 10, 20]),
        ],
    );
    let x = f32s(&[2, 3], &[4.0, 4.0, 4.0, 8.0, 8.0, 8.0]);
    assert_eq!(run(&m, &[x]).1, [4.0, 12.0, 21.0, 8.0, 14.0, 22.0]);
    // Blocks of 2 along axis 1 of a 2x5 input (the last block is short).
    let m = model(
        "QuantizeLinear",
        "",
        21,
        vec![int_attr("axis", 1), int_attr("block_size", 2)],
        &["x", "s"],
        vec![input("x", DataType::Float, &[2, 5])],
        vec![floats("s", &[2, 3], &[1.0, 2.0, 4.0, 0.5, 0.25, 1.0])],
    );
    let x = f32s(&[2, 5], &[8.0; 10]);
    assert_eq!(
        run(&m, &[x]).1,
        [8.0, 8.0, 4.0, 4.0, 2.0, 16.0, 16.0, 32.0, 32.0, 8.0]
    );
}

#[test]
fn dequantize_widens_before_subtracting() {
    let m = |dt: DataType, zp: i64| {
        model(
            "DequantizeLinear",
            "",
            21,
            vec![],
            &["x", "s", "z"],
            vec![input("x", dt, &[3])],
            vec![floats("s", &[], &[0.5]), ints("z", dt, &[], &[zp])],
        )
    };
    let x = Literal::from_i64(DType::U16, &[3], &[0, 65535, 30000]);
    assert_eq!(
        run(&m(DataType::Uint16, 65535), &[x]).1,
        [-32767.5, 0.0, -17767.5]
    );
    let x = Literal::from_i64(DType::I16, &[3], &[-32768, 32767, 0]);
    assert_eq!(
        run(&m(DataType::Int16, 32767), &[x]).1,
        [-32767.5, 0.0, -16383.5]
    );
    // int32: the difference needs 33 bits.
    let x = Literal::from_i64(DType::I32, &[3], &[i32::MIN as i64, i32::MAX as i64, 0]);
    let (dt, y) = run(&m(DataType::Int32, i32::MAX as i64), &[x]);
    assert_eq!(dt, DType::F32);
    assert_eq!(
        y,
        [-4294967295.0 * 0.5, 0.0, -(i32::MAX as f64) * 0.5].map(|v: f64| v as f32 as f64)
    );
}

#[test]
fn constant_dequantization_matches_the_graph_ops() {
    // A constant input is dequantized at import from its bytes; the same node with the input
    // given at run time goes through the graph ops. Both must give the same f32 bits, for
    // every 8- and 16-bit type, per tensor, per axis and blocked, with and without zero points.
    let dims = [2i64, 5, 3];
    let count = 30;
    let cases: [(DataType, DType, i64, i64); 4] = [
        (DataType::Int8, DType::I8, -128, 255),
        (DataType::Uint8, DType::U8, 0, 255),
        (DataType::Int16, DType::I16, -32768, 65535),
        (DataType::Uint16, DType::U16, 0, 65535),
    ];
    let scales = [0.1f32, -3.5, 1e-3, 7.25, 0.3, 2.0e4];
    for (dt, dtype, lo, span) in cases {
        let x: Vec<i64> = (0..count)
            .map(|i| lo + (i * 7919 + 13) % (span + 1))
            .collect();
        let zps: Vec<i64> = (0..6).map(|i| lo + (i * 4099 + 1) % (span + 1)).collect();
        // (attributes, scale dims, number of scales)
        let forms: [(Vec<AttributeProto>, Vec<i64>, usize); 3] = [
            (vec![], vec![], 1),
            (vec![int_attr("axis", 1)], vec![5], 5),
            (
                vec![int_attr("axis", 1), int_attr("block_size", 2)],
                vec![2, 3, 3],
                18,
            ),
        ];
        for (attrs, sdims, n) in forms {
            let s: Vec<f32> = (0..n).map(|i| scales[i % scales.len()]).collect();
            let z: Vec<i64> = (0..n).map(|i| zps[i % zps.len()]).collect();
            for with_zp in [false, true] {
                let names: &[&str] = if with_zp {
                    &["x", "s", "z"]
                } else {
                    &["x", "s"]
                };
                let mut params = vec![floats("s", &sdims, &s)];
                if with_zp {
                    params.push(ints("z", dt, &sdims, &z));
                }
                let given = model(
                    "DequantizeLinear",
                    "",
                    21,
                    attrs.clone(),
                    names,
                    vec![input("x", dt, &dims)],
                    params.clone(),
                );
                let xs = Literal::from_i64(dtype, &[2, 5, 3], &x);
                let want = run(&given, &[xs]);
                params.insert(0, ints("x", dt, &dims, &x));
                let constant = model(
                    "DequantizeLinear",
                    "",
                    21,
                    attrs.clone(),
                    names,
                    vec![],
                    params,
                );
                let got = run(&constant, &[]);
                assert_eq!(got, want, "{dt:?}, scales {sdims:?}, zero points {with_zp}");
            }
        }
    }
}

#[test]
fn dynamic_quantize_includes_zero_in_the_range() {
    let mut m = model(
        "DynamicQuantizeLinear",
        "",
        11,
        vec![],
        &["x"],
        vec![input("x", DataType::Float, &[4])],
        vec![],
    );
    let graph = m.graph.as_mut().expect("a graph");
    graph.node[0].output = vec!["y".into(), "s".into(), "z".into()];
    graph.output.extend(["s", "z"].map(|n| ValueInfoProto {
        name: n.into(),
        ..Default::default()
    }));
    // All positive: the range is [0, 5.1], scale 0.02, zero point 0.
    let (dt, y) = run(&m, &[f32s(&[4], &[1.0, 2.0, 5.1, 0.013])]);
    assert_eq!(dt, DType::U8);
    assert_eq!(y, [50.0, 100.0, 255.0, 1.0]);
}

#[test]
fn integer_products_subtract_zero_points_per_row_and_column() {
    // A 2x2 (uint8, per-row zero points [1, 2]) times B 2x2 (int8, per-column [0, -1]).
    let m = matmul_integer(
        &["a", "b", "za", "zb"],
        vec![input("a", DataType::Uint8, &[2, 2])],
        vec![
            ints("b", DataType::Int8, &[2, 2], &[1, 2, 3, 4]),
            ints("za", DataType::Uint8, &[2], &[1, 2]),
            ints("zb", DataType::Int8, &[2], &[0, -1]),
        ],
    );
    let a = Literal::from_i64(DType::U8, &[2, 2], &[255, 1, 2, 0]);
    // A − za = [[254, 0], [0, −2]]; B − zb = [[1, 3], [3, 5]].
    assert_eq!(run(&m, &[a]), (DType::I32, vec![254.0, 762.0, -6.0, -10.0]));
    // ConvInteger pads with the zero point (0 after the shift).
    let m = model(
        "ConvInteger",
        "",
        10,
        vec![ints_attr("pads", &[1, 1, 1, 1])],
        &["x", "w", "zx"],
        vec![input("x", DataType::Uint8, &[1, 1, 2, 2])],
        vec![
            ints("w", DataType::Uint8, &[1, 1, 2, 2], &[1, 1, 1, 1]),
            ints("zx", DataType::Uint8, &[], &[10]),
        ],
    );
    let x = Literal::from_i64(DType::U8, &[1, 1, 2, 2], &[11, 12, 13, 255]);
    let (dt, y) = run(&m, &[x]);
    assert_eq!(dt, DType::I32);
    assert_eq!(y, [1.0, 3.0, 2.0, 4.0, 251.0, 247.0, 3.0, 248.0, 245.0]);
}

/// `(A − za) · (B − zb)` of row-major `a` (`[batch?, m, k]`) and `b` (`[batch?, k, n]`, or
/// `[k, n]` shared), with scalar or per-row / per-column zero points, in `i64`.
fn integer_product(
    (a, a_shape, za): (&[i64], &[usize], &[i64]),
    (b, b_shape, zb): (&[i64], &[usize], &[i64]),
) -> Vec<f64> {
    let (m, k) = (a_shape[a_shape.len() - 2], a_shape[a_shape.len() - 1]);
    let n = b_shape[b_shape.len() - 1];
    let batch = a.len() / (m * k);
    let b_batch = b.len() / (k * n);
    let at = |z: &[i64], i: usize| if z.len() == 1 { z[0] } else { z[i] };
    let mut y = Vec::new();
    for p in 0..batch {
        for i in 0..m {
            for j in 0..n {
                let sum: i64 = (0..k)
                    .map(|l| {
                        let x = a[(p * m + i) * k + l] - at(za, i);
                        let w = b[((p % b_batch) * k + l) * n + j] - at(zb, j);
                        x * w
                    })
                    .sum();
                y.push(sum as i32 as f64);
            }
        }
    }
    y
}

#[test]
fn integer_products_with_constant_matrices_sum_their_bytes() {
    // The zero points enter through sums of the constant matrix, which the importer reads
    // from its bytes: a batched uint8 weight (moved by 128 to int8 first), an int8 constant
    // left operand (moved to uint8: its row sums), and a splat weight.
    let ramp = |n: usize, lo: i64, step: i64, span: i64| -> Vec<i64> {
        (0..n as i64)
            .map(|i| lo + (i * step).rem_euclid(span))
            .collect()
    };
    let a = ramp(2 * 3 * 4, 0, 37, 256);
    let b = ramp(2 * 4 * 5, 0, 91, 256);
    let m = matmul_integer(
        &["a", "b", "za", "zb"],
        vec![input("a", DataType::Uint8, &[2, 3, 4])],
        vec![
            ints("b", DataType::Uint8, &[2, 4, 5], &b),
            ints("za", DataType::Uint8, &[], &[7]),
            ints("zb", DataType::Uint8, &[5], &[0, 1, 128, 200, 255]),
        ],
    );
    let want = integer_product(
        (&a, &[2, 3, 4], &[7]),
        (&b, &[2, 4, 5], &[0, 1, 128, 200, 255]),
    );
    let x = Literal::from_i64(DType::U8, &[2, 3, 4], &a);
    assert_eq!(run(&m, &[x]), (DType::I32, want));

    let a = ramp(3 * 4, -128, 53, 256);
    let b = ramp(4 * 2, -128, 29, 256);
    let m = matmul_integer(
        &["a", "b", "za", "zb"],
        vec![input("b", DataType::Int8, &[4, 2])],
        vec![
            ints("a", DataType::Int8, &[3, 4], &a),
            ints("za", DataType::Int8, &[3], &[-128, 0, 127]),
            ints("zb", DataType::Int8, &[], &[-3]),
        ],
    );
    let want = integer_product((&a, &[3, 4], &[-128, 0, 127]), (&b, &[4, 2], &[-3]));
    let x = Literal::from_i64(DType::I8, &[4, 2], &b);
    assert_eq!(run(&m, &[x]), (DType::I32, want));

    let a = ramp(2 * 3, 0, 101, 256);
    let m = matmul_integer(
        &["a", "b", "za"],
        vec![input("a", DataType::Uint8, &[2, 3])],
        vec![
            ints("b", DataType::Int8, &[3, 2], &[-100; 6]),
            ints("za", DataType::Uint8, &[], &[9]),
        ],
    );
    let want = integer_product((&a, &[2, 3], &[9]), (&[-100; 6], &[3, 2], &[0]));
    let x = Literal::from_i64(DType::U8, &[2, 3], &a);
    assert_eq!(run(&m, &[x]), (DType::I32, want));
}

#[test]
fn qlinear_conv_requantizes_per_channel() {
    let m = model(
        "QLinearConv",
        "",
        10,
        vec![],
        &["x", "sx", "zx", "w", "sw", "zw", "sy", "zy", "b"],
        vec![input("x", DataType::Int8, &[1, 1, 1, 2])],
        vec![
            floats("sx", &[], &[0.5]),
            ints("zx", DataType::Int8, &[], &[-1]),
            ints("w", DataType::Int8, &[2, 1, 1, 1], &[3, -3]),
            floats("sw", &[2], &[1.0, 0.25]),
            ints("zw", DataType::Int8, &[2], &[1, 0]),
            floats("sy", &[], &[1.0]),
            ints("zy", DataType::Int8, &[], &[2]),
            ints("b", DataType::Int32, &[2], &[1, -4]),
        ],
    );
    let x = Literal::from_i64(DType::I8, &[1, 1, 1, 2], &[0, 127]);
    // Channel 0: round(((x+1)·2 + 1)·0.5) + 2 = [round(1.5) + 2, round(128.5) + 2 → 127];
    // channel 1: round(((x+1)·−3 − 4)·0.125) + 2 = [round(−0.875) + 2, round(−48.5) + 2].
    assert_eq!(run(&m, &[x]), (DType::I8, vec![4.0, 127.0, 1.0, -46.0]));
}

#[test]
fn contrib_ops_follow_onnxruntime() {
    let m = model(
        "QLinearAdd",
        "com.microsoft",
        17,
        vec![],
        &["a", "sa", "za", "b", "sb", "zb", "sc", "zc"],
        vec![input("a", DataType::Uint8, &[3])],
        vec![
            floats("sa", &[], &[0.5]),
            ints("za", DataType::Uint8, &[], &[10]),
            ints("b", DataType::Uint8, &[3], &[0, 20, 255]),
            floats("sb", &[], &[0.25]),
            ints("zb", DataType::Uint8, &[], &[20]),
            floats("sc", &[], &[1.0]),
            ints("zc", DataType::Uint8, &[], &[100]),
        ],
    );
    let a = Literal::from_i64(DType::U8, &[3], &[11, 13, 255]);
    // 0.5 − 5 = −4.5 → −4; 1.5 + 0 = 1.5 → 2; 122.5 + 58.75 = 181.25 → 181, then + 100.
    assert_eq!(run(&m, &[a]), (DType::U8, vec![96.0, 102.0, 255.0]));
    let m = model(
        "MatMulIntegerToFloat",
        "com.microsoft",
        17,
        vec![],
        &["a", "b", "sa", "sb", "za", "", "bias"],
        vec![input("a", DataType::Uint8, &[1, 2])],
        vec![
            ints("b", DataType::Int8, &[2, 2], &[1, -1, 2, 3]),
            floats("sa", &[], &[0.5]),
            floats("sb", &[2], &[1.0, 2.0]),
            ints("za", DataType::Uint8, &[], &[1]),
            floats("bias", &[2], &[0.25, -0.25]),
        ],
    );
    let a = Literal::from_i64(DType::U8, &[1, 2], &[3, 0]);
    // (A − 1) = [2, −1]; · B = [0, −5]; · [0.5, 1.0] + bias.
    assert_eq!(run(&m, &[a]), (DType::F32, vec![0.25, -5.25]));
    let unknown = model(
        "QAttention",
        "com.microsoft",
        17,
        vec![],
        &["a"],
        vec![input("a", DataType::Uint8, &[1])],
        vec![],
    );
    assert_mentions(
        &error(&unknown),
        &["com.microsoft.QAttention is not supported", "QLinearAdd"],
    );
    let gemm = model(
        "QGemm",
        "com.microsoft",
        17,
        vec![float_attr("alpha", 2.0), int_attr("transB", 1)],
        &["a", "sa", "za", "b", "sb", "zb", "c", "sy", "zy"],
        vec![input("a", DataType::Uint8, &[1, 2])],
        vec![
            floats("sa", &[], &[0.5]),
            ints("za", DataType::Uint8, &[], &[0]),
            ints("b", DataType::Int8, &[1, 2], &[1, 1]),
            floats("sb", &[], &[1.0]),
            ints("zb", DataType::Int8, &[], &[0]),
            ints("c", DataType::Int32, &[1], &[1]),
            floats("sy", &[], &[4.0]),
            ints("zy", DataType::Int8, &[], &[-1]),
        ],
    );
    let a = Literal::from_i64(DType::U8, &[1, 2], &[2, 3]);
    // (5 + 1) · 0.5 · 2 / 4 = 1.5 → 2, − 1.
    assert_eq!(run(&gemm, &[a]), (DType::I8, vec![1.0]));
}

#[test]
fn bad_quantization_parameters_are_named() {
    let q = |opset: i64, attrs: Vec<AttributeProto>, inits: Vec<TensorProto>| {
        let names: Vec<&str> = ["x", "s", "z"][..1 + inits.len()].to_vec();
        let names: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        error(&model(
            "QuantizeLinear",
            "",
            opset,
            attrs,
            &refs,
            vec![input("x", DataType::Float, &[2, 4])],
            inits,
        ))
    };
    let s4 = || floats("s", &[4], &[1.0; 4]);
    assert_mentions(
        &q(21, vec![int_attr("axis", 2)], vec![s4()]),
        &["(QuantizeLinear, opset 21)", "axis 2 is out of range"],
    );
    assert_mentions(
        &q(21, vec![], vec![floats("s", &[3], &[1.0; 3])]),
        &["per-axis scale", "axis 1"],
    );
    assert_mentions(
        &q(10, vec![], vec![floats("s", &[2], &[1.0; 2])]),
        &["per tensor only"],
    );
    assert_mentions(
        &q(
            21,
            vec![],
            vec![
                floats("s", &[], &[1.0]),
                ints("z", DataType::Uint8, &[2], &[0, 0]),
            ],
        ),
        &["zero point has shape 2", "scale has shape a scalar"],
    );
    assert_mentions(
        &q(
            21,
            vec![int_attr("block_size", 3)],
            vec![floats("s", &[2, 1], &[1.0; 2])],
        ),
        &["blocked scale", "⌈4/3⌉"],
    );
    assert_mentions(
        &q(21, vec![int_attr("block_size", -2)], vec![s4()]),
        &["block_size = -2"],
    );
    assert_mentions(
        &q(
            21,
            vec![int_attr("output_dtype", DataType::Float8e4m3fn as i64)],
            vec![floats("s", &[], &[1.0])],
        ),
        &["output_dtype FLOAT8E4M3FN is not supported"],
    );
    assert_mentions(
        &q(
            21,
            vec![int_attr("output_dtype", DataType::Int4 as i64)],
            vec![floats("s", &[], &[1.0])],
        ),
        &["INT4"],
    );
    assert_mentions(
        &q(
            21,
            vec![int_attr("output_dtype", DataType::Int8 as i64)],
            vec![
                floats("s", &[], &[1.0]),
                ints("z", DataType::Uint8, &[], &[0]),
            ],
        ),
        &["output_dtype is i8 but the zero point is ui8"],
    );
    assert_mentions(
        &q(
            21,
            vec![],
            vec![floats("s", &[], &[1.0]), floats("z", &[], &[0.0])],
        ),
        &["not a quantized type"],
    );
    // DequantizeLinear: the zero point has x's type; x is an integer tensor.
    let dq = |x: DataType, inits: Vec<TensorProto>| {
        error(&model(
            "DequantizeLinear",
            "",
            21,
            vec![],
            &["x", "s", "z"],
            vec![input("x", x, &[2])],
            inits,
        ))
    };
    assert_mentions(
        &dq(
            DataType::Uint8,
            vec![
                floats("s", &[], &[1.0]),
                ints("z", DataType::Int8, &[], &[0]),
            ],
        ),
        &["zero point (i8) must have the type of the tensor it quantizes (ui8)"],
    );
    assert_mentions(
        &dq(
            DataType::Int64,
            vec![
                floats("s", &[], &[1.0]),
                ints("z", DataType::Int64, &[], &[0]),
            ],
        ),
        &["x must be a quantized integer tensor"],
    );
    // The integer products.
    let mm = error(&matmul_integer(
        &["a", "b", "za"],
        vec![input("a", DataType::Uint8, &[2, 3])],
        vec![
            ints("b", DataType::Uint8, &[3, 2], &[0; 6]),
            ints("za", DataType::Uint8, &[3], &[0; 3]),
        ],
    ));
    assert_mentions(&mm, &["a_zero_point has shape 3", "per-row"]);
    let mm = error(&matmul_integer(
        &["a", "b"],
        vec![input("a", DataType::Int16, &[2, 3])],
        vec![ints("b", DataType::Uint8, &[3, 2], &[0; 6])],
    ));
    assert_mentions(&mm, &["A must be an int8 or uint8 tensor, not i16"]);
    let conv = error(&model(
        "QLinearConv",
        "",
        10,
        vec![],
        &["x", "sx", "zx", "w", "sw", "zw", "sy", "zy"],
        vec![input("x", DataType::Uint8, &[1, 1, 3, 3])],
        vec![
            floats("sx", &[], &[1.0]),
            ints("zx", DataType::Uint8, &[], &[0]),
            ints("w", DataType::Uint8, &[2, 1, 1, 1], &[1, 1]),
            floats("sw", &[3], &[1.0; 3]),
            ints("zw", DataType::Uint8, &[3], &[0; 3]),
            floats("sy", &[], &[1.0]),
            ints("zy", DataType::Uint8, &[], &[0]),
        ],
    ));
    assert_mentions(&conv, &["one value per output channel (2)"]);
}

/// A graph of `nodes` over graph input `x` (uint8 of shape `dims`) and `initializers`,
/// output "y": imported, verified, printed and run in the interpreter on `x`.
fn run_graph(
    nodes: Vec<NodeProto>,
    dims: &[i64],
    initializers: Vec<TensorProto>,
    x: Literal,
) -> (String, Vec<f64>) {
    let m = ModelProto {
        ir_version: 9,
        opset_import: vec![OperatorSetIdProto {
            domain: String::new(),
            version: 21,
        }],
        graph: Some(GraphProto {
            node: nodes,
            name: "g".into(),
            initializer: initializers,
            input: vec![input("x", DataType::Uint8, dims)],
            output: vec![ValueInfoProto {
                name: "y".into(),
                ..Default::default()
            }],
            ..Default::default()
        }),
        ..Default::default()
    };
    let mut ctx = context();
    let imported = import_model(&mut ctx, &m, None, &ImportOptions::default())
        .unwrap_or_else(|e| panic!("the model does not import: {e}"));
    let text = dlc_ir::print_op(&ctx, imported.module, Default::default());
    let out = interpret(&ctx, imported.func, &[x])
        .unwrap_or_else(|d| panic!("the interpreter fails: {}", d.message));
    (text, out[0].to_f64_vec())
}

fn node(op: &str, inputs: &[&str], output: &str, attrs: Vec<AttributeProto>) -> NodeProto {
    NodeProto {
        input: inputs.iter().map(|s| s.to_string()).collect(),
        output: vec![output.into()],
        name: output.into(),
        op_type: op.into(),
        attribute: attrs,
        ..Default::default()
    }
}

#[test]
fn qdq_conv_and_matmul_run_on_the_bytes() {
    // Conv(DQ(x), DQ(w per output channel)), a 1x1 kernel padded by 1: the padding is the
    // dequantized 0, so the border is 0; inside, (x − 10) · 0.5 · w[o] · w_scale[o].
    let nodes = vec![
        node("DequantizeLinear", &["x", "sx", "zx"], "xd", vec![]),
        node(
            "DequantizeLinear",
            &["w", "sw"],
            "wd",
            vec![int_attr("axis", 0)],
        ),
        node(
            "Conv",
            &["xd", "wd"],
            "y",
            vec![ints_attr("pads", &[1, 1, 1, 1])],
        ),
    ];
    let inits = vec![
        floats("sx", &[], &[0.5]),
        ints("zx", DataType::Uint8, &[], &[10]),
        ints("w", DataType::Int8, &[2, 1, 1, 1], &[2, -3]),
        floats("sw", &[2], &[1.0, 0.25]),
    ];
    let x = Literal::from_i64(DType::U8, &[1, 1, 2, 2], &[10, 12, 14, 255]);
    let (text, y) = run_graph(nodes, &[1, 1, 2, 2], inits, x);
    assert!(
        text.contains("graph.conv2d")
            && text.contains("xui8>, tensor<2x1x1x1xi8> -> tensor<1x2x4x4xi32>"),
        "the convolution should run on the bytes:\n{text}"
    );
    let inner = |c: &[f64; 4]| {
        let mut plane = vec![0.0; 16];
        for (i, v) in c.iter().enumerate() {
            plane[5 + (i / 2) * 4 + i % 2] = *v;
        }
        plane
    };
    let mut expected = inner(&[0.0, 2.0, 4.0, 245.0]);
    expected.extend(inner(&[0.0, -0.75, -1.5, -91.875]));
    assert_eq!(y, expected);

    // MatMul(DQ(A), DQ(B per column)): (A − 1) · 0.5 times B · [1, 2].
    let nodes = vec![
        node("DequantizeLinear", &["x", "sa", "za"], "ad", vec![]),
        node(
            "DequantizeLinear",
            &["b", "sb"],
            "bd",
            vec![int_attr("axis", 1)],
        ),
        node("MatMul", &["ad", "bd"], "y", vec![]),
    ];
    let inits = vec![
        floats("sa", &[], &[0.5]),
        ints("za", DataType::Uint8, &[], &[1]),
        ints("b", DataType::Int8, &[2, 2], &[1, -1, 2, 3]),
        floats("sb", &[2], &[1.0, 2.0]),
    ];
    let a = Literal::from_i64(DType::U8, &[1, 2], &[3, 0]);
    let (text, y) = run_graph(nodes, &[1, 2], inits, a);
    assert!(
        text.contains("tensor<1x2xui8>, tensor<2x2xi8> -> tensor<1x2xi32>"),
        "the product should run on the bytes:\n{text}"
    );
    // A − 1 = [2, −1], · 0.5 = [1, −0.5]; B dequantized = [[1, −2], [2, 6]].
    assert_eq!(y, [0.0, -5.0]);

    // Gemm(DQ(A), DQ(B per output row, transB = 1), C) with alpha and beta: B is [N, K], its
    // scale runs along N (axis 0), which is the product's columns.
    let nodes = vec![
        node("DequantizeLinear", &["x", "sa", "za"], "ad", vec![]),
        node(
            "DequantizeLinear",
            &["b", "sb"],
            "bd",
            vec![int_attr("axis", 0)],
        ),
        node(
            "Gemm",
            &["ad", "bd", "c"],
            "y",
            vec![
                int_attr("transB", 1),
                float_attr("alpha", 2.0),
                float_attr("beta", 0.5),
            ],
        ),
    ];
    let inits = vec![
        floats("sa", &[], &[0.5]),
        ints("za", DataType::Uint8, &[], &[1]),
        ints("b", DataType::Int8, &[2, 2], &[1, 2, -1, 3]),
        floats("sb", &[2], &[1.0, 2.0]),
        floats("c", &[2], &[4.0, -4.0]),
    ];
    let a = Literal::from_i64(DType::U8, &[1, 2], &[3, 0]);
    let (text, y) = run_graph(nodes, &[1, 2], inits, a);
    assert!(
        text.contains("tensor<1x2xui8>, tensor<2x2xi8> -> tensor<1x2xi32>"),
        "the product should run on the bytes:\n{text}"
    );
    // A = [1, −0.5]; Bᵀ dequantized = [[1, −2], [2, 6]] (rows of B scaled by [1, 2]);
    // 2 · [0, −5] + 0.5 · [4, −4].
    assert_eq!(y, [2.0, -12.0]);
}
