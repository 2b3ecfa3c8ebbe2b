//! The surface syntax tree: what the parser reads, before desugaring and
//! name resolution (LANGUAGE.md §3.1). Names are strings with spans.

use std::sync::Arc;

use smallvec::SmallVec;

use crate::expr::Expr;
use crate::span::Span;

/// The arguments of an application as written: the usual one or two in
/// place (a program's millions of statements then allocate no list).
pub type Args = SmallVec<[SurfaceArg; 2]>;

/// The parameters of a lambda as written: the usual one or two in place.
pub type Params = SmallVec<[SurfaceParam; 2]>;

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
    pub main: Option<SurfaceBody>,
}

/// A `let` or `fix` header whose scope is the rest of the block.
#[derive(Clone, Debug)]
pub enum Def {
    /// `@e: let [y] x = v`.
    Let {
        /// Staging of the `let` body itself.
        stage: Option<SurfaceSExp>,
        /// `[y]`, the staging parameter of the implicit lambda.
        sname: Option<Ident>,
        /// The bound name.
        name: Ident,
        /// The bound value.
        value: SurfaceArg,
        /// The span of the whole header.
        span: Span,
    },
    /// `@e: fix [y] f = λ`.
    Fix {
        /// Staging of the `fix` body itself.
        stage: Option<SurfaceSExp>,
        /// `[y]`.
        sname: Option<Ident>,
        /// The recursive name.
        name: Ident,
        /// The recursive lambda.
        lam: Box<SurfaceLambda>,
        /// The span of the whole header.
        span: Span,
    },
}

/// A body: an optional staging expression and a statement.
#[derive(Clone, Debug)]
pub enum SurfaceBody {
    /// A `let`/`fix` definition followed by its scope.
    Def(Box<Def>, Box<SurfaceBody>),
    /// `@e: head args.. tail?`.
    App {
        /// `@e:`, if written.
        stage: Option<SurfaceSExp>,
        /// The head: what is applied.
        head: SurfaceOperand,
        /// The arguments (braced lambdas included).
        args: Args,
        /// A last lambda written without braces.
        tail: Option<Box<SurfaceLambda>>,
        /// From the staging annotation to the end of the body.
        span: Span,
    },
}

impl SurfaceBody {
    /// A placeholder body (`0`), standing for the missing main body of a
    /// library file where one is needed to resolve its definitions.
    pub fn hole() -> SurfaceBody {
        SurfaceBody::App {
            stage: None,
            head: SurfaceOperand::Int(0, Span::default()),
            args: Args::new(),
            tail: None,
            span: Span::default(),
        }
    }
}

/// One statement of a chain (LANGUAGE.md §2: sequential code), as the
/// parser reads it and the resolver takes it: a chain is links up to its
/// last statement, each link's continuation being the rest of the chain.
/// Spans of a link end where the link ends; the chain's end is known only
/// at its last statement.
#[derive(Debug)]
pub enum Link {
    /// A `let`/`fix` header: the rest of the chain is its scope.
    Def(Def),
    /// An application whose last argument is a braceless lambda: the rest
    /// of the chain is that lambda's body.
    Tail {
        /// `@e:`, if written.
        stage: Option<SurfaceSExp>,
        /// The head.
        head: SurfaceOperand,
        /// The arguments before the tail lambda.
        args: Args,
        /// The tail lambda's parameters.
        params: Params,
        /// The tail lambda's `[y]`.
        sname: Option<Ident>,
        /// The statement's first token.
        start: Span,
        /// The tail lambda's `(`.
        lam_start: Span,
    },
    /// The last statement: an application without a tail lambda.
    Last {
        /// `@e:`, if written.
        stage: Option<SurfaceSExp>,
        /// The head.
        head: SurfaceOperand,
        /// The arguments.
        args: Args,
        /// The statement.
        span: Span,
    },
}

impl SurfaceBody {
    /// The next link of the chain this body starts, and the body after it
    /// (`None` after the last statement). The body is taken apart.
    pub fn split_link(mut self) -> (Link, Option<SurfaceBody>) {
        match &mut self {
            SurfaceBody::Def(d, rest) => {
                let hole = || Def::Let {
                    stage: None,
                    sname: None,
                    name: Ident {
                        name: Arc::from(""),
                        span: Span::default(),
                    },
                    value: SurfaceArg::Operand(SurfaceOperand::Int(0, Span::default())),
                    span: Span::default(),
                };
                let def = std::mem::replace(&mut **d, hole());
                let rest = std::mem::replace(&mut **rest, SurfaceBody::hole());
                (Link::Def(def), Some(rest))
            }
            SurfaceBody::App {
                stage,
                head,
                args,
                tail,
                span,
            } => match tail.take() {
                None => {
                    let link = Link::Last {
                        stage: stage.take(),
                        head: std::mem::replace(head, SurfaceOperand::Int(0, Span::default())),
                        args: std::mem::take(args),
                        span: *span,
                    };
                    (link, None)
                }
                Some(mut lam) => {
                    let body = std::mem::replace(&mut lam.body, SurfaceBody::hole());
                    let link = Link::Tail {
                        stage: stage.take(),
                        head: std::mem::replace(head, SurfaceOperand::Int(0, Span::default())),
                        args: std::mem::take(args),
                        params: std::mem::take(&mut lam.params),
                        sname: lam.sname.take(),
                        start: Span { end: span.start, ..*span },
                        lam_start: Span {
                            end: lam.span.start,
                            ..lam.span
                        },
                    };
                    (link, Some(body))
                }
            },
        }
    }
}

/// A staging expression as written.
#[derive(Clone, Debug)]
pub enum SurfaceSExp {
    /// `always` / `never`.
    Const(bool, Span),
    /// A variable.
    Name(Ident),
    /// `!e`.
    Not(Box<SurfaceSExp>, Span),
    /// `a & b`.
    And(Box<SurfaceSExp>, Box<SurfaceSExp>),
    /// `a | b`.
    Or(Box<SurfaceSExp>, Box<SurfaceSExp>),
}

/// An argument.
#[derive(Clone, Debug)]
pub enum SurfaceArg {
    /// A plain operand.
    Operand(SurfaceOperand),
    /// `!t`: usually a name; any operand is accepted so that every printed
    /// term reads back (a literal tuple splices its elements).
    Splice(SurfaceOperand),
}

/// An operand.
#[derive(Clone, Debug)]
pub enum SurfaceOperand {
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
    Tuple(Vec<SurfaceArg>, Span),
    /// A braced lambda.
    Lambda(Box<SurfaceLambda>),
}

impl SurfaceOperand {
    /// Where the operand stands.
    pub fn span(&self) -> Span {
        match self {
            SurfaceOperand::Name(i) | SurfaceOperand::Builtin(i) => i.span,
            SurfaceOperand::If(s)
            | SurfaceOperand::Int(_, s)
            | SurfaceOperand::Float(_, s)
            | SurfaceOperand::Bool(_, s)
            | SurfaceOperand::Stage(_, s)
            | SurfaceOperand::Tuple(_, s) => *s,
            SurfaceOperand::Expr(e) => e.span,
            SurfaceOperand::Lambda(l) => l.span,
        }
    }
}

/// A parameter `x` or `!r`.
#[derive(Clone, Debug)]
pub struct SurfaceParam {
    /// The name it binds in the lambda's body.
    pub name: Ident,
    /// Whether it is a rest parameter.
    pub rest: bool,
}

/// `(p..)[y] { b }` (or the braceless tail form).
#[derive(Clone, Debug)]
pub struct SurfaceLambda {
    /// The parameters.
    pub params: Params,
    /// `[y]`.
    pub sname: Option<Ident>,
    /// The body, staged as written or naturally.
    pub body: SurfaceBody,
    /// From `(` to the end of the body.
    pub span: Span,
}
