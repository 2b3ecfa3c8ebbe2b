//! Free variables of the scopes the printer enters, computed once per body
//! and memoized, so that choosing printed names is linear in the size of the
//! term for the usual shapes (long chains whose scopes mention few outer
//! variables), not quadratic.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use crate::expr::Expr;
use crate::term::{Arg, Atom, Body, Cmd, Lambda, SExp, VarId};

/// Memoized free-variable sets, keyed by the address of a body of the term
/// being printed (the term is borrowed immutably while printing, so addresses
/// are stable).
#[derive(Default)]
pub struct FreeVars {
    memo: HashMap<usize, Rc<HashSet<VarId>>>,
}

impl FreeVars {
    /// The variables free in `b`: referenced in it and not bound inside it
    /// (bound further out, or symbolic variables of a value whose binder
    /// reduction left behind).
    pub fn body(&mut self, b: &Body) -> Rc<HashSet<VarId>> {
        let key = b as *const Body as usize;
        if let Some(s) = self.memo.get(&key) {
            return s.clone();
        }
        let mut out = HashSet::new();
        sexp(&b.stage, &mut out);
        match &b.cmd {
            Cmd::App(app) => {
                self.atom(&app.head, &mut out);
                for a in &app.args {
                    let (Arg::Atom(x) | Arg::Splice(x)) = a;
                    self.atom(x, &mut out);
                }
            }
            Cmd::Fix(f) => {
                let mut inner: HashSet<VarId> = HashSet::new();
                self.lambda(&f.lam, &mut inner);
                inner.extend(self.body(&f.body).iter().copied());
                inner.remove(&f.sparam);
                inner.remove(&f.name);
                out.extend(inner);
            }
        }
        let s = Rc::new(out);
        self.memo.insert(key, s.clone());
        s
    }

    /// Adds the variables free in `a` to `out`.
    pub fn atom(&mut self, a: &Atom, out: &mut HashSet<VarId>) {
        match a {
            Atom::Var(v) => {
                out.insert(*v);
            }
            Atom::Tuple(xs) => {
                for x in xs {
                    let (Arg::Atom(x) | Arg::Splice(x)) = x;
                    self.atom(x, out);
                }
            }
            Atom::Record(fs) => fs.iter().for_each(|(_, x)| self.atom(x, out)),
            Atom::Map(kvs) => kvs.iter().for_each(|(k, v)| {
                self.atom(k, out);
                self.atom(v, out);
            }),
            Atom::Expr(e) => self.expr(e, out),
            Atom::Lambda(l) => self.lambda(l, out),
            Atom::Rec(r) => {
                let mut inner = HashSet::new();
                self.lambda(&r.lam, &mut inner);
                inner.remove(&r.name);
                out.extend(inner);
            }
            Atom::Int(_) | Atom::Float(_) | Atom::Bool(_) | Atom::Str(_) | Atom::Stage(_) | Atom::Builtin(_) | Atom::Matrix(_) => {}
        }
    }

    fn lambda(&mut self, l: &Lambda, out: &mut HashSet<VarId>) {
        let inner = self.body(&l.body);
        let own: Vec<VarId> = std::iter::once(l.sparam).chain(l.params.iter().map(|p| p.var)).collect();
        out.extend(inner.iter().filter(|v| !own.contains(v)).copied());
    }

    fn expr(&mut self, e: &Expr, out: &mut HashSet<VarId>) {
        e.for_each_val(&mut |a| self.atom(a, out));
    }
}

fn sexp(s: &SExp, out: &mut HashSet<VarId>) {
    match s {
        SExp::Const(_) => {}
        SExp::Var(v) => {
            out.insert(*v);
        }
        SExp::Not(a) => sexp(a, out),
        SExp::And(a, b) | SExp::Or(a, b) => {
            sexp(a, out);
            sexp(b, out);
        }
    }
}
