//! Dropping what the term no longer holds: nodes back on the free list,
//! occurrences counted down, and a slot freed when nothing refers to it
//! any more. Iterative.

use super::store::{CmdN, Kind, NodeId, SlotId, SlotState, Stage, Val};
use super::Engine;

impl Engine {
    /// Drops `v` (an occurrence or an owned node) and everything it owns.
    pub(super) fn drop_val(&mut self, v: Val) {
        match v {
            // An occurrence of a slot that keeps others: no stack needed.
            Val::Var(s) if self.st.slots[s.ix()].occs > 1 => {
                let slot = &mut self.st.slots[s.ix()];
                slot.occs -= 1;
                let occs = slot.occs;
                self.note_rec(s, occs);
            }
            Val::Var(_) | Val::Node(_) => {
                let mut stack = std::mem::take(&mut self.drops);
                stack.push(v);
                self.drop_all(&mut stack);
            }
            _ => {}
        }
    }

    /// Drops everything on `stack` and what it owns; the emptied stack is
    /// kept for the next drop (its capacity).
    pub(super) fn drop_all(&mut self, stack: &mut Vec<Val>) {
        while let Some(v) = stack.pop() {
            match v {
                Val::Var(s) => self.drop_occ(s, stack),
                Val::Node(n) => self.drop_node(n, stack),
                _ => {}
            }
        }
        if stack.capacity() > self.drops.capacity() {
            self.drops = std::mem::take(stack);
        }
    }

    /// The drop stack, to fill and hand to [`Engine::drop_all`].
    pub(super) fn drop_stack(&mut self) -> Vec<Val> {
        std::mem::take(&mut self.drops)
    }

    /// One occurrence of `s` less.
    fn drop_occ(&mut self, s: SlotId, stack: &mut Vec<Val>) {
        let slot = &mut self.st.slots[s.ix()];
        debug_assert!(slot.occs > 0, "{s:?} has no occurrence to drop");
        slot.occs -= 1;
        if slot.occs == 0 {
            match slot.state {
                SlotState::Bound(Val::Node(n)) => {
                    // Nothing reads the value any more; a staging
                    // expression still sees a concrete value.
                    slot.state = SlotState::Bound(Val::Bool(true));
                    stack.push(Val::Node(n));
                }
                SlotState::Bound(Val::Var(t)) if slot.refs > 0 => {
                    // Staging expressions still follow the binding.
                    slot.state = SlotState::Alias(t);
                    self.st.slots[t.ix()].refs += 1;
                    stack.push(Val::Var(t));
                }
                _ => {}
            }
            self.maybe_release(s, stack);
            // A slot just freed is on no list: this does nothing then.
            self.drop_if_unread(s, stack);
        } else {
            let occs = slot.occs;
            self.note_rec(s, occs);
        }
    }

    /// One reference to `s` less (a binder, a staging expression, a list).
    pub(super) fn unref(&mut self, s: SlotId) {
        // A slot kept by another reference, and not left unread on a
        // list: no stack needed.
        let slot = &mut self.st.slots[s.ix()];
        if slot.refs > 1 && !(slot.on_list() && slot.occs == 0 && slot.refs == 2) {
            slot.refs -= 1;
            return;
        }
        let mut stack = self.drop_stack();
        self.unref_into(s, &mut stack);
        self.drop_all(&mut stack);
    }

    pub(super) fn unref_into(&mut self, s: SlotId, stack: &mut Vec<Val>) {
        let slot = &mut self.st.slots[s.ix()];
        debug_assert!(slot.refs > 0, "{s:?} has no reference to drop");
        slot.refs -= 1;
        if slot.refs == 0 {
            self.maybe_release(s, stack);
        } else {
            self.drop_if_unread(s, stack);
        }
    }

    /// Frees `s` if nothing refers to it.
    fn maybe_release(&mut self, s: SlotId, stack: &mut Vec<Val>) {
        let slot = &self.st.slots[s.ix()];
        if slot.occs != 0 || slot.refs != 0 {
            return;
        }
        let state = slot.state;
        self.st.release_slot(s);
        match state {
            SlotState::Bound(v) => stack.push(v),
            SlotState::Alias(t) => self.unref_into(t, stack),
            _ => {}
        }
    }

    /// Drops the references of a staging expression no body holds any
    /// more.
    pub(super) fn drop_stage_refs(&mut self, st: &Stage) {
        let mut stack = self.drop_stack();
        self.drop_stage(st, &mut stack);
        self.drop_all(&mut stack);
    }

    fn drop_stage(&mut self, st: &Stage, stack: &mut Vec<Val>) {
        st.for_each_var(|x| self.unref_into(x, stack));
    }

    fn drop_node(&mut self, n: NodeId, stack: &mut Vec<Val>) {
        let kind = std::mem::replace(&mut self.st.nodes[n.ix()].kind, Kind::Splice(Val::EMPTY));
        match kind {
            Kind::Free(_) => {
                debug_assert!(false, "drop of a freed node {n:?}");
                return;
            }
            Kind::Body(b) => {
                self.drop_stage(&b.stage, stack);
                match b.cmd {
                    CmdN::App { head, args } => {
                        stack.extend(args.iter().rev().copied());
                        stack.push(head);
                    }
                    CmdN::Fix { sparam, name, lam, body } => {
                        stack.push(Val::Node(body));
                        stack.push(Val::Node(lam));
                        self.unref_into(sparam, stack);
                        self.unref_into(name, stack);
                    }
                }
            }
            Kind::Lam(l) => {
                self.templates.release(l.tpl);
                stack.push(Val::Node(l.body));
                self.unref_into(l.sparam, stack);
                for &p in l.params.iter() {
                    self.unref_into(p, stack);
                }
                for s in self.take_list(l.locals) {
                    self.unref_into(s, stack);
                }
            }
            Kind::Rec { name, lam, .. } => {
                stack.push(Val::Node(lam));
                self.unref_into(name, stack);
            }
            Kind::Tuple(xs) => stack.extend(xs.iter().copied()),
            Kind::Splice(x) => stack.push(x),
            Kind::Expr(e) => stack.extend(e.holes.iter().copied()),
            Kind::Data(a) => super::data::values(&a, &mut |x| stack.push(x)),
        }
        self.st.release(n);
    }
}
