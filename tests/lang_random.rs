//! Generated inputs: for random arithmetic expressions, `run --lang` of
//! the stack-style and the AST-style languages gives what the hand-written
//! call sequence gives (post-order and pre-order calls of the expression's
//! tree, written as the corpus programs write them), residual for residual.

use std::path::Path;

use deepcps_machine::graph::par::Parallel;
use deepcps_machine::graph::Machine;
use deepcps_machine::lang::{load_language, Ending, Language};
use deepcps_machine::run::Limits;
use deepcps_machine::span::SourceMap;
use deepcps_machine::syntax::{load_from, RealFs};
use deepcps_tests::root;

/// An expression tree.
enum E {
    Num(u32),
    Op(char, Box<E>, Box<E>),
}

/// A small deterministic generator (an LCG).
struct Rng(u64);

impl Rng {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

fn gen(r: &mut Rng, depth: u32) -> E {
    if depth == 0 || r.next(3) == 0 {
        return E::Num(r.next(100) as u32);
    }
    let op = ['+', '-', '*', '/'][r.next(4) as usize];
    E::Op(op, Box::new(gen(r, depth - 1)), Box::new(gen(r, depth - 1)))
}

fn prec(op: char) -> u8 {
    if op == '+' || op == '-' {
        1
    } else {
        2
    }
}

/// The text of `e`, with the brackets its shape needs (operators are
/// left-associative) and, now and then, brackets it does not need.
fn text(e: &E, r: &mut Rng, out: &mut String) {
    match e {
        E::Num(n) => out.push_str(&n.to_string()),
        E::Op(op, a, b) => {
            let wrap = |child: &E, right: bool, r: &mut Rng, out: &mut String| {
                let needs = match child {
                    E::Op(c, _, _) => prec(*c) < prec(*op) || (right && prec(*c) == prec(*op)),
                    E::Num(_) => false,
                };
                let paren = needs || r.next(5) == 0;
                if paren {
                    out.push('(');
                }
                text(child, r, out);
                if paren {
                    out.push(')');
                }
            };
            wrap(a, false, r, out);
            out.push_str(if r.next(2) == 0 { "" } else { " " });
            out.push(*op);
            out.push(' ');
            wrap(b, true, r, out);
        }
    }
}

fn action(op: char) -> &'static str {
    match op {
        '+' => "add",
        '-' => "sub",
        '*' => "mul",
        _ => "div",
    }
}

/// The calls of `e` in post-order (stack style) or pre-order (AST style).
fn calls(e: &E, pre: bool, out: &mut String) {
    match e {
        E::Num(n) => out.push_str(&format!("number F {n} (F)\n")),
        E::Op(op, a, b) => {
            if pre {
                out.push_str(&format!("{} F (F)\n", action(*op)));
            }
            calls(a, pre, out);
            calls(b, pre, out);
            if !pre {
                out.push_str(&format!("{} F (F)\n", action(*op)));
            }
        }
    }
}

fn run(program: deepcps_machine::term::Program) -> String {
    let report = Machine::new(program).report_par(&Limits::default(), &Parallel::sequential());
    format!("{:?}\n{}", std::mem::discriminant(&report.outcome), report.text)
}

fn by_hand(actions: &str, e: &E, pre: bool) -> String {
    let mut program = format!("include \"{actions}\"\nstart (F)\n");
    calls(e, pre, &mut program);
    program.push_str("end F (program)\n$exit program\n");
    let mut sources = SourceMap::new();
    let id = sources.add("by_hand.dcps", Some(root().join("corpus/paper/by_hand.dcps")), program);
    let p = load_from(&RealFs, id, &mut sources, false).expect("the hand-written calls load");
    run(p)
}

fn language(dir: &str) -> Language {
    load_language(&RealFs, &root().join(dir), &mut SourceMap::new()).expect("the language loads")
}

fn compare(lang: &Language, actions: &str, pre: bool, count: usize, seed: u64) {
    let mut r = Rng(seed);
    for i in 0..count {
        let e = gen(&mut r, 1 + (i % 4) as u32);
        let mut input = String::new();
        text(&e, &mut r, &mut input);
        let built = lang
            .build(&RealFs, "generated.arith", None, input.clone(), Ending::Residual)
            .unwrap_or_else(|(s, ds)| panic!("`{input}` does not build: {}", ds[0].render(&s, false)));
        let got = run(built.program);
        assert_eq!(got, by_hand(actions, &e, pre), "input `{input}` ({})", lang.name);
    }
}

#[test]
fn stack_style_inputs_give_the_post_order_calls_result() {
    std::env::set_current_dir(root()).expect("root");
    assert!(Path::new("corpus/paper/arith_stack_actions.dcps").exists());
    compare(&language("corpus/lang/arith_stack"), "arith_stack_actions.dcps", false, 1_000, 7);
}

#[test]
fn ast_style_inputs_give_the_pre_order_calls_result() {
    compare(&language("corpus/lang/arith_ast"), "arith_ast_actions.dcps", true, 300, 11);
}
