//! The command line: its arguments (clap) and [`main_with`], which parses
//! them and hands each subcommand to the module that carries it out
//! ([`crate::commands`] for `run`, `check`, `fmt` and `debug`,
//! [`crate::views`], [`crate::snaptest`], [`crate::bench`]).

use std::ffi::OsString;
use std::io::{IsTerminal, Read, Write};
use std::path::PathBuf;

use clap::{Parser, Subcommand};
use deepcps_machine::lang::Ending;
use deepcps_machine::run::Limits;

use crate::args::{parse_megabytes, parse_seconds, parse_size, parse_threads};
use crate::commands::{Ctx, FmtMode, RunOptions, DEFAULT_MAX_OUTPUT};
use crate::ctrl_c::INTERRUPT;
use crate::exit::{EXIT_LIMIT, EXIT_OK, EXIT_STATIC};
use crate::views::{self, View};

// The first line of `deepcps --help`: the summary below, not the crate's
// description (a bare `about` would take that).
/// Run, debug, benchmark and snapshot-test DeepCPS programs (the CPS lambda calculus with dynamic staging)
#[derive(Parser, Debug)]
#[command(name = "deepcps", version, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// The memory budget of the command, e.g. `800M` or `4G` (bytes; K, M
    /// and G are powers of 1000): a program whose memory grows past it (its
    /// graph, the values it makes, the terms built to print it) stops with
    /// exit code 3 and says what grew. The default is three quarters of the
    /// machine's available memory. Under an address-space limit (ulimit -v)
    /// a program also stops, the same way, before it spends that space.
    #[arg(long, global = true, value_name = "SIZE", value_parser = parse_size)]
    max_memory: Option<u64>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Reduce a program; print its exit value or its residual program.
    Run {
        /// The program (`.dcps`; `-`: standard input), or with `--lang` an
        /// input of the language.
        file: PathBuf,
        /// The language of the input: a folder holding `language.lang` and
        /// its actions. The run prints the program the actions build for
        /// the input (with `--exec`, runs it).
        #[arg(long, value_name = "DIR")]
        lang: Option<PathBuf>,
        /// With `--lang`: run the built program (called with `$exit`) and
        /// print its exit value instead of the program.
        #[arg(long, requires = "lang")]
        exec: bool,
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
        #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
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
        /// Use the arena engine (variables as slots, a worklist of pending
        /// bodies, lambdas bound in place at their only use) instead of the
        /// graph machine. Results and step counts are the reference's; it
        /// reduces on one thread (an explicit `--threads` above 1 is
        /// refused).
        #[arg(long, conflicts_with = "reference")]
        engine: bool,
        /// Step the graph machine one body at a time, without fast runs
        /// (stretches of steps executed on compiled templates, each step's
        /// result the next ready body). Results and counts are the same; it
        /// is for comparing the two.
        #[arg(long)]
        no_fast: bool,
        /// Keep the run on the graph machine. By default it hands the term
        /// over to the arena engine when fast runs and parallel rounds stop
        /// paying (staged code such as the paper's builders). Results and
        /// counts are the same; it is for comparing the two.
        #[arg(long)]
        no_handover: bool,
    },
    /// Parse and resolve a program, or a library of definitions, without
    /// running it.
    Check {
        /// The program or library (`-`: standard input); with `--lang`, an
        /// input of the language (optional).
        #[arg(required_unless_present = "lang")]
        file: Option<PathBuf>,
        /// Check the language in this folder (its definition, actions and
        /// every action call) before any input is read.
        #[arg(long, value_name = "DIR")]
        lang: Option<PathBuf>,
    },
    /// Print a source file in canonical form, its comments kept in place.
    Fmt {
        /// The file (`-`: standard input).
        file: PathBuf,
        /// Do not print; exit 0 if the file is in canonical form, 1 if not.
        #[arg(long, conflicts_with = "write")]
        check: bool,
        /// Rewrite the file in canonical form instead of printing it (left
        /// untouched if it is canonical already).
        #[arg(long)]
        write: bool,
        /// Leave the comments out (with `--write`, the file is rewritten
        /// without them).
        #[arg(long)]
        drop_comments: bool,
    },
    /// Print the lambda graph of the program's state as Graphviz DOT
    /// (bodies coloured: ready, pending, stuck, error, inactive).
    Dot {
        /// The program (`-`: standard input).
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
        /// The program, or with `--lang` an input of the language.
        file: PathBuf,
        /// The language of the input (a folder holding `language.lang`):
        /// the debugger runs its actions on the input, and the status line
        /// names the action being run and the part of the input it was
        /// called for.
        #[arg(long, value_name = "DIR")]
        lang: Option<PathBuf>,
        /// Reduction threads of runs to the end or to a breakpoint-free
        /// stop (default: all cores; 1 is the sequential machine). Steps,
        /// `e` (reduce the focused body's subtree) and runs with
        /// breakpoints go step by step on one thread.
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
    /// and pass/fail against their `expect:` directives.
    Bench(crate::bench::BenchArgs),
    /// Stage a program as `run` does, translate what is left to run into C
    /// and build it with the system's C compiler: an executable that
    /// prints the exit value (or the error) as `run` does.
    ///
    /// A program without staging annotations (every body staged as natural
    /// staging stages it) is translated as written. Any other program is
    /// reduced first and must exit with the program it built, a lambda of
    /// one parameter, which the executable calls with the exit
    /// continuation.
    Compile(crate::compile::CompileArgs),
    /// Print the staging chains of the program's state (the paper's `ct`
    /// and `pt` chains), one node per line.
    Chains {
        /// The program (`-`: standard input).
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
        /// The program (`-`: standard input).
        file: PathBuf,
        /// Show the state after N steps instead of the reduced state.
        #[arg(long, value_name = "N", conflicts_with = "max_steps")]
        step: Option<u64>,
        /// Stop the run after this many steps (exit code 3; the dump shows
        /// the term as it stood).
        #[arg(long, value_name = "N", default_value_t = Limits::default().max_steps)]
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
    /// step counts, result) and `NAME.graph` (graph dump) beside it, and its
    /// run with its `// expect:` directive, as `bench` checks it.
    ///
    /// A program runs for at most 10000000 steps, or the number its
    /// `// max-steps: N` directive gives.
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
/// `out` and diagnostics to `err`; returns the exit code. A program named
/// `-` is read from standard input.
pub fn main_with(args: Vec<OsString>, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    main_with_input(args, &mut std::io::stdin(), out, err)
}

/// [`main_with`], with `input` in place of standard input (what a program
/// named `-` is read from).
pub fn main_with_input(args: Vec<OsString>, input: &mut dyn Read, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(mut e) => {
            crate::args::suggest_subcommand(&mut e, &<Cli as clap::CommandFactory>::command());
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
    let budget = cli.max_memory.unwrap_or_else(crate::memory::default_max_memory);
    deepcps_machine::memory::set_limit(Some(usize::try_from(budget).unwrap_or(usize::MAX)));
    let command = cli.command;
    // A budget spent where no run loop reports it as a result (a view, a
    // term built for printing) ends the command here, as a limit.
    match deepcps_machine::memory::catch(|| {
        run_command(
            command,
            Ctx {
                out: &mut *out,
                err: &mut *err,
                color,
                input,
            },
        )
    }) {
        Ok(code) => code,
        Err(e) => {
            let _ = writeln!(err, "deepcps: {e}; {}", e.remedy());
            EXIT_LIMIT
        }
    }
}

/// Carries out one command.
fn run_command(command: Command, ctx: Ctx<'_>) -> u8 {
    match command {
        Command::Run {
            file,
            lang,
            exec,
            stats,
            trace,
            threads,
            max_steps,
            stop_after,
            timeout,
            max_nodes,
            max_output,
            reference,
            engine,
            no_fast,
            no_handover,
        } => ctx.run(
            &file,
            RunOptions {
                stats,
                trace,
                threads,
                stop_after: stop_after.is_some(),
                reference,
                engine,
                max_output,
                fast: !no_fast,
                handover: !no_handover,
                lang: lang.map(|d| (d, if exec { Ending::Exec } else { Ending::Residual })),
            },
            Limits {
                max_steps: stop_after.or(max_steps).unwrap_or(u64::MAX),
                timeout,
                max_nodes: Some(max_nodes),
                interrupt: Some(&INTERRUPT),
                max_output: Some(max_output),
                // Nothing of the term is printed at a limit, unless asked.
                term_at_limit: stop_after.is_some(),
            },
        ),
        Command::Check { file, lang } => match (lang, file) {
            (Some(dir), file) => ctx.check_lang(&dir, file.as_deref()),
            (None, Some(file)) => ctx.check(&file),
            (None, None) => EXIT_STATIC,
        },
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
                return views::show(&file, step, max_nodes as u64, View::StagingDot, ctx);
            }
            let part = (focus.is_some() || radius.is_some()).then(|| views::Part {
                focus: focus.unwrap_or(views::Focus::Ready),
                radius: radius.map_or(views::DEFAULT_RADIUS, usize::from),
            });
            views::show_lambda_dot(&file, step, max_nodes as u64, part, ctx)
        }
        Command::Debug {
            file,
            lang,
            threads,
            snapshot_memory,
            max_nodes,
        } => ctx.debug(file, lang, threads, snapshot_memory, max_nodes as u64),
        Command::Chains { file, step, max_nodes } => views::show(&file, step, max_nodes as u64, View::Chains, ctx),
        Command::Dump {
            file,
            step,
            max_steps,
            max_nodes,
        } => match step {
            Some(step) => views::show(&file, step, max_nodes as u64, View::Dump, ctx),
            None => {
                let limits = Limits {
                    max_steps,
                    max_nodes: Some(max_nodes),
                    ..Limits::default()
                };
                views::dump_reduced(&file, &limits, ctx)
            }
        },
        Command::Test { paths, bless, threads } => crate::snaptest::run(&paths, bless, threads, ctx.out, ctx.err),
        Command::Bench(args) => crate::bench::main(args, ctx.out, ctx.err),
        Command::Compile(args) => {
            let limits = Limits {
                max_steps: args.max_steps.unwrap_or(u64::MAX),
                timeout: args.timeout,
                max_nodes: Some(crate::memory::default_max_nodes()),
                interrupt: Some(&INTERRUPT),
                max_output: None,
                ..Limits::default()
            };
            let mut ctx = ctx;
            ctx.compile(&args, &limits)
        }
    }
}
