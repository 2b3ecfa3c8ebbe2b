//! The debugging session (`deepcps_machine::session`): stepping, time
//! travel by snapshots and replay, and every kind of breakpoint, on corpus
//! programs and small sources.

use std::path::Path;

use deepcps_machine::graph::par::Parallel;
use deepcps_machine::graph::Machine;
use deepcps_machine::print::Printer;
use deepcps_machine::run::Limits;
use deepcps_machine::session::{Breakpoint, End, Session, Stop};
use deepcps_machine::span::SourceMap;
use deepcps_machine::syntax::{load_program, RealFs};
use deepcps_machine::term::Program;
use deepcps_machine::view::program::ProgramView;
use deepcps_machine::view::Status;
use deepcps_tests::{load_source, root};

fn load(rel: &str) -> (Program, SourceMap) {
    let mut sources = SourceMap::new();
    match load_program(&RealFs, &root().join(rel), &mut sources) {
        Ok(p) => (p, sources),
        Err(ds) => panic!("{rel} does not load: {}", deepcps_tests::render(&sources, &ds)),
    }
}

/// The printed term of a machine (what the program pane shows).
fn text(m: &Machine) -> String {
    let p = m.to_program();
    Printer::new(&p.vars).program_text(&p.body)
}

/// The printed term after `n` steps of a fresh machine.
fn fresh_after(program: &Program, n: u64) -> String {
    let mut m = Machine::new(program.clone());
    for _ in 0..n {
        if !matches!(m.step(), Some(Ok(None))) {
            break;
        }
    }
    text(&m)
}

fn loop_source(n: u64) -> String {
    let text = std::fs::read_to_string(root().join("corpus/bench/loop_sum.dcps")).expect("loop_sum.dcps");
    text.replace("let N = 1000", &format!("let N = {n}"))
}

#[test]
fn steps_to_the_end_like_the_machine() {
    let (p, _) = load("corpus/paper/arith_built.dcps");
    let mut s = Session::new(p);
    while s.step() {}
    assert_eq!(s.steps(), 330);
    assert!(matches!(s.end(), Some(End::Exit(_))), "{:?}", s.end());
    assert!(s.next().is_none());
    // The builders' staging variables fired, `pt` among them, with the
    // steps that bound them in order.
    let names: Vec<&str> = s.fired().iter().map(|f| f.name.as_str()).collect();
    assert!(names.contains(&"ct"), "{names:?}");
    // `ct` fires (core time runs); `pt` never does in arith_built (the
    // residual is staged on it) but is handed on along its chain.
    use deepcps_machine::session::Bound;
    assert!(s.fired().iter().any(|f| f.name == "ct" && f.to == Bound::Value(true)));
    assert!(s.fired().iter().any(|f| f.name == "pt" && matches!(f.to, Bound::Var(_))));
    assert!(!s.fired().iter().any(|f| f.name == "pt" && matches!(f.to, Bound::Value(_))));
    assert!(s.fired().windows(2).all(|w| w[0].step <= w[1].step));
    assert!(s.fired().iter().all(|f| f.step >= 1 && f.step <= 330));
}

#[test]
fn going_back_gives_the_state_that_was_left() {
    let (p, _) = load("corpus/paper/arith_built.dcps");
    let mut s = Session::new(p.clone());
    let mut seen = vec![text(s.machine())];
    while s.step() {
        seen.push(text(s.machine()));
    }
    // Back one step at a time over the whole run, then jumps.
    for k in (0..s.steps()).rev() {
        s.back(1);
        assert_eq!(s.steps(), k);
        assert_eq!(text(s.machine()), seen[k as usize], "state after going back to step {k}");
        assert!(s.end().is_none());
    }
    for k in [300, 5, 329, 0, 17] {
        s.goto(k);
        assert_eq!(s.steps(), k);
        assert_eq!(text(s.machine()), seen[k as usize], "state after goto {k}");
    }
    // The fired list is cut back with the steps.
    s.goto(10);
    assert!(s.fired().iter().all(|f| f.step <= 10));
    // Forward past the end stops at the end.
    s.goto(10_000);
    assert_eq!(s.steps(), 330);
    assert!(matches!(s.end(), Some(End::Exit(_))));
}

#[test]
fn time_travel_over_ten_thousand_steps() {
    let p = load_source(&loop_source(2000)).expect("loop loads");
    let mut s = Session::new(p.clone());
    while s.step() {}
    assert_eq!(s.steps(), 12_007);
    let (held, interval) = s.snapshot_stats();
    assert!(held <= deepcps_machine::session::MAX_SNAPSHOTS, "{held} snapshots");
    assert!(interval >= 32);
    for k in [12_006, 7, 6_000, 11_999, 1] {
        s.goto(k);
        assert_eq!(s.steps(), k);
        assert_eq!(text(s.machine()), fresh_after(&p, k), "goto {k}");
    }
}

#[test]
fn snapshots_stay_bounded_on_long_runs() {
    let p = load_source(&loop_source(20_000)).expect("loop loads");
    let mut s = Session::new(p);
    while s.step() {}
    let (held, interval) = s.snapshot_stats();
    assert!(held <= deepcps_machine::session::MAX_SNAPSHOTS);
    assert!(interval > 32, "the interval grew: {interval}");
    s.back(1);
    assert_eq!(s.steps(), 120_006);
}

#[test]
fn snapshots_stay_within_their_memory_budget() {
    // Snapshots are clones of the machine: on a big term 256 of them took
    // 4.4 GB (the builders at 20,000 numbers, 100 MB to run). A budget
    // thins them as the count limit does, and going back still replays to
    // the same states.
    let p = load_source(&loop_source(2000)).expect("loop loads");
    let mut s = Session::new(p.clone());
    let one = s.machine().approx_bytes();
    let budget = 6 * one;
    s.set_snapshot_budget(budget);
    while s.step() {}
    assert_eq!(s.steps(), 12_007);
    let (held, interval) = s.snapshot_stats();
    assert!(
        s.snapshot_bytes() <= budget,
        "{} bytes in {held} snapshots, budget {budget}",
        s.snapshot_bytes()
    );
    assert!((2..=6).contains(&held), "{held} snapshots of about {one} bytes");
    assert!(interval >= 12_007 / 8, "interval {interval}");
    for k in [12_006, 5, 7_777, 1] {
        s.goto(k);
        assert_eq!(text(s.machine()), fresh_after(&p, k), "goto {k}");
    }
    // A budget smaller than one snapshot keeps two (step 0 and another).
    s.set_snapshot_budget(1);
    assert_eq!(s.snapshot_stats().0, 2);
    s.goto(12_007);
    s.back(3);
    assert_eq!(text(s.machine()), fresh_after(&p, 12_004));
}

#[test]
fn a_staging_variable_breakpoint_stops_after_it_is_bound() {
    let (p, _) = load("corpus/paper/arith_built.dcps");
    let mut s = Session::new(p);
    let i = s.add_breakpoint(Breakpoint::Fire("ct".into()));
    assert_eq!(s.run(u64::MAX, None, None), Stop::Breakpoint(i));
    let first = s.fired().iter().find(|f| f.name == "ct").map(|f| f.step);
    assert_eq!(Some(s.steps()), first, "stopped right after the step that bound ct");
    // Continuing stops at the next firing, later.
    let at = s.steps();
    assert_eq!(s.run(u64::MAX, None, None), Stop::Breakpoint(i));
    assert!(s.steps() > at);
    assert_eq!(s.breakpoints[i].hits, 2);
    // Disabled, it no longer stops: the run ends.
    s.toggle_breakpoint(i);
    assert_eq!(s.run(u64::MAX, None, None), Stop::Ended);
    assert_eq!(s.steps(), 330);
}

#[test]
fn step_exit_and_budget_stops() {
    let (p, _) = load("corpus/paper/arith_built.dcps");
    let mut s = Session::new(p);
    let st = s.add_breakpoint(Breakpoint::Step(100));
    let ex = s.add_breakpoint(Breakpoint::Exit);
    assert_eq!(s.run(u64::MAX, None, None), Stop::Breakpoint(st));
    assert_eq!(s.steps(), 100);
    assert_eq!(s.run(10, None, None), Stop::Budget);
    assert_eq!(s.steps(), 110);
    assert_eq!(s.run(u64::MAX, None, None), Stop::Breakpoint(ex));
    // Stopped before `$exit`: the next step is it, and it has not run.
    assert_eq!(s.steps(), 329);
    assert!(s.end().is_none());
    let next = s.next().expect("a next step");
    assert_eq!(next.what, deepcps_machine::graph::NextKind::Rule(deepcps_machine::run::Rule::Exit));
    assert_eq!(s.run(u64::MAX, None, None), Stop::Ended);
    assert_eq!(s.steps(), 330);
}

#[test]
fn error_breakpoint_stops_before_the_failing_step() {
    let (p, _) = load("corpus/paper/arith_env_unbound.dcps");
    let mut s = Session::new(p.clone());
    let e = s.add_breakpoint(Breakpoint::Error);
    assert_eq!(s.run(u64::MAX, None, None), Stop::Breakpoint(e));
    assert!(matches!(s.next().map(|n| n.what), Some(deepcps_machine::graph::NextKind::Error(_))));
    // Without the breakpoint the run ends on the error, at the same step.
    let at = s.steps();
    let mut t = Session::new(p);
    assert_eq!(t.run(u64::MAX, None, None), Stop::Ended);
    assert_eq!(t.steps(), at);
    match t.end() {
        Some(End::Error(err)) => assert!(err.message.contains("'y'"), "{}", err.message),
        other => panic!("expected an error end, got {other:?}"),
    }
}

#[test]
fn line_breakpoint_stops_before_a_body_of_that_line() {
    let (p, sources) = load("corpus/paper/arith_built.dcps");
    // Line 11 of arith_built.dcps: `number F 4 (F)`.
    let file = sources
        .files()
        .iter()
        .position(|f| f.name.ends_with("arith_built.dcps"))
        .expect("file");
    let f = &sources.files()[file];
    let starts: Vec<usize> = std::iter::once(0).chain(f.text.match_indices('\n').map(|(i, _)| i + 1)).collect();
    let line = f.text.lines().position(|l| l == "number F 4 (F)").expect("the line");
    let (start, end) = (starts[line] as u32, starts[line + 1] as u32);
    let id = deepcps_machine::span::FileId(file as u32);
    let mut s = Session::new(p);
    let b = s.add_breakpoint(Breakpoint::Line {
        file: id,
        start,
        end,
        label: format!("arith_built.dcps:{}", line + 1),
    });
    assert_eq!(s.run(u64::MAX, None, None), Stop::Breakpoint(b));
    let next = s.next().expect("next");
    assert_eq!(next.span.file, id);
    assert!(next.span.start >= start && next.span.start < end);
    assert!(s.steps() > 0, "the line's body runs after the ones before it");
}

#[test]
fn stuck_breakpoint() {
    // Binding `s` activates `x 1`, which waits for `x`.
    let src = "(s) { $exit (x) { @s: x 1 } } always";
    let p = load_source(src).expect("loads");
    let mut s = Session::new(p);
    let b = s.add_breakpoint(Breakpoint::Stuck);
    let stop = s.run(u64::MAX, None, None);
    assert_eq!(stop, Stop::Breakpoint(b), "the body `x 1` turns stuck on x");
    assert_eq!(s.steps(), 1);
    let (span, var) = s.stuck_hit().expect("the body it stopped on");
    assert_eq!(s.machine().source_vars().name(var), Some("x"));
    assert_eq!(&src[span.start as usize..span.end as usize], "@s: x 1", "{span:?}");
    // A body stuck from the start does not turn stuck: no stop.
    let p = load_source("(x) { @always: x 1 } (f) { f 2 }").expect("loads");
    let mut s = Session::new(p);
    s.add_breakpoint(Breakpoint::Stuck);
    assert_eq!(s.run(u64::MAX, None, None), Stop::Ended);
}

#[test]
fn the_stuck_breakpoint_stops_only_where_the_term_shows_a_stuck_body() {
    // Copies made by a β hold bodies stuck for a moment, until the same
    // step binds their parameters: no stop there. At every stop, the term
    // has a stuck body at the place the stop names.
    for rel in [
        "corpus/paper/arith_built.dcps",
        "corpus/paper/merge_staged.dcps",
        "corpus/paper/matrix_chain.dcps",
    ] {
        let (p, _) = load(rel);
        let mut s = Session::new(p);
        s.add_breakpoint(Breakpoint::Stuck);
        let mut stops = 0;
        while let Stop::Breakpoint(_) = s.run(u64::MAX, None, None) {
            stops += 1;
            let (span, _) = s.stuck_hit().expect("the body it stopped on");
            let p = s.machine().to_program();
            let view = ProgramView::of_program(&p.body, &p.vars);
            let stuck: Vec<_> = view.bodies.iter().filter(|b| matches!(b.status, Status::Stuck { .. })).collect();
            assert!(!stuck.is_empty(), "{rel}: a stop at step {} with no stuck body", s.steps());
            assert!(
                stuck.iter().any(|b| b.span == span),
                "{rel}: step {}: no stuck body at {span:?}",
                s.steps()
            );
        }
        assert!(stops < 40, "{rel}: {stops} stops");
    }
}

#[test]
fn reduce_a_subtree_stops_when_it_holds_nothing_pending() {
    let (p, _) = load("corpus/paper/arith_built.dcps");
    let mut s = Session::new(p);
    s.run(50, None, None);
    let next = s.next().expect("next");
    let anchor = s.machine().anchor(next.body);
    let stop = s.run(u64::MAX, None, Some(anchor));
    assert!(matches!(stop, Stop::SubtreeDone | Stop::Ended), "{stop:?}");
    if let Some(n) = s.next() {
        assert!(!s.machine().within(n.body, &anchor));
    }
    assert!(s.steps() > 50);
}

#[test]
fn bodies_in_order_match_the_lambda_graph() {
    for rel in [
        "corpus/paper/arith_built.dcps",
        "corpus/paper/merge_staged.dcps",
        "corpus/paper/matrix_chain.dcps",
    ] {
        let (p, _) = load(rel);
        let mut m = Machine::new(p);
        for step in 0..60 {
            let prog = m.to_program();
            let lg = deepcps_machine::view::LambdaGraph::build(&prog.body, &prog.vars);
            let views = lg
                .graph
                .node_indices()
                .filter(|&n| matches!(lg.graph[n].kind, deepcps_machine::view::lambda_graph::NodeKind::Body { .. }));
            let ids = m.bodies_in_order();
            assert_eq!(ids.len(), views.count(), "{rel} at step {step}");
            // The ready body of the view is the machine's next body.
            let ready = lg.bodies_with_status("ready");
            let order: Vec<_> = lg
                .graph
                .node_indices()
                .filter(|&n| matches!(lg.graph[n].kind, deepcps_machine::view::lambda_graph::NodeKind::Body { .. }))
                .collect();
            if let (Some(r), Some(next)) = (ready.first(), m.peek()) {
                let k = order.iter().position(|n| n == r).expect("ready is a body");
                assert_eq!(ids[k], next.body, "{rel} at step {step}");
            }
            if !matches!(m.step(), Some(Ok(None))) {
                break;
            }
        }
    }
}

#[test]
fn loads_every_paper_program() {
    // A session starts on every paper program and runs it to the end like the machine.
    for entry in std::fs::read_dir(root().join("corpus/paper")).expect("corpus/paper") {
        let path = entry.expect("entry").path();
        if path.extension().and_then(|e| e.to_str()) != Some("dcps") {
            continue;
        }
        let rel = path.strip_prefix(root()).unwrap_or(Path::new("?")).display().to_string();
        let mut sources = SourceMap::new();
        let Ok(p) = load_program(&RealFs, &path, &mut sources) else {
            continue;
        };
        let mut m = Machine::new(p.clone());
        let mut s = Session::new(p);
        s.run(100_000, None, None);
        let limits = deepcps_machine::run::Limits {
            max_steps: 100_000,
            ..Default::default()
        };
        m.run(&limits);
        assert_eq!(s.steps(), m.counts.total(), "{rel}");
    }
}

/// Every corpus program that loads (libraries and programs with static
/// errors do not), by path relative to the repository.
fn corpus_programs() -> Vec<(String, Program)> {
    let mut out = Vec::new();
    for dir in ["corpus/paper", "corpus/err", "corpus/bench"] {
        let mut paths: Vec<_> = std::fs::read_dir(root().join(dir))
            .expect("corpus dir")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.extension().and_then(|e| e.to_str()) == Some("dcps"))
            .collect();
        paths.sort();
        for path in paths {
            let mut sources = SourceMap::new();
            if let Ok(p) = load_program(&RealFs, &path, &mut sources) {
                let rel = path.strip_prefix(root()).unwrap_or(Path::new("?")).display().to_string();
                out.push((rel, p));
            }
        }
    }
    assert!(out.len() >= 25, "{} programs", out.len());
    out
}

/// What a session shows of its state: steps, counts, the end, the printed
/// term, the bound staging variables. (Not its snapshots: a parallel run
/// keeps one where each piece ends, a sequential one every `interval`
/// steps; `snapshots_bounded` checks both.)
fn seen(s: &Session) -> String {
    snapshots_bounded(s);
    format!(
        "{} {:?} {:?}\n{}\n{:?}",
        s.steps(),
        s.counts(),
        s.end(),
        text(s.machine()),
        s.fired()
    )
}

fn snapshots_bounded(s: &Session) {
    let (held, interval) = s.snapshot_stats();
    assert!((1..=deepcps_machine::session::MAX_SNAPSHOTS).contains(&held), "{held} snapshots");
    assert!(interval >= 32, "interval {interval}");
}

#[test]
fn parallel_sessions_reach_the_states_of_the_sequential_one() {
    let par = Parallel::eager(2).expect("threads");
    for (rel, p) in corpus_programs() {
        let mut one = Session::new(p.clone());
        let stop = one.run(200_000, None, None);
        let mut two = Session::with_parallel(p.clone(), par.clone());
        assert_eq!(two.parallel().threads(), 2);
        assert_eq!(two.run(200_000, None, None), stop, "{rel}");
        assert_eq!(seen(&two), seen(&one), "{rel}");
        // In budgets that end between snapshot steps, and with a deadline.
        let mut three = Session::with_parallel(p, par.clone());
        let far = std::time::Instant::now() + std::time::Duration::from_secs(600);
        while three.run(37, Some(far), None) == Stop::Budget {}
        assert_eq!(seen(&three), seen(&one), "{rel} in budgets of 37");
    }
}

#[test]
fn time_travel_after_a_parallel_run() {
    let p = load_source(&loop_source(2000)).expect("loop loads");
    let mut one = Session::new(p.clone());
    let mut two = Session::with_parallel(p.clone(), Parallel::eager(2).expect("threads"));
    assert_eq!(one.run(5_000, None, None), Stop::Budget);
    assert_eq!(two.run(5_000, None, None), Stop::Budget);
    assert_eq!(seen(&two), seen(&one));
    assert_eq!(two.run(u64::MAX, None, None), Stop::Ended);
    one.run(u64::MAX, None, None);
    assert_eq!(seen(&two), seen(&one));
    assert_eq!(two.steps(), 12_007);
    for k in [12_006, 7, 6_000, 11_999, 1, 4_999, 5_001] {
        two.goto(k);
        one.goto(k);
        assert_eq!(two.steps(), k);
        assert_eq!(text(two.machine()), fresh_after(&p, k), "goto {k}");
        assert_eq!(seen(&two), seen(&one), "goto {k}");
    }
    two.back(1);
    one.back(1);
    assert_eq!(seen(&two), seen(&one));
    // And a parallel run again from a state reached by going back.
    two.goto(300);
    one.goto(300);
    two.run(u64::MAX, None, None);
    one.run(u64::MAX, None, None);
    assert_eq!(seen(&two), seen(&one));
}

#[test]
fn breakpoints_stop_a_parallel_session_where_they_stop_a_sequential_one() {
    let (p, _) = load("corpus/paper/arith_built.dcps");
    let mut one = Session::new(p.clone());
    let mut two = Session::with_parallel(p, Parallel::eager(2).expect("threads"));
    // A run without breakpoints first, then with one, then disabled.
    assert_eq!(two.run(50, None, None), one.run(50, None, None));
    for s in [&mut one, &mut two] {
        s.add_breakpoint(Breakpoint::Fire("ct".into()));
    }
    for _ in 0..2 {
        let stop = one.run(u64::MAX, None, None);
        assert!(matches!(stop, Stop::Breakpoint(0)), "{stop:?}");
        assert_eq!(two.run(u64::MAX, None, None), stop);
        assert_eq!(seen(&two), seen(&one));
    }
    one.toggle_breakpoint(0);
    two.toggle_breakpoint(0);
    assert_eq!(two.run(u64::MAX, None, None), Stop::Ended);
    one.run(u64::MAX, None, None);
    assert_eq!(seen(&two), seen(&one));
    assert_eq!(two.steps(), 330);
}

#[test]
fn a_parallel_continue_runs_in_rounds_and_time_travel_replays_into_them() {
    // psum at D = 6: the two halves of every node are independent, so a run
    // without breakpoints reduces most of its steps in rounds.
    let (p, _) = load("corpus/bench/psum.dcps");
    let mut one = Session::new(p.clone());
    let mut two = Session::with_parallel(p.clone(), Parallel::new(2).expect("threads"));
    assert_eq!(two.run(u64::MAX, None, None), Stop::Ended);
    assert_eq!(one.run(u64::MAX, None, None), Stop::Ended);
    assert_eq!(seen(&two), seen(&one));
    let total = two.steps();
    // The rounds of a machine that records the events of its rounds, as a
    // session does (so it takes no fast runs), none thrown away (cutting
    // the run at every snapshot step gave 50 rounds, 27 units discarded).
    let mut m = Machine::new(p.clone());
    m.record_round_events = true;
    m.run_par(&Limits::default(), two.parallel());
    let stats = two.machine().par_stats();
    assert_eq!(stats, m.par_stats());
    assert_eq!(stats.discarded, 0);
    assert!(stats.steps * 2 >= total, "{} of {total} steps in rounds", stats.steps);
    // Into the stretch the rounds ran: each state is the sequential one, and
    // the replays keep their snapshots.
    for k in [total - 1, 1, total / 2, total / 2 + 1, 7, total / 3] {
        two.goto(k);
        one.goto(k);
        assert_eq!(two.steps(), k);
        assert_eq!(text(two.machine()), fresh_after(&p, k), "goto {k}");
        assert_eq!(seen(&two), seen(&one), "goto {k}");
    }
    let (held, _) = two.snapshot_stats();
    assert!(held > 2, "the replays kept snapshots: {held}");
}

#[test]
fn rounds_outlast_time_slices_and_the_interrupt_stops_them() {
    static STOP: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    let (p, _) = load("corpus/bench/psum.dcps");
    let mut one = Session::new(p.clone());
    one.run(u64::MAX, None, None);
    // Slices far shorter than a round (the debugger's are 40 ms): every
    // round still runs to its end, no unit's work is thrown away, and the
    // end is the sequential one.
    let mut two = Session::with_parallel(p.clone(), Parallel::new(2).expect("threads"));
    two.set_interrupt(&STOP);
    let mut slices = 0;
    while two.run(
        u64::MAX,
        Some(std::time::Instant::now() + std::time::Duration::from_micros(20)),
        None,
    ) == Stop::Slice
    {
        slices += 1;
        assert!(slices < 100_000, "the run does not end");
    }
    assert_eq!(seen(&two), seen(&one));
    let stats = two.machine().par_stats();
    assert!(stats.rounds > 0 && stats.discarded == 0, "{stats:?}");
    // The flag set: a run stops (a slice), whatever the budget.
    let mut three = Session::with_parallel(p, Parallel::new(2).expect("threads"));
    three.set_interrupt(&STOP);
    STOP.store(true, std::sync::atomic::Ordering::Relaxed);
    assert_eq!(three.run(u64::MAX, None, None), Stop::Slice);
    assert!(three.steps() < one.steps(), "stopped at {}", three.steps());
    STOP.store(false, std::sync::atomic::Ordering::Relaxed);
    assert_eq!(three.run(u64::MAX, None, None), Stop::Ended);
    assert_eq!(seen(&three), seen(&one));
}
