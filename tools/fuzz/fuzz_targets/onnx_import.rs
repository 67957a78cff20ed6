//! Fuzzes the ONNX importer: every input is decoded as a `ModelProto` and imported, and an
//! input whose first byte is even also drives a sequence of edits to one of two small built-in
//! models (dims, op types, attributes, inputs, initializer values, opset, element types, the
//! same edits inside the subgraphs of If and Loop), which is encoded, decoded and imported.
//!
//! A `.onnx` file is what a user hands `dlc-import`, so no bytes may panic or abort the decoder
//! or the importer. Raw bytes seldom get past the protobuf framing; the edits start from a
//! model that imports and so reach the operator handlers, the shape rules and the constant
//! folding. The first seed is a CNN (Conv → Relu → MaxPool → Pad → Slice → Transpose → Gather →
//! Concat → Reshape → Softmax); the second holds the recurrent, quantization and control-flow
//! paths (LSTM, GRU, QuantizeLinear → DequantizeLinear, DynamicQuantizeLinear → MatMulInteger,
//! a MatMul and a Conv of DequantizeLinear outputs (the QDQ pattern, run on bytes), BitShift, a
//! Loop with a scan output, a condition known only at run time and a trip count the edits can
//! make 2^40, an If on a run-time condition: `graph.loop` and `graph.if`; NonZero and Unique,
//! sized by the data). A model that imports must verify, and when its shapes are small it runs
//! in the graph interpreter on zero inputs. A finding is a panic, an abort, a module that does
//! not verify, or a timeout; an `ImportError` or an interpreter error is how bad input must end.

#![no_main]

use dlc_graph::interp::interpret;
use dlc_ir::{print_op, Context, PrintOptions};
use dlc_onnx::proto::{
    tensor_shape_proto::{dimension, Dimension},
    type_proto, AttributeProto, AttributeType, GraphProto, ModelProto, NodeProto,
    OperatorSetIdProto, TensorProto, TensorShapeProto, TypeProto, ValueInfoProto,
};
use dlc_onnx::{decode_model, import_model, ImportOptions};
use dlc_tensor::{DType, Scalar, Literal};
use libfuzzer_sys::fuzz_target;
use prost::Message;

/// Interpreted models have no argument dim above this...
const MAX_RUN_DIM: i64 = 64;
/// ...and no value (argument or op result) with more elements than this.
const MAX_RUN_ELEMENTS: i64 = 1 << 16;
/// The most iterations a `graph.loop` of a model that is run may have.
const MAX_RUN_TRIPS: i64 = 64;

/// Operator types an edit may give a node: the seed model's and their neighbours.
const OPS: &[&str] = &[
    "Conv",
    "Relu",
    "MaxPool",
    "AveragePool",
    "GlobalAveragePool",
    "Pad",
    "Slice",
    "Transpose",
    "Gather",
    "Concat",
    "Reshape",
    "Softmax",
    "LogSoftmax",
    "Flatten",
    "Squeeze",
    "Unsqueeze",
    "Split",
    "Expand",
    "Tile",
    "Add",
    "Mul",
    "Div",
    "MatMul",
    "Gemm",
    "ReduceMean",
    "ReduceSum",
    "ReduceMax",
    "ArgMax",
    "Shape",
    "Size",
    "ConstantOfShape",
    "Cast",
    "Identity",
    "BatchNormalization",
    "LayerNormalization",
    "InstanceNormalization",
    "Clip",
    "Where",
    "Range",
    "Sigmoid",
    "Equal",
    "Dropout",
    "Constant",
    "Max",
    "Sum",
    "Pow",
    "Mod",
    "Resize",
    "LSTM",
    "GRU",
    "RNN",
    "QuantizeLinear",
    "DequantizeLinear",
    "DynamicQuantizeLinear",
    "MatMulInteger",
    "ConvInteger",
    "QLinearMatMul",
    "QLinearConv",
    "If",
    "Loop",
    "Scan",
    "BitShift",
    "BitwiseXor",
    "BitCast",
    "TopK",
    "CumSum",
    "NonZero",
    "Compress",
    "Unique",
    "NonMaxSuppression",
    "GatherND",
    "ScatterND",
    "ScatterElements",
    "Einsum",
    "DFT",
    "STFT",
    "GridSample",
    "Col2Im",
    "ReverseSequence",
];

/// Attribute names an edit may set.
const INT_ATTRS: &[&str] = &[
    "axis",
    "keepdims",
    "group",
    "transA",
    "transB",
    "allowzero",
    "ceil_mode",
    "count_include_pad",
    "num_outputs",
    "to",
    "start",
    "end",
    "value_int",
    "select_last_index",
    "storage_order",
    "training_mode",
    "fmod",
    "noop_with_empty_axes",
    "hidden_size",
    "layout",
    "linear_before_reset",
    "input_forget",
    "block_size",
    "output_dtype",
    "saturate",
    "onesided",
    "inverse",
    "largest",
    "sorted",
    "num_scan_inputs",
    "batch_axis",
    "time_axis",
];
const INTS_ATTRS: &[&str] = &[
    "axes",
    "perm",
    "kernel_shape",
    "strides",
    "pads",
    "dilations",
    "split",
    "value_ints",
    "shape",
    "starts",
    "ends",
];
const FLOAT_ATTRS: &[&str] = &[
    "epsilon",
    "alpha",
    "beta",
    "value_float",
    "min",
    "max",
    "ratio",
    "clip",
];
const STRING_ATTRS: &[(&str, &[&str])] = &[
    (
        "auto_pad",
        &["NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER", "BOGUS"],
    ),
    ("mode", &["constant", "reflect", "edge", "nearest", ""]),
    (
        "direction",
        &["forward", "reverse", "bidirectional", "LEFT", "RIGHT", "up"],
    ),
    ("reduction", &["none", "add", "mul", "max", "min", "bogus"]),
    (
        "equation",
        &["ij,jk->ik", "ii->i", "i,i", "...ij->...ji", "ab->"],
    ),
];

/// Integers edits draw from: small sizes and indices, and the edges of every width.
const INTS: &[i64] = &[
    0,
    1,
    2,
    3,
    4,
    5,
    7,
    8,
    16,
    64,
    -1,
    -2,
    -3,
    -8,
    255,
    1 << 31,
    1 << 40,
    1 << 62,
    i64::MIN,
    i64::MAX,
];
const FLOATS: &[f32] = &[
    0.0,
    1.0,
    -1.0,
    0.5,
    1e-5,
    1e30,
    f32::NAN,
    f32::INFINITY,
    -0.0,
];
/// ONNX element types: float, uint8, int8, uint16, int16, int32, int64, string, bool, float16,
/// double, uint32, uint64, bfloat16, float8e4m3fn, int4, and one that does not exist.
const ELEM_TYPES: &[i32] = &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 16, 17, 22, 99];
const OPSETS: &[i64] = &[1, 4, 5, 7, 9, 10, 11, 12, 13, 15, 17, 18, 21, 99];

fuzz_target!(|data: &[u8]| {
    if let Ok(model) = decode_model(data.to_vec()) {
        check(&model);
    }
    if let Some((first, edits)) = data.split_first() {
        if first.is_multiple_of(2) {
            let mut model = if first % 4 == 0 {
                seed_model()
            } else {
                sequence_seed_model()
            };
            edit(&mut model, &mut Bytes(edits));
            let bytes = model.encode_to_vec();
            // DLC_FUZZ_DUMP=file writes the edited model, to turn a finding into a test.
            if let Some(path) = std::env::var_os("DLC_FUZZ_DUMP") {
                let _ = std::fs::write(path, &bytes);
            }
            let decoded = decode_model(bytes)
                .unwrap_or_else(|e| panic!("an encoded model does not decode: {e}"));
            check(&decoded);
        }
    }
});

/// Imports `model`; a model that imports must verify, and a small one runs.
fn check(model: &ModelProto) {
    let mut ctx = Context::new();
    dlc_dialects::register_all_dialects(&mut ctx);
    let Ok(imported) = import_model(&mut ctx, model, None, &ImportOptions::default()) else {
        return;
    };
    if let Err(d) = dlc_ir::verify(&ctx, imported.module) {
        panic!(
            "the imported module does not verify: {}\n{}",
            d.message,
            print_op(&ctx, imported.module, PrintOptions::default())
        );
    }
    let Some(args) = zero_arguments(&ctx, imported.func) else {
        return;
    };
    if long_loop(&ctx, imported.func) {
        return;
    }
    // An interpreter error (an op it rejects at run time) is not a finding; a panic is.
    let _ = interpret(&ctx, imported.func, &args);
}

/// Whether `func` holds a `graph.loop` whose trip count may be large (a constant past
/// [`MAX_RUN_TRIPS`], or anything else): running it could take as long as its trip count says.
fn long_loop(ctx: &Context, func: dlc_ir::Op) -> bool {
    let mut long = false;
    ctx.for_each_op(func, &mut |op| {
        if ctx.op_name(op) != "graph.loop" {
            return;
        }
        let trips = ctx
            .operands(op)
            .first()
            .and_then(|&m| ctx.defining_op(m))
            .and_then(|d| ctx.attr(d, "value"))
            .and_then(|a| Literal::from_dense_attr(ctx, a).ok())
            .filter(|t| t.len() == 1)
            .map(|t| t.get(0).as_i64());
        long |= trips.is_none_or(|m| m > MAX_RUN_TRIPS);
    });
    long
}

/// Zero tensors for `func`'s arguments, or `None` when a value of the function is too large
/// (or dynamic) to run cheaply.
fn zero_arguments(ctx: &Context, func: dlc_ir::Op) -> Option<Vec<Literal>> {
    let block = *ctx.blocks(*ctx.regions(func).first()?).first()?;
    let small = |ty: dlc_ir::Type| {
        ctx.shape(ty).is_none_or(|dims| {
            dims.iter()
                .try_fold(1i64, |n, d| if *d < 0 { None } else { n.checked_mul(*d) })
                .is_some_and(|n| n <= MAX_RUN_ELEMENTS)
        })
    };
    let args_small = ctx
        .block_args(block)
        .iter()
        .all(|v| small(ctx.value_type(*v)));
    let results_small = ctx
        .block_ops(block)
        .all(|op| ctx.results(op).all(|v| small(ctx.value_type(v))));
    if !args_small || !results_small {
        return None;
    }
    ctx.block_args(block)
        .iter()
        .map(|v| {
            let ty = ctx.value_type(*v);
            let dims = ctx.shape(ty)?;
            if dims.iter().any(|d| !(0..=MAX_RUN_DIM).contains(d)) {
                return None;
            }
            let shape: Vec<usize> = dims.iter().map(|d| *d as usize).collect();
            let dtype = DType::from_type(ctx, ctx.element_type(ty))?;
            Some(Literal::splat(dtype, &shape, Scalar::Int(0).cast(dtype)))
        })
        .collect()
}

/// The fuzzer's bytes, read from the front; past the end every read is 0.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((b, rest)) => {
                self.0 = rest;
                *b
            }
            None => 0,
        }
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// An index below `n` (`n` > 0).
    fn below(&mut self, n: usize) -> usize {
        usize::from(self.byte()) % n
    }

    fn pick<T: Copy>(&mut self, from: &[T]) -> T {
        from[self.below(from.len())]
    }

    fn int(&mut self) -> i64 {
        self.pick(INTS)
    }

    fn ints(&mut self) -> Vec<i64> {
        let n = self.below(9);
        (0..n).map(|_| self.int()).collect()
    }
}

/// Applies edits read from `bytes` until they run out (at most 64).
fn edit(model: &mut ModelProto, bytes: &mut Bytes) {
    for _ in 0..64 {
        if bytes.is_empty() {
            return;
        }
        let op = bytes.byte();
        if op % 16 == 15 {
            model.opset_import[0].version = bytes.pick(OPSETS);
            continue;
        }
        let Some(graph) = model.graph.as_mut() else {
            return;
        };
        // The high bit sends the edit into a subgraph (an If branch, a Loop body), when the
        // graph has one.
        if op >= 0x80 {
            let mut subs = subgraphs(graph);
            if !subs.is_empty() {
                let i = bytes.below(subs.len());
                edit_graph(subs.swap_remove(i), op % 16, bytes);
                continue;
            }
        }
        edit_graph(graph, op % 16, bytes);
    }
}

/// The graph attributes of `graph`'s nodes (not their own subgraphs).
fn subgraphs(graph: &mut GraphProto) -> Vec<&mut GraphProto> {
    graph
        .node
        .iter_mut()
        .flat_map(|n| n.attribute.iter_mut())
        .filter_map(|a| a.g.as_mut())
        .collect()
}

/// One edit of `graph`; `op` (below 15) says which.
fn edit_graph(graph: &mut GraphProto, op: u8, bytes: &mut Bytes) {
    let names = value_names(graph);
    let nodes = graph.node.len();
    match op {
        // A dim of the input: a size, a named (dynamic) dim, or none.
        0 => {
            let Some(dims) = input_dims(graph) else {
                return;
            };
            if dims.is_empty() {
                return;
            }
            let i = bytes.below(dims.len());
            dims[i].value = match bytes.below(4) {
                0 => Some(dimension::Value::DimParam("n".into())),
                1 => None,
                _ => Some(dimension::Value::DimValue(bytes.int())),
            };
        }
        // The input's rank: one dim more or less.
        1 => {
            let Some(dims) = input_dims(graph) else {
                return;
            };
            if bytes.byte().is_multiple_of(2) {
                dims.pop();
            } else {
                dims.push(dim(bytes.int()));
            }
        }
        2 if nodes > 0 => {
            let n = bytes.below(nodes);
            graph.node[n].op_type = bytes.pick(OPS).into();
        }
        3 if nodes > 0 => {
            let n = bytes.below(nodes);
            let name = bytes.pick(INT_ATTRS);
            let value = bytes.int();
            set_attr(&mut graph.node[n], name, AttributeType::Int, |a| {
                a.i = value
            });
        }
        4 if nodes > 0 => {
            let n = bytes.below(nodes);
            let name = bytes.pick(INTS_ATTRS);
            let values = bytes.ints();
            set_attr(&mut graph.node[n], name, AttributeType::Ints, |a| {
                a.ints = values
            });
        }
        5 if nodes > 0 => {
            let n = bytes.below(nodes);
            let name = bytes.pick(FLOAT_ATTRS);
            let value = bytes.pick(FLOATS);
            set_attr(&mut graph.node[n], name, AttributeType::Float, |a| {
                a.f = value
            });
        }
        6 if nodes > 0 => {
            let n = bytes.below(nodes);
            let (name, values) = bytes.pick(STRING_ATTRS);
            let value = bytes.pick(values).as_bytes().to_vec();
            set_attr(&mut graph.node[n], name, AttributeType::String, |a| {
                a.s = value
            });
        }
        7 if nodes > 0 => {
            let n = bytes.below(nodes);
            let attrs = &mut graph.node[n].attribute;
            if !attrs.is_empty() {
                let i = bytes.below(attrs.len());
                attrs.remove(i);
            }
        }
        // An input of a node: another value, an empty name (absent), or one past the end.
        8 if nodes > 0 => {
            let n = bytes.below(nodes);
            let slot = bytes.below(6);
            let value = match bytes.below(names.len() + 1) {
                i if i == names.len() => String::new(),
                i => names[i].clone(),
            };
            let inputs = &mut graph.node[n].input;
            match inputs.get_mut(slot) {
                Some(input) => *input = value,
                None => inputs.push(value),
            }
        }
        9 if nodes > 0 => {
            let n = bytes.below(nodes);
            let keep = bytes.below(6);
            graph.node[n].input.truncate(keep);
        }
        // An integer initializer's values (its dims follow, or not).
        10 => {
            let ints: Vec<usize> = (0..graph.initializer.len())
                .filter(|i| graph.initializer[*i].data_type == 7)
                .collect();
            if ints.is_empty() {
                return;
            }
            let t = &mut graph.initializer[bytes.pick(&ints)];
            t.int64_data = bytes.ints();
            match bytes.below(3) {
                0 => t.dims = vec![t.int64_data.len() as i64],
                1 if t.int64_data.len() == 1 => t.dims = vec![],
                _ => {}
            }
        }
        // A tensor's element type (the input's or an initializer's).
        11 => {
            let elem = bytes.pick(ELEM_TYPES);
            let i = bytes.below(graph.initializer.len() + 1);
            match graph.initializer.get_mut(i) {
                Some(t) => t.data_type = elem,
                None => {
                    if let Some(type_proto::Value::TensorType(t)) = graph
                        .input
                        .first_mut()
                        .and_then(|x| x.r#type.as_mut())
                        .and_then(|t| t.value.as_mut())
                    {
                        t.elem_type = elem;
                    }
                }
            }
        }
        // A new node at the end, on existing values, which becomes the output.
        12 if !names.is_empty() => {
            let op_type = bytes.pick(OPS);
            let inputs = (0..1 + bytes.below(3))
                .map(|_| names[bytes.below(names.len())].clone())
                .collect();
            let output = format!("v{nodes}");
            graph.node.push(NodeProto {
                input: inputs,
                output: vec![output.clone()],
                name: format!("n{nodes}"),
                op_type: op_type.into(),
                ..Default::default()
            });
            graph.output = vec![output_info(&output)];
        }
        // The graph output: another value, or a second one.
        13 if !names.is_empty() => {
            let name = names[bytes.below(names.len())].clone();
            if bytes.byte().is_multiple_of(2) {
                graph.output = vec![output_info(&name)];
            } else {
                graph.output.push(output_info(&name));
            }
        }
        // A node removed, or two swapped (out of order).
        14 if nodes > 0 => {
            let a = bytes.below(nodes);
            let b = bytes.below(nodes);
            if a == b {
                graph.node.remove(a);
            } else {
                graph.node.swap(a, b);
            }
        }
        _ => {}
    }
}

/// Every value name of `graph`: inputs, initializers, node outputs.
fn value_names(graph: &GraphProto) -> Vec<String> {
    graph
        .input
        .iter()
        .map(|i| i.name.clone())
        .chain(graph.initializer.iter().map(|t| t.name.clone()))
        .chain(graph.node.iter().flat_map(|n| n.output.iter().cloned()))
        .collect()
}

fn input_dims(graph: &mut GraphProto) -> Option<&mut Vec<Dimension>> {
    match graph.input.first_mut()?.r#type.as_mut()?.value.as_mut()? {
        type_proto::Value::TensorType(t) => Some(&mut t.shape.as_mut()?.dim),
        _ => None,
    }
}

/// Sets attribute `name` of `node` (adding it when absent) with `set`.
fn set_attr(
    node: &mut NodeProto,
    name: &str,
    ty: AttributeType,
    set: impl FnOnce(&mut AttributeProto),
) {
    let i = match node.attribute.iter().position(|a| a.name == name) {
        Some(i) => i,
        None => {
            node.attribute.push(AttributeProto {
                name: name.into(),
                ..Default::default()
            });
            node.attribute.len() - 1
        }
    };
    let a = &mut node.attribute[i];
    *a = AttributeProto {
        name: name.into(),
        r#type: ty as i32,
        ..Default::default()
    };
    set(a);
}

fn dim(n: i64) -> Dimension {
    Dimension {
        value: Some(dimension::Value::DimValue(n)),
        ..Default::default()
    }
}

fn output_info(name: &str) -> ValueInfoProto {
    ValueInfoProto {
        name: name.into(),
        ..Default::default()
    }
}

fn node(op_type: &str, inputs: &[&str], output: &str, attrs: Vec<AttributeProto>) -> NodeProto {
    NodeProto {
        input: inputs.iter().map(|s| s.to_string()).collect(),
        output: vec![output.into()],
        name: output.into(),
        op_type: op_type.into(),
        attribute: attrs,
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

fn int_attr(name: &str, i: i64) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        r#type: AttributeType::Int as i32,
        i,
        ..Default::default()
    }
}

fn i64_tensor(name: &str, values: &[i64]) -> TensorProto {
    TensorProto {
        name: name.into(),
        dims: vec![values.len() as i64],
        data_type: 7,
        int64_data: values.to_vec(),
        ..Default::default()
    }
}

fn f32_tensor(name: &str, dims: &[i64]) -> TensorProto {
    let n: i64 = dims.iter().product();
    TensorProto {
        name: name.into(),
        dims: dims.to_vec(),
        data_type: 1,
        float_data: (0..n).map(|i| (i % 7) as f32 / 7.0 - 0.4).collect(),
        ..Default::default()
    }
}

fn graph_attr(name: &str, graph: GraphProto) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        r#type: AttributeType::Graph as i32,
        g: Some(graph),
        ..Default::default()
    }
}

fn string_attr(name: &str, s: &str) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        r#type: AttributeType::String as i32,
        s: s.as_bytes().to_vec(),
        ..Default::default()
    }
}

/// A tensor of element type `data_type` stored in `int32_data` (int8, uint8, bool, ...).
fn int32_tensor(name: &str, data_type: i32, dims: &[i64], values: &[i32]) -> TensorProto {
    TensorProto {
        name: name.into(),
        dims: dims.to_vec(),
        data_type,
        int32_data: values.to_vec(),
        ..Default::default()
    }
}

/// A graph input or output of element type `elem` and shape `dims`.
fn value_info(name: &str, elem: i32, dims: &[i64]) -> ValueInfoProto {
    ValueInfoProto {
        name: name.into(),
        r#type: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: elem,
                shape: Some(TensorShapeProto {
                    dim: dims.iter().copied().map(dim).collect(),
                }),
            })),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// The second seed: recurrent layers, quantization, integer ops and control flow on a
/// sequence `x` of 3 steps, batch 1, 4 features (opset 21). It imports, verifies and runs.
fn sequence_seed_model() -> ModelProto {
    // Loop body: (iteration, condition, carried v) -> (sum(v + 1) < 100, v + 1, scan output
    // v + 1): a condition known only at run time, so the Loop is a `graph.loop`.
    let body = GraphProto {
        name: "body".into(),
        node: vec![
            node("Add", &["v", "one"], "v1", vec![]),
            node("ReduceSum", &["v1"], "total", vec![int_attr("keepdims", 0)]),
            node("Less", &["total", "hundred"], "cond1", vec![]),
            node("Identity", &["v1"], "scan", vec![]),
        ],
        initializer: vec![
            f32_tensor("one", &[]),
            TensorProto {
                float_data: vec![100.0],
                ..f32_tensor("hundred", &[])
            },
        ],
        input: vec![
            value_info("iter", 7, &[]),
            value_info("cond", 9, &[]),
            value_info("v", 1, &[1, 4]),
        ],
        output: vec![output_info("cond1"), output_info("v1"), output_info("scan")],
        ..Default::default()
    };
    let branch = |name: &str, op: &str| GraphProto {
        name: name.into(),
        node: vec![node(op, &["last"], &format!("{name}_y"), vec![])],
        output: vec![output_info(&format!("{name}_y"))],
        ..Default::default()
    };
    let nodes = vec![
        node(
            "LSTM",
            &["x", "lw", "lr", "lb"],
            "lstm_y",
            vec![int_attr("hidden_size", 2)],
        ),
        node(
            "GRU",
            &["x", "gw", "gr"],
            "gru_y",
            vec![
                int_attr("hidden_size", 2),
                int_attr("linear_before_reset", 1),
                string_attr("direction", "bidirectional"),
            ],
        ),
        node("QuantizeLinear", &["x", "s", "zp"], "xq", vec![]),
        node("DequantizeLinear", &["xq", "s", "zp"], "xdq", vec![]),
        NodeProto {
            output: vec!["dq".into(), "dq_s".into(), "dq_z".into()],
            ..node("DynamicQuantizeLinear", &["xdq"], "dq", vec![])
        },
        node("MatMulInteger", &["dq", "wq", "dq_z"], "mm", vec![]),
        // The QDQ pattern: a MatMul and a 1-D Conv of DequantizeLinear outputs run on bytes.
        node("DequantizeLinear", &["wq", "s"], "wqd", vec![]),
        node("MatMul", &["xdq", "wqd"], "qmm", vec![]),
        node(
            "DequantizeLinear",
            &["cw", "cs"],
            "cwd",
            vec![int_attr("axis", 0)],
        ),
        node(
            "Conv",
            &["xdq", "cwd"],
            "qconv",
            vec![ints_attr("pads", &[1, 1])],
        ),
        node(
            "BitShift",
            &["xq", "two"],
            "sh",
            vec![string_attr("direction", "RIGHT")],
        ),
        node("Gather", &["x", "zero"], "first", vec![int_attr("axis", 0)]),
        NodeProto {
            output: vec!["loop_v".into(), "loop_scan".into()],
            ..node(
                "Loop",
                &["trips", "yes", "first"],
                "loop",
                vec![graph_attr("body", body)],
            )
        },
        node(
            "Gather",
            &["loop_scan", "zero"],
            "last",
            vec![int_attr("axis", 0)],
        ),
        // Outputs sized by the data.
        node("NonZero", &["x"], "nz", vec![]),
        node("Unique", &["x"], "uq", vec![int_attr("axis", 2)]),
        // An If on a condition known only at run time: a `graph.if`.
        node("ReduceSum", &["x"], "x_sum", vec![int_attr("keepdims", 0)]),
        node("Greater", &["x_sum", "zero_f"], "positive", vec![]),
        node(
            "If",
            &["positive"],
            "if_y",
            vec![
                graph_attr("then_branch", branch("then", "Neg")),
                graph_attr("else_branch", branch("else", "Abs")),
            ],
        ),
    ];
    let initializers = vec![
        f32_tensor("lw", &[1, 8, 4]),
        f32_tensor("lr", &[1, 8, 2]),
        f32_tensor("lb", &[1, 16]),
        f32_tensor("gw", &[2, 6, 4]),
        f32_tensor("gr", &[2, 6, 2]),
        TensorProto {
            float_data: vec![0.05],
            ..f32_tensor("s", &[])
        },
        int32_tensor("zp", 2, &[], &[128]),
        int32_tensor(
            "wq",
            3,
            &[4, 3],
            &[1, -2, 3, -4, 5, -6, 7, -8, 9, -10, 11, -128],
        ),
        int32_tensor("cw", 3, &[2, 1, 2], &[3, -5, 127, -128]),
        TensorProto {
            float_data: vec![0.1, 0.02],
            ..f32_tensor("cs", &[2])
        },
        int32_tensor("two", 2, &[], &[2]),
        TensorProto {
            float_data: vec![0.0],
            ..f32_tensor("zero_f", &[])
        },
        int32_tensor("yes", 9, &[], &[1]),
        TensorProto {
            dims: vec![],
            ..i64_tensor("trips", &[3])
        },
        TensorProto {
            dims: vec![],
            ..i64_tensor("zero", &[0])
        },
    ];
    ModelProto {
        ir_version: 10,
        opset_import: vec![OperatorSetIdProto {
            domain: String::new(),
            version: 21,
        }],
        graph: Some(GraphProto {
            node: nodes,
            name: "sequence_seed".into(),
            initializer: initializers,
            input: vec![value_info("x", 1, &[3, 1, 4])],
            output: [
                "lstm_y", "gru_y", "mm", "qmm", "qconv", "sh", "loop_v", "if_y", "nz", "uq",
            ]
            .into_iter()
            .map(output_info)
            .collect(),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// The model the edits start from: it imports, verifies and runs (opset 17, input 1×3×8×8).
fn seed_model() -> ModelProto {
    let nodes = vec![
        node(
            "Conv",
            &["x", "w", "b"],
            "c",
            vec![
                ints_attr("kernel_shape", &[3, 3]),
                ints_attr("pads", &[1, 1, 1, 1]),
            ],
        ),
        node("Relu", &["c"], "r", vec![]),
        node(
            "MaxPool",
            &["r"],
            "p",
            vec![
                ints_attr("kernel_shape", &[2, 2]),
                ints_attr("strides", &[2, 2]),
            ],
        ),
        node("Pad", &["p", "pads"], "q", vec![]),
        node(
            "Slice",
            &["q", "starts", "ends", "axes", "steps"],
            "s",
            vec![],
        ),
        node(
            "Transpose",
            &["s"],
            "t",
            vec![ints_attr("perm", &[0, 1, 3, 2])],
        ),
        node("Gather", &["t", "idx"], "g", vec![int_attr("axis", 2)]),
        node("Concat", &["g", "g"], "k", vec![int_attr("axis", 1)]),
        node("Reshape", &["k", "shape"], "f", vec![]),
        node("Softmax", &["f"], "y", vec![int_attr("axis", -1)]),
    ];
    let initializers = vec![
        f32_tensor("w", &[4, 3, 3, 3]),
        f32_tensor("b", &[4]),
        i64_tensor("pads", &[0, 0, 1, 1, 0, 0, 1, 1]),
        i64_tensor("starts", &[0]),
        i64_tensor("ends", &[2]),
        i64_tensor("axes", &[1]),
        i64_tensor("steps", &[1]),
        i64_tensor("idx", &[0, -1]),
        i64_tensor("shape", &[1, -1]),
    ];
    let x = ValueInfoProto {
        name: "x".into(),
        r#type: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: 1,
                shape: Some(TensorShapeProto {
                    dim: [1, 3, 8, 8].into_iter().map(dim).collect(),
                }),
            })),
            ..Default::default()
        }),
        ..Default::default()
    };
    ModelProto {
        ir_version: 8,
        opset_import: vec![OperatorSetIdProto {
            domain: String::new(),
            version: 17,
        }],
        graph: Some(GraphProto {
            node: nodes,
            name: "seed".into(),
            initializer: initializers,
            input: vec![x],
            output: vec![output_info("y")],
            ..Default::default()
        }),
        ..Default::default()
    }
}
