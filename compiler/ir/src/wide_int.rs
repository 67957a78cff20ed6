//! Integers wider than 128 bits, in the form attributes keep them.
//!
//! Integer attributes and dense elements hold their value in an `i128` whenever it fits. Only a
//! type wider than 128 bits (`i256`, `ui200`) can hold a value that does not, and such a value is
//! kept as the type's bit pattern: `ceil(width / 8)` little-endian bytes whose bits above the
//! width copy the sign bit (are zero for an unsigned type), the layout of a dense element. This
//! module is the arithmetic that form needs and no more: a literal's magnitude, the bit pattern
//! of a literal, and the decimal text of a pattern. Constants of these types are parsed,
//! verified, printed and compared, never evaluated (dlc-arith's folds leave them alone).

/// The magnitude of an integer literal of any size: little-endian 32-bit limbs, no zero limb
/// on top.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Magnitude(Vec<u32>);

impl Magnitude {
    /// Reads digits of `radix` (10 or 16), all of them; `None` if one is not a digit.
    pub fn parse(digits: &str, radix: u32) -> Option<Magnitude> {
        let mut m = Magnitude::default();
        for c in digits.chars() {
            m.mul_add(radix, c.to_digit(radix)?);
        }
        Some(m)
    }

    /// The magnitude `v`.
    pub fn from_u128(v: u128) -> Magnitude {
        let mut m = Magnitude((0..4).map(|i| (v >> (32 * i)) as u32).collect());
        m.trim();
        m
    }

    /// The value, if it fits 128 bits.
    pub fn to_u128(&self) -> Option<u128> {
        (self.0.len() <= 4).then(|| {
            self.0
                .iter()
                .rev()
                .fold(0u128, |acc, limb| acc << 32 | *limb as u128)
        })
    }

    /// The number of bits up to the highest set one (0 for zero).
    pub fn bit_length(&self) -> u64 {
        self.0.last().map_or(0, |top| {
            32 * (self.0.len() as u64 - 1) + (32 - top.leading_zeros()) as u64
        })
    }

    /// Whether the magnitude is a power of two (zero is not).
    pub fn is_power_of_two(&self) -> bool {
        self.0.last().is_some_and(|top| top.is_power_of_two())
            && self.0[..self.0.len() - 1].iter().all(|l| *l == 0)
    }

    /// `self * m + a`.
    fn mul_add(&mut self, m: u32, a: u32) {
        let mut carry = a as u64;
        for limb in &mut self.0 {
            let v = *limb as u64 * m as u64 + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
        if carry != 0 {
            self.0.push(carry as u32);
        }
    }

    /// Divides by `d` in place and returns the remainder.
    fn div_rem(&mut self, d: u32) -> u32 {
        let mut rem = 0u64;
        for limb in self.0.iter_mut().rev() {
            let v = rem << 32 | *limb as u64;
            *limb = (v / d as u64) as u32;
            rem = v % d as u64;
        }
        self.trim();
        rem as u32
    }

    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    fn from_le_bytes(bytes: &[u8]) -> Magnitude {
        let mut m = Magnitude(
            bytes
                .chunks(4)
                .map(|c| c.iter().rev().fold(0u32, |acc, b| acc << 8 | *b as u32))
                .collect(),
        );
        m.trim();
        m
    }

    /// The decimal digits.
    pub fn to_decimal(&self) -> String {
        const CHUNK: u32 = 1_000_000_000;
        let mut rest = self.clone();
        let mut chunks = Vec::new();
        while !rest.0.is_empty() {
            chunks.push(rest.div_rem(CHUNK));
        }
        let mut text = chunks.pop().unwrap_or(0).to_string();
        for c in chunks.iter().rev() {
            text.push_str(&format!("{c:09}"));
        }
        text
    }
}

/// The number of bytes a `width`-bit pattern takes.
pub fn byte_len(width: u32) -> usize {
    (width as usize).div_ceil(8)
}

/// The `width`-bit pattern of the literal `-magnitude` (`negative`) or `magnitude`, whose range
/// the caller has checked; bits above the width copy the sign bit unless `unsigned`.
pub fn literal_bits(
    negative: bool,
    magnitude: &Magnitude,
    width: u32,
    unsigned: bool,
) -> Box<[u8]> {
    let n = byte_len(width);
    let mut bytes: Vec<u8> = magnitude
        .0
        .iter()
        .flat_map(|l| l.to_le_bytes())
        .chain(std::iter::repeat(0))
        .take(n)
        .collect();
    if negative {
        negate(&mut bytes);
    }
    canonicalize(&mut bytes, width, unsigned);
    bytes.into()
}

/// The `width`-bit pattern of the two's-complement little-endian `bytes` of a value: truncated
/// to the width, or sign-extended to it when shorter.
pub fn resize(bytes: &[u8], width: u32, unsigned: bool) -> Box<[u8]> {
    let fill = match bytes.last() {
        Some(top) if top & 0x80 != 0 => 0xff,
        _ => 0,
    };
    let mut out: Vec<u8> = (0..byte_len(width))
        .map(|i| bytes.get(i).copied().unwrap_or(fill))
        .collect();
    canonicalize(&mut out, width, unsigned);
    out.into()
}

/// The value of a pattern if it fits an `i128`: read signed unless `unsigned`.
pub fn to_i128(bytes: &[u8], unsigned: bool) -> Option<i128> {
    let negative = !unsigned && bytes.last().is_some_and(|b| b & 0x80 != 0);
    let fill = if negative { 0xff } else { 0 };
    let mut low = [fill; 16];
    let held = bytes.len().min(16);
    low[..held].copy_from_slice(&bytes[..held]);
    let v = i128::from_le_bytes(low);
    (bytes[held..].iter().all(|b| *b == fill) && (v < 0) == negative).then_some(v)
}

/// The decimal text of a pattern, signed unless `unsigned` (`-1` for an `i256` of all ones).
pub fn to_decimal(bytes: &[u8], unsigned: bool) -> String {
    let negative = !unsigned && bytes.last().is_some_and(|b| b & 0x80 != 0);
    if !negative {
        return Magnitude::from_le_bytes(bytes).to_decimal();
    }
    let mut magnitude = bytes.to_vec();
    negate(&mut magnitude);
    format!("-{}", Magnitude::from_le_bytes(&magnitude).to_decimal())
}

/// Two's-complement negation over the bytes.
fn negate(bytes: &mut [u8]) {
    let mut carry = true;
    for b in bytes {
        let (v, c) = (!*b).overflowing_add(carry as u8);
        *b = v;
        carry = c;
    }
}

/// Sets the bits above `width` in the top byte to the sign bit, or clears them if `unsigned`.
fn canonicalize(bytes: &mut [u8], width: u32, unsigned: bool) {
    let used = width % 8;
    let Some(top) = bytes.last_mut() else {
        return;
    };
    if used == 0 {
        return;
    }
    let mask = (1u8 << used) - 1;
    let negative = !unsigned && *top >> (used - 1) & 1 == 1;
    *top = if negative { *top | !mask } else { *top & mask };
}
