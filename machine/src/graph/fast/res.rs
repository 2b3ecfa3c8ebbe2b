//! Residuals: lambdas a fast run reduced under, with their parameters
//! symbolic, as the reference order has it (a body staged on a value that
//! is known when the lambda is made runs before the lambda is applied).
//!
//! A parameter of a lambda reduced under is a [`Hole`], a cell every value
//! holding it shares; the reduction stops at a body that is blocked (stuck
//! on a hole or a graph variable, or inactive), and the residual ([`Residual`])
//! keeps that body and its frames. A β of the residual fills the holes and
//! makes that body current. When nothing else can apply the residual again
//! it is applied in place (its state taken, so the shell left in a dead
//! slot holds nothing); otherwise the frames made while it was reduced are
//! copied first, with holes of their own ([`copy_state`]). Frames and
//! holes are numbered as they are made ([`next_seq`]) so that a residual
//! knows which frames are its own: those made while it was reduced (one
//! span of numbers, and one more each time a body of it that a filled
//! hole woke is reduced further, [`Seqs`]). A copy numbers its frames and
//! holes afresh, span by span at the same offsets, so that they belong to
//! the reduction in progress that made the copy and its residuals keep
//! spans of their own.

use std::cell::{Cell, OnceCell};
use std::rc::Rc;

use smallvec::SmallVec;

use super::template::LamTemplate;
use super::val::{Frame, Slots, Tup, Value};
use super::{Overrides, Suspended};
use crate::term::VarId;

thread_local! {
    /// The number of the next frame or hole made on this thread.
    static SEQ: Cell<u64> = const { Cell::new(1) };
}

/// A number for a frame or hole being made: increasing on each thread.
pub(super) fn next_seq() -> u64 {
    SEQ.with(|s| {
        let n = s.get();
        s.set(n + 1);
        n
    })
}

/// The number the next frame or hole will get.
pub(super) fn peek_seq() -> u64 {
    SEQ.with(Cell::get)
}

/// Takes `n` numbers at once: the first of them.
fn take_seqs(n: u64) -> u64 {
    SEQ.with(|s| {
        let first = s.get();
        s.set(first + n);
        first
    })
}

/// The spans of numbers of the frames and holes a residual made, each
/// `(first, end)`, in the order they were made.
pub(super) type Seqs = SmallVec<[(u64, u64); 1]>;

/// A parameter (or staging parameter) of a lambda reduced under: symbolic
/// until the residual is applied, which fills it.
pub(super) struct Hole {
    /// The value it was filled with.
    pub value: OnceCell<Value>,
    /// The source variable, for the binder a materialized residual makes.
    pub origin: VarId,
    /// Whether a body of a closure made while it was symbolic is staged on
    /// it: filling it would leave that body unlooked at, so a run does not
    /// apply the residual (the graph machine does).
    pub watched: Cell<bool>,
    /// When it was made.
    pub seq: u64,
}

impl Hole {
    /// The hole not filled that this one stands for: itself, or the hole
    /// it was filled with (a symbolic argument), followed; `None` once it
    /// is filled with anything else.
    pub(super) fn unfilled(self: &Rc<Hole>) -> Option<&Rc<Hole>> {
        match self.value.get().map(Value::resolved) {
            None => Some(self),
            Some(Value::Hole(h)) => Some(h),
            Some(_) => None,
        }
    }

    pub(super) fn new(origin: VarId) -> Rc<Hole> {
        Rc::new(Hole {
            value: OnceCell::new(),
            origin,
            watched: Cell::new(false),
            seq: next_seq(),
        })
    }
}

/// A lambda reduced under.
pub(super) struct Residual {
    /// Its template (binders, parameters, source).
    pub lam: Rc<LamTemplate>,
    /// How deeply residuals nest in it, itself included.
    pub depth: u32,
    /// The numbers of the frames and holes made while it was reduced.
    pub seq: Seqs,
    /// Its holes and the body it was left at; taken when it is applied in
    /// place.
    pub state: Cell<Option<Box<ResidualState>>>,
}

/// What a residual holds until it is applied.
pub(super) struct ResidualState {
    /// Its holes: the staging parameter's, then the parameters'.
    pub holes: SmallVec<[Rc<Hole>; 4]>,
    /// The holes of enclosing reductions that a body in it may wait on
    /// (those its own holes aside), or `None` when that is not known:
    /// only filling one of them can wake a body in it while it stands
    /// for an atom ([`super::Run::wakes`]), and it watches them once it
    /// is a value ([`super::Run::watch_escaping`]).
    pub outer: Option<SmallVec<[Rc<Hole>; 2]>>,
    /// The body its reduction was left at.
    pub at: Suspended,
}

/// The deepest a copy of a residual's frames recurses.
const MAX_COPY_DEPTH: u32 = 512;

/// A copy of a residual's state in which the frames, holes and residuals
/// made while it was reduced (numbered in `seq`) are fresh, so that filling
/// the copy's holes leaves the original as it was. `None`: too deep, or a
/// tuple past the bounds.
pub(super) fn copy_state(st: &ResidualState, seq: &Seqs) -> Option<ResidualState> {
    let mut c = Copier {
        spans: seq.iter().map(|&(a, b)| (a, b, take_seqs(b - a))).collect(),
        frames: SmallVec::new(),
        holes: SmallVec::new(),
        depth: 0,
    };
    c.state(st)
}

/// The copies made so far, by the address of their original: a residual
/// owns a few frames and holes, so a list scanned beats a map.
type Made<T> = SmallVec<[(usize, Rc<T>); 8]>;

/// The most frames and holes a copy makes: past it, the run stops (the
/// graph copies the residual).
const MAX_COPIED: usize = 256;

struct Copier {
    /// The spans copied, each `(first, end, first number of the copy)`.
    spans: SmallVec<[(u64, u64, u64); 2]>,
    frames: Made<Frame>,
    holes: Made<Hole>,
    depth: u32,
}

fn find<T>(made: &Made<T>, key: usize) -> Option<Rc<T>> {
    made.iter().find(|(k, _)| *k == key).map(|(_, v)| v.clone())
}

impl Copier {
    fn inside(&self, seq: u64) -> bool {
        self.renumber(seq).is_some()
    }

    /// The number of the copy of what was numbered `seq`, if it is copied.
    fn renumber(&self, seq: u64) -> Option<u64> {
        self.spans
            .iter()
            .find(|&&(a, b, _)| seq >= a && seq < b)
            .map(|&(a, _, to)| to + (seq - a))
    }

    fn hole(&mut self, h: &Rc<Hole>) -> Rc<Hole> {
        if !self.inside(h.seq) || h.value.get().is_some() {
            return h.clone();
        }
        let key = Rc::as_ptr(h) as usize;
        if let Some(n) = find(&self.holes, key) {
            return n;
        }
        let n = Rc::new(Hole {
            value: OnceCell::new(),
            origin: h.origin,
            watched: Cell::new(h.watched.get()),
            seq: self.renumber(h.seq).unwrap_or(h.seq),
        });
        self.holes.push((key, n.clone()));
        n
    }

    fn deeper<T>(&mut self, f: impl FnOnce(&mut Self) -> Option<T>) -> Option<T> {
        if self.depth >= MAX_COPY_DEPTH {
            return None;
        }
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        r
    }

    fn frame(&mut self, f: &Rc<Frame>) -> Option<Rc<Frame>> {
        if !self.inside(f.seq) {
            return Some(f.clone());
        }
        let key = Rc::as_ptr(f) as usize;
        if let Some(n) = find(&self.frames, key) {
            return Some(n);
        }
        if self.frames.len() + self.holes.len() >= MAX_COPIED {
            return None;
        }
        self.deeper(|c| {
            let up = match &f.up {
                Some(u) => Some(c.frame(u)?),
                None => None,
            };
            let mut vals = Slots::new();
            for cell in &f.vals {
                let v = match cell.get() {
                    Some(v) => OnceCell::from(c.value(v)?),
                    None => OnceCell::new(),
                };
                vals.push(v);
            }
            let mut n = Frame::new(up, vals, f.lam.clone())?;
            let nm = Rc::get_mut(&mut n)?;
            // At the original's offset: a residual made while the
            // original was reduced owns the copy's as it owned that.
            nm.seq = c.renumber(f.seq).unwrap_or(f.seq);
            if let Some(s) = &f.sparam {
                nm.sparam = Some(c.hole(s));
            }
            c.frames.push((key, n.clone()));
            Some(n)
        })
    }

    fn value(&mut self, v: &Value) -> Option<Value> {
        Some(match v {
            Value::Hole(h) => match h.value.get() {
                Some(x) => self.value(x)?,
                None => Value::Hole(self.hole(h)),
            },
            Value::Clo(l, f, d) => Value::Clo(l.clone(), self.frame(f)?, *d),
            Value::Rec(l, f, d) => Value::Rec(l.clone(), self.frame(f)?, *d),
            Value::Tup(t) => {
                let xs = self.deeper(|c| t.xs.iter().map(|x| c.value(x)).collect::<Option<Vec<Value>>>())?;
                Tup::value(xs)?
            }
            Value::Residual(r) if r.seq.first().is_some_and(|&(a, _)| self.inside(a)) => {
                let Some(st) = r.state.take() else {
                    // Applied already: a shell in a dead slot.
                    return Some(v.clone());
                };
                let copy = self.deeper(|c| c.state(&st));
                r.state.set(Some(st));
                let seq = r
                    .seq
                    .iter()
                    .map(|&(a, b)| match self.renumber(a) {
                        Some(to) => (to, to + (b - a)),
                        None => (a, b),
                    })
                    .collect();
                Value::Residual(Rc::new(Residual {
                    lam: r.lam.clone(),
                    depth: r.depth,
                    seq,
                    state: Cell::new(Some(Box::new(copy?))),
                }))
            }
            other => other.clone(),
        })
    }

    fn state(&mut self, st: &ResidualState) -> Option<ResidualState> {
        let holes = st.holes.iter().map(|h| self.hole(h)).collect();
        let outer = st.outer.as_ref().map(|o| o.iter().map(|h| self.hole(h)).collect());
        let at = self.suspended(&st.at)?;
        Some(ResidualState { holes, outer, at })
    }

    fn suspended(&mut self, s: &Suspended) -> Option<Suspended> {
        let cur = match &s.cur {
            super::Current::Body(l, f, enter) => super::Current::Body(l.clone(), self.frame(f)?, *enter),
            super::Current::Call(v, span) => super::Current::Call(self.value(v)?, *span),
        };
        let mut overrides = Overrides::new();
        for (i, v) in &s.overrides {
            overrides.push((*i, self.value(v)?));
        }
        Some(Suspended { cur, overrides })
    }
}

impl Residual {
    /// A residual of `lam`, reduced while the numbers in `seq` were
    /// given out.
    pub(super) fn new(
        lam: Rc<LamTemplate>,
        depth: u32,
        seq: Seqs,
        outer: Option<SmallVec<[Rc<Hole>; 2]>>,
        holes: SmallVec<[Rc<Hole>; 4]>,
        at: Suspended,
    ) -> Residual {
        Residual {
            lam,
            depth,
            seq,
            state: Cell::new(Some(Box::new(ResidualState { holes, outer, at }))),
        }
    }
}
