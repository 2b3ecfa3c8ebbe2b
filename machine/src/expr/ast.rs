//! The abstract syntax of the expression language (LANGUAGE.md §8), the
//! non-CPS expressions written inside `"..."`.
//!
//! An [`Expr`] is produced by [`super::parse`], has its names resolved to
//! variables by the front end, gets values substituted for its variables by
//! reduction, and is finally evaluated by [`super::eval`] when the body
//! holding it executes.

use std::rc::Rc;

use crate::span::Span;
use crate::term::Atom;

/// An expression with its source span (inside the quoted string).
#[derive(Clone, Debug)]
pub struct Expr {
    /// What it is.
    pub kind: ExprKind,
    /// Where it was written.
    pub span: Span,
}

/// The kinds of expression.
#[derive(Clone, Debug)]
pub enum ExprKind {
    /// A literal, a resolved variable (`Atom::Var`), or a value substituted
    /// for a variable by reduction.
    Val(Atom),
    /// A name as parsed, before resolution.
    Name(Rc<str>),
    /// `[a, b, ..]`.
    Tuple(Vec<Expr>),
    /// `{f: a, g: b}`.
    Record(Vec<(Rc<str>, Expr)>),
    /// `-a`, `!a`.
    Unary(UnOp, Box<Expr>),
    /// `a op b`.
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `t[i]` (or `t[i..j]` when the index is a [`ExprKind::Range`]).
    Index(Box<Expr>, Box<Expr>),
    /// `a..b`, only as an index or a function argument.
    Range(Box<Expr>, Box<Expr>),
    /// `x.field`.
    Field(Box<Expr>, Rc<str>),
    /// `f(a, ..)`.
    Call(Rc<str>, Vec<Expr>),
    /// `x.f(a, ..)`, the same as `f(x, a, ..)`.
    Method(Box<Expr>, Rc<str>, Vec<Expr>),
}

/// Unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    /// `-`
    Neg,
    /// `!`
    Not,
}

/// Binary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Rem,
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `&&`
    And,
    /// `||`
    Or,
}
