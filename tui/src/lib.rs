//! The `deepcps` command line, as a library so tests can drive it in-process.
//!
//! - [`cli`]: argument parsing (clap) and the subcommands `run`, `check` and
//!   `fmt`, writing to the given streams and returning the exit code;
//! - [`views`]: `dot`, `chains` and `dump`, the graph views of a program's
//!   state;
//! - [`snaptest`]: `test`, the snapshot runner for corpora kept elsewhere.
//! - [`bench`]: `bench`, the batch runner (table, JSON, CSV, baseline, plot).
//!
//! Exit codes: 0 a result, 1 a runtime error, 2 a usage, parse or static
//! error, 3 a limit reached.

pub mod bench;
pub mod cli;
pub mod debug;
pub mod memory;
pub mod snaptest;
pub mod views;

pub use cli::main_with;
