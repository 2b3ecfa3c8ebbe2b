//! The engine's invariants, checked on demand (the tests call it between
//! steps): owners, exact occurrence counts, pending bodies on the worklist.

use rustc_hash::{FxHashMap, FxHashSet};

use super::store::{Kind, NodeId, Owner, SlotId, SlotState, Status, Val};
use super::Engine;
use crate::term::Atom;

impl Engine {
    /// Checks the invariants on everything the term reaches; returns the
    /// first broken one.
    pub fn check(&self) -> Result<(), String> {
        let mut occs: FxHashMap<SlotId, u32> = FxHashMap::default();
        let mut seen_nodes: FxHashSet<NodeId> = FxHashSet::default();
        let mut seen_slots: FxHashSet<SlotId> = FxHashSet::default();
        let mut stack: Vec<(NodeId, Owner)> = vec![(self.root, Owner::None)];
        let mut slot_todo: Vec<SlotId> = Vec::new();
        let mut found_in: FxHashMap<SlotId, Owner> = FxHashMap::default();
        let on_var = |s: SlotId, occs: &mut FxHashMap<SlotId, u32>, todo: &mut Vec<SlotId>, seen: &mut FxHashSet<SlotId>| {
            *occs.entry(s).or_insert(0) += 1;
            if seen.insert(s) {
                todo.push(s);
            }
        };
        loop {
            while let Some((n, owner)) = stack.pop() {
                if !seen_nodes.insert(n) {
                    return Err(format!("{n:?} is reached twice"));
                }
                if self.st.owner(n) != owner {
                    return Err(format!("{n:?} is owned by {owner:?} but names {:?}", self.st.owner(n)));
                }
                if let Owner::Node(p) = owner {
                    if self.st.nodes[n.ix()].changed && !self.st.nodes[p.ix()].changed {
                        return Err(format!("{n:?} was changed, the node above it {p:?} was not"));
                    }
                }
                match self.st.kind(n) {
                    Kind::Free(_) => return Err(format!("{n:?} is free but reached")),
                    Kind::Lam(l) => {
                        self.check_template(n)?;
                        let mut prev = SlotId::NONE;
                        let mut s = l.locals;
                        while s != SlotId::NONE {
                            let sl = &self.st.slots[s.ix()];
                            if !sl.on_list() || sl.prev_local() != prev {
                                return Err(format!(
                                    "local {s:?} of {n:?}: on a list {}, before it {:?}, not {prev:?}",
                                    sl.on_list(),
                                    sl.prev_local()
                                ));
                            }
                            prev = s;
                            found_in.entry(s).or_insert(Owner::Node(n));
                            if seen_slots.insert(s) {
                                slot_todo.push(s);
                            }
                            s = self.st.slots[s.ix()].next_local;
                        }
                        if prev != l.locals_tail {
                            return Err(format!("the locals of {n:?} end at {prev:?}, its tail is {:?}", l.locals_tail));
                        }
                    }
                    Kind::Data(a) => {
                        let mut err = None;
                        super::data::walk(a, &mut |x: &Atom| {
                            if let Atom::Var(v) = x {
                                on_var(SlotId(v.0), &mut occs, &mut slot_todo, &mut seen_slots);
                            } else if let Some(h) = super::store::handle_of(x) {
                                if self.st.owner(h) != Owner::Node(n) {
                                    err = Some(format!("handle {h:?} in {n:?} is not owned by it"));
                                }
                                stack.push((h, Owner::Node(n)));
                            }
                        });
                        if let Some(e) = err {
                            return Err(e);
                        }
                    }
                    Kind::Body(b) if b.status == Status::Pending && !self.work.iter().any(|&(w, g)| w == n && g == b.gen) => {
                        let mut path = Vec::new();
                        let mut cur = n;
                        loop {
                            match self.st.owner(cur) {
                                Owner::Node(p) => {
                                    path.push(format!("{p:?}:{:?}", std::mem::discriminant(self.st.kind(p))));
                                    cur = p;
                                }
                                Owner::Slot(s) => {
                                    let sl = &self.st.slots[s.ix()];
                                    path.push(format!(
                                        "slot {s:?} {:?} occs {} refs {}",
                                        self.source.name(sl.origin()),
                                        sl.occs,
                                        sl.refs
                                    ));
                                    break;
                                }
                                Owner::None => break,
                            }
                        }
                        // Up from the body through slots to where each was found.
                        let mut cur = n;
                        for _ in 0..200 {
                            match self.st.owner(cur) {
                                Owner::Node(p) => {
                                    let sp = self.st.body(p).map(|b| self.spans[b.site as usize]);
                                    path.push(format!(
                                        "{p:?}:{:?}{}",
                                        std::mem::discriminant(self.st.kind(p)),
                                        sp.map_or(String::new(), |s| format!(" at {}", s.start))
                                    ));
                                    cur = p;
                                }
                                Owner::Slot(s) => {
                                    let sl = &self.st.slots[s.ix()];
                                    path.push(format!("SLOT {s:?} {:?} occs {}", self.source.name(sl.origin()), sl.occs));
                                    match found_in.get(&s) {
                                        Some(Owner::Node(m)) => {
                                            path.push(format!("found in {m:?}"));
                                            cur = *m;
                                        }
                                        _ => break,
                                    }
                                }
                                Owner::None => {
                                    path.push(format!("top {cur:?} root {:?}", self.root));
                                    break;
                                }
                            }
                        }
                        return Err(format!("pending body {n:?} is not on the worklist; up: {path:?}"));
                    }
                    _ => {}
                }
                self.st.for_fields(n, |f| match f {
                    Val::Node(c) => stack.push((c, Owner::Node(n))),
                    Val::Var(s) => {
                        found_in.entry(s).or_insert(Owner::Node(n));
                        on_var(s, &mut occs, &mut slot_todo, &mut seen_slots)
                    }
                    _ => {}
                });
            }
            let Some(s) = slot_todo.pop() else { break };
            match self.st.slots[s.ix()].state {
                SlotState::Free(_) => return Err(format!("{s:?} is free but reached")),
                SlotState::Bound(Val::Node(v)) => stack.push((v, Owner::Slot(s))),
                SlotState::Bound(Val::Var(t)) => on_var(t, &mut occs, &mut slot_todo, &mut seen_slots),
                SlotState::Alias(t) if seen_slots.insert(t) => slot_todo.push(t),
                _ => {}
            }
        }
        // Nothing live is unreachable: a recursive value that only its own
        // name held was dropped after the step that let it go
        // (`cycles.rs`).
        if seen_nodes.len() != self.st.live {
            return Err(format!("{} live nodes but {} reachable", self.st.live, seen_nodes.len()));
        }
        let _ = (occs, seen_slots);
        let mut all: FxHashMap<SlotId, u32> = FxHashMap::default();
        for (i, node) in self.st.nodes.iter().enumerate() {
            match &node.kind {
                Kind::Free(_) => {}
                Kind::Data(a) => super::data::walk(a, &mut |x: &Atom| {
                    if let Atom::Var(v) = x {
                        *all.entry(SlotId(v.0)).or_insert(0) += 1;
                    }
                }),
                _ => self.st.for_fields(NodeId(i as u32), |f| {
                    if let Val::Var(s) = f {
                        *all.entry(s).or_insert(0) += 1;
                    }
                }),
            }
        }
        for slot in self.st.slots.iter() {
            if let SlotState::Bound(Val::Var(t)) = slot.state {
                *all.entry(t).or_insert(0) += 1;
            }
        }
        for (i, slot) in self.st.slots.iter().enumerate() {
            if matches!(slot.state, SlotState::Free(_)) {
                continue;
            }
            let want = all.get(&SlotId(i as u32)).copied().unwrap_or(0);
            if want != slot.occs {
                return Err(format!(
                    "SlotId({i}) ({:?}) counts {} occurrences, the store holds {want}",
                    self.source.name(slot.origin()),
                    slot.occs
                ));
            }
        }
        Ok(())
    }
}
