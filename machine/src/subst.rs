//! Capture-free substitution, the reference reducer's β and `fix`: a copy of a term in
//! which some variables are replaced by values and every binder inside gets a
//! fresh variable (LANGUAGE.md §5, "a fresh copy of b").
//!
//! Splices of known tuples are expanded as they are substituted, and a
//! staging variable replaced by a concrete value becomes `always`/`never`.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::expr::{Expr, ExprKind};
use crate::term::{Application, Arg, Atom, Body, Cmd, Fix, Lambda, Param, RecLambda, SExp, VarId, Vars};

/// A hasher for dense `u32` ids (a multiplicative hash): the copier looks a
/// variable up at every occurrence, and SipHash's strength buys nothing here.
#[derive(Default)]
pub struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }
    fn write_u32(&mut self, n: u32) {
        self.0 = (self.0.rotate_left(5) ^ u64::from(n)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

type IdMap<V> = HashMap<VarId, V, BuildHasherDefault<IdHasher>>;

/// A copy in progress: what each variable becomes.
pub struct Copier<'v> {
    vars: &'v mut Vars,
    map: IdMap<Atom>,
}

impl<'v> Copier<'v> {
    /// A copier replacing each `(v, a)` of `subst`.
    pub fn new(vars: &'v mut Vars, subst: impl IntoIterator<Item = (VarId, Atom)>) -> Copier<'v> {
        Copier {
            vars,
            map: subst.into_iter().collect(),
        }
    }

    /// Binds a fresh copy of `v` for the scope being copied; returns the new
    /// variable and what `v` meant before (to restore with [`Copier::unbind`]).
    fn bind(&mut self, v: VarId) -> (VarId, Option<Atom>) {
        let fresh = self.vars.copy_of(v);
        // Invariant (ARCHITECTURE.md): every binder of a copy is a new variable.
        debug_assert!(fresh != v && self.vars.name(fresh) == self.vars.name(v));
        (fresh, self.map.insert(v, Atom::Var(fresh)))
    }

    fn unbind(&mut self, v: VarId, old: Option<Atom>) {
        match old {
            Some(a) => {
                self.map.insert(v, a);
            }
            None => {
                self.map.remove(&v);
            }
        }
    }

    /// The copy of a body.
    pub fn body(&mut self, b: &Body) -> Body {
        crate::memory::tick();
        Body {
            stage: self.sexp(&b.stage),
            cmd: match &b.cmd {
                Cmd::App(app) => Cmd::App(Application {
                    head: self.atom(&app.head),
                    args: self.args(&app.args),
                    sugar: app.sugar,
                }),
                Cmd::Fix(fix) => {
                    let (sparam, old_s) = self.bind(fix.sparam);
                    let (name, old_n) = self.bind(fix.name);
                    let lam = self.lambda(&fix.lam);
                    let body = self.body(&fix.body);
                    self.unbind(fix.name, old_n);
                    self.unbind(fix.sparam, old_s);
                    Cmd::Fix(Box::new(Fix { sparam, name, lam, body }))
                }
            },
            span: b.span,
        }
    }

    /// The copy of a lambda, with fresh binders.
    pub fn lambda(&mut self, l: &Lambda) -> Lambda {
        let (sparam, old_s) = self.bind(l.sparam);
        let mut olds = Vec::with_capacity(l.params.len());
        let params = l
            .params
            .iter()
            .map(|p| {
                let (var, old) = self.bind(p.var);
                olds.push((p.var, old));
                Param { var, rest: p.rest }
            })
            .collect();
        let body = self.body(&l.body);
        for (v, old) in olds.into_iter().rev() {
            self.unbind(v, old);
        }
        self.unbind(l.sparam, old_s);
        Lambda {
            sparam,
            params,
            body,
            span: l.span,
        }
    }

    /// The copy of an argument list (known tuples spliced in).
    pub fn args(&mut self, args: &[Arg]) -> Vec<Arg> {
        let mut out = Vec::with_capacity(args.len());
        for a in args {
            match a {
                Arg::Atom(x) => out.push(Arg::Atom(self.atom(x))),
                Arg::Splice(x) => match self.atom(x).into_tuple() {
                    Ok(elems) => out.extend(elems),
                    Err(other) => out.push(Arg::Splice(other)),
                },
            }
        }
        // Invariant (term.rs, `Arg::Splice`): a known tuple never stays spliced.
        debug_assert!(!out.iter().any(|a| matches!(a, Arg::Splice(Atom::Tuple(_)))));
        out
    }

    /// The copy of an atom.
    pub fn atom(&mut self, a: &Atom) -> Atom {
        crate::memory::tick();
        match a {
            Atom::Var(v) => self.map.get(v).cloned().unwrap_or(Atom::Var(*v)),
            Atom::Int(_) | Atom::Float(_) | Atom::Bool(_) | Atom::Str(_) | Atom::Stage(_) | Atom::Builtin(_) | Atom::Matrix(_) => a.clone(),
            Atom::Tuple(xs) => Atom::Tuple(self.args(xs)),
            Atom::Record(fs) => Atom::Record(fs.iter().map(|(f, x)| (f.clone(), self.atom(x))).collect()),
            Atom::Map(kvs) => Atom::Map(kvs.iter().map(|(k, v)| (self.atom(k), self.atom(v))).collect()),
            Atom::Expr(e) => Atom::Expr(Box::new(self.expr(e))),
            Atom::Lambda(l) => Atom::Lambda(Box::new(self.lambda(l))),
            Atom::Rec(r) => {
                let (name, old) = self.bind(r.name);
                let lam = self.lambda(&r.lam);
                self.unbind(r.name, old);
                Atom::Rec(Box::new(RecLambda { name, lam }))
            }
        }
    }

    fn expr(&mut self, e: &Expr) -> Expr {
        e.map_leaves(&mut |leaf| match &leaf.kind {
            ExprKind::Val(a) => ExprKind::Val(self.atom(a)),
            other => other.clone(),
        })
    }

    /// The copy of a staging expression; a variable replaced by a concrete
    /// value becomes the constant it stands for.
    pub fn sexp(&mut self, s: &SExp) -> SExp {
        match s {
            SExp::Const(b) => SExp::Const(*b),
            SExp::Var(v) => match self.map.get(v) {
                None => SExp::Var(*v),
                Some(Atom::Var(w)) => SExp::Var(*w),
                Some(Atom::Stage(b)) => SExp::Const(*b),
                Some(_) => SExp::Const(true),
            },
            SExp::Not(a) => SExp::Not(Box::new(self.sexp(a))),
            SExp::And(a, b) => SExp::And(Box::new(self.sexp(a)), Box::new(self.sexp(b))),
            SExp::Or(a, b) => SExp::Or(Box::new(self.sexp(a)), Box::new(self.sexp(b))),
        }
    }
}
