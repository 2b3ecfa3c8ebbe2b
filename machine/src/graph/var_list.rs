//! [`VarList`]: a variable's list of occurrences, or of waiting bodies, in
//! 16 bytes.
//!
//! Every variable slot holds two such lists, and the 10^6-number builders
//! keep about 13 million variables live at their peak, so their size is
//! memory that shows: a `SmallVec<[NodeId; 4]>` takes 24 bytes. Counted at
//! that peak, nearly every list holds at most two entries (an occurrence
//! list one or two, a waiter list none or one), so two are kept inline and
//! longer lists go to the heap. `smallvec`'s inline capacity cannot buy
//! this size: its heap form is a pointer and a length beside the capacity.

use super::node::NodeId;

/// A short list of nodes: up to two inline, more on the heap.
#[derive(Clone, Debug)]
pub enum VarList {
    /// The first `len` (at most 2) of the array; the rest is filler.
    Inline(u8, [NodeId; 2]),
    /// Three or more (or fewer, after a [`VarList::retain`] that left more
    /// than two in place).
    Heap(Box<Vec<NodeId>>),
}

const _: () = assert!(std::mem::size_of::<VarList>() == 16);

impl Default for VarList {
    fn default() -> Self {
        VarList::new()
    }
}

impl VarList {
    /// The empty list.
    pub const fn new() -> VarList {
        VarList::Inline(0, [NodeId::NONE; 2])
    }

    /// Its entries.
    pub fn as_slice(&self) -> &[NodeId] {
        match self {
            VarList::Inline(len, xs) => &xs[..usize::from(*len)],
            VarList::Heap(v) => v,
        }
    }

    /// Its entries, mutably (to sort them).
    pub fn as_mut_slice(&mut self) -> &mut [NodeId] {
        match self {
            VarList::Inline(len, xs) => &mut xs[..usize::from(*len)],
            VarList::Heap(v) => v,
        }
    }

    /// Adds `n` at the end.
    pub fn push(&mut self, n: NodeId) {
        match self {
            VarList::Inline(len, xs) if usize::from(*len) < xs.len() => {
                xs[usize::from(*len)] = n;
                *len += 1;
            }
            VarList::Inline(_, [a, b]) => {
                let mut v = Vec::with_capacity(4);
                v.extend([*a, *b, n]);
                *self = VarList::Heap(Box::new(v));
            }
            VarList::Heap(v) => v.push(n),
        }
    }

    /// Keeps the entries for which `keep` holds, in order; a list left
    /// with two or fewer goes back inline.
    pub fn retain(&mut self, mut keep: impl FnMut(&NodeId) -> bool) {
        match self {
            VarList::Inline(len, xs) => {
                let mut kept = 0;
                for i in 0..usize::from(*len) {
                    if keep(&xs[i]) {
                        xs[kept] = xs[i];
                        kept += 1;
                    }
                }
                *len = kept as u8;
            }
            VarList::Heap(v) => {
                v.retain(keep);
                self.unspill();
            }
        }
    }

    /// Removes consecutive repeated entries (all repeats, once sorted).
    pub fn dedup(&mut self) {
        match self {
            VarList::Inline(len, [a, b]) => {
                if *len == 2 && a == b {
                    *len = 1;
                }
            }
            VarList::Heap(v) => {
                v.dedup();
                self.unspill();
            }
        }
    }

    /// Moves a heap list of two or fewer back inline.
    fn unspill(&mut self) {
        if let VarList::Heap(v) = self {
            if v.len() <= 2 {
                let mut inline = VarList::new();
                v.iter().for_each(|&x| inline.push(x));
                *self = inline;
            }
        }
    }
}

impl std::ops::Deref for VarList {
    type Target = [NodeId];

    fn deref(&self) -> &[NodeId] {
        self.as_slice()
    }
}

impl std::ops::DerefMut for VarList {
    fn deref_mut(&mut self) -> &mut [NodeId] {
        self.as_mut_slice()
    }
}

impl<'a> IntoIterator for &'a VarList {
    type Item = &'a NodeId;
    type IntoIter = std::slice::Iter<'a, NodeId>;

    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(xs: &[u32]) -> Vec<NodeId> {
        xs.iter().map(|&x| NodeId(x)).collect()
    }

    fn list(xs: &[u32]) -> VarList {
        let mut l = VarList::new();
        ids(xs).into_iter().for_each(|x| l.push(x));
        l
    }

    #[test]
    fn pushes_spill_to_the_heap_after_two() {
        for n in 0..7u32 {
            let xs: Vec<u32> = (10..10 + n).collect();
            let l = list(&xs);
            assert_eq!(l.as_slice(), &ids(&xs)[..], "{n} pushes");
            assert_eq!(matches!(l, VarList::Inline(..)), n <= 2, "{n} pushes");
        }
    }

    #[test]
    fn retain_keeps_order_and_comes_back_inline() {
        let mut l = list(&[1, 2, 3, 4, 5]);
        l.retain(|x| x.0 % 2 == 1);
        assert_eq!(l.as_slice(), &ids(&[1, 3, 5])[..]);
        assert!(matches!(l, VarList::Heap(_)));
        l.retain(|x| x.0 != 3);
        assert_eq!(l.as_slice(), &ids(&[1, 5])[..]);
        assert!(matches!(l, VarList::Inline(2, _)));
        l.retain(|x| x.0 == 5);
        assert_eq!(l.as_slice(), &ids(&[5])[..]);
    }

    #[test]
    fn sort_and_dedup_leave_each_entry_once() {
        for xs in [&[][..], &[4], &[4, 4], &[3, 1, 3, 2, 1, 3], &[7, 7, 7, 7]] {
            let mut l = list(xs);
            l.sort_unstable();
            l.dedup();
            let mut want = xs.to_vec();
            want.sort_unstable();
            want.dedup();
            assert_eq!(l.as_slice(), &ids(&want)[..], "{xs:?}");
        }
    }
}
