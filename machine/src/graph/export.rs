//! Reading the graph back as core terms: for printing results, for the
//! values that expressions inspect, for diagnostics and for the views.
//! Iterative: a pre-order pass lists the nodes, then they are built
//! children first.

use std::collections::{HashMap, HashSet};

use super::node::{Bound, Cmd, GVar, Kind, NodeId, HOLE};
use super::Machine;
use crate::term::{self, App, Arg, Atom, Fix, Lambda, Param, RecLambda, SExp, VarId, Vars};

/// A built part of a term.
enum Piece {
    Atom(Atom),
    Splice(Atom),
    Body(term::Body),
    Lambda(term::Lambda),
    Missing,
}

/// How graph variables become term variables.
pub struct Names {
    /// The variable table of the exported terms (`None`: raw graph ids).
    pub vars: Option<Vars>,
    map: HashMap<GVar, VarId>,
}

impl Names {
    /// Graph variables are used as term variables as they are.
    pub fn raw() -> Names {
        Names { vars: None, map: HashMap::new() }
    }

    /// Graph variables get term variables in a copy of the source table.
    pub fn printing(source: &Vars) -> Names {
        Names {
            vars: Some(source.clone()),
            map: HashMap::new(),
        }
    }

    fn get(&mut self, m: &Machine, v: GVar) -> VarId {
        let Some(vars) = self.vars.as_mut() else {
            return v;
        };
        *self.map.entry(v).or_insert_with(|| vars.copy_of(m.g.var(v).origin))
    }

    fn alias(&mut self, m: &Machine, a: GVar, b: GVar) {
        let t = self.get(m, a);
        if self.vars.is_some() {
            self.map.insert(b, t);
        }
    }
}

impl Machine {
    /// The subtree at `n` as a term atom, with graph variables as they are
    /// (what the expression evaluator sees).
    pub(crate) fn export_raw(&self, n: NodeId) -> Atom {
        let mut names = Names::raw();
        self.export_atom(n, &mut names, false)
    }

    /// The subtree at `n` as an atom. With `resolve_self`, a recursive name
    /// whose value lies outside the subtree becomes that value (an `$exit`
    /// value leaving its recursive lambda).
    pub fn export_atom(&self, n: NodeId, names: &mut Names, resolve_self: bool) -> Atom {
        match self.export(n, names, resolve_self) {
            Piece::Atom(a) | Piece::Splice(a) => a,
            Piece::Lambda(l) => Atom::Lambda(Box::new(l)),
            Piece::Body(_) | Piece::Missing => Atom::Int(0),
        }
    }

    /// The body at `n` as a term body.
    pub fn export_body(&self, n: NodeId, names: &mut Names) -> Option<term::Body> {
        match self.export(n, names, false) {
            Piece::Body(b) => Some(b),
            _ => None,
        }
    }

    fn export(&self, root: NodeId, names: &mut Names, resolve_self: bool) -> Piece {
        // Pre-order list; binders are named on the way down so that a fix's
        // two names become one term variable.
        let mut order = Vec::new();
        let mut stack = vec![root];
        let mut inside_recs = HashSet::new();
        while let Some(n) = stack.pop() {
            order.push(n);
            match self.g.kind(n) {
                Kind::Body(b) => {
                    if let Cmd::Fix { name_in, name_out, .. } = &b.cmd {
                        names.alias(self, *name_in, *name_out);
                    }
                }
                Kind::Rec { .. } => {
                    inside_recs.insert(n);
                }
                _ => {}
            }
            let kids = self.g.children(n);
            stack.extend(kids.into_iter().rev());
        }
        let mut built: HashMap<NodeId, Piece> = HashMap::with_capacity(order.len());
        for &n in order.iter().rev() {
            let mut take = |c: NodeId| built.remove(&c).unwrap_or(Piece::Missing);
            let piece = match self.g.kind(n) {
                Kind::Free(_) => Piece::Missing,
                Kind::Ref(v) => match self.g.var(*v).bound {
                    Bound::SelfRec(r) if resolve_self && !inside_recs.contains(&r) => {
                        Piece::Atom(self.export_atom(r, names, false))
                    }
                    _ => Piece::Atom(Atom::Var(names.get(self, *v))),
                },
                Kind::Lit(a) => Piece::Atom(a.clone()),
                Kind::Splice(c) => Piece::Splice(atom_of(take(*c))),
                Kind::Tuple(xs) => Piece::Atom(Atom::Tuple(xs.iter().map(|x| arg_of(take(*x))).collect())),
                Kind::Record(fs) => Piece::Atom(Atom::Record(fs.iter().map(|(f, x)| (f.clone(), atom_of(take(*x)))).collect())),
                Kind::Map(kvs) => Piece::Atom(Atom::Map(kvs.iter().map(|(k, v)| (atom_of(take(*k)), atom_of(take(*v)))).collect())),
                Kind::Expr(e, leaves) => {
                    let mut e = (**e).clone();
                    let mut it = leaves.iter();
                    for leaf in e.vals_mut() {
                        if matches!(leaf, Atom::Var(v) if *v == HOLE) {
                            if let Some(c) = it.next() {
                                *leaf = atom_of(take(*c));
                            }
                        }
                    }
                    Piece::Atom(Atom::Expr(Box::new(e)))
                }
                Kind::Lambda(l) => {
                    let body = match take(l.body) {
                        Piece::Body(b) => b,
                        _ => return Piece::Missing,
                    };
                    Piece::Lambda(Lambda {
                        sparam: names.get(self, l.sparam),
                        params: l
                            .params
                            .iter()
                            .map(|p| Param {
                                var: names.get(self, p.var),
                                rest: p.rest,
                            })
                            .collect(),
                        body,
                        span: l.span,
                    })
                }
                Kind::Rec { name, lam } => match take(*lam) {
                    Piece::Lambda(l) => Piece::Atom(Atom::Rec(Box::new(RecLambda {
                        name: names.get(self, *name),
                        lam: l,
                    }))),
                    _ => Piece::Missing,
                },
                Kind::Body(b) => {
                    let stage = map_stage(&b.stage, &mut |v| names.get(self, v));
                    let cmd = match &b.cmd {
                        Cmd::App { head, args, sugar } => {
                            let head = atom_of(take(*head));
                            let args = args.iter().map(|a| arg_of(take(*a))).collect();
                            term::Cmd::App(App { head, args, sugar: *sugar })
                        }
                        Cmd::Fix {
                            sparam, name_in, lam, body, ..
                        } => {
                            let (Piece::Lambda(lam), Piece::Body(body)) = (take(*lam), take(*body)) else {
                                return Piece::Missing;
                            };
                            term::Cmd::Fix(Box::new(Fix {
                                sparam: names.get(self, *sparam),
                                name: names.get(self, *name_in),
                                lam,
                                body,
                            }))
                        }
                    };
                    Piece::Body(term::Body { stage, cmd, span: b.span })
                }
            };
            built.insert(n, piece);
        }
        built.remove(&root).unwrap_or(Piece::Missing)
    }
}

fn atom_of(p: Piece) -> Atom {
    match p {
        Piece::Atom(a) | Piece::Splice(a) => a,
        Piece::Lambda(l) => Atom::Lambda(Box::new(l)),
        Piece::Body(_) | Piece::Missing => Atom::Int(0),
    }
}

fn arg_of(p: Piece) -> Arg {
    match p {
        Piece::Splice(a) => Arg::Splice(a),
        other => Arg::Atom(atom_of(other)),
    }
}

/// The staging expression with its variables renamed.
fn map_stage(s: &SExp, f: &mut dyn FnMut(GVar) -> VarId) -> SExp {
    let mut out = s.clone();
    let mut stack = vec![&mut out];
    while let Some(s) = stack.pop() {
        match s {
            SExp::Const(_) => {}
            SExp::Var(v) => *v = f(*v),
            SExp::Not(a) => stack.push(a),
            SExp::And(a, b) | SExp::Or(a, b) => {
                stack.push(a);
                stack.push(b);
            }
        }
    }
    out
}
