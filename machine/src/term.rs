//! Core terms of DeepCPS (LANGUAGE.md §3), after desugaring and name
//! resolution.
//!
//! A program is one [`Body`]: a staging expression and a command. Variables
//! are [`VarId`]s into a [`Vars`] table, which holds their source names and
//! spans; every binder has its own id, so two binders never share one (the
//! reference reducer gives each copy of a lambda fresh ids). Values produced
//! by the expression language (strings, records, maps, matrices) are atoms
//! too, so a term can hold any value the machine computes.

use std::sync::Arc;

use crate::expr::Expr;
use crate::span::Span;

/// A variable: an index into [`Vars`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VarId(pub u32);

/// What binds a variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarKind {
    /// An ordinary lambda parameter.
    Param,
    /// A rest parameter `!r`.
    Rest,
    /// The staging parameter `[y]` of a lambda (named or anonymous).
    Stage,
    /// The name bound by a `fix`.
    Fix,
    /// A name with no binder; only `deepcps fmt` allows these.
    Free,
}

/// What the table knows of one variable.
#[derive(Clone, Debug)]
pub struct VarInfo {
    /// The source name; `None` for an anonymous staging parameter.
    pub name: Option<Arc<str>>,
    /// What binds it.
    pub kind: VarKind,
    /// Where its binder stands in the source.
    pub span: Span,
}

/// The table of all variables of a run.
///
/// Variables made by the front end are described in full; the many copies
/// that reduction makes (fresh binders for every copied lambda) only record
/// the source variable they copy, 4 bytes each, and share its description.
///
/// Invariant: ids are dense, `0..len`; `origin[v]` indexes `sources`.
#[derive(Clone, Debug, Default)]
pub struct Vars {
    sources: Vec<VarInfo>,
    origin: Vec<u32>,
}

impl Vars {
    /// A new variable with the given description.
    pub fn fresh(&mut self, info: VarInfo) -> VarId {
        let id = VarId(u32::try_from(self.origin.len()).unwrap_or(u32::MAX));
        self.origin.push(u32::try_from(self.sources.len()).unwrap_or(u32::MAX));
        self.sources.push(info);
        id
    }

    /// A new variable described like `v` (same name, kind and span).
    pub fn copy_of(&mut self, v: VarId) -> VarId {
        let id = VarId(u32::try_from(self.origin.len()).unwrap_or(u32::MAX));
        let o = self.origin[v.0 as usize];
        debug_assert!((o as usize) < self.sources.len(), "origin of {v:?} out of range");
        self.origin.push(o);
        id
    }

    /// Sets where the binder of `v` stands (a variable the front end made:
    /// its description is its own).
    pub fn set_span(&mut self, v: VarId, span: Span) {
        let o = self.origin[v.0 as usize] as usize;
        debug_assert_eq!(o, v.0 as usize, "{v:?} shares the description of another variable");
        self.sources[o].span = span;
    }

    /// The description of `v`.
    pub fn info(&self, v: VarId) -> &VarInfo {
        &self.sources[self.origin[v.0 as usize] as usize]
    }

    /// The source name of `v`, if it has one.
    pub fn name(&self, v: VarId) -> Option<&str> {
        self.info(v).name.as_deref()
    }

    /// Number of variables.
    pub fn len(&self) -> usize {
        self.origin.len()
    }

    /// Whether the table is empty.
    pub fn is_empty(&self) -> bool {
        self.origin.is_empty()
    }
}

/// A body ⟨e, C⟩: a staging expression and a command.
#[derive(Debug)]
pub struct Body {
    /// When the body may run. Natural staging is resolved by the front end to
    /// the staging parameter of the nearest enclosing lambda.
    pub stage: SExp,
    /// What it does once active: an application or a `fix`.
    pub cmd: Cmd,
    /// The source of the body (kept by copies), for diagnostics.
    pub span: Span,
}

/// A command: an application or a `fix`.
#[derive(Clone, Debug)]
pub enum Cmd {
    /// `h a1 .. an`.
    App(Application),
    /// `fix [y] f = λ in b`.
    Fix(Box<Fix>),
}

/// An application `head args..`.
#[derive(Clone, Debug)]
pub struct Application {
    /// The function applied.
    pub head: Atom,
    /// Its arguments, splices included.
    pub args: Vec<Arg>,
    /// How the source wrote it (used only by `deepcps fmt`).
    pub sugar: Sugar,
}

/// The surface form an application came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Sugar {
    /// Plain application (or any term made by reduction).
    #[default]
    None,
    /// `let x = v b`: the head is the lambda `(x) { b }`, the one argument `v`.
    Let,
    /// The missing main body of a library file being formatted (`deepcps
    /// fmt`); never reduced.
    Hole,
}

/// `fix [y] f = λ in b`.
#[derive(Clone, Debug)]
pub struct Fix {
    /// The staging parameter of the implicit lambda around `b`.
    pub sparam: VarId,
    /// The name, bound inside the lambda (to the value itself) and in the
    /// scope.
    pub name: VarId,
    /// The recursive lambda; `name` may occur free in it.
    pub lam: Lambda,
    /// The scope of `name`.
    pub body: Body,
}

/// An argument: an atom, or a splice `!t` of a tuple's elements.
#[derive(Clone, Debug)]
pub enum Arg {
    /// A plain argument.
    Atom(Atom),
    /// `!t`. Holds a variable while `t` is symbolic; a known tuple is expanded
    /// at substitution time and never stays here.
    Splice(Atom),
}

/// A parameter of a lambda.
#[derive(Clone, Copy, Debug)]
pub struct Param {
    /// The bound variable.
    pub var: VarId,
    /// Whether it is the rest parameter `!r`.
    pub rest: bool,
}

/// `λ[y] p1..pk . B`.
#[derive(Clone, Debug)]
pub struct Lambda {
    /// The staging parameter (anonymous unless the source named it).
    pub sparam: VarId,
    /// The parameters; at most one is a rest parameter.
    pub params: Vec<Param>,
    /// The body, with its staging expression explicit.
    pub body: Body,
    /// The source of the lambda.
    pub span: Span,
}

impl Body {
    /// A body with nothing nested in it, never active: a placeholder (for
    /// iterative clone and drop, and for shallow looks at a body).
    pub fn hollow(span: Span) -> Body {
        Body {
            stage: SExp::Const(false),
            cmd: Cmd::App(Application {
                head: Atom::Int(0),
                args: Vec::new(),
                sugar: Sugar::None,
            }),
            span,
        }
    }

    /// This body, taken out of its place, which keeps a hollow body (to
    /// take a term apart while it is read: `Body` drops iteratively, so
    /// its parts cannot be moved out of it).
    pub fn take(&mut self) -> Body {
        let span = self.span;
        std::mem::replace(self, Body::hollow(span))
    }
}

impl Lambda {
    /// A lambda with nothing in it (a placeholder).
    fn empty() -> Lambda {
        Lambda {
            sparam: VarId(0),
            params: Vec::new(),
            body: Body::hollow(Span::default()),
            span: Span::default(),
        }
    }

    /// This lambda, taken out of its place, which keeps its binders'
    /// numbers around a hollow body (see [`Body::take`]).
    pub fn take(&mut self) -> Lambda {
        Lambda {
            sparam: self.sparam,
            params: std::mem::take(&mut self.params),
            body: self.body.take(),
            span: self.span,
        }
    }

    /// This lambda's binders around a hollow body.
    pub fn shell(&self) -> Lambda {
        Lambda {
            sparam: self.sparam,
            params: self.params.clone(),
            body: Body::hollow(self.body.span),
            span: self.span,
        }
    }
}

/// A staging expression.
#[derive(Clone, Debug)]
pub enum SExp {
    /// `always` (true) or `never` (false); also what a variable replaced by a
    /// concrete value becomes (LANGUAGE.md §4.2).
    Const(bool),
    /// A variable, symbolic while it stays here.
    Var(VarId),
    /// `!e`.
    Not(Box<SExp>),
    /// `a & b`.
    And(Box<SExp>, Box<SExp>),
    /// `a | b`.
    Or(Box<SExp>, Box<SExp>),
}

impl SExp {
    /// The value of the staging expression (LANGUAGE.md §4.2): variables are
    /// false (symbolic) unless `concrete` says otherwise.
    pub fn value(&self, concrete: &dyn Fn(VarId) -> bool) -> bool {
        match self {
            SExp::Const(b) => *b,
            SExp::Var(v) => concrete(*v),
            SExp::Not(a) => !a.value(concrete),
            SExp::And(a, b) => a.value(concrete) && b.value(concrete),
            SExp::Or(a, b) => a.value(concrete) || b.value(concrete),
        }
    }
}

/// Whether `f` holds for some variable of the staging expression (it stops
/// at the first). Iterative; a constant or a single variable, the usual
/// stages, is looked at without allocating.
pub fn any_stage_var(s: &SExp, mut f: impl FnMut(VarId) -> bool) -> bool {
    // The right operands still to visit.
    let mut rest: Vec<&SExp> = Vec::new();
    let mut cur = s;
    loop {
        match cur {
            SExp::Not(a) => {
                cur = a;
                continue;
            }
            SExp::And(a, b) | SExp::Or(a, b) => {
                rest.push(b);
                cur = a;
                continue;
            }
            SExp::Const(_) => {}
            SExp::Var(w) => {
                if f(*w) {
                    return true;
                }
            }
        }
        match rest.pop() {
            Some(next) => cur = next,
            None => return false,
        }
    }
}

/// Whether the staging expression mentions `v`.
pub fn mentions(s: &SExp, v: VarId) -> bool {
    any_stage_var(s, |w| w == v)
}

/// The variables a staging expression mentions.
pub fn stage_vars(s: &SExp, out: &mut Vec<VarId>) {
    any_stage_var(s, |w| {
        out.push(w);
        false
    });
}

/// Rewrites every `Var(v)` of a staging expression with `f(v)`. Iterative,
/// without allocating for a constant or a single variable.
pub fn rewrite_stage(s: &mut SExp, f: &dyn Fn(VarId) -> Option<SExp>) {
    let mut rest: Vec<&mut SExp> = Vec::new();
    let mut cur = s;
    loop {
        match cur {
            SExp::Not(a) => {
                cur = a;
                continue;
            }
            SExp::And(a, b) | SExp::Or(a, b) => {
                rest.push(b);
                cur = a;
                continue;
            }
            SExp::Const(_) => {}
            SExp::Var(w) => {
                if let Some(new) = f(*w) {
                    *cur = new;
                }
            }
        }
        match rest.pop() {
            Some(next) => cur = next,
            None => return,
        }
    }
}

/// Built-in functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    /// `$exit v`: halts with `v`.
    Exit,
    /// `if c t f`.
    If,
}

impl Builtin {
    /// The built-in written `$name`, if there is one.
    pub fn from_dollar_name(name: &str) -> Option<Builtin> {
        match name {
            "exit" => Some(Builtin::Exit),
            "if" => Some(Builtin::If),
            _ => None,
        }
    }
}

/// A matrix of integers, row-major.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Matrix {
    /// Number of rows.
    pub rows: usize,
    /// Number of columns.
    pub cols: usize,
    /// `rows * cols` entries, row by row.
    pub data: Vec<i64>,
}

/// A recursive lambda made by `fix`: `name` occurring free in `lam` denotes
/// this value itself.
#[derive(Clone, Debug)]
pub struct RecLambda {
    /// The name that denotes the value inside its own lambda.
    pub name: VarId,
    /// The lambda, whose body may apply `name`.
    pub lam: Lambda,
}

/// An atom: a variable or a value.
#[derive(Debug)]
pub enum Atom {
    /// A variable; symbolic once substitution has passed it by.
    Var(VarId),
    /// A 64-bit integer.
    Int(i64),
    /// A finite 64-bit float.
    Float(f64),
    /// `true` / `false`.
    Bool(bool),
    /// A string (made by expressions; no literal outside them).
    Str(Arc<str>),
    /// The staging constants `always` (true) and `never` (false).
    Stage(bool),
    /// A built-in function.
    Builtin(Builtin),
    /// A tuple; elements may be symbolic, and may be splices of symbolic tuples.
    Tuple(Vec<Arg>),
    /// A record `{f: v, ..}` in field order.
    Record(Vec<(Arc<str>, Atom)>),
    /// A persistent map, in insertion order; keys are concrete and distinct.
    Map(Vec<(Atom, Atom)>),
    /// A matrix.
    Matrix(Arc<Matrix>),
    /// An expression string, not yet evaluated.
    Expr(Box<Expr>),
    /// A lambda.
    Lambda(Box<Lambda>),
    /// A recursive lambda made by `fix`.
    Rec(Box<RecLambda>),
}

impl Arg {
    /// The atom of a plain argument or of a splice.
    pub fn atom(&self) -> &Atom {
        match self {
            Arg::Atom(x) | Arg::Splice(x) => x,
        }
    }
}

impl Atom {
    /// Whether a lambda hides in the atom: in a tuple, a record, a map or
    /// an expression (checked with an explicit stack).
    pub fn holds_lambda(&self) -> bool {
        let mut stack = vec![self];
        while let Some(a) = stack.pop() {
            match a {
                Atom::Lambda(_) | Atom::Rec(_) => return true,
                Atom::Tuple(xs) => stack.extend(xs.iter().map(Arg::atom)),
                Atom::Record(fs) => stack.extend(fs.iter().map(|(_, x)| x)),
                Atom::Map(kvs) => stack.extend(kvs.iter().flat_map(|(k, v)| [k, v])),
                Atom::Expr(e) => stack.extend(e.vals()),
                _ => {}
            }
        }
        false
    }

    /// The elements of a tuple, or the atom itself if it is no tuple.
    /// (`Atom` has an iterative `Drop`, so its parts cannot be moved out by
    /// a pattern.)
    pub fn into_tuple(mut self) -> Result<Vec<Arg>, Atom> {
        match &mut self {
            Atom::Tuple(xs) => Ok(std::mem::take(xs)),
            _ => Err(self),
        }
    }

    /// The lambda of a lambda atom, or the atom itself.
    pub fn into_lambda(mut self) -> Result<Box<Lambda>, Atom> {
        match &mut self {
            Atom::Lambda(l) => Ok(std::mem::replace(l, Box::new(Lambda::empty()))),
            _ => Err(self),
        }
    }

    /// The recursive lambda of a `fix` value, or the atom itself.
    pub fn into_rec(mut self) -> Result<Box<RecLambda>, Atom> {
        match &mut self {
            Atom::Rec(r) => Ok(std::mem::replace(
                r,
                Box::new(RecLambda {
                    name: r.name,
                    lam: Lambda::empty(),
                }),
            )),
            _ => Err(self),
        }
    }

    /// Whether the atom is a symbolic variable (every other atom is concrete).
    pub fn is_symbolic(&self) -> bool {
        matches!(self, Atom::Var(_))
    }

    /// A short name of the atom's kind, for error messages.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Atom::Var(_) => "symbolic variable",
            Atom::Int(_) => "integer",
            Atom::Float(_) => "float",
            Atom::Bool(_) => "boolean",
            Atom::Str(_) => "string",
            Atom::Stage(_) => "staging constant",
            Atom::Builtin(_) => "built-in",
            Atom::Tuple(_) => "tuple",
            Atom::Record(_) => "record",
            Atom::Map(_) => "map",
            Atom::Matrix(_) => "matrix",
            Atom::Expr(_) => "expression",
            Atom::Lambda(_) | Atom::Rec(_) => "lambda",
        }
    }
}

/// A whole resolved program.
#[derive(Clone, Debug)]
pub struct Program {
    /// The top-level body (staged on `always`).
    pub body: Body,
    /// Its variables.
    pub vars: Vars,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stage_walks_see_every_variable() {
        let v = |n| Box::new(SExp::Var(VarId(n)));
        // !(x0 & (x1 | never)) | x2
        let mut s = SExp::Or(
            Box::new(SExp::Not(Box::new(SExp::And(
                v(0),
                Box::new(SExp::Or(v(1), Box::new(SExp::Const(false)))),
            )))),
            v(2),
        );
        let mut vs = Vec::new();
        stage_vars(&s, &mut vs);
        vs.sort_unstable();
        assert_eq!(vs, [VarId(0), VarId(1), VarId(2)]);
        assert!(mentions(&s, VarId(1)) && !mentions(&s, VarId(3)));
        assert!(!mentions(&SExp::Const(true), VarId(0)));
        assert!(mentions(&SExp::Var(VarId(4)), VarId(4)));
        rewrite_stage(&mut s, &|w| (w == VarId(1)).then_some(SExp::Const(true)));
        let mut after = Vec::new();
        stage_vars(&s, &mut after);
        after.sort_unstable();
        assert_eq!(after, [VarId(0), VarId(2)]);
        let mut one = SExp::Var(VarId(7));
        rewrite_stage(&mut one, &|_| Some(SExp::Var(VarId(8))));
        assert!(matches!(one, SExp::Var(VarId(8))));
    }
}
