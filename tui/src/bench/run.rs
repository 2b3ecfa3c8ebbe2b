//! One program's run, measured: load, reduce as `deepcps run` does (the
//! graph machine on the job's threads, handing over to the engine where
//! fast runs do not pay), print, and judge against the program's
//! expectation, giving a plain [`Row`]. Everything happens on the calling
//! thread (and the threads of the job's [`Parallel`]); only the row leaves
//! it. Limits and panics are rows, not crashes.

use std::path::Path;
use std::time::{Duration, Instant};

use deepcps_machine::expect::Expected;
use deepcps_machine::graph::par::Parallel;
use deepcps_machine::handover::{self, Policy};
use deepcps_machine::run::{Counts, Limits, Outcome, StopReason};
use deepcps_machine::span::SourceMap;
use deepcps_machine::syntax::load::add_source;
use deepcps_machine::syntax::{load_from, RealFs};
use serde::{Deserialize, Serialize};

use super::baseline::Ratios;
use super::compiled::CompiledRun;
use crate::judge::{judge_run, judge_static};

/// Whether a program met its expectation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RowStatus {
    /// It did.
    Pass,
    /// It did not (the row's `reason` says why).
    Fail,
}

/// One program's measurements: a row of the table, the JSON and the CSV.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Row {
    /// The program's path (and `VAR=SIZE` for a run of a scaling family).
    pub program: String,
    /// How the run ended: `exit`, `residual`, `error KIND`, `static-error`,
    /// `limit steps`, `limit time`, `limit nodes` or `panic`.
    pub result: String,
    /// All steps.
    pub steps: u64,
    /// β steps.
    pub beta: u64,
    /// Expression steps.
    pub expr: u64,
    /// `if` steps.
    #[serde(rename = "if")]
    pub if_: u64,
    /// `fix` steps.
    pub fix: u64,
    /// `$exit` steps.
    pub exit: u64,
    /// Wall time of the load, the reduction and the printing, in seconds.
    pub wall_s: f64,
    /// Steps per second of wall time.
    pub steps_per_s: f64,
    /// The most graph nodes live at once.
    pub peak_live_nodes: u64,
    /// Bytes of the printed result (exit value or residual program).
    pub result_bytes: u64,
    /// The reduction threads of the run (`--threads` or the program's
    /// `// threads:`; 1 is the sequential machine). Absent from the JSON
    /// of older runs: 0.
    #[serde(default)]
    pub threads: usize,
    /// The expectation (`exit 12`, `residual`, `error arity`, ...; `none`).
    pub expectation: String,
    /// `pass` or `fail`.
    pub status: RowStatus,
    /// Why it failed (empty when it passed).
    #[serde(default)]
    pub reason: String,
    /// Ratios to a baseline run, with `--baseline`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<Ratios>,
    /// The compiled run of the program's run-time part, with `--compiled`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compiled: Option<CompiledRun>,
}

/// One program to run: everything a task needs, all `Send`.
pub struct Job<'a> {
    /// The row's name.
    pub name: &'a str,
    /// The file (its includes are read relative to it).
    pub path: &'a Path,
    /// Its source, possibly rewritten (a scaled size).
    pub bytes: &'a [u8],
    /// The expected outcome.
    pub expected: Option<&'a Expected>,
    /// The expected printed result (`NAME.out`), if any.
    pub snapshot: Option<&'a str>,
    /// The budgets.
    pub limits: Limits,
    /// The reduction threads to run it on (`--threads` or `// threads:`).
    pub par: Parallel,
    /// Whether to compile it too (`--compiled`).
    pub compiled: bool,
}

/// Runs `job` and measures it; a panic in the machine is a failing row.
pub fn run(job: &Job<'_>) -> Row {
    let start = Instant::now();
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| measure(job, start)));
    caught.unwrap_or_else(|payload| {
        // A memory budget spent outside the run loop (loading, printing)
        // is a limit like the one inside it.
        if let Some(e) = payload.downcast_ref::<deepcps_machine::memory::Exhausted>() {
            let mut row = blank(job, "limit memory", start.elapsed());
            row.status = RowStatus::Fail;
            row.reason = format!("{e}; {}", e.remedy());
            return row;
        }
        let mut row = blank(job, "panic", start.elapsed());
        row.status = RowStatus::Fail;
        row.reason = "the machine panicked (a bug; please report it with the program)".into();
        row
    })
}

/// A row with no counts yet.
fn blank(job: &Job<'_>, result: &str, wall: Duration) -> Row {
    Row {
        program: job.name.to_string(),
        result: result.to_string(),
        steps: 0,
        beta: 0,
        expr: 0,
        if_: 0,
        fix: 0,
        exit: 0,
        wall_s: wall.as_secs_f64(),
        steps_per_s: 0.0,
        peak_live_nodes: 0,
        result_bytes: 0,
        threads: job.par.threads(),
        expectation: job.expected.map_or_else(|| "none".to_string(), |e| e.to_string()),
        status: RowStatus::Pass,
        reason: String::new(),
        baseline: None,
        compiled: None,
    }
}

/// Marks `row` failed, with the reason, when `judged` says the run did not
/// meet its expectation.
fn judge(row: &mut Row, judged: Result<(), String>) {
    if let Err(why) = judged {
        row.status = RowStatus::Fail;
        row.reason = why;
    }
}

fn measure(job: &Job<'_>, start: Instant) -> Row {
    let mut sources = SourceMap::new();
    let loaded = match crate::lang::language_of(job.path) {
        // An input of a language: the program of its action calls.
        Some(dir) => match crate::lang::build_file(&dir, job.path, job.name) {
            Ok(l) => {
                sources = l.sources;
                Ok(l.program)
            }
            Err((s, ds)) => {
                sources = s;
                Err(ds)
            }
        },
        None => add_source(&mut sources, job.name, Some(job.path.to_path_buf()), job.bytes.to_vec())
            .map_err(|d| vec![d])
            .and_then(|id| load_from(&RealFs, id, &mut sources, false)),
    };
    let program = match loaded {
        Ok(p) => p,
        Err(diags) => {
            let mut row = blank(job, "static-error", start.elapsed());
            judge(&mut row, judge_static(job.expected, &diags));
            return row;
        }
    };
    let copy = job.compiled.then(|| program.clone());
    // As `deepcps run` reduces it: handed over to the engine where fast
    // runs do not pay.
    let (report, ran) = handover::report(program, &job.limits, &job.par, true, Policy::default());
    let wall = start.elapsed();
    let peak = ran.peak_live_nodes;
    let result = match &report.outcome {
        Outcome::Exit(_) => "exit".to_string(),
        Outcome::Residual => "residual".to_string(),
        Outcome::Error(e) => format!("error {}", e.kind.name()),
        Outcome::Limit(r) => match r {
            StopReason::Steps(_) => "limit steps",
            StopReason::Time { .. } => "limit time",
            StopReason::Nodes { .. } => "limit nodes",
            StopReason::Interrupted { .. } => "interrupted",
            StopReason::Memory { .. } => "limit memory",
        }
        .to_string(),
    };
    let mut row = blank(job, &result, wall);
    fill_counts(&mut row, &report.counts);
    row.peak_live_nodes = peak as u64;
    row.steps_per_s = report.counts.total() as f64 / wall.as_secs_f64().max(1e-9);
    if matches!(report.outcome, Outcome::Exit(_) | Outcome::Residual) {
        row.result_bytes = report.text.len() as u64;
    }
    judge(&mut row, judge_run(job.expected, &report, job.snapshot));
    if let Some(program) = copy {
        row.compiled = Some(super::compiled::measure(job, program, &sources, &report, wall.as_secs_f64()));
    }
    row
}

fn fill_counts(row: &mut Row, c: &Counts) {
    row.steps = c.total();
    row.beta = c.beta;
    row.expr = c.expr;
    row.if_ = c.if_;
    row.fix = c.fix;
    row.exit = c.exit;
}
