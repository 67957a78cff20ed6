//! The CPU JIT: a lowered module's kernels compiled for the host CPU, in parallel, through the
//! kernel cache, and linked into this process.
//!
//! Kernels that differ only in name (and have the same launch facts) are one *distinct*
//! kernel, compiled once under a symbol named by a hash of its content. Each distinct kernel is
//! compiled on its own, on the runtime's thread pool
//! ([`dlc_runtime::pool::map_on_pool`]): its own LLVM context and module, tuned for the host or
//! an x86-64 level the host supports ([`CpuTarget`]: `target-cpu` and `target-features` on
//! every function, so AVX-512 machines get 512-bit vectors and `x86-64-v3` gets AVX2's 256-bit
//! ones), optimized with the [`LlvmOpt`] pipeline and emitted as a position-independent object
//! file. With a [`KernelCache`], the object is looked up first under a key of everything it
//! depends on and stored after compiling. The objects are then linked, in kernel order, by ORC
//! (`orc.rs`), so the result does not depend on which thread finished first. Parallel loops call
//! back into `dlc_runtime::dlc_parallel_for`, whose address is defined in the JIT. The result
//! implements `dlc_runtime::KernelTable`, so the runtime's host program can launch the kernels.

use crate::cache::{EntryKind, KernelCache, Key, KeyHasher, Lookup, CODEGEN_FORMAT};
use crate::function::{ArgFacts, Machine};
use crate::host_facts::kernel_facts;
use crate::module::{arg_facts, lower_kernel};
use crate::opt::LlvmOpt;
use crate::orc::ObjectJit;
use crate::parallel::PARALLEL_FOR;
use crate::target::{CpuSpec, CpuTarget};
use dlc_ir::{Context, Diagnostic, Op, PrintOptions};
use dlc_runtime::{KernelFn, KernelTable};
use inkwell::attributes::AttributeLoc;
use inkwell::context::Context as LlvmContext;
use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{FileType, TargetMachine};
use rustc_hash::FxHashMap;
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
}

/// Where the time of one compilation went.
#[derive(Clone, Debug, Default)]
pub struct CompileStats {
    /// Kernels in the module.
    pub kernels: usize,
    /// Distinct kernels among them, each compiled (or loaded) once: kernels that differ only
    /// in name share one object.
    pub distinct: usize,
    /// Threads the kernels were compiled on.
    pub threads: usize,
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
    kernels: FxHashMap<String, KernelFn>,
    stats: CompileStats,
    /// Keeps the machine code alive; dropped after `kernels`, which point into it.
    _jit: ObjectJit,
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
        let hashed = dlc_runtime::pool::map_on_pool(kernels.clone(), |kernel| {
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
                },
            )
        });
        let mut distinct: Vec<Distinct> = Vec::new();
        let mut index: FxHashMap<Key, usize> = FxHashMap::default();
        let mut symbol_of: Vec<(String, usize)> = Vec::with_capacity(kernels.len());
        for (name, d) in hashed {
            let i = *index.entry(d.content).or_insert_with(|| {
                distinct.push(d);
                distinct.len() - 1
            });
            symbol_of.push((name, i));
        }
        let compiled = dlc_runtime::pool::map_on_pool(distinct, |d| compiler.object(ctx, &d));
        let mut stats = CompileStats {
            kernels: kernels.len(),
            distinct: compiled.len(),
            threads: dlc_runtime::num_threads().unwrap_or(1),
            cache: options.cache.as_ref().map(|_| CacheStats::default()),
            ..CompileStats::default()
        };
        let mut objects = Vec::with_capacity(compiled.len());
        let mut stored = false;
        for object in compiled {
            let mut object = object?;
            stats.lower += object.times[0];
            stats.optimize += object.times[1];
            stats.codegen += object.times[2];
            if let Some(cache) = &mut stats.cache {
                if object.cached {
                    cache.hits += 1;
                } else {
                    cache.misses += 1;
                }
                cache.notes.append(&mut object.notes);
            }
            stored |= object.stored;
            objects.push(object);
        }
        if let (Some(cache), Some(cache_stats)) = (&options.cache, &mut stats.cache) {
            if stored {
                if let Err(e) = cache.evict() {
                    cache_stats.notes.push(e);
                }
            }
        }

        let load = Instant::now();
        let jit = ObjectJit::new(&[(
            PARALLEL_FOR,
            dlc_runtime::dlc_parallel_for as *const () as usize,
        )])
        .map_err(|e| fail(format!("LLVM JIT: {e}")))?;
        for object in &objects {
            jit.add_object(&object.bytes, &object.name)
                .map_err(|e| fail(format!("LLVM JIT, kernel '{}': {e}", object.name)))?;
        }
        let mut entries = Vec::with_capacity(objects.len());
        for object in &objects {
            let address = jit
                .lookup(&object.name)
                .map_err(|e| fail(format!("LLVM JIT, kernel '{}': {e}", object.name)))?;
            // SAFETY: `address` is the entry thunk `module.rs` generated for this kernel, of
            // type `void(ptr)`, i.e. `KernelFn`; the machine code lives as long as `jit`, which
            // the returned module owns.
            entries.push(unsafe { std::mem::transmute::<usize, KernelFn>(address) });
        }
        let kernels = symbol_of
            .into_iter()
            .map(|(name, i)| (name, entries[i]))
            .collect();
        stats.load = load.elapsed();
        stats.wall = start.elapsed();
        Ok(CpuModule {
            kernels,
            stats,
            _jit: jit,
        })
    }

    /// Where the compile time went.
    pub fn stats(&self) -> &CompileStats {
        &self.stats
    }
}

impl KernelTable for CpuModule {
    fn kernel(&self, name: &str) -> Option<KernelFn> {
        self.kernels.get(name).copied()
    }
}

/// One kernel's object file.
/// One distinct kernel of a compilation: the first of the kernels with its content.
struct Distinct {
    kernel: Op,
    facts: Vec<ArgFacts>,
    /// A hash of its IR (its name left out) and argument facts.
    content: Key,
}

impl Distinct {
    /// The entry symbol of its object: named by its content, so an object from the cache
    /// fits any kernel with that content.
    fn symbol(&self) -> String {
        let hex = self.content.to_string();
        format!("dlc_kernel_{}", &hex[..24])
    }
}

struct KernelObject {
    name: String,
    bytes: Vec<u8>,
    /// Loaded from the cache rather than compiled.
    cached: bool,
    /// Lowering, the IR pipeline and machine code generation (zero for a cached kernel).
    times: [Duration; 3],
    /// Cache problems met for this kernel.
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
            },
            spec,
            opt: options.opt,
            cache: options.cache.as_ref(),
            common_key,
        })
    }

    /// The object of distinct kernel `d`: from the cache when it has one, else compiled (and
    /// stored). Its entry is the symbol [`Distinct::symbol`], whatever the kernel's name.
    fn object(&self, ctx: &Context, d: &Distinct) -> Result<KernelObject, Diagnostic> {
        let (kernel, facts) = (d.kernel, d.facts.as_slice());
        let name = d.symbol();
        let mut notes = Vec::new();
        let key = self.cache.map(|_| {
            KeyHasher::new()
                .field("common", &self.common_key)
                .field("content", &d.content.0)
                .finish()
        });
        if let (Some(cache), Some(key)) = (self.cache, &key) {
            match cache.get(EntryKind::Kernel, key) {
                Lookup::Hit(bytes) => {
                    return Ok(KernelObject {
                        name,
                        bytes,
                        cached: true,
                        times: [Duration::ZERO; 3],
                        notes,
                        stored: false,
                    })
                }
                Lookup::Miss => {}
                Lookup::Corrupt(why) => notes.push(format!("discarded a corrupted entry: {why}")),
            }
        }
        let fail = |msg: String| Diagnostic::error(ctx.op_loc(kernel), msg);
        let llvm = LlvmContext::create();
        let start = Instant::now();
        let module = llvm.create_module(&name);
        lower_kernel(ctx, &llvm, &module, kernel, &name, facts, self.machine)?;
        let lowered = start.elapsed();
        let (optimized, bytes, emitted) = self
            .spec
            .with_machine(self.opt.codegen_level(), |machine| {
                let start = Instant::now();
                optimize(&module, &self.spec, machine, self.opt)?;
                let optimized = start.elapsed();
                let start = Instant::now();
                let buffer = machine
                    .write_to_memory_buffer(&module, FileType::Object)
                    .map_err(|e| format!("LLVM code generation: {e}"))?;
                Ok::<_, String>((optimized, buffer.as_slice().to_vec(), start.elapsed()))
            })
            .and_then(|r| r)
            .map_err(fail)?;
        let mut stored = false;
        if let (Some(cache), Some(key)) = (self.cache, &key) {
            match cache.put(EntryKind::Kernel, key, &bytes) {
                Ok(()) => stored = true,
                Err(e) => notes.push(format!("could not store kernel '{name}': {e}")),
            }
        }
        Ok(KernelObject {
            name,
            bytes,
            cached: false,
            times: [lowered, optimized, emitted],
            notes,
            stored,
        })
    }
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
