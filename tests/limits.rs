//! Limits are results: each budget of `deepcps run`
//! stops a run with exit code 3, says which budget and what was reached, and
//! prints the step counts so far; nothing half-printed goes to stdout.
//! (Ctrl-C, which needs a real process and a signal, is checked by
//! scripts/tui-e2e.sh.)

use deepcps_tests::{deepcps, root};

/// Writes `text` to a fresh file under the system's temporary folder.
fn program(name: &str, text: &str) -> String {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("limits");
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write");
    path.display().to_string()
}

const INFINITE: &str = "fix loop(i) {\n  \"i+1\" (j)\n  loop j\n} in\nloop 0\n";
const GROWING: &str = "fix grow(t) {\n  grow [1, t]\n} in\ngrow []\n";

#[test]
fn an_infinite_loop_stops_at_the_step_limit() {
    let p = program("infinite.dcps", INFINITE);
    for reference in [false, true] {
        let mut args = vec!["run", p.as_str(), "--max-steps", "20000"];
        if reference {
            args.push("--reference");
        }
        let r = deepcps(&args);
        assert_eq!(r.code, 3, "{}", r.err);
        assert!(r.out.is_empty(), "nothing on stdout: {}", r.out);
        assert!(r.err.contains("step limit reached: 20000 steps"), "{}", r.err);
        assert!(r.err.contains("raise it with --max-steps N"), "{}", r.err);
        assert!(
            r.err.contains("steps: 20000 (beta 10000, expr 9999, if 0, fix 1, exit 0)"),
            "{}",
            r.err
        );
    }
}

#[test]
fn unbounded_allocation_stops_at_the_node_limit() {
    let p = program("growing.dcps", GROWING);
    let r = deepcps(&["run", &p, "--max-nodes", "5000"]);
    assert_eq!(r.code, 3, "{}", r.err);
    assert!(r.out.is_empty());
    assert!(r.err.contains("node limit reached: more than 5000 live nodes after"), "{}", r.err);
    assert!(r.err.contains("raise it with --max-nodes N"), "{}", r.err);
    assert!(r.err.contains("steps: "), "{}", r.err);
    // The default limit is there too (the flag has a default).
    let r = deepcps(&["run", "--help"]);
    let default = deepcps::memory::default_max_nodes().to_string();
    assert!(r.out.contains("--max-nodes") && r.out.contains(&default), "{}", r.out);
}

#[test]
fn the_time_limit() {
    let p = program("infinite_time.dcps", INFINITE);
    let r = deepcps(&["run", &p, "--timeout", "0.2", "--max-steps", "1000000000000"]);
    assert_eq!(r.code, 3, "{}", r.err);
    assert!(r.err.contains("time limit reached: 0.200 s spent"), "{}", r.err);
    assert!(r.err.contains("raise it with --timeout SECONDS"), "{}", r.err);
}

#[test]
fn the_output_limit() {
    let file = root().join("corpus/paper/arith_built.dcps").display().to_string();
    let r = deepcps(&["run", &file, "--max-output", "10"]);
    assert_eq!(r.code, 3, "{}", r.err);
    assert!(r.out.is_empty(), "{}", r.out);
    assert!(
        r.err
            .contains("output limit reached: the result is longer than --max-output 10 bytes"),
        "{}",
        r.err
    );
    assert!(r.err.contains("steps: 330"), "{}", r.err);
    // At the limit exactly, the result prints.
    let r = deepcps(&["run", &file, "--max-output", "106"]);
    assert_eq!(r.code, 0, "{}", r.err);
    assert_eq!(r.out.len(), 106);
    // A term printed by --stop-after obeys it too.
    let r = deepcps(&["run", &file, "--stop-after", "5", "--max-output", "10"]);
    assert_eq!(r.code, 3, "{}", r.err);
    assert!(r.out.is_empty());
    assert!(r.err.contains("longer than --max-output 10 bytes"), "{}", r.err);
}

#[test]
fn bad_limit_values_are_usage_errors() {
    let file = root().join("corpus/paper/arith_built.dcps").display().to_string();
    for (flag, value) in [
        ("--max-steps", "-1"),
        ("--max-nodes", "lots"),
        ("--max-output", "1.5"),
        ("--timeout", "-3"),
    ] {
        let r = deepcps(&["run", &file, flag, value]);
        assert_eq!(r.code, 2, "{flag} {value}: {}", r.err);
        assert!(r.err.contains(flag) || r.err.contains(value), "{flag} {value}: {}", r.err);
    }
}

#[test]
fn the_output_limit_cuts_printing_short() {
    // A chain of closures nested in argument position prints with one more
    // level of indentation per closure: quadratic text. With a small
    // output limit the printer stops writing indentation at the limit.
    let grow = "fix grow(i, f) {\n  \"i+1\" (j)\n  grow j (k) {\n    f k\n  }\n} in\ngrow 0 (k) {\n  $exit k\n}\n";
    let p = program("closures.dcps", grow);
    let r = deepcps(&["run", &p, "--max-nodes", "4000", "--max-output", "1000"]);
    assert_eq!(r.code, 3, "{}", r.err);
    assert!(r.err.contains("node limit reached"), "{}", r.err);
    let r = deepcps(&["run", &p, "--stop-after", "2000", "--max-output", "1000"]);
    assert_eq!(r.code, 3, "{}", r.err);
    assert!(r.out.is_empty());
    assert!(r.err.contains("longer than --max-output 1000 bytes"), "{}", r.err);
    // Without the limit the same term prints, and is far longer.
    let r = deepcps(&["run", &p, "--stop-after", "2000"]);
    assert_eq!(r.code, 0, "{}", r.err);
    assert!(r.out.len() > 100_000, "{}", r.out.len());
}

#[test]
fn run_has_no_default_step_limit() {
    // A loop of 12 million steps, more than `bench`'s and `test`'s default
    // step limit, runs to its end.
    let text = std::fs::read_to_string(root().join("corpus/bench/loop_sum.dcps")).expect("read");
    let text = text.replace("let N = 1000\n", "let N = 2000000\n");
    let p = program("long_loop.dcps", &text);
    let r = deepcps(&["run", &p, "--stats"]);
    assert_eq!(r.code, 0, "{}", r.err);
    assert_eq!(r.out, "2000001000000\n");
    assert!(r.err.contains("steps: 12000007 "), "{}", r.err);
    // The flag still limits.
    let r = deepcps(&["run", &p, "--max-steps", "1000"]);
    assert_eq!(r.code, 3, "{}", r.err);
    assert!(r.err.contains("step limit reached: 1000 steps"), "{}", r.err);
}

/// A tuple that doubles at every step: a few nodes of shared graph, a tree
/// of 2^n nodes written out.
const DOUBLING: &str = "fix grow(t) {\n  grow [t, t]\n} in\ngrow []\n";

/// The same, exiting with the tuple after `n` doublings.
fn doubling_exit(n: u32) -> String {
    format!("fix grow(t, n) {{\n  if \"n == 0\" () {{ $exit t }} () {{ grow [t, t] \"n-1\" }}\n}} in\ngrow [] {n}\n")
}

#[test]
fn a_term_too_large_to_write_out_is_refused_not_built() {
    let p = program("doubling.dcps", DOUBLING);
    // 2^20 nodes written out, a limit of 100,000: every command that would
    // build the term says so instead, with the size and the flag.
    let cases: [&[&str]; 7] = [
        &["run", "--stop-after", "22"],
        &["run", "--engine", "--stop-after", "22"],
        &["dump", "--max-steps", "22"],
        &["dump", "--step", "22"],
        &["dot", "--step", "22"],
        &["dot", "--staging", "--step", "22"],
        &["chains", "--step", "22"],
    ];
    for args in cases {
        let mut argv = args.to_vec();
        argv.extend(["--max-nodes", "100000", p.as_str()]);
        let r = deepcps(&argv);
        assert_eq!(r.code, 3, "{argv:?}: {}", r.err);
        assert!(r.out.is_empty(), "{argv:?}: nothing on stdout");
        assert!(r.err.contains("is too large to build"), "{argv:?}: {}", r.err);
        assert!(
            r.err.contains("it has 4194311 nodes, more than the node limit of 100000"),
            "{argv:?}: {}",
            r.err
        );
        assert!(r.err.contains("; raise it with --max-nodes N"), "{argv:?}: {}", r.err);
    }
    // Within the limit, the same commands print.
    for engine in [false, true] {
        let mut argv = vec!["run", "--stop-after", "8", "--max-nodes", "100000", &p];
        if engine {
            argv.push("--engine");
        }
        let r = deepcps(&argv);
        assert_eq!(r.code, 0, "{argv:?}: {}", r.err);
        assert!(r.out.contains("[[[[[[[[]"), "{argv:?}: {}", r.out);
    }
    let r = deepcps(&["dump", "--step", "8", "--max-nodes", "100000", &p]);
    assert_eq!(r.code, 0, "{}", r.err);
}

#[test]
fn an_exit_value_too_large_to_write_out_is_refused_not_built() {
    let p = program("doubling_exit.dcps", &doubling_exit(20));
    for args in [&["run"][..], &["run", "--engine"], &["dump"], &["dump", "--step", "200"]] {
        let mut argv = args.to_vec();
        argv.extend(["--max-nodes", "100000", p.as_str()]);
        let r = deepcps(&argv);
        assert_eq!(r.code, 3, "{argv:?}: {}", r.err);
        assert!(r.out.is_empty(), "{argv:?}: nothing on stdout");
        assert!(
            r.err.contains("the exit value is too large to build") && r.err.contains("2097151 nodes"),
            "{argv:?}: {}",
            r.err
        );
    }
    let p = program("doubling_exit_small.dcps", &doubling_exit(3));
    for args in [&["run"][..], &["run", "--engine"]] {
        let mut argv = args.to_vec();
        argv.extend(["--max-nodes", "100000", p.as_str()]);
        let r = deepcps(&argv);
        assert_eq!(
            (r.code, r.out.as_str()),
            (0, "[[[[], []], [[], []]], [[[], []], [[], []]]]\n"),
            "{argv:?}: {}",
            r.err
        );
    }
    // 2^40 nodes written out: refused at once, not read back for hours.
    let p = program("doubling_exit_huge.dcps", &doubling_exit(40));
    for args in [&["run"][..], &["run", "--engine"]] {
        let r = deepcps(&[args, &[p.as_str()]].concat());
        assert_eq!(r.code, 3, "{args:?}: {}", r.err);
        assert!(r.err.contains("it has 2199023255551 nodes"), "{args:?}: {}", r.err);
    }
}

/// A run that a limit stopped reports the term as it stands only when the
/// caller asks for it: every machine leaves the text and the warnings out
/// otherwise (`deepcps run` prints nothing then, and so builds nothing).
#[test]
fn the_term_at_a_limit_is_built_only_when_asked_for() {
    use deepcps_machine::engine::Engine;
    use deepcps_machine::graph::Machine;
    use deepcps_machine::reference::Reducer;
    use deepcps_machine::run::{Limits, Outcome, Report, StopReason};
    // A loop that carries a stuck body along.
    let text = "fix loop(i, f) {\n  \"i+1\" (j)\n  loop j f\n} in\nloop 0 (x) { @always: x 1 }\n";
    let loaded = deepcps_tests::load_source(text).expect("loads");
    for term_at_limit in [true, false] {
        let limits = Limits {
            max_steps: 7,
            term_at_limit,
            ..Limits::default()
        };
        let reports: [(&str, Report); 3] = [
            ("reference", Reducer::new(loaded.clone()).report(&limits)),
            ("graph", Machine::new(loaded.clone()).report(&limits)),
            ("engine", Engine::new(loaded.clone()).report(&limits)),
        ];
        for (machine, r) in reports {
            assert!(
                matches!(r.outcome, Outcome::Limit(StopReason::Steps(7))),
                "{machine}: {:?}",
                r.outcome
            );
            assert_eq!(r.counts.total(), 7, "{machine}");
            if term_at_limit {
                assert!(r.text.contains("loop"), "{machine}: {}", r.text);
                assert!(!r.warnings.is_empty(), "{machine}: the stuck `x 1`");
            } else {
                assert_eq!(r.text, "", "{machine}");
                assert!(r.warnings.is_empty(), "{machine}");
            }
        }
    }
    // `deepcps run` asks for it with `--stop-after` only.
    let p = program("stuck_loop.dcps", text);
    let r = deepcps(&["run", &p, "--max-steps", "7"]);
    assert_eq!(r.code, 3, "{}", r.err);
    assert!(r.out.is_empty() && !r.err.contains("stuck"), "{}", r.err);
    let r = deepcps(&["run", &p, "--stop-after", "7"]);
    assert_eq!(r.code, 0, "{}", r.err);
    assert!(r.out.contains("loop") && r.err.contains("stuck"), "{}\n{}", r.out, r.err);
}
