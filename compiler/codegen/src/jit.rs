//! The CPU JIT: a lowered module's kernels compiled for the host CPU, in parallel, through the
//! kernel cache, and linked into this process.
//!
//! Kernels that differ only in name (and have the same launch facts) are one *distinct*
//! kernel, compiled once under a symbol named by a hash of its content. With a
//! [`KernelCache`], each distinct kernel's object is looked up first under a key of everything
//! it depends on. The others are compiled on the runtime's thread pool, the largest first
//! ([`dlc_runtime::pool::map_on_pool_largest_first`]), each LLVM module in its own LLVM
//! context, tuned for the host or an x86-64 level the host supports ([`CpuTarget`]:
//! `target-cpu` and `target-features` on every function, so AVX-512 machines get 512-bit
//! vectors and `x86-64-v3` gets AVX2's 256-bit ones), optimized with the [`LlvmOpt`] pipeline
//! and emitted as a position-independent object file. A kernel compiled with the configuration's
//! optimization has a module of its own, whose object the cache stores under the kernel's key.
//! The objects are then linked, in kernel order, by ORC (`orc.rs`), so the result does not
//! depend on which thread finished first. Parallel loops call back into
//! `dlc_runtime::dlc_parallel_for`, whose address is defined in the JIT. The result implements
//! `dlc_runtime::KernelTable`, so the runtime's host program can launch the kernels.
//!
//! **Tiers.** With [`CompileOptions::tiered`], a kernel the cache does not hold is first compiled
//! with [`LlvmOpt::Quick`] (a few IR passes and LLVM's fast instruction selector at `-O0`,
//! about a quarter of the time) and the module is returned at once; a background thread
//! compiles the same LLVM IR (kept as bitcode) with [`CompileOptions::opt`], stores it in the
//! cache and swaps each kernel's [`KernelEntry`] to it as it is done. A launch reads its entry
//! when it starts, so a running program moves to the optimized code kernel by kernel; the
//! quick code stays loaded until the module is dropped. Kernels found in the cache are the
//! optimized tier already, so a warm start never runs quick code. Quick code is neither cached
//! nor kept, so small kernels share LLVM modules for it ([`quick_units`]): each is lowered in a
//! module of its own, whose bitcode the background starts from, and linked into the shared one.
//!
//! The background begins once a run of a program linked against the module has ended
//! ([`KernelTable::runs`]), or [`FIRST_RUN_GRACE`] after the compile when none has, or at once
//! when [`CpuModule::wait_optimized`] asks for the optimized code: the first run, in quick
//! code, has the cores to itself. Beside it, even at a lower priority, the background made
//! ppocr_det's first result come about 200 ms after its compile instead of about 130 ms on 2
//! cores (docs/codegen.md, "Tiers").

use crate::cache::{EntryKind, KernelCache, Key, KeyHasher, Lookup, CODEGEN_FORMAT};
use crate::function::{ArgFacts, Machine};
use crate::host_facts::kernel_facts;
use crate::module::{arg_facts, lower_kernel};
use crate::opt::LlvmOpt;
use crate::orc::ObjectJit;
use crate::parallel::PARALLEL_FOR;
use crate::target::{CpuSpec, CpuTarget};
use dlc_ir::{Context, Diagnostic, Op, PrintOptions};
use dlc_loop::CompiledKernelOp;
use dlc_runtime::{KernelEntry, KernelFn, KernelTable};
use inkwell::attributes::AttributeLoc;
use inkwell::context::Context as LlvmContext;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{FileType, TargetMachine};
use rustc_hash::FxHashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How to compile a module's kernels for the CPU.
#[derive(Clone, Debug, Default)]
pub struct CompileOptions {
    /// The CPU the code is for.
    pub cpu: CpuTarget,
    /// LLVM's optimization pipeline and codegen level.
    pub opt: LlvmOpt,
    /// Where compiled kernels are kept between runs; `None` compiles every kernel.
    pub cache: Option<KernelCache>,
    /// Compile kernels missing from the cache with [`LlvmOpt::Quick`] first and with `opt` in
    /// the background ([`CpuModule::wait_optimized`]); `false` compiles them with `opt` only.
    pub tiered: bool,
}

/// Where the time of one compilation went.
#[derive(Clone, Debug, Default)]
pub struct CompileStats {
    /// Kernels in the module.
    pub kernels: usize,
    /// Distinct kernels compiled with [`LlvmOpt::Quick`] by a tiered compilation, whose
    /// optimized code follows in the background.
    pub quick: usize,
    /// Distinct kernels among them, each compiled (or loaded) once: kernels that differ only
    /// in name share one object.
    pub distinct: usize,
    /// Threads the kernels were compiled on.
    pub threads: usize,
    /// LLVM modules compiled: one per kernel compiled optimized, fewer for kernels compiled
    /// quick, which share modules.
    pub modules: usize,
    /// The kernel cache's part, when there is a cache.
    pub cache: Option<CacheStats>,
    /// dlc loop IR to LLVM IR, summed over the kernels compiled (thread time).
    pub lower: Duration,
    /// LLVM's IR pipeline, summed over the kernels compiled (thread time).
    pub optimize: Duration,
    /// Machine code generation, summed over the kernels compiled (thread time).
    pub codegen: Duration,
    /// Linking the objects into this process (wall time).
    pub load: Duration,
    /// The whole compilation (wall time).
    pub wall: Duration,
}

/// What the kernel cache did during one compilation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Kernels loaded from the cache.
    pub hits: usize,
    /// Kernels compiled and stored (no entry, or a corrupted one).
    pub misses: usize,
    /// Problems met on the way, none fatal: corrupted entries discarded, failed writes.
    pub notes: Vec<String>,
}

impl CompileStats {
    /// The whole compilation (wall time).
    pub fn total(&self) -> Duration {
        self.wall
    }
}

/// The kernels of a module, compiled for this CPU and callable through [`KernelTable`].
pub struct CpuModule {
    kernels: FxHashMap<String, KernelEntry>,
    /// Each kernel's content hash (see [`CpuModule::content`]).
    contents: FxHashMap<String, Key>,
    stats: CompileStats,
    /// The optimized tier being compiled in the background, for a tiered compilation.
    tier_up: Option<TierUp>,
    /// Keeps the machine code alive; dropped after `kernels`, which point into it.
    _jit: ObjectJit,
}

/// The background compilation of a tiered module's optimized kernels.
struct TierUp {
    /// Its thread until joined, then what it did.
    thread: Mutex<Joined>,
    /// Asks the thread to stop after the kernels it is compiling.
    cancel: Arc<AtomicBool>,
    /// Lets the thread begin before a run has ended ([`wait_for_first_run`]).
    release: Arc<AtomicBool>,
    /// The runs of programs linked against the module ([`KernelTable::runs`]).
    runs: Arc<AtomicU64>,
    /// Distinct kernels whose entries hold optimized code.
    optimized: Arc<AtomicUsize>,
    /// Distinct kernels compiled quick, to be optimized.
    pending: usize,
    /// The optimized code; shared with the thread, which adds to it.
    _jit: Arc<Mutex<ObjectJit>>,
}

/// A thread, then its result.
enum Joined {
    Running(JoinHandle<TierUpStats>),
    Done(TierUpStats),
}

/// What the background compilation of a tiered module did.
#[derive(Clone, Debug, Default)]
pub struct TierUpStats {
    /// Distinct kernels compiled with the full configuration and swapped in.
    pub kernels: usize,
    /// The IR pipeline and machine code generation, summed over the kernels (thread time).
    pub compile: Duration,
    /// From the start of the module's compilation to the last swap (wall time).
    pub wall: Duration,
    /// Kernels the cache stored.
    pub stored: usize,
    /// Problems met; a kernel that failed to compile keeps its quick code.
    pub notes: Vec<String>,
}

impl CpuModule {
    /// Compiles every `loop.kernel` of `module` (a `builtin.module` after `lower` and a CPU
    /// pipeline) as `options` say. Kernels that use GPU ops or loops are reported as errors at
    /// the op (the first kernel's in module order); a `cpu` this host cannot run is an error at
    /// `module`.
    pub fn compile(
        ctx: &Context,
        module: Op,
        options: &CompileOptions,
    ) -> Result<CpuModule, Diagnostic> {
        let start = Instant::now();
        let fail = |msg: String| Diagnostic::error(ctx.op_loc(module), msg);
        let compiler = KernelCompiler::new(options).map_err(fail)?;
        let facts = kernel_facts(ctx, module);
        // Kernels that differ only in name (the same block of a network at each of its uses)
        // compile once, under a symbol named by their content.
        // Their IR is printed and hashed on the pool, as compiling them is.
        let kernels = dlc_loop::module_kernels(ctx, module);
        let mut hashed = dlc_runtime::pool::map_on_pool(kernels, |kernel| {
            let facts = arg_facts(ctx, &facts, kernel);
            let name = dlc_loop::KernelOp(kernel).name(ctx).to_string();
            let ir = dlc_ir::print_op(ctx, kernel, PrintOptions::default());
            let body = ir.replacen(&format!("@{name}("), "@kernel(", 1);
            let content = KeyHasher::new()
                .field("facts", format!("{facts:?}").as_bytes())
                .field("kernel", body.as_bytes())
                .finish();
            (
                name,
                Distinct {
                    kernel,
                    facts,
                    content,
                    size: body.len(),
                },
            )
        });
        // Kernels compiled before and left out (`loop.compiled_kernel`) bring their hash.
        for compiled in dlc_loop::compiled::module_compiled_kernels(ctx, module) {
            let op = compiled.0;
            let content = compiled.content_hash(ctx).map(Key).ok_or_else(|| {
                Diagnostic::error(ctx.op_loc(op), "compiled kernel without a content hash")
            })?;
            let name = dlc_ir::symbol::symbol_name(ctx, op)
                .unwrap_or("")
                .to_string();
            let d = Distinct {
                kernel: op,
                facts: Vec::new(),
                content,
                size: 0,
            };
            hashed.push((name, d));
        }
        let mut distinct: Vec<Distinct> = Vec::new();
        let mut index: FxHashMap<Key, usize> = FxHashMap::default();
        let mut symbol_of: Vec<(String, usize)> = Vec::with_capacity(hashed.len());
        let mut contents = FxHashMap::default();
        let num_kernels = hashed.len();
        for (name, d) in hashed {
            contents.insert(name.clone(), d.content);
            let i = *index.entry(d.content).or_insert_with(|| {
                distinct.push(d);
                distinct.len() - 1
            });
            symbol_of.push((name, i));
        }
        let tiered = options.tiered;
        // The cache first: each distinct kernel's object, or the notes of its miss.
        let looked_up =
            dlc_runtime::pool::map_on_pool(distinct.iter().collect(), |d| compiler.lookup(ctx, d));
        let threads = dlc_runtime::num_threads().unwrap_or(1);
        let mut stats = CompileStats {
            kernels: num_kernels,
            distinct: distinct.len(),
            threads,
            cache: options.cache.as_ref().map(|_| CacheStats::default()),
            ..CompileStats::default()
        };
        let mut objects = Vec::new();
        let mut missing = Vec::new();
        for (index, found) in looked_up.into_iter().enumerate() {
            let (bytes, mut notes) = found?;
            if let Some(cache) = &mut stats.cache {
                match bytes {
                    Some(_) => cache.hits += 1,
                    None => cache.misses += 1,
                }
                cache.notes.append(&mut notes);
            }
            match bytes {
                Some(bytes) => objects.push((distinct[index].symbol(), bytes)),
                None => missing.push(index),
            }
        }
        // Kernels compiled quick share LLVM modules, as their objects are neither cached nor
        // kept; optimized kernels are compiled one per module, the unit the cache keeps.
        let units = if tiered {
            quick_units(&missing, |i| distinct[i].size, threads)
        } else {
            missing.iter().map(|&i| vec![i]).collect()
        };
        stats.modules = units.len();
        // The largest units first, so that the last ones to compile are small ones on every
        // thread rather than a large one on a single thread.
        let compiled = dlc_runtime::pool::map_on_pool_largest_first(
            units,
            |unit| unit.iter().map(|&i| distinct[i].size).sum(),
            |unit| compiler.compile(ctx, &distinct, &unit, tiered),
        );
        let mut pending = Vec::new();
        let mut stored = false;
        for unit in compiled {
            let (mut unit, later) = unit?;
            stats.lower += unit.times[0];
            stats.optimize += unit.times[1];
            stats.codegen += unit.times[2];
            if let Some(cache) = &mut stats.cache {
                cache.notes.append(&mut unit.notes);
            }
            stored |= unit.stored;
            stats.quick += later.len();
            pending.extend(later);
            objects.push((unit.name, unit.bytes));
        }
        if let (Some(cache), Some(cache_stats)) = (&options.cache, &mut stats.cache) {
            if stored {
                if let Err(e) = cache.evict() {
                    cache_stats.notes.push(e);
                }
            }
        }

        let load = Instant::now();
        let jit = new_jit().map_err(fail)?;
        for (name, bytes) in &objects {
            jit.add_object(bytes, name)
                .map_err(|e| fail(format!("LLVM JIT, kernel '{name}': {e}")))?;
        }
        let mut entries = Vec::with_capacity(distinct.len());
        for d in &distinct {
            let name = d.symbol();
            let entry =
                entry(&jit, &name).map_err(|e| fail(format!("LLVM JIT, kernel '{name}': {e}")))?;
            entries.push(KernelEntry::new(entry));
        }
        let kernels = symbol_of
            .into_iter()
            .map(|(name, i)| (name, entries[i].clone()))
            .collect();
        let tier_up = if pending.is_empty() {
            None
        } else {
            let optimizer = Optimizer {
                spec: compiler.spec.clone(),
                opt: options.opt,
                cache: options.cache.clone(),
            };
            Some(TierUp::start(optimizer, pending, entries, start).map_err(fail)?)
        };
        stats.load = load.elapsed();
        stats.wall = start.elapsed();
        Ok(CpuModule {
            kernels,
            contents,
            stats,
            tier_up,
            _jit: jit,
        })
    }

    /// How many of the distinct kernels run optimized code now; the others, of a tiered
    /// compilation, run their quick code until the background swaps them.
    pub fn optimized(&self) -> usize {
        match &self.tier_up {
            None => self.stats.distinct,
            Some(t) => self.stats.distinct - t.pending + t.optimized.load(Ordering::Acquire),
        }
    }

    /// Waits for the background compilation of a tiered module and returns what it did
    /// (`None` for a module with nothing to optimize); afterwards every kernel that compiled
    /// runs its optimized code.
    pub fn wait_optimized(&self) -> Option<TierUpStats> {
        self.tier_up.as_ref().map(TierUp::join)
    }

    /// The hash of kernel `name`'s body and argument facts, which names its object in the
    /// kernel cache: what a `loop.compiled_kernel` standing for it holds as `content`.
    pub fn content(&self, name: &str) -> Option<[u8; 32]> {
        self.contents.get(name).map(|k| k.0)
    }

    /// Where the compile time went.
    pub fn stats(&self) -> &CompileStats {
        &self.stats
    }
}

impl KernelTable for CpuModule {
    fn kernel(&self, name: &str) -> Option<KernelFn> {
        self.kernels.get(name).map(KernelEntry::get)
    }

    fn entry(&self, name: &str) -> Option<KernelEntry> {
        self.kernels.get(name).cloned()
    }

    fn runs(&self) -> Option<Arc<AtomicU64>> {
        self.tier_up.as_ref().map(|t| t.runs.clone())
    }
}

impl Drop for CpuModule {
    fn drop(&mut self) {
        if let Some(tier_up) = &self.tier_up {
            tier_up.cancel.store(true, Ordering::Relaxed);
            tier_up.join();
        }
    }
}

/// A JIT for kernel objects, with `dlc_parallel_for` and the float conversions
/// (`dlc_runtime::float_libcalls`) defined.
fn new_jit() -> Result<ObjectJit, String> {
    let mut symbols = vec![(
        PARALLEL_FOR,
        dlc_runtime::dlc_parallel_for as *const () as usize,
    )];
    symbols.extend(dlc_runtime::float_libcalls());
    ObjectJit::new(&symbols).map_err(|e| format!("LLVM JIT: {e}"))
}

/// The entry of the kernel object added to `jit` under `symbol`.
fn entry(jit: &ObjectJit, symbol: &str) -> Result<KernelFn, String> {
    let address = jit.lookup(symbol)?;
    // SAFETY: `address` is the entry thunk `module.rs` generated for this kernel, of type
    // `void(ptr)`, i.e. `KernelFn`; the machine code lives as long as `jit`, which the module
    // owns (directly, or shared with its tier-up thread).
    Ok(unsafe { std::mem::transmute::<usize, KernelFn>(address) })
}

/// The tier-up thread's work: the pending kernels, on as many threads as the host has cores.
struct Background {
    optimizer: Optimizer,
    /// Each with the index of its entry.
    pending: Vec<(usize, Pending)>,
    entries: Vec<KernelEntry>,
    jit: Arc<Mutex<ObjectJit>>,
    cancel: Arc<AtomicBool>,
    release: Arc<AtomicBool>,
    runs: Arc<AtomicU64>,
    optimized: Arc<AtomicUsize>,
}

impl Background {
    /// Optimizes every pending kernel (until cancelled); `start` began the module's compile.
    fn run(self, start: Instant) -> TierUpStats {
        let next = AtomicUsize::new(0);
        let stats = Mutex::new(TierUpStats::default());
        let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
        wait_for_first_run(&self.runs, &self.release, &self.cancel);
        std::thread::scope(|scope| {
            for _ in 0..workers.min(self.pending.len()) {
                scope.spawn(|| {
                    yield_to_runs();
                    while let Some((index, p)) =
                        self.pending.get(next.fetch_add(1, Ordering::Relaxed))
                    {
                        if self.cancel.load(Ordering::Relaxed) {
                            break;
                        }
                        let outcome = self.optimize(*index, p);
                        let mut stats = stats.lock().unwrap_or_else(|e| e.into_inner());
                        match outcome {
                            Ok((time, stored)) => {
                                stats.kernels += 1;
                                stats.compile += time;
                                match stored {
                                    Ok(true) => stats.stored += 1,
                                    Ok(false) => {}
                                    Err(e) => stats
                                        .notes
                                        .push(format!("could not store kernel '{}': {e}", p.name)),
                                }
                            }
                            Err(e) => stats
                                .notes
                                .push(format!("kernel '{}' keeps its quick code: {e}", p.name)),
                        }
                    }
                });
            }
        });
        let mut stats = stats.into_inner().unwrap_or_else(|e| e.into_inner());
        if let (Some(cache), true) = (&self.optimizer.cache, stats.stored > 0) {
            if let Err(e) = cache.evict() {
                stats.notes.push(e);
            }
        }
        stats.wall = start.elapsed();
        stats
    }

    /// Compiles `p` fully, stores it in the cache and swaps entry `index` to it: the compile
    /// time and whether the cache stored it.
    fn optimize(
        &self,
        index: usize,
        p: &Pending,
    ) -> Result<(Duration, Result<bool, String>), String> {
        let (bytes, time) = self.optimizer.compile(p)?;
        let stored = match (&self.optimizer.cache, &p.key) {
            (Some(cache), Some(key)) => cache.put(EntryKind::Kernel, key, &bytes).map(|()| true),
            _ => Ok(false),
        };
        let jit = self.jit.lock().unwrap_or_else(|e| e.into_inner());
        jit.add_object(&bytes, &p.name)?;
        self.entries[index].set(entry(&jit, &p.name)?);
        self.optimized.fetch_add(1, Ordering::Release);
        Ok((time, stored))
    }
}

/// How long the background waits for a run to end before it begins anyway.
pub const FIRST_RUN_GRACE: Duration = Duration::from_secs(1);

/// Returns once `runs` counts a run, `release` or `cancel` is set, or [`FIRST_RUN_GRACE`] has
/// passed.
fn wait_for_first_run(runs: &AtomicU64, release: &AtomicBool, cancel: &AtomicBool) {
    let deadline = Instant::now() + FIRST_RUN_GRACE;
    while runs.load(Ordering::Acquire) == 0
        && !release.load(Ordering::Acquire)
        && !cancel.load(Ordering::Relaxed)
        && Instant::now() < deadline
    {
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Lowers the calling thread's scheduling priority (Linux: its nice value, by 10), so that a
/// background compile takes the cores the program's runs leave idle rather than slowing them.
fn yield_to_runs() {
    #[cfg(target_os = "linux")]
    // SAFETY: `setpriority` with `PRIO_PROCESS` and id 0 changes the calling thread's nice
    // value (Linux threads have their own); it reads and writes no memory of ours.
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, 0, 10);
    }
}

/// A distinct kernel compiled quick, waiting for its optimized compile.
struct Pending {
    /// Its entry symbol.
    name: String,
    /// Its LLVM IR as lowered, before any pass.
    bitcode: Vec<u8>,
    /// Its key in the cache, when there is one.
    key: Option<Key>,
}

/// What the background compilation needs of the module's [`KernelCompiler`], owned.
struct Optimizer {
    spec: CpuSpec,
    opt: LlvmOpt,
    cache: Option<KernelCache>,
}

impl Optimizer {
    /// The object of `p` compiled with the full configuration, and the thread time it took.
    fn compile(&self, p: &Pending) -> Result<(Vec<u8>, Duration), String> {
        let start = Instant::now();
        let llvm = LlvmContext::create();
        let buffer = MemoryBuffer::create_from_memory_range(&p.bitcode, &p.name);
        let module = Module::parse_bitcode_from_buffer(&buffer, &llvm)
            .map_err(|e| format!("reading back kernel '{}': {e}", p.name))?;
        let (_, bytes, _) = emit(&module, &self.spec, self.opt)?;
        Ok((bytes, start.elapsed()))
    }
}

impl TierUp {
    /// Starts compiling `pending` (each with the index of its entry) with `optimizer` on
    /// background threads, swapping `entries` as kernels finish. `start` is when the module's compilation began.
    fn start(
        optimizer: Optimizer,
        pending: Vec<(usize, Pending)>,
        entries: Vec<KernelEntry>,
        start: Instant,
    ) -> Result<TierUp, String> {
        let work = Background {
            optimizer,
            pending,
            entries,
            jit: Arc::new(Mutex::new(new_jit()?)),
            cancel: Arc::new(AtomicBool::new(false)),
            release: Arc::new(AtomicBool::new(false)),
            runs: Arc::new(AtomicU64::new(0)),
            optimized: Arc::new(AtomicUsize::new(0)),
        };
        let (jit, cancel, release, runs, optimized) = (
            work.jit.clone(),
            work.cancel.clone(),
            work.release.clone(),
            work.runs.clone(),
            work.optimized.clone(),
        );
        let pending = work.pending.len();
        let thread = std::thread::Builder::new()
            .name("dlc-tier-up".to_string())
            .spawn(move || work.run(start))
            .map_err(|e| format!("could not start the tier-up thread: {e}"))?;
        Ok(TierUp {
            thread: Mutex::new(Joined::Running(thread)),
            cancel,
            release,
            runs,
            optimized,
            pending,
            _jit: jit,
        })
    }

    /// Waits for the thread (once), letting it begin at once, and returns what it did.
    fn join(&self) -> TierUpStats {
        self.release.store(true, Ordering::Release);
        let mut state = self.thread.lock().unwrap_or_else(|e| e.into_inner());
        let stats = match std::mem::replace(&mut *state, Joined::Done(TierUpStats::default())) {
            Joined::Running(thread) => thread.join().unwrap_or_else(|_| TierUpStats {
                notes: vec!["the tier-up thread panicked (a dlc bug)".to_string()],
                ..TierUpStats::default()
            }),
            Joined::Done(stats) => stats,
        };
        *state = Joined::Done(stats.clone());
        stats
    }
}

/// One distinct kernel of a compilation: the first of the kernels with its content.
struct Distinct {
    kernel: Op,
    facts: Vec<ArgFacts>,
    /// A hash of its IR (its name left out) and argument facts.
    content: Key,
    /// The length of its printed IR: what compiling it takes, roughly.
    size: usize,
}

impl Distinct {
    /// The entry symbol of its object: named by its content, so an object from the cache
    /// fits any kernel with that content.
    fn symbol(&self) -> String {
        let hex = self.content.to_string();
        format!("dlc_kernel_{}", &hex[..24])
    }
}

/// The object file of one LLVM module of kernels compiled by a compilation.
struct UnitObject {
    /// The entry symbol of its first kernel, which names the object to the JIT.
    name: String,
    bytes: Vec<u8>,
    /// Lowering, the IR pipeline and machine code generation.
    times: [Duration; 3],
    /// Cache problems met for its kernel.
    notes: Vec<String>,
    /// Written to the cache.
    stored: bool,
}

/// What every kernel of one compilation shares: the target, the LLVM configuration, the
/// cache, and the part of the cache key they determine.
struct KernelCompiler<'a> {
    spec: CpuSpec,
    machine: Machine,
    opt: LlvmOpt,
    cache: Option<&'a KernelCache>,
    /// The key fields common to every kernel, hashed: see [`KernelCompiler::new`].
    common_key: [u8; 32],
}

impl<'a> KernelCompiler<'a> {
    fn new(options: &'a CompileOptions) -> Result<KernelCompiler<'a>, String> {
        let spec = CpuSpec::of(options.cpu)?;
        let (mut major, mut minor, mut patch) = (0, 0, 0);
        // SAFETY: `LLVMGetVersion` writes three integers through the pointers it is given.
        unsafe { inkwell::llvm_sys::core::LLVMGetVersion(&mut major, &mut minor, &mut patch) };
        let common_key = KeyHasher::new()
            .field("dlc", env!("CARGO_PKG_VERSION").as_bytes())
            .field("format", &CODEGEN_FORMAT.to_le_bytes())
            .field("source", env!("DLC_CODEGEN_SOURCE_HASH").as_bytes())
            .field("llvm", format!("{major}.{minor}.{patch}").as_bytes())
            .field("triple", spec.triple.as_bytes())
            .field("cpu", spec.cpu.as_bytes())
            .field("features", spec.features.as_bytes())
            .field("pipeline", options.opt.pipeline().as_bytes())
            .field(
                "codegen",
                format!("{:?}", options.opt.codegen_level()).as_bytes(),
            )
            .finish()
            .0;
        Ok(KernelCompiler {
            machine: Machine::Cpu {
                avx512: options.cpu.has_avx512f(),
                vnni: options.cpu.has_avx512vnni(),
                madd_bits: options.cpu.madd_bits(),
            },
            spec,
            opt: options.opt,
            cache: options.cache.as_ref(),
            common_key,
        })
    }

    /// The cache's key of distinct kernel `d`, when there is a cache.
    fn key(&self, d: &Distinct) -> Option<Key> {
        self.cache.map(|_| {
            KeyHasher::new()
                .field("common", &self.common_key)
                .field("content", &d.content.0)
                .finish()
        })
    }

    /// The cached object of distinct kernel `d` (`None` when it must be compiled), and the
    /// cache problems met. Its entry is the symbol [`Distinct::symbol`], whatever the kernel's
    /// name. A `loop.compiled_kernel` the cache lacks is an error at it.
    fn lookup(
        &self,
        ctx: &Context,
        d: &Distinct,
    ) -> Result<(Option<Vec<u8>>, Vec<String>), Diagnostic> {
        let mut notes = Vec::new();
        if let (Some(cache), Some(key)) = (self.cache, self.key(d)) {
            match cache.get(EntryKind::Kernel, &key) {
                Lookup::Hit(bytes) => return Ok((Some(bytes), notes)),
                Lookup::Miss => {}
                Lookup::Corrupt(why) => notes.push(format!("discarded a corrupted entry: {why}")),
            }
        }
        if ctx.view::<CompiledKernelOp>(d.kernel).is_some() {
            let symbol = dlc_ir::symbol::symbol_name(ctx, d.kernel).unwrap_or("");
            let why = match notes.as_slice() {
                [] => String::new(),
                notes => format!(": {}", notes.join("; ")),
            };
            return Err(Diagnostic::error(
                ctx.op_loc(d.kernel),
                format!(
                    "the kernel cache holds no object for compiled kernel '@{symbol}' (content {}){why}",
                    d.content
                ),
            ));
        }
        Ok((None, notes))
    }

    /// Compiles the kernels `unit` (indices into `distinct`) into one LLVM module and its
    /// object. `quick` compiles them with [`LlvmOpt::Quick`], stores nothing, and returns what
    /// each one's optimized compile needs, with its index; otherwise `unit` is one kernel,
    /// compiled with the configuration's optimization and stored in the cache.
    fn compile(
        &self,
        ctx: &Context,
        distinct: &[Distinct],
        unit: &[usize],
        quick: bool,
    ) -> Result<(UnitObject, Vec<(usize, Pending)>), Diagnostic> {
        let first = &distinct[unit[0]];
        let name = first.symbol();
        let llvm = LlvmContext::create();
        let start = Instant::now();
        let module = llvm.create_module(&name);
        let mut pending = Vec::new();
        for &index in unit {
            let d = &distinct[index];
            let symbol = d.symbol();
            // A kernel alone is lowered straight into the unit's module; one of several into
            // its own module first, whose IR is what its optimized compile starts from.
            let own = (unit.len() > 1).then(|| llvm.create_module(&symbol));
            let target = own.as_ref().unwrap_or(&module);
            lower_kernel(
                ctx,
                &llvm,
                target,
                d.kernel,
                &symbol,
                &d.facts,
                self.machine,
            )?;
            if quick {
                pending.push((
                    index,
                    Pending {
                        bitcode: target.write_bitcode_to_memory().as_slice().to_vec(),
                        name: symbol,
                        key: self.key(d),
                    },
                ));
            }
            if let Some(own) = own {
                module.link_in_module(own).map_err(|e| {
                    Diagnostic::error(
                        ctx.op_loc(d.kernel),
                        format!("linking the kernel's LLVM IR (a dlc bug): {e}"),
                    )
                })?;
            }
        }
        let lowered = start.elapsed();
        let fail = |msg: String| Diagnostic::error(ctx.op_loc(first.kernel), msg);
        let opt = if quick { LlvmOpt::Quick } else { self.opt };
        let (optimized, bytes, emitted) = emit(&module, &self.spec, opt).map_err(fail)?;
        let (mut notes, mut stored) = (Vec::new(), false);
        if let (Some(cache), Some(key), false) = (self.cache, self.key(first), quick) {
            match cache.put(EntryKind::Kernel, &key, &bytes) {
                Ok(()) => stored = true,
                Err(e) => notes.push(format!("could not store kernel '{name}': {e}")),
            }
        }
        let object = UnitObject {
            name,
            bytes,
            times: [lowered, optimized, emitted],
            notes,
            stored,
        };
        Ok((object, pending))
    }
}

/// The printed size of dlc IR from which a kernel compiled quick has its own LLVM module.
const UNIT_SIZE: usize = 40_000;

/// The LLVM modules that the kernels `missing` (indices, with their `size`) are compiled quick
/// in, for `threads` threads. Each LLVM module has a cost beside that of its code (its
/// context, the pass pipelines, the code generator's set-up, an object file to link): in a
/// module each, ppocr_cls's 63 small kernels (8 KB of printed IR on average) came to their
/// first result about 11% later than in 13 shared modules (docs/benchmarks.md). A kernel of
/// [`UNIT_SIZE`] or more has its own module; the smaller ones share modules of about that
/// size, as many as a multiple of the threads, each taking the next kernel (largest first)
/// while it holds the least. A count the threads do not divide leaves one thread compiling
/// the last module alone: oww_hey_mycroft's 7 kernels made 3 modules of about 30 KB, and
/// on 2 threads the third began when the first two ended (its LLVM 37 ms; in 4, 2 threads
/// busy to the end).
fn quick_units(
    missing: &[usize],
    size: impl Fn(usize) -> usize,
    threads: usize,
) -> Vec<Vec<usize>> {
    let (large, mut small): (Vec<usize>, Vec<usize>) =
        missing.iter().partition(|&&i| size(i) >= UNIT_SIZE);
    let mut units: Vec<Vec<usize>> = large.into_iter().map(|i| vec![i]).collect();
    if small.is_empty() {
        return units;
    }
    small.sort_by_key(|&i| (std::cmp::Reverse(size(i)), i));
    let total: usize = small.iter().map(|&i| size(i)).sum();
    let count = (total.div_ceil(UNIT_SIZE).max(threads))
        .next_multiple_of(threads.max(1))
        .min(small.len());
    let mut shared: Vec<(usize, Vec<usize>)> = vec![(0, Vec::new()); count];
    for i in small {
        if let Some((load, unit)) = shared.iter_mut().min_by_key(|(load, _)| *load) {
            *load += size(i);
            unit.push(i);
        }
    }
    units.extend(
        shared
            .into_iter()
            .map(|(_, unit)| unit)
            .filter(|unit| !unit.is_empty()),
    );
    units
}

/// Optimizes `module` for `spec` with `opt` and generates its object file: the time of the IR
/// pipeline, the object, and the time of machine code generation.
fn emit(
    module: &Module<'_>,
    spec: &CpuSpec,
    opt: LlvmOpt,
) -> Result<(Duration, Vec<u8>, Duration), String> {
    spec.with_machine(opt.codegen_level(), |machine| {
        let start = Instant::now();
        optimize(module, spec, machine, opt)?;
        let optimized = start.elapsed();
        let start = Instant::now();
        let buffer = machine
            .write_to_memory_buffer(module, FileType::Object)
            .map_err(|e| format!("LLVM code generation: {e}"))?;
        Ok((optimized, buffer.as_slice().to_vec(), start.elapsed()))
    })
    .and_then(|r| r)
}

/// Tunes `module` for `spec` (its triple, data layout, and the CPU and features on every
/// function), verifies it and runs `opt`'s pipeline on `machine`.
pub(crate) fn optimize(
    module: &Module<'_>,
    spec: &CpuSpec,
    machine: &TargetMachine,
    opt: LlvmOpt,
) -> Result<(), String> {
    module.set_triple(&machine.get_triple());
    module.set_data_layout(&machine.get_target_data().get_data_layout());
    let llvm = module.get_context();
    for f in module
        .get_functions()
        .filter(|f| f.count_basic_blocks() > 0)
    {
        f.add_attribute(
            AttributeLoc::Function,
            llvm.create_string_attribute("target-cpu", &spec.cpu),
        );
        f.add_attribute(
            AttributeLoc::Function,
            llvm.create_string_attribute("target-features", &spec.features),
        );
    }
    module
        .verify()
        .map_err(|e| format!("code generation produced invalid LLVM IR (a dlc bug): {e}"))?;
    module
        .run_passes(opt.pipeline(), machine, PassBuilderOptions::create())
        .map_err(|e| format!("LLVM pipeline '{}': {e}", opt.pipeline()))
}

#[cfg(test)]
mod tests {
    use super::{quick_units, UNIT_SIZE};

    /// The modules a set of kernel sizes makes for `threads`, each as its kernels' indices.
    fn units(sizes: &[usize], threads: usize) -> Vec<Vec<usize>> {
        let missing: Vec<usize> = (0..sizes.len()).collect();
        quick_units(&missing, |i| sizes[i], threads)
    }

    #[test]
    fn shared_modules_come_in_multiples_of_the_threads() {
        // oww_hey_mycroft: two 30 KB recurrences and five small kernels, 89 KB in all.
        let sizes = [12_583, 30_292, 1_250, 12_823, 30_185, 1_121, 1_268];
        let made = units(&sizes, 2);
        assert_eq!(made.len(), 4, "{made:?}");
        let mut all: Vec<usize> = made.concat();
        all.sort_unstable();
        assert_eq!(
            all,
            (0..sizes.len()).collect::<Vec<_>>(),
            "every kernel once"
        );
        // Each recurrence leads a module of its own; the small ones fill the other two.
        assert!(made.iter().any(|u| u[0] == 1) && made.iter().any(|u| u[0] == 4));
        assert_eq!(units(&sizes, 3).len(), 3);
    }

    #[test]
    fn large_kernels_keep_their_own_modules_and_few_kernels_cap_the_count() {
        let made = units(&[UNIT_SIZE, 10, 20], 4);
        assert!(made.contains(&vec![0]), "{made:?}");
        // Two small kernels cannot fill four modules.
        assert_eq!(made.len(), 3, "{made:?}");
        assert!(units(&[], 2).is_empty());
        assert_eq!(units(&[5], 0), vec![vec![0]]);
    }
}
