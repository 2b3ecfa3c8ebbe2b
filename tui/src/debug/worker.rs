//! The debugger's engine: the [`Session`] and everything computed from it
//! for a screen ([`ViewFrame`]), behind requests ([`Request`]).
//!
//! The session holds the graph machine; the worker *loads the program
//! itself*, on the thread that runs it, and only commands, the reduction
//! threads ([`Parallel`]) and frames (plain data) cross threads.
//! [`Engine::spawn`] runs it on a background thread (the `c` key keeps the
//! UI drawing while it runs, in slices of [`SLICE`]); [`Engine::inline`]
//! runs it on the caller's thread, synchronously, for tests.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender, TryRecvError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use deepcps_machine::diag::Diagnostic;
use deepcps_machine::graph::node::NodeId;
use deepcps_machine::graph::par::Parallel;
use deepcps_machine::graph::window::{BodyState, WindowSize};
use deepcps_machine::graph::{Anchor, Machine, NextKind};
use deepcps_machine::lang::{Ending, Origins};
use deepcps_machine::run::Counts;
use deepcps_machine::session::{Breakpoint, End, Session, Stop};
use deepcps_machine::span::{FileId, SourceMap, Span};
use deepcps_machine::syntax::{load_program, RealFs};
use deepcps_machine::term::{Body, VarId, Vars};
use deepcps_machine::view::lambda_graph::NodeKind;
use deepcps_machine::view::program::ProgramView;
use deepcps_machine::view::{LambdaGraph, Places, StagingGraph, Status};

use crate::lang::LangInput;

use super::chains::{chain_rows, ChainRow};
use super::graph::{neighbourhood_below, Neighbourhood};

/// How long a background run goes between two frames: 25 frames a second.
pub const SLICE: Duration = Duration::from_millis(40);

/// What the UI asks of the engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    /// Execute up to `n` steps, stopping at breakpoints.
    Step(u64),
    /// Go back `n` steps.
    Back(u64),
    /// Go to the state after this many steps.
    Goto(u64),
    /// Run until a breakpoint or the end (in the background).
    Continue,
    /// Run to the end, breakpoints ignored.
    RunToEnd,
    /// Stop a background run.
    Pause,
    /// Reduce the subtree of this body (index in the program view's
    /// bodies; `None`: the ready body's).
    Next(Option<usize>),
    /// Add the breakpoint the user typed (`pt`, `12`, `file.dcps:12`,
    /// `step 100`, `exit`, `error`, `stuck`).
    Break(String),
    /// Add a breakpoint on a staging variable firing.
    BreakOn(String),
    /// Turn breakpoint `i` on or off.
    Toggle(usize),
    /// Remove breakpoint `i`.
    Remove(usize),
    /// Centre the graph pane on this body (`None`: follow the ready body).
    Focus(Option<usize>),
    /// The graph pane's radius.
    Radius(usize),
    /// End the worker.
    Quit,
}

/// Everything a screen shows, as plain data.
#[derive(Clone, Debug)]
pub struct ViewFrame {
    /// The program's file as given.
    pub file: String,
    /// Steps executed.
    pub steps: u64,
    /// By rule.
    pub counts: Counts,
    /// Whether a background run is going on.
    pub running: bool,
    /// How the run ended, if it has.
    pub end: Option<String>,
    /// What the last command did or why it stopped (a breakpoint hit, an
    /// error in a typed breakpoint).
    pub message: Option<String>,
    /// The next step: rule and source place.
    pub next: Option<String>,
    /// Live nodes of the graph machine.
    pub live_nodes: usize,
    /// Resident memory of the process, if the system tells.
    pub rss_bytes: Option<u64>,
    /// Reduction threads of runs without breakpoints (1: the sequential
    /// machine).
    pub threads: usize,
    /// The views of the state (absent in the frames of a background run,
    /// which keep the last ones: building them costs the term's size).
    pub view: Option<Arc<ViewData>>,
}

/// The views of one state.
#[derive(Debug)]
pub struct ViewData {
    /// The step they show.
    pub step: u64,
    /// Pane title: "term", "exit value", or what a window of a large
    /// term shows.
    pub title: String,
    /// The printed term with its bodies and variables.
    pub program: ProgramView,
    /// Bodies by status: ready, pending, stuck, error, inactive.
    pub statuses: [usize; 5],
    /// The body the graph pane is centred on (index into program bodies).
    pub focus: Option<usize>,
    /// Whether a window of a large term was centred anew on `focus` (an
    /// elided part opened): the cursor goes there.
    pub recentred: bool,
    /// The lambda graph around it.
    pub graph: Option<Neighbourhood>,
    /// The staging chains.
    pub chains: Vec<ChainRow>,
    /// The breakpoints: description, enabled, hits.
    pub breakpoints: Vec<(String, bool, u64)>,
}

/// The engine proper: a session over one program and the view settings.
pub struct Worker {
    session: Session,
    sources: SourceMap,
    file: String,
    main_file: FileId,
    focus: Option<usize>,
    radius: usize,
    running: Option<Run>,
    message: Option<String>,
    /// The most nodes of a state the views build (`--max-nodes`).
    max_nodes: u64,
    /// The source names of the program's staging variables (staging
    /// parameters and the variables of staging expressions): what a
    /// breakpoint on a variable may name.
    staging_names: std::collections::BTreeSet<String>,
    /// The body the graph pane of a windowed view is centred on
    /// (`Request::Focus` on one).
    focus_node: Option<NodeId>,
    /// The body a window of a large term is centred on: the ready body
    /// unless the user opened an elided part (`Request::Focus` on a `…`).
    centre: Option<NodeId>,
    /// Whether the next windowed view is centred anew, so the cursor goes
    /// to its focus.
    recentred: bool,
    /// The machine's bodies of the last windowed view, by view index
    /// (empty after a whole view), and the parts it elided.
    window_bodies: Vec<NodeId>,
    window_elided: Vec<NodeId>,
    /// For an input of a language: the way back from the program of its
    /// action calls to the input.
    origins: Option<Origins>,
}

/// The source names of the staging variables of `p`: the variable nodes of
/// its staging graph.
fn staging_names(p: &deepcps_machine::term::Program) -> std::collections::BTreeSet<String> {
    let lg = LambdaGraph::build(&p.body, &p.vars);
    let sg = StagingGraph::from_lambda_graph(&lg);
    sg.graph
        .node_weights()
        .filter_map(|n| match n {
            deepcps_machine::view::staging_graph::SNode::Var { var, .. } => p.vars.name(*var).map(str::to_string),
            _ => None,
        })
        .collect()
}

/// A background run in progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Run {
    /// Until a breakpoint or the end.
    Continue,
    /// To the end, breakpoints ignored.
    ToEnd,
}

impl Worker {
    /// Loads `file`, to be reduced on the threads of `par`; the
    /// diagnostics, rendered, if it does not load.
    pub fn load(file: &Path, par: Parallel, color: bool, max_nodes: u64) -> Result<Worker, String> {
        let mut sources = SourceMap::new();
        let loaded = load_program(&RealFs, file, &mut sources);
        Worker::loaded(loaded, sources, file.display().to_string(), par, color, max_nodes)
    }

    /// Loads the input `l.input` of the language in `l.dir`: the session
    /// runs the program of its action calls, and the status line names the
    /// action being run and the input it was called for.
    pub fn load_lang(l: &LangInput, par: Parallel, color: bool, max_nodes: u64) -> Result<Worker, String> {
        let loaded = crate::lang::load(l, &mut std::io::empty(), Ending::Residual, color)?;
        let file = l.input.display().to_string();
        let mut w = Worker::loaded(Ok(loaded.program), loaded.sources, file, par, color, max_nodes)?;
        w.origins = Some(loaded.origins);
        Ok(w)
    }

    fn loaded(
        loaded: Result<deepcps_machine::term::Program, Vec<Diagnostic>>,
        sources: SourceMap,
        file: String,
        par: Parallel,
        color: bool,
        max_nodes: u64,
    ) -> Result<Worker, String> {
        match loaded {
            Ok(p) => Ok(Worker {
                staging_names: staging_names(&p),
                session: {
                    let mut s = Session::with_parallel(p, par);
                    s.limit_terms(max_nodes);
                    s
                },
                max_nodes,
                main_file: FileId(0),
                sources,
                file,
                focus: None,
                radius: 2,
                running: None,
                message: None,
                focus_node: None,
                centre: None,
                recentred: false,
                window_bodies: Vec::new(),
                window_elided: Vec::new(),
                origins: None,
            }),
            Err(ds) => Err(ds.iter().map(|d: &Diagnostic| d.render(&sources, color)).collect()),
        }
    }

    /// Whether a background run is going on.
    pub fn running(&self) -> bool {
        self.running.is_some()
    }

    /// Carries out `cmd` (a `Continue` or `RunToEnd` only starts the run:
    /// [`Worker::slice`] advances it). False for [`Request::Quit`].
    pub fn handle(&mut self, cmd: Request) -> bool {
        self.message = None;
        match cmd {
            Request::Step(n) => {
                let stop = self.session.run(n, None, None);
                self.note_stop(stop);
            }
            Request::Back(n) => {
                let before = self.session.steps();
                self.session.back(n);
                if before == 0 {
                    self.message = Some("at step 0: nothing to go back to".into());
                }
            }
            Request::Goto(k) => self.session.goto(k),
            Request::Continue => self.running = Some(Run::Continue),
            Request::RunToEnd => self.running = Some(Run::ToEnd),
            Request::Pause => {
                if self.running.take().is_some() {
                    self.message = Some(format!("paused at step {}", self.session.steps()));
                }
            }
            Request::Next(body) => self.next(body),
            Request::Break(text) => match self.parse_breakpoint(&text) {
                Ok(bp) => {
                    let what = bp.to_string();
                    self.session.add_breakpoint(bp);
                    self.message = Some(format!("breakpoint set: {what}"));
                }
                Err(e) => self.message = Some(e),
            },
            Request::BreakOn(name) => {
                self.session.add_breakpoint(Breakpoint::Fire(name.clone()));
                self.message = Some(format!("breakpoint set: {name} is bound"));
            }
            Request::Toggle(i) => self.session.toggle_breakpoint(i),
            Request::Remove(i) => self.session.remove_breakpoint(i),
            Request::Focus(f) => {
                self.focus = f;
                self.focus_node = f.and_then(|i| self.window_bodies.get(i).copied());
                match self.focus_node {
                    // An elided part: the window moves to it.
                    Some(n) if self.window_elided.contains(&n) => {
                        self.centre = Some(n);
                        self.recentred = true;
                    }
                    Some(_) => {}
                    // Following the ready body again.
                    None => self.centre = None,
                }
            }
            Request::Radius(r) => self.radius = r.clamp(1, 8),
            Request::Quit => return false,
        }
        true
    }

    /// Advances a background run by one slice (at most `SLICE` long);
    /// returns whether it goes on.
    pub fn slice(&mut self) -> bool {
        let Some(run) = self.running else { return false };
        let deadline = Some(Instant::now() + SLICE);
        let stop = match run {
            Run::Continue => self.session.run(u64::MAX, deadline, None),
            Run::ToEnd => {
                let saved = std::mem::take(&mut self.session.breakpoints);
                let stop = self.session.run(u64::MAX, deadline, None);
                self.session.breakpoints = saved;
                stop
            }
        };
        if stop == Stop::Slice {
            return true;
        }
        self.running = None;
        self.note_stop(stop);
        false
    }

    fn note_stop(&mut self, stop: Stop) {
        self.message = match stop {
            Stop::Breakpoint(i) => self.session.breakpoints.get(i).map(|e| {
                let mut text = format!("breakpoint {}: {} (step {})", i + 1, e.at, self.session.steps());
                if let (Breakpoint::Stuck, Some((span, var))) = (&e.at, self.session.stuck_hit()) {
                    let name = self.session.machine().source_vars().name(var).unwrap_or("a variable");
                    let place = Places::new(&self.sources).describe(span);
                    text.push_str(&format!(": the body at {place} waits for `{name}`"));
                }
                text
            }),
            Stop::SubtreeDone => Some("the focused body's subtree holds no pending body".into()),
            Stop::Budget | Stop::Slice | Stop::Ended => None,
        };
    }

    /// `n`: reduces the subtree of body `body` of the current view (or of
    /// the ready body).
    fn next(&mut self, body: Option<usize>) {
        let m = self.session.machine();
        let node = match body {
            Some(i) if !self.window_bodies.is_empty() => self.window_bodies.get(i).copied(),
            Some(i) => m.bodies_in_order().get(i).copied(),
            None => self.session.next().map(|n| n.body),
        };
        let Some(node) = node else {
            self.message = Some("no body to reduce".into());
            return;
        };
        let anchor: Anchor = m.anchor(node);
        let stop = self.session.run(u64::MAX, None, Some(anchor));
        self.note_stop(stop);
    }

    /// Reads a typed breakpoint.
    fn parse_breakpoint(&self, text: &str) -> Result<Breakpoint, String> {
        let t = text.trim();
        let words: Vec<&str> = t.split_whitespace().collect();
        match words.as_slice() {
            [] => {
                Err("an empty breakpoint: type a staging variable (pt), a line (12 or file.dcps:12), step N, exit, error or stuck".into())
            }
            ["exit"] | ["$exit"] => Ok(Breakpoint::Exit),
            ["error"] => Ok(Breakpoint::Error),
            ["stuck"] => Ok(Breakpoint::Stuck),
            ["step", n] => n.parse().map(Breakpoint::Step).map_err(|_| format!("`{n}` is not a step number")),
            ["line", l] => self.line_breakpoint(l),
            [one] if one.chars().next().is_some_and(|c| c.is_ascii_digit()) || one.contains(':') => self.line_breakpoint(one),
            [name] if name.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '\'') => {
                let name = name.trim_matches('\'');
                if self.staging_names.contains(name) {
                    Ok(Breakpoint::Fire(name.to_string()))
                } else if self.staging_names.is_empty() {
                    Err(format!(
                        "`{name}` is no staging variable: this program has none (try step N, a line, exit, error or stuck)"
                    ))
                } else {
                    let names: Vec<&str> = self.staging_names.iter().map(String::as_str).collect();
                    Err(format!(
                        "`{name}` is no staging variable of this program; its staging variables: {}",
                        names.join(", ")
                    ))
                }
            }
            _ => Err(format!("cannot read the breakpoint `{t}`")),
        }
    }

    /// `12` (a line of the program's file) or `file.dcps:12` (a line of an
    /// included file, named by the end of its path).
    fn line_breakpoint(&self, text: &str) -> Result<Breakpoint, String> {
        let (file, line) = match text.rsplit_once(':') {
            Some((f, l)) => {
                let id = self
                    .sources
                    .files()
                    .iter()
                    .position(|s| s.name == f || s.name.ends_with(&format!("/{f}")))
                    .ok_or_else(|| format!("no file `{f}` in this program"))?;
                (FileId(id as u32), l)
            }
            None => (self.main_file, text),
        };
        let n: usize = line.parse().map_err(|_| format!("`{line}` is not a line number"))?;
        let f = self.sources.get(file);
        let mut starts = std::iter::once(0).chain(f.text.match_indices('\n').map(|(i, _)| i + 1));
        let start = n.checked_sub(1).and_then(|k| starts.nth(k)).filter(|&s| s < f.text.len() || n == 1);
        let Some(start) = start else {
            return Err(format!("{} has no line {n}", f.name));
        };
        let end = f.text[start..].find('\n').map_or(f.text.len(), |e| start + e + 1);
        Ok(Breakpoint::Line {
            file,
            start: start as u32,
            end: end as u32,
            label: format!("{}:{n}", short_name(&f.name)),
        })
    }

    /// For a language input: the action being run and the place in the
    /// input it was called for (`action 3/9 `mul` for `4*2` at
    /// input.arith:1:3`), read off the term unless it is very large.
    fn action_place(&self, places: &Places) -> Option<String> {
        const MOST_NODES: usize = 200_000;
        let origins = self.origins.as_ref()?;
        let m = self.session.machine();
        if m.live_nodes() > MOST_NODES {
            return Some("action: (the term is too large to tell)".to_string());
        }
        let term = if self.session.end().is_some() { None } else { Some(m.to_program()) };
        let current = match &term {
            Some(p) => origins.current_call(&p.body),
            None => origins.lines.len().checked_sub(1),
        };
        let n = origins.lines.len();
        Some(match current.and_then(|i| origins.lines.get(i).map(|o| (i, o))) {
            None => format!("action: none called yet ({n} to call)"),
            Some((i, o)) => {
                let text = &self.sources.get(o.place.file).text;
                let excerpt: String = text
                    .get(o.place.range())
                    .unwrap_or("")
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ");
                let excerpt = if excerpt.chars().count() > 24 {
                    format!("{}…", excerpt.chars().take(24).collect::<String>())
                } else {
                    excerpt
                };
                format!(
                    "action {}/{n} `{}` for `{excerpt}` at {}",
                    i + 1,
                    o.action,
                    places.describe(o.place)
                )
            }
        })
    }

    /// A frame of the current state; `full` adds the views.
    pub fn frame(&mut self, full: bool) -> ViewFrame {
        let view = if full { Some(Arc::new(self.views())) } else { None };
        let s = &self.session;
        let m = s.machine();
        let places = Places::new(&self.sources);
        let end = s.end().map(|e| match e {
            End::Residual => "no body is pending: the term is the residual program".to_string(),
            End::Exit(_) => "$exit executed: showing the exit value".to_string(),
            End::Error(err) => format!("runtime error: {}", err.message),
            End::Memory(e) => format!("{e}; showing the last snapshot ({})", e.remedy()),
        });
        let next = s.next().map(|n| {
            let what = match n.what {
                NextKind::Rule(r) => r.name().to_string(),
                NextKind::Error(k) => format!("fails ({})", k.name()),
                NextKind::Stale => "refresh".to_string(),
            };
            format!("next: {what} at {}", places.describe(n.span))
        });
        let next = match self.action_place(&places) {
            Some(action) => Some(match next {
                Some(n) => format!("{action} · {n}"),
                None => action,
            }),
            None => next,
        };
        ViewFrame {
            file: self.file.clone(),
            steps: s.steps(),
            counts: s.counts(),
            running: self.running.is_some(),
            end,
            message: self.message.clone(),
            next,
            live_nodes: m.live_nodes(),
            rss_bytes: rss(),
            threads: if s.reduces_in_parallel() { s.parallel().threads() } else { 1 },
            view,
        }
    }

    fn views(&mut self) -> ViewData {
        let large = {
            let m = self.session.machine();
            !matches!(self.session.end(), Some(End::Exit(_))) && m.expanded_size_capped(m.root, WHOLE_VIEW_NODES).is_none()
        };
        if large {
            return self.window_views();
        }
        self.window_bodies.clear();
        self.window_elided.clear();
        self.focus_node = None;
        self.centre = None;
        let places = &Places::new(&self.sources);
        let s = &self.session;
        let m = s.machine();
        // One lambda graph per state, shared by the program view, the graph
        // pane and the staging chains.
        // A state too large to build is shown as the message saying so.
        let too_large = |t: deepcps_machine::run::TooLarge, title| {
            let text = format!("{} nodes written out, more than --max-nodes {}", t.size, t.limit);
            let body = ProgramView::value_body(&deepcps_machine::term::Atom::Str(text.into()));
            (body, m.source_vars().clone(), title, true)
        };
        let (body, vars, title, is_value) = match s.end() {
            Some(End::Exit(_)) if m.exit_too_large().is_some() => match m.exit_too_large() {
                Some(t) => too_large(t, "exit value (too large to show)".to_string()),
                None => unreachable!(),
            },
            Some(End::Exit(v)) => {
                let vars = m.exit_vars().cloned().unwrap_or_default();
                (ProgramView::value_body(v), vars, "exit value".to_string(), true)
            }
            _ => match m.to_program_within(self.max_nodes) {
                Ok(p) => (p.body, p.vars, "term".to_string(), false),
                Err(t) => too_large(t, "term (too large to show)".to_string()),
            },
        };
        // The printer on this thread (it recurses as deep as the term
        // nests: the worker's stack is sized for it), the lambda graph, the
        // staging graph and its chains beside it.
        let fired = s.fired();
        let graphs = |body: &Body, vars: &Vars| {
            let lg = LambdaGraph::build(body, vars);
            let sg = StagingGraph::from_lambda_graph(&lg);
            // The ready body: the program view's first (the wrapper of a
            // value is inactive).
            let ready = lg.bodies_with_status("ready").first().copied();
            let rows = chain_rows(&sg, fired, ready);
            (lg, rows)
        };
        let ((lg, chain_rows), printed) = std::thread::scope(|scope| {
            let side = std::thread::Builder::new()
                .name("deepcps-debug-views".into())
                .stack_size(deepcps_machine::memory::stack(WORKER_STACK))
                .spawn_scoped(scope, || graphs(&body, &vars));
            let printed = if is_value {
                ProgramView::print_value_body(&body, &vars)
            } else {
                ProgramView::print_program(&body, &vars)
            };
            let graphs = match side {
                Ok(h) => h.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                // No thread to be had: all on this one.
                Err(_) => graphs(&body, &vars),
            };
            (graphs, printed)
        });
        let program = ProgramView::from_printed(&lg, printed);
        let mut statuses = [0usize; 5];
        for b in &program.bodies {
            let k = match b.status {
                Status::Ready => 0,
                Status::Pending => 1,
                Status::Stuck { .. } => 2,
                Status::Error(_) => 3,
                Status::Inactive => 4,
            };
            statuses[k] += 1;
        }
        let focus = self
            .focus
            .filter(|&i| i < program.bodies.len())
            .or_else(|| program.ready())
            .or(if program.bodies.is_empty() { None } else { Some(0) });
        // An exit value's graph is that of the body `@never: $exit v` made
        // to hold it: the pane shows the value, not that body.
        let value = if is_value {
            lg.children(petgraph::graph::NodeIndex::new(0)).last().map(|&(c, _)| c)
        } else {
            None
        };
        let graph = focus
            .and_then(|i| program.bodies.get(i))
            .map(|b| b.node)
            .or(value)
            .map(|n| neighbourhood_below(&lg, n, self.radius, value));
        let mut chains = worklist_rows(&program, places);
        chains.extend(chain_rows);
        let breakpoints = s.breakpoints.iter().map(|e| (e.at.to_string(), e.enabled, e.hits)).collect();
        ViewData {
            step: s.steps(),
            title,
            program,
            statuses,
            focus,
            recentred: false,
            graph,
            chains,
            breakpoints,
        }
    }
}

/// The most nodes (written out) a term may have to be shown whole; a
/// larger one is shown as a window around the focus ([`Machine::window`]),
/// so that a step costs what the screen shows, not the term's size.
const WHOLE_VIEW_NODES: u64 = 10_000;

impl Worker {
    /// The views of a large term: a window of it around the focused body
    /// (or the ready one), the bodies' states from the machine, the counts
    /// and the worklist from the machine's own bookkeeping.
    fn window_views(&mut self) -> ViewData {
        let places = &Places::new(&self.sources);
        let s = &self.session;
        let m = s.machine();
        let live = |n: &NodeId| m.body_state(*n).is_some();
        let centre = self.centre.filter(live).or_else(|| s.next().map(|n| n.body)).unwrap_or(m.root);
        let w = m.window(centre, WindowSize::default());
        let lg = {
            let mut lg = LambdaGraph::build(&w.program.body, &w.program.vars);
            for (&(ix, _), &(state, var)) in lg.body_addresses.iter().zip(&w.states) {
                if let NodeKind::Body { status, .. } = &mut lg.graph[ix].kind {
                    *status = match (state, &*status) {
                        (BodyState::Inactive, _) => Status::Inactive,
                        (BodyState::Stuck(_), Status::Stuck { .. }) => status.clone(),
                        (BodyState::Stuck(_), _) => Status::Stuck {
                            var: var.unwrap_or(VarId(u32::MAX)),
                            what: "a symbolic value",
                        },
                        (BodyState::Pending { .. }, Status::Error(e)) => Status::Error(e.clone()),
                        (BodyState::Pending { ready: true }, _) => Status::Ready,
                        (BodyState::Pending { ready: false }, _) => Status::Pending,
                    };
                }
            }
            lg
        };
        let sg = StagingGraph::from_lambda_graph(&lg);
        let ready = lg.bodies_with_status("ready").first().copied();
        let chain_rows = chain_rows(&sg, s.fired(), ready);
        let printed = ProgramView::print_program(&w.program.body, &w.program.vars);
        let program = ProgramView::from_printed(&lg, printed);
        let c = m.body_counts();
        let failing = usize::from(s.next().is_some_and(|n| matches!(n.what, NextKind::Error(_))));
        let statuses = [c.ready - failing.min(c.ready), c.pending, c.stuck, failing, c.inactive];
        let focus_ix = self
            .focus_node
            .filter(live)
            .and_then(|f| w.bodies.iter().position(|&n| n == f))
            .or_else(|| w.bodies.iter().position(|&n| n == centre));
        let graph = focus_ix
            .and_then(|i| program.bodies.get(i))
            .map(|b| neighbourhood_below(&lg, b.node, self.radius, None));
        let mut chains = machine_worklist_rows(m, places);
        chains.extend(chain_rows);
        let breakpoints = s.breakpoints.iter().map(|e| (e.at.to_string(), e.enabled, e.hits)).collect();
        // Short enough for 80 columns with the step and the follow mark.
        let title = format!(
            "term window on the {} ({} …, {} above)",
            if self.centre.is_some() { "opened part" } else { "ready body" },
            w.elided.len(),
            w.enclosing,
        );
        let step = s.steps();
        let recentred = std::mem::take(&mut self.recentred);
        self.window_bodies = w.bodies;
        self.window_elided = w.elided;
        ViewData {
            step,
            title,
            program,
            statuses,
            focus: focus_ix,
            recentred,
            graph,
            chains,
            breakpoints,
        }
    }
}

/// The machine's worklist as rows of the chains pane (see
/// [`worklist_rows`]), read off the machine's pending bodies: each body
/// printed with everything nested in it left out.
fn machine_worklist_rows(m: &Machine, places: &Places) -> Vec<ChainRow> {
    let (first, total) = m.pending_in_order(WORKLIST_ROWS);
    let bare = WindowSize { up: 0, cap: 0, room: 0 };
    let shown = first.iter().map(|&n| {
        let w = m.window(n, bare);
        let text = deepcps_machine::print::Printer::new(&w.program.vars).program_text(&w.program.body);
        let status = match m.body_state(n) {
            Some(BodyState::Pending { ready: true }) => "ready",
            Some(BodyState::Pending { ready: false }) => "pending",
            Some(BodyState::Stuck(_)) => "stuck",
            _ => "inactive",
        };
        let span = m.g.body(n).map(|b| b.span).unwrap_or_default();
        (text.lines().next().unwrap_or("").to_string(), status, span)
    });
    worklist_layout(shown, total, places)
}

/// The worklist's rows: a heading with the number pending, then the first
/// pending bodies (first printed line, status name, source), the next to
/// run marked, then how many more.
fn worklist_layout<'a>(shown: impl Iterator<Item = (String, &'a str, Span)>, total: usize, places: &Places) -> Vec<ChainRow> {
    let mut rows = vec![ChainRow {
        text: format!("worklist: {total} pending"),
        var: None,
        focus: false,
        heading: true,
    }];
    for (k, (line, status, span)) in shown.take(WORKLIST_ROWS).enumerate() {
        let first: String = line.trim().chars().take(40).collect();
        let mark = if k == 0 { "▶" } else { " " };
        rows.push(ChainRow {
            text: format!(" {mark} {first} ({status}) {}", describe_short(places, span)),
            var: None,
            focus: k == 0,
            heading: false,
        });
    }
    if total > WORKLIST_ROWS {
        rows.push(ChainRow {
            text: format!("   … {} more", total - WORKLIST_ROWS),
            var: None,
            focus: false,
            heading: false,
        });
    }
    rows
}

/// The stack of the worker's threads: terms nest deep, and the printer
/// recurses as deep as they nest.
const WORKER_STACK: usize = 1 << 30;

/// Most worklist rows shown.
const WORKLIST_ROWS: usize = 6;

/// The machine's worklist as rows of the chains pane: the pending bodies in
/// the order they will run (post-order: a body after everything nested in
/// it), the ready one first, each with its first printed line and place.
fn worklist_rows(program: &ProgramView, places: &Places) -> Vec<ChainRow> {
    let mut pending: Vec<usize> = (0..program.bodies.len())
        .filter(|&i| matches!(program.bodies[i].status, Status::Ready | Status::Pending | Status::Error(_)))
        .collect();
    // Post-order from the printed extents: by end, then the inner (later
    // starting) body first, since chained bodies end together.
    pending.sort_by_key(|&i| (program.bodies[i].end, std::cmp::Reverse(program.bodies[i].start)));
    let shown = pending.iter().map(|&i| {
        let b = &program.bodies[i];
        let text = program.text.get(b.start..b.end).unwrap_or("");
        (text.lines().next().unwrap_or("").to_string(), b.status.name(), b.span)
    });
    worklist_layout(shown, pending.len(), places)
}

/// `file:line:col` with the file's name only (not its directories).
fn describe_short(places: &Places, span: Span) -> String {
    short_name(&places.describe(span)).to_string()
}

fn short_name(name: &str) -> &str {
    name.rsplit_once('/').map_or(name, |(_, t)| t)
}

/// Resident memory of the process (Linux: `/proc/self/statm`; the working
/// set on Windows), if the system tells.
fn rss() -> Option<u64> {
    memory_stats::memory_stats().and_then(|m| u64::try_from(m.physical_mem).ok())
}

/// The engine as the UI sees it: commands in, frames out.
pub enum Engine {
    /// On the caller's thread (tests): every command is carried out at
    /// once, a background run included (to its stop).
    Inline(Box<Worker>, Vec<ViewFrame>),
    /// On a background thread.
    Thread {
        /// Commands to the worker.
        to: Sender<Request>,
        /// Frames from it.
        from: Receiver<ViewFrame>,
        /// The thread.
        handle: Option<std::thread::JoinHandle<()>>,
        /// Set with `Pause` and `Quit`, cleared with any other command, by
        /// this (the UI's) thread: it stops a run of the
        /// worker inside a round of the parallel driver, which outlasts a
        /// slice ([`Session::set_interrupt`]); the command itself is read
        /// only between slices.
        stop: &'static AtomicBool,
        /// Whether `Quit` was sent: the worker then ends, and its channel
        /// closing is the answer, not a crash.
        quitting: bool,
    },
}

impl Engine {
    /// An engine on this thread.
    pub fn inline(mut w: Worker) -> Engine {
        let first = w.frame(true);
        Engine::Inline(Box::new(w), vec![first])
    }

    /// Loads `file` on a new thread and runs the worker there, reducing on
    /// the threads of `par`, its snapshots within `snapshot_bytes`
    /// ([`Session::set_snapshot_budget`]); the load's diagnostics if it
    /// fails.
    pub fn spawn(file: PathBuf, par: Parallel, snapshot_bytes: usize, color: bool, max_nodes: u64) -> Result<Engine, String> {
        Engine::spawn_with(Box::new(move || Worker::load(&file, par, color, max_nodes)), snapshot_bytes)
    }

    /// [`Engine::spawn`] with the worker made by `load` on the new thread.
    pub fn spawn_with(load: Box<dyn FnOnce() -> Result<Worker, String> + Send>, snapshot_bytes: usize) -> Result<Engine, String> {
        let (to, commands) = channel::<Request>();
        let (frames, from) = channel::<ViewFrame>();
        let (loaded, load_result) = channel::<Result<(), String>>();
        // One flag per debugger started: it lives as long as the process
        // (the limits of a run take a `'static` flag, as Ctrl-C's does).
        let stop: &'static AtomicBool = Box::leak(Box::new(AtomicBool::new(false)));
        let handle = std::thread::Builder::new()
            .name("deepcps-debug-worker".into())
            .stack_size(deepcps_machine::memory::stack(WORKER_STACK))
            .spawn(move || {
                let mut w = match load() {
                    Ok(w) => w,
                    Err(e) => {
                        let _ = loaded.send(Err(e));
                        return;
                    }
                };
                w.session.set_interrupt(stop);
                w.session.set_snapshot_budget(snapshot_bytes);
                let _ = loaded.send(Ok(()));
                worker_loop(&mut w, &commands, &frames);
            })
            .map_err(|e| format!("deepcps: cannot start the debugger's worker: {e}"))?;
        match load_result.recv() {
            Ok(Ok(())) => Ok(Engine::Thread {
                to,
                from,
                handle: Some(handle),
                stop,
                quitting: false,
            }),
            Ok(Err(e)) => Err(e),
            Err(_) => Err("deepcps: the debugger's worker stopped while loading".into()),
        }
    }

    /// Sends a command.
    pub fn send(&mut self, cmd: Request) {
        match self {
            Engine::Inline(w, frames) => {
                let full = !matches!(cmd, Request::Quit);
                w.handle(cmd);
                while w.slice() {}
                if full {
                    frames.push(w.frame(true));
                }
            }
            Engine::Thread { to, stop, quitting, .. } => {
                // Any other command clears it: a step after a pause runs.
                stop.store(matches!(cmd, Request::Pause | Request::Quit), Ordering::Relaxed);
                *quitting |= matches!(cmd, Request::Quit);
                let _ = to.send(cmd);
            }
        }
    }

    /// The frames that arrived since the last call, oldest first; an error
    /// when the worker thread is gone though it was not told to quit (it
    /// panicked: a bug).
    pub fn frames(&mut self) -> Result<Vec<ViewFrame>, String> {
        match self {
            Engine::Inline(_, frames) => Ok(std::mem::take(frames)),
            Engine::Thread { from, quitting, .. } => {
                let mut out = Vec::new();
                loop {
                    match from.try_recv() {
                        Ok(f) => out.push(f),
                        Err(std::sync::mpsc::TryRecvError::Empty) => return Ok(out),
                        Err(std::sync::mpsc::TryRecvError::Disconnected) if out.is_empty() && !*quitting => {
                            return Err(
                                "deepcps: the debugger's worker stopped (an internal error; please report it with the input)".into(),
                            )
                        }
                        Err(std::sync::mpsc::TryRecvError::Disconnected) => return Ok(out),
                    }
                }
            }
        }
    }

    /// Waits at most `timeout` for a frame (threaded engine).
    pub fn wait(&mut self, timeout: Duration) -> Option<ViewFrame> {
        match self {
            Engine::Inline(_, frames) => (!frames.is_empty()).then(|| frames.remove(0)),
            Engine::Thread { from, .. } => from.recv_timeout(timeout).ok(),
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        if let Engine::Thread { to, handle, stop, .. } = self {
            stop.store(true, Ordering::Relaxed);
            let _ = to.send(Request::Pause);
            let _ = to.send(Request::Quit);
            if let Some(h) = handle.take() {
                let _ = h.join();
            }
        }
    }
}

/// The background thread: waits for commands while idle; while running,
/// alternates a slice of steps with a light frame and a look at the
/// commands (so `Pause` is seen within one slice).
fn worker_loop(w: &mut Worker, commands: &Receiver<Request>, frames: &Sender<ViewFrame>) {
    if frames.send(w.frame(true)).is_err() {
        return;
    }
    loop {
        let cmd = if w.running() {
            match commands.try_recv() {
                Ok(c) => Some(c),
                Err(TryRecvError::Empty) => None,
                Err(TryRecvError::Disconnected) => return,
            }
        } else {
            match commands.recv() {
                Ok(c) => Some(c),
                Err(_) => return,
            }
        };
        if let Some(cmd) = cmd {
            let quit = matches!(cmd, Request::Quit);
            let starts = matches!(cmd, Request::Continue | Request::RunToEnd);
            if !w.handle(cmd) || quit {
                return;
            }
            if !starts && frames.send(w.frame(!w.running())).is_err() {
                return;
            }
            if starts && frames.send(w.frame(false)).is_err() {
                return;
            }
        }
        if w.running() {
            let goes_on = w.slice();
            if frames.send(w.frame(!goes_on)).is_err() {
                return;
            }
        }
    }
}
