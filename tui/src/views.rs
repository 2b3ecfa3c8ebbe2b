//! The graph views of a program's state: `deepcps dot` (the lambda graph,
//! or the staging graph with `--staging`, as Graphviz DOT) and `deepcps
//! chains` (the staging chains as text). See `deepcps_machine::view`.

use std::io::Write;
use std::path::Path;

use deepcps_machine::graph::Machine;
use deepcps_machine::span::SourceMap;
use deepcps_machine::syntax::{load_program, RealFs};
use deepcps_machine::term::{Body, Program, Vars};
use deepcps_machine::view::{chains_text, LambdaGraph, StagingGraph};

use crate::cli::{EXIT_OK, EXIT_STATIC};

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
    }
}
