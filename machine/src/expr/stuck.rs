//! Stuck wins over failure (LANGUAGE.md §6.5) inside one expression: the
//! operands of an operation are settled (a stuck operand, then a symbolic
//! value the operation needs, decide before a failing operand), and the
//! helpers here find the symbolic value each kind of operation needs.

use crate::expr::eval::{EResult, EvalError};
use crate::expr::tuple::flatten;
use crate::term::{Arg, Atom, VarId};

/// The first stuck result among `rs`.
pub(super) fn stuck_in<'a, T: 'a>(rs: impl IntoIterator<Item = &'a EResult<T>>) -> Option<VarId> {
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
pub(super) fn settle<T>(rs: Vec<EResult<T>>, need: impl FnOnce(&[EResult<T>]) -> Option<VarId>) -> EResult<Vec<T>> {
    if let Some(v) = stuck_in(&rs).or_else(|| need(&rs)) {
        return Err(EvalError::Stuck(v));
    }
    rs.into_iter().collect()
}

/// The variable of an operand that is a symbolic value, which an operation
/// inspecting the operand needs.
pub(super) fn top(r: &EResult<Atom>) -> Option<VarId> {
    r.as_ref().ok().and_then(top_of)
}

/// The variable of a symbolic value.
pub(super) fn top_of(a: &Atom) -> Option<VarId> {
    match a {
        Atom::Var(v) => Some(*v),
        _ => None,
    }
}

/// The first symbolic value anywhere in a value that `==` would compare
/// (tuples, splices, records, maps; not inside functions).
pub(super) fn deep(a: &Atom) -> Option<VarId> {
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
pub(super) fn blocked(a: &Atom) -> Option<VarId> {
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
pub(super) fn tuple_need(a: &Atom, elem: &dyn Fn(&Atom) -> Option<VarId>) -> Option<VarId> {
    match a {
        Atom::Var(v) => Some(*v),
        Atom::Tuple(_) => blocked(a).or_else(|| known_elements(a).iter().find_map(elem)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;
    use crate::expr::testing::*;

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
}
