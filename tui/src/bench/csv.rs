//! The rows of a bench run as CSV: a header, then one record per program,
//! the same fields as the JSON (the baseline ratios flattened into four
//! columns, empty without a baseline; the compiled run into four more,
//! empty without `--compiled`).

use super::run::{Row, RowStatus};

/// The header of the CSV.
pub const HEADER: [&str; 24] = [
    "program",
    "result",
    "steps",
    "beta",
    "expr",
    "if",
    "fix",
    "exit",
    "wall_s",
    "steps_per_s",
    "peak_live_nodes",
    "result_bytes",
    "threads",
    "expectation",
    "status",
    "reason",
    "steps_ratio",
    "wall_ratio",
    "peak_ratio",
    "regressions",
    "compiled_part",
    "compiled_s",
    "compiled_machine_s",
    "compiled_agrees",
];

/// The rows as CSV text.
pub fn render(rows: &[Row]) -> Result<String, String> {
    let mut w = ::csv::Writer::from_writer(Vec::new());
    let fail = |e: ::csv::Error| format!("cannot write CSV: {e}");
    w.write_record(HEADER).map_err(fail)?;
    for r in rows {
        let (s, wall, p, reg) = match &r.baseline {
            Some(b) => (
                b.steps.to_string(),
                b.wall.to_string(),
                b.peak_live_nodes.to_string(),
                b.regressions.join(" "),
            ),
            None => Default::default(),
        };
        let status = match r.status {
            RowStatus::Pass => "pass",
            RowStatus::Fail => "fail",
        };
        let (cp, cs, cm, ca) = match &r.compiled {
            Some(c) => (
                c.part.clone(),
                format!("{:.6}", c.compiled_s),
                format!("{:.6}", c.machine_s),
                c.agrees.to_string(),
            ),
            None => Default::default(),
        };
        let record: [String; 24] = [
            r.program.clone(),
            r.result.clone(),
            r.steps.to_string(),
            r.beta.to_string(),
            r.expr.to_string(),
            r.if_.to_string(),
            r.fix.to_string(),
            r.exit.to_string(),
            format!("{:.6}", r.wall_s),
            format!("{:.0}", r.steps_per_s),
            r.peak_live_nodes.to_string(),
            r.result_bytes.to_string(),
            r.threads.to_string(),
            r.expectation.clone(),
            status.to_string(),
            r.reason.clone(),
            s,
            wall,
            p,
            reg,
            cp,
            cs,
            cm,
            ca,
        ];
        w.write_record(&record).map_err(fail)?;
    }
    let bytes = w.into_inner().map_err(|e| format!("cannot write CSV: {e}"))?;
    String::from_utf8(bytes).map_err(|e| format!("cannot write CSV: {e}"))
}
