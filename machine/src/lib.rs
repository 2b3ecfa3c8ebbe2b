//! deepcps-machine: the DeepCPS language (the CPS lambda calculus with
//! dynamic staging) and its machines, with no terminal IO.
//!
//! # Using it
//!
//! Load a program ([`syntax::load_program`], through a [`syntax::FileSystem`]:
//! [`syntax::RealFs`] or an in-memory [`syntax::MemFs`]), reduce it on the
//! graph machine ([`graph::Machine`]) and read the [`run::Report`]: the
//! outcome, the step counts by rule, the printed exit value or residual
//! program, and the stuck warnings.
//!
//! ```
//! use std::collections::HashMap;
//! use deepcps_machine::graph::{par::Parallel, Machine};
//! use deepcps_machine::run::{Limits, Outcome};
//! use deepcps_machine::span::SourceMap;
//! use deepcps_machine::syntax::{load_program, MemFs};
//!
//! let text = "let double(x, k) { k \"2*x\" }\ndouble 21 (y)\n$exit y\n";
//! let fs = MemFs(HashMap::from([("main.dcps".into(), text.as_bytes().to_vec())]));
//! let mut sources = SourceMap::new();
//! let program = load_program(&fs, "main.dcps".as_ref(), &mut sources).expect("it loads");
//! let report = Machine::new(program).report_par(&Limits::default(), &Parallel::sequential());
//! assert!(matches!(report.outcome, Outcome::Exit(_)));
//! assert_eq!(report.text.trim(), "42");
//! ```
//!
//! A staged program reduces to its *residual program*: the bodies staged
//! on a variable that stays symbolic wait, and everything else runs. The
//! printer ([`print::Printer`]) writes terms canonically; the report's
//! text is what it prints.
//!
//! ```
//! # use std::collections::HashMap;
//! # use deepcps_machine::graph::{par::Parallel, Machine};
//! # use deepcps_machine::run::{Limits, Outcome};
//! # use deepcps_machine::span::SourceMap;
//! # use deepcps_machine::syntax::{load_program, MemFs};
//! use deepcps_machine::print::Printer;
//!
//! // `1+2` runs; the bodies staged on `pt`, bound to `never`, wait.
//! let text = "(pt, x) {\n  \"1+2\" (a)\n  @pt: \"a*x\" (b)\n  @pt: $exit b\n} never 5\n";
//! let fs = MemFs(HashMap::from([("f.dcps".into(), text.as_bytes().to_vec())]));
//! let mut sources = SourceMap::new();
//! let program = load_program(&fs, "f.dcps".as_ref(), &mut sources).expect("it loads");
//! let source = Printer::new(&program.vars).program_text(&program.body);
//! assert!(source.starts_with("(pt, x) {"));
//! let report = Machine::new(program).report_par(&Limits::default(), &Parallel::sequential());
//! assert!(matches!(report.outcome, Outcome::Residual));
//! assert_eq!(report.text, "@never: \"3*5\" (b)\n@never: $exit b\n");
//! ```
//!
//! The debugger's API is [`session::Session`]: stepping, breakpoints and
//! stepping back.
//!
//! ```
//! # use std::collections::HashMap;
//! # use deepcps_machine::span::SourceMap;
//! # use deepcps_machine::syntax::{load_program, MemFs};
//! use deepcps_machine::session::{Breakpoint, Session};
//!
//! let text = "\"1+2\" (a)\n\"a*10\" (b)\n$exit b\n";
//! let fs = MemFs(HashMap::from([("s.dcps".into(), text.as_bytes().to_vec())]));
//! let program = load_program(&fs, "s.dcps".as_ref(), &mut SourceMap::new()).expect("it loads");
//! let mut s = Session::new(program);
//! assert!(s.step());
//! assert_eq!(s.steps(), 1);
//! s.add_breakpoint(Breakpoint::Exit);
//! s.run(1_000, None, None);
//! assert_eq!(s.steps(), 2);
//! s.back(1);
//! assert_eq!(s.steps(), 1);
//! ```
//!
//! # Code map
//!
//! `ARCHITECTURE.md` at the repository root is the map; in short:
//! - [`span`], [`diag`], [`error`]: source files, spans, diagnostics,
//!   runtime errors;
//! - [`syntax`]: lexer, parser, includes and name resolution, producing a
//!   [`term::Program`];
//! - [`term`]: the core terms (LANGUAGE.md §3);
//! - [`expr`]: the expression language inside `"..."`;
//! - [`verdict`]: what an active body does, and its runtime error or stuck
//!   warning, decided once for every machine;
//! - [`run`]: outcomes, step counts by rule, limits and the run loop;
//! - [`graph`]: the graph machine (fast runs, parallel rounds);
//! - [`engine`]: the arena engine;
//! - [`handover`]: the product's run, the graph machine handing over to
//!   the engine where its fast runs do not pay;
//! - [`reference`](mod@reference) and [`subst`]: the reference reducer,
//!   the oracle every other machine is tested against;
//! - [`print`](mod@print): canonical printing;
//! - [`view`]: views of a state (lambda graph, staging graph, chains,
//!   program view, graph dump);
//! - [`session`]: the debugging session;
//! - [`compile`]: the part of a program that runs in call order, as C
//!   (`deepcps compile`), and what its runtime library computes;
//! - [`lang`]: languages, a grammar driving a file of actions;
//! - [`expect`]: a program's directives about its own run;
//! - `clone` and `drop`: iterative `Clone` and `Drop` of deep terms.

mod clone;
pub mod compile;
pub mod diag;
mod drop;
pub mod engine;
pub mod error;
pub mod expect;
pub mod expr;
pub mod graph;
pub mod handover;
pub mod lang;
pub mod memory;
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
