//! Readiness of one body in the graph (LANGUAGE.md §5): inactive, stuck,
//! failing or ready with a rule. It mirrors [`verdict`](crate::verdict::verdict)
//! decision for decision, on graph nodes instead of terms, and without
//! looking below the body's own head and arguments.

use super::lit::Lit;
use super::node::{hole_index, GVar, Graph, Kind, NodeCmd, NodeId, Readiness, VarState};
use super::Machine;
use crate::error::ErrorKind;
use crate::expr::eval::{eval_with, EvalError};
use crate::term::{Arg, Atom, Builtin, SExp};
use crate::verdict::eval_atom;
use std::sync::atomic::Ordering;

/// One argument after evaluation.
#[derive(Clone, Debug)]
pub enum Shape {
    /// A node of the graph, as it stands (its parent may be a spliced tuple).
    Node(NodeId),
    /// A value computed by an expression (its variables are graph variables).
    Value(Atom),
    /// A value computed by an expression that is a node of the graph as it
    /// stands (an element read out of a tuple node): the rule gets a copy.
    Copy(NodeId),
    /// A symbolic splice `!t`: the [`Kind::Splice`] node (`None` when it
    /// came out of a computed tuple) and its variable.
    SymSplice(Option<NodeId>, GVar),
}

/// The evaluated arguments of a body: a few, kept inline (a look is taken
/// at every status change, so it should not allocate).
pub type Shapes = smallvec::SmallVec<[Shape; 4]>;

/// What a body would do if executed now.
#[derive(Clone, Debug)]
pub enum Look {
    /// Its staging expression is false.
    Inactive,
    /// Waits for a symbolic variable.
    Stuck(GVar),
    /// Fails with an error of this kind.
    Error(ErrorKind),
    /// Executes.
    Ready(Plan),
}

/// The rule a ready body executes, with what it needs.
#[derive(Clone, Debug)]
pub enum Plan {
    /// β on the head (a lambda, a recursive value, or a recursive name inside
    /// its own value); `expr` for the form `"e" (x) b`.
    Beta {
        /// The evaluated arguments.
        args: Shapes,
        /// Whether it is the expression form.
        expr: bool,
    },
    /// `if` choosing this argument.
    If(Shape),
    /// `$exit` with this value.
    Exit(Shape),
    /// `fix`.
    Fix,
}

impl Look {
    /// The status this look gives a body.
    pub fn status(&self) -> Readiness {
        match self {
            Look::Inactive => Readiness::Inactive,
            Look::Stuck(v) => Readiness::Stuck(*v),
            Look::Error(_) | Look::Ready(_) => Readiness::Pending,
        }
    }
}

/// The value of a staging expression: bound variables were rewritten to
/// constants; a recursive name inside its own value is concrete; any other
/// variable is symbolic.
pub fn stage_value(g: &Graph, s: &SExp) -> bool {
    s.value(&|v| matches!(g.var(v).bound(), VarState::SelfRec(_)))
}

impl Machine {
    /// Evaluates an expression node in place: placeholder `k` stands for
    /// child `k` as it stands, a plain value or variable read off the node,
    /// anything else exported.
    pub(crate) fn eval_node(&self, n: NodeId) -> Result<Atom, EvalError> {
        let Kind::Expr(e, kids) = self.g.kind(n) else {
            return Ok(Atom::Int(0));
        };
        eval_with(e, &|v| {
            let c = *kids.get(hole_index(v)?)?;
            Some(match self.g.kind(c) {
                Kind::Lit(lit) => lit.to_atom(),
                Kind::Ref(w) => Atom::Var(*w),
                _ => self.export_raw(c),
            })
        })
    }

    /// For an expression node that is one variable (`"f"`) bound to a
    /// recursive value whose lambda encloses it ([`VarState::SelfRec`]): the
    /// node of that variable. Such a head is the name itself, concrete
    /// there, as in the reference reducer.
    pub(crate) fn self_rec_read(&self, n: NodeId) -> Option<NodeId> {
        let Kind::Expr(e, kids) = self.g.kind(n) else { return None };
        let crate::expr::ExprKind::Val(Atom::Var(h)) = &e.kind else {
            return None;
        };
        let &[kid] = &kids[..] else { return None };
        if hole_index(*h) != Some(0) {
            return None;
        }
        match self.g.kind(kid) {
            Kind::Ref(v) if matches!(self.g.var(*v).bound(), VarState::SelfRec(_)) => Some(kid),
            _ => None,
        }
    }

    /// The node a value stands at, seen through a [`Kind::Share`] holder.
    pub(crate) fn val(&self, n: NodeId) -> NodeId {
        match self.g.kind(n) {
            Kind::Share(t) => *t,
            _ => n,
        }
    }

    /// The element an expression `t[k]` reads, for a tuple node `t` (or a
    /// shared one) without splices and a literal `k` in range: the value
    /// the evaluator would compute is that node's term, so it is copied
    /// rather than exported, evaluated and imported (a stack of the
    /// builders holds code; exporting it at every `pop` costs its size).
    /// `None` whenever evaluation might do anything else.
    fn element_read(&self, e: &crate::expr::Expr, leaves: &[NodeId]) -> Option<NodeId> {
        use crate::expr::ExprKind;
        let ExprKind::Index(t, i) = &e.kind else { return None };
        let (ExprKind::Val(Atom::Var(h)), ExprKind::Val(Atom::Int(k)), [leaf]) = (&t.kind, &i.kind, leaves) else {
            return None;
        };
        if hole_index(*h) != Some(0) {
            return None;
        }
        let Kind::Tuple(xs) = self.g.kind(self.val(*leaf)) else {
            return None;
        };
        if xs.iter().any(|x| matches!(self.g.kind(*x), Kind::Splice(_))) {
            return None;
        }
        let x = *xs.get(usize::try_from(*k).ok()?)?;
        // An expression element would be a value leaf the evaluator looks
        // into: leave those to it.
        (!matches!(self.g.kind(x), Kind::Expr(..))).then_some(x)
    }

    /// Whether a tuple node holds an expression somewhere in its tuples.
    /// A walk that finds none sets the memo [`Node::plain`] on the tuples it
    /// went through, and later walks stop at them: a list grown one element
    /// per step (`[x, xs]`) is walked once in all, not once per step.
    ///
    /// [`Node::plain`]: super::node::Node::plain
    pub(crate) fn tuple_has_expr(&self, n: NodeId) -> bool {
        let mut stack = vec![n];
        let mut tuples = Vec::new();
        while let Some(n) = stack.pop() {
            let node = &self.g.nodes[n.ix()];
            if node.plain.load(Ordering::Relaxed) {
                debug_assert!(!self.walk_has_expr(n), "memo says {n:?} holds no expression, it does");
                continue;
            }
            match &node.kind {
                Kind::Expr(..) => return true,
                Kind::Tuple(xs) => {
                    tuples.push(n);
                    stack.extend(xs.iter().copied());
                }
                Kind::Splice(c) => stack.push(*c),
                _ => {}
            }
        }
        for t in tuples {
            self.g.nodes[t.ix()].plain.store(true, Ordering::Relaxed);
        }
        false
    }

    /// [`Machine::tuple_has_expr`] without the memo (for its check).
    fn walk_has_expr(&self, n: NodeId) -> bool {
        let mut stack = vec![n];
        while let Some(n) = stack.pop() {
            match self.g.kind(n) {
                Kind::Expr(..) => return true,
                Kind::Tuple(xs) => stack.extend(xs.iter().copied()),
                Kind::Splice(c) => stack.push(*c),
                _ => {}
            }
        }
        false
    }

    /// The value of an argument node, evaluating expressions (also those
    /// nested in tuples, LANGUAGE.md §5).
    /// `copies`: whether the value may be a [`Shape::Copy`] (not under a
    /// splice, whose elements are taken apart).
    fn arg_value(&self, n: NodeId, copies: bool) -> Result<Shape, Look> {
        if let (true, Kind::Expr(e, leaves)) = (copies, self.g.kind(n)) {
            if let Some(x) = self.element_read(e, leaves) {
                return Ok(Shape::Copy(x));
            }
        }
        match self.g.kind(n) {
            Kind::Expr(..) => match self.eval_node(n) {
                Ok(v) => Ok(Shape::Value(v)),
                Err(EvalError::Stuck(v)) => Err(Look::Stuck(v)),
                Err(EvalError::Fail { kind, .. }) => Err(Look::Error(kind)),
            },
            Kind::Tuple(_) if self.tuple_has_expr(n) => match eval_atom(&self.export_raw(n)) {
                Ok(v) => Ok(Shape::Value(v)),
                Err(EvalError::Stuck(v)) => Err(Look::Stuck(v)),
                Err(EvalError::Fail { kind, .. }) => Err(Look::Error(kind)),
            },
            _ => Ok(Shape::Node(n)),
        }
    }

    /// Decides what body `b` would do if executed now: as
    /// [`verdict`](crate::verdict::verdict), stuck wins over failure (the first
    /// failing argument stands as a placeholder and decides only after
    /// every stuck decision).
    pub fn look(&self, b: NodeId) -> Look {
        let Some(body) = self.g.body(b) else {
            return Look::Inactive;
        };
        if !stage_value(&self.g, &body.stage) {
            return Look::Inactive;
        }
        let (head, args) = match &body.cmd {
            NodeCmd::Fix { .. } => return Look::Ready(Plan::Fix),
            NodeCmd::App { head, args, .. } => (*head, args),
        };
        let mut shapes = Shapes::new();
        let mut failed: Option<Look> = None;
        // A failing argument: the first decides, later; a placeholder keeps
        // the positions of the splices after it.
        let mut failing = |l: Look, shapes: &mut Shapes| match l {
            Look::Error(_) => {
                failed.get_or_insert(l);
                shapes.push(Shape::Value(Atom::Int(0)));
                None
            }
            other => Some(other),
        };
        for &a in args {
            if let Kind::Splice(c) = self.g.kind(a) {
                let c = *c;
                let v = match self.arg_value(c, false) {
                    Ok(v) => v,
                    Err(l) => match failing(l, &mut shapes) {
                        Some(l) => return l,
                        None => continue,
                    },
                };
                match v {
                    Shape::Node(t) => match self.g.kind(self.val(t)) {
                        Kind::Tuple(xs) => {
                            for &x in xs {
                                match self.g.kind(x) {
                                    Kind::Splice(y) => match self.g.kind(*y) {
                                        Kind::Ref(v) => shapes.push(Shape::SymSplice(Some(x), *v)),
                                        _ => shapes.push(Shape::Node(x)),
                                    },
                                    _ => shapes.push(Shape::Node(x)),
                                }
                            }
                        }
                        Kind::Ref(v) => shapes.push(Shape::SymSplice(Some(a), *v)),
                        _ => {
                            failing(Look::Error(ErrorKind::Type), &mut shapes);
                        }
                    },
                    Shape::Value(t @ Atom::Tuple(_)) => {
                        for x in t.into_tuple().unwrap_or_default() {
                            match x {
                                Arg::Splice(Atom::Var(v)) => shapes.push(Shape::SymSplice(None, v)),
                                Arg::Atom(x) | Arg::Splice(x) => shapes.push(Shape::Value(x)),
                            }
                        }
                    }
                    Shape::Value(Atom::Var(v)) => shapes.push(Shape::SymSplice(None, v)),
                    _ => {
                        failing(Look::Error(ErrorKind::Type), &mut shapes);
                    }
                }
            } else {
                match self.arg_value(a, true) {
                    Ok(v) => shapes.push(v),
                    Err(l) => {
                        if let Some(l) = failing(l, &mut shapes) {
                            return l;
                        }
                    }
                }
            }
        }
        // An expression that only reads a recursive name inside its own
        // lambda is that name.
        let head = self.self_rec_read(head).unwrap_or(head);
        // The head, evaluated if it is an expression.
        let head_value = match self.g.kind(head) {
            Kind::Expr(..) => match self.eval_node(head) {
                Ok(v) => Some(v),
                Err(EvalError::Stuck(v)) => return Look::Stuck(v),
                Err(EvalError::Fail { kind, .. }) => return failed.unwrap_or(Look::Error(kind)),
            },
            _ => None,
        };
        if let Some(v) = head_value {
            // A computed head: only built-ins and lambdas can be applied.
            return match &v {
                Atom::Var(v) => Look::Stuck(*v),
                Atom::Lambda(l) => self.beta_check(arity_of(l.params.iter().map(|p| p.rest)), shapes, false, failed),
                Atom::Rec(r) => self.beta_check(arity_of(r.lam.params.iter().map(|p| p.rest)), shapes, false, failed),
                Atom::Builtin(Builtin::If) => self.if_check(shapes, failed),
                Atom::Builtin(Builtin::Exit) => exit_check(shapes, failed),
                _ => failed.unwrap_or(Look::Error(ErrorKind::NotAFunction)),
            };
        }
        let head = self.val(head);
        match self.g.kind(head) {
            Kind::Ref(v) => match self.g.var(*v).bound() {
                VarState::SelfRec(r) => match self.g.kind(r) {
                    Kind::Rec { lam, .. } => self.beta_check(self.arity(*lam), shapes, false, failed),
                    _ => Look::Stuck(*v),
                },
                _ => Look::Stuck(*v),
            },
            Kind::Lambda(_) => {
                let expr = args.len() == 1 && matches!(self.g.kind(args[0]), Kind::Expr(..));
                self.beta_check(self.arity(head), shapes, expr, failed)
            }
            Kind::Rec { lam, .. } => self.beta_check(self.arity(*lam), shapes, false, failed),
            Kind::Lit(Lit::Builtin(Builtin::If)) => self.if_check(shapes, failed),
            Kind::Lit(Lit::Builtin(Builtin::Exit)) => exit_check(shapes, failed),
            _ => failed.unwrap_or(Look::Error(ErrorKind::NotAFunction)),
        }
    }

    /// The variable of an argument that is a symbolic value.
    fn symbolic(&self, a: &Shape) -> Option<GVar> {
        match a {
            Shape::Node(n) | Shape::Copy(n) => match self.g.kind(self.val(*n)) {
                Kind::Ref(v) => Some(*v),
                _ => None,
            },
            Shape::Value(Atom::Var(v)) => Some(*v),
            _ => None,
        }
    }

    /// The arity of the lambda node `l`.
    fn arity(&self, l: NodeId) -> Arity {
        match self.g.kind(l) {
            Kind::Lambda(l) => arity_of(l.params.iter().map(|p| p.rest)),
            _ => Arity { k: 0, rest: None },
        }
    }

    /// The arity rules of β (LANGUAGE.md §5), as the verdict's:
    /// a symbolic splice it cannot match, then `failed`, then the arity.
    fn beta_check(&self, arity: Arity, args: Shapes, expr: bool, failed: Option<Look>) -> Look {
        let k = arity.k;
        let sym = first_sym_splice;
        match arity.rest {
            None => {
                if let Some(v) = sym(&args) {
                    return Look::Stuck(v);
                }
                if let Some(f) = failed {
                    return f;
                }
                if args.len() != k {
                    return Look::Error(ErrorKind::Arity);
                }
            }
            Some(r) => {
                let after = k - r - 1;
                if args.len() >= r + after {
                    if let Some(v) = sym(&args[..r]).or_else(|| sym(&args[args.len() - after..])) {
                        return Look::Stuck(v);
                    }
                    let middle = &args[r..args.len() - after];
                    if let Some(v) = sym(middle) {
                        if middle.len() != 1 {
                            return Look::Stuck(v);
                        }
                    }
                } else {
                    if let Some(v) = sym(&args) {
                        return Look::Stuck(v);
                    }
                    return failed.unwrap_or(Look::Error(ErrorKind::Arity));
                }
            }
        }
        if let Some(f) = failed {
            return f;
        }
        Look::Ready(Plan::Beta { args, expr })
    }

    /// `if`, as the verdict's: a symbolic splice or a
    /// symbolic condition of three arguments, then `failed`, then the
    /// arity and the type of the condition.
    fn if_check(&self, args: Shapes, failed: Option<Look>) -> Look {
        if let Some(v) = first_sym_splice(&args) {
            return Look::Stuck(v);
        }
        if let (3, Some(c)) = (args.len(), args.first()) {
            if let Some(v) = self.symbolic(c) {
                return Look::Stuck(v);
            }
        }
        if let Some(f) = failed {
            return f;
        }
        if args.len() != 3 {
            return Look::Error(ErrorKind::Arity);
        }
        let mut it = args.into_iter();
        let (Some(c), Some(t), Some(f)) = (it.next(), it.next(), it.next()) else {
            return Look::Error(ErrorKind::Arity);
        };
        let cond = match &c {
            Shape::Node(n) | Shape::Copy(n) => match self.g.kind(self.val(*n)) {
                Kind::Lit(Lit::Bool(b)) => Ok(*b),
                Kind::Ref(v) => Err(Look::Stuck(*v)),
                _ => Err(Look::Error(ErrorKind::Type)),
            },
            Shape::Value(Atom::Bool(b)) => Ok(*b),
            Shape::Value(Atom::Var(v)) => Err(Look::Stuck(*v)),
            _ => Err(Look::Error(ErrorKind::Type)),
        };
        match cond {
            Ok(true) => Look::Ready(Plan::If(t)),
            Ok(false) => Look::Ready(Plan::If(f)),
            Err(l) => l,
        }
    }
}

/// How many parameters a lambda has, and which one is the rest parameter.
#[derive(Clone, Copy)]
struct Arity {
    k: usize,
    rest: Option<usize>,
}

/// The arity of parameters given by whether each is the rest one.
fn arity_of(rests: impl Iterator<Item = bool>) -> Arity {
    let mut a = Arity { k: 0, rest: None };
    for r in rests {
        if r && a.rest.is_none() {
            a.rest = Some(a.k);
        }
        a.k += 1;
    }
    a
}

/// The variable of the first symbolic splice among `args`, if any.
fn first_sym_splice(args: &[Shape]) -> Option<GVar> {
    args.iter().find_map(|a| match a {
        Shape::SymSplice(_, v) => Some(*v),
        _ => None,
    })
}

fn exit_check(args: Shapes, failed: Option<Look>) -> Look {
    if let Some(v) = first_sym_splice(&args) {
        return Look::Stuck(v);
    }
    if let Some(f) = failed {
        return f;
    }
    if args.len() != 1 {
        return Look::Error(ErrorKind::Arity);
    }
    match args.into_iter().next() {
        Some(v) => Look::Ready(Plan::Exit(v)),
        None => Look::Error(ErrorKind::Arity),
    }
}
