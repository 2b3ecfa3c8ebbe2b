//! The reference reducer: the substitution semantics of LANGUAGE.md §4–5,
//! written as plainly as possible. It is the oracle the graph machine is
//! tested against, so clarity beats speed: every step walks the term to find
//! the first ready body in the reference order and replaces it by a fresh
//! copy of what it reduces to.
//!
//! It decides each body with the language's [`verdict`](crate::verdict)
//! and executes it by substitution ([`crate::subst`]):
//! - [`rules`]: one function per rewrite rule.

pub mod rules;

use crate::diag::Diagnostic;
use crate::error::RuntimeError;
use crate::expr::{Expr, ExprKind};
use crate::print::Printer;
use crate::run::{drive, Counts, Limits, Outcome, Report, Rule, Stepper};
use crate::span::Span;
use crate::term::{Arg, Atom, Body, Cmd, Program, RecLambda, VarId, Vars};
use crate::verdict::{stuck, verdict, Verdict};
use rules::execute;

/// What a walk found.
enum Event {
    /// The body at this place was executed with this rule (and `$exit`
    /// gave this value).
    Stepped(Rule, Option<Atom>, Span),
    /// A ready body fails.
    Failed(RuntimeError),
    /// (Dry walks only.) A body is pending.
    Pending,
}

/// The reference reducer's state: the term and its counts.
pub struct Reducer {
    /// The current term (the program's top-level body).
    pub body: Body,
    /// The variables.
    pub vars: Vars,
    /// Steps executed so far, by kind.
    pub counts: Counts,
}

impl Reducer {
    /// A reducer at the start of `program`.
    pub fn new(program: Program) -> Reducer {
        Reducer {
            body: program.body,
            vars: program.vars,
            counts: Counts::default(),
        }
    }

    /// Executes the first ready body. `None`: no body is pending.
    pub fn step(&mut self) -> Option<Result<Option<Atom>, RuntimeError>> {
        self.step_traced(&mut |_, _, _| {})
    }

    /// Like [`Reducer::step`], telling `on_step` the step's number, rule and
    /// the source of the body executed.
    pub fn step_traced(&mut self, on_step: &mut dyn FnMut(u64, Rule, Span)) -> Option<Result<Option<Atom>, RuntimeError>> {
        match walk_body(&mut self.body, &mut self.vars, false, &mut Vec::new())? {
            Event::Stepped(rule, exit, span) => {
                on_step(self.counts.total() + 1, rule, span);
                self.counts.count(rule);
                Some(Ok(exit))
            }
            Event::Failed(e) => Some(Err(e)),
            Event::Pending => None,
        }
    }

    /// Whether some body is pending (would execute or fail).
    pub fn has_pending(&mut self) -> bool {
        walk_body(&mut self.body, &mut self.vars, true, &mut Vec::new()).is_some()
    }

    /// Runs until no body is pending, `$exit`, an error or a limit.
    pub fn run(&mut self, limits: &Limits) -> Outcome {
        self.run_traced(limits, &mut |_, _, _| {})
    }

    /// Like [`Reducer::run`], calling `on_step` after every step.
    pub fn run_traced(&mut self, limits: &Limits, on_step: &mut dyn FnMut(u64, Rule, Span)) -> Outcome {
        drive(self, limits, on_step)
    }

    /// Warnings for the stuck bodies in the current term.
    pub fn stuck_warnings(&self) -> Vec<Diagnostic> {
        stuck::in_body(&self.body, &self.vars)
    }

    /// Warnings for the stuck bodies held by an exit value.
    pub fn stuck_warnings_in(&self, value: &Atom) -> Vec<Diagnostic> {
        stuck::in_value(value, &self.vars)
    }

    /// Runs to the end and reports, printing the result canonically.
    pub fn report(&mut self, limits: &Limits) -> Report {
        self.report_traced(limits, &mut |_, _, _| {})
    }

    /// Like [`Reducer::report`], calling `on_step` after every step.
    pub fn report_traced(&mut self, limits: &Limits, on_step: &mut dyn FnMut(u64, Rule, Span)) -> Report {
        let outcome = self.run_traced(limits, on_step);
        let limit = limits.max_output.unwrap_or(usize::MAX);
        let counts = self.counts;
        Report::of(outcome, counts, limits, |outcome| match outcome {
            Outcome::Exit(v) => (
                Printer::new(&self.vars).limited(limit).atom_text(v),
                self.stuck_warnings_in(v),
                None,
            ),
            _ => (
                Printer::new(&self.vars).limited(limit).program_text(&self.body),
                self.stuck_warnings(),
                None,
            ),
        })
    }
}

/// Post-order walk: the first pending body whose nested bodies are not
/// pending is executed (or, when `dry`, reported).
fn walk_body(b: &mut Body, vars: &mut Vars, dry: bool, recs: &mut Recs) -> Option<Event> {
    match &mut b.cmd {
        Cmd::App(app) => {
            if let Some(e) = walk_atom(&mut app.head, vars, dry, recs) {
                return Some(e);
            }
            for a in &mut app.args {
                let (Arg::Atom(x) | Arg::Splice(x)) = a;
                if let Some(e) = walk_atom(x, vars, dry, recs) {
                    return Some(e);
                }
            }
        }
        Cmd::Fix(fix) => {
            if let Some(e) = walk_body(&mut fix.lam.body, vars, dry, recs) {
                return Some(e);
            }
            if let Some(e) = walk_body(&mut fix.body, vars, dry, recs) {
                return Some(e);
            }
        }
    }
    match verdict(b, vars, recs) {
        Verdict::Inactive | Verdict::Stuck(_) => None,
        _ if dry => Some(Event::Pending),
        Verdict::Error(e) => Some(Event::Failed(e)),
        Verdict::Ready(r) => {
            let span = b.span;
            let (rule, exit) = execute(b, r, vars);
            Some(Event::Stepped(rule, exit, span))
        }
    }
}

/// The recursive values whose lambdas enclose the current position.
type Recs = Vec<(VarId, Box<RecLambda>)>;

fn walk_atom(a: &mut Atom, vars: &mut Vars, dry: bool, recs: &mut Recs) -> Option<Event> {
    match a {
        Atom::Lambda(l) => walk_body(&mut l.body, vars, dry, recs),
        Atom::Rec(r) => {
            // Nothing can be pending where nothing is active: skip the
            // lambda, and spare the copy of the value that entering it takes.
            let mut names: Vec<VarId> = recs.iter().map(|(n, _)| *n).collect();
            names.push(r.name);
            if !any_active(&r.lam.body, &names) {
                return None;
            }
            // Inside its own lambda, the recursive name is the value itself.
            recs.push((r.name, r.clone()));
            let found = walk_body(&mut r.lam.body, vars, dry, recs);
            recs.pop();
            found
        }
        Atom::Tuple(xs) => xs.iter_mut().find_map(|x| {
            let (Arg::Atom(x) | Arg::Splice(x)) = x;
            walk_atom(x, vars, dry, recs)
        }),
        Atom::Record(fs) => fs.iter_mut().find_map(|(_, x)| walk_atom(x, vars, dry, recs)),
        Atom::Map(kvs) => kvs
            .iter_mut()
            .find_map(|(k, v)| walk_atom(k, vars, dry, recs).or_else(|| walk_atom(v, vars, dry, recs))),
        Atom::Expr(e) => walk_expr(e, vars, dry, recs),
        _ => None,
    }
}

fn walk_expr(e: &mut Expr, vars: &mut Vars, dry: bool, recs: &mut Recs) -> Option<Event> {
    match &mut e.kind {
        ExprKind::Val(a) => walk_atom(a, vars, dry, recs),
        ExprKind::Name(_) => None,
        ExprKind::Tuple(xs) | ExprKind::Call(_, xs) => xs.iter_mut().find_map(|x| walk_expr(x, vars, dry, recs)),
        ExprKind::Record(fs) => fs.iter_mut().find_map(|(_, x)| walk_expr(x, vars, dry, recs)),
        ExprKind::Unary(_, a) | ExprKind::Field(a, _) => walk_expr(a, vars, dry, recs),
        ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) | ExprKind::Range(a, b) => {
            walk_expr(a, vars, dry, recs).or_else(|| walk_expr(b, vars, dry, recs))
        }
        ExprKind::Method(a, _, xs) => walk_expr(a, vars, dry, recs).or_else(|| xs.iter_mut().find_map(|x| walk_expr(x, vars, dry, recs))),
    }
}

/// Whether some body in `b` (nested ones included) is active, where the
/// variables `concrete` (names of enclosing recursive values) count as true.
fn any_active(b: &Body, concrete: &[VarId]) -> bool {
    fn in_atom(a: &Atom, concrete: &[VarId]) -> bool {
        match a {
            Atom::Lambda(l) => any_active(&l.body, concrete),
            Atom::Rec(r) => {
                let mut inner = concrete.to_vec();
                inner.push(r.name);
                any_active(&r.lam.body, &inner)
            }
            Atom::Tuple(xs) => xs.iter().any(|x| {
                let (Arg::Atom(x) | Arg::Splice(x)) = x;
                in_atom(x, concrete)
            }),
            Atom::Record(fs) => fs.iter().any(|(_, x)| in_atom(x, concrete)),
            Atom::Map(kvs) => kvs.iter().any(|(k, v)| in_atom(k, concrete) || in_atom(v, concrete)),
            Atom::Expr(e) => {
                let mut found = false;
                e.for_each_val(&mut |x| found = found || in_atom(x, concrete));
                found
            }
            _ => false,
        }
    }
    if b.stage.value(&|v| concrete.contains(&v)) {
        return true;
    }
    match &b.cmd {
        Cmd::App(app) => {
            in_atom(&app.head, concrete)
                || app.args.iter().any(|a| {
                    let (Arg::Atom(x) | Arg::Splice(x)) = a;
                    in_atom(x, concrete)
                })
        }
        Cmd::Fix(f) => any_active(&f.lam.body, concrete) || any_active(&f.body, concrete),
    }
}

impl Stepper for Reducer {
    /// A step walks the whole term and can take long: the clock every step.
    const CLOCK_EVERY: u64 = 1;

    fn steps(&self) -> u64 {
        self.counts.total()
    }

    fn pending(&mut self) -> bool {
        self.has_pending()
    }

    fn step_once(&mut self, on_step: &mut dyn FnMut(u64, Rule, Span)) -> Option<Result<Option<Atom>, RuntimeError>> {
        self.step_traced(on_step)
    }
}
