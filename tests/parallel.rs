//! Parallel reduction is deterministic: for every corpus
//! program and for generated staged programs, the graph machine on 2, 4 and
//! 8 threads ends the same way as on one, prints the same term (also when a
//! step limit or an error stops it: the state at the stop is the same),
//! reports the same warnings and the same step counts by kind. The threads
//! run *eager* rounds ([`Parallel::eager`]): a round whenever the pending
//! bodies branch, at every step, however small the units, so that merging
//! in the reference order is exercised as often as possible; the default
//! schedule is checked on the corpus too.
//!
//! `DEEPCPS_PAR_CASES=N` sets the number of generated programs (default
//! 10,000, the equivalence test's, each on one of 2, 4 and 8 threads in
//! turn), `DEEPCPS_PAR_SEED=S` the first seed, `DEEPCPS_PAR_THREADS=8` (or
//! a list) runs each on every listed count; `scripts/stress.sh` runs many
//! more on 8 threads.

use std::path::PathBuf;

use deepcps_machine::graph::par::Parallel;
use deepcps_machine::graph::Machine;
use deepcps_machine::run::{Limits, Outcome, Report};
use deepcps_machine::span::SourceMap;
use deepcps_machine::syntax::{load_program, RealFs};
use deepcps_machine::term::Program;
use deepcps_tests::compare::summary;
use deepcps_tests::{dcps_files, directive, env_u64, load_source, root, StagedGen, TEST_MAX_STEPS};

/// Runs `program` on `par`.
fn report(program: Program, limits: &Limits, par: &Parallel) -> (Report, u64) {
    let mut m = Machine::new(program);
    let r = m.report_par(limits, par);
    // The merged graph keeps the machine's invariants (tours, statuses,
    // marks, sharing, no leaked nodes); after `$exit` the term is left as
    // the exit rule left it.
    if let (false, Err(e)) = (matches!(r.outcome, Outcome::Exit(_)), m.check()) {
        panic!("invariant broken after a run on {} threads: {e}", par.threads());
    }
    (r, m.par_stats().units)
}

/// Whether two runs of one program are the same: outcome (the error kind
/// and message, the limit), counts by kind, warnings and the printed term
/// or value, whatever the outcome.
fn same(seq: &Report, par: &Report) -> Result<(), String> {
    let outcome = |r: &Report| match &r.outcome {
        Outcome::Error(e) => format!("error {}: {}", e.kind.name(), e.message),
        Outcome::Limit(l) => format!("limit {l}"),
        Outcome::Exit(_) => "exit".to_string(),
        Outcome::Residual => "residual".to_string(),
    };
    let warnings = |r: &Report| r.warnings.iter().map(|w| w.message.clone()).collect::<Vec<_>>();
    if outcome(seq) == outcome(par) && seq.counts == par.counts && seq.text == par.text && warnings(seq) == warnings(par) {
        Ok(())
    } else {
        Err(format!(
            "=== 1 thread\n{}\n{}\n=== parallel\n{}\n{}",
            outcome(seq),
            summary(seq),
            outcome(par),
            summary(par)
        ))
    }
}

fn max_steps_of(text: &str) -> u64 {
    directive(text, "max-steps:")
        .and_then(|n| n.replace('_', "").parse().ok())
        .unwrap_or(TEST_MAX_STEPS)
}

/// The corpus programs that load, with their step limits.
fn corpus() -> Vec<(PathBuf, Program, u64)> {
    let base = root();
    let mut files = Vec::new();
    dcps_files(&base.join("corpus"), &mut files);
    files
        .into_iter()
        .filter_map(|path| {
            let text = std::fs::read_to_string(&path).ok()?;
            let program = load_program(&RealFs, &path, &mut SourceMap::new()).ok()?;
            Some((path, program, max_steps_of(&text)))
        })
        .collect()
}

/// On a big stack, as in the binary.
fn big_stack(f: fn()) {
    std::thread::Builder::new()
        .stack_size(1 << 30)
        .spawn(f)
        .expect("spawn")
        .join()
        .unwrap_or_else(|e| std::panic::resume_unwind(e));
}

#[test]
fn corpus_programs_are_the_same_on_every_thread_count() {
    big_stack(|| {
        let pars: Vec<(String, Parallel)> = [2, 4, 8]
            .into_iter()
            .map(|n| (format!("{n} eager threads"), Parallel::eager(n).expect("pool")))
            .chain([(String::from("2 threads"), Parallel::new(2).expect("pool"))])
            .collect();
        let mut failures = Vec::new();
        let (mut ran, mut split) = (0, 0);
        for (path, program, max_steps) in corpus() {
            let limits = Limits {
                max_steps,
                ..Limits::default()
            };
            let (seq, _) = report(program.clone(), &limits, &Parallel::sequential());
            for (name, par) in &pars {
                let (got, units) = report(program.clone(), &limits, par);
                split += u64::from(units > 0);
                if let Err(e) = same(&seq, &got) {
                    failures.push(format!("{} on {name}:\n{e}", path.display()));
                }
            }
            ran += 1;
        }
        assert!(failures.is_empty(), "{}", failures.join("\n\n"));
        assert!(ran >= 28, "only {ran} corpus programs ran");
        eprintln!("{split} runs had a round");
    });
}

/// A step limit stops a parallel run at exactly the sequential state, also
/// inside a round: every limit from 0 to the end of the paper's programs.
#[test]
fn every_step_limit_stops_at_the_same_state() {
    big_stack(|| {
        let par = Parallel::eager(3).expect("pool");
        let mut failures = Vec::new();
        let mut checked = 0;
        for (path, program, _) in corpus() {
            if !path.components().any(|c| c.as_os_str() == "paper") {
                continue;
            }
            let full = Machine::new(program.clone()).report(&Limits::default()).counts.total();
            if full > 2_000 {
                continue;
            }
            for k in 0..=full {
                let limits = Limits {
                    max_steps: k,
                    ..Limits::default()
                };
                let (seq, _) = report(program.clone(), &limits, &Parallel::sequential());
                let (got, _) = report(program.clone(), &limits, &par);
                checked += 1;
                if let Err(e) = same(&seq, &got) {
                    failures.push(format!("{} at max-steps {k}:\n{e}", path.display()));
                    break;
                }
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n\n"));
        assert!(checked > 1_000, "only {checked} limits checked");
    });
}

/// Runs `src` on one thread and on `par`; `Ok`: the units reduced in rounds.
fn check(src: &str, max_steps: u64, par: &Parallel) -> Result<u64, String> {
    let program = load_source(src)?;
    let limits = Limits {
        max_steps,
        ..Limits::default()
    };
    let (seq, _) = report(program.clone(), &limits, &Parallel::sequential());
    let (got, units) = report(program, &limits, par);
    same(&seq, &got).map(|()| units)
}

/// Staged halves are split between threads although fast runs take them:
/// a run stops where a body holds two lambdas whose bodies are active, the
/// default schedule looks for a frontier at once, and each unit's machine
/// runs its half in fast runs again (the main machine then takes only a
/// few steps). Same outcome and counts as on one thread.
#[test]
fn staged_halves_are_split_between_threads_in_fast_runs() {
    big_stack(|| {
        let src = "let join(a, b, k) {\n  a (x)\n  b (y)\n  k \"x+y\"\n}\nfix psum(lo, hi, k) {\n  if \"hi-lo == 1\" () { k lo } () {\n    \"(lo+hi)/2\" (mid)\n    join (ka) { @mid: psum lo mid ka } (kb) { @mid: psum mid hi kb } k\n  }\n} in\npsum 0 4096 $exit\n";
        let program = load_source(src).expect("loads");
        let limits = Limits::default();
        let (seq, _) = report(program.clone(), &limits, &Parallel::sequential());
        assert!(
            matches!(&seq.outcome, Outcome::Exit(deepcps_machine::term::Atom::Int(8386560))),
            "{:?}",
            seq.outcome
        );
        let mut m = Machine::new(program);
        let got = m.report_par(&limits, &Parallel::new(2).expect("pool"));
        same(&seq, &got).expect("the same run on 2 threads");
        let stats = m.par_stats();
        assert!(stats.units >= 2, "no round: {stats:?}");
        let total = m.counts.total();
        assert!(stats.steps * 10 > total * 9, "{} of {total} steps in rounds", stats.steps);
        assert!(
            m.stats.fast_steps_done * 10 > total * 9,
            "{} of {total} steps in fast runs",
            m.stats.fast_steps_done
        );
    });
}

/// Several ready `$exit`s: the first in the reference order wins, on any
/// number of threads, however the rounds fall; the same for runtime errors.
#[test]
fn exit_and_error_races_resolve_in_the_reference_order() {
    let cases = [
        // Two independent active bodies under lambdas, each exiting.
        ("(a) { @always: $exit 1 } (b) { @always: $exit 2 } (f, g) { f 0 }", "1"),
        // The first fails, the second exits: the error wins.
        (
            "(a) { @always: \"1/0\" (x) { $exit x } } (b) { @always: $exit 2 } (f, g) { f 0 }",
            "error",
        ),
        // The first exits after work, the second at once: the first wins.
        (
            "(a) { @always: \"1+1\" (x) { \"x+1\" (y) { $exit y } } } (b) { @always: $exit 2 } (f, g) { f 0 }",
            "3",
        ),
        // Before a `fix` runs, its name is symbolic: the body that calls it
        // is stuck and the second `$exit` is the first ready one.
        (
            "fix loop(i, k) { \"i > 50\" (d) if d () { k i } () { \"i+1\" (j) loop j k } } in \
             (a) { @always: loop 0 $exit } (b) { @always: $exit 2 } (f, g) { f 0 }",
            "2",
        ),
    ];
    for threads in [2, 4, 8] {
        let par = Parallel::eager(threads).expect("pool");
        for (i, (src, want)) in cases.into_iter().enumerate() {
            let program = load_source(src).unwrap_or_else(|e| panic!("{src}: {e}"));
            let mut m = Machine::new(program);
            let r = m.report_par(&Limits::default(), &par);
            let got = match &r.outcome {
                Outcome::Exit(_) => r.text.trim().to_string(),
                Outcome::Error(_) => "error".to_string(),
                other => format!("{other:?}"),
            };
            assert_eq!(got, want, "{src} on {threads} threads");
            // (The last case never has two pending bodies at once.)
            assert_eq!(m.par_stats().rounds > 0, i + 1 < cases.len(), "{src}: rounds {:?}", m.par_stats());
            check(src, 10_000, &par).unwrap_or_else(|e| panic!("{src}:\n{e}"));
        }
    }
}

/// The generated staged programs of the equivalence test (its 10,000
/// seeds) end the same on one thread and on 2, 4 or 8.
#[test]
fn generated_programs_are_the_same_on_every_thread_count() {
    let cases = env_u64("DEEPCPS_PAR_CASES", 10_000);
    let first = env_u64("DEEPCPS_PAR_SEED", 0);
    // Each program on every listed thread count, or by default on one of
    // 2, 4 and 8 in turn.
    let listed: Option<Vec<usize>> = std::env::var("DEEPCPS_PAR_THREADS")
        .ok()
        .map(|s| s.split(',').filter_map(|t| t.trim().parse().ok()).collect());
    let rotate = listed.is_none();
    let pars: Vec<Parallel> = listed
        .unwrap_or_else(|| vec![2, 4, 8])
        .iter()
        .map(|&n| Parallel::eager(n).expect("pool"))
        .collect();
    let runs = if rotate { cases } else { cases * pars.len() as u64 };
    let mut failures = Vec::new();
    let (mut split, mut units) = (0u64, 0u64);
    for seed in first..first + cases {
        let g = StagedGen::new(seed).program();
        let chosen: Vec<&Parallel> = if rotate {
            pars.iter().skip(seed as usize % pars.len()).take(1).collect()
        } else {
            pars.iter().collect()
        };
        for par in chosen {
            match check(&g.src, 2_000, par) {
                Ok(n) => {
                    split += u64::from(n > 0);
                    units += n;
                }
                Err(e) => failures.push(format!(
                    "seed {seed} on {} threads (rerun with DEEPCPS_PAR_SEED={seed} DEEPCPS_PAR_CASES=1)\n{}\n{e}",
                    par.threads(),
                    g.src
                )),
            }
        }
        if failures.len() >= 3 {
            break;
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    eprintln!("{split} of {runs} runs had rounds, {units} units in all");
    // The generator's programs branch often enough to exercise the merge
    // (about one in eight; checked on the default number of programs).
    if cases >= 1_000 {
        assert!(split * 10 >= runs, "only {split} of {runs} runs had a round");
    }
}
