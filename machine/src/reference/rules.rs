//! The rewrite rules of the reference reducer (LANGUAGE.md §5): deciding
//! whether an active body can execute ([`prepare`]) and executing it, one
//! method per rule.

use crate::error::{ErrorKind, Operand, RuntimeError};
use crate::expr::eval::{eval, EvalError};
use crate::print::short_atom;
use crate::reference::subst::Copier;
use crate::span::Span;
use crate::term::{App, Arg, Atom, Body, Builtin, Cmd, Lambda, RecLambda, SExp, VarId, Vars};

/// Why an active body cannot execute.
#[derive(Clone, Debug, PartialEq)]
pub struct Stuck {
    /// The symbolic variable it waits for.
    pub var: VarId,
    /// What needs it.
    pub what: &'static str,
}

/// The rule kinds, for counting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// β.
    Beta,
    /// β of `"e" (x) b`.
    Expr,
    /// `if`.
    If,
    /// `fix`.
    Fix,
    /// `$exit`.
    Exit,
}

impl Rule {
    /// The rule's name, as in `--stats` and `--trace`.
    pub fn name(self) -> &'static str {
        match self {
            Rule::Beta => "beta",
            Rule::Expr => "expr",
            Rule::If => "if",
            Rule::Fix => "fix",
            Rule::Exit => "exit",
        }
    }
}

/// An active body whose parts have been evaluated: it will execute.
pub enum Ready {
    /// Apply a lambda (or a recursive lambda) to arguments.
    Beta {
        /// The callee.
        lam: Box<Lambda>,
        /// For a recursive lambda: its name and itself.
        rec: Option<Box<RecLambda>>,
        /// The evaluated arguments (symbolic splices included).
        args: Vec<Arg>,
        /// β or the expression form.
        rule: Rule,
    },
    /// `if` chose this branch.
    If(Atom),
    /// `fix` executes.
    Fix,
    /// `$exit v`.
    Exit(Atom),
}

/// The outcome of looking at a body.
pub enum Look {
    /// Its staging expression is false.
    Inactive,
    /// Active but waiting on a symbolic variable.
    Stuck(Stuck),
    /// Active and executing it fails.
    Error(RuntimeError),
    /// Active and ready to execute (if nothing pending is nested in it).
    Ready(Ready),
}

/// The recursive values whose lambdas enclose the body being looked at:
/// inside its own lambda, the name of a recursive value denotes the value
/// itself (LANGUAGE.md §5, fix), so it is concrete there, not symbolic.
pub type RecScope = [(VarId, Box<RecLambda>)];

/// The value of a staging expression (symbolic variables are false; the
/// names in `recs` are concrete, so true).
pub fn stage_value(s: &SExp, recs: &RecScope) -> bool {
    s.value(&|v| recs.iter().any(|(r, _)| *r == v))
}

fn fail(kind: ErrorKind, message: String, body: &Body, at: Option<Span>) -> Look {
    Look::Error(RuntimeError::new(kind, message, body.span, at))
}

/// Refines the place of a failure (`look` is [`Look::Error`]).
fn refine(look: Look, f: impl FnOnce(RuntimeError) -> RuntimeError) -> Look {
    match look {
        Look::Error(e) => Look::Error(f(e)),
        other => other,
    }
}

/// "a number", "an integer": a value's kind with its article.
fn a_kind(a: &Atom) -> String {
    let k = a.kind_name();
    let article = if k.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" };
    format!("{article} {k}")
}

/// Evaluates an expression atom, and the expressions nested in tuples (the
/// graph machine's too, on an exported tuple).
pub(crate) fn eval_atom(a: &Atom) -> Result<Atom, EvalError> {
    match a {
        Atom::Expr(e) => eval(e),
        Atom::Tuple(xs) if xs.iter().any(has_expr) => {
            let mut out = Vec::with_capacity(xs.len());
            for x in xs {
                out.push(match x {
                    Arg::Atom(a) => Arg::Atom(eval_atom(a)?),
                    Arg::Splice(a) => Arg::Splice(eval_atom(a)?),
                });
            }
            Ok(Atom::Tuple(out))
        }
        _ => Ok(a.clone()),
    }
}

fn has_expr(a: &Arg) -> bool {
    match a {
        Arg::Atom(Atom::Expr(_)) | Arg::Splice(Atom::Expr(_)) => true,
        Arg::Atom(Atom::Tuple(xs)) => xs.iter().any(has_expr),
        _ => false,
    }
}

/// Decides what a body would do if executed now. Inside recursive values
/// (`recs`), their names are first replaced by the values themselves.
pub fn prepare(b: &Body, vars: &mut Vars, recs: &RecScope) -> Look {
    if !stage_value(&b.stage, recs) {
        return Look::Inactive;
    }
    let app = match &b.cmd {
        Cmd::Fix(_) => return Look::Ready(Ready::Fix),
        Cmd::App(app) => app,
    };
    // A result replaces the body where it stands, inside the same recursive
    // lambdas, so the names in `recs` may stay as they are; only an exit
    // value leaves their scope and gets them replaced by their values.
    let look = prepare_app(b, app, vars, recs);
    match look {
        Look::Ready(Ready::Exit(v)) if !recs.is_empty() => {
            let mut c = Copier::new(vars, recs.iter().map(|(n, r)| (*n, Atom::Rec(r.clone()))));
            Look::Ready(Ready::Exit(c.atom(&v)))
        }
        other => other,
    }
}

/// Prepares an application (LANGUAGE.md §4.3, stuck wins over failure):
/// the arguments from left to right, then the head. The first argument
/// that is stuck, or else a stuck or symbolic head, makes the body stuck;
/// so does what the rule needs that is symbolic (a splice it cannot match,
/// the condition of `if`). Only then does the first failing argument (or
/// head) decide the error, and after it the rule's own checks (arity, the
/// type of the condition).
fn prepare_app(b: &Body, app: &App, vars: &Vars, recs: &RecScope) -> Look {
    let mut args = Vec::with_capacity(app.args.len());
    // The first failure; its argument stands as a placeholder in `args`,
    // so that the splices after it keep their positions.
    let mut failed: Option<Look> = None;
    for a in &app.args {
        let (x, splice) = match a {
            Arg::Atom(x) => (x, false),
            Arg::Splice(x) => (x, true),
        };
        let v = match eval_atom(x) {
            Ok(v) => v,
            Err(EvalError::Stuck(var)) => {
                return Look::Stuck(Stuck {
                    var,
                    what: "an expression argument needs its value",
                })
            }
            Err(EvalError::Fail { kind, message, span }) => {
                failed.get_or_insert_with(|| fail(kind, message, b, Some(span)));
                args.push(Arg::Atom(Atom::Int(0)));
                continue;
            }
        };
        if splice {
            match v.into_tuple() {
                Ok(xs) => args.extend(xs),
                Err(v @ Atom::Var(_)) => args.push(Arg::Splice(v)),
                Err(other) => {
                    failed.get_or_insert_with(|| {
                        fail(
                            ErrorKind::Type,
                            format!(
                                "a splice `!t` needs a tuple, got the {} {}",
                                other.kind_name(),
                                short_atom(&other, vars)
                            ),
                            b,
                            None,
                        )
                    });
                    args.push(Arg::Atom(Atom::Int(0)));
                }
            }
        } else {
            args.push(Arg::Atom(v));
        }
    }
    let head = match &app.head {
        Atom::Expr(e) => match eval(e) {
            Ok(v) => v,
            Err(EvalError::Stuck(var)) => {
                return Look::Stuck(Stuck {
                    var,
                    what: "the head expression needs its value",
                })
            }
            Err(EvalError::Fail { kind, message, span }) => {
                return failed.unwrap_or_else(|| fail(kind, message, b, Some(span)));
            }
        },
        h => h.clone(),
    };
    match head {
        Atom::Var(v) if recs.iter().any(|(n, _)| *n == v) => {
            // A recursive call from inside the recursive value itself: the
            // copy stays in its scope, so the name is left as it is.
            let r = recs.iter().rev().find(|(n, _)| *n == v).map(|(_, r)| r.lam.clone());
            match r {
                Some(lam) => beta(b, Box::new(lam), None, args, Rule::Beta, vars, failed),
                None => Look::Stuck(Stuck {
                    var: v,
                    what: "the head of the application is symbolic",
                }),
            }
        }
        Atom::Var(var) => Look::Stuck(Stuck {
            var,
            what: "the head of the application is symbolic",
        }),
        Atom::Lambda(_) => {
            let rule = if app.args.len() == 1 && matches!(app.args[0], Arg::Atom(Atom::Expr(_))) {
                Rule::Expr
            } else {
                Rule::Beta
            };
            match head.into_lambda() {
                Ok(lam) => beta(b, lam, None, args, rule, vars, failed),
                Err(_) => unreachable!("matched a lambda"),
            }
        }
        Atom::Rec(_) => match head.into_rec() {
            Ok(r) => beta(b, Box::new(r.lam.clone()), Some(r), args, Rule::Beta, vars, failed),
            Err(_) => unreachable!("matched a recursive lambda"),
        },
        Atom::Builtin(Builtin::If) => rule_if(b, app, args, vars, failed),
        Atom::Builtin(Builtin::Exit) => rule_exit(b, args, failed),
        other => failed.unwrap_or_else(|| {
            let label = format!("this is {}, not a function", a_kind(&other));
            refine(
                fail(
                    ErrorKind::NotAFunction,
                    format!(
                        "the head of this application is the {} {}, not a function",
                        other.kind_name(),
                        short_atom(&other, vars)
                    ),
                    b,
                    None,
                ),
                |e| e.at_operand(Operand::Head, label),
            )
        }),
    }
}

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
fn beta(b: &Body, lam: Box<Lambda>, rec: Option<Box<RecLambda>>, args: Vec<Arg>, rule: Rule, vars: &Vars, failed: Option<Look>) -> Look {
    let k = lam.params.len();
    match lam.params.iter().position(|p| p.rest) {
        None => {
            if let Some(var) = symbolic_splice(&args) {
                return Look::Stuck(Stuck {
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
                    return Look::Stuck(Stuck {
                        var,
                        what: "a symbolic splice lands on a fixed parameter",
                    });
                }
                let middle = &args[r..args.len() - after];
                if let Some(var) = symbolic_splice(middle) {
                    if middle.len() != 1 {
                        return Look::Stuck(Stuck {
                            var,
                            what: "a symbolic splice does not land exactly on the rest parameter",
                        });
                    }
                }
            } else {
                if let Some(var) = symbolic_splice(&args) {
                    return Look::Stuck(Stuck {
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
    Look::Ready(Ready::Beta { lam, rec, args, rule })
}

/// `if` (LANGUAGE.md §5): a symbolic splice, or a symbolic condition of
/// three arguments, makes the body stuck; then `failed`, the first failing
/// argument, decides; then the arity and the type of the condition.
fn rule_if(b: &Body, app: &App, args: Vec<Arg>, vars: &Vars, failed: Option<Look>) -> Look {
    if let Some(var) = symbolic_splice(&args) {
        return Look::Stuck(Stuck {
            var,
            what: "`if` gets a symbolic splice",
        });
    }
    if let (3, Some(Arg::Atom(Atom::Var(var)))) = (args.len(), args.first()) {
        return Look::Stuck(Stuck {
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
        Atom::Bool(true) => Look::Ready(Ready::If(t)),
        Atom::Bool(false) => Look::Ready(Ready::If(f)),
        Atom::Var(var) => Look::Stuck(Stuck {
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

fn rule_exit(b: &Body, args: Vec<Arg>, failed: Option<Look>) -> Look {
    if let Some(var) = symbolic_splice(&args) {
        return Look::Stuck(Stuck {
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
        Some(Arg::Atom(v)) | Some(Arg::Splice(v)) => Look::Ready(Ready::Exit(v)),
        None => fail(ErrorKind::Arity, "`$exit` takes exactly 1 argument".into(), b, None),
    }
}

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
                cmd: Cmd::App(App {
                    head: branch,
                    args: Vec::new(),
                    sugar: Default::default(),
                }),
                span,
            };
            (Rule::If, None)
        }
        Ready::Fix => {
            let placeholder = Cmd::App(App {
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
/// `always` and its parameters to `args` (already checked by [`prepare`]).
fn instantiate(lam: &Lambda, rec: Option<Box<RecLambda>>, args: Vec<Arg>, vars: &mut Vars) -> Body {
    // `prepare` checked the arity: without a rest parameter the counts agree,
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
