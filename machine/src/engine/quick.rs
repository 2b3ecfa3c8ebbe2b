//! The common expressions of core-time loops (integer arithmetic and
//! comparisons, boolean connectives) evaluated on inline values, without
//! building atoms. Anything else (another type, a symbolic operand, an
//! overflow, a division by zero, an expression nested deeper than
//! [`MAX_DEPTH`]) is answered `None` and left to the evaluator
//! (`crate::expr::eval`), which words every error: so the value is the
//! evaluator's whenever this gives one.

use super::store::{Store, Val};
use crate::expr::scalar::{binary, logic, unary, Scalar};
use crate::expr::{BinOp, Expr, ExprKind};
use crate::term::{Atom, VarId};

/// Deeper expressions go to the evaluator (whose walk does not recurse
/// on long operator chains).
const MAX_DEPTH: u32 = 8;

/// The value of `e` whose variables `vars` stand for `holes`, when it is
/// an integer or a boolean computed from integers and booleans alone.
pub(super) fn quick(st: &Store, e: &Expr, vars: &[VarId], holes: &[Val]) -> Option<Val> {
    Some(match eval(st, e, vars, holes, 0)? {
        Scalar::Int(i) => Val::int(i),
        Scalar::Bool(b) => Val::Bool(b),
    })
}

fn eval(st: &Store, e: &Expr, vars: &[VarId], holes: &[Val], depth: u32) -> Option<Scalar> {
    if depth > MAX_DEPTH {
        return None;
    }
    match &e.kind {
        ExprKind::Val(Atom::Int(i)) => Some(Scalar::Int(*i)),
        ExprKind::Val(Atom::Bool(b)) => Some(Scalar::Bool(*b)),
        ExprKind::Val(Atom::Var(v)) => {
            let i = vars.iter().position(|w| w == v)?;
            match st.deref(*holes.get(i)?) {
                Val::Int(i) => Some(Scalar::Int(i.get())),
                Val::Bool(b) => Some(Scalar::Bool(b)),
                _ => None,
            }
        }
        ExprKind::Unary(op, x) => unary(*op, eval(st, x, vars, holes, depth + 1)?),
        ExprKind::Binary(op @ (BinOp::And | BinOp::Or), l, r) => {
            logic(*op, eval(st, l, vars, holes, depth + 1)?, || eval(st, r, vars, holes, depth + 1))
        }
        ExprKind::Binary(op, l, r) => binary(*op, eval(st, l, vars, holes, depth + 1)?, eval(st, r, vars, holes, depth + 1)?),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::eval::eval_with;

    /// Every expression of a grid over the operators and small operands
    /// gets the evaluator's value or `None`.
    #[test]
    fn agrees_with_the_evaluator() {
        let st = Store::default();
        let ops = ["+", "-", "*", "/", "%", "<", "<=", ">", ">=", "==", "!=", "&&", "||"];
        let leaves = ["0", "1", "-3", "7", "true", "false", "9223372036854775807", "x", "y"];
        let holes = [Val::int(5), Val::Bool(true)];
        let mut answered = 0;
        for op in ops {
            for l in leaves {
                for r in leaves {
                    let src = format!("({l}) {op} ({r})");
                    let Ok(mut e) = crate::expr::parse::parse_expr(&src, crate::span::FileId(0), 0) else {
                        continue;
                    };
                    resolve(&mut e);
                    let want = eval_with(&e, &|v| Some(if v.0 == 0 { Atom::Int(5) } else { Atom::Bool(true) }));
                    if let Some(got) = quick(&st, &e, &[VarId(0), VarId(1)], &holes) {
                        let got = match got {
                            Val::Int(i) => Atom::Int(i.get()),
                            Val::Bool(b) => Atom::Bool(b),
                            _ => unreachable!("quick gives integers and booleans"),
                        };
                        assert_eq!(format!("{want:?}"), format!("Ok({got:?})"), "{src}");
                        answered += 1;
                    }
                }
            }
        }
        assert!(answered > 400, "only {answered} answered");
    }

    /// Names `x` and `y` as the variables 0 and 1.
    fn resolve(e: &mut Expr) {
        let mut stack = vec![e];
        while let Some(e) = stack.pop() {
            if let ExprKind::Name(n) = &e.kind {
                let v = if &**n == "x" { 0 } else { 1 };
                e.kind = ExprKind::Val(Atom::Var(VarId(v)));
                continue;
            }
            match &mut e.kind {
                ExprKind::Unary(_, x) => stack.push(x),
                ExprKind::Binary(_, l, r) => {
                    stack.push(l);
                    stack.push(r);
                }
                _ => {}
            }
        }
    }
}
