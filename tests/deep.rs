//! Deep sequential terms on an ordinary thread stack (no big-stack thread
//! here, unlike the binary): the front end, the graph machine, the arena
//! engine and `Drop` iterate rather than recurse, so a long chain of
//! statements (each nested in the previous one's tail lambda) neither
//! overflows nor needs a large stack.

use deepcps_machine::span::SourceMap;
use deepcps_machine::syntax::load::add_source;
use deepcps_machine::syntax::parser::parse_file;
use deepcps_machine::syntax::{load_from, MemFs};

/// `"x0+1" (x1)` lines: every statement is nested in the previous one.
fn chain(n: usize) -> String {
    let mut s = String::with_capacity(n * 24);
    for i in 0..n {
        s.push_str(&format!("\"x{}+1\" (x{})\n", i.saturating_sub(1), i));
    }
    s.push_str(&format!("$exit x{}\n", n - 1));
    s
}

/// Runs `f` on a thread with a 2 MiB stack, the default for spawned threads.
fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    on_stack(2 << 20, f);
}

/// Runs `f` on a thread with a stack of `bytes`.
fn on_stack(bytes: usize, f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(bytes)
        .spawn(f)
        .expect("spawn")
        .join()
        .expect("no stack overflow, no panic");
}

#[test]
fn a_long_chain_parses_and_drops_on_a_small_stack() {
    on_small_stack(|| {
        let text = chain(200_000);
        let mut sources = SourceMap::new();
        let id = sources.add("chain.dcps", None, text.clone());
        let file = parse_file(&text, id).expect("parses");
        assert!(file.main.is_some());
        drop(file);
    });
}

#[test]
fn a_long_chain_resolves_and_drops_on_a_small_stack() {
    on_small_stack(|| {
        let text = chain(200_000);
        let mut sources = SourceMap::new();
        // `x0` in the first line is free: resolve with free names allowed.
        let id = add_source(&mut sources, "chain.dcps", None, text.into_bytes()).expect("utf8");
        let program = load_from(&MemFs::default(), id, &mut sources, true).expect("resolves");
        assert!(program.vars.len() > 400_000);
        drop(program);
    });
}

#[test]
fn a_long_chain_prints_on_a_small_stack() {
    on_small_stack(|| {
        let n = 200_000;
        let text = chain(n);
        let mut sources = SourceMap::new();
        let id = add_source(&mut sources, "chain.dcps", None, text.into_bytes()).expect("utf8");
        let program = load_from(&MemFs::default(), id, &mut sources, true).expect("resolves");
        let printed = deepcps_machine::print::Printer::new(&program.vars).program_text(&program.body);
        assert_eq!(printed.lines().count(), n + 1);
        assert!(
            printed.starts_with("\"x0+1\" (x0)\n\"x0+1\" (x1)\n\"x1+1\" (x2)\n"),
            "{}",
            &printed[..80]
        );
        assert!(printed.ends_with("\"x199998+1\" (x199999)\n$exit x199999\n"));
    });
}

// ---------------------------------------------------------------------------
// Deep terms through the graph machine: import, reduce, export, print, drop.

use deepcps_machine::graph::Machine;
use deepcps_machine::print::Printer;
use deepcps_machine::run::{Limits, Outcome};
use deepcps_machine::term::Program;

/// The depth of the graph-machine tests: 10^6 in release builds; in debug
/// builds (plain `cargo test`) 3 * 10^5, which keeps each test within
/// seconds and still overflows a 2 MiB stack at 7 bytes per level.
/// `scripts/deep.sh` runs 10^6 through the release binary.
const DEEP: usize = if cfg!(debug_assertions) { 300_000 } else { 1_000_000 };

/// The kind of an outcome (its `Debug` form would print a deep value).
fn kind(o: &Outcome) -> &'static str {
    match o {
        Outcome::Residual => "residual",
        Outcome::Exit(_) => "exit",
        Outcome::Error(_) => "error",
        Outcome::Limit(_) => "limit",
    }
}

/// Loads a closed program (no includes, no free names).
fn load(text: &str) -> Program {
    match deepcps_tests::load_source(text) {
        Ok(p) => p,
        Err(e) => panic!("does not load: {e}"),
    }
}

/// `"1" (x0)`, then `"x{i-1}+1" (x{i})` up to `x{n-1}`, then `tail`.
fn closed_chain(n: usize, first: &str, tail: &str) -> String {
    let mut s = String::with_capacity(n * 24 + tail.len());
    s.push_str(first);
    s.push_str("\"1\" (x0)\n");
    for i in 1..n {
        s.push_str(&format!("\"x{}+1\" (x{})\n", i - 1, i));
    }
    s.push_str(tail);
    s
}

/// A chain whose first statement never runs (so no statement below it
/// runs on natural staging), with a step at its bottom staged on `always`.
fn staged_chain() -> String {
    let tail = format!("@always: \"6*7\" (v)\n\"v*x{}\" (w)\n@never: $exit w\n", DEEP - 1);
    closed_chain(DEEP, "@never: ", &tail)
}

/// The report on [`staged_chain`]: a residual after its one step, with
/// one stuck warning (`x{DEEP-1}` is symbolic, so `v*x..` is stuck).
fn assert_staged_chain_report(report: &deepcps_machine::run::Report) {
    assert!(matches!(report.outcome, Outcome::Residual), "{}", kind(&report.outcome));
    assert_eq!(report.counts.total(), 1);
    assert_eq!(report.warnings.len(), 1);
    assert_eq!(report.text.lines().count(), DEEP + 2);
    assert!(
        report.text.starts_with("@never: \"1\" (x0)\n\"x0+1\" (x1)\n"),
        "{}",
        &report.text[..80]
    );
    let end = format!(
        "\"x{}+1\" (x{})\n@always: \"42*x{}\" (w)\n@never: $exit w\n",
        DEEP - 2,
        DEEP - 1,
        DEEP - 1
    );
    assert!(report.text.ends_with(&end), "{}", &report.text[report.text.len() - 200..]);
}

/// `$exit` of a lambda whose body is a chain `DEEP` deep, with a step at
/// its bottom.
fn deep_lambda_exit() -> String {
    let mut s = String::from("$exit (a) {\n\"a+1\" (x0)\n");
    for i in 1..DEEP {
        s.push_str(&format!("\"x{}+1\" (x{})\n", i - 1, i));
    }
    s.push_str("@always: \"6*7\" (v)\n@never: $exit v\n}\n");
    s
}

/// `let t{i} = [t{i-1}]`: a tuple nested `n` levels, built by β.
fn nested_tuples(n: usize) -> String {
    let mut s = String::from("let t0 = 7\n");
    for i in 1..=n {
        s.push_str(&format!("let t{i} = [t{}]\n", i - 1));
    }
    s.push_str(&format!("$exit t{n}\n"));
    s
}

#[test]
fn graph_reduces_a_deep_chain_to_its_exit() {
    on_small_stack(|| {
        let program = load(&closed_chain(DEEP, "", &format!("$exit x{}\n", DEEP - 1)));
        let mut m = Machine::new(program);
        let report = m.report(&Limits::default());
        assert!(matches!(report.outcome, Outcome::Exit(_)), "{}", kind(&report.outcome));
        assert_eq!(report.text, format!("{DEEP}\n"));
        assert_eq!(report.counts.expr, DEEP as u64);
        drop(m);
    });
}

#[test]
fn graph_keeps_a_deep_staged_chain_and_reduces_at_its_bottom() {
    on_small_stack(|| {
        // The first statement never runs, so no statement below it runs on
        // natural staging; only the bottom, staged on `always`, does.
        let program = load(&staged_chain());
        let mut m = Machine::new(program);
        let report = m.report(&Limits::default());
        assert_staged_chain_report(&report);
        // Export and print again from the machine, then drop everything.
        let p = m.to_program();
        let again = Printer::new(&p.vars).program_text(&p.body);
        assert_eq!(again, report.text);
        drop(p);
        drop(m);
    });
}

#[test]
fn graph_exits_with_a_deep_lambda() {
    on_small_stack(|| {
        // The value of `$exit` is a lambda whose body is a deep chain, with
        // a step at its bottom.
        let s = deep_lambda_exit();
        let mut m = Machine::new(load(&s));
        let report = m.report(&Limits::default());
        assert!(matches!(report.outcome, Outcome::Exit(_)), "{}", kind(&report.outcome));
        assert_eq!(report.counts.total(), 2);
        assert_eq!(report.text.lines().count(), DEEP + 3);
        assert!(report.text.starts_with("(a) {\n  \"a+1\" (x0)\n"), "{}", &report.text[..80]);
        assert!(
            report.text.ends_with("  @never: $exit 42\n}\n"),
            "{}",
            &report.text[report.text.len() - 200..]
        );
        drop(report);
        drop(m);
    });
}

/// `"a+1+1+..+1"` with `n` ones: a left-nested sum `n` deep.
fn long_sum(first: &str, n: usize) -> String {
    let mut s = String::with_capacity(2 * n + 8);
    s.push('"');
    s.push_str(first);
    for _ in 0..n {
        s.push_str("+1");
    }
    s.push('"');
    s
}

#[test]
fn graph_evaluates_a_deep_expression() {
    on_small_stack(|| {
        let text = format!("\"5\" (a)\n{} (s)\n$exit s\n", long_sum("a", DEEP));
        let mut m = Machine::new(load(&text));
        let report = m.report(&Limits::default());
        assert!(matches!(report.outcome, Outcome::Exit(_)), "{}", kind(&report.outcome));
        assert_eq!(report.text, format!("{}\n", DEEP + 5));
        drop(m);
    });
}

#[test]
fn graph_prints_a_deep_symbolic_expression() {
    on_small_stack(|| {
        // `a` is symbolic: the sum stays, is exported and printed.
        let sum = long_sum("a", DEEP);
        let text = format!("$exit (a, k) {{\n  @always: {sum} (s)\n  k s\n}}\n");
        let mut m = Machine::new(load(&text));
        let report = m.report(&Limits::default());
        assert!(matches!(report.outcome, Outcome::Exit(_)), "{}", kind(&report.outcome));
        assert_eq!(report.text, format!("(a, k) {{\n  @always: {sum} (s)\n  k s\n}}\n"));
        assert_eq!(report.warnings.len(), 1);
        drop(m);
    });
}

/// Depth of the tuple tests. Building a nested tuple is quadratic today (a
/// body's look scans its tuple arguments for expressions, and the
/// expression language exports and re-imports the whole tuple), so these
/// run on a 256 KiB stack at a depth a derived, recursive drop, clone or
/// print would overflow, rather than at 10^6.
const TUPLE_DEPTH: usize = 20_000;

#[test]
fn graph_builds_deep_tuples() {
    on_stack(256 << 10, || {
        // `let t{i} = [t{i-1}]`: a tuple nested TUPLE_DEPTH levels, built by β.
        const DEEP: usize = TUPLE_DEPTH;
        let s = nested_tuples(DEEP);
        let mut m = Machine::new(load(&s));
        let report = m.report(&Limits::default());
        assert!(matches!(report.outcome, Outcome::Exit(_)), "{}", kind(&report.outcome));
        let expected = format!("{}7{}\n", "[".repeat(DEEP), "]".repeat(DEEP));
        assert!(report.text == expected, "{}", &report.text[..80.min(report.text.len())]);
        drop(report);
        drop(m);
    });
}

#[test]
fn graph_builds_deep_tuples_in_expressions() {
    on_stack(256 << 10, || {
        // `"[t{i-1}]" (t{i})`: the tuple goes through the expression
        // language at every step.
        let n = TUPLE_DEPTH / 10;
        let mut s = String::from("\"7\" (t0)\n");
        for i in 1..=n {
            s.push_str(&format!("\"[t{}]\" (t{i})\n", i - 1));
        }
        s.push_str(&format!("$exit t{n}\n"));
        let mut m = Machine::new(load(&s));
        let report = m.report(&Limits::default());
        assert!(matches!(report.outcome, Outcome::Exit(_)), "{}", kind(&report.outcome));
        let expected = format!("{}7{}\n", "[".repeat(n), "]".repeat(n));
        assert!(report.text == expected, "{}", &report.text[..80.min(report.text.len())]);
        drop(m);
    });
}

#[test]
fn graph_builds_and_prints_deeply_nested_lambdas() {
    on_small_stack(|| {
        // `let f{i} = (k) { k f{i-1} }`: lambdas nested DEEP levels. Each
        // is the last argument of its parent, so it prints in the tail form
        // at one indentation: the text stays linear.
        let mut s = String::from("let f0 = 7\n");
        for i in 1..=DEEP {
            s.push_str(&format!("let f{i} = (k) {{ k f{} }}\n", i - 1));
        }
        s.push_str(&format!("$exit f{DEEP}\n"));
        let mut m = Machine::new(load(&s));
        let report = m.report(&Limits::default());
        assert!(matches!(report.outcome, Outcome::Exit(_)), "{}", kind(&report.outcome));
        assert_eq!(m.counts.beta, DEEP as u64 + 1);
        assert_eq!(report.text.lines().count(), DEEP + 2);
        assert!(report.text.starts_with("(k) {\n  k (k)\n  k (k)\n"), "{}", &report.text[..80]);
        assert!(
            report.text.ends_with("  k (k)\n  k 7\n}\n"),
            "{}",
            &report.text[report.text.len() - 80..]
        );
        drop(report);
        drop(m);
    });
}

// ---------------------------------------------------------------------------
// The same deep terms through the arena engine: load, reduce (copies and
// templates included), read back, print, drop.

use deepcps_machine::engine::Engine;
use deepcps_machine::run::Report;

/// The engine's report on `text`, the engine dropped after it.
fn engine_report(text: &str) -> Report {
    let mut e = Engine::new(load(text));
    let report = e.report(&Limits::default());
    drop(e);
    report
}

#[test]
fn engine_reduces_a_deep_chain_to_its_exit() {
    on_small_stack(|| {
        let report = engine_report(&closed_chain(DEEP, "", &format!("$exit x{}\n", DEEP - 1)));
        assert!(matches!(report.outcome, Outcome::Exit(_)), "{}", kind(&report.outcome));
        assert_eq!(report.text, format!("{DEEP}\n"));
        assert_eq!(report.counts.expr, DEEP as u64);
    });
}

#[test]
fn engine_keeps_a_deep_staged_chain_and_reduces_at_its_bottom() {
    on_small_stack(|| {
        let mut e = Engine::new(load(&staged_chain()));
        let report = e.report(&Limits::default());
        assert_staged_chain_report(&report);
        // Read back and print again, then drop everything.
        let p = e.to_program();
        assert_eq!(Printer::new(&p.vars).program_text(&p.body), report.text);
        drop(p);
        drop(e);
    });
}

#[test]
fn engine_exits_with_a_deep_lambda() {
    on_small_stack(|| {
        let s = deep_lambda_exit();
        let report = engine_report(&s);
        assert!(matches!(report.outcome, Outcome::Exit(_)), "{}", kind(&report.outcome));
        assert_eq!(report.counts.total(), 2);
        assert_eq!(report.text.lines().count(), DEEP + 3);
        assert!(report.text.ends_with("  @never: $exit 42\n}\n"));
    });
}

#[test]
fn engine_evaluates_and_prints_deep_expressions() {
    on_small_stack(|| {
        let text = format!("\"5\" (a)\n{} (s)\n$exit s\n", long_sum("a", DEEP));
        let report = engine_report(&text);
        assert!(matches!(report.outcome, Outcome::Exit(_)), "{}", kind(&report.outcome));
        assert_eq!(report.text, format!("{}\n", DEEP + 5));
        let sum = long_sum("a", DEEP);
        let report = engine_report(&format!("$exit (a, k) {{\n  @always: {sum} (s)\n  k s\n}}\n"));
        assert_eq!(report.text, format!("(a, k) {{\n  @always: {sum} (s)\n  k s\n}}\n"));
        assert_eq!(report.warnings.len(), 1);
    });
}

#[test]
fn engine_builds_deep_tuples() {
    on_stack(256 << 10, || {
        let s = nested_tuples(TUPLE_DEPTH);
        let report = engine_report(&s);
        assert!(matches!(report.outcome, Outcome::Exit(_)), "{}", kind(&report.outcome));
        let expected = format!("{}7{}\n", "[".repeat(TUPLE_DEPTH), "]".repeat(TUPLE_DEPTH));
        assert!(report.text == expected, "{}", &report.text[..80.min(report.text.len())]);
    });
}

#[test]
fn engine_copies_a_deep_lambda_from_its_template() {
    on_small_stack(|| {
        // `f` is held three times: the first two calls copy its deep body
        // (the second by recording and replaying its template), the third
        // binds it in place.
        let mut body = String::from("\"a+1\" (x0)\n");
        for i in 1..DEEP {
            body.push_str(&format!("\"x{}+1\" (x{})\n", i - 1, i));
        }
        body.push_str(&format!("k x{}\n", DEEP - 1));
        let text = format!("let f(a, k) {{\n{body}}}\nf 1 (r)\nf r (s)\nf s (t)\n$exit t\n");
        let report = engine_report(&text);
        assert!(matches!(report.outcome, Outcome::Exit(_)), "{}", kind(&report.outcome));
        assert_eq!(report.text, format!("{}\n", 3 * DEEP + 1));
        assert_eq!(report.counts.expr, 3 * DEEP as u64);
    });
}
