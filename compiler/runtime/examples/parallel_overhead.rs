//! Measures the fixed cost of `dlc_parallel_for` (an empty body over all pool threads), which
//! compiled code pays once per parallel loop of every kernel launch.
//!
//! `cargo run --release -p dlc-runtime --example parallel_overhead [calls]`

use dlc_runtime::{dlc_parallel_for, num_threads};
use std::time::Instant;

unsafe extern "C" fn empty(_captures: *const u8, _begin: i64, _end: i64) {}

fn main() {
    let calls: u32 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    let threads = match num_threads() {
        Ok(n) => n,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    // Warm up: creates the pool and its threads.
    // SAFETY: `empty` does nothing with any range.
    unsafe { dlc_parallel_for(empty, std::ptr::null(), 1024) };
    for iterations in [1i64, 2, 1024] {
        let start = Instant::now();
        for _ in 0..calls {
            // SAFETY: as above.
            unsafe { dlc_parallel_for(empty, std::ptr::null(), iterations) };
        }
        let per_call = start.elapsed().as_secs_f64() / f64::from(calls) * 1e9;
        println!("{threads} threads, {iterations:>5} iterations: {per_call:8.0} ns per call");
    }
}
