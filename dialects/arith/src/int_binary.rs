//! The value of each integer binary `arith` op on concrete operands: one definition of integer
//! arithmetic for everything that runs these ops on values, the loop interpreter and the
//! runtime's host programs. Operands are `w`-bit integers held sign-extended in an `i128`; the
//! result comes before wrapping to `w` bits, so a caller wraps it as its values need.
//!
//! Where MLIR says the result is poison or the behaviour undefined, [`IntBinary::eval`] is an
//! error: a division or remainder by zero, a shift by the width or more, and a rounding
//! division whose quotient overflows. `MIN / -1` of `divsi` wraps to `MIN`, as the code
//! generators' `sdiv` gives on the machines dlc targets (x86 traps, so they guard it; the
//! interpreters follow the wrapped value).

use crate::fold::{ceil_div_signed, floor_div_signed, unsigned};
use crate::ops::ArithOps;

/// An integer binary `arith` op.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum IntBinary {
    /// `addi`
    Add,
    /// `subi`
    Sub,
    /// `muli`
    Mul,
    /// `divsi`
    DivS,
    /// `divui`
    DivU,
    /// `remsi`
    RemS,
    /// `remui`
    RemU,
    /// `andi`
    And,
    /// `ori`
    Or,
    /// `xori`
    Xor,
    /// `shli`
    Shl,
    /// `shrsi`
    ShrS,
    /// `shrui`
    ShrU,
    /// `maxsi`
    MaxS,
    /// `minsi`
    MinS,
    /// `maxui`
    MaxU,
    /// `minui`
    MinU,
    /// `ceildivsi`
    CeilDivS,
    /// `ceildivui`
    CeilDivU,
    /// `floordivsi`
    FloorDivS,
}

impl IntBinary {
    /// The integer binary op `op` is, if it is one.
    pub fn of(op: ArithOps) -> Option<IntBinary> {
        use ArithOps as A;
        Some(match op {
            A::AddIOp(_) => IntBinary::Add,
            A::SubIOp(_) => IntBinary::Sub,
            A::MulIOp(_) => IntBinary::Mul,
            A::DivSIOp(_) => IntBinary::DivS,
            A::DivUIOp(_) => IntBinary::DivU,
            A::RemSIOp(_) => IntBinary::RemS,
            A::RemUIOp(_) => IntBinary::RemU,
            A::AndIOp(_) => IntBinary::And,
            A::OrIOp(_) => IntBinary::Or,
            A::XOrIOp(_) => IntBinary::Xor,
            A::ShLIOp(_) => IntBinary::Shl,
            A::ShRSIOp(_) => IntBinary::ShrS,
            A::ShRUIOp(_) => IntBinary::ShrU,
            A::MaxSIOp(_) => IntBinary::MaxS,
            A::MinSIOp(_) => IntBinary::MinS,
            A::MaxUIOp(_) => IntBinary::MaxU,
            A::MinUIOp(_) => IntBinary::MinU,
            A::CeilDivSIOp(_) => IntBinary::CeilDivS,
            A::CeilDivUIOp(_) => IntBinary::CeilDivU,
            A::FloorDivSIOp(_) => IntBinary::FloorDivS,
            _ => return None,
        })
    }

    /// The op on `w`-bit operands `a` and `b` (sign-extended), before wrapping to `w` bits.
    pub fn eval(self, a: i128, b: i128, w: u32) -> Result<i128, String> {
        let (ua, ub) = (unsigned(a, w) as i128, unsigned(b, w) as i128);
        let nonzero = |d: i128| {
            if d == 0 {
                Err("division by zero".to_string())
            } else {
                Ok(d)
            }
        };
        let shift = |by: i128| {
            if by >= i128::from(w) {
                // MLIR: poison.
                Err(format!("shift amount {by} is not below the width {w}"))
            } else {
                Ok(by)
            }
        };
        use IntBinary as I;
        Ok(match self {
            I::Add => a.wrapping_add(b),
            I::Sub => a.wrapping_sub(b),
            I::Mul => a.wrapping_mul(b),
            I::DivS => a / nonzero(b)?,
            I::RemS => a % nonzero(b)?,
            I::DivU => ua / nonzero(ub)?,
            I::RemU => ua % nonzero(ub)?,
            I::And => a & b,
            I::Or => a | b,
            I::Xor => a ^ b,
            I::Shl => a << shift(ub)?,
            I::ShrS => a >> shift(ub)?,
            I::ShrU => ua >> shift(ub)?,
            I::MaxS => a.max(b),
            I::MinS => a.min(b),
            I::MaxU => ua.max(ub),
            I::MinU => ua.min(ub),
            I::CeilDivS => ceil_div_signed(a, nonzero(b)?).ok_or("division overflow")?,
            I::CeilDivU => ua.unsigned_abs().div_ceil(nonzero(ub)?.unsigned_abs()) as i128,
            I::FloorDivS => floor_div_signed(a, nonzero(b)?).ok_or("division overflow")?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::IntBinary as I;

    /// `a / b` rounded up, on `i8` (`MIN / -1` wraps).
    fn ceil_div(a: i8, b: i8) -> i8 {
        let (q, r) = (a.wrapping_div(b), a.wrapping_rem(b));
        q.wrapping_add(i8::from(r != 0 && (r < 0) == (b < 0)))
    }

    /// `a / b` rounded down, on `i8` (`MIN / -1` wraps).
    fn floor_div(a: i8, b: i8) -> i8 {
        let (q, r) = (a.wrapping_div(b), a.wrapping_rem(b));
        q.wrapping_sub(i8::from(r != 0 && (r < 0) != (b < 0)))
    }

    /// `v` wrapped to a signed `i8`.
    fn wrap8(v: i128) -> i8 {
        v as i8
    }

    /// Every op on every pair of `i8` values against Rust's own 8-bit arithmetic (LLVM's, for
    /// the ops it has), an error exactly where MLIR has no value.
    #[test]
    fn every_i8_pair_matches_eight_bit_arithmetic() {
        for a in i8::MIN..=i8::MAX {
            for b in i8::MIN..=i8::MAX {
                let (ua, ub) = (a as u8, b as u8);
                let div = |f: fn(i8, i8) -> i8| (b != 0).then(|| f(a, b));
                let udiv = |f: fn(u8, u8) -> u8| (ub != 0).then(|| f(ua, ub) as i8);
                let shift = |f: fn(i8, u32) -> i8| (ub < 8).then(|| f(a, u32::from(ub)));
                let cases: [(I, Option<i8>); 20] = [
                    (I::Add, Some(a.wrapping_add(b))),
                    (I::Sub, Some(a.wrapping_sub(b))),
                    (I::Mul, Some(a.wrapping_mul(b))),
                    (I::DivS, div(i8::wrapping_div)),
                    (I::RemS, div(i8::wrapping_rem)),
                    (I::DivU, udiv(|x, y| x / y)),
                    (I::RemU, udiv(|x, y| x % y)),
                    (I::And, Some(a & b)),
                    (I::Or, Some(a | b)),
                    (I::Xor, Some(a ^ b)),
                    (I::Shl, shift(|x, s| ((x as u8) << s) as i8)),
                    (I::ShrS, shift(|x, s| x >> s)),
                    (I::ShrU, shift(|x, s| ((x as u8) >> s) as i8)),
                    (I::MaxS, Some(a.max(b))),
                    (I::MinS, Some(a.min(b))),
                    (I::MaxU, Some(ua.max(ub) as i8)),
                    (I::MinU, Some(ua.min(ub) as i8)),
                    (I::CeilDivS, div(ceil_div)),
                    (I::CeilDivU, udiv(u8::div_ceil)),
                    (I::FloorDivS, div(floor_div)),
                ];
                for (op, want) in cases {
                    let got = op.eval(i128::from(a), i128::from(b), 8).ok().map(wrap8);
                    assert_eq!(got, want, "{op:?} {a} {b}");
                }
            }
        }
    }

    /// `i1` holds -1 and 0: signed ops see -1, unsigned ones 1.
    #[test]
    fn i1_reads_minus_one_signed_and_one_unsigned() {
        assert_eq!(I::MaxS.eval(-1, 0, 1), Ok(0));
        assert_eq!(I::MaxU.eval(-1, 0, 1), Ok(1));
        assert_eq!(I::DivU.eval(-1, -1, 1), Ok(1));
        assert!(I::Shl.eval(-1, -1, 1).is_err());
    }
}
