//! The lambda graph: a term as a `petgraph` graph, one node per body, lambda
//! and atom, each body coloured by its [`Status`], exported as Graphviz DOT.
//!
//! Nodes are numbered in the order of an iterative left-to-right depth-first
//! walk (a body, then its head and arguments in reading order, or its `fix`
//! lambda and scope), and labelled with the printed names of variables
//! ([`Names`]), so two runs of the same program give the same graph.
//! The walk keeps the scope of printed names and the recursive values that
//! enclose each body (inside its own lambda, a recursive name is concrete,
//! as in the reference reducer) on explicit stacks.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::fmt;
use std::sync::Arc;

use petgraph::dot::{Config, Dot};
use petgraph::graph::{Graph, NodeIndex};
use petgraph::visit::EdgeRef;

use super::label::{atom_label, body_label, clip, lambda_head, ATOM_MAX};
use super::status::{local_status, stub_rec, Status};
use super::{dot_escape, Places};
use crate::print::alpha::held_recs;
use crate::print::free::FreeVars;
use crate::print::names::{lambda_binders, Names};
use crate::print::{body_address, sexp_text};
use crate::span::{SourceMap, Span};
use crate::term::{Arg, Atom, Body, Cmd, Lambda, Param, RecLambda, SExp, VarId, VarKind, Vars};

/// Why an edge of the lambda graph links its nodes. Positions count from 1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EdgeKind {
    /// A body's head.
    Head,
    /// A body's `i`-th argument.
    Arg(usize),
    /// A body's `i`-th argument, spliced (`!t`).
    Splice(usize),
    /// A lambda's body.
    Body,
    /// The recursive lambda of a `fix` body.
    FixLambda,
    /// The scope of a `fix` body (what follows `in`).
    Scope,
    /// The `i`-th element of a tuple (`spliced`: written `!t`).
    Elem {
        /// Position, from 1.
        i: usize,
        /// Whether the element is a splice.
        spliced: bool,
    },
    /// A field of a record.
    Field(Arc<str>),
    /// The key of the `i`-th entry of a map.
    Key(usize),
    /// The value of the `i`-th entry of a map.
    Value(usize),
    /// A value nested in an expression (`i`-th value leaf).
    Operand(usize),
}

impl fmt::Display for EdgeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EdgeKind::Head => write!(f, "head"),
            EdgeKind::Arg(i) => write!(f, "arg {i}"),
            EdgeKind::Splice(i) => write!(f, "arg {i} (!)"),
            EdgeKind::Body => write!(f, "body"),
            EdgeKind::FixLambda => write!(f, "fix-lambda"),
            EdgeKind::Scope => write!(f, "in"),
            EdgeKind::Elem { i, spliced: false } => write!(f, "{i}"),
            EdgeKind::Elem { i, spliced: true } => write!(f, "{i} (!)"),
            EdgeKind::Field(name) => write!(f, ".{name}"),
            EdgeKind::Key(i) => write!(f, "key {i}"),
            EdgeKind::Value(i) => write!(f, "value {i}"),
            EdgeKind::Operand(i) => write!(f, "operand {i}"),
        }
    }
}

/// What a node of the lambda graph stands for.
#[derive(Clone, Debug)]
pub enum NodeKind {
    /// A body.
    Body {
        /// What it is now.
        status: Status,
        /// The variables of its staging expression, in reading order.
        stage_vars: Vec<VarId>,
        /// For a `fix [y] f = λ in b` body: `y`.
        fix_sparam: Option<VarId>,
        /// For a `fix [y] f = λ in b` body: `f`.
        fix_name: Option<VarId>,
        /// For a `fix [y] f = λ in b` body: `f[y]` with the names printed
        /// in its scope (`_` for an anonymous `y`).
        fix_head: Option<String>,
        /// Its staging expression, printed (`_` for an anonymous staging
        /// parameter).
        stage: String,
        /// For a stuck body: the printed name of the variable it waits for,
        /// here (a value shared by the machine is exported with the same
        /// variables at each place, where names may differ; the labels and
        /// these texts are printed in place, [`LambdaGraph::vars`] keeps one
        /// name per variable).
        stuck_on: Option<String>,
    },
    /// A lambda (or the lambda of a recursive value or of a `fix`).
    Lambda {
        /// Its staging parameter.
        sparam: VarId,
        /// Its parameters.
        params: Vec<Param>,
        /// For a recursive value: its name.
        rec: Option<VarId>,
    },
    /// An occurrence of a variable.
    Var(VarId),
    /// A tuple; its elements are its children, in order.
    Tuple,
    /// A record; its fields are its children, edges labelled by name.
    Record,
    /// A map; keys and values are its children, in insertion order.
    Map,
    /// An expression not yet evaluated.
    Expr {
        /// The variables it reads, in reading order.
        vars: Vec<VarId>,
    },
    /// Any other value: a number, boolean, string, matrix, staging constant
    /// or built-in.
    Value,
}

/// A node: what it stands for, a short label, and its source.
#[derive(Clone, Debug)]
pub struct LambdaGraphNode {
    /// What it stands for.
    pub kind: NodeKind,
    /// A one-line label with printed names.
    pub label: String,
    /// Where it comes from in the source (bodies, lambdas, expressions).
    pub span: Option<Span>,
}

impl fmt::Display for LambdaGraphNode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label)
    }
}

/// What the views know of a variable: its printed name, what binds it and
/// where its binder stands.
#[derive(Clone, Debug)]
pub struct VarView {
    /// The printed name (`_` for an anonymous staging parameter).
    pub name: String,
    /// Whether it is an anonymous staging parameter.
    pub anonymous: bool,
    /// What binds it.
    pub kind: VarKind,
    /// Where its binder stands in the source.
    pub span: Span,
}

/// A term as a graph.
pub struct LambdaGraph {
    /// The nodes and edges, numbered in depth-first reading order.
    pub graph: Graph<LambdaGraphNode, EdgeKind>,
    /// The variables met in the term (binders, occurrences, staging
    /// expressions), with their printed names.
    pub vars: HashMap<VarId, VarView>,
    /// Every body node in numbering order, with the address of the `Body`
    /// it was built from ([`crate::print::body_address`]), to match the
    /// nodes with another walk of the same term (the printer's, for
    /// [`super::program::ProgramView`]); meaningful only while that term is
    /// alive and unmoved.
    pub body_addresses: Vec<(NodeIndex, usize)>,
}

/// What is left to do in the walk.
enum Task<'t> {
    /// Visit a body reached from a node by an edge (the root has none).
    Body(&'t Body, Option<(NodeIndex, EdgeKind)>),
    /// Visit an atom reached from a node by an edge (a root value has none).
    Atom(&'t Atom, Option<(NodeIndex, EdgeKind)>),
    /// Visit a lambda (of a recursive value when it has a name).
    Lambda(&'t Lambda, Option<VarId>, Option<(NodeIndex, EdgeKind)>),
    /// Everything below this body has been visited.
    Finish(NodeIndex),
    /// Label this body or tuple, once the lambdas below it are labelled,
    /// in the scope it stands in.
    Label(NodeIndex, Labelled<'t>),
    /// Leave a scope of printed names.
    Leave(Vec<(VarId, Option<String>)>),
    /// Leave the lambda of a recursive value.
    PopRec,
    /// Leave the scopes of the printed names of the recursive values a body
    /// holds (their `fix`es printed before the body; the last entered
    /// first), and restore what the hoisting table held before it.
    LeaveHeld(Vec<Vec<(VarId, Option<String>)>>, Vec<(VarId, Option<VarId>)>),
}

/// What a [`Task::Label`] labels.
enum Labelled<'t> {
    Body(&'t Body),
    Atom(&'t Atom),
}

struct Builder<'v> {
    graph: Graph<LambdaGraphNode, EdgeKind>,
    source: &'v Vars,
    names: Names<'v>,
    fv: FreeVars,
    /// A copy of the variable table for the verdict, which may add to it.
    scratch: Vars,
    /// The recursive values around the current position (stub lambdas).
    recs: Vec<(VarId, Box<RecLambda>)>,
    /// The recursive values the printer prints by name here, as its
    /// `hoisted` table: a value whose `fix` an enclosing body prints maps
    /// to itself (named there, as the printer names it, not again in its
    /// lambda), a copy of one named apart to the name it prints as. Labels
    /// show them by that name, as the printed text does.
    hoisted: HashMap<VarId, VarId>,
    views: HashMap<VarId, VarView>,
    /// Per body being visited: whether something pending lies below it.
    below: Vec<bool>,
    /// Body nodes and the addresses of their bodies.
    addresses: Vec<(NodeIndex, usize)>,
    /// Lambda nodes by the address of their lambda: the labels of bodies
    /// and tuples show the heads of the lambdas they hold as these nodes'
    /// labels give them.
    lambdas: HashMap<usize, NodeIndex>,
}

impl LambdaGraph {
    /// The graph of the term `root` over the variables `vars`. Iterative:
    /// a term nested a million deep needs no deep stack.
    pub fn build(root: &Body, vars: &Vars) -> LambdaGraph {
        Self::build_from(Task::Body(root, None), vars)
    }

    /// The graph of the value `root` (an exit value) over the variables
    /// `vars`; its first node is the value's. Iterative, like
    /// [`LambdaGraph::build`].
    pub fn build_value(root: &Atom, vars: &Vars) -> LambdaGraph {
        Self::build_from(Task::Atom(root, None), vars)
    }

    fn build_from(first: Task<'_>, vars: &Vars) -> LambdaGraph {
        let mut b = Builder {
            graph: Graph::new(),
            source: vars,
            names: Names::new(vars),
            fv: FreeVars::default(),
            scratch: vars.clone(),
            recs: Vec::new(),
            hoisted: HashMap::default(),
            views: HashMap::default(),
            below: Vec::new(),
            addresses: Vec::new(),
            lambdas: HashMap::default(),
        };
        let mut tasks = vec![first];
        while let Some(t) = tasks.pop() {
            match t {
                Task::Body(body, from) => b.body(body, from, &mut tasks),
                Task::Atom(a, from) => b.atom(a, from, &mut tasks),
                Task::Lambda(l, rec, from) => b.lambda(l, rec, from, &mut tasks),
                Task::Finish(n) => b.finish(n),
                Task::Label(n, what) => b.label(n, what),
                Task::Leave(saved) => b.names.leave(saved),
                Task::PopRec => {
                    b.recs.pop();
                }
                Task::LeaveHeld(saved, undo) => {
                    for (v, before) in undo.into_iter().rev() {
                        match before {
                            Some(name) => b.hoisted.insert(v, name),
                            None => b.hoisted.remove(&v),
                        };
                    }
                    for s in saved.into_iter().rev() {
                        b.names.leave(s);
                    }
                }
            }
        }
        LambdaGraph {
            graph: b.graph,
            vars: b.views,
            body_addresses: b.addresses,
        }
    }

    /// The bodies of the graph with a given status name (`ready`, `stuck`,
    /// ...), in numbering order: handy in tests.
    pub fn bodies_with_status(&self, name: &str) -> Vec<NodeIndex> {
        self.graph
            .node_indices()
            .filter(|&n| matches!(&self.graph[n].kind, NodeKind::Body { status, .. } if status.name() == name))
            .collect()
    }

    /// The children of `n` with the edges leading to them, in reading order
    /// (petgraph lists edges newest first; children were numbered in reading
    /// order).
    pub fn children(&self, n: NodeIndex) -> Vec<(NodeIndex, &EdgeKind)> {
        let mut out: Vec<(NodeIndex, &EdgeKind)> = self.graph.edges(n).map(|e| (e.target(), e.weight())).collect();
        out.sort_by_key(|(t, _)| t.index());
        out
    }

    /// Graphviz DOT text of the graph: bodies are boxes filled by status,
    /// lambdas ellipses, atoms plain text; source places (`file:line:col`)
    /// come from `sources`.
    pub fn to_dot(&self, sources: &SourceMap) -> String {
        self.dot_of(sources, &self.graph, None)
    }

    /// The DOT text of the nodes within `radius` edges of `focus` (tree and
    /// binding edges, either way), the focus drawn with a double border and
    /// nodes with neighbours left out marked `…`: for a term too large to
    /// draw whole. `None` when `focus` is no node of the graph.
    pub fn to_dot_around(&self, sources: &SourceMap, focus: NodeIndex, radius: usize) -> Option<String> {
        self.graph.node_weight(focus)?;
        let mut dist: HashMap<NodeIndex, usize> = HashMap::default();
        dist.insert(focus, 0);
        let mut level = vec![focus];
        for d in 1..=radius {
            let mut next = Vec::new();
            for &n in &level {
                for m in self.graph.neighbors_undirected(n) {
                    if let std::collections::hash_map::Entry::Vacant(e) = dist.entry(m) {
                        e.insert(d);
                        next.push(m);
                    }
                }
            }
            level = next;
        }
        let cut: HashSet<NodeIndex> = dist
            .keys()
            .copied()
            .filter(|&n| self.graph.neighbors_undirected(n).any(|m| !dist.contains_key(&m)))
            .collect();
        let part = self.graph.filter_map(
            |n, node| {
                dist.contains_key(&n).then(|| {
                    let mut node = node.clone();
                    if cut.contains(&n) {
                        node.label.push_str(" …");
                    }
                    node
                })
            },
            |_, e| Some(e.clone()),
        );
        // The focus keeps its rank among the kept nodes.
        let at = self
            .graph
            .node_indices()
            .filter(|n| dist.contains_key(n))
            .position(|n| n == focus)?;
        Some(self.dot_of(sources, &part, Some(NodeIndex::new(at))))
    }

    fn dot_of(&self, sources: &SourceMap, graph: &Graph<LambdaGraphNode, EdgeKind>, focus: Option<NodeIndex>) -> String {
        let places = Places::new(sources);
        let node_attrs = |_: &Graph<LambdaGraphNode, EdgeKind>, (n, node): (NodeIndex, &LambdaGraphNode)| -> String {
            let focus = if Some(n) == focus { "peripheries=2 penwidth=2 " } else { "" };
            let mut label = node.label.clone();
            let shape = match &node.kind {
                NodeKind::Body { status, .. } => {
                    if let Some(span) = node.span {
                        label.push('\n');
                        label.push_str(&places.describe(span));
                    }
                    label.push('\n');
                    label.push_str(&status_line(status, &self.vars));
                    return format!(
                        "label=\"{}\" shape=box style=filled fillcolor={} {focus}",
                        dot_escape(&label),
                        status.colour()
                    );
                }
                NodeKind::Lambda { .. } => "ellipse",
                NodeKind::Tuple | NodeKind::Record | NodeKind::Map | NodeKind::Expr { .. } => "box style=dashed",
                NodeKind::Var(_) | NodeKind::Value => "plaintext",
            };
            format!("label=\"{}\" shape={shape} {focus}", dot_escape(&label))
        };
        let edge_attrs = |_: &Graph<LambdaGraphNode, EdgeKind>, _: petgraph::graph::EdgeReference<'_, EdgeKind>| String::new();
        let config = [Config::NodeNoLabel, Config::GraphContentOnly];
        let dot = Dot::with_attr_getters(graph, &config, &edge_attrs, &node_attrs);
        format!(
            "digraph lambda_graph {{\n    // bodies: {}\n    node [fontname=\"monospace\" fontsize=10]\n    edge [fontname=\"monospace\" fontsize=9]\n{dot}}}\n",
            super::LEGEND
        )
    }
}

/// The last line of a body's label: its status, and for a stuck body what it
/// waits for.
pub(crate) fn status_line(status: &Status, vars: &HashMap<VarId, VarView>) -> String {
    match status {
        Status::Stuck { var, what } => {
            let name = vars.get(var).map_or("?", |v| v.name.as_str());
            format!("stuck on {name}: {what}")
        }
        Status::Error(message) => clip(&format!("error: {message}"), 60),
        other => other.name().to_string(),
    }
}

impl Builder<'_> {
    fn add(&mut self, node: LambdaGraphNode, from: Option<(NodeIndex, EdgeKind)>) -> NodeIndex {
        let n = self.graph.add_node(node);
        if let Some((parent, kind)) = from {
            self.graph.add_edge(parent, n, kind);
        }
        n
    }

    /// Records what is known of `v` (its printed name here) the first time
    /// it is met.
    fn see(&mut self, v: VarId) {
        if self.views.contains_key(&v) {
            return;
        }
        let info = self.source.info(v);
        let view = VarView {
            name: self.names.name(v),
            anonymous: info.name.is_none(),
            kind: info.kind,
            span: info.span,
        };
        self.views.insert(v, view);
    }

    /// Enters the scope of `binders` (free variables from `scope`) and
    /// records their printed names.
    fn enter(&mut self, binders: &[VarId], scope: &[&Body]) -> Vec<(VarId, Option<String>)> {
        if let [one] = scope {
            // One body (a lambda's): its memoized set as it is.
            let refs = self.fv.body(one);
            return self.enter_refs(binders, &refs);
        }
        let mut refs = HashSet::default();
        for b in scope {
            refs.extend(self.fv.body(b).iter().copied());
        }
        self.enter_refs(binders, &refs)
    }

    /// Enters the scope of `binders`, which must not capture `refs`, and
    /// records their printed names.
    fn enter_refs(&mut self, binders: &[VarId], refs: &HashSet<VarId>) -> Vec<(VarId, Option<String>)> {
        let saved = self.names.enter(binders, refs);
        for &v in binders {
            // A binder is met once: its printed name is the one of its scope.
            self.views.remove(&v);
            self.see(v);
        }
        saved
    }

    fn body<'t>(&mut self, b: &'t Body, from: Option<(NodeIndex, EdgeKind)>, tasks: &mut Vec<Task<'t>>) {
        let status = local_status(b, &mut self.scratch, &self.recs);
        let stage_vars = sexp_vars(&b.stage);
        let stage = sexp_text(&b.stage, &self.names);
        for &v in &stage_vars {
            self.see(v);
        }
        let mut stuck_on = None;
        if let Status::Stuck { var, .. } = &status {
            self.see(*var);
            stuck_on = Some(self.names.name(*var));
        }
        match &b.cmd {
            Cmd::Fix(fix) => {
                let saved = self.enter(&[fix.sparam, fix.name], &[&fix.lam.body, &fix.body]);
                let node = LambdaGraphNode {
                    kind: NodeKind::Body {
                        status,
                        stage_vars,
                        fix_sparam: Some(fix.sparam),
                        fix_name: Some(fix.name),
                        fix_head: Some(format!("{}[{}]", self.names.name(fix.name), self.names.name(fix.sparam))),
                        stage,
                        stuck_on,
                    },
                    label: String::new(),
                    span: Some(b.span),
                };
                let n = self.add(node, from);
                self.addresses.push((n, body_address(b)));
                self.below.push(false);
                tasks.push(Task::Finish(n));
                tasks.push(Task::Leave(saved));
                tasks.push(Task::Label(n, Labelled::Body(b)));
                tasks.push(Task::Body(&fix.body, Some((n, EdgeKind::Scope))));
                tasks.push(Task::Lambda(&fix.lam, None, Some((n, EdgeKind::FixLambda))));
            }
            Cmd::App(app) => {
                // The recursive values it holds are named where the printer
                // prints their `fix`, before the application.
                let held = held_recs(app, &self.names);
                let mut saved = Vec::with_capacity(held.printed.len());
                let mut undo = Vec::with_capacity(held.printed.len() + held.aliases.len());
                for &r in &held.printed {
                    let refs = held.refs(r, app, &mut self.fv);
                    saved.push(self.enter_refs(&[r.name], &refs));
                    undo.push((r.name, self.hoisted.insert(r.name, r.name)));
                }
                for &(copy, first) in &held.aliases {
                    undo.push((copy, self.hoisted.insert(copy, first)));
                }
                let node = LambdaGraphNode {
                    kind: NodeKind::Body {
                        status,
                        stage_vars,
                        fix_sparam: None,
                        fix_name: None,
                        fix_head: None,
                        stage,
                        stuck_on,
                    },
                    label: String::new(),
                    span: Some(b.span),
                };
                let n = self.add(node, from);
                self.addresses.push((n, body_address(b)));
                self.below.push(false);
                tasks.push(Task::Finish(n));
                // Left after everything below.
                if !saved.is_empty() || !undo.is_empty() {
                    tasks.push(Task::LeaveHeld(saved, undo));
                }
                tasks.push(Task::Label(n, Labelled::Body(b)));
                for (i, a) in app.args.iter().enumerate().rev() {
                    match a {
                        Arg::Atom(x) => tasks.push(Task::Atom(x, Some((n, EdgeKind::Arg(i + 1))))),
                        Arg::Splice(x) => tasks.push(Task::Atom(x, Some((n, EdgeKind::Splice(i + 1))))),
                    }
                }
                tasks.push(Task::Atom(&app.head, Some((n, EdgeKind::Head))));
            }
        }
    }

    /// Labels `n` (see [`Task::Label`]).
    fn label(&mut self, n: NodeIndex, what: Labelled<'_>) {
        let (graph, lambdas) = (&self.graph, &self.lambdas);
        let known = |l: &Lambda| -> Option<&str> {
            let at = lambdas.get(&(l as *const Lambda as usize))?;
            graph.node_weight(*at).map(|node| node.label.as_str())
        };
        let label = match what {
            Labelled::Body(b) => body_label(b, &mut self.names, &mut self.fv, &self.hoisted, &known),
            Labelled::Atom(a) => atom_label(a, &mut self.names, &mut self.fv, &self.hoisted, &known, ATOM_MAX),
        };
        if let Some(node) = self.graph.node_weight_mut(n) {
            node.label = label;
        }
    }

    fn finish(&mut self, n: NodeIndex) {
        let nested = self.below.pop().unwrap_or(false);
        let mut pending = false;
        if let NodeKind::Body { status, .. } = &mut self.graph[n].kind {
            if *status == Status::Pending && !nested {
                *status = Status::Ready;
            }
            pending = status.is_pending();
        }
        if let Some(parent) = self.below.last_mut() {
            *parent |= nested || pending;
        }
    }

    fn lambda<'t>(&mut self, l: &'t Lambda, rec: Option<VarId>, from: Option<(NodeIndex, EdgeKind)>, tasks: &mut Vec<Task<'t>>) {
        let mut binders = Vec::with_capacity(l.params.len() + 2);
        // A recursive value's name is named by the body that holds it.
        binders.extend(rec.filter(|r| self.hoisted.get(r) != Some(r)));
        binders.extend(lambda_binders(l));
        let saved = self.enter(&binders, &[&l.body]);
        let head = lambda_head(l, &self.names);
        let label = match rec {
            // A copy named apart is labelled with the name it prints as.
            Some(name) => format!("fix {}{head}", self.names.name(self.hoisted.get(&name).copied().unwrap_or(name))),
            None => head,
        };
        let node = LambdaGraphNode {
            kind: NodeKind::Lambda {
                sparam: l.sparam,
                params: l.params.clone(),
                rec,
            },
            label,
            span: Some(l.span),
        };
        let n = self.add(node, from);
        self.lambdas.insert(l as *const Lambda as usize, n);
        tasks.push(Task::Leave(saved));
        tasks.push(Task::Body(&l.body, Some((n, EdgeKind::Body))));
    }

    fn atom<'t>(&mut self, a: &'t Atom, from: Option<(NodeIndex, EdgeKind)>, tasks: &mut Vec<Task<'t>>) {
        let kind = match a {
            Atom::Lambda(l) => {
                tasks.push(Task::Lambda(l, None, from));
                return;
            }
            Atom::Rec(r) => {
                // Inside its own lambda the recursive name is the value.
                self.recs.push((r.name, stub_rec(r)));
                tasks.push(Task::PopRec);
                tasks.push(Task::Lambda(&r.lam, Some(r.name), from));
                return;
            }
            Atom::Var(v) => {
                self.see(*v);
                NodeKind::Var(*v)
            }
            Atom::Tuple(_) => NodeKind::Tuple,
            Atom::Record(_) => NodeKind::Record,
            Atom::Map(_) => NodeKind::Map,
            Atom::Expr(e) => {
                let vars: Vec<VarId> = e
                    .vals()
                    .into_iter()
                    .filter_map(|x| match x {
                        Atom::Var(v) => Some(*v),
                        _ => None,
                    })
                    .collect();
                for &v in &vars {
                    self.see(v);
                }
                NodeKind::Expr { vars }
            }
            _ => NodeKind::Value,
        };
        let span = match a {
            Atom::Expr(e) => Some(e.span),
            _ => None,
        };
        // A tuple may hold lambdas: labelled after them.
        let label = match a {
            Atom::Tuple(_) => String::new(),
            _ => atom_label(a, &mut self.names, &mut self.fv, &self.hoisted, &|_| None, ATOM_MAX),
        };
        let node = LambdaGraphNode { kind, label, span };
        let n = self.add(node, from);
        if let Atom::Tuple(_) = a {
            tasks.push(Task::Label(n, Labelled::Atom(a)));
        }
        // Children are pushed last-first, so they are numbered in reading order.
        match a {
            Atom::Tuple(xs) => {
                for (i, x) in xs.iter().enumerate().rev() {
                    let (x, spliced) = match x {
                        Arg::Atom(x) => (x, false),
                        Arg::Splice(x) => (x, true),
                    };
                    tasks.push(Task::Atom(x, Some((n, EdgeKind::Elem { i: i + 1, spliced }))));
                }
            }
            Atom::Record(fs) => {
                for (f, x) in fs.iter().rev() {
                    tasks.push(Task::Atom(x, Some((n, EdgeKind::Field(f.clone())))));
                }
            }
            Atom::Map(kvs) => {
                for (i, (k, v)) in kvs.iter().enumerate().rev() {
                    tasks.push(Task::Atom(v, Some((n, EdgeKind::Value(i + 1)))));
                    tasks.push(Task::Atom(k, Some((n, EdgeKind::Key(i + 1)))));
                }
            }
            Atom::Expr(e) => {
                // Variables and scalars are in the expression's label; only
                // values that can hold bodies get nodes.
                for (i, x) in e.vals().into_iter().enumerate().rev() {
                    if matches!(x, Atom::Lambda(_) | Atom::Rec(_) | Atom::Tuple(_) | Atom::Record(_) | Atom::Map(_)) {
                        tasks.push(Task::Atom(x, Some((n, EdgeKind::Operand(i + 1)))));
                    }
                }
            }
            _ => {}
        }
    }
}

/// The variables of a staging expression, in reading order, each once.
pub(crate) fn sexp_vars(s: &SExp) -> Vec<VarId> {
    let mut out: Vec<VarId> = Vec::new();
    let mut stack = vec![s];
    while let Some(s) = stack.pop() {
        match s {
            SExp::Const(_) => {}
            SExp::Var(v) => {
                if !out.contains(v) {
                    out.push(*v);
                }
            }
            SExp::Not(a) => stack.push(a),
            SExp::And(a, b) | SExp::Or(a, b) => {
                stack.push(b);
                stack.push(a);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::load::add_source;
    use crate::syntax::{load_from, MemFs};

    /// The labels of the bodies and tuples of the graph of `text`'s term
    /// after `steps` steps of the reference reducer.
    fn labels(text: &str, steps: usize) -> Vec<String> {
        let mut sources = SourceMap::new();
        let id = add_source(&mut sources, "t.dcps", None, text.as_bytes().to_vec()).expect("utf8");
        let p = load_from(&MemFs::default(), id, &mut sources, false).expect("loads");
        let mut r = crate::reference::Reducer::new(p);
        for _ in 0..steps {
            assert!(matches!(r.step(), Some(Ok(None))), "a step");
        }
        let lg = LambdaGraph::build(&r.body, &r.vars);
        lg.graph
            .node_weights()
            .filter(|n| matches!(n.kind, NodeKind::Body { .. } | NodeKind::Tuple))
            .map(|n| n.label.clone())
            .collect()
    }

    #[test]
    fn labels_show_the_heads_of_the_lambdas_held() {
        let text = "fix [y] f(n)[s] { @s: $exit n } in\n(g, t) { g t } (x)[s] { @s: $exit x } [(x) { $exit x }, f]\n";
        assert_eq!(
            labels(text, 0),
            [
                "@always: fix [y] f(n)[s] {…} in …",
                "@s: $exit n",
                "@y: (g, t) {…} (x)[s] {…} [(x) {…}, f]",
                "g t",
                "@s: $exit x",
                "[(x) {…}, f]",
                "$exit x",
            ]
        );
        // The recursive value held in a tuple: by its name, its `fix`
        // printed before the body that holds it.
        assert_eq!(
            labels(text, 1),
            [
                "@always: (g, t) {…} (x)[s] {…} [(x) {…}, f]",
                "g t",
                "@s: $exit x",
                "[(x) {…}, f]",
                "$exit x",
                "@s: $exit n",
            ]
        );
    }
}
