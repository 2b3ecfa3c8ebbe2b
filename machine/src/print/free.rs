//! Free variables of the scopes the printer enters, computed once per body
//! and memoized, so that choosing printed names is linear in the size of the
//! term for the usual shapes (long chains whose scopes mention few outer
//! variables), not quadratic.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::rc::Rc;

use crate::term::{Arg, Atom, Body, Cmd, Lambda, SExp, VarId};

/// Memoized free-variable sets, keyed by the address of a body of the term
/// being printed (the term is borrowed immutably while printing, so addresses
/// are stable).
#[derive(Default)]
pub struct FreeVars {
    memo: HashMap<usize, Rc<HashSet<VarId>>>,
}

fn key(b: &Body) -> usize {
    b as *const Body as usize
}

/// The atoms of a body's command (head and arguments).
fn command_atoms(b: &Body) -> Vec<&Atom> {
    match &b.cmd {
        Cmd::App(app) => std::iter::once(&app.head)
            .chain(app.args.iter().map(|a| match a {
                Arg::Atom(x) | Arg::Splice(x) => x,
            }))
            .collect(),
        Cmd::Fix(_) => Vec::new(),
    }
}

/// Pushes onto `out` the bodies directly nested in `b` (through lambdas in
/// its atoms, or its `fix`), walking tuples, records, maps and expression
/// operands with an explicit stack.
fn child_bodies<'t>(b: &'t Body, out: &mut Vec<&'t Body>) {
    if let Cmd::Fix(f) = &b.cmd {
        out.push(&f.lam.body);
        out.push(&f.body);
        return;
    }
    let mut atoms = command_atoms(b);
    while let Some(a) = atoms.pop() {
        match a {
            Atom::Lambda(l) => out.push(&l.body),
            Atom::Rec(r) => out.push(&r.lam.body),
            Atom::Tuple(xs) => atoms.extend(xs.iter().map(|x| match x {
                Arg::Atom(x) | Arg::Splice(x) => x,
            })),
            Atom::Record(fs) => atoms.extend(fs.iter().map(|(_, x)| x)),
            Atom::Map(kvs) => atoms.extend(kvs.iter().flat_map(|(k, v)| [k, v])),
            Atom::Expr(e) => atoms.extend(e.vals()),
            _ => {}
        }
    }
}

impl FreeVars {
    /// The variables free in `b`: referenced in it and not bound inside it
    /// (bound further out, or symbolic variables of a value whose binder
    /// reduction left behind). Computed for all bodies below `b` at once,
    /// children before parents, without recursion.
    pub fn body(&mut self, root: &Body) -> Rc<HashSet<VarId>> {
        if let Some(s) = self.memo.get(&key(root)) {
            return s.clone();
        }
        let mut order: Vec<&Body> = Vec::new();
        let mut stack = vec![root];
        while let Some(b) = stack.pop() {
            if !self.memo.contains_key(&key(b)) {
                order.push(b);
                child_bodies(b, &mut stack);
            }
        }
        for b in order.into_iter().rev() {
            let mut out = HashSet::default();
            sexp(&b.stage, &mut out);
            match &b.cmd {
                Cmd::App(_) => {
                    for a in command_atoms(b) {
                        self.atom(a, &mut out);
                    }
                }
                Cmd::Fix(f) => {
                    let mut inner: HashSet<VarId> = HashSet::default();
                    self.lambda(&f.lam, &mut inner);
                    inner.extend(self.memoized(&f.body).iter().copied());
                    inner.remove(&f.sparam);
                    inner.remove(&f.name);
                    out.extend(inner);
                }
            }
            self.memo.insert(key(b), Rc::new(out));
        }
        self.memoized(root)
    }

    fn memoized(&mut self, b: &Body) -> Rc<HashSet<VarId>> {
        match self.memo.get(&key(b)) {
            Some(s) => s.clone(),
            None => self.body(b),
        }
    }

    /// Adds the variables free in `a` to `out`.
    pub fn atom(&mut self, a: &Atom, out: &mut HashSet<VarId>) {
        let mut atoms = vec![a];
        while let Some(a) = atoms.pop() {
            match a {
                Atom::Var(v) => {
                    out.insert(*v);
                }
                Atom::Tuple(xs) => atoms.extend(xs.iter().map(|x| match x {
                    Arg::Atom(x) | Arg::Splice(x) => x,
                })),
                Atom::Record(fs) => atoms.extend(fs.iter().map(|(_, x)| x)),
                Atom::Map(kvs) => atoms.extend(kvs.iter().flat_map(|(k, v)| [k, v])),
                Atom::Expr(e) => atoms.extend(e.vals()),
                Atom::Lambda(l) => self.lambda(l, out),
                Atom::Rec(r) => {
                    let mut inner = HashSet::default();
                    self.lambda(&r.lam, &mut inner);
                    inner.remove(&r.name);
                    out.extend(inner);
                }
                Atom::Int(_) | Atom::Float(_) | Atom::Bool(_) | Atom::Str(_) | Atom::Stage(_) | Atom::Builtin(_) | Atom::Matrix(_) => {}
            }
        }
    }

    fn lambda(&mut self, l: &Lambda, out: &mut HashSet<VarId>) {
        let inner = self.memoized(&l.body);
        let own: Vec<VarId> = std::iter::once(l.sparam).chain(l.params.iter().map(|p| p.var)).collect();
        out.extend(inner.iter().filter(|v| !own.contains(v)).copied());
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
