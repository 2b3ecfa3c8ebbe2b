//! Evaluation of expressions whose variables have been substituted.
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

use std::cmp::Ordering;
use std::sync::Arc;

use crate::error::ErrorKind;
use crate::expr::print::print_value;
use crate::expr::{BinOp, Expr, ExprKind, UnOp};
use crate::span::Span;
use crate::term::{Arg, Atom, Matrix, VarId};

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

type EResult<T> = Result<T, EvalError>;

/// Largest number of entries of a matrix the evaluator builds.
const MAX_MATRIX_ENTRIES: usize = 1 << 24;

/// Longest chain of matrices `matrix_chain_order` handles (its tables are
/// quadratic, its time cubic).
const MAX_CHAIN: usize = 1000;

/// Longest printed value quoted in an error message.
const MAX_SHOWN: usize = 80;

fn fail<T>(kind: ErrorKind, message: impl Into<String>, span: Span) -> EResult<T> {
    Err(EvalError::Fail {
        kind,
        message: message.into(),
        span,
    })
}

/// A value as quoted in an error message (shortened if long).
fn show(a: &Atom) -> String {
    let s = print_value(a, &|v| format!("<var {}>", v.0));
    if s.chars().count() <= MAX_SHOWN {
        s
    } else {
        let short: String = s.chars().take(MAX_SHOWN).collect();
        format!("{short}...")
    }
}

/// A value and its kind, as quoted in an error message.
fn show_kind(a: &Atom) -> String {
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
// Stuck before failure

/// The first stuck result among `rs`.
fn stuck_in<'a, T: 'a>(rs: impl IntoIterator<Item = &'a EResult<T>>) -> Option<VarId> {
    rs.into_iter().find_map(|r| match r {
        Err(EvalError::Stuck(v)) => Some(*v),
        _ => None,
    })
}

/// The operands of one operation, evaluated from left to right, settled
/// (LANGUAGE.md §6.5): the first operand that is stuck makes the operation
/// stuck; then the first symbolic value the operation needs (`need`, on
/// the operands that have values) does; only then does the first failing
/// operand fail it. `Ok`: every operand has a value.
fn settle<T>(rs: Vec<EResult<T>>, need: impl FnOnce(&[EResult<T>]) -> Option<VarId>) -> EResult<Vec<T>> {
    if let Some(v) = stuck_in(&rs).or_else(|| need(&rs)) {
        return Err(EvalError::Stuck(v));
    }
    rs.into_iter().collect()
}

/// The variable of an operand that is a symbolic value, which an operation
/// inspecting the operand needs.
fn top(r: &EResult<Atom>) -> Option<VarId> {
    r.as_ref().ok().and_then(top_of)
}

/// The variable of a symbolic value.
fn top_of(a: &Atom) -> Option<VarId> {
    match a {
        Atom::Var(v) => Some(*v),
        _ => None,
    }
}

/// The first symbolic value anywhere in a value that `==` would compare
/// (tuples, splices, records, maps; not inside functions).
fn deep(a: &Atom) -> Option<VarId> {
    let mut stack = vec![a];
    while let Some(a) = stack.pop() {
        match a {
            Atom::Var(v) => return Some(*v),
            Atom::Tuple(args) => stack.extend(args.iter().rev().map(|x| match x {
                Arg::Atom(x) | Arg::Splice(x) => x,
            })),
            Atom::Record(fs) => stack.extend(fs.iter().rev().map(|(_, x)| x)),
            Atom::Map(es) => stack.extend(es.iter().rev().flat_map(|(k, v)| [v, k])),
            _ => {}
        }
    }
    None
}

/// The symbolic splice that blocks a tuple: the first splice of its
/// elements (concrete splices expanded) when that is a symbolic one.
fn blocked(a: &Atom) -> Option<VarId> {
    let Atom::Tuple(args) = a else { return None };
    let mut flat = Vec::new();
    flatten(args, &mut flat);
    flat.iter().find_map(|x| match x {
        Arg::Splice(s) => Some(match s {
            Atom::Var(v) => Some(*v),
            _ => None,
        }),
        Arg::Atom(_) => None,
    })?
}

/// The plain elements of a tuple before its first splice.
fn known_elements(a: &Atom) -> Vec<Atom> {
    let Atom::Tuple(args) = a else { return Vec::new() };
    let mut flat = Vec::new();
    flatten(args, &mut flat);
    flat.into_iter()
        .map_while(|x| match x {
            Arg::Atom(x) => Some(x),
            Arg::Splice(_) => None,
        })
        .collect()
}

/// The first symbolic value a tuple needs when its elements are read one
/// by one: itself, a splice blocking it, then each element (`elem`).
fn tuple_need(a: &Atom, elem: &dyn Fn(&Atom) -> Option<VarId>) -> Option<VarId> {
    match a {
        Atom::Var(v) => Some(*v),
        Atom::Tuple(_) => blocked(a).or_else(|| known_elements(a).iter().find_map(elem)),
        _ => None,
    }
}

// ---------------------------------------------------------------------------
// Operators

fn unary(op: UnOp, v: Atom, span: Span) -> EResult<Atom> {
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

fn want_bool(a: &Atom, op: BinOp, span: Span) -> EResult<bool> {
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
fn binary(op: BinOp, a: &Atom, b: &Atom, span: Span) -> EResult<Atom> {
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

fn matmul(a: &Matrix, b: &Matrix, span: Span) -> EResult<Atom> {
    if a.cols != b.rows {
        return fail(
            ErrorKind::Type,
            format!("cannot multiply a {}x{} matrix by a {}x{} matrix", a.rows, a.cols, b.rows, b.cols),
            span,
        );
    }
    let size = a.rows.checked_mul(b.cols).filter(|n| *n <= MAX_MATRIX_ENTRIES);
    let Some(size) = size else {
        return fail(
            ErrorKind::Overflow,
            format!(
                "the product of a {}x{} and a {}x{} matrix is too large",
                a.rows, a.cols, b.rows, b.cols
            ),
            span,
        );
    };
    let mut data = Vec::with_capacity(size);
    for i in 0..a.rows {
        for j in 0..b.cols {
            let mut sum: i64 = 0;
            for k in 0..a.cols {
                let x = a.data.get(i * a.cols + k).copied().unwrap_or(0);
                let y = b.data.get(k * b.cols + j).copied().unwrap_or(0);
                let term = x.checked_mul(y).and_then(|t| sum.checked_add(t));
                match term {
                    Some(s) => sum = s,
                    None => {
                        return fail(
                            ErrorKind::Overflow,
                            format!("integer overflow in entry ({i}, {j}) of a matrix product"),
                            span,
                        )
                    }
                }
            }
            data.push(sum);
        }
    }
    Ok(Atom::Matrix(Arc::new(Matrix {
        rows: a.rows,
        cols: b.cols,
        data,
    })))
}

// ---------------------------------------------------------------------------
// Equality and ordering

/// Checks that `a` is fully concrete and comparable: the first symbolic
/// variable makes it stuck, a function makes it a type error.
fn ensure_comparable(a: &Atom, span: Span) -> EResult<()> {
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

fn flatten(args: &[Arg], out: &mut Vec<Arg>) {
    for arg in args {
        match arg {
            Arg::Splice(Atom::Tuple(inner)) => flatten(inner, out),
            a => out.push(a.clone()),
        }
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
fn compare(a: &Atom, b: &Atom, what: &str, span: Span) -> EResult<Ordering> {
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

// ---------------------------------------------------------------------------
// Tuples

/// A concrete tuple: its elements (concrete tuple splices expanded), of which
/// the first `known` are plain; `blocked` is the symbolic splice after them.
struct TupleView {
    args: Vec<Arg>,
    known: usize,
    blocked: Option<VarId>,
}

fn tuple_view(a: &Atom, what: &str, span: Span) -> EResult<TupleView> {
    let args = match a {
        Atom::Var(v) => return Err(EvalError::Stuck(*v)),
        Atom::Tuple(args) => args,
        _ => return fail(ErrorKind::Type, format!("{what} must be a tuple, not {}", show_kind(a)), span),
    };
    let mut flat = Vec::with_capacity(args.len());
    flatten(args, &mut flat);
    let mut known = flat.len();
    let mut blocked = None;
    for (i, arg) in flat.iter().enumerate() {
        if let Arg::Splice(x) = arg {
            known = i;
            blocked = Some(match x {
                Atom::Var(v) => *v,
                _ => return fail(ErrorKind::Type, format!("cannot splice {} into a tuple", show_kind(x)), span),
            });
            break;
        }
    }
    Ok(TupleView {
        args: flat,
        known,
        blocked,
    })
}

impl TupleView {
    /// The error for a position at or past the known elements.
    fn beyond(&self, msg: String, span: Span) -> EvalError {
        match self.blocked {
            Some(v) => EvalError::Stuck(v),
            None => EvalError::Fail {
                kind: ErrorKind::IndexOutOfRange,
                message: msg,
                span,
            },
        }
    }

    /// The element at `i`.
    fn get(&self, i: i64, span: Span) -> EResult<Atom> {
        let msg = || format!("index {i} is out of range for a tuple of length {}", self.args.len());
        if i < 0 {
            return fail(ErrorKind::IndexOutOfRange, msg(), span);
        }
        match usize::try_from(i).ok().filter(|k| *k < self.known) {
            Some(k) => match &self.args[k] {
                Arg::Atom(x) => Ok(x.clone()),
                Arg::Splice(_) => Err(self.beyond(msg(), span)),
            },
            None => Err(self.beyond(msg(), span)),
        }
    }

    /// Checks the inclusive range `i..j` (empty when `j == i-1`) and returns
    /// it as a half-open one.
    fn range(&self, i: i64, j: i64, span: Span) -> EResult<(usize, usize)> {
        let msg = || format!("range {i}..{j} is out of range for a tuple of length {}", self.args.len());
        let end = j.checked_add(1);
        let (Some(end), true) = (end, i >= 0) else {
            return fail(ErrorKind::IndexOutOfRange, msg(), span);
        };
        if i > end {
            return fail(ErrorKind::IndexOutOfRange, msg(), span);
        }
        match (usize::try_from(i), usize::try_from(end)) {
            (Ok(a), Ok(b)) if b <= self.known => Ok((a, b)),
            _ => Err(self.beyond(msg(), span)),
        }
    }
}

fn tuple_of(args: Vec<Arg>) -> Atom {
    Atom::Tuple(args)
}

fn int_tuple(xs: &[i64]) -> Atom {
    Atom::Tuple(xs.iter().map(|x| Arg::Atom(Atom::Int(*x))).collect())
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

fn want_int(a: &Atom, what: &str, span: Span) -> EResult<i64> {
    match a {
        Atom::Int(n) => Ok(*n),
        Atom::Var(v) => Err(EvalError::Stuck(*v)),
        _ => fail(ErrorKind::Type, format!("{what} must be an integer, not {}", show_kind(a)), span),
    }
}

fn index(t: &Atom, i: &Atom, span: Span) -> EResult<Atom> {
    match t {
        Atom::Var(v) => Err(EvalError::Stuck(*v)),
        Atom::Str(s) => {
            let i = want_int(i, "a string index", span)?;
            let c = usize::try_from(i).ok().and_then(|k| s.chars().nth(k));
            match c {
                Some(c) => Ok(Atom::Str(Arc::from(c.to_string()))),
                None => fail(
                    ErrorKind::IndexOutOfRange,
                    format!(
                        "index {i} is out of range for the string {} of length {}",
                        show(t),
                        s.chars().count()
                    ),
                    span,
                ),
            }
        }
        Atom::Tuple(_) => {
            let view = tuple_view(t, "the indexed value", span)?;
            let i = want_int(i, "a tuple index", span)?;
            view.get(i, span)
        }
        _ => fail(
            ErrorKind::Type,
            format!("cannot index {}: only tuples and strings can be indexed", show_kind(t)),
            span,
        ),
    }
}

fn slice(t: &Atom, lo: &Atom, hi: &Atom, span: Span) -> EResult<Atom> {
    match t {
        Atom::Var(v) => Err(EvalError::Stuck(*v)),
        Atom::Str(s) => {
            let i = want_int(lo, "the start of a range", span)?;
            let j = want_int(hi, "the end of a range", span)?;
            let chars: Vec<char> = s.chars().collect();
            let ok = i >= 0 && j.checked_add(1).is_some_and(|e| i <= e && e <= chars.len() as i64);
            if !ok {
                return fail(
                    ErrorKind::IndexOutOfRange,
                    format!(
                        "range {i}..{j} is out of range for the string {} of length {}",
                        show(t),
                        chars.len()
                    ),
                    span,
                );
            }
            let (a, b) = (i as usize, (j + 1) as usize);
            Ok(Atom::Str(Arc::from(chars[a..b].iter().collect::<String>())))
        }
        Atom::Tuple(_) => {
            let view = tuple_view(t, "the sliced value", span)?;
            let i = want_int(lo, "the start of a range", span)?;
            let j = want_int(hi, "the end of a range", span)?;
            let (a, b) = view.range(i, j, span)?;
            Ok(tuple_of(view.args[a..b].to_vec()))
        }
        _ => fail(
            ErrorKind::Type,
            format!("cannot slice {}: only tuples and strings can be sliced", show_kind(t)),
            span,
        ),
    }
}

fn field(r: &Atom, f: &str, span: Span) -> EResult<Atom> {
    match r {
        Atom::Var(v) => Err(EvalError::Stuck(*v)),
        Atom::Record(fs) => match fs.iter().find(|(g, _)| &**g == f) {
            Some((_, x)) => Ok(x.clone()),
            None => fail(ErrorKind::MissingKey, format!("the record {} has no field `{f}`", show(r)), span),
        },
        _ => fail(
            ErrorKind::Type,
            format!("cannot read field `{f}` of {}: it is not a record", show_kind(r)),
            span,
        ),
    }
}

// ---------------------------------------------------------------------------
// Functions

/// An evaluated argument: a value or a range.
enum ArgV {
    Val(Atom),
    Range(Atom, Atom),
}

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

/// Calls the function `name` on its evaluated arguments (LANGUAGE.md
/// §6.5): an argument that is stuck, or a symbolic value the function
/// needs, makes the call stuck; then the first failing argument fails it;
/// only then are the name and the number of arguments checked.
fn call_with(name: &str, args: Vec<EResult<ArgV>>, span: Span) -> EResult<Atom> {
    if let Some(v) = stuck_in(&args) {
        return Err(EvalError::Stuck(v));
    }
    let sig = match signature(name, args.len(), span) {
        Ok(fun) => fun,
        Err(e) => {
            args.into_iter().collect::<EResult<Vec<_>>>()?;
            return Err(e);
        }
    };
    let args = settle(args, |rs| needs(sig, rs))?;
    call(sig, name, args, span)
}

/// The first symbolic value that the function `fun` needs among its
/// arguments `rs` (those that have values), left to right.
fn needs(fun: Fun, rs: &[EResult<ArgV>]) -> Option<VarId> {
    let arg = |k: usize| match rs.get(k) {
        Some(Ok(ArgV::Val(a))) => Some(a),
        _ => None,
    };
    let sym = |k: usize| arg(k).and_then(top_of);
    let ints = |a: &Atom| tuple_need(a, &top_of);
    match fun {
        Fun::Map => None,
        Fun::Len => arg(0).and_then(|a| top_of(a).or_else(|| blocked(a))),
        Fun::Concat | Fun::Delete | Fun::Min | Fun::Max => sym(0).or_else(|| sym(1)),
        Fun::Insert => sym(0).or_else(|| match arg(0) {
            Some(Atom::Map(_)) => arg(1).and_then(deep),
            _ => sym(1),
        }),
        Fun::Lookup => sym(0).or_else(|| arg(1).and_then(deep)),
        Fun::Pluck => arg(0).and_then(|a| tuple_need(a, &top_of)).or_else(|| sym(1)),
        Fun::Abs | Fun::Int | Fun::Float | Fun::Dims => sym(0),
        Fun::Matrix if rs.len() == 3 => sym(0).or_else(|| sym(1)).or_else(|| sym(2)),
        Fun::Matrix => arg(0).and_then(|a| tuple_need(a, &ints)),
        Fun::MatrixChainOrder => arg(0).and_then(ints),
    }
}

/// The functions of the expression language.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fun {
    Len,
    Concat,
    Insert,
    Delete,
    Map,
    Lookup,
    Pluck,
    Min,
    Max,
    Abs,
    Int,
    Float,
    Matrix,
    Dims,
    MatrixChainOrder,
}

/// Looks up the function `name` and checks its number of arguments
/// (`n`, counting the receiver of a method call).
fn signature(name: &str, n: usize, span: Span) -> EResult<Fun> {
    let (fun, arities): (Fun, &[usize]) = match name {
        "len" | "count" => (Fun::Len, &[1]),
        "concat" => (Fun::Concat, &[2]),
        "insert" => (Fun::Insert, &[3]),
        "delete" => (Fun::Delete, &[2]),
        "map" => (Fun::Map, &[0]),
        "lookup" => (Fun::Lookup, &[2]),
        "pluck" => (Fun::Pluck, &[2]),
        "min" => (Fun::Min, &[2]),
        "max" => (Fun::Max, &[2]),
        "abs" => (Fun::Abs, &[1]),
        "int" => (Fun::Int, &[1]),
        "float" => (Fun::Float, &[1]),
        "matrix" => (Fun::Matrix, &[1, 3]),
        "dims" => (Fun::Dims, &[1]),
        "matrix_chain_order" => (Fun::MatrixChainOrder, &[1]),
        _ => return fail(ErrorKind::UnknownFunction, format!("unknown function `{name}`"), span),
    };
    if arities.contains(&n) {
        return Ok(fun);
    }
    let plural = |k: usize| if k == 1 { "argument" } else { "arguments" };
    let expected = match arities {
        [k] => format!("{k} {}", plural(*k)),
        _ => arities.iter().map(ToString::to_string).collect::<Vec<_>>().join(" or ") + " arguments",
    };
    fail(
        ErrorKind::Arity,
        format!(
            "`{name}` takes {expected} (a method's receiver counts), but {n} {} given",
            if n == 1 { "was" } else { "were" }
        ),
        span,
    )
}

/// The value of argument `k` (which must not be a range).
fn val<'a>(args: &'a [ArgV], k: usize, name: &str, span: Span) -> EResult<&'a Atom> {
    match args.get(k) {
        Some(ArgV::Val(a)) => Ok(a),
        Some(ArgV::Range(..)) => fail(ErrorKind::Type, format!("argument {} of `{name}` cannot be a range", k + 1), span),
        None => fail(ErrorKind::Arity, format!("`{name}` is missing argument {}", k + 1), span),
    }
}

fn call(fun: Fun, name: &str, args: Vec<ArgV>, span: Span) -> EResult<Atom> {
    let arg = |k: usize| val(&args, k, name, span);
    match fun {
        Fun::Len => {
            let a = arg(0)?;
            match a {
                Atom::Var(v) => Err(EvalError::Stuck(*v)),
                Atom::Str(s) => Ok(Atom::Int(s.chars().count() as i64)),
                Atom::Map(es) => Ok(Atom::Int(es.len() as i64)),
                Atom::Tuple(_) => {
                    let view = tuple_view(a, "the argument of `len`", span)?;
                    match view.blocked {
                        Some(v) => Err(EvalError::Stuck(v)),
                        None => Ok(Atom::Int(view.args.len() as i64)),
                    }
                }
                _ => fail(
                    ErrorKind::Type,
                    format!("`{name}` needs a tuple, a string or a map, not {}", show_kind(a)),
                    span,
                ),
            }
        }
        Fun::Concat => {
            let (a, b) = (arg(0)?, arg(1)?);
            match (a, b) {
                (Atom::Var(v), _) | (_, Atom::Var(v)) => Err(EvalError::Stuck(*v)),
                (Atom::Tuple(x), Atom::Tuple(y)) => {
                    let mut out = Vec::with_capacity(x.len() + y.len());
                    flatten(x, &mut out);
                    flatten(y, &mut out);
                    Ok(tuple_of(out))
                }
                (Atom::Str(x), Atom::Str(y)) => Ok(Atom::Str(Arc::from(format!("{x}{y}")))),
                _ => fail(
                    ErrorKind::Type,
                    format!(
                        "`concat` needs two tuples or two strings, not {} and {}",
                        show_kind(a),
                        show_kind(b)
                    ),
                    span,
                ),
            }
        }
        Fun::Insert => {
            let target = arg(0)?;
            match target {
                Atom::Var(v) => Err(EvalError::Stuck(*v)),
                Atom::Map(es) => {
                    let (k, v) = (arg(1)?, arg(2)?);
                    ensure_comparable(k, span)?;
                    let mut es = es.clone();
                    match es.iter_mut().find(|(k2, _)| values_equal(k, k2)) {
                        Some(entry) => entry.1 = v.clone(),
                        None => es.push((k.clone(), v.clone())),
                    }
                    Ok(Atom::Map(es))
                }
                Atom::Tuple(_) => {
                    let view = tuple_view(target, "the first argument of `insert`", span)?;
                    let i = want_int(arg(1)?, "the position of `insert`", span)?;
                    let v = arg(2)?;
                    let msg = || format!("insert position {i} is out of range for a tuple of length {}", view.args.len());
                    if i < 0 {
                        return fail(ErrorKind::IndexOutOfRange, msg(), span);
                    }
                    match usize::try_from(i).ok().filter(|k| *k <= view.known) {
                        Some(k) => {
                            let mut out = view.args.clone();
                            out.insert(k, Arg::Atom(v.clone()));
                            Ok(tuple_of(out))
                        }
                        None => Err(view.beyond(msg(), span)),
                    }
                }
                _ => fail(
                    ErrorKind::Type,
                    format!("`insert` needs a tuple or a map, not {}", show_kind(target)),
                    span,
                ),
            }
        }
        Fun::Delete => {
            let view = tuple_view(arg(0)?, "the first argument of `delete`", span)?;
            let (i, j) = match &args.get(1) {
                Some(ArgV::Range(lo, hi)) => (
                    want_int(lo, "the start of a range", span)?,
                    want_int(hi, "the end of a range", span)?,
                ),
                _ => {
                    let i = want_int(arg(1)?, "the position of `delete`", span)?;
                    (i, i)
                }
            };
            let (a, b) = view.range(i, j, span)?;
            let mut out = view.args;
            out.drain(a..b);
            Ok(tuple_of(out))
        }
        Fun::Map => Ok(Atom::Map(Vec::new())),
        Fun::Lookup => {
            let (m, k) = (arg(0)?, arg(1)?);
            let es = match m {
                Atom::Var(v) => return Err(EvalError::Stuck(*v)),
                Atom::Map(es) => es,
                _ => return fail(ErrorKind::Type, format!("`lookup` needs a map, not {}", show_kind(m)), span),
            };
            ensure_comparable(k, span)?;
            match es.iter().find(|(k2, _)| values_equal(k, k2)) {
                Some((_, v)) => Ok(v.clone()),
                None => fail(ErrorKind::MissingKey, format!("the key {} is not in the map", show(k)), span),
            }
        }
        Fun::Pluck => {
            let view = tuple_view(arg(0)?, "the first argument of `pluck`", span)?;
            if let Some(v) = view.blocked {
                return Err(EvalError::Stuck(v));
            }
            let f = match arg(1)? {
                Atom::Str(s) => s.clone(),
                Atom::Var(v) => return Err(EvalError::Stuck(*v)),
                other => {
                    return fail(
                        ErrorKind::Type,
                        format!("the field name of `pluck` must be a string, not {}", show_kind(other)),
                        span,
                    )
                }
            };
            let mut out = Vec::with_capacity(view.args.len());
            for a in &view.args {
                if let Arg::Atom(r) = a {
                    out.push(Arg::Atom(field(r, &f, span)?));
                }
            }
            Ok(tuple_of(out))
        }
        Fun::Min | Fun::Max => {
            let (a, b) = (arg(0)?, arg(1)?);
            let ord = compare(a, b, name, span)?;
            let pick_b = if fun == Fun::Min {
                ord == Ordering::Greater
            } else {
                ord == Ordering::Less
            };
            Ok(if pick_b { b.clone() } else { a.clone() })
        }
        Fun::Abs => match arg(0)? {
            Atom::Var(v) => Err(EvalError::Stuck(*v)),
            Atom::Int(n) => match n.checked_abs() {
                Some(m) => Ok(Atom::Int(m)),
                None => fail(ErrorKind::Overflow, format!("integer overflow in abs({n})"), span),
            },
            Atom::Float(f) => Ok(Atom::Float(f.abs())),
            other => fail(ErrorKind::Type, format!("`abs` needs a number, not {}", show_kind(other)), span),
        },
        Fun::Int => match arg(0)? {
            Atom::Var(v) => Err(EvalError::Stuck(*v)),
            Atom::Int(n) => Ok(Atom::Int(*n)),
            Atom::Float(f) => {
                let t = f.trunc();
                // i64 covers [-2^63, 2^63).
                if (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&t) {
                    Ok(Atom::Int(t as i64))
                } else {
                    fail(
                        ErrorKind::Overflow,
                        format!("int({}) does not fit in a 64-bit integer", show(&Atom::Float(*f))),
                        span,
                    )
                }
            }
            other => fail(ErrorKind::Type, format!("`int` needs a number, not {}", show_kind(other)), span),
        },
        Fun::Float => match arg(0)? {
            Atom::Var(v) => Err(EvalError::Stuck(*v)),
            Atom::Int(n) => Ok(Atom::Float(*n as f64)),
            Atom::Float(f) => Ok(Atom::Float(*f)),
            other => fail(ErrorKind::Type, format!("`float` needs a number, not {}", show_kind(other)), span),
        },
        Fun::Matrix if args.len() == 3 => {
            let rows = want_int(arg(0)?, "the number of rows", span)?;
            let cols = want_int(arg(1)?, "the number of columns", span)?;
            let seed = want_int(arg(2)?, "the seed", span)?;
            random_matrix(rows, cols, seed, span)
        }
        Fun::Matrix => matrix_from_rows(arg(0)?, span),
        Fun::Dims => match arg(0)? {
            Atom::Var(v) => Err(EvalError::Stuck(*v)),
            Atom::Matrix(m) => Ok(int_tuple(&[m.rows as i64, m.cols as i64])),
            other => fail(ErrorKind::Type, format!("`dims` needs a matrix, not {}", show_kind(other)), span),
        },
        Fun::MatrixChainOrder => {
            let dims = int_elements(arg(0)?, "the argument of `matrix_chain_order`", span)?;
            let mut ds = Vec::with_capacity(dims.len());
            for d in &dims {
                match u64::try_from(*d) {
                    Ok(d) => ds.push(d),
                    Err(_) => return fail(ErrorKind::Type, format!("matrix dimensions must be non-negative, not {d}"), span),
                }
            }
            if ds.len() < 2 {
                return fail(
                    ErrorKind::Type,
                    format!(
                        "`matrix_chain_order` needs at least two dimensions (one matrix), not {}",
                        show(arg(0)?)
                    ),
                    span,
                );
            }
            if ds.len() > MAX_CHAIN + 1 {
                return fail(
                    ErrorKind::Overflow,
                    format!("`matrix_chain_order` handles at most {MAX_CHAIN} matrices, not {}", ds.len() - 1),
                    span,
                );
            }
            match matrix_chain_order(&ds) {
                Some(order) => Ok(int_tuple(&order.iter().map(|k| *k as i64).collect::<Vec<_>>())),
                None => fail(ErrorKind::Overflow, "the cost of the matrix chain overflows", span),
            }
        }
    }
}

/// The elements of a concrete tuple of integers.
fn int_elements(a: &Atom, what: &str, span: Span) -> EResult<Vec<i64>> {
    let view = tuple_view(a, what, span)?;
    if let Some(v) = view.blocked {
        return Err(EvalError::Stuck(v));
    }
    let mut out = Vec::with_capacity(view.args.len());
    for x in &view.args {
        if let Arg::Atom(x) = x {
            out.push(want_int(x, &format!("each element of {what}"), span)?);
        }
    }
    Ok(out)
}

fn random_matrix(rows: i64, cols: i64, seed: i64, span: Span) -> EResult<Atom> {
    let (Ok(r), Ok(c)) = (usize::try_from(rows), usize::try_from(cols)) else {
        return fail(
            ErrorKind::Type,
            format!("`matrix` needs non-negative rows and columns, not {rows}, {cols}"),
            span,
        );
    };
    let Some(n) = r.checked_mul(c).filter(|n| *n <= MAX_MATRIX_ENTRIES) else {
        return fail(ErrorKind::Overflow, format!("a {rows}x{cols} matrix is too large"), span);
    };
    const MODULUS: u64 = 1 << 31;
    // `seed mod 2^31`, in [0, 2^31) also for a negative seed.
    let mut state = seed.rem_euclid(MODULUS as i64) as u64;
    let mut data = Vec::with_capacity(n);
    for _ in 0..n {
        state = (1_103_515_245 * state + 12_345) % MODULUS;
        data.push(((state >> 16) % 10) as i64);
    }
    Ok(Atom::Matrix(Arc::new(Matrix { rows: r, cols: c, data })))
}

fn matrix_from_rows(a: &Atom, span: Span) -> EResult<Atom> {
    let rows = tuple_view(a, "the argument of `matrix`", span)?;
    if let Some(v) = rows.blocked {
        return Err(EvalError::Stuck(v));
    }
    let mut data = Vec::new();
    let mut cols = None;
    for (i, row) in rows.args.iter().enumerate() {
        let Arg::Atom(row) = row else { continue };
        let xs = int_elements(row, "a row of a matrix", span)?;
        match cols {
            None => cols = Some(xs.len()),
            Some(c) if c != xs.len() => {
                return fail(
                    ErrorKind::Type,
                    format!("ragged matrix rows: row {i} has {} entries, row 0 has {c}", xs.len()),
                    span,
                )
            }
            Some(_) => {}
        }
        if data.len() + xs.len() > MAX_MATRIX_ENTRIES {
            return fail(ErrorKind::Overflow, "the matrix is too large", span);
        }
        data.extend(xs);
    }
    Ok(Atom::Matrix(Arc::new(Matrix {
        rows: rows.args.len(),
        cols: cols.unwrap_or(0),
        data,
    })))
}

/// The order of the products of the cheapest parenthesization of the chain
/// of matrices with dimensions `d` (matrix `i` is `d[i] x d[i+1]`), ties
/// broken towards the smallest split. Each product is the index of its left
/// operand in the current list of matrices. `None` if a cost overflows.
fn matrix_chain_order(d: &[u64]) -> Option<Vec<usize>> {
    let n = d.len().saturating_sub(1);
    if n == 0 {
        return Some(Vec::new());
    }
    // cost[i][j], split[i][j] for the chain i..=j.
    let mut cost = vec![vec![0u128; n]; n];
    let mut split = vec![vec![0usize; n]; n];
    for len in 2..=n {
        for i in 0..=n - len {
            let j = i + len - 1;
            let mut best: Option<(u128, usize)> = None;
            for k in i..j {
                let mult = u128::from(d[i])
                    .checked_mul(u128::from(d[k + 1]))?
                    .checked_mul(u128::from(d[j + 1]))?;
                let c = cost[i][k].checked_add(cost[k + 1][j])?.checked_add(mult)?;
                match best {
                    Some((b, _)) if b <= c => {}
                    _ => best = Some((c, k)),
                }
            }
            let (c, k) = best?;
            cost[i][j] = c;
            split[i][j] = k;
        }
    }
    // Post-order walk of the split tree, simulating the list of matrices as
    // segments (first, last) of the original chain.
    let mut segments: Vec<(usize, usize)> = (0..n).map(|i| (i, i)).collect();
    let mut order = Vec::with_capacity(n - 1);
    let mut stack: Vec<(usize, usize, bool)> = vec![(0, n - 1, false)];
    while let Some((i, j, expanded)) = stack.pop() {
        if i == j {
            continue;
        }
        let k = split[i][j];
        if expanded {
            let idx = segments.iter().position(|s| s.0 == i)?;
            segments[idx] = (i, j);
            segments.remove(idx + 1);
            order.push(idx);
        } else {
            stack.push((i, j, true));
            stack.push((k + 1, j, false));
            stack.push((i, k, false));
        }
    }
    Some(order)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::parse::{dismantle, parse_expr};
    use crate::expr::print::print_expr;
    use crate::span::FileId;

    fn parse(text: &str) -> Expr {
        match parse_expr(text, FileId(0), 0) {
            Ok(e) => e,
            Err(d) => panic!("parse of {text:?} failed: {d:?}"),
        }
    }

    /// Replaces names `a`..`z` (single letters) by symbolic variables
    /// `VarId(letter index)`, and names bound in `env` by their values.
    fn resolve(root: &mut Expr, env: &[(&str, Atom)]) {
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

    fn var_name(v: VarId) -> String {
        ((b'a' + v.0 as u8) as char).to_string()
    }

    fn run_env(text: &str, env: &[(&str, Atom)]) -> Result<Atom, EvalError> {
        let mut e = parse(text);
        resolve(&mut e, env);
        let r = eval(&e);
        dismantle(e);
        r
    }

    fn run(text: &str) -> Result<Atom, EvalError> {
        run_env(text, &[])
    }

    /// Evaluates `text` and compares the printed result with `expected`.
    fn check(text: &str, expected: &str) {
        match run(text) {
            Ok(v) => assert_eq!(print_value(&v, &var_name), expected, "evaluating {text:?}"),
            Err(e) => panic!("evaluating {text:?}: {e:?}"),
        }
    }

    fn check_env(text: &str, env: &[(&str, Atom)], expected: &str) {
        match run_env(text, env) {
            Ok(v) => assert_eq!(print_value(&v, &var_name), expected, "evaluating {text:?}"),
            Err(e) => panic!("evaluating {text:?}: {e:?}"),
        }
    }

    fn check_err(text: &str, kind: ErrorKind, message_part: &str) {
        check_err_env(text, &[], kind, message_part);
    }

    fn check_err_env(text: &str, env: &[(&str, Atom)], kind: ErrorKind, message_part: &str) {
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

    fn check_stuck(text: &str, env: &[(&str, Atom)], var: u32) {
        match run_env(text, env) {
            Err(EvalError::Stuck(v)) => assert_eq!(v, VarId(var), "evaluating {text:?}"),
            other => panic!("evaluating {text:?}: expected stuck on {var}, got {other:?}"),
        }
    }

    fn splice_tuple(prefix: &[i64], var: u32) -> Atom {
        let mut args: Vec<Arg> = prefix.iter().map(|x| Arg::Atom(Atom::Int(*x))).collect();
        args.push(Arg::Splice(Atom::Var(VarId(var))));
        Atom::Tuple(args)
    }

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
    fn tuples_and_indexing() {
        check("[1, 2+3, 'x']", "[1, 5, 'x']");
        check("[]", "[]");
        check("[10, 20, 30][1]", "20");
        check("[10, 20, 30][0..1]", "[10, 20]");
        check("[10, 20, 30][1..2]", "[20, 30]");
        check("[10, 20, 30][1..0]", "[]");
        check("[10, 20, 30][3..2]", "[]");
        check("[[1, 2], [3]][0][1]", "2");
        check("'hello'[1]", "'e'");
        check("'héllo'[1]", "'é'");
        check("'hello'[1..3]", "'ell'");
        check("'hello'[2..1]", "''");
        check_err("[1, 2][2]", ErrorKind::IndexOutOfRange, "index 2");
        check_err("[1, 2][-1]", ErrorKind::IndexOutOfRange, "index -1");
        check_err("[1, 2][0..2]", ErrorKind::IndexOutOfRange, "0..2");
        check_err("[1, 2][-1..0]", ErrorKind::IndexOutOfRange, "-1..0");
        check_err("[1, 2][2..0]", ErrorKind::IndexOutOfRange, "2..0");
        check_err("[1, 2][0..9223372036854775807]", ErrorKind::IndexOutOfRange, "out of range");
        check_err("'ab'[2]", ErrorKind::IndexOutOfRange, "'ab'");
        check_err("'ab'[0..5]", ErrorKind::IndexOutOfRange, "'ab'");
        check_err("[1, 2]['a']", ErrorKind::Type, "must be an integer");
        check_err("[1, 2][1.0]", ErrorKind::Type, "must be an integer");
        check_err("5[0]", ErrorKind::Type, "cannot index 5");
        check_err("5[0..1]", ErrorKind::Type, "cannot slice 5");
        check_err("{a: 1}[0]", ErrorKind::Type, "cannot index");
    }

    #[test]
    fn records_and_fields() {
        check("{dim: [2, 3], data: 'M'}", "{dim: [2, 3], data: 'M'}");
        check("{dim: [2, 3], data: 'M'}.dim", "[2, 3]");
        check("{dim: [2, 3], data: 'M'}.dim[1]", "3");
        check("{x: 1, y: 2}.x+{x: 1, y: 2}.y", "3");
        check_err("{x: 1}.z", ErrorKind::MissingKey, "no field `z`");
        check_err("[1].x", ErrorKind::Type, "not a record");
        check_err("'s'.x", ErrorKind::Type, "not a record");
    }

    #[test]
    fn len_concat_insert_delete() {
        check("len([1, 2, 3])", "3");
        check("count([1, 2, 3])", "3");
        check("len([])", "0");
        check("len('héllo')", "5");
        check("len(map().insert(1, 2))", "1");
        check("[1, 2, 3].len()", "3");
        check("concat([1, 2], [3])", "[1, 2, 3]");
        check("concat([], [])", "[]");
        check("concat('ab', 'c')", "'abc'");
        check("insert([1, 2], 0, 9)", "[9, 1, 2]");
        check("insert([1, 2], 1, 9)", "[1, 9, 2]");
        check("insert([1, 2], 2, 9)", "[1, 2, 9]");
        check("insert([], 0, 'x')", "['x']");
        check("delete([1, 2, 3, 4], 1..2)", "[1, 4]");
        check("delete([1, 2, 3, 4], 0..3)", "[]");
        check("delete([1, 2, 3, 4], 2)", "[1, 2, 4]");
        check("delete([1, 2, 3, 4], 2..1)", "[1, 2, 3, 4]");
        check("[1, 2, 3].delete(0)", "[2, 3]");
        check_err("len(5)", ErrorKind::Type, "5 (integer)");
        check_err("len([1], [2])", ErrorKind::Arity, "takes 1 argument");
        check_err("len()", ErrorKind::Arity, "but 0 were given");
        check_err("concat([1], 'a')", ErrorKind::Type, "two tuples or two strings");
        check_err("concat([1])", ErrorKind::Arity, "takes 2 arguments");
        check_err("insert([1, 2], 3, 9)", ErrorKind::IndexOutOfRange, "position 3");
        check_err("insert([1, 2], -1, 9)", ErrorKind::IndexOutOfRange, "position -1");
        check_err("insert(5, 0, 9)", ErrorKind::Type, "tuple or a map");
        check_err("insert([1], 'a', 9)", ErrorKind::Type, "must be an integer");
        check_err("delete([1, 2], 2)", ErrorKind::IndexOutOfRange, "out of range");
        check_err("delete([1, 2], 1..2)", ErrorKind::IndexOutOfRange, "1..2");
        check_err("delete('ab', 0)", ErrorKind::Type, "must be a tuple");
        check_err("len(1..2)", ErrorKind::Type, "cannot be a range");
        check_err("insert([1], 0..1, 2)", ErrorKind::Type, "cannot be a range");
    }

    #[test]
    fn maps() {
        check("map()", "map()");
        check("map().insert('a', 5)", "map().insert('a', 5)");
        check(
            "map().insert('a', 5).insert('b', 6).insert('a', 7)",
            "map().insert('a', 7).insert('b', 6)",
        );
        check("map().insert('a', 5).insert('b', 6).lookup('b')", "6");
        check("map().insert(1, 5).lookup(1.0)", "5");
        check("map().insert([1, 'x'], 5).lookup([1, 'x'])", "5");
        check("lookup(insert(map(), 'k', 'v'), 'k')", "'v'");
        check_err("map().insert('a', 5).lookup('z')", ErrorKind::MissingKey, "'z'");
        check_err("map(1)", ErrorKind::Arity, "takes 0 arguments");
        check_err("lookup([1], 0)", ErrorKind::Type, "needs a map");
        check_err("map().insert('a')", ErrorKind::Arity, "takes 3 arguments");
        check_stuck("map().insert(a, 1)", &[], 0);
        check_stuck("map().insert('k', 1).lookup(b)", &[], 1);
        check_stuck("c.lookup(1)", &[], 2);
        check_stuck("map().insert([1, d], 1)", &[], 3);
        // Symbolic values are fine.
        check("map().insert('k', a).lookup('k')", "a");
    }

    #[test]
    fn pluck_min_max_abs_int_float() {
        check("pluck([{x: 1, y: 2}, {x: 3, y: 4}], 'y')", "[2, 4]");
        check("pluck([], 'y')", "[]");
        check("pluck([{x: a}], 'x')", "[a]");
        check_err("pluck([{x: 1}, {y: 2}], 'x')", ErrorKind::MissingKey, "no field `x`");
        check_err("pluck([1], 'x')", ErrorKind::Type, "not a record");
        check_err("pluck([{x: 1}], 5)", ErrorKind::Type, "must be a string");
        check_stuck("pluck([{x: 1}, b], 'x')", &[], 1);
        check("min(1, 2)", "1");
        check("max(1, 2)", "2");
        check("min(2.5, 1)", "1");
        check("max(2.5, 1)", "2.5");
        check("min(1, 1.0)", "1");
        check("max(1.0, 1)", "1.0");
        check("min('b', 'a')", "'a'");
        check_err("min(1, 'a')", ErrorKind::Type, "1 (integer) and 'a' (string)");
        check_err("max(1)", ErrorKind::Arity, "takes 2 arguments");
        check("abs(-5)", "5");
        check("abs(5)", "5");
        check("abs(-2.5)", "2.5");
        check_err("abs(-9223372036854775808)", ErrorKind::Overflow, "abs");
        check_err("abs('x')", ErrorKind::Type, "needs a number");
        check("int(2.7)", "2");
        check("int(-2.7)", "-2");
        check("int(7)", "7");
        check("int(-9223372036854775808.0)", "-9223372036854775808");
        check_err("int(9223372036854775808.0)", ErrorKind::Overflow, "does not fit");
        check_err("int(1e300)", ErrorKind::Overflow, "does not fit");
        check_err("int('1')", ErrorKind::Type, "needs a number");
        check("float(3)", "3.0");
        check("float(2.5)", "2.5");
        check("float(3)/2", "1.5");
        check_err("float(true)", ErrorKind::Type, "needs a number");
        check_err("frobnicate(1)", ErrorKind::UnknownFunction, "`frobnicate`");
        check_err("[1].frobnicate()", ErrorKind::UnknownFunction, "`frobnicate`");
        // An argument that is stuck makes even an unknown function stuck;
        // symbolic values it would not look at do not.
        check_stuck("frobnicate(a+1)", &[], 0);
        check_err("frobnicate(a)", ErrorKind::UnknownFunction, "frobnicate");
        check_err("len(a, b)", ErrorKind::Arity, "len");
    }

    #[test]
    fn matrices() {
        check("matrix([[1, 2], [3, 4]])", "matrix([[1, 2], [3, 4]])");
        check("dims(matrix([[1, 2, 3], [4, 5, 6]]))", "[2, 3]");
        check("matrix([[1, 2], [3, 4]])*matrix([[5, 6], [7, 8]])", "matrix([[19, 22], [43, 50]])");
        check("matrix([[1, 2, 3]])*matrix([[1], [2], [3]])", "matrix([[14]])");
        check("dims(matrix([]))", "[0, 0]");
        check("dims(matrix([[], []]))", "[2, 0]");
        check("dims(matrix(3, 4, 7))", "[3, 4]");
        check("matrix(0, 3, 0)", "matrix(0, 3, 0)");
        check("matrix(2, 3, 42)==matrix(2, 3, 42)", "true");
        check("matrix(2, 3, 42)==matrix(2, 3, 43)", "false");
        check_err("matrix([[1, 2], [3]])", ErrorKind::Type, "ragged");
        check_err("matrix([[1, 'x']])", ErrorKind::Type, "must be an integer");
        check_err("matrix([1])", ErrorKind::Type, "must be a tuple");
        check_err("matrix(1, 2)", ErrorKind::Arity, "1 or 3 arguments");
        check_err("matrix(-1, 2, 0)", ErrorKind::Type, "non-negative");
        check_err("matrix(1, -2, 0)", ErrorKind::Type, "non-negative");
        check_err("matrix(100000, 100000, 1)", ErrorKind::Overflow, "too large");
        check_err("matrix([[1, 2]])*matrix([[1, 2]])", ErrorKind::Type, "1x2 matrix by a 1x2");
        check_err("matrix([[1]])*2", ErrorKind::Type, "cannot apply `*`");
        check_err("matrix([[4611686018427387904]])*matrix([[2]])", ErrorKind::Overflow, "overflow");
        check_err(
            "matrix([[9223372036854775807, 1]])*matrix([[1], [1]])",
            ErrorKind::Overflow,
            "overflow",
        );
        check_err("dims([1])", ErrorKind::Type, "needs a matrix");
        check_stuck("matrix([[1, a]])", &[], 0);
        check_stuck("dims(b)", &[], 1);
        check_stuck("matrix(2, c, 0)", &[], 2);
    }

    #[test]
    fn random_matrix_is_the_lcg() {
        // Reference: state := seed mod 2^31; per entry
        // state := (1103515245*state + 12345) mod 2^31; entry (state>>16) mod 10.
        let seed: u64 = 12345;
        let mut state = seed % (1 << 31);
        let mut expected = Vec::new();
        for _ in 0..6 {
            state = (1_103_515_245 * state + 12_345) % (1 << 31);
            expected.push(((state >> 16) % 10) as i64);
        }
        let Ok(Atom::Matrix(ref m)) = run("matrix(2, 3, 12345)") else {
            panic!("not a matrix")
        };
        assert_eq!((m.rows, m.cols), (2, 3));
        assert_eq!(m.data, expected);
        // Seed 0: states 12345, 1406932606, 654583775; entries (state >> 16) % 10.
        let Ok(Atom::Matrix(ref m)) = run("matrix(1, 3, 0)") else {
            panic!("not a matrix")
        };
        assert_eq!(m.data, vec![0, 8, 8]);
        // The seed is taken mod 2^31.
        let (Ok(Atom::Matrix(ref a)), Ok(Atom::Matrix(ref b))) = (run("matrix(3, 3, 5)"), run("matrix(3, 3, 2147483653)")) else {
            panic!("not matrices")
        };
        assert_eq!(a, b);
        // A negative seed too, into [0, 2^31): -1 is 2^31-1, -2^31 and
        // -2^63 are 0.
        for (neg, pos) in [
            ("-1", "2147483647"),
            ("-5", "2147483643"),
            ("-2147483648", "0"),
            ("-2147483653", "2147483643"),
            ("-9223372036854775808", "0"),
        ] {
            let (Ok(Atom::Matrix(ref a)), Ok(Atom::Matrix(ref b))) =
                (run(&format!("matrix(3, 4, {neg})")), run(&format!("matrix(3, 4, {pos})")))
            else {
                panic!("not matrices: seeds {neg}, {pos}")
            };
            assert_eq!(a, b, "seeds {neg} and {pos}");
        }
        check("matrix(1, 3, -1)", "matrix([[9, 9, 2]])");
        let Ok(Atom::Matrix(ref big)) = run("matrix(20, 20, 9223372036854775807)") else {
            panic!("not a matrix")
        };
        assert!(big.data.iter().all(|x| (0..10).contains(x)));
    }

    #[test]
    fn matrix_chain_order_examples() {
        check("matrix_chain_order([10, 30, 5, 60])", "[0, 0]");
        check("matrix_chain_order([10, 5, 1, 10])", "[0, 0]");
        // A 50x5, B 5x100, C 100x10: A(BC) costs 7500, (AB)C 75000.
        check("matrix_chain_order([50, 5, 100, 10])", "[1, 0]");
        check("matrix_chain_order([2, 3])", "[]");
        check("matrix_chain_order([2, 3, 4])", "[0]");
        // Cormen's example (p. 376): ((A1(A2A3))((A4A5)A6)).
        check("matrix_chain_order([30, 35, 15, 5, 10, 20, 25])", "[1, 0, 1, 1, 0]");
        // All equal: ties go to the smallest split, k = i: A1(A2(A3 A4)).
        check("matrix_chain_order([1, 1, 1, 1, 1])", "[2, 1, 0]");
        check_err("matrix_chain_order([5])", ErrorKind::Type, "at least two");
        check_err("matrix_chain_order([])", ErrorKind::Type, "at least two");
        check_err("matrix_chain_order([1, -2])", ErrorKind::Type, "non-negative");
        check_err("matrix_chain_order(5)", ErrorKind::Type, "must be a tuple");
        check_err("matrix_chain_order([1, 'a'])", ErrorKind::Type, "must be an integer");
        check_err(
            "matrix_chain_order([9223372036854775807, 9223372036854775807, 9223372036854775807, 9223372036854775807])",
            ErrorKind::Overflow,
            "overflows",
        );
        check_stuck("matrix_chain_order([1, a, 3])", &[], 0);
        let many = Atom::Tuple((0..1002).map(|_| Arg::Atom(Atom::Int(1))).collect());
        check_err_env("matrix_chain_order(d)", &[("d", many)], ErrorKind::Overflow, "at most 1000");
    }

    type Plan = Vec<(usize, usize, usize)>;

    /// All parenthesizations of the chain i..=j as (cost, product order in
    /// terms of (i, k, j) triples in post-order).
    fn brute(d: &[u64], i: usize, j: usize) -> Vec<(u64, Plan)> {
        if i == j {
            return vec![(0, Vec::new())];
        }
        let mut out = Vec::new();
        for k in i..j {
            for (cl, ol) in brute(d, i, k) {
                for (cr, or) in brute(d, k + 1, j) {
                    let mut order = ol.clone();
                    order.extend(or.iter().copied());
                    order.push((i, k, j));
                    out.push((cl + cr + d[i] * d[k + 1] * d[j + 1], order));
                }
            }
        }
        out
    }

    /// Applies a product order to the chain and returns its cost, checking
    /// every index is valid.
    fn cost_of(d: &[u64], order: &[usize]) -> u64 {
        let mut mats: Vec<(u64, u64)> = (0..d.len() - 1).map(|i| (d[i], d[i + 1])).collect();
        let mut cost = 0;
        for &idx in order {
            assert!(idx + 1 < mats.len(), "index {idx} out of {mats:?}");
            let (a, b) = (mats[idx], mats[idx + 1]);
            assert_eq!(a.1, b.0);
            cost += a.0 * a.1 * b.1;
            mats[idx] = (a.0, b.1);
            mats.remove(idx + 1);
        }
        assert_eq!(mats.len(), 1);
        cost
    }

    #[test]
    fn matrix_chain_order_against_brute_force() {
        let mut state: u64 = 0x0123_4567_89ab_cdef;
        let mut next = |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        for round in 0..400 {
            let n = 4 + (round % 4) as usize; // 4..=7 matrices
            let small = round % 3 == 0; // small dims give many ties
            let d: Vec<u64> = (0..=n).map(|_| 1 + next(if small { 3 } else { 40 })).collect();
            let order = match matrix_chain_order(&d) {
                Some(o) => o,
                None => panic!("overflow on {d:?}"),
            };
            assert_eq!(order.len(), n - 1);
            let all = brute(&d, 0, n - 1);
            let best = all.iter().map(|(c, _)| *c).min().unwrap_or(0);
            assert_eq!(cost_of(&d, &order), best, "dims {d:?}, order {order:?}");
            // Through the evaluator too.
            let text = format!(
                "matrix_chain_order([{}])",
                d.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
            );
            let expected = format!("[{}]", order.iter().map(ToString::to_string).collect::<Vec<_>>().join(", "));
            check(&text, &expected);
        }
    }

    /// The reference: Cormen's DP with smallest-k ties, then the post-order
    /// products as indices into the current list.
    #[test]
    fn matrix_chain_order_tie_breaking() {
        // With all dims equal, every split costs the same: the smallest split
        // k = i everywhere gives the right comb A0(A1(A2(...))).
        let d = vec![2u64; 7];
        assert_eq!(matrix_chain_order(&d), Some(vec![4, 3, 2, 1, 0]));
        // [1, 2, 1, 2]: (A0 A1) A2 costs 2 + 2 = 4, A0 (A1 A2) costs 4 + 2 = 6.
        assert_eq!(matrix_chain_order(&[1, 2, 1, 2]), Some(vec![0, 0]));
        // A0 10x1, A1 1x10, A2 10x1, A3 1x10: A0((A1A2)A3) costs 10+10+100.
        assert_eq!(matrix_chain_order(&[10, 1, 10, 1, 10]), Some(vec![1, 1, 0]));
        assert_eq!(cost_of(&[10, 1, 10, 1, 10], &[1, 1, 0]), 120);
        // A0 1x10, A1 10x1, A2 1x10, A3 10x1: (A0A1)(A2A3) costs 10+10+1.
        assert_eq!(matrix_chain_order(&[1, 10, 1, 10, 1]), Some(vec![0, 1, 0]));
        assert_eq!(cost_of(&[1, 10, 1, 10, 1], &[0, 1, 0]), 21);
    }

    #[test]
    fn strictness() {
        // Tuples and records of symbolic values are values.
        check("[a, b]", "[a, b]");
        check("{x: a, y: [b]}", "{x: a, y: [b]}");
        check("[a, b][1]", "b");
        check("[a, b][0..0]", "[a]");
        check("concat([a], [1, b])", "[a, 1, b]");
        check("{x: a}.x", "a");
        check("insert([a], 1, b)", "[a, b]");
        check("delete([a, b, c], 1)", "[a, c]");
        check("len([a, b])", "2");
        check("min(1, 2)", "1");
    }

    #[test]
    fn stuck_cases() {
        check_stuck("a+b", &[], 0);
        check_stuck("1+b", &[], 1);
        check_stuck("a*2", &[], 0);
        check_stuck("-c", &[], 2);
        check_stuck("a<1", &[], 0);
        check_stuck("a==1", &[], 0);
        check_stuck("[1, a]==[1, 2]", &[], 0);
        check_stuck("t[0]", &[("t", Atom::Var(VarId(5)))], 5);
        check_stuck("[1, 2][i]", &[("i", Atom::Var(VarId(8)))], 8);
        check_stuck("t.x", &[("t", Atom::Var(VarId(5)))], 5);
        check_stuck("len(a)", &[], 0);
        check_stuck("concat(a, [1])", &[], 0);
        check_stuck("concat([1], b)", &[], 1);
        check_stuck("insert(a, 0, 1)", &[], 0);
        check_stuck("delete(a, 0)", &[], 0);
        check_stuck("abs(a)", &[], 0);
        check_stuck("int(a)", &[], 0);
        check_stuck("float(a)", &[], 0);
        check_stuck("min(a, 1)", &[], 0);
        check_stuck("[a, 1][0]+1", &[], 0);
        check_stuck("a.len()", &[], 0);
        check_stuck("'ab'[a]", &[], 0);
        check_stuck("[1][0..a]", &[], 0);
        check_stuck("abs(e)", &[], 4);
    }

    /// Stuck wins over failure (LANGUAGE.md §6.5): an operation that needs a
    /// symbolic value is stuck whatever its other operands are, failing ones
    /// included; an operand that is stuck makes the operation stuck; only
    /// when nothing is symbolic does the first failing operand decide.
    #[test]
    fn stuck_wins_over_failure() {
        check_stuck("a+1/0", &[], 0);
        check_stuck("1/0+a", &[], 0);
        check_stuck("[1]*a", &[], 0);
        check_stuck("a*[1]", &[], 0);
        check_stuck("'s'<b", &[], 1);
        check_stuck("-(1/0)+c", &[], 2);
        check_stuck("(1/0+1)*(2+a)", &[], 0);
        // `==` and `!=` on values holding a symbolic value anywhere.
        check_stuck("[1, [a]]=='x'", &[], 0);
        check_stuck("1/0 != {f: [b]}", &[], 1);
        check_stuck("map().insert(1, c) == 1", &[], 2);
        // `&&` and `||`: a left operand without a boolean value does not
        // short-circuit.
        check_stuck("1 && a", &[], 0);
        check_stuck("1+true && a", &[], 0);
        check_stuck("1/0 || b", &[], 1);
        check_stuck("true && a", &[], 0);
        check("false && a", "false");
        check("true || 1/0", "true");
        // Tuples, records and postfix operators.
        check_stuck("[1/0, a+1]", &[], 0);
        check_stuck("{x: 1/0, y: -b}", &[], 1);
        check_stuck("(1/0)[a]", &[], 0);
        check_stuck("[1, 2][1/0..b]", &[], 1);
        check_stuck("(1/0).len() + a", &[], 0);
        check_stuck("a.f[1/0]", &[], 0);
        // Functions: their arguments first, whatever the name and count.
        check_stuck("delete(len(q))", &[], 16);
        check_stuck("len(1/0, a+1)", &[], 0);
        check_stuck("insert(5, a, 1)", &[], 0);
        check_stuck("concat(1/0, b)", &[], 1);
        check_stuck("pluck([1, b], 'x')", &[], 1);
        check_stuck("matrix_chain_order([1, 'x', c])", &[], 2);
        check_stuck("matrix([[1, 'x'], [a]])", &[], 0);
        check_stuck("lookup(5, [d])", &[], 3);
        check_stuck("min('x', 1/0) + max(a, 1)", &[], 0);
        // Symbolic values nothing looks at leave the error.
        check_err("[1/0, a]", ErrorKind::DivisionByZero, "division by zero");
        check_err("insert([1], 5, a)", ErrorKind::IndexOutOfRange, "position 5");
        check_err("[a, 1][5]", ErrorKind::IndexOutOfRange, "index 5");
        check_err("len(1/0, a)", ErrorKind::DivisionByZero, "division by zero");
        check_err("delete(1/0)", ErrorKind::DivisionByZero, "division by zero");
        check_err("frobnicate(1%0)", ErrorKind::DivisionByZero, "division by zero");
        check_err("[1]*2 + 1/0", ErrorKind::Type, "cannot apply `*`");
    }

    #[test]
    fn symbolic_splices() {
        let env = [("t", splice_tuple(&[10, 20], 19))];
        check_env("t[0]", &env, "10");
        check_env("t[1]", &env, "20");
        check_env("t[0..1]", &env, "[10, 20]");
        check_env("insert(t, 2, 5)", &env, "[10, 20, 5, !t]");
        check_env("insert(t, 0, 5)", &env, "[5, 10, 20, !t]");
        check_env("delete(t, 0)", &env, "[20, !t]");
        check_env("concat(t, [1])", &env, "[10, 20, !t, 1]");
        check_env("[t]", &env, "[[10, 20, !t]]");
        check_stuck("t[2]", &env, 19);
        check_stuck("t[5]", &env, 19);
        check_stuck("t[1..2]", &env, 19);
        check_stuck("len(t)", &env, 19);
        check_stuck("insert(t, 3, 5)", &env, 19);
        check_stuck("delete(t, 2)", &env, 19);
        check_stuck("pluck(t, 'x')", &env, 19);
        check_stuck("t==[10, 20]", &env, 19);
        check_stuck("matrix_chain_order(t)", &env, 19);
        check_err_env("t[-1]", &env, ErrorKind::IndexOutOfRange, "-1");
        check_err_env("insert(t, -1, 0)", &env, ErrorKind::IndexOutOfRange, "-1");
        // A splice of a concrete tuple is expanded.
        let env = [(
            "u",
            Atom::Tuple(vec![
                Arg::Atom(Atom::Int(1)),
                Arg::Splice(Atom::Tuple(vec![Arg::Atom(Atom::Int(2)), Arg::Atom(Atom::Int(3))])),
            ]),
        )];
        check_env("u[2]", &env, "3");
        check_env("len(u)", &env, "3");
        check_env("u==[1, 2, 3]", &env, "true");
        let env = [("w", Atom::Tuple(vec![Arg::Splice(Atom::Int(1))]))];
        check_err_env("w[0]", &env, ErrorKind::Type, "cannot splice");
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
