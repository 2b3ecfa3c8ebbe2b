//! The debugger's cost of a step with every pane shown: one `s` on the
//! paper's builders (`corpus/bench/arith_builders.dcps`) at 3,000 and at
//! 20,000 numbers, stopped half-way through the build, measured from the
//! command to the frame with all views (term, lambda graph around the
//! focus, staging chains; both states are large, so the term pane shows a
//! window of the term). Targets: 30 ms at 3,000 numbers, 100 ms at
//! 20,000.
//!
//! `cargo bench -p deepcps --bench frames` (add `-- --quick` for a short
//! run).

use std::path::PathBuf;

use criterion::Criterion;
use deepcps::bench::scale::resized_copy;
use deepcps::debug::worker::{Engine, Request, Worker};
use deepcps_machine::graph::par::Parallel;

/// The builders at `n` numbers, written to a temporary file (the include
/// made absolute), and a debugger on it stopped at `step`.
fn debugger(n: u64, step: u64) -> Engine {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let path = resized_copy(&root.join("corpus/bench/arith_builders.dcps"), "N", n, &std::env::temp_dir()).expect("the builders");
    let w = Worker::load(&path, Parallel::sequential(), false, u64::MAX).expect("loads");
    let mut e = Engine::inline(w);
    e.send(Request::Goto(step));
    let _ = e.frames();
    e
}

fn frames(c: &mut Criterion) {
    let mut g = c.benchmark_group("debugger_step");
    g.sample_size(10);
    for (n, step) in [(3_000, 125_000), (20_000, 800_000)] {
        let mut e = debugger(n, step);
        g.bench_function(format!("builders_{n}"), |b| {
            b.iter(|| {
                e.send(Request::Step(1));
                e.frames().expect("frames")
            })
        });
    }
    g.finish();
}

// What `criterion_group!`/`criterion_main!` expand to, written out because
// the macros' functions carry no documentation (the workspace lints
// `missing_docs`).
fn main() {
    let mut c = Criterion::default().configure_from_args();
    frames(&mut c);
    c.final_summary();
}
