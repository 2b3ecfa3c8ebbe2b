//! Values with more than one occurrence, and whether a woken body can lie
//! in one.
//!
//! In the reference a value stands at every occurrence of its variable, so
//! a body inside a shared value that wakes runs once per occurrence
//! (`order.rs` writes such values into their occurrences, which needs the
//! body's way up). A body inside a value can only wake when a slot the
//! value mentions and does not bind is bound. So the slots that reach a
//! second occurrence are listed as they do; when a β binds slots in
//! place and wakes one body, the values of the listed slots that are
//! still shared are asked whether they mention a slot just bound. If none
//! does, the woken body lies in no shared value and is the next in
//! post-order wherever it stands: it runs there, even inside a value with
//! one occurrence, with no walk up.

use rustc_hash::FxHashSet;

use super::store::{CmdN, Kind, NodeId, Owner, SlotId, SlotState, Val};
use super::Engine;

/// What a value says of the slots just bound.
enum Survey {
    /// It mentions one (or is too large to tell).
    Mentions,
    /// It mentions no unbound slot it does not bind, now or later.
    Closed,
    /// Neither.
    Open,
}

/// The buffers of one question, kept between questions for their
/// capacity.
#[derive(Default)]
pub(super) struct Scratch {
    /// The slots followed.
    seen: FxHashSet<SlotId>,
    /// The walk.
    stack: Vec<NodeId>,
    /// The slots a node mentions.
    mentioned: Vec<SlotId>,
    /// The binders met.
    binders: Vec<SlotId>,
    /// The unbound slots met.
    unbound: Vec<SlotId>,
}

/// Beyond this many shared values, or this many nodes in them, the answer
/// is "maybe" (and `order.rs` walks up instead).
const MAX_SHARED: usize = 64;
const MAX_NODES: usize = 4096;

impl Engine {
    /// One occurrence more of slot `s`.
    pub(super) fn add_occ(&mut self, s: SlotId) {
        self.st.slots[s.ix()].occs += 1;
        self.occ_added(s);
    }

    /// Slot `s` got more occurrences: on its second it is listed.
    pub(super) fn occ_added(&mut self, s: SlotId) {
        let slot = &mut self.st.slots[s.ix()];
        if slot.occs >= 2 && !slot.listed() {
            slot.set_listed(true);
            self.shared.push(s);
            // Questions are not asked at every step: the list is also
            // pruned as it grows, once it has doubled since the last time.
            if self.shared.len() >= self.prune_at.max(2 * MAX_SHARED) {
                self.prune_shared();
            }
        }
    }

    /// Drops from the list the slots with fewer than two occurrences.
    fn prune_shared(&mut self) {
        let st = &mut self.st;
        self.shared.retain(|&x| {
            let slot = &mut st.slots[x.ix()];
            let keep = slot.occs >= 2 && !matches!(slot.state, SlotState::Free(_));
            slot.set_listed(keep);
            keep
        });
        self.prune_at = (2 * self.shared.len()).max(MAX_SHARED + 1);
    }

    /// Whether a body waiting on one of the slots `bound` may lie in a
    /// value with more than one occurrence.
    ///
    /// The slots `bound` were bound in place: their binder was applied
    /// where it stood, outside every value a slot holds, so no value binds
    /// them, and a value that mentions one lies in their scope.
    pub(super) fn may_be_shared(&mut self, bound: &[SlotId]) -> bool {
        // Pruned at every question while short enough to ask; when longer,
        // only once it has doubled since: pruning at every question was
        // quadratic when many values stay shared (a tuple of closures,
        // each held twice).
        let len = self.shared.len();
        if len <= MAX_SHARED || len >= self.prune_at {
            self.prune_shared();
        }
        if self.shared.len() > MAX_SHARED {
            return true;
        }
        let mut scratch = std::mem::take(&mut self.survey);
        let mut budget = MAX_NODES;
        let mut hit = false;
        for i in 0..self.shared.len() {
            let x = self.shared[i];
            let Val::Node(n) = self.st.deref(Val::Var(x)) else { continue };
            if self.st.nodes[n.ix()].closed {
                continue;
            }
            match self.survey(n, bound, &mut scratch, &mut budget) {
                Survey::Mentions => {
                    hit = true;
                    break;
                }
                Survey::Closed => self.st.nodes[n.ix()].closed = true,
                Survey::Open => {}
            }
        }
        self.survey = scratch;
        hit
    }

    /// What the value at `n`, with the values of the bound slots it
    /// mentions, says of the slots `wanted`; [`Survey::Mentions`] also
    /// when it is too large to tell within `budget` nodes.
    fn survey(&self, n: NodeId, wanted: &[SlotId], scratch: &mut Scratch, budget: &mut usize) -> Survey {
        let Scratch {
            seen,
            stack,
            mentioned,
            binders,
            unbound,
        } = scratch;
        seen.clear();
        stack.clear();
        mentioned.clear();
        binders.clear();
        unbound.clear();
        stack.push(n);
        while let Some(x) = stack.pop() {
            if *budget == 0 {
                return Survey::Mentions;
            }
            *budget -= 1;
            match self.st.kind(x) {
                Kind::Lam(l) => {
                    binders.push(l.sparam);
                    binders.extend(l.params.iter().copied());
                }
                Kind::Rec { name, .. } => binders.push(*name),
                Kind::Body(b) => {
                    if let CmdN::Fix { sparam, name, .. } = &b.cmd {
                        binders.push(*sparam);
                        binders.push(*name);
                    }
                    b.stage.for_each_var(|x| mentioned.push(x));
                }
                Kind::Data(a) => super::data::values(a, &mut |y| match y {
                    Val::Var(v) => mentioned.push(v),
                    Val::Node(h) => stack.push(h),
                    _ => {}
                }),
                _ => {}
            }
            self.st.for_fields(x, |f| match f {
                Val::Node(c) => stack.push(c),
                Val::Var(s) => mentioned.push(s),
                _ => {}
            });
            for s in mentioned.drain(..) {
                let mut cur = s;
                while seen.insert(cur) {
                    if wanted.contains(&cur) {
                        return Survey::Mentions;
                    }
                    match self.st.slots[cur.ix()].state {
                        SlotState::Bound(Val::Node(m)) => {
                            if !self.st.nodes[m.ix()].closed {
                                stack.push(m);
                            }
                            break;
                        }
                        SlotState::Bound(Val::Var(t)) | SlotState::Alias(t) => cur = t,
                        SlotState::Unbound => {
                            unbound.push(cur);
                            break;
                        }
                        _ => break,
                    }
                }
            }
        }
        binders.sort_unstable();
        if unbound.iter().all(|s| binders.binary_search(s).is_ok()) {
            Survey::Closed
        } else {
            Survey::Open
        }
    }

    /// Whether node `n` lies, through the places values were last
    /// written, in a value with more than one occurrence (for
    /// `debug_assert!`: walks up, and says no where a place is unknown).
    pub(super) fn lies_in_shared(&self, n: NodeId) -> bool {
        let mut cur = self.st.owner(n);
        loop {
            match cur {
                Owner::Node(p) => cur = self.st.owner(p),
                Owner::None => return false,
                Owner::Slot(s) => {
                    if self.st.slots[s.ix()].occs > 1 {
                        return true;
                    }
                    cur = self.st.holder(s);
                    if let Owner::Node(h) = cur {
                        let mut here = false;
                        self.st.for_fields(h, |f| here |= f == Val::Var(s));
                        if !here {
                            return false;
                        }
                    }
                }
            }
        }
    }
}
