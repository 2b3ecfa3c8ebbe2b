//! A window of the term around one body: what a view shows of a state too
//! large to print whole.
//!
//! The window's root is a body a few bodies above the focus; the path from
//! it down to the focus is shown, and so is every part off that path (a
//! body, tuple, record or map) small enough to fit in what is left of the
//! window's room; bigger parts are elided, a body as `…` under its own
//! staging expression, a value as `…`. Building one costs the window's size and the focus's depth,
//! whatever the term's size, so a debugger step on a big state stays fast.
//! The bodies' states come from the machine ([`Machine::body_state`]),
//! not from the window's own term, whose variables bound outside it are
//! free there.

use rustc_hash::FxHashSet;

use super::export::{ExportNames, Prune};
use super::node::{GVar, Kind, NodeId, Readiness};
use super::Machine;
use crate::term::{Program, VarId};

/// How much of the term a window shows.
#[derive(Clone, Copy, Debug)]
pub struct WindowSize {
    /// Bodies above the focus up to the window's root (0: the focus is
    /// the root).
    pub up: usize,
    /// The most nodes (written out) a part off the path may have to be
    /// shown.
    pub cap: u64,
    /// The most nodes shown off the path in all.
    pub room: u64,
}

impl Default for WindowSize {
    fn default() -> WindowSize {
        WindowSize {
            up: 6,
            cap: 400,
            room: 4000,
        }
    }
}

/// What a body is now, as the machine keeps it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyState {
    /// Its staging expression is false.
    Inactive,
    /// Active, waiting for this symbolic variable.
    Stuck(GVar),
    /// Active and not stuck; `ready` when no pending body is nested in it.
    Pending {
        /// Nothing pending is nested in it.
        ready: bool,
    },
}

/// The bodies of the graph by state (a shared value's counted once).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BodyCounts {
    /// Pending with nothing pending nested.
    pub ready: usize,
    /// Pending with something pending nested.
    pub pending: usize,
    /// Active but waiting on a symbolic variable.
    pub stuck: usize,
    /// Staged on an expression that is false.
    pub inactive: usize,
}

/// A window of the term ([`Machine::window`]).
pub struct Window {
    /// The window's root body as a term, over its variables (the elided
    /// parts print as the free variable `…`).
    pub program: Program,
    /// The machine's body for each body of the window, in the order in
    /// which the lambda graph of `program` numbers them (an elided body's
    /// placeholder stands for the body it elides).
    pub bodies: Vec<NodeId>,
    /// The state of each of `bodies`, with the term variable a stuck one
    /// waits for.
    pub states: Vec<(BodyState, Option<VarId>)>,
    /// Bodies around the window's root, not shown.
    pub enclosing: usize,
    /// The parts elided inside the window (bodies and values), in reading
    /// order.
    pub elided: Vec<NodeId>,
}

impl Machine {
    /// What the body `n` is now (`None`: `n` is no body).
    pub fn body_state(&self, n: NodeId) -> Option<BodyState> {
        let b = self.g.body(n)?;
        Some(match b.status {
            Readiness::Inactive => BodyState::Inactive,
            Readiness::Stuck(v) => BodyState::Stuck(v),
            Readiness::Pending => BodyState::Pending {
                ready: self.g.tour.marks_in(n) <= 1,
            },
        })
    }

    /// The bodies of the graph by state, in one pass over the arena.
    pub fn body_counts(&self) -> BodyCounts {
        let mut c = BodyCounts::default();
        for (i, node) in self.g.nodes.iter().enumerate() {
            let Kind::Body(b) = &node.kind else { continue };
            match b.status {
                Readiness::Inactive => c.inactive += 1,
                Readiness::Stuck(_) => c.stuck += 1,
                Readiness::Pending => {
                    let n = NodeId(i as u32);
                    if self.g.tour.marks_in(n) <= 1 {
                        c.ready += 1;
                    } else {
                        c.pending += 1;
                    }
                }
            }
        }
        c
    }

    /// The first `k` pending bodies in the order they run (post-order) and
    /// how many are pending in all.
    pub fn pending_in_order(&self, k: usize) -> (Vec<NodeId>, usize) {
        let total = self.g.tour.marks_in_tree(self.root) as usize;
        let first = (0..k.min(total) as u32)
            .filter_map(|i| self.g.tour.nth_marked(self.root, i))
            .collect();
        (first, total)
    }

    /// Whether `n` lies in the main term (not in a shared or detached
    /// value).
    fn in_main_term(&self, n: NodeId) -> bool {
        let mut x = n;
        loop {
            let p = self.g.nodes[x.ix()].parent;
            if p == NodeId::NONE {
                return x == self.root;
            }
            x = p;
        }
    }

    /// The window around the body `focus` (the top-level body when `focus`
    /// is no body of the main term).
    pub fn window(&self, focus: NodeId, size: WindowSize) -> Window {
        let focus = if self.g.body(focus).is_some() && self.in_main_term(focus) {
            focus
        } else {
            self.root
        };
        // The path up to the root, and the window's root `size.up` bodies
        // above the focus.
        let mut path = vec![focus];
        let mut x = focus;
        loop {
            let p = self.g.nodes[x.ix()].parent;
            if p == NodeId::NONE {
                break;
            }
            path.push(p);
            x = p;
        }
        let mut bodies_seen = 0;
        let mut top = if size.up == 0 { 0 } else { path.len() - 1 };
        for (i, &n) in path.iter().enumerate().skip(1).take_while(|_| size.up > 0) {
            if self.g.body(n).is_some() {
                bodies_seen += 1;
                if bodies_seen == size.up {
                    top = i;
                    break;
                }
            }
        }
        let root = path[top];
        let enclosing = path[top + 1..].iter().filter(|&&n| self.g.body(n).is_some()).count();
        let on_path: FxHashSet<NodeId> = path[..=top].iter().copied().collect();
        let mut prune = Prune {
            path: &on_path,
            cap: size.cap,
            room: size.room,
            elided: Vec::new(),
            bodies: Vec::new(),
            inside: 0,
            dots: None,
        };
        let mut names = ExportNames::printing(&self.source);
        let body = match self.export_pruned(root, &mut names, false, Some(&mut prune)) {
            super::export::Piece::Body(b) => *b,
            _ => super::empty_body(),
        };
        let Prune { elided, bodies, .. } = prune;
        let states = bodies
            .iter()
            .map(|&n| {
                let s = self.body_state(n).unwrap_or(BodyState::Inactive);
                let var = match s {
                    BodyState::Stuck(v) => Some(names.get(self, v)),
                    _ => None,
                };
                (s, var)
            })
            .collect();
        Window {
            program: Program {
                body,
                vars: names.vars.unwrap_or_default(),
            },
            bodies,
            states,
            enclosing,
            elided,
        }
    }
}
