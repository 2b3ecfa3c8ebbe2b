//! Scaling families (`--plot`): a program with a `// scale: VAR SIZES..`
//! directive is run at each size, its `let VAR = ..` line rewritten as
//! `scripts/bench.sh` does, and the growth of time and memory is fitted to
//! a power of the size (slope 1 on a log-log plot is linear, 2 quadratic).

use serde::{Deserialize, Serialize};

/// The source of `text` with every line `let VAR = ...` (at the start of a
/// line) replaced by `let VAR = size`; `None` if there is no such line.
pub fn resize(text: &str, var: &str, size: u64) -> Option<String> {
    let prefix = format!("let {var} =");
    let mut found = false;
    let mut out = String::with_capacity(text.len() + 8);
    for line in text.split_inclusive('\n') {
        if line.starts_with(&prefix) {
            found = true;
            out.push_str(&format!("{prefix} {size}"));
            if line.ends_with('\n') {
                out.push('\n');
            }
        } else {
            out.push_str(line);
        }
    }
    found.then_some(out)
}

/// A copy of the program at `path` resized (see [`resize`]) that runs
/// from anywhere: its relative includes made absolute. Written to `dir`
/// (benchmarks and tests put it in a temporary folder); returns its path.
pub fn resized_copy(path: &std::path::Path, var: &str, size: u64, dir: &std::path::Path) -> Result<std::path::PathBuf, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let text = resize(&text, var, size).ok_or_else(|| format!("{}: no `let {var} =` line", path.display()))?;
    let base = path.parent().unwrap_or(std::path::Path::new("."));
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        match line.strip_prefix("include \"") {
            Some(rest) if !rest.starts_with('/') => {
                out.push_str("include \"");
                out.push_str(&base.join(rest).display().to_string());
            }
            _ => out.push_str(line),
        }
    }
    let stem = path.file_stem().map_or("program".into(), |s| s.to_string_lossy());
    let copy = dir.join(format!("{stem}-{var}{size}-{}.dcps", std::process::id()));
    std::fs::write(&copy, out).map_err(|e| format!("{}: {e}", copy.display()))?;
    Ok(copy)
}

/// One measured size of a family.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Point {
    /// The size.
    pub size: u64,
    /// Wall time, seconds.
    pub wall_s: f64,
    /// Peak live nodes.
    pub peak: u64,
}

/// A family's measured sizes (those that ran to a result).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Family {
    /// The program, as its row names it (`corpus/bench/loop_sum.dcps`).
    pub program: String,
    /// The program's file stem (`loop_sum`).
    pub name: String,
    /// The size variable.
    pub var: String,
    /// The program's size in terms of it: `N`, or `(2^D)` for a family whose
    /// size is a power of two (a tree of depth `D`).
    pub size: String,
    /// Points by increasing size.
    pub points: Vec<Point>,
}

impl Family {
    /// The exponent `k` of `time ∝ size^k`, fitted by least squares on
    /// logarithms (`None` with fewer than two sizes).
    pub fn time_slope(&self) -> Option<f64> {
        slope(self.points.iter().map(|p| (p.size as f64, p.wall_s)))
    }

    /// The exponent of `peak live nodes ∝ size^k`.
    pub fn memory_slope(&self) -> Option<f64> {
        slope(self.points.iter().map(|p| (p.size as f64, p.peak as f64)))
    }
}

/// The least-squares slope of `ln y` against `ln x` (points with a
/// non-positive coordinate are left out).
pub fn slope(points: impl Iterator<Item = (f64, f64)>) -> Option<f64> {
    let logs: Vec<(f64, f64)> = points.filter(|&(x, y)| x > 0.0 && y > 0.0).map(|(x, y)| (x.ln(), y.ln())).collect();
    let n = logs.len() as f64;
    if logs.len() < 2 {
        return None;
    }
    let mx = logs.iter().map(|p| p.0).sum::<f64>() / n;
    let my = logs.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = logs.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = logs.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    (sxx > 0.0).then(|| sxy / sxx)
}

/// How far a fitted exponent may be from 0, 1 or 2 and still read as
/// flat, linear or quadratic: fits over a few sizes carry fixed costs and
/// noise, and a tighter reading would call most linear runs something else.
pub const GROWTH_TOLERANCE: f64 = 0.15;

/// A fitted exponent in words: `flat`, `linear` and `quadratic` within
/// [`GROWTH_TOLERANCE`] of 0, 1 and 2; `sublinear` and `superlinear`
/// between them; `decreasing` below and `worse than quadratic` above.
pub fn growth(k: f64) -> &'static str {
    let t = GROWTH_TOLERANCE;
    if k < -t {
        "decreasing"
    } else if k <= t {
        "flat"
    } else if k < 1.0 - t {
        "sublinear"
    } else if k <= 1.0 + t {
        "linear"
    } else if k < 2.0 - t {
        "superlinear"
    } else if k <= 2.0 + t {
        "quadratic"
    } else {
        "worse than quadratic"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resizes_the_let_line_only() {
        let t = "// let N = 3 in a comment\nlet N = 5\nlet NN = 7\nf N";
        assert_eq!(
            resize(t, "N", 100).as_deref(),
            Some("// let N = 3 in a comment\nlet N = 100\nlet NN = 7\nf N")
        );
        assert_eq!(resize(t, "K", 1), None);
    }

    #[test]
    fn a_resized_copy_runs_from_anywhere() {
        let dir = std::env::temp_dir();
        let builders = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/bench/arith_builders.dcps");
        let copy = resized_copy(&builders, "N", 7, &dir).expect("a copy");
        let text = std::fs::read_to_string(&copy).expect("written");
        let _ = std::fs::remove_file(&copy);
        assert!(text.contains("\nlet N = 7\n"), "{text}");
        let include = text.lines().find(|l| l.starts_with("include ")).expect("an include");
        assert!(include.contains("/corpus/bench/../paper/arith_stack_actions.dcps"), "{include}");
        assert!(resized_copy(&builders, "K", 7, &dir).is_err_and(|e| e.contains("no `let K =` line")));
        assert!(resized_copy(&dir.join("no-such-file.dcps"), "N", 7, &dir).is_err());
    }

    #[test]
    fn slopes() {
        let lin = [(10.0, 1.0), (100.0, 10.0), (1000.0, 100.0)];
        let quad = [(10.0, 1.0), (100.0, 100.0), (1000.0, 10000.0)];
        let k = slope(lin.into_iter()).unwrap_or(0.0);
        assert!((k - 1.0).abs() < 1e-9, "{k}");
        let k = slope(quad.into_iter()).unwrap_or(0.0);
        assert!((k - 2.0).abs() < 1e-9, "{k}");
        assert_eq!(slope([(10.0, 1.0)].into_iter()), None);
    }

    #[test]
    fn growth_reads_the_exponent_honestly() {
        let cases = [
            (-0.45, "decreasing"),
            (-0.1, "flat"),
            (0.12, "flat"),
            (0.56, "sublinear"),
            (0.84, "sublinear"),
            (0.9, "linear"),
            (1.05, "linear"),
            (1.15, "linear"),
            (1.3, "superlinear"),
            (1.9, "quadratic"),
            (2.1, "quadratic"),
            (2.3, "worse than quadratic"),
        ];
        for (k, words) in cases {
            assert_eq!(growth(k), words, "{k}");
        }
    }
}
