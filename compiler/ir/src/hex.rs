//! Hex text of byte payloads (`dense<"0x...">`, `dialect_resources` blobs): the one encoder
//! the printer uses and the one decoder the parser uses. Weights travel through these, so both
//! work a byte at a time through tables rather than through `fmt` and `from_str_radix`.

const DIGITS: &[u8; 16] = b"0123456789ABCDEF";

/// Appends `bytes` as upper-case hex digits, two per byte.
pub(crate) fn push_hex(out: &mut String, bytes: &[u8]) {
    out.reserve(2 * bytes.len());
    for &b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 15)]));
    }
}

/// The bytes that the hex digits `digits` (either case, two per byte) spell; `None` for an
/// odd count or a character that is not a hex digit.
pub(crate) fn decode_hex(digits: &str) -> Option<Vec<u8>> {
    let digits = digits.as_bytes();
    if !digits.len().is_multiple_of(2) {
        return None;
    }
    let mut bytes = Vec::with_capacity(digits.len() / 2);
    for pair in digits.chunks_exact(2) {
        bytes.push(nibble(pair[0])? << 4 | nibble(pair[1])?);
    }
    Some(bytes)
}

/// Each character's value as a hex digit, or `INVALID`.
const VALUES: [u8; 256] = {
    let mut table = [INVALID; 256];
    let mut i = 0;
    while i < 10 {
        table[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        table[b'a' as usize + i] = 10 + i as u8;
        table[b'A' as usize + i] = 10 + i as u8;
        i += 1;
    }
    table
};
const INVALID: u8 = 0xFF;

fn nibble(c: u8) -> Option<u8> {
    let v = VALUES[usize::from(c)];
    (v != INVALID).then_some(v)
}
