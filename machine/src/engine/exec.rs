//! Executing a ready body (LANGUAGE.md §5): β binds the callee's slots in
//! place when the head held the lambda's only occurrence, and otherwise
//! instantiates a copy of its body with the arguments substituted; `if`
//! rewrites the body where it stands; `fix` binds its name to a recursive
//! value; `$exit` reads its value back. Then the bodies the step made
//! pending are scheduled (`order.rs`).

use super::copy::Subst;
use super::load::Names as LoadNames;
use super::look::{ArgV, Callee, Plan, Src};
use super::store::{CmdN, Kind, LamN, NodeId, Owner, SlotId, SlotState, Stage, Status, Val};
use super::Engine;
use crate::run::Rule;
use crate::term::Atom;
use smallvec::SmallVec;

/// The values of a β's parameters.
type Vals = SmallVec<[Val; 4]>;

/// What a step did.
pub(super) enum Done {
    /// Executed with this rule.
    Stepped(Rule),
    /// `$exit` with this value.
    Exit(Atom),
}

impl Engine {
    /// Executes body `b` by `plan`.
    pub(super) fn execute(&mut self, b: NodeId, plan: Plan) -> Done {
        match plan {
            Plan::Beta { callee, args, rule } => {
                self.beta(b, callee, args);
                Done::Stepped(rule)
            }
            Plan::If(branch) => {
                let v = self.take_arg(b, &branch);
                self.rewrite_if(b, v);
                Done::Stepped(Rule::If)
            }
            Plan::Fix => {
                self.fix(b);
                Done::Stepped(Rule::Fix)
            }
            Plan::Exit(a) => {
                // A value too large to write out is not read back.
                if self.max_term != u64::MAX && !matches!(a.src, Src::Computed(_)) {
                    let size = self.expanded_size(a.val);
                    self.exit_too_large = crate::run::TooLarge::over("the exit value", size, self.max_term);
                    if self.exit_too_large.is_some() {
                        return Done::Exit(Atom::Int(0));
                    }
                }
                let mut names = super::readback::Names::new(&self.source);
                let v = match &a.src {
                    Src::Computed(x) => self.computed_for_exit(x, &mut names),
                    _ => self.read_atom(a.val, &mut names),
                };
                self.exit_vars = Some(names.vars);
                Done::Exit(v)
            }
        }
    }

    /// A computed exit value read back (its slots and handles resolved).
    fn computed_for_exit(&mut self, x: &Atom, names: &mut super::readback::Names) -> Atom {
        let v = self.load_atom(x.clone(), &mut LoadNames::Slots);
        let out = self.read_atom(v, names);
        self.drop_val(v);
        out
    }

    /// The argument `a` of body `b` as a value the rule owns.
    fn take_arg(&mut self, b: NodeId, a: &ArgV) -> Val {
        match &a.src {
            Src::Field(i) => {
                let Some(body) = self.st.body_mut(b) else { return Val::EMPTY };
                let CmdN::App { args, .. } = &mut body.cmd else {
                    return Val::EMPTY;
                };
                let v = std::mem::replace(&mut args[*i as usize], Val::EMPTY);
                self.st.own(v, Owner::None);
                v
            }
            &Src::Elem(t, i, via) => {
                let (i, via) = (i as usize, (via != SlotId::NONE).then_some(via));
                // The splice's variable is the tuple's only holder: its
                // elements move out (the tuple goes with the body).
                let sole = via
                    .and_then(|s| self.sole_chain(s))
                    .is_some_and(|last| self.st.slots[last.ix()].state == SlotState::Bound(Val::Node(t)));
                if sole {
                    self.touch(t);
                    if let Kind::Tuple(xs) = &mut self.st.nodes[t.ix()].kind {
                        let v = std::mem::replace(&mut xs[i], Val::EMPTY);
                        self.st.own(v, Owner::None);
                        return v;
                    }
                }
                let x = match self.st.kind(t) {
                    Kind::Tuple(xs) => xs[i],
                    _ => Val::EMPTY,
                };
                match x {
                    Val::Var(s) => {
                        self.add_occ(s);
                        x
                    }
                    // A lambda (or tuple) in a tuple others hold is shared
                    // through a slot of its own, not copied: the tuple's
                    // field becomes its first occurrence.
                    Val::Node(e) => {
                        let origin = via.map_or(crate::term::VarId(0), |s| self.st.slots[s.ix()].origin());
                        let x = self.st.slot(origin);
                        self.st.slots[x.ix()].state = SlotState::Bound(Val::Node(e));
                        self.st.slots[x.ix()].occs = 2;
                        self.st.set_owner(e, Owner::Slot(x));
                        self.touch(t);
                        if let Kind::Tuple(xs) = &mut self.st.nodes[t.ix()].kind {
                            xs[i] = Val::Var(x);
                        }
                        self.st.own(Val::Var(x), Owner::Node(t));
                        self.occ_added(x);
                        Val::Var(x)
                    }
                    other => other,
                }
            }
            Src::Inline => {
                if let Val::Var(s) = a.val {
                    self.add_occ(s);
                }
                a.val
            }
            Src::Computed(atom) => self.load_atom(atom.as_ref().clone(), &mut LoadNames::Slots),
            Src::SymSplice(s) => {
                self.add_occ(*s);
                Val::Var(*s)
            }
            Src::Failed => Val::EMPTY,
        }
    }

    /// The values the parameters of `l` get from `args`.
    fn bindings(&mut self, b: NodeId, l: &LamN, args: &[ArgV]) -> Vals {
        let k = l.params.len();
        // Pushed one by one: collecting a mapped iterator into a small
        // vector costs more than the pushes.
        let mut vals = Vals::new();
        for a in args {
            let v = self.take_arg(b, a);
            vals.push(v);
        }
        match l.rest {
            None => vals,
            Some(r) => {
                let r = r as usize;
                let after = k - r - 1;
                let tail: Vals = vals.drain(vals.len() - after..).collect();
                let middle: Vals = vals.drain(r..).collect();
                let rest = match (middle.as_slice(), args.get(r)) {
                    ([v], Some(a)) if a.sym_splice().is_some() && args.len() - r - after == 1 => *v,
                    _ => {
                        let t = self.st.alloc(Kind::Tuple(Box::new(middle.iter().copied().collect())), Owner::None);
                        for v in middle {
                            self.st.own(v, Owner::Node(t));
                            // A value changed in place makes the tuple
                            // holding it changed (the invariant `touch`
                            // relies on: it stops at a changed node).
                            if let Val::Node(n) = v {
                                if self.st.nodes[n.ix()].changed {
                                    self.st.nodes[t.ix()].changed = true;
                                }
                            }
                        }
                        Val::Node(t)
                    }
                };
                vals.push(rest);
                vals.extend(tail);
                vals
            }
        }
    }

    fn beta(&mut self, b: NodeId, callee: Callee, args: super::look::Args) {
        // The lambda, and whether it is bound in place.
        let (lam, in_place) = match callee {
            Callee::Own(n) => {
                if let Some(body) = self.st.body_mut(b) {
                    if let CmdN::App { head, .. } = &mut body.cmd {
                        *head = Val::EMPTY;
                    }
                }
                (n, true)
            }
            Callee::Via(s, n) => match self.sole_chain(s) {
                Some(last) => {
                    self.st.slots[last.ix()].state = SlotState::Bound(Val::Bool(true));
                    (n, true)
                }
                None => (n, false),
            },
            Callee::Rec(r) => match self.st.kind(r) {
                Kind::Rec { lam, .. } => (*lam, false),
                _ => return,
            },
            Callee::Copy(n) => (n, false),
        };
        let Kind::Lam(l) = self.st.kind(lam) else { return };
        // A lambda bound in place is used up: its node is taken, not cloned.
        let l: LamN = if in_place {
            match std::mem::replace(&mut self.st.nodes[lam.ix()].kind, Kind::Splice(Val::EMPTY)) {
                Kind::Lam(l) => {
                    self.templates.release(l.tpl);
                    *l
                }
                _ => return,
            }
        } else {
            l.as_ref().clone()
        };
        let vals = self.bindings(b, &l, &args);
        let outer = self.enclosing_lambda(b);
        if in_place {
            self.betas.in_place += 1;
            self.st.set_owner(lam, Owner::None);
            // Their waiters are taken as they are bound, before they go on
            // a list (where a slot keeps its place on the list instead),
            // and woken below.
            let mut bound: SmallVec<[SlotId; 8]> = SmallVec::new();
            let mut waiters: SmallVec<[u32; 8]> = SmallVec::new();
            self.bind(l.sparam, Val::Stage(true));
            bound.push(l.sparam);
            waiters.push(self.st.take_waiters(l.sparam));
            for (&p, &v) in l.params.iter().zip(&vals) {
                self.bind(p, v);
                self.forward(p);
                bound.push(p);
                waiters.push(self.st.take_waiters(p));
            }
            // The binders outlive their lambda: they become locals of the
            // lambda around the body (copied with it), or are let go at the
            // top level.
            // A binder nothing reads (no occurrence, no staging expression)
            // is let go after the wake instead.
            let mut dead: SmallVec<[SlotId; 8]> = SmallVec::new();
            let mut ls: SmallVec<[SlotId; 8]> = SmallVec::new();
            for s in std::iter::once(l.sparam).chain(l.params.iter().copied()) {
                if self.unread(s) {
                    dead.push(s);
                } else {
                    ls.push(s);
                }
            }
            self.st.release(lam);
            let body = l.body;
            // At the top level they are let go at once, with no list.
            let list = outer.map(|_| self.link(&ls, (l.locals, l.locals_tail)));
            self.replace_body(b, body);
            match list {
                Some(list) => self.adopt_list(outer, list, false),
                None => self.let_go(&ls, l.locals),
            }
            self.wake_in(body, &bound, &waiters);
            for s in dead {
                self.unref(s);
            }
        } else {
            let mut vals = vals;
            for v in vals.iter_mut() {
                *v = self.shortcut(*v);
            }
            let mut c = std::mem::take(&mut self.scratch);
            c.map.insert(l.sparam, Subst::Value(Val::Stage(true)));
            let mut substs: SmallVec<[Subst; 5]> = smallvec::smallvec![Subst::Value(Val::Stage(true))];
            let mut fresh: SmallVec<[SlotId; 8]> = SmallVec::new();
            for (&p, &v) in l.params.iter().zip(&vals) {
                match v {
                    Val::Node(n) => {
                        let f = self.st.slot(self.st.slots[p.ix()].origin());
                        self.st.slots[f.ix()].state = SlotState::Bound(v);
                        self.st.set_owner(n, Owner::Slot(f));
                        c.map.insert(p, Subst::Slot(f));
                        substs.push(Subst::Slot(f));
                        fresh.push(f);
                    }
                    other => {
                        c.map.insert(p, Subst::Value(other));
                        substs.push(Subst::Value(other));
                    }
                }
            }
            // Before its first copy, the closed lambdas inside are lifted
            // out, to be shared by the copies (`lift.rs`).
            if l.tpl == super::template::NO_TEMPLATE && l.locals == SlotId::NONE && matches!(self.st.owner(lam), Owner::Slot(_)) {
                self.lift_closed(lam);
            }
            // The lambda's locals are copied with its body; they become
            // locals of the lambda around.
            let (olds, news) = self.map_locals(l.locals, &mut c);
            // A lambda not changed since it was made is copied from its
            // template (`template.rs`), as the walk would copy it.
            let copied = match self.template_for(lam) {
                Some(t) => {
                    self.betas.from_template += 1;
                    self.instantiate(t, &substs, &mut c)
                }
                None => {
                    self.betas.walked += 1;
                    self.copy_with(Val::Node(l.body), &mut c)
                }
            };
            let Val::Node(copy) = copied else { return };
            self.copy_locals(&olds, &news, &mut c);
            // The arguments' own occurrences: each place in the copy holds
            // one of its own.
            for (&p, &v) in l.params.iter().zip(&vals) {
                if let Val::Var(_) = v {
                    let _ = p;
                    self.drop_val(v);
                }
            }
            self.replace_body(b, copy);
            // Slots bound to nodes have no binder: locals of the lambda
            // around, or let go at the top level.
            // An argument no place in the copy reads is dropped.
            fresh.retain(|f| {
                let f = *f;
                if self.st.slots[f.ix()].occs != 0 {
                    return true;
                }
                let state = self.st.slots[f.ix()].state;
                self.st.release_slot(f);
                if let SlotState::Bound(v @ Val::Node(_)) = state {
                    self.st.own(v, Owner::None);
                    self.drop_val(v);
                }
                false
            });
            let fresh = self.link(&fresh, (SlotId::NONE, SlotId::NONE));
            self.adopt_list(outer, fresh, true);
            let copied = (
                news.first().copied().unwrap_or(SlotId::NONE),
                news.last().copied().unwrap_or(SlotId::NONE),
            );
            self.adopt_list(outer, copied, false);
            let mut pending = std::mem::take(&mut c.pending);
            for &nb in &c.bodies {
                if self.settle(nb) {
                    pending.push(nb);
                }
            }
            c.map.clear();
            c.bodies.clear();
            self.schedule(copy, &pending, true);
            pending.clear();
            c.pending = pending;
            self.scratch = c;
        }
    }

    /// Whether nothing reads slot `s` but the one reference it has left
    /// (its binder's, or a local list's): no occurrence, no staging
    /// expression, so nobody can wait on it.
    pub(super) fn unread(&self, s: SlotId) -> bool {
        let slot = &self.st.slots[s.ix()];
        slot.occs == 0 && slot.refs == 1
    }

    /// The last slot of the chain of bindings from `s` to a lambda, when
    /// every slot of it has one occurrence left (the head's): the lambda can
    /// be taken.
    fn sole_chain(&self, s: SlotId) -> Option<SlotId> {
        let mut cur = s;
        loop {
            let slot = &self.st.slots[cur.ix()];
            if slot.occs != 1 {
                return None;
            }
            match slot.state {
                SlotState::Bound(Val::Var(t)) => cur = t,
                SlotState::Bound(Val::Node(_)) => return Some(cur),
                _ => return None,
            }
        }
    }

    /// Binds slot `s` to `v` (which it now owns).
    /// A value nothing will read (no occurrence) is dropped at once: a
    /// staging expression only needs to know it is concrete.
    fn bind(&mut self, s: SlotId, v: Val) {
        let v = self.shortcut(v);
        if let (Val::Node(_), 0) = (v, self.st.slots[s.ix()].occs) {
            self.st.slots[s.ix()].state = SlotState::Bound(Val::Bool(true));
            self.st.own(v, Owner::None);
            self.drop_val(v);
            return;
        }
        self.st.slots[s.ix()].state = SlotState::Bound(v);
        self.st.own(v, Owner::Slot(s));
    }

    /// A binder `p` bound in place to another variable, read at one
    /// place and by no staging expression: that place now reads the other
    /// variable, and `p` is left unread (let go with the binders nothing
    /// reads), so chains of variable bindings do not keep a slot each.
    fn forward(&mut self, p: SlotId) {
        let slot = &self.st.slots[p.ix()];
        let SlotState::Bound(v @ Val::Var(_)) = slot.state else { return };
        if slot.occs != 1 || slot.refs != 1 {
            return;
        }
        let Owner::Node(n) = self.st.holder(p) else { return };
        let Some(i) = self.st.field_holding(n, Val::Var(p)) else { return };
        // The value's occurrence moves from the slot to the place.
        let slot = &mut self.st.slots[p.ix()];
        slot.state = SlotState::Bound(Val::Bool(true));
        slot.occs = 0;
        self.set_field_in_place(n, i, v);
    }

    /// An occurrence `Var(t)` of a slot that only forwards to another
    /// variable becomes an occurrence of the chain's last slot, so that
    /// chains of variable-to-variable bindings stay one hop long.
    fn shortcut(&mut self, v: Val) -> Val {
        let Val::Var(t) = v else { return v };
        let mut end = t;
        while let SlotState::Bound(Val::Var(u)) = self.st.slots[end.ix()].state {
            end = u;
        }
        if end == t {
            return v;
        }
        self.add_occ(end);
        self.drop_val(Val::Var(t));
        Val::Var(end)
    }

    /// Schedules the bodies that waited on the slots `bound` (just bound in
    /// place, their scope now at `root`, their waiter lists `waiters`
    /// taken off them) that are now pending. One woken
    /// body that lies in no shared value (`shared.rs`) is the next in
    /// post-order wherever it stands in the new subtree: it is pushed as
    /// it is, even inside a value with one occurrence, where it runs.
    fn wake_in(&mut self, root: NodeId, bound: &[SlotId], waiters: &[u32]) {
        let mut woken = self.wake(waiters);
        // A lambda's body staged on its staging parameter was not
        // registered with it (`look.rs`, `settle`): it comes last in
        // post-order.
        if self.st.body(root).is_some_and(|b| b.status == Status::New) && self.settle(root) {
            woken.push(root);
        }
        match woken.as_slice() {
            // The body now standing where the executed one stood lies in no
            // shared value, as that one did not: no need to ask.
            [w] if *w == root || !self.may_be_shared(bound) => {
                debug_assert!(!self.lies_in_shared(*w), "{w:?} woke in a shared value");
                if let Some(body) = self.st.body(*w) {
                    self.work.push((*w, body.gen));
                }
            }
            _ => self.schedule(root, &woken, false),
        }
    }

    /// The bodies on the waiter lists `waiters` (taken off their slots)
    /// that are now pending.
    fn wake(&mut self, waiters: &[u32]) -> SmallVec<[NodeId; 4]> {
        let mut woken = SmallVec::new();
        for &head in waiters {
            let mut cur = head;
            while let Some((w, gen)) = self.st.next_waiter(&mut cur) {
                let live = matches!(self.st.kind(w), Kind::Body(body) if body.gen == gen && body.status != Status::Pending);
                if live && self.settle(w) {
                    woken.push(w);
                }
            }
        }
        woken
    }

    /// The nearest lambda around body `b` (`None` at the top level).
    pub(super) fn enclosing_lambda(&self, b: NodeId) -> Option<NodeId> {
        let mut cur = self.st.owner(b);
        loop {
            match cur {
                Owner::Node(p) => {
                    if let Kind::Lam(_) = self.st.kind(p) {
                        return Some(p);
                    }
                    cur = self.st.owner(p);
                }
                Owner::Slot(_) | Owner::None => return None,
            }
        }
    }

    /// Puts `new` where body `b` stands and drops `b`.
    fn replace_body(&mut self, b: NodeId, new: NodeId) {
        match self.st.owner(b) {
            Owner::Node(p) => self.st.replace_field(p, b, Val::Node(new)),
            Owner::None => {
                assert_eq!(b, self.root, "a detached body {b:?} executed");
                self.root = new;
                self.st.set_owner(new, Owner::None);
            }
            Owner::Slot(_) => debug_assert!(false, "a body owned by a slot"),
        }
        self.st.set_owner(b, Owner::None);
        self.drop_val(Val::Node(b));
    }

    /// `if` chose `branch`: body `b` becomes `⟨always, branch⟩`.
    fn rewrite_if(&mut self, b: NodeId, branch: Val) {
        let gen = self.next_gen();
        let Some(body) = self.st.body_mut(b) else { return };
        let old_stage = std::mem::replace(&mut body.stage, Stage::Const(true));
        let old = std::mem::replace(
            &mut body.cmd,
            CmdN::App {
                head: branch,
                args: smallvec::SmallVec::new(),
            },
        );
        body.gen = gen;
        body.status = Status::New;
        self.st.own(branch, Owner::Node(b));
        self.drop_stage_refs(&old_stage);
        if let CmdN::App { head, args } = old {
            self.drop_val(head);
            for a in args.iter() {
                self.drop_val(*a);
            }
        }
        if self.settle(b) {
            self.schedule(b, &[b], true);
        }
    }

    /// `fix`: the name is bound to the recursive value, the staging
    /// parameter to `always`, and the scope takes the body's place.
    fn fix(&mut self, b: NodeId) {
        let Some(body) = self.st.body_mut(b) else { return };
        let CmdN::Fix {
            sparam,
            name,
            lam,
            body: scope,
        } = body.cmd
        else {
            return;
        };
        // Emptied: dropping `b` leaves what moves on alone.
        if let Some(body) = self.st.body_mut(b) {
            body.cmd = CmdN::App {
                head: Val::EMPTY,
                args: smallvec::SmallVec::new(),
            };
        }
        let outer = self.enclosing_lambda(b);
        let r = self.st.alloc(
            Kind::Rec {
                name,
                lam,
                inner: super::store::UNCOUNTED,
            },
            Owner::None,
        );
        self.st.set_owner(lam, Owner::Node(r));
        self.bind(sparam, Val::Stage(true));
        self.bind(name, Val::Node(r));
        let waiters = [self.st.take_waiters(sparam), self.st.take_waiters(name)];
        // The fix held a reference to each binder: the recursive value
        // keeps the name's; the staging parameter's becomes a local's (and
        // the name is a local too, so that a copy copies its value).
        self.st.slots[name.ix()].refs += 1;
        self.st.set_owner(scope, Owner::None);
        self.replace_body(b, scope);
        let list = self.link(&[sparam, name], (SlotId::NONE, SlotId::NONE));
        self.adopt_list(outer, list, false);
        self.wake_in(scope, &[sparam, name], &waiters);
    }

    /// Whether body `b` is still the same pending body.
    pub(super) fn is_pending(&self, b: NodeId, gen: u32) -> bool {
        matches!(self.st.kind(b), Kind::Body(body) if body.gen == gen && body.status == Status::Pending)
    }
}
