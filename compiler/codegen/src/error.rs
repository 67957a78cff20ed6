//! Code generation errors: a message that becomes a diagnostic at the op being lowered.
//!
//! Lowering code deep inside an op (a cast, an address computation) does not know which op it
//! serves, so it returns a bare [`CgError::Msg`]; the op walk turns it into a located
//! [`Diagnostic`] at the innermost op, and an error that already has a location passes through
//! the enclosing ops unchanged.

use dlc_ir::{Context, Diagnostic, Op};
use inkwell::builder::BuilderError;

/// An error while lowering: not yet located, or located at an op.
#[derive(Debug)]
pub(crate) enum CgError {
    Msg(String),
    At(Box<Diagnostic>),
}

impl CgError {
    /// Locates a bare message at `op`; a located error keeps its location.
    pub(crate) fn at(self, ctx: &Context, op: Op) -> CgError {
        match self {
            CgError::Msg(m) => CgError::At(Box::new(Diagnostic::error(ctx.op_loc(op), m))),
            located => located,
        }
    }

    /// The diagnostic, locating a bare message at `op`.
    pub(crate) fn into_diagnostic(self, ctx: &Context, op: Op) -> Diagnostic {
        match self {
            CgError::Msg(m) => Diagnostic::error(ctx.op_loc(op), m),
            CgError::At(d) => *d,
        }
    }
}

impl From<BuilderError> for CgError {
    fn from(e: BuilderError) -> Self {
        CgError::Msg(format!("LLVM builder error: {e}"))
    }
}

impl From<String> for CgError {
    fn from(m: String) -> Self {
        CgError::Msg(m)
    }
}

impl From<&str> for CgError {
    fn from(m: &str) -> Self {
        CgError::Msg(m.to_string())
    }
}

pub(crate) type CgResult<T> = Result<T, CgError>;
