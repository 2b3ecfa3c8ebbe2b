//! Sharing values instead of copying them (MACHINE-NOTES §1): a value bound
//! to a variable with several occurrences is held by [`Kind::Share`] nodes,
//! one per occurrence, and copied only when a holder needs its own copy:
//! when it is applied (β consumes the lambda), spliced, or when a body
//! inside it becomes pending (each holder then needs the step done in its
//! own copy, as the reference does). A holder that is the last one takes
//! the value itself. So an `if` whose two branches mention a big value
//! costs nothing for the branch that is dropped.

use super::node::{Kind, NodeCmd, NodeId};
use super::Machine;
use crate::term::any_stage_var;

/// The holders of a shared value: a set with constant-time removal (a
/// library lambda such as the builders' `push` has a holder in every
/// fragment built so far, and each use takes one out).
pub(crate) type Holders = indexmap::IndexSet<NodeId, rustc_hash::FxBuildHasher>;

impl Machine {
    /// Whether a value is worth sharing rather than copying.
    pub(crate) fn shareable(&self, v: NodeId) -> bool {
        matches!(
            self.g.kind(v),
            Kind::Lambda(_) | Kind::Rec { .. } | Kind::Tuple(_) | Kind::Record(_) | Kind::Map(_) | Kind::Share(_)
        )
    }

    /// A new holder (detached) of the value `v`: `v` itself becomes a shared
    /// value unless it is a holder already, in which case the new holder
    /// shares the same value.
    pub(crate) fn share(&mut self, v: NodeId) -> NodeId {
        let target = match self.g.kind(v) {
            Kind::Share(t) => *t,
            _ => {
                if !self.shared.contains_key(&v) {
                    self.g.cut_tour(v);
                    self.share_elements(v);
                }
                self.shared.entry(v).or_default();
                v
            }
        };
        debug_assert_eq!(self.g.tour.marks_in(target), 0, "sharing a value with a pending body");
        let s = self.g.alloc(Kind::Share(target));
        self.shared.entry(target).or_default().insert(s);
        s
    }

    /// Makes the big elements of a tuple shared values of their own, so that
    /// a copy of the tuple (a splice takes it apart) copies only its spine:
    /// `for !args ..` passes a tuple holding the whole program fragment.
    fn share_elements(&mut self, t: NodeId) {
        let Kind::Tuple(xs) = self.g.kind(t) else { return };
        for x in xs.clone() {
            if self.shareable(x) && !matches!(self.g.kind(x), Kind::Share(_)) && self.g.tour.marks_in(x) == 0 {
                self.hold_in_place(t, x);
            }
        }
    }

    /// Makes the value `x`, a child of `p`, a shared value held where it
    /// stood by its only holder. Returns the holder.
    pub(crate) fn hold_in_place(&mut self, p: NodeId, x: NodeId) -> NodeId {
        let h = self.g.alloc(Kind::Share(x));
        self.shared.insert(x, std::iter::once(h).collect());
        self.g.replace_child(p, x, h);
        self.g.nodes[x.ix()].parent = NodeId::NONE;
        h
    }

    /// Makes the closed list `x`, written in place in the term, a shared
    /// value held where it stands, and so every lambda and tuple along it:
    /// its elements, the elements of the tuples among them, and so on. A fast
    /// run then reads it a cell at a time (`fast/tuples.rs`) instead of
    /// compiling it whole, which a long list does not fit. As for
    /// [`Machine::share_elements`], nothing else reads the difference.
    /// Returns whether it did: `x` is a tuple, closed, with no pending
    /// body and no expression to evaluate (those are evaluated when the
    /// body holding the tuple executes, which a holder would hide).
    pub(crate) fn share_list_in_place(&mut self, x: NodeId) -> bool {
        let p = self.g.nodes[x.ix()].parent;
        if p == NodeId::NONE
            || !matches!(self.g.kind(x), Kind::Tuple(_))
            || self.tuple_has_expr(x)
            || !self.closed(x).is_closed()
            || self.g.tour.marks_in(x) != 0
        {
            return false;
        }
        self.hold_in_place(p, x);
        let mut tuples = vec![x];
        while let Some(t) = tuples.pop() {
            let Kind::Tuple(xs) = self.g.kind(t) else { continue };
            for e in xs.clone() {
                match self.g.kind(e) {
                    Kind::Tuple(_) => {
                        self.hold_in_place(t, e);
                        tuples.push(e);
                    }
                    Kind::Lambda(_) | Kind::Rec { .. } => {
                        self.hold_in_place(t, e);
                    }
                    _ => {}
                }
            }
        }
        true
    }

    /// Replaces the holder `s` (attached or detached) by a value of its own:
    /// the shared value itself if `s` is its last holder, else a copy.
    /// Returns the node now standing where `s` stood.
    pub(crate) fn own(&mut self, s: NodeId) -> NodeId {
        let Kind::Share(t) = *self.g.kind(s) else { return s };
        let holders = self.shared.entry(t).or_default();
        holders.swap_remove(&s);
        let value = if holders.is_empty() {
            self.shared.remove(&t);
            t
        } else {
            self.copy(t)
        };
        let parent = self.g.nodes[s.ix()].parent;
        if parent == NodeId::NONE {
            self.g.nodes[value.ix()].parent = NodeId::NONE;
        } else {
            self.g.replace_child(parent, s, value);
        }
        self.g.release(s);
        value
    }

    /// Gives the body `b` its own head and spliced values before it executes.
    /// Returns whether anything changed.
    pub(crate) fn own_parts(&mut self, b: NodeId) -> bool {
        let mut holders = Vec::new();
        if let Some(body) = self.g.body(b) {
            if let NodeCmd::App { head, args, .. } = &body.cmd {
                holders.push(*head);
                for &a in args {
                    if let Kind::Splice(c) = self.g.kind(a) {
                        holders.push(*c);
                    }
                }
            }
        }
        let mut changed = false;
        for h in holders {
            if let Kind::Share(_) = self.g.kind(h) {
                self.own(h);
                changed = true;
            }
        }
        changed
    }

    /// Unshares the values in which a body became pending during this step
    /// (bodies noted by `set_pending` whose tree is a shared value, not the
    /// main term): every holder but the last gets a copy, the last the value
    /// itself. A value unshared into another shared value makes that one
    /// pending in turn, so its bodies are looked at again.
    pub(crate) fn unshare_pending(&mut self) {
        loop {
            let mut ts = Vec::new();
            let mut again = Vec::new();
            // Taken and given back emptied: the list keeps its capacity
            // (a body turns pending at nearly every step).
            let mut pending = std::mem::take(&mut self.new_pending);
            for &b in &pending {
                if !self.g.tour.marked(b) {
                    continue;
                }
                let r = self.g.tour.tree_root(b);
                if r != self.root && self.shared.contains_key(&r) {
                    if !ts.contains(&r) {
                        ts.push(r);
                    }
                    again.push(b);
                }
            }
            pending.clear();
            self.new_pending = pending;
            if ts.is_empty() {
                break;
            }
            for t in ts {
                self.unshare(t);
            }
            self.new_pending.extend(again);
        }
    }

    /// Gives every holder of the shared value `t` its own copy (the last
    /// holder the value itself).
    fn unshare(&mut self, t: NodeId) {
        let Some(holders) = self.shared.remove(&t) else { return };
        let Some(&last) = holders.last() else { return };
        for &h in holders.iter().take(holders.len() - 1) {
            self.shared.insert(t, [h, last].into_iter().collect());
            self.own(h);
        }
        self.shared.insert(t, std::iter::once(last).collect());
        self.own(last);
    }

    /// Whether the shared value `t` mentions one of the binders the copy
    /// under way renamed (`renaming`: it renamed some; then a copy of a
    /// region holding it must copy it too).
    pub(crate) fn mentions_any(&self, t: NodeId, renaming: bool) -> bool {
        if !renaming || self.g.nodes[t.ix()].closed.is_closed() {
            return false;
        }
        let mut stack = vec![t];
        while let Some(n) = stack.pop() {
            match self.g.kind(n) {
                Kind::Ref(v) if self.g.renamed(*v).is_some() => return true,
                Kind::Share(u) => stack.push(*u),
                Kind::Body(b) if any_stage_var(&b.stage, |v| self.g.renamed(v).is_some()) => return true,
                _ => {}
            }
            self.g.for_children(n, |c| stack.push(c));
        }
        false
    }
}
