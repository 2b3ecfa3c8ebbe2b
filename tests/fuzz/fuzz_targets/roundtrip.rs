//! Fuzz target `roundtrip`: the printing round trip of `tests/roundtrip.rs`
//! on arbitrary bytes: a program that loads prints, loads again and prints
//! identically (`<lambda>`/`<builtin>` prints skipped). The check is
//! `fuzzcheck::roundtrip` (`tests/support/fuzzcheck.rs`, included by path).

#![no_main]

use libfuzzer_sys::fuzz_target;

#[allow(dead_code)]
#[path = "../../support/gen.rs"]
mod gen;

#[allow(dead_code)]
#[path = "../../support/compare.rs"]
mod compare;

#[allow(dead_code)]
#[path = "../../support/fuzzcheck.rs"]
mod fuzzcheck;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = fuzzcheck::roundtrip(data) {
        panic!("{e}");
    }
});
