//! The worklist's order (MACHINE-NOTES §7). A step rewrites only the place
//! of the body it executes; every body it makes pending lies in the new
//! subtree there, which comes, in the reference's post-order, before every
//! body still pending. So pending bodies wait on a stack, and a step pushes
//! the new ones so that the first in post-order is on top.
//!
//! The new ones are ordered by their place under the new subtree's root
//! (paths of field positions). A pending body inside a value a slot holds
//! stands, in the reference, at every occurrence of the slot: those
//! occurrences get the value written in (the last one the value itself,
//! the others copies, as the reference counts its steps), and the subtree
//! is walked in post-order.

use rustc_hash::{FxHashMap, FxHashSet};

use super::store::{Kind, NodeId, Owner, SlotId, SlotState, Status, Val};
use super::Engine;
use crate::term::Atom;

/// Where the way up from a node ends ([`Engine::top`]).
enum Top {
    /// At the subtree's root.
    Root,
    /// At the slot whose value holds the node.
    Slot(SlotId),
    /// Outside the subtree.
    Lost,
}

impl Engine {
    /// Pushes the bodies `pending` (made pending by a step, all in the
    /// subtree at `root`; in post-order if `sorted`) on the worklist.
    pub(super) fn schedule(&mut self, root: NodeId, pending: &[NodeId], sorted: bool) {
        // Empty (no allocation) in the common case.
        let outside: Vec<NodeId> = pending.iter().copied().filter(|&p| !self.under(p, root)).collect();
        let mut plain = outside.is_empty();
        // Bodies moved in from values are in the tree now, but not
        // necessarily where the order given put them.
        let mut sorted = sorted;
        if !plain {
            // Values written in change fields a settled plan may have read.
            self.ready = None;
            plain = self.write_in_sole(root, &outside);
            sorted = false;
        }
        let reordered;
        let order = if !plain {
            reordered = self.normalize(root, pending);
            &reordered
        } else if sorted || pending.len() <= 1 {
            pending
        } else {
            reordered = self.sort_by_place(root, pending.to_vec());
            &reordered
        };
        for &b in order.iter().rev() {
            if let Some(body) = self.st.body(b) {
                self.work.push((b, body.gen));
            }
        }
    }

    /// Whether `n` lies in the tree at `root` with no slot on the way.
    fn under(&self, n: NodeId, root: NodeId) -> bool {
        matches!(self.top(n, root), Top::Root)
    }

    /// Where the way up from `n` ends: at `root`, at the slot whose value
    /// holds it, or nowhere `root` reaches.
    fn top(&self, n: NodeId, root: NodeId) -> Top {
        let mut cur = n;
        loop {
            if cur == root {
                return Top::Root;
            }
            match self.st.owner(cur) {
                Owner::Node(p) => cur = p,
                Owner::Slot(s) => return Top::Slot(s),
                Owner::None => return Top::Lost,
            }
        }
    }

    /// The field positions from `root` down to `n`.
    fn path(&self, root: NodeId, n: NodeId) -> Vec<u32> {
        let mut out = Vec::new();
        let mut cur = n;
        while cur != root {
            let Owner::Node(p) = self.st.owner(cur) else { break };
            let mut k = 0u32;
            let mut at = 0u32;
            self.st.for_fields(p, |f| {
                if f == Val::Node(cur) {
                    at = k;
                }
                k += 1;
            });
            out.push(at);
            cur = p;
        }
        out.reverse();
        out
    }

    /// Bodies of one tree in the reference's post-order.
    fn sort_by_place(&self, root: NodeId, bodies: Vec<NodeId>) -> Vec<NodeId> {
        let mut keyed: Vec<(Vec<u32>, NodeId)> = bodies.into_iter().map(|b| (self.path(root, b), b)).collect();
        keyed.sort_by(|(a, _), (b, _)| {
            let common = a.len().min(b.len());
            match a[..common].cmp(&b[..common]) {
                // One lies inside the other: the inner one first.
                std::cmp::Ordering::Equal => b.len().cmp(&a.len()),
                other => other,
            }
        });
        keyed.into_iter().map(|(_, b)| b).collect()
    }

    /// The cheap case of [`Engine::normalize`]: every value holding a
    /// pending body has one occurrence, found where it was last placed; it
    /// is moved there. Returns whether every pending body now lies under
    /// `root` (else the walk must do it).
    fn write_in_sole(&mut self, root: NodeId, pending: &[NodeId]) -> bool {
        for _ in 0..64 {
            let mut top = None;
            for &p in pending {
                match self.top(p, root) {
                    Top::Root => {}
                    Top::Slot(s) => {
                        top = Some(s);
                        break;
                    }
                    Top::Lost => return false,
                }
            }
            let Some(s) = top else { return true };
            let slot = &self.st.slots[s.ix()];
            let SlotState::Bound(Val::Node(v)) = slot.state else { return false };
            if slot.occs != 1 {
                return false;
            }
            match self.st.holder(s) {
                Owner::Node(n) => {
                    let Some(i) = self.st.field_holding(n, Val::Var(s)) else {
                        return false;
                    };
                    self.st.slots[s.ix()].state = SlotState::Bound(Val::Bool(true));
                    self.set_field_in_place(n, i, Val::Node(v));
                    self.drop_val(Val::Var(s));
                }
                Owner::Slot(t) => {
                    if self.st.slots[t.ix()].state != SlotState::Bound(Val::Var(s)) {
                        return false;
                    }
                    self.st.slots[s.ix()].state = SlotState::Bound(Val::Bool(true));
                    self.st.slots[t.ix()].state = SlotState::Bound(Val::Node(v));
                    self.st.set_owner(v, Owner::Slot(t));
                    self.drop_val(Val::Var(s));
                }
                Owner::None => return false,
            }
        }
        false
    }

    /// Writes the values holding pending bodies into their occurrences
    /// under `root` (each holder its own copy, the last the value), and
    /// returns the pending bodies under `root` in post-order.
    fn normalize(&mut self, root: NodeId, pending: &[NodeId]) -> Vec<NodeId> {
        // Copies written in bring pending bodies of their own: they are
        // asked about in the next round too.
        let mut pending = pending.to_vec();
        // Round after round, the values holding a pending body directly are
        // written into their occurrences in the tree; when an occurrence is
        // not found there, it lies inside another value: then the values
        // reaching a marked one through the slots they mention are found
        // and written in too.
        for _ in 0..64 {
            let marked = self.value_tops(root, &pending);
            if marked.is_empty() {
                break;
            }
            // The values holding the marked ones, found up from where their
            // occurrences were placed.
            let all = match self.holder_paths(root, &marked) {
                Some(all) => all,
                None => marked.clone(),
            };
            if !self.write_in_marked(root, &all, &mut pending) {
                let mut memo: FxHashMap<SlotId, bool> = FxHashMap::default();
                let mut all = marked.clone();
                let mut stack = vec![root];
                let mut seen: FxHashSet<SlotId> = FxHashSet::default();
                while let Some(n) = stack.pop() {
                    self.st.for_fields(n, |f| match f {
                        Val::Node(c) => stack.push(c),
                        Val::Var(s) => {
                            if let Some((last, _)) = self.chain_end(s) {
                                if seen.insert(last) && self.holds_pending(last, &marked, &mut memo) {
                                    all.insert(last);
                                }
                            }
                        }
                        _ => {}
                    });
                }
                if !self.write_in_marked(root, &all, &mut pending) {
                    break;
                }
            }
        }
        self.pending_under(root)
    }

    /// The marked slots and the slots whose values hold their
    /// occurrences, found by walking up from where each occurrence was last
    /// placed to `root`; `None` when a place is stale or leads elsewhere.
    fn holder_paths(&self, root: NodeId, marked: &FxHashSet<SlotId>) -> Option<FxHashSet<SlotId>> {
        let mut all = marked.clone();
        let mut todo: Vec<SlotId> = marked.iter().copied().collect();
        while let Some(t) = todo.pop() {
            // The occurrence: where `t` (or a slot bound to it) was placed.
            let mut cur = match self.st.holder(t) {
                Owner::Node(n) => {
                    let mut hit = false;
                    self.st.for_fields(n, |f| hit |= f == Val::Var(t));
                    if !hit {
                        return None;
                    }
                    n
                }
                _ => return None,
            };
            loop {
                if cur == root {
                    break;
                }
                match self.st.owner(cur) {
                    Owner::Node(p) => cur = p,
                    Owner::Slot(s) => {
                        if all.insert(s) {
                            todo.push(s);
                        }
                        break;
                    }
                    Owner::None => return None,
                }
            }
        }
        Some(all)
    }

    /// The slots holding (as the top of their value) a body of `pending`
    /// that is not in the tree at `root`.
    fn value_tops(&self, root: NodeId, pending: &[NodeId]) -> FxHashSet<SlotId> {
        let mut marked = FxHashSet::default();
        for &p in pending {
            if !matches!(self.st.kind(p), Kind::Body(b) if b.status == Status::Pending) {
                continue;
            }
            if let Top::Slot(s) = self.top(p, root) {
                marked.insert(s);
            }
        }
        marked
    }

    /// Whether the value of slot `s` holds a pending body: it is marked,
    /// or it mentions a slot whose value does.
    fn holds_pending(&self, s: SlotId, marked: &FxHashSet<SlotId>, memo: &mut FxHashMap<SlotId, bool>) -> bool {
        if marked.contains(&s) {
            return true;
        }
        if let Some(&m) = memo.get(&s) {
            return m;
        }
        // Cut cycles (a recursive value mentions its own name).
        memo.insert(s, false);
        let Some((_, n)) = self.chain_end(s) else { return false };
        let mut stack = vec![n];
        let mut found = false;
        while let Some(x) = stack.pop() {
            let mut fields = Vec::new();
            self.st.for_fields(x, |f| fields.push(f));
            for f in fields {
                match f {
                    Val::Node(c) => stack.push(c),
                    Val::Var(t) => {
                        if let Some((last, _)) = self.chain_end(t) {
                            if self.holds_pending(last, marked, memo) {
                                found = true;
                            }
                        }
                    }
                    _ => {}
                }
            }
            if found {
                break;
            }
        }
        memo.insert(s, found);
        found
    }

    /// Writes the values of the `marked` slots into their occurrences in
    /// the tree at `root`; whether any was found.
    fn write_in_marked(&mut self, root: NodeId, marked: &FxHashSet<SlotId>, born: &mut Vec<NodeId>) -> bool {
        let mut found = false;
        let mut stack = vec![root];
        while let Some(n) = stack.pop() {
            let mut fields = Vec::new();
            self.st.for_fields(n, |f| fields.push(f));
            let is_data = matches!(self.st.kind(n), Kind::Data(_));
            if let Kind::Data(a) = self.st.kind(n) {
                super::data::walk(a, &mut |x: &Atom| {
                    if let Some(h) = super::store::handle_of(x) {
                        fields.push(Val::Node(h));
                    }
                });
            }
            for (i, f) in fields.into_iter().enumerate() {
                match f {
                    Val::Node(c) => stack.push(c),
                    Val::Var(s) if !is_data => {
                        if let Some((last, _)) = self.chain_end(s) {
                            if marked.contains(&last) {
                                let c = self.write_in(s, born);
                                self.set_field_in_place(n, i as u32, Val::Node(c));
                                stack.push(c);
                                found = true;
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        found
    }

    /// The pending bodies of the tree at `root`, in post-order.
    fn pending_under(&self, root: NodeId) -> Vec<NodeId> {
        let mut out = Vec::new();
        let mut stack = vec![(root, false)];
        while let Some((n, done)) = stack.pop() {
            if done {
                if matches!(self.st.kind(n), Kind::Body(b) if b.status == Status::Pending) {
                    out.push(n);
                }
                continue;
            }
            stack.push((n, true));
            let mut kids = Vec::new();
            self.st.for_fields(n, |f| {
                if let Val::Node(c) = f {
                    kids.push(c);
                }
            });
            if let Kind::Data(a) = self.st.kind(n) {
                super::data::walk(a, &mut |x: &Atom| {
                    if let Some(h) = super::store::handle_of(x) {
                        kids.push(h);
                    }
                });
            }
            stack.extend(kids.into_iter().rev().map(|c| (c, false)));
        }
        out
    }

    /// The last slot of the binding chain from `s` and the node it holds.
    fn chain_end(&self, s: SlotId) -> Option<(SlotId, NodeId)> {
        let mut cur = s;
        loop {
            match self.st.slots[cur.ix()].state {
                SlotState::Bound(Val::Var(t)) => cur = t,
                SlotState::Bound(Val::Node(n)) => return Some((cur, n)),
                _ => return None,
            }
        }
    }

    /// The value of the occurrence `Var(s)` written in: taken when this is
    /// the last occurrence along the chain, else copied. The occurrence is
    /// dropped.
    fn write_in(&mut self, s: SlotId, born: &mut Vec<NodeId>) -> NodeId {
        let mut cur = s;
        let mut sole = true;
        let (last, n) = loop {
            let slot = &self.st.slots[cur.ix()];
            sole &= slot.occs == 1;
            match slot.state {
                SlotState::Bound(Val::Var(t)) => cur = t,
                SlotState::Bound(Val::Node(n)) => break (cur, n),
                _ => unreachable!("write_in follows a chain to a node"),
            }
        };
        let c = if sole {
            self.st.slots[last.ix()].state = SlotState::Bound(Val::Bool(true));
            self.st.set_owner(n, Owner::None);
            n
        } else {
            match self.copy_val_into(Val::Node(n), born) {
                Val::Node(c) => c,
                _ => unreachable!("a copy of a node is a node"),
            }
        };
        self.drop_val(Val::Var(s));
        c
    }
}
