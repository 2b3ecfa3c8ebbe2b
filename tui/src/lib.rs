//! The `deepcps` command line, as a library so tests can drive it in-process.
//!
//! - [`cli`]: argument parsing (clap) and [`main_with`], which hands each
//!   subcommand to the module that carries it out;
//! - [`commands`]: `run`, `check` and `fmt`, and the checks `debug` makes
//!   before it takes the terminal;
//! - [`views`]: `dot`, `chains` and `dump`, the graph views of a program's
//!   state;
//! - [`snaptest`]: `test`, the snapshot runner for corpora kept elsewhere;
//! - [`bench`](mod@bench): `bench`, the batch runner (table, JSON, CSV, baseline, plot);
//! - [`compile`](mod@compile): `compile`, a program's run-time part as C or
//!   an executable;
//! - [`debug`]: `debug`, the terminal debugger;
//! - [`lang`]: `--lang DIR`, inputs of a language built into programs.
//!
//! Nothing but this file imports [`cli`].
//!
//! Shared by the commands: [`exit`] (the exit codes), [`args`] (parsers of
//! argument values, the `--threads` builder), [`ctrl_c`] (what Ctrl-C
//! does), [`memory`] (the default node limits), [`judge`] (a run against
//! its `// expect:` directive, for `bench` and `test`), [`text`] (wording).
//!
//! Exit codes: 0 a result, 1 a runtime error, 2 a usage, parse or static
//! error, 3 a limit reached, 130 an interrupt.

pub mod args;
pub mod bench;
pub mod cli;
pub mod commands;
pub mod compile;
pub mod ctrl_c;
pub mod debug;
pub mod exit;
pub mod judge;
pub mod lang;
pub mod memory;
pub mod snaptest;
pub mod text;
pub mod views;

pub use cli::{main_with, main_with_input};
