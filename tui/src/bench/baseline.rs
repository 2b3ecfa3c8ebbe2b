//! Comparison with an earlier run (`--baseline FILE`, the JSON of `--json`,
//! or the bare array of rows that older runs wrote):
//! per program the ratios new/old of steps, wall time and peak live nodes,
//! and a regression when one exceeds the threshold. Wall-time ratios of runs
//! shorter than the noise floor (`--min-time`) are shown but never flagged.

use std::collections::HashMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::run::Row;

/// Ratios of one program to its baseline (new / old; 1.0 is unchanged).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ratios {
    /// Steps.
    pub steps: f64,
    /// Wall time.
    pub wall: f64,
    /// Peak live nodes.
    pub peak_live_nodes: f64,
    /// What exceeded the threshold (`steps`, `wall`, `peak_live_nodes`);
    /// empty when nothing did.
    pub regressions: Vec<String>,
}

/// The fields of a baseline row that the comparison reads.
#[derive(Debug, Deserialize)]
struct Old {
    program: String,
    steps: u64,
    wall_s: f64,
    peak_live_nodes: u64,
}

/// A baseline file: a run's JSON, or the bare rows of an older one.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum File {
    Run {
        rows: Vec<Old>,
        #[serde(default)]
        scaling_rows: Vec<Old>,
    },
    Rows(Vec<Old>),
}

/// A baseline: the programs of an earlier run by name.
#[derive(Debug)]
pub struct Baseline {
    rows: HashMap<String, Old>,
}

/// What comparing one run with a baseline found.
#[derive(Debug, Default)]
pub struct Comparison {
    /// Programs with a regression, with what regressed (`steps 2.00x (334 → 668)`).
    pub regressions: Vec<(String, String)>,
    /// Programs faster or smaller in every measure by the threshold.
    pub improved: usize,
    /// Programs of this run that the baseline does not have.
    pub new: usize,
    /// Programs of the baseline that this run does not have.
    pub missing: usize,
}

impl Baseline {
    /// Reads a baseline file written by `--json`.
    pub fn load(path: &Path) -> Result<Baseline, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read baseline `{}`: {e}", path.display()))?;
        let file: File = serde_json::from_str(&text).map_err(|e| {
            format!(
                "baseline `{}` is not the JSON of `deepcps bench --json` (rows with program, steps, wall_s, peak_live_nodes): {e}",
                path.display()
            )
        })?;
        let rows = match file {
            File::Run { rows, scaling_rows } => rows.into_iter().chain(scaling_rows).collect(),
            File::Rows(rows) => rows,
        };
        Ok(Baseline {
            rows: rows.into_iter().map(|r| (r.program.clone(), r)).collect(),
        })
    }

    /// Sets each row's ratios and collects the regressions: a ratio above
    /// `threshold` (wall time only when the new run took at least `min_time`
    /// seconds).
    pub fn compare(&self, rows: &mut [Row], threshold: f64, min_time: f64) -> Comparison {
        let mut c = Comparison::default();
        let mut seen = 0;
        for row in rows.iter_mut() {
            let Some(old) = self.rows.get(&row.program) else {
                c.new += 1;
                continue;
            };
            seen += 1;
            let steps = ratio(row.steps as f64, old.steps as f64);
            let wall = ratio(row.wall_s, old.wall_s);
            let peak = ratio(row.peak_live_nodes as f64, old.peak_live_nodes as f64);
            let mut regressions = Vec::new();
            let mut words = Vec::new();
            if steps > threshold {
                regressions.push("steps".to_string());
                words.push(format!("steps {} ({} → {})", times(steps), old.steps, row.steps));
            }
            if wall > threshold && row.wall_s >= min_time {
                regressions.push("wall".to_string());
                words.push(format!(
                    "wall {} ({} → {})",
                    times(wall),
                    super::table::seconds(old.wall_s),
                    super::table::seconds(row.wall_s)
                ));
            }
            if peak > threshold {
                regressions.push("peak_live_nodes".to_string());
                words.push(format!(
                    "peak live nodes {} ({} → {})",
                    times(peak),
                    old.peak_live_nodes,
                    row.peak_live_nodes
                ));
            }
            let better = |r: f64| r * threshold < 1.0;
            if regressions.is_empty() && better(steps) && (better(wall) || row.wall_s < min_time) && better(peak) {
                c.improved += 1;
            }
            if !words.is_empty() {
                c.regressions.push((row.program.clone(), words.join(", ")));
            }
            row.baseline = Some(Ratios {
                steps,
                wall,
                peak_live_nodes: peak,
                regressions,
            });
        }
        c.missing = self.rows.len() - seen.min(self.rows.len());
        c
    }
}

/// `new / old`, with `0 / 0 = 1` and `x / 0 = ∞`.
fn ratio(new: f64, old: f64) -> f64 {
    if old > 0.0 {
        new / old
    } else if new > 0.0 {
        f64::INFINITY
    } else {
        1.0
    }
}

/// A ratio as `2.00x`.
pub fn times(r: f64) -> String {
    if r.is_finite() {
        format!("{r:.2}x")
    } else {
        "∞x".to_string()
    }
}
