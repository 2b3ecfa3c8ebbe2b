//! Helpers shared by the integration and snapshot tests in `tests/`.
//!
//! [`run_source`] and [`run_path`] reduce a program with the reference
//! reducer and render everything a user would see (outcome, step counts by
//! kind, result text, diagnostics without colour) as one text, the unit of
//! the snapshot tests.

use std::path::{Path, PathBuf};

use deepcps_machine::diag::Diagnostic;
use deepcps_machine::reference::Reducer;
use deepcps_machine::run::{Limits, Outcome, Report};
use deepcps_machine::span::SourceMap;
use deepcps_machine::syntax::load::add_source;
use deepcps_machine::syntax::{load_from, load_program, MemFs, RealFs};

/// Steps allowed in tests unless a program says otherwise.
pub const TEST_MAX_STEPS: u64 = 2_000_000;

/// Renders diagnostics without colour.
pub fn render(sources: &SourceMap, diags: &[Diagnostic]) -> String {
    diags.iter().map(|d| d.render(sources, false)).collect()
}

/// The snapshot text of a finished run.
pub fn describe(report: &Report, sources: &SourceMap) -> String {
    let outcome = match &report.outcome {
        Outcome::Residual => "residual".to_string(),
        Outcome::Exit(_) => "exit".to_string(),
        Outcome::Error(e) => format!("error {}", e.kind.name()),
        Outcome::Limit(r) => format!("limit: {r}"),
    };
    let mut s = format!("outcome: {outcome}\n{}\n", report.counts);
    if !matches!(report.outcome, Outcome::Error(_)) {
        s.push_str("--- result\n");
        s.push_str(&report.text);
    }
    let mut diags = report.warnings.clone();
    if let Outcome::Error(e) = &report.outcome {
        diags.push(Diagnostic::from(e));
    }
    if !diags.is_empty() {
        s.push_str("--- diagnostics\n");
        s.push_str(&render(sources, &diags));
    }
    s
}

/// Loads and reduces the file at `path` (relative to the workspace root).
pub fn run_path(path: &Path, limits: &Limits) -> String {
    let mut sources = SourceMap::new();
    match load_program(&RealFs, path, &mut sources) {
        Ok(p) => describe(&Reducer::new(p).report(limits), &sources),
        Err(ds) => format!("outcome: static error\n--- diagnostics\n{}", render(&sources, &ds)),
    }
}

/// Loads and reduces the program `text` (no includes).
pub fn run_source(text: &str) -> String {
    let mut sources = SourceMap::new();
    let id = match add_source(&mut sources, "test.dcps", None, text.as_bytes().to_vec()) {
        Ok(id) => id,
        Err(d) => return format!("outcome: static error\n--- diagnostics\n{}", render(&sources, &[d])),
    };
    match load_from(&MemFs::default(), id, &mut sources, false) {
        Ok(p) => describe(&Reducer::new(p).report(&Limits { max_steps: TEST_MAX_STEPS }), &sources),
        Err(ds) => format!("outcome: static error\n--- diagnostics\n{}", render(&sources, &ds)),
    }
}

/// The workspace root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}
