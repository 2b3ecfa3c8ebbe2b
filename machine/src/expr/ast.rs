//! The abstract syntax of the expression language (LANGUAGE.md §6), the
//! non-CPS expressions written inside `"..."`.
//!
//! An [`Expr`] is produced by [`super::parse`], has its names resolved to
//! variables by the front end, gets values substituted for its variables by
//! reduction, and is finally evaluated by [`super::eval`] when the body
//! holding it executes.

use std::sync::Arc;

use crate::span::Span;
use crate::term::Atom;

/// An expression with its source span (inside the quoted string).
#[derive(Debug)]
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
    Name(Arc<str>),
    /// `[a, b, ..]`.
    Tuple(Vec<Expr>),
    /// `{f: a, g: b}`.
    Record(Vec<(Arc<str>, Expr)>),
    /// `-a`, `!a`.
    Unary(UnOp, Box<Expr>),
    /// `a op b`.
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `t[i]` (or `t[i..j]` when the index is a [`ExprKind::Range`]).
    Index(Box<Expr>, Box<Expr>),
    /// `a..b`, only as an index or a function argument.
    Range(Box<Expr>, Box<Expr>),
    /// `x.field`.
    Field(Box<Expr>, Arc<str>),
    /// `f(a, ..)`.
    Call(Arc<str>, Vec<Expr>),
    /// `x.f(a, ..)`, the same as `f(x, a, ..)`.
    Method(Box<Expr>, Arc<str>, Vec<Expr>),
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

impl BinOp {
    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::And => "&&",
            BinOp::Or => "||",
        }
    }
}

impl Expr {
    /// An expression with nothing nested in it: a placeholder (for iterative
    /// clone and drop).
    pub fn hole(span: Span) -> Expr {
        Expr {
            kind: ExprKind::Val(Atom::Int(0)),
            span,
        }
    }

    /// A copy of the expression in which every leaf (`Val` or `Name`) is
    /// replaced by what `leaf` makes of it, left to right; the structure is
    /// kept. Iterative (a copy, then its leaves rewritten), so long operator
    /// chains do not recurse.
    pub fn map_leaves(&self, leaf: &mut dyn FnMut(&Expr) -> ExprKind) -> Expr {
        let mut out = self.clone();
        for e in out.leaves_mut() {
            e.kind = leaf(e);
        }
        out
    }

    /// The value leaves (`Val`) of the expression, left to right, found
    /// with an explicit stack (long operator chains are deep).
    pub fn vals(&self) -> Vec<&Atom> {
        let mut out = Vec::new();
        let mut stack = vec![self];
        while let Some(e) = stack.pop() {
            match &e.kind {
                ExprKind::Val(a) => out.push(a),
                ExprKind::Name(_) => {}
                // Children are pushed last-first, so they pop in reading order.
                ExprKind::Tuple(xs) | ExprKind::Call(_, xs) => stack.extend(xs.iter().rev()),
                ExprKind::Record(fs) => stack.extend(fs.iter().rev().map(|(_, x)| x)),
                ExprKind::Unary(_, a) | ExprKind::Field(a, _) => stack.push(a),
                ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) | ExprKind::Range(a, b) => {
                    stack.push(b);
                    stack.push(a);
                }
                ExprKind::Method(a, _, xs) => {
                    stack.extend(xs.iter().rev());
                    stack.push(a);
                }
            }
        }
        out
    }

    /// The value leaves (`Val`) of the expression, mutably, in the same
    /// left-to-right order as [`Expr::vals`].
    pub fn vals_mut(&mut self) -> Vec<&mut Atom> {
        self.leaves_mut()
            .into_iter()
            .filter_map(|e| match &mut e.kind {
                ExprKind::Val(a) => Some(a),
                _ => None,
            })
            .collect()
    }

    /// The leaves (`Val` and `Name`) of the expression, mutably, left to
    /// right, found with an explicit stack (long operator chains are deep).
    fn leaves_mut(&mut self) -> Vec<&mut Expr> {
        let mut out = Vec::new();
        let mut stack = vec![self];
        while let Some(e) = stack.pop() {
            if matches!(e.kind, ExprKind::Val(_) | ExprKind::Name(_)) {
                out.push(e);
                continue;
            }
            match &mut e.kind {
                ExprKind::Val(_) | ExprKind::Name(_) => {}
                ExprKind::Tuple(xs) | ExprKind::Call(_, xs) => stack.extend(xs.iter_mut().rev()),
                ExprKind::Record(fs) => stack.extend(fs.iter_mut().rev().map(|(_, x)| x)),
                ExprKind::Unary(_, a) | ExprKind::Field(a, _) => stack.push(a),
                ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) | ExprKind::Range(a, b) => {
                    stack.push(b);
                    stack.push(a);
                }
                ExprKind::Method(a, _, xs) => {
                    stack.extend(xs.iter_mut().rev());
                    stack.push(a);
                }
            }
        }
        out
    }

    /// Calls `f` on every value leaf (`Val`), left to right.
    pub fn for_each_val(&self, f: &mut dyn FnMut(&Atom)) {
        self.vals().into_iter().for_each(f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::span::FileId;

    #[test]
    fn vals_are_in_reading_order() {
        let e = crate::expr::parse::parse_expr("f(1, 2+3)*g([4, {a: 5}]).h(6)", FileId(0), 0).expect("parses");
        let ints: Vec<i64> = e
            .vals()
            .into_iter()
            .filter_map(|a| match a {
                Atom::Int(i) => Some(*i),
                _ => None,
            })
            .collect();
        assert_eq!(ints, vec![1, 2, 3, 4, 5, 6]);
    }
}
