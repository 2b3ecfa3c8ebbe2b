//! The graph machine against the reference reducer: for
//! every corpus program and for many generated staged programs, both machines
//! must end the same way (exit, residual, the same runtime error kind, or a
//! limit), print the same result (except after a limit), report the same
//! number of warnings and the same step counts by kind.
//!
//! The machines are called through `deepcps_tests::graph_report` and
//! `deepcps_tests::reference_report`, and compared by
//! `deepcps_tests::compare` (shared with the `machines` fuzz target).
//! `DEEPCPS_EQUIV_CASES=N` sets the number of generated programs (default
//! 10,000) and `DEEPCPS_EQUIV_SEED=S` the first seed (default 0);
//! `scripts/equiv.sh` runs many more.

use std::path::Path;

use deepcps_machine::reference::Reducer;
use deepcps_machine::run::{Limits, Outcome};
use deepcps_machine::span::SourceMap;
use deepcps_machine::syntax::{load_program, RealFs};
use deepcps_tests::builders::{load_builder_program, BuilderGen};
use deepcps_tests::compare::{compare, kind};
use deepcps_tests::{
    dcps_files, directive, env_u64, every_machine, graph_report, load_source, reference_report, root, StagedGen, TEST_MAX_STEPS,
};

/// The step limit of generated programs: every bounded loop they hold ends
/// well before it; the endless ones reach it.
const GEN_STEPS: u64 = 2_000;

/// Every corpus program that loads (libraries and static errors do not run)
/// behaves the same on both machines, with the corpus test's step limits.
/// On a 1 GiB stack, as in the binary: the reference reducer's walk recurses
/// along the term.
#[test]
fn corpus_programs_agree() {
    std::thread::Builder::new()
        .stack_size(1 << 30)
        .spawn(corpus_programs_agree_on_this_thread)
        .expect("spawn")
        .join()
        .unwrap_or_else(|e| std::panic::resume_unwind(e));
}

fn corpus_programs_agree_on_this_thread() {
    let base = root();
    std::env::set_current_dir(&base).expect("workspace root");
    let mut files = Vec::new();
    dcps_files(Path::new("corpus"), &mut files);
    let (mut ran, mut failures) = (0, Vec::new());
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let mut sources = SourceMap::new();
        let Ok(program) = load_program(&RealFs, path, &mut sources) else {
            continue;
        };
        let limits = Limits {
            max_steps: directive(&text, "max-steps:")
                .and_then(|n| n.parse().ok())
                .unwrap_or(TEST_MAX_STEPS),
            ..Limits::default()
        };
        ran += 1;
        let graph = graph_report(program.clone(), &limits);
        let reference = reference_report(program, &limits);
        if let Err(e) = compare(&graph, &reference) {
            failures.push(format!("{}: {e}", path.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    // paper/ (14 programs), bench/ (3) and the runtime errors of err/ (11).
    assert!(ran >= 28, "only {ran} corpus programs ran");
}

/// The programs of `tests/inputs/equivalence/`: regressions, each a case
/// where the machines once differed (see each file's header), whose
/// reference outcome is `$exit` unless a `// reference: ` line names it.
#[test]
fn regressions_agree() {
    let mut files = Vec::new();
    dcps_files(&root().join("tests/inputs/equivalence"), &mut files);
    assert!(!files.is_empty(), "no regression programs");
    let failures: Vec<String> = files
        .iter()
        .filter_map(|path| {
            let text = std::fs::read_to_string(path).expect("regression program");
            // The reference's outcome is `$exit` unless the header says
            // otherwise (`// reference: error`).
            let want = text.lines().find_map(|l| l.strip_prefix("// reference: ")).unwrap_or("exit");
            check_src(&text, want).err().map(|e| format!("{}:\n{e}", path.display()))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Runs generated program `seed` on both machines.
fn check_seed(seed: u64) -> Result<(), String> {
    let g = StagedGen::new(seed).program();
    let program = load_source(&g.src).map_err(|e| format!("seed {seed}: generated program does not load:\n{}\n{e}", g.src))?;
    let limits = Limits {
        max_steps: GEN_STEPS,
        ..Limits::default()
    };
    let graph = graph_report(program.clone(), &limits);
    let reference = reference_report(program, &limits);
    compare(&graph, &reference).map_err(|e| {
        format!(
            "seed {seed} (rerun with DEEPCPS_EQUIV_SEED={seed} DEEPCPS_EQUIV_CASES=1)\n=== program\n{}\n{e}",
            g.src
        )
    })
}

/// Programs generated from byte choices (`StagedGen::from_bytes`, what the
/// `machines` fuzz target feeds the machines) load and agree: no bytes, few,
/// all zero, all `0xff`, and a few pseudo-random strings.
#[test]
fn byte_choice_programs_agree() {
    let mut inputs: Vec<Vec<u8>> = vec![vec![], vec![7], vec![0; 64], vec![0xff; 300], (0..=255).collect()];
    let mut x: u32 = 1;
    for len in [16, 64, 256, 1024] {
        inputs.push(
            (0..len)
                .map(|_| {
                    x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                    (x >> 16) as u8
                })
                .collect(),
        );
    }
    let failures: Vec<String> = inputs
        .iter()
        .filter_map(|bytes| {
            let src = StagedGen::from_bytes(bytes).program().src;
            check_src(&src, "").err().map(|e| format!("bytes {bytes:?}\n{e}"))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Generated staged programs behave the same on both machines.
#[test]
fn generated_programs_agree() {
    let cases = env_u64("DEEPCPS_EQUIV_CASES", 10_000);
    let first = env_u64("DEEPCPS_EQUIV_SEED", 0);
    let start = std::time::Instant::now();
    // The first few failures in full, and every failing seed.
    let (mut failures, mut seeds) = (Vec::new(), Vec::new());
    for seed in first..first + cases {
        if let Err(e) = check_seed(seed) {
            seeds.push(seed);
            if failures.len() < 3 {
                failures.push(e);
            }
        }
    }
    eprintln!("{cases} generated programs in {:.1} s", start.elapsed().as_secs_f64());
    assert!(
        failures.is_empty(),
        "{}\n\n{} of {cases} programs differ; seeds: {seeds:?}",
        failures.join("\n\n"),
        seeds.len()
    );
}

/// Programs built by the paper's actions (`deepcps_tests::builders`: random
/// expressions through the stack and AST styles, build-time loops, the
/// program built returned, run, or run twice) behave the same on every
/// machine. `DEEPCPS_EQUIV_BUILDERS=N` sets how many (default 300).
#[test]
fn generated_builder_programs_agree() {
    let cases = env_u64("DEEPCPS_EQUIV_BUILDERS", 300);
    let limits = Limits {
        max_steps: 20_000,
        ..Limits::default()
    };
    let (mut failures, mut outcomes) = (Vec::new(), std::collections::BTreeMap::new());
    for seed in 0..cases {
        let src = BuilderGen::new(seed).program();
        let program = load_builder_program(&src).unwrap_or_else(|e| panic!("seed {seed} does not load:\n{src}\n{e}"));
        let reports = every_machine(program, &limits, 2);
        let (_, reference) = &reports[0];
        *outcomes.entry(kind(reference)).or_insert(0u64) += 1;
        for (name, r) in &reports[1..] {
            if let Err(e) = compare(r, reference) {
                failures.push(format!("seed {seed}, {name}:\n=== program\n{src}\n{e}"));
            }
        }
    }
    eprintln!("{cases} builder programs, by outcome: {outcomes:?}");
    assert!(
        failures.is_empty(),
        "{}",
        failures.iter().take(3).cloned().collect::<Vec<_>>().join("\n\n")
    );
    // The set reaches both ends a built program has: an exit value, and a
    // runtime error of the residual (a division by zero).
    assert!(outcomes.get("exit").copied().unwrap_or(0) > cases / 2, "{outcomes:?}");
    assert!(outcomes.keys().any(|k| k.starts_with("error")), "{outcomes:?}");
}

/// What the generated programs exercise, counted over a fixed set of seeds
/// on the reference reducer.
#[derive(Default, Debug)]
struct Coverage {
    programs: u64,
    exit: u64,
    residual: u64,
    error: u64,
    limit: u64,
    stuck_warning: u64,
    rest_splice: u64,
    staged_half: u64,
    if_: u64,
    fix: u64,
    expr: u64,
    several_steps: u64,
    error_kinds: std::collections::BTreeSet<&'static str>,
}

/// The generator reaches every outcome and feature the equivalence is
/// about, and most of its programs run several steps.
#[test]
fn generator_covers_the_features() {
    let mut c = Coverage::default();
    let limits = Limits {
        max_steps: GEN_STEPS,
        ..Limits::default()
    };
    for seed in 0..2_000u64 {
        let g = StagedGen::new(seed).program();
        let program = load_source(&g.src).unwrap_or_else(|e| panic!("seed {seed} does not load:\n{}\n{e}", g.src));
        let sites = g.rest_splice_sites();
        let halves = g.staged_half_sites();
        let (mut spliced, mut half) = (false, false);
        let r = Reducer::new(program).report_traced(&limits, &mut |_, _, span| {
            spliced |= sites.contains(&(span.start as usize));
            half |= halves.contains(&(span.start as usize));
        });
        c.programs += 1;
        match &r.outcome {
            Outcome::Exit(_) => c.exit += 1,
            Outcome::Residual => c.residual += 1,
            Outcome::Error(e) => {
                c.error += 1;
                c.error_kinds.insert(e.kind.name());
            }
            Outcome::Limit(_) => c.limit += 1,
        }
        c.stuck_warning += u64::from(!r.warnings.is_empty());
        c.rest_splice += u64::from(spliced);
        c.staged_half += u64::from(half);
        c.if_ += u64::from(r.counts.if_ > 0);
        c.fix += u64::from(r.counts.fix > 0);
        c.expr += u64::from(r.counts.expr > 0);
        c.several_steps += u64::from(r.counts.total() >= 5);
    }
    eprintln!("{c:#?}");
    let at_least = |what: &str, n: u64, min: u64| assert!(n >= min, "{what}: {n} of {} programs (want {min}): {c:?}", c.programs);
    at_least("exit", c.exit, 400);
    at_least("residual", c.residual, 100);
    at_least("runtime error", c.error, 100);
    at_least("step limit", c.limit, 10);
    at_least("stuck warning", c.stuck_warning, 100);
    at_least("splice onto a rest parameter executed", c.rest_splice, 50);
    at_least("half staged on a split point executed under its lambda", c.staged_half, 50);
    at_least("if", c.if_, 400);
    at_least("fix", c.fix, 200);
    at_least("expression steps", c.expr, 1_000);
    at_least("several steps", c.several_steps, 1_400);
    assert!(c.error_kinds.len() >= 5, "error kinds: {:?}", c.error_kinds);
}

/// Runs `src` on both machines and compares; also checks the reference's
/// outcome kind is `expect`, so each case tests what it says it tests.
fn check_src(src: &str, expect: &str) -> Result<(), String> {
    let program = load_source(src).map_err(|e| format!("does not load:\n{src}\n{e}"))?;
    let limits = Limits {
        max_steps: GEN_STEPS,
        ..Limits::default()
    };
    let graph = graph_report(program.clone(), &limits);
    let reference = reference_report(program, &limits);
    if !kind(&reference).starts_with(expect) {
        return Err(format!("{src}\nthe reference gives {}, not {expect}", kind(&reference)));
    }
    compare(&graph, &reference).map_err(|e| format!("=== program\n{src}\n{e}"))
}

/// Reading an element of a tuple node, `"t[k]"`, which the graph machine
/// answers with a copy of the element's node instead of evaluating an
/// exported tuple: lambdas, tuples, shared tuples (read twice), values
/// with active bodies inside, and every case the evaluator answers
/// otherwise (out of range, negative, a splice in the tuple, an expression
/// element, a spliced read).
#[test]
fn element_reads_agree() {
    let cases = [
        ("let t = [1, (x) { $exit x }]\n\"t[1]\" (f)\nf 5", "exit"),
        ("let t = [[1, 2], 3]\n\"t[0]\" (u)\n\"u[1]\" (x)\n$exit x", "exit"),
        (
            "let t = [(x) { $exit x }, 2]\n\"t[0]\" (a)\n\"t[0]\" (b)\n\"t[1]\" (n)\nb n",
            "exit",
        ),
        ("let t = [(k) { \"1+2\" (y) k y }, 0]\n\"t[0]\" (g)\ng $exit", "exit"),
        ("let t = [1, 2]\n\"t[2]\" (x)\n$exit x", "error"),
        ("let t = [1, 2]\n\"t[-1]\" (x)\n$exit x", "error"),
        ("let t = [1, 2]\n\"t[0]\" (x)\n\"t[5]\" (y)\n$exit x", "error"),
        (
            "(f) { $exit f } (!r) {\n  @always: let t = [1, !r]\n  @always: \"t[0]\" (x)\n  $exit x\n}",
            "exit",
        ),
        ("(!r) {\n  let t = [1, !r]\n  \"t[0]\" (x)\n  $exit x\n} 4 5", "exit"),
        ("(!r) {\n  let t = [1, !r]\n  \"t[2]\" (x)\n  $exit x\n} 4", "error"),
        ("let t = [1, [2, 3]]\n(!xs) { $exit xs } !\"t[1]\"", "exit"),
        ("let t = [1, 2]\n(a, b) { $exit [b, a] } !\"t\"", "exit"),
        ("(f) { $exit f } (t) {\n  @always: \"t[0]\" (x)\n  $exit x\n}", "exit"),
        ("let t = [1.5, 2]\n\"t[0]\" (x)\n$exit x", "exit"),
        (
            "let t = [1, 2]\n\"t[0]\" (c)\n\"c == 1\" (b)\nif b () { $exit 1 } () { $exit 2 }",
            "exit",
        ),
        ("let t = [true, 2]\n\"t[0]\" (c)\nif c () { $exit 1 } () { $exit 2 }", "exit"),
    ];
    let failures: Vec<String> = cases.iter().filter_map(|(src, expect)| check_src(src, expect).err()).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
