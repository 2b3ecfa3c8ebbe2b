//! The values of a fast run and the frames that hold them.
//!
//! Closures and tuples are reference-counted and tuples never change, so a
//! value is copied by bumping a count, where the graph copies the nodes. A
//! frame's slots are written by the run while it is in that frame, which
//! it alone holds then (every way to capture a frame in a closure moves the
//! run out of it); once the run has left a frame, nothing changes it, so a
//! closure over it sees what its body saw. Frames and tuples record how
//! deeply residuals nest in them, and a fast run refuses to nest residuals
//! deeper than [`MAX_DEPTH`] (the machine then steps on): the materializer
//! recurses through them. Closures and tuples nest without bound: the
//! materializer builds them deepest first, and dropping them is iterative
//! ([`Frame`]'s `Drop`).

use std::cell::{Cell, OnceCell};
use std::rc::Rc;

use smallvec::SmallVec;

use super::super::lit::Lit;
use super::super::node::{GVar, NodeId};
use super::res::{Hole, Residual};
use super::template::LamTemplate;
use crate::term::{Arg, Atom};

thread_local! {
    /// Frames and tuples alive on this thread, each counted with its slots
    /// or elements.
    static LIVE_VALUES: Cell<u64> = const { Cell::new(0) };
}

/// Frames and tuples alive on this thread, each counted with its slots or
/// elements: what fast runs hold outside the graph.
pub(super) fn live_values() -> u64 {
    LIVE_VALUES.with(Cell::get)
}

fn count_values(add: usize, sub: usize) {
    LIVE_VALUES.with(|n| n.set((n.get() + add as u64).saturating_sub(sub as u64)));
}

/// The deepest residuals nest in the values of a fast run, through what
/// each reaches (closures and tuples nest without bound).
pub(super) const MAX_DEPTH: u32 = 64;

/// The most nodes a tuple of a fast run stands for (each closure counted
/// as one). A big tuple is materialized once however many places hold it
/// (as a shared value), so this bounds only its own size.
pub(super) const MAX_SIZE: u32 = 1 << 22;

/// Tuples nested deeper than this are not made terms for the expression
/// evaluator ([`to_atom`] recurses).
const MAX_ATOM_DEPTH: u32 = 64;

/// A value.
pub(super) enum Value {
    /// A number, boolean, string, staging constant, built-in or matrix.
    Lit(Lit),
    /// A symbolic graph variable.
    Sym(GVar),
    /// The name of a recursive value of the graph, inside its lambda.
    RecName(GVar),
    /// A value an expression computed (over symbolic graph variables).
    Val(Rc<Atom>),
    /// A tuple.
    Tup(Rc<Tup>),
    /// A lambda and the frame it was made in, with how deeply residuals
    /// nest in what it reaches there ([`Value::closure`]).
    Clo(Rc<LamTemplate>, Rc<Frame>, u32),
    /// A recursive value: its lambda (whose last slot is its name) and the
    /// frame it was made in, with its depth as a closure's.
    Rec(Rc<LamTemplate>, Rc<Frame>, u32),
    /// A shared value of the graph.
    Shared(NodeId),
    /// A parameter of a lambda being reduced under (a sub-run's): symbolic
    /// until the residual is applied, which fills it.
    Hole(Rc<Hole>),
    /// A lambda whose body was reduced under it, with its parameters
    /// symbolic: a residual ([`Residual`]).
    Residual(Rc<Residual>),
}

impl Clone for Value {
    /// A number copied without a call (the common case), else a count
    /// bumped.
    #[inline(always)]
    fn clone(&self) -> Value {
        match self {
            Value::Lit(Lit::Int(i)) => Value::Lit(Lit::Int(*i)),
            _ => self.clone_slow(),
        }
    }
}

impl Value {
    #[inline(never)]
    fn clone_slow(&self) -> Value {
        match self {
            Value::Lit(l) => Value::Lit(l.clone()),
            Value::Sym(v) => Value::Sym(*v),
            Value::RecName(v) => Value::RecName(*v),
            Value::Val(a) => Value::Val(a.clone()),
            Value::Tup(t) => Value::Tup(t.clone()),
            Value::Clo(l, f, d) => Value::Clo(l.clone(), f.clone(), *d),
            Value::Rec(l, f, d) => Value::Rec(l.clone(), f.clone(), *d),
            Value::Shared(n) => Value::Shared(*n),
            Value::Hole(h) => Value::Hole(h.clone()),
            Value::Residual(r) => Value::Residual(r.clone()),
        }
    }

    /// The value it stands for: a filled hole's value (and so on, for a
    /// hole filled with a hole), else itself.
    #[inline(always)]
    pub(super) fn resolved(&self) -> &Value {
        let mut v = self;
        while let Value::Hole(h) = v {
            match h.value.get() {
                Some(x) => v = x,
                None => break,
            }
        }
        v
    }

    /// Whether it is symbolic: a graph variable or a hole not filled.
    pub(super) fn is_symbolic(&self) -> bool {
        matches!(self.resolved(), Value::Sym(_) | Value::Hole(_))
    }

    /// Drops `self`, without a call when it holds nothing to free (a
    /// number, a boolean, a staging constant, a variable, a node).
    #[inline(always)]
    pub(super) fn release(self) {
        match self {
            Value::Lit(Lit::Int(_) | Lit::Bool(_) | Lit::Stage(_) | Lit::Float(_) | Lit::Builtin(_))
            | Value::Sym(_)
            | Value::RecName(_)
            | Value::Shared(_) => std::mem::forget(self),
            v => drop(v),
        }
    }
}

impl Value {
    /// How deeply residuals nest in it (a residual counts itself).
    #[inline]
    pub(super) fn depth(&self) -> u32 {
        match self {
            Value::Tup(t) => t.depth,
            Value::Clo(_, _, d) | Value::Rec(_, _, d) => *d,
            Value::Residual(r) => r.depth,
            Value::Hole(h) => h.value.get().map_or(0, Value::depth),
            _ => 0,
        }
    }

    /// The depth of a closure of `l` made in `f`: that of the deepest
    /// value it reaches there (the slots `l` reads, [`LamTemplate::caps`]:
    /// the materializer walks those and no others).
    pub(super) fn closure_depth(l: &LamTemplate, f: &Rc<Frame>) -> u32 {
        l.caps
            .iter()
            .filter_map(|&(up, ix)| f.get(up, ix))
            .map(Value::depth)
            .max()
            .unwrap_or(0)
    }

    /// A closure of `l` made in `f`.
    pub(super) fn closure(l: Rc<LamTemplate>, f: Rc<Frame>) -> Value {
        let d = Value::closure_depth(&l, &f);
        Value::Clo(l, f, d)
    }

    /// A recursive value of `l` made in `f`.
    pub(super) fn rec(l: Rc<LamTemplate>, f: Rc<Frame>) -> Value {
        let d = Value::closure_depth(&l, &f);
        Value::Rec(l, f, d)
    }

    /// How many nodes it stands for, counting a closure as one.
    pub(super) fn size(&self) -> u32 {
        match self {
            Value::Tup(t) => t.size,
            _ => 1,
        }
    }

    /// The value of an atom an expression computed.
    pub(super) fn of_atom(a: Atom) -> Value {
        match a {
            Atom::Var(v) => Value::Sym(v),
            a => match Lit::from_atom(&a) {
                Some(l) => Value::Lit(l),
                None => Value::Val(Rc::new(a)),
            },
        }
    }

    /// Its value as a staging variable's (LANGUAGE.md §4).
    pub(super) fn truth(&self) -> bool {
        match self.resolved() {
            Value::Lit(Lit::Stage(b)) => *b,
            Value::Sym(_) | Value::Hole(_) => false,
            _ => true,
        }
    }
}

/// The slots of a frame: a loop's parameters, its own name and those of the
/// lambdas inlined in it fit inline. Each is written once per activation
/// (the parameters and own name when the frame is made or refilled, an
/// inlined lambda's when the body applying it runs); until then it is empty
/// or, in a frame a loop's call rewrote, holds the previous iteration's
/// value, which no template reads ([`Frame::rewrite`]).
pub(super) type Slots = SmallVec<[OnceCell<Value>; 8]>;

/// The slots of a frame holding `vals`, then `n` slots not written yet.
pub(super) fn slots(vals: impl IntoIterator<Item = Value>, n: usize) -> Slots {
    let mut s: Slots = vals.into_iter().map(OnceCell::from).collect();
    s.extend(std::iter::repeat_with(OnceCell::new).take(n.saturating_sub(s.len())));
    s
}

/// A tuple.
pub(super) struct Tup {
    /// The elements.
    pub xs: Vec<Value>,
    /// How deeply residuals nest in its elements: nested tuples add
    /// nothing (a list is as deep as its elements; the materializer walks
    /// nested tuples with a stack of its own).
    pub depth: u32,
    /// One more than the sizes of the elements.
    pub size: u32,
}

impl Tup {
    /// A tuple of `xs`, or `None` if it would nest deeper or be bigger than
    /// a fast run allows.
    pub(super) fn value(xs: Vec<Value>) -> Option<Value> {
        let depth = xs.iter().map(Value::depth).max().unwrap_or(0);
        let size = xs.iter().map(Value::size).fold(1u32, u32::saturating_add);
        if depth > MAX_DEPTH || size > MAX_SIZE {
            return None;
        }
        count_values(1 + xs.len(), 0);
        Some(Value::Tup(Rc::new(Tup { xs, depth, size })))
    }
}

/// The frame of one invocation: the slots of a lambda, and the frame the
/// lambda was made in.
pub(super) struct Frame {
    /// The enclosing frame.
    pub up: Option<Rc<Frame>>,
    /// The slots.
    pub vals: Slots,
    /// How deeply residuals nest in it and the frames around it
    /// (raised when a slot is written: a closure made before that cannot
    /// reach the slot, so what it reaches nests no deeper than it did).
    pub depth: Cell<u32>,
    /// The template this is the frame of (held, so that no other template
    /// takes its address), so that a call of the same lambda in the same
    /// environment (a loop's tail call) keeps what stays the same
    /// ([`Frame::rewrite`]).
    pub lam: Option<Rc<LamTemplate>>,
    /// For the frame of a lambda reduced under (not applied): the hole of
    /// its staging parameter, which is symbolic there, not `always`.
    pub sparam: Option<Rc<Hole>>,
    /// When it was made ([`super::res::next_seq`]): a residual copies the
    /// frames made while it was reduced.
    pub seq: u64,
}

impl Frame {
    /// A frame, or `None` if its values would nest too deeply.
    pub(super) fn new(up: Option<Rc<Frame>>, vals: Slots, lam: Option<Rc<LamTemplate>>) -> Option<Rc<Frame>> {
        let mut f = Frame {
            up: None,
            vals,
            depth: Cell::new(0),
            lam,
            sparam: None,
            seq: super::res::next_seq(),
        };
        f.up = up;
        if !f.close_depth() {
            return None;
        }
        count_values(1 + f.vals.len(), 0);
        #[cfg(test)]
        LIVE_FRAMES.with(|n| n.set(n.get() + 1));
        Some(Rc::new(f))
    }

    /// The frame of the lambda `lam` reduced under in `up`: `vals` (its
    /// parameters' holes), `n` slots in all, its staging parameter `sparam`.
    pub(super) fn reduced_under(up: Rc<Frame>, vals: Slots, lam: Rc<LamTemplate>, sparam: Rc<Hole>) -> Option<Rc<Frame>> {
        let mut f = Frame::new(Some(up), vals, Some(lam))?;
        Rc::get_mut(&mut f)?.sparam = Some(sparam);
        Some(f)
    }

    /// The frame `up` frames out.
    #[inline]
    pub(super) fn out(self: &Rc<Frame>, up: u32) -> Option<&Rc<Frame>> {
        let mut f = self;
        for _ in 0..up {
            f = f.up.as_ref()?;
        }
        Some(f)
    }

    /// The depth a frame of `vals` in `up` would have, if within the bound.
    pub(super) fn fits(vals: &[Value], up: Option<&Rc<Frame>>) -> Option<u32> {
        let depth = vals.iter().map(Value::depth).fold(up.map_or(0, |f| f.depth.get()), u32::max);
        (depth <= MAX_DEPTH).then_some(depth)
    }

    /// Makes this frame, which nothing else holds, the frame of a new call:
    /// `vals`, then `n` slots in all, in `up`, of depth `depth` (as
    /// [`Frame::fits`] found). What it held is dropped (a frame's drop is
    /// iterative).
    pub(super) fn refill(&mut self, lam: Rc<LamTemplate>, up: Option<Rc<Frame>>, vals: impl Iterator<Item = Value>, n: usize, depth: u32) {
        self.up = up;
        self.seq = super::res::next_seq();
        // Applied: its staging parameter is `always`.
        self.sparam = None;
        self.lam = Some(lam);
        if self.vals.len() != n {
            count_values(n, self.vals.len());
            self.vals.resize_with(n, OnceCell::new);
        }
        let mut filled = 0;
        for (c, v) in self.vals.iter_mut().zip(vals) {
            overwrite(c, v);
            filled += 1;
        }
        for c in &mut self.vals[filled..] {
            if let Some(old) = c.take() {
                old.release();
            }
        }
        debug_assert!(depth <= MAX_DEPTH, "a frame refilled past the depth bound");
        debug_assert!(self.vals.iter().filter_map(OnceCell::get).all(|v| v.depth() <= depth));
        self.depth.set(depth);
    }

    /// The same for a call of the lambda this is the frame of, in the
    /// environment it was made in: the parameters' slots take `vals`; a
    /// recursive lambda's own name stays, and so do the inlined lambdas'
    /// slots, *stale*: no template reads a slot before its lambda's
    /// applying body writes it ([`Frame::put`] overwrites it, the frame
    /// being held by the run alone).
    pub(super) fn rewrite(&mut self, vals: impl Iterator<Item = Value>, depth: u32) {
        self.seq = super::res::next_seq();
        self.sparam = None;
        for (c, v) in self.vals.iter_mut().zip(vals) {
            overwrite(c, v);
        }
        self.depth.set(self.depth.get().max(depth));
    }

    /// Writes `v` to slot `ix` of `frame` if the slot exists and the value
    /// would not nest too deeply; else gives `v` back. The frame the run is
    /// in is held by the run alone, and the slot is overwritten whatever it
    /// held (a stale value, see [`Frame::rewrite`]). A frame held elsewhere
    /// (which the run's invariants rule out: debug builds assert it) takes
    /// nothing, and the run stops.
    #[inline]
    pub(super) fn put(frame: &mut Rc<Frame>, ix: u32, v: Value) -> Result<(), Value> {
        let d = v.depth();
        debug_assert!(Rc::get_mut(frame).is_some(), "a slot written in a frame held elsewhere");
        if d > MAX_DEPTH {
            return Err(v);
        }
        match Rc::get_mut(frame) {
            Some(fm) => match fm.vals.get_mut(ix as usize) {
                Some(c) => {
                    overwrite(c, v);
                    fm.depth.set(fm.depth.get().max(d));
                    Ok(())
                }
                None => Err(v),
            },
            None => Err(v),
        }
    }

    /// Sets the depth from the slots and the enclosing frame; `false` past
    /// the bound.
    fn close_depth(&mut self) -> bool {
        let depth = self
            .vals
            .iter()
            .filter_map(OnceCell::get)
            .map(Value::depth)
            .max()
            .unwrap_or(0)
            .max(self.up.as_ref().map_or(0, |f| f.depth.get()));
        self.depth.set(depth);
        depth <= MAX_DEPTH
    }

    /// Slot `ix` of the frame `up` frames out (`None`: not written yet),
    /// a filled hole read as its value.
    #[inline(always)]
    pub(super) fn get(self: &Rc<Frame>, up: u32, ix: u32) -> Option<&Value> {
        let mut f = self;
        for _ in 0..up {
            f = f.up.as_ref()?;
        }
        f.vals.get(ix as usize)?.get().map(Value::resolved)
    }
}

/// What a dropped value still holds: dropped one at a time from a list, so
/// a long chain of frames (a continuation that captures the one before, as
/// a non-tail loop builds) does not recurse.
enum Held {
    F(Rc<Frame>),
    T(Rc<Tup>),
}

/// The list of what a drop still holds: a few inline, so a drop that
/// frees no long chain does not allocate.
type HeldList = SmallVec<[Held; 8]>;

/// Whether dropping `v` frees a frame or tuple (which may hold more).
fn frees(v: &Value) -> bool {
    match v {
        Value::Clo(_, f, _) | Value::Rec(_, f, _) => Rc::strong_count(f) == 1,
        Value::Tup(t) => Rc::strong_count(t) == 1,
        _ => false,
    }
}

fn hold(v: Value, out: &mut HeldList) {
    match v {
        Value::Clo(_, f, _) | Value::Rec(_, f, _) => out.push(Held::F(f)),
        Value::Tup(t) => out.push(Held::T(t)),
        _ => {}
    }
}

fn take_frame(f: &mut Frame, out: &mut HeldList) {
    // Its slots go here; its own drop counts the frame alone.
    count_values(0, f.vals.len());
    if let Some(u) = f.up.take() {
        out.push(Held::F(u));
    }
    for c in f.vals.drain(..) {
        if let Some(v) = c.into_inner() {
            hold(v, out);
        }
    }
}

fn drain(mut out: HeldList) {
    while let Some(h) = out.pop() {
        match h {
            Held::F(f) => {
                if let Ok(mut f) = Rc::try_unwrap(f) {
                    take_frame(&mut f, &mut out);
                }
            }
            Held::T(t) => {
                if let Ok(mut t) = Rc::try_unwrap(t) {
                    count_values(0, t.xs.len());
                    for v in t.xs.drain(..) {
                        hold(v, &mut out);
                    }
                }
            }
        }
    }
}

/// Writes `v` to the slot `c` whatever it held.
#[inline(always)]
fn overwrite(c: &mut OnceCell<Value>, v: Value) {
    match c.get_mut() {
        Some(slot) => std::mem::replace(slot, v).release(),
        None => {
            let _ = c.set(v);
        }
    }
}

#[cfg(test)]
thread_local! {
    /// Frames made by [`Frame::new`] and not dropped, on this thread: a
    /// cycle of counts would leave some.
    pub(super) static LIVE_FRAMES: Cell<i64> = const { Cell::new(0) };
}

impl Drop for Frame {
    fn drop(&mut self) {
        count_values(0, 1 + self.vals.len());
        #[cfg(test)]
        LIVE_FRAMES.with(|n| n.set(n.get() - 1));
        // A frame that alone holds nothing that holds more (its `up` shared
        // or none, its slots plain or shared) drops its fields as they are:
        // only counts go down. Most do, and so do the frames emptied below.
        if self.up.as_ref().is_none_or(|u| Rc::strong_count(u) != 1) && !self.vals.iter().filter_map(OnceCell::get).any(frees) {
            return;
        }
        // The chain of frames this one alone holds (a loop's frames, each
        // the `up` of the next) is emptied in place, one after the other;
        // what their slots alone hold goes on the list.
        let mut out = HeldList::new();
        take_unique(&mut self.vals, &mut out);
        let mut next = self.up.take();
        while let Some(mut rc) = next {
            next = None;
            if let Some(f) = Rc::get_mut(&mut rc) {
                next = f.up.take();
                take_unique(&mut f.vals, &mut out);
            }
            // `rc` goes here: counted down, or freed with nothing left in it.
        }
        if !out.is_empty() {
            drain(out);
        }
    }
}

/// Moves the values of `vals` whose drop would free a frame or tuple to
/// `out`.
fn take_unique(vals: &mut Slots, out: &mut HeldList) {
    for v in vals.iter_mut().filter_map(OnceCell::get_mut) {
        if frees(v) {
            hold(std::mem::replace(v, Value::Lit(Lit::Bool(false))), out);
        }
    }
}

impl Drop for Tup {
    fn drop(&mut self) {
        count_values(0, 1 + self.xs.len());
        if !self.xs.iter().any(frees) {
            return;
        }
        let mut out = HeldList::new();
        for v in self.xs.drain(..) {
            hold(v, &mut out);
        }
        if !out.is_empty() {
            drain(out);
        }
    }
}

/// The atom of a value, for an expression's operand (`None`: a closure,
/// which an expression cannot hold without its graph).
pub(super) fn to_atom(v: &Value, shared: &dyn Fn(NodeId) -> Atom) -> Option<Atom> {
    to_atom_at(v, shared, 0)
}

fn to_atom_at(v: &Value, shared: &dyn Fn(NodeId) -> Atom, depth: u32) -> Option<Atom> {
    crate::memory::tick();
    Some(match v {
        Value::Lit(l) => l.to_atom(),
        Value::Sym(x) | Value::RecName(x) => Atom::Var(*x),
        Value::Val(a) => (**a).clone(),
        Value::Tup(t) => {
            if depth >= MAX_ATOM_DEPTH {
                return None;
            }
            let mut xs = Vec::with_capacity(t.xs.len());
            for x in &t.xs {
                xs.push(Arg::Atom(to_atom_at(x, shared, depth + 1)?));
            }
            Atom::Tuple(xs)
        }
        Value::Shared(n) => shared(*n),
        Value::Hole(h) => return to_atom_at(h.value.get()?, shared, depth),
        Value::Clo(..) | Value::Rec(..) | Value::Residual(..) => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A template that does nothing but read the slots `caps` around it.
    fn a_lambda(caps: &[(u32, u32)]) -> Rc<LamTemplate> {
        Rc::new(LamTemplate {
            origins: Box::new([]),
            k: 0,
            rest: None,
            inline_at: None,
            nslots: 0,
            body: super::super::template::tests_support::empty_body(),
            span: Default::default(),
            watch: None,
            caps: caps.into(),
        })
    }

    #[test]
    fn a_long_chain_of_frames_drops_without_recursing() {
        // 10^6 frames, each holding the previous through a tuple (the depth
        // bound is for the materializer; this builds the chain by hand).
        let lam = a_lambda(&[]);
        let mut f = Rc::new(Frame {
            up: None,
            vals: SmallVec::new(),
            depth: Cell::new(0),
            lam: None,
            sparam: None,
            seq: 0,
        });
        for i in 0..1_000_000 {
            let t = Rc::new(Tup {
                xs: vec![Value::Lit(Lit::Int(i)), Value::Clo(lam.clone(), f, 1)],
                depth: 0,
                size: 0,
            });
            f = Rc::new(Frame {
                up: None,
                vals: slots([Value::Tup(t)], 1),
                depth: Cell::new(0),
                lam: None,
                sparam: None,
                seq: 0,
            });
        }
        drop(f);
    }

    /// A residual as deep as `depth` says, standing at nothing.
    fn a_residual(depth: u32) -> Value {
        let at = super::super::Suspended {
            cur: super::super::Current::Call(Value::Lit(Lit::Int(0)), Default::default()),
            overrides: super::super::Overrides::new(),
        };
        Value::Residual(Rc::new(Residual::new(
            a_lambda(&[]),
            depth,
            SmallVec::new(),
            None,
            SmallVec::new(),
            at,
        )))
    }

    #[test]
    fn lists_and_closures_nest_freely_and_residuals_refuse_to_nest_too_deeply() {
        // A list of 10^5 cells is as deep as its elements, and drops
        // without recursing.
        let mut list = Value::Lit(Lit::Int(0));
        for i in 0..100_000 {
            list = Tup::value(vec![Value::Lit(Lit::Int(i)), list]).expect("a list nests freely");
        }
        assert_eq!(list.depth(), 0);
        drop(list);
        // So does a chain of 10^5 closures, each reading the slot that
        // holds the one before (a non-tail recursion's continuations).
        let reads = a_lambda(&[(0, 0)]);
        let mut v = Value::Lit(Lit::Int(0));
        for _ in 0..100_000 {
            let f = Frame::new(None, slots([v], 1), None).expect("closures nest freely");
            v = Value::closure(reads.clone(), f);
        }
        assert_eq!(v.depth(), 0);
        drop(v);
        // A closure is as deep as the residuals it reads...
        let f = Frame::new(None, slots([a_residual(MAX_DEPTH)], 1), None).expect("a frame as deep as its slots");
        assert_eq!(Value::closure(reads, f.clone()).depth(), MAX_DEPTH);
        // ...and no deeper than that when it reads none.
        assert_eq!(Value::closure(a_lambda(&[]), f).depth(), 0);
        // Past the bound, a frame is refused.
        assert!(Frame::new(None, slots([a_residual(MAX_DEPTH + 1)], 1), None).is_none());
        let wide: Vec<Value> = (0..MAX_SIZE).map(|i| Value::Lit(Lit::Int(i64::from(i)))).collect();
        assert!(Tup::value(wide).is_none());
    }
}
