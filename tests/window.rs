//! Windows of a large term (machine/src/graph/window.rs): what the
//! debugger shows of a state too large to print whole. A window holds the
//! body it is centred on, costs its own size whatever the term's, lists
//! its bodies in the lambda graph's order with the machine's states, and
//! elides big parts as `…`.

use deepcps::bench::scale::resize;
use deepcps_machine::graph::window::{BodyState, WindowSize};
use deepcps_machine::graph::Machine;
use deepcps_machine::print::Printer;
use deepcps_machine::span::SourceMap;
use deepcps_machine::syntax::load::add_source;
use deepcps_machine::syntax::{load_from, RealFs};
use deepcps_machine::view::LambdaGraph;
use deepcps_tests::root;

/// The builders at `n` numbers, stepped `steps` times.
fn builders_at(n: u64, steps: u64) -> Machine {
    let path = root().join("corpus/bench/arith_builders.dcps");
    let text = std::fs::read_to_string(&path).expect("the benchmark is in the repository");
    let text = resize(&text, "N", n).expect("a `let N` line");
    let mut sources = SourceMap::new();
    let id = add_source(&mut sources, "arith_builders.dcps", Some(path), text.into_bytes()).expect("UTF-8");
    let p = load_from(&RealFs, id, &mut sources, false).expect("loads");
    let mut m = Machine::new(p);
    for _ in 0..steps {
        assert!(m.step().is_some_and(|r| r.is_ok()), "the builders run on");
    }
    m
}

#[test]
fn a_window_holds_its_centre_and_stays_small() {
    let m = builders_at(300, 9_000);
    let ready = m.peek().expect("a body is pending").body;
    let size = WindowSize::default();
    let w = m.window(ready, size);
    assert!(w.bodies.contains(&ready), "the window holds the ready body");
    let i = w.bodies.iter().position(|&b| b == ready).expect("listed");
    assert_eq!(w.states[i].0, BodyState::Pending { ready: true });
    let text = Printer::new(&w.program.vars).program_text(&w.program.body);
    let whole = Printer::new(&m.to_program().vars).program_text(&m.to_program().body);
    assert!(
        text.len() * 4 < whole.len(),
        "a window of {} bytes of a term of {}",
        text.len(),
        whole.len()
    );
    assert!(!w.elided.is_empty(), "big parts are elided");
    assert!(text.contains('…'), "{text}");
    // The window's bodies are the lambda graph's, in its order.
    let lg = LambdaGraph::build(&w.program.body, &w.program.vars);
    assert_eq!(lg.body_addresses.len(), w.bodies.len());
    assert_eq!(w.states.len(), w.bodies.len());
    // A bare window of a body is rooted at that body, everything in it
    // elided (the worklist prints such windows).
    assert_ne!(ready, m.root, "the ready body is nested in the term");
    let bare = m.window(ready, WindowSize { up: 0, cap: 0, room: 0 });
    assert_eq!(bare.bodies.first(), Some(&ready));
    assert!(bare.enclosing > 0);
}

#[test]
fn an_elided_body_opens_as_a_window_of_its_own() {
    let m = builders_at(300, 9_000);
    let ready = m.peek().expect("a body is pending").body;
    let w = m.window(ready, WindowSize::default());
    let elided = w
        .elided
        .iter()
        .copied()
        .find(|n| m.body_state(*n).is_some())
        .expect("an elided body");
    let inner = m.window(elided, WindowSize::default());
    assert!(inner.bodies.contains(&elided));
    let at = inner.bodies.iter().position(|&b| b == elided).expect("listed");
    // It is shown, not elided, now.
    assert!(!inner.elided.contains(&elided));
    assert!(at < inner.bodies.len());
}

#[test]
fn a_small_term_fits_whole_in_its_window() {
    let m = builders_at(3, 10);
    let ready = m.peek().expect("a body is pending").body;
    let w = m.window(
        ready,
        WindowSize {
            up: usize::MAX,
            cap: u64::MAX,
            room: u64::MAX,
        },
    );
    assert!(w.elided.is_empty());
    assert_eq!(w.enclosing, 0);
    let text = Printer::new(&w.program.vars).program_text(&w.program.body);
    let p = m.to_program();
    assert_eq!(text, Printer::new(&p.vars).program_text(&p.body));
    assert_eq!(w.bodies, m.bodies_in_order());
}

#[test]
fn the_counts_and_the_worklist_are_the_machines() {
    let m = builders_at(30, 700);
    let c = m.body_counts();
    let (first, total) = m.pending_in_order(6);
    assert_eq!(c.ready + c.pending, total, "{c:?}");
    assert_eq!(first.first().copied(), m.peek().map(|n| n.body));
    assert!(matches!(m.body_state(first[0]), Some(BodyState::Pending { ready: true })));
}
