//! Tensors: alignment, exact conversion to and from literals (the interpreters' values) for
//! every dtype, and the f16/bf16 bit conversions (round to nearest even).

use dlc_runtime::tensor::{bf16_bits_to_f32, f16_bits_to_f32, f32_to_bf16_bits, f32_to_f16_bits};
use dlc_runtime::Tensor;
use dlc_tensor::{DType, Literal};

#[test]
fn literal_round_trip() {
    let floats = [0.0, -1.5, 3.25, 1e-3, f64::INFINITY, 65504.0];
    for dtype in [DType::F16, DType::BF16, DType::F32, DType::F64] {
        let h = Literal::from_f64(dtype, &[2, 3], &floats);
        let t = Tensor::from_literal(&h).unwrap();
        assert_eq!(t.as_ptr() as usize % 64, 0);
        assert_eq!(t.to_literal(), h, "{dtype}");
        assert_eq!(t.view().to_literal(), Ok(h), "{dtype}");
    }
    let ints = [0, -1, 127, -128, 1 << 40, i64::MIN];
    for dtype in [DType::I8, DType::I32, DType::I64, DType::Index] {
        let h = Literal::from_i64(dtype, &[6], &ints);
        let t = Tensor::from_literal(&h).unwrap();
        assert_eq!(t.to_literal(), h, "{dtype}");
    }
    let h = Literal::from_bools(&[3], &[true, false, true]);
    let t = Tensor::from_literal(&h).unwrap();
    assert_eq!(t.bytes(), &[1, 0, 1]);
    assert_eq!(t.to_literal(), h);
    // A view whose bytes do not fill its shape is an error, not a panic.
    let view = dlc_runtime::TensorView {
        dtype: DType::F32,
        shape: &[2],
        bytes: &[0; 4],
    };
    assert!(view.to_literal().is_err());
}

#[test]
fn from_bytes_checks_length_and_bools() {
    assert!(Tensor::from_bytes(DType::F32, &[2], &[0; 7]).is_err());
    assert!(Tensor::from_bytes(DType::I1, &[2], &[0, 2]).is_err());
    assert!(Tensor::zeros(DType::F64, &[usize::MAX, 2]).is_err());
    let t = Tensor::zeros(DType::F32, &[0]).unwrap();
    assert_eq!(t.bytes().len(), 0);
}

#[test]
fn half_conversions_round_to_nearest_even() {
    assert_eq!(f32_to_f16_bits(1.0), 0x3c00);
    assert_eq!(f32_to_f16_bits(-2.0), 0xc000);
    assert_eq!(f32_to_f16_bits(65504.0), 0x7bff);
    assert_eq!(f32_to_f16_bits(65520.0), 0x7c00, "rounds up to infinity");
    // 1 + 2^-11 is halfway between 1 and the next f16: ties to even (1.0).
    assert_eq!(f32_to_f16_bits(1.0 + 2f32.powi(-11)), 0x3c00);
    // 1 + 3 * 2^-11 is halfway between odd and even neighbours: up to even.
    assert_eq!(f32_to_f16_bits(1.0 + 3.0 * 2f32.powi(-11)), 0x3c02);
    assert_eq!(
        f32_to_f16_bits(2f32.powi(-24)),
        0x0001,
        "smallest subnormal"
    );
    assert!(f16_bits_to_f32(f32_to_f16_bits(f32::NAN)).is_nan());
    assert_eq!(f16_bits_to_f32(0x3555), 0.333_251_95);

    assert_eq!(f32_to_bf16_bits(1.0), 0x3f80);
    // Halfway cases of bf16 (16 dropped bits): ties to even.
    assert_eq!(f32_to_bf16_bits(f32::from_bits(0x3f80_8000)), 0x3f80);
    assert_eq!(f32_to_bf16_bits(f32::from_bits(0x3f81_8000)), 0x3f82);
    assert_eq!(bf16_bits_to_f32(0x4049), 3.140625);
    assert!(bf16_bits_to_f32(f32_to_bf16_bits(f32::NAN)).is_nan());
}

#[test]
fn large_tensors_are_zero_aligned_and_writable() {
    // Sizes around the mapped (2 MiB) and huge-page (16 MiB) thresholds, and odd ones: each
    // is zero, 64-byte aligned, and holds what is written at both ends.
    for bytes in [
        (1 << 21) - 64,
        1 << 21,
        (1 << 21) + 4,
        3 << 20,
        (1 << 24) + 12,
        40 << 20,
    ] {
        let mut t = Tensor::zeros(DType::U8, &[bytes]).expect("allocates");
        assert_eq!(t.bytes().len(), bytes);
        assert_eq!(t.bytes().as_ptr() as usize % 64, 0, "{bytes} bytes");
        assert!(
            t.bytes().iter().step_by(4093).all(|&b| b == 0),
            "{bytes} bytes"
        );
        assert_eq!(t.bytes()[bytes - 1], 0);
        let data = t.bytes_mut();
        data[0] = 7;
        data[bytes - 1] = 9;
        assert_eq!((t.bytes()[0], t.bytes()[bytes - 1]), (7, 9));
    }
}
