//! The product's run: the graph machine, which hands the term over to the
//! arena engine ([`crate::engine`]) when its fast runs and parallel rounds
//! stop paying.
//!
//! The graph machine executes plain code in fast runs (templates and
//! frames, tens of millions of steps a second) and spreads independent
//! subtrees over threads; a body neither takes steps on the general graph,
//! at a few microseconds each. The engine steps staged code several times
//! faster than that (the paper's builders, where fast runs cannot start)
//! but runs no fast runs of its own. So the run starts on the graph and
//! looks back after every window of steps (the windows doubling; a window
//! ends at a step on the graph, never inside a fast run or a round): when
//! fast runs and rounds executed less than a quarter of a window's steps,
//! the term as it stands is written out and the engine goes on from it.
//! It never hands back.
//!
//! The hand-over is exact: the reference order is a function of the term
//! alone (LANGUAGE.md §5, the first ready body of a walk of the term), so
//! the engine started on the written-out term executes the steps the
//! graph machine would have, with the same counts by kind, result, errors
//! and stuck warnings. The closed lambdas the graph shares (the builders'
//! code fragments, library functions), and the closed recursive values it
//! holds (the builders' `for`, bound in place inside `build`), are written
//! out once and shared by the engine too, as values of variables with
//! several occurrences ([`Machine::into_program_lifted`]): a lambda holding
//! one then holds a variable, and is copied from its template (holding the
//! value itself, it would have a local and be copied by a walk at every
//! action). Other shared values are written out
//! at every place holding them: a term that would grow past a few times
//! the graph that way stays on the graph.

use std::time::Instant;

use crate::engine::Engine;
use crate::graph::par::Parallel;
use crate::graph::Machine;
use crate::run::{Limits, Outcome, Report, StopReason};
use crate::term::Program;

/// When the graph machine looks back at its steps, and what it asks of
/// them.
#[derive(Clone, Copy, Debug)]
pub struct Policy {
    /// Steps of the first window (later windows double, up to
    /// [`Policy::last_window`]).
    pub first_window: u64,
    /// The largest window.
    pub last_window: u64,
    /// Hand over after the first window whatever the graph did in it, with
    /// fast runs or without (the tests' way to hand over at a chosen
    /// step).
    pub always: bool,
}

impl Default for Policy {
    fn default() -> Policy {
        Policy {
            first_window: 1 << 13,
            last_window: 1 << 24,
            always: false,
        }
    }
}

/// What a run did, for `--stats` and the benchmark rows.
#[derive(Clone, Debug, Default)]
pub struct Ran {
    /// The graph machine's line of statistics (and its parallel line).
    pub graph: String,
    /// The engine's line of statistics ([`Engine::stats_text`]), if it
    /// took over.
    pub engine: Option<String>,
    /// The step after which the engine took over, if it did.
    pub handed_over: Option<u64>,
    /// Live nodes at the end, of the machine that ended the run; `None`
    /// when the budget ran out while the term was handed over (the graph
    /// taken apart, the engine not yet whole).
    pub live_nodes: Option<usize>,
    /// Most live nodes at once, on either machine.
    pub peak_live_nodes: usize,
}

/// Reduces `program` within `limits` on the graph machine (fast runs as
/// `fast` says, threads as `par` says), handing over to the engine as
/// `policy` says; without fast runs the graph machine keeps the run unless
/// the policy says `always`.
pub fn report(program: Program, limits: &Limits, par: &Parallel, fast: bool, policy: Policy) -> (Report, Ran) {
    let start = Instant::now();
    let mut m = Machine::new(program);
    m.fast = fast;
    m.limit_terms(limits);
    let mut window = policy.first_window.max(1);
    loop {
        let steps = m.counts.total();
        m.pause_at = steps.saturating_add(window);
        let before = paid(&m);
        let outcome = match m.run_par(&left(limits, start), par) {
            Outcome::Limit(StopReason::Steps(n)) if n < limits.max_steps => {
                let done = n - steps;
                let hand = policy.always || (fast && (paid(&m) - before).saturating_mul(4) < done);
                if hand {
                    m.classify_shared_recs();
                    if writes_out_lean(&m) {
                        return hand_over(m, limits, par, start);
                    }
                }
                window = window.saturating_mul(2).min(policy.last_window.max(1));
                continue;
            }
            other => with_users_timeout(other, limits),
        };
        let report = m.report_of(outcome, limits);
        let ran = Ran {
            graph: m.stats_text(par.threads()),
            engine: None,
            handed_over: None,
            live_nodes: Some(m.live_nodes()),
            peak_live_nodes: m.peak_live_nodes(),
        };
        return (report, ran);
    }
}

/// Steps executed in fast runs and in rounds so far.
fn paid(m: &Machine) -> u64 {
    m.stats.fast_steps_done + m.par_stats().steps
}

/// Whether the term written out for the engine is at most a few times the
/// graph holding it: the shared values that are not closed lambdas are
/// written out at every place holding them (a tuple doubled at every step
/// would be exponential).
fn writes_out_lean(m: &Machine) -> bool {
    let cap = (m.live_nodes() as u64).saturating_mul(4).saturating_add(1 << 16);
    m.lifted_size_capped(cap).is_some()
}

/// The engine goes on from the term of `m`.
fn hand_over(m: Machine, limits: &Limits, par: &Parallel, start: Instant) -> (Report, Ran) {
    let at = m.counts.total();
    let counts = m.counts;
    let graph = m.stats_text(par.threads());
    let graph_peak = m.peak_live_nodes();
    // Writing out and loading grow memory too: a spent budget is a result.
    // The machine is taken apart as its term is written out, and the
    // engine's load takes that term apart as it builds its own.
    let exported = crate::memory::catch(move || m.into_program_lifted());
    let started = exported.and_then(|(program, shared)| crate::memory::catch(move || Engine::continuing(program, shared, counts)));
    let mut e = match started {
        Ok(e) => e,
        Err(spent) => {
            let outcome = Outcome::Limit(StopReason::Memory { spent, steps: at });
            let report = Report::of(outcome, counts, limits, |_| (String::new(), Vec::new(), None));
            let ran = Ran {
                graph,
                engine: None,
                handed_over: Some(at),
                live_nodes: None,
                peak_live_nodes: graph_peak,
            };
            return (report, ran);
        }
    };
    let report = e.report_traced(&left(limits, start), &mut |_, _, _| {});
    let report = Report {
        outcome: with_users_timeout(report.outcome, limits),
        ..report
    };
    let ran = Ran {
        graph,
        engine: Some(e.stats_text()),
        handed_over: Some(at),
        live_nodes: Some(e.live_nodes()),
        peak_live_nodes: graph_peak.max(e.peak_live_nodes()),
    };
    (report, ran)
}

/// `limits` with the time left of them since `start`.
fn left(limits: &Limits, start: Instant) -> Limits {
    Limits {
        timeout: limits.timeout.map(|t| t.saturating_sub(start.elapsed())),
        ..*limits
    }
}

/// A time limit reported as the one the user set (a window ran with what
/// was left of it).
fn with_users_timeout(outcome: Outcome, limits: &Limits) -> Outcome {
    match (outcome, limits.timeout) {
        (Outcome::Limit(StopReason::Time { steps, .. }), Some(limit)) => Outcome::Limit(StopReason::Time { limit, steps }),
        (other, _) => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_time_limit_is_reported_as_the_users() {
        use std::time::Duration;
        let o = with_users_timeout(
            Outcome::Limit(StopReason::Time {
                limit: Duration::from_millis(5),
                steps: 7,
            }),
            &Limits {
                timeout: Some(Duration::from_secs(1)),
                ..Limits::default()
            },
        );
        assert!(matches!(o, Outcome::Limit(StopReason::Time { limit, steps: 7 }) if limit == Duration::from_secs(1)));
    }
}
