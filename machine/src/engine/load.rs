//! Terms into the store: the program as loaded (every binder a new slot),
//! and the values expressions compute (their variables are slots already,
//! their lambdas handles of nodes, which get copies). Iterative: a stack
//! of parts still to build, each writing into its parent's field.

use std::sync::Arc;

use super::store::{handle, handle_of, BodyN, CmdN, ExprN, Kind, LamN, NodeId, Owner, SlotId, SlotState, Stage, Status, Val};
use super::Engine;
use crate::term::{Arg, Atom, Body, Cmd, Lambda, SExp, VarId};

/// Whether an expression's leaf stays in its template: a variable (a hole
/// of its own) or a value that holds no variable and no lambda.
fn inline_leaf(a: &Atom) -> bool {
    matches!(
        a,
        Atom::Var(_) | Atom::Int(_) | Atom::Bool(_) | Atom::Stage(_) | Atom::Builtin(_) | Atom::Float(_) | Atom::Str(_)
    ) || handle_of(a).is_some()
}

/// Where a built part goes.
#[derive(Clone, Copy)]
pub(super) enum Dest {
    /// Handed back to the caller.
    Out,
    /// Field `i` of node `n` (in [`super::store::Store::for_fields`] order).
    Field(NodeId, u32),
    /// The value of a slot.
    Slot(SlotId),
}

/// How the variables of the term being loaded become slots.
pub(super) enum Names {
    /// Source variables: binders get new slots, recorded here by `VarId`.
    Source(Vec<u32>),
    /// A computed value: `VarId(n)` is slot `n`.
    Slots,
}

impl Names {
    /// The slot of variable `v`.
    fn slot(&self, v: VarId) -> SlotId {
        match self {
            Names::Source(map) => SlotId(map.get(v.0 as usize).copied().unwrap_or(u32::MAX)),
            Names::Slots => SlotId(v.0),
        }
    }

    /// Records `s` as the slot of the source variable `v`.
    fn bind(&mut self, v: VarId, s: SlotId) {
        if let Names::Source(map) = self {
            let i = v.0 as usize;
            if map.len() <= i {
                map.resize(i + 1, u32::MAX);
            }
            map[i] = s.0;
        }
    }
}

/// A part still to build. It owns its term, which is freed as it is
/// taken apart: a program's term and its nodes are never both whole.
///
/// A task is small (it may wait as long as the term is deep): the rare
/// bodies and lambdas that wait whole are boxed, and a lambda's body is
/// loaded with the lambda.
enum Task {
    Body(Box<Body>, Dest),
    Atom(Atom, Dest),
    Lambda(Box<Lambda>, Dest),
}

impl Engine {
    /// Loads `a` (see [`Names`]) and returns its value.
    pub(super) fn load_atom(&mut self, a: Atom, names: &mut Names) -> Val {
        let mut out = Val::EMPTY;
        self.load(Task::Atom(a, Dest::Out), names, &mut out);
        out
    }

    /// Loads the body `b` and returns its node.
    pub(super) fn load_body(&mut self, b: Body, names: &mut Names) -> NodeId {
        let mut out = Val::EMPTY;
        self.load(Task::Body(Box::new(b), Dest::Out), names, &mut out);
        match out {
            Val::Node(n) => n,
            _ => unreachable!("a body loads as a node"),
        }
    }

    fn load(&mut self, first: Task, names: &mut Names, out: &mut Val) {
        let mut stack = vec![first];
        // The names of the recursive values loaded, and where they went.
        let mut recs: Vec<(SlotId, Dest)> = Vec::new();
        while let Some(t) = stack.pop() {
            match t {
                Task::Body(mut b, dest) => self.load_body_parts(&mut b, dest, names, out, &mut stack),
                Task::Lambda(mut l, dest) => self.load_lambda(&mut l, dest, names, out, &mut stack),
                Task::Atom(mut a, dest) => {
                    let handle = handle_of(&a);
                    let v = match &mut a {
                        Atom::Var(v) => {
                            let s = names.slot(*v);
                            debug_assert!(s.ix() < self.st.slots.len(), "{v:?} has no slot");
                            self.add_occ(s);
                            Val::Var(s)
                        }
                        Atom::Int(i) => Val::int(*i),
                        Atom::Bool(b) => Val::Bool(*b),
                        Atom::Stage(b) => Val::Stage(*b),
                        Atom::Builtin(b) => Val::Builtin(*b),
                        Atom::Lambda(_) if handle.is_some() => {
                            let h = handle.unwrap_or(NodeId::NONE);
                            match self.st.owner(h) {
                                // A lambda a slot holds (an expression's
                                // operand read through its variable) is
                                // shared through that slot, not copied.
                                Owner::Slot(s) if self.st.slots[s.ix()].state == SlotState::Bound(Val::Node(h)) => {
                                    self.add_occ(s);
                                    Val::Var(s)
                                }
                                _ => self.copy_val(Val::Node(h)),
                            }
                        }
                        Atom::Lambda(l) => {
                            self.load_lambda(l, dest, names, out, &mut stack);
                            continue;
                        }
                        Atom::Rec(r) => {
                            // As `fix` leaves it: the name bound to the
                            // recursive value, which keeps the name's
                            // reference; the place holds an occurrence.
                            let name = self.binder(r.name, names);
                            let n = self.rec_node(name);
                            recs.push((name, dest));
                            self.load_lambda(&mut r.lam, Dest::Field(n, 0), names, out, &mut stack);
                            self.add_occ(name);
                            Val::Var(name)
                        }
                        Atom::Tuple(xs) => {
                            let n = self.st.alloc(Kind::Tuple(Box::new(vec![Val::EMPTY; xs.len()].into())), Owner::None);
                            self.put(dest, Val::Node(n), out);
                            self.push_args(n, 0, std::mem::take(xs), &mut stack);
                            continue;
                        }
                        Atom::Expr(e) => {
                            let mut vars: Vec<VarId> = Vec::new();
                            for leaf in e.vals() {
                                if let Atom::Var(v) = leaf {
                                    if !vars.contains(v) {
                                        vars.push(*v);
                                    }
                                }
                            }
                            let mut holes: Vec<Val> = vars
                                .iter()
                                .map(|v| {
                                    let s = names.slot(*v);
                                    self.add_occ(s);
                                    Val::Var(s)
                                })
                                .collect();
                            // A value substituted into an expression (a
                            // term reached by reduction, not a source) is
                            // a hole of its own, standing for the value
                            // loaded into it.
                            let mut values: Vec<Atom> = Vec::new();
                            for leaf in e.vals_mut() {
                                if !inline_leaf(leaf) {
                                    let v = VarId(u32::MAX - values.len() as u32);
                                    vars.push(v);
                                    holes.push(Val::EMPTY);
                                    values.push(std::mem::replace(leaf, Atom::Var(v)));
                                }
                            }
                            let first = vars.len() - values.len();
                            let n = self.st.alloc(
                                Kind::Expr(Box::new(ExprN {
                                    tpl: {
                                        let span = e.span;
                                        Arc::new(std::mem::replace(&mut **e, crate::expr::Expr::hole(span)))
                                    },
                                    vars: vars.into(),
                                    holes: holes.into_iter().collect(),
                                })),
                                Owner::None,
                            );
                            for (i, x) in values.into_iter().enumerate().rev() {
                                stack.push(Task::Atom(x, Dest::Field(n, (first + i) as u32)));
                            }
                            Val::Node(n)
                        }
                        Atom::Float(_) | Atom::Str(_) | Atom::Record(_) | Atom::Map(_) | Atom::Matrix(_) => {
                            self.load_data(std::mem::replace(&mut a, Atom::Int(0)), names)
                        }
                    };
                    self.put(dest, v, out);
                }
            }
        }
        // A recursive value's name is a local of the lambda around the
        // place holding it, as `fix` makes it (a copy of that lambda
        // copies the value, which may mention its binders); the list
        // takes a reference of its own.
        for (name, dest) in recs {
            let outer = match dest {
                Dest::Field(n, _) if matches!(self.st.kind(n), Kind::Lam(_)) => Some(n),
                Dest::Field(n, _) => self.enclosing_lambda(n),
                Dest::Out | Dest::Slot(_) => None,
            };
            if outer.is_some() {
                self.st.slots[name.ix()].refs += 1;
                let list = self.link(&[name], (SlotId::NONE, SlotId::NONE));
                self.adopt_list(outer, list, false);
            }
        }
    }

    /// Loads body `b` (taking its parts out of it): its node now, its
    /// parts pushed on `stack` to load next.
    fn load_body_parts(&mut self, b: &mut Body, dest: Dest, names: &mut Names, out: &mut Val, stack: &mut Vec<Task>) {
        let site = self.site(b.span);
        let stage = self.load_stage(&b.stage, names);
        match &mut b.cmd {
            Cmd::App(app) => {
                let (head, args) = (std::mem::replace(&mut app.head, Atom::Int(0)), std::mem::take(&mut app.args));
                let n = self.new_body(stage, Val::EMPTY, super::store::empty_args(args.len()), site);
                self.put(dest, Val::Node(n), out);
                self.push_args(n, 1, args, stack);
                stack.push(Task::Atom(head, Dest::Field(n, 0)));
            }
            Cmd::Fix(fix) => {
                let sparam = self.binder(fix.sparam, names);
                let name = self.binder(fix.name, names);
                let n = self.fix_node(stage, sparam, name, site);
                self.put(dest, Val::Node(n), out);
                stack.push(Task::Body(Box::new(fix.body.take()), Dest::Field(n, 1)));
                self.load_lambda(&mut fix.lam, Dest::Field(n, 0), names, out, stack);
            }
        }
    }

    /// Pushes `args`, to load into the fields of node `n` from field
    /// `first` on (a splice into a splice node of its own), last-first:
    /// they are built in reading order.
    fn push_args(&mut self, n: NodeId, first: u32, args: Vec<Arg>, stack: &mut Vec<Task>) {
        for (i, a) in args.into_iter().enumerate().rev() {
            let i = i as u32 + first;
            match a {
                Arg::Atom(x) => stack.push(Task::Atom(x, Dest::Field(n, i))),
                Arg::Splice(x) => {
                    let s = self.st.alloc(Kind::Splice(Val::EMPTY), Owner::Node(n));
                    self.set_field(n, i, Val::Node(s));
                    stack.push(Task::Atom(x, Dest::Field(s, 0)));
                }
            }
        }
    }

    /// Loads lambda `l` and its body (whose parts are left to load next).
    fn load_lambda(&mut self, l: &mut Lambda, dest: Dest, names: &mut Names, out: &mut Val, stack: &mut Vec<Task>) {
        let sparam = self.binder(l.sparam, names);
        let params: Vec<SlotId> = l.params.iter().map(|p| self.binder(p.var, names)).collect();
        let rest = l.params.iter().position(|p| p.rest).map(|r| r as u32);
        let site = self.site(l.span);
        let n = self.st.alloc(
            Kind::Lam(Box::new(LamN {
                sparam,
                params: params.into_iter().collect(),
                rest,
                body: NodeId::NONE,
                site,
                locals: SlotId::NONE,
                locals_tail: SlotId::NONE,
                tpl: super::template::NO_TEMPLATE,
            })),
            Owner::None,
        );
        self.put(dest, Val::Node(n), out);
        self.load_body_parts(&mut l.body, Dest::Field(n, 0), names, out, stack);
    }

    /// A data value: its variables become occurrences, its handles copies
    /// this node owns.
    fn load_data(&mut self, mut a: Atom, names: &mut Names) -> Val {
        let n = self.st.alloc(Kind::Data(Box::new(Atom::Int(0))), Owner::None);
        let mut vars: Vec<VarId> = Vec::new();
        let mut handles: Vec<NodeId> = Vec::new();
        super::data::walk_mut(&mut a, &mut |x| match x {
            Atom::Var(v) => {
                let s = VarId(names.slot(*v).0);
                *v = s;
                vars.push(s);
            }
            _ => {
                if let Some(h) = handle_of(x) {
                    handles.push(h);
                    *x = handle(NodeId(handles.len() as u32 - 1));
                }
            }
        });
        for v in vars {
            self.add_occ(SlotId(v.0));
        }
        // Each handle becomes a handle of a copy owned by the data node.
        let copies: Vec<NodeId> = handles
            .iter()
            .map(|h| match self.copy_val(Val::Node(*h)) {
                Val::Node(c) => {
                    self.st.set_owner(c, Owner::Node(n));
                    c
                }
                _ => NodeId::NONE,
            })
            .collect();
        super::data::walk_mut(&mut a, &mut |x| {
            if let Some(k) = handle_of(x) {
                *x = handle(copies[k.ix()]);
            }
        });
        self.st.nodes[n.ix()].kind = Kind::Data(Box::new(a));
        Val::Node(n)
    }

    /// Slots for the variables of `shared`, each bound to its value (no
    /// binder refers to them: their occurrences keep them; a recursive
    /// value's slot is its name too, whose reference the value keeps, as
    /// after `fix`); returns the values' nodes.
    pub(super) fn load_shared(&mut self, shared: Vec<(VarId, Atom)>, names: &mut Names) -> Vec<NodeId> {
        let slots: Vec<SlotId> = shared
            .iter()
            .map(|(v, a)| {
                let s = self.binder(*v, names);
                match a {
                    // The variable is the recursive value's name too: its
                    // lambda's own occurrences read the same slot, and the
                    // value keeps the reference, as `fix` leaves it.
                    Atom::Rec(r) => names.bind(r.name, s),
                    _ => self.st.slots[s.ix()].refs -= 1,
                }
                s
            })
            .collect();
        let mut nodes = Vec::with_capacity(shared.len());
        for ((_, mut a), s) in shared.into_iter().zip(slots) {
            let v = match &mut a {
                Atom::Rec(r) => {
                    let n = self.rec_node(s);
                    let mut out = Val::EMPTY;
                    self.load(Task::Lambda(Box::new(r.lam.take()), Dest::Field(n, 0)), names, &mut out);
                    nodes.push(n);
                    continue;
                }
                _ => self.load_atom(a, names),
            };
            self.st.slots[s.ix()].state = SlotState::Bound(v);
            self.st.own(v, Owner::Slot(s));
            if let Val::Node(n) = v {
                nodes.push(n);
            }
        }
        nodes
    }

    /// A recursive value named `name` (its lambda still to load), bound
    /// to the name, which owns it.
    fn rec_node(&mut self, name: SlotId) -> NodeId {
        let rec = Kind::Rec {
            name,
            lam: NodeId::NONE,
            inner: super::store::UNCOUNTED,
        };
        let n = self.st.alloc(rec, Owner::Slot(name));
        self.st.slots[name.ix()].state = SlotState::Bound(Val::Node(n));
        n
    }

    /// A new slot for the binder `v`.
    fn binder(&mut self, v: VarId, names: &mut Names) -> SlotId {
        let s = self.st.slot(v);
        self.st.slots[s.ix()].refs += 1;
        names.bind(v, s);
        s
    }

    fn load_stage(&mut self, s: &SExp, names: &Names) -> Stage {
        let stage = match s {
            SExp::Const(b) => Stage::Const(*b),
            SExp::Var(v) => Stage::Var(names.slot(*v)),
            tree => {
                let mut t = tree.clone();
                crate::term::rewrite_stage(&mut t, &|v| Some(SExp::Var(VarId(names.slot(v).0))));
                Stage::Tree(Box::new(t))
            }
        };
        self.st.ref_stage(&stage);
        stage
    }

    /// A new application body.
    pub(super) fn new_body(&mut self, stage: Stage, head: Val, args: super::store::ArgList, site: u32) -> NodeId {
        let n = self.body_node(stage, CmdN::App { head, args }, site);
        self.st.own(head, Owner::Node(n));
        n
    }

    /// A new `fix` body binding `sparam` and `name`, its lambda and scope
    /// still to build.
    pub(super) fn fix_node(&mut self, stage: Stage, sparam: SlotId, name: SlotId, site: u32) -> NodeId {
        let cmd = CmdN::Fix {
            sparam,
            name,
            lam: NodeId::NONE,
            body: NodeId::NONE,
        };
        self.body_node(stage, cmd, site)
    }

    /// A new body with no owner yet, not looked at, of a new generation.
    pub(super) fn body_node(&mut self, stage: Stage, cmd: CmdN, site: u32) -> NodeId {
        let gen = self.next_gen();
        self.st.alloc(
            Kind::Body(Box::new(BodyN {
                stage,
                cmd,
                site,
                gen,
                status: Status::New,
            })),
            Owner::None,
        )
    }

    pub(super) fn put(&mut self, dest: Dest, v: Val, out: &mut Val) {
        match dest {
            Dest::Out => *out = v,
            Dest::Field(n, i) => self.set_field(n, i, v),
            Dest::Slot(s) => {
                self.st.slots[s.ix()].state = super::store::SlotState::Bound(v);
                self.st.own(v, Owner::Slot(s));
            }
        }
    }

    /// Sets field `i` of node `n` (and the owner of what it holds).
    pub(super) fn set_field(&mut self, n: NodeId, i: u32, v: Val) {
        let i = i as usize;
        let as_node = |v: Val| match v {
            Val::Node(c) => c,
            _ => NodeId::NONE,
        };
        match &mut self.st.nodes[n.ix()].kind {
            Kind::Body(b) => match &mut b.cmd {
                CmdN::App { head, args } => {
                    if i == 0 {
                        *head = v;
                    } else {
                        args[i - 1] = v;
                    }
                }
                CmdN::Fix { lam, body, .. } => {
                    if i == 0 {
                        *lam = as_node(v);
                    } else {
                        *body = as_node(v);
                    }
                }
            },
            Kind::Lam(l) => l.body = as_node(v),
            Kind::Rec { lam, .. } => *lam = as_node(v),
            Kind::Tuple(xs) => xs[i] = v,
            Kind::Splice(x) => *x = v,
            Kind::Expr(e) => e.holes[i] = v,
            Kind::Free(_) | Kind::Data(_) => debug_assert!(false, "{n:?} has no fields"),
        }
        self.st.own(v, Owner::Node(n));
    }
}
