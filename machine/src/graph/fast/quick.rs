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
use super::template::AtomTemplate;
use super::val::{Frame, Value};
use crate::expr::{BinOp, Expr, ExprKind, UnOp};
use crate::term::Atom;

/// The deepest quick expression (its evaluation recurses).
const MAX_DEPTH: u32 = 32;

/// A quick expression.
pub(super) enum QuickExpr {
    /// Placeholder `k`: operand `k`.
    Hole(u32),
    /// An operand that is a slot: this many frames out, this slot
    /// ([`QuickExpr::resolve`]).
    Slot(u32, u32),
    /// A binary operator other than `&&` and `||` on two leaves (the
    /// common `"i+1"`, `"i > N"`), evaluated without recursion.
    Leaves(BinOp, Leaf, Leaf),
    Int(i64),
    Bool(bool),
    Neg(Box<QuickExpr>),
    Not(Box<QuickExpr>),
    Bin(BinOp, Box<QuickExpr>, Box<QuickExpr>),
}

/// An operand of [`QuickExpr::Leaves`].
#[derive(Clone, Copy)]
pub(super) enum Leaf {
    /// A slot: this many frames out, this slot.
    Slot(u32, u32),
    /// A number or boolean.
    Const(QuickValue),
}

impl Leaf {
    fn of(q: &QuickExpr) -> Option<Leaf> {
        match q {
            QuickExpr::Slot(up, ix) => Some(Leaf::Slot(*up, *ix)),
            QuickExpr::Int(i) => Some(Leaf::Const(QuickValue::Int(*i))),
            QuickExpr::Bool(b) => Some(Leaf::Const(QuickValue::Bool(*b))),
            _ => None,
        }
    }

    #[inline(always)]
    fn value(self, ops: &impl Operands) -> Option<QuickValue> {
        match self {
            Leaf::Slot(up, ix) => ops.slot(up, ix),
            Leaf::Const(v) => Some(v),
        }
    }
}

/// A quick value: an integer or a boolean.
pub(super) use crate::expr::scalar::Scalar as QuickValue;
/// The operators on quick values.
pub(super) use crate::expr::scalar::{binary as bin, logic, unary};

impl QuickValue {
    /// The value it is.
    pub(super) fn value(self) -> Value {
        match self {
            QuickValue::Int(i) => Value::Lit(Lit::Int(i)),
            QuickValue::Bool(b) => Value::Lit(Lit::Bool(b)),
        }
    }

    /// The quick value of a value, if it has one.
    #[inline(always)]
    pub(super) fn of(v: &Value) -> Option<QuickValue> {
        match v {
            Value::Lit(Lit::Int(i)) => Some(QuickValue::Int(*i)),
            Value::Lit(Lit::Bool(b)) => Some(QuickValue::Bool(*b)),
            _ => None,
        }
    }
}

/// Where a quick expression reads its operands.
pub(super) trait Operands {
    /// Placeholder `k`.
    fn hole(&self, k: u32) -> Option<QuickValue>;
    /// The slot `ix` of the frame `up` frames out.
    fn slot(&self, up: u32, ix: u32) -> Option<QuickValue>;
}

/// A frame of a run: operands are its slots.
impl Operands for Rc<Frame> {
    fn hole(&self, _: u32) -> Option<QuickValue> {
        None
    }

    #[inline(always)]
    fn slot(&self, up: u32, ix: u32) -> Option<QuickValue> {
        QuickValue::of(self.get(up, ix)?)
    }
}

impl QuickExpr {
    /// The quick form of `e`, if it has one.
    pub(super) fn of(e: &Expr) -> Option<QuickExpr> {
        QuickExpr::of_at(e, 0)
    }

    fn of_at(e: &Expr, depth: u32) -> Option<QuickExpr> {
        if depth > MAX_DEPTH {
            return None;
        }
        Some(match &e.kind {
            ExprKind::Val(Atom::Var(v)) => QuickExpr::Hole(u32::try_from(super::super::node::hole_index(*v)?).ok()?),
            ExprKind::Val(Atom::Int(i)) => QuickExpr::Int(*i),
            ExprKind::Val(Atom::Bool(b)) => QuickExpr::Bool(*b),
            ExprKind::Unary(UnOp::Neg, x) => QuickExpr::Neg(Box::new(QuickExpr::of_at(x, depth + 1)?)),
            ExprKind::Unary(UnOp::Not, x) => QuickExpr::Not(Box::new(QuickExpr::of_at(x, depth + 1)?)),
            ExprKind::Binary(op, a, b) => QuickExpr::Bin(
                *op,
                Box::new(QuickExpr::of_at(a, depth + 1)?),
                Box::new(QuickExpr::of_at(b, depth + 1)?),
            ),
            _ => return None,
        })
    }

    /// The same with its placeholders replaced by the operands `kids`
    /// stand for: slots, integers, booleans (`None`: another operand, which
    /// a quick expression cannot read).
    pub(super) fn resolve(&self, kids: &[AtomTemplate]) -> Option<QuickExpr> {
        let r = |x: &QuickExpr| x.resolve(kids).map(Box::new);
        Some(match self {
            QuickExpr::Hole(k) => match kids.get(*k as usize)? {
                AtomTemplate::Var(p) => QuickExpr::Slot(p.pup, p.pix),
                AtomTemplate::Lit(Lit::Int(i)) => QuickExpr::Int(*i),
                AtomTemplate::Lit(Lit::Bool(b)) => QuickExpr::Bool(*b),
                _ => return None,
            },
            QuickExpr::Slot(up, ix) => QuickExpr::Slot(*up, *ix),
            QuickExpr::Int(i) => QuickExpr::Int(*i),
            QuickExpr::Bool(b) => QuickExpr::Bool(*b),
            QuickExpr::Neg(x) => QuickExpr::Neg(r(x)?),
            QuickExpr::Not(x) => QuickExpr::Not(r(x)?),
            QuickExpr::Leaves(op, a, b) => QuickExpr::Leaves(*op, *a, *b),
            QuickExpr::Bin(op, a, b) => {
                let (a, b) = (r(a)?, r(b)?);
                match (op, Leaf::of(&a), Leaf::of(&b)) {
                    (BinOp::And | BinOp::Or, _, _) => QuickExpr::Bin(*op, a, b),
                    (_, Some(x), Some(y)) => QuickExpr::Leaves(*op, x, y),
                    _ => QuickExpr::Bin(*op, a, b),
                }
            }
        })
    }

    /// Its value with operands `ops`, where the answer is sure.
    #[cfg(test)]
    fn eval(&self, ops: &[Value]) -> Option<Value> {
        struct Ops<'a>(&'a [Value]);
        impl Operands for Ops<'_> {
            fn hole(&self, k: u32) -> Option<QuickValue> {
                self.0.get(k as usize).and_then(QuickValue::of)
            }
            fn slot(&self, _: u32, _: u32) -> Option<QuickValue> {
                None
            }
        }
        self.eval_by(&Ops(ops))
    }

    /// Its value where the answer is sure, operands read from `ops`
    /// (`None`: not an integer or boolean).
    #[inline(always)]
    pub(super) fn eval_by(&self, ops: &impl Operands) -> Option<Value> {
        // Two leaves (the common case) without a call.
        let v = match self {
            QuickExpr::Leaves(op, a, b) => bin(*op, a.value(ops)?, b.value(ops)?),
            q => q.value(ops),
        };
        Some(v?.value())
    }

    /// The value of a leaf (a slot or a literal) without a call; `None`
    /// for anything else, or a slot without a quick value.
    #[inline(always)]
    fn leaf(&self, ops: &impl Operands) -> Option<QuickValue> {
        match self {
            QuickExpr::Slot(up, ix) => ops.slot(*up, *ix),
            QuickExpr::Int(i) => Some(QuickValue::Int(*i)),
            QuickExpr::Bool(b) => Some(QuickValue::Bool(*b)),
            _ => self.value(ops),
        }
    }

    fn value(&self, ops: &impl Operands) -> Option<QuickValue> {
        match self {
            QuickExpr::Leaves(op, a, b) => bin(*op, a.value(ops)?, b.value(ops)?),
            QuickExpr::Hole(k) => ops.hole(*k),
            QuickExpr::Slot(up, ix) => ops.slot(*up, *ix),
            QuickExpr::Int(i) => Some(QuickValue::Int(*i)),
            QuickExpr::Bool(b) => Some(QuickValue::Bool(*b)),
            QuickExpr::Neg(x) => unary(UnOp::Neg, x.leaf(ops)?),
            QuickExpr::Not(x) => unary(UnOp::Not, x.leaf(ops)?),
            QuickExpr::Bin(op @ (BinOp::And | BinOp::Or), a, b) => logic(*op, a.leaf(ops)?, || b.leaf(ops)),
            QuickExpr::Bin(op, a, b) => bin(*op, a.leaf(ops)?, b.leaf(ops)?),
        }
    }
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
            Value::Lit(Lit::Int(7)),
            Value::Lit(Lit::Int(-3)),
            Value::Lit(Lit::Int(0)),
            Value::Lit(Lit::Int(i64::MAX)),
            Value::Lit(Lit::Int(i64::MIN)),
            Value::Lit(Lit::Bool(true)),
            Value::Lit(Lit::Bool(false)),
            Value::Lit(Lit::Float(2.5)),
        ];
        let mut answered = 0;
        for text in exprs {
            let e = parse(text);
            let q = QuickExpr::of(&e).unwrap_or_else(|| panic!("{text} is quick"));
            for a in &vals {
                for b in &vals {
                    for c in &vals {
                        let ops = [a.clone(), b.clone(), c.clone()];
                        let atoms: Vec<Atom> = ops
                            .iter()
                            .map(|v| match v {
                                Value::Lit(l) => l.to_atom(),
                                _ => Atom::Int(0),
                            })
                            .collect();
                        let full = eval_with(&e, &|v| atoms.get(super::super::super::node::hole_index(v)?).cloned());
                        if let Some(Value::Lit(got)) = q.eval(&ops) {
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
            assert!(QuickExpr::of(&parse(text)).is_none(), "{text}");
        }
    }
}
