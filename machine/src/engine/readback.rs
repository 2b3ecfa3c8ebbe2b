//! Reading the store back as core terms: the residual program, exit
//! values, a failing body for the verdict to word. A variable bound in
//! place is written out as its value at every occurrence (the reference's
//! substitution), each copy with binders of its own; a known tuple
//! spliced is expanded. Iterative: pieces are built children first.

use rustc_hash::FxHashMap;

use super::store::{CmdN, Kind, NodeId, SlotId, SlotState, Stage, Val};
use super::Engine;
use crate::expr::{Expr, ExprKind};
use crate::term::{self, Application, Arg, Atom, Fix, Lambda, Param, RecLambda, SExp, VarId, Vars};

/// A built part of a term. Pieces wait on the result stack for the rest
/// of their parent, as many as the term is deep, so a piece is small:
/// bodies and lambdas are boxed.
enum Piece {
    Atom(Atom),
    Splice(Atom),
    Body(Box<term::Body>),
    Lambda(Box<Lambda>),
}

/// The names of a readback: the variable table of the terms made, and the
/// term variable of each slot whose binder is being read.
pub struct Names {
    /// The table (the front end's, with the binders of the readback added).
    pub vars: Vars,
    scope: FxHashMap<SlotId, VarId>,
    free: FxHashMap<SlotId, VarId>,
}

impl Names {
    /// Names over a copy of the front end's table.
    pub fn new(source: &Vars) -> Names {
        Names {
            vars: source.clone(),
            scope: FxHashMap::default(),
            free: FxHashMap::default(),
        }
    }
}

enum Task {
    Val(Val),
    /// Build node `n` from the pieces of its children; then restore the
    /// scope of the binders it opened.
    Leave(NodeId, Vec<(SlotId, Option<VarId>)>),
}

impl Engine {
    /// The body at `n` as a term.
    pub(super) fn read_body(&self, n: NodeId, names: &mut Names) -> term::Body {
        match self.read(Val::Node(n), names) {
            Piece::Body(b) => *b,
            _ => term::Body::hollow(crate::span::Span::default()),
        }
    }

    /// A value as a term atom.
    pub(super) fn read_atom(&self, v: Val, names: &mut Names) -> Atom {
        match self.read(v, names) {
            Piece::Atom(a) | Piece::Splice(a) => a,
            Piece::Lambda(l) => Atom::Lambda(l),
            Piece::Body(_) => Atom::Int(0),
        }
    }

    fn scope(&self, s: SlotId, names: &mut Names, opened: &mut Vec<(SlotId, Option<VarId>)>) -> VarId {
        let v = names.vars.copy_of(self.st.slots[s.ix()].origin());
        opened.push((s, names.scope.insert(s, v)));
        v
    }

    fn var_name(&self, s: SlotId, names: &mut Names) -> VarId {
        if let Some(v) = names.scope.get(&s) {
            return *v;
        }
        let origin = self.st.slots[s.ix()].origin();
        *names.free.entry(s).or_insert_with(|| names.vars.copy_of(origin))
    }

    fn read_stage(&self, s: &Stage, names: &mut Names) -> SExp {
        let one = |x: SlotId, names: &mut Names| -> SExp {
            let mut cur = x;
            loop {
                if let Some(v) = names.scope.get(&cur) {
                    return SExp::Var(*v);
                }
                match self.st.slots[cur.ix()].state {
                    SlotState::Bound(Val::Var(t)) | SlotState::Alias(t) => cur = t,
                    SlotState::Bound(Val::Stage(b)) => return SExp::Const(b),
                    SlotState::Bound(_) => return SExp::Const(true),
                    _ => return SExp::Var(self.var_name(cur, names)),
                }
            }
        };
        match s {
            Stage::Const(b) => SExp::Const(*b),
            Stage::Var(x) => one(*x, names),
            Stage::Tree(t) => {
                let mapped: FxHashMap<VarId, SExp> = s.vars().into_iter().map(|x| (VarId(x.0), one(x, names))).collect();
                let mut t = t.as_ref().clone();
                crate::term::rewrite_stage(&mut t, &|v| mapped.get(&v).cloned());
                t
            }
        }
    }

    fn read(&self, v: Val, names: &mut Names) -> Piece {
        let mut stack = vec![Task::Val(v)];
        let mut results: Vec<Piece> = Vec::new();
        while let Some(t) = stack.pop() {
            match t {
                Task::Val(v) => match v {
                    Val::Var(s) => {
                        if let Some(x) = names.scope.get(&s) {
                            results.push(Piece::Atom(Atom::Var(*x)));
                            continue;
                        }
                        match self.st.slots[s.ix()].state {
                            SlotState::Bound(w) => stack.push(Task::Val(w)),
                            SlotState::Alias(t) => stack.push(Task::Val(Val::Var(t))),
                            _ => {
                                let x = self.var_name(s, names);
                                results.push(Piece::Atom(Atom::Var(x)));
                            }
                        }
                    }
                    Val::Int(i) => results.push(Piece::Atom(Atom::Int(i.get()))),
                    Val::Bool(b) => results.push(Piece::Atom(Atom::Bool(b))),
                    Val::Stage(b) => results.push(Piece::Atom(Atom::Stage(b))),
                    Val::Builtin(b) => results.push(Piece::Atom(Atom::Builtin(b))),
                    Val::Node(n) => {
                        crate::memory::tick();
                        let mut opened = Vec::new();
                        match self.st.kind(n) {
                            Kind::Free(_) => results.push(Piece::Atom(Atom::Int(0))),
                            Kind::Body(b) => match &b.cmd {
                                CmdN::App { head, args } => {
                                    stack.push(Task::Leave(n, opened));
                                    stack.extend(args.iter().rev().map(|a| Task::Val(*a)));
                                    stack.push(Task::Val(*head));
                                }
                                CmdN::Fix { sparam, name, lam, body } => {
                                    self.scope(*sparam, names, &mut opened);
                                    self.scope(*name, names, &mut opened);
                                    stack.push(Task::Leave(n, opened));
                                    stack.push(Task::Val(Val::Node(*body)));
                                    stack.push(Task::Val(Val::Node(*lam)));
                                }
                            },
                            Kind::Lam(l) => {
                                self.scope(l.sparam, names, &mut opened);
                                for &p in l.params.iter() {
                                    self.scope(p, names, &mut opened);
                                }
                                stack.push(Task::Leave(n, opened));
                                stack.push(Task::Val(Val::Node(l.body)));
                            }
                            Kind::Rec { name, lam, .. } => {
                                self.scope(*name, names, &mut opened);
                                stack.push(Task::Leave(n, opened));
                                stack.push(Task::Val(Val::Node(*lam)));
                            }
                            Kind::Tuple(xs) => {
                                stack.push(Task::Leave(n, opened));
                                stack.extend(xs.iter().rev().map(|a| Task::Val(*a)));
                            }
                            Kind::Splice(x) => {
                                stack.push(Task::Leave(n, opened));
                                stack.push(Task::Val(*x));
                            }
                            Kind::Expr(e) => {
                                stack.push(Task::Leave(n, opened));
                                stack.extend(e.holes.iter().rev().map(|a| Task::Val(*a)));
                            }
                            Kind::Data(a) => {
                                let mut parts = Vec::new();
                                super::data::values(a, &mut |x| parts.push(x));
                                stack.push(Task::Leave(n, opened));
                                stack.extend(parts.into_iter().rev().map(Task::Val));
                            }
                        }
                    }
                },
                Task::Leave(n, opened) => {
                    let piece = self.build(n, &mut results, names);
                    for (s, old) in opened.into_iter().rev() {
                        match old {
                            Some(v) => {
                                names.scope.insert(s, v);
                            }
                            None => {
                                names.scope.remove(&s);
                            }
                        }
                    }
                    results.push(piece);
                }
            }
        }
        results.pop().unwrap_or(Piece::Atom(Atom::Int(0)))
    }

    /// Builds node `n` from its children's pieces (on top of `results`).
    fn build(&self, n: NodeId, results: &mut Vec<Piece>, names: &mut Names) -> Piece {
        // The last `k` pieces, taken off the stack.
        fn take(results: &mut Vec<Piece>, k: usize) -> std::vec::Drain<'_, Piece> {
            let at = results.len() - k;
            results.drain(at..)
        }
        match self.st.kind(n) {
            Kind::Body(b) => {
                let span = self.spans[b.site as usize];
                let stage = self.read_stage(&b.stage, names);
                match &b.cmd {
                    CmdN::App { args, .. } => {
                        let mut parts = take(results, args.len() + 1);
                        let head = piece_atom(parts.next());
                        let args = arg_list(parts);
                        Piece::Body(Box::new(term::Body {
                            stage,
                            cmd: term::Cmd::App(Application {
                                head,
                                args,
                                sugar: Default::default(),
                            }),
                            span,
                        }))
                    }
                    CmdN::Fix { sparam, name, .. } => {
                        let mut parts = take(results, 2);
                        let lam = match parts.next() {
                            Some(Piece::Lambda(l)) => *l,
                            _ => empty_lambda(),
                        };
                        let body = match parts.next() {
                            Some(Piece::Body(b)) => *b,
                            _ => term::Body::hollow(span),
                        };
                        Piece::Body(Box::new(term::Body {
                            stage,
                            cmd: term::Cmd::Fix(Box::new(Fix {
                                sparam: names.scope.get(sparam).copied().unwrap_or(VarId(0)),
                                name: names.scope.get(name).copied().unwrap_or(VarId(0)),
                                lam,
                                body,
                            })),
                            span,
                        }))
                    }
                }
            }
            Kind::Lam(l) => {
                let body = match results.pop() {
                    Some(Piece::Body(b)) => *b,
                    _ => term::Body::hollow(crate::span::Span::default()),
                };
                let params = l
                    .params
                    .iter()
                    .enumerate()
                    .map(|(i, p)| Param {
                        var: names.scope.get(p).copied().unwrap_or(VarId(0)),
                        rest: l.rest == Some(i as u32),
                    })
                    .collect();
                Piece::Lambda(Box::new(Lambda {
                    sparam: names.scope.get(&l.sparam).copied().unwrap_or(VarId(0)),
                    params,
                    body,
                    span: self.spans[l.site as usize],
                }))
            }
            Kind::Rec { name, .. } => {
                let lam = match results.pop() {
                    Some(Piece::Lambda(l)) => *l,
                    _ => empty_lambda(),
                };
                Piece::Atom(Atom::Rec(Box::new(RecLambda {
                    name: names.scope.get(name).copied().unwrap_or(VarId(0)),
                    lam,
                })))
            }
            Kind::Tuple(xs) => {
                let parts = take(results, xs.len());
                Piece::Atom(Atom::Tuple(arg_list(parts)))
            }
            Kind::Splice(_) => Piece::Splice(piece_atom(results.pop())),
            Kind::Expr(e) => {
                let (tpl, vars, holes) = (&e.tpl, &e.vars, &e.holes);
                let parts = take(results, holes.len());
                let vals: Vec<Atom> = parts.map(|p| piece_atom(Some(p))).collect();
                let e: Expr = tpl.map_leaves(&mut |leaf| match &leaf.kind {
                    ExprKind::Val(Atom::Var(v)) => match vars.iter().position(|w| w == v) {
                        Some(i) => ExprKind::Val(vals[i].clone()),
                        None => leaf.kind.clone(),
                    },
                    other => other.clone(),
                });
                Piece::Atom(Atom::Expr(Box::new(e)))
            }
            Kind::Data(a) => {
                let mut keys = Vec::new();
                super::data::walk(a, &mut |x| {
                    if let Atom::Var(v) = x {
                        keys.push(Err(*v));
                    } else if let Some(h) = super::store::handle_of(x) {
                        keys.push(Ok(h));
                    }
                });
                let parts = take(results, keys.len());
                let mut by_var: FxHashMap<VarId, Atom> = FxHashMap::default();
                let mut by_handle: FxHashMap<NodeId, Atom> = FxHashMap::default();
                for (k, p) in keys.into_iter().zip(parts) {
                    match k {
                        Err(v) => {
                            by_var.insert(v, piece_atom(Some(p)));
                        }
                        Ok(h) => {
                            by_handle.insert(h, piece_atom(Some(p)));
                        }
                    }
                }
                let mut a = a.as_ref().clone();
                super::data::walk_mut(&mut a, &mut |x| {
                    if let Atom::Var(v) = x {
                        if let Some(w) = by_var.get(v) {
                            *x = w.clone();
                        }
                    } else if let Some(h) = super::store::handle_of(x) {
                        if let Some(w) = by_handle.get(&h) {
                            *x = w.clone();
                        }
                    }
                });
                Piece::Atom(a)
            }
            Kind::Free(_) => Piece::Atom(Atom::Int(0)),
        }
    }
}

fn piece_atom(p: Option<Piece>) -> Atom {
    match p {
        Some(Piece::Atom(a)) | Some(Piece::Splice(a)) => a,
        Some(Piece::Lambda(l)) => Atom::Lambda(l),
        _ => Atom::Int(0),
    }
}

/// An argument or element list; known tuples spliced are expanded.
fn arg_list(parts: impl Iterator<Item = Piece>) -> Vec<Arg> {
    let mut out = Vec::new();
    for p in parts {
        match p {
            Piece::Splice(a) => match a.into_tuple() {
                Ok(xs) => out.extend(xs),
                Err(other) => out.push(Arg::Splice(other)),
            },
            other => out.push(Arg::Atom(piece_atom(Some(other)))),
        }
    }
    out
}

fn empty_lambda() -> Lambda {
    Lambda {
        sparam: VarId(0),
        params: Vec::new(),
        body: term::Body::hollow(crate::span::Span::default()),
        span: crate::span::Span::default(),
    }
}

/// A step of [`Engine::expanded_size`].
enum SizeTask {
    Val(Val),
    /// The sizes of a node's `usize` children are on the results: add 1.
    Node(usize),
    /// The size on top of the results is that of slot's value: remember it.
    Slot(SlotId),
}

impl Engine {
    /// The nodes a readback of `v` writes out, saturating: a variable bound
    /// to a value counts as that value at each of its occurrences, so a
    /// value held in many places counts many times (a graph of a few
    /// thousand nodes can stand for a term of 2^30). Linear in the store:
    /// each slot's size is worked out once (a recursive value's own name,
    /// met inside it, counts as the one node of a variable).
    pub(super) fn expanded_size(&self, v: Val) -> u64 {
        let mut memo: FxHashMap<SlotId, u64> = FxHashMap::default();
        let mut stack = vec![SizeTask::Val(v)];
        let mut sizes: Vec<u64> = Vec::new();
        while let Some(t) = stack.pop() {
            match t {
                SizeTask::Val(Val::Var(s)) => {
                    if let Some(&n) = memo.get(&s) {
                        sizes.push(n);
                        continue;
                    }
                    let next = match self.st.slots[s.ix()].state {
                        SlotState::Bound(w) => w,
                        SlotState::Alias(t) => Val::Var(t),
                        _ => {
                            sizes.push(1);
                            continue;
                        }
                    };
                    memo.insert(s, 1);
                    stack.push(SizeTask::Slot(s));
                    stack.push(SizeTask::Val(next));
                }
                SizeTask::Val(Val::Node(n)) => {
                    crate::memory::tick();
                    let mut kids = Vec::new();
                    match self.st.kind(n) {
                        Kind::Data(a) => super::data::values(a, &mut |x| kids.push(x)),
                        _ => self.st.for_fields(n, |x| kids.push(x)),
                    }
                    stack.push(SizeTask::Node(kids.len()));
                    stack.extend(kids.into_iter().map(SizeTask::Val));
                }
                SizeTask::Val(_) => sizes.push(1),
                SizeTask::Node(k) => {
                    let at = sizes.len() - k;
                    let sum = sizes.drain(at..).fold(1u64, u64::saturating_add);
                    sizes.push(sum);
                }
                SizeTask::Slot(s) => {
                    if let Some(&n) = sizes.last() {
                        memo.insert(s, n);
                    }
                }
            }
        }
        sizes.pop().unwrap_or(0)
    }
}
