//! Fast runs: a stretch of steps executed on templates and environments
//! instead of graph nodes, each step's result being the next ready body.
//!
//! A core-time loop is a chain of steps in which each step's result is the
//! next ready body: the graph machine copies the loop's lambda at every
//! call, binds its parameters node by node, keeps the Euler tour in step and
//! re-evaluates readiness, all to find the body it already knows comes
//! next. A fast run compiles the ready body and the lambdas it calls into
//! templates ([`tpl`]) once, and then executes β, `if` and `fix` by making
//! frames of values ([`val`]): a call costs a frame, not a copy.
//!
//! It executes a step only when it is sure the graph machine would execute
//! the same step, and stops (materializing its state back into the graph,
//! [`out`]) at anything else: a body that is inactive, stuck, failing or
//! about to `$exit`, a splice or a head it does not know, a body after
//! which a body nested in it might be pending ([`tpl::Watch`]), values that
//! nest or grow past its bounds, and the step budget it was given. The
//! graph machine then takes the next step itself, with its diagnostics.
//! So the counts by kind, the result and every error are the graph
//! machine's; the equivalence tests compare them with the reference
//! reducer's, and `fast_runs_agree_with_the_graph_steps` with the graph
//! machine's own step by step.
//!
//! A run starts from the first ready body (in the reference order). A step
//! changes only the subtree where its body stood, and nothing pending
//! precedes that body in post-order; so the body a run leaves there, if it
//! is pending with nothing active nested in it, is the next ready body
//! whatever else is pending, and no order of bodies is at stake. Runs are
//! not tried while the debugger records the events of each step. One that ends after few steps makes the machine wait longer
//! before trying again, so a program that never suits it pays a bounded
//! share of its steps for the attempts.

mod out;
mod quick;
mod tpl;
mod val;

use std::rc::Rc;

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::lit::Lit;
use super::node::{Kind, NodeId};
use super::Machine;
use crate::expr::eval::eval_with;
use crate::reference::Rule;
use crate::span::Span;
use crate::term::Builtin;
use tpl::{Compiler, TArg, TAtom, TCmd, TLam, TStage};
use val::{Frame, Slots, Tup, V};

/// When a fast run is tried again after one that ended early.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Backoff {
    /// No run is tried before this many steps.
    until: u64,
    /// The wait after the next run that ends early.
    wait: u64,
}

impl Default for Backoff {
    fn default() -> Backoff {
        Backoff {
            until: 0,
            wait: FIRST_WAIT,
        }
    }
}

/// A run of fewer steps than this ended early.
const EARLY: u64 = 32;
/// The first wait after an early end, doubled after each one.
const FIRST_WAIT: u64 = 8;
/// The longest wait.
const MAX_WAIT: u64 = 4096;

/// What comes next in a fast run.
enum Cur {
    /// The body of a template, in a frame.
    Body(Rc<TLam>, Rc<Frame>),
    /// The body an `if` left: this value applied to nothing, staged on
    /// `always`, at this source.
    Call(V, Span),
}

/// How an attempted step went.
enum Step {
    /// It executed this rule, on the body at this source; `go_on` says
    /// whether the run may take another step.
    Done { rule: Rule, span: Span, go_on: bool },
    /// Not executed: the graph machine takes it.
    Stop,
}

/// The state of one fast run.
struct Run<'m> {
    m: &'m Machine,
    /// Templates of the shared lambdas called so far.
    lams: FxHashMap<NodeId, Rc<TLam>>,
    /// Graph nodes compiled so far.
    used: usize,
    /// Variables bound (for `--stats`).
    bound: u64,
}

impl Machine {
    /// Executes up to `budget` steps in a fast run, if one suits the
    /// machine now; `None` when none was executed (the machine is then as
    /// it was). `on_step` hears of each step as from [`Machine::step_traced`].
    pub(crate) fn fast_steps(&mut self, budget: u64, on_step: &mut dyn FnMut(u64, Rule, Span)) -> Option<()> {
        let steps = self.counts.total();
        if !self.fast || budget == 0 || self.record_round_events || steps < self.backoff.until {
            return None;
        }
        let b = self.next_ready()?;
        let mut c = Compiler::new(&self.g, 0);
        c.note_unknown = true;
        let mut entry = c.entry(b);
        let mut used = c.used;
        let unknown = c.unknown;
        if !unknown.is_empty() {
            // Classify the shared values it met, and compile again.
            for t in unknown {
                self.classify(t);
            }
            let mut c = Compiler::new(&self.g, 0);
            entry = c.entry(b);
            used = c.used;
        }
        let Some(entry) = entry else {
            // An entry too big to compile.
            self.back_off(steps, 0);
            return None;
        };
        let mut run = Run {
            m: self,
            lams: FxHashMap::default(),
            used,
            bound: 0,
        };
        let mut cur = Cur::Body(entry, Frame::new(None, Slots::new())?);
        let mut done = 0u64;
        let mut counts = self.counts;
        while done < budget {
            match run.step(&mut cur) {
                Step::Stop => break,
                Step::Done { rule, span, go_on } => {
                    done += 1;
                    on_step(steps + done, rule, span);
                    counts.count(rule);
                    if !go_on {
                        break;
                    }
                }
            }
        }
        let bound = run.bound;
        drop(run);
        // A run the budget ended is no sign that runs do not suit.
        self.back_off(steps, if done == budget { EARLY } else { done });
        if done == 0 {
            return None;
        }
        self.events.clear();
        self.counts = counts;
        self.bound_count += bound;
        self.fast_steps_done += done;
        self.put_back(b, cur);
        Some(())
    }

    /// Notes a fast run of `done` steps tried at step `steps`.
    fn back_off(&mut self, steps: u64, done: u64) {
        if done >= EARLY {
            self.backoff.wait = FIRST_WAIT;
        } else {
            self.backoff.until = steps + done + self.backoff.wait;
            self.backoff.wait = (self.backoff.wait * 2).min(MAX_WAIT);
        }
    }
}

impl Run<'_> {
    /// Attempts the step `cur` stands for, replacing `cur` by its result.
    fn step(&mut self, cur: &mut Cur) -> Step {
        let (next, rule, span, go_on) = match cur {
            Cur::Body(lam, frame) => {
                let body = &lam.body;
                if !self.stage(&body.stage, 0, frame) {
                    return Step::Stop;
                }
                match &body.cmd {
                    TCmd::Fix { lam: rl, scope } => {
                        let rec = V::Rec(rl.clone(), frame.clone());
                        let Some(f) = Frame::new(Some(frame.clone()), Slots::from_iter([V::Lit(Lit::Stage(true)), rec])) else {
                            return Step::Stop;
                        };
                        self.bound += 2;
                        // Inside the lambda its name is now concrete: a body
                        // there staged on it may be pending (watched as
                        // maybe true).
                        let go_on = self.quiet(&scope.body.watch, &f) && self.quiet(&rl.watch, frame);
                        (Cur::Body(scope.clone(), f), Rule::Fix, body.span, go_on)
                    }
                    TCmd::App { head, args, .. } => {
                        // The frame a β makes, filled in place: its staging
                        // parameter, then the arguments.
                        let mut fr = Frame::open();
                        let Some(f) = Rc::get_mut(&mut fr) else { return Step::Stop };
                        let vals = &mut f.vals;
                        for a in args.iter() {
                            let ok = match a {
                                TArg::Atom(x) => self.eval(x, frame).map(|v| vals.push(v)),
                                TArg::Splice(x) => self.eval(x, frame).and_then(|t| self.splice(t, vals)),
                            };
                            if ok.is_none() {
                                return Step::Stop;
                            }
                        }
                        let Some(h) = self.eval(head, frame) else { return Step::Stop };
                        let expr = matches!(&**args, [TArg::Atom(TAtom::Expr(..))]);
                        match self.apply(h, fr, expr, body.span) {
                            Some((next, rule, go_on)) => (next, rule, body.span, go_on),
                            None => return Step::Stop,
                        }
                    }
                }
            }
            Cur::Call(h, span) => match self.apply(h.clone(), Frame::open(), false, *span) {
                Some((next, rule, go_on)) => (next, rule, *span, go_on),
                None => return Step::Stop,
            },
        };
        *cur = next;
        Step::Done { rule, span, go_on }
    }

    /// Applies `h` to the arguments `vals[1..]` (`vals[0]` holds `always`,
    /// for the staging parameter of a β): β or `if` (`None`: anything
    /// else, or a β or `if` that would not execute).
    #[inline]
    fn apply(&mut self, h: V, mut fr: Rc<Frame>, expr: bool, span: Span) -> Option<(Cur, Rule, bool)> {
        let lambda_rule = if expr { Rule::Expr } else { Rule::Beta };
        match h {
            V::Clo(l, env) => self.beta(l, Some(env), fr, None).map(|(c, g)| (c, lambda_rule, g)),
            V::Rec(l, env) => {
                let me = V::Rec(l.clone(), env.clone());
                self.beta(l, Some(env), fr, Some(me)).map(|(c, g)| (c, Rule::Beta, g))
            }
            V::Shared(t) => match self.m.g.kind(t) {
                Kind::Lambda(_) => {
                    let l = self.shared_lam(t, None)?;
                    self.beta(l, None, fr, None).map(|(c, g)| (c, lambda_rule, g))
                }
                Kind::Rec { name, lam } => {
                    let (name, lam) = (*name, *lam);
                    let l = self.shared_lam(lam, Some(name))?;
                    self.beta(l, None, fr, Some(V::Shared(t))).map(|(c, g)| (c, Rule::Beta, g))
                }
                _ => None,
            },
            V::Lit(Lit::Builtin(Builtin::If)) => {
                let vals = &mut Rc::get_mut(&mut fr)?.vals;
                if vals.len() != 4 {
                    return None;
                }
                let V::Lit(Lit::Bool(c)) = vals[1] else { return None };
                let branch = vals.swap_remove(if c { 2 } else { 3 });
                Some((Cur::Call(branch, span), Rule::If, true))
            }
            _ => None,
        }
    }

    /// β of the template `l` made in `env` on the frame `fr` (`always`,
    /// then the arguments; `me`: a recursive lambda's own value, for its
    /// last slot).
    #[inline]
    fn beta(&mut self, l: Rc<TLam>, env: Option<Rc<Frame>>, mut fr: Rc<Frame>, me: Option<V>) -> Option<(Cur, bool)> {
        let k = l.k;
        let f = Rc::get_mut(&mut fr)?;
        let slots = &mut f.vals;
        let n = slots.len() - 1;
        match l.rest {
            None if n != k => return None,
            None => {}
            Some(r) => {
                let after = k - r - 1;
                if n < r + after {
                    return None;
                }
                let tail: Slots = slots.drain(slots.len() - after..).collect();
                let middle: Vec<V> = slots.drain(r + 1..).collect();
                slots.push(Tup::value(middle)?);
                slots.extend(tail);
            }
        }
        slots.extend(me);
        debug_assert_eq!(slots.len(), l.origins.len(), "a frame that does not fit its template");
        if !f.close(env) {
            return None;
        }
        self.bound += 1 + k as u64;
        let go_on = self.quiet(&l.body.watch, &fr);
        Some((Cur::Body(l, fr), go_on))
    }

    /// The template of a shared lambda (the lambda of a shared recursive
    /// value, with `name`), compiled once per run.
    fn shared_lam(&mut self, lam: NodeId, name: Option<super::node::GVar>) -> Option<Rc<TLam>> {
        if let Some(l) = self.lams.get(&lam) {
            return Some(l.clone());
        }
        let mut c = Compiler::new(&self.m.g, self.used);
        let l = c.lambda(lam, name);
        self.used = c.used;
        let l = l?;
        self.lams.insert(lam, l.clone());
        Some(l)
    }

    /// Whether no body that `w` watches from the place of `frame` is active.
    fn quiet(&self, w: &tpl::Watch, frame: &Rc<Frame>) -> bool {
        w.as_ref().is_some_and(|w| w.iter().all(|(d, s)| !self.stage(s, *d, frame)))
    }

    /// The value of the staging expression of a body `d` frames inside the
    /// place of `frame` (`d = 0`: the body running in `frame`). The frames
    /// in between are not invoked (symbolic); a recursive lambda's name is
    /// true: once its `fix` ran it is concrete, and where its slot exists
    /// it holds the value.
    fn stage(&self, s: &TStage, d: u32, frame: &Rc<Frame>) -> bool {
        match s {
            TStage::Const(b) | TStage::Graph(_, b) => *b,
            TStage::Var(up, ix) => *up >= d && frame.get(up - d, *ix).is_some_and(V::truth),
            TStage::SelfVar(..) => true,
            TStage::Not(x) => !self.stage(x, d, frame),
            TStage::And(a, b) => self.stage(a, d, frame) && self.stage(b, d, frame),
            TStage::Or(a, b) => self.stage(a, d, frame) || self.stage(b, d, frame),
        }
    }

    /// The elements of a spliced value: a known tuple's (`None`: anything
    /// else, which the graph machine decides).
    fn splice<A: smallvec::Array<Item = V>>(&self, t: V, out: &mut SmallVec<A>) -> Option<()> {
        match t {
            V::Tup(t) => out.extend(t.xs.iter().cloned()),
            V::Val(a) => match &*a {
                crate::term::Atom::Tuple(xs) => {
                    for x in xs {
                        match x {
                            crate::term::Arg::Atom(x) => out.push(V::of_atom(x.clone())),
                            crate::term::Arg::Splice(_) => return None,
                        }
                    }
                }
                _ => return None,
            },
            _ => return None,
        }
        Some(())
    }

    /// The value of an atom in `frame`, evaluating expressions (`None`: an
    /// expression that is stuck or fails, or a value too big for a run).
    fn eval(&self, a: &TAtom, frame: &Rc<Frame>) -> Option<V> {
        Some(match a {
            TAtom::Var(up, ix) => frame.get(*up, *ix)?.clone(),
            TAtom::Sym(v) => V::Sym(*v),
            TAtom::RecName(v) => V::RecName(*v),
            TAtom::Lit(l) => V::Lit(l.clone()),
            TAtom::Shared(t) => V::Shared(*t),
            TAtom::Lam(l) => V::Clo(l.clone(), frame.clone()),
            TAtom::Rec(l) => V::Rec(l.clone(), frame.clone()),
            TAtom::Tuple(xs) => {
                let mut out: SmallVec<[V; 4]> = SmallVec::new();
                for x in xs.iter() {
                    match x {
                        TArg::Atom(x) => out.push(self.eval(x, frame)?),
                        TArg::Splice(x) => {
                            let t = self.eval(x, frame)?;
                            self.splice(t, &mut out)?;
                        }
                    }
                }
                Tup::value(out.into_vec())?
            }
            TAtom::Expr(e, kids, q) => {
                // Integer arithmetic on slots and literals: read in place.
                let quick = q.as_ref().and_then(|q| {
                    q.eval_by(&|k| match kids.get(k as usize)? {
                        TAtom::Var(up, ix) => quick::QV::of(frame.get(*up, *ix)?),
                        TAtom::Lit(Lit::Int(i)) => Some(quick::QV::I(*i)),
                        TAtom::Lit(Lit::Bool(b)) => Some(quick::QV::B(*b)),
                        _ => None,
                    })
                });
                if quick.is_some() {
                    return quick;
                }
                let mut ops: SmallVec<[crate::term::Atom; 4]> = SmallVec::new();
                for k in kids.iter() {
                    ops.push(val::to_atom(&self.eval(k, frame)?, &|n| self.m.export_raw(n))?);
                }
                let r = eval_with(e, &|v| {
                    let i = super::node::hole_index(v)?;
                    ops.get(i).cloned()
                })
                .ok()?;
                V::of_atom(r)
            }
        })
    }
}
