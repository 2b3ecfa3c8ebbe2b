//! What the last step did that a debugger can stop on: the named staging
//! variables it bound ("fired") and the bodies it left stuck. Cleared at the
//! start of every step; the run loop never reads them, so they cost a push
//! per named staging variable bound and a counter.

use crate::term::{VarId, Vars};

/// The events of the last step.
#[derive(Clone, Debug, Default)]
pub struct StepEvents {
    /// Named staging variables bound by the step (source variables: a copy
    /// of `pt` reports `pt`), with the truth of the value (`never` is
    /// false, anything else true), in binding order. A staging variable is
    /// a named staging parameter `[y]` or any variable that a staging
    /// expression mentioned when it was bound.
    pub fired: Vec<(VarId, bool)>,
    /// How many bodies turned stuck (or were made stuck, by a copy or an
    /// import) during the step.
    pub stuck: u32,
}

impl StepEvents {
    /// Forgets the previous step's events.
    pub fn clear(&mut self) {
        self.fired.clear();
        self.stuck = 0;
    }

    /// Notes that the source variable `origin` was bound to a value of truth
    /// `truth`, if it has a name.
    pub(crate) fn fire(&mut self, origin: VarId, truth: bool, vars: &Vars) {
        if vars.name(origin).is_some() {
            self.fired.push((origin, truth));
        }
    }
}
