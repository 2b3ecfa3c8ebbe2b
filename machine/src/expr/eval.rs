//! Evaluation of expressions whose variables have been substituted.

use crate::error::ErrorKind;
use crate::expr::Expr;
use crate::span::Span;
use crate::term::{Atom, VarId};

/// Why an expression has no value (yet).
#[derive(Clone, Debug, PartialEq)]
pub enum EvalError {
    /// It needs the value of this symbolic variable.
    Stuck(VarId),
    /// A runtime error.
    Fail {
        /// The kind of error.
        kind: ErrorKind,
        /// A sentence naming the values involved.
        message: String,
        /// The sub-expression that failed.
        span: Span,
    },
}

/// Evaluates `e`.
pub fn eval(e: &Expr) -> Result<Atom, EvalError> {
    let _ = e;
    todo!("expression evaluator")
}
