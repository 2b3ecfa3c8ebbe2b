//! The fuzz targets' checks (`tests/support/fuzzcheck.rs`) on saved inputs:
//! every file under `tests/inputs/fuzz/TARGET/` (TARGET one of `parse`,
//! `roundtrip`, `machines`) goes through that target's check, on a large
//! stack as in the binary. A crash `scripts/fuzz.sh` finds, minimised with
//! `cargo +nightly fuzz tmin`, is copied there (its file name saying what it
//! found) and so becomes a regression test. Among them: `roundtrip/
//! crash-neg-zero.dcps` (and its minimal form `neg-zero-min.dcps`): `--0`
//! must not print as `-0`, which parses back as the literal `0` (see
//! `expr/print.rs`). The other inputs are seeds and corner cases.

use std::path::Path;

use deepcps_tests::{fuzzcheck, root};

type Check = fn(&[u8]) -> Result<(), String>;

/// Runs `check` on every file of `tests/inputs/fuzz/DIR/`; returns how many.
fn run_dir(dir: &str, check: Check) -> usize {
    let base = root().join("tests/inputs/fuzz").join(dir);
    let mut files: Vec<_> = std::fs::read_dir(&base)
        .unwrap_or_else(|e| panic!("{}: {e}", base.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    files.sort();
    let failures: Vec<String> = files
        .iter()
        .filter_map(|p| {
            let data = std::fs::read(p).expect("read input");
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let r = std::thread::Builder::new()
                .stack_size(256 << 20)
                .spawn(move || check(&data))
                .expect("spawn")
                .join();
            match r {
                Ok(Ok(())) => None,
                Ok(Err(e)) => Some(format!("{dir}/{name}: {e}")),
                Err(_) => Some(format!("{dir}/{name}: panicked")),
            }
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    files.len()
}

fn at_least(dir: &str, check: Check, min: usize) {
    let n = run_dir(dir, check);
    assert!(n >= min, "{}: only {n} inputs", Path::new(dir).display());
}

#[test]
fn parse_inputs() {
    at_least("parse", fuzzcheck::parse, 1);
}

#[test]
fn roundtrip_inputs() {
    at_least("roundtrip", fuzzcheck::roundtrip, 1);
}

#[test]
fn machines_inputs() {
    at_least("machines", fuzzcheck::machines, 1);
}
