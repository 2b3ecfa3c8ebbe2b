//! The input of a language read into tokens: keywords and symbols (the
//! grammar's literals, the longest symbol first), numbers and names (the
//! token classes), with whitespace and comments skipped as the definition
//! says. One pass, linear in the input.

use crate::diag::Diagnostic;
use crate::lang::def::{Pattern, Skip};
use crate::lang::grammar::Grammar;
use crate::span::{FileId, Span};

/// What an input token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Literal `i` of the grammar.
    Lit(u32),
    /// A token of class `i`.
    Class(u32),
    /// The end of the input.
    Eof,
}

/// One input token.
#[derive(Clone, Debug)]
pub struct Tok {
    /// What it is.
    pub kind: Kind,
    /// Where it stands.
    pub span: Span,
}

/// The tokens of `text` (file `file`) by the grammar `g`, ending with
/// [`Kind::Eof`].
pub fn scan(g: &Grammar, text: &str, file: FileId) -> Result<Vec<Tok>, Diagnostic> {
    let number = g.classes.iter().position(|c| c.pattern == Pattern::Number);
    let name = g.classes.iter().position(|c| c.pattern == Pattern::Name);
    // Symbols, longest first, so that `:=` wins over `:`.
    let mut symbols: Vec<(u32, &str)> = g
        .lits
        .iter()
        .enumerate()
        .filter(|(i, _)| !g.is_keyword(*i as u32))
        .map(|(i, s)| (i as u32, s.as_str()))
        .collect();
    symbols.sort_by_key(|(_, s)| std::cmp::Reverse(s.len()));
    let keywords: std::collections::HashMap<&str, u32> = g
        .lits
        .iter()
        .enumerate()
        .filter(|(i, _)| g.is_keyword(*i as u32))
        .map(|(i, s)| (s.as_str(), i as u32))
        .collect();
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    'outer: while i < b.len() {
        for skip in &g.skips {
            match skip {
                Skip::Whitespace if b[i].is_ascii_whitespace() => {
                    i += 1;
                    continue 'outer;
                }
                Skip::Line(m) if text[i..].starts_with(m.as_str()) => {
                    while i < b.len() && b[i] != b'\n' {
                        i += 1;
                    }
                    continue 'outer;
                }
                Skip::Block(open, close) if text[i..].starts_with(open.as_str()) => {
                    let s = i;
                    match text[i + open.len()..].find(close.as_str()) {
                        Some(k) => i += open.len() + k + close.len(),
                        None => {
                            return Err(Diagnostic::error(
                                "input",
                                "this comment is not closed",
                                Span::new(file, s, s + open.len()),
                                format!("no `{close}` after this"),
                            ))
                        }
                    }
                    continue 'outer;
                }
                _ => {}
            }
        }
        let c = b[i];
        if c.is_ascii_alphabetic() || c == b'_' {
            let s = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let span = Span::new(file, s, i);
            if let Some(&k) = keywords.get(&text[s..i]) {
                out.push(Tok { kind: Kind::Lit(k), span });
                continue;
            }
            if let Some(n) = name {
                out.push(Tok {
                    kind: Kind::Class(n as u32),
                    span,
                });
                continue;
            }
            return Err(Diagnostic::error(
                "input",
                format!("`{}` is not a word of this language", &text[s..i]),
                span,
                "not a keyword, and the language has no names",
            ));
        }
        if c.is_ascii_digit() {
            if let Some(n) = number {
                let s = i;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
                let span = Span::new(file, s, i);
                if text[s..i].parse::<i64>().is_err() {
                    return Err(Diagnostic::error(
                        "input",
                        format!("the number {} is too large", &text[s..i]),
                        span,
                        "numbers are 64-bit integers",
                    ));
                }
                out.push(Tok {
                    kind: Kind::Class(n as u32),
                    span,
                });
                continue;
            }
        }
        if let Some((k, s)) = symbols.iter().find(|(_, s)| text[i..].starts_with(s)) {
            out.push(Tok {
                kind: Kind::Lit(*k),
                span: Span::new(file, i, i + s.len()),
            });
            i += s.len();
            continue;
        }
        let ch = text[i..].chars().next().unwrap_or('?');
        return Err(Diagnostic::error(
            "input",
            format!("unexpected character `{}`", ch.escape_default()),
            Span::new(file, i, i + ch.len_utf8()),
            "no token of this language starts here",
        ));
    }
    out.push(Tok {
        kind: Kind::Eof,
        span: Span::new(file, text.len(), text.len()),
    });
    Ok(out)
}
