//! Copying a subtree of the graph (LANGUAGE.md §5, "a fresh copy"): what a
//! shared value needs when a variable with several occurrences is bound, or
//! when a recursive value is unfolded. Binders inside the copy get fresh
//! variables; free variables stay shared. Iterative.

use super::import::set_child;
use super::node::{GVar, Graph, Kind, NodeCmd, NodeId, Readiness, VarState, NO_VAR};
use super::Machine;
use crate::term::SExp;

impl Machine {
    /// A detached copy of the subtree at `n`, with statuses, waiters and
    /// its tour set.
    pub fn copy(&mut self, n: NodeId) -> NodeId {
        // Leaves (the common case: a number bound to a parameter that occurs
        // several times) need no walk, no binder map and no tour build.
        match self.g.kind(n) {
            Kind::Lit(lit) => {
                let lit = lit.clone();
                self.stats.copied += 1;
                return self.g.alloc(Kind::Lit(lit));
            }
            Kind::Ref(v) => {
                let v = *v;
                let id = self.g.alloc(Kind::Ref(v));
                self.g.add_occ(v, id);
                self.stats.copied += 1;
                return id;
            }
            _ => {}
        }
        // The buffers of the last copy, emptied (their capacity kept).
        let CopyScratch {
            mut map,
            mut made,
            mut stack,
            mut order,
        } = std::mem::take(&mut self.scratch.copy);
        debug_assert!(map.is_empty(), "renames left by the last copy");
        made.clear();
        stack.clear();
        order.clear();
        stack.push((n, NodeId::NONE, 0usize));
        let mut root = NodeId::NONE;
        while let Some((src, parent, slot)) = stack.pop() {
            if src == NodeId::NONE {
                // Everything below `parent` is made: its `close` entry.
                order.push((parent, false));
                continue;
            }
            let src = match self.g.kind(src) {
                // A shared value stays shared, unless it mentions a binder
                // of the region copied: then it is copied with it.
                Kind::Share(t) if self.mentions_any(*t, !map.is_empty()) => *t,
                _ => src,
            };
            // Closed code inside the region is shared from now on (closed.rs):
            // the source holds it through a holder, copied as any holder.
            let src = if src != n && self.hoistable(src) { self.hoist(src) } else { src };
            let memo = self.g.nodes[src.ix()].closed;
            // The clone is renamed in place (cloning and then rebuilding a
            // body or lambda would allocate its box twice).
            let mut kind = self.g.kind(src).clone();
            let mut fresh = |m: &mut Machine, v: &mut GVar| {
                let origin = m.g.var(*v).origin;
                let w = m.g.fresh_var(origin);
                map.insert(&mut m.g, *v, w);
                *v = w;
            };
            match &mut kind {
                Kind::Body(b) => {
                    if let NodeCmd::Fix {
                        sparam, name_in, name_out, ..
                    } = &mut b.cmd
                    {
                        fresh(self, sparam);
                        fresh(self, name_in);
                        fresh(self, name_out);
                    }
                }
                Kind::Lambda(l) => {
                    fresh(self, &mut l.sparam);
                    for p in &mut l.params {
                        fresh(self, &mut p.var);
                    }
                }
                Kind::Rec { name, .. } => fresh(self, name),
                Kind::Ref(v) => {
                    if let Some(w) = self.g.renamed(*v) {
                        *v = w;
                    }
                }
                _ => {}
            }
            // Staging expressions now, not after the walk: a shared value
            // reached through two holders is copied twice, and the second
            // copy remaps the same binders (pre-order: every binder in scope
            // is mapped already).
            if let Kind::Body(b) = &mut kind {
                let g = &self.g;
                crate::term::rewrite_stage(&mut b.stage, &|v| g.renamed(v).map(SExp::Var));
                // Its status came with it; stuck on a binder of the region,
                // it is stuck on that binder's copy (now, for the same
                // reason).
                if let Readiness::Stuck(v) = b.status {
                    if let Some(w) = g.renamed(v) {
                        b.status = Readiness::Stuck(w);
                    }
                }
            }
            let leaf = kind.is_leaf();
            // Its tour is built with the copy's (`init_known`).
            let id = self.g.alloc_for_build(kind);
            // A copy renames its binders consistently: closed or not, as
            // its original.
            self.g.nodes[id.ix()].closed = memo;
            made.push(id);
            if parent == NodeId::NONE {
                root = id;
            } else {
                set_child(&mut self.g, parent, slot, id);
            }
            if leaf {
                // No tour entries, no children.
                match self.g.kind(id) {
                    Kind::Share(t) => {
                        let t = *t;
                        self.shared.entry(t).or_default().insert(id);
                    }
                    Kind::Ref(v) => {
                        let v = *v;
                        self.g.add_occ(v, id);
                    }
                    _ => {}
                }
                continue;
            }
            order.push((id, true));
            if let Kind::Rec { name, .. } = self.g.kind(id) {
                let name = *name;
                self.g.var_mut(name).set_bound(VarState::SelfRec(id));
            }
            // Children are pushed last-first so that they are made in walk
            // order (`made` is then a pre-order), above a marker for `id`'s
            // `close` entry (`order` is then the copy's Euler tour).
            stack.push((NodeId::NONE, id, 0));
            let at = stack.len();
            let mut i = 0;
            self.g.for_children(src, |c| {
                stack.push((c, id, i));
                i += 1;
            });
            stack[at..].reverse();
        }
        map.end(&mut self.g);
        self.init_known(&made, &order);
        self.stats.copied += made.len() as u64;
        self.scratch.copy = CopyScratch { map, made, stack, order };
        root
    }
}

/// The work buffers of [`Machine::copy`], kept between copies so that a
/// copy of a small lambda (a loop's body, at every iteration) allocates
/// only its nodes.
#[derive(Clone, Default)]
pub(crate) struct CopyScratch {
    /// Binders of the region and their copies.
    map: Renames,
    /// The nodes made, in pre-order.
    made: Vec<NodeId>,
    /// The walk: (source node, parent of its copy, slot in the parent); a
    /// source [`NodeId::NONE`] marks the end of the parent's subtree.
    stack: Vec<(NodeId, NodeId, usize)>,
    /// The copy's Euler tour (node, whether `open`; leaves have none), as
    /// the walk makes it.
    order: Vec<(NodeId, bool)>,
}

/// The binders a copy renamed: their copies are kept in their own slots
/// ([`super::node::VarSlot::renamed`]), where a lookup of an occurrence
/// finds them by index; this list resets them when the copy ends.
#[derive(Clone, Default)]
pub(crate) struct Renames {
    /// Binders renamed by the current copy.
    renamed: Vec<GVar>,
}

impl Renames {
    /// Records that the copy of binder `v` is `w`.
    fn insert(&mut self, g: &mut Graph, v: GVar, w: GVar) {
        g.var_mut(v).renamed = w;
        self.renamed.push(v);
    }

    /// Forgets the copy's binders (the slots' invariant: nothing renamed
    /// between copies).
    fn end(&mut self, g: &mut Graph) {
        for v in self.renamed.drain(..) {
            g.var_mut(v).renamed = NO_VAR;
        }
    }

    /// Whether the current copy renamed no binder yet.
    pub(crate) fn is_empty(&self) -> bool {
        self.renamed.is_empty()
    }
}

impl Graph {
    /// The copy of `v` made by the copy under way, if `v` is a binder of
    /// the region it copies.
    pub(crate) fn renamed(&self, v: GVar) -> Option<GVar> {
        let w = self.var(v).renamed;
        (w != NO_VAR).then_some(w)
    }
}
