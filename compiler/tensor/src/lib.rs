//! Literals, dlc's host values: the element types ([`DType`]), tensor values in host memory
//! ([`Literal`]: a dtype, a shape and row-major elements, held as `f64`/`i64`/`bool`), their
//! little-endian byte form (what compiled code reads and writes) and the `.npy` codec ([`npy`]).
//!
//! A [`Literal`] is a value to compute on — a constant, an interpreter's operand or result, an
//! expected output — like XLA's `Literal`; the runtime's `dlc_runtime::Tensor` is the other
//! kind, the 64-byte aligned byte buffer compiled code reads and writes, and converts to and
//! from a `Literal` exactly through the byte form.
//!
//! Constant folding and the ONNX importer make literals, the graph interpreter computes on
//! them, the loop interpreter keeps its buffers in them, and the runtime converts them to and
//! from its tensors, so a value moves between numpy, the interpreters and compiled code without
//! a second codec to disagree with.

mod dtype;
mod literal;
pub mod npy;

pub use dtype::DType;
pub use literal::{
    broadcast_shapes, broadcast_source, check_size, indices, next_index, num_elements, ravel,
    static_shape, ulp_distance, unravel, wrap_int, Elements, Literal, Scalar, MAX_ELEMENTS,
};
