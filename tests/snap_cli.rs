//! `deepcps test` (the snapshot runner for corpora kept elsewhere) and
//! `deepcps dump` (the canonical graph dump), driven in-process through
//! `deepcps::main_with` on programs written into a fresh directory under
//! the system's temporary directory (never into `corpus/`).

use std::path::{Path, PathBuf};

use deepcps::views::{render_state, state_after, View};
use deepcps_machine::graph::Machine;
use deepcps_machine::run::{Limits, Outcome};
use deepcps_machine::span::SourceMap;
use deepcps_machine::syntax::{load_program, RealFs};
use deepcps_machine::view::dump::DumpCounts;
use deepcps_machine::view::LambdaGraph;
use deepcps_tests::{deepcps, root};

const ARITH: &str = "corpus/paper/arith_built.dcps";

/// A fresh, empty directory for one test; removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(test: &str) -> TempDir {
        let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("snap-{test}"));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        TempDir(dir)
    }

    fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.0.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("dir");
        }
        std::fs::write(&path, text).expect("write");
        path
    }

    fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.0.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
    }

    fn path(&self) -> &str {
        self.0.to_str().expect("utf-8 temp dir")
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const LIB: &str = "let double(x, k) { \"x*2\" (y) k y }\n";
const MAIN: &str = "include \"lib.dcps\"\n\ndouble 21 (r)\n$exit r\n";
/// A residual with a body stuck on `f` (a warning in the diagnostics).
const RESIDUAL: &str = "let later(f) {\n  @always: f 1\n}\n@never: later $exit\n";

/// A directory with a library, a program that includes it, and a program
/// whose result is a residual with a stuck body, in a subdirectory.
fn corpus(test: &str) -> TempDir {
    let t = TempDir::new(test);
    t.write("lib.dcps", LIB);
    t.write("main.dcps", MAIN);
    t.write("sub/residual.dcps", RESIDUAL);
    t
}

#[test]
fn bless_then_pass_then_fail_with_a_diff() {
    let t = corpus("cycle");
    // No snapshots yet: a failure with the hint.
    let r = deepcps(&["test", t.path()]);
    assert_eq!(r.code, 1, "{}{}", r.out, r.err);
    assert!(r.out.contains("missing snapshots main.out, main.graph"), "{}", r.out);
    assert!(r.out.contains("deepcps test --bless"), "{}", r.out);
    assert!(r.out.contains("skip "), "the library is skipped: {}", r.out);
    assert!(r.out.ends_with("0 passed, 2 failed, 1 skipped\n"), "{}", r.out);

    // --bless writes both files of both programs.
    let r = deepcps(&["test", "--bless", t.path()]);
    assert_eq!((r.code, r.err.as_str()), (0, ""), "{}", r.out);
    assert!(r.out.contains("main.dcps (main.out, main.graph)"), "{}", r.out);
    assert!(r.out.contains("residual.dcps (residual.out, residual.graph)"), "{}", r.out);
    assert!(!t.0.join("lib.out").exists());
    let out = t.read("main.out");
    assert_eq!(
        out,
        "outcome: exit\nsteps: 5 (beta 3, expr 1, if 0, fix 0, exit 1)\n--- result\n42\n"
    );
    assert!(t.read("main.graph").starts_with("graph dump (exit value)\nnodes: 1\n"));
    let residual = t.read("sub/residual.out");
    assert!(residual.starts_with("outcome: residual\n"), "{residual}");
    assert!(residual.contains("--- diagnostics\n"), "{residual}");
    // File names are relative to the program's directory.
    assert!(residual.contains("residual.dcps:2:"), "{residual}");
    assert!(!residual.contains(t.path()), "{residual}");
    let graph = t.read("sub/residual.graph");
    assert!(graph.contains(" body stuck @always "), "{graph}");
    assert!(graph.contains(" body inactive @never "), "{graph}");

    // Blessing again changes nothing.
    let r = deepcps(&["test", "--bless", t.path()]);
    assert_eq!(r.code, 0);
    assert_eq!(r.out.matches("snapshots unchanged").count(), 2, "{}", r.out);

    // A second run passes.
    let r = deepcps(&["test", t.path()]);
    assert_eq!((r.code, r.err.as_str()), (0, ""), "{}", r.out);
    assert!(r.out.ends_with("2 passed, 0 failed, 1 skipped\n"), "{}", r.out);

    // Changing the program changes its result: a diff with - and +.
    t.write("main.dcps", &MAIN.replace("21", "22"));
    let r = deepcps(&["test", t.path()]);
    assert_eq!(r.code, 1, "{}", r.out);
    assert!(r.out.contains("FAIL "), "{}", r.out);
    assert!(r.out.contains("main.out (expected)"), "{}", r.out);
    assert!(r.out.contains("\n-42\n+44\n"), "{}", r.out);
    assert!(r.out.contains("-n0 lit 42\n+n0 lit 44\n"), "{}", r.out);
    assert!(r.out.ends_with("1 passed, 1 failed, 1 skipped\n"), "{}", r.out);

    // Restoring the program and editing the snapshot fails the same way.
    t.write("main.dcps", MAIN);
    t.write("main.out", &out.replace("beta 3", "beta 4"));
    let r = deepcps(&["test", t.path()]);
    assert_eq!(r.code, 1, "{}", r.out);
    assert!(
        r.out
            .contains("-steps: 5 (beta 4, expr 1, if 0, fix 0, exit 1)\n+steps: 5 (beta 3, expr 1, if 0, fix 0, exit 1)\n"),
        "{}",
        r.out
    );
    assert!(!r.out.contains("main.graph (expected)"), "{}", r.out);
}

#[test]
fn snapshots_do_not_depend_on_the_thread_count() {
    let t = corpus("threads");
    // A program that asks for its own thread count, and the paper's
    // programs beside it (their includes with them).
    t.write("own.dcps", &format!("// threads: 3\n{MAIN}"));
    let paper = deepcps_tests::root().join("corpus/paper");
    for e in std::fs::read_dir(&paper).expect("corpus/paper") {
        let p = e.expect("entry").path();
        if p.extension().is_some_and(|x| x == "dcps") {
            let name = format!("paper/{}", p.file_name().expect("name").to_string_lossy());
            t.write(&name, &std::fs::read_to_string(&p).expect("read"));
        }
    }
    let r = deepcps(&["test", "--bless", "--threads", "1", t.path()]);
    assert_eq!(r.code, 0, "{}{}", r.out, r.err);
    let main = t.read("main.out");
    for n in ["1", "2", "8"] {
        let r = deepcps(&["test", "--threads", n, t.path()]);
        assert_eq!((r.code, r.err.as_str()), (0, ""), "--threads {n}: {}", r.out);
        assert!(r.out.contains(" 0 failed"), "{}", r.out);
    }
    // The default (all cores) too, and nothing about threads in the files.
    let r = deepcps(&["test", t.path()]);
    assert_eq!(r.code, 0, "{}", r.out);
    assert!(!main.contains("thread"), "{main}");
    assert_eq!(t.read("own.out"), main);
}

#[test]
fn files_can_be_named_one_by_one() {
    let t = corpus("files");
    let main = t.0.join("main.dcps");
    let main = main.to_str().expect("utf-8");
    let r = deepcps(&["test", "--bless", main, main]);
    assert_eq!(r.code, 0, "{}", r.out);
    assert!(r.out.ends_with("1 passed, 0 failed\n"), "{}", r.out);
    assert!(!t.0.join("sub/residual.out").exists());
}

#[test]
fn errors_limits_and_static_errors_are_snapshots_too() {
    let t = TempDir::new("outcomes");
    t.write("div.dcps", "\"1/0\" (z)\n$exit z\n");
    t.write("spin.dcps", "// max-steps: 50\nfix spin(n) { \"n+1\" (m) spin m } in\nspin 0\n");
    t.write("bad.dcps", "$exit nowhere\n");
    let r = deepcps(&["test", "--bless", t.path()]);
    assert_eq!(r.code, 0, "{}", r.out);
    let div = t.read("div.out");
    assert!(div.starts_with("outcome: error division-by-zero\n"), "{div}");
    assert!(div.contains("div.dcps:1:"), "{div}");
    assert!(t.read("div.graph").contains(" body error @always "));
    let spin = t.read("spin.out");
    assert!(spin.starts_with("outcome: limit: step limit reached: 50 steps executed"), "{spin}");
    let bad = t.read("bad.out");
    assert!(bad.starts_with("outcome: static error\n--- diagnostics\n"), "{bad}");
    assert!(bad.contains("bad.dcps:1:"), "{bad}");
    assert_eq!(t.read("bad.graph"), "no graph: the program did not load\n");
    let r = deepcps(&["test", t.path()]);
    assert_eq!(r.code, 0, "{}", r.out);
    assert!(r.out.ends_with("3 passed, 0 failed\n"), "{}", r.out);
}

#[test]
fn bless_refuses_a_run_that_contradicts_its_directive() {
    let t = TempDir::new("refused");
    let wrong = t.write("wrong.dcps", "// expect: exit 43\n$exit 42\n");
    let r = deepcps(&["test", "--bless", t.path()]);
    assert_eq!((r.code, r.err.as_str()), (1, ""), "{}", r.out);
    assert_eq!(
        r.out,
        format!(
            "FAIL {}: not blessed: the run contradicts its directive `// expect: exit 43`: expected exit 43, got exit 42\n\
             0 passed, 1 failed\n",
            wrong.display()
        )
    );
    assert!(!t.0.join("wrong.out").exists() && !t.0.join("wrong.graph").exists());

    // Expecting a static error of a program that runs, or a result of one
    // that fails: refused too, with what happened.
    t.write("wrong.dcps", "// expect: static-error\n$exit 42\n");
    let r = deepcps(&["test", "--bless", t.path()]);
    assert_eq!(r.code, 1, "{}", r.out);
    assert!(
        r.out
            .contains("not blessed: the run contradicts its directive `// expect: static-error`: expected static-error, got exit 42\n"),
        "{}",
        r.out
    );
    t.write("wrong.dcps", "// expect-error: arity\n\"1/0\" (z)\n$exit z\n");
    let r = deepcps(&["test", "--bless", t.path()]);
    assert_eq!(r.code, 1, "{}", r.out);
    assert!(
        r.out.contains(
            "not blessed: the run contradicts its directive `// expect: error arity`: expected error arity, got error division-by-zero: "
        ),
        "{}",
        r.out
    );
    assert!(!t.0.join("wrong.out").exists());
}

#[test]
fn checking_fails_a_run_that_contradicts_its_directive() {
    let t = TempDir::new("contradicts");
    // Blessed while its directive held; then the directive changes.
    t.write("p.dcps", "// expect: exit 42\n$exit 42\n");
    let r = deepcps(&["test", "--bless", t.path()]);
    assert_eq!(r.code, 0, "{}", r.out);
    t.write("p.dcps", "// expect: exit 43\n$exit 42\n");
    let r = deepcps(&["test", t.path()]);
    assert_eq!((r.code, r.err.as_str()), (1, ""), "{}", r.out);
    assert!(
        r.out.contains(
            "FAIL {p}\n  the run contradicts its directive `// expect: exit 43`: expected exit 43, got exit 42\n"
                .replace("{p}", &t.0.join("p.dcps").display().to_string())
                .as_str()
        ),
        "{}",
        r.out
    );
    // The snapshots themselves still match: no diff.
    assert!(!r.out.contains("(expected)"), "{}", r.out);
    assert!(r.out.ends_with("0 passed, 1 failed\n"), "{}", r.out);

    // A program expected not to load that runs fine fails, snapshots or not.
    t.write("p.dcps", "// expect: static-error\n$exit 42\n");
    let r = deepcps(&["test", t.path()]);
    assert_eq!(r.code, 1, "{}", r.out);
    assert!(r.out.contains("expected static-error, got exit 42"), "{}", r.out);
    let _ = std::fs::remove_file(t.0.join("p.out"));
    let r = deepcps(&["test", t.path()]);
    assert_eq!(r.code, 1, "{}", r.out);
    assert!(
        r.out.contains("expected static-error, got exit 42\n  missing snapshot p.out\n"),
        "{}",
        r.out
    );
    assert!(!r.out.contains("--bless"), "no hint to bless what --bless refuses: {}", r.out);
}

#[test]
fn runs_that_meet_their_directives_pass() {
    let t = TempDir::new("meets");
    t.write("exit.dcps", "// expect: exit 42\n$exit 42\n");
    t.write("any_exit.dcps", "// expect: exit\n$exit [1, 2]\n");
    t.write("residual.dcps", &format!("// expect: residual\n{RESIDUAL}"));
    t.write("error.dcps", "// expect-error: division-by-zero\n\"1/0\" (z)\n$exit z\n");
    t.write("static.dcps", "// expect: static-error\n$exit nowhere\n");
    t.write("limited.dcps", "// max-steps: 50\n// expect: exit 7\n\"3+4\" (x)\n$exit x\n");
    let r = deepcps(&["test", "--bless", t.path()]);
    assert_eq!((r.code, r.err.as_str()), (0, ""), "{}", r.out);
    assert!(r.out.ends_with("6 passed, 0 failed\n"), "{}", r.out);
    let r = deepcps(&["test", t.path()]);
    assert_eq!((r.code, r.err.as_str()), (0, ""), "{}", r.out);
    assert!(r.out.ends_with("6 passed, 0 failed\n"), "{}", r.out);
    assert!(!r.out.contains("FAIL"), "{}", r.out);
}

#[test]
fn usage_errors_exit_2() {
    let t = TempDir::new("usage");
    let missing = t.0.join("no-such-dir");
    let missing = missing.to_str().expect("utf-8");
    let r = deepcps(&["test", missing]);
    assert_eq!(r.code, 2, "{}{}", r.out, r.err);
    assert!(r.err.contains("no-such-dir"), "{}", r.err);
    // An empty directory holds no program.
    let r = deepcps(&["test", t.path()]);
    assert_eq!(r.code, 2);
    assert!(r.err.contains("no `.dcps` program"), "{}", r.err);
    // No path at all.
    let r = deepcps(&["test"]);
    assert_eq!(r.code, 2);
    assert!(r.err.contains("PATHS"), "{}", r.err);
}

/// The exit value of `file` after a run on the graph machine, as a lambda
/// graph, with the run's machine.
fn exit_graph(file: &Path) -> LambdaGraph {
    let mut sources = SourceMap::new();
    let program = load_program(&RealFs, &root().join(file), &mut sources).expect("loads");
    let mut m = Machine::new(program);
    match m.run(&Limits::default()) {
        Outcome::Exit(v) => LambdaGraph::build_value(&v, m.exit_vars().expect("exit vars")),
        other => panic!("{other:?}"),
    }
}

#[test]
fn dump_of_arith_built_matches_its_lambda_graph() {
    let r = deepcps(&["dump", ARITH]);
    assert_eq!((r.code, r.err.as_str()), (0, ""), "{}", r.out);
    let lg = exit_graph(Path::new(ARITH));
    let header = DumpCounts::of(&lg).header("exit value");
    assert!(r.out.starts_with(&format!("{header}\n")), "{}", r.out);
    assert_eq!(r.out.lines().count(), 5 + lg.graph.node_count());
    // The residual of the paper: one λ(exit)[pt] and its pt chain.
    assert!(r.out.contains("\nn0 λ(exit)[pt]  body→n1\n"), "{}", r.out);
    assert!(r.out.contains("expr \"4*2\""), "{}", r.out);
    assert_eq!(r.out.matches(" body inactive @pt ").count(), 4, "{}", r.out);
}

#[test]
fn dump_at_a_step_is_the_dump_of_that_state() {
    let mut sources = SourceMap::new();
    let program = load_program(&RealFs, &root().join(ARITH), &mut sources).expect("loads");
    let (state, vars, _) = state_after(program, 10, u64::MAX).expect("within the limits");
    let expected = render_state(&state, &vars, &sources, View::Dump);
    let r = deepcps(&["dump", "--step", "10", ARITH]);
    assert_eq!((r.code, r.err.as_str()), (0, ""));
    assert_eq!(r.out, expected);
    assert!(r.out.starts_with("graph dump (term)\nnodes: "), "{}", r.out);
    assert_ne!(r.out, deepcps(&["dump", "--step", "11", ARITH]).out);
}

#[test]
fn dump_reports_errors_and_limits_with_run_exit_codes() {
    let r = deepcps(&["dump", "corpus/err/runtime_division_by_zero.dcps"]);
    assert_eq!(r.code, 1, "{}", r.err);
    assert!(r.out.contains(" body error @"), "{}", r.out);
    assert!(r.err.contains("division"), "{}", r.err);
    let r = deepcps(&["dump", "--max-steps", "5", ARITH]);
    assert_eq!(r.code, 3, "{}", r.err);
    assert!(r.out.starts_with("graph dump (term)\nnodes: "), "{}", r.out);
    assert!(r.err.contains("step limit"), "{}", r.err);
    let r = deepcps(&["dump", "corpus/paper/builders.dcps"]);
    assert_eq!(r.code, 2);
    assert!(r.err.contains("no main body"), "{}", r.err);
}
