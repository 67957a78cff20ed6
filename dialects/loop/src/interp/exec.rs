//! Control flow: one simulated thread as a resumable state machine.
//!
//! A thread is an explicit stack of frames — the kernel body, each `loop.for` iteration, each
//! `loop.if` branch, each schedule block's init and body — and a cursor into each frame's block.
//! [`Machine::run_thread`] advances a thread until it finishes or reaches a collective op
//! (`loop.barrier`, `loop.warp_reduce`, `loop.block_reduce`), where it stops with its cursor past
//! the op; the grid scheduler (`grid.rs`) resumes it once every thread of its warp or block is
//! there. No OS threads are involved, so interleaving is deterministic.

use super::buffer::{buffer_type, load, store};
use super::env::{Env, Slots};
use super::memcheck::{Poison, Scratch};
use super::scalar::{self, ScalarTypes, Val};
use crate::math::ScalarOp;
use crate::{Access, Dim, ForOp, LoopKind, LoopOps, MemorySpace};
use dlc_arith::ArithOps;
use dlc_ir::{Block, Context, Diagnostic, Op, Value};
use dlc_tensor::{DType, Literal};
use rustc_hash::FxHashMap as HashMap;
use smallvec::SmallVec;
use std::rc::Rc;

/// The most static shared memory a block may use, in bytes (48 KiB, as on CUDA devices).
pub(crate) const MAX_SHARED_BYTES: usize = 48 * 1024;

/// The launch configuration: grid and block sizes per dimension (x, y, z).
#[derive(Copy, Clone, Debug)]
pub(crate) struct Launch {
    pub grid: [i64; 3],
    pub block: [i64; 3],
}

/// The state shared by the threads of a launch: memory, launch shape and current block.
pub(crate) struct Machine<'c> {
    pub ctx: &'c Context,
    /// Global buffers (the kernel arguments, first) then the current block's shared and local
    /// allocations.
    pub mem: Vec<Literal>,
    pub n_global: usize,
    /// `loop.alloc` ops in shared memory → their buffer for the current block.
    pub shared: HashMap<Op, usize>,
    /// (thread, `loop.alloc` op) → that thread's local buffer.
    pub local: HashMap<(usize, Op), usize>,
    /// The shadow state of each allocation: `scratch[i]` is `mem[n_global + i]`'s.
    pub scratch: Vec<Scratch>,
    /// The number of the current barrier interval (see `memcheck`); never reset, so records
    /// of an earlier block are stale in the next.
    pub interval: u64,
    pub launch: Launch,
    pub block_id: [i64; 3],
    /// The kernel's numbering of its values and ops.
    pub slots: Rc<Slots>,
    /// What each op run so far decoded on its first run, by op number.
    pub decoded: Vec<Option<Decoded<'c>>>,
}

/// What the interpreter decodes of an op once per launch, on its first run.
#[derive(Clone)]
pub(crate) enum Decoded<'c> {
    /// A load's, store's or prefetch's access.
    Access(Access<'c>),
    /// A scalar op's types.
    Scalar(ScalarTypes),
    /// An `arith.constant`'s value.
    Constant(Val),
    /// A `loop.for`'s kind, body and induction variable.
    Loop(LoopKind, Block, Value),
}

/// One simulated thread.
pub(crate) struct Thread {
    /// Linear index in the block (x fastest).
    pub linear: usize,
    pub tid: [i64; 3],
    pub env: Env,
    /// Values that are poison (`memcheck`): they have no entry in `env`.
    pub poison: HashMap<Value, Poison>,
    frames: Vec<Frame>,
}

/// Why [`Machine::run_thread`] returned.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Status {
    Done,
    /// Stopped at this collective op, cursor past it.
    Waiting(Op),
}

struct Frame {
    /// The next op to run; `None` or a terminator ends the frame.
    next: Option<Op>,
    kind: FrameKind,
}

enum FrameKind {
    Kernel,
    /// A branch of `loop.if` or a schedule block's body.
    Plain,
    Loop {
        body: Block,
        iv_arg: Value,
        iv: i64,
        ub: i64,
        stride: i64,
    },
    /// A schedule block's init region; its body runs next.
    Init {
        body: Block,
    },
}

enum Flow {
    Next,
    Push(Frame),
    Wait,
}

/// A diagnostic at `op`'s location.
pub(crate) fn op_err(ctx: &Context, op: Op, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::error(ctx.op_loc(op), msg.into())
}

impl Thread {
    /// A thread about to run the kernel body starting at `first`.
    pub(crate) fn new(linear: usize, tid: [i64; 3], env: Env, first: Option<Op>) -> Self {
        Thread {
            linear,
            tid,
            env,
            poison: HashMap::default(),
            frames: vec![Frame {
                next: first,
                kind: FrameKind::Kernel,
            }],
        }
    }
}

impl<'c> Machine<'c> {
    /// Runs `th` until it finishes or stops at a collective op.
    pub(crate) fn run_thread(&mut self, th: &mut Thread) -> Result<Status, Diagnostic> {
        let ctx = self.ctx;
        loop {
            let Some(frame) = th.frames.last_mut() else {
                return Ok(Status::Done);
            };
            let Some(op) = frame.next else {
                self.end_frame(th);
                continue;
            };
            let next = ctx.next_op(op);
            // Only a block's last op can be its terminator (asked once per block run, not per op).
            if next.is_none()
                && matches!(
                    LoopOps::of(ctx, op),
                    Some(LoopOps::YieldOp(_) | LoopOps::ReturnOp(_))
                )
            {
                self.end_frame(th);
                continue;
            }
            frame.next = next;
            match self.exec(th, op)? {
                Flow::Next => {}
                Flow::Push(f) => th.frames.push(f),
                Flow::Wait => return Ok(Status::Waiting(op)),
            }
        }
    }

    /// Ends the innermost frame: the next loop iteration, the schedule block's body after its
    /// init, or a return to the enclosing frame.
    fn end_frame(&mut self, th: &mut Thread) {
        let ctx = self.ctx;
        let Some(frame) = th.frames.last_mut() else {
            return;
        };
        match &mut frame.kind {
            FrameKind::Loop {
                body,
                iv_arg,
                iv,
                ub,
                stride,
            } => {
                *iv = iv.saturating_add(*stride);
                if *iv < *ub {
                    th.env.insert(*iv_arg, Val::Int(*iv));
                    frame.next = ctx.first_op(*body);
                    return;
                }
            }
            FrameKind::Init { body } => {
                *frame = Frame {
                    next: ctx.first_op(*body),
                    kind: FrameKind::Plain,
                };
                return;
            }
            FrameKind::Kernel | FrameKind::Plain => {}
        }
        th.frames.pop();
    }

    /// The value of `v` for `op`; poison is an error here.
    fn value<'t>(&self, th: &'t Thread, op: Op, v: Value) -> Result<&'t Val, Diagnostic> {
        // Most threads never hold poison: skip hashing for them.
        if let Some(p) = (!th.poison.is_empty()).then(|| th.poison.get(&v)).flatten() {
            return Err(self.poison_use(th, op, p));
        }
        th.env.get(v).ok_or_else(|| {
            op_err(
                self.ctx,
                op,
                "operand has no value (used before definition)",
            )
        })
    }

    /// [`Machine::value`], copied.
    fn get(&self, th: &Thread, op: Op, v: Value) -> Result<Val, Diagnostic> {
        self.value(th, op, v).cloned()
    }

    fn get_int(&self, th: &Thread, op: Op, v: Value) -> Result<i64, Diagnostic> {
        self.value(th, op, v)?
            .as_int()
            .map_err(|m| op_err(self.ctx, op, m))
    }

    fn set_result(&self, th: &mut Thread, op: Op, v: Val) -> Result<(), Diagnostic> {
        if self.ctx.num_results(op) != 1 {
            return Err(op_err(self.ctx, op, "expected exactly one result"));
        }
        let result = self.ctx.result(op, 0);
        if !th.poison.is_empty() {
            th.poison.remove(&result);
        }
        th.env.insert(result, v);
        Ok(())
    }

    /// Makes `op`'s one result the poison `p`.
    fn set_poison(&self, th: &mut Thread, op: Op, p: Poison) -> Result<(), Diagnostic> {
        if self.ctx.num_results(op) != 1 {
            return Err(op_err(self.ctx, op, "expected exactly one result"));
        }
        let result = self.ctx.result(op, 0);
        th.env.remove(result);
        th.poison.insert(result, p);
        Ok(())
    }

    /// Runs one op.
    fn exec(&mut self, th: &mut Thread, op: Op) -> Result<Flow, Diagnostic> {
        let ctx = self.ctx;
        match LoopOps::of(ctx, op) {
            Some(LoopOps::ForOp(_)) => self.exec_for(th, op),
            Some(LoopOps::ScheduleBlockOp(_)) => self.exec_schedule_block(th, op),
            Some(LoopOps::IfOp(_)) => {
                let cond = self.get_int(th, op, self.operand(op, 0)?)?;
                let region = if cond != 0 { 0 } else { 1 };
                Ok(match ctx.regions(op).get(region) {
                    Some(&r) => match ctx.blocks(r).first() {
                        Some(&b) => Flow::Push(Frame {
                            next: ctx.first_op(b),
                            kind: FrameKind::Plain,
                        }),
                        None => Flow::Next,
                    },
                    None => Flow::Next,
                })
            }
            Some(LoopOps::LoadOp(_)) => self.exec_load(th, op, false),
            Some(LoopOps::VLoadOp(_)) => self.exec_load(th, op, true),
            Some(LoopOps::LoadPaddedOp(_)) => self.exec_load_padded(th, op, false),
            Some(LoopOps::VLoadPaddedOp(_)) => self.exec_load_padded(th, op, true),
            // A hint: its indices are checked as a load's, and nothing is read.
            Some(LoopOps::PrefetchOp(_)) => {
                let access = self.access(op, 1)?;
                self.address(th, op, &access, 1).map(|_| Flow::Next)
            }
            Some(LoopOps::StoreOp(_)) => self.exec_store(th, op, false),
            Some(LoopOps::VStoreOp(_)) => self.exec_store(th, op, true),
            Some(LoopOps::AllocOp(_)) => self.exec_alloc(th, op),
            Some(LoopOps::DimOp(dim)) => {
                let id = match self.value(th, op, self.operand(op, 0)?)? {
                    &Val::Buf(id) => id,
                    _ => return Err(op_err(ctx, op, "expected a buffer operand")),
                };
                let shape = self.mem[id].shape();
                let axis = dim.axis_index(ctx);
                let n = axis.and_then(|a| shape.get(a)).ok_or_else(|| {
                    op_err(
                        ctx,
                        op,
                        format!("axis {axis:?} is out of range for a buffer of shape {shape:?}"),
                    )
                })?;
                self.set_result(th, op, Val::Int(*n as i64))?;
                Ok(Flow::Next)
            }
            Some(
                id @ (LoopOps::ThreadIdOp(_) | LoopOps::BlockIdOp(_) | LoopOps::BlockDimOp(_)),
            ) => {
                let d = self.dim_attr(op)?;
                let v = match id {
                    LoopOps::ThreadIdOp(_) => th.tid[d],
                    LoopOps::BlockIdOp(_) => self.block_id[d],
                    _ => self.launch.block[d],
                };
                self.set_result(th, op, Val::Int(v))?;
                Ok(Flow::Next)
            }
            Some(LoopOps::BarrierOp(_) | LoopOps::WarpReduceOp(_) | LoopOps::BlockReduceOp(_)) => {
                Ok(Flow::Wait)
            }
            Some(LoopOps::BroadcastOp(_)) => {
                let operand = self.operand(op, 0)?;
                if let Some(p) = th.poison.get(&operand) {
                    self.set_poison(th, op, p.clone())?;
                    return Ok(Flow::Next);
                }
                let lanes = ctx
                    .shape(ctx.value_type(ctx.result(op, 0)))
                    .and_then(|s| s.first().copied())
                    .and_then(|n| usize::try_from(n).ok())
                    .ok_or_else(|| op_err(ctx, op, "expected a vector result"))?;
                let v = self.get(th, op, operand)?;
                self.set_result(th, op, Val::Vector(vec![v; lanes]))?;
                Ok(Flow::Next)
            }
            Some(dot @ (LoopOps::Dot4Op(_) | LoopOps::Dot2Op(_))) => {
                if let Some(p) = ctx.operands(op).iter().find_map(|v| th.poison.get(v)) {
                    self.set_poison(th, op, p.clone())?;
                    return Ok(Flow::Next);
                }
                let lanes = |i: usize| -> Result<Vec<i64>, Diagnostic> {
                    match self.get(th, op, self.operand(op, i)?)? {
                        Val::Vector(l) => l
                            .iter()
                            .map(|x| x.as_int().map_err(|m| op_err(ctx, op, m)))
                            .collect(),
                        _ => Err(op_err(ctx, op, "expected vector operands")),
                    }
                };
                let (acc, a, b) = (lanes(0)?, lanes(1)?, lanes(2)?);
                // `loop.dot4`: groups of four bytes, `a`'s unsigned and `b`'s signed;
                // `loop.dot2`: pairs of signed `i16`.
                let (g, value): (usize, fn(i64, bool) -> i64) = match dot {
                    LoopOps::Dot4Op(_) => (4, |x, first| {
                        if first {
                            i64::from(x as u8)
                        } else {
                            i64::from(x as i8)
                        }
                    }),
                    _ => (2, |x, _| i64::from(x as i16)),
                };
                let groups = |v: &[i64]| v.len() == g || v.len() == g * acc.len();
                if !groups(&a) || !groups(&b) {
                    return Err(op_err(ctx, op, "group operands of the wrong length"));
                }
                // A quad or pair (one group) stands for every group: element `gi + t` is its
                // element `t`.
                let element = |v: &[i64], at: usize| v[at % v.len()];
                let out = acc
                    .iter()
                    .enumerate()
                    .map(|(i, &s)| {
                        let dot = (0..g).fold(s, |s, t| {
                            let x = value(element(&a, g * i + t), true);
                            let y = value(element(&b, g * i + t), false);
                            s.wrapping_add(x * y)
                        });
                        Val::Int(i64::from(dot as i32))
                    })
                    .collect();
                self.set_result(th, op, Val::Vector(out))?;
                Ok(Flow::Next)
            }
            // Every loop op is placed (no catch-all), so that a new one does not build until
            // it has a rule: these are host ops (interp/host.rs runs them), kernels, and the
            // terminators `run` handles at a block's end.
            Some(
                LoopOps::YieldOp(_)
                | LoopOps::ReturnOp(_)
                | LoopOps::KernelOp(_)
                | LoopOps::CompiledKernelOp(_)
                | LoopOps::LaunchOp(_)
                | LoopOps::ReadSizeOp(_)
                | LoopOps::CheckOp(_)
                | LoopOps::ConstantOp(_)
                | LoopOps::ViewOp(_)
                | LoopOps::ReshapeOp(_)
                | LoopOps::CallIfOp(_)
                | LoopOps::CallLoopOp(_),
            ) => Err(unsupported(ctx, op)),
            None => match ScalarOp::of(ctx, op) {
                Some(scalar_op) if ctx.regions(op).is_empty() => {
                    // Poison propagates through pure ops; a select on a scalar condition
                    // passes on the operand it chooses, so discarding poison is fine.
                    let select = matches!(scalar_op, ScalarOp::Arith(ArithOps::SelectOp(_)));
                    let cond = match select {
                        true => Some(self.value(th, op, self.operand(op, 0)?)?),
                        false => None,
                    };
                    if let Some(&Val::Int(cond)) = cond {
                        let chosen = self.operand(op, if cond != 0 { 1 } else { 2 })?;
                        match th.poison.get(&chosen).cloned() {
                            Some(p) => self.set_poison(th, op, p)?,
                            None => self.set_result(th, op, self.get(th, op, chosen)?)?,
                        }
                        return Ok(Flow::Next);
                    }
                    if !th.poison.is_empty() {
                        let poisoned = ctx.operands(op).iter().find_map(|v| th.poison.get(v));
                        if let Some(p) = poisoned.cloned() {
                            self.set_poison(th, op, p)?;
                            return Ok(Flow::Next);
                        }
                    }
                    if let ScalarOp::Arith(ArithOps::ConstantOp(_)) = scalar_op {
                        let v = self.constant(op, scalar_op)?;
                        self.set_result(th, op, v)?;
                        return Ok(Flow::Next);
                    }
                    let types = self.scalar_types(op)?;
                    let args = ctx
                        .operands(op)
                        .iter()
                        .map(|&v| self.value(th, op, v))
                        .collect::<Result<SmallVec<[&Val; 3]>, _>>()?;
                    let v = scalar::eval_typed(ctx, scalar_op, types, &args);
                    drop(args);
                    self.set_result(th, op, v.map_err(|m| op_err(ctx, op, m))?)?;
                    Ok(Flow::Next)
                }
                _ => Err(unsupported(ctx, op)),
            },
        }
    }

    fn operand(&self, op: Op, i: usize) -> Result<Value, Diagnostic> {
        self.ctx
            .operands(op)
            .get(i)
            .copied()
            .ok_or_else(|| op_err(self.ctx, op, format!("expected an operand #{i}")))
    }

    /// The `dim` attribute of a GPU id op, as 0, 1 or 2.
    pub(crate) fn dim_attr(&self, op: Op) -> Result<usize, Diagnostic> {
        let ctx = self.ctx;
        let attr = ctx.attr(op, "dim");
        attr.and_then(|a| match ctx.attr_as_str(a) {
            Some(s) => Dim::from_keyword(s).map(Dim::index),
            None => ctx.attr_as_int(a).and_then(|i| usize::try_from(i).ok()),
        })
        .filter(|&d| d < 3)
        .ok_or_else(|| op_err(ctx, op, "expected a 'dim' attribute x, y or z"))
    }

    /// `loop.for`: serial semantics for every kind; a GPU-bound kind (block.*, thread.*) starts
    /// at this block's or thread's id and strides by the grid or block size.
    fn exec_for(&mut self, th: &mut Thread, op: Op) -> Result<Flow, Diagnostic> {
        let ctx = self.ctx;
        let lb = self.get_int(th, op, self.operand(op, 0)?)?;
        let ub = self.get_int(th, op, self.operand(op, 1)?)?;
        let step = self.get_int(th, op, self.operand(op, 2)?)?;
        if step <= 0 {
            return Err(op_err(
                ctx,
                op,
                format!("loop step must be positive, got {step}"),
            ));
        }
        let (kind, body, iv_arg) = self.decode_for(op)?;
        // A GPU-bound loop starts at this block's or thread's index and strides by the grid's
        // or block's extent along its axis.
        let bound = |id: i64, n: i64| {
            (
                lb.saturating_add(id.saturating_mul(step)),
                step.saturating_mul(n),
            )
        };
        let (start, stride) = match kind {
            LoopKind::Block(d) => bound(self.block_id[d.index()], self.launch.grid[d.index()]),
            LoopKind::Thread(d) => bound(th.tid[d.index()], self.launch.block[d.index()]),
            LoopKind::Serial
            | LoopKind::Parallel
            | LoopKind::Vectorize(_)
            | LoopKind::Unroll(_) => (lb, step),
        };
        if start >= ub {
            return Ok(Flow::Next);
        }
        th.env.insert(iv_arg, Val::Int(start));
        Ok(Flow::Push(Frame {
            next: ctx.first_op(body),
            kind: FrameKind::Loop {
                body,
                iv_arg,
                iv: start,
                ub,
                stride,
            },
        }))
    }

    /// `loop.for` `op`'s kind, body block and induction variable.
    fn decode_for(&mut self, op: Op) -> Result<(LoopKind, Block, Value), Diagnostic> {
        if let Some(&Decoded::Loop(kind, body, iv_arg)) = self.decoded(op) {
            return Ok((kind, body, iv_arg));
        }
        let ctx = self.ctx;
        // A loop without a kind is serial.
        let kind = match ctx.attr(op, "kind") {
            None => LoopKind::Serial,
            Some(a) => ForOp(op).loop_kind(ctx).ok_or_else(|| {
                let name = ctx.attr_as_str(a).unwrap_or("?");
                op_err(ctx, op, format!("unknown loop kind '{name}'"))
            })?,
        };
        let body = ctx
            .regions(op)
            .first()
            .and_then(|&r| ctx.blocks(r).first().copied())
            .ok_or_else(|| op_err(ctx, op, "loop.for has no body block"))?;
        let iv_arg = *ctx
            .block_args(body)
            .first()
            .ok_or_else(|| op_err(ctx, op, "loop.for body has no induction variable"))?;
        self.remember(op, Decoded::Loop(kind, body, iv_arg));
        Ok((kind, body, iv_arg))
    }

    /// `loop.schedule_block`: binds the iter vars to the iter values and runs the body; for a
    /// reduction, the init region runs first when every reduce iter value is 0 (the first
    /// iteration of the reduction, as TVM's `T.init()`).
    fn exec_schedule_block(&mut self, th: &mut Thread, op: Op) -> Result<Flow, Diagnostic> {
        let ctx = self.ctx;
        let values = ctx
            .operands(op)
            .iter()
            .map(|&v| self.get_int(th, op, v))
            .collect::<Result<SmallVec<[i64; 6]>, _>>()?;
        let (body, init) = schedule_block_regions(ctx, op)
            .ok_or_else(|| op_err(ctx, op, "loop.schedule_block has no body block"))?;
        let bind = |th: &mut Thread, block: Block| -> Result<(), Diagnostic> {
            let args = ctx.block_args(block);
            if args.len() != values.len() {
                return Err(op_err(
                    ctx,
                    op,
                    format!("{} iter values for {} iter vars", values.len(), args.len()),
                ));
            }
            for (&a, &v) in args.iter().zip(&values) {
                th.env.insert(a, Val::Int(v));
            }
            Ok(())
        };
        bind(th, body)?;
        // The iter kinds matter only to a block with an init region.
        let first_reduce_iteration = || {
            let kinds: Vec<&str> = match ctx.attr(op, "iter_kinds").map(|a| ctx.attr_kind(a)) {
                Some(dlc_ir::AttrKind::Array(items)) => items
                    .iter()
                    .map(|&a| ctx.attr_as_str(a).unwrap_or("spatial"))
                    .collect(),
                _ => vec!["spatial"; values.len()],
            };
            kinds.contains(&"reduce")
                && kinds
                    .iter()
                    .zip(&values)
                    .all(|(&k, &v)| k != "reduce" || v == 0)
        };
        if let Some(init) = init.filter(|_| first_reduce_iteration()) {
            bind(th, init)?;
            return Ok(Flow::Push(Frame {
                next: ctx.first_op(init),
                kind: FrameKind::Init { body },
            }));
        }
        Ok(Flow::Push(Frame {
            next: ctx.first_op(body),
            kind: FrameKind::Plain,
        }))
    }

    /// The access of load, store or prefetch `op`. [`crate::access`] reads the operands of a
    /// verified op; one built with fewer than `operands` (the buffer, after the value for a
    /// store) is an error here rather than a panic there.
    fn access(&mut self, op: Op, operands: usize) -> Result<Access<'c>, Diagnostic> {
        let ctx = self.ctx;
        if let Some(Decoded::Access(access)) = self.decoded(op) {
            return Ok(*access);
        }
        if ctx.operands(op).len() < operands {
            return Err(op_err(
                ctx,
                op,
                format!("expected an operand #{}", operands - 1),
            ));
        }
        let access =
            crate::access(ctx, op).ok_or_else(|| op_err(ctx, op, "expected a buffer access"))?;
        self.remember(op, Decoded::Access(access));
        Ok(access)
    }

    /// What `op` decoded on an earlier run in this launch.
    #[inline]
    fn decoded(&self, op: Op) -> Option<&Decoded<'c>> {
        self.decoded.get(self.slots.op(op)?)?.as_ref()
    }

    /// Keeps what `op` decoded for its later runs in this launch.
    fn remember(&mut self, op: Op, decoded: Decoded<'c>) {
        if let Some(slot) = (self.slots.op(op)).and_then(|n| self.decoded.get_mut(n)) {
            *slot = Some(decoded);
        }
    }

    /// The value of `arith.constant` `op`.
    fn constant(&mut self, op: Op, scalar_op: ScalarOp) -> Result<Val, Diagnostic> {
        if let Some(Decoded::Constant(v)) = self.decoded(op) {
            return Ok(v.clone());
        }
        let ctx = self.ctx;
        let no_args: [Val; 0] = [];
        let v = scalar::eval(ctx, scalar_op, &no_args).map_err(|m| op_err(ctx, op, m))?;
        self.remember(op, Decoded::Constant(v.clone()));
        Ok(v)
    }

    /// The types scalar `op` reads.
    fn scalar_types(&mut self, op: Op) -> Result<ScalarTypes, Diagnostic> {
        if let Some(Decoded::Scalar(types)) = self.decoded(op) {
            return Ok(*types);
        }
        let types = ScalarTypes::of(self.ctx, op).map_err(|m| op_err(self.ctx, op, m))?;
        self.remember(op, Decoded::Scalar(types));
        Ok(types)
    }

    /// The buffer and element offset `access` addresses, bounds-checked; `width` is the
    /// number of contiguous elements along the last dimension.
    fn address(
        &self,
        th: &Thread,
        op: Op,
        access: &Access<'_>,
        width: usize,
    ) -> Result<(usize, usize), Diagnostic> {
        let ctx = self.ctx;
        let (id, idx) = self.buffer_and_indices(th, op, access)?;
        let buf = &self.mem[id];
        if idx.len() != buf.rank() {
            return Err(op_err(
                ctx,
                op,
                format!("{} indices for a buffer of rank {}", idx.len(), buf.rank()),
            ));
        }
        let Some(offset) = element_offset(&idx, buf.shape(), 0, width) else {
            let what = if width > 1 {
                format!("vector access of {width} elements at")
            } else {
                "access at".to_string()
            };
            return Err(op_err(
                ctx,
                op,
                format!(
                    "out-of-bounds {what} index {idx:?} of a buffer of shape {:?}",
                    buf.shape()
                ),
            ));
        };
        if idx.is_empty() && width > 1 {
            return Err(op_err(ctx, op, "vector access to a rank-0 buffer"));
        }
        Ok((id, offset))
    }

    /// The buffer `access` reads or writes, and its indices' values.
    fn buffer_and_indices(
        &self,
        th: &Thread,
        op: Op,
        access: &Access<'_>,
    ) -> Result<(usize, SmallVec<[i64; 6]>), Diagnostic> {
        let id = match self.value(th, op, access.buffer)? {
            &Val::Buf(id) => id,
            _ => return Err(op_err(self.ctx, op, "expected a buffer operand")),
        };
        let idx = access
            .indices
            .iter()
            .map(|&v| self.get_int(th, op, v))
            .collect::<Result<_, _>>()?;
        Ok((id, idx))
    }

    /// The lanes load `op` reads: its vector type's when `vector`, else 1.
    fn load_width(&self, op: Op, vector: bool) -> Result<usize, Diagnostic> {
        if !vector {
            return Ok(1);
        }
        let ty = *self
            .ctx
            .result_types(op)
            .first()
            .ok_or_else(|| op_err(self.ctx, op, "a vector load without a result"))?;
        self.vector_width(op, ty)
    }

    /// The lane count of a vector load/store's vector type.
    fn vector_width(&self, op: Op, ty: dlc_ir::Type) -> Result<usize, Diagnostic> {
        match self.ctx.shape(ty) {
            Some(shape) => Ok(shape.iter().product::<i64>().max(0) as usize),
            None => Err(op_err(self.ctx, op, "expected a vector type")),
        }
    }

    /// `loop.load`, or `loop.vload` when `vector`.
    fn exec_load(&mut self, th: &mut Thread, op: Op, vector: bool) -> Result<Flow, Diagnostic> {
        let access = self.access(op, 1)?;
        let width = self.load_width(op, vector)?;
        let (id, at) = self.address(th, op, &access, width)?;
        let mut poison = None;
        for k in at..at + width {
            let p = self.check_read(th, op, id, k)?;
            poison = poison.or(p);
        }
        if let Some(p) = poison {
            // A vector with an unwritten lane is poison as a whole.
            self.set_poison(th, op, p)?;
            return Ok(Flow::Next);
        }
        let buf = &self.mem[id];
        let v = if vector {
            Val::Vector((at..at + width).map(|i| load(buf, i)).collect())
        } else {
            load(buf, at)
        };
        self.set_result(th, op, v)?;
        Ok(Flow::Next)
    }

    /// `loop.load_padded`, or `loop.vload_padded` when `vector`: each lane whose indices are
    /// inside the buffer reads its element (which must have been written), the others are
    /// the padding value.
    fn exec_load_padded(
        &mut self,
        th: &mut Thread,
        op: Op,
        vector: bool,
    ) -> Result<Flow, Diagnostic> {
        let ctx = self.ctx;
        let access = self.access(op, 3)?;
        let padding = access
            .padding
            .ok_or_else(|| op_err(ctx, op, "expected a padding value"))?;
        let padding = self.get(th, op, padding)?;
        let width = self.load_width(op, vector)?;
        let (id, idx) = self.buffer_and_indices(th, op, &access)?;
        let shape = self.mem[id].shape().to_vec();
        if idx.len() != shape.len() || (idx.is_empty() && width > 1) {
            return Err(op_err(
                ctx,
                op,
                format!("{} indices for a buffer of rank {}", idx.len(), shape.len()),
            ));
        }
        let mut lanes = Vec::with_capacity(width);
        for l in 0..width as i64 {
            match element_offset(&idx, &shape, l, 1) {
                Some(at) => {
                    if let Some(p) = self.check_read(th, op, id, at)? {
                        self.set_poison(th, op, p)?;
                        return Ok(Flow::Next);
                    }
                    lanes.push(load(&self.mem[id], at));
                }
                None => lanes.push(padding.clone()),
            }
        }
        let v = if vector {
            Val::Vector(lanes)
        } else {
            lanes
                .pop()
                .ok_or_else(|| op_err(ctx, op, "a load of no lanes"))?
        };
        self.set_result(th, op, v)?;
        Ok(Flow::Next)
    }

    /// `loop.store`, or `loop.vstore` when `vector`.
    fn exec_store(&mut self, th: &mut Thread, op: Op, vector: bool) -> Result<Flow, Diagnostic> {
        let ctx = self.ctx;
        let access = self.access(op, 2)?;
        let value = access
            .value
            .ok_or_else(|| op_err(ctx, op, "expected a stored value"))?;
        let value = self.value(th, op, value)?;
        let lanes = match (value, vector) {
            (Val::Vector(l), true) => &l[..],
            (Val::Int(_) | Val::Float(_), false) => std::slice::from_ref(value),
            _ => {
                return Err(op_err(
                    ctx,
                    op,
                    "stored value does not match the store kind",
                ))
            }
        };
        let (id, at) = self.address(th, op, &access, lanes.len())?;
        for (k, v) in lanes.iter().enumerate() {
            self.check_write(th, op, id, at + k)?;
            store(&mut self.mem[id], at + k, v).map_err(|m| op_err(ctx, op, m))?;
        }
        Ok(Flow::Next)
    }

    /// `loop.alloc`: shared buffers are one per block (the first thread to reach the op creates
    /// it), local buffers one per thread and execution of the op (a fresh buffer each time it
    /// runs, as in a loop body). Both start uninitialised: every element must be written before
    /// it is read (`memcheck`).
    fn exec_alloc(&mut self, th: &mut Thread, op: Op) -> Result<Flow, Diagnostic> {
        let ctx = self.ctx;
        let ty = *ctx
            .result_types(op)
            .first()
            .ok_or_else(|| op_err(ctx, op, "loop.alloc has no result"))?;
        let bt = buffer_type(ctx, ty)
            .ok_or_else(|| op_err(ctx, op, "loop.alloc result is not a !loop.buffer type"))?;
        let existing = match bt.space {
            MemorySpace::Shared => self.shared.get(&op).copied(),
            MemorySpace::Local => None,
            MemorySpace::Global => {
                return Err(op_err(
                    ctx,
                    op,
                    "loop.alloc of a global buffer is not allowed",
                ))
            }
        };
        let id = match existing {
            Some(id) => id,
            None => {
                let shape =
                    bt.shape_with(ctx, op, ctx.operands(op), |v| self.get_int(th, op, v))?;
                let dtype = DType::from_type(ctx, bt.elem)
                    .ok_or_else(|| op_err(ctx, op, "unsupported buffer element type"))?;
                let buf = Literal::zeros(dtype, &shape);
                let scratch = Scratch::new(op, bt.space, buf.len());
                if bt.space == MemorySpace::Shared {
                    self.check_shared_size(op, buf.len() * dtype.size_bytes())?;
                }
                let id = match bt.space {
                    MemorySpace::Local => self.local.get(&(th.linear, op)).copied(),
                    _ => None,
                };
                match id {
                    Some(id) => {
                        self.mem[id] = buf;
                        self.scratch[id - self.n_global] = scratch;
                        id
                    }
                    None => {
                        self.mem.push(buf);
                        self.scratch.push(scratch);
                        let id = self.mem.len() - 1;
                        match bt.space {
                            MemorySpace::Shared => self.shared.insert(op, id),
                            _ => self.local.insert((th.linear, op), id),
                        };
                        id
                    }
                }
            }
        };
        self.set_result(th, op, Val::Buf(id))?;
        Ok(Flow::Next)
    }

    /// Checks that a new shared buffer of `bytes` at `op` keeps the block's shared memory
    /// within [`MAX_SHARED_BYTES`] (the launch checks the static allocations up front; this
    /// catches `?`-sized ones).
    fn check_shared_size(&self, op: Op, bytes: usize) -> Result<(), Diagnostic> {
        let used: usize = self
            .shared
            .values()
            .map(|&id| self.mem[id].len() * self.mem[id].dtype().size_bytes())
            .sum();
        if used + bytes > MAX_SHARED_BYTES {
            return Err(op_err(
                self.ctx,
                op,
                format!(
                    "this shared buffer of {bytes} bytes takes the block's shared memory to {} bytes, over the limit of {MAX_SHARED_BYTES}",
                    used + bytes
                ),
            ));
        }
        Ok(())
    }
}

/// A schedule block's body and optional init block. The spec lists the body region first and
/// the init region second; an empty region counts as absent.
fn schedule_block_regions(ctx: &Context, op: Op) -> Option<(Block, Option<Block>)> {
    let entry = |i: usize| {
        ctx.regions(op)
            .get(i)
            .and_then(|&r| ctx.blocks(r).first().copied())
    };
    match (entry(0), entry(1)) {
        (Some(body), init) => Some((body, init)),
        (None, Some(body)) => Some((body, None)),
        (None, None) => None,
    }
}

/// The error for an op the kernel interpreter has no rule for.
fn unsupported(ctx: &Context, op: Op) -> Diagnostic {
    let name = ctx.op_name(op);
    op_err(
        ctx,
        op,
        format!("the loop interpreter does not support '{name}'"),
    )
}

/// The row-major offset in a buffer of `shape` of the element at `idx` with `lane` added to
/// the last index, when it and the `width - 1` elements after it along the last dim lie
/// inside the buffer; `None` otherwise.
fn element_offset(idx: &[i64], shape: &[usize], lane: i64, width: usize) -> Option<usize> {
    let mut offset = 0usize;
    for (k, (&i, &n)) in idx.iter().zip(shape).enumerate() {
        let (i, reach) = if k + 1 == idx.len() {
            (i.checked_add(lane)?, width as i64)
        } else {
            (i, 1)
        };
        if i < 0 || i.checked_add(reach).is_none_or(|e| e > n as i64) {
            return None;
        }
        offset = offset * n + i as usize;
    }
    Some(offset)
}
