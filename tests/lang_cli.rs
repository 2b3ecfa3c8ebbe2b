//! Languages from the command line (`--lang DIR`), driven in-process:
//! the shipped languages against the paper's hand-written programs, their
//! snapshots, `compile --lang` against `run --exec`, and every error path
//! as data: `tests/inputs/lang_errors/CASE/` (a language folder whose
//! `expected` file holds the exit code of `check --lang` and lines its
//! stderr must hold) and `tests/inputs/lang_input_errors/NAME.EXT` (an
//! input of a shipped language, or of `tests/inputs/lang_runtime`, whose
//! actions compute while parsing; its `NAME.expected` likewise for `run`).

use std::path::Path;

use deepcps_tests::{deepcps, root};

/// The language folder of an input's ending.
fn language_for(ext: &str) -> &'static str {
    match ext {
        "arith" => "corpus/lang/arith_stack",
        "env" => "corpus/lang/arith_env",
        // The immediate interpreter: its actions fail at their own call.
        "imm" => "tests/inputs/lang_runtime",
        _ => panic!("no shipped language takes `.{ext}` inputs"),
    }
}

/// Checks a run against an `expected` file: the exit code on its first
/// line, then lines that stderr must hold.
fn assert_expected(what: &str, expected: &str, code: u8, err: &str) {
    let mut lines = expected.lines();
    let want: u8 = lines
        .next()
        .and_then(|l| l.trim().parse().ok())
        .unwrap_or_else(|| panic!("{what}: no exit code"));
    assert_eq!(code, want, "{what}: exit code; stderr:\n{err}");
    for line in lines.filter(|l| !l.trim().is_empty()) {
        assert!(err.contains(line), "{what}: stderr lacks `{line}`:\n{err}");
    }
    assert!(!err.contains("panicked"), "{what}: {err}");
}

#[test]
fn every_definition_error_is_a_diagnostic_at_its_place() {
    let base = root().join("tests/inputs/lang_errors");
    let mut cases: Vec<_> = std::fs::read_dir(&base).expect("cases").flatten().map(|e| e.path()).collect();
    cases.sort();
    assert!(cases.len() >= 15, "{} cases", cases.len());
    for case in cases {
        let rel = case.strip_prefix(root()).expect("under the root").display().to_string();
        let expected = std::fs::read_to_string(case.join("expected")).expect("expected");
        let r = deepcps(&["check", "--lang", &rel]);
        assert_expected(&rel, &expected, r.code, &r.err);
        assert_eq!(r.out, "", "{rel}");
        // The definition is checked before any input is read: `run` on a
        // missing input reports the definition, not the input.
        let r = deepcps(&["run", "--lang", &rel, "no-such-input.txt"]);
        assert_expected(&format!("{rel} (run)"), &expected, r.code, &r.err);
        assert!(!r.err.contains("no-such-input"), "{rel}: the input was read: {}", r.err);
    }
}

#[test]
fn every_input_error_is_a_diagnostic_on_the_input() {
    let base = root().join("tests/inputs/lang_input_errors");
    let mut inputs: Vec<_> = std::fs::read_dir(&base)
        .expect("inputs")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e != "expected"))
        .collect();
    inputs.sort();
    assert!(inputs.len() >= 6, "{} inputs", inputs.len());
    for input in inputs {
        let rel = input.strip_prefix(root()).expect("under the root").display().to_string();
        let ext = input.extension().and_then(|e| e.to_str()).unwrap_or("");
        let expected = std::fs::read_to_string(input.with_extension("expected")).expect("expected");
        let r = deepcps(&["run", "--lang", language_for(ext), &rel]);
        assert_expected(&rel, &expected, r.code, &r.err);
        assert_eq!(r.out, "", "{rel}");
    }
}

#[test]
fn the_headline_input_prints_the_papers_residual_in_both_styles() {
    let paper = deepcps(&["run", "corpus/paper/arith_built.dcps"]);
    assert_eq!(paper.code, 0, "{}", paper.err);
    let ast = deepcps(&["run", "corpus/paper/arith_ast.dcps"]);
    assert_eq!(ast.out, paper.out);
    for lang in ["corpus/lang/arith_stack", "corpus/lang/arith_ast"] {
        let input = format!("{lang}/headline.arith");
        let r = deepcps(&["run", "--lang", lang, &input]);
        assert_eq!((r.code, r.err.as_str()), (0, ""), "{lang}");
        assert_eq!(r.out, paper.out, "{lang}: not the paper's residual");
        let exec = deepcps(&["run", "--exec", "--lang", lang, &input]);
        let by_hand = deepcps(&["run", "corpus/paper/arith_run.dcps"]);
        assert_eq!((exec.code, exec.out.as_str()), (0, by_hand.out.as_str()), "{lang}: {}", exec.err);
    }
}

#[test]
fn the_environment_language_refers_to_the_bound_value() {
    let by_hand = deepcps(&["run", "corpus/paper/arith_env.dcps"]);
    let r = deepcps(&["run", "--lang", "corpus/lang/arith_env", "corpus/lang/arith_env/bind.env"]);
    assert_eq!((r.code, r.out.as_str()), (0, by_hand.out.as_str()), "{}", r.err);
    assert!(!r.out.contains("lookup") && !r.out.contains("'x'"), "{}", r.out);
}

#[test]
fn shipped_languages_check_and_pass_their_snapshots() {
    let mut dirs: Vec<_> = std::fs::read_dir(root().join("corpus/lang"))
        .expect("corpus/lang")
        .flatten()
        .map(|e| e.path())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 5);
    for dir in &dirs {
        let rel = dir.strip_prefix(root()).expect("under the root").display().to_string();
        let r = deepcps(&["check", "--lang", &rel]);
        assert_eq!(r.code, 0, "{rel}: {}", r.err);
        assert!(r.out.contains(": ok (the language"), "{}", r.out);
    }
    let r = deepcps(&["test", "--threads", "1", "corpus/lang"]);
    assert_eq!(r.code, 0, "{}", r.out);
    assert!(r.out.contains(" 0 failed"), "{}", r.out);
    assert!(!r.out.contains(" 0 passed"), "{}", r.out);
}

#[test]
fn check_lang_with_an_input_parses_it() {
    let r = deepcps(&[
        "check",
        "--lang",
        "corpus/lang/arith_stack",
        "corpus/lang/arith_stack/headline.arith",
    ]);
    assert_eq!(r.code, 0, "{}", r.err);
    assert!(r.out.contains("9 action calls"), "{}", r.out);
    let r = deepcps(&[
        "check",
        "--lang",
        "corpus/lang/arith_stack",
        "tests/inputs/lang_input_errors/bad_char.arith",
    ]);
    assert_eq!(r.code, 2);
    assert!(r.err.contains("unexpected character"), "{}", r.err);
}

#[test]
fn deep_input_nesting_is_a_diagnostic_not_an_overflow() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("lang-deep");
    std::fs::create_dir_all(&dir).expect("temp dir");
    let input = dir.join("deep.arith");
    let n = 5_000;
    std::fs::write(&input, format!("{}1{}", "(".repeat(n), ")".repeat(n))).expect("write");
    let r = deepcps(&["run", "--lang", "corpus/lang/arith_stack", &input.display().to_string()]);
    assert_eq!(r.code, 2, "{}", r.err);
    assert!(r.err.contains("nests more than"), "{}", r.err);
    // Within the bound, nesting works.
    std::fs::write(&input, format!("{}1{}+2", "(".repeat(100), ")".repeat(100))).expect("write");
    let r = deepcps(&["run", "--exec", "--lang", "corpus/lang/arith_stack", &input.display().to_string()]);
    assert_eq!((r.code, r.out.as_str()), (0, "3\n"), "{}", r.err);
}

#[test]
fn exec_needs_a_language() {
    let r = deepcps(&["run", "--exec", "corpus/paper/arith_built.dcps"]);
    assert_eq!(r.code, 2);
    assert!(r.err.contains("--lang"), "{}", r.err);
}

#[test]
fn an_input_read_from_standard_input() {
    let mut argv: Vec<std::ffi::OsString> = ["deepcps", "run", "--exec", "--lang", "corpus/lang/arith_stack", "-"]
        .iter()
        .map(Into::into)
        .collect();
    argv.shrink_to_fit();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    std::env::set_current_dir(root()).expect("root");
    let code = deepcps::main_with_input(argv, &mut "2*(3+4)".as_bytes(), &mut out, &mut err);
    assert_eq!(
        (code, String::from_utf8_lossy(&out).as_ref()),
        (0, "14\n"),
        "{}",
        String::from_utf8_lossy(&err)
    );
}

#[test]
fn compiled_inputs_print_what_exec_prints() {
    if std::process::Command::new("cc").arg("--version").output().is_err() {
        panic!("`cc` is needed to compile");
    }
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("lang-cc");
    std::fs::create_dir_all(&dir).expect("temp dir");
    for (lang, input) in [
        ("corpus/lang/arith_stack", "corpus/lang/arith_stack/precedence.arith"),
        ("corpus/lang/arith_env", "corpus/lang/arith_env/nested.env"),
        ("corpus/lang/matrix", "corpus/lang/matrix/cormen.mat"),
        ("corpus/lang/imp", "corpus/lang/imp/gcd.imp"),
        ("corpus/lang/imp", "corpus/lang/imp/factorial.imp"),
        ("corpus/lang/imp", "corpus/lang/imp/branches.imp"),
    ] {
        let exe = dir.join(Path::new(input).file_stem().expect("stem"));
        let r = deepcps(&["compile", "--lang", lang, input, "-o", &exe.display().to_string()]);
        assert_eq!(r.code, 0, "{input}: {}", r.err);
        let ran = std::process::Command::new(&exe).output().expect("runs");
        let exec = deepcps(&["run", "--exec", "--lang", lang, input]);
        assert_eq!(exec.code, 0, "{}", exec.err);
        assert_eq!(String::from_utf8_lossy(&ran.stdout), exec.out, "{input}");
    }
}

#[test]
fn the_debugger_names_the_action_being_run_and_its_input() {
    use deepcps::debug::worker::{Engine, Request, Worker};
    use deepcps::lang::LangInput;
    use deepcps_machine::graph::par::Parallel;
    std::env::set_current_dir(root()).expect("root");
    let l = LangInput {
        dir: "corpus/lang/arith_stack".into(),
        input: "corpus/lang/arith_stack/headline.arith".into(),
    };
    let w = Worker::load_lang(&l, Parallel::sequential(), false, u64::MAX).expect("loads");
    let mut engine = Engine::inline(w);
    let first = engine.frames().expect("frames").remove(0);
    let next = first.next.clone().unwrap_or_default();
    assert!(next.starts_with("action: none called yet (9 to call)"), "{next}");
    // Step until the action `mul` runs: its input is `4*2`, at 1:3 of the
    // input (after the directive line, line 2).
    let mut seen = Vec::new();
    for _ in 0..400 {
        engine.send(Request::Step(1));
        let f = engine.frames().expect("frames").pop().expect("a frame");
        let next = f.next.clone().unwrap_or_default();
        if let Some(action) = next.split(" · ").next() {
            if seen.last() != Some(&action.to_string()) {
                seen.push(action.to_string());
            }
        }
        if f.end.is_some() {
            break;
        }
    }
    assert!(
        seen.iter()
            .any(|s| s == "action 5/9 `mul` for `4*2` at corpus/lang/arith_stack/headline.arith:2:3"),
        "{seen:#?}"
    );
    assert!(seen.iter().any(|s| s.starts_with("action 9/9 `end`")), "{seen:#?}");
    // In input order, each action once.
    let numbers: Vec<usize> = seen
        .iter()
        .filter_map(|s| s.strip_prefix("action ")?.split('/').next()?.parse().ok())
        .collect();
    assert!(numbers.windows(2).all(|w| w[0] < w[1]), "{numbers:?}");
}

#[test]
fn imp_programs_compute_what_they_say() {
    for (input, value) in [("gcd", "21"), ("factorial", "3628800"), ("branches", "5")] {
        let file = format!("corpus/lang/imp/{input}.imp");
        let r = deepcps(&["run", "--exec", "--lang", "corpus/lang/imp", &file]);
        assert_eq!((r.code, r.out.trim()), (0, value), "{input}: {}", r.err);
        // The residual holds a loop function and no builder.
        let r = deepcps(&["run", "--lang", "corpus/lang/imp", &file]);
        assert!(r.out.contains("fix loop(V)"), "{}", r.out);
        for builder in ["build", "merge", "Snext", "Tlambda"] {
            assert!(!r.out.contains(builder), "{input}: `{builder}` left in\n{}", r.out);
        }
    }
}

#[test]
fn matrix_chains_multiply_in_the_optimal_order() {
    // The textbook chain: ((A1 (A2 A3)) ((A4 A5) A6)).
    let r = deepcps(&["run", "--lang", "corpus/lang/matrix", "corpus/lang/matrix/cormen.mat"]);
    assert_eq!(r.code, 0, "{}", r.err);
    let products: Vec<&str> = r.out.lines().filter(|l| l.contains('*')).map(str::trim).collect();
    assert_eq!(
        products,
        [
            "@pt: \"M_1*M_2\" (prod)[pt]",
            "@pt: \"M*prod\" (prod)[pt]",
            "@pt: \"M_3*M_4\" (prod_1)[pt]",
            "@pt: \"prod_1*M_5\" (prod_1)[pt]",
            "@pt: \"prod*prod_1\" (prod)[pt]",
        ]
    );
    // The product is the naive left-to-right one.
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("lang-mat");
    std::fs::create_dir_all(&dir).expect("temp dir");
    let check = dir.join("check.dcps");
    let exec = deepcps(&["run", "--exec", "--lang", "corpus/lang/matrix", "corpus/lang/matrix/cormen.mat"]);
    std::fs::write(
        &check,
        format!(
            "\"matrix(30, 35, 1)*matrix(35, 15, 2)*matrix(15, 5, 3)*matrix(5, 10, 4)*matrix(10, 20, 5)*matrix(20, 25, 6) == {}\" (ok)\n$exit ok\n",
            exec.out.trim().trim_matches('"')
        ),
    )
    .expect("write");
    let r = deepcps(&["run", &check.display().to_string()]);
    assert_eq!((r.code, r.out.as_str()), (0, "true\n"), "{}", r.err);
}

#[test]
fn bench_runs_the_inputs_of_languages() {
    let r = deepcps(&["bench", "--threads", "1", "corpus/lang"]);
    assert_eq!(r.code, 0, "{}\n{}", r.out, r.err);
    for input in ["arith_stack/headline.arith", "imp/gcd.imp", "matrix/cormen.mat"] {
        assert!(r.out.contains(&format!("corpus/lang/{input}")), "{input}: {}", r.out);
    }
    assert!(r.out.contains(" 0 fail;"), "{}", r.out);
}

#[test]
fn limits_stop_a_language_run_as_they_stop_a_program() {
    let r = deepcps(&[
        "run",
        "--max-steps",
        "10",
        "--lang",
        "corpus/lang/arith_stack",
        "corpus/lang/arith_stack/headline.arith",
    ]);
    assert_eq!((r.code, r.out.as_str()), (3, ""), "{}", r.err);
    assert!(r.err.contains("step limit"), "{}", r.err);
}
