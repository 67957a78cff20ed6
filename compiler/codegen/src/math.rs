//! Transcendental functions expanded inline into plain LLVM arithmetic.
//!
//! dlc never calls libm from generated code: NVPTX has none, and a libm call inside a CPU loop
//! stops the vectorizer. Every function here is therefore emitted as straight-line IR built
//! from `fadd`/`fmul`/`fdiv`, integer and bit operations on the float encoding, `select`, and
//! the intrinsics that lower natively on x86 and NVPTX (`llvm.fmuladd`, `llvm.fabs`,
//! `llvm.copysign`). `llvm.rint`/`llvm.floor` are avoided on purpose: on baseline x86-64
//! (no SSE4.1) they become calls to `rintf`/`floorf`, so rounding uses the `2^23`/`2^52`
//! addition trick instead (correct in the default round-to-nearest mode, which generated code
//! never changes). The same code works for `f32`, `f64` and vectors of them, since every
//! constant is splatted to the argument's type and there is no control flow.
//!
//! Algorithms (measured errors are in [`claimed_error`]):
//! - `exp`: `k = rint(x/ln2)` by the `1.5*2^p` addition trick, Cody-Waite `r = x - k*ln2` with
//!   a two-part `ln2` whose high part has trailing zeros (so `k*ln2_hi` is exact without FMA),
//!   the Taylor polynomial of `e^r` by Horner's rule (degree 7 for f32, 13 for f64,
//!   `|r| <= ln2/2`), and `2^k` applied in two halves through the exponent bits so gradual
//!   underflow is right. Above the overflow bound the input is clamped, so `ldexp` gives `+inf`;
//!   denormal results are produced (targets that flush denormals flush them). Inputs whose
//!   result rounds to 0 (below -104 for f32, -746 for f64) compute `e^0` and are zeroed after,
//!   so no multiply underflows: on x86 each underflow costs a microcode assist, and a causal
//!   mask's `-1e9` scores made a GPT-2-sized softmax 6x slower. About 26 vector operations.
//! - `log`: fdlibm/musl: denormals are rescaled by `2^25`/`2^54` first; the mantissa is moved into
//!   `[sqrt(2)/2, sqrt(2))` with integer ops, then `log(1+f) = f - f^2/2 + s*(f^2/2 + R(s^2))`,
//!   `s = f/(2+f)`, with the fdlibm minimax `R`.
//! - `tanh`: `-expm1(-2|x|) / (expm1(-2|x|) + 2)` with the sign restored: no cancellation for
//!   small `|x|`, saturates to exactly `±1`.
//! - `erf`: f32: `x * P(x^2)` (degree 5) for `|x| < 1`, otherwise `1 - Q(|x| - 2.5)` with `Q`
//!   (degree 14) fitted to erfc on `[1, 4]` (erf(4) rounds to 1): no divide and no `exp`, about
//!   half the operations of the Taylor series and Numerical Recipes' `erfcc` it replaced (614K
//!   elements in 1.96 ms on a Zen 1 before; `scripts/fit_erf_f32.py` fits and checks the
//!   polynomials). f64: Taylor series (30 terms) for `|x| < 2`, otherwise the erfc continued
//!   fraction evaluated backwards to depth 40.
//! - `sin`/`cos`: `k = rint(x*2/pi)`, Cody-Waite reduction with `pi/2` split into parts whose
//!   products with `k` are exact (4 parts of 8/8/8/24 bits for f32, 3 of 33/33/53 bits for f64),
//!   Taylor polynomials on `|r| <= pi/4`, quadrant chosen by `select`. Accurate for
//!   `|x| <= 1e5` (f32; exact reduction up to `2^16*pi/2`) and `|x| <= 1.6e6` (f64); beyond
//!   that the reduction error grows linearly with `|x|`.
//! - `sigmoid`: `e = exp(-|x|)`, then `1/(1+e)` or `e/(1+e)` by sign, so neither side overflows
//!   and tiny results keep their relative accuracy.
//!
//! Polynomials are evaluated with `llvm.fmuladd`, which becomes an FMA where the target has one
//! and a multiply-add otherwise; the error claims hold either way.

use std::f64::consts::{FRAC_2_SQRT_PI, FRAC_PI_2, LN_2, LOG2_E};

use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::builder::{Builder, BuilderError};
use inkwell::intrinsics::Intrinsic;
use inkwell::module::{Linkage, Module};
use inkwell::types::{BasicType, BasicTypeEnum, FloatType, IntType, VectorType};
use inkwell::values::{BasicMetadataValueEnum, BasicValueEnum};
use inkwell::FloatPredicate;

/// The math functions dlc expands inline.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum MathFn {
    Exp,
    Log,
    Tanh,
    Erf,
    Sin,
    Cos,
    /// Part of the requested API, though graph decomposition currently removes sigmoid before
    /// codegen, so only the tests construct it.
    #[cfg_attr(not(test), allow(dead_code))]
    Sigmoid,
}

/// Emits `f(x)` at the builder's position.
///
/// `x` is an f32 or f64 scalar or a vector of them (`BasicValueEnum::FloatValue` /
/// `VectorValue`); the result has x's type. f16/bf16 are the caller's job (it extends to f32
/// first). Any other type is rejected with `BuilderError::NotSameType`. `avx512`: the target
/// has AVX-512F, so 512-bit vectors scale by `2^k` with one `vscalefps`/`vscalefpd`.
pub(crate) fn emit_math<'ctx>(
    module: &Module<'ctx>,
    builder: &Builder<'ctx>,
    f: MathFn,
    x: BasicValueEnum<'ctx>,
    avx512: bool,
) -> Result<BasicValueEnum<'ctx>, BuilderError> {
    let mut e = Emitter::new(module, builder, x)?;
    e.avx512 = avx512;
    match f {
        MathFn::Exp => e.exp(x),
        MathFn::Log => e.log(x),
        MathFn::Tanh => e.tanh(x),
        MathFn::Erf => e.erf(x),
        MathFn::Sin => e.sin_cos(x, false),
        MathFn::Cos => e.sin_cos(x, true),
        MathFn::Sigmoid => e.sigmoid(x),
    }
}

/// The prefix of the functions [`emit_math_call`] defines. The quick tier runs no inliner, so
/// they stay out of line there; every other configuration inlines them where they are called.
const OUTLINED_PREFIX: &str = "dlc.math.";

/// Emits a call computing `f(x)` (as [`emit_math`] does): of an internal function of the
/// module, defined on first use for `f`, the type of `x` and `avx512`, that returns
/// [`emit_math`]'s expansion of its argument, marked `alwaysinline`. Inlined, the code is the
/// expansion at the call; the quick tier, which runs no inliner, compiles each function
/// once instead of every expansion (about 26 operations for an `exp`, 60 for a `tanh`; a
/// recurrent cell computes several per vector of each gate).
pub(crate) fn emit_math_call<'ctx>(
    module: &Module<'ctx>,
    builder: &Builder<'ctx>,
    f: MathFn,
    x: BasicValueEnum<'ctx>,
    avx512: bool,
) -> Result<BasicValueEnum<'ctx>, BuilderError> {
    let ty = x.get_type();
    let name = format!(
        "{OUTLINED_PREFIX}{f:?}.{}{}",
        ty.print_to_string()
            .to_string()
            .replace([' ', '<', '>'], ""),
        if avx512 { ".avx512" } else { "" }
    );
    let function = match module.get_function(&name) {
        Some(function) => function,
        None => {
            let llvm = module.get_context();
            let function = module.add_function(
                &name,
                ty.fn_type(&[ty.into()], false),
                Some(Linkage::Internal),
            );
            let inline = Attribute::get_named_enum_kind_id("alwaysinline");
            function.add_attribute(
                AttributeLoc::Function,
                llvm.create_enum_attribute(inline, 0),
            );
            let body = llvm.create_builder();
            body.position_at_end(llvm.append_basic_block(function, "entry"));
            let arg = function.get_nth_param(0).ok_or(BuilderError::NotSameType)?;
            let result = emit_math(module, &body, f, arg, avx512)?;
            body.build_return(Some(&result))?;
            function
        }
    };
    let call = builder.build_call(function, &[x.into()], "")?;
    call.try_as_basic_value()
        .basic()
        .ok_or(BuilderError::NotSameType)
}

/// `a ** b` computed as `exp(b * log(|a|))` with the IEEE 754 `pow` special cases:
///
/// - `b == ±0` gives 1 for every `a`, NaN included; `a == 1` gives 1 for every `b`, NaN included;
/// - otherwise a NaN operand gives NaN;
/// - `a < 0` with integral `b` gives `±|a|^b`, negative for odd `b`; with non-integral `b` NaN;
/// - `a == ±0`: `+0`/`+inf` for `b > 0`/`b < 0`, with the sign of `a` kept for odd integral `b`;
/// - `a == ±inf`, `b == ±inf` and `|a| == 1` follow from the same rules (`(-1)^±inf == 1`).
///
/// The relative error is about `|b * ln|a|| * eps` plus the exp error, since the product is
/// rounded before exponentiation: small for typical exponents, up to ~90 ulp for f32 results
/// near overflow.
pub(crate) fn emit_powf<'ctx>(
    module: &Module<'ctx>,
    builder: &Builder<'ctx>,
    a: BasicValueEnum<'ctx>,
    b: BasicValueEnum<'ctx>,
    avx512: bool,
) -> Result<BasicValueEnum<'ctx>, BuilderError> {
    let mut e = Emitter::new(module, builder, a)?;
    e.avx512 = avx512;
    if a.get_type() != b.get_type() {
        return Err(BuilderError::NotSameType);
    }
    let one = e.splat(1.0);
    let zero = e.splat(0.0);
    let abs_a = e.call("llvm.fabs", &[a])?;
    let ln_a = e.log(abs_a)?;
    // `|a| == 1` makes ln exactly 0; force the product to 0 so `1 ** inf` is not `0 * inf`.
    let prod = e.fmul(b, ln_a)?;
    let ln_is_zero = e.fcmp(FloatPredicate::OEQ, ln_a, zero)?;
    let prod = e.select(ln_is_zero, zero, prod)?;
    let mag = e.exp(prod)?;

    let b_floor = e.floor(b)?;
    let b_is_int = e.fcmp(FloatPredicate::OEQ, b_floor, b)?;
    let half = e.fmul(b, e.splat(0.5))?;
    let half_floor = e.floor(half)?;
    let half_is_int = e.fcmp(FloatPredicate::OEQ, half_floor, half)?;
    let a_sign = e.call("llvm.copysign", &[one, a])?;
    let a_sign_neg = e.fcmp(FloatPredicate::OLT, a_sign, zero)?;
    let neg_mag = e.fneg(mag)?;
    let odd_b = e.select(half_is_int, e.bool_splat(false), b_is_int)?;
    let flip = e.select(a_sign_neg, odd_b, e.bool_splat(false))?;
    let r = e.select(flip, neg_mag, mag)?;
    let a_neg = e.fcmp(FloatPredicate::OLT, a, zero)?;
    let bad = e.select(b_is_int, e.bool_splat(false), a_neg)?;
    let r = e.select(bad, e.splat(f64::NAN), r)?;
    let a_one = e.fcmp(FloatPredicate::OEQ, a, one)?;
    let r = e.select(a_one, one, r)?;
    let b_zero = e.fcmp(FloatPredicate::OEQ, b, zero)?;
    e.select(b_zero, one, r)
}

/// The maximum error we claim for `f` in the given precision.
///
/// Relative error `|got - exact| / max(|exact|, smallest normal)` for exp, log, tanh and sigmoid
/// (so denormal results are judged in units of the smallest normal number); absolute error for
/// erf, sin and cos, whose values are bounded by 1 and cross zero. sin/cos claims hold for
/// `|x| <= 1e5`. The f32 numbers include the final rounding to f32; they are checked by the
/// accuracy tests at the bottom of this file over dense sweeps and special values.
// Read by the accuracy tests; the docs quote the same numbers.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) fn claimed_error(f: MathFn, is_f64: bool) -> f64 {
    match (f, is_f64) {
        // Measured maxima (f32 / f64), see the tests: exp 9.5e-8 / 2.2e-16, log 7.9e-8 /
        // 2.2e-16, tanh 1.6e-7 / 4.8e-16, erf 1.3e-7 / 6.7e-16, sin 1.0e-7 / 2.2e-16,
        // cos 1.1e-7 / 2.2e-16, sigmoid 1.7e-7 / 2.9e-16.
        (MathFn::Exp | MathFn::Log, false) => 1.5e-7,
        (MathFn::Tanh | MathFn::Erf | MathFn::Sigmoid, false) => 2.5e-7,
        (MathFn::Sin | MathFn::Cos, false) => 1.5e-7,
        (MathFn::Exp | MathFn::Log | MathFn::Sin | MathFn::Cos, true) => 4e-16,
        (MathFn::Sigmoid, true) => 5e-16,
        (MathFn::Tanh, true) => 8e-16,
        (MathFn::Erf, true) => 1e-15,
    }
}

/// Builds IR for one float type (scalar or vector): splats constants and hides the
/// scalar/vector split of inkwell's typed builder methods.
struct Emitter<'a, 'ctx> {
    module: &'a Module<'ctx>,
    builder: &'a Builder<'ctx>,
    /// The scalar float type.
    elem: FloatType<'ctx>,
    /// The integer type of the same width as `elem`.
    ielem: IntType<'ctx>,
    /// Lane count for vectors, `None` for scalars.
    lanes: Option<u32>,
    is_f64: bool,
    /// The target has AVX-512F (see [`emit_math`]).
    avx512: bool,
}

/// Applies a typed float builder method to two operands that are both scalars or both vectors.
macro_rules! binary_float {
    ($a:expr, $b:expr, |$x:ident, $y:ident| $body:expr) => {
        match ($a, $b) {
            (BasicValueEnum::FloatValue($x), BasicValueEnum::FloatValue($y)) => Ok($body.into()),
            (BasicValueEnum::VectorValue($x), BasicValueEnum::VectorValue($y)) => Ok($body.into()),
            _ => Err(BuilderError::NotSameType),
        }
    };
}

/// Applies a typed integer builder method to two operands that are both scalars or both vectors.
macro_rules! binary_int {
    ($a:expr, $b:expr, |$x:ident, $y:ident| $body:expr) => {
        match ($a, $b) {
            (BasicValueEnum::IntValue($x), BasicValueEnum::IntValue($y)) => Ok($body.into()),
            (BasicValueEnum::VectorValue($x), BasicValueEnum::VectorValue($y)) => Ok($body.into()),
            _ => Err(BuilderError::NotSameType),
        }
    };
}

/// Applies a typed builder method to one float operand, scalar or vector.
macro_rules! unary_float {
    ($a:expr, |$x:ident| $body:expr) => {
        match $a {
            BasicValueEnum::FloatValue($x) => Ok($body.into()),
            BasicValueEnum::VectorValue($x) => Ok($body.into()),
            _ => Err(BuilderError::NotSameType),
        }
    };
}

impl<'a, 'ctx> Emitter<'a, 'ctx> {
    fn new(
        module: &'a Module<'ctx>,
        builder: &'a Builder<'ctx>,
        x: BasicValueEnum<'ctx>,
    ) -> Result<Self, BuilderError> {
        let (elem, lanes) = match x {
            BasicValueEnum::FloatValue(v) => (v.get_type(), None),
            BasicValueEnum::VectorValue(v) => match v.get_type().get_element_type() {
                BasicTypeEnum::FloatType(t) => (t, Some(v.get_type().get_size())),
                _ => return Err(BuilderError::NotSameType),
            },
            _ => return Err(BuilderError::NotSameType),
        };
        let ctx = elem.get_context();
        let (is_f64, ielem) = if elem == ctx.f64_type() {
            (true, ctx.i64_type())
        } else if elem == ctx.f32_type() {
            (false, ctx.i32_type())
        } else {
            return Err(BuilderError::NotSameType);
        };
        Ok(Emitter {
            module,
            builder,
            elem,
            ielem,
            lanes,
            is_f64,
            avx512: false,
        })
    }

    // ---- constants and types -------------------------------------------------------------

    /// `v` rounded to the element type, splatted to the value type.
    fn splat(&self, v: f64) -> BasicValueEnum<'ctx> {
        let c = self.elem.const_float(v);
        match self.lanes {
            None => c.into(),
            Some(n) => VectorType::const_vector(&vec![c; n as usize]).into(),
        }
    }

    /// An integer constant of the element width, splatted.
    fn isplat(&self, v: i64) -> BasicValueEnum<'ctx> {
        // Two's complement reinterpretation is the intended encoding for negative constants.
        let c = self.ielem.const_int(v as u64, true);
        match self.lanes {
            None => c.into(),
            Some(n) => VectorType::const_vector(&vec![c; n as usize]).into(),
        }
    }

    /// An i1 constant, splatted.
    fn bool_splat(&self, v: bool) -> BasicValueEnum<'ctx> {
        let c = self
            .elem
            .get_context()
            .bool_type()
            .const_int(u64::from(v), false);
        match self.lanes {
            None => c.into(),
            Some(n) => VectorType::const_vector(&vec![c; n as usize]).into(),
        }
    }

    fn float_ty(&self) -> BasicTypeEnum<'ctx> {
        match self.lanes {
            None => self.elem.as_basic_type_enum(),
            Some(n) => self.elem.vec_type(n).as_basic_type_enum(),
        }
    }

    fn int_ty(&self) -> BasicTypeEnum<'ctx> {
        match self.lanes {
            None => self.ielem.as_basic_type_enum(),
            Some(n) => self.ielem.vec_type(n).as_basic_type_enum(),
        }
    }

    /// Mantissa width, exponent bias of the element type.
    fn mantissa_bits(&self) -> i64 {
        if self.is_f64 {
            52
        } else {
            23
        }
    }

    fn bias(&self) -> i64 {
        if self.is_f64 {
            1023
        } else {
            127
        }
    }

    // ---- arithmetic ----------------------------------------------------------------------

    fn fadd(
        &self,
        a: BasicValueEnum<'ctx>,
        b: BasicValueEnum<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>, BuilderError> {
        binary_float!(a, b, |x, y| self.builder.build_float_add(x, y, "")?)
    }

    fn fsub(
        &self,
        a: BasicValueEnum<'ctx>,
        b: BasicValueEnum<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>, BuilderError> {
        binary_float!(a, b, |x, y| self.builder.build_float_sub(x, y, "")?)
    }

    fn fmul(
        &self,
        a: BasicValueEnum<'ctx>,
        b: BasicValueEnum<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>, BuilderError> {
        binary_float!(a, b, |x, y| self.builder.build_float_mul(x, y, "")?)
    }

    fn fdiv(
        &self,
        a: BasicValueEnum<'ctx>,
        b: BasicValueEnum<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>, BuilderError> {
        binary_float!(a, b, |x, y| self.builder.build_float_div(x, y, "")?)
    }

    fn fneg(&self, a: BasicValueEnum<'ctx>) -> Result<BasicValueEnum<'ctx>, BuilderError> {
        unary_float!(a, |x| self.builder.build_float_neg(x, "")?)
    }

    /// `a * b + c`, fused where the target has an FMA.
    fn fma(
        &self,
        a: BasicValueEnum<'ctx>,
        b: BasicValueEnum<'ctx>,
        c: BasicValueEnum<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>, BuilderError> {
        self.call("llvm.fmuladd", &[a, b, c])
    }

    /// `sum coeffs[i] * x^i` by Horner's rule; `coeffs` is lowest degree first.
    fn poly(
        &self,
        x: BasicValueEnum<'ctx>,
        coeffs: &[f64],
    ) -> Result<BasicValueEnum<'ctx>, BuilderError> {
        let mut it = coeffs.iter().rev();
        let mut acc = self.splat(it.next().copied().unwrap_or(0.0));
        for &c in it {
            acc = self.fma(acc, x, self.splat(c))?;
        }
        Ok(acc)
    }

    fn fcmp(
        &self,
        pred: FloatPredicate,
        a: BasicValueEnum<'ctx>,
        b: BasicValueEnum<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>, BuilderError> {
        match (a, b) {
            (BasicValueEnum::FloatValue(x), BasicValueEnum::FloatValue(y)) => {
                Ok(self.builder.build_float_compare(pred, x, y, "")?.into())
            }
            (BasicValueEnum::VectorValue(x), BasicValueEnum::VectorValue(y)) => {
                Ok(self.builder.build_float_compare(pred, x, y, "")?.into())
            }
            _ => Err(BuilderError::NotSameType),
        }
    }

    fn select(
        &self,
        cond: BasicValueEnum<'ctx>,
        then: BasicValueEnum<'ctx>,
        else_: BasicValueEnum<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>, BuilderError> {
        match cond {
            BasicValueEnum::IntValue(c) => self.builder.build_select(c, then, else_, ""),
            BasicValueEnum::VectorValue(c) => self.builder.build_select(c, then, else_, ""),
            _ => Err(BuilderError::NotSameType),
        }
    }

    /// Calls the overloaded intrinsic `name` instantiated at the value type.
    fn call(
        &self,
        name: &str,
        args: &[BasicValueEnum<'ctx>],
    ) -> Result<BasicValueEnum<'ctx>, BuilderError> {
        let args: Vec<BasicMetadataValueEnum<'ctx>> = args.iter().map(|a| (*a).into()).collect();
        self.call_intrinsic(name, &[self.float_ty()], &args)
    }

    /// Calls intrinsic `name` overloaded on `types` (empty for a non-overloaded one).
    fn call_intrinsic(
        &self,
        name: &str,
        types: &[BasicTypeEnum<'ctx>],
        args: &[BasicMetadataValueEnum<'ctx>],
    ) -> Result<BasicValueEnum<'ctx>, BuilderError> {
        // The names are the fixed set used in this file, all of which LLVM defines for the
        // types they are used with (the x86 ones only on targets `x86_scalef` accepts), so a
        // missing declaration is a bug here, not bad input.
        let decl = Intrinsic::find(name)
            .and_then(|i| i.get_declaration(self.module, types))
            .unwrap_or_else(|| panic!("LLVM lacks the intrinsic {name}"));
        let call = self.builder.build_call(decl, args, "")?;
        match call.try_as_basic_value() {
            inkwell::values::ValueKind::Basic(v) => Ok(v),
            inkwell::values::ValueKind::Instruction(_) => Err(BuilderError::NotSameType),
        }
    }

    /// Round to nearest, ties to even: `(|x| + 2^p) - 2^p` with the sign put back, for
    /// `|x| < 2^p` (`p` = mantissa bits); larger magnitudes, infinities and NaN are already
    /// integral or pass through unchanged.
    fn rint(&self, x: BasicValueEnum<'ctx>) -> Result<BasicValueEnum<'ctx>, BuilderError> {
        let big = self.splat((self.mantissa_bits() as f64).exp2());
        let a = self.call("llvm.fabs", &[x])?;
        let r = self.fsub(self.fadd(a, big)?, big)?;
        let r = self.call("llvm.copysign", &[r, x])?;
        let small = self.fcmp(FloatPredicate::OLT, a, big)?;
        self.select(small, r, x)
    }

    /// Round toward minus infinity, from [`Self::rint`].
    fn floor(&self, x: BasicValueEnum<'ctx>) -> Result<BasicValueEnum<'ctx>, BuilderError> {
        let r = self.rint(x)?;
        let above = self.fcmp(FloatPredicate::OGT, r, x)?;
        let r1 = self.fsub(r, self.splat(1.0))?;
        self.select(above, r1, r)
    }

    /// `x` if it is not NaN-ordered below `lo` / above `hi`, else the bound; NaN maps to `lo`,
    /// so the result is always safe to convert to an integer.
    fn clamp(
        &self,
        x: BasicValueEnum<'ctx>,
        lo: f64,
        hi: f64,
    ) -> Result<BasicValueEnum<'ctx>, BuilderError> {
        let below = self.fcmp(FloatPredicate::ULT, x, self.splat(lo))?;
        let x = self.select(below, self.splat(lo), x)?;
        let above = self.fcmp(FloatPredicate::OGT, x, self.splat(hi))?;
        self.select(above, self.splat(hi), x)
    }

    /// `x` where `x` is NaN, else `r`.
    fn keep_nan(
        &self,
        x: BasicValueEnum<'ctx>,
        r: BasicValueEnum<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>, BuilderError> {
        let nan = self.fcmp(FloatPredicate::UNO, x, x)?;
        self.select(nan, x, r)
    }

    // ---- integer view of the encoding ----------------------------------------------------

    fn float_to_bits(&self, x: BasicValueEnum<'ctx>) -> Result<BasicValueEnum<'ctx>, BuilderError> {
        self.builder.build_bit_cast(x, self.int_ty(), "")
    }

    fn bits_to_float(&self, i: BasicValueEnum<'ctx>) -> Result<BasicValueEnum<'ctx>, BuilderError> {
        self.builder.build_bit_cast(i, self.float_ty(), "")
    }

    fn iadd(
        &self,
        a: BasicValueEnum<'ctx>,
        b: BasicValueEnum<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>, BuilderError> {
        binary_int!(a, b, |x, y| self.builder.build_int_add(x, y, "")?)
    }

    fn isub(
        &self,
        a: BasicValueEnum<'ctx>,
        b: BasicValueEnum<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>, BuilderError> {
        binary_int!(a, b, |x, y| self.builder.build_int_sub(x, y, "")?)
    }

    fn iand(
        &self,
        a: BasicValueEnum<'ctx>,
        b: BasicValueEnum<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>, BuilderError> {
        binary_int!(a, b, |x, y| self.builder.build_and(x, y, "")?)
    }

    fn shl(
        &self,
        a: BasicValueEnum<'ctx>,
        b: BasicValueEnum<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>, BuilderError> {
        binary_int!(a, b, |x, y| self.builder.build_left_shift(x, y, "")?)
    }

    fn ashr(
        &self,
        a: BasicValueEnum<'ctx>,
        b: BasicValueEnum<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>, BuilderError> {
        binary_int!(a, b, |x, y| self
            .builder
            .build_right_shift(x, y, true, "")?)
    }

    /// Float to integer of the same width; `x` must be finite and in range (callers clamp).
    fn to_int(&self, x: BasicValueEnum<'ctx>) -> Result<BasicValueEnum<'ctx>, BuilderError> {
        match (x, self.int_ty()) {
            (BasicValueEnum::FloatValue(v), BasicTypeEnum::IntType(t)) => {
                Ok(self.builder.build_float_to_signed_int(v, t, "")?.into())
            }
            (BasicValueEnum::VectorValue(v), BasicTypeEnum::VectorType(t)) => {
                Ok(self.builder.build_float_to_signed_int(v, t, "")?.into())
            }
            _ => Err(BuilderError::NotSameType),
        }
    }

    fn to_float(&self, i: BasicValueEnum<'ctx>) -> Result<BasicValueEnum<'ctx>, BuilderError> {
        match (i, self.float_ty()) {
            (BasicValueEnum::IntValue(v), BasicTypeEnum::FloatType(t)) => {
                Ok(self.builder.build_signed_int_to_float(v, t, "")?.into())
            }
            (BasicValueEnum::VectorValue(v), BasicTypeEnum::VectorType(t)) => {
                Ok(self.builder.build_signed_int_to_float(v, t, "")?.into())
            }
            _ => Err(BuilderError::NotSameType),
        }
    }

    /// `2^k` for an integer `k` within the normal exponent range.
    fn pow2(&self, k: BasicValueEnum<'ctx>) -> Result<BasicValueEnum<'ctx>, BuilderError> {
        let biased = self.iadd(k, self.isplat(self.bias()))?;
        let bits = self.shl(biased, self.isplat(self.mantissa_bits()))?;
        self.bits_to_float(bits)
    }

    /// `v * 2^k` for an integral float `k` with `|k|` up to twice the exponent range, in two
    /// steps so that each factor is a normal number and a denormal result is rounded once; one
    /// `vscalef` where the target has it (see [`Self::x86_scalef`]).
    fn ldexp(
        &self,
        v: BasicValueEnum<'ctx>,
        k: BasicValueEnum<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>, BuilderError> {
        if let Some(scalef) = self.x86_scalef() {
            return self.call_x86_scalef(scalef, v, k);
        }
        let k = self.to_int(k)?;
        let k1 = self.ashr(k, self.isplat(1))?;
        let k2 = self.isub(k, k1)?;
        let v = self.fmul(v, self.pow2(k1)?)?;
        self.fmul(v, self.pow2(k2)?)
    }

    // ---- exp family ----------------------------------------------------------------------

    /// Splits a finite `x` with `|x| < 2^21` into `k` (integral float) and `r` with
    /// `x = k*ln2 + r`, `|r| <= ln2/2` (up to rounding).
    fn exp_reduce(
        &self,
        x: BasicValueEnum<'ctx>,
    ) -> Result<(BasicValueEnum<'ctx>, BasicValueEnum<'ctx>), BuilderError> {
        // High parts with trailing zeros: `k * hi` is exact for the clamped range of `k`.
        let (hi, lo) = if self.is_f64 {
            (0.6931471803691238, 1.9082149292705877e-10)
        } else {
            let hi = 0.693_145_751_953_125;
            (hi, LN_2 - hi)
        };
        // `k = rint(x/ln2)` by adding and subtracting `1.5 * 2^p`: the sum's ulp is 1, so
        // round-to-nearest leaves `k` in it, for `|x/ln2| < 2^(p-1)`. Two operations where
        // `rint` takes six (it must also handle huge and negative inputs).
        let magic = self.splat(1.5 * (self.mantissa_bits() as f64).exp2());
        let k = self.fsub(self.fma(x, self.splat(LOG2_E), magic)?, magic)?;
        let r = self.fma(k, self.splat(-hi), x)?;
        let r = self.fma(k, self.splat(-lo), r)?;
        Ok((k, r))
    }

    /// Taylor coefficients `1/n!` for `n` in `from..=degree`, lowest degree first; the degree
    /// (7 for f32, 13 for f64) makes the truncation error on `|r| <= ln2/2` far below an ulp.
    fn exp_taylor(&self, from: u32) -> Vec<f64> {
        let degree = if self.is_f64 { 13 } else { 7 };
        let mut fact = 1.0;
        let mut coeffs = Vec::new();
        for n in 0..=degree {
            if n > 0 {
                fact *= f64::from(n);
            }
            if n >= from {
                coeffs.push(1.0 / fact);
            }
        }
        coeffs
    }

    /// `e^r - 1` for a reduced `r`, accurate relative to the result:
    /// `r + r^2 * sum_{n>=2} r^(n-2)/n!`.
    fn expm1_reduced(&self, r: BasicValueEnum<'ctx>) -> Result<BasicValueEnum<'ctx>, BuilderError> {
        let q = self.poly(r, &self.exp_taylor(2))?;
        let r2 = self.fmul(r, r)?;
        self.fma(r2, q, r)
    }

    fn exp(&self, x: BasicValueEnum<'ctx>) -> Result<BasicValueEnum<'ctx>, BuilderError> {
        // Above `hi` the result has overflowed to inf, which `ldexp` produces at the bound.
        let (lo, hi) = if self.is_f64 {
            (-746.0, 710.0)
        } else {
            (-104.0, 89.0)
        };
        // Below `lo` the result rounds to 0. Those lanes compute `e^0` instead and are zeroed
        // after: an underflowing multiply costs a microcode assist of about a hundred cycles
        // on x86 (without flush-to-zero), and a masked attention score (`-1e9`) would pay it
        // in every masked lane. The ordered compares let NaN through to `keep_nan`.
        let under = self.fcmp(FloatPredicate::OLT, x, self.splat(lo))?;
        let xs = self.select(under, self.splat(0.0), x)?;
        let over = self.fcmp(FloatPredicate::OGT, xs, self.splat(hi))?;
        let xc = self.select(over, self.splat(hi), xs)?;
        let (k, r) = self.exp_reduce(xc)?;
        // e^r by Horner's rule on the whole Taylor polynomial: one FMA per degree.
        let e = self.ldexp(self.poly(r, &self.exp_taylor(0))?, k)?;
        let e = self.select(under, self.splat(0.0), e)?;
        if self.x86_scalef().is_some() {
            // `vscalef` turns a NaN `k` into NaN by itself (the generic `ldexp` converts `k` to
            // an integer, which is poison for NaN).
            return Ok(e);
        }
        self.keep_nan(x, e)
    }

    /// The AVX-512F intrinsic computing `a * 2^floor(b)` for this value type: 512-bit vectors
    /// only (smaller ones need AVX-512VL), when the target has AVX-512F.
    fn x86_scalef(&self) -> Option<&'static str> {
        match (self.avx512, self.is_f64, self.lanes) {
            (true, false, Some(16)) => Some("llvm.x86.avx512.mask.scalef.ps.512"),
            (true, true, Some(8)) => Some("llvm.x86.avx512.mask.scalef.pd.512"),
            _ => None,
        }
    }

    /// `a * 2^k` for an integral float `k` by the AVX-512 intrinsic `name`: all lanes, the
    /// current rounding mode.
    fn call_x86_scalef(
        &self,
        name: &str,
        a: BasicValueEnum<'ctx>,
        k: BasicValueEnum<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>, BuilderError> {
        let ctx = self.elem.get_context();
        // One mask bit per lane: 16 f32 or 8 f64 lanes.
        let mask_ty = if self.lanes == Some(16) {
            ctx.i16_type()
        } else {
            ctx.i8_type()
        };
        let mask = mask_ty.const_all_ones();
        let current_rounding = ctx.i32_type().const_int(4, false);
        let args: [BasicMetadataValueEnum<'ctx>; 5] = [
            a.into(),
            k.into(),
            a.into(),
            mask.into(),
            current_rounding.into(),
        ];
        self.call_intrinsic(name, &[], &args)
    }

    /// `e^y - 1` for a finite `y` in `[-50, 0]`, accurate relative to the result.
    fn expm1_nonpositive(
        &self,
        y: BasicValueEnum<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>, BuilderError> {
        let (k, r) = self.exp_reduce(y)?;
        let p = self.expm1_reduced(r)?;
        // 2^k * p + (2^k - 1); both terms are exact or nearly so, and they cancel at most
        // mildly because |k| >= 1 implies |e^y - 1| >= 0.29.
        let s = self.ldexp(self.splat(1.0), k)?;
        let s1 = self.fsub(s, self.splat(1.0))?;
        self.fma(s, p, s1)
    }

    fn tanh(&self, x: BasicValueEnum<'ctx>) -> Result<BasicValueEnum<'ctx>, BuilderError> {
        let a = self.call("llvm.fabs", &[x])?;
        let y = self.fmul(a, self.splat(-2.0))?;
        // Beyond this e^y is below half an ulp of 1, so tanh is exactly ±1.
        let floor = if self.is_f64 { -50.0 } else { -20.0 };
        let y = self.clamp(y, floor, 0.0)?;
        let em = self.expm1_nonpositive(y)?;
        let den = self.fadd(em, self.splat(2.0))?;
        let t = self.fdiv(self.fneg(em)?, den)?;
        let t = self.call("llvm.copysign", &[t, x])?;
        self.keep_nan(x, t)
    }

    fn sigmoid(&self, x: BasicValueEnum<'ctx>) -> Result<BasicValueEnum<'ctx>, BuilderError> {
        let a = self.call("llvm.fabs", &[x])?;
        let e = self.exp(self.fneg(a)?)?;
        let den = self.fadd(e, self.splat(1.0))?;
        let pos = self.fdiv(self.splat(1.0), den)?;
        let neg = self.fdiv(e, den)?;
        let is_neg = self.fcmp(FloatPredicate::OLT, x, self.splat(0.0))?;
        self.select(is_neg, neg, pos)
    }

    // ---- log -----------------------------------------------------------------------------

    fn log(&self, x: BasicValueEnum<'ctx>) -> Result<BasicValueEnum<'ctx>, BuilderError> {
        // fdlibm e_log.c / musl logf.c constants.
        let (scale_exp, sqrt_half_bits, ln2_hi, ln2_lo, lg): (i64, i64, f64, f64, &[f64]) =
            if self.is_f64 {
                (
                    54,
                    0x3fe6_a09e_667f_3bcd,
                    0.6931471803691238,
                    1.9082149292705877e-10,
                    &[
                        0.6666666666666735,
                        0.3999999999940942,
                        0.2857142874366239,
                        0.22222198432149784,
                        0.1818357216161805,
                        0.15313837699209373,
                        0.14798198605116586,
                    ],
                )
            } else {
                (
                    25,
                    0x3f35_04f3,
                    6.931_381_225_6e-1,
                    9.058_000_614_5e-6,
                    &[
                        f64::from(0xaa_aaaa_u32) / 16_777_216.0,
                        f64::from(0xcc_ce13_u32) / 33_554_432.0,
                        f64::from(0x91_e9ee_u32) / 33_554_432.0,
                        f64::from(0xf8_9e26_u32) / 67_108_864.0,
                    ],
                )
            };
        let min_normal = if self.is_f64 {
            f64::MIN_POSITIVE
        } else {
            f64::from(f32::MIN_POSITIVE)
        };
        // Denormals (and the non-positive inputs, fixed up at the end) are scaled into the
        // normal range first.
        let tiny = self.fcmp(FloatPredicate::OLT, x, self.splat(min_normal))?;
        let scaled = self.fmul(x, self.splat((scale_exp as f64).exp2()))?;
        let xs = self.select(tiny, scaled, x)?;
        let k_adj = self.select(tiny, self.isplat(-scale_exp), self.isplat(0))?;

        let ix = self.isub(self.float_to_bits(xs)?, self.isplat(sqrt_half_bits))?;
        let k = self.iadd(self.ashr(ix, self.isplat(self.mantissa_bits()))?, k_adj)?;
        let mant_mask = (1i64 << self.mantissa_bits()) - 1;
        let iy = self.iadd(
            self.iand(ix, self.isplat(mant_mask))?,
            self.isplat(sqrt_half_bits),
        )?;
        let m = self.bits_to_float(iy)?;

        let f = self.fsub(m, self.splat(1.0))?;
        let s = self.fdiv(f, self.fadd(f, self.splat(2.0))?)?;
        let z = self.fmul(s, s)?;
        let r = self.fmul(z, self.poly(z, lg)?)?;
        let hfsq = self.fmul(self.fmul(f, f)?, self.splat(0.5))?;
        let dk = self.to_float(k)?;
        let t = self.fmul(s, self.fadd(hfsq, r)?)?;
        let t = self.fma(dk, self.splat(ln2_lo), t)?;
        let t = self.fsub(t, hfsq)?;
        let t = self.fadd(t, f)?;
        let res = self.fma(dk, self.splat(ln2_hi), t)?;

        let is_inf = self.fcmp(FloatPredicate::OEQ, x, self.splat(f64::INFINITY))?;
        let res = self.select(is_inf, x, res)?;
        let is_zero = self.fcmp(FloatPredicate::OEQ, x, self.splat(0.0))?;
        let res = self.select(is_zero, self.splat(f64::NEG_INFINITY), res)?;
        let invalid = self.fcmp(FloatPredicate::ULT, x, self.splat(0.0))?;
        self.select(invalid, self.splat(f64::NAN), res)
    }

    // ---- erf -----------------------------------------------------------------------------

    fn erf(&self, x: BasicValueEnum<'ctx>) -> Result<BasicValueEnum<'ctx>, BuilderError> {
        if !self.is_f64 {
            return self.erf_f32(x);
        }
        let a = self.call("llvm.fabs", &[x])?;
        let (cut, terms) = (2.0, 30);
        // Taylor: erf(x) = 2/sqrt(pi) * sum (-1)^n x^(2n+1) / (n! (2n+1)).
        let mut coeffs = Vec::with_capacity(terms);
        let mut fact = 1.0;
        for n in 0..terms {
            if n > 0 {
                fact *= n as f64;
            }
            let sign = if n % 2 == 0 { 1.0 } else { -1.0 };
            coeffs.push(sign * FRAC_2_SQRT_PI / (fact * (2 * n + 1) as f64));
        }
        let z = self.fmul(x, x)?;
        let small = self.fmul(x, self.poly(z, &coeffs)?)?;
        let erfc = self.erfc_continued_fraction(a, cut)?;
        self.erf_join(x, a, cut, small, erfc)
    }

    /// erf from its two branches: `small` where `|x| < cut`, else `1 - erfc` with `x`'s sign;
    /// NaN stays NaN.
    fn erf_join(
        &self,
        x: BasicValueEnum<'ctx>,
        a: BasicValueEnum<'ctx>,
        cut: f64,
        small: BasicValueEnum<'ctx>,
        erfc: BasicValueEnum<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>, BuilderError> {
        let large = self.call("llvm.copysign", &[self.fsub(self.splat(1.0), erfc)?, x])?;
        let is_small = self.fcmp(FloatPredicate::OLT, a, self.splat(cut))?;
        let r = self.select(is_small, small, large)?;
        self.keep_nan(x, r)
    }

    /// f32 erf: `x * P(x^2)` for `|x| < 1`, `1 - Q(|x| - 2.5)` with `Q` close to erfc for
    /// `1 <= |x| <= 4`, `|x|` clamped to 4 beyond (where erf rounds to 1). Both are
    /// least-squares polynomials from `scripts/fit_erf_f32.py`, which also checks them as
    /// evaluated here (f32 coefficients, fused multiply-adds): 1.3e-7 and 8.6e-8 absolute.
    fn erf_f32(&self, x: BasicValueEnum<'ctx>) -> Result<BasicValueEnum<'ctx>, BuilderError> {
        const LOW: [f64; 6] = [
            1.128_379_078_990_143_6,
            -3.761_226_447_264_834_4e-1,
            1.127_998_689_192_930_8e-1,
            -2.671_028_684_895_281_4e-2,
            4.919_779_510_463_357e-3,
            -5.650_853_664_576_626e-4,
        ];
        const HIGH: [f64; 15] = [
            4.069_523_075_606_378_5e-4,
            -2.178_210_112_530_229e-3,
            5.445_691_558_332_243e-3,
            -8.351_416_470_462_877e-3,
            8.622_581_685_001_192e-3,
            -6.110_488_472_749_433e-3,
            2.797_619_993_058_191_6e-3,
            -5.580_777_600_769_132e-4,
            -2.588_191_820_631_004e-4,
            2.687_973_329_214_159_5e-4,
            -8.103_854_170_974_23e-5,
            -1.706_783_219_838_796_8e-5,
            1.569_803_751_087_428e-5,
            -5.992_442_004_922_444e-7,
            -8.872_908_447_181_907e-7,
        ];
        let a = self.call("llvm.fabs", &[x])?;
        let small = self.fmul(x, self.poly(self.fmul(x, x)?, &LOW)?)?;
        let u = self.fsub(self.clamp(a, 1.0, 4.0)?, self.splat(2.5))?;
        let erfc = self.poly(u, &HIGH)?;
        self.erf_join(x, a, 1.0, small, erfc)
    }

    /// erfc(a) = e^(-a^2)/sqrt(pi) / (a + (1/2)/(a + 1/(a + (3/2)/(a + ...)))) for `a >= cut`,
    /// evaluated backwards at a fixed depth (40 gives f64 accuracy for `a >= 2`).
    fn erfc_continued_fraction(
        &self,
        a: BasicValueEnum<'ctx>,
        cut: f64,
    ) -> Result<BasicValueEnum<'ctx>, BuilderError> {
        // Inputs below `cut` use the other branch; clamping keeps this one finite. erf(6)
        // rounds to 1 in f64.
        let a = self.clamp(a, cut, 6.0)?;
        let mut t = a;
        for k in (1..=40).rev() {
            t = self.fadd(a, self.fdiv(self.splat(f64::from(k) * 0.5), t)?)?;
        }
        let e = self.exp(self.fneg(self.fmul(a, a)?)?)?;
        let e = self.fmul(e, self.splat(0.5 * FRAC_2_SQRT_PI))?;
        self.fdiv(e, t)
    }

    // ---- sin / cos -----------------------------------------------------------------------

    fn sin_cos(
        &self,
        x: BasicValueEnum<'ctx>,
        cos: bool,
    ) -> Result<BasicValueEnum<'ctx>, BuilderError> {
        let k = self.rint(self.fmul(x, self.splat(2.0 / std::f64::consts::PI))?)?;
        let parts = if self.is_f64 {
            pi_over_2_parts(&[33, 33])
        } else {
            pi_over_2_parts(&[8, 8, 8])
        };
        let mut r = x;
        for p in parts {
            r = self.fsub(r, self.fmul(k, self.splat(p))?)?;
        }
        let z = self.fmul(r, r)?;
        let (sin_terms, cos_terms) = if self.is_f64 { (8, 9) } else { (4, 5) };
        // sin r = r + r*z*S(z), S = sum_{n>=1} (-1)^n z^(n-1) / (2n+1)!
        // cos r = 1 - z/2 + z^2*C(z), C = sum_{n>=2} (-1)^n z^(n-2) / (2n)!
        let mut s_coeffs = Vec::new();
        let mut c_coeffs = Vec::new();
        let mut fact = 2.0; // 2!
        for n in 1..=cos_terms.max(sin_terms) {
            let sign = if n % 2 == 0 { 1.0 } else { -1.0 };
            if n >= 2 && n <= cos_terms {
                c_coeffs.push(sign / fact);
            }
            fact *= (2 * n + 1) as f64;
            if n <= sin_terms {
                s_coeffs.push(sign / fact);
            }
            fact *= (2 * n + 2) as f64;
        }
        let s = self.fma(self.fmul(r, z)?, self.poly(z, &s_coeffs)?, r)?;
        let c_tail = self.fmul(self.fmul(z, z)?, self.poly(z, &c_coeffs)?)?;
        let c = self.fadd(self.fma(z, self.splat(-0.5), self.splat(1.0))?, c_tail)?;

        // Quadrant q = (k + [cos]) mod 4, kept in floating point so no input can make an
        // integer conversion poison: sin(x) = [s, c, -s, -c][q].
        let qk = if cos {
            self.fadd(k, self.splat(1.0))?
        } else {
            k
        };
        let q4 = self.floor(self.fmul(qk, self.splat(0.25))?)?;
        let q = self.fsub(qk, self.fmul(q4, self.splat(4.0))?)?;
        let q2 = self.floor(self.fmul(q, self.splat(0.5))?)?;
        let odd = self.fcmp(
            FloatPredicate::OEQ,
            self.fsub(q, self.fmul(q2, self.splat(2.0))?)?,
            self.splat(1.0),
        )?;
        let v = self.select(odd, c, s)?;
        let neg = self.fcmp(FloatPredicate::OGE, q, self.splat(2.0))?;
        let v = self.select(neg, self.fneg(v)?, v)?;
        if cos {
            Ok(v)
        } else {
            // sin(±0) = ±0; the reduction turns -0 into +0.
            let zero = self.fcmp(FloatPredicate::OEQ, x, self.splat(0.0))?;
            self.select(zero, x, v)
        }
    }
}

/// `pi/2` split into parts of the given bit widths followed by one remainder part, from a
/// double-double `pi/2` (106 bits). With `k` of at most `53 - w` bits (f64) or `24 - w` bits
/// (f32, all widths 8), `k * part` is exact for every part but the last.
fn pi_over_2_parts(widths: &[u32]) -> Vec<f64> {
    // pi/2 - FRAC_PI_2, the low half of the double-double.
    let mut hi = FRAC_PI_2;
    let mut lo = 6.123_233_995_736_766e-17;
    let mut parts = Vec::with_capacity(widths.len() + 1);
    for &w in widths {
        let mask = !((1u64 << (53 - w)) - 1);
        let part = f64::from_bits(hi.to_bits() & mask);
        parts.push(part);
        // hi - part is exact (it drops leading bits); renormalize the pair.
        let rest = hi - part;
        hi = rest + lo;
        lo -= hi - rest;
    }
    parts.push(hi + lo);
    parts
}

#[cfg(test)]
mod tests {
    //! Accuracy tests: each function is JIT-compiled for f32, f64 and `<8 x f32>`, run over
    //! dense sweeps, a sweep of bit patterns (denormals, huge values, NaNs) and special values,
    //! and compared with f64 references. `cargo test -p dlc-codegen math -- --nocapture`
    //! prints the measured errors.

    use super::*;
    use inkwell::context::Context;
    use inkwell::targets::{InitializationConfig, Target};
    use inkwell::values::BasicValue;
    use inkwell::{AddressSpace, IntPredicate, OptimizationLevel};

    #[derive(Copy, Clone, PartialEq, Eq, Debug)]
    enum Kind {
        F32,
        F64,
        V8F32,
        /// 16 x f32 with AVX-512F (`vscalefps`): tested only on hosts that have it.
        V16F32Avx512,
    }

    /// Whether this host can run the AVX-512F variant.
    fn host_avx512f() -> bool {
        crate::target::CpuTarget::Host.has_avx512f()
    }

    const ALL: [MathFn; 7] = [
        MathFn::Exp,
        MathFn::Log,
        MathFn::Tanh,
        MathFn::Erf,
        MathFn::Sin,
        MathFn::Cos,
        MathFn::Sigmoid,
    ];

    /// Emits the operation under test from its operands.
    type Op =
        dyn for<'c> Fn(&Module<'c>, &Builder<'c>, &[BasicValueEnum<'c>]) -> BasicValueEnum<'c>;

    type Kernel = unsafe extern "C" fn(*const u8, *const u8, *mut u8, i64);

    /// JITs `out[i] = op(in0[i], in1[i])` for `kind` and runs it over `a` (and `b`).
    fn run(kind: Kind, a: &[f64], b: &[f64], op: &Op) -> Vec<f64> {
        Target::initialize_native(&InitializationConfig::default()).expect("native target");
        let ctx = Context::create();
        let module = ctx.create_module("math_test");
        let builder = ctx.create_builder();
        let (val_ty, lanes): (BasicTypeEnum, usize) = match kind {
            Kind::F32 => (ctx.f32_type().into(), 1),
            Kind::F64 => (ctx.f64_type().into(), 1),
            Kind::V8F32 => (ctx.f32_type().vec_type(8).into(), 8),
            Kind::V16F32Avx512 => (ctx.f32_type().vec_type(16).into(), 16),
        };
        let ptr = ctx.ptr_type(AddressSpace::default());
        let i64t = ctx.i64_type();
        let fn_ty = ctx
            .void_type()
            .fn_type(&[ptr.into(), ptr.into(), ptr.into(), i64t.into()], false);
        let func = module.add_function("kernel", fn_ty, None);
        if kind == Kind::V16F32Avx512 {
            let features = inkwell::targets::TargetMachine::get_host_cpu_features();
            func.add_attribute(
                inkwell::attributes::AttributeLoc::Function,
                ctx.create_string_attribute("target-features", &features.to_string()),
            );
        }
        let entry = ctx.append_basic_block(func, "entry");
        let body = ctx.append_basic_block(func, "body");
        let exit = ctx.append_basic_block(func, "exit");
        let p = |i: u32| func.get_nth_param(i).expect("param");
        let (in0, in1, out) = (
            p(0).into_pointer_value(),
            p(1).into_pointer_value(),
            p(2).into_pointer_value(),
        );
        let n = p(3).into_int_value();

        builder.position_at_end(entry);
        let nonempty = builder
            .build_int_compare(IntPredicate::SGT, n, i64t.const_zero(), "")
            .unwrap();
        builder
            .build_conditional_branch(nonempty, body, exit)
            .unwrap();

        builder.position_at_end(body);
        let phi = builder.build_phi(i64t, "i").unwrap();
        let i = phi.as_basic_value().into_int_value();
        let load = |base| {
            // SAFETY: the harness passes buffers of `n` values of `val_ty`, and `i < n`.
            let ptr = unsafe { builder.build_gep(val_ty, base, &[i], "").unwrap() };
            let v = builder.build_load(val_ty, ptr, "").unwrap();
            v.as_instruction_value().unwrap().set_alignment(4).unwrap();
            v
        };
        let args = [load(in0), load(in1)];
        let y = op(&module, &builder, &args);
        // SAFETY: as for the loads.
        let optr = unsafe { builder.build_gep(val_ty, out, &[i], "").unwrap() };
        builder
            .build_store(optr, y)
            .unwrap()
            .set_alignment(4)
            .unwrap();
        let next = builder
            .build_int_add(i, i64t.const_int(1, false), "")
            .unwrap();
        let more = builder
            .build_int_compare(IntPredicate::SLT, next, n, "")
            .unwrap();
        builder.build_conditional_branch(more, body, exit).unwrap();
        phi.add_incoming(&[(&i64t.const_zero(), entry), (&next, body)]);

        builder.position_at_end(exit);
        builder.build_return(None).unwrap();
        if let Err(e) = module.verify() {
            panic!("invalid module: {}\n{}", e, module.print_to_string());
        }

        let padded = a.len().div_ceil(lanes) * lanes;
        let count = (padded / lanes) as i64;
        let pad = |v: &[f64]| {
            let mut v = v.to_vec();
            v.resize(padded, 1.0);
            v
        };
        let (a, b) = (pad(a), pad(if b.is_empty() { a } else { b }));
        let engine = module
            .create_jit_execution_engine(OptimizationLevel::Aggressive)
            .expect("jit");
        // SAFETY: `kernel` has the signature `Kernel`.
        let kernel = unsafe { engine.get_function::<Kernel>("kernel").expect("kernel") };
        let result = if kind == Kind::F64 {
            let mut o = vec![0f64; padded];
            // SAFETY: all three buffers hold `count` values of the kernel's element type.
            unsafe {
                kernel.call(
                    a.as_ptr().cast(),
                    b.as_ptr().cast(),
                    o.as_mut_ptr().cast(),
                    count,
                )
            };
            o
        } else {
            let a32: Vec<f32> = a.iter().map(|&v| v as f32).collect();
            let b32: Vec<f32> = b.iter().map(|&v| v as f32).collect();
            let mut o = vec![0f32; padded];
            // SAFETY: as above, f32 elements.
            unsafe {
                kernel.call(
                    a32.as_ptr().cast(),
                    b32.as_ptr().cast(),
                    o.as_mut_ptr().cast(),
                    count,
                )
            };
            o.into_iter().map(f64::from).collect()
        };
        result
    }

    fn run_math(f: MathFn, kind: Kind, xs: &[f64]) -> Vec<f64> {
        let mut out = run(kind, xs, &[], &move |m, b, args| {
            emit_math(m, b, f, args[0], kind == Kind::V16F32Avx512).unwrap()
        });
        out.truncate(xs.len());
        out
    }

    /// erf to 1-2 ulp (checked against mpmath): the Taylor series, summed smallest term
    /// first, below 1; the erfc continued fraction, 1000 deep, above.
    fn erf_ref(x: f64) -> f64 {
        let a = x.abs();
        if a >= 7.0 {
            return 1f64.copysign(x);
        }
        let r = if a < 1.0 {
            let mut terms = Vec::new();
            let (mut term, mut n) = (1.0f64, 0.0);
            loop {
                let c = term / (2.0 * n + 1.0);
                terms.push(c);
                if c.abs() < 1e-20 {
                    break;
                }
                n += 1.0;
                term *= -a * a / n;
            }
            FRAC_2_SQRT_PI * a * terms.iter().rev().sum::<f64>()
        } else {
            // e^(-a^2) with a^2 as an exact hi+lo pair.
            let hi = a * a;
            let lo = a.mul_add(a, -hi);
            let e = (-hi).exp() * (1.0 - lo);
            let mut t = a;
            for k in (1..=1000).rev() {
                t = a + f64::from(k) * 0.5 / t;
            }
            1.0 - e * 0.5 * FRAC_2_SQRT_PI / t
        };
        r.copysign(x)
    }

    fn reference(f: MathFn, x: f64) -> f64 {
        match f {
            MathFn::Exp => x.exp(),
            MathFn::Log => x.ln(),
            MathFn::Tanh => x.tanh(),
            MathFn::Erf => erf_ref(x),
            MathFn::Sin => x.sin(),
            MathFn::Cos => x.cos(),
            MathFn::Sigmoid => {
                let e = (-x.abs()).exp();
                if x < 0.0 {
                    e / (1.0 + e)
                } else {
                    1.0 / (1.0 + e)
                }
            }
        }
    }

    fn relative(f: MathFn) -> bool {
        matches!(
            f,
            MathFn::Exp | MathFn::Log | MathFn::Tanh | MathFn::Sigmoid
        )
    }

    /// The dense sweep range and whether the accuracy claim covers `x`.
    fn domain(f: MathFn, is_f64: bool) -> (f64, f64) {
        match (f, is_f64) {
            (MathFn::Exp, false) => (-110.0, 95.0),
            (MathFn::Exp, true) => (-750.0, 715.0),
            (MathFn::Log, _) => (0.0, 10.0),
            (MathFn::Tanh, _) => (-12.0, 12.0),
            (MathFn::Erf, _) => (-7.0, 7.0),
            (MathFn::Sin | MathFn::Cos, _) => (-20.0, 20.0),
            (MathFn::Sigmoid, false) => (-120.0, 120.0),
            (MathFn::Sigmoid, true) => (-760.0, 760.0),
        }
    }

    fn inputs(f: MathFn, is_f64: bool) -> Vec<f64> {
        let n = 1 << 19;
        let (lo, hi) = domain(f, is_f64);
        let mut xs: Vec<f64> = (0..n)
            .map(|i| lo + (hi - lo) * (i as f64 + 0.37) / n as f64)
            .collect();
        // Every region of the encoding: denormals, huge values, infinities, NaNs.
        for i in 0..n as u64 {
            let x = if is_f64 {
                f64::from_bits(i.wrapping_mul(1 << 45).wrapping_add(i * 7919))
            } else {
                f64::from(f32::from_bits(
                    (i as u32).wrapping_mul(1 << 13).wrapping_add(i as u32 * 7),
                ))
            };
            xs.push(x);
        }
        if matches!(f, MathFn::Sin | MathFn::Cos) {
            xs.extend((0..n).map(|i| -1e5 + 2e5 * (i as f64 + 0.5) / n as f64));
        }
        let specials = [
            0.0,
            -0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            1.0,
            -1.0,
            f64::from(f32::MIN_POSITIVE),
            1e-45,
            f64::from(f32::MAX),
            88.72,
            88.73,
            -103.97,
            -87.3,
            709.78,
            -745.1,
            f64::MIN_POSITIVE,
            5e-324,
            f64::MAX,
            1e5,
            -1e5,
        ];
        xs.extend(specials);
        if !is_f64 {
            for x in &mut xs {
                *x = f64::from(*x as f32);
            }
        }
        xs
    }

    /// Checks `f` in `kind` and returns the measured max error and its argument.
    fn check(f: MathFn, kind: Kind) -> (f64, f64) {
        let is_f64 = kind == Kind::F64;
        let xs = inputs(f, is_f64);
        let got = run_math(f, kind, &xs);
        let min_normal = if is_f64 {
            f64::MIN_POSITIVE
        } else {
            f64::from(f32::MIN_POSITIVE)
        };
        let (mut worst, mut at) = (0.0f64, 0.0f64);
        for (&x, &g) in xs.iter().zip(&got) {
            let trig = matches!(f, MathFn::Sin | MathFn::Cos);
            if trig && x.abs() > 1e5 && x.is_finite() {
                continue;
            }
            let r = reference(f, x);
            let rounded = if is_f64 { r } else { f64::from(r as f32) };
            if r.is_nan() {
                assert!(g.is_nan(), "{f:?} {kind:?}({x:e}) = {g:e}, expected NaN");
                continue;
            }
            if rounded.is_infinite() || g.is_infinite() {
                assert_eq!(g, rounded, "{f:?} {kind:?}({x:e})");
                continue;
            }
            let err = if relative(f) {
                (g - r).abs() / r.abs().max(min_normal)
            } else {
                (g - r).abs()
            };
            if err.is_nan() || err > worst {
                worst = err;
                at = x;
            }
        }
        (worst, at)
    }

    #[test]
    fn accuracy_all() {
        let avx512 = host_avx512f().then_some(Kind::V16F32Avx512);
        let kinds: Vec<Kind> = [Kind::F32, Kind::F64, Kind::V8F32]
            .into_iter()
            .chain(avx512)
            .collect();
        let cases: Vec<(MathFn, Kind)> = ALL
            .iter()
            .flat_map(|&f| kinds.iter().map(move |&kind| (f, kind)))
            .collect();
        // Every function and kind compiles and sweeps its inputs on its own: on the pool.
        let checked = dlc_testkit::par_map(&cases, |&(f, kind)| check(f, kind));
        let mut failures = Vec::new();
        for (&(f, kind), (err, at)) in cases.iter().zip(checked) {
            let claim = claimed_error(f, kind == Kind::F64);
            println!("{f:?} {kind:?}: max error {err:.3e} at x = {at:e} (claim {claim:e})");
            if err.is_nan() || err > claim {
                failures.push(format!("{f:?} {kind:?}: {err:e} at {at:e} > {claim:e}"));
            }
        }
        assert!(failures.is_empty(), "{failures:#?}");
    }

    /// The AVX-512 `exp` (scaling by `vscalefps`) on the special values of the scalar test.
    #[test]
    fn avx512_exp_special_values() {
        if !host_avx512f() {
            return;
        }
        let inf = f64::INFINITY;
        let cases = [
            (f64::NAN, f32::NAN),
            (0.0, 1.0),
            (inf, f32::INFINITY),
            (-inf, 0.0),
            (88.73, f32::INFINITY),
            (-104.0, 0.0),
            (-1e9, 0.0),
            (-103.9, f32::from_bits(1)),
            (1.0, std::f32::consts::E),
        ];
        let xs: Vec<f64> = cases.iter().map(|c| c.0).collect();
        let got = run_math(MathFn::Exp, Kind::V16F32Avx512, &xs);
        for ((x, want), got) in cases.iter().zip(got) {
            let got = got as f32;
            assert!(
                got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                "exp({x:e}) = {got:e}, want {want:e}"
            );
        }
        assert!(run_math(MathFn::Exp, Kind::V16F32Avx512, &[-103.0])[0] > 0.0);
    }

    fn eval32(f: MathFn, x: f32) -> f32 {
        run_math(f, Kind::F32, &[f64::from(x)])[0] as f32
    }

    #[test]
    fn f32_special_values() {
        let inf = f32::INFINITY;
        let same = |f: MathFn, x: f32, want: f32| {
            let got = eval32(f, x);
            assert!(
                got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                "{f:?}({x:e}) = {got:e}, want {want:e}"
            );
        };
        for f in ALL {
            same(f, f32::NAN, f32::NAN);
        }
        same(MathFn::Exp, 0.0, 1.0);
        same(MathFn::Exp, -0.0, 1.0);
        same(MathFn::Exp, inf, inf);
        same(MathFn::Exp, -inf, 0.0);
        same(MathFn::Exp, 88.73, inf);
        same(MathFn::Exp, -104.0, 0.0);
        // Below -104 the result rounds to 0 (a masked attention score); just above it,
        // gradual underflow still gives the nearest denormal.
        same(MathFn::Exp, -104.5, 0.0);
        same(MathFn::Exp, -1e9, 0.0);
        assert_eq!(eval32(MathFn::Exp, -103.9), f32::from_bits(1));
        assert!(eval32(MathFn::Exp, 88.72).is_finite());
        assert!(eval32(MathFn::Exp, -103.0) > 0.0);
        same(MathFn::Log, 0.0, -inf);
        same(MathFn::Log, -0.0, -inf);
        same(MathFn::Log, -1.0, f32::NAN);
        same(MathFn::Log, -inf, f32::NAN);
        same(MathFn::Log, inf, inf);
        same(MathFn::Log, 1.0, 0.0);
        let den = eval32(MathFn::Log, 1e-45);
        assert!(
            (f64::from(den) - 1e-45f32.ln() as f64).abs() < 1e-5,
            "log(1e-45) = {den}"
        );
        same(MathFn::Tanh, 0.0, 0.0);
        same(MathFn::Tanh, -0.0, -0.0);
        same(MathFn::Tanh, inf, 1.0);
        same(MathFn::Tanh, -inf, -1.0);
        same(MathFn::Tanh, 20.0, 1.0);
        same(MathFn::Tanh, -9.5, -1.0);
        same(MathFn::Erf, 0.0, 0.0);
        same(MathFn::Erf, -0.0, -0.0);
        same(MathFn::Erf, inf, 1.0);
        same(MathFn::Erf, -inf, -1.0);
        same(MathFn::Sin, 0.0, 0.0);
        same(MathFn::Sin, -0.0, -0.0);
        same(MathFn::Sin, inf, f32::NAN);
        same(MathFn::Sin, -inf, f32::NAN);
        same(MathFn::Cos, 0.0, 1.0);
        same(MathFn::Cos, inf, f32::NAN);
        same(MathFn::Sigmoid, 0.0, 0.5);
        same(MathFn::Sigmoid, inf, 1.0);
        same(MathFn::Sigmoid, -inf, 0.0);
        assert!(
            eval32(MathFn::Sigmoid, -100.0) > 0.0,
            "sigmoid keeps denormal results"
        );
    }

    fn pow_kernel(kind: Kind, a: &[f64], b: &[f64]) -> Vec<f64> {
        let mut out = run(kind, a, b, &move |m, bl, args| {
            emit_powf(m, bl, args[0], args[1], kind == Kind::V16F32Avx512).unwrap()
        });
        out.truncate(a.len());
        out
    }

    #[test]
    fn powf_special_cases() {
        let (inf, nan) = (f64::INFINITY, f64::NAN);
        let cases: &[(f64, f64, f64)] = &[
            (2.0, 3.0, 8.0),
            (2.0, 0.5, std::f64::consts::SQRT_2),
            (nan, 0.0, 1.0),
            (nan, -0.0, 1.0),
            (1.0, nan, 1.0),
            (1.0, inf, 1.0),
            (-1.0, inf, 1.0),
            (-1.0, -inf, 1.0),
            (nan, 2.0, nan),
            (2.0, nan, nan),
            (-1.0, nan, nan),
            (-2.0, 3.0, -8.0),
            (-2.0, 2.0, 4.0),
            (-2.0, 0.5, nan),
            (0.0, 2.0, 0.0),
            (-0.0, 3.0, -0.0),
            (-0.0, 2.0, 0.0),
            (0.0, -1.0, inf),
            (-0.0, -1.0, -inf),
            (-0.0, -2.0, inf),
            (0.0, -inf, inf),
            (0.0, inf, 0.0),
            (2.0, inf, inf),
            (0.5, inf, 0.0),
            (-2.0, inf, inf),
            (inf, 2.0, inf),
            (inf, -2.0, 0.0),
            (-inf, 3.0, -inf),
            (-inf, -3.0, -0.0),
            (-inf, 2.0, inf),
        ];
        for kind in [Kind::F32, Kind::F64, Kind::V8F32] {
            let a: Vec<f64> = cases.iter().map(|c| c.0).collect();
            let b: Vec<f64> = cases.iter().map(|c| c.1).collect();
            let got = pow_kernel(kind, &a, &b);
            let tol = if kind == Kind::F64 { 1e-15 } else { 3e-7 };
            for (&(a, b, want), &g) in cases.iter().zip(&got) {
                let ok = (g.is_nan() && want.is_nan())
                    || (g == want && g.is_sign_negative() == want.is_sign_negative())
                    || (want.is_finite() && want != 0.0 && ((g - want) / want).abs() <= tol);
                assert!(ok, "{kind:?} pow({a:e}, {b:e}) = {g:e}, want {want:e}");
            }
        }
    }

    #[test]
    fn powf_accuracy() {
        let n = 1 << 16;
        let a: Vec<f64> = (0..n)
            .map(|i| 1e-3 + 100.0 * (i as f64 + 0.5) / n as f64)
            .collect();
        let b: Vec<f64> = (0..n)
            .map(|i| -8.0 + 16.0 * ((i * 7919) % n) as f64 / n as f64)
            .collect();
        for kind in [Kind::F32, Kind::F64] {
            let (a, b): (Vec<f64>, Vec<f64>) = if kind == Kind::F64 {
                (a.clone(), b.clone())
            } else {
                (
                    a.iter().map(|&v| f64::from(v as f32)).collect(),
                    b.iter().map(|&v| f64::from(v as f32)).collect(),
                )
            };
            let got = pow_kernel(kind, &a, &b);
            let eps = if kind == Kind::F64 {
                f64::EPSILON
            } else {
                f64::from(f32::EPSILON)
            };
            let mut worst = 0.0f64;
            for ((&a, &b), &g) in a.iter().zip(&b).zip(&got) {
                let want = a.powf(b);
                if !want.is_finite() || (kind != Kind::F64 && !(want as f32).is_normal()) {
                    continue;
                }
                // The documented bound: |b ln a| ulps from rounding the product, plus exp's.
                let bound = (b * a.ln()).abs() * eps + 4.0 * eps;
                let err = ((g - want) / want).abs();
                assert!(
                    err <= bound,
                    "{kind:?} pow({a:e}, {b:e}) = {g:e}, want {want:e}"
                );
                worst = worst.max(err / eps);
            }
            println!("powf {kind:?}: max error {worst:.2} eps");
        }
    }
}
