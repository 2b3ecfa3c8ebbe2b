//! The subcommands `run`, `check` and `fmt`, and the checks `debug` makes
//! before it takes the terminal: each a method of [`Ctx`], the streams of
//! one command line. `run`, `check` and `fmt` read the program named `-`
//! from the input stream, named `<stdin>` in diagnostics (its includes are
//! relative to the current directory).

use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};

use deepcps_machine::diag::{Diagnostic, Severity};
use deepcps_machine::engine::Engine;
use deepcps_machine::expect::Expectations;
use deepcps_machine::graph::calls::add_calls;
use deepcps_machine::graph::par::Parallel;
use deepcps_machine::graph::Machine;
use deepcps_machine::handover::Policy;
use deepcps_machine::lang::Ending;
use deepcps_machine::print::{comments, Printer};
use deepcps_machine::reference::Reducer;
use deepcps_machine::run::Rule;
use deepcps_machine::run::{Limits, Outcome, StopReason};
use deepcps_machine::span::SourceMap;
use deepcps_machine::span::{FileId, Span};
use deepcps_machine::syntax::load::{add_source, cannot_read, io_reason};
use deepcps_machine::syntax::{check_from, load_from, load_program, runtime_diagnostic, FileKind, MemFs, RealFs};
use deepcps_machine::term::Program;

use crate::args::parallel;
use crate::ctrl_c::Reducing;
use crate::debug::term::Ended;
use crate::exit::{EXIT_INTERRUPTED, EXIT_LIMIT, EXIT_OK, EXIT_RUNTIME, EXIT_STATIC};

/// Default of `--max-output`: 1 GiB of printed result (the residual of the
/// 10^6-number builders is about 0.3 GB).
pub const DEFAULT_MAX_OUTPUT: usize = 1 << 30;

/// What `deepcps fmt` does with the canonical text.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum FmtMode {
    /// Print it.
    Print,
    /// Compare it with the file (`--check`).
    Check,
    /// Write it over the file (`--write`).
    Write,
}

/// How `deepcps run` runs.
pub struct RunOptions {
    /// `--stats`: print the step counts by rule kind.
    pub stats: bool,
    /// `--trace`: print every step.
    pub trace: bool,
    /// `--threads`, if given.
    pub threads: Option<usize>,
    /// Whether `--stop-after` was given (a stop after N steps is asked for).
    pub stop_after: bool,
    /// `--reference`: the reference reducer instead of the graph machine.
    pub reference: bool,
    /// `--engine`: the arena engine instead of the graph machine.
    pub engine: bool,
    /// `--max-output`: the longest result printed, in bytes.
    pub max_output: usize,
    /// Whether the graph machine may take fast runs (`--no-fast`: not).
    pub fast: bool,
    /// Whether the graph machine may hand the run over to the engine
    /// (`--no-handover`: not).
    pub handover: bool,
    /// `--lang DIR`: the file is an input of the language in `DIR`; with
    /// `--exec` the built program is run to its exit value.
    pub lang: Option<(PathBuf, Ending)>,
}

/// The name diagnostics give a program read from standard input.
pub const STDIN_NAME: &str = "<stdin>";

/// The streams of one command line and whether diagnostics are coloured.
pub struct Ctx<'a> {
    /// Where results go.
    pub out: &'a mut dyn Write,
    /// Where diagnostics go.
    pub err: &'a mut dyn Write,
    /// Whether diagnostics are coloured.
    pub color: bool,
    /// What a program named `-` is read from (standard input).
    pub input: &'a mut dyn Read,
}

/// Whether `file` names standard input.
fn is_stdin(file: &Path) -> bool {
    file == Path::new("-")
}

/// The program of `sources` loaded again, its main file (the first) from
/// the text read the first time (a run consumes its program; standard
/// input cannot be read twice). The files are registered in the same
/// order, so spans into the one are spans into the other.
fn reload(sources: &SourceMap) -> Result<Program, Vec<Diagnostic>> {
    let mut again = SourceMap::new();
    let Some(main) = sources.files().first() else {
        return Err(Vec::new());
    };
    let id = again.add(main.name.clone(), main.path.clone(), main.text.clone());
    load_from(&RealFs, id, &mut again, false)
}

/// Registers the program `file` in `sources`: read from the file, or for
/// `-` from `input` (standard input).
fn add_main_from(file: &Path, input: &mut dyn Read, sources: &mut SourceMap) -> Result<FileId, Diagnostic> {
    if is_stdin(file) {
        let mut bytes = Vec::new();
        if let Err(e) = input.read_to_end(&mut bytes) {
            return Err(Diagnostic::error_nowhere(
                "io",
                format!("cannot read standard input: {}", io_reason(&e)),
            ));
        }
        return add_source(sources, STDIN_NAME, None, bytes);
    }
    let bytes = std::fs::read(file).map_err(|e| cannot_read(file, &e))?;
    add_source(sources, &file.display().to_string(), Some(file.to_path_buf()), bytes)
}

/// Loads the program `file` for a run, `-` read from `input` (standard
/// input).
pub fn load_main_from(file: &Path, input: &mut dyn Read, sources: &mut SourceMap) -> Result<Program, Vec<Diagnostic>> {
    let id = add_main_from(file, input, sources).map_err(|d| vec![d])?;
    load_from(&RealFs, id, sources, false)
}

impl Ctx<'_> {
    /// Registers the program `file` in `sources`: read from the file, or
    /// for `-` from the input stream.
    fn add_main(&mut self, file: &Path, sources: &mut SourceMap) -> Result<FileId, Diagnostic> {
        add_main_from(file, self.input, sources)
    }

    /// Loads the program `file` (`-`: the input stream) for a run.
    fn load_main(&mut self, file: &Path, sources: &mut SourceMap) -> Result<Program, Vec<Diagnostic>> {
        load_main_from(file, self.input, sources)
    }

    pub(crate) fn diags(&mut self, sources: &SourceMap, diags: &[Diagnostic]) {
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

    /// `deepcps run`: reduces `file` within `limits`; the exit code.
    pub fn run(mut self, file: &Path, opts: RunOptions, limits: Limits) -> u8 {
        let RunOptions {
            stats,
            trace,
            threads,
            stop_after,
            reference,
            engine,
            max_output,
            fast,
            handover,
            lang,
        } = opts;
        // The oracle and a trace follow the sequential machine, step by
        // step: one thread. Only an explicit request for more is an error.
        let sequential_only = if reference {
            Some("--reference (the reference reducer reduces on one thread)")
        } else if engine {
            Some("--engine (the arena engine reduces on one thread)")
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
        let mut origins = None;
        let program = match &lang {
            Some((dir, ending)) => match self.load_lang_input(dir, file, *ending) {
                Ok(loaded) => {
                    sources = loaded.sources;
                    origins = Some(loaded.origins);
                    loaded.program
                }
                Err(code) => return code,
            },
            None => match self.load_main(file, &mut sources) {
                Ok(p) => p,
                Err(ds) => {
                    self.diags(&sources, &ds);
                    return EXIT_STATIC;
                }
            },
        };
        if origins.is_none() {
            self.directive_warning(&sources);
        }
        let explain = |d: Diagnostic| match &origins {
            Some(o) => o.explain(d),
            None => d,
        };
        let mut graph_stats = None;
        // What held the memory, for a message that says what grew.
        let mut held: Option<Held> = None;
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
            } else if engine {
                let mut e = Engine::new(program);
                let r = e.report_traced(&limits, &mut on_step);
                held = Some(Held::Engine(e.live_nodes()));
                graph_stats = Some(e.stats_text());
                r
            } else if handover && !trace {
                let (r, ran) = deepcps_machine::handover::report(program, &limits, &par, fast, Policy::default());
                held = Some(match ran.live_nodes {
                    None => Held::HandOver(ran.peak_live_nodes),
                    Some(n) if ran.handed_over.is_some() => Held::Engine(n),
                    Some(n) => Held::Graph(n),
                });
                graph_stats = Some(match ran.handed_over {
                    Some(at) => format!(
                        "{}\nengine: took over after step {at}\n{}",
                        ran.graph,
                        ran.engine.as_deref().unwrap_or("engine: ran out of memory taking over")
                    ),
                    None => ran.graph,
                });
                r
            } else {
                let mut m = Machine::new(program);
                m.fast = fast;
                let r = if trace {
                    m.report_traced(&limits, &mut on_step)
                } else {
                    m.report_par(&limits, &par)
                };
                held = Some(Held::Graph(m.live_nodes()));
                graph_stats = Some(m.stats_text(par.threads()));
                r
            }
        };
        drop(reducing);
        let warnings: Vec<Diagnostic> = report.warnings.iter().cloned().map(explain).collect();
        self.diags(&sources, &warnings);
        let too_long = report.text.len() > max_output;
        let too_large = report.too_large.map(|t| format!("deepcps: {t}; nothing printed{RAISE_MAX_NODES}"));
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
                // The run again, recording call sites (the first run
                // consumed the program).
                let mut e = e.clone();
                if let Ok(p) = reload(&sources) {
                    add_calls(&mut e, p, report.counts.total());
                }
                let d = runtime_diagnostic(&e, &sources);
                let d = match &origins {
                    Some(o) => o.explain_error(&e, d),
                    None => d,
                };
                self.diags(&sources, &[d]);
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
            Outcome::Limit(reason @ StopReason::Memory { spent, .. }) => {
                let grew = held.map_or_else(|| "the term and its values grew".to_string(), |h| h.to_string());
                let _ = writeln!(self.err, "deepcps: {reason} ({grew}); nothing printed; {}", spent.remedy());
                EXIT_LIMIT
            }
            Outcome::Limit(reason) => {
                let _ = writeln!(self.err, "deepcps: {reason}{}", raise_with(reason));
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

    /// `deepcps debug`: checks the program, the threads and the terminal,
    /// then runs the debugger; the exit code.
    /// With `lang`, `file` is an input of the language in that folder.
    pub fn debug(mut self, file: PathBuf, lang: Option<PathBuf>, threads: Option<usize>, snapshot_mb: usize, max_nodes: u64) -> u8 {
        // The program is checked here first, so that its diagnostics come
        // before anything about the terminal (the worker loads it again).
        let mut sources = SourceMap::new();
        if let Some(dir) = &lang {
            let l = crate::lang::LangInput {
                dir: dir.clone(),
                input: file.clone(),
            };
            if file.as_os_str() == "-" {
                let _ = writeln!(self.err, "deepcps: `deepcps debug` reads the input from a file, not standard input");
                return EXIT_STATIC;
            }
            if let Err(text) = crate::lang::load(&l, self.input, Ending::Residual, self.color) {
                let _ = write!(self.err, "{text}");
                return EXIT_STATIC;
            }
        } else if let Err(ds) = load_program(&RealFs, &file, &mut sources) {
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
        match crate::debug::term::run(file, lang, par, snapshot_mb.saturating_mul(1_000_000), self.color, max_nodes) {
            Ok(Ended::Quit) => EXIT_OK,
            Ok(Ended::Signal(caught)) => {
                let _ = writeln!(self.err, "deepcps: {} received: the debugger ended", caught.name());
                caught.exit_code()
            }
            Err(e) => {
                let _ = write!(self.err, "{e}");
                if !e.ends_with('\n') {
                    let _ = writeln!(self.err);
                }
                EXIT_STATIC
            }
        }
    }

    /// `deepcps check`: parses and resolves `file`, a program or a library
    /// of definitions; the exit code.
    pub fn check(mut self, file: &Path) -> u8 {
        let mut sources = SourceMap::new();
        let checked = self
            .add_main(file, &mut sources)
            .map_err(|d| vec![d])
            .and_then(|id| check_from(&RealFs, id, &mut sources));
        let name = sources
            .files()
            .first()
            .map_or_else(|| file.display().to_string(), |f| f.name.clone());
        match checked {
            Ok(FileKind::Program) => {
                let _ = writeln!(self.out, "{name}: ok");
                EXIT_OK
            }
            Ok(FileKind::Library) => {
                let _ = writeln!(self.out, "{name}: ok (a library of definitions)");
                EXIT_OK
            }
            Err(ds) => {
                self.diags(&sources, &ds);
                EXIT_STATIC
            }
        }
    }

    /// `deepcps fmt`: prints, checks or rewrites `file` in canonical form;
    /// the exit code.
    pub fn fmt(mut self, file: &Path, mode: FmtMode, drop_comments: bool) -> u8 {
        if mode == FmtMode::Write && is_stdin(file) {
            let _ = writeln!(
                self.err,
                "deepcps: --write cannot rewrite standard input; `deepcps fmt -` prints the canonical form"
            );
            return EXIT_STATIC;
        }
        let mut sources = SourceMap::new();
        let id = match self.add_main(file, &mut sources) {
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
        let formatted = match comments::weave(&text, id, &canonical, !drop_comments) {
            Ok(t) => t,
            Err(d) => {
                self.diags(&sources, &[d]);
                return EXIT_STATIC;
            }
        };
        match mode {
            FmtMode::Print => {
                let _ = write!(self.out, "{formatted}");
                EXIT_OK
            }
            FmtMode::Check if formatted == text => EXIT_OK,
            FmtMode::Check => {
                // The command named writes what was compared with.
                let flags = if drop_comments { "--write --drop-comments" } else { "--write" };
                let fix = if is_stdin(file) {
                    format!(
                        "`deepcps fmt{} -` prints its canonical form",
                        if drop_comments { " --drop-comments" } else { "" }
                    )
                } else {
                    format!("run `deepcps fmt {flags} {}`", file.display())
                };
                let name = sources.get(id).name.clone();
                let _ = writeln!(self.err, "{name}: not in canonical form ({fix})");
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

/// What held the memory when a run stopped: said in the message of a
/// spent budget.
enum Held {
    /// The graph machine, with this many live nodes.
    Graph(usize),
    /// The hand-over of the term to the engine, from a graph of at most
    /// this many live nodes.
    HandOver(usize),
    /// The engine, with this many live nodes.
    Engine(usize),
}

impl std::fmt::Display for Held {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Held::Graph(n) => write!(f, "the graph held {n} live nodes, the rest is values and frames"),
            Held::HandOver(n) => write!(
                f,
                "the term was being handed over to the engine, from a graph of at most {n} live nodes"
            ),
            Held::Engine(n) => write!(f, "the engine held {n} live nodes, the rest is slots and values"),
        }
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

/// The end of a message on the node limit: the flag that raises it.
pub const RAISE_MAX_NODES: &str = "; raise it with --max-nodes N";

/// The flag that raises the limit a run stopped at, as the end of its
/// message.
fn raise_with(reason: &StopReason) -> &'static str {
    match reason {
        StopReason::Steps(_) => "; raise it with --max-steps N",
        StopReason::Time { .. } => "; raise it with --timeout SECONDS",
        StopReason::Nodes { .. } => RAISE_MAX_NODES,
        StopReason::Interrupted { .. } | StopReason::Memory { .. } => "",
    }
}
