//! The README's examples are real: every fenced block that starts with
//! `$ deepcps ...` is run in-process and its output (stdout, then stderr)
//! must be what the README shows (but `deepcps debug`, which takes the
//! terminal). A block introduced as "first lines" only has to be a prefix
//! of the output. A block that starts with `$ target/NAME` runs the
//! executable an earlier `deepcps compile` wrote there. Every command calls
//! `deepcps` by that name. The results that corpus/README.md shows are
//! checked against the programs too.

use std::ffi::OsString;

use deepcps_tests::root;

struct Example {
    /// An executable of `target/` instead of `deepcps`.
    program: Option<String>,
    args: Vec<String>,
    expected: String,
    abridged: bool,
}

fn examples(text: &str) -> Vec<Example> {
    let mut out = Vec::new();
    let mut lines = text.lines().peekable();
    let mut previous = "";
    while let Some(line) = lines.next() {
        if line == "```" {
            let next = lines.peek().copied().unwrap_or_default();
            let command = match next.strip_prefix("$ deepcps ").filter(|cmd| !cmd.starts_with("debug ")) {
                Some(cmd) => Some((None, cmd)),
                None => next.strip_prefix("$ target/").map(|exe| (Some(format!("target/{exe}")), "")),
            };
            if let Some((program, cmd)) = command {
                let args = cmd.split_whitespace().map(str::to_string).collect();
                lines.next();
                let mut expected = String::new();
                for l in lines.by_ref() {
                    if l == "```" {
                        break;
                    }
                    expected.push_str(l);
                    expected.push('\n');
                }
                out.push(Example {
                    program,
                    args,
                    expected,
                    abridged: previous.contains("first lines"),
                });
                continue;
            }
        }
        if !line.trim().is_empty() {
            previous = line;
        }
    }
    out
}

#[test]
fn readme_commands_call_deepcps_by_name() {
    let text = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let mut in_block = false;
    let mut commands = 0;
    for line in text.lines() {
        if line.starts_with("```") {
            in_block = !in_block;
            continue;
        }
        let command = line.strip_prefix("$ ").or_else(|| line.strip_prefix("       <("));
        if let (true, Some(command)) = (in_block, command) {
            for word in command.split(|c: char| c.is_whitespace() || c == '(') {
                assert!(!word.ends_with("/deepcps"), "`{line}`: the README calls the binary `deepcps`");
            }
            commands += usize::from(command.contains("deepcps "));
        }
    }
    assert!(commands >= 15, "only {commands} commands");
}

#[test]
fn readme_examples_print_what_the_readme_shows() {
    let base = root();
    std::env::set_current_dir(&base).expect("root");
    let text = std::fs::read_to_string(base.join("README.md")).expect("README.md");
    let examples = examples(&text);
    assert!(examples.len() >= 8, "found only {} examples", examples.len());
    for ex in examples {
        if let Some(exe) = &ex.program {
            let ran = std::process::Command::new(base.join(exe)).output().expect("a compiled example");
            let mut got = String::from_utf8_lossy(&ran.stdout).into_owned();
            got.push_str(&String::from_utf8_lossy(&ran.stderr));
            assert_eq!(got, ex.expected, "{exe}");
            continue;
        }
        let mut argv: Vec<OsString> = vec!["deepcps".into()];
        argv.extend(ex.args.iter().map(OsString::from));
        let (mut out, mut err) = (Vec::new(), Vec::new());
        deepcps::main_with(argv, &mut out, &mut err);
        out.extend(err);
        let got = String::from_utf8_lossy(&out).into_owned();
        if ex.abridged {
            assert!(
                got.starts_with(&ex.expected),
                "deepcps {}: output does not start with the README's lines",
                ex.args.join(" ")
            );
        } else {
            assert_eq!(got, ex.expected, "deepcps {}", ex.args.join(" "));
        }
    }
}

/// The corpus program `name` (`NAME.dcps`), found under `corpus/`.
fn corpus_program(name: &str) -> String {
    ["paper", "bench", "compile", "err"]
        .iter()
        .map(|dir| format!("corpus/{dir}/{name}"))
        .find(|p| root().join(p).is_file())
        .unwrap_or_else(|| panic!("corpus/README.md names `{name}`, which is not in the corpus"))
}

#[test]
fn corpus_readme_shows_what_the_programs_print() {
    // A program's paragraph (`**`NAME.dcps`**: ..` or `- `NAME.dcps`: ..`)
    // followed by a block shows what `deepcps run` prints: all of it, its
    // first lines ("It begins:"), or its first and last lines around a
    // `...` line. "Exits with `V`" gives a printed value.
    let text = std::fs::read_to_string(root().join("corpus/README.md")).expect("corpus/README.md");
    let mut lines = text.lines();
    let (mut name, mut paragraph) = (None::<String>, String::new());
    let mut checked = 0;
    let run = |name: &str| {
        let path = corpus_program(name);
        let r = deepcps_tests::deepcps(&["run", &path]);
        assert_eq!(r.code, 0, "{path}: {}", r.err);
        r.out
    };
    while let Some(line) = lines.next() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        if trimmed.starts_with("```") {
            let mut block = String::new();
            for l in lines.by_ref() {
                if l.trim_start().starts_with("```") {
                    break;
                }
                block.push_str(l.get(indent..).unwrap_or(l.trim_start()));
                block.push('\n');
            }
            let Some(name) = name.take() else { continue };
            let out = run(&name);
            match block.split_once("...\n") {
                Some((head, tail)) => {
                    let head = head.trim_end_matches(' ');
                    assert!(out.starts_with(head) && out.ends_with(tail), "{name}:\n{out}");
                }
                None if paragraph.contains("It begins:") => assert!(out.starts_with(&block), "{name}:\n{out}"),
                None => assert_eq!(out, block, "{name}"),
            }
            checked += 1;
            continue;
        }
        let named = trimmed
            .strip_prefix("**`")
            .or_else(|| trimmed.strip_prefix("- `"))
            .and_then(|r| r.split('`').next())
            .filter(|n| n.ends_with(".dcps"));
        if let Some(n) = named {
            if let Some(done) = name.replace(n.to_string()) {
                exits_with(&done, &paragraph, &run, &mut checked);
            }
            paragraph.clear();
        } else if trimmed.starts_with('#') {
            if let Some(done) = name.take() {
                exits_with(&done, &paragraph, &run, &mut checked);
            }
            paragraph.clear();
        }
        paragraph.push_str(trimmed);
        paragraph.push(' ');
    }
    assert!(checked >= 10, "only {checked} results checked");
}

/// Checks "Exits with `V`" in the paragraph of program `name`, where `V`
/// is a value rather than a formula.
fn exits_with(name: &str, paragraph: &str, run: &dyn Fn(&str) -> String, checked: &mut usize) {
    let Some(value) = paragraph.split("Exits with `").nth(1).and_then(|r| r.split('`').next()) else {
        return;
    };
    if value.chars().all(|c| c.is_ascii_digit() || "[], -.truefals".contains(c)) {
        assert_eq!(run(name), format!("{value}\n"), "{name}");
        *checked += 1;
    }
}
