//! Templates: the copy of a shared lambda's body recorded once, as the
//! flat list of what [`Engine::copy_with`] does to the store, and replayed
//! for every later β that copies the lambda.
//!
//! A replay does exactly what the walk would: the same nodes and slots in
//! the same order, the same occurrences counted, the same bodies in
//! post-order. What it saves is the walk itself: reading the original
//! node by node, looking binders up in the copy's map, cloning stages.
//!
//! A template stays valid while nothing inside its lambda changes
//! ([`Node::changed`]): a lambda held in several places is never reduced
//! inside, but one held once may be, and then its template is dropped.
//! Lambdas with locals, data values or compound staging expressions
//! inside are copied by the walk.
//!
//! [`Engine::copy_with`]: super::Engine
//! [`Node::changed`]: super::store::Node::changed

use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::copy::{Copy, Subst};
use super::load::Dest;
use super::store::{CmdN, ExprN, Kind, LamN, NodeId, Owner, SlotId, Stage, Val};
use super::Engine;
use crate::expr::Expr;
use crate::term::VarId;

/// [`LamN::tpl`] of a lambda never copied by a β.
pub const NO_TEMPLATE: u32 = u32::MAX;
/// [`LamN::tpl`] of a lambda copied once: the next copy records.
pub const COPIED_ONCE: u32 = u32::MAX - 1;
/// [`LamN::tpl`] of a lambda the walk must copy.
pub const NOT_TEMPLATED: u32 = u32::MAX - 2;

/// What an occurrence or inline value of the original becomes.
#[derive(Clone, Copy, PartialEq)]
enum TVal {
    /// An inline value, as it is.
    Leaf(Val),
    /// The copy's `j`-th new binder.
    Fresh(u32),
    /// The `i`-th binder of the lambda (0: its staging parameter), as the
    /// β substitutes it.
    Param(u32),
    /// A variable bound outside the lambda, shared.
    Free(SlotId),
}

/// A binder of the copy.
#[derive(Clone, Copy, PartialEq)]
enum Binder {
    /// A new slot copying the source variable.
    New(VarId),
    /// The `j`-th new binder again (a recursive name: the fix's and the
    /// recursive value's).
    Again(u32),
}

/// Where a value goes: the copy's root, or field `i` of the `k`-th node
/// made.
#[derive(Clone, Copy, PartialEq)]
enum TDest {
    Out,
    Field(u32, u32),
}

/// One thing the copy does, in order.
#[derive(PartialEq)]
enum Op {
    /// Puts an occurrence or inline value.
    Put(TDest, TVal),
    /// Makes an application body with `len` arguments.
    App { dest: TDest, stage: TVal, site: u32, len: u32 },
    /// Makes a `fix` body.
    Fix {
        dest: TDest,
        stage: TVal,
        site: u32,
        sparam: Binder,
        name: Binder,
    },
    /// Makes a lambda; its parameters are `binders[params.0..params.1]`.
    Lam {
        dest: TDest,
        sparam: Binder,
        params: (u32, u32),
        rest: Option<u32>,
        site: u32,
    },
    /// Makes a recursive lambda (its count hint read from `orig`).
    Rec { dest: TDest, name: Binder, orig: NodeId },
    /// Makes a tuple of `len` elements.
    Tuple { dest: TDest, len: u32 },
    /// Makes a splice.
    Splice { dest: TDest },
    /// Makes an expression with `len` operands.
    Expr {
        dest: TDest,
        tpl: Same<Expr>,
        vars: Same<[VarId]>,
        len: u32,
    },
    /// The `k`-th node made, a body, is complete (post-order).
    Exit(u32),
}

/// A value shared with the original, the same when it is the same
/// allocation.
struct Same<T: ?Sized>(Arc<T>);

impl<T: ?Sized> PartialEq for Same<T> {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// A recorded copy of a lambda's body.
#[derive(PartialEq)]
pub(super) struct Template {
    ops: Vec<Op>,
    /// The parameters of the lambdas made.
    binders: Vec<Binder>,
}

/// The walk of a recording, as [`Engine::copy_with`]'s.
enum Visit {
    Enter(Val, TDest),
    Exit(u32),
}

/// The store's templates, and the scratch of replays.
#[derive(Default)]
pub(super) struct Templates {
    all: Vec<Option<Template>>,
    free: Vec<u32>,
    made: Vec<NodeId>,
    fresh: Vec<SlotId>,
}

impl Templates {
    /// Lets template `i` go (a [`LamN::tpl`] value that is no index is
    /// ignored).
    pub fn release(&mut self, i: u32) {
        if let Some(t) = self.all.get_mut(i as usize) {
            if t.take().is_some() {
                self.free.push(i);
            }
        }
    }

    fn add(&mut self, t: Template) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.all[i as usize] = Some(t);
                i
            }
            None => {
                self.all.push(Some(t));
                u32::try_from(self.all.len() - 1).unwrap_or(NOT_TEMPLATED)
            }
        }
    }
}

impl Engine {
    /// Marks node `n` and the nodes above it as changed in place, up to
    /// the first already marked (every node above a changed one is
    /// changed) or to a slot's value.
    pub(super) fn touch(&mut self, n: NodeId) {
        let mut cur = n;
        loop {
            let node = &mut self.st.nodes[cur.ix()];
            if node.changed {
                return;
            }
            node.changed = true;
            match self.st.owner(cur) {
                Owner::Node(p) => cur = p,
                Owner::Slot(_) | Owner::None => return,
            }
        }
    }

    /// Sets field `i` of node `n`, which stands in the term (not one being
    /// built): `n` and the nodes above it are marked changed.
    pub(super) fn set_field_in_place(&mut self, n: NodeId, i: u32, v: Val) {
        self.touch(n);
        self.set_field(n, i, v);
    }

    /// The template to copy the body of lambda `lam` with, recording it on
    /// the lambda's second copy; `None`: copy by the walk (a lambda with
    /// locals is never recorded, and one that gets locals is changed).
    pub(super) fn template_for(&mut self, lam: NodeId) -> Option<u32> {
        let changed = self.st.nodes[lam.ix()].changed;
        let Kind::Lam(l) = &mut self.st.nodes[lam.ix()].kind else {
            return None;
        };
        if changed {
            let old = std::mem::replace(&mut l.tpl, NOT_TEMPLATED);
            self.templates.release(old);
            return None;
        }
        match l.tpl {
            NO_TEMPLATE => {
                l.tpl = COPIED_ONCE;
                None
            }
            NOT_TEMPLATED => None,
            COPIED_ONCE => {
                let t = self.record(lam);
                let i = t.map_or(NOT_TEMPLATED, |t| self.templates.add(t));
                if let Kind::Lam(l) = &mut self.st.nodes[lam.ix()].kind {
                    l.tpl = i;
                }
                (i != NOT_TEMPLATED).then_some(i)
            }
            i => Some(i),
        }
    }

    /// Records the copy of the body of lambda `lam`, visiting as
    /// [`Engine::copy_with`] does; `None` when something inside is copied
    /// by the walk only.
    fn record(&self, lam: NodeId) -> Option<Template> {
        let Kind::Lam(l) = self.st.kind(lam) else { return None };
        if l.locals != SlotId::NONE {
            return None;
        }
        let mut params: FxHashMap<SlotId, u32> = FxHashMap::default();
        params.insert(l.sparam, 0);
        for (i, p) in l.params.iter().enumerate() {
            params.insert(*p, u32::try_from(i + 1).ok()?);
        }
        let mut fresh: FxHashMap<SlotId, u32> = FxHashMap::default();
        let mut ops = Vec::new();
        let mut binders = Vec::new();
        let mut count = 0u32;
        let occurrence = |s: SlotId, fresh: &FxHashMap<SlotId, u32>| match (params.get(&s), fresh.get(&s)) {
            (Some(&i), _) => TVal::Param(i),
            (None, Some(&j)) => TVal::Fresh(j),
            (None, None) => TVal::Free(s),
        };
        let binder = |s: SlotId, fresh: &mut FxHashMap<SlotId, u32>| match fresh.get(&s) {
            Some(&j) => Binder::Again(j),
            None => {
                let j = u32::try_from(fresh.len()).unwrap_or(u32::MAX);
                fresh.insert(s, j);
                Binder::New(self.st.slots[s.ix()].origin())
            }
        };
        let stage = |s: &Stage, fresh: &FxHashMap<SlotId, u32>| match s {
            Stage::Const(b) => Some(TVal::Leaf(Val::Stage(*b))),
            Stage::Var(x) => Some(occurrence(*x, fresh)),
            Stage::Tree(_) => None,
        };
        let mut stack = vec![Visit::Enter(Val::Node(l.body), TDest::Out)];
        while let Some(visit) = stack.pop() {
            let (v, dest) = match visit {
                Visit::Exit(k) => {
                    ops.push(Op::Exit(k));
                    continue;
                }
                Visit::Enter(v, dest) => (v, dest),
            };
            let n = match v {
                Val::Var(s) => {
                    ops.push(Op::Put(dest, occurrence(s, &fresh)));
                    continue;
                }
                Val::Node(n) => n,
                other => {
                    ops.push(Op::Put(dest, TVal::Leaf(other)));
                    continue;
                }
            };
            let k = count;
            count += 1;
            match self.st.kind(n) {
                Kind::Free(_) | Kind::Data(_) => return None,
                Kind::Body(b) => {
                    let st = stage(&b.stage, &fresh)?;
                    match &b.cmd {
                        CmdN::App { head, args } => {
                            let len = u32::try_from(args.len()).ok()?;
                            ops.push(Op::App {
                                dest,
                                stage: st,
                                site: b.site,
                                len,
                            });
                            stack.push(Visit::Exit(k));
                            for (i, a) in args.iter().enumerate().rev() {
                                stack.push(Visit::Enter(*a, TDest::Field(k, u32::try_from(i + 1).ok()?)));
                            }
                            stack.push(Visit::Enter(*head, TDest::Field(k, 0)));
                        }
                        CmdN::Fix { sparam, name, lam, body } => {
                            let sparam = binder(*sparam, &mut fresh);
                            let name = binder(*name, &mut fresh);
                            ops.push(Op::Fix {
                                dest,
                                stage: st,
                                site: b.site,
                                sparam,
                                name,
                            });
                            stack.push(Visit::Exit(k));
                            stack.push(Visit::Enter(Val::Node(*body), TDest::Field(k, 1)));
                            stack.push(Visit::Enter(Val::Node(*lam), TDest::Field(k, 0)));
                        }
                    }
                }
                Kind::Lam(m) => {
                    if m.locals != SlotId::NONE {
                        return None;
                    }
                    let sparam = binder(m.sparam, &mut fresh);
                    let start = u32::try_from(binders.len()).ok()?;
                    for p in m.params.iter() {
                        binders.push(binder(*p, &mut fresh));
                    }
                    let end = u32::try_from(binders.len()).ok()?;
                    ops.push(Op::Lam {
                        dest,
                        sparam,
                        params: (start, end),
                        rest: m.rest,
                        site: m.site,
                    });
                    stack.push(Visit::Enter(Val::Node(m.body), TDest::Field(k, 0)));
                }
                &Kind::Rec { name, lam, .. } => {
                    let name = binder(name, &mut fresh);
                    ops.push(Op::Rec { dest, name, orig: n });
                    stack.push(Visit::Enter(Val::Node(lam), TDest::Field(k, 0)));
                }
                Kind::Tuple(xs) => {
                    ops.push(Op::Tuple {
                        dest,
                        len: u32::try_from(xs.len()).ok()?,
                    });
                    for (i, x) in xs.iter().enumerate().rev() {
                        stack.push(Visit::Enter(*x, TDest::Field(k, u32::try_from(i).ok()?)));
                    }
                }
                &Kind::Splice(x) => {
                    ops.push(Op::Splice { dest });
                    stack.push(Visit::Enter(x, TDest::Field(k, 0)));
                }
                Kind::Expr(e) => {
                    ops.push(Op::Expr {
                        dest,
                        tpl: Same(e.tpl.clone()),
                        vars: Same(e.vars.clone()),
                        len: u32::try_from(e.holes.len()).ok()?,
                    });
                    for (i, x) in e.holes.iter().enumerate().rev() {
                        stack.push(Visit::Enter(*x, TDest::Field(k, u32::try_from(i).ok()?)));
                    }
                }
            }
        }
        Some(Template { ops, binders })
    }

    /// Replays template `i` for a β whose lambda's binders (staging
    /// parameter first) stand for `params`: the copy of the body, its
    /// bodies added to `c` in post-order. The new nodes have no owner.
    pub(super) fn instantiate(&mut self, i: u32, params: &[Subst], c: &mut Copy) -> Val {
        let Some(t) = self.templates.all.get_mut(i as usize).and_then(Option::take) else {
            return Val::EMPTY;
        };
        let mut made = std::mem::take(&mut self.templates.made);
        let mut fresh = std::mem::take(&mut self.templates.fresh);
        made.clear();
        fresh.clear();
        let mut out = Val::EMPTY;
        for op in &t.ops {
            match op {
                Op::Put(dest, v) => {
                    let w = self.occurrence_of(*v, params, &fresh);
                    let dest = dest_of(*dest, &made);
                    self.put(dest, w, &mut out);
                }
                Op::Exit(k) => c.bodies.push(made[*k as usize]),
                op => {
                    crate::memory::tick();
                    let (dest, m) = match op {
                        Op::App { dest, stage, site, len } => {
                            let stage = self.stage_of(*stage, params, &fresh);
                            let cmd = CmdN::App {
                                head: Val::EMPTY,
                                args: super::store::empty_args(*len as usize),
                            };
                            (dest, self.body_node(stage, cmd, *site))
                        }
                        Op::Fix {
                            dest,
                            stage,
                            site,
                            sparam,
                            name,
                        } => {
                            let stage = self.stage_of(*stage, params, &fresh);
                            let sparam = self.new_binder(*sparam, &mut fresh);
                            let name = self.new_binder(*name, &mut fresh);
                            (dest, self.fix_node(stage, sparam, name, *site))
                        }
                        Op::Lam {
                            dest,
                            sparam,
                            params: (start, end),
                            rest,
                            site,
                        } => {
                            let sparam = self.new_binder(*sparam, &mut fresh);
                            let mut ps = super::store::ParamList::new();
                            for b in &t.binders[*start as usize..*end as usize] {
                                let p = self.new_binder(*b, &mut fresh);
                                ps.push(p);
                            }
                            let lam = LamN {
                                sparam,
                                params: ps,
                                rest: *rest,
                                body: NodeId::NONE,
                                site: *site,
                                locals: SlotId::NONE,
                                locals_tail: SlotId::NONE,
                                tpl: NO_TEMPLATE,
                            };
                            (dest, self.st.alloc(Kind::Lam(Box::new(lam)), Owner::None))
                        }
                        Op::Rec { dest, name, orig } => {
                            let name = self.new_binder(*name, &mut fresh);
                            let inner = match self.st.kind(*orig) {
                                Kind::Rec { inner, .. } => *inner,
                                _ => super::store::UNCOUNTED,
                            };
                            let kind = Kind::Rec {
                                name,
                                lam: NodeId::NONE,
                                inner,
                            };
                            (dest, self.st.alloc(kind, Owner::None))
                        }
                        Op::Tuple { dest, len } => {
                            let kind = Kind::Tuple(Box::new(vec![Val::EMPTY; *len as usize].into()));
                            (dest, self.st.alloc(kind, Owner::None))
                        }
                        Op::Splice { dest } => (dest, self.st.alloc(Kind::Splice(Val::EMPTY), Owner::None)),
                        Op::Expr { dest, tpl, vars, len } => {
                            let kind = Kind::Expr(Box::new(ExprN {
                                tpl: tpl.0.clone(),
                                vars: vars.0.clone(),
                                holes: super::store::empty_holes(*len as usize),
                            }));
                            (dest, self.st.alloc(kind, Owner::None))
                        }
                        Op::Put(..) | Op::Exit(_) => continue,
                    };
                    let dest = dest_of(*dest, &made);
                    self.put(dest, Val::Node(m), &mut out);
                    made.push(m);
                }
            }
        }
        self.templates.all[i as usize] = Some(t);
        self.templates.made = made;
        self.templates.fresh = fresh;
        out
    }

    /// For [`Engine::check`]: a lambda with a template was not changed
    /// since it was made, and its template is what recording it now
    /// makes.
    pub(super) fn check_template(&self, lam: NodeId) -> Result<(), String> {
        let Kind::Lam(l) = self.st.kind(lam) else { return Ok(()) };
        let Some(Some(t)) = self.templates.all.get(l.tpl as usize) else {
            return Ok(());
        };
        // A changed lambda's template is stale: dropped at its next copy.
        if self.st.nodes[lam.ix()].changed {
            return Ok(());
        }
        match self.record(lam) {
            Some(now) if now == *t => Ok(()),
            _ => Err(format!("the template of {lam:?} is not what recording it makes now")),
        }
    }

    /// A binder of the copy: a new slot, or one made already.
    fn new_binder(&mut self, b: Binder, fresh: &mut Vec<SlotId>) -> SlotId {
        let f = match b {
            Binder::New(origin) => {
                let f = self.st.slot(origin);
                fresh.push(f);
                f
            }
            Binder::Again(j) => fresh[j as usize],
        };
        self.st.slots[f.ix()].refs += 1;
        f
    }

    /// An occurrence in the copy (counted), or an inline value.
    fn occurrence_of(&mut self, v: TVal, params: &[Subst], fresh: &[SlotId]) -> Val {
        let w = match v {
            TVal::Leaf(v) => return v,
            TVal::Fresh(j) => Val::Var(fresh[j as usize]),
            TVal::Param(i) => params[i as usize].occurrence(),
            TVal::Free(s) => Val::Var(s),
        };
        if let Val::Var(t) = w {
            self.add_occ(t);
        }
        w
    }

    /// A staging expression of the copy (its slots referenced), as
    /// [`Engine::copy_with`] substitutes it.
    fn stage_of(&mut self, v: TVal, params: &[Subst], fresh: &[SlotId]) -> Stage {
        let out = match v {
            TVal::Leaf(Val::Stage(b)) => Stage::Const(b),
            TVal::Leaf(_) => Stage::Const(true),
            TVal::Fresh(j) => Stage::Var(fresh[j as usize]),
            TVal::Param(i) => params[i as usize].stage(),
            TVal::Free(s) => Stage::Var(s),
        };
        self.st.ref_stage(&out);
        out
    }
}

/// The destination of a replayed value.
fn dest_of(d: TDest, made: &[NodeId]) -> Dest {
    match d {
        TDest::Out => Dest::Out,
        TDest::Field(k, i) => Dest::Field(made[k as usize], i),
    }
}
