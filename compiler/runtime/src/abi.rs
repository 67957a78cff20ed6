//! The calling convention between the runtime and compiled kernels, shared with `dlc-codegen`.
//!
//! A launch passes one array of 8-byte words, in kernel-argument order: for a `!loop.buffer`
//! argument the data pointer and then every dim of the buffer (static ones included) as an i64;
//! for an integer or `index` argument its value sign-extended to i64; for an `f32`/`f64` scalar
//! its bits (`f32` in the low 32 bits). One flat array keeps every kernel's entry the same C
//! type, so the runtime can call any kernel through one function-pointer type.

/// A compiled kernel's entry: one 8-byte slot per argument word, in kernel-argument order.
pub type KernelFn = unsafe extern "C" fn(args: *const u64);

/// Where compiled kernels come from (implemented by `dlc-codegen`'s JIT; tests hand-write one).
pub trait KernelTable {
    /// The entry of the kernel named `name` (a `loop.kernel`'s symbol, without `@`).
    fn kernel(&self, name: &str) -> Option<KernelFn>;
}
