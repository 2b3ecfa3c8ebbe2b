//! A table indexed by variable id that empties in `O(1)`: each slot is
//! stamped with the walk that wrote it, and a new walk takes a new stamp.
//! The closedness walk's binder depths are such a table (a template is
//! classified once, but a walk looks up every variable occurrence in it).
//! The copy's renames need none: they live in the variable slots.

use super::node::GVar;

/// Values of type `T` for some variables, valid for the current walk only.
#[derive(Clone)]
pub(crate) struct Stamped<T> {
    /// The value of variable `v`, valid where `stamp[v] == epoch`.
    vals: Vec<T>,
    stamp: Vec<u32>,
    /// The current walk's stamp (never 0 once a walk has begun).
    epoch: u32,
}

impl<T> Default for Stamped<T> {
    fn default() -> Self {
        Stamped {
            vals: Vec::new(),
            stamp: Vec::new(),
            epoch: 0,
        }
    }
}

impl<T: Copy> Stamped<T> {
    /// Forgets every value of the previous walk.
    pub(crate) fn begin(&mut self) {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.stamp.fill(0);
            self.epoch = 1;
        }
    }

    /// Sets the value of `v` for this walk.
    pub(crate) fn set(&mut self, v: GVar, x: T) {
        let i = v.0 as usize;
        if i >= self.vals.len() {
            // Filler values are never read: their stamps are stale.
            self.vals.resize(i + 1, x);
            self.stamp.resize(i + 1, 0);
        }
        self.vals[i] = x;
        self.stamp[i] = self.epoch;
    }

    /// The value of `v` set in this walk, if any.
    pub(crate) fn get(&self, v: GVar) -> Option<T> {
        let i = v.0 as usize;
        (self.stamp.get(i) == Some(&self.epoch)).then(|| self.vals[i])
    }
}
