//! Call sites of runtime errors: for every body a β produced, the source of
//! the application whose β produced it, and that application's own call
//! site in turn, so that an error inside a function can say where the
//! function was called.
//!
//! Recording costs a hash-map update per step, so ordinary runs never do
//! it: when a run ends in a runtime error, [`trace`] runs the program again
//! on the sequential machine (no fast runs) with recording on, up to the
//! same step, and reads the chain of the failing body. The machines are
//! deterministic and agree step for step, so the traced run fails where the
//! first one did, whichever machine and thread count that was.

use rustc_hash::FxHashMap;

use super::node::NodeId;
use super::Machine;
use crate::error::RuntimeError;
use crate::run::Rule;
use crate::run::{Limits, Outcome};
use crate::span::Span;
use crate::term::Program;

/// Runs longer than this many steps are not traced again (the trace would
/// double the time of a long run and keep a record per step).
pub const MAX_TRACED_STEPS: u64 = 5_000_000;

const NO_FRAME: u32 = u32::MAX;

/// The record of call sites kept by a machine while tracing.
#[derive(Clone, Debug, Default)]
pub struct CallTrack {
    /// Each β executed: the source of the application and the frame of
    /// that application's own body.
    frames: Vec<(Span, u32)>,
    /// The frame of each body produced by a β, with the body's span (a
    /// slot freed and reused for another body is not mistaken for it).
    of_body: FxHashMap<NodeId, (u32, Span)>,
}

impl CallTrack {
    /// Notes that the body `b` (source `span`) executed `rule` and that
    /// `new` (with source `new_span`) now stands in its place.
    pub(crate) fn stepped(&mut self, b: NodeId, span: Span, rule: Rule, new: Option<(NodeId, Span)>) {
        let parent = match self.of_body.remove(&b) {
            Some((f, s)) if s == span => f,
            _ => NO_FRAME,
        };
        let Some((new, new_span)) = new else { return };
        let frame = match rule {
            // Not calls: `fix` and `if` continue in the same frame.
            Rule::Fix | Rule::If => parent,
            Rule::Beta | Rule::Expr | Rule::Exit => {
                let Ok(i) = u32::try_from(self.frames.len()) else { return };
                self.frames.push((span, parent));
                i
            }
        };
        if frame != NO_FRAME {
            self.of_body.insert(new, (frame, new_span));
        }
    }

    /// The call sites that led to the body `b` (source `span`), innermost
    /// first: every β in the chain, including those of `let` and of
    /// continuations.
    pub(crate) fn chain(&self, b: NodeId, span: Span) -> Vec<Span> {
        let mut out = Vec::new();
        let mut f = match self.of_body.get(&b) {
            Some(&(f, s)) if s == span => f,
            _ => NO_FRAME,
        };
        while let Some(&(site, parent)) = self.frames.get(f as usize) {
            out.push(site);
            f = parent;
        }
        out
    }
}

/// Runs `program` again on the sequential machine with call sites recorded,
/// for at most `steps + 1` steps, and returns the runtime error it stops
/// with, its [`RuntimeError::calls`] filled in. `None` past
/// [`MAX_TRACED_STEPS`] or if the run does not fail.
pub fn trace(program: Program, steps: u64) -> Option<RuntimeError> {
    if steps > MAX_TRACED_STEPS {
        return None;
    }
    let mut m = Machine::new(program);
    m.fast = false;
    m.calls = Some(Box::default());
    let limits = Limits {
        max_steps: steps + 1,
        ..Limits::default()
    };
    match m.run(&limits) {
        Outcome::Error(e) => Some(e),
        _ => None,
    }
}

/// Fills in the call sites of `e`, the error a run of `program` stopped
/// with after `steps` steps (on any machine), by [`trace`]; leaves `e` as
/// it is if the traced run does not fail in the same body.
pub fn add_calls(e: &mut RuntimeError, program: Program, steps: u64) {
    if let Some(t) = trace(program, steps) {
        if t.kind == e.kind && t.body == e.body {
            e.calls = t.calls;
        }
    }
}

impl Machine {
    /// The call sites of the body `b`, if calls are recorded.
    pub(crate) fn calls_of(&self, b: NodeId) -> Vec<Span> {
        match (&self.calls, self.g.body(b)) {
            (Some(t), Some(body)) => t.chain(b, body.span),
            _ => Vec::new(),
        }
    }
}
