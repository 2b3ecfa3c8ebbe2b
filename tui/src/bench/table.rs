//! The text table of a bench run: one line per program, columns aligned,
//! numbers right-aligned, then one line per failing program with its
//! reason.

use super::baseline::times;
use super::run::{Row, RowStatus};

/// Seconds in a readable unit (`0.42 ms`, `12.3 ms`, `1.234 s`).
pub fn seconds(s: f64) -> String {
    if s < 0.001 {
        format!("{:.3} ms", s * 1e3)
    } else if s < 1.0 {
        format!("{:.1} ms", s * 1e3)
    } else {
        format!("{s:.3} s")
    }
}

/// How a compiled run's time compares with the machine's: `135× faster`,
/// `2.41× faster`, or `50× slower` when it was slower (whole from 10 on,
/// else two decimals, so that no ratio reads as 0).
pub fn speed(machine_s: f64, compiled_s: f64) -> String {
    let r = machine_s / compiled_s;
    if !r.is_finite() || r <= 0.0 {
        return "-".into();
    }
    let times = |x: f64| {
        if x >= 10.0 {
            format!("{x:.0}×")
        } else {
            format!("{x:.2}×")
        }
    };
    if r >= 1.0 {
        format!("{} faster", times(r))
    } else {
        format!("{} slower", times(1.0 / r))
    }
}

/// A rate with a unit prefix (`834 k`, `1.25 M`).
pub fn rate(r: f64) -> String {
    if r >= 1e6 {
        format!("{:.2} M", r / 1e6)
    } else if r >= 1e3 {
        format!("{:.0} k", r / 1e3)
    } else {
        format!("{r:.0}")
    }
}

/// The table of `rows`; with `ratios`, three more columns compare each row
/// with the baseline.
pub fn render(rows: &[Row], ratios: bool) -> String {
    let mut header = vec![
        "program",
        "result",
        "steps",
        "beta",
        "expr",
        "if",
        "fix",
        "exit",
        "wall",
        "steps/s",
        "peak nodes",
        "result B",
        "expect",
        "status",
    ];
    if ratios {
        header.extend(["steps×", "wall×", "peak×", "vs baseline"]);
    }
    let compiled = rows.iter().any(|r| r.compiled.is_some());
    if compiled {
        header.extend(["compiled", "vs machine", "same"]);
    }
    // Left-aligned: the text columns.
    let same_col = header.len().saturating_sub(1);
    let left = |i: usize| matches!(i, 0 | 1 | 12 | 13) || (ratios && i == 17) || (compiled && i == same_col);
    let mut cells: Vec<Vec<String>> = vec![header.iter().map(|s| s.to_string()).collect()];
    for r in rows {
        let mut line = vec![
            r.program.clone(),
            r.result.clone(),
            r.steps.to_string(),
            r.beta.to_string(),
            r.expr.to_string(),
            r.if_.to_string(),
            r.fix.to_string(),
            r.exit.to_string(),
            seconds(r.wall_s),
            rate(r.steps_per_s),
            r.peak_live_nodes.to_string(),
            r.result_bytes.to_string(),
            r.expectation.clone(),
            match r.status {
                RowStatus::Pass => "pass".to_string(),
                RowStatus::Fail => "FAIL".to_string(),
            },
        ];
        if ratios {
            match &r.baseline {
                Some(b) => {
                    line.extend([times(b.steps), times(b.wall), times(b.peak_live_nodes)]);
                    line.push(if b.regressions.is_empty() {
                        "ok".to_string()
                    } else {
                        format!("REGRESSION ({})", b.regressions.join(", "))
                    });
                }
                None => line.extend(["-", "-", "-", "new"].map(String::from)),
            }
        }
        if compiled {
            match &r.compiled {
                Some(c) if c.ran() => line.extend([
                    seconds(c.compiled_s),
                    speed(c.machine_s, c.compiled_s),
                    if c.agrees { "yes" } else { "NO" }.to_string(),
                ]),
                Some(c) => line.extend(["-".to_string(), "-".to_string(), c.part.clone()]),
                None => line.extend(["-", "-", "-"].map(String::from)),
            }
        }
        cells.push(line);
    }
    let widths: Vec<usize> = (0..header.len())
        .map(|i| cells.iter().map(|l| l[i].chars().count()).max().unwrap_or(0))
        .collect();
    let mut s = String::new();
    for line in &cells {
        let mut text = String::new();
        for (i, cell) in line.iter().enumerate() {
            if i > 0 {
                text.push_str("  ");
            }
            let pad = widths[i] - cell.chars().count();
            if left(i) {
                text.push_str(cell);
                text.extend(std::iter::repeat_n(' ', pad));
            } else {
                text.extend(std::iter::repeat_n(' ', pad));
                text.push_str(cell);
            }
        }
        s.push_str(text.trim_end());
        s.push('\n');
    }
    for r in rows.iter().filter(|r| r.status == RowStatus::Fail) {
        s.push_str(&format!("FAIL {}: {}\n", r.program, r.reason));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::speed;

    #[test]
    fn slower_runs_say_slower() {
        assert_eq!(speed(135.4, 1.0), "135× faster");
        assert_eq!(speed(10.0, 1.0), "10× faster");
        assert_eq!(speed(2.414, 1.0), "2.41× faster");
        assert_eq!(speed(1.0, 1.0), "1.00× faster");
        assert_eq!(speed(0.02, 1.0), "50× slower");
        assert_eq!(speed(1.0, 2.5), "2.50× slower");
        assert_eq!(speed(0.0, 1.0), "-");
    }
}
