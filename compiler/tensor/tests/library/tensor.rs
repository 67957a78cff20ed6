//! Tensors: numpy broadcasting, the rounding and wrapping every stored element goes through
//! (constructors, `set`, `cast`), and the tolerance helpers tests compare with.

use dlc_ir::FloatKind;
use dlc_tensor::{broadcast_shapes, broadcast_source, ulp_distance, DType, Literal, Scalar};

#[test]
fn broadcast_shapes_follow_numpy() {
    // (input shapes, their broadcast or None)
    type Case<'a> = (&'a [&'a [usize]], Option<&'a [usize]>);
    let cases: &[Case] = &[
        (&[&[2, 3], &[2, 3]], Some(&[2, 3])),
        (&[&[4, 1], &[1, 3]], Some(&[4, 3])),
        (&[&[2, 3], &[3]], Some(&[2, 3])),
        (&[&[5, 1, 4], &[3, 1]], Some(&[5, 3, 4])),
        (&[&[], &[2]], Some(&[2])),
        (&[&[0], &[1]], Some(&[0])),
        (&[&[2, 1], &[1, 3], &[4, 1, 1]], Some(&[4, 2, 3])),
        (&[&[2, 3], &[4]], None),
        (&[&[3], &[4]], None),
    ];
    for (shapes, want) in cases {
        assert_eq!(broadcast_shapes(shapes).as_deref(), *want, "{shapes:?}");
    }
    // Element [1, 2] of a [2, 3] broadcast reads element [0, 2] of a [1, 3] and [1, 0] of [2, 1].
    assert_eq!(broadcast_source(&[1, 2], &[1, 3]), 2);
    assert_eq!(broadcast_source(&[1, 2], &[2, 1]), 1);
    assert_eq!(broadcast_source(&[1, 2], &[]), 0);
}

#[test]
fn broadcast_map_combines_elements() {
    let col = Literal::from_i64(DType::I32, &[3, 1], &[0, 10, 20]);
    let row = Literal::from_i64(DType::I32, &[2], &[1, 2]);
    let sum = Literal::broadcast_map(&[&col, &row], DType::I32, |a| {
        Ok(Scalar::Int(a[0].as_i64() + a[1].as_i64()))
    })
    .expect("broadcasts");
    assert_eq!(
        sum,
        Literal::from_i64(DType::I32, &[3, 2], &[1, 2, 11, 12, 21, 22])
    );
    let bad = Literal::broadcast_map(
        &[&row, &Literal::from_i64(DType::I32, &[3], &[0; 3])],
        DType::I32,
        |a| Ok(a[0]),
    );
    assert!(bad.unwrap_err().contains("do not broadcast"));
}

#[test]
fn stored_values_are_rounded_and_wrapped() {
    let h = Literal::from_f64(DType::F16, &[2], &[0.1, 70000.0]);
    assert_eq!(
        h.to_f64_vec(),
        vec![FloatKind::F16.round(0.1), f64::INFINITY]
    );
    let b = Literal::from_f64(DType::BF16, &[1], &[1.0 + 1.0 / 512.0]);
    assert_eq!(b.to_f64_vec(), vec![1.0]);
    let i = Literal::from_i64(DType::I8, &[2], &[200, -129]);
    assert_eq!(i.to_i64_vec(), vec![-56, 127]);
    assert_eq!(Scalar::Float(-2.9).cast(DType::I32), Scalar::Int(-2));
    assert_eq!(Scalar::Float(1e10).cast(DType::I8), Scalar::Int(127));
    assert_eq!(Scalar::Float(f64::NAN).cast(DType::I1), Scalar::Bool(true));
    assert_eq!(
        Scalar::Int(16_777_217).cast(DType::F32),
        Scalar::Float(16_777_216.0)
    );
}

#[test]
fn set_converts_to_the_dtype() {
    let mut t = Literal::zeros(DType::I8, &[3]);
    assert_eq!(t, Literal::from_i64(DType::I8, &[3], &[0, 0, 0]));
    t.set(0, Scalar::Int(300));
    t.set(1, Scalar::Float(-2.9));
    t.set(2, Scalar::Bool(true));
    assert_eq!(t.to_i64_vec(), [44, -2, 1]);
    let mut h = Literal::zeros(DType::F16, &[1]);
    h.set(0, Scalar::Float(0.1));
    assert_eq!(h.to_f64_vec(), [FloatKind::F16.round(0.1)]);
    let mut b = Literal::zeros(DType::I1, &[2]);
    assert_eq!(b.to_bool_vec(), [false, false]);
    b.set(1, Scalar::Int(-1));
    assert_eq!(b.to_bool_vec(), [false, true]);
    let mut i = Literal::zeros(DType::Index, &[1]);
    i.set(0, Scalar::Int(i64::MIN));
    assert_eq!(i.to_i64_vec(), [i64::MIN]);
}

#[test]
fn ulp_tolerance_helpers() {
    let one = 1.0;
    let next_f32 = f32::from_bits(1.0f32.to_bits() + 1) as f64;
    assert_eq!(ulp_distance(FloatKind::F32, one, next_f32), 1);
    assert_eq!(ulp_distance(FloatKind::F32, -0.0, 0.0), 0);
    let tiny = f32::from_bits(1) as f64;
    assert_eq!(ulp_distance(FloatKind::F32, -tiny, tiny), 2);
    assert_eq!(ulp_distance(FloatKind::F16, 1.0, 1.0 + 2.0 / 1024.0), 2);
    assert_eq!(ulp_distance(FloatKind::F64, f64::NAN, f64::NAN), 0);
    assert_eq!(ulp_distance(FloatKind::F64, f64::NAN, 1.0), u64::MAX);
    let a = Literal::from_f64(DType::F32, &[2], &[1.0, 1e-9]);
    let b = Literal::from_f64(DType::F32, &[2], &[next_f32, 0.0]);
    assert!(a.check_close(&b, 1, 1e-8).is_ok());
    assert!(a.check_close(&b, 0, 1e-8).is_err());
    assert!(a.check_close(&b, 1, 0.0).is_err());
    let ints = Literal::from_i64(DType::I32, &[2], &[1, 2]);
    assert!(ints.check_close(&ints.cast(DType::I64), 0, 0.0).is_err());
}
