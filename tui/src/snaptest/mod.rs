//! `deepcps test PATH... [--bless]`: the snapshot runner for corpora kept
//! outside this repository.
//!
//! Every `.dcps` file under the paths, and every input of a language
//! folder (one holding `language.lang`; its inputs end as its `inputs`
//! line says, and run as `deepcps run --lang` runs them, see
//! [`crate::lang`]), is run (directories are searched recursively, in
//! sorted order; files given by name are taken as they are) on the graph
//! machine, as `deepcps run` runs it, within the
//! step limit of a `// max-steps: N` leading-comment directive or the
//! default one, on `--threads` reduction threads (default: all cores) or
//! those of a `// threads: N` directive. Results and step counts do not
//! depend on the thread count, and neither do the snapshots: the count is
//! written nowhere in them.
//!
//! A program's expected outcome (`// expect: exit 42`, `// expect:
//! residual`, `// expect-error: KIND`, `// expect: static-error`; the
//! directives of [`deepcps_machine::expect`]) is checked as `deepcps
//! bench` checks it ([`crate::judge`]): a run that contradicts it fails its
//! file, which `--bless` then refuses to write, naming the directive and
//! what the run gave. A program without one may end any way: its snapshots
//! record how. Two texts are made of the run and compared with the files
//! beside the program:
//!
//! - `NAME.out`: the outcome (`residual`, `exit`, `error KIND`, `limit:
//!   ...`, `static error`), the step counts by kind, the printed result
//!   (the exit value, the residual, or the term where a limit stopped the
//!   run) and the diagnostics (stuck-body warnings, the runtime error, or
//!   why the program did not load), without colour; file names in them are
//!   relative to the program's directory, so the text does not depend on
//!   where the runner was started;
//! - `NAME.graph`: the canonical graph dump of the final state
//!   ([`deepcps_machine::view::dump`]).
//!
//! A mismatch prints a unified diff (expected `-`, actual `+`); a missing
//! file is a failure with a hint to run `--bless`, which writes the files
//! that differ and says which. A malformed or unknown directive in the
//! leading comments (`// expext: exit 42`) fails its file, blessed or not.
//! Library files (no main body) are skipped.
//! Exit code: 0 when every program passes, 1 when one fails (a snapshot
//! differs or is missing, a run contradicts its directive, a directive is
//! malformed), 2 on a usage error (a path that does not exist, no program
//! found).

mod diff;

use std::collections::btree_map::Entry;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use deepcps_machine::diag::Diagnostic;
use deepcps_machine::expect::{Expectations, Expected};
use deepcps_machine::graph::calls::add_calls;
use deepcps_machine::graph::par::Parallel;
use deepcps_machine::graph::Machine;
use deepcps_machine::run::{Limits, Outcome, StopReason};
use deepcps_machine::span::SourceMap;
use deepcps_machine::syntax::load::add_source;
use deepcps_machine::syntax::parser::parse_file;
use deepcps_machine::syntax::{load_from, runtime_diagnostic, RealFs};

use crate::exit::{EXIT_LIMIT, EXIT_OK, EXIT_RUNTIME, EXIT_STATIC};
use crate::judge::{judge_run, judge_static};
use crate::views::final_dump;

/// The extension of programs.
const EXT: &str = "dcps";

/// What one program's run gave: the texts of its two snapshot files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snapshots {
    /// The text of `NAME.out`.
    pub out: String,
    /// The text of `NAME.graph`.
    pub graph: String,
}

/// One program's run: its snapshots, and how it went against its
/// expected outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ran {
    /// The texts of its snapshot files.
    pub snapshots: Snapshots,
    /// Why the run contradicts the program's outcome directive, naming the
    /// directive; `None` when it meets it or there is none.
    pub contradiction: Option<String>,
    /// The run stopped at the memory budget (what was in use, the budget):
    /// not a result a snapshot can keep, since it depends on the machine.
    pub memory: Option<String>,
}

/// Runs `deepcps test` on `paths`, each program on `threads` reduction
/// threads (all cores when `None`) unless its `// threads:` says otherwise;
/// with `bless`, writes the snapshot files instead of comparing. The report
/// goes to `out`, usage errors to `err`. Returns the exit code.
pub fn run(paths: &[PathBuf], bless: bool, threads: Option<usize>, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    let files = match discover(paths) {
        Ok(f) => f,
        Err(message) => {
            let _ = writeln!(err, "deepcps test: {message}");
            return EXIT_STATIC;
        }
    };
    let threads = threads.unwrap_or_else(Parallel::cores);
    // One `Parallel` (one pool of reduction threads) per thread count.
    let mut pars: BTreeMap<usize, Parallel> = BTreeMap::new();
    let (mut passed, mut failed, mut skipped, mut limited) = (0usize, 0usize, 0usize, 0usize);
    for file in &files {
        let text = match std::fs::read(file) {
            Ok(bytes) => bytes,
            Err(e) => {
                let _ = writeln!(out, "FAIL {}: cannot read it: {e}", file.display());
                failed += 1;
                continue;
            }
        };
        let expect = match Expectations::parse(&String::from_utf8_lossy(&text)) {
            Ok(e) => e,
            Err(e) => {
                let _ = writeln!(out, "FAIL {}:{}: {}", file.display(), e.line, e.message);
                failed += 1;
                continue;
            }
        };
        if crate::lang::language_of(file).is_none() && is_library(&text) {
            let _ = writeln!(out, "skip {} (a library: no main body)", file.display());
            skipped += 1;
            continue;
        }
        let n = expect.threads.unwrap_or(threads);
        let par = match pars.entry(n) {
            Entry::Occupied(e) => e.get().clone(),
            Entry::Vacant(e) => match Parallel::new(n) {
                Ok(p) => e.insert(p).clone(),
                Err(message) => {
                    let _ = writeln!(err, "deepcps test: {message}");
                    return EXIT_STATIC;
                }
            },
        };
        let ran = match deepcps_machine::memory::catch(|| snapshots(file, text, &par, &expect)) {
            Ok(ran) => ran,
            Err(e) => Ran {
                snapshots: Snapshots {
                    out: String::new(),
                    graph: String::new(),
                },
                contradiction: None,
                memory: Some(format!("{e}; {}", e.remedy())),
            },
        };
        if let Some(why) = &ran.memory {
            // Neither blessed nor compared: the limit depends on the machine.
            let _ = writeln!(out, "LIMIT {}: {why}", file.display());
            limited += 1;
            continue;
        }
        let ok = if bless {
            bless_one(file, &ran, out)
        } else {
            check_one(file, &ran, out)
        };
        if ok {
            passed += 1;
        } else {
            failed += 1;
        }
    }
    let mut summary = format!("{passed} passed, {failed} failed");
    if skipped > 0 {
        summary.push_str(&format!(", {skipped} skipped"));
    }
    if limited > 0 {
        summary.push_str(&format!(", {limited} stopped at the memory limit"));
    }
    let _ = writeln!(out, "{summary}");
    if failed > 0 {
        EXIT_RUNTIME
    } else if limited > 0 {
        EXIT_LIMIT
    } else {
        EXIT_OK
    }
}

/// The step limit of a program's run: its `// max-steps: N` directive,
/// else the default of the commands that limit steps.
pub fn max_steps(expect: &Expectations) -> u64 {
    expect.max_steps.unwrap_or(Limits::default().max_steps)
}

/// The `.dcps` files under `paths`, sorted and each once; an error for a
/// path that does not exist or when no program is found.
pub fn discover(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    for p in paths {
        let meta = std::fs::metadata(p).map_err(|e| format!("`{}`: {e}", p.display()))?;
        if !meta.is_dir() {
            files.push(p.clone());
            continue;
        }
        // An explicit stack: directory trees can be deep.
        let mut dirs = vec![p.clone()];
        while let Some(dir) = dirs.pop() {
            let entries = std::fs::read_dir(&dir).map_err(|e| format!("`{}`: {e}", dir.display()))?;
            for entry in entries {
                let entry = entry.map_err(|e| format!("`{}`: {e}", dir.display()))?;
                let path = entry.path();
                // `file_type` does not follow symbolic links: no cycles.
                match entry.file_type() {
                    Ok(t) if t.is_dir() => dirs.push(path),
                    Ok(_) if path.extension().is_some_and(|e| e == EXT) && crate::lang::language_of(&path).is_none() => files.push(path),
                    Ok(_) if crate::lang::language_of(&path).is_some() => files.push(path),
                    _ => {}
                }
            }
        }
    }
    files.sort();
    files.dedup();
    if files.is_empty() {
        let shown: Vec<String> = paths.iter().map(|p| format!("`{}`", p.display())).collect();
        return Err(format!("no `.{EXT}` program under {}", shown.join(", ")));
    }
    Ok(files)
}

/// Whether `text` parses as a file with definitions only (a library).
fn is_library(text: &[u8]) -> bool {
    let text = String::from_utf8_lossy(text);
    let mut sources = SourceMap::new();
    let id = sources.add("", None, text.to_string());
    matches!(parse_file(&text, id), Ok(f) if f.main.is_none())
}

/// Why a run that was judged `judged` contradicts `expected`, naming the
/// directive; `None` when it meets it.
fn contradiction(expected: &Expected, judged: Result<(), String>) -> Option<String> {
    judged
        .err()
        .map(|why| format!("the run contradicts its directive `// expect: {expected}`: {why}"))
}

/// Runs the program `file` (whose bytes are `bytes`, whose directives are
/// `expect`) on the threads of `par`, within its step limit or the default
/// of `deepcps run`; makes its snapshot texts and judges it against its
/// expected outcome.
pub fn snapshots(file: &Path, bytes: Vec<u8>, par: &Parallel, expect: &Expectations) -> Ran {
    let dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
    let name = file
        .file_name()
        .map_or_else(|| file.display().to_string(), |n| n.to_string_lossy().into_owned());
    let limits = Limits {
        max_steps: max_steps(expect),
        ..Limits::default()
    };
    let mut sources = SourceMap::new();
    // The main file is named by its file name alone; included files by
    // their path, made relative to the program's directory below.
    let reload = |bytes: Vec<u8>| {
        let mut sources = SourceMap::new();
        add_source(&mut sources, &name, Some(file.to_path_buf()), bytes)
            .ok()
            .and_then(|id| load_from(&RealFs, id, &mut sources, false).ok())
    };
    let again = bytes.clone();
    let lang = crate::lang::language_of(file);
    let mut origins = None;
    let loaded = match &lang {
        Some(dir) => match crate::lang::build_file(dir, file, &name) {
            Ok(l) => {
                sources = l.sources;
                origins = Some(l.origins);
                Ok(l.program)
            }
            Err((s, ds)) => {
                sources = s;
                Err(ds)
            }
        },
        None => add_source(&mut sources, &name, Some(file.to_path_buf()), bytes)
            .map_err(|d| vec![d])
            .and_then(|id| load_from(&RealFs, id, &mut sources, false)),
    };
    let explain = |d: Diagnostic| match &origins {
        Some(o) => o.explain(d),
        None => d,
    };
    let program = match loaded {
        Ok(p) => p,
        Err(ds) => {
            return Ran {
                snapshots: Snapshots {
                    out: format!("outcome: static error\n--- diagnostics\n{}", relative(&render(&sources, &ds), &dir)),
                    graph: "no graph: the program did not load\n".to_string(),
                },
                contradiction: expect.outcome.as_ref().and_then(|e| contradiction(e, judge_static(Some(e), &ds))),
                memory: None,
            };
        }
    };
    let mut m = Machine::new(program);
    let report = m.report_par(&limits, par);
    if let Outcome::Limit(r @ StopReason::Memory { spent, .. }) = &report.outcome {
        return Ran {
            snapshots: Snapshots {
                out: String::new(),
                graph: String::new(),
            },
            contradiction: None,
            memory: Some(format!("{r}; {}", spent.remedy())),
        };
    }
    let graph = final_dump(&m, &report.outcome);
    // The snapshot files are compared whole; the verdict sees no snapshot.
    let contradiction = expect
        .outcome
        .as_ref()
        .and_then(|e| contradiction(e, judge_run(Some(e), &report, None)));
    let outcome = match &report.outcome {
        Outcome::Residual => "residual".to_string(),
        Outcome::Exit(_) => "exit".to_string(),
        Outcome::Error(e) => format!("error {}", e.kind.name()),
        Outcome::Limit(r) => format!("limit: {r}"),
    };
    let mut text = format!("outcome: {outcome}\n{}\n", report.counts);
    if !matches!(report.outcome, Outcome::Error(_)) {
        text.push_str("--- result\n");
        text.push_str(&report.text);
        if !report.text.ends_with('\n') {
            text.push('\n');
        }
    }
    let mut diags: Vec<Diagnostic> = report.warnings.iter().cloned().map(explain).collect();
    if let Outcome::Error(e) = &report.outcome {
        let mut e = e.clone();
        let again = if lang.is_some() {
            crate::lang::reload(&sources)
        } else {
            reload(again)
        };
        if let Some(p) = again {
            add_calls(&mut e, p, report.counts.total());
        }
        let d = runtime_diagnostic(&e, &sources);
        diags.push(match &origins {
            Some(o) => o.explain_error(&e, d),
            None => d,
        });
    }
    if !diags.is_empty() {
        text.push_str("--- diagnostics\n");
        text.push_str(&relative(&render(&sources, &diags), &dir));
    }
    Ran {
        snapshots: Snapshots { out: text, graph },
        contradiction,
        memory: None,
    }
}

/// Diagnostics rendered without colour.
fn render(sources: &SourceMap, diags: &[Diagnostic]) -> String {
    diags.iter().map(|d| d.render(sources, false)).collect()
}

/// `text` with the program's directory `dir/` removed from file paths.
fn relative(text: &str, dir: &Path) -> String {
    let dir = dir.display().to_string();
    if dir.is_empty() {
        return text.to_string();
    }
    let sep = std::path::MAIN_SEPARATOR;
    text.replace(&format!("{dir}{sep}"), "")
}

/// The paths of a program's snapshot files: `NAME.out`, `NAME.graph`.
pub fn snapshot_paths(file: &Path) -> (PathBuf, PathBuf) {
    (file.with_extension("out"), file.with_extension("graph"))
}

/// Compares the snapshots of the run `ran` of `file` with the files beside
/// it and the run with its directive; reports to `out`. Whether they match
/// and the run meets its directive.
fn check_one(file: &Path, ran: &Ran, out: &mut dyn Write) -> bool {
    let (out_path, graph_path) = snapshot_paths(file);
    let snaps = &ran.snapshots;
    let mut problems: Vec<String> = ran.contradiction.iter().map(|c| format!("  {c}\n")).collect();
    let mut missing = Vec::new();
    for (path, actual) in [(&out_path, &snaps.out), (&graph_path, &snaps.graph)] {
        match std::fs::read(path) {
            Ok(bytes) => {
                let expected = String::from_utf8_lossy(&bytes);
                if expected != actual.as_str() {
                    problems.push(diff::unified(&expected, actual, &path.display().to_string()));
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                missing.push(path.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned()));
            }
            Err(e) => problems.push(format!("cannot read {}: {e}\n", path.display())),
        }
    }
    if !missing.is_empty() {
        // `--bless` refuses a run that contradicts its directive: no hint
        // to run it then.
        let hint = if ran.contradiction.is_some() {
            String::new()
        } else {
            format!(
                " (run `deepcps test --bless {}` to write {})",
                file.display(),
                if missing.len() > 1 { "them" } else { "it" }
            )
        };
        let at = usize::from(ran.contradiction.is_some());
        problems.insert(
            at,
            format!(
                "  missing snapshot{} {}{hint}\n",
                if missing.len() > 1 { "s" } else { "" },
                missing.join(", "),
            ),
        );
    }
    if problems.is_empty() {
        let _ = writeln!(out, "ok   {}", file.display());
        true
    } else {
        let _ = writeln!(out, "FAIL {}", file.display());
        for p in problems {
            let _ = write!(out, "{p}");
        }
        false
    }
}

/// Writes the snapshots of the run `ran` of `file` that differ from the
/// files beside it, unless the run contradicts its directive (then nothing
/// is written); reports to `out`. Whether the run met its directive and
/// every write succeeded.
fn bless_one(file: &Path, ran: &Ran, out: &mut dyn Write) -> bool {
    if let Some(c) = &ran.contradiction {
        let _ = writeln!(out, "FAIL {}: not blessed: {c}", file.display());
        return false;
    }
    let (out_path, graph_path) = snapshot_paths(file);
    let snaps = &ran.snapshots;
    let mut written = Vec::new();
    let mut ok = true;
    for (path, actual) in [(&out_path, &snaps.out), (&graph_path, &snaps.graph)] {
        if std::fs::read(path).is_ok_and(|old| old == actual.as_bytes()) {
            continue;
        }
        match std::fs::write(path, actual) {
            Ok(()) => written.push(path.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned())),
            Err(e) => {
                let _ = writeln!(out, "FAIL {}: cannot write {}: {e}", file.display(), path.display());
                ok = false;
            }
        }
    }
    if ok {
        if written.is_empty() {
            let _ = writeln!(out, "ok   {} (snapshots unchanged)", file.display());
        } else {
            let _ = writeln!(out, "wrote {} ({})", file.display(), written.join(", "));
        }
    }
    ok
}
