//! A small `math` dialect with MLIR's names and syntax: `%y = math.exp %x : f32`,
//! `%y = math.powf %a, %b : f32`, `%y = math.fma %a, %b, %c : f32`. Every op is pure and takes
//! and returns one float type (scalar, vector or tensor of floats).

use dlc_arith::{fastmath_attr, fastmath_flags_of, FastMathFlags};
use dlc_ir::parser::lexer::Tok;
use dlc_ir::{
    op_error, Context, Diagnostic, Dialect, Op, OpSpec, PResult, Parser, Printer, Traits,
};

/// Declares the math ops, which differ only in name, summary and operands.
macro_rules! math_ops {
    ($($(#[doc = $doc:literal])* $name:ident = $opname:literal, $operands:tt;)*) => {
        $(dlc_ir::define_op! {
            $(#[doc = $doc])*
            pub struct $name = $opname;
            traits = Traits::PURE.union(Traits::SAME_OPERANDS_AND_RESULT_TYPE);
            operands = $operands;
            results = [result];
            attributes = [fastmath];
            verify = verify;
            parse = parse;
            print = print;
        })*
    };
}

math_ops! {
    /// Base-e exponential.
    ExpOp = "math.exp", [operand];
    /// Natural logarithm.
    LogOp = "math.log", [operand];
    /// Hyperbolic tangent.
    TanhOp = "math.tanh", [operand];
    /// Error function.
    ErfOp = "math.erf", [operand];
    /// Square root.
    SqrtOp = "math.sqrt", [operand];
    /// Reciprocal square root.
    RsqrtOp = "math.rsqrt", [operand];
    /// Sine.
    SinOp = "math.sin", [operand];
    /// Cosine.
    CosOp = "math.cos", [operand];
    /// Round toward negative infinity.
    FloorOp = "math.floor", [operand];
    /// Round toward positive infinity.
    CeilOp = "math.ceil", [operand];
    /// Round to nearest, ties away from zero.
    RoundOp = "math.round", [operand];
    /// Round to nearest, ties to even.
    RoundEvenOp = "math.roundeven", [operand];
    /// Absolute value.
    AbsFOp = "math.absf", [operand];
    /// `lhs` raised to the power `rhs`.
    PowFOp = "math.powf", [lhs, rhs];
    /// Fused multiply-add `a * b + c`.
    FmaOp = "math.fma", [a, b, c];
}

dlc_ir::op_set! {
    /// Every op of the math dialect: `MathOps::of(ctx, op)` to dispatch on the kind of a math
    /// op without comparing names.
    pub enum MathOps {
        ExpOp,
        LogOp,
        TanhOp,
        ErfOp,
        SqrtOp,
        RsqrtOp,
        SinOp,
        CosOp,
        FloorOp,
        CeilOp,
        RoundOp,
        RoundEvenOp,
        AbsFOp,
        PowFOp,
        FmaOp,
    }
}

/// A scalar op: one of `arith` or of `math`, the ops the loop interpreter evaluates and the
/// code generators lower one value at a time.
#[derive(Copy, Clone, Debug)]
pub enum ScalarOp {
    Arith(dlc_arith::ArithOps),
    Math(MathOps),
}

impl ScalarOp {
    /// `op` as an `arith` or `math` op, `None` for an op of another dialect.
    pub fn of(ctx: &Context, op: Op) -> Option<Self> {
        dlc_arith::ArithOps::of(ctx, op)
            .map(ScalarOp::Arith)
            .or_else(|| MathOps::of(ctx, op).map(ScalarOp::Math))
    }

    /// The underlying op.
    pub fn op(self) -> Op {
        match self {
            ScalarOp::Arith(a) => a.op(),
            ScalarOp::Math(m) => m.op(),
        }
    }
}

/// The `math` dialect, ready for [`Context::register_dialect`].
pub fn math_dialect() -> Dialect {
    Dialect::new("math", MathOps::defs())
}

/// `%a, %b attr-dict : type`.
fn parse(p: &mut Parser<'_>, spec: &mut OpSpec) -> PResult<()> {
    let loc = p.current_loc();
    let operands = p.parse_operand_list()?;
    // As in MLIR, `fastmath` is always present and defaults to `#arith.fastmath<none>`.
    let flags = if p.consume_keyword("fastmath") {
        parse_fastmath_body(p)?
    } else {
        FastMathFlags::empty()
    };
    let attr = fastmath_attr(p.ctx(), flags);
    spec.set_attr(p.ctx(), "fastmath", attr);
    p.parse_optional_attr_dict(&mut spec.attrs)?;
    p.expect(Tok::Colon, "':'")?;
    let ty = p.parse_type()?;
    let types = vec![ty; operands.len()];
    spec.operands
        .extend(p.resolve_operands(&operands, &types, loc)?);
    spec.result_types.push(ty);
    Ok(())
}

fn print(p: &mut Printer<'_>, op: Op) {
    let ctx = p.ctx();
    p.write(" ");
    p.print_operands(ctx.operands(op));
    let flags = ctx
        .attr(op, "fastmath")
        .and_then(|a| fastmath_flags_of(ctx, a));
    match flags {
        Some(f) if !f.is_empty() => {
            p.write(" fastmath<");
            p.write(&f.keyword_list());
            p.write(">");
        }
        _ => {}
    }
    let elided: &[&str] = if flags.is_some() { &["fastmath"] } else { &[] };
    p.print_optional_attr_dict(op, elided);
    p.write(" : ");
    p.print_type(ctx.value_type(ctx.result(op, 0)));
}

fn verify(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let ty = ctx.value_type(ctx.result(op, 0));
    if ctx.float_kind(ctx.element_type(ty)).is_none() {
        return Err(op_error(
            ctx,
            op,
            format!(
                "operand #0 must be floating-point-like, but got '{}'",
                Printer::new(ctx).type_to_string(ty)
            ),
        ));
    }
    Ok(())
}

/// Parses `<nnan,ninf>` / `<fast>` / `<none>` after the `fastmath` keyword.
fn parse_fastmath_body(p: &mut Parser<'_>) -> PResult<FastMathFlags> {
    const WORDS: [(&str, u32); 9] = [
        ("none", 0),
        ("fast", 127),
        ("reassoc", 1),
        ("nnan", 2),
        ("ninf", 4),
        ("nsz", 8),
        ("arcp", 16),
        ("contract", 32),
        ("afn", 64),
    ];
    p.expect(Tok::Less, "'<'")?;
    let mut bits = 0;
    p.parse_comma_separated(|p| {
        let loc = p.current_loc();
        let word = p.parse_keyword("fastmath flag")?;
        let (_, b) = WORDS
            .iter()
            .find(|(w, _)| *w == word)
            .ok_or_else(|| Diagnostic::error(loc, format!("unknown fastmath flag '{word}'")))?;
        bits |= b;
        Ok(())
    })?;
    p.expect(Tok::Greater, "'>'")?;
    Ok(FastMathFlags::from_bits_truncate(bits))
}
