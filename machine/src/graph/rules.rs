//! The rewrite rules of the graph machine, one method per rule behind one
//! small dispatch (`Machine::execute`). A rule replaces the ready body
//! where it stands; β binds the callee's parameters in place, because in
//! the graph every lambda has exactly one owner: the body applying it.

use super::lit::Lit;
use super::node::{Kind, NodeCmd, NodeId, NodeList};
use super::readiness::{Plan, Shape};
use super::Machine;
use crate::run::Rule;
use crate::term::{Atom, SExp};

/// What one executed step did.
pub struct Done {
    /// The rule it executed, for the counts.
    pub rule: Rule,
    /// For `$exit`: the value (a detached node).
    pub exit: Option<NodeId>,
    /// The body that now stands where the executed one stood
    /// ([`NodeId::NONE`] after `$exit`).
    pub body: NodeId,
}

impl Machine {
    /// Executes the ready body `b` with `plan`.
    pub(crate) fn execute(&mut self, b: NodeId, plan: Plan) -> Done {
        let (rule, exit, body) = match plan {
            Plan::Beta { args, expr } => {
                let body = self.rule_beta(b, args);
                (if expr { Rule::Expr } else { Rule::Beta }, None, body)
            }
            Plan::If(branch) => {
                self.rule_if(b, branch);
                (Rule::If, None, b)
            }
            Plan::Fix => {
                let body = self.rule_fix(b);
                (Rule::Fix, None, body)
            }
            Plan::Exit(v) => (Rule::Exit, Some(self.materialize(v)), NodeId::NONE),
        };
        Done { rule, exit, body }
    }

    /// A detached node for an evaluated argument.
    fn materialize(&mut self, s: Shape) -> NodeId {
        match s {
            Shape::Node(n) | Shape::SymSplice(Some(n), _) => {
                self.g.nodes[n.ix()].parent = NodeId::NONE;
                self.g.cut_tour(n);
                n
            }
            Shape::Value(a) => self.import_value(a),
            Shape::Copy(n) => self.copy(n),
            Shape::SymSplice(None, v) => {
                let r = self.import_value(Atom::Var(v));
                let s = self.g.alloc(Kind::Splice(r));
                self.g.adopt_children(s);
                s
            }
        }
    }

    /// Puts `new` (detached) where the ready body `b` stands, the root
    /// included.
    pub(crate) fn replace_body(&mut self, b: NodeId, new: NodeId) {
        let parent = self.g.nodes[b.ix()].parent;
        self.set_pending(b, false);
        self.g.replace_child(parent, b, new);
        if self.root == b {
            self.root = new;
        }
    }

    /// Takes the head and arguments out of the executed body `b` (whose
    /// node stays in place until [`Machine::replace_body`]).
    fn take_parts(&mut self, b: NodeId) -> (NodeId, Vec<NodeId>) {
        let parts = match self.g.body_mut(b).map(|x| &mut x.cmd) {
            Some(NodeCmd::App { head, args, .. }) => (*head, std::mem::take(args)),
            _ => (NodeId::NONE, Vec::new()),
        };
        if parts.0 != NodeId::NONE {
            self.g.nodes[parts.0.ix()].parent = NodeId::NONE;
            self.g.cut_tour(parts.0);
        }
        for &a in &parts.1 {
            self.g.cut_tour(a);
        }
        parts
    }

    /// Frees the argument nodes of an executed body that no rule moved
    /// elsewhere (`used`): whole arguments, and splices with their tuples.
    fn free_unused(&mut self, args: Vec<NodeId>, used: &[NodeId]) {
        for a in args {
            if used.contains(&a) {
                continue;
            }
            if let Kind::Splice(c) = self.g.kind(a) {
                let c = *c;
                if let Kind::Tuple(xs) = self.g.kind(c) {
                    let xs = xs.clone();
                    for x in xs {
                        if !used.contains(&x) {
                            self.free(x);
                        }
                    }
                    self.g.release(c);
                    self.g.release(a);
                    continue;
                }
            }
            self.free(a);
        }
    }

    /// β: the callee's body takes the place of `b`, its parameters bound in
    /// place to the arguments. Returns the callee's body.
    fn rule_beta(&mut self, b: NodeId, args: super::readiness::Shapes) -> NodeId {
        // A recursive name applied inside its own lambda: the callee is a
        // copy of that lambda, which holds `b` itself, so it is made before
        // anything of `b` moves (its arguments, its head).
        let self_copy = self.self_rec_lambda(b).map(|l| self.copy(l));
        // Inline lists: a β runs at most every other step, and most take a
        // few arguments.
        let used: NodeList = args
            .iter()
            .filter_map(|s| match s {
                Shape::Node(n) | Shape::SymSplice(Some(n), _) => Some(*n),
                _ => None,
            })
            .collect();
        let nodes: NodeList = args.into_iter().map(|s| self.materialize(s)).collect();
        let (head, arg_nodes) = self.take_parts(b);
        // The callee: the head lambda itself (its only owner was `b`), a
        // recursive value, a copy of the value a recursive name denotes, or
        // the value an expression head computes.
        let callee = match self.g.kind(head) {
            Kind::Lambda(_) | Kind::Rec { .. } => head,
            // A recursive name inside its own lambda, plain or read by an
            // expression: the copy made above.
            Kind::Ref(_) | Kind::Expr(..) if self_copy.is_some() => {
                self.free(head);
                self_copy.unwrap_or(NodeId::NONE)
            }
            Kind::Expr(..) => {
                let v = self.eval_node(head).unwrap_or(Atom::Int(0));
                let n = self.import_value(v);
                self.free(head);
                n
            }
            _ => NodeId::NONE,
        };
        self.free_unused(arg_nodes, &used);
        let lam = match self.g.kind(callee) {
            Kind::Rec { name, lam } => {
                let (name, lam) = (*name, *lam);
                self.unfold(callee, name, lam);
                lam
            }
            _ => callee,
        };
        // The lambda node goes: take its contents instead of copying them.
        let l = match std::mem::replace(&mut self.g.nodes[lam.ix()].kind, Kind::Splice(NodeId::NONE)) {
            Kind::Lambda(l) => l,
            other => {
                self.g.nodes[lam.ix()].kind = other;
                debug_assert!(false, "β without a lambda");
                return NodeId::NONE;
            }
        };
        let body = l.body;
        self.g.nodes[body.ix()].parent = NodeId::NONE;
        self.replace_body(b, body);
        self.g.release(b);
        self.g.release(lam);
        // Bindings: the staging parameter, then the parameters in order.
        let always = self.g.alloc(Kind::Lit(Lit::Stage(true)));
        self.bind(l.sparam, always);
        let k = l.params.len();
        match l.params.iter().position(|p| p.rest) {
            None => {
                for (p, a) in l.params.iter().zip(nodes) {
                    self.bind(p.var, a);
                }
            }
            Some(r) => {
                let after = k - r - 1;
                let mut nodes = nodes.into_vec();
                let tail = nodes.split_off(nodes.len() - after);
                let middle = nodes.split_off(r);
                for (p, a) in l.params[..r].iter().zip(nodes) {
                    self.bind(p.var, a);
                }
                let rest = self.rest_value(middle);
                self.bind(l.params[r].var, rest);
                for (p, a) in l.params[r + 1..].iter().zip(tail) {
                    self.bind(p.var, a);
                }
            }
        }
        self.refresh(body);
        body
    }

    /// The lambda of the recursive value whose name is the head of body
    /// `b`, when `b` applies that name inside the value's own lambda.
    fn self_rec_lambda(&self, b: NodeId) -> Option<NodeId> {
        let head = match self.g.body(b).map(|x| &x.cmd) {
            Some(NodeCmd::App { head, .. }) => *head,
            _ => return None,
        };
        let head = self.self_rec_read(head).unwrap_or(head);
        let Kind::Ref(v) = self.g.kind(head) else { return None };
        match self.g.var(*v).bound() {
            super::node::VarState::SelfRec(r) => match self.g.kind(r) {
                Kind::Rec { lam, .. } => Some(*lam),
                _ => None,
            },
            _ => None,
        }
    }

    /// A recursive value `rec` invoked from outside: each occurrence of its
    /// name inside its lambda gets a copy of the value (the lambda itself is
    /// consumed by the β), and the `rec` shell is released.
    fn unfold(&mut self, rec: NodeId, name: super::node::GVar, lam: NodeId) {
        let occs = self.g.take_live_occs(name);
        let copies: Vec<NodeId> = occs.iter().map(|_| self.copy(rec)).collect();
        for (&o, c) in occs.iter().zip(copies) {
            let parent = self.g.nodes[o.ix()].parent;
            self.g.replace_child(parent, o, c);
            self.g.release(o);
        }
        // Bodies inside staged on the name stay active: it is concrete.
        let waiters = std::mem::take(&mut self.g.var_mut(name).waiters);
        for &w in &waiters {
            if let Some(body) = self.g.body_mut(w) {
                crate::term::rewrite_stage(&mut body.stage, &|u| (u == name).then_some(SExp::Const(true)));
            }
            self.refresh(w);
        }
        self.g.kill_var(name);
        self.g.nodes[lam.ix()].parent = NodeId::NONE;
        self.g.release(rec);
    }

    /// The value of a rest parameter: `r := t` for a lone symbolic splice,
    /// else a tuple of the surplus arguments.
    fn rest_value(&mut self, middle: Vec<NodeId>) -> NodeId {
        if let [one] = middle.as_slice() {
            if let Kind::Splice(c) = self.g.kind(*one) {
                let c = *c;
                if matches!(self.g.kind(c), Kind::Ref(_)) {
                    self.g.release(*one);
                    self.g.nodes[c.ix()].parent = NodeId::NONE;
                    return c;
                }
            }
        }
        let t = self.g.alloc(Kind::Tuple(middle));
        self.g.adopt_children(t);
        t
    }

    /// `if`: the body becomes the chosen branch applied to nothing, staged
    /// on `always`.
    fn rule_if(&mut self, b: NodeId, branch: Shape) {
        let used: Vec<NodeId> = match &branch {
            Shape::Node(n) => vec![*n],
            _ => Vec::new(),
        };
        let t = self.materialize(branch);
        let (head, args) = self.take_parts(b);
        self.free(head);
        self.free_unused(args, &used);
        if let Some(body) = self.g.body_mut(b) {
            body.stage = SExp::Const(true);
            body.cmd = NodeCmd::App {
                head: t,
                args: Vec::new(),
                sugar: Default::default(),
            };
        }
        self.g.adopt_children(b);
        self.refresh(b);
    }

    /// `fix`: the body takes the place of `b`, with the name bound to the
    /// recursive value. Returns the scope's body.
    fn rule_fix(&mut self, b: NodeId) -> NodeId {
        let Some(NodeCmd::Fix {
            sparam,
            name_in,
            name_out,
            lam,
            body,
        }) = self.g.body(b).map(|x| x.cmd.clone())
        else {
            return NodeId::NONE;
        };
        let rec = self.g.alloc(Kind::Rec { name: name_in, lam });
        self.g.adopt_children(rec);
        self.g.var_mut(name_in).set_bound(super::node::VarState::SelfRec(rec));
        self.g.nodes[body.ix()].parent = NodeId::NONE;
        self.replace_body(b, body);
        self.g.release(b);
        // Inside the value, its name is now concrete.
        let waiters = std::mem::take(&mut self.g.var_mut(name_in).waiters);
        for &w in &waiters {
            self.refresh(w);
        }
        self.g.var_mut(name_in).waiters = waiters;
        let always = self.g.alloc(Kind::Lit(Lit::Stage(true)));
        self.bind(sparam, always);
        self.bind(name_out, rec);
        self.refresh(body);
        body
    }
}
