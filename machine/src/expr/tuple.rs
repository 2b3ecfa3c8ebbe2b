//! Tuples, strings and records (LANGUAGE.md §6): views of tuples whose
//! concrete splices are expanded and whose symbolic splice blocks what
//! follows it, indexing `t[i]`, slicing `t[i..j]` and field access `x.f`.

use std::sync::Arc;

use crate::error::ErrorKind;
use crate::expr::eval::{fail, show, show_kind, EResult, EvalError};
use crate::span::Span;
use crate::term::{Arg, Atom, VarId};

/// Appends `args` to `out`, expanding splices of concrete tuples.
pub(super) fn flatten(args: &[Arg], out: &mut Vec<Arg>) {
    for arg in args {
        match arg {
            Arg::Splice(Atom::Tuple(inner)) => flatten(inner, out),
            a => out.push(a.clone()),
        }
    }
}

/// A concrete tuple: its elements (concrete tuple splices expanded), of which
/// the first `known` are plain; `blocked` is the symbolic splice after them.
pub(super) struct TupleView {
    pub(super) args: Vec<Arg>,
    pub(super) known: usize,
    pub(super) blocked: Option<VarId>,
}

/// The view of the tuple `a` (`what` names it in errors).
pub(super) fn tuple_view(a: &Atom, what: &str, span: Span) -> EResult<TupleView> {
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
    pub(super) fn beyond(&self, msg: String, span: Span) -> EvalError {
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
    pub(super) fn get(&self, i: i64, span: Span) -> EResult<Atom> {
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
    pub(super) fn range(&self, i: i64, j: i64, span: Span) -> EResult<(usize, usize)> {
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

/// A tuple of the elements `args`.
pub(super) fn tuple_of(args: Vec<Arg>) -> Atom {
    Atom::Tuple(args)
}

/// A tuple of integers.
pub(super) fn int_tuple(xs: &[i64]) -> Atom {
    Atom::Tuple(xs.iter().map(|x| Arg::Atom(Atom::Int(*x))).collect())
}

/// The integer `a` (`what` names it in errors).
pub(super) fn want_int(a: &Atom, what: &str, span: Span) -> EResult<i64> {
    match a {
        Atom::Int(n) => Ok(*n),
        Atom::Var(v) => Err(EvalError::Stuck(*v)),
        _ => fail(ErrorKind::Type, format!("{what} must be an integer, not {}", show_kind(a)), span),
    }
}

/// `t[i]` on a tuple or a string.
pub(super) fn index(t: &Atom, i: &Atom, span: Span) -> EResult<Atom> {
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

/// `t[lo..hi]` on a tuple or a string (an inclusive range).
pub(super) fn slice(t: &Atom, lo: &Atom, hi: &Atom, span: Span) -> EResult<Atom> {
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

/// `r.f` on a record.
pub(super) fn field(r: &Atom, f: &str, span: Span) -> EResult<Atom> {
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

/// The elements of a concrete tuple of integers.
pub(super) fn int_elements(a: &Atom, what: &str, span: Span) -> EResult<Vec<i64>> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::testing::*;

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
}
