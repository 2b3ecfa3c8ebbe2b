//! [`Chunked`]: a growable array in fixed-size chunks, for the store's
//! nodes and slots.
//!
//! A `Vec` that doubles copies everything it holds and, for a moment,
//! holds it twice: on the builders the store's growth was a fifth of the
//! run (the copies, and the kernel clearing pages touched twice). Chunks
//! never move: growing allocates one chunk, and a page is touched once.

use std::ops::{Index, IndexMut};

/// Entries per chunk (a power of two).
const SHIFT: usize = 14;
const CHUNK: usize = 1 << SHIFT;
const MASK: usize = CHUNK - 1;

/// An array of `T` in chunks of [`CHUNK`] entries.
///
/// Invariant: entries `0..len` are the array; the chunks hold
/// `len.div_ceil(CHUNK)` chunks, the last one's tail beyond `len` filled
/// with copies of an entry (a chunk is an array, so that indexing within
/// it needs no bounds check).
pub struct Chunked<T> {
    chunks: Vec<Box<[T; CHUNK]>>,
    len: usize,
}

impl<T> Default for Chunked<T> {
    fn default() -> Self {
        Chunked {
            chunks: Vec::new(),
            len: 0,
        }
    }
}

impl<T: Clone> Chunked<T> {
    /// The number of entries.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Adds `x` at index `len()`.
    pub fn push(&mut self, x: T) {
        let i = self.len;
        if i & MASK == 0 {
            let chunk: Box<[T]> = vec![x; CHUNK].into_boxed_slice();
            match chunk.try_into() {
                Ok(chunk) => self.chunks.push(chunk),
                Err(_) => unreachable!("a chunk has CHUNK entries"),
            }
        } else {
            self.chunks[i >> SHIFT][i & MASK] = x;
        }
        self.len += 1;
        debug_assert_eq!(self.chunks.len(), self.len.div_ceil(CHUNK));
    }

    /// The entries in index order.
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.chunks.iter().flat_map(|c| c.iter()).take(self.len)
    }
}

impl<T> Index<usize> for Chunked<T> {
    type Output = T;

    #[inline]
    fn index(&self, i: usize) -> &T {
        debug_assert!(i < self.len, "index {i} beyond {}", self.len);
        &self.chunks[i >> SHIFT][i & MASK]
    }
}

impl<T> IndexMut<usize> for Chunked<T> {
    #[inline]
    fn index_mut(&mut self, i: usize) -> &mut T {
        debug_assert!(i < self.len, "index {i} beyond {}", self.len);
        &mut self.chunks[i >> SHIFT][i & MASK]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indexes_across_chunks() {
        let mut a = Chunked::default();
        for i in 0..(2 * CHUNK + 5) {
            a.push(i);
        }
        assert_eq!(a.len(), 2 * CHUNK + 5);
        assert_eq!(a[CHUNK - 1], CHUNK - 1);
        assert_eq!(a[CHUNK], CHUNK);
        a[2 * CHUNK + 4] = 7;
        assert_eq!(a[2 * CHUNK + 4], 7);
        assert_eq!(a.iter().count(), a.len());
        assert!(a.iter().enumerate().all(|(i, &x)| x == i || i == 2 * CHUNK + 4));
    }
}
