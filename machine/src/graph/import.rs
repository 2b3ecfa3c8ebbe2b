//! Building graph nodes from core terms: the whole program at the start, and
//! the values that expressions compute. Iterative (terms may be 10^6 deep);
//! every binder gets a fresh graph variable.

use super::lit::Lit;
use super::node::{hole, GVar, Graph, Kind, NodeBody, NodeCmd, NodeId, NodeLambda, NodeParam, Readiness, VarState};
use crate::expr::Expr;
use crate::term::{self, Arg, Atom, SExp, VarId};

/// One piece of work: build the node for a term part and put it in slot
/// `slot` (in walk order) of `parent`.
enum Task<'t> {
    Body(&'t term::Body, NodeId, usize),
    Atom(&'t Atom, NodeId, usize),
    Owned(Atom, NodeId, usize),
    Splice(&'t Atom, NodeId, usize),
    Lambda(&'t term::Lambda, NodeId, usize),
    /// Restore the meaning of a term variable after its scope.
    Unbind(VarId, Option<GVar>),
    /// (For a `Rec` whose lambda is built:) set its name's binding.
    SelfRec(GVar, NodeId),
}

/// What each term variable in scope means in the graph: a table indexed
/// by the variable for a program's own variables (dense ids, millions of
/// them in a long program), a hash map for the few of a computed value.
enum VarMap {
    /// Invariant: [`VarMap::UNSET`] where a variable is not in scope.
    Dense(Vec<GVar>),
    Hashed(rustc_hash::FxHashMap<VarId, GVar>),
}

impl VarMap {
    const UNSET: GVar = VarId(u32::MAX);

    fn get(&self, v: VarId) -> Option<GVar> {
        match self {
            VarMap::Dense(t) => t.get(v.0 as usize).copied().filter(|w| *w != Self::UNSET),
            VarMap::Hashed(m) => m.get(&v).copied(),
        }
    }

    /// Sets what `v` means; returns what it meant.
    fn insert(&mut self, v: VarId, w: GVar) -> Option<GVar> {
        match self {
            VarMap::Dense(t) => {
                let i = v.0 as usize;
                if i >= t.len() {
                    t.resize(i + 1, Self::UNSET);
                }
                let old = std::mem::replace(&mut t[i], w);
                (old != Self::UNSET).then_some(old)
            }
            VarMap::Hashed(m) => m.insert(v, w),
        }
    }

    /// Takes `v` out of scope.
    fn remove(&mut self, v: VarId) {
        match self {
            VarMap::Dense(t) => {
                if let Some(x) = t.get_mut(v.0 as usize) {
                    *x = Self::UNSET;
                }
            }
            VarMap::Hashed(m) => {
                m.remove(&v);
            }
        }
    }
}

/// Builds nodes from terms.
pub struct Importer {
    /// What each term variable in scope means in the graph.
    map: VarMap,
    /// Nodes made, in creation (pre-)order.
    pub made: Vec<NodeId>,
    /// What the term variables are.
    vars: TermVars,
}

/// What the variables of the imported terms are.
enum TermVars {
    /// Source variables (the program): each binder's origin is itself.
    Source,
    /// This graph's variables (values computed by expressions): a binder
    /// copies the origin of the variable it was.
    Graph,
    /// Another machine's graph variables (a unit of the parallel driver
    /// going out or coming back): the origins of the binders are given, and
    /// the free variables are mapped in advance ([`Importer::foreign`]).
    Foreign(rustc_hash::FxHashMap<VarId, VarId>),
}

impl Importer {
    /// An importer of source terms (variables are the front end's).
    pub fn source() -> Importer {
        Importer {
            map: VarMap::Dense(Vec::new()),
            made: Vec::new(),
            vars: TermVars::Source,
        }
    }

    /// An importer of computed values (free variables are graph variables).
    pub fn values() -> Importer {
        Importer {
            map: VarMap::Hashed(Default::default()),
            made: Vec::new(),
            vars: TermVars::Graph,
        }
    }

    /// An importer of terms over another machine's graph variables:
    /// `free` maps the variables bound outside the imported term to this
    /// graph's variables; `origins` gives the source variable of each binder
    /// of the term (for names).
    pub fn foreign(free: impl IntoIterator<Item = (VarId, GVar)>, origins: rustc_hash::FxHashMap<VarId, VarId>) -> Importer {
        Importer {
            map: VarMap::Hashed(free.into_iter().collect()),
            made: Vec::new(),
            vars: TermVars::Foreign(origins),
        }
    }

    /// The source variable that the binder `v` of the term copies.
    fn origin(&self, g: &Graph, v: VarId) -> VarId {
        match &self.vars {
            TermVars::Source => v,
            TermVars::Graph => g.var(v).origin,
            TermVars::Foreign(o) => {
                debug_assert!(o.contains_key(&v), "no origin for the binder {v:?}");
                o.get(&v).copied().unwrap_or(v)
            }
        }
    }

    fn lookup(&self, g: &Graph, v: VarId) -> GVar {
        match self.map.get(v) {
            Some(w) => w,
            None => {
                debug_assert!(
                    matches!(self.vars, TermVars::Graph) || (v.0 as usize) < g.vars.len(),
                    "unbound variable {v:?}"
                );
                v
            }
        }
    }

    fn bind(&mut self, g: &mut Graph, v: VarId, tasks: &mut Vec<Task<'_>>) -> GVar {
        let origin = self.origin(g, v);
        let fresh = g.fresh_var(origin);
        let old = self.map.insert(v, fresh);
        tasks.push(Task::Unbind(v, old));
        fresh
    }

    fn stage(&self, g: &Graph, s: &SExp) -> SExp {
        let mut s = s.clone();
        crate::term::rewrite_stage(&mut s, &|v| Some(SExp::Var(self.lookup(g, v))));
        s
    }

    fn node(&mut self, g: &mut Graph, kind: Kind, parent: NodeId, slot: usize) -> NodeId {
        let id = g.alloc(kind);
        self.made.push(id);
        if parent != NodeId::NONE {
            set_child(g, parent, slot, id);
        }
        id
    }

    /// Builds a body (detached); returns its node.
    pub fn body(&mut self, g: &mut Graph, b: &term::Body) -> NodeId {
        let mut tasks = vec![Task::Body(b, NodeId::NONE, 0)];
        self.run(g, &mut tasks)
    }

    /// Builds an atom (detached); returns its node.
    pub fn atom(&mut self, g: &mut Graph, a: Atom) -> NodeId {
        let mut tasks = vec![Task::Owned(a, NodeId::NONE, 0)];
        self.run(g, &mut tasks)
    }

    fn run<'t>(&mut self, g: &mut Graph, tasks: &mut Vec<Task<'t>>) -> NodeId {
        let mut first = NodeId::NONE;
        while let Some(task) = tasks.pop() {
            crate::memory::tick();
            let made = match task {
                Task::Unbind(v, old) => {
                    match old {
                        Some(w) => {
                            self.map.insert(v, w);
                        }
                        None => self.map.remove(v),
                    }
                    continue;
                }
                Task::SelfRec(v, rec) => {
                    g.var_mut(v).set_bound(VarState::SelfRec(rec));
                    continue;
                }
                Task::Body(b, parent, slot) => self.make_body(g, b, parent, slot, tasks),
                Task::Lambda(l, parent, slot) => self.make_lambda(g, l, parent, slot, tasks),
                Task::Atom(a, parent, slot) => self.make_atom(g, AtomRef::Borrowed(a), parent, slot, tasks),
                Task::Owned(a, parent, slot) => self.make_atom(g, AtomRef::Owned(a), parent, slot, tasks),
                Task::Splice(a, parent, slot) => {
                    let id = self.node(g, Kind::Splice(NodeId::NONE), parent, slot);
                    tasks.push(Task::Atom(a, id, 0));
                    id
                }
            };
            if first == NodeId::NONE {
                first = made;
            }
        }
        first
    }

    fn make_body<'t>(&mut self, g: &mut Graph, b: &'t term::Body, parent: NodeId, slot: usize, tasks: &mut Vec<Task<'t>>) -> NodeId {
        let stage = self.stage(g, &b.stage);
        match &b.cmd {
            term::Cmd::App(app) => {
                let id = self.node(
                    g,
                    Kind::Body(Box::new(NodeBody {
                        stage,
                        cmd: NodeCmd::App {
                            head: NodeId::NONE,
                            args: vec![NodeId::NONE; app.args.len()],
                            sugar: app.sugar,
                        },
                        span: b.span,
                        status: Readiness::Inactive,
                    })),
                    parent,
                    slot,
                );
                for (i, a) in app.args.iter().enumerate().rev() {
                    tasks.push(match a {
                        Arg::Atom(x) => Task::Atom(x, id, i + 1),
                        Arg::Splice(x) => Task::Splice(x, id, i + 1),
                    });
                }
                tasks.push(Task::Atom(&app.head, id, 0));
                id
            }
            term::Cmd::Fix(fix) => {
                // The binders are made before the body is pushed; their
                // scopes end with the tasks pushed first (popped last).
                let sparam = self.bind(g, fix.sparam, tasks);
                let origin = self.origin(g, fix.name);
                let name_in = g.fresh_var(origin);
                let name_out = g.fresh_var(origin);
                let id = self.node(
                    g,
                    Kind::Body(Box::new(NodeBody {
                        stage,
                        cmd: NodeCmd::Fix {
                            sparam,
                            name_in,
                            name_out,
                            lam: NodeId::NONE,
                            body: NodeId::NONE,
                        },
                        span: b.span,
                        status: Readiness::Inactive,
                    })),
                    parent,
                    slot,
                );
                let old = self.map.get(fix.name);
                // Popped in this order: [name := in] lam [name := out] body [restore].
                tasks.push(Task::Unbind(fix.name, old));
                tasks.push(Task::Body(&fix.body, id, 1));
                tasks.push(Task::Unbind(fix.name, Some(name_out)));
                tasks.push(Task::Lambda(&fix.lam, id, 0));
                self.map.insert(fix.name, name_in);
                id
            }
        }
    }

    fn make_lambda<'t>(&mut self, g: &mut Graph, l: &'t term::Lambda, parent: NodeId, slot: usize, tasks: &mut Vec<Task<'t>>) -> NodeId {
        let sparam = self.bind(g, l.sparam, tasks);
        let params = l
            .params
            .iter()
            .map(|p| NodeParam {
                var: self.bind(g, p.var, tasks),
                rest: p.rest,
            })
            .collect();
        let id = self.node(
            g,
            Kind::Lambda(Box::new(NodeLambda {
                sparam,
                params,
                body: NodeId::NONE,
                span: l.span,
            })),
            parent,
            slot,
        );
        tasks.push(Task::Body(&l.body, id, 0));
        id
    }

    fn make_atom<'t>(&mut self, g: &mut Graph, mut a: AtomRef<'t>, parent: NodeId, slot: usize, tasks: &mut Vec<Task<'t>>) -> NodeId {
        match a.get() {
            Atom::Var(v) => {
                let w = self.lookup(g, *v);
                let id = self.node(g, Kind::Ref(w), parent, slot);
                g.add_occ(w, id);
                id
            }
            Atom::Int(_) | Atom::Float(_) | Atom::Bool(_) | Atom::Str(_) | Atom::Stage(_) | Atom::Builtin(_) | Atom::Matrix(_) => {
                let Some(lit) = Lit::from_atom(a.get()) else { return NodeId::NONE };
                self.node(g, Kind::Lit(lit), parent, slot)
            }
            Atom::Lambda(_) => match a {
                AtomRef::Borrowed(Atom::Lambda(l)) => self.make_lambda(g, l, parent, slot, tasks),
                AtomRef::Owned(own) => {
                    let Atom::Lambda(l) = &own else { return NodeId::NONE };
                    // Owned lambdas come from computed values: small; build
                    // them from a borrowed copy kept alive by a nested run.
                    let id = {
                        let mut inner = vec![Task::Lambda(l, NodeId::NONE, 0)];
                        self.run(g, &mut inner)
                    };
                    if parent != NodeId::NONE {
                        set_child(g, parent, slot, id);
                    }
                    id
                }
                _ => NodeId::NONE,
            },
            Atom::Rec(r) => {
                let origin = self.origin(g, r.name);
                let name = g.fresh_var(origin);
                let id = self.node(g, Kind::Rec { name, lam: NodeId::NONE }, parent, slot);
                let old = self.map.insert(r.name, name);
                match a {
                    AtomRef::Borrowed(Atom::Rec(r)) => {
                        tasks.push(Task::Unbind(r.name, old));
                        tasks.push(Task::SelfRec(name, id));
                        tasks.push(Task::Lambda(&r.lam, id, 0));
                    }
                    AtomRef::Owned(Atom::Rec(ref r)) => {
                        let mut inner = vec![Task::Lambda(&r.lam, id, 0)];
                        self.run(g, &mut inner);
                        match old {
                            Some(w) => {
                                self.map.insert(r.name, w);
                            }
                            None => self.map.remove(r.name),
                        };
                        g.var_mut(name).set_bound(VarState::SelfRec(id));
                    }
                    _ => {}
                }
                id
            }
            Atom::Tuple(xs) => {
                let id = self.node(g, Kind::Tuple(vec![NodeId::NONE; xs.len()]), parent, slot);
                match a {
                    AtomRef::Borrowed(Atom::Tuple(xs)) => {
                        for (i, x) in xs.iter().enumerate().rev() {
                            tasks.push(match x {
                                Arg::Atom(x) => Task::Atom(x, id, i),
                                Arg::Splice(x) => Task::Splice(x, id, i),
                            });
                        }
                    }
                    AtomRef::Owned(Atom::Tuple(ref mut xs)) => {
                        for (i, x) in std::mem::take(xs).into_iter().enumerate().rev() {
                            match x {
                                Arg::Atom(x) => tasks.push(Task::Owned(x, id, i)),
                                Arg::Splice(x) => {
                                    let s = self.node(g, Kind::Splice(NodeId::NONE), id, i);
                                    tasks.push(Task::Owned(x, s, 0));
                                }
                            }
                        }
                    }
                    _ => {}
                }
                id
            }
            Atom::Record(fs) => {
                let kind = Kind::Record(fs.iter().map(|(f, _)| (f.clone(), NodeId::NONE)).collect());
                let id = self.node(g, kind, parent, slot);
                let values: Vec<AtomRef<'t>> = match a {
                    AtomRef::Borrowed(Atom::Record(fs)) => fs.iter().map(|(_, x)| AtomRef::Borrowed(x)).collect(),
                    AtomRef::Owned(Atom::Record(ref mut fs)) => std::mem::take(fs).into_iter().map(|(_, x)| AtomRef::Owned(x)).collect(),
                    _ => Vec::new(),
                };
                push_refs(tasks, values, id, 0);
                id
            }
            Atom::Map(kvs) => {
                let id = self.node(g, Kind::Map(vec![(NodeId::NONE, NodeId::NONE); kvs.len()]), parent, slot);
                let items: Vec<AtomRef<'t>> = match a {
                    AtomRef::Borrowed(Atom::Map(kvs)) => {
                        kvs.iter().flat_map(|(k, v)| [AtomRef::Borrowed(k), AtomRef::Borrowed(v)]).collect()
                    }
                    AtomRef::Owned(Atom::Map(ref mut kvs)) => std::mem::take(kvs)
                        .into_iter()
                        .flat_map(|(k, v)| [AtomRef::Owned(k), AtomRef::Owned(v)])
                        .collect(),
                    _ => Vec::new(),
                };
                push_refs(tasks, items, id, 0);
                id
            }
            Atom::Expr(e) => {
                let mut e: Expr = (**e).clone();
                let mut leaves = Vec::new();
                for leaf in e.vals_mut() {
                    if !is_lit(leaf) {
                        let k = leaves.len();
                        leaves.push(std::mem::replace(leaf, Atom::Var(hole(k))));
                    }
                }
                let id = self.node(
                    g,
                    Kind::Expr(std::sync::Arc::new(e), vec![NodeId::NONE; leaves.len()].into_boxed_slice()),
                    parent,
                    slot,
                );
                push_refs(tasks, leaves.into_iter().map(AtomRef::Owned).collect(), id, 0);
                id
            }
        }
    }
}

/// A term atom to build, borrowed from the program or owned (computed).
enum AtomRef<'t> {
    Borrowed(&'t Atom),
    Owned(Atom),
}

impl AtomRef<'_> {
    fn get(&self) -> &Atom {
        match self {
            AtomRef::Borrowed(a) => a,
            AtomRef::Owned(a) => a,
        }
    }
}

fn push_refs<'t>(tasks: &mut Vec<Task<'t>>, items: Vec<AtomRef<'t>>, id: NodeId, base: usize) {
    for (i, x) in items.into_iter().enumerate().rev() {
        tasks.push(match x {
            AtomRef::Borrowed(x) => Task::Atom(x, id, base + i),
            AtomRef::Owned(x) => Task::Owned(x, id, base + i),
        });
    }
}

/// Whether an atom is a plain value with no variables or bodies inside (it
/// stays inline in an expression, or becomes a [`Kind::Lit`] node).
pub fn is_lit(a: &Atom) -> bool {
    Lit::admits(a)
}

/// Puts `child` into slot `slot` (walk order) of `parent`, and links it.
pub fn set_child(g: &mut Graph, parent: NodeId, slot: usize, child: NodeId) {
    g.nodes[child.ix()].parent = parent;
    match &mut g.nodes[parent.ix()].kind {
        Kind::Body(b) => match &mut b.cmd {
            NodeCmd::App { head, args, .. } => {
                if slot == 0 {
                    *head = child;
                } else {
                    args[slot - 1] = child;
                }
            }
            NodeCmd::Fix { lam, body, .. } => {
                if slot == 0 {
                    *lam = child;
                } else {
                    *body = child;
                }
            }
        },
        Kind::Lambda(l) => l.body = child,
        Kind::Rec { lam, .. } => *lam = child,
        Kind::Splice(c) => *c = child,
        Kind::Tuple(xs) => xs[slot] = child,
        Kind::Expr(_, xs) => xs[slot] = child,
        Kind::Record(fs) => fs[slot].1 = child,
        Kind::Map(kvs) => {
            if slot.is_multiple_of(2) {
                kvs[slot / 2].0 = child;
            } else {
                kvs[slot / 2].1 = child;
            }
        }
        Kind::Free(_) | Kind::Ref(_) | Kind::Lit(_) | Kind::Share(_) => debug_assert!(false, "{parent:?} has no slots"),
    }
}
