//! The JSON of a bench run (`--json`): an object with
//!
//! - `bench`: the [`Header`]: the deepcps version, the settings that change
//!   what a run measures (reduction threads, jobs, limits, `--compiled`,
//!   the scaling sizes), the corpus (how many programs, a fingerprint of
//!   their names and bytes), the shard, the elapsed time and whether Ctrl-C
//!   cut the run short;
//! - `rows`: one object per program, the fields of [`Row`] (`status` is
//!   `pass` or `fail`), sorted by program;
//! - `scaling_rows`: the runs of the scaling families (`--plot`), family
//!   by family;
//! - `families`: each family's measured points and fit.
//!
//! `--baseline` reads it back (and the bare array of rows of older runs);
//! `--merge` reads the files of the shards of one run and checks, with the
//! header, that they fit together (see [`super::merge`]).

use serde::{Deserialize, Serialize};

use super::run::Row;
use super::scale::Family;

/// What a bench file says about the run that wrote it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// The version of deepcps that ran it.
    pub version: String,
    /// The settings of the run.
    pub settings: Settings,
    /// The programs found under the paths, before sharding.
    pub corpus: Corpus,
    /// The shard this run ran (`--shard K/N`), absent for a whole run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// How many shards' files were merged into it (`--merge`); 0 for a run.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub merged: usize,
    /// Wall time of the whole run, in seconds (of a merge: the longest
    /// shard's).
    pub elapsed_s: f64,
    /// Whether Ctrl-C stopped the run before every program ran.
    pub interrupted: bool,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The settings that change what a run measures. Two shards run with
/// other settings measure different things and do not merge.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// Reduction threads of each program (`--threads`, or the cores of the
    /// machine that ran it).
    pub threads: usize,
    /// Programs run at once (`--jobs`).
    pub jobs: usize,
    /// The step limit (`--max-steps`).
    pub max_steps: u64,
    /// The wall-time limit of each program, in seconds (`--timeout`).
    pub timeout_s: f64,
    /// The live-node limit (`--max-nodes`).
    pub max_nodes: Option<usize>,
    /// Whether the programs were compiled too (`--compiled`).
    pub compiled: bool,
    /// Whether the scaling families ran (`--plot`).
    pub plot: bool,
    /// The sizes given to every family (`--sizes`), if any.
    pub sizes: Option<Vec<u64>>,
}

/// The programs a run found under its paths.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Corpus {
    /// How many programs.
    pub programs: usize,
    /// How many library files were left out.
    pub libraries: usize,
    /// A fingerprint of the programs' names and bytes (FNV-1a, 64 bits,
    /// in hexadecimal): shards of other corpora differ in it.
    pub fingerprint: String,
}

/// Shard `k` of `n` (`--shard K/N`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Shard {
    /// Which one, from 1.
    pub k: usize,
    /// Of how many.
    pub n: usize,
}

/// A bench run as written by `--json`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BenchFile {
    /// The run.
    pub bench: Header,
    /// One row per program, sorted by program.
    pub rows: Vec<Row>,
    /// The runs of the scaling families, family by family.
    #[serde(default)]
    pub scaling_rows: Vec<Row>,
    /// The scaling families' points.
    #[serde(default)]
    pub families: Vec<Family>,
}

/// The run as pretty-printed JSON, with a final newline.
pub fn render(file: &BenchFile) -> Result<String, String> {
    let mut s = serde_json::to_string_pretty(file).map_err(|e| format!("cannot write JSON: {e}"))?;
    s.push('\n');
    Ok(s)
}

/// The fingerprint of a corpus: FNV-1a over each program's name and bytes,
/// in the order given.
pub fn fingerprint<'a>(programs: impl Iterator<Item = (&'a str, &'a [u8])>) -> String {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0100_0000_01b3;
    let mut h = OFFSET;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(PRIME);
        }
    };
    for (name, bytes) in programs {
        // Lengths first, so that no two lists hash the same bytes.
        eat(&(name.len() as u64).to_le_bytes());
        eat(name.as_bytes());
        eat(&(bytes.len() as u64).to_le_bytes());
        eat(bytes);
    }
    format!("{h:016x}")
}

#[cfg(test)]
mod tests {
    use super::fingerprint;

    #[test]
    fn fingerprints_tell_names_and_bytes_apart() {
        let a = fingerprint([("a.dcps", &b"$exit 1"[..]), ("b.dcps", &b"$exit 2"[..])].into_iter());
        let same = fingerprint([("a.dcps", &b"$exit 1"[..]), ("b.dcps", &b"$exit 2"[..])].into_iter());
        let bytes = fingerprint([("a.dcps", &b"$exit 1"[..]), ("b.dcps", &b"$exit 3"[..])].into_iter());
        let names = fingerprint([("a.dcps", &b"$exit 1"[..]), ("c.dcps", &b"$exit 2"[..])].into_iter());
        let split = fingerprint([("a.dcps$", &b"exit 1"[..]), ("b.dcps", &b"$exit 2"[..])].into_iter());
        assert_eq!(a, same);
        assert_eq!(a.len(), 16);
        for other in [bytes, names, split] {
            assert_ne!(a, other);
        }
    }
}
