#!/usr/bin/env python3
"""Fits the two polynomials of dlc's f32 `erf` (compiler/codegen/src/math.rs) and checks them.

erf(x) for |x| < 1 is x * P(x^2), P of degree 5; for 1 <= |x| <= 4 it is
1 - Q(|x| - 2.5), Q of degree 14 approximating erfc (beyond 4, erf rounds to +-1 in f32).
Both are least-squares fits (numpy.polyfit) to scipy's erf/erfc on dense grids. The check
evaluates them as the generated code does: coefficients rounded to f32, Horner's rule with
fused multiply-adds rounded to f32 once each, and reports the largest absolute error against
scipy's f64 erf over 800,002 points of [0, 4]; math.rs's accuracy tests hold the compiled
code to its claimed bound.

Usage: python3 scripts/fit_erf_f32.py
"""

import numpy as np
from scipy.special import erf, erfc

CUT, MID, HIGH = 1.0, 2.5, 4.0
F32 = np.float32


def fma32(a, b, c):
    """fma(a, b, c) rounded to f32 (the f64 product of two f32 values is exact)."""
    return (a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)).astype(F32)


def horner(coeffs, s):
    acc = np.full_like(s, F32(coeffs[-1]))
    for c in coeffs[-2::-1]:
        acc = fma32(acc, s, np.full_like(s, F32(c)))
    return acc


def main():
    t = np.linspace(0.0, CUT * CUT, 20001)
    t[0] = 1e-12
    low = np.polyfit(t, erf(np.sqrt(t)) / np.sqrt(t), 5)[::-1]
    u = np.linspace(CUT - MID, HIGH - MID, 40001)
    high = np.polyfit(u, erfc(u + MID), 14)[::-1]
    print("low (x * P(x^2), |x| < 1), constant term first:")
    print(",\n".join(f"    {c:.17e}" for c in low))
    print("high (1 - Q(|x| - 2.5), 1 <= |x| <= 4), constant term first:")
    print(",\n".join(f"    {c:.17e}" for c in high))
    xs = np.linspace(0, CUT, 400001, dtype=F32)
    err_low = np.abs(xs * horner(low, xs * xs) - erf(xs.astype(np.float64))).max()
    xs = np.linspace(CUT, HIGH, 400001, dtype=F32)
    got = F32(1) - horner(high, xs - F32(MID))
    err_high = np.abs(got.astype(np.float64) - erf(xs.astype(np.float64))).max()
    print(f"max abs error: |x| < 1 {err_low:.2e}, 1 <= |x| <= 4 {err_high:.2e}")


if __name__ == "__main__":
    main()
