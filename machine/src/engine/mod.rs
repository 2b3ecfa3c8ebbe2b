//! The engine: the program as an arena of nodes with variables as
//! substitution slots, reduced from a worklist of pending bodies
//! (MACHINE-NOTES §7).
//!
//! - `store.rs`: nodes ([`store::NodeId`]), slots ([`store::SlotId`]),
//!   values ([`store::Val`]) and who owns what; `arena.rs`: the chunks
//!   they live in.
//! - `load.rs`: terms into the store. `readback.rs`: the store back as
//!   terms (results, failures, the views).
//! - `look.rs`: what a body would do now (the verdict, read through slots).
//! - `exec.rs`: the rules; `copy.rs`: instances of shared lambdas
//!   (`template.rs`: replayed from a recording while the lambda is not
//!   changed);
//!   `lift.rs`: closed lambdas inside a shared lambda lifted out before
//!   its first copy, so that its copies share them;
//!   `drop.rs`: freeing; `locals.rs`: the slots bound in place inside a
//!   lambda; `order.rs`: the worklist's order; `quick.rs`: integer
//!   expressions without atoms; `shared.rs`: whether a
//!   woken body may lie in a shared value; `cycles.rs`: recursive values
//!   that only their own name holds, freed after the step.
//!
//! A step pops the top pending body, executes it, and pushes the bodies it
//! made pending. β at the only occurrence of its lambda (holder count 1)
//! binds the lambda's slots in place and moves its body where the applying
//! body stood; a shared lambda is instantiated by a copy. A body that waits
//! (inactive, or stuck on a symbolic variable) is registered with the slot
//! it waits on and looked at again when that slot is bound.
//!
//! Invariants:
//! - A node has one owner ([`store::Owner`]); a value reaches several places
//!   only through a slot's occurrences, and a slot's `occs` counts them
//!   exactly.
//! - Every pending body is on the worklist, above every pending body that
//!   follows it in the reference's post-order.
//! - Nothing pending lies inside a value with more than one occurrence
//!   between steps: such a value is written into its occurrences
//!   (`order.rs`). A pending body inside a value with one occurrence runs
//!   where it is (`shared.rs` tells when a woken body can be left there).
//! - A node marked changed (something in it changed in place since it
//!   was made) has every node above it marked too; the template of a
//!   lambda not changed is what recording it now would make
//!   (`template.rs`).
//! - Between steps every live node is reachable from the root (recursive
//!   values only their own name holds are freed, `cycles.rs`).
//! - A body that is neither pending nor registered with a slot it waits
//!   on has the status `New`: not looked at since it was made or ran, or
//!   a lambda's body staged on the lambda's unbound staging parameter,
//!   which only a β of the lambda binds (and that β looks at the body it
//!   puts in place, `exec.rs`).

mod arena;
mod check;
mod copy;
mod cycles;
mod data;
mod drop;
mod exec;
mod lift;
mod load;
mod locals;
mod look;
mod order;
mod quick;
mod readback;
mod shared;
pub mod store;
mod template;

use rustc_hash::FxHashMap;

use crate::error::{ErrorKind, RuntimeError};
use crate::print::Printer;
use crate::run::{drive, Counts, Limits, Outcome, Report, Rule, Stepper};
use crate::span::Span;
use crate::term::{Atom, Program, VarId, Vars};
use crate::verdict::{stuck, verdict, Verdict};
use exec::Done;
use look::Look;
use store::{NodeId, Status, Store, Val};

/// The engine's state.
pub struct Engine {
    st: Store,
    /// The top-level body.
    root: NodeId,
    /// The front end's variables (names for readback).
    source: Vars,
    /// The source spans of bodies and lambdas, by site.
    spans: Vec<Span>,
    /// The site of each span loaded after the program (the lambdas of
    /// computed values, loaded at each evaluation), so that loading one
    /// again adds no site. The program's own bodies and lambdas, loaded
    /// once, get theirs without it (`None` while the program loads).
    sites: Option<FxHashMap<Span, u32>>,
    counts: Counts,
    /// Pending bodies with their generation; the next one on top.
    work: Vec<(NodeId, u32)>,
    gen: u32,
    /// The variables of the exit value, once `$exit` ran.
    exit_vars: Option<Vars>,
    /// The most nodes a term the engine reads back may have written out
    /// ([`Limits::max_nodes`], set by a report): `$exit` with a larger
    /// value reads nothing back and says so in `exit_too_large`.
    max_term: u64,
    /// The exit value `$exit` declined to read back (see `max_term`).
    exit_too_large: Option<crate::run::TooLarge>,
    /// A copy's map and bodies, kept between β-copies for their capacity.
    scratch: copy::Copy,
    /// Slots that reached a second occurrence (some may have fewer again:
    /// pruned when asked and as it grows, `shared.rs`).
    shared: Vec<store::SlotId>,
    /// `shared` is pruned when it reaches this length (`shared.rs`).
    prune_at: usize,
    /// The plan of the body settled last, `(body, generation, plan)`, so
    /// that the step running it next does not look again. Valid while
    /// nothing has changed what the plan read: a step binds slots before it
    /// settles bodies, and only values written in (`order.rs`) change
    /// fields of other bodies afterwards, which clears it; a step starts
    /// by taking it.
    ready: Option<(NodeId, u32, look::Plan)>,
    /// Slots of recursive values that may hold themselves alone, looked
    /// at after the step (`cycles.rs`).
    rec_notes: Vec<store::SlotId>,
    /// The drop stack, kept between drops for its capacity (`drop.rs`).
    drops: Vec<Val>,
    /// Scratch of `shared.rs`: the buffers of one question.
    survey: shared::Scratch,
    /// The templates of lambdas copied more than once (`template.rs`).
    templates: template::Templates,
    /// How the β steps got their bodies, for `--stats`.
    betas: Betas,
}

/// How the β steps got their bodies: the lambda bound in place, or a copy
/// replayed from its template, or a copy by a walk of the lambda.
#[derive(Clone, Copy, Debug, Default)]
struct Betas {
    /// β steps that bound a lambda used nowhere else, in place.
    in_place: u64,
    /// β steps that replayed the lambda's template.
    from_template: u64,
    /// β steps that copied the lambda by a walk of it.
    walked: u64,
}

impl Engine {
    /// An engine at `program`, a term another machine reached after the
    /// steps `counts` (the step numbers and counts go on from there), whose
    /// free variables `shared` binds: each to a closed value (which may
    /// hold the variables of later ones) that the places holding the
    /// variable share, as values bound to a variable with several
    /// occurrences are.
    pub fn continuing(program: Program, shared: Vec<(VarId, Atom)>, counts: Counts) -> Engine {
        let mut e = Engine::start(program, shared);
        e.counts = counts;
        e
    }

    /// An engine at the start of `program`.
    pub fn new(program: Program) -> Engine {
        Engine::start(program, Vec::new())
    }

    fn start(program: Program, shared: Vec<(VarId, Atom)>) -> Engine {
        let mut e = Engine {
            st: Store::default(),
            root: NodeId::NONE,
            source: Vars::default(),
            spans: Vec::new(),
            sites: None,
            counts: Counts::default(),
            work: Vec::new(),
            gen: 0,
            exit_vars: None,
            max_term: u64::MAX,
            exit_too_large: None,
            scratch: copy::Copy::default(),
            shared: Vec::new(),
            prune_at: 0,
            survey: shared::Scratch::default(),
            templates: template::Templates::default(),
            drops: Vec::new(),
            ready: None,
            rec_notes: Vec::new(),
            betas: Betas::default(),
        };
        let mut names = load::Names::Source(vec![u32::MAX; program.vars.len()]);
        let shared = e.load_shared(shared, &mut names);
        e.root = e.load_body(program.body, &mut names);
        e.sites = Some(FxHashMap::default());
        e.source = program.vars;
        // The bodies of shared values wait (none is pending: a value with
        // a pending body is not shared).
        for v in shared {
            for b in e.bodies_post_order(v) {
                let pending = e.settle(b);
                debug_assert!(!pending, "a shared value holds the pending body {b:?}");
            }
        }
        let bodies = e.bodies_post_order(e.root);
        let mut pending = Vec::new();
        for b in bodies {
            if e.settle(b) {
                pending.push(b);
            }
        }
        let root = e.root;
        e.schedule(root, &pending, true);
        e
    }

    /// The bodies of the tree at `root` in post-order.
    fn bodies_post_order(&self, root: NodeId) -> Vec<NodeId> {
        let mut out = Vec::new();
        let mut stack = vec![(root, false)];
        while let Some((n, done)) = stack.pop() {
            if done {
                if self.st.body(n).is_some() {
                    out.push(n);
                }
                continue;
            }
            stack.push((n, true));
            let mut kids = Vec::new();
            self.st.for_fields(n, |f| {
                if let Val::Node(c) = f {
                    kids.push(c);
                }
            });
            stack.extend(kids.into_iter().rev().map(|c| (c, false)));
        }
        out
    }

    fn site(&mut self, span: Span) -> u32 {
        if let Some(&s) = self.sites.as_ref().and_then(|m| m.get(&span)) {
            return s;
        }
        let s = self.spans.len() as u32;
        self.spans.push(span);
        if let Some(m) = &mut self.sites {
            m.insert(span, s);
        }
        s
    }

    fn next_gen(&mut self) -> u32 {
        self.gen = self.gen.wrapping_add(1);
        self.gen
    }

    /// Steps executed so far, by kind.
    pub fn counts(&self) -> Counts {
        self.counts
    }

    /// Live nodes.
    pub fn live_nodes(&self) -> usize {
        self.st.live
    }

    /// Most live nodes at once so far.
    pub fn peak_live_nodes(&self) -> usize {
        self.st.peak
    }

    /// Most live slots at once so far: the slot entries the store has
    /// made room for (freed slots are reused before it grows).
    pub fn peak_slots(&self) -> usize {
        self.st.slots.len()
    }

    /// The `--stats` line: live nodes now, the most at once, and the
    /// node and slot entries the store has made room for.
    pub fn stats_text(&self) -> String {
        let b = self.betas;
        format!(
            "engine: {} live nodes, at most {} at once, {} node and {} slot entries\n\
             lambdas: {} bound in place, {} copied from templates, {} copied by walks",
            self.st.live,
            self.st.peak,
            self.st.nodes.len(),
            self.st.slots.len(),
            b.in_place,
            b.from_template,
            b.walked
        )
    }

    /// The next pending body, stale entries dropped.
    fn next_pending(&mut self) -> Option<NodeId> {
        while let Some(&(b, gen)) = self.work.last() {
            if self.is_pending(b, gen) {
                return Some(b);
            }
            self.work.pop();
        }
        None
    }

    /// Executes the next ready body. `None`: nothing is pending.
    pub fn step(&mut self) -> Option<Result<Option<Atom>, RuntimeError>> {
        self.step_traced(&mut |_, _, _| {})
    }

    fn step_traced(&mut self, on_step: &mut dyn FnMut(u64, Rule, Span)) -> Option<Result<Option<Atom>, RuntimeError>> {
        loop {
            let b = self.next_pending()?;
            let site = self.st.body(b).map_or(0, |body| body.site);
            let look = match self.ready.take() {
                Some((r, gen, plan)) if r == b && self.work.last().is_some_and(|w| w.1 == gen) => {
                    debug_assert_eq!(
                        format!("{:?}", self.look(b)),
                        format!("{:?}", Look::Ready(plan.clone())),
                        "the plan settled for {b:?} went stale"
                    );
                    Look::Ready(plan)
                }
                _ => self.look(b),
            };
            match look {
                Look::Ready(plan) => {
                    self.work.pop();
                    if let Some(body) = self.st.body_mut(b) {
                        body.status = Status::New;
                    }
                    let span = self.spans[site as usize];
                    // What runs changes the body and the nodes above it.
                    self.touch(b);
                    let done = self.execute(b, plan);
                    if !self.rec_notes.is_empty() {
                        self.collect_recs();
                    }
                    let rule = match &done {
                        Done::Stepped(r) => *r,
                        Done::Exit(_) => Rule::Exit,
                    };
                    self.counts.count(rule);
                    on_step(self.counts.total(), rule, span);
                    return Some(Ok(match done {
                        Done::Exit(v) => Some(v),
                        Done::Stepped(_) => None,
                    }));
                }
                Look::Fail => return Some(Err(self.failure(b))),
                Look::Inactive | Look::Stuck(_) => {
                    // Pending bodies stay pending until they run.
                    debug_assert!(false, "a pending body turned {:?}", self.look(b));
                    self.work.pop();
                    self.settle(b);
                }
            }
        }
    }

    /// The runtime error of failing body `b`, worded by the verdict on the
    /// body read back.
    fn failure(&self, b: NodeId) -> RuntimeError {
        let mut names = readback::Names::new(&self.source);
        let body = self.read_body(b, &mut names);
        match verdict(&body, &mut names.vars, &[]) {
            Verdict::Error(e) => e,
            _ => RuntimeError::new(
                ErrorKind::Type,
                "internal error: the engine and the verdict disagree on this body".into(),
                body.span,
                None,
            ),
        }
    }

    /// The current term as a program.
    pub fn to_program(&self) -> Program {
        let mut names = readback::Names::new(&self.source);
        let body = self.read_body(self.root, &mut names);
        Program { body, vars: names.vars }
    }

    /// Runs until nothing is pending, `$exit`, an error or a limit.
    pub fn run(&mut self, limits: &Limits) -> Outcome {
        drive(self, limits, &mut |_, _, _| {})
    }

    /// Runs to the end and reports, printing the result canonically.
    pub fn report(&mut self, limits: &Limits) -> Report {
        self.report_traced(limits, &mut |_, _, _| {})
    }

    /// Like [`Engine::report`], calling `on_step` after every step.
    pub fn report_traced(&mut self, limits: &Limits, on_step: &mut dyn FnMut(u64, Rule, Span)) -> Report {
        let limit = limits.max_nodes.map_or(u64::MAX, |n| n as u64);
        self.max_term = limit;
        let outcome = drive(self, limits, on_step);
        let max_output = limits.max_output.unwrap_or(usize::MAX);
        let counts = self.counts;
        Report::of(outcome, counts, limits, |outcome| match outcome {
            Outcome::Exit(_) if self.exit_too_large.is_some() => (String::new(), Vec::new(), self.exit_too_large),
            Outcome::Exit(v) => {
                let vars = self.exit_vars.clone().unwrap_or_default();
                (
                    Printer::new(&vars).limited(max_output).atom_text(v),
                    stuck::in_value(v, &vars),
                    None,
                )
            }
            _ => {
                let size = if limit == u64::MAX {
                    0
                } else {
                    self.expanded_size(Val::Node(self.root))
                };
                let too_large = crate::run::TooLarge::over(crate::run::TooLarge::term_of(outcome), size, limit);
                if too_large.is_some() {
                    return (String::new(), Vec::new(), too_large);
                }
                let p = self.to_program();
                let text = Printer::new(&p.vars).limited(max_output).program_text(&p.body);
                (text, stuck::in_body(&p.body, &p.vars), None)
            }
        })
    }
}

impl Stepper for Engine {
    const CLOCK_EVERY: u64 = 1024;

    fn steps(&self) -> u64 {
        self.counts.total()
    }

    fn live_nodes(&self) -> Option<usize> {
        Some(self.st.live)
    }

    fn pending(&mut self) -> bool {
        self.next_pending().is_some()
    }

    fn step_once(&mut self, on_step: &mut dyn FnMut(u64, Rule, Span)) -> Option<Result<Option<Atom>, RuntimeError>> {
        self.step_traced(on_step)
    }
}
