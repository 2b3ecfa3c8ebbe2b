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
//! of the program built so far, that is quadratic (ARCHITECTURE.md).
//!
//! Entries are indexed `2n` (open) and `2n+1` (close) for `n = NodeId`.
//! Everything here is iterative.

use super::node::NodeId;

const NIL: u32 = u32::MAX;

/// One entry of the tour: a treap node.
#[derive(Clone, Copy, Debug)]
struct Entry {
    /// Left child, right child and parent in the treap (`NIL`: none).
    l: u32,
    r: u32,
    p: u32,
    /// Marked entries in this treap subtree (the entry itself included).
    cnt: u32,
    /// Whether this entry is marked (only `close` entries of pending bodies).
    mark: bool,
}

const EMPTY: Entry = Entry {
    l: NIL,
    r: NIL,
    p: NIL,
    cnt: 0,
    mark: false,
};

/// The Euler tours of all trees of a graph, one treap per tree.
#[derive(Default, Debug, Clone)]
pub struct Tour {
    e: Vec<Entry>,
}

fn open(n: NodeId) -> u32 {
    n.0 * 2
}

fn close(n: NodeId) -> u32 {
    n.0 * 2 + 1
}

/// A fixed pseudo-random priority per entry (a hash of its index), so runs
/// are deterministic.
fn pri(x: u32) -> u32 {
    let mut z = u64::from(x).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (z ^ (z >> 31)) as u32
}

impl Tour {
    fn cnt(&self, x: u32) -> u32 {
        if x == NIL {
            0
        } else {
            self.e[x as usize].cnt
        }
    }

    fn update(&mut self, x: u32) {
        let e = self.e[x as usize];
        self.e[x as usize].cnt = self.cnt(e.l) + self.cnt(e.r) + u32::from(e.mark);
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

    /// Makes node `n` a tree of its own with no children: `open(n) close(n)`.
    /// The caller makes sure no other treap links to its entries (see
    /// [`Tour::release`]).
    pub fn reset(&mut self, n: NodeId) {
        let need = close(n) as usize + 1;
        if self.e.len() < need {
            self.e.resize(need, EMPTY);
        }
        let (o, c) = (open(n), close(n));
        self.e[o as usize] = EMPTY;
        self.e[c as usize] = EMPTY;
        if pri(o) > pri(c) {
            self.e[o as usize].r = c;
            self.e[c as usize].p = o;
        } else {
            self.e[c as usize].l = o;
            self.e[o as usize].p = c;
        }
    }

    /// Concatenates two treaps (`a` before `b`); returns the root.
    fn merge(&mut self, a: u32, b: u32) -> u32 {
        if a == NIL {
            return b;
        }
        if b == NIL {
            return a;
        }
        let (mut a, mut b) = (a, b);
        let mut root = NIL;
        // Where the next winner goes: under `parent`, on the right if `right`.
        let mut parent = NIL;
        let mut right = false;
        let attach = |t: &mut Tour, parent: u32, right: bool, x: u32, root: &mut u32| {
            if parent == NIL {
                *root = x;
            } else if right {
                t.e[parent as usize].r = x;
            } else {
                t.e[parent as usize].l = x;
            }
            t.set_p(x, parent);
        };
        loop {
            if a == NIL {
                attach(self, parent, right, b, &mut root);
                break;
            }
            if b == NIL {
                attach(self, parent, right, a, &mut root);
                break;
            }
            if pri(a) > pri(b) {
                attach(self, parent, right, a, &mut root);
                parent = a;
                right = true;
                a = self.e[a as usize].r;
            } else {
                attach(self, parent, right, b, &mut root);
                parent = b;
                right = false;
                b = self.e[b as usize].l;
            }
        }
        // The counts changed along the path from `parent` up.
        let mut x = parent;
        while x != NIL {
            self.update(x);
            x = self.e[x as usize].p;
        }
        root
    }

    /// Splits the treap holding `x` into the entries before `x` and those
    /// from `x` on (`after = false`), or up to `x` and after it
    /// (`after = true`). Returns the two roots.
    fn split(&mut self, x: u32, after: bool) -> (u32, u32) {
        let xi = x as usize;
        let (mut l, mut r);
        if after {
            r = self.e[xi].r;
            self.set_p(r, NIL);
            self.e[xi].r = NIL;
            l = x;
        } else {
            l = self.e[xi].l;
            self.set_p(l, NIL);
            self.e[xi].l = NIL;
            r = x;
        }
        self.update(x);
        let mut cur = x;
        let mut p = self.e[xi].p;
        self.e[xi].p = NIL;
        while p != NIL {
            let pi = p as usize;
            let pp = self.e[pi].p;
            if self.e[pi].r == cur {
                // p comes before cur: it takes the left part on its right.
                self.e[pi].r = l;
                self.set_p(l, p);
                l = p;
            } else {
                self.e[pi].l = r;
                self.set_p(r, p);
                r = p;
            }
            self.update(p);
            self.e[pi].p = NIL;
            cur = p;
            p = pp;
        }
        (l, r)
    }

    /// Cuts the interval of node `n` out of the tree it is in; `n`'s tour
    /// becomes a treap of its own (the rest closes up).
    pub fn cut(&mut self, n: NodeId) {
        let (a, _) = self.split(open(n), false);
        let (_, c) = self.split(close(n), true);
        self.merge(a, c);
    }

    /// Puts the tour of `new` (cut from wherever it is) where the tour of
    /// `old` stands; `old`'s tour becomes a treap of its own.
    pub fn replace(&mut self, old: NodeId, new: NodeId) {
        self.cut(new);
        let m = self.root(open(new));
        let (a, _) = self.split(open(old), false);
        let (_, c) = self.split(close(old), true);
        let am = self.merge(a, m);
        self.merge(am, c);
    }

    /// Puts the tours of `kids` (each cut from wherever it is), in order,
    /// between `open(n)` and `close(n)`. Whatever stood there before is cut
    /// out and left as a treap of its own.
    pub fn relist(&mut self, n: NodeId, kids: &[NodeId]) {
        let mut seq = NIL;
        for &k in kids {
            self.cut(k);
            let m = self.root(open(k));
            seq = self.merge(seq, m);
        }
        let (a, _) = self.split(open(n), true);
        let (_inner, c) = self.split(close(n), false);
        let a = self.merge(a, seq);
        self.merge(a, c);
    }

    /// Takes node `n`'s own entries out of every treap (its interval's
    /// inside, if anything is left there, stays together on its own), so
    /// they can be reused.
    pub fn release(&mut self, n: NodeId) {
        self.cut(n);
        let (_, rest) = self.split(open(n), true);
        if rest != NIL {
            self.split(close(n), false);
        }
        self.e[open(n) as usize] = EMPTY;
        self.e[close(n) as usize] = EMPTY;
    }

    /// Makes the fresh, unmarked nodes of `order` (a tour: node and whether
    /// it is the `open` entry) one treap, in linear time (a Cartesian tree
    /// built along its right spine). The nodes must not be in any other
    /// tree.
    pub fn build(&mut self, order: &[(NodeId, bool)]) {
        let mut spine: Vec<u32> = Vec::new();
        for &(n, is_open) in order {
            let x = if is_open { open(n) } else { close(n) };
            self.e[x as usize] = EMPTY;
            let mut last = NIL;
            while let Some(&t) = spine.last() {
                if pri(t) < pri(x) {
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
    }

    /// Forgets node `n`'s entries without unlinking them: only for a node
    /// of a tree that is freed whole (cut out first), whose entries all go.
    pub fn forget(&mut self, n: NodeId) {
        self.e[open(n) as usize] = EMPTY;
        self.e[close(n) as usize] = EMPTY;
    }

    /// Marks or unmarks node `n` (a pending body).
    pub fn mark(&mut self, n: NodeId, on: bool) {
        let x = close(n);
        if self.e[x as usize].mark == on {
            return;
        }
        self.e[x as usize].mark = on;
        let mut y = x;
        while y != NIL {
            self.update(y);
            y = self.e[y as usize].p;
        }
    }

    /// Whether node `n` is marked.
    pub fn marked(&self, n: NodeId) -> bool {
        self.e.get(close(n) as usize).is_some_and(|e| e.mark)
    }

    /// Marked entries strictly before `x` in its treap.
    fn before(&self, x: u32) -> u32 {
        let mut c = self.cnt(self.e[x as usize].l);
        let mut cur = x;
        let mut p = self.e[x as usize].p;
        while p != NIL {
            let e = self.e[p as usize];
            if e.r == cur {
                c += self.cnt(e.l) + u32::from(e.mark);
            }
            cur = p;
            p = e.p;
        }
        c
    }

    /// Marked nodes in the subtree of `n`, `n` included.
    pub fn marks_in(&self, n: NodeId) -> u32 {
        let c = close(n);
        self.before(c) + u32::from(self.e[c as usize].mark) - self.before(open(n))
    }

    /// Marked nodes in the whole tree holding `n`.
    pub fn marks_in_tree(&self, n: NodeId) -> u32 {
        self.cnt(self.root(open(n)))
    }

    /// The first marked node (in post-order) of the tree holding `n`.
    pub fn first_marked(&self, n: NodeId) -> Option<NodeId> {
        let mut x = self.root(open(n));
        if self.cnt(x) == 0 {
            return None;
        }
        loop {
            let e = self.e[x as usize];
            if self.cnt(e.l) > 0 {
                x = e.l;
            } else if e.mark {
                return Some(NodeId(x / 2));
            } else {
                x = e.r;
            }
        }
    }

    /// The root node of the tree holding `n`.
    pub fn tree_root(&self, n: NodeId) -> NodeId {
        let mut x = self.root(open(n));
        while self.e[x as usize].l != NIL {
            x = self.e[x as usize].l;
        }
        NodeId(x / 2)
    }

    /// The tour of the tree holding `n`, as (node, is_open) pairs in order
    /// (for invariant checks).
    pub fn sequence(&self, n: NodeId) -> Vec<(NodeId, bool)> {
        let mut out = Vec::new();
        let mut stack = Vec::new();
        let mut x = self.root(open(n));
        loop {
            while x != NIL {
                stack.push(x);
                x = self.e[x as usize].l;
            }
            let Some(y) = stack.pop() else { break };
            out.push((NodeId(y / 2), y % 2 == 0));
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
        let mut x = close(NodeId(n - 1));
        while t.e[x as usize].p != NIL {
            x = t.e[x as usize].p;
            depth += 1;
        }
        assert!(depth < 100, "treap depth {depth}");
    }
}
