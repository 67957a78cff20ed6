//! Compiling a host function into a flat instruction list, once, so a run never walks the IR.
//!
//! Every SSA value of the host function gets a *slot*: integer values a scalar slot (an i64
//! holding the value sign-extended from its width, as the reference interpreter holds it),
//! buffer values a buffer slot (pointer, byte length and dims, filled in at run time). Each op
//! becomes one [`Instr`] over slots; constants are materialized here, kernels are looked up in
//! the [`KernelTable`] here, and each launch's argument-word layout and the static dims its
//! kernel declares are precomputed, so [`Session::run`](crate::Session::run) only does the
//! arithmetic, the reads of sizes kernels wrote (`loop.read_size`: a one-element integer buffer
//! read into a scalar slot, which sizes what is allocated after it), the checks that depend on
//! run-time sizes, and the calls.
//!
//! `loop.call_if` and `loop.call_loop` call other host functions of the module. Each callee is
//! compiled into a `HostProgram` of its own, once per top-level compile however many calls name
//! it (the calls share it through an [`Arc`]), and kept by its callers; a function that calls
//! itself, directly or through others, is a [`Diagnostic`] at the call that closes the cycle, so
//! compiling (and running) never recurses without end. A call's operands and results are
//! checked against the callee's parameters and results here (element type, rank, static dims
//! that disagree); what depends on run-time sizes is checked by the callee's [`Signature`] at
//! each call.
//!
//! A `loop.call_if` result is the callee's output memory, which may be one of the callee's
//! constants. Nothing may write a constant, so a result that may be one (through views and
//! reshapes, and through nested calls) and that the caller may write (a kernel argument it
//! writes, or the arena of a view) is marked to be copied into memory the call site owns.
//!
//! Anything the runtime cannot execute (float host arithmetic, an op outside the host-function
//! subset, a kernel the table lacks, arguments that do not fit a kernel, a call whose types do
//! not fit its callee) is a [`Diagnostic`] at the op, before anything runs.

use crate::abi::{KernelEntry, KernelTable};
use crate::signature::{relabel, source_dtypes, type_parts, DimSpec, Signature, TensorSpec};
use crate::tensor::{byte_size, AlignedBytes};
use dlc_arith::{ArithOps, CmpIPredicate, IntBinary};
use dlc_func::FuncOp;
use dlc_ir::symbol::SymbolTables;
use dlc_ir::{
    AttrKind, Context, DenseValue, Diagnostic, Ident, Location, Op, OpView, Value, DYNAMIC,
};
use dlc_loop::{CallIfOp, CallLoopOp, IndexCheck, KernelSymbol, MemorySpace};
use dlc_tensor::DType;
use rustc_hash::{FxHashMap, FxHashSet};
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

/// A size operand of an allocation or view: static, or read from a scalar slot.
#[derive(Copy, Clone, Debug)]
pub(crate) enum Size {
    Static(usize),
    Scalar(u32),
}

/// One step of a host program. Slots are indices into the session's scalar or buffer tables.
#[derive(Clone, Debug)]
pub(crate) enum Instr {
    Const {
        dst: u32,
        value: i64,
    },
    Binary {
        op: IntBinary,
        width: u32,
        dst: u32,
        a: u32,
        b: u32,
    },
    /// `arith.cmpi`.
    Cmp {
        pred: CmpIPredicate,
        width: u32,
        dst: u32,
        a: u32,
        b: u32,
    },
    Select {
        dst: u32,
        cond: u32,
        a: u32,
        b: u32,
    },
    /// Integer casts: zero- (`zext`) or sign-extend from `from` bits, then wrap to `to` bits.
    Cast {
        dst: u32,
        src: u32,
        from: u32,
        to: u32,
        zext: bool,
    },
    Dim {
        dst: u32,
        buf: u32,
        axis: u32,
    },
    /// `loop.read_size`: the one integer element of buffer `buf` (sign-extended, zero-extended
    /// for an unsigned dtype), which must be a size, into scalar slot `dst`.
    ReadSize {
        dst: u32,
        buf: u32,
    },
    /// `loop.check`: the run stops with `message` when scalar slot `cond` is 0.
    Check {
        cond: u32,
        message: Box<str>,
    },
    Alloc {
        dst: u32,
        alloc: u32,
        dims: Box<[Size]>,
    },
    Constant {
        dst: u32,
        constant: u32,
        dims: Box<[Size]>,
    },
    View {
        dst: u32,
        arena: u32,
        offset: u32,
        dims: Box<[Size]>,
    },
    /// `loop.reshape`: `dst` is `src`'s memory with dims `dims` (the byte counts must agree).
    Reshape {
        dst: u32,
        src: u32,
        dims: Box<[Size]>,
    },
    Launch(u32),
    /// A `loop.call_if` or `loop.call_loop`: an index into the program's calls.
    Call(u32),
}

/// One argument of a launch.
#[derive(Clone, Debug)]
pub(crate) enum LaunchArg {
    /// A buffer slot; `declared` holds the kernel's static dims (`None` for `?`), `written`
    /// whether the kernel may write it.
    Buffer {
        slot: u32,
        declared: Box<[Option<usize>]>,
        written: bool,
    },
    /// A scalar slot, passed sign-extended.
    Scalar { slot: u32 },
}

/// A precomputed `loop.launch`.
#[derive(Clone, Debug)]
pub(crate) struct Launch {
    pub(crate) name: String,
    pub(crate) kernel: KernelEntry,
    pub(crate) args: Box<[LaunchArg]>,
    /// The kernel's index preconditions (`dlc_loop::INDEX_CHECKS`), checked before each launch.
    pub(crate) index_checks: Box<[CheckedIndices]>,
}

/// One of a kernel's index preconditions with the buffer slots its arguments get at a launch.
#[derive(Clone, Debug)]
pub(crate) struct CheckedIndices {
    pub(crate) check: IndexCheck,
    pub(crate) indices: u32,
    pub(crate) data: u32,
}

/// How a host-function argument is bound.
#[derive(Copy, Clone, Debug)]
pub(crate) enum Param {
    /// A buffer; `copy` when the program may write it, return it or view into it, so the
    /// session works on its own copy and never writes the caller's tensor.
    Buffer { slot: u32, copy: bool },
    /// An integer scalar of `width` bits, passed as a 0-d tensor (or a caller's scalar slot).
    Scalar { slot: u32, width: u32 },
}

/// A host function a call runs, compiled once per top-level compile and shared by its calls.
#[derive(Clone, Debug)]
pub(crate) struct Callee {
    /// Its symbol, without `@`.
    pub(crate) name: String,
    pub(crate) program: Arc<HostProgram>,
}

/// A value a call passes to its callee: one of the caller's slots.
#[derive(Copy, Clone, Debug)]
pub(crate) enum CallArg {
    Buffer(u32),
    Scalar(u32),
}

/// A result of a call: the caller's buffer slot it binds and what the caller's type says.
#[derive(Clone, Debug)]
pub(crate) struct CallResult {
    pub(crate) slot: u32,
    /// The static dims of the result type (`None` for `?`), checked against what the callee
    /// returns; for an empty scan output, the trailing dims (`?` ones are 0).
    pub(crate) declared: Box<[Option<usize>]>,
    /// For a `loop.call_if` result: whether it is copied into memory the call site owns,
    /// because it may be a callee's constant and the caller may write it.
    pub(crate) copy: bool,
}

/// A compiled `loop.call_if`.
#[derive(Clone, Debug)]
pub(crate) struct CallIf {
    /// The one-element `i1` buffer that chooses the callee.
    pub(crate) cond: u32,
    /// The callees when the condition holds and when it does not.
    pub(crate) branches: [Callee; 2],
    pub(crate) args: Box<[CallArg]>,
    pub(crate) results: Box<[CallResult]>,
}

/// A compiled `loop.call_loop`.
#[derive(Clone, Debug)]
pub(crate) struct CallLoop {
    pub(crate) body: Callee,
    /// The one-element 8-byte integer buffer holding the trip count.
    pub(crate) max_trip: u32,
    /// The one-element `i1` buffer holding the initial condition.
    pub(crate) cond: u32,
    /// The buffer slots of the carried values' initial values.
    pub(crate) carried: Box<[u32]>,
    pub(crate) captures: Box<[CallArg]>,
    /// The final carried values (one per entry of `carried`), then the scan outputs.
    pub(crate) results: Box<[CallResult]>,
}

/// A call of another host function.
#[derive(Clone, Debug)]
pub(crate) enum Call {
    If(CallIf),
    Loop(CallLoop),
}

/// A host function compiled for repeated runs; see the module docs.
pub struct HostProgram {
    pub(crate) signature: Signature,
    pub(crate) outputs: Vec<TensorSpec>,
    pub(crate) params: Vec<Param>,
    pub(crate) instrs: Vec<Instr>,
    pub(crate) locs: Vec<Location>,
    pub(crate) launches: Vec<Launch>,
    pub(crate) constants: Vec<AlignedBytes>,
    pub(crate) num_scalars: usize,
    /// Per buffer slot: element type, rank and offset into the flat dims table.
    pub(crate) buf_dtype: Vec<DType>,
    pub(crate) buf_rank: Vec<u32>,
    pub(crate) buf_dims_at: Vec<u32>,
    pub(crate) num_dims: usize,
    pub(crate) num_allocs: usize,
    pub(crate) output_slots: Vec<u32>,
    /// Per output: whether it may be bytes of a `loop.constant` (its own or a callee's).
    pub(crate) output_constant: Vec<bool>,
    pub(crate) max_words: usize,
    /// The `loop.call_if`s and `loop.call_loop`s, in program order.
    pub(crate) calls: Vec<Call>,
    /// Whether a kernel of the module may run work on the pool ([`dlc_loop::may_use_pool`]);
    /// a run of a program without one stays on the caller's thread ([`Session::run_views`]).
    ///
    /// [`Session::run_views`]: crate::Session::run_views
    pub(crate) parallel: bool,
    /// [`KernelTable::runs`] of the table the program was linked against: each run of the
    /// program (not of a callee) adds one when it ends.
    pub(crate) runs: Option<Arc<AtomicU64>>,
    static_arena: Option<usize>,
}

impl std::fmt::Debug for HostProgram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostProgram")
            .field("signature", &self.signature)
            .field("outputs", &self.outputs)
            .field("launches", &self.kernel_names().collect::<Vec<_>>())
            .field("calls", &self.callee_names().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl HostProgram {
    /// Compiles host function `func_name` of `module`, and every host function it calls,
    /// looking their kernels up in `kernels`.
    pub fn compile(
        ctx: &Context,
        module: Op,
        func_name: &str,
        kernels: &dyn KernelTable,
    ) -> Result<HostProgram, Diagnostic> {
        let func = find_function(ctx, module, func_name)?;
        let mut callees = Callees::default();
        let mut program = compile_function(ctx, func, kernels, &mut callees)?;
        program.parallel = dlc_loop::may_use_pool(ctx, module);
        program.runs = kernels.runs();
        Ok(program)
    }

    /// The inputs the program accepts.
    pub fn signature(&self) -> &Signature {
        &self.signature
    }

    /// The outputs it returns (`?` dims get symbols unrelated to the inputs').
    pub fn outputs(&self) -> &[TensorSpec] {
        &self.outputs
    }

    /// How many kernel launches one run of this function's own body makes (the launches of
    /// the host functions it calls are not counted).
    pub fn num_launches(&self) -> usize {
        self.launches.len()
    }

    /// The kernel of each launch of this function's own body, in launch order.
    pub fn kernel_names(&self) -> impl Iterator<Item = &str> + '_ {
        self.launches.iter().map(|l| l.name.as_str())
    }

    /// The host functions this one calls, one per callee of each call in program order (a
    /// `loop.call_if` names its then callee, then its else callee).
    pub fn callee_names(&self) -> impl Iterator<Item = &str> + '_ {
        self.calls.iter().flat_map(|call| {
            let callees: &[Callee] = match call {
                Call::If(c) => &c.branches,
                Call::Loop(c) => std::slice::from_ref(&c.body),
            };
            callees.iter().map(|c| c.name.as_str())
        })
    }

    /// The bytes the program's `loop.alloc`s take when all their sizes are static (`None` when
    /// some depend on input sizes, or when it calls other host functions, whose memory depends
    /// on which run and how often; see [`Session::arena_bytes`](crate::Session::arena_bytes)).
    pub fn arena_bytes(&self) -> Option<usize> {
        self.static_arena
    }
}

/// The host functions compiled so far in one top-level compile, and the chain of functions
/// being compiled (each calling the next), which a call must not lead back into.
#[derive(Default)]
struct Callees {
    done: FxHashMap<Op, Arc<HostProgram>>,
    active: Vec<Op>,
}

/// Compiles host function `func`, and the host functions it calls that `callees` does not hold
/// yet.
fn compile_function(
    ctx: &Context,
    func: Op,
    kernels: &dyn KernelTable,
    callees: &mut Callees,
) -> Result<HostProgram, Diagnostic> {
    let signature = Signature::from_host_function(ctx, func)?;
    callees.active.push(func);
    let mut c = Compiler {
        ctx,
        kernels,
        tables: SymbolTables::new(),
        slots: FxHashMap::default(),
        callees,
        constant_slots: FxHashSet::default(),
        call_results: FxHashMap::default(),
        p: HostProgram {
            signature,
            outputs: Vec::new(),
            params: Vec::new(),
            instrs: Vec::new(),
            locs: Vec::new(),
            launches: Vec::new(),
            constants: Vec::new(),
            num_scalars: 0,
            buf_dtype: Vec::new(),
            buf_rank: Vec::new(),
            buf_dims_at: Vec::new(),
            num_dims: 0,
            num_allocs: 0,
            output_slots: Vec::new(),
            output_constant: Vec::new(),
            max_words: 0,
            calls: Vec::new(),
            parallel: true,
            runs: None,
            static_arena: Some(0),
        },
    };
    let compiled = c.compile(func);
    let p = c.p;
    callees.active.pop();
    compiled.map(|()| p)
}

/// The symbol name of function `func` (empty if it has none).
fn function_name(ctx: &Context, func: Op) -> &str {
    ctx.view::<FuncOp>(func)
        .and_then(|f| f.sym_name(ctx))
        .and_then(|a| ctx.attr_as_str(a))
        .unwrap_or("")
}

/// The `func.func` named `name` in `module`.
fn find_function(ctx: &Context, module: Op, name: &str) -> Result<Op, Diagnostic> {
    let body = ctx
        .regions(module)
        .first()
        .and_then(|&r| ctx.blocks(r).first().copied());
    let found = body.and_then(|b| {
        ctx.block_ops(b).find(|&op| {
            ctx.view::<FuncOp>(op)
                .is_some_and(|f| f.sym_name(ctx).and_then(|a| ctx.attr_as_str(a)) == Some(name))
        })
    });
    found.ok_or_else(|| {
        Diagnostic::error(
            ctx.op_loc(module),
            format!("no host function '@{name}' in the module"),
        )
    })
}

/// A compiled value.
#[derive(Copy, Clone, Debug)]
enum Slot {
    Scalar { slot: u32, width: u32 },
    Buffer(u32),
}

struct Compiler<'a, 'c> {
    ctx: &'a Context,
    kernels: &'a dyn KernelTable,
    tables: SymbolTables,
    slots: FxHashMap<Value, Slot>,
    callees: &'c mut Callees,
    /// The buffer slots that may hold bytes of a `loop.constant`, this program's or a callee's.
    constant_slots: FxHashSet<u32>,
    /// For each `loop.call_if` result slot that is in `constant_slots`: its call and result.
    call_results: FxHashMap<u32, (usize, usize)>,
    p: HostProgram,
}

fn err(ctx: &Context, op: Op, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::error(ctx.op_loc(op), msg.into())
}

/// The error for an op outside the host-function subset.
fn unsupported(ctx: &Context, op: Op) -> Diagnostic {
    err(
        ctx,
        op,
        format!("'{}' is not supported in a host function", ctx.op_name(op)),
    )
}

impl Compiler<'_, '_> {
    fn compile(&mut self, func: Op) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let blocks = ctx
            .regions(func)
            .first()
            .map_or(&[][..], |&r| ctx.blocks(r));
        let [entry] = blocks else {
            return Err(err(
                ctx,
                func,
                "a host function must have exactly one block",
            ));
        };
        for (i, &arg) in ctx.block_args(*entry).iter().enumerate() {
            let ty = ctx.value_type(arg);
            let bad = || {
                err(
                    ctx,
                    func,
                    format!("argument #{i} has a type the runtime cannot pass"),
                )
            };
            if dlc_loop::buffer_parts(ctx, ty).is_some() {
                let slot = self.buffer_slot(func, arg)?;
                self.p.params.push(Param::Buffer { slot, copy: false });
            } else if let Some(width) = int_width(ctx, ty) {
                let slot = self.scalar_slot(arg, width);
                self.p.params.push(Param::Scalar { slot, width });
            } else {
                return Err(bad());
            }
        }
        for op in ctx.block_ops(*entry) {
            if ctx.view::<dlc_func::ReturnOp>(op).is_some() {
                return self.compile_return(op);
            }
            self.compile_op(op)?;
        }
        Err(err(ctx, func, "host function ends without a 'func.return'"))
    }

    fn scalar_slot(&mut self, v: Value, width: u32) -> u32 {
        let slot = self.p.num_scalars as u32;
        self.p.num_scalars += 1;
        self.slots.insert(v, Slot::Scalar { slot, width });
        slot
    }

    /// A new buffer slot for `v`, of its (global buffer) type.
    fn buffer_slot(&mut self, op: Op, v: Value) -> Result<u32, Diagnostic> {
        let ctx = self.ctx;
        let ty = ctx.value_type(v);
        let (dims, elem, space) = dlc_loop::buffer_parts(ctx, ty)
            .ok_or_else(|| err(ctx, op, "expected a !loop.buffer"))?;
        if space != MemorySpace::Global {
            return Err(err(ctx, op, "host buffers must be global"));
        }
        let dtype = DType::from_type(ctx, elem)
            .ok_or_else(|| err(ctx, op, "unsupported buffer element type"))?;
        let slot = self.p.buf_dtype.len() as u32;
        self.p.buf_dtype.push(dtype);
        self.p.buf_rank.push(dims.len() as u32);
        self.p.buf_dims_at.push(self.p.num_dims as u32);
        self.p.num_dims += dims.len();
        self.slots.insert(v, Slot::Buffer(slot));
        Ok(slot)
    }

    fn get(&self, op: Op, v: Value) -> Result<Slot, Diagnostic> {
        self.slots
            .get(&v)
            .copied()
            .ok_or_else(|| err(self.ctx, op, "operand is not defined in the host function"))
    }

    fn scalar(&self, op: Op, v: Value) -> Result<(u32, u32), Diagnostic> {
        match self.get(op, v)? {
            Slot::Scalar { slot, width } => Ok((slot, width)),
            Slot::Buffer(_) => Err(err(
                self.ctx,
                op,
                "expected an integer operand, got a buffer",
            )),
        }
    }

    fn buffer(&self, op: Op, v: Value) -> Result<u32, Diagnostic> {
        match self.get(op, v)? {
            Slot::Buffer(b) => Ok(b),
            Slot::Scalar { .. } => Err(err(self.ctx, op, "expected a buffer operand")),
        }
    }

    /// Marks buffer `v` (or the buffer a `loop.reshape` chain of it starts from) as needing a
    /// private copy if it is a function argument.
    fn mark_copy(&mut self, v: Value) {
        let Some(&Slot::Buffer(b)) = self.slots.get(&dlc_loop::reshape_root(self.ctx, v)) else {
            return;
        };
        for p in &mut self.p.params {
            if let Param::Buffer { slot, copy } = p {
                if *slot == b {
                    *copy = true;
                }
            }
        }
    }

    /// Marks buffer `v` as possibly written by this program: [`Self::mark_copy`], and a
    /// `loop.call_if` result (or the one a reshape chain of `v` starts from) that may be a
    /// callee's constant is copied by its call.
    fn mark_written(&mut self, v: Value) {
        self.mark_copy(v);
        let Some(&Slot::Buffer(b)) = self.slots.get(&dlc_loop::reshape_root(self.ctx, v)) else {
            return;
        };
        if let Some(&(call, result)) = self.call_results.get(&b) {
            if let Some(Call::If(c)) = self.p.calls.get_mut(call) {
                if let Some(r) = c.results.get_mut(result) {
                    r.copy = true;
                }
            }
        }
    }

    fn push(&mut self, op: Op, instr: Instr) {
        self.p.instrs.push(instr);
        self.p.locs.push(self.ctx.op_loc(op));
    }

    fn operand(&self, op: Op, i: usize) -> Result<Value, Diagnostic> {
        self.ctx
            .operands(op)
            .get(i)
            .copied()
            .ok_or_else(|| err(self.ctx, op, format!("expected an operand #{i}")))
    }

    /// The single result of `op` and its integer width, for an integer-valued op.
    fn int_result(&mut self, op: Op) -> Result<u32, Diagnostic> {
        let ctx = self.ctx;
        if ctx.num_results(op) != 1 {
            return Err(err(ctx, op, "expected exactly one result"));
        }
        let v = ctx.result(op, 0);
        let width = int_width(ctx, ctx.value_type(v)).ok_or_else(|| {
            err(
                ctx,
                op,
                format!(
                    "'{}' on non-integer values is not supported in a host function",
                    ctx.op_name(op)
                ),
            )
        })?;
        Ok(self.scalar_slot(v, width))
    }

    fn compile_op(&mut self, op: Op) -> Result<(), Diagnostic> {
        use dlc_loop::LoopOps as L;
        let ctx = self.ctx;
        if let Some(arith) = ArithOps::of(ctx, op) {
            return self.compile_arith(arith);
        }
        match L::of(ctx, op) {
            Some(L::DimOp(dim)) => {
                let buf = self.buffer(op, self.operand(op, 0)?)?;
                let rank = self.p.buf_rank[buf as usize] as usize;
                let axis = dim
                    .axis_index(ctx)
                    .filter(|&a| a < rank)
                    .ok_or_else(|| err(ctx, op, format!("'axis' must be in [0, {rank})")))?;
                let dst = self.int_result(op)?;
                self.push(
                    op,
                    Instr::Dim {
                        dst,
                        buf,
                        axis: axis as u32,
                    },
                );
            }
            Some(L::ReadSizeOp(read)) => {
                let buf = self.buffer(op, read.buffer(ctx))?;
                let dtype = self.p.buf_dtype[buf as usize];
                let static_one = dlc_loop::buffer_parts(ctx, ctx.value_type(read.buffer(ctx)))
                    .is_some_and(|(dims, _, _)| dims.iter().all(|&d| d == 1));
                if !dtype.is_int() || !static_one {
                    return Err(err(
                        ctx,
                        op,
                        "expects a buffer of one integer element (every dim 1)",
                    ));
                }
                let dst = self.int_result(op)?;
                self.push(op, Instr::ReadSize { dst, buf });
            }
            Some(L::CheckOp(check)) => {
                let (cond, _) = self.scalar(op, check.condition(ctx))?;
                let message = ctx
                    .attr(op, "message")
                    .and_then(|a| ctx.attr_as_str(a))
                    .ok_or_else(|| err(ctx, op, "requires a string attribute 'message'"))?;
                let message = message.into();
                self.push(op, Instr::Check { cond, message });
            }
            Some(L::AllocOp(_)) => self.compile_alloc(op)?,
            Some(L::ConstantOp(_)) => self.compile_constant(op)?,
            Some(L::ViewOp(_)) => self.compile_view(op)?,
            Some(L::ReshapeOp(_)) => self.compile_reshape(op)?,
            Some(L::LaunchOp(_)) => self.compile_launch(op)?,
            Some(L::CallIfOp(call)) => self.compile_call_if(call)?,
            Some(L::CallLoopOp(call)) => self.compile_call_loop(call)?,
            _ => return Err(unsupported(ctx, op)),
        }
        Ok(())
    }

    fn compile_arith(&mut self, arith: ArithOps) -> Result<(), Diagnostic> {
        use ArithOps as A;
        let ctx = self.ctx;
        let op = arith.op();
        match arith {
            A::ConstantOp(constant) => {
                let value = constant
                    .value(ctx)
                    .and_then(|a| ctx.attr_as_int(a))
                    .ok_or_else(|| {
                        err(
                            ctx,
                            op,
                            "only integer constants are supported in a host function",
                        )
                    })?;
                let dst = self.int_result(op)?;
                let width = self.width_of_result(op);
                let value = wrap(value as i64, width);
                self.push(op, Instr::Const { dst, value });
            }
            A::CmpIOp(cmp) => {
                let (a, width) = self.scalar(op, self.operand(op, 0)?)?;
                let (b, _) = self.scalar(op, self.operand(op, 1)?)?;
                let pred = cmp
                    .predicate(ctx)
                    .and_then(|a| ctx.attr_as_int(a))
                    .and_then(|p| i64::try_from(p).ok())
                    .and_then(CmpIPredicate::from_i64)
                    .ok_or_else(|| err(ctx, op, "expected a cmpi 'predicate' in 0..=9"))?;
                let dst = self.int_result(op)?;
                self.push(
                    op,
                    Instr::Cmp {
                        pred,
                        width,
                        dst,
                        a,
                        b,
                    },
                );
            }
            A::SelectOp(_) => {
                let (cond, _) = self.scalar(op, self.operand(op, 0)?)?;
                let (a, _) = self.scalar(op, self.operand(op, 1)?)?;
                let (b, _) = self.scalar(op, self.operand(op, 2)?)?;
                let dst = self.int_result(op)?;
                self.push(op, Instr::Select { dst, cond, a, b });
            }
            A::IndexCastOp(_) | A::ExtSIOp(_) | A::ExtUIOp(_) | A::TruncIOp(_) => {
                let (src, from) = self.scalar(op, self.operand(op, 0)?)?;
                let dst = self.int_result(op)?;
                let to = self.width_of_result(op);
                let zext = matches!(arith, A::ExtUIOp(_));
                self.push(
                    op,
                    Instr::Cast {
                        dst,
                        src,
                        from,
                        to,
                        zext,
                    },
                );
            }
            _ => {
                let int_op = IntBinary::of(arith).ok_or_else(|| unsupported(ctx, op))?;
                let (a, width) = self.scalar(op, self.operand(op, 0)?)?;
                let (b, _) = self.scalar(op, self.operand(op, 1)?)?;
                let dst = self.int_result(op)?;
                self.push(
                    op,
                    Instr::Binary {
                        op: int_op,
                        width,
                        dst,
                        a,
                        b,
                    },
                );
            }
        }
        Ok(())
    }

    fn width_of_result(&self, op: Op) -> u32 {
        let ctx = self.ctx;
        int_width(ctx, ctx.value_type(ctx.result(op, 0))).unwrap_or(64)
    }

    /// The sizes of `op`'s buffer result: its static dims, `?` dims taken from `sizes` in order.
    fn sizes(&self, op: Op, sizes: &[Value]) -> Result<(Vec<Size>, DType), Diagnostic> {
        let ctx = self.ctx;
        let ty = *ctx
            .result_types(op)
            .first()
            .ok_or_else(|| err(ctx, op, "expected a result"))?;
        let (dims, elem, space) = dlc_loop::buffer_parts(ctx, ty)
            .ok_or_else(|| err(ctx, op, "result is not a !loop.buffer"))?;
        if space != MemorySpace::Global {
            return Err(err(ctx, op, "host buffers must be global"));
        }
        let dtype = DType::from_type(ctx, elem)
            .ok_or_else(|| err(ctx, op, "unsupported buffer element type"))?;
        let mut sizes = sizes.iter();
        let mut out = Vec::with_capacity(dims.len());
        for d in dims {
            if d == DYNAMIC {
                let v = sizes
                    .next()
                    .ok_or_else(|| err(ctx, op, "missing size operand for a '?' dim"))?;
                out.push(Size::Scalar(self.scalar(op, *v)?.0));
            } else {
                let n = usize::try_from(d)
                    .map_err(|_| err(ctx, op, format!("negative buffer size {d}")))?;
                out.push(Size::Static(n));
            }
        }
        if sizes.next().is_some() {
            return Err(err(ctx, op, "more size operands than '?' dims"));
        }
        Ok((out, dtype))
    }

    fn compile_alloc(&mut self, op: Op) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let (dims, dtype) = self.sizes(op, ctx.operands(op))?;
        let statics: Option<Vec<usize>> = dims
            .iter()
            .map(|s| match s {
                Size::Static(n) => Some(*n),
                Size::Scalar(_) => None,
            })
            .collect();
        self.p.static_arena = match (self.p.static_arena, statics) {
            (Some(total), Some(shape)) => {
                let bytes = byte_size(&shape, dtype).map_err(|e| err(ctx, op, e.to_string()))?;
                total.checked_add(bytes)
            }
            _ => None,
        };
        let dst = self.buffer_slot(op, ctx.result(op, 0))?;
        let alloc = self.p.num_allocs as u32;
        self.p.num_allocs += 1;
        self.push(
            op,
            Instr::Alloc {
                dst,
                alloc,
                dims: dims.into(),
            },
        );
        Ok(())
    }

    fn compile_constant(&mut self, op: Op) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let (dims, dtype) = self.sizes(op, &[])?;
        let shape: Vec<usize> = dims
            .iter()
            .map(|s| match s {
                Size::Static(n) => Ok(*n),
                Size::Scalar(_) => Err(err(ctx, op, "a constant must be fully static")),
            })
            .collect::<Result<_, _>>()?;
        let Some(AttrKind::DenseElements(dense)) = ctx.attr(op, "value").map(|a| ctx.attr_kind(a))
        else {
            return Err(err(ctx, op, "expected a dense elements attribute 'value'"));
        };
        let n = dtype.size_bytes();
        let numel: usize = shape.iter().product();
        let dense_shape = ctx.shape(dense.ty).unwrap_or(&[]);
        let shape_ok = dense_shape.len() == shape.len()
            && dense_shape.iter().zip(&shape).all(|(&a, &b)| a == b as i64);
        let elem_ok = DType::from_type(ctx, ctx.element_type(dense.ty)) == Some(dtype);
        let stored = if dense.splat { 1 } else { numel };
        // Checked here, not trusted from the verifier: decoding a short payload would panic.
        if !shape_ok || !elem_ok || dense.data.len() < stored * n {
            return Err(err(
                ctx,
                op,
                "the dense value does not match the result buffer",
            ));
        }
        let size = byte_size(&shape, dtype).map_err(|e| err(ctx, op, e.to_string()))?;
        let alloc_err = |e: crate::RuntimeError| err(ctx, op, e.to_string());
        // A payload stored at the buffer's element width is the buffer's bytes already (dense
        // attributes are packed little-endian): copied whole, or repeated for a splat. Booleans
        // are normalized to 0 or 1 element by element.
        let stored_width =
            dlc_ir::attributes::dense_element_bytes(ctx.type_kind(ctx.element_type(dense.ty)));
        let as_stored = dtype != DType::I1 && stored_width == Some(n);
        let bytes = if as_stored && !dense.splat {
            AlignedBytes::copied(&dense.data[..size]).map_err(alloc_err)?
        } else {
            let mut bytes = AlignedBytes::zeroed(size).map_err(alloc_err)?;
            let out = bytes.as_mut_slice();
            if as_stored {
                for chunk in out.chunks_exact_mut(n) {
                    chunk.copy_from_slice(&dense.data[..n]);
                }
            } else {
                for (i, out) in out.chunks_exact_mut(n).enumerate() {
                    let bits = match (ctx.dense_element(dense, i), dtype.float_kind()) {
                        (DenseValue::Float(x), Some(kind)) => kind.to_bits(kind.round(x)),
                        (DenseValue::Int(x), None) if dtype == DType::I1 => u64::from(x != 0),
                        (DenseValue::Int(x), None) => x as u64,
                        _ => {
                            return Err(err(
                                ctx,
                                op,
                                "the dense value does not match the element type",
                            ))
                        }
                    };
                    out.copy_from_slice(&bits.to_le_bytes()[..n]);
                }
            }
            bytes
        };
        let dst = self.buffer_slot(op, ctx.result(op, 0))?;
        self.constant_slots.insert(dst);
        let constant = self.p.constants.len() as u32;
        self.p.constants.push(bytes);
        self.push(
            op,
            Instr::Constant {
                dst,
                constant,
                dims: dims.into(),
            },
        );
        Ok(())
    }

    fn compile_view(&mut self, op: Op) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let arena_value = self.operand(op, 0)?;
        let arena = self.buffer(op, arena_value)?;
        if self.p.buf_dtype[arena as usize] != DType::I8 || self.p.buf_rank[arena as usize] != 1 {
            return Err(err(ctx, op, "the arena must be a 1-D i8 buffer"));
        }
        let (offset, _) = self.scalar(op, self.operand(op, 1)?)?;
        let (dims, _) = self.sizes(op, ctx.operands(op).get(2..).unwrap_or(&[]))?;
        // A view shares its arena's bytes: writing or returning it touches the arena.
        self.mark_written(arena_value);
        let dst = self.buffer_slot(op, ctx.result(op, 0))?;
        if self.constant_slots.contains(&arena) {
            self.constant_slots.insert(dst);
        }
        self.push(
            op,
            Instr::View {
                dst,
                arena,
                offset,
                dims: dims.into(),
            },
        );
        Ok(())
    }

    fn compile_reshape(&mut self, op: Op) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let src = self.buffer(op, self.operand(op, 0)?)?;
        let (dims, dtype) = self.sizes(op, ctx.operands(op).get(1..).unwrap_or(&[]))?;
        if dtype != self.p.buf_dtype[src as usize] {
            return Err(err(
                ctx,
                op,
                "the result's element type differs from the source's",
            ));
        }
        // Writing or returning the result touches the source's memory (`mark_copy` follows
        // the reshape to it).
        let dst = self.buffer_slot(op, ctx.result(op, 0))?;
        if self.constant_slots.contains(&src) {
            self.constant_slots.insert(dst);
        }
        self.push(
            op,
            Instr::Reshape {
                dst,
                src,
                dims: dims.into(),
            },
        );
        Ok(())
    }

    fn compile_launch(&mut self, op: Op) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let callee = ctx.attr(op, "callee").and_then(|a| ctx.attr_as_symbol(a));
        let symbol = callee
            .and_then(|c| self.tables.resolve(ctx, op, c))
            .and_then(|k| KernelSymbol::of(ctx, k));
        let name = callee.map_or("", |c| ctx.ident_str(c)).to_string();
        let Some(symbol) = symbol else {
            return Err(err(
                ctx,
                op,
                format!("'@{name}' does not reference a 'loop.kernel' or 'loop.compiled_kernel'"),
            ));
        };
        let kernel = self
            .kernels
            .entry(&name)
            .ok_or_else(|| err(ctx, op, format!("no compiled code for kernel '@{name}'")))?;
        let params = symbol
            .argument_types(ctx)
            .ok_or_else(|| err(ctx, op, format!("kernel '@{name}' has no signature")))?;
        let operands = ctx.operands(op);
        if params.len() != operands.len() {
            return Err(err(
                ctx,
                op,
                format!(
                    "kernel '@{name}' takes {} arguments but {} were given",
                    params.len(),
                    operands.len()
                ),
            ));
        }
        let written_args = symbol.written_args(ctx);
        let mut args = Vec::with_capacity(operands.len());
        let mut words = 0;
        for (i, (&pty, &v)) in params.iter().zip(operands).enumerate() {
            let bad = |m: &str| err(ctx, op, format!("argument #{i} of '@{name}': {m}"));
            match self.get(op, v)? {
                Slot::Buffer(slot) => {
                    let (dtype, dims) = type_parts(ctx, pty)
                        .filter(|_| dlc_loop::buffer_parts(ctx, pty).is_some())
                        .ok_or_else(|| bad("the kernel expects a scalar, got a buffer"))?;
                    let b = slot as usize;
                    if dtype != self.p.buf_dtype[b] || dims.len() != self.p.buf_rank[b] as usize {
                        return Err(bad("element type or rank differs from the kernel's"));
                    }
                    let written = written_args.get(i).copied().unwrap_or(false);
                    if written {
                        self.mark_written(v);
                    }
                    let declared = dims
                        .iter()
                        .map(|&d| usize::try_from(d).ok().filter(|_| d != DYNAMIC))
                        .collect();
                    words += 1 + dims.len();
                    args.push(LaunchArg::Buffer {
                        slot,
                        declared,
                        written,
                    });
                }
                Slot::Scalar { slot, .. } => {
                    if !ctx.is_integer_or_index(pty) {
                        return Err(bad("the kernel expects a buffer or float, got an integer"));
                    }
                    words += 1;
                    args.push(LaunchArg::Scalar { slot });
                }
            }
        }
        let slot = |i: usize| match args.get(i) {
            Some(LaunchArg::Buffer { slot, .. }) => Some(*slot),
            _ => None,
        };
        let index_checks = dlc_loop::index_checks(ctx, symbol.op())
            .and_then(|checks| {
                checks
                    .into_iter()
                    .map(|check| {
                        Some(CheckedIndices {
                            check,
                            indices: slot(check.indices)?,
                            data: slot(check.data)?,
                        })
                    })
                    .collect::<Option<Vec<_>>>()
            })
            .ok_or_else(|| {
                err(
                    ctx,
                    op,
                    format!("kernel '@{name}' has malformed index checks"),
                )
            })?;
        self.p.max_words = self.p.max_words.max(words);
        let index = self.p.launches.len() as u32;
        self.p.launches.push(Launch {
            name,
            kernel,
            args: args.into(),
            index_checks: index_checks.into(),
        });
        self.push(op, Instr::Launch(index));
        Ok(())
    }

    /// The callee named by symbol `name` (`role` says which callee, in errors), compiled
    /// unless an earlier call compiled it; an error if it is not a host function or if
    /// compiling it would recurse into a function being compiled.
    fn callee(&mut self, op: Op, name: Option<Ident>, role: &str) -> Result<Callee, Diagnostic> {
        let ctx = self.ctx;
        let Some(name) = name else {
            return Err(err(ctx, op, format!("expected a symbol for the {role}")));
        };
        let text = ctx.ident_str(name).to_string();
        let func = self
            .tables
            .resolve(ctx, op, name)
            .filter(|&f| ctx.view::<FuncOp>(f).is_some())
            .ok_or_else(|| {
                err(
                    ctx,
                    op,
                    format!("{role} '@{text}' does not reference a host function"),
                )
            })?;
        if let Some(at) = self.callees.active.iter().position(|&f| f == func) {
            let chain: Vec<String> = self.callees.active[at..]
                .iter()
                .chain([&func])
                .map(|&f| format!("'@{}'", function_name(ctx, f)))
                .collect();
            return Err(err(
                ctx,
                op,
                format!(
                    "recursive call: {} (host functions cannot call themselves)",
                    chain.join(" -> ")
                ),
            ));
        }
        let program = match self.callees.done.get(&func) {
            Some(program) => Arc::clone(program),
            None => {
                let program = Arc::new(compile_function(ctx, func, self.kernels, self.callees)?);
                self.callees.done.insert(func, Arc::clone(&program));
                program
            }
        };
        Ok(Callee {
            name: text,
            program,
        })
    }

    /// Operand `i` of `op`, its `what`, which must be a buffer whose element type is `ok`
    /// (`expected` names it in errors). How many elements it holds is checked at run time.
    fn call_buffer(
        &self,
        op: Op,
        i: usize,
        (what, expected): (&str, &str),
        ok: impl Fn(DType) -> bool,
    ) -> Result<u32, Diagnostic> {
        let b = self.buffer(op, self.operand(op, i)?)?;
        if ok(self.p.buf_dtype[b as usize]) {
            Ok(b)
        } else {
            Err(err(
                self.ctx,
                op,
                format!("the {what} must be a buffer of {expected}"),
            ))
        }
    }

    /// `values` passed as parameters `first..` of `callee`, each checked against its parameter:
    /// a buffer of the same element type and rank whose static dims agree, or an integer of the
    /// same width.
    fn call_args(
        &self,
        op: Op,
        callee: &Callee,
        first: usize,
        values: &[Value],
    ) -> Result<Vec<CallArg>, Diagnostic> {
        let ctx = self.ctx;
        let p = &callee.program;
        let mut args = Vec::with_capacity(values.len());
        for (i, &v) in values.iter().enumerate() {
            let k = first + i;
            let bad = |m: &str| {
                err(
                    ctx,
                    op,
                    format!("parameter #{k} of '@{}': {m}", callee.name),
                )
            };
            let param = *p.params.get(k).ok_or_else(|| bad("missing"))?;
            match (self.get(op, v)?, param) {
                (Slot::Buffer(b), Param::Buffer { slot, .. }) => {
                    let (b, slot) = (b as usize, slot as usize);
                    if self.p.buf_dtype[b] != p.buf_dtype[slot]
                        || self.p.buf_rank[b] != p.buf_rank[slot]
                    {
                        return Err(bad("element type or rank differs from the value passed"));
                    }
                    let declared = declared_dims(ctx, ctx.value_type(v));
                    let spec = &p.signature.inputs[k].dims;
                    let clash = declared.iter().zip(spec).any(
                        |(d, s)| matches!((d, s), (Some(d), DimSpec::Static(s)) if *d as u64 != *s),
                    );
                    if clash {
                        return Err(bad("a static dim differs from the value passed"));
                    }
                    args.push(CallArg::Buffer(b as u32));
                }
                (Slot::Scalar { slot, width }, Param::Scalar { width: w, .. }) if width == w => {
                    args.push(CallArg::Scalar(slot));
                }
                _ => return Err(bad("the value passed is not of its kind or width")),
            }
        }
        Ok(args)
    }

    /// A buffer slot for result `i` of `op`, of the element type and rank `(dtype, rank)`.
    fn call_result(
        &mut self,
        op: Op,
        i: usize,
        (dtype, rank): (DType, u32),
    ) -> Result<CallResult, Diagnostic> {
        let ctx = self.ctx;
        let v = ctx.result(op, i);
        let slot = self.buffer_slot(op, v)?;
        let s = slot as usize;
        if self.p.buf_dtype[s] != dtype || self.p.buf_rank[s] != rank {
            return Err(err(
                ctx,
                op,
                format!("result #{i}: element type or rank differs from what the callee returns"),
            ));
        }
        Ok(CallResult {
            slot,
            declared: declared_dims(ctx, ctx.value_type(v)),
            copy: false,
        })
    }

    fn compile_call_if(&mut self, call: CallIfOp) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let op = call.op();
        let cond = self.call_buffer(op, 0, ("condition", "i1"), |d| d == DType::I1)?;
        let sym = |a: Option<dlc_ir::Attribute>| a.and_then(|a| ctx.attr_as_symbol(a));
        let then = self.callee(op, sym(call.then_callee_attr(ctx)), "then callee")?;
        let other = self.callee(op, sym(call.else_callee_attr(ctx)), "else callee")?;
        let values = call.args(ctx);
        let num_results = ctx.num_results(op);
        for callee in [&then, &other] {
            let p = &callee.program;
            if p.params.len() != values.len() || p.output_slots.len() != num_results {
                return Err(err(
                    ctx,
                    op,
                    format!(
                        "'@{}' takes {} arguments and returns {} results, but the call passes {} and has {}",
                        callee.name,
                        p.params.len(),
                        p.output_slots.len(),
                        values.len(),
                        num_results
                    ),
                ));
            }
        }
        let args = self.call_args(op, &then, 0, values)?;
        self.call_args(op, &other, 0, values)?;
        let index = self.p.calls.len();
        let mut results = Vec::with_capacity(num_results);
        for i in 0..num_results {
            let kind = |p: &HostProgram| {
                let s = p.output_slots[i] as usize;
                (p.buf_dtype[s], p.buf_rank[s])
            };
            let (a, b) = (kind(&then.program), kind(&other.program));
            if a != b {
                return Err(err(
                    ctx,
                    op,
                    format!("result #{i}: the callees return different element types or ranks"),
                ));
            }
            let result = self.call_result(op, i, a)?;
            if then.program.output_constant[i] || other.program.output_constant[i] {
                self.constant_slots.insert(result.slot);
                self.call_results.insert(result.slot, (index, i));
            }
            results.push(result);
        }
        self.p.calls.push(Call::If(CallIf {
            cond,
            branches: [then, other],
            args: args.into(),
            results: results.into(),
        }));
        self.p.static_arena = None;
        self.push(op, Instr::Call(index as u32));
        Ok(())
    }

    fn compile_call_loop(&mut self, call: CallLoopOp) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let op = call.op();
        let is_trip = |d: DType| d.is_int() && d.size_bytes() == 8;
        let max_trip = self.call_buffer(op, 0, ("trip count", "i64"), is_trip)?;
        let cond = self.call_buffer(op, 1, ("condition", "i1"), |d| d == DType::I1)?;
        let n = call
            .num_carried(ctx)
            .ok_or_else(|| err(ctx, op, "expected a 'num_carried' in range"))?;
        let sym = call.callee_attr(ctx).and_then(|a| ctx.attr_as_symbol(a));
        let body = self.callee(op, sym, "loop body")?;
        let (carried_values, capture_values) = (call.carried(ctx), call.captures(ctx));
        let p = Arc::clone(&body.program);
        let num_results = ctx.num_results(op);
        if p.params.len() != 2 + n + capture_values.len()
            || p.output_slots.len() != 1 + num_results
            || num_results < n
        {
            return Err(err(
                ctx,
                op,
                format!(
                    "loop body '@{}' takes {} arguments and returns {} results, but the call passes {} ({n} carried) and has {num_results}",
                    body.name,
                    p.params.len(),
                    p.output_slots.len(),
                    2 + n + capture_values.len(),
                ),
            ));
        }
        let buffer_param = |k: usize| match p.params[k] {
            Param::Buffer { slot, .. } => {
                Some((p.buf_dtype[slot as usize], p.buf_rank[slot as usize]))
            }
            Param::Scalar { .. } => None,
        };
        let output = |k: usize| {
            let s = p.output_slots[k] as usize;
            (p.buf_dtype[s], p.buf_rank[s])
        };
        let iteration_ok = buffer_param(0).is_some_and(|(d, r)| is_trip(d) && r == 0);
        let cond_ok = buffer_param(1) == Some((DType::I1, 0)) && output(0) == (DType::I1, 0);
        if !iteration_ok || !cond_ok {
            return Err(err(
                ctx,
                op,
                format!(
                    "loop body '@{}' must take an i64 and an i1 buffer of rank 0 first and return an i1 buffer of rank 0 first",
                    body.name
                ),
            ));
        }
        let carried = self
            .call_args(op, &body, 2, carried_values)?
            .into_iter()
            .map(|a| match a {
                CallArg::Buffer(b) => Ok(b),
                CallArg::Scalar(_) => Err(err(ctx, op, "carried values must be buffers")),
            })
            .collect::<Result<Vec<u32>, _>>()?;
        let captures = self.call_args(op, &body, 2 + n, capture_values)?;
        let mut results = Vec::with_capacity(num_results);
        for (k, &b) in carried.iter().enumerate() {
            let kind = (self.p.buf_dtype[b as usize], self.p.buf_rank[b as usize]);
            if output(1 + k) != kind {
                return Err(err(
                    ctx,
                    op,
                    format!(
                        "result #{} of loop body '@{}' differs in element type or rank from carried value #{k}",
                        1 + k,
                        body.name
                    ),
                ));
            }
            results.push(self.call_result(op, k, kind)?);
        }
        for i in n..num_results {
            let (dtype, rank) = output(1 + i);
            results.push(self.call_result(op, i, (dtype, rank + 1))?);
        }
        let index = self.p.calls.len();
        self.p.calls.push(Call::Loop(CallLoop {
            body,
            max_trip,
            cond,
            carried: carried.into(),
            captures: captures.into(),
            results: results.into(),
        }));
        self.p.static_arena = None;
        self.push(op, Instr::Call(index as u32));
        Ok(())
    }

    fn compile_return(&mut self, op: Op) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let mut next_symbol = 0u32;
        let func = ctx.parent_op(op).unwrap_or(op);
        let declared = match source_dtypes(ctx, func)? {
            Some(d) if d.results.len() != ctx.operands(op).len() => {
                return Err(err(
                    ctx,
                    op,
                    "the source type does not have one result per value",
                ))
            }
            Some(d) => Some(d.results),
            None => None,
        };
        for (i, &v) in ctx.operands(op).iter().enumerate() {
            let Slot::Buffer(slot) = self.get(op, v)? else {
                return Err(err(
                    ctx,
                    op,
                    format!("result #{i}: the runtime returns buffers only"),
                ));
            };
            // Returned bytes must outlive the caller's inputs: never the caller's tensor.
            self.mark_copy(v);
            let (mut dtype, dims) = type_parts(ctx, ctx.value_type(v))
                .ok_or_else(|| err(ctx, op, format!("result #{i}: unsupported type")))?;
            if let Some(declared) = &declared {
                dtype = relabel(ctx, func, &format!("result #{i}"), dtype, declared[i])?;
            }
            let dims = dims
                .iter()
                .map(|&d| {
                    if d == DYNAMIC {
                        next_symbol += 1;
                        DimSpec::Symbol(next_symbol - 1)
                    } else {
                        DimSpec::Static(d as u64)
                    }
                })
                .collect();
            self.p.outputs.push(TensorSpec {
                name: format!("result {i}"),
                dtype,
                dims,
            });
            self.p.output_slots.push(slot);
            self.p
                .output_constant
                .push(self.constant_slots.contains(&slot));
        }
        Ok(())
    }
}

/// The static dims of buffer type `ty` (`None` for `?`; empty for other types).
fn declared_dims(ctx: &Context, ty: dlc_ir::Type) -> Box<[Option<usize>]> {
    dlc_loop::buffer_parts(ctx, ty).map_or_else(Box::default, |(dims, _, _)| {
        dims.iter()
            .map(|&d| usize::try_from(d).ok().filter(|_| d != DYNAMIC))
            .collect()
    })
}

/// The width of an integer or `index` type.
fn int_width(ctx: &Context, ty: dlc_ir::Type) -> Option<u32> {
    match ctx.type_kind(ty) {
        dlc_ir::TypeKind::Integer { width } => Some(*width),
        dlc_ir::TypeKind::Index => Some(64),
        _ => None,
    }
}

/// `v` wrapped to `width` bits, sign-extended.
pub(crate) fn wrap(v: i64, width: u32) -> i64 {
    if width >= 64 {
        v
    } else {
        let shift = 64 - width;
        (v << shift) >> shift
    }
}

#[cfg(test)]
mod tests {
    use super::{Call, HostProgram};
    use crate::abi::{KernelFn, KernelTable};
    use dlc_ir::Context;
    use dlc_loop::{KernelOp, KernelSymbol};
    use std::sync::Arc;

    struct NoKernels;

    impl KernelTable for NoKernels {
        fn kernel(&self, _: &str) -> Option<KernelFn> {
            None
        }
    }

    /// A host function called from several places, directly and through another callee, is
    /// compiled once: every call holds the same program.
    #[test]
    fn callees_are_compiled_once() {
        let mut ctx = Context::new();
        dlc_dialects::register_all_dialects(&mut ctx);
        let src = r#"
func.func @f(%c: !loop.buffer<i1, global>, %x: !loop.buffer<4xf32, global>) -> !loop.buffer<4xf32, global> {
  return %x : !loop.buffer<4xf32, global>
}
func.func @g(%c: !loop.buffer<i1, global>, %x: !loop.buffer<4xf32, global>) -> !loop.buffer<4xf32, global> {
  %r = loop.call_if %c then @f else @f (%c, %x) : (!loop.buffer<i1, global>, !loop.buffer<i1, global>, !loop.buffer<4xf32, global>) -> !loop.buffer<4xf32, global>
  return %r : !loop.buffer<4xf32, global>
}
func.func @main(%c: !loop.buffer<i1, global>, %x: !loop.buffer<4xf32, global>) -> !loop.buffer<4xf32, global> {
  %a = loop.call_if %c then @f else @g (%c, %x) : (!loop.buffer<i1, global>, !loop.buffer<i1, global>, !loop.buffer<4xf32, global>) -> !loop.buffer<4xf32, global>
  %b = loop.call_if %c then @g else @f (%c, %a) : (!loop.buffer<i1, global>, !loop.buffer<i1, global>, !loop.buffer<4xf32, global>) -> !loop.buffer<4xf32, global>
  return %b : !loop.buffer<4xf32, global>
}
"#;
        // A callee whose parameters do not fit the call is a diagnostic at the call.
        let bad = src.replace(
            "func.func @f(%c: !loop.buffer<i1, global>, %x: !loop.buffer<4xf32, global>)",
            "func.func @f(%x: !loop.buffer<4xf32, global>)",
        );
        let module = dlc_ir::parse_source(&mut ctx, &bad, "calls.mlir", 1).expect("parses");
        let e = HostProgram::compile(&ctx, module, "main", &NoKernels).unwrap_err();
        assert_eq!(
            e.message,
            "'@f' takes 1 arguments and returns 1 results, but the call passes 2 and has 1"
        );
        let module = dlc_ir::parse_source(&mut ctx, src, "calls.mlir", 1).expect("parses");
        dlc_ir::verify(&ctx, module).expect("verifies");
        let main = HostProgram::compile(&ctx, module, "main", &NoKernels).expect("compiles");
        let callees = |p: &HostProgram| -> Vec<Arc<HostProgram>> {
            p.calls
                .iter()
                .flat_map(|c| match c {
                    Call::If(c) => c.branches.to_vec(),
                    Call::Loop(c) => vec![c.body.clone()],
                })
                .map(|c| c.program)
                .collect()
        };
        let direct = callees(&main);
        let names: Vec<&str> = main.callee_names().collect();
        assert_eq!(names, ["f", "g", "g", "f"]);
        let (f, g) = (&direct[0], &direct[1]);
        assert!(Arc::ptr_eq(f, &direct[3]));
        assert!(Arc::ptr_eq(g, &direct[2]));
        for inner in callees(g) {
            assert!(Arc::ptr_eq(f, &inner), "@g's calls of @f share main's");
        }
    }

    /// A kernel argument that is only loaded and prefetched is read-only (the session does not
    /// copy it before each run); one that is stored to is not.
    #[test]
    fn prefetched_arguments_are_read_only() {
        let mut ctx = Context::new();
        dlc_dialects::register_all_dialects(&mut ctx);
        let src = r#"
loop.kernel @k(%x: !loop.buffer<4xf32, global>, %y: !loop.buffer<4xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  loop.prefetch %x[%c1] : !loop.buffer<4xf32, global>
  %v = loop.load %x[%c0] : !loop.buffer<4xf32, global>
  loop.store %v, %y[%c0] : !loop.buffer<4xf32, global>
  loop.return
}
"#;
        let module = dlc_ir::parse_source(&mut ctx, src, "k.mlir", 1).expect("parses");
        let mut kernel = None;
        ctx.for_each_op(module, &mut |op| {
            if ctx.view::<KernelOp>(op).is_some() {
                kernel = Some(op);
            }
        });
        let kernel = KernelSymbol::Body(KernelOp(kernel.expect("a kernel")));
        assert_eq!(kernel.written_args(&ctx), [false, true]);
    }
}
