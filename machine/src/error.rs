//! Runtime errors: what stops a run that is not a result.
//!
//! A [`RuntimeError`] names its [`ErrorKind`], the values involved (in its
//! message) and the source of the failing body, also when that body sits under
//! a lambda that was never invoked. Its place is refined by the operand at
//! fault and, for the user, by the call sites that led to the body
//! ([`RuntimeError::calls`], filled in by `graph::calls::trace`).

use crate::span::Span;

/// The kinds of runtime error (LANGUAGE.md §5.3).
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

    /// What the precise place of an error of this kind is, when the rule
    /// that failed says nothing more specific.
    pub fn label(self) -> &'static str {
        match self {
            ErrorKind::Arity => "this gets the wrong number of arguments",
            ErrorKind::Type => "this has a value of the wrong kind",
            ErrorKind::DivisionByZero => "this divides by zero",
            ErrorKind::IndexOutOfRange => "this index is out of range",
            ErrorKind::Overflow => "this overflows",
            ErrorKind::UnknownFunction => "this function does not exist",
            ErrorKind::MissingKey => "this key is missing",
            ErrorKind::NotAFunction => "this is not a function",
            ErrorKind::NotFinite => "this is not a finite number",
        }
    }

    /// The kind whose [`ErrorKind::name`] is `name`.
    pub fn from_name(name: &str) -> Option<ErrorKind> {
        ErrorKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// An operand of the failing application, by position in its source
/// (the core term keeps no span for a plain operand such as `5`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    /// The head: what is applied.
    Head,
    /// The argument at this index.
    Arg(usize),
}

/// What stopped a run that was not a result: the kind, a message naming
/// the values involved, and where the failing body and its callers are.
#[derive(Clone, Debug, PartialEq)]
pub struct RuntimeError {
    /// What went wrong.
    pub kind: ErrorKind,
    /// A sentence naming the values involved.
    pub message: String,
    /// The failing body.
    pub body: Span,
    /// The precise place (an expression operand, the lambda whose arity
    /// does not match), if known.
    pub at: Option<Span>,
    /// The operand at fault, when it has no span of its own (the
    /// diagnostic finds it in the body's source).
    pub operand: Option<Operand>,
    /// What the precise place (or, without one, the body) is.
    pub label: String,
    /// Where the function holding the body was called, innermost first
    /// (empty unless traced, see `graph::calls::trace`).
    pub calls: Vec<Span>,
}

impl RuntimeError {
    /// An error of `kind` in `body`, at `at` if known, labelled by its kind.
    pub fn new(kind: ErrorKind, message: String, body: Span, at: Option<Span>) -> RuntimeError {
        RuntimeError {
            kind,
            message,
            body,
            at,
            operand: None,
            label: if at.is_some() { kind.label() } else { "this application fails" }.to_string(),
            calls: Vec::new(),
        }
    }

    /// The same error, at the operand `operand` of the body, which `label`
    /// describes.
    pub fn at_operand(self, operand: Operand, label: String) -> RuntimeError {
        RuntimeError {
            operand: Some(operand),
            label,
            ..self
        }
    }

    /// The same error with `label` for its precise place.
    pub fn labelled(self, label: String) -> RuntimeError {
        RuntimeError { label, ..self }
    }
}
