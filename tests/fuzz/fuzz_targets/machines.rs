//! Fuzz target `machines`: the equivalence test of `tests/equivalence.rs`
//! driven by the fuzzer. The bytes are the choices of the staged program
//! generator (`StagedGen::from_bytes`, `tests/support/gen.rs`, included by
//! path), so every input is a well-scoped staged program; it runs on the
//! graph machine and on the reference reducer within 2,000 steps, and the
//! two reports must agree in outcome kind (error kind included), step
//! counts by kind, warning count and printed result
//! (`tests/support/compare.rs`, included by path).

#![no_main]

use deepcps_machine::graph::Machine;
use deepcps_machine::reference::Reducer;
use deepcps_machine::run::Limits;
use deepcps_machine::span::SourceMap;
use deepcps_machine::syntax::load::add_source;
use deepcps_machine::syntax::{load_from, MemFs};
use libfuzzer_sys::fuzz_target;

#[allow(dead_code)]
#[path = "../../support/gen.rs"]
mod gen;

#[path = "../../support/compare.rs"]
mod compare;

/// The step budget of each machine (that of `tests/equivalence.rs`).
const STEPS: u64 = 2_000;

fuzz_target!(|data: &[u8]| {
    let src = gen::StagedGen::from_bytes(data).program().src;
    let mut sources = SourceMap::new();
    let loaded = add_source(&mut sources, "gen.dcps", None, src.clone().into_bytes())
        .map_err(|d| vec![d])
        .and_then(|id| load_from(&MemFs::default(), id, &mut sources, false));
    let program = match loaded {
        Ok(p) => p,
        Err(ds) => {
            let e: String = ds.iter().map(|d| d.render(&sources, false)).collect();
            panic!("the generated program does not load\n=== program\n{src}\n{e}");
        }
    };
    let limits = Limits {
        max_steps: STEPS,
        ..Limits::default()
    };
    let graph = Machine::new(program.clone()).report(&limits);
    let reference = Reducer::new(program).report(&limits);
    if let Err(e) = compare::compare(&graph, &reference) {
        panic!("=== program\n{src}\n{e}");
    }
});
