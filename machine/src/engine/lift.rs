//! Closed lambdas inside a shared lambda, lifted out of it before its
//! first copy: each becomes the value of a slot of its own, which every
//! copy then shares instead of copying it.
//!
//! A lambda `m` inside the body of a lambda `lam` that mentions nothing
//! `lam` binds (its parameters, or binders inside its body around `m`)
//! and nothing unbound outside it is the same in every copy of `lam`:
//! the copies can hold it through one slot, as values with several
//! occurrences are held (the graph machine shares such lambdas too, and
//! the hand-over writes them out as shared variables). In the paper's
//! builders the code fragment each action passes to `build` is such a
//! lambda: copied with every action, it was most of what the engine kept
//! alive.
//!
//! Only lambdas whose bodies are all waiting for a call (not pending, not
//! stuck) are lifted: a shared value holds no pending body, and a body
//! inside one that wakes later is written into its holders by `order.rs`
//! as for any shared value. The term read back is the same (a slot's value
//! reads back at each occurrence), and so is every later step.

use rustc_hash::FxHashSet;

use super::store::{CmdN, Kind, NodeId, Owner, SlotId, SlotState, Status, Val};
use super::Engine;

/// Lambdas larger than this (in nodes) are not walked for closed lambdas
/// inside: the walk must stay small beside the copy it saves. The checks
/// of the lambdas inside share a budget of as many nodes again, so that
/// lambdas nested deep in each other are not walked once per level.
const MAX_NODES: usize = 4096;

/// The binders and the mentioned slots of one node.
fn parts(kind: &Kind, binders: &mut Vec<SlotId>, mentions: &mut Vec<SlotId>, children: &mut Vec<NodeId>) -> bool {
    let val = |v: Val, mentions: &mut Vec<SlotId>, children: &mut Vec<NodeId>| match v {
        Val::Var(s) => mentions.push(s),
        Val::Node(n) => children.push(n),
        _ => {}
    };
    match kind {
        Kind::Body(b) => {
            b.stage.for_each_var(|x| mentions.push(x));
            match &b.cmd {
                CmdN::App { head, args } => {
                    val(*head, mentions, children);
                    for a in args.iter() {
                        val(*a, mentions, children);
                    }
                }
                CmdN::Fix { sparam, name, lam, body } => {
                    binders.push(*sparam);
                    binders.push(*name);
                    children.push(*lam);
                    children.push(*body);
                }
            }
        }
        Kind::Lam(l) => {
            if l.locals != SlotId::NONE {
                return false;
            }
            binders.push(l.sparam);
            binders.extend(l.params.iter().copied());
            children.push(l.body);
        }
        Kind::Rec { name, lam, .. } => {
            binders.push(*name);
            children.push(*lam);
        }
        Kind::Tuple(xs) => {
            for x in xs.iter() {
                val(*x, mentions, children);
            }
        }
        Kind::Splice(x) => val(*x, mentions, children),
        Kind::Expr(e) => {
            for x in e.holes.iter() {
                val(*x, mentions, children);
            }
        }
        Kind::Data(_) | Kind::Free(_) => return false,
    }
    true
}

impl Engine {
    /// Lifts the closed lambdas inside the body of lambda `lam` (held by
    /// a slot, about to be copied for the first time) into slots of their
    /// own.
    pub(super) fn lift_closed(&mut self, lam: NodeId) {
        let Some(inner) = self.binders_within(lam) else { return };
        let Kind::Lam(l) = self.st.kind(lam) else { return };
        let mut stack = vec![l.body];
        let mut lifted = Vec::new();
        let mut budget = MAX_NODES;
        let (mut binders, mut mentions, mut children) = (Vec::new(), Vec::new(), Vec::new());
        while let Some(n) = stack.pop() {
            if matches!(self.st.kind(n), Kind::Lam(_)) && self.closed_within(n, &inner, &mut budget) {
                lifted.push(n);
                continue;
            }
            parts(self.st.kind(n), &mut binders, &mut mentions, &mut children);
            binders.clear();
            mentions.clear();
            stack.append(&mut children);
        }
        for m in lifted {
            self.lift(m);
        }
    }

    /// Every slot bound inside lambda `lam`, itself included; `None` when
    /// it is too large to walk or holds what is not lifted around
    /// (locals, data values).
    fn binders_within(&self, lam: NodeId) -> Option<FxHashSet<SlotId>> {
        let mut out = FxHashSet::default();
        let (mut binders, mut mentions, mut children) = (Vec::new(), Vec::new(), vec![lam]);
        let mut stack = Vec::new();
        let mut seen = 0usize;
        loop {
            stack.append(&mut children);
            let Some(n) = stack.pop() else { break };
            seen += 1;
            if seen > MAX_NODES || !parts(self.st.kind(n), &mut binders, &mut mentions, &mut children) {
                return None;
            }
            out.extend(binders.drain(..));
            mentions.clear();
        }
        Some(out)
    }

    /// Whether lambda `m` mentions only slots it binds and slots bound
    /// outside the lambda around it (not in `around`), with every body
    /// inside waiting for a call; `false` once the walk has taken the
    /// `budget` of nodes left.
    fn closed_within(&self, m: NodeId, around: &FxHashSet<SlotId>, budget: &mut usize) -> bool {
        let mut own: FxHashSet<SlotId> = FxHashSet::default();
        let (mut binders, mut mentions, mut children) = (Vec::new(), Vec::new(), vec![m]);
        let mut stack = Vec::new();
        loop {
            stack.append(&mut children);
            let Some(n) = stack.pop() else { return true };
            let Some(left) = budget.checked_sub(1) else { return false };
            *budget = left;
            let kind = self.st.kind(n);
            if let Kind::Body(b) = kind {
                if matches!(b.status, Status::Pending | Status::Stuck) {
                    return false;
                }
            }
            if !parts(kind, &mut binders, &mut mentions, &mut children) {
                return false;
            }
            own.extend(binders.drain(..));
            for s in mentions.drain(..) {
                let outside_bound = !around.contains(&s) && matches!(self.st.slots[s.ix()].state, SlotState::Bound(_));
                if !own.contains(&s) && !outside_bound {
                    return false;
                }
            }
        }
    }

    /// Moves lambda `m` out of the field holding it into a new slot, whose
    /// occurrence takes its place.
    fn lift(&mut self, m: NodeId) {
        let Owner::Node(p) = self.st.owner(m) else { return };
        // Only arguments and tuple elements: a lambda in head position is
        // used up by its β, and the fields of `fix` and recursive values
        // hold lambdas only.
        let in_arg = match self.st.kind(p) {
            Kind::Body(b) => matches!(&b.cmd, CmdN::App { head, .. } if *head != Val::Node(m)),
            Kind::Tuple(_) => true,
            _ => false,
        };
        if !in_arg {
            return;
        }
        let Kind::Lam(l) = self.st.kind(m) else { return };
        let origin = self.st.slots[l.sparam.ix()].origin();
        let x = self.st.slot(origin);
        self.st.slots[x.ix()].state = SlotState::Bound(Val::Node(m));
        self.st.slots[x.ix()].occs = 1;
        self.st.replace_field(p, m, Val::Var(x));
        self.st.set_owner(m, Owner::Slot(x));
    }
}
