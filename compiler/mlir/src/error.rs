//! Export errors, before and after they are pinned to the dlc op that caused them.
//!
//! Helpers deep in the op walk know what went wrong but not which op they were converting; the
//! walk knows the op. A helper returns a bare message, and the walk turns it into a
//! [`Diagnostic`] at the op's location the first time it passes through, so an error inside a
//! loop body points at the inner op, not at the loop.

use dlc_ir::{Context, Diagnostic, Op};

/// An export failure: a message not yet placed, or a diagnostic with its location.
#[derive(Debug)]
pub(crate) enum ExportError {
    Message(String),
    Placed(Diagnostic),
}

/// The result type of the export's helpers.
pub(crate) type ExResult<T> = Result<T, ExportError>;

impl ExportError {
    /// The diagnostic, placed at `op` if it has no location yet.
    pub(crate) fn at(self, ctx: &Context, op: Op) -> Diagnostic {
        match self {
            ExportError::Message(m) => Diagnostic::error(ctx.op_loc(op), m),
            ExportError::Placed(d) => d,
        }
    }
}

impl From<String> for ExportError {
    fn from(m: String) -> Self {
        ExportError::Message(m)
    }
}

impl From<&str> for ExportError {
    fn from(m: &str) -> Self {
        ExportError::Message(m.to_string())
    }
}

impl From<melior::Error> for ExportError {
    fn from(e: melior::Error) -> Self {
        ExportError::Message(format!("MLIR rejected an operation: {e}"))
    }
}

impl From<Diagnostic> for ExportError {
    fn from(d: Diagnostic) -> Self {
        ExportError::Placed(d)
    }
}
