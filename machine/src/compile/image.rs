//! The image of a compiled program: what an executable carries of its
//! source, so that the runtime library linked into it (`machine/rt`) can
//! print what `deepcps run` prints (see [`super::native`]).
//!
//! It holds the source files (for reports), the place of every error site
//! and every step the program takes (for the reports' call sites), and how
//! to get the term the program runs back (for printing lambdas): the
//! program's files, whether staging built it, and a fingerprint that the
//! term got back must match.
//!
//! The encoding is a flat run of numbers (decimal, each followed by a
//! space) and byte strings (their length, `:`, the bytes); the C program
//! holds it as one string literal.

use std::path::PathBuf;

use rustc_hash::FxHasher;

use super::sites::Place;
use crate::error::Operand;
use crate::print::Printer;
use crate::span::{FileId, SourceFile, SourceMap, Span};
use crate::term::{Body, Vars};

/// What a compiled program carries of its source.
#[derive(Clone, Debug, PartialEq)]
pub struct Image {
    /// The source files, in the order of the compile's [`SourceMap`] (spans
    /// name them by that index).
    pub files: Vec<SourceFile>,
    /// Whether the program run is what staging built from the program in
    /// the first file (else that program as written).
    pub built: bool,
    /// [`fingerprint`] of the term the program runs.
    pub fingerprint: u64,
    /// For each lifted lambda of the C program (by number): its place in
    /// [`super::numbered`] of that term.
    pub lambdas: Vec<u32>,
    /// For each lifted lambda: its source (where a report of a call with
    /// the wrong number of arguments points).
    pub lambda_spans: Vec<Span>,
    /// The error sites and steps: the body's source and the place in it.
    pub sites: Vec<(Span, Place)>,
    /// The bodies of the generic code by number (see `runtime/trace.c`):
    /// the body before each in a call of its function, and the steps from
    /// that one to it.
    pub bodies: Vec<(Option<u32>, Via)>,
}

/// The steps that lead from a body to the next one in the same call of a
/// compiled function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Via {
    /// None: the body is the first of the call.
    First,
    /// A β made by the body before (at its site): a lambda applied in
    /// place.
    Beta(usize),
    /// `fix`.
    Fix,
    /// `if`, then the β of the branch chosen (at the site of the `if`).
    If(usize),
}

impl Via {
    /// How many steps of the machine it is.
    pub fn steps(self) -> u32 {
        match self {
            Via::First => 0,
            Via::Beta(_) | Via::Fix => 1,
            Via::If(_) => 2,
        }
    }
}

/// A fingerprint of the term `body` over `vars`: its printed text, hashed.
/// The term rebuilt from an image must have the one the image holds.
pub fn fingerprint(body: &Body, vars: &Vars) -> u64 {
    use std::hash::Hasher;
    let mut h = FxHasher::default();
    h.write(Printer::new(vars).program_text(body).as_bytes());
    h.finish()
}

impl Image {
    /// The source map the spans of the image point into.
    pub fn sources(&self) -> SourceMap {
        let mut m = SourceMap::new();
        for f in &self.files {
            m.add(f.name.clone(), f.path.clone(), f.text.clone());
        }
        m
    }

    /// The encoded image.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer(Vec::new());
        w.bytes(b"deepcps-image 1");
        w.num(self.files.len() as u64);
        for f in &self.files {
            w.bytes(f.name.as_bytes());
            match &f.path {
                Some(p) => {
                    w.num(1);
                    w.bytes(p.to_string_lossy().as_bytes());
                }
                None => w.num(0),
            }
            w.bytes(f.text.as_bytes());
        }
        w.num(u64::from(self.built));
        w.num(self.fingerprint);
        w.num(self.lambdas.len() as u64);
        for (&l, &s) in self.lambdas.iter().zip(&self.lambda_spans) {
            w.num(u64::from(l));
            w.span(s);
        }
        w.num(self.sites.len() as u64);
        for (body, place) in &self.sites {
            w.span(*body);
            match place {
                Place::Body => w.num(0),
                Place::At(s) => {
                    w.num(1);
                    w.span(*s);
                }
                Place::Operand(Operand::Head) => w.num(2),
                Place::Operand(Operand::Arg(i)) => {
                    w.num(3);
                    w.num(*i as u64);
                }
            }
        }
        w.num(self.bodies.len() as u64);
        for &(before, via) in &self.bodies {
            w.num(before.map_or(0, |b| u64::from(b) + 1));
            match via {
                Via::First => w.num(0),
                Via::Beta(site) => {
                    w.num(1);
                    w.num(site as u64);
                }
                Via::Fix => w.num(2),
                Via::If(site) => {
                    w.num(3);
                    w.num(site as u64);
                }
            }
        }
        w.0
    }

    /// The image encoded in `bytes`, or why it is none.
    pub fn decode(bytes: &[u8]) -> Result<Image, String> {
        let mut r = Reader { bytes, at: 0 };
        if r.bytes()? != b"deepcps-image 1" {
            return Err("not a deepcps program image".into());
        }
        let n = r.len()?;
        let mut files = Vec::with_capacity(n.min(1024));
        for _ in 0..n {
            let name = r.string()?;
            let path = match r.num()? {
                0 => None,
                _ => Some(PathBuf::from(r.string()?)),
            };
            let text = r.string()?;
            files.push(SourceFile { name, path, text });
        }
        let built = r.num()? != 0;
        let fingerprint = r.num()?;
        let n = r.len()?;
        let mut lambdas = Vec::with_capacity(n.min(1 << 16));
        let mut lambda_spans = Vec::with_capacity(n.min(1 << 16));
        for _ in 0..n {
            lambdas.push(u32::try_from(r.num()?).map_err(|_| "lambda number out of range")?);
            lambda_spans.push(r.span()?);
        }
        let n = r.len()?;
        let mut sites = Vec::with_capacity(n.min(1 << 16));
        for _ in 0..n {
            let body = r.span()?;
            let place = match r.num()? {
                0 => Place::Body,
                1 => Place::At(r.span()?),
                2 => Place::Operand(Operand::Head),
                3 => Place::Operand(Operand::Arg(r.len()?)),
                k => return Err(format!("unknown place kind {k}")),
            };
            sites.push((body, place));
        }
        let n = r.len()?;
        let mut bodies = Vec::with_capacity(n.min(1 << 16));
        for _ in 0..n {
            let before = match r.num()? {
                0 => None,
                b => Some(u32::try_from(b - 1).map_err(|_| "body number out of range")?),
            };
            let via = match r.num()? {
                0 => Via::First,
                1 => Via::Beta(r.len()?),
                2 => Via::Fix,
                3 => Via::If(r.len()?),
                k => return Err(format!("unknown step kind {k}")),
            };
            bodies.push((before, via));
        }
        if r.at != bytes.len() {
            return Err("trailing bytes after the image".into());
        }
        Ok(Image {
            files,
            built,
            fingerprint,
            lambdas,
            lambda_spans,
            sites,
            bodies,
        })
    }
}

struct Writer(Vec<u8>);

impl Writer {
    fn num(&mut self, n: u64) {
        self.0.extend_from_slice(n.to_string().as_bytes());
        self.0.push(b' ');
    }

    fn bytes(&mut self, b: &[u8]) {
        self.0.extend_from_slice(b.len().to_string().as_bytes());
        self.0.push(b':');
        self.0.extend_from_slice(b);
    }

    fn span(&mut self, s: Span) {
        self.num(u64::from(s.file.0));
        self.num(u64::from(s.start));
        self.num(u64::from(s.end));
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    /// Digits up to `end`.
    fn digits(&mut self, end: u8) -> Result<u64, String> {
        let start = self.at;
        while self.bytes.get(self.at).is_some_and(u8::is_ascii_digit) {
            self.at += 1;
        }
        let text = std::str::from_utf8(&self.bytes[start..self.at]).map_err(|e| e.to_string())?;
        let n = text.parse::<u64>().map_err(|_| format!("expected a number at byte {start}"))?;
        if self.bytes.get(self.at) != Some(&end) {
            return Err(format!("expected `{}` at byte {}", end as char, self.at));
        }
        self.at += 1;
        Ok(n)
    }

    fn num(&mut self) -> Result<u64, String> {
        self.digits(b' ')
    }

    fn len(&mut self) -> Result<usize, String> {
        usize::try_from(self.num()?).map_err(|_| "count out of range".to_string())
    }

    fn bytes(&mut self) -> Result<&'a [u8], String> {
        let n = usize::try_from(self.digits(b':')?).map_err(|_| "length out of range")?;
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or("the image is cut short")?;
        let b = &self.bytes[self.at..end];
        self.at = end;
        Ok(b)
    }

    fn string(&mut self) -> Result<String, String> {
        String::from_utf8(self.bytes()?.to_vec()).map_err(|_| "text that is not UTF-8 in the image".to_string())
    }

    fn span(&mut self) -> Result<Span, String> {
        let file = u32::try_from(self.num()?).map_err(|_| "file number out of range")?;
        let start = u32::try_from(self.num()?).map_err(|_| "offset out of range")?;
        let end = u32::try_from(self.num()?).map_err(|_| "offset out of range")?;
        Ok(Span {
            file: FileId(file),
            start,
            end,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_image_decodes_to_itself() {
        let file = FileId(0);
        let image = Image {
            files: vec![SourceFile {
                name: "a b.dcps".into(),
                path: Some(PathBuf::from("dir/a b.dcps")),
                text: "let x = 1\n$exit \"x:\" 12 é\n".into(),
            }],
            built: true,
            fingerprint: u64::MAX,
            lambdas: vec![3, 0, 7],
            lambda_spans: vec![Span::new(file, 1, 2), Span::new(file, 3, 4), Span::new(file, 0, 9)],
            sites: vec![
                (Span::new(file, 0, 9), Place::Body),
                (Span::new(file, 10, 20), Place::At(Span::new(file, 11, 12))),
                (Span::new(file, 10, 20), Place::Operand(Operand::Head)),
                (Span::new(file, 10, 20), Place::Operand(Operand::Arg(2))),
            ],
            bodies: vec![
                (None, Via::First),
                (Some(0), Via::Beta(1)),
                (Some(1), Via::Fix),
                (Some(1), Via::If(3)),
            ],
        };
        assert_eq!(Image::decode(&image.encode()), Ok(image.clone()));
        let bytes = image.encode();
        assert!(Image::decode(&bytes[..bytes.len() - 1]).is_err());
        assert!(Image::decode(b"12:not an image").is_err());
    }
}
