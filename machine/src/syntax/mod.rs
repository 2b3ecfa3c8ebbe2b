//! The front end: source text to a resolved [`crate::term::Program`].
//!
//! [`lexer`] → [`parser`] (surface [`ast`]) → [`resolve`] (core terms), with
//! [`load`] following includes.

pub mod ast;
pub mod lexer;
pub mod load;
pub mod parser;
pub mod resolve;
pub mod suggest;

pub use load::{load_from, load_program, FileSystem, MemFs, RealFs};
