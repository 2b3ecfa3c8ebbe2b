//! The exit codes of every `deepcps` command: 0 a result, 1 a runtime
//! error, 2 a usage, parse or static error, 3 a limit reached, 130 an
//! interrupt (Ctrl-C); and 128 + a signal's number when SIGTERM or SIGHUP
//! ends the debugger (`debug::signals`).

/// Exit code: a result was printed.
pub const EXIT_OK: u8 = 0;
/// Exit code: a runtime error stopped the program.
pub const EXIT_RUNTIME: u8 = 1;
/// Exit code: usage, parse or static error.
pub const EXIT_STATIC: u8 = 2;
/// Exit code: a limit was reached.
pub const EXIT_LIMIT: u8 = 3;

/// Exit code: the user interrupted the run (Ctrl-C), as shells report SIGINT.
pub const EXIT_INTERRUPTED: u8 = 130;
