//! Copies: a value for one more holder, and a lambda's body instantiated
//! for a β where the lambda is shared. Every binder inside the copy gets
//! a new slot (LANGUAGE.md §5, "a fresh copy"); so do the slots bound in
//! place inside a copied lambda (its locals), with copies of their values.
//! Iterative; the bodies made are returned in post-order.

use rustc_hash::FxHashMap;

use super::load::Dest;
use super::store::{CmdN, ExprN, Kind, LamN, NodeId, Owner, SlotId, SlotState, Stage, Val};
use super::Engine;
use crate::term::{Atom, SExp, VarId};

/// What a slot of the original stands for in the copy.
#[derive(Clone, Copy)]
pub(super) enum Subst {
    /// A slot of the copy.
    Slot(SlotId),
    /// A value kept inline (never a node).
    Value(Val),
}

impl Subst {
    /// What an occurrence of the slot becomes (not counted yet).
    pub fn occurrence(self) -> Val {
        match self {
            Subst::Slot(f) => Val::Var(f),
            Subst::Value(v) => v,
        }
    }

    /// What the slot becomes in a staging expression: a variable, or the
    /// constant a concrete value stands for (LANGUAGE.md §4).
    pub fn stage(self) -> Stage {
        match self {
            Subst::Slot(f) | Subst::Value(Val::Var(f)) => Stage::Var(f),
            Subst::Value(Val::Stage(b)) => Stage::Const(b),
            Subst::Value(_) => Stage::Const(true),
        }
    }
}

/// What the binders of the original stand for in a copy. A β maps a
/// lambda's few binders: those are found by a scan of `few`; a copy by the
/// walk maps every binder it meets, and past [`FEW`] entries they move to
/// the hash map `many`. Each copy has a map of its own, so copies may nest
/// (a data value's lambdas copied while its holder is).
#[derive(Default)]
pub(super) struct SubstMap {
    few: Vec<(SlotId, Subst)>,
    many: FxHashMap<SlotId, Subst>,
}

/// The most entries [`SubstMap`] scans.
const FEW: usize = 16;

impl SubstMap {
    /// What `s` stands for, if mapped.
    pub fn get(&self, s: SlotId) -> Option<Subst> {
        if self.many.is_empty() {
            self.few.iter().find(|e| e.0 == s).map(|e| e.1)
        } else {
            self.many.get(&s).copied()
        }
    }

    /// Maps `s` to `v`.
    pub fn insert(&mut self, s: SlotId, v: Subst) {
        if !self.many.is_empty() {
            self.many.insert(s, v);
        } else if let Some(e) = self.few.iter_mut().find(|e| e.0 == s) {
            e.1 = v;
        } else if self.few.len() < FEW {
            self.few.push((s, v));
        } else {
            self.many.extend(self.few.drain(..));
            self.many.insert(s, v);
        }
    }

    /// Forgets every entry.
    pub fn clear(&mut self) {
        self.few.clear();
        self.many.clear();
    }
}

/// A copy in progress.
#[derive(Default)]
pub(super) struct Copy {
    pub map: SubstMap,
    /// The bodies made, in post-order.
    pub bodies: Vec<NodeId>,
    /// Scratch of a β: the bodies of the copy that are pending.
    pub pending: Vec<NodeId>,
    /// Scratch of [`Engine::copy_with`]: its walk.
    stack: Vec<Visit>,
}

/// Slots of a local list.
pub(super) type Locals = smallvec::SmallVec<[SlotId; 8]>;

enum Visit {
    Enter(Val, Dest),
    Exit(NodeId),
}

impl Engine {
    /// A copy of `v` for one more holder (its bodies settled).
    pub(super) fn copy_val(&mut self, v: Val) -> Val {
        self.copy_val_into(v, &mut Vec::new())
    }

    /// [`Engine::copy_val`], adding the copy's pending bodies to `pending`.
    pub(super) fn copy_val_into(&mut self, v: Val, pending: &mut Vec<NodeId>) -> Val {
        let mut c = Copy::default();
        let out = self.copy_with(v, &mut c);
        c.map.clear();
        for b in c.bodies {
            if self.settle(b) {
                pending.push(b);
            }
        }
        out
    }

    /// Copies `v` under the substitution of `c`, recording the bodies made.
    /// The new nodes have no owner.
    pub(super) fn copy_with(&mut self, v: Val, c: &mut Copy) -> Val {
        let mut out = Val::EMPTY;
        let mut stack = std::mem::take(&mut c.stack);
        debug_assert!(stack.is_empty());
        stack.push(Visit::Enter(v, Dest::Out));
        while let Some(visit) = stack.pop() {
            let (v, dest) = match visit {
                Visit::Exit(b) => {
                    c.bodies.push(b);
                    continue;
                }
                Visit::Enter(v, dest) => (v, dest),
            };
            let n = match v {
                Val::Var(s) => {
                    let w = self.occurrence(s, c);
                    self.put(dest, w, &mut out);
                    continue;
                }
                Val::Node(n) => n,
                other => {
                    self.put(dest, other, &mut out);
                    continue;
                }
            };
            crate::memory::tick();
            // The original is read in place (a clone of its boxes would
            // cost two allocations a node): what the copy's own node
            // needs first, then its fields as visits.
            match self.st.kind(n) {
                Kind::Free(_) => debug_assert!(false, "copy of a freed node {n:?}"),
                Kind::Body(b) => {
                    let site = b.site;
                    let shape = match &b.cmd {
                        CmdN::App { args, .. } => Err(args.len()),
                        CmdN::Fix { sparam, name, lam, body } => Ok((*sparam, *name, *lam, *body)),
                    };
                    let stage = b.stage.clone();
                    let stage = self.copy_stage(&stage, c);
                    match shape {
                        Err(len) => {
                            let cmd = CmdN::App {
                                head: Val::EMPTY,
                                args: super::store::empty_args(len),
                            };
                            let m = self.body_node(stage, cmd, site);
                            self.put(dest, Val::Node(m), &mut out);
                            stack.push(Visit::Exit(m));
                            if let Some(CmdN::App { head, args }) = self.st.body(n).map(|b| &b.cmd) {
                                for (i, a) in args.iter().enumerate().rev() {
                                    stack.push(Visit::Enter(*a, Dest::Field(m, i as u32 + 1)));
                                }
                                stack.push(Visit::Enter(*head, Dest::Field(m, 0)));
                            }
                        }
                        Ok((sparam, name, lam, body)) => {
                            let sparam = self.fresh_binder(sparam, c);
                            let name = self.fresh_binder(name, c);
                            let m = self.fix_node(stage, sparam, name, site);
                            self.put(dest, Val::Node(m), &mut out);
                            stack.push(Visit::Exit(m));
                            stack.push(Visit::Enter(Val::Node(body), Dest::Field(m, 1)));
                            stack.push(Visit::Enter(Val::Node(lam), Dest::Field(m, 0)));
                        }
                    }
                }
                Kind::Lam(l) => {
                    let (old_sparam, rest, body, site, locals) = (l.sparam, l.rest, l.body, l.site, l.locals);
                    let old_params = l.params.clone();
                    let sparam = self.fresh_binder(old_sparam, c);
                    let params: super::store::ParamList = old_params.iter().map(|p| self.fresh_binder(*p, c)).collect();
                    let (olds, news) = self.map_locals(locals, c);
                    let head = news.first().copied().unwrap_or(SlotId::NONE);
                    let tail = news.last().copied().unwrap_or(SlotId::NONE);
                    let m = self.st.alloc(
                        Kind::Lam(Box::new(LamN {
                            sparam,
                            params,
                            rest,
                            body: NodeId::NONE,
                            site,
                            locals: head,
                            locals_tail: tail,
                            tpl: super::template::NO_TEMPLATE,
                        })),
                        Owner::None,
                    );
                    self.put(dest, Val::Node(m), &mut out);
                    stack.push(Visit::Enter(Val::Node(body), Dest::Field(m, 0)));
                    for (o, f) in olds.iter().zip(&news) {
                        match self.st.slots[o.ix()].state {
                            SlotState::Bound(v) => stack.push(Visit::Enter(v, Dest::Slot(*f))),
                            SlotState::Alias(t) => self.copy_alias(t, *f, c),
                            _ => {}
                        }
                    }
                }
                &Kind::Rec { name, lam, inner } => {
                    let name = self.fresh_binder(name, c);
                    let m = self.st.alloc(
                        Kind::Rec {
                            name,
                            lam: NodeId::NONE,
                            inner,
                        },
                        Owner::None,
                    );
                    self.put(dest, Val::Node(m), &mut out);
                    stack.push(Visit::Enter(Val::Node(lam), Dest::Field(m, 0)));
                }
                Kind::Tuple(xs) => {
                    let len = xs.len();
                    let m = self.st.alloc(Kind::Tuple(Box::new(vec![Val::EMPTY; len].into())), Owner::None);
                    self.put(dest, Val::Node(m), &mut out);
                    if let Kind::Tuple(xs) = self.st.kind(n) {
                        for (i, x) in xs.iter().enumerate().rev() {
                            stack.push(Visit::Enter(*x, Dest::Field(m, i as u32)));
                        }
                    }
                }
                &Kind::Splice(x) => {
                    let m = self.st.alloc(Kind::Splice(Val::EMPTY), Owner::None);
                    self.put(dest, Val::Node(m), &mut out);
                    stack.push(Visit::Enter(x, Dest::Field(m, 0)));
                }
                Kind::Expr(e) => {
                    let (tpl, vars, len) = (e.tpl.clone(), e.vars.clone(), e.holes.len());
                    let m = self.st.alloc(
                        Kind::Expr(Box::new(ExprN {
                            tpl,
                            vars,
                            holes: super::store::empty_holes(len),
                        })),
                        Owner::None,
                    );
                    self.put(dest, Val::Node(m), &mut out);
                    if let Kind::Expr(e) = self.st.kind(n) {
                        for (i, x) in e.holes.iter().enumerate().rev() {
                            stack.push(Visit::Enter(*x, Dest::Field(m, i as u32)));
                        }
                    }
                }
                Kind::Data(a) => {
                    let a = a.as_ref().clone();
                    let w = self.copy_data(&a, c);
                    self.put(dest, w, &mut out);
                }
            }
        }
        c.stack = stack;
        out
    }

    /// New slots for the local list starting at `first`, mapped in `c` and
    /// linked as a list (each holding the list's reference); the values
    /// are not copied yet (a value may mention another local).
    pub(super) fn map_locals(&mut self, first: SlotId, c: &mut Copy) -> (Locals, Locals) {
        let mut olds = Locals::new();
        let mut s = first;
        while s != SlotId::NONE {
            // A local nothing reads is not copied.
            if !self.unread(s) {
                olds.push(s);
            }
            s = self.st.slots[s.ix()].next_local;
        }
        let mut news = Locals::new();
        for &o in &olds {
            let f = self.st.slot(self.st.slots[o.ix()].origin());
            self.st.slots[f.ix()].refs += 1;
            c.map.insert(o, Subst::Slot(f));
            news.push(f);
        }
        self.link(&news, (SlotId::NONE, SlotId::NONE));
        (olds, news)
    }

    /// Copies the values of the locals `olds` into `news`.
    pub(super) fn copy_locals(&mut self, olds: &[SlotId], news: &[SlotId], c: &mut Copy) {
        for (o, f) in olds.iter().zip(news) {
            match self.st.slots[o.ix()].state {
                SlotState::Bound(v @ Val::Node(_)) => {
                    let w = self.copy_with(v, c);
                    let mut out = Val::EMPTY;
                    self.put(Dest::Slot(*f), w, &mut out);
                }
                SlotState::Alias(t) => self.copy_alias(t, *f, c),
                SlotState::Bound(v) => {
                    let w = match v {
                        Val::Var(t) => self.occurrence(t, c),
                        other => other,
                    };
                    self.st.slots[f.ix()].state = SlotState::Bound(w);
                }
                _ => {}
            }
        }
    }

    /// The copy `f` of a slot aliasing `t`.
    fn copy_alias(&mut self, t: SlotId, f: SlotId, c: &Copy) {
        let target = match c.map.get(t) {
            Some(Subst::Slot(g)) => Some(g),
            Some(Subst::Value(Val::Var(x))) => Some(x),
            Some(Subst::Value(v)) => {
                self.st.slots[f.ix()].state = SlotState::Bound(v);
                None
            }
            None => Some(t),
        };
        if let Some(g) = target {
            self.st.slots[f.ix()].state = SlotState::Alias(g);
            self.st.slots[g.ix()].refs += 1;
        }
    }

    /// An occurrence of `s` in the copy.
    fn occurrence(&mut self, s: SlotId, c: &Copy) -> Val {
        let w = c.map.get(s).map_or(Val::Var(s), Subst::occurrence);
        if let Val::Var(t) = w {
            self.add_occ(t);
        }
        w
    }

    /// A new slot for the binder `s` of the original.
    fn fresh_binder(&mut self, s: SlotId, c: &mut Copy) -> SlotId {
        // A recursive value's name is also a local of the lambda around
        // its `fix`: mapped already, with the value's copy bound to it.
        if let Some(Subst::Slot(f)) = c.map.get(s) {
            self.st.slots[f.ix()].refs += 1;
            return f;
        }
        let f = self.st.slot(self.st.slots[s.ix()].origin());
        self.st.slots[f.ix()].refs += 1;
        c.map.insert(s, Subst::Slot(f));
        f
    }

    fn copy_stage(&mut self, s: &Stage, c: &Copy) -> Stage {
        let one = |x: SlotId| -> Stage { c.map.get(x).map_or(Stage::Var(x), Subst::stage) };
        let out = match s {
            Stage::Const(b) => Stage::Const(*b),
            Stage::Var(x) => one(*x),
            Stage::Tree(t) => {
                let mut t = t.as_ref().clone();
                crate::term::rewrite_stage(&mut t, &|v| {
                    Some(match one(SlotId(v.0)) {
                        Stage::Const(b) => SExp::Const(b),
                        Stage::Var(y) => SExp::Var(VarId(y.0)),
                        Stage::Tree(_) => SExp::Var(v),
                    })
                });
                Stage::Tree(Box::new(t))
            }
        };
        self.st.ref_stage(&out);
        out
    }

    /// A data value in the copy: its variables substituted, its lambdas
    /// copied.
    fn copy_data(&mut self, a: &Atom, c: &mut Copy) -> Val {
        let mut a = a.clone();
        let m = self.st.alloc(Kind::Data(Box::new(Atom::Int(0))), Owner::None);
        let mut handles = Vec::new();
        let mut vars = Vec::new();
        super::data::walk_mut(&mut a, &mut |x| {
            if let Atom::Var(v) = x {
                vars.push(*v);
            } else if let Some(h) = super::store::handle_of(x) {
                handles.push(h);
            }
        });
        let mut subst: FxHashMap<VarId, Atom> = FxHashMap::default();
        for v in vars {
            let w = self.occurrence(SlotId(v.0), c);
            subst.insert(v, self.inline_atom(w));
        }
        let mut copies: FxHashMap<NodeId, NodeId> = FxHashMap::default();
        for h in handles {
            if let Val::Node(k) = self.copy_with(Val::Node(h), c) {
                self.st.set_owner(k, Owner::Node(m));
                copies.insert(h, k);
            }
        }
        super::data::walk_mut(&mut a, &mut |x| {
            if let Atom::Var(v) = x {
                if let Some(w) = subst.get(v) {
                    *x = w.clone();
                }
            } else if let Some(h) = super::store::handle_of(x) {
                if let Some(k) = copies.get(&h) {
                    *x = super::store::handle(*k);
                }
            }
        });
        self.st.nodes[m.ix()].kind = Kind::Data(Box::new(a));
        Val::Node(m)
    }

    /// An inline value as an atom (a variable as `Atom::Var` of its slot).
    pub(super) fn inline_atom(&self, v: Val) -> Atom {
        match v {
            Val::Var(s) => Atom::Var(VarId(s.0)),
            Val::Int(i) => Atom::Int(i.get()),
            Val::Bool(b) => Atom::Bool(b),
            Val::Stage(b) => Atom::Stage(b),
            Val::Builtin(b) => Atom::Builtin(b),
            Val::Node(n) => super::store::handle(n),
        }
    }
}
