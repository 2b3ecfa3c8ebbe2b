//! The engine's store: nodes in one flat arena addressed by [`NodeId`],
//! variables as substitution slots addressed by [`SlotId`], both with free
//! lists.
//!
//! A node has one owner: the node whose field holds it (its `parent`), a
//! slot whose value it is, or nobody (the root). Values reach several
//! places only through a slot: every [`Val::Var`] naming the slot is an
//! *occurrence* and reads the slot's value, so binding a variable writes
//! one slot and rewrites nothing else.

use std::sync::Arc;

use super::arena::Chunked;

use crate::expr::Expr;
use crate::term::{Atom, Builtin, SExp, VarId};

/// A node of the arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

impl NodeId {
    /// No node.
    pub const NONE: NodeId = NodeId(u32::MAX);

    pub(crate) fn ix(self) -> usize {
        self.0 as usize
    }
}

/// A variable slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SlotId(pub u32);

impl SlotId {
    /// No slot (the end of a slot list).
    pub const NONE: SlotId = SlotId(u32::MAX);

    pub(crate) fn ix(self) -> usize {
        self.0 as usize
    }
}

/// An integer kept as two 32-bit halves: aligned to 4, it keeps a [`Val`]
/// at 12 bytes, and with it every slot and field that holds one.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Int([u32; 2]);

impl Int {
    /// The integer `i`.
    pub const fn new(i: i64) -> Int {
        let u = i as u64;
        Int([u as u32, (u >> 32) as u32])
    }

    /// Its value.
    pub const fn get(self) -> i64 {
        ((self.0[1] as u64) << 32 | self.0[0] as u64) as i64
    }
}

impl std::fmt::Debug for Int {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.get())
    }
}

/// What stands in a field of a node or in a slot: an occurrence of a
/// variable, a node it owns, or a small value kept inline.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Val {
    /// An occurrence of a variable: reads the slot.
    Var(SlotId),
    /// A node owned by the field (a lambda, a recursive lambda, a tuple, a
    /// splice, an expression or a data value).
    Node(NodeId),
    /// An integer.
    Int(Int),
    /// A boolean.
    Bool(bool),
    /// `always` or `never`.
    Stage(bool),
    /// `if` or `$exit`.
    Builtin(Builtin),
}

impl Val {
    /// What a field holds before it is filled (or after its value was
    /// taken): the integer 0, which owns nothing.
    pub const EMPTY: Val = Val::Int(Int::new(0));

    /// The integer `i`.
    pub const fn int(i: i64) -> Val {
        Val::Int(Int::new(i))
    }
}

/// A staging expression over slots.
#[derive(Clone, Debug)]
pub enum Stage {
    /// `always` or `never`.
    Const(bool),
    /// A variable.
    Var(SlotId),
    /// Anything else: a tree whose variables are slot numbers.
    Tree(Box<SExp>),
}

impl Stage {
    /// Calls `f` on the slots it mentions, in reading order (a constant
    /// or one variable, the common stages, without a walk).
    pub fn for_each_var(&self, mut f: impl FnMut(SlotId)) {
        match self {
            Stage::Const(_) => {}
            Stage::Var(x) => f(*x),
            Stage::Tree(t) => {
                crate::term::any_stage_var(t, |v| {
                    f(SlotId(v.0));
                    false
                });
            }
        }
    }

    /// The slots it mentions, in reading order.
    pub fn vars(&self) -> smallvec::SmallVec<[SlotId; 2]> {
        let mut out = smallvec::SmallVec::new();
        self.for_each_var(|x| out.push(x));
        out
    }
}

/// Where a body stands in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Not looked at yet.
    New,
    /// Its staging expression is false.
    Inactive,
    /// Active and waiting on a symbolic variable.
    Stuck,
    /// Active and not stuck: it is on the worklist.
    Pending,
}

/// A body's arguments: inline up to three (the common case: no
/// allocation of their own), else on the heap.
pub type ArgList = smallvec::SmallVec<[Val; 3]>;

/// `len` empty fields ([`Val::EMPTY`]) in `buf`'s kind of list: inline
/// ones are made in one write, not pushed one at a time.
fn empty_fields<A: smallvec::Array<Item = Val>>(buf: A, len: usize) -> smallvec::SmallVec<A> {
    if len <= A::size() {
        smallvec::SmallVec::from_buf_and_len(buf, len)
    } else {
        smallvec::SmallVec::from_vec(vec![Val::EMPTY; len])
    }
}

/// An argument list of `len` empty fields.
pub fn empty_args(len: usize) -> ArgList {
    empty_fields([Val::EMPTY; 3], len)
}

/// An operand list of `len` empty fields.
pub fn empty_holes(len: usize) -> HoleList {
    empty_fields([Val::EMPTY; 2], len)
}

/// A lambda's parameters, inline up to four.
pub type ParamList = smallvec::SmallVec<[SlotId; 4]>;

/// An expression's operands, inline up to two.
pub type HoleList = smallvec::SmallVec<[Val; 2]>;

/// An application body `⟨stage, head args..⟩` or a `fix` body.
#[derive(Clone, Debug)]
pub struct BodyN {
    /// Its staging expression.
    pub stage: Stage,
    /// What it does.
    pub cmd: CmdN,
    /// The source body it copies (an index into the engine's spans).
    pub site: u32,
    /// Bumped whenever the body executes or is freed: a worklist or waiter
    /// entry with another generation is stale.
    pub gen: u32,
    /// Its status.
    pub status: Status,
}

/// The command of a body.
#[derive(Clone, Debug)]
pub enum CmdN {
    /// `head args..`.
    App {
        /// The function.
        head: Val,
        /// The arguments (a splice is a [`Kind::Splice`] node).
        args: ArgList,
    },
    /// `fix [sparam] name = lam in body`.
    Fix {
        /// The staging parameter of the implicit lambda around `body`.
        sparam: SlotId,
        /// The recursive name (bound in `lam` and in `body`).
        name: SlotId,
        /// The recursive lambda (a [`Kind::Lam`] node).
        lam: NodeId,
        /// The scope (a [`Kind::Body`] node).
        body: NodeId,
    },
}

/// A lambda `λ[sparam] params . body`.
#[derive(Clone, Debug)]
pub struct LamN {
    /// The staging parameter.
    pub sparam: SlotId,
    /// The parameters.
    pub params: ParamList,
    /// The position of the rest parameter, if any.
    pub rest: Option<u32>,
    /// The body (a [`Kind::Body`] node).
    pub body: NodeId,
    /// The source lambda (an index into the engine's spans).
    pub site: u32,
    /// The first of the slots bound in place inside this lambda (a list
    /// through [`Slot::next_local`]): binders with no lambda left, which a
    /// copy of this lambda must copy as it copies its parameters.
    pub locals: SlotId,
    /// The last slot of that list (so that lists join in constant time).
    pub locals_tail: SlotId,
    /// Its template in the engine's (`template.rs`), or what it knows of
    /// it: never copied, copied once, or to be copied by the walk.
    pub tpl: u32,
}

/// An expression not yet evaluated: a shared template whose variables
/// `vars` stand for the values `holes`.
#[derive(Clone, Debug)]
pub struct ExprN {
    /// The expression as loaded.
    pub tpl: Arc<Expr>,
    /// Its variables, in the order of `holes`.
    pub vars: Arc<[VarId]>,
    /// What each variable stands for here.
    pub holes: HoleList,
}

/// What a node is.
#[derive(Clone, Debug)]
pub enum Kind {
    /// On the free list (the next free node).
    Free(NodeId),
    /// A body.
    Body(Box<BodyN>),
    /// A lambda.
    Lam(Box<LamN>),
    /// A recursive lambda made by `fix`: `name`, bound to this node, may
    /// occur in `lam`.
    Rec {
        /// The recursive name.
        name: SlotId,
        /// The lambda (a [`Kind::Lam`] node).
        lam: NodeId,
        /// The occurrences of `name` inside, when last counted
        /// (`cycles.rs`; [`UNCOUNTED`]: not yet). A hint: below it, the
        /// value may be held by itself alone.
        inner: u32,
    },
    /// A tuple (its elements behind a thin box: a slice's box is two
    /// words, and would make every node 8 bytes larger).
    Tuple(Box<Box<[Val]>>),
    /// A splice `!t` in an argument or element list.
    Splice(Val),
    /// An expression not yet evaluated (boxed: the rarest of the kinds
    /// would make every node larger).
    Expr(Box<ExprN>),
    /// A value computed by an expression (a float, a string, a record, a
    /// map, a matrix). Symbolic variables inside are `Atom::Var` of slot
    /// numbers, lambdas are handles of nodes this node owns ([`handle`]).
    Data(Box<Atom>),
}

/// A node: what it is and who holds it.
#[derive(Clone, Debug)]
pub struct Node {
    /// What it is.
    pub kind: Kind,
    /// Who owns it ([`Owner`], encoded).
    pub owner: u32,
    /// It was found closed (`shared.rs`): it, and all it reaches through
    /// slots, mentions no unbound slot it does not bind. Reduction inside
    /// a closed value keeps it closed; a node is made open.
    pub closed: bool,
    /// Something in it was changed in place since it was made (a body
    /// inside ran, a field was written): then so was every node above it
    /// (`template.rs`, `touch`). A lambda not changed is copied from its
    /// template.
    pub changed: bool,
}

/// Who owns a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Owner {
    /// Nobody: the root, or a node being built or moved.
    None,
    /// A node's field.
    Node(NodeId),
    /// A slot's value.
    Slot(SlotId),
}

const SLOT_BIT: u32 = 1 << 31;

impl Owner {
    fn encode(self) -> u32 {
        match self {
            Owner::None => u32::MAX,
            Owner::Node(n) => n.0,
            Owner::Slot(s) => s.0 | SLOT_BIT,
        }
    }

    fn decode(x: u32) -> Owner {
        if x == u32::MAX {
            Owner::None
        } else if x & SLOT_BIT != 0 {
            Owner::Slot(SlotId(x & !SLOT_BIT))
        } else {
            Owner::Node(NodeId(x))
        }
    }
}

/// The state of a slot.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SlotState {
    /// Symbolic: its binder has not been invoked.
    Unbound,
    /// Bound to a value (which it owns if it is a node).
    Bound(Val),
    /// Bound to another variable that no occurrence reads any more: kept
    /// for the staging expressions that mention this one (a reference of
    /// that slot, not an occurrence).
    Alias(SlotId),
    /// On the free list (the next free slot).
    Free(SlotId),
}

/// A variable: its value once bound, and who needs it.
#[derive(Clone, Debug)]
pub struct Slot {
    /// Its state.
    pub state: SlotState,
    /// Live occurrences ([`Val::Var`] of this slot, in nodes, slot values
    /// and data). Exact: a β applying the value at the only occurrence
    /// takes the value instead of copying it.
    pub occs: u32,
    /// Other references that keep the slot: its binder, staging
    /// expressions mentioning it, a local list holding it.
    pub refs: u32,
    /// Off a local list: the bodies to look at again when it is bound
    /// (staged on it, or stuck on it), the first [`Wait`] of a list in the
    /// store's pool, in the order they were added ([`NO_WAIT`]: none; the
    /// first entry also knows the last). On a local list: the slot before
    /// it there ([`SlotId::NONE`]: it is the head). The two never meet:
    /// only a bound slot, or a fresh one, goes on a list, and waiters wait
    /// on unbound slots only; so a slot fits in 36 bytes.
    link: u32,
    /// The source variable it copies (for names in readback) in the low
    /// bits, and two flags ([`ON_LIST`], [`LISTED`]) in the high ones.
    bits: u32,
    /// The next slot of the local list it is on (`locals.rs`).
    pub next_local: SlotId,
    /// Where its occurrence was last placed ([`Owner`], encoded): a hint,
    /// valid when that place still holds it (checked before use).
    pub holder: u32,
}

/// The flag of a slot on a local list (which holds one of its `refs`).
const ON_LIST: u32 = 1 << 31;
/// The flag of a slot on the engine's list of slots with several
/// occurrences (`shared.rs`); cleared when it is pruned from the list.
const LISTED: u32 = 1 << 30;
/// The bits of [`Slot::bits`] that hold the source variable.
const ORIGIN: u32 = LISTED - 1;

impl Slot {
    /// The source variable it copies.
    pub fn origin(&self) -> VarId {
        VarId(self.bits & ORIGIN)
    }

    /// It is on a local list (which holds one of its `refs`).
    pub fn on_list(&self) -> bool {
        self.bits & ON_LIST != 0
    }

    /// Puts it on a local list as its head, or takes it off (with no
    /// waiters either way).
    pub fn set_on_list(&mut self, on: bool) {
        debug_assert!(on || self.on_list() || self.link == NO_WAIT, "a slot with waiters left no list");
        debug_assert!(!on || self.on_list() || self.link == NO_WAIT, "a slot with waiters put on a list");
        self.bits = if on { self.bits | ON_LIST } else { self.bits & !ON_LIST };
        self.link = NO_WAIT;
    }

    /// The slot before it on its local list ([`SlotId::NONE`]: the head,
    /// or on no list).
    pub fn prev_local(&self) -> SlotId {
        if self.on_list() {
            SlotId(self.link)
        } else {
            SlotId::NONE
        }
    }

    /// Sets the slot before it on its local list.
    pub fn set_prev_local(&mut self, s: SlotId) {
        debug_assert!(self.on_list(), "a slot on no list has nothing before it");
        self.link = s.0;
    }

    /// The first entry of its waiter list ([`NO_WAIT`]: none).
    fn waiters(&self) -> u32 {
        if self.on_list() {
            NO_WAIT
        } else {
            self.link
        }
    }

    /// It is on the engine's list of slots with several occurrences.
    pub fn listed(&self) -> bool {
        self.bits & LISTED != 0
    }

    /// Marks it listed or not.
    pub fn set_listed(&mut self, on: bool) {
        self.bits = if on { self.bits | LISTED } else { self.bits & !LISTED };
    }
}

/// An entry of a slot's waiter list: a body to look at again, stale when
/// the body's generation is no longer `gen`.
#[derive(Clone, Copy, Debug)]
pub struct Wait {
    /// The body.
    pub body: NodeId,
    /// Its generation when it was added.
    pub gen: u32,
    /// The next entry ([`NO_WAIT`]: the last).
    next: u32,
    /// In the first entry of a list: its last entry.
    last: u32,
}

/// A [`Kind::Rec`] whose inner occurrences were not counted yet.
pub const UNCOUNTED: u32 = u32::MAX;

/// No waiter.
pub const NO_WAIT: u32 = u32::MAX;

/// The arena of nodes and slots.
pub struct Store {
    /// The nodes.
    pub nodes: Chunked<Node>,
    free_node: Option<NodeId>,
    /// The slots.
    pub slots: Chunked<Slot>,
    free_slot: Option<SlotId>,
    /// The waiter lists of all slots, in one pool.
    waits: Vec<Wait>,
    /// The first free entry of `waits` (a list through `next`).
    free_wait: u32,
    /// Nodes in use.
    pub live: usize,
    /// Most nodes in use at once.
    pub peak: usize,
    /// Slots in use.
    pub live_slots: usize,
}

/// A lambda inside an [`Atom`] (a data value or an expression operand):
/// the node it stands for, in a lambda with no body whose staging
/// parameter holds the node number. Expressions treat lambdas as opaque,
/// so they pass handles through untouched.
pub fn handle(n: NodeId) -> Atom {
    Atom::Lambda(Box::new(crate::term::Lambda {
        sparam: VarId(n.0),
        params: Vec::new(),
        body: crate::term::Body::hollow(HANDLE_SPAN),
        span: HANDLE_SPAN,
    }))
}

/// The span that marks a [`handle`].
const HANDLE_SPAN: crate::span::Span = crate::span::Span {
    file: crate::span::FileId(u32::MAX),
    start: u32::MAX,
    end: u32::MAX,
};

/// The node a [`handle`] stands for.
pub fn handle_of(a: &Atom) -> Option<NodeId> {
    match a {
        Atom::Lambda(l) if l.span == HANDLE_SPAN => Some(NodeId(l.sparam.0)),
        _ => None,
    }
}

impl Default for Store {
    fn default() -> Self {
        Store {
            nodes: Chunked::default(),
            free_node: None,
            slots: Chunked::default(),
            free_slot: None,
            waits: Vec::new(),
            free_wait: NO_WAIT,
            live: 0,
            peak: 0,
            live_slots: 0,
        }
    }
}

impl Store {
    /// Adds body `body` of generation `gen` to the waiters of slot `s`.
    pub fn add_waiter(&mut self, s: SlotId, body: NodeId, gen: u32) {
        let w = Wait {
            body,
            gen,
            next: NO_WAIT,
            last: NO_WAIT,
        };
        let i = if self.free_wait == NO_WAIT {
            let i = u32::try_from(self.waits.len()).unwrap_or(NO_WAIT);
            self.waits.push(w);
            i
        } else {
            let i = self.free_wait;
            self.free_wait = self.waits[i as usize].next;
            self.waits[i as usize] = w;
            i
        };
        let slot = &mut self.slots[s.ix()];
        debug_assert!(!slot.on_list(), "a waiter on {s:?}, a local bound in place");
        let head = slot.waiters();
        if head == NO_WAIT {
            slot.link = i;
            self.waits[i as usize].last = i;
        } else {
            let tail = std::mem::replace(&mut self.waits[head as usize].last, i);
            self.waits[tail as usize].next = i;
        }
    }

    /// Takes the waiter list of slot `s` off it; [`Store::next_waiter`]
    /// walks it.
    pub fn take_waiters(&mut self, s: SlotId) -> u32 {
        let slot = &mut self.slots[s.ix()];
        let head = slot.waiters();
        if !slot.on_list() {
            slot.link = NO_WAIT;
        }
        head
    }

    /// The entry `*cur` of a list taken off its slot, freed; `*cur` moves
    /// to the next.
    pub fn next_waiter(&mut self, cur: &mut u32) -> Option<(NodeId, u32)> {
        if *cur == NO_WAIT {
            return None;
        }
        let i = *cur;
        let w = self.waits[i as usize];
        self.waits[i as usize].next = self.free_wait;
        self.free_wait = i;
        *cur = w.next;
        Some((w.body, w.gen))
    }

    /// A new node.
    pub fn alloc(&mut self, kind: Kind, owner: Owner) -> NodeId {
        self.live += 1;
        self.peak = self.peak.max(self.live);
        if self.live.is_multiple_of(4096) {
            crate::memory::tick();
        }
        match self.free_node {
            Some(n) => {
                let Kind::Free(next) = self.nodes[n.ix()].kind else {
                    unreachable!("the free list holds free nodes")
                };
                self.free_node = (next != NodeId::NONE).then_some(next);
                self.nodes[n.ix()] = Node {
                    kind,
                    owner: owner.encode(),
                    closed: false,
                    changed: false,
                };
                n
            }
            None => {
                let n = NodeId(u32::try_from(self.nodes.len()).unwrap_or(u32::MAX));
                self.nodes.push(Node {
                    kind,
                    owner: owner.encode(),
                    closed: false,
                    changed: false,
                });
                n
            }
        }
    }

    /// Puts a node on the free list (its contents already dropped).
    pub fn release(&mut self, n: NodeId) {
        debug_assert!(!matches!(self.nodes[n.ix()].kind, Kind::Free(_)), "double free of {n:?}");
        self.live -= 1;
        self.nodes[n.ix()] = Node {
            kind: Kind::Free(self.free_node.unwrap_or(NodeId::NONE)),
            owner: u32::MAX,
            closed: false,
            changed: false,
        };
        self.free_node = Some(n);
    }

    /// A new slot, unbound, copying the source variable `origin`.
    pub fn slot(&mut self, origin: VarId) -> SlotId {
        debug_assert!(origin.0 <= ORIGIN, "variable {origin:?} beyond the slot's bits");
        self.live_slots += 1;
        let fresh = Slot {
            state: SlotState::Unbound,
            occs: 0,
            refs: 0,
            link: NO_WAIT,
            bits: origin.0 & ORIGIN,
            next_local: SlotId::NONE,
            holder: u32::MAX,
        };
        match self.free_slot {
            Some(s) => {
                let SlotState::Free(next) = self.slots[s.ix()].state else {
                    unreachable!("the free list holds free slots")
                };
                self.free_slot = (next != SlotId::NONE).then_some(next);
                self.slots[s.ix()] = fresh;
                s
            }
            None => {
                let s = SlotId(u32::try_from(self.slots.len()).unwrap_or(u32::MAX));
                self.slots.push(fresh);
                s
            }
        }
    }

    /// Puts a slot on the free list.
    pub fn release_slot(&mut self, s: SlotId) {
        debug_assert!(!matches!(self.slots[s.ix()].state, SlotState::Free(_)), "double free of {s:?}");
        self.live_slots -= 1;
        let slot = &mut self.slots[s.ix()];
        slot.state = SlotState::Free(self.free_slot.unwrap_or(SlotId::NONE));
        let head = slot.waiters();
        slot.link = NO_WAIT;
        if head != NO_WAIT {
            // The whole list goes back to the pool at once.
            let tail = self.waits[head as usize].last;
            self.waits[tail as usize].next = self.free_wait;
            self.free_wait = head;
        }
        slot.next_local = SlotId::NONE;
        slot.bits &= !ON_LIST;
        self.free_slot = Some(s);
    }

    /// What a node is.
    pub fn kind(&self, n: NodeId) -> &Kind {
        &self.nodes[n.ix()].kind
    }

    /// Who owns a node.
    pub fn owner(&self, n: NodeId) -> Owner {
        Owner::decode(self.nodes[n.ix()].owner)
    }

    /// Sets the owner of a node.
    pub fn set_owner(&mut self, n: NodeId, o: Owner) {
        self.nodes[n.ix()].owner = o.encode();
    }

    /// Sets the owner of the node in `v`, or the holder of the occurrence.
    pub fn own(&mut self, v: Val, o: Owner) {
        match v {
            Val::Node(n) => self.set_owner(n, o),
            Val::Var(s) => self.slots[s.ix()].holder = o.encode(),
            _ => {}
        }
    }

    /// Where the occurrence of `s` was last placed.
    pub fn holder(&self, s: SlotId) -> Owner {
        Owner::decode(self.slots[s.ix()].holder)
    }

    /// The body at `n`.
    pub fn body(&self, n: NodeId) -> Option<&BodyN> {
        match &self.nodes[n.ix()].kind {
            Kind::Body(b) => Some(b),
            _ => None,
        }
    }

    /// The body at `n`, to change.
    pub fn body_mut(&mut self, n: NodeId) -> Option<&mut BodyN> {
        match &mut self.nodes[n.ix()].kind {
            Kind::Body(b) => Some(b),
            _ => None,
        }
    }

    /// The slot `s`.
    pub fn slot_ref(&self, s: SlotId) -> &Slot {
        &self.slots[s.ix()]
    }

    /// The value a chain of variable-to-variable bindings from `s` ends in:
    /// an unbound slot as `Val::Var`, or the value.
    pub fn deref(&self, mut v: Val) -> Val {
        while let Val::Var(s) = v {
            match self.slots[s.ix()].state {
                SlotState::Bound(next) => v = next,
                SlotState::Alias(t) => v = Val::Var(t),
                _ => return v,
            }
        }
        v
    }

    /// The value of a staging expression: a variable is true when bound to
    /// a concrete value (`always`/`never` count as themselves), false while
    /// symbolic.
    pub fn stage_value(&self, s: &Stage) -> bool {
        match s {
            Stage::Const(b) => *b,
            Stage::Var(x) => self.var_truth(*x),
            Stage::Tree(t) => t.value(&|v| self.var_truth(SlotId(v.0))),
        }
    }

    fn var_truth(&self, s: SlotId) -> bool {
        match self.deref(Val::Var(s)) {
            Val::Var(_) => false,
            Val::Stage(b) => b,
            _ => true,
        }
    }

    /// The unbound slots a staging expression's value depends on (the ends
    /// of their binding chains).
    pub fn stage_waits(&self, s: &Stage, out: &mut smallvec::SmallVec<[SlotId; 2]>) {
        s.for_each_var(|x| {
            if let Val::Var(end) = self.deref(Val::Var(x)) {
                out.push(end);
            }
        });
    }

    /// One reference more for each slot a staging expression mentions (a
    /// body now holds it).
    pub fn ref_stage(&mut self, s: &Stage) {
        s.for_each_var(|x| self.slots[x.ix()].refs += 1);
    }

    /// Calls `f` on every value field of node `n`, in the reference order
    /// (head, then arguments; a lambda's body; a `fix`'s lambda, then its
    /// scope), with node children as `Val::Node`.
    pub fn for_fields(&self, n: NodeId, mut f: impl FnMut(Val)) {
        match &self.nodes[n.ix()].kind {
            Kind::Free(_) | Kind::Data(_) => {}
            Kind::Body(b) => match &b.cmd {
                CmdN::App { head, args } => {
                    f(*head);
                    args.iter().for_each(|a| f(*a));
                }
                CmdN::Fix { lam, body, .. } => {
                    f(Val::Node(*lam));
                    f(Val::Node(*body));
                }
            },
            Kind::Lam(l) => f(Val::Node(l.body)),
            Kind::Rec { lam, .. } => f(Val::Node(*lam)),
            Kind::Tuple(xs) => xs.iter().for_each(|x| f(*x)),
            Kind::Splice(x) => f(*x),
            Kind::Expr(e) => e.holes.iter().for_each(|x| f(*x)),
        }
    }

    /// The first field of node `n` that holds `v` (a data value's
    /// variables are no fields: `None` there).
    pub fn field_holding(&self, n: NodeId, v: Val) -> Option<u32> {
        if matches!(self.kind(n), Kind::Data(_)) {
            return None;
        }
        let mut at = None;
        let mut k = 0u32;
        self.for_fields(n, |f| {
            if f == v && at.is_none() {
                at = Some(k);
            }
            k += 1;
        });
        at
    }

    /// Replaces, in node `p`, the field holding node `old` by `new`.
    pub fn replace_field(&mut self, p: NodeId, old: NodeId, new: Val) {
        let hit = |x: &mut Val| {
            if *x == Val::Node(old) {
                *x = new;
                true
            } else {
                false
            }
        };
        let node_field = |x: &mut NodeId| {
            if *x == old {
                if let Val::Node(n) = new {
                    *x = n;
                    return true;
                }
            }
            false
        };
        let done = match &mut self.nodes[p.ix()].kind {
            Kind::Body(b) => match &mut b.cmd {
                CmdN::App { head, args } => hit(head) || args.iter_mut().any(hit),
                CmdN::Fix { lam, body, .. } => node_field(lam) || node_field(body),
            },
            Kind::Lam(l) => node_field(&mut l.body),
            Kind::Rec { lam, .. } => node_field(lam),
            Kind::Tuple(xs) => xs.iter_mut().any(hit),
            Kind::Splice(x) => hit(x),
            Kind::Expr(e) => e.holes.iter_mut().any(hit),
            Kind::Free(_) | Kind::Data(_) => false,
        };
        debug_assert!(done, "{p:?} does not hold {old:?}");
        self.own(new, Owner::Node(p));
    }
}

// A value is 12 bytes (an integer in two halves); a slot is 36 (its flags
// share a word with the source variable, its waiters one with its place on
// a local list); a node is 24 (a tuple's
// elements are behind a thin box, so that no kind needs more than 12
// bytes).
const _: () = assert!(std::mem::size_of::<Val>() == 12);
const _: () = assert!(std::mem::size_of::<Slot>() == 36);
const _: () = assert!(std::mem::size_of::<Node>() == 24);
