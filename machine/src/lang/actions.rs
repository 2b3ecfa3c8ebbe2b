//! The actions file of a language: checked as `deepcps check` checks a
//! library, then its definitions (and those it includes) read for their
//! names and parameter counts, and every action call of the grammar held
//! to the action it names ([`check_calls`]) before any input is read.

use std::collections::HashMap;

use crate::diag::Diagnostic;
use crate::lang::Language;
use crate::span::{FileId, SourceMap, Span};
use crate::syntax::ast::{Def, SurfaceArg, SurfaceOperand};
use crate::syntax::parser::parse_file;
use crate::syntax::suggest::nearest;
use crate::syntax::{check_from, FileSystem};

/// The names the generated program binds, which no action may take.
const RESERVED: [&str; 2] = ["F", "program"];

/// A definition of the actions file that an action call can name.
#[derive(Clone, Debug)]
pub struct ActionDef {
    /// Its parameter names, rest parameters written `!r`.
    pub params: Vec<String>,
    /// Whether one parameter is a rest parameter.
    pub rest: bool,
    /// Where it is defined (the whole definition).
    pub span: Span,
}

impl ActionDef {
    /// Whether a call with `n` arguments fits.
    pub fn takes(&self, n: usize) -> bool {
        if self.rest {
            n + 1 >= self.params.len()
        } else {
            n == self.params.len()
        }
    }
}

/// Checks the actions file registered as `file` and reads its definitions:
/// by name, the last definition of each name (later ones shadow earlier).
pub fn read_actions(fs: &dyn FileSystem, file: FileId, sources: &mut SourceMap) -> Result<HashMap<String, ActionDef>, Vec<Diagnostic>> {
    let first_new = sources.files().len() - 1;
    check_from(fs, file, sources)?;
    let mut defs = HashMap::new();
    // Included files are registered after the actions file, and their
    // definitions take scope first; the actions file's own come last.
    let mut order: Vec<usize> = (first_new + 1..sources.files().len()).collect();
    order.push(first_new);
    for i in order {
        let id = FileId(i as u32);
        let text = sources.get(id).text.clone();
        let Ok(parsed) = parse_file(&text, id) else { continue };
        for d in &parsed.defs {
            let (name, params, span) = match d {
                Def::Let {
                    name,
                    value: SurfaceArg::Operand(SurfaceOperand::Lambda(l)),
                    span,
                    ..
                } => (name, &l.params, span.to(l.span)),
                Def::Fix { name, lam, span, .. } => (name, &lam.params, span.to(lam.span)),
                _ => continue,
            };
            defs.insert(
                name.name.to_string(),
                ActionDef {
                    params: params
                        .iter()
                        .map(|p| {
                            if p.rest {
                                format!("!{}", p.name.name)
                            } else {
                                p.name.name.to_string()
                            }
                        })
                        .collect(),
                    rest: params.iter().any(|p| p.rest),
                    span,
                },
            );
        }
    }
    Ok(defs)
}

/// Holds the start action, the end action and every action call of
/// `lang`'s grammar to the definitions of its actions file (named
/// `shown_actions` in messages); `places` are where the definition names
/// the start and end actions. Pushes a diagnostic per call that does not
/// fit.
pub fn check_calls(lang: &Language, shown_actions: &str, places: (Span, Span), errors: &mut Vec<Diagnostic>) {
    // `start (F)` passes the continuation alone.
    if !lang.defs.get(&lang.start).is_some_and(|a| a.takes(1)) {
        check_start(lang, places.0, shown_actions, errors);
    }
    // `end F (program)` passes the fragment and the continuation; an
    // action call of the grammar its tokens between them.
    check_call(lang, &lang.end, 2, places.1, "the end of the input", shown_actions, errors);
    for s in &lang.grammar.sites {
        check_call(lang, &s.action, s.args.len() + 2, s.span, "this call", shown_actions, errors);
    }
}

/// A call of `name` with `given` arguments, written at `span`.
fn check_call(lang: &Language, name: &str, given: usize, span: Span, what: &str, shown_actions: &str, errors: &mut Vec<Diagnostic>) {
    if RESERVED.contains(&name) {
        errors.push(Diagnostic::error(
            "lang",
            format!("an action cannot be named `{name}`"),
            span,
            "the program of action calls binds this name itself",
        ));
        return;
    }
    match lang.defs.get(name) {
        None => {
            let mut diag = Diagnostic::error(
                "lang",
                format!("the action `{name}` is not defined in `{shown_actions}`"),
                span,
                format!("{what} calls `{name}`"),
            );
            if let Some(s) = nearest(name, lang.defs.keys().map(String::as_str)) {
                diag = diag.with_note(format!("did you mean `{s}`?"));
            }
            errors.push(diag);
        }
        Some(a) if !a.takes(given) => errors.push(
            Diagnostic::error(
                "lang",
                format!(
                    "the action `{name}` takes {} ({}), and {what} passes {given}",
                    plural(a.params.len(), "parameter"),
                    a.params.join(", "),
                ),
                span,
                format!(
                    "passes {given}: the fragment, {}, the continuation",
                    plural(given.saturating_sub(2), "token value")
                ),
            )
            .with_secondary(a.span, format!("`{name}` is defined here")),
        ),
        Some(_) => {}
    }
}

/// The start action takes one argument, the continuation.
fn check_start(lang: &Language, span: Span, shown_actions: &str, errors: &mut Vec<Diagnostic>) {
    let name = &lang.start;
    match lang.defs.get(name) {
        None => errors.push(Diagnostic::error(
            "lang",
            format!("the start action `{name}` is not defined in `{shown_actions}`"),
            span,
            "the run calls it first, as `start (F)`",
        )),
        Some(a) => errors.push(
            Diagnostic::error(
                "lang",
                format!(
                    "the start action `{name}` takes {} ({}); the run passes it 1, the continuation",
                    plural(a.params.len(), "parameter"),
                    a.params.join(", ")
                ),
                span,
                "the run calls it first, as `start (F)`",
            )
            .with_secondary(a.span, format!("`{name}` is defined here")),
        ),
    }
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}
