//! Iterative cloning of deep terms. A program of a million statements is a
//! million nested lambdas, a value built by a loop can be a tuple a million
//! deep, and a long operator chain is an expression a million deep: the
//! derived, recursive `Clone` would overflow an ordinary thread's stack.
//!
//! [`Body`], [`Atom`] and [`Expr`] clone here: each node is first copied
//! shallow (its children are placeholders), and the pairs (original child,
//! placeholder) go on an explicit stack to be filled in turn. The other term
//! types derive `Clone`, which reaches these impls at every body, atom and
//! expression, so no path recurses per level.

use crate::expr::{Expr, ExprKind};
use crate::term::{Application, Arg, Atom, Body, Cmd, Fix, RecLambda};

/// An original and the placeholder its copy goes into.
enum Pair<'s, 'd> {
    Body(&'s Body, &'d mut Body),
    Atom(&'s Atom, &'d mut Atom),
    Expr(&'s Expr, &'d mut Expr),
}

/// A placeholder atom.
fn hole() -> Atom {
    Atom::Int(0)
}

/// Placeholders for `args`, splices kept.
fn arg_holes(args: &[Arg]) -> Vec<Arg> {
    args.iter()
        .map(|a| match a {
            Arg::Atom(_) => Arg::Atom(hole()),
            Arg::Splice(_) => Arg::Splice(hole()),
        })
        .collect()
}

/// Pushes the pairs of arguments.
fn push_args<'s, 'd>(src: &'s [Arg], dst: &'d mut [Arg], todo: &mut Vec<Pair<'s, 'd>>) {
    for (s, d) in src.iter().zip(dst.iter_mut()) {
        let (Arg::Atom(s) | Arg::Splice(s)) = s;
        let (Arg::Atom(d) | Arg::Splice(d)) = d;
        todo.push(Pair::Atom(s, d));
    }
}

/// Pushes the pairs of expressions.
fn push_exprs<'s, 'd>(src: &'s [Expr], dst: &'d mut [Expr], todo: &mut Vec<Pair<'s, 'd>>) {
    for (s, d) in src.iter().zip(dst.iter_mut()) {
        todo.push(Pair::Expr(s, d));
    }
}

/// Fills every placeholder reachable from `start`.
fn fill(start: Pair<'_, '_>) {
    let mut todo = vec![start];
    while let Some(p) = todo.pop() {
        crate::memory::tick();
        match p {
            Pair::Body(s, d) => {
                d.stage = s.stage.clone();
                d.span = s.span;
                match &s.cmd {
                    Cmd::App(app) => {
                        d.cmd = Cmd::App(Application {
                            head: hole(),
                            args: arg_holes(&app.args),
                            sugar: app.sugar,
                        });
                        if let Cmd::App(da) = &mut d.cmd {
                            todo.push(Pair::Atom(&app.head, &mut da.head));
                            push_args(&app.args, &mut da.args, &mut todo);
                        }
                    }
                    Cmd::Fix(f) => {
                        d.cmd = Cmd::Fix(Box::new(Fix {
                            sparam: f.sparam,
                            name: f.name,
                            lam: f.lam.shell(),
                            body: Body::hollow(f.body.span),
                        }));
                        if let Cmd::Fix(df) = &mut d.cmd {
                            let df = &mut **df;
                            todo.push(Pair::Body(&f.lam.body, &mut df.lam.body));
                            todo.push(Pair::Body(&f.body, &mut df.body));
                        }
                    }
                }
            }
            Pair::Atom(s, d) => {
                *d = match s {
                    Atom::Var(_)
                    | Atom::Int(_)
                    | Atom::Float(_)
                    | Atom::Bool(_)
                    | Atom::Str(_)
                    | Atom::Stage(_)
                    | Atom::Builtin(_)
                    | Atom::Matrix(_) => flat(s).unwrap_or_else(hole),
                    Atom::Tuple(xs) => Atom::Tuple(arg_holes(xs)),
                    Atom::Record(fs) => Atom::Record(fs.iter().map(|(f, _)| (f.clone(), hole())).collect()),
                    Atom::Map(kvs) => Atom::Map(kvs.iter().map(|_| (hole(), hole())).collect()),
                    Atom::Expr(e) => Atom::Expr(Box::new(Expr::hole(e.span))),
                    Atom::Lambda(l) => Atom::Lambda(Box::new(l.shell())),
                    Atom::Rec(r) => Atom::Rec(Box::new(RecLambda {
                        name: r.name,
                        lam: r.lam.shell(),
                    })),
                };
                match (s, d) {
                    (Atom::Tuple(xs), Atom::Tuple(ys)) => push_args(xs, ys, &mut todo),
                    (Atom::Record(fs), Atom::Record(gs)) => {
                        for ((_, s), (_, d)) in fs.iter().zip(gs.iter_mut()) {
                            todo.push(Pair::Atom(s, d));
                        }
                    }
                    (Atom::Map(kvs), Atom::Map(lws)) => {
                        for ((k, v), (l, w)) in kvs.iter().zip(lws.iter_mut()) {
                            todo.push(Pair::Atom(k, l));
                            todo.push(Pair::Atom(v, w));
                        }
                    }
                    (Atom::Expr(e), Atom::Expr(f)) => todo.push(Pair::Expr(e, f)),
                    (Atom::Lambda(l), Atom::Lambda(m)) => todo.push(Pair::Body(&l.body, &mut m.body)),
                    (Atom::Rec(r), Atom::Rec(q)) => todo.push(Pair::Body(&r.lam.body, &mut q.lam.body)),
                    _ => {}
                }
            }
            Pair::Expr(s, d) => {
                d.span = s.span;
                let hole_of = |e: &Expr| Box::new(Expr::hole(e.span));
                let holes = |xs: &[Expr]| xs.iter().map(|x| Expr::hole(x.span)).collect::<Vec<_>>();
                d.kind = match &s.kind {
                    ExprKind::Val(_) => ExprKind::Val(hole()),
                    ExprKind::Name(n) => ExprKind::Name(n.clone()),
                    ExprKind::Tuple(xs) => ExprKind::Tuple(holes(xs)),
                    ExprKind::Record(fs) => ExprKind::Record(fs.iter().map(|(f, x)| (f.clone(), Expr::hole(x.span))).collect()),
                    ExprKind::Unary(op, a) => ExprKind::Unary(*op, hole_of(a)),
                    ExprKind::Binary(op, a, b) => ExprKind::Binary(*op, hole_of(a), hole_of(b)),
                    ExprKind::Index(a, b) => ExprKind::Index(hole_of(a), hole_of(b)),
                    ExprKind::Range(a, b) => ExprKind::Range(hole_of(a), hole_of(b)),
                    ExprKind::Field(a, f) => ExprKind::Field(hole_of(a), f.clone()),
                    ExprKind::Call(f, xs) => ExprKind::Call(f.clone(), holes(xs)),
                    ExprKind::Method(a, f, xs) => ExprKind::Method(hole_of(a), f.clone(), holes(xs)),
                };
                match (&s.kind, &mut d.kind) {
                    (ExprKind::Val(a), ExprKind::Val(b)) => todo.push(Pair::Atom(a, b)),
                    (ExprKind::Tuple(xs), ExprKind::Tuple(ys)) | (ExprKind::Call(_, xs), ExprKind::Call(_, ys)) => {
                        push_exprs(xs, ys, &mut todo)
                    }
                    (ExprKind::Record(fs), ExprKind::Record(gs)) => {
                        for ((_, s), (_, d)) in fs.iter().zip(gs.iter_mut()) {
                            todo.push(Pair::Expr(s, d));
                        }
                    }
                    (ExprKind::Unary(_, a), ExprKind::Unary(_, b)) | (ExprKind::Field(a, _), ExprKind::Field(b, _)) => {
                        todo.push(Pair::Expr(a, b))
                    }
                    (ExprKind::Binary(_, a, b), ExprKind::Binary(_, c, d))
                    | (ExprKind::Index(a, b), ExprKind::Index(c, d))
                    | (ExprKind::Range(a, b), ExprKind::Range(c, d)) => {
                        todo.push(Pair::Expr(b, d));
                        todo.push(Pair::Expr(a, c));
                    }
                    (ExprKind::Method(a, _, xs), ExprKind::Method(b, _, ys)) => {
                        todo.push(Pair::Expr(a, b));
                        push_exprs(xs, ys, &mut todo);
                    }
                    _ => {}
                }
            }
        }
    }
}

impl Clone for Body {
    fn clone(&self) -> Body {
        let mut out = Body::hollow(self.span);
        fill(Pair::Body(self, &mut out));
        out
    }
}

/// The copy of an atom with nothing nested in it (`None` for the others).
fn flat(a: &Atom) -> Option<Atom> {
    Some(match a {
        Atom::Var(v) => Atom::Var(*v),
        Atom::Int(i) => Atom::Int(*i),
        Atom::Float(f) => Atom::Float(*f),
        Atom::Bool(b) => Atom::Bool(*b),
        Atom::Str(x) => Atom::Str(x.clone()),
        Atom::Stage(b) => Atom::Stage(*b),
        Atom::Builtin(b) => Atom::Builtin(*b),
        Atom::Matrix(m) => Atom::Matrix(m.clone()),
        Atom::Tuple(_) | Atom::Record(_) | Atom::Map(_) | Atom::Expr(_) | Atom::Lambda(_) | Atom::Rec(_) => return None,
    })
}

impl Clone for Atom {
    fn clone(&self) -> Atom {
        // Numbers, strings and the like are copied directly, without a
        // work stack to allocate.
        if let Some(a) = flat(self) {
            return a;
        }
        let mut out = hole();
        fill(Pair::Atom(self, &mut out));
        out
    }
}

impl Clone for Expr {
    fn clone(&self) -> Expr {
        let mut out = Expr::hole(self.span);
        fill(Pair::Expr(self, &mut out));
        out
    }
}

#[cfg(test)]
mod tests {
    use crate::expr::parse::parse_expr;
    use crate::print::Printer;
    use crate::span::FileId;
    use crate::term::{Atom, Vars};

    #[test]
    fn a_clone_prints_like_the_original() {
        let e = parse_expr("f(1, -2+x.y[3..4])*[5, {a: 6}].g(7) || !t", FileId(0), 0).expect("parses");
        let a = Atom::Tuple(vec![
            crate::term::Arg::Atom(Atom::Expr(Box::new(e))),
            crate::term::Arg::Splice(Atom::Int(8)),
        ]);
        let vars = Vars::default();
        assert_eq!(Printer::new(&vars).atom_text(&a.clone()), Printer::new(&vars).atom_text(&a));
    }
}
