//! The pass registry: which passes and named pipelines exist, and how pipeline text becomes a
//! [`PassManager`].

use super::definition::{Anchor, PassInfo};
use super::manager::{Element, OpPassManager, PassEntry, PassManager};
use super::options::{NestedPipeline, OptionKind, OptionValues};
use super::pipeline::{PipelineElement, PipelineError, PipelineSpec};
use std::sync::Arc;

/// A pipeline registered under a name, expanding to pipeline text (`cpu-default`).
#[derive(Clone, Debug)]
pub struct NamedPipeline {
    pub name: &'static str,
    pub summary: &'static str,
    /// Flat pipeline text it expands to.
    pub pipeline: &'static str,
}

/// The passes and named pipelines a tool knows.
#[derive(Default)]
pub struct PassRegistry {
    passes: Vec<&'static PassInfo>,
    pipelines: Vec<NamedPipeline>,
}

/// ` (did you mean 'x'?)` for the closest candidate within a small edit distance, else "".
pub(crate) fn did_you_mean(name: &str, candidates: &[&str]) -> String {
    let best = candidates
        .iter()
        .map(|c| (edit_distance(name, c), *c))
        .filter(|(d, c)| *d <= (c.len().max(name.len()) / 3).max(2))
        .min();
    best.map_or(String::new(), |(_, c)| format!(" (did you mean '{c}'?)"))
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for j in 0..b.len() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != b[j]))
                .min(row[j] + 1)
                .min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

impl PassRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers a pass; a second registration of the same argument replaces the first.
    pub fn register(&mut self, info: &'static PassInfo) {
        self.passes.retain(|p| p.argument != info.argument);
        self.passes.push(info);
    }

    /// Registers a named pipeline.
    pub fn register_pipeline(&mut self, pipeline: NamedPipeline) {
        self.pipelines.retain(|p| p.name != pipeline.name);
        self.pipelines.push(pipeline);
    }

    /// The pass registered as `argument`.
    pub fn pass(&self, argument: &str) -> Option<&'static PassInfo> {
        self.passes.iter().find(|p| p.argument == argument).copied()
    }

    /// All passes, sorted by argument.
    pub fn passes(&self) -> Vec<&'static PassInfo> {
        let mut v = self.passes.clone();
        v.sort_by_key(|p| p.argument);
        v
    }

    /// All named pipelines, sorted by name.
    pub fn pipelines(&self) -> Vec<&NamedPipeline> {
        let mut v: Vec<&NamedPipeline> = self.pipelines.iter().collect();
        v.sort_by_key(|p| p.name);
        v
    }

    /// True if `name` is a pass or a named pipeline.
    pub fn contains(&self, name: &str) -> bool {
        self.pass(name).is_some() || self.pipelines.iter().any(|p| p.name == name)
    }

    /// Builds a pass manager running `spec` on a root op named `root_anchor`.
    pub fn build(
        &self,
        spec: &PipelineSpec,
        root_anchor: &str,
    ) -> Result<PassManager, PipelineError> {
        let mut root = OpPassManager::new(Some(root_anchor.to_string()));
        match &spec.anchor {
            Some(anchor) if anchor != root_anchor => {
                return Err(PipelineError::new(
                    0,
                    format!(
                        "pipeline anchored on '{anchor}' cannot run on the root op '{root_anchor}'"
                    ),
                ));
            }
            Some(_) => self.add_elements(&mut root, &spec.elements, 0, false)?,
            None => self.add_elements(&mut root, &spec.elements, 0, true)?,
        }
        Ok(PassManager::from_root(root))
    }

    fn entry(
        &self,
        name: &str,
        options: &[(String, String)],
        col: usize,
        option_cols: &[usize],
    ) -> Result<PassEntry, PipelineError> {
        let info = self.pass(name).ok_or_else(|| self.unknown(name, col))?;
        let mut values = OptionValues::resolve(info.options, options).map_err(|(i, msg)| {
            PipelineError::new(
                option_cols.get(i).copied().unwrap_or(col),
                format!("pass '{name}': {msg}"),
            )
        })?;
        for spec in info.options {
            if !matches!(spec.kind, OptionKind::Pipeline(_) | OptionKind::OpPipelines) {
                continue;
            }
            // Columns of the nested text count from the value (just after `key=`); a default
            // points at the pass.
            let given = options.iter().position(|(k, _)| k == spec.name);
            let at = given
                .and_then(|i| option_cols.get(i))
                .map_or(col, |c| c + spec.name.len() + 1);
            let text = OptionValues::text_of(&values, spec.name);
            let nested = self.option_pipelines(spec.kind, &text).map_err(|e| {
                PipelineError::new(
                    if given.is_some() { at + e.col } else { col },
                    format!("pass '{name}': option '{}': {}", spec.name, e.message),
                )
            })?;
            values.set_pipelines(spec.name, nested);
        }
        let pass = (info.create)(&values)
            .map_err(|msg| PipelineError::new(col, format!("pass '{name}': {msg}")))?;
        Ok(PassEntry::new(info, pass, values))
    }

    /// Builds the text of a pipeline option: for [`OptionKind::Pipeline`] one pipeline on ops of
    /// its anchor (none for empty text), for [`OptionKind::OpPipelines`] one per `op(...)`
    /// element, each on the ops it names (empty ones dropped, as MLIR drops them).
    fn option_pipelines(
        &self,
        kind: OptionKind,
        text: &str,
    ) -> Result<Vec<NestedPipeline>, PipelineError> {
        let spec = super::parse_pipeline(text)?;
        let mut built = Vec::new();
        match kind {
            OptionKind::Pipeline(anchor) => {
                if !spec.elements.is_empty() {
                    built.push(NestedPipeline {
                        anchor: anchor.to_string(),
                        manager: Arc::new(self.build(&spec, anchor)?),
                    });
                }
            }
            _ => {
                // `a(x)` alone parses as a pipeline anchored on `a`; a list as elements.
                let elements = match spec.anchor {
                    Some(anchor) => vec![PipelineElement::Nested {
                        spec: PipelineSpec {
                            anchor: Some(anchor),
                            elements: spec.elements,
                        },
                        col: 0,
                    }],
                    None => spec.elements,
                };
                for element in elements {
                    let (spec, col) = match element {
                        PipelineElement::Nested { spec, col } => (spec, col),
                        PipelineElement::Pass { col, .. } => {
                            return Err(PipelineError::new(
                                col,
                                "expected a pipeline nested on an op, as 'op-name(pass,...)'",
                            ))
                        }
                    };
                    let anchor = spec.anchor.clone().unwrap_or_default();
                    if spec.elements.is_empty() {
                        continue;
                    }
                    let manager = self.build(&spec, &anchor).map_err(|e| {
                        PipelineError::new(if e.col == 0 { col } else { e.col }, e.message)
                    })?;
                    built.push(NestedPipeline {
                        anchor,
                        manager: Arc::new(manager),
                    });
                }
            }
        }
        Ok(built)
    }

    fn unknown(&self, name: &str, col: usize) -> PipelineError {
        let mut known: Vec<&str> = self.passes.iter().map(|p| p.argument).collect();
        known.extend(self.pipelines.iter().map(|p| p.name));
        PipelineError::new(
            col,
            format!(
                "unknown pass or pipeline '{name}'{}",
                did_you_mean(name, &known)
            ),
        )
    }

    /// Expands a named pipeline into its elements.
    fn expand(
        &self,
        name: &str,
        col: usize,
        depth: usize,
    ) -> Result<Option<Vec<PipelineElement>>, PipelineError> {
        let Some(named) = self.pipelines.iter().find(|p| p.name == name) else {
            return Ok(None);
        };
        if depth > 16 {
            return Err(PipelineError::new(
                col,
                format!("named pipeline '{name}' expands into itself"),
            ));
        }
        let spec = super::parse_pipeline(named.pipeline).map_err(|e| {
            PipelineError::new(
                col,
                format!(
                    "named pipeline '{name}' is malformed: {} (at {})",
                    e.message,
                    e.col + 1
                ),
            )
        })?;
        // Columns inside the expansion point at the name that was expanded.
        let mut elements = spec.elements;
        relocate(&mut elements, col);
        if let Some(anchor) = spec.anchor {
            elements = vec![PipelineElement::Nested {
                spec: PipelineSpec {
                    anchor: Some(anchor),
                    elements,
                },
                col,
            }];
        }
        Ok(Some(elements))
    }

    /// A nested pipeline element built into a manager of its own.
    fn nested_manager(&self, spec: &PipelineSpec, depth: usize) -> Result<Element, PipelineError> {
        let mut nested = OpPassManager::new(spec.anchor.clone());
        self.add_elements(&mut nested, &spec.elements, depth, false)?;
        Ok(Element::Nested(nested))
    }

    /// Expands `name` if it is a named pipeline; named pipelines take no options.
    fn expand_named(
        &self,
        name: &str,
        options: &[(String, String)],
        col: usize,
        depth: usize,
    ) -> Result<Option<Vec<PipelineElement>>, PipelineError> {
        let expanded = self.expand(name, col, depth)?;
        if expanded.is_some() && !options.is_empty() {
            return Err(PipelineError::new(
                col,
                format!("named pipeline '{name}' takes no options"),
            ));
        }
        Ok(expanded)
    }

    /// Adds pipeline elements to `pm`. In the flat form (`flat`) each pass goes where its
    /// anchor says, nested managers being created as needed; in the nested form a pass must fit
    /// the pipeline it is written in.
    fn add_elements(
        &self,
        pm: &mut OpPassManager,
        elements: &[PipelineElement],
        depth: usize,
        flat: bool,
    ) -> Result<(), PipelineError> {
        for e in elements {
            let PipelineElement::Pass {
                name,
                options,
                col,
                option_cols,
            } = e
            else {
                let PipelineElement::Nested { spec, .. } = e else {
                    unreachable!("two variants")
                };
                pm.elements.push(self.nested_manager(spec, depth)?);
                continue;
            };
            if let Some(expanded) = self.expand_named(name, options, *col, depth)? {
                self.add_elements(pm, &expanded, depth + 1, flat)?;
                continue;
            }
            let entry = self.entry(name, options, *col, option_cols)?;
            let here = pm.anchor.clone();
            match entry.info.anchor {
                Anchor::Op(a) if Some(a) != here.as_deref() && flat => {
                    let reuse = matches!(pm.elements.last(), Some(Element::Nested(n)) if n.anchor.as_deref() == Some(a));
                    if !reuse {
                        pm.elements
                            .push(Element::Nested(OpPassManager::new(Some(a.to_string()))));
                    }
                    let Some(Element::Nested(n)) = pm.elements.last_mut() else {
                        unreachable!("just pushed")
                    };
                    n.elements.push(Element::Pass(entry));
                }
                Anchor::Op(a) if Some(a) != here.as_deref() => {
                    let here = here.as_deref().unwrap_or("any");
                    return Err(PipelineError::new(
                        *col,
                        format!("pass '{name}' runs on '{a}' ops but is placed in a '{here}' pipeline; nest it as '{a}({name})'"),
                    ));
                }
                Anchor::OneOf(names)
                    if !pm.is_any() && !here.as_deref().is_some_and(|h| names.contains(&h)) =>
                {
                    if !flat {
                        let here = here.as_deref().unwrap_or("any");
                        return Err(PipelineError::new(
                            *col,
                            format!("pass '{name}' runs on '{}' ops but is placed in a '{here}' pipeline; nest it as 'any({name})'", names.join("' or '")),
                        ));
                    }
                    // Consecutive passes of the same anchor share one `any` pipeline; any
                    // other pass in it would narrow the ops it runs on.
                    let anchor = entry.info.anchor;
                    let reuse = matches!(pm.elements.last(), Some(Element::Nested(n))
                        if n.is_any() && n.elements.iter().all(|e| matches!(e, Element::Pass(p) if p.info.anchor == anchor)));
                    if !reuse {
                        pm.elements
                            .push(Element::Nested(OpPassManager::new(Some("any".to_string()))));
                    }
                    let Some(Element::Nested(n)) = pm.elements.last_mut() else {
                        unreachable!("just pushed")
                    };
                    n.elements.push(Element::Pass(entry));
                }
                _ => pm.elements.push(Element::Pass(entry)),
            }
        }
        Ok(())
    }
}

fn relocate(elements: &mut [PipelineElement], at: usize) {
    for e in elements {
        match e {
            PipelineElement::Pass {
                col, option_cols, ..
            } => {
                *col = at;
                option_cols.iter_mut().for_each(|c| *c = at);
            }
            PipelineElement::Nested { spec, col } => {
                *col = at;
                relocate(&mut spec.elements, at);
            }
        }
    }
}
