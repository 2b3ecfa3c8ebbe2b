//! `deepcps bench --merge FILE..`: the JSON files of the shards of one run
//! (each written by `--shard K/N --json FILE`) put back together into the
//! run they split, so that the table, the baseline comparison, the CSV and
//! the plot are those of one run over the whole corpus.
//!
//! Files that do not fit together are refused, nothing merged: a file
//! without the header of a run (an older JSON, or none of bench's), an
//! interrupted shard, shards of other corpora, deepcps versions or
//! settings, of other splits (`1/2` and `1/3`), the same shard twice or a
//! program in two files, a shard missing (every shard that has programs
//! must be given), or a file with other rows than its shard has.

use std::path::{Path, PathBuf};

use super::json::{BenchFile, Header, Settings, Shard};
use super::run::Row;

/// The run that the shards in `files` split.
pub fn merge(files: &[PathBuf]) -> Result<BenchFile, String> {
    let mut shards: Vec<(&Path, BenchFile)> = Vec::with_capacity(files.len());
    for f in files {
        shards.push((f, load(f)?));
    }
    let Some((first_path, first)) = shards.first() else {
        return Err("--merge needs the JSON file of every shard".into());
    };
    let head = first.bench.clone();
    let n = shard_of(&head).n;
    let mut seen: Vec<Option<&Path>> = vec![None; n];
    for (path, file) in &shards {
        let h = &file.bench;
        if h.interrupted {
            return Err(format!(
                "`{}` is of a run that Ctrl-C interrupted ({} of its programs ran); run that shard again",
                path.display(),
                file.rows.len()
            ));
        }
        if h.version != head.version {
            return Err(format!(
                "`{}` was written by deepcps {} and `{}` by deepcps {}: run every shard with one deepcps",
                path.display(),
                h.version,
                first_path.display(),
                head.version
            ));
        }
        if h.corpus != head.corpus {
            return Err(format!(
                "`{}` and `{}` ran other corpora ({} and {} programs, fingerprints {} and {}): run every shard on the same paths, with the same files",
                path.display(),
                first_path.display(),
                h.corpus.programs,
                head.corpus.programs,
                h.corpus.fingerprint,
                head.corpus.fingerprint
            ));
        }
        let diff = differences(&h.settings, &head.settings);
        if !diff.is_empty() {
            return Err(format!(
                "`{}` was run with other settings than `{}`: {}; run every shard with the same flags",
                path.display(),
                first_path.display(),
                diff.join(", ")
            ));
        }
        let s = shard_of(h);
        if s.n != n {
            return Err(format!(
                "`{}` is shard {}/{} and `{}` shard {}/{n}: the shards of one run split it the same way",
                path.display(),
                s.k,
                s.n,
                first_path.display(),
                shard_of(&head).k
            ));
        }
        if let Some(other) = seen[s.k - 1] {
            return Err(format!(
                "`{}` and `{}` are both shard {}/{n}: the shards overlap",
                other.display(),
                path.display(),
                s.k
            ));
        }
        seen[s.k - 1] = Some(path);
        let want = shard_len(head.corpus.programs, s.k, n);
        if file.rows.len() != want {
            return Err(format!(
                "`{}` has {} rows, but shard {}/{n} of {} programs has {want}: it is not the JSON that shard wrote",
                path.display(),
                file.rows.len(),
                s.k,
                head.corpus.programs
            ));
        }
    }
    let missing: Vec<String> = (1..=n)
        .filter(|&k| seen[k - 1].is_none() && shard_len(head.corpus.programs, k, n) > 0)
        .map(|k| format!("{k}/{n}"))
        .collect();
    if !missing.is_empty() {
        let (shards, are) = if missing.len() == 1 { ("shard", "is") } else { ("shards", "are") };
        return Err(format!(
            "{shards} {} of the run {are} missing: give the JSON file of every shard (1/{n} to {n}/{n}) with programs",
            missing.join(", ")
        ));
    }

    let elapsed = shards.iter().map(|(_, f)| f.bench.elapsed_s).fold(0.0, f64::max);
    let mut rows: Vec<Row> = Vec::new();
    let mut scaling_rows: Vec<Row> = Vec::new();
    let mut families = Vec::new();
    for (_, f) in shards {
        rows.extend(f.rows);
        scaling_rows.extend(f.scaling_rows);
        families.extend(f.families);
    }
    rows.sort_by(|a, b| a.program.cmp(&b.program));
    if let Some(w) = rows.windows(2).find(|w| w[0].program == w[1].program) {
        return Err(format!("the program {} is in two files: the shards overlap", w[0].program));
    }
    families.sort_by(|a, b| a.program.cmp(&b.program));
    // Each family's runs in their order, the families in the programs'.
    let rank = |r: &Row| {
        families
            .iter()
            .enumerate()
            .filter(|(_, f)| r.program.strip_prefix(f.program.as_str()).is_some_and(|s| s.starts_with(' ')))
            .max_by_key(|(_, f)| f.program.len())
            .map_or(usize::MAX, |(i, _)| i)
    };
    scaling_rows.sort_by_cached_key(rank);
    Ok(BenchFile {
        bench: Header {
            shard: None,
            merged: files.len(),
            elapsed_s: elapsed,
            interrupted: false,
            ..head
        },
        rows,
        scaling_rows,
        families,
    })
}

/// Reads one shard's file.
fn load(path: &Path) -> Result<BenchFile, String> {
    if path.is_dir() {
        return Err(format!(
            "`{}` is a directory: --merge takes the JSON files that the shards wrote",
            path.display()
        ));
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("`{}` is not the JSON of `deepcps bench --json`: {e}", path.display()))?;
    if value.is_array() {
        return Err(format!(
            "`{}` has rows but not the header of the run that wrote them (an older deepcps bench?): run that shard again",
            path.display()
        ));
    }
    serde_json::from_value(value).map_err(|e| format!("`{}` is not the JSON of `deepcps bench --json`: {e}", path.display()))
}

/// The shard a run ran (a whole run is shard 1/1).
fn shard_of(h: &Header) -> Shard {
    h.shard.unwrap_or(Shard { k: 1, n: 1 })
}

/// How many of `total` programs shard `k` of `n` runs (every `n`-th from
/// the `k`-th, as `discover::shard` takes them).
pub fn shard_len(total: usize, k: usize, n: usize) -> usize {
    if k == 0 || k > total || n == 0 {
        0
    } else {
        (total - k) / n + 1
    }
}

/// The settings in which `a` differs from `b`, as flags: `--max-steps 100
/// against 1000`.
fn differences(a: &Settings, b: &Settings) -> Vec<String> {
    let mut out = Vec::new();
    let mut differ = |flag: &str, x: String, y: String| {
        if x != y {
            out.push(format!("{flag} {x} against {y}"));
        }
    };
    let opt = |o: Option<usize>| o.map_or_else(|| "none".to_string(), |n| n.to_string());
    let sizes = |s: &Option<Vec<u64>>| {
        s.as_ref().map_or_else(
            || "none".to_string(),
            |v| v.iter().map(u64::to_string).collect::<Vec<_>>().join(","),
        )
    };
    differ("--threads", a.threads.to_string(), b.threads.to_string());
    differ("--jobs", a.jobs.to_string(), b.jobs.to_string());
    differ("--max-steps", a.max_steps.to_string(), b.max_steps.to_string());
    differ("--timeout", a.timeout_s.to_string(), b.timeout_s.to_string());
    differ("--max-nodes", opt(a.max_nodes), opt(b.max_nodes));
    differ("--compiled", a.compiled.to_string(), b.compiled.to_string());
    differ("--plot", a.plot.to_string(), b.plot.to_string());
    differ("--sizes", sizes(&a.sizes), sizes(&b.sizes));
    out
}

#[cfg(test)]
mod tests {
    use super::shard_len;
    use crate::bench::discover::shard;

    #[test]
    fn shard_lengths_are_those_of_the_shards() {
        for total in 0..12 {
            for n in 1..6 {
                for k in 1..=n {
                    let programs: Vec<_> = (0..total)
                        .map(|i| crate::bench::discover::BenchProgram {
                            path: format!("{i}").into(),
                            name: format!("{i}"),
                            bytes: Vec::new(),
                            expect: Default::default(),
                        })
                        .collect();
                    assert_eq!(shard(programs, k, n).len(), shard_len(total, k, n), "{total} {k}/{n}");
                }
            }
        }
    }
}
