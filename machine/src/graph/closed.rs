//! Closed code, shared rather than copied.
//!
//! A lambda that mentions no variable bound outside it (a *closed* one: the
//! builders' code fragments, such as the `F` that `add` builds, or a library
//! function inlined into a loop's body) means the same wherever it is
//! copied to: a copy would only rename its own binders. So when
//! [`Machine::copy`] meets a big closed lambda (with nothing pending in it)
//! inside the region it copies, it makes that lambda a shared value of its
//! own (`Machine::hoist`): the source gets a [`Kind::Share`] holder in its
//! place, and so does the copy. The copy is made later, by `own`, if and
//! when a holder is applied; nothing else reads the difference (the views
//! and the printer see through holders, and readiness does too), so results
//! and step counts are unchanged, while the builders' chain of fragments
//! holds one node per fragment until it runs instead of the fragment.
//!
//! Whether a subtree is closed is memoized on its nodes ([`Node::closed`],
//! with its invariant); `Machine::classify` computes it for a subtree and
//! for every subtree in it in one iterative walk, so a template copied at
//! every call is walked once.
//!
//! [`Node::closed`]: super::node::Node::closed

use rustc_hash::FxHashSet;

use super::node::{Closed, GVar, Kind, NodeCmd, NodeId, Readiness};
use super::Machine;
use crate::term::{any_stage_var, stage_vars};

/// Closed lambdas of fewer nodes than this are copied as before: a shared
/// value costs a table entry and a holder set, which a handful of nodes do
/// not repay.
pub(crate) const HOIST_MIN: u32 = 12;

/// The binders a walk set a depth for ([`super::node::VarSlot::depth`]:
/// the number of binding nodes from the walk's root down to and including
/// the one that binds it; 0, a variable bound outside the walk), to reset
/// when it ends.
#[derive(Clone, Default)]
pub(crate) struct Depths(Vec<GVar>);

/// A step of the classifying walk.
enum Visit {
    /// Look at this node and push its children.
    Enter(NodeId),
    /// Everything below this node is seen: conclude it. `depth` is the depth
    /// above it, `min` and `size` those of the subtree being summed around
    /// it, saved while its own are summed.
    Exit { n: NodeId, depth: u32, min: u32, size: u32 },
}

impl Machine {
    /// Whether the subtree at `n` is closed, classifying it (and every
    /// subtree in it) if it is not known yet.
    pub(crate) fn closed(&mut self, n: NodeId) -> Closed {
        match self.g.nodes[n.ix()].closed {
            Closed::Unknown => self.classify(n),
            c => c,
        }
    }

    /// Classifies the subtree at `root`: one iterative walk that sums, for
    /// every subtree, its size and the least depth of a binder its
    /// variables refer to. A subtree entered at depth `d` is closed exactly
    /// when that least depth is above `d` (every variable it mentions is
    /// bound inside it). Shared values held in it are walked in place, once:
    /// what they mention is mentioned at every holder. The result is
    /// memoized on the values in the subtree (lambdas, recursive values,
    /// tuples, records, maps and shared values); other nodes change kind in
    /// place (a bound occurrence) or are not asked about.
    pub(crate) fn classify(&mut self, root: NodeId) -> Closed {
        self.classify_with(root, false, u64::MAX).0.unwrap_or(Closed::Unknown)
    }

    /// Like [`Machine::classify`], but walking the shared values in it
    /// whose memo says open as if not known (a [`Closed::No`] grows stale
    /// when an outer variable is bound: a list built by a loop is open
    /// while its cells are made, from the loop's parameters, and closed
    /// once they are bound). Every subtree found closed is memoized so.
    /// Such walks are paid for by steps: all of them visit at most as many
    /// nodes as the machine has executed steps (and 4096 more), so a big
    /// value that stays open (the builders' fragments, met at every fast
    /// run tried) costs a bounded share of the run. A walk out of credit
    /// stops and concludes nothing (`Unknown`) about `root`.
    pub(crate) fn reclassify(&mut self, root: NodeId) -> Closed {
        let credit = (self.counts.total() + 4096).saturating_sub(self.fast_policy.reclassify_spent);
        let (c, visited) = self.classify_with(root, true, credit);
        self.fast_policy.reclassify_spent += visited;
        c.unwrap_or(Closed::Unknown)
    }

    /// The walk of [`Machine::classify`] (`fresh`: of
    /// [`Machine::reclassify`]), visiting at most `budget` nodes: the
    /// class (`None` if out of budget) and the nodes visited.
    fn classify_with(&mut self, root: NodeId, fresh: bool, budget: u64) -> (Option<Closed>, u64) {
        let Depths(mut binders) = std::mem::take(&mut self.scratch.closed);
        debug_assert!(binders.is_empty(), "depths left by the last walk");
        let mut stack = vec![Visit::Enter(root)];
        // The depth of the binding nodes above the node entered, and the
        // least binder depth and the size of the subtree being summed.
        let (mut depth, mut min, mut size) = (0u32, u32::MAX, 0u32);
        let mut result = Some(Closed::Unknown);
        let mut visited = 0u64;
        while let Some(visit) = stack.pop() {
            match visit {
                Visit::Enter(n) => {
                    if visited >= budget {
                        result = None;
                        break;
                    }
                    visited += 1;
                    if let Kind::Share(t) = *self.g.kind(n) {
                        size = size.saturating_add(1);
                        match self.g.nodes[t.ix()].closed {
                            Closed::Small | Closed::Big => continue,
                            // Open: what it mentions is not known here, so
                            // take it as free outside the walk.
                            Closed::No if !fresh => {
                                min = 0;
                                continue;
                            }
                            Closed::No | Closed::Unknown => {
                                stack.push(Visit::Enter(t));
                                continue;
                            }
                        }
                    }
                    stack.push(Visit::Exit { n, depth, min, size });
                    min = u32::MAX;
                    size = 1;
                    // A binding node is one level deeper than its parent.
                    let deeper = depth + 1;
                    let seen = binders.len();
                    self.g.kind(n).for_binders(|v| binders.push(v));
                    for &v in &binders[seen..] {
                        self.g.var_mut(v).depth = deeper;
                    }
                    if binders.len() > seen {
                        depth = deeper;
                    }
                    let g = &self.g;
                    match g.kind(n) {
                        Kind::Ref(v) => min = min.min(g.var(*v).depth),
                        Kind::Body(b) => {
                            any_stage_var(&b.stage, |v| {
                                min = min.min(g.var(v).depth);
                                false
                            });
                            if let Readiness::Stuck(v) = b.status {
                                min = min.min(g.var(v).depth);
                            }
                        }
                        _ => {}
                    }
                    let at = stack.len();
                    self.g.for_children(n, |c| stack.push(Visit::Enter(c)));
                    stack[at..].reverse();
                }
                Visit::Exit {
                    n,
                    depth: above,
                    min: outer_min,
                    size: outer_size,
                } => {
                    let c = if min > above {
                        if size >= HOIST_MIN {
                            Closed::Big
                        } else {
                            Closed::Small
                        }
                    } else {
                        Closed::No
                    };
                    let shared_root = self.g.nodes[n.ix()].parent == NodeId::NONE && self.shared.contains_key(&n);
                    if shared_root
                        || matches!(
                            self.g.kind(n),
                            Kind::Lambda(_) | Kind::Rec { .. } | Kind::Tuple(_) | Kind::Record(_) | Kind::Map(_)
                        )
                    {
                        self.g.nodes[n.ix()].closed = c;
                    }
                    if n == root {
                        result = Some(c);
                    }
                    depth = above;
                    min = min.min(outer_min);
                    size = size.saturating_add(outer_size);
                }
            }
        }
        for v in binders.drain(..) {
            self.g.var_mut(v).depth = 0;
        }
        self.scratch.closed = Depths(binders);
        (result, visited)
    }

    /// Whether `n`, met inside a region being copied, is a lambda worth
    /// making a shared value of its own: closed, big, with nothing pending
    /// in it, and standing where a holder may stand (an argument or head of
    /// an application, an element of a tuple, record or map; not the lambda
    /// of a `fix` or a recursive value, nor inside an expression or splice).
    #[inline]
    pub(crate) fn hoistable(&mut self, n: NodeId) -> bool {
        // The common answer first, from the node alone: not a lambda, or a
        // lambda known to be open or small (a loop's body, at every call).
        let node = &self.g.nodes[n.ix()];
        matches!(node.kind, Kind::Lambda(_)) && matches!(node.closed, Closed::Unknown | Closed::Big) && self.hoistable_at(n)
    }

    /// The rest of [`Machine::hoistable`], for a lambda not known to be
    /// open or small.
    fn hoistable_at(&mut self, n: NodeId) -> bool {
        let p = self.g.nodes[n.ix()].parent;
        if p == NodeId::NONE {
            return false;
        }
        let place = match self.g.kind(p) {
            Kind::Body(b) => matches!(b.cmd, NodeCmd::App { .. }),
            Kind::Tuple(_) | Kind::Record(_) | Kind::Map(_) => true,
            _ => false,
        };
        place && self.closed(n) == Closed::Big && self.g.tour.marks_in(n) == 0
    }

    /// Makes the lambda `n` (see [`Machine::hoistable`]) a shared value: a
    /// holder takes its place in its parent, and it is detached. Returns
    /// the holder.
    pub(crate) fn hoist(&mut self, n: NodeId) -> NodeId {
        debug_assert!(self.g.nodes[n.ix()].closed.is_closed());
        let p = self.g.nodes[n.ix()].parent;
        let h = self.hold_in_place(p, n);
        self.g.nodes[n.ix()].hoisted = true;
        h
    }

    /// Whether the subtree at `n` mentions a variable bound outside it
    /// (shared values held in it included): the definition the memo
    /// [`Closed`] stands for, walked afresh, for `check`.
    pub(crate) fn mentions_outer(&self, n: NodeId) -> bool {
        let (bound, used) = self.subtree_vars(n);
        used.iter().any(|v| !bound.contains(v))
    }

    /// The variables the subtree at `u` binds, and those it mentions
    /// (occurrences and staging expressions, in walk order, repeats
    /// included); shared values held in it are walked once each.
    pub(crate) fn subtree_vars(&self, u: NodeId) -> (FxHashSet<GVar>, Vec<GVar>) {
        let mut binders: FxHashSet<GVar> = FxHashSet::default();
        let mut used: Vec<GVar> = Vec::new();
        let mut stack = vec![u];
        let mut seen_shared: FxHashSet<NodeId> = FxHashSet::default();
        while let Some(n) = stack.pop() {
            match self.g.kind(n) {
                Kind::Share(t) => {
                    if seen_shared.insert(*t) {
                        stack.push(*t);
                    }
                    continue;
                }
                Kind::Ref(v) => used.push(*v),
                Kind::Body(b) => stage_vars(&b.stage, &mut used),
                _ => {}
            }
            self.g.kind(n).for_binders(|v| {
                binders.insert(v);
            });
            self.g.for_children(n, |c| stack.push(c));
        }
        (binders, used)
    }
}
