//! Tensors through the crate's public API, in one test binary: broadcasting, rounding and
//! wrapping (`tensor`), and the byte form and `.npy` codec (`codec`). One binary rather than one
//! per file: each costs cargo a build and a link (docs/testing.md).

mod codec;
mod tensor;
