//! What dlc's heavy tests share: the test tier and a case runner bounded by the machine's cores.
//!
//! The differential and property tests draw random programs from seeds. The **default tier**
//! (what CI runs) checks each test's base count; the **long tier**, `DLC_TEST_SCALE=N`,
//! multiplies every count by `N` for soak runs. Either way each test says on stderr how many
//! programs it checked ([`report`]), so a soak run shows what it covered.
//!
//! Cases run through [`par_map`] on rayon's global pool: one thread per core
//! ([`std::thread::available_parallelism`]), never one thread per case, and the results come
//! back in case order, so a failure report reads the same on every machine. The dlc runtime's
//! parallel loops run on the same pool (`dlc_runtime`'s pool module), so a test that JIT-runs
//! its cases in parallel still has one thread per core.

mod rng;

use rayon::prelude::*;
pub use rng::Rng;
use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// The environment variable that selects the tier: unset or `1` is the default tier.
pub const SCALE_VAR: &str = "DLC_TEST_SCALE";

/// The tier's multiplier: `DLC_TEST_SCALE` when set, else 1.
///
/// # Panics
/// When `DLC_TEST_SCALE` is not a positive integer: a soak run must not silently fall back to
/// the default tier.
pub fn scale() -> u64 {
    match std::env::var(SCALE_VAR) {
        Err(_) => 1,
        Ok(value) => match value.trim().parse::<u64>() {
            Ok(n) if n > 0 => n,
            _ => panic!("{SCALE_VAR}={value:?}: expected a positive integer, such as 10"),
        },
    }
}

/// `base` programs in the default tier, `base × scale()` in the long tier.
pub fn scaled(base: u64) -> u64 {
    base.saturating_mul(scale())
}

/// `f` over `items` on the bounded pool, the results in the order of `items`.
pub fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync + Send) -> Vec<R> {
    items.par_iter().map(f).collect()
}

/// [`par_map`] for test cases: a case that panics gives `Err` with the panic's message (see
/// [`guarded`]) instead of stopping the others, so one run lists every broken case, in order.
pub fn par_cases<T: Sync, R: Send>(
    items: &[T],
    f: impl Fn(&T) -> Result<R, String> + Sync + Send,
) -> Vec<Result<R, String>> {
    par_map(items, |item| guarded(|| f(item)))
}

/// Runs one case, turning a panic in it (a compiler or runtime bug) into `Err("panicked: …")`.
pub fn guarded<R>(case: impl FnOnce() -> Result<R, String>) -> Result<R, String> {
    catch_unwind(AssertUnwindSafe(case)).unwrap_or_else(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a non-string panic".to_string());
        Err(format!("panicked: {message}"))
    })
}

/// Says on stderr, past the test harness's capture, that `test` checked `programs` programs.
pub fn report(test: &str, programs: usize) {
    let line = format!(
        "{test}: checked {programs} programs ({SCALE_VAR}={})\n",
        scale()
    );
    // The harness captures `eprintln!` of passing tests; the count belongs in the log of every
    // run, so it goes to the stderr handle directly. A failed write only loses the line.
    let _ = std::io::stderr().write_all(line.as_bytes());
}
