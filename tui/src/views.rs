//! The graph views of a program's state: `deepcps dot` (the lambda graph,
//! or the staging graph with `--staging`, as Graphviz DOT), `deepcps
//! chains` (the staging chains as text) and `deepcps dump` (the canonical
//! graph dump, one node per line). See `deepcps_machine::view`.

use std::io::Write;
use std::path::Path;

use deepcps_machine::diag::Diagnostic;
use deepcps_machine::graph::Machine;
use deepcps_machine::run::{Limits, Outcome};
use deepcps_machine::span::SourceMap;
use deepcps_machine::syntax::{load_program, RealFs};
use deepcps_machine::term::{Body, Program, Vars};
use deepcps_machine::view::{chains_text, graph_dump, value_dump, LambdaGraph, StagingGraph};

use crate::cli::{EXIT_LIMIT, EXIT_OK, EXIT_RUNTIME, EXIT_STATIC};

/// The program's state after `n` steps of the graph machine, exported as a
/// term (`Machine::to_program`).
///
/// The note says why fewer than `n` steps were taken, when they were: no
/// body pending any more, `$exit`, or a runtime error (the term is then the
/// one the last step left, or, for `$exit` and errors, the one in which the
/// final body stands).
pub fn state_after(program: Program, n: u64) -> (Body, Vars, Option<String>) {
    let mut reducer = Machine::new(program);
    let mut note = None;
    for _ in 0..n {
        let done = reducer.counts.total();
        match reducer.step() {
            Some(Ok(None)) => {}
            None => {
                note = Some(format!(
                    "the run ended at step {done}: no body is pending; showing the term after step {done}"
                ));
                break;
            }
            Some(Ok(Some(_))) => {
                note = Some(format!(
                    "the run ended at step {}: `$exit` executed; showing the term as it stood then",
                    done + 1
                ));
                break;
            }
            Some(Err(e)) => {
                note = Some(format!(
                    "the run ended at step {done}: step {} fails ({}); showing the term after step {done}",
                    done + 1,
                    e.message
                ));
                break;
            }
        }
    }
    let Program { body, vars } = reducer.to_program();
    (body, vars, note)
}

/// What to print.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    /// The lambda graph as DOT.
    LambdaDot,
    /// The staging graph as DOT.
    StagingDot,
    /// The staging chains as text.
    Chains,
    /// The canonical graph dump.
    Dump,
}

/// Loads `file`, runs `step` steps and prints `view` to `out`; notes and
/// diagnostics go to `err`. Returns the exit code.
pub fn show(file: &Path, step: u64, view: View, out: &mut dyn Write, err: &mut dyn Write, color: bool) -> u8 {
    let mut sources = SourceMap::new();
    let program = match load_program(&RealFs, file, &mut sources) {
        Ok(p) => p,
        Err(ds) => {
            for d in &ds {
                let _ = write!(err, "{}", d.render(&sources, color));
            }
            return EXIT_STATIC;
        }
    };
    let (body, vars, note) = state_after(program, step);
    if let Some(note) = note {
        let _ = writeln!(err, "deepcps: {note}");
    }
    let text = render(&body, &vars, &sources, view);
    let _ = write!(out, "{text}");
    EXIT_OK
}

/// The text of `view` for the term `body` over `vars`.
pub fn render(body: &Body, vars: &Vars, sources: &SourceMap, view: View) -> String {
    let lg = LambdaGraph::build(body, vars);
    match view {
        View::LambdaDot => lg.to_dot(sources),
        View::StagingDot => StagingGraph::from_lambda_graph(&lg).to_dot(sources),
        View::Chains => chains_text(&StagingGraph::from_lambda_graph(&lg), sources),
        View::Dump => deepcps_machine::view::dump::dump_lambda_graph(&lg, "term"),
    }
}

/// The canonical graph dump of the state a run of `m` ended in with
/// `outcome`: the exit value after `$exit` (over the exit value's
/// variables), the term otherwise (the residual, or the term as it stood
/// when an error or a limit stopped the run).
pub fn final_dump(m: &Machine, outcome: &Outcome) -> String {
    match (outcome, m.exit_vars()) {
        (Outcome::Exit(v), Some(vars)) => value_dump(v, vars),
        (Outcome::Exit(v), None) => value_dump(v, m.source_vars()),
        _ => {
            let Program { body, vars } = m.to_program();
            graph_dump(&body, &vars)
        }
    }
}

/// `deepcps dump FILE` without `--step`: runs `file` on the graph machine
/// as `deepcps run` does (within `limits`) and prints the dump of the
/// reduced state. The exit code is `run`'s: 0 for a result, 1 after a
/// runtime error (reported to `err`), 3 at a limit; the dump is printed in
/// every case.
pub fn dump_reduced(file: &Path, limits: &Limits, out: &mut dyn Write, err: &mut dyn Write, color: bool) -> u8 {
    let mut sources = SourceMap::new();
    let program = match load_program(&RealFs, file, &mut sources) {
        Ok(p) => p,
        Err(ds) => {
            for d in &ds {
                let _ = write!(err, "{}", d.render(&sources, color));
            }
            return EXIT_STATIC;
        }
    };
    let mut m = Machine::new(program);
    let outcome = m.run(limits);
    let _ = write!(out, "{}", final_dump(&m, &outcome));
    match outcome {
        Outcome::Residual | Outcome::Exit(_) => EXIT_OK,
        Outcome::Error(e) => {
            let _ = write!(err, "{}", Diagnostic::from(&e).render(&sources, color));
            let _ = writeln!(err, "deepcps: the dump shows the term in which the failing body stands");
            EXIT_RUNTIME
        }
        Outcome::Limit(reason) => {
            let _ = writeln!(err, "deepcps: {reason}; the dump shows the term as it stood");
            EXIT_LIMIT
        }
    }
}
