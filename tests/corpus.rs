//! The corpus test: every `.dcps` program under `corpus/` is reduced by the
//! reference reducer and its outcome, step counts by kind, printed result and
//! diagnostics are snapshotted. Files that hold only definitions (libraries
//! such as `builders.dcps`) are snapshotted as such.
//!
//! Leading-comment directives checked here: `// expect-error: KIND` (the run
//! must end with that runtime error kind), `// expect-static-error` (loading
//! must fail), `// max-steps: N`.

use std::path::Path;

use deepcps_machine::run::Limits;
use deepcps_machine::span::SourceMap;
use deepcps_machine::syntax::parser::parse_file;
use deepcps_tests::{root, run_path, TEST_MAX_STEPS};

fn directive<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines()
        .map(str::trim)
        .take_while(|l| l.starts_with("//") || l.is_empty())
        .find_map(|l| l.trim_start_matches('/').trim().strip_prefix(key).map(str::trim))
}

fn is_library(path: &Path, text: &str) -> bool {
    let mut sources = SourceMap::new();
    let id = sources.add(path.display().to_string(), None, text.to_string());
    matches!(parse_file(text, id), Ok(f) if f.main.is_none())
}

#[test]
fn corpus() {
    let base = root();
    std::env::set_current_dir(&base).expect("workspace root");
    insta::glob!("../corpus", "**/*.dcps", |abs| {
        let rel = abs.strip_prefix(&base).unwrap_or(abs);
        let text = String::from_utf8_lossy(&std::fs::read(abs).unwrap_or_default()).into_owned();
        if is_library(rel, &text) {
            insta::assert_snapshot!("library: definitions only (included by other programs)");
            return;
        }
        let max_steps = directive(&text, "max-steps:")
            .and_then(|n| n.parse().ok())
            .unwrap_or(TEST_MAX_STEPS);
        let out = run_path(
            rel,
            &Limits {
                max_steps,
                ..Limits::default()
            },
        );
        if let Some(kind) = directive(&text, "expect-error:") {
            assert!(
                out.starts_with(&format!("outcome: error {kind}\n")),
                "{}: expected error {kind}, got:\n{out}",
                rel.display()
            );
        } else if directive(&text, "expect-static-error").is_some() {
            assert!(
                out.starts_with("outcome: static error"),
                "{}: expected a static error, got:\n{out}",
                rel.display()
            );
        } else {
            assert!(
                out.starts_with("outcome: exit") || out.starts_with("outcome: residual"),
                "{}: expected a result, got:\n{out}",
                rel.display()
            );
        }
        insta::assert_snapshot!(out);
    });
}
