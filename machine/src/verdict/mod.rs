//! The verdict on an active body (LANGUAGE.md §4.3 and §5): whether it is
//! inactive, stuck on a symbolic variable, failing (with the runtime error
//! as every machine words it) or ready with a rule, decided on the term.
//!
//! This is the language's own judgement, shared by every machine: the
//! reference reducer decides its steps with it, the graph machine words its
//! errors and every machine its stuck warnings ([`stuck`]) through it, and
//! the debugger's views show bodies' statuses with it.
//!
//! - `checks`: the arity and type checks of β, `if` and `$exit`;
//! - [`stuck`]: the stuck warnings of a term or a value.

mod checks;
pub mod stuck;

use crate::error::{ErrorKind, Operand, RuntimeError};
use crate::expr::eval::{eval, EvalError};
use crate::print::short_atom;
use crate::run::Rule;
use crate::span::Span;
use crate::subst::Copier;
use crate::term::{Application, Arg, Atom, Body, Builtin, Cmd, Lambda, RecLambda, SExp, VarId, Vars};
use checks::{beta, rule_exit, rule_if};

/// Why an active body cannot execute.
#[derive(Clone, Debug, PartialEq)]
pub struct Stuck {
    /// The symbolic variable it waits for.
    pub var: VarId,
    /// What needs it.
    pub what: &'static str,
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

/// The verdict on a body.
pub enum Verdict {
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

fn fail(kind: ErrorKind, message: String, body: &Body, at: Option<Span>) -> Verdict {
    Verdict::Error(RuntimeError::new(kind, message, body.span, at))
}

/// Refines the place of a failure (`look` is [`Verdict::Error`]).
fn refine(look: Verdict, f: impl FnOnce(RuntimeError) -> RuntimeError) -> Verdict {
    match look {
        Verdict::Error(e) => Verdict::Error(f(e)),
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
pub fn verdict(b: &Body, vars: &mut Vars, recs: &RecScope) -> Verdict {
    if !stage_value(&b.stage, recs) {
        return Verdict::Inactive;
    }
    let app = match &b.cmd {
        Cmd::Fix(_) => return Verdict::Ready(Ready::Fix),
        Cmd::App(app) => app,
    };
    // A result replaces the body where it stands, inside the same recursive
    // lambdas, so the names in `recs` may stay as they are; only an exit
    // value leaves their scope and gets them replaced by their values.
    let look = verdict_app(b, app, vars, recs);
    match look {
        Verdict::Ready(Ready::Exit(v)) if !recs.is_empty() => {
            let mut c = Copier::new(vars, recs.iter().map(|(n, r)| (*n, Atom::Rec(r.clone()))));
            Verdict::Ready(Ready::Exit(c.atom(&v)))
        }
        other => other,
    }
}

/// The verdict on an application (LANGUAGE.md §4.3, stuck wins over failure):
/// the arguments from left to right, then the head. The first argument
/// that is stuck, or else a stuck or symbolic head, makes the body stuck;
/// so does what the rule needs that is symbolic (a splice it cannot match,
/// the condition of `if`). Only then does the first failing argument (or
/// head) decide the error, and after it the rule's own checks (arity, the
/// type of the condition).
fn verdict_app(b: &Body, app: &Application, vars: &Vars, recs: &RecScope) -> Verdict {
    let mut args = Vec::with_capacity(app.args.len());
    // The first failure; its argument stands as a placeholder in `args`,
    // so that the splices after it keep their positions.
    let mut failed: Option<Verdict> = None;
    for a in &app.args {
        let (x, splice) = match a {
            Arg::Atom(x) => (x, false),
            Arg::Splice(x) => (x, true),
        };
        let v = match eval_atom(x) {
            Ok(v) => v,
            Err(EvalError::Stuck(var)) => {
                return Verdict::Stuck(Stuck {
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
                return Verdict::Stuck(Stuck {
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
                None => Verdict::Stuck(Stuck {
                    var: v,
                    what: "the head of the application is symbolic",
                }),
            }
        }
        Atom::Var(var) => Verdict::Stuck(Stuck {
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
