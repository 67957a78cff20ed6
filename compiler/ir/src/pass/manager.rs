//! The pass manager: runs a tree of passes over the IR.
//!
//! An [`OpPassManager`] holds the passes for one kind of op; its nested managers run on the
//! ops of their anchor found directly in the regions of the op being processed, all of a nested
//! pipeline's passes on one op before the next op (as in MLIR). After each pass the op is
//! verified (unless turned off), analyses the pass did not preserve are dropped, and the
//! registered [`PassInstrumentation`]s are told.
//!
//! With threading on, a nested pipeline over several ops runs them in parallel (rayon): each op
//! is copied into a forked context (sharing interned types and attributes), transformed on a
//! worker thread, and copied back in order. Results, diagnostics and statistics do not depend on
//! the schedule, so output is byte-identical to `--disable-threading`.

use super::analysis::AnalysisManager;
use super::definition::{Anchor, Pass, PassInfo, PassRun, Preserved};
use super::options::OptionValues;
use crate::diagnostics::Diagnostic;
use crate::dialect::Traits;
use crate::ir::Op;
use crate::Context;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

/// Hooks called around every pass run (IR printing, timing, ...). With threading on they may be
/// called from worker threads (one call at a time), with the forked context of the op.
pub trait PassInstrumentation: Send {
    /// Before `pass` runs on `op`.
    fn before_pass(&mut self, _ctx: &Context, _pass: &PassInfo, _op: Op) {}
    /// After `pass` ran on `op` successfully (and the op verified).
    fn after_pass(&mut self, _ctx: &Context, _pass: &PassInfo, _op: Op) {}
    /// After `pass` failed on `op` (or left it invalid).
    fn after_pass_failed(&mut self, _ctx: &Context, _pass: &PassInfo, _op: Op) {}
    /// Before the pipeline anchored on `anchor` (`"any"` for an op-agnostic one) starts on `op`.
    fn before_pipeline(&mut self, _ctx: &Context, _anchor: &str, _op: Op) {}
    /// After that pipeline ended on `op`, whether it succeeded or failed.
    fn after_pipeline(&mut self, _ctx: &Context, _anchor: &str, _op: Op) {}
}

/// How the pass manager runs.
#[derive(Copy, Clone, Debug)]
pub struct PassManagerOptions {
    /// Verify the op after every pass (`--verify-each`, on by default).
    pub verify_each: bool,
    /// Run nested pipelines over several ops in parallel (off: `--disable-threading`).
    pub threading: bool,
}

impl Default for PassManagerOptions {
    fn default() -> Self {
        PassManagerOptions {
            verify_each: true,
            threading: true,
        }
    }
}

/// Why a pipeline stopped: the pass and its diagnostics.
#[derive(Debug)]
pub struct PipelineFailure {
    /// The argument of the pass that failed.
    pub pass: &'static str,
    pub diagnostics: Vec<Diagnostic>,
}

/// One pass instance in a pipeline, with its options and accumulated statistics.
pub(crate) struct PassEntry {
    pub(crate) info: &'static PassInfo,
    pass: Box<dyn Pass>,
    options: OptionValues,
    pub(crate) statistics: Vec<AtomicU64>,
}

impl PassEntry {
    pub(crate) fn new(info: &'static PassInfo, pass: Box<dyn Pass>, options: OptionValues) -> Self {
        PassEntry {
            info,
            pass,
            options,
            statistics: info.statistics.iter().map(|_| AtomicU64::new(0)).collect(),
        }
    }

    fn text(&self) -> String {
        if self.info.options.is_empty() {
            return self.info.argument.to_string();
        }
        let opts: Vec<String> = self
            .info
            .options
            .iter()
            .map(|o| {
                let v = OptionValues::text_of(&self.options, o.name);
                format!("{}={v}", o.name)
            })
            .collect();
        format!("{}{{{}}}", self.info.argument, opts.join(" "))
    }
}

pub(crate) enum Element {
    Pass(PassEntry),
    Nested(OpPassManager),
}

/// The passes for one kind of op (`None`: any op).
pub(crate) struct OpPassManager {
    pub(crate) anchor: Option<String>,
    pub(crate) elements: Vec<Element>,
    /// Ops this manager ran on, over all runs (to warn when a pipeline found nothing to do).
    ran_on: AtomicUsize,
}

impl OpPassManager {
    pub(crate) fn new(anchor: Option<String>) -> Self {
        OpPassManager {
            anchor,
            elements: Vec::new(),
            ran_on: AtomicUsize::new(0),
        }
    }

    fn text(&self) -> String {
        let inner: Vec<String> = self
            .elements
            .iter()
            .map(|e| match e {
                Element::Pass(p) => p.text(),
                Element::Nested(n) => n.text(),
            })
            .collect();
        format!(
            "{}({})",
            self.anchor.as_deref().unwrap_or("any"),
            inner.join(",")
        )
    }

    /// Whether this manager runs on any op (`any(...)`) rather than on ops of one name.
    pub(crate) fn is_any(&self) -> bool {
        matches!(self.anchor.as_deref(), None | Some("any"))
    }

    /// The ops this manager runs on, for messages: its anchor, or for an `any` manager whose
    /// passes accept only some op names, those names.
    fn target_description(&self) -> String {
        let mut names: Vec<&str> = Vec::new();
        for e in &self.elements {
            if let Element::Pass(p) = e {
                match p.info.anchor {
                    Anchor::Op(a) => names.push(a),
                    Anchor::OneOf(list) => names.extend(list),
                    Anchor::Any => {}
                }
            }
        }
        names.dedup();
        match self.anchor.as_deref() {
            Some(a) if !self.is_any() => a.to_string(),
            _ if names.is_empty() => "any".to_string(),
            _ => names.join("' or '"),
        }
    }

    /// Whether this manager runs on `op`: an op of its anchor, or for an `any` manager an op
    /// isolated from above that every one of its passes accepts (MLIR's `canScheduleOn`).
    fn matches(&self, ctx: &Context, op: Op) -> bool {
        match self.anchor.as_deref() {
            None | Some("any") => {
                let name = ctx.op_name(op);
                ctx.has_trait(op, Traits::ISOLATED_FROM_ABOVE)
                    && self.elements.iter().all(|e| match e {
                        Element::Pass(p) => p.info.anchor.accepts(name),
                        Element::Nested(_) => true,
                    })
            }
            Some(name) => ctx.op_name(op) == name,
        }
    }
}

/// A pipeline ready to run.
pub struct PassManager {
    pub(crate) root: OpPassManager,
    /// Run options.
    pub options: PassManagerOptions,
    instrumentations: Mutex<Vec<Box<dyn PassInstrumentation>>>,
}

/// Per-thread bookkeeping of a run.
struct RunState<'a> {
    options: PassManagerOptions,
    instrumentations: &'a Mutex<Vec<Box<dyn PassInstrumentation>>>,
    analyses: AnalysisManager,
    diagnostics: Vec<Diagnostic>,
    /// The root of a forked context whose op had a parent in the IR the pipeline runs on:
    /// nested there, though its parent is out of reach here.
    detached: Option<Op>,
}

impl RunState<'_> {
    fn instrument(&self, f: impl FnMut(&mut Box<dyn PassInstrumentation>)) {
        let mut list = self
            .instrumentations
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        list.iter_mut().for_each(f);
    }

    /// A fresh state for a worker thread (own analyses and diagnostics).
    fn fork(&self) -> Self {
        RunState {
            options: self.options,
            instrumentations: self.instrumentations,
            analyses: AnalysisManager::new(),
            diagnostics: Vec::new(),
            detached: None,
        }
    }
}

impl PassManager {
    pub(crate) fn from_root(root: OpPassManager) -> Self {
        PassManager {
            root,
            options: PassManagerOptions::default(),
            instrumentations: Mutex::new(Vec::new()),
        }
    }

    /// An empty pipeline on ops named `anchor`.
    pub fn new(anchor: &str) -> Self {
        Self::from_root(OpPassManager::new(Some(anchor.to_string())))
    }

    /// Adds an instrumentation; they are called in the order added.
    pub fn add_instrumentation(&mut self, instrumentation: Box<dyn PassInstrumentation>) {
        self.instrumentations
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .push(instrumentation);
    }

    /// The pipeline in MLIR's full textual form, every option spelled out.
    pub fn pipeline_text(&self) -> String {
        self.root.text()
    }

    /// True if the pipeline has no passes.
    pub fn is_empty(&self) -> bool {
        fn empty(pm: &OpPassManager) -> bool {
            pm.elements.iter().all(|e| match e {
                Element::Pass(_) => false,
                Element::Nested(n) => empty(n),
            })
        }
        empty(&self.root)
    }

    /// Runs the pipeline on `root`. On success, returns the warnings and remarks passes emitted
    /// (including one per nested pipeline that found no op to run on).
    pub fn run(&mut self, ctx: &mut Context, root: Op) -> Result<Vec<Diagnostic>, PipelineFailure> {
        self.run_shared(ctx, root)
    }

    /// [`PassManager::run`] through a shared reference, for a pass running a pipeline it holds
    /// (an option's [`super::NestedPipeline`]).
    pub(crate) fn run_shared(
        &self,
        ctx: &mut Context,
        root: Op,
    ) -> Result<Vec<Diagnostic>, PipelineFailure> {
        let mut state = RunState {
            options: self.options,
            instrumentations: &self.instrumentations,
            analyses: AnalysisManager::new(),
            diagnostics: Vec::new(),
            detached: None,
        };
        if !self.root.matches(ctx, root) && self.root.anchor.is_some() {
            let anchor = self.root.anchor.clone().unwrap_or_default();
            return Err(PipelineFailure {
                pass: "",
                diagnostics: vec![Diagnostic::error(
                    ctx.op_loc(root),
                    format!(
                        "pipeline anchored on '{anchor}' cannot run on '{}'",
                        ctx.op_name(root)
                    ),
                )],
            });
        }
        run_manager(&self.root, ctx, root, &mut state)?;
        let mut diagnostics = state.diagnostics;
        warn_unanchored(&self.root, ctx.op_loc(root), &mut diagnostics);
        Ok(diagnostics)
    }

    /// Statistics of every pass, as MLIR's `--mlir-pass-statistics` prints them.
    pub fn statistics_report(&self) -> String {
        let rule =
            "===-------------------------------------------------------------------------===";
        let mut out =
            format!("{rule}\n                         ... Pass statistics report ...\n{rule}\n");
        report(&self.root, 0, &mut out);
        out
    }
}

fn report(pm: &OpPassManager, depth: usize, out: &mut String) {
    let pad = "  ".repeat(depth);
    out.push_str(&format!(
        "{pad}'{}' Pipeline\n",
        pm.anchor.as_deref().unwrap_or("any")
    ));
    for e in &pm.elements {
        match e {
            Element::Pass(p) => {
                out.push_str(&format!("{pad}  {}\n", p.info.argument));
                for ((name, desc), n) in p.info.statistics.iter().zip(&p.statistics) {
                    let n = n.load(Ordering::Relaxed);
                    out.push_str(&format!("{pad}    (S) {n} {name} - {desc}\n"));
                }
            }
            Element::Nested(n) => report(n, depth + 1, out),
        }
    }
}

fn warn_unanchored(pm: &OpPassManager, loc: crate::Location, out: &mut Vec<Diagnostic>) {
    for e in &pm.elements {
        if let Element::Nested(n) = e {
            if n.ran_on.load(Ordering::Relaxed) == 0 {
                let passes: Vec<&str> = n
                    .elements
                    .iter()
                    .filter_map(|e| match e {
                        Element::Pass(p) => Some(p.info.argument),
                        Element::Nested(_) => None,
                    })
                    .collect();
                out.push(Diagnostic::warning(
                    loc,
                    format!(
                        "no '{}' op to run on: pass{} '{}' did nothing",
                        n.target_description(),
                        if passes.len() == 1 { "" } else { "es" },
                        passes.join("', '")
                    ),
                ));
            }
            warn_unanchored(n, loc, out);
        }
    }
}

fn run_manager(
    pm: &OpPassManager,
    ctx: &mut Context,
    op: Op,
    state: &mut RunState<'_>,
) -> Result<(), PipelineFailure> {
    pm.ran_on.fetch_add(1, Ordering::Relaxed);
    let anchor = pm.anchor.as_deref().unwrap_or("any");
    state.instrument(|i| i.before_pipeline(ctx, anchor, op));
    let result = run_elements(pm, ctx, op, state);
    state.instrument(|i| i.after_pipeline(ctx, anchor, op));
    result
}

fn run_elements(
    pm: &OpPassManager,
    ctx: &mut Context,
    op: Op,
    state: &mut RunState<'_>,
) -> Result<(), PipelineFailure> {
    for element in &pm.elements {
        match element {
            Element::Pass(entry) => run_pass(entry, ctx, op, state)?,
            Element::Nested(nested) => {
                let targets: Vec<Op> = ctx
                    .regions(op)
                    .iter()
                    .flat_map(|r| ctx.blocks(*r).iter())
                    .flat_map(|b| ctx.block_ops(*b))
                    .filter(|o| nested.matches(ctx, *o))
                    .collect();
                if let Some(&bad) = targets
                    .iter()
                    .find(|t| !ctx.has_trait(**t, Traits::ISOLATED_FROM_ABOVE))
                {
                    return Err(PipelineFailure {
                        pass: "",
                        diagnostics: vec![Diagnostic::error(
                            ctx.op_loc(bad),
                            format!("a nested pipeline cannot run on '{}': it is not isolated from above", ctx.op_name(bad)),
                        )],
                    });
                }
                if state.options.threading && targets.len() > 1 {
                    run_parallel(nested, ctx, &targets, state)?;
                } else {
                    for target in targets {
                        run_manager(nested, ctx, target, state)?;
                    }
                }
            }
        }
    }
    Ok(())
}

/// Runs `pm` on each target in its own forked context on the thread pool, then copies the
/// results back in target order. The first failure in target order wins; on failure nothing is
/// copied back.
fn run_parallel(
    pm: &OpPassManager,
    ctx: &mut Context,
    targets: &[Op],
    state: &mut RunState<'_>,
) -> Result<(), PipelineFailure> {
    // Each worker copies its target out of the parent itself: the parent is only read until
    // every worker is done, and the copies (a fifth of the time the workers then spend on
    // ppocr_det's kernels) run in parallel too.
    let source = &*ctx;
    let parent = &*state;
    let results: Vec<(Context, Op, Result<Vec<Diagnostic>, PipelineFailure>)> = targets
        .par_iter()
        .map(|&target| {
            let mut child = source.fork();
            let root = child.transplant_op(source, target);
            let mut local = parent.fork();
            local.detached = Some(root);
            let result = run_manager(pm, &mut child, root, &mut local).map(|()| local.diagnostics);
            (child, root, result)
        })
        .collect();
    let mut copied = Vec::with_capacity(results.len());
    for (child, root, result) in results {
        match result {
            Ok(diagnostics) => {
                state.diagnostics.extend(diagnostics);
                copied.push((child, root));
            }
            Err(failure) => return Err(failure),
        }
    }
    let mut children = Vec::with_capacity(copied.len());
    for (target, (child, root)) in targets.iter().zip(copied) {
        ctx.replace_body_from(*target, &child, root);
        children.push(child);
    }
    // Freeing the workers' contexts takes a few milliseconds on a model's kernels: another
    // thread does it while this one goes on.
    rayon::spawn(move || drop(children));
    Ok(())
}

fn run_pass(
    entry: &PassEntry,
    ctx: &mut Context,
    op: Op,
    state: &mut RunState<'_>,
) -> Result<(), PipelineFailure> {
    let info = entry.info;
    let _span = tracing::debug_span!("pass", name = info.argument).entered();
    state.instrument(|i| i.before_pass(ctx, info, op));
    let mut emitted = Vec::new();
    let mut statistics = vec![0u64; entry.statistics.len()];
    let mut run = PassRun {
        op,
        nested: ctx.parent_op(op).is_some() || state.detached == Some(op),
        info,
        analyses: &mut state.analyses,
        statistics: &mut statistics,
        diagnostics: &mut emitted,
        preserved: Preserved::None,
    };
    let result = entry.pass.run(ctx, &mut run);
    let preserved = std::mem::take(&mut run.preserved);
    state.analyses.invalidate(&preserved);
    state.diagnostics.append(&mut emitted);
    for (total, n) in entry.statistics.iter().zip(statistics) {
        total.fetch_add(n, Ordering::Relaxed);
    }
    let failure = match result {
        Err(d) => Some(d),
        Ok(()) if state.options.verify_each => crate::verify(ctx, op).err().map(|d| {
            d.with_note(
                ctx.op_loc(op),
                format!("the IR is invalid after pass '{}'", info.argument),
            )
        }),
        Ok(()) => None,
    };
    if let Some(d) = failure {
        state.instrument(|i| i.after_pass_failed(ctx, info, op));
        let mut diagnostics = std::mem::take(&mut state.diagnostics);
        diagnostics.push(d);
        return Err(PipelineFailure {
            pass: info.argument,
            diagnostics,
        });
    }
    state.instrument(|i| i.after_pass(ctx, info, op));
    Ok(())
}
