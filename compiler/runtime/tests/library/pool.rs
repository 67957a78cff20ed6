//! `dlc_parallel_for`: every iteration runs exactly once, chunks are contiguous, nested and
//! concurrent calls work; and `DLC_NUM_THREADS` parsing (as a pure function: no env mutation).

use dlc_runtime::pool::chunk_range;
use dlc_runtime::{dlc_parallel_for, parse_num_threads, RuntimeError};
use std::sync::atomic::{AtomicU32, Ordering};

/// Captures of the counting body: one counter per iteration.
struct Counts {
    hits: Vec<AtomicU32>,
}

unsafe extern "C" fn count(captures: *const u8, begin: i64, end: i64) {
    // SAFETY: `captures` is the `Counts` the test passed, alive until `dlc_parallel_for` returns.
    let counts = unsafe { &*(captures as *const Counts) };
    for i in begin..end {
        counts.hits[i as usize].fetch_add(1, Ordering::Relaxed);
    }
}

fn run_counting(iterations: usize) -> Vec<u32> {
    let counts = Counts {
        hits: (0..iterations).map(|_| AtomicU32::new(0)).collect(),
    };
    // SAFETY: `count` accepts any disjoint sub-ranges of `[0, iterations)` concurrently.
    unsafe {
        dlc_parallel_for(
            count,
            &counts as *const Counts as *const u8,
            iterations as i64,
        );
    }
    counts
        .hits
        .iter()
        .map(|h| h.load(Ordering::Relaxed))
        .collect()
}

#[test]
fn every_iteration_exactly_once() {
    for n in [0, 1, 2, 3, 1000] {
        let hits = run_counting(n);
        assert_eq!(hits.len(), n);
        assert!(hits.iter().all(|&h| h == 1), "n = {n}: {hits:?}");
    }
}

#[test]
fn negative_iterations_do_nothing() {
    // SAFETY: the body is never called.
    unsafe { dlc_parallel_for(count, std::ptr::null(), -5) };
}

/// Captures of the nested body: an outer loop of `outer` iterations, each running an inner
/// parallel loop over its own row of `inner` counters.
struct Nested {
    inner: usize,
    rows: Vec<Counts>,
}

unsafe extern "C" fn nested(captures: *const u8, begin: i64, end: i64) {
    // SAFETY: as in `count`.
    let n = unsafe { &*(captures as *const Nested) };
    for i in begin..end {
        let row = &n.rows[i as usize];
        // SAFETY: `count` over the row's counters, which outlive the call.
        unsafe { dlc_parallel_for(count, row as *const Counts as *const u8, n.inner as i64) };
    }
}

#[test]
fn nested_loops_run_every_iteration_once() {
    let (outer, inner) = (7, 300);
    let n = Nested {
        inner,
        rows: (0..outer)
            .map(|_| Counts {
                hits: (0..inner).map(|_| AtomicU32::new(0)).collect(),
            })
            .collect(),
    };
    // SAFETY: `nested` accepts disjoint sub-ranges concurrently.
    unsafe { dlc_parallel_for(nested, &n as *const Nested as *const u8, outer as i64) };
    for row in &n.rows {
        assert!(row.hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
    }
}

#[test]
fn concurrent_callers() {
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for n in [3, 1000, 17] {
                    assert!(run_counting(n).iter().all(|&h| h == 1));
                }
            });
        }
    });
}

#[test]
fn chunks_are_contiguous_and_balanced() {
    for (n, chunks) in [(10, 3), (3, 3), (1000, 8), (7, 1)] {
        let mut next = 0;
        for c in 0..chunks {
            let (b, e) = chunk_range(n, chunks, c);
            assert_eq!(b, next);
            assert!(e - b == n / chunks || e - b == n / chunks + 1);
            next = e;
        }
        assert_eq!(next, n);
    }
}

#[test]
fn num_threads_setting() {
    assert_eq!(parse_num_threads(None), Ok(None));
    assert_eq!(parse_num_threads(Some("4")), Ok(Some(4)));
    assert_eq!(parse_num_threads(Some(" 2 ")), Ok(Some(2)));
    for bad in ["0", "-1", "", "two", "1.5"] {
        let e = parse_num_threads(Some(bad)).unwrap_err();
        assert_eq!(
            e,
            RuntimeError::NumThreads {
                value: bad.to_string()
            }
        );
    }
    assert_eq!(
        parse_num_threads(Some("x")).unwrap_err().to_string(),
        "DLC_NUM_THREADS must be a positive integer, got 'x'"
    );
}
