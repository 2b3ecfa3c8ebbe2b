//! The lexer of the expression language (LANGUAGE.md §6), built with logos
//! like the lexer of the source ([`crate::syntax::lexer`]): the text of one
//! expression string to [`Token`]s with their byte ranges, ending in
//! [`Tok::Eof`].
//!
//! ASCII whitespace separates tokens. A number is digits, then a fraction
//! `.digits` and an exponent `e[+-]digits` when they are complete (so `1..2`
//! is `1`, `..`, `2`, and `2e` is `2` then the word `e`); it is a float if
//! it has either. An integer literal keeps its magnitude, which may exceed
//! `i64::MAX` (only valid negated); a float literal must be finite. A string
//! literal is `'...'` with the escapes `\'` and `\\`. The first character
//! that starts no token is an error.

use std::sync::Arc;

use logos::{Lexer, Logos};

use crate::expr::parse::{failure, float_out_of_range, int_out_of_range, Failure, PResult, FLOAT_RANGE, INT_RANGE};

/// A token kind.
#[derive(Logos, Clone, Debug, PartialEq)]
#[logos(error = LexError)]
#[logos(skip r"[ \t\n\f\r]+")]
pub(super) enum Tok {
    /// An integer literal's magnitude (may exceed `i64::MAX`; only valid
    /// negated then).
    #[regex("[0-9]+", int)]
    Int(u64),
    /// A float literal (finite).
    #[regex(r"[0-9]+\.[0-9]+([eE][+-]?[0-9]+)?", float)]
    #[regex("[0-9]+[eE][+-]?[0-9]+", float)]
    Float(f64),
    /// A string literal, its escapes resolved.
    #[token("'", string)]
    Str(Arc<str>),
    /// A name, keyword or function name.
    #[regex("[A-Za-z_][A-Za-z0-9_]*", |lex| Arc::from(lex.slice()))]
    Word(Arc<str>),
    /// `(`
    #[token("(")]
    LParen,
    /// `)`
    #[token(")")]
    RParen,
    /// `[`
    #[token("[")]
    LBrack,
    /// `]`
    #[token("]")]
    RBrack,
    /// `{`
    #[token("{")]
    LBrace,
    /// `}`
    #[token("}")]
    RBrace,
    /// `,`
    #[token(",")]
    Comma,
    /// `:`
    #[token(":")]
    Colon,
    /// `.`
    #[token(".")]
    Dot,
    /// `..`
    #[token("..")]
    DotDot,
    /// `+`
    #[token("+")]
    Plus,
    /// `-`
    #[token("-")]
    Minus,
    /// `*`
    #[token("*")]
    Star,
    /// `/`
    #[token("/")]
    Slash,
    /// `%`
    #[token("%")]
    Percent,
    /// `<`
    #[token("<")]
    Lt,
    /// `<=`
    #[token("<=")]
    Le,
    /// `>`
    #[token(">")]
    Gt,
    /// `>=`
    #[token(">=")]
    Ge,
    /// `==`
    #[token("==")]
    EqEq,
    /// `!=`
    #[token("!=")]
    Ne,
    /// `&&`
    #[token("&&")]
    AndAnd,
    /// `||`
    #[token("||")]
    OrOr,
    /// `!`
    #[token("!")]
    Bang,
    /// End of input (never produced by logos; appended by [`lex`]).
    Eof,
}

/// A token with its local byte range.
#[derive(Clone, Debug)]
pub(super) struct Token {
    /// What it is.
    pub(super) tok: Tok,
    /// Its first byte.
    pub(super) start: usize,
    /// Past its last byte.
    pub(super) end: usize,
}

/// Why lexing stopped (logos needs a cloneable, comparable error).
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) enum LexError {
    /// No token starts at the current character.
    #[default]
    NoToken,
    /// A literal is malformed: [`failure`]'s arguments, in local offsets.
    Literal {
        /// The message.
        message: String,
        /// First byte of the culprit.
        start: usize,
        /// Past its last byte.
        end: usize,
        /// What was expected instead.
        expected: &'static str,
    },
}

/// Splits `text` into tokens, ending with [`Tok::Eof`].
pub(super) fn lex(text: &str) -> PResult<Vec<Token>> {
    let mut toks = Vec::new();
    let mut lexer = Tok::lexer(text);
    while let Some(r) = lexer.next() {
        let span = lexer.span();
        match r {
            Ok(tok) => toks.push(Token {
                tok,
                start: span.start,
                end: span.end,
            }),
            Err(e) => return Err(to_failure(e, text, span.start)),
        }
    }
    toks.push(Token {
        tok: Tok::Eof,
        start: text.len(),
        end: text.len(),
    });
    Ok(toks)
}

/// The failure of `e`, met at byte `start` of `text`.
fn to_failure(e: LexError, text: &str, start: usize) -> Failure {
    match e {
        LexError::Literal {
            message,
            start,
            end,
            expected,
        } => failure(message, start, end, expected),
        LexError::NoToken => {
            let c = text.get(start..).and_then(|s| s.chars().next()).unwrap_or('\u{fffd}');
            let end = start + c.len_utf8();
            match c {
                '=' => failure("unexpected `=`", start, end, "`==`"),
                '&' => failure("unexpected `&`", start, end, "`&&`"),
                '|' => failure("unexpected `|`", start, end, "`||`"),
                _ => failure(
                    format!("unexpected character `{}`", c.escape_debug()),
                    start,
                    end,
                    "an operand, an operator or a bracket",
                ),
            }
        }
    }
}

/// An integer literal's magnitude.
fn int(lex: &mut Lexer<Tok>) -> Result<u64, LexError> {
    lex.slice().parse::<u64>().map_err(|_| LexError::Literal {
        message: int_out_of_range(lex.slice()),
        start: lex.span().start,
        end: lex.span().end,
        expected: INT_RANGE,
    })
}

/// A float literal's value, if finite.
fn float(lex: &mut Lexer<Tok>) -> Result<f64, LexError> {
    match lex.slice().parse::<f64>() {
        Ok(f) if f.is_finite() => Ok(f),
        _ => Err(LexError::Literal {
            message: float_out_of_range(lex.slice()),
            start: lex.span().start,
            end: lex.span().end,
            expected: FLOAT_RANGE,
        }),
    }
}

/// The rest of the string literal whose opening quote was just read.
fn string(lex: &mut Lexer<Tok>) -> Result<Arc<str>, LexError> {
    let start = lex.span().start;
    let mut out = String::new();
    let mut chars = lex.remainder().char_indices();
    while let Some((k, c)) = chars.next() {
        let at = start + 1 + k;
        match c {
            '\'' => {
                lex.bump(k + 1);
                return Ok(Arc::from(out.as_str()));
            }
            '\\' => match chars.next() {
                Some((_, e @ ('\'' | '\\'))) => out.push(e),
                Some((_, e)) => {
                    return Err(LexError::Literal {
                        message: format!("unknown escape `\\{}` in string", e.escape_debug()),
                        start: at,
                        end: at + 1 + e.len_utf8(),
                        expected: "`\\'` or `\\\\`",
                    })
                }
                None => break,
            },
            c => out.push(c),
        }
    }
    Err(LexError::Literal {
        message: "unterminated string".into(),
        start,
        end: lex.source().len(),
        expected: "a closing `'`",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tokens of `text` with their ranges, or the first error of the
    /// logos lexer.
    fn toks(text: &str) -> Result<Vec<(Tok, usize, usize)>, LexError> {
        let mut lexer = Tok::lexer(text);
        let mut out = Vec::new();
        while let Some(r) = lexer.next() {
            out.push((r?, lexer.span().start, lexer.span().end));
        }
        Ok(out)
    }

    fn word(w: &str) -> Tok {
        Tok::Word(Arc::from(w))
    }

    #[test]
    fn numbers_take_complete_fractions_and_exponents_only() {
        assert_eq!(
            toks("1..2"),
            Ok(vec![(Tok::Int(1), 0, 1), (Tok::DotDot, 1, 3), (Tok::Int(2), 3, 4)])
        );
        assert_eq!(toks("1.x"), Ok(vec![(Tok::Int(1), 0, 1), (Tok::Dot, 1, 2), (word("x"), 2, 3)]));
        assert_eq!(toks("2e"), Ok(vec![(Tok::Int(2), 0, 1), (word("e"), 1, 2)]));
        assert_eq!(toks("2e+"), Ok(vec![(Tok::Int(2), 0, 1), (word("e"), 1, 2), (Tok::Plus, 2, 3)]));
        assert_eq!(
            toks("1.5e-"),
            Ok(vec![(Tok::Float(1.5), 0, 3), (word("e"), 3, 4), (Tok::Minus, 4, 5)])
        );
        assert_eq!(toks("1.5E+2"), Ok(vec![(Tok::Float(150.0), 0, 6)]));
        assert_eq!(
            toks("2e3.5"),
            Ok(vec![(Tok::Float(2000.0), 0, 3), (Tok::Dot, 3, 4), (Tok::Int(5), 4, 5)])
        );
        assert_eq!(toks("0x1F"), Ok(vec![(Tok::Int(0), 0, 1), (word("x1F"), 1, 4)]));
        assert_eq!(toks("18446744073709551615"), Ok(vec![(Tok::Int(u64::MAX), 0, 20)]));
    }

    #[test]
    fn literals_out_of_range_are_errors() {
        let Err(LexError::Literal { message, start, end, .. }) = toks("1 + 18446744073709551616") else {
            panic!("no error")
        };
        assert_eq!(
            (message.as_str(), start, end),
            ("integer literal `18446744073709551616` is out of range", 4, 24)
        );
        let Err(LexError::Literal { message, .. }) = toks("1e400") else {
            panic!("no error")
        };
        assert_eq!(message, "float literal `1e400` is out of range");
    }

    #[test]
    fn strings_and_escapes() {
        assert_eq!(
            toks(r"'a\'b\\' x"),
            Ok(vec![(Tok::Str(Arc::from(r"a'b\")), 0, 8), (word("x"), 9, 10)])
        );
        assert_eq!(toks("'é'"), Ok(vec![(Tok::Str(Arc::from("é")), 0, 4)]));
        let Err(LexError::Literal { message, start, end, .. }) = toks(r"x 'a\nb'") else {
            panic!("no error")
        };
        assert_eq!((message.as_str(), start, end), (r"unknown escape `\n` in string", 4, 6));
        let Err(LexError::Literal { message, start, end, .. }) = toks("x 'ab") else {
            panic!("no error")
        };
        assert_eq!((message.as_str(), start, end), ("unterminated string", 2, 5));
    }

    #[test]
    fn operators_whitespace_and_end() {
        assert_eq!(
            toks("a<=b!=!c\t&&\r\n...||"),
            Ok(vec![
                (word("a"), 0, 1),
                (Tok::Le, 1, 3),
                (word("b"), 3, 4),
                (Tok::Ne, 4, 6),
                (Tok::Bang, 6, 7),
                (word("c"), 7, 8),
                (Tok::AndAnd, 9, 11),
                (Tok::DotDot, 13, 15),
                (Tok::Dot, 15, 16),
                (Tok::OrOr, 16, 18),
            ])
        );
        // Only ASCII whitespace separates tokens.
        assert_eq!(toks("a\u{b}b"), Err(LexError::NoToken));
        assert_eq!(toks("a\u{a0}b"), Err(LexError::NoToken));
        match lex(" 1 ") {
            Ok(ts) => assert_eq!(ts.last().map(|t| (&t.tok, t.start, t.end)), Some((&Tok::Eof, 3, 3))),
            Err(_) => panic!("lexing failed"),
        }
    }
}
