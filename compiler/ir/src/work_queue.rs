//! A parallel map whose items go out in order, one at a time, to whichever worker of the
//! current rayon pool is free: [`map_in_order`].
//!
//! rayon's `par_iter` splits a list into halves ahead of time, so a long item late in one half
//! keeps its worker busy after the other has run out of work. With the items handed out one by
//! one, a caller that sorts them longest first ends with short items on every worker (the
//! longest-processing-time-first schedule). The code generator's kernels are mapped this way,
//! largest first: on ppocr_det the LLVM phase took 387–394 ms of wall time instead of 428–432
//! on 2 cores (docs/codegen.md, "Tiers"). The pass manager's nested pipelines, mapped the same
//! way, took no measurably shorter.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// `f` applied to each of `items` on the current rayon pool (the one the caller runs in, or
/// the global one), the items handed out in order to the next free worker; the results in item
/// order. One worker, or one item, runs on the caller's thread.
pub fn map_in_order<T: Send, R: Send>(items: Vec<T>, f: impl Fn(T) -> R + Sync) -> Vec<R> {
    let workers = rayon::current_num_threads().min(items.len());
    if workers <= 1 {
        return items.into_iter().map(f).collect();
    }
    let slots: Vec<Mutex<(Option<T>, Option<R>)>> = items
        .into_iter()
        .map(|t| Mutex::new((Some(t), None)))
        .collect();
    let next = AtomicUsize::new(0);
    let work = || {
        while let Some(slot) = slots.get(next.fetch_add(1, Ordering::Relaxed)) {
            let item = lock(slot).0.take();
            if let Some(item) = item {
                let result = f(item);
                lock(slot).1 = Some(result);
            }
        }
    };
    rayon::scope(|s| {
        for _ in 1..workers {
            s.spawn(|_| work());
        }
        work();
    });
    // A panic in `f` has propagated out of the scope, so every slot holds its result.
    slots
        .into_iter()
        .filter_map(|slot| slot.into_inner().unwrap_or_else(|e| e.into_inner()).1)
        .collect()
}

/// `items` mapped by `f` as [`map_in_order`] does, handed out largest `size` first; the results
/// in item order.
pub fn map_largest_first<T: Send, R: Send>(
    items: Vec<T>,
    size: impl Fn(&T) -> usize,
    f: impl Fn(T) -> R + Sync,
) -> Vec<R> {
    let mut sorted: Vec<(usize, T)> = items.into_iter().enumerate().collect();
    sorted.sort_by_cached_key(|(i, t)| (std::cmp::Reverse(size(t)), *i));
    let mut results: Vec<(usize, R)> = map_in_order(sorted, |(i, t)| (i, f(t)));
    results.sort_by_key(|&(i, _)| i);
    results.into_iter().map(|(_, r)| r).collect()
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
