//! deepcps-machine: the DeepCPS language and its machines.
//!
//! Code map (see `ARCHITECTURE.md` at the repository root):
//! - [`span`], [`diag`]: source files, spans and diagnostics;
//! - [`syntax`]: lexer, parser, includes and name resolution, producing a
//!   [`term::Program`];
//! - [`term`]: the core terms of LANGUAGE.md §3;
//! - [`expr`]: the expression language of §8;
//! - [`reference`](mod@reference): the reference reducer (substitution semantics, §4–5), the
//!   oracle every other machine is tested against;
//! - [`print`](mod@print): canonical printing (§6).
//!
//! This crate does no terminal IO.

mod clone;
pub mod diag;
mod drop;
pub mod error;
pub mod expect;
pub mod expr;
pub mod graph;
pub mod print;
pub mod reference;
pub mod run;
pub mod session;
pub mod span;
pub mod subst;
pub mod syntax;
pub mod term;
pub mod verdict;
pub mod view;
