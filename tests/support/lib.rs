//! Helpers shared by the integration and snapshot tests in `tests/`.
//!
//! [`run_source`] and [`run_path`] reduce a program with the reference
//! reducer and render everything a user would see (outcome, step counts by
//! kind, result text, diagnostics without colour) as one text, the unit of
//! the snapshot tests. [`graph_report`] and [`reference_report`] run a
//! loaded program on each machine, for the equivalence test, and
//! [`every_machine`] on all of them (fast runs and parallel rounds too);
//! [`gen`] holds the equivalence test's generator of staged programs, and
//! [`builders`] its generator of programs built by the paper's actions.

use std::path::{Path, PathBuf};

use deepcps_machine::diag::Diagnostic;
use deepcps_machine::graph::calls::add_calls;
use deepcps_machine::reference::Reducer;
use deepcps_machine::run::{Limits, Outcome, Report};
use deepcps_machine::span::SourceMap;
use deepcps_machine::syntax::load::add_source;
use deepcps_machine::syntax::{load_from, load_program, runtime_diagnostic, MemFs, RealFs};
use deepcps_machine::term::Program;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

pub mod builders;
pub mod compare;
pub mod fuzzcheck;
pub mod gen;
pub use gen::{Generated, StagedGen, REST_SPLICE_MARK, STAGED_HALF_MARK};

/// Runs `program` on the graph machine, the default of `deepcps run`.
pub fn graph_report(program: Program, limits: &Limits) -> Report {
    deepcps_machine::graph::Machine::new(program).report(limits)
}

/// Runs `program` on the reference reducer, the oracle.
pub fn reference_report(program: Program, limits: &Limits) -> Report {
    Reducer::new(program).report(limits)
}

/// Runs `program` on every machine: the reference reducer, the graph
/// machine stepping alone (no fast runs), the graph machine as `deepcps run`
/// uses it (with fast runs), and the graph machine on `threads` threads in
/// eager parallel rounds; each report with the machine's name.
pub fn every_machine(program: Program, limits: &Limits, threads: usize) -> Vec<(&'static str, Report)> {
    use deepcps_machine::graph::{par::Parallel, Machine};
    let mut stepping = Machine::new(program.clone());
    stepping.fast = false;
    let par = Parallel::eager(threads).unwrap_or_else(|e| panic!("{e}"));
    vec![
        ("reference", reference_report(program.clone(), limits)),
        ("graph, stepping", stepping.report(limits)),
        ("graph, fast runs", graph_report(program.clone(), limits)),
        ("graph, parallel rounds", Machine::new(program).report_par(limits, &par)),
    ]
}

/// Loads the program `text` (no includes), or renders why it does not load.
pub fn load_source(text: &str) -> Result<Program, String> {
    let mut sources = SourceMap::new();
    let id = add_source(&mut sources, "gen.dcps", None, text.as_bytes().to_vec()).map_err(|d| render(&sources, &[d]))?;
    load_from(&MemFs::default(), id, &mut sources, false).map_err(|ds| render(&sources, &ds))
}

/// Steps the engine `e` from step `from` to step `to` at most, checking
/// its invariants (`Engine::check`) before every step: the first broken
/// one, and after which step.
pub fn check_every_step(e: &mut deepcps_machine::engine::Engine, from: u64, to: u64) -> Result<(), String> {
    for step in from..to {
        e.check().map_err(|why| format!("after step {step}: {why}"))?;
        match e.step() {
            Some(Ok(None)) => {}
            _ => break,
        }
    }
    Ok(())
}

/// The number in environment variable `key`, or `default` when it is
/// unset or not a number (the sizes of the generated test sets).
pub fn env_u64(key: &str, default: u64) -> u64 {
    std::env::var(key).ok().and_then(|s| s.parse().ok()).unwrap_or(default)
}

/// Steps allowed in tests unless a program says otherwise.
pub const TEST_MAX_STEPS: u64 = 2_000_000;

/// Renders diagnostics without colour.
pub fn render(sources: &SourceMap, diags: &[Diagnostic]) -> String {
    diags.iter().map(|d| d.render(sources, false)).collect()
}

/// The snapshot text of a program that did not load.
fn static_error(sources: &SourceMap, diags: &[Diagnostic]) -> String {
    format!("outcome: static error\n--- diagnostics\n{}", render(sources, diags))
}

/// The snapshot text of a finished run.
pub fn describe(report: &Report, sources: &SourceMap) -> String {
    let outcome = match &report.outcome {
        Outcome::Residual => "residual".to_string(),
        Outcome::Exit(_) => "exit".to_string(),
        Outcome::Error(e) => format!("error {}", e.kind.name()),
        Outcome::Limit(r) => format!("limit: {r}"),
    };
    let mut s = format!("outcome: {outcome}\n{}\n", report.counts);
    if !matches!(report.outcome, Outcome::Error(_)) {
        s.push_str("--- result\n");
        s.push_str(&report.text);
    }
    let mut diags = report.warnings.clone();
    if let Outcome::Error(e) = &report.outcome {
        diags.push(runtime_diagnostic(e, sources));
    }
    if !diags.is_empty() {
        s.push_str("--- diagnostics\n");
        s.push_str(&render(sources, &diags));
    }
    s
}

/// Loads and reduces the file at `path` (relative to the workspace root).
pub fn run_path(path: &Path, limits: &Limits) -> String {
    let mut sources = SourceMap::new();
    match load_program(&RealFs, path, &mut sources) {
        Ok(p) => {
            let mut report = Reducer::new(p).report(limits);
            if let Outcome::Error(e) = &mut report.outcome {
                if let Ok(p) = load_program(&RealFs, path, &mut SourceMap::new()) {
                    add_calls(e, p, report.counts.total());
                }
            }
            describe(&report, &sources)
        }
        Err(ds) => static_error(&sources, &ds),
    }
}

/// Loads and reduces the program `text` (no includes).
pub fn run_source(text: &str) -> String {
    let mut sources = SourceMap::new();
    let id = match add_source(&mut sources, "test.dcps", None, text.as_bytes().to_vec()) {
        Ok(id) => id,
        Err(d) => return static_error(&sources, &[d]),
    };
    match load_from(&MemFs::default(), id, &mut sources, false) {
        Ok(p) => {
            let again = p.clone();
            let mut report = Reducer::new(p).report(&Limits {
                max_steps: TEST_MAX_STEPS,
                ..Limits::default()
            });
            if let Outcome::Error(e) = &mut report.outcome {
                add_calls(e, again, report.counts.total());
            }
            describe(&report, &sources)
        }
        Err(ds) => static_error(&sources, &ds),
    }
}

/// The workspace root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// What one in-process run of the command line gave.
pub struct Ran {
    /// The exit code.
    pub code: u8,
    /// Standard output.
    pub out: String,
    /// Standard error.
    pub err: String,
}

/// Runs `deepcps ARGS..` in-process (`deepcps::main_with`) from the
/// workspace root.
pub fn deepcps(args: &[&str]) -> Ran {
    let mut argv: Vec<std::ffi::OsString> = vec!["deepcps".into()];
    argv.extend(args.iter().map(std::ffi::OsString::from));
    let mut out = Vec::new();
    let mut err = Vec::new();
    std::env::set_current_dir(root()).expect("workspace root");
    let code = deepcps::main_with(argv, &mut out, &mut err);
    Ran {
        code,
        out: String::from_utf8_lossy(&out).into_owned(),
        err: String::from_utf8_lossy(&err).into_owned(),
    }
}

/// Parses `text` as a program (no includes) and prints it canonically.
pub fn reprint(text: &str) -> Result<String, String> {
    reprint_with(text, false)
}

/// Like [`reprint`], but names with no binder are allowed (a result may
/// mention symbolic variables bound outside it).
pub fn reprint_open(text: &str) -> Result<String, String> {
    reprint_with(text, true)
}

fn reprint_with(text: &str, allow_free: bool) -> Result<String, String> {
    let mut sources = SourceMap::new();
    let id = add_source(&mut sources, "reprint.dcps", None, text.as_bytes().to_vec()).map_err(|d| render(&sources, &[d]))?;
    let p = load_from(&MemFs::default(), id, &mut sources, allow_free).map_err(|ds| render(&sources, &ds))?;
    Ok(deepcps_machine::print::Printer::new(&p.vars).program_text(&p.body))
}

/// `let f(x, k) { k x }` then `f 0 (x1)[s1]`, `@s1: f x1 (x2)[s2]`, ...:
/// every statement nested in the previous one, and one staging chain
/// `s1 → s2 → ...` through all of them (the deep views tests).
pub fn staged_chain(n: usize) -> String {
    let mut s = String::with_capacity(n * 32);
    s.push_str("let f(x, k) { k x }\nf 0 (x1)[s1]\n");
    for i in 1..n {
        s.push_str(&format!("@s{i}: f x{i} (x{})[s{}]\n", i + 1, i + 1));
    }
    s.push_str(&format!("@s{n}: $exit x{n}\n"));
    s
}

/// The outcome, counts and result of running `text`, without diagnostics
/// (whose spans depend on the layout of the source).
pub fn outcome_of(text: &str, max_steps: u64) -> String {
    let mut sources = SourceMap::new();
    let Ok(id) = add_source(&mut sources, "t.dcps", None, text.as_bytes().to_vec()) else {
        return "utf8".into();
    };
    outcome_text(load_from(&MemFs::default(), id, &mut sources, false), max_steps)
}

/// Runs a loaded program (or reports how loading failed) as [`outcome_of`]
/// shows it: outcome kind, counts and result text.
fn outcome_text(loaded: Result<deepcps_machine::term::Program, Vec<Diagnostic>>, max_steps: u64) -> String {
    match loaded {
        Ok(p) => {
            let r = Reducer::new(p).report(&Limits {
                max_steps,
                ..Limits::default()
            });
            let kind = match &r.outcome {
                Outcome::Residual => "residual".to_string(),
                Outcome::Exit(_) => "exit".to_string(),
                Outcome::Error(e) => format!("error {}", e.kind.name()),
                Outcome::Limit(l) => format!("limit {l}"),
            };
            let text = if matches!(r.outcome, Outcome::Error(_)) {
                String::new()
            } else {
                r.text
            };
            format!("{kind}\n{}\n{text}", r.counts)
        }
        Err(ds) => format!("static error: {}", ds.len()),
    }
}

/// A small deterministic generator of random well-scoped DeepCPS programs
/// (source text), for property tests: staged bodies (natural, `always`,
/// `never`, variables, `&|!`), lambdas with named staging parameters, rest
/// parameters and splices, tuples, `let`, `fix`, `if`, expressions, and
/// bodies that get stuck or fail at run time.
pub struct Gen {
    rng: StdRng,
    fresh: u32,
    /// Only natural staging: the programs are runtime code, which
    /// `deepcps compile` translates as written.
    natural: bool,
}

impl Gen {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Gen {
        Gen {
            rng: StdRng::seed_from_u64(seed),
            fresh: 0,
            natural: false,
        }
    }

    /// A generator of runtime code (every body naturally staged) seeded
    /// with `seed`.
    pub fn runtime_code(seed: u64) -> Gen {
        Gen {
            natural: true,
            ..Gen::new(seed)
        }
    }

    /// A number in `0..n` (0 if `n` is 0).
    fn below(&mut self, n: u64) -> u64 {
        self.rng.random_range(0..n.max(1))
    }

    fn name(&mut self, base: &str) -> String {
        self.fresh += 1;
        // Few distinct names, so that shadowing (and renaming) happens.
        format!("{base}{}", self.fresh % 3)
    }

    /// A whole program.
    pub fn program(&mut self) -> String {
        let mut scope = vec![];
        self.body(4, &mut scope, &mut vec![])
    }

    fn pick<'a>(&mut self, xs: &'a [String]) -> Option<&'a String> {
        if xs.is_empty() {
            None
        } else {
            Some(&xs[self.below(xs.len() as u64) as usize])
        }
    }

    fn stage(&mut self, stages: &[String]) -> String {
        if self.natural {
            return String::new();
        }
        match self.below(10) {
            0 => "@always: ".into(),
            1 => "@never: ".into(),
            2..=4 => match self.pick(stages).cloned() {
                Some(s) => match self.below(4) {
                    0 => format!("@!{s}: "),
                    1 => format!("@{s} & always: "),
                    2 => format!("@{s} | never: "),
                    _ => format!("@{s}: "),
                },
                None => String::new(),
            },
            _ => String::new(),
        }
    }

    fn atom(&mut self, depth: u32, scope: &mut Vec<String>, stages: &mut Vec<String>) -> String {
        match self.below(if depth == 0 { 5 } else { 8 }) {
            0 => format!("{}", self.below(7) as i64 - 2),
            1 | 2 => self.pick(scope).cloned().unwrap_or_else(|| "1".into()),
            3 => ["always", "never", "true", "false"][self.below(4) as usize].to_string(),
            4 => {
                let a = self.pick(scope).cloned().unwrap_or_else(|| "2".into());
                let b = self.below(5);
                let op = ["+", "*", "-", "<", "=="][self.below(5) as usize];
                format!("\"{a}{op}{b}\"")
            }
            5 => {
                let n = self.below(3);
                let xs: Vec<String> = (0..n).map(|_| self.atom(depth - 1, scope, stages)).collect();
                format!("[{}]", xs.join(", "))
            }
            _ => self.lambda(depth - 1, scope, stages, true),
        }
    }

    fn lambda(&mut self, depth: u32, scope: &mut Vec<String>, stages: &mut Vec<String>, braced: bool) -> String {
        let k = self.below(3);
        let mut params: Vec<String> = (0..k).map(|_| self.name("x")).collect();
        params.sort();
        params.dedup();
        let rest = self.below(4) == 0;
        let rest_name = self.name("r");
        let sname = if self.below(2) == 0 { Some(self.name("s")) } else { None };
        let saved = (scope.len(), stages.len());
        scope.extend(params.iter().cloned());
        if rest && !params.contains(&rest_name) {
            scope.push(rest_name.clone());
        }
        if let Some(s) = &sname {
            stages.push(s.clone());
            scope.push(s.clone());
        }
        let body = self.body(depth, scope, stages);
        scope.truncate(saved.0);
        stages.truncate(saved.1);
        let mut ps = params.clone();
        if rest && !params.contains(&rest_name) {
            ps.push(format!("!{rest_name}"));
        }
        let s = sname.map(|s| format!("[{s}]")).unwrap_or_default();
        if braced {
            format!("({}){s} {{ {body} }}", ps.join(", "))
        } else {
            format!("({}){s}\n{body}", ps.join(", "))
        }
    }

    fn body(&mut self, depth: u32, scope: &mut Vec<String>, stages: &mut Vec<String>) -> String {
        let stage = self.stage(stages);
        if depth == 0 {
            let v = self.atom(0, scope, stages);
            return format!("{stage}$exit {v}");
        }
        match self.below(9) {
            8 => {
                // A recursive function that recurses only when `n` is true.
                let f = self.name("f");
                scope.push(f.clone());
                let b = self.body(depth - 1, scope, stages);
                scope.pop();
                format!("{stage}fix {f}(n, k) {{ if n () {{ {f} false k }} () {{ k {f} }} }} in\n{b}")
            }
            0 => {
                let v = self.atom(depth - 1, scope, stages);
                format!("{stage}$exit {v}")
            }
            7 if !self.natural => {
                // A symbolic variable substituted under a binder of the same
                // name (under an uninvoked lambda, by an `@always:` body): the
                // printer must rename the inner binder to `y_1`.
                let y = self.name("y");
                format!("{stage}$exit ({y}) {{ @always: (p) {{ $exit ({y}) {{ $exit [p, {y}] }} }} {y} }}")
            }
            1 => {
                let x = self.name("v");
                let v = self.atom(depth - 1, scope, stages);
                scope.push(x.clone());
                let b = self.body(depth - 1, scope, stages);
                scope.pop();
                format!("{stage}let {x} = {v}\n{b}")
            }
            2 => {
                let c = self.atom(0, scope, stages);
                let t = self.body(depth - 1, scope, stages);
                let f = self.body(depth - 1, scope, stages);
                format!("{stage}if {c} () {{ {t} }} () {{ {f} }}")
            }
            3 => {
                let e = self.atom(0, scope, stages);
                let x = self.name("e");
                scope.push(x.clone());
                let b = self.body(depth - 1, scope, stages);
                scope.pop();
                let e = if e.starts_with('"') { e } else { format!("\"{e}\"") };
                format!("{stage}{e} ({x})\n{b}")
            }
            4 => {
                // A splice of a tuple or of a (possibly symbolic) variable.
                let head = self.atom(depth - 1, scope, stages);
                let t = self.pick(scope).cloned().unwrap_or_else(|| "[1, 2]".into());
                let spl = if t.starts_with('[') { t } else { format!("!{t}") };
                format!("{stage}{head} {spl}")
            }
            _ => {
                let head = self.atom(depth - 1, scope, stages);
                let n = self.below(3);
                let args: Vec<String> = (0..n).map(|_| self.atom(depth - 1, scope, stages)).collect();
                let tail = self.lambda(depth - 1, scope, stages, false);
                format!("{stage}{head} {} {tail}", args.join(" "))
            }
        }
    }
}

/// The real file system with one file's text replaced (to run a formatted
/// program in place of its source, includes and all).
pub struct Overlay {
    /// The replaced file.
    pub path: PathBuf,
    /// Its new text.
    pub text: String,
}

impl deepcps_machine::syntax::FileSystem for Overlay {
    fn read(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        if path == self.path {
            Ok(self.text.as_bytes().to_vec())
        } else {
            std::fs::read(path)
        }
    }
    fn canonical(&self, path: &Path) -> PathBuf {
        RealFs.canonical(path)
    }
}

/// Outcome kind, counts and result text of running the program at `path`
/// read through `fs` (no diagnostics: their places depend on the layout).
pub fn outcome_via(fs: &dyn deepcps_machine::syntax::FileSystem, path: &Path, max_steps: u64) -> String {
    let mut sources = SourceMap::new();
    outcome_text(load_program(fs, path, &mut sources), max_steps)
}

/// The value of a leading-comment directive `// KEY VALUE` of a program.
pub fn directive<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines()
        .map(str::trim)
        .take_while(|l| l.starts_with("//") || l.is_empty())
        .find_map(|l| l.trim_start_matches('/').trim().strip_prefix(key).map(str::trim))
}

/// The `.dcps` files under `dir`, recursively, in sorted order.
pub fn dcps_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("corpus directory")
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            dcps_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "dcps") {
            out.push(p);
        }
    }
}
