//! What the ONNX importer does with models it cannot import: each one must end in an
//! [`ImportError`] that says what is wrong and where (the node, the op type, the tensor, the
//! byte offset), never in a panic, an abort or an allocation the size of a bogus dim.
//!
//! The models are built here from the prost messages, so each test shows the exact defect it
//! feeds the importer: truncated and random bytes, absurd dims, a cycle, missing or escaping
//! external data, unsupported ops, attributes and dtypes, a shape input that must be a
//! constant, mismatched shapes. One positive test (a small classifier) checks that a good model
//! imports, verifies and runs in the graph interpreter; another that initializers transposed
//! and reshaped fold into constants with the right values. Inputs the fuzzer (tools/fuzz,
//! `onnx_import`) found are kept at the end as byte strings.

use dlc_graph::interp::interpret;
use dlc_ir::Context;
use dlc_onnx::proto::{
    tensor_shape_proto::{dimension, Dimension},
    type_proto, AttributeProto, AttributeType, DataLocation, DataType, GraphProto, ModelProto,
    NodeProto, OperatorSetIdProto, StringStringEntryProto, TensorProto, TensorShapeProto,
    TypeProto, ValueInfoProto,
};
use dlc_onnx::{decode_model, import_file, import_model, ImportError, ImportOptions, Imported};
use dlc_tensor::{DType, Literal};
use dlc_testkit::Rng;
use prost::Message;
use std::path::PathBuf;
use std::process::Command;

// ---------------------------------------------------------------------------------------------
// Building models

fn context() -> Context {
    let mut ctx = Context::new();
    dlc_dialects::register_all_dialects(&mut ctx);
    ctx
}

/// An opset-17 model of one graph.
fn model(
    nodes: Vec<NodeProto>,
    inputs: Vec<ValueInfoProto>,
    outputs: &[&str],
    initializers: Vec<TensorProto>,
) -> ModelProto {
    ModelProto {
        ir_version: 8,
        opset_import: vec![OperatorSetIdProto {
            domain: String::new(),
            version: 17,
        }],
        producer_name: "robustness.rs".into(),
        graph: Some(GraphProto {
            node: nodes,
            name: "g".into(),
            initializer: initializers,
            input: inputs,
            output: outputs.iter().map(|n| value_info(n, None)).collect(),
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn node(op_type: &str, name: &str, inputs: &[&str], outputs: &[&str]) -> NodeProto {
    NodeProto {
        input: inputs.iter().map(|s| s.to_string()).collect(),
        output: outputs.iter().map(|s| s.to_string()).collect(),
        name: name.into(),
        op_type: op_type.into(),
        ..Default::default()
    }
}

fn with_attrs(mut n: NodeProto, attrs: Vec<AttributeProto>) -> NodeProto {
    n.attribute = attrs;
    n
}

fn int_attr(name: &str, i: i64) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        r#type: AttributeType::Int as i32,
        i,
        ..Default::default()
    }
}

fn ints_attr(name: &str, ints: &[i64]) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        r#type: AttributeType::Ints as i32,
        ints: ints.to_vec(),
        ..Default::default()
    }
}

/// A graph input or output `name`, of element type and static shape `ty` when given (untyped
/// otherwise); the `quantization` and `recurrent` tests build theirs with it too.
pub(crate) fn value_info(name: &str, ty: Option<(DataType, &[i64])>) -> ValueInfoProto {
    ValueInfoProto {
        name: name.into(),
        r#type: ty.map(|(elem, dims)| TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: elem as i32,
                shape: Some(TensorShapeProto {
                    dim: dims
                        .iter()
                        .map(|d| Dimension {
                            value: Some(dimension::Value::DimValue(*d)),
                            ..Default::default()
                        })
                        .collect(),
                }),
            })),
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn input(name: &str, elem: DataType, dims: &[i64]) -> ValueInfoProto {
    value_info(name, Some((elem, dims)))
}

fn f32_tensor(name: &str, dims: &[i64], values: &[f32]) -> TensorProto {
    TensorProto {
        name: name.into(),
        dims: dims.to_vec(),
        data_type: DataType::Float as i32,
        float_data: values.to_vec(),
        ..Default::default()
    }
}

fn i64_tensor(name: &str, dims: &[i64], values: &[i64]) -> TensorProto {
    TensorProto {
        name: name.into(),
        dims: dims.to_vec(),
        data_type: DataType::Int64 as i32,
        int64_data: values.to_vec(),
        ..Default::default()
    }
}

/// Decodes and imports `bytes`, verifying the module when the import succeeds.
fn import_bytes(bytes: &[u8]) -> Result<(), ImportError> {
    let model = decode_model(bytes.to_vec())?;
    import_checked(&model, &ImportOptions::default()).map(|_| ())
}

/// Imports `model` into a fresh context; a module that does not verify fails the test.
fn import_checked(
    model: &ModelProto,
    options: &ImportOptions,
) -> Result<(Context, Imported), ImportError> {
    let mut ctx = context();
    let imported = import_model(&mut ctx, model, None, options)?;
    if let Err(d) = dlc_ir::verify(&ctx, imported.module) {
        panic!("the imported module does not verify: {}", d.message);
    }
    Ok((ctx, imported))
}

/// The error `model` must be rejected with, as displayed.
fn import_error(model: &ModelProto) -> String {
    match import_checked(model, &ImportOptions::default()) {
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

/// The environment variable that marks a child process of [`isolated`].
const CHILD_VAR: &str = "DLC_ONNX_ROBUSTNESS_CHILD";

/// The address space a child of [`isolated`] may use, in KiB (4 GiB): an import that tries to
/// materialize a bogus size aborts at once instead of exhausting the machine's memory.
const CHILD_MEMORY_KIB: u64 = 4 << 20;

/// Runs `case` in a child process (this test binary, filtered to test `name`, under
/// `ulimit -v`), so an abort — an allocation failure, which no unwinding catches — fails this
/// one test with the child's output instead of killing the whole run or the machine.
fn isolated(name: &str, case: impl FnOnce()) {
    if std::env::var_os(CHILD_VAR).is_some() {
        case();
        return;
    }
    let exe = std::env::current_exe().expect("the test binary's path");
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v {CHILD_MEMORY_KIB} && exec \"$0\" \"$@\""
        ))
        .arg(exe)
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_VAR, "1")
        .output()
        .expect("the test binary runs");
    assert!(
        out.status.success(),
        "{name} failed in its child process ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A fresh directory under the system's temporary directory.
/// A fresh temporary directory for `test`, removed when the guard drops.
fn temp_dir(test: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("dlc-onnx-{test}-"))
        .tempdir()
        .expect("a temporary directory")
}

// ---------------------------------------------------------------------------------------------
// A good model

/// Conv(3→4, 3×3, pad 1) → Relu → GlobalAveragePool → Reshape [1, 4] → Gemm (4→5) → Softmax,
/// on a 1×3×8×8 input.
fn classifier() -> ModelProto {
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
    let mut values = |n: usize| -> Vec<f32> {
        (0..n)
            .map(|_| (rng.below(2001) as f32 - 1000.0) / 2000.0)
            .collect()
    };
    let initializers = vec![
        f32_tensor("conv_w", &[4, 3, 3, 3], &values(108)),
        f32_tensor("conv_b", &[4], &values(4)),
        i64_tensor("flat_shape", &[2], &[1, 4]),
        f32_tensor("fc_w", &[5, 4], &values(20)),
        f32_tensor("fc_b", &[5], &values(5)),
    ];
    let nodes = vec![
        with_attrs(
            node("Conv", "conv", &["x", "conv_w", "conv_b"], &["c"]),
            vec![
                ints_attr("kernel_shape", &[3, 3]),
                ints_attr("pads", &[1, 1, 1, 1]),
            ],
        ),
        node("Relu", "relu", &["c"], &["r"]),
        node("GlobalAveragePool", "gap", &["r"], &["p"]),
        node("Reshape", "flatten", &["p", "flat_shape"], &["f"]),
        with_attrs(
            node("Gemm", "fc", &["f", "fc_w", "fc_b"], &["logits"]),
            vec![int_attr("transB", 1)],
        ),
        with_attrs(
            node("Softmax", "softmax", &["logits"], &["probs"]),
            vec![int_attr("axis", 1)],
        ),
    ];
    model(
        nodes,
        vec![input("x", DataType::Float, &[1, 3, 8, 8])],
        &["probs"],
        initializers,
    )
}

#[test]
fn classifier_imports_verifies_and_runs() {
    let (ctx, imported) = import_checked(&classifier(), &ImportOptions::default())
        .unwrap_or_else(|e| panic!("the classifier does not import: {e}"));
    assert_eq!(imported.inputs, ["x"]);
    assert_eq!(imported.outputs, ["probs"]);
    assert_eq!(imported.opset, 17);
    let x: Vec<f64> = (0..192)
        .map(|i| ((i * 37) % 23) as f64 / 23.0 - 0.5)
        .collect();
    let x = Literal::from_f64(DType::F32, &[1, 3, 8, 8], &x);
    let out = interpret(&ctx, imported.func, &[x])
        .unwrap_or_else(|d| panic!("the interpreter fails: {}", d.message));
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].shape(), [1, 5]);
    let probs = out[0].to_f64_vec();
    assert!(probs.iter().all(|p| *p > 0.0 && *p < 1.0), "{probs:?}");
    let sum: f64 = probs.iter().sum();
    assert!((sum - 1.0).abs() < 1e-5, "probabilities sum to {sum}");
}

// ---------------------------------------------------------------------------------------------
// Bytes that are not a model

/// Every prefix of a valid model decodes to an error or a smaller model, which imports or is
/// rejected; none may panic.
#[test]
fn every_prefix_of_a_model_is_handled() {
    let bytes = classifier().encode_to_vec();
    let panics: Vec<String> = (0..bytes.len())
        .filter_map(|n| {
            dlc_testkit::guarded(|| import_bytes(&bytes[..n]).map_err(|e| e.to_string()))
                .err()
                .filter(|e| e.starts_with("panicked"))
                .map(|e| format!("prefix of {n} bytes: {e}"))
        })
        .collect();
    assert!(panics.is_empty(), "{}", panics.join("\n"));
}

#[test]
fn truncated_model_names_the_byte_offset() {
    let bytes = classifier().encode_to_vec();
    // The graph is the last top-level field; cutting the file inside it breaks its framing.
    let cut = &bytes[..bytes.len() - 10];
    let message = import_bytes(cut)
        .expect_err("a truncated graph")
        .to_string();
    assert_mentions(&message, &["not a valid ONNX model", "byte offset"]);
    // A varint cut after its continuation byte.
    let message = import_bytes(&[0x08, 0x80])
        .expect_err("a truncated varint")
        .to_string();
    assert_mentions(&message, &["not a valid ONNX model", "byte offset 0"]);
}

#[test]
fn random_bytes_are_rejected_without_panicking() {
    let mut rng = Rng::new(0x2545_f491_4f6c_dd1d);
    let mut panics = Vec::new();
    for i in 0..4000 {
        let len = rng.below(300);
        let bytes: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        if let Err(e) = dlc_testkit::guarded(|| import_bytes(&bytes).map_err(|e| e.to_string())) {
            if e.starts_with("panicked") {
                panics.push(format!("case {i}, bytes {bytes:02x?}: {e}"));
            }
        }
    }
    assert!(panics.is_empty(), "{}", panics.join("\n"));
}

/// Bytes flipped in a valid model reach the importer much more often than random bytes.
#[test]
fn corrupted_models_are_rejected_without_panicking() {
    let good = classifier().encode_to_vec();
    let mut rng = Rng::new(0xd1b5_4a32_d192_ed03);
    let mut panics = Vec::new();
    for i in 0..3000 {
        let mut bytes = good.clone();
        for _ in 0..=rng.below(4) {
            let at = rng.below(bytes.len());
            bytes[at] = rng.next_u64() as u8;
        }
        if let Err(e) = dlc_testkit::guarded(|| import_bytes(&bytes).map_err(|e| e.to_string())) {
            if e.starts_with("panicked") {
                panics.push(format!("case {i}: {e}"));
            }
        }
    }
    assert!(panics.is_empty(), "{}", panics.join("\n"));
}

#[test]
fn all_ones_bytes_are_not_a_model() {
    for len in [1, 2, 10, 100, 1000] {
        let message = import_bytes(&vec![0xff; len])
            .expect_err("0xff bytes")
            .to_string();
        assert_mentions(&message, &["not a valid ONNX model"]);
    }
}

#[test]
fn empty_bytes_are_a_model_without_a_graph() {
    let message = import_bytes(&[]).expect_err("no graph").to_string();
    assert_mentions(&message, &["no graph"]);
}

// ---------------------------------------------------------------------------------------------
// Absurd sizes

/// Graph inputs with dims of 2^40 and 2^62: the import must not allocate anything of that size
/// (it either keeps the dims in the type or rejects them).
#[test]
fn huge_input_dims_do_not_allocate() {
    for dims in [
        vec![1i64 << 40],
        vec![1 << 62],
        vec![1 << 62, 1 << 62],
        vec![i64::MAX],
    ] {
        let m = model(
            vec![node("Relu", "relu", &["x"], &["y"])],
            vec![input("x", DataType::Float, &dims)],
            &["y"],
            vec![],
        );
        if let Err(e) = import_checked(&m, &ImportOptions::default()) {
            assert_mentions(&e.to_string(), &["x"]);
        }
    }
}

#[test]
fn initializer_claiming_huge_dims_is_rejected() {
    let mut t = f32_tensor("w", &[1 << 40], &[]);
    t.raw_data = vec![0; 16].into();
    let m = model(
        vec![node("Relu", "relu", &["w"], &["y"])],
        vec![],
        &["y"],
        vec![t],
    );
    assert_mentions(&import_error(&m), &["initializer 'w'", "16 bytes"]);

    let t = f32_tensor("w", &[1 << 62, 1 << 62], &[1.0]);
    let m = model(
        vec![node("Relu", "relu", &["w"], &["y"])],
        vec![],
        &["y"],
        vec![t],
    );
    assert_mentions(&import_error(&m), &["initializer 'w'", "too large"]);

    let t = f32_tensor("w", &[4, -1], &[1.0]);
    let m = model(
        vec![node("Relu", "relu", &["w"], &["y"])],
        vec![],
        &["y"],
        vec![t],
    );
    assert_mentions(&import_error(&m), &["initializer 'w'", "negative"]);
}

/// `ConstantOfShape` of a constant shape of 2^40 elements (or more) is an error at the node,
/// not a 16 TiB allocation.
#[test]
fn constant_of_shape_with_huge_shape_is_rejected() {
    isolated("constant_of_shape_with_huge_shape_is_rejected", || {
        let fill = |shape: &[i64]| {
            model(
                vec![node("ConstantOfShape", "fill", &["shape"], &["y"])],
                vec![],
                &["y"],
                vec![i64_tensor("shape", &[shape.len() as i64], shape)],
            )
        };
        // Past 2^48 elements: an error at the node.
        for shape in [vec![1i64 << 50], vec![1 << 31, 1 << 31, 4]] {
            assert_mentions(
                &import_error(&fill(&shape)),
                &["node 'fill' (ConstantOfShape, opset 17)", "2^48"],
            );
        }
        // Below it, a splat constant: imported without materializing its 2^40 elements (the
        // child process could not allocate them).
        for shape in [vec![1i64 << 40], vec![1 << 20, 1 << 20]] {
            assert!(import_checked(&fill(&shape), &ImportOptions::default()).is_ok());
        }
    });
}

/// `Tile` with a huge repeat count is an error at the node, not a copy per repeat.
#[test]
fn tile_with_huge_repeats_is_rejected() {
    isolated("tile_with_huge_repeats_is_rejected", || {
        let tile = |repeats: i64| {
            model(
                vec![node("Tile", "tile", &["x", "repeats"], &["y"])],
                vec![input("x", DataType::Float, &[2])],
                &["y"],
                vec![i64_tensor("repeats", &[1], &[repeats])],
            )
        };
        assert_mentions(
            &import_error(&tile(1 << 50)),
            &["node 'tile' (Tile, opset 17)"],
        );
        assert_mentions(
            &import_error(&tile(1 << 62)),
            &["node 'tile' (Tile, opset 17)"],
        );
        // A large but representable repeat is a broadcast, not a copy per repeat.
        assert!(import_checked(&tile(1 << 40), &ImportOptions::default()).is_ok());
    });
}

/// `Pad` by 2^62 on each side overflows the padded dim: an error at the node.
#[test]
fn pad_with_huge_pads_is_rejected() {
    isolated("pad_with_huge_pads_is_rejected", || {
        let m = model(
            vec![node("Pad", "pad", &["x", "pads"], &["y"])],
            vec![input("x", DataType::Float, &[2])],
            &["y"],
            vec![i64_tensor("pads", &[2], &[1 << 62, 1 << 62])],
        );
        assert_mentions(&import_error(&m), &["node 'pad' (Pad, opset 17)"]);
    });
}

/// `Range` of 10^8 elements is under the handler's limit but far over what an import should
/// materialize as a constant.
#[test]
fn range_with_huge_count_is_rejected() {
    isolated("range_with_huge_count_is_rejected", || {
        let scalar = |name: &str, v: i64| i64_tensor(name, &[], &[v]);
        let m = model(
            vec![node("Range", "range", &["start", "limit", "delta"], &["y"])],
            vec![],
            &["y"],
            vec![
                scalar("start", 0),
                scalar("limit", 1 << 40),
                scalar("delta", 1),
            ],
        );
        assert_mentions(&import_error(&m), &["node 'range' (Range, opset 17)"]);
    });
}

/// `Range` over the whole i64 range in steps of 2^62 has 4 elements, counted exactly (no
/// overflow, no f64 rounding), and a count of 3 just above 2^60 is not rounded away.
#[test]
fn range_with_extreme_integer_bounds_is_exact() {
    let run = |start: i64, limit: i64, delta: i64| {
        let scalar = |name: &str, v: i64| i64_tensor(name, &[], &[v]);
        let m = model(
            vec![node("Range", "range", &["start", "limit", "delta"], &["y"])],
            vec![],
            &["y"],
            vec![
                scalar("start", start),
                scalar("limit", limit),
                scalar("delta", delta),
            ],
        );
        let (ctx, imported) = import_checked(&m, &ImportOptions::default())
            .unwrap_or_else(|e| panic!("Range does not import: {e}"));
        let out = interpret(&ctx, imported.func, &[])
            .unwrap_or_else(|d| panic!("the interpreter fails: {}", d.message));
        out[0].to_i64_vec()
    };
    assert_eq!(
        run(i64::MIN, i64::MAX, 1 << 62),
        [i64::MIN, i64::MIN + (1 << 62), 0, 1 << 62]
    );
    assert_eq!(
        run(1 << 60, (1 << 60) + 3, 1),
        [1 << 60, (1 << 60) + 1, (1 << 60) + 2]
    );
    assert_eq!(run(5, 5, -1), Vec::<i64>::new());
}

/// CumSum keeps an infinity where it is (a scan, not a matmul with a 0/1 triangle, where
/// `0 · inf` made every later output NaN), in both directions.
#[test]
fn cumsum_keeps_infinities_in_place() {
    for (reverse, expected) in [
        (0, [1.0, f64::INFINITY, f64::INFINITY]),
        (1, [f64::INFINITY, f64::INFINITY, 1.0]),
    ] {
        let m = model(
            vec![with_attrs(
                node("CumSum", "scan", &["x", "axis"], &["y"]),
                vec![int_attr("reverse", reverse)],
            )],
            vec![input("x", DataType::Float, &[3])],
            &["y"],
            vec![i64_tensor("axis", &[], &[0])],
        );
        let (ctx, imported) = import_checked(&m, &ImportOptions::default())
            .unwrap_or_else(|e| panic!("CumSum does not import: {e}"));
        let x = Literal::from_f64(DType::F32, &[3], &[1.0, f64::INFINITY, 1.0]);
        let out = interpret(&ctx, imported.func, &[x])
            .unwrap_or_else(|d| panic!("the interpreter fails: {}", d.message));
        assert_eq!(out[0].to_f64_vec(), expected, "reverse = {reverse}");
    }
}

/// A Dropout mask over a huge input is a splat, not a materialized tensor.
#[test]
fn dropout_mask_of_a_huge_input_is_not_materialized() {
    isolated("dropout_mask_of_a_huge_input_is_not_materialized", || {
        let m = model(
            vec![node("Dropout", "drop", &["x"], &["y", "mask"])],
            vec![input("x", DataType::Float, &[1 << 24, 1 << 24])],
            &["y", "mask"],
            vec![],
        );
        assert!(import_checked(&m, &ImportOptions::default()).is_ok());
    });
}

// ---------------------------------------------------------------------------------------------
// Broken graphs

#[test]
fn cyclic_graph_is_rejected() {
    let m = model(
        vec![
            node("Relu", "A", &["b_out"], &["a_out"]),
            node("Relu", "B", &["a_out"], &["b_out"]),
        ],
        vec![],
        &["b_out"],
        vec![],
    );
    assert_mentions(
        &import_error(&m),
        &["node 'A' (Relu, opset 17)", "b_out", "cycle"],
    );
}

#[test]
fn undefined_input_is_rejected() {
    let m = model(
        vec![node("Relu", "relu", &["nowhere"], &["y"])],
        vec![input("x", DataType::Float, &[2])],
        &["y"],
        vec![],
    );
    assert_mentions(&import_error(&m), &["node 'relu'", "'nowhere'"]);
}

#[test]
fn output_produced_by_no_node_is_rejected() {
    let m = model(
        vec![node("Relu", "relu", &["x"], &["y"])],
        vec![input("x", DataType::Float, &[2])],
        &["z"],
        vec![],
    );
    assert_mentions(&import_error(&m), &["graph output 'z'"]);
}

// ---------------------------------------------------------------------------------------------
// External data

/// A model whose initializer `w` (4 floats) lives in an external file at `location`, written to
/// a fresh directory; returns the directory (removed when dropped) and the model's path.
fn external_model(test: &str, entries: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
    let dir = temp_dir(test);
    let w = TensorProto {
        name: "w".into(),
        dims: vec![4],
        data_type: DataType::Float as i32,
        data_location: DataLocation::External as i32,
        external_data: entries
            .iter()
            .map(|(k, v)| StringStringEntryProto {
                key: k.to_string(),
                value: v.to_string(),
            })
            .collect(),
        ..Default::default()
    };
    let m = model(
        vec![node("Add", "add", &["x", "w"], &["y"])],
        vec![input("x", DataType::Float, &[4])],
        &["y"],
        vec![w],
    );
    let path = dir.path().join("model.onnx");
    std::fs::write(&path, m.encode_to_vec()).expect("the model is written");
    (dir, path)
}

fn import_path_error(path: &std::path::Path) -> String {
    let mut ctx = context();
    match import_file(&mut ctx, path, &ImportOptions::default()) {
        Ok(_) => panic!("expected an import error for {}", path.display()),
        Err(e) => e.to_string(),
    }
}

#[test]
fn missing_external_file_is_named() {
    let (_dir, path) = external_model("missing", &[("location", "weights.bin")]);
    assert_mentions(
        &import_path_error(&path),
        &["initializer 'w'", "weights.bin"],
    );
}

#[test]
fn external_location_outside_the_model_directory_is_rejected() {
    for location in ["../weights.bin", "sub/../../weights.bin", "/etc/passwd"] {
        let (_dir, path) = external_model("escape", &[("location", location)]);
        assert_mentions(
            &import_path_error(&path),
            &["initializer 'w'", location, "inside the model's directory"],
        );
    }
}

#[test]
fn external_range_outside_the_file_is_rejected() {
    let cases: [&[(&str, &str)]; 4] = [
        &[
            ("location", "weights.bin"),
            ("offset", "8"),
            ("length", "16"),
        ],
        &[("location", "weights.bin"), ("offset", "100")],
        &[
            ("location", "weights.bin"),
            ("offset", "18446744073709551615"),
            ("length", "16"),
        ],
        &[
            ("location", "weights.bin"),
            ("offset", "4"),
            ("length", "18446744073709551615"),
        ],
    ];
    for entries in cases {
        let (_dir, path) = external_model("range", entries);
        let dir = path.parent().expect("the model's directory");
        std::fs::write(dir.join("weights.bin"), [0u8; 16]).expect("the weights are written");
        assert_mentions(
            &import_path_error(&path),
            &["initializer 'w'", "outside", "weights.bin"],
        );
    }
    let (_dir, path) = external_model("range", &[("location", "weights.bin"), ("offset", "-1")]);
    assert_mentions(
        &import_path_error(&path),
        &["initializer 'w'", "bad offset"],
    );
}

#[test]
fn external_data_in_range_imports() {
    let (_dir, path) = external_model(
        "ok",
        &[
            ("location", "weights.bin"),
            ("offset", "4"),
            ("length", "16"),
        ],
    );
    let dir = path.parent().expect("the model's directory");
    let mut bytes = vec![0u8; 4];
    for v in [1.0f32, 2.0, 3.0, 4.0] {
        bytes.extend(v.to_le_bytes());
    }
    std::fs::write(dir.join("weights.bin"), bytes).expect("the weights are written");
    let mut ctx = context();
    let imported = import_file(&mut ctx, &path, &ImportOptions::default())
        .unwrap_or_else(|e| panic!("the model does not import: {e}"));
    dlc_ir::verify(&ctx, imported.module).expect("the module verifies");
    let x = Literal::from_f64(DType::F32, &[4], &[10.0, 20.0, 30.0, 40.0]);
    let out = interpret(&ctx, imported.func, &[x]).expect("the interpreter runs");
    assert_eq!(out[0].to_f64_vec(), [11.0, 22.0, 33.0, 44.0]);
}

#[test]
fn external_data_without_a_directory_is_rejected() {
    let (_dir, path) = external_model("nodir", &[("location", "weights.bin")]);
    let bytes = std::fs::read(&path).expect("the model is read");
    let m = decode_model(bytes).expect("the model decodes");
    assert_mentions(
        &import_error(&m),
        &["initializer 'w'", "not read from a file"],
    );
}

// ---------------------------------------------------------------------------------------------
// What dlc does not import

#[test]
fn unsupported_op_names_node_op_and_opset() {
    let m = model(
        vec![with_attrs(
            node("MaxUnpool", "unpool", &["x", "i"], &["y"]),
            vec![ints_attr("kernel_shape", &[2])],
        )],
        vec![
            input("x", DataType::Float, &[1, 1, 2]),
            input("i", DataType::Int64, &[1, 1, 2]),
        ],
        &["y"],
        vec![],
    );
    assert_mentions(
        &import_error(&m),
        &["node 'unpool' (MaxUnpool, opset 17): ", "not supported"],
    );
}

#[test]
fn unsupported_domain_is_named() {
    let mut n = node("Relu", "relu", &["x"], &["y"]);
    n.domain = "com.microsoft".into();
    let m = model(
        vec![n],
        vec![input("x", DataType::Float, &[2])],
        &["y"],
        vec![],
    );
    assert_mentions(
        &import_error(&m),
        &["node 'relu' (Relu, opset 17)", "com.microsoft"],
    );
}

#[test]
fn unknown_attribute_is_named() {
    let m = model(
        vec![with_attrs(
            node("Relu", "relu", &["x"], &["y"]),
            vec![int_attr("foo", 3)],
        )],
        vec![input("x", DataType::Float, &[2])],
        &["y"],
        vec![],
    );
    assert_mentions(
        &import_error(&m),
        &[
            "node 'relu' (Relu, opset 17)",
            "attribute 'foo'",
            "not supported",
        ],
    );
}

#[test]
fn unsupported_input_dtype_is_named() {
    for (dtype, name) in [
        (DataType::Float8e4m3fn, "FLOAT8E4M3FN"),
        (DataType::Int4, "INT4"),
        (DataType::String, "STRING"),
    ] {
        let m = model(
            vec![node("Relu", "relu", &["x"], &["y"])],
            vec![input("x", dtype, &[2])],
            &["y"],
            vec![],
        );
        assert_mentions(
            &import_error(&m),
            &["graph input 'x'", name, "not supported"],
        );
    }
}

/// Unsigned and 16-bit integer tensors import from every field ONNX stores them in: uint8,
/// uint16 and int16 in `int32_data`, uint32 and uint64 in `uint64_data`.
#[test]
fn unsigned_typed_fields_import() {
    for (dtype, ty) in [
        (DataType::Uint8, "ui8"),
        (DataType::Uint16, "ui16"),
        (DataType::Int16, "i16"),
        (DataType::Uint32, "ui32"),
        (DataType::Uint64, "ui64"),
    ] {
        let mut t = TensorProto {
            name: "c".into(),
            dims: vec![2],
            data_type: dtype as i32,
            ..Default::default()
        };
        if matches!(dtype, DataType::Uint32 | DataType::Uint64) {
            t.uint64_data = vec![7, 200];
        } else {
            t.int32_data = vec![7, 200];
        }
        let m = model(
            vec![node("Add", "add", &["x", "c"], &["y"])],
            vec![input("x", dtype, &[2])],
            &["y"],
            vec![t],
        );
        let (ctx, imported) =
            import_checked(&m, &ImportOptions::default()).unwrap_or_else(|e| panic!("{ty}: {e}"));
        let text = dlc_ir::print_op(&ctx, imported.module, Default::default());
        assert!(text.contains(&format!("tensor<2x{ty}>")), "{ty}: {text}");
    }
}

#[test]
fn unknown_dtype_number_is_named() {
    let m = model(
        vec![node("Relu", "relu", &["x"], &["y"])],
        vec![],
        &["y"],
        vec![TensorProto {
            name: "x".into(),
            dims: vec![1],
            data_type: 999,
            ..Default::default()
        }],
    );
    assert_mentions(&import_error(&m), &["initializer 'x'", "999"]);
}

#[test]
fn non_tensor_input_is_rejected() {
    let mut x = input("x", DataType::Float, &[2]);
    x.r#type = Some(TypeProto {
        value: Some(type_proto::Value::SequenceType(type_proto::Opaque {})),
        ..Default::default()
    });
    let m = model(
        vec![node("Relu", "relu", &["x"], &["y"])],
        vec![x],
        &["y"],
        vec![],
    );
    assert_mentions(&import_error(&m), &["graph input 'x'", "not a tensor"]);
}

// ---------------------------------------------------------------------------------------------
// Constants the import needs

fn reshape_by_input() -> ModelProto {
    model(
        vec![node("Reshape", "reshape", &["x", "s"], &["y"])],
        vec![
            input("x", DataType::Float, &[2, 3]),
            input("s", DataType::Int64, &[2]),
        ],
        &["y"],
        vec![],
    )
}

#[test]
fn reshape_by_a_graph_input_needs_its_value() {
    let error = import_checked(&reshape_by_input(), &ImportOptions::default())
        .map(|_| ())
        .expect_err("the shape is not known");
    match &error {
        ImportError::NeedsConstant {
            input,
            node,
            op_type,
            opset,
        } => {
            assert_eq!(input, "s");
            assert!(node.contains("reshape"), "{node}");
            assert_eq!(op_type, "Reshape");
            assert_eq!(*opset, 17);
        }
        other => panic!("expected NeedsConstant, got {other:?}"),
    }
    assert_mentions(
        &error.to_string(),
        &["node 'reshape' (Reshape, opset 17)", "'s'"],
    );
}

/// A shape computed from a graph input (as ONNX function bodies compute pads from a `shape`
/// input) asks for that input's value too.
#[test]
fn reshape_by_a_shape_computed_from_a_graph_input_needs_its_value() {
    let m = model(
        vec![
            node("Add", "grow", &["s", "zero"], &["t"]),
            node("Reshape", "reshape", &["x", "t"], &["y"]),
        ],
        vec![
            input("x", DataType::Float, &[2, 3]),
            input("s", DataType::Int64, &[2]),
        ],
        &["y"],
        vec![i64_tensor("zero", &[1], &[0])],
    );
    match import_checked(&m, &ImportOptions::default()).map(|_| ()) {
        Err(ImportError::NeedsConstant { input, .. }) => assert_eq!(input, "s"),
        other => panic!("expected NeedsConstant, got {other:?}"),
    }
    let mut options = ImportOptions::default();
    options
        .constants
        .insert("s".into(), Literal::from_i64(DType::I64, &[2], &[3, 2]));
    assert!(import_checked(&m, &options).is_ok());
}

#[test]
fn reshape_by_a_given_constant_imports() {
    let mut options = ImportOptions::default();
    options
        .constants
        .insert("s".into(), Literal::from_i64(DType::I64, &[2], &[3, 2]));
    let (ctx, imported) = import_checked(&reshape_by_input(), &options)
        .unwrap_or_else(|e| panic!("the reshape does not import: {e}"));
    assert_eq!(imported.inputs, ["x"]);
    assert!(!imported.notes.is_empty());
    let x = Literal::from_f64(DType::F32, &[2, 3], &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
    let out = interpret(&ctx, imported.func, &[x]).expect("the interpreter runs");
    assert_eq!(out[0].shape(), [3, 2]);
}

#[test]
fn given_constant_of_the_wrong_type_is_rejected() {
    let mut options = ImportOptions::default();
    options
        .constants
        .insert("s".into(), Literal::from_i64(DType::I64, &[3], &[3, 2, 1]));
    let error = import_checked(&reshape_by_input(), &options)
        .map(|_| ())
        .expect_err("the value does not fit")
        .to_string();
    assert_mentions(&error, &["graph input 's'", "does not fit"]);
}

// ---------------------------------------------------------------------------------------------
// Shapes that do not fit

/// A `[2, 3]` and a `[4, 5]` operand for the binary operator `op_type` (node `name`): the error
/// names the node.
fn mismatched_operands(op_type: &str, name: &str) {
    let m = model(
        vec![node(op_type, name, &["a", "b"], &["y"])],
        vec![
            input("a", DataType::Float, &[2, 3]),
            input("b", DataType::Float, &[4, 5]),
        ],
        &["y"],
        vec![],
    );
    assert_mentions(
        &import_error(&m),
        &[&format!("node '{name}' ({op_type}, opset 17): ")],
    );
}

#[test]
fn add_of_mismatched_shapes_is_an_error_at_the_node() {
    mismatched_operands("Add", "add");
}

#[test]
fn matmul_of_mismatched_shapes_is_an_error_at_the_node() {
    mismatched_operands("MatMul", "mm");
}

#[test]
fn conv_with_mismatched_channels_is_an_error_at_the_node() {
    let m = model(
        vec![node("Conv", "conv", &["x", "w"], &["y"])],
        vec![input("x", DataType::Float, &[1, 3, 8, 8])],
        &["y"],
        vec![f32_tensor("w", &[4, 2, 3, 3], &[0.5; 72])],
    );
    assert_mentions(&import_error(&m), &["node 'conv' (Conv, opset 17): "]);
}

// ---------------------------------------------------------------------------------------------
// Composed operators: bad attributes and operands are errors naming what is wrong, and the
// compositions compute the spec's values in the cases the node tests do not reach.

fn str_attr(name: &str, s: &str) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        r#type: AttributeType::String as i32,
        s: s.as_bytes().to_vec(),
        ..Default::default()
    }
}

/// One node `op` (named "n") with `attrs`, graph inputs `x…` and initializers; output "y".
fn single(
    op: &str,
    attrs: Vec<AttributeProto>,
    inputs: &[&str],
    graph_inputs: Vec<ValueInfoProto>,
    initializers: Vec<TensorProto>,
) -> ModelProto {
    model(
        vec![with_attrs(node(op, "n", inputs, &["y"]), attrs)],
        graph_inputs,
        &["y"],
        initializers,
    )
}

/// Imports `m` and runs it in the interpreter on `args`.
fn run(m: &ModelProto, args: &[Literal]) -> Vec<Literal> {
    let (ctx, imported) = import_checked(m, &ImportOptions::default())
        .unwrap_or_else(|e| panic!("the model does not import: {e}"));
    interpret(&ctx, imported.func, args)
        .unwrap_or_else(|d| panic!("the interpreter fails: {}", d.message))
}

#[test]
fn composed_ops_reject_bad_attributes_and_operands() {
    let x4 = || vec![input("x", DataType::Float, &[1, 4, 2, 2])];
    let cases: Vec<(ModelProto, &[&str])> = vec![
        (
            single(
                "SpaceToDepth",
                vec![int_attr("blocksize", 0)],
                &["x"],
                x4(),
                vec![],
            ),
            &["(SpaceToDepth, opset 17)", "blocksize 0"],
        ),
        (
            single(
                "SpaceToDepth",
                vec![int_attr("blocksize", 2), str_attr("mode", "RCD")],
                &["x"],
                x4(),
                vec![],
            ),
            &["mode 'RCD'"],
        ),
        (
            single(
                "SpaceToDepth",
                vec![int_attr("blocksize", 3)],
                &["x"],
                x4(),
                vec![],
            ),
            &["not multiples of blocksize 3"],
        ),
        (
            single(
                "DepthToSpace",
                vec![int_attr("blocksize", 3)],
                &["x"],
                x4(),
                vec![],
            ),
            &["not a multiple of blocksize"],
        ),
        (
            single(
                "DepthToSpace",
                vec![int_attr("blocksize", 1 << 62)],
                &["x"],
                x4(),
                vec![],
            ),
            &["(DepthToSpace, opset 17)"],
        ),
        (
            single("EyeLike", vec![], &["x"], x4(), vec![]),
            &["(EyeLike, opset 17)", "rank 2"],
        ),
        (
            single(
                "EyeLike",
                vec![int_attr("dtype", 99)],
                &["x"],
                vec![input("x", DataType::Float, &[2, 2])],
                vec![],
            ),
            &["data type 99"],
        ),
        (
            single(
                "Pad",
                vec![str_attr("mode", "mirror")],
                &["x", "pads"],
                x4(),
                vec![i64_tensor("pads", &[8], &[0; 8])],
            ),
            &["mode 'mirror'"],
        ),
        (
            single(
                "Pad",
                vec![str_attr("mode", "reflect")],
                &["x", "pads"],
                vec![input("x", DataType::Float, &[0, 2])],
                vec![i64_tensor("pads", &[4], &[1, 0, 0, 0])],
            ),
            &["empty axis 0"],
        ),
        (
            single(
                "Pad",
                vec![str_attr("mode", "edge")],
                &["x", "pads"],
                vec![input("x", DataType::Float, &[3])],
                vec![i64_tensor("pads", &[2], &[-2, -2])],
            ),
            &["crop more than axis 0"],
        ),
        (
            single(
                "Pad",
                vec![str_attr("mode", "wrap")],
                &["x", "pads"],
                vec![input("x", DataType::Float, &[3])],
                vec![i64_tensor("pads", &[2], &[1 << 40, 0])],
            ),
            &["constant table of"],
        ),
        (
            single(
                "CenterCropPad",
                vec![ints_attr("axes", &[1, 2])],
                &["x", "shape"],
                x4(),
                vec![i64_tensor("shape", &[1], &[2])],
            ),
            &["1 entries for 2 axes"],
        ),
        (
            single(
                "CenterCropPad",
                vec![ints_attr("axes", &[5])],
                &["x", "shape"],
                x4(),
                vec![i64_tensor("shape", &[1], &[2])],
            ),
            &["axis 5 is out of range"],
        ),
        (
            single(
                "LpPool",
                vec![ints_attr("kernel_shape", &[2, 2]), int_attr("p", 0)],
                &["x"],
                x4(),
                vec![],
            ),
            &["p = 0"],
        ),
        (
            single(
                "MaxPool",
                vec![
                    ints_attr("kernel_shape", &[2, 2]),
                    int_attr("storage_order", 2),
                ],
                &["x"],
                x4(),
                vec![],
            ),
            &["storage_order = 2"],
        ),
        (
            single(
                "MaxPool",
                vec![
                    ints_attr("kernel_shape", &[2, 2]),
                    ints_attr("dilations", &[1 << 62, 1]),
                ],
                &["x"],
                x4(),
                vec![],
            ),
            &[
                "(MaxPool, opset 17)",
                "larger than the padded spatial axis 0",
            ],
        ),
        (
            single(
                "LpPool",
                vec![
                    ints_attr("kernel_shape", &[2, 2]),
                    ints_attr("pads", &[0, 0, i64::MAX, 0]),
                ],
                &["x"],
                x4(),
                vec![],
            ),
            &["(LpPool, opset 17)", "larger than any tensor"],
        ),
        (
            single(
                "Einsum",
                vec![str_attr("equation", "ab,cd->abcd")],
                &["x", "w"],
                vec![
                    input("x", DataType::Float, &[1 << 24, 1 << 24]),
                    input("w", DataType::Float, &[1 << 24, 1 << 24]),
                ],
                vec![],
            ),
            &["too large"],
        ),
        (
            single(
                "AveragePool",
                vec![ints_attr("kernel_shape", &[2, 2, 2])],
                &["x"],
                x4(),
                vec![],
            ),
            &["cover the 2 spatial axes"],
        ),
        (
            single(
                "GatherND",
                vec![int_attr("batch_dims", 2)],
                &["x", "i"],
                x4(),
                vec![i64_tensor("i", &[1, 1], &[0])],
            ),
            &["batch_dims 2"],
        ),
        (
            single(
                "GatherND",
                vec![],
                &["x", "i"],
                x4(),
                vec![i64_tensor("i", &[5], &[0; 5])],
            ),
            &["last dim 5"],
        ),
        (
            single(
                "ScatterElements",
                vec![str_attr("reduction", "mean")],
                &["x", "i", "u"],
                vec![
                    input("x", DataType::Float, &[3]),
                    input("u", DataType::Float, &[1]),
                ],
                vec![i64_tensor("i", &[1], &[0])],
            ),
            &["reduction 'mean'"],
        ),
        (
            single(
                "ScatterElements",
                vec![int_attr("axis", 1)],
                &["x", "i", "u"],
                vec![
                    input("x", DataType::Float, &[3]),
                    input("u", DataType::Float, &[1]),
                ],
                vec![i64_tensor("i", &[1], &[0])],
            ),
            &["axis 1 is out of range"],
        ),
        (
            single(
                "ScatterND",
                vec![],
                &["x", "i", "u"],
                vec![
                    input("x", DataType::Float, &[3, 2]),
                    input("u", DataType::Float, &[1, 3]),
                ],
                vec![i64_tensor("i", &[1, 1], &[0])],
            ),
            &["updates have shape [1, 3], expected [1, 2]"],
        ),
        (
            single(
                "Einsum",
                vec![str_attr("equation", "ij,jk")],
                &["x"],
                vec![input("x", DataType::Float, &[2, 2])],
                vec![],
            ),
            &["2 terms for 1 inputs"],
        ),
        (
            single(
                "Einsum",
                vec![str_attr("equation", "i1->i")],
                &["x"],
                vec![input("x", DataType::Float, &[2, 2])],
                vec![],
            ),
            &["'1', which is not a letter"],
        ),
        (
            single(
                "Einsum",
                vec![str_attr("equation", "ij->k")],
                &["x"],
                vec![input("x", DataType::Float, &[2, 2])],
                vec![],
            ),
            &["output label 'k' is in no input"],
        ),
        (
            single(
                "Einsum",
                vec![str_attr("equation", "ijk->i")],
                &["x"],
                vec![input("x", DataType::Float, &[2, 2])],
                vec![],
            ),
            &["does not fit an operand of rank 2"],
        ),
        (
            single(
                "Einsum",
                vec![str_attr("equation", "ii->i")],
                &["x"],
                vec![input("x", DataType::Float, &[2, 3])],
                vec![],
            ),
            &["label 'i' has sizes 2 and 3"],
        ),
        (
            single(
                "Einsum",
                vec![str_attr("equation", "......->")],
                &["x"],
                vec![input("x", DataType::Float, &[2, 3])],
                vec![],
            ),
            &["more than one ellipsis"],
        ),
        (
            single(
                "CumProd",
                vec![],
                &["x", "axis"],
                vec![input("x", DataType::Float, &[3])],
                vec![i64_tensor("axis", &[], &[1])],
            ),
            &["(CumProd, opset 17)", "axis 1 is out of range"],
        ),
    ];
    for (m, parts) in cases {
        let op = m
            .graph
            .as_ref()
            .map_or("", |g| g.node[0].op_type.as_str())
            .to_string();
        let mut expected = vec![format!("node 'n' ({op}, opset 17)")];
        expected.extend(parts.iter().map(|p| p.to_string()));
        let e = import_error(&m);
        let expected: Vec<&str> = expected.iter().map(String::as_str).collect();
        assert_mentions(&e, &expected);
    }
}

/// Pad's edge, wrap and reflect modes, pads larger than the axis included (numpy's repeated
/// reflections), and a negative pad that crops.
#[test]
fn pad_modes_follow_numpy() {
    let pad = |mode: &str, pads: &[i64]| {
        let m = single(
            "Pad",
            vec![str_attr("mode", mode)],
            &["x", "pads"],
            vec![input("x", DataType::Float, &[3])],
            vec![i64_tensor("pads", &[2], pads)],
        );
        let x = Literal::from_f64(DType::F32, &[3], &[1.0, 2.0, 3.0]);
        run(&m, &[x])[0].to_f64_vec()
    };
    assert_eq!(pad("edge", &[2, 1]), [1.0, 1.0, 1.0, 2.0, 3.0, 3.0]);
    assert_eq!(
        pad("wrap", &[4, 1]),
        [3.0, 1.0, 2.0, 3.0, 1.0, 2.0, 3.0, 1.0]
    );
    assert_eq!(
        pad("reflect", &[5, 0]),
        [2.0, 1.0, 2.0, 3.0, 2.0, 1.0, 2.0, 3.0]
    );
    assert_eq!(pad("reflect", &[-1, 2]), [2.0, 3.0, 2.0, 1.0]);
}

/// CumProd keeps a zero and an infinity where they are (no division, no 0·∞ elsewhere).
#[test]
fn cumprod_is_exact_around_zero_and_infinity() {
    let m = single(
        "CumProd",
        vec![int_attr("exclusive", 1), int_attr("reverse", 1)],
        &["x", "axis"],
        vec![input("x", DataType::Float, &[4])],
        vec![i64_tensor("axis", &[], &[0])],
    );
    let x = Literal::from_f64(DType::F32, &[4], &[2.0, 0.0, f64::INFINITY, 3.0]);
    let y = run(&m, &[x])[0].to_f64_vec();
    assert!(y[0].is_nan(), "0 · ∞ · 3 is NaN: {y:?}");
    assert_eq!(y[1..], [f64::INFINITY, 3.0, 1.0]);
}

/// Einsum: a trace, a diagonal, a broadcast ellipsis and a three-operand chain, against
/// values computed by hand.
#[test]
fn einsum_diagonals_ellipses_and_chains() {
    let x = Literal::from_f64(DType::F32, &[2, 2], &[1.0, 2.0, 3.0, 4.0]);
    let one = |eq: &str| {
        let m = single(
            "Einsum",
            vec![str_attr("equation", eq)],
            &["x"],
            vec![input("x", DataType::Float, &[2, 2])],
            vec![],
        );
        run(&m, std::slice::from_ref(&x))[0].to_f64_vec()
    };
    assert_eq!(one("ii"), [5.0]);
    assert_eq!(one("ii->i"), [1.0, 4.0]);
    assert_eq!(one("ij->ji"), [1.0, 3.0, 2.0, 4.0]);
    assert_eq!(one("ij"), [1.0, 2.0, 3.0, 4.0]);
    assert_eq!(one("ji"), [1.0, 3.0, 2.0, 4.0]);
    assert_eq!(one("...j->..."), [3.0, 7.0]);
    // x · x · x over a chain, and an ellipsis broadcasting a [1, 2] against a [2, 2].
    let m = model(
        vec![
            with_attrs(
                node("Einsum", "chain", &["x", "x", "x"], &["y"]),
                vec![str_attr("equation", "ab,bc,cd->ad")],
            ),
            with_attrs(
                node("Einsum", "broadcast", &["r", "x"], &["z"]),
                vec![str_attr("equation", "...i,...i->...")],
            ),
        ],
        vec![
            input("x", DataType::Float, &[2, 2]),
            input("r", DataType::Float, &[1, 2]),
        ],
        &["y", "z"],
        vec![],
    );
    let r = Literal::from_f64(DType::F32, &[1, 2], &[1.0, 10.0]);
    let out = run(&m, &[x.clone(), r]);
    assert_eq!(out[0].to_f64_vec(), [37.0, 54.0, 81.0, 118.0]);
    assert_eq!(out[1].to_f64_vec(), [21.0, 43.0]);
}

/// Scatters: without a reduction the last duplicate wins (the spec's reference loop), with
/// one every duplicate counts; an index out of range hits nothing. GatherND with a batch dim.
#[test]
fn scatter_duplicates_and_gather_nd_batches() {
    let scatter = |op: &str, reduction: &str, idx_dims: &[i64], idx: &[i64], upd_dims: &[i64]| {
        let m = single(
            op,
            vec![str_attr("reduction", reduction)],
            &["x", "i", "u"],
            vec![
                input("x", DataType::Float, &[3]),
                input("u", DataType::Float, upd_dims),
            ],
            vec![i64_tensor("i", idx_dims, idx)],
        );
        let x = Literal::from_f64(DType::F32, &[3], &[1.0, 2.0, 3.0]);
        let u = Literal::from_f64(DType::F32, &[3], &[10.0, 20.0, 30.0])
            .reshaped(upd_dims.iter().map(|d| *d as usize).collect())
            .expect("updates reshape");
        run(&m, &[x, u])[0].to_f64_vec()
    };
    assert_eq!(
        scatter("ScatterElements", "none", &[3], &[2, 2, -3], &[3]),
        [30.0, 2.0, 20.0]
    );
    assert_eq!(
        scatter("ScatterElements", "add", &[3], &[2, 2, 7], &[3]),
        [1.0, 2.0, 33.0]
    );
    assert_eq!(
        scatter("ScatterND", "none", &[3, 1], &[0, 0, 1], &[3]),
        [20.0, 30.0, 3.0]
    );
    assert_eq!(
        scatter("ScatterND", "max", &[3, 1], &[1, 1, -1], &[3]),
        [1.0, 20.0, 30.0]
    );
    let m = single(
        "GatherND",
        vec![int_attr("batch_dims", 1)],
        &["x", "i"],
        vec![input("x", DataType::Float, &[2, 2, 2])],
        vec![i64_tensor("i", &[2, 1, 2], &[0, 1, -1, 0])],
    );
    let x = Literal::from_f64(
        DType::F32,
        &[2, 2, 2],
        &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0],
    );
    assert_eq!(run(&m, &[x])[0].to_f64_vec(), [1.0, 6.0]);
}

/// MaxPool's Indices: the first maximum's flat index over N×C×H×W, row-major or (storage
/// order 1) column-major over the spatial axes, with a dilated window.
#[test]
fn max_pool_indices_follow_storage_order() {
    let pool = |order: i64| {
        let m = model(
            vec![with_attrs(
                node("MaxPool", "n", &["x"], &["y", "i"]),
                vec![
                    ints_attr("kernel_shape", &[2, 2]),
                    ints_attr("dilations", &[1, 2]),
                    int_attr("storage_order", order),
                ],
            )],
            vec![input("x", DataType::Float, &[1, 2, 2, 3])],
            &["y", "i"],
            vec![],
        );
        let values = [0.0, 5.0, 4.0, 2.0, 5.0, 3.0, 9.0, 1.0, 1.0, 1.0, 1.0, 1.0];
        let x = Literal::from_f64(DType::F32, &[1, 2, 2, 3], &values);
        let out = run(&m, &[x]);
        (out[0].to_f64_vec(), out[1].to_i64_vec())
    };
    // The first plane's maximum is at (h, w) = (0, 2): 2 row-major, 0 + 2·H = 4 column-major;
    // the second's at (0, 0), after the first plane's 6 elements.
    assert_eq!(pool(0), (vec![4.0, 9.0], vec![2, 6]));
    assert_eq!(pool(1), (vec![4.0, 9.0], vec![4, 6]));
}

// ---------------------------------------------------------------------------------------------
// Fuzzer findings (tools/fuzz, `onnx_import`), minimized to the model that reaches the importer.
// Each runs in a child process under a memory limit: a fix may turn the panic into an error at
// the node or into a model that imports, but never into a runaway allocation.

/// Decodes and imports `bytes` in an [`isolated`] child: the import may succeed (and must then
/// verify) or fail with an error naming a node or graph input; it must not panic or abort.
fn fuzz_case(test: &str, op_type: &str, bytes: &[u8]) {
    isolated(test, || {
        if let Err(e) = import_bytes(bytes) {
            // The error is at the node that crashed before, or earlier: at a graph input that
            // is too large, or at another node or output of the mutated model.
            let e = e.to_string();
            let at_node = e.contains(&format!("({op_type}, opset "));
            let earlier = ["graph input '", "graph output '", ", opset "]
                .iter()
                .any(|p| e.contains(p));
            assert!(at_node || earlier, "the error names no node or input: {e}");
        }
    });
}

/// ArgMax (select_last_index) of a `2^62` f32 input, opset 18: the reversed index list of the
/// axis was collected up front (`capacity overflow` in `ops::reduce::arg_reduce`; an axis of
/// 2^31 aborts on a 16 GiB allocation instead).
#[test]
fn fuzz_argmax_select_last_index_on_a_huge_axis() {
    fuzz_case(
        "fuzz_argmax_select_last_index_on_a_huge_axis",
        "ArgMax",
        b"\x3a\x48\x0a\x28\x0a\x01\x78\x12\x01\x63\x22\x06\x41\x72\x67\x4d\x61\x78\x2a\x18\x0a\x11\
          \x73\x65\x6c\x65\x63\x74\x5f\x6c\x61\x73\x74\x5f\x69\x6e\x64\x65\x78\x18\x08\xa0\x01\x02\
          \x5a\x17\x0a\x01\x78\x12\x12\x0a\x10\x08\x01\x12\x0c\x0a\x0a\x08\x80\x80\x80\x80\x80\x80\
          \x80\x80\x40\x62\x03\x0a\x01\x79\x42\x02\x10\x12",
    );
}

/// ArgMax (select_last_index) of a rank-0 input, opset 1: `ops::axis` accepts axis 0 of a
/// scalar and `ops::reduce::arg_reduce` indexes its empty shape (index out of bounds).
#[test]
fn fuzz_argmax_of_a_scalar() {
    fuzz_case(
        "fuzz_argmax_of_a_scalar",
        "ArgMax",
        b"\x3a\x3c\x0a\x28\x0a\x01\x78\x12\x01\x63\x22\x06\x41\x72\x67\x4d\x61\x78\x2a\x18\x0a\x11\
          \x73\x65\x6c\x65\x63\x74\x5f\x6c\x61\x73\x74\x5f\x69\x6e\x64\x65\x78\x18\x08\xa0\x01\x02\
          \x5a\x0b\x0a\x01\x78\x12\x06\x0a\x04\x08\x01\x12\x00\x62\x03\x0a\x01\x79\x42\x02\x10\x01",
    );
}

/// Gather of a rank-0 input: `ops::axis` accepts axis 0 of a scalar and
/// `ops::movement::gather` indexes its empty shape (index out of bounds).
#[test]
fn fuzz_gather_of_a_scalar() {
    fuzz_case(
        "fuzz_gather_of_a_scalar",
        "Gather",
        b"\x3a\x3b\x0a\x15\x0a\x01\x78\x0a\x05\x73\x74\x65\x70\x73\x12\x01\x67\x22\x06\x47\x61\x74\
          \x68\x65\x72\x2a\x0f\x0a\x01\x01\x10\x07\x3a\x01\x01\x42\x05\x73\x74\x65\x70\x73\x5a\x0b\
          \x0a\x01\x78\x12\x06\x0a\x04\x08\x01\x12\x00\x62\x04\x0a\x02\x76\x34\x42\x02\x10\x63",
    );
}

/// Split of a rank-0 initializer, opset 21: index out of bounds in `ops::movement::split` (axis 0
/// of a scalar).
#[test]
fn fuzz_split_of_a_scalar() {
    fuzz_case(
        "fuzz_split_of_a_scalar",
        "Split",
        b"\x3a\x28\x0a\x12\x0a\x05\x73\x74\x65\x70\x73\x12\x02\x76\x32\x22\x05\x53\x70\x6c\x69\x74\
          \x2a\x0c\x10\x07\x3a\x01\x00\x42\x05\x73\x74\x65\x70\x73\x62\x04\x0a\x02\x76\x36\x42\x02\
          \x10\x15",
    );
}

/// Squeeze of a rank-0 tensor by axes `0` (itself): index out of bounds in
/// `ops::movement::squeeze`.
#[test]
fn fuzz_squeeze_of_a_scalar() {
    fuzz_case(
        "fuzz_squeeze_of_a_scalar",
        "Squeeze",
        b"\x3a\x30\x0a\x1a\x0a\x04\x61\x78\x65\x73\x0a\x04\x61\x78\x65\x73\x12\x03\x76\x31\x32\x22\
          \x07\x53\x71\x75\x65\x65\x7a\x65\x2a\x0b\x10\x07\x3a\x01\x00\x42\x04\x61\x78\x65\x73\x62\
          \x05\x0a\x03\x76\x31\x33\x42\x02\x10\x63",
    );
}

/// LogSoftmax of a rank-0 input with axis 0, opset 4: `shape.len() - 1` underflows in
/// `ops::nn::softmax`.
#[test]
fn fuzz_log_softmax_of_a_scalar_before_opset_13() {
    fuzz_case(
        "fuzz_log_softmax_of_a_scalar_before_opset_13",
        "LogSoftmax",
        b"\x3a\x31\x0a\x1d\x0a\x01\x78\x12\x01\x63\x22\x0a\x4c\x6f\x67\x53\x6f\x66\x74\x6d\x61\x78\
          \x2a\x09\x0a\x04\x61\x78\x69\x73\xa0\x01\x02\x5a\x0b\x0a\x01\x78\x12\x06\x0a\x04\x08\x01\
          \x12\x00\x62\x03\x0a\x01\x77\x42\x02\x10\x04",
    );
}

/// LogSoftmax of a `1x2^62x8` input, opset 4: the product of the flattened dims overflows in
/// `ops::nn::softmax`.
#[test]
fn fuzz_log_softmax_of_huge_dims_before_opset_13() {
    fuzz_case(
        "fuzz_log_softmax_of_huge_dims_before_opset_13",
        "LogSoftmax",
        b"\x3a\x3c\x0a\x13\x0a\x01\x78\x12\x02\x76\x30\x22\x0a\x4c\x6f\x67\x53\x6f\x66\x74\x6d\x61\
          \x78\x5a\x1f\x0a\x01\x78\x12\x1a\x0a\x18\x08\x01\x12\x14\x0a\x02\x08\x01\x0a\x0a\x08\x80\
          \x80\x80\x80\x80\x80\x80\x80\x40\x0a\x02\x08\x08\x62\x04\x0a\x02\x76\x30\x42\x02\x10\x04",
    );
}

/// Flatten of a `1x2^62x8` input: the product of the dims overflows in `ops::movement::flatten`.
#[test]
fn fuzz_flatten_of_huge_dims() {
    fuzz_case(
        "fuzz_flatten_of_huge_dims",
        "Flatten",
        b"\x3a\x37\x0a\x0f\x0a\x01\x78\x12\x01\x63\x22\x07\x46\x6c\x61\x74\x74\x65\x6e\x5a\x1f\x0a\
          \x01\x78\x12\x1a\x0a\x18\x08\x01\x12\x14\x0a\x02\x08\x01\x0a\x0a\x08\x80\x80\x80\x80\x80\
          \x80\x80\x80\x40\x0a\x02\x08\x08\x62\x03\x0a\x01\x79\x42\x02\x10\x11",
    );
}

/// Size of an `(2^63-1)x8` input, opset 10: the product of the dims overflows in
/// `ops::movement::size`.
#[test]
fn fuzz_size_of_huge_dims() {
    fuzz_case(
        "fuzz_size_of_huge_dims",
        "Size",
        b"\x3a\x31\x0a\x0c\x0a\x01\x78\x12\x01\x63\x22\x04\x53\x69\x7a\x65\x5a\x1b\x0a\x01\x78\x12\
          \x16\x0a\x14\x08\x01\x12\x10\x0a\x0a\x08\xff\xff\xff\xff\xff\xff\xff\xff\x7f\x0a\x02\x08\
          \x08\x62\x04\x0a\x02\x76\x34\x42\x02\x10\x0a",
    );
}

/// Pad (after Conv → Relu → MaxPool, for a rank-4 operand) whose pads hold `i64::MIN`: `-p`
/// overflows where negative pads become a crop (`ops::movement::pad`).
#[test]
fn fuzz_pad_by_i64_min() {
    fuzz_case(
        "fuzz_pad_by_i64_min",
        "Pad",
        b"\x3a\xba\x01\x0a\x0f\x0a\x01\x78\x0a\x01\x77\x12\x01\x63\x22\x04\x43\x6f\x6e\x76\x0a\x0c\
          \x0a\x01\x63\x12\x01\x72\x22\x04\x52\x65\x6c\x75\x0a\x26\x0a\x01\x72\x12\x01\x70\x22\x07\
          \x4d\x61\x78\x50\x6f\x6f\x6c\x2a\x15\x0a\x0c\x6b\x65\x72\x6e\x65\x6c\x5f\x73\x68\x61\x70\
          \x65\x42\x02\x02\x02\xa0\x01\x07\x0a\x11\x0a\x01\x70\x0a\x04\x70\x61\x64\x73\x12\x01\x71\
          \x22\x03\x50\x61\x64\x2a\x1f\x0a\x01\x08\x10\x07\x3a\x12\xff\x01\x07\x80\x80\x80\x80\x80\
          \x80\x80\x80\x80\x01\x00\x00\x00\x00\x00\x42\x04\x70\x61\x64\x73\x5a\x1b\x0a\x01\x78\x12\
          \x16\x0a\x14\x08\x01\x12\x10\x0a\x02\x08\x01\x0a\x02\x08\x03\x0a\x02\x08\x08\x0a\x02\x08\
          \x08\x5a\x1b\x0a\x01\x77\x12\x16\x0a\x14\x08\x01\x12\x10\x0a\x02\x08\x01\x0a\x02\x08\x03\
          \x0a\x02\x08\x01\x0a\x02\x08\x01\x62\x03\x0a\x01\x79\x42\x02\x10\x11",
    );
}

/// Split (after Conv → Relu → MaxPool) into sizes `[-8, i64::MIN]`: their sum overflows in
/// `ops::movement::split` before the negative sizes are rejected.
#[test]
fn fuzz_split_sizes_overflow() {
    fuzz_case(
        "fuzz_split_sizes_overflow",
        "Split",
        b"\x3a\xbe\x01\x0a\x0f\x0a\x01\x78\x0a\x01\x77\x12\x01\x63\x22\x04\x43\x6f\x6e\x76\x0a\x0c\
          \x0a\x01\x63\x12\x01\x72\x22\x04\x52\x65\x6c\x75\x0a\x26\x0a\x01\x72\x12\x01\x70\x22\x07\
          \x4d\x61\x78\x50\x6f\x6f\x6c\x2a\x15\x0a\x0c\x6b\x65\x72\x6e\x65\x6c\x5f\x73\x68\x61\x70\
          \x65\x42\x02\x02\x02\xa0\x01\x07\x0a\x13\x0a\x01\x70\x0a\x04\x70\x61\x64\x73\x12\x01\x71\
          \x22\x05\x53\x70\x6c\x69\x74\x2a\x21\x0a\x01\x02\x10\x07\x3a\x14\xf8\xff\xff\xff\xff\xff\
          \xff\xff\xff\x01\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01\x42\x04\x70\x61\x64\x73\x5a\x1b\
          \x0a\x01\x78\x12\x16\x0a\x14\x08\x01\x12\x10\x0a\x02\x08\x01\x0a\x02\x08\x03\x0a\x02\x08\
          \x08\x0a\x02\x08\x08\x5a\x1b\x0a\x01\x77\x12\x16\x0a\x14\x08\x01\x12\x10\x0a\x02\x08\x01\
          \x0a\x02\x08\x03\x0a\x02\x08\x01\x0a\x02\x08\x01\x62\x03\x0a\x01\x79\x42\x02\x10\x11",
    );
}

/// Tile (after a Conv → ... → Transpose chain) by repeats `[1, 16, 2^62, 0]`: `vec![y; r]` of
/// 2^62 copies panics with `capacity overflow` in `ops::movement::tile` (a repeat of 2^31 + 1
/// allocates 8 GiB and then builds a concat of 2^31 operands).
#[test]
fn fuzz_tile_by_2_pow_62() {
    fuzz_case(
        "fuzz_tile_by_2_pow_62",
        "Tile",
        b"\x3a\xb0\x02\x0a\x0f\x0a\x01\x78\x0a\x01\x77\x12\x01\x63\x22\x04\x43\x6f\x6e\x76\x0a\x0c\
          \x0a\x01\x63\x12\x01\x72\x22\x04\x52\x65\x6c\x75\x0a\x26\x0a\x01\x72\x12\x01\x70\x22\x07\
          \x4d\x61\x78\x50\x6f\x6f\x6c\x2a\x15\x0a\x0c\x6b\x65\x72\x6e\x65\x6c\x5f\x73\x68\x61\x70\
          \x65\x42\x02\x02\x02\xa0\x01\x07\x0a\x11\x0a\x01\x70\x0a\x04\x70\x61\x64\x73\x12\x01\x71\
          \x22\x03\x50\x61\x64\x0a\x1a\x0a\x01\x71\x0a\x04\x61\x78\x65\x73\x0a\x05\x73\x74\x65\x70\
          \x73\x12\x01\x73\x22\x05\x53\x6c\x69\x63\x65\x0a\x11\x0a\x01\x73\x12\x01\x74\x22\x09\x54\
          \x72\x61\x6e\x73\x70\x6f\x73\x65\x0a\x11\x0a\x01\x74\x0a\x03\x69\x64\x78\x12\x01\x67\x22\
          \x04\x54\x69\x6c\x65\x2a\x15\x0a\x01\x08\x10\x07\x3a\x08\x00\x00\x01\x01\x00\x00\x01\x01\
          \x42\x04\x70\x61\x64\x73\x2a\x0e\x0a\x01\x01\x10\x07\x3a\x01\x01\x42\x04\x61\x78\x65\x73\
          \x2a\x0f\x0a\x01\x01\x10\x07\x3a\x01\x01\x42\x05\x73\x74\x65\x70\x73\x2a\x18\x0a\x01\x04\
          \x10\x07\x3a\x0c\x01\x10\x80\x80\x80\x80\x80\x80\x80\x80\x40\x00\x42\x03\x69\x64\x78\x5a\
          \x1c\x0a\x01\x78\x12\x17\x0a\x15\x08\x01\x12\x11\x0a\x02\x08\x01\x0a\x02\x08\x03\x0a\x03\
          \x12\x01\x6e\x0a\x02\x08\x08\x5a\x1b\x0a\x01\x77\x12\x16\x0a\x14\x08\x01\x12\x10\x0a\x02\
          \x08\x01\x0a\x02\x08\x03\x0a\x02\x08\x01\x0a\x02\x08\x01\x62\x05\x0a\x03\x76\x31\x33\x42\
          \x02\x10\x11",
    );
}

/// Slice with steps `[-2.8e15, -65535]` after a Pad that makes an axis about 8.4e14 long: the
/// indices a negative step selects are pushed one by one (`ops::movement::slice_indices`)
/// until memory runs out.
#[test]
fn fuzz_slice_with_negative_step_on_a_huge_axis() {
    fuzz_case(
        "fuzz_slice_with_negative_step_on_a_huge_axis",
        "Slice",
        b"\x3a\xd7\x01\x0a\x11\x0a\x01\x78\x0a\x04\x70\x61\x64\x73\x12\x01\x70\x22\x03\x50\x61\x64\
          \x0a\x1d\x0a\x01\x70\x0a\x02\x73\x74\x0a\x02\x65\x6e\x0a\x02\x61\x78\x0a\x02\x73\x70\x12\
          \x01\x73\x22\x05\x53\x6c\x69\x63\x65\x2a\x1a\x0a\x01\x06\x10\x07\x3a\x0d\x00\x01\x80\x80\
          \x80\x80\x80\x80\xc0\x01\x00\x01\x02\x42\x04\x70\x61\x64\x73\x2a\x16\x0a\x01\x02\x10\x07\
          \x3a\x0b\x00\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\x42\x02\x73\x74\x2a\x0d\x0a\x01\x02\
          \x10\x07\x3a\x02\x64\x00\x42\x02\x65\x6e\x2a\x0d\x0a\x01\x02\x10\x07\x3a\x02\x01\x02\x42\
          \x02\x61\x78\x2a\x1f\x0a\x01\x02\x10\x07\x3a\x14\x81\x80\x80\x80\x80\x80\x80\xfb\xff\x01\
          \x81\x80\xfc\xff\xff\xff\xff\xff\xff\x01\x42\x02\x73\x70\x5a\x17\x0a\x01\x78\x12\x12\x0a\
          \x10\x08\x01\x12\x0c\x0a\x02\x08\x01\x0a\x02\x08\x01\x0a\x02\x08\x01\x62\x17\x0a\x01\x79\
          \x12\x12\x0a\x10\x08\x01\x12\x0c\x0a\x02\x08\x02\x0a\x02\x08\x04\x0a\x02\x08\x0c\x42\x02\
          \x10\x11",
    );
}

/// ConstantOfShape of a shape folded from Shape → Sum → Sum (eight dims of 6 to 9, about 10^9
/// elements): `Literal::splat` allocates 16 GiB (`ops::movement::constant_of_shape`).
#[test]
fn fuzz_constant_of_shape_of_folded_sums() {
    fuzz_case(
        "fuzz_constant_of_shape_of_folded_sums",
        "ConstantOfShape",
        b"\x3a\x9e\x01\x0a\x11\x0a\x03\x69\x64\x78\x12\x03\x76\x31\x30\x22\x05\x53\x68\x61\x70\x65\
          \x0a\x1a\x0a\x03\x76\x31\x30\x0a\x03\x76\x31\x30\x0a\x04\x70\x61\x64\x73\x12\x03\x76\x31\
          \x38\x22\x03\x53\x75\x6d\x0a\x19\x0a\x03\x76\x31\x38\x0a\x03\x76\x31\x38\x0a\x03\x76\x31\
          \x38\x12\x03\x76\x32\x32\x22\x03\x53\x75\x6d\x0a\x1b\x0a\x03\x76\x32\x32\x12\x03\x76\x34\
          \x32\x22\x0f\x43\x6f\x6e\x73\x74\x61\x6e\x74\x4f\x66\x53\x68\x61\x70\x65\x2a\x15\x0a\x01\
          \x08\x10\x07\x3a\x08\x00\x00\x01\x01\x00\x00\x01\x01\x42\x04\x70\x61\x64\x73\x2a\x17\x0a\
          \x01\x02\x10\x07\x3a\x0b\x00\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\x42\x03\x69\x64\x78\
          \x62\x05\x0a\x03\x76\x35\x33\x42\x02\x10\x0d",
    );
}

/// Conv with `group = i64::MAX`, opset 1: `wc * groups` overflows in dlc-graph's
/// `verify::infer_conv2d`, reached from `dlc_graph::build`.
#[test]
fn fuzz_conv_with_group_i64_max() {
    fuzz_case(
        "fuzz_conv_with_group_i64_max",
        "Conv",
        b"\x3a\x6a\x0a\x25\x0a\x01\x78\x0a\x01\x77\x12\x01\x63\x22\x04\x43\x6f\x6e\x76\x2a\x14\x0a\
          \x05\x67\x72\x6f\x75\x70\x18\xff\xff\xff\xff\xff\xff\xff\xff\x7f\xa0\x01\x02\x5a\x1b\x0a\
          \x01\x78\x12\x16\x0a\x14\x08\x01\x12\x10\x0a\x02\x08\x01\x0a\x02\x08\x01\x0a\x02\x08\x01\
          \x0a\x02\x08\x01\x5a\x1b\x0a\x01\x77\x12\x16\x0a\x14\x08\x01\x12\x10\x0a\x02\x08\x01\x0a\
          \x02\x08\x03\x0a\x02\x08\x01\x0a\x02\x08\x01\x62\x07\x0a\x05\x73\x68\x61\x70\x65\x42\x02\
          \x10\x01",
    );
}

/// Conv with `auto_pad = SAME_LOWER` on a `1x1x1x(2^63-1)` input, opset 1: the padding
/// arithmetic overflows in `ops::nn` (`Window::read`).
#[test]
fn fuzz_conv_same_lower_on_a_huge_axis() {
    fuzz_case(
        "fuzz_conv_same_lower_on_a_huge_axis",
        "Conv",
        b"\x3a\x75\x0a\x2a\x0a\x01\x78\x0a\x01\x77\x12\x01\x63\x22\x04\x43\x6f\x6e\x76\x2a\x19\x0a\
          \x08\x61\x75\x74\x6f\x5f\x70\x61\x64\x22\x0a\x53\x41\x4d\x45\x5f\x4c\x4f\x57\x45\x52\xa0\
          \x01\x03\x5a\x23\x0a\x01\x78\x12\x1e\x0a\x1c\x08\x01\x12\x18\x0a\x02\x08\x01\x0a\x02\x08\
          \x01\x0a\x02\x08\x01\x0a\x0a\x08\xff\xff\xff\xff\xff\xff\xff\xff\x7f\x5a\x1b\x0a\x01\x77\
          \x12\x16\x0a\x14\x08\x01\x12\x10\x0a\x02\x08\x01\x0a\x02\x08\x01\x0a\x02\x08\x01\x0a\x02\
          \x08\x01\x62\x05\x0a\x03\x76\x31\x30\x42\x02\x10\x01",
    );
}

/// MaxPool with `ceil_mode` and pads on a `1x1x1x(2^63-1)` input: the output-size arithmetic
/// overflows in `ops::nn` (`Window::read`).
#[test]
fn fuzz_max_pool_ceil_mode_on_a_huge_axis() {
    fuzz_case(
        "fuzz_max_pool_ceil_mode_on_a_huge_axis",
        "MaxPool",
        b"\x3a\x7e\x0a\x52\x0a\x01\x78\x12\x01\x63\x22\x07\x4d\x61\x78\x50\x6f\x6f\x6c\x2a\x15\x0a\
          \x0c\x6b\x65\x72\x6e\x65\x6c\x5f\x73\x68\x61\x70\x65\x42\x02\x03\x03\xa0\x01\x07\x2a\x0f\
          \x0a\x04\x70\x61\x64\x73\x42\x04\x01\x01\x01\x01\xa0\x01\x07\x2a\x19\x0a\x09\x63\x65\x69\
          \x6c\x5f\x6d\x6f\x64\x65\x18\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\xa0\x01\x02\x5a\x23\
          \x0a\x01\x78\x12\x1e\x0a\x1c\x08\x01\x12\x18\x0a\x02\x08\x01\x0a\x02\x08\x01\x0a\x02\x08\
          \x01\x0a\x0a\x08\xff\xff\xff\xff\xff\xff\xff\xff\x7f\x62\x03\x0a\x01\x79\x42\x02\x10\x11",
    );
}

/// Flatten of a `0x(2^63−1)x8x(2^63−1)` input (after MaxPool, Relu, ...): the zero dim let the
/// other dims pass the size check, and the product of the others overflowed in
/// `ops::movement::flatten`. Sizes now count a 0 as 1, so the input is refused.
#[test]
fn fuzz_flatten_of_a_zero_size_input_with_huge_dims() {
    fuzz_case(
        "fuzz_flatten_of_a_zero_size_input_with_huge_dims",
        "Flatten",
        b"\x08\x08\x3a\xaf\x08\x0a\x40\x0a\x01\x78\x0a\x01\x77\x0a\x01\x62\x12\x01\x63\x1a\x01\x63\
          \x22\x07\x4d\x61\x78\x50\x6f\x6f\x6c\x2a\x15\x0a\x0c\x6b\x65\x72\x6e\x65\x6c\x5f\x73\x68\
          \x61\x70\x65\x42\x02\x03\x03\xa0\x01\x07\x2a\x0f\x0a\x04\x70\x61\x64\x73\x42\x04\x01\x01\
          \x01\x01\xa0\x01\x07\x0a\x0f\x0a\x01\x63\x12\x01\x72\x1a\x01\x72\x22\x04\x52\x65\x6c\x75\
          \x0a\x3b\x0a\x01\x72\x12\x01\x70\x1a\x01\x70\x22\x07\x4d\x61\x78\x50\x6f\x6f\x6c\x2a\x15\
          \x0a\x0c\x6b\x65\x72\x6e\x65\x6c\x5f\x73\x68\x61\x70\x65\x42\x02\x02\x02\xa0\x01\x07\x2a\
          \x10\x0a\x07\x73\x74\x72\x69\x64\x65\x73\x42\x02\x02\x02\xa0\x01\x07\x0a\x14\x0a\x01\x70\
          \x0a\x04\x70\x61\x64\x73\x12\x01\x71\x1a\x01\x71\x22\x03\x50\x61\x64\x0a\x2b\x0a\x01\x71\
          \x0a\x06\x73\x74\x61\x72\x74\x73\x0a\x04\x65\x6e\x64\x73\x0a\x04\x61\x78\x65\x73\x0a\x05\
          \x73\x74\x65\x70\x73\x12\x01\x73\x1a\x01\x73\x22\x05\x53\x6c\x69\x63\x65\x0a\x25\x0a\x01\
          \x73\x12\x01\x74\x1a\x01\x74\x22\x09\x54\x72\x61\x6e\x73\x70\x6f\x73\x65\x2a\x0f\x0a\x04\
          \x70\x65\x72\x6d\x42\x04\x00\x01\x03\x02\xa0\x01\x07\x0a\x24\x0a\x01\x74\x0a\x03\x69\x64\
          \x78\x12\x01\x67\x1a\x01\x67\x22\x07\x46\x6c\x61\x74\x74\x65\x6e\x2a\x0b\x0a\x04\x61\x78\
          \x69\x73\x18\x02\xa0\x01\x02\x0a\x21\x0a\x01\x67\x0a\x01\x67\x12\x01\x6b\x1a\x01\x6b\x22\
          \x06\x43\x6f\x6e\x63\x61\x74\x2a\x0b\x0a\x04\x61\x78\x69\x73\x18\x01\xa0\x01\x02\x0a\x19\
          \x0a\x01\x6b\x0a\x05\x73\x68\x61\x70\x65\x12\x01\x66\x1a\x01\x66\x22\x07\x52\x65\x73\x68\
          \x61\x70\x65\x0a\x28\x0a\x01\x66\x12\x01\x79\x1a\x01\x79\x22\x07\x53\x6f\x66\x74\x6d\x61\
          \x78\x2a\x14\x0a\x04\x61\x78\x69\x73\x18\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\xa0\x01\
          \x02\x12\x04\x73\x65\x65\x64\x2a\xbe\x03\x0a\x04\x04\x03\x03\x03\x10\x01\x22\xb0\x03\xcd\
          \xcc\xcc\xbe\x3a\xa8\x83\xbe\xa0\x0e\xea\xbd\xa0\x0e\xea\x3c\xfa\x8a\x2f\x3e\x0f\xea\xa0\
          \x3e\xa1\x0e\xea\x3e\xcd\xcc\xcc\xbe\x3a\xa8\x83\xbe\xa0\x0e\xea\xbd\xa0\x0e\xea\x3c\xfa\
          \x8a\x2f\x3e\x0f\xea\xa0\x3e\xa1\x0e\xea\x3e\xcd\xcc\xcc\xbe\x3a\xa8\x83\xbe\xa0\x0e\xea\
          \xbd\xa0\x0e\xea\x3c\xfa\x8a\x2f\x3e\x0f\xea\xa0\x3e\xa1\x0e\xea\x3e\xcd\xcc\xcc\xbe\x3a\
          \xa8\x83\xbe\xa0\x0e\xea\xbd\xa0\x0e\xea\x3c\xfa\x8a\x2f\x3e\x0f\xea\xa0\x3e\xa1\x0e\xea\
          \x3e\xcd\xcc\xcc\xbe\x3a\xa8\x83\xbe\xa0\x0e\xea\xbd\xa0\x0e\xea\x3c\xfa\x8a\x2f\x3e\x0f\
          \xea\xa0\x3e\xa1\x0e\xea\x3e\xcd\xcc\xcc\xbe\x3a\xa8\x83\xbe\xa0\x0e\xea\xbd\xa0\x0e\xea\
          \x3c\xfa\x8a\x2f\x3e\x0f\xea\xa0\x3e\xa1\x0e\xea\x3e\xcd\xcc\xcc\xbe\x3a\xa8\x83\xbe\xa0\
          \x0e\xea\xbd\xa0\x0e\xea\x3c\xfa\x8a\x2f\x3e\x0f\xea\xa0\x3e\xa1\x0e\xea\x3e\xcd\xcc\xcc\
          \xbe\x3a\xa8\x83\xbe\xa0\x0e\xea\xbd\xa0\x0e\xea\x3c\xfa\x8a\x2f\x3e\x0f\xea\xa0\x3e\xa1\
          \x0e\xea\x3e\xcd\xcc\xcc\xbe\x3a\xa8\x83\xbe\xa0\x0e\xea\xbd\xa0\x0e\xea\x3c\xfa\x8a\x2f\
          \x3e\x0f\xea\xa0\x3e\xa1\x0e\xea\x3e\xcd\xcc\xcc\xbe\x3a\xa8\x83\xbe\xa0\x0e\xea\xbd\xa0\
          \x0e\xea\x3c\xfa\x8a\x2f\x3e\x0f\xea\xa0\x3e\xa1\x0e\xea\x3e\xcd\xcc\xcc\xbe\x3a\xa8\x83\
          \xbe\xa0\x0e\xea\xbd\xa0\x0e\xea\x3c\xfa\x8a\x2f\x3e\x0f\xea\xa0\x3e\xa1\x0e\xea\x3e\xcd\
          \xcc\xcc\xbe\x3a\xa8\x83\xbe\xa0\x0e\xea\xbd\xa0\x0e\xea\x3c\xfa\x8a\x2f\x3e\x0f\xea\xa0\
          \x3e\xa1\x0e\xea\x3e\xcd\xcc\xcc\xbe\x3a\xa8\x83\xbe\xa0\x0e\xea\xbd\xa0\x0e\xea\x3c\xfa\
          \x8a\x2f\x3e\x0f\xea\xa0\x3e\xa1\x0e\xea\x3e\xcd\xcc\xcc\xbe\x3a\xa8\x83\xbe\xa0\x0e\xea\
          \xbd\xa0\x0e\xea\x3c\xfa\x8a\x2f\x3e\x0f\xea\xa0\x3e\xa1\x0e\xea\x3e\xcd\xcc\xcc\xbe\x3a\
          \xa8\x83\xbe\xa0\x0e\xea\xbd\xa0\x0e\xea\x3c\xfa\x8a\x2f\x3e\x0f\xea\xa0\x3e\xa1\x0e\xea\
          \x3e\xcd\xcc\xcc\xbe\x3a\xa8\x83\xbe\xa0\x0e\xea\xbd\x42\x01\x77\x2a\x1a\x0a\x01\x04\x10\
          \x01\x22\x10\xcd\xcc\xcc\xbe\x3a\xa8\x83\xbe\xa0\x0e\xea\xbd\xa0\x0e\xea\x3c\x42\x01\x62\
          \x2a\x15\x0a\x01\x08\x10\x07\x3a\x08\x00\x00\x01\x01\x00\x00\x01\x01\x42\x04\x70\x61\x64\
          \x73\x2a\x10\x0a\x01\x01\x10\x07\x3a\x01\x00\x42\x06\x73\x74\x61\x72\x74\x73\x2a\x0e\x0a\
          \x01\x01\x10\x07\x3a\x01\x02\x42\x04\x65\x6e\x64\x73\x2a\x0e\x0a\x01\x01\x10\x07\x3a\x01\
          \x01\x42\x04\x61\x78\x65\x73\x2a\x0f\x0a\x01\x01\x10\x07\x3a\x01\x01\x42\x05\x73\x74\x65\
          \x70\x73\x2a\x17\x0a\x01\x02\x10\x07\x3a\x0b\x00\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\
          \x42\x03\x69\x64\x78\x2a\x19\x0a\x01\x02\x10\x07\x3a\x0b\x01\xff\xff\xff\xff\xff\xff\xff\
          \xff\xff\x01\x42\x05\x73\x68\x61\x70\x65\x5a\x2b\x0a\x01\x78\x12\x26\x0a\x24\x08\x06\x12\
          \x20\x0a\x02\x08\x00\x0a\x0a\x08\xff\xff\xff\xff\xff\xff\xff\xff\x7f\x0a\x02\x08\x08\x0a\
          \x0a\x08\xff\xff\xff\xff\xff\xff\xff\xff\x7f\x62\x07\x0a\x05\x73\x68\x61\x70\x65\x42\x02\
          \x10\x11",
    );
}

/// Split with `num_outputs = 2^62` on a node of one output: the equal parts were collected
/// up front (`capacity overflow`). The count must now match the node's outputs.
#[test]
fn fuzz_split_with_huge_num_outputs() {
    fuzz_case(
        "fuzz_split_with_huge_num_outputs",
        "Split",
        b"\x08\x08\x3a\xf2\x09\x0a\x6a\x0a\x01\x78\x0a\x01\x77\x0a\x01\x62\x12\x01\x63\x1a\x01\x63\
          \x22\x05\x53\x70\x6c\x69\x74\x2a\x15\x0a\x0c\x6b\x65\x72\x6e\x65\x6c\x5f\x73\x68\x61\x70\
          \x65\x42\x02\x03\x03\xa0\x01\x07\x2a\x0f\x0a\x04\x70\x61\x64\x73\x42\x04\x01\x01\x01\x01\
          \xa0\x01\x07\x2a\x0e\x0a\x09\x63\x65\x69\x6c\x5f\x6d\x6f\x64\x65\xa0\x01\x02\x2a\x1a\x0a\
          \x0b\x6e\x75\x6d\x5f\x6f\x75\x74\x70\x75\x74\x73\x18\x80\x80\x80\x80\x80\x80\x80\x80\x40\
          \xa0\x01\x02\x0a\x1d\x0a\x01\x63\x0a\x05\x73\x68\x61\x70\x65\x0a\x05\x73\x68\x61\x70\x65\
          \x12\x01\x72\x1a\x01\x72\x22\x04\x52\x65\x6c\x75\x0a\x5a\x0a\x01\x72\x12\x01\x70\x1a\x01\
          \x70\x22\x0b\x41\x76\x65\x72\x61\x67\x65\x50\x6f\x6f\x6c\x2a\x15\x0a\x0c\x6b\x65\x72\x6e\
          \x65\x6c\x5f\x73\x68\x61\x70\x65\x42\x02\x02\x02\xa0\x01\x07\x2a\x10\x0a\x07\x73\x74\x72\
          \x69\x64\x65\x73\x42\x02\x02\x02\xa0\x01\x07\x2a\x19\x0a\x11\x73\x65\x6c\x65\x63\x74\x5f\
          \x6c\x61\x73\x74\x5f\x69\x6e\x64\x65\x78\x18\xff\x01\xa0\x01\x02\x0a\x2c\x0a\x01\x70\x0a\
          \x04\x70\x61\x64\x73\x12\x01\x71\x1a\x01\x71\x22\x03\x50\x61\x64\x2a\x16\x0a\x0c\x6b\x65\
          \x72\x6e\x65\x6c\x5f\x73\x68\x61\x70\x65\x42\x03\x00\x00\x00\xa0\x01\x07\x0a\x2a\x0a\x01\
          \x71\x0a\x06\x73\x74\x61\x72\x74\x73\x0a\x04\x65\x6e\x64\x73\x0a\x04\x61\x78\x65\x73\x0a\
          \x05\x73\x74\x65\x70\x73\x12\x01\x73\x1a\x01\x73\x22\x04\x52\x65\x6c\x75\x0a\x3c\x0a\x01\
          \x73\x12\x01\x74\x1a\x01\x74\x22\x09\x54\x72\x61\x6e\x73\x70\x6f\x73\x65\x2a\x0f\x0a\x04\
          \x70\x65\x72\x6d\x42\x04\x00\x01\x03\x02\xa0\x01\x07\x2a\x15\x0a\x04\x61\x78\x65\x73\x42\
          \x0a\x08\x80\x80\x80\x80\x80\x80\x80\x80\x40\xa0\x01\x07\x0a\x23\x0a\x01\x74\x0a\x03\x69\
          \x64\x78\x12\x01\x67\x1a\x01\x67\x22\x06\x47\x61\x74\x68\x65\x72\x2a\x0b\x0a\x04\x61\x78\
          \x69\x73\x18\x02\xa0\x01\x02\x0a\x21\x0a\x01\x67\x0a\x01\x67\x12\x01\x6b\x1a\x01\x6b\x22\
          \x06\x43\x6f\x6e\x63\x61\x74\x2a\x0b\x0a\x04\x61\x78\x69\x73\x18\x01\xa0\x01\x02\x0a\x19\
          \x0a\x01\x6b\x0a\x05\x73\x68\x61\x70\x65\x12\x01\x66\x1a\x01\x66\x22\x07\x52\x65\x73\x68\
          \x61\x70\x65\x0a\x28\x0a\x01\x66\x12\x01\x79\x1a\x01\x79\x22\x07\x53\x6f\x66\x74\x6d\x61\
          \x78\x2a\x14\x0a\x04\x61\x78\x69\x73\x18\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\xa0\x01\
          \x02\x0a\x3b\x0a\x01\x77\x12\x03\x76\x31\x30\x1a\x03\x6e\x31\x30\x22\x03\x50\x61\x64\x2a\
          \x0a\x0a\x05\x61\x6c\x70\x68\x61\xa0\x01\x01\x2a\x10\x0a\x09\x61\x6c\x6c\x6f\x77\x7a\x65\
          \x72\x6f\x18\x10\xa0\x01\x02\x2a\x09\x0a\x04\x70\x65\x72\x6d\xa0\x01\x07\x0a\x13\x0a\x01\
          \x78\x12\x03\x76\x31\x31\x1a\x03\x6e\x31\x31\x22\x04\x43\x6f\x6e\x76\x12\x04\x73\x65\x65\
          \x64\x2a\xbe\x03\x0a\x04\x04\x03\x03\x03\x10\x01\x22\xb0\x03\xcd\xcc\xcc\xbe\x3a\xa8\x83\
          \xbe\xa0\x0e\xea\xbd\xa0\x0e\xea\x3c\xfa\x8a\x2f\x3e\x0f\xea\xa0\x3e\xa1\x0e\xea\x3e\xcd\
          \xcc\xcc\xbe\x3a\xa8\x83\xbe\xa0\x0e\xea\xbd\xa0\x0e\xea\x3c\xfa\x8a\x2f\x3e\x0f\xea\xa0\
          \x3e\xa1\x0e\xea\x3e\xcd\xcc\xcc\xbe\x3a\xa8\x83\xbe\xa0\x0e\xea\xbd\xa0\x0e\xea\x3c\xfa\
          \x8a\x2f\x3e\x0f\xea\xa0\x3e\xa1\x0e\xea\x3e\xcd\xcc\xcc\xbe\x3a\xa8\x83\xbe\xa0\x0e\xea\
          \xbd\xa0\x0e\xea\x3c\xfa\x8a\x2f\x3e\x0f\xea\xa0\x3e\xa1\x0e\xea\x3e\xcd\xcc\xcc\xbe\x3a\
          \xa8\x83\xbe\xa0\x0e\xea\xbd\xa0\x0e\xea\x3c\xfa\x8a\x2f\x3e\x0f\xea\xa0\x3e\xa1\x0e\xea\
          \x3e\xcd\xcc\xcc\xbe\x3a\xa8\x83\xbe\xa0\x0e\xea\xbd\xa0\x0e\xea\x3c\xfa\x8a\x2f\x3e\x0f\
          \xea\xa0\x3e\xa1\x0e\xea\x3e\xcd\xcc\xcc\xbe\x3a\xa8\x83\xbe\xa0\x0e\xea\xbd\xa0\x0e\xea\
          \x3c\xfa\x8a\x2f\x3e\x0f\xea\xa0\x3e\xa1\x0e\xea\x3e\xcd\xcc\xcc\xbe\x3a\xa8\x83\xbe\xa0\
          \x0e\xea\xbd\xa0\x0e\xea\x3c\xfa\x8a\x2f\x3e\x0f\xea\xa0\x3e\xa1\x0e\xea\x3e\xcd\xcc\xcc\
          \xbe\x3a\xa8\x83\xbe\xa0\x0e\xea\xbd\xa0\x0e\xea\x3c\xfa\x8a\x2f\x3e\x0f\xea\xa0\x3e\xa1\
          \x0e\xea\x3e\xcd\xcc\xcc\xbe\x3a\xa8\x83\xbe\xa0\x0e\xea\xbd\xa0\x0e\xea\x3c\xfa\x8a\x2f\
          \x3e\x0f\xea\xa0\x3e\xa1\x0e\xea\x3e\xcd\xcc\xcc\xbe\x3a\xa8\x83\xbe\xa0\x0e\xea\xbd\xa0\
          \x0e\xea\x3c\xfa\x8a\x2f\x3e\x0f\xea\xa0\x3e\xa1\x0e\xea\x3e\xcd\xcc\xcc\xbe\x3a\xa8\x83\
          \xbe\xa0\x0e\xea\xbd\xa0\x0e\xea\x3c\xfa\x8a\x2f\x3e\x0f\xea\xa0\x3e\xa1\x0e\xea\x3e\xcd\
          \xcc\xcc\xbe\x3a\xa8\x83\xbe\xa0\x0e\xea\xbd\xa0\x0e\xea\x3c\xfa\x8a\x2f\x3e\x0f\xea\xa0\
          \x3e\xa1\x0e\xea\x3e\xcd\xcc\xcc\xbe\x3a\xa8\x83\xbe\xa0\x0e\xea\xbd\xa0\x0e\xea\x3c\xfa\
          \x8a\x2f\x3e\x0f\xea\xa0\x3e\xa1\x0e\xea\x3e\xcd\xcc\xcc\xbe\x3a\xa8\x83\xbe\xa0\x0e\xea\
          \xbd\xa0\x0e\xea\x3c\xfa\x8a\x2f\x3e\x0f\xea\xa0\x3e\xa1\x0e\xea\x3e\xcd\xcc\xcc\xbe\x3a\
          \xa8\x83\xbe\xa0\x0e\xea\xbd\x42\x01\x77\x2a\x1a\x0a\x01\x04\x10\x01\x22\x10\xcd\xcc\xcc\
          \xbe\x3a\xa8\x83\xbe\xa0\x0e\xea\xbd\xa0\x0e\xea\x3c\x42\x01\x62\x2a\x0b\x0a\x01\x00\x10\
          \x07\x42\x04\x70\x61\x64\x73\x2a\x10\x0a\x01\x01\x10\x07\x3a\x01\x00\x42\x06\x73\x74\x61\
          \x72\x74\x73\x2a\x0e\x0a\x01\x01\x10\x07\x3a\x01\x02\x42\x04\x65\x6e\x64\x73\x2a\x0e\x0a\
          \x01\x01\x10\x07\x3a\x01\x01\x42\x04\x61\x78\x65\x73\x2a\x0f\x0a\x01\x01\x10\x07\x3a\x01\
          \x01\x42\x05\x73\x74\x65\x70\x73\x2a\x17\x0a\x01\x02\x10\x07\x3a\x0b\x00\xff\xff\xff\xff\
          \xff\xff\xff\xff\xff\x01\x42\x03\x69\x64\x78\x2a\x19\x0a\x01\x02\x10\x07\x3a\x0b\x01\xff\
          \xff\xff\xff\xff\xff\xff\xff\xff\x01\x42\x05\x73\x68\x61\x70\x65\x5a\x24\x0a\x01\x78\x12\
          \x1f\x0a\x1d\x08\x01\x12\x19\x0a\x02\x08\x01\x0a\x02\x08\x04\x0a\x02\x08\x08\x0a\x0b\x08\
          \xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\x62\x05\x0a\x03\x76\x31\x31\x42\x02\x10\x01",
    );
}

// ---------------------------------------------------------------------------------------------
// Opset 27's stateful sequence ops and the ai.onnx.preview domain

fn float_attr(name: &str, f: f32) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        r#type: AttributeType::Float as i32,
        f,
        ..Default::default()
    }
}

fn graph_attr(name: &str, g: GraphProto) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        r#type: AttributeType::Graph as i32,
        g: Some(g),
        ..Default::default()
    }
}

/// Deterministic values in (−1, 1).
fn values(rng: &mut Rng, n: usize) -> Vec<f64> {
    (0..n)
        .map(|_| (rng.below(2001) as f64 - 1000.0) / 1000.0)
        .collect()
}

fn assert_close(got: &[f64], want: &[f64], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: element count");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= 1e-4 + 1e-4 * w.abs(),
            "{what}: element {i} is {g}, expected {w}"
        );
    }
}

/// A CausalConvWithState node (outputs "y", "state") over graph inputs.
fn causal_conv(
    attrs: Vec<AttributeProto>,
    inputs: &[&str],
    graph_inputs: Vec<ValueInfoProto>,
) -> ModelProto {
    model(
        vec![with_attrs(
            node("CausalConvWithState", "n", inputs, &["y", "state"]),
            attrs,
        )],
        graph_inputs,
        &["y", "state"],
        vec![],
    )
}

#[test]
fn causal_conv_with_state_rejects_bad_attributes_and_shapes() {
    let x = || input("x", DataType::Float, &[1, 2, 5]);
    let w = |dims: &[i64]| input("w", DataType::Float, dims);
    let cases: Vec<(ModelProto, &[&str])> = vec![
        (
            causal_conv(
                vec![str_attr("activation", "relu")],
                &["x", "w"],
                vec![x(), w(&[2, 1, 3])],
            ),
            &["(CausalConvWithState, opset 17)", "'activation'", "'relu'"],
        ),
        (
            causal_conv(vec![], &["x", "w"], vec![x(), w(&[2, 2, 3])]),
            &["depthwise"],
        ),
        (
            causal_conv(vec![], &["x", "w"], vec![x(), w(&[3, 1, 3])]),
            &["depthwise"],
        ),
        (
            causal_conv(vec![], &["x", "w"], vec![x(), w(&[2, 3])]),
            &["rank 3"],
        ),
        (
            causal_conv(
                vec![],
                &["x", "w", "", "p"],
                vec![x(), w(&[2, 1, 3]), input("p", DataType::Float, &[1, 2, 3])],
            ),
            &["past_state", "k − 1"],
        ),
        (
            causal_conv(
                vec![],
                &["x", "w", "b"],
                vec![x(), w(&[2, 1, 3]), input("b", DataType::Float, &[3])],
            ),
            &["bias"],
        ),
        (
            causal_conv(
                vec![],
                &["x", "w"],
                vec![
                    input("x", DataType::Int32, &[1, 2, 5]),
                    input("w", DataType::Int32, &[2, 1, 3]),
                ],
            ),
            &["float"],
        ),
    ];
    for (m, parts) in cases {
        assert_mentions(&import_error(&m), parts);
    }
}

#[test]
fn causal_conv_with_state_matches_its_definition() {
    let (b, c, l, k) = (2usize, 3usize, 4usize, 3usize);
    let mut rng = Rng::new(0x5eed_c0a1);
    let (x, w) = (values(&mut rng, b * c * l), values(&mut rng, c * k));
    let (bias, past) = (values(&mut rng, c), values(&mut rng, b * c * (k - 1)));
    for silu in [false, true] {
        let attrs = if silu {
            vec![str_attr("activation", "swish")]
        } else {
            vec![]
        };
        let m = causal_conv(
            attrs,
            &["x", "w", "b", "p"],
            vec![
                input("x", DataType::Float, &[b as i64, c as i64, l as i64]),
                input("w", DataType::Float, &[c as i64, 1, k as i64]),
                input("b", DataType::Float, &[c as i64]),
                input("p", DataType::Float, &[b as i64, c as i64, k as i64 - 1]),
            ],
        );
        let out = run(
            &m,
            &[
                Literal::from_f64(DType::F32, &[b, c, l], &x),
                Literal::from_f64(DType::F32, &[c, 1, k], &w),
                Literal::from_f64(DType::F32, &[c], &bias),
                Literal::from_f64(DType::F32, &[b, c, k - 1], &past),
            ],
        );
        let (mut y, mut state) = (Vec::new(), Vec::new());
        for n in 0..b {
            for ch in 0..c {
                let joined: Vec<f64> = past[(n * c + ch) * (k - 1)..][..k - 1]
                    .iter()
                    .chain(&x[(n * c + ch) * l..][..l])
                    .copied()
                    .collect();
                for t in 0..l {
                    let mut s = bias[ch];
                    for j in 0..k {
                        s += w[ch * k + j] * joined[t + j];
                    }
                    y.push(if silu { s / (1.0 + (-s).exp()) } else { s });
                }
                state.extend_from_slice(&joined[l..]);
            }
        }
        assert_close(&out[0].to_f64_vec(), &y, "output");
        assert_close(&out[1].to_f64_vec(), &state, "present_state");
    }
}

/// A LinearAttention node (outputs "y", "state") over graph inputs.
fn linear_attention(
    attrs: Vec<AttributeProto>,
    inputs: &[&str],
    graph_inputs: Vec<ValueInfoProto>,
) -> ModelProto {
    model(
        vec![with_attrs(
            node("LinearAttention", "n", inputs, &["y", "state"]),
            attrs,
        )],
        graph_inputs,
        &["y", "state"],
        vec![],
    )
}

#[test]
fn linear_attention_rejects_bad_attributes_and_shapes() {
    let heads = || vec![int_attr("q_num_heads", 2), int_attr("kv_num_heads", 2)];
    let with = |extra: Vec<AttributeProto>| heads().into_iter().chain(extra).collect::<Vec<_>>();
    let qkv = || {
        vec![
            input("q", DataType::Float, &[1, 3, 8]),
            input("k", DataType::Float, &[1, 3, 8]),
            input("v", DataType::Float, &[1, 3, 8]),
        ]
    };
    let plus = |extra: ValueInfoProto| qkv().into_iter().chain([extra]).collect::<Vec<_>>();
    let cases: Vec<(ModelProto, &[&str])> = vec![
        (
            linear_attention(
                with(vec![str_attr("update_rule", "lstm")]),
                &["q", "k", "v"],
                qkv(),
            ),
            &["(LinearAttention, opset 17)", "'update_rule'", "'lstm'"],
        ),
        (
            linear_attention(
                vec![
                    int_attr("q_num_heads", 2),
                    str_attr("update_rule", "linear"),
                ],
                &["q", "k", "v"],
                qkv(),
            ),
            &["'kv_num_heads'", "required"],
        ),
        (
            linear_attention(
                vec![
                    int_attr("q_num_heads", 3),
                    int_attr("kv_num_heads", 2),
                    str_attr("update_rule", "linear"),
                ],
                &["q", "k", "v"],
                qkv(),
            ),
            &["multiple"],
        ),
        (
            linear_attention(
                with(vec![str_attr("update_rule", "gated")]),
                &["q", "k", "v"],
                qkv(),
            ),
            &["needs the decay input"],
        ),
        (
            linear_attention(
                with(vec![str_attr("update_rule", "linear")]),
                &["q", "k", "v", "", "", "beta"],
                plus(input("beta", DataType::Float, &[1, 3, 2])),
            ),
            &["takes no beta input"],
        ),
        (
            linear_attention(
                with(vec![str_attr("update_rule", "gated")]),
                &["q", "k", "v", "", "g"],
                plus(input("g", DataType::Float, &[1, 3, 3])),
            ),
            &["decay's last dim 3"],
        ),
        (
            linear_attention(
                with(vec![str_attr("update_rule", "delta")]),
                &["q", "k", "v", "", "", "beta"],
                plus(input("beta", DataType::Float, &[1, 3, 3])),
            ),
            &["beta's last dim 3"],
        ),
        (
            linear_attention(
                with(vec![str_attr("update_rule", "linear")]),
                &["q", "k", "v", "s"],
                plus(input("s", DataType::Float, &[1, 2, 4, 3])),
            ),
            &["past_state must be (B, H_kv, d_k, d_v) = (1, 2, 4, 4)"],
        ),
        (
            linear_attention(
                with(vec![str_attr("update_rule", "linear")]),
                &["q", "k", "v"],
                vec![
                    input("q", DataType::Float, &[1, 3, 8]),
                    input("k", DataType::Float, &[1, 3, 6]),
                    input("v", DataType::Float, &[1, 3, 8]),
                ],
            ),
            &["widths"],
        ),
        (
            linear_attention(
                with(vec![str_attr("update_rule", "linear")]),
                &["q", "k", "v"],
                vec![
                    input("q", DataType::Float, &[1, 4096, 2]),
                    input("k", DataType::Float, &[1, 4096, 2]),
                    input("v", DataType::Float, &[1, 4096, 2]),
                ],
            ),
            &["4096 tokens", "1024"],
        ),
    ];
    for (m, parts) in cases {
        assert_mentions(&import_error(&m), parts);
    }
}

/// The spec's recurrence, token by token: `[B, T, H·D]` inputs, a `[B, H_kv, d_k, d_v]` state.
#[allow(clippy::too_many_arguments)]
fn linear_attention_reference(
    (b, t, hq, hkv, dk, dv): (usize, usize, usize, usize, usize, usize),
    q: &[f64],
    k: &[f64],
    v: &[f64],
    past: &[f64],
    decay: &[f64],
    beta: &[f64],
    scale: f64,
) -> (Vec<f64>, Vec<f64>) {
    let mut s = past.to_vec();
    let mut y = vec![0.0; b * t * hq * dv];
    let group = hq / hkv;
    for n in 0..b {
        for i in 0..t {
            for h in 0..hkv {
                let st = &mut s[(n * hkv + h) * dk * dv..][..dk * dv];
                let kt = &k[(n * t + i) * hkv * dk + h * dk..][..dk];
                let vt = &v[(n * t + i) * hkv * dv + h * dv..][..dv];
                for d in 0..dk {
                    let g = decay[(n * t + i) * hkv * dk + h * dk + d].exp();
                    for m in 0..dv {
                        st[d * dv + m] *= g;
                    }
                }
                let bt = beta[(n * t + i) * hkv + h];
                let u: Vec<f64> = (0..dv)
                    .map(|m| {
                        let r: f64 = (0..dk).map(|d| st[d * dv + m] * kt[d]).sum();
                        bt * (vt[m] - r)
                    })
                    .collect();
                for d in 0..dk {
                    for m in 0..dv {
                        st[d * dv + m] += kt[d] * u[m];
                    }
                }
                for g in 0..group {
                    let hh = h * group + g;
                    let qt = &q[(n * t + i) * hq * dk + hh * dk..][..dk];
                    for m in 0..dv {
                        let o: f64 = (0..dk).map(|d| qt[d] * st[d * dv + m]).sum();
                        y[(n * t + i) * hq * dv + hh * dv + m] = scale * o;
                    }
                }
            }
        }
    }
    (y, s)
}

#[test]
fn linear_attention_gated_delta_matches_the_recurrence() {
    let dims @ (b, t, hq, hkv, dk, dv) = (2usize, 3usize, 4usize, 2usize, 3usize, 2usize);
    let mut rng = Rng::new(0x11ea_a77e);
    let q = values(&mut rng, b * t * hq * dk);
    let k = values(&mut rng, b * t * hkv * dk);
    let v = values(&mut rng, b * t * hkv * dv);
    let past = values(&mut rng, b * hkv * dk * dv);
    let decay: Vec<f64> = values(&mut rng, b * t * hkv * dk);
    let beta: Vec<f64> = values(&mut rng, b * t * hkv)
        .iter()
        .map(|x| x.abs())
        .collect();
    let (want_y, want_s) = linear_attention_reference(dims, &q, &k, &v, &past, &decay, &beta, 0.5);
    let i = |d: usize| d as i64;
    let m = linear_attention(
        vec![
            int_attr("q_num_heads", i(hq)),
            int_attr("kv_num_heads", i(hkv)),
            float_attr("scale", 0.5),
            int_attr("chunk_size", 2),
        ],
        &["q", "k", "v", "s", "g", "beta"],
        vec![
            input("q", DataType::Float, &[i(b), i(t), i(hq * dk)]),
            input("k", DataType::Float, &[i(b), i(t), i(hkv * dk)]),
            input("v", DataType::Float, &[i(b), i(t), i(hkv * dv)]),
            input("s", DataType::Float, &[i(b), i(hkv), i(dk), i(dv)]),
            input("g", DataType::Float, &[i(b), i(t), i(hkv * dk)]),
            input("beta", DataType::Float, &[i(b), i(t), i(hkv)]),
        ],
    );
    let out = run(
        &m,
        &[
            Literal::from_f64(DType::F32, &[b, t, hq * dk], &q),
            Literal::from_f64(DType::F32, &[b, t, hkv * dk], &k),
            Literal::from_f64(DType::F32, &[b, t, hkv * dv], &v),
            Literal::from_f64(DType::F32, &[b, hkv, dk, dv], &past),
            Literal::from_f64(DType::F32, &[b, t, hkv * dk], &decay),
            Literal::from_f64(DType::F32, &[b, t, hkv], &beta),
        ],
    );
    assert_close(&out[0].to_f64_vec(), &want_y, "output");
    assert_close(&out[1].to_f64_vec(), &want_s, "present_state");
}

/// A model of one `ai.onnx.preview` node, with that domain imported.
fn preview(op: &str, attrs: Vec<AttributeProto>, graph_inputs: Vec<ValueInfoProto>) -> ModelProto {
    let mut n = with_attrs(node(op, "n", &["q", "k", "v"], &["y"]), attrs);
    n.domain = "ai.onnx.preview".into();
    let mut m = model(vec![n], graph_inputs, &["y"], vec![]);
    m.opset_import.push(OperatorSetIdProto {
        domain: "ai.onnx.preview".into(),
        version: 1,
    });
    m
}

fn qkv4(q: &[i64], k: &[i64], v: &[i64]) -> Vec<ValueInfoProto> {
    vec![
        input("q", DataType::Float, q),
        input("k", DataType::Float, k),
        input("v", DataType::Float, v),
    ]
}

/// A one-input, one-output subgraph: `out = op(x, c)` with initializer `c` = `constant`.
fn modifier(op: &str, constant: f32) -> GraphProto {
    GraphProto {
        name: "mod".into(),
        node: vec![node(op, "", &["x", "c"], &["out"])],
        initializer: vec![f32_tensor("c", &[], &[constant])],
        input: vec![value_info("x", None)],
        output: vec![value_info("out", None)],
        ..Default::default()
    }
}

#[test]
fn preview_domain_and_flex_attention_reject_bad_models() {
    let shapes = || qkv4(&[1, 2, 3, 4], &[1, 2, 5, 4], &[1, 2, 5, 6]);
    let mut other_domain = preview("FlexAttention", vec![], shapes());
    other_domain.graph.as_mut().unwrap().node[0].domain = "ai.onnx.ml".into();
    let mut two_inputs = modifier("Add", 1.0);
    two_inputs.input.push(value_info("z", None));
    let mut reshaping = modifier("Add", 1.0);
    reshaping
        .node
        .push(node("ReduceSum", "", &["out"], &["sum"]));
    reshaping.output = vec![value_info("sum", None)];
    let mut undefined = modifier("Add", 1.0);
    undefined.node[0].input[1] = "nowhere".into();
    let cases: Vec<(ModelProto, &[&str])> = vec![
        (
            preview("Frobnicate", vec![], shapes()),
            &["operator ai.onnx.preview.Frobnicate is not supported"],
        ),
        (
            other_domain,
            &[
                "domain 'ai.onnx.ml'",
                "dlc imports ai.onnx, ai.onnx.preview, ai.onnx.preview.training and com.microsoft operators",
            ],
        ),
        (
            preview(
                "FlexAttention",
                vec![],
                qkv4(&[1, 2, 3, 4], &[1, 2, 5, 4], &[1, 2, 6, 6]),
            ),
            &["(FlexAttention, opset 17)", "sequence length"],
        ),
        (
            preview(
                "FlexAttention",
                vec![],
                qkv4(&[1, 3, 3, 4], &[1, 2, 5, 4], &[1, 2, 5, 6]),
            ),
            &["not a multiple"],
        ),
        (
            preview(
                "FlexAttention",
                vec![],
                qkv4(&[2, 3, 4], &[1, 2, 5, 4], &[1, 2, 5, 6]),
            ),
            &["rank 4"],
        ),
        (
            preview(
                "FlexAttention",
                vec![int_attr("softmax_precision", 7)],
                shapes(),
            ),
            &["'softmax_precision' is 7"],
        ),
        (
            preview(
                "FlexAttention",
                vec![graph_attr("score_mod", two_inputs)],
                shapes(),
            ),
            &["'score_mod'", "2 inputs"],
        ),
        (
            preview(
                "FlexAttention",
                vec![graph_attr("prob_mod", reshaping)],
                shapes(),
            ),
            &["'prob_mod' changes the shape"],
        ),
        (
            preview(
                "FlexAttention",
                vec![graph_attr("score_mod", undefined)],
                shapes(),
            ),
            &["'score_mod'", "'nowhere'"],
        ),
        (
            preview("FlexAttention", vec![int_attr("score_mod", 1)], shapes()),
            &["'score_mod' must be a graph"],
        ),
    ];
    for (m, parts) in cases {
        assert_mentions(&import_error(&m), parts);
    }
}

#[test]
fn flex_attention_applies_its_modifiers_and_gqa() {
    let (b, hq, hkv, l, s, e, ev) = (1usize, 4usize, 2usize, 3usize, 5usize, 4usize, 2usize);
    let mut rng = Rng::new(0xf1e8);
    let q = values(&mut rng, b * hq * l * e);
    let k = values(&mut rng, b * hkv * s * e);
    let v = values(&mut rng, b * hkv * s * ev);
    let i = |d: usize| d as i64;
    let m = preview(
        "FlexAttention",
        vec![
            float_attr("scale", 0.25),
            graph_attr("score_mod", modifier("Add", 0.5)),
            graph_attr("prob_mod", modifier("Mul", 2.0)),
        ],
        qkv4(
            &[i(b), i(hq), i(l), i(e)],
            &[i(b), i(hkv), i(s), i(e)],
            &[i(b), i(hkv), i(s), i(ev)],
        ),
    );
    let out = run(
        &m,
        &[
            Literal::from_f64(DType::F32, &[b, hq, l, e], &q),
            Literal::from_f64(DType::F32, &[b, hkv, s, e], &k),
            Literal::from_f64(DType::F32, &[b, hkv, s, ev], &v),
        ],
    );
    let mut want = Vec::new();
    for h in 0..hq {
        let kh = h / (hq / hkv);
        for r in 0..l {
            let scores: Vec<f64> = (0..s)
                .map(|c| {
                    let dot: f64 = (0..e)
                        .map(|d| q[(h * l + r) * e + d] * k[(kh * s + c) * e + d])
                        .sum();
                    dot * 0.25 + 0.5
                })
                .collect();
            let max = scores.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let exps: Vec<f64> = scores.iter().map(|x| (x - max).exp()).collect();
            let sum: f64 = exps.iter().sum();
            for m in 0..ev {
                let o: f64 = (0..s)
                    .map(|c| 2.0 * exps[c] / sum * v[(kh * s + c) * ev + m])
                    .sum();
                want.push(o);
            }
        }
    }
    assert_close(&out[0].to_f64_vec(), &want, "Y");
}

// ---------------------------------------------------------------------------------------------
// The ai.onnx.preview.training optimizers

/// One `ai.onnx.preview.training` node `op` named "opt", with `attrs`, over graph inputs R
/// (f32 scalar), T (i64 scalar) and, for each of `groups` (Adagrad: X, G, H), `n` f32 `[2, 3]`
/// tensors named `X1`, `X2`, ...; its outputs are `X1_new`, ... for each of `outputs`.
fn optimizer(
    op: &str,
    attrs: Vec<AttributeProto>,
    groups: &[&str],
    outputs: &[&str],
    n: usize,
) -> ModelProto {
    let mut inputs = vec![
        input("R", DataType::Float, &[]),
        input("T", DataType::Int64, &[]),
    ];
    for g in groups {
        inputs.extend((1..=n).map(|i| input(&format!("{g}{i}"), DataType::Float, &[2, 3])));
    }
    let names: Vec<String> = inputs.iter().map(|i| i.name.clone()).collect();
    let outs: Vec<String> = outputs
        .iter()
        .flat_map(|o| (1..=n).map(move |i| format!("{o}{i}_new")))
        .collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let outs: Vec<&str> = outs.iter().map(String::as_str).collect();
    let mut opt = with_attrs(node(op, "opt", &names, &outs), attrs);
    opt.domain = "ai.onnx.preview.training".into();
    let mut m = model(vec![opt], inputs, &outs, vec![]);
    m.opset_import.push(OperatorSetIdProto {
        domain: "ai.onnx.preview.training".into(),
        version: 1,
    });
    m
}

fn momentum_attrs(mode: &str) -> Vec<AttributeProto> {
    vec![
        float_attr("alpha", 0.9),
        float_attr("beta", 0.5),
        float_attr("norm_coefficient", 0.01),
        str_attr("mode", mode),
    ]
}

#[test]
fn training_optimizers_reject_bad_nodes() {
    let momentum = |attrs, n| optimizer("Momentum", attrs, &["X", "G", "V"], &["X", "V"], n);
    let mut extra_input = momentum(momentum_attrs("standard"), 1);
    extra_input.graph.as_mut().unwrap().node[0]
        .input
        .push("X1".into());
    let with_input = |mut m: ModelProto, name: &str, elem: DataType, dims: &[i64]| {
        let g = m.graph.as_mut().unwrap();
        let i = g.input.iter().position(|i| i.name == name).unwrap();
        g.input[i] = input(name, elem, dims);
        m
    };
    let cases: Vec<(ModelProto, &[&str])> = vec![
        (
            extra_input,
            &[
                "node 'opt' (Momentum, opset 17)",
                "the inputs must be R, T, then n of each of X, G, V (2 + 3·n inputs, n ≥ 1), not 6",
            ],
        ),
        (
            momentum(momentum_attrs("heavy-ball"), 2),
            &[
                "node 'opt' (Momentum, opset 17)",
                "attribute 'mode' must be standard or nesterov, not 'heavy-ball'",
            ],
        ),
        (
            momentum(momentum_attrs("standard")[1..].to_vec(), 1),
            &["node 'opt' (Momentum, opset 17)", "attribute 'alpha' is required"],
        ),
        (
            with_input(
                optimizer("Adagrad", vec![], &["X", "G", "H"], &["X", "H"], 1),
                "R",
                DataType::Float,
                &[1],
            ),
            &[
                "node 'opt' (Adagrad, opset 17)",
                "R (input #0) must be a rank-0 float or double tensor, not f32 of shape [1]",
            ],
        ),
        (
            with_input(
                optimizer("Adam", vec![], &["X", "G", "V", "H"], &["X", "V", "H"], 2),
                "T",
                DataType::Float,
                &[],
            ),
            &["(Adam, opset 17)", "T (input #1) must be a rank-0 int64 tensor, not f32"],
        ),
        (
            with_input(
                optimizer("Adam", vec![], &["X", "G", "V", "H"], &["X", "V", "H"], 2),
                "H2",
                DataType::Double,
                &[2, 3],
            ),
            &[
                "(Adam, opset 17)",
                "input #9 ('H2') is f64; X, G, V, H must be float or double tensors of one type (input #2 is f32)",
            ],
        ),
        (
            with_input(
                optimizer("Adagrad", vec![], &["X", "G", "H"], &["X", "H"], 1),
                "G1",
                DataType::Float,
                &[3],
            ),
            &[
                "(Adagrad, opset 17)",
                "input #3 ('G1') has shape [3], input #2 ('X1') [2, 3]: X, G, H of one tensor must have one shape",
            ],
        ),
        (
            optimizer(
                "Adagrad",
                vec![float_attr("learning_rate", 0.1)],
                &["X", "G", "H"],
                &["X", "H"],
                1,
            ),
            &["(Adagrad, opset 17)", "attribute 'learning_rate' is not supported"],
        ),
    ];
    for (m, parts) in cases {
        assert_mentions(&import_error(&m), parts);
    }
}

/// Runs optimizer model `m` (n = 2) on R = 0.1, T = `t` and, per input group, tensors from
/// `rng` (the last group non-negative: H, or V for Momentum, where it does not matter);
/// returns the groups given and the outputs.
fn run_optimizer(
    m: &ModelProto,
    groups: usize,
    t: i64,
    rng: &mut Rng,
) -> (Vec<Vec<f64>>, Vec<Vec<f64>>) {
    let mut given = Vec::new();
    let mut args = vec![
        Literal::from_f64(DType::F32, &[], &[0.1]),
        Literal::from_i64(DType::I64, &[], &[t]),
    ];
    for g in 0..groups * 2 {
        let mut v = values(rng, 6);
        if g >= (groups - 1) * 2 {
            v.iter_mut().for_each(|x| *x = x.abs());
        }
        args.push(Literal::from_f64(DType::F32, &[2, 3], &v));
        given.push(v);
    }
    let outs = run(m, &args).iter().map(Literal::to_f64_vec).collect();
    (given, outs)
}

#[test]
fn training_optimizers_follow_the_spec_with_runtime_r_and_t() {
    let mut rng = Rng::new(0x0971);
    let r = 0.1f32 as f64;
    let f = |v: f32| v as f64;
    for t in [0i64, 3] {
        let tf = t as f64;
        // Adagrad.
        let (decay, eps, norm) = (0.1f32, 1e-5f32, 0.01f32);
        let m = optimizer(
            "Adagrad",
            vec![
                float_attr("decay_factor", decay),
                float_attr("epsilon", eps),
                float_attr("norm_coefficient", norm),
            ],
            &["X", "G", "H"],
            &["X", "H"],
            2,
        );
        let (g, out) = run_optimizer(&m, 3, t, &mut rng);
        for i in 0..2 {
            let (mut xn, mut hn) = (Vec::new(), Vec::new());
            for ((&x, &gr), &h) in g[i].iter().zip(&g[2 + i]).zip(&g[4 + i]) {
                let gr = f(norm) * x + gr;
                let h = h + gr * gr;
                hn.push(h);
                xn.push(x - r / (1.0 + tf * f(decay)) * gr / (h.sqrt() + f(eps)));
            }
            assert_close(&out[i], &xn, &format!("Adagrad T={t} X{}_new", i + 1));
            assert_close(&out[2 + i], &hn, &format!("Adagrad T={t} H{}_new", i + 1));
        }
        // Adam.
        let (alpha, beta, eps, norm, post) = (0.9f32, 0.75f32, 1e-3f32, 0.01f32, 0.05f32);
        let m = optimizer(
            "Adam",
            vec![
                float_attr("alpha", alpha),
                float_attr("beta", beta),
                float_attr("epsilon", eps),
                float_attr("norm_coefficient", norm),
                float_attr("norm_coefficient_post", post),
            ],
            &["X", "G", "V", "H"],
            &["X", "V", "H"],
            2,
        );
        let (g, out) = run_optimizer(&m, 4, t, &mut rng);
        let (a, b) = (f(alpha), f(beta));
        let rate = if t > 0 {
            r * (1.0 - b.powi(t as i32)).sqrt() / (1.0 - a.powi(t as i32))
        } else {
            r
        };
        for i in 0..2 {
            let (mut xn, mut vn, mut hn) = (Vec::new(), Vec::new(), Vec::new());
            let states = g[4 + i].iter().zip(&g[6 + i]);
            for ((&x, &gr), (&v, &h)) in g[i].iter().zip(&g[2 + i]).zip(states) {
                let gr = f(norm) * x + gr;
                let v = a * v + (1.0 - a) * gr;
                let h = b * h + (1.0 - b) * gr * gr;
                xn.push((1.0 - f(post)) * (x - rate * v / (h.sqrt() + f(eps))));
                vn.push(v);
                hn.push(h);
            }
            assert_close(&out[i], &xn, &format!("Adam T={t} X{}_new", i + 1));
            assert_close(&out[2 + i], &vn, &format!("Adam T={t} V{}_new", i + 1));
            assert_close(&out[4 + i], &hn, &format!("Adam T={t} H{}_new", i + 1));
        }
        // Momentum, both modes: the gradient's coefficient is 1 at T = 0, beta after.
        for mode in ["standard", "nesterov"] {
            let m = optimizer(
                "Momentum",
                momentum_attrs(mode),
                &["X", "G", "V"],
                &["X", "V"],
                2,
            );
            let (g, out) = run_optimizer(&m, 3, t, &mut rng);
            let (alpha, beta) = (f(0.9), if t > 0 { f(0.5) } else { 1.0 });
            for i in 0..2 {
                let (mut xn, mut vn) = (Vec::new(), Vec::new());
                for ((&x, &gr), &v) in g[i].iter().zip(&g[2 + i]).zip(&g[4 + i]) {
                    let gr = f(0.01) * x + gr;
                    let v = alpha * v + beta * gr;
                    let direction = if mode == "nesterov" {
                        gr + alpha * v
                    } else {
                        v
                    };
                    xn.push(x - r * direction);
                    vn.push(v);
                }
                assert_close(
                    &out[i],
                    &xn,
                    &format!("Momentum {mode} T={t} X{}_new", i + 1),
                );
                assert_close(
                    &out[2 + i],
                    &vn,
                    &format!("Momentum {mode} T={t} V{}_new", i + 1),
                );
            }
        }
    }
}

#[test]
fn topk_orders_ties_by_index_and_rejects_bad_k() {
    let k = |v: i64| i64_tensor("k", &[1], &[v]);
    let topk = |attrs: Vec<AttributeProto>, kv: i64| {
        model(
            vec![with_attrs(
                node("TopK", "n", &["x", "k"], &["y", "i"]),
                attrs,
            )],
            vec![input("x", DataType::Float, &[2, 5])],
            &["y", "i"],
            vec![k(kv)],
        )
    };
    assert_mentions(
        &import_error(&topk(vec![], 6)),
        &["(TopK, opset 17)", "K = 6"],
    );
    assert_mentions(&import_error(&topk(vec![], -1)), &["K = -1"]);
    assert_mentions(
        &import_error(&topk(vec![int_attr("largest", 2)], 2)),
        &["'largest' (2)"],
    );
    assert_mentions(
        &import_error(&topk(vec![int_attr("axis", 2)], 2)),
        &["axis 2"],
    );
    let x = Literal::from_f64(
        DType::F32,
        &[2, 5],
        &[
            1.0,
            3.0,
            3.0,
            -0.0,
            f64::NEG_INFINITY,
            2.0,
            2.0,
            2.0,
            5.0,
            -1.0,
        ],
    );
    let out = run(&topk(vec![], 3), std::slice::from_ref(&x));
    assert_eq!(out[0].to_f64_vec(), [3.0, 3.0, 1.0, 5.0, 2.0, 2.0]);
    assert_eq!(out[1].to_i64_vec(), [1, 2, 0, 3, 0, 1]);
    let out = run(
        &topk(vec![int_attr("largest", 0), int_attr("axis", 0)], 1),
        std::slice::from_ref(&x),
    );
    assert_eq!(
        out[0].to_f64_vec(),
        [1.0, 2.0, 2.0, -0.0, f64::NEG_INFINITY]
    );
    assert_eq!(out[1].to_i64_vec(), [0, 1, 1, 0, 0]);
    let out = run(&topk(vec![], 0), &[x]);
    assert_eq!(out[0].shape(), [2, 0]);
}

/// A subgraph with typed inputs and outputs (f32 `[2]` unless given).
fn subgraph(
    nodes: Vec<NodeProto>,
    inputs: Vec<ValueInfoProto>,
    outputs: Vec<ValueInfoProto>,
) -> GraphProto {
    GraphProto {
        node: nodes,
        name: "body".into(),
        input: inputs,
        output: outputs,
        ..Default::default()
    }
}

/// A Loop that sums `x` into an accumulator three times and stacks each partial sum: the
/// carried value and the scan output both come out right, and the iteration number is bound.
#[test]
fn loop_unrolls_with_carried_values_and_scan_outputs() {
    let body = subgraph(
        vec![
            node("Add", "acc", &["a", "x"], &["a_next"]),
            node("Identity", "keep", &["c"], &["c_next"]),
            node("Cast", "i_f", &["i"], &["i_f"]),
            node("Add", "plus_i", &["a_next", "i_f"], &["scan"]),
        ]
        .into_iter()
        .map(|n| {
            if n.op_type == "Cast" {
                with_attrs(n, vec![int_attr("to", DataType::Float as i64)])
            } else {
                n
            }
        })
        .collect(),
        vec![
            input("i", DataType::Int64, &[]),
            input("c", DataType::Bool, &[]),
            input("a", DataType::Float, &[2]),
        ],
        vec![
            input("c_next", DataType::Bool, &[]),
            input("a_next", DataType::Float, &[2]),
            input("scan", DataType::Float, &[2]),
        ],
    );
    let m = model(
        vec![with_attrs(
            node("Loop", "loop", &["m", "", "a0"], &["sum", "partials"]),
            vec![graph_attr("body", body)],
        )],
        vec![input("x", DataType::Float, &[2])],
        &["sum", "partials"],
        vec![
            i64_tensor("m", &[], &[3]),
            f32_tensor("a0", &[2], &[0.0, 10.0]),
        ],
    );
    let (ctx, imported) = import_checked(&m, &ImportOptions::default()).expect("imports");
    let x = Literal::from_f64(DType::F32, &[2], &[1.0, 2.0]);
    let out = interpret(&ctx, imported.func, &[x]).expect("the interpreter runs");
    assert_eq!(out[0].to_f64_vec(), vec![3.0, 16.0]);
    assert_eq!(out[1].shape(), &[3, 2]);
    assert_eq!(out[1].to_f64_vec(), vec![1.0, 12.0, 3.0, 15.0, 5.0, 18.0]);
}

/// Loops that are not unrolled become `graph.loop`: a trip count of 2^40 costs nothing at
/// import, and a condition known only at run time is read then. A body that does not match
/// the node, or a carried value that changes rank, is an error at the node.
#[test]
fn loop_errors_are_clear() {
    let body = |inputs: usize, out: &[i64]| {
        subgraph(
            vec![
                node("Identity", "keep", &["c"], &["c_next"]),
                node("Identity", "same", &["a"], &["a_next"]),
            ],
            [
                input("i", DataType::Int64, &[]),
                input("c", DataType::Bool, &[]),
                input("a", DataType::Float, &[2]),
            ]
            .into_iter()
            .take(inputs)
            .collect(),
            vec![
                input("c_next", DataType::Bool, &[]),
                input("a_next", DataType::Float, out),
            ],
        )
    };
    let looped = |m: i64, body: GraphProto, cond: Option<&str>| {
        model(
            vec![with_attrs(
                node("Loop", "loop", &["m", cond.unwrap_or(""), "x"], &["y"]),
                vec![graph_attr("body", body)],
            )],
            vec![
                input("x", DataType::Float, &[2]),
                input("c", DataType::Bool, &[]),
            ],
            &["y"],
            vec![i64_tensor("m", &[], &[m])],
        )
    };
    assert_mentions(
        &import_error(&looped(2, body(2, &[2]), None)),
        &["node 'loop'", "the body takes 2 inputs"],
    );
    let x = Literal::from_f64(DType::F32, &[2], &[1.0, 2.0]);
    for (m, cond) in [(1 << 40, None), (2, Some("c"))] {
        let (ctx, imported) =
            import_checked(&looped(m, body(3, &[2]), cond), &ImportOptions::default())
                .expect("imports as graph.loop");
        let mut loops = 0;
        ctx.for_each_op(imported.func, &mut |op| {
            loops += usize::from(ctx.op_name(op) == "graph.loop")
        });
        assert_eq!(loops, 1);
        if cond.is_some() {
            // A false condition runs no iteration.
            let c = Literal::from_bools(&[], &[false]);
            let out = interpret(&ctx, imported.func, &[x.clone(), c]).expect("runs");
            assert_eq!(out[0].to_f64_vec(), vec![1.0, 2.0]);
        }
    }
    // A carried value whose rank changes cannot be a `graph.loop`; with more iterations than
    // can be unrolled it is an error naming both types.
    let reshaping = subgraph(
        vec![
            node("Identity", "keep", &["c"], &["c_next"]),
            with_attrs(
                node("Unsqueeze", "grow", &["a", "axes"], &["a_next"]),
                vec![],
            ),
        ],
        vec![
            input("i", DataType::Int64, &[]),
            input("c", DataType::Bool, &[]),
            input("a", DataType::Float, &[2]),
        ],
        vec![
            input("c_next", DataType::Bool, &[]),
            input("a_next", DataType::Float, &[2, 1]),
        ],
    );
    let mut m = looped(1 << 40, reshaping, None);
    m.graph
        .as_mut()
        .expect("a graph")
        .initializer
        .push(i64_tensor("axes", &[1], &[1]));
    assert_mentions(
        &import_error(&m),
        &["node 'loop'", "carried value #0 enters the body as 'tensor<2xf32>' and leaves it as 'tensor<2x1xf32>'"],
    );
}

/// An If whose condition is a graph input becomes `graph.if`; one whose condition folds imports
/// only the branch taken (the other may not even be importable).
/// An If branch that gives the constant `[v, v]`.
fn constant_branch(v: f32) -> GraphProto {
    let k = with_attrs(
        node("Constant", "k", &[], &["k"]),
        vec![AttributeProto {
            name: "value".into(),
            r#type: AttributeType::Tensor as i32,
            t: Some(f32_tensor("k", &[2], &[v, v])),
            ..Default::default()
        }],
    );
    subgraph(vec![k], vec![], vec![input("k", DataType::Float, &[2])])
}

/// An If branch that does not import (an unknown op).
fn broken_branch() -> GraphProto {
    subgraph(
        vec![node("NoSuchOp", "bad", &[], &["k"])],
        vec![],
        vec![input("k", DataType::Float, &[2])],
    )
}

#[test]
fn if_selects_or_folds() {
    let m = model(
        vec![with_attrs(
            node("If", "if", &["c"], &["y"]),
            vec![
                graph_attr("then_branch", constant_branch(1.0)),
                graph_attr("else_branch", constant_branch(2.0)),
            ],
        )],
        vec![input("c", DataType::Bool, &[])],
        &["y"],
        vec![],
    );
    let (ctx, imported) = import_checked(&m, &ImportOptions::default()).expect("imports");
    let c = Literal::from_bools(&[], &[false]);
    let out = interpret(&ctx, imported.func, &[c]).expect("the interpreter runs");
    assert_eq!(out[0].to_f64_vec(), vec![2.0, 2.0]);
    // A condition of several elements, or of a dynamic dim (found by the importer fuzzer: the
    // element count overflowed), is an error.
    for dims in [&[2][..], &[-1, 4]] {
        let mut bad = m.clone();
        bad.graph.as_mut().expect("a graph").input = vec![input("c", DataType::Bool, dims)];
        assert_mentions(
            &import_error(&bad),
            &["node 'if'", "the condition must be one boolean"],
        );
    }
    let folded = model(
        vec![with_attrs(
            node("If", "if", &["c"], &["y"]),
            vec![
                graph_attr("then_branch", constant_branch(1.0)),
                graph_attr("else_branch", broken_branch()),
            ],
        )],
        vec![],
        &["y"],
        vec![TensorProto {
            name: "c".into(),
            dims: vec![],
            data_type: DataType::Bool as i32,
            int32_data: vec![1],
            ..Default::default()
        }],
    );
    let (ctx, imported) = import_checked(&folded, &ImportOptions::default()).expect("imports");
    let out = interpret(&ctx, imported.func, &[]).expect("the interpreter runs");
    assert_eq!(out[0].to_f64_vec(), vec![1.0, 1.0]);
}

/// An If whose branch does not import (here an unknown op; in silero-vad, an 8 kHz network
/// given a 16 kHz input's shapes), with a condition computed from a graph input, asks for that
/// input's value; given it, only the branch taken is imported, and a taken branch that does
/// not import is an error about that branch.
#[test]
fn an_if_on_a_graph_input_with_a_branch_that_does_not_import_needs_the_input() {
    let m = model(
        vec![
            node("Equal", "is_16k", &["sr", "rate"], &["c"]),
            with_attrs(
                node("If", "if", &["c"], &["y"]),
                vec![
                    graph_attr("then_branch", constant_branch(1.0)),
                    graph_attr("else_branch", broken_branch()),
                ],
            ),
        ],
        vec![input("sr", DataType::Int64, &[])],
        &["y"],
        vec![i64_tensor("rate", &[], &[16000])],
    );
    match import_checked(&m, &ImportOptions::default()).map(|_| ()) {
        Err(ImportError::NeedsConstant { input, node, .. }) => {
            assert_eq!(input, "sr");
            assert!(node.contains("'if'"), "{node}");
        }
        other => panic!("expected NeedsConstant, got {other:?}"),
    }
    let given = |rate: i64| {
        let mut options = ImportOptions::default();
        options
            .constants
            .insert("sr".into(), Literal::from_i64(DType::I64, &[], &[rate]));
        import_checked(&m, &options)
    };
    let (ctx, imported) = given(16000).expect("imports the branch taken");
    let out = interpret(&ctx, imported.func, &[]).expect("the interpreter runs");
    assert_eq!(out[0].to_f64_vec(), vec![1.0, 1.0]);
    let error = given(8000)
        .map(|_| ())
        .expect_err("the branch taken does not import");
    assert_mentions(
        &error.to_string(),
        &["node 'if'", "else_branch", "NoSuchOp"],
    );
}

// ---------------------------------------------------------------------------------------------
// Signal, sampling and sequence operators

/// `m` with its `ai.onnx` opset set to `version`.
fn at_opset(mut m: ModelProto, version: i64) -> ModelProto {
    m.opset_import[0].version = version;
    m
}

#[test]
fn signal_sampling_and_sequence_ops_reject_bad_inputs() {
    let f = |name: &str, dims: &[i64]| input(name, DataType::Float, dims);
    let size = |v: i64| i64_tensor("size", &[], &[v]);
    let signal = || vec![f("x", &[1, 8, 1])];
    let scalar = |name: &str, v: i64| i64_tensor(name, &[], &[v]);
    let image = || vec![f("x", &[1, 1, 2, 4]), f("g", &[1, 3, 3, 2])];
    let cases: Vec<(ModelProto, &[&str])> = vec![
        (
            single(
                "HannWindow",
                vec![],
                &["size"],
                vec![input("size", DataType::Int64, &[])],
                vec![],
            ),
            &["(HannWindow, opset 17)", "'size' must be a constant"],
        ),
        (
            single("HannWindow", vec![], &["size"], vec![], vec![size(-1)]),
            &["size -1 is negative"],
        ),
        (
            single(
                "BlackmanWindow",
                vec![int_attr("periodic", 2)],
                &["size"],
                vec![],
                vec![size(4)],
            ),
            &["periodic 2"],
        ),
        (
            single(
                "HammingWindow",
                vec![],
                &["size"],
                vec![],
                vec![size(1 << 40)],
            ),
            &["a constant table of 1099511627776 elements"],
        ),
        (
            single(
                "HammingWindow",
                vec![int_attr("output_datatype", 9)],
                &["size"],
                vec![],
                vec![size(4)],
            ),
            &["not a numeric type"],
        ),
        (
            single(
                "MelWeightMatrix",
                vec![],
                &["bins", "len", "rate", "lo", "hi"],
                vec![],
                vec![
                    scalar("bins", 8),
                    scalar("len", 16),
                    scalar("rate", 8000),
                    f32_tensor("lo", &[], &[0.0]),
                    f32_tensor("hi", &[], &[16000.0]),
                ],
            ),
            &["outside the 9 bins"],
        ),
        (
            single("DFT", vec![int_attr("axis", -1)], &["x"], signal(), vec![]),
            &["axis -1 is outside"],
        ),
        (
            single("DFT", vec![], &["x"], vec![f("x", &[1, 8, 3])], vec![]),
            &["last dim must be 1 (real) or 2 (complex)"],
        ),
        (
            single("DFT", vec![], &["x", "n"], signal(), vec![scalar("n", 0)]),
            &["dft_length 0"],
        ),
        (
            single(
                "DFT",
                vec![],
                &["x", "n"],
                signal(),
                vec![scalar("n", 1 << 20)],
            ),
            &["constant table"],
        ),
        (
            single(
                "DFT",
                vec![int_attr("onesided", 3)],
                &["x"],
                signal(),
                vec![],
            ),
            &["onesided 3"],
        ),
        (
            single(
                "STFT",
                vec![],
                &["x", "step"],
                signal(),
                vec![scalar("step", 0)],
            ),
            &["frame_step 0"],
        ),
        (
            single(
                "STFT",
                vec![],
                &["x", "step", "", "len"],
                signal(),
                vec![scalar("step", 1), scalar("len", 9)],
            ),
            &["frame_length 9"],
        ),
        (
            single(
                "STFT",
                vec![],
                &["x", "step", "w", "len"],
                vec![f("x", &[1, 8, 1]), f("w", &[4])],
                vec![scalar("step", 1), scalar("len", 3)],
            ),
            &["differs from the window's length 4"],
        ),
        (
            single(
                "GridSample",
                vec![str_attr("mode", "area")],
                &["x", "g"],
                image(),
                vec![],
            ),
            &["(GridSample, opset 17)", "mode 'area'"],
        ),
        (
            single(
                "GridSample",
                vec![str_attr("padding_mode", "mirror")],
                &["x", "g"],
                image(),
                vec![],
            ),
            &["padding_mode 'mirror'"],
        ),
        (
            single(
                "GridSample",
                vec![int_attr("align_corners", 2)],
                &["x", "g"],
                image(),
                vec![],
            ),
            &["align_corners 2"],
        ),
        (
            single(
                "GridSample",
                vec![],
                &["x", "g"],
                vec![f("x", &[1, 1, 2, 4]), f("g", &[1, 3, 3, 3])],
                vec![],
            ),
            &["the grid must have shape"],
        ),
        (
            single(
                "GridSample",
                vec![],
                &["x", "g"],
                vec![
                    input("x", DataType::Int32, &[1, 1, 2, 4]),
                    f("g", &[1, 3, 3, 2]),
                ],
                vec![],
            ),
            &["need a float X"],
        ),
        (
            single(
                "AffineGrid",
                vec![],
                &["t", "size"],
                vec![f("t", &[1, 2, 3])],
                vec![i64_tensor("size", &[3], &[1, 1, 4])],
            ),
            &["size must have 4"],
        ),
        (
            single(
                "AffineGrid",
                vec![],
                &["t", "size"],
                vec![f("t", &[1, 2, 3])],
                vec![i64_tensor("size", &[5], &[1, 1, 2, 2, 2])],
            ),
            &["theta must have shape [1, 3, 4]"],
        ),
        (
            single(
                "RotaryEmbedding",
                vec![],
                &["x", "c", "s"],
                vec![f("x", &[1, 2, 8]), f("c", &[1, 2, 4]), f("s", &[1, 2, 4])],
                vec![],
            ),
            &["num_heads is required"],
        ),
        (
            single(
                "RotaryEmbedding",
                vec![int_attr("rotary_embedding_dim", 3)],
                &["x", "c", "s"],
                vec![
                    f("x", &[1, 1, 2, 8]),
                    f("c", &[1, 2, 1]),
                    f("s", &[1, 2, 1]),
                ],
                vec![],
            ),
            &["rotary_embedding_dim 3"],
        ),
        (
            single(
                "RotaryEmbedding",
                vec![],
                &["x", "c", "s"],
                vec![
                    f("x", &[1, 1, 2, 8]),
                    f("c", &[1, 2, 3]),
                    f("s", &[1, 2, 3]),
                ],
                vec![],
            ),
            &["cos_cache gives angles of shape [1, 2, 3]"],
        ),
        (
            single(
                "SwiGLU",
                vec![],
                &["a", "b"],
                vec![f("a", &[2, 3]), f("b", &[1, 3])],
                vec![],
            ),
            &["does not broadcast"],
        ),
        (
            single(
                "LRN",
                vec![int_attr("size", 0)],
                &["x"],
                image()[..1].to_vec(),
                vec![],
            ),
            &["size 0"],
        ),
        (
            single("LRN", vec![], &["x"], image()[..1].to_vec(), vec![]),
            &["'size' is required"],
        ),
        (
            single(
                "Col2Im",
                vec![],
                &["x", "img", "blk"],
                vec![f("x", &[1, 4, 5])],
                vec![
                    i64_tensor("img", &[2], &[3, 3]),
                    i64_tensor("blk", &[2], &[2, 2]),
                ],
            ),
            &["must be [N, C·4, 4]"],
        ),
        (
            single(
                "Col2Im",
                vec![ints_attr("strides", &[0, 1])],
                &["x", "img", "blk"],
                vec![f("x", &[1, 4, 4])],
                vec![
                    i64_tensor("img", &[2], &[3, 3]),
                    i64_tensor("blk", &[2], &[2, 2]),
                ],
            ),
            &["strides must be positive"],
        ),
        (
            single(
                "ReverseSequence",
                vec![int_attr("time_axis", 2)],
                &["x", "l"],
                vec![f("x", &[2, 2, 2]), input("l", DataType::Int64, &[2])],
                vec![],
            ),
            &["time_axis 2"],
        ),
        (
            single(
                "TensorScatter",
                vec![int_attr("axis", 0)],
                &["p", "u"],
                vec![f("p", &[2, 4]), f("u", &[2, 2])],
                vec![],
            ),
            &["axis must not be 0"],
        ),
        (
            single(
                "TensorScatter",
                vec![str_attr("mode", "ring")],
                &["p", "u"],
                vec![f("p", &[2, 4]), f("u", &[2, 2])],
                vec![],
            ),
            &["mode 'ring'"],
        ),
        (
            single(
                "TensorScatter",
                vec![],
                &["p", "u"],
                vec![f("p", &[2, 4, 1]), f("u", &[2, 5, 1])],
                vec![],
            ),
            &["at most as long"],
        ),
        (
            single("Det", vec![], &["x"], vec![f("x", &[2, 3])], vec![]),
            &["[..., n, n]"],
        ),
        (
            single("Det", vec![], &["x"], vec![f("x", &[65, 65])], vec![]),
            &["order 65"],
        ),
    ];
    for (m, parts) in cases {
        assert_mentions(&import_error(&m), parts);
    }
}

/// The naive DFT of complex `x` (pairs) of `n` points (zero-padded or truncated), as f64.
fn naive_dft(x: &[(f64, f64)], n: usize, inverse: bool) -> Vec<(f64, f64)> {
    let sign = if inverse { 1.0 } else { -1.0 };
    let scale = if inverse { 1.0 / n as f64 } else { 1.0 };
    (0..n)
        .map(|k| {
            let (mut re, mut im) = (0.0, 0.0);
            for (j, (xr, xi)) in x.iter().take(n).enumerate() {
                let t = sign * 2.0 * std::f64::consts::PI * (j * k) as f64 / n as f64;
                re += xr * t.cos() - xi * t.sin();
                im += xr * t.sin() + xi * t.cos();
            }
            (re * scale, im * scale)
        })
        .collect()
}

/// DFT against a naive transform: complex and real input, zero-padding and truncation by
/// dft_length, the inverse, onesided output, the axis as an input (opset 20), and an
/// inverse of a onesided spectrum of odd length.
#[test]
fn dft_matches_the_naive_transform() {
    let values: Vec<(f64, f64)> = (0..5)
        .map(|i| (((i * 7) % 5) as f64 - 1.5, ((i * 3) % 4) as f64 * 0.5))
        .collect();
    let flat: Vec<f64> = values.iter().flat_map(|(r, i)| [*r, *i]).collect();
    let complex = Literal::from_f64(DType::F32, &[1, 5, 2], &flat);
    let close = |got: &[f64], want: &[f64]| {
        assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() < 1e-4, "{got:?} vs {want:?}");
        }
    };
    for (n, inverse, onesided) in [(5, 0, 0), (7, 0, 0), (3, 1, 0), (8, 0, 1), (6, 1, 0)] {
        let m = single(
            "DFT",
            vec![int_attr("inverse", inverse), int_attr("onesided", onesided)],
            &["x", "n"],
            vec![input("x", DataType::Float, &[1, 5, 2])],
            vec![i64_tensor("n", &[], &[n])],
        );
        let got = run(&m, std::slice::from_ref(&complex))[0].to_f64_vec();
        let mut want = naive_dft(&values, n as usize, inverse == 1);
        if onesided == 1 {
            want.truncate(n as usize / 2 + 1);
        }
        let want: Vec<f64> = want.iter().flat_map(|(r, i)| [*r, *i]).collect();
        close(&got, &want);
    }
    // Real input along axis 0 of [4, 2, 1], the axis given as an input (opset 20).
    let real: Vec<f64> = (0..8).map(|i| (i as f64 * 1.3).sin()).collect();
    let m = at_opset(
        single(
            "DFT",
            vec![],
            &["x", "", "axis"],
            vec![input("x", DataType::Float, &[4, 2, 1])],
            vec![i64_tensor("axis", &[], &[-3])],
        ),
        20,
    );
    let got = run(&m, &[Literal::from_f64(DType::F32, &[4, 2, 1], &real)])[0].to_f64_vec();
    for col in 0..2 {
        let signal: Vec<(f64, f64)> = (0..4).map(|r| (real[r * 2 + col], 0.0)).collect();
        let want = naive_dft(&signal, 4, false);
        for (k, (re, im)) in want.iter().enumerate() {
            let at = (k * 2 + col) * 2;
            close(&got[at..at + 2], &[*re, *im]);
        }
    }
    // The inverse of a onesided spectrum of 5 points (3 bins) is the real signal.
    let signal: Vec<(f64, f64)> = (0..5).map(|i| ((i as f64 * 0.7).cos(), 0.0)).collect();
    let spectrum: Vec<f64> = naive_dft(&signal, 5, false)[..3]
        .iter()
        .flat_map(|(r, i)| [*r, *i])
        .collect();
    let m = single(
        "DFT",
        vec![int_attr("inverse", 1), int_attr("onesided", 1)],
        &["x", "n"],
        vec![input("x", DataType::Float, &[1, 3, 2])],
        vec![i64_tensor("n", &[], &[5])],
    );
    let got = run(&m, &[Literal::from_f64(DType::F32, &[1, 3, 2], &spectrum)])[0].to_f64_vec();
    let want: Vec<f64> = signal.iter().map(|(r, _)| *r).collect();
    close(&got, &want);
}

/// The values of the ONNX reference (onnx 1.23 `ReferenceEvaluator`) for a 2×4 image
/// (1…8) sampled at 7 points, inside, on the corners and far outside (several reflections),
/// in every mode, padding mode and alignment.
const GRID_SAMPLE_EXPECTED: [(&str, &str, i64, [f64; 7]); 18] = [
    ("nearest", "zeros", 0, [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 5.0]),
    ("nearest", "zeros", 1, [1.0, 8.0, 0.0, 0.0, 0.0, 0.0, 6.0]),
    ("nearest", "border", 0, [1.0, 8.0, 8.0, 1.0, 8.0, 3.0, 5.0]),
    ("nearest", "border", 1, [1.0, 8.0, 8.0, 1.0, 8.0, 3.0, 6.0]),
    (
        "nearest",
        "reflection",
        0,
        [1.0, 8.0, 6.0, 4.0, 7.0, 7.0, 5.0],
    ),
    (
        "nearest",
        "reflection",
        1,
        [1.0, 8.0, 7.0, 4.0, 7.0, 7.0, 6.0],
    ),
    (
        "linear",
        "zeros",
        0,
        [0.25, 2.0, 0.0, 0.0, 0.0, 0.0, 3.240000009536743],
    ),
    (
        "linear",
        "zeros",
        1,
        [
            1.0,
            8.0,
            0.0,
            0.0,
            0.0,
            0.5900001525878906,
            5.475000381469727,
        ],
    ),
    (
        "linear",
        "border",
        0,
        [
            1.0,
            8.0,
            7.199999809265137,
            2.200000047683716,
            8.0,
            3.0999999046325684,
            5.399999618530273,
        ],
    ),
    (
        "linear",
        "border",
        1,
        [
            1.0,
            8.0,
            6.599999904632568,
            2.5999999046325684,
            8.0,
            2.950000047683716,
            5.475000381469727,
        ],
    ),
    (
        "linear",
        "reflection",
        0,
        [
            1.0,
            8.0,
            5.699999809265137,
            5.199999809265137,
            5.699999809265137,
            7.100000381469727,
            5.399999618530273,
        ],
    ),
    (
        "linear",
        "reflection",
        1,
        [
            1.0,
            8.0,
            5.099999904632568,
            5.600000381469727,
            5.099999904632568,
            6.149999618530273,
            5.475000381469727,
        ],
    ),
    (
        "cubic",
        "zeros",
        0,
        [0.015625, 2.234375, 0.0, 0.0, 0.0, 0.0, 4.062526702880859],
    ),
    (
        "cubic",
        "zeros",
        1,
        [
            1.0,
            8.0,
            -0.7307226657867432,
            0.0,
            0.0,
            0.4194403886795044,
            5.885758876800537,
        ],
    ),
    (
        "cubic",
        "border",
        0,
        [
            0.53125,
            8.46875,
            7.296001434326172,
            2.116000175476074,
            8.0,
            3.142749786376953,
            5.7479963302612305,
        ],
    ),
    (
        "cubic",
        "border",
        1,
        [
            1.0,
            8.0,
            6.668251037597656,
            2.5519986152648926,
            8.0,
            2.928624391555786,
            5.425889015197754,
        ],
    ),
    (
        "cubic",
        "reflection",
        0,
        [
            0.0625,
            8.9375,
            5.796000957489014,
            5.303501129150391,
            5.796000957489014,
            7.412749767303467,
            6.03599739074707,
        ],
    ),
    (
        "cubic",
        "reflection",
        1,
        [
            1.0,
            8.0,
            5.3730010986328125,
            5.407998561859131,
            5.3730010986328125,
            6.512624740600586,
            5.500663757324219,
        ],
    ),
];

#[test]
fn grid_sample_matches_the_reference_far_outside() {
    let grid = [
        -1.0, -1.0, 1.0, 1.0, 2.0, 0.3, -3.0, -0.2, 4.0, 1.7, 0.3, -2.6, -0.55, 0.9,
    ];
    let x: Vec<f64> = (1..=8).map(f64::from).collect();
    for (mode, padding, align, want) in GRID_SAMPLE_EXPECTED {
        let m = single(
            "GridSample",
            vec![
                str_attr("mode", mode),
                str_attr("padding_mode", padding),
                int_attr("align_corners", align),
            ],
            &["x", "g"],
            vec![
                input("x", DataType::Float, &[1, 1, 2, 4]),
                input("g", DataType::Float, &[1, 1, 7, 2]),
            ],
            vec![],
        );
        let got = run(
            &m,
            &[
                Literal::from_f64(DType::F32, &[1, 1, 2, 4], &x),
                Literal::from_f64(DType::F32, &[1, 1, 7, 2], &grid),
            ],
        )[0]
        .to_f64_vec();
        for (g, w) in got.iter().zip(want) {
            assert!(
                (g - w).abs() < 1e-4,
                "{mode}/{padding}/align {align}: {got:?} vs {want:?}"
            );
        }
    }
}

/// TensorScatter wraps a circular write past the end and drops nothing else; Det of a
/// singular matrix is 0 (no NaN from the zero pivot) and of a permutation its sign;
/// ReverseSequence treats a length past the axis as the axis.
#[test]
fn scatter_det_and_reverse_edge_cases() {
    let scatter = |mode: &str, u: &[f64], w: &[i64]| {
        let s = u.len() as i64 / 2;
        let m = single(
            "TensorScatter",
            vec![str_attr("mode", mode), int_attr("axis", 1)],
            &["p", "u", "w"],
            vec![
                input("p", DataType::Float, &[2, 4]),
                input("u", DataType::Float, &[2, s]),
            ],
            vec![i64_tensor("w", &[2], w)],
        );
        let p = Literal::from_f64(DType::F32, &[2, 4], &[0.0; 8]);
        let u = Literal::from_f64(DType::F32, &[2, s as usize], u);
        run(&m, &[p, u])[0].to_f64_vec()
    };
    assert_eq!(
        scatter("circular", &[1.0, 2.0, 3.0, 5.0, 6.0, 7.0], &[2, 5]),
        [3.0, 0.0, 1.0, 2.0, 0.0, 5.0, 6.0, 7.0]
    );
    assert_eq!(
        scatter("linear", &[1.0, 2.0, 5.0, 6.0], &[1, 0]),
        [0.0, 1.0, 2.0, 0.0, 5.0, 6.0, 0.0, 0.0]
    );
    let det = |values: &[f64]| {
        let m = single(
            "Det",
            vec![],
            &["x"],
            vec![input("x", DataType::Float, &[3, 3])],
            vec![],
        );
        run(&m, &[Literal::from_f64(DType::F32, &[3, 3], values)])[0].to_f64_vec()[0]
    };
    assert_eq!(det(&[1.0, 2.0, 3.0, 2.0, 4.0, 6.0, 0.0, 1.0, 5.0]), 0.0);
    assert_eq!(det(&[0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]), 1.0);
    assert_eq!(det(&[0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0]), -1.0);
    assert!((det(&[2.0, 1.0, 0.0, 1.0, 3.0, 1.0, 0.0, 1.0, 4.0]) - 18.0).abs() < 1e-5);
    let m = single(
        "ReverseSequence",
        vec![int_attr("batch_axis", 0), int_attr("time_axis", 1)],
        &["x", "l"],
        vec![input("x", DataType::Float, &[2, 3])],
        vec![i64_tensor("l", &[2], &[7, 2])],
    );
    let x = Literal::from_f64(DType::F32, &[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    assert_eq!(
        run(&m, &[x])[0].to_f64_vec(),
        [3.0, 2.0, 1.0, 5.0, 4.0, 6.0]
    );
}

/// NonZero, Compress and Unique have outputs sized by the data: they need static input shapes
/// (a clear error otherwise), and a condition longer than the axis, or not boolean, is refused.
/// What imports runs in the interpreter with the run-time sizes.
#[test]
fn data_dependent_sizes_need_static_inputs() {
    let f = |name: &str, dims: &[i64]| input(name, DataType::Float, dims);
    let cond = |dims: &[i64]| input("c", DataType::Bool, dims);
    let cases: Vec<(ModelProto, &[&str])> = vec![
        (
            single("NonZero", vec![], &["x"], vec![f("x", &[-1, 3])], vec![]),
            &[
                "(NonZero, opset 17)",
                "NonZero needs a static shape, and this input's is ?x3",
            ],
        ),
        (
            single("Unique", vec![], &["x"], vec![f("x", &[2, -1])], vec![]),
            &[
                "(Unique, opset 17)",
                "Unique needs a static shape, and this input's is 2x?",
            ],
        ),
        (
            single(
                "Compress",
                vec![int_attr("axis", 0)],
                &["x", "c"],
                vec![f("x", &[2, 3]), cond(&[3])],
                vec![],
            ),
            &["the condition has 3 entries, more than the 2 slices along the axis"],
        ),
        (
            single(
                "Compress",
                vec![int_attr("axis", 1)],
                &["x", "c"],
                vec![f("x", &[2, 3]), f("c", &[3])],
                vec![],
            ),
            &["the condition must be boolean"],
        ),
        (
            single(
                "Compress",
                vec![int_attr("axis", 1)],
                &["x", "c"],
                vec![f("x", &[2, 3]), cond(&[-1])],
                vec![],
            ),
            &["the condition must be a 1-D tensor of static length"],
        ),
    ];
    for (m, parts) in cases {
        assert_mentions(&import_error(&m), parts);
    }
    // A condition shorter than the axis drops the slices past it.
    let m = single(
        "Compress",
        vec![int_attr("axis", 1)],
        &["x", "c"],
        vec![f("x", &[2, 3]), cond(&[2])],
        vec![],
    );
    let x = Literal::from_f64(DType::F32, &[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let out = run(&m, &[x, Literal::from_bools(&[2], &[false, true])]);
    assert_eq!(out[0].shape(), &[2, 1]);
    assert_eq!(out[0].to_f64_vec(), vec![2.0, 5.0]);
    // No element nonzero: an empty [rank, 0] result.
    let m = single("NonZero", vec![], &["x"], vec![f("x", &[2, 2])], vec![]);
    let out = run(&m, &[Literal::from_f64(DType::F32, &[2, 2], &[0.0; 4])]);
    assert_eq!(out[0].shape(), &[2, 0]);
}

/// NonMaxSuppression needs static boxes and scores of matching shapes, float data and scalar
/// thresholds; a model without a maximum output count selects nothing.
#[test]
fn non_max_suppression_rejects_bad_inputs() {
    let f = |name: &str, dims: &[i64]| input(name, DataType::Float, dims);
    let nms = |inputs: Vec<ValueInfoProto>, names: &[&str], attrs: Vec<AttributeProto>| {
        single("NonMaxSuppression", attrs, names, inputs, vec![])
    };
    let cases: Vec<(ModelProto, &[&str])> = vec![
        (
            nms(
                vec![f("b", &[1, -1, 4]), f("s", &[1, 2, 3])],
                &["b", "s"],
                vec![],
            ),
            &["boxes must have the static shape [batches, boxes, 4]"],
        ),
        (
            nms(
                vec![f("b", &[1, 3, 4]), f("s", &[1, 2, 4])],
                &["b", "s"],
                vec![],
            ),
            &["scores must have the static shape [1, classes, 3]"],
        ),
        (
            nms(
                vec![f("b", &[1, 3, 4]), f("s", &[1, 2, 3])],
                &["b", "s"],
                vec![int_attr("center_point_box", 2)],
            ),
            &["attribute 'center_point_box' must be 0 or 1, not 2"],
        ),
        (
            nms(
                vec![f("b", &[1, 3, 4]), f("s", &[1, 2, 3]), f("m", &[2])],
                &["b", "s", "m"],
                vec![],
            ),
            &["input #2 must hold one value"],
        ),
        (
            nms(
                vec![f("b", &[1, 3, 4]), f("s", &[1, 2, 3]), f("m", &[1])],
                &["b", "s", "m"],
                vec![],
            ),
            &["input #2 has the wrong element type"],
        ),
    ];
    for (m, parts) in cases {
        assert_mentions(&import_error(&m), parts);
    }
    let m = nms(
        vec![f("b", &[1, 2, 4]), f("s", &[1, 1, 2])],
        &["b", "s"],
        vec![],
    );
    let boxes = Literal::from_f64(
        DType::F32,
        &[1, 2, 4],
        &[0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 2.0, 2.0],
    );
    let scores = Literal::from_f64(DType::F32, &[1, 1, 2], &[0.9, 0.8]);
    let out = run(&m, &[boxes, scores]);
    assert_eq!(out[0].shape(), &[0, 3]);
}

/// Shapes computed from `?` dims (`Shape` of a dynamic input feeding Reshape, Expand and
/// ConstantOfShape) import with run-time sizes; what cannot be computed that way is an error
/// at the node: two −1 entries, a static dim that cannot be expanded, a negative dim, and a
/// shape read from a graph input's data. What imports runs in the interpreter at two sizes.
#[test]
fn shapes_computed_from_dynamic_dims() {
    let f = |name: &str, dims: &[i64]| input(name, DataType::Float, dims);
    // `op(x, Concat(Shape(x), tail))`.
    let shape_then = |op: &str, x_dims: &[i64], tail: &[i64]| {
        model(
            vec![
                node("Shape", "shape", &["x"], &["s"]),
                with_attrs(
                    node("Concat", "cat", &["s", "tail"], &["t"]),
                    vec![int_attr("axis", 0)],
                ),
                node(op, "n", &["x", "t"], &["y"]),
            ],
            vec![f("x", x_dims)],
            &["y"],
            vec![i64_tensor("tail", &[tail.len() as i64], tail)],
        )
    };
    let cases: Vec<(ModelProto, &[&str])> = vec![
        (
            shape_then("Reshape", &[-1, 4], &[-1, -1]),
            &[
                "(Reshape, opset 17)",
                "shape [?, 4, -1, -1]",
                "more than one -1",
            ],
        ),
        (
            shape_then("Expand", &[-1, 3], &[5]),
            &["(Expand, opset 17)", "cannot expand a dim of 3 to 5"],
        ),
        (
            single(
                "Reshape",
                vec![],
                &["x", "s"],
                vec![f("x", &[-1, 4]), input("s", DataType::Int64, &[2])],
                vec![],
            ),
            &["(Reshape, opset 17)", "'s'"],
        ),
    ];
    for (m, parts) in cases {
        assert_mentions(&import_error(&m), parts);
    }
    let negative = model(
        vec![
            node("Shape", "shape", &["x"], &["s"]),
            with_attrs(
                node("Concat", "cat", &["s", "tail"], &["t"]),
                vec![int_attr("axis", 0)],
            ),
            node("ConstantOfShape", "n", &["t"], &["y"]),
        ],
        vec![f("x", &[-1])],
        &["y"],
        vec![i64_tensor("tail", &[1], &[-2])],
    );
    assert_mentions(
        &import_error(&negative),
        &["(ConstantOfShape, opset 17)", "negative dim -2"],
    );
    // Reshape(x, Concat(Shape(x), [1])) and Expand(row, Shape(x)) at two sizes.
    for n in [1usize, 5] {
        let m = shape_then("Reshape", &[-1, 4], &[1]);
        let x = Literal::from_f64(DType::F32, &[n, 4], &vec![1.5; n * 4]);
        let y = run(&m, &[x]);
        assert_eq!(y[0].shape(), [n, 4, 1]);
        let m = model(
            vec![
                node("Shape", "shape", &["x"], &["s"]),
                node("Expand", "n", &["row", "s"], &["y"]),
            ],
            vec![f("x", &[-1, 3]), f("row", &[1, 3])],
            &["y"],
            vec![],
        );
        let x = Literal::from_f64(DType::F32, &[n, 3], &vec![0.0; n * 3]);
        let row = Literal::from_f64(DType::F32, &[1, 3], &[1.0, 2.0, 3.0]);
        let y = run(&m, &[x, row]);
        assert_eq!(y[0].shape(), [n, 3]);
        assert_eq!(y[0].to_f64_vec()[..3], [1.0, 2.0, 3.0]);
    }
}

/// A transpose and a reshape of initializers (a recurrent layer's weights are reordered so)
/// fold into constants at import, their bytes moved: no op is left of them, and the values are
/// the transposed ones.
#[test]
fn transposed_and_reshaped_initializers_fold() {
    let w: Vec<f32> = (0..24).map(|i| i as f32).collect();
    let m = model(
        vec![
            with_attrs(
                node("Transpose", "t", &["w"], &["wt"]),
                vec![ints_attr("perm", &[2, 0, 1])],
            ),
            node("Reshape", "r", &["wt", "shape"], &["wr"]),
            node("Add", "add", &["wr", "x"], &["y"]),
        ],
        vec![input("x", DataType::Float, &[4, 6])],
        &["y"],
        vec![
            f32_tensor("w", &[2, 3, 4], &w),
            i64_tensor("shape", &[2], &[4, 6]),
        ],
    );
    let (ctx, imported) = import_checked(&m, &ImportOptions::default()).expect("imports");
    let mut movement = 0;
    ctx.for_each_op(imported.func, &mut |op| {
        movement += usize::from(matches!(
            ctx.op_name(op),
            "graph.transpose" | "graph.reshape"
        ));
    });
    assert_eq!(
        movement, 0,
        "the transpose and reshape of constants are folded"
    );
    let x = Literal::from_f64(DType::F32, &[4, 6], &[0.5; 24]);
    let out = interpret(&ctx, imported.func, &[x]).expect("the interpreter runs");
    // wt[k][i][j] = w[i][j][k] = 12i + 4j + k, read row-major as [4, 6].
    let mut expected = Vec::new();
    for k in 0..4 {
        for i in 0..2 {
            for j in 0..3 {
                expected.push((12 * i + 4 * j + k) as f64 + 0.5);
            }
        }
    }
    assert_eq!(out[0].to_f64_vec(), expected);
}

/// A transpose of an initializer larger than the importer folds by value (Gemm's `transB` of
/// a classifier's weights) is moved too, rather than left to a kernel at every run; a reshape
/// that large stays an op (it costs nothing at run time).
#[test]
fn large_transposed_initializers_are_moved() {
    let (rows, cols) = (2049usize, 2049usize);
    // More elements than the importer folds by value (2^22).
    assert!(rows * cols > 1 << 22);
    let bytes: Vec<u8> = (0..rows * cols).map(|i| (i % 251) as u8).collect();
    let w = TensorProto {
        name: "w".into(),
        dims: vec![rows as i64, cols as i64],
        data_type: DataType::Int8 as i32,
        raw_data: bytes.clone().into(),
        ..Default::default()
    };
    let m = model(
        vec![
            node("Transpose", "t", &["w"], &["wt"]),
            node("Reshape", "r", &["w", "flat"], &["wr"]),
        ],
        vec![],
        &["wt", "wr"],
        vec![w, i64_tensor("flat", &[1], &[-1])],
    );
    let (ctx, imported) = import_checked(&m, &ImportOptions::default()).expect("imports");
    let mut ops = Vec::new();
    ctx.for_each_op(imported.func, &mut |op| {
        ops.push(ctx.op_name(op).to_string())
    });
    assert!(!ops.iter().any(|o| o == "graph.transpose"), "{ops:?}");
    assert!(ops.iter().any(|o| o == "graph.reshape"), "{ops:?}");
    let out = interpret(&ctx, imported.func, &[]).expect("the interpreter runs");
    let wt = out[0].to_f64_vec();
    for (i, j) in [(0, 0), (1, 0), (0, 1), (2048, 7), (5, 2048), (2048, 2048)] {
        assert_eq!(
            wt[j * rows + i],
            f64::from(bytes[i * cols + j] as i8),
            "({i}, {j})"
        );
    }
}
