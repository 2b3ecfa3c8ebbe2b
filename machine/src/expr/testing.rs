//! Helpers of the evaluator's unit tests: parsing an expression, binding
//! its names to values or to symbolic variables, evaluating it, and checking
//! the value, the error or the variable it is stuck on.

use crate::error::ErrorKind;
use crate::expr::eval::{eval, EvalError};
use crate::expr::parse::{dismantle, parse_expr};
use crate::expr::print::print_value;
use crate::expr::{Expr, ExprKind};
use crate::span::FileId;
use crate::term::{Arg, Atom, VarId};

pub(super) fn parse(text: &str) -> Expr {
    match parse_expr(text, FileId(0), 0) {
        Ok(e) => e,
        Err(d) => panic!("parse of {text:?} failed: {d:?}"),
    }
}

/// Replaces names `a`..`z` (single letters) by symbolic variables
/// `VarId(letter index)`, and names bound in `env` by their values.
pub(super) fn resolve(root: &mut Expr, env: &[(&str, Atom)]) {
    let mut stack: Vec<&mut Expr> = vec![root];
    while let Some(e) = stack.pop() {
        if let ExprKind::Name(n) = &e.kind {
            let v = match env.iter().find(|(m, _)| **m == **n) {
                Some((_, v)) => v.clone(),
                None => {
                    let b = n.as_bytes();
                    assert!(b.len() == 1, "test names are single letters or bound: {n}");
                    Atom::Var(VarId(u32::from(b[0] - b'a')))
                }
            };
            e.kind = ExprKind::Val(v);
            continue;
        }
        match &mut e.kind {
            ExprKind::Val(_) | ExprKind::Name(_) => {}
            ExprKind::Tuple(xs) | ExprKind::Call(_, xs) => stack.extend(xs.iter_mut()),
            ExprKind::Record(fs) => stack.extend(fs.iter_mut().map(|(_, x)| x)),
            ExprKind::Unary(_, x) | ExprKind::Field(x, _) => stack.push(x),
            ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) | ExprKind::Range(a, b) => {
                stack.push(a);
                stack.push(b);
            }
            ExprKind::Method(x, _, xs) => {
                stack.push(x);
                stack.extend(xs.iter_mut());
            }
        }
    }
}

pub(super) fn var_name(v: VarId) -> String {
    ((b'a' + v.0 as u8) as char).to_string()
}

pub(super) fn run_env(text: &str, env: &[(&str, Atom)]) -> Result<Atom, EvalError> {
    let mut e = parse(text);
    resolve(&mut e, env);
    let r = eval(&e);
    dismantle(e);
    r
}

pub(super) fn run(text: &str) -> Result<Atom, EvalError> {
    run_env(text, &[])
}

/// Evaluates `text` and compares the printed result with `expected`.
pub(super) fn check(text: &str, expected: &str) {
    match run(text) {
        Ok(v) => assert_eq!(print_value(&v, &var_name), expected, "evaluating {text:?}"),
        Err(e) => panic!("evaluating {text:?}: {e:?}"),
    }
}

pub(super) fn check_env(text: &str, env: &[(&str, Atom)], expected: &str) {
    match run_env(text, env) {
        Ok(v) => assert_eq!(print_value(&v, &var_name), expected, "evaluating {text:?}"),
        Err(e) => panic!("evaluating {text:?}: {e:?}"),
    }
}

pub(super) fn check_err(text: &str, kind: ErrorKind, message_part: &str) {
    check_err_env(text, &[], kind, message_part);
}

pub(super) fn check_err_env(text: &str, env: &[(&str, Atom)], kind: ErrorKind, message_part: &str) {
    match run_env(text, env) {
        Err(EvalError::Fail { kind: k, message, .. }) => {
            assert_eq!(k, kind, "{text:?}: {message}");
            assert!(
                message.contains(message_part),
                "{text:?}: message {message:?} lacks {message_part:?}"
            );
        }
        other => panic!("evaluating {text:?}: expected {kind:?}, got {other:?}"),
    }
}

pub(super) fn check_stuck(text: &str, env: &[(&str, Atom)], var: u32) {
    match run_env(text, env) {
        Err(EvalError::Stuck(v)) => assert_eq!(v, VarId(var), "evaluating {text:?}"),
        other => panic!("evaluating {text:?}: expected stuck on {var}, got {other:?}"),
    }
}

pub(super) fn splice_tuple(prefix: &[i64], var: u32) -> Atom {
    let mut args: Vec<Arg> = prefix.iter().map(|x| Arg::Atom(Atom::Int(*x))).collect();
    args.push(Arg::Splice(Atom::Var(VarId(var))));
    Atom::Tuple(args)
}
