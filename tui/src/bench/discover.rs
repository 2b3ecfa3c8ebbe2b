//! Finding the programs of a bench run: every `.dcps` file under the given
//! paths, and every input of a language folder (by the ending its
//! definition's `inputs` line gives; run as `run --lang` runs it), sorted
//! by path, each with its directives read (a file given by name is taken
//! whatever its extension). Libraries (files of definitions
//! only, which `deepcps run` rejects with "the program has no main body")
//! are left out and counted.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use deepcps_machine::expect::Expectations;
use deepcps_machine::span::SourceMap;
use deepcps_machine::syntax::parser::parse_file;

/// One program to run.
#[derive(Clone, Debug)]
pub struct BenchProgram {
    /// Where it is.
    pub path: PathBuf,
    /// Its path as shown in rows (as found under the path given).
    pub name: String,
    /// Its bytes (loading reports invalid UTF-8).
    pub bytes: Vec<u8>,
    /// What its directives say.
    pub expect: Expectations,
}

/// The programs under the paths, and the libraries left out.
#[derive(Debug, Default)]
pub struct Found {
    /// The programs, sorted by name.
    pub programs: Vec<BenchProgram>,
    /// The names of the library files left out, sorted.
    pub libraries: Vec<String>,
}

/// Walks `paths`; an error (a missing path, an unreadable file, a malformed
/// directive) is a message for the user.
pub fn discover(paths: &[PathBuf]) -> Result<Found, String> {
    let mut files: BTreeMap<String, PathBuf> = BTreeMap::new();
    for p in paths {
        let meta = std::fs::metadata(p).map_err(|e| format!("cannot read `{}`: {e}", p.display()))?;
        if meta.is_dir() {
            walk(p, &mut files)?;
        } else {
            files.insert(p.display().to_string(), p.clone());
        }
    }
    let mut found = Found::default();
    for (name, path) in files {
        let bytes = std::fs::read(&path).map_err(|e| format!("cannot read `{name}`: {e}"))?;
        let text = String::from_utf8_lossy(&bytes);
        let expect = Expectations::parse(&text).map_err(|e| format!("{name}:{}: {}", e.line, e.message))?;
        if crate::lang::language_of(&path).is_none() && is_library(&name, &text) {
            found.libraries.push(name);
            continue;
        }
        found.programs.push(BenchProgram { path, name, bytes, expect });
    }
    Ok(found)
}

/// Collects the `.dcps` files under the directory `dir` (symbolic links to
/// directories are not followed, so there are no cycles).
fn walk(dir: &Path, files: &mut BTreeMap<String, PathBuf>) -> Result<(), String> {
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = std::fs::read_dir(&d).map_err(|e| format!("cannot list `{}`: {e}", d.display()))?;
        for entry in entries {
            let entry = entry.map_err(|e| format!("cannot list `{}`: {e}", d.display()))?;
            let path = entry.path();
            let is_dir = entry.file_type().map(|t| t.is_dir()).unwrap_or(false);
            if is_dir {
                stack.push(path);
            } else if (path.extension().is_some_and(|x| x == "dcps") || crate::lang::language_of(&path).is_some()) && path.is_file() {
                files.insert(path.display().to_string(), path);
            }
        }
    }
    Ok(())
}

/// Whether `text` parses as definitions with no main body. A file that does
/// not parse is a program (its run reports the error).
pub fn is_library(name: &str, text: &str) -> bool {
    let mut sources = SourceMap::new();
    let id = sources.add(name, None, text.to_string());
    matches!(parse_file(text, id), Ok(f) if f.main.is_none())
}

/// Every `n`-th program, from the `k`-th on (counted from 1): shard `k` of
/// `n`. The shards of `1..=n` partition the programs.
pub fn shard(programs: Vec<BenchProgram>, k: usize, n: usize) -> Vec<BenchProgram> {
    programs
        .into_iter()
        .enumerate()
        .filter(|(i, _)| i % n == k - 1)
        .map(|(_, p)| p)
        .collect()
}
