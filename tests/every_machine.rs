//! Small programs whose outcome is stated, checked on every machine
//! (`deepcps_tests::every_machine`: the reference reducer, the graph
//! machine stepping alone, with fast runs, and in parallel rounds): the
//! rules where stuck and failing meet (LANGUAGE.md §4.3, §6.5 and the first
//! choice of §9), the remainder that cannot overflow and the seeds of
//! `matrix` (§6.2, §6.4). Each case gives the outcome kind, the number of
//! warnings and the printed result; every machine must also count the
//! same steps by kind as the reference.

use deepcps_machine::run::{Limits, Outcome, Report};
use deepcps_tests::compare::kind;
use deepcps_tests::{every_machine, load_source};

/// What a case states: the outcome kind, the warnings, the printed result.
fn shown(r: &Report) -> String {
    let mut s = format!("{}\nwarnings: {}", kind(r), r.warnings.len());
    if matches!(r.outcome, Outcome::Exit(_) | Outcome::Residual) {
        s.push('\n');
        s.push_str(r.text.trim_end());
    }
    s
}

/// Runs each case on every machine; all failures are reported at once.
#[track_caller]
fn check(cases: &[(&str, &str)]) {
    let limits = Limits {
        max_steps: 100_000,
        ..Limits::default()
    };
    let mut failures = Vec::new();
    for (src, want) in cases {
        let program = load_source(src).unwrap_or_else(|e| panic!("{src}\n{e}"));
        let runs = every_machine(program, &limits, 4);
        let counts = runs[0].1.counts;
        for (machine, report) in &runs {
            let got = shown(report);
            if got != *want {
                failures.push(format!("=== {machine}\n{src}\n--- want\n{want}\n--- got\n{got}"));
            } else if report.counts != counts {
                failures.push(format!("=== {machine}\n{src}\nsteps {}, reference {counts}", report.counts));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// A body whose head is symbolic, or one of whose arguments needs a
/// symbolic value, is stuck even when another argument would fail.
#[test]
fn stuck_wins_over_a_failing_argument() {
    check(&[
        // The head is symbolic.
        (
            "$exit (k) { @always: k \"1/0\" }",
            "exit\nwarnings: 1\n(k) {\n  @always: k \"1/0\"\n}",
        ),
        // The second argument needs `x`.
        (
            "$exit (x) { @always: $exit \"1/0\" \"x+1\" }",
            "exit\nwarnings: 1\n(x) {\n  @always: $exit \"1/0\" \"x+1\"\n}",
        ),
        // The head expression needs `f`.
        (
            "$exit (f) { @always: \"f\" \"1/0\" }",
            "exit\nwarnings: 1\n(f) {\n  @always: \"f\" \"1/0\"\n}",
        ),
        // A symbolic splice that lands on no rest parameter.
        (
            "$exit (t) { @always: (a, b) { $exit a } \"[1][3]\" !t }",
            "exit\nwarnings: 1\n(t) {\n  @always: (a, b) {\n    $exit a\n  } \"[1][3]\" !t\n}",
        ),
        // The condition of `if` is symbolic.
        (
            "$exit (c) { @always: if c \"1%0\" () { $exit 2 } }",
            "exit\nwarnings: 1\n(c) {\n  @always: if c \"1%0\" () {\n    $exit 2\n  }\n}",
        ),
        // Stuck until `x` is known, then the first failing argument decides.
        ("(x) { @always: $exit \"1/0\" \"x+1\" } 5", "error division-by-zero\nwarnings: 0"),
        // Nothing symbolic: the first failing argument, then the arity.
        ("$exit \"1/0\" \"[1][2]\" 3", "error division-by-zero\nwarnings: 0"),
        ("(a) { $exit a } \"[1][2]\" 2", "error index-out-of-range\nwarnings: 0"),
        ("\"5\" \"'a'+1\"", "error type\nwarnings: 0"),
        // A symbolic value nothing looks at leaves the error.
        (
            "$exit (x) { @always: (a) { $exit a } x \"1/0\" }",
            "error division-by-zero\nwarnings: 0",
        ),
        ("$exit (x) { @always: (a) { $exit a } x 2 }", "error arity\nwarnings: 0"),
        // A splice landing on the rest parameter is fine: the failure decides.
        (
            "$exit (t) { @always: (a, !r) { $exit a } \"1/0\" !t }",
            "error division-by-zero\nwarnings: 0",
        ),
    ]);
}

/// Inside one expression an operator with a symbolic operand is stuck
/// whatever its other operand is, `==` on values holding a symbolic value
/// is stuck, and the arguments of a function come before its name and
/// arity.
#[test]
fn stuck_wins_inside_an_expression() {
    let stuck = |e: &str| {
        (
            format!("$exit (x, Q) {{ @always: \"{e}\" (r) $exit r }}"),
            format!("exit\nwarnings: 1\n(x, Q) {{\n  @always: \"{e}\" (r)\n  $exit r\n}}"),
        )
    };
    let cases: Vec<(String, String)> = [
        "[1]*x",
        "x+1/0",
        "1/0+x",
        "delete(len(Q))",
        "[1/0, x-1]",
        "1&&x",
        "[1/0]==[x]",
        "frobnicate(x+1)",
        "insert(7, x, 1)",
    ]
    .iter()
    .map(|e| stuck(e))
    .collect();
    let cases: Vec<(&str, &str)> = cases.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    check(&cases);
    check(&[
        (
            "$exit (x) { @always: \"[1/0, x]\" (r) $exit r }",
            "error division-by-zero\nwarnings: 0",
        ),
        (
            "$exit (x) { @always: \"len(1/0, x)\" (r) $exit r }",
            "error division-by-zero\nwarnings: 0",
        ),
        (
            "$exit (x) { @always: \"frobnicate(x)\" (r) $exit r }",
            "error unknown-function\nwarnings: 0",
        ),
        ("$exit (x) { @always: \"len([x], 1)\" (r) $exit r }", "error arity\nwarnings: 0"),
    ]);
}

/// `i64::MIN % -1` is 0: the remainder is representable, only the quotient
/// overflows; also in a core-time loop, whose arithmetic fast runs
/// evaluate themselves.
#[test]
fn the_remainder_of_the_overflowing_quotient_is_zero() {
    check(&[
        ("\"(-9223372036854775807-1) % -1\" (r)\n$exit r", "exit\nwarnings: 0\n0"),
        ("\"(-9223372036854775807-1) / -1\" (r)\n$exit r", "error overflow\nwarnings: 0"),
        (
            "let n = \"-9223372036854775807-1\"\n\
             let m = \"0-1\"\n\
             fix loop(i, acc, k) {\n  \"i == 0\" (d)\n  if d () { k acc } () {\n    \"i-1\" (j)\n    \"acc + n % m + i % m\" (a)\n    loop j a k\n  }\n} in\n\
             loop 200 7 $exit",
            "exit\nwarnings: 0\n7",
        ),
    ]);
}

/// `matrix(r, c, seed)` starts at `seed mod 2^31`, in [0, 2^31) also for a
/// negative seed.
#[test]
fn a_negative_matrix_seed_is_taken_mod_2_to_the_31() {
    check(&[
        ("\"matrix(1, 3, -1)\" (m)\n$exit m", "exit\nwarnings: 0\n\"matrix([[9, 9, 2]])\""),
        (
            "\"[matrix(2, 2, -42) == matrix(2, 2, 2147483606), matrix(3, 1, -2147483648) == matrix(3, 1, 0)]\" (r)\n$exit r",
            "exit\nwarnings: 0\n[true, true]",
        ),
        ("\"matrix(1, -3, 5)\" (m)\n$exit m", "error type\nwarnings: 0"),
    ]);
}

/// A recursive name applied by an active body inside its own lambda, as a
/// plain head or read by an expression (`"f"`): the β copies the lambda
/// that holds the applying body, as it stands, before any part of that
/// body moves, and the copied name stays the enclosing one. Each unfolding
/// doubles the lambda, so the run is cut by the step limit; the terms it
/// stops at must agree.
#[test]
fn a_recursive_name_unfolds_inside_its_own_lambda() {
    for head in ["f", "\"f\""] {
        let src = format!("fix f(n, k) {{ \"n == 0\" (z) if z () {{ k 7 }} () {{ \"n-1\" (m) @always: {head} m k }} }} in $exit f");
        for steps in 2..=6 {
            let limits = Limits {
                max_steps: steps,
                ..Limits::default()
            };
            let program = load_source(&src).unwrap_or_else(|e| panic!("{src}\n{e}"));
            let runs = every_machine(program, &limits, 4);
            let (_, reference) = &runs[0];
            assert!(
                kind(reference).starts_with("limit (step limit"),
                "{src}, {steps} steps: {}",
                kind(reference)
            );
            // The last unfolding applies the name to its arguments again;
            // only the braces of the `if` branches around it close after it.
            let last = format!("@always: {head} m k\n");
            let after = reference.text.trim_end().rsplit_once(&last).map(|(_, after)| after);
            let closing = after.and_then(|a| a.strip_suffix("} in\n$exit f"));
            assert!(closing.is_some_and(|c| c.lines().all(|l| l.trim() == "}")), "{}", reference.text);
            // Each β copies the lambda as it has grown: 2^β - 1 copies.
            let copies = reference.text.matches("\"m-1\" (m)").count();
            assert_eq!(copies, (1 << (steps - 1)) - 1, "{}", reference.text);
            for (machine, report) in &runs[1..] {
                assert_eq!(
                    (kind(report), &report.text, report.counts),
                    (kind(reference), &reference.text, reference.counts),
                    "{machine}, {src}, {steps} steps"
                );
            }
        }
    }
}
