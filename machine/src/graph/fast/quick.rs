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

use std::rc::Rc;

use super::super::lit::Lit;
use super::tpl::TAtom;
use super::val::{Frame, V};
use crate::expr::{BinOp, Expr, ExprKind, UnOp};
use crate::term::Atom;

/// The deepest quick expression (its evaluation recurses).
const MAX_DEPTH: u32 = 32;

/// A quick expression.
pub(super) enum Q {
    /// Placeholder `k`: operand `k`.
    Hole(u32),
    /// An operand that is a slot: this many frames out, this slot
    /// ([`Q::resolve`]).
    Slot(u32, u32),
    /// A binary operator other than `&&` and `||` on two leaves (the
    /// common `"i+1"`, `"i > N"`), evaluated without recursion.
    Leaves(BinOp, Leaf, Leaf),
    Int(i64),
    Bool(bool),
    Neg(Box<Q>),
    Not(Box<Q>),
    Bin(BinOp, Box<Q>, Box<Q>),
}

/// An operand of [`Q::Leaves`].
#[derive(Clone, Copy)]
pub(super) enum Leaf {
    /// A slot: this many frames out, this slot.
    Slot(u32, u32),
    /// A number or boolean.
    K(QV),
}

impl Leaf {
    fn of(q: &Q) -> Option<Leaf> {
        match q {
            Q::Slot(up, ix) => Some(Leaf::Slot(*up, *ix)),
            Q::Int(i) => Some(Leaf::K(QV::I(*i))),
            Q::Bool(b) => Some(Leaf::K(QV::B(*b))),
            _ => None,
        }
    }

    #[inline(always)]
    fn value(self, ops: &impl Operands) -> Option<QV> {
        match self {
            Leaf::Slot(up, ix) => ops.slot(up, ix),
            Leaf::K(v) => Some(v),
        }
    }
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
    /// The value it is.
    pub(super) fn value(self) -> V {
        match self {
            QV::I(i) => V::Lit(Lit::Int(i)),
            QV::B(b) => V::Lit(Lit::Bool(b)),
        }
    }

    /// The quick value of a value, if it has one.
    #[inline(always)]
    pub(super) fn of(v: &V) -> Option<QV> {
        match v {
            V::Lit(Lit::Int(i)) => Some(QV::I(*i)),
            V::Lit(Lit::Bool(b)) => Some(QV::B(*b)),
            _ => None,
        }
    }
}

/// Where a quick expression reads its operands.
pub(super) trait Operands {
    /// Placeholder `k`.
    fn hole(&self, k: u32) -> Option<QV>;
    /// The slot `ix` of the frame `up` frames out.
    fn slot(&self, up: u32, ix: u32) -> Option<QV>;
}

/// A frame of a run: operands are its slots.
impl Operands for Rc<Frame> {
    fn hole(&self, _: u32) -> Option<QV> {
        None
    }

    #[inline(always)]
    fn slot(&self, up: u32, ix: u32) -> Option<QV> {
        QV::of(self.get(up, ix)?)
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

    /// The same with its placeholders replaced by the operands `kids`
    /// stand for: slots, integers, booleans (`None`: another operand, which
    /// a quick expression cannot read).
    pub(super) fn resolve(&self, kids: &[TAtom]) -> Option<Q> {
        let r = |x: &Q| x.resolve(kids).map(Box::new);
        Some(match self {
            Q::Hole(k) => match kids.get(*k as usize)? {
                TAtom::Var(p) => Q::Slot(p.pup, p.pix),
                TAtom::Lit(Lit::Int(i)) => Q::Int(*i),
                TAtom::Lit(Lit::Bool(b)) => Q::Bool(*b),
                _ => return None,
            },
            Q::Slot(up, ix) => Q::Slot(*up, *ix),
            Q::Int(i) => Q::Int(*i),
            Q::Bool(b) => Q::Bool(*b),
            Q::Neg(x) => Q::Neg(r(x)?),
            Q::Not(x) => Q::Not(r(x)?),
            Q::Leaves(op, a, b) => Q::Leaves(*op, *a, *b),
            Q::Bin(op, a, b) => {
                let (a, b) = (r(a)?, r(b)?);
                match (op, Leaf::of(&a), Leaf::of(&b)) {
                    (BinOp::And | BinOp::Or, _, _) => Q::Bin(*op, a, b),
                    (_, Some(x), Some(y)) => Q::Leaves(*op, x, y),
                    _ => Q::Bin(*op, a, b),
                }
            }
        })
    }

    /// Its value with operands `ops`, where the answer is sure.
    #[cfg(test)]
    fn eval(&self, ops: &[V]) -> Option<V> {
        struct Ops<'a>(&'a [V]);
        impl Operands for Ops<'_> {
            fn hole(&self, k: u32) -> Option<QV> {
                self.0.get(k as usize).and_then(QV::of)
            }
            fn slot(&self, _: u32, _: u32) -> Option<QV> {
                None
            }
        }
        self.eval_by(&Ops(ops))
    }

    /// Its value where the answer is sure, operands read from `ops`
    /// (`None`: not an integer or boolean).
    #[inline(always)]
    pub(super) fn eval_by(&self, ops: &impl Operands) -> Option<V> {
        // Two leaves (the common case) without a call.
        let v = match self {
            Q::Leaves(op, a, b) => bin(*op, a.value(ops)?, b.value(ops)?),
            q => q.value(ops),
        };
        Some(v?.value())
    }

    /// The value of a leaf (a slot or a literal) without a call; `None`
    /// for anything else, or a slot without a quick value.
    #[inline(always)]
    fn leaf(&self, ops: &impl Operands) -> Option<QV> {
        match self {
            Q::Slot(up, ix) => ops.slot(*up, *ix),
            Q::Int(i) => Some(QV::I(*i)),
            Q::Bool(b) => Some(QV::B(*b)),
            _ => self.value(ops),
        }
    }

    fn value(&self, ops: &impl Operands) -> Option<QV> {
        match self {
            Q::Leaves(op, a, b) => bin(*op, a.value(ops)?, b.value(ops)?),
            Q::Hole(k) => ops.hole(*k),
            Q::Slot(up, ix) => ops.slot(*up, *ix),
            Q::Int(i) => Some(QV::I(*i)),
            Q::Bool(b) => Some(QV::B(*b)),
            Q::Neg(x) => unary(UnOp::Neg, x.leaf(ops)?),
            Q::Not(x) => unary(UnOp::Not, x.leaf(ops)?),
            Q::Bin(op @ (BinOp::And | BinOp::Or), a, b) => logic(*op, a.leaf(ops)?, || b.leaf(ops)),
            Q::Bin(op, a, b) => bin(*op, a.leaf(ops)?, b.leaf(ops)?),
        }
    }
}

/// `-x` or `!x` on a quick value, where the answer is sure.
pub(super) fn unary(op: UnOp, x: QV) -> Option<QV> {
    match (op, x) {
        (UnOp::Neg, QV::I(i)) => Some(QV::I(i.checked_neg()?)),
        (UnOp::Not, QV::B(b)) => Some(QV::B(!b)),
        _ => None,
    }
}

/// `&&` or `||` (`op`) on the quick value `l` and, only if `l` does not
/// decide, the right operand `r`, where the answer is sure.
pub(super) fn logic(op: BinOp, l: QV, r: impl FnOnce() -> Option<QV>) -> Option<QV> {
    let QV::B(l) = l else { return None };
    if l == (op == BinOp::Or) {
        return Some(QV::B(l));
    }
    match r()? {
        QV::B(r) => Some(QV::B(r)),
        QV::I(_) => None,
    }
}

/// A binary operator other than `&&` and `||` on quick values, where the
/// answer is sure.
#[inline(always)]
pub(super) fn bin(op: BinOp, l: QV, r: QV) -> Option<QV> {
    Some(match (l, r) {
        (QV::I(x), QV::I(y)) => match op {
            BinOp::Add => QV::I(x.checked_add(y)?),
            BinOp::Sub => QV::I(x.checked_sub(y)?),
            BinOp::Mul => QV::I(x.checked_mul(y)?),
            // Zero divisors are the evaluator's to report.
            BinOp::Div if y != 0 => QV::I(x.checked_div(y)?),
            BinOp::Rem if y != 0 => QV::I(x.wrapping_rem(y)),
            BinOp::Lt => QV::B(x < y),
            BinOp::Le => QV::B(x <= y),
            BinOp::Gt => QV::B(x > y),
            BinOp::Ge => QV::B(x >= y),
            BinOp::Eq => QV::B(x == y),
            BinOp::Ne => QV::B(x != y),
            _ => return None,
        },
        (QV::B(x), QV::B(y)) => match op {
            BinOp::Eq => QV::B(x == y),
            BinOp::Ne => QV::B(x != y),
            _ => return None,
        },
        _ => return None,
    })
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::expr::eval::eval_with;
    use crate::expr::parse::parse_expr;
    use crate::span::FileId;

    /// Parses `text` with `a`, `b`, `c` as placeholders 0, 1, 2.
    pub(in crate::graph::fast) fn parse(text: &str) -> Expr {
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
