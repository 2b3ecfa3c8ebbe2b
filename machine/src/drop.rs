//! Iterative destruction of deep terms. A program of a million statements is
//! a million nested lambdas, a value built by a loop can be a tuple a million
//! deep, and a long operator chain is an expression a million deep; the
//! derived, recursive `Drop` would overflow an ordinary thread's stack. These
//! `Drop` impls (core bodies, atoms and expressions, and the surface AST) move
//! what is nested onto an explicit stack first, so each piece is dropped
//! shallow.

use crate::expr::{Expr, ExprKind};
use crate::syntax::ast;
use crate::term::{Arg, Atom, Body, Cmd};

/// Pieces of a term waiting to be dropped.
#[derive(Default)]
struct Junk {
    bodies: Vec<Body>,
    atoms: Vec<Atom>,
    exprs: Vec<Expr>,
}

impl Junk {
    /// Keeps `a` for later if something can be nested in it.
    fn atom(&mut self, a: Atom) {
        if matches!(
            a,
            Atom::Tuple(_) | Atom::Record(_) | Atom::Map(_) | Atom::Expr(_) | Atom::Lambda(_) | Atom::Rec(_)
        ) {
            self.atoms.push(a);
        }
    }

    /// Keeps the atoms of `args` for later.
    fn args(&mut self, args: Vec<Arg>) {
        for x in args {
            let x = match x {
                Arg::Atom(x) | Arg::Splice(x) => x,
            };
            self.atom(x);
        }
    }

    /// Keeps `*e` for later, leaving a hole.
    fn boxed_expr(&mut self, e: &mut Expr) {
        let span = e.span;
        self.exprs.push(std::mem::replace(e, Expr::hole(span)));
    }

    /// Moves what is nested in `b` out.
    fn take_body(&mut self, b: &mut Body) {
        match &mut b.cmd {
            Cmd::App(app) => {
                let head = std::mem::replace(&mut app.head, Atom::Int(0));
                self.atom(head);
                self.args(std::mem::take(&mut app.args));
            }
            Cmd::Fix(f) => {
                self.bodies.push(f.lam.body.take());
                self.bodies.push(f.body.take());
            }
        }
    }

    /// Moves what is nested in `a` out.
    fn take_atom(&mut self, a: &mut Atom) {
        match a {
            Atom::Lambda(l) => self.bodies.push(l.body.take()),
            Atom::Rec(r) => self.bodies.push(r.lam.body.take()),
            Atom::Tuple(xs) => self.args(std::mem::take(xs)),
            Atom::Record(fs) => {
                for (_, x) in std::mem::take(fs) {
                    self.atom(x);
                }
            }
            Atom::Map(kvs) => {
                for (k, v) in std::mem::take(kvs) {
                    self.atom(k);
                    self.atom(v);
                }
            }
            Atom::Expr(e) => self.boxed_expr(e),
            _ => {}
        }
    }

    /// Moves what is nested in `e` out.
    fn take_expr(&mut self, e: &mut Expr) {
        match &mut e.kind {
            ExprKind::Val(a) => {
                let a = std::mem::replace(a, Atom::Int(0));
                self.atom(a);
            }
            ExprKind::Name(_) => {}
            ExprKind::Tuple(xs) | ExprKind::Call(_, xs) => self.exprs.append(xs),
            ExprKind::Record(fs) => self.exprs.extend(std::mem::take(fs).into_iter().map(|(_, x)| x)),
            ExprKind::Unary(_, a) | ExprKind::Field(a, _) => self.boxed_expr(a),
            ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) | ExprKind::Range(a, b) => {
                self.boxed_expr(a);
                self.boxed_expr(b);
            }
            ExprKind::Method(a, _, xs) => {
                self.boxed_expr(a);
                self.exprs.append(xs);
            }
        }
    }

    /// Drops everything kept, each piece shallow.
    fn empty(&mut self) {
        loop {
            if let Some(mut b) = self.bodies.pop() {
                self.take_body(&mut b);
            } else if let Some(mut a) = self.atoms.pop() {
                self.take_atom(&mut a);
            } else if let Some(mut e) = self.exprs.pop() {
                self.take_expr(&mut e);
            } else {
                return;
            }
            // The piece popped is now shallow: its own `drop` finds
            // nothing to move and allocates nothing.
        }
    }
}

/// Whether something can be nested in `a`.
fn nests(a: &Atom) -> bool {
    matches!(
        a,
        Atom::Tuple(_) | Atom::Record(_) | Atom::Map(_) | Atom::Expr(_) | Atom::Lambda(_) | Atom::Rec(_)
    )
}

/// Whether body `b` holds nothing nested (a hollow body, a call of plain
/// values): its fields drop without recursion.
fn shallow_body(b: &Body) -> bool {
    match &b.cmd {
        Cmd::App(app) => {
            !nests(&app.head)
                && app.args.iter().all(|x| match x {
                    Arg::Atom(x) | Arg::Splice(x) => !nests(x),
                })
        }
        Cmd::Fix(_) => false,
    }
}

impl Drop for Body {
    fn drop(&mut self) {
        if shallow_body(self) {
            return;
        }
        let mut junk = Junk::default();
        junk.take_body(self);
        junk.empty();
    }
}

impl Drop for Atom {
    fn drop(&mut self) {
        // A lambda whose body is shallow (the engine's handles among
        // them) drops with its box.
        if let Atom::Lambda(l) = self {
            if shallow_body(&l.body) {
                return;
            }
        }
        if nests(self) {
            let mut junk = Junk::default();
            junk.take_atom(self);
            junk.empty();
        }
    }
}

impl Drop for Expr {
    fn drop(&mut self) {
        if !matches!(self.kind, ExprKind::Name(_) | ExprKind::Val(Atom::Int(_))) {
            let mut junk = Junk::default();
            junk.take_expr(self);
            junk.empty();
        }
    }
}

/// Whether an operand holds a body (a lambda, or a tuple that may hold one).
fn surface_nests(o: &ast::SurfaceOperand) -> bool {
    matches!(o, ast::SurfaceOperand::Lambda(_) | ast::SurfaceOperand::Tuple(..))
}

/// Whether a surface body holds no other body: its fields drop without
/// recursion, and nothing needs to be taken apart (or allocated).
fn surface_shallow(b: &ast::SurfaceBody) -> bool {
    match b {
        ast::SurfaceBody::Def(..) => false,
        ast::SurfaceBody::App { head, args, tail, .. } => {
            tail.is_none()
                && !surface_nests(head)
                && args.iter().all(|a| match a {
                    ast::SurfaceArg::Operand(o) | ast::SurfaceArg::Splice(o) => !surface_nests(o),
                })
        }
    }
}

impl Drop for ast::SurfaceBody {
    fn drop(&mut self) {
        if surface_shallow(self) {
            return;
        }
        let mut stack: Vec<ast::SurfaceBody> = Vec::new();
        let mut ops: Vec<ast::SurfaceOperand> = Vec::new();
        let take = |b: &mut ast::SurfaceBody, stack: &mut Vec<ast::SurfaceBody>, ops: &mut Vec<ast::SurfaceOperand>| {
            match b {
                ast::SurfaceBody::Def(d, rest) => {
                    stack.push(std::mem::replace(&mut **rest, ast::SurfaceBody::hole()));
                    match &mut **d {
                        ast::Def::Let {
                            value: ast::SurfaceArg::Operand(o) | ast::SurfaceArg::Splice(o),
                            ..
                        } => {
                            ops.push(std::mem::replace(o, ast::SurfaceOperand::Int(0, Default::default())));
                        }
                        ast::Def::Fix { lam, .. } => stack.push(std::mem::replace(&mut lam.body, ast::SurfaceBody::hole())),
                    }
                }
                ast::SurfaceBody::App { head, args, tail, .. } => {
                    if surface_nests(head) {
                        ops.push(std::mem::replace(head, ast::SurfaceOperand::Int(0, Default::default())));
                    }
                    ops.extend(
                        std::mem::take(args)
                            .into_iter()
                            .map(|a| match a {
                                ast::SurfaceArg::Operand(o) | ast::SurfaceArg::Splice(o) => o,
                            })
                            .filter(surface_nests),
                    );
                    if let Some(t) = tail {
                        if !surface_shallow(&t.body) {
                            stack.push(std::mem::replace(&mut t.body, ast::SurfaceBody::hole()));
                        }
                    }
                }
            }
            while let Some(mut o) = ops.pop() {
                match &mut o {
                    ast::SurfaceOperand::Lambda(l) => stack.push(std::mem::replace(&mut l.body, ast::SurfaceBody::hole())),
                    ast::SurfaceOperand::Tuple(xs, _) => ops.extend(std::mem::take(xs).into_iter().map(|a| match a {
                        ast::SurfaceArg::Operand(o) | ast::SurfaceArg::Splice(o) => o,
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
