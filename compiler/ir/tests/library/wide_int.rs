//! Wide integers (`dlc_ir::wide_int`): literal magnitudes, their bit patterns in types wider
//! than 128 bits, and the decimal text and `i128` value of a pattern.

use dlc_ir::wide_int::{literal_bits, resize, to_decimal, to_i128, Magnitude};

#[test]
fn decimal_round_trips_through_bits() {
    let max_i256 = "57896044618658097711785492504343953926634992332820282019728792003956564819967";
    let m = Magnitude::parse(max_i256, 10).unwrap();
    assert_eq!(m.bit_length(), 255);
    let bits = literal_bits(false, &m, 256, false);
    assert_eq!(to_decimal(&bits, false), max_i256);
    assert_eq!(to_i128(&bits, false), None);
    // 2^255 read as -2^255: one more than the largest i256, written in hex.
    let min = Magnitude::parse(&format!("8{}", "0".repeat(63)), 16).unwrap();
    assert_eq!(
        Magnitude::parse(&format!("{}8", &max_i256[..76]), 10),
        Some(min.clone())
    );
    assert!(min.is_power_of_two());
    let bits = literal_bits(true, &min, 256, false);
    assert_eq!(
        to_decimal(&bits, false),
        format!("-{}", &max_i256[..76]) + "8"
    );
    assert_eq!(to_decimal(&bits, true), format!("{}8", &max_i256[..76]));
}

#[test]
fn small_values_read_back_as_i128() {
    for v in [0i128, 1, -1, i128::MIN, i128::MAX, 1 << 100] {
        let bits = resize(&v.to_le_bytes(), 200, false);
        assert_eq!(bits.len(), 25);
        assert_eq!(to_i128(&bits, false), Some(v));
        assert_eq!(to_decimal(&bits, false), v.to_string());
    }
    // -1 in a `ui200` is 2^200 - 1.
    let bits = resize(&(-1i128).to_le_bytes(), 200, true);
    assert_eq!(to_i128(&bits, true), None);
    assert_eq!(bits[24], 0xff);
    assert_eq!(
        to_decimal(&bits, true),
        "1606938044258990275541962092341162602522202993782792835301375"
    );
}

#[test]
fn odd_widths_keep_the_sign_in_the_top_byte() {
    // 2^129 - 1 (twice u128::MAX, plus one) is positive in an `i130` and -1 in an `i129`.
    let m = Magnitude::from_u128(u128::MAX);
    let m2 = Magnitude::parse(&format!("1{}", "f".repeat(32)), 16).unwrap();
    assert_eq!(m2.bit_length(), 129);
    assert_eq!(
        to_decimal(&literal_bits(false, &m2, 129, false), false),
        "-1"
    );
    assert_eq!(
        to_decimal(&literal_bits(false, &m2, 130, false), false),
        "680564733841876926926749214863536422911"
    );
    assert_eq!(Magnitude::parse("ff", 16), Some(Magnitude::from_u128(255)));
    assert_eq!(Magnitude::parse("1x", 10), None);
    assert_eq!(Magnitude::default().bit_length(), 0);
    assert_eq!(m.to_u128(), Some(u128::MAX));
    assert_eq!(m2.to_u128(), None);
}
