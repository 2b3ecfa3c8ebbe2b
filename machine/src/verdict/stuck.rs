//! The stuck warnings of a term or of an exit value: each active body
//! that waits for a symbolic variable, in the reference order, with what
//! needs the variable (LANGUAGE.md §4.3); and of an exit value, each
//! symbolic variable it holds as data that escaped its binder (a parameter
//! of a lambda never called: the value printed names a variable that never
//! got a value). Every machine reports them through here, on the term it ends
//! with.

use super::{verdict, Verdict};
use crate::diag::Diagnostic;
use crate::term::{Arg, Atom, Body, Cmd, RecLambda, VarId, VarKind, Vars};

/// The recursive values whose lambdas enclose the place being looked at.
type Recs = Vec<(VarId, Box<RecLambda>)>;

/// Warnings for the stuck bodies of the term `body`.
pub fn in_body(body: &Body, vars: &Vars) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    collect_body(body, &mut vars.clone(), &mut Vec::new(), &mut out);
    out
}

/// Warnings for the stuck bodies held by the exit value `value`, then for
/// the parameters it holds as data (itself, or inside its tuples, records
/// and maps; not in a lambda's body), by variable number.
pub fn in_value(value: &Atom, vars: &Vars) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    collect_atom(value, &mut vars.clone(), &mut Vec::new(), &mut out);
    // The variables the value holds as data: itself, or in its tuples,
    // records and maps. A lambda's body may name outer parameters: that is
    // code (a fragment left for later), not a value that lacks one.
    let mut free: Vec<VarId> = Vec::new();
    let mut todo = vec![value];
    while let Some(a) = todo.pop() {
        match a {
            Atom::Var(v) => free.push(*v),
            Atom::Tuple(xs) => todo.extend(xs.iter().map(Arg::atom)),
            Atom::Record(fs) => todo.extend(fs.iter().map(|(_, x)| x)),
            Atom::Map(kvs) => todo.extend(kvs.iter().flat_map(|(k, v)| [k, v])),
            _ => {}
        }
    }
    free.sort();
    free.dedup();
    for v in free {
        let info = vars.info(v);
        if !matches!(info.kind, VarKind::Param | VarKind::Rest) {
            continue;
        }
        let name = info.name.as_deref().unwrap_or("_");
        out.push(Diagnostic::warning(
            "escaped",
            format!(
                "the exit value holds the symbolic variable `{name}`: the lambda that binds it was never called, so `{name}` has no value"
            ),
            info.span,
            format!("`{name}` is bound here"),
        ));
    }
    out
}

/// What is left to do while collecting stuck bodies.
enum Collect<'t> {
    /// Look into an atom.
    Atom(&'t Atom),
    /// Look into a body: first what is nested in it, then the body itself.
    Body(&'t Body),
    /// Everything nested in this body was looked at: check the body.
    Check(&'t Body),
    /// Leave the scope of the innermost recursive value.
    PopRec,
}

/// Collects warnings for the stuck bodies nested anywhere in `a`.
fn collect_atom(a: &Atom, vars: &mut Vars, recs: &mut Recs, out: &mut Vec<Diagnostic>) {
    collect_stuck(Collect::Atom(a), vars, recs, out);
}

/// Collects warnings for the stuck bodies of `b` and nested in it.
fn collect_body(b: &Body, vars: &mut Vars, recs: &mut Recs, out: &mut Vec<Diagnostic>) {
    collect_stuck(Collect::Body(b), vars, recs, out);
}

/// The walk of [`in_body`], in the reference order (nested bodies
/// first, left to right, then the body), with an explicit stack: deep chains
/// and values do not recurse.
fn collect_stuck(start: Collect<'_>, vars: &mut Vars, recs: &mut Recs, out: &mut Vec<Diagnostic>) {
    let mut todo = vec![start];
    while let Some(t) = todo.pop() {
        match t {
            Collect::PopRec => {
                recs.pop();
            }
            Collect::Check(b) => check_stuck(b, vars, recs, out),
            Collect::Body(b) => {
                todo.push(Collect::Check(b));
                match &b.cmd {
                    Cmd::App(app) => {
                        for a in app.args.iter().rev() {
                            let (Arg::Atom(x) | Arg::Splice(x)) = a;
                            todo.push(Collect::Atom(x));
                        }
                        todo.push(Collect::Atom(&app.head));
                    }
                    Cmd::Fix(fix) => {
                        todo.push(Collect::Body(&fix.body));
                        todo.push(Collect::Body(&fix.lam.body));
                    }
                }
            }
            Collect::Atom(a) => match a {
                Atom::Lambda(l) => todo.push(Collect::Body(&l.body)),
                Atom::Rec(r) => {
                    recs.push((r.name, r.clone()));
                    todo.push(Collect::PopRec);
                    todo.push(Collect::Body(&r.lam.body));
                }
                Atom::Tuple(xs) => {
                    for x in xs.iter().rev() {
                        let (Arg::Atom(x) | Arg::Splice(x)) = x;
                        todo.push(Collect::Atom(x));
                    }
                }
                Atom::Record(fs) => todo.extend(fs.iter().rev().map(|(_, x)| Collect::Atom(x))),
                Atom::Map(kvs) => {
                    for (k, v) in kvs.iter().rev() {
                        todo.push(Collect::Atom(v));
                        todo.push(Collect::Atom(k));
                    }
                }
                Atom::Expr(e) => todo.extend(e.vals().into_iter().rev().map(Collect::Atom)),
                _ => {}
            },
        }
    }
}

/// The warning for `b` itself, if it is stuck.
fn check_stuck(b: &Body, vars: &mut Vars, recs: &mut Recs, out: &mut Vec<Diagnostic>) {
    if let Verdict::Stuck(s) = verdict(b, vars, recs) {
        let name = vars.name(s.var).unwrap_or("an anonymous staging parameter").to_string();
        out.push(Diagnostic::warning(
            "stuck",
            format!("stuck body: {} (`{name}`)", s.what),
            b.span,
            format!("waits for `{name}`"),
        ));
    }
}
