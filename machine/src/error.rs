//! Runtime errors: what stops a run that is not a result.
//!
//! A [`RuntimeError`] names its [`ErrorKind`], the values involved (in its
//! message) and the source of the failing body, also when that body sits under
//! a lambda that was never invoked.

use crate::span::Span;

/// The kinds of runtime error (LANGUAGE.md §5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// Wrong number of arguments.
    Arity,
    /// An operation applied to a value of the wrong kind.
    Type,
    /// Integer division or remainder by zero.
    DivisionByZero,
    /// A tuple index or range outside the tuple.
    IndexOutOfRange,
    /// Integer overflow.
    Overflow,
    /// A call of a function the expression language does not have.
    UnknownFunction,
    /// A map lookup of a key that is not in the map, or a missing record field.
    MissingKey,
    /// The head of an application is not a function.
    NotAFunction,
    /// A float result that is NaN or infinite.
    NotFinite,
}

impl ErrorKind {
    /// The kind's short name, as used by `// expect-error:` directives.
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::Arity => "arity",
            ErrorKind::Type => "type",
            ErrorKind::DivisionByZero => "division-by-zero",
            ErrorKind::IndexOutOfRange => "index-out-of-range",
            ErrorKind::Overflow => "overflow",
            ErrorKind::UnknownFunction => "unknown-function",
            ErrorKind::MissingKey => "missing-key",
            ErrorKind::NotAFunction => "not-a-function",
            ErrorKind::NotFinite => "not-finite",
        }
    }

    /// Every kind, in declaration order.
    pub const ALL: [ErrorKind; 9] = [
        ErrorKind::Arity,
        ErrorKind::Type,
        ErrorKind::DivisionByZero,
        ErrorKind::IndexOutOfRange,
        ErrorKind::Overflow,
        ErrorKind::UnknownFunction,
        ErrorKind::MissingKey,
        ErrorKind::NotAFunction,
        ErrorKind::NotFinite,
    ];

    /// The kind whose [`ErrorKind::name`] is `name`.
    pub fn from_name(name: &str) -> Option<ErrorKind> {
        ErrorKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// A runtime error.
#[derive(Clone, Debug, PartialEq)]
pub struct RuntimeError {
    /// What went wrong.
    pub kind: ErrorKind,
    /// A sentence naming the values involved.
    pub message: String,
    /// The failing body.
    pub body: Span,
    /// The precise place inside it (an expression operand, say), if known.
    pub at: Option<Span>,
}
