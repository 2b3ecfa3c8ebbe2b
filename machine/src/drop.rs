//! Iterative destruction of deep terms. A program of a million statements is
//! a million nested lambdas; the derived, recursive `Drop` would overflow an
//! ordinary thread's stack. These `Drop` impls move the nested bodies out
//! onto an explicit stack first, so each body is dropped shallow.

use crate::syntax::ast;
use crate::term::{Arg, Atom, Body, Cmd};

/// A body with nothing nested in it, to leave behind.
fn hollow(span: crate::span::Span) -> Body {
    Body {
        stage: crate::term::SExp::Const(false),
        cmd: Cmd::App(crate::term::App {
            head: Atom::Int(0),
            args: Vec::new(),
            sugar: Default::default(),
        }),
        span,
    }
}

/// Moves the bodies nested in `atoms` (through tuples, records and maps) onto
/// `out`. Expression operands are left alone: their depth is bounded by the
/// expression parser, and values in them are rarely deep.
fn take_nested(atoms: &mut Vec<Atom>, out: &mut Vec<Body>) {
    while let Some(mut a) = atoms.pop() {
        match &mut a {
            Atom::Lambda(l) => {
                let span = l.body.span;
                out.push(std::mem::replace(&mut l.body, hollow(span)));
            }
            Atom::Rec(r) => {
                let span = r.lam.body.span;
                out.push(std::mem::replace(&mut r.lam.body, hollow(span)));
            }
            Atom::Tuple(xs) => atoms.extend(std::mem::take(xs).into_iter().map(|x| match x {
                Arg::Atom(x) | Arg::Splice(x) => x,
            })),
            Atom::Record(fs) => atoms.extend(std::mem::take(fs).into_iter().map(|(_, x)| x)),
            Atom::Map(kvs) => {
                for (k, v) in std::mem::take(kvs) {
                    atoms.push(k);
                    atoms.push(v);
                }
            }
            _ => {}
        }
        // `a` is now shallow; dropping it here does not recurse.
    }
}

impl Drop for Body {
    fn drop(&mut self) {
        let mut bodies: Vec<Body> = Vec::new();
        let mut atoms: Vec<Atom> = Vec::new();
        let take = |b: &mut Body, atoms: &mut Vec<Atom>, bodies: &mut Vec<Body>| match &mut b.cmd {
            Cmd::App(app) => {
                atoms.push(std::mem::replace(&mut app.head, Atom::Int(0)));
                atoms.extend(std::mem::take(&mut app.args).into_iter().map(|x| match x {
                    Arg::Atom(x) | Arg::Splice(x) => x,
                }));
                take_nested(atoms, bodies);
            }
            Cmd::Fix(f) => {
                let (s1, s2) = (f.lam.body.span, f.body.span);
                bodies.push(std::mem::replace(&mut f.lam.body, hollow(s1)));
                bodies.push(std::mem::replace(&mut f.body, hollow(s2)));
            }
        };
        take(self, &mut atoms, &mut bodies);
        while let Some(mut b) = bodies.pop() {
            take(&mut b, &mut atoms, &mut bodies);
            // `b` is now hollow: its own `drop` finds nothing to move.
        }
    }
}

impl Drop for ast::Body {
    fn drop(&mut self) {
        let mut stack: Vec<ast::Body> = Vec::new();
        let mut ops: Vec<ast::Operand> = Vec::new();
        let take = |b: &mut ast::Body, stack: &mut Vec<ast::Body>, ops: &mut Vec<ast::Operand>| {
            match b {
                ast::Body::Def(d, rest) => {
                    stack.push(std::mem::replace(&mut **rest, ast::Body::hole()));
                    match &mut **d {
                        ast::Def::Let {
                            value: ast::Arg::Operand(o) | ast::Arg::Splice(o),
                            ..
                        } => {
                            ops.push(std::mem::replace(o, ast::Operand::Int(0, Default::default())));
                        }
                        ast::Def::Fix { lam, .. } => stack.push(std::mem::replace(&mut lam.body, ast::Body::hole())),
                    }
                }
                ast::Body::App { head, args, tail, .. } => {
                    ops.push(std::mem::replace(head, ast::Operand::Int(0, Default::default())));
                    ops.extend(std::mem::take(args).into_iter().map(|a| match a {
                        ast::Arg::Operand(o) | ast::Arg::Splice(o) => o,
                    }));
                    if let Some(t) = tail {
                        stack.push(std::mem::replace(&mut t.body, ast::Body::hole()));
                    }
                }
            }
            while let Some(mut o) = ops.pop() {
                match &mut o {
                    ast::Operand::Lambda(l) => stack.push(std::mem::replace(&mut l.body, ast::Body::hole())),
                    ast::Operand::Tuple(xs, _) => ops.extend(std::mem::take(xs).into_iter().map(|a| match a {
                        ast::Arg::Operand(o) | ast::Arg::Splice(o) => o,
                    })),
                    _ => {}
                }
            }
        };
        take(self, &mut stack, &mut ops);
        while let Some(mut b) = stack.pop() {
            take(&mut b, &mut stack, &mut ops);
        }
    }
}
