//! Fast runs: a stretch of steps executed on templates and environments
//! instead of graph nodes, each step's result being the next ready body.
//!
//! A core-time loop is a chain of steps in which each step's result is the
//! next ready body: the graph machine copies the loop's lambda at every
//! call, binds its parameters node by node, keeps the Euler tour in step and
//! re-evaluates readiness, all to find the body it already knows comes
//! next. A fast run compiles the ready body and the lambdas it calls into
//! templates ([`template`]) once, and then executes β, `if` and `fix` on frames
//! of values ([`val`]): a call costs a frame, not a copy (a loop's call
//! rewrites its own frame), and a literal lambda applied where it stands or
//! an `if`'s literal branch costs none (it runs in its applier's frame).
//!
//! It executes a step only when it is sure the graph machine would execute
//! the same step, and stops (materializing its state back into the graph,
//! [`materialize`]) at anything else: a body that is inactive, stuck, failing or
//! about to `$exit`, a splice or a head it does not know, a body after
//! which a body nested in it might be pending ([`template::Watch`]) and that it
//! cannot reduce under ([`Run::descend`]), residuals that nest or tuples that
//! grow past its bounds, the step budget it was given, the clock (read
//! every 1024 steps) and [`MAX_LIVE`] values held. The
//! graph machine then takes the next step itself, with its diagnostics.
//! So the counts by kind, the result and every error are the graph
//! machine's; the equivalence tests compare them with the reference
//! reducer's, and `tests/fast.rs` with the graph machine's own step by
//! step.
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
//!
//! # Parts
//!
//! - [`template`]: the ready body and the lambdas it calls, compiled once
//!   per run into [`LamTemplate`]s: each variable has a place (its lambda
//!   nesting, and its frame and slot at run time), each body the nested
//!   bodies that may turn active once its frame has values ([`Watch`]).
//! - [`val`]: the values (numbers, tuples, closures as a template and a
//!   frame, graph nodes, holes, residuals) and the frames that hold them.
//!   A tail call whose frame nothing else holds refills that frame; a
//!   loop's call rewrites its parameters only.
//! - [`quick`] and [`tuples`]: the arithmetic and the tuple operations of
//!   expressions, on the run's values.
//! - [`res`]: the holes and residuals of reductions under lambdas.
//! - [`materialize`]: the run's state built back into nodes where the body
//!   the run started from stood.
//! - This module: the run loop; β, the expression form, `if` and `fix`;
//!   reducing under lambdas.
//!
//! # Reducing under lambdas
//!
//! When a body nested in the current one may be pending ([`After::Look`]),
//! [`Run::descend`] reduces under a lambda literal of the current body
//! whose body is active, before the body that holds it, as the reference
//! order has it: the lambda's parameters are [`Hole`]s, and the holding
//! body waits on a stack ([`SubRun`]). A blocked body ends the reduction;
//! the lambda becomes a residual ([`Value::Residual`]: its holes and the
//! body it was left at) that stands for its atom ([`Overrides`]). A β of a
//! residual fills its holes and resumes its body: in place when nothing
//! else can apply it ([`last_read`]), else on a copy of the frames and
//! holes made while it was reduced ([`res::Seqs`] numbers them). A residual
//! whose filled hole wakes a body it holds is reduced further where it was
//! left ([`Run::resume`]).
//!
//! A hole is filled once. A body of a closure that waits on a hole of a
//! reduction in progress marks the hole watched ([`Hole::watched`]): a run
//! does not fill it, because the reference would reduce that body at every
//! place the closure occurs in the term, which frames do not record.
//!
//! # Invariants
//!
//! - A run ends in the graph state that stepping would have reached (up to
//!   the binders' names), with the same counts by kind.
//! - Each body of a frame runs at most once per activation, and the run
//!   alone holds the frame it is in, so a frame nothing else holds may be
//!   reused.
//! - What a run holds outside the graph is bounded: [`MAX_LIVE`] live
//!   values ([`val::live_values`]), residuals nested [`val::MAX_DEPTH`]
//!   deep, [`MAX_SUBS`] reductions nested (then the state is handed back
//!   and the next run goes on inside), [`template::MAX_COMPILED`] nodes
//!   compiled, and [`COMPILE_PER_STEP`] more per step executed for the
//!   shared lambdas the run calls.
//! - A run that stops after fewer than [`EARLY`] steps doubles the wait
//!   before the next attempt ([`Backoff`]).
//!
//! # Why frames, and what still steps on the graph
//!
//! Staged code is reduced under lambdas on frames, not on a second node
//! store: runs already execute β, `if` and `fix` without the tour, copies
//! and readiness checks, so staged code that stops at active closures (the
//! divide-and-conquer sum, the specialisers) is plain fast-run code once
//! runs reduce under those closures.
//!
//! The paper's builders still step on the graph. They make closures while
//! reducing under lambdas whose bodies wait on holes filled later
//! (`lambda_i`, the continuations handed to `push`), and apply residuals
//! that frames keep alive beyond their last occurrence in the term (a
//! frame holds all its slots while any closure over it lives). So a run
//! there meets watched holes, copies every residual it applies, and nests
//! residuals as deep as the program built so far. Running them on frames
//! needs the frames' reference counts to equal the term's occurrence
//! counts (values moved out of a slot at their last read; closures
//! capturing what their body reads), copies and residuals built back
//! without recursion on their depth, and a watching closure's body reduced
//! at its one occurrence. Before that, a run must start: a ready body
//! there holds open values (the stack of code closures, which mention
//! variables bound around it). The compiler builds open values into the
//! template, because a template's binders get fresh names when the run
//! ends and an open value might mention them, and that stack is as deep
//! as the program built so far, past the compiler's bounds.

mod materialize;
mod quick;
mod res;
mod template;
mod tuples;
mod val;

use std::cell::Cell;
use std::rc::Rc;

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::lit::Lit;
use super::node::{Kind, NodeCmd, NodeId};
use super::Machine;
use crate::expr::eval::eval_with;
use crate::run::Rule;
use crate::span::Span;
use crate::term::Builtin;
use res::{Hole, Residual, ResidualState};
use template::{ArgTemplate, AtomTemplate, CmdTemplate, Compiler, LamTemplate, StageTemplate, Watch, NO_SLOT};
use val::{Frame, Tup, Value};

/// `always`, the staging argument of every β a run takes.
const ALWAYS: Value = Value::Lit(Lit::Stage(true));

/// The values a β binds in slots: the arguments (and a recursive lambda's
/// own value); the staging parameter, `always`, has none.
type Args = Vec<Value>;

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

/// The most values a run holds at once (a frame counted with its slots, a
/// tuple with its elements, [`val::live_values`]) before it hands its state
/// back: what a run holds outside the graph stays bounded however long it
/// runs, about 200 MB of slots and elements, less than the graph would take
/// for the same values (and no more than `--max-nodes` leaves the graph).
/// A list of 10^5 cells (the specialiser's program at its largest size)
/// and the continuations of a non-tail recursion 10^6 calls deep fit: what
/// does not is handed back, and the graph holds it from then on, in more
/// memory than the run did.
const MAX_LIVE: u64 = 1 << 23;

/// The nodes of shared lambdas a run may compile per step it executed,
/// past the bound on what it compiles before it has executed any: a chain
/// of closures handed back to the graph (a non-tail recursion's
/// continuations) is called one closure a step, each a lambda of its own
/// to compile, as the graph would copy each.
const COMPILE_PER_STEP: usize = 64;

/// A run asks whether to stop (time, interrupt) at each multiple of this
/// many steps, as the run loop reads the clock.
const CLOCK_EVERY: u64 = <Machine as crate::run::Stepper>::CLOCK_EVERY;

/// What comes next in a fast run.
enum Current {
    /// The body of a template, in a frame; with a source, the β of that
    /// template applied to nothing there instead (the body an `if` left,
    /// the branch inlined in the frame of the `if`'s body).
    Body(Rc<LamTemplate>, Rc<Frame>, Option<Span>),
    /// The body an `if` left: this value applied to nothing, staged on
    /// `always`, at this source.
    Call(Value, Span),
}

/// Values that stand for atoms of the current body, by position (0: the
/// head, `i`: argument `i`): the residuals of the lambdas reduced under
/// before it runs.
type Overrides = SmallVec<[(u32, Value); 2]>;

/// A body a residual was left at, with its overrides.
struct Suspended {
    cur: Current,
    overrides: Overrides,
}

/// A reduction under a lambda in progress: the lambda literal standing as
/// atom `atom` of the body `parent`, whose body is active once that body's
/// frame has values, is reduced with its parameters symbolic (holes) before
/// `parent` runs, innermost first, as the reference order has it.
struct SubRun {
    parent: Current,
    overrides: Overrides,
    atom: u32,
    lam: Rc<LamTemplate>,
    /// How deeply values nest in its frame when it starts (the frame
    /// itself is the run's alone, so that inlined lambdas write slots in
    /// it).
    depth: u32,
    holes: SmallVec<[Rc<Hole>; 4]>,
    /// The numbers of the frames and holes it made before, if it resumes
    /// a residual ([`res::Seqs`]).
    before: res::Seqs,
    /// The number of the first frame or hole it makes now.
    start: u64,
}

impl SubRun {
    /// The numbers of the frames and holes it made, up to now (taken:
    /// it ends).
    fn take_seqs(&mut self) -> res::Seqs {
        let mut s = std::mem::take(&mut self.before);
        s.push((self.start, res::peek_seq()));
        s
    }
}

/// The most reductions under lambdas a run nests: past it the run hands
/// its state back and the next one goes on inside. Each holds a frame, so
/// the bound on the values a run holds ([`MAX_LIVE`]) comes first for
/// most programs: a specialiser nests one reduction per staged operation,
/// and handing such a nest back every few thousand operations costs a
/// build of the nest and a new run each time (a fifth of the
/// specialiser's instructions at 10^5 operations).
const MAX_SUBS: usize = 1 << 20;

/// What may follow a step.
#[derive(Clone, Copy, PartialEq, Eq)]
enum After {
    /// The next step: nothing nested in the current body may be pending.
    Go,
    /// A body nested in the current body may be pending: reduce under the
    /// lambdas that hold it first ([`Run::descend`]).
    Look,
    /// Something else may be pending: the graph machine decides.
    Halt,
}

/// A recursive lambda's own value, for the last slot of its frame.
enum OwnName {
    /// Not a recursive lambda.
    None,
    /// A recursive value of the run: the lambda made in the environment.
    Rec,
    /// A shared recursive value of the graph.
    Shared(NodeId),
}

impl OwnName {
    /// The value, for the template `l` made in `env`.
    fn value(&self, l: &Rc<LamTemplate>, env: Option<&Rc<Frame>>) -> Option<Value> {
        match (self, env) {
            (OwnName::None, _) => None,
            (OwnName::Rec, Some(e)) => Some(Value::rec(l.clone(), e.clone())),
            (OwnName::Rec, None) => None,
            (OwnName::Shared(t), _) => Some(Value::Shared(*t)),
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
    /// It executed this rule, on the body at this source; `after` says
    /// what may come next.
    Done { rule: Rule, span: Span, after: After },
    /// Not executed, for sure: the body is inactive, or stuck on a
    /// symbolic head. Under a lambda, that ends the reduction under it.
    Blocked,
    /// Not executed: the graph machine takes it.
    Stop,
}

/// The state of one fast run.
struct Run<'m> {
    m: &'m Machine,
    /// Templates of the shared lambdas called so far.
    lams: FxHashMap<NodeId, Rc<LamTemplate>>,
    /// Graph nodes compiled so far.
    used: usize,
    /// Steps executed so far: each pays for [`COMPILE_PER_STEP`] nodes of
    /// the shared lambdas the run calls, past [`template::MAX_COMPILED`].
    steps: u64,
    /// Variables bound (for `--stats`).
    bound: u64,
    /// The buffer of a β's arguments, kept from step to step.
    args: Args,
    /// The residuals standing for atoms of the current body.
    overrides: Overrides,
    /// The reductions under lambdas in progress, innermost last.
    subs: Vec<SubRun>,
    /// The reductions in progress whose holes are all watched: the first
    /// `watched` of `subs` ([`Run::watch_all`]).
    watched: Cell<usize>,
    /// Whether the run stops at a body holding two or more lambdas whose
    /// bodies are active, for a parallel round ([`Machine::split_from`]).
    split: bool,
    /// It stopped there.
    split_asked: bool,
    /// A splice of a symbolic value among the arguments of the β being
    /// taken: where it stands among them, and the value. It binds the
    /// callee's rest parameter when it lands exactly there
    /// ([`Run::rest_args`]).
    symbolic_splice: Option<(usize, Value)>,
}

impl Machine {
    /// Executes up to `budget` steps in a fast run, if one suits the
    /// machine now; `None` when none was executed (the machine is then as
    /// it was). `on_step` hears of each step as from [`Machine::step_traced`].
    pub(crate) fn fast_steps(&mut self, budget: u64, on_step: &mut dyn FnMut(u64, Rule, Span), clock: &dyn Fn() -> bool) -> Option<()> {
        let steps = self.counts.total();
        if !self.fast || budget == 0 || self.record_round_events || steps < self.fast_policy.backoff.until {
            return None;
        }
        let b = self.next_ready()?;
        // The entry compiled, and the graph nodes that took.
        let compile = |m: &Machine| {
            let mut c = Compiler::new(&m.g, 0);
            (c.entry(b), c.used)
        };
        let mut c = Compiler::new(&self.g, 0);
        c.note_unknown = true;
        let (mut entry, mut used) = (c.entry(b), c.used);
        let unknown = c.unknown;
        if !unknown.is_empty() {
            // Classify the shared values it met, and compile again.
            for t in unknown {
                self.reclassify(t);
            }
            (entry, used) = compile(self);
        }
        if entry.is_none() && self.share_lists_of(b) {
            // Too big to compile with the lists written in it: they are
            // read from the graph instead.
            (entry, used) = compile(self);
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
            args: Vec::with_capacity(8),
            overrides: Overrides::new(),
            subs: Vec::new(),
            watched: Cell::new(0),
            split: steps >= self.fast_policy.split_from,
            split_asked: false,
            symbolic_splice: None,
            steps: 0,
        };
        let frame = Frame::new(None, val::slots([], entry.nslots as usize), Some(entry.clone()))?;
        let mut cur = Current::Body(entry, frame, None);
        let live_before = val::live_values();
        // What the run may hold: its bound, and no more than the graph may
        // still grow by (`--max-nodes`), so that a run does not take a
        // program far past the node limit before the loop looks at it.
        let cap = MAX_LIVE.min(self.exit.max_term.saturating_sub(self.g.live as u64).max(1));
        let mut counts = self.counts;
        // Whether the run ended at a bound rather than at a step it does
        // not take (no sign that runs do not suit).
        let mut bounded = true;
        // Whether a body nested in the current one may be pending.
        let mut look = false;
        while run.steps < budget {
            if look {
                match run.descend(&mut cur) {
                    // Reducing under a lambda: its body may nest more.
                    Some(true) => continue,
                    Some(false) => look = false,
                    None => {
                        bounded = false;
                        break;
                    }
                }
            }
            match run.step(&mut cur) {
                Step::Stop => {
                    bounded = false;
                    break;
                }
                Step::Blocked => {
                    // The end of a reduction under a lambda: its residual
                    // stands for it, and the body holding it goes on.
                    if run.complete(&mut cur).is_none() {
                        bounded = false;
                        break;
                    }
                    look = true;
                }
                Step::Done { rule, span, after } => {
                    run.steps += 1;
                    let done = run.steps;
                    on_step(steps + done, rule, span);
                    counts.count(rule);
                    match after {
                        After::Go => {}
                        After::Look => look = true,
                        After::Halt => {
                            bounded = false;
                            break;
                        }
                    }
                    if val::live_values() >= live_before + cap || ((steps + done).is_multiple_of(CLOCK_EVERY) && clock()) {
                        break;
                    }
                }
            }
        }
        let (done, bound) = (run.steps, run.bound);
        let overrides = std::mem::take(&mut run.overrides);
        let subs = std::mem::take(&mut run.subs);
        let split = run.split_asked;
        drop(run);
        self.fast_policy.split_asked = split;
        self.back_off(steps, if bounded || split { EARLY } else { done });
        if done == 0 {
            debug_assert!(subs.is_empty(), "a reduction under a lambda with no step");
            return None;
        }
        self.events.clear();
        self.counts = counts;
        self.stats.bound_count += bound;
        self.stats.fast_steps_done += done;
        self.stats.fast_runs += 1;
        self.put_back(b, cur, overrides, subs);
        Some(())
    }

    /// Shares in place the closed lists that are arguments of the body `b`,
    /// or spliced there ([`Machine::share_list_in_place`]): whether any
    /// was.
    fn share_lists_of(&mut self, b: NodeId) -> bool {
        let Some(body) = self.g.body(b) else { return false };
        let NodeCmd::App { args, .. } = &body.cmd else { return false };
        let lists: SmallVec<[NodeId; 4]> = args
            .iter()
            .map(|&a| match self.g.kind(a) {
                Kind::Splice(c) => *c,
                _ => a,
            })
            .filter(|&a| matches!(self.g.kind(a), Kind::Tuple(_)))
            .collect();
        let mut any = false;
        for x in lists {
            any |= self.share_list_in_place(x);
        }
        any
    }

    /// Notes a fast run of `done` steps tried at step `steps`.
    fn back_off(&mut self, steps: u64, done: u64) {
        if done >= EARLY {
            self.fast_policy.backoff.wait = FIRST_WAIT;
        } else {
            self.fast_policy.backoff.until = steps + done + self.fast_policy.backoff.wait;
            self.fast_policy.backoff.wait = (self.fast_policy.backoff.wait * 2).min(MAX_WAIT);
        }
    }
}

impl Run<'_> {
    /// Attempts the step `cur` stands for, replacing `cur` by its result.
    #[inline(always)]
    fn step(&mut self, cur: &mut Current) -> Step {
        let (h, mut vals, expr, span, once) = match cur {
            Current::Body(lam, frame, enter) => {
                if let Some(span) = enter.take() {
                    // The β of the branch an `if` took, applied to nothing:
                    // its only binder, the staging parameter, has no slot.
                    self.bound += 1;
                    let after = self.after(&lam.body.watch, frame);
                    return Step::Done {
                        rule: Rule::Beta,
                        span,
                        after,
                    };
                }
                let body = &lam.body;
                if !self.active(lam, frame) {
                    return Step::Blocked;
                }
                let span = body.span;
                match &body.cmd {
                    CmdTemplate::Fix { lam: rl, scope } => {
                        let rec = Value::rec(rl.clone(), frame.clone());
                        let Some(f) = Frame::new(Some(frame.clone()), val::slots([rec], scope.nslots as usize), Some(scope.clone())) else {
                            return Step::Stop;
                        };
                        self.bound += 2;
                        // Inside the lambda its name is now concrete: a body
                        // there staged on it may be pending (watched as
                        // maybe true).
                        let after = if self.quiet(&rl.watch, frame) {
                            self.after(&scope.body.watch, &f)
                        } else {
                            After::Halt
                        };
                        *cur = Current::Body(scope.clone(), f, None);
                        return Step::Done {
                            rule: Rule::Fix,
                            span,
                            after,
                        };
                    }
                    CmdTemplate::Let { lam: l, args, rule, .. } => {
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
                        let after = self.after(&l.body.watch, frame);
                        *lam = l.clone();
                        return Step::Done { rule, span, after };
                    }
                    CmdTemplate::If { cond, yes, no, .. } => {
                        let c = match cond {
                            AtomTemplate::Var(p) => match frame.get(p.pup, p.pix) {
                                Some(Value::Lit(Lit::Bool(c))) => *c,
                                _ => return Step::Stop,
                            },
                            _ => match self.eval(cond, frame) {
                                Some(Value::Lit(Lit::Bool(c))) => c,
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
                            after: After::Go,
                        };
                    }
                    CmdTemplate::App { head, args, plain, .. } => {
                        // Under a lambda, a body whose head is symbolic is
                        // stuck, whatever its arguments (stuck wins over
                        // failure).
                        if !self.subs.is_empty() && self.overrides.is_empty() && self.head_is_symbolic(head, frame) {
                            return Step::Blocked;
                        }
                        // The arguments of a β, in the run's buffer.
                        let mut vals = std::mem::take(&mut self.args);
                        vals.clear();
                        let plain = *plain && self.overrides.is_empty();
                        if let Some(k) = if plain { self.loop_call(head, args, frame) } else { None } {
                            // A loop's call: the lambda this frame is of,
                            // by its own name, with as many arguments as
                            // it has parameters, from the frame the run
                            // alone holds. The frame is rewritten (as
                            // `beta` would): nothing is cloned to call.
                            for a in args.iter() {
                                let ArgTemplate::Atom(x) = a else { return Step::Stop };
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
                            let after = self.after(&lam.body.watch, frame);
                            return Step::Done {
                                rule: Rule::Beta,
                                span,
                                after,
                            };
                        }
                        for (i, a) in (1u32..).zip(args.iter()) {
                            let ok = match a {
                                ArgTemplate::Atom(x) => self.eval_at(i, x, frame).map(|v| vals.push(v)),
                                ArgTemplate::Splice(x) => match self.eval_at(i, x, frame) {
                                    // At most one, which only a rest
                                    // parameter takes.
                                    Some(t) if t.is_symbolic() && self.symbolic_splice.is_none() => {
                                        self.symbolic_splice = Some((vals.len(), t));
                                        Some(())
                                    }
                                    Some(t) => self.splice(t, &mut vals),
                                    None => None,
                                },
                            };
                            if ok.is_none() {
                                return Step::Stop;
                            }
                        }
                        let Some(h) = self.eval_at(0, head, frame) else { return Step::Stop };
                        let expr = matches!(&**args, [ArgTemplate::Atom(AtomTemplate::Expr(..))]);
                        // A residual standing for the head is held by the
                        // overrides alone.
                        let once = last_read(head, frame) || self.overrides.iter().any(|(j, _)| *j == 0);
                        (h, vals, expr, span, once)
                    }
                }
            }
            Current::Call(h, span) => (h.clone(), std::mem::take(&mut self.args), false, *span, false),
        };
        // The overrides are the executed body's: kept only if it does not
        // execute (a β of a residual makes those of the body it resumes).
        let overrides = std::mem::take(&mut self.overrides);
        let r = self.apply(h, &mut vals, expr, span, cur, once);
        self.symbolic_splice = None;
        vals.clear();
        self.args = vals;
        match r {
            Some((rule, after)) => {
                // The residuals that stood for its arguments are values
                // now, where a filled hole would not be looked for (the
                // head's, if any, was applied).
                if !overrides.is_empty() {
                    for (_, v) in overrides.iter().filter(|(j, _)| *j != 0) {
                        self.watch_escaping(v);
                    }
                }
                Step::Done { rule, span, after }
            }
            None => {
                self.overrides = overrides;
                Step::Stop
            }
        }
    }

    /// The value of atom `i` of the current body (0: its head): its
    /// residual if a lambda there was reduced under, else its value.
    /// (The overrides stay until the step is done: one that stops leaves
    /// them for the state built back.)
    #[inline(always)]
    fn eval_at(&self, i: u32, a: &AtomTemplate, frame: &Rc<Frame>) -> Option<Value> {
        if !self.overrides.is_empty() {
            if let Some((_, v)) = self.overrides.iter().find(|(j, _)| *j == i) {
                return Some(v.clone());
            }
        }
        self.eval(a, frame)
    }

    /// Whether the head `a` is symbolic in `frame`: a graph variable, or a
    /// parameter of a lambda reduced under.
    fn head_is_symbolic(&self, a: &AtomTemplate, frame: &Rc<Frame>) -> bool {
        match a {
            AtomTemplate::Sym(_) => true,
            AtomTemplate::Var(p) => frame.get(p.pup, p.pix).is_some_and(Value::is_symbolic),
            AtomTemplate::SParam(p) => self.sparam(p, frame).is_symbolic(),
            _ => false,
        }
    }

    /// Whether the body of `lam` is active in `frame` (its staging
    /// expression true). A body's own staging parameter (natural staging)
    /// is `always` where it runs (its lambda applied, or reduced under only
    /// when the body's stage is true).
    #[inline(always)]
    fn active(&self, lam: &LamTemplate, frame: &Rc<Frame>) -> bool {
        let body = &lam.body;
        let natural = match &*body.stage {
            StageTemplate::SParam(p) => p.up == 0 && (p.pix != NO_SLOT || frame.sparam.is_none()),
            StageTemplate::Const(b) => *b,
            _ => false,
        };
        natural || self.stage(&body.stage, 0, 0, frame)
    }

    /// Whether the head `a` in `frame` is symbolic, unless a residual
    /// stands for it (`overrides`).
    #[inline(always)]
    fn symbolic_head(&self, a: &AtomTemplate, frame: &Rc<Frame>, overrides: &Overrides) -> bool {
        !overrides.iter().any(|(j, _)| *j == 0) && self.head_is_symbolic(a, frame)
    }

    /// Whether the residual `v` (standing for an atom of a body) holds a
    /// body that a hole filled since woke: its body left blocked is not
    /// any more, or a lambda or residual standing in it has a body that
    /// is active.
    fn wakes(&self, v: &Value) -> bool {
        let Value::Residual(r) = v else { return false };
        let Some(st) = r.state.take() else { return false };
        let woke = !st.outer.as_ref().is_some_and(|o| o.iter().all(|h| h.value.get().is_none())) && self.woken(&st.at);
        r.state.set(Some(st));
        woke
    }

    /// Whether the body a reduction under a lambda was left at may have a
    /// step to take now ([`Run::wakes`]).
    fn woken(&self, at: &Suspended) -> bool {
        let Current::Body(lam, frame, None) = &at.cur else { return false };
        let CmdTemplate::App { head, args, .. } = &lam.body.cmd else {
            return self.active(lam, frame) || !self.quiet(&lam.body.watch, frame);
        };
        if self.active(lam, frame) && !self.symbolic_head(head, frame, &at.overrides) {
            return true;
        }
        let atoms = std::iter::once(head).chain(args.iter().map(|(ArgTemplate::Atom(x) | ArgTemplate::Splice(x))| x));
        (0u32..).zip(atoms).any(|(i, x)| match at.overrides.iter().find(|(j, _)| *j == i) {
            Some((_, v)) => self.wakes(v),
            None => match x {
                AtomTemplate::Lam(l) => self.reduces_under(l, frame),
                _ => !self.atom_quiet(x, frame),
            },
        })
    }

    /// Whether the lambda `l`, standing as an atom of a body in `frame`, is
    /// reduced under before that body runs: its body is active, or holds
    /// an active body (its own then blocks at once). [`Run::descend`]
    /// reduces under it, and [`Run::woken`] counts it, on this one test.
    #[inline]
    fn reduces_under(&self, l: &LamTemplate, frame: &Rc<Frame>) -> bool {
        self.stage(&l.body.stage, 1, 1, frame) || !self.quiet(&l.watch, frame)
    }

    /// A residual that stood for an atom of a body that executed becomes a
    /// value, where a run does not look for the bodies in it that a hole
    /// being filled wakes: the holes of enclosing reductions those bodies
    /// may wait on are marked watched, so that a run leaves their filling
    /// to the graph ([`Hole::watched`]).
    fn watch_escaping(&self, v: &Value) {
        let Value::Residual(r) = v else { return };
        let Some(st) = r.state.take() else { return };
        match &st.outer {
            Some(o) => o.iter().filter_map(Hole::unfilled).for_each(|h| h.watched.set(true)),
            None => self.watch_all(),
        }
        r.state.set(Some(st));
    }

    /// The holes of enclosing reductions that a body of the state `at` (a
    /// reduction under a lambda with the holes `own` left there) may wait
    /// on: those its staging expression, its head and the bodies nested in
    /// it read, and those of the residuals standing for its atoms. `None`:
    /// not known (the nested bodies are too many to watch).
    fn outer_holes(&self, own: &[Rc<Hole>], at: &Suspended) -> Option<SmallVec<[Rc<Hole>; 2]>> {
        let mut outer: SmallVec<[Rc<Hole>; 2]> = SmallVec::new();
        // A hole filled with a symbolic argument stands for the hole that
        // argument is: the one whose filling wakes the body.
        let mut add = |h: &Rc<Hole>| {
            if let Some(h) = h.unfilled() {
                if !own.iter().chain(outer.iter()).any(|o| Rc::ptr_eq(o, h)) {
                    outer.push(h.clone());
                }
            }
        };
        if let Current::Body(lam, frame, _) = &at.cur {
            stage_holes(&lam.body.stage, 0, 0, frame, &mut add);
            for (d, pd, s) in lam.body.watch.as_ref()?.iter() {
                stage_holes(s, *d, *pd, frame, &mut add);
            }
            if let CmdTemplate::App { head, .. } = &lam.body.cmd {
                let h = match head {
                    AtomTemplate::Var(p) => frame.get(p.pup, p.pix).cloned(),
                    AtomTemplate::SParam(p) => Some(self.sparam(p, frame)),
                    _ => None,
                };
                if let Some(Value::Hole(h)) = h.as_ref().map(Value::resolved) {
                    add(h);
                }
            }
        }
        for (_, v) in &at.overrides {
            if let Value::Residual(r) = v {
                let st = r.state.take()?;
                let known = st.outer.as_ref().map(|o| o.iter().for_each(&mut add));
                r.state.set(Some(st));
                known?;
            }
        }
        Some(outer)
    }

    /// What may follow a step that leaves the body of `w` current in
    /// `frame`.
    #[inline(always)]
    fn after(&self, w: &Watch, frame: &Rc<Frame>) -> After {
        if self.quiet(w, frame) {
            After::Go
        } else {
            After::Look
        }
    }

    /// The current body may nest a pending body. If each such body is the
    /// body of a lambda standing as its head or an argument, reduces under
    /// the first whose body is active: `Some(true)`, the run goes on with
    /// that body, `cur` waiting for its residual; `Some(false)`: none is
    /// left, the body runs; `None`: a shape the run does not take.
    fn descend(&mut self, cur: &mut Current) -> Option<bool> {
        let Current::Body(lam, frame, None) = cur else { return None };
        let CmdTemplate::App { head, args, .. } = &lam.body.cmd else {
            // A `let`, `if` or `fix`: nothing to reduce under unless
            // something nested is active.
            return self.quiet(&lam.body.watch, frame).then_some(false);
        };
        let atoms = std::iter::once(head).chain(args.iter().map(|(ArgTemplate::Atom(x) | ArgTemplate::Splice(x))| x));
        let mut start = None;
        // At the top of a run that may split, the lambdas to reduce under
        // are counted: two or more are independent reductions.
        let split = self.split && self.subs.is_empty();
        let mut active = 0;
        for (i, x) in (0u32..).zip(atoms) {
            if let Some((_, v)) = self.overrides.iter().find(|(j, _)| *j == i) {
                // A residual: a body in it may have woken.
                if self.wakes(v) {
                    active += 1;
                    start = start.or(Some((i, None)));
                    if !split {
                        break;
                    }
                }
                continue;
            }
            match x {
                AtomTemplate::Lam(l) => {
                    if self.reduces_under(l, frame) {
                        active += 1;
                        start = start.or_else(|| Some((i, Some(l.clone()))));
                        if !split {
                            break;
                        }
                    }
                }
                _ if self.atom_quiet(x, frame) => {}
                _ => return None,
            }
        }
        if active >= 2 {
            self.split_asked = true;
            return None;
        }
        let Some((atom, l)) = start else { return Some(false) };
        if self.subs.len() >= MAX_SUBS {
            return None;
        }
        let Some(l) = l else { return self.resume(cur, atom) };
        if l.inline_at.is_some() {
            return None;
        }
        let start = res::peek_seq();
        let sparam = Hole::new(*l.origins.first()?);
        let params: SmallVec<[Rc<Hole>; 4]> = l.origins.get(1..=l.k)?.iter().map(|&o| Hole::new(o)).collect();
        let vals = val::slots(params.iter().map(|h| Value::Hole(h.clone())), l.nslots as usize);
        let f = Frame::reduced_under(frame.clone(), vals, l.clone(), sparam.clone())?;
        let mut holes = SmallVec::new();
        holes.push(sparam);
        holes.extend(params);
        let depth = f.depth.get();
        let parent = std::mem::replace(cur, Current::Body(l.clone(), f, None));
        let overrides = std::mem::take(&mut self.overrides);
        self.subs.push(SubRun {
            parent,
            overrides,
            atom,
            lam: l,
            depth,
            holes,
            before: res::Seqs::new(),
            start,
        });
        Some(true)
    }

    /// Reduces further under the residual standing for atom `atom` of the
    /// current body, a body in it woken by a hole filled since: the
    /// reduction goes on where it was left, `cur` waiting for the new
    /// residual (`Some(true)`). `None`: something else holds the residual.
    fn resume(&mut self, cur: &mut Current, atom: u32) -> Option<bool> {
        let pos = self.overrides.iter().position(|(j, _)| *j == atom)?;
        let Value::Residual(r) = &self.overrides[pos].1 else { return None };
        if Rc::strong_count(r) != 1 {
            return None;
        }
        let st = r.state.take()?;
        let (lam, depth, before) = (r.lam.clone(), r.depth.saturating_sub(1), r.seq.clone());
        self.overrides.remove(pos);
        let ResidualState { holes, at, .. } = *st;
        let parent = std::mem::replace(cur, at.cur);
        let overrides = std::mem::replace(&mut self.overrides, at.overrides);
        self.subs.push(SubRun {
            parent,
            overrides,
            atom,
            lam,
            depth,
            holes,
            before,
            start: res::peek_seq(),
        });
        Some(true)
    }

    /// Whether no body nested in the atom `a` (in lambdas of it) is active.
    fn atom_quiet(&self, a: &AtomTemplate, frame: &Rc<Frame>) -> bool {
        match a {
            AtomTemplate::Lam(l) | AtomTemplate::Rec(l) => self.quiet(&l.watch, frame),
            AtomTemplate::Tuple(xs) => xs
                .iter()
                .all(|(ArgTemplate::Atom(x) | ArgTemplate::Splice(x))| self.atom_quiet(x, frame)),
            AtomTemplate::Expr(_, kids, _) => kids.iter().all(|x| self.atom_quiet(x, frame)),
            _ => true,
        }
    }

    /// Ends the innermost reduction under a lambda, its body `cur` blocked:
    /// the residual stands for the lambda in the body holding it, which
    /// becomes current. `None` (nothing changed): no reduction is in
    /// progress, or the residual would nest too deeply.
    fn complete(&mut self, cur: &mut Current) -> Option<()> {
        let sr = self.subs.last()?;
        let inner = match &*cur {
            Current::Body(_, f, _) => f.depth.get(),
            Current::Call(v, _) => v.depth(),
        };
        let depth = self
            .overrides
            .iter()
            .map(|(_, v)| v.depth())
            .fold(inner.max(sr.depth), u32::max)
            .saturating_add(1);
        if depth > val::MAX_DEPTH {
            return None;
        }
        let mut sr = self.subs.pop()?;
        self.watched.set(self.watched.get().min(self.subs.len()));
        // A body blocked on a hole of an enclosing reduction turns pending
        // when that hole is filled: the residual stands for an atom of the
        // body holding it, where the run looks when it resumes that body
        // ([`Run::wakes`]), and once that body executes, those holes are
        // watched ([`Run::watch_escaping`]).
        let seq = sr.take_seqs();
        let state = Suspended {
            cur: std::mem::replace(cur, sr.parent),
            overrides: std::mem::replace(&mut self.overrides, sr.overrides),
        };
        // With no reduction in progress around it, no hole it could wait
        // on is left unfilled but its own.
        let outer = if self.subs.is_empty() {
            Some(SmallVec::new())
        } else {
            self.outer_holes(&sr.holes, &state)
        };
        let res = Residual::new(sr.lam, depth, seq, outer, sr.holes, state);
        self.overrides.push((sr.atom, Value::Residual(Rc::new(res))));
        Some(())
    }

    /// β of a residual: its holes filled with `always` and the arguments,
    /// the body it was left at made current. A residual nothing else can
    /// apply again (`once`: the head was the last read of its slot) is
    /// applied in place, any other on a copy of what it made; one whose
    /// holes a body of a closure is staged on is left to the graph.
    fn apply_res(&mut self, r: Rc<Residual>, vals: &mut Args, once: bool, cur: &mut Current) -> Option<After> {
        let unique = Rc::strong_count(&r) == 1 || (once && Rc::strong_count(&r) == 2);
        self.rest_args(&r.lam, vals)?;
        if vals.len() != r.lam.k || vals.iter().any(|v| v.depth().saturating_add(r.depth) > val::MAX_DEPTH) {
            return None;
        }
        let st = r.state.take()?;
        if st.holes.iter().any(|h| h.watched.get() || h.value.get().is_some()) {
            r.state.set(Some(st));
            return None;
        }
        let state = if unique {
            st
        } else {
            let copy = res::copy_state(&st, &r.seq);
            r.state.set(Some(st));
            Box::new(copy?)
        };
        let ResidualState { holes, at, .. } = *state;
        let mut holes = holes.iter();
        let _ = holes.next()?.value.set(ALWAYS);
        for (h, v) in holes.zip(vals.drain(..)) {
            let _ = h.value.set(v);
        }
        self.bound += 1 + r.lam.k as u64;
        let Suspended { cur: next, overrides } = at;
        *cur = next;
        self.overrides = overrides;
        Some(match &*cur {
            Current::Body(_, _, None) if self.overrides.iter().any(|(_, v)| self.wakes(v)) => After::Look,
            Current::Body(lam, f, None) => self.after(&lam.body.watch, f),
            // An `if`'s branch about to be entered, or a value about to be
            // applied: nothing else is nested.
            _ => After::Go,
        })
    }

    /// The arguments `vals` of a β of `l` with its rest parameter's made a
    /// tuple (`None`: too few arguments, or the tuple too big).
    fn rest_args(&mut self, l: &LamTemplate, vals: &mut Args) -> Option<()> {
        if let Some((at, t)) = self.symbolic_splice.take() {
            // A symbolic splice binds the rest parameter when every fixed
            // parameter before and after it has a known argument; anything
            // else is stuck, which the graph machine reports.
            let r = l.rest?;
            if at != r || vals.len() + 1 != l.k {
                return None;
            }
            vals.insert(r, t);
            return Some(());
        }
        if let Some(r) = l.rest {
            let k = l.k;
            let after = k - r - 1;
            if vals.len() < r + after {
                return None;
            }
            let tail: Args = vals.drain(vals.len() - after..).collect();
            let middle: Vec<Value> = vals.drain(r..).collect();
            vals.push(Tup::value(middle)?);
            vals.extend(tail);
        }
        Some(())
    }

    /// The value of a staging parameter read where its lambda runs:
    /// `always`, unless its lambda is reduced under (not applied).
    fn sparam(&self, p: &template::Place, frame: &Rc<Frame>) -> Value {
        if p.pix == NO_SLOT {
            if let Some(h) = frame.out(p.pup).and_then(|f| f.sparam.as_ref()) {
                return Value::Hole(h.clone()).resolved().clone();
            }
        }
        ALWAYS
    }

    /// Applies `h` to the arguments `vals` (and `always`, for the staging
    /// parameter of a β): β or `if`, the result put in
    /// `cur` (`None`, `cur` as it was: anything else, or a β or `if` that
    /// would not execute).
    #[inline]
    fn apply(&mut self, h: Value, vals: &mut Args, expr: bool, span: Span, cur: &mut Current, once: bool) -> Option<(Rule, After)> {
        let lambda_rule = if expr { Rule::Expr } else { Rule::Beta };
        let h = match h {
            Value::Hole(x) => x.value.get()?.clone(),
            h => h,
        };
        match h {
            Value::Residual(r) => self.apply_res(r, vals, once, cur).map(|a| (lambda_rule, a)),
            Value::Clo(l, env, _) => self.beta(l, Some(env), vals, OwnName::None, cur).map(|g| (lambda_rule, g)),
            Value::Rec(l, env, _) => self.beta(l, Some(env), vals, OwnName::Rec, cur).map(|g| (Rule::Beta, g)),
            Value::Shared(t) => match self.m.g.kind(t) {
                Kind::Lambda(_) => {
                    let l = self.shared_lam(t, None)?;
                    self.beta(l, None, vals, OwnName::None, cur).map(|g| (lambda_rule, g))
                }
                Kind::Rec { name, lam } => {
                    let (name, lam) = (*name, *lam);
                    let l = self.shared_lam(lam, Some(name))?;
                    self.beta(l, None, vals, OwnName::Shared(t), cur).map(|g| (Rule::Beta, g))
                }
                _ => None,
            },
            Value::Lit(Lit::Builtin(Builtin::If)) => {
                if vals.len() != 3 || self.symbolic_splice.is_some() {
                    return None;
                }
                let Value::Lit(Lit::Bool(c)) = vals[0] else { return None };
                let branch = vals.swap_remove(if c { 1 } else { 2 });
                *cur = Current::Call(branch, span);
                Some((Rule::If, After::Go))
            }
            _ => None,
        }
    }

    /// β of the template `l` made in `env` on the arguments `vals` (`own`:
    /// a recursive lambda's own value, for its last slot).
    /// The frame of the body `cur` stands at is reused when nothing else
    /// holds it (a tail call: a loop makes no frame).
    #[inline]
    fn beta(&mut self, l: Rc<LamTemplate>, env: Option<Rc<Frame>>, vals: &mut Args, own: OwnName, cur: &mut Current) -> Option<After> {
        let k = l.k;
        if l.rest.is_none() && (vals.len() != k || self.symbolic_splice.is_some()) {
            return None;
        }
        self.rest_args(&l, vals)?;
        // A recursive value's own name, added below, reaches no deeper than
        // `env`, which `fits` counts.
        let depth = Frame::fits(vals, env.as_ref())?;
        self.bound += 1 + k as u64;
        let nslots = l.nslots as usize;
        if let Current::Body(lam, f, None) = cur {
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
                return Some(self.after(&lam.body.watch, f));
            }
        }
        vals.extend(own.value(&l, env.as_ref()));
        debug_assert_eq!(vals.len() + 1, l.origins.len(), "a frame that does not fit its template");
        let fr = Frame::new(env, val::slots(vals.drain(..), nslots), Some(l.clone()))?;
        let after = self.after(&l.body.watch, &fr);
        *cur = Current::Body(l, fr, None);
        Some(after)
    }

    /// The number of parameters, if `head args` in `frame` is a loop's
    /// call: `head` the own name of the recursive lambda `frame` is of
    /// (a recursive value made in the frame around it), as many plain
    /// arguments as its parameters, and `frame` held by the run alone.
    #[inline]
    fn loop_call(&self, head: &AtomTemplate, args: &[ArgTemplate], frame: &Rc<Frame>) -> Option<usize> {
        let AtomTemplate::Var(p) = head else { return None };
        let Some(Value::Rec(l, env, _)) = frame.get(p.pup, p.pix) else {
            return None;
        };
        let mine = frame.lam.as_ref().is_some_and(|m| Rc::ptr_eq(m, l)) && frame.up.as_ref().is_some_and(|u| Rc::ptr_eq(u, env));
        (mine && l.rest.is_none() && args.len() == l.k && Rc::strong_count(frame) == 1).then_some(l.k)
    }

    /// The template of a shared lambda (the lambda of a shared recursive
    /// value, with `name`), compiled once per run.
    fn shared_lam(&mut self, lam: NodeId, name: Option<super::node::GVar>) -> Option<Rc<LamTemplate>> {
        if let Some(l) = self.lams.get(&lam) {
            return Some(l.clone());
        }
        let mut c = Compiler::new(&self.m.g, self.used);
        let paid = usize::try_from(self.steps).unwrap_or(usize::MAX).saturating_mul(COMPILE_PER_STEP);
        c.limit = template::MAX_COMPILED.saturating_add(paid);
        let l = c.lambda(lam, name, false);
        self.used = c.used;
        let l = l?;
        self.lams.insert(lam, l.clone());
        Some(l)
    }

    /// Whether no body that `w` watches from the place of `frame` is active.
    #[inline(always)]
    fn quiet(&self, w: &template::Watch, frame: &Rc<Frame>) -> bool {
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
    fn stage(&self, s: &StageTemplate, d: u32, pd: u32, frame: &Rc<Frame>) -> bool {
        match s {
            StageTemplate::Const(b) | StageTemplate::Graph(_, b) => *b,
            StageTemplate::SParam(p) => {
                p.up >= d
                    && (p.pix != NO_SLOT
                        || p.pup
                            .checked_sub(pd)
                            .and_then(|up| frame.out(up))
                            .is_none_or(|f| f.sparam.as_ref().is_none_or(|h| h.value.get().is_some_and(Value::truth))))
            }
            StageTemplate::Var(p) => {
                p.up >= d
                    && p.pup
                        .checked_sub(pd)
                        .is_some_and(|up| frame.get(up, p.pix).is_some_and(Value::truth))
            }
            StageTemplate::SelfVar(..) => true,
            StageTemplate::Not(x) => !self.stage(x, d, pd, frame),
            StageTemplate::And(a, b) => self.stage(a, d, pd, frame) && self.stage(b, d, pd, frame),
            StageTemplate::Or(a, b) => self.stage(a, d, pd, frame) || self.stage(b, d, pd, frame),
        }
    }

    /// Marks every hole of the reductions in progress watched: those
    /// marked since the last reduction that ended are not looked at again,
    /// so however deeply reductions nest this costs what it marks.
    fn watch_all(&self) {
        let from = self.watched.get();
        self.subs
            .get(from..)
            .into_iter()
            .flatten()
            .flat_map(|sr| sr.holes.iter())
            .for_each(|h| h.watched.set(true));
        self.watched.set(self.subs.len());
    }

    /// Under a lambda, marks the holes that the bodies `w` watches in a
    /// closure made in `frame` are staged on: filling them in place would
    /// leave those bodies unlooked at ([`Hole::watched`]).
    fn watch_holes(&self, w: &Watch, frame: &Rc<Frame>) {
        if self.subs.is_empty() {
            return;
        }
        match w {
            Some(w) => w.iter().for_each(|(d, pd, s)| mark_holes(s, *d, *pd, frame)),
            // Not known: every hole in progress.
            None => self.watch_all(),
        }
    }

    /// The elements of a spliced value: a known tuple's (`None`: anything
    /// else, which the graph machine decides).
    fn splice(&self, t: Value, out: &mut impl Extend<Value>) -> Option<()> {
        match t.resolved().clone() {
            t @ (Value::Tup(_) | Value::Shared(_)) => tuples::elems_into(&self.m.g, &t, out)?,
            Value::Val(a) => match &*a {
                crate::term::Atom::Tuple(xs) => {
                    for x in xs {
                        match x {
                            crate::term::Arg::Atom(x) => out.extend([Value::of_atom(x.clone())]),
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
    fn eval(&self, a: &AtomTemplate, frame: &Rc<Frame>) -> Option<Value> {
        match a {
            AtomTemplate::Var(p) => frame.get(p.pup, p.pix).cloned(),
            AtomTemplate::SParam(p) => Some(self.sparam(p, frame)),
            AtomTemplate::Expr(_, _, Some(q)) => match q.eval_by(frame) {
                Some(v) => Some(v),
                None => self.eval_slow(a, frame),
            },
            _ => self.eval_slow(a, frame),
        }
    }

    #[inline(never)]
    fn eval_slow(&self, a: &AtomTemplate, frame: &Rc<Frame>) -> Option<Value> {
        Some(match a {
            AtomTemplate::Var(p) => frame.get(p.pup, p.pix)?.clone(),
            AtomTemplate::SParam(p) => self.sparam(p, frame),
            AtomTemplate::Sym(v) => Value::Sym(*v),
            AtomTemplate::RecName(v) => Value::RecName(*v),
            AtomTemplate::Lit(l) => Value::Lit(l.clone()),
            AtomTemplate::Shared(t) => Value::Shared(*t),
            AtomTemplate::Lam(l) => {
                self.watch_holes(&l.watch, frame);
                Value::closure(l.clone(), frame.clone())
            }
            AtomTemplate::Rec(l) => {
                self.watch_holes(&l.watch, frame);
                Value::rec(l.clone(), frame.clone())
            }
            AtomTemplate::Tuple(xs) => {
                let mut out: SmallVec<[Value; 4]> = SmallVec::new();
                for x in xs.iter() {
                    match x {
                        ArgTemplate::Atom(x) => out.push(self.eval(x, frame)?),
                        ArgTemplate::Splice(x) => {
                            let t = self.eval(x, frame)?;
                            self.splice(t, &mut out)?;
                        }
                    }
                }
                Tup::value(out.into_vec())?
            }
            AtomTemplate::Expr(e, kids, _) => {
                // Its quick form, if any, did not answer (see `eval`).
                let mut vals: SmallVec<[Value; 4]> = SmallVec::new();
                for k in kids.iter() {
                    vals.push(self.eval(k, frame)?);
                }
                // Tuple operations first, on the values as they are (the
                // evaluator would take a closure or a shared value apart).
                // (A tuple built and indexed, `"[a, b][i % 2]"`, is also
                // answered there, without terms.)
                let tuples_tried = vals.iter().any(|v| tuples::is_tuple(&self.m.g, v));
                if let Some(v) = tuples::eval(&self.m.g, e, &vals) {
                    return Some(v);
                }
                let mut ops: SmallVec<[crate::term::Atom; 4]> = SmallVec::new();
                for v in &vals {
                    match val::to_atom(v, &|n| self.m.export_raw(n)) {
                        Some(a) => ops.push(a),
                        // A closure: only tuple operations can take it
                        // (tried above if a tuple is among the operands).
                        None if tuples_tried => return None,
                        None => return tuples::eval(&self.m.g, e, &vals),
                    }
                }
                let r = eval_with(e, &|v| {
                    let i = super::node::hole_index(v)?;
                    ops.get(i).cloned()
                })
                .ok()?;
                Value::of_atom(r)
            }
        })
    }
}

/// Whether reading the head `a` in `frame` is the last read of a slot that
/// holds a residual itself (not a hole it fills, which other slots may
/// hold too): the only occurrence of its variable ([`template::Place::once`]),
/// in the frame that binds it or in a frame whose chain up to that one
/// nothing else holds, so that no other invocation can read the slot.
fn last_read(a: &AtomTemplate, frame: &Rc<Frame>) -> bool {
    let AtomTemplate::Var(p) = a else { return false };
    if !p.once {
        return false;
    }
    let mut f = frame;
    for _ in 0..p.pup {
        match &f.up {
            Some(u) if Rc::strong_count(u) == 1 => f = u,
            _ => return false,
        }
    }
    matches!(f.vals.get(p.pix as usize).and_then(|c| c.get()), Some(Value::Residual(_)))
}

/// Marks the unfilled holes the staging expression `s` of a body `d`
/// lambdas inside the place of `frame` (`pd` with frames of their own)
/// reads ([`Run::watch_holes`]).
fn mark_holes(s: &StageTemplate, d: u32, pd: u32, frame: &Rc<Frame>) {
    stage_holes(s, d, pd, frame, &mut |h| h.watched.set(true));
}

/// Calls `f` on each unfilled hole the staging expression `s` of a body
/// `d` lambdas inside the place of `frame` (`pd` with frames of their own)
/// reads.
fn stage_holes(s: &StageTemplate, d: u32, pd: u32, frame: &Rc<Frame>, f: &mut dyn FnMut(&Rc<Hole>)) {
    let hole_at = |p: &template::Place| -> Option<Rc<Hole>> {
        if p.up < d {
            return None;
        }
        let f = frame.out(p.pup.checked_sub(pd)?)?;
        let v = if p.pix == NO_SLOT {
            Value::Hole(f.sparam.clone()?)
        } else {
            f.vals.get(p.pix as usize)?.get()?.clone()
        };
        match v.resolved() {
            Value::Hole(h) => Some(h.clone()),
            _ => None,
        }
    };
    match s {
        StageTemplate::Var(p) | StageTemplate::SParam(p) => {
            if let Some(h) = hole_at(p) {
                f(&h);
            }
        }
        StageTemplate::Not(x) => stage_holes(x, d, pd, frame, f),
        StageTemplate::And(a, b) | StageTemplate::Or(a, b) => {
            stage_holes(a, d, pd, frame, f);
            stage_holes(b, d, pd, frame, f);
        }
        StageTemplate::Const(_) | StageTemplate::Graph(..) | StageTemplate::SelfVar(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::Limits;
    use crate::span::SourceMap;
    use crate::syntax::load::add_source;
    use crate::syntax::{load_from, MemFs};
    use std::cell::Cell;

    fn load(text: &str) -> crate::term::Program {
        let mut sources = SourceMap::new();
        let id = add_source(&mut sources, "t.dcps", None, text.as_bytes().to_vec()).expect("utf8");
        load_from(&MemFs::default(), id, &mut sources, false).expect("loads")
    }

    /// Runs `text` to its end and returns what it printed as its outcome,
    /// with the frames fast runs left alive.
    fn run(text: &str) -> (String, i64, u64) {
        val::LIVE_FRAMES.with(|n| n.set(0));
        let mut m = Machine::new(load(text));
        let out = format!("{:?}", m.run(&Limits::default()));
        let live = val::LIVE_FRAMES.with(Cell::get);
        (out, live, m.stats.fast_steps_done)
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

    /// The divide-and-conquer sum of LANGUAGE.md §5, each half a lambda
    /// whose body is staged on the split point.
    const STAGED_SUM: &str = "let join(a, b, k) {\n  a (x)\n  b (y)\n  k \"x+y\"\n}\nfix psum(lo, hi, k) {\n  if \"hi-lo == 1\" () { k lo } () {\n    \"(lo+hi)/2\" (mid)\n    join (ka) { @mid: psum lo mid ka } (kb) { @mid: psum mid hi kb } k\n  }\n} in\npsum 0 64 $exit\n";

    /// Runs `text` with fast runs and stepping alone: the outcome (which
    /// must hold `expect`) is the same; the steps fast runs took, and the
    /// steps in all.
    fn fast_and_stepped(text: &str, expect: &str) -> (u64, u64) {
        let (out, live, fast) = run(text);
        assert!(out.contains(expect), "{out}");
        assert_eq!(live, 0, "frames left alive");
        let mut m = Machine::new(load(text));
        m.fast = false;
        let stepped = m.run(&Limits::default());
        assert_eq!(format!("{stepped:?}"), out);
        (fast, m.counts.total())
    }

    /// Runs `text` as [`fast_and_stepped`] does, and checks that every step
    /// but `$exit` (which the graph machine executes) was in fast runs.
    fn all_but_exit_fast(text: &str, expect: &str) {
        let (fast, total) = fast_and_stepped(text, expect);
        assert_eq!(fast + 1, total, "every step but `$exit` in fast runs");
    }

    #[test]
    fn staged_halves_are_reduced_under_their_lambdas_in_a_run() {
        let before = val::live_values();
        all_but_exit_fast(STAGED_SUM, "2016");
        assert_eq!(val::live_values(), before, "values left alive");
    }

    #[test]
    fn a_blocked_bodys_continuation_is_reduced_under_in_a_run() {
        // Each `@pt:` addition is blocked on the symbolic `pt`, while the
        // continuation `(r)[pt] { @ct: .. }` is active (staged on the
        // `ct` of a lambda applied): the specialiser's pattern. It is a
        // lambda of its own, not inlined, so that the run reduces under it.
        let text = "fix run(n, x, pt, k) {\n  if \"n == 0\" () { k pt x } () {\n    (a)[ct] {\n      @pt: \"a+1\" (r)[pt]\n      @ct: \"n-1\" (m)\n      run m r pt k\n    } x\n  }\n} in\n$exit (exit, x)[pt] { @always: run 20 x pt (pt, v) { @pt: exit v } }\n";
        all_but_exit_fast(text, "Exit(Lambda");
    }

    #[test]
    fn a_long_list_of_the_graph_is_taken_apart_in_a_run() {
        // The graph builds a list of 300 cells (runs off); then a run takes
        // it apart cell by cell, reading the shared list from the graph
        // instead of compiling it (300 cells nest deeper than a template).
        let text = "fix build(i, P, k) {\n  if \"i == 0\" () { k P } () { \"i-1\" (j) build j [i, P] k }\n} in\nbuild 300 [] (P)\nfix sum(n, P, acc, k) {\n  if \"n == 0\" () { k acc } () {\n    (x, rest) { \"acc+x\" (a) \"n-1\" (m) sum m rest a k } !P\n  }\n} in\nsum 300 P 0 $exit\n";
        let stepped = fast_and_stepped(text, "45150").1;
        let mut m = Machine::new(load(text));
        m.fast = false;
        let built = Limits {
            max_steps: 1205,
            ..Limits::default()
        };
        assert!(matches!(m.run(&built), crate::run::Outcome::Limit(_)));
        m.fast = true;
        let out = format!("{:?}", m.run(&Limits::default()));
        assert!(out.contains("45150"), "{out}");
        assert_eq!(m.counts.total(), stepped);
        assert!(
            m.stats.fast_steps_done + 10 > stepped - 1205,
            "{} of {} steps after the build in fast runs",
            m.stats.fast_steps_done,
            stepped - 1205
        );
    }

    #[test]
    fn a_chain_of_lets_with_active_bodies_compiles_in_quadratic_time() {
        // 30 statements, each an expression applied to its continuation,
        // whose body is staged on `always`: each continuation needs a
        // frame of its own, found by trying it inlined first. Tried again
        // whenever the ones around it are compiled again, the chain would
        // take 2^30 tries (it stopped at the compile bound).
        let mut text = String::from("\"1\" (a0)\n");
        for j in 1..=30 {
            text += &format!("@always: \"a{}+1\" (a{j})\n", j - 1);
        }
        text += "$exit a30\n";
        let m = Machine::new(load(&text));
        let b = m.next_ready().expect("a ready body");
        let mut c = Compiler::new(&m.g, 0);
        assert!(c.entry(b).is_some(), "too big to compile");
        assert!(c.used < 4 * 30 * 30, "{} nodes compiled", c.used);
    }

    #[test]
    fn a_long_list_of_residual_functions_is_called_in_a_run() {
        // The wide specialiser at W = 200: the list of residual functions
        // is written in place in the body that calls them (each element
        // was unshared when its body turned pending), too deep to compile
        // whole. The run shares it in place and reads it a cell at a time,
        // so the calls run fast too.
        let text = include_str!("../../../../corpus/bench/specialise_wide.dcps")
            .replace("\nlet W = 4\n", "\nlet W = 200\n")
            .replace("\nlet K = 16\n", "\nlet K = 4\n");
        let (fast, stepped) = fast_and_stepped(&text, "20100");
        assert!(stepped - fast < 40, "{fast} of {stepped} steps in fast runs");
        // Stopped among the calls, the list shared in place, the graph
        // keeps its invariants.
        let mut m = Machine::new(load(&text));
        let calls = Limits {
            max_steps: stepped - 100,
            ..Limits::default()
        };
        assert!(matches!(m.run(&calls), crate::run::Outcome::Limit(_)));
        assert_eq!(m.check(), Ok(()));
        let out = format!("{:?}", m.run(&Limits::default()));
        assert!(out.contains("20100"), "{out}");
        assert_eq!(m.counts.total(), stepped);
    }

    #[test]
    fn a_long_list_made_in_a_run_is_no_deeper_than_its_cells() {
        // 3,000 cells, each a tuple in the one before: a run builds and
        // takes the list apart without stopping (closures bound how deeply
        // values nest, tuples do not).
        let text = "fix build(i, P, k) {\n  if \"i == 0\" () { k P } () { \"i-1\" (j) build j [[i, i], P] k }\n} in\nbuild 3000 [] (P)\nfix sum(n, P, acc, k) {\n  if \"n == 0\" () { k acc } () {\n    (x, rest) { (y, z) { \"acc+y\" (a) \"n-1\" (m) sum m rest a k } !x } !P\n  }\n} in\nsum 3000 P 0 $exit\n";
        all_but_exit_fast(text, "4501500");
    }

    #[test]
    fn a_chain_of_continuations_nests_freely_and_is_built_back_without_recursing() {
        // A non-tail recursion: each call's continuation captures the one
        // before, 3,000 deep. The run takes it whole...
        let text =
            "fix sum(n, k) {\n  if \"n == 0\" () { k 0 } () {\n    \"n-1\" (m)\n    sum m (r) { k \"r+n\" }\n  }\n} in\nsum 3000 $exit\n";
        let (_, total) = fast_and_stepped(text, "4501500");
        all_but_exit_fast(text, "4501500");
        // ...and stopped with the chain at its deepest, the run builds it
        // back as the graph the steps would have made, which then goes on
        // to the same end.
        for stop in [7, 6_000, 9_001] {
            let limits = Limits {
                max_steps: stop,
                ..Limits::default()
            };
            let mut fast = Machine::new(load(text));
            let mut stepped = Machine::new(load(text));
            stepped.fast = false;
            assert!(matches!(fast.run(&limits), crate::run::Outcome::Limit(_)));
            assert!(matches!(stepped.run(&limits), crate::run::Outcome::Limit(_)));
            assert!(
                fast.stats.fast_steps_done + 1 >= stop,
                "{} of {stop} steps fast",
                fast.stats.fast_steps_done
            );
            assert_eq!(fast.check(), Ok(()));
            let print = |m: &Machine| {
                let p = m.to_program();
                crate::print::Printer::new(&p.vars).program_text(&p.body)
            };
            assert_eq!(print(&fast), print(&stepped), "the term after {stop} steps");
            // The closures handed back are shared values known to be
            // closed, which the next run calls, each compiled as it is
            // called: that run takes the rest.
            let runs = fast.stats.fast_runs;
            let out = format!("{:?}", fast.run(&Limits::default()));
            assert!(out.contains("4501500"), "{out}");
            assert_eq!(fast.counts.total(), total);
            assert!(
                fast.stats.fast_steps_done + 2 >= total,
                "{} of {total} steps fast",
                fast.stats.fast_steps_done
            );
            assert!(fast.stats.fast_runs <= runs + 2, "{} runs to finish", fast.stats.fast_runs - runs);
        }
    }

    #[test]
    fn a_residual_applied_twice_is_copied_first() {
        // `f`'s body runs under its lambda (`n` is known), stopping at
        // `k m`; both calls of `f` then apply that residual.
        let text = "\"3\" (n)\nlet f = (k) { @n: \"n+1\" (m) k m }\nf (a) { f (b) { $exit \"a*10+b\" } }\n";
        let (fast, _) = fast_and_stepped(text, "44");
        assert!(fast >= 4, "the calls run fast ({fast} steps)");
    }

    #[test]
    fn stacks_of_closures_are_taken_apart_in_a_run() {
        // A stack of code, as the builders keep: `concat`, `len` and
        // indexing on tuples holding closures, which the expression
        // evaluator cannot take without the graph.
        let text = "let g(x, r) { r \"x+1\" }\nfix fill(i, S, k) {\n  if \"i == 0\" () { k S } () {\n    \"i-1\" (j)\n    fill j \"concat(S, [g])\" k\n  }\n} in\nfill 50 [] (S)\nfix run(n, x, k) {\n  if \"n == len(S)\" () { k x } () {\n    \"S[n]\" (f)\n    f x (y)\n    \"n+1\" (m)\n    run m y k\n  }\n} in\nrun 0 0 $exit\n";
        let (fast, total) = fast_and_stepped(text, "50");
        assert!(fast + 10 > total, "{fast} of {total} steps in fast runs");
    }
}
