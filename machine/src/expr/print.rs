//! Canonical printing of expressions and of values in expression syntax.

use crate::expr::Expr;
use crate::term::{Atom, VarId};

/// Prints `e` with minimal parentheses; `name` gives the printed name of a
/// (symbolic) variable.
pub fn print_expr(e: &Expr, name: &dyn Fn(VarId) -> String) -> String {
    let _ = (e, name);
    todo!("expression printer")
}

/// Prints the value `a` in expression syntax (`'x'`, `{dim: [2, 3], data: M}`,
/// `map().insert('a', 5)`, `matrix([[1, 2], [3, 4]])`).
pub fn print_value(a: &Atom, name: &dyn Fn(VarId) -> String) -> String {
    let _ = (a, name);
    todo!("value printer")
}
