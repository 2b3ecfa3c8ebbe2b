//! The graph machine: the default machine of `deepcps run`.
//!
//! The program is a tree of nodes in an arena ([`node`]), variables are
//! nodes of their own that know their occurrences and the bodies waiting on
//! them. [`drive`] is the one run loop (limits, clock, Ctrl-C) over the
//! machine's [`Stepper`]; the stepper first offers the next stretch of
//! steps to a fast run (`fast/`: steps on compiled templates and frames
//! instead of nodes), and when the run does not take the body, one graph
//! step runs:
//!
//! 1. reads the first ready body in the reference order off the Euler tour
//!    of the term ([`tour`]): the first pending body in post-order, in
//!    `O(log size)`; it never scans the term;
//! 2. decides what the body does ([`readiness`]), exactly as the reference
//!    verdict ([`crate::verdict`]) would, evaluating expression arguments
//!    in place (leaves that are not literals are read through
//!    placeholders);
//! 3. executes one rule ([`rules`]): β binds the callee's parameters in
//!    place ([`bind`]), moving each argument into the occurrence of its
//!    parameter (sharing or copying it for the others, [`share`]); `if`
//!    becomes the chosen branch applied to nothing; `fix` makes a recursive
//!    value whose name inside is concrete; `$exit` exports the value;
//! 4. re-evaluates exactly the bodies that wait on the variables just bound,
//!    marking in the tour those that turn pending, and unshares the shared
//!    values in which a body turned pending; the step is counted.
//!
//! Errors are worded by the verdict on the exported body, and results and
//! warnings printed from the exported root ([`export`]), so the graph
//! machine cannot word or print differently from the reference reducer.
//! Many pending bodies side by side are reduced on several threads
//! ([`par`]).
//!
//! Nodes freed by a step go on a free list and are reused, so memory tracks
//! the live term. See ARCHITECTURE.md, "The graph's invariants".

pub mod bind;
pub mod calls;
pub mod closed;
pub mod copy;
pub mod events;
pub mod export;
mod fast;
pub mod import;
pub mod lit;
pub mod node;
pub mod par;
pub mod readiness;
pub mod rules;
pub mod share;
pub mod tour;
pub mod var_list;
pub mod window;

use crate::diag::Diagnostic;
use crate::error::RuntimeError;
use crate::print::Printer;
use crate::run::{drive, Counts, Limits, Outcome, Report, Rule, Stepper};
use crate::span::Span;
use crate::term::{self, Atom, Program, SExp, VarId, Vars};
use crate::verdict::{stuck, verdict, Verdict};
use export::ExportNames;
use import::Importer;
use node::{Graph, Kind, NodeId, Readiness};
use readiness::{Look, Plan};

/// What a live node holds in boxes, on average, for
/// [`Machine::approx_bytes`]. Calibrated by hand on debugging sessions of
/// the builders kept every snapshot: at 2,000 and 6,000 numbers the
/// snapshots were estimated at 557 and 2,479 MB where the process grew by
/// 618 and 2,037 MB.
pub const PAYLOAD_BYTES: usize = 48;

/// What `$exit` left: the exit value's variables, or the value it
/// declined to build.
#[derive(Clone)]
struct ExitState {
    /// The variable table of the exit value, once `$exit` fired.
    pub(crate) vars: Option<Vars>,
    /// The most nodes an exit value may have written out
    /// ([`Machine::expanded_size`]) for `$exit` to build it; past it the
    /// machine keeps `too_large` and returns a placeholder value. No
    /// limit unless a report sets it from [`Limits::max_nodes`]. Fast runs
    /// also hold no more values than the graph may still grow by.
    pub(crate) max_term: u64,
    /// The exit value `$exit` declined to build (see `max_term`).
    pub(crate) too_large: Option<crate::run::TooLarge>,
}

/// Work buffers kept between steps so that they are allocated once.
#[derive(Clone, Default)]
struct Scratch {
    /// The work buffers of `copy`.
    pub(crate) copy: copy::CopyScratch,
    /// The binder table of `classify`.
    pub(crate) closed: closed::Depths,
}

/// When a fast run is tried, and where it stops so that the parallel
/// driver can split the work.
#[derive(Clone)]
pub(crate) struct FastRunPolicy {
    /// When a fast run is tried next.
    pub(crate) backoff: fast::Backoff,
    /// Fast runs stop where a body holds two or more lambdas whose bodies
    /// are active (independent reductions a round can spread over threads)
    /// from this step on; `u64::MAX`: never (the sequential machine, a unit
    /// that may not split again). Set by the parallel driver.
    pub(crate) split_from: u64,
    /// A fast run stopped at such a branch: the parallel driver looks for
    /// a frontier now.
    pub(crate) split_asked: bool,
    /// Nodes visited so far by [`Machine::reclassify`], which may visit no
    /// more than the steps executed (and 4096).
    pub(crate) reclassify_spent: u64,
}

/// The work a machine did besides its steps, for `--stats`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MachineStats {
    /// Nodes made by copying.
    pub copied: u64,
    /// Variables bound.
    pub bound_count: u64,
    /// Steps executed in fast runs.
    pub fast_steps_done: u64,
    /// Fast runs that executed a step: each ends by building its state back
    /// into the graph.
    pub fast_runs: u64,
}

impl std::ops::AddAssign for MachineStats {
    /// Adds the work of another machine (a parallel round's unit).
    fn add_assign(&mut self, o: MachineStats) {
        self.copied += o.copied;
        self.bound_count += o.bound_count;
        self.fast_steps_done += o.fast_steps_done;
        self.fast_runs += o.fast_runs;
    }
}

/// The graph machine's state. `Clone` is a snapshot (the debugger's
/// time travel): the arena, the variables and the tours are copied whole.
#[derive(Clone)]
pub struct Machine {
    /// The arena and the variables.
    pub g: Graph,
    /// The top-level body.
    pub root: NodeId,
    /// The front end's variable table (names and spans of the source).
    source: Vars,
    /// Steps executed so far, by kind.
    pub counts: Counts,
    /// What `--stats` reports of the work done besides the steps.
    pub stats: MachineStats,
    /// Shared values (detached subtrees) and the [`Kind::Share`] nodes that
    /// hold them. Invariant: each holder is a live `Share` of its key.
    pub(crate) shared: rustc_hash::FxHashMap<NodeId, share::Holders>,
    /// Bodies that turned pending during this step: those inside a shared
    /// value get it unshared (copied per holder) before the next step.
    pub(crate) new_pending: Vec<NodeId>,
    /// What the last step did that a debugger stops on.
    pub events: events::StepEvents,
    /// What the parallel driver did so far.
    pub(crate) par_stats: par::ParStats,
    /// The events of steps executed inside rounds, not yet taken
    /// ([`Machine::take_round_events`]).
    pub(crate) round_events: Vec<(u64, events::StepEvents)>,
    /// Whether [`Machine::run_par`] keeps the events of its steps for
    /// [`Machine::take_round_events`] (the debugger sets it).
    pub record_round_events: bool,
    /// Whether runs may take stretches of steps as fast runs (`graph::fast`);
    /// on by default, off to compare with the machine stepping alone.
    pub fast: bool,
    /// A run pauses at the first step on the graph (not in a fast run or a
    /// round) at or after this many steps, reporting a step limit there
    /// (the hand-over's look back, `handover.rs`); `u64::MAX`: never.
    pub pause_at: u64,
    /// The call sites of bodies, recorded only when tracing a runtime
    /// error ([`calls::trace`]).
    pub(crate) calls: Option<Box<calls::CallTrack>>,
    /// The exit value once `$exit` fired, and the bound on building it.
    exit: ExitState,
    /// Work buffers of the copier and of `classify`, kept between steps.
    scratch: Scratch,
    /// When fast runs are tried and where they stop for the parallel driver.
    pub(crate) fast_policy: FastRunPolicy,
}

/// The body `0` (a term with nothing in it).
fn empty_body() -> term::Body {
    term::Body {
        stage: SExp::Const(true),
        cmd: term::Cmd::App(term::Application {
            head: Atom::Int(0),
            args: Vec::new(),
            sugar: Default::default(),
        }),
        span: Span::default(),
    }
}

impl Machine {
    /// A machine at the start of `program`.
    pub fn new(program: Program) -> Machine {
        let mut m = Machine::blank(program.vars);
        let mut imp = Importer::source();
        m.root = imp.body(&mut m.g, program.body);
        m.init_nodes(&imp.made);
        m.new_pending.clear();
        m
    }

    /// A machine with no term yet, over the front end's table `source`.
    pub(crate) fn blank(source: Vars) -> Machine {
        Machine {
            g: Graph::default(),
            root: NodeId::NONE,
            source,
            counts: Counts::default(),
            stats: MachineStats::default(),
            fast_policy: FastRunPolicy {
                backoff: Default::default(),
                split_from: u64::MAX,
                split_asked: false,
                reclassify_spent: 0,
            },
            scratch: Scratch {
                copy: Default::default(),
                closed: Default::default(),
            },
            exit: ExitState {
                vars: None,
                max_term: u64::MAX,
                too_large: None,
            },
            shared: Default::default(),
            new_pending: Vec::new(),
            events: Default::default(),
            par_stats: Default::default(),
            round_events: Vec::new(),
            record_round_events: false,
            fast: true,
            pause_at: u64::MAX,
            calls: None,
        }
    }

    /// Builds the nodes of a computed value (variables in it are graph
    /// variables); returns the detached node.
    pub(crate) fn import_value(&mut self, a: Atom) -> NodeId {
        if let Some(lit) = lit::Lit::from_atom(&a) {
            // A number, boolean, string..: one leaf (the usual value of an
            // expression), no walk.
            return self.g.alloc(Kind::Lit(lit));
        }
        let mut imp = Importer::values();
        let id = imp.atom(&mut self.g, a);
        self.init_nodes(&imp.made);
        id
    }

    /// About how many bytes of memory a clone of the machine takes: node,
    /// variable and tour slots, and [`PAYLOAD_BYTES`] per live node for
    /// what nodes hold in boxes (bodies, lambdas, argument lists). What the
    /// debugger's snapshots are budgeted by.
    pub fn approx_bytes(&self) -> usize {
        self.g.nodes.len() * std::mem::size_of::<node::Node>()
            + self.g.vars.len() * std::mem::size_of::<node::VarSlot>()
            + self.g.tour.bytes()
            + self.g.live * PAYLOAD_BYTES
    }

    /// Number of live nodes.
    pub fn live_nodes(&self) -> usize {
        self.g.live
    }

    /// The most nodes live at once so far (the program's import included):
    /// the machine's memory high-water mark, in nodes.
    pub fn peak_live_nodes(&self) -> usize {
        self.g.peak_live
    }

    /// Whether some body is pending.
    pub fn has_pending(&self) -> bool {
        self.g.tour.marks_in_tree(self.root) > 0
    }

    /// The first ready body in the reference order (LANGUAGE.md §5): the
    /// first pending body of the main term in post-order, read off its
    /// tour in `O(log size)`. Ready bodies are never nested in one
    /// another, and for bodies that are not nested pre-order (the
    /// reference walk) and post-order agree; the first pending body in
    /// post-order has nothing pending nested in it, so it is ready.
    fn next_ready(&self) -> Option<NodeId> {
        self.g.tour.first_marked(self.root)
    }

    /// What the next step will do, without doing it: the body (its node and
    /// source) and the rule it executes, or the kind of error it fails
    /// with. `None`: no body is pending.
    pub fn peek(&self) -> Option<Next> {
        let b = self.next_ready()?;
        let span = self.g.body(b).map(|x| x.span).unwrap_or_default();
        let what = match self.look(b) {
            Look::Ready(Plan::Beta { expr: false, .. }) => NextKind::Rule(Rule::Beta),
            Look::Ready(Plan::Beta { expr: true, .. }) => NextKind::Rule(Rule::Expr),
            Look::Ready(Plan::If(_)) => NextKind::Rule(Rule::If),
            Look::Ready(Plan::Fix) => NextKind::Rule(Rule::Fix),
            Look::Ready(Plan::Exit(_)) => NextKind::Rule(Rule::Exit),
            Look::Error(kind) => NextKind::Error(kind),
            Look::Inactive | Look::Stuck(_) => NextKind::Stale,
        };
        Some(Next { body: b, span, what })
    }

    /// The front end's variable table: names and spans of the source
    /// variables that graph variables copy ([`node::VarSlot::origin`]).
    pub fn source_vars(&self) -> &Vars {
        &self.source
    }

    /// Whether `n` lies in the subtree at `anchor` (the node at the
    /// anchor's place, whatever node stands there now). Walks up from `n`:
    /// `O(depth)`, for the debugger, not the run loop.
    pub fn within(&self, n: NodeId, anchor: &Anchor) -> bool {
        let mut x = n;
        loop {
            let p = self.g.nodes[x.ix()].parent;
            if p == anchor.parent && (p == NodeId::NONE || self.g.children(p).get(anchor.slot) == Some(&x)) {
                return p != NodeId::NONE || x == self.root;
            }
            if p == NodeId::NONE {
                return false;
            }
            x = p;
        }
    }

    /// The place of `n`: its parent and its position among the parent's
    /// children (the root's place is the whole term).
    pub fn anchor(&self, n: NodeId) -> Anchor {
        let parent = self.g.nodes[n.ix()].parent;
        let slot = if parent == NodeId::NONE {
            0
        } else {
            self.g.children(parent).iter().position(|&c| c == n).unwrap_or(0)
        };
        Anchor { parent, slot }
    }

    /// The bodies of the main term in the order in which the lambda graph
    /// of its export numbers them (`view::LambdaGraph`: depth first, a
    /// body before its head and arguments, in reading order); a shared
    /// value's bodies are listed at each of its holders, as the export
    /// copies them there. Iterative.
    pub fn bodies_in_order(&self) -> Vec<NodeId> {
        let mut out = Vec::new();
        let mut stack = vec![self.root];
        let mut kids = Vec::new();
        while let Some(n) = stack.pop() {
            match self.g.kind(n) {
                Kind::Body(_) => out.push(n),
                Kind::Share(v) => {
                    stack.push(*v);
                    continue;
                }
                _ => {}
            }
            kids.clear();
            self.g.for_children(n, |c| kids.push(c));
            stack.extend(kids.iter().rev());
        }
        out
    }

    /// Executes the first ready body. `None`: no body is pending.
    pub fn step(&mut self) -> Option<Result<Option<Atom>, RuntimeError>> {
        self.step_traced(&mut |_, _, _| {})
    }

    /// Like [`Machine::step`], telling `on_step` the step's number, rule and
    /// the source of the body executed.
    pub fn step_traced(&mut self, on_step: &mut dyn FnMut(u64, Rule, Span)) -> Option<Result<Option<Atom>, RuntimeError>> {
        self.events.clear();
        loop {
            let b = self.next_ready()?;
            let span = self.g.body(b).map(|x| x.span).unwrap_or_default();
            let mut look = self.look(b);
            if let Look::Ready(_) = look {
                if self.own_parts(b) {
                    look = self.look(b);
                }
            }
            match look {
                Look::Ready(plan) => {
                    let done = self.execute(b, plan);
                    if let Some(t) = self.calls.as_deref_mut() {
                        let new = (done.body != NodeId::NONE)
                            .then(|| self.g.body(done.body).map(|x| (done.body, x.span)))
                            .flatten();
                        t.stepped(b, span, done.rule, new);
                    }
                    self.unshare_pending();
                    on_step(self.counts.total() + 1, done.rule, span);
                    self.counts.count(done.rule);
                    let exit = done.exit.map(|v| {
                        let size = if self.exit.max_term == u64::MAX { 0 } else { self.expanded_size(v) };
                        self.exit.too_large = crate::run::TooLarge::over("the exit value", size, self.exit.max_term);
                        if self.exit.too_large.is_some() {
                            return Atom::Int(0);
                        }
                        let mut names = ExportNames::printing(&self.source);
                        let a = self.export_atom(v, &mut names, true);
                        self.exit.vars = names.vars;
                        a
                    });
                    return Some(Ok(exit));
                }
                Look::Error(kind) => return Some(Err(self.error_at(b, kind))),
                // A stale status (never expected): bring it up to date.
                Look::Inactive | Look::Stuck(_) => {
                    debug_assert!(false, "a pending body whose look is not pending");
                    self.refresh(b);
                }
            }
        }
    }

    /// The runtime error of the failing body `b`, worded as the reference
    /// reducer words it.
    fn error_at(&self, b: NodeId, kind: crate::error::ErrorKind) -> RuntimeError {
        let mut names = ExportNames::printing(&self.source);
        let span = self.g.body(b).map(|x| x.span).unwrap_or_default();
        if let Some(body) = self.export_body(b, &mut names) {
            let mut vars = names.vars.unwrap_or_default();
            if let Verdict::Error(mut e) = verdict(&body, &mut vars, &[]) {
                e.calls = self.calls_of(b);
                return e;
            }
        }
        RuntimeError::new(kind, format!("this body fails with error kind `{}`", kind.name()), span, None)
    }

    /// Runs until no body is pending, `$exit`, an error or a limit. Running
    /// out of a budget is an outcome, not an error:
    ///
    /// ```
    /// use std::collections::HashMap;
    /// use deepcps_machine::graph::Machine;
    /// use deepcps_machine::run::{Limits, Outcome, StopReason};
    /// use deepcps_machine::span::SourceMap;
    /// use deepcps_machine::syntax::{load_program, MemFs};
    ///
    /// // A loop that never ends.
    /// let text = "fix f(n) { f \"n+1\" } in\nf 0\n";
    /// let fs = MemFs(HashMap::from([("loop.dcps".into(), text.as_bytes().to_vec())]));
    /// let program = load_program(&fs, "loop.dcps".as_ref(), &mut SourceMap::new()).expect("it loads");
    /// let limits = Limits { max_steps: 1000, ..Limits::default() };
    /// let outcome = Machine::new(program).run(&limits);
    /// assert!(matches!(outcome, Outcome::Limit(StopReason::Steps(1000))));
    /// ```
    pub fn run(&mut self, limits: &Limits) -> Outcome {
        self.run_traced(limits, &mut |_, _, _| {})
    }

    /// Like [`Machine::run`], calling `on_step` after every step.
    pub fn run_traced(&mut self, limits: &Limits, on_step: &mut dyn FnMut(u64, Rule, Span)) -> Outcome {
        drive(self, limits, on_step)
    }

    /// Where the body `b` stands and the source variable it waits for, if
    /// it is a body of the term that is stuck now.
    pub fn stuck_body(&self, b: NodeId) -> Option<(Span, VarId)> {
        let body = self.g.body(b)?;
        match body.status {
            node::Readiness::Stuck(v) => Some((body.span, self.g.var(v).origin)),
            _ => None,
        }
    }

    /// The exit value `$exit` declined to build: written out, it has more
    /// nodes than [`Machine::limit_terms`] allows (the value the step
    /// returned is then a placeholder).
    pub fn exit_too_large(&self) -> Option<crate::run::TooLarge> {
        self.exit.too_large
    }

    /// The variables of the exit value, once `$exit` has run (the value
    /// [`Machine::step`] returned is over these, not over the program's).
    pub fn exit_vars(&self) -> Option<&Vars> {
        self.exit.vars.as_ref()
    }

    /// The current term as a program (for printing and the views).
    pub fn to_program(&self) -> Program {
        let mut names = ExportNames::whole(self.source.clone(), self.g.vars.len());
        let body = self.export_body(self.root, &mut names).unwrap_or_else(empty_body);
        Program {
            body,
            vars: names.vars.unwrap_or_default(),
        }
    }

    /// The machine's statistics for `--stats`, run on `threads` threads:
    /// a `graph:` line and a `parallel:` line.
    pub fn stats_text(&self, threads: usize) -> String {
        let p = self.par_stats();
        format!(
            "graph: {} live nodes, {} node slots, {} variables bound, {} nodes copied, {} steps in fast runs\n\
             parallel: {threads} thread{}, {} rounds, {} units, {} steps in rounds",
            self.live_nodes(),
            self.g.nodes.len(),
            self.stats.bound_count,
            self.stats.copied,
            self.stats.fast_steps_done,
            if threads == 1 { "" } else { "s" },
            p.rounds,
            p.units,
            p.steps
        )
    }

    /// Classifies the shared recursive values not classified yet, so that
    /// [`Machine::into_program_lifted`] knows which of them are closed (a
    /// lambda's memo is set by the copies that hoist it; a recursive
    /// value's by nothing else).
    pub fn classify_shared_recs(&mut self) {
        let recs: Vec<NodeId> = self
            .shared
            .keys()
            .copied()
            .filter(|&t| matches!(self.g.kind(t), Kind::Rec { .. }) && self.g.nodes[t.ix()].closed == node::Closed::Unknown)
            .collect();
        for t in recs {
            self.classify(t);
        }
    }

    /// The current term as a program in which each closed shared lambda,
    /// and each closed recursive value, is written out once: the places
    /// holding it hold a variable free in the program, bound by the list
    /// that comes with it (a value there may hold the variables of later
    /// ones). With the variables replaced by their values it is
    /// [`Machine::to_program`].
    ///
    /// It consumes the machine, whose term is only read from here on: the
    /// Euler tour, which only reduction reads, is let go first, and the
    /// source table is moved, not copied, into the program's.
    pub fn into_program_lifted(mut self) -> (Program, Vec<(VarId, Atom)>) {
        self.g.tour = Default::default();
        let source = std::mem::take(&mut self.source);
        let mut names = ExportNames::whole(source, self.g.vars.len());
        names.lift_shared();
        let body = self.export_body(self.root, &mut names).unwrap_or_else(empty_body);
        let mut values = Vec::new();
        while let Some((t, v)) = names.next_lifted(values.len()) {
            crate::memory::tick();
            let a = self.export_atom(t, &mut names, false);
            values.push((v, a));
        }
        let program = Program {
            body,
            vars: names.vars.unwrap_or_default(),
        };
        (program, values)
    }

    /// Runs to the end and reports, printing the result canonically.
    pub fn report(&mut self, limits: &Limits) -> Report {
        self.report_traced(limits, &mut |_, _, _| {})
    }

    /// Like [`Machine::report`], calling `on_step` after every step.
    pub fn report_traced(&mut self, limits: &Limits, on_step: &mut dyn FnMut(u64, Rule, Span)) -> Report {
        self.limit_terms(limits);
        let outcome = self.run_traced(limits, on_step);
        self.report_of(outcome, limits)
    }

    /// Bounds the terms a report builds, and the exit value `$exit` builds,
    /// by `limits.max_nodes` (see [`Machine::exit_too_large`]).
    pub fn limit_terms(&mut self, limits: &Limits) {
        self.exit.max_term = limits.max_nodes.map_or(u64::MAX, |n| n as u64);
    }

    /// The whole term as a program, unless written out it has more than
    /// `limit` nodes ([`Machine::expanded_size`]).
    pub fn to_program_within(&self, limit: u64) -> Result<Program, crate::run::TooLarge> {
        let size = self.expanded_size(self.root);
        if size > limit {
            return Err(crate::run::TooLarge {
                what: "the term",
                size,
                limit,
            });
        }
        Ok(self.to_program())
    }

    /// The report of a run that ended with `outcome`: the result printed
    /// canonically (within `limits.max_output`) and the stuck warnings.
    pub(crate) fn report_of(&mut self, outcome: Outcome, limits: &Limits) -> Report {
        Report::of(outcome, self.counts, limits, |outcome| self.report_text(outcome, limits))
    }

    /// The printed result of a report, its stuck warnings, or what was too
    /// large to build.
    fn report_text(&self, outcome: &Outcome, limits: &Limits) -> (String, Vec<Diagnostic>, Option<crate::run::TooLarge>) {
        let limit = limits.max_nodes.map_or(u64::MAX, |n| n as u64);
        let max_output = limits.max_output.unwrap_or(usize::MAX);
        let (text, warnings, too_large) = match outcome {
            Outcome::Exit(_) if self.exit.too_large.is_some() => (String::new(), Vec::new(), self.exit.too_large),
            Outcome::Exit(v) => {
                let vars = self.exit.vars.clone().unwrap_or_default();
                let text = Printer::new(&vars).limited(max_output).atom_text(v);
                // The stuck warnings of an exit value do not need the term.
                (text, stuck::in_value(v, &vars), None)
            }
            _ => match self.to_program_within(limit) {
                Ok(p) => {
                    let text = Printer::new(&p.vars).limited(max_output).program_text(&p.body);
                    (text, stuck::in_body(&p.body, &p.vars), None)
                }
                Err(mut e) => {
                    e.what = crate::run::TooLarge::term_of(outcome);
                    (String::new(), Vec::new(), Some(e))
                }
            },
        };
        (text, warnings, too_large)
    }

    /// Checks the graph's invariants (for tests): parent links, statuses up
    /// to date, pending marks, each tree's tour mirroring its child lists,
    /// and no leaked nodes. Returns the first broken one. They hold between
    /// steps until `$exit`; the exit rule leaves the term as it stands,
    /// which is not checked.
    pub fn check(&self) -> Result<(), String> {
        for (v, slot) in self.g.vars.iter().enumerate() {
            if slot.renamed != node::NO_VAR {
                return Err(format!("variable {v} keeps a rename between copies"));
            }
            if slot.depth != 0 {
                return Err(format!("variable {v} keeps a binder depth between walks"));
            }
        }
        let mut reachable = 0usize;
        let mut trees = vec![self.root];
        let mut seen_shared = std::collections::HashSet::new();
        while let Some(t) = trees.pop() {
            // The walk of the tree at `t`, as the child lists say it is.
            let walk = self.g.walk_order(t);
            for &(n, _) in walk.iter().filter(|(_, entering)| *entering) {
                reachable += 1;
                if let Kind::Share(v) = self.g.kind(n) {
                    if !self.shared.get(v).is_some_and(|hs| hs.contains(&n)) {
                        return Err(format!("{n:?} shares {v:?} but is not among its holders"));
                    }
                    if self.g.tour.marks_in(*v) > 0 || self.g.nodes[v.ix()].parent != NodeId::NONE {
                        return Err(format!("shared {v:?} holds a pending body or is attached"));
                    }
                    if seen_shared.insert(*v) {
                        trees.push(*v);
                    }
                }
                for c in self.g.children(n) {
                    if self.g.nodes[c.ix()].parent != n {
                        return Err(format!("{c:?} does not name its parent {n:?}"));
                    }
                }
                if let Some(b) = self.g.body(n) {
                    let now = self.look(n).status();
                    if now != b.status {
                        return Err(format!("{n:?} has status {:?} but looks {now:?}", b.status));
                    }
                    if self.g.tour.marked(n) != (b.status == Readiness::Pending) {
                        return Err(format!("{n:?} has status {:?} but mark {}", b.status, self.g.tour.marked(n)));
                    }
                } else if self.g.tour.marked(n) {
                    return Err(format!("{n:?} is marked pending but is not a body"));
                }
                if let Kind::Free(_) = self.g.kind(n) {
                    return Err(format!("{n:?} is reachable but free"));
                }
                if self.g.nodes[n.ix()].closed.is_closed() && self.mentions_outer(n) {
                    return Err(format!("{n:?} is memoized closed but mentions an outer variable"));
                }
                if let Kind::Expr(e, xs) = self.g.kind(n) {
                    // Placeholders `0..xs.len()` in reading order, and
                    // otherwise plain values only.
                    let mut next = 0;
                    for leaf in e.vals() {
                        match leaf {
                            Atom::Var(v) if node::hole_index(*v) == Some(next) => next += 1,
                            a if import::is_lit(a) => {}
                            a => return Err(format!("{n:?} has the leaf {a:?} where placeholder {next} is due")),
                        }
                    }
                    if next != xs.len() {
                        return Err(format!("{n:?} has {next} placeholders for {} children", xs.len()));
                    }
                }
            }
            // Leaves have no entries: a tree that is a leaf has no tour, and
            // leaves live in blocks of their own, which have none at all.
            for &(n, _) in walk.iter().filter(|(n, _)| self.g.kind(*n).is_leaf()) {
                if self.g.tour.has_entries(n) {
                    return Err(format!("the leaf {n:?} is in a block with tour entries"));
                }
            }
            let expect: Vec<_> = walk.into_iter().filter(|(n, _)| !self.g.kind(*n).is_leaf()).collect();
            let got = if self.g.kind(t).is_leaf() {
                Vec::new()
            } else {
                self.g.tour.sequence(t)
            };
            if got != expect {
                return Err(format!("the tour of {t:?} does not mirror its tree: {got:?} vs {expect:?}"));
            }
        }
        if self.exit.vars.is_none() && reachable != self.g.live {
            return Err(format!("{} live nodes but {reachable} reachable", self.g.live));
        }
        Ok(())
    }

    /// Warnings for the stuck bodies of the current term.
    pub fn stuck_warnings(&self) -> Vec<Diagnostic> {
        let p = self.to_program();
        stuck::in_body(&p.body, &p.vars)
    }
}

/// What the next step does ([`Machine::peek`]).
#[derive(Clone, Debug)]
pub struct Next {
    /// The body it executes.
    pub body: NodeId,
    /// Where that body comes from.
    pub span: Span,
    /// The rule, or the error.
    pub what: NextKind,
}

/// The rule of the next step, or why it cannot execute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NextKind {
    /// It executes this rule.
    Rule(Rule),
    /// It fails with a runtime error of this kind.
    Error(crate::error::ErrorKind),
    /// The body's status is out of date (never expected; the step brings it
    /// up to date).
    Stale,
}

/// A place in the term: the child at `slot` of `parent`, or the whole term
/// when `parent` is [`NodeId::NONE`] ([`Machine::anchor`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Anchor {
    /// The parent node.
    pub parent: NodeId,
    /// The position among its children.
    pub slot: usize,
}

impl Stepper for Machine {
    /// A step takes microseconds: the clock every 1024 steps.
    const CLOCK_EVERY: u64 = 1024;

    fn steps(&self) -> u64 {
        self.counts.total()
    }

    fn live_nodes(&self) -> Option<usize> {
        Some(self.g.live)
    }

    fn pending(&mut self) -> bool {
        self.has_pending()
    }

    fn step_once(&mut self, on_step: &mut dyn FnMut(u64, Rule, Span)) -> Option<Result<Option<Atom>, RuntimeError>> {
        self.step_traced(on_step)
    }

    fn step_many(&mut self, budget: u64, on_step: &mut dyn FnMut(u64, Rule, Span), clock: &dyn Fn() -> bool) -> bool {
        self.fast_steps(budget, on_step, clock).is_some()
    }

    fn paused(&self) -> bool {
        self.counts.total() >= self.pause_at
    }
}

/// The machine and the terms it exchanges cross threads: the parallel
/// driver ([`par`]) reads the machine from every worker and sends terms.
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<Machine>();
    send_sync::<crate::term::Program>();
    send_sync::<crate::error::RuntimeError>();
};
