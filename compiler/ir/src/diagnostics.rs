//! Diagnostics: errors, warnings, notes and remarks attached to locations.
//!
//! Library code returns [`Diagnostic`] values; it never prints. Tools render them with
//! [`SourceMap::render`] as `file:line:col: error: message`, followed by the source line and a
//! caret, the way clang and mlir-opt do.

use crate::location::Location;
use crate::Context;
use std::fmt::Write;

/// How serious a diagnostic is.
#[derive(Copy, Clone, PartialEq, Eq, Debug, PartialOrd, Ord, Hash)]
pub enum Severity {
    Remark,
    Note,
    Warning,
    Error,
}

impl Severity {
    /// The word printed before the message.
    pub fn label(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
            Severity::Remark => "remark",
        }
    }
}

/// A message about a location, with attached notes.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub location: Location,
    pub message: String,
    pub notes: Vec<Diagnostic>,
}

impl Diagnostic {
    /// An error at `location`.
    pub fn error(location: Location, message: impl Into<String>) -> Self {
        Self {
            severity: Severity::Error,
            location,
            message: message.into(),
            notes: Vec::new(),
        }
    }

    /// A warning at `location`.
    pub fn warning(location: Location, message: impl Into<String>) -> Self {
        Self {
            severity: Severity::Warning,
            ..Self::error(location, message)
        }
    }

    /// A remark at `location`.
    pub fn remark(location: Location, message: impl Into<String>) -> Self {
        Self {
            severity: Severity::Remark,
            ..Self::error(location, message)
        }
    }

    /// Attaches a note pointing at `location`.
    pub fn with_note(mut self, location: Location, message: impl Into<String>) -> Self {
        let note = Diagnostic {
            severity: Severity::Note,
            location,
            message: message.into(),
            notes: Vec::new(),
        };
        self.notes.push(note);
        self
    }
}

/// The text of the files that locations point into, so diagnostics can quote source lines.
#[derive(Default)]
pub struct SourceMap {
    files: Vec<(String, String)>,
}

impl SourceMap {
    /// An empty map.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers the text of `name`.
    pub fn add(&mut self, name: &str, text: &str) {
        self.files.push((name.to_string(), text.to_string()));
    }

    fn line_text(&self, name: &str, line: u32) -> Option<&str> {
        let (_, text) = self.files.iter().find(|(n, _)| n == name)?;
        text.lines().nth(line.checked_sub(1)? as usize)
    }

    /// Renders `diag` and its notes as `file:line:col: severity: message`, each followed by the
    /// quoted source line and a caret when the text is known.
    pub fn render(&self, ctx: &Context, diag: &Diagnostic) -> String {
        let mut out = String::new();
        self.render_one(ctx, diag, &mut out);
        for note in &diag.notes {
            self.render_one(ctx, note, &mut out);
        }
        out
    }

    fn render_one(&self, ctx: &Context, diag: &Diagnostic, out: &mut String) {
        let label = diag.severity.label();
        match ctx.file_position(diag.location) {
            Some((file, line, col)) => {
                let file = ctx.ident_str(file);
                let _ = writeln!(out, "{file}:{line}:{col}: {label}: {}", diag.message);
                if let Some(text) = self.line_text(file, line) {
                    // Columns count bytes (as in MLIR); the caret goes under the character
                    // there, one pad character per character before it (tabs kept).
                    let mut end = (col.saturating_sub(1) as usize).min(text.len());
                    while !text.is_char_boundary(end) {
                        end -= 1;
                    }
                    let pad: String = text[..end]
                        .chars()
                        .map(|c| if c == '\t' { '\t' } else { ' ' })
                        .collect();
                    let _ = writeln!(out, "{text}\n{pad}^");
                }
            }
            None => {
                let _ = writeln!(out, "<unknown>: {label}: {}", diag.message);
            }
        }
    }
}
