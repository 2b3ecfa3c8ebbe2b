//! The graph views of a program's state (`deepcps dot`, `deepcps dot
//! --staging`, `deepcps chains`), driven in-process through
//! `deepcps::main_with`: snapshots of the DOT and chain texts, the colours
//! the reference reducer's next step agrees with, the error paths, and deep
//! terms on a small stack.

use std::ffi::OsString;

use deepcps::views::{state_after, State};
use deepcps_machine::span::SourceMap;
use deepcps_machine::syntax::{load_program, RealFs};
use deepcps_machine::view::chains::MAX_FORKS;
use deepcps_machine::view::lambda_graph::NodeKind;
use deepcps_machine::view::{LambdaGraph, Status};
use deepcps_tests::{deepcps, root, staged_chain};

const SMALL: &str = "tests/inputs/views_small.dcps";
const ARITH: &str = "corpus/paper/arith_built.dcps";

/// Runs a command that must succeed silently and returns its output.
fn ok(args: &[&str]) -> String {
    let r = deepcps(args);
    assert_eq!((r.code, r.err.as_str()), (0, ""), "deepcps {args:?}");
    r.out
}

/// The fill colours of the body nodes whose label starts with `prefix`.
fn colours_of(dot: &str, prefix: &str) -> Vec<String> {
    dot.lines()
        .filter(|l| l.contains(&format!("label=\"{prefix}")))
        .filter_map(|l| l.split("fillcolor=").nth(1))
        .map(|c| c.split_whitespace().next().unwrap_or("").to_string())
        .collect()
}

#[test]
fn dot_at_step_0_colours_every_status() {
    let out = ok(&["dot", SMALL]);
    assert!(out.starts_with("digraph lambda_graph {\n"), "{out}");
    // The top-level body waits for the ready body nested in it; the body of
    // `later` is stuck on `f`; the body staged on `s` is inactive.
    assert_eq!(colours_of(&out, "@always: (twice)"), ["khaki"]);
    assert_eq!(colours_of(&out, "@always: (two) {…} \\\"1+1\\\""), ["palegreen"]);
    assert_eq!(colours_of(&out, "@always: f 1"), ["orange"]);
    assert_eq!(colours_of(&out, "@s: twice a (b)"), ["lightgrey"]);
    assert!(out.contains("stuck on f: the head of the application is symbolic"), "{out}");
    insta::assert_snapshot!("dot_small_step_0", out);
}

#[test]
fn dot_at_a_later_step_changes_colours() {
    let before = ok(&["dot", SMALL]);
    let out = ok(&["dot", "--step", "4", SMALL]);
    assert_ne!(out, before);
    // `twice 3` ran: its body is the ready expression `"3*2"`, and `s` now
    // waits in the continuation that `k y` will invoke.
    assert_eq!(colours_of(&out, "@always: (y) {…} \\\"3*2\\\""), ["palegreen"]);
    assert_eq!(colours_of(&out, "@s: (x, k) {…} a (b)"), ["lightgrey"]);
    assert!(!out.contains("fillcolor=khaki") && !out.contains("fillcolor=orange"), "{out}");
    insta::assert_snapshot!("dot_small_step_4", out);
}

#[test]
fn dot_staging_links_variables_and_bodies() {
    let out = ok(&["dot", "--staging", SMALL]);
    assert!(out.starts_with("digraph staging_graph {\n"), "{out}");
    assert!(out.contains("[ label = \"defines (arg 2)\" ]"), "{out}");
    assert!(out.contains("[ label = \"stages\" ]"), "{out}");
    assert!(out.contains("[ label = \"blocks\" ]"), "{out}");
    insta::assert_snapshot!("dot_staging_small", out);
    let arith = ok(&["dot", "--staging", "--step", "262", ARITH]);
    assert!(arith.contains("binds param 1"), "{arith}");
    insta::assert_snapshot!("dot_staging_arith_built_262", arith);
}

#[test]
fn chains_of_arith_built_show_ct_then_pt() {
    // Step 262: the fragments are merged into one core `(ct, pt, !args)`;
    // its `ct` chain runs through every piece of user code, and the pieces
    // that stage arithmetic start `pt` chains of their own.
    let out = ok(&["chains", "--step", "262", ARITH]);
    let ct = out
        .split("\n\n")
        .find(|c| c.starts_with("ct (parameter)"))
        .unwrap_or_else(|| panic!("no chain starts at ct:\n{out}"));
    assert_eq!(ct.matches("stages → @ct: (pt, exit, ").count(), 9, "{ct}");
    assert_eq!(ct.matches("defines (arg 3) → [ct] (staging parameter)").count(), 8, "{ct}");
    assert_eq!(ct.matches("binds param 1 → pt (parameter)").count(), 4, "{ct}");
    assert!(ct.contains("stages → @pt: (prod)[pt] {…} \"arg1*arg2\""), "{ct}");
    insta::assert_snapshot!("chains_arith_built_262", out);

    // Step 320: the core-time chain has run; only the program-time chain is
    // left, one `@pt:` statement after the other.
    let out = ok(&["chains", "--step", "320", ARITH]);
    let pt: Vec<&str> = out.lines().filter(|l| l.contains("stages → @pt:")).collect();
    assert_eq!(pt.len(), 4, "{out}");
    for (line, e) in pt.iter().zip(["\"4*2\"", "\"1+prod\"", "\"sum+3\"", "exit v"]) {
        assert!(line.contains(e), "{line} should hold {e}");
    }
    insta::assert_snapshot!("chains_arith_built_320", out);
}

/// Steps `path` with the reference reducer; before every step, the first
/// body the lambda graph colours ready must be the one the step executes
/// (a failing step: some body is coloured as an error), and when nothing is
/// pending, nothing is ready. Returns the number of steps, `None` for a
/// file that does not load (a library).
fn check_ready_colours(path: &std::path::Path) -> Option<u64> {
    let mut sources = SourceMap::new();
    let program = load_program(&RealFs, path, &mut sources).ok()?;
    let mut reducer = deepcps_machine::reference::Reducer::new(program);
    let at = |n| format!("{} step {n}", path.display());
    loop {
        let steps = reducer.counts.total();
        let lg = LambdaGraph::build(&reducer.body, &reducer.vars);
        let ready = lg.bodies_with_status("ready");
        let pending = lg
            .graph
            .node_weights()
            .filter(|n| matches!(&n.kind, NodeKind::Body { status, .. } if status.is_pending()))
            .count();
        let mut ran = None;
        match reducer.step_traced(&mut |_, _, span| ran = Some(span)) {
            None => {
                assert!(
                    ready.is_empty() && pending == 0,
                    "{}: nothing runs, yet {pending} bodies are pending",
                    at(steps)
                );
                return Some(steps);
            }
            Some(Err(_)) => {
                assert!(
                    !lg.bodies_with_status("error").is_empty(),
                    "{}: fails, no body coloured error",
                    at(steps + 1)
                );
                return Some(steps);
            }
            Some(Ok(exit)) => {
                let first = ready.first().and_then(|&n| lg.graph[n].span);
                assert_eq!(first, ran, "{}", at(steps + 1));
                assert!(
                    ready
                        .iter()
                        .all(|&n| matches!(&lg.graph[n].kind, NodeKind::Body { status: Status::Ready, .. })),
                    "{}",
                    at(steps + 1)
                );
                if exit.is_some() {
                    return Some(steps + 1);
                }
            }
        }
    }
}

#[test]
fn the_ready_bodies_are_what_the_reference_runs_next() {
    std::env::set_current_dir(root()).expect("workspace root");
    assert_eq!(check_ready_colours(std::path::Path::new(ARITH)), Some(330));
    // Every program of the paper, and the runtime errors.
    let mut checked = 0;
    for dir in ["corpus/paper", "corpus/err"] {
        let mut files: Vec<_> = std::fs::read_dir(dir)
            .expect("corpus")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        files.sort();
        for f in files.iter().filter(|f| f.extension().is_some_and(|e| e == "dcps")) {
            checked += usize::from(check_ready_colours(f).is_some());
        }
    }
    assert!(checked >= 20, "only {checked} programs checked");
}

#[test]
fn state_after_says_when_the_run_ended() {
    std::env::set_current_dir(root()).expect("workspace root");
    let load = || {
        let mut sources = SourceMap::new();
        load_program(&RealFs, std::path::Path::new(SMALL), &mut sources).expect("loads")
    };
    let after = |n| state_after(load(), n, u64::MAX).expect("within the limits");
    assert_eq!(after(3).2, None);
    assert!(matches!(after(3).0, State::Term(_)));
    // The last step is `$exit`: the state after it is the exit value, and
    // nothing needs saying.
    assert_eq!(after(10).2, None);
    assert!(matches!(after(10).0, State::Exit(_)));
    let note = after(1000).2.unwrap_or_default();
    assert_eq!(note, "the run ended at step 10: `$exit` executed; showing the exit value");
    assert!(matches!(after(1000).0, State::Exit(_)));
}

#[test]
fn error_paths() {
    // A step count beyond the end: the view of the last term, and a note.
    let r = deepcps(&["chains", "--step", "1000", SMALL]);
    assert_eq!(r.code, 0);
    assert_eq!(
        r.err,
        "deepcps: the run ended at step 10: `$exit` executed; showing the exit value\n"
    );
    assert_eq!(r.out, "no staging chains\n");
    let r = deepcps(&["dot", "--step", "100000", "corpus/paper/merge_staged.dcps"]);
    assert_eq!(r.code, 0);
    assert!(r.err.starts_with("deepcps: the run ended at step "), "{}", r.err);
    assert!(r.out.starts_with("digraph lambda_graph {"), "{}", r.out);
    // A runtime error stops the run before the failing step.
    let r = deepcps(&["dot", "--step", "50", "corpus/err/runtime_division_by_zero.dcps"]);
    assert_eq!(r.code, 0);
    assert!(r.err.contains("step 2 fails (division by zero"), "{}", r.err);
    assert!(r.out.contains("fillcolor=tomato"), "{}", r.out);
    // Missing file, parse error, bad usage: exit code 2, nothing on stdout.
    for args in [
        &["dot", "no/such/file.dcps"][..],
        &["chains", "corpus/err/syntax_truncated.dcps"],
        &["dot", "--staging", "corpus/err/static_unbound.dcps"],
        &["chains"],
        &["dot", "--step", "-1", SMALL],
    ] {
        let r = deepcps(args);
        assert_eq!((r.code, r.out.as_str()), (2, ""), "deepcps {args:?}: {}", r.err);
        assert!(!r.err.is_empty(), "deepcps {args:?}");
    }
}

#[test]
fn deep_terms_on_a_small_stack() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("views");
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("deep.dcps");
    let n = 100_000;
    std::fs::write(&path, staged_chain(n)).expect("write");
    let file = path.display().to_string();
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            let run = |args: &[&str]| {
                let mut argv: Vec<OsString> = vec!["deepcps".into()];
                argv.extend(args.iter().map(OsString::from));
                let (mut out, mut err) = (Vec::new(), Vec::new());
                let code = deepcps::main_with(argv, &mut out, &mut err);
                assert_eq!(code, 0, "{}", String::from_utf8_lossy(&err));
                String::from_utf8(out).expect("utf8")
            };
            let chains = run(&["chains", &file]);
            assert_eq!(chains.matches("stages → @s").count(), n, "one link per statement");
            assert!(chains.contains(&format!("stages → @s{n}: $exit x{n} (inactive)")));
            let dot = run(&["dot", &file]);
            assert_eq!(
                dot.matches("shape=box style=filled").count(),
                n + 3,
                "one node per body: the let, `k x`, and the chain"
            );
            let staging = run(&["dot", "--staging", &file]);
            assert_eq!(staging.matches("[ label = \"stages\" ]").count(), n);
        })
        .expect("spawn")
        .join()
        .expect("no stack overflow, no panic");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn chains_that_fork_deeply_stay_linear() {
    // The builders' chains fork at every number. Drawn in full, each fork
    // indented the lines below it further, so the text grew with the square
    // of the program (1.7 GB at 20,000 numbers); forks deeper than
    // MAX_FORKS keep their indentation and say their depth.
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("chains");
    std::fs::create_dir_all(&dir).expect("temp dir");
    let bench = std::fs::read_to_string(root().join("corpus/bench/arith_builders.dcps")).expect("bench");
    let lib = root().join("corpus/paper/arith_stack_actions.dcps");
    let text = |n: u32| {
        bench
            .replace(
                "include \"../paper/arith_stack_actions.dcps\"",
                &format!("include {:?}", lib.display().to_string()),
            )
            .replace("let N = 5\n", &format!("let N = {n}\n"))
    };
    let widths = |n: u32, step: u32| -> (usize, usize, String) {
        let path = dir.join(format!("b{n}.dcps"));
        std::fs::write(&path, text(n)).expect("write");
        let out = ok(&["chains", "--step", &step.to_string(), &path.display().to_string()]);
        let indent = |l: &str| l.chars().take_while(|c| " │├└─".contains(*c)).count();
        let widest = out.lines().map(indent).max().unwrap_or(0);
        (widest, out.len(), out)
    };
    // Two columns under a chain's start, three per fork drawn, and the
    // branch's own `├─`.
    let most = 2 + 3 * MAX_FORKS + 2;
    let (w40, len40, out) = widths(40, 2000);
    assert!(
        out.contains("├─[25] ") || out.contains("└─[25] "),
        "forks deeper than drawn:\n{out}"
    );
    assert!(w40 <= most, "indented {w40} columns");
    // Twice the numbers at the same point of the build: about twice the text.
    let (w80, len80, _) = widths(80, 4000);
    assert!(w80 <= most, "indented {w80} columns");
    assert!(len80 < 3 * len40, "{len40} bytes at 40 numbers, {len80} at 80");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The body labels (first label line) of a DOT text, and the one drawn as
/// the focus.
fn dot_bodies(dot: &str) -> (Vec<String>, Option<String>) {
    let label = |l: &str| l.split("label=\"").nth(1).and_then(|r| r.split("\\n").next()).map(str::to_string);
    let bodies = dot
        .lines()
        .filter(|l| l.contains("shape=box style=filled"))
        .filter_map(label)
        .collect();
    let focus = dot.lines().find(|l| l.contains("peripheries=2")).and_then(label);
    (bodies, focus)
}

#[test]
fn dot_draws_the_part_around_a_body() {
    // Around the ready body: the focus is that body, and the part is a
    // strict subset of the whole graph.
    let whole = ok(&["dot", "--step", "40", ARITH]);
    let part = ok(&["dot", "--step", "40", "--focus", "ready", "--radius", "2", ARITH]);
    let (all, none) = dot_bodies(&whole);
    let (some, focus) = dot_bodies(&part);
    assert_eq!(none, None, "the whole graph has no focus");
    let ready = whole
        .lines()
        .find(|l| l.contains("fillcolor=palegreen"))
        .and_then(|l| l.split("label=\"").nth(1))
        .and_then(|r| r.split("\\n").next())
        .map(str::to_string);
    assert!(ready.is_some(), "{whole}");
    assert_eq!(focus, ready, "{part}");
    assert!(some.len() < all.len(), "{} of {} bodies", some.len(), all.len());
    // Nodes with neighbours left out are marked `…`.
    assert!(some.iter().all(|b| all.contains(&b.trim_end_matches(" …").to_string())), "{part}");
    // A wider radius draws at least as much.
    let wider = ok(&["dot", "--step", "40", "--focus", "ready", "--radius", "4", ARITH]);
    assert!(dot_bodies(&wider).0.len() >= some.len());
    // --radius alone focuses the ready body too.
    assert_eq!(ok(&["dot", "--step", "40", "--radius", "2", ARITH]), part);
    // A place: in the program's file, or in an included one by the end of
    // its name.
    let at = ok(&["dot", "--focus", "arith_stack_actions.dcps:11:3", "--radius", "1", ARITH]);
    let focus_line = at.lines().find(|l| l.contains("peripheries=2"));
    assert!(
        focus_line.is_some_and(|l| l.contains("\\ncorpus/paper/arith_stack_actions.dcps:11:3\\n")),
        "{at}"
    );
}

#[test]
fn dot_focus_errors_name_what_is_wrong() {
    let r = deepcps(&["dot", "--focus", "99:1", ARITH]);
    assert_eq!((r.code, r.out.as_str()), (2, ""));
    assert!(
        r.err
            .starts_with("deepcps: no body of this state starts at 99:1; bodies start at 9:1, "),
        "{}",
        r.err
    );
    let r = deepcps(&["dot", "--focus", "nope.dcps:1:1", ARITH]);
    assert_eq!(r.code, 2);
    assert!(r.err.contains("no body of the state starts in that file"), "{}", r.err);
    for bad in ["x", "0:1", "3:", "a:b:c"] {
        let r = deepcps(&["dot", "--focus", bad, ARITH]);
        assert_eq!(r.code, 2, "{bad}");
        assert!(r.err.contains("is neither `ready` nor a place"), "{bad}: {}", r.err);
    }
    let r = deepcps(&["dot", "--radius", "0", ARITH]);
    assert_eq!(r.code, 2, "{}", r.err);
    let r = deepcps(&["dot", "--staging", "--focus", "ready", ARITH]);
    assert_eq!(r.code, 2, "{}", r.err);
    // Nothing is ready in a residual.
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("dot-focus");
    std::fs::create_dir_all(&dir).expect("temp dir");
    let residual = dir.join("residual.dcps");
    std::fs::write(&residual, "@never: $exit 1\n").expect("write");
    let r = deepcps(&["dot", "--focus", "ready", &residual.display().to_string()]);
    assert_eq!(r.code, 2, "{}", r.err);
    assert!(r.err.contains("no body of this state is ready"), "{}", r.err);
    let _ = std::fs::remove_dir_all(&dir);
}
