//! ONNX models in `dlc-run`: import to graph IR, specializing graph inputs that must be
//! constants on the values given for them, compile with the model cache's help, and compare
//! outputs with reference tensors (`--expected`).
//!
//! An input that feeds an operand the graph dialect needs as an attribute (a Reshape shape,
//! Slice bounds, pads, axes) cannot stay an argument. When its value is known — given with
//! `--inputs` — the import is repeated with that input frozen to its value, as tract and
//! onnx-mlir do in their constant-input modes, and a note says so.
//!
//! The imported module stays in memory for [`crate::Model::compile_module`]: its weights are
//! never printed as text and parsed back. [`compile_onnx`] skips the import altogether when the
//! model cache holds the model's lowered module (`import_plan.rs`). [`compile_onnx_bytes`] does
//! the same for a model held in memory (the Python package's `onnx.ModelProto` and `bytes`).

use crate::import_plan::ImportPlan;
use crate::model::{entry_function, Recreate};
use crate::{model_cache, Model, ModelOptions};
use bytes::Bytes;
use dlc_ir::{Context, Op};
use dlc_onnx::{ImportError, ImportOptions};
use dlc_runtime::Tensor;
use dlc_tensor::Literal;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// An imported ONNX model, for [`crate::Model::compile_module`].
pub struct OnnxImport {
    /// The context holding the module.
    pub ctx: Context,
    /// The `builtin.module`, verified.
    pub module: Op,
    /// What determines the module, for the model cache's key: a hash of the model file's
    /// bytes and the import options.
    pub key: Vec<u8>,
    /// For each argument of the function, the index of its ONNX graph input.
    pub arguments: Vec<usize>,
    /// The ONNX graph inputs, in order.
    pub graph_inputs: Vec<String>,
    /// The ONNX graph outputs, in order: the function's results.
    pub graph_outputs: Vec<String>,
    /// The graph inputs specialized on their given values, in the order the import met them.
    pub specialized: Vec<String>,
    /// Notes for the user (specialized inputs).
    pub notes: Vec<String>,
}

/// Imports `path`. `given` holds a value for every graph input when the caller has them (from
/// `--inputs`): inputs that must be constant are specialized on theirs.
pub fn import_onnx(
    path: &Path,
    options: ImportOptions,
    given: Option<&[Tensor]>,
) -> Result<OnnxImport, String> {
    let origin = Origin::File(path.to_owned());
    let bytes = origin.read()?;
    import_bytes(&origin, &bytes, &file_hash(&bytes), options, given)
}

/// Where an ONNX model's bytes come from.
#[derive(Clone)]
enum Origin {
    /// A model file; its external data (weights in files of their own) is read beside it.
    File(PathBuf),
    /// A model in memory, named `name` in diagnostics; it cannot have external data.
    Bytes { name: String, bytes: Bytes },
}

impl Origin {
    /// The name in diagnostics.
    fn name(&self) -> String {
        match self {
            Origin::File(path) => path.display().to_string(),
            Origin::Bytes { name, .. } => name.clone(),
        }
    }

    /// The directory external data is read from.
    fn dir(&self) -> Option<&Path> {
        match self {
            Origin::File(path) => path.parent(),
            Origin::Bytes { .. } => None,
        }
    }

    /// The model's bytes, which the decoded model's tensors share.
    fn read(&self) -> Result<Bytes, String> {
        match self {
            Origin::File(path) => std::fs::read(path)
                .map(Bytes::from)
                .map_err(|e| format!("{}: error: cannot read: {e}\n", path.display())),
            Origin::Bytes { bytes, .. } => Ok(bytes.clone()),
        }
    }
}

/// [`import_onnx`] of the model `origin` holding `bytes`, whose [`file_hash`] is `hash`.
fn import_bytes(
    origin: &Origin,
    bytes: &Bytes,
    hash: &[u8; 32],
    mut options: ImportOptions,
    given: Option<&[Tensor]>,
) -> Result<OnnxImport, String> {
    let name = origin.name();
    let model =
        dlc_onnx::decode_model(bytes.clone()).map_err(|e| format!("{name}: error: {e}\n"))?;
    let graph_inputs = graph_input_names(&model);
    let mut specialized = Vec::new();
    loop {
        let mut ctx = dlc_dialects::context();
        match dlc_onnx::import_model(&mut ctx, &model, origin.dir(), &options) {
            Ok(imported) => {
                dlc_ir::verify(&ctx, imported.module).map_err(|d| {
                    format!(
                        "{name}: error: the imported graph does not verify: {}\n",
                        d.message
                    )
                })?;
                let arguments = imported
                    .inputs
                    .iter()
                    .map(|n| graph_inputs.iter().position(|g| g == n).unwrap_or(0))
                    .collect();
                return Ok(OnnxImport {
                    key: import_key(hash, &options),
                    ctx,
                    module: imported.module,
                    arguments,
                    graph_inputs,
                    graph_outputs: imported.outputs,
                    specialized,
                    notes: imported.notes,
                });
            }
            Err(ImportError::NeedsConstant { input, .. })
                if given.is_some() && !options.constants.contains_key(&input) =>
            {
                let index = graph_inputs.iter().position(|g| *g == input);
                let value = index
                    .and_then(|i| given.and_then(|g| g.get(i)))
                    .ok_or_else(|| {
                        format!("{name}: error: no value given for graph input '{input}'\n")
                    })?;
                options.constants.insert(input.clone(), value.to_literal());
                specialized.push(input);
            }
            Err(e) => return Err(format!("{name}: error: {e}\n")),
        }
    }
}

/// An ONNX model compiled by [`compile_onnx`], with what is needed to feed it.
pub struct CompiledOnnx {
    pub model: Model,
    /// For each argument of the model's function, the index of its ONNX graph input.
    pub arguments: Vec<usize>,
    /// The ONNX graph inputs, in order.
    pub graph_inputs: Vec<String>,
    /// The ONNX graph outputs, in order: the names of the model's outputs.
    pub graph_outputs: Vec<String>,
    /// Notes for the user: specialized inputs, and model-cache problems met.
    pub notes: Vec<String>,
}

/// Imports `path` as [`import_onnx`] does and compiles it, named `file` in diagnostics. With a
/// model cache, a model compiled before from the same file under the same options (and the
/// same values of the inputs the import specialized) is loaded without being imported; its
/// [`Model::source`] imports it on demand.
pub fn compile_onnx(
    path: &Path,
    import: ImportOptions,
    given: Option<&[Tensor]>,
    file: &str,
    options: &ModelOptions,
) -> Result<CompiledOnnx, String> {
    let origin = Origin::File(path.to_owned());
    let bytes = origin.read()?;
    compile_origin(&origin, &bytes, import, given, file, options)
}

/// [`compile_onnx`] of a model held in memory: `bytes` are the model file's, and `file` names
/// it in diagnostics and in the model cache's key (the bytes' hash is in the key too). The
/// model cannot have external data. [`Model::source`] imports it again from a copy of the
/// bytes.
pub fn compile_onnx_bytes(
    bytes: &[u8],
    import: ImportOptions,
    given: Option<&[Tensor]>,
    file: &str,
    options: &ModelOptions,
) -> Result<CompiledOnnx, String> {
    let bytes = Bytes::copy_from_slice(bytes);
    let origin = Origin::Bytes {
        name: file.to_string(),
        bytes: bytes.clone(),
    };
    compile_origin(&origin, &bytes, import, given, file, options)
}

/// [`compile_onnx`] of the model `origin` holding `bytes`.
fn compile_origin(
    origin: &Origin,
    bytes: &Bytes,
    import: ImportOptions,
    given: Option<&[Tensor]>,
    file: &str,
    options: &ModelOptions,
) -> Result<CompiledOnnx, String> {
    let hash = file_hash(bytes);
    let mut notes = Vec::new();
    let plan_key = options.cache.as_ref().and_then(|cache| {
        let key = model_cache::facts_key(&import_key(&hash, &import), file, options)?;
        Some((cache, key))
    });
    if let Some((cache, key)) = &plan_key {
        let plan = ImportPlan::load(cache, key, &mut notes);
        let planned = plan.and_then(|plan| Some((planned_import(&import, given, &plan)?, plan)));
        if let Some((planned, plan)) = planned {
            let loaded = load_planned(origin, &hash, planned, file, options, &plan, &mut notes)?;
            if let Some(model) = loaded {
                notes.extend(plan.notes);
                return Ok(CompiledOnnx {
                    model,
                    arguments: plan.arguments,
                    graph_inputs: plan.graph_inputs,
                    graph_outputs: plan.graph_outputs,
                    notes,
                });
            }
        }
    }
    let import_start = Instant::now();
    let imported = import_bytes(origin, bytes, &hash, import, given)?;
    let import_time = import_start.elapsed();
    let (arguments, graph_inputs, graph_outputs, specialized) = (
        imported.arguments.clone(),
        imported.graph_inputs.clone(),
        imported.graph_outputs.clone(),
        imported.specialized.clone(),
    );
    notes.extend(imported.notes.iter().cloned());
    let import_notes = imported.notes.clone();
    let mut model = imported.compile(file, options)?;
    model.timings.import = import_time;
    if let Some((cache, key)) = &plan_key {
        let plan = ImportPlan {
            entry: model.entry.clone(),
            graph_level: model.graph_level,
            specialized,
            arguments: arguments.clone(),
            graph_inputs: graph_inputs.clone(),
            graph_outputs: graph_outputs.clone(),
            notes: import_notes,
        };
        plan.store(cache, key, &mut notes);
    }
    Ok(CompiledOnnx {
        model,
        arguments,
        graph_inputs,
        graph_outputs,
        notes,
    })
}

/// `import` with the inputs `plan` says the import specializes given their values in
/// `given`; `None` when `given` lacks one.
fn planned_import(
    import: &ImportOptions,
    given: Option<&[Tensor]>,
    plan: &ImportPlan,
) -> Option<ImportOptions> {
    let mut import = import.clone();
    for input in &plan.specialized {
        let index = plan.graph_inputs.iter().position(|g| g == input)?;
        let value = given?.get(index)?;
        import.constants.insert(input.clone(), value.to_literal());
    }
    Some(import)
}

/// The model `plan` says an import of the model `origin` (its [`file_hash`] `hash`) under
/// `import` lowers to, from the model cache; `None` when the cache lacks it (`notes` says why
/// when an entry was discarded).
fn load_planned(
    origin: &Origin,
    hash: &[u8; 32],
    import: ImportOptions,
    file: &str,
    options: &ModelOptions,
    plan: &ImportPlan,
    notes: &mut Vec<String>,
) -> Result<Option<Model>, String> {
    let key = import_key(hash, &import);
    let recreate: Recreate = {
        let (origin, key, entry) = (origin.clone(), key.clone(), options.entry.clone());
        Box::new(move || {
            let bytes = origin.read()?;
            let hash = file_hash(&bytes);
            let imported = import_bytes(&origin, &bytes, &hash, import.clone(), None)?;
            let name = origin.name();
            if imported.key != key {
                return Err(format!(
                    "{name}: error: the model file changed after it was compiled\n"
                ));
            }
            let func = entry_function(&imported.ctx, imported.module, entry.as_deref())
                .map_err(|d| format!("{name}: error: {}\n", d.message))?;
            Ok((imported.ctx, func))
        })
    };
    let (entry, graph_level) = (&plan.entry, plan.graph_level);
    Model::from_model_cache(file, &key, entry, graph_level, options, recreate, notes)
}

impl OnnxImport {
    /// Compiles the module ([`crate::Model::compile_module`]), named `file` in diagnostics.
    pub fn compile(
        self,
        file: &str,
        options: &crate::ModelOptions,
    ) -> Result<crate::Model, String> {
        crate::Model::compile_module(self.ctx, self.module, file, &self.key, options)
    }
}

/// The model cache's stand-in for the module imported with `options` from the file whose hash
/// is `file_hash`: the hash and the options, maps sorted so that the same import gives the
/// same key.
fn import_key(file_hash: &[u8; 32], options: &ImportOptions) -> Vec<u8> {
    let mut dims: Vec<_> = options.dims.iter().collect();
    dims.sort();
    let mut shapes: Vec<_> = options.input_shapes.iter().collect();
    shapes.sort();
    let mut constants: Vec<_> = options
        .constants
        .iter()
        .map(|(name, t)| {
            (
                name,
                t.dtype().to_string(),
                t.shape().to_vec(),
                t.to_le_bytes(),
            )
        })
        .collect();
    constants.sort_by(|a, b| a.0.cmp(b.0));
    let options = format!(
        "{dims:?} {shapes:?} {:?} {constants:?} {:?}",
        options.given_shapes, options.func_name
    );
    let mut key = file_hash.to_vec();
    key.extend_from_slice(options.as_bytes());
    key
}

/// The hash of a model file's bytes, computed once per read of the file.
fn file_hash(bytes: &[u8]) -> [u8; 32] {
    dlc_codegen::KeyHasher::new()
        .field("onnx", bytes)
        .finish()
        .0
}

/// The names of the graph inputs that are not initializers, in order.
fn graph_input_names(model: &dlc_onnx::proto::ModelProto) -> Vec<String> {
    let Some(graph) = &model.graph else {
        return Vec::new();
    };
    graph
        .input
        .iter()
        .filter(|i| !graph.initializer.iter().any(|t| t.name == i.name))
        .map(|i| i.name.clone())
        .collect()
}

/// Reads a reference tensor: `.npy`, or `.pb` (a serialized ONNX `TensorProto`).
pub fn read_reference(path: &Path) -> Result<Literal, String> {
    if path.extension().is_some_and(|e| e == "pb") {
        return dlc_onnx::read_tensor_pb(path);
    }
    Literal::read_npy(path).map_err(|e| format!("cannot read '{}': {e}", path.display()))
}

/// How an output compares with its reference under numpy's `allclose`:
/// `|actual − expected| ≤ atol + rtol·|expected|` per element, NaN equal to NaN.
#[derive(Clone, Debug)]
pub struct ExpectedReport {
    /// The largest |actual − expected|.
    pub max_abs: f64,
    /// How many elements are outside the bound.
    pub mismatches: usize,
    /// A description of the first problem (shape, dtype, first element outside the bound).
    pub problem: Option<String>,
}

/// Compares `actual` with `expected` element by element.
pub fn compare_expected(
    actual: &Literal,
    expected: &Literal,
    rtol: f64,
    atol: f64,
) -> ExpectedReport {
    let fail = |problem: String| ExpectedReport {
        max_abs: f64::INFINITY,
        mismatches: expected.len().max(1),
        problem: Some(problem),
    };
    if actual.dtype() != expected.dtype() {
        return fail(format!(
            "dtype {} but the reference is {}",
            actual.dtype(),
            expected.dtype()
        ));
    }
    if actual.shape() != expected.shape() {
        return fail(format!(
            "shape {:?} but the reference is {:?}",
            actual.shape(),
            expected.shape()
        ));
    }
    // Integers and booleans must match exactly.
    let (rtol, atol) = if expected.dtype().is_float() {
        (rtol, atol)
    } else {
        (0.0, 0.0)
    };
    let (a, e) = (actual.to_f64_vec(), expected.to_f64_vec());
    let mut report = ExpectedReport {
        max_abs: 0.0,
        mismatches: 0,
        problem: None,
    };
    for (i, (x, y)) in a.iter().zip(&e).enumerate() {
        let same = x == y || (x.is_nan() && y.is_nan());
        let diff = if same { 0.0 } else { (x - y).abs() };
        let diff = if diff.is_nan() { f64::INFINITY } else { diff };
        report.max_abs = report.max_abs.max(diff);
        let bound = atol + rtol * y.abs();
        if !same && (diff > bound || bound.is_nan()) {
            report.mismatches += 1;
            report
                .problem
                .get_or_insert_with(|| format!("element {i} is {x}, the reference {y}"));
        }
    }
    report
}
