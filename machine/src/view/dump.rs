//! The canonical graph dump: a stable text form of a state (a term, or an
//! exit value), one node per line, the thing a "snapshot of a reduced
//! graph" is (`deepcps dump`, the `.graph` files of `deepcps test`, the
//! insta snapshots of `tests/graph_dumps.rs`).
//!
//! It is a printout of the [`LambdaGraph`], so it inherits its canonical
//! form: nodes are numbered `n0, n1, ...` in the order of the left-to-right
//! depth-first walk, variables appear under their printed names, and no
//! `VarId` or arena index ever shows. Two runs of a program give the same
//! text, and renaming a bound variable in the source changes only names.
//!
//! The exit value of `corpus/paper/arith_built.dcps` (`deepcps dump`),
//! the paper's residual `(exit)[pt] { @pt: "4*2" (prod)[pt] ... }`:
//!
//! ```text
//! graph dump (exit value)
//! nodes: 13
//! bodies: 4 (ready 0, pending 0, stuck 0, error 0, inactive 4)
//! lambdas: 4, variables: 2, tuples: 0, records: 0, maps: 0, expressions: 3, other values: 0
//!
//! n0 λ(exit)[pt]  body→n1
//!   n1 body inactive @pt  head→n2 arg1→n12
//!     n2 λ(prod)[pt]  body→n3
//!       n3 body inactive @pt  head→n4 arg1→n11
//!         n4 λ(sum)[pt]  body→n5
//!           n5 body inactive @pt  head→n6 arg1→n10
//!             n6 λ(sum)[pt]  body→n7
//!               n7 body inactive @pt  head→n8 arg1→n9
//!                 n8 var exit  (param of n0)
//!                 n9 var sum  (param of n6)
//!             n10 expr "sum+3"
//!         n11 expr "1+prod"
//!     n12 expr "4*2"
//! ```
//!
//! A stuck body names what it waits for:
//! `n2 body stuck @always  head→n3 arg1→n4  (on f: the head of the
//! application is symbolic)`.
//!
//! Each line: the node's number, indented two spaces per level of depth (at
//! most [`MAX_INDENT`] levels, so that the text stays linear in the term),
//! then what it is:
//!
//! - `body STATUS @STAGE [fix f[y]]  EDGES  [(DETAIL)]`: its status (`ready`,
//!   `pending`, `stuck`, `error`, `inactive`; what a stuck body waits for and
//!   an error's message in the trailing parentheses), its staging expression
//!   (`_` is an anonymous staging parameter);
//! - `λ(PARAMS)[STAGING PARAMETER]  body→nK`, with `fix f` in front for a
//!   recursive value;
//! - `var NAME  (param of nK)`: an occurrence, with what binds it (param,
//!   rest param, staging param, fix name) and the node of its binder, the
//!   nearest enclosing one (the graph machine exports a value it shares
//!   with the same variables at each place), or `(free)`;
//! - `tuple`, `record`, `map`, `expr "TEXT"` with their edges, and `lit
//!   VALUE` for numbers, booleans, strings, matrices, staging constants and
//!   built-ins.
//!
//! Edges are written `label→nK` in reading order: `head`, `argI` (`argI!`
//! for a splice), `body`, `fix` (the lambda of a `fix`), `in` (its scope),
//! `I`/`I!` (tuple elements), `.field`, `keyI`/`valI` (map entries), `opI`
//! (values nested in an expression).
//!
//! The header gives the counts: nodes, bodies by status, and the other node
//! kinds. Building and printing are iterative and linear in the term.

use rustc_hash::FxHashMap as HashMap;
use std::fmt::Write as _;

use petgraph::visit::EdgeRef;
use petgraph::Direction;

use super::lambda_graph::{EdgeKind, LambdaGraph, NodeKind, VarView};
use super::status::Status;
use crate::term::{Atom, Body, VarId, VarKind, Vars};

/// Most levels of indentation; deeper nodes are indented as this level.
pub const MAX_INDENT: usize = 24;

/// The canonical dump of the term `body` over `vars` (a program's state).
pub fn graph_dump(body: &Body, vars: &Vars) -> String {
    dump_lambda_graph(&LambdaGraph::build(body, vars), "term")
}

/// The canonical dump of an exit value `value` over `vars` (the variables
/// of the exit value, `Machine::exit_vars`).
pub fn value_dump(value: &Atom, vars: &Vars) -> String {
    dump_lambda_graph(&LambdaGraph::build_value(value, vars), "exit value")
}

/// How many nodes of each kind a lambda graph holds: the header of a dump.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DumpCounts {
    /// All nodes.
    pub nodes: usize,
    /// Body nodes.
    pub bodies: usize,
    /// Bodies that can run now.
    pub ready: usize,
    /// Active, executable bodies with something pending nested in them.
    pub pending: usize,
    /// Bodies waiting for a symbolic variable.
    pub stuck: usize,
    /// Bodies whose execution fails.
    pub error: usize,
    /// Bodies whose staging expression is false.
    pub inactive: usize,
    /// Lambdas (recursive values and `fix` lambdas included).
    pub lambdas: usize,
    /// Occurrences of variables.
    pub variables: usize,
    /// Tuple nodes.
    pub tuples: usize,
    /// Record nodes.
    pub records: usize,
    /// Map nodes.
    pub maps: usize,
    /// Expressions not yet evaluated.
    pub exprs: usize,
    /// Other values (numbers, strings, built-ins, ...).
    pub values: usize,
}

impl DumpCounts {
    /// The counts of `lg`'s nodes.
    pub fn of(lg: &LambdaGraph) -> DumpCounts {
        let mut c = DumpCounts {
            nodes: lg.graph.node_count(),
            ..DumpCounts::default()
        };
        for node in lg.graph.node_weights() {
            match &node.kind {
                NodeKind::Body { status, .. } => {
                    c.bodies += 1;
                    match status {
                        Status::Ready => c.ready += 1,
                        Status::Pending => c.pending += 1,
                        Status::Stuck { .. } => c.stuck += 1,
                        Status::Error(_) => c.error += 1,
                        Status::Inactive => c.inactive += 1,
                    }
                }
                NodeKind::Lambda { .. } => c.lambdas += 1,
                NodeKind::Var(_) => c.variables += 1,
                NodeKind::Tuple => c.tuples += 1,
                NodeKind::Record => c.records += 1,
                NodeKind::Map => c.maps += 1,
                NodeKind::Expr { .. } => c.exprs += 1,
                NodeKind::Value => c.values += 1,
            }
        }
        c
    }

    /// The header lines of a dump of a `what` (`term`, `exit value`).
    pub fn header(&self, what: &str) -> String {
        format!(
            "graph dump ({what})\n\
             nodes: {}\n\
             bodies: {} (ready {}, pending {}, stuck {}, error {}, inactive {})\n\
             lambdas: {}, variables: {}, tuples: {}, records: {}, maps: {}, expressions: {}, other values: {}\n",
            self.nodes,
            self.bodies,
            self.ready,
            self.pending,
            self.stuck,
            self.error,
            self.inactive,
            self.lambdas,
            self.variables,
            self.tuples,
            self.records,
            self.maps,
            self.exprs,
            self.values
        )
    }
}

/// The dump of a lambda graph already built; `what` names the state in
/// the header (`term`, `exit value`).
pub fn dump_lambda_graph(lg: &LambdaGraph, what: &str) -> String {
    let g = &lg.graph;
    let count = g.node_count();
    let mut out = DumpCounts::of(lg).header(what);
    out.push('\n');
    // Parents are numbered before their children and every subtree is a
    // range of numbers: `n .. end[n]`.
    let parent: Vec<Option<usize>> = g
        .node_indices()
        .map(|n| g.neighbors_directed(n, Direction::Incoming).next().map(|p| p.index()))
        .collect();
    let mut depth = vec![0usize; count];
    for n in 0..count {
        if let Some(p) = parent[n] {
            depth[n] = depth[p] + 1;
        }
    }
    let mut end: Vec<usize> = (1..=count).collect();
    for n in (0..count).rev() {
        if let Some(p) = parent[n] {
            end[p] = end[p].max(end[n]);
        }
    }
    // The binders in scope, per variable, innermost last. A value the
    // machine shares is exported with the same variables at each place, so
    // a variable may have several binders; the nearest enclosing one binds.
    let mut scopes: HashMap<VarId, Vec<(usize, usize)>> = HashMap::default();
    let mut edges: Vec<(usize, &EdgeKind)> = Vec::new();
    for n in g.node_indices() {
        let i = n.index();
        let node = &g[n];
        for _ in 0..depth[i].min(MAX_INDENT) {
            out.push_str("  ");
        }
        let _ = write!(out, "n{i}");
        let mut detail = None;
        match &node.kind {
            NodeKind::Body {
                status,
                stage,
                fix_sparam,
                fix_name,
                fix_head,
                stuck_on,
                ..
            } => {
                for v in fix_sparam.iter().chain(fix_name) {
                    scopes.entry(*v).or_default().push((i, end[i]));
                }
                let _ = write!(out, " body {} @{stage}", status.name());
                if let Some(head) = fix_head {
                    let _ = write!(out, " fix {head}");
                }
                detail = match status {
                    Status::Stuck { what, .. } => Some(format!("on {}: {what}", stuck_on.as_deref().unwrap_or("?"))),
                    Status::Error(message) => Some(format!("error: {}", message.replace('\n', " "))),
                    _ => None,
                };
            }
            NodeKind::Lambda { sparam, params, rec } => {
                for v in params.iter().map(|p| &p.var).chain(rec).chain([sparam]) {
                    scopes.entry(*v).or_default().push((i, end[i]));
                }
                // The label is the head as printed in the lambda's scope;
                // an anonymous staging parameter is shown as `[_]`.
                let _ = write!(out, " λ{}", node.label);
                if !node.label.ends_with(']') {
                    out.push_str("[_]");
                }
            }
            NodeKind::Var(v) => {
                let _ = write!(out, " var {}", node.label);
                let scope = scopes.get_mut(v);
                let binder = scope.and_then(|s| {
                    while s.last().is_some_and(|&(_, e)| e <= i) {
                        s.pop();
                    }
                    s.last().map(|&(b, _)| b)
                });
                let kind = lg.vars.get(v).map(|view: &VarView| view.kind);
                detail = Some(match (binder, kind) {
                    (Some(b), Some(kind)) => format!("{} of n{b}", kind_name(kind)),
                    _ => "free".to_string(),
                });
            }
            NodeKind::Tuple => out.push_str(" tuple"),
            NodeKind::Record => out.push_str(" record"),
            NodeKind::Map => out.push_str(" map"),
            NodeKind::Expr { .. } => {
                let _ = write!(out, " expr {}", node.label);
            }
            NodeKind::Value => {
                let _ = write!(out, " lit {}", node.label);
            }
        }
        edges.clear();
        edges.extend(g.edges(n).map(|e| (e.target().index(), e.weight())));
        edges.sort_by_key(|(t, _)| *t);
        if !edges.is_empty() {
            out.push(' ');
        }
        for (t, kind) in &edges {
            out.push(' ');
            write_edge(&mut out, kind);
            let _ = write!(out, "→n{t}");
        }
        if let Some(d) = detail {
            let _ = write!(out, "  ({d})");
        }
        out.push('\n');
    }
    out
}

/// What binds a variable, in words.
fn kind_name(kind: VarKind) -> &'static str {
    match kind {
        VarKind::Param => "param",
        VarKind::Rest => "rest param",
        VarKind::Stage => "staging param",
        VarKind::Fix => "fix name",
        VarKind::Free => "free name",
    }
}

/// An edge's label in the dump's short form.
fn write_edge(out: &mut String, kind: &EdgeKind) {
    let _ = match kind {
        EdgeKind::Head => write!(out, "head"),
        EdgeKind::Arg(i) => write!(out, "arg{i}"),
        EdgeKind::Splice(i) => write!(out, "arg{i}!"),
        EdgeKind::Body => write!(out, "body"),
        EdgeKind::FixLambda => write!(out, "fix"),
        EdgeKind::Scope => write!(out, "in"),
        EdgeKind::Elem { i, spliced } => write!(out, "{i}{}", if *spliced { "!" } else { "" }),
        EdgeKind::Field(f) => write!(out, ".{f}"),
        EdgeKind::Key(i) => write!(out, "key{i}"),
        EdgeKind::Value(i) => write!(out, "val{i}"),
        EdgeKind::Operand(i) => write!(out, "op{i}"),
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::span::SourceMap;
    use crate::syntax::load::add_source;
    use crate::syntax::{load_from, MemFs};
    use crate::term::Program;

    fn load(text: &str) -> Program {
        let mut sources = SourceMap::new();
        let id = add_source(&mut sources, "t.dcps", None, text.as_bytes().to_vec()).expect("utf-8");
        match load_from(&MemFs::default(), id, &mut sources, false) {
            Ok(p) => p,
            Err(ds) => panic!("{ds:?}"),
        }
    }

    fn dump(text: &str) -> String {
        let p = load(text);
        graph_dump(&p.body, &p.vars)
    }

    const SMALL: &str = "let twice(x, k) { \"x*2\" (y) k y }\n\
        let later(f) {\n  @always: f 1\n}\n\
        twice 3 (a)[s] {\n  @always: \"1+1\" (two)\n  @s: twice a (b)\n  $exit b\n}\n";

    #[test]
    fn the_dump_is_stable_and_shows_statuses() {
        let a = dump(SMALL);
        assert_eq!(a, dump(SMALL));
        // Every line after the header is one node, numbered in order.
        let nodes: Vec<&str> = a.lines().skip(5).collect();
        for (i, l) in nodes.iter().enumerate() {
            assert!(l.trim_start().starts_with(&format!("n{i} ")), "line {i}: {l}");
        }
        assert!(a.starts_with(&format!("graph dump (term)\nnodes: {}\n", nodes.len())), "{a}");
        for status in ["ready", "pending", "stuck", "inactive"] {
            assert!(a.contains(&format!(" body {status} @")), "{status}:\n{a}");
        }
        assert!(a.contains("(on f: the head of the application is symbolic)"), "{a}");
        assert!(a.contains("λ(x, k)[_]"), "{a}");
        assert!(a.contains(" body inactive @s "), "{a}");
        assert!(a.contains(" lit 3"), "{a}");
        assert!(a.contains(" expr \"x*2\""), "{a}");
        assert!(a.contains("bodies: 9 (ready 1, pending 1, stuck 1, error 0, inactive 6)"), "{a}");
        assert!(a.contains("\n  n22 λ(x, k)[_]  body→n23\n"), "{a}");
        assert!(a.contains("\n          n20 var f  (param of n18)\n"), "{a}");
    }

    #[test]
    fn variables_name_their_binders() {
        let a = dump("(x, k)[p] { @p: k x } 1 $exit");
        assert!(a.contains("n1 λ(x, k)[p]  body→n2"), "{a}");
        assert!(a.contains("n2 body inactive @p  head→n3 arg1→n4"), "{a}");
        assert!(a.contains("n3 var k  (param of n1)"), "{a}");
        assert!(a.contains("n4 var x  (param of n1)"), "{a}");
        assert!(a.contains("n6 lit $exit"), "{a}");
    }

    #[test]
    fn renaming_bound_variables_changes_only_names() {
        let a = dump(SMALL);
        let renamed = SMALL.replace("(x, k)", "(u, k)").replace("\"x*2\"", "\"u*2\"");
        let b = dump(&renamed);
        assert_ne!(a, b);
        assert_eq!(
            a,
            b.replace("(u, k)", "(x, k)")
                .replace("\"u*2\"", "\"x*2\"")
                .replace("var u ", "var x ")
        );
    }

    #[test]
    fn errors_and_fix_are_shown() {
        let a = dump("fix f(n) { f n } in \"1/0\" (z) $exit z");
        assert!(a.contains("n0 body ready @always fix f[_]  fix→n1 in→n5"), "{a}");
        assert!(a.contains("n1 λ(n)[_]  body→n2"), "{a}");
        assert!(a.contains("var f  (fix name of n0)"), "{a}");
        let b = dump("\"1/0\" (z) $exit z");
        assert!(
            b.starts_with("graph dump (term)\nnodes: 6\nbodies: 2 (ready 0, pending 0, stuck 0, error 1, inactive 1)"),
            "{b}"
        );
        assert!(b.contains("n0 body error @always  head→n1 arg1→n5  (error: "), "{b}");
    }

    #[test]
    fn an_exit_value_is_dumped_from_its_value() {
        let p = load("$exit 1");
        let d = value_dump(&Atom::Int(7), &p.vars);
        assert_eq!(
            d,
            "graph dump (exit value)\n\
             nodes: 1\n\
             bodies: 0 (ready 0, pending 0, stuck 0, error 0, inactive 0)\n\
             lambdas: 0, variables: 0, tuples: 0, records: 0, maps: 0, expressions: 0, other values: 1\n\
             \n\
             n0 lit 7\n"
        );
    }

    #[test]
    fn a_deep_chain_dumps_on_a_small_stack() {
        let depth = 100_000;
        let mut text = String::from("(k0) {\n");
        for i in 1..=depth {
            text.push_str(&format!("  k{} {i} (k{i})\n", i - 1));
        }
        text.push_str("  k0 0\n} $exit\n");
        // Loading, dumping and dropping the term all happen on the small
        // stack (a program is not `Send`).
        let out = std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(move || {
                let p = load(&text);
                graph_dump(&p.body, &p.vars)
            })
            .expect("thread")
            .join()
            .expect("no stack overflow");
        let lines = out.lines().count();
        // Per statement: a body, its head, its argument and the lambda.
        assert!(lines > 4 * depth, "{lines}");
        let widest = out.lines().map(|l| l.len() - l.trim_start().len()).max().unwrap_or(0);
        assert_eq!(widest, 2 * MAX_INDENT);
    }
}
