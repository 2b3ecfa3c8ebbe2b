//! Canonical printing (LANGUAGE.md §6): how residual programs and exit values
//! are shown and compared. The printed form parses back to the same term up
//! to renaming of bound variables.
//!
//! Layout: a body is `@e: ` (omitted for natural staging on an anonymous
//! staging parameter, and for `always` at top level) and its command; a lambda
//! in last position prints in the braceless tail form with its body on the
//! next line at the same indentation; `(x) { b } "e"` prints as `"e" (x)`;
//! other lambdas are braced with their bodies indented by two spaces.
//! [`names`] chooses the printed names of binders.

pub mod free;
pub mod names;

use std::collections::HashSet;

use crate::expr::print::{print_expr, print_value};
use crate::term::{App, Arg, Atom, Body, Builtin, Cmd, Lambda, RecLambda, SExp, Sugar, VarId, Vars};
use free::FreeVars;
use names::{lambda_binders, Names};

/// What to undo when a printed chain of bodies ends.
enum Undo {
    /// Leave a scope of printed names.
    Scope(Vec<(VarId, Option<String>)>),
    /// A recursive value no longer prints as its name.
    Hoist(VarId),
}

/// What natural staging means where a body is printed.
#[derive(Clone, Copy)]
enum Natural {
    /// The top-level body: `always` is natural.
    Top,
    /// Inside a lambda (or `let`/`fix`) with this staging parameter.
    Sparam(VarId),
}

/// A printer over one variable table.
pub struct Printer<'v> {
    names: Names<'v>,
    out: String,
    /// Print `let` sugar where the source had it (`deepcps fmt`).
    source_mode: bool,
    /// Recursive values whose `fix` is being printed around the current
    /// body: they print as their name.
    hoisted: HashSet<VarId>,
    /// Free variables of the scopes entered.
    fv: FreeVars,
}

impl<'v> Printer<'v> {
    /// A printer for terms over `vars`.
    pub fn new(vars: &'v Vars) -> Printer<'v> {
        Printer {
            names: Names::new(vars),
            out: String::new(),
            source_mode: false,
            hoisted: HashSet::new(),
            fv: FreeVars::default(),
        }
    }

    /// A printer that keeps `let` definitions as written (for formatting
    /// source files).
    pub fn source(vars: &'v Vars) -> Printer<'v> {
        Printer {
            source_mode: true,
            ..Printer::new(vars)
        }
    }

    /// The text of a whole program (its top-level body), with a final newline.
    pub fn program_text(mut self, b: &Body) -> String {
        self.body(b, 0, Natural::Top);
        self.out.push('\n');
        self.out
    }

    /// The text of a value (an exit value), with a final newline.
    pub fn atom_text(mut self, a: &Atom) -> String {
        self.atom(a, 0);
        self.out.push('\n');
        self.out
    }

    fn newline(&mut self, indent: usize) {
        self.out.push('\n');
        for _ in 0..indent {
            self.out.push(' ');
        }
    }

    /// Whether the staging expression `s` goes unprinted where `natural` holds.
    fn stage_omitted(&self, s: &SExp, natural: Natural) -> bool {
        match (natural, s) {
            (Natural::Top, SExp::Const(true)) => true,
            (Natural::Sparam(y), SExp::Var(v)) => *v == y && self.names.anonymous(y),
            _ => false,
        }
    }

    fn stage_prefix(&mut self, s: &SExp, natural: Natural) {
        if !self.stage_omitted(s, natural) {
            self.out.push('@');
            self.out.push_str(&sexp_text(s, &self.names));
            self.out.push_str(": ");
        }
    }

    /// Prints a body and, by a loop rather than recursion, the chain of
    /// bodies that continue it at the same indentation (braceless tail
    /// lambdas, `"e" (x)`, `let`, `fix .. in`), so that a residual of a
    /// million statements prints on an ordinary stack.
    fn body(&mut self, b: &Body, indent: usize, natural: Natural) {
        let mut undo: Vec<Undo> = Vec::new();
        let mut next = Some((b, natural));
        while let Some((b, natural)) = next {
            next = self.link(b, indent, natural, &mut undo);
        }
        for u in undo.into_iter().rev() {
            match u {
                Undo::Scope(saved) => self.names.leave(saved),
                Undo::Hoist(v) => {
                    self.hoisted.remove(&v);
                }
            }
        }
    }

    /// Prints one statement of a chain; returns the body that continues it.
    fn link<'t>(&mut self, b: &'t Body, indent: usize, natural: Natural, undo: &mut Vec<Undo>) -> Option<(&'t Body, Natural)> {
        self.stage_prefix(&b.stage, natural);
        match &b.cmd {
            Cmd::App(app) => {
                // A recursive value held directly prints as `fix f(..) {..} in`
                // before the application, which then refers to it by name.
                for r in direct_recs(app) {
                    let mut refs: HashSet<VarId> = self.fv.body(&r.lam.body).iter().copied().collect();
                    for a in std::iter::once(&app.head).chain(app.args.iter().map(|a| match a {
                        Arg::Atom(x) | Arg::Splice(x) => x,
                    })) {
                        self.fv.atom(a, &mut refs);
                    }
                    refs.insert(r.name);
                    undo.push(Undo::Scope(self.names.enter(&[r.name], &refs)));
                    self.out.push_str("fix ");
                    self.out.push_str(&self.names.name(r.name));
                    self.braced_lambda(&r.lam, indent);
                    self.out.push_str(" in");
                    self.newline(indent);
                    if self.hoisted.insert(r.name) {
                        undo.push(Undo::Hoist(r.name));
                    }
                }
                self.app(app, indent, undo)
            }
            Cmd::Fix(fix) => {
                let mut refs: HashSet<VarId> = self.fv.body(&fix.lam.body).iter().copied().collect();
                refs.extend(self.fv.body(&fix.body).iter().copied());
                undo.push(Undo::Scope(self.names.enter(&[fix.sparam, fix.name], &refs)));
                self.out.push_str("fix ");
                if !self.names.anonymous(fix.sparam) {
                    let n = self.names.name(fix.sparam);
                    self.out.push_str(&format!("[{n}] "));
                }
                self.out.push_str(&self.names.name(fix.name));
                self.braced_lambda(&fix.lam, indent);
                self.out.push_str(" in");
                self.newline(indent);
                Some((&fix.body, Natural::Sparam(fix.sparam)))
            }
        }
    }

    fn app<'t>(&mut self, app: &'t App, indent: usize, undo: &mut Vec<Undo>) -> Option<(&'t Body, Natural)> {
        if let (Atom::Lambda(lam), [Arg::Atom(v)]) = (&app.head, app.args.as_slice()) {
            if prints_as_expr(v) {
                self.atom(v, indent);
                self.out.push(' ');
                return self.tail_lambda(lam, indent, undo);
            }
            if self.source_mode && app.sugar == Sugar::Let && lam.params.len() == 1 && !lam.params[0].rest {
                return self.let_def(lam, v, indent, undo);
            }
        }
        self.atom(&app.head, indent);
        let n = app.args.len();
        for (i, a) in app.args.iter().enumerate() {
            self.out.push(' ');
            match a {
                Arg::Atom(Atom::Lambda(lam)) if i + 1 == n => return self.tail_lambda(lam, indent, undo),
                Arg::Atom(x) => self.atom(x, indent),
                Arg::Splice(x) => {
                    self.out.push('!');
                    self.atom(x, indent);
                }
            }
        }
        None
    }

    /// `let [y] x = v` (or `let f(p..) { .. }`); the body in its scope
    /// continues the chain.
    fn let_def<'t>(&mut self, lam: &'t Lambda, v: &Atom, indent: usize, undo: &mut Vec<Undo>) -> Option<(&'t Body, Natural)> {
        self.out.push_str("let ");
        let refs = self.fv.body(&lam.body);
        // The value is outside the scope of the let's binders.
        let saved = self.names.enter(&lambda_binders(lam), &refs);
        self.let_head(lam);
        self.names.leave(saved);
        match v {
            Atom::Lambda(f) => self.braced_lambda(f, indent),
            other => {
                self.out.push_str(" = ");
                self.atom(other, indent);
            }
        }
        undo.push(Undo::Scope(self.names.enter(&lambda_binders(lam), &refs)));
        if matches!(&lam.body.cmd, Cmd::App(App { sugar: Sugar::Hole, .. })) {
            return None;
        }
        self.newline(indent);
        Some((&lam.body, Natural::Sparam(lam.sparam)))
    }

    fn let_head(&mut self, lam: &Lambda) {
        if !self.names.anonymous(lam.sparam) {
            let n = self.names.name(lam.sparam);
            self.out.push_str(&format!("[{n}] "));
        }
        let n = self.names.name(lam.params[0].var);
        self.out.push_str(&n);
    }

    fn params(&mut self, lam: &Lambda) {
        self.out.push('(');
        for (i, p) in lam.params.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            if p.rest {
                self.out.push('!');
            }
            let n = self.names.name(p.var);
            self.out.push_str(&n);
        }
        self.out.push(')');
        if !self.names.anonymous(lam.sparam) {
            let n = self.names.name(lam.sparam);
            self.out.push_str(&format!("[{n}]"));
        }
    }

    /// `(x)[y]`; its body continues the chain on the next line at the same
    /// indentation. Braced instead when the body would begin with `[name]`,
    /// which would read back as the lambda's staging parameter.
    fn tail_lambda<'t>(&mut self, lam: &'t Lambda, indent: usize, undo: &mut Vec<Undo>) -> Option<(&'t Body, Natural)> {
        if self.begins_like_sname(&lam.body, Natural::Sparam(lam.sparam)) {
            self.braced_lambda(lam, indent);
            return None;
        }
        let refs = self.fv.body(&lam.body);
        undo.push(Undo::Scope(self.names.enter(&lambda_binders(lam), &refs)));
        self.params(lam);
        self.newline(indent);
        Some((&lam.body, Natural::Sparam(lam.sparam)))
    }

    /// Whether `b`, printed where `natural` holds, starts with `[IDENT]`.
    fn begins_like_sname(&self, b: &Body, natural: Natural) -> bool {
        match &b.cmd {
            Cmd::App(app) if self.stage_omitted(&b.stage, natural) && direct_recs(app).is_empty() => {
                let head = match (&app.head, app.args.as_slice()) {
                    (Atom::Lambda(_), [Arg::Atom(v)]) if prints_as_expr(v) => v,
                    _ => &app.head,
                };
                matches!(head, Atom::Tuple(xs) if matches!(xs.as_slice(), [Arg::Atom(Atom::Var(_))]))
            }
            _ => false,
        }
    }

    /// `(x)[y] {`, the body indented by two, `}`.
    fn braced_lambda(&mut self, lam: &Lambda, indent: usize) {
        let refs = self.fv.body(&lam.body);
        let saved = self.names.enter(&lambda_binders(lam), &refs);
        self.params(lam);
        self.out.push_str(" {");
        self.newline(indent + 2);
        self.body(&lam.body, indent + 2, Natural::Sparam(lam.sparam));
        self.newline(indent);
        self.out.push('}');
        self.names.leave(saved);
    }

    /// Prints `a`; nested tuples with an explicit stack (a tuple built by a
    /// loop can be a million deep).
    fn atom(&mut self, a: &Atom, indent: usize) {
        enum Item<'t> {
            Atom(&'t Atom),
            Text(&'static str),
        }
        let mut todo = vec![Item::Atom(a)];
        while let Some(item) = todo.pop() {
            match item {
                Item::Text(t) => self.out.push_str(t),
                Item::Atom(Atom::Tuple(xs)) => {
                    self.out.push('[');
                    todo.push(Item::Text("]"));
                    // Pushed last-first, so they pop in reading order.
                    for (i, x) in xs.iter().enumerate().rev() {
                        match x {
                            Arg::Atom(x) => todo.push(Item::Atom(x)),
                            Arg::Splice(x) => {
                                todo.push(Item::Atom(x));
                                todo.push(Item::Text("!"));
                            }
                        }
                        if i > 0 {
                            todo.push(Item::Text(", "));
                        }
                    }
                }
                Item::Atom(a) => self.shallow_atom(a, indent),
            }
        }
    }

    /// Prints `a`, which is not a tuple.
    fn shallow_atom(&mut self, a: &Atom, indent: usize) {
        match a {
            Atom::Var(v) => {
                let n = self.names.name(*v);
                self.out.push_str(&n);
            }
            Atom::Int(i) => self.out.push_str(&i.to_string()),
            Atom::Float(f) => self.out.push_str(&format!("{f:?}")),
            Atom::Bool(b) => self.out.push_str(if *b { "true" } else { "false" }),
            Atom::Stage(b) => self.out.push_str(if *b { "always" } else { "never" }),
            Atom::Builtin(Builtin::Exit) => self.out.push_str("$exit"),
            Atom::Builtin(Builtin::If) => self.out.push_str("if"),
            Atom::Tuple(_) => self.atom(a, indent),
            Atom::Str(_) | Atom::Record(_) | Atom::Map(_) | Atom::Matrix(_) => {
                let names = &self.names;
                let text = print_value(a, &|v| names.name(v));
                self.out.push('"');
                self.out.push_str(&text);
                self.out.push('"');
            }
            Atom::Expr(e) => {
                let names = &self.names;
                let text = print_expr(e, &|v| names.name(v));
                self.out.push('"');
                self.out.push_str(&text);
                self.out.push('"');
            }
            Atom::Lambda(l) => self.braced_lambda(l, indent),
            Atom::Rec(r) if self.hoisted.contains(&r.name) => {
                let n = self.names.name(r.name);
                self.out.push_str(&n);
            }
            Atom::Rec(r) => {
                // Only reached for a recursive value that no body holds
                // directly (an exit value): its own name stays free.
                self.braced_lambda(&r.lam, indent);
            }
        }
    }
}

/// Whether an argument prints as an expression string `"..."`.
fn prints_as_expr(a: &Atom) -> bool {
    matches!(a, Atom::Expr(_) | Atom::Str(_) | Atom::Record(_) | Atom::Map(_) | Atom::Matrix(_))
}

/// The distinct recursive values held by an application outside lambdas.
fn direct_recs(app: &App) -> Vec<&RecLambda> {
    let mut out: Vec<&RecLambda> = Vec::new();
    let mut seen = HashSet::new();
    // A stack in reverse reading order: the head pops first.
    let mut stack: Vec<&Atom> = app
        .args
        .iter()
        .rev()
        .map(|a| match a {
            Arg::Atom(x) | Arg::Splice(x) => x,
        })
        .collect();
    stack.push(&app.head);
    while let Some(a) = stack.pop() {
        match a {
            Atom::Rec(r) if seen.insert(r.name) => out.push(r),
            Atom::Tuple(xs) => stack.extend(xs.iter().rev().map(|x| match x {
                Arg::Atom(x) | Arg::Splice(x) => x,
            })),
            Atom::Record(fs) => stack.extend(fs.iter().rev().map(|(_, x)| x)),
            _ => {}
        }
    }
    out
}

/// A short one-line rendering of a value for messages.
pub fn short_atom(a: &Atom, vars: &Vars) -> String {
    let text = match a {
        Atom::Lambda(_) | Atom::Rec(_) => {
            let l = match a {
                Atom::Rec(r) => &r.lam,
                Atom::Lambda(l) => &**l,
                _ => return String::new(),
            };
            let mut p = Printer::new(vars);
            p.params(l);
            format!("{} {{ … }}", p.out)
        }
        _ => Printer::new(vars).atom_text(a).trim_end().to_string(),
    };
    let one_line = text.replace('\n', " ");
    if one_line.chars().count() > 60 {
        let cut: String = one_line.chars().take(57).collect();
        format!("{cut}…")
    } else {
        one_line
    }
}

/// A staging expression as printed (`ct & !pt`, minimal parentheses), built
/// with an explicit stack (the printer and the views' labels).
pub fn sexp_text(s: &SExp, names: &Names) -> String {
    enum Tok<'a> {
        E(&'a SExp, u8),
        T(&'static str),
    }
    let mut out = String::new();
    let mut stack = vec![Tok::E(s, 0)];
    while let Some(t) = stack.pop() {
        let (s, ctx) = match t {
            Tok::T(t) => {
                out.push_str(t);
                continue;
            }
            Tok::E(s, ctx) => (s, ctx),
        };
        let prec = match s {
            SExp::Or(..) => 1,
            SExp::And(..) => 2,
            _ => 3,
        };
        let paren = prec < ctx;
        if paren {
            out.push('(');
            stack.push(Tok::T(")"));
        }
        match s {
            SExp::Const(true) => out.push_str("always"),
            SExp::Const(false) => out.push_str("never"),
            SExp::Var(v) => out.push_str(&names.name(*v)),
            SExp::Not(a) => {
                out.push('!');
                stack.push(Tok::E(a, 3));
            }
            SExp::And(a, b) => {
                stack.push(Tok::E(b, 3));
                stack.push(Tok::T(" & "));
                stack.push(Tok::E(a, 2));
            }
            SExp::Or(a, b) => {
                stack.push(Tok::E(b, 2));
                stack.push(Tok::T(" | "));
                stack.push(Tok::E(a, 1));
            }
        }
    }
    out
}
