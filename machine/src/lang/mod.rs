//! Languages: a grammar whose productions call the semantic actions of a
//! DeepCPS file, so that an input of the language becomes the program its
//! actions build (the paper's future work: its actions driven by a
//! parser).
//!
//! A language is a folder holding its definition, [`DEFINITION_FILE`]
//! (read by [`def`], checked and compiled by [`grammar`]), and the actions
//! file the definition names ([`actions`]). [`load_language`] checks the
//! whole definition, the actions included, before any input is read.
//! [`Language::build`] reads an input: [`scan`] makes its tokens, the
//! [`engine`] parses them and records the action calls in order, and
//! [`emit`] writes the program that makes those calls (`start (F)`,
//! `ACTION F args.. (F)`, .., `end F (program)`) as DeepCPS source, loaded
//! by the ordinary front end. [`emit::Origins`] maps every place in that
//! program back to the input that caused it, for diagnostics and the
//! debugger.
//!
//! # What decided the design
//!
//! - **The engine is the crate's own.** pest_meta and pest_vm parse a pest
//!   grammar at run time, but a definition would have to be translated into
//!   pest text, its action calls made into empty rules, their token
//!   arguments found again in pest's pair tree, and every pest error (of
//!   the generated grammar) mapped back onto the definition's places. The
//!   engine needed is small: a PEG interpreter over the tokens (about 300
//!   lines) whose state is the action calls of each rule invocation, so that
//!   `^f` (before what the rule produced: the pre-order of the AST style on
//!   a left-associative chain) is a push onto the front of that invocation's
//!   list, and a failed alternative truncates it. Left recursion, undefined
//!   names and repetitions of nothing are rejected at load, so the engine
//!   terminates; on grammars whose alternatives differ in their first token
//!   (every shipped one) it reads each token once: 10^5 tokens of
//!   `1+2+..+N` scan and parse in about 70 ms. It recurses once per nested
//!   rule invocation and stops with a diagnostic past 1,000.
//! - **The program is generated as source.** The calls are written as the
//!   corpus writes them by hand (`include` of the actions, `start (F)`, a
//!   line per call, `end F (program)`, then `$exit program` or, for
//!   `--exec`, `program $exit`) and loaded by `syntax`: includes, name
//!   resolution, natural staging and every static check stay in one place,
//!   and a run can load the program again from its first file for a
//!   failure's call sites, as for any program. `Origins` maps each call
//!   line back to the input, so no diagnostic shows the generated text; a
//!   failure inside an action's code (a core-time `lookup` of an unbound
//!   name) is placed on the calls of the action whose definition holds it,
//!   narrowed by the values the message names.

pub mod actions;
pub mod def;
pub mod emit;
pub mod engine;
pub mod grammar;
pub mod progress;
pub mod scan;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::diag::Diagnostic;
use crate::span::{FileId, SourceMap, Span};
use crate::syntax::load::{add_source, cannot_read};
use crate::syntax::FileSystem;

pub use emit::{Built, Ending, Origins};

/// The name of a language's definition inside its folder.
pub const DEFINITION_FILE: &str = "language.lang";

/// A checked language.
#[derive(Clone, Debug)]
pub struct Language {
    /// Its name (`language NAME`, or the folder's name).
    pub name: String,
    /// Its folder.
    pub dir: PathBuf,
    /// The actions file, as the definition names it (relative to `dir`).
    pub actions: String,
    /// How its input files end (`inputs ".arith"`), if said.
    pub inputs: Option<String>,
    /// The action called first.
    pub start: String,
    /// The action called last, which returns the built program.
    pub end: String,
    /// The grammar.
    pub grammar: grammar::Grammar,
    /// The actions' definitions, by name.
    pub defs: HashMap<String, actions::ActionDef>,
}

/// Whether `dir` is a language folder (it holds [`DEFINITION_FILE`]).
pub fn is_language_dir(dir: &Path) -> bool {
    dir.join(DEFINITION_FILE).is_file()
}

/// Reads and checks the language in folder `dir`: its definition, its
/// actions file, and every action call against the action it names.
/// Files read are registered in `sources`.
pub fn load_language(fs: &dyn FileSystem, dir: &Path, sources: &mut SourceMap) -> Result<Language, Vec<Diagnostic>> {
    let path = dir.join(DEFINITION_FILE);
    let bytes = fs.read(&path).map_err(|e| {
        vec![cannot_read(&path, &e).with_note(format!(
            "a language is a folder holding its definition, `{DEFINITION_FILE}`, and its actions file"
        ))]
    })?;
    let shown = crate::syntax::load::shown_path(&path);
    let file = add_source(sources, &shown, Some(path.clone()), bytes).map_err(|d| vec![d])?;
    let text = sources.get(file).text.clone();
    let d = def::parse_definition(&text, file).map_err(|d| vec![d])?;
    let top = Span::new(file, 0, 0);
    let mut errors = Vec::new();
    let g = grammar::compile(&d);
    let Some(actions) = d.actions.clone() else {
        errors.push(
            Diagnostic::error(
                "lang",
                "the definition does not name its actions file",
                top,
                "expected `actions \"FILE.dcps\"`",
            )
            .with_note("the actions file holds the DeepCPS definitions the grammar calls"),
        );
        let mut errs = g.err().unwrap_or_default();
        errors.append(&mut errs);
        return Err(errors);
    };
    let g = match g {
        Ok(g) => g,
        Err(mut e) => {
            errors.append(&mut e);
            return Err(errors);
        }
    };
    if actions.name.contains('"') || actions.name.contains('\\') {
        return Err(vec![Diagnostic::error(
            "lang",
            "the actions file's name holds `\"` or `\\`",
            actions.span,
            "name it plainly",
        )]);
    }
    let apath = dir.join(&actions.name);
    let abytes = fs.read(&apath).map_err(|e| {
        vec![Diagnostic::error(
            "lang",
            format!(
                "cannot read the actions file `{}`: {}",
                crate::syntax::load::shown_path(&apath),
                crate::syntax::load::io_reason(&e)
            ),
            actions.span,
            "named here",
        )]
    })?;
    let afile = add_source(sources, &crate::syntax::load::shown_path(&apath), Some(apath.clone()), abytes).map_err(|d| vec![d])?;
    let defs = actions::read_actions(fs, afile, sources)?;
    let name = d.language.as_ref().map(|n| n.name.clone()).unwrap_or_else(|| {
        dir.file_name()
            .map_or_else(|| "language".to_string(), |n| n.to_string_lossy().into_owned())
    });
    let lang = Language {
        name,
        dir: dir.to_path_buf(),
        actions: actions.name.clone(),
        inputs: d.inputs.as_ref().map(|n| n.name.clone()),
        start: d.start.as_ref().map_or_else(|| "start".to_string(), |n| n.name.clone()),
        end: d.end.as_ref().map_or_else(|| "end".to_string(), |n| n.name.clone()),
        grammar: g,
        defs,
    };
    let shown_actions = crate::syntax::load::shown_path(&apath);
    let start_span = d.start.as_ref().map_or(top, |n| n.span);
    let end_span = d.end.as_ref().map_or(top, |n| n.span);
    actions::check_calls(&lang, &shown_actions, (start_span, end_span), &mut errors);
    if errors.is_empty() {
        Ok(lang)
    } else {
        Err(errors)
    }
}

impl Language {
    /// Reads the input `text` (named `name`, at `path` if on disk) and
    /// builds the program of its action calls, ended as `ending` says; the
    /// program is loaded into a fresh source map whose first file is the
    /// generated program (so that a run can load it again from there) and
    /// whose last is the input.
    pub fn build(
        &self,
        fs: &dyn FileSystem,
        name: &str,
        path: Option<PathBuf>,
        text: String,
        ending: Ending,
    ) -> Result<Built, (SourceMap, Vec<Diagnostic>)> {
        emit::build(self, fs, name, path, text, ending)
    }

    /// The action calls of `text` (registered as `input`), in order.
    pub fn calls(&self, text: &str, input: FileId) -> Result<(Vec<scan::Tok>, Vec<engine::Call>), Diagnostic> {
        let toks = scan::scan(&self.grammar, text, input)?;
        let calls = engine::parse(&self.grammar, &toks)?;
        Ok((toks, calls))
    }
}

#[cfg(test)]
mod tests;
