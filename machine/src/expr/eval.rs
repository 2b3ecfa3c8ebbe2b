//! Evaluation of expressions whose variables have been substituted
//! (LANGUAGE.md §6): the evaluator proper, walking an [`Expr`] and handing
//! each operator to the module that implements it (`arith`, `tuple`,
//! `builtins`, `matrix`), with [`EvalError`], [`eval`] and [`eval_with`].
//!
//! What is left as a variable ([`Atom::Var`]) is symbolic. An operation needs
//! concrete operands only where it inspects them: building a tuple or record
//! of symbolic values, reading a concrete element of a tuple, or `concat` of
//! concrete tuples with symbolic elements all succeed, while `x+1` with a
//! symbolic `x` is [`EvalError::Stuck`] on `x`. A tuple may end in (or hold) a
//! splice `!t` of a symbolic tuple `t`: its elements before the splice can be
//! read, anything at or past it is stuck on `t`.
//!
//! Chains of binary and postfix operators are evaluated by loops, so long
//! left-nested chains do not deepen the recursion.

use std::sync::Arc;

use crate::error::ErrorKind;
use crate::expr::arith::{binary, unary, want_bool};
use crate::expr::builtins::{call_with, ArgV};
use crate::expr::print::print_value;
use crate::expr::stuck::{deep, settle, stuck_in, top};
use crate::expr::tuple::{field, index, slice};
use crate::expr::{BinOp, Expr, ExprKind};
use crate::span::Span;
use crate::term::{Arg, Atom, VarId};

pub use crate::expr::arith::values_equal;

/// Why an expression has no value (yet).
#[derive(Clone, Debug, PartialEq)]
pub enum EvalError {
    /// It needs the value of this symbolic variable.
    Stuck(VarId),
    /// A runtime error.
    Fail {
        /// The kind of error.
        kind: ErrorKind,
        /// A sentence naming the values involved.
        message: String,
        /// The sub-expression that failed.
        span: Span,
    },
}

/// The result of evaluating an expression or one of its parts.
pub(super) type EResult<T> = Result<T, EvalError>;

/// Longest printed value quoted in an error message.
const MAX_SHOWN: usize = 80;

/// A runtime error of `kind` at `span`.
pub(super) fn fail<T>(kind: ErrorKind, message: impl Into<String>, span: Span) -> EResult<T> {
    Err(EvalError::Fail {
        kind,
        message: message.into(),
        span,
    })
}

/// A value as quoted in an error message (shortened if long).
pub(super) fn show(a: &Atom) -> String {
    let s = print_value(a, &|v| format!("<var {}>", v.0));
    if s.chars().count() <= MAX_SHOWN {
        s
    } else {
        let short: String = s.chars().take(MAX_SHOWN).collect();
        format!("{short}...")
    }
}

/// A value and its kind, as quoted in an error message.
pub(super) fn show_kind(a: &Atom) -> String {
    format!("{} ({})", show(a), a.kind_name())
}

/// What a variable leaf stands for, if anything: see [`eval_with`].
type Leaf<'a> = &'a dyn Fn(VarId) -> Option<Atom>;

/// Evaluates `e`.
pub fn eval(e: &Expr) -> Result<Atom, EvalError> {
    eval_in(e, &|_| None)
}

/// Evaluates `e` as if each leaf `Var(v)` for which `leaf(v)` is `Some(a)`
/// held `a` instead, asking `leaf` only for the leaves evaluation reaches
/// (not those `&&` and `||` skip). An expression `a` is evaluated on its
/// own, as [`eval`] does (its leaves are not resolved through `leaf`). The
/// graph machine evaluates its expressions in place this way, with
/// placeholders standing for the nodes holding the values.
pub fn eval_with(e: &Expr, leaf: &dyn Fn(VarId) -> Option<Atom>) -> Result<Atom, EvalError> {
    eval_in(e, leaf)
}

fn eval_in(e: &Expr, leaf: Leaf<'_>) -> EResult<Atom> {
    match &e.kind {
        ExprKind::Val(Atom::Expr(inner)) => eval(inner),
        ExprKind::Val(Atom::Var(v)) => match leaf(*v) {
            Some(a) => {
                if let Atom::Expr(inner) = &a {
                    return eval(inner);
                }
                Ok(a)
            }
            None => Ok(Atom::Var(*v)),
        },
        ExprKind::Val(a) => Ok(a.clone()),
        ExprKind::Name(_) => fail(ErrorKind::Type, "unresolved name", e.span),
        ExprKind::Tuple(xs) => {
            let elems = settle(xs.iter().map(|x| eval_in(x, leaf)).collect(), |_| None)?;
            Ok(Atom::Tuple(elems.into_iter().map(Arg::Atom).collect()))
        }
        ExprKind::Record(fs) => {
            let values = settle(fs.iter().map(|(_, x)| eval_in(x, leaf)).collect(), |_| None)?;
            let mut fields: Vec<(Arc<str>, Atom)> = Vec::with_capacity(fs.len());
            for ((f, _), v) in fs.iter().zip(values) {
                if fields.iter().any(|(g, _)| g == f) {
                    return fail(ErrorKind::Type, format!("duplicate field `{f}` in record"), e.span);
                }
                fields.push((f.clone(), v));
            }
            Ok(Atom::Record(fields))
        }
        ExprKind::Unary(op, x) => {
            let v = eval_in(x, leaf)?;
            unary(*op, v, e.span)
        }
        ExprKind::Binary(..) => eval_binary_chain(e, leaf),
        ExprKind::Index(..) | ExprKind::Field(..) | ExprKind::Method(..) => eval_postfix_chain(e, leaf),
        ExprKind::Range(..) => fail(
            ErrorKind::Type,
            "a range `i..j` is only allowed as an index or a function argument",
            e.span,
        ),
        ExprKind::Call(name, xs) => {
            let args = xs.iter().map(|x| eval_arg(x, leaf)).collect();
            call_with(name, args, e.span)
        }
    }
}

// ---------------------------------------------------------------------------
// Binary operators

/// Evaluates a left-nested chain of binary operators iteratively.
fn eval_binary_chain(e: &Expr, leaf: Leaf<'_>) -> EResult<Atom> {
    // A single operator (the common case) needs no spine to allocate.
    if let ExprKind::Binary(op, l, r) = &e.kind {
        if !matches!(l.kind, ExprKind::Binary(..)) {
            let acc = eval_in(l, leaf);
            return binary_step(*op, acc, r, e.span, leaf);
        }
    }
    let mut spine: Vec<(BinOp, &Expr, Span)> = Vec::new();
    let mut cur = e;
    while let ExprKind::Binary(op, l, r) = &cur.kind {
        spine.push((*op, r, cur.span));
        cur = l;
    }
    let mut acc = eval_in(cur, leaf);
    for (op, r, span) in spine.into_iter().rev() {
        acc = binary_step(op, acc, r, span, leaf);
    }
    acc
}

/// `acc op r`, evaluating `r` unless `&&` or `||` short-circuits. The
/// left operand may have failed: the right one is still evaluated, since
/// the operator is stuck if it is (LANGUAGE.md §6.5).
fn binary_step(op: BinOp, acc: EResult<Atom>, r: &Expr, span: Span, leaf: Leaf<'_>) -> EResult<Atom> {
    match (&acc, op) {
        (Err(EvalError::Stuck(v)), _) | (Ok(Atom::Var(v)), BinOp::And | BinOp::Or) => return Err(EvalError::Stuck(*v)),
        (Ok(Atom::Bool(l)), BinOp::And | BinOp::Or) if *l == (op == BinOp::Or) => return Ok(Atom::Bool(*l)),
        _ => {}
    }
    let rv = eval_in(r, leaf);
    let need: fn(&EResult<Atom>) -> Option<VarId> = match op {
        BinOp::Eq | BinOp::Ne => |x| x.as_ref().ok().and_then(deep),
        _ => top,
    };
    if let Some(v) = stuck_in([&rv]).or_else(|| need(&acc)).or_else(|| need(&rv)) {
        return Err(EvalError::Stuck(v));
    }
    let (a, b) = (acc?, rv);
    match op {
        BinOp::And | BinOp::Or => {
            want_bool(&a, op, span)?;
            Ok(Atom::Bool(want_bool(&b?, op, span)?))
        }
        _ => binary(op, &a, &b?, span),
    }
}

// ---------------------------------------------------------------------------
// Postfix operators

enum Post<'a> {
    Index(&'a Expr),
    Field(&'a Arc<str>),
    Method(&'a Arc<str>, &'a [Expr]),
}

/// Evaluates a chain of postfix operators iteratively.
fn eval_postfix_chain(e: &Expr, leaf: Leaf<'_>) -> EResult<Atom> {
    let mut chain: Vec<(Post<'_>, Span)> = Vec::new();
    let mut cur = e;
    loop {
        match &cur.kind {
            ExprKind::Index(b, i) => {
                chain.push((Post::Index(i), cur.span));
                cur = b;
            }
            ExprKind::Field(b, f) => {
                chain.push((Post::Field(f), cur.span));
                cur = b;
            }
            ExprKind::Method(b, f, xs) => {
                chain.push((Post::Method(f, xs), cur.span));
                cur = b;
            }
            _ => break,
        }
    }
    // The value so far may have failed: the operands of the operators after
    // it are still evaluated, since an operator is stuck if one of them is.
    let mut acc = eval_in(cur, leaf);
    for (post, span) in chain.into_iter().rev() {
        if let Err(EvalError::Stuck(v)) = acc {
            return Err(EvalError::Stuck(v));
        }
        acc = match post {
            Post::Index(i) => match &i.kind {
                ExprKind::Range(lo, hi) => {
                    let ops = vec![acc, eval_in(lo, leaf), eval_in(hi, leaf)];
                    settle(ops, |rs| rs.iter().find_map(top)).and_then(|v| slice(&v[0], &v[1], &v[2], span))
                }
                _ => {
                    let ops = vec![acc, eval_in(i, leaf)];
                    settle(ops, |rs| rs.iter().find_map(top)).and_then(|v| index(&v[0], &v[1], span))
                }
            },
            Post::Field(f) => acc.and_then(|a| field(&a, f, span)),
            Post::Method(f, xs) => {
                let mut args = Vec::with_capacity(xs.len() + 1);
                args.push(acc.map(ArgV::Val));
                args.extend(xs.iter().map(|x| eval_arg(x, leaf)));
                call_with(f, args, span)
            }
        };
    }
    acc
}

// ---------------------------------------------------------------------------
// Function arguments

/// An argument of a function; a range needs both its bounds.
fn eval_arg(x: &Expr, leaf: Leaf<'_>) -> EResult<ArgV> {
    match &x.kind {
        ExprKind::Range(a, b) => {
            let (lo, hi) = (eval_in(a, leaf), eval_in(b, leaf));
            if let Some(v) = stuck_in([&lo, &hi]).or_else(|| top(&lo)).or_else(|| top(&hi)) {
                return Err(EvalError::Stuck(v));
            }
            Ok(ArgV::Range(lo?, hi?))
        }
        _ => Ok(ArgV::Val(eval_in(x, leaf)?)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::parse::dismantle;
    use crate::expr::print::print_expr;
    use crate::expr::testing::*;
    use crate::span::FileId;

    #[test]
    fn logic() {
        check("true&&false", "false");
        check("true||false", "true");
        check("false&&(1/0==1)", "false");
        check("true||(1/0==1)", "true");
        check("false&&5", "false");
        check("true||5", "true");
        check("!true||!false", "true");
        check("1<2&&2<3", "true");
        check_err("true&&5", ErrorKind::Type, "5 (integer)");
        check_err("1&&true", ErrorKind::Type, "needs booleans");
        check_err("false||'x'", ErrorKind::Type, "'x' (string)");
        check_stuck("a&&(1/0==1)", &[], 0);
        check_stuck("true&&b", &[], 1);
        check_stuck("false||c", &[], 2);
        check_stuck("!d", &[], 3);
    }

    #[test]
    fn names_ranges_and_embedded_expressions() {
        let e = parse("x+1");
        match eval(&e) {
            Err(err) => assert_eq!(
                err,
                EvalError::Fail {
                    kind: ErrorKind::Type,
                    message: "unresolved name".into(),
                    span: Span::new(FileId(0), 0, 1),
                }
            ),
            Ok(v) => panic!("{v:?}"),
        }
        // A range outside an index or argument (only constructible by hand).
        let r = Expr {
            kind: ExprKind::Range(Box::new(parse("1")), Box::new(parse("2"))),
            span: Span::default(),
        };
        assert!(matches!(eval(&r), Err(EvalError::Fail { kind: ErrorKind::Type, .. })));
        // An embedded expression atom as a tuple element is evaluated.
        let inner = Atom::Expr(Box::new(parse("1+2")));
        let t = Expr {
            kind: ExprKind::Tuple(vec![
                Expr {
                    kind: ExprKind::Val(inner.clone()),
                    span: Span::default(),
                },
                parse("4"),
            ]),
            span: Span::default(),
        };
        assert_eq!(print_value(&eval(&t).unwrap_or(Atom::Int(0)), &var_name), "[3, 4]");
        check_env("e*2", &[("e", inner)], "6");
        // Failures point at the failing sub-expression.
        let e = parse("1 + [1, 2][5]");
        match eval(&e) {
            Err(EvalError::Fail { span, .. }) => assert_eq!(span, Span::new(FileId(0), 4, 13)),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn deep_nesting_evaluates_and_prints() {
        let n = 250;
        let text = format!("{}1{}", "(1+".repeat(n), ")".repeat(n));
        let nested = format!("{}1{}", "[".repeat(n), "]".repeat(n));
        let worker = std::thread::Builder::new().stack_size(4 << 20).spawn(move || {
            let sum = run(&text).map(|v| print_value(&v, &var_name));
            let e = parse(&text);
            let printed = print_expr(&e, &var_name);
            let t = run(&nested).map(|v| print_value(&v, &var_name));
            (sum, printed == text[1..text.len() - 1], t.map(|s| s.len()))
        });
        match worker.map(|h| h.join()) {
            Ok(Ok((sum, same, t))) => {
                assert_eq!(sum, Ok("251".to_string()));
                assert!(same);
                assert_eq!(t, Ok(2 * n + 1));
            }
            _ => panic!("deep evaluation failed"),
        }
    }

    #[test]
    fn long_chains_evaluate() {
        let text = vec!["1"; 100_000].join("+");
        check(&text, "100000");
        let text = vec!["true"; 100_000].join("&&");
        check(&text, "true");
        let text = format!("[1, 2, 3]{}", "[0..2]".repeat(100_000));
        check(&text, "[1, 2, 3]");
        check_err("[[1]][0][0][0]", ErrorKind::Type, "cannot index 1");
        check("{f: {f: 7}}.f.f", "7");
    }

    #[test]
    fn printed_then_evaluated() {
        // Printing an expression and re-parsing it evaluates to the same value.
        for text in [
            "1+2*3-4/2%3",
            "-(1-2)*3",
            "[1, 2.5, 'a\\'b', {x: [true, never]}]",
            "map().insert('a', [1]).insert(2, 'b').lookup(2)",
            "matrix([[1, 2], [3, 4]])*matrix(2, 2, 9)",
            "delete(insert([1, 2, 3], 1, 9), 0..1)",
            "9223372036854775807-(-(-9223372036854775807))",
        ] {
            let v1 = run(text);
            let printed = print_expr(&parse(text), &var_name);
            let v2 = run(&printed);
            match (v1, v2) {
                (Ok(a), Ok(b)) => assert!(values_equal(&a, &b), "{text} vs {printed}"),
                other => panic!("{text}: {other:?}"),
            }
        }
    }

    /// Evaluates `text` with placeholders: the names `h0`, `h1`, .. become
    /// variables `VarId(1000 + k)` resolved to `holes[k]` through
    /// [`eval_with`]. Also evaluates `text` with the values substituted, as
    /// the reference does, and checks that both agree (error kinds and
    /// stuck variables included). Returns the result and the placeholders
    /// asked for, in order.
    fn run_holes(text: &str, holes: &[Atom]) -> (Result<Atom, EvalError>, Vec<usize>) {
        let names: Vec<String> = (0..holes.len()).map(|k| format!("h{k}")).collect();
        let as_vars: Vec<(&str, Atom)> = names
            .iter()
            .enumerate()
            .map(|(k, n)| (n.as_str(), Atom::Var(VarId(1000 + k as u32))))
            .collect();
        let as_values: Vec<(&str, Atom)> = names.iter().map(String::as_str).zip(holes.iter().cloned()).collect();
        let mut e = parse(text);
        resolve(&mut e, &as_vars);
        let asked = std::cell::RefCell::new(Vec::new());
        let got = eval_with(&e, &|v| {
            let k = v.0.checked_sub(1000)? as usize;
            asked.borrow_mut().push(k);
            holes.get(k).cloned()
        });
        dismantle(e);
        let want = run_env(text, &as_values);
        let same = match (&got, &want) {
            (Ok(a), Ok(b)) => values_equal(a, b),
            (Err(EvalError::Stuck(a)), Err(EvalError::Stuck(b))) => a == b,
            (Err(EvalError::Fail { kind: a, message: m, .. }), Err(EvalError::Fail { kind: b, message: n, .. })) => a == b && m == n,
            _ => false,
        };
        assert!(same, "{text}: with placeholders {got:?}, substituted {want:?}");
        (got, asked.into_inner())
    }

    #[test]
    fn placeholders_are_resolved_by_index_when_reached() {
        let sym = |k: u32| Atom::Var(VarId(k));
        // Short-circuits skip the right operand without asking for it.
        let (r, asked) = run_holes("false && h1", &[Atom::Int(7), sym(3)]);
        assert!(matches!(r, Ok(Atom::Bool(false))));
        assert!(asked.is_empty(), "{asked:?}");
        let (r, asked) = run_holes("h0 || h1", &[Atom::Bool(true), sym(3)]);
        assert!(matches!(r, Ok(Atom::Bool(true))));
        assert_eq!(asked, [0]);
        let (r, asked) = run_holes("h0 || h1", &[Atom::Bool(false), Atom::Bool(true)]);
        assert!(matches!(r, Ok(Atom::Bool(true))));
        assert_eq!(asked, [0, 1]);
        // The index, not the reading order, picks the value.
        let (r, asked) = run_holes("h1 && h0", &[sym(3), Atom::Bool(false)]);
        assert!(matches!(r, Ok(Atom::Bool(false))));
        assert_eq!(asked, [1]);
        let (r, _) = run_holes("h1 - h0", &[Atom::Int(1), Atom::Int(10)]);
        assert!(matches!(r, Ok(Atom::Int(9))));
        // A placeholder used twice is asked for twice.
        let (r, asked) = run_holes("h0 * h0 + [h1][0]", &[Atom::Int(3), Atom::Int(4)]);
        assert!(matches!(r, Ok(Atom::Int(13))));
        assert_eq!(asked, [0, 0, 1]);
        // An expression standing for a placeholder is evaluated.
        let inner = Atom::Expr(Box::new(parse("2+3")));
        let (r, _) = run_holes("h0 * 2", &[inner]);
        assert!(matches!(r, Ok(Atom::Int(10))));
    }

    #[test]
    fn placeholders_keep_error_and_stuck_decisions() {
        let sym = |k: u32| Atom::Var(VarId(k));
        // A symbolic operand makes the operator stuck, whatever the other
        // one does (failing included).
        let (r, _) = run_holes("h0 + 1/0", &[sym(3)]);
        assert!(matches!(r, Err(EvalError::Stuck(VarId(3)))), "{r:?}");
        let (r, _) = run_holes("1/h1 + h0", &[sym(3), Atom::Int(0)]);
        assert!(matches!(r, Err(EvalError::Stuck(VarId(3)))), "{r:?}");
        let (r, _) = run_holes("1/h1 + 2", &[sym(3), Atom::Int(0)]);
        assert!(
            matches!(
                r,
                Err(EvalError::Fail {
                    kind: ErrorKind::DivisionByZero,
                    ..
                })
            ),
            "{r:?}"
        );
        // Two evaluated operands, one symbolic and one of the wrong type:
        // stuck, whichever side the symbolic one is on.
        let (r, _) = run_holes("h0 + h1", &[sym(3), Atom::Bool(true)]);
        assert!(matches!(r, Err(EvalError::Stuck(VarId(3)))), "{r:?}");
        let (r, _) = run_holes("h1 * h0", &[sym(4), Atom::Str(Arc::from("s"))]);
        assert!(matches!(r, Err(EvalError::Stuck(VarId(4)))), "{r:?}");
        // Comparisons inspect the left operand fully first.
        let (r, _) = run_holes("h0 < h1", &[Atom::Bool(true), sym(5)]);
        assert!(r.is_err(), "{r:?}");
        let (r, _) = run_holes("h0 == [1, h1]", &[sym(6), Atom::Int(1)]);
        assert!(matches!(r, Err(EvalError::Stuck(VarId(6)))), "{r:?}");
        let (r, _) = run_holes("h0 && h1", &[sym(3), Atom::Int(1)]);
        assert!(matches!(r, Err(EvalError::Stuck(VarId(3)))), "{r:?}");
        let (r, _) = run_holes("h0.f", &[sym(2)]);
        assert!(r.is_err(), "{r:?}");
        let (r, _) = run_holes("len(h0) + h1[1..2]", &[Atom::Int(1), sym(2)]);
        assert!(r.is_err(), "{r:?}");
    }
}
