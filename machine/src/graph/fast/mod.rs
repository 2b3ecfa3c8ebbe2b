//! Fast runs: a stretch of steps executed on templates and environments
//! instead of graph nodes, each step's result being the next ready body.
//!
//! A core-time loop is a chain of steps in which each step's result is the
//! next ready body: the graph machine copies the loop's lambda at every
//! call, binds its parameters node by node, keeps the Euler tour in step and
//! re-evaluates readiness, all to find the body it already knows comes
//! next. A fast run compiles the ready body and the lambdas it calls into
//! templates ([`tpl`]) once, and then executes β, `if` and `fix` on frames
//! of values ([`val`]): a call costs a frame, not a copy (a loop's call
//! rewrites its own frame), and a literal lambda applied where it stands or
//! an `if`'s literal branch costs none (it runs in its applier's frame).
//!
//! It executes a step only when it is sure the graph machine would execute
//! the same step, and stops (materializing its state back into the graph,
//! [`out`]) at anything else: a body that is inactive, stuck, failing or
//! about to `$exit`, a splice or a head it does not know, a body after
//! which a body nested in it might be pending ([`tpl::Watch`]), values that
//! nest or grow past its bounds, the step budget it was given, the clock
//! (read every 1024 steps) and [`MAX_MADE`] values made. The
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
//! not tried while the debugger records the events of each step. One that
//! ends after few steps makes the machine wait longer before trying again,
//! so a program that never suits it pays a bounded share of its steps for
//! the attempts.

mod out;
mod quick;
mod tpl;
mod val;

use std::cell::Cell;
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
use val::{Frame, Tup, V};

/// `always`, the staging argument of every β a run takes.
const ALWAYS: V = V::Lit(Lit::Stage(true));

/// The values a β binds in slots: the arguments (and a recursive lambda's
/// own value); the staging parameter, `always`, has none.
type Args = Vec<V>;

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

/// The most values a run makes (a frame counted with its slots, a tuple with
/// its elements) before it hands its state back: what a run holds outside
/// the graph (and so outside `--max-nodes`) stays bounded however long it
/// runs, about 6 MB of slots and elements, less than the graph would take
/// for the same values.
const MAX_MADE: u32 = 1 << 18;

/// A run asks whether to stop (time, interrupt) at each multiple of this
/// many steps, as the run loop reads the clock.
const CLOCK_EVERY: u64 = <Machine as crate::run::Stepper>::CLOCK_EVERY;

/// What comes next in a fast run.
enum Cur {
    /// The body of a template, in a frame; with a source, the β of that
    /// template applied to nothing there instead (the body an `if` left,
    /// the branch inlined in the frame of the `if`'s body).
    Body(Rc<TLam>, Rc<Frame>, Option<Span>),
    /// The body an `if` left: this value applied to nothing, staged on
    /// `always`, at this source.
    Call(V, Span),
}

/// A recursive lambda's own value, for the last slot of its frame.
enum Own {
    /// Not a recursive lambda.
    None,
    /// A recursive value of the run: the lambda made in the environment.
    Rec,
    /// A shared recursive value of the graph.
    Shared(NodeId),
}

impl Own {
    /// The value, for the template `l` made in `env`.
    fn value(&self, l: &Rc<TLam>, env: Option<&Rc<Frame>>) -> Option<V> {
        match (self, env) {
            (Own::None, _) => None,
            (Own::Rec, Some(e)) => Some(V::Rec(l.clone(), e.clone())),
            (Own::Rec, None) => None,
            (Own::Shared(t), _) => Some(V::Shared(*t)),
        }
    }
}

/// Whether two enclosing frames are the same frame.
fn same_frame(a: Option<&Rc<Frame>>, b: Option<&Rc<Frame>>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => Rc::ptr_eq(a, b),
        (None, None) => true,
        _ => false,
    }
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
    /// The buffer of a β's arguments, kept from step to step.
    args: Args,
    /// Values made: frames and tuples, each counted with its slots or
    /// elements (bounded by [`MAX_MADE`]).
    made: Cell<u32>,
}

impl Machine {
    /// Executes up to `budget` steps in a fast run, if one suits the
    /// machine now; `None` when none was executed (the machine is then as
    /// it was). `on_step` hears of each step as from [`Machine::step_traced`].
    pub(crate) fn fast_steps(&mut self, budget: u64, on_step: &mut dyn FnMut(u64, Rule, Span), clock: &dyn Fn() -> bool) -> Option<()> {
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
            made: Cell::new(0),
            args: Vec::with_capacity(8),
        };
        let frame = Frame::new(None, val::slots([], entry.nslots as usize), Some(entry.clone()))?;
        let mut cur = Cur::Body(entry, frame, None);
        let mut done = 0u64;
        let mut counts = self.counts;
        // Whether the run ended at a bound rather than at a step it does
        // not take (no sign that runs do not suit).
        let mut bounded = true;
        while done < budget {
            match run.step(&mut cur) {
                Step::Stop => {
                    bounded = false;
                    break;
                }
                Step::Done { rule, span, go_on } => {
                    done += 1;
                    on_step(steps + done, rule, span);
                    counts.count(rule);
                    if !go_on {
                        bounded = false;
                        break;
                    }
                    if run.made.get() >= MAX_MADE || ((steps + done).is_multiple_of(CLOCK_EVERY) && clock()) {
                        break;
                    }
                }
            }
        }
        let bound = run.bound;
        drop(run);
        self.back_off(steps, if bounded { EARLY } else { done });
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
    #[inline(always)]
    fn step(&mut self, cur: &mut Cur) -> Step {
        let (h, mut vals, expr, span) = match cur {
            Cur::Body(lam, frame, enter) => {
                if let Some(span) = enter.take() {
                    // The β of the branch an `if` took, applied to nothing:
                    // its only binder, the staging parameter, has no slot.
                    self.bound += 1;
                    let go_on = self.quiet(&lam.body.watch, frame);
                    return Step::Done {
                        rule: Rule::Beta,
                        span,
                        go_on,
                    };
                }
                let body = &lam.body;
                // A body's own staging parameter (natural staging) is
                // `always` where it runs.
                if !matches!(&*body.stage, TStage::SParam(_) | TStage::Const(true)) && !self.stage(&body.stage, 0, 0, frame) {
                    return Step::Stop;
                }
                let span = body.span;
                match &body.cmd {
                    TCmd::Fix { lam: rl, scope } => {
                        let rec = V::Rec(rl.clone(), frame.clone());
                        let Some(f) = Frame::new(Some(frame.clone()), val::slots([rec], scope.nslots as usize), Some(scope.clone())) else {
                            return Step::Stop;
                        };
                        self.bound += 2;
                        self.note_made(1 + scope.nslots as usize);
                        // Inside the lambda its name is now concrete: a body
                        // there staged on it may be pending (watched as
                        // maybe true).
                        let go_on = self.quiet(&scope.body.watch, &f) && self.quiet(&rl.watch, frame);
                        *cur = Cur::Body(scope.clone(), f, None);
                        return Step::Done {
                            rule: Rule::Fix,
                            span,
                            go_on,
                        };
                    }
                    TCmd::Let { lam: l, args, rule, .. } => {
                        let Some(at) = l.inline_at else { return Step::Stop };
                        // Each argument to its slot as it comes: a stop half
                        // way leaves slots of a lambda not applied, which
                        // nothing reads (the state built back gives the
                        // lambda fresh binders).
                        for (i, a) in (at..).zip(args.iter()) {
                            let Some(v) = self.eval(a, frame) else { return Step::Stop };
                            if Frame::put(frame, i, v).is_err() {
                                return Step::Stop;
                            }
                        }
                        self.bound += 1 + args.len() as u64;
                        let rule = *rule;
                        let go_on = self.quiet(&l.body.watch, frame);
                        *lam = l.clone();
                        return Step::Done { rule, span, go_on };
                    }
                    TCmd::If { cond, yes, no, .. } => {
                        let c = match cond {
                            TAtom::Var(p) => match frame.get(p.pup, p.pix) {
                                Some(V::Lit(Lit::Bool(c))) => *c,
                                _ => return Step::Stop,
                            },
                            _ => match self.eval(cond, frame) {
                                Some(V::Lit(Lit::Bool(c))) => c,
                                _ => return Step::Stop,
                            },
                        };
                        // The branch taken, applied to nothing, staged on
                        // `always`: the next step, with nothing else
                        // nested in it pending (it was not before).
                        *lam = if c { yes } else { no }.clone();
                        *enter = Some(span);
                        return Step::Done {
                            rule: Rule::If,
                            span,
                            go_on: true,
                        };
                    }
                    TCmd::App { head, args, plain, .. } => {
                        // The arguments of a β, in the run's buffer.
                        let mut vals = std::mem::take(&mut self.args);
                        vals.clear();
                        if let Some(k) = if *plain { self.loop_call(head, args, frame) } else { None } {
                            // A loop's call: the lambda this frame is of,
                            // by its own name, with as many arguments as
                            // it has parameters, from the frame the run
                            // alone holds. The frame is rewritten (as
                            // `beta` would): nothing is cloned to call.
                            for a in args.iter() {
                                let TArg::Atom(x) = a else { return Step::Stop };
                                let Some(v) = self.eval(x, frame) else { return Step::Stop };
                                vals.push(v);
                            }
                            let Some(depth) = Frame::fits(&vals, frame.up.as_ref()) else {
                                return Step::Stop;
                            };
                            let Some(fm) = Rc::get_mut(frame) else { return Step::Stop };
                            fm.rewrite(vals.drain(..), depth);
                            if let Some(root) = &fm.lam {
                                *lam = root.clone();
                            }
                            self.args = vals;
                            self.bound += 1 + k as u64;
                            let go_on = self.quiet(&lam.body.watch, frame);
                            return Step::Done {
                                rule: Rule::Beta,
                                span,
                                go_on,
                            };
                        }
                        for a in args.iter() {
                            let ok = match a {
                                TArg::Atom(x) => self.eval(x, frame).map(|v| vals.push(v)),
                                TArg::Splice(x) => self.eval(x, frame).and_then(|t| self.splice(t, &mut vals)),
                            };
                            if ok.is_none() {
                                return Step::Stop;
                            }
                        }
                        let Some(h) = self.eval(head, frame) else { return Step::Stop };
                        let expr = matches!(&**args, [TArg::Atom(TAtom::Expr(..))]);
                        (h, vals, expr, span)
                    }
                }
            }
            Cur::Call(h, span) => (h.clone(), std::mem::take(&mut self.args), false, *span),
        };
        let r = self.apply(h, &mut vals, expr, span, cur);
        vals.clear();
        self.args = vals;
        match r {
            Some((rule, go_on)) => Step::Done { rule, span, go_on },
            None => Step::Stop,
        }
    }

    /// Applies `h` to the arguments `vals` (and `always`, for the staging
    /// parameter of a β): β or `if`, the result put in
    /// `cur` (`None`, `cur` as it was: anything else, or a β or `if` that
    /// would not execute).
    #[inline]
    fn apply(&mut self, h: V, vals: &mut Args, expr: bool, span: Span, cur: &mut Cur) -> Option<(Rule, bool)> {
        let lambda_rule = if expr { Rule::Expr } else { Rule::Beta };
        match h {
            V::Clo(l, env) => self.beta(l, Some(env), vals, Own::None, cur).map(|g| (lambda_rule, g)),
            V::Rec(l, env) => self.beta(l, Some(env), vals, Own::Rec, cur).map(|g| (Rule::Beta, g)),
            V::Shared(t) => match self.m.g.kind(t) {
                Kind::Lambda(_) => {
                    let l = self.shared_lam(t, None)?;
                    self.beta(l, None, vals, Own::None, cur).map(|g| (lambda_rule, g))
                }
                Kind::Rec { name, lam } => {
                    let (name, lam) = (*name, *lam);
                    let l = self.shared_lam(lam, Some(name))?;
                    self.beta(l, None, vals, Own::Shared(t), cur).map(|g| (Rule::Beta, g))
                }
                _ => None,
            },
            V::Lit(Lit::Builtin(Builtin::If)) => {
                if vals.len() != 3 {
                    return None;
                }
                let V::Lit(Lit::Bool(c)) = vals[0] else { return None };
                let branch = vals.swap_remove(if c { 1 } else { 2 });
                *cur = Cur::Call(branch, span);
                Some((Rule::If, true))
            }
            _ => None,
        }
    }

    /// β of the template `l` made in `env` on the arguments `vals` (`own`:
    /// a recursive lambda's own value, for its last slot).
    /// The frame of the body `cur` stands at is reused when nothing else
    /// holds it (a tail call: a loop makes no frame).
    #[inline]
    fn beta(&mut self, l: Rc<TLam>, env: Option<Rc<Frame>>, vals: &mut Args, own: Own, cur: &mut Cur) -> Option<bool> {
        let k = l.k;
        let n = vals.len();
        match l.rest {
            None if n != k => return None,
            None => {}
            Some(r) => {
                let after = k - r - 1;
                if n < r + after {
                    return None;
                }
                let tail: Args = vals.drain(vals.len() - after..).collect();
                let middle: Vec<V> = vals.drain(r..).collect();
                self.note_made(1 + middle.len());
                vals.push(Tup::value(middle)?);
                vals.extend(tail);
            }
        }
        let mut depth = Frame::fits(vals, env.as_ref())?;
        if let (Own::Rec, Some(e)) = (&own, &env) {
            // Its own value, a recursive value made in `env`.
            depth = depth.max(e.depth.get() + 1);
            if depth > val::MAX_DEPTH {
                return None;
            }
        }
        self.bound += 1 + k as u64;
        let nslots = l.nslots as usize;
        if let Cur::Body(lam, f, None) = cur {
            if let Some(fm) = Rc::get_mut(f) {
                if fm.lam.as_ref().is_some_and(|m| Rc::ptr_eq(m, &l)) && same_frame(fm.up.as_ref(), env.as_ref()) {
                    // The same lambda in the same environment (a loop):
                    // its own name's slot holds the same value already.
                    fm.rewrite(vals.drain(..), depth);
                } else {
                    vals.extend(own.value(&l, env.as_ref()));
                    debug_assert_eq!(vals.len() + 1, l.origins.len(), "a frame that does not fit its template");
                    fm.refill(l.clone(), env, vals.drain(..), nslots, depth);
                }
                *lam = l;
                return Some(self.quiet(&lam.body.watch, f));
            }
        }
        vals.extend(own.value(&l, env.as_ref()));
        debug_assert_eq!(vals.len() + 1, l.origins.len(), "a frame that does not fit its template");
        let fr = Frame::new(env, val::slots(vals.drain(..), nslots), Some(l.clone()))?;
        self.note_made(1 + nslots);
        let go_on = self.quiet(&l.body.watch, &fr);
        *cur = Cur::Body(l, fr, None);
        Some(go_on)
    }

    /// Counts `n` values made.
    #[inline]
    fn note_made(&self, n: usize) {
        self.made.set(self.made.get().saturating_add(u32::try_from(n).unwrap_or(u32::MAX)));
    }

    /// The number of parameters, if `head args` in `frame` is a loop's
    /// call: `head` the own name of the recursive lambda `frame` is of
    /// (a recursive value made in the frame around it), as many plain
    /// arguments as its parameters, and `frame` held by the run alone.
    #[inline]
    fn loop_call(&self, head: &TAtom, args: &[TArg], frame: &Rc<Frame>) -> Option<usize> {
        let TAtom::Var(p) = head else { return None };
        let Some(V::Rec(l, env)) = frame.get(p.pup, p.pix) else {
            return None;
        };
        let mine = frame.lam.as_ref().is_some_and(|m| Rc::ptr_eq(m, l)) && frame.up.as_ref().is_some_and(|u| Rc::ptr_eq(u, env));
        (mine && l.rest.is_none() && args.len() == l.k && Rc::strong_count(frame) == 1).then_some(l.k)
    }

    /// The template of a shared lambda (the lambda of a shared recursive
    /// value, with `name`), compiled once per run.
    fn shared_lam(&mut self, lam: NodeId, name: Option<super::node::GVar>) -> Option<Rc<TLam>> {
        if let Some(l) = self.lams.get(&lam) {
            return Some(l.clone());
        }
        let mut c = Compiler::new(&self.m.g, self.used);
        let l = c.lambda(lam, name, false);
        self.used = c.used;
        let l = l?;
        self.lams.insert(lam, l.clone());
        Some(l)
    }

    /// Whether no body that `w` watches from the place of `frame` is active.
    #[inline(always)]
    fn quiet(&self, w: &tpl::Watch, frame: &Rc<Frame>) -> bool {
        match w {
            Some(w) if w.is_empty() => true,
            Some(w) => w.iter().all(|(d, pd, s)| !self.stage(s, *d, *pd, frame)),
            None => false,
        }
    }

    /// The value of the staging expression of a body `d` lambdas inside the
    /// place of `frame`, `pd` of them with frames of their own (`d = 0`: the
    /// body running in `frame`). The lambdas in between are not invoked
    /// (symbolic); a recursive lambda's name is true: once its `fix` ran it
    /// is concrete, and where its slot exists it holds the value.
    fn stage(&self, s: &TStage, d: u32, pd: u32, frame: &Rc<Frame>) -> bool {
        match s {
            TStage::Const(b) | TStage::Graph(_, b) => *b,
            TStage::SParam(p) => p.up >= d,
            TStage::Var(p) => p.up >= d && p.pup.checked_sub(pd).is_some_and(|up| frame.get(up, p.pix).is_some_and(V::truth)),
            TStage::SelfVar(..) => true,
            TStage::Not(x) => !self.stage(x, d, pd, frame),
            TStage::And(a, b) => self.stage(a, d, pd, frame) && self.stage(b, d, pd, frame),
            TStage::Or(a, b) => self.stage(a, d, pd, frame) || self.stage(b, d, pd, frame),
        }
    }

    /// The elements of a spliced value: a known tuple's (`None`: anything
    /// else, which the graph machine decides).
    fn splice(&self, t: V, out: &mut impl Extend<V>) -> Option<()> {
        match t {
            V::Tup(t) => out.extend(t.xs.iter().cloned()),
            V::Val(a) => match &*a {
                crate::term::Atom::Tuple(xs) => {
                    for x in xs {
                        match x {
                            crate::term::Arg::Atom(x) => out.extend([V::of_atom(x.clone())]),
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
    /// Slots and quick expressions without a call.
    #[inline(always)]
    fn eval(&self, a: &TAtom, frame: &Rc<Frame>) -> Option<V> {
        match a {
            TAtom::Var(p) => frame.get(p.pup, p.pix).cloned(),
            TAtom::SParam(_) => Some(ALWAYS),
            TAtom::Expr(_, _, Some(q)) => match q.eval_by(frame) {
                Some(v) => Some(v),
                None => self.eval_slow(a, frame),
            },
            _ => self.eval_slow(a, frame),
        }
    }

    #[inline(never)]
    fn eval_slow(&self, a: &TAtom, frame: &Rc<Frame>) -> Option<V> {
        Some(match a {
            TAtom::Var(p) => frame.get(p.pup, p.pix)?.clone(),
            TAtom::SParam(_) => ALWAYS,
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
                self.note_made(1 + out.len());
                Tup::value(out.into_vec())?
            }
            TAtom::Expr(e, kids, _) => {
                // Its quick form, if any, did not answer (see `eval`).
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::Limits;
    use crate::span::SourceMap;
    use crate::syntax::load::add_source;
    use crate::syntax::{load_from, MemFs};

    /// Runs `text` to its end and returns what it printed as its outcome,
    /// with the frames fast runs left alive.
    fn run(text: &str) -> (String, i64, u64) {
        let mut sources = SourceMap::new();
        let id = add_source(&mut sources, "t.dcps", None, text.as_bytes().to_vec()).expect("utf8");
        let p = load_from(&MemFs::default(), id, &mut sources, false).expect("loads");
        val::LIVE_FRAMES.with(|n| n.set(0));
        let mut m = Machine::new(p);
        let out = format!("{:?}", m.run(&Limits::default()));
        let live = val::LIVE_FRAMES.with(Cell::get);
        (out, live, m.fast_steps_done)
    }

    #[test]
    fn frames_are_freed_when_runs_end() {
        // `let f = (x) {..}` in a loop: a closure over the loop's frame
        // bound where it stands. Inlined, the frame would hold it (a cycle
        // of counts); it is applied with a frame of its own instead.
        let (out, live, fast) = run("fix loop(i, k) {\n  \"i > 300\" (done)\n  if done () { k i } () {\n    let f = (x) { \"x+1\" (j) loop j k }\n    f i\n  }\n} in\nloop 0 $exit\n");
        assert!(out.contains("301"), "{out}");
        assert!(fast > 1000, "the loop runs fast ({fast} steps)");
        assert_eq!(live, 0, "frames left alive");
        // Closures over frames passed on: a continuation chain.
        let (out, live, fast) = run("fix count(i, k) {\n  \"i == 0\" (z)\n  if z () { k 0 } () {\n    \"i-1\" (j)\n    count j (r) { \"r+1\" (s) k s }\n  }\n} in\ncount 40 $exit\n");
        assert!(out.contains("40"), "{out}");
        assert!(fast > 100, "the count runs fast ({fast} steps)");
        assert_eq!(live, 0, "frames left alive");
    }
}
