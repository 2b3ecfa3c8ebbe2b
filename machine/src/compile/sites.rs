//! Error sites: the reports a compiled program prints when it fails.
//!
//! A report is rendered at compile time by the same code that renders the
//! machine's runtime errors ([`Diagnostic::runtime`]), with placeholders
//! for what only the run knows: `\1` for the error's kind, `\2` for its
//! message and `\3` for its label. The compiled program prints the text
//! with the placeholders filled in. What it does not show are the call
//! sites that led to the failing body (the machine finds them by running
//! the program again with a record of every call).

use rustc_hash::FxHashMap;

use crate::diag::Diagnostic;
use crate::error::{ErrorKind, Operand, RuntimeError};
use crate::span::{SourceMap, Span};

/// Where a site's report points. The label of that place is given by the
/// compiled program when it fails, as the machine words it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Place {
    /// A part of the application with a span of its own: a sub-expression
    /// that failed, the condition of an `if`, a lambda written in place.
    At(Span),
    /// The application itself.
    Body,
    /// An operand of the application, found in its source.
    Operand(Operand),
}

/// The table of sites of one program.
#[derive(Default)]
pub(super) struct Sites {
    /// Each site's report, plain and coloured (as `run` prints it on a
    /// terminal).
    texts: Vec<[String; 2]>,
    index: FxHashMap<(Span, Place), usize>,
}

impl Sites {
    /// The number of the site for an error of `body` at `place`.
    pub(super) fn site(&mut self, sources: &SourceMap, body: Span, place: Place) -> usize {
        if let Some(&i) = self.index.get(&(body, place)) {
            return i;
        }
        let kind = ErrorKind::Type;
        let e = match place {
            Place::At(at) => RuntimeError::new(kind, "\u{2}".into(), body, Some(at)),
            Place::Body => RuntimeError::new(kind, "\u{2}".into(), body, None),
            Place::Operand(o) => RuntimeError::new(kind, "\u{2}".into(), body, None).at_operand(o, String::new()),
        }
        .labelled("\u{3}".into());
        let d = Diagnostic::runtime(&e, sources);
        let code = format!("[{}]", kind.name());
        let texts = [false, true].map(|color| {
            let text = d.render(sources, color);
            debug_assert!(text.contains(&code), "no error code in {text:?}");
            text.replacen(&code, "[\u{1}]", 1)
        });
        let i = self.texts.len();
        self.texts.push(texts);
        self.index.insert((body, place), i);
        i
    }

    /// The C definition of the table.
    /// The C definitions of the tables (`SITES`, `SITES_COLOR`).
    pub(super) fn to_c(&self, prefix: &str) -> String {
        let mut out = String::new();
        for (k, name) in ["SITES", "SITES_COLOR"].iter().enumerate() {
            out.push_str(&format!("static const char *const {prefix}{name}[] = {{\n"));
            for t in &self.texts {
                out.push_str("    ");
                out.push_str(&c_string(&t[k]));
                out.push_str(",\n");
            }
            out.push_str("    0,\n};\n");
        }
        out
    }
}

/// `s` as a C string literal: printable ASCII as it is, every other byte
/// in octal (three digits, so a following digit cannot join it).
pub(super) fn c_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for &b in s.as_bytes() {
        match b {
            b'"' | b'\\' | b'?' => {
                out.push('\\');
                out.push(b as char);
            }
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\{b:03o}")),
        }
    }
    out.push('"');
    out
}
