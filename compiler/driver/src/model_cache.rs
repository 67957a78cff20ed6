//! The model cache: a model's module after dlc's pass pipeline, kept as text in the kernel
//! cache's directory ([`EntryKind::Model`]), so that compiling a model compiled before skips
//! the pipeline. Beside it, under a key of another kind ([`facts_key`]), a
//! front end may keep what it learned of the model before lowering it, so that a warm compile
//! skips the front end too (`import_plan.rs`).
//!
//! The key is a hash of everything the pipeline's output depends on: the source text and its
//! file name (the module keeps source locations), the pipeline, the entry function, the CPU the
//! schedule is for and what the host reports about its vectors, caches and threads, LLVM's
//! optimization (the entry names kernel objects compiled with it), dlc's
//! version, and the identity of the running executable (path, size and modification time, as
//! ccache's default compiler check does). The executable stands in for the source of every
//! pass: a rebuilt `dlc-run` never loads a module an older one wrote. A process whose
//! executable cannot be named caches no models.
//!
//! The entry holds the host program and not the kernels' loop nests: each `loop.kernel` is
//! stored as the `loop.compiled_kernel` standing for it (its signature, the arguments it
//! writes, and the hash that names its object in the kernel cache), so loading an entry
//! parses the host functions only, and the kernels' objects are loaded by hash without their
//! IR being printed. Its weights are stored out of line, as binary (`model_entry.rs`). A
//! module is stored with its locations (`loc(...)`) only after it has been
//! printed, parsed back, verified and printed again to the same text, so that a warm compile
//! works on the same IR as the cold one did; one that does not round-trip (a dlc bug) is
//! reported and not stored. A loaded module that fails to parse or verify, or whose kernels'
//! objects are not all in the kernel cache, is reported, deleted and rebuilt.

use dlc_codegen::{EntryKind, KernelCache, Key, KeyHasher, Lookup};
use dlc_ir::{parse_source, print_op, verify, Context, Op, PrintOptions};
use dlc_loop::KernelOp;
use dlc_passes::loops::cpu::target::CpuInfo;

use crate::model::ModelOptions;
use crate::model_entry;

/// Bumped when what a model entry holds changes meaning.
const MODEL_FORMAT: u32 = 2;

/// The printing that entries use: the generic form is not needed, the locations are.
const ENTRY_PRINT: PrintOptions = PrintOptions {
    generic: false,
    debuginfo: true,
};

/// The key of the module `pipeline` makes of the module `source` determines (its text, or an
/// import's key), named `file`, under `options`, or `None` when the running executable cannot
/// be named.
pub(crate) fn model_key(
    source: &[u8],
    file: &str,
    pipeline: &str,
    options: &ModelOptions,
) -> Option<Key> {
    entry_key("model", source, file, pipeline, options)
}

/// The key of what a front end learned about the model `source` determines before lowering it
/// (an ONNX import's [`crate::import_plan::ImportPlan`]), under the same conditions as
/// [`model_key`]'s: entries of the same executable only.
pub(crate) fn facts_key(source: &[u8], file: &str, options: &ModelOptions) -> Option<Key> {
    entry_key("front-end facts", source, file, "", options)
}

fn entry_key(
    kind: &str,
    source: &[u8],
    file: &str,
    pipeline: &str,
    options: &ModelOptions,
) -> Option<Key> {
    let exe = std::env::current_exe().ok()?;
    let meta = std::fs::metadata(&exe).ok()?;
    let modified = meta
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?;
    let cpu = options.cpu.to_string();
    let schedule = (CpuInfo::named(&cpu).ok(), CpuInfo::host());
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    Some(
        KeyHasher::new()
            .field("format", &MODEL_FORMAT.to_le_bytes())
            .field("kind", kind.as_bytes())
            .field("dlc", env!("CARGO_PKG_VERSION").as_bytes())
            .field("exe", exe.as_os_str().as_encoded_bytes())
            .field("exe-size", &meta.len().to_le_bytes())
            .field("exe-modified", &modified.as_nanos().to_le_bytes())
            .field("file", file.as_bytes())
            .field("source", source)
            .field("pipeline", pipeline.as_bytes())
            .field("entry", options.entry.as_deref().unwrap_or("").as_bytes())
            .field("cpu", cpu.as_bytes())
            .field("llvm-opt", options.opt.to_string().as_bytes())
            .field("schedule", format!("{schedule:?}").as_bytes())
            .field("threads", &threads.to_le_bytes())
            .finish(),
    )
}

/// The lowered module stored under `key`, parsed and verified; `None` on a miss. Problems
/// (a corrupted entry, one that does not parse) go to `notes`, and the entry is deleted.
pub(crate) fn load(
    cache: &KernelCache,
    key: &Key,
    notes: &mut Vec<String>,
) -> Option<(Context, Op)> {
    let bytes = match cache.get(EntryKind::Model, key) {
        Lookup::Hit(bytes) => bytes,
        Lookup::Miss => return None,
        Lookup::Corrupt(why) => {
            notes.push(format!("discarded a corrupted model entry: {why}"));
            return None;
        }
    };
    let path = cache.entry_path(EntryKind::Model, key);
    let mut ctx = dlc_dialects::context();
    let parsed = model_entry::decode(&bytes)
        .ok_or_else(|| "the payload does not fit the entry layout".to_string())
        .and_then(|(text, blobs)| parse_entry(&mut ctx, text, &blobs, &path.to_string_lossy()));
    match parsed {
        Ok(module) => Some((ctx, module)),
        Err(why) => {
            cache.remove(EntryKind::Model, key);
            notes.push(format!(
                "discarded a model entry that does not load: {}: {why}",
                path.display()
            ));
            None
        }
    }
}

/// Stores `module` under `key`, each of its kernels replaced by the `loop.compiled_kernel`
/// standing for it (`content` gives each kernel's hash, [`dlc_codegen::CpuModule::content`]),
/// if that module prints and parses back to the same text; problems go to `notes`.
pub(crate) fn store(
    cache: &KernelCache,
    key: &Key,
    ctx: &Context,
    module: Op,
    content: &dyn Fn(&str) -> Option<[u8; 32]>,
    notes: &mut Vec<String>,
) {
    let mut compiled = ctx.fork();
    let copy = compiled.transplant_op(ctx, module);
    for kernel in dlc_loop::module_kernels(&compiled, copy) {
        let kernel = KernelOp(kernel);
        let Some(hash) = content(kernel.name(&compiled)) else {
            notes.push(format!(
                "kernel '@{}' has no compiled code to name; the model is not cached",
                kernel.name(&compiled)
            ));
            return;
        };
        dlc_loop::replace_with_compiled(&mut compiled, kernel, &hash);
    }
    let blobs = model_entry::outline_constants(&mut compiled, copy);
    let text = print_op(&compiled, copy, ENTRY_PRINT);
    let mut again = dlc_dialects::context();
    let reparsed = parse_source(&mut again, &text, "<model cache>", 1)
        .map(|m| (print_op(&again, m, ENTRY_PRINT), m));
    let round_trips = match reparsed {
        Ok((printed, m)) if printed == text => {
            let blobs: Vec<&[u8]> = blobs.iter().map(|b| &b[..]).collect();
            model_entry::inline_constants(&mut again, m, &blobs).is_ok()
                && verify(&again, m).is_ok()
        }
        _ => false,
    };
    if !round_trips {
        notes.push(
            "the lowered module does not print, parse and verify back to the same text (a dlc \
             bug); the model is not cached"
                .to_string(),
        );
        return;
    }
    if let Err(e) = cache.put(EntryKind::Model, key, &model_entry::encode(&text, &blobs)) {
        notes.push(format!("could not store the model: {e}"));
    }
}

/// The module of an entry's `text` and `blobs` (named `file` in diagnostics), parsed, its
/// constants put back and verified.
fn parse_entry(ctx: &mut Context, text: &str, blobs: &[&[u8]], file: &str) -> Result<Op, String> {
    let module = parse_source(ctx, text, file, 1).map_err(|d| d.message.clone())?;
    model_entry::inline_constants(ctx, module, blobs)?;
    verify(ctx, module).map_err(|d| d.message.clone())?;
    Ok(module)
}
