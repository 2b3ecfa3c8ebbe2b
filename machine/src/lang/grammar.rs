//! A [`Definition`] checked and compiled into a [`Grammar`]: names
//! resolved to rules and token classes, literals numbered, every action
//! call a numbered site; and the checks that make the engine terminate and
//! stay linear on the grammars it accepts: no undefined name, no left
//! recursion, no repetition of something that can match nothing.

use std::collections::HashMap;

use crate::diag::Diagnostic;
use crate::lang::def::{Definition, Expr, Pattern, Skip};
use crate::span::Span;
use crate::syntax::suggest::nearest;

/// A compiled part of a production.
#[derive(Clone, Debug)]
pub enum G {
    /// Literal number `i` of [`Grammar::lits`].
    Lit(u32),
    /// Token class number `i` of [`Grammar::classes`], with the number of
    /// its label in [`Grammar::labels`] if it has one.
    Class(u32, Option<u32>),
    /// Rule number `i`.
    Rule(u32),
    /// Nothing.
    Empty,
    /// Action site number `i` of [`Grammar::sites`].
    Action(u32),
    /// One after the other.
    Seq(Vec<G>),
    /// Ordered choice.
    Alt(Vec<G>),
    /// Zero or one.
    Opt(Box<G>),
    /// Zero or more.
    Star(Box<G>),
    /// One or more.
    Plus(Box<G>),
}

/// One action call written in a production.
#[derive(Clone, Debug)]
pub struct Site {
    /// The action's name.
    pub action: String,
    /// The tokens whose latest values are passed.
    pub args: Vec<ArgRef>,
    /// Called before what the rule has produced so far.
    pub hoist: bool,
    /// Where the call is written.
    pub span: Span,
}

/// What an action's argument names: the latest token of a class, or the
/// latest token matched under a label, in the action's rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgRef {
    /// Token class `i`.
    Class(u32),
    /// Label `i`.
    Label(u32),
}

/// A token class.
#[derive(Clone, Debug)]
pub struct Class {
    /// Its name.
    pub name: String,
    /// What it matches.
    pub pattern: Pattern,
}

/// A rule.
#[derive(Clone, Debug)]
pub struct GRule {
    /// Its name.
    pub name: String,
    /// Its production.
    pub body: G,
    /// Where its name is written.
    pub span: Span,
}

/// A checked grammar.
#[derive(Clone, Debug, Default)]
pub struct Grammar {
    /// Keywords and symbols, in order of first use.
    pub lits: Vec<String>,
    /// Token classes.
    pub classes: Vec<Class>,
    /// Labels of tokens (`rows:NUM`).
    pub labels: Vec<String>,
    /// Rules; rule 0 is where parsing starts.
    pub rules: Vec<GRule>,
    /// Action sites, numbered in order of writing.
    pub sites: Vec<Site>,
    /// What the input skips.
    pub skips: Vec<Skip>,
}

impl Grammar {
    /// Whether literal `i` is a keyword (a word), not a symbol.
    pub fn is_keyword(&self, i: u32) -> bool {
        self.lits
            .get(i as usize)
            .is_some_and(|l| l.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
    }
}

/// Compiles and checks the rules of `d`; every error found, each at its
/// place in the definition.
pub fn compile(d: &Definition) -> Result<Grammar, Vec<Diagnostic>> {
    let mut c = Compiler::default();
    for t in &d.tokens {
        if let Some(&old) = c.class_ix.get(&t.name.name) {
            c.errors
                .push(twice("token", &t.name.name, t.name.span, c.class_spans[old as usize]));
            continue;
        }
        c.class_ix.insert(t.name.name.clone(), c.g.classes.len() as u32);
        c.class_spans.push(t.name.span);
        c.g.classes.push(Class {
            name: t.name.name.clone(),
            pattern: t.pattern,
        });
    }
    for r in &d.rules {
        if let Some(&old) = c.rule_ix.get(&r.name.name) {
            c.errors
                .push(twice("rule", &r.name.name, r.name.span, c.g.rules[old as usize].span));
            continue;
        }
        if let Some(&old) = c.class_ix.get(&r.name.name) {
            c.errors.push(
                Diagnostic::error(
                    "lang",
                    format!("`{}` is both a token and a rule", r.name.name),
                    r.name.span,
                    "a rule of that name",
                )
                .with_secondary(c.class_spans[old as usize], "a token of that name"),
            );
            continue;
        }
        c.rule_ix.insert(r.name.name.clone(), c.g.rules.len() as u32);
        c.g.rules.push(GRule {
            name: r.name.name.clone(),
            body: G::Empty,
            span: r.name.span,
        });
    }
    if d.rules.is_empty() {
        c.errors.push(
            Diagnostic::error_nowhere("lang", "the language definition has no rule")
                .with_note("the first rule is where parsing starts: `rule program = expr ;`"),
        );
    }
    for r in &d.rules {
        let Some(&ix) = c.rule_ix.get(&r.name.name) else { continue };
        if c.g.rules[ix as usize].span != r.name.span {
            continue;
        }
        let mut seen = Vec::new();
        let body = c.expr(&r.body, &r.name.name, &mut seen);
        c.g.rules[ix as usize].body = body;
    }
    c.g.skips = d.skips.iter().map(|(s, _)| s.clone()).collect();
    if c.errors.is_empty() {
        check_termination(&c.g, d, &mut c.errors);
    }
    if c.errors.is_empty() {
        Ok(c.g)
    } else {
        Err(c.errors)
    }
}

fn twice(what: &str, name: &str, span: Span, old: Span) -> Diagnostic {
    Diagnostic::error("lang", format!("the {what} `{name}` is defined twice"), span, "defined again here")
        .with_secondary(old, "first defined here")
}

#[derive(Default)]
struct Compiler {
    g: Grammar,
    lit_ix: HashMap<String, u32>,
    class_ix: HashMap<String, u32>,
    class_spans: Vec<Span>,
    rule_ix: HashMap<String, u32>,
    errors: Vec<Diagnostic>,
}

impl Compiler {
    /// Compiles `e` of rule `rule`; `seen` holds the token classes written
    /// before it in the rule (what an action may take).
    fn expr(&mut self, e: &Expr, rule: &str, seen: &mut Vec<ArgRef>) -> G {
        match e {
            Expr::Lit(s, _) => {
                let n = self.g.lits.len() as u32;
                let i = *self.lit_ix.entry(s.clone()).or_insert(n);
                if i == n {
                    self.g.lits.push(s.clone());
                }
                G::Lit(i)
            }
            Expr::Label(label, n) => {
                let Some(&i) = self.class_ix.get(&n.name) else {
                    self.errors.push(Diagnostic::error(
                        "lang",
                        format!("`{}` is not a token, so it cannot be labelled", n.name),
                        n.span,
                        "a label names a token (`rows:NUM`)",
                    ));
                    return G::Empty;
                };
                let l = match self.g.labels.iter().position(|x| *x == label.name) {
                    Some(l) => l as u32,
                    None => {
                        self.g.labels.push(label.name.clone());
                        self.g.labels.len() as u32 - 1
                    }
                };
                seen.push(ArgRef::Label(l));
                seen.push(ArgRef::Class(i));
                G::Class(i, Some(l))
            }
            Expr::Ref(n) => {
                if let Some(&i) = self.class_ix.get(&n.name) {
                    seen.push(ArgRef::Class(i));
                    return G::Class(i, None);
                }
                if let Some(&i) = self.rule_ix.get(&n.name) {
                    return G::Rule(i);
                }
                let names: Vec<&str> = self.rule_ix.keys().chain(self.class_ix.keys()).map(String::as_str).collect();
                let mut d = Diagnostic::error("lang", format!("`{}` is neither a rule nor a token", n.name), n.span, "not defined");
                if let Some(s) = nearest(&n.name, names) {
                    d = d.with_note(format!("did you mean `{s}`?"));
                } else {
                    d = d.with_note("define it with `rule NAME = ... ;` or `token NAME number` (or `name`)");
                }
                self.errors.push(d);
                G::Empty
            }
            Expr::Empty(_) => G::Empty,
            Expr::Action { name, args, hoist, span } => {
                let mut classes = Vec::new();
                for a in args {
                    let label = self.g.labels.iter().position(|x| *x == a.name).map(|l| ArgRef::Label(l as u32));
                    if let Some(l) = label.filter(|l| seen.contains(l)) {
                        classes.push(l);
                        continue;
                    }
                    match self.class_ix.get(&a.name) {
                        Some(&i) if seen.contains(&ArgRef::Class(i)) => classes.push(ArgRef::Class(i)),
                        Some(_) => self.errors.push(
                            Diagnostic::error(
                                "lang",
                                format!("the token `{}` is not matched before this action in rule `{rule}`", a.name),
                                a.span,
                                "no value to pass yet",
                            )
                            .with_note("an action takes the latest value of a token matched earlier in its own rule"),
                        ),
                        None if label.is_some() => self.errors.push(Diagnostic::error(
                            "lang",
                            format!("the label `{}` is not matched before this action in rule `{rule}`", a.name),
                            a.span,
                            "no value to pass yet",
                        )),
                        None => self.errors.push(
                            Diagnostic::error(
                                "lang",
                                format!("`{}` is not a token, so it has no value to pass", a.name),
                                a.span,
                                "not a token",
                            )
                            .with_note("an action's arguments name tokens (`token NUM number`) matched earlier in its rule"),
                        ),
                    }
                }
                self.g.sites.push(Site {
                    action: name.name.clone(),
                    args: classes,
                    hoist: *hoist,
                    span: *span,
                });
                G::Action(self.g.sites.len() as u32 - 1)
            }
            Expr::Seq(items, _) => G::Seq(items.iter().map(|i| self.expr(i, rule, seen)).collect()),
            Expr::Alt(alts, _) => G::Alt(alts.iter().map(|a| self.expr(a, rule, seen)).collect()),
            Expr::Opt(e, _) => G::Opt(Box::new(self.expr(e, rule, seen))),
            Expr::Star(e, _) => G::Star(Box::new(self.expr(e, rule, seen))),
            Expr::Plus(e, _) => G::Plus(Box::new(self.expr(e, rule, seen))),
        }
    }
}

/// Whether `g` can match without consuming input, given which rules can.
fn nullable(g: &G, rules: &[bool]) -> bool {
    match g {
        G::Lit(_) | G::Class(..) => false,
        G::Empty | G::Action(_) | G::Opt(_) | G::Star(_) => true,
        G::Rule(r) => rules[*r as usize],
        G::Seq(items) => items.iter().all(|i| nullable(i, rules)),
        G::Alt(alts) => alts.iter().any(|a| nullable(a, rules)),
        G::Plus(e) => nullable(e, rules),
    }
}

/// The rules `g` may call before it consumes anything.
fn first_calls(g: &G, rules: &[bool], out: &mut Vec<u32>) {
    match g {
        G::Lit(_) | G::Class(..) | G::Empty | G::Action(_) => {}
        G::Rule(r) => out.push(*r),
        G::Seq(items) => {
            for i in items {
                first_calls(i, rules, out);
                if !nullable(i, rules) {
                    break;
                }
            }
        }
        G::Alt(alts) => alts.iter().for_each(|a| first_calls(a, rules, out)),
        G::Opt(e) | G::Star(e) | G::Plus(e) => first_calls(e, rules, out),
    }
}

/// A repetition of something that can match nothing, which would loop.
fn empty_repetition<'a>(g: &'a G, rules: &[bool], out: &mut Vec<&'a G>) {
    match g {
        G::Star(e) | G::Plus(e) => {
            if nullable(e, rules) {
                out.push(g);
            }
            empty_repetition(e, rules, out);
        }
        G::Opt(e) => empty_repetition(e, rules, out),
        G::Seq(items) | G::Alt(items) => items.iter().for_each(|i| empty_repetition(i, rules, out)),
        _ => {}
    }
}

/// The left-recursion and empty-repetition checks.
fn check_termination(g: &Grammar, d: &Definition, errors: &mut Vec<Diagnostic>) {
    let n = g.rules.len();
    let mut null = vec![false; n];
    loop {
        let mut changed = false;
        for (i, r) in g.rules.iter().enumerate() {
            if !null[i] && nullable(&r.body, &null) {
                null[i] = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let edges: Vec<Vec<u32>> = g
        .rules
        .iter()
        .map(|r| {
            let mut v = Vec::new();
            first_calls(&r.body, &null, &mut v);
            v
        })
        .collect();
    // A cycle through rule i: a path from i back to i (breadth first, with
    // parents to name the path).
    let mut reported = vec![false; n];
    for start in 0..n {
        if reported[start] {
            continue;
        }
        let mut parent = vec![usize::MAX; n];
        let mut queue = std::collections::VecDeque::new();
        let mut found = None;
        for &e in &edges[start] {
            if parent[e as usize] == usize::MAX {
                parent[e as usize] = start;
                queue.push_back(e as usize);
            }
        }
        while let Some(r) = queue.pop_front() {
            if r == start {
                found = Some(r);
                break;
            }
            for &e in &edges[r] {
                if parent[e as usize] == usize::MAX {
                    parent[e as usize] = r;
                    queue.push_back(e as usize);
                }
            }
        }
        if found.is_none() {
            continue;
        }
        let mut path = vec![start];
        let mut at = parent[start];
        while at != start && path.len() <= n {
            path.push(at);
            at = parent[at];
        }
        path.push(start);
        path.reverse();
        for &p in &path {
            reported[p] = true;
        }
        let names: Vec<&str> = path.iter().map(|&i| g.rules[i].name.as_str()).collect();
        let name = &g.rules[start].name;
        let span = d
            .rules
            .iter()
            .find(|r| r.name.name == *name)
            .map_or(g.rules[start].span, |r| r.body.span());
        errors.push(
            Diagnostic::error(
                "left-recursion",
                format!("the rule `{name}` is left-recursive: {}", names.join(" → ")),
                span,
                format!("`{name}` can come back to itself before reading any input"),
            )
            .with_note(format!(
                "the engine reads top-down and would loop; write `{name} = A B | C ;` as `{name} = C B* ;` \
                 (`expr = expr \"+\" term @add | term ;` becomes `expr = term (\"+\" term @add)* ;`)"
            )),
        );
    }
    for (i, r) in g.rules.iter().enumerate() {
        let mut reps = Vec::new();
        empty_repetition(&r.body, &null, &mut reps);
        if !reps.is_empty() {
            let span = d.rules.get(i).map_or(r.span, |dr| dr.body.span());
            errors.push(
                Diagnostic::error(
                    "lang",
                    format!("the rule `{}` repeats a part that can match nothing", r.name),
                    span,
                    "a `*` or `+` here repeats something that can match no input",
                )
                .with_note("it would repeat forever; make the repeated part read at least one token"),
            );
        }
    }
}
