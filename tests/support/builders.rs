//! Generated programs in the shape of the paper's builders: a random
//! arithmetic expression handed to the paper's actions as a parser would
//! (`corpus/paper/arith_stack_actions.dcps` in post-order,
//! `corpus/paper/arith_ast_actions.dcps` in pre-order), now and then with a
//! build-time `for` loop of actions, and the program built then used in one
//! of the ways a program is: returned, run, run with a continuation of its
//! own, or run twice (two holders of one lambda whose staged bodies wake
//! later, once per holder). These are the staged shapes the machines must
//! agree on: closures with active bodies, residual code applied later,
//! staged recursion (the loop), shared lambdas whose bodies wake later.

use std::collections::HashMap;
use std::path::PathBuf;

use deepcps_machine::span::SourceMap;
use deepcps_machine::syntax::load::add_source;
use deepcps_machine::syntax::{load_from, MemFs};
use deepcps_machine::term::Program;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use crate::{render, root};

/// The action libraries a generated program includes, by the name it
/// includes them with.
const LIBRARIES: [&str; 3] = ["builders.dcps", "arith_stack_actions.dcps", "arith_ast_actions.dcps"];

/// An arithmetic expression.
enum Expr {
    Num(i64),
    /// An operator (`add`, `sub`, `mul`, `div`: the actions' names) and
    /// its operands.
    Op(&'static str, Box<Expr>, Box<Expr>),
}

/// The generator of builder programs: a seeded random source.
pub struct BuilderGen {
    rng: StdRng,
}

impl BuilderGen {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> BuilderGen {
        BuilderGen {
            rng: StdRng::seed_from_u64(seed),
        }
    }

    fn below(&mut self, n: u64) -> u64 {
        self.rng.random_range(0..n)
    }

    fn expr(&mut self, depth: u32) -> Expr {
        if depth == 0 || self.below(3) == 0 {
            // Zero now and then: a division by it fails when the residual runs.
            return Expr::Num(self.below(12) as i64 - 1);
        }
        let op = ["add", "sub", "mul", "div"][self.below(4) as usize];
        let a = self.expr(depth - 1);
        let b = self.expr(depth - 1);
        Expr::Op(op, Box::new(a), Box::new(b))
    }

    /// A whole program (its source text, which includes the libraries).
    pub fn program(&mut self) -> String {
        let depth = 1 + self.below(3) as u32;
        let e = self.expr(depth);
        let stack = self.below(2) == 0;
        let mut lines = Vec::new();
        lines.push(format!(
            "include \"{}\"",
            if stack {
                "arith_stack_actions.dcps"
            } else {
                "arith_ast_actions.dcps"
            }
        ));
        lines.push("start (F)".to_string());
        if stack {
            post_order(&e, &mut lines);
            if self.below(3) == 0 {
                // A build-time loop of actions (the builders' `for`, a
                // staged recursion): adds 2 .. k-1 to the sum so far.
                let k = 2 + self.below(4);
                lines.push(format!(
                    "for F 2 {k} (F, i, break, continue) {{\n  number F i (F)\n  add F (F)\n  continue F\n}} (F)"
                ));
            }
        } else {
            pre_order(&e, &mut lines);
        }
        lines.push("end F (program)".to_string());
        lines.push(
            match self.below(4) {
                0 => "$exit program",
                1 => "program $exit",
                2 => "program (v) {\n  \"v*2\" (w)\n  $exit w\n}",
                _ => "program (v) {\n  program (w) {\n    \"v-w\" (d)\n    $exit d\n  }\n}",
            }
            .to_string(),
        );
        lines.join("\n") + "\n"
    }
}

fn post_order(e: &Expr, out: &mut Vec<String>) {
    // An explicit stack: the tree is shallow, but the habit is kept.
    enum Visit<'e> {
        Enter(&'e Expr),
        Emit(&'static str),
    }
    let mut stack = vec![Visit::Enter(e)];
    while let Some(v) = stack.pop() {
        match v {
            Visit::Enter(Expr::Num(n)) => out.push(format!("number F {n} (F)")),
            Visit::Enter(Expr::Op(op, a, b)) => {
                stack.push(Visit::Emit(op));
                stack.push(Visit::Enter(b));
                stack.push(Visit::Enter(a));
            }
            Visit::Emit(op) => out.push(format!("{op} F (F)")),
        }
    }
}

fn pre_order(e: &Expr, out: &mut Vec<String>) {
    let mut stack = vec![e];
    while let Some(x) = stack.pop() {
        match x {
            Expr::Num(n) => out.push(format!("number F {n} (F)")),
            Expr::Op(op, a, b) => {
                out.push(format!("{op} F (F)"));
                stack.push(b);
                stack.push(a);
            }
        }
    }
}

/// Loads a generated builder program, its libraries read from
/// `corpus/paper/`, or renders why it does not load.
pub fn load_builder_program(text: &str) -> Result<Program, String> {
    let mut files: HashMap<PathBuf, Vec<u8>> = HashMap::new();
    for name in LIBRARIES {
        let path = root().join("corpus/paper").join(name);
        let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        files.insert(PathBuf::from(name), bytes);
    }
    let mut sources = SourceMap::new();
    let id = add_source(&mut sources, "builders_gen.dcps", None, text.as_bytes().to_vec()).map_err(|d| render(&sources, &[d]))?;
    load_from(&MemFs(files), id, &mut sources, false).map_err(|ds| render(&sources, &ds))
}

/// The shape of the builders' benchmark (`scripts/builders-bench.sh`): the
/// stack builders on 1+2+..+n, the residual run; load it with
/// [`load_builder_program`].
pub fn builders_benchmark(n: u64) -> String {
    let mut src = String::from("include \"arith_stack_actions.dcps\"\nstart (F)\n");
    for i in 1..=n {
        src.push_str(&format!("number F {i} (F)\n"));
        if i > 1 {
            src.push_str("add F (F)\n");
        }
    }
    src.push_str("end F (program)\nprogram $exit\n");
    src
}
