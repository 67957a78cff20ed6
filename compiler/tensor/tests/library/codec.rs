//! The byte form and the `.npy` codec: exact round trips for every dtype (bf16 through `<f4`,
//! index through `<i8`), numpy's header variants and Fortran order, and errors for what the
//! codec does not read.

use dlc_tensor::npy::{decode, encode};
use dlc_tensor::{DType, Elements, Literal, Scalar};

/// A tensor of `dtype` whose elements differ, including values that round in narrow formats.
fn sample(dtype: DType, shape: &[usize]) -> Literal {
    let n: usize = shape.iter().product();
    let values = (0..n)
        .map(|i| match dtype {
            DType::I1 => Scalar::Bool(i % 3 == 1),
            d if d.is_float() => Scalar::Float((i as f64 - 2.5) * 1.1e-1),
            _ => Scalar::Int(i as i64 * 977 - 300),
        })
        .collect();
    Literal::from_scalars(dtype, shape.to_vec(), values)
}

#[test]
fn le_bytes_round_trip_every_dtype() {
    for dtype in DType::ALL.into_iter().chain([DType::Index]) {
        let t = sample(dtype, &[2, 3]);
        let bytes = t.to_le_bytes();
        assert_eq!(bytes.len(), 6 * dtype.size_bytes(), "{dtype}");
        assert_eq!(
            Literal::from_le_bytes(dtype, &[2, 3], &bytes),
            Ok(t),
            "{dtype}"
        );
    }
    let err = Literal::from_le_bytes(DType::F32, &[2], &[0; 7]).unwrap_err();
    assert!(err.contains("7 bytes"), "{err}");
}

#[test]
fn npy_round_trip_every_dtype() {
    for dtype in DType::ALL.into_iter().chain([DType::Index]) {
        for shape in [&[][..], &[5][..], &[2, 3][..], &[0, 4][..]] {
            let t = sample(dtype, shape);
            let back = Literal::from_npy_bytes(&t.to_npy_bytes()).unwrap();
            // numpy has no bf16 or index: they come back as f32 and i64, with the same values.
            let stored = match dtype {
                DType::BF16 => DType::F32,
                DType::Index => DType::I64,
                d => d,
            };
            assert_eq!(back.dtype(), stored, "{dtype} {shape:?}");
            assert_eq!(back.cast(dtype), t, "{dtype} {shape:?}");
        }
    }
}

#[test]
fn read_as_restores_bf16_and_index() {
    let dir = std::env::temp_dir().join(format!("dlc-tensor-npy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for dtype in [DType::BF16, DType::Index] {
        let t = sample(dtype, &[4]);
        let path = dir.join(format!("{dtype}.npy"));
        t.write_npy(&path).unwrap();
        assert_eq!(Literal::read_npy_as(&path, dtype).unwrap(), t);
    }
    let err = Literal::read_npy_as(dir.join("bf16.npy"), DType::I32).unwrap_err();
    assert!(
        err.to_string().contains("file holds f32, expected i32"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn header_is_aligned_and_numpy_like() {
    let bytes = sample(DType::F32, &[2, 3]).to_npy_bytes();
    let header_len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    assert_eq!((10 + header_len) % 64, 0);
    let header = std::str::from_utf8(&bytes[10..10 + header_len]).unwrap();
    assert!(header.starts_with("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"));
    assert!(header.ends_with('\n'));
}

fn npy(version: u8, header: &str, data: &[u8]) -> Vec<u8> {
    let mut out = b"\x93NUMPY".to_vec();
    out.extend_from_slice(&[version, 0]);
    if version == 1 {
        out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    } else {
        out.extend_from_slice(&(header.len() as u32).to_le_bytes());
    }
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(data);
    out
}

#[test]
fn reads_numpy_variants() {
    // Version 2, a 1-tuple shape, double quotes and keys in another order.
    let header = "{\"shape\": (3,), \"fortran_order\": False, \"descr\": \"|i1\"}\n";
    let t = Literal::from_npy_bytes(&npy(2, header, &[1, 2, 255])).unwrap();
    assert_eq!(t, Literal::from_i64(DType::I8, &[3], &[1, 2, -1]));
}

/// What `np.save` writes for `np.arange(6, dtype=np.int8).reshape(2, 3).T`: a (3, 2) array in
/// Fortran order, whose bytes are those of the (2, 3) C-order array it views.
#[test]
fn fortran_order_is_reordered_to_c_order() {
    let header = "{'descr': '|i1', 'fortran_order': True, 'shape': (3, 2), }\n";
    let bytes = npy(1, header, &[0, 1, 2, 3, 4, 5]);
    let array = decode(&bytes).unwrap();
    assert_eq!(array.shape, [3, 2]);
    assert_eq!(&array.data[..], &[0, 3, 1, 4, 2, 5]);

    // Three dims and four-byte elements: element (i, j, k) of a (2, 3, 4) array is stored at
    // i + 2j + 6k in Fortran order; store that number, read it back in C order.
    let (d0, d1, d2) = (2usize, 3usize, 4usize);
    let mut data = vec![0u8; d0 * d1 * d2 * 4];
    for i in 0..d0 {
        for j in 0..d1 {
            for k in 0..d2 {
                let at = i + d0 * j + d0 * d1 * k;
                let value = (100 * i + 10 * j + k) as i32;
                data[at * 4..at * 4 + 4].copy_from_slice(&value.to_le_bytes());
            }
        }
    }
    let header = "{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3, 4), }\n";
    let t = Literal::from_npy_bytes(&npy(1, header, &data)).unwrap();
    let want: Vec<i64> = (0..d0)
        .flat_map(|i| {
            (0..d1).flat_map(move |j| (0..d2).map(move |k| (100 * i + 10 * j + k) as i64))
        })
        .collect();
    assert_eq!(t, Literal::from_i64(DType::I32, &[2, 3, 4], &want));

    // Zero-size and scalar arrays.
    let header = "{'descr': '<f4', 'fortran_order': True, 'shape': (0, 3), }\n";
    assert_eq!(decode(&npy(1, header, &[])).unwrap().shape, [0, 3]);
    let header = "{'descr': '<f4', 'fortran_order': True, 'shape': (), }\n";
    let t = Literal::from_npy_bytes(&npy(1, header, &1.5f32.to_le_bytes())).unwrap();
    assert_eq!(t, Literal::from_f64(DType::F32, &[], &[1.5]));
}

#[test]
fn errors() {
    let cases: [(Vec<u8>, &str); 7] = [
        (b"\x93NUMPZ\x01\x00\x00\x00".to_vec(), "bad magic"),
        (
            npy(
                1,
                "{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }",
                &[0; 8],
            ),
            "'>f4'",
        ),
        (
            npy(
                1,
                "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
                &[0; 7],
            ),
            "8 data bytes",
        ),
        (
            npy(
                1,
                "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }",
                &[0; 8],
            ),
            "'<c8'",
        ),
        (
            npy(
                1,
                "{'descr': '>u2', 'fortran_order': False, 'shape': (1,), }",
                &[0; 2],
            ),
            "'>u2'",
        ),
        (
            npy(1, "{'descr': '<f4', 'shape': (2,), }", &[0; 8]),
            "malformed",
        ),
        (npy(9, "{}", &[]), "version 9"),
    ];
    for (bytes, want) in cases {
        let err = decode(&bytes).unwrap_err();
        assert!(err.contains(want), "{err} (wanted {want})");
    }
    // A header length past the end of the file.
    let mut truncated = npy(1, "{'descr': '<f4'}", &[]);
    truncated[8] = 200;
    assert!(decode(&truncated).unwrap_err().contains("truncated"));
}

#[test]
fn encode_writes_bf16_as_f32() {
    let t = Literal::from_f64(DType::BF16, &[2], &[1.5, -3.0]);
    let bytes = encode(DType::BF16, &[2], &t.to_le_bytes());
    let array = decode(&bytes).unwrap();
    assert_eq!(array.dtype, DType::F32);
    assert_eq!(
        &array.data[..],
        [1.5f32.to_le_bytes(), (-3.0f32).to_le_bytes()].concat()
    );
    assert!(matches!(t.elements(), Elements::Float(_)));
}

#[test]
fn bf16_read_rounds_f32_data() {
    let f32_data = Literal::from_f64(DType::F32, &[2], &[1.0 + 1.0 / 256.0 + 1e-6, 3.0]);
    let path = std::env::temp_dir().join(format!("dlc-tensor-bf16-{}.npy", std::process::id()));
    f32_data.write_npy(&path).expect("write");
    let t = Literal::read_npy_as(&path, DType::BF16).expect("read");
    assert_eq!(t.dtype(), DType::BF16);
    assert_eq!(t.to_f64_vec(), vec![1.0078125, 3.0]);
    assert!(Literal::read_npy_as(&path, DType::F16).is_err());
    std::fs::remove_file(&path).ok();
}

#[test]
fn malformed_npy_is_an_error() {
    let good = sample(DType::F32, &[2, 3]).to_npy_bytes();
    let mut bad_descr = good.clone();
    let at = bad_descr
        .windows(3)
        .position(|w| w == b"<f4")
        .expect("descr");
    bad_descr[at..at + 3].copy_from_slice(b">f4");
    let mut huge = sample(DType::I8, &[5]).to_npy_bytes();
    let at = huge.windows(4).position(|w| w == b"(5,)").expect("shape");
    huge[at..at + 4].copy_from_slice(b"(9,)");
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty", vec![]),
        ("bad magic", b"NOTNUMPY\x01\x00\x00\x00".to_vec()),
        ("truncated header", good[..20].to_vec()),
        ("truncated data", good[..good.len() - 1].to_vec()),
        ("big-endian", bad_descr),
        ("shape larger than data", huge),
    ];
    for (what, bytes) in cases {
        assert!(Literal::from_npy_bytes(&bytes).is_err(), "{what}");
    }
}
