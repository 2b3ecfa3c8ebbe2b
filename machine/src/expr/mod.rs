//! The expression language of LANGUAGE.md §6: the pure, non-CPS expressions
//! written inside `"..."` strings.
//!
//! - [`ast`]: the syntax tree;
//! - [`parse`]: text of one expression string to [`Expr`], split into tokens
//!   by the private module `lexer` (built with logos);
//! - [`eval`]: evaluation of an expression whose variables have been replaced
//!   by values (what is left as a variable is symbolic), built on the private
//!   modules `stuck` (which symbolic value an operation needs: stuck wins
//!   over failure), `arith` (operators, equality and ordering), `tuple`
//!   (tuples, strings and records), `builtins` (the functions) and `matrix`
//!   (matrices and `matrix_chain_order`);
//! - [`print`](mod@print): canonical printing, with values substituted and minimal
//!   parentheses.

pub mod ast;
pub mod eval;
pub mod parse;
pub mod print;
pub mod scalar;

mod arith;
mod builtins;
mod lexer;
mod matrix;
mod stuck;
#[cfg(test)]
mod testing;
mod tuple;

pub use ast::{BinOp, Expr, ExprKind, UnOp};
