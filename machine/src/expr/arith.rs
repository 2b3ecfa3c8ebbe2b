//! The operators on values (LANGUAGE.md §6.2): unary `-` and `!`, checked
//! integer arithmetic, float arithmetic (promoting mixed operands, rejecting
//! results that are not finite), string concatenation, the operand checks of
//! `&&` and `||`, structural equality and the ordering of numbers and
//! strings.

use std::cmp::Ordering;
use std::sync::Arc;

use crate::error::ErrorKind;
use crate::expr::eval::{fail, show, show_kind, EResult, EvalError};
use crate::expr::matrix::matmul;
use crate::expr::stuck::deep;
use crate::expr::tuple::flatten;
use crate::expr::{BinOp, UnOp};
use crate::span::Span;
use crate::term::{Arg, Atom};

/// A unary operator on an evaluated operand.
pub(super) fn unary(op: UnOp, v: Atom, span: Span) -> EResult<Atom> {
    match (op, &v) {
        (_, Atom::Var(x)) => Err(EvalError::Stuck(*x)),
        (UnOp::Neg, Atom::Int(n)) => match n.checked_neg() {
            Some(m) => Ok(Atom::Int(m)),
            None => fail(ErrorKind::Overflow, format!("integer overflow in -({n})"), span),
        },
        (UnOp::Neg, Atom::Float(f)) => Ok(Atom::Float(-f)),
        (UnOp::Neg, _) => fail(ErrorKind::Type, format!("unary `-` needs a number, not {}", show_kind(&v)), span),
        (UnOp::Not, Atom::Bool(b)) => Ok(Atom::Bool(!b)),
        (UnOp::Not, _) => fail(ErrorKind::Type, format!("`!` needs a boolean, not {}", show_kind(&v)), span),
    }
}

/// An operand of `&&` or `||`, which must be a boolean.
pub(super) fn want_bool(a: &Atom, op: BinOp, span: Span) -> EResult<bool> {
    match a {
        Atom::Bool(b) => Ok(*b),
        Atom::Var(v) => Err(EvalError::Stuck(*v)),
        _ => fail(
            ErrorKind::Type,
            format!("`{}` needs booleans, not {}", op.symbol(), show_kind(a)),
            span,
        ),
    }
}

/// A non-`&&`/`||` binary operator on two evaluated operands.
pub(super) fn binary(op: BinOp, a: &Atom, b: &Atom, span: Span) -> EResult<Atom> {
    match op {
        BinOp::Eq | BinOp::Ne => {
            let eq = checked_equal(a, b, span)?;
            return Ok(Atom::Bool(eq == (op == BinOp::Eq)));
        }
        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
            let ord = compare(a, b, op.symbol(), span)?;
            let r = match op {
                BinOp::Lt => ord == Ordering::Less,
                BinOp::Le => ord != Ordering::Greater,
                BinOp::Gt => ord == Ordering::Greater,
                _ => ord != Ordering::Less,
            };
            return Ok(Atom::Bool(r));
        }
        _ => {}
    }
    match (a, b) {
        (Atom::Var(v), _) | (_, Atom::Var(v)) => Err(EvalError::Stuck(*v)),
        (Atom::Int(x), Atom::Int(y)) => int_arith(op, *x, *y, span),
        (Atom::Int(_) | Atom::Float(_), Atom::Int(_) | Atom::Float(_)) => {
            let (x, y) = (as_f64(a), as_f64(b));
            let r = match op {
                BinOp::Add => x + y,
                BinOp::Sub => x - y,
                BinOp::Mul => x * y,
                BinOp::Div => x / y,
                _ => x % y,
            };
            finite(r, &format!("{} {} {}", show(a), op.symbol(), show(b)), span)
        }
        (Atom::Str(x), Atom::Str(y)) if op == BinOp::Add => Ok(Atom::Str(Arc::from(format!("{x}{y}")))),
        (Atom::Matrix(x), Atom::Matrix(y)) if op == BinOp::Mul => matmul(x, y, span),
        _ => fail(
            ErrorKind::Type,
            format!("cannot apply `{}` to {} and {}", op.symbol(), show_kind(a), show_kind(b)),
            span,
        ),
    }
}

fn as_f64(a: &Atom) -> f64 {
    match a {
        Atom::Int(n) => *n as f64,
        Atom::Float(f) => *f,
        _ => f64::NAN,
    }
}

fn finite(r: f64, what: &str, span: Span) -> EResult<Atom> {
    if r.is_finite() {
        Ok(Atom::Float(r))
    } else {
        fail(ErrorKind::NotFinite, format!("{what} is not a finite number"), span)
    }
}

fn int_arith(op: BinOp, x: i64, y: i64, span: Span) -> EResult<Atom> {
    if matches!(op, BinOp::Div | BinOp::Rem) && y == 0 {
        return fail(
            ErrorKind::DivisionByZero,
            format!("division by zero in {x} {} {y}", op.symbol()),
            span,
        );
    }
    let r = match op {
        BinOp::Add => x.checked_add(y),
        BinOp::Sub => x.checked_sub(y),
        BinOp::Mul => x.checked_mul(y),
        BinOp::Div => x.checked_div(y),
        // The remainder is always representable: `i64::MIN % -1` is 0 (only
        // the quotient, 2^63, overflows).
        _ => Some(x.wrapping_rem(y)),
    };
    match r {
        Some(n) => Ok(Atom::Int(n)),
        None => fail(ErrorKind::Overflow, format!("integer overflow in {x} {} {y}", op.symbol()), span),
    }
}

// ---------------------------------------------------------------------------
// Equality and ordering

/// Checks that `a` is fully concrete and comparable: the first symbolic
/// variable makes it stuck, a function makes it a type error.
pub(super) fn ensure_comparable(a: &Atom, span: Span) -> EResult<()> {
    match a {
        Atom::Var(v) => Err(EvalError::Stuck(*v)),
        Atom::Int(_) | Atom::Float(_) | Atom::Bool(_) | Atom::Str(_) | Atom::Stage(_) | Atom::Matrix(_) => Ok(()),
        Atom::Tuple(args) => {
            for arg in args {
                match arg {
                    Arg::Atom(x) | Arg::Splice(x) => ensure_comparable(x, span)?,
                }
            }
            Ok(())
        }
        Atom::Record(fs) => fs.iter().try_for_each(|(_, x)| ensure_comparable(x, span)),
        Atom::Map(es) => es.iter().try_for_each(|(k, v)| {
            ensure_comparable(k, span)?;
            ensure_comparable(v, span)
        }),
        Atom::Builtin(_) | Atom::Lambda(_) | Atom::Rec(_) | Atom::Expr(_) => {
            fail(ErrorKind::Type, format!("cannot compare {}", show_kind(a)), span)
        }
    }
}

fn checked_equal(a: &Atom, b: &Atom, span: Span) -> EResult<bool> {
    if let Some(v) = deep(a).or_else(|| deep(b)) {
        return Err(EvalError::Stuck(v));
    }
    ensure_comparable(a, span)?;
    ensure_comparable(b, span)?;
    Ok(values_equal(a, b))
}

/// Exact comparison of an integer with a float.
fn cmp_int_float(i: i64, f: f64) -> Option<Ordering> {
    let r = i as f64;
    match r.partial_cmp(&f)? {
        Ordering::Equal => {
            // `f` is integral and |f| <= 2^63: compare exactly.
            Some((i as i128).cmp(&(f as i128)))
        }
        o => Some(o),
    }
}

fn num_cmp(a: &Atom, b: &Atom) -> Option<Ordering> {
    match (a, b) {
        (Atom::Int(x), Atom::Int(y)) => Some(x.cmp(y)),
        (Atom::Int(x), Atom::Float(y)) => cmp_int_float(*x, *y),
        (Atom::Float(x), Atom::Int(y)) => cmp_int_float(*y, *x).map(Ordering::reverse),
        (Atom::Float(x), Atom::Float(y)) => x.partial_cmp(y),
        _ => None,
    }
}

/// Structural equality of two values: integers and floats compare by value
/// (`1 == 1.0`), tuples elementwise, records by field set, maps by entry set,
/// matrices by dimensions and entries. Variables are equal only to
/// themselves; functions and unevaluated expressions are never equal.
pub fn values_equal(a: &Atom, b: &Atom) -> bool {
    match (a, b) {
        (Atom::Var(x), Atom::Var(y)) => x == y,
        (Atom::Int(_) | Atom::Float(_), Atom::Int(_) | Atom::Float(_)) => num_cmp(a, b) == Some(Ordering::Equal),
        (Atom::Bool(x), Atom::Bool(y)) | (Atom::Stage(x), Atom::Stage(y)) => x == y,
        (Atom::Str(x), Atom::Str(y)) => x == y,
        (Atom::Matrix(x), Atom::Matrix(y)) => x == y,
        (Atom::Tuple(xs), Atom::Tuple(ys)) => {
            let (mut fx, mut fy) = (Vec::new(), Vec::new());
            flatten(xs, &mut fx);
            flatten(ys, &mut fy);
            fx.len() == fy.len()
                && fx.iter().zip(&fy).all(|p| match p {
                    (Arg::Atom(x), Arg::Atom(y)) | (Arg::Splice(x), Arg::Splice(y)) => values_equal(x, y),
                    _ => false,
                })
        }
        (Atom::Record(xs), Atom::Record(ys)) => {
            xs.len() == ys.len() && xs.iter().all(|(f, x)| ys.iter().any(|(g, y)| f == g && values_equal(x, y)))
        }
        (Atom::Map(xs), Atom::Map(ys)) => {
            xs.len() == ys.len()
                && xs
                    .iter()
                    .all(|(k, v)| ys.iter().any(|(k2, v2)| values_equal(k, k2) && values_equal(v, v2)))
        }
        _ => false,
    }
}

/// Orders two numbers or two strings.
pub(super) fn compare(a: &Atom, b: &Atom, what: &str, span: Span) -> EResult<Ordering> {
    match (a, b) {
        (Atom::Var(v), _) | (_, Atom::Var(v)) => Err(EvalError::Stuck(*v)),
        (Atom::Str(x), Atom::Str(y)) => Ok(x.cmp(y)),
        _ => match num_cmp(a, b) {
            Some(o) => Ok(o),
            None => fail(
                ErrorKind::Type,
                format!(
                    "`{what}` compares two numbers or two strings, not {} and {}",
                    show_kind(a),
                    show_kind(b)
                ),
                span,
            ),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::testing::*;
    use crate::term::VarId;

    #[test]
    fn arithmetic() {
        check("1+2*3", "7");
        check("(1+2)*3", "9");
        check("10-3-2", "5");
        check("7/2", "3");
        check("-7/2", "-3");
        check("7%3", "1");
        check("-7%3", "-1");
        check("7%-3", "1");
        check("1+2.5", "3.5");
        check("2.5*2", "5.0");
        check("1/2.0", "0.5");
        check("5.5%2", "1.5");
        check("-(3)", "-3");
        check("-(2.5)", "-2.5");
        check("--3", "3");
        check("'ab'+'cd'", "'abcd'");
        check("2e3+1", "2001.0");
        check("9223372036854775807", "9223372036854775807");
        check("-9223372036854775807-1", "-9223372036854775808");
    }

    #[test]
    fn arithmetic_errors() {
        check_err("9223372036854775807+1", ErrorKind::Overflow, "9223372036854775807 + 1");
        check_err("-9223372036854775807-2", ErrorKind::Overflow, "overflow");
        check_err("4611686018427387904*2", ErrorKind::Overflow, "overflow");
        check_err("-9223372036854775808/-1", ErrorKind::Overflow, "overflow");
        // The remainder of the one overflowing quotient is representable.
        check("-9223372036854775808%-1", "0");
        check("(-9223372036854775807-1) % -1", "0");
        check("(-9223372036854775807-1) % 1", "0");
        check("-7 % -1", "0");
        check_err("-(-9223372036854775808)", ErrorKind::Overflow, "overflow");
        check_err("1/0", ErrorKind::DivisionByZero, "1 / 0");
        check_err("1%0", ErrorKind::DivisionByZero, "division by zero");
        check_err("1.0/0", ErrorKind::NotFinite, "not a finite");
        check_err("0.0/0.0", ErrorKind::NotFinite, "not a finite");
        check_err("1e308*10", ErrorKind::NotFinite, "not a finite");
        check_err("1.0%0", ErrorKind::NotFinite, "not a finite");
        check_err("1+'a'", ErrorKind::Type, "'a' (string)");
        check_err("'a'-'b'", ErrorKind::Type, "cannot apply `-`");
        check_err("[1]+[2]", ErrorKind::Type, "[1] (tuple)");
        check_err("-'a'", ErrorKind::Type, "needs a number");
        check_err("-true", ErrorKind::Type, "needs a number");
        check_err("!1", ErrorKind::Type, "needs a boolean");
        check_err("!always", ErrorKind::Type, "needs a boolean");
        check_err("true+1", ErrorKind::Type, "true (boolean)");
    }

    #[test]
    fn comparisons() {
        check("1<2", "true");
        check("2<=2", "true");
        check("3>2.5", "true");
        check("2>=3", "false");
        check("'a'<'b'", "true");
        check("'b'<='a'", "false");
        check("1==1.0", "true");
        check("1.0==1", "true");
        check("1!=1.0", "false");
        check("9007199254740993==9007199254740992.0", "false");
        check("9007199254740993>9007199254740992.0", "true");
        check("9223372036854775807<9223372036854775808.0", "true");
        check("[1, [2, 'x']]==[1, [2, 'x']]", "true");
        check("[1, 2]==[1, 2, 3]", "false");
        check("[1, 2]==[1.0, 2]", "true");
        check("{a: 1, b: 2}=={b: 2, a: 1}", "true");
        check("{a: 1, b: 2}=={a: 1}", "false");
        check("{a: 1}=={b: 1}", "false");
        check("map().insert(1, 2).insert(3, 4)==map().insert(3, 4).insert(1, 2)", "true");
        check("map().insert(1, 2)==map().insert(1, 3)", "false");
        check("matrix([[1, 2]])==matrix([[1, 2]])", "true");
        check("matrix([[1, 2]])==matrix([[1], [2]])", "false");
        check("'a'==1", "false");
        check("true==true", "true");
        check("always==never", "false");
        check("always==true", "false");
        check("1<2==true", "true");
        check_err("1<'a'", ErrorKind::Type, "two numbers or two strings");
        check_err("[1]<[2]", ErrorKind::Type, "[1] (tuple)");
        check_err("true<false", ErrorKind::Type, "compares");
        check_err_env(
            "f==f",
            &[("f", Atom::Builtin(crate::term::Builtin::Exit))],
            ErrorKind::Type,
            "cannot compare",
        );
    }

    #[test]
    fn values_equal_is_structural() {
        assert!(values_equal(&Atom::Int(1), &Atom::Float(1.0)));
        assert!(!values_equal(&Atom::Int(1), &Atom::Float(1.5)));
        assert!(values_equal(&Atom::Var(VarId(1)), &Atom::Var(VarId(1))));
        assert!(!values_equal(&Atom::Var(VarId(1)), &Atom::Var(VarId(2))));
        assert!(!values_equal(
            &Atom::Builtin(crate::term::Builtin::If),
            &Atom::Builtin(crate::term::Builtin::If)
        ));
        assert!(values_equal(&splice_tuple(&[1], 3), &splice_tuple(&[1], 3)));
        assert!(!values_equal(&splice_tuple(&[1], 3), &splice_tuple(&[1], 4)));
    }
}
