//! Closed code is shared, not copied (machine/src/graph/closed.rs): the
//! graph machine's memory on the builders, in nodes (deterministic, unlike
//! time or RSS), and the outcome beside the reference reducer's.

use deepcps::bench::scale::resize;
use deepcps_machine::graph::Machine;
use deepcps_machine::reference::Reducer;
use deepcps_machine::run::{Limits, Outcome};
use deepcps_machine::span::SourceMap;
use deepcps_machine::syntax::load::add_source;
use deepcps_machine::syntax::{load_from, RealFs};
use deepcps_machine::term::Program;
use deepcps_tests::root;

/// A benchmark of `corpus/bench/` with its `let N = ..` line set to `n`
/// (as `deepcps bench --plot` and `scripts/bench.sh` do),
/// loaded from its own place (its includes are relative to it).
fn bench_at(name: &str, n: u64) -> Program {
    let path = root().join("corpus/bench").join(name);
    let text = std::fs::read_to_string(&path).expect("the benchmark is in the repository");
    let text = resize(&text, "N", n).expect("the benchmark has a `let N` line");
    let mut sources = SourceMap::new();
    let id = add_source(&mut sources, name, Some(path), text.into_bytes()).expect("UTF-8");
    load_from(&RealFs, id, &mut sources, false).expect("the benchmark loads")
}

/// The peak of live nodes of a graph run of `name` at size `n` (which must
/// end with `$exit`).
fn peak(name: &str, n: u64) -> usize {
    peak_with(name, n, true)
}

/// The same, with or without fast runs.
fn peak_with(name: &str, n: u64, fast: bool) -> usize {
    let mut m = Machine::new(bench_at(name, n));
    m.fast = fast;
    let report = m.report(&Limits::default());
    assert!(matches!(report.outcome, Outcome::Exit(_)), "{name} at {n}: {:?}", report.outcome);
    m.peak_live_nodes()
}

/// Sharing changes nothing a user sees: the builders and the loop at small
/// sizes give the reference reducer's result and step counts.
#[test]
fn shared_fragments_run_as_the_reference_does() {
    for (name, n) in [("arith_builders.dcps", 30), ("loop_sum.dcps", 30)] {
        let p = bench_at(name, n);
        let limits = Limits::default();
        let g = Machine::new(p.clone()).report(&limits);
        let r = Reducer::new(p).report(&limits);
        assert_eq!(g.counts, r.counts, "{name} at {n}: step counts");
        assert_eq!(g.text, r.text, "{name} at {n}: result");
    }
}

/// The builders' chain of fragments holds each `add`'s fragment (closed
/// code) through one holder until `end` runs it: the peak grows by about
/// 22 nodes per number, where copying every fragment took 45.
#[test]
fn the_builders_chain_holds_closed_fragments_shared() {
    let (small, big) = (peak("arith_builders.dcps", 100), peak("arith_builders.dcps", 200));
    let per_number = (big - small) as f64 / 100.0;
    assert!(
        per_number < 30.0,
        "{per_number} live nodes per number at the peak ({small} at N=100, {big} at N=200)"
    );
}

/// The loop's function holds no closed lambda big enough to share: its
/// peak stays flat (the body copied per call is freed as it runs). Both
/// sizes run past the end of a fast run's budget (1024 steps), where its
/// state is built into the graph beside the body it replaces.
#[test]
fn the_loop_runs_in_constant_nodes() {
    let (small, big) = (peak("loop_sum.dcps", 1000), peak("loop_sum.dcps", 10000));
    assert_eq!(small, big, "the loop's peak grew from {small} to {big} nodes");
}

/// Fast runs keep closed code shared: building their state back into the
/// graph must not copy the library's shared lambdas at every place that
/// holds them (it did, before the values it met were classified: the
/// builders' peak grew by about 5 nodes per number, a fifth more). Besides
/// a bounded transient (a run's state built beside the body it replaces),
/// the peak is the stepping machine's.
#[test]
fn fast_runs_keep_the_builders_peak() {
    for n in [200, 400] {
        let (fast, slow) = (
            peak_with("arith_builders.dcps", n, true),
            peak_with("arith_builders.dcps", n, false),
        );
        assert!(
            fast <= slow + 4096 && fast * 100 <= slow * 105,
            "at N={n} the peak is {fast} nodes with fast runs, {slow} without"
        );
    }
}
