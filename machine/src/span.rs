//! Source files and byte spans.
//!
//! Every file the front end reads (the main program and its includes) is
//! registered in a [`SourceMap`] and addressed by a [`FileId`]. A [`Span`] is a
//! byte range in one file; terms copied during reduction keep the span of the
//! source they were copied from, so runtime errors can point at it.

use std::path::PathBuf;

/// Index of a file in a [`SourceMap`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct FileId(pub u32);

/// A byte range `start..end` in one file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Span {
    /// The file the range lies in.
    pub file: FileId,
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

impl Span {
    /// A span of `file` from `start` to `end`.
    pub fn new(file: FileId, start: usize, end: usize) -> Span {
        debug_assert!(start <= end, "span {start}..{end} is reversed");
        Span {
            file,
            start: u32::try_from(start).unwrap_or(u32::MAX),
            end: u32::try_from(end).unwrap_or(u32::MAX),
        }
    }

    /// The smallest span covering `self` and `other`; `self` alone when
    /// they lie in different files (a definition of an included file whose
    /// scope continues in the including file).
    pub fn to(self, other: Span) -> Span {
        if self.file != other.file {
            return self;
        }
        Span {
            file: self.file,
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    /// The byte range as `usize`.
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// One registered file.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceFile {
    /// The name shown in diagnostics (the path as given, or `<input>`).
    pub name: String,
    /// The file's path on disk, when it came from disk.
    pub path: Option<PathBuf>,
    /// The text (lossless: invalid UTF-8 is rejected before registration).
    pub text: String,
}

/// All files of one run.
#[derive(Debug, Clone, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    /// An empty map.
    pub fn new() -> SourceMap {
        SourceMap::default()
    }

    /// Registers a file and returns its id.
    pub fn add(&mut self, name: impl Into<String>, path: Option<PathBuf>, text: String) -> FileId {
        let id = FileId(u32::try_from(self.files.len()).unwrap_or(u32::MAX));
        self.files.push(SourceFile {
            name: name.into(),
            path,
            text,
        });
        id
    }

    /// The file with id `id`.
    ///
    /// # Panics
    /// If `id` was not returned by [`SourceMap::add`] on this map.
    pub fn get(&self, id: FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }

    /// All files, in registration order.
    pub fn files(&self) -> &[SourceFile] {
        &self.files
    }

    /// 1-based line and column (in characters) of byte `offset` of `file`.
    pub fn line_col(&self, file: FileId, offset: u32) -> (usize, usize) {
        let text = &self.get(file).text;
        let offset = (offset as usize).min(text.len());
        let before = &text[..floor_char_boundary(text, offset)];
        let line = before.matches('\n').count() + 1;
        let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        (line, col)
    }

    /// `name:line:col` of the start of `span`.
    pub fn describe(&self, span: Span) -> String {
        let (line, col) = self.line_col(span.file, span.start);
        format!("{}:{}:{}", self.get(span.file).name, line, col)
    }
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}
