//! Pipeline text: the flat form (`cse,canonicalize{max-iterations=4}`) and MLIR's nested form
//! (`builtin.module(func.func(cse,canonicalize{max-iterations=4 top-down=false}))`).
//!
//! Parsing gives a [`PipelineSpec`]: names and raw option text with their columns, so that the
//! registry can later report an unknown pass or a bad option value at the right place.

/// A parsed pipeline: an optional anchor op and its elements.
#[derive(Clone, Debug, PartialEq)]
pub struct PipelineSpec {
    /// `Some("builtin.module")` for `builtin.module(...)`; `None` for a flat list.
    pub anchor: Option<String>,
    pub elements: Vec<PipelineElement>,
}

/// One entry of a pipeline.
#[derive(Clone, Debug, PartialEq)]
pub enum PipelineElement {
    /// A pass or named pipeline with `key=value` options; `col` is its 0-based byte offset.
    Pass {
        name: String,
        options: Vec<(String, String)>,
        col: usize,
        option_cols: Vec<usize>,
    },
    /// A nested pipeline on ops named by its anchor.
    Nested { spec: PipelineSpec, col: usize },
}

/// A syntax or resolution error in pipeline text, at a 0-based byte offset.
#[derive(Clone, Debug, PartialEq)]
pub struct PipelineError {
    pub col: usize,
    pub message: String,
}

impl PipelineError {
    pub(crate) fn new(col: usize, message: impl Into<String>) -> Self {
        PipelineError {
            col,
            message: message.into(),
        }
    }

    /// `text` followed by a caret under the error and the message, for a terminal.
    pub fn render(&self, flag: &str, text: &str) -> String {
        format!(
            "{flag}:{}: error: {}\n{text}\n{}^\n",
            self.col + 1,
            self.message,
            " ".repeat(self.col.min(text.len()))
        )
    }
}

/// Parses pipeline text. A text that is one `anchor(...)` is a nested pipeline; anything else
/// is a flat list.
pub fn parse_pipeline(text: &str) -> Result<PipelineSpec, PipelineError> {
    let mut p = Cursor { text, pos: 0 };
    let elements = p.elements()?;
    p.skip_ws();
    if p.pos < text.len() {
        return Err(match &text[p.pos..p.pos + 1] {
            ")" => PipelineError::new(p.pos, "unbalanced ')' in pipeline"),
            _ => PipelineError::new(p.pos, "expected ',' between pipeline elements"),
        });
    }
    if let [PipelineElement::Nested { spec, .. }] = &elements[..] {
        return Ok(spec.clone());
    }
    Ok(PipelineSpec {
        anchor: None,
        elements,
    })
}

/// `key=value` pairs and the column of each key.
type ParsedOptions = (Vec<(String, String)>, Vec<usize>);

struct Cursor<'a> {
    text: &'a str,
    pos: usize,
}

fn is_name_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.')
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(|c| c.is_ascii_whitespace()) {
            self.pos += 1;
        }
    }

    fn name(&mut self) -> Result<(String, usize), PipelineError> {
        self.skip_ws();
        let start = self.pos;
        while self.peek().is_some_and(is_name_char) {
            self.pos += 1;
        }
        if start == self.pos {
            let what = match self.peek() {
                None => "expected a pass name, found end of pipeline".to_string(),
                Some(c) => format!("expected a pass name, found '{}'", c as char),
            };
            return Err(PipelineError::new(start, what));
        }
        Ok((self.text[start..self.pos].to_string(), start))
    }

    fn elements(&mut self) -> Result<Vec<PipelineElement>, PipelineError> {
        let mut out = Vec::new();
        self.skip_ws();
        if self.peek().is_none() {
            return Ok(out);
        }
        loop {
            out.push(self.element()?);
            self.skip_ws();
            if self.peek() != Some(b',') {
                return Ok(out);
            }
            self.pos += 1;
        }
    }

    fn element(&mut self) -> Result<PipelineElement, PipelineError> {
        let (name, col) = self.name()?;
        self.skip_ws();
        match self.peek() {
            Some(b'(') => {
                self.pos += 1;
                let elements = self.elements()?;
                self.skip_ws();
                if self.peek() != Some(b')') {
                    return Err(PipelineError::new(
                        self.pos,
                        format!(
                            "expected ')' to close '{name}(' opened at column {}",
                            col + 1
                        ),
                    ));
                }
                self.pos += 1;
                Ok(PipelineElement::Nested {
                    spec: PipelineSpec {
                        anchor: Some(name),
                        elements,
                    },
                    col,
                })
            }
            Some(b'{') => {
                let (options, option_cols) = self.options()?;
                Ok(PipelineElement::Pass {
                    name,
                    options,
                    col,
                    option_cols,
                })
            }
            _ => Ok(PipelineElement::Pass {
                name,
                options: Vec::new(),
                col,
                option_cols: Vec::new(),
            }),
        }
    }

    /// Parses `{key=value key2 key3=value3}`; a bare key means `true`.
    fn options(&mut self) -> Result<ParsedOptions, PipelineError> {
        let open = self.pos;
        self.pos += 1;
        let mut options = Vec::new();
        let mut cols = Vec::new();
        loop {
            self.skip_ws();
            match self.peek() {
                None => {
                    return Err(PipelineError::new(
                        open,
                        "unbalanced '{': options are not closed",
                    ))
                }
                Some(b'}') => {
                    self.pos += 1;
                    return Ok((options, cols));
                }
                _ => {}
            }
            let (key, col) = self.name()?;
            let value = if self.peek() == Some(b'=') {
                self.pos += 1;
                self.value(open)?
            } else {
                String::new()
            };
            options.push((key, value));
            cols.push(col);
        }
    }

    /// An option value: up to whitespace or the closing `}`; `"..."`, `{...}` and `(...)` may
    /// hold either, so a value may be a pipeline (`default-pipeline=func.func(cse, dce)`).
    fn value(&mut self, open: usize) -> Result<String, PipelineError> {
        let start = self.pos;
        // The closers of the brackets open in the value, innermost last, with their columns.
        let mut open_brackets: Vec<(u8, usize)> = Vec::new();
        while let Some(c) = self.peek() {
            match c {
                b'"' => {
                    self.pos += 1;
                    while self.peek().is_some_and(|c| c != b'"') {
                        self.pos += 1;
                    }
                    if self.peek().is_none() {
                        return Err(PipelineError::new(
                            start,
                            "unterminated '\"' in option value",
                        ));
                    }
                }
                b'{' => open_brackets.push((b'}', self.pos)),
                b'(' => open_brackets.push((b')', self.pos)),
                b'}' | b')' => match open_brackets.pop() {
                    None => break,
                    Some((closer, _)) if closer == c => {}
                    Some((closer, at)) => {
                        return Err(PipelineError::new(
                            self.pos,
                            format!(
                                "expected '{}' to close '{}' opened at column {}",
                                closer as char,
                                if closer == b'}' { '{' } else { '(' },
                                at + 1
                            ),
                        ))
                    }
                },
                c if c.is_ascii_whitespace() && open_brackets.is_empty() => break,
                _ => {}
            }
            self.pos += 1;
        }
        if let Some((closer, at)) = open_brackets.last() {
            let opener = if *closer == b'}' { '{' } else { '(' };
            return Err(PipelineError::new(
                if *closer == b'}' { open } else { *at },
                format!("unbalanced '{opener}' in option value"),
            ));
        }
        let raw = &self.text[start..self.pos];
        let unquoted = raw.strip_prefix('"').and_then(|r| r.strip_suffix('"'));
        let unbraced = raw.strip_prefix('{').and_then(|r| r.strip_suffix('}'));
        Ok(unquoted.or(unbraced).unwrap_or(raw).to_string())
    }
}
