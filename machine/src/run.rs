//! What a run produces, whatever machine runs it: the outcome, the step
//! counts by rule kind, and the limits that stop a run as a result.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::diag::Diagnostic;
use crate::error::RuntimeError;
use crate::span::Span;
use crate::term::Atom;

/// The rule kinds, for counting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// β.
    Beta,
    /// β of `"e" (x) b`.
    Expr,
    /// `if`.
    If,
    /// `fix`.
    Fix,
    /// `$exit`.
    Exit,
}

impl Rule {
    /// The rule's name, as in `--stats` and `--trace`.
    pub fn name(self) -> &'static str {
        match self {
            Rule::Beta => "beta",
            Rule::Expr => "expr",
            Rule::If => "if",
            Rule::Fix => "fix",
            Rule::Exit => "exit",
        }
    }
}

/// A machine the run loop ([`drive`]) steps until it stops.
pub trait Stepper {
    /// The clock is read every this many steps: each step for a machine
    /// whose steps can be slow, rarely for a fast one.
    const CLOCK_EVERY: u64;
    /// Steps executed so far.
    fn steps(&self) -> u64;
    /// Live nodes, for a machine that counts them (`--max-nodes`).
    fn live_nodes(&self) -> Option<usize> {
        None
    }
    /// Whether some body is pending.
    fn pending(&mut self) -> bool;
    /// Executes the first ready body (`None`: none is pending), telling
    /// `on_step` its number, rule and source; `Some(v)` inside is `$exit`.
    fn step_once(&mut self, on_step: &mut dyn FnMut(u64, Rule, Span)) -> Option<Result<Option<Atom>, RuntimeError>>;
    /// Executes at least one and at most `budget` steps at once, none of
    /// them `$exit` or failing, if the machine has a faster way to than
    /// [`Stepper::step_once`] now; returns whether it executed any. At each
    /// multiple of [`Stepper::CLOCK_EVERY`] steps it asks `clock` whether
    /// to stop there (time or interrupt), so the caller reads the clock as
    /// often as when it steps one at a time.
    fn step_many(&mut self, _budget: u64, _on_step: &mut dyn FnMut(u64, Rule, Span), _clock: &dyn Fn() -> bool) -> bool {
        false
    }
    /// Whether the caller asked the run to pause here: it ends as at the
    /// step limit, and may be driven on.
    fn paused(&self) -> bool {
        false
    }
}

/// Runs `m` until no body is pending, `$exit`, a runtime error or a limit
/// (time and interrupt, then memory, then nodes, then steps, checked before
/// each step; time and interrupt every `S::CLOCK_EVERY` steps). A memory
/// budget spent inside a step ([`crate::memory::check`]) ends the run with
/// [`StopReason::Memory`] too; `m` is then not to be used again.
pub fn drive<S: Stepper>(m: &mut S, limits: &Limits, on_step: &mut dyn FnMut(u64, Rule, Span)) -> Outcome {
    match crate::memory::catch(|| drive_within(m, limits, on_step)) {
        Ok(outcome) => outcome,
        Err(spent) => Outcome::Limit(StopReason::Memory { spent, steps: m.steps() }),
    }
}

/// The loop of [`drive`], inside which a spent memory budget may unwind
/// ([`crate::memory::check`]).
fn drive_within<S: Stepper>(m: &mut S, limits: &Limits, on_step: &mut dyn FnMut(u64, Rule, Span)) -> Outcome {
    let start = Instant::now();
    let clock_every = S::CLOCK_EVERY;
    loop {
        let steps = m.steps();
        if steps.is_multiple_of(clock_every) {
            if let Some(limit) = limits.timeout {
                if start.elapsed() >= limit {
                    return Outcome::Limit(StopReason::Time { limit, steps });
                }
            }
            if limits.interrupt.is_some_and(|f| f.load(Ordering::Relaxed)) {
                return Outcome::Limit(StopReason::Interrupted { steps });
            }
        }
        if let Some(spent) = crate::memory::over() {
            return Outcome::Limit(StopReason::Memory { spent, steps });
        }
        if let (Some(limit), Some(live)) = (limits.max_nodes, m.live_nodes()) {
            if live > limit {
                return Outcome::Limit(StopReason::Nodes { limit, steps });
            }
        }
        if steps >= limits.max_steps {
            if m.pending() {
                return Outcome::Limit(StopReason::Steps(steps));
            }
            return Outcome::Residual;
        }
        if m.paused() {
            return Outcome::Limit(StopReason::Steps(steps));
        }
        // Several steps at once, up to the step limit (the node and memory
        // budgets are checked between such stretches, the clock and the
        // memory budget within them).
        let budget = limits.max_steps - steps;
        let clock = || {
            limits.timeout.is_some_and(|l| start.elapsed() >= l)
                || limits.interrupt.is_some_and(|f| f.load(Ordering::Relaxed))
                || crate::memory::over().is_some()
        };
        if m.step_many(budget, on_step, &clock) {
            continue;
        }
        match m.step_once(on_step) {
            None => return Outcome::Residual,
            Some(Ok(Some(v))) => return Outcome::Exit(v),
            Some(Ok(None)) => {}
            Some(Err(e)) => return Outcome::Error(e),
        }
    }
}

/// Steps executed, by language-level rule kind (LANGUAGE.md §5). Any correct
/// machine reports the same counts for the same program.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// β: a lambda applied to its arguments.
    pub beta: u64,
    /// The β of `"e" (x) b`: a lambda applied to one expression.
    pub expr: u64,
    /// `if`.
    pub if_: u64,
    /// `fix`.
    pub fix: u64,
    /// `$exit`.
    pub exit: u64,
}

impl Counts {
    /// All steps.
    pub fn total(&self) -> u64 {
        self.beta + self.expr + self.if_ + self.fix + self.exit
    }

    /// Counts one step of `rule`.
    pub fn count(&mut self, rule: Rule) {
        match rule {
            Rule::Beta => self.beta += 1,
            Rule::Expr => self.expr += 1,
            Rule::If => self.if_ += 1,
            Rule::Fix => self.fix += 1,
            Rule::Exit => self.exit += 1,
        }
    }
}

impl std::ops::AddAssign for Counts {
    /// Adds the steps of another run, kind by kind (a unit of a parallel
    /// round).
    fn add_assign(&mut self, o: Counts) {
        self.beta += o.beta;
        self.expr += o.expr;
        self.if_ += o.if_;
        self.fix += o.fix;
        self.exit += o.exit;
    }
}

impl fmt::Display for Counts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "steps: {} (beta {}, expr {}, if {}, fix {}, exit {})",
            self.total(),
            self.beta,
            self.expr,
            self.if_,
            self.fix,
            self.exit
        )
    }
}

/// Budgets that stop a run.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Most steps to execute.
    pub max_steps: u64,
    /// Most wall time to spend reducing (checked between steps).
    pub timeout: Option<Duration>,
    /// Most live graph nodes (the graph machine only; the reference reducer
    /// has no nodes to count), and most nodes of the result term the graph
    /// machine builds for the report, its shared values written out.
    pub max_nodes: Option<usize>,
    /// A flag that stops the run when set (a Ctrl-C handler sets it; read
    /// when the clock is).
    pub interrupt: Option<&'static AtomicBool>,
    /// The caller prints no result longer than this: the report's text is
    /// built only until it is longer ([`crate::print::Printer::limited`]),
    /// and is then unfit for printing.
    pub max_output: Option<usize>,
    /// Whether the report of a run a limit stopped carries the term as it
    /// stands (its text and stuck warnings). A caller that prints nothing
    /// then (`deepcps run` without `--stop-after`) saves reading back and
    /// printing a term that may be large.
    pub term_at_limit: bool,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_steps: 10_000_000,
            timeout: None,
            max_nodes: None,
            interrupt: None,
            max_output: None,
            term_at_limit: true,
        }
    }
}

/// Which budget ran out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// `max_steps` steps were executed and a body was still pending.
    Steps(u64),
    /// The time budget ran out after this many steps.
    Time {
        /// The budget.
        limit: Duration,
        /// Steps executed by then.
        steps: u64,
    },
    /// The live graph grew past the node budget after this many steps.
    Nodes {
        /// The budget.
        limit: usize,
        /// Steps executed by then.
        steps: u64,
    },
    /// The user interrupted the run (Ctrl-C) after this many steps.
    Interrupted {
        /// Steps executed by then.
        steps: u64,
    },
    /// The process's memory grew past its budget ([`crate::memory`]) after
    /// this many steps.
    Memory {
        /// What ran out, and how far.
        spent: crate::memory::Exhausted,
        /// Steps executed by then.
        steps: u64,
    },
}

impl fmt::Display for StopReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StopReason::Steps(n) => write!(f, "step limit reached: {n} steps executed and bodies are still pending"),
            StopReason::Time { limit, steps } => {
                write!(f, "time limit reached: {:.3} s spent, {steps} steps executed", limit.as_secs_f64())
            }
            StopReason::Nodes { limit, steps } => {
                write!(f, "node limit reached: more than {limit} live nodes after {steps} steps")
            }
            StopReason::Interrupted { steps } => write!(f, "interrupted after {steps} steps"),
            StopReason::Memory { spent, steps } => write!(f, "{spent}, after {steps} steps"),
        }
    }
}

/// How a run ended.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// No body is pending; the result is the residual program.
    Residual,
    /// `$exit` fired with this value.
    Exit(Atom),
    /// A runtime error stopped the machine.
    Error(RuntimeError),
    /// A budget ran out.
    Limit(StopReason),
}

/// A term the machine declined to build: written out in full, with every
/// shared value copied at each place that holds it, it would have `size`
/// nodes, more than the `limit` the caller allows ([`Limits::max_nodes`]).
/// A graph of a few thousand nodes can stand for a term of 2^30.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooLarge {
    /// What was not built (`the residual program`, `the exit value`, ...).
    pub what: &'static str,
    /// Its nodes written out (saturating at `u64::MAX`).
    pub size: u64,
    /// The most nodes allowed.
    pub limit: u64,
}

impl TooLarge {
    /// `what`, of `size` nodes written out, when that is more than `limit`.
    pub(crate) fn over(what: &'static str, size: u64, limit: u64) -> Option<TooLarge> {
        (size > limit).then_some(TooLarge { what, size, limit })
    }

    /// What the report of a run that ended with `outcome` (not `$exit`)
    /// writes out of the term.
    pub(crate) fn term_of(outcome: &Outcome) -> &'static str {
        match outcome {
            Outcome::Residual => "the residual program",
            _ => "the term as it stands",
        }
    }
}

impl fmt::Display for TooLarge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let size = if self.size == u64::MAX {
            "more than 1.8e19".to_string()
        } else {
            self.size.to_string()
        };
        write!(
            f,
            "{} is too large to build: written out, with every shared value copied where it is used, it has {size} nodes, more than the node limit of {}",
            self.what, self.limit
        )
    }
}

/// The result of a run: outcome, counts, the printed result and warnings.
#[derive(Clone, Debug)]
pub struct Report {
    /// How it ended.
    pub outcome: Outcome,
    /// Steps by kind.
    pub counts: Counts,
    /// The canonical text of the result (the exit value or the residual), or
    /// of the term as it stood when an error or a limit stopped the run;
    /// empty when that term was [`Report::too_large`].
    pub text: String,
    /// Stuck bodies left in the result.
    pub warnings: Vec<Diagnostic>,
    /// The result was not built, text nor warnings: it is larger than
    /// [`Limits::max_nodes`] allows.
    pub too_large: Option<TooLarge>,
}

/// What a machine prints of its result for a [`Report`]: the text, the
/// stuck warnings, or what was too large to build.
pub(crate) type Printed = (String, Vec<Diagnostic>, Option<TooLarge>);

impl Report {
    /// The report of a run that ended with `outcome` after `counts` steps;
    /// `print` builds its text, under the memory budget. Nothing is printed
    /// of the state a spent memory budget leaves (it may be cut short
    /// inside a step, and printing it needs memory), nor of a term a limit
    /// stopped unless [`Limits::term_at_limit`] asks for it.
    pub(crate) fn of(outcome: Outcome, counts: Counts, limits: &Limits, print: impl FnOnce(&Outcome) -> Printed) -> Report {
        let empty = |outcome| Report {
            outcome,
            counts,
            text: String::new(),
            warnings: Vec::new(),
            too_large: None,
        };
        match outcome {
            Outcome::Limit(StopReason::Memory { .. }) => return empty(outcome),
            Outcome::Limit(_) if !limits.term_at_limit => return empty(outcome),
            _ => {}
        }
        match crate::memory::catch(|| print(&outcome)) {
            Ok((text, warnings, too_large)) => Report {
                outcome,
                counts,
                text,
                warnings,
                too_large,
            },
            Err(spent) => empty(Outcome::Limit(StopReason::Memory {
                spent,
                steps: counts.total(),
            })),
        }
    }
}
