//! Parser of one expression string (the text between the quotes).

use crate::diag::Diagnostic;
use crate::expr::Expr;
use crate::span::FileId;

/// Parses `text`, the content of an expression string that starts at byte
/// `base` of `file`; spans in the result are file offsets.
pub fn parse_expr(text: &str, file: FileId, base: usize) -> Result<Expr, Diagnostic> {
    let _ = (text, file, base);
    todo!("expression parser")
}
