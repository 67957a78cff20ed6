//! The arith dialect's enums and attributes: comparison predicates, rounding modes, integer
//! overflow flags and fast-math flags.
//!
//! Predicates and rounding modes are stored as MLIR stores them in generic form, integer
//! attributes with MLIR's numbering (`predicate = N : i64`, `roundingmode = N : i32`), so generic
//! text moves between dlc and mlir-opt unchanged.
//! Flags are dialect attributes, `#arith.overflow<nsw, nuw>` and `#arith.fastmath<nnan,ninf>`,
//! holding the flag bits as their one parameter; the dialect's `parse_attr`/`print_attr` hooks
//! give them MLIR's spelling. The custom op syntax reuses the same bodies after a keyword
//! (`overflow<nsw>`, `fastmath<fast>`).

use dlc_ir::parser::lexer::Tok;
use dlc_ir::{AttrKind, Attribute, Context, Op, PResult, Parser, Printer, Type};

/// The name of the attribute that holds integer overflow flags.
pub const OVERFLOW_FLAGS: &str = "overflowFlags";
/// The name of the attribute that holds fast-math flags.
pub const FASTMATH: &str = "fastmath";
/// The name of the attribute that holds a comparison predicate.
pub const PREDICATE: &str = "predicate";
/// The name of the attribute that holds the rounding mode of `arith.truncf`.
pub const ROUNDING_MODE: &str = "roundingmode";

bitflags::bitflags! {
    /// Integer overflow flags (`arith::IntegerOverflowFlags`): with `nsw`/`nuw`, signed/unsigned
    /// wrap-around makes the result poison.
    #[derive(Copy, Clone, PartialEq, Eq, Debug, Default, Hash)]
    pub struct OverflowFlags: u32 {
        /// No signed wrap.
        const NSW = 1;
        /// No unsigned wrap.
        const NUW = 2;
    }
}

bitflags::bitflags! {
    /// Fast-math flags (`arith::FastMathFlags`), with MLIR's bit values.
    #[derive(Copy, Clone, PartialEq, Eq, Debug, Default, Hash)]
    pub struct FastMathFlags: u32 {
        /// Operations may be reassociated.
        const REASSOC = 1;
        /// Operands and results are assumed not to be NaN.
        const NNAN = 2;
        /// Operands and results are assumed not to be infinite.
        const NINF = 4;
        /// The sign of a zero may be ignored.
        const NSZ = 8;
        /// Division may use the reciprocal.
        const ARCP = 16;
        /// Operations may be fused (multiply-add).
        const CONTRACT = 32;
        /// Approximate functions may be used.
        const AFN = 64;
    }
}

const OVERFLOW_WORDS: [(&str, u32); 2] = [("nsw", 1), ("nuw", 2)];
const FASTMATH_WORDS: [(&str, u32); 7] = [
    ("reassoc", 1),
    ("nnan", 2),
    ("ninf", 4),
    ("nsz", 8),
    ("arcp", 16),
    ("contract", 32),
    ("afn", 64),
];

impl OverflowFlags {
    /// MLIR's spelling of the flags inside `<...>`: `none`, `nsw`, `nuw` or `nsw, nuw`.
    pub fn keyword_list(self) -> String {
        flag_list(self.bits(), &OVERFLOW_WORDS, ", ", None)
    }
}

impl FastMathFlags {
    /// All flags; MLIR spells this set `fast`.
    pub const FAST: FastMathFlags = FastMathFlags::all();

    /// MLIR's spelling of the flags inside `<...>`: `none`, `fast`, or the set flags joined by
    /// `,` (no space, as mlir-opt prints them) in bit order.
    pub fn keyword_list(self) -> String {
        flag_list(
            self.bits(),
            &FASTMATH_WORDS,
            ",",
            Some(("fast", Self::FAST.bits())),
        )
    }
}

fn flag_list(bits: u32, words: &[(&str, u32)], sep: &str, all: Option<(&str, u32)>) -> String {
    if bits == 0 {
        return "none".to_string();
    }
    if let Some((word, all_bits)) = all {
        if bits == all_bits {
            return word.to_string();
        }
    }
    words
        .iter()
        .filter(|(_, b)| bits & b != 0)
        .map(|(w, _)| *w)
        .collect::<Vec<_>>()
        .join(sep)
}

/// `arith.cmpi` predicates, numbered as MLIR's `arith::CmpIPredicate`.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Hash)]
pub enum CmpIPredicate {
    /// `eq`: equal.
    Eq = 0,
    /// `ne`: not equal.
    Ne = 1,
    /// `slt`: signed less than.
    Slt = 2,
    /// `sle`: signed less than or equal.
    Sle = 3,
    /// `sgt`: signed greater than.
    Sgt = 4,
    /// `sge`: signed greater than or equal.
    Sge = 5,
    /// `ult`: unsigned less than.
    Ult = 6,
    /// `ule`: unsigned less than or equal.
    Ule = 7,
    /// `ugt`: unsigned greater than.
    Ugt = 8,
    /// `uge`: unsigned greater than or equal.
    Uge = 9,
}

const CMPI_WORDS: [(&str, CmpIPredicate); 10] = [
    ("eq", CmpIPredicate::Eq),
    ("ne", CmpIPredicate::Ne),
    ("slt", CmpIPredicate::Slt),
    ("sle", CmpIPredicate::Sle),
    ("sgt", CmpIPredicate::Sgt),
    ("sge", CmpIPredicate::Sge),
    ("ult", CmpIPredicate::Ult),
    ("ule", CmpIPredicate::Ule),
    ("ugt", CmpIPredicate::Ugt),
    ("uge", CmpIPredicate::Uge),
];

impl CmpIPredicate {
    /// The predicate numbered `n`, if any.
    pub fn from_i64(n: i64) -> Option<Self> {
        CMPI_WORDS.iter().map(|(_, p)| *p).find(|p| *p as i64 == n)
    }

    /// The predicate spelled `word` (`slt`).
    pub fn from_keyword(word: &str) -> Option<Self> {
        CMPI_WORDS.iter().find(|(w, _)| *w == word).map(|(_, p)| *p)
    }

    /// The keyword spelling the predicate.
    pub fn keyword(self) -> &'static str {
        CMPI_WORDS[self as usize].0
    }

    /// The predicate with the operands exchanged: `a p b` is `b p.swapped() a`.
    pub fn swapped(self) -> Self {
        use CmpIPredicate::*;
        match self {
            Eq => Eq,
            Ne => Ne,
            Slt => Sgt,
            Sgt => Slt,
            Sle => Sge,
            Sge => Sle,
            Ult => Ugt,
            Ugt => Ult,
            Ule => Uge,
            Uge => Ule,
        }
    }

    /// True when the predicate holds for a value compared with itself.
    pub fn holds_for_equal(self) -> bool {
        use CmpIPredicate::*;
        matches!(self, Eq | Sle | Sge | Ule | Uge)
    }
}

/// `arith.cmpf` predicates, numbered as MLIR's `arith::CmpFPredicate`. `O` predicates are false
/// when either operand is NaN, `U` predicates true.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Hash)]
pub enum CmpFPredicate {
    /// `false`: always false.
    AlwaysFalse = 0,
    /// `oeq`: ordered and equal.
    Oeq = 1,
    /// `ogt`: ordered and greater than.
    Ogt = 2,
    /// `oge`: ordered and greater than or equal.
    Oge = 3,
    /// `olt`: ordered and less than.
    Olt = 4,
    /// `ole`: ordered and less than or equal.
    Ole = 5,
    /// `one`: ordered and not equal.
    One = 6,
    /// `ord`: ordered (neither is NaN).
    Ord = 7,
    /// `ueq`: unordered or equal.
    Ueq = 8,
    /// `ugt`: unordered or greater than.
    Ugt = 9,
    /// `uge`: unordered or greater than or equal.
    Uge = 10,
    /// `ult`: unordered or less than.
    Ult = 11,
    /// `ule`: unordered or less than or equal.
    Ule = 12,
    /// `une`: unordered or not equal.
    Une = 13,
    /// `uno`: unordered (either is NaN).
    Uno = 14,
    /// `true`: always true.
    AlwaysTrue = 15,
}

const CMPF_WORDS: [(&str, CmpFPredicate); 16] = [
    ("false", CmpFPredicate::AlwaysFalse),
    ("oeq", CmpFPredicate::Oeq),
    ("ogt", CmpFPredicate::Ogt),
    ("oge", CmpFPredicate::Oge),
    ("olt", CmpFPredicate::Olt),
    ("ole", CmpFPredicate::Ole),
    ("one", CmpFPredicate::One),
    ("ord", CmpFPredicate::Ord),
    ("ueq", CmpFPredicate::Ueq),
    ("ugt", CmpFPredicate::Ugt),
    ("uge", CmpFPredicate::Uge),
    ("ult", CmpFPredicate::Ult),
    ("ule", CmpFPredicate::Ule),
    ("une", CmpFPredicate::Une),
    ("uno", CmpFPredicate::Uno),
    ("true", CmpFPredicate::AlwaysTrue),
];

impl CmpFPredicate {
    /// The predicate numbered `n`, if any.
    pub fn from_i64(n: i64) -> Option<Self> {
        CMPF_WORDS.iter().map(|(_, p)| *p).find(|p| *p as i64 == n)
    }

    /// The predicate spelled `word` (`olt`).
    pub fn from_keyword(word: &str) -> Option<Self> {
        CMPF_WORDS.iter().find(|(w, _)| *w == word).map(|(_, p)| *p)
    }

    /// The keyword spelling the predicate.
    pub fn keyword(self) -> &'static str {
        CMPF_WORDS[self as usize].0
    }
}

/// Rounding modes (`arith::RoundingMode`), numbered as MLIR numbers them. An `arith.truncf`
/// without one rounds to nearest, ties to even.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Hash)]
pub enum RoundingMode {
    /// `to_nearest_even`: to nearest, ties to the even neighbour.
    ToNearestEven = 0,
    /// `downward`: toward negative infinity.
    Downward = 1,
    /// `upward`: toward positive infinity.
    Upward = 2,
    /// `toward_zero`: toward zero (truncation).
    TowardZero = 3,
    /// `to_nearest_away`: to nearest, ties away from zero.
    ToNearestAway = 4,
}

const ROUNDING_WORDS: [(&str, RoundingMode); 5] = [
    ("to_nearest_even", RoundingMode::ToNearestEven),
    ("downward", RoundingMode::Downward),
    ("upward", RoundingMode::Upward),
    ("toward_zero", RoundingMode::TowardZero),
    ("to_nearest_away", RoundingMode::ToNearestAway),
];

impl RoundingMode {
    /// Every mode, in MLIR's order.
    pub const ALL: [RoundingMode; 5] = [
        RoundingMode::ToNearestEven,
        RoundingMode::Downward,
        RoundingMode::Upward,
        RoundingMode::TowardZero,
        RoundingMode::ToNearestAway,
    ];

    /// The mode numbered `n`, if any.
    pub fn from_i64(n: i64) -> Option<Self> {
        Self::ALL.into_iter().find(|m| *m as i64 == n)
    }

    /// The mode spelled `word` (`downward`).
    pub fn from_keyword(word: &str) -> Option<Self> {
        ROUNDING_WORDS
            .iter()
            .find(|(w, _)| *w == word)
            .map(|(_, m)| *m)
    }

    /// The keyword spelling the mode.
    pub fn keyword(self) -> &'static str {
        ROUNDING_WORDS[self as usize].0
    }
}

// ---------------------------------------------------------------------------------------------
// Attribute construction and access.

fn flags_attr(ctx: &mut Context, mnemonic: &str, bits: u32) -> Attribute {
    let dialect = ctx.ident("arith");
    let mnemonic = ctx.ident(mnemonic);
    let param = ctx.integer_attr(bits as i128, Type::I32);
    ctx.intern_attr(AttrKind::Dialect {
        dialect,
        mnemonic,
        params: Box::new([param]),
    })
}

fn flags_bits(ctx: &Context, attr: Attribute, mnemonic: &str) -> Option<u32> {
    let AttrKind::Dialect {
        dialect,
        mnemonic: m,
        params,
    } = ctx.attr_kind(attr)
    else {
        return None;
    };
    if ctx.ident_str(*dialect) != "arith" || ctx.ident_str(*m) != mnemonic {
        return None;
    }
    let [param] = params[..] else { return None };
    u32::try_from(ctx.attr_as_int(param)?).ok()
}

/// `#arith.overflow<...>` holding `flags`.
pub fn overflow_attr(ctx: &mut Context, flags: OverflowFlags) -> Attribute {
    flags_attr(ctx, "overflow", flags.bits())
}

/// `#arith.fastmath<...>` holding `flags`.
pub fn fastmath_attr(ctx: &mut Context, flags: FastMathFlags) -> Attribute {
    flags_attr(ctx, "fastmath", flags.bits())
}

/// The flags of an `#arith.overflow<...>` attribute; `None` for any other attribute.
pub fn overflow_flags_of(ctx: &Context, attr: Attribute) -> Option<OverflowFlags> {
    OverflowFlags::from_bits(flags_bits(ctx, attr, "overflow")?)
}

/// The flags of an `#arith.fastmath<...>` attribute; `None` for any other attribute.
pub fn fastmath_flags_of(ctx: &Context, attr: Attribute) -> Option<FastMathFlags> {
    FastMathFlags::from_bits(flags_bits(ctx, attr, "fastmath")?)
}

/// The overflow flags of `op`; none when it has no (valid) `overflowFlags` attribute.
pub fn overflow_flags(ctx: &Context, op: Op) -> OverflowFlags {
    ctx.attr(op, OVERFLOW_FLAGS)
        .and_then(|a| overflow_flags_of(ctx, a))
        .unwrap_or_default()
}

/// The fast-math flags of `op`; none when it has no (valid) `fastmath` attribute.
pub fn fastmath_flags(ctx: &Context, op: Op) -> FastMathFlags {
    ctx.attr(op, FASTMATH)
        .and_then(|a| fastmath_flags_of(ctx, a))
        .unwrap_or_default()
}

/// The `roundingmode = N : i32` attribute of a rounding mode.
pub fn rounding_mode_attr(ctx: &mut Context, mode: RoundingMode) -> Attribute {
    ctx.integer_attr(mode as i128, Type::I32)
}

/// The mode a `roundingmode` attribute holds: an `i32` integer numbering a mode (anything else is
/// invalid, as in MLIR's property conversion).
pub fn rounding_mode_of(ctx: &Context, attr: Attribute) -> Option<RoundingMode> {
    match ctx.attr_kind(attr) {
        AttrKind::Integer { value, ty } if *ty == Type::I32 => {
            RoundingMode::from_i64(i64::try_from(*value).ok()?)
        }
        _ => None,
    }
}

/// The rounding mode `op` names; `None` when it has no (valid) `roundingmode` attribute, which
/// means the default, to nearest even.
pub fn rounding_mode(ctx: &Context, op: Op) -> Option<RoundingMode> {
    ctx.attr(op, ROUNDING_MODE)
        .and_then(|a| rounding_mode_of(ctx, a))
}

/// The `predicate = N : i64` attribute for a predicate number.
pub(crate) fn predicate_attr(ctx: &mut Context, n: i64) -> Attribute {
    ctx.integer_attr(n as i128, Type::I64)
}

/// The raw predicate number of a cmp op, if it has a well-formed `predicate` attribute.
pub(crate) fn predicate_number(ctx: &Context, op: Op) -> Option<i64> {
    let attr = ctx.attr(op, PREDICATE)?;
    match ctx.attr_kind(attr) {
        AttrKind::Integer { value, ty } if *ty == Type::I64 => i64::try_from(*value).ok(),
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------------
// Text.

/// Parses `<word (, word)*>` where each word is `none` or one of `words`, OR-ing the bits.
fn parse_flag_body(
    p: &mut Parser<'_>,
    words: &[(&str, u32)],
    all: Option<(&str, u32)>,
    what: &str,
) -> PResult<u32> {
    p.expect(Tok::Less, "'<'")?;
    let mut bits = 0;
    p.parse_comma_separated(|p| {
        let word = p.peek_text();
        let found = if p.peek() != Tok::BareIdent {
            None
        } else if word == "none" {
            Some(0)
        } else {
            words
                .iter()
                .chain(all.as_ref())
                .find(|(w, _)| *w == word)
                .map(|(_, b)| *b)
        };
        let Some(b) = found else {
            let mut names: Vec<&str> = vec!["none"];
            names.extend(words.iter().map(|(w, _)| *w));
            names.extend(all.iter().map(|(w, _)| *w));
            return Err(p.error(format!(
                "expected {what} to be one of: {}",
                names.join(", ")
            )));
        };
        p.consume(Tok::BareIdent);
        bits |= b;
        Ok(())
    })?;
    p.expect(Tok::Greater, "'>'")?;
    Ok(bits)
}

/// Parses the `<nsw, nuw>` body of an overflow attribute.
pub(crate) fn parse_overflow_body(p: &mut Parser<'_>) -> PResult<OverflowFlags> {
    let bits = parse_flag_body(p, &OVERFLOW_WORDS, None, "integer overflow flags")?;
    Ok(OverflowFlags::from_bits_truncate(bits))
}

/// Parses the `<nnan,ninf>` body of a fast-math attribute.
pub(crate) fn parse_fastmath_body(p: &mut Parser<'_>) -> PResult<FastMathFlags> {
    let bits = parse_flag_body(
        p,
        &FASTMATH_WORDS,
        Some(("fast", FastMathFlags::FAST.bits())),
        "fast-math flags",
    )?;
    Ok(FastMathFlags::from_bits_truncate(bits))
}

/// The dialect's attribute parser: `#arith.overflow<...>` and `#arith.fastmath<...>`.
pub(crate) fn parse_attr(p: &mut Parser<'_>, mnemonic: &str) -> PResult<Attribute> {
    match mnemonic {
        "overflow" => {
            let flags = parse_overflow_body(p)?;
            Ok(overflow_attr(p.ctx(), flags))
        }
        "fastmath" => {
            let flags = parse_fastmath_body(p)?;
            Ok(fastmath_attr(p.ctx(), flags))
        }
        _ => Err(p.error(format!("unknown attribute `{mnemonic}` in dialect `arith`"))),
    }
}

/// The dialect's attribute printer: `overflow<...>` / `fastmath<...>` after `#arith.`.
pub(crate) fn print_attr(p: &mut Printer<'_>, attr: Attribute) {
    let ctx = p.ctx();
    if let Some(flags) = overflow_flags_of(ctx, attr) {
        p.write("overflow<");
        p.write(&flags.keyword_list());
        p.write(">");
    } else if let Some(flags) = fastmath_flags_of(ctx, attr) {
        p.write("fastmath<");
        p.write(&flags.keyword_list());
        p.write(">");
    } else if let AttrKind::Dialect { mnemonic, .. } = ctx.attr_kind(attr) {
        // Not built by this crate; print what is known rather than nothing.
        p.write(ctx.ident_str(*mnemonic));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flag_spelling_matches_mlir() {
        assert_eq!(OverflowFlags::empty().keyword_list(), "none");
        assert_eq!(OverflowFlags::all().keyword_list(), "nsw, nuw");
        assert_eq!(FastMathFlags::FAST.keyword_list(), "fast");
        assert_eq!(
            (FastMathFlags::NINF | FastMathFlags::REASSOC).keyword_list(),
            "reassoc,ninf"
        );
    }

    #[test]
    fn predicates_round_trip() {
        for n in 0..10 {
            let p = CmpIPredicate::from_i64(n).expect("valid");
            assert_eq!(CmpIPredicate::from_keyword(p.keyword()), Some(p));
            assert_eq!(p as i64, n);
        }
        for n in 0..16 {
            let p = CmpFPredicate::from_i64(n).expect("valid");
            assert_eq!(CmpFPredicate::from_keyword(p.keyword()), Some(p));
        }
        assert_eq!(CmpIPredicate::from_i64(10), None);
        assert_eq!(CmpFPredicate::from_i64(-1), None);
        for (n, m) in RoundingMode::ALL.into_iter().enumerate() {
            assert_eq!(m as usize, n);
            assert_eq!(RoundingMode::from_keyword(m.keyword()), Some(m));
        }
        assert_eq!(RoundingMode::from_i64(5), None);
    }
}
