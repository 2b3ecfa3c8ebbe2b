//! The nodes of the lambda graph and the arena that holds them.
//!
//! The graph is a tree of nodes addressed by [`NodeId`]s into one arena
//! (blocks of slots for leaves or for inner nodes, with a free list for
//! each, [`Graph::nodes`]), plus a table of variables addressed by
//! [`GVar`]s (also recycled). A variable is a node of its own kind: it knows
//! its occurrences and the bodies that wait on it, so binding it rewrites
//! exactly those places (see `bind.rs`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::lit::Lit;
use super::tour::{TourAnchor, BLOCK};
use super::var_list::VarList;
use crate::expr::Expr;
use crate::span::Span;
use crate::term::{mentions, SExp, Sugar, VarId};

/// A node: an index into [`Graph::nodes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

impl NodeId {
    /// No node (the root's parent, an unfilled slot).
    pub const NONE: NodeId = NodeId(u32::MAX);

    pub(crate) fn ix(self) -> usize {
        self.0 as usize
    }
}

/// A graph variable. Staging expressions and [`Kind::Ref`] nodes hold these;
/// the source variable it copies is [`VarSlot::origin`].
pub type GVar = VarId;

/// The status of a body (LANGUAGE.md §5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Readiness {
    /// Its staging expression is false.
    Inactive,
    /// Active, but waits for this symbolic variable.
    Stuck(GVar),
    /// Active and not stuck: it will execute (or fail) once nothing pending
    /// is nested in it.
    Pending,
}

/// A body ⟨e, C⟩.
#[derive(Clone, Debug)]
pub struct NodeBody {
    /// The staging expression, over graph variables. A variable bound to a
    /// concrete value is rewritten to a constant when it is bound.
    pub stage: SExp,
    /// Its application (head and arguments are the node's children).
    pub cmd: NodeCmd,
    /// Its source.
    pub span: Span,
    /// Its status, kept up to date by `refresh`.
    pub status: Readiness,
}

/// The command of a body.
#[derive(Clone, Debug)]
pub enum NodeCmd {
    /// `head args..`; an argument may be a [`Kind::Splice`] node.
    App {
        /// The function.
        head: NodeId,
        /// The arguments.
        args: Vec<NodeId>,
        /// How the source wrote it.
        sugar: Sugar,
    },
    /// `fix [sparam] name = lam in body`.
    Fix {
        /// The staging parameter of the implicit lambda around `body`.
        sparam: GVar,
        /// The recursive name as it occurs inside `lam`: symbolic until the
        /// fix executes, then it denotes the recursive value itself.
        name_in: GVar,
        /// The recursive name as it occurs in `body`: bound to a copy of the
        /// recursive value at each occurrence when the fix executes.
        name_out: GVar,
        /// The recursive lambda (a [`Kind::Lambda`] node).
        lam: NodeId,
        /// The scope of the name (a [`Kind::Body`] node).
        body: NodeId,
    },
}

/// A parameter.
#[derive(Clone, Copy, Debug)]
pub struct NodeParam {
    /// Its variable.
    pub var: GVar,
    /// Whether it is the rest parameter.
    pub rest: bool,
}

/// `λ[sparam] params . body`.
#[derive(Clone, Debug)]
pub struct NodeLambda {
    /// The staging parameter.
    pub sparam: GVar,
    /// The parameters.
    pub params: Vec<NodeParam>,
    /// The body (a [`Kind::Body`] node).
    pub body: NodeId,
    /// Its source.
    pub span: Span,
}

/// What a node is.
#[derive(Clone, Debug)]
pub enum Kind {
    /// On the free list; the next free node.
    Free(NodeId),
    /// A body; its children are its head and arguments.
    Body(Box<NodeBody>),
    /// A lambda; its one child is its body.
    Lambda(Box<NodeLambda>),
    /// A recursive value: `name` occurring in `lam` denotes the value.
    Rec {
        /// The name (bound to this node, see [`VarState::SelfRec`]).
        name: GVar,
        /// The lambda.
        lam: NodeId,
    },
    /// An occurrence of a symbolic variable.
    Ref(GVar),
    /// `!t`: the splice of the child's elements.
    Splice(NodeId),
    /// A value without variables or bodies inside: a number, boolean,
    /// string, staging constant, built-in or matrix.
    Lit(Lit),
    /// A tuple: the children are its elements.
    Tuple(Vec<NodeId>),
    /// A record: its fields' names, each with the child holding the value.
    Record(Vec<(Arc<str>, NodeId)>),
    /// A map: key and value children, in insertion order.
    Map(Vec<(NodeId, NodeId)>),
    /// A reference to a shared value: a detached subtree (a lambda, recursive
    /// value, tuple, record or map) that several places hold. Invariant:
    /// nothing inside a shared value is pending (the machine unshares a
    /// value, copying it per holder, as soon as a body inside it becomes
    /// pending), so the walk treats this node as a leaf.
    Share(NodeId),
    /// An expression. Each of its `Val` leaves that is not a [`Kind::Lit`]
    /// value is a placeholder `Val(Var(hole(k)))` standing for child `k`;
    /// the placeholders are numbered `0, 1, ..` in reading order, one per
    /// child. The evaluator resolves them by index (`Machine::eval_node`),
    /// the export fills them in.
    /// The expression itself is never changed once made, so copies of the
    /// node share it. The children are made once, with the node: a boxed
    /// slice, not a `Vec`, to keep [`Kind`] small.
    Expr(Arc<Expr>, Box<[NodeId]>),
}

impl Kind {
    /// Calls `f` on each variable a node of this kind binds: a lambda's
    /// staging parameter, then its parameters; a recursive value's name; a
    /// fix's staging parameter, inner name and outer name.
    pub fn for_binders(&self, mut f: impl FnMut(GVar)) {
        match self {
            Kind::Lambda(l) => {
                f(l.sparam);
                l.params.iter().for_each(|p| f(p.var));
            }
            Kind::Rec { name, .. } => f(*name),
            Kind::Body(b) => {
                if let NodeCmd::Fix {
                    sparam, name_in, name_out, ..
                } = b.cmd
                {
                    [sparam, name_in, name_out].into_iter().for_each(f);
                }
            }
            _ => {}
        }
    }

    /// Whether nodes of this kind are leaves: they never have children and
    /// are never pending, so they have no entries in the tour (a node's
    /// kind never changes from leaf to non-leaf while it is allocated: a
    /// bound `Ref` is replaced by another node, or renamed to another
    /// `Ref`).
    pub fn is_leaf(&self) -> bool {
        matches!(self, Kind::Ref(_) | Kind::Lit(_) | Kind::Share(_) | Kind::Free(_))
    }
}

/// The most placeholders one expression holds: the ids
/// `FIRST_HOLE..=u32::MAX` are placeholders (see [`hole`]), so graph
/// variables, allocated upward from 0 by [`Graph::fresh_var`], must stay
/// below [`FIRST_HOLE`]. Neither bound can be reached in memory: 2^31 leaves
/// of one expression, or 2^31 live variable slots, take well over 64 GiB.
pub const MAX_HOLES: u32 = 1 << 31;

/// The smallest placeholder id; every graph variable is below it.
pub const FIRST_HOLE: u32 = u32::MAX - (MAX_HOLES - 1);

/// The placeholder variable of the expression leaf held by child `k`
/// (`k < MAX_HOLES`): `u32::MAX - k`, counting down from the top so that
/// graph variables, counting up from 0, never meet it.
pub fn hole(k: usize) -> VarId {
    debug_assert!(k < MAX_HOLES as usize, "placeholder {k} of an expression");
    let k = u32::try_from(k).unwrap_or(u32::MAX).min(MAX_HOLES - 1);
    VarId(u32::MAX - k)
}

/// Which child a placeholder variable stands for (`None` for any other
/// variable).
pub fn hole_index(v: VarId) -> Option<usize> {
    (v.0 >= FIRST_HOLE).then(|| (u32::MAX - v.0) as usize)
}

/// A node of the arena.
#[derive(Debug)]
pub struct Node {
    /// What it is.
    pub kind: Kind,
    /// The node holding it ([`NodeId::NONE`] for the root and detached nodes).
    pub parent: NodeId,
    /// A memo of `Machine::tuple_has_expr`: set when a walk of this tuple
    /// (through its tuples and splices, not into lambdas or shared values)
    /// found no [`Kind::Expr`]; false on every node the arena hands out.
    /// Invariant: a node with the memo set holds no expression in that
    /// walk. It stays true because nothing puts an expression into a tuple
    /// that is already built: a bound variable's occurrence gets a value,
    /// and values hold expressions only inside lambdas (checked by
    /// `debug_assert!` where the memo is read). Atomic only so that the
    /// look, which takes `&self`, may set it while the machine stays `Sync`
    /// (relaxed loads and stores: a plain byte on every target we run on).
    pub plain: AtomicBool,
    /// A memo of `Machine::classify` (`closed.rs`): whether the subtree at
    /// this node mentions no variable bound outside it. `Unknown` on every
    /// node the arena hands out. Invariant: a node memoized
    /// [`Closed::Small`] or [`Closed::Big`] is closed (checked by
    /// `Machine::check`). It stays true: nothing outside a closed subtree
    /// can reach into it (binding rewrites occurrences, and it has none of
    /// outer variables), and a step inside it only moves its own parts. A
    /// [`Closed::No`] may grow stale (an outer variable bound to a value
    /// since), which only costs a missed sharing.
    pub closed: Closed,
    /// Whether this node was made a shared value by `Machine::hoist` (set
    /// there; false on every node the arena hands out). The export names
    /// the binders of such a value afresh at each place that holds it: the
    /// reference has a copy with binders of its own at each of them.
    pub hoisted: bool,
}

// Every slot of the arena is a `Node`, live or free, so its size is the
// graph's memory per node, which the builders benchmark at 10^6 numbers
// (to run in under 4 GB) multiplies by its peak of live nodes. `Kind` is
// 24 bytes of payload at most (a `Vec`, or an `Arc` and a boxed slice; a
// `Lit` is 16) and a tag; the parent and the three memo bytes fill the
// rest. It was 48 bytes while `Kind::Lit` held an `Atom` (32 bytes) and
// `Kind::Expr` a `Vec`.
const _: () = assert!(std::mem::size_of::<Kind>() <= 32);
const _: () = assert!(std::mem::size_of::<Node>() == 40);

/// What [`Node::closed`] knows of a subtree's variables.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Closed {
    /// Not classified yet.
    #[default]
    Unknown,
    /// It mentions a variable bound outside it (or holds a shared value
    /// that does).
    No,
    /// Closed, and too small to be worth a shared value of its own.
    Small,
    /// Closed, and big enough that a copy shares it instead of copying it
    /// (`Machine::copy`).
    Big,
}

impl Closed {
    /// Whether the subtree is known to be closed.
    pub fn is_closed(self) -> bool {
        matches!(self, Closed::Small | Closed::Big)
    }
}

impl Node {
    /// A node of this kind under `parent`, its memo clear.
    pub fn new(kind: Kind, parent: NodeId) -> Node {
        Node {
            kind,
            parent,
            plain: AtomicBool::new(false),
            closed: Closed::Unknown,
            hoisted: false,
        }
    }
}

impl Clone for Node {
    fn clone(&self) -> Node {
        Node {
            kind: self.kind.clone(),
            parent: self.parent,
            plain: AtomicBool::new(self.plain.load(Ordering::Relaxed)),
            closed: self.closed,
            hoisted: self.hoisted,
        }
    }
}

/// What a variable is bound to, as far as the graph is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarState {
    /// Symbolic (unbound).
    Symbolic,
    /// The name of this recursive value ([`Kind::Rec`]), inside its lambda.
    SelfRec(NodeId),
    /// Recycled: on the free list.
    Dead,
}

/// A short list of nodes, inline up to four (the size of a `Vec`).
pub type NodeList = smallvec::SmallVec<[NodeId; 4]>;

/// No variable: a [`VarSlot::renamed`] that is unset (a placeholder id,
/// never a graph variable's, see [`FIRST_HOLE`]).
pub(crate) const NO_VAR: GVar = VarId(u32::MAX);

/// A variable of the graph.
#[derive(Clone, Debug)]
pub struct VarSlot {
    /// The source variable it copies (for names and printing).
    pub origin: VarId,
    /// Its state, a [`VarState`] in 4 bytes ([`VarSlot::bound`]):
    /// [`SYMBOLIC`], [`DEAD`], or the node of [`VarState::SelfRec`].
    state: u32,
    /// Scratch of `Machine::classify` (`closed.rs`): the depth of this
    /// binder in the walk under way (0: not a binder seen by it).
    /// Invariant: 0 on every slot between walks (the walk resets the
    /// binders it set when it ends).
    pub(crate) depth: u32,
    /// Scratch of `Machine::copy`: the copy of this binder made by the copy
    /// under way ([`NO_VAR`]: none). Invariant: [`NO_VAR`] on every slot
    /// between copies (the copy resets the binders it renamed when it
    /// ends). Kept here, in the slot's padding, rather than in a table of
    /// its own: such a table grows to the highest variable id renamed,
    /// 8 bytes a variable. [`VarSlot::depth`] is kept here for the same
    /// reason.
    pub(crate) renamed: GVar,
    /// Its occurrences: [`Kind::Ref`] nodes. May hold stale entries (nodes
    /// since freed or rewritten); users check the node still is `Ref(v)`.
    /// Most variables occur once or twice: kept inline up to two.
    pub occs: VarList,
    /// The bodies whose staging expression mentions it, and the bodies stuck
    /// on it. May hold stale entries; re-evaluating a body is idempotent.
    pub waiters: VarList,
}

// A variable slot's size is memory per variable: the 10^6-number builders
// keep about 13 million live at their peak.
const _: () = assert!(std::mem::size_of::<VarSlot>() == 48);

/// [`VarSlot::state`] of a symbolic variable.
const SYMBOLIC: u32 = u32::MAX;
/// [`VarSlot::state`] of a recycled variable.
const DEAD: u32 = u32::MAX - 1;

impl VarSlot {
    /// A symbolic variable copying the source variable `origin`.
    fn new(origin: VarId) -> VarSlot {
        VarSlot {
            origin,
            state: SYMBOLIC,
            depth: 0,
            renamed: NO_VAR,
            occs: VarList::new(),
            waiters: VarList::new(),
        }
    }

    /// Its state.
    pub fn bound(&self) -> VarState {
        match self.state {
            SYMBOLIC => VarState::Symbolic,
            DEAD => VarState::Dead,
            n => VarState::SelfRec(NodeId(n)),
        }
    }

    /// Sets its state.
    pub fn set_bound(&mut self, b: VarState) {
        self.state = match b {
            VarState::Symbolic => SYMBOLIC,
            VarState::Dead => DEAD,
            VarState::SelfRec(n) => {
                // Node ids stop far below: 2^32 - 2 nodes would take over
                // 160 GB.
                debug_assert!(n.0 < DEAD, "node id {n:?} in the state encoding");
                n.0
            }
        };
    }
}

/// The arena of nodes and the variable table.
#[derive(Clone, Debug, Default)]
pub struct Graph {
    /// All nodes, free ones included, in blocks of [`BLOCK`] slots, each
    /// for leaves only or for inner nodes only, so that the tour, indexed
    /// by block, has no entries for the leaves' blocks. Invariant: a node
    /// is in a block of its kind's class (a kind never changes between
    /// leaf and inner in place), so a freed slot goes back to the free
    /// list its kind says; `check` verifies that leaves sit in blocks
    /// without entries.
    pub nodes: Vec<Node>,
    /// Head of the free list of inner node slots.
    free: Option<NodeId>,
    /// Head of the free list of leaf slots.
    free_leaf: Option<NodeId>,
    /// Number of nodes in use.
    pub live: usize,
    /// The most nodes ever in use at once.
    pub peak_live: usize,
    /// All variables, dead ones included, indexed by id. Invariant: fewer
    /// than [`FIRST_HOLE`] of them, so that no graph variable is an
    /// expression placeholder ([`hole`]).
    pub vars: Vec<VarSlot>,
    /// Recycled variables.
    free_vars: Vec<GVar>,
    /// The Euler tours of the trees (the main term, shared values, detached
    /// values): invariant, each tree's tour is `open(n)`, the tours of its
    /// children in walk order, `close(n)`, and a node is marked exactly when
    /// it is a pending body; checked by `Machine::check`.
    pub tour: super::tour::Tour,
}

impl Graph {
    /// Makes room for `n` more nodes and their tour at once, so that a
    /// big subtree built node by node does not grow the arrays by
    /// doubling, copying them each time.
    pub(crate) fn reserve(&mut self, n: usize) {
        // Within the memory budget: the new arrays, while the old live.
        let need = self.nodes.len().saturating_add(n);
        if need > self.nodes.capacity() {
            let tour = 2 * 16; // two tour entries of about 16 bytes a node
            crate::memory::check_room(need.saturating_mul(std::mem::size_of::<Node>() + tour));
        }
        self.nodes.reserve(n);
        self.tour.reserve(n);
    }

    /// A new detached node.
    pub fn alloc(&mut self, kind: Kind) -> NodeId {
        let leaf = kind.is_leaf();
        let id = self.take_slot(kind, leaf);
        // A fresh inner node's tour is a tree of its own; a leaf has none
        // (its block has no entries: see `tour.rs`).
        if !leaf {
            self.tour.reset(id);
        }
        id
    }

    /// A new node of a subtree whose tour the caller builds in one go
    /// (`Tour::build`, which makes every entry afresh) before the tour is
    /// asked anything about it: an inner node's entries exist but are left
    /// as they are, so `alloc`'s one-node tour is not made only to be
    /// rebuilt.
    pub(crate) fn alloc_for_build(&mut self, kind: Kind) -> NodeId {
        let leaf = kind.is_leaf();
        let id = self.take_slot(kind, leaf);
        if !leaf {
            self.tour.make_entries(id);
        }
        id
    }

    /// A free slot of the class of `leaf`, holding `kind`.
    #[inline]
    fn take_slot(&mut self, kind: Kind, leaf: bool) -> NodeId {
        self.live += 1;
        self.peak_live = self.peak_live.max(self.live);
        let head = if leaf { self.free_leaf } else { self.free };
        let id = match head {
            Some(id) => id,
            None => self.new_block(),
        };
        let next = match self.nodes[id.ix()].kind {
            Kind::Free(n) => (n != NodeId::NONE).then_some(n),
            _ => None,
        };
        if leaf {
            self.free_leaf = next;
        } else {
            self.free = next;
        }
        self.nodes[id.ix()] = Node::new(kind, NodeId::NONE);
        id
    }

    /// Adds a block of [`BLOCK`] free slots, chained in id order, and
    /// returns its first: the caller's free list (of leaves, or of inner
    /// nodes) is empty and takes the chain, which makes the block that
    /// class's.
    fn new_block(&mut self) -> NodeId {
        // The graph grows here: within the memory budget, a doubling of
        // the vector included (its old and new buffers both live a moment).
        if self.nodes.len() + BLOCK as usize > self.nodes.capacity() {
            crate::memory::check_room(self.nodes.capacity().max(BLOCK as usize) * 2 * std::mem::size_of::<Node>());
        } else {
            crate::memory::check();
        }
        let start = u32::try_from(self.nodes.len()).unwrap_or(u32::MAX);
        debug_assert!(start <= u32::MAX - 2 * BLOCK, "node ids exhausted");
        for i in 1..=BLOCK {
            let next = if i < BLOCK { NodeId(start + i) } else { NodeId::NONE };
            self.nodes.push(Node::new(Kind::Free(next), NodeId::NONE));
        }
        NodeId(start)
    }

    /// Puts one node on the free list (its children are not touched).
    pub fn release(&mut self, id: NodeId) {
        let leaf = self.nodes[id.ix()].kind.is_leaf();
        if !leaf {
            self.tour.release(id);
        }
        self.put_on_free_list(id, leaf);
    }

    /// Like [`Graph::release`], for a node of a subtree freed whole whose
    /// tour was cut out first: its entries are forgotten, not unlinked.
    pub fn release_in_freed_tree(&mut self, id: NodeId) {
        let leaf = self.nodes[id.ix()].kind.is_leaf();
        if !leaf {
            self.tour.forget(id);
        }
        self.put_on_free_list(id, leaf);
    }

    /// Cuts the tour of `n` out of the tree it is in (nothing for a leaf,
    /// which has none).
    pub fn cut_tour(&mut self, n: NodeId) {
        if !self.nodes[n.ix()].kind.is_leaf() {
            self.tour.cut(n);
        }
    }

    /// Puts `id` on the free list of its class (`leaf`: its kind's).
    fn put_on_free_list(&mut self, id: NodeId, leaf: bool) {
        debug_assert!(!matches!(self.nodes[id.ix()].kind, Kind::Free(_)), "double free of {id:?}");
        self.live -= 1;
        let free = if leaf { &mut self.free_leaf } else { &mut self.free };
        let next = free.unwrap_or(NodeId::NONE);
        *free = Some(id);
        self.nodes[id.ix()] = Node::new(Kind::Free(next), NodeId::NONE);
    }

    /// The Euler tour of the subtree at `root` as its child lists give it,
    /// leaves left out (they have no entries): each node with `true` on
    /// entry and `false` on leaving, in walk order.
    pub fn tour_order(&self, root: NodeId) -> Vec<(NodeId, bool)> {
        let mut order = self.walk_order(root);
        order.retain(|&(n, _)| !self.nodes[n.ix()].kind.is_leaf());
        order
    }

    /// The walk of the subtree at `root`, leaves included: each node with
    /// `true` on entry and `false` on leaving, in walk order.
    pub fn walk_order(&self, root: NodeId) -> Vec<(NodeId, bool)> {
        // Room for a small subtree from the start: most are (copies of
        // lambdas, imported values), and growing from nothing reallocates
        // several times.
        let mut order = Vec::with_capacity(64);
        let mut stack = Vec::with_capacity(16);
        stack.push((root, false));
        while let Some((n, closing)) = stack.pop() {
            order.push((n, !closing));
            if !closing {
                stack.push((n, true));
                let at = stack.len();
                self.for_children(n, |c| stack.push((c, false)));
                stack[at..].reverse();
            }
        }
        order
    }

    /// A new symbolic variable copying the source variable `origin`.
    pub fn fresh_var(&mut self, origin: VarId) -> GVar {
        let slot = VarSlot::new(origin);
        match self.free_vars.pop() {
            Some(v) => {
                self.vars[v.0 as usize] = slot;
                v
            }
            None => {
                let v = VarId(u32::try_from(self.vars.len()).unwrap_or(u32::MAX));
                debug_assert!(v.0 < FIRST_HOLE, "graph variable {v:?} in the placeholder range");
                self.vars.push(slot);
                v
            }
        }
    }

    /// Recycles a variable nothing refers to any more.
    pub fn kill_var(&mut self, v: GVar) {
        let slot = &mut self.vars[v.0 as usize];
        if slot.bound() == VarState::Dead {
            return;
        }
        slot.set_bound(VarState::Dead);
        slot.occs = VarList::new();
        slot.waiters = VarList::new();
        self.free_vars.push(v);
    }

    /// The slot of a variable.
    pub fn var(&self, v: GVar) -> &VarSlot {
        &self.vars[v.0 as usize]
    }

    /// The slot of a variable, mutably.
    pub fn var_mut(&mut self, v: GVar) -> &mut VarSlot {
        &mut self.vars[v.0 as usize]
    }

    /// Records that node `n` is an occurrence of `v`.
    pub fn add_occ(&mut self, v: GVar, n: NodeId) {
        let len = self.vars[v.0 as usize].occs.len();
        if len >= 64 && len.is_power_of_two() {
            // Drop stale entries now and then, so the list tracks the live
            // occurrences rather than every occurrence ever made.
            let nodes = &self.nodes;
            self.vars[v.0 as usize]
                .occs
                .retain(|o| matches!(nodes[o.ix()].kind, Kind::Ref(w) if w == v));
        }
        self.vars[v.0 as usize].occs.push(n);
    }

    /// Takes the occurrence list of `v`, keeping the live entries only
    /// (each once): the nodes that still are `Ref(v)`.
    pub fn take_live_occs(&mut self, v: GVar) -> VarList {
        let mut occs = std::mem::take(&mut self.vars[v.0 as usize].occs);
        occs.sort_unstable();
        occs.dedup();
        occs.retain(|o| matches!(self.nodes[o.ix()].kind, Kind::Ref(w) if w == v));
        occs
    }

    /// Records that body `b` waits on `v` (stages on it or is stuck on it).
    pub fn add_waiter(&mut self, v: GVar, b: NodeId) {
        if self.vars[v.0 as usize].bound() == VarState::Dead {
            return;
        }
        let len = self.vars[v.0 as usize].waiters.len();
        if len >= 64 && len.is_power_of_two() {
            let nodes = &self.nodes;
            self.vars[v.0 as usize].waiters.retain(|w| match &nodes[w.ix()].kind {
                Kind::Body(body) => matches!(body.status, Readiness::Stuck(_)) || mentions(&body.stage, v),
                _ => false,
            });
        }
        self.vars[v.0 as usize].waiters.push(b);
    }

    /// The kind of a node.
    pub fn kind(&self, n: NodeId) -> &Kind {
        &self.nodes[n.ix()].kind
    }

    /// The body at `n`, if it is one.
    pub fn body(&self, n: NodeId) -> Option<&NodeBody> {
        match &self.nodes[n.ix()].kind {
            Kind::Body(b) => Some(b),
            _ => None,
        }
    }

    /// The body at `n`, mutably, if it is one.
    pub fn body_mut(&mut self, n: NodeId) -> Option<&mut NodeBody> {
        match &mut self.nodes[n.ix()].kind {
            Kind::Body(b) => Some(b),
            _ => None,
        }
    }

    /// The children of `n` in the reference walk order (head, arguments,
    /// nested bodies; LANGUAGE.md §5).
    pub fn children(&self, n: NodeId) -> Vec<NodeId> {
        let mut out = Vec::new();
        self.for_children(n, |c| out.push(c));
        out
    }

    /// Calls `f` on each child of `n`, in the reference walk order.
    pub fn for_children(&self, n: NodeId, mut f: impl FnMut(NodeId)) {
        match &self.nodes[n.ix()].kind {
            Kind::Free(_) | Kind::Ref(_) | Kind::Lit(_) | Kind::Share(_) => {}
            Kind::Body(b) => match &b.cmd {
                NodeCmd::App { head, args, .. } => {
                    f(*head);
                    args.iter().for_each(|a| f(*a));
                }
                NodeCmd::Fix { lam, body, .. } => {
                    f(*lam);
                    f(*body);
                }
            },
            Kind::Lambda(l) => f(l.body),
            Kind::Rec { lam, .. } => f(*lam),
            Kind::Splice(c) => f(*c),
            Kind::Tuple(xs) => xs.iter().for_each(|x| f(*x)),
            Kind::Expr(_, xs) => xs.iter().for_each(|x| f(*x)),
            Kind::Record(fs) => fs.iter().for_each(|(_, x)| f(*x)),
            Kind::Map(kvs) => kvs.iter().for_each(|(k, v)| {
                f(*k);
                f(*v);
            }),
        }
    }

    /// Replaces the child `old` of `parent` by `new` (and sets `new`'s
    /// parent). `parent` may be [`NodeId::NONE`] (the root), in which case
    /// nothing but the parent link changes.
    pub fn replace_child(&mut self, parent: NodeId, old: NodeId, new: NodeId) {
        self.nodes[new.ix()].parent = parent;
        if parent == NodeId::NONE {
            // A new root: its tour is a tree of its own.
            self.cut_tour(new);
            return;
        }
        match (self.nodes[old.ix()].kind.is_leaf(), self.nodes[new.ix()].kind.is_leaf()) {
            (true, true) => {}
            (false, true) => self.tour.cut(old),
            (false, false) => self.tour.replace(old, new),
            (true, false) => {
                let at = self.anchor_before(parent, old);
                self.tour.insert_after(at, new);
            }
        }
        let swap = |x: &mut NodeId| {
            if *x == old {
                *x = new;
                true
            } else {
                false
            }
        };
        let done = match &mut self.nodes[parent.ix()].kind {
            Kind::Free(_) | Kind::Ref(_) | Kind::Lit(_) | Kind::Share(_) => false,
            Kind::Body(b) => match &mut b.cmd {
                NodeCmd::App { head, args, .. } => swap(head) || args.iter_mut().any(swap),
                NodeCmd::Fix { lam, body, .. } => swap(lam) || swap(body),
            },
            Kind::Lambda(l) => swap(&mut l.body),
            Kind::Rec { lam, .. } => swap(lam),
            Kind::Splice(c) => swap(c),
            Kind::Tuple(xs) => xs.iter_mut().any(swap),
            Kind::Expr(_, xs) => xs.iter_mut().any(swap),
            Kind::Record(fs) => fs.iter_mut().any(|(_, x)| swap(x)),
            Kind::Map(kvs) => kvs.iter_mut().any(|(k, v)| swap(k) || swap(v)),
        };
        debug_assert!(done, "{old:?} is not a child of {parent:?}");
    }

    /// Where a tour put in the place of `n`'s child `child` (a leaf) goes:
    /// after the last child before it that has a tour, or first in `n`'s.
    /// Costs `n`'s children up to `child`.
    fn anchor_before(&self, n: NodeId, child: NodeId) -> TourAnchor {
        let mut at = TourAnchor::Open(n);
        let mut found = false;
        self.for_children(n, |c| {
            if c == child {
                found = true;
            }
            if !found && !self.nodes[c.ix()].kind.is_leaf() {
                at = TourAnchor::Close(c);
            }
        });
        debug_assert!(found, "{child:?} is not a child of {n:?}");
        at
    }

    /// Sets the parent link of every child of `n` to `n`, and puts their
    /// tours in `n`'s (after any change of `n`'s child list).
    pub fn adopt_children(&mut self, n: NodeId) {
        let mut kids = self.children(n);
        for &c in &kids {
            self.nodes[c.ix()].parent = n;
        }
        kids.retain(|&c| !self.nodes[c.ix()].kind.is_leaf());
        self.tour.relist(n, &kids);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_count_down_from_the_top() {
        assert_eq!(hole(0), VarId(u32::MAX));
        assert_eq!(hole(1), VarId(u32::MAX - 1));
        let last = (MAX_HOLES - 1) as usize;
        assert_eq!(hole(last), VarId(FIRST_HOLE));
        for k in [0, 1, 2, 1000, last] {
            assert_eq!(hole_index(hole(k)), Some(k));
        }
        assert_eq!(hole_index(VarId(0)), None);
        assert_eq!(hole_index(VarId(FIRST_HOLE - 1)), None);
    }
}
