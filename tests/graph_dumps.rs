//! Snapshots of canonical graph dumps (`deepcps_machine::view::dump`): the
//! final state of every corpus program that loads, reduced by the graph
//! machine as `deepcps run` reduces it (the exit value after `$exit`, the
//! residual, or the term where an error or the step limit stopped the run),
//! and a few intermediate states of `arith_built` (the start; step 262, the
//! fragments merged into one core; step 320, only the `pt` chain left).

use std::path::Path;

use deepcps::views::{final_dump, render_state, state_after, View};
use deepcps_machine::graph::Machine;
use deepcps_machine::run::Limits;
use deepcps_machine::span::SourceMap;
use deepcps_machine::syntax::{load_program, RealFs};
use deepcps_tests::{directive, root, TEST_MAX_STEPS};

/// Checks what a dump says of itself: the node count of its header is its
/// number of node lines, nodes are numbered in order, and the binder named
/// by every variable occurrence (`(param of nK)`) is a node that binds that
/// name (a lambda with it among its parameters, or a `fix` naming it).
fn check_dump(dump: &str) {
    let nodes: usize = dump
        .lines()
        .nth(1)
        .and_then(|l| l.strip_prefix("nodes: "))
        .and_then(|n| n.parse().ok())
        .expect("a node count");
    let lines: Vec<&str> = dump.lines().skip(5).map(str::trim_start).collect();
    assert_eq!(lines.len(), nodes, "{dump}");
    for (i, l) in lines.iter().enumerate() {
        assert!(l.starts_with(&format!("n{i} ")), "line {i}: {l}");
    }
    let words = |s: &str| -> Vec<String> {
        s.split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect()
    };
    // Whether the node of line `l` binds `name`: a lambda with it among its
    // parameters, or a `fix` naming it.
    let binds = |l: &str, name: &str| -> bool {
        let head = l.split("  ").next().unwrap_or("");
        let head = match (head.split_once(" λ"), head.split_once(" fix ")) {
            (Some((_, h)), _) | (None, Some((_, h))) => h,
            _ => return false,
        };
        words(head).iter().any(|w| w == name)
    };
    let mut parent = vec![None; lines.len()];
    for (i, l) in lines.iter().enumerate() {
        for edge in l.split('→').skip(1) {
            let k: usize = edge[1..].split(' ').next().and_then(|n| n.parse().ok()).expect("a target");
            parent[k] = Some(i);
        }
    }
    for l in &lines {
        let Some(rest) = l.split_once(" var ").map(|(_, r)| r) else {
            continue;
        };
        let Some((name, how)) = rest.split_once("  (") else {
            continue;
        };
        let Some(binder) = how.strip_suffix(')').and_then(|h| h.split(" of n").nth(1)) else {
            assert_eq!(how, "free)", "{l}");
            continue;
        };
        let b: usize = binder.parse().expect("a node number");
        assert!(binds(lines[b], name), "{l}: n{b} does not bind {name}: {}", lines[b]);
        // The nearest enclosing node that binds the name is `b`.
        let i: usize = l[1..].split(' ').next().and_then(|n| n.parse().ok()).expect("a number");
        let mut up = parent[i];
        while let Some(p) = up {
            if binds(lines[p], name) {
                break;
            }
            up = parent[p];
        }
        assert_eq!(up, Some(b), "{l}: the nearest binder of {name} is not n{b}");
    }
}

#[test]
fn final_states() {
    let base = root();
    insta::glob!("../corpus", "**/*.dcps", |abs| {
        let rel = abs.strip_prefix(&base).unwrap_or(abs);
        let text = String::from_utf8_lossy(&std::fs::read(abs).unwrap_or_default()).into_owned();
        let mut sources = SourceMap::new();
        // Libraries and programs with static errors have no graph.
        let Ok(program) = load_program(&RealFs, abs, &mut sources) else {
            return;
        };
        let max_steps = directive(&text, "max-steps:")
            .and_then(|n| n.parse().ok())
            .unwrap_or(TEST_MAX_STEPS);
        let mut m = Machine::new(program);
        let outcome = m.run(&Limits {
            max_steps,
            ..Limits::default()
        });
        let dump = final_dump(&m, &outcome);
        assert_eq!(dump, final_dump(&m, &outcome), "{}: stable", rel.display());
        check_dump(&dump);
        insta::assert_snapshot!(dump);
    });
}

#[test]
fn arith_built_on_the_way() {
    let file = Path::new("corpus/paper/arith_built.dcps");
    for step in [0, 262, 320] {
        let mut sources = SourceMap::new();
        let program = load_program(&RealFs, &root().join(file), &mut sources).expect("arith_built loads");
        let (state, vars, note) = state_after(program, step, u64::MAX).expect("within the limits");
        assert_eq!(note, None, "step {step}");
        let dump = render_state(&state, &vars, &sources, View::Dump);
        check_dump(&dump);
        insta::assert_snapshot!(format!("arith_built_step_{step}"), dump);
    }
}
