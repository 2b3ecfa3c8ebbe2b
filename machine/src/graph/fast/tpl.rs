//! Templates: the code of a lambda compiled out of the graph once, to be run
//! many times with an environment instead of being copied at every call.
//!
//! A template names variables by where they live at run time: `Var(up, ix)`
//! is slot `ix` of the frame `up` frames out from the current one. A
//! lambda's frame holds its staging parameter, then its parameters, then
//! (for a recursive lambda) its own name. Everything the template does not
//! bind is a graph variable (symbolic, or the name of a recursive value of
//! the graph) or a shared value of the graph, neither of which a fast run
//! changes.
//!
//! Each body carries what the fast run needs to know, without looking, about
//! the bodies nested in it: whether any could be pending once the body runs
//! ([`TBody::inert`]). See [`TLam::slack`].

use std::rc::Rc;
use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::super::lit::Lit;
use super::super::node::{Bound, Cmd, GVar, Graph, Kind, NodeId};
use super::quick::Q;
use crate::expr::Expr;
use crate::span::Span;
use crate::term::{SExp, Sugar, VarId};

/// A stand-in for "never": a body whose staging expression may be true
/// however many frames around it are symbolic.
pub(super) const INF: i32 = i32::MAX / 4;

/// The most graph nodes one fast run compiles (the entry body and the
/// shared lambdas it calls): past it the run is not tried, so a run whose
/// values are large costs a bounded amount before the machine steps on.
pub(super) const MAX_COMPILED: usize = 4096;

/// The deepest nesting of graph nodes compiled (the compiler recurses).
const MAX_NEST: u32 = 200;

/// A lambda (or the scope of a `fix`, or the entry body) as a template.
pub(super) struct TLam {
    /// The source variables of the frame's slots, for the binders a
    /// materialized copy makes: staging parameter, parameters, own name.
    pub origins: Box<[VarId]>,
    /// The number of parameters.
    pub k: usize,
    /// The rest parameter's position among the parameters.
    pub rest: Option<usize>,
    /// The body.
    pub body: TBody,
    /// The lambda's source.
    pub span: Span,
    /// How far the bodies inside reach out: the largest `need - depth` over
    /// the bodies inside this lambda (its own body at depth 1), where `need`
    /// is how many frames around a body must be symbolic for its staging
    /// expression to be false whatever the frames further out hold
    /// ([`INF`] if no number suffices). While the lambda is not invoked its
    /// own frame is symbolic, so `slack <= 0` says no body inside it can be
    /// pending, whatever values its free variables get.
    pub slack: i32,
}

/// A body of a template.
pub(super) struct TBody {
    /// Its staging expression.
    pub stage: TStage,
    /// What it does.
    pub cmd: TCmd,
    /// Its source.
    pub span: Span,
    /// Whether no body nested in it can be pending, whatever its frame holds:
    /// every lambda in its head and arguments (and a `fix`'s lambda and
    /// scope) has `slack <= 0`. Only then may a fast run go on after making
    /// it the current body: it is then the only candidate for the next step.
    pub inert: bool,
}

/// The command of a template body.
pub(super) enum TCmd {
    /// `head args..`.
    App { head: TAtom, args: Box<[TArg]>, sugar: Sugar },
    /// `fix`: the recursive lambda (its last slot the name) and the scope
    /// (a frame of the staging parameter and the name as the scope sees it).
    Fix { lam: Rc<TLam>, scope: Rc<TLam> },
}

/// An argument.
pub(super) enum TArg {
    Atom(TAtom),
    Splice(TAtom),
}

/// An atom of a template.
pub(super) enum TAtom {
    /// A slot of a frame: `up` frames out, slot `ix`.
    Var(u32, u32),
    /// A symbolic graph variable.
    Sym(GVar),
    /// The name of a recursive value of the graph, inside its lambda.
    RecName(GVar),
    /// A literal.
    Lit(Lit),
    /// A shared value of the graph (a lambda, recursive value, record or map).
    Shared(NodeId),
    /// A lambda.
    Lam(Rc<TLam>),
    /// A recursive value.
    Rec(Rc<TLam>),
    /// A tuple.
    Tuple(Box<[TArg]>),
    /// An expression and its operands, placeholder `k` for operand `k`,
    /// and its quick form if it has one.
    Expr(Arc<Expr>, Box<[TAtom]>, Option<Box<Q>>),
}

/// A staging expression of a template.
pub(super) enum TStage {
    Const(bool),
    /// A slot.
    Var(u32, u32),
    /// The slot of a recursive lambda's own name: its value is known only
    /// once the `fix` ran, so the analysis counts it as unknown.
    SelfVar(u32, u32),
    /// A graph variable, with its truth (a fast run binds none).
    Graph(GVar, bool),
    Not(Box<TStage>),
    And(Box<TStage>, Box<TStage>),
    Or(Box<TStage>, Box<TStage>),
}

impl TStage {
    /// Its value when the `k` innermost frames are symbolic and nothing is
    /// known further out: `Some(false)` only if it is false for sure.
    fn when_symbolic(&self, k: u32) -> Option<bool> {
        match self {
            TStage::Const(b) | TStage::Graph(_, b) => Some(*b),
            TStage::Var(up, _) => (*up < k).then_some(false),
            TStage::SelfVar(..) => None,
            TStage::Not(x) => x.when_symbolic(k).map(|b| !b),
            TStage::And(a, b) => match (a.when_symbolic(k), b.when_symbolic(k)) {
                (Some(false), _) | (_, Some(false)) => Some(false),
                (Some(true), Some(true)) => Some(true),
                _ => None,
            },
            TStage::Or(a, b) => match (a.when_symbolic(k), b.when_symbolic(k)) {
                (Some(true), _) | (_, Some(true)) => Some(true),
                (Some(false), Some(false)) => Some(false),
                _ => None,
            },
        }
    }

    fn max_up(&self) -> u32 {
        match self {
            TStage::Const(_) | TStage::Graph(..) => 0,
            TStage::Var(up, _) | TStage::SelfVar(up, _) => *up,
            TStage::Not(x) => x.max_up(),
            TStage::And(a, b) | TStage::Or(a, b) => a.max_up().max(b.max_up()),
        }
    }

    /// How many innermost frames must be symbolic for it to be false
    /// ([`INF`]: no number suffices).
    fn need(&self) -> i32 {
        (0..=self.max_up() + 1)
            .find(|&k| self.when_symbolic(k) == Some(false))
            .map_or(INF, |k| i32::try_from(k).unwrap_or(INF))
    }
}

/// The largest slack among the lambdas of an atom (`-INF`: none).
fn atom_reach(a: &TAtom) -> i32 {
    match a {
        TAtom::Lam(l) | TAtom::Rec(l) => l.slack,
        TAtom::Tuple(xs) => xs.iter().map(arg_reach).max().unwrap_or(-INF),
        TAtom::Expr(_, xs, _) => xs.iter().map(atom_reach).max().unwrap_or(-INF),
        _ => -INF,
    }
}

fn arg_reach(a: &TArg) -> i32 {
    match a {
        TArg::Atom(x) | TArg::Splice(x) => atom_reach(x),
    }
}

/// Compiles graph nodes into templates.
pub(super) struct Compiler<'g> {
    g: &'g Graph,
    /// The slot of each graph variable bound by the template being compiled:
    /// its frame's level, its index, and whether it is a recursive name.
    scope: FxHashMap<GVar, (u32, u32, bool)>,
    /// Frames open around the node being compiled.
    level: u32,
    /// Nesting depth of the recursion.
    nest: u32,
    /// Nodes compiled so far (bounded by [`MAX_COMPILED`]).
    pub used: usize,
    /// Shared values met whose closedness is not known yet: the compile
    /// fails, and the caller classifies them (`Machine::classify`) and
    /// compiles again, so that closed ones stay shared instead of being
    /// built anew at every place that holds them.
    pub unknown: Vec<NodeId>,
    /// Whether to note those (else they are compiled with the template).
    pub note_unknown: bool,
}

impl<'g> Compiler<'g> {
    pub(super) fn new(g: &'g Graph, used: usize) -> Compiler<'g> {
        Compiler {
            g,
            scope: FxHashMap::default(),
            level: 0,
            nest: 0,
            used,
            unknown: Vec::new(),
            note_unknown: false,
        }
    }

    fn count(&mut self) -> Option<()> {
        self.used += 1;
        (self.used <= MAX_COMPILED).then_some(())
    }

    /// The entry body (the ready body a fast run starts from) as the body of
    /// a lambda without slots.
    pub(super) fn entry(&mut self, b: NodeId) -> Option<Rc<TLam>> {
        self.level += 1;
        let body = self.body(b);
        self.level -= 1;
        let body = body?;
        Some(Rc::new(TLam {
            origins: Box::new([]),
            k: 0,
            rest: None,
            slack: INF,
            span: body.span,
            body,
        }))
    }

    /// A lambda node (with `name`: the lambda of a recursive value, whose
    /// name takes the last slot).
    pub(super) fn lambda(&mut self, n: NodeId, name: Option<GVar>) -> Option<Rc<TLam>> {
        self.count()?;
        let Kind::Lambda(l) = self.g.kind(n) else { return None };
        let mut binders: Vec<GVar> = Vec::with_capacity(l.params.len() + 2);
        binders.push(l.sparam);
        binders.extend(l.params.iter().map(|p| p.var));
        binders.extend(name);
        let rest = l.params.iter().position(|p| p.rest);
        let k = l.params.len();
        self.frame(&binders, name.is_some(), l.body, k, rest, l.span)
    }

    /// A frame of `binders` around the body `body`.
    fn frame(&mut self, binders: &[GVar], rec: bool, body: NodeId, k: usize, rest: Option<usize>, span: Span) -> Option<Rc<TLam>> {
        self.level += 1;
        let mut old = Vec::with_capacity(binders.len());
        for (i, &v) in binders.iter().enumerate() {
            let is_self = rec && i + 1 == binders.len();
            old.push((v, self.scope.insert(v, (self.level, i as u32, is_self))));
        }
        let b = self.body(body);
        for (v, o) in old.into_iter().rev() {
            match o {
                Some(x) => self.scope.insert(v, x),
                None => self.scope.remove(&v),
            };
        }
        self.level -= 1;
        let body = b?;
        let reach = match &body.cmd {
            TCmd::App { head, args, .. } => atom_reach(head).max(args.iter().map(arg_reach).max().unwrap_or(-INF)),
            TCmd::Fix { lam, scope } => lam.slack.max(scope.slack),
        };
        let slack = body.stage.need().max(reach).saturating_sub(1).min(INF);
        Some(Rc::new(TLam {
            origins: binders.iter().map(|&v| self.g.var(v).origin).collect(),
            k,
            rest,
            body,
            span,
            slack,
        }))
    }

    fn stage(&self, s: &SExp) -> TStage {
        match s {
            SExp::Const(b) => TStage::Const(*b),
            SExp::Var(v) => match self.scope.get(v) {
                Some(&(lvl, ix, false)) => TStage::Var(self.level - lvl, ix),
                Some(&(lvl, ix, true)) => TStage::SelfVar(self.level - lvl, ix),
                None => TStage::Graph(*v, matches!(self.g.var(*v).bound(), Bound::SelfRec(_))),
            },
            SExp::Not(x) => TStage::Not(Box::new(self.stage(x))),
            SExp::And(a, b) => TStage::And(Box::new(self.stage(a)), Box::new(self.stage(b))),
            SExp::Or(a, b) => TStage::Or(Box::new(self.stage(a)), Box::new(self.stage(b))),
        }
    }

    fn body(&mut self, n: NodeId) -> Option<TBody> {
        self.count()?;
        self.nest += 1;
        let r = self.body_inner(n);
        self.nest -= 1;
        r
    }

    fn body_inner(&mut self, n: NodeId) -> Option<TBody> {
        if self.nest > MAX_NEST {
            return None;
        }
        let b = self.g.body(n)?;
        let stage = self.stage(&b.stage);
        let span = b.span;
        let (cmd, reach) = match &b.cmd {
            Cmd::App { head, args, sugar } => {
                let head = self.atom(*head)?;
                let mut xs = Vec::with_capacity(args.len());
                for &a in args {
                    xs.push(self.arg(a)?);
                }
                let reach = atom_reach(&head).max(xs.iter().map(arg_reach).max().unwrap_or(-INF));
                (
                    TCmd::App {
                        head,
                        args: xs.into(),
                        sugar: *sugar,
                    },
                    reach,
                )
            }
            Cmd::Fix {
                sparam,
                name_in,
                name_out,
                lam,
                body,
            } => {
                let (sparam, name_in, name_out, lam, body) = (*sparam, *name_in, *name_out, *lam, *body);
                let lam = self.lambda(lam, Some(name_in))?;
                let scope = self.frame(&[sparam, name_out], false, body, 1, None, span)?;
                let reach = lam.slack.max(scope.slack);
                (TCmd::Fix { lam, scope }, reach)
            }
        };
        Some(TBody {
            stage,
            cmd,
            span,
            inert: reach <= 0,
        })
    }

    fn arg(&mut self, a: NodeId) -> Option<TArg> {
        match self.g.kind(a) {
            Kind::Splice(c) => {
                let c = *c;
                self.count()?;
                Some(TArg::Splice(self.atom(c)?))
            }
            _ => Some(TArg::Atom(self.atom(a)?)),
        }
    }

    fn atom(&mut self, n: NodeId) -> Option<TAtom> {
        self.count()?;
        self.nest += 1;
        let r = self.atom_inner(n);
        self.nest -= 1;
        r
    }

    fn atom_inner(&mut self, n: NodeId) -> Option<TAtom> {
        if self.nest > MAX_NEST {
            return None;
        }
        Some(match self.g.kind(n) {
            Kind::Ref(v) => match self.scope.get(v) {
                Some(&(lvl, ix, _)) => TAtom::Var(self.level - lvl, ix),
                None => match self.g.var(*v).bound() {
                    Bound::Symbolic => TAtom::Sym(*v),
                    Bound::SelfRec(_) => TAtom::RecName(*v),
                    Bound::Dead => return None,
                },
            },
            Kind::Lit(l) => TAtom::Lit(l.clone()),
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
                        TAtom::Shared(t)
                    }
                    Kind::Lambda(_) | Kind::Rec { .. }
                        if self.note_unknown && self.g.nodes[t.ix()].closed == super::super::node::Closed::Unknown =>
                    {
                        // This compile is done again once `t` is classified.
                        self.unknown.push(t);
                        TAtom::Shared(t)
                    }
                    Kind::Lambda(_) | Kind::Rec { .. } | Kind::Tuple(_) => self.atom(t)?,
                    _ => return None,
                }
            }
            Kind::Lambda(_) => TAtom::Lam(self.lambda(n, None)?),
            Kind::Rec { name, lam } => {
                let (name, lam) = (*name, *lam);
                TAtom::Rec(self.lambda(lam, Some(name))?)
            }
            Kind::Tuple(xs) => {
                let mut out = Vec::with_capacity(xs.len());
                for &x in xs {
                    out.push(self.arg(x)?);
                }
                TAtom::Tuple(out.into())
            }
            Kind::Expr(e, kids) => {
                let e = e.clone();
                let mut out = Vec::with_capacity(kids.len());
                for &c in kids.iter() {
                    out.push(self.atom(c)?);
                }
                let q = Q::of(&e).map(Box::new);
                TAtom::Expr(e, out.into(), q)
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
    fn need_counts_the_symbolic_frames_a_stage_waits_for() {
        // Natural staging on the own lambda: one symbolic frame suffices.
        assert_eq!(TStage::Var(0, 0).need(), 1);
        // A variable two frames out: three.
        assert_eq!(TStage::Var(2, 1).need(), 3);
        // `always`, `!x`, and a recursive name are never surely false.
        assert_eq!(TStage::Const(true).need(), INF);
        assert_eq!(TStage::Not(Box::new(TStage::Var(0, 0))).need(), INF);
        assert_eq!(TStage::SelfVar(0, 2).need(), INF);
        // `a & b` is false as soon as either is.
        let and = TStage::And(Box::new(TStage::Var(3, 0)), Box::new(TStage::Var(1, 0)));
        assert_eq!(and.need(), 2);
        let or = TStage::Or(Box::new(TStage::Var(3, 0)), Box::new(TStage::Var(1, 0)));
        assert_eq!(or.need(), 4);
        assert_eq!(TStage::Const(false).need(), 0);
    }
}

#[cfg(test)]
pub(crate) mod tests_support {
    use super::*;

    /// A body that does nothing, for tests that need a template.
    pub(crate) fn empty_body() -> TBody {
        TBody {
            stage: TStage::Const(false),
            cmd: TCmd::App {
                head: TAtom::Lit(Lit::Int(0)),
                args: Box::new([]),
                sugar: Sugar::None,
            },
            span: Span::default(),
            inert: true,
        }
    }
}
