//! Reading the graph back as core terms: for printing results, for the
//! values that expressions inspect, for diagnostics and for the views.
//! Iterative: a pre-order pass lists the nodes, then they are built
//! children first.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::node::{hole_index, GVar, Kind, NodeCmd, NodeId, VarState};
use super::Machine;
use crate::term::{self, Application, Arg, Atom, Fix, Lambda, Param, RecLambda, SExp, VarId, Vars};

/// A built part of a term. Pieces wait on the export's result stack for
/// the rest of their parent, as many as the term is deep (a program of a
/// million statements), so a piece is small: bodies and lambdas are boxed.
pub(super) enum Piece {
    Atom(Atom),
    Splice(Atom),
    Body(Box<term::Body>),
    Lambda(Box<term::Lambda>),
    Missing,
}

/// How graph variables become term variables.
pub struct ExportNames {
    /// The variable table of the exported terms (`None`: raw graph ids).
    pub vars: Option<Vars>,
    map: NameMap,
    /// Closed shared values written out once, not at every holder
    /// ([`Machine::into_program_lifted`]); `None`: at every holder.
    lift: Option<Lift>,
}

/// The term variable of each graph variable named so far: a table for a
/// whole term (every variable of a long program), a hash map for a part.
enum NameMap {
    Hashed(HashMap<GVar, VarId>),
    /// Invariant: [`NameMap::UNSET`] where a variable has no name yet.
    Dense(Vec<VarId>),
}

impl NameMap {
    const UNSET: VarId = VarId(u32::MAX);

    fn get(&self, v: GVar) -> Option<VarId> {
        match self {
            NameMap::Hashed(m) => m.get(&v).copied(),
            NameMap::Dense(t) => t.get(v.0 as usize).copied().filter(|x| *x != Self::UNSET),
        }
    }

    fn insert(&mut self, v: GVar, t: VarId) {
        match self {
            NameMap::Hashed(m) => {
                m.insert(v, t);
            }
            NameMap::Dense(table) => {
                let i = v.0 as usize;
                if i >= table.len() {
                    table.resize(i + 1, Self::UNSET);
                }
                table[i] = t;
            }
        }
    }
}

/// The closed shared values of a lifted export: each a variable, in the
/// order met.
#[derive(Default)]
struct Lift {
    var: HashMap<NodeId, VarId>,
    order: Vec<NodeId>,
}

impl ExportNames {
    /// Graph variables are used as term variables as they are.
    pub fn raw() -> ExportNames {
        ExportNames {
            vars: None,
            map: NameMap::Hashed(HashMap::default()),
            lift: None,
        }
    }

    /// Graph variables get term variables in a copy of the source table.
    pub fn printing(source: &Vars) -> ExportNames {
        ExportNames {
            vars: Some(source.clone()),
            map: NameMap::Hashed(HashMap::default()),
            lift: None,
        }
    }

    /// [`ExportNames::printing`] over the table `source`, for writing out
    /// a whole term over `nvars` graph variables: its names in a table
    /// over all of them.
    pub fn whole(source: Vars, nvars: usize) -> ExportNames {
        ExportNames {
            vars: Some(source),
            map: NameMap::Dense(vec![NameMap::UNSET; nvars]),
            lift: None,
        }
    }

    /// Writes each closed shared lambda, and each closed recursive value,
    /// out once ([`Machine::into_program_lifted`]).
    pub(super) fn lift_shared(&mut self) {
        self.lift = Some(Lift::default());
    }

    /// The `i`th shared value lifted, and its variable.
    pub(super) fn next_lifted(&self, i: usize) -> Option<(NodeId, VarId)> {
        let lift = self.lift.as_ref()?;
        let t = *lift.order.get(i)?;
        Some((t, lift.var[&t]))
    }

    /// The variable standing for the value `t` (shared, or a recursive
    /// value bound in place) in a lifted export, when it is closed (see
    /// [`liftable`]).
    fn lifted(&mut self, m: &Machine, t: NodeId) -> Option<VarId> {
        let lift = self.lift.as_mut()?;
        if let Some(v) = lift.var.get(&t) {
            return Some(*v);
        }
        if !liftable(m, t) {
            return None;
        }
        let origin = match m.g.kind(t) {
            Kind::Lambda(l) => m.g.var(l.sparam).origin,
            Kind::Rec { name, .. } => m.g.var(*name).origin,
            _ => return None,
        };
        let v = self.vars.as_mut()?.copy_of(origin);
        lift.var.insert(t, v);
        lift.order.push(t);
        Some(v)
    }

    pub(super) fn get(&mut self, m: &Machine, v: GVar) -> VarId {
        let Some(vars) = self.vars.as_mut() else {
            // Raw: graph variables as they are, but a fix's outer name is its
            // inner one (the term has one name for both).
            return self.map.get(v).unwrap_or(v);
        };
        match self.map.get(v) {
            Some(t) => t,
            None => {
                let t = vars.copy_of(m.g.var(v).origin);
                self.map.insert(v, t);
                t
            }
        }
    }

    /// Names the binder `v` afresh (printing only): inside a hoisted value
    /// (`closed.rs`), exported at every place that holds it, each place
    /// binds variables of its own, as the reference's copies there do.
    fn bind(&mut self, m: &Machine, v: GVar) {
        if let Some(vars) = self.vars.as_mut() {
            let t = vars.copy_of(m.g.var(v).origin);
            self.map.insert(v, t);
        }
    }

    fn alias(&mut self, m: &Machine, a: GVar, b: GVar) {
        let t = self.get(m, a);
        self.map.insert(b, t);
    }
}

impl Machine {
    /// How many nodes the subtree at `n` has written out as a term, with
    /// every shared value copied at each place that holds it (saturating at
    /// `u64::MAX`). Linear in the graph below `n`, however large the term:
    /// each shared value is counted once and its count reused.
    pub fn expanded_size(&self, n: NodeId) -> u64 {
        let mut shared: HashMap<NodeId, u64> = HashMap::default();
        // Post-order: `Enter` pushes a node's children; `Leave` adds up the
        // sizes they left on `sizes`.
        enum Visit {
            Enter(NodeId),
            Leave(NodeId, usize),
        }
        let mut stack = vec![Visit::Enter(n)];
        let mut sizes: Vec<u64> = Vec::new();
        while let Some(v) = stack.pop() {
            crate::memory::tick();
            match v {
                Visit::Enter(n) => match self.g.kind(n) {
                    Kind::Share(t) => match shared.get(t) {
                        Some(&size) => sizes.push(size),
                        None => {
                            stack.push(Visit::Leave(n, 1));
                            stack.push(Visit::Enter(*t));
                        }
                    },
                    _ => {
                        let mut k = 0;
                        self.g.for_children(n, |_| k += 1);
                        stack.push(Visit::Leave(n, k));
                        self.g.for_children(n, |c| stack.push(Visit::Enter(c)));
                    }
                },
                Visit::Leave(n, k) => {
                    let at = sizes.len().saturating_sub(k);
                    let size = match self.g.kind(n) {
                        // The holder itself is not written out.
                        Kind::Share(t) => {
                            let size = sizes.get(at).copied().unwrap_or(0);
                            shared.insert(*t, size);
                            size
                        }
                        _ => sizes[at..].iter().fold(1u64, |a, &b| a.saturating_add(b)),
                    };
                    sizes.truncate(at);
                    sizes.push(size);
                }
            }
        }
        sizes.pop().unwrap_or(0)
    }

    /// How many nodes the subtree at `n` has written out, if at most `cap`
    /// (`None` past it). Costs at most `cap` nodes visited.
    pub fn expanded_size_capped(&self, n: NodeId, cap: u64) -> Option<u64> {
        self.written_size_capped(n, cap, false)
    }

    /// How many nodes [`Machine::into_program_lifted`] writes out, if at
    /// most `cap` (`None` past it): the closed shared values once each,
    /// other shared values at every place holding them. Costs at most
    /// `cap` nodes visited.
    pub fn lifted_size_capped(&self, cap: u64) -> Option<u64> {
        self.written_size_capped(self.root, cap, true)
    }

    /// The size of the subtree at `n` written out, `lift`ed or not, if at
    /// most `cap`.
    fn written_size_capped(&self, n: NodeId, cap: u64, lift: bool) -> Option<u64> {
        let mut lifted: HashSet<NodeId> = HashSet::default();
        let mut stack = vec![n];
        let mut size = 0u64;
        while let Some(x) = stack.pop() {
            match self.g.kind(x) {
                // Written out where it stands.
                Kind::Share(t) if !(lift && liftable(self, *t)) => {
                    stack.push(*t);
                    continue;
                }
                // A variable where it stands, the value once.
                Kind::Share(t) => {
                    if lifted.insert(*t) {
                        stack.push(*t);
                    }
                }
                _ => self.g.for_children(x, |c| stack.push(c)),
            }
            size += 1;
            if size > cap {
                return None;
            }
        }
        Some(size)
    }

    /// The subtree at `n` as a term atom, with graph variables as they are
    /// (what the expression evaluator sees).
    pub(crate) fn export_raw(&self, n: NodeId) -> Atom {
        let mut names = ExportNames::raw();
        self.export_atom(n, &mut names, false)
    }

    /// The subtree at `n` as an atom. With `resolve_self`, a recursive name
    /// whose value lies outside the subtree becomes that value (an `$exit`
    /// value leaving its recursive lambda).
    pub fn export_atom(&self, n: NodeId, names: &mut ExportNames, resolve_self: bool) -> Atom {
        match self.export(n, names, resolve_self) {
            Piece::Atom(a) | Piece::Splice(a) => a,
            Piece::Lambda(l) => Atom::Lambda(l),
            Piece::Body(_) | Piece::Missing => Atom::Int(0),
        }
    }

    /// The body at `n` as a term body.
    pub fn export_body(&self, n: NodeId, names: &mut ExportNames) -> Option<term::Body> {
        match self.export(n, names, false) {
            Piece::Body(b) => Some(*b),
            _ => None,
        }
    }

    fn export(&self, root: NodeId, names: &mut ExportNames, resolve_self: bool) -> Piece {
        self.export_pruned(root, names, resolve_self, None)
    }

    /// [`Machine::export`], leaving out what `prune` elides (a window of
    /// the term: `window.rs`).
    pub(super) fn export_pruned(
        &self,
        root: NodeId,
        names: &mut ExportNames,
        resolve_self: bool,
        mut prune: Option<&mut Prune<'_>>,
    ) -> Piece {
        // Post-order with a result stack: a node is built once its children
        // are, popping their pieces. A shared value is built at every place
        // that holds it. Binders are named on the way down, so that a fix's
        // two names become one term variable.
        enum Visit {
            Enter(NodeId),
            /// The node, its number of children, and whether it opened a
            /// region the pruning keeps whole.
            Leave(NodeId, usize, bool),
        }
        let mut stack = vec![Visit::Enter(root)];
        let mut results: Vec<Piece> = Vec::new();
        let mut inside_recs: HashSet<NodeId> = HashSet::default();
        // How many holders of hoisted values the walk is inside: there,
        // binders are named afresh.
        let mut fresh = 0usize;
        while let Some(v) = stack.pop() {
            crate::memory::tick();
            let n = match v {
                Visit::Enter(n) => {
                    let mut whole = false;
                    if let Some(p) = prune.as_deref_mut() {
                        if matches!(self.g.kind(n), Kind::Body(_)) {
                            p.bodies.push(n);
                        }
                        match p.decide(self, n) {
                            Decision::Elide => {
                                results.push(p.placeholder(self, n, names));
                                continue;
                            }
                            Decision::Whole => whole = true,
                            Decision::Open => {}
                        }
                    }
                    let lifted = match self.g.kind(n) {
                        Kind::Share(t) => names.lifted(self, *t),
                        // A closed recursive value bound in place (the
                        // builders' `for`, inside `build`) is lifted as
                        // its holders are: the engine shares it, as it
                        // does a `fix` of the source.
                        Kind::Rec { .. } if n != root => names.lifted(self, n),
                        _ => None,
                    };
                    if let Some(v) = lifted {
                        results.push(Piece::Atom(Atom::Var(v)));
                        continue;
                    }
                    let kids = match self.g.kind(n) {
                        Kind::Share(t) => vec![*t],
                        _ => self.g.children(n),
                    };
                    match self.g.kind(n) {
                        Kind::Share(t) if self.g.nodes[t.ix()].hoisted => fresh += 1,
                        Kind::Body(b) => {
                            if let NodeCmd::Fix {
                                sparam, name_in, name_out, ..
                            } = &b.cmd
                            {
                                if fresh > 0 {
                                    names.bind(self, *sparam);
                                    names.bind(self, *name_in);
                                }
                                names.alias(self, *name_in, *name_out);
                            }
                        }
                        Kind::Lambda(l) if fresh > 0 => {
                            names.bind(self, l.sparam);
                            for p in &l.params {
                                names.bind(self, p.var);
                            }
                        }
                        Kind::Rec { name, .. } => {
                            if fresh > 0 {
                                names.bind(self, *name);
                            }
                            inside_recs.insert(n);
                        }
                        _ => {}
                    }
                    stack.push(Visit::Leave(n, kids.len(), whole));
                    stack.extend(kids.into_iter().rev().map(Visit::Enter));
                    continue;
                }
                Visit::Leave(n, k, whole) => {
                    if whole {
                        if let Some(p) = prune.as_deref_mut() {
                            p.inside -= 1;
                        }
                    }
                    let at = results.len().saturating_sub(k);
                    let piece = self.piece(n, results.drain(at..), names, resolve_self, &inside_recs);
                    match self.g.kind(n) {
                        Kind::Rec { .. } => {
                            inside_recs.remove(&n);
                        }
                        Kind::Share(t) if self.g.nodes[t.ix()].hoisted => fresh -= 1,
                        _ => {}
                    }
                    results.push(piece);
                    n
                }
            };
            let _ = n;
        }
        results.pop().unwrap_or(Piece::Missing)
    }

    /// Builds the piece of node `n` from its children's pieces.
    fn piece(
        &self,
        n: NodeId,
        mut kids: impl Iterator<Item = Piece>,
        names: &mut ExportNames,
        resolve_self: bool,
        inside_recs: &HashSet<NodeId>,
    ) -> Piece {
        let mut take = || kids.next().unwrap_or(Piece::Missing);
        match self.g.kind(n) {
            Kind::Free(_) => Piece::Missing,
            Kind::Share(_) => take(),
            Kind::Ref(v) => match self.g.var(*v).bound() {
                VarState::SelfRec(r) if resolve_self && !inside_recs.contains(&r) => Piece::Atom(self.export_atom(r, names, false)),
                _ => Piece::Atom(Atom::Var(names.get(self, *v))),
            },
            Kind::Lit(lit) => Piece::Atom(lit.to_atom()),
            Kind::Splice(_) => Piece::Splice(atom_of(take())),
            Kind::Tuple(xs) => Piece::Atom(Atom::Tuple(xs.iter().map(|_| arg_of(take())).collect())),
            Kind::Record(fs) => Piece::Atom(Atom::Record(fs.iter().map(|(f, _)| (f.clone(), atom_of(take()))).collect())),
            Kind::Map(kvs) => Piece::Atom(Atom::Map(
                kvs.iter()
                    .map(|_| {
                        let k = atom_of(take());
                        (k, atom_of(take()))
                    })
                    .collect(),
            )),
            Kind::Expr(e, xs) => {
                let mut filled: Vec<Option<Atom>> = xs.iter().map(|_| Some(atom_of(take()))).collect();
                let mut e = (**e).clone();
                for leaf in e.vals_mut() {
                    if let Atom::Var(v) = leaf {
                        if let Some(k) = hole_index(*v) {
                            *leaf = filled.get_mut(k).and_then(Option::take).unwrap_or(Atom::Int(0));
                        }
                    }
                }
                Piece::Atom(Atom::Expr(Box::new(e)))
            }
            Kind::Lambda(l) => {
                let Piece::Body(body) = take() else {
                    return Piece::Missing;
                };
                Piece::Lambda(Box::new(Lambda {
                    sparam: names.get(self, l.sparam),
                    params: l
                        .params
                        .iter()
                        .map(|p| Param {
                            var: names.get(self, p.var),
                            rest: p.rest,
                        })
                        .collect(),
                    body: *body,
                    span: l.span,
                }))
            }
            Kind::Rec { name, .. } => match take() {
                Piece::Lambda(l) => Piece::Atom(Atom::Rec(Box::new(RecLambda {
                    name: names.get(self, *name),
                    lam: *l,
                }))),
                _ => Piece::Missing,
            },
            Kind::Body(b) => {
                let stage = map_stage(&b.stage, &mut |v| names.get(self, v));
                let cmd = match &b.cmd {
                    NodeCmd::App { args, sugar, .. } => {
                        let head = atom_of(take());
                        let args = args.iter().map(|_| arg_of(take())).collect();
                        term::Cmd::App(Application { head, args, sugar: *sugar })
                    }
                    NodeCmd::Fix { sparam, name_in, .. } => {
                        let (Piece::Lambda(lam), Piece::Body(body)) = (take(), take()) else {
                            return Piece::Missing;
                        };
                        term::Cmd::Fix(Box::new(Fix {
                            sparam: names.get(self, *sparam),
                            name: names.get(self, *name_in),
                            lam: *lam,
                            body: *body,
                        }))
                    }
                };
                Piece::Body(Box::new(term::Body { stage, cmd, span: b.span }))
            }
        }
    }
}

/// Whether the value `t` is written out once in a lifted export: a closed
/// lambda or recursive value (its binders are its own, so one copy means
/// the same at every holder).
fn liftable(m: &Machine, t: NodeId) -> bool {
    matches!(m.g.kind(t), Kind::Lambda(_) | Kind::Rec { .. }) && (m.g.nodes[t.ix()].hoisted || m.g.nodes[t.ix()].closed.is_closed())
}

/// What a pruned export does with a node.
enum Decision {
    /// Leave it out: a placeholder stands for it.
    Elide,
    /// Keep it and everything below it.
    Whole,
    /// Keep it, and decide for its children in turn.
    Open,
}

/// How an export leaves parts of the term out ([`Machine::export_pruned`]):
/// the nodes on `path` are kept; a body, tuple, record or map off it is
/// kept whole if it is at most `cap` nodes written out and the export has
/// room left for it (`room`), else elided: a body becomes `…` under its
/// own staging expression, a value `…` (a free variable of that name).
pub(super) struct Prune<'a> {
    /// The nodes from the export's root to its focus.
    pub path: &'a rustc_hash::FxHashSet<NodeId>,
    /// The most nodes a part off the path may have, written out.
    pub cap: u64,
    /// The nodes still to be written out for parts off the path.
    pub room: u64,
    /// The elided nodes, in the order met (the views count them).
    pub elided: Vec<NodeId>,
    /// The bodies met, kept or elided, in the order met: the order in
    /// which the lambda graph of the export numbers them.
    pub bodies: Vec<NodeId>,
    /// How many kept-whole regions the export is inside.
    pub inside: usize,
    /// The variable the placeholders print as (made on first use).
    pub dots: Option<VarId>,
}

impl Prune<'_> {
    fn decide(&mut self, m: &Machine, n: NodeId) -> Decision {
        if self.inside > 0 || self.path.contains(&n) {
            return Decision::Open;
        }
        if !matches!(m.g.kind(n), Kind::Body(_) | Kind::Tuple(_) | Kind::Record(_) | Kind::Map(_)) {
            return Decision::Open;
        }
        match m.expanded_size_capped(n, self.cap.min(self.room)) {
            Some(size) => {
                self.room -= size;
                self.inside += 1;
                Decision::Whole
            }
            None => {
                self.elided.push(n);
                Decision::Elide
            }
        }
    }

    fn placeholder(&mut self, m: &Machine, n: NodeId, names: &mut ExportNames) -> Piece {
        let dots = match (self.dots, names.vars.as_mut()) {
            (Some(d), _) => d,
            (None, Some(vars)) => {
                let d = vars.fresh(term::VarInfo {
                    name: Some("…".into()),
                    kind: term::VarKind::Free,
                    span: crate::span::Span::default(),
                });
                self.dots = Some(d);
                d
            }
            (None, None) => VarId(u32::MAX),
        };
        match m.g.kind(n) {
            // The body's own staging expression, so that it prints (and
            // stages) as the body it stands for.
            Kind::Body(b) => Piece::Body(Box::new(term::Body {
                stage: map_stage(&b.stage, &mut |v| names.get(m, v)),
                cmd: term::Cmd::App(Application {
                    head: Atom::Var(dots),
                    args: Vec::new(),
                    sugar: term::Sugar::None,
                }),
                span: b.span,
            })),
            _ => Piece::Atom(Atom::Var(dots)),
        }
    }
}

fn atom_of(p: Piece) -> Atom {
    match p {
        Piece::Atom(a) | Piece::Splice(a) => a,
        Piece::Lambda(l) => Atom::Lambda(l),
        Piece::Body(_) | Piece::Missing => Atom::Int(0),
    }
}

fn arg_of(p: Piece) -> Arg {
    match p {
        Piece::Splice(a) => Arg::Splice(a),
        other => Arg::Atom(atom_of(other)),
    }
}

/// The staging expression with its variables renamed.
fn map_stage(s: &SExp, f: &mut dyn FnMut(GVar) -> VarId) -> SExp {
    let mut out = s.clone();
    let mut stack = vec![&mut out];
    while let Some(s) = stack.pop() {
        match s {
            SExp::Const(_) => {}
            SExp::Var(v) => *v = f(*v),
            SExp::Not(a) => stack.push(a),
            SExp::And(a, b) | SExp::Or(a, b) => {
                stack.push(a);
                stack.push(b);
            }
        }
    }
    out
}
