//! `--verify-diagnostics`: checks the diagnostics a run produced against the
//! `// expected-error @+1 {{message}}` annotations in the source, as mlir-opt does.
//!
//! Each annotation names a severity, a line (its own, or `@+N`, `@-N`, `@above`, `@below`) and a
//! message fragment; `-re` variants treat `{{...}}` groups inside the message as regular
//! expressions. Every produced diagnostic must match an annotation and every annotation must be
//! matched.

use dlc_ir::{Context, Diagnostic, Severity, SourceMap};
use regex::Regex;

/// One `expected-*` annotation.
#[derive(Debug)]
pub struct Expectation {
    severity: Severity,
    /// The line the diagnostic must be reported on.
    line: u32,
    /// Where the annotation itself is written (line, column of `expected-`).
    at: (u32, u32),
    matcher: Matcher,
    text: String,
    matched: bool,
}

#[derive(Debug)]
enum Matcher {
    Substring(String),
    Regex(Regex),
}

impl Matcher {
    fn matches(&self, message: &str) -> bool {
        match self {
            Matcher::Substring(s) => message.contains(s.as_str()),
            Matcher::Regex(r) => r.is_match(message),
        }
    }
}

/// A malformed annotation: its position and what is wrong.
pub struct AnnotationError {
    pub line: u32,
    pub col: u32,
    pub message: String,
}

/// Finds the annotations in `text`, whose first line is `first_line`.
pub fn parse_expectations(
    text: &str,
    first_line: u32,
) -> Result<Vec<Expectation>, AnnotationError> {
    let mut out = Vec::new();
    for (i, line_text) in text.lines().enumerate() {
        let line = first_line + i as u32;
        let mut search = 0;
        while let Some(pos) = line_text[search..].find("expected-") {
            let start = search + pos;
            search = start + "expected-".len();
            let rest = &line_text[search..];
            let Some((severity, after_kind)) = [
                ("error", Severity::Error),
                ("warning", Severity::Warning),
                ("note", Severity::Note),
                ("remark", Severity::Remark),
            ]
            .iter()
            .find_map(|(word, sev)| rest.strip_prefix(word).map(|r| (*sev, r))) else {
                continue;
            };
            let err = |message: String| AnnotationError {
                line,
                col: start as u32 + 1,
                message,
            };
            let (is_regex, after) = match after_kind.strip_prefix("-re") {
                Some(r) => (true, r),
                None => (false, after_kind),
            };
            let after = after.trim_start();
            let (target, after) = match after.strip_prefix('@') {
                Some(spec) => {
                    let end = spec
                        .find(|c: char| c.is_whitespace() || c == '{')
                        .unwrap_or(spec.len());
                    let (word, tail) = spec.split_at(end);
                    let offset = |digits: &str| digits.parse::<u32>().ok();
                    let target = match word {
                        "above" => line.checked_sub(1),
                        "below" => line.checked_add(1),
                        _ => match (word.strip_prefix('+'), word.strip_prefix('-')) {
                            (Some(d), _) => offset(d).and_then(|n| line.checked_add(n)),
                            (_, Some(d)) => offset(d).and_then(|n| line.checked_sub(n)),
                            _ => None,
                        },
                    };
                    let target =
                        target.ok_or_else(|| err(format!("invalid line designator '@{word}'")))?;
                    (target, tail.trim_start())
                }
                None => (line, after),
            };
            let Some(body) = after.strip_prefix("{{") else {
                return Err(err("expected '{{' to start the expected message".into()));
            };
            let Some(end) = body.rfind("}}") else {
                return Err(err("expected '}}' to end the expected message".into()));
            };
            let text = body[..end].to_string();
            let matcher = if is_regex {
                Matcher::Regex(
                    regex_from(&text)
                        .map_err(|e| err(format!("invalid regex in expected message: {e}")))?,
                )
            } else {
                Matcher::Substring(text.clone())
            };
            out.push(Expectation {
                severity,
                line: target,
                at: (line, start as u32 + 1),
                matcher,
                text,
                matched: false,
            });
            // The message runs to the last `}}` of the line; nothing after it is annotated.
            break;
        }
    }
    Ok(out)
}

/// Builds a regex from an `-re` message: `{{...}}` groups are regex, the rest is literal.
fn regex_from(text: &str) -> Result<Regex, regex::Error> {
    let mut pattern = String::new();
    let mut rest = text;
    while let Some(open) = rest.find("{{") {
        pattern.push_str(&regex::escape(&rest[..open]));
        let inner = &rest[open + 2..];
        let close = inner.find("}}").unwrap_or(inner.len());
        pattern.push_str(&inner[..close]);
        rest = inner.get(close + 2..).unwrap_or("");
    }
    pattern.push_str(&regex::escape(rest));
    Regex::new(&pattern)
}

/// Matches `diagnostics` (and their notes) against `expectations`. Returns the rendered
/// failures; empty means the run matched its annotations.
pub fn check(
    ctx: &Context,
    sources: &SourceMap,
    file: &str,
    diagnostics: &[Diagnostic],
    expectations: &mut [Expectation],
) -> Vec<String> {
    let mut failures = Vec::new();
    let flat = diagnostics
        .iter()
        .flat_map(|d| std::iter::once(d).chain(d.notes.iter()));
    for d in flat {
        let line = ctx.file_position(d.location).map(|(_, l, _)| l);
        let found = expectations.iter_mut().find(|e| {
            !e.matched
                && e.severity == d.severity
                && Some(e.line) == line
                && e.matcher.matches(&d.message)
        });
        match found {
            Some(e) => e.matched = true,
            None => {
                let shown = Diagnostic::error(
                    d.location,
                    format!("unexpected {}: {}", d.severity.label(), d.message),
                );
                failures.push(sources.render(ctx, &shown));
            }
        }
    }
    for e in expectations.iter().filter(|e| !e.matched) {
        failures.push(format!(
            "{file}:{}:{}: error: expected {} \"{}\" was not produced\n",
            e.at.0,
            e.at.1,
            e.severity.label(),
            e.text
        ));
    }
    failures
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_line_designators() {
        let src = "a\n// expected-error @+1 {{foo}}\nb // expected-warning {{bar}}\n// expected-note @-2 {{baz}}\n// expected-remark-re @above {{x {{[0-9]+}}}}";
        let e = parse_expectations(src, 10).ok().expect("valid annotations");
        let lines: Vec<u32> = e.iter().map(|e| e.line).collect();
        assert_eq!(lines, [12, 12, 11, 13]);
        assert!(e[3].matcher.matches("x 42"));
        assert!(!e[3].matcher.matches("x y"));
    }

    #[test]
    fn odd_annotations_are_errors_or_ignored_never_panics() {
        for text in [
            "// expected-error@ {{x}}",
            "// expected-error@é {{x}}",
            "// expected-error@+4294967295 {{x}}",
        ] {
            assert!(parse_expectations(text, 1).is_err(), "{text}");
        }
        let e = parse_expectations("// expected-error {{a}} é1234567", 1)
            .ok()
            .expect("valid");
        assert_eq!(e.len(), 1);
    }

    #[test]
    fn rejects_malformed_annotations() {
        assert!(parse_expectations("// expected-error @+x {{a}}", 1).is_err());
        assert!(parse_expectations("// expected-error {{a", 1).is_err());
    }
}
