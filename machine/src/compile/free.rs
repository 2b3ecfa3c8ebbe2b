//! The free variables of a lambda: what a closure of it must capture.
//!
//! Every binder of a term has its own [`VarId`], and a binder comes before
//! the uses it binds in a walk of the term in pre-order ([`walk`]), so the
//! free variables of a lambda are the variables it uses that no binder
//! before the use, inside the lambda, binds. They are listed in the order
//! of their first use in that walk: the layout of a closure, which the
//! generator and the runtime library ([`super::native`]) both derive from
//! it.
//!
//! [`free_vars`] walks one lambda. The generator asks for the lambdas it
//! lifts one by one, and a chain of continuations cut every hundred steps
//! would make those walks quadratic, so it asks a [`FreeIndex`] of the
//! whole program instead: each answer costs the logarithm of the term's
//! size per free variable. Staging parameters are left out where the
//! generator asks: in code that runs in call order, a staging parameter in
//! scope belongs to a lambda that has been called, so it is `always`
//! wherever it is read. The walks keep their own stacks.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::term::{Atom, Body, Cmd, Lambda, VarId, VarKind, Vars};

/// What a walk meets, in order.
enum Event<'a> {
    /// A lambda begins (its binders and body follow).
    Enter(&'a Lambda),
    /// The lambda that began last ends.
    Leave(&'a Lambda),
    /// A binder.
    Bind(VarId),
    /// A use of a variable.
    Use(VarId),
}

/// What a walk has still to visit.
enum Item<'a> {
    Body(&'a Body),
    Atom(&'a Atom),
    Lambda(&'a Lambda, Option<VarId>),
    Leave(&'a Lambda),
}

/// Walks `start` in pre-order: a lambda's binders (its name if it is a
/// recursive value, its staging parameter, its parameters) before its body;
/// a `fix`'s name and staging parameter before its lambda and its scope;
/// an application's head before its arguments, left to right.
fn walk<'a>(start: Item<'a>, mut visit: impl FnMut(Event<'a>)) {
    let mut stack = vec![start];
    while let Some(item) = stack.pop() {
        match item {
            Item::Lambda(l, name) => {
                visit(Event::Enter(l));
                if let Some(n) = name {
                    visit(Event::Bind(n));
                }
                visit(Event::Bind(l.sparam));
                for p in &l.params {
                    visit(Event::Bind(p.var));
                }
                stack.push(Item::Leave(l));
                stack.push(Item::Body(&l.body));
            }
            Item::Leave(l) => visit(Event::Leave(l)),
            Item::Body(b) => match &b.cmd {
                Cmd::App(app) => {
                    stack.extend(app.args.iter().rev().map(|a| Item::Atom(a.atom())));
                    stack.push(Item::Atom(&app.head));
                }
                Cmd::Fix(fx) => {
                    visit(Event::Bind(fx.name));
                    visit(Event::Bind(fx.sparam));
                    stack.push(Item::Body(&fx.body));
                    stack.push(Item::Lambda(&fx.lam, None));
                }
            },
            Item::Atom(a) => match a {
                Atom::Var(v) => visit(Event::Use(*v)),
                Atom::Tuple(xs) => stack.extend(xs.iter().rev().map(|x| Item::Atom(x.atom()))),
                Atom::Record(fs) => stack.extend(fs.iter().rev().map(|(_, x)| Item::Atom(x))),
                Atom::Map(kvs) => stack.extend(kvs.iter().rev().flat_map(|(k, v)| [Item::Atom(v), Item::Atom(k)])),
                Atom::Expr(e) => stack.extend(e.vals().into_iter().rev().map(Item::Atom)),
                Atom::Lambda(l) => stack.push(Item::Lambda(l, None)),
                Atom::Rec(r) => stack.push(Item::Lambda(&r.lam, Some(r.name))),
                Atom::Int(_) | Atom::Float(_) | Atom::Bool(_) | Atom::Str(_) | Atom::Stage(_) | Atom::Builtin(_) | Atom::Matrix(_) => {}
            },
        }
    }
}

/// The variables used in what `start` walks and bound nowhere before the
/// use in it, in the order of their first use.
fn used_unbound(start: Item<'_>) -> Vec<VarId> {
    let mut bound: FxHashSet<VarId> = FxHashSet::default();
    let mut seen: FxHashSet<VarId> = FxHashSet::default();
    let mut used = Vec::new();
    walk(start, |e| match e {
        Event::Bind(v) => {
            bound.insert(v);
        }
        Event::Use(v) => {
            if !bound.contains(&v) && seen.insert(v) {
                used.push(v);
            }
        }
        Event::Enter(_) | Event::Leave(_) => {}
    });
    used
}

/// The free variables of `lam`, in the order of their first use, with the
/// staging parameters (of lambdas around `lam`) among them and without
/// `except`, the name a recursive lambda has for itself.
pub(super) fn free_vars(lam: &Lambda, except: Option<VarId>) -> Vec<VarId> {
    let mut free = used_unbound(Item::Lambda(lam, None));
    free.retain(|v| Some(*v) != except);
    free
}

/// The variables of the atom `a` (a tuple written as a head), in the order
/// of their first use, staging parameters among them.
pub(super) fn atom_free_vars(a: &Atom) -> Vec<VarId> {
    used_unbound(Item::Atom(a))
}

/// Marks no use: a position of the walk that is not a use.
const NO_USE: u32 = u32::MAX;

/// The free variables of every lambda of a program, answered one lambda
/// at a time as [`free_vars`] answers them, without walking the lambda.
///
/// The walk of the program numbers its events. A lambda is the range of
/// positions from its `Enter` to its `Leave`; a variable is free in it if
/// it is used in the range, and bound before it (its binder precedes the
/// range). A use at position `p` of a variable bound at `b` whose previous
/// use is at `q` gets the key `max(q, b) + 1` (0 for "none"): in the range
/// starting at `a`, it is the first use of a free variable exactly when its
/// key is at most `a`. A tree of minimum keys finds those uses in order.
pub(super) struct FreeIndex {
    /// Each lambda's range of positions, by address.
    ranges: FxHashMap<*const Lambda, (u32, u32)>,
    /// The variable used at each position (uses only).
    vars: Vec<VarId>,
    /// The minimum key of each node of a complete binary tree over the
    /// positions: leaves from `leaves` on, node `i`'s children `2i`, `2i+1`.
    tree: Vec<u32>,
    leaves: usize,
}

impl FreeIndex {
    /// The index of the program whose top-level body is `body`.
    pub(super) fn new(body: &Body) -> FreeIndex {
        let mut ranges: FxHashMap<*const Lambda, (u32, u32)> = FxHashMap::default();
        let mut bound_at: FxHashMap<VarId, u32> = FxHashMap::default();
        let mut last_use: FxHashMap<VarId, u32> = FxHashMap::default();
        let mut keys: Vec<u32> = Vec::new();
        let mut vars: Vec<VarId> = Vec::new();
        let mut pos: u32 = 0;
        walk(Item::Body(body), |e| {
            let mut key = NO_USE;
            let mut var = VarId(0);
            match e {
                Event::Enter(l) => {
                    ranges.insert(l as *const Lambda, (pos, pos));
                }
                Event::Leave(l) => {
                    if let Some(r) = ranges.get_mut(&(l as *const Lambda)) {
                        r.1 = pos;
                    }
                }
                Event::Bind(v) => {
                    bound_at.insert(v, pos);
                }
                Event::Use(v) => {
                    let after = |p: Option<&u32>| p.map_or(0, |p| p + 1);
                    key = after(last_use.get(&v)).max(after(bound_at.get(&v)));
                    last_use.insert(v, pos);
                    var = v;
                }
            }
            keys.push(key);
            vars.push(var);
            pos += 1;
        });
        let leaves = keys.len().next_power_of_two().max(1);
        let mut tree = vec![NO_USE; 2 * leaves];
        tree[leaves..leaves + keys.len()].copy_from_slice(&keys);
        for i in (1..leaves).rev() {
            tree[i] = tree[2 * i].min(tree[2 * i + 1]);
        }
        FreeIndex {
            ranges,
            vars,
            tree,
            leaves,
        }
    }

    /// [`free_vars`] of `lam`, a lambda of the program, without staging
    /// parameters; `None` if `lam` is not one of the program's lambdas.
    pub(super) fn free_vars(&self, lam: &Lambda, except: Option<VarId>, vars: &Vars) -> Option<Vec<VarId>> {
        let &(start, end) = self.ranges.get(&(lam as *const Lambda))?;
        let mut free = Vec::new();
        let mut from = start as usize;
        while let Some(p) = self.first_at_most(from, end as usize, start) {
            let v = self.vars[p];
            if Some(v) != except && vars.info(v).kind != VarKind::Stage {
                free.push(v);
            }
            from = p + 1;
        }
        Some(free)
    }

    /// The first position in `from..to` whose key is at most `bound`.
    fn first_at_most(&self, from: usize, to: usize, bound: u32) -> Option<usize> {
        // Down the tree from the root, left first, into the nodes that
        // overlap the range and hold a small enough key.
        let mut stack = vec![(1usize, 0usize, self.leaves)];
        while let Some((node, lo, hi)) = stack.pop() {
            if hi <= from || lo >= to || self.tree[node] > bound {
                continue;
            }
            if hi - lo == 1 {
                return Some(lo);
            }
            let mid = (lo + hi) / 2;
            stack.push((2 * node + 1, mid, hi));
            stack.push((2 * node, lo, mid));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::span::SourceMap;
    use crate::syntax::load::add_source;
    use crate::syntax::{load_from, MemFs};
    use crate::term::Program;

    fn load(text: &str) -> Program {
        let mut sources = SourceMap::new();
        let id = add_source(&mut sources, "t.dcps", None, text.as_bytes().to_vec()).expect("source");
        load_from(&MemFs::default(), id, &mut sources, false).expect("loads")
    }

    /// Every lambda of `body`, with the name a recursive one has for itself.
    fn lambdas(body: &Body) -> Vec<(&Lambda, Option<VarId>)> {
        super::super::numbered(body).lambdas
    }

    #[test]
    fn the_index_answers_as_the_walk_of_each_lambda() {
        let programs = [
            "let a = 1\nlet b = 2\n\"a + b\" (c)\nfix f(x, k) { \"x + a\" (y) { k [y, b, c] } } in\n(g) { g 1 (r) { f r (s) { $exit [s, a] } } } (z, k) { k \"z * c\" }\n",
            "let x0 = 0\n\"x0 + 1\" (x1)\n\"x1 + x0\" (x2)\n(k) { k [x0, x1, x2] } (t) { $exit t }\n",
            "fix loop(i, acc, k) {\n  if \"i > 10\" () { k acc } () { \"acc+i\" (a) { loop \"i+1\" a k } }\n} in loop 1 0 $exit\n",
            "let m = 5\nfix h(n, k) { (j) { k [n, m, j] } \"n * m\" } in\nh 1 (v) { (w) { $exit [v, m, w] } h }\n",
        ];
        for text in programs {
            let p = load(text);
            let index = FreeIndex::new(&p.body);
            let all = lambdas(&p.body);
            assert!(all.len() >= 3, "{text}");
            for (lam, rec) in all {
                let mut walked = free_vars(lam, rec);
                walked.retain(|v| p.vars.info(*v).kind != VarKind::Stage);
                assert_eq!(index.free_vars(lam, rec, &p.vars), Some(walked), "{text}");
            }
        }
    }

    #[test]
    fn free_variables_come_in_the_order_of_their_first_use() {
        let p = load("let a = 1\nlet b = 2\n(k) { k [b, a, b] } (t) { $exit t }\n");
        let (lam, _) = lambdas(&p.body)
            .into_iter()
            .find(|(l, _)| l.params.len() == 1 && p.vars.name(l.params[0].var) == Some("k"))
            .expect("the lambda (k) { k [b, a, b] }");
        let names: Vec<&str> = FreeIndex::new(&p.body)
            .free_vars(lam, None, &p.vars)
            .expect("a lambda of the program")
            .into_iter()
            .map(|v| p.vars.name(v).unwrap_or("_"))
            .collect();
        assert_eq!(names, ["b", "a"]);
    }
}
