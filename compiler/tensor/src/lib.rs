//! Host tensors, the one definition of them in dlc: the element types ([`DType`]), tensors of
//! values in host memory ([`Tensor`]: a dtype, a shape and row-major elements), their
//! little-endian byte form (what compiled code reads and writes) and the `.npy` codec ([`npy`]).
//!
//! The graph interpreter computes on these tensors, the loop interpreter keeps its buffers in
//! them, and the runtime converts them to and from its aligned ABI buffers through the byte
//! form, so a value moves between numpy, the interpreters and compiled code without a second
//! codec to disagree with.

mod dtype;
pub mod npy;
mod tensor;

pub use dtype::DType;
pub use tensor::{
    broadcast_shapes, broadcast_source, check_size, indices, next_index, num_elements, ravel,
    static_shape, ulp_distance, unravel, wrap_int, Elements, Scalar, Tensor, MAX_ELEMENTS,
};
