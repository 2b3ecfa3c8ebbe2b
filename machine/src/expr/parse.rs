//! Parser of one expression string (the text between the quotes).
//!
//! The text is first split into tokens (`lexer`), then parsed by recursive descent,
//! with operator-precedence parsing (explicit stacks) for the binary operators (LANGUAGE.md §6):
//!
//! | precedence | operators                         |
//! |------------|-----------------------------------|
//! | highest    | `t[i]`, `t[i..j]`, `x.f`, `x.f(a)` |
//! |            | unary `-`, `!`                    |
//! |            | `*` `/` `%`                       |
//! |            | `+` `-`                           |
//! |            | `<` `<=` `>` `>=` `==` `!=`       |
//! |            | `&&`                              |
//! | lowest     | `\|\|`                            |
//!
//! All binary operators are left-associative; chains of them and of postfix
//! operators are parsed by loops, so their length is unbounded. Brackets and
//! prefix operators nest by recursion, limited to `MAX_DEPTH` (256) levels. The
//! range `a..b` is allowed only inside `t[...]` and as a function argument.
//!
//! A unary minus directly in front of a number literal (not followed by a
//! postfix operator) is folded into a negative literal, so that
//! `-9223372036854775808` is an integer and `-7` is the value `-7`.

use std::sync::Arc;

use crate::diag::Diagnostic;
use crate::expr::lexer::{lex, Tok, Token};
use crate::expr::{BinOp, Expr, ExprKind, UnOp};
use crate::span::{FileId, Span};
use crate::term::Atom;

/// How deeply brackets and prefix operators may nest.
const MAX_DEPTH: usize = 256;

/// A lexing or parsing failure in local offsets (boxed, to keep the
/// recursive parser's frames small).
pub(super) type Failure = Box<FailureData>;

/// What [`Failure`] holds.
pub(super) struct FailureData {
    /// The diagnostic's code: `parse`, or `nesting` for brackets nested
    /// too deeply (the code of the same limit in DeepCPS source).
    code: &'static str,
    message: String,
    start: usize,
    end: usize,
    expected: String,
}

pub(super) type PResult<T> = Result<T, Failure>;

#[cold]
pub(super) fn failure(message: impl Into<String>, start: usize, end: usize, expected: impl Into<String>) -> Failure {
    Box::new(FailureData {
        code: "parse",
        message: message.into(),
        start,
        end,
        expected: expected.into(),
    })
}

/// Parses `text`, the content of an expression string that starts at byte
/// `base` of `file`; spans in the result are file offsets.
pub fn parse_expr(text: &str, file: FileId, base: usize) -> Result<Expr, Diagnostic> {
    let to_diag = |f: Failure| {
        let f = *f;
        Diagnostic::error(
            f.code,
            f.message,
            Span::new(file, base.saturating_add(f.start), base.saturating_add(f.end)),
            format!("expected {}", f.expected),
        )
    };
    let toks = lex(text).map_err(to_diag)?;
    let mut p = Parser {
        toks,
        pos: 0,
        file,
        base,
        depth: 0,
    };
    p.parse_top().map_err(to_diag)
}

// ---------------------------------------------------------------------------
// Literals

fn int_overflow(lit: &str, start: usize, end: usize) -> Failure {
    failure(int_out_of_range(lit), start, end, INT_RANGE)
}

/// What an integer literal must be (the same in source and in expressions).
pub const INT_RANGE: &str = "an integer between -9223372036854775808 and 9223372036854775807";

/// What a float literal must be.
pub const FLOAT_RANGE: &str = "a finite float";

/// The message of an integer literal `lit` that does not fit.
pub fn int_out_of_range(lit: &str) -> String {
    format!("integer literal `{lit}` is out of range")
}

/// The message of a float literal `lit` that is not finite.
pub fn float_out_of_range(lit: &str) -> String {
    format!("float literal `{lit}` is out of range")
}

// ---------------------------------------------------------------------------
// Parser

struct Parser {
    toks: Vec<Token>,
    pos: usize,
    file: FileId,
    base: usize,
    depth: usize,
}

fn describe(t: &Tok) -> String {
    let s = match t {
        Tok::Int(_) => return "integer literal".into(),
        Tok::Float(_) => return "float literal".into(),
        Tok::Str(_) => return "string literal".into(),
        Tok::Word(w) => return format!("`{w}`"),
        Tok::LParen => "(",
        Tok::RParen => ")",
        Tok::LBrack => "[",
        Tok::RBrack => "]",
        Tok::LBrace => "{",
        Tok::RBrace => "}",
        Tok::Comma => ",",
        Tok::Colon => ":",
        Tok::Dot => ".",
        Tok::DotDot => "..",
        Tok::Plus => "+",
        Tok::Minus => "-",
        Tok::Star => "*",
        Tok::Slash => "/",
        Tok::Percent => "%",
        Tok::Lt => "<",
        Tok::Le => "<=",
        Tok::Gt => ">",
        Tok::Ge => ">=",
        Tok::EqEq => "==",
        Tok::Ne => "!=",
        Tok::AndAnd => "&&",
        Tok::OrOr => "||",
        Tok::Bang => "!",
        Tok::Eof => return "end of expression".into(),
    };
    format!("`{s}`")
}

fn binop(t: &Tok) -> Option<(BinOp, u8)> {
    Some(match t {
        Tok::OrOr => (BinOp::Or, 1),
        Tok::AndAnd => (BinOp::And, 2),
        Tok::Lt => (BinOp::Lt, 3),
        Tok::Le => (BinOp::Le, 3),
        Tok::Gt => (BinOp::Gt, 3),
        Tok::Ge => (BinOp::Ge, 3),
        Tok::EqEq => (BinOp::Eq, 3),
        Tok::Ne => (BinOp::Ne, 3),
        Tok::Plus => (BinOp::Add, 4),
        Tok::Minus => (BinOp::Sub, 4),
        Tok::Star => (BinOp::Mul, 5),
        Tok::Slash => (BinOp::Div, 5),
        Tok::Percent => (BinOp::Rem, 5),
        _ => return None,
    })
}

/// Replaces the top two operands by the top operator applied to them.
fn reduce(operands: &mut Vec<Expr>, ops: &mut Vec<(BinOp, u8)>) {
    let (Some((op, _)), Some(right)) = (ops.pop(), operands.pop()) else {
        return;
    };
    let Some(left) = operands.pop() else {
        operands.push(right);
        return;
    };
    let span = left.span.to(right.span);
    operands.push(Expr {
        kind: ExprKind::Binary(op, Box::new(left), Box::new(right)),
        span,
    });
}

impl Parser {
    fn cur(&self) -> &Token {
        // The token list always ends with `Eof`, and `pos` never passes it.
        &self.toks[self.pos.min(self.toks.len() - 1)]
    }

    fn peek(&self) -> &Tok {
        &self.cur().tok
    }

    fn peek_at(&self, k: usize) -> &Tok {
        let i = (self.pos + k).min(self.toks.len() - 1);
        &self.toks[i].tok
    }

    /// Moves past the current token; returns its local range.
    fn bump(&mut self) -> (usize, usize) {
        let t = self.cur();
        let r = (t.start, t.end);
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
        r
    }

    fn span(&self, start: usize, end: usize) -> Span {
        Span::new(self.file, self.base.saturating_add(start), self.base.saturating_add(end))
    }

    fn local_start(&self, s: Span) -> usize {
        (s.start as usize).saturating_sub(self.base)
    }

    fn local_end(&self, s: Span) -> usize {
        (s.end as usize).saturating_sub(self.base)
    }

    fn node(&self, kind: ExprKind, start: usize, end: usize) -> Expr {
        Expr {
            kind,
            span: self.span(start, end),
        }
    }

    /// A failure at the current token, which is not what was `expected`.
    #[cold]
    #[inline(never)]
    fn unexpected(&self, expected: &str) -> Failure {
        let t = self.cur();
        if t.tok == Tok::DotDot {
            return failure(
                "a range `..` is only allowed inside `t[...]` or as a function argument",
                t.start,
                t.end,
                expected,
            );
        }
        failure(format!("unexpected {}", describe(&t.tok)), t.start, t.end, expected)
    }

    /// Moves past the current token if it is `tok`; returns its local end.
    fn expect(&mut self, tok: &Tok, expected: &str) -> PResult<usize> {
        if self.peek() == tok {
            Ok(self.bump().1)
        } else {
            Err(self.unexpected(expected))
        }
    }

    /// Enters `n` more levels of nesting at the current token.
    fn enter(&mut self, n: usize) -> PResult<()> {
        self.depth += n;
        if self.depth > MAX_DEPTH {
            return Err(self.too_deep());
        }
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn too_deep(&self) -> Failure {
        let t = self.cur();
        let mut f = failure(
            "expression nested too deeply",
            t.start,
            t.end,
            format!("at most {MAX_DEPTH} levels of brackets and prefix operators"),
        );
        f.code = "nesting";
        f
    }

    fn leave(&mut self, n: usize) {
        self.depth -= n;
    }

    fn parse_top(&mut self) -> PResult<Expr> {
        if *self.peek() == Tok::Eof {
            let t = self.cur();
            return Err(failure("empty expression", t.start, t.end, "an expression"));
        }
        let e = self.parse_expr()?;
        if *self.peek() != Tok::Eof {
            return Err(self.unexpected("an operator or the end of the expression"));
        }
        Ok(e)
    }

    /// A binary expression, by operator precedence with explicit stacks
    /// (no recursion per precedence level; left-associative).
    fn parse_expr(&mut self) -> PResult<Expr> {
        let mut operands: Vec<Expr> = vec![self.parse_unary()?];
        let mut ops: Vec<(BinOp, u8)> = Vec::new();
        while let Some((op, prec)) = binop(self.peek()) {
            self.bump();
            while ops.last().is_some_and(|(_, p)| *p >= prec) {
                reduce(&mut operands, &mut ops);
            }
            ops.push((op, prec));
            operands.push(self.parse_unary()?);
        }
        while !ops.is_empty() {
            reduce(&mut operands, &mut ops);
        }
        match operands.pop() {
            Some(e) => Ok(e),
            None => Err(self.unexpected("an expression")),
        }
    }

    /// An expression, or a range `a..b` (in an index or an argument).
    fn parse_range_or_expr(&mut self) -> PResult<Expr> {
        let a = self.parse_expr()?;
        if *self.peek() != Tok::DotDot {
            return Ok(a);
        }
        self.bump();
        let b = self.parse_expr()?;
        if *self.peek() == Tok::DotDot {
            let t = self.cur();
            return Err(failure("a range cannot be the bound of a range", t.start, t.end, "`]`, `,` or `)`"));
        }
        let span = a.span.to(b.span);
        Ok(Expr {
            kind: ExprKind::Range(Box::new(a), Box::new(b)),
            span,
        })
    }

    fn parse_unary(&mut self) -> PResult<Expr> {
        if !matches!(self.peek(), Tok::Minus | Tok::Bang) {
            return self.parse_postfix();
        }
        self.parse_prefixed()
    }

    /// Prefix operators (a loop) and their operand.
    #[inline(never)]
    fn parse_prefixed(&mut self) -> PResult<Expr> {
        let mut ops: Vec<(UnOp, usize)> = Vec::new();
        let depth_before = self.depth;
        loop {
            let op = match self.peek() {
                Tok::Minus => UnOp::Neg,
                Tok::Bang => UnOp::Not,
                _ => break,
            };
            let (start, _) = self.bump();
            ops.push((op, start));
            self.enter(1)?;
        }
        let fold = matches!(ops.last(), Some((UnOp::Neg, _)))
            && matches!(self.peek(), Tok::Int(_) | Tok::Float(_))
            && !matches!(self.peek_at(1), Tok::LBrack | Tok::Dot | Tok::LParen);
        let mut e = match ops.pop() {
            Some((_, start)) if fold => self.negative_literal(start)?,
            Some(last) => {
                ops.push(last);
                self.parse_postfix()?
            }
            None => self.parse_postfix()?,
        };
        self.depth = depth_before;
        for (op, start) in ops.into_iter().rev() {
            let end = self.local_end(e.span);
            e = self.node(ExprKind::Unary(op, Box::new(e)), start, end);
        }
        Ok(e)
    }

    /// The number literal at the current token, negated; `start` is the
    /// local offset of the minus.
    fn negative_literal(&mut self, start: usize) -> PResult<Expr> {
        let tok = self.peek().clone();
        let (_, end) = self.bump();
        let atom = match tok {
            Tok::Int(n) => match 0i64.checked_sub_unsigned(n) {
                Some(m) => Atom::Int(m),
                None => return Err(int_overflow(&format!("-{n}"), start, end)),
            },
            Tok::Float(f) => Atom::Float(-f),
            _ => return Err(failure("unexpected token", start, end, "a number")),
        };
        Ok(self.node(ExprKind::Val(atom), start, end))
    }

    fn parse_postfix(&mut self) -> PResult<Expr> {
        let mut e = self.parse_primary()?;
        loop {
            e = match self.peek() {
                Tok::LBrack => self.parse_index(e)?,
                Tok::Dot => self.parse_dot(e)?,
                _ => return Ok(e),
            };
        }
    }

    /// `e[i]` or `e[i..j]`, at the `[`.
    #[inline(never)]
    fn parse_index(&mut self, e: Expr) -> PResult<Expr> {
        self.bump();
        self.enter(1)?;
        let idx = self.parse_range_or_expr()?;
        let end = self.expect(&Tok::RBrack, "`]`")?;
        self.leave(1);
        let start = self.local_start(e.span);
        Ok(self.node(ExprKind::Index(Box::new(e), Box::new(idx)), start, end))
    }

    /// `e.f` or `e.f(args)`, at the `.`.
    #[inline(never)]
    fn parse_dot(&mut self, e: Expr) -> PResult<Expr> {
        self.bump();
        let name = match self.peek() {
            Tok::Word(w) => w.clone(),
            _ => return Err(self.unexpected("a field or method name")),
        };
        let (_, name_end) = self.bump();
        let start = self.local_start(e.span);
        if *self.peek() == Tok::LParen {
            let (args, end) = self.parse_args()?;
            Ok(self.node(ExprKind::Method(Box::new(e), name, args), start, end))
        } else {
            Ok(self.node(ExprKind::Field(Box::new(e), name), start, name_end))
        }
    }

    /// Parses `( args )` at the current `(`; returns the arguments and the
    /// local end of the `)`.
    #[inline(never)]
    fn parse_args(&mut self) -> PResult<(Vec<Expr>, usize)> {
        self.expect(&Tok::LParen, "`(`")?;
        self.enter(1)?;
        let mut args = Vec::new();
        if *self.peek() != Tok::RParen {
            loop {
                args.push(self.parse_range_or_expr()?);
                match self.peek() {
                    Tok::Comma => {
                        self.bump();
                    }
                    Tok::RParen => break,
                    _ => return Err(self.unexpected("`,` or `)`")),
                }
            }
        }
        let end = self.expect(&Tok::RParen, "`)`")?;
        self.leave(1);
        Ok((args, end))
    }

    fn parse_primary(&mut self) -> PResult<Expr> {
        match self.peek() {
            Tok::Word(_) => self.parse_word(),
            Tok::LParen => self.parse_paren(),
            Tok::LBrack => self.parse_tuple(),
            Tok::LBrace => self.parse_record(),
            _ => self.parse_literal(),
        }
    }

    /// A number or string literal.
    #[inline(never)]
    fn parse_literal(&mut self) -> PResult<Expr> {
        let tok = self.peek().clone();
        let atom = match tok {
            Tok::Int(n) => match i64::try_from(n) {
                Ok(n) => Atom::Int(n),
                Err(_) => {
                    let t = self.cur();
                    return Err(int_overflow(&n.to_string(), t.start, t.end));
                }
            },
            Tok::Float(f) => Atom::Float(f),
            Tok::Str(s) => Atom::Str(s),
            _ => return Err(self.unexpected("an expression")),
        };
        let (start, end) = self.bump();
        Ok(self.node(ExprKind::Val(atom), start, end))
    }

    /// A keyword literal, a name or a call.
    #[inline(never)]
    fn parse_word(&mut self) -> PResult<Expr> {
        let Tok::Word(w) = self.peek().clone() else {
            return Err(self.unexpected("a name"));
        };
        let (start, end) = self.bump();
        let atom = match &*w {
            "true" => Atom::Bool(true),
            "false" => Atom::Bool(false),
            "always" => Atom::Stage(true),
            "never" => Atom::Stage(false),
            _ if *self.peek() == Tok::LParen => {
                let (args, end) = self.parse_args()?;
                return Ok(self.node(ExprKind::Call(w, args), start, end));
            }
            _ => return Ok(self.node(ExprKind::Name(w), start, end)),
        };
        Ok(self.node(ExprKind::Val(atom), start, end))
    }

    /// `( e )`.
    #[inline(never)]
    fn parse_paren(&mut self) -> PResult<Expr> {
        let (start, _) = self.bump();
        self.enter(1)?;
        let mut inner = self.parse_expr()?;
        let end = self.expect(&Tok::RParen, "`)`")?;
        self.leave(1);
        let kind = std::mem::replace(&mut inner.kind, ExprKind::Val(Atom::Int(0)));
        Ok(self.node(kind, start, end))
    }

    /// `[a, b, ..]`.
    #[inline(never)]
    fn parse_tuple(&mut self) -> PResult<Expr> {
        let (start, _) = self.bump();
        self.enter(1)?;
        let mut elems = Vec::new();
        if *self.peek() != Tok::RBrack {
            loop {
                elems.push(self.parse_expr()?);
                match self.peek() {
                    Tok::Comma => {
                        self.bump();
                    }
                    Tok::RBrack => break,
                    _ => return Err(self.unexpected("`,` or `]`")),
                }
            }
        }
        let end = self.expect(&Tok::RBrack, "`]`")?;
        self.leave(1);
        Ok(self.node(ExprKind::Tuple(elems), start, end))
    }

    /// `{f: a, g: b}`.
    #[inline(never)]
    fn parse_record(&mut self) -> PResult<Expr> {
        let (start, _) = self.bump();
        self.enter(1)?;
        let mut fields: Vec<(Arc<str>, Expr)> = Vec::new();
        if *self.peek() != Tok::RBrace {
            loop {
                let name = self.record_field_name(&fields)?;
                let v = self.parse_expr()?;
                fields.push((name, v));
                match self.peek() {
                    Tok::Comma => {
                        self.bump();
                    }
                    Tok::RBrace => break,
                    _ => return Err(self.unexpected("`,` or `}`")),
                }
            }
        }
        let end = self.expect(&Tok::RBrace, "`}`")?;
        self.leave(1);
        Ok(self.node(ExprKind::Record(fields), start, end))
    }

    /// `name :` of a record field not among `fields`.
    fn record_field_name(&mut self, fields: &[(Arc<str>, Expr)]) -> PResult<Arc<str>> {
        let name = match self.peek() {
            Tok::Word(w) => w.clone(),
            _ => return Err(self.unexpected("a field name")),
        };
        let (start, end) = self.bump();
        if fields.iter().any(|(f, _)| *f == name) {
            return Err(failure(
                format!("duplicate field `{name}` in record"),
                start,
                end,
                "a field name not used before in this record",
            ));
        }
        self.expect(&Tok::Colon, "`:`")?;
        Ok(name)
    }
}

/// Drops `e`. `Expr` has an iterative `Drop` (`drop.rs`), so a long
/// left-nested chain such as `1+1+...+1` does not recurse. For tests.
#[cfg(test)]
pub(crate) fn dismantle(e: Expr) {
    drop(e);
}

#[cfg(test)]
mod tests {
    use rand::rngs::StdRng;
    use rand::{RngExt, SeedableRng};

    use super::*;

    fn p(text: &str) -> Expr {
        match parse_expr(text, FileId(0), 0) {
            Ok(e) => e,
            Err(d) => panic!("parse of {text:?} failed: {d:?}"),
        }
    }

    fn err(text: &str) -> Diagnostic {
        match parse_expr(text, FileId(0), 0) {
            Ok(e) => panic!("parse of {text:?} succeeded: {e:?}"),
            Err(d) => d,
        }
    }

    /// A compact structural rendering, fully parenthesized, for tests.
    fn sx(e: &Expr) -> String {
        match &e.kind {
            ExprKind::Val(Atom::Int(n)) => n.to_string(),
            ExprKind::Val(Atom::Float(f)) => format!("{f:?}"),
            ExprKind::Val(Atom::Bool(b)) => b.to_string(),
            ExprKind::Val(Atom::Stage(b)) => if *b { "always" } else { "never" }.into(),
            ExprKind::Val(Atom::Str(s)) => format!("'{s}'"),
            ExprKind::Val(a) => format!("{a:?}"),
            ExprKind::Name(n) => n.to_string(),
            ExprKind::Tuple(xs) => format!("[{}]", xs.iter().map(sx).collect::<Vec<_>>().join(" ")),
            ExprKind::Record(fs) => {
                format!(
                    "{{{}}}",
                    fs.iter().map(|(f, x)| format!("{f}:{}", sx(x))).collect::<Vec<_>>().join(" ")
                )
            }
            ExprKind::Unary(op, x) => format!("({} {})", if *op == UnOp::Neg { "neg" } else { "not" }, sx(x)),
            ExprKind::Binary(op, a, b) => format!("({op:?} {} {})", sx(a), sx(b)),
            ExprKind::Index(a, b) => format!("(idx {} {})", sx(a), sx(b)),
            ExprKind::Range(a, b) => format!("(.. {} {})", sx(a), sx(b)),
            ExprKind::Field(a, f) => format!("(. {} {f})", sx(a)),
            ExprKind::Call(f, xs) => {
                format!("({f} {})", xs.iter().map(sx).collect::<Vec<_>>().join(" "))
            }
            ExprKind::Method(a, f, xs) => {
                format!("(.{f} {} {})", sx(a), xs.iter().map(sx).collect::<Vec<_>>().join(" "))
            }
        }
    }

    fn check(text: &str, expected: &str) {
        assert_eq!(sx(&p(text)), expected, "parsing {text:?}");
    }

    fn check_err(text: &str, message_part: &str) {
        check_err_code(text, "parse", message_part);
    }

    /// A nesting error: the code of the same limit in DeepCPS source.
    fn check_too_deep(text: &str) {
        check_err_code(text, "nesting", "nested too deeply");
    }

    fn check_err_code(text: &str, code: &str, message_part: &str) {
        let d = err(text);
        assert_eq!(d.code, code, "{text:?}");
        assert!(
            d.message.contains(message_part),
            "{text:?}: got {:?}, want {message_part:?}",
            d.message
        );
        let (_, label) = d.primary.clone().unwrap_or_default();
        assert!(label.starts_with("expected "), "label {label:?}");
    }

    #[test]
    fn literals() {
        check("42", "42");
        check("1.5", "1.5");
        check("2e3", "2000.0");
        check("2E-3", "0.002");
        check("-0.25", "-0.25");
        check("-7", "-7");
        check("-9223372036854775808", "-9223372036854775808");
        check("9223372036854775807", "9223372036854775807");
        check("true", "true");
        check("false", "false");
        check("always", "always");
        check("never", "never");
        check("'it\\'s'", "'it's'");
        check("'a\\\\b'", "'a\\b'");
        check("''", "''");
        check("[]", "[]");
        check("[1, [2, 3]]", "[1 [2 3]]");
        check("{}", "{}");
        check("{dim: [2, 3], data: M}", "{dim:[2 3] data:M}");
        check("x_1", "x_1");
        check("_", "_");
    }

    #[test]
    fn precedence() {
        check("1+2*3", "(Add 1 (Mul 2 3))");
        check("1*2+3", "(Add (Mul 1 2) 3)");
        check("a-b-c", "(Sub (Sub a b) c)");
        check("a-(b-c)", "(Sub a (Sub b c))");
        check("a/b%c*d", "(Mul (Rem (Div a b) c) d)");
        check("a<b==c", "(Eq (Lt a b) c)");
        check("a||b&&c", "(Or a (And b c))");
        check("a&&b||c&&d", "(Or (And a b) (And c d))");
        check("a+b<c*d", "(Lt (Add a b) (Mul c d))");
        check("a<=b", "(Le a b)");
        check("a>=b", "(Ge a b)");
        check("a>b", "(Gt a b)");
        check("a!=b", "(Ne a b)");
        check("-a*b", "(Mul (neg a) b)");
        check("!a&&b", "(And (not a) b)");
        check("-t[0]", "(neg (idx t 0))");
        check("-x.f", "(neg (. x f))");
        check("--x", "(neg (neg x))");
        check("!-x", "(not (neg x))");
        check("-7*x", "(Mul -7 x)");
        check("-(7)", "(neg 7)");
        check("-(-1)", "(neg -1)");
        check("x-(-7)", "(Sub x -7)");
        check("x--7", "(Sub x -7)");
        check("-7[0]", "(neg (idx 7 0))");
        check("-1.5.x", "(neg (. 1.5 x))");
        check("1.x", "(. 1 x)");
        check("1.e3", "(. 1 e3)");
    }

    #[test]
    fn postfix() {
        check("t[i]", "(idx t i)");
        check("t[i..j]", "(idx t (.. i j))");
        check("t[0][1]", "(idx (idx t 0) 1)");
        check("x.f.g", "(. (. x f) g)");
        check("M.insert(name, arg)", "(.insert M name arg)");
        check("m.lookup(k).f[0]", "(idx (. (.lookup m k) f) 0)");
        check("f(x, 1..2)", "(f x (.. 1 2))");
        check("delete(t, i+1..j*2)", "(delete t (.. (Add i 1) (Mul j 2)))");
        check("map()", "(map )");
        check("map().insert('a', 5)", "(.insert (map ) 'a' 5)");
        check("f (x)", "(f x)");
        check("p.x+p.y", "(Add (. p x) (. p y))");
        check("x.true", "(. x true)");
        check("t[1..2]", "(idx t (.. 1 2))");
        check("t[0..-1]", "(idx t (.. 0 -1))");
    }

    #[test]
    fn spans_are_file_offsets() {
        let e = match parse_expr("a + bc", FileId(3), 10) {
            Ok(e) => e,
            Err(d) => panic!("{d:?}"),
        };
        assert_eq!(e.span, Span::new(FileId(3), 10, 16));
        let ExprKind::Binary(_, a, b) = &e.kind else { panic!("not binary") };
        assert_eq!(a.span, Span::new(FileId(3), 10, 11));
        assert_eq!(b.span, Span::new(FileId(3), 14, 16));
        let e = p(" (x) ");
        assert_eq!(e.span, Span::new(FileId(0), 1, 4));
        let e = p("-5");
        assert_eq!(e.span, Span::new(FileId(0), 0, 2));
        let d = match parse_expr("1 + )", FileId(1), 100) {
            Ok(e) => panic!("{e:?}"),
            Err(d) => d,
        };
        let (span, label) = d.primary.clone().unwrap_or_default();
        assert_eq!(span, Span::new(FileId(1), 104, 105));
        assert_eq!(label, "expected an expression");
        assert_eq!(d.message, "unexpected `)`");
    }

    #[test]
    fn errors() {
        check_err("", "empty expression");
        check_err("   ", "empty expression");
        check_err("9223372036854775808", "out of range");
        check_err("-9223372036854775809", "out of range");
        check_err("99999999999999999999999", "out of range");
        check_err("x-9223372036854775808", "out of range");
        check_err("1e400", "out of range");
        check_err("1..2", "range");
        check_err("(1..2)", "range");
        check_err("[1..2]", "range");
        check_err("t[1..2..3]", "range");
        check_err("1 +", "unexpected end");
        check_err("(1", "unexpected end");
        check_err("1)", "unexpected `)`");
        check_err("[1, 2", "unexpected end");
        check_err("[1 2]", "unexpected integer");
        check_err("{a 1}", "unexpected integer");
        check_err("{a: 1, a: 2}", "duplicate field");
        check_err("{1: 2}", "unexpected integer");
        check_err("f(1,)", "unexpected `)`");
        check_err("x.", "unexpected end");
        check_err("x.1", "unexpected integer");
        check_err("'abc", "unterminated string");
        check_err("'abc\\", "unterminated string");
        check_err("'a\\nb'", "unknown escape");
        check_err("a = b", "unexpected `=`");
        check_err("a & b", "unexpected `&`");
        check_err("a | b", "unexpected `|`");
        check_err("a # b", "unexpected character");
        check_err("é", "unexpected character");
        check_err("\"x\"", "unexpected character");
        check_err("1 2", "unexpected integer");
        check_err("a...b", "range");
        check_err("true(1)", "unexpected `(`");
        check_err("t[]", "unexpected `]`");
    }

    #[test]
    fn depth_limit() {
        let ok = format!("{}1{}", "(".repeat(MAX_DEPTH), ")".repeat(MAX_DEPTH));
        check(&ok, "1");
        let deep = format!("{}1{}", "(".repeat(MAX_DEPTH + 1), ")".repeat(MAX_DEPTH + 1));
        check_too_deep(&deep);
        let very = "(".repeat(100_000);
        check_too_deep(&very);
        check_too_deep(&"[".repeat(100_000));
        check_too_deep(&"{a:".repeat(100_000));
        check_too_deep(&"f(".repeat(100_000));
        check_too_deep(&format!("x{}", "[".repeat(100_000)));
        check_too_deep(&"-".repeat(100_000));
        check_too_deep(&"!".repeat(100_000));
        let ok = format!("{}x", "!".repeat(MAX_DEPTH));
        assert!(parse_expr(&ok, FileId(0), 0).is_ok());
        // Nesting with every precedence level inside each bracket.
        let mut s = String::new();
        for _ in 0..MAX_DEPTH / 2 {
            s.push_str("a||b&&c<d+e*-f[");
        }
        s.push('0');
        s.push_str(&"]".repeat(MAX_DEPTH / 2));
        assert!(parse_expr(&s, FileId(0), 0).is_ok());
    }

    #[test]
    fn deepest_accepted_nesting_fits_a_small_stack() {
        let n = MAX_DEPTH - 1;
        let mut mixed = String::new();
        for _ in 0..MAX_DEPTH / 2 {
            mixed.push_str("a||b&&c<d+e*-f[");
        }
        mixed.push('0');
        mixed.push_str(&"]".repeat(MAX_DEPTH / 2));
        let inputs = [
            format!("{}1{}", "(".repeat(n), ")".repeat(n)),
            format!("{}1{}", "f(".repeat(n), ")".repeat(n)),
            format!("{}1{}", "x.f(".repeat(n), ")".repeat(n)),
            format!("{}1{}", "{a: ".repeat(n), "}".repeat(n)),
            format!("{}1{}", "x[1..".repeat(n), "]".repeat(n)),
            format!("{}1{}", "[".repeat(n), "]".repeat(n)),
            format!("{}x", "-".repeat(n)),
            mixed,
        ];
        for text in inputs {
            let worker = std::thread::Builder::new()
                .stack_size(4 << 20)
                .spawn(move || parse_expr(&text, FileId(0), 0).is_ok());
            let ok = worker.map(|h| h.join().unwrap_or(false)).unwrap_or(false);
            assert!(ok);
        }
    }

    #[test]
    fn long_chains() {
        let chain = vec!["1"; 100_000].join("+");
        let e = p(&chain);
        assert!(matches!(e.kind, ExprKind::Binary(BinOp::Add, _, _)));
        assert_eq!(e.span.end as usize, chain.len());
        dismantle(e);
        let chain = format!("x{}", ".f".repeat(100_000));
        dismantle(p(&chain));
        let chain = vec!["a"; 100_000].join("&&");
        dismantle(p(&chain));
        let chain = vec!["-1"; 100_000].join("*");
        dismantle(p(&chain));
    }

    #[test]
    fn garbage_never_panics() {
        let pieces = [
            "(",
            ")",
            "[",
            "]",
            "{",
            "}",
            ",",
            ":",
            ".",
            "..",
            "...",
            "+",
            "-",
            "*",
            "/",
            "%",
            "<",
            "<=",
            ">",
            ">=",
            "==",
            "!=",
            "=",
            "&&",
            "&",
            "||",
            "|",
            "!",
            "'",
            "\\",
            "'a'",
            "'\\",
            "x",
            "f(",
            "1",
            "1.5",
            "2e",
            "2e+",
            "1e999",
            "9223372036854775808",
            " ",
            "é",
            "true",
            "map()",
            "é'",
            "\u{0}",
            "'\\é",
        ];
        let mut rng = StdRng::seed_from_u64(0x9e37_79b9_7f4a_7c15);
        for _ in 0..20_000 {
            let n = rng.random_range(0..12);
            let mut s = String::new();
            for _ in 0..n {
                s.push_str(pieces[rng.random_range(0..pieces.len())]);
            }
            let base = rng.random_range(0..1000);
            match parse_expr(&s, FileId(0), base) {
                Ok(e) => {
                    assert!(e.span.start as usize >= base && e.span.end as usize <= base + s.len(), "{s:?}");
                }
                Err(d) => {
                    let (span, label) = d.primary.clone().unwrap_or_default();
                    assert!(span.start as usize >= base && span.end as usize <= base + s.len(), "{s:?}: {d:?}");
                    assert!(label.starts_with("expected "));
                }
            }
        }
        // Arbitrary bytes interpreted as text.
        for _ in 0..5_000 {
            let n = rng.random_range(0..20);
            let bytes: Vec<u8> = (0..n).map(|_| rng.random_range(0..128u8)).collect();
            let s = String::from_utf8_lossy(&bytes).into_owned();
            let _ = parse_expr(&s, FileId(0), 0);
        }
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_strings_never_panic(s in "\\PC{0,40}") {
            let _ = parse_expr(&s, FileId(0), 7);
        }

        #[test]
        fn expression_like_strings_never_panic(s in "[-+*/%<>=!&|()\\[\\]{},:.'a-c0-9 ]{0,40}") {
            let _ = parse_expr(&s, FileId(0), 0);
        }
    }
}
