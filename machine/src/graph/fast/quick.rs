//! Quick expressions: the integer and boolean arithmetic of a core-time loop
//! (`"i+1"`, `"acc+i"`, `"i > N"`), evaluated on the run's values without
//! building terms.
//!
//! An expression is made quick when the template is compiled, if it uses
//! only placeholders, integer and boolean literals, `-`, `!` and the binary
//! operators. Evaluation answers only where the answer is sure: integer
//! operands for arithmetic and order, integers or booleans for `==` and
//! `!=`, booleans for `&&`, `||` and `!`; no overflow and no division by
//! zero. Anything else is `None`, and the full evaluator (`expr::eval`)
//! decides, with its errors and its stuck variables.

use super::super::lit::Lit;
use super::val::V;
use crate::expr::{BinOp, Expr, ExprKind, UnOp};
use crate::term::Atom;

/// The deepest quick expression (its evaluation recurses).
const MAX_DEPTH: u32 = 32;

/// A quick expression.
pub(super) enum Q {
    /// Placeholder `k`: operand `k`.
    Hole(u32),
    Int(i64),
    Bool(bool),
    Neg(Box<Q>),
    Not(Box<Q>),
    Bin(BinOp, Box<Q>, Box<Q>),
}

/// A quick value.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum QV {
    /// An integer.
    I(i64),
    /// A boolean.
    B(bool),
}

impl QV {
    /// The quick value of a value, if it has one.
    pub(super) fn of(v: &V) -> Option<QV> {
        match v {
            V::Lit(Lit::Int(i)) => Some(QV::I(*i)),
            V::Lit(Lit::Bool(b)) => Some(QV::B(*b)),
            _ => None,
        }
    }
}

impl Q {
    /// The quick form of `e`, if it has one.
    pub(super) fn of(e: &Expr) -> Option<Q> {
        Q::of_at(e, 0)
    }

    fn of_at(e: &Expr, depth: u32) -> Option<Q> {
        if depth > MAX_DEPTH {
            return None;
        }
        Some(match &e.kind {
            ExprKind::Val(Atom::Var(v)) => Q::Hole(u32::try_from(super::super::node::hole_index(*v)?).ok()?),
            ExprKind::Val(Atom::Int(i)) => Q::Int(*i),
            ExprKind::Val(Atom::Bool(b)) => Q::Bool(*b),
            ExprKind::Unary(UnOp::Neg, x) => Q::Neg(Box::new(Q::of_at(x, depth + 1)?)),
            ExprKind::Unary(UnOp::Not, x) => Q::Not(Box::new(Q::of_at(x, depth + 1)?)),
            ExprKind::Binary(op, a, b) => Q::Bin(*op, Box::new(Q::of_at(a, depth + 1)?), Box::new(Q::of_at(b, depth + 1)?)),
            _ => return None,
        })
    }

    /// Its value with operands `ops`, where the answer is sure.
    #[cfg(test)]
    fn eval(&self, ops: &[V]) -> Option<V> {
        self.eval_by(&|k| ops.get(k as usize).and_then(QV::of))
    }

    /// Its value where the answer is sure, operand `k` read by `op(k)`
    /// (`None`: not an integer or boolean).
    pub(super) fn eval_by(&self, op: &impl Fn(u32) -> Option<QV>) -> Option<V> {
        Some(match self.value(op)? {
            QV::I(i) => V::Lit(Lit::Int(i)),
            QV::B(b) => V::Lit(Lit::Bool(b)),
        })
    }

    fn value(&self, ops: &impl Fn(u32) -> Option<QV>) -> Option<QV> {
        Some(match self {
            Q::Hole(k) => ops(*k)?,
            Q::Int(i) => QV::I(*i),
            Q::Bool(b) => QV::B(*b),
            Q::Neg(x) => match x.value(ops)? {
                QV::I(i) => QV::I(i.checked_neg()?),
                QV::B(_) => return None,
            },
            Q::Not(x) => match x.value(ops)? {
                QV::B(b) => QV::B(!b),
                QV::I(_) => return None,
            },
            Q::Bin(op @ (BinOp::And | BinOp::Or), a, b) => {
                let QV::B(l) = a.value(ops)? else { return None };
                if l == (*op == BinOp::Or) {
                    QV::B(l)
                } else {
                    match b.value(ops)? {
                        QV::B(r) => QV::B(r),
                        QV::I(_) => return None,
                    }
                }
            }
            Q::Bin(op, a, b) => {
                let (l, r) = (a.value(ops)?, b.value(ops)?);
                match (op, l, r) {
                    (BinOp::Eq, QV::I(_), QV::I(_)) | (BinOp::Eq, QV::B(_), QV::B(_)) => QV::B(l == r),
                    (BinOp::Ne, QV::I(_), QV::I(_)) | (BinOp::Ne, QV::B(_), QV::B(_)) => QV::B(l != r),
                    (_, QV::I(x), QV::I(y)) => match op {
                        BinOp::Add => QV::I(x.checked_add(y)?),
                        BinOp::Sub => QV::I(x.checked_sub(y)?),
                        BinOp::Mul => QV::I(x.checked_mul(y)?),
                        // Zero divisors are the evaluator's to report.
                        BinOp::Div if y != 0 => QV::I(x.checked_div(y)?),
                        BinOp::Rem if y != 0 => QV::I(x.checked_rem(y)?),
                        BinOp::Lt => QV::B(x < y),
                        BinOp::Le => QV::B(x <= y),
                        BinOp::Gt => QV::B(x > y),
                        BinOp::Ge => QV::B(x >= y),
                        _ => return None,
                    },
                    _ => return None,
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::eval::eval_with;
    use crate::expr::parse::parse_expr;
    use crate::span::FileId;

    /// Parses `text` with `a`, `b`, `c` as placeholders 0, 1, 2.
    fn parse(text: &str) -> Expr {
        let e = parse_expr(text, FileId(0), 0).expect("parses");
        e.map_leaves(&mut |x| match &x.kind {
            ExprKind::Name(n) => match &**n {
                "a" => ExprKind::Val(Atom::Var(super::super::super::node::hole(0))),
                "b" => ExprKind::Val(Atom::Var(super::super::super::node::hole(1))),
                "c" => ExprKind::Val(Atom::Var(super::super::super::node::hole(2))),
                _ => x.kind.clone(),
            },
            k => k.clone(),
        })
    }

    /// Where the quick evaluation answers, the full evaluator gives the same
    /// value; where it does not, the full one fails, is stuck, or needs
    /// something quick expressions leave out.
    #[test]
    fn quick_answers_agree_with_the_evaluator() {
        let exprs = [
            "a+b",
            "a-b*c",
            "a/b",
            "a%b",
            "a<b",
            "a<=b",
            "a>b",
            "a>=b",
            "a==b",
            "a!=b",
            "-a",
            "!a",
            "a&&b",
            "a||b",
            "a+1>b && !c",
            "(a+b)*(b-c)",
            "a==b || a/b>1",
        ];
        let vals = [
            V::Lit(Lit::Int(7)),
            V::Lit(Lit::Int(-3)),
            V::Lit(Lit::Int(0)),
            V::Lit(Lit::Int(i64::MAX)),
            V::Lit(Lit::Int(i64::MIN)),
            V::Lit(Lit::Bool(true)),
            V::Lit(Lit::Bool(false)),
            V::Lit(Lit::Float(2.5)),
        ];
        let mut answered = 0;
        for text in exprs {
            let e = parse(text);
            let q = Q::of(&e).unwrap_or_else(|| panic!("{text} is quick"));
            for a in &vals {
                for b in &vals {
                    for c in &vals {
                        let ops = [a.clone(), b.clone(), c.clone()];
                        let atoms: Vec<Atom> = ops
                            .iter()
                            .map(|v| match v {
                                V::Lit(l) => l.to_atom(),
                                _ => Atom::Int(0),
                            })
                            .collect();
                        let full = eval_with(&e, &|v| atoms.get(super::super::super::node::hole_index(v)?).cloned());
                        if let Some(V::Lit(got)) = q.eval(&ops) {
                            answered += 1;
                            let want = full.unwrap_or_else(|err| panic!("{text} on {atoms:?}: quick answered, full gave {err:?}"));
                            assert!(
                                crate::expr::eval::values_equal(&got.to_atom(), &want),
                                "{text} on {atoms:?}: quick {got:?}, full {want:?}"
                            );
                        }
                    }
                }
            }
        }
        assert!(answered > 1000, "quick expressions answer most integer cases ({answered})");
    }

    #[test]
    fn only_plain_arithmetic_is_quick() {
        for text in ["len(a)", "a[0]", "[a, b]", "a.x", "'s'", "1.5+a"] {
            assert!(Q::of(&parse(text)).is_none(), "{text}");
        }
    }
}
