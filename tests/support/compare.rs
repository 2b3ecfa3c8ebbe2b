//! The comparison of the two machines' reports, shared by the equivalence
//! test (`tests/equivalence.rs`) and the `machines` fuzz target
//! (`tests/fuzz/fuzz_targets/machines.rs`, which includes this file by path):
//! outcome kind (error kind included, not its message), step counts by kind,
//! warning count, and the printed result of an exit or a residual.

use deepcps_machine::run::{Outcome, Report};

/// How a run ended, as compared: the error kind, not its message.
pub fn kind(r: &Report) -> String {
    match &r.outcome {
        Outcome::Residual => "residual".into(),
        Outcome::Exit(_) => "exit".into(),
        Outcome::Error(e) => format!("error {}", e.kind.name()),
        Outcome::Limit(l) => format!("limit ({l})"),
    }
}

/// Everything the comparison looks at, as text (for the failure message).
pub fn summary(r: &Report) -> String {
    format!(
        "outcome: {}\n{}\nwarnings: {}\n--- text\n{}",
        kind(r),
        r.counts,
        r.warnings.len(),
        r.text
    )
}

/// Compares two reports of the same program: `Err` says where they differ,
/// with both summaries.
pub fn compare(graph: &Report, reference: &Report) -> Result<(), String> {
    let mut diffs = Vec::new();
    if kind(graph) != kind(reference) {
        diffs.push("outcome");
    }
    if graph.counts != reference.counts {
        diffs.push("step counts");
    }
    if graph.warnings.len() != reference.warnings.len() {
        diffs.push("warning count");
    }
    let printed = matches!(reference.outcome, Outcome::Exit(_) | Outcome::Residual);
    if printed && graph.text != reference.text {
        diffs.push("printed result");
    }
    if diffs.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "machines differ in: {}\n=== graph machine\n{}\n=== reference reducer\n{}",
            diffs.join(", "),
            summary(graph),
            summary(reference)
        ))
    }
}
