//! The plain values a [`Kind::Lit`](super::node::Kind::Lit) node holds: a
//! number, boolean, string, staging constant, built-in or matrix, with no
//! variables or bodies inside.
//!
//! The reference term's [`Atom`] can hold all of these, but it is 32 bytes
//! (its tuple, record and map variants are `Vec`s), and every node slot of
//! the arena pays for the largest kind. [`Lit`] is at most 16 bytes: the
//! values the machine makes and copies all the time (numbers, booleans,
//! staging constants, built-ins) are inline and never allocate, a matrix is
//! its `Arc`, and a string, which is rare in the graph, is boxed.

use std::sync::Arc;

use crate::term::{Atom, Builtin, Matrix};

/// A plain value of the graph (see the module documentation).
#[derive(Clone, Debug, PartialEq)]
pub enum Lit {
    /// A 64-bit integer.
    Int(i64),
    /// A finite 64-bit float.
    Float(f64),
    /// `true` / `false`.
    Bool(bool),
    /// The staging constants `always` (true) and `never` (false).
    Stage(bool),
    /// A built-in function.
    Builtin(Builtin),
    /// A string, boxed: an `Arc<str>` is 16 bytes, which with the tag would
    /// not fit.
    Str(Box<Arc<str>>),
    /// A matrix.
    Matrix(Arc<Matrix>),
}

// Every node slot holds a `Kind`, whose largest variants are 24 bytes: a
// `Lit` must not be the one that makes it bigger.
const _: () = assert!(std::mem::size_of::<Lit>() <= 16);

impl Lit {
    /// Whether `a` is a plain value, that is, [`Lit::from_atom`] takes it
    /// (without making it).
    pub fn admits(a: &Atom) -> bool {
        matches!(
            a,
            Atom::Int(_) | Atom::Float(_) | Atom::Bool(_) | Atom::Str(_) | Atom::Stage(_) | Atom::Builtin(_) | Atom::Matrix(_)
        )
    }

    /// The plain value `a` is, or `None` if it is a variable, tuple,
    /// record, map, expression or lambda. (Taken by reference: `Atom` has
    /// an iterative `Drop`, so its parts cannot be moved out; the payloads
    /// are copies or `Arc`s.)
    pub fn from_atom(a: &Atom) -> Option<Lit> {
        Some(match a {
            Atom::Int(i) => Lit::Int(*i),
            Atom::Float(x) => Lit::Float(*x),
            Atom::Bool(b) => Lit::Bool(*b),
            Atom::Stage(b) => Lit::Stage(*b),
            Atom::Builtin(b) => Lit::Builtin(*b),
            Atom::Str(s) => Lit::Str(Box::new(s.clone())),
            Atom::Matrix(m) => Lit::Matrix(m.clone()),
            Atom::Var(_) | Atom::Tuple(_) | Atom::Record(_) | Atom::Map(_) | Atom::Expr(_) | Atom::Lambda(_) | Atom::Rec(_) => return None,
        })
    }

    /// The value as a term atom.
    pub fn to_atom(&self) -> Atom {
        match self {
            Lit::Int(i) => Atom::Int(*i),
            Lit::Float(x) => Atom::Float(*x),
            Lit::Bool(b) => Atom::Bool(*b),
            Lit::Stage(b) => Atom::Stage(*b),
            Lit::Builtin(b) => Atom::Builtin(*b),
            Lit::Str(s) => Atom::Str(Arc::clone(s)),
            Lit::Matrix(m) => Atom::Matrix(m.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_agrees_with_admits() {
        let plain = [
            Atom::Int(-7),
            Atom::Float(2.5),
            Atom::Bool(true),
            Atom::Stage(false),
            Atom::Builtin(Builtin::If),
            Atom::Str(Arc::from("hi")),
        ];
        for a in plain {
            assert!(Lit::admits(&a));
            let back = Lit::from_atom(&a).map(|l| l.to_atom());
            assert_eq!(format!("{back:?}"), format!("{:?}", Some(a)));
        }
        let other = [Atom::Var(crate::term::VarId(3)), Atom::Tuple(Vec::new()), Atom::Map(Vec::new())];
        for a in other {
            assert!(!Lit::admits(&a));
            assert!(Lit::from_atom(&a).is_none());
        }
    }
}
