//! Views of a machine state as graphs, built from a term
//! ([`Body`](crate::term::Body) and [`Vars`](crate::term::Vars)), so any
//! machine that can export its state as a term can be viewed:
//!
//! - [`lambda_graph`]: the term as a `petgraph` graph, every body coloured by
//!   its [`status`] (inactive, stuck, error, pending, ready), exported as
//!   Graphviz DOT (`deepcps dot`);
//! - [`staging_graph`]: staging variables → the bodies staged on them (or
//!   stuck on them, or passing them on) → the staging parameters of the
//!   continuations those bodies pass or invoke (`deepcps dot --staging`);
//! - [`chains`]: the staging chains of the paper (§ "Staging Chain", the
//!   `ct` and `pt` chains of the builders) read off the staging graph as
//!   text (`deepcps chains`);
//! - [`dump`]: the canonical graph dump, a stable text of the lambda graph,
//!   one node per line (`deepcps dump`, the `.graph` files of `deepcps
//!   test`);
//! - [`program`]: the term printed canonically, with where every body and
//!   every variable stands in the text (for the terminal debugger).
//!
//! Both graphs are canonical: nodes are numbered in the order of a
//! left-to-right depth-first walk of the term and named with the printed
//! names of variables, never with ids, so their text can be snapshotted.
//! Every traversal uses explicit stacks: terms can be 10^6 deep.

pub mod chains;
pub mod dump;
pub mod label;
pub mod lambda_graph;
pub mod program;
pub mod staging_graph;
pub mod status;

use crate::span::{SourceMap, Span};

pub use chains::chains_text;
pub use dump::{graph_dump, value_dump};
pub use lambda_graph::LambdaGraph;
pub use program::ProgramView;
pub use staging_graph::StagingGraph;
pub use status::Status;

/// The colour legend written at the top of every DOT export.
pub const LEGEND: &str = "ready palegreen, pending khaki, stuck orange, error tomato, inactive lightgrey";

/// Source places `file:line:col`, as [`SourceMap::describe`] writes them,
/// found through an index of line starts: a view places every body of a
/// term, and `describe` scans the file from its start each time.
pub struct Places<'s> {
    sources: &'s SourceMap,
    /// Per file, the byte offset of each line's start.
    lines: Vec<Vec<usize>>,
}

impl<'s> Places<'s> {
    /// An index of the files of `sources`.
    pub fn new(sources: &'s SourceMap) -> Places<'s> {
        let lines = sources
            .files()
            .iter()
            .map(|f| std::iter::once(0).chain(f.text.match_indices('\n').map(|(i, _)| i + 1)).collect())
            .collect();
        Places { sources, lines }
    }

    /// `file:line:col` of the start of `span` (1-based line, column in
    /// characters); `?` for a span outside the files.
    pub fn describe(&self, span: Span) -> String {
        let file = span.file.0 as usize;
        let (Some(starts), Some(f)) = (self.lines.get(file), self.sources.files().get(file)) else {
            return "?".to_string();
        };
        let mut offset = (span.start as usize).min(f.text.len());
        while offset > 0 && !f.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = starts.partition_point(|&s| s <= offset);
        let start = starts.get(line.saturating_sub(1)).copied().unwrap_or(0).min(offset);
        let col = f.text[start..offset].chars().count() + 1;
        format!("{}:{line}:{col}", f.name)
    }
}

/// `s` escaped for a double-quoted DOT string (line breaks become `\n`).
pub fn dot_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_agree_with_the_source_map() {
        let mut sources = SourceMap::new();
        let text = "ab\n\u{e9}t\u{e9} x\n\n  y \u{2192} z\nlast";
        let id = sources.add("f.dcps", None, text.to_string());
        let places = Places::new(&sources);
        for start in 0..=text.len() + 2 {
            let span = Span {
                file: id,
                start: start as u32,
                end: start as u32,
            };
            assert_eq!(places.describe(span), sources.describe(span), "offset {start}");
        }
        let outside = Span {
            file: crate::span::FileId(7),
            start: 0,
            end: 0,
        };
        assert_eq!(places.describe(outside), "?");
    }
}
