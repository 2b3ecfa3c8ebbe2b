//! `deepcps compile` against `deepcps run`: compiled programs print the
//! same exit value (lambdas included), or fail with the same report (call
//! sites included) and the same exit code, as the machine.
//!
//! - every corpus program that compile accepts, through the command line;
//! - generated runtime code: `DEEPCPS_COMPILE_CASES` programs (default
//!   2,000) that end within the step limit, from seed
//!   `DEEPCPS_COMPILE_SEED`, many programs to one C file and one run of the
//!   C compiler;
//! - runtime errors, one of each kind the translation words;
//! - refusals: code that would need staging at run time, values compile
//!   does not translate, programs with nothing left to run.
//!
//! The tests need a C compiler (`cc`), which every Rust installation has
//! as its linker.

use std::path::{Path, PathBuf};
use std::process::Command;

use deepcps_machine::compile::{call_with_exit, is_runtime_code, program_c, runtime_c, Part};
use deepcps_machine::graph::calls::add_calls;
use deepcps_machine::run::{Limits, Outcome};
use deepcps_machine::span::SourceMap;
use deepcps_machine::syntax::load::add_source;
use deepcps_machine::syntax::{load_from, load_program, runtime_diagnostic, MemFs, RealFs};
use deepcps_machine::term::Program;
use deepcps_tests::{dcps_files, deepcps, env_u64, graph_report, root, Gen};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

/// The step limit of generated programs; those that reach it are endless
/// or too long, and are not compiled.
const GEN_STEPS: u64 = 2_000;

/// What a program prints and how it ends.
#[derive(Debug, PartialEq)]
enum Ends {
    /// Standard output, exit code 0.
    Exit(String),
    /// The report on standard error, exit code 1.
    Error(String),
}

/// How the machine ends `program`, or `None` if it reaches the step limit.
/// A runtime error is reported as `run` reports it, with its call sites.
fn machine_ends(program: Program, sources: &SourceMap, max_steps: u64) -> Option<Ends> {
    let report = graph_report(
        program.clone(),
        &Limits {
            max_steps,
            ..Limits::default()
        },
    );
    match &report.outcome {
        Outcome::Exit(_) => Some(Ends::Exit(report.text.clone())),
        Outcome::Error(e) => {
            let mut e = e.clone();
            add_calls(&mut e, program, report.counts.total());
            Some(Ends::Error(runtime_diagnostic(&e, sources).render(sources, false)))
        }
        Outcome::Residual => panic!("runtime code ended with a residual program:\n{}", report.text),
        Outcome::Limit(_) => None,
    }
}

/// How a compiled executable ends, run with `args`.
fn executable_ends(exe: &Path, args: &[&str]) -> Ends {
    let out = Command::new(exe)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", exe.display()));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    match out.status.code() {
        Some(0) => Ends::Exit(stdout),
        Some(1) => Ends::Error(stderr),
        other => panic!("{} ended with {other:?}: {stdout}{stderr}", exe.display()),
    }
}

/// Whether a compiled program ended as the machine did: the same output
/// or the same report, byte for byte.
fn agrees(got: &Ends, expected: &Ends) -> bool {
    got == expected
}

/// A scratch directory of its own for a test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("compile-test-{name}"));
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

/// Builds C text into an executable with `cc`.
fn build(c: &str, dir: &Path, name: &str) -> PathBuf {
    let src = dir.join(format!("{name}.c"));
    let exe = dir.join(name);
    std::fs::write(&src, c).expect("write C");
    let link = deepcps::compile::link_arguments(dir).expect("the runtime library is written");
    let out = Command::new("cc")
        .args(["-O0", "-o"])
        .arg(&exe)
        .arg(&src)
        .args(&link)
        .output()
        .expect("the tests need a C compiler, `cc`");
    assert!(
        out.status.success(),
        "cc failed on {}:\n{}",
        src.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    exe
}

/// Builds programs into one executable after one runtime: program `i`, made
/// by `program_c` with the prefix `{prefix}{i}_`, runs when the executable
/// is given `i`.
fn build_batch(programs: &[&str], prefix: &str, dir: &Path, name: &str) -> PathBuf {
    let mut c = String::from(runtime_c());
    let mut dispatch = String::from("\nint main(int argc, char **argv) {\n    switch (argc > 1 ? atoi(argv[1]) : -1) {\n");
    for (i, prog) in programs.iter().enumerate() {
        c.push_str(prog);
        dispatch.push_str(&format!("    case {i}: return run_program({prefix}{i}_start);\n"));
    }
    dispatch.push_str("    default: return 2;\n    }\n}\n");
    c.push_str(&dispatch);
    build(&c, dir, name)
}

fn load_text(name: &str, text: &str, sources: &mut SourceMap) -> Option<Program> {
    let id = add_source(sources, name, None, text.as_bytes().to_vec()).expect("source");
    load_from(&MemFs::default(), id, sources, false).ok()
}

/// Generated runtime code: each program compiled (many to one C file)
/// ends as the machine ends it.
#[test]
fn generated_runtime_code_agrees_with_the_machine() {
    let cases = env_u64("DEEPCPS_COMPILE_CASES", 2_000);
    let first = env_u64("DEEPCPS_COMPILE_SEED", 0);
    let dir = scratch("generated");
    // Programs of one batch share a C file and an executable.
    const BATCH: usize = 250;
    let mut pending: Vec<(u64, String, Ends)> = Vec::new();
    let (mut compiled, mut batches) = (0, 0);
    let mut failures = Vec::new();
    // Seeds go on until `cases` programs are compiled (a few do not load,
    // and those that reach the step limit are not compiled).
    let mut seed = first;
    let mut accepted = 0;
    while accepted < cases || !pending.is_empty() {
        assert!(
            seed < first + 4 * cases,
            "only {accepted} programs compiled from {} seeds",
            seed - first
        );
        if accepted < cases && pending.len() < BATCH {
            let text = Gen::runtime_code(seed).program();
            let mut sources = SourceMap::new();
            seed += 1;
            // A few generated texts do not load (a tuple after a lambda's
            // parameters reads as the name of its staging parameter).
            let Some(program) = load_text("gen.dcps", &text, &mut sources) else {
                continue;
            };
            let seed = seed - 1;
            assert!(is_runtime_code(&program.body), "seed {seed}: not runtime code:\n{text}");
            let expected = machine_ends(program.clone(), &sources, GEN_STEPS);
            if let Some(expected) = expected {
                match program_c(&program.body, &program.vars, &sources, Part::Whole, &format!("g{}_", pending.len())) {
                    Ok(c) => {
                        pending.push((seed, c, expected));
                        accepted += 1;
                    }
                    Err(ds) => {
                        // Generated programs use no value compile refuses.
                        let why: Vec<String> = ds.iter().map(|d| d.render(&sources, false)).collect();
                        failures.push(format!("seed {seed}: refused:\n{}\n{text}", why.join("")));
                    }
                }
            }
            continue;
        }
        let programs: Vec<&str> = pending.iter().map(|(_, prog, _)| prog.as_str()).collect();
        let exe = build_batch(&programs, "g", &dir, &format!("batch{batches}"));
        for (i, (s, _, expected)) in pending.iter().enumerate() {
            let got = executable_ends(&exe, &[&i.to_string()]);
            if !agrees(&got, expected) {
                let text = Gen::runtime_code(*s).program();
                failures.push(format!("seed {s}: machine {expected:?}, compiled {got:?}\n{text}"));
            }
        }
        compiled += pending.len();
        batches += 1;
        pending.clear();
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        failures.is_empty(),
        "{} of {compiled} disagree:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    assert_eq!(compiled as u64, cases, "programs compiled and run");
}

/// The corpus through the command line: every program compile accepts
/// prints what the machine prints for the same run-time part.
#[test]
fn corpus_programs_that_compile_agree_with_the_machine() {
    let base = root();
    let dir = scratch("corpus");
    let mut files = Vec::new();
    dcps_files(&base.join("corpus"), &mut files);
    let (mut accepted, mut failures) = (Vec::new(), Vec::new());
    std::env::set_current_dir(&base).expect("workspace root");
    for path in &files {
        let rel = path.strip_prefix(&base).unwrap_or(path);
        let name = rel.display().to_string();
        let mut sources = SourceMap::new();
        let Ok(program) = load_program(&RealFs, rel, &mut sources) else {
            continue;
        };
        let exe = dir.join(path.file_stem().map_or_else(|| "p".into(), |s| s.to_string_lossy().into_owned()));
        let ran = deepcps(&["compile", &name, "--threads", "1", "-o", &exe.display().to_string()]);
        // What the run-time part is, run on the machine.
        let part = if is_runtime_code(&program.body) {
            Some((program, sources))
        } else {
            let mut m = deepcps_machine::graph::Machine::new(program);
            match m.run(&Limits::default()) {
                Outcome::Exit(v) => {
                    let vars = m.exit_vars().cloned().unwrap_or_default();
                    call_with_exit(v, &vars).ok().map(|body| (Program { body, vars }, sources))
                }
                _ => None,
            }
        };
        match (ran.code, part) {
            (0, Some((program, sources))) => {
                let expected = machine_ends(program, &sources, u64::MAX).expect("no step limit");
                let got = executable_ends(&exe, &[]);
                if got != expected {
                    failures.push(format!("{name}: machine {expected:?}, compiled {got:?}"));
                }
                accepted.push(name);
            }
            (0, None) => failures.push(format!("{name}: compiled, but has no run-time part")),
            (_, Some(_)) => failures.push(format!("{name}: has a run-time part, but compile refused it:\n{}", ran.err)),
            (_, None) => {}
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    for must in [
        "corpus/bench/loop_sum.dcps",
        "corpus/bench/nontail_sum.dcps",
        "corpus/paper/arith_built.dcps",
        "corpus/compile/matrix_chain_program.dcps",
        "corpus/compile/built_closure.dcps",
        "corpus/compile/built_call_sites.dcps",
        "corpus/err/runtime_type.dcps",
        "corpus/err/runtime_call_site.dcps",
    ] {
        assert!(
            accepted.iter().any(|a| a == must),
            "{must} was not compiled; accepted: {accepted:?}"
        );
    }
}

/// Compiles the runtime code `src` and returns how the executable ends and
/// how the machine ends it.
fn both(src: &str, name: &str) -> (Ends, Ends) {
    let got = compiled_ends(src, name);
    let mut sources = SourceMap::new();
    let program = load_text(&format!("{name}.dcps"), src, &mut sources).unwrap_or_else(|| panic!("{name} does not load"));
    let expected = machine_ends(program, &sources, u64::MAX).expect("no step limit");
    (got, expected)
}

/// Compiles the runtime code `src` and returns how the executable ends.
fn compiled_ends(src: &str, name: &str) -> Ends {
    let mut sources = SourceMap::new();
    let program = load_text(&format!("{name}.dcps"), src, &mut sources).unwrap_or_else(|| panic!("{name} does not load"));
    let c = deepcps_machine::compile::to_c(&program.body, &program.vars, &sources, Part::Whole).unwrap_or_else(|ds| {
        panic!(
            "{name} refused: {}",
            ds.iter().map(|d| d.render(&sources, false)).collect::<String>()
        )
    });
    let dir = scratch(name);
    let exe = build(&c, &dir, name);
    let got = executable_ends(&exe, &[]);
    let _ = std::fs::remove_dir_all(&dir);
    got
}

/// Each runtime error the translation words, compiled and on the machine.
#[test]
fn runtime_errors_are_worded_and_placed_as_the_machine_does() {
    let cases = [
        ("div_zero", "let x = 0\n\"10/x\" (y)\n$exit y\n", "division-by-zero"),
        ("overflow", "\"9223372036854775807\" (m)\n\"m+1\" (y)\n$exit y\n", "overflow"),
        ("overflow_small", "fix f(x, k) { \"x*x\" (y) f y k } in f 3 $exit\n", "overflow"),
        ("neg_overflow", "\"-9223372036854775807-1\" (m)\n\"-m\" (y)\n$exit y\n", "overflow"),
        ("not_finite", "\"1.0/0\" (y)\n$exit y\n", "not-finite"),
        ("type_add", "\"true+1\" (y)\n$exit y\n", "type"),
        ("compare", "\"[1]<2\" (y)\n$exit y\n", "type"),
        ("index", "let t = [1, 2]\n\"t[2]\" (y)\n$exit y\n", "index-out-of-range"),
        ("slice", "let t = [1, 2]\n\"t[1..5]\" (y)\n$exit y\n", "index-out-of-range"),
        ("not_a_function", "let f = 5\nf 1 (y) $exit y\n", "not-a-function"),
        ("arity", "let f(x, k) { k x }\nf 1 2 $exit\n", "arity"),
        ("arity_in_place", "(x, y) { $exit x } 1\n", "arity"),
        ("exit_arity", "$exit 1 2\n", "arity"),
        ("if_condition", "if 3 () { $exit 1 } () { $exit 2 }\n", "type"),
        ("if_arity", "let c = true\nif c 1\n", "arity"),
        ("splice", "let t = 5\n$exit !t\n", "type"),
        ("unknown_function", "\"frob(1)\" (y)\n$exit y\n", "unknown-function"),
        ("function_arity", "\"len(1, 2)\" (y)\n$exit y\n", "arity"),
        ("len_type", "\"len(3)\" (y)\n$exit y\n", "type"),
        ("int_overflow", "\"int(1e300)\" (y)\n$exit y\n", "overflow"),
        ("equal_function", "let f(k) { k 1 }\n\"f == f\" (y)\n$exit y\n", "type"),
        // The first function met, left to right, is the one named.
        (
            "compare_order",
            "let e = $exit\nlet f(k) { k 1 }\n\"[e, f] == 1\" (y)\n$exit y\n",
            "type",
        ),
        (
            "loop_overflow",
            "fix go(i, acc, k) { if \"i == 0\" () { k acc } () { go \"i-1\" \"acc*2\" k } } in go 70 1 $exit\n",
            "overflow",
        ),
        (
            "loop_type",
            "fix go(i, k) { if \"i > 3\" () { k i } () { go \"i+1\" k } } in go 0.5 (x) go true $exit\n",
            "type",
        ),
        ("missing_key", "\"lookup(map().insert(1, 2), 3)\" (y)\n$exit y\n", "missing-key"),
        ("missing_field", "\"{a: 1}.b\" (y)\n$exit y\n", "missing-key"),
        ("not_a_record", "\"[1].b\" (y)\n$exit y\n", "type"),
        ("ragged", "\"matrix([[1, 2], [3]])\" (y)\n$exit y\n", "type"),
        ("matrix_shapes", "\"matrix([[1, 2]])*matrix([[1, 2]])\" (y)\n$exit y\n", "type"),
        (
            "matrix_overflow",
            "\"matrix(4, 4, 3)\" (m)\n\"m*m*m*m*m*m*m*m*m*m*m*m*m*m*m*m*m*m*m*m*m*m*m*m\" (y)\n$exit y\n",
            "overflow",
        ),
        ("string_index", "\"'abc'[5]\" (y)\n$exit y\n", "index-out-of-range"),
        ("string_plus", "\"'a' + 1\" (y)\n$exit y\n", "type"),
        ("range_argument", "\"len(1..2)\" (y)\n$exit y\n", "type"),
        ("insert_position", "\"[1].insert(5, 0)\" (y)\n$exit y\n", "index-out-of-range"),
        // Messages quote lambdas inside values as the printer shows them.
        (
            "quotes_a_lambda",
            "let f(x, k) { k x }\nlet g(y) { $exit y }\nf [1, g] 2 $exit\n",
            "arity",
        ),
        (
            "quotes_a_closure",
            "let a = 4\nlet g(y) { \"y + a\" $exit }\nlet t = [g, [a]]\nt 5\n",
            "not-a-function",
        ),
        // A tuple head shows its variables' values, its expressions as
        // they stand.
        ("tuple_head", "let v = [1, 3]\nlet f(k) { k 1 }\n[\"v*2\", v, \"f == 1\"] 4\n", "not-a-function"),
        // Call sites: every function on the way, a recursive call once,
        // at most four and a count of the rest, continuations called back.
        (
            "call_chain",
            "let f1(x, k) { \"x * 2\" (y) k y }\nlet f2(x, k) { f1 x k }\nlet f3(x, k) { f2 x k }\nlet f4(x, k) { f3 x k }\nlet f5(x, k) { f4 x k }\nlet f6(x, k) { f5 x k }\nf6 true $exit\n",
            "type",
        ),
        (
            "call_recursion",
            "fix loop(i, k) { if \"i == 0\" () { \"true + 1\" (y) k y } () { loop \"i-1\" k } } in\nloop 10 $exit\n",
            "type",
        ),
        (
            "call_back",
            "let f(x, k) { k x }\nlet g(x, k) { f x k }\ng 1 (y) { \"y / 0\" (z) $exit z }\n",
            "division-by-zero",
        ),
        (
            "call_arity_in_a_callee",
            "let f(x, k) { k x }\nlet g(x, k) { f x 1 k }\ng 1 $exit\n",
            "arity",
        ),
        (
            "call_rest_arity",
            "let f(a, b, !r, k) { k r }\nlet g(x, k) { f x k }\ng 1 $exit\n",
            "arity",
        ),
    ];
    let mut failures = Vec::new();
    for (name, src, kind) in cases {
        let (got, expected) = both(src, name);
        match &expected {
            Ends::Error(h) if h.starts_with(&format!("[{kind}]")) => {}
            other => failures.push(format!("{name}: the machine gives {other:?}, not a `{kind}` error")),
        }
        if got != expected {
            failures.push(format!("{name}: machine {expected:?}, compiled {got:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Values compile translates, printed as the machine prints them.
#[test]
fn exit_values_print_as_the_machine_prints_them() {
    let cases = [
        (
            "ints",
            "$exit [0, -5, 4611686018427387903, 4611686018427387904, -9223372036854775807]\n",
        ),
        (
            "floats",
            "\"[0.1, 1.0/3.0, -0.0, 1e16, 1e15, 1.5e-7, 0.0001, 123456789.125, 2.0*1e300]\" (t)\n$exit t\n",
        ),
        (
            "mixed",
            "\"[1 == 1.0, 2 < 2.5, 3 % -2, -7 / 2, 7.5 % 2, abs(-3), int(-2.7), float(3), min(2, 1.5), max(2, 1.5)]\" (t)\n$exit t\n",
        ),
        (
            "tuples",
            "let t = [1, [2, [true, false]], []]\n\"concat(t, [len(t), t[1][0], t[0..1]])\" (u)\n$exit [!u, always, never]\n",
        ),
        ("rest", "let f(a, !r, k) { k [a, r] }\nf 1 2 3 4 $exit\n"),
        ("rest_in_place", "(a, !r, b) { $exit [a, r, b] } 1 2 3 4\n"),
        ("splices", "let t = [1, 2]\nlet f(a, b, c, k) { k [c, b, a] }\nf 0 !t $exit\n"),
        ("logic", "let x = 3\n\"x > 2 && (x < 5 || 1/0 == 0) && !(x == 4)\" (b)\n$exit b\n"),
        (
            "fix_closures",
            "fix fib(n, k) { if \"n < 2\" () { k n } () { fib \"n-1\" (a) fib \"n-2\" (b) \"a+b\" (c) k c } } in fib 20 $exit\n",
        ),
        ("function", "let f(x) { $exit x }\n$exit [1, f]\n"),
        ("builtins", "\"[1]\" (t)\nlet r = $exit\n\"{f: r}\" (x)\n$exit [$exit, if, t, x]\n"),
        ("string", "\"'a\\\\\\'b'\" (s)\n$exit [s, 1]\n"),
        // Loops on small integers run in the integer copy of their body and
        // fall back to the generic copy on overflow or on other numbers.
        ("loop_to_wide", "fix go(i, acc, k) { if \"i == 0\" () { k acc } () { go \"i-1\" \"acc*2\" k } } in go 62 1 (a) \"a - 1 + a\" (b) $exit [a, b]\n"),
        ("loop_floats", "fix go(i, acc, k) { if \"i >= 10\" () { k acc } () { go \"i+1\" \"acc+0.5\" k } } in go 0 1 $exit\n"),
        ("loop_mixed", "fix go(i, acc, k) { if \"i > 5\" () { k acc } () { go \"i+1\" \"acc+i*1.5\" k } } in go 0 0 $exit\n"),
        (
            "strings",
            "\"[len('héllo'), 'héllo'[1..3], 'héllo'[1], 'ab' + 'c', 'ab' < 'b', concat('a', 'b'), min('b', 'a')]\" (t)\n$exit t\n",
        ),
        ("record", "\"{a: 1, b: 'x'}\" (r)\n\"[r.b, r, {c: [r]}, r == {b: 'x', a: 1.0}]\" (t)\n$exit t\n"),
        (
            "map",
            "\"map().insert('k', 1).insert('j', [2]).insert('k', 3)\" (m)\n\"[m, lookup(m, 'k'), len(m), m == map().insert('j', [2]).insert('k', 3)]\" (t)\n$exit [t, m]\n",
        ),
        ("tuple_functions", "\"[[1, 2, 3].insert(1, 9), delete([1, 2, 3, 4], 1..2), delete([1, 2, 3], 0), [{a: 1}, {a: 2}].pluck('a')]\" (t)\n$exit t\n"),
        // Lambdas print as terms, their captured values in place.
        (
            "closure",
            "let a = 5\nlet t = [1, 2]\nlet f(x, k) { \"x + a\" k }\n$exit (y, k) { f y (z) { k [z, !t, f] } }\n",
        ),
        (
            "closures_in_data",
            "let mk(n, k) { k (y, k2) { \"y + n\" k2 } }\nmk 3 (g) { mk 4 (h) { \"{f: g, n: 1}\" (r) $exit [g, h, (u) { g u h }, r] } }\n",
        ),
        (
            "recursive_closure",
            "let a = 3\nfix f(n, k) { \"n + a\" k } in\n\"map().insert(1, f)\" (m)\n$exit [f, (x) { f x $exit }, m]\n",
        ),
        (
            "closure_of_a_loop",
            "fix go(i, acc, k) { if \"i == 0\" () { k (x) { \"x + acc\" $exit } } () { go \"i-1\" \"acc+i\" k } } in go 10 0 $exit\n",
        ),
        ("closure_with_rest", "let f(a, !r, k) { k (x) { $exit [x, a, !r] } }\nf 1 2 3 $exit\n"),
        (
            "matrices",
            "\"matrix(10, 30, 1)*matrix(30, 5, 2)\" (p)\n\"[dims(p), p, matrix([[1, 2], [3, 4]]), matrix(0, 3, 1), matrix([[], []]), matrix_chain_order([30, 35, 15, 5, 10, 20, 25])]\" (t)\n$exit t\n",
        ),
    ];
    let mut failures = Vec::new();
    for (name, src) in cases {
        let (got, expected) = both(src, name);
        if got != expected {
            failures.push(format!("{name}: machine {expected:?}, compiled {got:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A loop that allocates a tuple per iteration (a million of them, more
/// than the collector lets pile up) runs to its end with the right sum.
#[test]
fn an_allocating_loop_runs_to_its_end() {
    let src = "fix go(i, acc, k) {\n  if \"i == 0\" () { k acc } () {\n    let t = [i, acc]\n    (x) { go \"i-1\" \"t[1] + x\" k } 1\n  }\n} in go 1000000 0 $exit\n";
    let (got, expected) = both(src, "alloc_loop");
    assert_eq!(got, expected);
    assert_eq!(got, Ends::Exit("1000000\n".into()));
}

/// A loop that allocates 2.4 GB in all (two tuples an iteration, 3*10^7
/// iterations) runs in constant memory: under a 100 MB address-space limit.
#[test]
fn a_long_allocating_loop_runs_in_constant_memory() {
    let src = "fix go(i, acc, k) {\n  if \"i == 0\" () { k acc } () {\n    let t = [i, acc, [i]]\n    go \"i-1\" \"t[1] + t[2][0] % 7\" k\n  }\n} in go 30000000 0 $exit\n";
    let mut sources = SourceMap::new();
    let program = load_text("alloc.dcps", src, &mut sources).expect("loads");
    let c = deepcps_machine::compile::to_c(&program.body, &program.vars, &sources, Part::Whole).expect("compiles");
    let dir = scratch("constant_memory");
    let exe = build(&c, &dir, "alloc");
    let out = Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 100000 && exec \"$0\"")
        .arg(&exe)
        .output()
        .expect("sh");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "89999997\n");
}

/// A program whose image the runtime library cannot read still ends as it
/// should: a report of one line (kind and message), a lambda in the exit
/// value as an error message shows it.
#[test]
fn without_its_image_a_program_prints_plainer_forms() {
    let cases = [
        (
            "broken_error",
            "let f(x, k) { \"x * 2\" k }\nf true $exit\n",
            1,
            "",
            "[type] Error: cannot apply `*` to true (boolean) and 2 (integer)\n",
        ),
        (
            "broken_lambda",
            "let a = 1\n$exit [a, (x) { $exit a }]\n",
            0,
            "[1, (x) { … }]\n",
            "",
        ),
    ];
    let dir = scratch("broken_image");
    for (name, src, code, stdout, stderr) in cases {
        let mut sources = SourceMap::new();
        let program = load_text(&format!("{name}.dcps"), src, &mut sources).expect("loads");
        let c = deepcps_machine::compile::to_c(&program.body, &program.vars, &sources, Part::Whole).expect("compiles");
        let start = c.find("p_IMAGE[] = ").expect("an image") + "p_IMAGE[] = ".len();
        let end = start + c[start..].find(";\n").expect("its end");
        let broken = format!("{}\"not an image\"{}", &c[..start], &c[end..]);
        let exe = build(&broken, &dir, name);
        let out = Command::new(&exe).output().expect("runs");
        assert_eq!(out.status.code(), Some(code), "{name}");
        assert_eq!(String::from_utf8_lossy(&out.stdout), stdout, "{name}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), stderr, "{name}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The loop of `call_site_limit`, failing after `n` iterations.
fn failing_loop(n: u64) -> String {
    format!("fix loop(i, k) {{ if \"i == 0\" () {{ k true }} () {{ loop \"i-1\" k }} }} in\nloop {n} (b) {{ \"b + 1\" (y) $exit y }}\n")
}

/// A failure after at most `MAX_TRACED_STEPS` steps shows its call sites,
/// one after more does not, as on the machine: the compiled program counts
/// the machine's steps. The loop's steps are a linear function of its
/// length, read from the machine on short runs; the compiled runs are then
/// taken on either side of the limit.
#[test]
fn call_sites_are_shown_up_to_the_machines_step_limit() {
    let steps = |n: u64| {
        let mut sources = SourceMap::new();
        let program = load_text("loop.dcps", &failing_loop(n), &mut sources).expect("loads");
        let report = graph_report(program, &Limits::default());
        assert!(matches!(report.outcome, Outcome::Error(_)), "the loop fails");
        report.counts.total()
    };
    let (s1, s2) = (steps(1), steps(2));
    let per = s2 - s1;
    let base = s1 - per;
    assert_eq!(steps(7), base + 7 * per, "the loop's steps grow linearly");
    let max = deepcps_machine::graph::calls::MAX_TRACED_STEPS;
    let last = (max - base) / per;
    assert!(base + last * per <= max && base + (last + 1) * per > max);
    let (short, _) = both(&failing_loop(7), "loop_short");
    let at = compiled_ends(&failing_loop(last), "loop_at_limit");
    let past = compiled_ends(&failing_loop(last + 1), "loop_past_limit");
    for (name, ends, calls) in [("short", &short, true), ("at the limit", &at, true), ("past it", &past, false)] {
        let Ends::Error(report) = ends else {
            panic!("{name}: no error: {ends:?}")
        };
        assert_eq!(report.contains("called from here"), calls, "{name}:\n{report}");
    }
    // At the limit, the report shows the call sites the short run shows.
    let (Ends::Error(a), Ends::Error(b)) = (&short, &at) else {
        unreachable!()
    };
    let sites = |r: &str| r.lines().filter(|l| l.contains("called from here")).count();
    assert_eq!(sites(a), sites(b), "short:\n{a}\nat the limit:\n{b}");
}

/// What compile refuses, and why (the command line's exit code 2).
#[test]
fn compile_refuses_what_it_cannot_translate() {
    let dir = scratch("refuse");
    let cases = [
        (
            "staged",
            "$exit (k)[s] { @!s: \"k+1\" (y) k y }\n",
            "it would still need staging when the program runs",
        ),
        (
            "runtime_staging",
            "$exit (k)[pt] { (x)[ct] { @pt: k x } 1 }\n",
            "it would still need staging when the program runs",
        ),
        ("residual", "@never: $exit 1\n", "staging left a residual program"),
        ("nothing_left", "let x = 1 @always: $exit x\n", "there is nothing left to run"),
        (
            "two_args",
            "$exit (a, b)[s] { @!s: \"1+1\" (c) @s: $exit [a, b, c] }\n",
            "the program it built takes 2 arguments",
        ),
        (
            "open",
            "$exit (y) { @always: $exit (x) { y x } }\n",
            "compile needs a closed program",
        ),
    ];
    let mut failures = Vec::new();
    for (name, src, want) in cases {
        let path = dir.join(format!("{name}.dcps"));
        std::fs::write(&path, src).expect("write");
        let out = dir.join(name);
        let ran = deepcps(&["compile", &path.display().to_string(), "-o", &out.display().to_string()]);
        if ran.code != 2 || !ran.err.contains(want) {
            failures.push(format!("{name}: exit {}, wanted 2 and `{want}` in:\n{}", ran.code, ran.err));
        }
        if out.exists() {
            failures.push(format!("{name}: an executable was written"));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// `--emit-c` writes the C program, whose functions are named after the
/// source lambdas and marked with their places.
#[test]
fn emit_c_writes_readable_c() {
    let dir = scratch("emit");
    let out = dir.join("loop.c");
    let ran = deepcps(&[
        "compile",
        "corpus/bench/loop_sum.dcps",
        "--emit-c",
        "-o",
        &out.display().to_string(),
    ]);
    assert_eq!(ran.code, 0, "{}", ran.err);
    let c = std::fs::read_to_string(&out).expect("C written");
    // The runtime library is written beside it, and the command printed
    // builds the executable.
    assert!(dir.join("libdeepcps_rt.a").is_file(), "no runtime library beside the C");
    let command = ran.err.lines().nth(1).unwrap_or_default().trim().to_string();
    assert!(command.starts_with("cc -O2 -o "), "{}", ran.err);
    let built = Command::new("sh").arg("-c").arg(&command).output().expect("sh");
    assert!(built.status.success(), "{command}: {}", String::from_utf8_lossy(&built.stderr));
    let exe = dir.join("loop");
    assert_eq!(executable_ends(&exe, &[]), Ends::Exit("500500\n".into()));
    let _ = std::fs::remove_dir_all(&dir);
    assert!(c.contains("static void p_f0_loop(void)"), "no function named after `loop`");
    assert!(c.contains("/* (i, acc, k) { … } at corpus/bench/loop_sum.dcps:"), "no source place");
    assert!(c.contains("goto top;"), "the loop's call of itself is not a jump");
    let to_stdout = deepcps(&["compile", "corpus/bench/loop_sum.dcps", "--emit-c", "-o", "-"]);
    assert_eq!(to_stdout.code, 0, "{}", to_stdout.err);
    assert_eq!(to_stdout.out, c, "`-o -` writes the same C to standard output");
    assert!(to_stdout.err.contains("libdeepcps_rt.a"), "{}", to_stdout.err);
}

/// A chain of a thousand continuations, the shape of a built program's
/// residual, is cut into several C functions and still sums right.
#[test]
fn a_long_chain_of_continuations_is_cut_into_functions() {
    let mut src = String::from("let x0 = 0\n");
    for i in 1..=1000 {
        src.push_str(&format!("\"x{} + {i}\" (x{i})\n", i - 1));
    }
    src.push_str("$exit x1000\n");
    let mut sources = SourceMap::new();
    let program = load_text("chain.dcps", &src, &mut sources).expect("loads");
    let c = deepcps_machine::compile::to_c(&program.body, &program.vars, &sources, Part::Whole).expect("compiles");
    let functions = c.matches("\nstatic void p_f").count();
    assert!(functions >= 5, "{functions} lifted functions for 1000 steps in a row");
    let (got, expected) = both(&src, "chain");
    assert_eq!(got, expected);
    assert_eq!(got, Ends::Exit("500500\n".into()));
}

/// A straight-line program of `n` steps that reaches across the files of
/// its C: a float constant and a closure made at the start, used all
/// along and at the end; `d` is the divisor of the closure's step.
fn long_program(n: usize, d: i64) -> String {
    let mut src = format!("let d = {d}\nlet f = (a, k) {{ \"a / d\" (q) {{ k q }} }}\nlet h0 = 0.5\nlet x0 = 0\n");
    let mut h = 0;
    for i in 1..=n {
        src.push_str(&format!("\"x{} + {i}\" (x{i})\n", i - 1));
        if i % 300 == 0 {
            src.push_str(&format!("\"h{h} + 0.25\" (h{})\n", h + 1));
            h += 1;
        }
    }
    src.push_str(&format!("f x{n} (y)\n$exit [y, h{h}, f, \"'done'\"]\n"));
    src
}

/// A program too large for one C file is split into several, compiled
/// apart (light code at lower optimisation) and linked: it prints what the
/// machine prints, a value holding a closure included, and fails with the
/// machine's report, call sites included.
#[test]
fn a_large_program_split_into_files_agrees_with_the_machine() {
    for (name, d) in [("long_exit", 2), ("long_error", 0)] {
        let src = long_program(5000, d);
        let mut sources = SourceMap::new();
        let program = load_text(&format!("{name}.dcps"), &src, &mut sources).expect("loads");
        let units = deepcps_machine::compile::to_c_units(&program.body, &program.vars, &sources, Part::Whole, 2)
            .unwrap_or_else(|ds| panic!("refused: {}", ds.iter().map(|d| d.render(&sources, false)).collect::<String>()));
        assert!(units.len() >= 3, "{} files", units.len());
        assert!(!units[0].light && units[1..].iter().all(|u| u.light));
        let dir = scratch(name);
        let exe = dir.join(name);
        deepcps::compile::build_units("cc", &units, &exe, &|_| {}).expect("builds");
        let got = executable_ends(&exe, &[]);
        let _ = std::fs::remove_dir_all(&dir);
        let expected = machine_ends(program, &sources, u64::MAX).expect("no step limit");
        assert_eq!(got, expected, "{name}");
        match (name, &got) {
            ("long_exit", Ends::Exit(text)) => {
                // The sum of 1..5000, halved; then the float, the closure
                // (with the value it captured) and the string.
                assert!(text.starts_with("[6251250, 4.5, "), "{text}");
                assert!(text.contains("\"a/2\" (q)") && text.ends_with("\"'done'\"]\n"), "{text}");
            }
            ("long_error", Ends::Error(report)) => {
                assert!(
                    report.contains("division-by-zero") && report.contains("called from here"),
                    "{report}"
                );
            }
            _ => panic!("{name}: {got:?}"),
        }
    }
}

/// The command's other error paths: each says what went wrong, with the
/// exit code of its kind, and writes nothing.
#[test]
fn compile_reports_its_errors_with_their_exit_codes() {
    let dir = scratch("errors");
    let out = dir.join("out");
    let o = out.display().to_string();
    let staged = dir.join("staged.dcps");
    std::fs::write(&staged, "fix forever(n) { forever n } in\n@always: forever 1\n").expect("write");
    let cases: [(&[&str], u8, &str); 6] = [
        (&["compile", "corpus/err/syntax_unbalanced.dcps", "-o", &o], 2, "[parse] Error"),
        (
            &["compile", "corpus/err/runtime_arity_under_lambda.dcps", "-o", &o],
            1,
            "staging failed; nothing compiled",
        ),
        (
            &["compile", &staged.display().to_string(), "--max-steps", "50", "-o", &o],
            3,
            "staging stopped: step limit",
        ),
        (
            &["compile", "corpus/bench/loop_sum.dcps", "--cc", "no-such-cc", "-o", &o],
            2,
            "cannot run the C compiler `no-such-cc`",
        ),
        (
            &["compile", "corpus/bench/loop_sum.dcps", "--emit-c", "-o", "/no/such/dir/x.c"],
            2,
            "cannot write `/no/such/dir/x.c`",
        ),
        (&["compile", "corpus/no_such_file.dcps", "-o", &o], 2, "cannot read"),
    ];
    let mut failures = Vec::new();
    for (args, code, want) in cases {
        let ran = deepcps(args);
        if ran.code != code || !ran.err.contains(want) {
            failures.push(format!("{args:?}: exit {}, wanted {code} and `{want}` in:\n{}", ran.code, ran.err));
        }
        if out.exists() {
            failures.push(format!("{args:?}: wrote an executable"));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// A random arithmetic loop: two accumulators updated by expressions over
/// them and the counter, with constants near the integer boundaries,
/// floats, divisions and comparisons, so that the integer copy of the loop
/// overflows, meets other numbers and fails in every way the generic copy
/// must then take over.
fn arithmetic_loop(seed: u64) -> String {
    let mut rng = StdRng::seed_from_u64(seed);
    let consts = [
        "0",
        "1",
        "2",
        "3",
        "-1",
        "7",
        "1000",
        "4611686018427387903",
        "-4611686018427387904",
        "4611686018427387904",
        "9223372036854775807",
        "0.5",
        "-2.5",
        "1e300",
    ];
    let operand = |rng: &mut StdRng| -> String {
        match rng.random_range(0..6) {
            0 => "a".into(),
            1 => "b".into(),
            2 => "i".into(),
            _ => consts[rng.random_range(0..consts.len())].into(),
        }
    };
    let expr = |rng: &mut StdRng| -> String {
        let ops = ["+", "-", "*", "+", "-", "*", "/", "%"];
        let mut e = operand(rng);
        for _ in 0..rng.random_range(1..4) {
            let op = ops[rng.random_range(0..ops.len())];
            e = format!("{e} {op} {}", operand(rng));
        }
        e
    };
    let (ea, eb) = (expr(&mut rng), expr(&mut rng));
    let cmp = ["<", "<=", ">", ">=", "==", "!="][rng.random_range(0..6)];
    let (c1, c2) = (operand(&mut rng), operand(&mut rng));
    let n = rng.random_range(0..60);
    let (a0, b0) = (consts[rng.random_range(0..7)], consts[rng.random_range(0..consts.len())]);
    format!(
        "fix go(i, a, b, k) {{\n  if \"i <= 0\" () {{ k [a, b] }} () {{\n    if \"{c1} {cmp} {c2}\" () {{\n      \"{ea}\" (a)\n      go \"i-1\" a b k\n    }} () {{\n      \"{eb}\" (b)\n      go \"i-1\" a b k\n    }}\n  }}\n}} in go {n} {a0} {b0} $exit\n"
    )
}

/// Random arithmetic loops (`DEEPCPS_COMPILE_LOOPS`, default 1,000) end as
/// the machine ends them.
#[test]
fn arithmetic_loops_agree_with_the_machine() {
    let cases = env_u64("DEEPCPS_COMPILE_LOOPS", 1_000);
    let first = env_u64("DEEPCPS_COMPILE_SEED", 0);
    let dir = scratch("loops");
    let mut programs = Vec::new();
    let mut expected = Vec::new();
    for (i, seed) in (first..first + cases).enumerate() {
        let text = arithmetic_loop(seed);
        let mut sources = SourceMap::new();
        let program = load_text("loop.dcps", &text, &mut sources).unwrap_or_else(|| panic!("does not load:\n{text}"));
        let ends = machine_ends(program.clone(), &sources, 100_000).expect("a loop of at most 60 iterations ends");
        let prog = program_c(&program.body, &program.vars, &sources, Part::Whole, &format!("l{i}_"))
            .unwrap_or_else(|_| panic!("refused:\n{text}"));
        programs.push(prog);
        expected.push((seed, text, ends));
    }
    let exe = build_batch(&programs.iter().map(String::as_str).collect::<Vec<_>>(), "l", &dir, "loops");
    let specialised = programs.iter().filter(|p| p.contains("S_top:")).count();
    let mut failures = Vec::new();
    for (i, (seed, text, want)) in expected.iter().enumerate() {
        let got = executable_ends(&exe, &[&i.to_string()]);
        if !agrees(&got, want) {
            failures.push(format!("seed {seed}: machine {want:?}, compiled {got:?}\n{text}"));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        failures.is_empty(),
        "{} of {cases} disagree:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    assert!(
        specialised as u64 >= cases / 2,
        "only {specialised} of {cases} loops got an integer copy"
    );
}

/// Floats print with the shortest digits that read back, as Rust prints
/// them: 5,000 random finite floats of every magnitude.
#[test]
fn random_floats_print_as_the_machine_prints_them() {
    let mut rng = StdRng::seed_from_u64(env_u64("DEEPCPS_COMPILE_SEED", 0));
    let mut xs = Vec::new();
    while xs.len() < 5_000 {
        let x = f64::from_bits(rng.random::<u64>());
        if x.is_finite() {
            xs.push(format!("{x:?}"));
        }
    }
    let src = format!("\"[{}]\" (t)\n$exit t\n", xs.join(", "));
    let (got, expected) = both(&src, "floats");
    let (Ends::Exit(g), Ends::Exit(e)) = (&got, &expected) else {
        panic!("machine {expected:?}, compiled {got:?}");
    };
    let differ: Vec<String> = g
        .split(", ")
        .zip(e.split(", "))
        .filter(|(a, b)| a != b)
        .take(10)
        .map(|(a, b)| format!("compiled {a}, machine {b}"))
        .collect();
    assert!(differ.is_empty(), "{}", differ.join("\n"));
    assert_eq!(g, e);
}
