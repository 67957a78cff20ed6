//! Analyses of loop kernels for pass authors: what a pass asks before it rewrites a kernel.
//!
//! - [`access`]: the buffer accesses of a kernel read through the [`MemoryAccess`] interface
//!   (which ops access a buffer, which buffer an op stores to, scalar and vector accesses) and
//!   their indices as index expressions over loop induction variables ([`access::Resolver`]).
//! - [`effects`]: how an op touches memory as far as reordering and removing ops is concerned
//!   ([`effects::Touch`], summed up from [`dlc_ir::Context::memory_effects`]), and which
//!   buffers may be the same memory.
//! - [`loops`]: facts about `loop.for` ops: their parts and kind, constant bounds and trip
//!   counts, and the ranges of induction variables and index values.
//! - [`kernel`]: facts about a whole `loop.kernel`, such as its static thread-block shape.
//!
//! Everything here only reads the IR; the rewrites built on it live in the passes.
//!
//! [`MemoryAccess`]: crate::MemoryAccess

pub mod access;
pub mod effects;
pub mod kernel;
pub mod loops;
