//! Fuzz target `machines`: the equivalence test of `tests/equivalence.rs`
//! driven by the fuzzer: the bytes are the choices of the staged program
//! generator, both machines run the program within 2,000 steps and must
//! agree. The check is `fuzzcheck::machines` (`tests/support/fuzzcheck.rs`,
//! included by path, with the generator and the comparison).

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
    if let Err(e) = fuzzcheck::machines(data) {
        panic!("{e}");
    }
});
