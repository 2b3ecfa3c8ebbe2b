//! The staging graph: which bodies each staging variable holds back, and
//! which staging variables those bodies hand on.
//!
//! Nodes are *staging variables* and the bodies linked to them. A staging
//! variable is a named staging parameter (`[y]`), a variable read by a
//! staging expression (`@next:`), a variable a stuck body waits for, or a
//! variable bound to one of these by a visible application (a lambda applied
//! in place: the argument `pt` of `(pt, ..) {..} pt ..` and the parameter
//! `pt` carry the same value). Anonymous staging parameters (natural
//! staging) are left out: they are the plain sequencing of CPS code.
//!
//! Edges, from the viewpoint of a body:
//! - `v → body`: the body's staging expression mentions `v` (*stages*), the
//!   body is stuck waiting for `v` (*blocks*), or the body passes `v` on as
//!   its head or an argument (*passed*);
//! - `body → y`: the body invokes (head) or passes (argument) a lambda whose
//!   staging parameter is `y` (*invokes*, *continuation*), or binds `y` as
//!   the scope parameter of its `fix`; or the body applies a lambda in place
//!   and its `i`-th argument, a staging variable, binds the parameter `y`
//!   (*binds*).
//!
//! Following these edges from a variable gives the staging chains of the
//! paper ([`super::chains`]). The graph is derived from the
//! [`LambdaGraph`], in its numbering order, so it is canonical too.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::fmt;

use petgraph::dot::{Config, Dot};
use petgraph::graph::{Graph, NodeIndex};
use petgraph::visit::EdgeRef;

use super::lambda_graph::{status_line, EdgeKind, LambdaGraph, NodeKind, VarView};
use super::status::Status;
use super::{dot_escape, Places};
use crate::span::{SourceMap, Span};
use crate::term::{VarId, VarKind};

/// Where a body holds what an edge is about. Positions count from 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// Its head.
    Head,
    /// Its `i`-th argument (or something inside it: a tuple element, a
    /// record field, an expression operand).
    Arg(usize),
    /// The scope of its `fix`.
    FixScope,
}

/// Why a staging-graph edge links a variable and a body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SEdge {
    /// Variable → body: the body's staging expression mentions it.
    Stages,
    /// Variable → body: the body is active and stuck, waiting for it.
    Blocks,
    /// Variable → body: the body passes it on (or calls it, as its head).
    Passed(Role),
    /// Body → staging parameter of a lambda the body invokes or passes (or
    /// of its `fix` scope).
    Defines(Role),
    /// Body → the `i`-th parameter of the lambda it applies in place, bound
    /// to a staging variable.
    Binds(usize),
}

impl fmt::Display for SEdge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SEdge::Stages => write!(f, "stages"),
            SEdge::Blocks => write!(f, "blocks"),
            SEdge::Passed(Role::Head) => write!(f, "called"),
            SEdge::Passed(Role::Arg(i)) => write!(f, "passed as arg {i}"),
            SEdge::Passed(Role::FixScope) => write!(f, "passed"),
            SEdge::Defines(Role::Head) => write!(f, "invokes"),
            SEdge::Defines(Role::Arg(i)) => write!(f, "defines (arg {i})"),
            SEdge::Defines(Role::FixScope) => write!(f, "fix scope"),
            SEdge::Binds(i) => write!(f, "binds param {i}"),
        }
    }
}

/// A node of the staging graph.
#[derive(Clone, Debug)]
pub enum SNode {
    /// A staging variable.
    Var {
        /// The variable.
        var: VarId,
        /// Its printed name, kind and binder.
        view: VarView,
    },
    /// A body linked to staging variables.
    Body {
        /// The body's node in the lambda graph.
        at: NodeIndex,
        /// Its label (as in the lambda graph).
        label: String,
        /// Its status, as the lambda graph colours it.
        status: Status,
        /// Its source.
        span: Option<Span>,
    },
}

impl SNode {
    /// A one-line description: `[ct] (staging parameter)` or the body's
    /// label with its status (and what a stuck body waits for).
    pub fn describe(&self, vars: &HashMap<VarId, VarView>) -> String {
        match self {
            SNode::Var { view, .. } => {
                let (shown, what) = match view.kind {
                    VarKind::Stage => (format!("[{}]", view.name), "staging parameter"),
                    VarKind::Param => (view.name.clone(), "parameter"),
                    VarKind::Rest => (format!("!{}", view.name), "rest parameter"),
                    VarKind::Fix => (view.name.clone(), "fix name"),
                    VarKind::Free => (view.name.clone(), "free variable"),
                };
                format!("{shown} ({what})")
            }
            SNode::Body { label, status, .. } => format!("{label} ({})", status_line(status, vars)),
        }
    }

    /// Where it comes from: a body's source, a variable's binder.
    pub fn span(&self) -> Option<Span> {
        match self {
            SNode::Var { view, .. } => Some(view.span),
            SNode::Body { span, .. } => *span,
        }
    }
}

impl fmt::Display for SNode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SNode::Var { view, .. } => f.write_str(&view.name),
            SNode::Body { label, .. } => f.write_str(label),
        }
    }
}

/// The staging graph of a term.
pub struct StagingGraph {
    /// Nodes and edges, numbered in the order of the lambda graph.
    pub graph: Graph<SNode, SEdge>,
    /// The variables of the term, with their printed names.
    pub vars: HashMap<VarId, VarView>,
}

/// What a body of the lambda graph holds directly (outside nested lambdas).
struct Facts {
    stage_vars: Vec<VarId>,
    stuck: Option<VarId>,
    fix_sparam: Option<VarId>,
    /// Variables in the head and arguments, with where.
    uses: Vec<(VarId, Role)>,
    /// Staging parameters of the lambdas in the head and arguments.
    lambdas: Vec<(VarId, Role)>,
    /// `(argument, position, parameter)` of a lambda applied in place.
    binds: Vec<(VarId, usize, VarId)>,
}

fn facts(lg: &LambdaGraph, n: NodeIndex) -> Option<Facts> {
    let NodeKind::Body {
        status,
        stage_vars,
        fix_sparam,
        ..
    } = &lg.graph[n].kind
    else {
        return None;
    };
    let mut f = Facts {
        stage_vars: stage_vars.clone(),
        stuck: match status {
            Status::Stuck { var, .. } => Some(*var),
            _ => None,
        },
        fix_sparam: *fix_sparam,
        uses: Vec::new(),
        lambdas: Vec::new(),
        binds: Vec::new(),
    };
    if fix_sparam.is_some() {
        return Some(f);
    }
    let children = lg.children(n);
    // Reversed, so that the stack pops them in reading order.
    let mut stack: Vec<(NodeIndex, Role)> = children
        .iter()
        .rev()
        .map(|(c, e)| {
            let role = match e {
                EdgeKind::Arg(i) | EdgeKind::Splice(i) => Role::Arg(*i),
                _ => Role::Head,
            };
            (*c, role)
        })
        .collect();
    while let Some((c, role)) = stack.pop() {
        match &lg.graph[c].kind {
            NodeKind::Var(v) => f.uses.push((*v, role)),
            NodeKind::Lambda { sparam, .. } => f.lambdas.push((*sparam, role)),
            NodeKind::Expr { vars } => {
                f.uses.extend(vars.iter().map(|v| (*v, role)));
                stack.extend(lg.children(c).into_iter().rev().map(|(x, _)| (x, role)));
            }
            NodeKind::Tuple | NodeKind::Record | NodeKind::Map => {
                stack.extend(lg.children(c).into_iter().rev().map(|(x, _)| (x, role)));
            }
            NodeKind::Body { .. } | NodeKind::Value => {}
        }
    }
    // A lambda applied in place: arguments before the first splice (or the
    // rest parameter) bind the parameters at their positions.
    if let Some((head, EdgeKind::Head)) = children.first() {
        if let NodeKind::Lambda { params, .. } = &lg.graph[*head].kind {
            for (c, e) in &children[1..] {
                let EdgeKind::Arg(i) = e else { break };
                let Some(p) = params.get(i - 1) else { break };
                if p.rest {
                    break;
                }
                if let NodeKind::Var(v) = &lg.graph[*c].kind {
                    f.binds.push((*v, *i, p.var));
                }
            }
        }
    }
    Some(f)
}

/// Which end of a pending edge a body is.
#[derive(Clone, Copy)]
enum End {
    Var(VarId),
    Body(usize),
}

impl StagingGraph {
    /// The staging graph of the term that `lg` shows.
    pub fn from_lambda_graph(lg: &LambdaGraph) -> StagingGraph {
        let named = |v: &VarId| !matches!(lg.vars.get(v), Some(view) if view.anonymous);
        let all: Vec<(NodeIndex, Facts)> = lg.graph.node_indices().filter_map(|n| facts(lg, n).map(|f| (n, f))).collect();

        // The staging variables: named staging parameters, variables of
        // staging expressions, variables stuck bodies wait for ...
        let mut staging: HashSet<VarId> = HashSet::default();
        for n in lg.graph.node_indices() {
            if let NodeKind::Lambda { sparam, .. } = &lg.graph[n].kind {
                if named(sparam) {
                    staging.insert(*sparam);
                }
            }
        }
        let mut linked: HashMap<VarId, Vec<VarId>> = HashMap::default();
        for (_, f) in &all {
            staging.extend(f.stage_vars.iter().copied().filter(named));
            staging.extend(f.stuck);
            staging.extend(f.fix_sparam.filter(named));
            for &(a, _, p) in &f.binds {
                linked.entry(a).or_default().push(p);
                linked.entry(p).or_default().push(a);
            }
        }
        // ... and what an application in place binds to one of these (both
        // ways: argument and parameter are the same value).
        let mut queue: Vec<VarId> = staging.iter().copied().collect();
        while let Some(v) = queue.pop() {
            for w in linked.get(&v).map(Vec::as_slice).unwrap_or(&[]) {
                if staging.insert(*w) {
                    queue.push(*w);
                }
            }
        }

        // The edges of each body, in numbering order.
        let mut edges: Vec<(usize, End, End, SEdge)> = Vec::new();
        let mut bodies: Vec<(NodeIndex, Vec<VarId>)> = Vec::new();
        for (n, f) in &all {
            let b = bodies.len();
            let mut incoming: Vec<VarId> = Vec::new();
            let mut mine: Vec<(End, End, SEdge)> = Vec::new();
            for &v in f.stage_vars.iter().filter(|v| staging.contains(v)) {
                incoming.push(v);
                mine.push((End::Var(v), End::Body(b), SEdge::Stages));
            }
            if let Some(v) = f.stuck {
                incoming.push(v);
                mine.push((End::Var(v), End::Body(b), SEdge::Blocks));
            }
            let mut seen: HashSet<(VarId, Role)> = HashSet::default();
            for &(v, role) in &f.uses {
                if staging.contains(&v) && !f.stage_vars.contains(&v) && f.stuck != Some(v) && seen.insert((v, role)) {
                    incoming.push(v);
                    mine.push((End::Var(v), End::Body(b), SEdge::Passed(role)));
                }
            }
            for &(y, role) in &f.lambdas {
                if staging.contains(&y) {
                    mine.push((End::Body(b), End::Var(y), SEdge::Defines(role)));
                }
            }
            if let Some(y) = f.fix_sparam.filter(|y| staging.contains(y)) {
                mine.push((End::Body(b), End::Var(y), SEdge::Defines(Role::FixScope)));
            }
            for &(a, i, p) in &f.binds {
                if staging.contains(&a) {
                    mine.push((End::Body(b), End::Var(p), SEdge::Binds(i)));
                }
            }
            if !mine.is_empty() {
                edges.extend(mine.into_iter().map(|(x, y, e)| (b, x, y, e)));
                bodies.push((*n, incoming));
            }
        }
        let used: HashSet<VarId> = edges
            .iter()
            .flat_map(|(_, x, y, _)| [x, y])
            .filter_map(|e| match e {
                End::Var(v) => Some(*v),
                End::Body(_) => None,
            })
            .collect();

        // Nodes in the lambda graph's order: a variable at its binder (or,
        // when its binder is not in the term, before its first body), a
        // body where it stands.
        let mut g: Graph<SNode, SEdge> = Graph::new();
        let mut var_node: HashMap<VarId, NodeIndex> = HashMap::default();
        let mut body_node: Vec<NodeIndex> = Vec::with_capacity(bodies.len());
        let mut add_var = |g: &mut Graph<SNode, SEdge>, v: VarId| {
            if used.contains(&v) && !var_node.contains_key(&v) {
                let view = lg.vars.get(&v).cloned().unwrap_or(VarView {
                    name: "?".to_string(),
                    anonymous: false,
                    kind: VarKind::Free,
                    span: Span::default(),
                });
                var_node.insert(v, g.add_node(SNode::Var { var: v, view }));
            }
        };
        let mut next_body = bodies.iter().peekable();
        for n in lg.graph.node_indices() {
            match &lg.graph[n].kind {
                NodeKind::Lambda { sparam, params, rec } => {
                    for v in rec.iter().chain(std::iter::once(sparam)).chain(params.iter().map(|p| &p.var)) {
                        add_var(&mut g, *v);
                    }
                }
                NodeKind::Body { status, fix_sparam, .. } => {
                    let Some((_, incoming)) = next_body.next_if(|(m, _)| *m == n) else {
                        continue;
                    };
                    for v in incoming {
                        add_var(&mut g, *v);
                    }
                    let node = &lg.graph[n];
                    body_node.push(g.add_node(SNode::Body {
                        at: n,
                        label: node.label.clone(),
                        status: status.clone(),
                        span: node.span,
                    }));
                    if let Some(y) = fix_sparam {
                        add_var(&mut g, *y);
                    }
                }
                _ => {}
            }
        }
        for v in lg_var_order(&edges) {
            add_var(&mut g, v);
        }
        for (_, x, y, e) in edges {
            let end = |e: End| match e {
                End::Var(v) => var_node.get(&v).copied(),
                End::Body(b) => body_node.get(b).copied(),
            };
            if let (Some(x), Some(y)) = (end(x), end(y)) {
                g.add_edge(x, y, e);
            }
        }
        StagingGraph {
            graph: g,
            vars: lg.vars.clone(),
        }
    }

    /// The successors of `n` with the edges leading to them, in numbering
    /// order of the targets.
    pub fn successors(&self, n: NodeIndex) -> Vec<(NodeIndex, SEdge)> {
        let mut out: Vec<(NodeIndex, SEdge)> = self.graph.edges(n).map(|e| (e.target(), *e.weight())).collect();
        out.sort_by_key(|(t, _)| t.index());
        out
    }

    /// Graphviz DOT text: variables are ellipses, bodies boxes filled by
    /// status; source places come from `sources`.
    pub fn to_dot(&self, sources: &SourceMap) -> String {
        let places = Places::new(sources);
        let node_attrs = |_: &Graph<SNode, SEdge>, (_, node): (NodeIndex, &SNode)| -> String {
            let place = node.span().map(|s| places.describe(s)).unwrap_or_default();
            match node {
                SNode::Var { .. } => format!(
                    "label=\"{}\" shape=ellipse ",
                    dot_escape(&format!("{}\n{place}", node.describe(&self.vars)))
                ),
                SNode::Body { label, status, .. } => format!(
                    "label=\"{}\" shape=box style=filled fillcolor={} ",
                    dot_escape(&format!("{label}\n{place}\n{}", status_line(status, &self.vars))),
                    status.colour()
                ),
            }
        };
        let edge_attrs = |_: &Graph<SNode, SEdge>, e: petgraph::graph::EdgeReference<'_, SEdge>| match e.weight() {
            SEdge::Passed(_) | SEdge::Binds(_) => "style=dashed ".to_string(),
            _ => String::new(),
        };
        let config = [Config::NodeNoLabel, Config::GraphContentOnly];
        let dot = Dot::with_attr_getters(&self.graph, &config, &edge_attrs, &node_attrs);
        format!(
            "digraph staging_graph {{\n    // bodies: {}; dashed edges pass staging values on\n    node [fontname=\"monospace\" fontsize=10]\n    edge [fontname=\"monospace\" fontsize=9]\n{dot}}}\n",
            super::LEGEND
        )
    }
}

/// Variables of `edges` in order of first mention (for those whose binder
/// the lambda graph does not hold).
fn lg_var_order(edges: &[(usize, End, End, SEdge)]) -> Vec<VarId> {
    let mut seen = HashSet::default();
    edges
        .iter()
        .flat_map(|(_, x, y, _)| [*x, *y])
        .filter_map(|e| match e {
            End::Var(v) if seen.insert(v) => Some(v),
            _ => None,
        })
        .collect()
}
