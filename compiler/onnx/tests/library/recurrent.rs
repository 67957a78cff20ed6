//! What the importer does with LSTM, GRU and RNN nodes: a good one imports to a projection GEMM
//! and one `graph.rnn`, verifies and runs in the graph interpreter; each bad attribute or
//! input shape ends in an [`dlc_onnx::ImportError`] naming the node and what is wrong, never
//! in a panic (the robustness.rs style, for the recurrent operators).

use dlc_graph::interp::interpret;
use dlc_ir::Context;
use dlc_onnx::proto::{
    AttributeProto, AttributeType, DataType, GraphProto, ModelProto, NodeProto, OperatorSetIdProto,
    TensorProto, ValueInfoProto,
};
use dlc_onnx::{import_model, ImportOptions, Imported};
use dlc_tensor::{DType, Literal};

fn context() -> Context {
    let mut ctx = Context::new();
    dlc_dialects::register_all_dialects(&mut ctx);
    ctx
}

fn value_info(name: &str, dims: Option<&[i64]>) -> ValueInfoProto {
    crate::robustness::value_info(name, dims.map(|dims| (DataType::Float, dims)))
}

fn weights(name: &str, dims: &[i64]) -> TensorProto {
    let n: i64 = dims.iter().product();
    TensorProto {
        name: name.into(),
        dims: dims.to_vec(),
        data_type: DataType::Float as i32,
        float_data: (0..n).map(|i| ((i % 7) as f32 - 3.0) * 0.1).collect(),
        ..Default::default()
    }
}

fn attr(name: &str, kind: AttributeType) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        r#type: kind as i32,
        ..Default::default()
    }
}

fn int_attr(name: &str, i: i64) -> AttributeProto {
    AttributeProto {
        i,
        ..attr(name, AttributeType::Int)
    }
}

fn float_attr(name: &str, f: f32) -> AttributeProto {
    AttributeProto {
        f,
        ..attr(name, AttributeType::Float)
    }
}

fn string_attr(name: &str, s: &str) -> AttributeProto {
    AttributeProto {
        s: s.as_bytes().to_vec(),
        ..attr(name, AttributeType::String)
    }
}

fn strings_attr(name: &str, list: &[&str]) -> AttributeProto {
    AttributeProto {
        strings: list.iter().map(|s| s.as_bytes().to_vec()).collect(),
        ..attr(name, AttributeType::Strings)
    }
}

/// One `op_type` node (LSTM: 4 gates, GRU: 3, RNN: 1) named "cell" over `x: [5, 2, 3]` with
/// hidden size 4, its weights initializers, and `attrs`.
fn recurrent(op_type: &str, attrs: Vec<AttributeProto>) -> ModelProto {
    let gates = match op_type {
        "LSTM" => 4,
        "GRU" => 3,
        _ => 1,
    };
    let outputs: &[&str] = if op_type == "LSTM" {
        &["y", "y_h", "y_c"]
    } else {
        &["y", "y_h"]
    };
    let node = NodeProto {
        input: ["x", "w", "r"].iter().map(|s| s.to_string()).collect(),
        output: outputs.iter().map(|s| s.to_string()).collect(),
        name: "cell".into(),
        op_type: op_type.into(),
        attribute: attrs,
        ..Default::default()
    };
    ModelProto {
        ir_version: 8,
        opset_import: vec![OperatorSetIdProto {
            domain: String::new(),
            version: 22,
        }],
        graph: Some(GraphProto {
            node: vec![node],
            name: "g".into(),
            initializer: vec![
                weights("w", &[1, gates * 4, 3]),
                weights("r", &[1, gates * 4, 4]),
            ],
            input: vec![value_info("x", Some(&[5, 2, 3]))],
            output: outputs.iter().map(|n| value_info(n, None)).collect(),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// Imports `model`; a module that does not verify fails the test.
fn import(model: &ModelProto) -> Result<(Context, Imported), String> {
    let mut ctx = context();
    let imported = import_model(&mut ctx, model, None, &ImportOptions::default())
        .map_err(|e| e.to_string())?;
    if let Err(d) = dlc_ir::verify(&ctx, imported.module) {
        panic!("the imported module does not verify: {}", d.message);
    }
    Ok((ctx, imported))
}

fn assert_rejected(model: &ModelProto, parts: &[&str]) {
    let message = match import(model) {
        Ok(_) => panic!("expected an import error"),
        Err(m) => m,
    };
    for part in parts {
        assert!(
            message.contains(part),
            "the error should mention {part:?}: {message}"
        );
    }
}

#[test]
fn each_cell_imports_verifies_and_runs() {
    for op_type in ["LSTM", "GRU", "RNN"] {
        let (ctx, imported) = import(&recurrent(op_type, vec![])).expect("imports");
        let mut names = Vec::new();
        ctx.for_each_op(imported.func, &mut |op| {
            names.push(ctx.op_name(op).to_string())
        });
        assert_eq!(
            names.iter().filter(|n| *n == "graph.rnn").count(),
            1,
            "{op_type}: {names:?}"
        );
        assert!(names.iter().any(|n| n == "graph.matmul"), "{op_type}");
        let x = Literal::from_f64(DType::F32, &[5, 2, 3], &[0.5; 30]);
        let outs = interpret(&ctx, imported.func, &[x]).expect("runs");
        assert_eq!(outs[0].shape(), [5, 1, 2, 4], "{op_type}");
        assert_eq!(outs[1].shape(), [1, 2, 4], "{op_type}");
    }
}

#[test]
fn bad_attributes_name_the_node() {
    let cases: Vec<(&str, AttributeProto, &str)> = vec![
        (
            "LSTM",
            string_attr("direction", "sideways"),
            "attribute 'direction' must be forward, reverse or bidirectional, not 'sideways'",
        ),
        (
            "GRU",
            int_attr("layout", 3),
            "attribute 'layout' must be 0 or 1, not 3",
        ),
        (
            "RNN",
            int_attr("hidden_size", 9),
            "attribute 'hidden_size' is 9, but R holds 4",
        ),
        (
            "LSTM",
            strings_attr("activations", &["Sigmoid", "Tanh"]),
            "attribute 'activations' must name 3 functions (3 per direction), but names 2",
        ),
        (
            "GRU",
            strings_attr("activations", &["Sigmoid", "Swish"]),
            "activation 'Swish' is not supported",
        ),
        (
            "RNN",
            float_attr("clip", -2.0),
            "attribute 'clip' must be positive, not -2",
        ),
        (
            "LSTM",
            AttributeProto {
                floats: vec![0.5],
                ..attr("activation_alpha", AttributeType::Floats)
            },
            "activation_alpha/activation_beta are given without activations",
        ),
        (
            "RNN",
            int_attr("linear_before_reset", 1),
            "attribute 'linear_before_reset' is not supported",
        ),
    ];
    for (op_type, a, message) in cases {
        let model = recurrent(op_type, vec![a]);
        assert_rejected(&model, &["node 'cell'", op_type, message]);
    }
}

#[test]
fn mismatched_weights_are_rejected() {
    let mut model = recurrent("LSTM", vec![string_attr("direction", "bidirectional")]);
    assert_rejected(
        &model,
        &["node 'cell'", "do not fit 2 direction(s) of 4 gates"],
    );
    // W with the wrong feature count for X.
    if let Some(g) = model.graph.as_mut() {
        g.node[0].attribute.clear();
        g.initializer[0] = weights("w", &[1, 16, 5]);
    }
    assert_rejected(&model, &["node 'cell'", "X must be 3-D with 5 features"]);
}
