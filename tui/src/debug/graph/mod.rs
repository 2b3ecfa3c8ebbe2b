//! The graph pane of the debugger: the lambda graph around the focus (the
//! ready body, its nested lambdas, the variables and bindings it touches),
//! laid out in layers and drawn with box characters.
//!
//! Three pure steps, each testable on its own:
//!
//! 1. [`neighbourhood`]: the nodes within a radius of tree edges of the
//!    focus, taken from the machine's [`LambdaGraph`], with the tree edges
//!    between them and the *binding* edges from a lambda to the occurrences
//!    of its parameters; capped at [`MAX_NODES`] nodes, so a huge term never
//!    slows the pane down;
//! 2. [`layout()`]: a layered layout in terminal cells (a simple tidy tree)
//!    at a [`Zoom`] level, as a list of drawing primitives;
//! 3. [`GraphView`]: a ratatui widget that draws a layout into a rectangle
//!    at a pan offset, clipping what falls outside.
//!
//! [`GraphPane`] holds the pane's state (radius, zoom, pan, following the
//! focus) and the key actions the app maps onto it.

mod layout;
mod widget;

use std::collections::HashMap;

use deepcps_machine::term::VarId;
use deepcps_machine::view::label::clip;
use deepcps_machine::view::lambda_graph::NodeKind;
use deepcps_machine::view::{LambdaGraph, Status};
use petgraph::Direction;
use ratatui::layout::Rect;

pub use layout::{layout, CellRole, Layout, NodeBox, Prim, Zoom, BAND};
/// The lambda graph's node indices (petgraph's), re-exported for the app.
pub use petgraph::graph::NodeIndex;
pub use widget::{centre_on_focus, GraphView};

/// At most this many nodes (pseudo-nodes included) in a neighbourhood.
pub const MAX_NODES: usize = 200;

/// At most this many children of one node are shown; the others are
/// summed up in one "… k more" pseudo-node.
pub const MAX_CHILDREN: usize = 12;

/// Labels are clipped to this many characters (the widest zoom level).
pub const LABEL_MAX: usize = 36;

/// The smallest radius [`GraphPane`] allows.
pub const RADIUS_MIN: usize = 1;

/// The largest radius [`GraphPane`] allows.
pub const RADIUS_MAX: usize = 8;

/// What a node of a neighbourhood stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shown {
    /// A body.
    Body,
    /// A lambda (of a recursive value or a `fix` too).
    Lambda,
    /// An occurrence of a variable.
    Var,
    /// A tuple.
    Tuple,
    /// A record.
    Record,
    /// A map.
    Map,
    /// An expression not yet evaluated.
    Expr,
    /// Any other value (number, string, built-in, ...).
    Value,
    /// A pseudo-node standing for children left out ("… k more").
    More,
}

impl Shown {
    /// A short name: `body`, `lambda`, `var`, `tuple`, `record`, `map`,
    /// `expr`, `value` or `more`.
    pub fn name(self) -> &'static str {
        match self {
            Shown::Body => "body",
            Shown::Lambda => "lambda",
            Shown::Var => "var",
            Shown::Tuple => "tuple",
            Shown::Record => "record",
            Shown::Map => "map",
            Shown::Expr => "expr",
            Shown::Value => "value",
            Shown::More => "more",
        }
    }
}

/// A node of a neighbourhood.
#[derive(Clone, Debug)]
pub struct ShownNode {
    /// The node of the lambda graph (`None` for a "… k more" pseudo-node).
    pub index: Option<NodeIndex>,
    /// A short label (the lambda graph's, clipped to [`LABEL_MAX`];
    /// lambdas start with `λ`).
    pub label: String,
    /// The status of a body.
    pub status: Option<Status>,
    /// What it stands for.
    pub kind: Shown,
    /// Its depth below the topmost node shown (layer 0).
    pub layer: usize,
    /// Whether it is the focus.
    pub focus: bool,
    /// Its parent among the nodes shown (`None` for the topmost).
    pub parent: Option<usize>,
    /// Its children among the nodes shown, in reading order.
    pub children: Vec<usize>,
    /// How many of its children in the lambda graph are not shown (beyond
    /// the radius or left out by the caps).
    pub hidden: usize,
}

/// Why an edge of a neighbourhood links its nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Link {
    /// A tree edge of the lambda graph, parent to child.
    Tree,
    /// A lambda (or `fix` body) to an occurrence of a variable it binds.
    Binds,
}

/// An edge of a neighbourhood, between positions in
/// [`Neighbourhood::nodes`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShownEdge {
    /// The parent, or the binder.
    pub from: usize,
    /// The child, or the occurrence.
    pub to: usize,
    /// Tree or binding edge.
    pub link: Link,
    /// The text of a tree edge (`head`, `arg 1`, `body`, ...); for a
    /// binding edge the printed name of the variable bound.
    pub label: String,
}

/// The part of a lambda graph around a focus.
#[derive(Clone, Debug, Default)]
pub struct Neighbourhood {
    /// The nodes, in depth-first reading order from the topmost one.
    pub nodes: Vec<ShownNode>,
    /// Tree edges (in the order of their children), then binding edges.
    pub edges: Vec<ShownEdge>,
    /// The position of the focus in `nodes` (`None` when the focus is not
    /// a node of the graph: then nothing is shown).
    pub focus: Option<usize>,
    /// The radius it was taken with.
    pub radius: usize,
}

/// A node being collected, before the nodes are put in reading order.
struct Raw {
    index: Option<NodeIndex>,
    parent: Option<usize>,
    /// For a pseudo-node: how many children it stands for.
    more: usize,
}

/// The parent of `n` in the lambda graph's tree.
fn parent_of(lg: &LambdaGraph, n: NodeIndex) -> Option<NodeIndex> {
    lg.graph.neighbors_directed(n, Direction::Incoming).next()
}

/// The nodes within `radius` tree edges of `focus` (ancestors up the parent
/// chain, descendants down, and the other descendants of those ancestors),
/// with the tree edges between them and the binding edges from an included
/// lambda to the included occurrences of its parameters.
///
/// Nearer nodes come first when the caps bite: at most [`MAX_CHILDREN`]
/// children of a node and [`MAX_NODES`] nodes in all, the children left
/// out summed up in a "… k more" pseudo-node. The focus and its ancestors
/// within the radius are always shown (at most `MAX_NODES / 2` ancestors,
/// whatever the radius). Iterative; the cost is that of the nodes looked at
/// (the nodes shown and the edges out of them), not of the term.
pub fn neighbourhood(lg: &LambdaGraph, focus: NodeIndex, radius: usize) -> Neighbourhood {
    neighbourhood_below(lg, focus, radius, None)
}

/// [`neighbourhood`] among the descendants of `top` (and `top` itself): no
/// ancestor above it is shown. An exit value's graph hangs below the body
/// `@never: $exit v` that holds it for the views; the pane shows the value.
pub fn neighbourhood_below(lg: &LambdaGraph, focus: NodeIndex, radius: usize, top: Option<NodeIndex>) -> Neighbourhood {
    let g = &lg.graph;
    if g.node_weight(focus).is_none() {
        return Neighbourhood {
            radius,
            ..Neighbourhood::default()
        };
    }
    // The focus and its ancestors up to `radius`: chain[j] is at distance j.
    let mut chain = vec![focus];
    while chain.len() <= radius.min(MAX_NODES / 2) {
        if top.is_some() && chain.last() == top.as_ref() {
            break;
        }
        match chain.last().and_then(|&n| parent_of(lg, n)) {
            Some(p) => chain.push(p),
            None => break,
        }
    }
    let mut raw: Vec<Raw> = Vec::new();
    let mut slot: HashMap<NodeIndex, usize> = HashMap::new();
    for &n in chain.iter().rev() {
        let parent = raw.len().checked_sub(1);
        slot.insert(n, raw.len());
        raw.push(Raw {
            index: Some(n),
            parent,
            more: 0,
        });
    }
    // Breadth first by distance from the focus, so that the caps leave out
    // the farthest nodes.
    let mut level: Vec<usize> = vec![raw.len() - 1];
    for d in 0..radius {
        if level.is_empty() {
            break;
        }
        let mut next = Vec::new();
        for &s in &level {
            let Some(n) = raw[s].index else { continue };
            let fresh: Vec<NodeIndex> = lg
                .children(n)
                .into_iter()
                .map(|(c, _)| c)
                .filter(|c| !slot.contains_key(c))
                .collect();
            let room = MAX_CHILDREN.min(MAX_NODES.saturating_sub(raw.len()));
            let take = if fresh.len() <= room { fresh.len() } else { room.saturating_sub(1) };
            for &c in &fresh[..take] {
                slot.insert(c, raw.len());
                next.push(raw.len());
                raw.push(Raw {
                    index: Some(c),
                    parent: Some(s),
                    more: 0,
                });
            }
            if take < fresh.len() && room > 0 {
                raw.push(Raw {
                    index: None,
                    parent: Some(s),
                    more: fresh.len() - take,
                });
            }
            // The next ancestor is one edge farther from the focus.
            if chain.get(d) == Some(&n) {
                if let Some(up) = chain.get(d + 1) {
                    next.push(slot[up]);
                }
            }
        }
        level = next;
    }
    order(lg, &raw, &slot, focus, radius)
}

/// Puts the collected nodes in depth-first reading order, with labels,
/// layers, tree edges and binding edges.
fn order(lg: &LambdaGraph, raw: &[Raw], slot: &HashMap<NodeIndex, usize>, focus: NodeIndex, radius: usize) -> Neighbourhood {
    let g = &lg.graph;
    // Children of each collected node, in reading order (pseudo-nodes last).
    let mut kids: Vec<Vec<usize>> = vec![Vec::new(); raw.len()];
    for (i, r) in raw.iter().enumerate() {
        if let Some(p) = r.parent {
            kids[p].push(i);
        }
    }
    let key = |i: &usize| raw[*i].index.map_or(usize::MAX, |n| n.index());
    for k in &mut kids {
        k.sort_by_key(key);
    }
    // Pre-order from the topmost node (raw[0]), iteratively.
    let mut pos = vec![usize::MAX; raw.len()];
    let mut nodes: Vec<ShownNode> = Vec::with_capacity(raw.len());
    let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
    while let Some((i, layer)) = stack.pop() {
        pos[i] = nodes.len();
        nodes.push(shown_node(lg, &raw[i], layer, raw[i].index == Some(focus)));
        stack.extend(kids[i].iter().rev().map(|&k| (k, layer + 1)));
    }
    let mut edges = Vec::new();
    for (i, r) in raw.iter().enumerate() {
        let (Some(p), me) = (r.parent, pos[i]) else { continue };
        let parent = pos[p];
        nodes[parent].children.push(me);
        nodes[me].parent = Some(parent);
        let label = match (raw[p].index, r.index) {
            (Some(a), Some(b)) => g.find_edge(a, b).map(|e| g[e].to_string()).unwrap_or_default(),
            _ => String::new(),
        };
        edges.push((
            me,
            ShownEdge {
                from: parent,
                to: me,
                link: Link::Tree,
                label,
            },
        ));
    }
    edges.sort_by_key(|(me, _)| *me);
    let mut edges: Vec<ShownEdge> = edges.into_iter().map(|(_, e)| e).collect();
    for i in 0..nodes.len() {
        nodes[i].children.sort_unstable();
        if let Some(n) = nodes[i].index {
            let shown = nodes[i].children.iter().filter(|&&c| nodes[c].index.is_some()).count();
            nodes[i].hidden = g.edges(n).count().saturating_sub(shown);
        }
    }
    // Binding edges: binders shown, then the occurrences they bind.
    let mut binders: HashMap<VarId, usize> = HashMap::new();
    for (i, node) in nodes.iter().enumerate() {
        let Some(n) = node.index else { continue };
        match &g[n].kind {
            NodeKind::Lambda { sparam, params, rec } => {
                binders.insert(*sparam, i);
                binders.extend(params.iter().map(|p| (p.var, i)));
                binders.extend(rec.map(|r| (r, i)));
            }
            NodeKind::Body { fix_sparam: Some(y), .. } => {
                binders.insert(*y, i);
            }
            _ => {}
        }
    }
    for (i, node) in nodes.iter().enumerate() {
        let Some(n) = node.index else { continue };
        let read: &[VarId] = match &g[n].kind {
            NodeKind::Var(v) => std::slice::from_ref(v),
            NodeKind::Expr { vars } => vars,
            _ => &[],
        };
        let mut seen = Vec::new();
        for v in read {
            if let Some(&b) = binders.get(v) {
                if !seen.contains(v) {
                    seen.push(*v);
                    let label = lg.vars.get(v).map_or_else(|| "?".to_string(), |view| view.name.clone());
                    edges.push(ShownEdge {
                        from: b,
                        to: i,
                        link: Link::Binds,
                        label,
                    });
                }
            }
        }
    }
    let focus = slot.get(&focus).map(|&s| pos[s]);
    Neighbourhood {
        nodes,
        edges,
        focus,
        radius,
    }
}

/// The shown form of a collected node.
fn shown_node(lg: &LambdaGraph, r: &Raw, layer: usize, focus: bool) -> ShownNode {
    let mut out = ShownNode {
        index: r.index,
        label: format!("… {} more", r.more),
        status: None,
        kind: Shown::More,
        layer,
        focus,
        parent: None,
        children: Vec::new(),
        hidden: 0,
    };
    let Some(node) = r.index.and_then(|n| lg.graph.node_weight(n)) else {
        return out;
    };
    let (kind, label) = match &node.kind {
        NodeKind::Body { status, .. } => {
            out.status = Some(status.clone());
            (Shown::Body, clip(&node.label, LABEL_MAX))
        }
        NodeKind::Lambda { rec: None, .. } => (Shown::Lambda, clip(&format!("λ{}", node.label), LABEL_MAX)),
        NodeKind::Lambda { .. } => (Shown::Lambda, clip(&node.label, LABEL_MAX)),
        NodeKind::Var(_) => (Shown::Var, clip(&node.label, LABEL_MAX)),
        NodeKind::Tuple => (Shown::Tuple, clip(&node.label, LABEL_MAX)),
        NodeKind::Record => (Shown::Record, clip(&node.label, LABEL_MAX)),
        NodeKind::Map => (Shown::Map, clip(&node.label, LABEL_MAX)),
        NodeKind::Expr { .. } => (Shown::Expr, clip(&node.label, LABEL_MAX)),
        NodeKind::Value => (Shown::Value, clip(&node.label, LABEL_MAX)),
    };
    out.kind = kind;
    out.label = label;
    out
}

/// The graph pane's state: what the keys change. No IO: the app draws
/// [`GraphPane::layout_for`] with a [`GraphView`] at [`GraphPane::pan_for`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GraphPane {
    /// The radius of the neighbourhood, in tree edges
    /// ([`RADIUS_MIN`]..=[`RADIUS_MAX`]).
    pub radius: usize,
    /// How wide labels are.
    pub zoom: Zoom,
    /// The pan offset: the layout cell drawn at the pane's top-left corner.
    pub pan: (i32, i32),
    /// Whether the pan follows the focus (centres it at every draw).
    pub follow: bool,
}

impl Default for GraphPane {
    fn default() -> GraphPane {
        GraphPane {
            radius: 2,
            zoom: Zoom::Normal,
            pan: (0, 0),
            follow: true,
        }
    }
}

impl GraphPane {
    /// The default state: radius 2, normal zoom, following the focus.
    pub fn new() -> GraphPane {
        GraphPane::default()
    }

    /// Wider labels (up to [`Zoom::Wide`]).
    pub fn zoom_in(&mut self) {
        self.zoom = self.zoom.zoom_in();
    }

    /// Narrower labels (down to [`Zoom::Compact`]).
    pub fn zoom_out(&mut self) {
        self.zoom = self.zoom.zoom_out();
    }

    /// Moves the view by `(dx, dy)` cells (positive: right and down) and
    /// stops following the focus.
    pub fn pan_by(&mut self, dx: i32, dy: i32) {
        self.pan = (self.pan.0.saturating_add(dx), self.pan.1.saturating_add(dy));
        self.follow = false;
    }

    /// One more tree edge of neighbourhood (at most [`RADIUS_MAX`]).
    pub fn radius_up(&mut self) {
        self.radius = (self.radius + 1).clamp(RADIUS_MIN, RADIUS_MAX);
    }

    /// One tree edge less (at least [`RADIUS_MIN`]).
    pub fn radius_down(&mut self) {
        self.radius = self.radius.saturating_sub(1).clamp(RADIUS_MIN, RADIUS_MAX);
    }

    /// Follows the focus again: the next [`GraphPane::pan_for`] centres it.
    pub fn recentre(&mut self) {
        self.follow = true;
    }

    /// The layout of the neighbourhood of `focus` at this radius and zoom.
    pub fn layout_for(&self, lg: &LambdaGraph, focus: NodeIndex) -> Layout {
        layout(&neighbourhood(lg, focus, self.radius), self.zoom)
    }

    /// The pan to draw `layout` with in `area`: when following, the one
    /// that centres the focus (remembered as the pan); otherwise the pan.
    pub fn pan_for(&mut self, layout: &Layout, area: Rect) -> (i32, i32) {
        if self.follow {
            self.pan = centre_on_focus(layout, area);
        }
        self.pan
    }
}
