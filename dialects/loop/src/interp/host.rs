//! The host interpreter: runs a host function — a `func.func` whose body allocates buffers,
//! makes constants and arena views, and launches kernels — so a whole lowered program runs in
//! one interpreter, kernels included.
//!
//! Memory is modelled as the compiled program sees it: bytes. Every allocation, constant and
//! buffer argument is a byte storage; a buffer value is a *view* (storage, byte offset, shape,
//! dtype) into one, and `loop.view` makes further views into an arena's storage. Elements are
//! stored little-endian at their natural size (`index` as an i64, `i1` as one byte 0/1, floats
//! through [`FloatKind::to_bits`](dlc_ir::FloatKind::to_bits): the byte form of
//! [`Literal::to_le_bytes`]), so two views of the same bytes see each other's writes exactly as
//! on a device.
//!
//! `loop.launch` decodes the views it passes into [`Literal`]s, runs the kernel with the
//! kernel interpreter and encodes the buffers back. Two arguments that are the same view share
//! one buffer, so an in-place kernel sees real aliasing, unless one of them is `loop.noalias`,
//! which is an error; views that overlap only partially cannot be expressed as kernel buffers
//! and are an error. `loop.read_size` reads a size a kernel wrote back out of memory (a negative
//! one is an error). `loop.call_if` and `loop.call_loop` run other host functions in the same
//! memory (`calls`). Everything a host function can get wrong at run time (sizes, offsets,
//! bounds, arguments, calls) comes back as a diagnostic at the op. [`run_host_traced`] also
//! reports each launch's arguments before and after the kernel, for tools that repeat the
//! launches elsewhere (`gpu-smoke` on a GPU).

mod calls;

use super::buffer::{buffer_type, store, KernelArg};
use super::exec::op_err;
use super::scalar::{self, Val};
use super::{run_kernel_with, ArgRef};
use crate::math::ScalarOp;
use crate::{DimOp, KernelOp, LoopOps, MemorySpace, SOURCE_TYPE};
use dlc_arith::ArithOps;
use dlc_ir::symbol::SymbolTables;
use dlc_ir::{AttrKind, Block, Context, DenseValue, Diagnostic, Op, Traits, Type, Value};
use dlc_tensor::{DType, Literal};
use rustc_hash::FxHashMap as HashMap;

/// The largest byte storage a host function may create (4 GiB): a guard against sizes computed
/// from bad inputs, which should fail with a diagnostic rather than exhaust memory.
const MAX_STORAGE_BYTES: usize = 1 << 32;

/// Runs host function `func` (a `func.func`) on `args`, returning its results.
///
/// Arguments are checked against the function's signature as [`run_kernel`](super::run_kernel)
/// checks a kernel's: a global [`KernelArg::Buffer`] of the declared element type, rank and
/// static sizes for every `!loop.buffer` parameter, a [`KernelArg::Index`] for every `index` or
/// integer parameter. The body must be one block of `arith` ops, `loop.dim`,
/// `loop.read_size`, `loop.alloc`, `loop.constant`, `loop.view`, `loop.reshape`,
/// `loop.launch`, `loop.call_if`, `loop.call_loop` and `func.return`; the host functions it
/// calls obey the same rules.
/// Returned buffers come back as owned [`Literal`]s, integers as [`KernelArg::Index`].
pub fn run_host(
    ctx: &Context,
    func: Op,
    args: Vec<KernelArg>,
) -> Result<Vec<KernelArg>, Diagnostic> {
    run(ctx, func, args, None)
}

/// One kernel launch of a host function, as [`run_host_traced`] reports it.
#[derive(Clone, Debug)]
pub struct Launch {
    /// The `loop.kernel` launched.
    pub kernel: Op,
    /// The launch's arguments before the kernel ran: a buffer for each buffer argument (its
    /// own copy, also where two arguments name the same buffer), an index for each integer.
    pub before: Vec<KernelArg>,
    /// The same arguments after the kernel ran.
    pub after: Vec<KernelArg>,
    /// Whether two arguments named the same buffer (an in-place kernel), so running the
    /// kernel on `before`'s separate copies is not the same launch.
    pub aliased: bool,
}

/// [`run_host`], calling `on_launch` after every kernel launch (nested host calls included)
/// with what the kernel was given and what it left: a tool that runs kernels elsewhere (a GPU,
/// another backend) gets each kernel's real arguments from a run of the whole program.
pub fn run_host_traced(
    ctx: &Context,
    func: Op,
    args: Vec<KernelArg>,
    on_launch: &mut dyn FnMut(Launch),
) -> Result<Vec<KernelArg>, Diagnostic> {
    run(ctx, func, args, Some(on_launch))
}

fn run<'c>(
    ctx: &'c Context,
    func: Op,
    args: Vec<KernelArg>,
    trace: Option<&'c mut dyn FnMut(Launch)>,
) -> Result<Vec<KernelArg>, Diagnostic> {
    let Some(signature) = ctx.view::<dlc_func::FuncOp>(func).map(|f| f.signature(ctx)) else {
        return Err(op_err(
            ctx,
            func,
            format!("expected a 'func.func', got '{}'", ctx.op_name(func)),
        ));
    };
    let (inputs, outputs) =
        signature.ok_or_else(|| op_err(ctx, func, "host function without a function type"))?;
    let entry = host_entry(ctx, func)?;
    let mut host = Host {
        ctx,
        storages: Vec::new(),
        env: HashMap::default(),
        tables: SymbolTables::new(),
        depth: 0,
        trace,
    };
    let source = crate::source_dtypes(ctx, func).map_err(|m| op_err(ctx, func, m))?;
    let args = match &source {
        Some(s) => relabel_all(ctx, func, args, &s.inputs, &inputs, true)?,
        None => args,
    };
    let args = host.host_arguments(func, ctx.block_args(entry), args)?;
    let results = host.call(func, args)?;
    let results = host.kernel_args(func, &results)?;
    match &source {
        Some(s) => relabel_all(ctx, func, results, &s.results, &outputs, false),
        None => Ok(results),
    }
}

/// The single block of host function `func`.
fn host_entry(ctx: &Context, func: Op) -> Result<Block, Diagnostic> {
    let blocks = ctx
        .regions(func)
        .first()
        .map_or(&[][..], |&r| ctx.blocks(r));
    match blocks {
        [entry] => Ok(*entry),
        [] => Err(op_err(ctx, func, "host function has no body")),
        _ => Err(op_err(
            ctx,
            func,
            format!(
                "host functions must have a single block, found {}",
                blocks.len()
            ),
        )),
    }
}

/// `values`, the arguments (`inputs`) or results of host function `func`, relabeled between the
/// graph dtypes `declared` and the signless dtypes of its buffers (`host_types`): an argument
/// must come as its graph dtype and is bit cast to its buffer's, a result is bit cast from its
/// buffer's to its graph dtype.
fn relabel_all(
    ctx: &Context,
    func: Op,
    values: Vec<KernelArg>,
    declared: &[Option<DType>],
    host_types: &[Type],
    inputs: bool,
) -> Result<Vec<KernelArg>, Diagnostic> {
    if declared.len() != values.len() || host_types.len() != values.len() {
        return Err(op_err(
            ctx,
            func,
            format!("'{SOURCE_TYPE}' does not match the host function's values"),
        ));
    }
    let mut out = Vec::with_capacity(values.len());
    for (i, (v, (&declared, &host))) in values
        .into_iter()
        .zip(declared.iter().zip(host_types))
        .enumerate()
    {
        let buffer = buffer_type(ctx, host).and_then(|b| DType::from_type(ctx, b.elem));
        out.push(match (v, declared, buffer) {
            (KernelArg::Buffer(t), Some(d), Some(b)) if d != b => {
                if inputs && t.dtype() != d {
                    return Err(op_err(
                        ctx,
                        func,
                        format!(
                            "argument #{i}: expected {d} elements, got a {} buffer",
                            t.dtype()
                        ),
                    ));
                }
                let target = if inputs { b } else { d };
                KernelArg::Buffer(t.bitcast(target).map_err(|m| op_err(ctx, func, m))?)
            }
            (v, _, _) => v,
        });
    }
    Ok(out)
}

/// A buffer value: `shape` elements of `dtype`, row-major, from byte `offset` of a storage.
#[derive(Clone, PartialEq, Eq, Debug)]
struct View {
    storage: usize,
    offset: usize,
    shape: Vec<usize>,
    dtype: DType,
}

impl View {
    fn numel(&self) -> usize {
        self.shape.iter().product()
    }

    /// The bytes the view covers; in range of its storage by construction.
    fn byte_range(&self) -> std::ops::Range<usize> {
        self.offset..self.offset + self.numel() * self.dtype.size_bytes()
    }
}

/// A runtime value of a host function.
#[derive(Clone, Debug)]
enum HostVal {
    Scalar(Val),
    Buffer(View),
}

struct Host<'c> {
    ctx: &'c Context,
    storages: Vec<Vec<u8>>,
    /// The values of the function running now; a call swaps in the callee's and back.
    env: HashMap<Value, HostVal>,
    tables: SymbolTables,
    /// How many host calls enclose the function running now.
    depth: usize,
    /// Told of every launch ([`run_host_traced`]).
    trace: Option<&'c mut dyn FnMut(Launch)>,
}

/// The byte size of a `shape` buffer of `dtype`, if it is below [`MAX_STORAGE_BYTES`].
fn byte_size(shape: &[usize], dtype: DType) -> Result<usize, String> {
    shape
        .iter()
        .try_fold(dtype.size_bytes(), |n, &d| n.checked_mul(d))
        .filter(|&n| n <= MAX_STORAGE_BYTES)
        .ok_or_else(|| {
            format!(
                "a {dtype:?} buffer of shape {shape:?} exceeds the host limit of {MAX_STORAGE_BYTES} bytes"
            )
        })
}

/// `value`, an integer read from memory by `loop.read_size`, as a size: an error naming it
/// when it is negative or does not fit an `index`.
fn size_from(value: i128) -> Result<i64, String> {
    if value < 0 {
        return Err(format!("a size read from memory is negative: {value}"));
    }
    i64::try_from(value).map_err(|_| format!("a size read from memory is too large: {value}"))
}

/// Checks that host function `func`, taking `params` arguments, is given `given`.
fn check_arity(ctx: &Context, func: Op, params: usize, given: usize) -> Result<(), Diagnostic> {
    if params == given {
        return Ok(());
    }
    Err(op_err(
        ctx,
        func,
        format!("host function takes {params} arguments but {given} were given"),
    ))
}

impl Host<'_> {
    /// The values of `args` for parameters `params` of `func`, one storage per buffer argument.
    fn host_arguments(
        &mut self,
        func: Op,
        params: &[Value],
        args: Vec<KernelArg>,
    ) -> Result<Vec<HostVal>, Diagnostic> {
        let ctx = self.ctx;
        check_arity(ctx, func, params.len(), args.len())?;
        let mut values = Vec::with_capacity(args.len());
        for (i, (&param, arg)) in params.iter().zip(args).enumerate() {
            let ty = ctx.value_type(param);
            let bad = |msg: String| op_err(ctx, func, format!("argument #{i}: {msg}"));
            let value = match (buffer_type(ctx, ty), arg) {
                (Some(bt), KernelArg::Buffer(buf)) => {
                    if bt.space != MemorySpace::Global {
                        return Err(bad("host buffers must be global".into()));
                    }
                    bt.accepts(ctx, &buf).map_err(bad)?;
                    let view = self.new_storage(buf.shape(), buf.dtype()).map_err(bad)?;
                    self.encode(&view, &buf).map_err(bad)?;
                    HostVal::Buffer(view)
                }
                (None, KernelArg::Index(v)) if ctx.is_integer_or_index(ty) => {
                    HostVal::Scalar(scalar::normalize(ctx, ty, Val::Int(v)))
                }
                (Some(_), KernelArg::Index(_)) => {
                    return Err(bad("expected a buffer, got an index".into()))
                }
                (None, KernelArg::Buffer(_)) if ctx.is_integer_or_index(ty) => {
                    return Err(bad("expected an index, got a buffer".into()))
                }
                (None, _) => return Err(bad("unsupported argument type".into())),
            };
            values.push(value);
        }
        Ok(values)
    }

    /// Runs host function `func` on `args` with values of its own, and returns what its
    /// `func.return` returns. Buffers pass as views: a callee reads and writes its caller's
    /// bytes, as a compiled call passes pointers.
    fn call(&mut self, func: Op, args: Vec<HostVal>) -> Result<Vec<HostVal>, Diagnostic> {
        let ctx = self.ctx;
        let entry = host_entry(ctx, func)?;
        let params = ctx.block_args(entry);
        check_arity(ctx, func, params.len(), args.len())?;
        let mut env = HashMap::default();
        for (i, (&param, arg)) in params.iter().zip(args).enumerate() {
            self.check_fits(ctx.value_type(param), &arg)
                .map_err(|m| op_err(ctx, func, format!("argument #{i}: {m}")))?;
            env.insert(param, arg);
        }
        let caller = std::mem::replace(&mut self.env, env);
        let outcome = self.run_body(func, entry);
        self.env = caller;
        outcome
    }

    /// Runs the ops of `entry`, the body of `func`, up to its `func.return`.
    fn run_body(&mut self, func: Op, entry: Block) -> Result<Vec<HostVal>, Diagnostic> {
        let ctx = self.ctx;
        for op in ctx.block_ops(entry) {
            // In a verified `func.func` the one return-like op of the body is its `func.return`.
            if ctx.has_trait(op, Traits::RETURN_LIKE) {
                return ctx
                    .operands(op)
                    .iter()
                    .map(|&v| self.get(op, v).cloned())
                    .collect();
            }
            self.exec(op)?;
        }
        Err(op_err(
            ctx,
            func,
            "host function ends without a 'func.return'",
        ))
    }

    /// Checks that `value` can be a value of type `ty`: a buffer of its element type, rank and
    /// static sizes, or a scalar for a scalar type.
    fn check_fits(&self, ty: Type, value: &HostVal) -> Result<(), String> {
        let ctx = self.ctx;
        let fits = match (buffer_type(ctx, ty), value) {
            (Some(bt), HostVal::Buffer(view)) => {
                DType::from_type(ctx, bt.elem) == Some(view.dtype)
                    && bt.dims.len() == view.shape.len()
                    && bt
                        .dims
                        .iter()
                        .zip(&view.shape)
                        .all(|(&d, &n)| d == dlc_ir::DYNAMIC || usize::try_from(d) == Ok(n))
            }
            (None, HostVal::Scalar(_)) => true,
            _ => false,
        };
        if fits {
            return Ok(());
        }
        let what = match value {
            HostVal::Buffer(view) => format!("a {:?} buffer of shape {:?}", view.dtype, view.shape),
            HostVal::Scalar(v) => format!("the scalar {v:?}"),
        };
        Err(format!(
            "{what} is not a value of type '{}'",
            dlc_ir::Printer::new(ctx).type_to_string(ty)
        ))
    }

    /// A new zero-filled storage holding one `shape` buffer of `dtype`; its whole view.
    fn new_storage(&mut self, shape: &[usize], dtype: DType) -> Result<View, String> {
        let bytes = byte_size(shape, dtype)?;
        let mut storage = Vec::new();
        storage
            .try_reserve_exact(bytes)
            .map_err(|e| format!("cannot allocate {bytes} bytes: {e}"))?;
        storage.resize(bytes, 0);
        self.storages.push(storage);
        Ok(View {
            storage: self.storages.len() - 1,
            offset: 0,
            shape: shape.to_vec(),
            dtype,
        })
    }

    /// The elements `view` covers, as an owned buffer.
    fn decode(&self, view: &View) -> Result<Literal, String> {
        let bytes = &self.storages[view.storage][view.byte_range()];
        Literal::from_le_bytes(view.dtype, &view.shape, bytes)
    }

    /// Writes `buf` into the bytes `view` covers.
    fn encode(&mut self, view: &View, buf: &Literal) -> Result<(), String> {
        if buf.shape() != view.shape || buf.dtype() != view.dtype {
            return Err(format!(
                "a {:?} buffer of shape {:?} does not fit a {:?} view of shape {:?}",
                buf.dtype(),
                buf.shape(),
                view.dtype,
                view.shape
            ));
        }
        let range = view.byte_range();
        self.storages[view.storage][range].copy_from_slice(&buf.to_le_bytes());
        Ok(())
    }

    fn get(&self, op: Op, v: Value) -> Result<&HostVal, Diagnostic> {
        self.env.get(&v).ok_or_else(|| {
            op_err(
                self.ctx,
                op,
                "operand has no value (used before definition)",
            )
        })
    }

    fn get_int(&self, op: Op, v: Value) -> Result<i64, Diagnostic> {
        match self.get(op, v)? {
            HostVal::Scalar(Val::Int(i)) => Ok(*i),
            other => Err(op_err(
                self.ctx,
                op,
                format!("expected an integer operand, got {other:?}"),
            )),
        }
    }

    fn get_view(&self, op: Op, v: Value) -> Result<View, Diagnostic> {
        match self.get(op, v)? {
            HostVal::Buffer(view) => Ok(view.clone()),
            _ => Err(op_err(self.ctx, op, "expected a buffer operand")),
        }
    }

    fn operand(&self, op: Op, i: usize) -> Result<Value, Diagnostic> {
        self.ctx
            .operands(op)
            .get(i)
            .copied()
            .ok_or_else(|| op_err(self.ctx, op, format!("expected an operand #{i}")))
    }

    fn set_result(&mut self, op: Op, v: HostVal) -> Result<(), Diagnostic> {
        if self.ctx.num_results(op) != 1 {
            return Err(op_err(self.ctx, op, "expected exactly one result"));
        }
        self.env.insert(self.ctx.result(op, 0), v);
        Ok(())
    }

    /// Runs one op of the body.
    fn exec(&mut self, op: Op) -> Result<(), Diagnostic> {
        let value = match LoopOps::of(self.ctx, op) {
            Some(LoopOps::DimOp(dim)) => self.exec_dim(dim)?,
            Some(LoopOps::ReadSizeOp(_)) => self.exec_read_size(op)?,
            Some(LoopOps::AllocOp(_)) => self.exec_alloc(op)?,
            Some(LoopOps::ConstantOp(_)) => self.exec_constant(op)?,
            Some(LoopOps::ViewOp(_)) => self.exec_view(op)?,
            Some(LoopOps::ReshapeOp(_)) => self.exec_reshape(op)?,
            Some(LoopOps::CheckOp(check)) => {
                if self.get_int(op, check.condition(self.ctx))? == 0 {
                    let message = self
                        .ctx
                        .attr(op, "message")
                        .and_then(|a| self.ctx.attr_as_str(a));
                    return Err(op_err(self.ctx, op, message.unwrap_or("a check failed")));
                }
                return Ok(());
            }
            Some(LoopOps::LaunchOp(_)) => return self.exec_launch(op),
            Some(LoopOps::CallIfOp(call)) => return self.exec_call_if(call),
            Some(LoopOps::CallLoopOp(call)) => return self.exec_call_loop(call),
            _ => self.exec_arith(op)?,
        };
        self.set_result(op, value)
    }

    /// An `arith` op of the body, evaluated on scalar operands; any other op is unsupported.
    fn exec_arith(&self, op: Op) -> Result<HostVal, Diagnostic> {
        let ctx = self.ctx;
        let name = ctx.op_name(op);
        match ArithOps::of(ctx, op) {
            Some(arith) if ctx.regions(op).is_empty() => {
                let args = ctx
                    .operands(op)
                    .iter()
                    .map(|&v| match self.get(op, v)? {
                        HostVal::Scalar(s) => Ok(s.clone()),
                        HostVal::Buffer(_) => Err(op_err(
                            ctx,
                            op,
                            format!("'{name}' takes no buffer operands"),
                        )),
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                let value = scalar::eval(ctx, ScalarOp::Arith(arith), &args)
                    .map_err(|m| op_err(ctx, op, m))?;
                Ok(HostVal::Scalar(value))
            }
            _ => Err(op_err(
                ctx,
                op,
                format!("'{name}' is not supported in a host function"),
            )),
        }
    }

    fn exec_dim(&mut self, dim: DimOp) -> Result<HostVal, Diagnostic> {
        let op = dim.0;
        let view = self.get_view(op, self.operand(op, 0)?)?;
        let axis = dim.axis_index(self.ctx);
        let n = axis.and_then(|a| view.shape.get(a)).ok_or_else(|| {
            op_err(
                self.ctx,
                op,
                format!(
                    "axis {axis:?} is out of range for a buffer of shape {:?}",
                    view.shape
                ),
            )
        })?;
        Ok(HostVal::Scalar(Val::Int(*n as i64)))
    }

    /// `loop.read_size`: the one element of an integer buffer (sign-extended, or zero-extended
    /// for an unsigned dtype), which must be a size: in `[0, i64::MAX]`.
    fn exec_read_size(&mut self, op: Op) -> Result<HostVal, Diagnostic> {
        let ctx = self.ctx;
        let view = self.get_view(op, self.operand(op, 0)?)?;
        let width = view.dtype.int_width().filter(|_| view.numel() == 1);
        let Some(width) = width else {
            return Err(op_err(
                ctx,
                op,
                format!(
                    "expected a buffer of one integer element, got a {:?} buffer of shape {:?}",
                    view.dtype, view.shape
                ),
            ));
        };
        let bytes = &self.storages[view.storage][view.byte_range()];
        let mut raw = [0u8; 16];
        raw[..bytes.len()].copy_from_slice(bytes);
        let mut value = i128::from_le_bytes(raw);
        if !view.dtype.is_unsigned() {
            value = dlc_ir::attributes::sign_extend(value, width);
        }
        let size = size_from(value).map_err(|m| op_err(ctx, op, m))?;
        Ok(HostVal::Scalar(Val::Int(size)))
    }

    /// The shape and dtype of `op`'s global buffer result, `?` dims taken from `sizes`.
    fn result_shape(&self, op: Op, sizes: &[Value]) -> Result<(Vec<usize>, DType), Diagnostic> {
        let ctx = self.ctx;
        let ty = *ctx
            .result_types(op)
            .first()
            .ok_or_else(|| op_err(ctx, op, "expected a result"))?;
        let bt = buffer_type(ctx, ty)
            .ok_or_else(|| op_err(ctx, op, "result is not a !loop.buffer type"))?;
        if bt.space != MemorySpace::Global {
            return Err(op_err(
                ctx,
                op,
                format!("host buffers must be global, not {}", bt.space.keyword()),
            ));
        }
        let dtype = DType::from_type(ctx, bt.elem)
            .ok_or_else(|| op_err(ctx, op, "unsupported buffer element type"))?;
        let shape = bt.shape_with(ctx, op, sizes, |v| self.get_int(op, v))?;
        Ok((shape, dtype))
    }

    /// `loop.alloc` in a host function: a new zero-filled global buffer.
    fn exec_alloc(&mut self, op: Op) -> Result<HostVal, Diagnostic> {
        let (shape, dtype) = self.result_shape(op, self.ctx.operands(op))?;
        let view = self
            .new_storage(&shape, dtype)
            .map_err(|m| op_err(self.ctx, op, m))?;
        Ok(HostVal::Buffer(view))
    }

    /// `loop.constant`: a new buffer holding the dense attribute's elements.
    fn exec_constant(&mut self, op: Op) -> Result<HostVal, Diagnostic> {
        let ctx = self.ctx;
        let (shape, dtype) = self.result_shape(op, &[])?;
        let Some(AttrKind::DenseElements(dense)) = ctx.attr(op, "value").map(|a| ctx.attr_kind(a))
        else {
            return Err(op_err(
                ctx,
                op,
                "expected a dense elements attribute 'value'",
            ));
        };
        // Checked here, not trusted from the verifier: decoding a short payload would panic.
        let n = dtype.size_bytes();
        let dense_shape = ctx.shape(dense.ty).unwrap_or(&[]);
        let shape_ok = dense_shape.len() == shape.len()
            && dense_shape.iter().zip(&shape).all(|(&a, &b)| a == b as i64);
        let elem_ok = DType::from_type(ctx, ctx.element_type(dense.ty)) == Some(dtype);
        let view = self
            .new_storage(&shape, dtype)
            .map_err(|m| op_err(ctx, op, m))?;
        let numel = view.numel();
        let stored = if dense.splat { 1 } else { numel };
        if !shape_ok || !elem_ok || dense.data.len() < stored * n {
            return Err(op_err(
                ctx,
                op,
                "the dense value does not match the result buffer",
            ));
        }
        // The stored elements (one for a splat), repeated over the storage.
        let mut value = Literal::zeros(dtype, &[stored]);
        for i in 0..stored {
            let v = match ctx.dense_element(dense, i) {
                DenseValue::Int(x) => Val::Int(x as i64),
                DenseValue::Float(x) => Val::Float(x),
            };
            store(&mut value, i, &v).map_err(|m| op_err(ctx, op, m))?;
        }
        let pattern = value.to_le_bytes();
        let storage = &mut self.storages[view.storage];
        for (out, &b) in storage.iter_mut().zip(pattern.iter().cycle()) {
            *out = b;
        }
        Ok(HostVal::Buffer(view))
    }

    /// `loop.view`: a typed view of bytes `[offset, offset + size)` of a 1-D `i8` arena.
    fn exec_view(&mut self, op: Op) -> Result<HostVal, Diagnostic> {
        let ctx = self.ctx;
        let arena = self.get_view(op, self.operand(op, 0)?)?;
        if arena.dtype != DType::I8 || arena.shape.len() != 1 {
            return Err(op_err(
                ctx,
                op,
                format!(
                    "the arena must be a 1-D i8 buffer, got a {:?} buffer of shape {:?}",
                    arena.dtype, arena.shape
                ),
            ));
        }
        let offset = self.get_int(op, self.operand(op, 1)?)?;
        let (shape, dtype) = self.result_shape(op, ctx.operands(op).get(2..).unwrap_or(&[]))?;
        let size = byte_size(&shape, dtype).map_err(|m| op_err(ctx, op, m))?;
        let align = dtype.size_bytes();
        let arena_len = arena.numel();
        let start = usize::try_from(offset).ok().filter(|o| o % align == 0);
        let Some(start) = start else {
            return Err(op_err(
                ctx,
                op,
                format!(
                    "byte offset {offset} is not a non-negative multiple of the element size {align}"
                ),
            ));
        };
        match start.checked_add(size) {
            Some(end) if end <= arena_len => {}
            _ => {
                return Err(op_err(
                    ctx,
                    op,
                    format!(
                        "view of {size} bytes at byte offset {start} is out of range of an arena of {arena_len} bytes"
                    ),
                ))
            }
        }
        Ok(HostVal::Buffer(View {
            storage: arena.storage,
            offset: arena.offset + start,
            shape,
            dtype,
        }))
    }

    /// `loop.reshape`: the source's bytes in the result's shape, which must hold as many
    /// elements.
    fn exec_reshape(&mut self, op: Op) -> Result<HostVal, Diagnostic> {
        let ctx = self.ctx;
        let source = self.get_view(op, self.operand(op, 0)?)?;
        let (shape, dtype) = self.result_shape(op, ctx.operands(op).get(1..).unwrap_or(&[]))?;
        let numel: Option<usize> = shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d));
        if numel != Some(source.numel()) || dtype != source.dtype {
            return Err(op_err(
                ctx,
                op,
                format!(
                    "cannot reshape a {:?} buffer of shape {:?} to {:?} of shape {shape:?}",
                    source.dtype, source.shape, dtype
                ),
            ));
        }
        Ok(HostVal::Buffer(View { shape, ..source }))
    }

    /// `loop.launch`: runs the kernel on the views (one buffer per distinct view), then writes
    /// the buffers back.
    fn exec_launch(&mut self, op: Op) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let callee = ctx.attr(op, "callee").and_then(|a| ctx.attr_as_symbol(a));
        let symbol = callee.and_then(|c| self.tables.resolve(ctx, op, c));
        let kernel = symbol.filter(|&k| ctx.view::<KernelOp>(k).is_some());
        let Some(kernel) = kernel else {
            let name = callee.map_or("", |c| ctx.ident_str(c));
            let compiled = symbol.is_some_and(|k| ctx.view::<crate::CompiledKernelOp>(k).is_some());
            let why = if compiled {
                format!("'{name}' is a 'loop.compiled_kernel': the interpreter needs its body")
            } else {
                format!("'{name}' does not reference a 'loop.kernel'")
            };
            return Err(op_err(ctx, op, why));
        };
        // Distinct views with the argument that first passed each.
        let mut views: Vec<(View, usize)> = Vec::new();
        let mut refs = Vec::with_capacity(ctx.operands(op).len());
        for (i, &v) in ctx.operands(op).iter().enumerate() {
            match self.get(op, v)? {
                HostVal::Scalar(Val::Int(x)) => refs.push(ArgRef::Index(*x)),
                HostVal::Scalar(other) => {
                    return Err(op_err(
                        ctx,
                        op,
                        format!("argument #{i}: cannot pass {other:?} to a kernel"),
                    ))
                }
                HostVal::Buffer(view) => {
                    if let Some(slot) = views.iter().position(|(w, _)| w == view) {
                        let j = views[slot].1;
                        let kernel = KernelOp(kernel);
                        if let Some(k) = kernel.noalias_conflict(ctx, j, i) {
                            return Err(op_err(
                                ctx,
                                op,
                                format!(
                                    "launch arguments #{j} and #{i} are the same buffer, which the kernel writes, but argument #{k} of kernel '{}' is '{}'",
                                    kernel.name(ctx),
                                    crate::NOALIAS
                                ),
                            ));
                        }
                        refs.push(ArgRef::Buffer(slot));
                        continue;
                    }
                    // Different views of shared bytes (a buffer and a reshape of it) are
                    // fine while the kernel only reads both: each is decoded on its own and
                    // written back unchanged.
                    let r = view.byte_range();
                    let kernel = KernelOp(kernel);
                    for (w, j) in &views {
                        let s = w.byte_range();
                        let overlap = w.storage == view.storage
                            && !r.is_empty()
                            && !s.is_empty()
                            && r.start < s.end
                            && s.start < r.end;
                        // Only overlapping views need the kernel walked for its writes.
                        let written = || {
                            let args = kernel.written_args(ctx);
                            [i, *j]
                                .iter()
                                .any(|&k| args.get(k).copied().unwrap_or(false))
                        };
                        if overlap && written() {
                            return Err(op_err(
                                ctx,
                                op,
                                format!(
                                    "launch arguments #{j} and #{i} overlap without being the same view (bytes {s:?} and {r:?})"
                                ),
                            ));
                        }
                    }
                    refs.push(ArgRef::Buffer(views.len()));
                    views.push((view.clone(), i));
                }
            }
        }
        let mut buffers = views
            .iter()
            .map(|(w, _)| self.decode(w))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|m| op_err(ctx, op, m))?;
        let arguments = |buffers: &[Literal]| -> Vec<KernelArg> {
            refs.iter()
                .map(|r| match *r {
                    ArgRef::Buffer(slot) => KernelArg::Buffer(buffers[slot].clone()),
                    ArgRef::Index(x) => KernelArg::Index(x),
                })
                .collect()
        };
        let before = self.trace.is_some().then(|| arguments(&buffers));
        run_kernel_with(ctx, kernel, &mut buffers, &refs)?;
        if let (Some(trace), Some(before)) = (self.trace.as_mut(), before) {
            let slots = refs
                .iter()
                .filter(|r| matches!(r, ArgRef::Buffer(_)))
                .count();
            trace(Launch {
                kernel,
                before,
                after: arguments(&buffers),
                aliased: slots > buffers.len(),
            });
        }
        for ((view, _), buf) in views.iter().zip(&buffers) {
            self.encode(view, buf).map_err(|m| op_err(ctx, op, m))?;
        }
        Ok(())
    }

    /// The values host function `func` returned, as run results: buffers decoded, integers as
    /// indices.
    fn kernel_args(&self, func: Op, values: &[HostVal]) -> Result<Vec<KernelArg>, Diagnostic> {
        let ctx = self.ctx;
        values
            .iter()
            .enumerate()
            .map(|(i, v)| match v {
                HostVal::Buffer(view) => self
                    .decode(view)
                    .map(KernelArg::Buffer)
                    .map_err(|m| op_err(ctx, func, m)),
                HostVal::Scalar(Val::Int(x)) => Ok(KernelArg::Index(*x)),
                HostVal::Scalar(other) => Err(op_err(
                    ctx,
                    func,
                    format!(
                        "result #{i}: host functions return buffers and integers, got {other:?}"
                    ),
                )),
            })
            .collect()
    }
}
