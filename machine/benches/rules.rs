//! Criterion benches of the hot rules: one group per rule kind (β, the
//! expression form, `if`, `fix`), each on a small generated program that is
//! dominated by that rule, and one small run of the paper's stack-style
//! builders (`corpus/bench/arith_builders.dcps`) as a mix of all of them.
//!
//! Every program goes through [`run`], the one place that picks the machine.
//! Parsing and resolving are done once, outside the measurement; each
//! iteration runs a fresh clone of the resolved program.
//!
//! `cargo bench -p deepcps-machine --bench rules` (add `-- --quick` for a
//! short run).

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{BatchSize, Criterion};
use deepcps_machine::graph::Machine;
use deepcps_machine::run::{Limits, Outcome, Report};
use deepcps_machine::span::SourceMap;
use deepcps_machine::syntax::load::add_source;
use deepcps_machine::syntax::{load_from, RealFs};
use deepcps_machine::term::Program;

/// Runs `program` on the machine under measurement.
fn run(program: Program) -> Report {
    Machine::new(program).report(&Limits::default())
}

/// Parses and resolves `text`; `path` is where its includes are relative to.
fn load(name: &str, path: Option<PathBuf>, text: String) -> Program {
    let mut sources = SourceMap::new();
    let id = add_source(&mut sources, name, path, text.into_bytes()).expect("bench programs are UTF-8");
    match load_from(&RealFs, id, &mut sources, false) {
        Ok(p) => p,
        Err(ds) => {
            let msg: String = ds.iter().map(|d| d.render(&sources, false)).collect();
            panic!("bench program `{name}` does not load:\n{msg}")
        }
    }
}

/// β: a chain of `n` `let`s, each binding a variable to the previous one
/// (`let` of a non-expression is a β step).
fn beta_chain(n: usize) -> String {
    let mut s = String::from("let v0 = 0\n");
    for i in 1..=n {
        s.push_str(&format!("let v{i} = v{}\n", i - 1));
    }
    s.push_str(&format!("$exit v{n}\n"));
    s
}

/// The expression form: a chain of `n` `"e" (x)` steps.
fn expr_chain(n: usize) -> String {
    let mut s = String::from("\"0\" (v0)\n");
    for i in 1..=n {
        s.push_str(&format!("\"v{}+{i}\" (v{i})\n", i - 1));
    }
    s.push_str(&format!("$exit v{n}\n"));
    s
}

/// `if`: `n` nested conditionals on alternating known conditions (each
/// followed by the β of the chosen branch).
fn if_chain(n: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        if i % 2 == 0 {
            s.push_str("if true () {\n");
        } else {
            s.push_str("if false () { $exit 0 } () {\n");
        }
    }
    s.push_str("$exit 1\n");
    for i in (0..n).rev() {
        if i % 2 == 0 {
            s.push_str("} () { $exit 0 }\n");
        } else {
            s.push_str("}\n");
        }
    }
    s
}

/// `fix`: a chain of `n` `fix` definitions, none of them called.
fn fix_chain(n: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        s.push_str(&format!("fix f{i}(k) {{ f{i} k }} in\n"));
    }
    s.push_str("$exit 1\n");
    s
}

/// The builders workload at size `n`.
fn builders(n: usize) -> Program {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus/bench/arith_builders.dcps");
    let text = std::fs::read_to_string(&path).expect("corpus/bench/arith_builders.dcps");
    let text: String = text
        .lines()
        .map(|l| {
            if l.starts_with("let N =") {
                format!("let N = {n}\n")
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    load("arith_builders.dcps", Some(path), text)
}

/// Benches `program` under `name` in its own group, after checking once that
/// it finishes (so a broken program fails loudly instead of timing an error).
fn bench(c: &mut Criterion, group: &str, name: &str, program: Program) {
    let report = run(program.clone());
    assert!(
        matches!(report.outcome, Outcome::Exit(_) | Outcome::Residual),
        "{group}/{name} does not finish: {:?}",
        report.outcome
    );
    let mut g = c.benchmark_group(group);
    g.throughput(criterion::Throughput::Elements(report.counts.total()));
    g.bench_function(name, |b| {
        b.iter_batched(|| program.clone(), |p| black_box(run(p)), BatchSize::SmallInput)
    });
    g.finish();
}

/// The length of the generated rule chains: small enough for the quadratic
/// reference reducer (~15 ms per run).
const CHAIN: usize = 200;

fn rules(c: &mut Criterion) {
    let n = CHAIN;
    bench(c, "beta", &format!("let_chain_{n}"), load("beta.dcps", None, beta_chain(n)));
    bench(c, "expr", &format!("expr_chain_{n}"), load("expr.dcps", None, expr_chain(n)));
    bench(c, "if", &format!("if_chain_{n}"), load("if.dcps", None, if_chain(n)));
    bench(c, "fix", &format!("fix_chain_{n}"), load("fix.dcps", None, fix_chain(n)));
    bench(c, "builders", "arith_builders_10", builders(10));
}

// What `criterion_group!`/`criterion_main!` expand to, written out because
// the macros' functions carry no documentation (the workspace lints
// `missing_docs`).
fn main() {
    let mut c = Criterion::default().configure_from_args();
    rules(&mut c);
    c.final_summary();
}
