//! The graph views of a program's state: `deepcps dot` (the lambda graph,
//! or the staging graph with `--staging`, as Graphviz DOT), `deepcps
//! chains` (the staging chains as text) and `deepcps dump` (the canonical
//! graph dump, one node per line). See `deepcps_machine::view`.
//! [`state_after`] is the one place that produces the state after `N`
//! steps.

use std::path::Path;

use deepcps_machine::graph::Machine;
use deepcps_machine::run::{Limits, Outcome};
use deepcps_machine::span::{FileId, SourceMap};
use deepcps_machine::syntax::runtime_diagnostic;
use deepcps_machine::term::{Atom, Body, Program, Vars};
use deepcps_machine::view::lambda_graph::NodeKind;
use deepcps_machine::view::{chains_text, graph_dump, value_dump, LambdaGraph, StagingGraph, Status};
use petgraph::graph::NodeIndex;

use crate::commands::{load_main_from, Ctx, RAISE_MAX_NODES};
use crate::exit::{EXIT_LIMIT, EXIT_OK, EXIT_RUNTIME, EXIT_STATIC};

/// A state as the views show it.
pub enum State {
    /// The term, while bodies run (or the residual program).
    Term(Body),
    /// The exit value, once `$exit` has executed.
    Exit(Atom),
}

/// The program's state after `n` steps of the graph machine, exported as a
/// term (`Machine::to_program`), or the exit value if `$exit` executed, with
/// the variables it is over.
///
/// The note says why fewer than `n` steps were taken, when they were: no
/// body pending any more, `$exit`, or a runtime error (the state is then
/// the one the last step left: the exit value after `$exit`, the term in
/// which the failing body stands after an error).
///
/// An error when the live graph grows past `max_nodes` on the way, or the
/// state, written out with its shared values copied where they are used,
/// has more than `max_nodes` nodes: building it could exhaust the memory.
pub fn state_after(program: Program, n: u64, max_nodes: u64) -> Result<(State, Vars, Option<String>), String> {
    let mut m = Machine::new(program);
    m.limit_terms(&Limits {
        max_nodes: usize::try_from(max_nodes).ok(),
        ..Limits::default()
    });
    let mut note = None;
    for _ in 0..n {
        let done = m.counts.total();
        if m.live_nodes() as u64 > max_nodes {
            return Err(format!(
                "node limit reached: more than {max_nodes} live nodes after {done} steps{RAISE_MAX_NODES}"
            ));
        }
        match m.step() {
            Some(Ok(None)) => {}
            None => {
                note = Some(format!(
                    "the run ended at step {done}: no body is pending; showing the term after step {done}"
                ));
                break;
            }
            Some(Ok(Some(v))) => {
                if let Some(t) = m.exit_too_large() {
                    return Err(format!("{t}{RAISE_MAX_NODES}"));
                }
                if done + 1 < n {
                    note = Some(format!(
                        "the run ended at step {}: `$exit` executed; showing the exit value",
                        done + 1
                    ));
                }
                let vars = m.exit_vars().cloned().unwrap_or_else(|| m.source_vars().clone());
                return Ok((State::Exit(v), vars, note));
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
    let Program { body, vars } = m.to_program_within(max_nodes).map_err(|t| format!("{t}{RAISE_MAX_NODES}"))?;
    Ok((State::Term(body), vars, note))
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

/// Loads `file` (`-`: the context's input), runs `step` steps and prints
/// `view` to the context's output; notes and diagnostics go to its error
/// stream. Returns the exit code.
pub fn show(file: &Path, step: u64, max_nodes: u64, view: View, ctx: Ctx<'_>) -> u8 {
    show_with(file, step, max_nodes, view, None, ctx)
}

/// The body `deepcps dot --focus` draws around.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Focus {
    /// The next body to execute (the first ready body in reading order).
    Ready,
    /// The first body, in reading order, that starts at this line and
    /// column (from 1) of the program's own file, or of the file whose
    /// name ends in `file` (an included one).
    Place {
        /// The end of the file's name, when not the program's own file.
        file: Option<String>,
        /// Line, from 1.
        line: usize,
        /// Column in characters, from 1.
        col: usize,
    },
}

/// The radius of `deepcps dot --focus` when `--radius` is not given.
pub const DEFAULT_RADIUS: usize = 3;

/// What part of the lambda graph `deepcps dot` draws: the nodes within
/// `radius` edges of `focus`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part {
    /// The body in the middle.
    pub focus: Focus,
    /// How many edges (tree or binding, either way) from it.
    pub radius: usize,
}

/// Parses `--focus`: `ready`, `LINE:COL` or `FILE:LINE:COL`.
pub fn parse_focus(s: &str) -> Result<Focus, String> {
    if s == "ready" {
        return Ok(Focus::Ready);
    }
    let mut parts = s.rsplitn(3, ':');
    let col = parts.next().and_then(|c| c.parse::<usize>().ok());
    let line = parts.next().and_then(|l| l.parse::<usize>().ok());
    let file = parts.next().filter(|f| !f.is_empty()).map(str::to_string);
    match (line, col) {
        (Some(line), Some(col)) if line > 0 && col > 0 => Ok(Focus::Place { file, line, col }),
        _ => Err(format!(
            "`{s}` is neither `ready` nor a place LINE:COL or FILE:LINE:COL (from 1), such as 3:5"
        )),
    }
}

/// Nodes of a lambda graph past which `deepcps dot` without `--focus`
/// suggests drawing a part: Graphviz takes minutes on larger graphs.
const LARGE_DOT: usize = 20_000;

/// `deepcps dot` of the lambda graph: the whole graph, or with `part` the
/// nodes around a body. Returns the exit code: 2 when the focus names no
/// body of the state.
pub fn show_lambda_dot(file: &Path, step: u64, max_nodes: u64, part: Option<Part>, ctx: Ctx<'_>) -> u8 {
    show_with(file, step, max_nodes, View::LambdaDot, part, ctx)
}

/// The DOT text of the nodes of `lg` around `part`'s focus, or why there is
/// no such body.
fn dot_part(lg: &LambdaGraph, sources: &SourceMap, part: Part) -> Result<String, String> {
    let bodies = lg
        .graph
        .node_indices()
        .filter(|&n| matches!(lg.graph[n].kind, NodeKind::Body { .. }));
    let focus = match &part.focus {
        Focus::Ready => bodies
            .clone()
            .find(|&n| matches!(&lg.graph[n].kind, NodeKind::Body { status: Status::Ready, .. }))
            .ok_or_else(|| "no body of this state is ready: give a body with --focus LINE:COL".to_string())?,
        &Focus::Place { ref file, line, col } => {
            let in_file = |f: FileId| match file {
                None => f == FileId(0),
                Some(name) => sources.get(f).name.ends_with(name.as_str()),
            };
            let starts = |n: &NodeIndex| {
                lg.graph[*n]
                    .span
                    .is_some_and(|sp| in_file(sp.file) && sources.line_col(sp.file, sp.start) == (line, col))
            };
            match bodies.clone().find(starts) {
                Some(n) => n,
                None => {
                    let mut places: Vec<(usize, usize)> = bodies
                        .filter_map(|n| lg.graph[n].span.filter(|sp| in_file(sp.file)))
                        .map(|sp| sources.line_col(sp.file, sp.start))
                        .collect();
                    places.sort_unstable();
                    places.dedup();
                    let near: Vec<String> = places.iter().take(12).map(|(l, c)| format!("{l}:{c}")).collect();
                    let more = if places.len() > near.len() { ", …" } else { "" };
                    let whose = file.as_deref().map_or(String::new(), |f| format!("{f}:"));
                    let listed = if near.is_empty() {
                        "no body of the state starts in that file".to_string()
                    } else {
                        format!("bodies start at {}{more}", near.join(", "))
                    };
                    return Err(format!("no body of this state starts at {whose}{line}:{col}; {listed}"));
                }
            }
        }
    };
    lg.to_dot_around(sources, focus, part.radius)
        .ok_or_else(|| "the focus is no node of the graph".to_string())
}

fn show_with(file: &Path, step: u64, max_nodes: u64, view: View, part: Option<Part>, ctx: Ctx<'_>) -> u8 {
    let Ctx { out, err, color, input } = ctx;
    let mut sources = SourceMap::new();
    let program = match load_main_from(file, input, &mut sources) {
        Ok(p) => p,
        Err(ds) => {
            for d in &ds {
                let _ = write!(err, "{}", d.render(&sources, color));
            }
            return EXIT_STATIC;
        }
    };
    let (state, vars, note) = match state_after(program, step, max_nodes) {
        Ok(s) => s,
        Err(e) => {
            let _ = writeln!(err, "deepcps: {e}");
            return EXIT_LIMIT;
        }
    };
    if let Some(note) = note {
        let _ = writeln!(err, "deepcps: {note}");
    }
    let text = match (&state, view) {
        (State::Term(body), View::LambdaDot) => {
            let lg = LambdaGraph::build(body, &vars);
            match part {
                Some(part) => match dot_part(&lg, &sources, part) {
                    Ok(text) => text,
                    Err(e) => {
                        let _ = writeln!(err, "deepcps: {e}");
                        return EXIT_STATIC;
                    }
                },
                None => {
                    let nodes = lg.graph.node_count();
                    if nodes > LARGE_DOT {
                        let _ = writeln!(
                            err,
                            "deepcps: the graph has {nodes} nodes, more than Graphviz lays out in reasonable \
                             time; draw a part with --focus ready (or LINE:COL) and --radius N"
                        );
                    }
                    lg.to_dot(&sources)
                }
            }
        }
        _ => {
            if part.is_some() {
                let _ = writeln!(err, "deepcps: the state is an exit value, drawn whole (--focus picks among bodies)");
            }
            render_state(&state, &vars, &sources, view)
        }
    };
    let _ = write!(out, "{text}");
    EXIT_OK
}

/// The text of `view` for a state over `vars`.
pub fn render_state(state: &State, vars: &Vars, sources: &SourceMap, view: View) -> String {
    match state {
        State::Term(body) => render(body, vars, sources, view),
        State::Exit(v) => render_graph(&LambdaGraph::build_value(v, vars), sources, view, "exit value"),
    }
}

/// The text of `view` for the term `body` over `vars`.
pub fn render(body: &Body, vars: &Vars, sources: &SourceMap, view: View) -> String {
    render_graph(&LambdaGraph::build(body, vars), sources, view, "term")
}

/// The text of `view` for the lambda graph `lg` of a `what` (the dump's
/// title: `term` or `exit value`).
fn render_graph(lg: &LambdaGraph, sources: &SourceMap, view: View, what: &str) -> String {
    match view {
        View::LambdaDot => lg.to_dot(sources),
        View::StagingDot => StagingGraph::from_lambda_graph(lg).to_dot(sources),
        View::Chains => chains_text(&StagingGraph::from_lambda_graph(lg), sources),
        View::Dump => deepcps_machine::view::dump::dump_lambda_graph(lg, what),
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
pub fn dump_reduced(file: &Path, limits: &Limits, ctx: Ctx<'_>) -> u8 {
    let Ctx { out, err, color, input } = ctx;
    let mut sources = SourceMap::new();
    let program = match load_main_from(file, input, &mut sources) {
        Ok(p) => p,
        Err(ds) => {
            for d in &ds {
                let _ = write!(err, "{}", d.render(&sources, color));
            }
            return EXIT_STATIC;
        }
    };
    let mut m = Machine::new(program);
    m.limit_terms(limits);
    let outcome = m.run(limits);
    let too_large = match outcome {
        Outcome::Exit(_) => m.exit_too_large(),
        _ => m.to_program_within(limits.max_nodes.map_or(u64::MAX, |n| n as u64)).err(),
    };
    if let Some(t) = too_large {
        let _ = writeln!(err, "deepcps: {t}; no dump{RAISE_MAX_NODES}");
        return EXIT_LIMIT;
    }
    let _ = write!(out, "{}", final_dump(&m, &outcome));
    match outcome {
        Outcome::Residual | Outcome::Exit(_) => EXIT_OK,
        Outcome::Error(e) => {
            let _ = write!(err, "{}", runtime_diagnostic(&e, &sources).render(&sources, color));
            let _ = writeln!(err, "deepcps: the dump shows the term in which the failing body stands");
            EXIT_RUNTIME
        }
        Outcome::Limit(reason) => {
            let _ = writeln!(err, "deepcps: {reason}; the dump shows the term as it stood");
            EXIT_LIMIT
        }
    }
}
