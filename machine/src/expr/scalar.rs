//! Integers and booleans: the values the reducers' fast paths compute
//! without atoms, and the operators on them whose answer is sure to be
//! the evaluator's. Every `None` leaves the expression to the evaluator
//! (`eval.rs`), which words every error: another type, an overflow, a
//! division by zero.

use super::{BinOp, UnOp};

/// An integer or a boolean.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scalar {
    /// An integer.
    Int(i64),
    /// A boolean.
    Bool(bool),
}

/// `-x` or `!x`, where the answer is sure.
pub fn unary(op: UnOp, x: Scalar) -> Option<Scalar> {
    match (op, x) {
        (UnOp::Neg, Scalar::Int(i)) => Some(Scalar::Int(i.checked_neg()?)),
        (UnOp::Not, Scalar::Bool(b)) => Some(Scalar::Bool(!b)),
        _ => None,
    }
}

/// `&&` or `||` (`op`) on `l` and, only if `l` does not decide, the right
/// operand `r`, where the answer is sure.
pub fn logic(op: BinOp, l: Scalar, r: impl FnOnce() -> Option<Scalar>) -> Option<Scalar> {
    let Scalar::Bool(l) = l else { return None };
    if l == (op == BinOp::Or) {
        return Some(Scalar::Bool(l));
    }
    match r()? {
        Scalar::Bool(r) => Some(Scalar::Bool(r)),
        Scalar::Int(_) => None,
    }
}

/// A binary operator other than `&&` and `||`, where the answer is sure.
#[inline(always)]
pub fn binary(op: BinOp, l: Scalar, r: Scalar) -> Option<Scalar> {
    Some(match (l, r) {
        (Scalar::Int(x), Scalar::Int(y)) => match op {
            BinOp::Add => Scalar::Int(x.checked_add(y)?),
            BinOp::Sub => Scalar::Int(x.checked_sub(y)?),
            BinOp::Mul => Scalar::Int(x.checked_mul(y)?),
            // Zero divisors are the evaluator's to report.
            BinOp::Div if y != 0 => Scalar::Int(x.checked_div(y)?),
            BinOp::Rem if y != 0 => Scalar::Int(x.wrapping_rem(y)),
            BinOp::Lt => Scalar::Bool(x < y),
            BinOp::Le => Scalar::Bool(x <= y),
            BinOp::Gt => Scalar::Bool(x > y),
            BinOp::Ge => Scalar::Bool(x >= y),
            BinOp::Eq => Scalar::Bool(x == y),
            BinOp::Ne => Scalar::Bool(x != y),
            _ => return None,
        },
        (Scalar::Bool(x), Scalar::Bool(y)) => match op {
            BinOp::Eq => Scalar::Bool(x == y),
            BinOp::Ne => Scalar::Bool(x != y),
            _ => return None,
        },
        _ => return None,
    })
}
