//! The examples of LANGUAGE.md are real: each is run by the binary
//! (`deepcps run`, in-process) and must print what the text says.
//!
//! - A program block followed by prose that is (or ends with) "prints",
//!   and another block: the program prints exactly that block on stdout.
//! - A program block followed by "prints `V`": the program prints `V`.
//! - A program block followed by "stderr:", a block, "stdout:" and a block:
//!   the program, in the file the prose before it names (`NAME.dcps`),
//!   prints those on stderr and stdout.
//! - A program block followed by "`deepcps run FLAGS` prints to stderr and
//!   exits with code N:" and a block: so it does, with nothing on stdout.
//! - A block that starts with `$ deepcps ARGS`: run from the repository
//!   root, it prints the rest of the block (stdout, then stderr).
//! - Prose "With `a.dcps` and `b.dcps`:" followed by a block for each
//!   gives files: they are written to a directory, where the programs of
//!   the examples after them run (the includes of section 7).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use deepcps_tests::root;

/// A line of prose, or the text of a fenced block.
#[derive(Debug)]
enum Part {
    Prose(String),
    Block(String),
}

/// The parts of `text`: its fenced blocks and its non-blank prose lines.
fn parts(text: &str) -> Vec<Part> {
    let mut out = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.starts_with("```") {
            let mut code = String::new();
            for l in lines.by_ref() {
                if l.starts_with("```") {
                    break;
                }
                code.push_str(l);
                code.push('\n');
            }
            out.push(Part::Block(code));
        } else if !line.trim().is_empty() {
            out.push(Part::Prose(line.trim().to_string()));
        }
    }
    out
}

/// What one in-process run gave: exit code, stdout, stderr.
struct Ran {
    code: u8,
    out: String,
    err: String,
}

/// `deepcps ARGS..` from the repository root.
fn deepcps(args: &[&str]) -> Ran {
    let mut argv: Vec<OsString> = vec!["deepcps".into()];
    argv.extend(args.iter().map(OsString::from));
    let (mut out, mut err) = (Vec::new(), Vec::new());
    std::env::set_current_dir(root()).expect("root");
    let code = deepcps::main_with_input(argv, &mut std::io::empty(), &mut out, &mut err);
    Ran {
        code,
        out: String::from_utf8_lossy(&out).into_owned(),
        err: String::from_utf8_lossy(&err).into_owned(),
    }
}

/// A fresh directory for the examples.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("language-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// Runs `program`, written as `dir/name`, with `flags`; the file's
/// directory is taken out of what it prints.
fn run(dir: &Path, name: &str, program: &str, flags: &[&str]) -> Ran {
    let path = dir.join(name);
    std::fs::write(&path, program).expect("write the example");
    let shown = path.display().to_string();
    let mut args = vec!["run"];
    args.extend_from_slice(flags);
    args.push(&shown);
    let ran = deepcps(&args);
    let prefix = format!("{}/", dir.display());
    Ran {
        err: ran.err.replace(&prefix, ""),
        ..ran
    }
}

/// The backquoted words of `prose`.
fn quoted(prose: &str) -> Vec<&str> {
    prose.split('`').skip(1).step_by(2).collect()
}

/// The prose lines from `parts[i]` up to the next block, joined.
fn prose_from(parts: &[Part], i: usize) -> String {
    let mut words = Vec::new();
    for p in &parts[i..] {
        match p {
            Part::Prose(l) => words.push(l.as_str()),
            Part::Block(_) => break,
        }
    }
    words.join(" ")
}

/// The block at `parts[i]`, if there is one.
fn block(parts: &[Part], i: usize) -> Option<&str> {
    match parts.get(i) {
        Some(Part::Block(b)) => Some(b),
        _ => None,
    }
}

#[test]
fn language_reference_examples_print_what_they_say() {
    let text = std::fs::read_to_string(root().join("LANGUAGE.md")).expect("LANGUAGE.md");
    let parts = parts(&text);
    let dir = temp_dir("examples");
    let mut checked = 0;
    let mut i = 0;
    while i < parts.len() {
        let Part::Block(program) = &parts[i] else {
            // Files for the examples that follow.
            if let Part::Prose(line) = &parts[i] {
                let names: Vec<&str> = quoted(line).into_iter().filter(|w| w.ends_with(".dcps")).collect();
                if line.starts_with("With `") && line.ends_with(':') && !names.is_empty() {
                    for (k, name) in names.iter().enumerate() {
                        let text = block(&parts, i + 1 + k).unwrap_or_else(|| panic!("no block for `{name}`"));
                        let path = dir.join(name);
                        std::fs::create_dir_all(path.parent().expect("a directory")).expect("directory");
                        std::fs::write(path, text).expect("write");
                    }
                    i += 1 + names.len();
                    continue;
                }
            }
            i += 1;
            continue;
        };
        // A command of the binary, with its output.
        if let Some(command) = program.strip_prefix("$ deepcps ") {
            let (line, expected) = command.split_once('\n').unwrap_or((command, ""));
            let args: Vec<&str> = line.split_whitespace().collect();
            let ran = deepcps(&args);
            assert_eq!(format!("{}{}", ran.out, ran.err), expected, "LANGUAGE.md: deepcps {line}");
            checked += 1;
            i += 1;
            continue;
        }
        let after = prose_from(&parts, i + 1);
        let name = match &parts[..i] {
            [.., Part::Prose(before)] => quoted(before).into_iter().find(|w| w.ends_with(".dcps")),
            _ => None,
        };
        let name = name.unwrap_or("example.dcps");
        let context = format!("LANGUAGE.md example:\n{program}");
        if after == "prints" || after.ends_with(" prints") || (after.starts_with("prints (") && after.ends_with(')')) {
            let expected = block(&parts, i + 2).unwrap_or_else(|| panic!("no output block: {context}"));
            let ran = run(&dir, name, program, &[]);
            assert_eq!((ran.code, ran.out.as_str()), (0, expected), "{context}\n{}", ran.err);
            checked += 1;
        } else if let Some(rest) = after.strip_prefix("prints `") {
            let value = rest.split('`').next().unwrap_or_default();
            let ran = run(&dir, name, program, &[]);
            assert_eq!(
                (ran.code, ran.out.as_str()),
                (0, format!("{value}\n").as_str()),
                "{context}\n{}",
                ran.err
            );
            checked += 1;
        } else if after == "stderr:" {
            let err = block(&parts, i + 2).unwrap_or_else(|| panic!("no stderr block: {context}"));
            assert!(matches!(&parts[i + 3], Part::Prose(l) if l == "stdout:"), "{context}");
            let out = block(&parts, i + 4).unwrap_or_else(|| panic!("no stdout block: {context}"));
            let ran = run(&dir, name, program, &[]);
            assert_eq!((ran.err.as_str(), ran.out.as_str()), (err, out), "{context}");
            checked += 1;
        } else if let Some(flags) = after
            .strip_prefix("`deepcps run ")
            .and_then(|r| r.split_once("` prints to stderr and exits with code "))
        {
            let (flags, code) = flags;
            let code: u8 = code.trim_end_matches(':').parse().expect("an exit code");
            let err = block(&parts, i + 2).unwrap_or_else(|| panic!("no stderr block: {context}"));
            let flags: Vec<&str> = flags.split_whitespace().collect();
            let ran = run(&dir, name, program, &flags);
            assert_eq!((ran.code, ran.out.as_str(), ran.err.as_str()), (code, "", err), "{context}");
            checked += 1;
        }
        i += 1;
    }
    assert!(checked >= 25, "only {checked} examples found");
}

#[test]
fn an_include_only_a_library_should_see_is_an_unbound_name() {
    // Section 7: without its own `include "two.dcps"`, `three.dcps` does
    // not see `two`, though `two.dcps` is included before it.
    let text = std::fs::read_to_string(root().join("LANGUAGE.md")).expect("LANGUAGE.md");
    let section = text.split("## 7. Includes").nth(1).expect("section 7");
    let parts = parts(section);
    let at = parts
        .iter()
        .position(|p| matches!(p, Part::Prose(l) if l.starts_with("With `lib/common.dcps`")))
        .expect("the library files");
    let dir = temp_dir("includes");
    std::fs::create_dir_all(dir.join("lib")).expect("lib");
    for (k, name) in ["common", "two", "three"].into_iter().enumerate() {
        let file = block(&parts, at + 1 + k).expect("a library");
        let file = if name == "three" {
            assert!(file.contains("include \"two.dcps\"\n"), "{file}");
            file.replace("include \"two.dcps\"\n", "")
        } else {
            file.to_string()
        };
        std::fs::write(dir.join(format!("lib/{name}.dcps")), file).expect("write");
    }
    let program = block(&parts, at + 5).expect("the program");
    assert!(
        program.starts_with("include \"lib/two.dcps\"\ninclude \"lib/three.dcps\"\n"),
        "{program}"
    );
    let ran = run(&dir, "main.dcps", program, &[]);
    assert_eq!(ran.code, 2, "{}", ran.err);
    assert!(
        ran.err.starts_with("[unbound] Error: unbound name `two` (lib/three.dcps:2:"),
        "{}",
        ran.err
    );
}

#[test]
fn the_step_limits_are_those_the_reference_states() {
    // Section 5.1: `run` has none unless asked; `test`, `dump` and `bench`
    // stop at the number it gives.
    let text = std::fs::read_to_string(root().join("LANGUAGE.md")).expect("LANGUAGE.md");
    let section = text.split("### 5.1 ").nth(1).and_then(|s| s.split("### 5.2").next()).expect("5.1");
    let prose = section.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        prose.contains("`deepcps run` (and `compile`, which stages as `run` does) has no step limit unless `--max-steps N` gives one."),
        "{prose}"
    );
    let stated = prose
        .split("`deepcps test`, `dump` and `bench` stop after ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .expect("the default of test, dump and bench");
    for cmd in ["run", "compile"] {
        let help = deepcps(&["help", cmd]).out;
        let line = help.lines().find(|l| l.contains("--max-steps <N>")).expect("--max-steps");
        assert!(!line.contains("[default"), "{cmd}: {line}");
    }
    let run_help = deepcps(&["help", "run"]).out.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(run_help.contains("There is no step limit unless it is given"), "{run_help}");
    for cmd in ["dump", "bench"] {
        let help = deepcps(&["help", cmd]).out.split_whitespace().collect::<Vec<_>>().join(" ");
        let default = help
            .split("--max-steps <N>")
            .nth(1)
            .and_then(|r| r.split("[default: ").nth(1))
            .and_then(|r| r.split(']').next())
            .expect("a default");
        assert_eq!(default, stated, "{cmd}");
    }
    // `test` reads a program's `// max-steps:` directive, else the default,
    // as its help says.
    let directives = |text: &str| deepcps_machine::expect::Expectations::parse(text).expect("directives");
    assert_eq!(deepcps::snaptest::max_steps(&directives("$exit 1\n")).to_string(), stated);
    let test_help = deepcps(&["help", "test"]).out.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        test_help.contains(&format!(
            "A program runs for at most {stated} steps, or the number its `// max-steps: N` directive gives."
        )),
        "{test_help}"
    );
    assert_eq!(deepcps::snaptest::max_steps(&directives("// max-steps: 7\n$exit 1\n")), 7);
}
