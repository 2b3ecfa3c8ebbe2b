//! The look at one body (LANGUAGE.md §4.3, §5): inactive, stuck on a
//! slot, failing, or ready with a plan. It follows the language's
//! [`verdict`](crate::verdict) decision for decision, reading variables
//! through their slots; a failure is worded by the verdict itself, on the
//! body read back as a term (`exec.rs`).

use smallvec::SmallVec;

use super::store::{handle, handle_of, CmdN, Kind, NodeId, Owner, SlotId, SlotState, Stage, Status, Val};
use super::Engine;
use crate::expr::eval::{eval_with, EvalError};
use crate::expr::ExprKind;
use crate::run::Rule;
use crate::term::{Arg, Atom, Builtin, VarId};

/// Where an evaluated argument comes from, which says how the rule gets
/// its own copy.
#[derive(Clone, Debug)]
pub(super) enum Src {
    /// The body's argument field `i`: moved.
    Field(u32),
    /// Element `i` of a tuple node spliced through this variable
    /// ([`SlotId::NONE`]: none): moved when the variable's chain has no
    /// other occurrence, else copied.
    Elem(NodeId, u32, SlotId),
    /// Computed by an expression as an inline value (the argument's `val`).
    Inline,
    /// Computed by an expression as a tuple or data: loaded. (Boxed: a
    /// plan is moved at every step, and most arguments are inline.)
    Computed(Box<Atom>),
    /// A splice of the symbolic tuple in this slot.
    SymSplice(SlotId),
    /// A failing argument's place.
    Failed,
}

/// An evaluated argument: its value (variables followed to their end) and
/// where it comes from.
#[derive(Clone, Debug)]
pub(super) struct ArgV {
    /// The value: `Val::Var` of an unbound slot when symbolic.
    pub val: Val,
    /// Its source.
    pub src: Src,
}

impl ArgV {
    /// A failing argument's place.
    const FAILED: ArgV = ArgV {
        val: Val::EMPTY,
        src: Src::Failed,
    };

    /// The slot of a symbolic splice.
    pub fn sym_splice(&self) -> Option<SlotId> {
        match self.src {
            Src::SymSplice(s) => Some(s),
            _ => None,
        }
    }
}

/// The evaluated arguments.
pub(super) type Args = SmallVec<[ArgV; 3]>;

/// The callee of a β and how to get it.
#[derive(Clone, Copy, Debug)]
pub(super) enum Callee {
    /// The lambda node in the head field: bound in place.
    Own(NodeId),
    /// The lambda reached through the head variable: bound in place when
    /// every slot of the chain has this one occurrence left, else copied.
    Via(SlotId, NodeId),
    /// A recursive lambda (the `Rec` node): its lambda is copied.
    Rec(NodeId),
    /// A lambda an expression computed (a handle): copied.
    Copy(NodeId),
}

/// What a ready body does.
#[derive(Clone, Debug)]
pub(super) enum Plan {
    /// β (or the expression form).
    Beta {
        /// The callee.
        callee: Callee,
        /// The arguments.
        args: Args,
        /// β or the expression form.
        rule: Rule,
    },
    /// `if` chose argument `k`.
    If(ArgV),
    /// `$exit` with this argument.
    Exit(ArgV),
    /// `fix`.
    Fix,
}

/// The look at a body.
// A look is made at every step and lives on the stack: boxing the plan
// would cost an allocation a step.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub(super) enum Look {
    /// Its staging expression is false.
    Inactive,
    /// Waits for this unbound slot.
    Stuck(SlotId),
    /// Executing it fails (the verdict words how).
    Fail,
    /// It executes.
    Ready(Plan),
}

impl Engine {
    /// Looks at body `b`, sets its status and registers it with the slots
    /// it waits on. Returns whether it is pending.
    ///
    /// A lambda's body staged on the lambda's own unbound staging
    /// parameter (the default) is left unregistered, with status
    /// [`Status::New`]: that slot is bound only by a β of the lambda,
    /// which looks at the body it puts in place (`exec.rs`, `wake_in`),
    /// or by a copy, whose bodies are looked at.
    pub(super) fn settle(&mut self, b: NodeId) -> bool {
        if self.waits_for_its_call(b) {
            if let Some(body) = self.st.body_mut(b) {
                body.status = Status::New;
            }
            return false;
        }
        let look = self.look(b);
        let mut plan = None;
        let (status, waits): (Status, SmallVec<[SlotId; 2]>) = match look {
            Look::Inactive => {
                let mut ws = SmallVec::new();
                if let Some(body) = self.st.body(b) {
                    self.st.stage_waits(&body.stage, &mut ws);
                }
                (Status::Inactive, ws)
            }
            Look::Stuck(s) => (Status::Stuck, smallvec::smallvec![s]),
            Look::Ready(p) => {
                plan = Some(p);
                (Status::Pending, SmallVec::new())
            }
            Look::Fail => (Status::Pending, SmallVec::new()),
        };
        let Some(body) = self.st.body_mut(b) else { return false };
        body.status = status;
        let gen = body.gen;
        if let Some(p) = plan {
            self.ready = Some((b, gen, p));
        }
        for s in waits {
            self.st.add_waiter(s, b, gen);
        }
        status == Status::Pending
    }

    /// Whether body `b` is the body of a lambda, staged on the lambda's
    /// staging parameter, which is unbound.
    fn waits_for_its_call(&self, b: NodeId) -> bool {
        let Some(body) = self.st.body(b) else { return false };
        let Stage::Var(p) = body.stage else { return false };
        let Owner::Node(o) = self.st.owner(b) else { return false };
        matches!(self.st.kind(o), Kind::Lam(l) if l.sparam == p) && self.st.slots[p.ix()].state == SlotState::Unbound
    }

    /// The look at body `b`.
    pub(super) fn look(&self, b: NodeId) -> Look {
        let Some(body) = self.st.body(b) else { return Look::Inactive };
        if !self.st.stage_value(&body.stage) {
            return Look::Inactive;
        }
        let (head, fields) = match &body.cmd {
            CmdN::Fix { .. } => return Look::Ready(Plan::Fix),
            CmdN::App { head, args } => (*head, args),
        };
        let mut args: Args = SmallVec::new();
        let mut failed = false;
        for (i, &a) in fields.iter().enumerate() {
            match a {
                Val::Node(n) => match self.st.kind(n) {
                    Kind::Expr { .. } => match self.quick_index(n).ok_or(()).or_else(|()| self.eval_expr(n).map(computed)) {
                        Ok(x) => args.push(x),
                        Err(EvalError::Stuck(v)) => return Look::Stuck(SlotId(v.0)),
                        Err(EvalError::Fail { .. }) => {
                            failed = true;
                            args.push(ArgV::FAILED);
                        }
                    },
                    Kind::Tuple(_) if self.tuple_has_expr(n) => match self.eval_tuple(n) {
                        Ok(v) => args.push(computed(v)),
                        Err(EvalError::Stuck(v)) => return Look::Stuck(SlotId(v.0)),
                        Err(EvalError::Fail { .. }) => {
                            failed = true;
                            args.push(ArgV::FAILED);
                        }
                    },
                    Kind::Splice(inner) => {
                        let inner = *inner;
                        match self.splice(inner, &mut args) {
                            Ok(true) => {}
                            Ok(false) => {
                                failed = true;
                                args.push(ArgV::FAILED);
                            }
                            Err(s) => return Look::Stuck(s),
                        }
                    }
                    _ => args.push(ArgV {
                        val: a,
                        src: Src::Field(i as u32),
                    }),
                },
                _ => args.push(ArgV {
                    val: self.st.deref(a),
                    src: Src::Field(i as u32),
                }),
            }
        }
        let expr_form = fields.len() == 1 && matches!(fields[0], Val::Node(n) if matches!(self.st.kind(n), Kind::Expr { .. }));
        let (callee_val, via) = match head {
            Val::Node(n) if matches!(self.st.kind(n), Kind::Expr { .. }) => match self.eval_expr(n) {
                Ok(v) => match handle_of(&v) {
                    Some(h) => (Val::Node(h), Some(None)),
                    None => match v {
                        Atom::Var(x) => return Look::Stuck(SlotId(x.0)),
                        Atom::Int(i) => (Val::int(i), None),
                        Atom::Bool(b) => (Val::Bool(b), None),
                        Atom::Stage(b) => (Val::Stage(b), None),
                        Atom::Builtin(b) => (Val::Builtin(b), None),
                        _ => return Look::Fail,
                    },
                },
                Err(EvalError::Stuck(v)) => return Look::Stuck(SlotId(v.0)),
                Err(EvalError::Fail { .. }) => return Look::Fail,
            },
            Val::Var(s) => (self.st.deref(head), Some(Some(s))),
            other => (other, None),
        };
        match callee_val {
            Val::Var(x) => Look::Stuck(x),
            Val::Node(n) => {
                let (callee, lam, rule) = match (self.st.kind(n), via) {
                    (Kind::Lam(_), None) => (Callee::Own(n), n, if expr_form { Rule::Expr } else { Rule::Beta }),
                    (Kind::Lam(_), Some(Some(s))) => (Callee::Via(s, n), n, if expr_form { Rule::Expr } else { Rule::Beta }),
                    (Kind::Lam(_), Some(None)) => (Callee::Copy(n), n, if expr_form { Rule::Expr } else { Rule::Beta }),
                    (Kind::Rec { lam, .. }, _) => (Callee::Rec(n), *lam, Rule::Beta),
                    _ => return Look::Fail,
                };
                self.check_beta(lam, callee, args, rule, failed)
            }
            Val::Builtin(Builtin::If) => check_if(args, failed),
            Val::Builtin(Builtin::Exit) => check_exit(args, failed),
            _ => Look::Fail,
        }
    }

    fn check_beta(&self, lam: NodeId, callee: Callee, args: Args, rule: Rule, failed: bool) -> Look {
        let Kind::Lam(l) = self.st.kind(lam) else { return Look::Fail };
        let k = l.params.len();
        match l.rest {
            None => {
                if let Some(s) = args.iter().find_map(ArgV::sym_splice) {
                    return Look::Stuck(s);
                }
                if failed || args.len() != k {
                    return Look::Fail;
                }
            }
            Some(r) => {
                let r = r as usize;
                let after = k - r - 1;
                if args.len() >= r + after {
                    let edges = args[..r].iter().chain(args[args.len() - after..].iter());
                    if let Some(s) = edges.clone().find_map(ArgV::sym_splice) {
                        return Look::Stuck(s);
                    }
                    let middle = &args[r..args.len() - after];
                    if let Some(s) = middle.iter().find_map(ArgV::sym_splice) {
                        if middle.len() != 1 {
                            return Look::Stuck(s);
                        }
                    }
                } else {
                    if let Some(s) = args.iter().find_map(ArgV::sym_splice) {
                        return Look::Stuck(s);
                    }
                    return Look::Fail;
                }
            }
        }
        if failed {
            return Look::Fail;
        }
        Look::Ready(Plan::Beta { callee, args, rule })
    }

    /// Expands a splice `!inner` into `args`: `Ok(false)` when it is not a
    /// tuple (a type error), `Err` when it is stuck.
    fn splice(&self, inner: Val, args: &mut Args) -> Result<bool, SlotId> {
        let v = match inner {
            Val::Node(n) if matches!(self.st.kind(n), Kind::Expr { .. }) => match self.eval_expr(n) {
                Ok(v) => match v.into_tuple() {
                    Ok(xs) => {
                        for x in xs {
                            match x {
                                Arg::Splice(Atom::Var(v)) => args.push(ArgV {
                                    val: Val::Var(SlotId(v.0)),
                                    src: Src::SymSplice(SlotId(v.0)),
                                }),
                                Arg::Atom(a) | Arg::Splice(a) => args.push(computed(a)),
                            }
                        }
                        return Ok(true);
                    }
                    Err(Atom::Var(v)) => {
                        args.push(ArgV {
                            val: Val::Var(SlotId(v.0)),
                            src: Src::SymSplice(SlotId(v.0)),
                        });
                        return Ok(true);
                    }
                    Err(_) => return Ok(false),
                },
                Err(EvalError::Stuck(v)) => return Err(SlotId(v.0)),
                Err(EvalError::Fail { .. }) => return Ok(false),
            },
            other => self.st.deref(other),
        };
        let via = match inner {
            Val::Var(s) => Some(s),
            _ => None,
        };
        match v {
            Val::Var(s) => {
                args.push(ArgV {
                    val: v,
                    src: Src::SymSplice(s),
                });
                Ok(true)
            }
            Val::Node(t) if matches!(self.st.kind(t), Kind::Tuple(_)) => {
                // Splices of known tuples inside are expanded too; their
                // elements are never moved (the outer tuple may be shared).
                let mut todo: Vec<(NodeId, usize, Option<SlotId>)> = vec![(t, 0, via)];
                while let Some((t, i, via)) = todo.pop() {
                    let Kind::Tuple(xs) = self.st.kind(t) else { return Ok(false) };
                    let Some(&x) = xs.get(i) else { continue };
                    todo.push((t, i + 1, via));
                    match x {
                        Val::Node(e) => match self.st.kind(e) {
                            Kind::Splice(y) => match self.st.deref(*y) {
                                Val::Var(s) => args.push(ArgV {
                                    val: Val::Var(s),
                                    src: Src::SymSplice(s),
                                }),
                                Val::Node(inner) if matches!(self.st.kind(inner), Kind::Tuple(_)) => todo.push((inner, 0, None)),
                                _ => return Ok(false),
                            },
                            _ => args.push(ArgV {
                                val: x,
                                src: Src::Elem(t, i as u32, via.unwrap_or(SlotId::NONE)),
                            }),
                        },
                        _ => args.push(ArgV {
                            val: self.st.deref(x),
                            src: Src::Elem(t, i as u32, via.unwrap_or(SlotId::NONE)),
                        }),
                    }
                }
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// Whether a tuple node holds an expression (through its tuples and
    /// splices, not into lambdas or slots).
    pub(super) fn tuple_has_expr(&self, t: NodeId) -> bool {
        self.tuple_holds(t, |k| matches!(k, Kind::Expr { .. }))
    }

    /// Whether a tuple node holds a node of a kind `hit` picks (through
    /// its tuples and splices, not into lambdas or slots).
    fn tuple_holds(&self, t: NodeId, hit: impl Fn(&Kind) -> bool) -> bool {
        let mut stack = vec![t];
        while let Some(n) = stack.pop() {
            let kind = self.st.kind(n);
            if hit(kind) {
                return true;
            }
            match kind {
                Kind::Tuple(xs) => stack.extend(xs.iter().filter_map(|x| match x {
                    Val::Node(c) => Some(*c),
                    _ => None,
                })),
                Kind::Splice(Val::Node(c)) => stack.push(*c),
                _ => {}
            }
        }
        false
    }

    /// A tuple node with its expressions evaluated, as an atom.
    fn eval_tuple(&self, t: NodeId) -> Result<Atom, EvalError> {
        let Kind::Tuple(xs) = self.st.kind(t) else {
            return Ok(self.value_atom(Val::Node(t)));
        };
        let mut out = Vec::with_capacity(xs.len());
        for &x in xs.iter() {
            match x {
                Val::Node(n) => match self.st.kind(n) {
                    Kind::Expr { .. } => out.push(Arg::Atom(self.eval_expr(n)?)),
                    Kind::Tuple(_) => out.push(Arg::Atom(self.eval_tuple(n)?)),
                    Kind::Splice(y) => {
                        let v = match *y {
                            Val::Node(e) if matches!(self.st.kind(e), Kind::Expr { .. }) => self.eval_expr(e)?,
                            other => self.value_atom(other),
                        };
                        match v.into_tuple() {
                            Ok(es) => out.extend(es),
                            Err(other) => out.push(Arg::Splice(other)),
                        }
                    }
                    _ => out.push(Arg::Atom(self.value_atom(x))),
                },
                _ => out.push(Arg::Atom(self.value_atom(x))),
            }
        }
        Ok(Atom::Tuple(out))
    }

    /// The argument an expression `t[i]` gives, read in place: `t` a
    /// variable whose value is a tuple node with no splice, expression or
    /// data in it, `i` an integer literal within it. The element is then
    /// taken as a spliced one is (`Src::Elem`: moved out when the
    /// variable's chain has no other occurrence, else shared through a
    /// slot), not written out as an atom and loaded again, which copied
    /// every lambda and tuple the value holds. Anything else is left to
    /// the evaluator.
    fn quick_index(&self, n: NodeId) -> Option<ArgV> {
        let Kind::Expr(e) = self.st.kind(n) else { return None };
        let ExprKind::Index(base, ix) = &e.tpl.kind else { return None };
        let (ExprKind::Val(Atom::Var(v)), ExprKind::Val(Atom::Int(i))) = (&base.kind, &ix.kind) else {
            return None;
        };
        let hole = *e.holes.get(e.vars.iter().position(|w| w == v)?)?;
        let Val::Node(t) = self.st.deref(hole) else { return None };
        let Kind::Tuple(xs) = self.st.kind(t) else { return None };
        let i = usize::try_from(*i).ok().filter(|&i| i < xs.len())?;
        let plain = |x: &Val| match x {
            Val::Node(c) => match self.st.kind(*c) {
                Kind::Lam(_) | Kind::Rec { .. } => true,
                Kind::Tuple(_) => !self.tuple_holds(*c, |k| matches!(k, Kind::Expr { .. } | Kind::Splice(_))),
                _ => false,
            },
            _ => true,
        };
        if !xs.iter().all(plain) {
            return None;
        }
        let x = xs[i];
        let via = match hole {
            Val::Var(s) => s,
            _ => SlotId::NONE,
        };
        Some(ArgV {
            val: match x {
                Val::Node(_) => x,
                other => self.st.deref(other),
            },
            src: Src::Elem(t, i as u32, via),
        })
    }

    /// Evaluates the expression node `n`.
    pub(super) fn eval_expr(&self, n: NodeId) -> Result<Atom, EvalError> {
        let Kind::Expr(e) = self.st.kind(n) else {
            return Ok(Atom::Int(0));
        };
        let (tpl, vars, holes) = (&e.tpl, &e.vars, &e.holes);
        match super::quick::quick(&self.st, tpl, vars, holes) {
            Some(Val::Int(i)) => return Ok(Atom::Int(i.get())),
            Some(Val::Bool(b)) => return Ok(Atom::Bool(b)),
            _ => {}
        }
        eval_with(tpl, &|v| {
            let i = vars.iter().position(|w| *w == v)?;
            Some(self.value_atom(holes[i]))
        })
    }

    /// A value as an atom: symbolic variables as `Atom::Var` of their slot,
    /// lambdas as handles, tuples and data written out.
    pub(super) fn value_atom(&self, v: Val) -> Atom {
        match self.st.deref(v) {
            Val::Var(s) => Atom::Var(VarId(s.0)),
            Val::Int(i) => Atom::Int(i.get()),
            Val::Bool(b) => Atom::Bool(b),
            Val::Stage(b) => Atom::Stage(b),
            Val::Builtin(b) => Atom::Builtin(b),
            Val::Node(n) => match self.st.kind(n) {
                Kind::Tuple(xs) => {
                    let mut out = Vec::with_capacity(xs.len());
                    for &x in xs.iter() {
                        match x {
                            Val::Node(e) if matches!(self.st.kind(e), Kind::Splice(_)) => {
                                let Kind::Splice(y) = self.st.kind(e) else { continue };
                                // A known tuple spliced is its elements.
                                match self.value_atom(*y).into_tuple() {
                                    Ok(es) => out.extend(es),
                                    Err(a) => out.push(Arg::Splice(a)),
                                }
                            }
                            _ => out.push(Arg::Atom(self.value_atom(x))),
                        }
                    }
                    Atom::Tuple(out)
                }
                Kind::Data(a) => {
                    let mut a = a.as_ref().clone();
                    super::data::walk_mut(&mut a, &mut |x| {
                        if let Atom::Var(v) = x {
                            if let SlotState::Bound(_) = self.st.slots[v.0 as usize].state {
                                *x = self.value_atom(Val::Var(SlotId(v.0)));
                            }
                        }
                    });
                    a
                }
                Kind::Expr { .. } => self.eval_expr(n).unwrap_or(Atom::Int(0)),
                _ => handle(n),
            },
        }
    }
}

fn computed(a: Atom) -> ArgV {
    let val = match &a {
        Atom::Var(v) => Val::Var(SlotId(v.0)),
        Atom::Int(i) => Val::int(*i),
        Atom::Bool(b) => Val::Bool(*b),
        Atom::Stage(b) => Val::Stage(*b),
        Atom::Builtin(b) => Val::Builtin(*b),
        _ => {
            return ArgV {
                val: Val::EMPTY,
                src: Src::Computed(Box::new(a)),
            }
        }
    };
    ArgV { val, src: Src::Inline }
}

fn check_if(args: Args, failed: bool) -> Look {
    if let Some(s) = args.iter().find_map(ArgV::sym_splice) {
        return Look::Stuck(s);
    }
    if args.len() == 3 {
        if let Val::Var(s) = args[0].val {
            if !matches!(args[0].src, Src::Failed) {
                return Look::Stuck(s);
            }
        }
    }
    if failed || args.len() != 3 {
        return Look::Fail;
    }
    match args[0].val {
        Val::Bool(c) if !is_node_computed(&args[0]) => {
            let mut it = args.into_iter().skip(1);
            let t = it.next();
            let f = it.next();
            match (c, t, f) {
                (true, Some(t), _) => Look::Ready(Plan::If(t)),
                (false, _, Some(f)) => Look::Ready(Plan::If(f)),
                _ => Look::Fail,
            }
        }
        _ => Look::Fail,
    }
}

/// A computed argument whose value is not inline (a tuple or data): its
/// `val` is a placeholder.
fn is_node_computed(a: &ArgV) -> bool {
    matches!(&a.src, Src::Computed(_))
}

fn check_exit(args: Args, failed: bool) -> Look {
    if let Some(s) = args.iter().find_map(ArgV::sym_splice) {
        return Look::Stuck(s);
    }
    if failed || args.len() != 1 {
        return Look::Fail;
    }
    match args.into_iter().next() {
        Some(a) => Look::Ready(Plan::Exit(a)),
        None => Look::Fail,
    }
}
