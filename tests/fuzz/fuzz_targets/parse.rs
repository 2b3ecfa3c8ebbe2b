//! Fuzz target `parse`: arbitrary bytes as a program file (with the
//! libraries of `corpus/paper/` beside it); loading returns a program or
//! diagnostics, which must render. The check is `fuzzcheck::parse`
//! (`tests/support/fuzzcheck.rs`, included by path).

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
    if let Err(e) = fuzzcheck::parse(data) {
        panic!("{e}");
    }
});
