//! Host calls: `loop.call_if` and `loop.call_loop` run other host functions in the same memory.
//!
//! A callee gets its caller's views, so buffers pass without a copy, as in compiled code. The
//! exception is a loop's carried values: between iterations they are owned copies
//! ([`Carried`]), written into fresh storages for each iteration, so no iteration's body sees a
//! buffer that an earlier one returned (and may have returned twice, or as a capture), nor the
//! caller's initial value, which the loop leaves as it was. Each iteration's storages are freed
//! once its results are copied out, so a long loop runs in the memory of one iteration. Scan
//! elements are copied as they come and stacked into one new buffer at the end.
//!
//! Calls nest at most [`MAX_CALL_DEPTH`] deep, so unbounded recursion is a diagnostic rather
//! than a stack overflow, and a scan output may not outgrow the host limit on a storage.

use super::{byte_size, HostVal, View};
use crate::interp::buffer::{buffer_type, store};
use crate::interp::exec::op_err;
use crate::interp::scalar::Val;
use crate::{CallIfOp, CallLoopOp};
use dlc_ir::{Diagnostic, Op, Value};
use dlc_tensor::{DType, Literal, Scalar};

/// How deep host calls may nest.
const MAX_CALL_DEPTH: usize = 64;

/// A loop-carried value between iterations: a copy that no storage holds.
enum Carried {
    Scalar(Val),
    Buffer(Literal),
}

impl super::Host<'_> {
    /// `loop.call_if`: calls the then or else callee, as the condition's element says, with the
    /// arguments; its results are the op's.
    pub(super) fn exec_call_if(&mut self, call: CallIfOp) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let op = call.0;
        let cond = self.operand(op, 0)?;
        let cond = self.read_one(op, cond, DType::I1, "the condition")? != 0;
        let callee = self.callee(op, if cond { "then_callee" } else { "else_callee" })?;
        let args = self.values(op, call.args(ctx))?;
        let results = self.call_from(op, callee, args)?;
        self.set_results(op, results)
    }

    /// `loop.call_loop`: runs the body while the iteration number is below the trip count and
    /// the condition holds (ONNX `Loop`); its results are the last carried values, then the
    /// scan outputs.
    pub(super) fn exec_call_loop(&mut self, call: CallLoopOp) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let op = call.0;
        let Some(n) = call.num_carried(ctx) else {
            return Err(op_err(ctx, op, "'num_carried' does not fit the operands"));
        };
        let body = self.callee(op, "callee")?;
        let max_trip = self.read_one(op, call.max_trip(ctx), DType::I64, "the trip count")?;
        let mut cond = self.read_one(op, call.cond(ctx), DType::I1, "the condition")? != 0;
        let mut carried = self
            .values(op, call.carried(ctx))?
            .iter()
            .map(|v| self.carry(op, v))
            .collect::<Result<Vec<_>, _>>()?;
        let captures = self.values(op, call.captures(ctx))?;
        let result_types = ctx.result_types(op);
        let n_scans = result_types.len().saturating_sub(n);
        let mut scans: Vec<Vec<Literal>> = (0..n_scans).map(|_| Vec::new()).collect();
        let mut i = 0i64;
        while i < max_trip && cond {
            let base = self.storages.len();
            let mut args = vec![
                self.scalar_buffer(op, DType::I64, i)?,
                self.scalar_buffer(op, DType::I1, 1)?,
            ];
            for c in &carried {
                args.push(self.uncarry(op, c)?);
            }
            args.extend(captures.iter().cloned());
            let outs = self.call_from(op, body, args)?;
            if outs.len() != 1 + n + n_scans {
                return Err(op_err(
                    ctx,
                    op,
                    format!(
                        "the loop body returned {} values, expected {}",
                        outs.len(),
                        1 + n + n_scans
                    ),
                ));
            }
            cond = self.read_value(op, &outs[0], DType::I1, "the body's condition")? != 0;
            for (slot, v) in carried.iter_mut().zip(&outs[1..=n]) {
                *slot = self.carry(op, v)?;
            }
            for (k, (scan, v)) in scans.iter_mut().zip(&outs[1 + n..]).enumerate() {
                let element = match self.carry(op, v)? {
                    Carried::Buffer(t) => t,
                    Carried::Scalar(_) => {
                        return Err(op_err(
                            ctx,
                            op,
                            format!("scan element #{k} is not a buffer"),
                        ))
                    }
                };
                push_scan(scan, element).map_err(|m| {
                    op_err(ctx, op, format!("scan output #{k}, iteration {i}: {m}"))
                })?;
            }
            // Everything this iteration allocated is garbage now: the caller's values are
            // older, and what the body returned has been copied out.
            self.storages.truncate(base);
            i += 1;
        }
        let mut results = Vec::with_capacity(result_types.len());
        for c in &carried {
            results.push(self.uncarry(op, c)?);
        }
        for (k, (scan, &ty)) in scans.iter().zip(&result_types[n..]).enumerate() {
            let stacked = self
                .stack(scan, ty)
                .map_err(|m| op_err(ctx, op, format!("scan output #{k}: {m}")))?;
            results.push(stacked);
        }
        for (k, (v, &ty)) in results.iter().zip(&result_types).enumerate() {
            self.check_fits(ty, v)
                .map_err(|m| op_err(ctx, op, format!("result #{k}: {m}")))?;
        }
        self.set_results(op, results)
    }

    /// The host function the symbol attribute `key` of `op` names.
    fn callee(&mut self, op: Op, key: &str) -> Result<Op, Diagnostic> {
        let ctx = self.ctx;
        let symbol = ctx.attr(op, key).and_then(|a| ctx.attr_as_symbol(a));
        let func = symbol
            .and_then(|s| self.tables.resolve(ctx, op, s))
            .filter(|&f| ctx.view::<dlc_func::FuncOp>(f).is_some());
        func.ok_or_else(|| {
            let name = symbol.map_or("", |s| ctx.ident_str(s));
            op_err(
                ctx,
                op,
                format!("'{name}' does not reference a 'func.func'"),
            )
        })
    }

    /// Calls `func` for `op`, one level deeper.
    fn call_from(
        &mut self,
        op: Op,
        func: Op,
        args: Vec<HostVal>,
    ) -> Result<Vec<HostVal>, Diagnostic> {
        if self.depth >= MAX_CALL_DEPTH {
            return Err(op_err(
                self.ctx,
                op,
                format!("host calls nest deeper than {MAX_CALL_DEPTH} (unbounded recursion?)"),
            ));
        }
        self.depth += 1;
        let outcome = self.call(func, args);
        self.depth -= 1;
        outcome
    }

    /// The values of `values`, operands of `op`.
    fn values(&self, op: Op, values: &[Value]) -> Result<Vec<HostVal>, Diagnostic> {
        values.iter().map(|&v| self.get(op, v).cloned()).collect()
    }

    /// Binds the results of `op` to `values`.
    fn set_results(&mut self, op: Op, values: Vec<HostVal>) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        if values.len() != ctx.num_results(op) {
            return Err(op_err(
                ctx,
                op,
                format!(
                    "the callee returned {} values for {} results",
                    values.len(),
                    ctx.num_results(op)
                ),
            ));
        }
        for (r, v) in ctx.results(op).zip(values) {
            self.env.insert(r, v);
        }
        Ok(())
    }

    /// The one element of buffer operand `v` of `op` (`what`), which must hold a single
    /// `dtype` element, as an integer (an `i1` is 1 for any nonzero byte).
    fn read_one(&self, op: Op, v: Value, dtype: DType, what: &str) -> Result<i64, Diagnostic> {
        let value = self.get(op, v)?.clone();
        self.read_value(op, &value, dtype, what)
    }

    /// [`Self::read_one`] of a value.
    fn read_value(
        &self,
        op: Op,
        value: &HostVal,
        dtype: DType,
        what: &str,
    ) -> Result<i64, Diagnostic> {
        let ctx = self.ctx;
        let element = match value {
            HostVal::Buffer(view) if view.dtype == dtype && view.numel() == 1 => {
                self.decode(view).map_err(|m| op_err(ctx, op, m))?.get(0)
            }
            HostVal::Buffer(view) => {
                return Err(op_err(
                    ctx,
                    op,
                    format!(
                        "{what} must be one {dtype:?} element, got a {:?} buffer of shape {:?}",
                        view.dtype, view.shape
                    ),
                ))
            }
            HostVal::Scalar(_) => {
                return Err(op_err(ctx, op, format!("{what} must be a buffer")));
            }
        };
        match element {
            Scalar::Bool(b) => Ok(i64::from(b)),
            Scalar::Int(x) => Ok(x),
            Scalar::Float(_) => Err(op_err(ctx, op, format!("{what} must be an integer"))),
        }
    }

    /// A new rank-0 buffer of `dtype` holding `value`.
    fn scalar_buffer(&mut self, op: Op, dtype: DType, value: i64) -> Result<HostVal, Diagnostic> {
        let mut t = Literal::zeros(dtype, &[]);
        store(&mut t, 0, &Val::Int(value)).map_err(|m| op_err(self.ctx, op, m))?;
        self.uncarry(op, &Carried::Buffer(t))
    }

    /// A copy of `value` that outlives the storages.
    fn carry(&self, op: Op, value: &HostVal) -> Result<Carried, Diagnostic> {
        Ok(match value {
            HostVal::Scalar(v) => Carried::Scalar(v.clone()),
            HostVal::Buffer(view) => {
                Carried::Buffer(self.decode(view).map_err(|m| op_err(self.ctx, op, m))?)
            }
        })
    }

    /// `value` as a host value: a scalar, or a buffer in a new storage.
    fn uncarry(&mut self, op: Op, value: &Carried) -> Result<HostVal, Diagnostic> {
        match value {
            Carried::Scalar(v) => Ok(HostVal::Scalar(v.clone())),
            Carried::Buffer(t) => {
                let view = self
                    .new_storage(t.shape(), t.dtype())
                    .and_then(|view| self.encode(&view, t).map(|()| view))
                    .map_err(|m| op_err(self.ctx, op, m))?;
                Ok(HostVal::Buffer(view))
            }
        }
    }

    /// The elements of `scan` stacked along a new leading axis into a new buffer of type `ty`,
    /// the scan output's. Without elements, its `?` trailing dims are 0.
    /// Every element has the first one's shape (see [`push_scan`]), so each fits its place.
    fn stack(&mut self, scan: &[Literal], ty: dlc_ir::Type) -> Result<HostVal, String> {
        let bt = buffer_type(self.ctx, ty).ok_or("the scan output is not a buffer")?;
        let dtype = DType::from_type(self.ctx, bt.elem).ok_or("unsupported element type")?;
        let element_shape: Vec<usize> = match scan.first() {
            Some(first) => first.shape().to_vec(),
            None => bt
                .dims
                .iter()
                .skip(1)
                .map(|&d| usize::try_from(d).unwrap_or(0))
                .collect(),
        };
        let mut shape = vec![scan.len()];
        shape.extend(element_shape);
        let view: View = self.new_storage(&shape, dtype)?;
        let mut at = view.offset;
        for element in scan {
            if element.dtype() != dtype {
                return Err(format!(
                    "a {:?} element does not fit a {dtype:?} output",
                    element.dtype()
                ));
            }
            let bytes = element.to_le_bytes();
            self.storages[view.storage][at..at + bytes.len()].copy_from_slice(&bytes);
            at += bytes.len();
        }
        Ok(HostVal::Buffer(view))
    }
}

/// Appends `element` to `scan` if it has the shape of the elements before it and the stack
/// stays within the host limit on a storage.
fn push_scan(scan: &mut Vec<Literal>, element: Literal) -> Result<(), String> {
    if let Some(first) = scan.first() {
        if first.shape() != element.shape() {
            return Err(format!(
                "an element of shape {:?} does not stack on elements of shape {:?}",
                element.shape(),
                first.shape()
            ));
        }
    }
    let mut shape = vec![scan.len() + 1];
    shape.extend_from_slice(element.shape());
    byte_size(&shape, element.dtype())?;
    scan.push(element);
    Ok(())
}
