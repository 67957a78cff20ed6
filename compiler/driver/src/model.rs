//! A model compiled for this CPU, with what is needed to check and time it.

use dlc_codegen::{
    CompileOptions, CompileStats, CpuModule, CpuTarget, EntryKind, KernelCache, Key, LlvmOpt,
    TierUpStats,
};
use dlc_ir::pass::{parse_pipeline, PassRegistry};
use dlc_ir::{parse_source, verify, Context, Diagnostic, Op, SourceMap};
use dlc_passes::loops::cpu::target::set_target_cpu;
use dlc_runtime::{HostProgram, KernelTable, Session};

use crate::model_cache;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The pipeline for graph programs when none is given.
pub const GRAPH_PIPELINE: &str = "decompose,fuse,lower,cpu-default";
/// The pipeline for programs that are already loop-level.
pub const LOOP_PIPELINE: &str = "cpu-default";

/// Which compiler turns the kernels into machine code.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Backend {
    /// dlc's own code generator (`dlc-codegen`: inkwell, LLVM, ORC; kernels compiled in
    /// parallel and cached).
    #[default]
    Llvm,
    /// Upstream MLIR's lowering and execution engine (`dlc-mlir`).
    Mlir,
}

/// How to compile a model.
#[derive(Clone, Debug, Default)]
pub struct ModelOptions {
    /// The code generator.
    pub backend: Backend,
    /// The pass pipeline (flat syntax); `None` picks [`GRAPH_PIPELINE`] or [`LOOP_PIPELINE`].
    pub pipeline: Option<String>,
    /// The function to run; `None` takes the first `func.func`. With a pipeline, a function
    /// the source lacks is looked up after the pipeline (one the pipeline makes, as `grad`
    /// makes `@f_grad`); such a model has no written program to check against.
    pub entry: Option<String>,
    /// The CPU the LLVM backend compiles for. The MLIR backend always compiles for the host:
    /// another CPU with it is an error.
    pub cpu: CpuTarget,
    /// The LLVM backend's optimization.
    pub opt: LlvmOpt,
    /// The LLVM backend's kernel cache, which also keeps each model's module after the
    /// pipeline; `None` runs the pipeline and compiles every kernel.
    pub cache: Option<KernelCache>,
    /// The LLVM backend compiles the kernels the cache lacks in two tiers: quick code first,
    /// optimized code in the background ([`Model::wait_optimized`]).
    pub tiered: bool,
}

/// Where compile time went.
#[derive(Clone, Debug, Default)]
pub struct Timings {
    /// Reading and importing an ONNX model (none for a module given as text or in memory, or
    /// loaded from the model cache without an import).
    pub import: Duration,
    /// Parsing the source (none for a module compiled in memory) and copying it for the
    /// pipeline.
    pub parse: Duration,
    /// The pass pipeline, or loading its output from the model cache.
    pub passes: Duration,
    /// Whether the pipeline's output came from the model cache.
    pub passes_cached: bool,
    /// For the MLIR backend: `lower` is the export to MLIR, `optimize` MLIR's pass pipeline
    /// and `codegen` the execution engine (translation, O3, machine code).
    pub codegen: CompileStats,
}

impl Timings {
    /// Source (model file or text) to callable kernels.
    pub fn total(&self) -> Duration {
        self.import + self.parse + self.passes + self.codegen.total()
    }
}

/// Recreates the program as written (its context and entry function) for a model loaded
/// from the model cache without it.
pub type Recreate = Box<dyn Fn() -> Result<(Context, Op), String> + Send + Sync>;

/// A compiled model.
pub struct Model {
    /// The program as written: kept from the compile, or recreated on first use.
    written: OnceLock<Result<(Context, Op), String>>,
    recreate: Option<Recreate>,
    /// The name of the function the model runs.
    pub entry: String,
    /// The program after the pipeline.
    pub lowered_ctx: Context,
    pub lowered_module: Op,
    /// Whether the source is graph-level (else loop-level).
    pub graph_level: bool,
    pub pipeline: String,
    pub backend: Backend,
    kernels: Kernels,
    program: HostProgram,
    pub timings: Timings,
    /// The model-cache entry a tiered compile has still to write ([`Model::wait_optimized`]).
    deferred_store: Mutex<Option<(KernelCache, Key)>>,
}

/// The compiled kernels, by backend.
enum Kernels {
    Llvm(Box<CpuModule>),
    Mlir(dlc_mlir::MlirCpuModule),
}

impl Kernels {
    fn table(&self) -> &dyn KernelTable {
        match self {
            Kernels::Llvm(m) => m.as_ref(),
            Kernels::Mlir(m) => m,
        }
    }

    /// The content hash of kernel `name` (see [`CpuModule::content`]).
    fn content(&self, name: &str) -> Option<[u8; 32]> {
        match self {
            Kernels::Llvm(m) => m.content(name),
            Kernels::Mlir(_) => None,
        }
    }
}

impl Model {
    /// Compiles `source` (named `file` in diagnostics). Errors come back rendered:
    /// `file:line:col: error: ...` with the source line and a caret.
    pub fn compile(source: &str, file: &str, options: &ModelOptions) -> Result<Model, String> {
        let mut sources = SourceMap::new();
        sources.add(file, source);
        let start = Instant::now();
        let (ctx, module) = parse_checked(source, file, &sources)?;
        let parse = start.elapsed();
        let source = Source {
            file,
            key: source.as_bytes(),
            sources,
            parse,
        };
        Model::build(ctx, module, source, options)
    }

    /// Compiles `module`, built and verified in `ctx` (an ONNX import: its weights never go
    /// through text), as [`Model::compile`] compiles a text. `file` names it in diagnostics;
    /// `key` stands for it in the model cache's key and must determine it (for an import, the
    /// model file and the import options: [`crate::onnx::OnnxImport::key`]).
    pub fn compile_module(
        ctx: Context,
        module: Op,
        file: &str,
        key: &[u8],
        options: &ModelOptions,
    ) -> Result<Model, String> {
        let source = Source {
            file,
            key,
            sources: SourceMap::new(),
            parse: Duration::ZERO,
        };
        Model::build(ctx, module, source, options)
    }

    /// The model whose lowered module the model cache holds under the key `compile_module`
    /// would use for `key`, or `None` when it holds none (or `options` have no cache): the
    /// source is not needed for it. `entry` names the function to run and `graph_level` says
    /// whether the source is graph-level, as a compile of the source found; `recreate` makes
    /// the source again when [`Model::source`] is asked for it. An entry that does not load
    /// is deleted, and `notes` says why.
    pub fn from_model_cache(
        file: &str,
        key: &[u8],
        entry: &str,
        graph_level: bool,
        options: &ModelOptions,
        recreate: Recreate,
        notes: &mut Vec<String>,
    ) -> Result<Option<Model>, String> {
        let pipeline = default_pipeline(options, graph_level);
        let Some((cache, key)) = model_cache_entry(key, file, &pipeline, options) else {
            return Ok(None);
        };
        let Some(built) = load_built(cache, &key, entry, options, notes) else {
            return Ok(None);
        };
        let written = Written {
            program: OnceLock::new(),
            recreate: Some(recreate),
            graph_level,
            entry: entry.to_string(),
        };
        Ok(Some(Model::assemble(written, built, pipeline, options)))
    }

    fn build(
        source_ctx: Context,
        source_module: Op,
        source: Source<'_>,
        options: &ModelOptions,
    ) -> Result<Model, String> {
        let Source {
            file,
            key,
            sources,
            parse,
        } = source;
        // An entry the source lacks may be one the pipeline makes (`grad` writes `@f_grad`): it
        // is looked up after the pipeline, and there is no written program to check it against.
        let (source_func, entry) =
            match entry_function(&source_ctx, source_module, options.entry.as_deref()) {
                Ok(func) => (Some(func), function_name(&source_ctx, func)),
                Err(_) if options.pipeline.is_some() && options.entry.is_some() => {
                    (None, options.entry.clone().unwrap_or_default())
                }
                Err(d) => return Err(sources.render(&source_ctx, &d)),
            };
        let graph_level = has_graph_ops(&source_ctx, source_module);
        let pipeline = default_pipeline(options, graph_level);

        let mut notes = Vec::new();
        let model_cache = model_cache_entry(key, file, &pipeline, options);
        let loaded = model_cache
            .as_ref()
            .and_then(|(cache, key)| load_built(cache, key, &entry, options, &mut notes));
        let built = match loaded {
            Some(mut built) => {
                built.timings.parse = parse;
                built
            }
            None => {
                // The pipeline works on a copy of its own; `source_ctx` stays as written.
                let start = Instant::now();
                let mut ctx = source_ctx.fork();
                let module = ctx.transplant_op(&source_ctx, source_module);
                let copy_time = start.elapsed();
                if options.cpu != CpuTarget::Host {
                    // The schedule (`tile`, `vectorize`) is for the same CPU as the code.
                    set_target_cpu(&mut ctx, module, &options.cpu.to_string())?;
                }
                run_pipeline(&mut ctx, module, &pipeline).map_err(|e| match e {
                    PipelineError::Text(t) => t,
                    PipelineError::Diagnostics(ds) => {
                        ds.iter().map(|d| sources.render(&ctx, d)).collect()
                    }
                })?;
                let passes = start.elapsed().saturating_sub(copy_time);
                let mut built = compile_lowered(ctx, module, &entry, options, &sources, notes)?;
                built.timings.parse = parse + copy_time;
                built.timings.passes = passes;
                match model_cache {
                    // A tiered compile stores the module once its optimized kernels are in
                    // the kernel cache (`wait_optimized`).
                    Some((cache, key)) if options.tiered => {
                        built.store = Some((cache.clone(), key));
                    }
                    Some((cache, key)) => {
                        let mut notes = Vec::new();
                        let content = |name: &str| built.kernels.content(name);
                        model_cache::store(
                            cache,
                            &key,
                            &built.ctx,
                            built.module,
                            &content,
                            &mut notes,
                        );
                        if let Some(stats) = &mut built.timings.codegen.cache {
                            stats.notes.append(&mut notes);
                        }
                    }
                    None => {}
                }
                built
            }
        };
        let program = match source_func {
            Some(func) => Ok((source_ctx, func)),
            None => Err(format!(
                "@{entry} is made by the pipeline: the program as written has no such function \
                 to check it against"
            )),
        };
        let written = Written {
            entry,
            program: OnceLock::from(program),
            recreate: None,
            graph_level,
        };
        Ok(Model::assemble(written, built, pipeline, options))
    }

    fn assemble(written: Written, built: Built, pipeline: String, options: &ModelOptions) -> Model {
        Model {
            written: written.program,
            recreate: written.recreate,
            entry: written.entry,
            lowered_ctx: built.ctx,
            lowered_module: built.module,
            graph_level: written.graph_level,
            pipeline,
            backend: options.backend,
            kernels: built.kernels,
            program: built.program,
            timings: built.timings,
            deferred_store: Mutex::new(built.store),
        }
    }

    /// The program as written, the reference for `--check`: its context and the function the
    /// model runs. A model loaded from the model cache without its source
    /// ([`Model::from_model_cache`]) makes it again on the first call; an error then (the
    /// source changed or is gone) comes back from every call.
    pub fn source(&self) -> Result<(&Context, Op), String> {
        let made = self.written.get_or_init(|| match &self.recreate {
            Some(recreate) => recreate(),
            None => Err("the model has no source program".to_string()),
        });
        match made {
            Ok((ctx, func)) => Ok((ctx, *func)),
            Err(e) => Err(e.clone()),
        }
    }

    /// The host program (signature, outputs, launches).
    pub fn program(&self) -> &HostProgram {
        &self.program
    }

    /// A session to run the model in; it keeps its buffers across runs.
    pub fn session(&self) -> Session<'_> {
        Session::new(&self.program)
    }

    /// The number of kernels compiled.
    pub fn num_kernels(&self) -> usize {
        self.timings.codegen.kernels
    }

    /// The compiled kernels.
    pub fn kernels(&self) -> &dyn KernelTable {
        self.kernels.table()
    }

    /// How many of the distinct kernels run optimized code now, of how many: fewer while a
    /// tiered compilation is still optimizing in the background.
    pub fn optimized_kernels(&self) -> (usize, usize) {
        match &self.kernels {
            Kernels::Llvm(m) => (m.optimized(), m.stats().distinct),
            Kernels::Mlir(_) => (self.timings.codegen.kernels, self.timings.codegen.kernels),
        }
    }

    /// Finishes a tiered compilation: waits until every kernel runs optimized code (stored in
    /// the kernel cache), and stores the lowered module in the model cache. What the
    /// background did, or `None` when there was nothing to optimize.
    pub fn wait_optimized(&self) -> Option<TierUpStats> {
        let mut stats = match &self.kernels {
            Kernels::Llvm(m) => m.wait_optimized(),
            Kernels::Mlir(_) => None,
        };
        // The entry names the kernels' objects: it is stored once they are in the cache.
        let store = self
            .deferred_store
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        if let Some((cache, key)) = store {
            let mut notes = Vec::new();
            let content = |name: &str| self.kernels.content(name);
            let (ctx, module) = (&self.lowered_ctx, self.lowered_module);
            model_cache::store(&cache, &key, ctx, module, &content, &mut notes);
            stats
                .get_or_insert_with(TierUpStats::default)
                .notes
                .extend(notes);
        }
        stats
    }
}

/// The program as written, or what is known of it without it.
struct Written {
    program: OnceLock<Result<(Context, Op), String>>,
    recreate: Option<Recreate>,
    /// The function the model runs.
    entry: String,
    graph_level: bool,
}

/// The module after the pipeline (run or loaded), its kernels compiled and its host program.
struct Built {
    ctx: Context,
    module: Op,
    kernels: Kernels,
    program: HostProgram,
    timings: Timings,
    /// The model-cache entry a tiered compile has still to write.
    store: Option<(KernelCache, Key)>,
}

/// The model cache and the key of the compile of `key` named `file` with `pipeline` under
/// `options`, when there is one to ask: it serves the LLVM backend, whose kernel cache it
/// shares.
fn model_cache_entry<'a>(
    key: &[u8],
    file: &str,
    pipeline: &str,
    options: &'a ModelOptions,
) -> Option<(&'a KernelCache, Key)> {
    let cache = options
        .cache
        .as_ref()
        .filter(|_| options.backend == Backend::Llvm)?;
    Some((cache, model_cache::model_key(key, file, pipeline, options)?))
}

/// The lowered module the model cache holds under `key`, its kernels loaded from the kernel
/// cache; `None` on a miss, or for an entry whose kernels do not load (an object evicted from
/// the kernel cache), which is deleted and reported in `notes`.
fn load_built(
    cache: &KernelCache,
    key: &Key,
    entry: &str,
    options: &ModelOptions,
    notes: &mut Vec<String>,
) -> Option<Built> {
    let start = Instant::now();
    let (ctx, module) = model_cache::load(cache, key, notes)?;
    let passes = start.elapsed();
    match compile_lowered(ctx, module, entry, options, &SourceMap::new(), Vec::new()) {
        Ok(mut built) => {
            built.timings.passes = passes;
            built.timings.passes_cached = true;
            Some(built)
        }
        Err(why) => {
            cache.remove(EntryKind::Model, key);
            notes.push(format!(
                "discarded a model entry whose kernels do not load: {}",
                why.trim_end()
            ));
            None
        }
    }
}

/// Compiles the kernels of the lowered `module` and the host program of its function `entry`;
/// `notes` join the kernel cache's.
fn compile_lowered(
    ctx: Context,
    module: Op,
    entry: &str,
    options: &ModelOptions,
    sources: &SourceMap,
    mut notes: Vec<String>,
) -> Result<Built, String> {
    let (kernels, mut codegen) =
        compile_kernels(&ctx, module, options).map_err(|d| sources.render(&ctx, &d))?;
    if let Some(stats) = &mut codegen.cache {
        notes.append(&mut stats.notes);
        stats.notes = notes;
    }
    // The host function's signature: for a graph program, `lower` recorded on it which `?`
    // dims must agree, so the runtime checks the inputs against what lowering assumed.
    let program = HostProgram::compile(&ctx, module, entry, kernels.table())
        .map_err(|d| sources.render(&ctx, &d))?;
    Ok(Built {
        ctx,
        module,
        kernels,
        program,
        timings: Timings {
            codegen,
            ..Timings::default()
        },
        store: None,
    })
}

/// The pipeline `options` name, or the default for a graph-level or loop-level source.
fn default_pipeline(options: &ModelOptions, graph_level: bool) -> String {
    options.pipeline.clone().unwrap_or_else(|| {
        if graph_level {
            GRAPH_PIPELINE
        } else {
            LOOP_PIPELINE
        }
        .to_string()
    })
}

/// What a model is compiled from, besides its module.
struct Source<'a> {
    /// Its name in diagnostics.
    file: &'a str,
    /// What determines it, for the model cache's key.
    key: &'a [u8],
    /// Its text, when it was parsed, for rendering diagnostics.
    sources: SourceMap,
    /// The time parsing it took.
    parse: Duration,
}

/// Compiles the kernels of `module` as `options` say.
fn compile_kernels(
    ctx: &Context,
    module: Op,
    options: &ModelOptions,
) -> Result<(Kernels, CompileStats), Diagnostic> {
    let cpu = options.cpu;
    Ok(match options.backend {
        Backend::Llvm => {
            let compile = CompileOptions {
                cpu,
                opt: options.opt,
                cache: options.cache.clone(),
                tiered: options.tiered,
            };
            let kernels = CpuModule::compile(ctx, module, &compile)?;
            let stats = kernels.stats().clone();
            (Kernels::Llvm(Box::new(kernels)), stats)
        }
        Backend::Mlir => {
            if cpu != CpuTarget::Host {
                return Err(Diagnostic::error(
                    ctx.op_loc(module),
                    format!("the MLIR backend compiles for the host CPU only, not '{cpu}'"),
                ));
            }
            let kernels = dlc_mlir::MlirCpuModule::compile(ctx, module)?;
            let s = kernels.stats();
            let stats = CompileStats {
                kernels: s.kernels,
                threads: 1,
                lower: s.export,
                optimize: s.lower,
                codegen: s.codegen,
                wall: s.export + s.lower + s.codegen,
                ..CompileStats::default()
            };
            (Kernels::Mlir(kernels), stats)
        }
    })
}

/// Parses and verifies `source`; errors come back rendered.
fn parse_checked(source: &str, file: &str, sources: &SourceMap) -> Result<(Context, Op), String> {
    let mut ctx = dlc_dialects::context();
    match parse_source(&mut ctx, source, file, 1).and_then(|m| verify(&ctx, m).map(|()| m)) {
        Ok(module) => Ok((ctx, module)),
        Err(d) => Err(sources.render(&ctx, &d)),
    }
}

/// The `func.func` named `entry`, or the first one.
pub(crate) fn entry_function(
    ctx: &Context,
    module: Op,
    entry: Option<&str>,
) -> Result<Op, Diagnostic> {
    let funcs: Vec<Op> = ctx
        .regions(module)
        .iter()
        .flat_map(|&r| ctx.blocks(r).iter())
        .flat_map(|&b| ctx.block_ops(b))
        .filter(|&op| ctx.view::<dlc_func::FuncOp>(op).is_some())
        .collect();
    match entry {
        Some(name) => funcs
            .into_iter()
            .find(|&f| function_name(ctx, f) == name)
            .ok_or_else(|| {
                Diagnostic::error(ctx.op_loc(module), format!("no function named '{name}'"))
            }),
        None => funcs.first().copied().ok_or_else(|| {
            Diagnostic::error(ctx.op_loc(module), "the module has no func.func to run")
        }),
    }
}

fn function_name(ctx: &Context, func: Op) -> String {
    ctx.attr(func, "sym_name")
        .and_then(|a| ctx.attr_as_str(a))
        .unwrap_or_default()
        .to_string()
}

/// Whether the module is graph-level: it holds a function `lower` lowers.
fn has_graph_ops(ctx: &Context, module: Op) -> bool {
    let mut found = false;
    ctx.for_each_op(module, &mut |op| {
        found |= ctx.view::<dlc_func::FuncOp>(op).is_some()
            && dlc_passes::graph::lower::is_graph_function(ctx, op)
    });
    found
}

enum PipelineError {
    Text(String),
    Diagnostics(Vec<Diagnostic>),
}

fn run_pipeline(ctx: &mut Context, module: Op, pipeline: &str) -> Result<(), PipelineError> {
    let mut registry = PassRegistry::new();
    dlc_passes::register_all(&mut registry);
    let spec = parse_pipeline(pipeline)
        .map_err(|e| PipelineError::Text(e.render("--pipeline", pipeline)))?;
    let mut pm = registry
        .build(&spec, "builtin.module")
        .map_err(|e| PipelineError::Text(e.render("--pipeline", pipeline)))?;
    // The module is verified once, after the pipeline: verifying after every pass (what
    // `dlc-opt --verify-each` does, and the lit and differential tests with it) took a quarter
    // of the pipeline's time on PaddleOCR det.
    pm.options.verify_each = false;
    pm.run(ctx, module)
        .map_err(|f| PipelineError::Diagnostics(f.diagnostics))?;
    dlc_ir::verify(ctx, module).map_err(|d| {
        let note = format!(
            "the IR is invalid after the pipeline '{pipeline}' (a dlc bug: `dlc-opt \
             --pipeline='{pipeline}' --verify-each` names the pass)"
        );
        PipelineError::Diagnostics(vec![d.with_note(ctx.op_loc(module), note)])
    })
}
