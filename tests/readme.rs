//! The README's examples are real: every fenced block that starts with
//! `$ target/release/deepcps ...` is run in-process and its output (stdout,
//! then stderr) must be what the README shows. A block introduced as "first
//! lines" only has to be a prefix of the output. A block that starts with
//! `$ target/NAME` runs the executable an earlier `deepcps compile` wrote
//! there.

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
            let command = match next.strip_prefix("$ target/release/deepcps ") {
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
