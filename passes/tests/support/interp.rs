//! A reference interpreter for func + arith programs on scalars (`i1`, `i32`, `i64`, `f32`,
//! `f64`), written for differential tests: run a program before and after a pass and compare.
//!
//! It follows the arith semantics MLIR documents: integers wrap, signed ops read the bits as
//! two's complement, floats are IEEE 754 with round-to-nearest-even. Where MLIR says the result is
//! undefined behaviour or poison (division by zero, signed division overflow, shifting by the bit
//! width or more, out-of-range `fptosi`), the interpreter returns an error instead of a value, so
//! tests can skip inputs on which a pass may legitimately change what happens.
//!
//! Functions must have a single block; `func.call` resolves callees by name in the module.

use dlc_arith::{CmpFOp, CmpFPredicate, CmpIOp, CmpIPredicate};
use dlc_ir::symbol::symbol_name;
use dlc_ir::{Context, FloatKind, Op, Value};
use rustc_hash::FxHashMap;

/// A scalar value.
#[derive(Copy, Clone, Debug)]
pub enum Scalar {
    /// An integer of `width` bits (1 to 64), kept zero-extended in `bits`.
    Int {
        width: u32,
        bits: u64,
    },
    F32(f32),
    F64(f64),
}

impl Scalar {
    /// The integer `value` truncated to `width` bits.
    pub fn int(width: u32, value: i64) -> Self {
        Scalar::Int {
            width,
            bits: (value as u64) & mask(width),
        }
    }

    /// True if both are the same value: integers bit for bit, floats bit for bit except that
    /// every NaN equals every other (passes need not keep NaN payloads).
    pub fn same(self, other: Scalar) -> bool {
        match (self, other) {
            (
                Scalar::Int {
                    width: w1,
                    bits: b1,
                },
                Scalar::Int {
                    width: w2,
                    bits: b2,
                },
            ) => w1 == w2 && b1 == b2,
            (Scalar::F32(a), Scalar::F32(b)) => {
                (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
            }
            (Scalar::F64(a), Scalar::F64(b)) => {
                (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
            }
            _ => false,
        }
    }

    fn unsigned(self) -> Result<u64, String> {
        match self {
            Scalar::Int { bits, .. } => Ok(bits),
            other => Err(format!("expected an integer, got {other:?}")),
        }
    }

    fn signed(self) -> Result<i64, String> {
        match self {
            Scalar::Int { width, bits } => Ok(sign_extend(bits, width)),
            other => Err(format!("expected an integer, got {other:?}")),
        }
    }

    fn width(self) -> u32 {
        match self {
            Scalar::Int { width, .. } => width,
            Scalar::F32(_) => 32,
            Scalar::F64(_) => 64,
        }
    }

    fn float(self) -> Result<f64, String> {
        match self {
            Scalar::F32(x) => Ok(x as f64),
            Scalar::F64(x) => Ok(x),
            other => Err(format!("expected a float, got {other:?}")),
        }
    }
}

fn mask(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

fn sign_extend(bits: u64, width: u32) -> i64 {
    let shift = 64 - width;
    ((bits << shift) as i64) >> shift
}

/// Runs the functions of one module.
pub struct Interpreter<'a> {
    ctx: &'a Context,
    functions: FxHashMap<String, Op>,
    depth: usize,
}

impl<'a> Interpreter<'a> {
    /// An interpreter for the `func.func`s directly in `module`.
    pub fn new(ctx: &'a Context, module: Op) -> Self {
        let mut functions = FxHashMap::default();
        for &region in ctx.regions(module) {
            for &block in ctx.blocks(region) {
                for op in ctx.block_ops(block) {
                    if ctx.op_name(op) == "func.func" {
                        if let Some(name) = symbol_name(ctx, op) {
                            functions.insert(name.to_string(), op);
                        }
                    }
                }
            }
        }
        Interpreter {
            ctx,
            functions,
            depth: 0,
        }
    }

    /// Calls function `name` with `args`, returning its results or why it has none.
    pub fn call(&mut self, name: &str, args: &[Scalar]) -> Result<Vec<Scalar>, String> {
        let func = *self
            .functions
            .get(name)
            .ok_or_else(|| format!("no function @{name}"))?;
        if self.depth > 64 {
            return Err("call depth limit (recursion?)".into());
        }
        self.depth += 1;
        let result = self.run(func, args);
        self.depth -= 1;
        result
    }

    fn run(&mut self, func: Op, args: &[Scalar]) -> Result<Vec<Scalar>, String> {
        let ctx = self.ctx;
        let blocks = ctx.blocks(ctx.region(func, 0));
        let [body] = blocks else {
            return Err(format!(
                "only single-block bodies are supported, got {}",
                blocks.len()
            ));
        };
        let mut env: FxHashMap<Value, Scalar> = FxHashMap::default();
        for (&arg, &value) in ctx.block_args(*body).iter().zip(args) {
            env.insert(arg, value);
        }
        for op in ctx.block_ops(*body) {
            let operands = ctx
                .operands(op)
                .iter()
                .map(|v| {
                    env.get(v)
                        .copied()
                        .ok_or_else(|| format!("{v:?} used before it has a value"))
                })
                .collect::<Result<Vec<Scalar>, String>>()?;
            match ctx.op_name(op) {
                "func.return" => return Ok(operands),
                "func.call" => {
                    let callee = ctx
                        .attr(op, "callee")
                        .and_then(|a| ctx.attr_as_symbol(a))
                        .ok_or("call without a callee")?;
                    let results = self.call(ctx.ident_str(callee), &operands)?;
                    for (r, value) in ctx.results(op).zip(results) {
                        env.insert(r, value);
                    }
                }
                _ => {
                    let value = eval(ctx, op, &operands)?;
                    env.insert(ctx.result(op, 0), value);
                }
            }
        }
        Err("the body has no func.return".into())
    }
}

/// A value of `ty` read from an integer or float attribute.
fn constant(ctx: &Context, op: Op) -> Result<Scalar, String> {
    let ty = ctx.value_type(ctx.result(op, 0));
    let attr = ctx.attr(op, "value").ok_or("constant without a value")?;
    if let Some(width) = ctx.integer_width(ty) {
        let value = ctx.attr_as_int(attr).ok_or("integer constant expected")?;
        return Ok(Scalar::int(width, value as i64));
    }
    let value = ctx.attr_as_float(attr).ok_or("float constant expected")?;
    match ctx.float_kind(ty) {
        Some(FloatKind::F32) => Ok(Scalar::F32(value as f32)),
        Some(FloatKind::F64) => Ok(Scalar::F64(value)),
        other => Err(format!("unsupported constant type {other:?}")),
    }
}

/// Evaluates a single-result arith op.
fn eval(ctx: &Context, op: Op, args: &[Scalar]) -> Result<Scalar, String> {
    let name = ctx.op_name(op);
    let result_ty = ctx.value_type(ctx.result(op, 0));
    let arg = |i: usize| args[i];
    let int = |value: u64| Scalar::int(arg(0).width(), value as i64);
    let float = |value: f64| match arg(0) {
        Scalar::F32(_) => Scalar::F32(value as f32),
        _ => Scalar::F64(value),
    };
    // f32 arithmetic is done in f32: rounding an f64 result instead would round twice.
    let float_op = |f32_op: fn(f32, f32) -> f32, f64_op: fn(f64, f64) -> f64| match (arg(0), arg(1))
    {
        (Scalar::F32(a), Scalar::F32(b)) => Ok(Scalar::F32(f32_op(a, b))),
        (Scalar::F64(a), Scalar::F64(b)) => Ok(Scalar::F64(f64_op(a, b))),
        other => Err(format!("{name}: float operands expected, got {other:?}")),
    };
    Ok(match name {
        "arith.constant" => constant(ctx, op)?,
        "arith.addi" => int(arg(0).unsigned()?.wrapping_add(arg(1).unsigned()?)),
        "arith.subi" => int(arg(0).unsigned()?.wrapping_sub(arg(1).unsigned()?)),
        "arith.muli" => int(arg(0).unsigned()?.wrapping_mul(arg(1).unsigned()?)),
        "arith.andi" => int(arg(0).unsigned()? & arg(1).unsigned()?),
        "arith.ori" => int(arg(0).unsigned()? | arg(1).unsigned()?),
        "arith.xori" => int(arg(0).unsigned()? ^ arg(1).unsigned()?),
        "arith.maxsi" => int(arg(0).signed()?.max(arg(1).signed()?) as u64),
        "arith.minsi" => int(arg(0).signed()?.min(arg(1).signed()?) as u64),
        "arith.divsi" | "arith.remsi" => {
            let (a, b) = (arg(0).signed()?, arg(1).signed()?);
            let min = sign_extend(1 << (arg(0).width() - 1), arg(0).width());
            if b == 0 || (a == min && b == -1) {
                return Err(format!("{name}: undefined behaviour ({a} by {b})"));
            }
            int(if name == "arith.divsi" { a / b } else { a % b } as u64)
        }
        "arith.maxui" => int(arg(0).unsigned()?.max(arg(1).unsigned()?)),
        "arith.minui" => int(arg(0).unsigned()?.min(arg(1).unsigned()?)),
        "arith.ceildivsi" | "arith.floordivsi" => {
            let (a, b) = (arg(0).signed()? as i128, arg(1).signed()? as i128);
            if b == 0 {
                return Err(format!("{name}: division by zero"));
            }
            // The exact quotient rounded: floor via Euclid's division adjusted for b < 0.
            let floor = if b > 0 {
                a.div_euclid(b)
            } else {
                (-a).div_euclid(-b)
            };
            let exact = floor * b == a;
            let q = if name == "arith.floordivsi" || exact {
                floor
            } else {
                floor + 1
            };
            let w = arg(0).width();
            if q != sign_extend(q as i64 as u64, w) as i128 {
                return Err(format!("{name}: undefined behaviour ({a} by {b})"));
            }
            int(q as u64)
        }
        "arith.ceildivui" => {
            let (a, b) = (arg(0).unsigned()?, arg(1).unsigned()?);
            if b == 0 {
                return Err(format!("{name}: division by zero"));
            }
            int(a / b + u64::from(a % b != 0))
        }
        "arith.divui" | "arith.remui" => {
            let (a, b) = (arg(0).unsigned()?, arg(1).unsigned()?);
            if b == 0 {
                return Err(format!("{name}: division by zero"));
            }
            int(if name == "arith.divui" { a / b } else { a % b })
        }
        "arith.shli" | "arith.shrsi" | "arith.shrui" => {
            let (a, amount) = (arg(0), arg(1).unsigned()?);
            if amount >= a.width() as u64 {
                return Err(format!("{name}: poison (shift by {amount})"));
            }
            match name {
                "arith.shli" => int(a.unsigned()? << amount),
                "arith.shrsi" => int((a.signed()? >> amount) as u64),
                _ => int(a.unsigned()? >> amount),
            }
        }
        "arith.cmpi" => {
            let predicate = CmpIOp(op).cmp_predicate(ctx).ok_or("cmpi: bad predicate")?;
            Scalar::int(1, compare_ints(predicate, arg(0), arg(1))? as i64)
        }
        "arith.select" => {
            if arg(0).unsigned()? == 1 {
                arg(1)
            } else {
                arg(2)
            }
        }
        "arith.extsi" | "arith.extui" | "arith.trunci" => {
            let width = ctx
                .integer_width(result_ty)
                .ok_or("integer result expected")?;
            let value = if name == "arith.extsi" {
                arg(0).signed()?
            } else {
                arg(0).unsigned()? as i64
            };
            Scalar::int(width, value)
        }
        "arith.sitofp" => {
            let value = arg(0).signed()?;
            match ctx.float_kind(result_ty) {
                Some(FloatKind::F32) => Scalar::F32(value as f32),
                _ => Scalar::F64(value as f64),
            }
        }
        "arith.fptosi" => {
            let width = ctx
                .integer_width(result_ty)
                .ok_or("integer result expected")?;
            let value = arg(0).float()?.trunc();
            let limit = 2f64.powi(width as i32 - 1);
            if value.is_nan() || value < -limit || value >= limit {
                return Err(format!("fptosi: poison ({value} does not fit i{width})"));
            }
            Scalar::int(width, value as i64)
        }
        "arith.bitcast" => match (arg(0), ctx.float_kind(result_ty)) {
            (Scalar::Int { bits, .. }, Some(FloatKind::F32)) => {
                Scalar::F32(f32::from_bits(bits as u32))
            }
            (Scalar::Int { bits, .. }, Some(FloatKind::F64)) => Scalar::F64(f64::from_bits(bits)),
            (Scalar::F32(x), None) => Scalar::int(32, x.to_bits() as i64),
            (Scalar::F64(x), None) => Scalar::int(64, x.to_bits() as i64),
            other => return Err(format!("bitcast: unsupported {other:?}")),
        },
        "arith.addf" => float_op(|a, b| a + b, |a, b| a + b)?,
        "arith.subf" => float_op(|a, b| a - b, |a, b| a - b)?,
        "arith.mulf" => float_op(|a, b| a * b, |a, b| a * b)?,
        "arith.divf" => float_op(|a, b| a / b, |a, b| a / b)?,
        "arith.maximumf" => float(maximum(arg(0).float()?, arg(1).float()?)),
        "arith.minimumf" => float(-maximum(-arg(0).float()?, -arg(1).float()?)),
        "arith.maxnumf" | "arith.minnumf" => {
            let (a, b) = (arg(0).float()?, arg(1).float()?);
            if a.is_nan() || b.is_nan() {
                // The generator makes no signaling NaNs: a quiet NaN loses to a number.
                float(if a.is_nan() { b } else { a })
            } else if a == b {
                // Equal values, or zeros of either sign: max prefers +0, min -0.
                let pick_negative = (name == "arith.minnumf") == a.is_sign_negative();
                float(if pick_negative { a } else { b })
            } else if (a < b) == (name == "arith.maxnumf") {
                float(b)
            } else {
                float(a)
            }
        }
        "arith.negf" => match arg(0) {
            Scalar::F32(x) => Scalar::F32(-x),
            Scalar::F64(x) => Scalar::F64(-x),
            other => return Err(format!("negf: float expected, got {other:?}")),
        },
        "arith.cmpf" => {
            let predicate = CmpFOp(op).cmp_predicate(ctx).ok_or("cmpf: bad predicate")?;
            let result = compare_floats(predicate, arg(0).float()?, arg(1).float()?);
            Scalar::int(1, result as i64)
        }
        other => return Err(format!("the interpreter does not know {other}")),
    })
}

/// IEEE 754-2019 `maximum`: NaN if either is NaN, and +0 above -0. (Exact in f64 for f32
/// inputs, since it only picks one of them.)
fn maximum(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if a == b {
        // Equal values differ only in the sign of zero: +0 wins.
        if a.is_sign_positive() {
            a
        } else {
            b
        }
    } else {
        a.max(b)
    }
}

fn compare_ints(predicate: CmpIPredicate, a: Scalar, b: Scalar) -> Result<bool, String> {
    use CmpIPredicate::*;
    let (sa, sb, ua, ub) = (a.signed()?, b.signed()?, a.unsigned()?, b.unsigned()?);
    Ok(match predicate {
        Eq => ua == ub,
        Ne => ua != ub,
        Slt => sa < sb,
        Sle => sa <= sb,
        Sgt => sa > sb,
        Sge => sa >= sb,
        Ult => ua < ub,
        Ule => ua <= ub,
        Ugt => ua > ub,
        Uge => ua >= ub,
    })
}

fn compare_floats(predicate: CmpFPredicate, a: f64, b: f64) -> bool {
    use CmpFPredicate::*;
    let unordered = a.is_nan() || b.is_nan();
    match predicate {
        AlwaysFalse => false,
        Oeq => !unordered && a == b,
        Ogt => !unordered && a > b,
        Oge => !unordered && a >= b,
        Olt => !unordered && a < b,
        Ole => !unordered && a <= b,
        One => !unordered && a != b,
        Ord => !unordered,
        Ueq => unordered || a == b,
        Ugt => unordered || a > b,
        Uge => unordered || a >= b,
        Ult => unordered || a < b,
        Ule => unordered || a <= b,
        Une => unordered || a != b,
        Uno => unordered,
        AlwaysTrue => true,
    }
}
