//! Test plumbing shared by the pass tests: the repository root, a registry with every pass, a
//! context with every dialect, and running a flat pipeline as `dlc-opt --pipeline` does.
//! Included with `#[path = "support/pipeline.rs"] mod pipeline;`.

use dlc_ir::pass::{parse_pipeline, PassRegistry};
use dlc_ir::{Context, Op};
use std::path::{Path, PathBuf};

/// The repository's root directory.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("passes/ is inside the repository")
        .to_path_buf()
}

/// A registry with every pass and pipeline of dlc-passes.
pub fn registry() -> PassRegistry {
    let mut registry = PassRegistry::new();
    dlc_passes::register_all(&mut registry);
    registry
}

/// A context with the func, arith, graph, loop and math dialects.
pub fn context() -> Context {
    let mut ctx = Context::new();
    dlc_dialects::register_all_dialects(&mut ctx);
    ctx
}

/// Runs `pipeline` (flat syntax) on `module`, as `dlc-opt --pipeline` does.
pub fn run(
    registry: &PassRegistry,
    ctx: &mut Context,
    module: Op,
    pipeline: &str,
) -> Result<(), String> {
    let spec = parse_pipeline(pipeline).map_err(|e| e.render("--pipeline", pipeline))?;
    let mut pm = registry
        .build(&spec, "builtin.module")
        .map_err(|e| e.render("--pipeline", pipeline))?;
    pm.run(ctx, module)
        .map(|_| ())
        .map_err(|f| format!("pass '{}': {:?}", f.pass, f.diagnostics))
}
