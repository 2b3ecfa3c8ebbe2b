//! Argument parsing and the subcommands.

use std::ffi::OsString;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use clap::{Parser, Subcommand};
use deepcps_machine::diag::{Diagnostic, Severity};
use deepcps_machine::expect::Expectations;
use deepcps_machine::graph::calls::add_calls;
use deepcps_machine::graph::par::Parallel;
use deepcps_machine::graph::Machine;
use deepcps_machine::print::{comments, Printer};
use deepcps_machine::reference::Reducer;
use deepcps_machine::run::Rule;
use deepcps_machine::run::{Limits, Outcome, StopReason};
use deepcps_machine::span::SourceMap;
use deepcps_machine::span::{FileId, Span};
use deepcps_machine::syntax::load::{add_source, cannot_read};
use deepcps_machine::syntax::{load_from, load_program, MemFs, RealFs};

use crate::views::{self, View};

/// Exit code: a result was printed.
pub const EXIT_OK: u8 = 0;
/// Exit code: a runtime error stopped the program.
pub const EXIT_RUNTIME: u8 = 1;
/// Exit code: usage, parse or static error.
pub const EXIT_STATIC: u8 = 2;
/// Exit code: a limit was reached.
pub const EXIT_LIMIT: u8 = 3;

/// deepcps: a machine for DeepCPS, the CPS lambda calculus with dynamic staging.
#[derive(Parser, Debug)]
#[command(name = "deepcps", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Reduce a program; print its exit value or its residual program.
    Run {
        /// The program (`.dcps`).
        file: PathBuf,
        /// Print the step counts by rule kind (to stderr).
        #[arg(long)]
        stats: bool,
        /// Stop after this many steps (exit code 3). There is no step limit
        /// unless it is given: `--timeout`, `--max-nodes` and Ctrl-C stop a
        /// runaway program.
        #[arg(long, value_name = "N")]
        max_steps: Option<u64>,
        /// Execute at most N steps, then print the term as it stands (a
        /// deliberate stop: exit code 0; the step count goes to stderr).
        #[arg(long, value_name = "N", conflicts_with = "max_steps")]
        stop_after: Option<u64>,
        /// Stop after this many seconds of reduction (exit code 3).
        #[arg(long, value_parser = parse_seconds)]
        timeout: Option<std::time::Duration>,
        /// Print every step to stderr: its number, rule and the source place
        /// of the body executed. A trace follows the sequential machine: it
        /// runs on one thread (an explicit `--threads` above 1 is refused).
        #[arg(long)]
        trace: bool,
        /// Reduction threads of the graph machine (default: all cores; 1 is
        /// the sequential machine). Results and step counts are the same for
        /// every number of threads.
        #[arg(long, value_name = "N", value_parser = parse_threads)]
        threads: Option<usize>,
        /// Stop when the live graph holds more than this many nodes, and
        /// print no result that has more written out (shared values copied
        /// where they are used): exit code 3 (the graph machine only). The
        /// default fits the memory of this machine and of `ulimit -v`.
        #[arg(long, value_name = "N", default_value_t = crate::memory::default_max_nodes())]
        max_nodes: usize,
        /// Do not print a result longer than this many bytes (exit code 3;
        /// the run's counts still go to stderr).
        #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_OUTPUT)]
        max_output: usize,
        /// Use the reference reducer (the substitution semantics, the oracle)
        /// instead of the graph machine. It reduces on one thread (an
        /// explicit `--threads` above 1 is refused).
        #[arg(long)]
        reference: bool,
        /// Step the graph machine one body at a time, without fast runs
        /// (stretches of steps executed on compiled templates, each step's
        /// result the next ready body). Results and counts are the same; it
        /// is for comparing the two.
        #[arg(long)]
        no_fast: bool,
    },
    /// Parse and resolve a program without running it.
    Check {
        /// The program.
        file: PathBuf,
    },
    /// Print a source file in canonical form, its comments kept in place.
    Fmt {
        /// The file.
        file: PathBuf,
        /// Do not print; exit 0 if the file is in canonical form, 1 if not.
        #[arg(long, conflicts_with = "write")]
        check: bool,
        /// Rewrite the file in canonical form instead of printing it (left
        /// untouched if it is canonical already).
        #[arg(long)]
        write: bool,
        /// Leave the comments out (printing or checking only: a file is
        /// never rewritten without its comments).
        #[arg(long, conflicts_with = "write")]
        drop_comments: bool,
    },
    /// Print the lambda graph of the program's state as Graphviz DOT
    /// (bodies coloured: ready, pending, stuck, error, inactive).
    Dot {
        /// The program.
        file: PathBuf,
        /// Show the state after N steps of reduction.
        #[arg(long, value_name = "N", default_value_t = 0)]
        step: u64,
        /// Print the staging graph instead: staging variables, the bodies
        /// they stage, the staging parameters those bodies hand on.
        #[arg(long, conflicts_with_all = ["focus", "radius"])]
        staging: bool,
        /// Draw only the part of the lambda graph around a body: `ready`
        /// (the next body to execute) or `LINE:COL`, where the body starts
        /// in the program's file. For terms too large to draw whole.
        #[arg(long, value_name = "BODY", value_parser = views::parse_focus)]
        focus: Option<views::Focus>,
        /// With `--focus`: how many edges from the focus to draw (default
        /// 3; alone, it draws around the ready body).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=64))]
        radius: Option<u16>,
        /// Refuse (exit code 3) a state with more nodes than this, written
        /// out with its shared values copied where they are used, and stop
        /// stepping when the live graph grows past it. The default fits the
        /// memory of this machine and of `ulimit -v`.
        #[arg(long, value_name = "N", default_value_t = crate::memory::default_view_nodes())]
        max_nodes: usize,
    },
    /// Debug a program in the terminal: step, step back, run to
    /// breakpoints, watch the term, its lambda graph and staging chains.
    Debug {
        /// The program.
        file: PathBuf,
        /// Reduction threads of runs to the end or to a breakpoint-free
        /// stop (default: all cores; 1 is the sequential machine). Steps,
        /// `n` and runs with breakpoints go step by step on one thread.
        #[arg(long, value_name = "N", value_parser = parse_threads)]
        threads: Option<usize>,
        /// Memory for the states kept to step back to, in MB (about):
        /// past it, every other one is dropped, so stepping back replays
        /// more steps.
        #[arg(long, value_name = "MB", default_value_t = 1024, value_parser = parse_megabytes)]
        snapshot_memory: usize,
        /// Show no state with more nodes than this, written out with its
        /// shared values copied where they are used (the panes say so
        /// instead). The default fits the memory of this machine and of
        /// `ulimit -v`.
        #[arg(long, value_name = "N", default_value_t = crate::memory::default_view_nodes())]
        max_nodes: usize,
    },
    /// Run every program under the paths and report steps, time, memory
    /// and pass/fail against their `// expect:` directives.
    Bench(crate::bench::BenchArgs),
    /// Print the staging chains of the program's state (the paper's `ct`
    /// and `pt` chains), one node per line.
    Chains {
        /// The program.
        file: PathBuf,
        /// Show the state after N steps of reduction.
        #[arg(long, value_name = "N", default_value_t = 0)]
        step: u64,
        /// Refuse (exit code 3) a state with more nodes than this, written
        /// out with its shared values copied where they are used, and stop
        /// stepping when the live graph grows past it. The default fits the
        /// memory of this machine and of `ulimit -v`.
        #[arg(long, value_name = "N", default_value_t = crate::memory::default_view_nodes())]
        max_nodes: usize,
    },
    /// Print the canonical graph dump of the program's state: one node per
    /// line, numbered in reading order, with kinds, edges and each body's
    /// staging state (by default the reduced state, as `run` leaves it).
    Dump {
        /// The program.
        file: PathBuf,
        /// Show the state after N steps instead of the reduced state.
        #[arg(long, value_name = "N", conflicts_with = "max_steps")]
        step: Option<u64>,
        /// Stop the run after this many steps (exit code 3; the dump shows
        /// the term as it stood).
        #[arg(long, default_value_t = Limits::default().max_steps)]
        max_steps: u64,
        /// Refuse (exit code 3) a state with more nodes than this, written
        /// out with its shared values copied where they are used, and stop
        /// stepping when the live graph grows past it. The default fits the
        /// memory of this machine and of `ulimit -v`.
        #[arg(long, value_name = "N", default_value_t = crate::memory::default_view_nodes())]
        max_nodes: usize,
    },
    /// Run the snapshot tests of programs kept outside this repository:
    /// each `NAME.dcps` under the paths is compared with `NAME.out` (outcome,
    /// step counts, result) and `NAME.graph` (graph dump) beside it.
    Test {
        /// Programs, or directories searched recursively for `.dcps` files.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Write the snapshot files instead of comparing with them.
        #[arg(long)]
        bless: bool,
        /// Reduction threads of each program (default: all cores; 1 is the
        /// sequential machine). A program's `// threads: N` overrides it.
        /// The snapshots do not depend on it.
        #[arg(long, value_name = "N", value_parser = parse_threads)]
        threads: Option<usize>,
    },
}

/// Runs the command line `args` (program name first), writing the result to
/// `out` and diagnostics to `err`; returns the exit code.
pub fn main_with(args: Vec<OsString>, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { EXIT_STATIC } else { EXIT_OK };
            let text = e.render().to_string();
            if e.use_stderr() {
                let _ = write!(err, "{text}");
            } else {
                let _ = write!(out, "{text}");
            }
            return code;
        }
    };
    let color = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let ctx = Ctx { out, err, color };
    match cli.command {
        Command::Run {
            file,
            stats,
            trace,
            threads,
            max_steps,
            stop_after,
            timeout,
            max_nodes,
            max_output,
            reference,
            no_fast,
        } => ctx.run(
            &file,
            RunOptions {
                stats,
                trace,
                threads,
                stop_after: stop_after.is_some(),
                reference,
                max_output,
                fast: !no_fast,
            },
            Limits {
                max_steps: stop_after.or(max_steps).unwrap_or(u64::MAX),
                timeout,
                max_nodes: Some(max_nodes),
                interrupt: Some(&INTERRUPT),
                max_output: Some(max_output),
            },
        ),
        Command::Check { file } => ctx.check(&file),
        Command::Fmt {
            file,
            check,
            write,
            drop_comments,
        } => {
            let mode = match (check, write) {
                (true, _) => FmtMode::Check,
                (false, true) => FmtMode::Write,
                (false, false) => FmtMode::Print,
            };
            ctx.fmt(&file, mode, drop_comments)
        }
        Command::Dot {
            file,
            step,
            staging,
            focus,
            radius,
            max_nodes,
        } => {
            if staging {
                return views::show(&file, step, max_nodes as u64, View::StagingDot, ctx.out, ctx.err, ctx.color);
            }
            let part = (focus.is_some() || radius.is_some()).then(|| views::Part {
                focus: focus.unwrap_or(views::Focus::Ready),
                radius: radius.map_or(views::DEFAULT_RADIUS, usize::from),
            });
            views::show_lambda_dot(&file, step, max_nodes as u64, part, ctx.out, ctx.err, ctx.color)
        }
        Command::Debug {
            file,
            threads,
            snapshot_memory,
            max_nodes,
        } => ctx.debug(file, threads, snapshot_memory, max_nodes as u64),
        Command::Chains { file, step, max_nodes } => views::show(&file, step, max_nodes as u64, View::Chains, ctx.out, ctx.err, ctx.color),
        Command::Dump {
            file,
            step,
            max_steps,
            max_nodes,
        } => match step {
            Some(step) => views::show(&file, step, max_nodes as u64, View::Dump, ctx.out, ctx.err, ctx.color),
            None => {
                let limits = Limits {
                    max_steps,
                    max_nodes: Some(max_nodes),
                    ..Limits::default()
                };
                views::dump_reduced(&file, &limits, ctx.out, ctx.err, ctx.color)
            }
        },
        Command::Test { paths, bless, threads } => crate::snaptest::run(&paths, bless, threads, ctx.out, ctx.err),
        Command::Bench(args) => crate::bench::main(args, ctx.out, ctx.err),
    }
}

/// What `deepcps fmt` does with the canonical text.
#[derive(Clone, Copy, PartialEq, Eq)]
enum FmtMode {
    /// Print it.
    Print,
    /// Compare it with the file (`--check`).
    Check,
    /// Write it over the file (`--write`).
    Write,
}

/// How `deepcps run` runs.
struct RunOptions {
    stats: bool,
    trace: bool,
    /// `--threads`, if given.
    threads: Option<usize>,
    stop_after: bool,
    reference: bool,
    max_output: usize,
    /// Whether the graph machine may take fast runs (`--no-fast`: not).
    fast: bool,
}

/// Exit code: the user interrupted the run (Ctrl-C), as shells report SIGINT.
pub const EXIT_INTERRUPTED: u8 = 130;

/// Default of `--max-output`: 1 GiB of printed result (the residual of the
/// 10^6-number builders is about 0.3 GB).
pub const DEFAULT_MAX_OUTPUT: usize = 1 << 30;

/// Set by the binary's Ctrl-C handler ([`interrupt`]); a run in progress
/// stops at its next clock check and reports the counts so far. Only the
/// binary sets it: in-process callers (tests) run in parallel threads.
pub static INTERRUPT: AtomicBool = AtomicBool::new(false);

/// Whether a reduction is in progress (one that reads [`INTERRUPT`]).
static REDUCING: AtomicBool = AtomicBool::new(false);

/// What Ctrl-C does (the binary's handler calls this): during a reduction
/// the first press asks it to stop (it reports the counts so far); a second
/// press, or a press at any other time, ends the process with
/// [`EXIT_INTERRUPTED`].
pub fn interrupt() {
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

struct Ctx<'a> {
    out: &'a mut dyn Write,
    err: &'a mut dyn Write,
    color: bool,
}

impl Ctx<'_> {
    fn diags(&mut self, sources: &SourceMap, diags: &[Diagnostic]) {
        for d in diags {
            let _ = write!(self.err, "{}", d.render(sources, self.color));
        }
    }

    /// Warns of a malformed or unknown directive in the leading comments of
    /// the main file (the first registered), which `run` does not read but
    /// `test` and `bench` refuse.
    fn directive_warning(&mut self, sources: &SourceMap) {
        if let Some(main) = sources.files().first() {
            if let Err(e) = Expectations::parse(&main.text) {
                self.diags(sources, &[e.diagnostic(FileId(0), Severity::Warning)]);
            }
        }
    }

    fn run(mut self, file: &Path, opts: RunOptions, limits: Limits) -> u8 {
        let RunOptions {
            stats,
            trace,
            threads,
            stop_after,
            reference,
            max_output,
            fast,
        } = opts;
        // The oracle and a trace follow the sequential machine, step by
        // step: one thread. Only an explicit request for more is an error.
        let sequential_only = if reference {
            Some("--reference (the reference reducer reduces on one thread)")
        } else if trace {
            Some("--trace (a trace follows the sequential machine, step by step)")
        } else {
            None
        };
        let par = match (threads, sequential_only) {
            (Some(n), Some(why)) if n > 1 => {
                let _ = writeln!(
                    self.err,
                    "deepcps: --threads {n} cannot be used with {why}; use --threads 1 or leave it out"
                );
                return EXIT_STATIC;
            }
            (_, Some(_)) => Parallel::sequential(),
            (n, None) => match parallel(n) {
                Ok(p) => p,
                Err(e) => {
                    let _ = writeln!(self.err, "deepcps: {e}");
                    return EXIT_STATIC;
                }
            },
        };
        let mut sources = SourceMap::new();
        let program = match load_program(&RealFs, file, &mut sources) {
            Ok(p) => p,
            Err(ds) => {
                self.diags(&sources, &ds);
                return EXIT_STATIC;
            }
        };
        self.directive_warning(&sources);
        let mut graph_stats = None;
        let reducing = Reducing::start();
        let report = {
            let err = &mut *self.err;
            let sources = &sources;
            let mut on_step = |n: u64, rule: Rule, span: Span| {
                if trace {
                    let _ = writeln!(err, "[trace] {n} {} {}", rule.name(), sources.describe(span));
                }
            };
            if reference {
                Reducer::new(program).report_traced(&limits, &mut on_step)
            } else {
                let mut m = Machine::new(program);
                m.fast = fast;
                let r = if trace {
                    m.report_traced(&limits, &mut on_step)
                } else {
                    m.report_par(&limits, &par)
                };
                let p = m.par_stats();
                graph_stats = Some(format!(
                    "graph: {} live nodes, {} node slots, {} variables bound, {} nodes copied, {} steps in fast runs\n\
                     parallel: {}, {} rounds, {} units, {} steps in rounds",
                    m.live_nodes(),
                    m.g.nodes.len(),
                    m.stats.bound_count,
                    m.stats.copied,
                    m.stats.fast_steps_done,
                    plural(par.threads(), "thread", "threads"),
                    p.rounds,
                    p.units,
                    p.steps
                ));
                r
            }
        };
        drop(reducing);
        self.diags(&sources, &report.warnings);
        let too_long = report.text.len() > max_output;
        let too_large = report
            .too_large
            .map(|t| format!("deepcps: {t}; nothing printed (raise the limit with --max-nodes N)"));
        let code = match &report.outcome {
            Outcome::Residual | Outcome::Exit(_) | Outcome::Limit(StopReason::Steps(_))
                if too_large.is_some() && (stop_after || !matches!(report.outcome, Outcome::Limit(_))) =>
            {
                if let Outcome::Limit(StopReason::Steps(n)) = &report.outcome {
                    let _ = writeln!(self.err, "deepcps: stopped after {n} steps as asked");
                }
                let _ = writeln!(self.err, "{}", too_large.unwrap_or_default());
                EXIT_LIMIT
            }
            Outcome::Residual | Outcome::Exit(_) if too_long => {
                let _ = writeln!(
                    self.err,
                    "deepcps: output limit reached: the result is longer than --max-output {max_output} bytes; nothing printed"
                );
                EXIT_LIMIT
            }
            Outcome::Residual | Outcome::Exit(_) => {
                let _ = write!(self.out, "{}", report.text);
                EXIT_OK
            }
            Outcome::Error(e) => {
                // The run again, recording call sites (the file is read
                // again: the first run consumed the program).
                let mut e = e.clone();
                if let Ok(p) = load_program(&RealFs, file, &mut SourceMap::new()) {
                    add_calls(&mut e, p, report.counts.total());
                }
                self.diags(&sources, &[Diagnostic::runtime(&e, &sources)]);
                EXIT_RUNTIME
            }
            Outcome::Limit(StopReason::Steps(n)) if stop_after && too_long => {
                let _ = writeln!(
                    self.err,
                    "deepcps: stopped after {n} steps as asked; the term is longer than --max-output {max_output} bytes; nothing printed"
                );
                EXIT_LIMIT
            }
            Outcome::Limit(StopReason::Steps(n)) if stop_after => {
                let _ = write!(self.out, "{}", report.text);
                let _ = writeln!(self.err, "deepcps: stopped after {n} steps as asked; bodies are still pending");
                EXIT_OK
            }
            Outcome::Limit(reason @ StopReason::Interrupted { .. }) => {
                let _ = writeln!(self.err, "deepcps: {reason}");
                EXIT_INTERRUPTED
            }
            Outcome::Limit(reason) => {
                let _ = writeln!(self.err, "deepcps: {reason}");
                EXIT_LIMIT
            }
        };
        if stats || too_long || report.too_large.is_some() || matches!(report.outcome, Outcome::Limit(_)) {
            let _ = writeln!(self.err, "{}", report.counts);
        }
        if stats {
            if let Some(g) = graph_stats {
                let _ = writeln!(self.err, "{g}");
            }
        }
        code
    }

    fn debug(mut self, file: PathBuf, threads: Option<usize>, snapshot_mb: usize, max_nodes: u64) -> u8 {
        // The program is checked here first, so that its diagnostics come
        // before anything about the terminal (the worker loads it again).
        let mut sources = SourceMap::new();
        if let Err(ds) = load_program(&RealFs, &file, &mut sources) {
            self.diags(&sources, &ds);
            return EXIT_STATIC;
        }
        let par = match parallel(threads) {
            Ok(p) => p,
            Err(e) => {
                let _ = writeln!(self.err, "deepcps: {e}");
                return EXIT_STATIC;
            }
        };
        if !std::io::stdout().is_terminal() || !std::io::stdin().is_terminal() {
            let _ = writeln!(
                self.err,
                "deepcps: `deepcps debug` needs a terminal (stdin and stdout are not both terminals); use `deepcps run --trace` for a log"
            );
            return EXIT_STATIC;
        }
        match crate::debug::term::run(file, par, snapshot_mb.saturating_mul(1_000_000), self.color, max_nodes) {
            Ok(()) => EXIT_OK,
            Err(e) => {
                let _ = write!(self.err, "{e}");
                if !e.ends_with('\n') {
                    let _ = writeln!(self.err);
                }
                EXIT_STATIC
            }
        }
    }

    fn check(mut self, file: &Path) -> u8 {
        let mut sources = SourceMap::new();
        match load_program(&RealFs, file, &mut sources) {
            Ok(_) => {
                let _ = writeln!(self.out, "{}: ok", file.display());
                EXIT_OK
            }
            Err(ds) => {
                self.diags(&sources, &ds);
                EXIT_STATIC
            }
        }
    }

    fn fmt(mut self, file: &Path, mode: FmtMode, drop_comments: bool) -> u8 {
        let mut sources = SourceMap::new();
        let bytes = match std::fs::read(file) {
            Ok(b) => b,
            Err(e) => {
                self.diags(&sources, &[cannot_read(file, &e)]);
                return EXIT_STATIC;
            }
        };
        let id = match add_source(&mut sources, &file.display().to_string(), Some(file.to_path_buf()), bytes) {
            Ok(id) => id,
            Err(d) => {
                self.diags(&sources, &[d]);
                return EXIT_STATIC;
            }
        };
        let text = sources.get(id).text.clone();
        let program = match load_from(&MemFs::default(), id, &mut sources, true) {
            Ok(p) => p,
            Err(ds) => {
                self.diags(&sources, &ds);
                return EXIT_STATIC;
            }
        };
        let includes = include_lines(&text);
        let canonical = format!("{includes}{}", Printer::source(&program.vars).program_text(&program.body));
        let formatted = if drop_comments {
            canonical
        } else {
            match comments::weave(&text, id, &canonical) {
                Ok(t) => t,
                Err(d) => {
                    self.diags(&sources, &[d]);
                    return EXIT_STATIC;
                }
            }
        };
        match mode {
            FmtMode::Print => {
                let _ = write!(self.out, "{formatted}");
                EXIT_OK
            }
            FmtMode::Check if formatted == text => EXIT_OK,
            FmtMode::Check => {
                let _ = writeln!(
                    self.err,
                    "{}: not in canonical form (run `deepcps fmt --write {}`)",
                    file.display(),
                    file.display()
                );
                EXIT_RUNTIME
            }
            FmtMode::Write if formatted == text => EXIT_OK,
            FmtMode::Write => match std::fs::write(file, &formatted) {
                Ok(()) => EXIT_OK,
                Err(e) => {
                    let _ = writeln!(self.err, "deepcps: cannot write `{}`: {e}", file.display());
                    EXIT_STATIC
                }
            },
        }
    }
}

/// A number of reduction threads: at least 1 (1 is the sequential machine).
pub fn parse_threads(s: &str) -> Result<usize, String> {
    parse_count(s, "threads", " (1 is the sequential machine)")
}

/// Megabytes, at least 1 (`--snapshot-memory`).
pub fn parse_megabytes(s: &str) -> Result<usize, String> {
    parse_count(s, "megabytes", "")
}

/// A count of `what` of at least 1 (`note` ends the error for 0).
pub fn parse_count(s: &str, what: &str, note: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        Ok(_) => Err(format!("the number of {what} is at least 1{note}")),
        Err(_) => Err(format!("`{s}` is not a number of {what}")),
    }
}

/// The reduction threads of `--threads` (all cores when absent).
fn parallel(threads: Option<usize>) -> Result<Parallel, String> {
    Parallel::new(threads.unwrap_or_else(Parallel::cores))
}

/// `1 thread`, `2 threads`.
pub fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A number of seconds (fractions allowed) as a duration.
fn parse_seconds(s: &str) -> Result<std::time::Duration, String> {
    match s.parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 0.0 => Ok(std::time::Duration::from_secs_f64(x)),
        _ => Err(format!("`{s}` is not a number of seconds")),
    }
}

/// The `include` lines of a file, re-printed one per line.
fn include_lines(text: &str) -> String {
    let mut sources = SourceMap::new();
    let id = sources.add("", None, text.to_string());
    match deepcps_machine::syntax::parser::parse_file(text, id) {
        Ok(f) if !f.includes.is_empty() => {
            let mut s: String = f.includes.iter().map(|(p, _)| format!("include \"{p}\"\n")).collect();
            s.push('\n');
            s
        }
        _ => String::new(),
    }
}
