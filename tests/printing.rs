//! Canonical printing (LANGUAGE.md §8): layout and renaming, checked on the
//! printed results of small programs. The cases here are regressions found
//! by the round-trip property test.

use deepcps_machine::run::Limits;
use deepcps_tests::{graph_report, load_source, reference_report, reprint, reprint_open, run_source};

#[track_caller]
fn result_of(src: &str) -> String {
    let out = run_source(src);
    out.split("--- result\n")
        .nth(1)
        .unwrap_or_else(|| panic!("no result:\n{out}"))
        .split("--- diagnostics")
        .next()
        .unwrap_or("")
        .to_string()
}

#[test]
fn a_symbolic_variable_moved_under_a_binder_of_its_name_forces_a_rename() {
    let r = result_of("$exit (y) { @always: (p) { $exit (y) { $exit [p, y] } } y }");
    assert_eq!(r, "(y_1) {\n  $exit [y, y_1]\n}\n");
    assert_eq!(reprint_open(&r).as_deref(), Ok(r.as_str()));
}

#[test]
fn the_lowest_free_suffix_is_chosen() {
    // `x` and `x_1` are both referenced inside: the binder becomes `x_2`.
    // (The inner `$exit` fires first, with the inner lambda.)
    let r = result_of("$exit (x, x_1) { @always: (p, q) { $exit (x) { $exit [p, q, x] } } x x_1 }");
    assert_eq!(r, "(x_2) {\n  $exit [x, x_1, x_2]\n}\n");
}

#[test]
fn shadowing_without_capture_keeps_source_names() {
    // The paper's residual rebinds `pt` and `sum` at every step and needs no renaming.
    let r = result_of("$exit (exit)[pt] { @pt: \"1+2\" (sum)[pt] @pt: \"sum+3\" (sum)[pt] @pt: exit sum }");
    assert_eq!(
        r,
        "(exit)[pt] {\n  @pt: \"1+2\" (sum)[pt]\n  @pt: \"sum+3\" (sum)[pt]\n  @pt: exit sum\n}\n"
    );
}

#[test]
fn a_tail_body_starting_with_a_one_name_tuple_is_braced() {
    // In tail form, `[x]` after `()` would read back as a staging parameter.
    let src = "let f(k) { @never: k 0 }\n$exit (x) { f () { [x] 1 } }";
    let printed = reprint(src).expect("parses");
    assert!(printed.contains("() {\n"), "{printed}");
    assert_eq!(reprint(&printed).as_deref(), Ok(printed.as_str()));
}

#[test]
fn a_splice_of_a_substituted_non_tuple_reads_back() {
    let r = result_of("let v = true\n@never: $exit !v");
    assert_eq!(r, "@never: $exit !true\n");
    assert_eq!(reprint(&r).as_deref(), Ok(r.as_str()));
    // And it fails as a type error when it does run.
    assert!(run_source("let v = true\n$exit !v").starts_with("outcome: error type"));
}

#[test]
fn values_without_literal_syntax_print_as_expressions() {
    assert_eq!(result_of("\"'x'\" (s) $exit s"), "\"'x'\"\n");
    assert_eq!(result_of("\"{dim: [2, 3], data: 1}\" (r) $exit r"), "\"{dim: [2, 3], data: 1}\"\n");
    assert_eq!(result_of("\"map().insert('a', 5)\" (m) $exit m"), "\"map().insert('a', 5)\"\n");
    assert_eq!(
        result_of("\"matrix([[1, 2], [3, 4]])\" (m) $exit m"),
        "\"matrix([[1, 2], [3, 4]])\"\n"
    );
}

#[test]
fn a_recursive_value_prints_as_a_fix_where_it_is_held() {
    let r = result_of("fix loop(k) { loop k } in\n$exit (k) { @never: loop k }");
    assert_eq!(r, "(k) {\n  @never: fix loop(k) {\n    loop k\n  } in\n  loop k\n}\n");
    assert_eq!(reprint_open(&r).as_deref(), Ok(r.as_str()));
}

#[test]
fn staging_expressions_print_with_minimal_parentheses() {
    // `!` binds tighter than `&`, which binds tighter than `|`; operators
    // associate to the left.
    let cases = [
        ("(a | b) & c", "(a | b) & c"),
        ("a | b & c", "a | b & c"),
        ("!(a & b) | c", "!(a & b) | c"),
        ("a & (b & c)", "a & (b & c)"),
        ("(a & b) & c", "a & b & c"),
        ("a | (b | !c)", "a | (b | !c)"),
    ];
    for (written, printed) in cases {
        let src = format!("$exit (a, b, c) {{\n  @{written}: $exit a\n}}");
        let want = format!("$exit (a, b, c)\n@{printed}: $exit a\n");
        assert_eq!(reprint(&src).as_deref(), Ok(want.as_str()), "{written}");
    }
}

/// `src` prints `want` on the graph machine and on the reference reducer,
/// and `want` reads back.
#[track_caller]
fn both_print(src: &str, want: &str) {
    let p = load_source(src).expect("loads");
    let limits = Limits::default();
    assert_eq!(reference_report(p.clone(), &limits).text, want, "reference");
    assert_eq!(graph_report(p, &limits).text, want, "graph machine");
    assert_eq!(reprint_open(want).as_deref(), Ok(want));
}

#[test]
fn copies_of_one_recursive_value_named_apart_print_as_one_fix() {
    // The β of `(e2) {..}` copies its body: the reference names the two
    // copies of `f1` in it apart, the graph machine's β in place keeps one
    // name. Both print the value once, where it is held.
    both_print(
        "fix f1(n, k) { if n () { f1 false k } () { k f1 } } in\n\"f1\" (e2)\n@never: [f1, 0] f1\n",
        "@never: fix f1(n, k) {\n  if n () {\n    f1 false k\n  } () {\n    k f1\n  }\n} in\n[f1, 0] f1\n",
    );
}

#[test]
fn different_recursive_values_of_one_name_print_apart() {
    // Two values named `f` in one body, not the same value: two `fix`es,
    // the second not hiding the first (it did: `[f, f] f`). The first is
    // renamed: the application refers to both.
    both_print(
        "fix f(k) { k 1 } in\n(g) {\n  fix f(k) { k 2 } in\n  \"f\" (e)\n  @never: [g, f] e\n} f\n",
        "@never: fix f_1(k) {\n  k 1\n} in\nfix f(k) {\n  k 2\n} in\n[f_1, f] f\n",
    );
}

#[test]
fn a_copy_named_apart_in_a_nested_body_still_prints_by_name_after_it() {
    // After two βs the reference's outer body holds a copy of `f1` and
    // `g`'s value (another copy, twice), the lambda's body a third copy and
    // `g`'s value again. `g`'s value prints as the outer copy's name
    // outside, as the third copy's inside, and as the outer's again after
    // the lambda: leaving the lambda must not forget it, else it prints in
    // full there, its own name free.
    both_print(
        "fix f1(n, k) { if n () { f1 false k } () { k f1 } } in\n\"f1\" (e2)\n(g) { @never: [f1, g] (x) { @never: [f1, g] x } g } f1\n",
        "@never: fix f1(n, k) {\n  if n () {\n    f1 false k\n  } () {\n    k f1\n  }\n} in\n[f1, f1] (x) {\n  @never: fix f1(n, k) {\n    if n () {\n      f1 false k\n    } () {\n      k f1\n    }\n  } in\n  [f1, f1] x\n} f1\n",
    );
}

#[test]
fn both_branches_of_if_are_braced() {
    // In tail form the second branch would read as code after the `if`.
    let r = result_of("$exit (c, k) { @always: \"1+1\" (two) if c () { k 1 } () { \"two+1\" (x) k x } }");
    assert_eq!(
        r,
        "(c, k) {\n  @always: if c () {\n    k 1\n  } () {\n    \"2+1\" (x)\n    k x\n  }\n}\n"
    );
    assert_eq!(reprint_open(&r).as_deref(), Ok(r.as_str()));
    // Any other application still ends in a tail lambda.
    let r = result_of("$exit (c, k) { @always: \"1+1\" (two) k () { k 1 } () { \"two+1\" (x) k x } }");
    assert_eq!(r, "(c, k) {\n  @always: k () {\n    k 1\n  } ()\n  \"2+1\" (x)\n  k x\n}\n");
}
