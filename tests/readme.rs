//! The README's examples are real: every fenced block that starts with
//! `$ target/release/deepcps ...` is run in-process and its output (stdout,
//! then stderr) must be what the README shows. A block introduced as "first
//! lines" only has to be a prefix of the output.

use std::ffi::OsString;

use deepcps_tests::root;

struct Example {
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
            if let Some(cmd) = lines.peek().and_then(|l| l.strip_prefix("$ target/release/deepcps ")) {
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
