//! The layered layout of a [`Neighbourhood`] in terminal cells: one band of
//! [`BAND`] rows per layer (the node row, the bar from the parent across its
//! children, the drops onto the children, labelled with the edge), each
//! node a bracketed label `[label]` as wide as the [`Zoom`] allows, placed
//! as a simple tidy tree: a subtree is as wide as its node or its children
//! side by side, whichever is wider, and a parent stands centred over its
//! children. A variable bound by a lambda shown is followed by
//! `⇠ λ(binder)`.
//!
//! Every character of a primitive takes exactly one cell (characters of
//! another width are replaced by `?`), so widths are character counts.

use deepcps_machine::view::Status;
use ratatui::text::Span;

use super::{Link, Neighbourhood, Shown};

/// Rows per layer: the node row, the bar across a parent's children
/// (joining the parent's centre), the drops onto the children.
pub const BAND: i32 = 3;

/// How wide node labels are drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Zoom {
    /// Labels of at most 8 cells.
    Compact,
    /// Labels of at most 18 cells.
    #[default]
    Normal,
    /// Labels of at most 36 cells.
    Wide,
}

impl Zoom {
    /// The most cells a node's label takes (brackets excluded).
    pub fn label_width(self) -> usize {
        match self {
            Zoom::Compact => 8,
            Zoom::Normal => 18,
            Zoom::Wide => 36,
        }
    }

    /// The next wider level (`Wide` stays).
    pub fn zoom_in(self) -> Zoom {
        match self {
            Zoom::Compact => Zoom::Normal,
            Zoom::Normal | Zoom::Wide => Zoom::Wide,
        }
    }

    /// The next narrower level (`Compact` stays).
    pub fn zoom_out(self) -> Zoom {
        match self {
            Zoom::Wide => Zoom::Normal,
            Zoom::Normal | Zoom::Compact => Zoom::Compact,
        }
    }

    /// Blank cells between sibling subtrees.
    fn gap(self) -> i32 {
        match self {
            Zoom::Compact => 1,
            Zoom::Normal | Zoom::Wide => 2,
        }
    }
}

/// What a primitive draws, which decides its style.
#[derive(Clone, Debug, PartialEq)]
pub enum CellRole {
    /// A node; bodies carry their status.
    Node(Option<Status>),
    /// The focus node.
    Focus,
    /// A "… k more" pseudo-node.
    More,
    /// Connectors of tree edges (and the `┆` under a node whose children
    /// are not shown).
    Edge,
    /// The text of a tree edge (`head`, `arg 1`, ...).
    EdgeLabel,
    /// A binding note: `⇠ λ(x, k)` after a variable.
    Binding,
}

/// Text at a cell of the layout, one cell per character.
#[derive(Clone, Debug, PartialEq)]
pub struct Prim {
    /// Column of the first character.
    pub x: i32,
    /// Row.
    pub y: i32,
    /// The characters.
    pub text: String,
    /// What it draws.
    pub role: CellRole,
}

impl Prim {
    /// Cells it takes.
    pub fn width(&self) -> i32 {
        cells(&self.text)
    }
}

/// Where a node's bracketed label stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodeBox {
    /// Position of the node in [`Neighbourhood::nodes`].
    pub node: usize,
    /// Column of the opening bracket.
    pub x: i32,
    /// Row.
    pub y: i32,
    /// Cells from bracket to bracket.
    pub width: i32,
}

impl NodeBox {
    /// The column edges leave from and arrive at.
    pub fn centre(&self) -> i32 {
        self.x + self.width / 2
    }
}

/// A neighbourhood laid out in cells.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Layout {
    /// Columns the drawing spans (from 0).
    pub width: i32,
    /// Rows the drawing spans (from 0).
    pub height: i32,
    /// What to draw, in drawing order.
    pub prims: Vec<Prim>,
    /// One box per node, in the order of [`Neighbourhood::nodes`].
    pub boxes: Vec<NodeBox>,
    /// The position of the focus in `boxes`.
    pub focus: Option<usize>,
}

/// The cells `s` takes, one per character.
fn cells(s: &str) -> i32 {
    i32::try_from(s.chars().count()).unwrap_or(i32::MAX)
}

/// `s` made drawable one character per cell (other characters become `?`)
/// and clipped to `max` cells with `…`.
fn fit(s: &str, max: usize) -> String {
    let mut buf = [0u8; 4];
    let clean: String = s
        .chars()
        .map(|c| {
            if Span::raw(&*c.encode_utf8(&mut buf)).width() == 1 {
                c
            } else {
                '?'
            }
        })
        .collect();
    if clean.chars().count() <= max {
        return clean;
    }
    let mut out: String = clean.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// The box-drawing character joining the directions given.
fn joint(up: bool, down: bool, left: bool, right: bool) -> char {
    match (up, down, left, right) {
        (true, true, true, true) => '┼',
        (true, true, true, false) => '┤',
        (true, true, false, true) => '├',
        (true, false, true, true) => '┴',
        (true, false, true, false) => '┘',
        (true, false, false, true) => '└',
        (false, true, true, true) => '┬',
        (false, true, true, false) => '┐',
        (false, true, false, true) => '┌',
        (false, false, _, _) => '─',
        (true, _, false, false) | (false, true, false, false) => '│',
    }
}

/// Lays `n` out at `zoom`: node boxes never overlap (each stays within its
/// subtree's columns, and subtrees of one layer are side by side), and
/// every tree edge is a bar and a drop in the band between its
/// parent's row and its child's. Linear in the nodes (iterative).
pub fn layout(n: &Neighbourhood, zoom: Zoom) -> Layout {
    let nodes = &n.nodes;
    let count = nodes.len();
    if count == 0 {
        return Layout::default();
    }
    let lw = zoom.label_width();
    let gap = zoom.gap();
    // Edge texts by child, binding notes by occurrence.
    let mut edge_text: Vec<&str> = vec![""; count];
    let mut binds: Vec<Vec<String>> = vec![Vec::new(); count];
    for e in &n.edges {
        match e.link {
            Link::Tree if e.to < count => edge_text[e.to] = &e.label,
            Link::Binds if e.to < count && e.from < count => {
                let binder = &nodes[e.from].label;
                binds[e.to].push(if nodes[e.to].kind == Shown::Var {
                    format!("⇠ {binder}")
                } else {
                    format!("{} ⇠ {binder}", e.label)
                });
            }
            _ => {}
        }
    }
    let text: Vec<String> = nodes.iter().map(|node| format!("[{}]", fit(&node.label, lw))).collect();
    let note: Vec<Option<String>> = binds.iter().map(|b| (!b.is_empty()).then(|| fit(&b.join(", "), lw + 2))).collect();
    let bw: Vec<i32> = text.iter().map(|t| cells(t)).collect();
    let ow: Vec<i32> = (0..count).map(|i| bw[i] + note[i].as_ref().map_or(0, |t| 1 + cells(t))).collect();
    let kids_total = |sw: &[i32], i: usize| -> i32 {
        let k = &nodes[i].children;
        k.iter().map(|&c| sw[c]).sum::<i32>() + gap * (i32::try_from(k.len()).unwrap_or(1) - 1).max(0)
    };
    // Subtree widths, children first (nodes are in pre-order).
    let mut sw = vec![0i32; count];
    for i in (0..count).rev() {
        sw[i] = ow[i].max(kids_total(&sw, i));
    }
    // Left edges of subtrees, parents first.
    let mut x0 = vec![0i32; count];
    for i in 0..count {
        let mut x = x0[i] + (sw[i] - kids_total(&sw, i)) / 2;
        for &c in &nodes[i].children {
            x0[c] = x;
            x += sw[c] + gap;
        }
    }
    // Boxes, children first: a parent centred over its children.
    let mut bx = vec![0i32; count];
    let centre = |bx: &[i32], i: usize| bx[i] + bw[i] / 2;
    for i in (0..count).rev() {
        let kids = &nodes[i].children;
        bx[i] = match (kids.first(), kids.last()) {
            (Some(&a), Some(&b)) => {
                let c = (centre(&bx, a) + centre(&bx, b)) / 2;
                (c - bw[i] / 2).clamp(x0[i], x0[i] + sw[i] - ow[i])
            }
            _ => x0[i] + (sw[i] - ow[i]) / 2,
        };
    }
    let row = |i: usize| i32::try_from(nodes[i].layer).unwrap_or(i32::MAX / BAND - 1) * BAND;
    let mut out = Layout {
        width: sw[0],
        focus: n.focus,
        ..Layout::default()
    };
    let mut drops: Vec<(i32, i32, &str)> = Vec::new();
    for i in 0..count {
        let node = &nodes[i];
        let y = row(i);
        let role = match node.kind {
            _ if node.focus => CellRole::Focus,
            Shown::More => CellRole::More,
            _ => CellRole::Node(node.status.clone()),
        };
        out.boxes.push(NodeBox {
            node: i,
            x: bx[i],
            y,
            width: bw[i],
        });
        out.prims.push(Prim {
            x: bx[i],
            y,
            text: text[i].clone(),
            role,
        });
        if let Some(t) = &note[i] {
            out.prims.push(Prim {
                x: bx[i] + bw[i] + 1,
                y,
                text: t.clone(),
                role: CellRole::Binding,
            });
        }
        let pc = centre(&bx, i);
        if node.children.is_empty() {
            if node.hidden > 0 {
                out.prims.push(Prim {
                    x: pc,
                    y: y + 1,
                    text: "┆".into(),
                    role: CellRole::Edge,
                });
            }
            continue;
        }
        let cols: Vec<i32> = node.children.iter().map(|&c| centre(&bx, c)).collect();
        let lo = cols.iter().copied().chain([pc]).min().unwrap_or(pc);
        let hi = cols.iter().copied().chain([pc]).max().unwrap_or(pc);
        let bar: String = (lo..=hi).map(|x| joint(x == pc, cols.contains(&x), x > lo, x < hi)).collect();
        out.prims.push(Prim {
            x: lo,
            y: y + 1,
            text: bar,
            role: CellRole::Edge,
        });
        for (&c, &x) in node.children.iter().zip(&cols) {
            out.prims.push(Prim {
                x,
                y: y + 2,
                text: "│".into(),
                role: CellRole::Edge,
            });
            drops.push((y + 2, x, edge_text[c]));
        }
    }
    // Edge texts after their drop, where they fit before the next drop.
    drops.sort_by_key(|&(y, x, _)| (y, x));
    for (k, &(y, x, t)) in drops.iter().enumerate() {
        let next = match drops.get(k + 1) {
            Some(&(y2, x2, _)) if y2 == y => x2 - 1,
            _ => out.width,
        };
        if !t.is_empty() && x + 2 + cells(t) <= next {
            out.prims.push(Prim {
                x: x + 2,
                y,
                text: fit(t, usize::MAX),
                role: CellRole::EdgeLabel,
            });
        }
    }
    out.height = out.prims.iter().map(|p| p.y + 1).max().unwrap_or(0);
    out.width = out.prims.iter().map(|p| p.x + p.width()).max().unwrap_or(0).max(out.width);
    out
}
