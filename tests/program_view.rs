//! The program view (`deepcps_machine::view::program`): the canonical text
//! of a term with the place of every body and variable, checked on every
//! corpus program that loads (at step 0, and along the run of
//! `arith_built`), on an exit value, and on a chain of 10^5 statements on a
//! small stack.

use std::cmp::Reverse;
use std::path::{Path, PathBuf};

use deepcps_machine::graph::Machine;
use deepcps_machine::print::Printer;
use deepcps_machine::reference::Reducer;
use deepcps_machine::span::SourceMap;
use deepcps_machine::syntax::load::add_source;
use deepcps_machine::syntax::{load_from, load_program, MemFs, RealFs};
use deepcps_machine::term::{Atom, Body, Program, Vars};
use deepcps_machine::view::lambda_graph::{EdgeKind, NodeKind};
use deepcps_machine::view::program::BodyRegion;
use deepcps_machine::view::{LambdaGraph, ProgramView};
use deepcps_tests::{load_source, root, staged_chain, StagedGen};

const ARITH: &str = "corpus/paper/arith_built.dcps";

fn load(path: &Path) -> Option<Program> {
    let mut sources = SourceMap::new();
    load_program(&RealFs, &root().join(path), &mut sources).ok()
}

/// The printed name of `v` as the lambda graph knows it (the name in its
/// binder's scope), or its source name.
fn printed_name<'a>(lg: &'a LambdaGraph, vars: &'a Vars, v: deepcps_machine::term::VarId) -> &'a str {
    lg.vars
        .get(&v)
        .map(|w| w.name.as_str())
        .unwrap_or_else(|| vars.name(v).unwrap_or("_"))
}

/// What the printed extent of a body may begin with: `@` (a printed
/// stage), `fix ` (a `fix` body, or the recursive values it holds), or its
/// head as printed (for the layout `"e" (x)`, the expression).
fn head_beginnings(lg: &LambdaGraph, vars: &Vars, b: &BodyRegion) -> Vec<String> {
    let n = b.node;
    let mut out = vec!["@".to_string(), "fix ".to_string()];
    for (c, e) in lg.children(n) {
        if *e != EdgeKind::Head {
            continue;
        }
        let node = &lg.graph[c];
        match &node.kind {
            NodeKind::Var(v) => out.push(printed_name(lg, vars, *v).to_string()),
            NodeKind::Lambda { .. } => out.extend(["(".to_string(), "\"".to_string()]),
            NodeKind::Tuple => out.push("[".to_string()),
            NodeKind::Expr { .. } | NodeKind::Record | NodeKind::Map => out.push("\"".to_string()),
            NodeKind::Value => out.push(node.label.clone()),
            NodeKind::Body { .. } => {}
        }
    }
    out
}

/// Checks a view against the printer's `expected` text and the lambda graph
/// `lg` of the same term (`value`: the graph is of the value's wrapper,
/// whose root body is not in the view). Returns the number of bodies.
fn check(v: &ProgramView, expected: &str, lg: &LambdaGraph, vars: &Vars, value: bool, at: &str) -> usize {
    let text = v.text.as_str();
    assert_eq!(text, expected, "{at}: the printer's text");

    // Bodies: the graph's, node by node.
    let nodes: Vec<_> = lg
        .graph
        .node_indices()
        .filter(|&n| matches!(lg.graph[n].kind, NodeKind::Body { .. }))
        .collect();
    let nodes = if value { &nodes[1..] } else { &nodes[..] };
    assert_eq!(v.bodies.len(), nodes.len(), "{at}: one region per body node");
    for (b, &n) in v.bodies.iter().zip(nodes) {
        assert_eq!(b.node, n, "{at}");
        let NodeKind::Body { status, .. } = &lg.graph[n].kind else {
            unreachable!()
        };
        assert_eq!(&b.status, status, "{at}: status of node {}", n.index());
        assert_eq!(Some(b.span), lg.graph[n].span, "{at}");
        assert!(b.start <= b.end && b.end <= text.len(), "{at}: range {}..{}", b.start, b.end);
        assert!(text.is_char_boundary(b.start) && text.is_char_boundary(b.end), "{at}");
        if b.printed {
            assert!(b.start < b.end, "{at}: a printed body is not empty");
            let rest = &text[b.start..];
            let heads = head_beginnings(lg, vars, b);
            assert!(
                heads.iter().any(|h| rest.starts_with(h.as_str())),
                "{at}: body {} ({}) starts with none of {heads:?}: {}",
                n.index(),
                lg.graph[n].label,
                rest.lines().next().unwrap_or("")
            );
        } else {
            assert_eq!(b.start, b.end, "{at}: a body not printed has an empty range");
            // It stands where an expression string or a recursive value's
            // name is printed.
            assert!(
                text[b.start..].starts_with('"') || v.occurrence_at(b.start).is_some(),
                "{at}: body {} not printed, at {}",
                b.node.index(),
                &text[b.start..]
            );
        }
    }
    if !value && !v.bodies.is_empty() {
        // The root body covers the whole text but its final newline.
        assert_eq!((v.bodies[0].start, v.bodies[0].end), (0, text.len() - 1), "{at}");
    }

    // Extents nest: sorted outer first, each lies within the innermost
    // extent still open at its start.
    let mut order: Vec<usize> = (0..v.bodies.len()).collect();
    order.sort_by_key(|&i| (v.bodies[i].start, Reverse(v.bodies[i].end)));
    let mut open: Vec<usize> = Vec::new();
    for &i in &order {
        let b = &v.bodies[i];
        while open
            .last()
            .is_some_and(|&t| v.bodies[t].end <= b.start && v.bodies[t].start < v.bodies[t].end)
        {
            open.pop();
        }
        if let Some(&t) = open.last() {
            assert!(b.end <= v.bodies[t].end, "{at}: bodies {t} and {i} overlap without nesting");
        }
        if b.start < b.end {
            open.push(i);
        }
    }

    // Occurrences: sorted, disjoint, the printed name, found at every byte,
    // their binders print the same name before them.
    let mut last_end = 0;
    for o in &v.occurrences {
        assert!(last_end <= o.start && o.start < o.end && o.end <= text.len(), "{at}: {o:?}");
        last_end = o.end;
        let name = &text[o.start..o.end];
        assert_eq!(name, printed_name(lg, vars, o.var), "{at}: occurrence at {}", o.start);
        assert_eq!(v.occurrence_at(o.start), Some(o), "{at}");
        assert_eq!(v.occurrence_at(o.end - 1), Some(o), "{at}");
        if let Some((s, e)) = o.binder {
            assert_eq!(&text[s..e], name, "{at}: binder of the occurrence at {}", o.start);
            assert!(e <= o.start, "{at}: a binder is printed before its occurrences");
        }
    }

    // Segments partition the text; each is tagged with the innermost body
    // that contains it.
    let segs = v.segments();
    let mut pos = 0;
    for &(s, e, tag) in &segs {
        assert!(s == pos && s < e, "{at}: segment {s}..{e} after {pos}");
        pos = e;
        let containing = |i: usize| {
            let b = &v.bodies[i];
            b.start <= s && e <= b.end
        };
        if let Some(t) = tag {
            assert!(containing(t), "{at}: segment {s}..{e} outside body {t}");
        }
        // Innermost: the containing bodies are the tagged one and those that
        // contain it (checked on small terms: quadratic).
        if v.bodies.len() * segs.len() <= 4_000_000 {
            for i in (0..v.bodies.len()).filter(|&i| v.bodies[i].start < v.bodies[i].end && containing(i)) {
                let t = tag.unwrap_or_else(|| panic!("{at}: segment {s}..{e} in body {i} tagged None"));
                let (bi, bt) = (&v.bodies[i], &v.bodies[t]);
                assert!(
                    bi.start <= bt.start && bt.end <= bi.end,
                    "{at}: body {t} is not the innermost at {s}"
                );
            }
        }
    }
    assert_eq!(pos, text.len(), "{at}: the segments cover the text");

    // Lines.
    assert_eq!(v.line_starts.len(), text.matches('\n').count() + 1, "{at}");
    for (k, &s) in v.line_starts.iter().enumerate() {
        assert!(s == 0 || text.as_bytes()[s - 1] == b'\n', "{at}");
        assert_eq!(v.line_of(s), k, "{at}");
    }

    // The ready body is the lambda graph's first.
    let ready = lg.bodies_with_status("ready").into_iter().find(|n| nodes.contains(n));
    assert_eq!(v.ready().map(|i| v.bodies[i].node), ready, "{at}: the ready body");
    v.bodies.len()
}

/// The view of a program, checked; returns the view.
fn check_program(body: &Body, vars: &Vars, at: &str) -> ProgramView {
    let lg = LambdaGraph::build(body, vars);
    let v = ProgramView::with_graph(&lg, body, vars);
    let expected = Printer::new(vars).program_text(body);
    check(&v, &expected, &lg, vars, false, at);
    v
}

/// Runs `p` on the graph machine for up to `steps` steps, checking the view
/// of its state every `every` steps and handing it to `seen`; returns the
/// steps taken.
fn check_along_run(p: Program, every: u64, steps: u64, at: &str, mut seen: impl FnMut(&ProgramView)) -> u64 {
    let mut m = Machine::new(p);
    let mut step = 0;
    while step < steps {
        if step % every == 0 {
            let q = m.to_program();
            seen(&check_program(&q.body, &q.vars, &format!("{at} step {step}")));
        }
        match m.step() {
            Some(Ok(None)) => step += 1,
            _ => break,
        }
    }
    step
}

fn corpus_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in ["corpus/paper", "corpus/bench", "corpus/err"] {
        let mut fs: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
            .expect("corpus")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|f| f.extension().is_some_and(|e| e == "dcps"))
            .collect();
        fs.sort();
        files.extend(fs);
    }
    files
}

#[test]
fn every_corpus_program_at_step_0() {
    let mut checked = 0;
    let mut bodies = 0;
    let mut occurrences = 0;
    let mut bound = 0;
    for f in corpus_files() {
        let Some(p) = load(&f) else { continue };
        let at = f.display().to_string();
        let v = check_program(&p.body, &p.vars, &at);
        // `of_program` builds the same view.
        let w = ProgramView::of_program(&p.body, &p.vars);
        assert_eq!((&w.text, &w.bodies, &w.occurrences), (&v.text, &v.bodies, &v.occurrences), "{at}");
        checked += 1;
        bodies += v.bodies.len();
        occurrences += v.occurrences.len();
        bound += v.occurrences.iter().filter(|o| o.binder.is_some()).count();
    }
    assert!(checked >= 25, "only {checked} programs checked");
    assert!(
        bodies > 500 && occurrences > 1000 && bound > 900,
        "{bodies} bodies, {occurrences} occurrences ({bound} bound)"
    );
}

#[test]
fn every_corpus_program_along_its_run() {
    // Every 7th step of every program (capped): the view tracks the graph
    // machine's exported state.
    let (mut hidden, mut quoted) = (0, 0);
    for f in corpus_files() {
        let Some(p) = load(&f) else { continue };
        check_along_run(p, 7, 400, &f.display().to_string(), |v| {
            hidden += v.bodies.iter().filter(|b| !b.printed).count();
            // Names inside expression strings.
            quoted += v
                .occurrences
                .iter()
                .filter(|o| v.text[..o.start].ends_with(['"', '+', '*']))
                .count();
        });
    }
    // Lambdas inside expression strings (the builders' stacks) are bodies
    // not printed; variables inside expressions are found.
    assert!(
        hidden > 100 && quoted > 1000,
        "{hidden} bodies not printed, {quoted} names in expressions"
    );
}

#[test]
fn arith_built_ready_body_at_every_step_and_its_exit_value() {
    let p = load(Path::new(ARITH)).expect("arith_built loads");
    let mut m = Machine::new(p);
    let mut step = 0u64;
    let mut readies = 0;
    let value: Atom = loop {
        let q = m.to_program();
        let v = check_program(&q.body, &q.vars, &format!("{ARITH} step {step}"));
        let lg = LambdaGraph::build(&q.body, &q.vars);
        let ready = v.ready().map(|i| v.bodies[i].node);
        assert_eq!(ready, lg.bodies_with_status("ready").first().copied(), "step {step}");
        if let Some(i) = v.ready() {
            readies += 1;
            let b = &v.bodies[i];
            assert!(b.printed && b.start < b.end, "step {step}: the ready body is printed");
            // The ready body's segments carry its index.
            assert!(v.segments().iter().any(|s| s.2 == Some(i)), "step {step}");
        }
        match m.step() {
            Some(Ok(None)) => step += 1,
            Some(Ok(Some(value))) => break value,
            other => panic!("step {step}: {other:?}"),
        }
    };
    assert_eq!(step + 1, 330, "arith_built runs 330 steps");
    assert_eq!(readies, 330, "a ready body before every step");

    let vars = m.exit_vars().expect("exit vars").clone();
    let v = ProgramView::of_value(&value, &vars);
    let expected = Printer::new(&vars).atom_text(&value);
    let wrapper = ProgramView::value_body(&value);
    let lg = LambdaGraph::build(&wrapper, &vars);
    assert_eq!(check(&v, &expected, &lg, &vars, true, "exit value"), 4);
    assert!(expected.starts_with("(exit)[pt] {\n  @pt: \"4*2\" (prod)[pt]\n"), "{expected}");
    let staged: Vec<&str> = v
        .bodies
        .iter()
        .map(|b| &v.text[b.start..b.end])
        .filter(|t| t.starts_with("@pt: "))
        .collect();
    assert_eq!(staged.len(), 4, "{expected}");
    assert!(
        staged[0].starts_with("@pt: \"4*2\" (prod)[pt]") && staged[3] == "@pt: exit sum",
        "{staged:?}"
    );
    // The chain nests: each statement's extent holds the next ones.
    for w in v.bodies.windows(2) {
        assert!(w[0].start < w[1].start && w[1].end == w[0].end, "{:?}", v.bodies);
    }
    // `prod` in "1+prod" jumps to the `(prod)` that binds it.
    let prod = v
        .occurrences
        .iter()
        .find(|o| &v.text[o.start..o.end] == "prod")
        .expect("an occurrence of prod");
    let (s, _) = prod.binder.expect("bound");
    assert_eq!(&v.text[s - 1..s + 5], "(prod)");
    // `pt` in the stages is bound by the `[pt]` of `(exit)[pt]`.
    let first_pt = v.occurrences.iter().find(|o| &v.text[o.start..o.end] == "pt").expect("pt");
    assert_eq!(first_pt.binder, Some((7, 9)));
}

#[test]
fn a_chain_of_100000_statements_on_a_small_stack() {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(|| {
            let n = 100_000;
            let started = std::time::Instant::now();
            let mut sources = SourceMap::new();
            let id = add_source(&mut sources, "chain.dcps", None, staged_chain(n).into_bytes()).expect("utf8");
            let p = load_from(&MemFs::default(), id, &mut sources, false).expect("resolves");
            let loaded = started.elapsed();
            let lg = LambdaGraph::build(&p.body, &p.vars);
            let graph = started.elapsed();
            let v = ProgramView::with_graph(&lg, &p.body, &p.vars);
            let viewed = started.elapsed();
            // About 1.5 s for the graph and 1 s for the view in a debug build.
            eprintln!("chain of {n}: loaded {loaded:?}, graph {graph:?}, view {viewed:?}");
            let expected = Printer::new(&p.vars).program_text(&p.body);
            check(&v, &expected, &lg, &p.vars, false, "chain");
            // The let, `k x`, and the chain's n + 1 statements.
            assert_eq!(v.bodies.len(), n + 3);
            // Every `@si:` and `xi` of the chain is bound by a printed binder.
            assert!(v.occurrences.iter().all(|o| o.binder.is_some()));
            // One line per statement at least; the `let` prints as a lambda
            // applied to a braced one.
            assert!(v.line_starts.len() >= n + 2, "{} lines", v.line_starts.len());
            // Numbered as the lambda graph walks: the let, its scope (the
            // chain), then the body of `f`.
            let last = &v.bodies[n + 1];
            assert_eq!(&v.text[v.bodies[n + 2].start..v.bodies[n + 2].end], "k x");
            assert_eq!(&v.text[last.start..last.end], format!("@s{n}: $exit x{n}"));
            assert_eq!(v.line_of(last.start), v.text[..last.start].matches('\n').count());
            assert_eq!(
                v.line_of(v.bodies[1].start),
                v.line_of(last.start) - n,
                "the chain's first statement"
            );
        })
        .expect("spawn")
        .join()
        .expect("no stack overflow, no panic");
}

#[test]
fn recursive_values_held_twice_along_their_runs() {
    // Copies of one recursive value named apart print as one `fix`, and two
    // values of one name as two: the view's bodies and names stay where the
    // printer puts them at every step.
    for (name, src) in [
        (
            "copies",
            "fix f1(n, k) { if n () { f1 false k } () { k f1 } } in\n\"f1\" (e2)\n@never: [f1, 0] f1\n",
        ),
        (
            "two values",
            "fix f(k) { k 1 } in\n(g) {\n  fix f(k) { k 2 } in\n  \"f\" (e)\n  @never: [g, f] e\n} f\n",
        ),
        (
            "a copy in a nested body",
            "fix f1(n, k) { if n () { f1 false k } () { k f1 } } in\n\"f1\" (e2)\n(g) { @never: [f1, g] (x) { @never: [f1, g] x } g } f1\n",
        ),
    ] {
        let p = load_source(src).expect("loads");
        let steps = check_along_run(p, 1, 100, name, |v| assert!(v.text.contains("fix "), "{name}: {}", v.text));
        assert!(steps >= 2, "{name}: {steps} steps");
    }
}

#[test]
fn labels_name_held_recursive_values_as_the_text_does() {
    // A recursive value whose `fix` a body prints before it (or a copy of
    // one, named apart by the reference's β) reads as its printed name in
    // that body's label, on both machines' final terms; the labels used
    // to show `fix f(k) {…}` where the text has `f_1`.
    for (name, src, text, bodies, lambdas) in [
        (
            "two values",
            "fix f(k) { k 1 } in\n(g) {\n  fix f(k) { k 2 } in\n  \"f\" (e)\n  @never: [g, f] e\n} f\n",
            "[f_1, f] f",
            vec!["@never: [f_1, f] f"],
            vec!["fix f(k)", "fix f_1(k)"],
        ),
        (
            "a copy in a nested body",
            "fix f1(n, k) { if n () { f1 false k } () { k f1 } } in\n\"f1\" (e2)\n(g) { @never: [f1, g] (x) { @never: [f1, g] x } g } f1\n",
            "[f1, f1] x",
            vec!["@never: [f1, f1] (x) {…} f1", "@never: [f1, f1] x"],
            vec!["fix f1(n, k)"],
        ),
    ] {
        let p = load_source(src).expect("loads");
        let mut graph = Machine::new(p.clone());
        while let Some(Ok(None)) = graph.step() {}
        let g = graph.to_program();
        let mut reference = Reducer::new(p);
        while let Some(Ok(None)) = reference.step() {}
        for (machine, body, vars) in [("graph", &g.body, &g.vars), ("reference", &reference.body, &reference.vars)] {
            let lg = LambdaGraph::build(body, vars);
            let view = ProgramView::with_graph(&lg, body, vars);
            assert!(view.text.contains(text), "{name}, {machine}: {}", view.text);
            let labels = |lambda: bool| -> Vec<&str> {
                lg.graph
                    .node_weights()
                    .filter(|n| matches!(n.kind, NodeKind::Lambda { .. }) == lambda)
                    .filter(|n| lambda || matches!(n.kind, NodeKind::Body { .. }))
                    .map(|n| n.label.as_str())
                    .collect()
            };
            // The applications holding the values (each value's own
            // bodies appear once per place that holds it).
            let outer: Vec<&str> = labels(false).into_iter().filter(|l| l.starts_with("@never")).collect();
            assert_eq!(outer, bodies, "{name}, {machine}");
            let mut lams: Vec<&str> = labels(true).into_iter().filter(|l| l.starts_with("fix ")).collect();
            lams.sort_unstable();
            lams.dedup();
            assert_eq!(lams, lambdas, "{name}, {machine}");
        }
    }
}

#[test]
fn generated_programs_along_their_runs() {
    // Staged programs (recursive values held in several places among
    // them), every 5th step: the view and the lambda graph name and place
    // what the printer prints.
    // `DEEPCPS_VIEW_CASES` runs more by hand.
    let cases: u64 = std::env::var("DEEPCPS_VIEW_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(400);
    let mut checked = 0;
    for seed in 0..cases {
        let Ok(p) = load_source(&StagedGen::new(seed).program().src) else {
            continue;
        };
        check_along_run(p, 5, 200, &format!("seed {seed}"), |_| checked += 1);
    }
    assert!(checked > 1000, "{checked} states checked");
}
