//! The rewrite rules of the reference reducer (LANGUAGE.md §5): a ready
//! body ([`Ready`], decided by [`crate::verdict`]) executed on the term by
//! substitution.

use crate::run::Rule;
use crate::subst::Copier;
use crate::term::{Application, Arg, Atom, Body, Cmd, Lambda, RecLambda, SExp, VarId, Vars};
use crate::verdict::Ready;

/// Executes a ready body in place; returns the rule used and, for `$exit`,
/// the value.
pub fn execute(b: &mut Body, ready: Ready, vars: &mut Vars) -> (Rule, Option<Atom>) {
    match ready {
        Ready::Beta { lam, rec, args, rule } => {
            *b = instantiate(&lam, rec, args, vars);
            (rule, None)
        }
        Ready::If(branch) => {
            let span = b.span;
            *b = Body {
                stage: SExp::Const(true),
                cmd: Cmd::App(Application {
                    head: branch,
                    args: Vec::new(),
                    sugar: Default::default(),
                }),
                span,
            };
            (Rule::If, None)
        }
        Ready::Fix => {
            let placeholder = Cmd::App(Application {
                head: Atom::Int(0),
                args: Vec::new(),
                sugar: Default::default(),
            });
            if let Cmd::Fix(fix) = std::mem::replace(&mut b.cmd, placeholder) {
                let fix = *fix;
                let rec = Atom::Rec(Box::new(RecLambda {
                    name: fix.name,
                    lam: fix.lam,
                }));
                let mut c = Copier::new(vars, [(fix.sparam, Atom::Stage(true)), (fix.name, rec)]);
                *b = c.body(&fix.body);
            }
            (Rule::Fix, None)
        }
        Ready::Exit(v) => (Rule::Exit, Some(v)),
    }
}

/// A fresh copy of the body of `lam` with its staging parameter bound to
/// `always` and its parameters to `args` (already checked by [`crate::verdict::verdict`]).
fn instantiate(lam: &Lambda, rec: Option<Box<RecLambda>>, args: Vec<Arg>, vars: &mut Vars) -> Body {
    // The verdict checked the arity: without a rest parameter the counts agree,
    // with one there are enough arguments for the fixed parameters.
    debug_assert!(if lam.params.iter().any(|p| p.rest) {
        args.len() + 1 >= lam.params.len()
    } else {
        args.len() == lam.params.len()
    });
    let mut subst: Vec<(VarId, Atom)> = vec![(lam.sparam, Atom::Stage(true))];
    if let Some(r) = rec {
        subst.push((r.name, Atom::Rec(r)));
    }
    let k = lam.params.len();
    let as_atom = |a: Arg| match a {
        Arg::Atom(x) | Arg::Splice(x) => x,
    };
    match lam.params.iter().position(|p| p.rest) {
        None => {
            for (p, a) in lam.params.iter().zip(args) {
                subst.push((p.var, as_atom(a)));
            }
        }
        Some(r) => {
            let after = k - r - 1;
            let mut args = args;
            let tail: Vec<Arg> = args.split_off(args.len() - after);
            let middle: Vec<Arg> = args.split_off(r);
            for (p, a) in lam.params[..r].iter().zip(args) {
                subst.push((p.var, as_atom(a)));
            }
            let rest = match middle.as_slice() {
                [Arg::Splice(Atom::Var(t))] => Atom::Var(*t),
                _ => Atom::Tuple(middle),
            };
            subst.push((lam.params[r].var, rest));
            for (p, a) in lam.params[r + 1..].iter().zip(tail) {
                subst.push((p.var, as_atom(a)));
            }
        }
    }
    Copier::new(vars, subst).body(&lam.body)
}
