//! A warning for a common mistake: running loop passes (`simplify`, `gpu-map`, ...) on a module
//! that is still at the graph level. They find no kernels and change nothing, which is easy to
//! misread as success; `lower` turns the graph functions into kernels first. A flat pipeline
//! that starts with a graph pass gets that `lower` inserted (`dlc_passes::levels`), so this
//! fires for a pipeline of loop passes alone, `--pass-pipeline`, or `--no-implicit-lowering`.

use dlc_graph::GraphOps;
use dlc_ir::{Context, Diagnostic, Op};

/// The pass names of a pass manager's full pipeline text, in order (options skipped).
fn pass_names(pipeline_text: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut current = String::new();
    let mut depth = 0usize;
    for c in pipeline_text.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            _ if depth > 0 => {}
            '(' | ')' | ',' | ' ' => {
                if !current.is_empty() {
                    names.push(std::mem::take(&mut current));
                }
            }
            _ => current.push(c),
        }
    }
    if !current.is_empty() {
        names.push(current);
    }
    names
}

/// A warning if `pipeline_text` runs a loop pass before any `lower` while `module` holds graph
/// ops.
pub fn lower_missing(pipeline_text: &str, ctx: &Context, module: Op) -> Option<Diagnostic> {
    let loop_passes = dlc_passes::loops::pass_names();
    let names = pass_names(pipeline_text);
    let first_loop = names
        .iter()
        .position(|n| loop_passes.contains(&n.as_str()))?;
    if names[..first_loop].iter().any(|n| n == "lower") {
        return None;
    }
    let mut graph = false;
    ctx.for_each_op(module, &mut |op| {
        graph |= GraphOps::of(ctx, op).is_some();
    });
    graph.then(|| {
        Diagnostic::warning(
            ctx.op_loc(module),
            format!(
                "'{}' is a loop pass but the input is graph-level IR, which it does not \
                 transform; add 'lower' before it (e.g. --pipeline=decompose,fuse,lower,{})",
                names[first_loop], names[first_loop]
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::pass_names;

    #[test]
    fn names_skip_options_and_anchors() {
        assert_eq!(
            pass_names("builtin.module(fuse{max-group-size=4},loop.kernel(simplify),gpu-map)"),
            [
                "builtin.module",
                "fuse",
                "loop.kernel",
                "simplify",
                "gpu-map"
            ]
        );
    }
}
