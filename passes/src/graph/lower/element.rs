//! The meaning of one element of a graph op, as scalar `arith` and `math` ops: what `lower`
//! puts inside a schedule block once the operands of that element have been loaded.
//!
//! Each rule matches the graph interpreter (`dlc_graph::interp`) bit for bit where the scalar
//! ops allow it, so the loop interpreter on lowered code agrees with the graph interpreter on
//! the original: `relu` keeps NaN, `max`/`min` propagate NaN, `round` is half to even, a float
//! to integer cast saturates and sends NaN to 0, `i1` values reduce and compare as 0/1.

use dlc_arith::{build_op, fastmath_attr, CmpFPredicate, CmpIPredicate, FastMathFlags};
use dlc_graph::GraphOps;
use dlc_graph::GraphOps as G;
use dlc_ir::{
    AttrKind, Context, DenseValue, FloatKind, InsertPoint, Location, OpSpec, Type, Value,
};

/// Where new scalar ops go: an insertion point and the location they carry.
#[derive(Copy, Clone)]
pub(super) struct Emit {
    pub at: InsertPoint,
    pub loc: Location,
}

impl Emit {
    /// `arith.<name>` with one result of type `ty`.
    pub fn arith(self, ctx: &mut Context, name: &str, operands: &[Value], ty: Type) -> Value {
        let op = build_op(
            ctx,
            self.at,
            &format!("arith.{name}"),
            operands,
            ty,
            self.loc,
        );
        ctx.result(op, 0)
    }

    /// `math.<name>` on one float type.
    pub fn math(self, ctx: &mut Context, name: &str, operands: &[Value]) -> Value {
        let ty = ctx.value_type(operands[0]);
        let flags = fastmath_attr(ctx, FastMathFlags::default());
        let spec = OpSpec::new(ctx, &format!("math.{name}"), self.loc)
            .operands(operands)
            .attr(ctx, "fastmath", flags)
            .results(&[ty]);
        let op = ctx.build(self.at, spec);
        ctx.result(op, 0)
    }

    /// An `arith.constant` of scalar type `ty` (float, integer, `i1` or `index`).
    pub fn constant(self, ctx: &mut Context, value: DenseValue, ty: Type) -> Value {
        let attr = match (value, ctx.float_kind(ty)) {
            (DenseValue::Float(f), Some(_)) => ctx.float_attr(f, ty),
            (DenseValue::Int(i), Some(_)) => ctx.float_attr(i as f64, ty),
            (DenseValue::Int(i), None) => ctx.integer_attr(i, ty),
            (DenseValue::Float(f), None) => ctx.integer_attr(f as i128, ty),
        };
        let op = dlc_arith::build_constant(ctx, self.at, attr, ty, self.loc);
        ctx.result(op, 0)
    }

    /// A float constant.
    pub fn float(self, ctx: &mut Context, value: f64, ty: Type) -> Value {
        self.constant(ctx, DenseValue::Float(value), ty)
    }

    /// An integer (or `i1`, or `index`) constant.
    pub fn int(self, ctx: &mut Context, value: i64, ty: Type) -> Value {
        self.constant(ctx, DenseValue::Int(value.into()), ty)
    }

    /// `arith.cmpf`.
    pub fn cmpf(self, ctx: &mut Context, pred: CmpFPredicate, a: Value, b: Value) -> Value {
        let op = dlc_arith::build_cmpf(ctx, self.at, pred, a, b, self.loc);
        ctx.result(op, 0)
    }

    /// `arith.cmpi`.
    pub fn cmpi(self, ctx: &mut Context, pred: CmpIPredicate, a: Value, b: Value) -> Value {
        let op = dlc_arith::build_cmpi(ctx, self.at, pred, a, b, self.loc);
        ctx.result(op, 0)
    }

    /// `arith.select`.
    pub fn select(self, ctx: &mut Context, cond: Value, a: Value, b: Value) -> Value {
        let op = dlc_arith::build_select(ctx, self.at, cond, a, b, self.loc);
        ctx.result(op, 0)
    }
}

/// The element class of a scalar type, which picks the arith op of each graph op.
#[derive(Copy, Clone, PartialEq, Eq)]
pub(super) enum Class {
    Float,
    Int,
    Bool,
}

pub(super) fn class(ctx: &Context, ty: Type) -> Class {
    if ctx.float_kind(ty).is_some() {
        Class::Float
    } else if ty == Type::I1 {
        Class::Bool
    } else {
        Class::Int
    }
}

/// Which of an elementwise op's graph element types are unsigned integers: the operands'
/// (the type it computes in) and the result's. Loop code holds integers signless, so the
/// graph type is what picks `divui`, `cmpi ult`, `uitofp`, ...
#[derive(Copy, Clone, Default)]
pub(super) struct Signs {
    pub operand: bool,
    pub result: bool,
}

/// Emits one element of elementwise graph op `op` (`graph.add`, `graph.exp`, `graph.cast`,
/// ...) from its operand elements `args`; `result` is the (signless) result element type with
/// the signedness of the graph types, and `predicate` the `cmp` predicate. Errors name what has
/// no scalar form.
pub(super) fn elementwise(
    ctx: &mut Context,
    e: Emit,
    op: GraphOps,
    args: &[Value],
    (result, signs): (Type, Signs),
    predicate: Option<&str>,
) -> Result<Value, String> {
    let ty = ctx.value_type(args[0]);
    let cls = class(ctx, ty);
    let unsigned = signs.operand;
    Ok(match (op, args) {
        (G::BroadcastToOp(_), [x]) => *x,
        (G::CastOp(_), [x]) => cast(ctx, e, *x, result, signs),
        // Loop code holds integers signless, so a signedness change is no op at all.
        (G::BitcastOp(_), [x]) if ty == result => *x,
        (G::BitcastOp(_), [x]) => e.arith(ctx, "bitcast", &[*x], result),
        (G::SelectOp(_), [c, a, b]) => e.select(ctx, *c, *a, *b),
        (G::CmpOp(_), [a, b]) => compare(ctx, e, predicate.unwrap_or("eq"), *a, *b, unsigned)?,
        (_, [x]) => unary(ctx, e, op, *x, cls, unsigned)?,
        (_, [a, b]) => binary(ctx, e, op, *a, *b, cls, unsigned)?,
        _ => return Err(format!("'{}' has no scalar form", ctx.op_name(op.op()))),
    })
}

/// The `math` op (its name after `math.`) computing unary graph op `op` on floats as it is.
fn math_form(op: GraphOps) -> Option<&'static str> {
    Some(match op {
        G::ExpOp(_) => "exp",
        G::LogOp(_) => "log",
        G::SqrtOp(_) => "sqrt",
        G::RsqrtOp(_) => "rsqrt",
        G::TanhOp(_) => "tanh",
        G::ErfOp(_) => "erf",
        G::SinOp(_) => "sin",
        G::CosOp(_) => "cos",
        G::FloorOp(_) => "floor",
        G::CeilOp(_) => "ceil",
        G::RoundOp(_) => "roundeven",
        _ => return None,
    })
}

fn unary(
    ctx: &mut Context,
    e: Emit,
    op: GraphOps,
    x: Value,
    cls: Class,
    unsigned: bool,
) -> Result<Value, String> {
    let ty = ctx.value_type(x);
    if let Some(name) = math_form(op) {
        return Ok(e.math(ctx, name, &[x]));
    }
    Ok(match (op, cls) {
        (G::AbsOp(_) | G::ReluOp(_), Class::Int) if unsigned => x,
        (G::SignOp(_), Class::Int) if unsigned => {
            let zero = e.int(ctx, 0, ty);
            let nonzero = e.cmpi(ctx, CmpIPredicate::Ne, x, zero);
            e.arith(ctx, "extui", &[nonzero], ty)
        }
        (G::AbsOp(_), Class::Float) => e.math(ctx, "absf", &[x]),
        (G::ReciprocalOp(_), _) => {
            let one = e.float(ctx, 1.0, ty);
            e.arith(ctx, "divf", &[one, x], ty)
        }
        (G::SigmoidOp(_), _) => {
            // 1 / (1 + exp(-x)), as the graph interpreter computes it.
            let neg = e.arith(ctx, "negf", &[x], ty);
            let exp = e.math(ctx, "exp", &[neg]);
            let one = e.float(ctx, 1.0, ty);
            let den = e.arith(ctx, "addf", &[one, exp], ty);
            e.arith(ctx, "divf", &[one, den], ty)
        }
        (G::NegOp(_), Class::Float) => e.arith(ctx, "negf", &[x], ty),
        (G::NegOp(_), Class::Int) => {
            let zero = e.int(ctx, 0, ty);
            e.arith(ctx, "subi", &[zero, x], ty)
        }
        (G::AbsOp(_), Class::Int) => {
            let zero = e.int(ctx, 0, ty);
            let neg = e.arith(ctx, "subi", &[zero, x], ty);
            let is_neg = e.cmpi(ctx, CmpIPredicate::Slt, x, zero);
            e.select(ctx, is_neg, neg, x)
        }
        (G::ReluOp(_), Class::Float) => {
            // NaN stays NaN: `ugt` is true for unordered operands.
            let zero = e.float(ctx, 0.0, ty);
            let keep = e.cmpf(ctx, CmpFPredicate::Ugt, x, zero);
            e.select(ctx, keep, x, zero)
        }
        (G::ReluOp(_), Class::Int) => {
            let zero = e.int(ctx, 0, ty);
            e.arith(ctx, "maxsi", &[x, zero], ty)
        }
        (G::SignOp(_), Class::Float) => {
            // ±1, and 0, -0 and NaN map to themselves.
            let zero = e.float(ctx, 0.0, ty);
            let (one, minus) = (e.float(ctx, 1.0, ty), e.float(ctx, -1.0, ty));
            let pos = e.cmpf(ctx, CmpFPredicate::Ogt, x, zero);
            let neg = e.cmpf(ctx, CmpFPredicate::Olt, x, zero);
            let low = e.select(ctx, neg, minus, x);
            e.select(ctx, pos, one, low)
        }
        (G::SignOp(_), Class::Int) => {
            let zero = e.int(ctx, 0, ty);
            let (one, minus) = (e.int(ctx, 1, ty), e.int(ctx, -1, ty));
            let pos = e.cmpi(ctx, CmpIPredicate::Sgt, x, zero);
            let neg = e.cmpi(ctx, CmpIPredicate::Slt, x, zero);
            let low = e.select(ctx, neg, minus, zero);
            e.select(ctx, pos, one, low)
        }
        (G::NotOp(_), Class::Bool | Class::Int) => {
            let ones = e.int(ctx, -1, ty);
            e.arith(ctx, "xori", &[x, ones], ty)
        }
        _ => return Err(no_scalar_form(ctx, op)),
    })
}

/// The error for an elementwise op without a scalar form for its operands' dtype.
fn no_scalar_form(ctx: &Context, op: GraphOps) -> String {
    format!(
        "'{}' has no scalar form for this dtype",
        ctx.op_name(op.op())
    )
}

fn binary(
    ctx: &mut Context,
    e: Emit,
    op: GraphOps,
    a: Value,
    b: Value,
    cls: Class,
    unsigned: bool,
) -> Result<Value, String> {
    let ty = ctx.value_type(a);
    if let (G::PowOp(_), Class::Float) = (op, cls) {
        if let Some(n) = small_integer_exponent(ctx, b) {
            let square = e.arith(ctx, "mulf", &[a, a], ty);
            return Ok(match n {
                2 => square,
                _ => e.arith(ctx, "mulf", &[square, a], ty),
            });
        }
    }
    let arith = match (op, cls) {
        (G::AddOp(_), Class::Float) => "addf",
        (G::SubOp(_), Class::Float) => "subf",
        (G::MulOp(_), Class::Float) => "mulf",
        (G::DivOp(_), Class::Float) => "divf",
        (G::RemOp(_), Class::Float) => "remf",
        (G::MaxOp(_), Class::Float) => "maximumf",
        (G::MinOp(_), Class::Float) => "minimumf",
        (G::PowOp(_), Class::Float) => return Ok(e.math(ctx, "powf", &[a, b])),
        (G::PowOp(_), Class::Int) => return Ok(int_pow(ctx, e, a, b, unsigned)),
        (G::AddOp(_), Class::Int) => "addi",
        (G::SubOp(_), Class::Int) => "subi",
        (G::MulOp(_), Class::Int) => "muli",
        (G::DivOp(_), Class::Int) if unsigned => "divui",
        (G::RemOp(_), Class::Int) if unsigned => "remui",
        (G::MaxOp(_), Class::Int) if unsigned => "maxui",
        (G::MinOp(_), Class::Int) if unsigned => "minui",
        (G::DivOp(_), Class::Int) => "divsi",
        (G::RemOp(_), Class::Int) => "remsi",
        (G::MaxOp(_), Class::Int) => "maxsi",
        (G::MinOp(_), Class::Int) => "minsi",
        (G::AndOp(_) | G::MinOp(_), Class::Int | Class::Bool) => "andi",
        (G::OrOp(_) | G::MaxOp(_), Class::Int | Class::Bool) => "ori",
        (G::XorOp(_), Class::Int | Class::Bool) => "xori",
        (G::ShlOp(_) | G::ShrOp(_), Class::Int) => return Ok(shift(ctx, e, op, a, b, unsigned)),
        _ => return Err(no_scalar_form(ctx, op)),
    };
    Ok(e.arith(ctx, arith, &[a, b], ty))
}

/// The exponent 2 or 3 when `v` is a scalar float constant equal to it. Such a power is
/// lowered as `x * x` or `x * x * x`: the square is the correctly rounded value that `powf`
/// (its expansion by `exp` and `log`, about 30 ulp off and a hundred instructions) only
/// approximates, the cube is off by at most two roundings, and both give `powf`'s NaN,
/// infinity and signed-zero results. They are the exponents of squares in norms and spectra
/// (T5's RMS norm, Silero's STFT magnitudes) and of the tanh form of GELU.
fn small_integer_exponent(ctx: &Context, v: Value) -> Option<u8> {
    let c = ctx.attr_as_float(ctx.constant_value(v)?)?;
    [2u8, 3].into_iter().find(|&n| c == f64::from(n))
}

/// Integer `graph.pow` of one element: square-and-multiply over every bit of the exponent
/// (one step per bit of the width, products wrapping as the interpreter's do). A negative
/// signed exponent, which the graph interpreter refuses, gives the truncated real power: 1 for
/// a base of 1, ±1 for −1 (by the exponent's parity), 0 otherwise.
fn int_pow(ctx: &mut Context, e: Emit, x: Value, n: Value, unsigned: bool) -> Value {
    let ty = ctx.value_type(x);
    let width = ctx.integer_width(ty).unwrap_or(64);
    let (zero, one) = (e.int(ctx, 0, ty), e.int(ctx, 1, ty));
    let (mut acc, mut base, mut exp) = (one, x, n);
    for _ in 0..width {
        let bit = e.arith(ctx, "andi", &[exp, one], ty);
        let odd = e.cmpi(ctx, CmpIPredicate::Ne, bit, zero);
        let product = e.arith(ctx, "muli", &[acc, base], ty);
        acc = e.select(ctx, odd, product, acc);
        base = e.arith(ctx, "muli", &[base, base], ty);
        exp = e.arith(ctx, "shrui", &[exp, one], ty);
    }
    if unsigned {
        return acc;
    }
    let minus_one = e.int(ctx, -1, ty);
    let negative = e.cmpi(ctx, CmpIPredicate::Slt, n, zero);
    let parity = e.arith(ctx, "andi", &[n, one], ty);
    let odd = e.cmpi(ctx, CmpIPredicate::Ne, parity, zero);
    let of_minus_one = e.select(ctx, odd, minus_one, one);
    let is_one = e.cmpi(ctx, CmpIPredicate::Eq, x, one);
    let is_minus_one = e.cmpi(ctx, CmpIPredicate::Eq, x, minus_one);
    let small = e.select(ctx, is_minus_one, of_minus_one, zero);
    let truncated = e.select(ctx, is_one, one, small);
    e.select(ctx, negative, truncated, acc)
}

/// `graph.shl`/`graph.shr` of one element. LLVM's shifts by the width or more are poison, so
/// the amount is checked as the graph op defines it: a left or logical right shift by an
/// amount outside `[0, width)` (unsigned compare) gives 0, an arithmetic right shift clamps it
/// to `width − 1` (all sign bits).
fn shift(
    ctx: &mut Context,
    e: Emit,
    op: GraphOps,
    x: Value,
    amount: Value,
    unsigned: bool,
) -> Value {
    let ty = ctx.value_type(x);
    let width = ctx.integer_width(ty).unwrap_or(64);
    let last = e.int(ctx, i64::from(width) - 1, ty);
    if matches!(op, G::ShrOp(_)) && !unsigned {
        let amount = e.arith(ctx, "minui", &[amount, last], ty);
        return e.arith(ctx, "shrsi", &[x, amount], ty);
    }
    let in_range = e.cmpi(ctx, CmpIPredicate::Ule, amount, last);
    let safe = e.arith(ctx, "minui", &[amount, last], ty);
    let name = if matches!(op, G::ShlOp(_)) {
        "shli"
    } else {
        "shrui"
    };
    let shifted = e.arith(ctx, name, &[x, safe], ty);
    let zero = e.int(ctx, 0, ty);
    e.select(ctx, in_range, shifted, zero)
}

/// `graph.cmp`: floats compare ordered (NaN is unequal to everything, `ne` holds), integers
/// signed or (`unsigned`) unsigned, `i1` as 0/1.
fn compare(
    ctx: &mut Context,
    e: Emit,
    pred: &str,
    a: Value,
    b: Value,
    unsigned: bool,
) -> Result<Value, String> {
    let ty = ctx.value_type(a);
    Ok(match class(ctx, ty) {
        Class::Float => {
            let p = match pred {
                "eq" => CmpFPredicate::Oeq,
                "ne" => CmpFPredicate::Une,
                "lt" => CmpFPredicate::Olt,
                "le" => CmpFPredicate::Ole,
                "gt" => CmpFPredicate::Ogt,
                "ge" => CmpFPredicate::Oge,
                _ => return Err(format!("unknown predicate '{pred}'")),
            };
            e.cmpf(ctx, p, a, b)
        }
        cls => {
            let signed = cls == Class::Int && !unsigned;
            let p = match (pred, signed) {
                ("eq", _) => CmpIPredicate::Eq,
                ("ne", _) => CmpIPredicate::Ne,
                ("lt", true) => CmpIPredicate::Slt,
                ("le", true) => CmpIPredicate::Sle,
                ("gt", true) => CmpIPredicate::Sgt,
                ("ge", true) => CmpIPredicate::Sge,
                ("lt", false) => CmpIPredicate::Ult,
                ("le", false) => CmpIPredicate::Ule,
                ("gt", false) => CmpIPredicate::Ugt,
                ("ge", false) => CmpIPredicate::Uge,
                _ => return Err(format!("unknown predicate '{pred}'")),
            };
            e.cmpi(ctx, p, a, b)
        }
    })
}

/// `graph.cast` of element `x` to type `to`: to `i1` is `!= 0`; from `i1` is 0/1; floats round;
/// integers convert by the signedness `signs` gives (the source's for widening and to floats);
/// float to integer truncates, saturates at the target's range and maps NaN to 0 (Rust's
/// `as`).
pub(super) fn cast(ctx: &mut Context, e: Emit, x: Value, to: Type, signs: Signs) -> Value {
    let from = ctx.value_type(x);
    if from == to {
        return x;
    }
    match (class(ctx, from), class(ctx, to)) {
        (Class::Float, Class::Bool) => {
            let zero = e.float(ctx, 0.0, from);
            e.cmpf(ctx, CmpFPredicate::Une, x, zero)
        }
        (_, Class::Bool) => {
            let zero = e.int(ctx, 0, from);
            e.cmpi(ctx, CmpIPredicate::Ne, x, zero)
        }
        (Class::Bool, Class::Float) => {
            let (one, zero) = (e.float(ctx, 1.0, to), e.float(ctx, 0.0, to));
            e.select(ctx, x, one, zero)
        }
        (Class::Bool, _) => e.arith(ctx, "extui", &[x], to),
        (Class::Int, Class::Float) if signs.operand => e.arith(ctx, "uitofp", &[x], to),
        (Class::Int, Class::Float) => e.arith(ctx, "sitofp", &[x], to),
        (Class::Float, Class::Float) => {
            let wider = float_bits(ctx, to) > float_bits(ctx, from);
            e.arith(ctx, if wider { "extf" } else { "truncf" }, &[x], to)
        }
        (Class::Int, Class::Int) => {
            let wider = ctx.integer_width(to) > ctx.integer_width(from);
            let name = match (wider, signs.operand) {
                (false, _) => "trunci",
                (true, true) => "extui",
                (true, false) => "extsi",
            };
            e.arith(ctx, name, &[x], to)
        }
        (Class::Float, Class::Int) => {
            let width = ctx.integer_width(to).unwrap_or(64);
            let kind = ctx.float_kind(from).unwrap_or(FloatKind::F32);
            let (lo, hi, limit) = int_range_in(kind, width, signs.result);
            let zero = e.float(ctx, 0.0, from);
            let nan = e.cmpf(ctx, CmpFPredicate::Uno, x, x);
            let finite = e.select(ctx, nan, zero, x);
            let (lo, hi) = (e.float(ctx, lo, from), e.float(ctx, hi, from));
            let above = e.arith(ctx, "maximumf", &[finite, lo], from);
            let clamped = e.arith(ctx, "minimumf", &[above, hi], from);
            let name = if signs.result { "fptoui" } else { "fptosi" };
            let converted = e.arith(ctx, name, &[clamped], to);
            match limit {
                // At or above 2^top the result saturates to the largest integer.
                Some(limit) => {
                    let limit = e.float(ctx, limit, from);
                    let over = e.cmpf(ctx, CmpFPredicate::Oge, x, limit);
                    // All ones is the unsigned maximum.
                    let max = if signs.result {
                        -1
                    } else {
                        (1i128 << (width - 1)) - 1
                    };
                    let max = e.constant(ctx, DenseValue::Int(max), to);
                    e.select(ctx, over, max, converted)
                }
                None => converted,
            }
        }
    }
}

/// How a float of format `kind` converts to a `width`-bit integer (unsigned or signed): the
/// smallest and largest values of the format inside the integer's range, which a float is
/// clamped to so the conversion itself never overflows, and the power of two `2^top` from which
/// the result saturates to the largest integer (`None` when the format cannot reach it).
fn int_range_in(kind: FloatKind, width: u32, unsigned: bool) -> (f64, f64, Option<f64>) {
    let top = if unsigned { width } else { width - 1 };
    let precision = kind.mantissa_bits() + 1;
    // Below 2^top the floats are spaced 2^(top − precision) apart; 2^top − 1 itself is exact
    // when the format holds every integer that large.
    let hi = if top <= precision {
        2f64.powi(top as i32) - 1.0
    } else {
        2f64.powi(top as i32) - 2f64.powi((top - precision) as i32)
    };
    let max = (2.0 - 2f64.powi(-(kind.mantissa_bits() as i32))) * 2f64.powi(kind.max_exponent());
    let lo = if unsigned {
        0.0
    } else {
        -(2f64.powi(top as i32))
    };
    let limit = 2f64.powi(top as i32);
    (lo.max(-max), hi.min(max), (limit <= max).then_some(limit))
}

fn float_bits(ctx: &Context, ty: Type) -> u32 {
    ctx.float_kind(ty).map_or(0, |k| k.width())
}

/// A slice bound `b` (an `index`) resolved against dim `d` as the shape rule does:
/// `b < 0 ? b + d : b`, clamped to `[0, d]`.
pub(super) fn slice_bound(ctx: &mut Context, e: Emit, b: Value, d: Value, zero: Value) -> Value {
    let shifted = e.arith(ctx, "addi", &[b, d], Type::INDEX);
    let negative = e.cmpi(ctx, CmpIPredicate::Slt, b, zero);
    let v = e.select(ctx, negative, shifted, b);
    let v = e.arith(ctx, "maxsi", &[v, zero], Type::INDEX);
    e.arith(ctx, "minsi", &[v, d], Type::INDEX)
}

/// The string attribute `name` of `op`, if present.
pub(super) fn str_attr<'c>(ctx: &'c Context, op: dlc_ir::Op, name: &str) -> Option<&'c str> {
    ctx.attr(op, name).and_then(|a| ctx.attr_as_str(a))
}

/// The value of a scalar attribute (`value` of `fill`/`pad`) as a dense value.
pub(super) fn scalar_attr(ctx: &Context, op: dlc_ir::Op, name: &str) -> Option<DenseValue> {
    match ctx.attr_kind(ctx.attr(op, name)?) {
        AttrKind::Integer { value, .. } => Some(DenseValue::Int(*value)),
        AttrKind::Float { bits, .. } => Some(DenseValue::Float(f64::from_bits(*bits))),
        AttrKind::DenseElements(d) if d.splat => Some(ctx.dense_element(d, 0)),
        _ => None,
    }
}
