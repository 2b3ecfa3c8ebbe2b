//! The program of an input's action calls, written as DeepCPS source and
//! loaded by the ordinary front end, and [`Origins`]: the way back from a
//! place in that program to the input that caused it.
//!
//! The program is what a user writes by hand to drive the actions:
//!
//! ```text
//! include "actions.dcps"
//! start (F)
//! number F 1 (F)
//! ..
//! end F (program)
//! $exit program          (or `program $exit` to run the built program)
//! ```
//!
//! Numbers are passed as integers and names as strings (`"'x'"`). The
//! generated file is registered first in a fresh source map (so that a
//! run can load it again, the first file, for a failure's call sites),
//! the actions file and its includes after it, the input last.

use std::fmt::Write as _;
use std::path::PathBuf;

use crate::diag::Diagnostic;
use crate::error::RuntimeError;
use crate::lang::def::Pattern;
use crate::lang::engine::Call;
use crate::lang::scan::{Kind, Tok};
use crate::lang::Language;
use crate::span::{FileId, SourceMap, Span};
use crate::syntax::{load_from, FileSystem};
use crate::term::Program;

/// How the program of action calls ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// `$exit program`: the run prints the built program.
    Residual,
    /// `program $exit`: the run runs the built program to its exit value.
    Exec,
}

/// An input's program, loaded.
pub struct Built {
    /// The program of action calls.
    pub program: Program,
    /// Its sources: the generated program first, the input last.
    pub sources: SourceMap,
    /// The way back to the input.
    pub origins: Origins,
}

/// Where one line of the generated program came from.
#[derive(Clone, Debug)]
pub struct Origin {
    /// Its byte range in the generated program.
    pub start: u32,
    /// One past its end.
    pub end: u32,
    /// The action it calls.
    pub action: String,
    /// The values it passes, as written in the program.
    pub args: Vec<String>,
    /// The input it was called for.
    pub place: Span,
}

/// The places of a generated program mapped back to its input.
#[derive(Clone, Debug)]
pub struct Origins {
    /// The generated program.
    pub generated: FileId,
    /// The input.
    pub input: FileId,
    /// One per line of action call, in order.
    pub lines: Vec<Origin>,
    /// Each action's definition, by name.
    pub defs: Vec<(String, Span)>,
}

impl Origins {
    /// The line of the generated program holding `offset`.
    pub fn line_at(&self, offset: u32) -> Option<&Origin> {
        let i = self.lines.partition_point(|o| o.start <= offset);
        let o = self.lines.get(i.checked_sub(1)?)?;
        (offset < o.end.max(o.start + 1)).then_some(o)
    }

    /// The action call (and its input) that `span` is part of: a line of
    /// the generated program, if `span` lies in it.
    pub fn origin(&self, span: Span) -> Option<&Origin> {
        if span.file != self.generated {
            return None;
        }
        self.line_at(span.start)
    }

    /// The diagnostic `d` of the runtime error `e`, explained as
    /// [`Origins::explain`] does; when a call site of `e` (shown or not)
    /// is an action call of the generated program, that call's input is
    /// the place that triggered the failure, and it is named first.
    pub fn explain_error(&self, e: &RuntimeError, d: Diagnostic) -> Diagnostic {
        let Some(o) = e.calls.iter().find_map(|s| self.origin(*s)) else {
            return self.explain(d);
        };
        let (place, action) = (o.place, o.action.clone());
        let (mut d, _) = self.map_places(d);
        if !d.secondary.iter().any(|(s, _)| *s == place) {
            d.secondary
                .insert(0, (place, format!("the action `{action}` was called for this input")));
        }
        d
    }

    /// `d` with every place in the generated program replaced by the input
    /// it was called for; whether there was one.
    fn map_places(&self, mut d: Diagnostic) -> (Diagnostic, bool) {
        let mut in_input = false;
        if let Some((span, label)) = d.primary.clone() {
            if let Some(o) = self.origin(span) {
                d.primary = Some((o.place, format!("{label} (the action `{}`, called for this input)", o.action)));
                in_input = true;
            }
        }
        for (span, label) in &mut d.secondary {
            if let Some(o) = self.origin(*span) {
                *label = format!("{label}: the action `{}`, called for this input", o.action);
                *span = o.place;
                in_input = true;
            }
        }
        (d, in_input)
    }

    /// `d` with every place in the generated program replaced by the
    /// input it was called for; when no place of `d` is in the input (a
    /// failure inside an action's code), the input of the call of the
    /// action holding the failure is added, as far as it can be told.
    pub fn explain(&self, d: Diagnostic) -> Diagnostic {
        let (d, in_input) = self.map_places(d);
        if in_input {
            return d;
        }
        // A failure inside the actions: the calls of the action whose
        // definition holds the failing place (or a call site of it).
        let mut places: Vec<Span> = d.primary.iter().map(|(s, _)| *s).collect();
        places.extend(d.secondary.iter().map(|(s, _)| *s));
        let Some(action) = places.iter().find_map(|p| {
            self.defs
                .iter()
                .filter(|(_, def)| def.file == p.file && def.start <= p.start && p.end <= def.end)
                .map(|(name, _)| name)
                .next()
        }) else {
            return d;
        };
        let calls: Vec<&Origin> = self.lines.iter().filter(|o| &o.action == action).collect();
        // Narrowed by the values the message names.
        let named: Vec<&Origin> = calls
            .iter()
            .copied()
            .filter(|o| !o.args.is_empty() && o.args.iter().all(|a| d.message.contains(a.trim_matches('"'))))
            .collect();
        let chosen = if named.is_empty() { calls } else { named };
        match chosen.as_slice() {
            [] => d,
            [one] => {
                let mut d = d;
                d.secondary
                    .insert(0, (one.place, format!("the action `{action}` was called for this input")));
                d
            }
            several => {
                let n = several.len();
                let mut d = d;
                for (i, o) in several.iter().take(3).enumerate() {
                    d.secondary
                        .insert(i, (o.place, format!("one of the {n} inputs `{action}` was called for")));
                }
                d
            }
        }
    }
}

/// [`Language::build`].
pub fn build(
    lang: &Language,
    fs: &dyn FileSystem,
    name: &str,
    path: Option<PathBuf>,
    text: String,
    ending: Ending,
) -> Result<Built, (SourceMap, Vec<Diagnostic>)> {
    // The input is parsed as file 0 of a map of its own; its spans move to
    // its place in the run's map once the generated program is loaded.
    let provisional = FileId(0);
    let (toks, calls) = match lang.calls(&text, provisional) {
        Ok(c) => c,
        Err(d) => {
            let mut only = SourceMap::new();
            only.add(name, path, text);
            return Err((only, vec![d]));
        }
    };
    let (program_text, mut lines) = write_program(lang, name, &text, &toks, &calls, ending);
    let mut sources = SourceMap::new();
    let gen_path = lang.dir.join(format!(".{}.calls.dcps", lang.name));
    let generated = sources.add(format!("{name} (action calls)"), Some(gen_path), program_text);
    let loaded = load_from(fs, generated, &mut sources, false);
    let input = sources.add(name, path, text);
    for o in &mut lines {
        o.place.file = input;
    }
    let origins = Origins {
        generated,
        input,
        lines,
        defs: lang.defs.iter().map(|(n, a)| (n.clone(), a.span)).collect(),
    };
    match loaded {
        Ok(program) => Ok(Built { program, sources, origins }),
        Err(ds) => {
            let ds = ds.into_iter().map(|d| origins.explain(d)).collect();
            Err((sources, ds))
        }
    }
}

/// The program text and the origin of each of its action lines.
fn write_program(lang: &Language, name: &str, text: &str, toks: &[Tok], calls: &[Call], ending: Ending) -> (String, Vec<Origin>) {
    let mut out = String::with_capacity(64 + calls.len() * 24);
    let mut lines = Vec::with_capacity(calls.len() + 2);
    let _ = writeln!(
        out,
        "// The action calls of `{}` in the language `{}`.",
        name.replace('\n', " "),
        lang.name
    );
    let _ = writeln!(out, "include \"{}\"", lang.actions);
    let first = toks.first().map(|t| t.span).unwrap_or_default();
    let last = toks.last().map(|t| t.span).unwrap_or_default();
    let mut line = |out: &mut String, action: &str, args: Vec<String>, place: Span, code: String| {
        let start = out.len() as u32;
        out.push_str(&code);
        lines.push(Origin {
            start,
            end: out.len() as u32,
            action: action.to_string(),
            args,
            place,
        });
        out.push('\n');
    };
    line(&mut out, &lang.start, Vec::new(), first, format!("{} (F)", lang.start));
    for c in calls {
        let site = &lang.grammar.sites[c.site as usize];
        let args: Vec<String> = c
            .args
            .iter()
            .map(|&t| {
                let tok = &toks[t];
                let word = &text[tok.span.range()];
                match tok.kind {
                    Kind::Class(k) if lang.grammar.classes[k as usize].pattern == Pattern::Name => format!("\"'{word}'\""),
                    _ => word.to_string(),
                }
            })
            .collect();
        let mut code = format!("{} F", site.action);
        for a in &args {
            code.push(' ');
            code.push_str(a);
        }
        code.push_str(" (F)");
        line(&mut out, &site.action, args, c.place, code);
    }
    line(&mut out, &lang.end, Vec::new(), last, format!("{} F (program)", lang.end));
    out.push_str(match ending {
        Ending::Residual => "$exit program\n",
        Ending::Exec => "program $exit\n",
    });
    (out, lines)
}
