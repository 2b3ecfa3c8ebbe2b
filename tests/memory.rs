//! A runaway program is a result, never a crash: under `ulimit -v` of 1, 3
//! and 6 GB, and under `--max-memory`, programs whose memory grows without
//! end stop with exit code 3 and a message that says what grew and which
//! flag raises the limit; and the binary starts, and runs the corpus,
//! under 1 GB.
//!
//! These need the real process (its counting allocator, its address-space
//! limit): the release binary, built here if it is missing or stale (cargo
//! decides), run through `sh -c 'ulimit -v N; exec deepcps ...'`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use deepcps_tests::root;

/// The release `deepcps`, built once per test run.
fn deepcps_exe() -> &'static Path {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let status = Command::new(cargo)
            .current_dir(root())
            .args(["build", "--release", "-q", "-p", "deepcps", "--bin", "deepcps"])
            .status()
            .expect("cargo runs");
        assert!(status.success(), "the release binary builds");
        // This test is TARGET/debug/deps/memory-HASH.
        let exe = std::env::current_exe().expect("the test's own path");
        let target = exe.ancestors().nth(3).expect("inside a target folder");
        target.join("release").join("deepcps")
    })
}

/// What a limited run printed and how it ended.
struct Ran {
    code: Option<i32>,
    out: String,
    err: String,
}

/// Runs `deepcps ARGS` with its address space limited to `kb` KiB (none
/// if 0), from the workspace root.
fn run_limited(kb: u64, args: &[&str]) -> Ran {
    let mut script = String::new();
    if kb > 0 {
        script.push_str(&format!("ulimit -v {kb}; "));
    }
    script.push_str("exec \"$0\" \"$@\"");
    let out = Command::new("sh")
        .current_dir(root())
        .arg("-c")
        .arg(script)
        .arg(deepcps_exe())
        .args(args)
        .output()
        .expect("sh runs");
    Ran {
        code: out.status.code(),
        out: String::from_utf8_lossy(&out.stdout).into_owned(),
        err: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Programs whose memory grows without end, each a different way.
const RUNAWAYS: &[(&str, &str)] = &[
    // A tuple doubled by an expression at every step: the values
    // expressions make.
    ("tuple_doubling", "fix grow(t, k) { \"[t, t]\" (u) grow u k } in grow [1] $exit\n"),
    // The same in DeepCPS, without an expression string: a tuple literal.
    ("pair_doubling", "fix grow(t, k) { grow [t, t] k } in grow [1] $exit\n"),
    // A non-tail recursion with no base case: continuations nest.
    (
        "nontail",
        "fix sum(n, k) {\n  \"n+1\" (m)\n  sum m (r) { k \"r+n\" }\n} in\nsum 0 $exit\n",
    ),
    // A staged `fix` that unfolds itself under a lambda nobody calls.
    (
        "staged_unfold",
        "fix f(n, k) {\n  '@always:' \"n+1\" (m)\n  '@always:' f m (r) { k r }\n} in\n$exit f\n",
    ),
];

/// The runaway programs written to a fresh folder, once: the tests run side
/// by side, and a file written again while another test's run reads it
/// would be read empty.
fn runaway_files() -> Vec<(String, PathBuf)> {
    static FILES: std::sync::OnceLock<Vec<(String, PathBuf)>> = std::sync::OnceLock::new();
    FILES
        .get_or_init(|| {
            let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("memory");
            std::fs::create_dir_all(&dir).expect("temp dir");
            RUNAWAYS
                .iter()
                .map(|(name, text)| {
                    let path = dir.join(format!("{name}.dcps"));
                    std::fs::write(&path, text).expect("write");
                    (name.to_string(), path)
                })
                .collect()
        })
        .clone()
}

/// The run stopped at a limit, cleanly: exit code 3, no result, a message
/// naming the limit reached and the flag that raises it.
fn assert_limit(r: &Ran, what: &str) {
    assert_eq!(r.code, Some(3), "{what}: exit code 3 (a limit), not a crash\n{}", r.err);
    assert!(r.out.is_empty(), "{what}: nothing on stdout: {}", r.out);
    let memory = (r.err.contains("memory limit reached") && r.err.contains("raise it with --max-memory"))
        || (r.err.contains("address space limit reached") && r.err.contains("raise `ulimit -v`"));
    let nodes = r.err.contains("node limit reached") && r.err.contains("live nodes");
    assert!(memory || nodes, "{what}: a limit message that says what grew:\n{}", r.err);
    assert!(r.err.contains("steps: "), "{what}: the counts so far:\n{}", r.err);
    assert!(
        !r.err.contains("panicked") && !r.err.contains("allocation"),
        "{what}: no crash:\n{}",
        r.err
    );
}

#[test]
fn runaway_programs_stop_at_the_memory_limit_under_ulimit() {
    for (name, path) in runaway_files() {
        let path = path.display().to_string();
        for gb in [1, 3, 6] {
            let r = run_limited(gb * 1_000_000, &["run", &path]);
            assert_limit(&r, &format!("{name} under {gb} GB"));
        }
    }
}

#[test]
fn runaway_programs_stop_at_max_memory() {
    for (name, path) in runaway_files() {
        let path = path.display().to_string();
        for machine in [&[][..], &["--threads", "1"], &["--no-fast"], &["--reference"]] {
            let mut args = vec!["run", path.as_str(), "--max-memory", "150M"];
            args.extend_from_slice(machine);
            let r = run_limited(0, &args);
            assert_limit(&r, &format!("{name} {machine:?} at --max-memory 150M"));
            // Memory, not nodes: the node limit fits the machine.
            assert!(r.err.contains("more than the limit of 150.0 MB"), "{name} {machine:?}:\n{}", r.err);
        }
    }
}

#[test]
fn the_limit_message_says_what_grew() {
    let files = runaway_files();
    let (_, path) = files.iter().find(|(n, _)| n == "nontail").expect("nontail");
    let r = run_limited(0, &["run", &path.display().to_string(), "--max-memory", "100M"]);
    assert_limit(&r, "nontail");
    assert!(r.err.contains("live nodes, the rest is values and frames"), "{}", r.err);
}

#[test]
fn bench_reports_a_runaway_as_a_memory_limit() {
    let files = runaway_files();
    let paths: Vec<String> = files.iter().map(|(_, p)| p.display().to_string()).collect();
    let mut args = vec!["bench", "--max-memory", "150M"];
    args.extend(paths.iter().map(String::as_str));
    let r = run_limited(1_000_000, &args);
    assert!(
        matches!(r.code, Some(1 | 3)),
        "bench ends, with a failure or a limit: {:?}\n{}",
        r.code,
        r.err
    );
    for (name, _) in &files {
        let row = r
            .out
            .lines()
            .find(|l| l.split_whitespace().next().is_some_and(|p| p.ends_with(&format!("/{name}.dcps"))))
            .unwrap_or_default();
        assert!(
            row.contains("limit memory") || row.contains("limit nodes"),
            "{name}: {row}\n{}",
            r.out
        );
    }
}

#[test]
fn the_binary_starts_and_runs_the_corpus_under_one_gigabyte() {
    let v = run_limited(1_000_000, &["--version"]);
    assert_eq!(v.code, Some(0), "{}", v.err);
    assert!(v.out.starts_with("deepcps "), "{}", v.out);
    // The paper's programs, each as the README runs them.
    for entry in std::fs::read_dir(root().join("corpus/paper")).expect("corpus/paper") {
        let path = entry.expect("entry").path();
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        if path.extension().is_none_or(|e| e != "dcps") || !text.contains("expect:") {
            continue;
        }
        let p = path.display().to_string();
        let limited = run_limited(1_000_000, &["run", &p]);
        let free = run_limited(0, &["run", &p]);
        assert_eq!(limited.code, free.code, "{p} under 1 GB:\n{}", limited.err);
        assert_eq!(limited.out, free.out, "{p} under 1 GB");
    }
    // A parallel run and a check of the whole corpus folder.
    let r = run_limited(1_000_000, &["run", "--threads", "2", "corpus/paper/arith_built.dcps"]);
    assert_eq!(r.code, Some(0), "{}", r.err);
}

/// The address space the allocator reserves at start (mimalloc: an arena
/// of 1 GiB when the limit lets it) is heap the program's memory goes
/// into, not memory taken: under limits where that reservation fits, a
/// run that holds some 70 MB, on two threads, ends as it does without a
/// limit.
#[test]
fn the_allocators_reservation_leaves_the_limit_to_the_program() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("reserve-test");
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("grow.dcps");
    let text = "fix grow(i, t) {\n  \"i > 200000\" (done)\n  if done () { $exit i } () {\n    \"i+1\" (j)\n    grow j [i, t]\n  }\n} in\ngrow 0 []\n";
    std::fs::write(&path, text).expect("write");
    let p = path.display().to_string();
    for kb in [1_500_000, 3_000_000] {
        for args in [vec!["run", "--threads", "2", p.as_str()], vec!["run", "--engine", p.as_str()]] {
            let r = run_limited(kb, &args);
            assert_eq!(r.code, Some(0), "{args:?} under {kb} KB: {}", r.err);
            assert_eq!(r.out, "200001\n", "{args:?} under {kb} KB");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn test_neither_blesses_nor_compares_a_run_stopped_at_the_memory_limit() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("memory-test");
    std::fs::create_dir_all(&dir).expect("temp dir");
    let (_, text) = RUNAWAYS[0];
    std::fs::write(dir.join("runaway.dcps"), text).expect("write");
    let d = dir.display().to_string();
    for bless in [true, false] {
        let mut args = vec!["test", d.as_str(), "--max-memory", "150M"];
        if bless {
            args.push("--bless");
        }
        let r = run_limited(3_000_000, &args);
        assert_eq!(r.code, Some(3), "bless {bless}: a limit\n{}{}", r.out, r.err);
        assert!(r.out.contains("LIMIT ") && r.out.contains("memory limit reached"), "{}", r.out);
        assert!(r.out.contains("raise it with --max-memory"), "{}", r.out);
        assert!(r.out.contains("0 passed, 0 failed, 1 stopped at the memory limit"), "{}", r.out);
        assert!(!dir.join("runaway.out").exists(), "no snapshot of a machine-dependent limit");
    }
}

/// A budget spent on the builders after loading says which machine held
/// the memory: the graph, the hand-over of the term to the engine (the
/// graph taken apart, the engine not yet whole), or the engine; every
/// message names its phase, and some budget runs out in the hand-over.
#[test]
fn a_budget_spent_during_the_hand_over_names_the_hand_over() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("handover-memory");
    std::fs::create_dir_all(&dir).expect("temp dir");
    for lib in ["arith_stack_actions.dcps", "builders.dcps"] {
        std::fs::copy(root().join("corpus/paper").join(lib), dir.join(lib)).expect("copy the builders' library");
    }
    let path = dir.join("sum.dcps");
    std::fs::write(&path, deepcps_tests::builders::builders_benchmark(30_000)).expect("write");
    let p = path.display().to_string();
    // The phase a budget of `kb` KB ends in, in the order they come:
    // 0 load, 1 graph, 2 hand-over, 3 engine, 4 done.
    let phase = |kb: u64| -> u8 {
        let budget = format!("{kb}K");
        let r = run_limited(0, &["run", &p, "--max-memory", &budget]);
        if r.code == Some(0) {
            assert_eq!(r.out, "450015000\n", "at {budget}");
            return 4;
        }
        let first = r.err.lines().next().unwrap_or_default();
        if !first.contains(" steps (") {
            // Spent while loading: no step ran, so no counts.
            assert_eq!(r.code, Some(3), "at {budget}: {}", r.err);
            assert!(
                first.contains("memory limit reached") && first.contains("raise it with --max-memory"),
                "at {budget}: {first}"
            );
            return 0;
        }
        assert_limit(&r, &format!("the builders at {budget}"));
        assert!(!first.contains("held 0 live nodes"), "at {budget}: {first}");
        if first.contains("(the graph held ") && first.contains(" live nodes, the rest is values and frames)") {
            1
        } else if first.contains("(the term was being handed over to the engine, from a graph of at most ") {
            2
        } else if first.contains("(the engine held ") && first.contains(" live nodes, the rest is slots and values)") {
            3
        } else {
            panic!("at {budget}: a message that names no phase: {first}");
        }
    };
    // Bisection for a budget spent in the hand-over, between one spent
    // loading and one that is enough.
    let (mut lo, mut hi) = (20_000, 400_000);
    assert_eq!(phase(lo), 0, "20 MB is spent loading");
    assert_eq!(phase(hi), 4, "400 MB is enough");
    let mut found = None;
    while hi - lo > 256 && found.is_none() {
        let mid = (lo + hi) / 2;
        match phase(mid) {
            2 => found = Some(mid),
            p if p < 2 => lo = mid,
            _ => hi = mid,
        }
    }
    assert!(found.is_some(), "no budget between {lo} KB and {hi} KB ran out in the hand-over");
    let _ = std::fs::remove_dir_all(&dir);
}
