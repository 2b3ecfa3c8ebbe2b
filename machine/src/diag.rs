//! Diagnostics: parse errors, static errors, runtime errors and warnings,
//! rendered with file, line, column and a caret (through ariadne).
//!
//! Every diagnostic starts `[code] Error:` (or `Warning:`), the message and
//! the primary place; each group of source lines below it is headed by the
//! place of its own first label.

use ariadne::{Config, Label, Report, ReportKind};

use crate::error::RuntimeError;
use crate::span::{SourceMap, Span};

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    /// Stops the run.
    Error,
    /// Reported, the run goes on (stuck bodies).
    Warning,
}

/// One message about the program, with the place it concerns.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// A short code such as `parse`, `unbound`, `arity`, `stuck`.
    pub code: &'static str,
    /// The headline.
    pub message: String,
    /// The primary place, with the label shown under its caret.
    pub primary: Option<(Span, String)>,
    /// Further places with labels.
    pub secondary: Vec<(Span, String)>,
    /// Notes shown below the source.
    pub notes: Vec<String>,
}

impl Diagnostic {
    /// An error at `span`; `label` is shown under the caret.
    pub fn error(code: &'static str, message: impl Into<String>, span: Span, label: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            code,
            message: message.into(),
            primary: Some((span, label.into())),
            secondary: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// An error about no particular place (a file that cannot be read, say).
    pub fn error_nowhere(code: &'static str, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            code,
            message: message.into(),
            primary: None,
            secondary: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// A warning at `span`.
    pub fn warning(code: &'static str, message: impl Into<String>, span: Span, label: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(code, message, span, label)
        }
    }

    /// Adds a secondary place.
    pub fn with_secondary(mut self, span: Span, label: impl Into<String>) -> Diagnostic {
        self.secondary.push((span, label.into()));
        self
    }

    /// Adds a note.
    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    /// Renders the diagnostic as text, with colours if `color`.
    pub fn render(&self, sources: &SourceMap, color: bool) -> String {
        let kind = match self.severity {
            Severity::Error => ReportKind::Error,
            Severity::Warning => ReportKind::Warning,
        };
        let config = Config::default().with_color(color).with_compact(false);
        let Some((span, label)) = &self.primary else {
            let mut out = format!("[{}] {}: {}\n", self.code, kind_word(self.severity), self.message);
            for note in &self.notes {
                out.push_str(&format!("  = note: {note}\n"));
            }
            return out;
        };
        let name = |s: &Span| sources.get(s.file).name.clone();
        let char_range = |s: &Span| {
            let text = &sources.get(s.file).text;
            let start = text.get(..clamp(text, s.start)).map_or(0, |t| t.chars().count());
            let end = text.get(..clamp(text, s.end)).map_or(start, |t| t.chars().count());
            (name(s), start..end.max(start))
        };
        let span = &at_last_line(sources, *span);
        let (line, col) = sources.line_col(span.file, span.start);
        // ariadne heads a group of lines in the report's own source with the
        // report's place, and any other group with the place of its first
        // label. The report is given a source that no label has, so that
        // every group is headed by its own place: the primary label comes
        // first, so its group is headed by the primary place.
        let mut report = Report::build(kind, (String::from("\0"), 0..0))
            .with_config(config)
            .with_code(self.code)
            .with_message(format!("{} ({}:{}:{})", self.message, name(span), line, col))
            .with_label(Label::new(char_range(span)).with_message(label));
        for (s, l) in &self.secondary {
            let s = at_last_line(sources, *s);
            report = report.with_label(Label::new(char_range(&s)).with_message(l));
        }
        for note in &self.notes {
            report = report.with_note(note);
        }
        let report = report.finish();
        let cache: Vec<(String, String)> = sources.files().iter().map(|f| (f.name.clone(), f.text.clone())).collect();
        let mut buf = Vec::new();
        let result = report.write(ariadne::sources(cache), &mut buf);
        match result {
            Ok(()) => String::from_utf8_lossy(&buf).into_owned(),
            Err(e) => format!(
                "{}[{}]: {} (at {}; rendering failed: {e})\n",
                kind_word(self.severity),
                self.code,
                self.message,
                sources.describe(*span)
            ),
        }
    }
}

fn kind_word(s: Severity) -> &'static str {
    match s {
        Severity::Error => "Error",
        Severity::Warning => "Warning",
    }
}

/// An empty span at the very end of a file that ends with a newline moves
/// back onto that newline: the end of the last line, which ariadne shows
/// (it has no line after the last newline), so that the place in the
/// message and the place in the header agree.
fn at_last_line(sources: &SourceMap, s: Span) -> Span {
    let text = &sources.get(s.file).text;
    if s.start == s.end && s.start as usize == text.len() && text.ends_with('\n') {
        Span {
            start: s.start - 1,
            end: s.start - 1,
            ..s
        }
    } else {
        s
    }
}

fn clamp(text: &str, offset: u32) -> usize {
    let mut i = (offset as usize).min(text.len());
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// How many call sites a runtime error shows.
pub const MAX_CALLS: usize = 4;

impl Diagnostic {
    /// The diagnostic of a runtime error: its precise place labelled with
    /// what it is (`e.at`, or else `operand_at`, the place of the failing
    /// operand that the caller found in the body's source), the body if
    /// that place lies outside it, and the sites that called the function
    /// holding the body (see [`shown_calls`]).
    ///
    /// [`crate::syntax::runtime_diagnostic`] finds the operand's place with
    /// the parser and calls this.
    pub fn runtime(e: &RuntimeError, operand_at: Option<Span>) -> Diagnostic {
        let at = e.at.or(operand_at);
        let mut d = match at {
            Some(at) if within(at, e.body) => Diagnostic::error(e.kind.name(), e.message.clone(), at, e.label.clone()),
            Some(at) => Diagnostic::error(e.kind.name(), e.message.clone(), e.body, "this application").with_secondary(at, e.label.clone()),
            None => Diagnostic::error(e.kind.name(), e.message.clone(), e.body, e.label.clone()),
        };
        let (calls, more) = shown_calls(e.body, &e.calls);
        for (i, site) in calls.into_iter().enumerate() {
            d = d.with_secondary(site, if i == 0 { "called from here" } else { "which was called from here" });
        }
        if more > 0 {
            d = d.with_note(format!(
                "{more} earlier call site{} not shown",
                if more == 1 { " is" } else { "s are" }
            ));
        }
        d
    }
}

/// The call sites worth showing, innermost first, from the whole chain of
/// the body at `body`: a site whose source encloses the place below it is
/// a `let`, an expression's continuation or a branch of `if` written around
/// that place, not a call, and is left out; so are repeats of the site just
/// shown (a recursive call). At most [`MAX_CALLS`]; the second value says
/// how many more distinct sites there were.
pub fn shown_calls(body: Span, chain: &[Span]) -> (Vec<Span>, usize) {
    let mut below = body;
    let mut shown: Vec<Span> = Vec::new();
    let mut more = 0;
    for &site in chain {
        let encloses = site.file == below.file && site.start <= below.start && below.end <= site.end;
        if encloses || shown.last() == Some(&site) {
            below = site;
            continue;
        }
        below = site;
        if shown.len() < MAX_CALLS {
            shown.push(site);
        } else {
            more += 1;
        }
    }
    (shown, more)
}

fn within(inner: Span, outer: Span) -> bool {
    inner.file == outer.file && outer.start <= inner.start && inner.end <= outer.end
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `╭─[ … ]` and `├─[ … ]` headers of a rendered diagnostic.
    fn headers(text: &str) -> Vec<String> {
        text.lines()
            .filter_map(|l| l.split_once("─[ ").map(|(_, r)| r.trim_end_matches(" ]").to_string()))
            .collect()
    }

    #[test]
    fn each_group_is_headed_by_its_own_place() {
        let mut sources = SourceMap::new();
        let text = "let f(x, k) { k x\nf 1 (y) $exit y\n";
        let file = sources.add("t.dcps", None, text.to_string());
        let eof = Span::new(file, text.len(), text.len());
        let brace = Span::new(file, 12, 13);
        let d = Diagnostic::error("parse", "expected `}`", eof, "expected `}`").with_secondary(brace, "not closed");
        let out = d.render(&sources, false);
        assert!(out.starts_with("[parse] Error: expected `}` (t.dcps:2:16)\n"), "{out}");
        assert_eq!(headers(&out), ["t.dcps:2:16", "t.dcps:1:13"], "{out}");
    }

    #[test]
    fn a_diagnostic_without_a_place_has_the_same_form() {
        let d = Diagnostic::error_nowhere("io", "cannot read `x`: no such file").with_note("a note");
        assert_eq!(
            d.render(&SourceMap::new(), false),
            "[io] Error: cannot read `x`: no such file\n  = note: a note\n"
        );
    }
}
