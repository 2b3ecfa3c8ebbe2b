//! The memory budget of a process that runs programs: one number of bytes
//! that everything a program can grow counts against (graph nodes, the
//! values and frames of fast runs, the values expressions make, the terms
//! built for printing and the views), and a clean stop when it is spent.
//!
//! The machine does not measure memory itself: the binary installs a
//! counting allocator and hands its reading to [`set_gauge`], and sets the
//! budget with [`set_limit`]. Without a gauge (a library user, the unit
//! tests) nothing is checked.
//!
//! Two kinds of places check the budget:
//! - the run loops ([`crate::run::drive`], parallel rounds, fast runs at
//!   their clock) ask [`over`] between steps and stop with
//!   [`crate::run::StopReason::Memory`], a result like any other limit;
//! - the loops that can grow without bound inside one step (a node block
//!   of the graph, a deep copy of a term, a term built for printing) call
//!   [`check`], which unwinds with an [`Exhausted`] payload; [`catch`] at
//!   the boundary of a run turns it into the same result. The state such a
//!   run leaves is not used again: its term is not printed.
//!
//! An allocation that fails in the allocator still aborts the process, so
//! the budget is set below what the process may really use (the binary
//! leaves room for its stacks, its code and the allocator's own reserve).

use std::fmt;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

/// The binary's gauge: given bytes about to be allocated, what ran out if
/// they would not fit ([`set_gauge`]).
static GAUGE: OnceLock<fn(usize) -> Option<Exhausted>> = OnceLock::new();

/// The budget in bytes (`usize::MAX`: none).
static LIMIT: AtomicUsize = AtomicUsize::new(usize::MAX);

/// The largest stack a thread of the process is given ([`stack`]).
static STACK_CAP: AtomicUsize = AtomicUsize::new(usize::MAX);

/// The memory budget ran out: `allocated` bytes were in use, more than the
/// `limit`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exhausted {
    /// Bytes in use when the budget was found spent.
    pub allocated: usize,
    /// Bytes about to be allocated besides (a vector that doubles), or 0.
    pub asked: usize,
    /// The budget.
    pub limit: usize,
    /// Whether what ran out is the address space a `ulimit -v` allows (the
    /// program's memory with the stacks and the allocator's reserve),
    /// rather than the memory budget.
    pub space: bool,
}

impl Exhausted {
    /// The flag or setting that raises the limit that ran out.
    pub fn remedy(&self) -> &'static str {
        if self.space {
            "raise `ulimit -v`"
        } else {
            "raise it with --max-memory SIZE"
        }
    }
}

impl fmt::Display for Exhausted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = if self.space { "address space" } else { "memory" };
        write!(f, "{what} limit reached: {} in use", bytes(self.allocated))?;
        if self.asked > 0 {
            write!(f, " and {} more asked for", bytes(self.asked))?;
        }
        if self.space {
            write!(f, ", more than the {} that `ulimit -v` leaves", bytes(self.limit))
        } else {
            write!(f, ", more than the limit of {}", bytes(self.limit))
        }
    }
}

/// `n` bytes for people: `812 KB`, `3.1 MB`, `2.40 GB`.
pub fn bytes(n: usize) -> String {
    let x = n as f64;
    if x >= 1e9 {
        format!("{:.2} GB", x / 1e9)
    } else if x >= 1e6 {
        format!("{:.1} MB", x / 1e6)
    } else if x >= 1e3 {
        format!("{:.0} KB", x / 1e3)
    } else {
        format!("{n} bytes")
    }
}

/// Installs the gauge: a function that, given bytes about to be allocated
/// (0 for none), says what ran out if they would not fit: the memory
/// budget ([`limit`]) or the address space. Only the first call counts (a
/// process has one allocator).
pub fn set_gauge(gauge: fn(usize) -> Option<Exhausted>) {
    let _ = GAUGE.set(gauge);
}

/// Sets the budget in bytes (`None`: no budget).
pub fn set_limit(limit: Option<usize>) {
    LIMIT.store(limit.unwrap_or(usize::MAX), Ordering::Relaxed);
}

/// Caps the stack of every thread the machine and the binary start (a
/// stack is address space reserved whole: under `ulimit -v`, big stacks
/// would take what the program needs).
pub fn set_stack_cap(bytes: usize) {
    STACK_CAP.store(bytes, Ordering::Relaxed);
}

/// The stack to give a thread that would like `preferred` bytes.
pub fn stack(preferred: usize) -> usize {
    preferred.min(STACK_CAP.load(Ordering::Relaxed))
}

/// The budget in bytes, if there is one.
pub fn limit() -> Option<usize> {
    let l = LIMIT.load(Ordering::Relaxed);
    (l != usize::MAX).then_some(l)
}

/// The budget is spent: what is in use and the limit, or `None` while
/// there is room (or no gauge).
#[inline]
pub fn over() -> Option<Exhausted> {
    GAUGE.get().and_then(|g| g(0))
}

/// Unwinds with an [`Exhausted`] payload if the budget is spent. For loops
/// that can grow without bound inside one step; [`catch`] stops the unwind
/// at the boundary of the run.
#[inline]
pub fn check() {
    if let Some(e) = over() {
        std::panic::panic_any(e);
    }
}

/// Unwinds as [`check`] does if `extra` more bytes would not fit in the
/// budget: for a vector about to double, whose old and new buffers are
/// both alive while it moves.
#[inline]
pub fn check_room(extra: usize) {
    if let Some(e) = GAUGE.get().and_then(|g| g(extra)) {
        std::panic::panic_any(e);
    }
}

thread_local! {
    /// Turns of the growing loops on this thread since the last [`check`].
    static TURNS: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// One turn of a loop that builds a term or a value (a node, an element):
/// every 4096 turns on this thread, a [`check`]. The count is the
/// thread's, not the loop's, so that many short walks check as one long
/// one does.
#[inline]
pub fn tick() {
    let due = TURNS.with(|t| {
        let n = t.get().wrapping_add(1);
        t.set(n);
        n & 0xfff == 0
    });
    if due {
        check();
    }
}

/// Runs `f`; if the budget ran out inside it ([`check`]), the
/// [`Exhausted`] instead of its result. Other panics go on unwinding.
pub fn catch<T>(f: impl FnOnce() -> T) -> Result<T, Exhausted> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(v) => Ok(v),
        Err(payload) => match payload.downcast::<Exhausted>() {
            Ok(e) => Err(*e),
            Err(other) => resume_unwind(other),
        },
    }
}

/// Whether a panic payload is the budget running out (a panic hook keeps
/// quiet about those: they are results, reported where they are caught).
pub fn is_exhausted(payload: &(dyn std::any::Any + Send)) -> bool {
    payload.is::<Exhausted>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catch_returns_the_exhaustion_and_lets_other_panics_through() {
        let e = Exhausted {
            allocated: 10,
            asked: 0,
            limit: 5,
            space: false,
        };
        assert_eq!(catch(|| std::panic::panic_any(e)), Err::<(), _>(e));
        assert_eq!(catch(|| 7), Ok(7));
        let other = std::panic::catch_unwind(|| catch(|| panic!("a bug")));
        assert!(other.is_err(), "a panic that is not the budget unwinds on");
    }

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(bytes(512), "512 bytes");
        assert_eq!(bytes(812_000), "812 KB");
        assert_eq!(bytes(3_100_000), "3.1 MB");
        assert_eq!(bytes(2_400_000_000), "2.40 GB");
    }
}
