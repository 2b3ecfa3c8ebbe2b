//! `deepcps bench PATH..`: runs every program under the paths on the graph
//! machine, each on `--threads` reduction threads (or its `// threads:`),
//! `--jobs` programs at once over a rayon pool, and reports a table (and
//! JSON, CSV, a comparison with a baseline, a plot of the scaling
//! families).
//!
//! - [`discover`]: the programs under the paths, their directives, shards;
//! - [`run`]: one program → one [`run::Row`], limits and panics included;
//! - [`table`], [`json`], [`csv`]: the rows as text, JSON, CSV;
//! - [`baseline`]: ratios to an earlier JSON and regressions;
//! - [`merge`]: the JSON files of a sharded run put back together;
//! - [`scale`], [`plot`]: the scaling families (`// scale:`) at several
//!   sizes, drawn (SVG);
//! - [`compiled`]: `--compiled`, each program's executable timed beside
//!   the machine;
//! - this module: the flags, and the pools the programs and their
//!   reduction threads run on.
//!
//! Exit codes: 0 every program passed (and no regression), 1 a program
//! failed or regressed, 2 a usage error (a missing path, a malformed
//! directive, a bad shard, an unreadable baseline, shards that do not
//! merge, an unwritable output).

pub mod baseline;
pub mod compiled;
pub mod csv;
pub mod discover;
pub mod json;
pub mod merge;
pub mod plot;
pub mod run;
pub mod scale;
pub mod table;

use std::collections::btree_map::Entry;
use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use deepcps_machine::expect::Expected;
use deepcps_machine::graph::par::Parallel;
use deepcps_machine::run::Limits;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::ctrl_c::{Reducing, INTERRUPT};
use crate::exit::EXIT_INTERRUPTED;
use crate::text::plural;

use discover::BenchProgram;
use run::{Job, Row, RowStatus};

/// Exit code: a program failed or regressed.
const EXIT_FAIL: u8 = 1;
/// Exit code: usage error.
const EXIT_USAGE: u8 = 2;

/// Stack of each worker thread: the machine iterates, but the expression
/// evaluator and staging expressions still recurse.
const STACK: usize = 256 << 20;

/// The flags of `deepcps bench`.
#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// Files or directories (searched recursively for `.dcps` files).
    #[arg(required_unless_present = "merge", value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Instead of running programs, merge the JSON files that the shards
    /// of one run wrote (each with `--shard` K/N and `--json` FILE) into the
    /// table of the whole run; `--baseline`, `--json`, `--csv` and `--plot`
    /// work on it as on a run. Shards of other corpora or settings, shards
    /// given twice and missing shards are refused.
    #[arg(
        long,
        value_name = "FILE",
        num_args = 1..,
        conflicts_with_all = ["paths", "threads", "jobs", "max_steps", "timeout", "max_nodes", "shard", "compiled", "sizes"]
    )]
    pub merge: Option<Vec<PathBuf>>,
    /// Reduction threads of each program's machine (default: all cores; 1
    /// is the sequential machine). A program's `threads:` directive
    /// overrides it.
    #[arg(long, value_name = "N", value_parser = crate::args::parse_threads)]
    pub threads: Option<usize>,
    /// Programs run at once (default 1: each program's time is its own).
    #[arg(long, value_name = "J", default_value_t = 1, value_parser = parse_jobs)]
    pub jobs: usize,
    /// Step limit of each program, unless its `max-steps:` directive says
    /// otherwise.
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_steps)]
    pub max_steps: u64,
    /// Wall-time limit of each program, in seconds (fractions allowed).
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds, default_value = "60")]
    pub timeout: Duration,
    /// Live-node limit of each program.
    #[arg(long, value_name = "N")]
    pub max_nodes: Option<usize>,
    /// Run only shard K of N: every N-th program from the K-th on.
    #[arg(long, value_name = "K/N", value_parser = parse_shard)]
    pub shard: Option<(usize, usize)>,
    /// Write the rows as JSON to FILE (`-`: stdout, the table then goes to
    /// stderr).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write the rows as CSV to FILE (`-`: stdout).
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Compare with an earlier run's JSON: ratios, and regressions beyond
    /// the threshold (exit code 1).
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Ratio new/old above which steps, wall time or peak nodes regressed.
    #[arg(long, value_name = "RATIO", default_value_t = 1.25, value_parser = parse_threshold)]
    pub threshold: f64,
    /// Wall-time regressions of runs shorter than this (seconds) are not
    /// flagged: they are noise.
    #[arg(long, value_name = "SECONDS", default_value_t = 0.01)]
    pub min_time: f64,
    /// Also run the scaling families (programs with a `scale:` directive)
    /// at their sizes and draw time and memory against size into this SVG
    /// file.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// Also compile each program's run-time part (as the compile command
    /// does), run the executable and time it beside the machine's run of
    /// the same part: three more columns (compiled time, how many times
    /// faster or slower than the machine, whether it printed the same).
    #[arg(long)]
    pub compiled: bool,
    /// Sizes for every scaling family instead of those of their `scale:`
    /// directives.
    #[arg(long, value_name = "N,N,..", value_delimiter = ',', requires = "plot")]
    pub sizes: Option<Vec<u64>>,
}

/// Runs `deepcps bench`; returns the exit code.
pub fn main(args: BenchArgs, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    match bench(&args, out, err) {
        Ok(code) => code,
        Err(msg) => {
            let _ = writeln!(err, "deepcps bench: {msg}");
            EXIT_USAGE
        }
    }
}

fn bench(args: &BenchArgs, out: &mut dyn Write, err: &mut dyn Write) -> Result<u8, String> {
    check_outputs(args)?;
    let file = match &args.merge {
        Some(files) => {
            let baseline = args.baseline.as_deref().map(baseline::Baseline::load).transpose()?;
            let file = merge::merge(files)?;
            if args.plot.is_some() && file.families.is_empty() {
                return Err("--plot: the shards ran no scaling family; run them with --plot".into());
            }
            (file, baseline)
        }
        None => run_all(args)?,
    };
    Ok(report(args, file, out, err))
}

/// Runs the programs under the paths (the shard of them, with `--shard`):
/// the run and the baseline to compare it with.
fn run_all(args: &BenchArgs) -> Result<(json::BenchFile, Option<baseline::Baseline>), String> {
    let found = discover::discover(&args.paths)?;
    let baseline = args.baseline.as_deref().map(baseline::Baseline::load).transpose()?;
    let mut programs = found.programs;
    let total_found = programs.len();
    if total_found == 0 {
        return Err(format!(
            "no programs under {} ({} left out)",
            args.paths
                .iter()
                .map(|p| format!("`{}`", p.display()))
                .collect::<Vec<_>>()
                .join(", "),
            plural(found.libraries.len(), "library", "libraries")
        ));
    }
    let corpus = json::Corpus {
        programs: total_found,
        libraries: found.libraries.len(),
        fingerprint: json::fingerprint(programs.iter().map(|p| (p.name.as_str(), p.bytes.as_slice()))),
    };
    if let Some((k, n)) = args.shard {
        programs = discover::shard(programs, k, n);
    }
    let families = scaled_jobs(args, &programs)?;
    let threads = args.threads.unwrap_or_else(Parallel::cores);
    let jobs = args.jobs;
    // One `Parallel` (one pool of reduction threads) per thread count,
    // shared by every program run with it.
    let threads_of = |p: &BenchProgram| p.expect.threads.unwrap_or(threads);
    let mut pars: BTreeMap<usize, Parallel> = BTreeMap::new();
    for n in std::iter::once(threads).chain(programs.iter().map(threads_of)) {
        if let Entry::Vacant(e) = pars.entry(n) {
            e.insert(Parallel::new(n)?);
        }
    }
    let par_of = |p: &BenchProgram| pars[&threads_of(p)].clone();
    let limits = |p: &BenchProgram| Limits {
        max_steps: p.expect.max_steps.unwrap_or(args.max_steps),
        timeout: Some(args.timeout),
        max_nodes: args.max_nodes,
        // Ctrl-C stops the program running; the rest are not started.
        interrupt: Some(&INTERRUPT),
        max_output: None,
        ..Limits::default()
    };

    let scaled_count: usize = families.iter().map(|f| f.1.len()).sum();
    let progress = progress_bar((programs.len() + scaled_count) as u64);
    let started = Instant::now();
    let _reducing = Reducing::start();
    let one = |p: &&BenchProgram| {
        if INTERRUPT.load(Ordering::Relaxed) {
            return None;
        }
        progress.set_message(p.name.clone());
        let snapshot = std::fs::read_to_string(p.path.with_extension("out"))
            .ok()
            .map(|text| crate::judge::printed_result(&text).to_string());
        let row = run::run(&Job {
            name: &p.name,
            path: &p.path,
            bytes: &p.bytes,
            expected: p.expect.outcome.as_ref(),
            snapshot: snapshot.as_deref(),
            limits: limits(p),
            par: par_of(p),
            compiled: args.compiled,
        });
        progress.inc(1);
        Some(row)
    };
    // Programs that ask for a number of threads are timed alone, after the
    // others.
    let (alone, shared): (Vec<&BenchProgram>, Vec<&BenchProgram>) = programs.iter().partition(|p| p.expect.threads.is_some());
    let mut rows: Vec<Row> = on_workers(jobs, &shared, one)?;
    rows.extend(on_workers(1, &alone, one)?);
    rows.sort_by(|a, b| a.program.cmp(&b.program));

    // Scaling runs, one at a time so that their times are not shared.
    let mut curves = Vec::new();
    let mut scaled_rows = Vec::new();
    for (p, sizes) in &families {
        let Some(sc) = &p.expect.scale else { continue };
        let mut family = scale::Family {
            program: p.name.clone(),
            name: p
                .path
                .file_stem()
                .map_or_else(|| p.name.clone(), |s| s.to_string_lossy().into_owned()),
            var: sc.var.clone(),
            size: if sc.power_of_two {
                format!("(2^{})", sc.var)
            } else {
                sc.var.clone()
            },
            points: Vec::new(),
        };
        // Only the kind of outcome is checked at other sizes.
        let kind = p.expect.outcome.as_ref().map(|o| match o {
            Expected::Exit(_) => Expected::Exit(None),
            other => other.clone(),
        });
        for (size, bytes) in sizes {
            if INTERRUPT.load(Ordering::Relaxed) {
                break;
            }
            let name = format!("{} {}={size}", p.name, sc.var);
            progress.set_message(name.clone());
            let job = Job {
                name: &name,
                path: &p.path,
                bytes,
                expected: kind.as_ref(),
                snapshot: None,
                limits: limits(p),
                par: par_of(p),
                compiled: args.compiled,
            };
            let Some(row) = on_workers(1, &[&job], |j: &&Job| Some(run::run(j)))?.pop() else {
                break;
            };
            progress.inc(1);
            if matches!(row.result.as_str(), "exit" | "residual") {
                family.points.push(scale::Point {
                    size: sc.size_of(*size),
                    wall_s: row.wall_s,
                    peak: row.peak_live_nodes,
                });
            }
            scaled_rows.push(row);
        }
        curves.push(family);
    }
    progress.finish_and_clear();
    let header = json::Header {
        version: env!("CARGO_PKG_VERSION").to_string(),
        settings: json::Settings {
            threads,
            jobs,
            max_steps: args.max_steps,
            timeout_s: args.timeout.as_secs_f64(),
            max_nodes: args.max_nodes,
            compiled: args.compiled,
            plot: args.plot.is_some(),
            sizes: args.sizes.clone(),
        },
        corpus,
        shard: args.shard.map(|(k, n)| json::Shard { k, n }),
        merged: 0,
        elapsed_s: started.elapsed().as_secs_f64(),
        interrupted: INTERRUPT.load(Ordering::Relaxed),
    };
    let file = json::BenchFile {
        bench: header,
        rows,
        scaling_rows: scaled_rows,
        families: curves,
    };
    Ok((file, baseline))
}

/// The table, the summary and the outputs of a run (or of shards merged),
/// compared with the baseline if there is one; returns the exit code.
fn report(
    args: &BenchArgs,
    (mut file, baseline): (json::BenchFile, Option<baseline::Baseline>),
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    let comparison = baseline.as_ref().map(|b| b.compare(&mut file.rows, args.threshold, args.min_time));
    if let Some(b) = &baseline {
        b.compare(&mut file.scaling_rows, args.threshold, args.min_time);
    }
    let json::BenchFile {
        bench: head,
        rows,
        scaling_rows: scaled_rows,
        families: curves,
    } = &file;
    let all: Vec<Row> = rows.iter().chain(scaled_rows).cloned().collect();
    let threads = head.settings.threads;
    let total_found = head.corpus.programs;

    let to_stdout = |p: &Option<PathBuf>| p.as_deref() == Some(Path::new("-"));
    let table_to_err = to_stdout(&args.json) || to_stdout(&args.csv);
    let mut report = table::render(rows, baseline.is_some());
    if !scaled_rows.is_empty() {
        report.push_str("\nscaling runs\n");
        report.push_str(&table::render(scaled_rows, baseline.is_some()));
        for f in curves {
            let words = |k: Option<f64>| k.map_or("-".to_string(), |k| format!("{}^{k:.2} ({})", f.size, scale::growth(k)));
            report.push_str(&format!(
                "{}: time ∝ {}, peak nodes ∝ {}\n",
                f.name,
                words(f.time_slope()),
                words(f.memory_slope())
            ));
        }
    }
    if let Some(c) = &comparison {
        for (program, what) in &c.regressions {
            report.push_str(&format!("REGRESSION {program}: {what}\n"));
        }
    }
    let passed = all.iter().filter(|r| r.status == RowStatus::Pass).count();
    let failed = all.len() - passed;
    let mut summary = format!("summary: {}", plural(rows.len(), "program", "programs"));
    if !scaled_rows.is_empty() {
        summary.push_str(&format!(" and {}", plural(scaled_rows.len(), "scaling run", "scaling runs")));
    }
    summary.push_str(&format!(": {passed} pass, {failed} fail"));
    let of_corpus = plural(total_found, "program", "programs");
    if let Some(json::Shard { k, n }) = head.shard {
        summary.push_str(&format!("; shard {k}/{n} of {of_corpus}"));
    }
    if head.merged > 0 {
        summary.push_str(&format!("; merged from {} of {of_corpus}", plural(head.merged, "shard", "shards")));
    }
    if head.corpus.libraries > 0 {
        summary.push_str(&format!("; {} left out", plural(head.corpus.libraries, "library", "libraries")));
    }
    let steps: u64 = all.iter().map(|r| r.steps).sum();
    let busy: f64 = all.iter().map(|r| r.wall_s).sum();
    let steps = if steps == 1 {
        "1 step".to_string()
    } else {
        format!("{steps} steps")
    };
    let elapsed = table::seconds(head.elapsed_s);
    let took = if head.merged > 0 {
        format!("in shards of up to {elapsed}")
    } else {
        format!("in {elapsed}")
    };
    summary.push_str(&format!(
        "; {steps}, {} of runs {took}; {} at once, {} each",
        table::seconds(busy),
        plural(head.settings.jobs, "job", "jobs"),
        plural(threads, "reduction thread", "reduction threads")
    ));
    let own = rows.iter().filter(|r| r.threads != threads).count();
    if own > 0 {
        summary.push_str(&format!(
            " ({} by {} `// threads:`)",
            plural(own, "program", "programs"),
            if own == 1 { "its" } else { "their" }
        ));
    }
    if let Some(c) = &comparison {
        summary.push_str(&format!(
            "; against {}: {} (threshold {}x), {} improved, {} new, {} not run",
            args.baseline.as_deref().map_or_else(String::new, |p| p.display().to_string()),
            plural(c.regressions.len(), "regression", "regressions"),
            args.threshold,
            c.improved,
            c.new,
            c.missing
        ));
    }
    if head.interrupted {
        let shard_size = head.shard.map_or(total_found, |s| merge::shard_len(total_found, s.k, s.n));
        summary.push_str(&format!(
            "; interrupted (Ctrl-C): {} of {} run",
            rows.len(),
            plural(shard_size, "program", "programs")
        ));
    }
    report.push_str(&summary);
    report.push('\n');

    let mut written = Ok(());
    if let Some(path) = &args.json {
        written = written.and_then(|()| emit(path, &json::render(&file)?, out));
    }
    if let Some(path) = &args.csv {
        written = written.and_then(|()| emit(path, &csv::render(&all)?, out));
    }
    if let Some(path) = &args.plot {
        written = written.and_then(|()| plot::draw(path, &file.families));
    }
    if table_to_err {
        let _ = write!(err, "{report}");
    } else {
        let _ = write!(out, "{report}");
    }
    if let Err(msg) = written {
        let _ = writeln!(err, "deepcps bench: {msg}");
        return EXIT_USAGE;
    }
    let regressions = comparison.is_some_and(|c| !c.regressions.is_empty());
    if file.bench.interrupted {
        EXIT_INTERRUPTED
    } else if failed > 0 || regressions {
        EXIT_FAIL
    } else {
        0
    }
}

/// Runs `f` on every item on `jobs` plain threads with a stack of
/// [`STACK`] bytes, each taking the next item when it is free, and returns
/// the results in the items' order; a `None` (the item was not started:
/// Ctrl-C) is left out. The threads are not rayon workers on purpose: a
/// rayon worker waiting for a program's reduction pool steals and starts
/// another program meanwhile, and the programs' times would overlap.
fn on_workers<T: Sync, R: Send>(jobs: usize, items: &[T], f: impl Fn(&T) -> Option<R> + Sync) -> Result<Vec<R>, String> {
    let next = AtomicUsize::new(0);
    let done = Mutex::new(Vec::with_capacity(items.len()));
    let work = || loop {
        let k = next.fetch_add(1, Ordering::Relaxed);
        let Some(item) = items.get(k) else { break };
        if let Some(r) = f(item) {
            done.lock().unwrap_or_else(PoisonError::into_inner).push((k, r));
        }
    };
    std::thread::scope(|s| {
        let mut workers = Vec::new();
        for i in 0..jobs.min(items.len()) {
            let w = std::thread::Builder::new()
                .name(format!("deepcps-bench-{i}"))
                .stack_size(deepcps_machine::memory::stack(STACK))
                .spawn_scoped(s, work)
                .map_err(|e| format!("cannot start a bench thread: {e}"))?;
            workers.push(w);
        }
        for w in workers {
            w.join()
                .map_err(|_| "a bench thread failed (a bug; please report it)".to_string())?;
        }
        Ok::<(), String>(())
    })?;
    let mut done = done.into_inner().unwrap_or_else(PoisonError::into_inner);
    done.sort_by_key(|&(k, _)| k);
    Ok(done.into_iter().map(|(_, r)| r).collect())
}

/// A scaling family's program and its source at each size.
type Scaled<'p> = (&'p BenchProgram, Vec<(u64, Vec<u8>)>);

/// For `--plot`: the scaling families among `programs` with the source of
/// each size. A family whose size line is missing is a usage error.
fn scaled_jobs<'p>(args: &BenchArgs, programs: &'p [BenchProgram]) -> Result<Vec<Scaled<'p>>, String> {
    if args.plot.is_none() {
        return Ok(Vec::new());
    }
    let mut jobs = Vec::new();
    for p in programs {
        let Some(sc) = &p.expect.scale else { continue };
        let text = String::from_utf8_lossy(&p.bytes);
        let sizes = args.sizes.as_ref().unwrap_or(&sc.sizes);
        let mut sources = Vec::new();
        for &n in sizes {
            let s = scale::resize(&text, &sc.var, n)
                .ok_or_else(|| format!("{}: `scale: {}` but no line `let {} = ...` to resize", p.name, sc.var, sc.var))?;
            sources.push((n, s.into_bytes()));
        }
        jobs.push((p, sources));
    }
    if jobs.is_empty() {
        return Err(
            "--plot: no scaling family (a program with a `// scale: VAR SIZES..` directive) under the paths; try corpus/bench".into(),
        );
    }
    Ok(jobs)
}

/// Refuses, before anything runs, output paths that cannot be written and
/// two outputs to stdout (`--json - --csv -` could not be told apart).
fn check_outputs(args: &BenchArgs) -> Result<(), String> {
    let dash = Path::new("-");
    if args.json.as_deref() == Some(dash) && args.csv.as_deref() == Some(dash) {
        return Err("--json - and --csv - both write to stdout; send one of them to a file".into());
    }
    if args.plot.as_deref() == Some(dash) {
        return Err("--plot needs a file name (an SVG file), not `-`".into());
    }
    for (flag, path) in [("--json", &args.json), ("--csv", &args.csv), ("--plot", &args.plot)] {
        let Some(path) = path.as_deref().filter(|p| *p != dash) else {
            continue;
        };
        writable(path).map_err(|why| format!("{flag} `{}`: {why}", path.display()))?;
    }
    Ok(())
}

/// Whether `path` can be written: its directory exists and the file can be
/// opened for writing (a file made only to find out is removed again).
fn writable(path: &Path) -> Result<(), String> {
    if path.is_dir() {
        return Err("is a directory".into());
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        return Err(format!("there is no directory `{}`", dir.display()));
    }
    let existed = path.exists();
    std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .map_err(|e| format!("cannot write it: {e}"))?;
    if !existed {
        let _ = std::fs::remove_file(path);
    }
    Ok(())
}

/// Writes `text` to `path`, or to `out` for `-`.
fn emit(path: &Path, text: &str, out: &mut dyn Write) -> Result<(), String> {
    if path == Path::new("-") {
        out.write_all(text.as_bytes()).map_err(|e| format!("cannot write to stdout: {e}"))
    } else {
        std::fs::write(path, text).map_err(|e| format!("cannot write `{}`: {e}", path.display()))
    }
}

/// A progress bar on stderr when it is a terminal; hidden otherwise.
fn progress_bar(len: u64) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("{bar:30} {pos}/{len} {elapsed} {wide_msg}") {
        bar.set_style(style);
    }
    // Redrawn every 200 ms, so that the time moves during a long program.
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

/// `K/N` with `1 <= K <= N`.
fn parse_shard(s: &str) -> Result<(usize, usize), String> {
    let bad = || format!("`{s}` is not a shard K/N with 1 <= K <= N (e.g. 1/4)");
    let (k, n) = s.split_once('/').ok_or_else(bad)?;
    let k: usize = k.trim().parse().map_err(|_| bad())?;
    let n: usize = n.trim().parse().map_err(|_| bad())?;
    if k == 0 || n == 0 || k > n {
        return Err(bad());
    }
    Ok((k, n))
}

/// A number of programs run at once: at least 1.
fn parse_jobs(s: &str) -> Result<usize, String> {
    crate::args::parse_count(s, "jobs", "")
}

/// A ratio of at least 1.
fn parse_threshold(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 1.0 => Ok(x),
        _ => Err(format!("`{s}` is not a ratio of at least 1 (e.g. 1.25)")),
    }
}

/// A number of seconds (fractions allowed).
fn parse_seconds(s: &str) -> Result<Duration, String> {
    match s.parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 0.0 => Ok(Duration::from_secs_f64(x)),
        _ => Err(format!("`{s}` is not a number of seconds")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards() {
        assert_eq!(parse_shard("1/2"), Ok((1, 2)));
        assert_eq!(parse_shard("4/4"), Ok((4, 4)));
        for bad in ["3/2", "0/2", "1/0", "x", "1/", "/2", "-1/2"] {
            assert!(parse_shard(bad).is_err(), "{bad}");
        }
        assert!(parse_threshold("0.5").is_err());
        assert_eq!(parse_threshold("1.5"), Ok(1.5));
    }
}
