//! Hostile and broken input: every case gets a diagnostic (exit code 2 from
//! the command line), never a panic, a hang or a stack overflow.

use std::ffi::OsString;

/// Runs `deepcps run` on `bytes` (written to a temporary file) on a large
/// stack, as the binary does; returns the exit code, stdout and stderr.
fn run_file(name: &str, bytes: &[u8]) -> (u8, String, String) {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("bad");
    std::fs::create_dir_all(&dir).expect("temp dir");
    let p = dir.join(name);
    std::fs::write(&p, bytes).expect("write");
    let argv: Vec<OsString> = vec!["deepcps".into(), "run".into(), p.into_os_string()];
    // The binary runs on a large stack; so does this test.
    let handle = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || {
            let mut out = Vec::new();
            let mut err = Vec::new();
            let code = deepcps::main_with(argv, &mut out, &mut err);
            (
                code,
                String::from_utf8_lossy(&out).into_owned(),
                String::from_utf8_lossy(&err).into_owned(),
            )
        })
        .expect("spawn");
    handle.join().expect("no panic")
}

fn run_bytes(name: &str, bytes: &[u8]) -> (u8, String) {
    let (code, _, err) = run_file(name, bytes);
    (code, err)
}

#[track_caller]
fn rejects(name: &str, bytes: &[u8], message: &str) {
    let (code, err) = run_bytes(name, bytes);
    assert_eq!(code, 2, "{name}: {err}");
    assert!(
        err.contains(message),
        "{name}: expected `{message}` in:\n{}",
        &err[..err.len().min(2000)]
    );
}

#[test]
fn truncated_file() {
    rejects("trunc.dcps", b"let f(x, k) { k", "expected `}`, found end of file");
    rejects("trunc2.dcps", b"let f", "expected the value bound by `let`");
    rejects("trunc3.dcps", b"@always", "expected `:` after the staging expression");
    rejects("empty.dcps", b"", "the file is empty");
    rejects("defs_only.dcps", b"let f(k) { k }\n", "the program has no main body");
}

#[test]
fn unbalanced_braces() {
    rejects("close.dcps", b"$exit 1 }", "expected end of file, found `}`");
    rejects("open.dcps", b"(x) { (y) { $exit 1 }", "expected `}`");
}

#[test]
fn unknown_builtin() {
    rejects("builtin.dcps", b"$print 1", "unknown built-in `$print`");
}

#[test]
fn invalid_utf8() {
    rejects("utf8.dcps", b"$exit 1 // caf\xe9\n", "source is not valid UTF-8");
}

#[test]
fn a_ten_megabyte_line() {
    let mut src = b"$exit [".to_vec();
    for _ in 0..(10 << 20) / 2 {
        src.extend_from_slice(b"1,");
    }
    src.extend_from_slice(b" ?]");
    rejects("long.dcps", &src, "unexpected character `?`");
}

#[test]
fn deep_nesting_is_a_diagnostic() {
    // One code for one limit, in DeepCPS source and in expression strings.
    let n = 100_000;
    let parens = format!("@{}always{}: $exit 1", "(".repeat(n), ")".repeat(n));
    let tuples = format!("$exit {}1{}", "[".repeat(n), "]".repeat(n));
    let lambdas = format!("$exit {}$exit 1{}", "() { ".repeat(n), " }".repeat(n));
    let nots = format!("@{}always: $exit 1", "!".repeat(n));
    let expr = format!("\"{}1{}\" (x) $exit x", "(".repeat(n), ")".repeat(n));
    let expr_nots = format!("\"{}true\" (x) $exit x", "!".repeat(n));
    for (name, text) in [
        ("parens.dcps", parens),
        ("tuples.dcps", tuples),
        ("lambdas.dcps", lambdas),
        ("nots.dcps", nots),
        ("expr.dcps", expr),
        ("expr_nots.dcps", expr_nots),
    ] {
        rejects(name, text.as_bytes(), "nested too deeply");
        rejects(name, text.as_bytes(), "[nesting] Error: ");
    }
}

#[test]
fn long_sequential_code_is_not_nesting() {
    // A braceless chain of 3,000 statements nests 3,000 lambdas (more than
    // the bracket limit), but only brackets are limited: it parses, resolves
    // and runs. (The reference reducer copies the rest of the chain at each
    // step, so it is quadratic here; long programs are the graph machine's.)
    let mut src = String::new();
    for i in 0..3_000 {
        src.push_str(&format!("\"{i}\" (x{i})\n"));
    }
    src.push_str("$exit x2999\n");
    let (code, err) = run_bytes("chain.dcps", src.as_bytes());
    assert_eq!(code, 0, "{err}");
}

#[test]
fn a_long_expression_chain() {
    // 100,000 additions in one expression string: parsed, evaluated and
    // dropped without deep recursion on the binary's stack.
    let src = format!("\"{}1\" (x) $exit x", "1+".repeat(100_000));
    let (code, out, _) = run_file("chain_expr.dcps", src.as_bytes());
    assert_eq!((code, out.as_str()), (0, "100001\n"));
}

#[test]
fn out_of_range_literals_read_the_same_everywhere() {
    let message = |text: &str| {
        let (code, err) = run_bytes("range.dcps", text.as_bytes());
        assert_eq!(code, 2, "{err}");
        let headline = err.lines().next().unwrap_or_default();
        let headline = headline.split(" (").next().unwrap_or_default().to_string();
        let label = err
            .lines()
            .find(|l| l.contains("╰"))
            .map(|l| l.rsplit("─ ").next().unwrap_or_default().to_string());
        (headline, label)
    };
    for (lit, expr) in [
        ("$exit 9223372036854775808", "\"9223372036854775808\" (x) $exit x"),
        ("$exit -9223372036854775809", "\"-9223372036854775809\" (x) $exit x"),
        ("$exit 1e400", "\"1e400\" (x) $exit x"),
    ] {
        assert_eq!(message(lit), message(expr), "{lit} / {expr}");
    }
}

#[test]
fn misspelt_keywords_and_names_are_suggested() {
    rejects("lett.dcps", b"lett x = 5\n$exit x", "unknown keyword `lett`; did you mean `let`?");
    rejects(
        "fx.dcps",
        b"fx f = (x) { $exit x }\nf 1",
        "unknown keyword `fx`; did you mean `fix`?",
    );
    rejects(
        "doubel.dcps",
        b"let double(x, k) { k x }\ndoubel 4 (r) $exit r",
        "did you mean `double`?",
    );
    rejects(
        "iff.dcps",
        b"iff true () { $exit 1 } () { $exit 2 }",
        "did you mean the keyword `if`?",
    );
    // Nothing near: no suggestion.
    let (_, err) = run_bytes("far.dcps", b"let double(x, k) { k x }\ntotal 4 (r) $exit r");
    assert!(!err.contains("did you mean"), "{err}");
}

#[test]
fn unbound_names_past_the_twentieth_are_counted() {
    let names: Vec<String> = (1..=25).map(|i| format!("a{i}")).collect();
    let text = format!("$exit [{}]\n", names.join(", "));
    let (code, err) = run_bytes("many_unbound.dcps", text.as_bytes());
    assert_eq!(code, 2, "{err}");
    assert_eq!(err.matches("[unbound] Error: ").count(), 20, "{err}");
    assert!(err.contains("unbound name `a20`") && !err.contains("`a21`"), "{err}");
    assert!(err.contains("Note: and 5 more errors, not shown"), "{err}");
    // Twenty exactly: nothing more to count.
    let text = format!("$exit [{}]\n", names[..20].join(", "));
    let (_, err) = run_bytes("twenty_unbound.dcps", text.as_bytes());
    assert_eq!(err.matches("[unbound] Error: ").count(), 20, "{err}");
    assert!(!err.contains("more error"), "{err}");
}
