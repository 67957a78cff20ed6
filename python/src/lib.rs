//! `dlc._dlc`, the native half of the `dlc` Python package (python/dlc/__init__.py is the
//! other): compiles a model through `dlc_driver` (the path `dlc-run` takes) and runs it on
//! numpy arrays.
//!
//! Arrays cross the boundary through numpy's `__array_interface__` (data pointer, shape,
//! typestr), not rust-numpy, which does not support the abi3 wheel: an input must be
//! C-contiguous (the Python layer makes it so) and is read in place by the compiled code
//! when its elements are aligned (an address that is a multiple of the element size, as numpy
//! allocates), else copied into a runtime [`Tensor`];
//! an output is a `numpy.empty` array the result's bytes are copied into, from the session's
//! memory. The GIL is released while a model compiles and while it runs; each run makes its
//! own runtime [`Session`], so one model can run on several Python threads at once.
//!
//! The functions and the `Model` class here are private (`_dlc`): `dlc.compile` and
//! `dlc.CompiledModel` are the API, and say what the arguments may be.

mod ir;
mod passes;
mod passmanager;

use dlc_driver::onnx::{compile_onnx, compile_onnx_bytes};
use dlc_driver::{KernelCache, LlvmOpt, Model, ModelOptions};
use dlc_runtime::{DimSpec, RuntimeError, Session, Tensor, TensorSpec, TensorView};
use dlc_tensor::DType;
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyString, PyTuple, PyType};
use std::collections::HashMap;
use std::path::PathBuf;

create_exception!(
    dlc,
    Error,
    PyException,
    "The base class of the errors dlc raises."
);
create_exception!(
    dlc,
    CompileError,
    Error,
    "A model or IR did not compile: it does not parse, verify or import, or a pass or the code \
generator failed (dlc.compile, dlc.ir.Module.parse, Operation.verify, PassManager.run). The \
message is dlc's diagnostic, located (`file:line:col: error: ...` with the source line for \
IR; the model's name for ONNX)."
);
create_exception!(
    dlc,
    InputError,
    Error,
    "The inputs of a run do not fit the model: their number, a dtype, a shape, or an input \
that is not a numpy array."
);
create_exception!(
    dlc,
    ExecutionError,
    Error,
    "A run failed inside the compiled model (the runtime's error, e.g. a size computed at run \
time that is negative, or memory that cannot be allocated), located like a CompileError when \
the program says where."
);

// The Python class is `frozen` and shared between threads: the compiled model must be.
const _: fn() = || {
    fn shared<T: Send + Sync>() {}
    shared::<Model>();
};

/// One input or output: its name, dtype and dims (`None` for a `?` dim).
struct Info {
    name: String,
    dtype: DType,
    dims: Vec<Option<u64>>,
}

impl Info {
    fn new(name: String, spec: &TensorSpec) -> Info {
        let dims = spec
            .dims
            .iter()
            .map(|d| match d {
                DimSpec::Static(n) => Some(*n),
                DimSpec::Symbol(_) => None,
            })
            .collect();
        Info {
            name,
            dtype: spec.dtype,
            dims,
        }
    }
}

/// numpy's `typestr` of a dtype's elements (little-endian, as the runtime stores them), and
/// the dtype's numpy name for messages. `bf16` is ml_dtypes' `bfloat16`, a 2-byte void to
/// numpy itself.
fn numpy_dtype(dtype: DType) -> (&'static str, &'static str) {
    match dtype {
        DType::F16 => ("<f2", "float16"),
        DType::BF16 => ("<V2", "bfloat16"),
        DType::F32 => ("<f4", "float32"),
        DType::F64 => ("<f8", "float64"),
        DType::I1 => ("|b1", "bool"),
        DType::I8 => ("|i1", "int8"),
        DType::I16 => ("<i2", "int16"),
        DType::I32 => ("<i4", "int32"),
        DType::I64 | DType::Index => ("<i8", "int64"),
        DType::U8 => ("|u1", "uint8"),
        DType::U16 => ("<u2", "uint16"),
        DType::U32 => ("<u4", "uint32"),
        DType::U64 => ("<u8", "uint64"),
    }
}

/// The dtype whose [`numpy_dtype`] typestr is `typestr` (`<i8` is `i64`, not `index`).
fn typestr_dtype(typestr: &str) -> Option<DType> {
    (DType::ALL.iter().copied())
        .filter(|&d| d != DType::Index)
        .find(|&d| numpy_dtype(d).0 == typestr)
}

/// A typestr's numpy name when it is one of [`numpy_dtype`]'s, else the typestr itself.
fn typestr_name(typestr: &str) -> String {
    typestr_dtype(typestr).map_or_else(|| format!("'{typestr}'"), |d| numpy_dtype(d).1.into())
}

/// A compiled model (private: `dlc.CompiledModel` wraps it).
#[pyclass(frozen, module = "dlc._dlc", name = "Model")]
struct PyModel {
    model: Model,
    /// The name of the model in diagnostics (its path, `<string>`, `<bytes>`).
    file: String,
    /// The IR text compiled (empty for ONNX), to show the source line of a runtime error.
    text: String,
    inputs: Vec<Info>,
    outputs: Vec<Info>,
    notes: Vec<String>,
}

/// The options of a compile: `opt` is an [`LlvmOpt`] name, `cache_dir` a kernel cache's
/// directory. The compile is not tiered: every kernel is optimized before it returns.
fn options(opt: Option<&str>, cache_dir: Option<PathBuf>) -> PyResult<ModelOptions> {
    let opt = match opt {
        None => LlvmOpt::default(),
        Some(name) => name.parse::<LlvmOpt>().map_err(PyValueError::new_err)?,
    };
    Ok(ModelOptions {
        opt,
        cache: cache_dir.map(KernelCache::new),
        tiered: false,
        ..ModelOptions::default()
    })
}

fn compile_error(message: String) -> PyErr {
    CompileError::new_err(message.trim_end().to_string())
}

/// The notes of a compile: the kernel cache's (a cache directory that cannot be written, an
/// entry that was corrupt).
fn cache_notes(model: &Model) -> Vec<String> {
    let stats = model.timings.codegen.cache.as_ref();
    stats
        .map(|s| {
            s.notes
                .iter()
                .map(|n| format!("kernel cache: {n}"))
                .collect()
        })
        .unwrap_or_default()
}

/// The model's inputs named by the runtime (`%arg0`) and its outputs (`result 0`).
fn spec_infos(model: &Model) -> (Vec<Info>, Vec<Info>) {
    let program = model.program();
    let inputs = program.signature().inputs.iter();
    let outputs = program.outputs().iter();
    (
        inputs.map(|s| Info::new(s.name.clone(), s)).collect(),
        outputs.map(|s| Info::new(s.name.clone(), s)).collect(),
    )
}

/// Compiles IR text (graph- or loop-level), named `file` in diagnostics, with `pipeline` (the
/// default for its level when `None`) and running `entry` (the first function when `None`).
#[pyfunction]
#[pyo3(signature = (text, file, opt=None, cache_dir=None, pipeline=None, entry=None))]
fn compile_ir(
    py: Python<'_>,
    text: String,
    file: String,
    opt: Option<&str>,
    cache_dir: Option<PathBuf>,
    pipeline: Option<String>,
    entry: Option<String>,
) -> PyResult<PyModel> {
    let options = ModelOptions {
        pipeline,
        entry,
        ..options(opt, cache_dir)?
    };
    let model = py
        .detach(|| Model::compile(&text, &file, &options))
        .map_err(compile_error)?;
    let (inputs, outputs) = spec_infos(&model);
    let notes = cache_notes(&model);
    Ok(PyModel {
        model,
        file,
        text,
        inputs,
        outputs,
        notes,
    })
}

/// Compiles an ONNX model: a file (`path`) or its bytes (`data`, named `file`). `input_shapes`
/// gives graph inputs their shapes, as `dlc-run --input-shape` does; `example_inputs` (C-contiguous
/// numpy arrays, one per graph input, in order) the values it will run on, on which the inputs
/// that must be constants are specialized, as `dlc-run --inputs` does.
#[pyfunction]
#[pyo3(signature = (file, path=None, data=None, input_shapes=None, example_inputs=None, opt=None, cache_dir=None))]
#[allow(clippy::too_many_arguments)]
fn compile_onnx_model(
    py: Python<'_>,
    file: String,
    path: Option<PathBuf>,
    data: Option<&[u8]>,
    input_shapes: Option<HashMap<String, Vec<i64>>>,
    example_inputs: Option<Vec<Bound<'_, PyAny>>>,
    opt: Option<&str>,
    cache_dir: Option<PathBuf>,
) -> PyResult<PyModel> {
    let options = options(opt, cache_dir)?;
    let given = example_inputs
        .map(|arrays| {
            (arrays.iter().enumerate())
                .map(|(i, a)| example_tensor(a, &|| format!("example input {i}")))
                .collect::<PyResult<Vec<Tensor>>>()
        })
        .transpose()?;
    let import = dlc_onnx::ImportOptions {
        input_shapes: input_shapes.unwrap_or_default(),
        ..Default::default()
    };
    // The bytes belong to a Python `bytes` object that the caller holds and nobody can
    // change: reading them without the GIL is fine.
    let compiled = py
        .detach(|| match (&path, data) {
            (Some(path), None) => compile_onnx(path, import, given.as_deref(), &file, &options),
            (None, Some(data)) => {
                compile_onnx_bytes(data, import, given.as_deref(), &file, &options)
            }
            _ => Err("give an ONNX model's path or its bytes".to_string()),
        })
        .map_err(compile_error)?;
    let model = compiled.model;
    let program = model.program();
    let inputs = program.signature().inputs.iter().enumerate();
    let inputs = inputs
        .map(|(i, spec)| {
            let name = compiled
                .arguments
                .get(i)
                .and_then(|&g| compiled.graph_inputs.get(g))
                .map_or_else(|| spec.name.clone(), Clone::clone);
            Info::new(name, spec)
        })
        .collect();
    let same_count = compiled.graph_outputs.len() == program.outputs().len();
    let outputs = program.outputs().iter().enumerate();
    let outputs = outputs
        .map(|(i, spec)| {
            let name = compiled
                .graph_outputs
                .get(i)
                .filter(|_| same_count)
                .map_or_else(|| spec.name.clone(), Clone::clone);
            Info::new(name, spec)
        })
        .collect();
    let mut notes = compiled.notes;
    notes.extend(cache_notes(&model));
    Ok(PyModel {
        model,
        file,
        text: String::new(),
        inputs,
        outputs,
        notes,
    })
}

/// `(name, dtype name, dims)` per input or output, a `?` dim as `None`.
fn info_list<'py>(py: Python<'py>, infos: &[Info]) -> PyResult<Bound<'py, PyList>> {
    let items = infos
        .iter()
        .map(|i| (i.name.as_str(), i.dtype.name(), i.dims.clone()).into_pyobject(py))
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, items)
}

/// `numpy.ndarray` and `numpy.empty`, looked up once.
static NDARRAY: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static EMPTY: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// An input array read through `__array_interface__`: where its bytes are, their count, the
/// shape and the typestr.
struct ArrayParts {
    ptr: usize,
    bytes: usize,
    shape: Vec<usize>,
    typestr: String,
    readonly: bool,
}

/// The parts of a `numpy.ndarray` (exactly that type) from its `__array_interface__`
/// (version 3); it must be C-contiguous, and its byte count, the elements' (its typestr's size)
/// times the shape's, is checked against its `nbytes`. `what` names it in errors (made only
/// for one: a call's every input goes through here).
fn array_parts<'py>(array: &Bound<'py, PyAny>, what: &dyn Fn() -> String) -> PyResult<ArrayParts> {
    let py = array.py();
    let bad = |why: &str| InputError::new_err(format!("{}: {why}", what()));
    // Exactly a numpy.ndarray: a subclass could report an interface that is not its memory,
    // and the sizes below would then be checked against claims, not against the allocation.
    let ndarray = NDARRAY.import(py, "numpy", "ndarray")?;
    if !array.get_type().is(ndarray) {
        return Err(bad("not a numpy.ndarray (numpy.asarray makes one)"));
    }
    let interface = array
        .getattr(intern!(py, "__array_interface__"))
        .map_err(|_| bad("not a numpy array (it has no __array_interface__)"))?;
    let interface = interface
        .cast::<PyDict>()
        .map_err(|_| bad("its __array_interface__ is not a dict"))?;
    let item = |key: &Bound<'py, PyString>| -> PyResult<Bound<'py, PyAny>> {
        interface
            .get_item(key)?
            .ok_or_else(|| bad(&format!("its __array_interface__ has no '{key}'")))
    };
    let strides = interface.get_item(intern!(py, "strides"))?;
    if strides.is_some_and(|s| !s.is_none()) {
        return Err(bad(
            "not C-contiguous (numpy.ascontiguousarray makes it so)",
        ));
    }
    let typestr: String = item(intern!(py, "typestr"))?
        .extract()
        .map_err(|_| bad("its typestr is not a string"))?;
    let shape: Vec<usize> = item(intern!(py, "shape"))?
        .extract()
        .map_err(|_| bad("its shape is not a tuple of sizes"))?;
    let (ptr, readonly): (usize, bool) = item(intern!(py, "data"))?
        .extract()
        .map_err(|_| bad("its data is not a (pointer, read-only) pair"))?;
    let element: usize = typestr
        .get(2..)
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| bad(&format!("unknown typestr '{typestr}'")))?;
    let bytes = shape
        .iter()
        .try_fold(element, |n, &d| n.checked_mul(d))
        .ok_or_else(|| bad(&format!("shape {shape:?} is too large")))?;
    if let Ok(nbytes) = array.getattr(intern!(py, "nbytes")) {
        if nbytes.extract::<usize>().ok() != Some(bytes) {
            return Err(bad(&format!(
                "nbytes is not the {bytes} bytes of its shape and dtype"
            )));
        }
    }
    if ptr == 0 && bytes > 0 {
        return Err(bad("its data pointer is null"));
    }
    Ok(ArrayParts {
        ptr,
        bytes,
        shape,
        typestr,
        readonly,
    })
}

/// The memory of `array`, whose parts `array_parts` read, borrowed as long as `array` is.
fn array_bytes<'a>(_array: &'a Bound<'_, PyAny>, parts: &ArrayParts) -> &'a [u8] {
    if parts.bytes == 0 {
        return &[];
    }
    // SAFETY: `array_parts` checked that the data is C-contiguous, not null, and holds
    // `parts.bytes` bytes: its typestr's element size times its shape, as numpy's `nbytes`.
    // The slice lives as long as the borrow of `array`, a strong reference the caller keeps
    // meanwhile, and a numpy array's memory is neither freed nor moved while a reference to it
    // exists (`ndarray.resize` refuses then, unless told `refcheck=False`, which numpy
    // documents as unsafe). dlc only reads it; the caller must not write to it while a run
    // reads it, as with any zero-copy API (docs/python.md).
    unsafe { std::slice::from_raw_parts(parts.ptr as *const u8, parts.bytes) }
}

/// A numpy array (C-contiguous) copied into a runtime tensor of its own dtype.
fn example_tensor(array: &Bound<'_, PyAny>, what: &dyn Fn() -> String) -> PyResult<Tensor> {
    let parts = array_parts(array, what)?;
    let dtype = typestr_dtype(&parts.typestr).ok_or_else(|| {
        InputError::new_err(format!(
            "{}: dlc has no dtype for numpy's {}",
            what(),
            typestr_name(&parts.typestr)
        ))
    })?;
    Tensor::from_bytes(dtype, &parts.shape, array_bytes(array, &parts))
        .map_err(|e| InputError::new_err(format!("{}: {e}", what())))
}

/// A tuple of a shape's dims, `?` as `?`, for messages.
fn shape_text(dims: &[Option<u64>]) -> String {
    let dims: Vec<String> = dims
        .iter()
        .map(|d| d.map_or_else(|| "?".to_string(), |n| n.to_string()))
        .collect();
    match dims.len() {
        1 => format!("({},)", dims[0]),
        _ => format!("({})", dims.join(", ")),
    }
}

#[pymethods]
impl PyModel {
    /// `(name, dtype, dims)` of each input.
    fn inputs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        info_list(py, &self.inputs)
    }

    /// `(name, dtype, dims)` of each output.
    fn outputs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        info_list(py, &self.outputs)
    }

    /// What the compile has to say (specialized inputs, kernel-cache problems).
    fn notes(&self) -> Vec<String> {
        self.notes.clone()
    }

    /// The number of kernels compiled.
    fn num_kernels(&self) -> usize {
        self.model.num_kernels()
    }

    /// Runs the model on `arrays` (C-contiguous numpy arrays, one per input, in order) and
    /// returns its outputs as new numpy arrays of the dtypes `out_dtypes` (numpy dtypes, one
    /// per output, matching the outputs' dtypes).
    fn run<'py>(
        &self,
        py: Python<'py>,
        arrays: Vec<Bound<'py, PyAny>>,
        out_dtypes: Vec<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyList>> {
        if out_dtypes.len() != self.outputs.len() {
            return Err(PyValueError::new_err(format!(
                "{} output dtypes for {} outputs",
                out_dtypes.len(),
                self.outputs.len()
            )));
        }
        let session = self.run_session(py, &arrays)?;
        let outputs = session.outputs();
        let arrays = (outputs.iter().zip(&out_dtypes).enumerate())
            .map(|(k, (view, dtype))| new_output(py, &view, dtype, k))
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, arrays)
    }

    /// Runs the model on `arrays` as [`PyModel::run`] does and returns the address the
    /// compiled code read each input from (`None` for an input passed as a number): the
    /// array's own memory when it was read in place. For the tests of zero-copy inputs.
    fn input_addresses(
        &self,
        py: Python<'_>,
        arrays: Vec<Bound<'_, PyAny>>,
    ) -> PyResult<Vec<Option<usize>>> {
        Ok(self.run_session(py, &arrays)?.input_addresses())
    }
}

/// One input of a run: a numpy array's memory, read in place, or a copy of it in a runtime
/// tensor when its elements are not aligned as compiled code assumes (an array numpy made
/// from a buffer at an odd offset, say).
enum Input<'a> {
    InPlace {
        dtype: DType,
        shape: Vec<usize>,
        bytes: &'a [u8],
    },
    Copied(Tensor),
}

impl Input<'_> {
    fn view(&self) -> TensorView<'_> {
        match self {
            Input::InPlace {
                dtype,
                shape,
                bytes,
            } => TensorView {
                dtype: *dtype,
                shape,
                bytes,
            },
            Input::Copied(t) => t.view(),
        }
    }
}

impl PyModel {
    /// A new session that ran the model on `arrays`, without the GIL: its outputs are the
    /// run's.
    fn run_session(&self, py: Python<'_>, arrays: &[Bound<'_, PyAny>]) -> PyResult<Session<'_>> {
        let inputs = self.inputs_of(arrays)?;
        let mut session = self.model.session();
        let ran = py.detach(|| {
            let views: Vec<TensorView<'_>> = inputs.iter().map(Input::view).collect();
            session.run_views(&views).map(|_| ())
        });
        ran.map_err(|e| self.run_error(&e))?;
        Ok(session)
    }

    /// The inputs of a run on `arrays`, one per model input, each checked.
    fn inputs_of<'a>(&self, arrays: &'a [Bound<'_, PyAny>]) -> PyResult<Vec<Input<'a>>> {
        if arrays.len() != self.inputs.len() {
            return Err(InputError::new_err(format!(
                "{}: expected {} inputs, got {}",
                self.file,
                self.inputs.len(),
                arrays.len()
            )));
        }
        (arrays.iter().zip(&self.inputs).enumerate())
            .map(|(i, (array, info))| {
                self.input(array, info, &|| format!("input {i} ('{}')", info.name))
            })
            .collect()
    }

    /// Input `array`, after checking its dtype and shape against `info`: its memory, or a
    /// copy of it when its elements are not aligned.
    fn input<'a>(
        &self,
        array: &'a Bound<'_, PyAny>,
        info: &Info,
        what: &dyn Fn() -> String,
    ) -> PyResult<Input<'a>> {
        let parts = array_parts(array, what)?;
        let (typestr, name) = numpy_dtype(info.dtype);
        if parts.typestr != typestr {
            return Err(InputError::new_err(format!(
                "{}: expected dtype {name}, got {}",
                what(),
                typestr_name(&parts.typestr)
            )));
        }
        let fits = parts.shape.len() == info.dims.len()
            && parts
                .shape
                .iter()
                .zip(&info.dims)
                .all(|(&got, &d)| d.is_none_or(|d| d == got as u64));
        if !fits {
            let got: Vec<Option<u64>> = parts.shape.iter().map(|&d| Some(d as u64)).collect();
            return Err(InputError::new_err(format!(
                "{}: expected shape {}, got {}",
                what(),
                shape_text(&info.dims),
                shape_text(&got)
            )));
        }
        let bytes = array_bytes(array, &parts);
        let view = TensorView {
            dtype: info.dtype,
            shape: &parts.shape,
            bytes,
        };
        if view.is_aligned() {
            return Ok(Input::InPlace {
                dtype: info.dtype,
                shape: parts.shape,
                bytes,
            });
        }
        Tensor::from_bytes(info.dtype, &parts.shape, bytes)
            .map(Input::Copied)
            .map_err(|e| InputError::new_err(format!("{}: {e}", what())))
    }

    /// A runtime error as a Python exception: the input checks' as `InputError` (with the
    /// inputs' names), the rest as `ExecutionError`, located in the source when the error is
    /// an op's.
    fn run_error(&self, e: &RuntimeError) -> PyErr {
        match e {
            RuntimeError::InputCount { .. }
            | RuntimeError::InputDType { .. }
            | RuntimeError::InputRank { .. }
            | RuntimeError::InputStaticDim { .. }
            | RuntimeError::InputDimMismatch { .. } => {
                let mut message = e.to_string();
                // The runtime names inputs `%argN`; an ONNX model's have names of their own.
                if let RuntimeError::InputRank { index, name, .. }
                | RuntimeError::InputStaticDim { index, name, .. }
                | RuntimeError::InputDimMismatch { index, name, .. } = e
                {
                    if let Some(info) = self.inputs.get(*index) {
                        message =
                            message.replace(&format!("'{name}'"), &format!("'{}'", info.name));
                    }
                }
                InputError::new_err(format!("{}: {message}", self.file))
            }
            RuntimeError::Op { .. } => {
                let mut sources = dlc_ir::SourceMap::new();
                sources.add(&self.file, &self.text);
                let text = sources.render(&self.model.lowered_ctx, &e.to_diagnostic());
                ExecutionError::new_err(text.trim_end().to_string())
            }
            _ => ExecutionError::new_err(format!("{}: error: {e}", self.file)),
        }
    }
}

/// Output `k` of a run, `view`, as a new numpy array of dtype `dtype` (its dtype as numpy's):
/// `numpy.empty` of its shape, its bytes copied in.
fn new_output<'py>(
    py: Python<'py>,
    view: &TensorView<'_>,
    dtype: &Bound<'py, PyAny>,
    k: usize,
) -> PyResult<Bound<'py, PyAny>> {
    let empty = EMPTY.import(py, "numpy", "empty")?;
    let array = empty.call1((PyTuple::new(py, view.shape)?, dtype))?;
    let parts = array_parts(&array, &|| format!("output {k}"))?;
    let (typestr, _) = numpy_dtype(view.dtype);
    if parts.typestr != typestr || parts.bytes != view.bytes.len() || parts.readonly {
        return Err(PyValueError::new_err(format!(
            "output {k}: the array made for it is not a writable {typestr} array of {} bytes",
            view.bytes.len()
        )));
    }
    if parts.bytes > 0 {
        // SAFETY: `array` is a new numpy array that only this function holds, alive and with
        // the GIL held; `array_parts` checked that its data is C-contiguous, not null,
        // writable and `parts.bytes` long, which is the output's byte count: the copy stays
        // inside both, which are distinct allocations (the output is the session's memory).
        unsafe {
            std::ptr::copy_nonoverlapping(view.bytes.as_ptr(), parts.ptr as *mut u8, parts.bytes);
        }
    }
    Ok(array)
}

/// The native module of the `dlc` package.
#[pymodule]
fn _dlc(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("Error", py.get_type::<Error>())?;
    m.add("CompileError", py.get_type::<CompileError>())?;
    m.add("InputError", py.get_type::<InputError>())?;
    m.add("ExecutionError", py.get_type::<ExecutionError>())?;
    m.add_class::<PyModel>()?;
    m.add_function(wrap_pyfunction!(compile_ir, m)?)?;
    m.add_function(wrap_pyfunction!(compile_onnx_model, m)?)?;
    ir::register(m)?;
    passmanager::register(m)?;
    m.add(
        "LLVM_OPTS",
        [
            LlvmOpt::Lean,
            LlvmOpt::Quick,
            LlvmOpt::O1,
            LlvmOpt::O2,
            LlvmOpt::O3,
        ]
        .map(|o| o.to_string())
        .to_vec(),
    )?;
    m.add("DEFAULT_LLVM_OPT", LlvmOpt::default().to_string())?;
    // How this module was built: "release" (maturin's wheel), or "checked" (scripts/test.sh's,
    // with debug assertions): benchmarks say which they timed.
    m.add(
        "BUILD",
        if cfg!(debug_assertions) {
            "checked"
        } else {
            "release"
        },
    )?;
    Ok(())
}
