//! `.npy` round trips for every dtype, NumPy-written headers, Fortran-order arrays (copied to C
//! order), and the errors (big-endian or unsupported dtypes, truncated data), which must name the
//! file.

use dlc_runtime::npy::{decode_npy, encode_npy};
use dlc_runtime::{read_npy, write_npy, DType, RuntimeError, Tensor};

fn tensor(dtype: DType, shape: &[usize]) -> Tensor {
    let mut t = Tensor::zeros(dtype, shape).unwrap();
    let bytes = t.bytes_mut();
    for (i, b) in bytes.iter_mut().enumerate() {
        *b = if dtype == DType::I1 {
            (i % 2) as u8
        } else {
            (i * 37 % 251) as u8
        };
    }
    t
}

#[test]
fn round_trip_every_dtype() {
    let dir = std::env::temp_dir().join(format!("dlc-runtime-npy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let dtypes = [
        DType::F16,
        DType::F32,
        DType::F64,
        DType::I1,
        DType::I8,
        DType::I32,
        DType::I64,
    ];
    for dtype in dtypes {
        for shape in [&[][..], &[5][..], &[2, 3][..], &[0, 4][..]] {
            let t = tensor(dtype, shape);
            let path = dir.join(format!("{dtype:?}.npy"));
            write_npy(&path, &t).unwrap();
            let back = read_npy(&path).unwrap();
            assert_eq!(back, t, "{dtype:?} {shape:?}");
        }
    }
    // `index` is stored as i64.
    let t = tensor(DType::Index, &[3]);
    let back = decode_npy(&encode_npy(&t).unwrap()).unwrap();
    assert_eq!(back.dtype(), DType::I64);
    assert_eq!(back.bytes(), t.bytes());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn header_is_aligned_and_numpy_like() {
    let t = tensor(DType::F32, &[2, 3]);
    let bytes = encode_npy(&t).unwrap();
    let header_len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    assert_eq!((10 + header_len) % 64, 0);
    let header = std::str::from_utf8(&bytes[10..10 + header_len]).unwrap();
    assert!(header.starts_with("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"));
    assert!(header.ends_with('\n'));
}

fn npy(header: &str, data: &[u8]) -> Vec<u8> {
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(data);
    out
}

#[test]
fn reads_numpy_variants() {
    // Version 2, a 1-tuple shape, double quotes and keys in another order.
    let header = "{\"shape\": (3,), \"fortran_order\": False, \"descr\": \"|i1\"}\n";
    let mut bytes = b"\x93NUMPY\x02\x00".to_vec();
    bytes.extend_from_slice(&(header.len() as u32).to_le_bytes());
    bytes.extend_from_slice(header.as_bytes());
    bytes.extend_from_slice(&[1, 2, 255]);
    let t = decode_npy(&bytes).unwrap();
    assert_eq!(t.dtype(), DType::I8);
    assert_eq!(t.shape(), &[3]);
    assert_eq!(t.bytes(), &[1, 2, 255]);
}

/// What `np.save` writes for `np.arange(6, dtype=np.int8).reshape(2, 3).T`: a (3, 2) array in
/// Fortran order, whose bytes are those of the (2, 3) C-order array it views.
#[test]
fn fortran_order_is_copied_to_c_order() {
    let header = "{'descr': '|i1', 'fortran_order': True, 'shape': (3, 2), }\n";
    let t = decode_npy(&npy(header, &[0, 1, 2, 3, 4, 5])).unwrap();
    assert_eq!(t.shape(), &[3, 2]);
    // t[i][j] = j * 3 + i.
    assert_eq!(t.bytes(), &[0, 3, 1, 4, 2, 5]);

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
    let t = decode_npy(&npy(header, &data)).unwrap();
    let values: Vec<i32> = t
        .bytes()
        .chunks(4)
        .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    let want: Vec<i32> = (0..d0)
        .flat_map(|i| {
            (0..d1).flat_map(move |j| (0..d2).map(move |k| (100 * i + 10 * j + k) as i32))
        })
        .collect();
    assert_eq!(values, want);

    // Zero-size and scalar arrays.
    let header = "{'descr': '<f4', 'fortran_order': True, 'shape': (0, 3), }\n";
    assert_eq!(decode_npy(&npy(header, &[])).unwrap().shape(), &[0, 3]);
    let header = "{'descr': '<f4', 'fortran_order': True, 'shape': (), }\n";
    let t = decode_npy(&npy(header, &1.5f32.to_le_bytes())).unwrap();
    assert_eq!(t.bytes(), &1.5f32.to_le_bytes());
}

#[test]
fn errors_name_the_file() {
    let dir = std::env::temp_dir().join(format!("dlc-runtime-npy-err-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("f.npy");
    let header = "{'descr': '>f4', 'fortran_order': False, 'shape': (2, 2), }\n";
    std::fs::write(&path, npy(header, &[0; 16])).unwrap();
    let e = read_npy(&path).unwrap_err();
    assert!(matches!(&e, RuntimeError::Npy { path: p, .. } if *p == path));
    assert!(e.to_string().contains("unsupported dtype '>f4'"), "{e}");
    assert!(e.to_string().starts_with(&path.display().to_string()));

    let e = read_npy(&dir.join("missing.npy")).unwrap_err();
    assert!(e.to_string().contains("missing.npy"));

    let bf16 = Tensor::zeros(DType::BF16, &[2]).unwrap();
    let e = write_npy(&path, &bf16).unwrap_err();
    assert!(e.to_string().contains("bf16"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();

    let cases = [
        (
            "{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }",
            &[0u8; 4][..],
            "unsupported dtype '>f4'",
        ),
        (
            "{'descr': '<u2', 'fortran_order': False, 'shape': (1,), }",
            &[0u8; 2][..],
            "unsupported dtype '<u2'",
        ),
        (
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
            &[0u8; 4][..],
            "takes 8 data bytes",
        ),
        (
            "{'descr': '<f4', 'shape': (2,), }",
            &[0u8; 8][..],
            "malformed",
        ),
        (
            "{'descr': '|b1', 'fortran_order': False, 'shape': (1,), }",
            &[7u8][..],
            "0 or 1",
        ),
    ];
    for (header, data, msg) in cases {
        let e = decode_npy(&npy(header, data)).unwrap_err();
        assert!(e.contains(msg), "{header}: {e}");
    }
    assert!(decode_npy(b"garbage").unwrap_err().contains("magic"));
    assert!(decode_npy(b"\x93NUMPY\x01\x00\xff\x00{")
        .unwrap_err()
        .contains("truncated"));
}
