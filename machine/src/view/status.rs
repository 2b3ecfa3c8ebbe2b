//! The status of one body in a term, as the views colour it: inactive,
//! stuck, failing, pending, or ready.
//!
//! The status comes from the reference reducer's own rule
//! ([`verdict`]), applied to a *shallow*
//! copy of the body: the lambdas held by its head and arguments keep their
//! parameters but lose their bodies. the verdict clones what it evaluates, and
//! on a deep term the arguments of one body can hold the whole rest of the
//! program; the lambdas' bodies never change what the verdict decides (only
//! their parameters count, for the arity), so the shallow copy decides the
//! same and costs only the size of the body's own atoms.

use std::sync::Arc;

use crate::expr::{Expr, ExprKind};
use crate::term::{Application, Arg, Atom, Body, Cmd, RecLambda, SExp, VarId, Vars};
use crate::verdict::{stage_value, verdict, RecScope, Verdict};

/// What a body is in the current term.
#[derive(Clone, Debug, PartialEq)]
pub enum Status {
    /// Its staging expression is false: it waits for a staging value.
    Inactive,
    /// Active, but waiting for a symbolic variable.
    Stuck {
        /// The variable it waits for.
        var: VarId,
        /// What needs it (the reference reducer's wording).
        what: &'static str,
    },
    /// Active, and executing it fails with this message.
    Error(String),
    /// Active and executable, but a pending body is nested in it, so it
    /// does not run next.
    Pending,
    /// Active, executable, and nothing pending is nested in it: it can run
    /// now (the reference reducer runs the first such body in reading order).
    Ready,
}

impl Status {
    /// Whether the body is pending: active and not stuck (it would execute
    /// or fail).
    pub fn is_pending(&self) -> bool {
        matches!(self, Status::Error(_) | Status::Pending | Status::Ready)
    }

    /// A one-word name: `inactive`, `stuck`, `error`, `pending`, `ready`.
    pub fn name(&self) -> &'static str {
        match self {
            Status::Inactive => "inactive",
            Status::Stuck { .. } => "stuck",
            Status::Error(_) => "error",
            Status::Pending => "pending",
            Status::Ready => "ready",
        }
    }

    /// The Graphviz fill colour the views use for this status.
    pub fn colour(&self) -> &'static str {
        match self {
            Status::Inactive => "lightgrey",
            Status::Stuck { .. } => "orange",
            Status::Error(_) => "tomato",
            Status::Pending => "khaki",
            Status::Ready => "palegreen",
        }
    }
}

/// The status of `b` where the recursive values `recs` enclose it, with
/// nested bodies not taken into account: an executable body is
/// [`Status::Pending`] here; the walk that knows what is nested turns it into
/// [`Status::Ready`] when nothing pending lies below it.
///
/// `vars` may grow (an exit value inside a recursive value is copied).
pub fn local_status(b: &Body, vars: &mut Vars, recs: &RecScope) -> Status {
    if !stage_value(&b.stage, recs) {
        return Status::Inactive;
    }
    let app = match &b.cmd {
        // the verdict decides a `fix` without looking at it.
        Cmd::Fix(_) => return Status::Pending,
        Cmd::App(app) => app,
    };
    let shallow = Body {
        stage: SExp::Const(true),
        cmd: Cmd::App(Application {
            head: shallow_atom(&app.head),
            args: app
                .args
                .iter()
                .map(|a| match a {
                    Arg::Atom(x) => Arg::Atom(shallow_atom(x)),
                    Arg::Splice(x) => Arg::Splice(shallow_atom(x)),
                })
                .collect(),
            sugar: app.sugar,
        }),
        span: b.span,
    };
    match verdict(&shallow, vars, recs) {
        Verdict::Inactive => Status::Inactive,
        Verdict::Stuck(s) => Status::Stuck { var: s.var, what: s.what },
        Verdict::Error(e) => Status::Error(e.message),
        Verdict::Ready(_) => Status::Pending,
    }
}

/// A recursive value with a stub lambda, for the scope the verdict takes.
pub(crate) fn stub_rec(r: &RecLambda) -> Box<RecLambda> {
    Box::new(RecLambda {
        name: r.name,
        lam: r.lam.shell(),
    })
}

/// A copy of `a` in which every lambda (through tuples, records, maps and
/// expression operands) is a stub; built with explicit stacks.
fn shallow_atom(a: &Atom) -> Atom {
    enum Job<'a> {
        Visit(&'a Atom),
        Tuple(Vec<bool>),
        Record(Vec<Arc<str>>),
        Map(usize),
    }
    let mut jobs = vec![Job::Visit(a)];
    let mut done: Vec<Atom> = Vec::new();
    while let Some(job) = jobs.pop() {
        match job {
            Job::Visit(a) => match a {
                Atom::Lambda(l) => done.push(Atom::Lambda(Box::new(l.shell()))),
                Atom::Rec(r) => done.push(Atom::Rec(stub_rec(r))),
                Atom::Tuple(xs) => {
                    jobs.push(Job::Tuple(xs.iter().map(|x| matches!(x, Arg::Splice(_))).collect()));
                    // Pushed last-first, so they are copied in reading order.
                    jobs.extend(xs.iter().rev().map(|x| match x {
                        Arg::Atom(x) | Arg::Splice(x) => Job::Visit(x),
                    }));
                }
                Atom::Record(fs) => {
                    jobs.push(Job::Record(fs.iter().map(|(f, _)| f.clone()).collect()));
                    jobs.extend(fs.iter().rev().map(|(_, x)| Job::Visit(x)));
                }
                Atom::Map(kvs) => {
                    jobs.push(Job::Map(kvs.len()));
                    for (k, v) in kvs.iter().rev() {
                        jobs.push(Job::Visit(v));
                        jobs.push(Job::Visit(k));
                    }
                }
                Atom::Expr(e) => done.push(Atom::Expr(Box::new(shallow_expr(e)))),
                // Leaves: strings and matrices are shared (`Arc`).
                other => done.push(other.clone()),
            },
            Job::Tuple(splices) => {
                let items = done.split_off(done.len().saturating_sub(splices.len()));
                let xs = items
                    .into_iter()
                    .zip(splices)
                    .map(|(x, s)| if s { Arg::Splice(x) } else { Arg::Atom(x) })
                    .collect();
                done.push(Atom::Tuple(xs));
            }
            Job::Record(fields) => {
                let items = done.split_off(done.len().saturating_sub(fields.len()));
                done.push(Atom::Record(fields.into_iter().zip(items).collect()));
            }
            Job::Map(n) => {
                let items = done.split_off(done.len().saturating_sub(2 * n));
                let mut kvs = Vec::with_capacity(n);
                let mut it = items.into_iter();
                while let (Some(k), Some(v)) = (it.next(), it.next()) {
                    kvs.push((k, v));
                }
                done.push(Atom::Map(kvs));
            }
        }
    }
    done.pop().unwrap_or(Atom::Int(0))
}

/// A copy of `e` whose value leaves are shallow. Expressions themselves are
/// copied structurally (their nesting is bounded by the expression parser).
fn shallow_expr(e: &Expr) -> Expr {
    if !e.vals().into_iter().any(Atom::holds_lambda) {
        return e.clone();
    }
    e.map_leaves(&mut |x| match &x.kind {
        ExprKind::Val(a) => ExprKind::Val(shallow_atom(a)),
        other => other.clone(),
    })
}
