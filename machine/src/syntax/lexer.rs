//! The lexer of DeepCPS source (LANGUAGE.md §2), built with logos.
//!
//! Whitespace and single quotes (the paper's typesetting of staging
//! annotations) are skipped. Comments are trivia: [`lex`] drops them, and
//! [`lex_with_comments`] hands them over with their spans (for `deepcps
//! fmt`, which keeps them). The parser reads a [`Stream`] instead: tokens
//! lexed as it goes, a few ahead, so a long program is never held as a
//! list of tokens. An expression string `"..."` is one token; its
//! content is parsed later by [`crate::expr::parse`].

use logos::Logos;

use crate::diag::Diagnostic;
use crate::span::{FileId, Span};

/// A token.
#[derive(Logos, Clone, Debug, PartialEq)]
#[logos(skip r"[ \t\r\n\f]+")]
#[logos(skip r"'")]
pub enum Tok {
    /// `// ...` up to the end of the line (a comment; never passed to the
    /// parser).
    #[regex(r"//[^\n]*")]
    LineComment,
    /// `/* ... */`, not nested (a comment; never passed to the parser).
    #[token("/*", block_comment)]
    BlockComment,
    /// `include`
    #[token("include")]
    Include,
    /// `let`
    #[token("let")]
    Let,
    /// `fix`
    #[token("fix")]
    Fix,
    /// `in`
    #[token("in")]
    In,
    /// `if`
    #[token("if")]
    If,
    /// `always`
    #[token("always")]
    Always,
    /// `never`
    #[token("never")]
    Never,
    /// `true`
    #[token("true")]
    True,
    /// `false`
    #[token("false")]
    False,
    /// An identifier.
    #[regex(r"[A-Za-z_][A-Za-z0-9_]*")]
    Ident,
    /// `$name`, a built-in.
    #[regex(r"\$[A-Za-z_][A-Za-z0-9_]*")]
    Dollar,
    /// An integer literal.
    #[regex(r"-?[0-9]+")]
    Int,
    /// A float literal.
    #[regex(r"-?[0-9]+\.[0-9]+([eE][+-]?[0-9]+)?")]
    #[regex(r"-?[0-9]+[eE][+-]?[0-9]+")]
    Float,
    /// `"..."`: an expression string (or an include path).
    #[regex(r#""[^"]*""#)]
    Str,
    /// `@`
    #[token("@")]
    At,
    /// `:`
    #[token(":")]
    Colon,
    /// `|`
    #[token("|")]
    Bar,
    /// `&`
    #[token("&")]
    Amp,
    /// `!`
    #[token("!")]
    Bang,
    /// `(`
    #[token("(")]
    LParen,
    /// `)`
    #[token(")")]
    RParen,
    /// `[`
    #[token("[")]
    LBracket,
    /// `]`
    #[token("]")]
    RBracket,
    /// `{`
    #[token("{")]
    LBrace,
    /// `}`
    #[token("}")]
    RBrace,
    /// `,`
    #[token(",")]
    Comma,
    /// `=`
    #[token("=")]
    Eq,
    /// End of input (never produced by logos; appended by [`lex`]).
    Eof,
}

impl Tok {
    /// How the token is described in "expected ..." messages.
    pub fn describe(&self) -> &'static str {
        match self {
            Tok::LineComment | Tok::BlockComment => "a comment",
            Tok::Include => "`include`",
            Tok::Let => "`let`",
            Tok::Fix => "`fix`",
            Tok::In => "`in`",
            Tok::If => "`if`",
            Tok::Always => "`always`",
            Tok::Never => "`never`",
            Tok::True => "`true`",
            Tok::False => "`false`",
            Tok::Ident => "a name",
            Tok::Dollar => "a built-in",
            Tok::Int => "an integer",
            Tok::Float => "a float",
            Tok::Str => "an expression string",
            Tok::At => "`@`",
            Tok::Colon => "`:`",
            Tok::Bar => "`|`",
            Tok::Amp => "`&`",
            Tok::Bang => "`!`",
            Tok::LParen => "`(`",
            Tok::RParen => "`)`",
            Tok::LBracket => "`[`",
            Tok::RBracket => "`]`",
            Tok::LBrace => "`{`",
            Tok::RBrace => "`}`",
            Tok::Comma => "`,`",
            Tok::Eq => "`=`",
            Tok::Eof => "end of file",
        }
    }

    /// Whether the token is a comment.
    pub fn is_comment(&self) -> bool {
        matches!(self, Tok::LineComment | Tok::BlockComment)
    }
}

/// Extends a block comment (not nested) up to its `*/`.
fn block_comment(lex: &mut logos::Lexer<Tok>) -> Result<(), ()> {
    let i = lex.remainder().find("*/").ok_or(())?;
    lex.bump(i + 2);
    Ok(())
}

/// A token with its span.
#[derive(Clone, Debug)]
pub struct Token {
    /// The kind.
    pub tok: Tok,
    /// Where it stands.
    pub span: Span,
}

/// The tokens of a file as the parser pulls them, lexed on demand with a
/// lookahead of a few tokens, so that a file of millions of tokens is never
/// held as a list. Comments are skipped. A lexing error ends the stream
/// with [`Tok::Eof`] at its place and is kept: [`Stream::lex_error`] finds
/// the first one of the whole file, which the parser reports before any
/// error of its own, as if the file had been lexed first.
pub struct Stream<'a> {
    lexer: logos::Lexer<'a, Tok>,
    file: FileId,
    /// Lexed tokens not yet consumed; the last is [`Tok::Eof`] once the
    /// input is exhausted.
    ahead: std::collections::VecDeque<Token>,
    /// The first lexing error met, if any.
    error: Option<Diagnostic>,
    /// Whether [`Tok::Eof`] has been queued (nothing more is lexed).
    done: bool,
}

impl<'a> Stream<'a> {
    /// The tokens of `text`, the whole of `file`.
    pub fn new(text: &'a str, file: FileId) -> Stream<'a> {
        let mut s = Stream {
            lexer: Tok::lexer(text),
            file,
            ahead: std::collections::VecDeque::new(),
            error: None,
            done: false,
        };
        s.pull();
        s
    }

    /// Lexes one more token into the queue (nothing once `Eof` is queued).
    fn pull(&mut self) {
        if self.done {
            return;
        }
        while let Some(result) = self.lexer.next() {
            let range = self.lexer.span();
            let span = Span::new(self.file, range.start, range.end);
            match result {
                Ok(tok) if tok.is_comment() => continue,
                Ok(tok) => {
                    self.ahead.push_back(Token { tok, span });
                    return;
                }
                Err(()) => {
                    self.error = Some(lex_error(self.lexer.source(), span));
                    self.ahead.push_back(Token { tok: Tok::Eof, span });
                    self.done = true;
                    return;
                }
            }
        }
        let end = self.lexer.source().len();
        self.ahead.push_back(Token {
            tok: Tok::Eof,
            span: Span::new(self.file, end, end),
        });
        self.done = true;
    }

    /// The next token (the stream always holds it).
    pub fn current(&self) -> &Token {
        debug_assert!(!self.ahead.is_empty(), "the stream lost its current token");
        &self.ahead[0]
    }

    /// The token `k` places ahead (`0`: the next one); [`Tok::Eof`] past
    /// the end.
    pub fn peek(&mut self, k: usize) -> &Token {
        while self.ahead.len() <= k && !self.done {
            self.pull();
        }
        let i = k.min(self.ahead.len() - 1);
        &self.ahead[i]
    }

    /// Takes the next token; at the end, [`Tok::Eof`] again and again.
    pub fn next_token(&mut self) -> Token {
        let t = if self.ahead.len() > 1 || !self.done {
            self.ahead.pop_front()
        } else {
            None
        };
        if self.ahead.is_empty() {
            self.pull();
        }
        t.unwrap_or_else(|| self.ahead[0].clone())
    }

    /// The first lexing error of the whole file, if any: the stream lexes
    /// the rest of the file to find one (after the parser failed, whose
    /// error a lexing error takes the place of).
    pub fn lex_error(&mut self) -> Option<Diagnostic> {
        while !self.done {
            self.ahead.clear();
            self.pull();
        }
        self.error.take()
    }
}

/// Splits `text` (the whole of `file`) into tokens, ending with [`Tok::Eof`];
/// comments are left out.
pub fn lex(text: &str, file: FileId) -> Result<Vec<Token>, Diagnostic> {
    let mut out = lex_with_comments(text, file)?;
    out.retain(|t| !t.tok.is_comment());
    Ok(out)
}

/// [`lex`], with the comments ([`Tok::LineComment`], [`Tok::BlockComment`])
/// kept among the tokens, in place.
pub fn lex_with_comments(text: &str, file: FileId) -> Result<Vec<Token>, Diagnostic> {
    let mut out = Vec::new();
    let mut lexer = Tok::lexer(text);
    while let Some(result) = lexer.next() {
        let range = lexer.span();
        let span = Span::new(file, range.start, range.end);
        match result {
            Ok(tok) => out.push(Token { tok, span }),
            Err(()) => return Err(lex_error(text, span)),
        }
    }
    out.push(Token {
        tok: Tok::Eof,
        span: Span::new(file, text.len(), text.len()),
    });
    Ok(out)
}

fn lex_error(text: &str, span: Span) -> Diagnostic {
    let rest = &text[span.range().start..];
    if rest.starts_with("/*") {
        let end = Span {
            end: span.start + 2,
            ..span
        };
        Diagnostic::error("parse", "unterminated block comment", end, "this comment is never closed with `*/`")
    } else if rest.starts_with('"') {
        let end = Span {
            end: span.start + 1,
            ..span
        };
        Diagnostic::error("parse", "unterminated expression string", end, "this `\"` is never closed")
    } else {
        let ch = rest.chars().next().unwrap_or(' ');
        let end = Span {
            end: span.start + ch.len_utf8() as u32,
            ..span
        };
        Diagnostic::error(
            "parse",
            format!("unexpected character `{}`", ch.escape_debug()),
            end,
            "not part of DeepCPS syntax",
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<Tok> {
        lex(src, FileId(0))
            .map(|t| t.into_iter().map(|t| t.tok).collect())
            .unwrap_or_default()
    }

    #[test]
    fn quotes_and_comments_are_skipped() {
        assert_eq!(
            kinds("'@ct:' f /* c */ x // end\n 'pt'"),
            vec![Tok::At, Tok::Ident, Tok::Colon, Tok::Ident, Tok::Ident, Tok::Ident, Tok::Eof]
        );
    }

    #[test]
    fn numbers_and_builtins() {
        assert_eq!(
            kinds("$exit -7 1.5 2e3 -0.25 \"a+b\""),
            vec![Tok::Dollar, Tok::Int, Tok::Float, Tok::Float, Tok::Float, Tok::Str, Tok::Eof]
        );
    }

    #[test]
    fn comments_are_kept_on_request_outside_expression_strings() {
        let comments = |src: &str| -> Vec<(Tok, String)> {
            lex_with_comments(src, FileId(0))
                .map(|ts| {
                    ts.into_iter()
                        .filter(|t| t.tok.is_comment())
                        .map(|t| (t.tok, src[t.span.range()].to_string()))
                        .collect()
                })
                .unwrap_or_default()
        };
        assert_eq!(
            comments("f x // c\n/* a\n b */ g"),
            vec![(Tok::LineComment, "// c".into()), (Tok::BlockComment, "/* a\n b */".into())]
        );
        assert_eq!(comments("\"a // b\" (x) $exit x"), vec![]);
        assert_eq!(comments("\"6 / 2\" (x) $exit x"), vec![]);
    }

    #[test]
    fn errors_point_at_the_culprit() {
        let e = lex("f \"abc", FileId(0)).err().map(|d| d.message);
        assert_eq!(e.as_deref(), Some("unterminated expression string"));
        let e = lex("f /* abc", FileId(0)).err().map(|d| d.message);
        assert_eq!(e.as_deref(), Some("unterminated block comment"));
        let e = lex("f # x", FileId(0)).err().map(|d| d.message);
        assert_eq!(e.as_deref(), Some("unexpected character `#`"));
    }
}
