//! Hostile inputs, data-driven: each program is run
//! through the command line in-process and must end with the given exit
//! code and a message naming what went wrong, never a panic, a hang or a
//! stack overflow. The runs get a 64 MiB stack: the parser recurses once
//! per bracket level (about 3.3 KB a level in release builds) up to its
//! limit of 2000 levels, so it needs some 7 MB; the binary, the debugger's
//! worker and `bench`'s threads have far more. Everything after the parser
//! iterates (tests/deep.rs runs 10^6-deep terms on 2 MiB). The largest cases (a 100 MB file, a
//! 10^6-element tuple) run on the release binary in `scripts/hostile.sh`,
//! which also reports their time and memory.

use deepcps_tests::Ran;

/// Runs `deepcps run FILE ARGS..` on `text` (on a 64 MiB stack).
fn run(name: &str, text: String, args: &[&str]) -> Ran {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("hostile");
    std::fs::create_dir_all(&dir).expect("temp dir");
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write");
    let mut argv: Vec<std::ffi::OsString> = vec!["deepcps".into(), "run".into(), p.into_os_string()];
    argv.extend(args.iter().map(std::ffi::OsString::from));
    std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(move || {
            let mut out = Vec::new();
            let mut err = Vec::new();
            let code = deepcps::main_with(argv, &mut out, &mut err);
            Ran {
                code,
                out: String::from_utf8_lossy(&out).into_owned(),
                err: String::from_utf8_lossy(&err).into_owned(),
            }
        })
        .expect("spawn")
        .join()
        .expect("no panic and no stack overflow")
}

#[track_caller]
fn check(name: &str, text: String, args: &[&str], code: u8, message: &str) -> Ran {
    let r = run(name, text, args);
    assert_eq!(r.code, code, "{name}: stderr {}", &r.err[..r.err.len().min(2000)]);
    let all = format!("{}{}", r.out, r.err);
    assert!(
        all.contains(message),
        "{name}: expected `{message}` in {}",
        &all[..all.len().min(2000)]
    );
    r
}

/// `"e" (x)` then `$exit x`.
fn expr(e: &str) -> String {
    format!("\"{e}\" (x)\n$exit x\n")
}

const DEEP: usize = 1_000_000;

#[test]
fn a_million_nested_lambdas_are_a_diagnostic() {
    let lambdas = format!("{}$exit 1{}", "(x) {".repeat(DEEP), "}".repeat(DEEP));
    check("lambdas.dcps", lambdas, &[], 2, "nested too deeply");
}

#[test]
fn a_million_nested_tuples_are_a_diagnostic() {
    let tuples = format!("$exit {}1{}", "[".repeat(DEEP), "]".repeat(DEEP));
    check("tuples.dcps", tuples, &[], 2, "nested too deeply");
}

#[test]
fn a_million_nested_stages_are_a_diagnostic() {
    let stages = format!("@{}always{}: $exit 1", "(".repeat(DEEP), ")".repeat(DEEP));
    check("stages.dcps", stages, &[], 2, "nested too deeply");
}

#[test]
fn a_million_nested_parentheses_in_an_expression_are_a_diagnostic() {
    let exprs = expr(&format!("{}1{}", "(".repeat(DEEP), ")".repeat(DEEP)));
    check("exprs.dcps", exprs, &[], 2, "deep");
}

#[test]
fn long_flat_inputs_reduce() {
    // A tuple of 10^5 elements (10^6 in scripts/hostile.sh), read at the end.
    let n = 100_000;
    let elems: Vec<String> = (0..n).map(|i| i.to_string()).collect();
    let text = format!("(t) {{\n  \"t[{}]\" (x)\n  $exit x\n}} [{}]\n", n - 1, elems.join(", "));
    check("wide_tuple.dcps", text, &[], 0, &format!("{}", n - 1));
    // A staging expression of 10^4 conjuncts.
    let conj = vec!["always"; 10_000].join(" & ");
    check("wide_stage.dcps", format!("@({conj}): $exit 7\n"), &[], 0, "7");
    // An expression of 10^4 additions.
    let sum = vec!["1"; 10_000].join("+");
    check("wide_expr.dcps", expr(&sum), &[], 0, "10000");
}

#[test]
fn numbers_at_and_past_their_limits() {
    let cases: &[(&str, u8, &str)] = &[
        ("9223372036854775807+1", 1, "integer overflow"),
        ("-9223372036854775807-2", 1, "integer overflow"),
        ("-9223372036854775808/-1", 1, "integer overflow"),
        ("9223372036854775807*2", 1, "integer overflow"),
        ("1/0", 1, "division-by-zero"),
        ("1.0/0.0", 1, "not a finite number"),
        ("0.0/0.0", 1, "not a finite number"),
        ("-1.0/0.0", 1, "not a finite number"),
        ("1e308*10.0", 1, "not a finite number"),
        ("9223372036854775807", 0, "9223372036854775807"),
        ("99999999999999999999", 2, "literal"),
        ("1e999", 2, "literal"),
    ];
    for &(e, code, message) in cases {
        check("numbers.dcps", expr(e), &[], code, message);
    }
    // Literals outside expression strings too.
    check("int_literal.dcps", "$exit 99999999999999999999\n".into(), &[], 2, "literal");
}

#[test]
fn bytes_that_are_not_a_program() {
    check("nul.dcps", "$exit 1\0\0".into(), &[], 2, "");
    let r = run("binary.dcps", String::from_utf8_lossy(&[0xff, 0xfe, 0x00, 0x01]).into_owned(), &[]);
    assert_eq!(r.code, 2, "{}", r.err);
    check("empty.dcps", String::new(), &[], 2, "the file is empty");
    check(
        "only_comment.dcps",
        "// nothing\n".into(),
        &[],
        2,
        "the file holds no code, only comments",
    );
}

#[test]
fn runaway_programs_stop_at_their_limits() {
    // Allocation without bound: the node limit.
    let grow = "fix grow(t) {\n  grow [t, [1, 2, 3]]\n} in\ngrow []\n".to_string();
    check("grow.dcps", grow, &["--max-nodes", "20000"], 3, "node limit reached");
    // An infinite core-time loop: the step limit, with the counts.
    let forever = "fix loop(i) {\n  \"i+1\" (j)\n  loop j\n} in\nloop 0\n".to_string();
    check("forever.dcps", forever.clone(), &["--max-steps", "50000"], 3, "steps: 50000");
    // Both machines stop the same way.
    check(
        "forever_ref.dcps",
        forever,
        &["--max-steps", "5000", "--reference"],
        3,
        "steps: 5000",
    );
    // A residual larger than the output limit.
    let big = format!("(k) {{\n  @never: k [{}]\n}} (x) {{\n  $exit x\n}}\n", vec!["1"; 2000].join(", "));
    check("big_residual.dcps", big, &["--max-output", "100"], 3, "output limit reached");
}
