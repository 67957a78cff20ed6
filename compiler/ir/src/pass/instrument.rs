//! Pass instrumentations: what a run can report besides its result, with mlir-opt's meanings.
//!
//! - [`IrPrinting`] prints the IR before and after passes (`--print-ir-before=cse`,
//!   `--print-ir-after-all`, `--print-ir-after-change`, ...).
//! - [`Timing`] times passes and nested pipelines (and whatever else a tool wants timed, such as
//!   parsing) and prints mlir-opt's execution time report, as a tree or a list.
//! - [`CrashReproducer`] writes the IR a failing pass started from, with a configuration line
//!   that replays the failure (`dlc-opt repro.mlir --run-reproducer`).
//!
//! With threading on, hooks come from worker threads, one call at a time, with the forked context
//! of the op they concern. [`IrPrinting`] and [`Timing`] keep their per-op state per thread and so
//! work either way (dumps then come in the order the threads ran). Module-scope printing and
//! reproducers need the whole module; tools turn threading off for them, as MLIR requires
//! `--mlir-disable-threading`.

use super::definition::PassInfo;
use super::manager::PassInstrumentation;
use super::pipeline::{parse_pipeline, PipelineElement, PipelineSpec};
use crate::ir::Op;
use crate::printer::{print_op, PrintOptions};
use crate::Context;
use rustc_hash::{FxHashMap, FxHashSet, FxHasher};
use std::hash::Hasher;
use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::ThreadId;
use std::time::{Duration, Instant};

/// The op a dump shows: the op itself, or with `module_scope` the top-level op around it.
fn scope_op(ctx: &Context, op: Op, module_scope: bool) -> Op {
    let mut top = op;
    if module_scope {
        while let Some(parent) = ctx.parent_op(top) {
            top = parent;
        }
    }
    top
}

/// `'func.func' operation: @f`: how MLIR names the op a pass ran on.
fn describe_op(ctx: &Context, op: Op) -> String {
    match crate::symbol::symbol_name(ctx, op) {
        Some(name) => format!("'{}' operation: @{name}", ctx.op_name(op)),
        None => format!("'{}' operation", ctx.op_name(op)),
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

// ---------------------------------------------------------------------------------------------
// IR printing

/// When to print the IR around passes (mlir-opt's `--mlir-print-ir-*` flags).
#[derive(Clone, Debug, Default)]
pub struct IrPrintConfig {
    /// Print before the passes with these arguments (`--print-ir-before=cse,dce`).
    pub before: Vec<String>,
    /// Print after the passes with these arguments.
    pub after: Vec<String>,
    /// Print before every pass.
    pub before_all: bool,
    /// Print after every pass.
    pub after_all: bool,
    /// Of the "after" dumps, print only those where the pass changed the IR (compared by a hash
    /// of the printed op, locations included).
    pub after_change: bool,
    /// Print after a pass fails; successful passes are then not printed after (as in MLIR).
    pub after_failure: bool,
    /// Print the whole top-level op (the module) instead of the op the pass ran on.
    pub module_scope: bool,
    /// How to print the IR.
    pub print: PrintOptions,
}

impl IrPrintConfig {
    /// True if the config asks for any dump.
    pub fn is_enabled(&self) -> bool {
        self.before_all
            || self.after_all
            || self.after_failure
            || !self.before.is_empty()
            || !self.after.is_empty()
    }

    fn before(&self, pass: &str) -> bool {
        self.before_all || self.before.iter().any(|p| p == pass)
    }

    fn after(&self, pass: &str) -> bool {
        self.after_all || self.after_failure || self.after.iter().any(|p| p == pass)
    }
}

/// Prints the IR around passes, in mlir-opt's format:
/// `// -----// IR Dump After cse (cse) //----- //`, then the op, then a blank line.
///
/// mlir-opt shows a pass's class name and then its argument; a dlc pass has only its argument,
/// so it appears twice.
pub struct IrPrinting {
    config: IrPrintConfig,
    out: Box<dyn Write + Send>,
    /// Hash of each op before the running pass, for `after_change` (per thread: a thread runs
    /// one pass at a time).
    hashes: FxHashMap<(ThreadId, Op), u64>,
}

impl IrPrinting {
    /// Prints to standard error, like mlir-opt.
    pub fn new(config: IrPrintConfig) -> Self {
        Self::to_writer(config, Box::new(std::io::stderr()))
    }

    /// Prints to `out`.
    pub fn to_writer(config: IrPrintConfig, out: Box<dyn Write + Send>) -> Self {
        IrPrinting {
            config,
            out,
            hashes: FxHashMap::default(),
        }
    }

    fn fingerprint(ctx: &Context, op: Op) -> u64 {
        let options = PrintOptions {
            generic: true,
            debuginfo: true,
        };
        let mut h = FxHasher::default();
        h.write(print_op(ctx, op, options).as_bytes());
        h.finish()
    }

    fn dump(&mut self, ctx: &Context, when: &str, pass: &PassInfo, op: Op) {
        let mut text = format!("// -----// IR Dump {when} ({})", pass.argument);
        if self.config.module_scope {
            text.push_str(&format!(" ({})", describe_op(ctx, op)));
        }
        text.push_str(" //----- //\n");
        let shown = scope_op(ctx, op, self.config.module_scope);
        text.push_str(&print_op(ctx, shown, self.config.print));
        text.push_str("\n\n");
        // A dump is one write, so dumps from different threads do not interleave.
        let _ = self.out.write_all(text.as_bytes());
        let _ = self.out.flush();
    }
}

impl PassInstrumentation for IrPrinting {
    fn before_pass(&mut self, ctx: &Context, pass: &PassInfo, op: Op) {
        if self.config.after_change && self.config.after(pass.argument) {
            let key = (std::thread::current().id(), op);
            self.hashes.insert(key, Self::fingerprint(ctx, op));
        }
        if self.config.before(pass.argument) {
            self.dump(ctx, &format!("Before {}", pass.argument), pass, op);
        }
    }

    fn after_pass(&mut self, ctx: &Context, pass: &PassInfo, op: Op) {
        let before = self.hashes.remove(&(std::thread::current().id(), op));
        if !self.config.after(pass.argument) || self.config.after_failure {
            return;
        }
        if self.config.after_change && before == Some(Self::fingerprint(ctx, op)) {
            return;
        }
        self.dump(ctx, &format!("After {}", pass.argument), pass, op);
    }

    fn after_pass_failed(&mut self, ctx: &Context, pass: &PassInfo, op: Op) {
        self.hashes.remove(&(std::thread::current().id(), op));
        if self.config.after(pass.argument) {
            self.dump(ctx, &format!("After {} Failed", pass.argument), pass, op);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Timing

/// How the execution time report is laid out (`--timing-display`).
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum TimingDisplay {
    /// Every timer once, times of the same name added up, slowest first.
    List,
    /// Timers nested as the pipeline is (passes inside their `'func.func' Pipeline`).
    #[default]
    Tree,
}

/// Wall-clock timers in a tree, shared by a tool and its pass manager's instrumentation.
///
/// Passes and nested pipelines are timed by [`Timing::instrumentation`]; a tool times its own
/// phases with [`Timing::start`] (`Parser`, `Output`). [`Timing::report`] prints mlir-opt's
/// execution time report. With threading on, a timer's user time adds up the time of every
/// thread and its wall time counts overlapping runs once; the report then shows both, as MLIR
/// does.
#[derive(Clone)]
pub struct Timing {
    state: Arc<Mutex<TimingState>>,
}

struct TimerNode {
    name: String,
    children: Vec<usize>,
    user: Duration,
    wall: Duration,
    /// Threads running this timer now, and since when it has been running without a gap.
    active: usize,
    busy_since: Option<Instant>,
}

impl TimerNode {
    fn new(name: &str) -> Self {
        TimerNode {
            name: name.to_string(),
            children: Vec::new(),
            user: Duration::ZERO,
            wall: Duration::ZERO,
            active: 0,
            busy_since: None,
        }
    }
}

/// An open timer on one thread's stack.
struct TimerFrame {
    node: usize,
    started: Instant,
    /// Set for pipelines: the op they run on and the address of its context, to recognise a
    /// nested pipeline of it on the same thread.
    pipeline: Option<(Op, usize)>,
    /// Passes run so far in this pipeline: tells apart two instances of a pass.
    passes_run: usize,
    /// False for the root pipeline, whose passes show at the top level (as in mlir-opt).
    owns_node: bool,
}

impl TimerFrame {
    fn new(node: usize) -> Self {
        TimerFrame {
            node,
            started: Instant::now(),
            pipeline: None,
            passes_run: 0,
            owns_node: true,
        }
    }
}

struct TimingState {
    start: Instant,
    nodes: Vec<TimerNode>,
    /// (parent, ordinal, name) → node.
    index: FxHashMap<(usize, usize, String), usize>,
    stacks: FxHashMap<ThreadId, Vec<TimerFrame>>,
    /// The thread running the root pipeline, whose open pipeline is the parent of pipelines that
    /// start on worker threads.
    root_thread: Option<ThreadId>,
    threads: FxHashSet<ThreadId>,
}

impl TimingState {
    fn node(&mut self, parent: usize, ordinal: usize, name: &str) -> usize {
        let key = (parent, ordinal, name.to_string());
        if let Some(&n) = self.index.get(&key) {
            return n;
        }
        let n = self.nodes.len();
        self.nodes.push(TimerNode::new(name));
        self.nodes[parent].children.push(n);
        self.index.insert(key, n);
        n
    }

    fn push(&mut self, thread: ThreadId, frame: TimerFrame) {
        if frame.owns_node {
            let node = &mut self.nodes[frame.node];
            if node.active == 0 {
                node.busy_since = Some(frame.started);
            }
            node.active += 1;
        }
        self.threads.insert(thread);
        self.stacks.entry(thread).or_default().push(frame);
    }

    fn pop(&mut self, thread: ThreadId) {
        let Some(frame) = self.stacks.get_mut(&thread).and_then(Vec::pop) else {
            return;
        };
        if !frame.owns_node {
            return;
        }
        let now = Instant::now();
        let node = &mut self.nodes[frame.node];
        node.user += now - frame.started;
        node.active = node.active.saturating_sub(1);
        if node.active == 0 {
            if let Some(since) = node.busy_since.take() {
                node.wall += now - since;
            }
        }
    }

    fn top(&self, thread: ThreadId) -> Option<&TimerFrame> {
        self.stacks.get(&thread).and_then(|s| s.last())
    }

    fn root_running(&self) -> bool {
        self.root_thread
            .and_then(|t| self.stacks.get(&t))
            .is_some_and(|s| s.iter().any(|f| f.pipeline.is_some()))
    }
}

/// A timer started by [`Timing::start`]; stops when dropped.
pub struct TimerGuard {
    timing: Timing,
    thread: ThreadId,
}

impl Drop for TimerGuard {
    fn drop(&mut self) {
        lock(&self.timing.state).pop(self.thread);
    }
}

const RULE: &str =
    "===-------------------------------------------------------------------------===";

/// A report row: user time, wall time, depth, name.
type Row = (Duration, Duration, usize, String);

impl Default for Timing {
    fn default() -> Self {
        Self::new()
    }
}

impl Timing {
    /// Starts the clock of the report's total time.
    pub fn new() -> Self {
        Timing {
            state: Arc::new(Mutex::new(TimingState {
                start: Instant::now(),
                nodes: vec![TimerNode::new("")],
                index: FxHashMap::default(),
                stacks: FxHashMap::default(),
                root_thread: None,
                threads: FxHashSet::default(),
            })),
        }
    }

    /// Times `name` (nested in whatever this thread is timing) until the guard is dropped.
    pub fn start(&self, name: &str) -> TimerGuard {
        let thread = std::thread::current().id();
        let mut s = lock(&self.state);
        let parent = s.top(thread).map_or(0, |f| f.node);
        let node = s.node(parent, usize::MAX, name);
        s.push(thread, TimerFrame::new(node));
        TimerGuard {
            timing: self.clone(),
            thread,
        }
    }

    /// The instrumentation that times passes and pipelines into this report.
    pub fn instrumentation(&self) -> Box<dyn PassInstrumentation> {
        Box::new(PassTiming {
            timing: self.clone(),
        })
    }

    /// The execution time report, as mlir-opt's `--mlir-timing` prints it.
    pub fn report(&self, display: TimingDisplay) -> String {
        let s = lock(&self.state);
        let total = s.start.elapsed();
        let show_user = s.threads.len() > 1;
        let mut rows: Vec<Row> = Vec::new();
        match display {
            TimingDisplay::Tree => {
                fn walk(s: &TimingState, n: usize, depth: usize, rows: &mut Vec<Row>) {
                    for &c in &s.nodes[n].children {
                        let node = &s.nodes[c];
                        rows.push((node.user, node.wall, depth, node.name.clone()));
                        walk(s, c, depth + 1, rows);
                    }
                }
                walk(&s, 0, 0, &mut rows);
            }
            TimingDisplay::List => {
                for node in &s.nodes[1..] {
                    match rows.iter_mut().find(|r| r.3 == node.name) {
                        Some(r) => {
                            r.0 += node.user;
                            r.1 += node.wall;
                        }
                        None => rows.push((node.user, node.wall, 0, node.name.clone())),
                    }
                }
                rows.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.3.cmp(&b.3)));
            }
        }
        let top: Vec<&TimerNode> = s.nodes[0].children.iter().map(|&c| &s.nodes[c]).collect();
        let rest = total.saturating_sub(top.iter().map(|n| n.wall).sum());
        let user_total = top.iter().map(|n| n.user).sum::<Duration>() + rest;
        rows.push((rest, rest, 0, "Rest".into()));
        rows.push((user_total, total, 0, "Total".into()));

        let mut out =
            format!("{RULE}\n                         ... Execution time report ...\n{RULE}\n");
        out.push_str(&format!(
            "  Total Execution Time: {:.4} seconds\n\n",
            total.as_secs_f64()
        ));
        let column = |d: Duration, of: Duration| {
            let pct = if of.is_zero() {
                0.0
            } else {
                100.0 * d.as_secs_f64() / of.as_secs_f64()
            };
            format!("{:>10.4} ({pct:>5.1}%)", d.as_secs_f64())
        };
        if show_user {
            out.push_str("  ----User Time----  ----Wall Time----  ----Name----\n");
        } else {
            out.push_str("  ----Wall Time----  ----Name----\n");
        }
        for (user, wall, depth, name) in rows {
            if show_user {
                out.push_str(&column(user, user_total));
            }
            out.push_str(&column(wall, total));
            out.push_str(&format!("  {}{name}\n", "  ".repeat(depth)));
        }
        out
    }
}

/// The pass-manager side of [`Timing`].
struct PassTiming {
    timing: Timing,
}

impl PassInstrumentation for PassTiming {
    fn before_pipeline(&mut self, ctx: &Context, anchor: &str, op: Op) {
        let thread = std::thread::current().id();
        let ctx_id = ctx as *const Context as usize;
        let mut s = lock(&self.timing.state);
        // The parent: the pipeline this thread is in when `op` is nested in its op (a serial
        // run); otherwise (a worker thread's forked op) the pipeline the root thread waits in.
        // Keyed by how many passes of the parent ran before, so that
        // `func.func(a),b,func.func(c)` shows two pipelines.
        let key = |f: &TimerFrame| (f.node, f.passes_run);
        let nested_here = s.top(thread).is_some_and(|f| {
            f.pipeline.is_some_and(|(parent_op, parent_ctx)| {
                parent_ctx == ctx_id && ctx.parent_op(op) == Some(parent_op)
            })
        });
        let parent = if nested_here {
            s.top(thread).map(key)
        } else if s.root_running() && s.root_thread != Some(thread) {
            s.root_thread.and_then(|t| s.top(t)).map(key)
        } else if s.root_running() {
            s.top(thread).map(key)
        } else {
            None
        };
        let mut frame = match parent {
            Some((parent, ordinal)) => {
                TimerFrame::new(s.node(parent, ordinal, &format!("'{anchor}' Pipeline")))
            }
            None => {
                // The root pipeline: its passes show at the level of whatever the tool timed
                // around the run.
                s.root_thread = Some(thread);
                let mut frame = TimerFrame::new(s.top(thread).map_or(0, |f| f.node));
                frame.owns_node = false;
                frame
            }
        };
        frame.pipeline = Some((op, ctx_id));
        s.push(thread, frame);
    }

    fn after_pipeline(&mut self, _ctx: &Context, _anchor: &str, _op: Op) {
        lock(&self.timing.state).pop(std::thread::current().id());
    }

    fn before_pass(&mut self, _ctx: &Context, pass: &PassInfo, _op: Op) {
        let thread = std::thread::current().id();
        let mut s = lock(&self.timing.state);
        let (parent, ordinal) = match s.stacks.get_mut(&thread).and_then(|st| st.last_mut()) {
            Some(f) => {
                f.passes_run += 1;
                (f.node, f.passes_run - 1)
            }
            None => (0, 0),
        };
        let node = s.node(parent, ordinal, pass.argument);
        s.push(thread, TimerFrame::new(node));
    }

    fn after_pass(&mut self, _ctx: &Context, _pass: &PassInfo, _op: Op) {
        lock(&self.timing.state).pop(std::thread::current().id());
    }

    fn after_pass_failed(&mut self, _ctx: &Context, _pass: &PassInfo, _op: Op) {
        lock(&self.timing.state).pop(std::thread::current().id());
    }
}

// ---------------------------------------------------------------------------------------------
// Crash reproducers

/// The configuration line of a reproducer starts with this.
pub const REPRODUCER_CONFIGURATION: &str = "// configuration:";

/// Where to write a reproducer and what to put in its configuration line.
#[derive(Clone, Debug)]
pub struct ReproducerConfig {
    /// The file to write.
    pub path: PathBuf,
    /// The whole pipeline being run ([`super::PassManager::pipeline_text`]).
    pub pipeline: String,
    /// Tool flags to replay with, besides the pipeline (`--verify-each=true`).
    pub flags: Vec<String>,
}

/// Writes a reproducer when a pipeline fails: the module as it was before the failing pass, and
/// a configuration line that runs just that pass, nested as it was
/// (`--pass-pipeline='builtin.module(func.func(cse))'`), so that
/// `dlc-opt repro.mlir --run-reproducer` fails the same way (mlir-opt's "local" reproducer).
///
/// The module is printed before every pass, so this costs a print per pass, and it needs a
/// serial run (see the module doc). When the failure is not in a pass it saw (an error outside
/// passes, or a pass on a worker thread), [`CrashReproducer::write_for_failed_run`] writes the
/// module as it was before the whole pipeline, with the whole pipeline.
#[derive(Clone)]
pub struct CrashReproducer {
    state: Arc<Mutex<ReproducerState>>,
}

/// A module snapshot, the pipeline that replays from it, and what was running.
type Snapshot = (String, String, String);

struct ReproducerState {
    config: ReproducerConfig,
    spec: Option<PipelineSpec>,
    thread: Option<ThreadId>,
    frames: Vec<ReproducerFrame>,
    /// The module before the run.
    initial: Option<String>,
    /// The module before the running pass.
    pending: Option<Snapshot>,
    /// The note about the reproducer written in this run.
    written: Option<String>,
}

/// Where the run is in the pipeline text, to find the options of the failing pass.
struct ReproducerFrame {
    anchor: String,
    /// Indices of nested elements from the root spec to this pipeline (`None`: lost track).
    path: Option<Vec<usize>>,
    /// The next element that can run.
    cursor: usize,
    /// The nested pipeline last entered and the ops it ran on.
    nested: Option<(usize, FxHashSet<Op>)>,
}

fn spec_at<'a>(root: &'a PipelineSpec, path: &[usize]) -> Option<&'a PipelineSpec> {
    let mut spec = root;
    for &i in path {
        match spec.elements.get(i) {
            Some(PipelineElement::Nested { spec: s, .. }) => spec = s,
            _ => return None,
        }
    }
    Some(spec)
}

fn element_text(e: &PipelineElement) -> Option<String> {
    match e {
        PipelineElement::Pass { name, options, .. } if options.is_empty() => Some(name.clone()),
        PipelineElement::Pass { name, options, .. } => {
            let opts: Vec<String> = options.iter().map(|(k, v)| format!("{k}={v}")).collect();
            Some(format!("{name}{{{}}}", opts.join(" ")))
        }
        PipelineElement::Nested { .. } => None,
    }
}

/// Quotes `s` for a POSIX shell (and for [`parse_reproducer_configuration`]).
fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

impl CrashReproducer {
    /// A reproducer writer for `config`.
    pub fn new(config: ReproducerConfig) -> Self {
        let spec = parse_pipeline(&config.pipeline).ok();
        CrashReproducer {
            state: Arc::new(Mutex::new(ReproducerState {
                config,
                spec,
                thread: None,
                frames: Vec::new(),
                initial: None,
                pending: None,
                written: None,
            })),
        }
    }

    /// The instrumentation that snapshots the module and writes the reproducer on failure.
    pub fn instrumentation(&self) -> Box<dyn PassInstrumentation> {
        Box::new(self.clone())
    }

    /// After a run failed (or panicked): writes a reproducer unless the failing pass already did,
    /// and returns the note to show (`None` if the run never started).
    pub fn write_for_failed_run(&self) -> std::io::Result<Option<String>> {
        let mut s = lock(&self.state);
        if let Some(note) = s.written.take() {
            return Ok(Some(note));
        }
        let (module, pipeline, what) = match s.pending.take() {
            Some(p) => p,
            None => match s.initial.clone() {
                Some(m) => (m, s.config.pipeline.clone(), "the pipeline".to_string()),
                None => return Ok(None),
            },
        };
        s.write(&module, &pipeline, &what).map(Some)
    }
}

impl ReproducerState {
    fn write(&mut self, module: &str, pipeline: &str, what: &str) -> std::io::Result<String> {
        let mut config = format!("--pass-pipeline={}", shell_quote(pipeline));
        for flag in &self.config.flags {
            config.push(' ');
            config.push_str(flag);
        }
        let text = format!(
            "// dlc crash reproducer: {what} failed.\n\
             // Replay it with `dlc-opt <this file> --run-reproducer`.\n\
             {REPRODUCER_CONFIGURATION} {config}\n\
             // full pipeline: {}\n\
             {module}\n",
            self.config.pipeline
        );
        std::fs::write(&self.config.path, text)?;
        let note = format!(
            "pipeline failed while executing {what}: reproducer generated at '{}'",
            self.config.path.display()
        );
        self.written = Some(note.clone());
        Ok(note)
    }

    fn snapshot(ctx: &Context, op: Op) -> String {
        let options = PrintOptions {
            generic: false,
            debuginfo: true,
        };
        print_op(ctx, scope_op(ctx, op, true), options)
    }

    /// The text of the element `argument` runs as in the current pipeline, and moves past it.
    fn next_pass(&mut self, argument: &str) -> Option<String> {
        let frame = self.frames.last_mut()?;
        let spec = spec_at(self.spec.as_ref()?, frame.path.as_ref()?)?;
        let (i, e) =
            spec.elements.iter().enumerate().skip(frame.cursor).find(
                |(_, e)| matches!(e, PipelineElement::Pass { name, .. } if name == argument),
            )?;
        frame.cursor = i + 1;
        frame.nested = None;
        element_text(e)
    }

    /// The path of the nested pipeline anchored on `anchor` entered for `op`.
    fn enter_nested(&mut self, anchor: &str, op: Op) -> Option<Vec<usize>> {
        let frame = self.frames.last_mut()?;
        let path = frame.path.clone()?;
        let spec = spec_at(self.spec.as_ref()?, &path)?;
        let is_anchor = |i: usize| {
            matches!(spec.elements.get(i), Some(PipelineElement::Nested { spec, .. })
                if spec.anchor.as_deref().unwrap_or("any") == anchor)
        };
        // The same nested pipeline on its next op, or the next nested pipeline.
        let same = match &mut frame.nested {
            Some((i, seen)) if is_anchor(*i) && !seen.contains(&op) => {
                seen.insert(op);
                Some(*i)
            }
            _ => None,
        };
        let index = match same {
            Some(i) => i,
            None => {
                let from = frame.nested.as_ref().map_or(frame.cursor, |(i, _)| i + 1);
                let i = (from.max(frame.cursor)..spec.elements.len()).find(|&i| is_anchor(i))?;
                frame.nested = Some((i, FxHashSet::from_iter([op])));
                frame.cursor = i;
                i
            }
        };
        let mut path = path;
        path.push(index);
        Some(path)
    }
}

impl PassInstrumentation for CrashReproducer {
    fn before_pipeline(&mut self, ctx: &Context, anchor: &str, op: Op) {
        let mut s = lock(&self.state);
        let thread = std::thread::current().id();
        if s.frames.is_empty() {
            // A new run.
            s.thread = Some(thread);
            s.initial = Some(ReproducerState::snapshot(ctx, op));
            s.pending = None;
            s.written = None;
            s.frames.push(ReproducerFrame {
                anchor: anchor.to_string(),
                path: Some(Vec::new()),
                cursor: 0,
                nested: None,
            });
            return;
        }
        if s.thread != Some(thread) {
            return;
        }
        let path = s.enter_nested(anchor, op);
        s.frames.push(ReproducerFrame {
            anchor: anchor.to_string(),
            path,
            cursor: 0,
            nested: None,
        });
    }

    fn after_pipeline(&mut self, _ctx: &Context, _anchor: &str, _op: Op) {
        let mut s = lock(&self.state);
        if s.thread == Some(std::thread::current().id()) {
            s.frames.pop();
        }
    }

    fn before_pass(&mut self, ctx: &Context, pass: &PassInfo, op: Op) {
        let mut s = lock(&self.state);
        if s.thread != Some(std::thread::current().id()) || s.frames.is_empty() {
            return;
        }
        let mut pipeline = s
            .next_pass(pass.argument)
            .unwrap_or_else(|| pass.argument.to_string());
        for f in s.frames.iter().rev() {
            pipeline = format!("{}({pipeline})", f.anchor);
        }
        let what = format!("`{}` on {}", pass.argument, describe_op(ctx, op));
        s.pending = Some((ReproducerState::snapshot(ctx, op), pipeline, what));
    }

    fn after_pass(&mut self, _ctx: &Context, _pass: &PassInfo, _op: Op) {
        lock(&self.state).pending = None;
    }

    fn after_pass_failed(&mut self, _ctx: &Context, _pass: &PassInfo, _op: Op) {
        let mut s = lock(&self.state);
        if let Some((module, pipeline, what)) = s.pending.take() {
            // A failure to write is reported by `write_for_failed_run`, which tries again.
            if s.write(&module, &pipeline, &what).is_err() {
                s.pending = Some((module, pipeline, what));
                s.written = None;
            }
        }
    }
}

/// The flags in a reproducer's configuration line, split as a shell would
/// (`--pass-pipeline='builtin.module(cse)' --verify-each=true` gives two), or `None` if `text`
/// has no such line.
pub fn parse_reproducer_configuration(text: &str) -> Option<Vec<String>> {
    let line = text
        .lines()
        .find_map(|l| l.trim_start().strip_prefix(REPRODUCER_CONFIGURATION))?;
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    word.push(c);
                }
            }
            '"' => {
                in_word = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => word.extend(chars.next()),
                        c => word.push(c),
                    }
                }
            }
            '\\' => {
                in_word = true;
                word.extend(chars.next());
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Some(words)
}
