//! Error sites: the places a compiled program can fail at, and the places
//! of the steps its traced run records.
//!
//! A site is a body's source and a place in it. The compiled program names
//! sites by number; the table goes into the program's [`super::image`],
//! where the runtime library finds the site of a failure and renders its
//! report as the machine renders a runtime error
//! ([`crate::syntax::runtime_diagnostic`]).

use rustc_hash::FxHashMap;

use crate::error::Operand;
use crate::span::Span;

/// Where a site's report points. The label of that place is given by the
/// compiled program when it fails, as the machine words it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Place {
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
    /// Each site, by number.
    pub(super) table: Vec<(Span, Place)>,
    index: FxHashMap<(Span, Place), usize>,
}

impl Sites {
    /// The number of the site for an error of `body` at `place`.
    pub(super) fn site(&mut self, body: Span, place: Place) -> usize {
        if let Some(&i) = self.index.get(&(body, place)) {
            return i;
        }
        let i = self.table.len();
        self.table.push((body, place));
        self.index.insert((body, place), i);
        i
    }
}

/// `s` as a C string literal: printable ASCII as it is, every other byte
/// in octal (three digits, so a following digit cannot join it).
pub(super) fn c_string(s: &str) -> String {
    c_bytes(s.as_bytes())
}

/// [`c_string`] of any bytes; long literals are broken into lines.
pub(super) fn c_bytes(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() + 2);
    out.push('"');
    let mut line = 0;
    for &b in bytes {
        match b {
            b'"' | b'\\' | b'?' => {
                out.push('\\');
                out.push(b as char);
                line += 2;
            }
            0x20..=0x7e => {
                out.push(b as char);
                line += 1;
            }
            _ => {
                out.push_str(&format!("\\{b:03o}"));
                line += 4;
            }
        }
        if line >= 100 {
            out.push_str("\"\n\"");
            line = 0;
        }
    }
    out.push('"');
    out
}
