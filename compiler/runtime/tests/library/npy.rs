//! `.npy` files and the runtime's tensors: byte-exact round trips for every dtype (`bf16` and
//! `index` through numpy's `<f4` and `<i8`), and errors that name the file. The codec itself
//! (headers, Fortran order, malformed files) is tested in compiler/tensor.

use dlc_runtime::{read_npy, write_npy, RuntimeError, Tensor};
use dlc_tensor::DType;

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

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("dlc-runtime-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn round_trip_every_dtype() {
    let dir = temp_dir("npy");
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
            let path = dir.join(format!("{dtype}.npy"));
            write_npy(&path, &t).unwrap();
            let back = read_npy(&path).unwrap();
            assert_eq!(back, t, "{dtype} {shape:?}");
        }
    }
    // numpy has no `index`: it is stored as `<i8`, with the same bytes.
    let t = tensor(DType::Index, &[3]);
    let path = dir.join("index.npy");
    write_npy(&path, &t).unwrap();
    let back = read_npy(&path).unwrap();
    assert_eq!(back.dtype(), DType::I64);
    assert_eq!(back.bytes(), t.bytes());
    // Nor `bf16`: it is widened to `<f4`, exactly.
    let t = Tensor::from_bytes(DType::BF16, &[2], &[0x80, 0x3f, 0x49, 0xc0]).unwrap();
    let path = dir.join("bf16.npy");
    write_npy(&path, &t).unwrap();
    let back = read_npy(&path).unwrap();
    assert_eq!(back.dtype(), DType::F32);
    assert_eq!(back.to_f64_vec().unwrap(), [1.0, -3.140625]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn errors_name_the_file() {
    let dir = temp_dir("npy-err");
    let path = dir.join("f.npy");
    let write = |header: &str, data: &[u8]| {
        let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
        bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
        bytes.extend_from_slice(header.as_bytes());
        bytes.extend_from_slice(data);
        std::fs::write(&path, bytes).unwrap();
    };

    write(
        "{'descr': '>f4', 'fortran_order': False, 'shape': (2, 2), }\n",
        &[0; 16],
    );
    let e = read_npy(&path).unwrap_err();
    assert!(matches!(&e, RuntimeError::Npy { path: p, .. } if *p == path));
    assert!(e.to_string().contains("unsupported dtype '>f4'"), "{e}");
    assert!(e.to_string().starts_with(&path.display().to_string()));

    // The runtime's tensors hold `i1` as the bytes 0 and 1, which compiled code relies on.
    write(
        "{'descr': '|b1', 'fortran_order': False, 'shape': (1,), }\n",
        &[7],
    );
    let e = read_npy(&path).unwrap_err();
    assert!(matches!(&e, RuntimeError::Npy { path: p, .. } if *p == path));
    assert!(e.to_string().contains("0 or 1"), "{e}");

    let e = read_npy(&dir.join("missing.npy")).unwrap_err();
    assert!(e.to_string().contains("missing.npy"));
    let e = write_npy(&dir.join("no/such/dir.npy"), &tensor(DType::F32, &[1])).unwrap_err();
    assert!(e.to_string().contains("dir.npy"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}
