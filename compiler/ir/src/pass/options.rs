//! Typed pass options: declarations with defaults and help, and parsing of `key=value` text.
//!
//! An option may hold a pass pipeline (the inliner's `default-pipeline=canonicalize`): its text
//! is parsed here, and the registry builds it into a [`PassManager`] when it builds the pass,
//! reporting a bad nested pipeline like any other pipeline error.

use super::manager::{PassManager, PipelineFailure};
use crate::diagnostics::Diagnostic;
use crate::ir::Op;
use crate::Context;
use rustc_hash::FxHashMap;
use std::fmt;
use std::sync::Arc;

/// The type of an option's value.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum OptionKind {
    Bool,
    Int,
    Str,
    /// Comma-separated integers.
    IntList,
    /// Comma-separated strings.
    StrList,
    /// A pass pipeline run on ops of this name (flat or nested text; empty: no passes).
    Pipeline(&'static str),
    /// Pipelines each nested on the ops it names: `func.func(cse),other.op(canonicalize)`.
    OpPipelines,
}

impl OptionKind {
    fn describe(self) -> &'static str {
        match self {
            OptionKind::Bool => "a boolean (true/false/1/0)",
            OptionKind::Int => "an integer",
            OptionKind::Str => "a string",
            OptionKind::IntList => "a comma-separated list of integers",
            OptionKind::StrList => "a comma-separated list of strings",
            OptionKind::Pipeline(_) => "a pass pipeline",
            OptionKind::OpPipelines => "a list of 'op-name(pipeline)'",
        }
    }

    /// The type as `--list-passes` shows it.
    pub fn type_name(self) -> &'static str {
        match self {
            OptionKind::Bool => "bool",
            OptionKind::Int => "int",
            OptionKind::Str => "string",
            OptionKind::IntList => "int-list",
            OptionKind::StrList => "string-list",
            OptionKind::Pipeline(_) => "pipeline",
            OptionKind::OpPipelines => "op-pipelines",
        }
    }
}

/// A declared option.
#[derive(Copy, Clone, Debug)]
pub struct OptionSpec {
    pub name: &'static str,
    pub kind: OptionKind,
    /// The default, written as a user would write it.
    pub default: &'static str,
    pub help: &'static str,
}

impl OptionSpec {
    /// A boolean option.
    pub const fn bool(name: &'static str, default: bool, help: &'static str) -> Self {
        OptionSpec {
            name,
            kind: OptionKind::Bool,
            default: if default { "true" } else { "false" },
            help,
        }
    }

    /// An option of any kind with a textual default.
    pub const fn new(
        name: &'static str,
        kind: OptionKind,
        default: &'static str,
        help: &'static str,
    ) -> Self {
        OptionSpec {
            name,
            kind,
            default,
            help,
        }
    }
}

/// A parsed option value.
#[derive(Clone, PartialEq, Debug)]
pub enum OptionValue {
    Bool(bool),
    Int(i64),
    Str(String),
    IntList(Vec<i64>),
    StrList(Vec<String>),
    /// The text of a [`OptionKind::Pipeline`] or [`OptionKind::OpPipelines`] option; the
    /// registry builds it ([`OptionValues::pipelines`]).
    Pipeline(String),
}

impl OptionValue {
    /// Parses `text` as a value of `kind`.
    pub fn parse(kind: OptionKind, text: &str) -> Result<Self, String> {
        let bad = || format!("expected {}, got '{text}'", kind.describe());
        let list = |t: &str| -> Vec<String> {
            if t.is_empty() {
                Vec::new()
            } else {
                t.split(',').map(|s| s.trim().to_string()).collect()
            }
        };
        Ok(match kind {
            OptionKind::Bool => match text {
                "true" | "1" | "" => OptionValue::Bool(true),
                "false" | "0" => OptionValue::Bool(false),
                _ => return Err(bad()),
            },
            OptionKind::Int => OptionValue::Int(text.parse().map_err(|_| bad())?),
            OptionKind::Str => OptionValue::Str(text.to_string()),
            OptionKind::IntList => OptionValue::IntList(
                list(text)
                    .iter()
                    .map(|s| s.parse().map_err(|_| bad()))
                    .collect::<Result<_, _>>()?,
            ),
            OptionKind::StrList => OptionValue::StrList(list(text)),
            OptionKind::Pipeline(_) | OptionKind::OpPipelines => {
                OptionValue::Pipeline(text.to_string())
            }
        })
    }

    /// The value as pipeline text.
    pub fn to_text(&self) -> String {
        match self {
            OptionValue::Bool(b) => b.to_string(),
            OptionValue::Int(i) => i.to_string(),
            OptionValue::Str(s) => s.clone(),
            OptionValue::IntList(v) => v
                .iter()
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(","),
            OptionValue::StrList(v) => v.join(","),
            OptionValue::Pipeline(text) => text.clone(),
        }
    }
}

/// A pipeline given as an option value, built: the name of the ops it runs on and its passes.
#[derive(Clone)]
pub struct NestedPipeline {
    /// The op name the pipeline is anchored on (`func.func`).
    pub anchor: String,
    /// The passes, ready to run on one such op.
    pub(crate) manager: Arc<PassManager>,
}

impl NestedPipeline {
    /// Runs the pipeline on `op` (named [`NestedPipeline::anchor`]), from within the pass that
    /// holds it; returns what [`PassManager::run`] returns.
    pub fn run(&self, ctx: &mut Context, op: Op) -> Result<Vec<Diagnostic>, PipelineFailure> {
        self.manager.run_shared(ctx, op)
    }
}

impl fmt::Debug for NestedPipeline {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.manager.pipeline_text())
    }
}

/// The option values of one pass instance: every declared option, defaulted or set.
#[derive(Clone, Debug, Default)]
pub struct OptionValues {
    values: FxHashMap<&'static str, OptionValue>,
    /// The built pipelines of pipeline options (none for an empty one).
    pipelines: FxHashMap<&'static str, Vec<NestedPipeline>>,
}

impl OptionValues {
    /// Validates `given` (name, text) pairs against `specs`, filling in defaults. Errors name
    /// the offending option.
    pub fn resolve(
        specs: &'static [OptionSpec],
        given: &[(String, String)],
    ) -> Result<Self, (usize, String)> {
        let mut values = FxHashMap::default();
        for spec in specs {
            let v = OptionValue::parse(spec.kind, spec.default).map_err(|e| {
                (
                    usize::MAX,
                    format!("bad default for option '{}': {e}", spec.name),
                )
            })?;
            values.insert(spec.name, v);
        }
        for (i, (name, text)) in given.iter().enumerate() {
            let Some(spec) = specs.iter().find(|s| s.name == name) else {
                let known: Vec<&str> = specs.iter().map(|s| s.name).collect();
                let hint = crate::pass::registry::did_you_mean(name, &known);
                return Err((i, format!("unknown option '{name}'{hint}")));
            };
            let v = OptionValue::parse(spec.kind, text)
                .map_err(|e| (i, format!("option '{name}': {e}")))?;
            values.insert(spec.name, v);
        }
        Ok(OptionValues {
            values,
            pipelines: FxHashMap::default(),
        })
    }

    /// Records the built pipelines of the pipeline option `name`.
    pub(crate) fn set_pipelines(&mut self, name: &'static str, pipelines: Vec<NestedPipeline>) {
        self.pipelines.insert(name, pipelines);
    }

    /// The pipelines a pipeline option built: one for a non-empty [`OptionKind::Pipeline`], one
    /// per op name for [`OptionKind::OpPipelines`], none for empty text.
    pub fn pipelines(&self, name: &str) -> &[NestedPipeline] {
        self.pipelines.get(name).map_or(&[], Vec::as_slice)
    }

    /// The value of `name` as pipeline text (empty if undeclared).
    pub(crate) fn text_of(values: &OptionValues, name: &str) -> String {
        values
            .values
            .get(name)
            .map(OptionValue::to_text)
            .unwrap_or_default()
    }

    fn get(&self, name: &str) -> &OptionValue {
        self.values
            .get(name)
            .unwrap_or_else(|| panic!("option '{name}' is not declared by this pass"))
    }

    /// A boolean option.
    pub fn bool(&self, name: &str) -> bool {
        matches!(self.get(name), OptionValue::Bool(true))
    }

    /// An integer option.
    pub fn int(&self, name: &str) -> i64 {
        match self.get(name) {
            OptionValue::Int(i) => *i,
            other => panic!("option '{name}' is {other:?}, not an integer"),
        }
    }

    /// A string option.
    pub fn str(&self, name: &str) -> &str {
        match self.get(name) {
            OptionValue::Str(s) => s,
            other => panic!("option '{name}' is {other:?}, not a string"),
        }
    }

    /// An integer-list option.
    pub fn int_list(&self, name: &str) -> &[i64] {
        match self.get(name) {
            OptionValue::IntList(v) => v,
            other => panic!("option '{name}' is {other:?}, not an integer list"),
        }
    }

    /// A string-list option.
    pub fn str_list(&self, name: &str) -> &[String] {
        match self.get(name) {
            OptionValue::StrList(v) => v,
            other => panic!("option '{name}' is {other:?}, not a string list"),
        }
    }
}
