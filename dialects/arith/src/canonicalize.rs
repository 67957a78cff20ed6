//! Canonicalization patterns of the arith ops: the rewrites `canonicalize` applies beyond what
//! the folders do, with MLIR's names (`ArithCanonicalization.td`) so `disable-patterns` takes the
//! same words.
//!
//! Most of them gather constants: `(x + c0) + c1` becomes `x + (c0 + c1)`; that rule, its
//! eight add/sub variants and the `muli` one are one table, `REASSOCIATIONS`, on scalar
//! constants only (as in MLIR). The others invert a comparison
//! under `xor true`, turn selects of booleans into `xori`/`extui`, drop a `xor true` on a select
//! condition by swapping the arms, merge nested selects on one condition, compare before
//! extending, and turn `x + y * -1` into `x - y`. Cast chains shorten (`CAST_CHAINS`:
//! `trunci(extsi(x))` to one narrower `extsi`, `extsi(extui(x))` to `extui(x)`, `index_cast`
//! round trips and extensions under it, `bitcast(bitcast(x))`, `truncf(sitofp(x))` and
//! `truncf(uitofp(x))` without a rounding mode to one conversion), and `trunci(shrsi(x, c))`
//! shifts with `shrui` when `c` is the number of bits the `trunci` drops (the `trunci` loses
//! `nsw`, which MLIR keeps though the new value may break it); bitwise ops of two like
//! extensions run before extending (`LOGIC_OF_EXT`); `mulf`/`divf` of two `negf`s drop both;
//! the extended ops narrow to `addi`/`muli` when their second result is unused.
//!
//! One more deliberate difference: MLIR drops every `index_cast` round trip whose ends have one
//! type, `index → i32 → index` included, which loses the high bits; here only round trips
//! through a type that holds the value whole go.
//!
//! Constants are computed at the op's width (wrapping, as the ops do) and stored through
//! `integer_attr`, which normalizes them for every width up to 128 bits; wider integers are
//! left alone. Where MLIR's rule keeps the flags both ops share (every add/sub rule but
//! `(x + c0) - c1`, and the `muli` one), the combined op keeps `nsw`/`nuw` when both ops had
//! the flag and either `C` computed exactly (signed for `nsw`, unsigned for `nuw`, where
//! `c1 - c0` must not go below zero) fits the width, so the new op computes the same exact
//! value as the root did, which did not overflow; or no `x` keeps both original ops in range
//! in that sense, so the root is poison for every `x` and the new op refines it whatever it
//! computes (for `i8`, `(17 -nuw x) -nuw 42` would need `17 - x >= 42`, so `-25 -nuw x` is
//! fine). Each add/sub op computes `±x + constant` exactly, so that set is an interval found
//! exactly (for widths up to 64; wider ones use the first test alone); a `muli` chain never
//! passes the second test, as `x = 0` keeps it in range. For add/sub the two tests leave out only flags that would be wrong: when
//! `C` wraps, the new op's exact value is off by a nonzero multiple of `2^width` from the root's for every `x` the
//! root is defined on. MLIR keeps the common flags unconditionally, which is wrong there (for
//! `i8`, `(x +nsw 100) +nsw 100` holds for `x = -100`, but `x +nsw -56` does not).
//! `(a - b) - a → 0 - b` keeps the flags both subs share, as MLIR does (sound, see
//! `SubISubILHSRHSLHS`).
//!
//! Deliberately absent: `muli` by a power of two stays a multiplication (strength reduction is
//! the backend's business), and `cmpi` of an operand with itself and `select %c, true, false`
//! are folds (see [`crate::fold`]), not patterns.

use crate::attrs::{
    overflow_attr, overflow_flags, predicate_attr, CmpIPredicate, OverflowFlags, OVERFLOW_FLAGS,
    PREDICATE,
};
use crate::attrs::{FASTMATH, ROUNDING_MODE};
use crate::builders::{constant_spec, spec_with_defaults, splat_attr};
use crate::fold::defined_by;
use crate::ops::{
    AddIOp, AddUIExtendedOp, AndIOp, ArithOp, ArithOps, BitcastOp, CmpIOp, DivFOp, ExtSIOp,
    ExtUIOp, IndexCastOp, IndexCastUIOp, MulFOp, MulIOp, MulSIExtendedOp, MulUIExtendedOp, NegFOp,
    OrIOp, SIToFPOp, SelectOp, ShRSIOp, ShRUIOp, SubIOp, TruncFOp, TruncIOp, UIToFPOp, XOrIOp,
};
use dlc_ir::attributes::sign_extend;
use dlc_ir::location::CompositeLocKind;
use dlc_ir::rewrite::{RewritePattern, Rewriter};
use dlc_ir::{AttrKind, Context, DenseValue, Location, Op, OpSpec, OpView, Type, TypeKind, Value};
use std::marker::PhantomData;

type Patterns = Vec<Box<dyn RewritePattern>>;

fn reassociations(root: IntOp) -> impl Iterator<Item = Box<dyn RewritePattern>> {
    REASSOCIATIONS
        .iter()
        .filter(move |r| r.root == root)
        .map(|r| Box::new(r) as Box<dyn RewritePattern>)
}

/// The patterns of `arith.addi` (its `canonicalize` hook).
pub(crate) fn addi() -> Patterns {
    let mut patterns: Patterns = reassociations(ADD).collect();
    patterns.push(Box::new(AddIMulNegativeOne { rhs: true }));
    patterns.push(Box::new(AddIMulNegativeOne { rhs: false }));
    patterns
}

/// The patterns of `arith.subi`.
pub(crate) fn subi() -> Patterns {
    let mut patterns: Patterns = reassociations(SUB).collect();
    patterns.push(Box::new(SubISubILHSRHSLHS));
    patterns
}

/// The patterns of `arith.muli`.
pub(crate) fn muli() -> Patterns {
    reassociations(MUL).collect()
}

/// The patterns of `arith.andi`.
pub(crate) fn andi() -> Patterns {
    logic_of_ext(AndIOp::NAME).collect()
}

/// The patterns of `arith.ori`.
pub(crate) fn ori() -> Patterns {
    logic_of_ext(OrIOp::NAME).collect()
}

/// The patterns of `arith.xori`.
pub(crate) fn xori() -> Patterns {
    let mut patterns: Patterns = vec![Box::new(XOrINotCmpI)];
    patterns.extend(logic_of_ext(XOrIOp::NAME));
    patterns
}

/// The patterns of `arith.mulf`.
pub(crate) fn mulf() -> Patterns {
    vec![Box::new(NegFPair::<MulFOp>::new("MulFOfNegF"))]
}

/// The patterns of `arith.divf`.
pub(crate) fn divf() -> Patterns {
    vec![Box::new(NegFPair::<DivFOp>::new("DivFOfNegF"))]
}

/// The patterns of `arith.trunci`.
pub(crate) fn trunci() -> Patterns {
    let mut patterns: Patterns = cast_chains(TruncIOp::NAME).collect();
    patterns.push(Box::new(TruncIShrSIToTrunciShrUI));
    patterns
}

/// The patterns of `arith.truncf`.
pub(crate) fn truncf() -> Patterns {
    cast_chains(TruncFOp::NAME).collect()
}

/// The patterns of `arith.extsi`.
pub(crate) fn extsi() -> Patterns {
    cast_chains(ExtSIOp::NAME).collect()
}

/// The patterns of `arith.index_cast`.
pub(crate) fn index_cast() -> Patterns {
    cast_chains(IndexCastOp::NAME).collect()
}

/// The patterns of `arith.index_castui`.
pub(crate) fn index_castui() -> Patterns {
    cast_chains(IndexCastUIOp::NAME).collect()
}

/// The patterns of `arith.bitcast`.
pub(crate) fn bitcast() -> Patterns {
    cast_chains(BitcastOp::NAME).collect()
}

/// The patterns of `arith.select`.
pub(crate) fn select() -> Patterns {
    vec![
        Box::new(SelectI1ToNot),
        Box::new(SelectToExtUI),
        Box::new(SelectNotCond),
        Box::new(RedundantSelect { in_true: true }),
        Box::new(RedundantSelect { in_true: false }),
    ]
}

/// The patterns of `arith.cmpi`.
pub(crate) fn cmpi() -> Patterns {
    vec![
        Box::new(CmpIExt::<ExtSIOp>::new("CmpIExtSI")),
        Box::new(CmpIExt::<ExtUIOp>::new("CmpIExtUI")),
    ]
}

/// The patterns of `arith.cmpf`.
pub(crate) fn cmpf() -> Patterns {
    vec![Box::new(crate::cmpf_of_int::CmpFIntToFPConst)]
}

/// The patterns of `arith.addui_extended`.
pub(crate) fn addui_extended() -> Patterns {
    vec![Box::new(ExtendedToNarrow::<AddUIExtendedOp, AddIOp>::new(
        "AddUIExtendedToAddI",
    ))]
}

/// The patterns of `arith.mulsi_extended`.
pub(crate) fn mulsi_extended() -> Patterns {
    vec![
        Box::new(ExtendedToNarrow::<MulSIExtendedOp, MulIOp>::new(
            "MulSIExtendedToMulI",
        )),
        Box::new(MulSIExtendedRHSOne),
    ]
}

/// The patterns of `arith.mului_extended`.
pub(crate) fn mului_extended() -> Patterns {
    vec![Box::new(ExtendedToNarrow::<MulUIExtendedOp, MulIOp>::new(
        "MulUIExtendedToMulI",
    ))]
}

// ---------------------------------------------------------------------------------------------
// Matching helpers.

/// A scalar integer constant: its type, width and value sign-extended from that width.
#[derive(Copy, Clone, Debug)]
struct IntConst {
    ty: Type,
    width: u32,
    value: i128,
}

/// The width of a scalar integer or index type the patterns can compute in.
fn scalar_width(ctx: &Context, ty: Type) -> Option<u32> {
    match ctx.type_kind(ty) {
        TypeKind::Integer { width } if (1..=128).contains(width) => Some(*width),
        TypeKind::Index => Some(64),
        _ => None,
    }
}

/// `v` as a scalar integer constant (MLIR's `ConstantLikeMatcher APIntAttr`).
fn int_const(ctx: &Context, v: Value) -> Option<IntConst> {
    let attr = ctx.constant_value(v)?;
    let AttrKind::Integer { value, ty } = ctx.attr_kind(attr) else {
        return None;
    };
    let width = scalar_width(ctx, *ty)?;
    Some(IntConst {
        ty: *ty,
        width,
        value: sign_extend(*value, width),
    })
}

/// The integer every element of constant `v` holds (scalar or splat), sign-extended.
fn uniform_int(ctx: &Context, v: Value) -> Option<i128> {
    let attr = ctx.constant_value(v)?;
    let ty = ctx.value_type(v);
    let width = scalar_width(ctx, ctx.element_type(ty))?;
    let raw = match ctx.attr_kind(attr) {
        AttrKind::Integer { value, .. } => *value,
        AttrKind::DenseElements(d) if d.splat => match ctx.dense_element(d, 0) {
            DenseValue::Int(x) => x,
            DenseValue::Float(_) => return None,
        },
        _ => return None,
    };
    Some(sign_extend(raw, width))
}

/// True if `v` is the scalar `i1` constant `value`.
fn is_bool(ctx: &Context, v: Value, value: bool) -> bool {
    int_const(ctx, v).is_some_and(|c| c.width == 1 && (c.value != 0) == value)
}

/// `fused[a, b, ...]` as MLIR's `FusedLoc::get` builds it: unknown locations dropped, nested
/// fusions flattened, duplicates removed, and a single survivor returned as is.
fn fused(ctx: &mut Context, locs: &[Location]) -> Location {
    let mut parts: Vec<Location> = Vec::new();
    for loc in locs {
        let inner = match loc {
            Location::Unknown => continue,
            Location::Composite(c) => match ctx.composite_loc_kind(*c) {
                CompositeLocKind::Fused {
                    locations,
                    metadata: None,
                } => locations.to_vec(),
                _ => vec![*loc],
            },
            Location::FileLineCol { .. } => vec![*loc],
        };
        for l in inner {
            if !parts.contains(&l) {
                parts.push(l);
            }
        }
    }
    match parts[..] {
        [] => Location::Unknown,
        [one] => one,
        _ => ctx.composite_loc(CompositeLocKind::Fused {
            locations: parts.into(),
            metadata: None,
        }),
    }
}

/// The location of the op defining `v` (a matched constant), unknown for a block argument.
///
/// MLIR's generated (DRR) rewrites give the new ops of a two-op pattern the root's location
/// fused with the first op the matcher records after the root: a constant it meets in operand
/// order (descending into the inner op) comes before the inner op, which is recorded only once
/// its operands are matched. So `(x + c0) + c1` fuses the root with `c0`, `c1 - (x + c0)` with
/// `c1`, and patterns without constants fuse the two ops.
fn matched_loc(ctx: &Context, v: Value) -> Location {
    ctx.defining_op(v)
        .map_or(Location::Unknown, |d| ctx.op_loc(d))
}

/// Builds `arith.constant value : ty` at the insertion point.
fn create_int_constant(rw: &mut Rewriter<'_>, value: i128, ty: Type, loc: Location) -> Value {
    let ctx = rw.ctx_mut();
    let attr = ctx.integer_attr(value, ty);
    let spec = constant_spec(ctx, attr, ty, loc);
    let op = rw.create(spec);
    rw.ctx().result(op, 0)
}

/// `spec` with `flags` as its overflow flags (none: MLIR's default, no attribute).
fn with_overflow_flags(ctx: &mut Context, mut spec: OpSpec, flags: OverflowFlags) -> OpSpec {
    if !flags.is_empty() {
        let attr = overflow_attr(ctx, flags);
        spec.set_attr(ctx, OVERFLOW_FLAGS, attr);
    }
    spec
}

/// The spec of arith op `T` with operands and one result of type `ty`, with MLIR's default
/// flag attribute.
fn op_spec<T: ArithOp>(ctx: &mut Context, operands: &[Value], ty: Type, loc: Location) -> OpSpec {
    spec_with_defaults::<T>(ctx, loc)
        .operands(operands)
        .results(&[ty])
}

// ---------------------------------------------------------------------------------------------
// Constant reassociation: add/sub/mul of an add/sub/mul with a constant, and a constant.

/// Which operand of a binary op is the constant.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Side {
    /// `op(x, c)`.
    Rhs,
    /// `op(c, x)`.
    Lhs,
}

/// How the combined constant `C` comes from the inner op's `c0` and the root's `c1`.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Combine {
    /// `c0 + c1`.
    Add,
    /// `c0 - c1`.
    Sub,
    /// `c1 - c0`.
    RevSub,
    /// `c0 * c1`.
    Mul,
}

impl Combine {
    /// `C` at the op's width (wrapping, as the ops compute).
    fn wrapping(self, c0: i128, c1: i128) -> i128 {
        match self {
            Combine::Add => c0.wrapping_add(c1),
            Combine::Sub => c0.wrapping_sub(c1),
            Combine::RevSub => c1.wrapping_sub(c0),
            Combine::Mul => c0.wrapping_mul(c1),
        }
    }

    /// `C` computed exactly on the signed values; `None` beyond `i128`.
    fn signed(self, c0: i128, c1: i128) -> Option<i128> {
        match self {
            Combine::Add => c0.checked_add(c1),
            Combine::Sub => c0.checked_sub(c1),
            Combine::RevSub => c1.checked_sub(c0),
            Combine::Mul => c0.checked_mul(c1),
        }
    }

    /// `C` computed exactly on the unsigned values; `None` below zero or beyond `u128`.
    fn unsigned(self, c0: u128, c1: u128) -> Option<u128> {
        match self {
            Combine::Add => c0.checked_add(c1),
            Combine::Sub => c0.checked_sub(c1),
            Combine::RevSub => c1.checked_sub(c0),
            Combine::Mul => c0.checked_mul(c1),
        }
    }
}

/// How the flags of a combined op are decided.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Flags {
    /// The new op has no flags (as MLIR's rule).
    Drop,
    /// Keep the flags both ops have, each only where that is sound (see the module doc and
    /// [`Reassociation::keeps`]).
    Merge,
}

/// The sense of an overflow flag: `nsw` reads the values signed, `nuw` unsigned.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Sense {
    Signed,
    Unsigned,
}

impl Sense {
    /// The flag that says the op does not overflow in this sense.
    fn flag(self) -> OverflowFlags {
        match self {
            Sense::Signed => OverflowFlags::NSW,
            Sense::Unsigned => OverflowFlags::NUW,
        }
    }

    /// `v` (sign-extended from `w` bits) read in this sense; `w` is at most 64.
    fn read(self, v: i128, w: u32) -> i128 {
        match self {
            Sense::Signed => v,
            Sense::Unsigned => unsigned(v, w) as i128,
        }
    }

    /// The values `w` bits hold in this sense, as an inclusive interval; `w` is at most 64.
    fn range(self, w: u32) -> (i128, i128) {
        match self {
            Sense::Signed => (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1),
            Sense::Unsigned => (0, (1i128 << w) - 1),
        }
    }
}

/// An exact value `sign * x + offset` (`sign` is 1 or -1): what an add or sub of `x` and a
/// constant computes before it wraps.
#[derive(Copy, Clone, Debug)]
struct Affine {
    sign: i128,
    offset: i128,
}

impl Affine {
    /// `op(v, c)` (or `op(c, v)`, as `side` says) of an affine `v`; `None` for `muli`.
    fn then(self, op: IntOp, side: Side, c: i128) -> Option<Affine> {
        let Affine { sign, offset } = self;
        Some(match (op, side) {
            (IntOp::Add, _) => Affine {
                sign,
                offset: offset + c,
            },
            (IntOp::Sub, Side::Rhs) => Affine {
                sign,
                offset: offset - c,
            },
            (IntOp::Sub, Side::Lhs) => Affine {
                sign: -sign,
                offset: c - offset,
            },
            (IntOp::Mul, _) => return None,
        })
    }

    /// The `x` for which this value lies in `[lo, hi]`, as an inclusive interval.
    fn within(self, (lo, hi): (i128, i128)) -> (i128, i128) {
        if self.sign > 0 {
            (lo - self.offset, hi - self.offset)
        } else {
            (self.offset - hi, self.offset - lo)
        }
    }
}

/// `root(inner(...), c1)` (or with `c1` first) → `result(x, C)` (or `result(C, x)`), where
/// `C = combine(c0, c1)` and `c0` is the inner op's constant.
struct Reassociation {
    name: &'static str,
    root: IntOp,
    /// Where the constant `c1` is in the root op (the inner op is the other operand).
    outer: Side,
    inner_op: IntOp,
    /// Where the constant `c0` is in the inner op (`x` is the other operand).
    inner: Side,
    combine: Combine,
    result_op: IntOp,
    /// Where `C` goes in the new op.
    result: Side,
    flags: Flags,
}

/// One [`Reassociation`]: `Name: ROOT[side of c1] of INNER[side of c0] => NEW[side of C],
/// how C is computed ([`Combine`]), flag rule`.
macro_rules! rule {
    ($name:ident: $root:ident[$outer:ident] of $inner_op:ident[$inner:ident]
     => $result_op:ident[$result:ident], $combine:ident, $flags:ident) => {
        Reassociation {
            name: stringify!($name),
            root: $root,
            outer: Side::$outer,
            inner_op: $inner_op,
            inner: Side::$inner,
            combine: Combine::$combine,
            result_op: $result_op,
            result: Side::$result,
            flags: Flags::$flags,
        }
    };
}

/// The ops the reassociations combine.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum IntOp {
    Add,
    Sub,
    Mul,
}

const ADD: IntOp = IntOp::Add;
const SUB: IntOp = IntOp::Sub;
const MUL: IntOp = IntOp::Mul;

impl IntOp {
    /// `op` as one of these ops.
    fn of(ctx: &Context, op: Op) -> Option<IntOp> {
        match ArithOps::of(ctx, op)? {
            ArithOps::AddIOp(_) => Some(ADD),
            ArithOps::SubIOp(_) => Some(SUB),
            ArithOps::MulIOp(_) => Some(MUL),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            IntOp::Add => AddIOp::NAME,
            IntOp::Sub => SubIOp::NAME,
            IntOp::Mul => MulIOp::NAME,
        }
    }

    /// The spec of this op on `operands`, as [`op_spec`].
    fn spec(self, ctx: &mut Context, operands: &[Value], ty: Type, loc: Location) -> OpSpec {
        match self {
            IntOp::Add => op_spec::<AddIOp>(ctx, operands, ty, loc),
            IntOp::Sub => op_spec::<SubIOp>(ctx, operands, ty, loc),
            IntOp::Mul => op_spec::<MulIOp>(ctx, operands, ty, loc),
        }
    }
}

/// MLIR's add/sub/mul constant-gathering patterns.
static REASSOCIATIONS: [Reassociation; 10] = [
    // (x + c0) + c1 → x + (c0 + c1)
    rule!(AddIAddConstant: ADD[Rhs] of ADD[Rhs] => ADD[Rhs], Add, Merge),
    // (x - c0) + c1 → x + (c1 - c0)
    rule!(AddISubConstantRHS: ADD[Rhs] of SUB[Rhs] => ADD[Rhs], RevSub, Merge),
    // (c0 - x) + c1 → (c0 + c1) - x
    rule!(AddISubConstantLHS: ADD[Rhs] of SUB[Lhs] => SUB[Lhs], Add, Merge),
    // (x + c0) - c1 → x + (c0 - c1)
    rule!(SubIRHSAddConstant: SUB[Rhs] of ADD[Rhs] => ADD[Rhs], Sub, Drop),
    // c1 - (x + c0) → (c1 - c0) - x
    rule!(SubILHSAddConstant: SUB[Lhs] of ADD[Rhs] => SUB[Lhs], RevSub, Merge),
    // (x - c0) - c1 → x - (c0 + c1)
    rule!(SubIRHSSubConstantRHS: SUB[Rhs] of SUB[Rhs] => SUB[Rhs], Add, Merge),
    // (c0 - x) - c1 → (c0 - c1) - x
    rule!(SubIRHSSubConstantLHS: SUB[Rhs] of SUB[Lhs] => SUB[Lhs], Sub, Merge),
    // c1 - (x - c0) → (c0 + c1) - x
    rule!(SubILHSSubConstantRHS: SUB[Lhs] of SUB[Rhs] => SUB[Lhs], Add, Merge),
    // c1 - (c0 - x) → x + (c1 - c0)
    rule!(SubILHSSubConstantLHS: SUB[Lhs] of SUB[Lhs] => ADD[Rhs], RevSub, Merge),
    // (x * c0) * c1 → x * (c0 * c1)
    rule!(MulIMulIConstant: MUL[Rhs] of MUL[Rhs] => MUL[Rhs], Mul, Merge),
];

/// `(a, b)` of a binary op as `(the operand on side, the other one)`.
fn split(ctx: &Context, op: Op, side: Side) -> Option<(Value, Value)> {
    let &[lhs, rhs] = ctx.operands(op) else {
        return None;
    };
    Some(match side {
        Side::Rhs => (rhs, lhs),
        Side::Lhs => (lhs, rhs),
    })
}

impl Reassociation {
    /// The flags the combined op keeps: those both `ops` have that [`Self::keeps`] allows.
    fn merged_flags(
        &self,
        ctx: &Context,
        ops: [Op; 2],
        c0: i128,
        c1: i128,
        w: u32,
    ) -> OverflowFlags {
        if self.flags == Flags::Drop {
            return OverflowFlags::empty();
        }
        let shared = overflow_flags(ctx, ops[0]) & overflow_flags(ctx, ops[1]);
        [Sense::Signed, Sense::Unsigned]
            .into_iter()
            .filter(|&sense| shared.contains(sense.flag()) && self.keeps(sense, c0, c1, w))
            .fold(OverflowFlags::empty(), |flags, sense| flags | sense.flag())
    }

    /// Whether the combined op may keep the flag of `sense` that both ops have: `C` computed
    /// exactly fits `w` bits in that sense (then the new op computes the root's exact value,
    /// which did not overflow), or no `x` keeps both ops in range (then the root is poison
    /// for every `x` and any result refines it).
    fn keeps(&self, sense: Sense, c0: i128, c1: i128, w: u32) -> bool {
        self.constant_fits(sense, c0, c1, w) || self.always_overflows(sense, c0, c1, w)
    }

    /// Whether `C`, computed exactly on the values read in `sense`, fits `w` bits in it.
    fn constant_fits(&self, sense: Sense, c0: i128, c1: i128, w: u32) -> bool {
        match sense {
            Sense::Signed => self
                .combine
                .signed(c0, c1)
                .is_some_and(|c| fits_signed(c, w)),
            Sense::Unsigned => self
                .combine
                .unsigned(unsigned(c0, w), unsigned(c1, w))
                .is_some_and(|c| fits_unsigned(c, w)),
        }
    }

    /// Whether, for every `x`, one of the two ops overflows in `sense`. The add/sub ops compute
    /// `±x + constant` exactly, so the `x` that keep each value in range form an interval, and
    /// the question is whether the three intervals (`x`, the inner value, the root value)
    /// meet. `muli` keeps `x = 0` in range, so it never qualifies; widths over 64 are left
    /// out (the interval ends could pass `i128`).
    fn always_overflows(&self, sense: Sense, c0: i128, c1: i128, w: u32) -> bool {
        if w > 64 {
            return false;
        }
        let x = Affine { sign: 1, offset: 0 };
        let Some(inner) = x.then(self.inner_op, self.inner, sense.read(c0, w)) else {
            return false;
        };
        let Some(root) = inner.then(self.root, self.outer, sense.read(c1, w)) else {
            return false;
        };
        let range = sense.range(w);
        let (from, to) = [x, inner, root]
            .into_iter()
            .map(|v| v.within(range))
            .fold((i128::MIN, i128::MAX), |(lo, hi), (l, h)| {
                (lo.max(l), hi.min(h))
            });
        from > to
    }
}

fn unsigned(v: i128, w: u32) -> u128 {
    let bits = v as u128;
    if w >= 128 {
        bits
    } else {
        bits & ((1u128 << w) - 1)
    }
}

fn fits_signed(v: i128, w: u32) -> bool {
    w >= 128 || (-(1i128 << (w - 1))..(1i128 << (w - 1))).contains(&v)
}

fn fits_unsigned(v: u128, w: u32) -> bool {
    w >= 128 || v >> w == 0
}

impl RewritePattern for &'static Reassociation {
    fn name(&self) -> &str {
        self.name
    }

    fn root(&self) -> Option<&'static str> {
        Some(self.root.name())
    }

    fn match_and_rewrite(&self, op: Op, rw: &mut Rewriter<'_>) -> bool {
        let ctx = rw.ctx();
        let Some((c1_value, inner_value)) = split(ctx, op, self.outer) else {
            return false;
        };
        let Some(c1) = int_const(ctx, c1_value) else {
            return false;
        };
        let inner = ctx.defining_op(inner_value);
        let Some(inner) = inner.filter(|d| IntOp::of(ctx, *d) == Some(self.inner_op)) else {
            return false;
        };
        let Some((c0_value, x)) = split(ctx, inner, self.inner) else {
            return false;
        };
        let Some(c0) = int_const(ctx, c0_value) else {
            return false;
        };
        let ty = ctx.value_type(ctx.result(op, 0));
        if c0.ty != ty || c1.ty != ty {
            return false;
        }
        let combined = self.combine.wrapping(c0.value, c1.value);
        let flags = self.merged_flags(ctx, [op, inner], c0.value, c1.value, c0.width);
        // The constant MLIR's matcher meets first: `c1` when it comes before the inner op.
        let first = match self.outer {
            Side::Lhs => c1_value,
            Side::Rhs => c0_value,
        };
        let locs = [ctx.op_loc(op), matched_loc(ctx, first)];
        let loc = fused(rw.ctx_mut(), &locs);
        let c = create_int_constant(rw, combined, ty, loc);
        let operands = match self.result {
            Side::Rhs => [x, c],
            Side::Lhs => [c, x],
        };
        let ctx = rw.ctx_mut();
        let spec = self.result_op.spec(ctx, &operands, ty, loc);
        let spec = with_overflow_flags(ctx, spec, flags);
        rw.replace_op_with_new(op, spec);
        true
    }
}

// ---------------------------------------------------------------------------------------------
// The other integer patterns.

/// `x + y * -1 → x - y` (`rhs`), `x * -1 + y → y - x` (not `rhs`); `-1` may be a splat.
struct AddIMulNegativeOne {
    rhs: bool,
}

impl RewritePattern for AddIMulNegativeOne {
    fn name(&self) -> &str {
        if self.rhs {
            "AddIMulNegativeOneRhs"
        } else {
            "AddIMulNegativeOneLhs"
        }
    }

    fn root(&self) -> Option<&'static str> {
        Some(AddIOp::NAME)
    }

    fn match_and_rewrite(&self, op: Op, rw: &mut Rewriter<'_>) -> bool {
        let ctx = rw.ctx();
        let side = if self.rhs { Side::Rhs } else { Side::Lhs };
        let Some((mul_value, other)) = split(ctx, op, side) else {
            return false;
        };
        let Some(mul) = defined_by::<MulIOp>(ctx, mul_value) else {
            return false;
        };
        let &[y, minus_one] = ctx.operands(mul) else {
            return false;
        };
        if uniform_int(ctx, minus_one) != Some(-1) {
            return false;
        }
        let ty = ctx.value_type(ctx.result(op, 0));
        let locs = [ctx.op_loc(op), matched_loc(ctx, minus_one)];
        let ctx = rw.ctx_mut();
        let loc = fused(ctx, &locs);
        let spec = op_spec::<SubIOp>(ctx, &[other, y], ty, loc);
        rw.replace_op_with_new(op, spec);
        true
    }
}

/// `(a - b) - a → 0 - b`, keeping the flags both subs have (MLIR's `MergeOverflow`). That is
/// sound: `0 -nsw b` overflows only for `b` the signed minimum, where `a -nsw b` needs `a < 0`
/// and then `(a - b) - a = -b` overflows; `0 -nuw b` overflows for every `b > 0`, but
/// `a -nuw b` and `(a - b) -nuw a` together force `b = 0`.
struct SubISubILHSRHSLHS;

impl RewritePattern for SubISubILHSRHSLHS {
    fn name(&self) -> &str {
        "SubISubILHSRHSLHS"
    }

    fn root(&self) -> Option<&'static str> {
        Some(SubIOp::NAME)
    }

    fn match_and_rewrite(&self, op: Op, rw: &mut Rewriter<'_>) -> bool {
        let ctx = rw.ctx();
        let &[lhs, a] = ctx.operands(op) else {
            return false;
        };
        let Some(inner) = defined_by::<SubIOp>(ctx, lhs) else {
            return false;
        };
        let &[inner_a, b] = ctx.operands(inner) else {
            return false;
        };
        if inner_a != a {
            return false;
        }
        let ty = ctx.value_type(ctx.result(op, 0));
        let flags = overflow_flags(ctx, op) & overflow_flags(ctx, inner);
        let locs = [ctx.op_loc(op), ctx.op_loc(inner)];
        let ctx = rw.ctx_mut();
        let loc = fused(ctx, &locs);
        let Some(zero) = splat_attr(ctx, ty, DenseValue::Int(0)) else {
            return false;
        };
        let spec = constant_spec(ctx, zero, ty, loc);
        let zero = rw.create(spec);
        let zero = rw.ctx().result(zero, 0);
        let ctx = rw.ctx_mut();
        let spec = op_spec::<SubIOp>(ctx, &[zero, b], ty, loc);
        let spec = with_overflow_flags(ctx, spec, flags);
        rw.replace_op_with_new(op, spec);
        true
    }
}

/// The predicate that holds exactly when `p` does not.
fn invert(p: CmpIPredicate) -> CmpIPredicate {
    use CmpIPredicate::*;
    match p {
        Eq => Ne,
        Ne => Eq,
        Slt => Sge,
        Sge => Slt,
        Sle => Sgt,
        Sgt => Sle,
        Ult => Uge,
        Uge => Ult,
        Ule => Ugt,
        Ugt => Ule,
    }
}

/// Builds `arith.cmpi pred, lhs, rhs` with result type `ty` just before `op` and replaces `op`.
fn replace_with_cmpi(
    rw: &mut Rewriter<'_>,
    op: Op,
    pred: CmpIPredicate,
    operands: [Value; 2],
    ty: Type,
    loc: Location,
) {
    let ctx = rw.ctx_mut();
    let attr = predicate_attr(ctx, pred as i64);
    let spec = op_spec::<CmpIOp>(ctx, &operands, ty, loc).attr(ctx, PREDICATE, attr);
    rw.replace_op_with_new(op, spec);
}

/// `xori(cmpi(p, a, b), true) → cmpi(!p, a, b)`.
struct XOrINotCmpI;

impl RewritePattern for XOrINotCmpI {
    fn name(&self) -> &str {
        "XOrINotCmpI"
    }

    fn root(&self) -> Option<&'static str> {
        Some(XOrIOp::NAME)
    }

    fn match_and_rewrite(&self, op: Op, rw: &mut Rewriter<'_>) -> bool {
        let ctx = rw.ctx();
        let &[lhs, rhs] = ctx.operands(op) else {
            return false;
        };
        let Some(cmp) = defined_by::<CmpIOp>(ctx, lhs) else {
            return false;
        };
        if !is_bool(ctx, rhs, true) {
            return false;
        }
        let Some(pred) = CmpIOp(cmp).cmp_predicate(ctx) else {
            return false;
        };
        let &[a, b] = ctx.operands(cmp) else {
            return false;
        };
        let locs = [ctx.op_loc(op), ctx.op_loc(cmp)];
        let loc = fused(rw.ctx_mut(), &locs);
        replace_with_cmpi(rw, op, invert(pred), [a, b], Type::I1, loc);
        true
    }
}

/// `cmpi(eq|ne, ext(a), ext(b)) → cmpi(eq|ne, a, b)` when `a` and `b` have one type, for
/// `extsi` and `extui` (an extension is injective, so equality is unchanged).
struct CmpIExt<T> {
    name: &'static str,
    ext: PhantomData<T>,
}

impl<T> CmpIExt<T> {
    fn new(name: &'static str) -> Self {
        CmpIExt {
            name,
            ext: PhantomData,
        }
    }
}

impl<T: OpView + Send + Sync> RewritePattern for CmpIExt<T> {
    fn name(&self) -> &str {
        self.name
    }

    fn root(&self) -> Option<&'static str> {
        Some(CmpIOp::NAME)
    }

    fn match_and_rewrite(&self, op: Op, rw: &mut Rewriter<'_>) -> bool {
        let ctx = rw.ctx();
        let Some(pred) = CmpIOp(op).cmp_predicate(ctx) else {
            return false;
        };
        if !matches!(pred, CmpIPredicate::Eq | CmpIPredicate::Ne) {
            return false;
        }
        let &[lhs, rhs] = ctx.operands(op) else {
            return false;
        };
        let (Some(ext_a), Some(ext_b)) = (defined_by::<T>(ctx, lhs), defined_by::<T>(ctx, rhs))
        else {
            return false;
        };
        let (&[a], &[b]) = (ctx.operands(ext_a), ctx.operands(ext_b)) else {
            return false;
        };
        if ctx.value_type(a) != ctx.value_type(b) {
            return false;
        }
        let ty = ctx.value_type(ctx.result(op, 0));
        let locs = [ctx.op_loc(op), ctx.op_loc(ext_a), ctx.op_loc(ext_b)];
        let loc = fused(rw.ctx_mut(), &locs);
        replace_with_cmpi(rw, op, pred, [a, b], ty, loc);
        true
    }
}

// ---------------------------------------------------------------------------------------------
// Cast chains.

/// Builds the spec of one arith op on operands with one result type (an [`op_spec`]).
type SpecFn = fn(&mut Context, &[Value], Type, Location) -> OpSpec;

/// `outer(inner(x))` → `result(x)` of the root's type, or `x` itself when `result` is `None`,
/// where `applies(ctx, root op, type of x, type of inner(x), root type)`.
struct CastChain {
    name: &'static str,
    outer: &'static str,
    inner: &'static str,
    result: Option<SpecFn>,
    applies: fn(&Context, Op, Type, Type, Type) -> bool,
}

/// The bit width of the element type of `ty` (none for `index`).
fn elem_width(ctx: &Context, ty: Type) -> Option<u32> {
    crate::types::bit_width(ctx, ctx.element_type(ty))
}

fn always(_: &Context, _: Op, _: Type, _: Type, _: Type) -> bool {
    true
}

/// The root (a `truncf`) rounds in the default mode: `truncf(sitofp(x))` is then one
/// conversion, as MLIR rewrites it (both round to nearest even, so the narrow conversion
/// differs only where the wide one would round twice).
fn default_rounding(ctx: &Context, root: Op, _: Type, _: Type, _: Type) -> bool {
    ctx.attr(root, ROUNDING_MODE).is_none()
}

/// `x` is narrower than the root's result: the outer truncation undoes only part of the
/// extension, which one narrower extension does alone.
fn narrower(ctx: &Context, _: Op, x: Type, _: Type, root: Type) -> bool {
    matches!((elem_width(ctx, x), elem_width(ctx, root)), (Some(a), Some(b)) if a < b)
}

/// `x` has the root's type and the value in between holds it whole, so the round trip is the
/// identity: `iN → index → iN` for N ≤ 64 and `index → iM → index` for M ≥ 64 (`index` has 64
/// bits, as the folders assume). MLIR also drops round trips through a narrower type
/// (`index → i32 → index`), which lose the high bits; those stay.
fn lossless_round_trip(ctx: &Context, _: Op, x: Type, mid: Type, root: Type) -> bool {
    let width = |t: Type| elem_width(ctx, t).unwrap_or(64);
    x == root && width(x) <= width(mid)
}

/// MLIR's cast-chain patterns (`ArithCanonicalization.td`).
static CAST_CHAINS: [CastChain; 10] = [
    // trunci(extsi(x)) → extsi(x) when x is narrower than the result.
    CastChain {
        name: "TruncIExtSIToExtSI",
        outer: TruncIOp::NAME,
        inner: ExtSIOp::NAME,
        result: Some(op_spec::<ExtSIOp>),
        applies: narrower,
    },
    // trunci(extui(x)) → extui(x) when x is narrower than the result.
    CastChain {
        name: "TruncIExtUIToExtUI",
        outer: TruncIOp::NAME,
        inner: ExtUIOp::NAME,
        result: Some(op_spec::<ExtUIOp>),
        applies: narrower,
    },
    // extsi(extui(x)) → extui(x): the zero-extended value has a clear sign bit.
    CastChain {
        name: "ExtSIOfExtUI",
        outer: ExtSIOp::NAME,
        inner: ExtUIOp::NAME,
        result: Some(op_spec::<ExtUIOp>),
        applies: always,
    },
    // index_cast(index_cast(x)) → x.
    CastChain {
        name: "IndexCastOfIndexCast",
        outer: IndexCastOp::NAME,
        inner: IndexCastOp::NAME,
        result: None,
        applies: lossless_round_trip,
    },
    // index_cast(extsi(x)) → index_cast(x).
    CastChain {
        name: "IndexCastOfExtSI",
        outer: IndexCastOp::NAME,
        inner: ExtSIOp::NAME,
        result: Some(op_spec::<IndexCastOp>),
        applies: always,
    },
    // index_castui(index_castui(x)) → x.
    CastChain {
        name: "IndexCastUIOfIndexCastUI",
        outer: IndexCastUIOp::NAME,
        inner: IndexCastUIOp::NAME,
        result: None,
        applies: lossless_round_trip,
    },
    // index_castui(extui(x)) → index_castui(x).
    CastChain {
        name: "IndexCastUIOfExtUI",
        outer: IndexCastUIOp::NAME,
        inner: ExtUIOp::NAME,
        result: Some(op_spec::<IndexCastUIOp>),
        applies: always,
    },
    // bitcast(bitcast(x)) → bitcast(x) (which folds away when x has the result type).
    CastChain {
        name: "BitcastOfBitcast",
        outer: BitcastOp::NAME,
        inner: BitcastOp::NAME,
        result: Some(op_spec::<BitcastOp>),
        applies: always,
    },
    // truncf(sitofp(x)) → sitofp(x) when the truncf has no rounding mode (its flags go).
    CastChain {
        name: "TruncFSIToFPToSIToFP",
        outer: TruncFOp::NAME,
        inner: SIToFPOp::NAME,
        result: Some(op_spec::<SIToFPOp>),
        applies: default_rounding,
    },
    // truncf(uitofp(x)) → uitofp(x) likewise.
    CastChain {
        name: "TruncFUIToFPToUIToFP",
        outer: TruncFOp::NAME,
        inner: UIToFPOp::NAME,
        result: Some(op_spec::<UIToFPOp>),
        applies: default_rounding,
    },
];

fn cast_chains(root: &'static str) -> impl Iterator<Item = Box<dyn RewritePattern>> {
    CAST_CHAINS
        .iter()
        .filter(move |c| c.outer == root)
        .map(|c| Box::new(c) as Box<dyn RewritePattern>)
}

impl RewritePattern for &'static CastChain {
    fn name(&self) -> &str {
        self.name
    }

    fn root(&self) -> Option<&'static str> {
        Some(self.outer)
    }

    fn match_and_rewrite(&self, op: Op, rw: &mut Rewriter<'_>) -> bool {
        let ctx = rw.ctx();
        let (&[input], 1) = (ctx.operands(op), ctx.num_results(op)) else {
            return false;
        };
        let Some(inner) = ctx
            .defining_op(input)
            .filter(|d| ctx.op_name(*d) == self.inner)
        else {
            return false;
        };
        let &[x] = ctx.operands(inner) else {
            return false;
        };
        let ty = ctx.value_type(ctx.result(op, 0));
        if !(self.applies)(ctx, op, ctx.value_type(x), ctx.value_type(input), ty) {
            return false;
        }
        let Some(build) = self.result else {
            rw.replace_op(op, &[x]);
            return true;
        };
        let locs = [ctx.op_loc(op), ctx.op_loc(inner)];
        let ctx = rw.ctx_mut();
        let loc = fused(ctx, &locs);
        let spec = build(ctx, &[x], ty, loc);
        rw.replace_op_with_new(op, spec);
        true
    }
}

/// `trunci(shrsi(x, c)) → trunci(shrui(x, c))` when `c` is exactly the number of bits the
/// `trunci` drops (a scalar or splat constant, as MLIR asks; elements up to 128 bits): the
/// bits it keeps are `x`'s top ones under either shift. The `trunci` keeps `nuw` (the
/// `shrui` value always fits) but not `nsw`: the `shrsi` value always fit signed, the `shrui`
/// one does not when `x` is negative, so `nsw` would make a defined result poison. MLIR keeps
/// both.
struct TruncIShrSIToTrunciShrUI;

impl RewritePattern for TruncIShrSIToTrunciShrUI {
    fn name(&self) -> &str {
        "TruncIShrSIToTrunciShrUI"
    }

    fn root(&self) -> Option<&'static str> {
        Some(TruncIOp::NAME)
    }

    fn match_and_rewrite(&self, op: Op, rw: &mut Rewriter<'_>) -> bool {
        let ctx = rw.ctx();
        let (&[input], 1) = (ctx.operands(op), ctx.num_results(op)) else {
            return false;
        };
        let Some(shift) = defined_by::<ShRSIOp>(ctx, input) else {
            return false;
        };
        let &[x, amount] = ctx.operands(shift) else {
            return false;
        };
        let ty = ctx.value_type(ctx.result(op, 0));
        let (Some(wide), Some(narrow)) = (elem_width(ctx, ctx.value_type(x)), elem_width(ctx, ty))
        else {
            return false;
        };
        let Some(amount_attr) = ctx.constant_value(amount) else {
            return false;
        };
        if uniform_int(ctx, amount) != Some(i128::from(wide) - i128::from(narrow)) {
            return false;
        }
        let flags = overflow_flags(ctx, op) - OverflowFlags::NSW;
        let (wide_ty, amount_ty) = (ctx.value_type(input), ctx.value_type(amount));
        let locs = [ctx.op_loc(op), matched_loc(ctx, amount)];
        let ctx = rw.ctx_mut();
        let loc = fused(ctx, &locs);
        let spec = constant_spec(ctx, amount_attr, amount_ty, loc);
        let amount = rw.create(spec);
        let amount = rw.ctx().result(amount, 0);
        let spec = op_spec::<ShRUIOp>(rw.ctx_mut(), &[x, amount], wide_ty, loc);
        let shift = rw.create(spec);
        let shift = rw.ctx().result(shift, 0);
        let ctx = rw.ctx_mut();
        let spec = op_spec::<TruncIOp>(ctx, &[shift], ty, loc);
        let spec = with_overflow_flags(ctx, spec, flags);
        rw.replace_op_with_new(op, spec);
        true
    }
}

// ---------------------------------------------------------------------------------------------
// Bitwise ops of extensions, negations in products and quotients.

/// `logic(ext(a), ext(b))` → `ext(logic(a, b))` for `andi`/`ori`/`xori` and `extsi`/`extui`
/// when `a` and `b` have one type: extending commutes with bitwise ops.
struct LogicOfExt {
    name: &'static str,
    logic: &'static str,
    ext: &'static str,
    build_logic: SpecFn,
    build_ext: SpecFn,
}

/// One [`LogicOfExt`]: `Name: logic op, extension`.
macro_rules! logic_of_ext {
    ($name:ident: $logic:ident, $ext:ident) => {
        LogicOfExt {
            name: stringify!($name),
            logic: $logic::NAME,
            ext: $ext::NAME,
            build_logic: op_spec::<$logic>,
            build_ext: op_spec::<$ext>,
        }
    };
}

static LOGIC_OF_EXT: [LogicOfExt; 6] = [
    logic_of_ext!(AndOfExtUI: AndIOp, ExtUIOp),
    logic_of_ext!(AndOfExtSI: AndIOp, ExtSIOp),
    logic_of_ext!(OrOfExtUI: OrIOp, ExtUIOp),
    logic_of_ext!(OrOfExtSI: OrIOp, ExtSIOp),
    logic_of_ext!(XOrOfExtUI: XOrIOp, ExtUIOp),
    logic_of_ext!(XOrOfExtSI: XOrIOp, ExtSIOp),
];

fn logic_of_ext(root: &'static str) -> impl Iterator<Item = Box<dyn RewritePattern>> {
    LOGIC_OF_EXT
        .iter()
        .filter(move |p| p.logic == root)
        .map(|p| Box::new(p) as Box<dyn RewritePattern>)
}

impl RewritePattern for &'static LogicOfExt {
    fn name(&self) -> &str {
        self.name
    }

    fn root(&self) -> Option<&'static str> {
        Some(self.logic)
    }

    fn match_and_rewrite(&self, op: Op, rw: &mut Rewriter<'_>) -> bool {
        let ctx = rw.ctx();
        let &[lhs, rhs] = ctx.operands(op) else {
            return false;
        };
        let ext_of = |v: Value| ctx.defining_op(v).filter(|d| ctx.op_name(*d) == self.ext);
        let (Some(ext_a), Some(ext_b)) = (ext_of(lhs), ext_of(rhs)) else {
            return false;
        };
        let (&[a], &[b]) = (ctx.operands(ext_a), ctx.operands(ext_b)) else {
            return false;
        };
        let narrow = ctx.value_type(a);
        if narrow != ctx.value_type(b) {
            return false;
        }
        let ty = ctx.value_type(ctx.result(op, 0));
        let locs = [ctx.op_loc(op), ctx.op_loc(ext_a), ctx.op_loc(ext_b)];
        let ctx = rw.ctx_mut();
        let loc = fused(ctx, &locs);
        let spec = (self.build_logic)(ctx, &[a, b], narrow, loc);
        let logic = rw.create(spec);
        let logic = rw.ctx().result(logic, 0);
        let spec = (self.build_ext)(rw.ctx_mut(), &[logic], ty, loc);
        rw.replace_op_with_new(op, spec);
        true
    }
}

/// `f(negf(a), negf(b))` → `f(a, b)` with the root's fast-math flags, for `mulf` and `divf`:
/// the two sign flips cancel.
struct NegFPair<T> {
    name: &'static str,
    op: PhantomData<T>,
}

impl<T> NegFPair<T> {
    fn new(name: &'static str) -> Self {
        NegFPair {
            name,
            op: PhantomData,
        }
    }
}

impl<T: ArithOp + Send + Sync> RewritePattern for NegFPair<T> {
    fn name(&self) -> &str {
        self.name
    }

    fn root(&self) -> Option<&'static str> {
        Some(T::NAME)
    }

    fn match_and_rewrite(&self, op: Op, rw: &mut Rewriter<'_>) -> bool {
        let ctx = rw.ctx();
        let &[lhs, rhs] = ctx.operands(op) else {
            return false;
        };
        let (Some(neg_a), Some(neg_b)) = (
            defined_by::<NegFOp>(ctx, lhs),
            defined_by::<NegFOp>(ctx, rhs),
        ) else {
            return false;
        };
        let (&[a], &[b]) = (ctx.operands(neg_a), ctx.operands(neg_b)) else {
            return false;
        };
        let ty = ctx.value_type(ctx.result(op, 0));
        let fastmath = ctx.attr(op, FASTMATH);
        let locs = [ctx.op_loc(op), ctx.op_loc(neg_a), ctx.op_loc(neg_b)];
        let ctx = rw.ctx_mut();
        let loc = fused(ctx, &locs);
        let mut spec = op_spec::<T>(ctx, &[a, b], ty, loc);
        if let Some(flags) = fastmath {
            spec.set_attr(ctx, FASTMATH, flags);
        }
        rw.replace_op_with_new(op, spec);
        true
    }
}

// ---------------------------------------------------------------------------------------------
// Extended-precision ops.

/// `E(x, y)` whose second result (the carry, the high half) is unused → `N(x, y)` for its
/// first: `addui_extended` → `addi`, `mulsi_extended`/`mului_extended` → `muli`.
struct ExtendedToNarrow<E, N> {
    name: &'static str,
    ops: PhantomData<(E, N)>,
}

impl<E, N> ExtendedToNarrow<E, N> {
    fn new(name: &'static str) -> Self {
        ExtendedToNarrow {
            name,
            ops: PhantomData,
        }
    }
}

impl<E: OpView + Send + Sync, N: ArithOp + Send + Sync> RewritePattern for ExtendedToNarrow<E, N> {
    fn name(&self) -> &str {
        self.name
    }

    fn root(&self) -> Option<&'static str> {
        Some(E::NAME)
    }

    fn match_and_rewrite(&self, op: Op, rw: &mut Rewriter<'_>) -> bool {
        let ctx = rw.ctx();
        let (&[x, y], 2) = (ctx.operands(op), ctx.num_results(op)) else {
            return false;
        };
        if !ctx.is_unused(ctx.result(op, 1)) {
            return false;
        }
        let ty = ctx.value_type(ctx.result(op, 0));
        let loc = ctx.op_loc(op);
        let spec = op_spec::<N>(rw.ctx_mut(), &[x, y], ty, loc);
        let narrow = rw.create(spec);
        let first = rw.ctx().result(narrow, 0);
        // The second result has no uses; MLIR stands `x` in for it too.
        rw.replace_op(op, &[first, x]);
        true
    }
}

/// `mulsi_extended(x, 1) → x, extsi(cmpi slt, x, 0)`: the high half of `x * 1` is the sign of
/// `x`. Not for `i1`, where `1` is -1 and the `extsi` would not widen.
struct MulSIExtendedRHSOne;

impl RewritePattern for MulSIExtendedRHSOne {
    fn name(&self) -> &str {
        "MulSIExtendedRHSOne"
    }

    fn root(&self) -> Option<&'static str> {
        Some(MulSIExtendedOp::NAME)
    }

    fn match_and_rewrite(&self, op: Op, rw: &mut Rewriter<'_>) -> bool {
        let ctx = rw.ctx();
        let (&[x, one], 2) = (ctx.operands(op), ctx.num_results(op)) else {
            return false;
        };
        let ty = ctx.value_type(x);
        if uniform_int(ctx, one) != Some(1)
            || scalar_width(ctx, ctx.element_type(ty)).is_none_or(|w| w < 2)
        {
            return false;
        }
        let loc = ctx.op_loc(op);
        let ctx = rw.ctx_mut();
        let Some(zero) = splat_attr(ctx, ty, DenseValue::Int(0)) else {
            return false;
        };
        let spec = constant_spec(ctx, zero, ty, loc);
        let zero = rw.create(spec);
        let zero = rw.ctx().result(zero, 0);
        let ctx = rw.ctx_mut();
        let bool_ty = crate::types::bool_like(ctx, ty);
        let pred = predicate_attr(ctx, CmpIPredicate::Slt as i64);
        let spec = op_spec::<CmpIOp>(ctx, &[x, zero], bool_ty, loc).attr(ctx, PREDICATE, pred);
        let negative = rw.create(spec);
        let negative = rw.ctx().result(negative, 0);
        let spec = op_spec::<ExtSIOp>(rw.ctx_mut(), &[negative], ty, loc);
        let high = rw.create(spec);
        let high = rw.ctx().result(high, 0);
        rw.replace_op(op, &[x, high]);
        true
    }
}

// ---------------------------------------------------------------------------------------------
// Select.

/// The condition and arms of a select.
fn select_parts(ctx: &Context, op: Op) -> Option<(Value, Value, Value)> {
    let s = SelectOp(op);
    (ctx.operands(op).len() == 3).then(|| (s.condition(ctx), s.true_value(ctx), s.false_value(ctx)))
}

/// Replaces `op` by a new `select` of `operands` (a new op, as MLIR's patterns build one, so
/// the old operands' producers are revisited when `op` is erased).
fn replace_with_select(rw: &mut Rewriter<'_>, op: Op, operands: [Value; 3], locs: &[Location]) {
    let ty = rw.ctx().value_type(rw.ctx().result(op, 0));
    let ctx = rw.ctx_mut();
    let loc = fused(ctx, locs);
    let spec = OpSpec::new(ctx, SelectOp::NAME, loc)
        .operands(&operands)
        .results(&[ty]);
    rw.replace_op_with_new(op, spec);
}

/// Builds `xori cond, true` at the insertion point.
fn create_not(rw: &mut Rewriter<'_>, cond: Value, loc: Location) -> Value {
    let t = create_int_constant(rw, 1, Type::I1, loc);
    let spec = op_spec::<XOrIOp>(rw.ctx_mut(), &[cond, t], Type::I1, loc);
    let not = rw.create(spec);
    rw.ctx().result(not, 0)
}

/// `select(c, false, true) → xori(c, true)` on `i1`.
struct SelectI1ToNot;

impl RewritePattern for SelectI1ToNot {
    fn name(&self) -> &str {
        "SelectI1ToNot"
    }

    fn root(&self) -> Option<&'static str> {
        Some(SelectOp::NAME)
    }

    fn match_and_rewrite(&self, op: Op, rw: &mut Rewriter<'_>) -> bool {
        let ctx = rw.ctx();
        let Some((cond, t, f)) = select_parts(ctx, op) else {
            return false;
        };
        if ctx.value_type(cond) != Type::I1 || !is_bool(ctx, t, false) || !is_bool(ctx, f, true) {
            return false;
        }
        let loc = ctx.op_loc(op);
        let not = create_not(rw, cond, loc);
        rw.replace_op(op, &[not]);
        true
    }
}

/// `select(c, 1, 0) → extui(c)` and `select(c, 0, 1) → extui(xori(c, true))`, for scalar
/// integer results wider than `i1`.
struct SelectToExtUI;

impl RewritePattern for SelectToExtUI {
    fn name(&self) -> &str {
        "SelectToExtUI"
    }

    fn root(&self) -> Option<&'static str> {
        Some(SelectOp::NAME)
    }

    fn match_and_rewrite(&self, op: Op, rw: &mut Rewriter<'_>) -> bool {
        let ctx = rw.ctx();
        let Some((cond, t, f)) = select_parts(ctx, op) else {
            return false;
        };
        let ty = ctx.value_type(ctx.result(op, 0));
        if !matches!(ctx.type_kind(ty), TypeKind::Integer { width } if *width > 1)
            || ctx.value_type(cond) != Type::I1
        {
            return false;
        }
        let (tv, fv) = (int_const(ctx, t), int_const(ctx, f));
        let negate = match (tv.map(|c| c.value), fv.map(|c| c.value)) {
            (Some(1), Some(0)) => false,
            (Some(0), Some(1)) => true,
            _ => return false,
        };
        let loc = ctx.op_loc(op);
        let input = if negate {
            create_not(rw, cond, loc)
        } else {
            cond
        };
        let spec = op_spec::<ExtUIOp>(rw.ctx_mut(), &[input], ty, loc);
        rw.replace_op_with_new(op, spec);
        true
    }
}

/// `select(xori(c, true), a, b) → select(c, b, a)`.
struct SelectNotCond;

impl RewritePattern for SelectNotCond {
    fn name(&self) -> &str {
        "SelectNotCond"
    }

    fn root(&self) -> Option<&'static str> {
        Some(SelectOp::NAME)
    }

    fn match_and_rewrite(&self, op: Op, rw: &mut Rewriter<'_>) -> bool {
        let ctx = rw.ctx();
        let Some((cond, t, f)) = select_parts(ctx, op) else {
            return false;
        };
        let Some(not) = defined_by::<XOrIOp>(ctx, cond) else {
            return false;
        };
        let &[c, one] = ctx.operands(not) else {
            return false;
        };
        if !is_bool(ctx, one, true) {
            return false;
        }
        let locs = [ctx.op_loc(op), matched_loc(ctx, one)];
        replace_with_select(rw, op, [c, f, t], &locs);
        true
    }
}

/// `select(p, select(p, a, b), c) → select(p, a, c)` (`in_true`) and
/// `select(p, a, select(p, b, c)) → select(p, a, c)`.
struct RedundantSelect {
    in_true: bool,
}

impl RewritePattern for RedundantSelect {
    fn name(&self) -> &str {
        if self.in_true {
            "RedundantSelectTrue"
        } else {
            "RedundantSelectFalse"
        }
    }

    fn root(&self) -> Option<&'static str> {
        Some(SelectOp::NAME)
    }

    fn match_and_rewrite(&self, op: Op, rw: &mut Rewriter<'_>) -> bool {
        let ctx = rw.ctx();
        let Some((p, t, f)) = select_parts(ctx, op) else {
            return false;
        };
        let nested = if self.in_true { t } else { f };
        let Some(inner) = defined_by::<SelectOp>(ctx, nested) else {
            return false;
        };
        let Some((q, a, b)) = select_parts(ctx, inner) else {
            return false;
        };
        if q != p {
            return false;
        }
        let operands = if self.in_true { [p, a, f] } else { [p, t, b] };
        let locs = [ctx.op_loc(op), ctx.op_loc(inner)];
        replace_with_select(rw, op, operands, &locs);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn predicates_invert_to_their_complement() {
        use crate::fold::eval_cmpi;
        let preds = [
            CmpIPredicate::Eq,
            CmpIPredicate::Ne,
            CmpIPredicate::Slt,
            CmpIPredicate::Sle,
            CmpIPredicate::Sgt,
            CmpIPredicate::Sge,
            CmpIPredicate::Ult,
            CmpIPredicate::Ule,
            CmpIPredicate::Ugt,
            CmpIPredicate::Uge,
        ];
        for p in preds {
            for (a, b) in [(0, 0), (-1, 1), (1, -1), (3, 2), (-128, 127)] {
                assert_ne!(
                    eval_cmpi(p, a, b, 8),
                    eval_cmpi(invert(p), a, b, 8),
                    "{p:?}"
                );
            }
        }
    }

    /// Every reassociation, checked against direct evaluation at several widths: the rewritten
    /// expression computes the same value, for all `x`, modulo 2^width.
    #[test]
    fn reassociations_preserve_values() {
        let eval = |op: IntOp, a: i128, b: i128| match op {
            IntOp::Add => a.wrapping_add(b),
            IntOp::Sub => a.wrapping_sub(b),
            IntOp::Mul => a.wrapping_mul(b),
        };
        let apply = |side: Side, op: IntOp, x: i128, c: i128| match side {
            Side::Rhs => eval(op, x, c),
            Side::Lhs => eval(op, c, x),
        };
        for r in &REASSOCIATIONS {
            for w in [1u32, 8, 32, 64, 128] {
                for (x, c0, c1) in [(5, 3, 7), (-100, 100, 100), (i128::MAX, -1, 2), (1, 1, 1)] {
                    let (x, c0, c1) = (sign_extend(x, w), sign_extend(c0, w), sign_extend(c1, w));
                    let inner = apply(r.inner, r.inner_op, x, c0);
                    let before = apply(r.outer, r.root, inner, c1);
                    let after = apply(r.result, r.result_op, x, r.combine.wrapping(c0, c1));
                    assert_eq!(
                        sign_extend(before, w),
                        sign_extend(after, w),
                        "{} at i{w}",
                        r.name
                    );
                }
            }
        }
    }

    /// The exact result of `op(a, b)` on the 8-bit values `a` and `b` read in `sense`, and
    /// whether it stays in range (the op does not overflow in that sense).
    fn exact8(op: IntOp, a: i128, b: i128, sense: Sense) -> (i128, bool) {
        let (a, b) = (
            sense.read(sign_extend(a, 8), 8),
            sense.read(sign_extend(b, 8), 8),
        );
        let v = match op {
            IntOp::Add => a + b,
            IntOp::Sub => a - b,
            IntOp::Mul => a * b,
        };
        let (lo, hi) = sense.range(8);
        (v, (lo..=hi).contains(&v))
    }

    /// `op(x, c)` (`side` says where `c` is) on i8 in `sense`: whether it stays in range, and
    /// its wrapped value.
    fn step8(op: IntOp, side: Side, x: i128, c: i128, sense: Sense) -> (bool, i128) {
        let (a, b) = match side {
            Side::Rhs => (x, c),
            Side::Lhs => (c, x),
        };
        let (v, ok) = exact8(op, a, b, sense);
        (ok, sign_extend(v, 8))
    }

    /// Every reassociation that keeps flags, exhaustively on i8 (every `c0`, `c1`, `x`): where
    /// the rule keeps a flag and both original ops did not overflow in its sense, the new op
    /// does not either. For the add/sub rules the rule is also as good as it gets: where it
    /// drops a flag, some `x` keeps both original ops in range and makes the new op overflow.
    #[test]
    fn kept_flags_are_sound() {
        for r in REASSOCIATIONS.iter().filter(|r| r.flags == Flags::Merge) {
            for c0 in -128..128 {
                for c1 in -128..128 {
                    let c = sign_extend(r.combine.wrapping(c0, c1), 8);
                    for sense in [Sense::Signed, Sense::Unsigned] {
                        let kept = r.keeps(sense, c0, c1, 8);
                        let mut needed = false;
                        for x in -128..128 {
                            let (inner_ok, inner) = step8(r.inner_op, r.inner, x, c0, sense);
                            let (root_ok, _) = step8(r.root, r.outer, inner, c1, sense);
                            let (new_ok, _) = step8(r.result_op, r.result, x, c, sense);
                            let breaks = inner_ok && root_ok && !new_ok;
                            assert!(
                                !(kept && breaks),
                                "{} c0={c0} c1={c1} x={x} {sense:?}",
                                r.name
                            );
                            needed |= breaks;
                        }
                        assert!(
                            kept || needed || r.root == MUL,
                            "{} drops a flag it could keep: c0={c0} c1={c1} {sense:?}",
                            r.name
                        );
                    }
                }
            }
        }
    }

    /// The rule keeps every flag the old one (`C` fits) did, and more: `(17 -nuw x) -nuw 42`
    /// on i8 needs `17 - x >= 42`, which no `x` gives, so `nuw` stays on `-25 - x` though
    /// `17 - 42` is below zero.
    #[test]
    fn flags_stay_where_the_original_always_overflows() {
        for r in REASSOCIATIONS.iter().filter(|r| r.flags == Flags::Merge) {
            for (c0, c1) in (-128..128).flat_map(|c0| (-128..128).map(move |c1| (c0, c1))) {
                for sense in [Sense::Signed, Sense::Unsigned] {
                    assert!(!r.constant_fits(sense, c0, c1, 8) || r.keeps(sense, c0, c1, 8));
                }
            }
        }
        let sub_sub = REASSOCIATIONS
            .iter()
            .find(|r| r.name == "SubIRHSSubConstantLHS");
        let Some(sub_sub) = sub_sub else {
            panic!("SubIRHSSubConstantLHS is a reassociation");
        };
        assert!(!sub_sub.constant_fits(Sense::Unsigned, 17, 42, 8));
        assert!(sub_sub.keeps(Sense::Unsigned, 17, 42, 8));
        // `(x +nsw 100) +nsw 100` holds for x = -100, where `x + -56` overflows.
        let add_add = &REASSOCIATIONS[0];
        assert!(!add_add.keeps(Sense::Signed, 100, 100, 8));
        // Wider than 64 bits only the constant decides.
        assert!(!sub_sub.keeps(Sense::Unsigned, 17, 42, 128));
    }

    /// `(a - b) - a → 0 - b` keeps the flags both subs have, exhaustively sound on i8.
    #[test]
    fn sub_sub_lhs_keeps_sound_flags() {
        for sense in [Sense::Signed, Sense::Unsigned] {
            for a in -128..128 {
                for b in -128..128 {
                    let (ab, inner_ok) = exact8(IntOp::Sub, a, b, sense);
                    let (_, root_ok) = exact8(IntOp::Sub, sign_extend(ab, 8), a, sense);
                    let (_, new_ok) = exact8(IntOp::Sub, 0, b, sense);
                    assert!(!(inner_ok && root_ok) || new_ok, "a={a} b={b} {sense:?}");
                }
            }
        }
    }

    /// `trunci(shrsi(x, 8))` and `trunci(shrui(x, 8))` from i16 to i8 agree for every `x`; the
    /// `shrui` value always fits unsigned (`nuw` may stay) and fits signed only for `x >= 0`,
    /// while the `shrsi` one always fits signed (so `nsw` must go).
    #[test]
    fn trunci_of_shrsi_by_the_dropped_bits_is_trunci_of_shrui() {
        for x in i16::MIN..=i16::MAX {
            let signed = x >> 8;
            let logical = ((x as u16) >> 8) as i16;
            assert_eq!(signed as i8, logical as i8, "x={x}");
            assert!(i8::try_from(signed).is_ok() && u8::try_from(logical).is_ok());
            assert_eq!(i8::try_from(logical).is_ok(), x >= 0, "x={x}");
        }
    }

    #[test]
    fn flags_survive_only_when_the_constants_do_not_overflow() {
        assert!(fits_signed(127, 8) && !fits_signed(128, 8) && fits_signed(-128, 8));
        assert!(fits_unsigned(255, 8) && !fits_unsigned(256, 8));
        assert!(fits_signed(i128::MIN, 128) && fits_unsigned(u128::MAX, 128));
        assert_eq!(unsigned(-1, 8), 255);
        assert_eq!(unsigned(-1, 1), 1);
    }
}
