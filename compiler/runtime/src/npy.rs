//! `.npy` files in and out of the runtime's [`Tensor`]s, through `dlc_tensor`'s codec
//! ([`dlc_tensor::npy`]): the decoded little-endian bytes are the tensor's bytes, so no element
//! is converted on the way. `bf16` tensors are written as `<f4` and `index` ones as `<i8`
//! (numpy has neither), and read back as `f32` and `i64`. Errors name the file.

use crate::error::RuntimeError;
use crate::tensor::Tensor;
use dlc_tensor::npy::{decode, encode};
use std::path::Path;

/// Reads a `.npy` file.
pub fn read_npy(path: &Path) -> Result<Tensor, RuntimeError> {
    let err = |message: String| RuntimeError::Npy {
        path: path.to_path_buf(),
        message,
    };
    let bytes = std::fs::read(path).map_err(|e| err(e.to_string()))?;
    let array = decode(&bytes).map_err(err)?;
    Tensor::from_bytes(array.dtype, &array.shape, &array.data).map_err(|e| err(e.to_string()))
}

/// Writes `tensor` as a `.npy` file.
pub fn write_npy(path: &Path, tensor: &Tensor) -> Result<(), RuntimeError> {
    let bytes = encode(tensor.dtype(), tensor.shape(), tensor.bytes());
    std::fs::write(path, bytes).map_err(|e| RuntimeError::Npy {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}
