//! Rounding a value to a float format in each of `arith.truncf`'s rounding modes, exactly.
//!
//! The folders never need this (MLIR folds a `truncf` only when the value converts without
//! loss, which every mode agrees on); evaluators that run a `truncf` do. The value is split
//! into a whole number of the target's quantum (the spacing of its values at that magnitude)
//! and a fraction of one; quanta are powers of two, so both parts are exact in `f64` and the
//! choice between the two neighbours, ties included, involves no intermediate rounding (no
//! detour through `f32`, which would round twice on the way to `f16` or `bf16`).

use crate::attrs::RoundingMode;
use dlc_ir::FloatKind;

/// `x` rounded to a value of format `kind` in `mode` (returned widened to `f64`). Results
/// beyond the largest finite value become an infinity, or that largest value when the mode
/// rounds toward zero on that side, as IEEE 754 says. NaNs, infinities and zeros convert as
/// [`FloatKind::round`] converts them.
pub fn round_to_format(x: f64, kind: FloatKind, mode: RoundingMode) -> f64 {
    if kind == FloatKind::F64 || !x.is_finite() || x == 0.0 {
        return kind.round(x);
    }
    let (mantissa, emax) = (kind.mantissa_bits() as i32, kind.max_exponent());
    let emin = 1 - emax;
    let negative = x < 0.0;
    let a = x.abs();
    // Rounding toward zero in magnitude (`Some(true)`), away from it, or to nearest (`None`).
    let toward_zero = match mode {
        RoundingMode::ToNearestEven | RoundingMode::ToNearestAway => None,
        RoundingMode::TowardZero => Some(true),
        RoundingMode::Downward => Some(!negative),
        RoundingMode::Upward => Some(negative),
    };
    let largest = ((1u64 << (mantissa + 1)) - 1) as f64 * pow2(emax - mantissa);
    let signed = |m: f64| if negative { -m } else { m };
    // The binary exponent of `a`; f64 subnormals lie far below every target's smallest
    // subnormal, where only the quantum matters.
    let exponent = (((a.to_bits() >> 52) & 0x7ff) as i32 - 1023).max(-1022);
    if exponent > emax {
        return signed(if toward_zero == Some(true) {
            largest
        } else {
            f64::INFINITY
        });
    }
    let quantum = exponent.max(emin) - mantissa;
    let scaled = a * pow2(-quantum);
    let whole = scaled.floor();
    let fraction = scaled - whole;
    let up = match (mode, toward_zero) {
        (RoundingMode::ToNearestEven, _) => {
            fraction > 0.5 || (fraction == 0.5 && whole % 2.0 == 1.0)
        }
        (RoundingMode::ToNearestAway, _) => fraction >= 0.5,
        (_, toward_zero) => fraction > 0.0 && toward_zero == Some(false),
    };
    let magnitude = (if up { whole + 1.0 } else { whole }) * pow2(quantum);
    signed(if magnitude > largest {
        f64::INFINITY
    } else {
        magnitude
    })
}

/// `2^n` for `n` in f64's normal exponent range, built exactly from its bits.
fn pow2(n: i32) -> f64 {
    f64::from_bits(((n + 1023) as u64) << 52)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The expected result for `x` between adjacent values `lo < x < hi` of the format (either
    /// may stand for an infinity, then `lo_virtual`/`hi_virtual` give the finite value one step
    /// beyond the largest, which places the midpoint), `lo_even` saying which one has an even
    /// significand.
    fn between(
        x: f64,
        (lo, lo_virtual): (f64, f64),
        (hi, hi_virtual): (f64, f64),
        lo_even: bool,
        mode: RoundingMode,
    ) -> f64 {
        let mid = lo_virtual / 2.0 + hi_virtual / 2.0;
        let (toward_zero, away) = if x > 0.0 { (lo, hi) } else { (hi, lo) };
        match mode {
            RoundingMode::Downward => lo,
            RoundingMode::Upward => hi,
            RoundingMode::TowardZero => toward_zero,
            RoundingMode::ToNearestEven if x == mid => {
                if lo_even {
                    lo
                } else {
                    hi
                }
            }
            RoundingMode::ToNearestAway if x == mid => away,
            _ if x < mid => lo,
            _ => hi,
        }
    }

    fn next_f64(x: f64, up: bool) -> f64 {
        let bits = x.to_bits();
        // For the positive values these tests step through.
        f64::from_bits(if up { bits + 1 } else { bits - 1 })
    }

    /// Every pair of adjacent finite values of a 16-bit format, both signs: the values
    /// themselves, the midpoint, one f64 step either side of it, and one step inside each end.
    fn exhaustive(kind: FloatKind, exponent_bits: u32) {
        let mantissa_bits = 15 - exponent_bits;
        let inf_bits: u64 = ((1 << exponent_bits) - 1) << mantissa_bits;
        let beyond = 2f64.powi(1 << (exponent_bits - 1));
        for b in 0..inf_bits {
            let lo = kind.from_bits(b);
            let hi = kind.from_bits(b + 1);
            let hi_virtual = if hi.is_infinite() { beyond } else { hi };
            let mid = lo / 2.0 + hi_virtual / 2.0;
            let points = [
                next_f64(lo, true),
                next_f64(mid, false),
                mid,
                next_f64(mid, true),
                next_f64(hi_virtual, false),
            ];
            for mode in RoundingMode::ALL {
                assert_eq!(round_to_format(lo, kind, mode), lo);
                assert_eq!(round_to_format(-lo, kind, mode).to_bits(), (-lo).to_bits());
                for x in points {
                    let want = between(x, (lo, lo), (hi, hi_virtual), b % 2 == 0, mode);
                    let got = round_to_format(x, kind, mode);
                    assert_eq!(
                        got, want,
                        "{kind:?} {mode:?} {x:e} between {lo:e} and {hi:e}"
                    );
                    // The mirror image: downward and upward trade places.
                    let mirrored = match mode {
                        RoundingMode::Downward => RoundingMode::Upward,
                        RoundingMode::Upward => RoundingMode::Downward,
                        m => m,
                    };
                    assert_eq!(round_to_format(-x, kind, mirrored), -want);
                }
            }
        }
    }

    #[test]
    fn f16_every_interval() {
        exhaustive(FloatKind::F16, 5);
    }

    #[test]
    fn bf16_every_interval() {
        exhaustive(FloatKind::BF16, 8);
    }

    fn f32_step(x: f32, up: bool) -> f32 {
        // Steps away from or toward zero on the magnitude, then fixes the direction by sign.
        let bits = x.to_bits();
        let away = (x > 0.0) == up;
        if x == 0.0 {
            let tiny = f32::from_bits(1);
            return if up { tiny } else { -tiny };
        }
        f32::from_bits(if away { bits + 1 } else { bits - 1 })
    }

    /// f64 → f32 in each mode against an independent reference: the hardware's
    /// round-to-nearest-even conversion and its neighbour one f32 step (`nextafter`) away.
    fn check_f32(x: f64) {
        let r = x as f32;
        if r as f64 == x {
            for mode in RoundingMode::ALL {
                assert_eq!(round_to_format(x, FloatKind::F32, mode), x);
            }
            return;
        }
        let (lo, hi) = if (r as f64) < x {
            (r, f32_step(r, true))
        } else {
            (f32_step(r, false), r)
        };
        let beyond = 2f64.powi(128);
        let virt = |v: f32| match v {
            v if v == f32::INFINITY => beyond,
            v if v == f32::NEG_INFINITY => -beyond,
            v => v as f64,
        };
        let lo_even = lo.to_bits() % 2 == 0;
        for mode in RoundingMode::ALL {
            let want = between(
                x,
                (lo as f64, virt(lo)),
                (hi as f64, virt(hi)),
                lo_even,
                mode,
            );
            let got = round_to_format(x, FloatKind::F32, mode);
            assert_eq!(got, want, "{mode:?} {x:e}");
        }
        assert_eq!(
            round_to_format(x, FloatKind::F32, RoundingMode::ToNearestEven),
            r as f64
        );
    }

    #[test]
    fn f32_against_nextafter() {
        // xorshift64: reproducible inputs without a dependency.
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..200_000 {
            let bits = next();
            // Exponents from below f32's subnormals to beyond its largest value.
            let exponent = 1023 - 160 + (bits >> 52) % 300;
            let x = f64::from_bits((bits & (1 << 63)) | exponent << 52 | (bits & ((1 << 52) - 1)));
            check_f32(x);
            // The midpoint above an f32 value and its f64 neighbours.
            let f = x as f32;
            if f.is_finite() && f != 0.0 {
                let g = f32_step(f, true);
                let far = if g.is_infinite() {
                    2f64.powi(128).copysign(x)
                } else {
                    g as f64
                };
                let mid = f as f64 / 2.0 + far / 2.0;
                check_f32(mid);
                check_f32(f64::from_bits(mid.to_bits() + 1));
                check_f32(f64::from_bits(mid.to_bits() - 1));
            }
        }
        for x in [
            f32::MAX as f64,
            f32::MAX as f64 * 1.5,
            -(f32::MAX as f64) * 1.0000001,
            f32::MIN_POSITIVE as f64 / 3.0,
            1e-50,
            -1e-50,
            f64::MIN_POSITIVE,
            5e-324,
        ] {
            check_f32(x);
        }
    }

    #[test]
    fn overflow_and_specials() {
        let big = 1e300;
        use RoundingMode::*;
        assert_eq!(round_to_format(big, FloatKind::F16, TowardZero), 65504.0);
        assert_eq!(round_to_format(big, FloatKind::F16, Downward), 65504.0);
        assert_eq!(round_to_format(big, FloatKind::F16, Upward), f64::INFINITY);
        assert_eq!(round_to_format(-big, FloatKind::F16, Upward), -65504.0);
        assert_eq!(
            round_to_format(-big, FloatKind::F16, ToNearestEven),
            f64::NEG_INFINITY
        );
        assert_eq!(
            round_to_format(65519.0, FloatKind::F16, ToNearestAway),
            65504.0
        );
        assert_eq!(
            round_to_format(65520.0, FloatKind::F16, ToNearestAway),
            f64::INFINITY
        );
        assert_eq!(
            round_to_format(65520.0, FloatKind::F16, ToNearestEven),
            f64::INFINITY
        );
        assert!(round_to_format(f64::NAN, FloatKind::F16, Upward).is_nan());
        assert_eq!(
            round_to_format(f64::INFINITY, FloatKind::BF16, TowardZero),
            f64::INFINITY
        );
        let tiny = round_to_format(-1e-30, FloatKind::F16, TowardZero);
        assert_eq!(tiny.to_bits(), (-0.0f64).to_bits());
        assert_eq!(
            round_to_format(1e-30, FloatKind::F16, Upward),
            2f64.powi(-24)
        );
    }
}
