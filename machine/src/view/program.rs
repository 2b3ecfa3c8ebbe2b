//! The program view: a term printed canonically (exactly the text of
//! [`Printer::program_text`], or [`Printer::atom_text`] for an exit value),
//! with where every body and every printed variable stands in that text, for
//! a terminal debugger that colours bodies by their [`Status`], highlights
//! the ready body and jumps from a variable to its binder.
//!
//! The printer, in recording mode ([`Printer::recording`]), notes the byte
//! range of every body it prints, keyed by the body's address, and of every
//! occurrence and binder of a variable; the [`LambdaGraph`] built from the
//! same `&Body` tree gives the bodies' order, statuses and nodes, matched by
//! the same addresses ([`LambdaGraph::body_addresses`]). Both walks iterate
//! over chains of bodies, so a term 10^6 bodies long needs no deep stack.
//!
//! Bodies the printer does not print (the lambda of a recursive value where
//! it prints as its name, lambdas inside expression strings, which print as
//! `<lambda>`, the missing main body of a library) have an empty range at
//! the start of what stands for them, and `printed: false`.

use std::cmp::Reverse;

use petgraph::graph::NodeIndex;
use petgraph::Direction;

use super::lambda_graph::{LambdaGraph, NodeKind};
use super::status::Status;
use crate::print::{PrintMap, Printer};
use crate::span::Span;
use crate::term::{Application, Arg, Atom, Body, Builtin, Cmd, SExp, Sugar, VarId, Vars};

/// A term printed canonically, with where each body and variable stands in
/// the text.
#[derive(Clone, Debug)]
pub struct ProgramView {
    /// Exactly the printer's text: `Printer::new(vars).program_text(body)`
    /// (or `.atom_text(a)` for a value).
    pub text: String,
    /// Byte offset of the start of every line of `text` (the first is 0; a
    /// final newline starts an empty last line).
    pub line_starts: Vec<usize>,
    /// Every body of the term, in the order in which [`LambdaGraph::build`]
    /// numbers its body nodes (the k-th entry is the k-th
    /// [`NodeKind::Body`] node in node-index order).
    pub bodies: Vec<BodyRegion>,
    /// Every printed occurrence of a variable (heads, arguments, tuple
    /// elements, staging expressions `@pt:`, names inside expression
    /// strings, recursive values printed as their name), sorted by `start`.
    /// Binders are not occurrences.
    pub occurrences: Vec<Occurrence>,
}

/// A term (or value) printed in recording mode, not yet matched with its
/// lambda graph ([`ProgramView::from_printed`]).
pub struct Printed {
    text: String,
    map: PrintMap,
    /// Printed from the wrapper of a value ([`ProgramView::value_body`]),
    /// whose own body is left out of the view.
    value: bool,
}

/// Where a body stands in the text, and what it is.
#[derive(Clone, Debug, PartialEq)]
pub struct BodyRegion {
    /// Byte offset of the start of the body's printed extent in `text`: its
    /// `@stage: ` prefix if printed, else its command (which may begin with
    /// the `fix f(..) {..} in` of a recursive value it holds, or, in the
    /// layout `"e" (x)`, with the expression).
    pub start: usize,
    /// Byte offset of the end of its extent: its command and everything
    /// printed as part of it, nested lambdas included, and the chained
    /// bodies that continue it (in the layouts `"e" (x)` and braceless tail
    /// lambdas the continuation is nested in the first body, so its extent
    /// lies inside the first body's extent). Extents nest or are disjoint.
    pub end: usize,
    /// Whether the body is printed as such. `false`: `start == end`, at the
    /// start of what stands for it in the text (the name of a recursive
    /// value whose lambda is printed elsewhere, an expression string or
    /// value string holding the lambda as `<lambda>`).
    pub printed: bool,
    /// What the body is now: the lambda graph's status of the same body
    /// (`Ready` included).
    pub status: Status,
    /// Where the body comes from in the source.
    pub span: Span,
    /// The body's node in the [`LambdaGraph`] built from the same term (for
    /// a value, from [`ProgramView::value_body`]).
    pub node: NodeIndex,
}

/// A printed occurrence of a variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Occurrence {
    /// Byte offset of the first byte of the printed name.
    pub start: usize,
    /// Byte offset just past the printed name.
    pub end: usize,
    /// The variable.
    pub var: VarId,
    /// Byte range of the printed binder of this variable (lambda parameter,
    /// staging parameter `[pt]`, `fix` name, `let` name, the continuation
    /// parameter of `"e" (x)`) when the binder is printed in `text`; `None`
    /// for free variables and for binders not printed (anonymous staging
    /// parameters printed as `_`).
    pub binder: Option<(usize, usize)>,
}

impl ProgramView {
    /// The view of a program (its top-level body) over `vars`; builds the
    /// lambda graph (use [`ProgramView::with_graph`] when you have it).
    pub fn of_program(body: &Body, vars: &Vars) -> ProgramView {
        let graph = LambdaGraph::build(body, vars);
        ProgramView::with_graph(&graph, body, vars)
    }

    /// The view of a program whose lambda graph `graph` was built from this
    /// very `body` (the same borrowed term, not a copy: bodies are matched by
    /// address). Bodies of `graph` the printer did not meet (a graph of
    /// another term) get `printed: false` and an empty range at the start of
    /// the nearest enclosing body matched (0 if none).
    pub fn with_graph(graph: &LambdaGraph, body: &Body, vars: &Vars) -> ProgramView {
        ProgramView::from_printed(graph, ProgramView::print_program(body, vars))
    }

    /// The printer's half of [`ProgramView::with_graph`]: needs no lambda
    /// graph, so it can run beside [`LambdaGraph::build`] of the same term
    /// (on another thread); [`ProgramView::from_printed`] joins the halves.
    pub fn print_program(body: &Body, vars: &Vars) -> Printed {
        let (text, map) = Printer::recording(vars).program_map(body);
        Printed { text, map, value: false }
    }

    /// The printer's half of [`ProgramView::of_value_body`], as
    /// [`ProgramView::print_program`] is of [`ProgramView::with_graph`].
    pub fn print_value_body(wrapper: &Body, vars: &Vars) -> Printed {
        let (text, map) = match &wrapper.cmd {
            Cmd::App(Application { args, .. }) => match args.first() {
                Some(Arg::Atom(copy)) | Some(Arg::Splice(copy)) => Printer::recording(vars).atom_map(copy),
                None => (String::from("\n"), PrintMap::default()),
            },
            Cmd::Fix(_) => (String::from("\n"), PrintMap::default()),
        };
        Printed { text, map, value: true }
    }

    /// The view from the printer's half and the lambda graph built from the
    /// very term (or wrapper body) that was printed, still alive and
    /// unmoved: bodies are matched by address.
    pub fn from_printed(graph: &LambdaGraph, printed: Printed) -> ProgramView {
        let root = if printed.value {
            graph.body_addresses.first().map(|&(n, _)| n)
        } else {
            None
        };
        ProgramView::assemble(graph, printed.text, printed.map, root)
    }

    /// For an exit value (`$exit v` ended the run), over the exit value's
    /// variables: the value printed by [`Printer::atom_text`]; the statuses
    /// of the bodies inside it are those the lambda graph gives them when the
    /// value is the argument of an inactive `$exit` body,
    /// [`ProgramView::value_body`], whose graph the `node`s refer to (that
    /// body itself is not among `bodies`). The value is copied once.
    pub fn of_value(value: &Atom, vars: &Vars) -> ProgramView {
        let wrapper = ProgramView::value_body(value);
        let graph = LambdaGraph::build(&wrapper, vars);
        ProgramView::of_value_body(&graph, &wrapper, vars)
    }

    /// [`ProgramView::of_value`] for a caller that holds the wrapper body
    /// (from [`ProgramView::value_body`]) and the lambda graph built from
    /// this very wrapper.
    pub fn of_value_body(graph: &LambdaGraph, wrapper: &Body, vars: &Vars) -> ProgramView {
        ProgramView::from_printed(graph, ProgramView::print_value_body(wrapper, vars))
    }

    /// The body `@never: $exit v` holding a copy of `value`, whose lambda
    /// graph gives the statuses and nodes of [`ProgramView::of_value`]
    /// (inactive: it stands for the `$exit` that already ran, and the
    /// statuses of the bodies inside do not depend on it).
    pub fn value_body(value: &Atom) -> Body {
        Body {
            stage: SExp::Const(false),
            cmd: Cmd::App(Application {
                head: Atom::Builtin(Builtin::Exit),
                args: vec![Arg::Atom(value.clone())],
                sugar: Sugar::None,
            }),
            span: Span::default(),
        }
    }

    /// Matches the printer's places with the graph's bodies, in node order;
    /// `skip` is a body node left out (the wrapper of a value).
    fn assemble(graph: &LambdaGraph, text: String, map: PrintMap, skip: Option<NodeIndex>) -> ProgramView {
        let g = &graph.graph;
        // Per node, where a body not printed below it would stand: the start
        // of the nearest enclosing body matched. A parent is numbered before
        // its children, so one pass in index order fills it.
        let mut anchor: Vec<usize> = vec![0; g.node_count()];
        let mut addresses = graph.body_addresses.iter().peekable();
        let mut bodies = Vec::with_capacity(graph.body_addresses.len());
        for n in g.node_indices() {
            let inherited = g
                .neighbors_directed(n, Direction::Incoming)
                .next()
                .and_then(|p| anchor.get(p.index()).copied())
                .unwrap_or(0);
            let Some(node) = g.node_weight(n) else { continue };
            let NodeKind::Body { status, .. } = &node.kind else {
                if let Some(a) = anchor.get_mut(n.index()) {
                    *a = inherited;
                }
                continue;
            };
            // Listed in node order, so the next one is this node's.
            let address = match addresses.peek() {
                Some(&&(m, address)) if m == n => {
                    addresses.next();
                    Some(address)
                }
                _ => None,
            };
            let place = address.and_then(|a| map.bodies.get(&a));
            let (start, end, printed) = match place {
                Some(p) => (p.start, p.end, p.printed),
                None => (inherited, inherited, false),
            };
            if let Some(a) = anchor.get_mut(n.index()) {
                *a = start;
            }
            if Some(n) == skip {
                continue;
            }
            bodies.push(BodyRegion {
                start,
                end,
                printed,
                status: status.clone(),
                span: node.span.unwrap_or_default(),
                node: n,
            });
        }
        let mut occurrences: Vec<Occurrence> = map
            .occurrences
            .iter()
            .map(|o| Occurrence {
                start: o.start,
                end: o.end,
                var: o.var,
                binder: o.binder,
            })
            .collect();
        occurrences.sort_by_key(|o| o.start);
        let line_starts = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
        ProgramView {
            text,
            line_starts,
            bodies,
            occurrences,
        }
    }

    /// A partition of `text` into consecutive segments `(start, end, body)`,
    /// each tagged with the innermost body whose extent contains it (an index
    /// into `bodies`), or `None` outside every body: consecutive, not
    /// overlapping, not empty, covering the whole text, neighbours tagged
    /// differently. Bodies with empty ranges tag nothing.
    pub fn segments(&self) -> Vec<(usize, usize, Option<usize>)> {
        let len = self.text.len();
        let mut order: Vec<usize> = (0..self.bodies.len())
            .filter(|&i| self.bodies[i].start < self.bodies[i].end.min(len))
            .collect();
        // Outer before inner: by start, longer first, then numbering order.
        order.sort_by_key(|&i| (self.bodies[i].start, Reverse(self.bodies[i].end), i));
        let mut out: Vec<(usize, usize, Option<usize>)> = Vec::new();
        let push = |out: &mut Vec<(usize, usize, Option<usize>)>, s: usize, e: usize, tag: Option<usize>| {
            if s >= e {
                return;
            }
            match out.last_mut() {
                Some(last) if last.1 == s && last.2 == tag => last.1 = e,
                _ => out.push((s, e, tag)),
            }
        };
        // The bodies open at `pos`, innermost last, with their ends (clamped
        // to the enclosing one's, should extents ever overlap).
        let mut open: Vec<(usize, usize)> = Vec::new();
        let mut pos = 0;
        for i in order {
            let start = self.bodies[i].start.max(pos);
            while let Some(&(top, end)) = open.last() {
                if end > start {
                    break;
                }
                push(&mut out, pos, end, Some(top));
                pos = pos.max(end);
                open.pop();
            }
            push(&mut out, pos, start, open.last().map(|&(t, _)| t));
            pos = pos.max(start);
            let end = self.bodies[i].end.min(open.last().map_or(len, |&(_, e)| e));
            open.push((i, end));
        }
        while let Some((top, end)) = open.pop() {
            push(&mut out, pos, end, Some(top));
            pos = pos.max(end);
        }
        push(&mut out, pos, len, None);
        out
    }

    /// The index (into `bodies`) of the first ready body, the one the
    /// machine executes next, if any.
    pub fn ready(&self) -> Option<usize> {
        self.bodies.iter().position(|b| b.status == Status::Ready)
    }

    /// Line number (0-based) of a byte offset (offsets past the end are on
    /// the last line).
    pub fn line_of(&self, offset: usize) -> usize {
        self.line_starts.partition_point(|&s| s <= offset).saturating_sub(1)
    }

    /// The occurrence whose printed name covers the byte at `offset`, if any.
    pub fn occurrence_at(&self, offset: usize) -> Option<&Occurrence> {
        let i = self.occurrences.partition_point(|o| o.start <= offset);
        let o = self.occurrences.get(i.checked_sub(1)?)?;
        (offset < o.end).then_some(o)
    }
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
        let id = add_source(&mut sources, "t.dcps", None, text.as_bytes().to_vec()).expect("utf8");
        load_from(&MemFs::default(), id, &mut sources, false).expect("loads")
    }

    fn region_text(v: &ProgramView, i: usize) -> &str {
        &v.text[v.bodies[i].start..v.bodies[i].end]
    }

    #[test]
    fn a_chain_nests_its_continuations() {
        let p = load("\"1+2\" (x)\n\"x*2\" (y)\n$exit y\n");
        let v = ProgramView::of_program(&p.body, &p.vars);
        assert_eq!(v.text, Printer::new(&p.vars).program_text(&p.body));
        assert_eq!(v.text, "\"1+2\" (x)\n\"x*2\" (y)\n$exit y\n");
        assert_eq!(v.bodies.len(), 3);
        assert_eq!(region_text(&v, 0), "\"1+2\" (x)\n\"x*2\" (y)\n$exit y");
        assert_eq!(region_text(&v, 1), "\"x*2\" (y)\n$exit y");
        assert_eq!(region_text(&v, 2), "$exit y");
        assert_eq!(v.ready(), Some(0));
        assert_eq!(v.line_starts, [0, 10, 20, 28]);
        assert_eq!(v.line_of(0), 0);
        assert_eq!(v.line_of(12), 1);
        assert_eq!(v.line_of(27), 2);
        // `x` in "x*2" is bound by `(x)` on the first line.
        let x = v.occurrence_at(11).expect("x in the expression");
        assert_eq!((&v.text[x.start..x.end], x.binder), ("x", Some((7, 8))));
        let y = v.occurrence_at(26).expect("y of $exit y");
        assert_eq!(y.binder, Some((17, 18)));
        assert!(v.occurrence_at(0).is_none());
        assert_eq!(
            v.segments(),
            [(0, 10, Some(0)), (10, 20, Some(1)), (20, 27, Some(2)), (27, 28, None)]
        );
    }

    #[test]
    fn staging_expressions_and_braced_lambdas() {
        let p = load("(f)[s] { @s & !s: f s } (x)[t] { @t: x t }\n");
        let v = ProgramView::of_program(&p.body, &p.vars);
        assert_eq!(v.text, Printer::new(&p.vars).program_text(&p.body));
        let names: Vec<(&str, Option<&str>)> = v
            .occurrences
            .iter()
            .map(|o| (&v.text[o.start..o.end], o.binder.map(|(s, e)| &v.text[s..e])))
            .collect();
        assert_eq!(
            names,
            [
                ("s", Some("s")),
                ("s", Some("s")),
                ("f", Some("f")),
                ("s", Some("s")),
                ("t", Some("t")),
                ("x", Some("x")),
                ("t", Some("t")),
            ],
            "{}",
            v.text
        );
        assert_eq!(v.bodies.len(), 3);
        for b in &v.bodies[1..] {
            assert!(v.text[b.start..].starts_with("@"), "{}", &v.text[b.start..]);
            assert!(v.bodies[0].start <= b.start && b.end <= v.bodies[0].end);
        }
    }

    #[test]
    fn a_recursive_value_held_twice_prints_once() {
        let p = load("fix f(x) { $exit x } in (a, b) { a 1 } f f\n");
        let mut r = crate::reference::Reducer::new(p);
        assert!(matches!(r.step(), Some(Ok(None))), "the fix runs");
        let v = ProgramView::of_program(&r.body, &r.vars);
        assert_eq!(v.text, "fix f(x) {\n  $exit x\n} in\n(a, b) {\n  a 1\n} f f\n");
        // The body, `a 1`, and the body of each copy of the value.
        assert_eq!(v.bodies.len(), 4);
        let printed: Vec<(&str, bool)> = (0..4).map(|i| (region_text(&v, i), v.bodies[i].printed)).collect();
        assert_eq!(
            printed,
            [(v.text.trim_end(), true), ("a 1", true), ("$exit x", true), ("", false)],
            "{:?}",
            v.bodies
        );
        // The second copy stands at the second `f`, whose binder is `fix f`.
        let at = v.bodies[3].start;
        assert_eq!(at, v.text.len() - 2);
        let f = v.occurrence_at(at).expect("f");
        assert_eq!(f.binder, Some((4, 5)));
        assert_eq!(v.occurrence_at(at - 2).map(|o| o.binder), Some(Some((4, 5))));
        // `x` in `$exit x` is bound by `f(x)`, `a` by `(a, b)`.
        let binders: Vec<Option<(usize, usize)>> = v.occurrences.iter().map(|o| o.binder).collect();
        assert_eq!(binders, [Some((6, 7)), Some((27, 28)), Some((4, 5)), Some((4, 5))]);
    }

    #[test]
    fn a_value_has_no_wrapper() {
        let p = load("$exit [1, (x) { $exit x }]\n");
        let Cmd::App(app) = &p.body.cmd else { panic!("an application") };
        let Some(Arg::Atom(value)) = app.args.first() else {
            panic!("an argument")
        };
        let v = ProgramView::of_value(value, &p.vars);
        assert_eq!(v.text, Printer::new(&p.vars).atom_text(value));
        assert_eq!(v.bodies.len(), 1);
        assert!(v.text[v.bodies[0].start..].starts_with("$exit x"), "{}", v.text);
        assert_eq!(v.occurrences.len(), 1);
    }
}
