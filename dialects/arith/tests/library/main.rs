//! The arith dialect through its public API, in one test binary: the Rust builders (`build`),
//! the folder tables (`fold`), round trips of every op (`roundtrip`) and the verifier's messages
//! (`verify`), with their shared helpers in `common`. One binary rather than one per file: each
//! costs cargo a build and a link (docs/testing.md).

mod build;
mod common;
mod fold;
mod roundtrip;
mod verify;
