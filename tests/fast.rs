//! Fast runs (`machine/src/graph/fast/`) against the graph machine stepping
//! alone: run in stretches of a few steps (so that fast runs start and end
//! everywhere), a machine with fast runs must stand where the one without
//! stands after the same number of steps: the same counts by kind, the same
//! outcome, a graph whose invariants hold, and the same printed state, or
//! else the reference reducer's. (The two machines print a recursive value
//! that several places hold differently while it waits in an intermediate
//! state: as one `fix` or one per place. Both denote the same term; the
//! reference decides, and the fast runs' form is its.)

use std::path::{Path, PathBuf};

use deepcps_machine::graph::Machine;
use deepcps_machine::print::Printer;
use deepcps_machine::reference::Reducer;
use deepcps_machine::run::{Limits, Outcome, StopReason};
use deepcps_machine::span::SourceMap;
use deepcps_machine::syntax::{load_program, RealFs};
use deepcps_machine::term::Program;
use deepcps_tests::{load_source, root, Gen, StagedGen};

fn state(m: &Machine) -> String {
    let p = m.to_program();
    Printer::new(&p.vars).program_text(&p.body)
}

fn outcome(o: &Outcome) -> String {
    match o {
        Outcome::Residual => "residual".into(),
        Outcome::Exit(_) => "exit".into(),
        Outcome::Error(e) => format!("error {}", e.kind.name()),
        Outcome::Limit(StopReason::Steps(n)) => format!("steps {n}"),
        Outcome::Limit(r) => format!("limit {r}"),
    }
}

/// Runs `program` with and without fast runs, in stretches of 1 to 7
/// steps, comparing after each; returns how many steps the fast machine
/// took in fast runs.
fn agree(program: Program, max_steps: u64) -> Result<u64, String> {
    let mut fast = Machine::new(program.clone());
    let mut slow = Machine::new(program.clone());
    slow.fast = false;
    let (mut target, mut stride) = (0, 1);
    while target < max_steps {
        target += stride;
        stride = stride % 7 + 1;
        let limits = Limits {
            max_steps: target,
            ..Limits::default()
        };
        let a = fast.run(&limits);
        let b = slow.run(&limits);
        let (oa, ob) = (outcome(&a), outcome(&b));
        if oa != ob {
            return Err(format!("to step {target}: fast {oa}, stepping {ob}"));
        }
        if fast.counts != slow.counts {
            return Err(format!("to step {target}: fast {}, stepping {}", fast.counts, slow.counts));
        }
        if let Outcome::Exit(_) = a {
            return Ok(fast.stats.fast_steps_done);
        }
        let (sa, sb) = (state(&fast), state(&slow));
        if sa != sb {
            let mut r = Reducer::new(program.clone());
            r.run(&limits);
            let sr = Printer::new(&r.vars).program_text(&r.body);
            if sa != sr {
                return Err(format!(
                    "to step {target}: states differ\n--- fast ---\n{sa}\n--- stepping ---\n{sb}\n--- reference ---\n{sr}"
                ));
            }
        }
        fast.check().map_err(|e| format!("to step {target}: {e}"))?;
        if !matches!(a, Outcome::Limit(StopReason::Steps(_))) {
            break;
        }
    }
    Ok(fast.stats.fast_steps_done)
}

/// The `.dcps` programs under `dir` (not the libraries they include).
fn programs(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "dcps") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn fast_runs_agree_with_the_graph_steps_on_the_corpus() {
    let mut fast_steps = 0;
    let mut ran = 0;
    for dir in ["corpus/paper", "corpus/bench", "corpus/err"] {
        for f in programs(&root().join(dir)) {
            let mut sources = SourceMap::new();
            let Ok(p) = load_program(&RealFs, &f, &mut sources) else {
                continue;
            };
            fast_steps += agree(p, 3_000).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            ran += 1;
        }
    }
    assert!(ran >= 20, "the corpus runs ({ran} programs)");
    assert!(fast_steps > 1000, "fast runs take steps on the corpus ({fast_steps})");
}

#[test]
fn fast_runs_agree_with_the_graph_steps_on_generated_programs() {
    let env = |k: &str, d: u64| std::env::var(k).ok().and_then(|s| s.parse().ok()).unwrap_or(d);
    let cases = env("DEEPCPS_FAST_CASES", 1500);
    // A hand run may start further on (`DEEPCPS_FAST_FROM`).
    let from = env("DEEPCPS_FAST_FROM", 0);
    let (mut ran, mut fast_steps) = (0, 0);
    for seed in from..from + cases {
        for (kind, text) in [("plain", Gen::new(seed).program()), ("staged", StagedGen::new(seed).program().src)] {
            let Ok(p) = load_source(&text) else {
                continue;
            };
            fast_steps += agree(p, 400).unwrap_or_else(|e| panic!("{kind} seed {seed}: {e}\n--- program ---\n{text}"));
            ran += 1;
        }
    }
    assert!(ran > cases, "most generated programs load ({ran} of {})", 2 * cases);
    assert!(
        fast_steps > ran,
        "fast runs take steps on generated programs ({fast_steps} in {ran})"
    );
}

#[test]
fn a_core_time_loop_runs_fast_to_its_end() {
    let text = "fix loop(i, acc, k) {\n  \"i > 2000\" (done)\n  if done () { k acc } () {\n    \"acc+i\" (a)\n    \"i+1\" (j)\n    loop j a k\n  }\n} in\nloop 1 0 $exit\n";
    let p = load_source(text).expect("loads");
    let mut m = Machine::new(p);
    let r = m.report(&Limits::default());
    assert_eq!(r.text.trim_end(), "2001000");
    assert_eq!(r.counts.total(), 12_006);
    // All but the last (`$exit`), which the graph machine takes.
    assert_eq!(m.stats.fast_steps_done, 12_005, "{}", r.counts);
    assert_eq!(m.live_nodes(), 3);
}

/// Runs `text` with fast runs and with the reference reducer: both exit,
/// the machine printing `want`, with the same counts by kind, and fast
/// runs agree with stepping all the way. The machine, for more checks.
fn check_exit(text: &str, want: &str) -> Machine {
    let p = load_source(text).expect("loads");
    let mut reference = Reducer::new(p.clone());
    let ended = reference.run(&Limits::default());
    assert!(matches!(ended, Outcome::Exit(_)), "{}", outcome(&ended));
    let mut m = Machine::new(p.clone());
    let r = m.report(&Limits::default());
    assert_eq!(r.text.trim_end(), want);
    assert_eq!(m.counts, reference.counts);
    agree(p, reference.counts.total() + 8).unwrap_or_else(|e| panic!("{e}"));
    m
}

/// A builder made by `mk` is applied inside another reduction (`wrap`'s)
/// to a symbolic stack and a known continuation: the continuation call
/// that its reduction left blocked, nested in the residual of `pop`'s
/// continuation, wakes when the residual is applied, and the run reduces
/// it there instead of handing the state back.
const NESTED_RESIDUAL: &str = r#"let pop(S, return) {
  "S[0]" (v)
  "S[1]" (t)
  return v t
}
let mk(n, return)[bt] {
  return (s, k) {
    '@s:' pop s (v, t) {
      '@bt:' "n+1" (m1)
      k m1 v t
    }
  }
}
let wrap(g, return)[wt] {
  return (s2, ret) {
    '@wt:' g s2 (a, b, c) {
      "a*10" (x)
      ret x b c
    }
  }
}
mk 5 (f)
wrap f (h)
h [7, [8, []]] (x, b, c) {
  $exit "x+b"
}
"#;

#[test]
fn a_body_blocked_in_a_nested_residual_wakes_in_a_run() {
    let m = check_exit(NESTED_RESIDUAL, "67");
    // All but the first steps (to the first ready body with fast runs
    // allowed) and `$exit`.
    assert_eq!(m.stats.fast_steps_done, 13, "{}", m.counts);
}

/// A residual that waits on a hole of the reduction around it (`k x x`
/// under `(x)`, on `mk`'s `k`) becomes a value (`keep` puts it in a
/// tuple) before that reduction ends. When the outer residual is applied,
/// the body in the tuple turns pending where a run does not look: the
/// run must leave that β to the graph, or the step under `(x)` is lost.
const ESCAPED_RESIDUAL: &str = r#"let keep(h, return) { return [h] }
let mk(return)[bt] {
  return (k) {
    '@bt:' keep (x)[xt] { '@bt:' k x x } (t)
    k 1 t
  }
}
mk (f)
f (v, t) {
  "v+1" (w)
  $exit w
}
"#;

#[test]
fn a_residual_that_became_a_value_wakes_on_the_graph() {
    let m = check_exit(ESCAPED_RESIDUAL, "2");
    assert_eq!(m.counts.total(), 11);
}

/// Under `mk`'s lambda, `g 1 !xs ..` splices the symbolic rest parameter
/// `xs` into `f`, where it lands exactly on `f`'s rest parameter: `r :=
/// xs`, and the run goes on instead of handing the splice to the graph.
const SYMBOLIC_SPLICE: &str = r#"let f(a, !r, k) {
  k "a+10" r
}
let mk(g, return)[bt] {
  return (k, !xs) {
    '@bt:' g 1 !xs (v, t) {
      k v t
    }
  }
}
mk f (h)
h (x, t) {
  $exit "x+t[0]"
} 5
"#;

#[test]
fn a_symbolic_splice_binds_a_rest_parameter_in_a_run() {
    let m = check_exit(SYMBOLIC_SPLICE, "16");
    // All but `$exit`.
    assert_eq!(m.stats.fast_steps_done, m.counts.total() - 1, "{}", m.counts);
}

/// Before a `fix` executes its name is symbolic, so the `@always` body
/// that calls it under `$exit`'s lambda is stuck, not pending: the `fix`
/// is ready, and a run that reaches it executes it and then reduces under
/// the lambda, instead of leaving the `fix` to the graph.
const FIX_BEFORE_STUCK_BODY: &str = r#""20+1" (a)
fix twice(n, k) {
  k "n*2"
} in
$exit (x)[pt] {
  @always: twice a (y) {
    @pt: "x+y" (r)
    twice r (z) { @pt: $exit z }
  }
}
"#;

#[test]
fn a_fix_whose_scope_waits_on_its_name_runs_fast() {
    let m = check_exit(
        FIX_BEFORE_STUCK_BODY,
        "(x)[pt] {\n  @pt: \"x+42\" (r)\n  fix twice(n, k) {\n    k \"n*2\"\n  } in\n  twice r (z)\n  @pt: $exit z\n}",
    );
    // All but `$exit`.
    assert_eq!(m.stats.fast_steps_done, m.counts.total() - 1, "{}", m.counts);
}

/// The specialiser of `corpus/bench/specialise.dcps`, on a program of `k`
/// instructions: each `add` (every other instruction) leaves its
/// arithmetic staged and the rest of the interpretation is reduced under
/// the lambda that receives the sum, so the reductions under lambdas nest
/// `k / 2` deep.
fn specialiser(k: u32) -> Program {
    let path = root().join("corpus/bench/specialise.dcps");
    let text = std::fs::read_to_string(&path).expect("reads the benchmark");
    assert!(text.contains("\nlet K = 10\n"), "the benchmark's size line");
    load_source(&text.replace("\nlet K = 10\n", &format!("\nlet K = {k}\n"))).expect("loads")
}

#[test]
fn reductions_nested_two_thousand_deep_stay_in_one_run() {
    let p = specialiser(4000);
    let mut fast = Machine::new(p.clone());
    let mut slow = Machine::new(p);
    slow.fast = false;
    let a = fast.report(&Limits::default());
    let b = slow.report(&Limits::default());
    assert_eq!(a.text, b.text);
    assert_eq!(fast.counts, slow.counts);
    // One run builds the program list, executes the `fix` (the
    // specialiser's `@always` body is stuck on its name until then) and
    // specialises; `$exit` is the graph's.
    assert_eq!(fast.stats.fast_runs, 1, "{}", fast.counts);
    assert_eq!(fast.stats.fast_steps_done + 1, fast.counts.total(), "{}", fast.counts);
}

#[test]
fn a_run_stopped_two_thousand_reductions_deep_builds_them_back() {
    let p = specialiser(4000);
    let mut all = Machine::new(p.clone());
    let want = all.report(&Limits::default()).text;
    // Stopped by the step limit three quarters of the way, the run stands
    // about 1500 reductions under lambdas deep.
    let limits = Limits {
        max_steps: all.counts.total() * 3 / 4,
        ..Limits::default()
    };
    let mut fast = Machine::new(p.clone());
    let mut slow = Machine::new(p);
    slow.fast = false;
    let a = fast.run(&limits);
    let b = slow.run(&limits);
    assert_eq!(outcome(&a), format!("steps {}", limits.max_steps));
    assert_eq!(outcome(&a), outcome(&b));
    assert_eq!(fast.counts, slow.counts);
    assert_eq!(state(&fast), state(&slow));
    fast.check().unwrap_or_else(|e| panic!("{e}"));
    // And it goes on from there to the end.
    assert_eq!(fast.report(&Limits::default()).text, want);
}

#[test]
fn twenty_thousand_reductions_deep_are_built_back_without_recursion() {
    // On the test's thread (2 MiB of stack), a build that recursed once
    // per reduction under a lambda would overflow.
    let p = specialiser(40_000);
    let mut all = Machine::new(p.clone());
    let want = all.report(&Limits::default()).text;
    // One run nests all 20,000 reductions (and builds the residual back
    // when it stops before `$exit`).
    assert_eq!(all.stats.fast_runs, 1);
    assert_eq!(all.stats.fast_steps_done + 1, all.counts.total());
    let mut m = Machine::new(p);
    let limits = Limits {
        max_steps: all.counts.total() * 3 / 4,
        ..Limits::default()
    };
    assert_eq!(outcome(&m.run(&limits)), format!("steps {}", limits.max_steps));
    assert_eq!(m.report(&Limits::default()).text, want);
    assert_eq!(m.counts, all.counts);
}

/// A table indexed in an expression (`[[0, i], [1, 0]][k]`) is read
/// without building the entries not read when none of them can fail or be
/// stuck; when one can, the whole table is evaluated, and its error is the
/// program's.
#[test]
fn tables_indexed_in_expressions_agree_with_the_graph() {
    let table = r#"fix go(i, acc, k) {
  if "i == 0" () { k acc } () {
    "[[0, i], [1, 0], [2, acc]][i % 3]" (e)
    go "i-1" "acc+e[0]+e[1]" k
  }
} in
go 10 0 (r)
$exit r
"#;
    let m = check_exit(table, "131");
    assert_eq!(m.stats.fast_steps_done, m.counts.total() - 1, "{}", m.counts);
    let failing = "\"3+4\" (a)\n\"[a/0, a][1]\" (v)\n$exit v\n";
    let p = load_source(failing).expect("loads");
    let mut m = Machine::new(p.clone());
    let ended = m.run(&Limits::default());
    assert_eq!(outcome(&ended), "error division-by-zero");
    agree(p, 8).unwrap_or_else(|e| panic!("{e}"));
}
