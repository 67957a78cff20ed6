//! `dlc.passmanager.PassManager`: a pass pipeline parsed from dlc's textual syntax and run on
//! a module, as MLIR's `PassManager.parse(...).run(op)`.
//!
//! The text is what dlc-opt's `--pass-pipeline` takes, nested (`builtin.module(func.func(fuse))`)
//! or flat (`decompose,fuse`: each pass nested where its anchor says), run as written: without
//! the conversions `--pipeline` inserts between IR levels. It is parsed with `parse_pipeline`
//! and built by dlc's registry ([`crate::passes::registry`]) for a `builtin.module` root. A run
//! releases the GIL while the passes run, with the module's context locked.

use crate::ir::{check_op, target_op, IrContext};
use crate::CompileError;
use dlc_ir::pass::{parse_pipeline, PassManager, PipelineError};
use dlc_ir::{verify, Diagnostic};
use pyo3::exceptions::{PyRuntimeError, PyUserWarning, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::MutexExt;
use std::ffi::CString;
use std::sync::{Mutex, MutexGuard};

/// A pipeline of passes, parsed from text: ``PassManager.parse("builtin.module(func.func(fuse))")``.
///
/// ``str(pm)`` is the pipeline in its full nested form, every option spelled out. The IR is
/// verified after each pass unless :meth:`enable_verifier` turns that off.
#[pyclass(frozen, module = "dlc.passmanager", name = "PassManager")]
pub(crate) struct PyPassManager {
    pm: Mutex<PassManager>,
    /// The context given to `parse`: the pipeline runs only on its modules.
    context: Option<Py<IrContext>>,
}

impl PyPassManager {
    /// Waiting for it does not hold the GIL, as [`IrContext::lock`].
    fn lock(&self) -> PyResult<MutexGuard<'_, PassManager>> {
        Python::attach(|py| self.pm.lock_py_attached(py)).map_err(|_| {
            PyRuntimeError::new_err("this PassManager cannot be used: one of its passes panicked")
        })
    }
}

#[pymethods]
impl PyPassManager {
    /// Parses ``pipeline``: nested, as MLIR writes it (``builtin.module(func.func(fuse,simplify))``),
    /// or flat (``decompose,fuse``; each pass runs on the ops it anchors on, the nesting built
    /// for it), with options in braces (``canonicalize{max-iterations=4}``) and named
    /// pipelines (``cpu-default``). It runs as written (dlc-opt's ``--pass-pipeline``).
    ///
    /// With a ``context``, :meth:`run` accepts only that context's modules.
    ///
    /// Raises ``ValueError`` with the pipeline parser's message (the column, the text and a
    /// caret) for malformed text, an unknown pass, or a bad option.
    #[staticmethod]
    #[pyo3(signature = (pipeline, context=None))]
    fn parse(pipeline: &str, context: Option<Py<IrContext>>) -> PyResult<PyPassManager> {
        let bad = |e: PipelineError| {
            PyValueError::new_err(e.render("pipeline", pipeline).trim_end().to_string())
        };
        let spec = parse_pipeline(pipeline).map_err(bad)?;
        let pm = crate::passes::registry()
            .build(&spec, "builtin.module")
            .map_err(bad)?;
        Ok(PyPassManager {
            pm: Mutex::new(pm),
            context,
        })
    }

    /// Runs the pipeline on ``op``, a :class:`dlc.ir.Module` or its ``operation``, changing
    /// it in place. Handles to ops the passes erase, or rebuild (a nested pipeline run on
    /// several functions rebuilds their bodies), raise ``RuntimeError`` afterwards.
    ///
    /// Warnings and remarks the passes emit become Python ``UserWarning``s. Raises
    /// :class:`dlc.CompileError` with the located diagnostics when a pass fails or leaves
    /// invalid IR (the IR is then as the failing pass left it), or, with the verifier on, when
    /// the IR is invalid before the first pass.
    fn run(&self, py: Python<'_>, op: &Bound<'_, PyAny>) -> PyResult<()> {
        let (context, op) = target_op(op)?;
        if let Some(own) = &self.context {
            if own.as_ptr() != context.as_ptr() {
                return Err(PyValueError::new_err(
                    "this PassManager was parsed for another dlc.ir.Context than the module's",
                ));
            }
        }
        let ir = context.get();
        let result = py.detach(|| -> PyResult<Result<_, Vec<Diagnostic>>> {
            let mut state = ir.lock()?;
            check_op(&state.ctx, op)?;
            let mut pm = self.lock()?;
            // Passes assume valid IR: a module parsed with `verify=False` is checked first.
            if pm.options.verify_each {
                if let Err(d) = verify(&state.ctx, op) {
                    let note = "the IR is invalid before the pipeline runs";
                    return Ok(Err(vec![d.with_note(state.ctx.op_loc(op), note)]));
                }
            }
            Ok(pm.run(&mut state.ctx, op).map_err(|f| f.diagnostics))
        })?;
        let warnings: Vec<String> = {
            let state = ir.lock()?;
            let diagnostics = result.map_err(|d| CompileError::new_err(state.render(op, &d)))?;
            let one = |d| state.render(op, std::slice::from_ref(d));
            diagnostics.iter().map(one).collect()
        };
        // Warning filters and handlers are Python code: they run with the context unlocked.
        let category = py.get_type::<PyUserWarning>().into_any();
        for text in warnings {
            let text = CString::new(text.replace('\0', "\\0")).unwrap_or_default();
            PyErr::warn(py, &category, &text, 1)?;
        }
        Ok(())
    }

    /// Verifies the IR after every pass (``True``, the default) or not.
    fn enable_verifier(&self, enable: bool) -> PyResult<()> {
        self.lock()?.options.verify_each = enable;
        Ok(())
    }

    fn __str__(&self) -> PyResult<String> {
        Ok(self.lock()?.pipeline_text())
    }

    fn __repr__(&self) -> PyResult<String> {
        Ok(format!(
            "<dlc.passmanager.PassManager {}>",
            self.lock()?.pipeline_text()
        ))
    }
}

/// Adds the `passmanager` submodule (`dlc._dlc.passmanager`) to `parent`: the pass manager and
/// the registry's listing.
pub(crate) fn register(parent: &Bound<'_, PyModule>) -> PyResult<()> {
    let m = PyModule::new(parent.py(), "passmanager")?;
    m.add_class::<PyPassManager>()?;
    m.add_class::<crate::passes::PassInfo>()?;
    m.add_class::<crate::passes::PassOption>()?;
    m.add_function(wrap_pyfunction!(crate::passes::passes, &m)?)?;
    parent.add_submodule(&m)
}
