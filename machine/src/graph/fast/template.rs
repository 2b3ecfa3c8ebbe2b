//! Templates: the code of a lambda compiled out of the graph once, to be run
//! many times with an environment instead of being copied at every call.
//!
//! A template names variables twice ([`Place`]): by the lambda that binds
//! them, counting lambdas out from the current one (what the analysis and
//! the materializer see: the term's own nesting), and by where they live at
//! run time, a slot of the frame so many frames out. A lambda's frame holds
//! its staging parameter, then its parameters, then (for a recursive
//! lambda) its own name, then the slots of the lambdas *inlined* in it: a
//! literal lambda applied where it stands (`"e" (x) {..}`, `(x) {..} a`) and
//! the literal branches of an `if` are run in the frame of the body that
//! applies them ([`CmdTemplate::Let`], [`CmdTemplate::If`]), each with slots of its own,
//! so a core-time loop makes no frame but its calls'. Each body of a frame
//! runs at most once per frame (a body is replaced by its step's result),
//! so each slot is written at most once. Everything the template does not
//! bind is a graph variable (symbolic, or the name of a recursive value of
//! the graph) or a shared value of the graph, neither of which a fast run
//! changes.
//!
//! Each body carries what the fast run needs to know, without looking, about
//! the bodies nested in it: which could be pending once the body runs
//! ([`BodyTemplate::watch`]). A lambda applied where it stands is inlined only if
//! no body in it may be active while it is not applied: one the run may
//! have to reduce under gets a frame of its own. Each lambda also lists the
//! slots around it that it reads ([`LamTemplate::caps`]): what its closures
//! reach, which the materializer builds before them.

use std::rc::Rc;
use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::super::lit::Lit;
use super::super::node::{GVar, Graph, Kind, NodeCmd, NodeId, VarState};
use super::quick::QuickExpr;
use crate::expr::Expr;
use crate::run::Rule;
use crate::span::Span;
use crate::term::{Builtin, SExp, Sugar, VarId};

/// The most graph nodes one fast run compiles (the entry body and the
/// shared lambdas it calls): past it the run is not tried, so a run whose
/// values are large costs a bounded amount before the machine steps on.
pub(super) const MAX_COMPILED: usize = 4096;

/// The deepest nesting of graph nodes compiled (the compiler recurses).
const MAX_NEST: u32 = 200;

/// A lambda (or the scope of a `fix`, or the entry body) as a template.
pub(super) struct LamTemplate {
    /// The source variables of the frame's slots, for the binders a
    /// materialized copy makes: staging parameter, parameters, own name.
    pub origins: Box<[VarId]>,
    /// The number of parameters.
    pub k: usize,
    /// Where an inlined lambda's slots (its parameters') start in the frame
    /// of the body that applies it (`None`: the lambda has a frame of its
    /// own).
    pub inline_at: Option<u32>,
    /// The slots of its frame, with those of the lambdas inlined in it (for
    /// an inlined lambda: 0, its frame being its applier's).
    pub nslots: u32,
    /// The rest parameter's position among the parameters.
    pub rest: Option<usize>,
    /// The body, run in a frame of `nslots` slots.
    pub body: BodyTemplate,
    /// The lambda's source.
    pub span: Span,
    /// The bodies inside this lambda whose staging expressions might be
    /// true, depending on the frames outside it ([`Watch`]).
    pub watch: Watch,
    /// The slots of the frames around the place it is made in that it (or
    /// a lambda in it) reads: how many frames out from that place, which
    /// slot. A closure of it reaches the values there and no others
    /// ([`super::val::Value::closure`]).
    pub caps: Box<[(u32, u32)]>,
}

/// The bodies nested in a place that might turn pending when the frames
/// around that place get values: each with how many lambdas lie between the
/// place and the body (a lambda's own body: 1), how many of them have frames
/// of their own (not inlined), and its staging expression.
/// A body whose staging expression is false however the frames outside hold
/// (its own lambda is not invoked: `StageTemplate::when_symbolic`) is left out, so
/// a loop's bodies leave nothing to watch. `None`: more than [`MAX_WATCH`],
/// and the place counts as one after which another body may be pending.
pub(super) type Watch = Option<Rc<[(u32, u32, Rc<StageTemplate>)]>>;

/// The most bodies a place watches.
const MAX_WATCH: usize = 16;

/// Gathers watches.
struct Watching(Option<Vec<(u32, u32, Rc<StageTemplate>)>>);

impl Watching {
    fn new() -> Watching {
        Watching(Some(Vec::new()))
    }

    /// A body `d` lambdas in, `pd` of them with frames of their own.
    fn add(&mut self, d: u32, pd: u32, s: &Rc<StageTemplate>) {
        if s.when_symbolic(d) == Some(false) {
            return;
        }
        if let Some(v) = &mut self.0 {
            if v.len() >= MAX_WATCH {
                self.0 = None;
            } else {
                v.push((d, pd, s.clone()));
            }
        }
    }

    /// The watch of a place `extra` lambdas further in, `pextra` of them
    /// with frames of their own.
    fn add_all(&mut self, extra: u32, pextra: u32, w: &Watch) {
        match w {
            None => self.0 = None,
            Some(w) => w.iter().for_each(|(d, pd, s)| self.add(d + extra, pd + pextra, s)),
        }
    }

    fn done(self) -> Watch {
        self.0.map(Rc::from)
    }
}

/// A body of a template.
pub(super) struct BodyTemplate {
    /// Its staging expression.
    pub stage: Rc<StageTemplate>,
    /// What it does: an application, a `let` or `if` inlined in the
    /// frame, or a `fix`.
    pub cmd: CmdTemplate,
    /// Its source.
    pub span: Span,
    /// The bodies nested in it (in the lambdas of its head and arguments,
    /// a `fix`'s lambda and scope) that might be pending once it runs,
    /// depending on its frame. A fast run goes on after making it the
    /// current body only if none is (`Run::quiet`): it is then the only
    /// candidate for the next step.
    pub watch: Watch,
}

/// The command of a template body.
pub(super) enum CmdTemplate {
    /// `head args..`.
    App {
        head: AtomTemplate,
        args: Box<[ArgTemplate]>,
        sugar: Sugar,
        /// Whether every argument is an atom that makes no closure (so a
        /// loop's call can rewrite the frame it is in: `Run::loop_call`).
        plain: bool,
    },
    /// A literal lambda applied where it stands to as many arguments as it
    /// has parameters, none a splice and none making a closure: a β (or an
    /// expression's, with one expression argument) that fills the lambda's
    /// slots in this frame. A closure over the frame in its own slot would
    /// be a cycle of counts, never freed.
    Let {
        lam: Rc<LamTemplate>,
        args: Box<[AtomTemplate]>,
        sugar: Sugar,
        /// The step's kind: an expression's (one expression argument) or β.
        rule: Rule,
    },
    /// `if cond () {..} () {..}`: the branch taken is run in this frame.
    If {
        cond: AtomTemplate,
        yes: Rc<LamTemplate>,
        no: Rc<LamTemplate>,
        sugar: Sugar,
    },
    /// `fix`: the recursive lambda (its last slot the name) and the scope
    /// (a frame of the staging parameter and the name as the scope sees it).
    /// Its body watches what [`fix_watch`] says.
    Fix { lam: Rc<LamTemplate>, scope: Rc<LamTemplate> },
}

/// An argument.
pub(super) enum ArgTemplate {
    Atom(AtomTemplate),
    Splice(AtomTemplate),
}

/// Where a variable bound by a template lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Place {
    /// How many lambdas out its binder is (0: the current one's).
    pub up: u32,
    /// Which binder of that lambda it is (staging parameter, parameters,
    /// own name).
    pub ix: u32,
    /// How many frames out it lives at run time.
    pub pup: u32,
    /// Its slot in that frame ([`NO_SLOT`] for a staging parameter,
    /// [`INLINE_SPARAM`] for that of an inlined lambda).
    pub pix: u32,
    /// Whether this is the only place its variable is read. Read from the
    /// frame that binds it, the slot is dead once read; read from a frame
    /// further in, it is dead if nothing else holds the frames in between
    /// (no other invocation of the lambdas between can read it again). A
    /// residual read from a dead slot may be applied in place
    /// (`last_read` in `fast/mod.rs`).
    pub once: bool,
}

/// The slot of a staging parameter: none. A fast run applies every lambda
/// with `always` as its staging argument, so a staging parameter needs no
/// slot: read where it is bound (its lambda applied), it is `always`; its
/// lambda not applied yet, it is read only by the analysis, as symbolic,
/// and by the materializer, as a fresh binder.
pub(super) const NO_SLOT: u32 = u32::MAX;

/// The slot of the staging parameter of an inlined lambda: none, and
/// always `always` (an inlined lambda is applied where it runs), where a
/// lambda with a frame of its own may be reduced under, its staging
/// parameter then symbolic ([`super::val::Frame::sparam`]).
pub(super) const INLINE_SPARAM: u32 = u32::MAX - 1;

/// Whether a slot number is that of a staging parameter (no slot).
pub(super) fn is_sparam(pix: u32) -> bool {
    pix >= INLINE_SPARAM
}

/// An atom of a template.
pub(super) enum AtomTemplate {
    /// A slot of a frame.
    Var(Place),
    /// A staging parameter (its slot [`NO_SLOT`]): `always` at run time.
    SParam(Place),
    /// A symbolic graph variable.
    Sym(GVar),
    /// The name of a recursive value of the graph, inside its lambda.
    RecName(GVar),
    /// A literal.
    Lit(Lit),
    /// A shared value of the graph (a lambda, recursive value, record or map).
    Shared(NodeId),
    /// A lambda.
    Lam(Rc<LamTemplate>),
    /// A recursive value.
    Rec(Rc<LamTemplate>),
    /// A tuple literal, its elements (and splices) evaluated in order.
    Tuple(Box<[ArgTemplate]>),
    /// An expression and its operands, placeholder `k` for operand `k`,
    /// and its quick form if it has one (reading the operands directly).
    Expr(Arc<Expr>, Box<[AtomTemplate]>, Option<Box<QuickExpr>>),
}

/// A staging expression of a template.
pub(super) enum StageTemplate {
    Const(bool),
    /// A slot.
    Var(Place),
    /// A staging parameter: true at run time once its lambda is applied,
    /// which it is wherever it is read ([`NO_SLOT`]).
    SParam(Place),
    /// The slot of a recursive lambda's own name: its value is known only
    /// once the `fix` ran, so the analysis counts it as unknown.
    SelfVar(Place),
    /// A graph variable, with its truth (a fast run binds none).
    Graph(GVar, bool),
    Not(Box<StageTemplate>),
    And(Box<StageTemplate>, Box<StageTemplate>),
    Or(Box<StageTemplate>, Box<StageTemplate>),
}

impl StageTemplate {
    /// Its value when the `k` innermost frames are symbolic and nothing is
    /// known further out: `Some(false)` only if it is false for sure.
    fn when_symbolic(&self, k: u32) -> Option<bool> {
        match self {
            StageTemplate::Const(b) | StageTemplate::Graph(_, b) => Some(*b),
            // Outside the `k` frames it is unknown here: a watch made here
            // is looked at again further out, where it may be symbolic.
            StageTemplate::Var(p) | StageTemplate::SParam(p) => (p.up < k).then_some(false),
            StageTemplate::SelfVar(..) => None,
            StageTemplate::Not(x) => x.when_symbolic(k).map(|b| !b),
            StageTemplate::And(a, b) => match (a.when_symbolic(k), b.when_symbolic(k)) {
                (Some(false), _) | (_, Some(false)) => Some(false),
                (Some(true), Some(true)) => Some(true),
                _ => None,
            },
            StageTemplate::Or(a, b) => match (a.when_symbolic(k), b.when_symbolic(k)) {
                (Some(true), _) | (_, Some(true)) => Some(true),
                (Some(false), Some(false)) => Some(false),
                _ => None,
            },
        }
    }
}

/// Whether evaluating `a` may make a closure over the current frame (a
/// literal lambda or recursive value, in a tuple or an operand too). A
/// variable cannot hold one: a frame's parameters are bound before it
/// exists, the frames around it no longer change, and its inlined slots
/// are never given such values (see [`CmdTemplate::Let`]), so frames hold no
/// cycles.
fn makes_closure(a: &AtomTemplate) -> bool {
    match a {
        AtomTemplate::Lam(_) | AtomTemplate::Rec(_) => true,
        AtomTemplate::Tuple(xs) => xs.iter().any(|(ArgTemplate::Atom(x) | ArgTemplate::Splice(x))| makes_closure(x)),
        AtomTemplate::Expr(_, kids, _) => kids.iter().any(makes_closure),
        AtomTemplate::Var(_)
        | AtomTemplate::SParam(_)
        | AtomTemplate::Sym(_)
        | AtomTemplate::RecName(_)
        | AtomTemplate::Lit(_)
        | AtomTemplate::Shared(_) => false,
    }
}

/// The watch of a `fix` body of the recursive lambda `lam` and the scope
/// `scope`: the bodies nested in it that may be pending while it stands.
/// Its name is symbolic until it executes (LANGUAGE.md §5), so a body
/// whose head is the name is stuck, not pending, whatever its arguments:
/// a lambda standing as an atom of the scope's body whose body calls the
/// name and nests nothing that may be active while the lambda is not
/// applied (a staged program's `$exit (x)[pt] { @always: run .. }`) is
/// left out. Once the `fix` has executed, the scope's body watches it.
fn fix_watch(lam: &LamTemplate, scope: &LamTemplate) -> Watch {
    let CmdTemplate::App { head, args, .. } = &scope.body.cmd else {
        return union(&lam.watch, &scope.watch);
    };
    // The scope's name is its binder 1 (0 is its staging parameter); seen
    // from the body of a lambda of the scope's body, one lambda out.
    // Its watch holds its body's stage (one lambda in) and the bodies
    // nested in that body that may be active while it is not applied
    // (further in): there must be none of the latter.
    let stuck_on_name = |l: &LamTemplate| {
        matches!(&l.body.cmd, CmdTemplate::App { head: AtomTemplate::Var(p), .. } if p.up == 1 && p.ix == 1)
            && matches!(&l.watch, Some(w) if w.iter().all(|&(d, _, _)| d == 1))
    };
    let mut body = Watching::new();
    let atoms = std::iter::once(head).chain(args.iter().map(|(ArgTemplate::Atom(x) | ArgTemplate::Splice(x))| x));
    for x in atoms {
        match x {
            AtomTemplate::Lam(l) if stuck_on_name(l) => {}
            x => atom_watch(x, &mut body),
        }
    }
    // As `frame` gathers a lambda's watch: its body's stage, then what its
    // body watches, one lambda (with a frame of its own) further in.
    let mut w = Watching::new();
    w.add_all(0, 0, &lam.watch);
    w.add(1, 1, &scope.body.stage);
    w.add_all(1, 1, &body.done());
    w.done()
}

/// The watch of a place that holds both `a`'s and `b`'s.
fn union(a: &Watch, b: &Watch) -> Watch {
    let mut w = Watching::new();
    w.add_all(0, 0, a);
    w.add_all(0, 0, b);
    w.done()
}

/// Gathers the watches of the lambdas of an atom.
fn atom_watch(a: &AtomTemplate, w: &mut Watching) {
    match a {
        AtomTemplate::Lam(l) | AtomTemplate::Rec(l) => w.add_all(0, 0, &l.watch),
        AtomTemplate::Tuple(xs) => xs.iter().for_each(|x| arg_watch(x, w)),
        AtomTemplate::Expr(_, xs, _) => xs.iter().for_each(|x| atom_watch(x, w)),
        _ => {}
    }
}

fn arg_watch(a: &ArgTemplate, w: &mut Watching) {
    match a {
        ArgTemplate::Atom(x) | ArgTemplate::Splice(x) => atom_watch(x, w),
    }
}

/// A binder in scope while compiling.
#[derive(Clone, Copy)]
struct Binder {
    /// The level of its lambda (counting inlined ones) and its index there.
    level: u32,
    ix: u32,
    /// The level of its frame and its slot there.
    plevel: u32,
    pix: u32,
    /// Whether it is a recursive lambda's own name.
    is_self: bool,
    /// Whether it has a single occurrence.
    single: bool,
}

/// A frame open while compiling ([`Compiler::frames`]).
#[derive(Default)]
struct OpenFrame {
    /// The slots taken so far.
    top: u32,
    /// The slots of frames further out that its lambda reads (as
    /// [`LamTemplate::caps`]).
    caps: Vec<(u32, u32)>,
}

/// Compiles graph nodes into templates.
pub(super) struct Compiler<'g> {
    g: &'g Graph,
    /// The binders in scope, by graph variable.
    scope: FxHashMap<GVar, Binder>,
    /// Lambdas open around the node being compiled, inlined ones included.
    level: u32,
    /// Frames open around the node being compiled.
    plevel: u32,
    /// The frames open around the node being compiled, innermost last.
    frames: Vec<OpenFrame>,
    /// Nesting depth of the recursion.
    nest: u32,
    /// Nodes compiled so far (bounded by [`Compiler::limit`]).
    pub used: usize,
    /// The most nodes compiled: [`MAX_COMPILED`], or more for a lambda a
    /// run calls when its steps have paid for it.
    pub limit: usize,
    /// Shared values met that are not known to be closed (not classified
    /// yet, or classified open, which may have grown stale): the caller
    /// classifies them afresh (`Machine::reclassify`) and compiles again,
    /// so that closed ones stay shared instead of being built anew at
    /// every place that holds them.
    pub unknown: Vec<NodeId>,
    /// Whether to note those (else they are compiled with the template).
    pub note_unknown: bool,
    /// Lambdas applied where they stand that were found to need a frame of
    /// their own (a body in them may be active while they are not
    /// applied): a chain of them compiles in quadratic time, not in
    /// exponential time (each would be tried inlined again whenever the
    /// lambdas around it are compiled again).
    framed: rustc_hash::FxHashSet<NodeId>,
}

impl<'g> Compiler<'g> {
    pub(super) fn new(g: &'g Graph, used: usize) -> Compiler<'g> {
        Compiler {
            g,
            scope: FxHashMap::default(),
            level: 0,
            plevel: 0,
            frames: Vec::new(),
            nest: 0,
            used,
            limit: MAX_COMPILED,
            unknown: Vec::new(),
            note_unknown: false,
            framed: Default::default(),
        }
    }

    fn count(&mut self) -> Option<()> {
        self.used += 1;
        (self.used <= self.limit).then_some(())
    }

    /// The entry body (the ready body a fast run starts from) as the body of
    /// a lambda without binders (its frame holds only the slots of the
    /// lambdas inlined in it).
    pub(super) fn entry(&mut self, b: NodeId) -> Option<Rc<LamTemplate>> {
        self.level += 1;
        self.plevel += 1;
        self.frames.push(OpenFrame::default());
        let body = self.body(b);
        let nslots = self.frames.pop().map_or(0, |f| f.top);
        self.plevel -= 1;
        self.level -= 1;
        let body = body?;
        Some(Rc::new(LamTemplate {
            origins: Box::new([]),
            k: 0,
            rest: None,
            inline_at: None,
            nslots,
            watch: None,
            caps: Box::new([]),
            span: body.span,
            body,
        }))
    }

    /// A lambda node (with `name`: the lambda of a recursive value, whose
    /// name takes the last slot; `inline`: run in its applier's frame).
    pub(super) fn lambda(&mut self, n: NodeId, name: Option<GVar>, inline: bool) -> Option<Rc<LamTemplate>> {
        self.count()?;
        let Kind::Lambda(l) = self.g.kind(n) else { return None };
        let mut binders: Vec<GVar> = Vec::with_capacity(l.params.len() + 2);
        binders.push(l.sparam);
        binders.extend(l.params.iter().map(|p| p.var));
        binders.extend(name);
        let rest = l.params.iter().position(|p| p.rest);
        let k = l.params.len();
        self.frame(&binders, name.is_some(), l.body, k, rest, l.span, inline)
    }

    /// Whether the lambda node `n` can be inlined where it is applied to
    /// `args` (as many as its parameters, no rest parameter, no splice).
    fn inlines(&self, n: NodeId, args: &[NodeId]) -> bool {
        match self.g.kind(n) {
            Kind::Lambda(l) => {
                l.params.len() == args.len()
                    && l.params.iter().all(|p| !p.rest)
                    && args.iter().all(|&a| !matches!(self.g.kind(a), Kind::Splice(_)))
            }
            _ => false,
        }
    }

    /// A frame of `binders` around the body `body` (inlined: slots of the
    /// current frame instead).
    #[allow(clippy::too_many_arguments)]
    fn frame(
        &mut self,
        binders: &[GVar],
        rec: bool,
        body: NodeId,
        k: usize,
        rest: Option<usize>,
        span: Span,
        inline: bool,
    ) -> Option<Rc<LamTemplate>> {
        // Slots for all but the staging parameter.
        let n = u32::try_from(binders.len()).ok()?.checked_sub(1)?;
        let base = if inline {
            let top = &mut self.frames.last_mut()?.top;
            let base = *top;
            *top = top.checked_add(n)?;
            base
        } else {
            self.plevel += 1;
            self.frames.push(OpenFrame { top: n, caps: Vec::new() });
            0
        };
        self.level += 1;
        let mut old = Vec::with_capacity(binders.len());
        for (i, &v) in (0u32..).zip(binders) {
            let b = Binder {
                level: self.level,
                ix: i,
                plevel: self.plevel,
                pix: match (i, inline) {
                    (0, false) => NO_SLOT,
                    (0, true) => INLINE_SPARAM,
                    _ => base + i - 1,
                },
                is_self: rec && i == n,
                single: self.single(v),
            };
            old.push((v, self.scope.insert(v, b)));
        }
        let b = self.body(body);
        for (v, o) in old.into_iter().rev() {
            match o {
                Some(x) => self.scope.insert(v, x),
                None => self.scope.remove(&v),
            };
        }
        self.level -= 1;
        let (nslots, caps) = if inline {
            (0, Vec::new())
        } else {
            self.plevel -= 1;
            self.frames.pop().map_or((0, Vec::new()), |f| (f.top, f.caps))
        };
        let body = b?;
        let mut w = Watching::new();
        let own = u32::from(!inline);
        w.add(1, own, &body.stage);
        w.add_all(1, own, &body.watch);
        Some(Rc::new(LamTemplate {
            origins: binders.iter().map(|&v| self.g.var(v).origin).collect(),
            k,
            rest,
            inline_at: inline.then_some(base),
            nslots,
            body,
            span,
            watch: w.done(),
            caps: caps.into(),
        }))
    }

    /// Notes that the lambdas of the frames opened since `b`'s read its
    /// slot ([`LamTemplate::caps`]).
    fn capture(&mut self, b: Binder) {
        if is_sparam(b.pix) {
            return;
        }
        for k in b.plevel + 1..=self.plevel {
            if let Some(f) = self.frames.get_mut(k as usize - 1) {
                let at = (k - 1 - b.plevel, b.pix);
                if !f.caps.contains(&at) {
                    f.caps.push(at);
                }
            }
        }
    }

    /// The place of a binder in scope, seen from here.
    fn place(&self, b: Binder) -> Place {
        let pup = self.plevel - b.plevel;
        Place {
            up: self.level - b.level,
            ix: b.ix,
            pup,
            pix: b.pix,
            once: b.single,
        }
    }

    /// Whether the graph variable `v` occurs once.
    fn single(&self, v: GVar) -> bool {
        let var = self.g.var(v);
        let mut live = var
            .occs
            .as_slice()
            .iter()
            .filter(|&&n| matches!(self.g.kind(n), Kind::Ref(x) if *x == v));
        live.next().is_some() && live.next().is_none()
    }

    fn stage(&self, s: &SExp) -> StageTemplate {
        match s {
            SExp::Const(b) => StageTemplate::Const(*b),
            SExp::Var(v) => match self.scope.get(v) {
                Some(&b) if is_sparam(b.pix) => StageTemplate::SParam(self.place(b)),
                Some(&b) if !b.is_self => StageTemplate::Var(self.place(b)),
                Some(&b) => StageTemplate::SelfVar(self.place(b)),
                None => StageTemplate::Graph(*v, matches!(self.g.var(*v).bound(), VarState::SelfRec(_))),
            },
            SExp::Not(x) => StageTemplate::Not(Box::new(self.stage(x))),
            SExp::And(a, b) => StageTemplate::And(Box::new(self.stage(a)), Box::new(self.stage(b))),
            SExp::Or(a, b) => StageTemplate::Or(Box::new(self.stage(a)), Box::new(self.stage(b))),
        }
    }

    /// Runs `f` on a node one level deeper: the node counted, and `None`
    /// past the bounds.
    fn deeper<T>(&mut self, f: impl FnOnce(&mut Self) -> Option<T>) -> Option<T> {
        self.count()?;
        if self.nest >= MAX_NEST {
            return None;
        }
        self.nest += 1;
        let r = f(self);
        self.nest -= 1;
        r
    }

    fn body(&mut self, n: NodeId) -> Option<BodyTemplate> {
        self.deeper(|c| c.body_inner(n))
    }

    fn body_inner(&mut self, n: NodeId) -> Option<BodyTemplate> {
        let b = self.g.body(n)?;
        let stage = Rc::new(self.stage(&b.stage));
        let span = b.span;
        let (cmd, watch) = match &b.cmd {
            NodeCmd::App { head, args, sugar } if self.inlines(*head, args) => {
                let mut xs = Vec::with_capacity(args.len());
                for &a in args {
                    xs.push(self.atom(a)?);
                }
                let mut w = Watching::new();
                xs.iter().for_each(|x| atom_watch(x, &mut w));
                let sugar = *sugar;
                if xs.iter().any(makes_closure) {
                    // Not inlined: its slots would hold a closure over
                    // their own frame, a cycle of counts.
                    let head = self.atom(*head)?;
                    atom_watch(&head, &mut w);
                    let args = xs.into_iter().map(ArgTemplate::Atom).collect();
                    (
                        CmdTemplate::App {
                            head,
                            args,
                            sugar,
                            plain: false,
                        },
                        w.done(),
                    )
                } else {
                    let top = self.frames.last().map(|f| f.top);
                    let inlined = if self.framed.contains(head) {
                        None
                    } else {
                        let lam = self.deeper(|c| c.lambda(*head, None, true))?;
                        if matches!(&lam.watch, Some(v) if v.is_empty()) {
                            Some(lam)
                        } else {
                            // Known from now on: compiling the lambdas
                            // around it again does not try it inlined.
                            self.framed.insert(*head);
                            None
                        }
                    };
                    let Some(lam) = inlined else {
                        // A body in it may be active while it is not
                        // applied (its applier blocked): a lambda with a
                        // frame of its own, which a run can reduce under.
                        if let (Some(f), Some(top)) = (self.frames.last_mut(), top) {
                            f.top = top;
                        }
                        let head = self.atom(*head)?;
                        atom_watch(&head, &mut w);
                        let args = xs.into_iter().map(ArgTemplate::Atom).collect();
                        return Some(BodyTemplate {
                            stage,
                            cmd: CmdTemplate::App {
                                head,
                                args,
                                sugar,
                                plain: true,
                            },
                            span,
                            watch: w.done(),
                        });
                    };
                    w.add_all(0, 0, &lam.watch);
                    (
                        CmdTemplate::Let {
                            lam,
                            rule: if matches!(&xs[..], [AtomTemplate::Expr(..)]) {
                                Rule::Expr
                            } else {
                                Rule::Beta
                            },
                            args: xs.into(),
                            sugar,
                        },
                        w.done(),
                    )
                }
            }
            NodeCmd::App { head, args, sugar }
                if matches!(self.g.kind(*head), Kind::Lit(Lit::Builtin(Builtin::If)))
                    && matches!(&args[..], [_, y, n] if self.inlines(*y, &[]) && self.inlines(*n, &[])) =>
            {
                let cond = self.atom(args[0])?;
                let yes = self.deeper(|c| c.lambda(args[1], None, true))?;
                let no = self.deeper(|c| c.lambda(args[2], None, true))?;
                let mut w = Watching::new();
                atom_watch(&cond, &mut w);
                w.add_all(0, 0, &yes.watch);
                w.add_all(0, 0, &no.watch);
                let sugar = *sugar;
                (CmdTemplate::If { cond, yes, no, sugar }, w.done())
            }
            NodeCmd::App { head, args, sugar } => {
                let head = self.atom(*head)?;
                let mut xs = Vec::with_capacity(args.len());
                for &a in args {
                    xs.push(self.arg(a)?);
                }
                let mut w = Watching::new();
                atom_watch(&head, &mut w);
                xs.iter().for_each(|x| arg_watch(x, &mut w));
                let plain = xs.iter().all(|x| matches!(x, ArgTemplate::Atom(a) if !makes_closure(a)));
                (
                    CmdTemplate::App {
                        head,
                        args: xs.into(),
                        sugar: *sugar,
                        plain,
                    },
                    w.done(),
                )
            }
            NodeCmd::Fix {
                sparam,
                name_in,
                name_out,
                lam,
                body,
            } => {
                let (sparam, name_in, name_out, lam, body) = (*sparam, *name_in, *name_out, *lam, *body);
                // Bodies stuck on the name inside its lambda turn pending
                // when it is bound: that lambda is then no value a run can
                // hold (shared values hold nothing pending). The graph takes it.
                if !self.g.var(name_in).waiters.as_slice().is_empty() {
                    return None;
                }
                let lam = self.lambda(lam, Some(name_in), false)?;
                let scope = self.frame(&[sparam, name_out], false, body, 1, None, span, false)?;
                let watch = fix_watch(&lam, &scope);
                (CmdTemplate::Fix { lam, scope }, watch)
            }
        };
        Some(BodyTemplate { stage, cmd, span, watch })
    }

    fn arg(&mut self, a: NodeId) -> Option<ArgTemplate> {
        match self.g.kind(a) {
            Kind::Splice(c) => {
                let c = *c;
                self.count()?;
                Some(ArgTemplate::Splice(self.atom(c)?))
            }
            _ => Some(ArgTemplate::Atom(self.atom(a)?)),
        }
    }

    fn atom(&mut self, n: NodeId) -> Option<AtomTemplate> {
        self.deeper(|c| c.atom_inner(n))
    }

    fn atom_inner(&mut self, n: NodeId) -> Option<AtomTemplate> {
        Some(match self.g.kind(n) {
            Kind::Ref(v) => match self.scope.get(v) {
                Some(&b) if is_sparam(b.pix) => AtomTemplate::SParam(self.place(b)),
                Some(&b) => {
                    self.capture(b);
                    AtomTemplate::Var(self.place(b))
                }
                None => match self.g.var(*v).bound() {
                    VarState::Symbolic => AtomTemplate::Sym(*v),
                    VarState::SelfRec(_) => AtomTemplate::RecName(*v),
                    VarState::Dead => return None,
                },
            },
            Kind::Lit(l) => AtomTemplate::Lit(l.clone()),
            Kind::Share(t) => {
                let t = *t;
                match self.g.kind(t) {
                    // A value known to be closed stays shared. One that may
                    // mention a binder of the template is compiled with it:
                    // the run's end gives the template fresh binders, and
                    // the value must mention those. A tuple is compiled
                    // anyway (splices take it apart); its big elements are
                    // shared values of their own.
                    Kind::Lambda(_) | Kind::Rec { .. } | Kind::Record(_) | Kind::Map(_) if self.g.nodes[t.ix()].closed.is_closed() => {
                        AtomTemplate::Shared(t)
                    }
                    // A closed tuple (a list's cell, holding the next as a
                    // shared value) stands as itself: a run reads its cells
                    // from the graph as it takes them apart.
                    Kind::Tuple(_) if self.g.nodes[t.ix()].closed.is_closed() => AtomTemplate::Shared(t),
                    Kind::Lambda(_) | Kind::Rec { .. } | Kind::Tuple(_)
                        if self.note_unknown && !self.g.nodes[t.ix()].closed.is_closed() =>
                    {
                        // This compile is done again once `t` is classified
                        // afresh.
                        self.unknown.push(t);
                        AtomTemplate::Shared(t)
                    }
                    Kind::Lambda(_) | Kind::Rec { .. } | Kind::Tuple(_) => self.atom(t)?,
                    _ => return None,
                }
            }
            Kind::Lambda(_) => AtomTemplate::Lam(self.lambda(n, None, false)?),
            Kind::Rec { name, lam } => {
                let (name, lam) = (*name, *lam);
                AtomTemplate::Rec(self.lambda(lam, Some(name), false)?)
            }
            Kind::Tuple(xs) => {
                let mut out = Vec::with_capacity(xs.len());
                for &x in xs {
                    out.push(self.arg(x)?);
                }
                AtomTemplate::Tuple(out.into())
            }
            Kind::Expr(e, kids) => {
                let e = e.clone();
                let mut out = Vec::with_capacity(kids.len());
                for &c in kids.iter() {
                    out.push(self.atom(c)?);
                }
                let q = QuickExpr::of(&e).and_then(|q| q.resolve(&out)).map(Box::new);
                AtomTemplate::Expr(e, out.into(), q)
            }
            // Records and maps owned by the body, bodies, splices out of
            // place, free slots: not for a fast run.
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_place_watches_only_the_bodies_that_might_turn_pending() {
        let watched = |d: u32, s: StageTemplate| {
            let mut w = Watching::new();
            w.add(d, d, &Rc::new(s));
            w.done().map(|w| w.len())
        };
        let v = |up: u32, ix: u32| Place {
            up,
            ix,
            pup: up,
            pix: ix,
            once: false,
        };
        // Natural staging on the body's own lambda, one frame in: never.
        assert_eq!(watched(1, StageTemplate::SParam(v(0, 0))), Some(0));
        // On the staging parameter of a lambda around the place: maybe (the
        // place may be inside a lambda not applied yet).
        assert_eq!(watched(1, StageTemplate::SParam(v(1, 0))), Some(1));
        let not_both = StageTemplate::Not(Box::new(StageTemplate::And(
            Box::new(StageTemplate::SParam(v(2, 0))),
            Box::new(StageTemplate::SParam(v(1, 0))),
        )));
        assert_eq!(watched(1, not_both), Some(1));
        // A variable two frames out from a body one frame in: maybe.
        assert_eq!(watched(1, StageTemplate::Var(v(2, 1))), Some(1));
        assert_eq!(watched(3, StageTemplate::Var(v(2, 1))), Some(0));
        // `always`, `!x`, and a recursive name: maybe; `never`: never.
        assert_eq!(watched(1, StageTemplate::Const(true)), Some(1));
        assert_eq!(watched(1, StageTemplate::Not(Box::new(StageTemplate::Var(v(0, 0))))), Some(1));
        assert_eq!(watched(5, StageTemplate::SelfVar(v(0, 2))), Some(1));
        assert_eq!(watched(0, StageTemplate::Const(false)), Some(0));
        // `a & b` is false as soon as either is; `a | b` needs both.
        let and = StageTemplate::And(Box::new(StageTemplate::Var(v(3, 0))), Box::new(StageTemplate::Var(v(1, 0))));
        assert_eq!(watched(2, and), Some(0));
        let or = StageTemplate::Or(Box::new(StageTemplate::Var(v(3, 0))), Box::new(StageTemplate::Var(v(1, 0))));
        assert_eq!(watched(2, or), Some(1));
        // Past the bound, the place is not watched at all.
        let mut w = Watching::new();
        for _ in 0..=MAX_WATCH {
            w.add(1, 1, &Rc::new(StageTemplate::Const(true)));
        }
        assert!(w.done().is_none());
    }
}

#[cfg(test)]
pub(crate) mod tests_support {
    use super::*;

    /// A body that does nothing, for tests that need a template.
    pub(crate) fn empty_body() -> BodyTemplate {
        BodyTemplate {
            stage: Rc::new(StageTemplate::Const(false)),
            cmd: CmdTemplate::App {
                head: AtomTemplate::Lit(Lit::Int(0)),
                args: Box::new([]),
                sugar: Sugar::None,
                plain: true,
            },
            span: Span::default(),
            watch: Some(Rc::from(Vec::new())),
        }
    }
}
