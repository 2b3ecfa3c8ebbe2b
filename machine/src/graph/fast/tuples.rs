//! The tuple operations of an expression, evaluated on a run's values:
//! `t[k]`, `[a, b]`, `concat(s, t)` and `len(t)` (with the quick forms'
//! arithmetic around them) on tuples that may hold
//! closures, which the expression evaluator cannot take (it works on
//! terms, and a closure of a run is no term without the graph). Like the
//! quick forms, it answers only where the answer is sure: a known tuple, an
//! index in range; anything else is `None` and the graph machine decides,
//! with its errors and stuck variables (LANGUAGE.md §6).
//!
//! A big closed tuple of the graph (a list the graph built or a run put
//! back) stands in a run as itself, [`Value::Shared`]: its elements are read
//! from the graph where they are needed, one cell at a time, rather than
//! the whole tuple compiled into the run.

use super::super::lit::Lit;
use super::super::node::{hole_index, Graph, Kind, NodeId};
use super::quick::{self, QuickValue};
use super::val::{Tup, Value};
use crate::expr::{BinOp, Expr, ExprKind};
use crate::term::Atom;

/// The deepest expression taken (the walk recurses).
const MAX_DEPTH: u32 = 32;

/// The deepest small tuple of the graph read into a run's values (the
/// reading recurses; big ones are shared values of their own).
const MAX_READ_DEPTH: u32 = 16;

/// The elements of the graph tuple `t`, if it is one.
pub(super) fn graph_tuple(g: &Graph, t: NodeId) -> Option<&[NodeId]> {
    match g.kind(t) {
        Kind::Tuple(xs) => Some(xs),
        _ => None,
    }
}

/// The value of the element `c` of a closed graph tuple (`None`: one a
/// run does not hold, such as a lambda written in place).
pub(super) fn graph_elem(g: &Graph, c: NodeId) -> Option<Value> {
    graph_elem_at(g, c, 0)
}

fn graph_elem_at(g: &Graph, c: NodeId, depth: u32) -> Option<Value> {
    Some(match g.kind(c) {
        Kind::Lit(l) => Value::Lit(l.clone()),
        Kind::Share(u) => Value::Shared(*u),
        Kind::Tuple(xs) if depth < MAX_READ_DEPTH => {
            let xs = xs.iter().map(|&x| graph_elem_at(g, x, depth + 1)).collect::<Option<Vec<Value>>>()?;
            Tup::value(xs)?
        }
        _ => return None,
    })
}

/// The elements of a tuple value (a run's or a shared graph tuple's),
/// pushed on `out` (`None`: not a tuple, or an element a run does not
/// hold; `out` may then hold some of them).
pub(super) fn elems_into(g: &Graph, v: &Value, out: &mut impl Extend<Value>) -> Option<()> {
    match v.resolved() {
        Value::Tup(t) => out.extend(t.xs.iter().map(|x| x.resolved().clone())),
        Value::Shared(t) => {
            for &c in graph_tuple(g, *t)? {
                out.extend([graph_elem(g, c)?]);
            }
        }
        _ => return None,
    }
    Some(())
}

/// Whether `v` is a tuple value (a run's or a shared graph tuple).
pub(super) fn is_tuple(g: &Graph, v: &Value) -> bool {
    match v.resolved() {
        Value::Tup(_) => true,
        Value::Shared(t) => graph_tuple(g, *t).is_some(),
        _ => false,
    }
}

/// Whether evaluating `e` can neither fail nor be stuck: a number, a
/// boolean, a variable, or a tuple of those (a tuple may hold a symbolic
/// value), the forms [`eval_at`] reads itself. (A value substituted into
/// an expression may be an expression, which can fail.)
fn inert(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Val(Atom::Var(_) | Atom::Int(_) | Atom::Bool(_)) => true,
        ExprKind::Tuple(xs) => xs.iter().all(inert),
        _ => false,
    }
}

/// The value of `e`, placeholder `k` standing for `ops[k]`.
pub(super) fn eval(g: &Graph, e: &Expr, ops: &[Value]) -> Option<Value> {
    eval_at(g, e, ops, 0)
}

fn eval_at(g: &Graph, e: &Expr, ops: &[Value], depth: u32) -> Option<Value> {
    if depth > MAX_DEPTH {
        return None;
    }
    let sub = |x: &Expr| eval_at(g, x, ops, depth + 1);
    match &e.kind {
        ExprKind::Val(Atom::Var(v)) => Some(ops.get(hole_index(*v)?)?.resolved().clone()),
        ExprKind::Val(Atom::Int(i)) => Some(Value::Lit(Lit::Int(*i))),
        ExprKind::Val(Atom::Bool(b)) => Some(Value::Lit(Lit::Bool(*b))),
        // The arithmetic around tuple operations (an index `(i-1) % 4`),
        // as the quick forms answer it.
        ExprKind::Unary(op, x) => Some(quick::unary(*op, QuickValue::of(&sub(x)?)?)?.value()),
        ExprKind::Binary(op @ (BinOp::And | BinOp::Or), a, b) => {
            Some(quick::logic(*op, QuickValue::of(&sub(a)?)?, || QuickValue::of(&sub(b)?))?.value())
        }
        ExprKind::Binary(op, a, b) => Some(quick::bin(*op, QuickValue::of(&sub(a)?)?, QuickValue::of(&sub(b)?)?)?.value()),
        ExprKind::Tuple(xs) => {
            let xs = xs.iter().map(sub).collect::<Option<Vec<Value>>>()?;
            Tup::value(xs)
        }
        ExprKind::Index(t, i) => {
            // A table indexed (`[[0, i], [1, 0]][k % 2]`) whose entries
            // can neither fail nor be stuck: only the entry read is built.
            if let ExprKind::Tuple(xs) = &t.kind {
                if xs.iter().all(inert) {
                    let Value::Lit(Lit::Int(i)) = sub(i)? else { return None };
                    return sub(xs.get(usize::try_from(i).ok()?)?);
                }
            }
            let (t, Value::Lit(Lit::Int(i))) = (sub(t)?, sub(i)?) else {
                return None;
            };
            let i = usize::try_from(i).ok()?;
            match t {
                Value::Tup(t) => Some(t.xs.get(i)?.resolved().clone()),
                Value::Shared(t) => graph_elem(g, *graph_tuple(g, t)?.get(i)?),
                _ => None,
            }
        }
        ExprKind::Call(name, xs) => match (&**name, &xs[..]) {
            ("concat", [a, b]) => {
                let mut xs = Vec::new();
                elems_into(g, &sub(a)?, &mut xs)?;
                elems_into(g, &sub(b)?, &mut xs)?;
                Tup::value(xs)
            }
            ("len" | "count", [a]) => {
                let n = match sub(a)? {
                    Value::Tup(a) => a.xs.len(),
                    Value::Shared(t) => graph_tuple(g, t)?.len(),
                    _ => return None,
                };
                Some(Value::Lit(Lit::Int(i64::try_from(n).ok()?)))
            }
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::quick::tests::parse;
    use super::*;
    use crate::expr::eval::{eval_with, values_equal};

    /// A value of a run as a term, for the evaluator (numbers, booleans
    /// and tuples of them).
    fn atom(v: &Value) -> Atom {
        match v {
            Value::Lit(l) => l.to_atom(),
            Value::Tup(t) => Atom::Tuple(t.xs.iter().map(|x| crate::term::Arg::Atom(atom(x))).collect()),
            _ => panic!("not a plain value"),
        }
    }

    /// Where the tuple operations answer, with the arithmetic around them,
    /// the full evaluator gives the same value; the sure cases are
    /// answered.
    #[test]
    fn tuple_operations_agree_with_the_evaluator() {
        let g = Graph::default();
        let exprs = [
            "[[0, a+b], [1, 0], [2, 0]][(a-1) % 3]",
            "[a, b][a]",
            "[a*b, -a, !b][1]",
            "len([a, b, a+b])",
            "concat([a], [b, a-b])[2]",
            "[a < b || a/b > 1, a == b && b != 0]",
        ];
        let vals = [
            Value::Lit(Lit::Int(1)),
            Value::Lit(Lit::Int(2)),
            Value::Lit(Lit::Int(0)),
            Value::Lit(Lit::Int(-4)),
            Value::Lit(Lit::Int(i64::MAX)),
            Value::Lit(Lit::Bool(true)),
        ];
        let mut answered = 0;
        for text in exprs {
            let e = parse(text);
            for a in &vals {
                for b in &vals {
                    let ops = [a.clone(), b.clone()];
                    let atoms: Vec<Atom> = ops.iter().map(atom).collect();
                    if let Some(got) = eval(&g, &e, &ops) {
                        answered += 1;
                        let want = eval_with(&e, &|v| atoms.get(hole_index(v)?).cloned())
                            .unwrap_or_else(|err| panic!("{text} on {atoms:?}: answered, the evaluator gave {err:?}"));
                        assert!(
                            values_equal(&atom(&got), &want),
                            "{text} on {atoms:?}: {:?}, the evaluator {want:?}",
                            atom(&got)
                        );
                    }
                }
            }
        }
        assert!(answered >= 80, "the sure cases are answered ({answered})");
    }
}
