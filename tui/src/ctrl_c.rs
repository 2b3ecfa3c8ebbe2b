//! What Ctrl-C does: the flag a reduction in progress reads to stop
//! ([`INTERRUPT`]), the guard that marks one in progress ([`Reducing`]), and
//! the binary's handler ([`interrupt`]), which otherwise ends the process.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::exit::EXIT_INTERRUPTED;

/// Set by the binary's Ctrl-C handler ([`interrupt`]); a run in progress
/// stops at its next clock check and reports the counts so far. Only the
/// binary sets it: in-process callers (tests) run in parallel threads.
pub static INTERRUPT: AtomicBool = AtomicBool::new(false);

/// Whether a reduction is in progress (one that reads [`INTERRUPT`]).
static REDUCING: AtomicBool = AtomicBool::new(false);

/// Whether the debugger holds the terminal: it watches SIGINT itself
/// (`debug/signals.rs`) and gives the terminal back before it exits, so
/// the handler leaves SIGINT to it.
static TERMINAL_HELD: AtomicBool = AtomicBool::new(false);

/// The debugger takes (`true`) or gives back (`false`) the terminal; while
/// it holds it, [`interrupt`] does nothing. (Ctrl-C pressed in the
/// debugger is a key, not a signal: only a SIGINT sent from outside, by
/// `kill -INT`, reaches the handler then.)
pub fn hold_terminal(on: bool) {
    TERMINAL_HELD.store(on, Ordering::SeqCst);
}

/// What Ctrl-C does (the binary's handler calls this): during a reduction
/// the first press asks it to stop (it reports the counts so far); a second
/// press, or a press at any other time, ends the process with
/// [`EXIT_INTERRUPTED`].
pub fn interrupt() {
    if TERMINAL_HELD.load(Ordering::SeqCst) {
        return;
    }
    if REDUCING.load(Ordering::Relaxed) && !INTERRUPT.swap(true, Ordering::Relaxed) {
        return;
    }
    let _ = writeln!(std::io::stderr(), "deepcps: interrupted");
    std::process::exit(i32::from(EXIT_INTERRUPTED));
}

/// A reduction in progress for [`interrupt`], from [`Reducing::start`] until
/// the guard is dropped: Ctrl-C then sets [`INTERRUPT`] instead of ending
/// the process.
pub struct Reducing(());

impl Reducing {
    /// Clears [`INTERRUPT`] and marks a reduction in progress.
    pub fn start() -> Reducing {
        INTERRUPT.store(false, Ordering::Relaxed);
        REDUCING.store(true, Ordering::Relaxed);
        Reducing(())
    }
}

impl Drop for Reducing {
    fn drop(&mut self) {
        REDUCING.store(false, Ordering::Relaxed);
    }
}
