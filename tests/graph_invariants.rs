//! The graph machine's invariants (ARCHITECTURE.md, "The graph's invariants"),
//! checked after every step on generated programs and on the paper's
//! corpus: parent links, hotness, statuses up to date, no leaked nodes;
//! and the step-by-step agreement with the reference reducer (same rule at
//! every step, same result).

use std::path::Path;

use deepcps_machine::graph::Machine;
use deepcps_machine::reference::Reducer;
use deepcps_machine::span::SourceMap;
use deepcps_machine::syntax::{load_program, RealFs};
use deepcps_machine::term::Program;
use deepcps_tests::builders::{load_builder_program, BuilderGen};
use deepcps_tests::{load_source, root, Gen, StagedGen};

/// Steps both machines side by side, checking the graph after each step.
fn lockstep(program: Program, max_steps: u64) -> Result<u64, String> {
    let mut g = Machine::new(program.clone());
    let mut r = Reducer::new(program);
    g.check().map_err(|e| format!("at start: {e}"))?;
    for n in 0..max_steps {
        let mut gr = None;
        let mut rr = None;
        let a = g.step_traced(&mut |_, rule, span| gr = Some((rule, span)));
        let b = r.step_traced(&mut |_, rule, span| rr = Some((rule, span)));
        if gr != rr {
            return Err(format!("step {}: graph did {gr:?}, reference did {rr:?}", n + 1));
        }
        match (a, b) {
            (None, None) => return Ok(n),
            (Some(Ok(None)), Some(Ok(None))) => {}
            (Some(Ok(Some(_))), Some(Ok(Some(_)))) => return Ok(n + 1),
            (Some(Err(x)), Some(Err(y))) if x.kind == y.kind => return Ok(n),
            (a, b) => return Err(format!("step {}: graph gave {a:?}, reference gave {b:?}", n + 1)),
        }
        g.check().map_err(|e| format!("after step {}: {e}", n + 1))?;
    }
    Ok(max_steps)
}

#[test]
fn invariants_hold_after_every_step_of_generated_programs() {
    let cases: u64 = std::env::var("DEEPCPS_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(1500);
    let mut ran = 0;
    let mut steps = 0;
    for seed in 0..cases {
        let text = Gen::new(seed).program();
        let Ok(p) = load_source(&text) else {
            continue;
        };
        match lockstep(p, 300) {
            Ok(n) => steps += n,
            Err(e) => panic!("seed {seed}: {e}\n--- program ---\n{text}"),
        }
        ran += 1;
    }
    assert!(ran * 2 > cases, "most generated programs load ({ran} of {cases})");
    assert!(steps > ran, "the generated programs take steps ({steps} in {ran} programs)");
}

#[test]
fn invariants_hold_after_every_step_of_the_paper_corpus() {
    let dir = root().join("corpus/paper");
    let mut files: Vec<_> = std::fs::read_dir(&dir).expect("corpus/paper").flatten().map(|e| e.path()).collect();
    files.sort();
    let mut ran = 0;
    for f in files {
        let mut sources = SourceMap::new();
        let Ok(p) = load_program(&RealFs, Path::new(&f), &mut sources) else {
            continue;
        };
        let steps = lockstep(p, 5_000).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        ran += u64::from(steps > 0);
    }
    assert!(ran >= 10, "the paper's programs run ({ran})");
}

/// The same on the equivalence test's generator of staged programs (rest
/// splices, staging variables, `fix` under lambdas). `DEEPCPS_STAGED_CASES`
/// sets how many, `DEEPCPS_STAGED_SEED` the first seed.
#[test]
fn invariants_hold_after_every_step_of_staged_generated_programs() {
    let env = |k: &str, d: u64| std::env::var(k).ok().and_then(|s| s.parse().ok()).unwrap_or(d);
    let cases = env("DEEPCPS_STAGED_CASES", 1000);
    let first = env("DEEPCPS_STAGED_SEED", 0);
    let mut ran = 0;
    for seed in first..first + cases {
        let g = StagedGen::new(seed).program();
        let Ok(p) = load_source(&g.src) else {
            continue;
        };
        if let Err(e) = lockstep(p, 2_000) {
            panic!("staged seed {seed}: {e}\n--- program ---\n{}", g.src);
        }
        ran += 1;
    }
    assert!(ran * 2 > cases, "most generated programs load ({ran} of {cases})");
}

/// The same on programs built by the paper's actions
/// (`deepcps_tests::builders`): the builders' staged shapes, body for body
/// against the reference. `DEEPCPS_BUILDER_CASES` sets how many.
#[test]
fn invariants_hold_after_every_step_of_builder_programs() {
    let cases: u64 = std::env::var("DEEPCPS_BUILDER_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    let mut steps = 0;
    for seed in 0..cases {
        let src = BuilderGen::new(seed).program();
        let p = load_builder_program(&src).unwrap_or_else(|e| panic!("seed {seed} does not load:\n{src}\n{e}"));
        match lockstep(p, 20_000) {
            Ok(n) => steps += n,
            Err(e) => panic!("builder seed {seed}: {e}\n--- program ---\n{src}"),
        }
    }
    // A built program takes hundreds of steps (77 a number on the stack style).
    assert!(steps > 100 * cases, "the builder programs take steps ({steps} in {cases} programs)");
}
