//! Building graph nodes from core terms: the whole program at the start, and
//! the values that expressions compute. Iterative (terms may be 10^6 deep);
//! every binder gets a fresh graph variable.

use super::lit::Lit;
use super::node::{hole, GVar, Graph, Kind, NodeBody, NodeCmd, NodeId, NodeLambda, NodeParam, Readiness, VarState};
use crate::expr::Expr;
use crate::term::{self, Arg, Atom, SExp, VarId};

/// One piece of work: build the node for a term part and put it in slot
/// `slot` (in walk order) of `parent`. A task owns its term part, which is
/// taken apart as it is built: the program's term and its nodes are never
/// both whole.
///
/// Tasks wait on a stack as long as the scopes around them (a program of a
/// million statements keeps two million `Unbind`s), so a task is small:
/// the rare bodies and lambdas waiting whole are boxed, and a lambda's
/// body is built with the lambda.
enum Task {
    Body(Box<term::Body>, NodeId, usize),
    Atom(Atom, NodeId, usize),
    Splice(Atom, NodeId, usize),
    Lambda(Box<term::Lambda>, NodeId, usize),
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

    fn bind(&mut self, g: &mut Graph, v: VarId, tasks: &mut Vec<Task>) -> GVar {
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

    /// Builds a body (detached), taking it apart; returns its node.
    pub fn body(&mut self, g: &mut Graph, b: term::Body) -> NodeId {
        let mut tasks = vec![Task::Body(Box::new(b), NodeId::NONE, 0)];
        self.run(g, &mut tasks)
    }

    /// Builds an atom (detached); returns its node.
    pub fn atom(&mut self, g: &mut Graph, a: Atom) -> NodeId {
        let mut tasks = vec![Task::Atom(a, NodeId::NONE, 0)];
        self.run(g, &mut tasks)
    }

    fn run(&mut self, g: &mut Graph, tasks: &mut Vec<Task>) -> NodeId {
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
                Task::Body(mut b, parent, slot) => self.make_body(g, &mut b, parent, slot, tasks),
                Task::Lambda(mut l, parent, slot) => self.make_lambda(g, &mut l, parent, slot, tasks),
                Task::Atom(a, parent, slot) => self.make_atom(g, a, parent, slot, tasks),
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

    /// Builds body `b`, taking its parts out of it to build next.
    fn make_body(&mut self, g: &mut Graph, b: &mut term::Body, parent: NodeId, slot: usize, tasks: &mut Vec<Task>) -> NodeId {
        let stage = self.stage(g, &b.stage);
        match &mut b.cmd {
            term::Cmd::App(app) => {
                let args = std::mem::take(&mut app.args);
                let id = self.node(
                    g,
                    Kind::Body(Box::new(NodeBody {
                        stage,
                        cmd: NodeCmd::App {
                            head: NodeId::NONE,
                            args: vec![NodeId::NONE; args.len()],
                            sugar: app.sugar,
                        },
                        span: b.span,
                        status: Readiness::Inactive,
                    })),
                    parent,
                    slot,
                );
                for (i, a) in args.into_iter().enumerate().rev() {
                    tasks.push(match a {
                        Arg::Atom(x) => Task::Atom(x, id, i + 1),
                        Arg::Splice(x) => Task::Splice(x, id, i + 1),
                    });
                }
                tasks.push(Task::Atom(std::mem::replace(&mut app.head, Atom::Int(0)), id, 0));
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
                let scope = Box::new(fix.body.take());
                // Popped in this order: [name := in] lam [name := out] body [restore].
                tasks.push(Task::Unbind(fix.name, old));
                tasks.push(Task::Body(scope, id, 1));
                tasks.push(Task::Unbind(fix.name, Some(name_out)));
                tasks.push(Task::Lambda(Box::new(fix.lam.take()), id, 0));
                self.map.insert(fix.name, name_in);
                id
            }
        }
    }

    /// Builds lambda `l` and its body (whose parts are left to build next).
    fn make_lambda(&mut self, g: &mut Graph, l: &mut term::Lambda, parent: NodeId, slot: usize, tasks: &mut Vec<Task>) -> NodeId {
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
        self.make_body(g, &mut l.body, id, 0, tasks);
        id
    }

    fn make_atom(&mut self, g: &mut Graph, mut a: Atom, parent: NodeId, slot: usize, tasks: &mut Vec<Task>) -> NodeId {
        match &mut a {
            Atom::Var(v) => {
                let w = self.lookup(g, *v);
                let id = self.node(g, Kind::Ref(w), parent, slot);
                g.add_occ(w, id);
                id
            }
            Atom::Int(_) | Atom::Float(_) | Atom::Bool(_) | Atom::Str(_) | Atom::Stage(_) | Atom::Builtin(_) | Atom::Matrix(_) => {
                let Some(lit) = Lit::from_atom(&a) else { return NodeId::NONE };
                self.node(g, Kind::Lit(lit), parent, slot)
            }
            Atom::Lambda(l) => self.make_lambda(g, l, parent, slot, tasks),
            Atom::Rec(r) => {
                let origin = self.origin(g, r.name);
                let name = g.fresh_var(origin);
                let id = self.node(g, Kind::Rec { name, lam: NodeId::NONE }, parent, slot);
                let old = self.map.insert(r.name, name);
                tasks.push(Task::Unbind(r.name, old));
                tasks.push(Task::SelfRec(name, id));
                tasks.push(Task::Lambda(Box::new(r.lam.take()), id, 0));
                id
            }
            Atom::Tuple(xs) => {
                let id = self.node(g, Kind::Tuple(vec![NodeId::NONE; xs.len()]), parent, slot);
                for (i, x) in std::mem::take(xs).into_iter().enumerate().rev() {
                    tasks.push(match x {
                        Arg::Atom(x) => Task::Atom(x, id, i),
                        Arg::Splice(x) => Task::Splice(x, id, i),
                    });
                }
                id
            }
            Atom::Record(fs) => {
                let fs = std::mem::take(fs);
                let kind = Kind::Record(fs.iter().map(|(f, _)| (f.clone(), NodeId::NONE)).collect());
                let id = self.node(g, kind, parent, slot);
                push_atoms(tasks, fs.into_iter().map(|(_, x)| x).collect(), id);
                id
            }
            Atom::Map(kvs) => {
                let kvs = std::mem::take(kvs);
                let id = self.node(g, Kind::Map(vec![(NodeId::NONE, NodeId::NONE); kvs.len()]), parent, slot);
                push_atoms(tasks, kvs.into_iter().flat_map(|(k, v)| [k, v]).collect(), id);
                id
            }
            Atom::Expr(e) => {
                let span = e.span;
                let mut e: Expr = std::mem::replace(&mut **e, Expr::hole(span));
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
                push_atoms(tasks, leaves, id);
                id
            }
        }
    }
}

/// Pushes the atoms `items` to build into slots `0..` of `id`, in order.
fn push_atoms(tasks: &mut Vec<Task>, items: Vec<Atom>, id: NodeId) {
    for (i, x) in items.into_iter().enumerate().rev() {
        tasks.push(Task::Atom(x, id, i));
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
