//! The value of each float binary `arith` op on concrete operands, the float counterpart of
//! [`IntBinary`](crate::IntBinary): one definition for the folder and the loop interpreter
//! (and the graph interpreter's ops with the same meaning). Operands are held in `f64`; the
//! caller rounds the result to the op's float type, once, as MLIR's APFloat arithmetic rounds
//! each op.
//!
//! NaNs follow APFloat, not the host: a NaN operand propagates made quiet (the first one when
//! both are), and an invalid operation (`0/0`, `inf - inf`, `x rem 0`) gives the positive
//! default NaN (x86 would give a negative one). `remf` is C's `fmod` (exact, with the sign of
//! the dividend). The min/max ops are IEEE 754's: `maximumf`/`minimumf` (NaN wins, -0 below
//! +0) and `maxnumf`/`minnumf` (a quiet NaN loses).

use crate::fold::{ieee_maximum, ieee_maxnum, ieee_minimum, ieee_minnum};
use crate::ops::ArithOps;

/// A float binary `arith` op.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FloatBinary {
    /// `addf`
    Add,
    /// `subf`
    Sub,
    /// `mulf`
    Mul,
    /// `divf`
    Div,
    /// `remf`
    Rem,
    /// `maximumf`
    Maximum,
    /// `minimumf`
    Minimum,
    /// `maxnumf`
    MaxNum,
    /// `minnumf`
    MinNum,
}

impl FloatBinary {
    /// The float binary op `op` is, if it is one.
    pub fn of(op: ArithOps) -> Option<FloatBinary> {
        use ArithOps as A;
        Some(match op {
            A::AddFOp(_) => FloatBinary::Add,
            A::SubFOp(_) => FloatBinary::Sub,
            A::MulFOp(_) => FloatBinary::Mul,
            A::DivFOp(_) => FloatBinary::Div,
            A::RemFOp(_) => FloatBinary::Rem,
            A::MaximumFOp(_) => FloatBinary::Maximum,
            A::MinimumFOp(_) => FloatBinary::Minimum,
            A::MaxNumFOp(_) => FloatBinary::MaxNum,
            A::MinNumFOp(_) => FloatBinary::MinNum,
            _ => return None,
        })
    }

    /// `a op b` in `f64`, before rounding to the op's type.
    pub fn eval(self, a: f64, b: f64) -> f64 {
        match self {
            FloatBinary::Add => ieee_arith(a, b, |a, b| a + b),
            FloatBinary::Sub => ieee_arith(a, b, |a, b| a - b),
            FloatBinary::Mul => ieee_arith(a, b, |a, b| a * b),
            FloatBinary::Div => ieee_arith(a, b, |a, b| a / b),
            FloatBinary::Rem => ieee_arith(a, b, |a, b| a % b),
            FloatBinary::Maximum => ieee_maximum(a, b),
            FloatBinary::Minimum => ieee_minimum(a, b),
            FloatBinary::MaxNum => ieee_maxnum(a, b),
            FloatBinary::MinNum => ieee_minnum(a, b),
        }
    }
}

/// `f(a, b)` with APFloat's NaN rules (the module doc).
fn ieee_arith(a: f64, b: f64, f: fn(f64, f64) -> f64) -> f64 {
    const QUIET: u64 = 1 << 51;
    if a.is_nan() {
        f64::from_bits(a.to_bits() | QUIET)
    } else if b.is_nan() {
        f64::from_bits(b.to_bits() | QUIET)
    } else {
        let r = f(a, b);
        if r.is_nan() {
            f64::NAN
        } else {
            r
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attrs::RoundingMode;
    use crate::rounding::round_to_format;
    use dlc_ir::FloatKind;

    /// `+ - * /` on pairs of f16 values (a stride through the 65,536 bit patterns, with ±0,
    /// ±inf and NaN: about 530 values, 280,000 pairs), computed here and rounded once to f16,
    /// against f32 arithmetic rounded to f16: f32 carries at least `2p + 2` bits for f16's
    /// `p = 11`, so that double rounding is the correctly rounded f16 result.
    #[test]
    fn f16_arithmetic_matches_f32_rounded() {
        let kind = FloatKind::F16;
        let mut values: Vec<f64> = (0u32..65536)
            .step_by(127)
            .map(|bits| kind.from_bits(bits as u64))
            .collect();
        values.extend([
            0.0,
            -0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            1.0,
            -1.0,
        ]);
        for op in [
            FloatBinary::Add,
            FloatBinary::Sub,
            FloatBinary::Mul,
            FloatBinary::Div,
        ] {
            for &a in &values {
                for &b in &values {
                    let got = round_to_format(op.eval(a, b), kind, RoundingMode::ToNearestEven);
                    let (x, y) = (a as f32, b as f32);
                    let want = match op {
                        FloatBinary::Add => x + y,
                        FloatBinary::Sub => x - y,
                        FloatBinary::Mul => x * y,
                        _ => x / y,
                    };
                    let want = round_to_format(want as f64, kind, RoundingMode::ToNearestEven);
                    assert!(
                        got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                        "{op:?}({a}, {b}) = {got}, want {want}"
                    );
                }
            }
        }
    }

    #[test]
    fn nans_follow_apfloat() {
        let invalid = FloatBinary::Sub.eval(f64::INFINITY, f64::INFINITY);
        assert!(invalid.is_nan() && invalid.is_sign_positive());
        assert!(FloatBinary::Rem.eval(1.0, 0.0).is_sign_positive());
        let payload = f64::from_bits(0x7FF0_0000_0000_0001);
        assert_eq!(
            FloatBinary::Add.eval(payload, 1.0).to_bits(),
            0x7FF8_0000_0000_0001
        );
        assert_eq!(FloatBinary::Rem.eval(-7.5, 2.0), -1.5);
        assert_eq!(
            FloatBinary::Maximum.eval(-0.0, 0.0).to_bits(),
            0.0f64.to_bits()
        );
        assert_eq!(FloatBinary::MinNum.eval(f64::NAN, 2.0), 2.0);
        assert!(FloatBinary::Minimum.eval(f64::NAN, 2.0).is_nan());
    }
}
