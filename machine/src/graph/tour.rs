//! The Euler tour of the graph's trees, kept in treaps (an Euler-tour tree):
//! every node `n` has two entries, `open(n)` and `close(n)`, and a tree is
//! the sequence `open(n) tour(child1) .. tour(childk) close(n)`. The treap
//! over that sequence (implicit keys, random priorities, parent links) gives
//! in `O(log size)`, whatever the depth of the tree:
//!
//! - cutting a subtree out and putting one in its place (β, binding, copies);
//! - the first *marked* entry: pending bodies mark their `close` entry, and
//!   the first marked `close` of the main tree is the first pending body in
//!   post-order, which is the reference's next ready body (LANGUAGE.md §5:
//!   ready bodies are never nested, and a body comes after everything
//!   nested in it);
//! - whether a subtree holds a mark, and which tree a node is in (a pending
//!   body inside a detached shared value must be unshared).
//!
//! Hotness counted per node and propagated to the root costs the depth of
//! the term per activation; on the builders, whose code runs at the bottom
//! of the program built so far, that is quadratic.
//!
//! Moving a subtree costs `O(log)` of the sizes of the subtrees moved, not
//! of the tree's: an interval is taken out below its lowest common ancestor
//! in the treap (found by walking up by priority, `Tour::lca`) and a treap
//! is put in a gap by splitting upwards only the entries of lower priority
//! than its root (`Tour::fill`); the counts above change only when marks
//! move. A subtree that already is a tree of its own is not cut at all.
//!
//! Node ids come in blocks of [`BLOCK`]; a block holding an inner node has
//! `2 * BLOCK` entries, `open(n)` and `close(n)` side by side, found through
//! a table of blocks. Leaves (`Ref`, `Lit`, `Share`: no children, never
//! pending) are in no tree: `Graph::alloc` gives them blocks of their own,
//! which have no entries at all (a leaf in a block with entries has clear
//! ones), so binding a variable to a number or a variable moves nothing
//! here, and a copy's tour holds only its inner nodes. A tour put where a leaf stood goes after the entry before it
//! ([`Tour::insert_after`]). Everything here is iterative.

use super::node::NodeId;

const NIL: u32 = u32::MAX;

/// The top bit of [`Entry::cnt`]: the entry itself is marked.
const MARK: u32 = 1 << 31;

/// One entry of the tour: a treap node (20 bytes).
#[derive(Clone, Copy, Debug)]
struct Entry {
    /// Left child, right child and parent in the treap (`NIL`: none).
    l: u32,
    r: u32,
    p: u32,
    /// The entry's priority: fixed per index ([`pri`]), set when the entry
    /// is first made and never changed, so runs are deterministic.
    /// Invariant (heap order): every entry's priority is greater than its
    /// children's (priorities are distinct).
    pri: u32,
    /// Invariant: the low 31 bits count the marked entries in this treap
    /// subtree (the entry itself included); [`MARK`] is set when the entry
    /// itself is marked (only `close` entries of pending bodies). Counts
    /// are added and subtracted on the whole word: the count never
    /// underflows, so the mark bit is left alone.
    cnt: u32,
}

impl Entry {
    /// Marked entries in this subtree.
    fn count(self) -> u32 {
        self.cnt & !MARK
    }

    /// Whether the entry itself is marked.
    fn marked(self) -> bool {
        self.cnt & MARK != 0
    }
}

/// The Euler tours of all trees of a graph, one treap per tree.
#[derive(Default, Debug, Clone)]
pub struct Tour {
    /// The entries, by blocks of `2 * BLOCK`: `open(n)` and `close(n)` at
    /// `2 * (n % BLOCK)` and the next, in the entry block of `n`'s block.
    e: Vec<Entry>,
    /// The entry block of each block of node ids (`NIL`: none yet, a block
    /// of leaves).
    entry_block: Vec<u32>,
    /// The block of node ids of each entry block.
    node_block: Vec<u32>,
    /// Scratch for [`Tour::build`] (the right spine), kept to reuse.
    spine: Vec<u32>,
}

/// Where [`Tour::insert_after`] puts a tour: right after `open(n)` (first
/// among `n`'s children with a tour) or right after `close(n)` (after the
/// sibling `n`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TourAnchor {
    /// Right after `open(n)`.
    Open(NodeId),
    /// Right after `close(n)`.
    Close(NodeId),
}

/// Node ids per block: `Graph::alloc` hands out a block's ids to leaves
/// only or to inner nodes only, and only the latter's blocks have entries.
pub const BLOCK: u32 = 64;

/// Entries per entry block.
const BLOCK_ENTRIES: u32 = 2 * BLOCK;

/// The entry `open(n)` when `n`'s block has the entry block `b`.
#[inline]
fn open_in(b: u32, n: NodeId) -> u32 {
    b * BLOCK_ENTRIES + (n.0 % BLOCK) * 2
}

/// A fixed pseudo-random priority per entry, so runs are deterministic: a
/// bijective mix of its index (xor-shifts and odd multipliers), so no two
/// entries share a priority and every ancestor's is strictly greater,
/// which [`Tour::lca`] relies on. Computed once per entry, stored in
/// [`Entry::pri`].
fn pri(x: u32) -> u32 {
    let mut z = x.wrapping_add(0x9E37_79B9);
    z ^= z >> 16;
    z = z.wrapping_mul(0x7FEB_352D);
    z ^= z >> 15;
    z = z.wrapping_mul(0x846C_A68B);
    z ^ (z >> 16)
}

/// An interval taken out of its treap by [`Tour::extract`]: its own treap,
/// and the gap it left (the slot under `q` and what stood on both sides of
/// the interval below that slot), to be filled by [`Tour::fill`].
struct Gap {
    /// The interval's treap.
    m: u32,
    /// Its marked entries.
    mc: u32,
    /// The entry whose child slot the interval's treap had (`NIL`: it was
    /// the root), and which slot.
    q: u32,
    right: bool,
    /// The entries before and after the interval that were below the slot
    /// (two treaps).
    a: u32,
    d: u32,
}

impl Tour {
    /// The entry `open(n)` (`n`'s block has entries).
    #[inline]
    fn open(&self, n: NodeId) -> u32 {
        let b = self.entry_block[(n.0 / BLOCK) as usize];
        debug_assert!(b != NIL, "{n:?} has no tour entries");
        open_in(b, n)
    }

    /// The entry `close(n)`.
    #[inline]
    fn close(&self, n: NodeId) -> u32 {
        self.open(n) + 1
    }

    /// Takes the interval of node `n`'s entries out of its treap.
    fn extract_node(&mut self, n: NodeId) -> Gap {
        let o = self.open(n);
        self.extract(o, o + 1)
    }

    /// The node whose entry `x` is (`open` if `x` is even).
    fn node(&self, x: u32) -> NodeId {
        NodeId(self.node_block[(x / BLOCK_ENTRIES) as usize] * BLOCK + (x % BLOCK_ENTRIES) / 2)
    }

    /// The entry `open(n)`, if `n`'s block has entries (never, for a
    /// block of leaves).
    #[inline]
    fn open_of(&self, n: NodeId) -> Option<u32> {
        match self.entry_block.get((n.0 / BLOCK) as usize) {
            Some(&b) if b != NIL => Some(open_in(b, n)),
            _ => None,
        }
    }

    /// The entry `open(n)`, giving `n`'s block its entries (unlinked) if
    /// it has none yet.
    pub(crate) fn make_entries(&mut self, n: NodeId) -> u32 {
        if let Some(o) = self.open_of(n) {
            return o;
        }
        let nb = (n.0 / BLOCK) as usize;
        if self.entry_block.len() <= nb {
            self.entry_block.resize(nb + 1, NIL);
        }
        let eb = u32::try_from(self.node_block.len()).unwrap_or(NIL);
        self.node_block.push(nb as u32);
        self.entry_block[nb] = eb;
        self.grow((eb as usize + 1) * BLOCK_ENTRIES as usize);
        open_in(eb, n)
    }

    /// Marked entries in the treap subtree at `x` (`NIL`: none).
    fn cnt(&self, x: u32) -> u32 {
        if x == NIL {
            0
        } else {
            self.e[x as usize].count()
        }
    }

    /// Makes `x` an unlinked, unmarked entry (its priority stays).
    fn clear(&mut self, x: u32) {
        let e = &mut self.e[x as usize];
        e.l = NIL;
        e.r = NIL;
        e.p = NIL;
        e.cnt = 0;
    }

    fn set_p(&mut self, x: u32, p: u32) {
        if x != NIL {
            self.e[x as usize].p = p;
        }
    }

    /// The root of the treap holding entry `x`.
    fn root(&self, mut x: u32) -> u32 {
        while self.e[x as usize].p != NIL {
            x = self.e[x as usize].p;
        }
        x
    }

    /// The root of `n`'s treap if `n`'s interval is all of it (`open(n)`
    /// first, `close(n)` last): two walks up that stop at the first step
    /// from the other side.
    fn whole(&self, n: NodeId) -> Option<u32> {
        let o = self.open(n);
        let c = o + 1;
        if self.e[o as usize].l != NIL || self.e[c as usize].r != NIL {
            return None;
        }
        let mut x = o;
        loop {
            let p = self.e[x as usize].p;
            if p == NIL {
                break;
            }
            if self.e[p as usize].l != x {
                return None;
            }
            x = p;
        }
        let mut y = c;
        loop {
            let p = self.e[y as usize].p;
            if p == NIL {
                return Some(x);
            }
            if self.e[p as usize].r != y {
                return None;
            }
            y = p;
        }
    }

    /// The child of `x` on the right (`right`) or on the left.
    fn child(&self, x: u32, right: bool) -> u32 {
        let e = &self.e[x as usize];
        if right {
            e.r
        } else {
            e.l
        }
    }

    /// The entry right after `x` (`forward`) or right before it in its
    /// treap (`NIL`: `x` is the last, or the first).
    fn neighbour(&self, x: u32, forward: bool) -> u32 {
        let c = self.child(x, forward);
        if c != NIL {
            let mut y = c;
            while self.child(y, !forward) != NIL {
                y = self.child(y, !forward);
            }
            return y;
        }
        let mut c = x;
        let mut p = self.e[c as usize].p;
        while p != NIL && self.child(p, forward) == c {
            c = p;
            p = self.e[p as usize].p;
        }
        p
    }

    /// The entry right after `x` in its treap (`NIL`: `x` is the last).
    fn next(&self, x: u32) -> u32 {
        self.neighbour(x, true)
    }

    /// The entry right before `x` in its treap (`NIL`: `x` is the first).
    fn prev(&self, x: u32) -> u32 {
        self.neighbour(x, false)
    }

    /// The lowest common ancestor of entries `x` and `y` of one treap: walk
    /// up from both, always from the one of lower priority (priorities are
    /// distinct and grow upwards, so neither walk passes it). Costs the
    /// distance to it, `O(log)` of the number of entries between `x` and
    /// `y`, not of the treap's size.
    fn lca(&self, mut x: u32, mut y: u32) -> u32 {
        while x != y {
            if self.e[x as usize].pri < self.e[y as usize].pri {
                x = self.e[x as usize].p;
            } else {
                y = self.e[y as usize].p;
            }
        }
        x
    }

    /// Adds `add` to, then takes `sub` from, the counts of `y` and all its
    /// ancestors (nothing when they cancel).
    fn recount_up(&mut self, mut y: u32, add: u32, sub: u32) {
        if add == sub {
            return;
        }
        while y != NIL {
            let e = &mut self.e[y as usize];
            e.cnt = e.cnt + add - sub;
            y = e.p;
        }
    }

    /// Bytes the entries take (their buffer's length, not its capacity).
    pub fn bytes(&self) -> usize {
        self.e.len() * std::mem::size_of::<Entry>() + (self.entry_block.len() + self.node_block.len()) * 4
    }

    /// Makes node `n` a tree of its own with no children: `open(n) close(n)`.
    /// The caller makes sure no other treap links to its entries (see
    /// [`Tour::release`]).
    pub fn reset(&mut self, n: NodeId) {
        let o = self.make_entries(n);
        let c = o + 1;
        self.clear(o);
        self.clear(c);
        if self.e[o as usize].pri > self.e[c as usize].pri {
            self.e[o as usize].r = c;
            self.e[c as usize].p = o;
        } else {
            self.e[c as usize].l = o;
            self.e[o as usize].p = c;
        }
    }

    /// Concatenates two treaps (`a` before `b`, both roots); returns the
    /// root. One walk down the right spine of `a` and the left spine of
    /// `b`; each winner's count gains the whole remaining other side, so
    /// no second walk fixes counts.
    fn merge(&mut self, a: u32, b: u32) -> u32 {
        if a == NIL {
            return b;
        }
        if b == NIL {
            return a;
        }
        let e = &mut self.e;
        debug_assert!(e[a as usize].p == NIL && e[b as usize].p == NIL, "merge of non-roots");
        let (mut a, mut b) = (a, b);
        let root = if e[a as usize].pri > e[b as usize].pri { a } else { b };
        // Where the next winner goes: under `parent`, on the right if
        // `right` (the root has no parent and is already one).
        let mut parent = NIL;
        let mut right = false;
        loop {
            let (ea, eb) = (e[a as usize], e[b as usize]);
            // The winner `w` keeps its outer side; its inner side (right of
            // `a`, left of `b`) is merged with the loser.
            let a_wins = ea.pri > eb.pri;
            let (w, loser, inner) = if a_wins { (a, eb, ea.r) } else { (b, ea, eb.l) };
            let x = &mut e[w as usize];
            x.cnt += loser.count();
            x.p = parent;
            if parent != NIL {
                if right {
                    e[parent as usize].r = w;
                } else {
                    e[parent as usize].l = w;
                }
            }
            if inner == NIL {
                if a_wins {
                    e[a as usize].r = b;
                    e[b as usize].p = a;
                } else {
                    e[b as usize].l = a;
                    e[a as usize].p = b;
                }
                break;
            }
            parent = w;
            right = a_wins;
            if a_wins {
                a = inner;
            } else {
                b = inner;
            }
        }
        root
    }

    /// Splits the treap subtree below `stop` (a child subtree of `stop`,
    /// `NIL`: the whole treap) that holds `x` into the entries before `x`
    /// and those from `x` on (`after = false`), or up to `x` and after it
    /// (`after = true`). Returns the two roots (unlinked from `stop`, which
    /// is left as it was) and their marked entries. One walk up from `x`;
    /// the counts are fixed on the way from those of the two parts.
    fn split_below(&mut self, x: u32, after: bool, stop: u32) -> (u32, u32, u32, u32) {
        let e = &mut self.e;
        let xi = x as usize;
        let ex = e[xi];
        // `x`'s child on the side that goes to the other part is detached:
        // the two parts built so far, and their mark counts.
        let c = if after { ex.r } else { ex.l };
        let mut cc = 0;
        if c != NIL {
            let ec = &mut e[c as usize];
            ec.p = NIL;
            cc = ec.count();
        }
        let x_ = &mut e[xi];
        if after {
            x_.r = NIL;
        } else {
            x_.l = NIL;
        }
        x_.cnt -= cc;
        let xc = x_.count();
        let (mut l, mut r, mut lc, mut rc) = if after { (x, c, xc, cc) } else { (c, x, cc, xc) };
        e[xi].p = NIL;
        let mut cur = x;
        let mut p = ex.p;
        while p != stop {
            let ep = &mut e[p as usize];
            let pp = ep.p;
            ep.p = NIL;
            if ep.r == cur {
                // p comes before cur: it takes the left part on its right.
                ep.r = l;
                ep.cnt -= rc;
                lc = ep.count();
                if l != NIL {
                    e[l as usize].p = p;
                }
                l = p;
            } else {
                ep.l = r;
                ep.cnt -= lc;
                rc = ep.count();
                if r != NIL {
                    e[r as usize].p = p;
                }
                r = p;
            }
            cur = p;
            p = pp;
        }
        (l, r, lc, rc)
    }

    /// Takes the entries from `o` to `c` (in order, one treap) out as a
    /// treap of their own. Only the treap below their lowest common
    /// ancestor changes (it becomes the interval's root), so the cost is
    /// `O(log)` of the interval's length; the ancestors above are left
    /// for [`Tour::fill`], counts included.
    fn extract(&mut self, o: u32, c: u32) -> Gap {
        let top = self.lca(o, c);
        let et = self.e[top as usize];
        let q = et.p;
        let right = q != NIL && self.e[q as usize].r == top;
        let (a, b, bc) = if o == top {
            (et.l, NIL, 0)
        } else {
            let (a, b, _, bc) = self.split_below(o, false, top);
            (a, b, bc)
        };
        let (cc, d, ccc) = if c == top {
            (NIL, et.r, 0)
        } else {
            let (cc, d, ccc, _) = self.split_below(c, true, top);
            (cc, d, ccc)
        };
        self.set_p(a, NIL);
        self.set_p(d, NIL);
        self.set_p(b, top);
        self.set_p(cc, top);
        let mc = bc + ccc + u32::from(et.marked());
        let t = &mut self.e[top as usize];
        t.l = b;
        t.r = cc;
        t.p = NIL;
        t.cnt = (et.cnt & MARK) | mc;
        Gap {
            m: top,
            mc,
            q,
            right,
            a,
            d,
        }
    }

    /// Puts the treap `m` (`NIL`: nothing) in the gap `g` left by
    /// [`Tour::extract`], between `g.a` and `g.d`. Entries above the gap
    /// with a lower priority than `m`'s root are split on the way up (as
    /// few as `m` is small), and the counts of those above are fixed.
    fn fill(&mut self, g: &Gap, m: u32) {
        let (pm, mc) = if m == NIL {
            (0, 0)
        } else {
            (self.e[m as usize].pri, self.e[m as usize].count())
        };
        let (mut q, mut right, mut l, mut r) = (g.q, g.right, g.a, g.d);
        while q != NIL && self.e[q as usize].pri < pm {
            // `q` goes below `m`'s root: to the left part if the gap is on
            // its right, else to the right part.
            let eq = self.e[q as usize];
            let qq = eq.p;
            let qright = qq != NIL && self.e[qq as usize].r == q;
            let mark = eq.cnt & MARK;
            if right {
                let c = self.cnt(eq.l) + self.cnt(l);
                self.set_p(l, q);
                let x = &mut self.e[q as usize];
                x.r = l;
                x.cnt = mark | (c + u32::from(mark != 0));
                l = q;
            } else {
                let c = self.cnt(eq.r) + self.cnt(r);
                self.set_p(r, q);
                let x = &mut self.e[q as usize];
                x.l = r;
                x.cnt = mark | (c + u32::from(mark != 0));
                r = q;
            }
            self.e[q as usize].p = NIL;
            q = qq;
            right = qright;
        }
        let lm = self.merge(l, m);
        let x = self.merge(lm, r);
        if q != NIL {
            if right {
                self.e[q as usize].r = x;
            } else {
                self.e[q as usize].l = x;
            }
            self.set_p(x, q);
            self.recount_up(q, mc, g.mc);
        }
    }

    /// Cuts the interval of node `n` out of the tree it is in; `n`'s tour
    /// becomes a treap of its own (the rest closes up). Returns its root.
    fn cut_out(&mut self, n: NodeId) -> u32 {
        if let Some(root) = self.whole(n) {
            return root;
        }
        let g = self.extract_node(n);
        self.fill(&g, NIL);
        g.m
    }

    /// Cuts the interval of node `n` out of the tree it is in; `n`'s tour
    /// becomes a treap of its own (the rest closes up). Costs `O(log)` of
    /// `n`'s subtree size, whatever the tree's.
    pub fn cut(&mut self, n: NodeId) {
        self.cut_out(n);
    }

    /// Puts the tour of `new` (cut from wherever it is) where the tour of
    /// `old` stands; `old`'s tour becomes a treap of its own. Costs `O(log)`
    /// of the two subtrees' sizes, whatever the tree's.
    pub fn replace(&mut self, old: NodeId, new: NodeId) {
        let m = self.cut_out(new);
        let g = self.extract_node(old);
        self.fill(&g, m);
    }

    /// Puts the tours of `kids` (each cut from wherever it is), in order,
    /// between `open(n)` and `close(n)`. Whatever stood there before is cut
    /// out and left as a treap of its own.
    pub fn relist(&mut self, n: NodeId, kids: &[NodeId]) {
        let mut seq = NIL;
        for &k in kids {
            let m = self.cut_out(k);
            seq = self.merge(seq, m);
        }
        let o = self.open(n);
        let c = o + 1;
        let first = self.next(o);
        let g = if first == c {
            if seq == NIL {
                return;
            }
            // Nothing inside: the gap is the empty slot between `o` and `c`.
            self.slot_after(o)
        } else {
            let last = self.prev(c);
            self.extract(first, last)
        };
        self.fill(&g, seq);
    }

    /// Puts the tour of `new` (cut from wherever it is) right after the
    /// entry `at` (the `open` entry of `new`'s parent, or the `close` entry
    /// of the sibling with a tour before it): where a leaf, which has no
    /// entries, stood. Costs `O(log)` of `new`'s subtree and of the
    /// distance from `at` to the slot, whatever the tree's size.
    pub fn insert_after(&mut self, at: TourAnchor, new: NodeId) {
        let m = self.cut_out(new);
        let x = match at {
            TourAnchor::Open(n) => self.open(n),
            TourAnchor::Close(n) => self.close(n),
        };
        debug_assert!(self.root(x) != self.root(self.open(new)), "inserting {new:?} into its own tour");
        let g = self.slot_after(x);
        self.fill(&g, m);
    }

    /// The empty gap right after entry `x` (for [`Tour::fill`]): `x`'s
    /// right child slot, or the left child slot of the first entry of its
    /// right subtree (the entry after `x`).
    fn slot_after(&self, x: u32) -> Gap {
        let ex = self.e[x as usize];
        let (q, right) = if ex.r == NIL {
            (x, true)
        } else {
            let mut y = ex.r;
            while self.e[y as usize].l != NIL {
                y = self.e[y as usize].l;
            }
            (y, false)
        };
        Gap {
            m: NIL,
            mc: 0,
            q,
            right,
            a: NIL,
            d: NIL,
        }
    }

    /// Whether `n`'s block has entries: never for a block of leaves.
    pub fn has_entries(&self, n: NodeId) -> bool {
        self.open_of(n).is_some()
    }

    /// Makes room for the entries of `n` more nodes.
    pub(crate) fn reserve(&mut self, n: usize) {
        self.e.reserve(2 * n);
    }

    fn grow(&mut self, need: usize) {
        let from = u32::try_from(self.e.len()).unwrap_or(u32::MAX);
        let to = u32::try_from(need).unwrap_or(u32::MAX);
        self.e.extend((from..to).map(|x| Entry {
            l: NIL,
            r: NIL,
            p: NIL,
            pri: pri(x),
            cnt: 0,
        }));
    }

    /// Takes entry `x`, which has at most one child, out of its treap (its
    /// child takes its place).
    fn splice_out(&mut self, x: u32) {
        let ex = self.e[x as usize];
        debug_assert!(ex.l == NIL || ex.r == NIL);
        let child = if ex.l != NIL { ex.l } else { ex.r };
        self.set_p(child, ex.p);
        if ex.p != NIL {
            let p = &mut self.e[ex.p as usize];
            if p.l == x {
                p.l = child;
            } else {
                p.r = child;
            }
            if ex.marked() {
                self.recount_up(ex.p, 0, 1);
            }
        }
    }

    /// Takes node `n`'s own entries out of every treap (its interval's
    /// inside, if anything is left there, stays together on its own), so
    /// they can be reused.
    pub fn release(&mut self, n: NodeId) {
        let o = self.open(n);
        let c = o + 1;
        let (eo, ec) = (self.e[o as usize], self.e[c as usize]);
        // The usual case, a tree of its own with nothing inside (a replaced
        // leaf, an emptied body): the two entries, one the other's child.
        let pair = (eo.p == c && ec.p == NIL && ec.l == o && ec.r == NIL && eo.l == NIL && eo.r == NIL)
            || (ec.p == o && eo.p == NIL && eo.r == c && eo.l == NIL && ec.l == NIL && ec.r == NIL);
        if !pair {
            self.cut_out(n);
            // `o` is now the first entry of its treap and `c` the last: no
            // left child, no right child.
            self.splice_out(o);
            self.splice_out(c);
        }
        self.clear(o);
        self.clear(c);
    }

    /// Makes the fresh, unmarked nodes of `order` (a tour: node and whether
    /// it is the `open` entry) one treap, in linear time (a Cartesian tree
    /// built along its right spine). The nodes must not be in any other
    /// tree.
    pub fn build(&mut self, order: &[(NodeId, bool)]) {
        let mut spine = std::mem::take(&mut self.spine);
        spine.clear();
        for &(n, is_open) in order {
            let x = if is_open { self.open(n) } else { self.close(n) };
            self.clear(x);
            let px = self.e[x as usize].pri;
            let mut last = NIL;
            while let Some(&t) = spine.last() {
                if self.e[t as usize].pri < px {
                    last = t;
                    spine.pop();
                } else {
                    break;
                }
            }
            self.e[x as usize].l = last;
            self.set_p(last, x);
            if let Some(&t) = spine.last() {
                self.e[t as usize].r = x;
                self.e[x as usize].p = t;
            }
            spine.push(x);
        }
        self.spine = spine;
    }

    /// Forgets node `n`'s entries without unlinking them: only for a node
    /// of a tree that is freed whole (cut out first), whose entries all go.
    pub fn forget(&mut self, n: NodeId) {
        let o = self.open(n);
        self.clear(o);
        self.clear(o + 1);
    }

    /// Marks or unmarks node `n` (a pending body).
    pub fn mark(&mut self, n: NodeId, on: bool) {
        let x = self.close(n);
        let e = &mut self.e[x as usize];
        if e.marked() == on {
            return;
        }
        if on {
            e.cnt |= MARK;
        } else {
            e.cnt &= !MARK;
        }
        let mut y = x;
        while y != NIL {
            let e = &mut self.e[y as usize];
            if on {
                e.cnt += 1;
            } else {
                e.cnt -= 1;
            }
            y = e.p;
        }
    }

    /// Whether node `n` is marked.
    pub fn marked(&self, n: NodeId) -> bool {
        self.open_of(n).is_some_and(|o| self.e[o as usize + 1].marked())
    }

    /// Marked entries strictly before `x` in its treap.
    fn before(&self, x: u32) -> u32 {
        let mut c = self.cnt(self.e[x as usize].l);
        let mut cur = x;
        let mut p = self.e[x as usize].p;
        while p != NIL {
            let e = self.e[p as usize];
            if e.r == cur {
                c += self.cnt(e.l) + u32::from(e.marked());
            }
            cur = p;
            p = e.p;
        }
        c
    }

    /// Marked nodes in the subtree of `n`, `n` included.
    pub fn marks_in(&self, n: NodeId) -> u32 {
        let Some(o) = self.open_of(n) else { return 0 };
        let c = o + 1;
        self.before(c) + u32::from(self.e[c as usize].marked()) - self.before(o)
    }

    /// Marked nodes in the whole tree holding `n`.
    pub fn marks_in_tree(&self, n: NodeId) -> u32 {
        self.cnt(self.root(self.open(n)))
    }

    /// The first marked node (in post-order) of the tree holding `n`.
    pub fn first_marked(&self, n: NodeId) -> Option<NodeId> {
        let mut x = self.root(self.open(n));
        if self.cnt(x) == 0 {
            return None;
        }
        loop {
            let e = self.e[x as usize];
            if self.cnt(e.l) > 0 {
                x = e.l;
            } else if e.marked() {
                return Some(self.node(x));
            } else {
                x = e.r;
            }
        }
    }

    /// The `k`-th marked node (from 0, in post-order) of the tree holding
    /// `n`, in `O(log size)`.
    pub fn nth_marked(&self, n: NodeId, mut k: u32) -> Option<NodeId> {
        let mut x = self.root(self.open(n));
        if k >= self.cnt(x) {
            return None;
        }
        loop {
            let e = self.e[x as usize];
            let left = self.cnt(e.l);
            if k < left {
                x = e.l;
                continue;
            }
            k -= left;
            if e.marked() {
                if k == 0 {
                    return Some(self.node(x));
                }
                k -= 1;
            }
            x = e.r;
        }
    }

    /// The marked nodes of `n`'s subtree, `n` included, as the range of
    /// their indices among the marked nodes of its tree (in post-order, so
    /// `n`'s own index, when it is marked, is the last): `O(log size)`.
    pub fn mark_span(&self, n: NodeId) -> std::ops::Range<u32> {
        let o = self.open(n);
        let c = o + 1;
        self.before(o)..self.before(c) + u32::from(self.e[c as usize].marked())
    }

    /// The root node of the tree holding `n`.
    pub fn tree_root(&self, n: NodeId) -> NodeId {
        let mut x = self.root(self.open(n));
        while self.e[x as usize].l != NIL {
            x = self.e[x as usize].l;
        }
        self.node(x)
    }

    /// The tour of the tree holding `n`, as (node, is_open) pairs in order
    /// (for invariant checks).
    pub fn sequence(&self, n: NodeId) -> Vec<(NodeId, bool)> {
        let mut out = Vec::new();
        let mut stack = Vec::new();
        let mut x = self.root(self.open(n));
        loop {
            while x != NIL {
                stack.push(x);
                x = self.e[x as usize].l;
            }
            let Some(y) = stack.pop() else { break };
            out.push((self.node(y), y % 2 == 0));
            x = self.e[y as usize].r;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A naive model: each tree a Vec of entries.
    fn seq(t: &Tour, n: u32) -> Vec<(u32, bool)> {
        t.sequence(NodeId(n)).into_iter().map(|(a, b)| (a.0, b)).collect()
    }

    #[test]
    fn relist_replace_cut_and_marks() {
        let mut t = Tour::default();
        for n in 0..8 {
            t.reset(NodeId(n));
        }
        // 0 ( 1 ( 3 4 ) 2 )
        t.relist(NodeId(1), &[NodeId(3), NodeId(4)]);
        t.relist(NodeId(0), &[NodeId(1), NodeId(2)]);
        assert_eq!(
            seq(&t, 4),
            vec![
                (0, true),
                (1, true),
                (3, true),
                (3, false),
                (4, true),
                (4, false),
                (1, false),
                (2, true),
                (2, false),
                (0, false)
            ]
        );
        t.mark(NodeId(4), true);
        t.mark(NodeId(2), true);
        assert_eq!(t.first_marked(NodeId(0)), Some(NodeId(4)));
        assert_eq!(t.marks_in(NodeId(1)), 1);
        assert_eq!(t.marks_in(NodeId(0)), 2);
        assert_eq!(t.marks_in(NodeId(3)), 0);
        // Replace 1 by 5 (with child 6).
        t.relist(NodeId(5), &[NodeId(6)]);
        t.replace(NodeId(1), NodeId(5));
        assert_eq!(
            seq(&t, 0),
            vec![
                (0, true),
                (5, true),
                (6, true),
                (6, false),
                (5, false),
                (2, true),
                (2, false),
                (0, false)
            ]
        );
        assert_eq!(t.first_marked(NodeId(0)), Some(NodeId(2)));
        assert_eq!(t.tree_root(NodeId(4)), NodeId(1));
        assert_eq!(t.tree_root(NodeId(6)), NodeId(0));
        t.cut(NodeId(2));
        assert_eq!(t.marks_in_tree(NodeId(0)), 0);
        assert_eq!(t.first_marked(NodeId(1)), Some(NodeId(4)));
        t.release(NodeId(1));
        assert_eq!(seq(&t, 3), vec![(3, true), (3, false), (4, true), (4, false)]);
    }

    #[test]
    fn build_gives_the_same_tour_as_relist() {
        let mut t = Tour::default();
        for n in 0..5 {
            t.reset(NodeId(n));
        }
        // 0 ( 1 ( 2 ) 3 ) ; 4 stays alone
        let order: Vec<(NodeId, bool)> = [
            (0, true),
            (1, true),
            (2, true),
            (2, false),
            (1, false),
            (3, true),
            (3, false),
            (0, false),
        ]
        .into_iter()
        .map(|(n, o)| (NodeId(n), o))
        .collect();
        t.build(&order);
        assert_eq!(seq(&t, 2), order.iter().map(|(n, o)| (n.0, *o)).collect::<Vec<_>>());
        t.mark(NodeId(2), true);
        assert_eq!(t.first_marked(NodeId(3)), Some(NodeId(2)));
        assert_eq!(t.marks_in(NodeId(1)), 1);
        assert_eq!(seq(&t, 4), vec![(4, true), (4, false)]);
    }

    /// Node `n` with `kids` as children, built in one go (fresh nodes).
    fn fan(t: &mut Tour, n: u32, kids: &[u32]) {
        let mut order = vec![(NodeId(n), true)];
        for &k in kids {
            order.push((NodeId(k), true));
            order.push((NodeId(k), false));
        }
        order.push((NodeId(n), false));
        for &(x, o) in &order {
            if o {
                t.reset(x);
            }
        }
        t.build(&order);
    }

    fn leaves(n: u32, kids: &[u32]) -> Vec<(u32, bool)> {
        let mut v = vec![(n, true)];
        for &k in kids {
            v.extend([(k, true), (k, false)]);
        }
        v.push((n, false));
        v
    }

    #[test]
    fn replace_by_a_tree_of_its_own() {
        let mut t = Tour::default();
        fan(&mut t, 0, &[1, 2, 3]);
        fan(&mut t, 10, &[11, 12]);
        t.mark(NodeId(12), true);
        t.mark(NodeId(3), true);
        // 10 is a detached tree: nothing to cut, it goes where 2 stood.
        t.replace(NodeId(2), NodeId(10));
        let mut want = vec![(0, true), (1, true), (1, false)];
        want.extend(leaves(10, &[11, 12]));
        want.extend([(3, true), (3, false), (0, false)]);
        assert_eq!(seq(&t, 0), want);
        assert_eq!(seq(&t, 2), vec![(2, true), (2, false)]);
        assert_eq!(t.first_marked(NodeId(0)), Some(NodeId(12)));
        assert_eq!(t.marks_in_tree(NodeId(1)), 2);
        assert_eq!(t.marks_in(NodeId(10)), 1);
        // A tree of its own again: cutting it changes nothing.
        t.cut(NodeId(2));
        assert_eq!(seq(&t, 2), vec![(2, true), (2, false)]);
        // Release of a lone pair.
        t.release(NodeId(2));
        assert_eq!(seq(&t, 0), want);
        // A subtree that is not a tree of its own is cut first: 10 takes
        // the place of 1, and 3 is left alone after it.
        t.replace(NodeId(1), NodeId(10));
        let mut want = vec![(0, true)];
        want.extend(leaves(10, &[11, 12]));
        want.extend([(3, true), (3, false), (0, false)]);
        assert_eq!(seq(&t, 3), want);
        assert_eq!(seq(&t, 1), vec![(1, true), (1, false)]);
        assert_eq!(t.first_marked(NodeId(3)), Some(NodeId(12)));
    }

    #[test]
    fn relist_into_empty_and_full_intervals() {
        let mut t = Tour::default();
        for n in 0..8 {
            t.reset(NodeId(n));
        }
        t.mark(NodeId(3), true);
        // A fresh node takes fresh children (nothing stood inside).
        t.relist(NodeId(0), &[NodeId(1), NodeId(2), NodeId(3)]);
        assert_eq!(seq(&t, 2), leaves(0, &[1, 2, 3]));
        assert_eq!(t.marks_in_tree(NodeId(0)), 1);
        // Reordered, one child dropped (left alone), one taken from
        // another tree.
        t.relist(NodeId(4), &[NodeId(5)]);
        t.relist(NodeId(0), &[NodeId(3), NodeId(5), NodeId(1)]);
        assert_eq!(seq(&t, 0), leaves(0, &[3, 5, 1]));
        assert_eq!(seq(&t, 2), vec![(2, true), (2, false)]);
        assert_eq!(seq(&t, 4), vec![(4, true), (4, false)]);
        assert_eq!(t.first_marked(NodeId(5)), Some(NodeId(3)));
        // Emptied, then filled again.
        t.relist(NodeId(0), &[]);
        assert_eq!(seq(&t, 0), vec![(0, true), (0, false)]);
        assert_eq!(t.marks_in_tree(NodeId(0)), 0);
        assert_eq!(t.first_marked(NodeId(3)), Some(NodeId(3)));
        t.relist(NodeId(0), &[NodeId(1), NodeId(3)]);
        assert_eq!(seq(&t, 0), leaves(0, &[1, 3]));
        // Release of a node with one child: the child stands alone.
        t.relist(NodeId(6), &[NodeId(0)]);
        t.release(NodeId(6));
        assert_eq!(seq(&t, 0), leaves(0, &[1, 3]));
        // Released with two children: its inside stays together.
        t.release(NodeId(0));
        assert_eq!(seq(&t, 3), vec![(1, true), (1, false), (3, true), (3, false)]);
        assert_eq!(t.marks_in_tree(NodeId(1)), 1);
    }

    #[test]
    fn priorities_are_distinct() {
        let mut p: Vec<u32> = (0..1u32 << 20).map(pri).collect();
        p.sort_unstable();
        p.dedup();
        assert_eq!(p.len(), 1 << 20);
    }

    #[test]
    fn a_deep_chain_stays_shallow_in_the_treap() {
        let mut t = Tour::default();
        let n = 100_000u32;
        for i in 0..n {
            t.reset(NodeId(i));
        }
        for i in (0..n - 1).rev() {
            t.relist(NodeId(i), &[NodeId(i + 1)]);
        }
        t.mark(NodeId(n - 1), true);
        assert_eq!(t.first_marked(NodeId(0)), Some(NodeId(n - 1)));
        assert_eq!(t.tree_root(NodeId(n - 1)), NodeId(0));
        assert_eq!(t.marks_in(NodeId(n / 2)), 1);
        // Treap depth is logarithmic, not linear.
        let mut depth = 0;
        let mut x = t.close(NodeId(n - 1));
        while t.e[x as usize].p != NIL {
            x = t.e[x as usize].p;
            depth += 1;
        }
        assert!(depth < 100, "treap depth {depth}");
    }
}

#[cfg(test)]
mod model_tests {
    //! The treap against a naive model (child lists, tours recomputed from
    //! them) under random operations, fast paths included.
    use super::*;

    /// The model: parent and children of each live node; `None`: released.
    struct Model {
        live: Vec<bool>,
        parent: Vec<Option<u32>>,
        kids: Vec<Vec<u32>>,
        marked: Vec<bool>,
    }

    impl Model {
        fn tour(&self, root: u32) -> Vec<(u32, bool)> {
            let mut out = Vec::new();
            let mut stack = vec![(root, false)];
            while let Some((n, closing)) = stack.pop() {
                out.push((n, !closing));
                if !closing {
                    stack.push((n, true));
                    stack.extend(self.kids[n as usize].iter().rev().map(|&k| (k, false)));
                }
            }
            out
        }

        fn inside(&self, n: u32, anc: u32) -> bool {
            let mut x = Some(n);
            while let Some(y) = x {
                if y == anc {
                    return true;
                }
                x = self.parent[y as usize];
            }
            false
        }

        fn detach(&mut self, n: u32) {
            if let Some(p) = self.parent[n as usize].take() {
                self.kids[p as usize].retain(|&k| k != n);
            }
        }
    }

    /// Heap order, parent links and counts of the treap at `x`.
    fn check_treap(t: &Tour, root: u32) {
        assert_eq!(t.e[root as usize].p, NIL);
        let mut stack = vec![root];
        let mut order = Vec::new();
        while let Some(x) = stack.pop() {
            order.push(x);
            let e = t.e[x as usize];
            for c in [e.l, e.r] {
                if c != NIL {
                    assert_eq!(t.e[c as usize].p, x, "parent link of {c}");
                    assert!(t.e[c as usize].pri <= e.pri, "heap order at {x}");
                    stack.push(c);
                }
            }
        }
        for &x in order.iter().rev() {
            let e = t.e[x as usize];
            assert_eq!(e.count(), t.cnt(e.l) + t.cnt(e.r) + u32::from(e.marked()), "count at {x}");
        }
    }

    /// The model test's choices, seeded.
    struct Rng(rand::rngs::StdRng);

    impl Rng {
        fn new(seed: u64) -> Rng {
            Rng(rand::SeedableRng::seed_from_u64(seed))
        }

        fn below(&mut self, n: u32) -> u32 {
            rand::RngExt::random_range(&mut self.0, 0..n)
        }
    }

    #[test]
    fn random_operations_match_the_model() {
        run_model(48, 40_000, 7);
    }

    #[test]
    fn random_operations_on_bigger_trees_match_the_model() {
        run_model(600, 6_000, 11);
    }

    /// `steps` random operations over `N` nodes, every live tree checked
    /// against the model after each.
    #[allow(non_snake_case)]
    fn run_model(N: u32, steps: u32, seed: u64) {
        let mut t = Tour::default();
        let mut m = Model {
            live: vec![true; N as usize],
            parent: vec![None; N as usize],
            kids: vec![Vec::new(); N as usize],
            marked: vec![false; N as usize],
        };
        // Last first: the blocks' entry blocks come in the reverse order of
        // the node blocks, so the mapping between them is not the identity.
        for n in (0..N).rev() {
            t.reset(NodeId(n));
        }
        let mut rng = Rng::new(seed);
        for step in 0..steps {
            let a = rng.below(N);
            let b = rng.below(N);
            match rng.below(10) {
                // Bring a released node back.
                _ if !m.live[a as usize] => {
                    t.reset(NodeId(a));
                    m.live[a as usize] = true;
                }
                0 | 1 if m.live[b as usize] && a != b && !m.inside(a, b) => {
                    // replace(a, b): b (cut) where a stands.
                    t.replace(NodeId(a), NodeId(b));
                    m.detach(b);
                    if let Some(p) = m.parent[a as usize].take() {
                        let i = m.kids[p as usize].iter().position(|&k| k == a).unwrap_or(0);
                        m.kids[p as usize][i] = b;
                        m.parent[b as usize] = Some(p);
                    }
                }
                2 => {
                    t.cut(NodeId(a));
                    m.detach(a);
                }
                3 | 4 => {
                    // relist(a, kids): some of a's children kept (in any
                    // order), others taken from outside a's tree; at most
                    // one child left out, which then stands alone.
                    let old = m.kids[a as usize].clone();
                    let mut kids: Vec<u32> = old.clone();
                    let mut left_out = None;
                    if !kids.is_empty() && rng.below(3) == 0 {
                        left_out = Some(kids.remove(rng.below(kids.len() as u32) as usize));
                    }
                    if kids.len() > 1 && rng.below(2) == 0 {
                        kids.reverse();
                    }
                    for _ in 0..rng.below(3) {
                        let k = rng.below(N);
                        // Kids are disjoint subtrees, none holding `a`.
                        let apart = kids.iter().all(|&j| !m.inside(k, j) && !m.inside(j, k));
                        if m.live[k as usize] && !m.inside(a, k) && apart && Some(k) != left_out {
                            let at = rng.below(kids.len() as u32 + 1) as usize;
                            kids.insert(at, k);
                        }
                    }
                    t.relist(NodeId(a), &kids.iter().map(|&k| NodeId(k)).collect::<Vec<_>>());
                    for &k in &kids {
                        m.detach(k);
                    }
                    if let Some(k) = left_out {
                        m.detach(k);
                    }
                    for &k in &kids {
                        m.parent[k as usize] = Some(a);
                    }
                    m.kids[a as usize] = kids;
                }
                5 if m.kids[a as usize].len() <= 1 => {
                    // release: its one child (if any) stands alone.
                    t.release(NodeId(a));
                    if let Some(&k) = m.kids[a as usize].first() {
                        m.parent[k as usize] = None;
                    }
                    m.kids[a as usize].clear();
                    m.detach(a);
                    m.live[a as usize] = false;
                    m.marked[a as usize] = false;
                }
                6 | 7 => {
                    let on = rng.below(2) == 0;
                    t.mark(NodeId(a), on);
                    m.marked[a as usize] = on;
                }
                8 if m.parent[a as usize].is_none() && m.kids[a as usize].is_empty() => {
                    // build a fresh chain-and-fan tree over released nodes
                    // made anew.
                    let fresh: Vec<u32> = (0..N).filter(|&k| !m.live[k as usize]).take(2 + N as usize / 8).collect();
                    if fresh.is_empty() {
                        continue;
                    }
                    for &k in &fresh {
                        t.reset(NodeId(k));
                        m.live[k as usize] = true;
                    }
                    m.kids[fresh[0] as usize] = fresh[1..].to_vec();
                    for &k in &fresh[1..] {
                        m.parent[k as usize] = Some(fresh[0]);
                    }
                    let order: Vec<(NodeId, bool)> = m.tour(fresh[0]).into_iter().map(|(n, o)| (NodeId(n), o)).collect();
                    t.build(&order);
                }
                9 if m.live[b as usize] && a != b && !m.inside(a, b) => {
                    // insert_after: b (cut) among a's children, after the
                    // one before its place (where a leaf stood).
                    m.detach(b);
                    let kids = &mut m.kids[a as usize];
                    let at = rng.below(kids.len() as u32 + 1) as usize;
                    let anchor = if at == 0 {
                        TourAnchor::Open(NodeId(a))
                    } else {
                        TourAnchor::Close(NodeId(kids[at - 1]))
                    };
                    kids.insert(at, b);
                    m.parent[b as usize] = Some(a);
                    t.insert_after(anchor, NodeId(b));
                }
                _ => continue,
            }
            // Every live tree's tour, counts and first mark.
            for n in 0..N {
                if !m.live[n as usize] || m.parent[n as usize].is_some() {
                    continue;
                }
                let tour = m.tour(n);
                assert_eq!(seq(&t, n), tour, "step {step}, tree of {n}");
                let root = t.root(t.open(NodeId(n)));
                check_treap(&t, root);
                let first = tour.iter().find(|&&(k, o)| !o && m.marked[k as usize]).map(|&(k, _)| NodeId(k));
                assert_eq!(t.first_marked(NodeId(n)), first, "step {step}");
                // Marks in each subtree, from prefix counts over the tour.
                let mut before = vec![0usize; N as usize];
                let mut upto = 0usize;
                for &(k, o) in &tour {
                    if o {
                        before[k as usize] = upto;
                    } else {
                        upto += usize::from(m.marked[k as usize]);
                        let sub = upto - before[k as usize];
                        assert_eq!(t.marks_in(NodeId(k)) as usize, sub, "step {step}, marks in {k}");
                        assert_eq!(t.tree_root(NodeId(k)), NodeId(n));
                        assert_eq!(t.marked(NodeId(k)), m.marked[k as usize]);
                    }
                }
                let total = tour.iter().filter(|&&(j, o)| !o && m.marked[j as usize]).count();
                assert_eq!(t.marks_in_tree(NodeId(n)) as usize, total);
            }
        }
    }

    fn seq(t: &Tour, n: u32) -> Vec<(u32, bool)> {
        t.sequence(NodeId(n)).into_iter().map(|(a, b)| (a.0, b)).collect()
    }
}
