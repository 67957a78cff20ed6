//! The evaluator: runs a `func.func` body op by op on concrete tensors.
//!
//! Values live in a map from SSA value to runtime value, one map per region being executed,
//! each seeing its parents' (`func.func` and `graph.fusion` are isolated from above and start
//! afresh; the regions of `graph.if` and `graph.loop` see the values around them). Ops are recognised by their typed
//! views (`GraphOps::of`, `ctx.view`), which go by the op's name and so also recognise IR parsed
//! with unregistered (generic-form) ops, and read their attributes by the names the spec gives
//! them. Every result
//! is checked against its declared type — dtype, rank and static dims — which is where a `?` dim
//! that two operands require equal is found unequal at run time.

use super::composites::{self, Window};
use super::primitives::{self, Binary, Reduction, Unary};
use crate::ops::{FusionOp, GraphOps, IfOp, LoopOp, YieldOp};
use dlc_func::{CallOp, FuncOp, ReturnOp};
use dlc_ir::symbol::SymbolTables;
use dlc_ir::{
    op_error, AttrKind, Attribute, Context, DenseValue, Diagnostic, Op, Printer, Region, Type,
    TypeKind, Value, DYNAMIC,
};
use dlc_tensor::{check_size, DType, Literal, Scalar};
use std::collections::HashMap;

/// How deep `func.call`s may nest before the interpreter reports runaway recursion.
const MAX_CALL_DEPTH: usize = 64;

/// A runtime value: a tensor (scalars of a tensor dtype are rank-0 tensors) or an `index`.
#[derive(Clone, Debug, PartialEq)]
enum RuntimeValue {
    Tensor(Literal),
    Index(i64),
}

/// Runs the function `func` (a `func.func` with a body) on `inputs` and returns its results.
///
/// The inputs must match the signature: same count, dtype and rank, and equal sizes for static
/// dims (a `?` dim accepts any size). Runtime failures — shapes that do not agree, integer
/// division by zero, gather indices out of range, ops the interpreter does not know — are
/// returned as a [`Diagnostic`] at the failing op's location.
pub fn interpret(ctx: &Context, func: Op, inputs: &[Literal]) -> Result<Vec<Literal>, Diagnostic> {
    let args = inputs.iter().cloned().map(RuntimeValue::Tensor).collect();
    let mut interpreter = Interpreter {
        ctx,
        symbols: SymbolTables::new(),
        depth: 0,
    };
    let results = interpreter.call(func, args)?;
    results
        .into_iter()
        .map(|r| match r {
            RuntimeValue::Tensor(t) => Ok(t),
            RuntimeValue::Index(_) => Err(op_error(
                ctx,
                func,
                "returns an index value; interpret hands back tensors only",
            )),
        })
        .collect()
}

/// Evaluates one op without regions (`graph.fusion` and `func.call` are refused) on tensor
/// operands, as [`interpret`] would inside a function: for importers and folders that evaluate
/// a freshly built op on constant operands. Errors are diagnostics at the op.
pub fn evaluate_op(
    ctx: &Context,
    op: Op,
    operands: &[Literal],
) -> Result<Vec<Literal>, Diagnostic> {
    if !ctx.regions(op).is_empty() || ctx.view::<CallOp>(op).is_some() {
        return Err(op_error(ctx, op, "cannot be evaluated on its own"));
    }
    let operands = operands.iter().cloned().map(RuntimeValue::Tensor).collect();
    let results = OpEval { ctx, op }
        .eval(operands)
        .map_err(|m| op_error(ctx, op, m))?;
    results
        .into_iter()
        .map(|r| match r {
            RuntimeValue::Tensor(t) => Ok(t),
            RuntimeValue::Index(_) => Err(op_error(ctx, op, "produces an index value")),
        })
        .collect()
}

/// The values of one region being run, and the scope around it.
struct Scope<'a> {
    values: HashMap<Value, RuntimeValue>,
    outer: Option<&'a Scope<'a>>,
}

impl Scope<'_> {
    /// The value of `v` here or in an enclosing scope.
    fn get(&self, v: Value) -> Option<&RuntimeValue> {
        let mut scope = Some(self);
        while let Some(s) = scope {
            if let Some(found) = s.values.get(&v) {
                return Some(found);
            }
            scope = s.outer;
        }
        None
    }
}

/// The truth of the one-element `i1` tensor `values[i]` (a condition).
fn truth(values: &[RuntimeValue], i: usize) -> Result<bool, String> {
    match values.get(i) {
        Some(RuntimeValue::Tensor(t)) if t.len() == 1 && t.dtype() == DType::I1 => {
            Ok(t.get(0).as_bool())
        }
        _ => Err("expects a condition of one i1 element".to_string()),
    }
}

/// `elements` (one per iteration, of one shape) stacked along a new leading axis, as a tensor of
/// the scan result type `ty`; with no elements, an empty tensor whose `?` dims are 0.
fn stack(ctx: &Context, ty: Type, elements: &[Literal]) -> Result<Literal, String> {
    let TypeKind::Tensor { shape, element } = ctx.type_kind(ty) else {
        return Err("a scan result must be a tensor".to_string());
    };
    let dtype = DType::from_type(ctx, *element).ok_or("a scan result of an unknown dtype")?;
    let Some(first) = elements.first() else {
        let mut dims: Vec<usize> = shape.iter().map(|&d| d.max(0) as usize).collect();
        if let Some(d) = dims.first_mut() {
            *d = 0;
        }
        return Ok(Literal::zeros(dtype, &dims));
    };
    let mut dims = vec![elements.len()];
    dims.extend(first.shape());
    check_size(&dims)?;
    let mut bytes = Vec::new();
    for e in elements {
        bytes.extend(e.to_le_bytes());
    }
    Literal::from_le_bytes(dtype, &dims, &bytes)
}

struct Interpreter<'c> {
    ctx: &'c Context,
    symbols: SymbolTables,
    depth: usize,
}

/// The result of one op, or what went wrong (attached to the op by the caller).
type Eval = Result<Vec<RuntimeValue>, String>;

impl Interpreter<'_> {
    /// Calls `func` with `args`, checking both against its signature.
    fn call(&mut self, func: Op, args: Vec<RuntimeValue>) -> Result<Vec<RuntimeValue>, Diagnostic> {
        let ctx = self.ctx;
        if ctx.view::<FuncOp>(func).is_none() {
            return Err(op_error(ctx, func, "is not a func.func"));
        }
        let signature = ctx
            .attr(func, "function_type")
            .and_then(|a| ctx.attr_as_type(a))
            .and_then(|t| ctx.function_signature(t));
        let Some((inputs, outputs)) = signature else {
            return Err(op_error(ctx, func, "has no function_type"));
        };
        if args.len() != inputs.len() {
            return Err(op_error(
                ctx,
                func,
                format!("expects {} inputs, got {}", inputs.len(), args.len()),
            ));
        }
        for (i, (arg, ty)) in args.iter().zip(inputs).enumerate() {
            self.check_type(arg, *ty)
                .map_err(|m| op_error(ctx, func, format!("input #{i}: {m}")))?;
        }
        if ctx
            .regions(func)
            .first()
            .is_none_or(|r| ctx.blocks(*r).is_empty())
        {
            return Err(op_error(ctx, func, "is a declaration (no body to run)"));
        }
        self.depth += 1;
        let results = if self.depth > MAX_CALL_DEPTH {
            Err(op_error(
                ctx,
                func,
                format!("calls nest deeper than {MAX_CALL_DEPTH}"),
            ))
        } else {
            self.run_region(func, ctx.region(func, 0), args, None)
        };
        self.depth -= 1;
        let results = results?;
        if results.len() != outputs.len() {
            return Err(op_error(
                ctx,
                func,
                format!(
                    "returns {} values, signature has {}",
                    results.len(),
                    outputs.len()
                ),
            ));
        }
        for (i, (r, ty)) in results.iter().zip(outputs).enumerate() {
            self.check_type(r, *ty)
                .map_err(|m| op_error(ctx, func, format!("result #{i}: {m}")))?;
        }
        Ok(results)
    }

    /// Runs the single block of `region` (of op `owner`) with its arguments bound to `args`,
    /// up to its terminator (`func.return` or `graph.yield`), whose operands are the results.
    /// The ops see the values of `outer` (the scope around a region that is not isolated).
    fn run_region(
        &mut self,
        owner: Op,
        region: Region,
        args: Vec<RuntimeValue>,
        outer: Option<&Scope<'_>>,
    ) -> Result<Vec<RuntimeValue>, Diagnostic> {
        let ctx = self.ctx;
        let [block] = ctx.blocks(region) else {
            return Err(op_error(
                ctx,
                owner,
                "has a region with other than one block",
            ));
        };
        let params = ctx.block_args(*block);
        if params.len() != args.len() {
            return Err(op_error(
                ctx,
                owner,
                format!(
                    "region takes {} arguments, got {}",
                    params.len(),
                    args.len()
                ),
            ));
        }
        let mut scope = Scope {
            values: HashMap::new(),
            outer,
        };
        for (param, arg) in params.iter().zip(args) {
            self.check_type(&arg, ctx.value_type(*param))
                .map_err(|m| op_error(ctx, owner, format!("region argument: {m}")))?;
            scope.values.insert(*param, arg);
        }
        for op in ctx.block_ops(*block) {
            let operands = ctx
                .operands(op)
                .iter()
                .map(|v| scope.get(*v).cloned())
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| op_error(ctx, op, "uses a value not defined in its region"))?;
            if ctx.view::<ReturnOp>(op).is_some() || ctx.view::<YieldOp>(op).is_some() {
                return Ok(operands);
            }
            let results = self.eval(op, operands, &scope)?;
            if results.len() != ctx.num_results(op) {
                return Err(op_error(
                    ctx,
                    op,
                    format!(
                        "produced {} values for {} results",
                        results.len(),
                        ctx.num_results(op)
                    ),
                ));
            }
            for (i, (value, result)) in ctx.results(op).zip(results).enumerate() {
                self.check_type(&result, ctx.value_type(value))
                    .map_err(|m| {
                        op_error(ctx, op, format!("result #{i} does not match its type: {m}"))
                    })?;
                scope.values.insert(value, result);
            }
        }
        Err(op_error(ctx, owner, "region ends without a terminator"))
    }

    /// Runs a `graph.if`: the region its condition picks, in `scope`.
    fn run_if(
        &mut self,
        op: Op,
        operands: Vec<RuntimeValue>,
        scope: &Scope<'_>,
    ) -> Result<Vec<RuntimeValue>, Diagnostic> {
        let ctx = self.ctx;
        let cond = truth(&operands, 0).map_err(|m| op_error(ctx, op, m))?;
        let Some(&region) = ctx.regions(op).get(usize::from(!cond)) else {
            return Err(op_error(ctx, op, "has no region for this condition"));
        };
        self.run_region(op, region, Vec::new(), Some(scope))
    }

    /// Runs a `graph.loop` (`crate::control` has its semantics) in `scope`.
    fn run_loop(
        &mut self,
        op: Op,
        operands: Vec<RuntimeValue>,
        scope: &Scope<'_>,
    ) -> Result<Vec<RuntimeValue>, Diagnostic> {
        let ctx = self.ctx;
        let fail = |m: String| op_error(ctx, op, m);
        let max_trip = match operands.first() {
            Some(RuntimeValue::Tensor(t)) if t.len() == 1 => t.get(0).as_i64(),
            _ => return Err(fail("expects 'max_trip' to be one integer".into())),
        };
        let mut cond = truth(&operands, 1).map_err(fail)?;
        let Some(&region) = ctx.regions(op).first() else {
            return Err(fail("has no body".into()));
        };
        let mut carried: Vec<RuntimeValue> = operands.into_iter().skip(2).collect();
        let n = carried.len();
        let scans = ctx.num_results(op).saturating_sub(n);
        let mut elements: Vec<Vec<Literal>> = vec![Vec::new(); scans];
        let mut i = 0i64;
        while i < max_trip && cond {
            let mut args = vec![
                RuntimeValue::Tensor(Literal::from_i64(DType::I64, &[], &[i])),
                RuntimeValue::Tensor(Literal::from_bools(&[], &[cond])),
            ];
            args.extend(carried);
            let out = self.run_region(op, region, args, Some(scope))?;
            if out.len() != 1 + n + scans {
                return Err(fail(format!(
                    "body yields {} values, expected {}",
                    out.len(),
                    1 + n + scans
                )));
            }
            cond = truth(&out, 0).map_err(fail)?;
            let mut out = out.into_iter().skip(1);
            carried = out.by_ref().take(n).collect();
            for (k, v) in out.enumerate() {
                let RuntimeValue::Tensor(t) = v else {
                    return Err(fail("yields an index as a scan element".into()));
                };
                if let Some(first) = elements[k].first() {
                    if first.shape() != t.shape() {
                        return Err(fail(format!(
                            "scan element #{k} has shape {:?} in iteration {i}, but {:?} before",
                            t.shape(),
                            first.shape()
                        )));
                    }
                }
                elements[k].push(t);
            }
            i += 1;
        }
        let mut results = carried;
        for (k, values) in elements.into_iter().enumerate() {
            let ty = ctx.value_type(ctx.result(op, n + k));
            results.push(RuntimeValue::Tensor(stack(ctx, ty, &values).map_err(fail)?));
        }
        Ok(results)
    }

    /// Evaluates one non-terminator op.
    fn eval(
        &mut self,
        op: Op,
        operands: Vec<RuntimeValue>,
        scope: &Scope<'_>,
    ) -> Result<Vec<RuntimeValue>, Diagnostic> {
        let ctx = self.ctx;
        if ctx.view::<CallOp>(op).is_some() {
            let callee = ctx
                .attr(op, "callee")
                .and_then(|a| ctx.attr_as_symbol(a))
                .ok_or_else(|| op_error(ctx, op, "has no callee"))?;
            let target = self.symbols.resolve(ctx, op, callee).ok_or_else(|| {
                op_error(
                    ctx,
                    op,
                    format!("calls @{}, which is not defined", ctx.ident_str(callee)),
                )
            })?;
            return self
                .call(target, operands)
                .map_err(|d| d.with_note(ctx.op_loc(op), "called from here"));
        }
        if ctx.view::<FusionOp>(op).is_some() {
            let Some(&region) = ctx.regions(op).first() else {
                return Err(op_error(ctx, op, "has no region"));
            };
            return self.run_region(op, region, operands, None);
        }
        if ctx.view::<IfOp>(op).is_some() {
            return self.run_if(op, operands, scope);
        }
        if ctx.view::<LoopOp>(op).is_some() {
            return self.run_loop(op, operands, scope);
        }
        OpEval { ctx, op }
            .eval(operands)
            .map_err(|m| op_error(ctx, op, m))
    }

    /// Checks that `value` is of type `ty` (for tensors: dtype, rank and static dims).
    fn check_type(&self, value: &RuntimeValue, ty: Type) -> Result<(), String> {
        let ctx = self.ctx;
        let describe = || Printer::new(ctx).type_to_string(ty);
        match (value, ctx.type_kind(ty)) {
            (RuntimeValue::Index(_), TypeKind::Index) => Ok(()),
            (RuntimeValue::Tensor(t), TypeKind::Tensor { shape, element }) => {
                let fits = DType::from_type(ctx, *element) == Some(t.dtype())
                    && shape.len() == t.rank()
                    && shape
                        .iter()
                        .zip(t.shape())
                        .all(|(&d, &n)| d == DYNAMIC || d == n as i64);
                if fits {
                    Ok(())
                } else {
                    Err(format!(
                        "a {} tensor of shape {:?} is not a {}",
                        t.dtype(),
                        t.shape(),
                        describe()
                    ))
                }
            }
            (RuntimeValue::Tensor(t), _)
                if t.rank() == 0 && DType::from_type(ctx, ty) == Some(t.dtype()) =>
            {
                Ok(())
            }
            (RuntimeValue::Index(_), _) => Err(format!("an index value is not a {}", describe())),
            (RuntimeValue::Tensor(t), _) => Err(format!(
                "a {} tensor of shape {:?} is not a {}",
                t.dtype(),
                t.shape(),
                describe()
            )),
        }
    }
}

/// The evaluation of one op that does not run regions; errors are messages the caller places
/// at the op.
struct OpEval<'c> {
    ctx: &'c Context,
    op: Op,
}

/// What the interpreter runs an `arith` op as.
enum ArithEval {
    Constant,
    IndexCast,
    /// The graph binary op with the same semantics.
    Binary(Binary),
}

impl ArithEval {
    /// The arith ops graph functions hold (index arithmetic on `graph.dim` sizes, scalars).
    fn of(ctx: &Context, op: Op) -> Option<ArithEval> {
        use dlc_arith::ArithOps as A;
        use Binary::*;
        Some(match A::of(ctx, op)? {
            A::ConstantOp(_) => ArithEval::Constant,
            A::IndexCastOp(_) => ArithEval::IndexCast,
            A::AddIOp(_) | A::AddFOp(_) => ArithEval::Binary(Add),
            A::SubIOp(_) | A::SubFOp(_) => ArithEval::Binary(Sub),
            A::MulIOp(_) | A::MulFOp(_) => ArithEval::Binary(Mul),
            A::DivSIOp(_) | A::DivFOp(_) => ArithEval::Binary(Div),
            A::RemSIOp(_) | A::RemFOp(_) => ArithEval::Binary(Rem),
            A::MaxSIOp(_) | A::MaximumFOp(_) => ArithEval::Binary(Max),
            A::MinSIOp(_) | A::MinimumFOp(_) => ArithEval::Binary(Min),
            A::AndIOp(_) => ArithEval::Binary(And),
            A::OrIOp(_) => ArithEval::Binary(Or),
            A::XOrIOp(_) => ArithEval::Binary(Xor),
            _ => return None,
        })
    }
}

impl OpEval<'_> {
    fn eval(&self, operands: Vec<RuntimeValue>) -> Eval {
        match ArithEval::of(self.ctx, self.op) {
            Some(ArithEval::Binary(f)) => return self.arith_binary(f, &operands),
            Some(ArithEval::Constant) => return self.arith_constant(),
            Some(ArithEval::IndexCast) => return self.index_cast(&operands),
            None => {}
        }
        let kind = GraphOps::of(self.ctx, self.op);
        match kind {
            Some(GraphOps::FillOp(_)) => return self.fill(&operands),
            Some(GraphOps::IotaOp(_)) => return self.iota(&operands),
            Some(GraphOps::ReadSizeOp(_)) => return self.read_size(&operands),
            Some(GraphOps::ReshapeOp(_)) if operands.len() > 1 => {
                return self.sized_reshape(&operands)
            }
            _ => {}
        }
        let tensors: Vec<&Literal> = operands
            .iter()
            .map(|v| match v {
                RuntimeValue::Tensor(t) => Ok(t),
                RuntimeValue::Index(_) => Err("expects tensor operands, got an index".to_string()),
            })
            .collect::<Result<_, _>>()?;
        let Some(kind) = kind else {
            return Err("is not supported by the interpreter".into());
        };
        if let GraphOps::RnnOp(_) = kind {
            let spec = crate::recurrence::RnnSpec::of(self.ctx, self.op)?;
            let results = super::recurrence::rnn(&spec, &tensors)?;
            return Ok(results.into_iter().map(RuntimeValue::Tensor).collect());
        }
        if let GraphOps::DimOp(_) = kind {
            let x = self.operand(&tensors, 0)?;
            let axis = primitives::normalize_axis(self.int("axis")?, x.rank())?;
            return Ok(vec![RuntimeValue::Index(x.shape()[axis] as i64)]);
        }
        self.eval_tensor_op(kind, &tensors)
            .map(|t| vec![RuntimeValue::Tensor(t)])
    }

    /// The graph ops whose operands and single result are tensors.
    fn eval_tensor_op(&self, kind: GraphOps, x: &[&Literal]) -> Result<Literal, String> {
        use GraphOps as G;
        let arg = |i| self.operand(x, i);
        let unary = |f: Unary| {
            self.arity(x, 1)?;
            primitives::unary(f, arg(0)?)
        };
        let binary = |f: Binary| {
            self.arity(x, 2)?;
            primitives::binary(f, arg(0)?, arg(1)?)
        };
        let reduce = |r: Reduction| {
            self.arity(x, 1)?;
            let (axes, keepdim) = (self.array("axes")?, self.flag("keepdim"));
            primitives::reduce(r, arg(0)?, &axes, keepdim)
        };
        // One arm per graph op (no catch-all), so that a new op does not build until it has a
        // rule here or is listed with the ops evaluated elsewhere.
        match kind {
            G::NegOp(_) => unary(Unary::Neg),
            G::AbsOp(_) => unary(Unary::Abs),
            G::ExpOp(_) => unary(Unary::Exp),
            G::LogOp(_) => unary(Unary::Log),
            G::SqrtOp(_) => unary(Unary::Sqrt),
            G::RsqrtOp(_) => unary(Unary::Rsqrt),
            G::ReciprocalOp(_) => unary(Unary::Reciprocal),
            G::TanhOp(_) => unary(Unary::Tanh),
            G::SigmoidOp(_) => unary(Unary::Sigmoid),
            G::ReluOp(_) => unary(Unary::Relu),
            G::ErfOp(_) => unary(Unary::Erf),
            G::SinOp(_) => unary(Unary::Sin),
            G::CosOp(_) => unary(Unary::Cos),
            G::FloorOp(_) => unary(Unary::Floor),
            G::CeilOp(_) => unary(Unary::Ceil),
            G::RoundOp(_) => unary(Unary::Round),
            G::SignOp(_) => unary(Unary::Sign),
            G::NotOp(_) => unary(Unary::Not),
            G::AddOp(_) => binary(Binary::Add),
            G::SubOp(_) => binary(Binary::Sub),
            G::MulOp(_) => binary(Binary::Mul),
            G::DivOp(_) => binary(Binary::Div),
            G::PowOp(_) => binary(Binary::Pow),
            G::MaxOp(_) => binary(Binary::Max),
            G::MinOp(_) => binary(Binary::Min),
            G::RemOp(_) => binary(Binary::Rem),
            G::AndOp(_) => binary(Binary::And),
            G::OrOp(_) => binary(Binary::Or),
            G::XorOp(_) => binary(Binary::Xor),
            G::ShlOp(_) => binary(Binary::Shl),
            G::ShrOp(_) => binary(Binary::Shr),
            G::ReduceSumOp(_) => reduce(Reduction::Sum),
            G::ReduceProdOp(_) => reduce(Reduction::Prod),
            G::ReduceMaxOp(_) => reduce(Reduction::Max),
            G::ReduceMinOp(_) => reduce(Reduction::Min),
            G::ReduceMeanOp(_) => reduce(Reduction::Mean),
            G::CastOp(_) => Ok(arg(0)?.cast(self.result_dtype()?)),
            G::BitcastOp(_) => arg(0)?.bitcast(self.result_dtype()?),
            G::CmpOp(_) => primitives::cmp(&self.string("predicate", None)?, arg(0)?, arg(1)?),
            G::SelectOp(_) => primitives::select(arg(0)?, arg(1)?, arg(2)?),
            G::BroadcastToOp(_) => primitives::broadcast_to(arg(0)?, &self.array("shape")?),
            G::ReshapeOp(_) => primitives::reshape(arg(0)?, &self.array("shape")?),
            G::TransposeOp(_) => primitives::transpose(arg(0)?, &self.array("perm")?),
            G::SliceOp(_) => {
                let t = arg(0)?;
                let steps = self.array_or("steps", vec![1; t.rank()])?;
                primitives::slice(t, &self.array("starts")?, &self.array("ends")?, &steps)
            }
            G::ConcatOp(_) => primitives::concat(x, self.int("axis")?),
            G::PadOp(_) => {
                let value = self.scalar_or("value", Scalar::Int(0))?;
                primitives::pad(arg(0)?, &self.array("low")?, &self.array("high")?, value)
            }
            G::GatherOp(_) => primitives::gather(arg(0)?, arg(1)?, self.int("axis")?),
            G::ArgMaxOp(_) | G::ArgMinOp(_) => primitives::arg_reduce(
                matches!(kind, G::ArgMaxOp(_)),
                arg(0)?,
                self.int("axis")?,
                self.flag("keepdim"),
            ),
            G::MatmulOp(m) => {
                let (ta, tb) = m.transposes(self.ctx);
                let a = maybe_transposed(arg(0)?, ta, "transpose_a")?;
                let b = maybe_transposed(arg(1)?, tb, "transpose_b")?;
                primitives::matmul(&a, &b)
            }
            G::ConstantOp(_) => {
                let value = self.attr("value")?;
                Literal::from_dense_attr(self.ctx, value)
            }
            G::SoftmaxOp(_) => composites::softmax(arg(0)?, self.int("axis")?),
            G::LogSoftmaxOp(_) => composites::log_softmax(arg(0)?, self.int("axis")?),
            G::LayerNormOp(_) => composites::layer_norm(
                arg(0)?,
                arg(1)?,
                arg(2)?,
                self.int("axis")?,
                self.float_or("epsilon", 1e-5)?,
            ),
            G::RmsNormOp(_) => composites::rms_norm(
                arg(0)?,
                arg(1)?,
                self.int("axis")?,
                self.float_or("epsilon", 1e-6)?,
            ),
            G::GeluOp(_) => composites::gelu(arg(0)?, &self.string("approximate", Some("none"))?),
            G::SiluOp(_) => composites::silu(arg(0)?),
            G::LinearOp(_) => composites::linear(arg(0)?, arg(1)?, x.get(2).copied()),
            G::Conv2dOp(_) => {
                let window = self.window(None)?;
                composites::conv2d(arg(0)?, arg(1)?, &window, self.int_or("groups", 1)?)
            }
            G::MaxPool2dOp(_) | G::AvgPool2dOp(_) => {
                let kernel = self.pair("kernel", None)?;
                let is_max = matches!(kind, G::MaxPool2dOp(_));
                composites::pool2d(arg(0)?, &self.window(Some(kernel))?, is_max)
            }
            G::SdpaOp(_) => {
                let scale = match self.ctx.attr(self.op, "scale") {
                    Some(_) => Some(self.float_or("scale", 1.0)?),
                    None => None,
                };
                composites::sdpa(arg(0)?, arg(1)?, arg(2)?, x.get(3).copied(), scale)
            }
            // Evaluated before this by `eval` (index operands or results, several results) or
            // by the control-flow interpreter (regions).
            G::FillOp(_)
            | G::IotaOp(_)
            | G::ReadSizeOp(_)
            | G::DimOp(_)
            | G::RnnOp(_)
            | G::FusionOp(_)
            | G::IfOp(_)
            | G::LoopOp(_)
            | G::YieldOp(_) => Err("is not evaluated as a tensor op".into()),
        }
    }

    fn operand<'t>(&self, x: &[&'t Literal], i: usize) -> Result<&'t Literal, String> {
        x.get(i)
            .copied()
            .ok_or_else(|| format!("expects an operand #{i}"))
    }

    fn arity(&self, x: &[&Literal], n: usize) -> Result<(), String> {
        if x.len() == n {
            Ok(())
        } else {
            Err(format!("expects {n} operands, got {}", x.len()))
        }
    }

    /// The window of a conv or pool: `kernel` (pools; conv takes it from the weights),
    /// `strides` (default 1 for conv, the kernel for pools), `padding` as `[t, l, b, r]` or
    /// `[h, w]` (default 0) and `dilations` (default 1).
    fn window(&self, kernel: Option<[usize; 2]>) -> Result<Window, String> {
        let strides = self.pair("strides", Some(kernel.unwrap_or([1, 1])))?;
        let padding = match self.array_or("padding", vec![0, 0, 0, 0])?.as_slice() {
            &[t, l, b, r] => [t, l, b, r],
            &[h, w] => [h, w, h, w],
            other => return Err(format!("padding {other:?} must have 4 (or 2) entries")),
        };
        let mut pads = [0; 4];
        for (pad, p) in pads.iter_mut().zip(padding) {
            *pad = usize::try_from(p).map_err(|_| format!("negative padding {p}"))?;
        }
        Ok(Window {
            kernel: kernel.unwrap_or([1, 1]),
            strides,
            padding: pads,
            dilations: self.pair("dilations", Some([1, 1]))?,
        })
    }

    fn pair(&self, name: &str, default: Option<[usize; 2]>) -> Result<[usize; 2], String> {
        let values = match (self.ctx.attr(self.op, name), default) {
            (None, Some(d)) => return Ok(d),
            _ => self.array(name)?,
        };
        match values.as_slice() {
            &[a, b] if a >= 0 && b >= 0 => Ok([a as usize, b as usize]),
            other => Err(format!(
                "'{name}' must be two non-negative sizes, got {other:?}"
            )),
        }
    }

    fn result_type(&self) -> Result<Type, String> {
        match self.ctx.num_results(self.op) {
            1 => Ok(self.ctx.value_type(self.ctx.result(self.op, 0))),
            n => Err(format!("expects one result, has {n}")),
        }
    }

    fn result_dtype(&self) -> Result<DType, String> {
        let elem = self.ctx.element_type(self.result_type()?);
        DType::from_type(self.ctx, elem).ok_or_else(|| "unsupported result element type".into())
    }

    /// `graph.fill`: the value attribute everywhere; `?` dims of the result type come from the
    /// index operands, in order.
    fn fill(&self, operands: &[RuntimeValue]) -> Eval {
        let shape = self.sized_result_shape(operands)?;
        let value = self.scalar_or("value", Scalar::Int(0))?;
        Ok(vec![RuntimeValue::Tensor(Literal::splat(
            self.result_dtype()?,
            &shape,
            value,
        ))])
    }

    /// `graph.iota` with its `?` dims from the index operands, as `graph.fill` has them.
    fn iota(&self, operands: &[RuntimeValue]) -> Eval {
        let shape = self.sized_result_shape(operands)?;
        let t = primitives::iota(self.result_dtype()?, &shape, self.int("axis")?)?;
        Ok(vec![RuntimeValue::Tensor(t)])
    }

    /// `graph.reshape` with its `?` dims (the -1 entries of `shape`) from the index operands.
    fn sized_reshape(&self, operands: &[RuntimeValue]) -> Eval {
        let Some((RuntimeValue::Tensor(x), sizes)) = operands.split_first() else {
            return Err("expects a tensor to reshape".into());
        };
        let mut sizes = sizes.iter();
        let mut target = self.array("shape")?;
        for d in target.iter_mut().filter(|d| **d == -1) {
            *d = match sizes.next() {
                Some(RuntimeValue::Index(n)) if *n >= 0 => *n,
                Some(RuntimeValue::Index(n)) => return Err(format!("negative size {n}")),
                _ => return Err("expects one index operand per -1 entry of 'shape'".into()),
            };
        }
        if sizes.next().is_some() {
            return Err("has more index operands than -1 entries of 'shape'".into());
        }
        Ok(vec![RuntimeValue::Tensor(primitives::reshape(x, &target)?)])
    }

    /// `graph.read_size`: the one element of an integer tensor, which must not be negative.
    fn read_size(&self, operands: &[RuntimeValue]) -> Eval {
        match operands {
            [RuntimeValue::Tensor(t)] if t.len() == 1 && t.dtype().is_int() => {
                let n = t.get(0).as_i64();
                // A `ui64` past `i64::MAX` is held wrapped, so it is negative here too.
                if n < 0 {
                    return Err(format!("reads a size that is negative or too large: {n}"));
                }
                Ok(vec![RuntimeValue::Index(n)])
            }
            _ => Err("expects one integer tensor of one element".into()),
        }
    }

    /// The result type's shape, each `?` dim taken from the index operands in order.
    fn sized_result_shape(&self, operands: &[RuntimeValue]) -> Result<Vec<usize>, String> {
        let ty = self.result_type()?;
        let dims = self.ctx.shape(ty).ok_or("result is not a tensor")?;
        let mut sizes = operands.iter();
        let mut shape = Vec::with_capacity(dims.len());
        for &d in dims {
            if d != DYNAMIC {
                shape.push(d as usize);
                continue;
            }
            match sizes.next() {
                Some(RuntimeValue::Index(n)) if *n >= 0 => shape.push(*n as usize),
                Some(RuntimeValue::Index(n)) => return Err(format!("negative size {n}")),
                _ => return Err("expects one index operand per dynamic dim".into()),
            }
        }
        if sizes.next().is_some() {
            return Err("has more index operands than dynamic dims".into());
        }
        check_size(&shape)?;
        Ok(shape)
    }

    fn arith_constant(&self) -> Eval {
        let value = self.attr("value")?;
        let ty = self.result_type()?;
        if matches!(self.ctx.type_kind(ty), TypeKind::Index) {
            let v = self
                .ctx
                .attr_as_int(value)
                .ok_or("expects an integer value")?;
            return Ok(vec![RuntimeValue::Index(v as i64)]);
        }
        if let AttrKind::DenseElements(_) = self.ctx.attr_kind(value) {
            return Ok(vec![RuntimeValue::Tensor(Literal::from_dense_attr(
                self.ctx, value,
            )?)]);
        }
        let dtype = DType::from_type(self.ctx, ty).ok_or("unsupported constant type")?;
        Ok(vec![RuntimeValue::Tensor(Literal::splat(
            dtype,
            &[],
            self.scalar_of(value)?,
        ))])
    }

    fn arith_binary(&self, f: Binary, operands: &[RuntimeValue]) -> Eval {
        match operands {
            [RuntimeValue::Index(a), RuntimeValue::Index(b)] => {
                let (a, b) = (
                    Literal::from_i64(DType::I64, &[], &[*a]),
                    Literal::from_i64(DType::I64, &[], &[*b]),
                );
                let r = primitives::binary(f, &a, &b)?;
                Ok(vec![RuntimeValue::Index(r.get(0).as_i64())])
            }
            [RuntimeValue::Tensor(a), RuntimeValue::Tensor(b)] => {
                Ok(vec![RuntimeValue::Tensor(primitives::binary(f, a, b)?)])
            }
            _ => Err("expects two operands of one kind".into()),
        }
    }

    fn index_cast(&self, operands: &[RuntimeValue]) -> Eval {
        match operands {
            [RuntimeValue::Index(v)] => {
                let dtype = self.result_dtype()?;
                Ok(vec![RuntimeValue::Tensor(Literal::splat(
                    dtype,
                    &[],
                    Scalar::Int(*v),
                ))])
            }
            [RuntimeValue::Tensor(t)] if t.rank() == 0 => {
                Ok(vec![RuntimeValue::Index(t.get(0).as_i64())])
            }
            _ => Err("expects one scalar operand".into()),
        }
    }

    fn attr(&self, name: &str) -> Result<Attribute, String> {
        self.ctx
            .attr(self.op, name)
            .ok_or_else(|| format!("requires attribute '{name}'"))
    }

    fn int(&self, name: &str) -> Result<i64, String> {
        let a = self.attr(name)?;
        self.ctx
            .attr_as_int(a)
            .map(|v| v as i64)
            .ok_or_else(|| format!("attribute '{name}' must be an integer"))
    }

    fn int_or(&self, name: &str, default: usize) -> Result<usize, String> {
        if self.ctx.attr(self.op, name).is_none() {
            return Ok(default);
        }
        usize::try_from(self.int(name)?)
            .map_err(|_| format!("attribute '{name}' must be non-negative"))
    }

    fn float_or(&self, name: &str, default: f64) -> Result<f64, String> {
        match self.ctx.attr(self.op, name) {
            None => Ok(default),
            Some(a) => self
                .ctx
                .attr_as_float(a)
                .or_else(|| self.ctx.attr_as_int(a).map(|v| v as f64))
                .ok_or_else(|| format!("attribute '{name}' must be a number")),
        }
    }

    /// A boolean attribute: absent is false, `unit` is true, `true`/`false` (or an integer) as
    /// written.
    fn flag(&self, name: &str) -> bool {
        self.ctx
            .attr(self.op, name)
            .is_some_and(|a| match self.ctx.attr_kind(a) {
                AttrKind::Unit => true,
                AttrKind::Integer { value, .. } => *value != 0,
                _ => false,
            })
    }

    fn string(&self, name: &str, default: Option<&str>) -> Result<String, String> {
        match (self.ctx.attr(self.op, name), default) {
            (None, Some(d)) => Ok(d.to_string()),
            _ => self
                .ctx
                .attr_as_str(self.attr(name)?)
                .map(str::to_string)
                .ok_or_else(|| format!("attribute '{name}' must be a string")),
        }
    }

    /// An `array<i64: ...>` attribute (an `[...]` array of integers is accepted too).
    fn array(&self, name: &str) -> Result<Vec<i64>, String> {
        let bad = || format!("attribute '{name}' must be an array<i64: ...>");
        match self.ctx.attr_kind(self.attr(name)?) {
            AttrKind::DenseArray { element, values }
                if self.ctx.integer_width(*element).is_some() =>
            {
                Ok(values.to_vec())
            }
            AttrKind::Array(items) => items
                .iter()
                .map(|a| self.ctx.attr_as_int(*a).map(|v| v as i64).ok_or_else(bad))
                .collect(),
            _ => Err(bad()),
        }
    }

    fn array_or(&self, name: &str, default: Vec<i64>) -> Result<Vec<i64>, String> {
        match self.ctx.attr(self.op, name) {
            None => Ok(default),
            Some(_) => self.array(name),
        }
    }

    fn scalar_or(&self, name: &str, default: Scalar) -> Result<Scalar, String> {
        match self.ctx.attr(self.op, name) {
            None => Ok(default),
            Some(a) => self.scalar_of(a),
        }
    }

    /// The value of a scalar attribute: an integer, float or bool, or a splat `dense<...>`.
    fn scalar_of(&self, attr: Attribute) -> Result<Scalar, String> {
        match self.ctx.attr_kind(attr) {
            AttrKind::Integer { value, ty } if *ty == Type::I1 => Ok(Scalar::Bool(*value != 0)),
            AttrKind::Integer { value, .. } => Ok(Scalar::Int(*value as i64)),
            AttrKind::Float { bits, .. } => Ok(Scalar::Float(f64::from_bits(*bits))),
            AttrKind::DenseElements(d) if d.splat => Ok(match self.ctx.dense_element(d, 0) {
                DenseValue::Float(v) => Scalar::Float(v),
                DenseValue::Int(v) => Scalar::Int(v as i64),
            }),
            _ => Err("expects a scalar attribute".into()),
        }
    }
}

/// `x`, with its last two dims swapped when `transposed` (the matmul flag `name`).
fn maybe_transposed(x: &Literal, transposed: bool, name: &str) -> Result<Literal, String> {
    if !transposed {
        return Ok(x.clone());
    }
    let rank = x.rank();
    if rank < 2 {
        return Err(format!("{name} needs rank >= 2"));
    }
    let mut perm: Vec<i64> = (0..rank as i64).collect();
    perm.swap(rank - 2, rank - 1);
    primitives::transpose(x, &perm)
}
