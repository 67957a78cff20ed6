//! The float conversions compiled kernels call by name: LLVM emits a call where the target
//! has no instruction for a conversion, and whoever loads the machine code (dlc's JIT, MLIR's
//! execution engine) must define these names.
//!
//! - `f16`: compiler-rt's conversions, which Rust's `compiler_builtins` links into every
//!   binary (x86 has no f64 → f16 instruction, nor any f16 one without F16C). A process's own
//!   symbols have them in dlc-run (libgcc_s exports them too), but not in a Python extension
//!   module, whose symbols are private to it: the loader is given their addresses.
//! - `bf16`: without AVX512-BF16, LLVM narrows `f32` and `f64` to `bf16` with
//!   `__truncsfbf2` / `__truncdfbf2` (every `bf16` add or multiply too, computed in `f32`
//!   and narrowed), in neither `compiler_builtins` nor Debian 12's libgcc: defined here, with
//!   the interpreters' rounding (`FloatKind::to_bits`). The `bf16` result travels as the low
//!   16 bits of the `f32` return register, where LLVM's caller reads it.

use dlc_ir::FloatKind;

extern "C" {
    fn __truncdfhf2();
    fn __truncsfhf2();
    fn __extendhfsf2();
    fn __extendhfdf2();
}

extern "C" fn truncsfbf2(x: f32) -> f32 {
    truncdfbf2(f64::from(x))
}

extern "C" fn truncdfbf2(x: f64) -> f32 {
    f32::from_bits(FloatKind::BF16.to_bits(x) as u32)
}

/// Each conversion's symbol name and address.
pub fn float_libcalls() -> [(&'static str, usize); 6] {
    let builtin = |f: unsafe extern "C" fn()| f as *const () as usize;
    [
        ("__truncdfhf2", builtin(__truncdfhf2)),
        ("__truncsfhf2", builtin(__truncsfhf2)),
        ("__extendhfsf2", builtin(__extendhfsf2)),
        ("__extendhfdf2", builtin(__extendhfdf2)),
        ("__truncsfbf2", truncsfbf2 as *const () as usize),
        ("__truncdfbf2", truncdfbf2 as *const () as usize),
    ]
}
