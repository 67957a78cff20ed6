//! `arith` and `math` ops on scalars and vectors.
//!
//! Most ops map one to one onto an LLVM instruction or intrinsic; both scalar and vector
//! operands go through the same generic builder calls. Three choices differ from a literal
//! mapping, each because the literal one could crash or slow the program:
//! - integer division and remainder by a value that is not a non-zero constant are guarded:
//!   a zero divisor (and `INT_MIN / -1`) yields 0 instead of a hardware trap;
//! - transcendental `math` ops are expanded inline by `math.rs` (vectorizable, no libm, the same
//!   code for the CPU and NVPTX); `f16`/`bf16` compute in `f32`;
//! - `addf`/`mulf` carry LLVM's `reassoc` flag, so reductions (a running sum in a register
//!   buffer) vectorize: the sum is then accumulated in per-lane partial sums, a different
//!   rounding order within the tolerance docs/testing.md states; nothing else is relaxed
//!   (no `nnan`/`ninf`, and `math.rs`'s expansions carry no flags at all);
//! - `maximumf`/`minimumf` use LLVM's NaN-propagating `llvm.maximum`/`llvm.minimum`, matching
//!   the interpreter.
//!
//! A `truncf` with a rounding mode other than to-nearest-even is refused with an error rather
//! than rounded to nearest.

use crate::error::{CgError, CgResult};
use crate::function::{FnLowering, Machine};
use crate::math::{emit_math, emit_math_call, emit_powf, MathFn};
use crate::types::value_type;
use dlc_arith::{rounding_mode, ArithOps, RoundingMode};
use dlc_ir::{AttrKind, DenseValue, Op};
use dlc_loop::math::{MathOps, ScalarOp};
use inkwell::types::BasicTypeEnum;
use inkwell::values::{BasicValueEnum, FastMathFlags, InstructionOpcode as Opc};
use inkwell::{FloatPredicate, IntPredicate};

/// The lowered operands of an op, read by position.
struct Operands<'a, 'ctx> {
    values: Vec<BasicValueEnum<'ctx>>,
    /// The op's name, for the error on a missing operand.
    name: &'a str,
}

impl<'ctx> Operands<'_, 'ctx> {
    fn get(&self, i: usize) -> CgResult<BasicValueEnum<'ctx>> {
        self.values
            .get(i)
            .copied()
            .ok_or_else(|| format!("'{}' has too few operands", self.name).into())
    }
}

impl<'ctx> FnLowering<'_, 'ctx> {
    pub(crate) fn lower_scalar(&mut self, scalar: ScalarOp) -> CgResult<()> {
        let ctx = self.ctx;
        let op = scalar.op();
        let result = ctx.result(op, 0);
        let result_ty = value_type(self.llvm, ctx, ctx.value_type(result))?;
        let args = Operands {
            values: ctx
                .operands(op)
                .iter()
                .map(|&v| self.value(v))
                .collect::<CgResult<Vec<_>>>()?,
            name: ctx.op_name(op),
        };
        let value = match scalar {
            ScalarOp::Arith(a) => self.arith(a, &args, result_ty)?,
            ScalarOp::Math(m) => self.math_op(m, &args, result_ty)?,
        };
        self.values.insert(result, value);
        Ok(())
    }

    fn arith(
        &self,
        op: ArithOps,
        args: &Operands<'_, 'ctx>,
        result_ty: BasicTypeEnum<'ctx>,
    ) -> CgResult<BasicValueEnum<'ctx>> {
        use ArithOps as A;
        let arg = |i: usize| args.get(i);
        let b = &self.builder;
        Ok(match op {
            A::ConstantOp(c) => self.constant(c, result_ty)?,
            A::AddIOp(_) => b.build_binop(Opc::Add, arg(0)?, arg(1)?, "")?,
            A::SubIOp(_) => b.build_binop(Opc::Sub, arg(0)?, arg(1)?, "")?,
            A::MulIOp(_) => b.build_binop(Opc::Mul, arg(0)?, arg(1)?, "")?,
            A::AndIOp(_) => b.build_binop(Opc::And, arg(0)?, arg(1)?, "")?,
            A::OrIOp(_) => b.build_binop(Opc::Or, arg(0)?, arg(1)?, "")?,
            A::XOrIOp(_) => b.build_binop(Opc::Xor, arg(0)?, arg(1)?, "")?,
            A::ShLIOp(_) => b.build_binop(Opc::Shl, arg(0)?, arg(1)?, "")?,
            A::ShRSIOp(_) => b.build_binop(Opc::AShr, arg(0)?, arg(1)?, "")?,
            A::ShRUIOp(_) => b.build_binop(Opc::LShr, arg(0)?, arg(1)?, "")?,
            A::DivSIOp(_) => self.guarded_division(Opc::SDiv, arg(0)?, arg(1)?)?,
            A::DivUIOp(_) => self.guarded_division(Opc::UDiv, arg(0)?, arg(1)?)?,
            A::RemSIOp(_) => self.guarded_division(Opc::SRem, arg(0)?, arg(1)?)?,
            A::RemUIOp(_) => self.guarded_division(Opc::URem, arg(0)?, arg(1)?)?,
            A::MaxSIOp(_) => self.intrinsic_call("llvm.smax", &[arg(0)?, arg(1)?])?,
            A::MinSIOp(_) => self.intrinsic_call("llvm.smin", &[arg(0)?, arg(1)?])?,
            A::MaxUIOp(_) => self.intrinsic_call("llvm.umax", &[arg(0)?, arg(1)?])?,
            A::MinUIOp(_) => self.intrinsic_call("llvm.umin", &[arg(0)?, arg(1)?])?,
            A::CeilDivSIOp(_)
            | A::CeilDivUIOp(_)
            | A::FloorDivSIOp(_)
            | A::AddUIExtendedOp(_)
            | A::MulSIExtendedOp(_)
            | A::MulUIExtendedOp(_) => {
                return Err(format!(
                    "'{}' is not supported by code generation (expand it first)",
                    args.name
                )
                .into())
            }
            A::AddFOp(_) => reassociable(b.build_binop(Opc::FAdd, arg(0)?, arg(1)?, "")?),
            A::SubFOp(_) => b.build_binop(Opc::FSub, arg(0)?, arg(1)?, "")?,
            A::MulFOp(_) => reassociable(b.build_binop(Opc::FMul, arg(0)?, arg(1)?, "")?),
            A::DivFOp(_) => b.build_binop(Opc::FDiv, arg(0)?, arg(1)?, "")?,
            A::RemFOp(_) => b.build_binop(Opc::FRem, arg(0)?, arg(1)?, "")?,
            A::NegFOp(_) => self.negate(arg(0)?)?,
            A::MaximumFOp(_) => self.intrinsic_call("llvm.maximum", &[arg(0)?, arg(1)?])?,
            A::MinimumFOp(_) => self.intrinsic_call("llvm.minimum", &[arg(0)?, arg(1)?])?,
            A::MaxNumFOp(_) => self.intrinsic_call("llvm.maxnum", &[arg(0)?, arg(1)?])?,
            A::MinNumFOp(_) => self.intrinsic_call("llvm.minnum", &[arg(0)?, arg(1)?])?,
            A::CmpIOp(c) => self.compare_int(c.0, arg(0)?, arg(1)?)?,
            A::CmpFOp(c) => self.compare_float(c.0, arg(0)?, arg(1)?)?,
            A::SelectOp(_) => self.select(arg(0)?, arg(1)?, arg(2)?)?,
            A::IndexCastOp(_) | A::ExtSIOp(_) | A::TruncIOp(_) => {
                self.int_cast(arg(0)?, result_ty, true)?
            }
            A::ExtUIOp(_) | A::IndexCastUIOp(_) => self.int_cast(arg(0)?, result_ty, false)?,
            A::SIToFPOp(_) => b.build_cast(Opc::SIToFP, arg(0)?, result_ty, "")?,
            A::FPToSIOp(_) => b.build_cast(Opc::FPToSI, arg(0)?, result_ty, "")?,
            A::UIToFPOp(_) => b.build_cast(Opc::UIToFP, arg(0)?, result_ty, "")?,
            A::FPToUIOp(_) => b.build_cast(Opc::FPToUI, arg(0)?, result_ty, "")?,
            A::ExtFOp(_) => b.build_cast(Opc::FPExt, arg(0)?, result_ty, "")?,
            A::TruncFOp(t) => match rounding_mode(self.ctx, t.0) {
                // LLVM's `fptrunc` rounds to nearest even; other modes would need constrained
                // intrinsics in a strictfp function.
                None | Some(RoundingMode::ToNearestEven) => {
                    b.build_cast(Opc::FPTrunc, arg(0)?, result_ty, "")?
                }
                Some(mode) => {
                    return Err(format!(
                        "'{}' with rounding mode '{}' is not supported by code generation",
                        args.name,
                        mode.keyword()
                    )
                    .into())
                }
            },
            A::BitcastOp(_) => b.build_cast(Opc::BitCast, arg(0)?, result_ty, "")?,
        })
    }

    fn math_op(
        &self,
        op: MathOps,
        args: &Operands<'_, 'ctx>,
        result_ty: BasicTypeEnum<'ctx>,
    ) -> CgResult<BasicValueEnum<'ctx>> {
        use MathOps as M;
        let arg = |i: usize| args.get(i);
        Ok(match op {
            M::SqrtOp(_) => self.intrinsic_call("llvm.sqrt", &[arg(0)?])?,
            M::RsqrtOp(_) => {
                let s = self.intrinsic_call("llvm.sqrt", &[arg(0)?])?;
                let one = float_splat(result_ty, 1.0)?;
                self.builder.build_binop(Opc::FDiv, one, s, "")?
            }
            M::FloorOp(_) => self.intrinsic_call("llvm.floor", &[arg(0)?])?,
            M::CeilOp(_) => self.intrinsic_call("llvm.ceil", &[arg(0)?])?,
            M::RoundOp(_) => self.intrinsic_call("llvm.round", &[arg(0)?])?,
            M::RoundEvenOp(_) => self.intrinsic_call("llvm.roundeven", &[arg(0)?])?,
            M::AbsFOp(_) => self.intrinsic_call("llvm.fabs", &[arg(0)?])?,
            M::FmaOp(_) => self.intrinsic_call("llvm.fma", &[arg(0)?, arg(1)?, arg(2)?])?,
            M::ExpOp(_) => self.math(MathFn::Exp, arg(0)?)?,
            M::LogOp(_) => self.math(MathFn::Log, arg(0)?)?,
            M::TanhOp(_) => self.math(MathFn::Tanh, arg(0)?)?,
            M::ErfOp(_) => self.math(MathFn::Erf, arg(0)?)?,
            M::SinOp(_) => self.math(MathFn::Sin, arg(0)?)?,
            M::CosOp(_) => self.math(MathFn::Cos, arg(0)?)?,
            M::PowFOp(_) => self.powf(arg(0)?, arg(1)?)?,
        })
    }

    fn constant(
        &self,
        op: dlc_arith::ConstantOp,
        ty: BasicTypeEnum<'ctx>,
    ) -> CgResult<BasicValueEnum<'ctx>> {
        let ctx = self.ctx;
        let attr = op.value(ctx).ok_or("arith.constant without a value")?;
        match ctx.attr_kind(attr) {
            AttrKind::Integer { value, .. } => scalar_constant(ty, DenseValue::Int(*value)),
            AttrKind::Float { bits, .. } => {
                scalar_constant(ty, DenseValue::Float(f64::from_bits(*bits)))
            }
            AttrKind::DenseElements(dense) => {
                let BasicTypeEnum::VectorType(vt) = ty else {
                    return Err("a dense constant must have a vector type".into());
                };
                let elem = vt.get_element_type();
                let lanes = (0..vt.get_size() as usize)
                    .map(|i| scalar_constant(elem, ctx.dense_element(dense, i)))
                    .collect::<CgResult<Vec<_>>>()?;
                Ok(inkwell::types::VectorType::const_vector(&lanes).into())
            }
            _ => Err("unsupported constant attribute".into()),
        }
    }

    /// `a / b` (or `%`) that yields 0 instead of trapping on a zero divisor or signed overflow.
    fn guarded_division(
        &self,
        opcode: Opc,
        a: BasicValueEnum<'ctx>,
        b: BasicValueEnum<'ctx>,
    ) -> CgResult<BasicValueEnum<'ctx>> {
        let safe_constant = match b {
            BasicValueEnum::IntValue(d) => d
                .get_sign_extended_constant()
                .is_some_and(|c| c != 0 && c != -1),
            _ => false,
        };
        if safe_constant {
            return Ok(self.builder.build_binop(opcode, a, b, "")?);
        }
        let (BasicValueEnum::IntValue(a), BasicValueEnum::IntValue(d)) = (a, b) else {
            return Err("integer division of vectors is not supported by code generation".into());
        };
        let ty = d.get_type();
        let zero = ty.const_zero();
        let one = ty.const_int(1, false);
        let b = &self.builder;
        let mut bad = b.build_int_compare(IntPredicate::EQ, d, zero, "div0")?;
        if matches!(opcode, Opc::SDiv | Opc::SRem) {
            let min = ty.const_int(1u64 << (ty.get_bit_width() - 1).min(63), false);
            let min = if ty.get_bit_width() >= 64 {
                ty.const_int(i64::MIN as u64, true)
            } else {
                min
            };
            let is_min = b.build_int_compare(IntPredicate::EQ, a, min, "min")?;
            let is_m1 = b.build_int_compare(IntPredicate::EQ, d, ty.const_all_ones(), "m1")?;
            let overflow = b.build_and(is_min, is_m1, "ovf")?;
            bad = b.build_or(bad, overflow, "bad")?;
        }
        let safe_d = b.build_select(bad, one, d, "d")?.into_int_value();
        let q = b.build_binop(opcode, a, safe_d, "")?.into_int_value();
        Ok(b.build_select(bad, zero, q, "")?)
    }

    fn negate(&self, x: BasicValueEnum<'ctx>) -> CgResult<BasicValueEnum<'ctx>> {
        Ok(match x {
            BasicValueEnum::FloatValue(f) => self.builder.build_float_neg(f, "")?.into(),
            BasicValueEnum::VectorValue(v) => self.builder.build_float_neg(v, "")?.into(),
            _ => return Err("negf of a non-float".into()),
        })
    }

    fn compare_int(
        &self,
        op: Op,
        a: BasicValueEnum<'ctx>,
        b: BasicValueEnum<'ctx>,
    ) -> CgResult<BasicValueEnum<'ctx>> {
        use IntPredicate::*;
        let p = [EQ, NE, SLT, SLE, SGT, SGE, ULT, ULE, UGT, UGE]
            .get(self.predicate(op)?)
            .copied()
            .ok_or("unknown cmpi predicate")?;
        Ok(match (a, b) {
            (BasicValueEnum::IntValue(x), BasicValueEnum::IntValue(y)) => {
                self.builder.build_int_compare(p, x, y, "")?.into()
            }
            (BasicValueEnum::VectorValue(x), BasicValueEnum::VectorValue(y)) => {
                self.builder.build_int_compare(p, x, y, "")?.into()
            }
            _ => return Err("cmpi operands of different kinds".into()),
        })
    }

    fn compare_float(
        &self,
        op: Op,
        a: BasicValueEnum<'ctx>,
        b: BasicValueEnum<'ctx>,
    ) -> CgResult<BasicValueEnum<'ctx>> {
        use FloatPredicate::*;
        let p = [
            PredicateFalse,
            OEQ,
            OGT,
            OGE,
            OLT,
            OLE,
            ONE,
            ORD,
            UEQ,
            UGT,
            UGE,
            ULT,
            ULE,
            UNE,
            UNO,
            PredicateTrue,
        ]
        .get(self.predicate(op)?)
        .copied()
        .ok_or("unknown cmpf predicate")?;
        Ok(match (a, b) {
            (BasicValueEnum::FloatValue(x), BasicValueEnum::FloatValue(y)) => {
                self.builder.build_float_compare(p, x, y, "")?.into()
            }
            (BasicValueEnum::VectorValue(x), BasicValueEnum::VectorValue(y)) => {
                self.builder.build_float_compare(p, x, y, "")?.into()
            }
            _ => return Err("cmpf operands of different kinds".into()),
        })
    }

    fn predicate(&self, op: Op) -> CgResult<usize> {
        self.ctx
            .attr(op, "predicate")
            .and_then(|a| self.ctx.attr_as_int(a))
            .and_then(|p| usize::try_from(p).ok())
            .ok_or_else(|| "comparison without a predicate".into())
    }

    fn select(
        &self,
        cond: BasicValueEnum<'ctx>,
        a: BasicValueEnum<'ctx>,
        b: BasicValueEnum<'ctx>,
    ) -> CgResult<BasicValueEnum<'ctx>> {
        Ok(match cond {
            BasicValueEnum::IntValue(c) => self.builder.build_select(c, a, b, "")?,
            BasicValueEnum::VectorValue(c) => self.builder.build_select(c, a, b, "")?,
            _ => return Err("select condition is not i1".into()),
        })
    }

    fn int_cast(
        &self,
        x: BasicValueEnum<'ctx>,
        to: BasicTypeEnum<'ctx>,
        signed: bool,
    ) -> CgResult<BasicValueEnum<'ctx>> {
        let from_bits = int_bits(x.get_type())?;
        let to_bits = int_bits(to)?;
        let opcode = match from_bits.cmp(&to_bits) {
            std::cmp::Ordering::Equal => return Ok(x),
            std::cmp::Ordering::Greater => Opc::Trunc,
            std::cmp::Ordering::Less if signed => Opc::SExt,
            std::cmp::Ordering::Less => Opc::ZExt,
        };
        Ok(self.builder.build_cast(opcode, x, to, "")?)
    }

    /// Calls an intrinsic overloaded on the first argument's type.
    pub(crate) fn intrinsic_call(
        &self,
        name: &str,
        args: &[BasicValueEnum<'ctx>],
    ) -> CgResult<BasicValueEnum<'ctx>> {
        let ty = args
            .first()
            .ok_or("intrinsic without arguments")?
            .get_type();
        let args: Vec<_> = args.iter().map(|&a| a.into()).collect();
        self.call_intrinsic(name, &[ty], &args)?
            .ok_or_else(|| format!("'{name}' returned nothing").into())
    }

    /// A transcendental function, computed in f32 for f16/bf16 values: on the CPU a call of
    /// the module's function for it ([`emit_math_call`], inlined by every configuration but
    /// the quick tier), on the GPU expanded where it is used.
    fn math(&self, f: MathFn, x: BasicValueEnum<'ctx>) -> CgResult<BasicValueEnum<'ctx>> {
        self.in_f32_if_narrow(&[x], |this, args| {
            Ok(match this.machine {
                Machine::Cpu { avx512, .. } => {
                    emit_math_call(this.module, &this.builder, f, args[0], avx512)?
                }
                Machine::Nvptx => emit_math(this.module, &this.builder, f, args[0], false)?,
            })
        })
    }

    fn powf(
        &self,
        a: BasicValueEnum<'ctx>,
        b: BasicValueEnum<'ctx>,
    ) -> CgResult<BasicValueEnum<'ctx>> {
        self.in_f32_if_narrow(&[a, b], |this, args| {
            Ok(emit_powf(
                this.module,
                &this.builder,
                args[0],
                args[1],
                matches!(this.machine, Machine::Cpu { avx512: true, .. }),
            )?)
        })
    }

    /// Runs `f` on `args`, extended to f32 (and the result truncated back) when they are
    /// f16/bf16 scalars or vectors.
    fn in_f32_if_narrow(
        &self,
        args: &[BasicValueEnum<'ctx>],
        f: impl FnOnce(&Self, &[BasicValueEnum<'ctx>]) -> CgResult<BasicValueEnum<'ctx>>,
    ) -> CgResult<BasicValueEnum<'ctx>> {
        let ty = args.first().ok_or("math op without operands")?.get_type();
        let (elem, lanes) = match ty {
            BasicTypeEnum::FloatType(t) => (t, None),
            BasicTypeEnum::VectorType(v) => match v.get_element_type() {
                BasicTypeEnum::FloatType(t) => (t, Some(v.get_size())),
                _ => return Err("math op on a non-float vector".into()),
            },
            _ => return Err("math op on a non-float value".into()),
        };
        if elem.get_bit_width() > 16 {
            return f(self, args);
        }
        let f32t = self.llvm.f32_type();
        let wide: BasicTypeEnum<'ctx> = match lanes {
            Some(n) => f32t.vec_type(n).into(),
            None => f32t.into(),
        };
        let extended = args
            .iter()
            .map(|&a| Ok(self.builder.build_cast(Opc::FPExt, a, wide, "")?))
            .collect::<CgResult<Vec<_>>>()?;
        let r = f(self, &extended)?;
        Ok(self.builder.build_cast(Opc::FPTrunc, r, ty, "")?)
    }
}

/// Marks a float add or multiply as reassociable (see the module doc).
fn reassociable(v: BasicValueEnum<'_>) -> BasicValueEnum<'_> {
    if let Some(inst) = inkwell::values::BasicValue::as_instruction_value(&v) {
        // Only fails for instructions that take no fast-math flags, which these do.
        let _ = inst.set_fast_math_flags(FastMathFlags::AllowReassoc);
    }
    v
}

/// A constant of scalar type `ty` (or splat of vector type `ty`) from a dense value.
fn scalar_constant<'ctx>(ty: BasicTypeEnum<'ctx>, v: DenseValue) -> CgResult<BasicValueEnum<'ctx>> {
    Ok(match (ty, v) {
        (BasicTypeEnum::IntType(t), DenseValue::Int(i)) => t.const_int(i as u64, true).into(),
        (BasicTypeEnum::FloatType(t), DenseValue::Float(f)) => t.const_float(f).into(),
        (BasicTypeEnum::FloatType(t), DenseValue::Int(i)) => t.const_float(i as f64).into(),
        (BasicTypeEnum::VectorType(vt), v) => {
            let lane = scalar_constant(vt.get_element_type(), v)?;
            let lanes = vec![lane; vt.get_size() as usize];
            inkwell::types::VectorType::const_vector(&lanes).into()
        }
        _ => return Err("constant value does not match its type".into()),
    })
}

/// The float constant `v` of type `ty` (a splat for vectors).
pub(crate) fn float_splat(ty: BasicTypeEnum<'_>, v: f64) -> CgResult<BasicValueEnum<'_>> {
    scalar_constant(ty, DenseValue::Float(v))
}

fn int_bits(ty: BasicTypeEnum<'_>) -> CgResult<u32> {
    match ty {
        BasicTypeEnum::IntType(t) => Ok(t.get_bit_width()),
        BasicTypeEnum::VectorType(v) => int_bits(v.get_element_type()),
        _ => Err(CgError::from("integer cast of a non-integer")),
    }
}
