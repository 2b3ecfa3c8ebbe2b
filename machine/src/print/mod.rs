//! Canonical printing (LANGUAGE.md §8): how residual programs and exit values
//! are shown and compared. The printed form parses back to the same term up
//! to renaming of bound variables.
//!
//! Layout: a body is `@e: ` (omitted for natural staging on an anonymous
//! staging parameter, and for `always` at top level) and its command; a lambda
//! in last position prints in the braceless tail form with its body on the
//! next line at the same indentation, except the branches of `if`; `(x) { b }
//! "e"` prints as `"e" (x)`; other lambdas are braced with their bodies
//! indented by two spaces.
//! [`names`] chooses the printed names of binders.
//!
//! A printer made with [`Printer::recording`] prints the same text and also
//! notes where it put every body and every occurrence and binder of a
//! variable ([`PrintMap`]), for the views that point into the text.
//! [`comments`] puts the comments of a source file back into its printed form.

pub mod alpha;
pub mod comments;
pub mod free;
pub mod names;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::cell::RefCell;

use crate::expr::print::{print_expr, print_value};
use crate::term::{Application, Arg, Atom, Body, Builtin, Cmd, Lambda, SExp, Sugar, VarId, Vars};
use free::FreeVars;
use names::{lambda_binders, Names};

/// What to undo when a printed chain of bodies ends.
enum Undo {
    /// Leave a scope of printed names.
    Scope(Vec<(VarId, Option<String>)>),
    /// A recursive value prints again as it did before a body hoisted it
    /// (as the name it held then, or in full).
    Hoist(VarId, Option<VarId>),
}

/// What natural staging means where a body is printed.
#[derive(Clone, Copy)]
enum Natural {
    /// The top-level body: `always` is natural.
    Top,
    /// Inside a lambda (or `let`/`fix`) with this staging parameter.
    Sparam(VarId),
}

/// Where a body stands in the printed text (recording mode).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BodyPlace {
    /// Byte offset where the body starts (its `@e: ` prefix if printed).
    pub start: usize,
    /// Byte offset where its extent ends: the end of the chain of bodies
    /// that continue it (they are nested in it), or of the body itself.
    pub end: usize,
    /// Whether the printer printed the body. `false`: something else stands
    /// for it (a recursive value printed as its name, a value inside an
    /// expression string or a string, where lambdas print as `<lambda>`, or
    /// the missing main body of a library being formatted); `start == end`
    /// is then the place where that something starts.
    pub printed: bool,
}

/// A printed occurrence of a variable (recording mode).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VarPlace {
    /// Byte offset of the first byte of the printed name.
    pub start: usize,
    /// Byte offset just past the printed name.
    pub end: usize,
    /// The variable.
    pub var: VarId,
    /// The byte range of the name of the binder of `var`, printed earlier in
    /// the text (the last one printed, should a variable be bound twice);
    /// `None` when its binder is not printed (a free variable, an anonymous
    /// staging parameter, the name of a recursive value printed as a value).
    pub binder: Option<(usize, usize)>,
}

/// What a printer in recording mode ([`Printer::recording`]) noted.
#[derive(Debug, Default)]
pub struct PrintMap {
    /// Every body of the term met by the printer, printed or not, keyed by
    /// its address (`b as *const Body as usize`), valid while the term
    /// printed is alive and unmoved.
    pub bodies: HashMap<usize, BodyPlace>,
    /// Every printed occurrence of a variable (heads, arguments, tuple
    /// elements, staging expressions, expression strings, recursive values
    /// printed as their name), in text order. Binders are not occurrences.
    pub occurrences: Vec<VarPlace>,
    /// The bodies of the chains being printed, with their starts: their
    /// extent ends when their chain does.
    open: Vec<(usize, usize)>,
    /// The last printed binder of each variable.
    binders: HashMap<VarId, (usize, usize)>,
}

impl PrintMap {
    fn occurrence(&mut self, start: usize, end: usize, var: VarId) {
        let binder = self.binders.get(&var).copied();
        self.occurrences.push(VarPlace { start, end, var, binder });
    }

    /// Notes every body in `item` (not printed) at the offset `at`, unless
    /// it is placed already; iterative.
    fn hide(&mut self, item: Hidden<'_>, at: usize) {
        let mut stack = vec![item];
        while let Some(item) = stack.pop() {
            match item {
                Hidden::Body(b) => {
                    self.bodies.entry(body_address(b)).or_insert(BodyPlace {
                        start: at,
                        end: at,
                        printed: false,
                    });
                    match &b.cmd {
                        Cmd::App(app) => {
                            stack.push(Hidden::Atom(&app.head));
                            stack.extend(app.args.iter().map(|a| match a {
                                Arg::Atom(x) | Arg::Splice(x) => Hidden::Atom(x),
                            }));
                        }
                        Cmd::Fix(fix) => {
                            stack.push(Hidden::Body(&fix.lam.body));
                            stack.push(Hidden::Body(&fix.body));
                        }
                    }
                }
                Hidden::Atom(a) => match a {
                    Atom::Lambda(l) => stack.push(Hidden::Body(&l.body)),
                    Atom::Rec(r) => stack.push(Hidden::Body(&r.lam.body)),
                    Atom::Tuple(xs) => stack.extend(xs.iter().map(|x| match x {
                        Arg::Atom(x) | Arg::Splice(x) => Hidden::Atom(x),
                    })),
                    Atom::Record(fs) => stack.extend(fs.iter().map(|(_, x)| Hidden::Atom(x))),
                    Atom::Map(kvs) => stack.extend(kvs.iter().flat_map(|(k, v)| [Hidden::Atom(k), Hidden::Atom(v)])),
                    Atom::Expr(e) => stack.extend(e.vals().into_iter().map(Hidden::Atom)),
                    _ => {}
                },
            }
        }
    }
}

/// Something whose bodies the printer does not print.
enum Hidden<'t> {
    Body(&'t Body),
    Atom(&'t Atom),
}

/// The address of a body, which identifies it while the term is alive and
/// unmoved (no body holds another inline: nested bodies sit behind boxes).
pub fn body_address(b: &Body) -> usize {
    b as *const Body as usize
}

/// A printer over one variable table.
pub struct Printer<'v> {
    names: Names<'v>,
    out: String,
    /// Print `let` sugar where the source had it (`deepcps fmt`).
    source_mode: bool,
    /// Recursive values whose `fix` is being printed around the current
    /// body, each with the name it prints as: its own, or that of the value
    /// it is a copy of, named apart ([`alpha`]).
    hoisted: HashMap<VarId, VarId>,
    /// Free variables of the scopes entered.
    fv: FreeVars,
    /// Where things were printed, in recording mode.
    map: Option<PrintMap>,
    /// Past this many bytes, line breaks and indentation are no longer
    /// written ([`Printer::limited`]).
    limit: usize,
}

impl<'v> Printer<'v> {
    /// A printer for terms over `vars`.
    pub fn new(vars: &'v Vars) -> Printer<'v> {
        Printer {
            names: Names::new(vars),
            out: String::new(),
            source_mode: false,
            hoisted: HashMap::default(),
            fv: FreeVars::default(),
            map: None,
            limit: usize::MAX,
        }
    }

    /// A printer that stops writing line breaks and indentation once its
    /// text is longer than `bytes`: a caller that prints nothing longer
    /// than that (`--max-output`) learns the text is too long without
    /// building it. Indentation is what can grow faster than the term: a
    /// chain of `d` lambdas nested in argument position indents `d` levels,
    /// `d^2` spaces in all.
    pub fn limited(mut self, bytes: usize) -> Printer<'v> {
        self.limit = bytes;
        self
    }

    /// A printer that prints exactly what [`Printer::new`] prints and notes
    /// where it puts bodies and variables: use [`Printer::program_map`] or
    /// [`Printer::atom_map`].
    pub fn recording(vars: &'v Vars) -> Printer<'v> {
        Printer {
            map: Some(PrintMap::default()),
            ..Printer::new(vars)
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

    /// [`Printer::program_text`], with where things were printed (empty
    /// unless the printer is [`Printer::recording`]).
    pub fn program_map(mut self, b: &Body) -> (String, PrintMap) {
        self.body(b, 0, Natural::Top);
        self.out.push('\n');
        (self.out, self.map.unwrap_or_default())
    }

    /// [`Printer::atom_text`], with where things were printed (empty unless
    /// the printer is [`Printer::recording`]).
    pub fn atom_map(mut self, a: &Atom) -> (String, PrintMap) {
        self.atom(a, 0);
        self.out.push('\n');
        (self.out, self.map.unwrap_or_default())
    }

    /// Prints the name of an occurrence of `v`.
    fn push_var(&mut self, v: VarId) {
        let n = self.names.name_str(v);
        let start = self.out.len();
        self.out.push_str(n);
        let end = self.out.len();
        if let Some(m) = &mut self.map {
            m.occurrence(start, end, v);
        }
    }

    /// Prints the name of the binder `v`.
    fn push_binder(&mut self, v: VarId) {
        let n = self.names.name_str(v);
        let start = self.out.len();
        self.out.push_str(n);
        let end = self.out.len();
        if let Some(m) = &mut self.map {
            m.binders.insert(v, (start, end));
        }
    }

    /// Notes the bodies of `item`, which are not printed, at the current
    /// offset (recording mode).
    fn hide(&mut self, item: Hidden<'_>, at: usize) {
        if let Some(m) = &mut self.map {
            m.hide(item, at);
        }
    }

    fn newline(&mut self, indent: usize) {
        if self.out.len() > self.limit {
            return;
        }
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
            let map = &mut self.map;
            sexp_write(s, &self.names, &mut self.out, &mut |start, end, v| {
                if let Some(m) = map {
                    m.occurrence(start, end, v);
                }
            });
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
        let mark = self.map.as_ref().map_or(0, |m| m.open.len());
        while let Some((b, natural)) = next {
            if let Some(m) = &mut self.map {
                m.open.push((body_address(b), self.out.len()));
            }
            next = self.link(b, indent, natural, &mut undo);
        }
        if let Some(m) = &mut self.map {
            // The bodies of a chain are nested in one another: all end here.
            let end = self.out.len();
            for (b, start) in m.open.split_off(mark) {
                let printed = BodyPlace { start, end, printed: true };
                m.bodies.insert(b, printed);
            }
        }
        for u in undo.into_iter().rev() {
            match u {
                Undo::Scope(saved) => self.names.leave(saved),
                Undo::Hoist(v, before) => {
                    match before {
                        Some(name) => self.hoisted.insert(v, name),
                        None => self.hoisted.remove(&v),
                    };
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
                // before the application, which then refers to it by name;
                // copies of one value named apart print as one.
                let held = alpha::held_recs(app, &self.names);
                for &(copy, first) in &held.aliases {
                    undo.push(Undo::Hoist(copy, self.hoisted.insert(copy, first)));
                }
                for &r in &held.printed {
                    let refs = held.refs(r, app, &mut self.fv);
                    undo.push(Undo::Scope(self.names.enter(&[r.name], &refs)));
                    self.out.push_str("fix ");
                    self.push_binder(r.name);
                    self.braced_lambda(&r.lam, indent);
                    self.out.push_str(" in");
                    self.newline(indent);
                    undo.push(Undo::Hoist(r.name, self.hoisted.insert(r.name, r.name)));
                }
                self.app(app, indent, undo)
            }
            Cmd::Fix(fix) => {
                let mut refs: HashSet<VarId> = self.fv.body(&fix.lam.body).iter().copied().collect();
                refs.extend(self.fv.body(&fix.body).iter().copied());
                undo.push(Undo::Scope(self.names.enter(&[fix.sparam, fix.name], &refs)));
                self.out.push_str("fix ");
                if !self.names.anonymous(fix.sparam) {
                    self.out.push('[');
                    self.push_binder(fix.sparam);
                    self.out.push_str("] ");
                }
                self.push_binder(fix.name);
                self.braced_lambda(&fix.lam, indent);
                self.out.push_str(" in");
                self.newline(indent);
                Some((&fix.body, Natural::Sparam(fix.sparam)))
            }
        }
    }

    fn app<'t>(&mut self, app: &'t Application, indent: usize, undo: &mut Vec<Undo>) -> Option<(&'t Body, Natural)> {
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
        // The branches of `if` are both braced: in tail form the second
        // would read as code that follows the `if`.
        let tail = !matches!(app.head, Atom::Builtin(Builtin::If));
        for (i, a) in app.args.iter().enumerate() {
            self.out.push(' ');
            match a {
                Arg::Atom(Atom::Lambda(lam)) if tail && i + 1 == n => return self.tail_lambda(lam, indent, undo),
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
        if matches!(&lam.body.cmd, Cmd::App(Application { sugar: Sugar::Hole, .. })) {
            self.hide(Hidden::Body(&lam.body), self.out.len());
            return None;
        }
        self.newline(indent);
        Some((&lam.body, Natural::Sparam(lam.sparam)))
    }

    fn let_head(&mut self, lam: &Lambda) {
        if !self.names.anonymous(lam.sparam) {
            self.out.push('[');
            self.push_binder(lam.sparam);
            self.out.push_str("] ");
        }
        if let Some(p) = lam.params.first() {
            self.push_binder(p.var);
        }
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
            self.push_binder(p.var);
        }
        self.out.push(')');
        if !self.names.anonymous(lam.sparam) {
            self.out.push('[');
            self.push_binder(lam.sparam);
            self.out.push(']');
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
            Cmd::App(app) if self.stage_omitted(&b.stage, natural) && alpha::direct_recs(app).is_empty() => {
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
            Atom::Var(v) => self.push_var(*v),
            Atom::Int(i) => self.out.push_str(&i.to_string()),
            Atom::Float(f) => self.out.push_str(&format!("{f:?}")),
            Atom::Bool(b) => self.out.push_str(if *b { "true" } else { "false" }),
            Atom::Stage(b) => self.out.push_str(if *b { "always" } else { "never" }),
            Atom::Builtin(Builtin::Exit) => self.out.push_str("$exit"),
            Atom::Builtin(Builtin::If) => self.out.push_str("if"),
            Atom::Tuple(_) => self.atom(a, indent),
            Atom::Str(_) | Atom::Record(_) | Atom::Map(_) | Atom::Matrix(_) | Atom::Expr(_) => self.quoted(a),
            Atom::Lambda(l) => self.braced_lambda(l, indent),
            Atom::Rec(r) if self.hoisted.contains_key(&r.name) => {
                // Its lambda is printed by the `fix .. in` around (its own,
                // or that of the value it is a copy of).
                let name = self.hoisted.get(&r.name).copied().unwrap_or(r.name);
                self.hide(Hidden::Atom(a), self.out.len());
                self.push_var(name);
            }
            Atom::Rec(r) => {
                // Only reached for a recursive value that no body holds
                // directly (an exit value): its own name stays free.
                self.braced_lambda(&r.lam, indent);
            }
        }
    }
}

impl Printer<'_> {
    /// Prints a value or an expression in double quotes, in expression
    /// syntax; records the variables printed in it (recording mode).
    fn quoted(&mut self, a: &Atom) {
        let render = |name: &dyn Fn(VarId) -> String| match a {
            Atom::Expr(e) => print_expr(e, name),
            other => print_value(other, name),
        };
        let names = &self.names;
        let text = render(&|v| names.name(v));
        self.hide(Hidden::Atom(a), self.out.len());
        self.out.push('"');
        let start = self.out.len();
        self.out.push_str(&text);
        self.out.push('"');
        if self.map.is_none() {
            return;
        }
        // Printed again with a marker in place of each name, to learn where
        // the names fall; kept only if the markers give back the same text.
        let calls: RefCell<Vec<VarId>> = RefCell::new(Vec::new());
        let marked = render(&|v| {
            let mut calls = calls.borrow_mut();
            calls.push(v);
            format!("{MARK_OPEN}{}{MARK_CLOSE}", calls.len() - 1)
        });
        let calls = calls.into_inner();
        if let Some(found) = unmark(&marked, &calls, &text, &self.names) {
            if let Some(m) = &mut self.map {
                for (s, e, v) in found {
                    m.occurrence(start + s, start + e, v);
                }
            }
        }
    }
}

/// Marks around the number of a variable in an expression printed to find
/// where its names fall (private-use characters; a string literal holding
/// them at worst loses the places of that expression's variables).
const MARK_OPEN: char = '\u{E000}';
const MARK_CLOSE: char = '\u{E001}';

/// The places of the names in `text`, from the same expression printed with
/// numbered marks in place of the names of the variables `calls`; `None`
/// when the marks do not give back `text` exactly.
fn unmark(marked: &str, calls: &[VarId], text: &str, names: &Names) -> Option<Vec<(usize, usize, VarId)>> {
    let mut rebuilt = String::with_capacity(text.len());
    let mut found = Vec::with_capacity(calls.len());
    let mut rest = marked;
    while let Some(i) = rest.find(MARK_OPEN) {
        rebuilt.push_str(&rest[..i]);
        rest = &rest[i + MARK_OPEN.len_utf8()..];
        let j = rest.find(MARK_CLOSE)?;
        let k: usize = rest[..j].parse().ok()?;
        rest = &rest[j + MARK_CLOSE.len_utf8()..];
        if k != found.len() {
            return None;
        }
        let v = *calls.get(k)?;
        let name = names.name(v);
        let start = rebuilt.len();
        rebuilt.push_str(&name);
        found.push((start, rebuilt.len(), v));
    }
    rebuilt.push_str(rest);
    (rebuilt == text && found.len() == calls.len()).then_some(found)
}

/// Whether an argument prints as an expression string `"..."`.
fn prints_as_expr(a: &Atom) -> bool {
    matches!(a, Atom::Expr(_) | Atom::Str(_) | Atom::Record(_) | Atom::Map(_) | Atom::Matrix(_))
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
    let mut out = String::new();
    sexp_write(s, names, &mut out, &mut |_, _, _| {});
    out
}

/// Writes a staging expression as [`sexp_text`] prints it to `out`, telling
/// `on_var` the byte range in `out` of each variable's name.
fn sexp_write(s: &SExp, names: &Names, out: &mut String, on_var: &mut dyn FnMut(usize, usize, VarId)) {
    enum Tok<'a> {
        E(&'a SExp, u8),
        T(&'static str),
    }
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
            SExp::Var(v) => {
                let n = names.name(*v);
                let start = out.len();
                out.push_str(&n);
                on_var(start, out.len(), *v);
            }
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
}
