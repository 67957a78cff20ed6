//! The `arith` dialect: integer and float arithmetic, comparisons, `select` and casts on
//! scalars and, elementwise, on vectors and tensors, with MLIR's op names, custom syntax,
//! verifier rules and folders, so arith IR moves between dlc-opt and mlir-opt unchanged.
//!
//! Register it with `ctx.register_dialect(dlc_arith::dialect())`. Passes build ops with the
//! `build_*` functions, read flags and predicates through the typed wrappers and the
//! `*_flags` accessors, and fold with `ctx.fold(op)`, which calls the folders in [`fold`]
//! (folded constants become `arith.constant` ops through the dialect's
//! `materialize_constant`).
//!
//! Layout: [`ops`] defines each op once (family, flag attribute, folder, patterns) and lists
//! them in [`ArithOps`], [`attrs`] their predicates, rounding modes and flag attributes, `syntax`
//! the custom text form, `verify` the verifier, [`fold`] the folders, `canonicalize` the
//! canonicalization patterns, `builders` the Rust construction API, [`rounding`] the exact
//! rounding `arith.truncf` does in each rounding mode (for evaluators).

#![warn(missing_docs)]

pub mod attrs;
mod builders;
mod canonicalize;
mod cmpf_of_int;
mod float_binary;
pub mod fold;
mod int_binary;
mod int_float;
pub mod ops;
pub mod rounding;
mod syntax;
mod types;
mod verify;

pub use attrs::{
    fastmath_attr, fastmath_flags, fastmath_flags_of, overflow_attr, overflow_flags,
    overflow_flags_of, rounding_mode, rounding_mode_attr, rounding_mode_of, CmpFPredicate,
    CmpIPredicate, FastMathFlags, OverflowFlags, RoundingMode,
};
pub use builders::{
    build_binary, build_cast, build_cmpf, build_cmpi, build_constant, build_index_constant,
    build_negf, build_op, build_select, constant_int, constant_result_name, constant_spec,
    set_fastmath_flags, set_overflow_flags, splat_attr, BinaryOp, CastOp,
};
pub use float_binary::FloatBinary;
pub use int_binary::IntBinary;
pub use int_float::{int_to_float, magnitude_to_float};
pub use ops::{
    AddFOp, AddIOp, AddUIExtendedOp, AndIOp, ArithOps, BitcastOp, CeilDivSIOp, CeilDivUIOp, CmpFOp,
    CmpIOp, ConstantOp, DivFOp, DivSIOp, DivUIOp, ExtFOp, ExtSIOp, ExtUIOp, FPToSIOp, FPToUIOp,
    FloorDivSIOp, IndexCastOp, IndexCastUIOp, MaxNumFOp, MaxSIOp, MaxUIOp, MaximumFOp, MinNumFOp,
    MinSIOp, MinUIOp, MinimumFOp, MulFOp, MulIOp, MulSIExtendedOp, MulUIExtendedOp, NegFOp, OrIOp,
    RemFOp, RemSIOp, RemUIOp, SIToFPOp, SelectOp, ShLIOp, ShRSIOp, ShRUIOp, SubFOp, SubIOp,
    TruncFOp, TruncIOp, UIToFPOp, XOrIOp,
};
pub use rounding::round_to_format;
pub use types::bool_like;

use dlc_ir::{Attribute, Context, Dialect, Location, OpSpec, Type};

/// The `arith` dialect, ready for [`Context::register_dialect`].
pub fn dialect() -> Dialect {
    let mut dialect = Dialect::new("arith", ArithOps::defs());
    dialect.parse_attr = Some(attrs::parse_attr);
    dialect.print_attr = Some(attrs::print_attr);
    dialect.materialize_constant = Some(materialize_constant);
    dialect
}

/// Builds `arith.constant` for a folded value, when `value` is a constant of type `ty`.
fn materialize_constant(
    ctx: &mut Context,
    value: Attribute,
    ty: Type,
    loc: Location,
) -> Option<OpSpec> {
    (ctx.attr_type(value) == Some(ty)).then(|| constant_spec(ctx, value, ty, loc))
}
