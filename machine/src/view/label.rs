//! Short one-line labels of bodies, lambdas, atoms and staging expressions
//! for the views, with the printed names of variables
//! ([`Names`]).
//!
//! Labels are built with explicit stacks and stop growing once they are
//! long enough, so labelling every node of a big term stays linear.

use rustc_hash::FxHashMap as HashMap;
use smallvec::{smallvec, SmallVec};

use crate::expr::print::{print_expr, print_value};
use crate::print::free::FreeVars;
use crate::print::names::{lambda_binders, Names};
use crate::print::sexp_text;
use crate::term::{Arg, Atom, Body, Builtin, Cmd, Lambda, SExp, VarId};

/// Longest label of an atom, in characters (longer ones end in `…`).
pub const ATOM_MAX: usize = 48;
/// Longest label of a body, in characters.
pub const BODY_MAX: usize = 80;

/// `s` cut to `max` characters, the last one `…` when something was cut;
/// line breaks become spaces.
pub fn clip(s: &str, max: usize) -> String {
    clip_owned(s.to_owned(), max)
}

/// [`clip`] of a string the caller gives up: most labels are one line and
/// short enough (bytes bound characters), and come back as they are.
fn clip_owned(s: String, max: usize) -> String {
    if s.len() <= max && !s.contains('\n') {
        return s;
    }
    let one_line = s.replace('\n', " ");
    if one_line.chars().count() <= max {
        return one_line;
    }
    let mut cut: String = one_line.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// The binders of a lambda as printed: `(x, !r)[y]` (no `[y]` when the
/// staging parameter is anonymous).
pub fn lambda_head(l: &Lambda, names: &Names) -> String {
    let mut s = String::with_capacity(32);
    s.push('(');
    for (i, p) in l.params.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        if p.rest {
            s.push('!');
        }
        s.push_str(names.name_str(p.var));
    }
    s.push(')');
    if !names.anonymous(l.sparam) {
        s.push('[');
        s.push_str(names.name_str(l.sparam));
        s.push(']');
    }
    s
}

/// The binders of a lambda as printed in its own scope (where renaming may
/// make `x` print as `x_1`), with `fix f` in front for a recursive value.
pub fn scoped_lambda_head(l: &Lambda, rec: Option<VarId>, names: &mut Names, fv: &mut FreeVars) -> String {
    let mut binders: Vec<VarId> = rec.into_iter().collect();
    binders.extend(lambda_binders(l));
    let refs = fv.body(&l.body);
    let saved = names.enter(&binders, &refs);
    let mut head = lambda_head(l, names);
    if let Some(f) = rec {
        head = format!("fix {}{head}", names.name(f));
    }
    names.leave(saved);
    head
}

/// The labels of lambdas worked out already, as [`scoped_lambda_head`]
/// gives them here (`fix f(..)` for a recursive value's), found by the
/// lambda (its address): the lambda graph labels a lambda's node before it
/// labels the body or tuple that holds the lambda. A lambda not known is
/// labelled afresh.
pub type Known<'k> = &'k dyn Fn(&Lambda) -> Option<&'k str>;

/// A short label of an atom: variables by their printed names, lambdas as
/// `(x)[y] {…}`, tuples element by element, expressions in quotes. A
/// recursive value in `hoisted` (the printer's table: its `fix` printed
/// before an enclosing body) shows as the name it prints as there.
pub fn atom_label(a: &Atom, names: &mut Names, fv: &mut FreeVars, hoisted: &HashMap<VarId, VarId>, known: Known<'_>, max: usize) -> String {
    enum Tok<'a> {
        A(&'a Atom),
        T(&'static str),
    }
    let mut out = String::new();
    let mut stack: SmallVec<[Tok; 8]> = smallvec![Tok::A(a)];
    while let Some(t) = stack.pop() {
        // (Bytes bound characters: counted only when they may be too many.)
        if out.len() > max && out.chars().count() > max {
            break;
        }
        let a = match t {
            Tok::T(t) => {
                out.push_str(t);
                continue;
            }
            Tok::A(a) => a,
        };
        match a {
            Atom::Var(v) => out.push_str(names.name_str(*v)),
            Atom::Int(i) => out.push_str(&i.to_string()),
            Atom::Float(f) => out.push_str(&format!("{f:?}")),
            Atom::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Atom::Stage(b) => out.push_str(if *b { "always" } else { "never" }),
            Atom::Builtin(Builtin::Exit) => out.push_str("$exit"),
            Atom::Builtin(Builtin::If) => out.push_str("if"),
            Atom::Str(_) | Atom::Matrix(_) => {
                let text = print_value(a, &|v| names.name(v));
                out.push('"');
                out.push_str(&clip(&text, max));
                out.push('"');
            }
            Atom::Expr(e) => {
                let text = print_expr(e, &|v| names.name(v));
                out.push('"');
                out.push_str(&clip(&text, max));
                out.push('"');
            }
            Atom::Map(kvs) => out.push_str(&format!("map({})", kvs.len())),
            Atom::Lambda(l) => {
                match known(l) {
                    Some(head) => out.push_str(head),
                    None => out.push_str(&scoped_lambda_head(l, None, names, fv)),
                }
                out.push_str(" {…}");
            }
            Atom::Rec(r) => match hoisted.get(&r.name) {
                Some(&name) => out.push_str(names.name_str(name)),
                None => {
                    match known(&r.lam) {
                        Some(head) => out.push_str(head),
                        None => out.push_str(&scoped_lambda_head(&r.lam, Some(r.name), names, fv)),
                    }
                    out.push_str(" {…}");
                }
            },
            Atom::Tuple(xs) => {
                stack.push(Tok::T("]"));
                for (i, x) in xs.iter().enumerate().rev() {
                    match x {
                        Arg::Atom(x) => stack.push(Tok::A(x)),
                        Arg::Splice(x) => {
                            stack.push(Tok::A(x));
                            stack.push(Tok::T("!"));
                        }
                    }
                    if i > 0 {
                        stack.push(Tok::T(", "));
                    }
                }
                out.push('[');
            }
            Atom::Record(fs) => {
                // Field names only: the values get nodes of their own.
                let fields: Vec<&str> = fs.iter().map(|(f, _)| &**f).collect();
                out.push_str(&format!("{{{}}}", fields.join(", ")));
            }
        }
    }
    clip_owned(out, max)
}

/// A short label of a body: its staging expression (unless it is the
/// natural staging on an anonymous parameter) and its command; recursive
/// values in `hoisted` by name, as in [`atom_label`].
pub fn body_label(b: &Body, names: &mut Names, fv: &mut FreeVars, hoisted: &HashMap<VarId, VarId>, known: Known<'_>) -> String {
    let mut out = String::new();
    match &b.stage {
        SExp::Var(v) if names.anonymous(*v) => {}
        s => {
            out.push('@');
            out.push_str(&sexp_text(s, names));
            out.push_str(": ");
        }
    }
    match &b.cmd {
        Cmd::App(app) => {
            out.push_str(&atom_label(&app.head, names, fv, hoisted, known, ATOM_MAX));
            for a in &app.args {
                if out.len() > BODY_MAX && out.chars().count() > BODY_MAX {
                    break;
                }
                out.push(' ');
                match a {
                    Arg::Atom(x) => out.push_str(&atom_label(x, names, fv, hoisted, known, ATOM_MAX)),
                    Arg::Splice(x) => {
                        out.push('!');
                        out.push_str(&atom_label(x, names, fv, hoisted, known, ATOM_MAX));
                    }
                }
            }
        }
        Cmd::Fix(f) => {
            out.push_str("fix ");
            if !names.anonymous(f.sparam) {
                out.push_str(&format!("[{}] ", names.name(f.sparam)));
            }
            out.push_str(&names.name(f.name));
            match known(&f.lam) {
                Some(head) => out.push_str(head),
                None => out.push_str(&scoped_lambda_head(&f.lam, None, names, fv)),
            }
            out.push_str(" {…} in …");
        }
    }
    clip_owned(out, BODY_MAX)
}
