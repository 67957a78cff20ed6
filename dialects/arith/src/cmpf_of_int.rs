//! `CmpFIntToFPConst`: a float comparison of a converted integer with a float constant,
//! `cmpf(sitofp x, c)` or `cmpf(uitofp x, c)`, becomes an integer comparison of `x` (or a
//! constant `true`/`false`), as MLIR's arith canonicalization (after InstCombine) does.
//!
//! The rewrite is exact. A conversion can round only when the integer is wider than the float's
//! significand; then the constant must be out of the range where rounding could change the
//! answer (its exponent below the significand's width or above the integer's). A constant
//! beyond the integer's range decides the comparison alone; a fractional one moves to its
//! integer part with the predicate adjusted (`x < 4.4` is `x <= 4`); an `ord` comparison is true
//! and `uno` false, since a converted integer is never NaN. NaN constants, vector operands and
//! constants whose integer part does not fit the integer type are left alone, as in MLIR.

use crate::attrs::{predicate_attr, CmpFPredicate, CmpIPredicate, PREDICATE};
use crate::builders::{constant_spec, spec_with_defaults};
use crate::fold::defined_by;
use crate::ops::{CmpFOp, CmpIOp, SIToFPOp, UIToFPOp};
use dlc_ir::rewrite::{RewritePattern, Rewriter};
use dlc_ir::{AttrKind, Context, Op, OpView, Type, TypeKind, Value};

/// The pattern (see the module documentation).
pub(crate) struct CmpFIntToFPConst;

impl RewritePattern for CmpFIntToFPConst {
    fn name(&self) -> &str {
        "CmpFIntToFPConst"
    }

    fn root(&self) -> Option<&'static str> {
        Some(CmpFOp::NAME)
    }

    fn match_and_rewrite(&self, op: Op, rw: &mut Rewriter<'_>) -> bool {
        let Some(rewrite) = plan(rw.ctx(), op) else {
            return false;
        };
        let ctx = rw.ctx_mut();
        let loc = ctx.op_loc(op);
        match rewrite {
            Rewrite::Constant(value) => {
                let attr = ctx.integer_attr(i128::from(value), Type::I1);
                let spec = constant_spec(ctx, attr, Type::I1, loc);
                rw.replace_op_with_new(op, spec);
            }
            Rewrite::CmpI { pred, x, rhs } => {
                let ty = ctx.value_type(x);
                let attr = ctx.integer_attr(rhs, ty);
                let spec = constant_spec(ctx, attr, ty, loc);
                let c = rw.create(spec);
                let c = rw.ctx().result(c, 0);
                let ctx = rw.ctx_mut();
                let pred = predicate_attr(ctx, pred as i64);
                let spec = spec_with_defaults::<CmpIOp>(ctx, loc)
                    .operands(&[x, c])
                    .results(&[Type::I1])
                    .attr(ctx, PREDICATE, pred);
                rw.replace_op_with_new(op, spec);
            }
        }
        true
    }
}

/// What the comparison becomes.
enum Rewrite {
    Constant(bool),
    CmpI {
        pred: CmpIPredicate,
        x: Value,
        rhs: i128,
    },
}

/// `ilogb` of a finite non-zero `v`: the exponent of its leading bit.
fn ilogb(v: f64) -> i32 {
    let bits = v.abs().to_bits();
    let exponent = (bits >> 52) as i32;
    if exponent == 0 {
        // Subnormal: the leading bit of the 52-bit fraction sets the exponent.
        (63 - bits.leading_zeros() as i32) - 1074
    } else {
        exponent - 1023
    }
}

/// The integer predicate of a float predicate; `None` for `false`, `true`, `ord` and `uno`.
fn integer_predicate(pred: CmpFPredicate, unsigned: bool) -> Option<CmpIPredicate> {
    use CmpFPredicate as F;
    use CmpIPredicate as I;
    let pick = |s: I, u: I| if unsigned { u } else { s };
    Some(match pred {
        F::Oeq | F::Ueq => I::Eq,
        F::One | F::Une => I::Ne,
        F::Ogt | F::Ugt => pick(I::Sgt, I::Ugt),
        F::Oge | F::Uge => pick(I::Sge, I::Uge),
        F::Olt | F::Ult => pick(I::Slt, I::Ult),
        F::Ole | F::Ule => pick(I::Sle, I::Ule),
        F::AlwaysFalse | F::AlwaysTrue | F::Ord | F::Uno => return None,
    })
}

fn plan(ctx: &Context, op: Op) -> Option<Rewrite> {
    let pred = CmpFOp(op).cmp_predicate(ctx)?;
    let &[lhs, rhs] = ctx.operands(op) else {
        return None;
    };
    let AttrKind::Float { bits, ty } = ctx.attr_kind(ctx.constant_value(rhs)?) else {
        return None;
    };
    let TypeKind::Float(kind) = *ctx.type_kind(*ty) else {
        return None;
    };
    let c = f64::from_bits(*bits);
    if c.is_nan() {
        return None;
    }
    let (x, unsigned) = if let Some(conv) = defined_by::<SIToFPOp>(ctx, lhs) {
        (ctx.operand(conv, 0), false)
    } else if let Some(conv) = defined_by::<UIToFPOp>(ctx, lhs) {
        (ctx.operand(conv, 0), true)
    } else {
        return None;
    };
    let TypeKind::Integer { width } = *ctx.type_kind(ctx.value_type(x)) else {
        return None;
    };
    if !(1..=128).contains(&width) {
        return None;
    }
    // Significand bits, the implicit one included.
    let significand = kind.mantissa_bits() as i32 + 1;
    let max_exponent = kind.max_exponent();
    let value_bits = if unsigned { width } else { width - 1 } as i32;
    if width as i32 > significand {
        // The conversion may round: only a constant whose exponent rules that out is safe.
        if c.is_infinite() {
            if max_exponent < value_bits {
                return None;
            }
        } else if c != 0.0 {
            let exponent = ilogb(c);
            if significand <= exponent && exponent <= value_bits {
                return None;
            }
        }
    }
    let mut pred = match pred {
        CmpFPredicate::Ord => return Some(Rewrite::Constant(true)),
        CmpFPredicate::Uno => return Some(Rewrite::Constant(false)),
        _ => integer_predicate(pred, unsigned)?,
    };
    use CmpIPredicate as I;
    // The integer range, as the float format rounds its ends.
    let (min, max) = if unsigned {
        (0.0, u128::MAX >> (128 - width))
    } else {
        let max = (i128::MAX >> (128 - width)) as u128;
        (kind.round(-(2f64.powi(width as i32 - 1))), max)
    };
    // Exact in `f64` below 2^53, and rounded up to a power of two above, as the format rounds
    // it too.
    let max = kind.round(max as f64);
    if max < c {
        return Some(Rewrite::Constant(matches!(
            pred,
            I::Ne | I::Slt | I::Sle | I::Ult | I::Ule
        )));
    }
    if min > c {
        return Some(Rewrite::Constant(matches!(
            pred,
            I::Ne | I::Sgt | I::Sge | I::Ugt | I::Uge
        )));
    }
    // The integer part, which must fit the integer type.
    let t = c.trunc();
    let fits = if unsigned {
        t >= 0.0 && t < 2f64.powi(width as i32)
    } else {
        t >= -(2f64.powi(width as i32 - 1)) && t < 2f64.powi(width as i32 - 1)
    };
    if !fits {
        return None;
    }
    let int = if unsigned {
        t as u128 as i128
    } else {
        t as i128
    };
    // The integer part of a value of the format is a value of it too: `t == c` is MLIR's test
    // of converting it back.
    if c != 0.0 && t != c {
        // A fractional constant: compare with its integer part instead.
        let negative = c < 0.0;
        match pred {
            I::Ne => return Some(Rewrite::Constant(true)),
            I::Eq => return Some(Rewrite::Constant(false)),
            I::Ule if negative => return Some(Rewrite::Constant(false)),
            I::Ule => {}
            I::Sle if negative => pred = I::Slt,
            I::Sle => {}
            I::Ult if negative => return Some(Rewrite::Constant(false)),
            I::Ult => pred = I::Ule,
            I::Slt if !negative => pred = I::Sle,
            I::Slt => {}
            I::Ugt if negative => return Some(Rewrite::Constant(true)),
            I::Ugt => {}
            I::Sgt if negative => pred = I::Sge,
            I::Sgt => {}
            I::Uge if negative => return Some(Rewrite::Constant(true)),
            I::Uge => pred = I::Ugt,
            I::Sge if !negative => pred = I::Sgt,
            I::Sge => {}
        }
    }
    Some(Rewrite::CmpI { pred, x, rhs: int })
}
