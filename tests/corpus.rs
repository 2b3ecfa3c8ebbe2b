//! The corpus test: every `.dcps` program under `corpus/` is reduced by the
//! reference reducer and its outcome, step counts by kind, printed result and
//! diagnostics are snapshotted. Files that hold only definitions (libraries
//! such as `builders.dcps`) are snapshotted as such.
//!
//! The leading-comment directives are read by
//! `deepcps_machine::expect::Expectations` (as `deepcps bench` reads them):
//! `// expect: exit [VALUE]`, `// expect: residual`, `// expect-error: KIND`
//! (or `// expect: error KIND`), `// expect-static-error`, `// max-steps: N`.
//! Without an outcome directive the run must end with a result.

use std::path::Path;

use deepcps_machine::expect::{Expectations, Expected};
use deepcps_machine::run::Limits;
use deepcps_machine::span::SourceMap;
use deepcps_machine::syntax::parser::parse_file;
use deepcps_tests::{root, run_path, TEST_MAX_STEPS};

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
        let expect = Expectations::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", rel.display()));
        let max_steps = expect.max_steps.unwrap_or(TEST_MAX_STEPS);
        let out = run_path(
            rel,
            &Limits {
                max_steps,
                ..Limits::default()
            },
        );
        let ok = match &expect.outcome {
            Some(Expected::Error(kind)) => out.starts_with(&format!("outcome: error {}\n", kind.name())),
            Some(Expected::StaticError) => out.starts_with("outcome: static error"),
            Some(Expected::Residual) => out.starts_with("outcome: residual"),
            Some(Expected::Exit(None)) => out.starts_with("outcome: exit"),
            Some(Expected::Exit(Some(v))) => out.starts_with("outcome: exit") && out.contains(&format!("--- result\n{v}\n")),
            None => out.starts_with("outcome: exit") || out.starts_with("outcome: residual"),
        };
        assert!(ok, "{}: expected {}, got:\n{out}", rel.display(), expect.describe());
        insta::assert_snapshot!(out);
    });
}
