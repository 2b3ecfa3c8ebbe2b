//! The front end: source text to a resolved [`crate::term::Program`].
//!
//! [`lexer`] → [`parser`] (surface [`ast`]) → [`resolve`] (core terms), with
//! [`load`] following includes.

pub mod ast;
pub mod lexer;
pub mod load;
pub mod parser;
pub mod resolve;
pub mod suggest;

pub use load::{check_from, load_from, load_program, FileKind, FileSystem, MemFs, RealFs};

use crate::diag::Diagnostic;
use crate::error::{Operand, RuntimeError};
use crate::span::{SourceMap, Span};

/// The diagnostic of a runtime error ([`Diagnostic::runtime`]), with the
/// failing operand's place found by parsing the body's source again
/// ([`parser::operand_spans`]).
pub fn runtime_diagnostic(e: &RuntimeError, sources: &SourceMap) -> Diagnostic {
    let operand_at = if e.at.is_none() {
        e.operand.and_then(|o| operand_place(e.body, o, sources))
    } else {
        None
    };
    Diagnostic::runtime(e, operand_at)
}

/// The span of operand `o` of the application whose source is `body`.
fn operand_place(body: Span, o: Operand, sources: &SourceMap) -> Option<Span> {
    let (spans, head_is_if) = parser::operand_spans(&sources.get(body.file).text, body.file, body.start as usize)?;
    match o {
        // After `if` chose a branch, the head is that branch, not `if`.
        Operand::Head if head_is_if => None,
        Operand::Head => spans.first().copied(),
        Operand::Arg(i) => spans.get(i + 1).copied(),
    }
}
