//! Diagnostics: parse errors, static errors, runtime errors and warnings,
//! rendered with file, line, column and a caret (through ariadne).

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
            let mut out = format!("{}[{}]: {}\n", kind_word(self.severity), self.code, self.message);
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
        let (line, col) = sources.line_col(span.file, span.start);
        let mut report = Report::build(kind, char_range(span))
            .with_config(config)
            .with_code(self.code)
            .with_message(format!("{} ({}:{}:{})", self.message, name(span), line, col))
            .with_label(Label::new(char_range(span)).with_message(label));
        for (s, l) in &self.secondary {
            report = report.with_label(Label::new(char_range(s)).with_message(l));
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

fn clamp(text: &str, offset: u32) -> usize {
    let mut i = (offset as usize).min(text.len());
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

impl From<&RuntimeError> for Diagnostic {
    fn from(e: &RuntimeError) -> Diagnostic {
        let mut d = Diagnostic::error(e.kind.name(), e.message.clone(), e.body, "in this body");
        if let Some(at) = e.at {
            if at != e.body {
                d = d.with_secondary(at, "here");
            }
        }
        d
    }
}
