//! `dlc.ir`: dlc's IR from Python, as MLIR's Python bindings have it — a [`Context`] with
//! every dlc dialect, modules parsed from text and printed back, and read-only handles to
//! operations, regions, blocks and values to walk them. It is for looking at IR and at what
//! passes do to it (`dlc.passmanager`), not an IR builder: nothing here creates or edits ops.
//!
//! A handle is a `Context` (a Python object, kept alive by the handle) and an id into its
//! arenas. Ids are never reused, so a handle cannot point at another op; an op a pass erased is
//! dead (`Context::is_alive`), and every use of its handle — or of a handle to a region, block
//! or value inside it — raises `RuntimeError` instead of reading it. The IR sits behind a
//! mutex: the classes are shared between threads, each call taking the lock, and no Python code
//! runs while it is held (a walk's callback runs between locks).

use crate::CompileError;
use dlc_ir::{
    parse_source, print_op, print_op_in, value_name, verify, Block, Context, Diagnostic, Op,
    PrintOptions, Printer, Region, SourceMap, Value, ValueDef,
};
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::sync::MutexExt;
use pyo3::types::PyDict;
use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::{Mutex, MutexGuard};

/// What a `dlc.ir.Context` holds: the IR, and the source of each module parsed into it.
pub(crate) struct State {
    pub(crate) ctx: Context,
    /// The name and text of each module parsed, by its op, to quote in diagnostics.
    sources: HashMap<Op, (String, String)>,
}

impl State {
    /// `diagnostics` rendered as `file:line:col: error: ...` with the source lines of the
    /// module that holds `op`.
    pub(crate) fn render(&self, op: Op, diagnostics: &[Diagnostic]) -> String {
        let mut sources = SourceMap::new();
        if let Some((name, text)) = self.sources.get(&self.root(op)) {
            sources.add(name, text);
        }
        let text: String = diagnostics
            .iter()
            .map(|d| sources.render(&self.ctx, d))
            .collect();
        text.trim_end().to_string()
    }

    /// The top-level op (the module) that contains `op`.
    fn root(&self, mut op: Op) -> Op {
        while let Some(parent) = self.ctx.parent_op(op) {
            op = parent;
        }
        op
    }

    /// `op` printed, its values named as in its module's text.
    fn print(&self, op: Op, options: PrintOptions) -> String {
        match self.root(op) {
            root if root == op => print_op(&self.ctx, op, options),
            root => print_op_in(&self.ctx, root, op, options),
        }
    }
}

/// The error for a handle to IR that a pass erased.
fn erased(what: &str) -> PyErr {
    PyRuntimeError::new_err(format!(
        "the {what} this handle refers to was erased (a pass rewrote the IR around it); \
         take new handles from the module"
    ))
}

/// `Ok` if `op` is alive.
pub(crate) fn check_op(ctx: &Context, op: Op) -> PyResult<()> {
    if ctx.is_alive(op) {
        Ok(())
    } else {
        Err(erased(&format!("'{}' operation", ctx.op_name(op))))
    }
}

/// The op that owns `region`, if the region is still one of its regions.
fn check_region(ctx: &Context, region: Region) -> PyResult<Op> {
    match ctx.region_parent(region) {
        Some(op) if ctx.is_alive(op) && ctx.regions(op).contains(&region) => Ok(op),
        _ => Err(erased("region")),
    }
}

/// The op whose region holds `block`, if the block is still in it.
fn check_block(ctx: &Context, block: Block) -> PyResult<Op> {
    let region = ctx.block_parent(block).ok_or_else(|| erased("block"))?;
    let op = check_region(ctx, region).map_err(|_| erased("block"))?;
    if ctx.blocks(region).contains(&block) {
        Ok(op)
    } else {
        Err(erased("block"))
    }
}

/// The op that defines `v` or whose region holds the block it is an argument of.
fn check_value(ctx: &Context, v: Value) -> PyResult<Op> {
    let gone = |_| erased("value");
    match ctx.value_def(v) {
        ValueDef::Result { op, .. } => check_op(ctx, op).map(|()| op).map_err(gone),
        ValueDef::BlockArg { block, index } => {
            let op = check_block(ctx, block).map_err(gone)?;
            match ctx.block_args(block).get(index as usize) {
                Some(&arg) if arg == v => Ok(op),
                _ => Err(erased("value")),
            }
        }
        ValueDef::Placeholder => Err(erased("value")),
    }
}

/// A hash of a handle: of its [`Handle::key`], so that equal handles hash alike.
fn handle_hash(handle: &impl Handle) -> u64 {
    let mut h = DefaultHasher::new();
    handle.key().hash(&mut h);
    h.finish()
}

/// A handle to one piece of IR: its context and the piece's index there, which say whether two
/// handles are the same IR (`__eq__`, `__hash__`).
trait Handle {
    fn key(&self) -> (usize, usize);
}

/// `other` is a handle of the same class to the same IR as `this`.
fn same_handle<T>(this: &T, other: &Bound<'_, PyAny>) -> bool
where
    T: Handle + pyo3::PyClass<Frozen = pyo3::pyclass::boolean_struct::True> + Sync,
{
    other.cast::<T>().is_ok_and(|o| o.get().key() == this.key())
}

/// Owns IR: the modules parsed into it and everything in them, with all of dlc's dialects
/// registered (builtin, func, arith, math, graph, loop), as dlc-opt has them.
///
/// ``Context()`` makes one; :meth:`Module.parse` makes one for you when given none. Handles
/// (modules, operations, regions, blocks, values) keep their context alive. A context only
/// grows: parse what you look at into a context of its own when memory matters. Its objects
/// may be used from several threads; each call takes the context's lock.
#[pyclass(frozen, module = "dlc.ir", name = "Context")]
pub(crate) struct IrContext {
    state: Mutex<State>,
}

impl IrContext {
    /// The context's IR, locked; an error if a pass panicked while holding it.
    /// Waiting for it does not hold the GIL (pyo3's `lock_py_attached`): a thread that reads IR
    /// while another runs a pipeline on it does not stop every other Python thread meanwhile.
    pub(crate) fn lock(&self) -> PyResult<MutexGuard<'_, State>> {
        Python::attach(|py| self.state.lock_py_attached(py)).map_err(|_| {
            PyRuntimeError::new_err(
                "this dlc.ir.Context cannot be used: a pass panicked while running on its IR",
            )
        })
    }
}

#[pymethods]
impl IrContext {
    #[new]
    fn new() -> Self {
        IrContext {
            state: Mutex::new(State {
                ctx: dlc_dialects::context(),
                sources: HashMap::new(),
            }),
        }
    }

    /// The names of the registered dialects, sorted.
    #[getter]
    fn dialects(&self) -> PyResult<Vec<&'static str>> {
        let mut names = self.lock()?.ctx.dialect_names();
        names.sort_unstable();
        Ok(names)
    }

    /// Whether ops, types and attributes of unregistered dialects parse (dlc-opt's
    /// ``--allow-unregistered-dialect``); ``False`` by default.
    #[getter]
    fn get_allow_unregistered_dialects(&self) -> PyResult<bool> {
        Ok(self.lock()?.ctx.allow_unregistered)
    }

    #[setter]
    fn set_allow_unregistered_dialects(&self, allow: bool) -> PyResult<()> {
        self.lock()?.ctx.allow_unregistered = allow;
        Ok(())
    }
}

/// A ``builtin.module`` parsed from text: ``Module.parse(text)``.
///
/// ``str(module)`` is its text as dlc-opt prints it; :attr:`operation` is the module as an
/// :class:`Operation`, to walk, verify or run passes on.
#[pyclass(frozen, module = "dlc.ir", name = "Module")]
pub(crate) struct IrModule {
    context: Py<IrContext>,
    op: Op,
}

#[pymethods]
impl IrModule {
    /// Parses ``asm``, dlc IR in MLIR syntax (a ``module { ... }`` or the ops of one, such as
    /// ``func.func``s), into ``context`` (a new :class:`Context` when ``None``) and verifies it.
    ///
    /// ``source_name`` names the text in locations and messages. With ``verify=False`` the
    /// module is not verified (call ``module.operation.verify()`` to).
    ///
    /// Raises :class:`dlc.CompileError` when the text does not parse or the module does not
    /// verify, with dlc's located diagnostic: ``<string>:3:5: error: ...``, the source line
    /// and a caret.
    #[staticmethod]
    #[pyo3(signature = (asm, context=None, *, source_name="<string>", verify=true))]
    fn parse(
        py: Python<'_>,
        asm: &str,
        context: Option<Py<IrContext>>,
        source_name: &str,
        verify: bool,
    ) -> PyResult<IrModule> {
        let context = match context {
            Some(c) => c,
            None => Py::new(py, IrContext::new())?,
        };
        let mut state = context.get().lock()?;
        let failed = |state: &State, d: Diagnostic| {
            let mut sources = SourceMap::new();
            sources.add(source_name, asm);
            let text = sources.render(&state.ctx, &d);
            CompileError::new_err(text.trim_end().to_string())
        };
        let op = match parse_source(&mut state.ctx, asm, source_name, 1) {
            Ok(op) => op,
            Err(d) => return Err(failed(&state, d)),
        };
        if verify {
            if let Err(d) = dlc_ir::verify(&state.ctx, op) {
                return Err(failed(&state, d));
            }
        }
        state
            .sources
            .insert(op, (source_name.to_string(), asm.to_string()));
        drop(state);
        Ok(IrModule { context, op })
    }

    /// The module as an :class:`Operation` (``builtin.module``).
    #[getter]
    fn operation(&self, py: Python<'_>) -> IrOperation {
        IrOperation {
            context: self.context.clone_ref(py),
            op: self.op,
        }
    }

    /// The module's one block, which holds its top-level ops (``func.func``, ...).
    #[getter]
    fn body(&self, py: Python<'_>) -> PyResult<IrBlock> {
        let state = self.context.get().lock()?;
        let block = state
            .ctx
            .regions(self.op)
            .first()
            .and_then(|r| state.ctx.blocks(*r).first().copied())
            .ok_or_else(|| PyRuntimeError::new_err("the module has no block"))?;
        Ok(IrBlock {
            context: self.context.clone_ref(py),
            block,
        })
    }

    /// The :class:`Context` that owns the module.
    #[getter]
    fn context(&self, py: Python<'_>) -> Py<IrContext> {
        self.context.clone_ref(py)
    }

    fn __str__(&self) -> PyResult<String> {
        let state = self.context.get().lock()?;
        Ok(state.print(self.op, PrintOptions::default()))
    }

    fn __repr__(&self) -> PyResult<String> {
        let state = self.context.get().lock()?;
        let name = state.sources.get(&self.op).map_or("?", |(n, _)| n.as_str());
        Ok(format!("<dlc.ir.Module {name}>"))
    }
}

/// The order in which :meth:`Operation.walk` visits an op and the ops nested in it.
#[pyclass(
    frozen,
    eq,
    eq_int,
    from_py_object,
    module = "dlc.ir",
    name = "WalkOrder"
)]
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum WalkOrder {
    /// The op before the ops nested in it.
    #[pyo3(name = "PRE_ORDER")]
    PreOrder,
    /// The ops nested in an op before the op (MLIR's default).
    #[pyo3(name = "POST_ORDER")]
    PostOrder,
}

/// What a :meth:`Operation.walk` callback may return (``None`` is ``ADVANCE``).
#[pyclass(
    frozen,
    eq,
    eq_int,
    from_py_object,
    module = "dlc.ir",
    name = "WalkResult"
)]
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum WalkResult {
    /// Go on.
    #[pyo3(name = "ADVANCE")]
    Advance,
    /// Stop the walk.
    #[pyo3(name = "INTERRUPT")]
    Interrupt,
    /// Do not visit the ops nested in this one (pre-order only).
    #[pyo3(name = "SKIP")]
    Skip,
}

/// An operation: its name, operands, results, attributes, regions and location.
///
/// Lists (``operands``, ``regions``, ...) are snapshots taken when read. ``str(op)`` is the op's
/// text, its values named as in its module's text. A handle to an op a pass erased raises
/// ``RuntimeError`` when used.
#[pyclass(frozen, module = "dlc.ir", name = "Operation")]
pub(crate) struct IrOperation {
    context: Py<IrContext>,
    op: Op,
}

impl Handle for IrOperation {
    fn key(&self) -> (usize, usize) {
        (self.context.as_ptr() as usize, self.op.index())
    }
}

impl IrOperation {
    /// The context's state, locked, after checking that the op is alive.
    fn state(&self) -> PyResult<MutexGuard<'_, State>> {
        let state = self.context.get().lock()?;
        check_op(&state.ctx, self.op)?;
        Ok(state)
    }

    fn handle(&self, py: Python<'_>, op: Op) -> IrOperation {
        IrOperation {
            context: self.context.clone_ref(py),
            op,
        }
    }

    fn values(&self, py: Python<'_>, values: impl Iterator<Item = Value>) -> Vec<IrValue> {
        values
            .map(|value| IrValue {
                context: self.context.clone_ref(py),
                value,
            })
            .collect()
    }

    /// The ops directly inside `op`'s regions, in order; none if `op` is dead.
    fn children(&self, op: Op) -> PyResult<Vec<Op>> {
        let state = self.context.get().lock()?;
        let ctx = &state.ctx;
        if !ctx.is_alive(op) {
            return Ok(Vec::new());
        }
        Ok(ctx
            .regions(op)
            .iter()
            .flat_map(|r| ctx.blocks(*r))
            .flat_map(|b| ctx.block_ops(*b))
            .collect())
    }

    /// Walks from `op`; `false` when the callback interrupted the walk.
    fn walk_from(
        &self,
        py: Python<'_>,
        op: Op,
        order: WalkOrder,
        callback: &Bound<'_, PyAny>,
    ) -> PyResult<bool> {
        let visit = |op: Op| -> PyResult<WalkResult> {
            if !self.context.get().lock()?.ctx.is_alive(op) {
                return Ok(WalkResult::Skip);
            }
            let result = callback.call1((self.handle(py, op),))?;
            if result.is_none() {
                return Ok(WalkResult::Advance);
            }
            result.extract::<WalkResult>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "a walk callback returns None or a dlc.ir.WalkResult, not {}",
                    result
                        .get_type()
                        .name()
                        .map_or("?".to_string(), |n| n.to_string())
                ))
            })
        };
        if order == WalkOrder::PreOrder {
            match visit(op)? {
                WalkResult::Interrupt => return Ok(false),
                WalkResult::Skip => return Ok(true),
                WalkResult::Advance => {}
            }
        }
        for child in self.children(op)? {
            if !self.walk_from(py, child, order, callback)? {
                return Ok(false);
            }
        }
        if order == WalkOrder::PostOrder && visit(op)? == WalkResult::Interrupt {
            return Ok(false);
        }
        Ok(true)
    }
}

#[pymethods]
impl IrOperation {
    /// The op's name: ``"graph.add"``.
    #[getter]
    fn name(&self) -> PyResult<String> {
        Ok(self.state()?.ctx.op_name(self.op).to_string())
    }

    /// The values the op uses, a list of :class:`Value`.
    #[getter]
    fn operands(&self, py: Python<'_>) -> PyResult<Vec<IrValue>> {
        let state = self.state()?;
        let operands = state.ctx.operands(self.op).iter().copied();
        Ok(self.values(py, operands))
    }

    /// The values the op defines, a list of :class:`Value`.
    #[getter]
    fn results(&self, py: Python<'_>) -> PyResult<Vec<IrValue>> {
        let state = self.state()?;
        Ok(self.values(py, state.ctx.results(self.op)))
    }

    /// The op's attributes: a read-only mapping from name to the attribute's text
    /// (``{"axis": "2 : i64"}``), all of them, those its custom syntax shows elsewhere too
    /// (a function's ``sym_name`` and ``function_type``).
    #[getter]
    fn attributes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        // Read under the lock, turned into Python objects after it: making them may run Python
        // code (the garbage collector's finalizers), which must not find the context locked.
        let attrs: Vec<(String, String)> = {
            let state = self.state()?;
            let ctx = &state.ctx;
            let printer = Printer::new(ctx);
            (ctx.attrs(self.op).iter())
                .map(|a| {
                    (
                        ctx.ident_str(a.name).to_string(),
                        printer.attr_to_string(a.value),
                    )
                })
                .collect()
        };
        let dict = PyDict::new(py);
        for (name, text) in attrs {
            dict.set_item(name, text)?;
        }
        py.import("types")?
            .getattr("MappingProxyType")?
            .call1((dict,))
    }

    /// The op's regions, a list of :class:`Region`.
    #[getter]
    fn regions(&self, py: Python<'_>) -> PyResult<Vec<IrRegion>> {
        let state = self.state()?;
        Ok(state
            .ctx
            .regions(self.op)
            .iter()
            .map(|&region| IrRegion {
                context: self.context.clone_ref(py),
                region,
            })
            .collect())
    }

    /// Where the op comes from, as dlc prints locations: ``loc("<string>":3:8)``.
    #[getter]
    fn location(&self) -> PyResult<String> {
        let state = self.state()?;
        let loc = state.ctx.op_loc(self.op);
        Ok(Printer::new(&state.ctx).location_to_string(loc))
    }

    /// The op whose region holds this op, or ``None`` for a module.
    #[getter]
    fn parent(&self, py: Python<'_>) -> PyResult<Option<IrOperation>> {
        let state = self.state()?;
        Ok(state.ctx.parent_op(self.op).map(|op| self.handle(py, op)))
    }

    /// The :class:`Context` that owns the op.
    #[getter]
    fn context(&self, py: Python<'_>) -> Py<IrContext> {
        self.context.clone_ref(py)
    }

    /// Verifies the op and everything nested in it; returns ``True``, or raises
    /// :class:`dlc.CompileError` with the verifier's located diagnostic.
    fn verify(&self) -> PyResult<bool> {
        let state = self.state()?;
        match verify(&state.ctx, self.op) {
            Ok(()) => Ok(true),
            Err(d) => Err(CompileError::new_err(state.render(self.op, &[d]))),
        }
    }

    /// Calls ``callback(op)`` on this op and every op nested in it, in ``walk_order``
    /// (:class:`WalkOrder`; post-order by default, as in MLIR). The callback returns ``None``
    /// or a :class:`WalkResult`: ``INTERRUPT`` stops the walk, ``SKIP`` (in pre-order) skips
    /// the ops nested in the one visited. No lock is held while it runs; ops erased meanwhile
    /// are not visited.
    #[pyo3(signature = (callback, walk_order=WalkOrder::PostOrder))]
    fn walk(
        &self,
        py: Python<'_>,
        callback: &Bound<'_, PyAny>,
        walk_order: WalkOrder,
    ) -> PyResult<()> {
        drop(self.state()?);
        self.walk_from(py, self.op, walk_order, callback)?;
        Ok(())
    }

    /// The op's text: ``enable_debug_info`` adds each op's location, ``print_generic_op_form``
    /// prints every op in MLIR's generic form (dlc-opt's ``--print-debuginfo`` and
    /// ``--print-generic``).
    #[pyo3(signature = (*, enable_debug_info=false, print_generic_op_form=false))]
    fn get_asm(&self, enable_debug_info: bool, print_generic_op_form: bool) -> PyResult<String> {
        let options = PrintOptions {
            generic: print_generic_op_form,
            debuginfo: enable_debug_info,
        };
        Ok(self.state()?.print(self.op, options))
    }

    fn __str__(&self) -> PyResult<String> {
        Ok(self.state()?.print(self.op, PrintOptions::default()))
    }

    fn __repr__(&self) -> PyResult<String> {
        let state = self.context.get().lock()?;
        let ctx = &state.ctx;
        let name = ctx.op_name(self.op);
        if !ctx.is_alive(self.op) {
            return Ok(format!("<dlc.ir.Operation '{name}' (erased)>"));
        }
        let loc = Printer::new(ctx).location_to_string(ctx.op_loc(self.op));
        Ok(format!("<dlc.ir.Operation '{name}' {loc}>"))
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        same_handle(self, other)
    }

    fn __hash__(&self) -> u64 {
        handle_hash(self)
    }
}

/// A region of an operation: a list of blocks.
#[pyclass(frozen, module = "dlc.ir", name = "Region")]
pub(crate) struct IrRegion {
    context: Py<IrContext>,
    region: Region,
}

impl Handle for IrRegion {
    fn key(&self) -> (usize, usize) {
        (self.context.as_ptr() as usize, self.region.index())
    }
}

#[pymethods]
impl IrRegion {
    /// The region's blocks, a list of :class:`Block`, the entry block first.
    #[getter]
    fn blocks(&self, py: Python<'_>) -> PyResult<Vec<IrBlock>> {
        let state = self.context.get().lock()?;
        check_region(&state.ctx, self.region)?;
        Ok(state
            .ctx
            .blocks(self.region)
            .iter()
            .map(|&block| IrBlock {
                context: self.context.clone_ref(py),
                block,
            })
            .collect())
    }

    /// The :class:`Operation` the region belongs to.
    #[getter]
    fn owner(&self, py: Python<'_>) -> PyResult<IrOperation> {
        let state = self.context.get().lock()?;
        let op = check_region(&state.ctx, self.region)?;
        Ok(IrOperation {
            context: self.context.clone_ref(py),
            op,
        })
    }

    fn __repr__(&self) -> PyResult<String> {
        let state = self.context.get().lock()?;
        Ok(match check_region(&state.ctx, self.region) {
            Ok(op) => {
                let index = state.ctx.regions(op).iter().position(|r| *r == self.region);
                let name = state.ctx.op_name(op);
                format!("<dlc.ir.Region {} of '{name}'>", index.unwrap_or(0))
            }
            Err(_) => "<dlc.ir.Region (erased)>".to_string(),
        })
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        same_handle(self, other)
    }

    fn __hash__(&self) -> u64 {
        handle_hash(self)
    }
}

/// A block: its arguments and its operations, in order.
#[pyclass(frozen, module = "dlc.ir", name = "Block")]
pub(crate) struct IrBlock {
    context: Py<IrContext>,
    block: Block,
}

impl Handle for IrBlock {
    fn key(&self) -> (usize, usize) {
        (self.context.as_ptr() as usize, self.block.index())
    }
}

#[pymethods]
impl IrBlock {
    /// The block's operations, a list of :class:`Operation` in order.
    #[getter]
    fn operations(&self, py: Python<'_>) -> PyResult<Vec<IrOperation>> {
        let state = self.context.get().lock()?;
        check_block(&state.ctx, self.block)?;
        Ok(state
            .ctx
            .block_ops(self.block)
            .map(|op| IrOperation {
                context: self.context.clone_ref(py),
                op,
            })
            .collect())
    }

    /// The block's arguments, a list of :class:`Value` (a function's parameters, for its
    /// entry block).
    #[getter]
    fn arguments(&self, py: Python<'_>) -> PyResult<Vec<IrValue>> {
        let state = self.context.get().lock()?;
        check_block(&state.ctx, self.block)?;
        Ok(state
            .ctx
            .block_args(self.block)
            .iter()
            .map(|&value| IrValue {
                context: self.context.clone_ref(py),
                value,
            })
            .collect())
    }

    /// The :class:`Operation` whose region holds the block.
    #[getter]
    fn owner(&self, py: Python<'_>) -> PyResult<IrOperation> {
        let state = self.context.get().lock()?;
        let op = check_block(&state.ctx, self.block)?;
        Ok(IrOperation {
            context: self.context.clone_ref(py),
            op,
        })
    }

    fn __repr__(&self) -> PyResult<String> {
        let state = self.context.get().lock()?;
        let ctx = &state.ctx;
        Ok(match check_block(ctx, self.block) {
            Ok(op) => format!(
                "<dlc.ir.Block in '{}': {} arguments, {} ops>",
                ctx.op_name(op),
                ctx.block_args(self.block).len(),
                ctx.block_ops(self.block).count()
            ),
            Err(_) => "<dlc.ir.Block (erased)>".to_string(),
        })
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        same_handle(self, other)
    }

    fn __hash__(&self) -> u64 {
        handle_hash(self)
    }
}

/// An SSA value: a result of an operation or an argument of a block.
///
/// ``str(value)`` is its name and type as its module's text shows them: ``%3 : tensor<4xf32>``.
#[pyclass(frozen, module = "dlc.ir", name = "Value")]
pub(crate) struct IrValue {
    context: Py<IrContext>,
    value: Value,
}

impl Handle for IrValue {
    fn key(&self) -> (usize, usize) {
        (self.context.as_ptr() as usize, self.value.index())
    }
}

impl IrValue {
    /// `(name, type)` of the value, as its module's text prints them.
    fn text(&self) -> PyResult<(String, String)> {
        let state = self.context.get().lock()?;
        let op = check_value(&state.ctx, self.value)?;
        let name = value_name(&state.ctx, state.root(op), self.value);
        let ty = Printer::new(&state.ctx).type_to_string(state.ctx.value_type(self.value));
        Ok((name, ty))
    }
}

#[pymethods]
impl IrValue {
    /// The value's type, as text: ``"tensor<?x16x32xf32>"``.
    #[getter]
    #[pyo3(name = "type")]
    fn type_(&self) -> PyResult<String> {
        let state = self.context.get().lock()?;
        check_value(&state.ctx, self.value)?;
        Ok(Printer::new(&state.ctx).type_to_string(state.ctx.value_type(self.value)))
    }

    /// What defines the value: the :class:`Operation` it is a result of, or the
    /// :class:`Block` it is an argument of.
    #[getter]
    fn owner<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let def = {
            let state = self.context.get().lock()?;
            check_value(&state.ctx, self.value)?;
            state.ctx.value_def(self.value)
        };
        let context = self.context.clone_ref(py);
        match def {
            ValueDef::Result { op, .. } => {
                Ok(IrOperation { context, op }.into_pyobject(py)?.into_any())
            }
            ValueDef::BlockArg { block, .. } => {
                Ok(IrBlock { context, block }.into_pyobject(py)?.into_any())
            }
            ValueDef::Placeholder => Err(erased("value")),
        }
    }

    /// The value's name in its module's text: ``"%0"``, ``"%arg1"``, ``"%2#1"``.
    fn get_name(&self) -> PyResult<String> {
        Ok(self.text()?.0)
    }

    fn __str__(&self) -> PyResult<String> {
        let (name, ty) = self.text()?;
        Ok(format!("{name} : {ty}"))
    }

    fn __repr__(&self) -> PyResult<String> {
        Ok(match self.text() {
            Ok((name, ty)) => format!("<dlc.ir.Value {name} : {ty}>"),
            Err(_) => "<dlc.ir.Value (erased)>".to_string(),
        })
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        same_handle(self, other)
    }

    fn __hash__(&self) -> u64 {
        handle_hash(self)
    }
}

/// The op a pass manager runs on: a [`IrModule`]'s or an [`IrOperation`]'s, with its context.
pub(crate) fn target_op(target: &Bound<'_, PyAny>) -> PyResult<(Py<IrContext>, Op)> {
    let py = target.py();
    if let Ok(m) = target.cast::<IrModule>() {
        let m = m.get();
        return Ok((m.context.clone_ref(py), m.op));
    }
    if let Ok(o) = target.cast::<IrOperation>() {
        let o = o.get();
        return Ok((o.context.clone_ref(py), o.op));
    }
    Err(PyTypeError::new_err(format!(
        "expected a dlc.ir.Module or dlc.ir.Operation, got {}",
        target
            .get_type()
            .name()
            .map_or("?".to_string(), |n| n.to_string())
    )))
}

/// Adds the `ir` submodule (`dlc._dlc.ir`) to `parent`.
pub(crate) fn register(parent: &Bound<'_, PyModule>) -> PyResult<()> {
    let m = PyModule::new(parent.py(), "ir")?;
    m.add_class::<IrContext>()?;
    m.add_class::<IrModule>()?;
    m.add_class::<IrOperation>()?;
    m.add_class::<IrRegion>()?;
    m.add_class::<IrBlock>()?;
    m.add_class::<IrValue>()?;
    m.add_class::<WalkOrder>()?;
    m.add_class::<WalkResult>()?;
    parent.add_submodule(&m)
}
