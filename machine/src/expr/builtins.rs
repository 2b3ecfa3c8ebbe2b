//! The functions of the expression language (LANGUAGE.md §6.3): their names
//! and arities, the symbolic values each needs, and their implementation;
//! `f(x, a)` and the method call `x.f(a)` both end here.

use std::cmp::Ordering;
use std::sync::Arc;

use crate::error::ErrorKind;
use crate::expr::arith::{compare, ensure_comparable, values_equal};
use crate::expr::eval::{fail, show, show_kind, EResult, EvalError};
use crate::expr::matrix::{chain_order, matrix_from_rows, random_matrix};
use crate::expr::stuck::{blocked, deep, settle, stuck_in, top_of, tuple_need};
use crate::expr::tuple::{field, flatten, int_tuple, tuple_of, tuple_view, want_int};
use crate::span::Span;
use crate::term::{Arg, Atom, VarId};

/// An evaluated argument: a value or a range.
pub(super) enum ArgV {
    Val(Atom),
    Range(Atom, Atom),
}

/// Calls the function `name` on its evaluated arguments (LANGUAGE.md
/// §6.5): an argument that is stuck, or a symbolic value the function
/// needs, makes the call stuck; then the first failing argument fails it;
/// only then are the name and the number of arguments checked.
pub(super) fn call_with(name: &str, args: Vec<EResult<ArgV>>, span: Span) -> EResult<Atom> {
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
        Fun::MatrixChainOrder => chain_order(arg(0)?, span),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::testing::*;

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
}
