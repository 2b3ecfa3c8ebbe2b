//! The surface syntax tree: what the parser reads, before desugaring and
//! name resolution (LANGUAGE.md §2). Names are strings with spans.

use std::sync::Arc;

use crate::expr::Expr;
use crate::span::Span;

/// A name with its place.
#[derive(Clone, Debug)]
pub struct Ident {
    /// The text.
    pub name: Arc<str>,
    /// Where it stands.
    pub span: Span,
}

/// A parsed file: its includes, its leading definitions and its main body.
#[derive(Clone, Debug)]
pub struct File {
    /// `include "path"` lines, with the span of the path.
    pub includes: Vec<(String, Span)>,
    /// The leading run of `let`/`fix` definitions.
    pub defs: Vec<Def>,
    /// The body after the definitions; `None` for a library of definitions.
    pub main: Option<Body>,
}

/// A `let` or `fix` header whose scope is the rest of the block.
#[derive(Clone, Debug)]
pub enum Def {
    /// `@e: let [y] x = v`.
    Let {
        /// Staging of the `let` body itself.
        stage: Option<SExp>,
        /// `[y]`, the staging parameter of the implicit lambda.
        sname: Option<Ident>,
        /// The bound name.
        name: Ident,
        /// The bound value.
        value: Arg,
        /// The span of the whole header.
        span: Span,
    },
    /// `@e: fix [y] f = λ`.
    Fix {
        /// Staging of the `fix` body itself.
        stage: Option<SExp>,
        /// `[y]`.
        sname: Option<Ident>,
        /// The recursive name.
        name: Ident,
        /// The recursive lambda.
        lam: Lambda,
        /// The span of the whole header.
        span: Span,
    },
}

/// A body: an optional staging expression and a statement.
#[derive(Clone, Debug)]
pub enum Body {
    /// A `let`/`fix` definition followed by its scope.
    Def(Box<Def>, Box<Body>),
    /// `@e: head args.. tail?`.
    App {
        /// `@e:`, if written.
        stage: Option<SExp>,
        /// The head.
        head: Operand,
        /// The arguments (braced lambdas included).
        args: Vec<Arg>,
        /// A last lambda written without braces.
        tail: Option<Box<Lambda>>,
        /// From the staging annotation to the end of the body.
        span: Span,
    },
}

impl Body {
    /// A placeholder body (`0`), standing for the missing main body of a
    /// library file where one is needed to resolve its definitions.
    pub fn hole() -> Body {
        Body::App {
            stage: None,
            head: Operand::Int(0, Span::default()),
            args: Vec::new(),
            tail: None,
            span: Span::default(),
        }
    }
}

/// A staging expression as written.
#[derive(Clone, Debug)]
pub enum SExp {
    /// `always` / `never`.
    Const(bool, Span),
    /// A variable.
    Name(Ident),
    /// `!e`.
    Not(Box<SExp>, Span),
    /// `a & b`.
    And(Box<SExp>, Box<SExp>),
    /// `a | b`.
    Or(Box<SExp>, Box<SExp>),
}

/// An argument.
#[derive(Clone, Debug)]
pub enum Arg {
    /// A plain operand.
    Operand(Operand),
    /// `!t`: usually a name; any operand is accepted so that every printed
    /// term reads back (a literal tuple splices its elements).
    Splice(Operand),
}

/// An operand.
#[derive(Clone, Debug)]
pub enum Operand {
    /// A variable.
    Name(Ident),
    /// `$name` (the name without `$`).
    Builtin(Ident),
    /// `if`.
    If(Span),
    /// An integer.
    Int(i64, Span),
    /// A float.
    Float(f64, Span),
    /// `true` / `false`.
    Bool(bool, Span),
    /// `always` / `never`.
    Stage(bool, Span),
    /// `"e"`.
    Expr(Box<Expr>),
    /// `[a, ..]`.
    Tuple(Vec<Arg>, Span),
    /// A braced lambda.
    Lambda(Box<Lambda>),
}

impl Operand {
    /// Where the operand stands.
    pub fn span(&self) -> Span {
        match self {
            Operand::Name(i) | Operand::Builtin(i) => i.span,
            Operand::If(s)
            | Operand::Int(_, s)
            | Operand::Float(_, s)
            | Operand::Bool(_, s)
            | Operand::Stage(_, s)
            | Operand::Tuple(_, s) => *s,
            Operand::Expr(e) => e.span,
            Operand::Lambda(l) => l.span,
        }
    }
}

/// A parameter `x` or `!r`.
#[derive(Clone, Debug)]
pub struct Param {
    /// The name.
    pub name: Ident,
    /// Whether it is a rest parameter.
    pub rest: bool,
}

/// `(p..)[y] { b }` (or the braceless tail form).
#[derive(Clone, Debug)]
pub struct Lambda {
    /// The parameters.
    pub params: Vec<Param>,
    /// `[y]`.
    pub sname: Option<Ident>,
    /// The body.
    pub body: Body,
    /// From `(` to the end of the body.
    pub span: Span,
}
