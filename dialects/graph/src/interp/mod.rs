//! The reference interpreter of the graph dialect: the executable definition of what each op
//! means, against which lowerings and rewrites are tested (run a function before and after a
//! pass and compare).
//!
//! It is written to be obviously right, not fast: ops are evaluated element by element through
//! multi-indices, floats in `f64` rounded to the tensor's format after each op, and composite
//! ops by their own formulas rather than their decompositions. Values are `dlc_tensor`'s
//! [`Literal`](dlc_tensor::Literal)s, whose constructors round or wrap each element to the dtype
//! once, when a result is stored: for `f16` and `bf16` that is at least as accurate as computing
//! in `f32`, and it is what "rounded to the format after each op" means. `.npy` fixtures are
//! read and written by `dlc_tensor::npy`.
//!
//! - [`primitives`]: semantics of the primitive ops as functions of tensors.
//! - [`composites`]: semantics of the composite ops (softmax, norms, conv, pools, sdpa, ...).
//! - [`recurrence`]: semantics of `graph.rnn`, the LSTM/GRU/RNN scan.
//! - `eval`: [`interpret`], which walks a `func.func` and dispatches on the kind of each op.

pub mod composites;
mod eval;
pub mod primitives;
pub mod recurrence;

pub use eval::{evaluate_op, interpret};
