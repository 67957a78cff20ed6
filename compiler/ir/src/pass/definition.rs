//! What a pass is: the [`Pass`] trait, its static description [`PassInfo`], and the [`PassRun`]
//! handle a pass receives for one run (its op, analyses, statistics, diagnostics).

use super::analysis::{Analysis, AnalysisManager};
use super::options::{OptionSpec, OptionValues};
use crate::diagnostics::Diagnostic;
use crate::ir::Op;
use crate::Context;
use crate::OpView;
use std::any::TypeId;

/// The ops a pass runs on.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Anchor {
    /// Any op (the pass is op-agnostic, like `cse`).
    Any,
    /// Ops of this name (`builtin.module`, `func.func`, a dialect's kernel op).
    Op(&'static str),
    /// Ops of any of these names (`simplify` works on kernels and on host functions). A flat
    /// pipeline nests such a pass in an `any(...)` pipeline, which runs on each op nested in the
    /// current one that all its passes accept (MLIR's op-agnostic `any` pass managers).
    OneOf(&'static [&'static str]),
}

impl Anchor {
    /// Ops of `T`'s kind: `Anchor::op::<KernelOp>()` (the op's type, never its name as a
    /// string).
    pub const fn op<T: OpView>() -> Anchor {
        Anchor::Op(T::NAME)
    }

    /// Whether a pass with this anchor may run on an op named `name`.
    pub fn accepts(&self, name: &str) -> bool {
        match self {
            Anchor::Any => true,
            Anchor::Op(a) => *a == name,
            Anchor::OneOf(names) => names.contains(&name),
        }
    }
}

/// The static description of a pass.
pub struct PassInfo {
    /// What users type: `cse`, `canonicalize`.
    pub argument: &'static str,
    /// One line, the first sentence of the pass's template doc (shown by `--list-passes`).
    pub summary: &'static str,
    /// The op the pass runs on.
    pub anchor: Anchor,
    /// Typed options with defaults and help.
    pub options: &'static [OptionSpec],
    /// Statistics the pass counts: (name, description).
    pub statistics: &'static [(&'static str, &'static str)],
    /// Builds a pass instance from validated option values.
    pub create: fn(&OptionValues) -> Result<Box<dyn Pass>, String>,
}

/// A transformation or analysis run over one op at a time.
///
/// A pass may change only the op it runs on and what is nested in it, keeps no state between
/// runs (`&self`), and may run on several ops concurrently.
pub trait Pass: Send + Sync {
    /// Runs on `run.op()`. An `Err` stops the pipeline; its diagnostic is reported.
    fn run(&self, ctx: &mut Context, run: &mut PassRun<'_>) -> Result<(), Diagnostic>;
}

/// What a pass gets for one run: the op, cached analyses, statistics and diagnostics.
pub struct PassRun<'a> {
    pub(crate) op: Op,
    /// See [`PassRun::is_nested`].
    pub(crate) nested: bool,
    pub(crate) info: &'static PassInfo,
    pub(crate) analyses: &'a mut AnalysisManager,
    pub(crate) statistics: &'a mut [u64],
    pub(crate) diagnostics: &'a mut Vec<Diagnostic>,
    pub(crate) preserved: Preserved,
}

/// Which analyses survive a pass.
#[derive(Clone, Debug, Default)]
pub(crate) enum Preserved {
    #[default]
    None,
    All,
    Some(Vec<TypeId>),
}

impl<'a> PassRun<'a> {
    /// The op this run is for.
    pub fn op(&self) -> Op {
        self.op
    }

    /// Whether the op is nested in another op of the IR the pipeline runs on. Ask this rather
    /// than for the op's parent: a pass on nested ops may run in a forked context, where the
    /// op is a root.
    pub fn is_nested(&self) -> bool {
        self.nested
    }

    /// Adds `n` to the statistic `name`, which the pass must declare in its info.
    pub fn add_stat(&mut self, name: &str, n: u64) {
        match self.info.statistics.iter().position(|(s, _)| *s == name) {
            Some(i) => self.statistics[i] += n,
            None => debug_assert!(
                false,
                "pass '{}' counts undeclared statistic '{name}'",
                self.info.argument
            ),
        }
    }

    /// Reports a warning or remark; errors go in the pass's `Err` result instead.
    pub fn emit(&mut self, diagnostic: Diagnostic) {
        self.diagnostics.push(diagnostic);
    }

    /// The analysis `A` of this run's op, computed now or taken from the cache.
    pub fn analysis<A: Analysis>(&mut self, ctx: &Context) -> &A {
        self.analyses.get::<A>(ctx, self.op)
    }

    /// Declares that the pass changed nothing any analysis depends on.
    pub fn preserve_all(&mut self) {
        self.preserved = Preserved::All;
    }

    /// Declares that analysis `A` is still valid after this pass.
    pub fn preserve<A: Analysis>(&mut self) {
        match &mut self.preserved {
            Preserved::All => {}
            Preserved::Some(list) => list.push(TypeId::of::<A>()),
            p @ Preserved::None => *p = Preserved::Some(vec![TypeId::of::<A>()]),
        }
    }
}
