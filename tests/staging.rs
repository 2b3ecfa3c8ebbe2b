//! Unit tests of the staging rules (LANGUAGE.md §4–5), data-driven: each
//! `check` reduces a small program with the reference reducer and compares
//! the whole observable outcome (kind, step counts, printed result,
//! warnings) with the expected text.

use deepcps_tests::run_source;

#[track_caller]
fn check(src: &str, expect: &str) {
    let got = run_source(src);
    assert_eq!(got.trim_end(), expect.trim_end(), "\n--- program\n{src}\n--- got\n{got}");
}

/// Only the outcome line and the result section (no counts, no warnings).
#[track_caller]
fn check_result(src: &str, expect: &str) {
    let got = run_source(src);
    let outcome = got.lines().next().unwrap_or_default();
    let result = got.split("--- result\n").nth(1).unwrap_or_default();
    let result = result.split("--- diagnostics").next().unwrap_or_default();
    let shown = format!("{outcome}\n{result}");
    assert_eq!(shown.trim_end(), expect.trim_end(), "\n--- program\n{src}\n--- got\n{got}");
}

#[test]
fn natural_staging_waits_for_the_enclosing_lambda() {
    // `id 1 k` is naturally staged on the uninvoked lambda: nothing runs.
    check(
        "let id(x, k) { k x }\n$exit (k) { id 1 k }",
        "outcome: exit\nsteps: 2 (beta 1, expr 0, if 0, fix 0, exit 1)\n--- result\n(k) {\n  (x, k) {\n    k x\n  } 1 k\n}",
    );
}

#[test]
fn always_runs_under_an_uninvoked_lambda() {
    // The call of `id` runs at once; what it leaves, `k 1`, is staged on the
    // (invoked) copy's staging parameter, i.e. `always`, and is stuck on `k`.
    let got = run_source("let id(x, k) { k x }\n$exit (k) { @always: id 1 k }");
    assert!(
        got.starts_with("outcome: exit\nsteps: 3 (beta 2, expr 0, if 0, fix 0, exit 1)\n--- result\n(k) {\n  @always: k 1\n}\n"),
        "{got}"
    );
    // The stuck body is left in the final result (the exit value): reported.
    assert!(
        got.contains("[stuck] Warning: stuck body: the head of the application is symbolic (`k`)"),
        "{got}"
    );
}

#[test]
fn never_is_never_active() {
    check_result("@never: $exit 1", "outcome: residual\n@never: $exit 1");
}

#[test]
fn not_of_a_symbolic_variable_is_active_at_once() {
    // Inside the uninvoked lambda, `s` is symbolic (⊥), so `!s` is ⊤.
    check_result(
        "let id(x, k) { k x }\n$exit (k)[s] { @!s: id 1 (y) { @s: k y } }",
        "outcome: exit\n(k)[s] {\n  @s: k 1\n}",
    );
}

#[test]
fn and_or_combine_staging_values() {
    check_result(
        "$exit (k)[s] { @s & always: k 1 }",
        "outcome: exit\n(k)[s] {\n  @s & always: k 1\n}",
    );
    check_result("$exit (k)[s] { @s | never: k 1 }", "outcome: exit\n(k)[s] {\n  @s | never: k 1\n}");
    // `s | always` is active: the body runs and is stuck on `k`.
    let got = run_source("let id(x, k) { k x }\n$exit (k)[s] { @s | always: id 2 k }");
    assert!(got.contains("(k)[s] {\n  @always: k 2\n}"), "{got}");
}

#[test]
fn invoking_a_lambda_binds_its_staging_parameter_to_always() {
    // When `f` is invoked, `s` becomes `always`, so `@s:` bodies in the copy run.
    check_result("let f(k)[s] { @s: k 5 }\nf $exit", "outcome: exit\n5");
}

#[test]
fn a_staging_variable_passed_as_an_argument_is_the_callers_variable() {
    // `f` stages on its parameter `pt`; given the caller's `s`, the body waits for `s`.
    check_result(
        "let f(pt, k) { @pt: k 1 }\n$exit (k)[s] { @always: f s k }",
        "outcome: exit\n(k)[s] {\n  @s: k 1\n}",
    );
}

#[test]
fn a_concrete_value_in_a_staging_expression_is_true() {
    check_result("let x = 5\n@x: $exit 1", "outcome: exit\n1");
    check_result("let x = false\n@x: $exit 1", "outcome: exit\n1");
    // `x` is replaced by `never`: the body stays, and prints its staging value.
    check_result("let x = never\n@x: $exit 1", "outcome: residual\n@never: $exit 1");
}

#[test]
fn partially_known_tuples() {
    // The top of the stack is known, its tail symbolic: S[0] works, S[1] is the tail.
    check_result(
        "$exit (T, k) { @always: \"[1, T]\" (S) \"S[0]+1\" (h) \"S[1]\" (t) k h t }",
        "outcome: exit\n(T, k) {\n  @always: k 2 T\n}",
    );
}

#[test]
fn stuck_bodies_stay_and_are_reported() {
    let got = run_source("(x) { @always: \"x+1\" (y) $exit y } 1\n");
    assert!(
        got.starts_with("outcome: exit\n"),
        "a stuck body inside a lambda does not block the outer one:\n{got}"
    );
    let got = run_source("$exit (x) { @always: \"x+1\" (y) $exit y }");
    assert!(got.contains("(x) {\n  @always: \"x+1\" (y)\n  $exit y\n}"), "{got}");
    // As a residual, the stuck body is reported as a warning naming the variable.
    // `hold` never calls its continuation, so the lambda stays in the residual
    // with its `if` stuck on the symbolic `x`.
    let got = run_source("let hold(k) { @never: k 1 }\nhold (x) { @always: if x () { $exit 1 } () { $exit 2 } }");
    assert!(got.starts_with("outcome: residual\n"), "{got}");
    assert!(
        got.contains("[stuck] Warning: stuck body: the condition of `if` is symbolic (`x`)"),
        "{got}"
    );
}

#[test]
fn stuck_on_a_symbolic_head() {
    let got = run_source("let hold(k) { @never: k 0 }\nhold (k) { @always: k 1 }");
    assert!(got.starts_with("outcome: residual\n"), "{got}");
    assert!(got.contains("stuck body: the head of the application is symbolic (`k`)"), "{got}");
}

#[test]
fn symbolic_splice_onto_a_rest_parameter() {
    // `!t` lands exactly on `!r`: r := t, and the body runs.
    check_result(
        "let f(a, !r, k) { k a r }\n$exit (t, k) { @always: f 1 !t k }",
        "outcome: exit\n(t, k) {\n  @always: k 1 t\n}",
    );
    // Without a rest parameter the splice cannot be matched: stuck.
    let got = run_source("let g(a, b) { a b }\nlet hold(k) { @never: k 0 }\nhold (t) { @always: g !t }");
    assert!(
        got.contains("stuck body: a symbolic splice cannot be matched to parameters without a rest parameter (`t`)"),
        "{got}"
    );
    // A known tuple spliced anywhere is its elements.
    check_result(
        "let f(a, b, c, k) { \"a+b+c\" (s) k s }\nlet t = [2, 3]\nf 1 !t $exit",
        "outcome: exit\n6",
    );
}

#[test]
fn rest_parameter_in_the_middle() {
    check_result(
        "let f(a, !r, z, k) { k [a, r, z] }\nf 1 2 3 4 $exit",
        "outcome: exit\n[1, [2, 3], 4]",
    );
    check_result("let f(a, !r, z, k) { k [a, r, z] }\nf 1 2 $exit", "outcome: exit\n[1, [], 2]");
}

#[test]
fn innermost_first() {
    // The nested active body runs before the outer call, so `f` receives the
    // already reduced lambda.
    check_result(
        "let id(x, k) { k x }\n$exit (a) { @always: id 7 (v)[s] { @s: a v } }",
        "outcome: exit\n(a) {\n  @always: a 7\n}",
    );
}

#[test]
fn fix_binds_a_recursive_lambda() {
    check_result(
        "fix count(n, acc, k) { \"n==0\" (z) if z () { k acc } () { \"n-1\" (m) \"acc+n\" (a) count m a k } } in\ncount 4 0 $exit",
        "outcome: exit\n10",
    );
}

#[test]
fn if_chooses_a_branch() {
    check_result("if true () { $exit 1 } () { $exit 2 }", "outcome: exit\n1");
    check_result("if \"1 > 2\" () { $exit 1 } () { $exit 2 }", "outcome: exit\n2");
}

#[test]
fn exit_stops_at_once() {
    check(
        "$exit 1",
        "outcome: exit\nsteps: 1 (beta 0, expr 0, if 0, fix 0, exit 1)\n--- result\n1",
    );
}

#[test]
fn always_inside_a_recursive_definition_unfolds_it() {
    // LANGUAGE.md §5: inside its own lambda the recursive name is the value
    // itself, so `@always: f x` unfolds without end, even though `f` is never
    // called; the step limit turns that into a result.
    let got = deepcps_tests::outcome_of("fix f(x) { @always: f x } in\n@never: f 1", 1_000);
    assert!(got.starts_with("limit step limit reached: 1000 steps"), "{got}");
}

#[test]
fn the_recursive_name_is_concrete_in_its_own_staging_expressions() {
    // `@f:` inside f's own lambda is true; the body runs and is stuck on `k`.
    let got = run_source("fix f(k) { @f: k 1 } in\n$exit (k) { @never: f k }");
    assert!(got.contains("@f: k 1") || got.contains("@always: k 1"), "{got}");
    assert!(got.contains("stuck body: the head of the application is symbolic (`k`)"), "{got}");
}

#[test]
fn expression_sugar_braced_or_not() {
    // `"e" (x) b` and `"e" (x) { b }` both apply the lambda to the value of e.
    let expect = "outcome: exit\nsteps: 2 (beta 0, expr 1, if 0, fix 0, exit 1)\n--- result\n5";
    check("\"2+3\" (x) $exit x", expect);
    check("\"2+3\" (x) { $exit x }", expect);
    // With more than one lambda after it, the expression is just the head.
    assert!(run_source("\"2+3\" (x) { $exit x } (y) { $exit y }").starts_with("outcome: error not-a-function"));
}

#[test]
fn an_exit_value_holding_an_escaped_parameter_warns_at_its_binder() {
    // `$exit p` is active under `f` before `f 1` runs: the value is the
    // symbolic `p`, which never got a value.
    let src = "let f(p) {\n  '@always:' $exit p\n} in\nf 1\n";
    let out = run_source(src);
    assert!(
        out.contains("[escaped] Warning: the exit value holds the symbolic variable `p`"),
        "{out}"
    );
    assert!(out.contains("test.dcps:1:7"), "at the binder: {out}");
    // A value with no free parameter says nothing of the kind.
    let closed = run_source("let f(p) {\n  $exit p\n} in\nf 1\n");
    assert!(!closed.contains("[escaped]"), "{closed}");
    // Nor does a closure whose parameters are its own, nor a fragment of
    // code naming an outer parameter (the paper's figures exit with those).
    let lambda = run_source("$exit (x, k) { k x }\n");
    assert!(!lambda.contains("[escaped]"), "{lambda}");
    let fragment = run_source("$exit (code) {\n  '@always:' $exit (k) { code k }\n}\n");
    assert!(!fragment.contains("[escaped]"), "{fragment}");
    // In a tuple it is data: it warns.
    let tuple = run_source("let f(p) {\n  '@always:' $exit [1, p]\n} in\nf 1\n");
    assert!(tuple.contains("[escaped] Warning"), "{tuple}");
}
