//! Alpha-equivalence: whether two recursive values are the same value up to
//! the names of the variables they bind.
//!
//! A recursive value prints as a `fix` at the innermost body holding it
//! (LANGUAGE.md §8). Two copies of one value that reduction named apart are
//! the same value: the reference's β gives every binder of the body it
//! copies a fresh variable, so the copies of a value already standing in
//! that body get names of their own, where the graph machine's β in place
//! keeps one name. The printer prints such copies as one `fix`, so how a
//! machine named its copies does not show in what it prints. The walk is
//! iterative (values nest as deeply as terms) and stops at the first
//! difference.
//!
//! [`held_recs`] decides, for one application, which recursive values print
//! as a `fix` before it and which print as another's name; the printer and
//! the lambda graph (which names variables as the printer does) both ask it.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::free::FreeVars;
use super::names::Names;
use crate::expr::{Expr, ExprKind};
use crate::term::{Application, Arg, Atom, Body, Cmd, Lambda, RecLambda, SExp, VarId};

/// The recursive values an application holds outside lambdas, as printed.
pub struct HeldRecs<'t> {
    /// Those printed as a `fix` before the application, in reading order.
    pub printed: Vec<&'t RecLambda>,
    /// Copies of one of those named apart: (the copy's name, the name it
    /// prints as).
    pub aliases: Vec<(VarId, VarId)>,
}

impl HeldRecs<'_> {
    /// The variables the scope of `r`'s printed name must not capture: those
    /// its lambda and the application mention, and the names of all the
    /// values printed with it (the application refers to each by name, so
    /// a later one of the same name must not hide an earlier).
    pub fn refs(&self, r: &RecLambda, app: &Application, fv: &mut FreeVars) -> HashSet<VarId> {
        let mut refs: HashSet<VarId> = fv.body(&r.lam.body).iter().copied().collect();
        for a in std::iter::once(&app.head).chain(app.args.iter().map(|a| match a {
            Arg::Atom(x) | Arg::Splice(x) => x,
        })) {
            fv.atom(a, &mut refs);
        }
        refs.extend(self.printed.iter().map(|p| p.name));
        refs
    }
}

/// Which recursive values `app` holds outside lambdas print as a `fix`
/// before it, and which are copies of those, named apart.
pub fn held_recs<'t>(app: &'t Application, names: &Names) -> HeldRecs<'t> {
    let mut held = HeldRecs {
        printed: Vec::new(),
        aliases: Vec::new(),
    };
    for r in direct_recs(app) {
        match held.printed.iter().find(|p| names.same_source(p.name, r.name) && same_rec(p, r)) {
            Some(first) => held.aliases.push((r.name, first.name)),
            None => held.printed.push(r),
        }
    }
    held
}

/// The distinct recursive values held by an application outside lambdas.
pub fn direct_recs(app: &Application) -> Vec<&RecLambda> {
    let mut out: Vec<&RecLambda> = Vec::new();
    let mut seen = HashSet::default();
    // A stack in reverse reading order: the head pops first.
    let mut stack: Vec<&Atom> = app
        .args
        .iter()
        .rev()
        .map(|a| match a {
            Arg::Atom(x) | Arg::Splice(x) => x,
        })
        .collect();
    stack.push(&app.head);
    while let Some(a) = stack.pop() {
        match a {
            Atom::Rec(r) if seen.insert(r.name) => out.push(r),
            Atom::Tuple(xs) => stack.extend(xs.iter().rev().map(|x| match x {
                Arg::Atom(x) | Arg::Splice(x) => x,
            })),
            Atom::Record(fs) => stack.extend(fs.iter().rev().map(|(_, x)| x)),
            _ => {}
        }
    }
    out
}

/// A pair of parts to compare, or a scope to close.
enum Work<'t> {
    Atom(&'t Atom, &'t Atom),
    Arg(&'t Arg, &'t Arg),
    Body(&'t Body, &'t Body),
    Lambda(&'t Lambda, &'t Lambda),
    Stage(&'t SExp, &'t SExp),
    Expr(&'t Expr, &'t Expr),
    /// The end of the scope of a pair of binders: the pairing they shadowed
    /// is restored.
    Unbind(Shadowed),
}

/// What a pair of binders shadowed: each binder and its earlier partner.
struct Shadowed {
    a: VarId,
    b: VarId,
    a_was: Option<VarId>,
    b_was: Option<VarId>,
}

/// The binders paired so far, both ways.
#[derive(Default)]
struct Alpha {
    a2b: HashMap<VarId, VarId>,
    b2a: HashMap<VarId, VarId>,
}

impl Alpha {
    /// Pairs the binders `a` and `b` for the scope that follows; the returned
    /// work closes it.
    fn bind<'t>(&mut self, a: VarId, b: VarId) -> Work<'t> {
        let a_was = self.a2b.insert(a, b);
        let b_was = self.b2a.insert(b, a);
        Work::Unbind(Shadowed { a, b, a_was, b_was })
    }

    fn unbind(&mut self, s: Shadowed) {
        match s.a_was {
            Some(v) => self.a2b.insert(s.a, v),
            None => self.a2b.remove(&s.a),
        };
        match s.b_was {
            Some(v) => self.b2a.insert(s.b, v),
            None => self.b2a.remove(&s.b),
        };
    }

    /// Whether the occurrences `x` and `y` denote the same variable: paired
    /// binders, or one free variable.
    fn var(&self, x: VarId, y: VarId) -> bool {
        match (self.a2b.get(&x), self.b2a.get(&y)) {
            (Some(&y2), Some(&x2)) => y2 == y && x2 == x,
            (None, None) => x == y,
            _ => false,
        }
    }
}

/// Whether `a` and `b` are the same recursive value up to the names of the
/// variables bound in them (their own names included).
pub fn same_rec(a: &RecLambda, b: &RecLambda) -> bool {
    let mut alpha = Alpha::default();
    let close = alpha.bind(a.name, b.name);
    let mut stack = vec![close, Work::Lambda(&a.lam, &b.lam)];
    while let Some(w) = stack.pop() {
        let same = match w {
            Work::Unbind(s) => {
                alpha.unbind(s);
                true
            }
            Work::Lambda(x, y) => {
                let same = x.params.len() == y.params.len() && x.params.iter().zip(&y.params).all(|(p, q)| p.rest == q.rest);
                if same {
                    stack.push(alpha.bind(x.sparam, y.sparam));
                    for (p, q) in x.params.iter().zip(&y.params) {
                        stack.push(alpha.bind(p.var, q.var));
                    }
                    stack.push(Work::Body(&x.body, &y.body));
                }
                same
            }
            Work::Body(x, y) => {
                stack.push(Work::Stage(&x.stage, &y.stage));
                match (&x.cmd, &y.cmd) {
                    (Cmd::App(p), Cmd::App(q)) if p.args.len() == q.args.len() => {
                        stack.push(Work::Atom(&p.head, &q.head));
                        stack.extend(p.args.iter().zip(&q.args).map(|(s, t)| Work::Arg(s, t)));
                        true
                    }
                    (Cmd::Fix(p), Cmd::Fix(q)) => {
                        stack.push(alpha.bind(p.sparam, q.sparam));
                        stack.push(alpha.bind(p.name, q.name));
                        stack.push(Work::Lambda(&p.lam, &q.lam));
                        stack.push(Work::Body(&p.body, &q.body));
                        true
                    }
                    _ => false,
                }
            }
            Work::Arg(Arg::Atom(x), Arg::Atom(y)) | Work::Arg(Arg::Splice(x), Arg::Splice(y)) => {
                stack.push(Work::Atom(x, y));
                true
            }
            Work::Arg(..) => false,
            Work::Stage(x, y) => match (x, y) {
                (SExp::Const(p), SExp::Const(q)) => p == q,
                (SExp::Var(p), SExp::Var(q)) => alpha.var(*p, *q),
                (SExp::Not(p), SExp::Not(q)) => {
                    stack.push(Work::Stage(p, q));
                    true
                }
                (SExp::And(p, r), SExp::And(q, s)) | (SExp::Or(p, r), SExp::Or(q, s)) => {
                    stack.push(Work::Stage(p, q));
                    stack.push(Work::Stage(r, s));
                    true
                }
                _ => false,
            },
            Work::Atom(x, y) => atoms(&mut alpha, &mut stack, x, y),
            Work::Expr(x, y) => exprs(&mut stack, x, y),
        };
        if !same {
            return false;
        }
    }
    true
}

/// Compares two atoms' own parts, pushing their children.
fn atoms<'t>(alpha: &mut Alpha, stack: &mut Vec<Work<'t>>, x: &'t Atom, y: &'t Atom) -> bool {
    match (x, y) {
        (Atom::Var(p), Atom::Var(q)) => alpha.var(*p, *q),
        (Atom::Int(p), Atom::Int(q)) => p == q,
        (Atom::Float(p), Atom::Float(q)) => p.to_bits() == q.to_bits(),
        (Atom::Bool(p), Atom::Bool(q)) | (Atom::Stage(p), Atom::Stage(q)) => p == q,
        (Atom::Str(p), Atom::Str(q)) => p == q,
        (Atom::Builtin(p), Atom::Builtin(q)) => p == q,
        (Atom::Matrix(p), Atom::Matrix(q)) => p == q,
        (Atom::Tuple(p), Atom::Tuple(q)) if p.len() == q.len() => {
            stack.extend(p.iter().zip(q).map(|(s, t)| Work::Arg(s, t)));
            true
        }
        (Atom::Record(p), Atom::Record(q)) if p.len() == q.len() => p.iter().zip(q).all(|((f, s), (g, t))| {
            stack.push(Work::Atom(s, t));
            f == g
        }),
        (Atom::Map(p), Atom::Map(q)) if p.len() == q.len() => {
            for ((k, v), (l, w)) in p.iter().zip(q) {
                stack.push(Work::Atom(k, l));
                stack.push(Work::Atom(v, w));
            }
            true
        }
        (Atom::Expr(p), Atom::Expr(q)) => {
            stack.push(Work::Expr(p, q));
            true
        }
        (Atom::Lambda(p), Atom::Lambda(q)) => {
            stack.push(Work::Lambda(p, q));
            true
        }
        (Atom::Rec(p), Atom::Rec(q)) => {
            stack.push(alpha.bind(p.name, q.name));
            stack.push(Work::Lambda(&p.lam, &q.lam));
            true
        }
        _ => false,
    }
}

/// Compares two expressions' own parts, pushing their children.
fn exprs<'t>(stack: &mut Vec<Work<'t>>, x: &'t Expr, y: &'t Expr) -> bool {
    let pairs = |stack: &mut Vec<Work<'t>>, p: &'t [Expr], q: &'t [Expr]| {
        stack.extend(p.iter().zip(q).map(|(s, t)| Work::Expr(s, t)));
        p.len() == q.len()
    };
    match (&x.kind, &y.kind) {
        (ExprKind::Val(p), ExprKind::Val(q)) => {
            stack.push(Work::Atom(p, q));
            true
        }
        (ExprKind::Name(p), ExprKind::Name(q)) => p == q,
        (ExprKind::Tuple(p), ExprKind::Tuple(q)) => pairs(stack, p, q),
        (ExprKind::Record(p), ExprKind::Record(q)) if p.len() == q.len() => p.iter().zip(q).all(|((f, s), (g, t))| {
            stack.push(Work::Expr(s, t));
            f == g
        }),
        (ExprKind::Unary(o, p), ExprKind::Unary(u, q)) => {
            stack.push(Work::Expr(p, q));
            o == u
        }
        (ExprKind::Binary(o, p, r), ExprKind::Binary(u, q, s)) => {
            stack.push(Work::Expr(p, q));
            stack.push(Work::Expr(r, s));
            o == u
        }
        (ExprKind::Index(p, r), ExprKind::Index(q, s)) | (ExprKind::Range(p, r), ExprKind::Range(q, s)) => {
            stack.push(Work::Expr(p, q));
            stack.push(Work::Expr(r, s));
            true
        }
        (ExprKind::Field(p, f), ExprKind::Field(q, g)) => {
            stack.push(Work::Expr(p, q));
            f == g
        }
        (ExprKind::Call(f, p), ExprKind::Call(g, q)) => f == g && pairs(stack, p, q),
        (ExprKind::Method(p, f, r), ExprKind::Method(q, g, s)) => {
            stack.push(Work::Expr(p, q));
            f == g && pairs(stack, r, s)
        }
        _ => false,
    }
}
