//! Printed names of binders (LANGUAGE.md §6): binders keep their source
//! names; where a name would capture another variable of the same name
//! referenced in its scope, the inner binder becomes `name_k` with the lowest
//! `k ≥ 1` that is not the printed name of a variable referenced in its scope.
//! The choice depends only on the term's shape and names, never on ids.

use std::collections::{HashMap, HashSet};

use crate::expr::{Expr, ExprKind};
use crate::term::{Arg, Atom, Body, Cmd, Lambda, SExp, VarId, Vars};

/// The printed names of the binders in scope.
pub struct Names<'v> {
    vars: &'v Vars,
    env: HashMap<VarId, String>,
}

impl<'v> Names<'v> {
    /// No binder in scope yet.
    pub fn new(vars: &'v Vars) -> Names<'v> {
        Names { vars, env: HashMap::new() }
    }

    /// The printed name of `v`.
    pub fn name(&self, v: VarId) -> String {
        if let Some(n) = self.env.get(&v) {
            return n.clone();
        }
        self.vars.name(v).unwrap_or("_").to_string()
    }

    /// Whether `v` is an anonymous staging parameter.
    pub fn anonymous(&self, v: VarId) -> bool {
        self.vars.name(v).is_none()
    }

    /// The table of variables.
    pub fn vars(&self) -> &'v Vars {
        self.vars
    }

    /// Enters the scope of `binders`, in which the variables `referenced` are
    /// free (see [`referenced_in_body`]);
    /// returns what to restore with [`Names::leave`].
    pub fn enter(&mut self, binders: &[VarId], referenced: &HashSet<VarId>) -> Vec<(VarId, Option<String>)> {
        let own: HashSet<VarId> = binders.iter().copied().collect();
        let outer: HashSet<String> = referenced.iter().filter(|w| !own.contains(w)).map(|w| self.name(*w)).collect();
        let mut taken: HashSet<String> = HashSet::new();
        let mut saved = Vec::with_capacity(binders.len());
        for &b in binders {
            let Some(src) = self.vars.name(b) else {
                saved.push((b, self.env.remove(&b)));
                continue;
            };
            let mut name = src.to_string();
            if outer.contains(&name) || taken.contains(&name) {
                let mut k = 1;
                loop {
                    name = format!("{src}_{k}");
                    if !outer.contains(&name) && !taken.contains(&name) {
                        break;
                    }
                    k += 1;
                }
            }
            taken.insert(name.clone());
            saved.push((b, self.env.insert(b, name)));
        }
        saved
    }

    /// Leaves a scope entered with [`Names::enter`].
    pub fn leave(&mut self, saved: Vec<(VarId, Option<String>)>) {
        for (v, old) in saved.into_iter().rev() {
            match old {
                Some(n) => {
                    self.env.insert(v, n);
                }
                None => {
                    self.env.remove(&v);
                }
            }
        }
    }
}

/// The binders of a lambda: staging parameter, then parameters.
pub fn lambda_binders(l: &Lambda) -> Vec<VarId> {
    std::iter::once(l.sparam).chain(l.params.iter().map(|p| p.var)).collect()
}

/// The variables free in a body: referenced in it and not bound inside it.
/// (They are bound further out, or are symbolic variables of a value whose
/// binder was left behind by reduction.)
pub fn referenced_in_body(b: &Body) -> HashSet<VarId> {
    let mut out = HashSet::new();
    refs_body(b, &mut out);
    let mut bound = HashSet::new();
    binders_body(b, &mut bound);
    out.retain(|v| !bound.contains(v));
    out
}

/// The variables free in an atom.
pub fn referenced_in_atom(a: &Atom) -> HashSet<VarId> {
    let mut out = HashSet::new();
    refs_atom(a, &mut out);
    let mut bound = HashSet::new();
    binders_atom(a, &mut bound);
    out.retain(|v| !bound.contains(v));
    out
}

fn binders_lambda(l: &Lambda, out: &mut HashSet<VarId>) {
    out.extend(lambda_binders(l));
    binders_body(&l.body, out);
}

fn binders_body(b: &Body, out: &mut HashSet<VarId>) {
    match &b.cmd {
        Cmd::App(app) => {
            binders_atom(&app.head, out);
            for a in &app.args {
                let (Arg::Atom(x) | Arg::Splice(x)) = a;
                binders_atom(x, out);
            }
        }
        Cmd::Fix(f) => {
            out.insert(f.sparam);
            out.insert(f.name);
            binders_lambda(&f.lam, out);
            binders_body(&f.body, out);
        }
    }
}

fn binders_atom(a: &Atom, out: &mut HashSet<VarId>) {
    match a {
        Atom::Tuple(xs) => {
            for x in xs {
                let (Arg::Atom(x) | Arg::Splice(x)) = x;
                binders_atom(x, out);
            }
        }
        Atom::Record(fs) => fs.iter().for_each(|(_, x)| binders_atom(x, out)),
        Atom::Map(kvs) => kvs.iter().for_each(|(k, v)| {
            binders_atom(k, out);
            binders_atom(v, out);
        }),
        Atom::Expr(e) => binders_expr(e, out),
        Atom::Lambda(l) => binders_lambda(l, out),
        Atom::Rec(r) => {
            out.insert(r.name);
            binders_lambda(&r.lam, out);
        }
        _ => {}
    }
}

fn binders_expr(e: &Expr, out: &mut HashSet<VarId>) {
    match &e.kind {
        ExprKind::Val(a) => binders_atom(a, out),
        ExprKind::Name(_) => {}
        ExprKind::Tuple(xs) | ExprKind::Call(_, xs) => xs.iter().for_each(|x| binders_expr(x, out)),
        ExprKind::Record(fs) => fs.iter().for_each(|(_, x)| binders_expr(x, out)),
        ExprKind::Unary(_, a) | ExprKind::Field(a, _) => binders_expr(a, out),
        ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) | ExprKind::Range(a, b) => {
            binders_expr(a, out);
            binders_expr(b, out);
        }
        ExprKind::Method(a, _, xs) => {
            binders_expr(a, out);
            xs.iter().for_each(|x| binders_expr(x, out));
        }
    }
}

fn refs_body(b: &Body, out: &mut HashSet<VarId>) {
    refs_sexp(&b.stage, out);
    match &b.cmd {
        Cmd::App(app) => {
            refs_atom(&app.head, out);
            for a in &app.args {
                let (Arg::Atom(x) | Arg::Splice(x)) = a;
                refs_atom(x, out);
            }
        }
        Cmd::Fix(f) => {
            refs_body(&f.lam.body, out);
            refs_body(&f.body, out);
        }
    }
}

fn refs_sexp(s: &SExp, out: &mut HashSet<VarId>) {
    match s {
        SExp::Const(_) => {}
        SExp::Var(v) => {
            out.insert(*v);
        }
        SExp::Not(a) => refs_sexp(a, out),
        SExp::And(a, b) | SExp::Or(a, b) => {
            refs_sexp(a, out);
            refs_sexp(b, out);
        }
    }
}

fn refs_atom(a: &Atom, out: &mut HashSet<VarId>) {
    match a {
        Atom::Var(v) => {
            out.insert(*v);
        }
        Atom::Tuple(xs) => {
            for x in xs {
                let (Arg::Atom(x) | Arg::Splice(x)) = x;
                refs_atom(x, out);
            }
        }
        Atom::Record(fs) => fs.iter().for_each(|(_, x)| refs_atom(x, out)),
        Atom::Map(kvs) => kvs.iter().for_each(|(k, v)| {
            refs_atom(k, out);
            refs_atom(v, out);
        }),
        Atom::Expr(e) => refs_expr(e, out),
        Atom::Lambda(l) => refs_body(&l.body, out),
        Atom::Rec(r) => refs_body(&r.lam.body, out),
        _ => {}
    }
}

fn refs_expr(e: &Expr, out: &mut HashSet<VarId>) {
    match &e.kind {
        ExprKind::Val(a) => refs_atom(a, out),
        ExprKind::Name(_) => {}
        ExprKind::Tuple(xs) | ExprKind::Call(_, xs) => xs.iter().for_each(|x| refs_expr(x, out)),
        ExprKind::Record(fs) => fs.iter().for_each(|(_, x)| refs_expr(x, out)),
        ExprKind::Unary(_, a) | ExprKind::Field(a, _) => refs_expr(a, out),
        ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) | ExprKind::Range(a, b) => {
            refs_expr(a, out);
            refs_expr(b, out);
        }
        ExprKind::Method(a, _, xs) => {
            refs_expr(a, out);
            xs.iter().for_each(|x| refs_expr(x, out));
        }
    }
}
