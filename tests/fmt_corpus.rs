//! `deepcps fmt` on the whole corpus: every file that parses is formatted,
//! comments and all; the formatted text is the same program (its canonical
//! form without comments is the original's), gives the same outcome, step
//! counts and result when it replaces the original (includes still resolved
//! from disk), holds every comment of the original, in order, keeps its
//! directives, keeps a blank line between top-level definitions where the
//! original has blank lines (one, however many there were), braces both
//! branches of every `if`, and formatting it again changes nothing.

use std::ffi::OsString;
use std::path::Path;

use deepcps_machine::expect::Expectations;
use deepcps_machine::span::FileId;
use deepcps_machine::syntax::lexer::lex_with_comments;
use deepcps_machine::syntax::RealFs;
use deepcps_tests::{dcps_files, outcome_via, root, Overlay};

/// `deepcps fmt [FLAGS] PATH`: the output, or `None` when it fails.
fn fmt(flags: &[&str], path: &Path) -> Option<String> {
    let mut argv: Vec<OsString> = vec!["deepcps".into(), "fmt".into()];
    argv.extend(flags.iter().map(OsString::from));
    argv.push(path.as_os_str().to_owned());
    let (mut out, mut err) = (Vec::new(), Vec::new());
    (deepcps::main_with(argv, &mut out, &mut err) == 0).then(|| String::from_utf8_lossy(&out).into_owned())
}

/// The texts of the comments of `text`, in order (trailing whitespace of a
/// line comment does not count).
fn comments(text: &str) -> Vec<String> {
    lex_with_comments(text, FileId(0))
        .expect("lexes")
        .into_iter()
        .filter(|t| t.tok.is_comment())
        .map(|t| text[t.span.range()].trim_end().to_string())
        .collect()
}

#[test]
fn formatting_every_corpus_file_keeps_its_program_and_its_comments() {
    let base = root();
    std::env::set_current_dir(&base).expect("root");
    let mut files = Vec::new();
    dcps_files(&base.join("corpus"), &mut files);
    let (mut checked, mut with_comments, mut refused) = (0, 0, Vec::new());
    let (mut separated, mut ifs) = (0, 0);
    for (n, p) in files.iter().enumerate() {
        let rel = p.strip_prefix(&base).unwrap_or(p).to_path_buf();
        let name = rel.display().to_string();
        let original = std::fs::read_to_string(&rel).expect("read");
        let Some(formatted) = fmt(&[], &rel) else {
            // Only programs that do not parse or resolve (parse errors,
            // duplicate parameters) have nothing to format: not because
            // of their comments.
            assert!(name.contains("corpus/err/"), "{name}: fmt refused it");
            assert_eq!(fmt(&["--drop-comments"], &rel), None, "{name}: refused for its comments");
            refused.push(name);
            continue;
        };
        // The same program: equal canonical forms.
        let tmp = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("fmt-{n}.dcps"));
        std::fs::write(&tmp, &formatted).expect("write");
        assert_eq!(
            fmt(&["--drop-comments"], &tmp),
            fmt(&["--drop-comments"], &rel),
            "{name}: the formatted text is another program:\n{formatted}"
        );
        // Every comment, in order; the directives read the same.
        assert_eq!(
            comments(&formatted),
            comments(&original),
            "{name}: comments lost or moved:\n{formatted}"
        );
        with_comments += usize::from(!comments(&original).is_empty());
        assert_eq!(
            Expectations::parse(&formatted),
            Expectations::parse(&original),
            "{name}: the directives changed:\n{formatted}"
        );
        // Idempotent.
        assert_eq!(fmt(&[], &tmp).as_deref(), Some(formatted.as_str()), "{name}: fmt is not idempotent");
        // Blank lines between definitions: kept, one of a run.
        assert!(!formatted.contains("\n\n\n"), "{name}: two blank lines in a row:\n{formatted}");
        let (old, new) = (definitions(&original), definitions(&formatted));
        let names = |d: &[(String, bool)]| d.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
        if names(&old) == names(&new) {
            assert_eq!(new, old, "{name}: blank lines between definitions:\n{formatted}");
            separated += old.iter().filter(|(_, blank)| *blank).count();
        }
        // Both branches of `if` braced.
        ifs += braced_ifs(&formatted, &name);
        // The same run.
        let overlay = Overlay {
            path: rel.clone(),
            text: formatted.clone(),
        };
        assert_eq!(
            outcome_via(&RealFs, &rel, 200_000),
            outcome_via(&overlay, &rel, 200_000),
            "{name}: formatting changed the meaning:\n{formatted}"
        );
        let _ = std::fs::remove_file(&tmp);
        checked += 1;
    }
    assert!(checked >= 45, "only {checked} files checked; refused: {refused:?}");
    assert!(separated >= 10, "only {separated} definitions after a blank line");
    assert!(ifs >= 10, "only {ifs} `if`s");
    assert_eq!(with_comments, checked, "every corpus file has comments");
}

/// The definitions that start a line of `text` (`let NAME`, `fix NAME`),
/// but for one right after the `include` lines, each with whether a blank
/// line stands right before it.
fn definitions(text: &str) -> Vec<(String, bool)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let mut words = line.split(|c: char| !c.is_alphanumeric() && c != '_').filter(|w| !w.is_empty());
        if !(line.starts_with("let ") || line.starts_with("fix ")) {
            continue;
        }
        let (Some(keyword), Some(name)) = (words.next(), words.next()) else {
            continue;
        };
        // After the `include` lines fmt always leaves a blank line.
        let before = lines[..i].iter().rev().find(|l| !l.trim().is_empty());
        if before.is_some_and(|l| l.starts_with("include ")) {
            continue;
        }
        let blank = i > 0 && lines[i - 1].trim().is_empty();
        out.push((format!("{keyword} {name}"), blank));
    }
    out
}

/// How many `if`s with two braced branches `text` has; fails on one whose
/// second branch is in tail form (its first closes with `} ()` alone).
fn braced_ifs(text: &str, name: &str) -> usize {
    let lines: Vec<&str> = text.lines().collect();
    let mut n = 0;
    for (i, line) in lines.iter().enumerate() {
        let code = line.trim_start();
        if !(code.starts_with("if ") && code.ends_with("() {")) {
            continue;
        }
        let indent = &line[..line.len() - code.len()];
        let close = lines[i + 1..]
            .iter()
            .find(|l| l.starts_with(indent) && l[indent.len()..].starts_with('}'))
            .map(|l| l.trim_end());
        let close = close.map(|l| l.split(" //").next().unwrap_or(l));
        assert_eq!(
            close,
            Some(format!("{indent}}} () {{").as_str()),
            "{name}: `{code}` at line {}",
            i + 1
        );
        n += 1;
    }
    n
}
