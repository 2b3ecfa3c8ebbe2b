//! How far the run of an input's action calls has got, read off the term:
//! the generated program calls its actions one line after the other, each
//! line's body kept (inside the continuation the previous action holds)
//! until it runs. So the first line whose body is still in the term is the
//! next action to be called, and the one before it the action being run.

use crate::lang::emit::Origins;
use crate::term::{Arg, Atom, Body, Cmd};

impl Origins {
    /// The index (into [`Origins::lines`]) of the first action call whose
    /// line is still in `term`, `None` when every call has run.
    pub fn next_call(&self, term: &Body) -> Option<usize> {
        let mut first: Option<usize> = None;
        let mut bodies: Vec<&Body> = vec![term];
        let mut atoms: Vec<&Atom> = Vec::new();
        loop {
            if let Some(b) = bodies.pop() {
                if b.span.file == self.generated {
                    let i = self.lines.partition_point(|o| o.start <= b.span.start);
                    if let Some(i) = i.checked_sub(1) {
                        if self.lines[i].start == b.span.start {
                            first = Some(first.map_or(i, |f| f.min(i)));
                        }
                    }
                }
                match &b.cmd {
                    Cmd::App(a) => {
                        atoms.push(&a.head);
                        atoms.extend(a.args.iter().map(Arg::atom));
                    }
                    Cmd::Fix(f) => {
                        bodies.push(&f.lam.body);
                        bodies.push(&f.body);
                    }
                }
            } else if let Some(a) = atoms.pop() {
                match a {
                    Atom::Lambda(l) => bodies.push(&l.body),
                    Atom::Rec(r) => bodies.push(&r.lam.body),
                    Atom::Tuple(args) => atoms.extend(args.iter().map(Arg::atom)),
                    Atom::Record(fields) => atoms.extend(fields.iter().map(|(_, v)| v)),
                    Atom::Map(pairs) => atoms.extend(pairs.iter().flat_map(|(k, v)| [k, v])),
                    _ => {}
                }
            } else {
                return first;
            }
        }
    }

    /// The action call being run in `term`: the one before the first
    /// still to run (the last when all have run); `None` before the first.
    pub fn current_call(&self, term: &Body) -> Option<usize> {
        match self.next_call(term) {
            Some(i) => i.checked_sub(1),
            None => self.lines.len().checked_sub(1),
        }
    }
}
