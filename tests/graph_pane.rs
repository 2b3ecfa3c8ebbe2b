//! The debugger's graph pane (`deepcps::debug::graph`): neighbourhoods of
//! the focus in the lambda graph of `arith_built` (at step 0 and step 20),
//! their layout (no overlaps, every edge drawn between its nodes, zoom
//! levels), the widget on a test terminal (focus style, panning, tiny
//! areas), the caps, a deep chain, and one snapshot of what users see.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use deepcps::debug::graph::{
    centre_on_focus, layout, neighbourhood, CellRole, GraphPane, GraphView, Layout, Link, Neighbourhood, NodeIndex, Shown, Zoom, BAND,
    MAX_CHILDREN, MAX_NODES, RADIUS_MAX, RADIUS_MIN,
};
use deepcps::debug::style::{Colours, Palette};
use deepcps::views::{state_after, State};
use deepcps_machine::syntax::{load_program, RealFs};
use deepcps_machine::view::LambdaGraph;
use deepcps_machine::{span::SourceMap, term::Program};
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::widgets::Widget;
use ratatui::Terminal;

const ARITH: &str = "corpus/paper/arith_built.dcps";
const PALETTE: Palette = Palette { colours: Colours::Indexed };

fn arith() -> Program {
    let mut sources = SourceMap::new();
    match load_program(&RealFs, std::path::Path::new(ARITH), &mut sources) {
        Ok(p) => p,
        Err(_) => panic!("{ARITH} does not load"),
    }
}

/// The lambda graph of `arith_built` after `steps` steps.
fn graph_after(steps: u64) -> LambdaGraph {
    let (state, vars, note) = state_after(arith(), steps, u64::MAX).expect("within the limits");
    assert_eq!(note, None, "the run goes on past step {steps}");
    match state {
        State::Term(body) => LambdaGraph::build(&body, &vars),
        State::Exit(_) => panic!("the run goes on past step {steps}"),
    }
}

/// The graph at step 0 and at step 20, each with its first ready body.
fn cases() -> Vec<(u64, LambdaGraph, NodeIndex)> {
    [0, 20]
        .into_iter()
        .map(|steps| {
            let lg = graph_after(steps);
            let focus = *lg.bodies_with_status("ready").first().expect("a ready body");
            (steps, lg, focus)
        })
        .collect()
}

/// The buffer's cells as lines of symbols, trailing blanks trimmed.
fn text(buf: &Buffer) -> String {
    let w = usize::from(buf.area.width).max(1);
    let mut out = String::new();
    for row in buf.content.chunks(w) {
        let line: String = row.iter().map(|c| c.symbol()).collect();
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// Draws `layout` at `pan` on a `w`×`h` test terminal.
fn draw(layout: &Layout, pan: (i32, i32), w: u16, h: u16) -> Buffer {
    let mut terminal = Terminal::new(TestBackend::new(w, h)).expect("a test terminal");
    terminal
        .draw(|f| f.render_widget(GraphView::new(layout, PALETTE, pan), f.area()))
        .expect("draws");
    terminal.backend().buffer().clone()
}

/// Every cell the layout writes, with its character; panics when two
/// primitives write the same cell.
fn cell_map(l: &Layout) -> HashMap<(i32, i32), char> {
    let mut cells = HashMap::new();
    for p in &l.prims {
        for (i, ch) in p.text.chars().enumerate() {
            let at = (p.x + i as i32, p.y);
            assert!(
                cells.insert(at, ch).is_none(),
                "two primitives write the cell {at:?} ({:?})",
                p.text
            );
        }
    }
    cells
}

#[test]
fn the_focus_is_drawn_in_the_focus_style() {
    for (steps, lg, focus) in cases() {
        let pane = GraphPane::new();
        let l = pane.layout_for(&lg, focus);
        let f = l.focus.expect("the focus is laid out");
        let b = l.boxes[f];
        let label = l
            .prims
            .iter()
            .find(|p| p.role == CellRole::Focus)
            .expect("a focus primitive")
            .text
            .clone();
        assert!(label.starts_with('[') && label.ends_with(']'), "{label}");
        let area = Rect::new(0, 0, 80, 20);
        let pan = centre_on_focus(&l, area);
        let buf = draw(&l, pan, 80, 20);
        let screen = text(&buf);
        let (x, y) = ((b.x - pan.0) as u16, (b.y - pan.1) as u16);
        assert_eq!((x + b.width as u16 / 2, y), (40, 10), "step {steps}: the focus is centred");
        let line = screen.lines().nth(usize::from(y)).expect("the focus row");
        assert!(line.contains(&label), "step {steps}: {label} in {line:?}");
        for dx in 0..b.width as u16 {
            let cell = &buf[(x + dx, y)];
            assert!(
                cell.modifier.contains(Modifier::REVERSED),
                "step {steps}: focus cell {dx} is reversed"
            );
        }
        // Other nodes are not drawn in the focus style.
        let other = l.boxes.iter().find(|o| o.node != f).expect("more nodes");
        let (ox, oy) = (other.x - pan.0, other.y - pan.1);
        if (0..80).contains(&ox) && (0..20).contains(&oy) {
            assert!(!buf[(ox as u16, oy as u16)].modifier.contains(Modifier::REVERSED));
        }
    }
}

#[test]
fn a_larger_radius_shows_more_nodes_and_keeps_the_focus_ancestors() {
    for (steps, lg, focus) in cases() {
        let sizes: Vec<usize> = (1..=4).map(|r| neighbourhood(&lg, focus, r).nodes.len()).collect();
        assert!(sizes[0] < sizes[2], "step {steps}: radius 1 {} vs radius 3 {}", sizes[0], sizes[2]);
        assert!(sizes.windows(2).all(|w| w[0] <= w[1]), "step {steps}: {sizes:?}");
        for r in 1..=4 {
            let n = neighbourhood(&lg, focus, r);
            let f = n.focus.expect("focus");
            assert!(n.nodes[f].focus && n.nodes[f].index == Some(focus));
            assert_eq!(n.nodes.iter().filter(|x| x.focus).count(), 1);
            // Layers: the root is 0, children one below their parent; the
            // focus sits at most `r` below the root.
            assert_eq!(n.nodes[0].layer, 0);
            assert!(n.nodes[f].layer <= r);
            for (i, node) in n.nodes.iter().enumerate() {
                for &c in &node.children {
                    assert_eq!(n.nodes[c].layer, node.layer + 1);
                    assert_eq!(n.nodes[c].parent, Some(i));
                }
                // Every real node is within `r` tree edges of the focus.
                if node.index.is_some() {
                    assert!(tree_distance(&n, i, f) <= r, "step {steps} radius {r}: {}", node.label);
                }
                assert_eq!(node.status.is_some(), node.kind == Shown::Body);
            }
        }
    }
}

/// Tree edges between two nodes of a neighbourhood.
fn tree_distance(n: &Neighbourhood, a: usize, b: usize) -> usize {
    let up = |mut x: usize| {
        let mut path = vec![x];
        while let Some(p) = n.nodes[x].parent {
            path.push(p);
            x = p;
        }
        path
    };
    let (pa, pb) = (up(a), up(b));
    let common = pa.iter().position(|x| pb.contains(x)).expect("one tree");
    common + pb.iter().position(|x| *x == pa[common]).expect("common")
}

#[test]
fn bindings_link_lambdas_to_the_variables_they_bind() {
    let (_, lg, focus) = cases().remove(0);
    let n = neighbourhood(&lg, focus, 4);
    let binds: Vec<_> = n.edges.iter().filter(|e| e.link == Link::Binds).collect();
    assert!(!binds.is_empty(), "radius 4 around the ready body shows a binding");
    for e in &binds {
        assert!(
            matches!(n.nodes[e.from].kind, Shown::Lambda | Shown::Body),
            "{}",
            n.nodes[e.from].label
        );
        assert!(matches!(n.nodes[e.to].kind, Shown::Var | Shown::Expr), "{}", n.nodes[e.to].label);
        // A binder encloses what it binds.
        let mut x = e.to;
        while x != e.from {
            x = n.nodes[x].parent.expect("the binder is an ancestor");
        }
    }
    // Tree edges carry the lambda graph's edge texts.
    let texts: Vec<&str> = n.edges.iter().filter(|e| e.link == Link::Tree).map(|e| e.label.as_str()).collect();
    assert!(texts.contains(&"head") && texts.contains(&"arg 1"), "{texts:?}");
    let l = layout(&n, Zoom::Wide);
    assert!(l.prims.iter().any(|p| p.role == CellRole::Binding && p.text.starts_with('⇠')));
}

#[test]
fn boxes_do_not_overlap_and_edges_join_parent_and_child() {
    for (steps, lg, focus) in cases() {
        for r in 1..=5 {
            let n = neighbourhood(&lg, focus, r);
            for zoom in [Zoom::Compact, Zoom::Normal, Zoom::Wide] {
                let l = layout(&n, zoom);
                let at = format!("step {steps} radius {r} {zoom:?}");
                assert_eq!(l.boxes.len(), n.nodes.len());
                for (i, a) in l.boxes.iter().enumerate() {
                    assert!(a.x >= 0 && a.x + a.width <= l.width && a.y < l.height, "{at}: box {i} inside");
                    for b in &l.boxes[i + 1..] {
                        let apart = a.y != b.y || a.x + a.width <= b.x || b.x + b.width <= a.x;
                        assert!(apart, "{at}: boxes {a:?} and {b:?} overlap");
                    }
                }
                // No two primitives share a cell (panics otherwise).
                let cells = cell_map(&l);
                for e in n.edges.iter().filter(|e| e.link == Link::Tree) {
                    let (p, c) = (l.boxes[e.from], l.boxes[e.to]);
                    assert_eq!(c.y, p.y + BAND, "{at}: the child is one band down");
                    let (px, cx, y) = (p.centre(), c.centre(), p.y);
                    assert_eq!(cells.get(&(cx, y + 2)), Some(&'│'), "{at}: drop onto {}", n.nodes[e.to].label);
                    for x in px.min(cx)..=px.max(cx) {
                        let ch = cells.get(&(x, y + 1)).copied().unwrap_or(' ');
                        assert!("─┌┐┬┴┼├┤└┘│".contains(ch), "{at}: bar cell {x} is {ch:?}");
                    }
                    // The bar turns down at the child and up at the parent.
                    let bar = |x| cells.get(&(x, y + 1)).copied().unwrap_or(' ');
                    assert!("┌┐┬┼├┤│".contains(bar(cx)), "{at}: {:?} at the child", bar(cx));
                    assert!("┴┼├┤┘└│".contains(bar(px)), "{at}: {:?} at the parent", bar(px));
                }
            }
        }
    }
}

#[test]
fn zoom_levels_change_label_widths() {
    let (_, lg, focus) = cases().remove(1);
    let n = neighbourhood(&lg, focus, 3);
    let widest = |z: Zoom| layout(&n, z).boxes.iter().map(|b| b.width).max().unwrap_or(0);
    let (c, m, w) = (widest(Zoom::Compact), widest(Zoom::Normal), widest(Zoom::Wide));
    assert_eq!(c, 8 + 2, "compact labels are clipped to 8 cells");
    assert_eq!(m, 18 + 2, "normal labels are clipped to 18 cells");
    assert!(w > m && w <= 36 + 2, "wide labels are longer: {w}");
    assert!(layout(&n, Zoom::Compact).width < layout(&n, Zoom::Wide).width);
    let mut pane = GraphPane::new();
    assert_eq!(pane.zoom, Zoom::Normal);
    pane.zoom_in();
    pane.zoom_in();
    assert_eq!(pane.zoom, Zoom::Wide);
    pane.zoom_out();
    pane.zoom_out();
    pane.zoom_out();
    assert_eq!(pane.zoom, Zoom::Compact);
}

#[test]
fn panning_shifts_the_content() {
    let (_, lg, focus) = cases().remove(1);
    let l = GraphPane::new().layout_for(&lg, focus);
    let base = draw(&l, (0, 0), 60, 16);
    let moved = draw(&l, (3, 2), 60, 16);
    assert_ne!(text(&base), text(&moved));
    for y in 0..14u16 {
        for x in 0..57u16 {
            assert_eq!(moved[(x, y)], base[(x + 3, y + 2)], "cell ({x}, {y})");
        }
    }
    // Panning left of the content leaves the first columns blank.
    let left = draw(&l, (-5, 0), 60, 16);
    for y in 0..16u16 {
        for x in 0..5u16 {
            assert_eq!(left[(x, y)].symbol(), " ");
        }
        for x in 5..60u16 {
            assert_eq!(left[(x, y)], base[(x - 5, y)]);
        }
    }
    let mut pane = GraphPane::new();
    assert!(pane.follow);
    pane.pan_by(4, -2);
    assert_eq!((pane.pan, pane.follow), ((4, -2), false));
    assert_eq!(pane.pan_for(&l, Rect::new(0, 0, 60, 16)), (4, -2));
    pane.recentre();
    assert_eq!(
        pane.pan_for(&l, Rect::new(0, 0, 60, 16)),
        centre_on_focus(&l, Rect::new(0, 0, 60, 16))
    );
}

#[test]
fn tiny_areas_and_any_pan_do_not_panic() {
    let (_, lg, focus) = cases().remove(0);
    let l = GraphPane::new().layout_for(&lg, focus);
    let pans = [
        (0, 0),
        (1, 1),
        (-1, -1),
        (i32::MIN, i32::MIN),
        (i32::MAX, i32::MAX),
        (i32::MIN, i32::MAX),
        (l.width, l.height),
    ];
    for (w, h) in [(0, 0), (1, 1), (3, 2), (1, 40), (200, 1)] {
        for pan in pans {
            let mut buf = Buffer::empty(Rect::new(0, 0, w, h));
            GraphView::new(&l, PALETTE, pan).render(Rect::new(0, 0, w, h), &mut buf);
            // An area larger than the buffer, or off it, is clipped too.
            GraphView::new(&l, PALETTE, pan).render(Rect::new(2, 2, w + 5, h + 5), &mut buf);
            let _ = centre_on_focus(&l, Rect::new(0, 0, w, h));
        }
    }
    let buf = draw(&l, centre_on_focus(&l, Rect::new(0, 0, 1, 1)), 1, 1);
    let focus = l.prims.iter().find(|p| p.role == CellRole::Focus).expect("the focus");
    let middle = focus
        .text
        .chars()
        .nth(focus.text.chars().count() / 2)
        .expect("a middle")
        .to_string();
    assert_eq!(buf[(0, 0)].symbol(), middle, "a 1×1 pane shows the middle of the focus");
    // A focus that is not a node gives an empty neighbourhood, drawn as nothing.
    let none = neighbourhood(&lg, NodeIndex::new(usize::MAX / 2), 3);
    assert!(none.nodes.is_empty() && none.focus.is_none());
    let empty = layout(&none, Zoom::Normal);
    assert_eq!((empty.width, empty.height), (0, 0));
    assert_eq!(text(&draw(&empty, (0, 0), 4, 2)), "\n\n");
}

#[test]
fn the_radius_stays_between_its_bounds() {
    let mut pane = GraphPane::new();
    assert_eq!(pane.radius, 2);
    for _ in 0..20 {
        pane.radius_up();
    }
    assert_eq!(pane.radius, RADIUS_MAX);
    for _ in 0..20 {
        pane.radius_down();
    }
    assert_eq!(pane.radius, RADIUS_MIN);
}

#[test]
fn many_children_are_capped() {
    let items: Vec<String> = (1..=500).map(|i| i.to_string()).collect();
    let program = deepcps_tests::load_source(&format!("$exit [{}]\n", items.join(", "))).expect("loads");
    let lg = LambdaGraph::build(&program.body, &program.vars);
    let root = lg.graph.node_indices().next().expect("a root");
    let n = neighbourhood(&lg, root, 3);
    assert!(n.nodes.len() <= MAX_NODES);
    let tuple = n.nodes.iter().find(|x| x.kind == Shown::Tuple).expect("the tuple");
    assert_eq!(tuple.children.len(), MAX_CHILDREN);
    let more = &n.nodes[*tuple.children.last().expect("children")];
    assert_eq!((more.kind, more.label.as_str()), (Shown::More, "… 489 more"));
    assert_eq!(tuple.hidden, 500 - (MAX_CHILDREN - 1));
    let l = layout(&n, Zoom::Compact);
    assert!(l.prims.iter().any(|p| p.role == CellRole::More && p.text == "[… 489 m…]"));
}

#[test]
fn a_deep_chain_gives_a_neighbourhood_quickly() {
    const DEEP: usize = 100_000;
    let mut s = String::with_capacity(DEEP * 24);
    s.push_str("\"1\" (x0)\n");
    for i in 1..DEEP {
        s.push_str(&format!("\"x{}+1\" (x{i})\n", i - 1));
    }
    s.push_str(&format!("$exit x{}\n", DEEP - 1));
    let program = deepcps_tests::load_source(&s).expect("loads");
    let lg = LambdaGraph::build(&program.body, &program.vars);
    let top = lg.graph.node_indices().next().expect("a root");
    let bottom = lg.graph.node_indices().next_back().expect("a last node");
    let middle = lg.bodies_with_status("inactive")[DEEP / 2];
    let start = Instant::now();
    for focus in [top, middle, bottom] {
        for r in [1, 4, RADIUS_MAX] {
            let n = neighbourhood(&lg, focus, r);
            assert!(n.nodes.len() <= MAX_NODES);
            let depth = n.nodes.iter().map(|x| x.layer).max().unwrap_or(0);
            assert!(depth <= 2 * r, "layers {depth} at radius {r}");
            let l = layout(&n, Zoom::Normal);
            let _ = draw(&l, centre_on_focus(&l, Rect::new(0, 0, 80, 20)), 80, 20);
        }
    }
    // Any radius: the ancestors shown are capped, and so are the nodes.
    let n = neighbourhood(&lg, bottom, usize::MAX);
    assert!(n.nodes.len() <= MAX_NODES && n.focus.is_some());
    let took = start.elapsed();
    eprintln!("10 neighbourhoods of a 10^5-deep chain: {took:?}");
    assert!(
        took < Duration::from_millis(500),
        "10 neighbourhoods of a 10^5-deep chain took {took:?}"
    );
}

#[test]
fn snapshot_of_the_pane_at_step_20() {
    let (_, lg, focus) = cases().remove(1);
    let mut pane = GraphPane::new();
    let l = pane.layout_for(&lg, focus);
    let area = Rect::new(0, 0, 100, 24);
    let pan = pane.pan_for(&l, area);
    let buf = draw(&l, pan, 100, 24);
    // The styles do not show in text: name the cells drawn reversed.
    let reversed: String = buf
        .content
        .iter()
        .filter(|c| c.modifier.contains(Modifier::REVERSED))
        .map(|c| c.symbol())
        .collect();
    assert!(!reversed.is_empty());
    insta::assert_snapshot!(
        "graph_pane_arith_built_20",
        format!("{}reversed (the focus): {reversed}\n", text(&buf))
    );
}
