//! Breakpoints of a debugging session, and the stop a run reports.

use std::fmt;

use crate::span::FileId;

/// Where a run stops.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Breakpoint {
    /// After a step that binds a staging variable of this source name (the
    /// paper's `pt`, `ct`, or any named staging parameter): to a value (it
    /// fires) or to another staging variable (the chain is handed on).
    Fire(String),
    /// Before a step executing a body whose source starts on this line.
    Line {
        /// The file.
        file: FileId,
        /// Byte range of the line in the file.
        start: u32,
        /// One past the line's last byte.
        end: u32,
        /// How the user wrote it (`file.dcps:12`).
        label: String,
    },
    /// After a step that leaves a body stuck.
    Stuck,
    /// Before `$exit` executes.
    Exit,
    /// Before a step that fails with a runtime error.
    Error,
    /// When the step count reaches this number.
    Step(u64),
}

impl Breakpoint {
    /// Whether it is checked before a step (it needs to know the next
    /// body); the others are checked after one.
    pub fn before_step(&self) -> bool {
        matches!(
            self,
            Breakpoint::Line { .. } | Breakpoint::Exit | Breakpoint::Error | Breakpoint::Step(_)
        )
    }
}

impl fmt::Display for Breakpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Breakpoint::Fire(name) => write!(f, "{name} is bound"),
            Breakpoint::Line { label, .. } => write!(f, "line {label}"),
            Breakpoint::Stuck => write!(f, "a body turns stuck"),
            Breakpoint::Exit => write!(f, "$exit"),
            Breakpoint::Error => write!(f, "a runtime error"),
            Breakpoint::Step(n) => write!(f, "step {n}"),
        }
    }
}

/// A breakpoint in the session's list, which can be turned off without
/// losing its place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The breakpoint.
    pub at: Breakpoint,
    /// Whether it stops runs.
    pub enabled: bool,
    /// How often it has stopped a run.
    pub hits: u64,
}

/// Why a run ([`super::Session::run`]) returned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// A breakpoint (index into the list) stopped it.
    Breakpoint(usize),
    /// The steps it was given are done.
    Budget,
    /// Its time slice is over (a background run goes on after a redraw).
    Slice,
    /// The focused subtree holds no pending body any more (`n`).
    SubtreeDone,
    /// The run is over: see [`super::Session::end`].
    Ended,
}
