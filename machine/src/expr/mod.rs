//! The expression language of LANGUAGE.md §8: the pure, non-CPS expressions
//! written inside `"..."` strings.
//!
//! - [`ast`]: the syntax tree;
//! - [`parse`]: text of one expression string to [`Expr`];
//! - [`eval`]: evaluation of an expression whose variables have been replaced
//!   by values (what is left as a variable is symbolic);
//! - [`print`](mod@print): canonical printing, with values substituted and minimal
//!   parentheses.

pub mod ast;
pub mod eval;
pub mod parse;
pub mod print;

pub use ast::{BinOp, Expr, ExprKind, UnOp};
