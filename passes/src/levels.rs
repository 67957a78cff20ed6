//! The IR levels passes work at, and the conversions a pipeline needs between them.
//!
//! dlc's passes consume one of three levels: graph programs (`decompose` and `fuse`; `fuse`
//! wants composites decomposed first), loop kernels (every pass of [`crate::loops`] and the
//! `cpu-default` / `gpu-default` pipelines), and anything (`canonicalize`, `cse`, ...). `lower`
//! converts the first into the second. A pipeline written as the passes a user cares about,
//! `fuse,simplify,gpu-map`, skips the conversions; [`with_conversions`] adds them:
//! - `decompose` before a `fuse` that no `decompose` (or `lower`) precedes;
//! - `lower{target=...}` before the first loop pass when a graph pass comes earlier and no
//!   `lower` does; the target is `gpu` when the pipeline names a `gpu-*` pass or pipeline,
//!   else `cpu`.
//!
//! Passes the pipeline names itself always win: nothing is inserted after an explicit
//! `decompose` or `lower`. Only a flat pipeline is read, at its top level; one written with its
//! anchor (`builtin.module(...)`, the `--pass-pipeline` form) is explicit about where each pass
//! runs and is kept as written, as are its nested pipelines. A pipeline of loop passes alone is
//! kept too: its input may be loop IR already.

use crate::loops;
use dlc_ir::pass::{PassRegistry, PipelineElement, PipelineSpec};

/// A conversion [`with_conversions`] inserted: the pass text and the pass it runs before.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inserted {
    /// The inserted pass as pipeline text (`lower{target=gpu}`).
    pub pass: String,
    /// The name of the pass it was inserted before.
    pub before: String,
}

/// Graph-level passes: their input is a graph program.
const GRAPH_PASSES: &[&str] = &["decompose", "fuse"];

/// `spec` with the conversions its passes need between levels (see the module doc), and the
/// list of what was inserted (empty when the pipeline needs none).
pub fn with_conversions(spec: &PipelineSpec) -> (PipelineSpec, Vec<Inserted>) {
    if spec.anchor.is_some() {
        return (spec.clone(), Vec::new());
    }
    let loop_names = loop_level_names();
    let is_loop = |name: &str| loop_names.iter().any(|n| n == name);
    let names: Vec<&str> = spec
        .elements
        .iter()
        .filter_map(|e| match e {
            PipelineElement::Pass { name, .. } => Some(name.as_str()),
            PipelineElement::Nested { .. } => None,
        })
        .collect();
    let gpu = names.iter().any(|n| is_loop(n) && n.starts_with("gpu-"));
    let target = if gpu { "gpu" } else { "cpu" };
    let mut elements = Vec::with_capacity(spec.elements.len() + 2);
    let mut inserted = Vec::new();
    let (mut decomposed, mut lowered, mut graph) = (false, false, false);
    for element in &spec.elements {
        if let PipelineElement::Pass { name, col, .. } = element {
            let mut insert = |pass: &str, options: Vec<(String, String)>| {
                let text = match options.first() {
                    Some((k, v)) => format!("{pass}{{{k}={v}}}"),
                    None => pass.to_string(),
                };
                inserted.push(Inserted {
                    pass: text,
                    before: name.clone(),
                });
                elements.push(PipelineElement::Pass {
                    name: pass.to_string(),
                    option_cols: vec![*col; options.len()],
                    options,
                    col: *col,
                });
            };
            match name.as_str() {
                "decompose" => decomposed = true,
                "lower" => lowered = true,
                "fuse" if !decomposed && !lowered => {
                    insert("decompose", Vec::new());
                    decomposed = true;
                }
                n if is_loop(n) && graph && !lowered => {
                    insert("lower", vec![("target".to_string(), target.to_string())]);
                    lowered = true;
                }
                _ => {}
            }
            graph |= GRAPH_PASSES.contains(&name.as_str());
        }
        elements.push(element.clone());
    }
    let spec = PipelineSpec {
        anchor: spec.anchor.clone(),
        elements,
    };
    (spec, inserted)
}

/// The names of the loop-level passes and pipelines.
fn loop_level_names() -> Vec<String> {
    let mut registry = PassRegistry::new();
    loops::register(&mut registry);
    let passes = registry
        .passes()
        .into_iter()
        .map(|p| p.argument.to_string());
    let pipelines = registry.pipelines().into_iter().map(|p| p.name.to_string());
    passes.chain(pipelines).collect()
}
