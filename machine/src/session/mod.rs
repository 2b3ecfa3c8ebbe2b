//! A debugging session over the graph machine: stepping,
//! breakpoints, and time travel.
//!
//! The debugger drives the machine through this API only. Stepping back
//! restores the nearest snapshot at or before the target step (a clone of
//! the [`Machine`]) and replays forward: the machine is deterministic, so
//! the state reached is the state that was left. Snapshots are taken every
//! `interval` steps; when more than [`MAX_SNAPSHOTS`] are held, or they
//! take more than the session's memory budget ([`SNAPSHOT_BUDGET`] unless
//! set, by [`Machine::approx_bytes`]), every other one is dropped and the
//! interval doubles, so memory stays bounded on long runs and on big terms,
//! and going back one step replays at most `interval` steps (a stretch run
//! in parallel, once: see below).
//!
//! A session may reduce on several threads ([`Session::with_parallel`]): a
//! run with no enabled breakpoint and no subtree to stay within goes
//! through [`Machine::run_par`] to its budget or its deadline in one piece
//! (a state after a parallel run is the sequential state at that step
//! count), and the state it ends in is kept as a snapshot, whatever its
//! step, if it is at least an interval past the one before. Going back
//! into such a piece replays it from the snapshot before it, one step at a
//! time, and keeps the snapshots of that replay, so the stretch is
//! replayed once. Rounds outlast the time slices of a run
//! ([`Parallel::finishing_rounds`]); [`Session::set_interrupt`] stops
//! them. Stepping, reducing a subtree (the debugger's `e`) and runs with
//! breakpoints look at every step: one thread.

pub mod breakpoint;

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

pub use breakpoint::{Breakpoint, Entry, Stop};

use crate::error::RuntimeError;
use crate::graph::events::{Binding, StepEvents};
use crate::graph::par::Parallel;
use crate::graph::{Anchor, Machine, Next, NextKind};
use crate::memory::Exhausted;
use crate::run::Rule;
use crate::run::{Counts, Limits, Outcome, StopReason};
use crate::span::Span;
use crate::term::{Atom, Program, VarId};

/// Snapshots kept at most (the one of step 0 always among them).
pub const MAX_SNAPSHOTS: usize = 256;

/// The memory snapshots may take by default, in bytes (about: see
/// [`Machine::approx_bytes`]). 256 snapshots of the builders at 20,000
/// numbers took 4.4 GB, where the run alone needs 100 MB.
pub const SNAPSHOT_BUDGET: usize = 1 << 30;

/// The first snapshot interval, in steps.
const FIRST_INTERVAL: u64 = 32;

/// How a run ended.
#[derive(Clone, Debug)]
pub enum End {
    /// No body is pending: the term is the residual program.
    Residual,
    /// `$exit` executed with this value (over [`Machine::exit_vars`]).
    Exit(Atom),
    /// The next step fails with this error.
    Error(RuntimeError),
    /// The memory budget ran out ([`crate::memory`]); the state shown is
    /// the last snapshot before it.
    Memory(Exhausted),
}

/// A staging variable that was bound: when, which, and to what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fired {
    /// The step that bound it (counting from 1).
    pub step: u64,
    /// The source variable.
    pub var: VarId,
    /// Its source name.
    pub name: String,
    /// What it was bound to: a value (it fired; true for anything but
    /// `never`) or another staging variable, by name (the chain goes on).
    pub to: Bound,
}

/// What a staging variable was bound to ([`Fired::to`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Bound {
    /// A value: true for anything but `never`.
    Value(bool),
    /// Another variable, still symbolic, of this name.
    Var(String),
}

/// A machine under a debugger.
pub struct Session {
    machine: Machine,
    /// Snapshots `(step, machine)`, by increasing step; the first is step 0.
    snapshots: Vec<(u64, Machine)>,
    /// The most bytes the snapshots may take (two are kept whatever their
    /// size).
    budget: usize,
    interval: u64,
    end: Option<End>,
    fired: Vec<Fired>,
    /// The breakpoints, in the order they were set.
    pub breakpoints: Vec<Entry>,
    /// The breakpoint that stopped the last run, and the step it stopped
    /// at: a run from there does not stop on it again before stepping.
    last_hit: Option<(usize, u64)>,
    /// The body a "stuck" breakpoint stopped on: where it stands and the
    /// source variable it waits for.
    stuck_hit: Option<(Span, VarId)>,
    /// The reduction threads of runs without breakpoints (rounds finish
    /// past a time slice's end: [`Parallel::finishing_rounds`]).
    par: Parallel,
    /// Stops a parallel run, rounds included, when set
    /// ([`Session::set_interrupt`]).
    interrupt: Option<&'static AtomicBool>,
}

impl Session {
    /// A session at step 0 of `program`, on the sequential machine.
    pub fn new(program: Program) -> Session {
        Session::with_parallel(program, Parallel::sequential())
    }

    /// A session at step 0 of `program` whose runs without breakpoints
    /// reduce on the threads of `par`.
    pub fn with_parallel(program: Program, par: Parallel) -> Session {
        let mut machine = Machine::new(program);
        // The parallel driver keeps the events of every step it executes,
        // in rounds or not: the bound staging variables of a parallel run.
        machine.record_round_events = par.threads() > 1;
        Session {
            snapshots: vec![(0, machine.clone())],
            budget: SNAPSHOT_BUDGET,
            machine,
            interval: FIRST_INTERVAL,
            end: None,
            fired: Vec::new(),
            breakpoints: Vec::new(),
            last_hit: None,
            stuck_hit: None,
            par: par.finishing_rounds(),
            interrupt: None,
        }
    }

    /// A flag that stops a run in progress on the parallel driver, rounds
    /// included, when another thread sets it (the debugger's pause: a
    /// round runs past the end of a time slice, to its end, unless this
    /// stops it). The run then ends as a time slice does
    /// ([`Stop::Slice`]); the caller clears the flag before the next run.
    pub fn set_interrupt(&mut self, flag: &'static AtomicBool) {
        self.interrupt = Some(flag);
    }

    /// Bounds the exit value `$exit` builds by `max_nodes` nodes written out
    /// ([`Machine::limit_terms`]), in the machine and every snapshot.
    pub fn limit_terms(&mut self, max_nodes: u64) {
        let limits = Limits {
            max_nodes: usize::try_from(max_nodes).ok(),
            ..Limits::default()
        };
        self.machine.limit_terms(&limits);
        for (_, m) in &mut self.snapshots {
            m.limit_terms(&limits);
        }
    }

    /// The reduction threads of runs without breakpoints.
    pub fn parallel(&self) -> &Parallel {
        &self.par
    }

    /// Whether runs without breakpoints go through the parallel driver
    /// (more than one thread).
    pub fn reduces_in_parallel(&self) -> bool {
        self.par.threads() > 1
    }

    /// The machine (its state, its views).
    pub fn machine(&self) -> &Machine {
        &self.machine
    }

    /// Steps executed.
    pub fn steps(&self) -> u64 {
        self.machine.counts.total()
    }

    /// Steps executed, by rule.
    pub fn counts(&self) -> Counts {
        self.machine.counts
    }

    /// How the run ended, once it has.
    pub fn end(&self) -> Option<&End> {
        self.end.as_ref()
    }

    /// What the next step does (`None` once the run has ended).
    pub fn next(&self) -> Option<Next> {
        if self.end.is_some() {
            return None;
        }
        self.machine.peek()
    }

    /// The staging variables bound so far (fired, or handed on), in order.
    pub fn fired(&self) -> &[Fired] {
        &self.fired
    }

    /// Snapshots held and the current interval between them.
    pub fn snapshot_stats(&self) -> (usize, u64) {
        (self.snapshots.len(), self.interval)
    }

    /// About how many bytes the snapshots take
    /// ([`Machine::approx_bytes`]).
    pub fn snapshot_bytes(&self) -> usize {
        self.snapshots.iter().map(|(_, m)| m.approx_bytes()).sum()
    }

    /// Sets the memory the snapshots may take, in bytes (two are kept
    /// whatever their size), and thins them to it.
    pub fn set_snapshot_budget(&mut self, bytes: usize) {
        self.budget = bytes;
        self.thin();
    }

    /// Adds a breakpoint (enabled); returns its index. The same breakpoint
    /// twice is one entry (re-enabled).
    pub fn add_breakpoint(&mut self, at: Breakpoint) -> usize {
        if let Some(i) = self.breakpoints.iter().position(|e| e.at == at) {
            self.breakpoints[i].enabled = true;
            return i;
        }
        self.breakpoints.push(Entry {
            at,
            enabled: true,
            hits: 0,
        });
        self.breakpoints.len() - 1
    }

    /// Removes the breakpoint at `i` (no-op out of range).
    pub fn remove_breakpoint(&mut self, i: usize) {
        if i < self.breakpoints.len() {
            self.breakpoints.remove(i);
            self.last_hit = None;
        }
    }

    /// Turns the breakpoint at `i` on or off (no-op out of range).
    pub fn toggle_breakpoint(&mut self, i: usize) {
        if let Some(e) = self.breakpoints.get_mut(i) {
            e.enabled = !e.enabled;
        }
    }

    /// Executes one step, whatever the breakpoints. Returns false when the
    /// run has ended (then [`Session::end`] says how).
    pub fn step(&mut self) -> bool {
        if self.end.is_some() {
            return false;
        }
        let step = match crate::memory::catch(|| self.machine.step()) {
            Ok(step) => step,
            Err(e) => {
                self.exhausted(e);
                return false;
            }
        };
        match step {
            None => {
                self.end = Some(End::Residual);
                false
            }
            Some(Err(e)) => {
                self.end = Some(End::Error(e));
                false
            }
            Some(Ok(exit)) => {
                let step = self.steps();
                let events = std::mem::take(&mut self.machine.events);
                self.note_fired(step, &events);
                self.machine.events = events;
                if let Some(v) = exit {
                    self.end = Some(End::Exit(v));
                }
                self.snapshot();
                true
            }
        }
    }

    /// The memory budget ran out: a step cut short leaves the machine unfit
    /// to show, so the last snapshot at or before the current step stands,
    /// and the run ends there.
    fn exhausted(&mut self, e: Exhausted) {
        let step = self.steps();
        let i = self.snapshots.partition_point(|(s, _)| *s <= step).saturating_sub(1);
        if let Some((at, m)) = self.snapshots.get(i) {
            let at = *at;
            self.machine = m.clone();
            self.fired.retain(|f| f.step <= at);
        }
        self.end = Some(End::Memory(e));
    }

    /// Adds the staging variables that step `step` bound to the list.
    fn note_fired(&mut self, step: u64, events: &StepEvents) {
        let vars = self.machine.source_vars();
        for &(var, to) in &events.bound {
            let name = vars.name(var).unwrap_or("_").to_string();
            let to = match to {
                Binding::Value(truth) => Bound::Value(truth),
                Binding::Var(y) => Bound::Var(vars.name(y).unwrap_or("_").to_string()),
            };
            self.fired.push(Fired { step, var, name, to });
        }
    }

    /// After a step: a snapshot if the step is a multiple of the interval.
    fn snapshot(&mut self) {
        let step = self.steps();
        if step.is_multiple_of(self.interval) {
            self.keep_snapshot();
        }
    }

    /// A snapshot of the state now, at whatever step (none if one is held
    /// for this step), in its place among the others: a replay after going
    /// back fills in the snapshots of a stretch that a parallel piece ran
    /// in one go. Past [`MAX_SNAPSHOTS`], every other one is dropped (the
    /// first, step 0, stays) and the interval doubles: on a run that only
    /// stepped, the snapshots kept are the multiples of the new interval.
    fn keep_snapshot(&mut self) {
        let step = self.steps();
        let i = self.snapshots.partition_point(|(s, _)| *s < step);
        if self.snapshots.get(i).is_some_and(|(s, _)| *s == step) {
            return;
        }
        self.snapshots.insert(i, (step, self.machine.clone()));
        self.thin();
    }

    /// While more than [`MAX_SNAPSHOTS`] snapshots are held, or they take
    /// more than the budget, drops every other one (the first, step 0,
    /// stays) and doubles the interval. Two are always kept.
    fn thin(&mut self) {
        while self.snapshots.len() > 2 && (self.snapshots.len() > MAX_SNAPSHOTS || self.snapshot_bytes() > self.budget) {
            self.interval *= 2;
            let mut k = 0;
            self.snapshots.retain(|_| {
                k += 1;
                k % 2 == 1
            });
        }
    }

    /// Runs at most `budget` steps, stopping early at an enabled breakpoint,
    /// when the run ends, when `deadline` passes (checked every 256 steps),
    /// or, given `within`, when the next body to execute lies outside the
    /// subtree at that place (the debugger's `e`: reduce the focused body's
    /// subtree).
    ///
    /// With more than one thread, no enabled breakpoint and no `within`,
    /// the run goes through the parallel driver and stops at the same step
    /// with the same state and the same bound staging variables (the
    /// deadline is then the driver's time limit, which a round outlasts;
    /// the snapshots are kept where the run ends, see the module doc).
    pub fn run(&mut self, budget: u64, deadline: Option<Instant>, within: Option<Anchor>) -> Stop {
        if within.is_none() && self.reduces_in_parallel() && !self.breakpoints.iter().any(|e| e.enabled) {
            return self.run_parallel(budget, deadline);
        }
        let mut done = 0u64;
        // Looking at the next body before each step costs a second look (the
        // step looks again): only when something needs it.
        let look_ahead = within.is_some() || self.breakpoints.iter().any(|e| e.enabled && e.at.before_step());
        loop {
            if self.end.is_some() {
                return Stop::Ended;
            }
            if !look_ahead {
                if !self.machine.has_pending() {
                    self.end = Some(End::Residual);
                    return Stop::Ended;
                }
            } else {
                let Some(next) = self.machine.peek() else {
                    self.end = Some(End::Residual);
                    return Stop::Ended;
                };
                if let Some(a) = &within {
                    if !self.machine.within(next.body, a) {
                        return Stop::SubtreeDone;
                    }
                }
                if let Some(i) = self.before_step(&next) {
                    return Stop::Breakpoint(i);
                }
            }
            if done >= budget {
                return Stop::Budget;
            }
            if done > 0 && done.is_multiple_of(256) && deadline.is_some_and(|d| Instant::now() >= d) {
                return Stop::Slice;
            }
            self.step();
            done += 1;
            if let Some(i) = self.after_step() {
                return Stop::Breakpoint(i);
            }
        }
    }

    /// [`Session::run`] on the parallel driver: [`Machine::run_par`] to the
    /// budget or the deadline, followed by what a step-by-step run does
    /// after its steps: the bound staging variables noted, the end noted,
    /// and a snapshot of the state it ends in (an interval or more past the
    /// snapshot before it).
    fn run_parallel(&mut self, budget: u64, deadline: Option<Instant>) -> Stop {
        if self.end.is_some() {
            return Stop::Ended;
        }
        if !self.machine.has_pending() {
            self.end = Some(End::Residual);
            return Stop::Ended;
        }
        let target = self.steps().saturating_add(budget);
        if self.steps() >= target {
            return Stop::Budget;
        }
        let limits = Limits {
            max_steps: target,
            // At least 1 ms: a run always makes progress.
            timeout: deadline.map(|d| d.saturating_duration_since(Instant::now()).max(Duration::from_millis(1))),
            interrupt: self.interrupt,
            ..Limits::default()
        };
        let outcome = self.machine.run_par(&limits, &self.par);
        // The events of every step the run executed, with their step
        // numbers: what a step-by-step run notes after each step.
        for (step, ev) in self.machine.take_round_events() {
            self.note_fired(step, &ev);
        }
        // A snapshot where the run ended, at least an interval after the
        // one before (the debugger runs in slices of 40 ms: a clone per
        // slice would cost more than the run on a big term).
        let step = self.steps();
        let before = self.snapshots.partition_point(|(s, _)| *s <= step);
        let last = before.checked_sub(1).and_then(|i| self.snapshots.get(i)).map_or(0, |(s, _)| *s);
        // Not of a machine a spent memory budget may have cut short.
        let cut = matches!(outcome, Outcome::Limit(StopReason::Memory { .. }));
        if step >= last.saturating_add(self.interval) && !cut {
            self.keep_snapshot();
        }
        let end = match outcome {
            Outcome::Residual => End::Residual,
            Outcome::Exit(v) => End::Exit(v),
            Outcome::Error(e) => End::Error(e),
            Outcome::Limit(StopReason::Time { .. } | StopReason::Interrupted { .. }) => return Stop::Slice,
            Outcome::Limit(StopReason::Memory { spent, .. }) => {
                self.exhausted(spent);
                return Stop::Ended;
            }
            // The step limit: the budget (no other limit is set).
            Outcome::Limit(_) => return Stop::Budget,
        };
        self.end = Some(end);
        Stop::Ended
    }

    /// The breakpoint the step about to execute hits, if any (and it did
    /// not stop the run at this very step already).
    fn before_step(&mut self, next: &Next) -> Option<usize> {
        let step = self.steps();
        let hit = self.breakpoints.iter().position(|e| {
            e.enabled
                && match &e.at {
                    Breakpoint::Line { file, start, end, .. } => {
                        next.span.file == *file && next.span.start >= *start && next.span.start < *end
                    }
                    Breakpoint::Exit => next.what == NextKind::Rule(Rule::Exit),
                    Breakpoint::Error => matches!(next.what, NextKind::Error(_)),
                    Breakpoint::Step(n) => step == *n,
                    Breakpoint::Fire(_) | Breakpoint::Stuck => false,
                }
        })?;
        self.hit(hit, step)
    }

    /// The breakpoint the step just executed hits, if any.
    fn after_step(&mut self) -> Option<usize> {
        let step = self.steps();
        let events = &self.machine.events;
        let vars = self.machine.source_vars();
        // A body that turned stuck during the step and still is: one the
        // term shows stuck (not a copy's body stuck for a moment before the
        // step bound its parameters).
        let stuck = events.stuck.iter().find_map(|&b| self.machine.stuck_body(b));
        let hit = self.breakpoints.iter().position(|e| {
            e.enabled
                && match &e.at {
                    Breakpoint::Fire(name) => events.bound.iter().any(|(v, _)| vars.name(*v) == Some(name.as_str())),
                    Breakpoint::Stuck => stuck.is_some(),
                    Breakpoint::Step(n) => step == *n,
                    _ => false,
                }
        })?;
        if self.breakpoints.get(hit).is_some_and(|e| e.at == Breakpoint::Stuck) {
            self.stuck_hit = stuck;
        }
        self.hit(hit, step)
    }

    /// Where the body stands that the last "stuck" breakpoint stopped on,
    /// and the source variable it waits for.
    pub fn stuck_hit(&self) -> Option<(Span, VarId)> {
        self.stuck_hit
    }

    fn hit(&mut self, i: usize, step: u64) -> Option<usize> {
        if self.last_hit == Some((i, step)) {
            return None;
        }
        self.last_hit = Some((i, step));
        if let Some(e) = self.breakpoints.get_mut(i) {
            e.hits += 1;
        }
        Some(i)
    }

    /// Goes back to the state after `step` steps (or forward to it, without
    /// stopping at breakpoints): restores the nearest snapshot at or before
    /// it and replays. Going forward past the end stops at the end.
    pub fn goto(&mut self, step: u64) {
        if step < self.steps() {
            let i = self.snapshots.partition_point(|(s, _)| *s <= step).saturating_sub(1);
            if let Some((at, m)) = self.snapshots.get(i) {
                let at = *at;
                self.machine = m.clone();
                self.fired.retain(|f| f.step <= at);
            }
            self.end = None;
        }
        while self.steps() < step && self.step() {}
        self.last_hit = None;
    }

    /// Goes back `n` steps (to step 0 at most).
    pub fn back(&mut self, n: u64) {
        let now = self.steps();
        self.goto(now.saturating_sub(n));
    }
}
