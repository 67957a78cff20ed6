//! Inputs for a run: random tensors that fit a signature, or `.npy` files.
//!
//! Random inputs are reproducible from a seed: floats uniform in [-2, 2), integers in [-4, 4),
//! booleans fair coins — the ranges the differential tests use, wide enough to exercise signs
//! and small enough that `exp` and products stay finite. Every dynamic dim takes one size.

use dlc_graph::generate::Rng;
use dlc_runtime::{read_npy, DimSpec, Signature, Tensor};
use dlc_tensor::{DType, Literal, Scalar};
use std::path::Path;

/// Random inputs for `signature`, with every dynamic dim of size `dynamic_size`.
pub fn random_inputs(
    signature: &Signature,
    seed: u64,
    dynamic_size: usize,
) -> Result<Vec<Tensor>, String> {
    let mut rng = Rng::new(seed);
    signature
        .inputs
        .iter()
        .map(|spec| {
            let shape: Vec<usize> = spec
                .dims
                .iter()
                .map(|d| match d {
                    DimSpec::Static(n) => *n as usize,
                    DimSpec::Symbol(_) => dynamic_size,
                })
                .collect();
            random_tensor(spec.dtype, &shape, &mut rng)
                .map_err(|e| format!("input '{}': {e}", spec.name))
        })
        .collect()
}

/// A random tensor of `dtype` and `shape`.
///
/// The tensor is allocated first and filled a chunk at a time, so a shape too large for memory
/// is an error naming the shape and the byte count, never an abort, and the values take no
/// second copy of the tensor's size.
pub fn random_tensor(dtype: DType, shape: &[usize], rng: &mut Rng) -> Result<Tensor, String> {
    const CHUNK: usize = 1 << 16;
    let mut tensor = Tensor::zeros(dtype, shape)
        .map_err(|e| format!("a {dtype} tensor of shape {shape:?}: {e}"))?;
    let n = tensor.numel();
    let width = dtype.size_bytes();
    let mut at = 0;
    while at < n {
        let len = CHUNK.min(n - at);
        let values = (0..len)
            .map(|_| match dtype {
                DType::F16 | DType::BF16 | DType::F32 | DType::F64 => {
                    Scalar::Float(rng.unit() * 4.0 - 2.0)
                }
                DType::I1 => Scalar::Bool(rng.chance(0.5)),
                d if d.is_unsigned() => Scalar::Int(rng.range(0, 8)),
                _ => Scalar::Int(rng.range(-4, 4)),
            })
            .collect();
        let chunk = Literal::from_scalars(dtype, vec![len], values).to_le_bytes();
        tensor.bytes_mut()[at * width..(at + len) * width].copy_from_slice(&chunk);
        at += len;
    }
    Ok(tensor)
}

/// Reads one `.npy` file per input.
pub fn npy_inputs(paths: &[impl AsRef<Path>]) -> Result<Vec<Tensor>, String> {
    paths
        .iter()
        .map(|p| read_npy(p.as_ref()).map_err(|e| e.to_string()))
        .collect()
}
