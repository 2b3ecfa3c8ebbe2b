//! `deepcps compile`: stages a program as `run` does, translates the code
//! left to run into C (`deepcps_machine::compile`) and builds it with the
//! system's C compiler into an executable that prints what `run` prints.
//!
//! A large program is several C files (`compile::to_c_units`), compiled
//! at once by as many C compilers as there are cores, then linked. On a
//! terminal, a line on stderr says what is being done (staging,
//! translating, compiling k of n files, linking) while it takes long.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use deepcps_machine::compile::{call_with_exit, is_runtime_code, to_c, to_c_units, CUnit, Part};
use deepcps_machine::diag::Diagnostic;
use deepcps_machine::error::RuntimeError;
use deepcps_machine::graph::calls::add_calls;
use deepcps_machine::graph::par::Parallel;
use deepcps_machine::graph::Machine;
use deepcps_machine::lang::Ending;
use deepcps_machine::run::{Limits, Outcome, StopReason};
use deepcps_machine::span::SourceMap;
use deepcps_machine::syntax::{load_program, runtime_diagnostic, RealFs};
use deepcps_machine::term::{Body, Program, Vars};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::args::parallel;
use crate::commands::Ctx;
use crate::ctrl_c::Reducing;
use crate::exit::{EXIT_INTERRUPTED, EXIT_LIMIT, EXIT_OK, EXIT_RUNTIME, EXIT_STATIC};

/// The arguments of `deepcps compile`.
#[derive(clap::Args, Debug)]
pub struct CompileArgs {
    /// The program (`.dcps`).
    pub file: PathBuf,
    /// The file is an input of the language in this folder: the program
    /// its actions build is compiled.
    #[arg(long, value_name = "DIR")]
    pub lang: Option<PathBuf>,
    /// The executable to write (default: the program's name without
    /// `.dcps`, in the current directory; with `--emit-c`, that name with
    /// `.c`, and `-` for standard output).
    #[arg(short, long, value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// Write the C program instead of building it, and the runtime library
    /// it links with (`libdeepcps_rt.a`) beside it; the command that builds
    /// the executable is printed.
    #[arg(long)]
    pub emit_c: bool,
    /// The C compiler to build with.
    #[arg(long, value_name = "CC", default_value = "cc")]
    pub cc: String,
    /// Reduction threads of the staging (default: all cores).
    #[arg(long, value_name = "N", value_parser = crate::args::parse_threads)]
    pub threads: Option<usize>,
    /// Stop staging after this many steps (exit code 3).
    #[arg(long, value_name = "N")]
    pub max_steps: Option<u64>,
    /// Stop staging after this many seconds (exit code 3).
    #[arg(long, value_name = "SECONDS", value_parser = crate::args::parse_seconds)]
    pub timeout: Option<std::time::Duration>,
}

/// How `deepcps compile` says what it compiled.
pub fn describe(part: Part) -> &'static str {
    match part {
        Part::Whole => "runtime code as written",
        Part::Built => "the program built by staging",
    }
}

/// The run-time part of a program, ready to translate.
pub struct RunTimePart {
    /// Its top-level body: the program, or `p $exit` of the built `p`.
    pub body: Body,
    /// The body's variables.
    pub vars: Vars,
    /// How it was found.
    pub part: Part,
}

/// Why a program has no run-time part to compile: the report to print
/// (rendered) and the exit code.
pub struct NoPart {
    /// What to print on standard error.
    pub text: String,
    /// Why, in a few words.
    pub why: String,
    /// The exit code.
    pub code: u8,
}

/// Finds the run-time part of `program` (loaded from `file` into
/// `sources`): the program itself if it is runtime code, else what its
/// staging run exits with. `explain` words a staging failure's
/// diagnostic from the error (a language input's maps it back to the
/// input).
pub fn run_time_part(
    program: Program,
    file: &Path,
    sources: &SourceMap,
    limits: &Limits,
    par: &Parallel,
    color: bool,
    explain: &dyn Fn(&RuntimeError, Diagnostic) -> Diagnostic,
) -> Result<RunTimePart, NoPart> {
    if is_runtime_code(&program.body) {
        return Ok(RunTimePart {
            body: program.body,
            vars: program.vars,
            part: Part::Whole,
        });
    }
    let static_error = |why: String| NoPart {
        text: format!("deepcps: cannot compile `{}`: {why}. {WHAT}\n", file.display()),
        why,
        code: EXIT_STATIC,
    };
    let mut m = Machine::new(program);
    let reducing = Reducing::start();
    let outcome = m.run_par(limits, par);
    drop(reducing);
    match outcome {
        Outcome::Exit(v) => {
            let vars = m.exit_vars().cloned().unwrap_or_default();
            match call_with_exit(v, &vars) {
                Ok(body) => Ok(RunTimePart {
                    body,
                    vars,
                    part: Part::Built,
                }),
                Err(why) => Err(static_error(why)),
            }
        }
        Outcome::Residual => Err(static_error("staging left a residual program, not a program to run".into())),
        Outcome::Error(mut e) => {
            // The program again from its first file, as it was read.
            if let Some(p) = crate::lang::reload(sources) {
                add_calls(&mut e, p, m.counts.total());
            }
            Err(NoPart {
                text: format!(
                    "{}deepcps: staging failed; nothing compiled\n",
                    explain(&e, runtime_diagnostic(&e, sources)).render(sources, color)
                ),
                why: format!("staging failed: {}", e.kind.name()),
                code: EXIT_RUNTIME,
            })
        }
        Outcome::Limit(reason) => Err(NoPart {
            text: format!("deepcps: staging stopped: {reason}; nothing compiled\n"),
            why: format!("staging stopped: {reason}"),
            code: if matches!(reason, StopReason::Interrupted { .. }) {
                EXIT_INTERRUPTED
            } else {
                EXIT_LIMIT
            },
        }),
    }
}

impl Ctx<'_> {
    /// `deepcps compile`.
    pub fn compile(&mut self, args: &CompileArgs, limits: &Limits) -> u8 {
        let file = &args.file;
        let mut sources = SourceMap::new();
        let mut origins = None;
        let program = match &args.lang {
            Some(dir) => match self.load_lang_input(dir, file, Ending::Residual) {
                Ok(loaded) => {
                    sources = loaded.sources;
                    origins = Some(loaded.origins);
                    loaded.program
                }
                Err(code) => return code,
            },
            None => match load_program(&RealFs, file, &mut sources) {
                Ok(p) => p,
                Err(ds) => return self.static_errors(&sources, &ds),
            },
        };
        let explain = |e: &RuntimeError, d: Diagnostic| match &origins {
            Some(o) => o.explain_error(e, d),
            None => d,
        };
        let par = match parallel(args.threads) {
            Ok(p) => p,
            Err(e) => {
                let _ = writeln!(self.err, "deepcps: {e}");
                return EXIT_STATIC;
            }
        };
        let progress = progress_line();
        if !is_runtime_code(&program.body) {
            progress.set_message("staging");
        }
        let found = run_time_part(program, file, &sources, limits, &par, self.color, &explain);
        let RunTimePart { body, vars, part } = match found {
            Ok(p) => p,
            Err(no) => {
                progress.finish_and_clear();
                let _ = write!(self.err, "{}", no.text);
                return no.code;
            }
        };
        progress.set_message("translating into C");
        let stem = file.file_stem().map_or_else(|| "a".into(), |s| s.to_string_lossy().into_owned());
        let what = describe(part);
        if !args.emit_c {
            let units = match to_c_units(&body, &vars, &sources, part, Parallel::cores()) {
                Ok(units) => units,
                Err(ds) => {
                    progress.finish_and_clear();
                    return self.static_errors(&sources, &ds);
                }
            };
            let out = args.output.clone().unwrap_or_else(|| PathBuf::from(&stem));
            let built = build_units(&args.cc, &units, &out, &|m| progress.set_message(m));
            progress.finish_and_clear();
            return match built {
                Ok(()) => {
                    let _ = writeln!(self.err, "deepcps: built `{}` ({what})", out.display());
                    EXIT_OK
                }
                Err(why) => {
                    let _ = writeln!(self.err, "deepcps: {why}");
                    EXIT_STATIC
                }
            };
        }
        let c = to_c(&body, &vars, &sources, part);
        progress.finish_and_clear();
        let c = match c {
            Ok(c) => c,
            Err(ds) => return self.static_errors(&sources, &ds),
        };
        {
            let out = args.output.clone().unwrap_or_else(|| PathBuf::from(format!("{stem}.c")));
            if out.as_os_str() == "-" {
                let _ = self.out.write_all(c.as_bytes());
                let _ = writeln!(
                    self.err,
                    "deepcps: the program links with the runtime library `libdeepcps_rt.a`, which `--emit-c -o FILE` writes beside FILE"
                );
                return EXIT_OK;
            }
            if let Err(e) = std::fs::write(&out, c) {
                let _ = writeln!(self.err, "deepcps: cannot write `{}`: {e}", out.display());
                return EXIT_STATIC;
            }
            // The program links with the runtime library: written beside it,
            // with the command that builds the executable.
            let dir = match out.parent() {
                Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
                _ => PathBuf::from("."),
            };
            let link = match link_arguments(&dir) {
                Ok(link) => link,
                Err(why) => {
                    let _ = writeln!(self.err, "deepcps: {why}");
                    return EXIT_STATIC;
                }
            };
            let exe = out.with_extension("");
            let _ = writeln!(
                self.err,
                "deepcps: wrote `{}` and the runtime library `{}` ({what}); build it with\n  {} -O2 -o {} {} {}",
                out.display(),
                dir.join("libdeepcps_rt.a").display(),
                args.cc,
                exe.display(),
                out.display(),
                link.join(" ")
            );
            EXIT_OK
        }
    }

    fn static_errors(&mut self, sources: &SourceMap, ds: &[Diagnostic]) -> u8 {
        for d in ds {
            let _ = write!(self.err, "{}", d.render(sources, self.color));
        }
        EXIT_STATIC
    }
}

/// What compile takes, said when it gets something else.
const WHAT: &str = "compile takes runtime code (every body staged as natural staging stages it), \
                    or a program that stages and exits with the program it built (`$exit program`, \
                    a lambda called with the exit continuation)";

/// The runtime library of compiled programs (`machine/rt`, built by
/// `build.rs`), linked into every executable.
const RUNTIME_LIBRARY: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/libdeepcps_rt.a"));

/// The system libraries the runtime library needs, as linker arguments.
const RUNTIME_LIBRARY_NEEDS: &str = include_str!(concat!(env!("OUT_DIR"), "/rt-libs.txt"));

/// Writes the runtime library into `dir` and returns what a C compiler's
/// command line needs to link a compiled program with it (after the
/// program's C file).
pub fn link_arguments(dir: &Path) -> Result<Vec<String>, String> {
    let lib = dir.join("libdeepcps_rt.a");
    std::fs::write(&lib, RUNTIME_LIBRARY).map_err(|e| format!("cannot write `{}`: {e}", lib.display()))?;
    // Unused code of the library is dropped, and so is the debug info of
    // Rust's standard library (4 MB; the program's own symbols stay, for
    // profilers).
    let mut args = vec![
        lib.display().to_string(),
        "-Wl,--gc-sections".to_string(),
        "-Wl,--strip-debug".to_string(),
    ];
    args.extend(RUNTIME_LIBRARY_NEEDS.split_whitespace().map(String::from));
    Ok(args)
}

/// A line on stderr that says what `compile` is doing, redrawn as time
/// passes; hidden unless stderr is a terminal.
pub fn progress_line() -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("{spinner} {elapsed} {wide_msg}") {
        bar.set_style(style);
    }
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

/// Builds the C files `units` (of `to_c_units`) with the C compiler `cc`
/// into the executable `out`, linked with the runtime library: one file at
/// once, several on as many compilers at once as there are cores (the
/// largest first), then linked. `say` is told which step it is at.
pub fn build_units(cc: &str, units: &[CUnit], out: &Path, say: &(dyn Fn(String) + Sync)) -> Result<(), String> {
    static BUILDS: AtomicUsize = AtomicUsize::new(0);
    let n = BUILDS.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("deepcps-compile-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create `{}`: {e}", dir.display()))?;
    let result = (|| {
        let link = link_arguments(&dir)?;
        let run = |cmd: &mut Command| -> Result<(), String> {
            let output = cmd
                .output()
                .map_err(|e| format!("cannot run the C compiler `{cc}`: {e} (give another with --cc)"))?;
            if output.status.success() {
                Ok(())
            } else {
                Err(format!(
                    "the C compiler `{cc}` failed ({}):\n{}",
                    output.status,
                    String::from_utf8_lossy(&output.stderr)
                ))
            }
        };
        if let [unit] = units {
            let src = dir.join("program.c");
            std::fs::write(&src, &unit.text).map_err(|e| format!("cannot write `{}`: {e}", src.display()))?;
            say("compiling the C".into());
            return run(Command::new(cc).args(unit.flags()).arg("-o").arg(out).arg(&src).args(&link));
        }
        let mut objects = Vec::with_capacity(units.len());
        for (k, unit) in units.iter().enumerate() {
            let src = dir.join(format!("program{k}.c"));
            std::fs::write(&src, &unit.text).map_err(|e| format!("cannot write `{}`: {e}", src.display()))?;
            objects.push(src.with_extension("o"));
        }
        let mut order: Vec<usize> = (0..units.len()).collect();
        order.sort_by_key(|&k| std::cmp::Reverse(units[k].text.len()));
        let done = AtomicUsize::new(0);
        let next = AtomicUsize::new(0);
        let failure: Mutex<Option<String>> = Mutex::new(None);
        let done_of = |k: usize| say(format!("compiling the C: {k} of {} files done", units.len()));
        done_of(0);
        let work = || loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(&k) = order.get(i) else { break };
            if failure.lock().unwrap_or_else(PoisonError::into_inner).is_some() {
                break;
            }
            let src = objects[k].with_extension("c");
            let compiled = run(Command::new(cc)
                .args(units[k].flags())
                .arg("-c")
                .arg("-o")
                .arg(&objects[k])
                .arg(&src));
            if let Err(why) = compiled {
                failure.lock().unwrap_or_else(PoisonError::into_inner).get_or_insert(why);
                break;
            }
            done_of(done.fetch_add(1, Ordering::Relaxed) + 1);
        };
        let compilers = deepcps_machine::graph::par::Parallel::cores().clamp(1, units.len());
        std::thread::scope(|s| {
            for _ in 0..compilers {
                s.spawn(work);
            }
        });
        if let Some(why) = failure.into_inner().unwrap_or_else(PoisonError::into_inner) {
            return Err(why);
        }
        say("linking".into());
        run(Command::new(cc).arg("-o").arg(out).args(&objects).args(&link))
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}
