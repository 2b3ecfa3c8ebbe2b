//! Local lists: the slots bound in place inside a lambda (its locals),
//! which a copy of the lambda copies with it. A list is doubly linked
//! through [`Slot::next_local`] and [`Slot::prev_local`]; the lambda holds
//! its head and tail, so lists join in constant time.
//!
//! A local that nothing reads any more (no occurrence, no staging
//! expression: only the list refers to it) is taken off its list and
//! freed as soon as that happens, unless it is its list's head or tail
//! (the lambda holding the list is not known there); a head or a tail
//! that a join puts inside a longer list is looked at again then.
//!
//! [`Slot::next_local`]: super::store::Slot::next_local
//! [`Slot::prev_local`]: super::store::Slot::prev_local

use super::store::{Kind, NodeId, SlotId, Val};
use super::Engine;

impl Engine {
    /// Links the slots `ls` into a list ahead of the list `rest` (head and
    /// tail); returns the whole list's head and tail.
    pub(super) fn link(&mut self, ls: &[SlotId], rest: (SlotId, SlotId)) -> (SlotId, SlotId) {
        let (mut head, mut tail) = rest;
        let old = head;
        for &s in ls.iter().rev() {
            let slot = &mut self.st.slots[s.ix()];
            slot.set_on_list(true);
            slot.next_local = head;
            if head != SlotId::NONE {
                self.st.slots[head.ix()].set_prev_local(s);
            }
            if tail == SlotId::NONE {
                tail = s;
            }
            head = s;
        }
        if old != SlotId::NONE && head != old {
            // The old head is inside the list now.
            self.drop_now_if_unread(old);
        }
        (head, tail)
    }

    /// Puts the list `(head, tail)` ahead of the local list of `outer` (in
    /// constant time), or lets its slots go at the top level. A binder's
    /// reference becomes the list's; `fresh` slots (a copy's arguments) had
    /// none and get one.
    pub(super) fn adopt_list(&mut self, outer: Option<NodeId>, (head, tail): (SlotId, SlotId), fresh: bool) {
        if head == SlotId::NONE {
            return;
        }
        if fresh {
            let mut s = head;
            while s != SlotId::NONE {
                self.st.slots[s.ix()].refs += 1;
                s = self.st.slots[s.ix()].next_local;
            }
        }
        match outer {
            Some(m) => {
                self.touch(m);
                let Kind::Lam(l) = &mut self.st.nodes[m.ix()].kind else { return };
                let old = l.locals;
                l.locals = head;
                if l.locals_tail == SlotId::NONE {
                    l.locals_tail = tail;
                }
                self.st.slots[tail.ix()].next_local = old;
                if old != SlotId::NONE {
                    self.st.slots[old.ix()].set_prev_local(tail);
                    // The old head is inside the list now, and so is the
                    // joined list's tail, unless it is also its head.
                    self.drop_now_if_unread(old);
                    self.drop_now_if_unread(tail);
                }
            }
            None => self.let_go(&[], head),
        }
    }

    /// Lets go of the binders `slots` and of the local list from `head`
    /// (the top level keeps no list): each loses the reference its binder
    /// or the list held, in that order, with one drop.
    pub(super) fn let_go(&mut self, slots: &[SlotId], head: SlotId) {
        let mut stack = self.drop_stack();
        for &s in slots {
            self.unref_into(s, &mut stack);
        }
        for s in self.take_list(head) {
            self.unref_into(s, &mut stack);
        }
        self.drop_all(&mut stack);
    }

    /// Takes the whole list from `head` apart; returns its slots (each
    /// still holding the list's reference).
    pub(super) fn take_list(&mut self, head: SlotId) -> smallvec::SmallVec<[SlotId; 8]> {
        let mut out = smallvec::SmallVec::new();
        let mut s = head;
        while s != SlotId::NONE {
            let slot = &mut self.st.slots[s.ix()];
            let next = slot.next_local;
            slot.next_local = SlotId::NONE;
            slot.set_on_list(false);
            out.push(s);
            s = next;
        }
        out
    }

    /// Takes `s` off the list it is on (it is neither head nor tail, or the
    /// whole list goes); returns the next slot.
    pub(super) fn off_list(&mut self, s: SlotId) -> SlotId {
        let slot = &mut self.st.slots[s.ix()];
        let (prev, next) = (slot.prev_local(), slot.next_local);
        slot.next_local = SlotId::NONE;
        slot.set_on_list(false);
        if prev != SlotId::NONE {
            self.st.slots[prev.ix()].next_local = next;
        }
        if next != SlotId::NONE {
            self.st.slots[next.ix()].set_prev_local(prev);
        }
        next
    }

    /// [`Engine::drop_if_unread`], dropping what it frees at once.
    fn drop_now_if_unread(&mut self, s: SlotId) {
        if !self.unread_inside(s) {
            return;
        }
        let mut stack = self.drop_stack();
        self.drop_if_unread(s, &mut stack);
        self.drop_all(&mut stack);
    }

    /// Frees local `s` (its value pushed on `stack`) when only its list
    /// refers to it and it lies inside the list.
    pub(super) fn drop_if_unread(&mut self, s: SlotId, stack: &mut Vec<Val>) {
        if self.unread_inside(s) {
            self.off_list(s);
            self.unref_into(s, stack);
        }
    }

    /// Whether local `s` lies inside its list and only the list refers
    /// to it.
    fn unread_inside(&self, s: SlotId) -> bool {
        let slot = &self.st.slots[s.ix()];
        slot.on_list() && slot.occs == 0 && slot.refs == 1 && slot.prev_local() != SlotId::NONE && slot.next_local != SlotId::NONE
    }
}
