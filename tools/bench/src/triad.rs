//! The memory-bandwidth ceiling: a streaming triad `a = b + s·c` on several threads.
//!
//! A fused elementwise or row-reduction kernel cannot move data faster than this loop does, so
//! its GB/s are reported as a percentage of the triad's, measured in the same run (the VMs vary
//! 10–30% from run to run; only same-run ratios mean anything). Bytes are counted as STREAM
//! does, 12 per element (two reads, one write); the write-allocate read of `a` is not counted.
//! Each thread first touches its own chunk of the three arrays, then every run has each thread
//! stream the same chunk, so pages live near the core that uses them.

use std::time::{Duration, Instant};

/// How to run the triad.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TriadConfig {
    /// f32 elements per array (64M in the published numbers: 768 MiB over three arrays).
    pub elements: usize,
    /// Worker threads.
    pub threads: usize,
    /// Timed runs, after one untimed warm-up run.
    pub runs: usize,
}

impl Default for TriadConfig {
    /// 64M elements on 2 threads, 10 runs: the setup of peers-and-limits.md.
    fn default() -> Self {
        TriadConfig {
            elements: 64 << 20,
            threads: 2,
            runs: 10,
        }
    }
}

/// The triad's measured bandwidth.
#[derive(Clone, Debug, PartialEq)]
pub struct TriadResult {
    /// Best run, GB/s (10⁹ bytes per second).
    pub best_gbs: f64,
    /// Median run, GB/s.
    pub median_gbs: f64,
    /// Every timed run, in order.
    pub runs: Vec<Duration>,
}

/// The triad's scalar.
const SCALE: f32 = 3.0;

/// Bytes counted per element: read `b` and `c`, write `a`.
const BYTES_PER_ELEMENT: usize = 12;

/// Runs the triad as `config` says and returns its bandwidth. Zero elements, threads or runs
/// are raised to one.
pub fn measure(config: TriadConfig) -> TriadResult {
    let n = config.elements.max(1);
    let threads = config.threads.max(1);
    let chunk = n.div_ceil(threads);
    // Zeroed allocations of this size are fresh mappings: no page is touched until the
    // threads below write their own chunks.
    let mut a = vec![0.0f32; n];
    let mut b = vec![0.0f32; n];
    let mut c = vec![0.0f32; n];
    std::thread::scope(|s| {
        for ((a, b), c) in a
            .chunks_mut(chunk)
            .zip(b.chunks_mut(chunk))
            .zip(c.chunks_mut(chunk))
        {
            s.spawn(move || {
                a.fill(0.0);
                b.fill(1.0);
                c.fill(2.0);
            });
        }
    });
    run_once(&mut a, &b, &c, chunk);
    let mut runs: Vec<Duration> = (0..config.runs.max(1))
        .map(|_| run_once(&mut a, &b, &c, chunk))
        .collect();
    let bytes = (n * BYTES_PER_ELEMENT) as f64;
    let gbs = |d: Duration| bytes / d.as_secs_f64().max(1e-12) / 1e9;
    let timed = runs.clone();
    runs.sort();
    TriadResult {
        best_gbs: gbs(runs[0]),
        median_gbs: gbs(runs[runs.len() / 2]),
        runs: timed,
    }
}

/// One parallel pass over the arrays, each thread on its own chunk; returns the wall time.
fn run_once(a: &mut [f32], b: &[f32], c: &[f32], chunk: usize) -> Duration {
    let start = Instant::now();
    std::thread::scope(|s| {
        for ((a, b), c) in a
            .chunks_mut(chunk)
            .zip(b.chunks(chunk))
            .zip(c.chunks(chunk))
        {
            s.spawn(move || triad(a, b, c, SCALE));
        }
    });
    let elapsed = start.elapsed();
    // Keep the stores observable so the loop cannot be dropped.
    std::hint::black_box(&a[a.len() - 1]);
    elapsed
}

/// `a = b + s·c`. A plain zip loop: no bounds checks, so LLVM vectorizes it to the widest
/// vectors the target allows.
#[inline(never)]
fn triad(a: &mut [f32], b: &[f32], c: &[f32], s: f32) {
    for ((a, b), c) in a.iter_mut().zip(b).zip(c) {
        *a = b + s * c;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_triad_has_positive_bandwidth() {
        let r = measure(TriadConfig {
            elements: 1 << 16,
            threads: 2,
            runs: 3,
        });
        assert_eq!(r.runs.len(), 3);
        assert!(r.best_gbs > 0.0 && r.best_gbs.is_finite());
        assert!(r.best_gbs >= r.median_gbs);
    }

    #[test]
    fn triad_computes_b_plus_s_c() {
        let mut a = vec![0.0f32; 5];
        triad(&mut a, &[1.0; 5], &[2.0; 5], 3.0);
        assert_eq!(a, vec![7.0; 5]);
    }

    #[test]
    fn degenerate_configs_run() {
        let r = measure(TriadConfig {
            elements: 3,
            threads: 8,
            runs: 0,
        });
        assert_eq!(r.runs.len(), 1);
    }
}
