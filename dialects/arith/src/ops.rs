//! The arith ops, each defined once: `arith_op!` (a `define_op!` with the arith hooks) gives
//! an op's name, traits, operands, attributes, family, flag attribute, folder and
//! canonicalization patterns in one entry, and [`ArithOps`] lists them all.
//!
//! The family fixes an op's custom syntax and verifier rules, and `Flags` which flag
//! attribute it carries and how. The parse, print and verify hooks are one generic function
//! each, instantiated per op with its `ArithOp` constants, so no code matches on op names.

use crate::attrs::{self, CmpFPredicate, CmpIPredicate};
use crate::builders::{constant_result_name, BinaryOp, CastOp};
use crate::{canonicalize, fold, syntax, verify};
use dlc_ir::{define_op, Context, OpView, Traits};

/// Traits of a pure binary op whose operands and result share one type.
const BINARY: Traits = Traits::PURE.union(Traits::SAME_OPERANDS_AND_RESULT_TYPE);
/// [`BINARY`] plus commutativity.
const COMMUTATIVE: Traits = BINARY.union(Traits::COMMUTATIVE);

/// What the shared hooks know of an arith op beyond its `OpDef`, given in its definition.
pub(crate) trait ArithOp: OpView {
    /// The op's family: its syntax and verifier rules.
    const FAMILY: Family;
    /// The op's flag attribute.
    const FLAGS: Flags;
}

/// `define_op!` for an arith op: one result, the arith parse, print and verify hooks, and its
/// family and flag attribute as its [`ArithOp`] implementation (read by those hooks).
macro_rules! arith_op {
    (
        $(#[doc = $doc:literal])*
        $name:ident = $opname:literal, $family:expr, $flags:ident;
        traits = $traits:expr;
        operands = $operands:tt;
        attributes = [$($attr:ident $(= $attr_name:literal)?),*];
        $(fold = $fold:expr;)?
        $(canonicalize = $canonicalize:expr;)?
        $(result_name = $result_name:expr;)?
    ) => {
        define_op! {
            $(#[doc = $doc])*
            pub struct $name = $opname;
            traits = $traits;
            operands = $operands;
            results = [result];
            attributes = [$($attr $(= $attr_name)?),*];
            verify = verify::verify::<$name>;
            parse = syntax::parse::<$name>;
            print = syntax::print::<$name>;
            $(fold = $fold;)?
            $(canonicalize = $canonicalize;)?
            $(result_name = $result_name;)?
        }

        impl ArithOp for $name {
            const FAMILY: Family = $family;
            const FLAGS: Flags = Flags::$flags;
        }
    };
}

arith_op! {
    /// An integer, index or float constant, or a dense vector/tensor constant.
    ConstantOp = "arith.constant", Family::Constant, None;
    traits = Traits::PURE.union(Traits::CONSTANT_LIKE);
    operands = [];
    attributes = [value];
    result_name = constant_result_name;
}

/// Defines binary ops ([`BinaryOp`]), which differ in name, traits, family, flag attribute and
/// hooks: `Name = "arith.name", traits, family, flags [flag attribute], fold = f,
/// canonicalize = g;`.
macro_rules! binary_ops {
    ($(
        $(#[doc = $doc:literal])*
        $name:ident = $opname:literal, $traits:expr, $family:ident, $flags:ident [$($attr:ident $(= $attr_name:literal)?)?]
            $(, fold = $fold:expr)? $(, canonicalize = $canonicalize:expr)?;
    )*) => {
        $(arith_op! {
            $(#[doc = $doc])*
            $name = $opname, Family::$family, $flags;
            traits = $traits;
            operands = [lhs, rhs];
            attributes = [$($attr $(= $attr_name)?)?];
            $(fold = $fold;)?
            $(canonicalize = $canonicalize;)?
        }

        impl BinaryOp for $name {})*
    };
}

binary_ops! {
    /// Integer addition, wrapping modulo 2^width.
    AddIOp = "arith.addi", COMMUTATIVE, IntBinary, Overflow [overflow_flags = "overflowFlags"],
        fold = fold::addi, canonicalize = canonicalize::addi;
    /// Integer subtraction, wrapping modulo 2^width.
    SubIOp = "arith.subi", BINARY, IntBinary, Overflow [overflow_flags = "overflowFlags"],
        fold = fold::subi, canonicalize = canonicalize::subi;
    /// Integer multiplication, wrapping modulo 2^width.
    MulIOp = "arith.muli", COMMUTATIVE, IntBinary, Overflow [overflow_flags = "overflowFlags"],
        fold = fold::muli, canonicalize = canonicalize::muli;
    /// Signed integer division rounding toward zero.
    DivSIOp = "arith.divsi", BINARY, IntBinary, None [], fold = fold::divsi;
    /// Unsigned integer division.
    DivUIOp = "arith.divui", BINARY, IntBinary, None [], fold = fold::divui;
    /// Signed integer remainder; the result has the sign of the dividend.
    RemSIOp = "arith.remsi", BINARY, IntBinary, None [], fold = fold::remsi;
    /// Unsigned integer remainder.
    RemUIOp = "arith.remui", BINARY, IntBinary, None [], fold = fold::remui;
    /// Bitwise and.
    AndIOp = "arith.andi", COMMUTATIVE, IntBinary, None [],
        fold = fold::andi, canonicalize = canonicalize::andi;
    /// Bitwise or.
    OrIOp = "arith.ori", COMMUTATIVE, IntBinary, None [],
        fold = fold::ori, canonicalize = canonicalize::ori;
    /// Bitwise exclusive or.
    XOrIOp = "arith.xori", COMMUTATIVE, IntBinary, None [],
        fold = fold::xori, canonicalize = canonicalize::xori;
    /// Shift left; shifting by the bit width or more gives poison.
    ShLIOp = "arith.shli", BINARY, IntBinary, Overflow [overflow_flags = "overflowFlags"], fold = fold::shli;
    /// Arithmetic (sign-filling) shift right.
    ShRSIOp = "arith.shrsi", BINARY, IntBinary, None [], fold = fold::shrsi;
    /// Logical (zero-filling) shift right.
    ShRUIOp = "arith.shrui", BINARY, IntBinary, None [], fold = fold::shrui;
    /// Signed integer maximum.
    MaxSIOp = "arith.maxsi", COMMUTATIVE, IntBinary, None [], fold = fold::maxsi;
    /// Signed integer minimum.
    MinSIOp = "arith.minsi", COMMUTATIVE, IntBinary, None [], fold = fold::minsi;
    /// Unsigned integer maximum.
    MaxUIOp = "arith.maxui", COMMUTATIVE, IntBinary, None [], fold = fold::maxui;
    /// Unsigned integer minimum.
    MinUIOp = "arith.minui", COMMUTATIVE, IntBinary, None [], fold = fold::minui;
    /// Signed integer division rounding toward positive infinity.
    CeilDivSIOp = "arith.ceildivsi", BINARY, IntBinary, None [], fold = fold::ceildivsi;
    /// Unsigned integer division rounding up.
    CeilDivUIOp = "arith.ceildivui", BINARY, IntBinary, None [], fold = fold::ceildivui;
    /// Signed integer division rounding toward negative infinity.
    FloorDivSIOp = "arith.floordivsi", BINARY, IntBinary, None [], fold = fold::floordivsi;
    /// Float addition.
    AddFOp = "arith.addf", COMMUTATIVE, FloatBinary, FastMath [fastmath], fold = fold::addf;
    /// Float subtraction.
    SubFOp = "arith.subf", BINARY, FloatBinary, FastMath [fastmath], fold = fold::subf;
    /// Float multiplication.
    MulFOp = "arith.mulf", COMMUTATIVE, FloatBinary, FastMath [fastmath],
        fold = fold::mulf, canonicalize = canonicalize::mulf;
    /// Float division.
    DivFOp = "arith.divf", BINARY, FloatBinary, FastMath [fastmath],
        fold = fold::divf, canonicalize = canonicalize::divf;
    /// Float remainder with the sign of the dividend (C `fmod`).
    RemFOp = "arith.remf", BINARY, FloatBinary, FastMath [fastmath], fold = fold::remf;
    /// IEEE 754-2019 `maximum`: NaN if either operand is NaN, and +0 is above -0.
    MaximumFOp = "arith.maximumf", COMMUTATIVE, FloatBinary, FastMath [fastmath],
        fold = fold::maximumf;
    /// IEEE 754-2019 `minimum`: NaN if either operand is NaN, and -0 is below +0.
    MinimumFOp = "arith.minimumf", COMMUTATIVE, FloatBinary, FastMath [fastmath],
        fold = fold::minimumf;
    /// IEEE 754-2008 `maxNum`: a quiet NaN operand gives the other operand, and +0 is above -0.
    MaxNumFOp = "arith.maxnumf", COMMUTATIVE, FloatBinary, FastMath [fastmath],
        fold = fold::maxnumf;
    /// IEEE 754-2008 `minNum`: a quiet NaN operand gives the other operand, and -0 is below +0.
    MinNumFOp = "arith.minnumf", COMMUTATIVE, FloatBinary, FastMath [fastmath],
        fold = fold::minnumf;
}

arith_op! {
    /// Float negation (flips the sign bit, NaN included).
    NegFOp = "arith.negf", Family::FloatUnary, FastMath;
    traits = BINARY;
    operands = [operand];
    attributes = [fastmath];
    fold = fold::negf;
}

arith_op! {
    /// Integer comparison, giving `i1` (or a vector/tensor of `i1` of the operands' shape).
    CmpIOp = "arith.cmpi", Family::CmpI, None;
    traits = Traits::PURE;
    operands = [lhs, rhs];
    attributes = [predicate];
    fold = fold::cmpi;
    canonicalize = canonicalize::cmpi;
}

arith_op! {
    /// Float comparison, ordered or unordered with respect to NaN.
    CmpFOp = "arith.cmpf", Family::CmpF, FastMath;
    traits = Traits::PURE;
    operands = [lhs, rhs];
    attributes = [fastmath, predicate];
    fold = fold::cmpf;
    canonicalize = canonicalize::cmpf;
}

arith_op! {
    /// Picks `true_value` or `false_value` by an `i1` condition, or elementwise by an `i1` mask.
    SelectOp = "arith.select", Family::Select, None;
    traits = Traits::PURE;
    operands = [condition, true_value, false_value];
    attributes = [];
    fold = fold::select;
    canonicalize = canonicalize::select;
}

/// Defines the extended-precision ops, which give two results named after what they hold:
/// `Name = "arith.name", family, fold = f, canonicalize = g, results = [first, second];`.
macro_rules! extended_ops {
    ($(
        $(#[doc = $doc:literal])*
        $name:ident = $opname:literal, $family:ident, fold = $fold:expr,
            canonicalize = $canonicalize:expr, results = [$first:ident, $second:ident];
    )*) => {
        $(define_op! {
            $(#[doc = $doc])*
            pub struct $name = $opname;
            traits = COMMUTATIVE_PURE;
            operands = [lhs, rhs];
            results = [$first, $second];
            attributes = [];
            verify = verify::verify::<$name>;
            parse = syntax::parse::<$name>;
            print = syntax::print::<$name>;
            fold = $fold;
            canonicalize = $canonicalize;
            result_names = &[stringify!($first), stringify!($second)];
        }

        impl ArithOp for $name {
            const FAMILY: Family = Family::$family;
            const FLAGS: Flags = Flags::None;
        })*
    };
}

/// Traits of the extended-precision ops: pure and commutative (their results differ in type
/// from the operands, so not [`COMMUTATIVE`]).
const COMMUTATIVE_PURE: Traits = Traits::PURE.union(Traits::COMMUTATIVE);

extended_ops! {
    /// Unsigned addition giving the wrapped sum and an `i1` (or bool-like) carry-out.
    AddUIExtendedOp = "arith.addui_extended", AddExtended, fold = fold::addui_extended,
        canonicalize = canonicalize::addui_extended, results = [sum, overflow];
    /// Signed multiplication giving the low and the high half of the double-width product.
    MulSIExtendedOp = "arith.mulsi_extended", MulExtended, fold = fold::mulsi_extended,
        canonicalize = canonicalize::mulsi_extended, results = [low, high];
    /// Unsigned multiplication giving the low and the high half of the double-width product.
    MulUIExtendedOp = "arith.mului_extended", MulExtended, fold = fold::mului_extended,
        canonicalize = canonicalize::mului_extended, results = [low, high];
}

/// Defines casts ([`CastOp`]): one operand, one result, a cast kind, a flag attribute, a
/// folder and maybe patterns:
/// `Name = "arith.name", kind, flags [inherent attributes], fold = f, canonicalize = g;`.
macro_rules! cast_ops {
    ($(
        $(#[doc = $doc:literal])*
        $name:ident = $opname:literal, $kind:ident, $flags:ident [$($attr:ident $(= $attr_name:literal)?),*],
            fold = $fold:expr $(, canonicalize = $canonicalize:expr)?;
    )*) => {
        $(arith_op! {
            $(#[doc = $doc])*
            $name = $opname, Family::Cast(CastKind::$kind), $flags;
            traits = Traits::PURE;
            operands = [input];
            attributes = [$($attr $(= $attr_name)?),*];
            fold = $fold;
            $(canonicalize = $canonicalize;)?
        }

        impl CastOp for $name {})*
    };
}

cast_ops! {
    /// Converts between `index` and a fixed-width integer (sign-extending or truncating).
    IndexCastOp = "arith.index_cast", IndexCast, None [], fold = fold::index_cast,
        canonicalize = canonicalize::index_cast;
    /// Converts between `index` and a fixed-width integer (zero-extending or truncating).
    IndexCastUIOp = "arith.index_castui", IndexCast, None [], fold = fold::index_castui,
        canonicalize = canonicalize::index_castui;
    /// Sign-extends an integer to a wider one.
    ExtSIOp = "arith.extsi", ExtSI, None [], fold = fold::extsi,
        canonicalize = canonicalize::extsi;
    /// Zero-extends an integer to a wider one.
    ExtUIOp = "arith.extui", ExtUI, None [], fold = fold::extui;
    /// Truncates an integer to a narrower one.
    TruncIOp = "arith.trunci", TruncI, Overflow [overflow_flags = "overflowFlags"],
        fold = fold::trunci, canonicalize = canonicalize::trunci;
    /// Converts a signed integer to the nearest float.
    SIToFPOp = "arith.sitofp", IntToFP, None [], fold = fold::sitofp;
    /// Converts a float to a signed integer, rounding toward zero.
    FPToSIOp = "arith.fptosi", FPToInt, None [], fold = fold::fptosi;
    /// Converts an unsigned integer to the nearest float.
    UIToFPOp = "arith.uitofp", IntToFP, None [], fold = fold::uitofp;
    /// Converts a float to an unsigned integer, rounding toward zero.
    FPToUIOp = "arith.fptoui", FPToInt, None [], fold = fold::fptoui;
    /// Extends a float to a wider format (exact).
    ExtFOp = "arith.extf", ExtF, OptionalFastMath [fastmath], fold = fold::extf;
    /// Rounds a float to a narrower format, to nearest even or in its `roundingmode`.
    TruncFOp = "arith.truncf", TruncF, OptionalFastMath [fastmath, roundingmode],
        fold = fold::truncf, canonicalize = canonicalize::truncf;
    /// Reinterprets the bits of an integer or float as another type of the same width.
    BitcastOp = "arith.bitcast", Bitcast, None [], fold = fold::bitcast,
        canonicalize = canonicalize::bitcast;
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
    /// `addui_extended`: two signless-integer-like operands, their type and a bool-like result.
    AddExtended,
    /// `mulsi_extended`, `mului_extended`: operands and both results of one type.
    MulExtended,
    CmpI,
    CmpF,
    Select,
    Cast(CastKind),
}

/// The casts, which differ in their operand/result constraints and compatibility rule.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum CastKind {
    /// `index_cast`, `index_castui`.
    IndexCast,
    ExtSI,
    ExtUI,
    TruncI,
    /// `sitofp`, `uitofp`.
    IntToFP,
    /// `fptosi`, `fptoui`.
    FPToInt,
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

/// `op_set!` for the arith ops, plus the [`ArithOp`] constants of the op at hand.
macro_rules! arith_op_set {
    ($(#[doc = $doc:literal])* pub enum $set:ident { $($op:ident),* $(,)? }) => {
        dlc_ir::op_set! {
            $(#[doc = $doc])*
            pub enum $set { $($op),* }
        }

        impl $set {
            /// The op's flag attribute ([`ArithOp::FLAGS`]).
            pub(crate) fn flags(self) -> Flags {
                match self {
                    $($set::$op(_) => <$op as ArithOp>::FLAGS,)*
                }
            }
        }
    };
}

arith_op_set! {
    /// Every op of the arith dialect, the dialect's one op list: `ArithOps::of(ctx, op)` to
    /// dispatch on the kind of an arith op without comparing names, `ArithOps::defs()` for the
    /// dialect.
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
        MaxUIOp,
        MinUIOp,
        CeilDivSIOp,
        CeilDivUIOp,
        FloorDivSIOp,
        CmpIOp,
        AddFOp,
        SubFOp,
        MulFOp,
        DivFOp,
        RemFOp,
        NegFOp,
        MaximumFOp,
        MinimumFOp,
        MaxNumFOp,
        MinNumFOp,
        AddUIExtendedOp,
        MulSIExtendedOp,
        MulUIExtendedOp,
        CmpFOp,
        SelectOp,
        IndexCastOp,
        IndexCastUIOp,
        ExtSIOp,
        ExtUIOp,
        TruncIOp,
        SIToFPOp,
        FPToSIOp,
        UIToFPOp,
        FPToUIOp,
        ExtFOp,
        TruncFOp,
        BitcastOp,
    }
}
