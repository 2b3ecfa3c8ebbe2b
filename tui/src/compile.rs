//! `deepcps compile`: stages a program as `run` does, translates the code
//! left to run into C (`deepcps_machine::compile`) and builds it with the
//! system's C compiler into an executable that prints what `run` prints.

use std::path::{Path, PathBuf};
use std::process::Command;

use deepcps_machine::compile::{call_with_exit, is_runtime_code, to_c};
use deepcps_machine::diag::Diagnostic;
use deepcps_machine::graph::calls::add_calls;
use deepcps_machine::graph::Machine;
use deepcps_machine::run::{Limits, Outcome, StopReason};
use deepcps_machine::span::SourceMap;
use deepcps_machine::syntax::{load_program, RealFs};

use crate::args::parallel;
use crate::commands::Ctx;
use crate::ctrl_c::Reducing;
use crate::exit::{EXIT_INTERRUPTED, EXIT_LIMIT, EXIT_OK, EXIT_RUNTIME, EXIT_STATIC};

/// The arguments of `deepcps compile`.
#[derive(clap::Args, Debug)]
pub struct CompileArgs {
    /// The program (`.dcps`).
    pub file: PathBuf,
    /// The executable to write (default: the program's name without
    /// `.dcps`, in the current directory; with `--emit-c`, that name with
    /// `.c`).
    #[arg(short, long, value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// Write the C program instead of building it.
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
    #[arg(long, value_parser = crate::args::parse_seconds)]
    pub timeout: Option<std::time::Duration>,
}

/// How the program's run-time part was found.
enum Part {
    /// The program is runtime code as it stands.
    Whole,
    /// Staging built this lambda, which is called with `$exit`.
    Built,
}

impl Ctx<'_> {
    /// `deepcps compile`.
    pub fn compile(&mut self, args: &CompileArgs, limits: &Limits) -> u8 {
        let file = &args.file;
        let mut sources = SourceMap::new();
        let program = match load_program(&RealFs, file, &mut sources) {
            Ok(p) => p,
            Err(ds) => return self.static_errors(&sources, &ds),
        };
        let (body, vars, part) = if is_runtime_code(&program.body) {
            (program.body, program.vars, Part::Whole)
        } else {
            let par = match parallel(args.threads) {
                Ok(p) => p,
                Err(e) => {
                    let _ = writeln!(self.err, "deepcps: {e}");
                    return EXIT_STATIC;
                }
            };
            let mut m = Machine::new(program);
            let reducing = Reducing::start();
            let outcome = m.run_par(limits, &par);
            drop(reducing);
            match outcome {
                Outcome::Exit(v) => {
                    let vars = m.exit_vars().cloned().unwrap_or_default();
                    match call_with_exit(v, &vars) {
                        Ok(body) => (body, vars, Part::Built),
                        Err(why) => {
                            let _ = writeln!(self.err, "deepcps: cannot compile `{}`: {why}. {WHAT}", file.display());
                            return EXIT_STATIC;
                        }
                    }
                }
                Outcome::Residual => {
                    let _ = writeln!(
                        self.err,
                        "deepcps: cannot compile `{}`: staging left a residual program, not a program to run. \
                         {WHAT}",
                        file.display()
                    );
                    return EXIT_STATIC;
                }
                Outcome::Error(mut e) => {
                    if let Ok(p) = load_program(&RealFs, file, &mut SourceMap::new()) {
                        add_calls(&mut e, p, m.counts.total());
                    }
                    let _ = write!(self.err, "{}", Diagnostic::runtime(&e, &sources).render(&sources, self.color));
                    let _ = writeln!(self.err, "deepcps: staging failed; nothing compiled");
                    return EXIT_RUNTIME;
                }
                Outcome::Limit(reason) => {
                    let _ = writeln!(self.err, "deepcps: staging stopped: {reason}; nothing compiled");
                    return if matches!(reason, StopReason::Interrupted { .. }) {
                        EXIT_INTERRUPTED
                    } else {
                        EXIT_LIMIT
                    };
                }
            }
        };
        let c = match to_c(&body, &vars, &sources) {
            Ok(c) => c,
            Err(ds) => return self.static_errors(&sources, &ds),
        };
        let stem = file.file_stem().map_or_else(|| "a".into(), |s| s.to_string_lossy().into_owned());
        let what = match part {
            Part::Whole => "runtime code as written",
            Part::Built => "the program built by staging",
        };
        if args.emit_c {
            let out = args.output.clone().unwrap_or_else(|| PathBuf::from(format!("{stem}.c")));
            if let Err(e) = std::fs::write(&out, c) {
                let _ = writeln!(self.err, "deepcps: cannot write `{}`: {e}", out.display());
                return EXIT_STATIC;
            }
            let _ = writeln!(self.err, "deepcps: wrote `{}` ({what})", out.display());
            return EXIT_OK;
        }
        let out = args.output.clone().unwrap_or_else(|| PathBuf::from(&stem));
        match build(&args.cc, &c, &out, &stem) {
            Ok(()) => {
                let _ = writeln!(self.err, "deepcps: built `{}` ({what})", out.display());
                EXIT_OK
            }
            Err(why) => {
                let _ = writeln!(self.err, "deepcps: {why}");
                EXIT_STATIC
            }
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

/// Builds `c` with the C compiler `cc` into `out`.
fn build(cc: &str, c: &str, out: &Path, stem: &str) -> Result<(), String> {
    let dir = std::env::temp_dir().join(format!("deepcps-compile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create `{}`: {e}", dir.display()))?;
    let src = dir.join(format!("{}.c", sanitize(stem)));
    let result = (|| {
        std::fs::write(&src, c).map_err(|e| format!("cannot write `{}`: {e}", src.display()))?;
        let output = Command::new(cc)
            .arg("-O2")
            .arg("-o")
            .arg(out)
            .arg(&src)
            .arg("-lm")
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
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' })
        .collect()
}
