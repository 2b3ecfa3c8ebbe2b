//! The checks of the rules themselves (LANGUAGE.md §5), once the parts of
//! a body are evaluated: how β's arguments meet the parameters, the
//! condition and arity of `if`, the arity of `$exit`. A symbolic splice
//! the rule cannot match makes the body stuck; then the first failing
//! argument decides; then the rule's own checks.

use super::{a_kind, fail, refine, Ready, Stuck, Verdict};
use crate::error::{ErrorKind, Operand};
use crate::print::short_atom;
use crate::run::Rule;
use crate::term::{Application, Arg, Atom, Body, Lambda, RecLambda, VarId, Vars};

fn symbolic_splice(args: &[Arg]) -> Option<VarId> {
    args.iter().find_map(|a| match a {
        Arg::Splice(Atom::Var(v)) => Some(*v),
        _ => None,
    })
}

fn show_args(args: &[Arg], vars: &Vars) -> String {
    let shown: Vec<String> = args
        .iter()
        .map(|a| match a {
            Arg::Atom(x) => short_atom(x, vars),
            Arg::Splice(x) => format!("!{}", short_atom(x, vars)),
        })
        .collect();
    format!("[{}]", shown.join(", "))
}

fn show_params(lam: &Lambda, vars: &Vars) -> String {
    let ps: Vec<String> = lam
        .params
        .iter()
        .map(|p| format!("{}{}", if p.rest { "!" } else { "" }, vars.name(p.var).unwrap_or("_")))
        .collect();
    format!("({})", ps.join(", "))
}

/// Checks that `args` match the parameters of `lam` (LANGUAGE.md §5, β):
/// a symbolic splice it cannot match makes the body stuck; then `failed`,
/// the first failing argument, decides; then the arity.
pub(super) fn beta(
    b: &Body,
    lam: Box<Lambda>,
    rec: Option<Box<RecLambda>>,
    args: Vec<Arg>,
    rule: Rule,
    vars: &Vars,
    failed: Option<Verdict>,
) -> Verdict {
    let k = lam.params.len();
    match lam.params.iter().position(|p| p.rest) {
        None => {
            if let Some(var) = symbolic_splice(&args) {
                return Verdict::Stuck(Stuck {
                    var,
                    what: "a symbolic splice cannot be matched to parameters without a rest parameter",
                });
            }
            if let Some(f) = failed {
                return f;
            }
            if args.len() != k {
                let label = format!("this lambda takes {k} argument{}", if k == 1 { "" } else { "s" });
                return refine(
                    fail(
                        ErrorKind::Arity,
                        format!(
                            "the lambda {} takes {k} argument{}, given {}: {}",
                            show_params(&lam, vars),
                            if k == 1 { "" } else { "s" },
                            args.len(),
                            show_args(&args, vars)
                        ),
                        b,
                        Some(lam.span),
                    ),
                    |e| e.labelled(label),
                );
            }
        }
        Some(r) => {
            let after = k - r - 1;
            let fixed_ok = args.len() >= r + after;
            if fixed_ok {
                let edges = args[..r].iter().chain(args[args.len() - after..].iter());
                if let Some(var) = symbolic_splice(&edges.cloned().collect::<Vec<_>>()) {
                    return Verdict::Stuck(Stuck {
                        var,
                        what: "a symbolic splice lands on a fixed parameter",
                    });
                }
                let middle = &args[r..args.len() - after];
                if let Some(var) = symbolic_splice(middle) {
                    if middle.len() != 1 {
                        return Verdict::Stuck(Stuck {
                            var,
                            what: "a symbolic splice does not land exactly on the rest parameter",
                        });
                    }
                }
            } else {
                if let Some(var) = symbolic_splice(&args) {
                    return Verdict::Stuck(Stuck {
                        var,
                        what: "a symbolic splice cannot be matched to the parameters",
                    });
                }
                if let Some(f) = failed {
                    return f;
                }
                let label = format!("this lambda takes at least {} argument{}", k - 1, if k == 2 { "" } else { "s" });
                return refine(
                    fail(
                        ErrorKind::Arity,
                        format!(
                            "the lambda {} takes at least {} argument{}, given {}: {}",
                            show_params(&lam, vars),
                            k - 1,
                            if k == 2 { "" } else { "s" },
                            args.len(),
                            show_args(&args, vars)
                        ),
                        b,
                        Some(lam.span),
                    ),
                    |e| e.labelled(label),
                );
            }
        }
    }
    if let Some(f) = failed {
        return f;
    }
    Verdict::Ready(Ready::Beta { lam, rec, args, rule })
}

/// `if` (LANGUAGE.md §5): a symbolic splice, or a symbolic condition of
/// three arguments, makes the body stuck; then `failed`, the first failing
/// argument, decides; then the arity and the type of the condition.
pub(super) fn rule_if(b: &Body, app: &Application, args: Vec<Arg>, vars: &Vars, failed: Option<Verdict>) -> Verdict {
    if let Some(var) = symbolic_splice(&args) {
        return Verdict::Stuck(Stuck {
            var,
            what: "`if` gets a symbolic splice",
        });
    }
    if let (3, Some(Arg::Atom(Atom::Var(var)))) = (args.len(), args.first()) {
        return Verdict::Stuck(Stuck {
            var: *var,
            what: "the condition of `if` is symbolic",
        });
    }
    if let Some(f) = failed {
        return f;
    }
    if args.len() != 3 {
        return fail(
            ErrorKind::Arity,
            format!(
                "`if` takes 3 arguments (condition, then, else), given {}: {}",
                args.len(),
                show_args(&args, vars)
            ),
            b,
            None,
        );
    }
    let cond_span = match app.args.first() {
        Some(Arg::Atom(Atom::Expr(e))) => Some(e.span),
        _ => None,
    };
    let mut it = args.into_iter().map(|a| match a {
        Arg::Atom(x) | Arg::Splice(x) => x,
    });
    let (Some(c), Some(t), Some(f)) = (it.next(), it.next(), it.next()) else {
        return fail(ErrorKind::Arity, "`if` takes 3 arguments".into(), b, None);
    };
    match c {
        Atom::Bool(true) => Verdict::Ready(Ready::If(t)),
        Atom::Bool(false) => Verdict::Ready(Ready::If(f)),
        Atom::Var(var) => Verdict::Stuck(Stuck {
            var,
            what: "the condition of `if` is symbolic",
        }),
        other => {
            let label = format!("this is {}, not a boolean", a_kind(&other));
            let look = fail(
                ErrorKind::Type,
                format!(
                    "the condition of `if` must be a boolean, got the {} {}",
                    other.kind_name(),
                    short_atom(&other, vars)
                ),
                b,
                cond_span,
            );
            refine(look, |e| match cond_span {
                Some(_) => e.labelled(label),
                None => e.at_operand(Operand::Arg(0), label),
            })
        }
    }
}

pub(super) fn rule_exit(b: &Body, args: Vec<Arg>, failed: Option<Verdict>) -> Verdict {
    if let Some(var) = symbolic_splice(&args) {
        return Verdict::Stuck(Stuck {
            var,
            what: "`$exit` gets a symbolic splice",
        });
    }
    if let Some(f) = failed {
        return f;
    }
    if args.len() != 1 {
        return fail(
            ErrorKind::Arity,
            format!("`$exit` takes exactly 1 argument, given {}", args.len()),
            b,
            None,
        );
    }
    match args.into_iter().next() {
        Some(Arg::Atom(v)) | Some(Arg::Splice(v)) => Verdict::Ready(Ready::Exit(v)),
        None => fail(ErrorKind::Arity, "`$exit` takes exactly 1 argument".into(), b, None),
    }
}
