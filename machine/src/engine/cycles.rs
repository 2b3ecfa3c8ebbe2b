//! Recursive values that only their own name holds.
//!
//! `fix f = λ.. in ..` binds `f` to a [`Kind::Rec`] whose lambda mentions
//! `f`: the value holds occurrences of the slot that holds it, so counting
//! occurrences never frees it. A loop's `fix` inside another loop's body
//! made one such cycle per outer iteration; each stayed on the list of
//! shared slots (`shared.rs`), which every wake walked: quadratic.
//!
//! When an occurrence of a recursive value's name is dropped, the slot is
//! noted; after the step, a noted slot all of whose occurrences lie inside
//! its own value is unreachable (anything reaching the value reads the
//! slot through an occurrence, and every occurrence is inside), and the
//! value is dropped, as the reference drops a recursive value no
//! occurrence names any more. The walk counts only occurrences the value
//! owns (its nodes, and the values of the locals of its lambdas); one it
//! cannot see counts as outside, so a value is never freed while held.
//! The count is kept in the value ([`Kind::Rec`]'s `inner`): while the
//! name has more occurrences than that, no walk is made.

use super::store::{Kind, NodeId, SlotId, SlotState, Val, UNCOUNTED};
use super::Engine;

impl Engine {
    /// An occurrence of `s` was dropped, `occs` are left: if `s` holds a
    /// recursive value of its own name that may now hold itself alone, it
    /// is looked at after the step.
    pub(super) fn note_rec(&mut self, s: SlotId, occs: u32) {
        if let SlotState::Bound(Val::Node(r)) = self.st.slots[s.ix()].state {
            if let Kind::Rec { name, inner, .. } = *self.st.kind(r) {
                if name == s && (inner == UNCOUNTED || occs <= inner) && !self.rec_notes.contains(&s) {
                    self.rec_notes.push(s);
                }
            }
        }
    }

    /// Drops the noted recursive values that only their own name holds.
    pub(super) fn collect_recs(&mut self) {
        while let Some(s) = self.rec_notes.pop() {
            let SlotState::Bound(Val::Node(r)) = self.st.slots[s.ix()].state else {
                continue;
            };
            let Kind::Rec { name, .. } = *self.st.kind(r) else { continue };
            if name != s {
                continue;
            }
            let inside = self.occurrences_inside(r, s);
            if let Kind::Rec { inner, .. } = &mut self.st.nodes[r.ix()].kind {
                *inner = inside;
            }
            if inside == self.st.slots[s.ix()].occs {
                // Staging expressions that mention `s` still see a
                // concrete value.
                self.st.slots[s.ix()].state = SlotState::Bound(Val::Bool(true));
                self.st.set_owner(r, super::store::Owner::None);
                self.drop_val(Val::Node(r));
            }
        }
    }

    /// The occurrences of slot `s` that the value at `r` owns.
    fn occurrences_inside(&self, r: NodeId, s: SlotId) -> u32 {
        let mut count = 0;
        let mut stack = vec![r];
        let mut one = |v: Val, stack: &mut Vec<NodeId>| match v {
            Val::Var(x) if x == s => count += 1,
            Val::Node(n) => stack.push(n),
            _ => {}
        };
        while let Some(n) = stack.pop() {
            crate::memory::tick();
            match self.st.kind(n) {
                Kind::Lam(l) => {
                    let mut x = l.locals;
                    while x != SlotId::NONE {
                        if let SlotState::Bound(v) = self.st.slots[x.ix()].state {
                            one(v, &mut stack);
                        }
                        x = self.st.slots[x.ix()].next_local;
                    }
                }
                Kind::Data(a) => super::data::values(a, &mut |y| match y {
                    Val::Var(v) if v == s => one(y, &mut stack),
                    Val::Node(h) => stack.push(h),
                    _ => {}
                }),
                _ => {}
            }
            self.st.for_fields(n, |f| one(f, &mut stack));
        }
        count
    }
}
