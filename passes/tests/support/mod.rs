//! Support code for the integration tests of dlc-passes.

pub mod gen;
pub mod interp;
