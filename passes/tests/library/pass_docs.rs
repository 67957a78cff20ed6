//! docs/passes.md is generated from the template doc (`//!`) of every pass file under
//! passes/src. This test regenerates it and fails if the file differs, so that a pass's
//! reference cannot drift from its code. To rewrite the file:
//!
//! ```text
//! DLC_UPDATE_DOCS=1 cargo test -p dlc-passes --test library pass_docs
//! ```

use dlc_ir::pass::{Anchor, PassInfo, PassRegistry};
use std::path::{Path, PathBuf};

/// A pass file: its path from the repository root, the argument its `PassInfo` declares, and
/// its `//!` doc.
struct PassDoc {
    path: String,
    argument: String,
    doc: String,
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("passes/ is inside the repository")
        .to_path_buf()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("readable source directory")
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The leading `//!` lines without the marker.
fn module_doc(text: &str) -> String {
    let mut doc = String::new();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("//!") else {
            break;
        };
        doc.push_str(rest.strip_prefix(' ').unwrap_or(rest));
        doc.push('\n');
    }
    doc
}

/// The value of the first `argument: "..."` field: the pass's `PassInfo`.
fn declared_argument(text: &str) -> Option<String> {
    let start = text.find("argument: \"")? + "argument: \"".len();
    let len = text[start..].find('"')?;
    Some(text[start..start + len].to_string())
}

/// Every file under passes/src that declares a pass, sorted by argument.
fn pass_docs() -> Vec<PassDoc> {
    let root = repo_root();
    let mut files = Vec::new();
    rust_files(&root.join("passes/src"), &mut files);
    let mut docs: Vec<PassDoc> = files
        .iter()
        .filter_map(|path| {
            let text = std::fs::read_to_string(path).expect("readable pass file");
            let argument = declared_argument(&text)?;
            let rel = path.strip_prefix(&root).unwrap_or(path);
            Some(PassDoc {
                path: rel.to_string_lossy().replace('\\', "/"),
                argument,
                doc: module_doc(&text),
            })
        })
        .collect();
    docs.sort_by(|a, b| a.argument.cmp(&b.argument));
    docs
}

fn registry() -> PassRegistry {
    let mut registry = PassRegistry::new();
    dlc_passes::register_all(&mut registry);
    registry
}

/// The first paragraph of a doc, on one line: what `--list-passes` shows.
fn first_paragraph(doc: &str) -> String {
    doc.lines()
        .take_while(|l| !l.trim().is_empty())
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The facts a `PassInfo` states: anchor (continuing the source line), options, statistics.
fn info_lines(info: &PassInfo) -> String {
    let mut out = String::new();
    let anchor = match info.anchor {
        Anchor::Any => "any op (`Anchor::Any`)".to_string(),
        Anchor::Op(name) => format!("`{name}`"),
        Anchor::OneOf(names) => {
            let names: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
            format!("{} (in a flat pipeline: `any(...)`)", names.join(" or "))
        }
    };
    out.push_str(&format!(" Runs on: {anchor}.\n"));
    if !info.options.is_empty() {
        out.push_str("\n| option | type | default | meaning |\n| --- | --- | --- | --- |\n");
        for o in info.options {
            let default = if o.default.is_empty() {
                String::new()
            } else {
                format!("`{}`", o.default)
            };
            out.push_str(&format!(
                "| `{}` | {} | {default} | {} |\n",
                o.name,
                o.kind.type_name(),
                o.help
            ));
        }
    }
    if !info.statistics.is_empty() {
        out.push_str("\n| statistic | meaning |\n| --- | --- |\n");
        for (name, desc) in info.statistics {
            out.push_str(&format!("| `{name}` | {desc} |\n"));
        }
    }
    out
}

/// The text of docs/passes.md.
fn generate(docs: &[PassDoc], registry: &PassRegistry) -> String {
    let mut out = String::from(
        "# Passes\n\n\
         <!-- Generated from the `//!` docs of passes/src by passes/tests/library/pass_docs.rs; do not \
         edit.\n     Regenerate with: DLC_UPDATE_DOCS=1 cargo test -p dlc-passes --test library pass_docs \
         -->\n\n\
         Every pass in `dlc-passes`, by the argument users type (`dlc-opt --pipeline=<argument>`). \
         How pipelines are written and run is in [pass-manager.md](pass-manager.md).\n\n",
    );
    for d in docs {
        out.push_str(&format!("- [`{0}`](#{0})\n", d.argument));
    }
    for d in docs {
        out.push_str(&format!("\n## {}\n\n", d.argument));
        out.push_str(&format!("Source: `{}`.", d.path));
        match registry.pass(&d.argument) {
            Some(info) => out.push_str(&info_lines(info)),
            None => out.push('\n'),
        }
        out.push('\n');
        // The doc's own `# Section` headings go under this pass's `##` heading.
        let mut in_code = false;
        for line in d.doc.trim_end().lines() {
            if line.trim_start().starts_with("```") {
                in_code = !in_code;
            }
            if !in_code && line.starts_with("# ") {
                out.push_str("##");
            }
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

#[test]
fn passes_md_is_up_to_date() {
    let generated = generate(&pass_docs(), &registry());
    let path = repo_root().join("docs/passes.md");
    if std::env::var_os("DLC_UPDATE_DOCS").is_some_and(|v| v == "1") {
        std::fs::write(&path, &generated).expect("writable docs/passes.md");
        return;
    }
    let current = std::fs::read_to_string(&path).unwrap_or_default();
    if current != generated {
        let line = current
            .lines()
            .zip(generated.lines())
            .position(|(a, b)| a != b)
            .map_or(
                current.lines().count().min(generated.lines().count()),
                |i| i,
            )
            + 1;
        panic!(
            "docs/passes.md is out of date (first difference at line {line}); regenerate it with\n  \
             DLC_UPDATE_DOCS=1 cargo test -p dlc-passes --test library pass_docs"
        );
    }
}

#[test]
fn every_registered_pass_has_a_documented_file() {
    let docs = pass_docs();
    let registry = registry();
    for info in registry.passes() {
        assert!(
            docs.iter().any(|d| d.argument == info.argument),
            "pass '{}' is registered but no file under passes/src declares it",
            info.argument
        );
    }
    for d in &docs {
        assert!(
            registry.pass(&d.argument).is_some(),
            "{} declares pass '{}', which register_all does not register",
            d.path,
            d.argument
        );
    }
}

#[test]
fn every_pass_doc_follows_the_template() {
    let registry = registry();
    for d in pass_docs() {
        for section in ["# Applies when", "# Changes to the IR"] {
            assert!(
                d.doc.lines().any(|l| l == section),
                "{}: the template doc needs a '{section}' section",
                d.path
            );
        }
        if let Some(info) = registry.pass(&d.argument) {
            assert_eq!(
                info.summary,
                first_paragraph(&d.doc),
                "{}: the PassInfo summary must be the doc's first paragraph",
                d.path
            );
        }
    }
}
