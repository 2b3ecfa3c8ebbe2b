//! The end of a fast run: its state made graph nodes again, in place of the
//! body the run started from.
//!
//! The current body is built from its template, each slot read from the
//! frames: a binder of a template being built becomes a fresh graph
//! variable, a value becomes nodes. A closure becomes a shared value of the
//! graph, built once however many places hold it (as `bind` shares a value
//! bound to a variable with several occurrences), so a state in which
//! closures hold closures costs what it holds, not what it would print.
//! The nodes are then given their tour, statuses and waiters in one go, as
//! an imported term is. Recursion here is bounded: templates nest at most
//! as deeply as the compiler allows, residuals at most
//! [`super::val::MAX_DEPTH`]; the closures a closure holds are built before
//! it ([`Materializer::closures_under`]), each classified as it is built,
//! so that a chain of them costs its length; nested tuples are walked with
//! a stack, however deeply they nest; reductions in progress are built
//! innermost first ([`Machine::put_back`]), without recursion.

use std::rc::Rc;

use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;

use super::super::import::Importer;
use super::super::lit::Lit;
use super::super::node::{GVar, Kind, NodeBody, NodeCmd, NodeId, NodeLambda, NodeParam, Readiness, VarState};
use super::super::Machine;
use super::res::{Hole, Residual};
use super::template::{is_sparam, ArgTemplate, AtomTemplate, BodyTemplate, CmdTemplate, LamTemplate, Place, StageTemplate, NO_SLOT};
use super::val::{Frame, Tup, Value};
use super::{Current, Overrides, SubRun};
use crate::term::{Arg, Atom, Builtin, SExp, Sugar};

/// What a slot of a template holds while it is built.
enum Slot {
    /// The binder of a template being built.
    Fresh(GVar),
    /// A value of the run.
    Val(Value),
}

/// A materialization under way.
struct Materializer {
    /// The nodes of the subtree being built.
    made: Vec<NodeId>,
    /// The binders of the templates being built, innermost last, each with
    /// whether its template has a frame of its own (is not inlined).
    fresh: Vec<(SmallVec<[GVar; 4]>, bool)>,
    /// The levels of `fresh` below this belong to an enclosing build.
    floor: usize,
    /// The frame the outermost template being built runs in.
    base: Option<Rc<Frame>>,
    /// The shared value built for each closure (by its template and frame).
    closures: FxHashMap<(usize, usize), NodeId>,
    /// The shared value built for each big tuple (by address).
    tuples: FxHashMap<usize, NodeId>,
    /// The closures (by key) and tuples (by address, and 0) whose
    /// closures [`Materializer::closures_under`] has walked to.
    walked: FxHashSet<(usize, usize)>,
    /// The binder made for each hole of the residuals being built (by
    /// address).
    holes: FxHashMap<usize, GVar>,
}

/// A tuple standing for this many nodes or more is built once, as a shared
/// value, however many places hold it.
const SHARED_TUPLE: u32 = 64;

/// A tuple being built ([`Materializer::tuple`]): its elements so far, and for a big
/// one the nodes made before it (its own are a subtree of their own).
struct OpenTuple<'t> {
    tup: &'t Tup,
    next: usize,
    built: Vec<NodeId>,
    outer: Option<Vec<NodeId>>,
}

impl Machine {
    /// Ends a fast run that started from the body `b` and stands at `cur`
    /// (`overrides` standing for atoms of it), inside the reductions under
    /// lambdas still in progress (`subs`, outermost first): builds that
    /// state and puts it where `b` stood, then frees `b`. Each reduction
    /// in progress becomes the residual of the body it stands at, standing
    /// for its atom in the body around it; they are built innermost first,
    /// so that however deeply they nest the build does not recurse.
    pub(super) fn put_back(&mut self, b: NodeId, cur: Current, overrides: Overrides, subs: Vec<SubRun>) {
        // About as many nodes as the run holds values, at most.
        let values = usize::try_from(super::val::live_values()).unwrap_or(0);
        if values > 1 << 16 {
            self.g.reserve(values);
        }
        let mut out = Materializer {
            made: Vec::new(),
            fresh: Vec::new(),
            floor: 0,
            base: None,
            closures: FxHashMap::default(),
            tuples: FxHashMap::default(),
            walked: FxHashSet::default(),
            holes: FxHashMap::default(),
        };
        // Binders first, outermost first: a body may mention the holes of
        // every reduction around it.
        let binders: Vec<SmallVec<[GVar; 4]>> = subs.iter().map(|sr| out.binders(self, &sr.lam, &sr.holes)).collect();
        let (mut at, mut link) = ((&cur, &overrides), None);
        for (sr, bs) in subs.iter().zip(&binders).rev() {
            let body = out.residual_body(self, at.0, at.1, link);
            link = Some((sr.atom, out.lambda_node(self, &sr.lam, bs, body)));
            at = (&sr.parent, &sr.overrides);
        }
        let root = out.state(self, at.0, at.1, link);
        let made = root_first(std::mem::take(&mut out.made));
        drop(out);
        drop((cur, overrides, subs));
        self.init_nodes(&made);
        self.replace_body(b, root);
        self.free(b);
        self.unshare_pending();
    }
}

/// The nodes of a subtree built bottom-up, its root (made last) first.
fn root_first(mut made: Vec<NodeId>) -> Vec<NodeId> {
    made.rotate_right(1);
    made
}

impl Materializer {
    /// The body a run stands at, `overrides` standing for atoms of it, and
    /// `link` (a node built already) for one more.
    fn state(&mut self, m: &mut Machine, cur: &Current, overrides: &Overrides, link: Option<(u32, NodeId)>) -> NodeId {
        match cur {
            Current::Body(lam, frame, None) => {
                self.base = Some(frame.clone());
                self.body_with(m, &lam.body, overrides, link)
            }
            Current::Call(h, span) => {
                debug_assert!(link.is_none(), "a reduction under a lambda of a call");
                let head = self.value(m, h);
                self.call(m, head, *span)
            }
            Current::Body(l, frame, Some(span)) => {
                debug_assert!(link.is_none(), "a reduction under a lambda of a call");
                self.base = Some(frame.clone());
                let head = self.lambda(m, l).0;
                self.call(m, head, *span)
            }
        }
    }

    /// A residual: a lambda with fresh binders for its holes, whose body is
    /// the state its reduction was left at.
    fn residual(&mut self, m: &mut Machine, r: &Residual) -> NodeId {
        let state = r.state.take();
        debug_assert!(state.is_some(), "a residual built after it was applied");
        let binders = self.binders(m, &r.lam, state.as_ref().map_or(&[][..], |s| &s.holes[..]));
        let body = match &state {
            Some(s) => self.residual_body(m, &s.at.cur, &s.at.overrides, None),
            None => {
                let lit = self.node(m, Kind::Lit(Lit::Int(0)));
                self.call(m, lit, r.lam.span)
            }
        };
        r.state.set(state);
        self.lambda_node(m, &r.lam, &binders, body)
    }

    /// Fresh binders for the lambda `lam` reduced under, its holes `holes`
    /// (its staging parameter's, then its parameters') bound to them.
    fn binders(&mut self, m: &mut Machine, lam: &LamTemplate, holes: &[Rc<Hole>]) -> SmallVec<[GVar; 4]> {
        let binders: SmallVec<[GVar; 4]> = lam.origins.iter().map(|&o| m.g.fresh_var(o)).collect();
        for (h, &v) in holes.iter().zip(&binders) {
            self.holes.insert(Rc::as_ptr(h) as usize, v);
        }
        binders
    }

    /// The body of a residual, the state `cur` with `overrides` (and
    /// `link`) its reduction was left at.
    fn residual_body(&mut self, m: &mut Machine, cur: &Current, overrides: &Overrides, link: Option<(u32, NodeId)>) -> NodeId {
        let floor = std::mem::replace(&mut self.floor, self.fresh.len());
        let base = self.base.take();
        // Its closures mention its binders: built for this copy alone (a
        // residual held in several places is built at each, with binders
        // of its own).
        let closures = std::mem::take(&mut self.closures);
        let tuples = std::mem::take(&mut self.tuples);
        let walked = std::mem::take(&mut self.walked);
        let body = self.state(m, cur, overrides, link);
        self.closures = closures;
        self.tuples = tuples;
        self.walked = walked;
        self.floor = floor;
        self.base = base;
        body
    }

    /// The lambda node of `lam` with the binders `binders` and `body`.
    fn lambda_node(&mut self, m: &mut Machine, lam: &LamTemplate, binders: &[GVar], body: NodeId) -> NodeId {
        let params = binders[1..=lam.k]
            .iter()
            .enumerate()
            .map(|(i, &var)| NodeParam {
                var,
                rest: lam.rest == Some(i),
            })
            .collect();
        self.node(
            m,
            Kind::Lambda(Box::new(NodeLambda {
                sparam: binders[0],
                params,
                body,
                span: lam.span,
            })),
        )
    }

    /// A node of the subtree being built, over children built before it.
    /// Only their parent links are set: `init_nodes` builds the tour of the
    /// whole subtree in one go once it is done, as for an import.
    fn node(&mut self, m: &mut Machine, kind: Kind) -> NodeId {
        let id = m.g.alloc_for_build(kind);
        let mut kids: SmallVec<[NodeId; 8]> = SmallVec::new();
        m.g.for_children(id, |c| kids.push(c));
        for c in kids {
            m.g.nodes[c.ix()].parent = id;
        }
        self.made.push(id);
        id
    }

    fn reference(&mut self, m: &mut Machine, v: GVar) -> NodeId {
        let id = self.node(m, Kind::Ref(v));
        m.g.add_occ(v, id);
        id
    }

    fn holder(&mut self, m: &mut Machine, t: NodeId) -> NodeId {
        let h = m.share(t);
        self.made.push(h);
        h
    }

    /// `@always: head ()`, the body an `if` leaves.
    fn call(&mut self, m: &mut Machine, head: NodeId, span: crate::span::Span) -> NodeId {
        self.node(
            m,
            Kind::Body(Box::new(NodeBody {
                stage: SExp::Const(true),
                cmd: NodeCmd::App {
                    head,
                    args: Vec::new(),
                    sugar: Sugar::None,
                },
                span,
                status: Readiness::Inactive,
            })),
        )
    }

    /// What the variable at `p` stands for: the binder of a template being
    /// built, or (outside them) a slot of the frames of the run, as many
    /// frames out as `p` says less those of the templates being built.
    fn slot(&self, p: Place) -> Slot {
        let up = p.up as usize;
        let open = &self.fresh[self.floor..];
        if up < open.len() {
            let level = &open[open.len() - 1 - up].0;
            return Slot::Fresh(level[p.ix as usize]);
        }
        let frames = open.iter().filter(|l| l.1).count() as u32;
        if is_sparam(p.pix) {
            // A staging parameter of a lambda applied: `always`; of one
            // reduced under, its hole.
            let hole = (p.pix == NO_SLOT)
                .then(|| self.base.as_ref().and_then(|f| f.out(p.pup.checked_sub(frames)?)?.sparam.clone()))
                .flatten();
            return Slot::Val(match hole {
                Some(h) => Value::Hole(h).resolved().clone(),
                None => Value::Lit(Lit::Stage(true)),
            });
        }
        let v = self.base.as_ref().and_then(|f| f.get(p.pup.checked_sub(frames)?, p.pix)).cloned();
        debug_assert!(v.is_some(), "a slot outside every frame");
        Slot::Val(v.unwrap_or(Value::Lit(Lit::Int(0))))
    }

    fn stage(&mut self, m: &mut Machine, s: &StageTemplate) -> SExp {
        match s {
            StageTemplate::Const(b) => SExp::Const(*b),
            StageTemplate::Graph(v, _) => SExp::Var(*v),
            StageTemplate::Var(p) | StageTemplate::SelfVar(p) | StageTemplate::SParam(p) => match self.slot(*p) {
                Slot::Fresh(v) => SExp::Var(v),
                Slot::Val(v) => match v.resolved() {
                    Value::Lit(Lit::Stage(b)) => SExp::Const(*b),
                    Value::Sym(y) | Value::RecName(y) => SExp::Var(*y),
                    Value::Hole(h) => SExp::Var(self.hole(m, h)),
                    _ => SExp::Const(true),
                },
            },
            StageTemplate::Not(x) => SExp::Not(Box::new(self.stage(m, x))),
            StageTemplate::And(a, b) => SExp::And(Box::new(self.stage(m, a)), Box::new(self.stage(m, b))),
            StageTemplate::Or(a, b) => SExp::Or(Box::new(self.stage(m, a)), Box::new(self.stage(m, b))),
        }
    }

    fn body(&mut self, m: &mut Machine, b: &BodyTemplate) -> NodeId {
        self.body_with(m, b, &Overrides::new(), None)
    }

    /// The body `b`, the values of `overrides` standing for its atoms
    /// (0: the head, `i`: argument `i`), and the node `link` for one more.
    fn body_with(&mut self, m: &mut Machine, b: &BodyTemplate, overrides: &Overrides, link: Option<(u32, NodeId)>) -> NodeId {
        enum Over<'v> {
            Val(&'v Value),
            Built(NodeId),
        }
        debug_assert!(
            link.is_none() || matches!(b.cmd, CmdTemplate::App { .. }),
            "a reduction under a lambda of a let, if or fix"
        );
        let stage = self.stage(m, &b.stage);
        let over = |i: u32| match link {
            Some((j, n)) if j == i => Some(Over::Built(n)),
            _ => overrides.iter().find(|(j, _)| *j == i).map(|(_, v)| Over::Val(v)),
        };
        let cmd = match &b.cmd {
            CmdTemplate::App { head, args, sugar, .. } => {
                let head = match over(0) {
                    Some(Over::Val(v)) => self.value(m, v),
                    Some(Over::Built(n)) => n,
                    None => self.atom(m, head),
                };
                let mut xs = Vec::with_capacity(args.len());
                for (i, a) in (1u32..).zip(args.iter()) {
                    let c = match over(i) {
                        Some(Over::Val(v)) => self.value(m, v),
                        Some(Over::Built(n)) => n,
                        None => {
                            self.arg(m, a, &mut xs);
                            continue;
                        }
                    };
                    match a {
                        ArgTemplate::Atom(_) => xs.push(c),
                        ArgTemplate::Splice(_) => xs.push(self.splice(m, c)),
                    }
                }
                let args = xs;
                NodeCmd::App { head, args, sugar: *sugar }
            }
            CmdTemplate::Let { lam, args, sugar, .. } => {
                let head = self.lambda(m, lam).0;
                let args = args.iter().map(|a| self.atom(m, a)).collect();
                NodeCmd::App { head, args, sugar: *sugar }
            }
            CmdTemplate::If { cond, yes, no, sugar } => {
                let head = self.node(m, Kind::Lit(Lit::Builtin(Builtin::If)));
                let c = self.atom(m, cond);
                let y = self.lambda(m, yes).0;
                let n = self.lambda(m, no).0;
                NodeCmd::App {
                    head,
                    args: vec![c, y, n],
                    sugar: *sugar,
                }
            }
            CmdTemplate::Fix { lam, scope } => {
                let (lam, name_in) = self.lambda(m, lam);
                let sparam = m.g.fresh_var(scope.origins[0]);
                let name_out = m.g.fresh_var(scope.origins[1]);
                self.fresh.push((smallvec::smallvec![sparam, name_out], true));
                let body = self.body(m, &scope.body);
                self.fresh.pop();
                NodeCmd::Fix {
                    sparam,
                    name_in,
                    name_out,
                    lam,
                    body,
                }
            }
        };
        self.node(
            m,
            Kind::Body(Box::new(NodeBody {
                stage,
                cmd,
                span: b.span,
                status: Readiness::Inactive,
            })),
        )
    }

    /// A lambda node for `l` with fresh binders; also its last binder (a
    /// recursive lambda's name).
    fn lambda(&mut self, m: &mut Machine, l: &LamTemplate) -> (NodeId, GVar) {
        let binders: SmallVec<[GVar; 4]> = l.origins.iter().map(|&o| m.g.fresh_var(o)).collect();
        let last = binders[binders.len() - 1];
        self.fresh.push((binders.clone(), l.inline_at.is_none()));
        let body = self.body(m, &l.body);
        self.fresh.pop();
        (self.lambda_node(m, l, &binders, body), last)
    }

    /// A recursive value for the recursive lambda `l`.
    fn rec(&mut self, m: &mut Machine, l: &LamTemplate) -> NodeId {
        let (lam, name) = self.lambda(m, l);
        let n = self.node(m, Kind::Rec { name, lam });
        m.g.var_mut(name).set_bound(VarState::SelfRec(n));
        n
    }

    /// The nodes of an argument (or tuple element), pushed on `out`: a
    /// splice of a known tuple is its elements, as `bind` leaves it.
    fn arg(&mut self, m: &mut Machine, a: &ArgTemplate, out: &mut Vec<NodeId>) {
        let x = match a {
            ArgTemplate::Atom(x) => return out.push(self.atom(m, x)),
            ArgTemplate::Splice(x) => x,
        };
        match x {
            AtomTemplate::Tuple(xs) => return xs.iter().for_each(|x| self.arg(m, x, out)),
            AtomTemplate::Shared(t) if matches!(m.g.kind(*t), Kind::Tuple(_)) => return self.graph_elems(m, *t, out),
            AtomTemplate::Var(p) => match self.slot(*p) {
                Slot::Val(Value::Tup(t)) => return t.xs.iter().for_each(|x| out.push(self.value(m, x))),
                Slot::Val(Value::Shared(t)) if matches!(m.g.kind(t), Kind::Tuple(_)) => return self.graph_elems(m, t, out),
                Slot::Val(Value::Val(t)) if matches!(&*t, Atom::Tuple(_)) => {
                    if let Atom::Tuple(xs) = &*t {
                        for x in xs {
                            let (Arg::Atom(y) | Arg::Splice(y)) = x;
                            let n = self.import(m, y.clone());
                            out.push(match x {
                                Arg::Atom(_) => n,
                                Arg::Splice(_) => self.splice(m, n),
                            });
                        }
                    }
                    return;
                }
                _ => {}
            },
            _ => {}
        }
        let c = self.atom(m, x);
        out.push(self.splice(m, c));
    }

    /// The elements of the shared graph tuple `t`, pushed on `out` (a
    /// splice of it, as `bind` leaves one): a shared element gets a holder
    /// of its own, any other is copied.
    fn graph_elems(&mut self, m: &mut Machine, t: NodeId, out: &mut Vec<NodeId>) {
        let Kind::Tuple(xs) = m.g.kind(t) else { return };
        for c in xs.clone() {
            let n = match m.g.kind(c) {
                Kind::Share(u) => {
                    let u = *u;
                    self.holder(m, u)
                }
                Kind::Lit(l) => {
                    let l = l.clone();
                    self.node(m, Kind::Lit(l))
                }
                _ => {
                    let a = m.export_raw(c);
                    self.import(m, a)
                }
            };
            out.push(n);
        }
    }

    fn splice(&mut self, m: &mut Machine, c: NodeId) -> NodeId {
        self.node(m, Kind::Splice(c))
    }

    fn import(&mut self, m: &mut Machine, a: Atom) -> NodeId {
        let mut imp = Importer::values();
        let id = imp.atom(&mut m.g, a);
        self.made.extend(imp.made);
        id
    }

    fn atom(&mut self, m: &mut Machine, a: &AtomTemplate) -> NodeId {
        match a {
            AtomTemplate::Var(p) | AtomTemplate::SParam(p) => match self.slot(*p) {
                Slot::Fresh(v) => self.reference(m, v),
                Slot::Val(v) => self.value(m, &v),
            },
            AtomTemplate::Sym(v) | AtomTemplate::RecName(v) => self.reference(m, *v),
            AtomTemplate::Lit(l) => self.node(m, Kind::Lit(l.clone())),
            AtomTemplate::Shared(t) => self.holder(m, *t),
            AtomTemplate::Lam(l) => self.lambda(m, l).0,
            AtomTemplate::Rec(l) => self.rec(m, l),
            AtomTemplate::Tuple(xs) => {
                let mut out = Vec::with_capacity(xs.len());
                xs.iter().for_each(|x| self.arg(m, x, &mut out));
                self.node(m, Kind::Tuple(out))
            }
            AtomTemplate::Expr(e, kids, _) => {
                let kids: Vec<NodeId> = kids.iter().map(|k| self.atom(m, k)).collect();
                self.node(m, Kind::Expr(e.clone(), kids.into_boxed_slice()))
            }
        }
    }

    /// The binder of a hole not filled (a fresh variable if its residual
    /// is not being built, which the run's invariants rule out).
    fn hole(&mut self, m: &mut Machine, h: &Rc<Hole>) -> GVar {
        let key = Rc::as_ptr(h) as usize;
        if let Some(&v) = self.holes.get(&key) {
            return v;
        }
        debug_assert!(false, "a hole outside its residual");
        let v = m.g.fresh_var(h.origin);
        self.holes.insert(key, v);
        v
    }

    /// The nodes of a tuple, the tuples nested in it walked with a stack
    /// of their own (a list nests as deeply as it is long; the residuals
    /// it holds nest at most [`super::val::MAX_DEPTH`] deep). A big tuple is
    /// built once, as a subtree of its own, and shared: what holds it gets
    /// a holder.
    fn tuple(&mut self, m: &mut Machine, t: &Tup) -> NodeId {
        if let Some(h) = self.tuple_holder(m, t) {
            return h;
        }
        let mut stack = vec![self.open_tuple(t)];
        while let Some(top) = stack.last_mut() {
            let tup = top.tup;
            if let Some(x) = tup.xs.get(top.next) {
                top.next += 1;
                let n = match x.resolved() {
                    Value::Tup(u) => match self.tuple_holder(m, u) {
                        Some(h) => h,
                        None => {
                            let o = self.open_tuple(u);
                            stack.push(o);
                            continue;
                        }
                    },
                    v => self.value(m, v),
                };
                if let Some(top) = stack.last_mut() {
                    top.built.push(n);
                }
                continue;
            }
            let Some(done) = stack.pop() else { break };
            let n = self.close_tuple(m, done);
            match stack.last_mut() {
                Some(up) => up.built.push(n),
                None => return n,
            }
        }
        debug_assert!(false, "the walk returns at its root");
        self.node(m, Kind::Tuple(Vec::new()))
    }

    /// A holder of the big tuple `u` if it is built already.
    fn tuple_holder(&mut self, m: &mut Machine, u: &Tup) -> Option<NodeId> {
        if u.size < SHARED_TUPLE {
            return None;
        }
        let n = *self.tuples.get(&(std::ptr::from_ref(u) as usize))?;
        Some(self.holder(m, n))
    }

    /// Starts building the tuple `u` (a big one as a subtree of its own).
    fn open_tuple<'t>(&mut self, u: &'t Tup) -> OpenTuple<'t> {
        OpenTuple {
            tup: u,
            next: 0,
            built: Vec::with_capacity(u.xs.len()),
            outer: (u.size >= SHARED_TUPLE).then(|| std::mem::take(&mut self.made)),
        }
    }

    /// Ends building a tuple: its node, or for a big one a holder of it.
    fn close_tuple(&mut self, m: &mut Machine, o: OpenTuple<'_>) -> NodeId {
        let n = self.node(m, Kind::Tuple(o.built));
        let Some(outer) = o.outer else { return n };
        let sub = root_first(std::mem::replace(&mut self.made, outer));
        m.init_nodes(&sub);
        self.tuples.insert(std::ptr::from_ref(o.tup) as usize, n);
        self.holder(m, n)
    }

    fn value(&mut self, m: &mut Machine, v: &Value) -> NodeId {
        match v.resolved() {
            Value::Hole(h) => {
                let x = self.hole(m, h);
                self.reference(m, x)
            }
            Value::Residual(r) => self.residual(m, r),
            Value::Lit(l) => self.node(m, Kind::Lit(l.clone())),
            Value::Sym(x) | Value::RecName(x) => self.reference(m, *x),
            Value::Val(a) => self.import(m, (**a).clone()),
            Value::Tup(t) => self.tuple(m, t),
            Value::Shared(t) => self.holder(m, *t),
            c @ (Value::Clo(l, f, _) | Value::Rec(l, f, _)) => {
                let key = closure_key(l, f);
                if !self.closures.contains_key(&key) {
                    self.closures_under(m, c);
                }
                match self.closures.get(&key) {
                    Some(&t) => self.holder(m, t),
                    None => {
                        // A closure that reaches itself, which frames
                        // written once cannot make.
                        debug_assert!(false, "a closure not built");
                        let t = self.closure(m, l, f, matches!(c, Value::Rec(..)));
                        self.holder(m, t)
                    }
                }
            }
        }
    }

    /// Builds the closure `c` and the closures it reaches that are not
    /// built yet, deepest first: through the slots their lambdas read and
    /// the tuples there, not through residuals (built with binders of their
    /// own, each with its closures). So a closure being built finds the
    /// ones it holds built already, and however deeply closures nest (a
    /// continuation capturing the one before, as a non-tail recursion
    /// makes), the build does not recurse once per closure.
    fn closures_under(&mut self, m: &mut Machine, c: &Value) {
        // Each entry: a value, and whether what it reaches is built.
        let mut stack: Vec<(Value, bool)> = vec![(c.clone(), false)];
        while let Some((v, reached)) = stack.pop() {
            match &v {
                Value::Clo(l, f, _) | Value::Rec(l, f, _) => {
                    let key = closure_key(l, f);
                    if self.closures.contains_key(&key) {
                        continue;
                    }
                    if reached {
                        let t = self.closure(m, l, f, matches!(v, Value::Rec(..)));
                        self.closures.insert(key, t);
                        continue;
                    }
                    if !self.walked.insert(key) {
                        // Met again before it was built: only a cycle
                        // would do that, which frames written once cannot
                        // make; it is built where it stands.
                        continue;
                    }
                    stack.push((v.clone(), true));
                    for &(up, ix) in l.caps.iter() {
                        if let Some(x) = f.get(up, ix) {
                            if matches!(x, Value::Clo(..) | Value::Rec(..) | Value::Tup(_)) {
                                stack.push((x.clone(), false));
                            }
                        }
                    }
                }
                Value::Tup(t) => {
                    // A tuple walked once per build: what it reaches is
                    // built (or on the stack to be) after the first walk.
                    if !self.walked.insert((Rc::as_ptr(t) as usize, 0)) {
                        continue;
                    }
                    for x in &t.xs {
                        let x = x.resolved();
                        if matches!(x, Value::Clo(..) | Value::Rec(..) | Value::Tup(_)) {
                            stack.push((x.clone(), false));
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// The shared value of the closure of `l` made in `f` (`rec`: the
    /// recursive value), built as a subtree of its own.
    fn closure(&mut self, m: &mut Machine, l: &LamTemplate, f: &Rc<Frame>, rec: bool) -> NodeId {
        let made = std::mem::take(&mut self.made);
        let floor = std::mem::replace(&mut self.floor, self.fresh.len());
        let base = self.base.replace(f.clone());
        let t = if rec { self.rec(m, l) } else { self.lambda(m, l).0 };
        let sub = root_first(std::mem::replace(&mut self.made, made));
        self.floor = floor;
        self.base = base;
        m.init_nodes(&sub);
        // Classified now, while the closures it holds are (they were built
        // first): the walk stops at their holders, so a chain of closures
        // costs its length, where classifying its head later would walk
        // it whole (and a fast run needs to know it is closed to call it
        // as a shared value).
        m.classify(t);
        t
    }
}

/// The key of the closure of `l` made in `f`, in [`Materializer::closures`].
fn closure_key(l: &Rc<LamTemplate>, f: &Rc<Frame>) -> (usize, usize) {
    (Rc::as_ptr(l) as usize, Rc::as_ptr(f) as usize)
}
