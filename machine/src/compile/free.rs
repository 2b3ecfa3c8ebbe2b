//! The free variables of a lambda: what a closure of it must capture.
//!
//! Every binder of a term has its own [`VarId`], so the free variables of
//! a lambda are the variables it uses minus those it binds. Staging
//! parameters are left out: in code that runs in call order, a staging
//! parameter in scope belongs to a lambda that has been called, so it is
//! `always` wherever it is read. The walk keeps its own stack.

use rustc_hash::FxHashSet;

use crate::term::{Arg, Atom, Body, Cmd, Lambda, VarId, VarKind, Vars};

/// The free variables of `lam`, in the order of their first use, without
/// staging parameters (and without `except`, the name a recursive lambda
/// has for itself).
pub(super) fn free_vars(lam: &Lambda, except: Option<VarId>, vars: &Vars) -> Vec<VarId> {
    let mut free = free_vars_with_stages(lam, except);
    free.retain(|v| vars.info(*v).kind != VarKind::Stage);
    free
}

/// [`free_vars`] with the staging parameters (of lambdas around `lam`)
/// among them.
pub(super) fn free_vars_with_stages(lam: &Lambda, except: Option<VarId>) -> Vec<VarId> {
    let mut bound: FxHashSet<VarId> = FxHashSet::default();
    bind_lambda(lam, &mut bound);
    let mut free = used_outside(Vec::new(), vec![&lam.body], bound);
    free.retain(|v| Some(*v) != except);
    free
}

/// The variables of the atom `a` (a tuple written as a head), in the order
/// of their first use, staging parameters among them.
pub(super) fn atom_free_vars(a: &Atom) -> Vec<VarId> {
    used_outside(vec![a], Vec::new(), FxHashSet::default())
}

/// The variables used in `atoms` and `bodies` and not bound in them nor in
/// `bound`, in the order of their first use (each atom before the bodies
/// it holds).
fn used_outside<'a>(mut atoms: Vec<&'a Atom>, mut bodies: Vec<&'a Body>, mut bound: FxHashSet<VarId>) -> Vec<VarId> {
    let mut used: Vec<VarId> = Vec::new();
    let mut seen: FxHashSet<VarId> = FxHashSet::default();
    loop {
        if let Some(a) = atoms.pop() {
            match a {
                Atom::Var(v) => {
                    if seen.insert(*v) {
                        used.push(*v);
                    }
                }
                Atom::Tuple(xs) => atoms.extend(xs.iter().rev().map(Arg::atom)),
                Atom::Record(fs) => atoms.extend(fs.iter().rev().map(|(_, x)| x)),
                Atom::Map(kvs) => atoms.extend(kvs.iter().rev().flat_map(|(k, v)| [v, k])),
                Atom::Expr(e) => atoms.extend(e.vals().into_iter().rev()),
                Atom::Lambda(l) => {
                    bind_lambda(l, &mut bound);
                    bodies.push(&l.body);
                }
                Atom::Rec(r) => {
                    bound.insert(r.name);
                    bind_lambda(&r.lam, &mut bound);
                    bodies.push(&r.lam.body);
                }
                Atom::Int(_) | Atom::Float(_) | Atom::Bool(_) | Atom::Str(_) | Atom::Stage(_) | Atom::Builtin(_) | Atom::Matrix(_) => {}
            }
            continue;
        }
        let Some(b) = bodies.pop() else { break };
        match &b.cmd {
            Cmd::App(app) => {
                atoms.extend(app.args.iter().rev().map(Arg::atom));
                atoms.push(&app.head);
            }
            Cmd::Fix(fx) => {
                bound.insert(fx.sparam);
                bound.insert(fx.name);
                bind_lambda(&fx.lam, &mut bound);
                bodies.push(&fx.body);
                bodies.push(&fx.lam.body);
            }
        }
    }
    used.retain(|v| !bound.contains(v));
    used
}

fn bind_lambda(l: &Lambda, bound: &mut FxHashSet<VarId>) {
    bound.insert(l.sparam);
    bound.extend(l.params.iter().map(|p| p.var));
}
