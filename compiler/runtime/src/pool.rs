//! The thread pool compiled kernels run their parallel loops on.
//!
//! Code generation outlines the body of every `parallel` loop into a [`ParallelBody`] and calls
//! [`dlc_parallel_for`] with its captures; this module splits the iteration space into one
//! contiguous chunk per thread (a static schedule, so the split is reproducible and costs one
//! task per thread) and runs the chunks on one process-wide rayon pool.
//!
//! That pool is rayon's global pool (one thread per core, [`std::thread::available_parallelism`],
//! unless the application configured it otherwise), so a program that already uses rayon, like
//! dlc's own test suite, runs its work and dlc's kernels on the same threads instead of twice as
//! many threads as cores. `DLC_NUM_THREADS` asks for a dedicated pool of that size instead,
//! created on first use.
//! `dlc_parallel_for` is called from compiled code and cannot return an error, so an invalid
//! `DLC_NUM_THREADS` makes the pool fall back to the default size, and the error is surfaced by
//! [`num_threads`], which [`Session::run`](crate::Session::run) calls before running anything:
//! a bad setting fails every run with a clear message instead of being silently ignored.
//!
//! A session runs its whole program on one pool worker ([`run_in_pool`]), so each parallel loop
//! splits from inside the pool, the worker taking a share, instead of handing every loop to the
//! pool from outside and sleeping until it ends (a cross-thread wake-up per launch, which cost
//! more than the kernels of small models: docs/benchmarks.md). A program none of whose kernels
//! has a parallel loop runs on the caller's thread instead: handing it to a worker would cost
//! that one wake-up per run and gain nothing (a one-op model called from Python spent most of
//! its 25 µs there).

use crate::error::RuntimeError;
use std::cell::Cell;
use std::sync::OnceLock;

thread_local! {
    /// Whether this thread is running a chunk of a parallel loop: a loop reached from there is
    /// nested and runs inline, so nested loops never wait on the pool they occupy.
    static IN_CHUNK: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` (a whole program run) on a worker of the pool, the caller waiting, so that the
/// parallel loops it reaches split their work with `rayon::join` from inside the pool (the
/// worker runs a share itself) instead of sending every loop into the pool from outside and
/// sleeping until it is done, which costs a cross-thread wake-up per launch.
pub fn run_in_pool<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    match pool() {
        Pool::Global => rayon::scope(|_| f()),
        Pool::Dedicated(pool) => pool.install(f),
        Pool::Inline => f(),
    }
}

/// `f` applied to each of `items` in parallel on the pool, the results in item order: how the
/// code generator compiles a module's kernels at once. The items go out in order to the next
/// free worker ([`dlc_ir::work_queue::map_in_order`]), so a caller may put the longest first.
pub fn map_on_pool<T: Send, R: Send>(items: Vec<T>, f: impl Fn(T) -> R + Sync + Send) -> Vec<R> {
    match pool() {
        Pool::Inline => items.into_iter().map(f).collect(),
        _ => run_in_pool(|| dlc_ir::work_queue::map_in_order(items, f)),
    }
}

/// [`map_on_pool`] with the items handed out largest `size` first
/// ([`dlc_ir::work_queue::map_largest_first`]); the results in item order.
pub fn map_on_pool_largest_first<T: Send, R: Send>(
    items: Vec<T>,
    size: impl Fn(&T) -> usize + Send,
    f: impl Fn(T) -> R + Sync + Send,
) -> Vec<R> {
    match pool() {
        Pool::Inline => items.into_iter().map(f).collect(),
        _ => run_in_pool(|| dlc_ir::work_queue::map_largest_first(items, size, f)),
    }
}

/// The body of an outlined parallel loop: runs iterations `[begin, end)` of it.
pub type ParallelBody = unsafe extern "C" fn(captures: *const u8, begin: i64, end: i64);

/// The name of the environment variable that sets the pool size.
pub const NUM_THREADS_VAR: &str = "DLC_NUM_THREADS";

/// Parses a `DLC_NUM_THREADS` setting: `None` (unset) → `Ok(None)`, a positive integer (spaces
/// around it allowed) → `Ok(Some(n))`, anything else → an error.
pub fn parse_num_threads(value: Option<&str>) -> Result<Option<usize>, RuntimeError> {
    let Some(value) = value else {
        return Ok(None);
    };
    match value.trim().parse::<usize>() {
        Ok(n) if n > 0 => Ok(Some(n)),
        _ => Err(RuntimeError::NumThreads {
            value: value.to_string(),
        }),
    }
}

/// The setting read from the environment once per process.
fn setting() -> &'static Result<Option<usize>, RuntimeError> {
    static SETTING: OnceLock<Result<Option<usize>, RuntimeError>> = OnceLock::new();
    SETTING.get_or_init(|| {
        let raw = std::env::var_os(NUM_THREADS_VAR);
        match raw {
            None => Ok(None),
            Some(os) => parse_num_threads(Some(&os.to_string_lossy())),
        }
    })
}

/// The number of threads parallel loops use, or the error of an invalid `DLC_NUM_THREADS`.
pub fn num_threads() -> Result<usize, RuntimeError> {
    match setting() {
        Ok(Some(n)) => Ok(*n),
        Ok(None) => Ok(rayon::current_num_threads()),
        Err(e) => Err(e.clone()),
    }
}

/// Where parallel loops run.
enum Pool {
    /// Rayon's global pool (no `DLC_NUM_THREADS`, or an invalid one).
    Global,
    /// The pool of `DLC_NUM_THREADS` threads.
    Dedicated(rayon::ThreadPool),
    /// The OS refused to start the dedicated pool's threads: loops run inline on the caller.
    Inline,
}

/// The pool, chosen on first use.
fn pool() -> &'static Pool {
    static POOL: OnceLock<Pool> = OnceLock::new();
    POOL.get_or_init(|| match setting() {
        Ok(Some(threads)) => rayon::ThreadPoolBuilder::new()
            .num_threads(*threads)
            .thread_name(|i| format!("dlc-worker-{i}"))
            .build()
            .map_or(Pool::Inline, Pool::Dedicated),
        Ok(None) | Err(_) => Pool::Global,
    })
}

/// The chunk `c` of `chunks` contiguous, near-equal chunks of `[0, iterations)`: the first
/// `iterations % chunks` chunks get one extra iteration.
pub fn chunk_range(iterations: i64, chunks: i64, c: i64) -> (i64, i64) {
    let base = iterations / chunks;
    let extra = iterations % chunks;
    let begin = c * base + c.min(extra);
    let len = base + i64::from(c < extra);
    (begin, begin + len)
}

/// The captures pointer, sent to the pool threads.
#[derive(Copy, Clone)]
struct Captures(*const u8);

// SAFETY: the pointer is only passed back to the body, whose contract (set by code generation)
// is that the captures may be read concurrently by all chunks of the loop; `dlc_parallel_for`
// does not return before every chunk is done, so the pointee outlives every use.
unsafe impl Send for Captures {}
// SAFETY: as for `Send`: shared read-only use by the chunks, all joined before returning.
unsafe impl Sync for Captures {}

/// Runs `body` over `[0, iterations)` on the pool: one contiguous chunk per thread (one per
/// iteration when there are fewer iterations than threads), returning when all are done.
///
/// Callable concurrently and re-entrantly from any thread; from inside a chunk of another
/// parallel loop (a nested loop) it runs the whole range inline, so nested loops never wait on
/// the pool they occupy. `iterations <= 0` returns at once.
///
/// # Safety
/// `body` must be safe to call with `captures` and any sub-range of `[0, iterations)`, from
/// several threads at once on disjoint sub-ranges.
#[no_mangle]
pub unsafe extern "C" fn dlc_parallel_for(
    body: ParallelBody,
    captures: *const u8,
    iterations: i64,
) {
    if iterations <= 0 {
        return;
    }
    let threads = match pool() {
        Pool::Global => rayon::current_num_threads(),
        Pool::Dedicated(pool) => pool.current_num_threads(),
        Pool::Inline => 1,
    };
    if iterations == 1 || threads <= 1 || IN_CHUNK.get() {
        // SAFETY: the caller's contract covers the whole range on this thread; a nested loop
        // runs on the worker that reached it.
        unsafe { body(captures, 0, iterations) };
        return;
    }
    let chunks = (threads as i64).min(iterations);
    let captures = Captures(captures);
    // Recursive `join` rather than `scope` + `spawn`: join keeps its jobs on the stack (no
    // allocation per chunk) and the caller's worker runs a share of the chunks. A session runs
    // its program on a pool worker (`run_in_pool`), so this is a cheap join from inside the
    // pool; called from outside one, `join` sends the work into the global pool and `install`
    // onto the dedicated one.
    let run = || run_chunks(body, captures, iterations, chunks, 0, chunks);
    match pool() {
        Pool::Dedicated(pool) => pool.install(run),
        _ => run(),
    }
}

/// Runs chunks `[first, last)` of `chunks`, splitting the range in two with `rayon::join`.
fn run_chunks(
    body: ParallelBody,
    captures: Captures,
    iterations: i64,
    chunks: i64,
    first: i64,
    last: i64,
) {
    if last - first == 1 {
        let (begin, end) = chunk_range(iterations, chunks, first);
        let outer = IN_CHUNK.replace(true);
        // SAFETY: chunks are disjoint sub-ranges, as `dlc_parallel_for`'s contract allows.
        unsafe { body(captures.0, begin, end) };
        IN_CHUNK.set(outer);
        return;
    }
    let mid = first + (last - first) / 2;
    rayon::join(
        || run_chunks(body, captures, iterations, chunks, first, mid),
        || run_chunks(body, captures, iterations, chunks, mid, last),
    );
}
