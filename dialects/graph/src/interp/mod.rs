//! The reference interpreter of the graph dialect: the executable definition of what each op
//! means, against which lowerings and rewrites are tested (run a function before and after a
//! pass and compare).
//!
//! It is written to be obviously right, not fast: ops are evaluated element by element through
//! multi-indices, floats in `f64` rounded to the tensor's format after each op, and composite
//! ops by their own formulas rather than their decompositions.
//!
//! - [`tensor`]: [`Tensor`], [`DType`], element storage, broadcasting and indexing helpers.
//! - [`npy`]: `.npy` read/write, how fixtures move between numpy and the interpreter.
//! - [`primitives`]: semantics of the primitive ops as functions of tensors.
//! - [`composites`]: semantics of the composite ops (softmax, norms, conv, pools, sdpa, ...).
//! - `eval`: [`interpret`], which walks a `func.func` and dispatches on the kind of each op.

pub mod composites;
mod eval;
pub mod npy;
pub mod primitives;
pub mod tensor;

pub use eval::{evaluate_op, interpret};
pub use tensor::{DType, Elements, Scalar, Tensor};
