//! The arith ops: one typed wrapper per op, written with `define_op!`, and the table that says
//! which family (binary integer, binary float, cast, ...) each op belongs to.
//!
//! The families decide the custom syntax, the verifier rules and which flag attribute an op
//! carries, so the per-op code elsewhere stays a table lookup rather than a match on names.

use crate::attrs::{self, CmpFPredicate, CmpIPredicate};
use dlc_ir::{define_op, Context, Traits};

/// Traits of a pure binary op whose operands and result share one type.
const BINARY: Traits = Traits::PURE.union(Traits::SAME_OPERANDS_AND_RESULT_TYPE);
/// [`BINARY`] plus commutativity.
const COMMUTATIVE: Traits = BINARY.union(Traits::COMMUTATIVE);

define_op! {
    /// An integer, index or float constant, or a dense vector/tensor constant.
    pub struct ConstantOp = "arith.constant";
    traits = Traits::PURE.union(Traits::CONSTANT_LIKE);
    operands = [];
    results = [result];
    attributes = [value];
}

/// Declares the wrappers of binary ops, which differ only in name, traits and flag attribute.
///
/// `overflowFlags` is not listed here: `define_op!` would name its accessor `overflowFlags`.
/// [`crate::dialect`] adds it to `inherent_attrs` from [`describe`], and
/// [`crate::overflow_flags`] reads it.
macro_rules! binary_ops {
    ($($(#[doc = $doc:literal])* $name:ident = $opname:literal, $traits:expr, [$($attr:ident)?];)*) => {
        $(define_op! {
            $(#[doc = $doc])*
            pub struct $name = $opname;
            traits = $traits;
            operands = [lhs, rhs];
            results = [result];
            attributes = [$($attr)?];
        })*
    };
}

binary_ops! {
    /// Integer addition, wrapping modulo 2^width.
    AddIOp = "arith.addi", COMMUTATIVE, [];
    /// Integer subtraction, wrapping modulo 2^width.
    SubIOp = "arith.subi", BINARY, [];
    /// Integer multiplication, wrapping modulo 2^width.
    MulIOp = "arith.muli", COMMUTATIVE, [];
    /// Signed integer division rounding toward zero.
    DivSIOp = "arith.divsi", BINARY, [];
    /// Unsigned integer division.
    DivUIOp = "arith.divui", BINARY, [];
    /// Signed integer remainder; the result has the sign of the dividend.
    RemSIOp = "arith.remsi", BINARY, [];
    /// Unsigned integer remainder.
    RemUIOp = "arith.remui", BINARY, [];
    /// Bitwise and.
    AndIOp = "arith.andi", COMMUTATIVE, [];
    /// Bitwise or.
    OrIOp = "arith.ori", COMMUTATIVE, [];
    /// Bitwise exclusive or.
    XOrIOp = "arith.xori", COMMUTATIVE, [];
    /// Shift left; shifting by the bit width or more gives poison.
    ShLIOp = "arith.shli", BINARY, [];
    /// Arithmetic (sign-filling) shift right.
    ShRSIOp = "arith.shrsi", BINARY, [];
    /// Logical (zero-filling) shift right.
    ShRUIOp = "arith.shrui", BINARY, [];
    /// Signed integer maximum.
    MaxSIOp = "arith.maxsi", COMMUTATIVE, [];
    /// Signed integer minimum.
    MinSIOp = "arith.minsi", COMMUTATIVE, [];
    /// Float addition.
    AddFOp = "arith.addf", COMMUTATIVE, [fastmath];
    /// Float subtraction.
    SubFOp = "arith.subf", BINARY, [fastmath];
    /// Float multiplication.
    MulFOp = "arith.mulf", COMMUTATIVE, [fastmath];
    /// Float division.
    DivFOp = "arith.divf", BINARY, [fastmath];
    /// Float remainder with the sign of the dividend (C `fmod`).
    RemFOp = "arith.remf", BINARY, [fastmath];
    /// IEEE 754-2019 `maximum`: NaN if either operand is NaN, and +0 is above -0.
    MaximumFOp = "arith.maximumf", COMMUTATIVE, [fastmath];
    /// IEEE 754-2019 `minimum`: NaN if either operand is NaN, and -0 is below +0.
    MinimumFOp = "arith.minimumf", COMMUTATIVE, [fastmath];
}

define_op! {
    /// Float negation (flips the sign bit, NaN included).
    pub struct NegFOp = "arith.negf";
    traits = BINARY;
    operands = [operand];
    results = [result];
    attributes = [fastmath];
}

define_op! {
    /// Integer comparison, giving `i1` (or a vector/tensor of `i1` of the operands' shape).
    pub struct CmpIOp = "arith.cmpi";
    traits = Traits::PURE;
    operands = [lhs, rhs];
    results = [result];
    attributes = [predicate];
}

define_op! {
    /// Float comparison, ordered or unordered with respect to NaN.
    pub struct CmpFOp = "arith.cmpf";
    traits = Traits::PURE;
    operands = [lhs, rhs];
    results = [result];
    attributes = [fastmath, predicate];
}

define_op! {
    /// Picks `true_value` or `false_value` by an `i1` condition, or elementwise by an `i1` mask.
    pub struct SelectOp = "arith.select";
    traits = Traits::PURE;
    operands = [condition, true_value, false_value];
    results = [result];
}

/// Declares the wrappers of casts: one operand, one result, an optional flag attribute
/// (`overflowFlags` of `trunci` is added by [`crate::dialect`], as for the binary ops).
macro_rules! cast_ops {
    ($($(#[doc = $doc:literal])* $name:ident = $opname:literal, [$($attr:ident)?];)*) => {
        $(define_op! {
            $(#[doc = $doc])*
            pub struct $name = $opname;
            traits = Traits::PURE;
            operands = [input];
            results = [result];
            attributes = [$($attr)?];
        })*
    };
}

cast_ops! {
    /// Converts between `index` and a fixed-width integer (sign-extending or truncating).
    IndexCastOp = "arith.index_cast", [];
    /// Sign-extends an integer to a wider one.
    ExtSIOp = "arith.extsi", [];
    /// Zero-extends an integer to a wider one.
    ExtUIOp = "arith.extui", [];
    /// Truncates an integer to a narrower one.
    TruncIOp = "arith.trunci", [];
    /// Converts a signed integer to the nearest float.
    SIToFPOp = "arith.sitofp", [];
    /// Converts a float to a signed integer, rounding toward zero.
    FPToSIOp = "arith.fptosi", [];
    /// Extends a float to a wider format (exact).
    ExtFOp = "arith.extf", [fastmath];
    /// Rounds a float to a narrower format.
    TruncFOp = "arith.truncf", [fastmath];
    /// Reinterprets the bits of an integer or float as another type of the same width.
    BitcastOp = "arith.bitcast", [];
}

impl CmpIOp {
    /// The comparison predicate, if the `predicate` attribute is valid.
    pub fn cmp_predicate(self, ctx: &Context) -> Option<CmpIPredicate> {
        CmpIPredicate::from_i64(attrs::predicate_number(ctx, self.0)?)
    }
}

impl CmpFOp {
    /// The comparison predicate, if the `predicate` attribute is valid.
    pub fn cmp_predicate(self, ctx: &Context) -> Option<CmpFPredicate> {
        CmpFPredicate::from_i64(attrs::predicate_number(ctx, self.0)?)
    }
}

/// The family of an op, which fixes its syntax and verifier rules.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Family {
    Constant,
    /// Two signless-integer-like operands and result of one type.
    IntBinary,
    /// Two float-like operands and result of one type.
    FloatBinary,
    /// `negf`.
    FloatUnary,
    CmpI,
    CmpF,
    Select,
    Cast(CastKind),
}

/// The casts, which differ in their operand/result constraints and compatibility rule.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum CastKind {
    IndexCast,
    ExtSI,
    ExtUI,
    TruncI,
    SIToFP,
    FPToSI,
    ExtF,
    TruncF,
    Bitcast,
}

/// How an op's flag attribute behaves, mirroring MLIR's ODS declaration of it.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Flags {
    None,
    /// `overflowFlags`, defaulting to `#arith.overflow<none>` (always present, as MLIR's
    /// default-valued property; the custom syntax omits `none`).
    Overflow,
    /// `fastmath`, defaulting to `#arith.fastmath<none>` (always present; omitted when none).
    FastMath,
    /// `fastmath`, optional (absent unless written; printed whenever present).
    OptionalFastMath,
}

/// The family and flag attribute of the arith op called `name`.
pub(crate) fn describe(name: &str) -> Option<(Family, Flags)> {
    use CastKind::*;
    use Family::*;
    Some(match name {
        "arith.constant" => (Constant, Flags::None),
        "arith.addi" | "arith.subi" | "arith.muli" | "arith.shli" => (IntBinary, Flags::Overflow),
        "arith.divsi" | "arith.divui" | "arith.remsi" | "arith.remui" | "arith.andi"
        | "arith.ori" | "arith.xori" | "arith.shrsi" | "arith.shrui" | "arith.maxsi"
        | "arith.minsi" => (IntBinary, Flags::None),
        "arith.addf" | "arith.subf" | "arith.mulf" | "arith.divf" | "arith.remf"
        | "arith.maximumf" | "arith.minimumf" => (FloatBinary, Flags::FastMath),
        "arith.negf" => (FloatUnary, Flags::FastMath),
        "arith.cmpi" => (CmpI, Flags::None),
        "arith.cmpf" => (CmpF, Flags::FastMath),
        "arith.select" => (Select, Flags::None),
        "arith.index_cast" => (Cast(IndexCast), Flags::None),
        "arith.extsi" => (Cast(ExtSI), Flags::None),
        "arith.extui" => (Cast(ExtUI), Flags::None),
        "arith.trunci" => (Cast(TruncI), Flags::Overflow),
        "arith.sitofp" => (Cast(SIToFP), Flags::None),
        "arith.fptosi" => (Cast(FPToSI), Flags::None),
        "arith.extf" => (Cast(ExtF), Flags::OptionalFastMath),
        "arith.truncf" => (Cast(TruncF), Flags::OptionalFastMath),
        "arith.bitcast" => (Cast(Bitcast), Flags::None),
        _ => return None,
    })
}

dlc_ir::op_set! {
    /// Every op of the arith dialect: `ArithOps::of(ctx, op)` to dispatch on the kind of an
    /// arith op without comparing names.
    pub enum ArithOps {
        ConstantOp,
        AddIOp,
        SubIOp,
        MulIOp,
        DivSIOp,
        DivUIOp,
        RemSIOp,
        RemUIOp,
        AndIOp,
        OrIOp,
        XOrIOp,
        ShLIOp,
        ShRSIOp,
        ShRUIOp,
        MaxSIOp,
        MinSIOp,
        CmpIOp,
        AddFOp,
        SubFOp,
        MulFOp,
        DivFOp,
        RemFOp,
        NegFOp,
        MaximumFOp,
        MinimumFOp,
        CmpFOp,
        SelectOp,
        IndexCastOp,
        ExtSIOp,
        ExtUIOp,
        TruncIOp,
        SIToFPOp,
        FPToSIOp,
        ExtFOp,
        TruncFOp,
        BitcastOp,
    }
}
