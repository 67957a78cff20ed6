//! `dlc.passes()`: dlc's pass registry (`dlc_passes::register_all`, what dlc-opt's
//! `--list-passes` shows, without its test passes) with each pass's documentation.
//!
//! A pass's `PassInfo` carries its one-line summary, anchor, options and statistics; its full
//! documentation is the `//!` template doc of its source file, which is not reachable at run
//! time. passes/tests/library/pass_docs.rs generates docs/passes.md from those docs and fails when the
//! file is stale, so the module embeds that file (`include_str!`) and gives each pass its
//! `## <argument>` section; python/tests/test_ir.py checks that every registered pass has one.

use dlc_ir::pass::{Anchor, PassRegistry};
use pyo3::prelude::*;
use std::sync::OnceLock;

/// docs/passes.md, as generated from the passes' template docs.
const PASSES_MD: &str = include_str!("../../docs/passes.md");

/// dlc's passes and named pipelines, registered once.
pub(crate) fn registry() -> &'static PassRegistry {
    static REGISTRY: OnceLock<PassRegistry> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        let mut registry = PassRegistry::new();
        dlc_passes::register_all(&mut registry);
        registry
    })
}

/// The section of docs/passes.md under `## argument`, without its heading; empty if none.
fn doc_section(argument: &str) -> String {
    let heading = format!("## {argument}");
    let mut section: Option<Vec<&str>> = None;
    let mut in_code = false;
    for line in PASSES_MD.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
        }
        let is_heading = !in_code && line.starts_with("## ");
        match &mut section {
            None if is_heading && line.trim_end() == heading => section = Some(Vec::new()),
            Some(_) if is_heading => break,
            Some(lines) => lines.push(line),
            None => {}
        }
    }
    section.map_or_else(String::new, |lines| lines.join("\n").trim().to_string())
}

/// One option of a pass, as written in a pipeline: ``fuse{max-group-size=32}``.
#[pyclass(frozen, get_all, module = "dlc.passmanager", name = "PassOption")]
pub(crate) struct PassOption {
    /// The option's name: ``"max-group-size"``.
    name: &'static str,
    /// Its type: ``bool``, ``int``, ``string``, ``int-list``, ``string-list``, ``pipeline``
    /// or ``op-pipelines``.
    r#type: &'static str,
    /// Its default, as text (``""`` for none).
    default: &'static str,
    /// What it does.
    help: &'static str,
}

#[pymethods]
impl PassOption {
    fn __repr__(&self) -> String {
        format!(
            "PassOption(name='{}', type='{}', default='{}')",
            self.name, self.r#type, self.default
        )
    }
}

/// A registered pass: what ``dlc.passes()`` lists.
#[pyclass(frozen, get_all, module = "dlc.passmanager", name = "PassInfo")]
pub(crate) struct PassInfo {
    /// The name a pipeline uses: ``"fuse"``.
    name: &'static str,
    /// One line: the first paragraph of its documentation.
    summary: &'static str,
    /// The names of the ops it runs on, a list (``["func.func"]``); empty for any op.
    anchor: Vec<&'static str>,
    /// Its options, a list of :class:`PassOption`.
    options: Vec<Py<PassOption>>,
    /// What it counts, a list of ``(name, description)`` pairs.
    statistics: Vec<(&'static str, &'static str)>,
    /// Its documentation (Markdown), its section of docs/passes.md: source file, anchor,
    /// options and statistics, then when it applies and what it changes.
    doc: String,
}

#[pymethods]
impl PassInfo {
    fn __repr__(&self) -> String {
        let anchor: Vec<String> = self.anchor.iter().map(|a| format!("'{a}'")).collect();
        format!(
            "PassInfo(name='{}', anchor=[{}])",
            self.name,
            anchor.join(", ")
        )
    }
}

/// Every pass in dlc's registry, sorted by name, as :class:`PassInfo` objects.
#[pyfunction]
pub(crate) fn passes(py: Python<'_>) -> PyResult<Vec<PassInfo>> {
    registry()
        .passes()
        .into_iter()
        .map(|info| {
            let options = info
                .options
                .iter()
                .map(|o| {
                    let option = PassOption {
                        name: o.name,
                        r#type: o.kind.type_name(),
                        default: o.default,
                        help: o.help,
                    };
                    Py::new(py, option)
                })
                .collect::<PyResult<Vec<_>>>()?;
            let anchor = match info.anchor {
                Anchor::Any => Vec::new(),
                Anchor::Op(name) => vec![name],
                Anchor::OneOf(names) => names.to_vec(),
            };
            Ok(PassInfo {
                name: info.argument,
                summary: info.summary,
                anchor,
                options,
                statistics: info.statistics.to_vec(),
                doc: doc_section(info.argument),
            })
        })
        .collect()
}
