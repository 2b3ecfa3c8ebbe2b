//! Binding a variable in place (MACHINE-NOTES §1, §4): its occurrences are
//! rewritten (the value moved into the last one, copied into the others),
//! the staging expressions that mention it get the constant it now stands
//! for, and every body waiting on it is re-evaluated. Plus the upkeep that
//! goes with it: statuses, pending marks, and freeing dropped subtrees.

use super::events::Binding;
use super::lit::Lit;
use super::node::{GVar, Kind, NodeCmd, NodeId, Readiness};
use super::Machine;
use crate::term::SExp;
use crate::term::{mentions, rewrite_stage, stage_vars};

impl Machine {
    /// Binds `x` to the detached node `v` (LANGUAGE.md §5, β).
    pub(crate) fn bind(&mut self, x: GVar, v: NodeId) {
        let occs = self.g.take_live_occs(x);
        let waiters = std::mem::take(&mut self.g.var_mut(x).waiters);
        self.stats.bound_count += 1;
        let value = match self.g.kind(v) {
            Kind::Ref(y) => Err(*y),
            Kind::Lit(Lit::Stage(b)) => Ok(*b),
            _ => Ok(true),
        };
        match value {
            Err(y) => {
                // x := y, a symbolic variable: x's places become y's.
                for &o in &occs {
                    self.g.nodes[o.ix()].kind = Kind::Ref(y);
                    self.g.add_occ(y, o);
                }
                let mut staging = false;
                for &w in &waiters {
                    let Some(b) = self.g.body_mut(w) else { continue };
                    if mentions(&b.stage, x) {
                        staging = true;
                        rewrite_stage(&mut b.stage, &|u| (u == x).then_some(SExp::Var(y)));
                        self.g.add_waiter(y, w);
                    }
                }
                let to = Binding::Var(self.g.var(y).origin);
                self.events.bind(self.g.var(x).origin, to, staging, &self.source);
                self.g.release(v);
            }
            Ok(truth) => {
                let mut staging = false;
                for &w in &waiters {
                    if let Some(b) = self.g.body_mut(w) {
                        staging |= mentions(&b.stage, x);
                        rewrite_stage(&mut b.stage, &|u| (u == x).then_some(SExp::Const(truth)));
                    }
                }
                self.events.bind(self.g.var(x).origin, Binding::Value(truth), staging, &self.source);
                match occs.split_last() {
                    None => self.free(v),
                    Some((&last, rest)) if rest.is_empty() || !self.shareable(v) => {
                        for &o in rest {
                            let c = self.copy(v);
                            self.place(o, c);
                        }
                        self.place(last, v);
                    }
                    Some(_) => {
                        // Several occurrences: each holds the value shared.
                        let holders: Vec<NodeId> = occs.iter().map(|_| self.share(v)).collect();
                        if let Kind::Share(_) = self.g.kind(v) {
                            // v was a holder itself: one holder less.
                            self.free(v);
                        }
                        for (&o, h) in occs.iter().zip(holders) {
                            self.place(o, h);
                        }
                    }
                }
            }
        }
        for &w in &waiters {
            self.refresh(w);
        }
        self.g.kill_var(x);
    }

    /// Puts the detached value `v` where the occurrence `o` stands, and frees
    /// `o`. A tuple landing on a splice `!o` is expanded into the list that
    /// holds the splice.
    fn place(&mut self, o: NodeId, v: NodeId) {
        let parent = self.g.nodes[o.ix()].parent;
        let v = if matches!(self.g.kind(parent), Kind::Splice(_)) && matches!(self.g.kind(v), Kind::Share(_)) {
            // A spliced tuple is taken apart: it needs a copy of its own.
            self.own(v)
        } else {
            v
        };
        if parent == NodeId::NONE {
            // A detached occurrence (the value of a finished step): nothing
            // refers to it any more.
            self.g.release(o);
            self.free(v);
            return;
        }
        if let (Kind::Splice(_), Kind::Tuple(_)) = (self.g.kind(parent), self.g.kind(v)) {
            let holder = self.g.nodes[parent.ix()].parent;
            let elems = match &mut self.g.nodes[v.ix()].kind {
                Kind::Tuple(xs) => std::mem::take(xs),
                _ => Vec::new(),
            };
            let list = match &mut self.g.nodes[holder.ix()].kind {
                Kind::Body(b) => match &mut b.cmd {
                    NodeCmd::App { args, .. } => Some(args),
                    NodeCmd::Fix { .. } => None,
                },
                Kind::Tuple(xs) => Some(xs),
                _ => None,
            };
            if let Some(list) = list {
                if let Some(i) = list.iter().position(|x| *x == parent) {
                    list.splice(i..=i, elems);
                }
            }
            self.g.adopt_children(holder);
            self.g.release(o);
            self.g.release(parent);
            self.g.release(v);
            return;
        }
        self.g.replace_child(parent, o, v);
        self.g.release(o);
    }

    /// Marks (or unmarks) the body `b` as pending in the tour. A body that
    /// turns pending is noted: if it lies in a shared value, that value is
    /// unshared before the next step.
    pub(crate) fn set_pending(&mut self, b: NodeId, on: bool) {
        self.g.tour.mark(b, on);
        if on {
            self.new_pending.push(b);
        }
    }

    /// Re-evaluates the status of body `b` (idempotent; any other node is
    /// left alone) and its pending mark.
    pub(crate) fn refresh(&mut self, b: NodeId) {
        let Some(body) = self.g.body(b) else { return };
        let old = body.status;
        let new = self.look(b).status();
        if let Some(body) = self.g.body_mut(b) {
            body.status = new;
        }
        if let Readiness::Stuck(_) = new {
            if old != new {
                self.wait_on_parts(b);
                self.events.stuck.push(b);
            }
        }
        match (old == Readiness::Pending, new == Readiness::Pending) {
            (false, true) => self.set_pending(b, true),
            (true, false) => self.set_pending(b, false),
            _ => {}
        }
    }

    /// Sets tours, statuses and waiter lists of freshly made nodes, given
    /// in pre-order (children after their parent).
    pub(crate) fn init_nodes(&mut self, made: &[NodeId]) {
        let order = match made.first() {
            Some(&root) => self.g.tour_order(root),
            None => Vec::new(),
        };
        self.init_fresh(made, &order, false);
    }

    /// Like [`Machine::init_nodes`], for nodes whose bodies already hold
    /// their status: a copy's bodies have their originals' statuses with the
    /// copy's variables (a body's status depends only on its own head,
    /// arguments and stage, which the copy renames consistently), so
    /// nothing is evaluated again.
    /// `order` is the copy's Euler tour, which the copy's walk made.
    pub(crate) fn init_known(&mut self, made: &[NodeId], order: &[(NodeId, bool)]) {
        self.init_fresh(made, order, true);
    }

    /// `order`: the Euler tour of the fresh subtree (`Graph::tour_order`
    /// of its root).
    fn init_fresh(&mut self, made: &[NodeId], order: &[(NodeId, bool)], known: bool) {
        let mut vs = Vec::new();
        if let Some(&root) = made.first() {
            // The fresh subtree's tour, built in one go.
            debug_assert_eq!(
                order.len(),
                made.iter().filter(|n| !self.g.kind(**n).is_leaf()).count() * 2,
                "made is not one fresh subtree"
            );
            debug_assert!(order == self.g.tour_order(root).as_slice(), "not the tour of {root:?}");
            self.g.tour.build(order);
        }
        for &n in made.iter().rev() {
            if let Some(b) = self.g.body(n) {
                let status = if known {
                    debug_assert_eq!(b.status, self.look(n).status(), "a copied status is not the copy's");
                    b.status
                } else {
                    self.look(n).status()
                };
                if let Some(b) = self.g.body_mut(n) {
                    b.status = status;
                    vs.clear();
                    stage_vars(&b.stage, &mut vs);
                }
                for &v in &vs {
                    self.g.add_waiter(v, n);
                }
                if let Readiness::Stuck(_) = status {
                    self.wait_on_parts(n);
                    self.events.stuck.push(n);
                }
                if status == Readiness::Pending {
                    self.set_pending(n, true);
                }
            }
        }
    }

    /// Registers the stuck body `b` as a waiter of every variable in its head
    /// and arguments (not inside lambdas; inside shared values): binding any of them can change
    /// which part decides its status, since the first stuck or failing part
    /// decides (a symbolic splice that becomes `!3` fails before a stuck
    /// head is looked at).
    fn wait_on_parts(&mut self, b: NodeId) {
        let mut stack: smallvec::SmallVec<[NodeId; 16]> = smallvec::SmallVec::new();
        if let Some(body) = self.g.body(b) {
            if let NodeCmd::App { head, args, .. } = &body.cmd {
                stack.push(*head);
                stack.extend(args.iter().copied());
            }
        }
        let mut vars: smallvec::SmallVec<[GVar; 8]> = smallvec::SmallVec::new();
        while let Some(n) = stack.pop() {
            match self.g.kind(n) {
                Kind::Ref(v) => vars.push(*v),
                Kind::Lambda(_) | Kind::Rec { .. } | Kind::Body(_) => {}
                // A shared value is part of the body's arguments too: a
                // tuple `[!t]` bound to a variable used twice waits on `t`.
                Kind::Share(t) => stack.push(*t),
                _ => self.g.for_children(n, |c| stack.push(c)),
            }
        }
        vars.sort_unstable();
        vars.dedup();
        for v in vars {
            self.g.add_waiter(v, b);
        }
    }

    /// Frees the detached subtree at `n`; its binders are recycled.
    pub(crate) fn free(&mut self, n: NodeId) {
        // The subtree's tour goes whole: cut it out once, then forget the
        // entries of every node freed (a shared value freed with its last
        // holder is a tree of its own already).
        self.g.cut_tour(n);
        let mut stack: smallvec::SmallVec<[NodeId; 16]> = smallvec::smallvec![n];
        while let Some(n) = stack.pop() {
            if let Kind::Share(t) = *self.g.kind(n) {
                // One holder less; the value goes with its last holder.
                let last = match self.shared.get_mut(&t) {
                    Some(holders) => {
                        holders.swap_remove(&n);
                        holders.is_empty()
                    }
                    None => false,
                };
                if last {
                    self.shared.remove(&t);
                    stack.push(t);
                }
                self.g.release_in_freed_tree(n);
                continue;
            }
            self.g.for_children(n, |c| stack.push(c));
            match self.g.kind(n) {
                Kind::Lambda(l) => {
                    // Recycled in this order (sparam, then the parameters):
                    // the ids the next fresh variables get depend on it.
                    let (sparam, k) = (l.sparam, l.params.len());
                    self.g.kill_var(sparam);
                    for i in 0..k {
                        let Kind::Lambda(l) = self.g.kind(n) else { break };
                        let v = l.params[i].var;
                        self.g.kill_var(v);
                    }
                }
                Kind::Body(b) => {
                    if let NodeCmd::Fix {
                        sparam, name_in, name_out, ..
                    } = b.cmd
                    {
                        [sparam, name_in, name_out].into_iter().for_each(|v| self.g.kill_var(v));
                    }
                }
                Kind::Rec { name, .. } => {
                    let name = *name;
                    self.g.kill_var(name);
                }
                _ => {}
            }
            self.g.release_in_freed_tree(n);
        }
    }
}
