//! The importer: an ONNX graph → one `func.func` of graph-dialect ops.
//!
//! Graph inputs become the function's arguments (a `dim_param` or unknown dim is a `?`, unless
//! the options give its size), initializers and specialized inputs become `graph.constant`,
//! nodes are imported in order by the handlers of [`crate::ops`], and the graph outputs are
//! returned. Every op is built through [`NodeCx::op`], which infers its type with the graph
//! dialect's rules (so a node whose shapes do not fit is an error at that node) and folds it at
//! once when all its operands are constants, evaluating it with the graph interpreter: this is
//! how `Shape → Gather → Concat → Reshape` chains and the like disappear during import.
//!
//! Errors name the node: `node 'conv_1' (Conv, opset 11): ...`.

use crate::ops;
use crate::proto::{type_proto, AttributeProto, GraphProto, ModelProto, NodeProto, TensorProto};
use crate::shape_values::{array_attr, Dim, Monomial};
use crate::tensor::{element_type, tensor_attr};
use dlc_graph::interp::evaluate_op;
use dlc_graph::ops::{ConstantOp, TransposeOp};
use dlc_graph::GraphOps;
use dlc_ir::location::CompositeLocKind;
use dlc_ir::{
    AttrKind, Attribute, Context, InsertPoint, Location, NamedAttr, Op, OpSpec, Region, Type,
    Value, DYNAMIC,
};
use dlc_tensor::Literal;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::path::Path;

/// Ops whose result has more elements than this are not folded and constants that large are
/// not decoded (ConstantOfShape builds a splat of any size directly), and handlers build no
/// constant table larger than this (index tables, masks, matrices).
pub const MAX_FOLD_ELEMENTS: usize = 1 << 22;

/// No tensor of the imported function may have more elements than this (2⁴⁸, far beyond any
/// memory): it keeps every product of dims in `i64`, and a model claiming more is refused.
pub const MAX_TENSOR_ELEMENTS: i64 = 1 << 48;

/// What the import may assume beyond the model file.
#[derive(Clone, Debug, Default)]
pub struct ImportOptions {
    /// The size of each named dim (`dim_param`), e.g. `batch=1`.
    pub dims: HashMap<String, i64>,
    /// The full shape of a graph input, overriding its declared shape.
    pub input_shapes: HashMap<String, Vec<i64>>,
    /// Graph inputs specialized to a known value: they become constants, not arguments.
    pub constants: HashMap<String, Literal>,
    /// The shapes of the values the graph inputs will be run with, in graph input order
    /// (initializers skipped), when the caller knows them: a dim the model leaves dynamic takes
    /// the size given here, so the function is compiled for these shapes. `input_shapes` and
    /// `dims` come first; a shape of another rank than the declared one is ignored.
    pub given_shapes: Vec<Vec<i64>>,
    /// The name of the function (default `main`).
    pub func_name: Option<String>,
}

/// An imported model.
#[derive(Debug)]
pub struct Imported {
    /// The `builtin.module` holding the function.
    pub module: Op,
    /// The `func.func`.
    pub func: Op,
    /// The graph inputs that became arguments, in order.
    pub inputs: Vec<String>,
    /// The graph outputs, in order.
    pub outputs: Vec<String>,
    /// The model's `ai.onnx` opset.
    pub opset: i64,
    /// Things the user should know (inputs specialized to constants, ...).
    pub notes: Vec<String>,
}

/// Why a model could not be imported.
#[derive(Clone, Debug, PartialEq)]
pub enum ImportError {
    /// The bytes are not a model: a protobuf decode error, with the byte offset it was found at
    /// when the framing itself is broken.
    Decode { message: String },
    /// Something about the model as a whole (no graph, bad inputs or outputs, a cycle).
    Model { message: String },
    /// A node dlc cannot import; `node` is its label ([`node_label`]).
    Node {
        node: String,
        op_type: String,
        opset: i64,
        message: String,
    },
    /// A node needs graph input `input` to be a constant (a Reshape shape, Slice bounds, ...):
    /// import again with its value in [`ImportOptions::constants`].
    NeedsConstant {
        input: String,
        node: String,
        op_type: String,
        opset: i64,
    },
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImportError::Decode { message } => write!(f, "not a valid ONNX model: {message}"),
            ImportError::Model { message } => write!(f, "{message}"),
            ImportError::Node {
                node,
                op_type,
                opset,
                message,
            } => write!(f, "node {node} ({op_type}, opset {opset}): {message}"),
            ImportError::NeedsConstant {
                input,
                node,
                op_type,
                opset,
            } => write!(
                f,
                "node {node} ({op_type}, opset {opset}): graph input '{input}' must be a constant here; give its value (dlc-import --const {input}=file.npy, or dlc-run --inputs)"
            ),
        }
    }
}

impl std::error::Error for ImportError {}

/// A handler's error: a message, or a request for a graph input to be constant.
#[derive(Debug)]
pub enum NodeError {
    Message(String),
    NeedsConstant(String),
}

impl From<String> for NodeError {
    fn from(m: String) -> Self {
        NodeError::Message(m)
    }
}

impl From<&str> for NodeError {
    fn from(m: &str) -> Self {
        NodeError::Message(m.to_string())
    }
}

/// The result of a handler.
pub type NodeResult<T> = Result<T, NodeError>;

/// Imports `model` into `ctx` (which must have the func and graph dialects registered).
/// `base` is the directory external data is read from.
pub fn import_model(
    ctx: &mut Context,
    model: &ModelProto,
    base: Option<&Path>,
    options: &ImportOptions,
) -> Result<Imported, ImportError> {
    let model_error = |message: String| ImportError::Model { message };
    let graph = model
        .graph
        .as_ref()
        .ok_or_else(|| model_error("the model has no graph".into()))?;
    let opset = model
        .opset_import
        .iter()
        .find(|o| o.domain.is_empty() || o.domain == "ai.onnx")
        .map(|o| o.version)
        .unwrap_or(1);
    let mut importer = Importer::new(ctx, opset, base);
    let (inputs, notes) = importer.bind_inputs(graph, options)?;
    importer.bind_initializers(graph)?;
    check_order(graph, opset)?;
    for (index, node) in graph.node.iter().enumerate() {
        importer.import_node(node, index)?;
    }
    let outputs: Vec<String> = graph.output.iter().map(|o| o.name.clone()).collect();
    let mut results = Vec::with_capacity(outputs.len());
    for output in &graph.output {
        let v = importer.values.get(&output.name).copied().ok_or_else(|| {
            model_error(format!(
                "graph output '{}' is not produced by any node",
                output.name
            ))
        })?;
        results.push(v);
    }
    if results.is_empty() {
        return Err(model_error("the graph has no outputs".into()));
    }
    let name = options.func_name.clone().unwrap_or_else(|| "main".into());
    let (module, func) = importer.finish(&name, &results);
    Ok(Imported {
        module,
        func,
        inputs,
        outputs,
        opset,
        notes,
    })
}

/// Checks that every node input is defined before it is used (graphs are topologically sorted
/// in ONNX; a cycle or a forward reference is an error, not a hang).
fn check_order(graph: &GraphProto, opset: i64) -> Result<(), ImportError> {
    let mut defined: HashSet<&str> = graph
        .input
        .iter()
        .map(|i| i.name.as_str())
        .chain(graph.initializer.iter().map(|t| t.name.as_str()))
        .collect();
    for (index, node) in graph.node.iter().enumerate() {
        for input in node.input.iter().filter(|i| !i.is_empty()) {
            if !defined.contains(input.as_str()) {
                let produced_later = graph
                    .node
                    .iter()
                    .any(|n| n.output.iter().any(|o| o == input));
                return Err(ImportError::Node {
                    node: node_label(node, index),
                    op_type: node.op_type.clone(),
                    opset,
                    message: if produced_later {
                        format!("input '{input}' is produced by a later node (the graph has a cycle or is not topologically sorted)")
                    } else {
                        format!("input '{input}' is not a graph input, an initializer or the output of a node")
                    },
                });
            }
        }
        defined.extend(node.output.iter().map(String::as_str));
    }
    Ok(())
}

/// The state of one import.
pub struct Importer<'c> {
    pub(crate) ctx: &'c mut Context,
    pub(crate) block: dlc_ir::Block,
    region: dlc_ir::Region,
    pub(crate) opset: i64,
    base: Option<std::path::PathBuf>,
    values: HashMap<String, Value>,
    /// Graph arguments by value, to name them in "must be constant" errors.
    arg_names: HashMap<Value, String>,
    /// Decoded constants, by the value of their `graph.constant`.
    constants: HashMap<Value, Literal>,
    /// Per argument, the `dim_param` name of each dim left dynamic (`""`: none).
    dim_names: Vec<Vec<String>>,
    /// Nodes imported from subgraphs so far (each branch, each unrolled iteration, each
    /// inlined modifier), bounded by [`MAX_SUBGRAPH_NODES`].
    subgraph_nodes: usize,
    /// The 8-bit tensors that `DequantizeLinear` outputs came from, by output: a Conv or
    /// MatMul of them runs on the bytes (the QDQ pattern of quantized models).
    pub(crate) dequantized: HashMap<Value, Dequantized>,
    /// The elements of the small integer tensors computed from shapes with `?` dims
    /// ([`crate::shape_values`]).
    pub(crate) shape_values: HashMap<Value, Vec<Dim>>,
    /// The `graph.dim` of each tensor, axis and block read so far.
    pub(crate) dim_values: HashMap<(Value, usize, dlc_ir::Block), Value>,
    /// The `index` values that are products of sizes, as monomials.
    pub(crate) monomials: HashMap<Value, Monomial>,
}

/// A `DequantizeLinear` of an 8-bit tensor to `f32`, per tensor or per axis.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Dequantized {
    /// The quantized tensor (`i8` or `ui8`).
    pub q: Value,
    /// Its scale: one element, or a vector along `axis`.
    pub scale: Value,
    /// Its zero point, of `q`'s type and `scale`'s shape.
    pub zero_point: Option<Value>,
    /// The axis a per-axis scale runs along; `None` per tensor.
    pub axis: Option<usize>,
}

/// The most nodes branches and unrolled loop bodies may add to one import: a bound on the
/// work and IR size a model's loops can demand.
pub const MAX_SUBGRAPH_NODES: usize = 1 << 20;

impl<'c> Importer<'c> {
    fn new(ctx: &'c mut Context, opset: i64, base: Option<&Path>) -> Self {
        let (region, block) = ctx.create_region_with_block(&[]);
        Importer {
            ctx,
            block,
            region,
            opset,
            base: base.map(Path::to_path_buf),
            values: HashMap::new(),
            arg_names: HashMap::new(),
            constants: HashMap::new(),
            dim_names: Vec::new(),
            subgraph_nodes: 0,
            dequantized: HashMap::new(),
            shape_values: HashMap::new(),
            dim_values: HashMap::new(),
            monomials: HashMap::new(),
        }
    }

    /// Makes the function's arguments, or constants for specialized inputs.
    fn bind_inputs(
        &mut self,
        graph: &GraphProto,
        options: &ImportOptions,
    ) -> Result<(Vec<String>, Vec<String>), ImportError> {
        let initializers: HashSet<&str> =
            graph.initializer.iter().map(|t| t.name.as_str()).collect();
        let mut names = Vec::new();
        let mut notes = Vec::new();
        let inputs = graph
            .input
            .iter()
            .filter(|i| !initializers.contains(i.name.as_str()));
        // The size each named dim took from `given_shapes`, and the input it came from.
        let mut named: HashMap<String, (i64, String)> = HashMap::new();
        for (position, input) in inputs.enumerate() {
            if self.values.contains_key(&input.name) {
                return Err(ImportError::Model {
                    message: format!("graph input '{}' is declared twice", input.name),
                });
            }
            let (mut dims, elem, mut dim_names) =
                input_type(input, options).map_err(|m| ImportError::Model {
                    message: format!("graph input '{}': {m}", input.name),
                })?;
            if let Some(given) = options.given_shapes.get(position) {
                given_sizes(&input.name, &mut dims, &mut dim_names, given, &mut named)?;
            }
            check_size(&dims).map_err(|m| ImportError::Model {
                message: format!("graph input '{}': {m}", input.name),
            })?;
            if let Some(t) = options.constants.get(&input.name) {
                let fits = t.dtype().to_type() == elem
                    && t.rank() == dims.len()
                    && dims
                        .iter()
                        .zip(t.shape())
                        .all(|(d, n)| *d == DYNAMIC || *d == *n as i64);
                if !fits {
                    return Err(ImportError::Model {
                        message: format!(
                            "the value given for graph input '{}' ({} {:?}) does not fit its type",
                            input.name,
                            t.dtype(),
                            t.shape()
                        ),
                    });
                }
                let v = self.constant(t.clone());
                self.values.insert(input.name.clone(), v);
                notes.push(format!(
                    "graph input '{}' specialized to the given value (a constant in the imported function)",
                    input.name
                ));
                continue;
            }
            let ty = self.ctx.tensor_type(&dims, elem);
            let v = self.ctx.add_block_arg(self.block, ty);
            self.dim_names.push(dim_names);
            self.values.insert(input.name.clone(), v);
            self.arg_names.insert(v, input.name.clone());
            names.push(input.name.clone());
        }
        Ok((names, notes))
    }

    fn bind_initializers(&mut self, graph: &GraphProto) -> Result<(), ImportError> {
        for t in &graph.initializer {
            let v = self.tensor_constant(t).map_err(|m| ImportError::Model {
                message: format!("initializer '{}': {m}", t.name),
            })?;
            self.values.insert(t.name.clone(), v);
        }
        Ok(())
    }

    /// A `graph.constant` holding `TensorProto` `t`.
    pub(crate) fn tensor_constant(&mut self, t: &TensorProto) -> Result<Value, String> {
        check_size(&t.dims)?;
        let attr = tensor_attr(self.ctx, t, self.base.as_deref())?;
        Ok(self.constant_attr(attr))
    }

    /// A `graph.constant` holding dense attribute `attr`.
    fn constant_attr(&mut self, attr: Attribute) -> Value {
        dlc_graph::build_constant(
            self.ctx,
            InsertPoint::End(self.block),
            attr,
            Location::Unknown,
        )
    }

    /// A `graph.constant` holding `t`.
    pub(crate) fn constant(&mut self, t: Literal) -> Value {
        let attr = t.to_dense_attr(self.ctx);
        let v = self.constant_attr(attr);
        self.constants.insert(v, t);
        v
    }

    /// The first graph input (in operand order, depth first) that `v` is computed from, if
    /// any: giving its value may make `v` a constant (a shape computed from a shape input,
    /// as ONNX function bodies do).
    fn graph_input_behind(&self, v: Value) -> Option<String> {
        let mut seen = HashSet::new();
        let mut stack = vec![v];
        while let Some(v) = stack.pop() {
            if !seen.insert(v) {
                continue;
            }
            if let Some(name) = self.arg_names.get(&v) {
                return Some(name.clone());
            }
            if let Some(op) = self.ctx.defining_op(v) {
                stack.extend(self.ctx.operands(op).iter().rev());
            }
        }
        None
    }

    /// The value of `v` if it is a constant.
    pub(crate) fn constant_value(&mut self, v: Value) -> Option<Literal> {
        if let Some(t) = self.constants.get(&v) {
            return Some(t.clone());
        }
        let op = self.ctx.defining_op(v)?;
        let attr = self.ctx.view::<ConstantOp>(op)?.value(self.ctx)?;
        if !foldable(self.ctx, self.ctx.attr_type(attr)?) {
            return None;
        }
        let t = Literal::from_dense_attr(self.ctx, attr).ok()?;
        self.constants.insert(v, t.clone());
        Some(t)
    }

    fn import_node(&mut self, node: &NodeProto, index: usize) -> Result<(), ImportError> {
        let opset = self.opset;
        let label = node_label(node, index);
        let error = |message: String| ImportError::Node {
            node: label.clone(),
            op_type: node.op_type.clone(),
            opset,
            message,
        };
        let handler = match node.domain.as_str() {
            "" | "ai.onnx" => ops::handler(&node.op_type),
            other => match ops::domain_ops(other) {
                Some(_) => ops::domain_handler(other, &node.op_type),
                None => {
                    return Err(error(format!(
                        "operator domain '{other}' is not supported (dlc imports {} operators)",
                        ops::domain_list()
                    )))
                }
            },
        };
        let Some(handler) = handler else {
            return Err(error(match ops::domain_ops(&node.domain) {
                Some(known) => format!(
                    "operator {}.{} is not supported (of domain {}, dlc imports {})",
                    node.domain,
                    node.op_type,
                    node.domain,
                    known.join(", ")
                ),
                None => format!("operator {} is not supported", node.op_type),
            }));
        };
        let name = if node.name.is_empty() {
            node.output.first().cloned().unwrap_or_default()
        } else {
            node.name.clone()
        };
        let ident = self.ctx.ident(&name);
        let loc = self.ctx.composite_loc(CompositeLocKind::Name {
            name: ident,
            child: None,
        });
        let mut cx = NodeCx {
            imp: self,
            node,
            loc,
            opset,
            used: HashSet::new(),
        };
        let results = handler(&mut cx).and_then(|r| {
            cx.check_attributes()?;
            Ok(r)
        });
        let results = match results {
            Ok(r) => r,
            Err(NodeError::Message(m)) => return Err(error(m)),
            Err(NodeError::NeedsConstant(input)) => {
                return Err(ImportError::NeedsConstant {
                    input,
                    node: label,
                    op_type: node.op_type.clone(),
                    opset,
                })
            }
        };
        for (i, name) in node.output.iter().enumerate() {
            if name.is_empty() {
                continue;
            }
            let Some(v) = results.get(i) else {
                return Err(error(format!(
                    "output #{i} ('{name}') is not supported (dlc produces only the first {} output(s) of this operator)",
                    results.len()
                )));
            };
            self.values.insert(name.clone(), *v);
        }
        Ok(())
    }

    /// Erases the ops of `block` but its terminator `keep` whose results end unused
    /// (constants whose users folded away, outputs of unused nodes): graph ops are pure, so
    /// one backward sweep finds them all.
    fn sweep(&mut self, block: dlc_ir::Block, keep: Op) {
        let ops: Vec<Op> = self.ctx.block_ops(block).collect();
        for op in ops.into_iter().rev() {
            let unused = op != keep && self.ctx.results(op).all(|r| self.ctx.uses(r).is_empty());
            if unused {
                self.forget(op);
                self.ctx.erase_op(op);
            }
        }
    }

    /// Drops what the importer knows of `op`'s results, before `op` is erased.
    fn forget(&mut self, op: Op) {
        for r in self.ctx.results(op).collect::<Vec<_>>() {
            self.forget_value(r);
        }
    }

    /// Drops what the importer knows of value `v` (its op is being erased).
    fn forget_value(&mut self, v: Value) {
        self.constants.remove(&v);
        self.dequantized.remove(&v);
        self.shape_values.remove(&v);
        self.monomials.remove(&v);
        self.dim_values.retain(|_, d| *d != v);
    }

    /// Erases every op of `region` (one the importer built and will not use), last first.
    fn discard(&mut self, region: Region) {
        for block in self.ctx.blocks(region).to_vec() {
            let ops: Vec<Op> = self.ctx.block_ops(block).collect();
            for op in ops.into_iter().rev() {
                let mut results = Vec::new();
                self.ctx
                    .for_each_op(op, &mut |inner| results.extend(self.ctx.results(inner)));
                for r in results {
                    self.forget_value(r);
                }
                self.ctx.erase_op(op);
            }
        }
    }

    /// Ends the function with `func.return results`, erases the ops nothing uses, and wraps it
    /// in a module.
    fn finish(mut self, name: &str, results: &[Value]) -> (Op, Op) {
        let spec = OpSpec::new(self.ctx, "func.return", Location::Unknown).operands(results);
        let ret = self.ctx.build(InsertPoint::End(self.block), spec);
        self.sweep(self.block, ret);
        let ctx = self.ctx;
        let inputs: Vec<Type> = ctx
            .block_args(self.block)
            .iter()
            .map(|v| ctx.value_type(*v))
            .collect();
        let outputs: Vec<Type> = results.iter().map(|v| ctx.value_type(*v)).collect();
        let fn_ty = ctx.function_type(&inputs, &outputs);
        let (module_region, module_block) = ctx.create_region_with_block(&[]);
        let spec = OpSpec::new(ctx, "builtin.module", Location::Unknown).region(module_region);
        let module = ctx.create_op(spec);
        let name = ctx.string_attr(name);
        let ty_attr = ctx.type_attr(fn_ty);
        let mut spec = OpSpec::new(ctx, "func.func", Location::Unknown)
            .attr(ctx, "sym_name", name)
            .attr(ctx, "function_type", ty_attr)
            .region(self.region);
        if self.dim_names.iter().flatten().any(|n| !n.is_empty()) {
            let arg_attrs = dim_name_attrs(ctx, &self.dim_names);
            spec.set_attr(ctx, "arg_attrs", arg_attrs);
        }
        let func = ctx.build(InsertPoint::End(module_block), spec);
        (module, func)
    }
}

/// `arg_attrs` giving each argument its [`dlc_graph::shapes::DIM_NAMES`], so the `?` dims of
/// one `dim_param` are one size for the graph dialect (a runtime constraint).
fn dim_name_attrs(ctx: &mut Context, names: &[Vec<String>]) -> Attribute {
    let dicts: Vec<Attribute> = names
        .iter()
        .map(|dims| {
            if dims.iter().all(String::is_empty) {
                return ctx.intern_attr(AttrKind::Dict(Box::new([])));
            }
            let strings: Vec<Attribute> = dims.iter().map(|n| ctx.string_attr(n)).collect();
            let list = ctx.intern_attr(AttrKind::Array(strings.into()));
            let entry = NamedAttr {
                name: ctx.ident(dlc_graph::shapes::DIM_NAMES),
                value: list,
            };
            ctx.intern_attr(AttrKind::Dict(Box::new([entry])))
        })
        .collect();
    ctx.intern_attr(AttrKind::Array(dicts.into()))
}

/// How errors name a node: `'its name'`, or for an unnamed one its position and first output,
/// `#3 (unnamed, output 'y')`.
pub fn node_label(node: &NodeProto, index: usize) -> String {
    if !node.name.is_empty() {
        return format!("'{}'", node.name);
    }
    match node.output.first() {
        Some(out) => format!("#{index} (unnamed, output '{out}')"),
        None => format!("#{index} (unnamed)"),
    }
}

/// The dims and element type of graph input `input`, with the options' sizes applied, and the
/// `dim_param` name of each dim left dynamic (`""` for none).
fn input_type(
    input: &crate::proto::ValueInfoProto,
    options: &ImportOptions,
) -> Result<(Vec<i64>, Type, Vec<String>), String> {
    let Some(type_proto::Value::TensorType(t)) =
        input.r#type.as_ref().and_then(|t| t.value.as_ref())
    else {
        return Err("is not a tensor (sequence, map and optional inputs are not supported)".into());
    };
    let elem = element_type(t.elem_type)?;
    if let Some(shape) = options.input_shapes.get(&input.name) {
        return Ok((shape.clone(), elem, vec![String::new(); shape.len()]));
    }
    let Some(shape) = &t.shape else {
        return Err("has no shape; give one with --input-shape".into());
    };
    use crate::proto::tensor_shape_proto::dimension::Value as Dim;
    let mut names = Vec::with_capacity(shape.dim.len());
    let dims = shape
        .dim
        .iter()
        .map(|d| {
            let (size, name) = match &d.value {
                Some(Dim::DimValue(n)) if *n >= 0 => (*n, ""),
                Some(Dim::DimParam(name)) if anonymous_dim(name) => (DYNAMIC, ""),
                Some(Dim::DimParam(name)) => (
                    options.dims.get(name).copied().unwrap_or(DYNAMIC),
                    name.as_str(),
                ),
                _ => (DYNAMIC, ""),
            };
            names.push(if size == DYNAMIC {
                name.to_string()
            } else {
                String::new()
            });
            size
        })
        .collect();
    Ok((dims, elem, names))
}

/// Gives the dims of graph input `input` left dynamic (`dims`, named `names`) the sizes of
/// `given`, the shape of the value it will be run with, when the ranks agree. A named dim takes
/// one size in every input that has it: `named` holds the sizes taken so far.
fn given_sizes(
    input: &str,
    dims: &mut [i64],
    names: &mut [String],
    given: &[i64],
    named: &mut HashMap<String, (i64, String)>,
) -> Result<(), ImportError> {
    if given.len() != dims.len() {
        return Ok(()); // the run reports the mismatch against the declared rank
    }
    for (i, &size) in given.iter().enumerate() {
        if dims[i] != DYNAMIC || size < 0 {
            continue;
        }
        let name = std::mem::take(&mut names[i]);
        if !name.is_empty() {
            let (first, from) = named
                .entry(name.clone())
                .or_insert_with(|| (size, input.to_string()));
            if *first != size {
                return Err(ImportError::Model {
                    message: format!(
                        "graph input '{input}': dim {i} ('{name}') is {size} in the given value, but {first} in graph input '{from}'"
                    ),
                });
            }
        }
        dims[i] = size;
    }
    Ok(())
}

/// Whether `dim_param` names no dim but says "unknown": `?` (as paddle2onnx writes every
/// free dim, which are not one size), empty, or a number. onnxruntime runs such models with
/// those dims differing, so they are not made equal.
fn anonymous_dim(name: &str) -> bool {
    let name = name.trim();
    name.chars().all(|c| c == '?') || name.parse::<i64>().is_ok()
}

/// What a handler sees of the node it imports: its inputs and attributes, and the way to build
/// ops.
pub struct NodeCx<'i, 'c> {
    pub(crate) imp: &'i mut Importer<'c>,
    pub(crate) node: &'i NodeProto,
    pub(crate) loc: Location,
    /// The model's `ai.onnx` opset.
    pub opset: i64,
    used: HashSet<&'i str>,
}

impl<'i> NodeCx<'i, '_> {
    /// The number of inputs given (trailing empty names count).
    pub fn num_inputs(&self) -> usize {
        self.node.input.len()
    }

    /// The number of outputs the node declares.
    pub fn num_outputs(&self) -> usize {
        self.node.output.iter().filter(|o| !o.is_empty()).count()
    }

    /// Input `i`, or `None` when absent (past the end, or an empty name).
    pub fn opt_input(&self, i: usize) -> Option<Value> {
        let name = self.node.input.get(i).filter(|n| !n.is_empty())?;
        self.imp.values.get(name).copied()
    }

    /// Input `i`, which the operator requires.
    pub fn input(&self, i: usize) -> NodeResult<Value> {
        self.opt_input(i)
            .ok_or_else(|| format!("input #{i} is required").into())
    }

    /// Every input, all required.
    pub fn inputs(&self) -> NodeResult<Vec<Value>> {
        (0..self.num_inputs()).map(|i| self.input(i)).collect()
    }

    /// The value of input `i` when it is present: it must be a constant (or foldable to one).
    pub fn const_input(&mut self, i: usize) -> NodeResult<Option<Literal>> {
        let Some(v) = self.opt_input(i) else {
            return Ok(None);
        };
        if let Some(t) = self.imp.constant_value(v) {
            return Ok(Some(t));
        }
        if let Some(name) = self.imp.graph_input_behind(v) {
            return Err(NodeError::NeedsConstant(name));
        }
        Err(format!(
            "input #{i} ('{}') must be a constant, or computed from constants only (its value depends on the graph inputs)",
            self.node.input[i]
        )
        .into())
    }

    /// Input `i` as integers (shapes, axes, pads, bounds), when present.
    pub fn ints_input(&mut self, i: usize) -> NodeResult<Option<Vec<i64>>> {
        let Some(t) = self.const_input(i)? else {
            return Ok(None);
        };
        if !t.dtype().is_int() {
            return Err(format!("input #{i} must be an integer tensor, not {}", t.dtype()).into());
        }
        Ok(Some(t.to_i64_vec()))
    }

    fn attribute(&mut self, name: &str) -> Option<&'i AttributeProto> {
        let a = self.node.attribute.iter().find(|a| a.name == name)?;
        self.used.insert(a.name.as_str());
        Some(a)
    }

    /// Marks attribute `name` as read (it is valid and dlc ignores it).
    pub fn ignore(&mut self, name: &str) {
        self.attribute(name);
    }

    /// True if the node has attribute `name` (marking it read).
    pub fn has_attr(&mut self, name: &str) -> bool {
        self.attribute(name).is_some()
    }

    /// Integer attribute `name`.
    pub fn attr_int(&mut self, name: &str) -> Option<i64> {
        self.attribute(name).map(|a| a.i)
    }

    /// Integer attribute `name`, or `default`.
    pub fn int_or(&mut self, name: &str, default: i64) -> i64 {
        self.attr_int(name).unwrap_or(default)
    }

    /// Float attribute `name`, or `default`.
    pub fn float_or(&mut self, name: &str, default: f64) -> f64 {
        self.attribute(name).map_or(default, |a| a.f as f64)
    }

    /// Integer-list attribute `name`.
    pub fn attr_ints(&mut self, name: &str) -> Option<Vec<i64>> {
        self.attribute(name).map(|a| a.ints.clone())
    }

    /// Float-list attribute `name`.
    pub fn attr_floats(&mut self, name: &str) -> Option<Vec<f32>> {
        self.attribute(name).map(|a| a.floats.clone())
    }

    /// String attribute `name` (UTF-8, lossy).
    pub fn attr_string(&mut self, name: &str) -> Option<String> {
        self.attribute(name)
            .map(|a| String::from_utf8_lossy(&a.s).into_owned())
    }

    /// Tensor attribute `name`.
    pub fn attr_tensor(&mut self, name: &str) -> Option<&'i TensorProto> {
        self.attribute(name).and_then(|a| a.t.as_ref())
    }

    /// Graph attribute `name` (a subgraph, for [`NodeCx::inline_graph`]).
    pub fn attr_graph(&mut self, name: &str) -> Option<&'i GraphProto> {
        self.attribute(name).and_then(|a| a.g.as_ref())
    }

    /// The value of `v` if it is a constant (or folded to one).
    pub fn constant_of(&mut self, v: Value) -> Option<Literal> {
        self.imp.constant_value(v)
    }

    /// The packed little-endian bytes of dense constant `v` (its `graph.constant`'s), undecoded,
    /// and whether they are a splat's one element: for handlers that read a large constant's
    /// bytes directly.
    pub fn constant_bytes(&self, v: Value) -> Option<(bool, &[u8])> {
        let ctx = &*self.imp.ctx;
        let attr = ctx.view::<ConstantOp>(ctx.defining_op(v)?)?.value(ctx)?;
        match ctx.attr_kind(attr) {
            AttrKind::DenseElements(d) => Some((d.splat, &d.data[..])),
            _ => None,
        }
    }

    /// A constant holding dense attribute `attr` (one a handler built from bytes).
    pub fn attr_constant(&mut self, attr: Attribute) -> Value {
        self.imp.constant_attr(attr)
    }

    /// The value named `name` in scope, if it is a constant (or folded to one).
    pub fn outer_constant(&mut self, name: &str) -> Option<Literal> {
        let v = *self.imp.values.get(name)?;
        self.imp.constant_value(v)
    }

    /// Builds the one block of a new region (of a control-flow op) with arguments of
    /// `arg_types`: `body` imports into it, given the arguments, and returns the values the
    /// block yields; it ends with `graph.yield` of them, and its ops nothing uses are erased.
    /// Returns the region and the yielded values; on an error the block is erased again.
    pub fn region_block(
        &mut self,
        arg_types: &[Type],
        body: impl FnOnce(&mut Self, &[Value]) -> NodeResult<Vec<Value>>,
    ) -> NodeResult<(Region, Vec<Value>)> {
        let (region, block) = self.imp.ctx.create_region_with_block(arg_types);
        let args = self.imp.ctx.block_args(block).to_vec();
        let outer = std::mem::replace(&mut self.imp.block, block);
        let result = body(self, &args);
        self.imp.block = outer;
        match result {
            Ok(values) => {
                let spec = OpSpec::new(self.imp.ctx, "graph.yield", self.loc).operands(&values);
                let term = self.imp.ctx.build(InsertPoint::End(block), spec);
                self.imp.sweep(block, term);
                Ok((region, values))
            }
            Err(e) => {
                self.imp.discard(region);
                Err(e)
            }
        }
    }

    /// Erases a region [`NodeCx::region_block`] built that ends up unused.
    pub fn discard_region(&mut self, region: Region) {
        self.imp.discard(region);
    }

    /// Builds control-flow op `name` (`graph.if`, `graph.loop`) here from its parts, and
    /// returns its results. The caller makes the types right; the module is verified after
    /// the import.
    pub fn region_op(
        &mut self,
        name: &str,
        operands: &[Value],
        result_types: &[Type],
        regions: Vec<Region>,
    ) -> Vec<Value> {
        let mut spec = OpSpec::new(self.imp.ctx, name, self.loc)
            .operands(operands)
            .results(result_types);
        for r in regions {
            spec = spec.region(r);
        }
        let op = self.imp.ctx.build(InsertPoint::End(self.imp.block), spec);
        self.imp.ctx.results(op).collect()
    }

    /// Imports subgraph `g` (graph attribute `what`) here, its inputs bound to `inputs` in
    /// order, and returns its outputs. Its nodes see the enclosing graph's values (ONNX's
    /// outer scope); its own names, initializers included, vanish after it.
    pub fn inline_graph(
        &mut self,
        what: &str,
        g: &GraphProto,
        inputs: &[Value],
    ) -> NodeResult<Vec<Value>> {
        let initializers: HashSet<&str> = g.initializer.iter().map(|t| t.name.as_str()).collect();
        let formal: Vec<_> = g
            .input
            .iter()
            .filter(|i| !initializers.contains(i.name.as_str()))
            .collect();
        if formal.len() != inputs.len() {
            return Err(format!(
                "attribute '{what}' is a graph of {} inputs; it must take {}",
                formal.len(),
                inputs.len()
            )
            .into());
        }
        self.imp.subgraph_nodes = self.imp.subgraph_nodes.saturating_add(g.node.len());
        if self.imp.subgraph_nodes > MAX_SUBGRAPH_NODES {
            return Err(format!(
                "subgraphs (branches, unrolled loop bodies) add more than {MAX_SUBGRAPH_NODES} \
                 nodes to the model"
            )
            .into());
        }
        let saved = self.imp.values.clone();
        let result = self.inline_nodes(what, g, &formal, inputs);
        self.imp.values = saved;
        result
    }

    fn inline_nodes(
        &mut self,
        what: &str,
        g: &GraphProto,
        formal: &[&crate::proto::ValueInfoProto],
        inputs: &[Value],
    ) -> NodeResult<Vec<Value>> {
        for (decl, v) in formal.iter().zip(inputs) {
            if let Some(type_proto::Value::TensorType(t)) =
                decl.r#type.as_ref().and_then(|t| t.value.as_ref())
            {
                let (elem, shape) = (self.elem(*v), self.shape(*v));
                let declared = element_type(t.elem_type).ok();
                use crate::proto::tensor_shape_proto::dimension::Value as Dim;
                let dims_fit = t.shape.as_ref().is_none_or(|s| {
                    s.dim.len() == shape.len()
                        && s.dim.iter().zip(&shape).all(|(d, n)| match &d.value {
                            Some(Dim::DimValue(d)) => d == n || *n == DYNAMIC,
                            _ => true,
                        })
                });
                if (t.elem_type != 0 && declared != Some(elem)) || !dims_fit {
                    return Err(format!(
                        "attribute '{what}': its input '{}' is declared with another type than the {elem:?} {} it receives",
                        decl.name,
                        show_shape(&shape)
                    )
                    .into());
                }
            }
            self.imp.values.insert(decl.name.clone(), *v);
        }
        for t in &g.initializer {
            let v = self
                .imp
                .tensor_constant(t)
                .map_err(|m| format!("attribute '{what}': initializer '{}': {m}", t.name))?;
            self.imp.values.insert(t.name.clone(), v);
        }
        for (index, node) in g.node.iter().enumerate() {
            if let Some(i) = node
                .input
                .iter()
                .find(|i| !i.is_empty() && !self.imp.values.contains_key(i.as_str()))
            {
                return Err(format!(
                    "attribute '{what}': input '{i}' of its node {} is not defined before it",
                    node_label(node, index)
                )
                .into());
            }
            match self.imp.import_node(node, index) {
                Ok(()) => {}
                Err(ImportError::NeedsConstant { input, .. }) => {
                    return Err(NodeError::NeedsConstant(input))
                }
                Err(e) => return Err(format!("in attribute '{what}': {e}").into()),
            }
        }
        g.output
            .iter()
            .map(|o| {
                self.imp.values.get(&o.name).copied().ok_or_else(|| {
                    format!(
                        "attribute '{what}': its output '{}' is not produced by any node",
                        o.name
                    )
                    .into()
                })
            })
            .collect()
    }

    /// Errors on an attribute no handler read: dlc does not know what it would change.
    fn check_attributes(&self) -> NodeResult<()> {
        match self
            .node
            .attribute
            .iter()
            .find(|a| !self.used.contains(a.name.as_str()))
        {
            Some(a) => Err(format!("attribute '{}' is not supported", a.name).into()),
            None => Ok(()),
        }
    }

    /// The shape of `v` ([`DYNAMIC`] for `?`).
    pub fn shape(&self, v: Value) -> Vec<i64> {
        let ctx = &*self.imp.ctx;
        ctx.shape(ctx.value_type(v))
            .map_or_else(Vec::new, <[i64]>::to_vec)
    }

    /// The static shape of `v`, or an error naming what needs it.
    pub fn static_shape(&self, v: Value, what: &str) -> NodeResult<Vec<i64>> {
        let shape = self.shape(v);
        if shape.contains(&DYNAMIC) {
            return Err(format!(
                "{what} needs a static shape, and this input's is {} (give the sizes with --dim or --input-shape)",
                show_shape(&shape)
            )
            .into());
        }
        Ok(shape)
    }

    /// The element type of `v`.
    pub fn elem(&self, v: Value) -> Type {
        let ctx = &*self.imp.ctx;
        ctx.element_type(ctx.value_type(v))
    }

    /// True if `v` has a float element type.
    pub fn is_float(&self, v: Value) -> bool {
        let ctx = &*self.imp.ctx;
        ctx.float_kind(self.elem(v)).is_some()
    }

    /// Builds graph op `name` with its result type inferred, folding it to a constant when
    /// every operand is one. A shape or dtype the op rejects is an error at this node.
    pub fn op(
        &mut self,
        name: &str,
        operands: &[Value],
        attrs: &[(&str, Attribute)],
    ) -> NodeResult<Value> {
        let at = InsertPoint::End(self.imp.block);
        let op = dlc_graph::build(self.imp.ctx, at, name, operands, attrs, self.loc)
            .map_err(|d| d.message.clone())?;
        let result = self.imp.ctx.result(op, 0);
        if let Err(m) = check_size(&self.shape(result)) {
            self.imp.ctx.erase_op(op);
            return Err(m.into());
        }
        Ok(self.fold(op, operands))
    }

    /// Builds graph op `name` with result type `ty` (ops whose type does not follow from their
    /// operands: cast, constant, fill), folding as [`NodeCx::op`]. The caller makes `ty` right;
    /// the module is verified as a whole after the import.
    pub fn op_typed(
        &mut self,
        name: &str,
        operands: &[Value],
        attrs: &[(&str, Attribute)],
        ty: Type,
    ) -> NodeResult<Value> {
        let at = InsertPoint::End(self.imp.block);
        let op = dlc_graph::build_with_type(self.imp.ctx, at, name, operands, attrs, ty, self.loc);
        let result = self.imp.ctx.result(op, 0);
        if let Err(m) = check_size(&self.shape(result)) {
            self.imp.ctx.erase_op(op);
            return Err(m.into());
        }
        Ok(self.fold(op, operands))
    }

    /// Builds graph op `name` with an `index` result (`graph.read_size`, `graph.dim`); it is
    /// never folded.
    pub fn index_op(
        &mut self,
        name: &str,
        operands: &[Value],
        attrs: &[(&str, Attribute)],
    ) -> Value {
        let at = InsertPoint::End(self.imp.block);
        let op = dlc_graph::build_with_type(
            self.imp.ctx,
            at,
            name,
            operands,
            attrs,
            Type::INDEX,
            self.loc,
        );
        self.imp.ctx.result(op, 0)
    }

    /// Builds `graph.rnn` (`dlc_graph::recurrence`) with its result types inferred, returning
    /// every result; it is never folded.
    pub fn rnn_op(
        &mut self,
        operands: &[Value],
        attrs: &[(&str, Attribute)],
    ) -> NodeResult<Vec<Value>> {
        let at = InsertPoint::End(self.imp.block);
        let op = dlc_graph::recurrence::build_rnn(self.imp.ctx, at, operands, attrs, self.loc)
            .map_err(|d| d.message.clone())?;
        let results: Vec<Value> = self.imp.ctx.results(op).collect();
        for &r in &results {
            if let Err(m) = check_size(&self.shape(r)) {
                self.imp.ctx.erase_op(op);
                return Err(m.into());
            }
        }
        Ok(results)
    }

    /// Replaces `op` by a constant when all `operands` are constants and the result is small
    /// or a splat; returns the value standing for its result.
    fn fold(&mut self, op: Op, operands: &[Value]) -> Value {
        let result = self.imp.ctx.result(op, 0);
        let foldable = foldable(self.imp.ctx, self.imp.ctx.value_type(result));
        // A transpose of a constant of any size is moved once here rather than by a kernel at
        // every run (Gemm's `transB` of ddddocr's 8210x1024 classifier: 31 of its 43 ms a
        // run): moving costs a copy of bytes the model holds already, and no decoding. A
        // large reshape stays an op, which costs nothing at run time.
        if foldable || self.imp.ctx.view::<TransposeOp>(op).is_some() {
            if let Some(attr) = self.moved_constant(op, operands) {
                self.imp.ctx.erase_op(op);
                return self.imp.constant_attr(attr);
            }
        }
        if !foldable {
            return result;
        }
        let values: Option<Vec<Literal>> = operands
            .iter()
            .map(|v| self.imp.constant_value(*v))
            .collect();
        let Some(values) = values else {
            self.record_shape_value(op, operands);
            return result;
        };
        let Ok(mut folded) = evaluate_op(self.imp.ctx, op, &values) else {
            return result;
        };
        let Some(t) = folded.pop() else {
            return result;
        };
        self.imp.ctx.erase_op(op);
        self.imp.constant(t)
    }

    /// The value of transpose or reshape `op` of a constant, its bytes moved
    /// ([`Context::dense_transposed`]) rather than its elements decoded and evaluated: a
    /// recurrent layer's weights are reordered this way (a bidirectional GRU's 3 MB took 60 ms
    /// through the interpreter). `None` for other ops and operands.
    fn moved_constant(&mut self, op: Op, operands: &[Value]) -> Option<Attribute> {
        let ctx = &mut *self.imp.ctx;
        let &[x] = operands else {
            return None;
        };
        let attr = ctx.view::<ConstantOp>(ctx.defining_op(x)?)?.value(ctx)?;
        let shape = dlc_tensor::static_shape(ctx.shape(ctx.value_type(x))?)?;
        let perm: Vec<usize> = match GraphOps::of(ctx, op)? {
            GraphOps::ReshapeOp(_) => (0..shape.len()).collect(),
            GraphOps::TransposeOp(_) => array_attr(ctx, op, "perm")?
                .iter()
                .map(|&p| usize::try_from(p).ok())
                .collect::<Option<_>>()?,
            _ => return None,
        };
        let ty = ctx.value_type(ctx.result(op, 0));
        ctx.dense_transposed(attr, &shape, &perm, ty)
    }

    /// A constant of `t`.
    pub fn constant(&mut self, t: Literal) -> Value {
        self.imp.constant(t)
    }

    /// A splat constant of static shape `dims` holding `value` (one element), without
    /// materializing its elements.
    pub fn splat_constant(&mut self, value: &Literal, dims: &[i64]) -> NodeResult<Value> {
        check_size(dims)?;
        let ty = self.imp.ctx.tensor_type(dims, value.dtype().to_type());
        let element = match value.get(0) {
            dlc_tensor::Scalar::Float(v) => dlc_ir::DenseValue::Float(v),
            dlc_tensor::Scalar::Int(v) => dlc_ir::DenseValue::Int(v as i128),
            dlc_tensor::Scalar::Bool(b) => dlc_ir::DenseValue::Int(b as i128),
        };
        let attr = self.imp.ctx.dense_attr(ty, &[element]);
        Ok(self.imp.constant_attr(attr))
    }

    /// A constant from `TensorProto` `t`.
    pub fn tensor_constant(&mut self, t: &TensorProto) -> NodeResult<Value> {
        Ok(self.imp.tensor_constant(t)?)
    }

    /// The context, to make attributes.
    pub fn ctx(&mut self) -> &mut Context {
        self.imp.ctx
    }
}

/// Whether a tensor of type `ty` is small enough to hold as a [`Literal`]: a static shape of
/// at most [`MAX_FOLD_ELEMENTS`] elements.
fn foldable(ctx: &Context, ty: Type) -> bool {
    ctx.shape(ty)
        .and_then(|dims| {
            dims.iter()
                .try_fold(1usize, |n, d| n.checked_mul(usize::try_from(*d).ok()?))
        })
        .is_some_and(|n| n <= MAX_FOLD_ELEMENTS)
}

/// Errors when a tensor of `dims` would exceed [`MAX_TENSOR_ELEMENTS`]; `?` and 0 count as 1,
/// so every product of some of the dims stays in range (a zero-size tensor cannot carry
/// dims of 2^62).
pub fn check_size(dims: &[i64]) -> Result<(), String> {
    if dims.iter().any(|d| *d < 0 && *d != DYNAMIC) {
        return Err(format!("a tensor of dims {dims:?} has a negative dim"));
    }
    let count = dims.iter().try_fold(1i64, |n, d| {
        let d = if *d == DYNAMIC || *d == 0 { 1 } else { *d };
        n.checked_mul(d).filter(|n| *n <= MAX_TENSOR_ELEMENTS)
    });
    match count {
        Some(_) => Ok(()),
        None => Err(format!(
            "a tensor of shape {} is too large (more than 2^48 elements)",
            show_shape(dims)
        )),
    }
}

/// `1x3x?x?` for messages.
pub fn show_shape(shape: &[i64]) -> String {
    if shape.is_empty() {
        return "a scalar".into();
    }
    shape
        .iter()
        .map(|d| {
            if *d == DYNAMIC {
                "?".to_string()
            } else {
                d.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("x")
}
