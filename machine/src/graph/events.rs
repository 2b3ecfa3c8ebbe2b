//! What the last step did that a debugger can stop on: the named staging
//! variables it bound (to a value: they fire; to another, still symbolic
//! variable: the chain is handed on) and the bodies it left stuck. Cleared at the
//! start of every step; the run loop never reads them, so they cost a push
//! per named staging variable bound and per body turned stuck.

use super::node::NodeId;
use crate::term::{VarId, VarKind, Vars};

/// What a staging variable was bound to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Binding {
    /// A value: it fires, true for anything but `never`.
    Value(bool),
    /// Another variable (a source variable), still symbolic: the bodies
    /// staged on the first now wait on it.
    Var(VarId),
}

/// The events of the last step.
#[derive(Clone, Debug, Default)]
pub struct StepEvents {
    /// Named staging variables bound by the step (source variables: a copy
    /// of `pt` reports `pt`), with what they were bound to, in binding
    /// order. A staging variable is a named staging parameter `[y]` or any
    /// variable that a staging expression mentioned when it was bound.
    pub bound: Vec<(VarId, Binding)>,
    /// The bodies that turned stuck (or were made stuck, by a copy or an
    /// import) during the step, in that order. Some of them may be stuck
    /// only for a moment (a copy whose parameters the same step binds) or
    /// gone by the end of the step: [`crate::graph::Machine::stuck_body`]
    /// says which still are.
    pub stuck: Vec<NodeId>,
}

impl StepEvents {
    /// Forgets the previous step's events.
    pub fn clear(&mut self) {
        self.bound.clear();
        self.stuck.clear();
    }

    /// Notes that the source variable `origin` was bound to `to`, if it is
    /// a named staging variable: `staged` says whether a staging expression
    /// mentioned it; a staging parameter `[y]` is one anyway.
    pub(crate) fn bind(&mut self, origin: VarId, to: Binding, staged: bool, vars: &Vars) {
        let info = vars.info(origin);
        if info.name.is_some() && (staged || info.kind == VarKind::Stage) {
            self.bound.push((origin, to));
        }
    }
}
