//! The command line, driven in-process through `deepcps::main_with`: what
//! goes to stdout and stderr, and the exit codes (0 result, 1 runtime error,
//! 2 usage/parse/static error, 3 limit).

use deepcps_tests::deepcps;

fn temp_file(name: &str, bytes: &[u8]) -> String {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli");
    std::fs::create_dir_all(&dir).expect("temp dir");
    let p = dir.join(name);
    std::fs::write(&p, bytes).expect("write temp file");
    p.display().to_string()
}

#[test]
fn run_prints_the_papers_residual() {
    let r = deepcps(&["run", "corpus/paper/arith_built.dcps"]);
    assert_eq!(r.code, 0, "{}", r.err);
    assert_eq!(
        r.out,
        "(exit)[pt] {\n  @pt: \"4*2\" (prod)[pt]\n  @pt: \"1+prod\" (sum)[pt]\n  @pt: \"sum+3\" (sum)[pt]\n  @pt: exit sum\n}\n"
    );
    assert_eq!(r.err, "");
}

#[test]
fn stats_go_to_stderr() {
    let r = deepcps(&["run", "--stats", "corpus/paper/arith_immediate.dcps"]);
    assert_eq!((r.code, r.out.as_str()), (0, "12\n"));
    assert!(r.err.starts_with("steps: 68 (beta 49, expr 17, if 0, fix 1, exit 1)"), "{}", r.err);
}

#[test]
fn runtime_error_exits_1() {
    let r = deepcps(&["run", "corpus/err/runtime_division_by_zero.dcps"]);
    assert_eq!(r.code, 1);
    assert_eq!(r.out, "");
    assert!(r.err.contains("[division-by-zero] Error: division by zero in 10 / 0"), "{}", r.err);
}

#[test]
fn parse_and_static_errors_exit_2() {
    for f in [
        "corpus/err/syntax_unbalanced.dcps",
        "corpus/err/static_unbound.dcps",
        "corpus/err/static_include_cycle.dcps",
    ] {
        let r = deepcps(&["run", f]);
        assert_eq!(r.code, 2, "{f}: {}", r.err);
        assert!(
            r.err.contains(f.trim_start_matches("corpus/err/")) || r.err.contains("corpus/err/"),
            "{f}: {}",
            r.err
        );
    }
    let r = deepcps(&["check", "corpus/err/static_unbound.dcps"]);
    assert_eq!(r.code, 2);
}

#[test]
fn step_limit_exits_3_and_says_so() {
    let r = deepcps(&["run", "--max-steps", "10", "corpus/paper/arith_built.dcps"]);
    assert_eq!(r.code, 3);
    assert!(r.err.contains("step limit reached: 10 steps executed"), "{}", r.err);
    assert!(r.err.contains("steps: 10 ("), "{}", r.err);
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(deepcps(&["frobnicate"]).code, 2);
    assert_eq!(deepcps(&["run"]).code, 2);
    assert_eq!(deepcps(&["run", "--max-steps", "many", "x.dcps"]).code, 2);
    let r = deepcps(&["run", "no/such/file.dcps"]);
    assert_eq!(r.code, 2);
    assert!(r.err.contains("cannot read `no/such/file.dcps`"), "{}", r.err);
}

#[test]
fn check_accepts_every_paper_program() {
    for f in ["arith_built", "arith_ast", "arith_env", "matrix_chain", "arith_simplebuild"] {
        let r = deepcps(&["check", &format!("corpus/paper/{f}.dcps")]);
        assert_eq!(r.code, 0, "{f}: {}", r.err);
        assert!(r.out.ends_with(": ok\n"));
    }
}

#[test]
fn fmt_is_canonical_and_idempotent() {
    let src = "let f(x,k){k x}\n'@always:' f 1 (r)\n$exit r\n";
    let p = temp_file("fmt.dcps", src.as_bytes());
    let r = deepcps(&["fmt", &p]);
    assert_eq!(r.code, 0, "{}", r.err);
    // An explicit `@always:` differs from natural staging inside a `let`: kept.
    assert_eq!(r.out, "let f(x, k) {\n  k x\n}\n@always: f 1 (r)\n$exit r\n");
    assert_eq!(deepcps(&["fmt", "--check", &p]).code, 1);
    let q = temp_file("fmt2.dcps", r.out.as_bytes());
    assert_eq!(deepcps(&["fmt", "--check", &q]).code, 0);
}

#[test]
fn fmt_formats_a_library_of_definitions() {
    let r = deepcps(&["fmt", "--drop-comments", "corpus/paper/builders.dcps"]);
    assert_eq!(r.code, 0, "{}", r.err);
    assert!(
        r.out
            .starts_with("let push(S, v, return) {\n  return [v, S]\n}\nlet pop(S, return) {\n"),
        "{}",
        r.out
    );
    assert!(r.out.contains("fix for(!args, startval, endval, body, endfor) {\n"), "{}", r.out);
    let p = temp_file("lib_fmt.dcps", r.out.as_bytes());
    assert_eq!(deepcps(&["fmt", "--check", &p]).code, 0, "formatting is idempotent");
}

#[test]
fn fmt_keeps_comments_in_place() {
    let src = "// expect: exit 2\n// max-steps: 100\n\nlet f(x,k){ // the body:\n    /* double */ \"2*x\" (y)\n k y}\n\n// run it\nf 1 (r) $exit r // done\n";
    let p = temp_file("fmt_comments.dcps", src.as_bytes());
    let r = deepcps(&["fmt", &p]);
    assert_eq!(r.code, 0, "{}", r.err);
    assert_eq!(
        r.out,
        "// expect: exit 2\n// max-steps: 100\n\nlet f(x, k) { // the body:\n  /* double */\n  \"2*x\" (y)\n  k y\n}\n\n// run it\nf 1 (r)\n$exit r // done\n"
    );
    let q = temp_file("fmt_comments2.dcps", r.out.as_bytes());
    assert_eq!(deepcps(&["fmt", "--check", &q]).code, 0, "formatting is idempotent");
    // Every corpus file has comments; fmt formats it.
    let r = deepcps(&["fmt", "corpus/paper/builders.dcps"]);
    assert_eq!(r.code, 0, "{}", r.err);
    assert!(r.out.contains("(Snext, Tlambda) //endfor\n"), "{}", r.out);
}

#[test]
fn fmt_check_names_the_command_that_fixes_the_file() {
    let p = temp_file("fmt_check.dcps", b"// a program\nf  x\n");
    let r = deepcps(&["fmt", "--check", &p]);
    assert_eq!((r.code, r.out.as_str()), (1, ""));
    assert_eq!(r.err, format!("{p}: not in canonical form (run `deepcps fmt --write {p}`)\n"));
    // The command named does fix it.
    let w = deepcps(&["fmt", "--write", &p]);
    assert_eq!((w.code, w.out.as_str(), w.err.as_str()), (0, "", ""));
    assert_eq!(deepcps(&["fmt", "--check", &p]).code, 0);
    // Checked without its comments, the file is not canonical; the command
    // named, with the same flags, makes it so.
    let r = deepcps(&["fmt", "--check", "--drop-comments", &p]);
    assert_eq!((r.code, r.out.as_str()), (1, ""));
    let fix = format!("deepcps fmt --write --drop-comments {p}");
    assert_eq!(r.err, format!("{p}: not in canonical form (run `{fix}`)\n"));
    let args: Vec<&str> = fix.split(' ').skip(1).collect();
    assert_eq!(deepcps(&args).code, 0);
    assert_eq!(deepcps(&["fmt", "--check", "--drop-comments", &p]).code, 0);
}

#[test]
fn fmt_write_formats_the_file_in_place() {
    let src = "// keep me\nlet f(x,k){k x}\nf 1 (r) $exit r\n";
    let p = temp_file("fmt_write.dcps", src.as_bytes());
    let printed = deepcps(&["fmt", &p]).out;
    let r = deepcps(&["fmt", "--write", &p]);
    assert_eq!((r.code, r.out.as_str(), r.err.as_str()), (0, "", ""));
    let written = std::fs::read_to_string(&p).expect("read back");
    assert_eq!(written, printed);
    assert_eq!(written, "// keep me\nlet f(x, k) {\n  k x\n}\nf 1 (r)\n$exit r\n");
    // Writing a canonical file changes nothing.
    assert_eq!(deepcps(&["fmt", "--write", &p]).code, 0);
    assert_eq!(std::fs::read_to_string(&p).expect("read back"), written);
    // A file that does not parse is left as it is.
    let bad = temp_file("fmt_write_bad.dcps", b"// broken\nf (x\n");
    let r = deepcps(&["fmt", "--write", &bad]);
    assert_eq!(r.code, 2, "{}", r.err);
    assert_eq!(std::fs::read_to_string(&bad).expect("read back"), "// broken\nf (x\n");
    // Not both checked and written.
    let r = deepcps(&["fmt", "--write", "--check", &p]);
    assert_eq!(r.code, 2, "{}", r.err);
    assert!(r.err.contains("cannot be used with"), "{}", r.err);
    assert_eq!(std::fs::read_to_string(&p).expect("read back"), written);
    // Rewritten without its comments when asked to.
    let r = deepcps(&["fmt", "--write", "--drop-comments", &p]);
    assert_eq!((r.code, r.out.as_str(), r.err.as_str()), (0, "", ""));
    assert_eq!(
        std::fs::read_to_string(&p).expect("read back"),
        "let f(x, k) {\n  k x\n}\nf 1 (r)\n$exit r\n"
    );
}

#[test]
fn a_misspelt_directive_fails_test_and_is_a_warning_for_run() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli-directive");
    std::fs::create_dir_all(&dir).expect("temp dir");
    let p = dir.join("misspelt.dcps");
    std::fs::write(&p, "// A program.\n// expext: exit 42\n$exit 41\n").expect("write");
    let p = p.display().to_string();
    let t = deepcps(&["test", "--bless", &p]);
    assert_eq!(t.code, 1, "{}{}", t.out, t.err);
    assert_eq!(
        t.out,
        format!("FAIL {p}:2: unknown directive `expext`; did you mean `expect`?\n0 passed, 1 failed\n")
    );
    let r = deepcps(&["run", &p]);
    assert_eq!((r.code, r.out.as_str()), (0, "41\n"), "{}", r.err);
    assert!(
        r.err
            .contains("[directive] Warning: unknown directive `expext`; did you mean `expect`?"),
        "{}",
        r.err
    );
    assert!(r.err.contains(&format!("{p}:2:4")), "{}", r.err);
    // Spelt right, no warning.
    std::fs::write(&p, "// A program.\n// expect: exit 41\n$exit 41\n").expect("write");
    let r = deepcps(&["run", &p]);
    assert_eq!((r.code, r.out.as_str(), r.err.as_str()), (0, "41\n", ""));
}

#[test]
fn trace_prints_one_line_per_step() {
    let r = deepcps(&["run", "--trace", "--stats", "corpus/paper/arith_immediate.dcps"]);
    assert_eq!((r.code, r.out.as_str()), (0, "12\n"));
    let trace: Vec<&str> = r.err.lines().filter(|l| l.starts_with("[trace] ")).collect();
    assert_eq!(trace.len(), 68, "one line per step:\n{}", r.err);
    assert_eq!(trace[0], "[trace] 1 beta corpus/paper/builders.dcps:10:1");
    assert_eq!(trace[2], "[trace] 3 fix corpus/paper/builders.dcps:17:1");
    assert!(
        trace[67].starts_with("[trace] 68 exit corpus/paper/arith_immediate.dcps:"),
        "{}",
        trace[67]
    );
    assert!(r.err.contains("\nsteps: 68 (beta 49, expr 17, if 0, fix 1, exit 1)\n"), "{}", r.err);
    // The graph machine (the default) adds its own figures, then the
    // parallel driver's: a trace runs on one thread.
    let lines: Vec<&str> = r.err.lines().collect();
    let graph = lines[lines.len() - 2];
    assert!(graph.starts_with("graph: ") && graph.contains(" live nodes"), "{graph}");
    assert_eq!(lines[lines.len() - 1], "parallel: 1 thread, 0 rounds, 0 units, 0 steps in rounds");
}

#[test]
fn every_thread_count_prints_the_same_result_and_counts() {
    for file in [
        "corpus/paper/arith_built.dcps",
        "corpus/paper/matrix_chain.dcps",
        "corpus/err/runtime_arity.dcps",
    ] {
        let one = deepcps(&["run", "--stats", "--threads", "1", file]);
        for threads in [None, Some("2"), Some("8")] {
            let mut args = vec!["run", "--stats"];
            if let Some(n) = threads {
                args.extend(["--threads", n]);
            }
            args.push(file);
            let r = deepcps(&args);
            assert_eq!((r.code, &r.out), (one.code, &one.out), "{args:?}");
            let counts = |err: &str| err.lines().find(|l| l.starts_with("steps: ")).map(str::to_string);
            assert_eq!(counts(&r.err), counts(&one.err), "{args:?}");
            let par = r.err.lines().find(|l| l.starts_with("parallel: ")).unwrap_or_default().to_string();
            let n = threads.map_or_else(
                || std::thread::available_parallelism().map_or(1, |n| n.get()),
                |n| n.parse().expect("n"),
            );
            let want = if n == 1 {
                "parallel: 1 thread, ".to_string()
            } else {
                format!("parallel: {n} threads, ")
            };
            assert!(par.starts_with(&want), "{args:?}: {par}");
            assert!(par.contains(" rounds, ") && par.ends_with(" steps in rounds"), "{par}");
        }
    }
    // A step limit stops every thread count at the same step.
    for n in ["1", "2"] {
        let r = deepcps(&["run", "--threads", n, "--stop-after", "12", "corpus/paper/merge_staged.dcps"]);
        assert_eq!(r.code, 0, "{}", r.err);
        assert!(r.err.contains("stopped after 12 steps as asked"), "{}", r.err);
    }
}

#[test]
fn thread_counts_that_cannot_be_used_are_usage_errors() {
    let f = "corpus/paper/arith_immediate.dcps";
    let cases: &[(&[&str], &str)] = &[
        (&["run", "--threads", "0", f], "the number of threads is at least 1"),
        (&["run", "--threads", "many", f], "`many` is not a number of threads"),
        (
            &["run", "--reference", "--threads", "2", f],
            "--threads 2 cannot be used with --reference",
        ),
        (&["run", "--trace", "--threads", "4", f], "--threads 4 cannot be used with --trace"),
        (&["bench", "--threads", "0", f], "the number of threads is at least 1"),
        (&["bench", "--jobs", "0", f], "the number of jobs is at least 1"),
        (&["test", "--threads", "0", f], "the number of threads is at least 1"),
        (&["debug", "--threads", "0", f], "the number of threads is at least 1"),
        (&["debug", "--snapshot-memory", "0", f], "the number of megabytes is at least 1"),
        (&["debug", "--snapshot-memory", "lots", f], "`lots` is not a number of megabytes"),
    ];
    for (args, words) in cases {
        let r = deepcps(args);
        assert_eq!(r.code, 2, "{args:?}: {}{}", r.out, r.err);
        assert!(r.err.contains(words), "{args:?}: {}", r.err);
        assert_eq!(r.out, "", "{args:?}");
    }
    // The oracle and a trace run on one thread: asking for one, or leaving
    // the default, is fine.
    for args in [
        &["run", "--reference", f][..],
        &["run", "--reference", "--threads", "1", f],
        &["run", "--trace", "--threads", "1", f],
    ] {
        let r = deepcps(args);
        assert_eq!((r.code, r.out.as_str()), (0, "12\n"), "{args:?}: {}", r.err);
    }
}

#[test]
fn time_limit_exits_3_and_says_so() {
    // An endless core-time loop, stopped by the clock rather than the step limit.
    let p = temp_file("forever.dcps", b"fix loop(k) { loop k } in\nloop $exit\n");
    let r = deepcps(&["run", "--timeout", "0.2", "--max-steps", "1000000000000", &p]);
    assert_eq!(r.code, 3, "{}", r.err);
    assert!(r.err.contains("time limit reached: 0.200 s spent"), "{}", r.err);
    assert_eq!(r.out, "");
    assert_eq!(deepcps(&["run", "--timeout", "soon", &p]).code, 2);
}

#[test]
fn stop_after_prints_the_term_as_it_stands() {
    // The paper's merge walkthrough: after 12 steps the two fragments are
    // merged (Step 3 of Figure staged_merge_run); the final `$exit` is pending.
    let r = deepcps(&["run", "--stop-after", "12", "corpus/paper/merge_staged.dcps"]);
    assert_eq!(r.code, 0, "{}", r.err);
    assert!(
        r.out
            .starts_with("$exit (code1, code2)\n@always: (F) {\n  $exit F\n} (next, return)\n@return: return (ct, pt, !args)\n"),
        "{}",
        r.out
    );
    assert!(
        r.out
            .contains("@ct: code1 pt !args (pt, !args2)[ct]\n@ct: code2 pt !args2 (pt, !args2)[ct]\n@next: next ct pt !args2\n"),
        "{}",
        r.out
    );
    assert!(r.err.contains("stopped after 12 steps as asked"), "{}", r.err);
    // A program that finishes earlier gives its ordinary result.
    let r = deepcps(&["run", "--stop-after", "1000", "corpus/paper/arith_immediate.dcps"]);
    assert_eq!((r.code, r.out.as_str(), r.err.as_str()), (0, "12\n", ""));
    // It replaces --max-steps; giving both is a usage error.
    assert_eq!(
        deepcps(&["run", "--stop-after", "3", "--max-steps", "5", "corpus/paper/arith_immediate.dcps"]).code,
        2
    );
}

#[test]
fn help_names_every_subcommand_and_wraps() {
    let r = deepcps(&["--help"]);
    assert_eq!(r.code, 0, "{}", r.err);
    assert!(
        r.out.starts_with("Run, debug, benchmark and snapshot-test DeepCPS programs"),
        "{}",
        r.out
    );
    for cmd in ["run", "check", "fmt", "dot", "debug", "bench", "chains", "dump", "test"] {
        assert!(
            r.out.lines().any(|l| l.trim_start().starts_with(&format!("{cmd} "))),
            "{cmd}: {}",
            r.out
        );
    }
    // Long lines wrap (to the terminal, or to 100 columns off a terminal).
    for args in [&["--help"][..], &["run", "--help"], &["bench", "--help"], &["debug", "--help"]] {
        let r = deepcps(args);
        let longest = r.out.lines().map(|l| l.chars().count()).max().unwrap_or(0);
        assert!(longest <= 100, "{args:?}: a line of {longest} characters:\n{}", r.out);
    }
}

#[test]
fn file_errors_take_the_form_of_every_diagnostic() {
    let cases: [(&[&str], &str); 5] = [
        (
            &["run", "no/such/file.dcps"],
            "[io] Error: cannot read `no/such/file.dcps`: no such file\n",
        ),
        (
            &["check", "no/such/file.dcps"],
            "[io] Error: cannot read `no/such/file.dcps`: no such file\n",
        ),
        (
            &["fmt", "no/such/file.dcps"],
            "[io] Error: cannot read `no/such/file.dcps`: no such file\n",
        ),
        (&["run", "corpus"], "[io] Error: cannot read `corpus`: it is a directory\n"),
        (&["fmt", "corpus"], "[io] Error: cannot read `corpus`: it is a directory\n"),
    ];
    for (args, want) in cases {
        let r = deepcps(args);
        assert_eq!((r.code, r.err.as_str()), (2, want), "{args:?}");
    }
}

#[test]
fn runtime_errors_show_their_call_sites_on_every_machine() {
    for flags in [&[][..], &["--threads", "2"], &["--threads", "1"], &["--reference"], &["--no-fast"]] {
        let mut args = vec!["run"];
        args.extend_from_slice(flags);
        args.push("corpus/err/runtime_call_site.dcps");
        let r = deepcps(&args);
        assert_eq!(r.code, 1, "{flags:?}: {}", r.err);
        for (line, label) in [
            (" 5 │ let quad(x, k) { double x (y) double y k }", "called from here"),
            (" 6 │ let go(v, k) { quad v k }", "which was called from here"),
            (" 7 │ go true (r) $exit r", "which was called from here"),
        ] {
            let at = r.err.find(line).unwrap_or_else(|| panic!("{flags:?}: no `{line}` in\n{}", r.err));
            assert!(r.err[at..].contains(label), "{flags:?}: {}", r.err);
        }
    }
}

#[test]
fn included_files_are_named_without_dot_dot() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli-dotdot");
    std::fs::create_dir_all(dir.join("app")).expect("temp dir");
    std::fs::create_dir_all(dir.join("lib")).expect("temp dir");
    std::fs::write(dir.join("lib/bad.dcps"), "let f(k) { k nowhere }\n").expect("write");
    std::fs::write(dir.join("app/main.dcps"), "include \"../lib/./bad.dcps\"\nf $exit\n").expect("write");
    let main = dir.join("app/main.dcps").display().to_string();
    let r = deepcps(&["run", &main]);
    assert_eq!(r.code, 2, "{}", r.err);
    let lib = dir.join("lib").join("bad.dcps").display().to_string();
    assert!(r.err.contains(&format!("({lib}:1:14)")), "{}", r.err);
    assert!(r.err.contains(&format!("─[ {lib}:1:14 ]")), "{}", r.err);
    assert!(!r.err.contains("/../") && !r.err.contains("/./"), "{}", r.err);
}

#[test]
fn check_accepts_a_library_and_checks_its_definitions() {
    let r = deepcps(&["check", "corpus/paper/builders.dcps"]);
    assert_eq!(r.code, 0, "{}", r.err);
    assert_eq!(r.out, "corpus/paper/builders.dcps: ok (a library of definitions)\n");
    // Its includes are followed.
    let r = deepcps(&["check", "corpus/paper/arith_stack_actions.dcps"]);
    assert_eq!((r.code, r.err.as_str()), (0, ""));
    assert!(r.out.ends_with(": ok (a library of definitions)\n"), "{}", r.out);
    // Its definitions get the static checks.
    let p = temp_file("bad_lib.dcps", b"let f(x, x) { g x }\nlet h(k) { k 1 }\n");
    let r = deepcps(&["check", &p]);
    assert_eq!(r.code, 2, "{}", r.out);
    assert!(r.err.contains("[duplicate] Error: "), "{}", r.err);
    assert!(r.err.contains("[unbound] Error: unbound name `g`"), "{}", r.err);
    // `run` still wants a main body, and says what the file is.
    let r = deepcps(&["run", "corpus/paper/builders.dcps"]);
    assert_eq!(r.code, 2);
    assert!(r.err.contains("[parse] Error: the program has no main body"), "{}", r.err);
    assert!(r.err.contains("checked with `deepcps check`"), "{}", r.err);
}

#[test]
fn a_file_without_a_program_says_so() {
    for (name, text, message, code) in [
        ("empty.dcps", "", "the file is empty", "check"),
        ("blank.dcps", "\n\n", "the file is empty", "run"),
        ("comments.dcps", "// nothing here\n", "the file holds no code, only comments", "run"),
    ] {
        let p = temp_file(name, text.as_bytes());
        for cmd in ["run", code] {
            let r = deepcps(&[cmd, &p]);
            assert_eq!(r.code, 2, "{name}: {}", r.out);
            assert!(r.err.starts_with(&format!("[parse] Error: {message} ({p}:")), "{name}: {}", r.err);
            assert!(!r.err.contains("after the definitions"), "{name}: {}", r.err);
        }
    }
}

#[test]
fn a_misspelt_subcommand_gets_a_suggestion() {
    for (typed, meant) in [("rn", "run"), ("chek", "check"), ("dumb", "dump"), ("fmr", "fmt")] {
        let r = deepcps(&[typed, "corpus/paper/arith_built.dcps"]);
        assert_eq!(r.code, 2, "{typed}");
        assert!(r.err.contains(&format!("unrecognized subcommand '{typed}'")), "{}", r.err);
        assert!(
            r.err.contains(&format!("a similar subcommand exists: '{meant}'")),
            "{typed}: {}",
            r.err
        );
    }
    let r = deepcps(&["frobnicate"]);
    assert!(!r.err.contains("similar"), "{}", r.err);
}

/// `deepcps ARGS..` in-process with `input` as standard input.
fn deepcps_with_input(args: &[&str], input: &str) -> (u8, String, String) {
    let mut argv: Vec<std::ffi::OsString> = vec!["deepcps".into()];
    argv.extend(args.iter().map(std::ffi::OsString::from));
    let (mut out, mut err) = (Vec::new(), Vec::new());
    std::env::set_current_dir(deepcps_tests::root()).expect("root");
    let code = deepcps::main_with_input(argv, &mut input.as_bytes(), &mut out, &mut err);
    (
        code,
        String::from_utf8_lossy(&out).into_owned(),
        String::from_utf8_lossy(&err).into_owned(),
    )
}

#[test]
fn a_dash_reads_the_program_from_standard_input() {
    let program = "include \"corpus/paper/builders.dcps\"\npush [] 6 (S)\npop S (v, S)\n\"v*7\" (r)\n$exit r\n";
    assert_eq!(deepcps_with_input(&["run", "-"], program), (0, "42\n".into(), String::new()));
    assert_eq!(
        deepcps_with_input(&["check", "-"], program),
        (0, "<stdin>: ok\n".into(), String::new())
    );
    // Diagnostics name it `<stdin>`, runtime errors with their call sites.
    let failing = "let f(x, k) { \"x/0\" (y) k y }\nf 1 (r)\n$exit r\n";
    let (code, out, err) = deepcps_with_input(&["run", "-"], failing);
    assert_eq!((code, out.as_str()), (1, ""), "{err}");
    assert!(
        err.starts_with("[division-by-zero] Error: division by zero in 1 / 0 (<stdin>:1:16)"),
        "{err}"
    );
    assert!(err.contains("─[ <stdin>:1:16 ]") && err.contains("called from here"), "{err}");
    let (code, _, err) = deepcps_with_input(&["run", "-"], "f x\n");
    assert_eq!(code, 2);
    assert!(err.contains("unbound name `f` (<stdin>:1:1)"), "{err}");
    // fmt prints it; --check names no file to rewrite; --write refuses.
    assert_eq!(
        deepcps_with_input(&["fmt", "-"], "f   x // a\n"),
        (0, "f x // a\n".into(), String::new())
    );
    let (code, _, err) = deepcps_with_input(&["fmt", "--check", "-"], "f   x\n");
    assert_eq!(
        (code, err.as_str()),
        (1, "<stdin>: not in canonical form (`deepcps fmt -` prints its canonical form)\n")
    );
    let (code, _, err) = deepcps_with_input(&["fmt", "--write", "-"], "f x\n");
    assert_eq!(code, 2);
    assert!(err.contains("--write cannot rewrite standard input"), "{err}");
    // The views read it too, and show what they show of the same program
    // in a file (its name in place of `<stdin>`).
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli-stdin");
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("main.dcps");
    // The include by an absolute path: a file's includes are relative to
    // its folder, standard input's to the current one.
    let builders = deepcps_tests::root().join("corpus/paper/builders.dcps");
    let program = program.replace("corpus/paper/builders.dcps", &builders.display().to_string());
    let program = program.as_str();
    std::fs::write(&file, program).expect("write");
    let file = file.display().to_string();
    for view in [
        &["dot"][..],
        &["dot", "--staging"],
        &["chains", "--step", "5"],
        &["dump"],
        &["dump", "--step", "3"],
    ] {
        let (code, out, err) = deepcps_with_input(&[view, &[file.as_str()]].concat(), "");
        assert_eq!(code, 0, "{view:?}: {err}");
        assert!(out.contains(&file) || !out.contains("<stdin>"), "{view:?}");
        let on_file = (code, out.replace(&file, "<stdin>"), err.replace(&file, "<stdin>"));
        let on_stdin = deepcps_with_input(&[view, &["-"]].concat(), program);
        assert!(!on_stdin.1.is_empty(), "{view:?} printed nothing");
        assert_eq!(on_stdin, on_file, "{view:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
    let (code, _, err) = deepcps_with_input(&["dump", "-"], "f x\n");
    assert_eq!(code, 2);
    assert!(err.contains("unbound name `f` (<stdin>:1:1)"), "{err}");
}

#[test]
fn every_value_has_a_placeholder_of_its_kind() {
    // A value placeholder names the kind of value (`<N>`, `<SECONDS>`), not
    // the flag it belongs to (clap's default, `--timeout <TIMEOUT>`).
    let commands = ["run", "check", "fmt", "dot", "debug", "bench", "compile", "chains", "dump", "test"];
    let mut placeholders = std::collections::BTreeSet::new();
    for cmd in commands {
        let r = deepcps(&["help", cmd]);
        assert_eq!(r.code, 0, "{cmd}: {}", r.err);
        for line in r.out.lines() {
            let line = line.trim_start();
            let Some(flag) = line.split_whitespace().find(|w| w.starts_with("--")) else {
                continue;
            };
            if !line.starts_with('-') {
                continue;
            }
            let Some(value) = line.split_whitespace().find(|w| w.starts_with('<')) else {
                continue;
            };
            let own = format!(
                "<{}>",
                flag.trim_start_matches('-').trim_end_matches(',').to_uppercase().replace('-', "_")
            );
            // `--cc <CC>` is a C compiler, named as make names it.
            if flag != "--cc" {
                assert_ne!(value, own, "{cmd}: `{line}`");
            }
            placeholders.insert(value.to_string());
        }
    }
    for kind in ["<N>", "<SECONDS>"] {
        assert!(placeholders.contains(kind), "{placeholders:?}");
    }
    for (cmd, flag) in [("run", "--timeout"), ("compile", "--timeout"), ("bench", "--timeout")] {
        let r = deepcps(&["help", cmd]);
        assert!(r.out.contains(&format!("{flag} <SECONDS>")), "{cmd}: {}", r.out);
    }
    let r = deepcps(&["help", "dump"]);
    assert!(r.out.contains("--max-steps <N>"), "{}", r.out);
}

#[test]
fn the_keys_the_debug_help_names_do_what_it_says() {
    // Each key named in `deepcps help debug` is followed by what it does,
    // in the words of the debugger's own help for that key.
    let help = deepcps(&["help", "debug"]).out.split_whitespace().collect::<Vec<_>>().join(" ");
    let pieces: Vec<&str> = help.split('`').collect();
    let mut named = 0;
    for k in (1..pieces.len()).step_by(2) {
        let key = pieces[k];
        if key.chars().count() != 1 {
            continue;
        }
        let what = pieces
            .get(k + 1)
            .and_then(|after| after.strip_prefix(" ("))
            .and_then(|after| after.split(')').next())
            .unwrap_or_else(|| panic!("`{key}` without what it does: {help}"));
        let entry = deepcps::debug::keys::entries()
            .find(|e| e.keys.split([' ', ',']).any(|k| k == key))
            .unwrap_or_else(|| panic!("`{key}` is no key of the debugger"));
        assert_eq!(entry.what, what, "`{key}`");
        named += 1;
    }
    assert!(named >= 1, "{help}");
}

/// The paper's builders on 1+2+..+n, as `scripts/builders-bench.sh` writes
/// them, in a temporary file.
fn builders_file(n: u64) -> String {
    let lib = deepcps_tests::root().join("corpus/paper/arith_stack_actions.dcps");
    let mut src = format!("include \"{}\"\nstart (F)\n", lib.display());
    for i in 1..=n {
        src.push_str(&format!("number F {i} (F)\n"));
        if i > 1 {
            src.push_str("add F (F)\n");
        }
    }
    src.push_str("end F (program)\nprogram $exit\n");
    temp_file(&format!("builders_{n}.dcps"), src.as_bytes())
}

#[test]
fn staged_code_is_handed_over_to_the_engine_with_the_same_result() {
    // 77,026 steps: the first window (8,192) gets no fast runs.
    let p = builders_file(1000);
    let handed = deepcps(&["run", "--stats", &p]);
    assert_eq!((handed.code, handed.out.as_str()), (0, "500500\n"), "{}", handed.err);
    assert!(handed.err.contains("engine: took over after step 8192\n"), "{}", handed.err);
    // The engine's line: what it holds at the end and at its peak.
    let engine = handed
        .err
        .lines()
        .find(|l| l.starts_with("engine: ") && l.contains(" live nodes, at most "));
    let peak = engine.and_then(|l| l.split(" at most ").nth(1)?.split(' ').next()?.parse::<u64>().ok());
    assert!(peak.is_some_and(|p| p > 1000), "{}", handed.err);
    // The loop `for` inside `build` is shared after the hand-over, as it
    // is from the source: the actions' lambdas are copied from templates,
    // not walked one by one (about 1,700 walks when `for` was written out
    // inside `build`).
    let walks = |err: &str| {
        err.lines()
            .find_map(|l| l.strip_prefix("lambdas: "))
            .and_then(|l| l.split(", ").nth(2)?.split(' ').next()?.parse::<u64>().ok())
    };
    let alone = deepcps(&["run", "--stats", "--engine", &p]);
    assert_eq!((alone.code, alone.out.as_str()), (0, "500500\n"), "{}", alone.err);
    assert!(walks(&alone.err).is_some_and(|w| w < 100), "{}", alone.err);
    assert!(walks(&handed.err).is_some_and(|w| w < 100), "{}", handed.err);
    let kept = deepcps(&["run", "--stats", "--no-handover", &p]);
    assert_eq!((kept.code, kept.out.as_str()), (0, "500500\n"), "{}", kept.err);
    assert!(!kept.err.contains("engine:"), "{}", kept.err);
    let steps = |err: &str| err.lines().find(|l| l.starts_with("steps: ")).map(str::to_string);
    assert_eq!(steps(&handed.err), steps(&kept.err));
    assert_eq!(
        steps(&handed.err).as_deref(),
        Some("steps: 77026 (beta 56023, expr 17000, if 4001, fix 1, exit 1)")
    );
    // Plain loops stay in fast runs on the graph.
    let r = deepcps(&["run", "--stats", "corpus/bench/loop_sum.dcps"]);
    assert_eq!(r.code, 0, "{}", r.err);
    assert!(!r.err.contains("engine:"), "{}", r.err);
}

#[test]
fn a_time_limit_after_the_hand_over_is_the_one_asked_for() {
    // About 2.3 million steps: the hand-over comes well before the limit.
    let p = builders_file(30_000);
    let r = deepcps(&["run", "--stats", "--timeout", "1.5", &p]);
    assert_eq!(r.code, 3, "{}", r.err);
    assert!(r.err.contains("time limit reached: 1.500 s spent"), "{}", r.err);
    assert!(r.err.contains("engine: took over after step"), "{}", r.err);
    assert_eq!(r.out, "");
}
