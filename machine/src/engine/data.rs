//! Walks over the atoms of a data value (records, maps, tuples inside
//! them): the variables and lambda handles a data node holds.

use super::store::{handle_of, SlotId, Val};
use crate::term::{Arg, Atom};

/// Calls `f` on each value data atom `a` holds, in [`walk`] order: an
/// occurrence of a slot for each variable, the node of each lambda handle.
pub fn values(a: &Atom, f: &mut dyn FnMut(Val)) {
    walk(a, &mut |x| {
        if let Atom::Var(v) = x {
            f(Val::Var(SlotId(v.0)));
        } else if let Some(h) = handle_of(x) {
            f(Val::Node(h));
        }
    });
}

/// Calls `f` on `a` and on every atom nested in it (tuple elements, record
/// fields, map keys and values), parents first.
pub fn walk_mut(a: &mut Atom, f: &mut dyn FnMut(&mut Atom)) {
    let mut stack: Vec<&mut Atom> = vec![a];
    while let Some(x) = stack.pop() {
        f(x);
        match x {
            Atom::Tuple(xs) => stack.extend(xs.iter_mut().map(|e| match e {
                Arg::Atom(y) | Arg::Splice(y) => y,
            })),
            Atom::Record(fs) => stack.extend(fs.iter_mut().map(|(_, y)| y)),
            Atom::Map(kvs) => {
                for (k, v) in kvs.iter_mut() {
                    stack.push(k);
                    stack.push(v);
                }
            }
            _ => {}
        }
    }
}

/// Calls `f` on `a` and on every atom nested in it, parents first.
pub fn walk(a: &Atom, f: &mut dyn FnMut(&Atom)) {
    let mut stack: Vec<&Atom> = vec![a];
    while let Some(x) = stack.pop() {
        f(x);
        match x {
            Atom::Tuple(xs) => stack.extend(xs.iter().map(|e| e.atom())),
            Atom::Record(fs) => stack.extend(fs.iter().map(|(_, y)| y)),
            Atom::Map(kvs) => {
                for (k, v) in kvs {
                    stack.push(k);
                    stack.push(v);
                }
            }
            _ => {}
        }
    }
}
