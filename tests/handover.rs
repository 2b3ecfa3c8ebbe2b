//! The hand-over from the graph machine to the arena engine
//! (`deepcps_machine::handover`) is exact: handed over after any step, a
//! run ends as the graph machine alone ends it (outcome, error message,
//! step counts by kind, printed result, stuck warnings). Each program is
//! handed over after its first step and at a third and two thirds of its
//! steps, from the graph stepping alone and with fast runs and parallel
//! rounds; the corpus, generated staged programs, programs built by the
//! paper's actions and the builders' benchmark shape are checked.
//! `DEEPCPS_HANDOVER_CASES=N` sets the number of generated staged programs
//! (default 2,000).

use std::path::Path;

use deepcps_machine::graph::par::Parallel;
use deepcps_machine::handover::{report, Policy};
use deepcps_machine::run::{Limits, Outcome, Report};
use deepcps_machine::span::SourceMap;
use deepcps_machine::syntax::{load_program, RealFs};
use deepcps_machine::term::Program;
use deepcps_tests::builders::{builders_benchmark, load_builder_program, BuilderGen};
use deepcps_tests::{check_every_step, dcps_files, directive, env_u64, graph_report, load_source, root, StagedGen, TEST_MAX_STEPS};

/// What a run shows a user, as compared.
fn shown(r: &Report) -> String {
    let outcome = match &r.outcome {
        Outcome::Error(e) => format!("error {}: {}", e.kind.name(), e.message),
        Outcome::Exit(_) => "exit".into(),
        Outcome::Residual => "residual".into(),
        Outcome::Limit(l) => format!("limit ({l})"),
    };
    let warnings: Vec<String> = r.warnings.iter().map(|w| format!("{} at {:?}", w.message, w.primary)).collect();
    format!("{outcome}\n{}\nwarnings: {warnings:#?}\n--- text\n{}", r.counts, r.text)
}

/// Checks `program` handed over after its first step and at a third and
/// two thirds of its steps against the graph machine alone.
fn check(name: &str, program: &Program, limits: &Limits) -> Result<(), String> {
    let want = graph_report(program.clone(), limits);
    let steps = want.counts.total();
    let mut points = vec![1, steps / 3, 2 * steps / 3];
    points.retain(|&k| k >= 1 && k < steps);
    points.dedup();
    for k in points {
        let policy = Policy {
            first_window: k,
            last_window: k,
            always: true,
        };
        // Stepping on the graph, the hand-over comes after step `k`; with
        // fast runs and eager rounds on two threads, at the first step on
        // the graph after it.
        for fast in [false, true] {
            let par = if fast {
                Parallel::eager(2).unwrap_or_else(|e| panic!("{e}"))
            } else {
                Parallel::sequential()
            };
            let (got, ran) = report(program.clone(), limits, &par, fast, policy);
            let at = ran.handed_over;
            if (!fast && at != Some(k)) || at.is_some_and(|at| at < k) {
                return Err(format!("{name}: asked to hand over after step {k}, handed over at {at:?}"));
            }
            let (got, want) = (shown(&got), shown(&want));
            if got != want {
                return Err(format!(
                    "{name}: handed over after step {at:?}\n=== handed over\n{got}\n=== graph machine\n{want}"
                ));
            }
        }
    }
    Ok(())
}

/// Runs `check` on a thread with a large stack (the reference-style
/// printing of deep results recurses nowhere, but the expression evaluator
/// does), collecting the failures.
fn all(cases: Vec<(String, Program, Limits)>) {
    let failures: Vec<String> = std::thread::Builder::new()
        .stack_size(1 << 28)
        .spawn(move || cases.iter().filter_map(|(n, p, l)| check(n, p, l).err()).collect())
        .expect("spawn")
        .join()
        .unwrap_or_else(|e| std::panic::resume_unwind(e));
    let shown: Vec<&String> = failures.iter().take(3).collect();
    assert!(failures.is_empty(), "{} failed:\n{shown:#?}", failures.len());
}

#[test]
fn corpus_programs_hand_over_exactly() {
    let base = root();
    let mut files = Vec::new();
    dcps_files(&base.join("corpus"), &mut files);
    let mut cases = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let mut sources = SourceMap::new();
        let Ok(program) = load_program(&RealFs, Path::new(path), &mut sources) else {
            continue;
        };
        let max_steps = directive(&text, "max-steps:")
            .and_then(|n| n.parse().ok())
            .unwrap_or(TEST_MAX_STEPS);
        let limits = Limits {
            max_steps: max_steps.min(300_000),
            ..Limits::default()
        };
        cases.push((path.display().to_string(), program, limits));
    }
    assert!(cases.len() >= 28, "only {} corpus programs", cases.len());
    all(cases);
}

#[test]
fn generated_staged_programs_hand_over_exactly() {
    let n = env_u64("DEEPCPS_HANDOVER_CASES", 2_000);
    let limits = Limits {
        max_steps: 2_000,
        ..Limits::default()
    };
    let cases = (0..n)
        .map(|seed| {
            let src = StagedGen::new(seed).program().src;
            let program = load_source(&src).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            (format!("seed {seed}:\n{src}"), program, limits)
        })
        .collect();
    all(cases);
}

#[test]
fn generated_builder_programs_hand_over_exactly() {
    let limits = Limits {
        max_steps: 20_000,
        ..Limits::default()
    };
    let cases = (0..200)
        .map(|seed| {
            let src = BuilderGen::new(seed).program();
            let program = load_builder_program(&src).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            (format!("builders seed {seed}:\n{src}"), program, limits)
        })
        .collect();
    all(cases);
}

/// The shape of the builders' benchmark (`scripts/builders-bench.sh`): the
/// stack builders on 1+2+..+N, the residual run.
#[test]
fn the_builders_benchmark_hands_over_exactly() {
    let program = load_builder_program(&builders_benchmark(40)).unwrap_or_else(|e| panic!("{e}"));
    all(vec![("builders 40".into(), program, Limits::default())]);
}

/// The engine's invariants (owners, exact occurrence counts, pending
/// bodies on the worklist) hold at every step after a hand-over, for
/// builder programs and generated staged programs: the values
/// written out once, closed lambdas and closed recursive values such as the
/// builders' `for` inside `build`, become shared slots of the engine.
#[test]
fn the_engine_keeps_its_invariants_after_a_hand_over() {
    use deepcps_machine::engine::Engine;
    use deepcps_machine::graph::Machine;
    let mut programs: Vec<(String, Program, u64)> = Vec::new();
    for src in std::iter::once(builders_benchmark(12)).chain((0..40).map(|seed| BuilderGen::new(seed).program())) {
        let program = load_builder_program(&src).unwrap_or_else(|e| panic!("{e}"));
        programs.push((src, program, 20_000));
    }
    for seed in 0..env_u64("DEEPCPS_HANDOVER_CASES", 2_000) / 5 {
        let src = StagedGen::new(seed).program().src;
        let program = load_source(&src).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        programs.push((format!("seed {seed}:\n{src}"), program, 2_000));
    }
    let mut failures = Vec::new();
    let mut lifted_recs = 0;
    for (src, program, max_steps) in &programs {
        let limits = Limits {
            max_steps: *max_steps,
            ..Limits::default()
        };
        let steps = graph_report(program.clone(), &limits).counts.total();
        for k in [steps / 3, 2 * steps / 3] {
            if k == 0 {
                continue;
            }
            let mut m = Machine::new(program.clone());
            m.pause_at = k;
            let _ = m.run_par(&limits, &Parallel::sequential());
            m.classify_shared_recs();
            let counts = m.counts;
            let (p, shared) = m.into_program_lifted();
            lifted_recs += shared
                .iter()
                .filter(|(_, a)| matches!(a, deepcps_machine::term::Atom::Rec(_)))
                .count();
            let mut e = Engine::continuing(p, shared, counts);
            if let Err(why) = check_every_step(&mut e, k, limits.max_steps) {
                failures.push(format!("handed over after step {k}, {why}\n{src}"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} fail:\n{}",
        failures.len(),
        failures[..failures.len().min(3)].join("\n")
    );
    // The builders' `for` was written out once at least.
    assert!(lifted_recs > 0);
}
