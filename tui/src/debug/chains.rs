//! The staging chains pane's rows: each chain of the staging graph as the
//! sequence of its staging variables, waiting (⊥), with the bodies staged
//! on or stuck on each, the focus (the ready body) marked; then the
//! staging variables bound so far: fired (⊤) or handed on to the next
//! variable of the chain, with the step of the last binding. A row naming a variable can be selected to set a breakpoint on
//! it.

use std::collections::HashSet;

use deepcps_machine::session::{Bound, Fired};
use deepcps_machine::view::chains::starts;
use deepcps_machine::view::staging_graph::{SEdge, SNode, StagingGraph};
use petgraph::graph::NodeIndex;

/// One row of the chains pane.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChainRow {
    /// The text (indented).
    pub text: String,
    /// The staging variable the row names, if it names one (a breakpoint
    /// can be set on it).
    pub var: Option<String>,
    /// Whether the row is the focus (the ready body).
    pub focus: bool,
    /// Whether the row is a heading.
    pub heading: bool,
}

impl ChainRow {
    fn heading(text: String) -> ChainRow {
        ChainRow {
            text,
            var: None,
            focus: false,
            heading: true,
        }
    }
}

/// The rows for the staging graph `sg` and the firings so far; `focus` is
/// the lambda-graph node of the ready body.
pub fn chain_rows(sg: &StagingGraph, fired: &[Fired], focus: Option<NodeIndex>) -> Vec<ChainRow> {
    let mut rows = Vec::new();
    let mut seen: HashSet<NodeIndex> = HashSet::new();
    for (k, s) in starts(sg).into_iter().enumerate() {
        // The staging variables of the chain in depth-first order, each with
        // the bodies it stages or blocks.
        let mut vars: Vec<String> = Vec::new();
        let mut body_rows: Vec<ChainRow> = Vec::new();
        let mut stack = vec![s];
        while let Some(n) = stack.pop() {
            if !seen.insert(n) {
                continue;
            }
            if let SNode::Var { view, .. } = &sg.graph[n] {
                vars.push(view.name.clone());
                body_rows.push(ChainRow {
                    text: format!("  {} ⊥ waiting", view.name),
                    var: (!view.anonymous).then(|| view.name.clone()),
                    focus: false,
                    heading: false,
                });
                for (m, e) in sg.successors(n) {
                    if let (SEdge::Stages | SEdge::Blocks, SNode::Body { label, status, at, .. }) = (e, &sg.graph[m]) {
                        let is_focus = Some(*at) == focus;
                        let mark = if is_focus { "▶" } else { " " };
                        body_rows.push(ChainRow {
                            text: format!("   {mark} {e}: {} ({})", label, status.name()),
                            var: None,
                            focus: is_focus,
                            heading: false,
                        });
                    }
                }
            }
            for (m, _) in sg.successors(n).into_iter().rev() {
                stack.push(m);
            }
        }
        if vars.is_empty() {
            continue;
        }
        rows.push(ChainRow::heading(format!("chain {}: {}", k + 1, vars.join(" → "))));
        rows.extend(body_rows);
    }
    if rows.is_empty() {
        rows.push(ChainRow::heading("no staging chains waiting".into()));
    }
    // Bound so far: one row per name, its last binding, and how often.
    let mut names: Vec<(&str, &Fired, usize)> = Vec::new();
    for f in fired {
        match names.iter_mut().find(|(n, _, _)| *n == f.name) {
            Some(e) => {
                e.1 = f;
                e.2 += 1;
            }
            None => names.push((&f.name, f, 1)),
        }
    }
    if !names.is_empty() {
        rows.push(ChainRow::heading("bound so far".into()));
        for (name, last, times) in names {
            let what = match &last.to {
                Bound::Value(true) => format!("{name} ⊤ fired at step {}", last.step),
                Bound::Value(false) => format!("{name} := never at step {}", last.step),
                Bound::Var(y) => format!("{name} → {y} handed on at step {}", last.step),
            };
            let times = if times > 1 { format!(" (×{times})") } else { String::new() };
            rows.push(ChainRow {
                text: format!("  {what}{times}"),
                var: Some(name.to_string()),
                focus: false,
                heading: false,
            });
        }
    }
    rows
}
