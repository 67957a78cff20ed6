//! The calling convention between the runtime and compiled kernels, shared with `dlc-codegen`.
//!
//! A launch passes one array of 8-byte words, in kernel-argument order: for a `!loop.buffer`
//! argument the data pointer and then every dim of the buffer (static ones included) as an i64;
//! for an integer or `index` argument its value sign-extended to i64; for an `f32`/`f64` scalar
//! its bits (`f32` in the low 32 bits). One flat array keeps every kernel's entry the same C
//! type, so the runtime can call any kernel through one function-pointer type.
//!
//! A launch reads its kernel's entry from a [`KernelEntry`] each time it runs, so that a code
//! generator compiling in tiers can replace a kernel's quick code by its optimized code while
//! the program is in use.

use std::fmt;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

/// A compiled kernel's entry: one 8-byte slot per argument word, in kernel-argument order.
pub type KernelFn = unsafe extern "C" fn(args: *const u64);

/// Where a launch finds its kernel's code: a slot holding a [`KernelFn`], shared between the
/// kernel table and the programs that launch it. Whoever sets it keeps every code it has
/// held alive for as long as the programs may run.
#[derive(Clone)]
pub struct KernelEntry(Arc<AtomicUsize>);

impl KernelEntry {
    /// An entry holding `f`.
    pub fn new(f: KernelFn) -> Self {
        KernelEntry(Arc::new(AtomicUsize::new(f as usize)))
    }

    /// The code the entry holds now.
    pub fn get(&self) -> KernelFn {
        let address = self.0.load(Ordering::Acquire);
        // SAFETY: the slot only ever holds addresses of `KernelFn`s (`new` and `set` take
        // nothing else), and a function pointer round-trips through `usize`.
        unsafe { std::mem::transmute::<usize, KernelFn>(address) }
    }

    /// Replaces the code: launches from now on call `f`. Launches already running finish in
    /// the code they started in.
    pub fn set(&self, f: KernelFn) {
        self.0.store(f as usize, Ordering::Release);
    }
}

impl fmt::Debug for KernelEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "KernelEntry({:#x})", self.0.load(Ordering::Relaxed))
    }
}

/// Where compiled kernels come from (implemented by `dlc-codegen`'s JIT; tests hand-write one).
pub trait KernelTable {
    /// The entry of the kernel named `name` (a `loop.kernel`'s symbol, without `@`).
    fn kernel(&self, name: &str) -> Option<KernelFn>;

    /// The entry that launches of `name` read at each run: by default a fixed one holding
    /// [`KernelTable::kernel`]. Tables that replace code while it is in use return their slot.
    fn entry(&self, name: &str) -> Option<KernelEntry> {
        self.kernel(name).map(KernelEntry::new)
    }

    /// A counter that every run of a program linked against this table adds one to when it
    /// ends, with outputs or with an error (`None`, the default: nobody asks). A table that
    /// compiles better code in the background waits on it, so as to leave the cores to the
    /// first run.
    fn runs(&self) -> Option<Arc<AtomicU64>> {
        None
    }
}
