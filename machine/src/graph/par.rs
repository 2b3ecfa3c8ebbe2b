//! Parallel reduction: the graph machine spread over threads.
//!
//! Ready bodies are independent by construction: none is nested in
//! another, and a step rewrites only the place of the body it executes
//! (β binds the callee's parameters, whose occurrences and waiters lie
//! inside the callee). The driver runs the sequential machine and, when the
//! pending bodies branch, reduces the branches, *units*, in bulk rounds on
//! a rayon pool, each on a machine of its own (its own arena and worklist),
//! and puts the results back in the reference order (LANGUAGE.md §5), so
//! that results, error kinds and step counts are those of the sequential
//! machine whatever the number of threads.
//!
//! [`Machine::run_par`] runs the sequential loop and now and then looks for
//! a frontier that branches: below the single outermost pending body,
//! several outermost pending bodies, read off the tour's marks in
//! `O(log n)` each. Each becomes a unit, reduced on a machine of its own
//! on the rayon pool; the merge imports the results in tour order. The
//! sequential machine would reduce the units in that order, so the first
//! unit that ends the run (an exit, an error) ends it there, and a unit
//! that would overrun the step limit is run again with the steps left:
//! the outcome, the result and the counts do not depend on the thread
//! count. A fast run stops where a body holds two independent reductions
//! under lambdas on a machine that may still split (`FastRunPolicy`), so
//! the halves of a staged divide and conquer go to different threads.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::events::StepEvents;
use super::export::ExportNames;
use super::import::Importer;
use super::node::{GVar, NodeId, VarState};
use super::{Machine, MachineStats};
use crate::run::{Counts, Limits, Outcome, Report, Stepper, StopReason};
use crate::term::{self, VarId, Vars};

/// Steps between two looks for a branching frontier at first, and after a
/// round that paid.
const FIRST_INTERVAL: u64 = 64;

/// The longest wait between two looks (a narrow program looks this rarely).
const MAX_INTERVAL: u64 = 4096;

/// Levels of single outermost pending bodies a look at the frontier goes
/// down at most (`O(log size)` each; a narrow program pays at most this
/// every [`MAX_INTERVAL`] steps).
const LOOK_LEVELS: usize = 256;

/// Units a round takes at most (a look finding more gives up).
const MAX_UNITS: usize = 1 << 16;

/// A round that executes fewer steps than this did not pay for itself: the
/// next look waits longer instead of starting again at [`FIRST_INTERVAL`].
const PAYING_ROUND: u64 = 256;

/// How a run is spread over threads: `threads == 1` is the sequential
/// machine. Cloning shares the thread pool.
#[derive(Clone, Debug)]
pub struct Parallel {
    threads: usize,
    eager: bool,
    /// Whether a round runs its units to their end whatever the time limit
    /// ([`Parallel::finishing_rounds`]).
    finish_rounds: bool,
    pool: Option<Arc<rayon::ThreadPool>>,
}

/// Stack of each reduction thread: the machine iterates, but the
/// expression evaluator and staging expressions still recurse.
const STACK: usize = 256 << 20;

impl Parallel {
    /// The sequential machine.
    pub fn sequential() -> Parallel {
        Parallel {
            threads: 1,
            eager: false,
            finish_rounds: false,
            pool: None,
        }
    }

    /// `threads` reduction threads (1: the sequential machine); rounds run
    /// only when the pending bodies branch widely enough to pay.
    pub fn new(threads: usize) -> Result<Parallel, String> {
        Self::build(threads, false)
    }

    /// Like [`Parallel::new`], but a round runs whenever the pending bodies
    /// branch at all, at every step, however small the units (for tests of
    /// determinism: the most rounds, the most merges).
    pub fn eager(threads: usize) -> Result<Parallel, String> {
        Self::build(threads, true)
    }

    fn build(threads: usize, eager: bool) -> Result<Parallel, String> {
        let threads = threads.max(1);
        let pool = if threads > 1 {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .stack_size(crate::memory::stack(STACK))
                .thread_name(|i| format!("deepcps-reduce-{i}"))
                .build()
                .map_err(|e| format!("cannot start {threads} reduction threads: {e}"))?;
            Some(Arc::new(pool))
        } else {
            None
        };
        Ok(Parallel {
            threads,
            eager,
            finish_rounds: false,
            pool,
        })
    }

    /// The same threads (the same pool), but a time limit reached while a
    /// round runs waits for the round's end: the units run without it, and
    /// only the interrupt flag ([`Limits::interrupt`]) stops them. Without
    /// this, the first unit stops at the limit and the work of the others
    /// is thrown away (the merge keeps the sequential order), which is
    /// right for `--timeout` but wastes every round of a run cut into short
    /// time slices: the debugger's, 40 ms each.
    pub fn finishing_rounds(mut self) -> Parallel {
        self.finish_rounds = true;
        self
    }

    /// The number of reduction threads.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// All the cores of this machine.
    pub fn cores() -> usize {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    }

    /// Levels of nested rounds: a unit may split again while its depth
    /// lasts. Enough for work stealing to balance uneven halves (a few
    /// units per thread), few enough that units stay big.
    fn depth(&self) -> u32 {
        if self.eager {
            return 64;
        }
        self.threads.next_power_of_two().trailing_zeros() + 2
    }

    fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        match &self.pool {
            Some(p) => p.install(f),
            None => f(),
        }
    }
}

/// What the parallel driver did in a run (for `--stats` and the figures).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ParStats {
    /// Rounds run (at every level of nesting).
    pub rounds: u64,
    /// Units reduced in those rounds (at every level).
    pub units: u64,
    /// Steps executed inside units of the outermost rounds (also counted
    /// in the machine's counts).
    pub steps: u64,
    /// Units whose results were thrown away: they followed a unit that
    /// ended the run (`$exit`, an error, a limit) or one that could not be
    /// taken out (the sequential machine reduces it instead).
    pub discarded: u64,
}

impl ParStats {
    /// Adds the rounds of a unit's machine (its steps are the unit's,
    /// counted already).
    fn add_nested(&mut self, o: &ParStats) {
        self.rounds += o.rounds;
        self.units += o.units;
        self.discarded += o.discarded;
    }
}

/// How one run of the driver goes: the limits as deadlines, the pool, the
/// nesting left.
struct Cx<'p> {
    par: &'p Parallel,
    /// Steps this machine may execute in all (its own count).
    max_steps: u64,
    deadline: Option<Instant>,
    /// The `--timeout` asked for (what a time limit reports).
    timeout: Duration,
    max_nodes: Option<usize>,
    interrupt: Option<&'static AtomicBool>,
    /// Rounds may nest this much deeper (0: this machine runs
    /// sequentially).
    depth: u32,
    /// Whether to keep the events of every step ([`Machine::round_events`]).
    record: bool,
}

/// The variables of a subtree: the origin of every binder and free
/// variable, and which are free.
struct Scope {
    free: Vec<GVar>,
    origins: FxHashMap<VarId, VarId>,
}

/// A unit reduced on a machine of its own, as it comes back: plain terms
/// over that machine's variables, and what to map them to.
struct UnitOut {
    outcome: Outcome,
    counts: Counts,
    /// The unit's term at the end (over the unit machine's variables).
    body: term::Body,
    /// The unit machine's free variables and the variables they stand for.
    free: Vec<(VarId, GVar)>,
    /// The origins of the binders of `body`.
    origins: FxHashMap<VarId, VarId>,
    exit_vars: Option<Vars>,
    peak: usize,
    /// Its machine's work besides the steps.
    work: MachineStats,
    events: Vec<(u64, StepEvents)>,
    stats: ParStats,
}

impl Machine {
    /// Runs until no body is pending, `$exit`, an error or a limit, on the
    /// threads of `par`: the same outcome, result and counts by kind as
    /// [`Machine::run`], which it is with one thread.
    pub fn run_par(&mut self, limits: &Limits, par: &Parallel) -> Outcome {
        if par.threads <= 1 {
            return self.run(limits);
        }
        let timeout = limits.timeout.unwrap_or(Duration::MAX);
        let cx = Cx {
            par,
            max_steps: limits.max_steps,
            deadline: limits.timeout.and_then(|t| Instant::now().checked_add(t)),
            timeout,
            max_nodes: limits.max_nodes,
            interrupt: limits.interrupt,
            depth: par.depth(),
            record: self.record_round_events,
        };
        match crate::memory::catch(|| self.drive_par(&cx)) {
            Ok(outcome) => outcome,
            Err(spent) => Outcome::Limit(StopReason::Memory {
                spent,
                steps: self.counts.total(),
            }),
        }
    }

    /// Like [`Machine::report`], on the threads of `par`.
    pub fn report_par(&mut self, limits: &Limits, par: &Parallel) -> Report {
        self.limit_terms(limits);
        let outcome = self.run_par(limits, par);
        self.report_of(outcome, limits)
    }

    /// What the parallel driver did so far.
    pub fn par_stats(&self) -> ParStats {
        self.par_stats
    }

    /// The events of the steps executed by [`Machine::run_par`] since the
    /// last call (those with something to report), with their step numbers
    /// (counting from 1, as the sequential machine numbers them), in order;
    /// kept only when [`Machine::record_round_events`] is set. The
    /// debugger's list of bound staging variables reads them after a
    /// parallel run.
    pub fn take_round_events(&mut self) -> Vec<(u64, StepEvents)> {
        std::mem::take(&mut self.round_events)
    }

    /// The run loop of the driver: the sequential machine's loop (the same
    /// checks in the same order), which looks now and then for a frontier
    /// that branches and reduces it in a round.
    fn drive_par(&mut self, cx: &Cx<'_>) -> Outcome {
        let mut next_clock = 0;
        let mut interval = if cx.par.eager { 1 } else { FIRST_INTERVAL };
        let mut next_look = if cx.depth > 0 { 0 } else { u64::MAX };
        self.fast_policy.split_from = if cx.depth > 0 && !cx.record { 0 } else { u64::MAX };
        // The step count of the last look for a frontier.
        let mut last_look = None;
        loop {
            let steps = self.counts.total();
            if steps >= next_clock {
                // The clock as often as the sequential run loop reads it.
                let every = <Machine as Stepper>::CLOCK_EVERY;
                next_clock = (steps / every + 1) * every;
                if cx.deadline.is_some_and(|d| Instant::now() >= d) {
                    return Outcome::Limit(StopReason::Time { limit: cx.timeout, steps });
                }
                if cx.interrupt.is_some_and(|f| f.load(Ordering::Relaxed)) {
                    return Outcome::Limit(StopReason::Interrupted { steps });
                }
            }
            if let Some(spent) = crate::memory::over() {
                return Outcome::Limit(StopReason::Memory { spent, steps });
            }
            if let Some(limit) = cx.max_nodes {
                if self.g.live > limit {
                    return Outcome::Limit(StopReason::Nodes { limit, steps });
                }
            }
            if steps >= cx.max_steps {
                if self.has_pending() {
                    return Outcome::Limit(StopReason::Steps(steps));
                }
                return Outcome::Residual;
            }
            if steps >= self.pause_at {
                return Outcome::Limit(StopReason::Steps(steps));
            }
            if steps >= next_look {
                last_look = Some(steps);
                match self.frontier(MAX_UNITS) {
                    Some(units) => {
                        if let Some(end) = self.round(&units, cx) {
                            return end;
                        }
                        let done = self.counts.total() - steps;
                        if !cx.par.eager {
                            interval = if done >= PAYING_ROUND {
                                FIRST_INTERVAL
                            } else {
                                (interval * 2).min(MAX_INTERVAL)
                            };
                        }
                        next_look = self.counts.total() + interval;
                        continue;
                    }
                    None => {
                        if !cx.par.eager {
                            interval = (interval * 2).min(MAX_INTERVAL);
                        }
                        next_look = steps + interval;
                    }
                }
            }
            if !cx.record {
                let budget = cx.max_steps - steps;
                let clock = || {
                    cx.deadline.is_some_and(|d| Instant::now() >= d)
                        || cx.interrupt.is_some_and(|f| f.load(Ordering::Relaxed))
                        || crate::memory::over().is_some()
                };
                let ran = self.fast_steps(budget, &mut |_, _, _| {}, &clock).is_some();
                if std::mem::take(&mut self.fast_policy.split_asked) {
                    // The run stopped where independent reductions branch:
                    // look now. If the look does nothing, the next run does
                    // not stop there again.
                    let now = self.counts.total();
                    if last_look != Some(now) {
                        next_look = now;
                        continue;
                    }
                    self.fast_policy.split_from = now + 1;
                }
                if ran {
                    continue;
                }
            }
            match self.step() {
                None => return Outcome::Residual,
                Some(Ok(Some(v))) => return Outcome::Exit(v),
                Some(Ok(None)) => {
                    if cx.record && (!self.events.bound.is_empty() || !self.events.stuck.is_empty()) {
                        self.round_events.push((self.counts.total(), self.events.clone()));
                    }
                }
                Some(Err(e)) => return Outcome::Error(e),
            }
        }
    }

    /// The units of a round, in the reference order, if the pending bodies
    /// branch: going down from the root through the pending bodies as long
    /// as exactly one pending body is outermost below (the only one the
    /// sequential machine can work in), the outermost pending bodies below
    /// the first place where there are several. The sequential machine
    /// reduces each of them to the end, one after the other in this order
    /// (each step stays in its unit's place; a pending body around them
    /// comes after everything nested in it), before anything else. `None`:
    /// nothing branches within [`LOOK_LEVELS`] levels.
    ///
    /// It reads the tour only: the pending bodies are its marked entries,
    /// numbered in post-order, and the marks of a subtree are a contiguous
    /// range of numbers ending with its root's own. So the last mark of a
    /// range is an outermost body, and the marks nested in it are skipped
    /// in one jump: `O(log size)` per unit and per level, however long the
    /// spine of tuples or chains that leads to them.
    fn frontier(&self, max_units: usize) -> Option<Vec<NodeId>> {
        let total = self.g.tour.marks_in_tree(self.root);
        if total < 2 {
            return None;
        }
        let mut range = 0..total;
        for _ in 0..LOOK_LEVELS {
            let mut out = Vec::new();
            let mut k = range.end;
            while k > range.start {
                let m = self.g.tour.nth_marked(self.root, k - 1)?;
                out.push(m);
                if out.len() > max_units {
                    return None;
                }
                k = self.g.tour.mark_span(m).start.max(range.start);
            }
            match out.len() {
                0 => return None,
                1 => {
                    // Inside the one outermost pending body, without it.
                    let span = self.g.tour.mark_span(out[0]);
                    range = span.start..span.end - 1;
                }
                _ => {
                    out.reverse();
                    return Some(out);
                }
            }
        }
        None
    }

    /// Reduces the `units` in parallel, each to its end on a machine of its
    /// own, and puts the results in place in the reference order, as the
    /// sequential machine would have reached them: a unit that ends the run
    /// (`$exit`, an error, a limit) ends it there and the later units are
    /// thrown away; a unit that the step limit stops is run again with
    /// exactly the steps left. `Some`: the run ends.
    fn round(&mut self, units: &[NodeId], cx: &Cx<'_>) -> Option<Outcome> {
        let base = self.counts.total();
        let left = cx.max_steps - base;
        let sub = Cx {
            par: cx.par,
            max_steps: left,
            deadline: if cx.par.finish_rounds { None } else { cx.deadline },
            timeout: cx.timeout,
            max_nodes: cx.max_nodes,
            interrupt: cx.interrupt,
            depth: cx.depth - 1,
            record: cx.record,
        };
        let this = &*self;
        let outs: Vec<Option<UnitOut>> = cx.par.install(|| units.par_iter().map(|&u| this.run_unit(u, &sub)).collect());
        self.par_stats.rounds += 1;
        let live = self.g.live;
        let mut peak = live;
        let mut used = 0;
        let mut outs = outs.into_iter();
        let mut end = None;
        for &u in units {
            let Some(Some(mut out)) = outs.next() else { break };
            let budget = left - used;
            if budget == 0 {
                self.par_stats.discarded += 1;
                break;
            }
            if out.counts.total() > budget {
                // The sequential machine stops inside this unit.
                let exact = Cx { max_steps: budget, ..sub };
                match self.run_unit(u, &exact) {
                    Some(o) => out = o,
                    None => break,
                }
            }
            self.commit(u, &mut out);
            let steps = out.counts.total();
            for (k, ev) in out.events {
                self.round_events.push((base + used + k, ev));
            }
            used += steps;
            self.counts += out.counts;
            self.stats += out.work;
            self.par_stats.units += 1;
            self.par_stats.steps += steps;
            self.par_stats.add_nested(&out.stats);
            peak += out.peak;
            match out.outcome {
                Outcome::Residual => continue,
                Outcome::Exit(v) => {
                    self.exit.vars = out.exit_vars;
                    end = Some(Outcome::Exit(v));
                }
                Outcome::Error(e) => end = Some(Outcome::Error(e)),
                Outcome::Limit(r) => {
                    let steps = self.counts.total();
                    end = Some(Outcome::Limit(match r {
                        StopReason::Steps(_) => StopReason::Steps(steps),
                        StopReason::Time { limit, .. } => StopReason::Time { limit, steps },
                        StopReason::Nodes { limit, .. } => StopReason::Nodes { limit, steps },
                        StopReason::Interrupted { .. } => StopReason::Interrupted { steps },
                        StopReason::Memory { spent, .. } => StopReason::Memory { spent, steps },
                    }));
                }
            }
            break;
        }
        self.par_stats.discarded += outs.len() as u64;
        // The units' machines lived beside this one: count them at once (a
        // bound, not a measure).
        self.g.peak_live = self.g.peak_live.max(peak);
        self.unshare_pending();
        end
    }

    /// Reduces the pending body `u` on a machine of its own within `cx`.
    /// `None`: it cannot be taken out (a recursive name inside it whose
    /// value lies outside).
    fn run_unit(&self, u: NodeId, cx: &Cx<'_>) -> Option<UnitOut> {
        let scope = self.scope(u)?;
        let body = self.export_body(u, &mut ExportNames::raw())?;
        let mut m = Machine::blank(self.source.clone());
        let mut free = Vec::with_capacity(scope.free.len());
        for &f in &scope.free {
            let origin = scope.origins.get(&f).copied().unwrap_or(f);
            free.push((f, m.g.fresh_var(origin)));
        }
        let mut imp = Importer::foreign(free.iter().copied(), scope.origins);
        m.root = imp.body(&mut m.g, body);
        m.init_nodes(&imp.made);
        m.new_pending.clear();
        m.events.clear();
        let outcome = m.drive_par(cx);
        let back = m.scope(m.root)?;
        let body = m.export_body(m.root, &mut ExportNames::raw())?;
        debug_assert!(
            back.free.iter().all(|v| free.iter().any(|(_, s)| s == v)),
            "a unit's machine has free variables of its own"
        );
        Some(UnitOut {
            outcome,
            counts: m.counts,
            body,
            free: free.into_iter().map(|(f, s)| (s, f)).collect(),
            origins: back.origins,
            exit_vars: m.exit.vars.take(),
            peak: m.g.peak_live,
            work: m.stats,
            events: std::mem::take(&mut m.round_events),
            stats: m.par_stats,
        })
    }

    /// Puts a unit's result in the place of the unit `u` (taking its
    /// binders' origins).
    fn commit(&mut self, u: NodeId, out: &mut UnitOut) {
        let mut imp = Importer::foreign(out.free.iter().copied(), std::mem::take(&mut out.origins));
        let span = out.body.span;
        let body = std::mem::replace(&mut out.body, crate::term::Body::hollow(span));
        let new = imp.body(&mut self.g, body);
        self.init_nodes(&imp.made);
        let parent = self.g.nodes[u.ix()].parent;
        self.g.replace_child(parent, u, new);
        if u == self.root {
            self.root = new;
        }
        self.free(u);
    }

    /// The variables of the subtree at `u`, shared values included: the
    /// origin of every binder and free variable. `None` if a free variable
    /// is not symbolic (a recursive name whose value lies outside `u`: a
    /// machine of its own could not apply it).
    fn scope(&self, u: NodeId) -> Option<Scope> {
        let (binders, used) = self.subtree_vars(u);
        let mut origins: FxHashMap<VarId, VarId> = FxHashMap::default();
        let mut free = Vec::new();
        for v in used {
            if binders.contains(&v) || origins.contains_key(&v) {
                continue;
            }
            if self.g.var(v).bound() != VarState::Symbolic {
                return None;
            }
            origins.insert(v, self.g.var(v).origin);
            free.push(v);
        }
        for v in binders {
            origins.insert(v, self.g.var(v).origin);
        }
        Some(Scope { free, origins })
    }
}
