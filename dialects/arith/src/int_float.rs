//! The values of the integer-to-float conversions (`sitofp`, `uitofp`) on concrete operands,
//! rounded once to the result's format, as LLVM's `sitofp`/`uitofp` and APFloat's
//! `convertFromAPInt` round: one definition for the folder and the loop interpreter. (Going
//! through `f64` first would round twice: an `i64` near `2^60` converted to `f32` can land on
//! a tie that the direct rounding does not see.)

use dlc_ir::FloatKind;

/// The `kind` float nearest to the integer `x` (ties to even), rounded once: the value of
/// `sitofp` of a signed `x` and of `uitofp` of an unsigned one.
pub fn int_to_float(x: i128, kind: FloatKind) -> f64 {
    let v = magnitude_to_float(x.unsigned_abs(), kind);
    if x < 0 {
        -v
    } else {
        v
    }
}

/// The `kind` float nearest to the non-negative integer `m` (ties to even), rounded once:
/// `uitofp`'s value.
pub fn magnitude_to_float(m: u128, kind: FloatKind) -> f64 {
    match kind {
        // Rust's integer-to-float casts round correctly.
        FloatKind::F64 => m as f64,
        FloatKind::F32 => m as f32 as f64,
        // Going through f32 or f64 would round twice; round to the format's precision here.
        FloatKind::F16 | FloatKind::BF16 => {
            let (precision, max) = match kind {
                FloatKind::F16 => (11, 65504.0),
                _ => (8, 3.3895313892515355e38),
            };
            let v = round_to_precision(m, precision);
            // Beyond the largest finite value, round-to-nearest gives infinity.
            if v > max {
                f64::INFINITY
            } else {
                v
            }
        }
    }
}

/// `m` rounded to `precision` significant bits, ties to even (exact in an f64).
fn round_to_precision(m: u128, precision: u32) -> f64 {
    let bits = 128 - m.leading_zeros();
    if bits <= precision {
        return m as f64;
    }
    let shift = bits - precision;
    let mut mantissa = m >> shift;
    let rest = m & ((1u128 << shift) - 1);
    let half = 1u128 << (shift - 1);
    if rest > half || (rest == half && mantissa & 1 == 1) {
        mantissa += 1;
    }
    mantissa as f64 * 2f64.powi(shift as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_i16_converts_to_the_nearest_f16_and_bf16() {
        for x in i16::MIN..=i16::MAX {
            let want_f16 = FloatKind::F16.round(f64::from(x));
            assert_eq!(int_to_float(i128::from(x), FloatKind::F16), want_f16, "{x}");
            let want_bf16 = FloatKind::BF16.round(f64::from(x));
            assert_eq!(
                int_to_float(i128::from(x), FloatKind::BF16),
                want_bf16,
                "{x}"
            );
        }
    }

    #[test]
    fn wide_integers_round_once() {
        // 2^60 + 2^36 + 1: just above the midpoint of two f32 values. Through f64 it becomes
        // the midpoint, which ties to the even value below; rounded once it goes up.
        let x: i64 = (1 << 60) + (1 << 36) + 1;
        let once = int_to_float(i128::from(x), FloatKind::F32);
        assert_eq!(once, x as f32 as f64);
        assert_ne!(once, (x as f64) as f32 as f64);
        assert_eq!(int_to_float(-i128::from(x), FloatKind::F32), -once);
        assert_eq!(int_to_float(i128::MAX, FloatKind::F16), f64::INFINITY);
        assert_eq!(
            magnitude_to_float(u128::MAX, FloatKind::BF16),
            f64::INFINITY
        );
    }
}
