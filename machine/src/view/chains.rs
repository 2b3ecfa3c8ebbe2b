//! Staging chains (the paper's § "Staging Chain"): a staging variable `s1`
//! stages code that ends with a continuation defining `s2`, which stages
//! the next piece, and so on. The builders of the paper run two such chains,
//! the core-time `ct` chain and the program-time `pt` chain.
//!
//! A chain is read off the [`StagingGraph`] from a node nothing leads to (a
//! staging variable bound outside the term's staging, or a body that already
//! runs and hands a staging parameter on), following its edges depth-first
//! in numbering order. The text shows one node per line: a linear stretch
//! keeps its indentation, a fork draws a tree. A node reached again (from an
//! earlier chain or a join) is shown once and then marked `(see above)`.
//! Forks nested deeper than [`MAX_FORKS`] are not indented further: their
//! branches say their depth (`├─[25] `), so the text stays linear in the
//! graph (the builders' chains fork at every number: drawn in full, their
//! text at 20,000 numbers was 1.7 GB).

use rustc_hash::FxHashSet as HashSet;

use petgraph::graph::NodeIndex;
use petgraph::Direction;

use super::staging_graph::{SEdge, StagingGraph};
use super::Places;
use crate::span::SourceMap;

/// Most levels of forks drawn as a tree; deeper forks keep the indentation
/// of this level and number their branches' depth.
pub const MAX_FORKS: usize = 24;

/// The nodes chains start from: nothing leads to them and they lead
/// somewhere; in numbering order.
pub fn starts(sg: &StagingGraph) -> Vec<NodeIndex> {
    sg.graph
        .node_indices()
        .filter(|&n| {
            sg.graph.edges_directed(n, Direction::Incoming).next().is_none()
                && sg.graph.edges_directed(n, Direction::Outgoing).next().is_some()
        })
        .collect()
}

/// The staging chains of the graph as text, one line per node, chains
/// separated by blank lines; source places come from `sources`.
pub fn chains_text(sg: &StagingGraph, sources: &SourceMap) -> String {
    let places = Places::new(sources);
    let line = |n: NodeIndex| {
        let node = &sg.graph[n];
        let place = node.span().map(|s| format!(" at {}", places.describe(s))).unwrap_or_default();
        format!("{}{place}", node.describe(&sg.vars))
    };
    let starts = starts(sg);
    let mut out = String::new();
    if starts.is_empty() {
        out.push_str("no staging chains\n");
        return out;
    }
    let mut shown: HashSet<NodeIndex> = HashSet::default();
    for (k, &s) in starts.iter().enumerate() {
        if k > 0 {
            out.push('\n');
        }
        // (node, the edge that reached it, prefix of its line, prefix of
        // the lines below it, forks above it)
        let mut stack: Vec<(NodeIndex, Option<SEdge>, String, String, usize)> = vec![(s, None, String::new(), String::new(), 0)];
        while let Some((n, edge, lead, cont, forks)) = stack.pop() {
            out.push_str(&lead);
            if let Some(e) = edge {
                out.push_str(&format!("{e} → "));
            }
            out.push_str(&line(n));
            if !shown.insert(n) {
                out.push_str(" (see above)\n");
                continue;
            }
            out.push('\n');
            let next = sg.successors(n);
            let inner = if edge.is_none() { format!("{cont}  ") } else { cont };
            match next.as_slice() {
                [] => {}
                [(m, e)] => stack.push((*m, Some(*e), inner.clone(), inner, forks)),
                many => {
                    let last = many.len() - 1;
                    let depth = forks + 1;
                    for (i, (m, e)) in many.iter().enumerate().rev() {
                        let (here, below) = if i == last { ("└─", "   ") } else { ("├─", "│  ") };
                        let (lead, cont) = if depth <= MAX_FORKS {
                            (format!("{inner}{here} "), format!("{inner}{below}"))
                        } else {
                            // As deep as drawn: the same indentation, the
                            // depth said.
                            (format!("{inner}{here}[{depth}] "), inner.clone())
                        };
                        stack.push((*m, Some(*e), lead, cont, depth));
                    }
                }
            }
        }
    }
    out
}
