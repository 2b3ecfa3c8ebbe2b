//! The signals that end the debugger while it holds the terminal: SIGTERM
//! (`kill`), SIGHUP (the terminal closed) and SIGINT sent from outside
//! (`kill -INT`; the binary's Ctrl-C handler leaves it to the debugger
//! meanwhile, see `ctrl_c::hold_terminal`). Their default action would
//! end the process on the alternate screen, in raw mode, with the cursor
//! hidden; instead a handler notes the signal ([`Signals::caught`]), the
//! event loop sees it within a poll, gives the terminal back as `q` does
//! and the debugger exits with 128 + the signal's number, as a shell
//! reports a process a signal ended. A second signal of either kind ends
//! the process at once (with that code), should the loop not answer.
//!
//! Ctrl-C is no signal here: in raw mode the terminal hands it over as a
//! key (see the key table). The handlers are registered once per process
//! (signal-hook) and stay: the debugger runs once per process.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

/// The process's flags: whether a watched signal arrived, and which.
struct Flags {
    any: Arc<AtomicBool>,
    which: Arc<AtomicUsize>,
}

static FLAGS: OnceLock<Result<Flags, String>> = OnceLock::new();

/// The thread that ends the process if the event loop does not, after a
/// signal (see [`Signals::watch`]).
static WATCHDOG: OnceLock<()> = OnceLock::new();

/// How often the watchdog looks at the flags.
const WATCH_EVERY: std::time::Duration = std::time::Duration::from_millis(50);

/// How long the event loop has to give the terminal back after a signal.
const GRACE: std::time::Duration = std::time::Duration::from_secs(2);

/// The watched signals, with their names.
#[cfg(unix)]
const WATCHED: [(i32, &str); 3] = [
    (signal_hook::consts::SIGTERM, "SIGTERM"),
    (signal_hook::consts::SIGHUP, "SIGHUP"),
    (signal_hook::consts::SIGINT, "SIGINT"),
];
#[cfg(not(unix))]
const WATCHED: [(i32, &str); 0] = [];

/// A termination signal that arrived.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Caught {
    /// Its number.
    pub number: i32,
}

impl Caught {
    /// Its name (`SIGTERM`).
    pub fn name(self) -> &'static str {
        WATCHED.iter().find(|(n, _)| *n == self.number).map_or("a signal", |(_, name)| name)
    }

    /// The exit code a shell gives a process it ended: 128 + its number.
    pub fn exit_code(self) -> u8 {
        u8::try_from(128 + self.number).unwrap_or(u8::MAX)
    }
}

/// The watch on the termination signals, for the event loop.
pub struct Signals {
    flags: &'static Flags,
}

impl Signals {
    /// Watches SIGTERM, SIGHUP and SIGINT from now on (nothing caught yet); an
    /// error if the handlers cannot be installed.
    pub fn watch() -> Result<Signals, String> {
        let flags = FLAGS.get_or_init(register).as_ref().map_err(Clone::clone)?;
        flags.any.store(false, Ordering::SeqCst);
        flags.which.store(0, Ordering::SeqCst);
        WATCHDOG.get_or_init(|| {
            // A hung-up terminal can keep the terminal library reading it
            // for ever (a read of 0 bytes, again and again), so that the
            // event loop never sees the signal: past a grace period, this
            // thread ends the process with the signal's code (there is no
            // terminal left to restore).
            let _ = std::thread::Builder::new()
                .name("deepcps-debug-signals".into())
                .spawn(move || loop {
                    std::thread::sleep(WATCH_EVERY);
                    if flags.any.load(Ordering::SeqCst) {
                        std::thread::sleep(GRACE);
                        let number = i32::try_from(flags.which.load(Ordering::SeqCst)).unwrap_or(0);
                        std::process::exit(i32::from(Caught { number }.exit_code()));
                    }
                });
        });
        Ok(Signals { flags })
    }

    /// The signal that arrived since [`Signals::watch`], if one did.
    pub fn caught(&self) -> Option<Caught> {
        if !self.flags.any.load(Ordering::SeqCst) {
            return None;
        }
        let number = i32::try_from(self.flags.which.load(Ordering::SeqCst)).unwrap_or(0);
        Some(Caught { number })
    }
}

/// Installs the handlers: for each signal, first the one that ends the
/// process if a signal was already noted (the second one), then the ones
/// that note it. Actions of one signal run in the order registered.
fn register() -> Result<Flags, String> {
    let flags = Flags {
        any: Arc::new(AtomicBool::new(false)),
        which: Arc::new(AtomicUsize::new(0)),
    };
    #[cfg(unix)]
    for (number, name) in WATCHED {
        let code = i32::from(Caught { number }.exit_code());
        let value = usize::try_from(number).unwrap_or(0);
        signal_hook::flag::register_conditional_shutdown(number, code, Arc::clone(&flags.any))
            .and_then(|_| signal_hook::flag::register_usize(number, Arc::clone(&flags.which), value))
            .and_then(|_| signal_hook::flag::register(number, Arc::clone(&flags.any)))
            .map_err(|e| format!("deepcps: cannot watch {name}: {e}"))?;
    }
    Ok(flags)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_and_names_are_a_shells() {
        let term = Caught {
            number: signal_hook::consts::SIGTERM,
        };
        assert_eq!((term.exit_code(), term.name()), (143, "SIGTERM"));
        let hup = Caught {
            number: signal_hook::consts::SIGHUP,
        };
        assert_eq!((hup.exit_code(), hup.name()), (129, "SIGHUP"));
    }

    /// The one test of this binary that raises a watched signal: a second
    /// one would end the process, by design.
    #[test]
    fn a_signal_is_noted_not_obeyed() {
        let s = Signals::watch().expect("the handlers install");
        assert_eq!(s.caught(), None);
        signal_hook::low_level::raise(signal_hook::consts::SIGHUP).expect("raised");
        assert_eq!(s.caught().map(Caught::name), Some("SIGHUP"));
    }
}
