//! The tuple operations of an expression, evaluated on a run's values:
//! `t[k]`, `[a, b]`, `concat(s, t)` and `len(t)` on tuples that may hold
//! closures, which the expression evaluator cannot take (it works on
//! terms, and a closure of a run is no term without the graph). Like the
//! quick forms, it answers only where the answer is sure: a known tuple, an
//! index in range; anything else is `None` and the graph machine decides,
//! with its errors and stuck variables (LANGUAGE.md §8).

use super::super::lit::Lit;
use super::super::node::hole_index;
use super::val::{Tup, V};
use crate::expr::{Expr, ExprKind};
use crate::term::Atom;

/// The deepest expression taken (the walk recurses).
const MAX_DEPTH: u32 = 32;

/// The value of `e`, placeholder `k` standing for `ops[k]`.
pub(super) fn eval(e: &Expr, ops: &[V]) -> Option<V> {
    eval_at(e, ops, 0)
}

fn eval_at(e: &Expr, ops: &[V], depth: u32) -> Option<V> {
    if depth > MAX_DEPTH {
        return None;
    }
    let sub = |x: &Expr| eval_at(x, ops, depth + 1);
    match &e.kind {
        ExprKind::Val(Atom::Var(v)) => Some(ops.get(hole_index(*v)?)?.resolved().clone()),
        ExprKind::Val(Atom::Int(i)) => Some(V::Lit(Lit::Int(*i))),
        ExprKind::Tuple(xs) => {
            let xs = xs.iter().map(sub).collect::<Option<Vec<V>>>()?;
            Tup::value(xs)
        }
        ExprKind::Index(t, i) => {
            let (V::Tup(t), V::Lit(Lit::Int(i))) = (sub(t)?, sub(i)?) else {
                return None;
            };
            let x = t.xs.get(usize::try_from(i).ok()?)?;
            Some(x.resolved().clone())
        }
        ExprKind::Call(name, xs) => match (&**name, &xs[..]) {
            ("concat", [a, b]) => {
                let (V::Tup(a), V::Tup(b)) = (sub(a)?, sub(b)?) else {
                    return None;
                };
                Tup::value(a.xs.iter().chain(&b.xs).map(|x| x.resolved().clone()).collect())
            }
            ("len" | "count", [a]) => {
                let V::Tup(a) = sub(a)? else { return None };
                Some(V::Lit(Lit::Int(i64::try_from(a.xs.len()).ok()?)))
            }
            _ => None,
        },
        _ => None,
    }
}
