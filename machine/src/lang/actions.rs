//! The actions file of a language: checked as `deepcps check` checks a
//! library, then its definitions (and those it includes) read for their
//! names and parameter counts, so that every action call of the grammar
//! can be held to the action it names before any input is read.

use std::collections::HashMap;

use crate::diag::Diagnostic;
use crate::span::{FileId, SourceMap, Span};
use crate::syntax::ast::{Def, SurfaceArg, SurfaceOperand};
use crate::syntax::parser::parse_file;
use crate::syntax::{check_from, FileSystem};

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
