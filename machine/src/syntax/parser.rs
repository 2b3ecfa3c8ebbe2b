//! The recursive-descent parser of DeepCPS (LANGUAGE.md §3.1), with exact spans.
//!
//! Sequential code (`let`/`fix` chains and braceless tail lambdas, the usual
//! shape of CPS) is parsed by a loop, a [`Link`] at a time, so a program of
//! a million statements does not deepen the stack; a file's main body can
//! be read that way by its consumer ([`parse_head`], [`Chain`]) instead of
//! as one tree. Brackets (braced lambdas, tuples, parentheses in
//! staging expressions) recurse, and their nesting is limited to
//! [`MAX_NESTING`] with a diagnostic.

use std::sync::Arc;

use crate::diag::Diagnostic;
use crate::expr::parse::parse_expr;
use crate::span::{FileId, Span};
use crate::syntax::ast::{
    Args, Def, File, Ident, Link, Params, SurfaceArg, SurfaceBody, SurfaceLambda, SurfaceOperand, SurfaceParam, SurfaceSExp,
};
use crate::syntax::lexer::{Stream, Tok, Token};

use rustc_hash::FxHashMap;

/// How deeply brackets may nest.
pub const MAX_NESTING: usize = 2_000;

type PResult<T> = Result<T, Diagnostic>;

/// Parses the text of `file`.
pub fn parse_file(text: &str, file: FileId) -> PResult<File> {
    let mut p = Parser::new(text, file);
    let parsed = p.file();
    // A lexing error anywhere in the file is reported first, as if the
    // file had been lexed before it was parsed.
    match p.toks.lex_error() {
        Some(e) => Err(e),
        None => parsed,
    }
}

/// Parses the includes and leading definitions of `file` (the returned
/// file's `main` is `None`) and leaves its main body, if it has one, to be
/// read a statement at a time from the [`Chain`]: a long program is then
/// never held whole as a surface tree. Errors of the head, and a lexing
/// error met before the main body, are returned here; any other error of
/// the file comes from the chain.
pub fn parse_head(text: &str, file: FileId) -> PResult<(File, Option<Chain<'_>>)> {
    let mut p = Parser::new(text, file);
    let head = match p.head() {
        Ok(h) => h,
        Err(e) => return Err(p.toks.lex_error().unwrap_or(e)),
    };
    if *p.peek() == Tok::Eof {
        return match p.toks.lex_error() {
            Some(e) => Err(e),
            None => Ok((head, None)),
        };
    }
    Ok((head, Some(Chain { p, done: false })))
}

/// The main body of a file, read a statement at a time ([`parse_head`]).
pub struct Chain<'a> {
    p: Parser<'a>,
    /// Whether the last statement (or an error) was returned.
    done: bool,
}

impl Chain<'_> {
    /// The next statement of the main body; after the last one (a
    /// [`Link::Last`]), `None`. An error ends the chain: it is the file's
    /// first lexing error if it has one, else the parse error met.
    pub fn next_link(&mut self) -> Option<PResult<Link>> {
        if self.done {
            return None;
        }
        let link = self.p.link().and_then(|l| {
            if matches!(l, Link::Last { .. }) && *self.p.peek() != Tok::Eof {
                return Err(self.p.expected("end of file"));
            }
            Ok(l)
        });
        let link = match link {
            Ok(l @ Link::Last { .. }) => {
                self.done = true;
                match self.p.toks.lex_error() {
                    Some(e) => Err(e),
                    None => Ok(l),
                }
            }
            Ok(l) => Ok(l),
            Err(e) => {
                self.done = true;
                Err(self.p.toks.lex_error().unwrap_or(e))
            }
        };
        Some(link)
    }

    /// The error the rest of the chain holds, if any (its statements are
    /// read and dropped).
    pub fn first_error(&mut self) -> Option<Diagnostic> {
        while let Some(l) = self.next_link() {
            if let Err(e) = l {
                return Some(e);
            }
        }
        None
    }
}

/// The spans of the operands of the application whose body starts at byte
/// `start` of `text` (the whole of `file`): its head, then its arguments up
/// to the first splice (after one, positions no longer match the source's),
/// a tail lambda by its parameters; and whether the head is `if`. `None` if
/// no application starts there. For diagnostics, which only know the span
/// of a failing body.
pub fn operand_spans(text: &str, file: FileId, start: usize) -> Option<(Vec<Span>, bool)> {
    let mut p = Parser::new(text, file);
    while (p.span().start as usize) < start && *p.peek() != Tok::Eof {
        p.bump();
    }
    if p.span().start as usize != start || *p.peek() == Tok::Eof {
        return None;
    }
    p.stage_opt().ok()?;
    if !p.at_operand() {
        return None;
    }
    let head_is_if = *p.peek() == Tok::If;
    let s = p.span();
    p.operand().ok()?;
    let mut out = vec![s.to(p.prev_span())];
    loop {
        let s = p.span();
        match p.peek() {
            Tok::LParen => {
                let params = p.params().ok()?;
                let sname = p.sname_opt().ok()?;
                if *p.peek() != Tok::LBrace {
                    out.push(s.to(p.prev_span()));
                    break;
                }
                p.braced_lambda_rest(params, sname, s).ok()?;
                out.push(s.to(p.prev_span()));
            }
            Tok::Bang => break,
            _ if p.at_arg() => {
                p.arg().ok()?;
                out.push(s.to(p.prev_span()));
            }
            _ => break,
        }
    }
    Some((out, head_is_if))
}

/// `v` in an allocation of its length: a program's millions of short
/// argument and parameter lists would otherwise keep the spare room of
/// their growth (four elements for one or two).
fn exact<T>(mut v: Vec<T>) -> Vec<T> {
    if v.capacity() == v.len() {
        v
    } else {
        let mut out = Vec::with_capacity(v.len());
        out.append(&mut v);
        out
    }
}

struct Parser<'a> {
    /// The tokens, lexed as they are read.
    toks: Stream<'a>,
    /// The span of the token read last.
    prev: Span,
    text: &'a str,
    depth: usize,
    /// Every name read so far, shared by its occurrences (a name is
    /// allocated once per file, not once per occurrence).
    names: FxHashMap<&'a str, Arc<str>>,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str, file: FileId) -> Parser<'a> {
        let toks = Stream::new(text, file);
        let prev = toks.current().span;
        Parser {
            toks,
            prev,
            text,
            depth: 0,
            names: FxHashMap::default(),
        }
    }

    fn peek(&self) -> &Tok {
        &self.toks.current().tok
    }

    fn peek_at(&mut self, k: usize) -> &Tok {
        &self.toks.peek(k).tok
    }

    fn span(&self) -> Span {
        self.toks.current().span
    }

    fn prev_span(&self) -> Span {
        self.prev
    }

    fn bump(&mut self) -> Token {
        // What a parse builds grows with the tokens read: the budget is
        // checked as it goes ([`crate::memory::tick`]).
        crate::memory::tick();
        let t = self.toks.next_token();
        self.prev = t.span;
        t
    }

    /// The shared text of a name.
    fn name(&mut self, text: &'a str) -> Arc<str> {
        self.names.entry(text).or_insert_with(|| Arc::from(text)).clone()
    }

    fn slice(&self, span: Span) -> &'a str {
        &self.text[span.range()]
    }

    fn eat(&mut self, tok: Tok) -> bool {
        if *self.peek() == tok {
            self.bump();
            true
        } else {
            false
        }
    }

    fn expected(&self, what: &str) -> Diagnostic {
        let found = self.peek().describe();
        Diagnostic::error(
            "parse",
            format!("expected {what}, found {found}"),
            self.span(),
            format!("expected {what}"),
        )
    }

    /// A statement that does not parse as an application and whose head
    /// is a name one or two edits from a keyword (`lett x = 5`): the
    /// keyword was meant.
    fn misspelt_keyword(&self, head: &SurfaceOperand) -> Option<Diagnostic> {
        let SurfaceOperand::Name(id) = head else { return None };
        let k = crate::syntax::suggest::nearest(&id.name, crate::syntax::suggest::STATEMENT_KEYWORDS)?;
        Some(Diagnostic::error(
            "parse",
            format!("unknown keyword `{}`; did you mean `{k}`?", id.name),
            id.span,
            format!("not a keyword; `{k}` is"),
        ))
    }

    fn expect(&mut self, tok: Tok, what: &str) -> PResult<Token> {
        if *self.peek() == tok {
            Ok(self.bump())
        } else {
            Err(self.expected(what))
        }
    }

    fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(Diagnostic::error(
                "nesting",
                format!("brackets nested too deeply (more than {MAX_NESTING} levels)"),
                self.span(),
                "too deep here",
            )
            .with_note("sequential code (tail lambdas, let chains) may be arbitrarily long; only brackets are limited"));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    fn ident(&mut self) -> PResult<Ident> {
        let t = self.expect(Tok::Ident, "a name")?;
        let text = self.slice(t.span);
        Ok(Ident {
            name: self.name(text),
            span: t.span,
        })
    }

    fn file(&mut self) -> PResult<File> {
        let mut f = self.head()?;
        f.main = if *self.peek() == Tok::Eof { None } else { Some(self.body()?) };
        if *self.peek() != Tok::Eof {
            return Err(self.expected("end of file"));
        }
        Ok(f)
    }

    /// The includes and leading definitions of a file; the main body is
    /// left to read.
    fn head(&mut self) -> PResult<File> {
        let mut includes = Vec::new();
        while *self.peek() == Tok::Include {
            self.bump();
            let t = self.expect(Tok::Str, "a quoted path after `include`")?;
            let raw = self.slice(t.span);
            includes.push((raw[1..raw.len() - 1].to_string(), t.span));
        }
        let mut defs = Vec::new();
        while self.at_def() {
            let start = self.span();
            let stage = self.stage_opt()?;
            defs.push(self.def(stage, start)?);
        }
        Ok(File {
            includes,
            defs,
            main: None,
        })
    }

    /// Whether a definition starts here: `let`, `fix`, or a staging
    /// annotation followed by one. The annotation is looked through, not
    /// read: one that does not end in `:` is not a definition's.
    fn at_def(&mut self) -> bool {
        match self.peek() {
            Tok::Let | Tok::Fix => true,
            Tok::At => {
                let mut k = 1;
                loop {
                    match self.peek_at(k) {
                        Tok::Colon => return matches!(self.peek_at(k + 1), Tok::Let | Tok::Fix),
                        Tok::Eof | Tok::LBrace | Tok::RBrace => return false,
                        _ => k += 1,
                    }
                }
            }
            _ => false,
        }
    }

    /// One statement of a chain: `stage? stmt`, where a `let`/`fix` or a
    /// braceless tail lambda leaves its continuation to the next links.
    fn link(&mut self) -> PResult<Link> {
        let start = self.span();
        let stage = self.stage_opt()?;
        if matches!(self.peek(), Tok::Let | Tok::Fix) {
            return Ok(Link::Def(self.def(stage, start)?));
        }
        if !self.at_operand() {
            return Err(self.expected("a statement (`let`, `fix` or an application)"));
        }
        let head = self.operand()?;
        let mut args = Args::new();
        loop {
            match self.peek() {
                Tok::LParen => {
                    let lam_start = self.span();
                    let params = self.params()?;
                    let sname = self.sname_opt()?;
                    if *self.peek() == Tok::LBrace {
                        let lam = self.braced_lambda_rest(params, sname, lam_start)?;
                        args.push(SurfaceArg::Operand(SurfaceOperand::Lambda(Box::new(lam))));
                    } else {
                        return Ok(Link::Tail {
                            stage,
                            head,
                            args,
                            params,
                            sname,
                            start,
                            lam_start,
                        });
                    }
                }
                Tok::RBrace | Tok::Eof => break,
                _ if self.at_arg() => args.push(self.arg()?),
                _ => {
                    return Err(self
                        .misspelt_keyword(&head)
                        .unwrap_or_else(|| self.expected("an argument, `}` or end of file")))
                }
            }
        }
        let span = start.to(self.prev_span());
        Ok(Link::Last { stage, head, args, span })
    }

    /// A chain of statements as one body: its links read by a loop, not by
    /// recursion, and folded from the last.
    fn body(&mut self) -> PResult<SurfaceBody> {
        // Boxed: the list of a long chain grows by doubling, which would
        // copy (and for a moment hold twice) every statement's parts.
        let mut links: Vec<Box<Link>> = Vec::new();
        let innermost = loop {
            match self.link()? {
                Link::Last { stage, head, args, span } => {
                    break SurfaceBody::App {
                        stage,
                        head,
                        args,
                        tail: None,
                        span,
                    }
                }
                other => links.push(Box::new(other)),
            }
        };
        let end = self.prev_span();
        let mut body = innermost;
        while let Some(link) = links.pop() {
            body = match *link {
                Link::Def(def) => SurfaceBody::Def(Box::new(def), Box::new(body)),
                Link::Tail {
                    stage,
                    head,
                    args,
                    params,
                    sname,
                    start,
                    lam_start,
                } => SurfaceBody::App {
                    stage,
                    head,
                    args,
                    tail: Some(Box::new(SurfaceLambda {
                        params,
                        sname,
                        body,
                        span: lam_start.to(end),
                    })),
                    span: start.to(end),
                },
                // Never pushed: the loop ends at the last statement.
                Link::Last { .. } => body,
            };
        }
        Ok(body)
    }

    /// A `let`/`fix` header; the current token is `let` or `fix`.
    fn def(&mut self, stage: Option<SurfaceSExp>, start: Span) -> PResult<Def> {
        let is_fix = *self.peek() == Tok::Fix;
        self.bump();
        let sname = self.sname_opt()?;
        let name = self.ident()?;
        self.eat(Tok::Eq);
        let def = if is_fix {
            if *self.peek() != Tok::LParen {
                return Err(self.expected("the recursive lambda `(params) { .. }` after the name bound by `fix`"));
            }
            let lam_start = self.span();
            let params = self.params()?;
            let lsname = self.sname_opt()?;
            if *self.peek() != Tok::LBrace {
                return Err(self.expected("`{` (the body of a `fix` lambda must be braced)"));
            }
            let lam = Box::new(self.braced_lambda_rest(params, lsname, lam_start)?);
            Def::Fix {
                stage,
                sname,
                name,
                lam,
                span: start.to(self.prev_span()),
            }
        } else {
            if !self.at_arg() {
                return Err(self.expected("the value bound by `let`"));
            }
            let value = if *self.peek() == Tok::LParen {
                let lam_start = self.span();
                let params = self.params()?;
                let lsname = self.sname_opt()?;
                if *self.peek() != Tok::LBrace {
                    return Err(self.expected("`{` (a lambda bound by `let` must be braced)"));
                }
                SurfaceArg::Operand(SurfaceOperand::Lambda(Box::new(
                    self.braced_lambda_rest(params, lsname, lam_start)?,
                )))
            } else {
                self.arg()?
            };
            Def::Let {
                stage,
                sname,
                name,
                value,
                span: start.to(self.prev_span()),
            }
        };
        self.eat(Tok::In);
        Ok(def)
    }

    fn at_operand(&self) -> bool {
        matches!(
            self.peek(),
            Tok::Ident
                | Tok::Dollar
                | Tok::If
                | Tok::Int
                | Tok::Float
                | Tok::True
                | Tok::False
                | Tok::Always
                | Tok::Never
                | Tok::Str
                | Tok::LBracket
                | Tok::LParen
        )
    }

    fn at_arg(&self) -> bool {
        self.at_operand() || *self.peek() == Tok::Bang
    }

    fn arg(&mut self) -> PResult<SurfaceArg> {
        if self.eat(Tok::Bang) {
            if !self.at_operand() {
                return Err(self.expected("the tuple to splice after `!`"));
            }
            return Ok(SurfaceArg::Splice(self.operand()?));
        }
        Ok(SurfaceArg::Operand(self.operand()?))
    }

    fn operand(&mut self) -> PResult<SurfaceOperand> {
        let t = self.span();
        let text = self.slice(t);
        Ok(match self.peek().clone() {
            Tok::Ident => SurfaceOperand::Name(self.ident()?),
            Tok::Dollar => {
                self.bump();
                SurfaceOperand::Builtin(Ident {
                    name: self.name(&text[1..]),
                    span: t,
                })
            }
            Tok::If => {
                self.bump();
                SurfaceOperand::If(t)
            }
            Tok::Int => {
                self.bump();
                match text.parse::<i64>() {
                    Ok(v) => SurfaceOperand::Int(v, t),
                    Err(_) => {
                        return Err(Diagnostic::error(
                            "parse",
                            crate::expr::parse::int_out_of_range(text),
                            t,
                            format!("expected {}", crate::expr::parse::INT_RANGE),
                        ))
                    }
                }
            }
            Tok::Float => {
                self.bump();
                match text.parse::<f64>() {
                    Ok(v) if v.is_finite() => SurfaceOperand::Float(v, t),
                    _ => {
                        return Err(Diagnostic::error(
                            "parse",
                            crate::expr::parse::float_out_of_range(text),
                            t,
                            format!("expected {}", crate::expr::parse::FLOAT_RANGE),
                        ))
                    }
                }
            }
            Tok::True | Tok::False => {
                self.bump();
                SurfaceOperand::Bool(text == "true", t)
            }
            Tok::Always | Tok::Never => {
                self.bump();
                SurfaceOperand::Stage(text == "always", t)
            }
            Tok::Str => {
                self.bump();
                let inner = &text[1..text.len() - 1];
                let e = parse_expr(inner, t.file, t.start as usize + 1)?;
                SurfaceOperand::Expr(Box::new(e))
            }
            Tok::LBracket => {
                self.enter()?;
                self.bump();
                let mut elems = Vec::new();
                if *self.peek() != Tok::RBracket {
                    loop {
                        if !self.at_arg() {
                            return Err(self.expected("a tuple element"));
                        }
                        elems.push(self.arg()?);
                        if !self.eat(Tok::Comma) {
                            break;
                        }
                    }
                }
                if *self.peek() != Tok::RBracket {
                    return Err(self.expected("`,` or `]`").with_secondary(t, "this `[` is not closed"));
                }
                self.bump();
                self.leave();
                SurfaceOperand::Tuple(exact(elems), t.to(self.prev_span()))
            }
            Tok::LParen => {
                let params = self.params()?;
                let sname = self.sname_opt()?;
                if *self.peek() != Tok::LBrace {
                    return Err(self.expected("`{` (only a lambda in last position may omit its braces)"));
                }
                SurfaceOperand::Lambda(Box::new(self.braced_lambda_rest(params, sname, t)?))
            }
            _ => return Err(self.expected("an operand")),
        })
    }

    fn params(&mut self) -> PResult<Params> {
        self.expect(Tok::LParen, "`(`")?;
        let mut params = Params::new();
        loop {
            match self.peek() {
                Tok::RParen => {
                    self.bump();
                    break;
                }
                Tok::Bang => {
                    self.bump();
                    params.push(SurfaceParam {
                        name: self.ident()?,
                        rest: true,
                    });
                }
                Tok::Ident => params.push(SurfaceParam {
                    name: self.ident()?,
                    rest: false,
                }),
                _ => return Err(self.expected("a parameter name, `!rest` or `)`")),
            }
            self.eat(Tok::Comma);
        }
        Ok(params)
    }

    fn sname_opt(&mut self) -> PResult<Option<Ident>> {
        if *self.peek() == Tok::LBracket && *self.peek_at(1) == Tok::Ident && *self.peek_at(2) == Tok::RBracket {
            self.bump();
            let id = self.ident()?;
            self.bump();
            return Ok(Some(id));
        }
        Ok(None)
    }

    /// The `{ body }` of a lambda whose parameters were just read.
    fn braced_lambda_rest(&mut self, params: Params, sname: Option<Ident>, start: Span) -> PResult<SurfaceLambda> {
        self.enter()?;
        let open = self.expect(Tok::LBrace, "`{`")?.span;
        let body = self.body()?;
        if *self.peek() != Tok::RBrace {
            return Err(self.expected("`}`").with_secondary(open, "this `{` is not closed"));
        }
        self.bump();
        self.leave();
        Ok(SurfaceLambda {
            params,
            sname,
            body,
            span: start.to(self.prev_span()),
        })
    }

    fn stage_opt(&mut self) -> PResult<Option<SurfaceSExp>> {
        if !self.eat(Tok::At) {
            return Ok(None);
        }
        let e = self.sexp()?;
        self.expect(Tok::Colon, "`:` after the staging expression")?;
        Ok(Some(e))
    }

    fn sexp(&mut self) -> PResult<SurfaceSExp> {
        let mut left = self.sand()?;
        while self.eat(Tok::Bar) {
            let right = self.sand()?;
            left = SurfaceSExp::Or(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn sand(&mut self) -> PResult<SurfaceSExp> {
        let mut left = self.snot()?;
        while self.eat(Tok::Amp) {
            let right = self.snot()?;
            left = SurfaceSExp::And(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn snot(&mut self) -> PResult<SurfaceSExp> {
        let t = self.span();
        match self.peek() {
            Tok::Bang => {
                self.enter()?;
                self.bump();
                let inner = self.snot()?;
                self.leave();
                Ok(SurfaceSExp::Not(Box::new(inner), t))
            }
            Tok::Always => {
                self.bump();
                Ok(SurfaceSExp::Const(true, t))
            }
            Tok::Never => {
                self.bump();
                Ok(SurfaceSExp::Const(false, t))
            }
            Tok::Ident => Ok(SurfaceSExp::Name(self.ident()?)),
            Tok::LParen => {
                self.enter()?;
                self.bump();
                let e = self.sexp()?;
                self.expect(Tok::RParen, "`)`")?;
                self.leave();
                Ok(e)
            }
            _ => Err(self.expected("a staging expression (a name, `always`, `never`, `!`, `(`)")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> PResult<File> {
        parse_file(text, FileId(0))
    }

    #[test]
    fn a_lexing_error_after_the_parsed_text_is_reported() {
        // "f x" parses on its own; the stray character after it must not be
        // taken for the end of the file.
        let e = parse("f x\n# y\n").err().map(|d| d.message);
        assert_eq!(e.as_deref(), Some("unexpected character `#`"));
    }

    #[test]
    fn a_lexing_error_wins_over_an_earlier_parse_error() {
        let e = parse("f ( x\ng \"abc\n").err().map(|d| d.message);
        assert_eq!(e.as_deref(), Some("unterminated expression string"));
    }

    #[test]
    fn a_staged_definition_is_told_from_a_staged_statement() {
        let f = parse("@always: let x = 1\n@always: f x\n").expect("parses");
        assert_eq!(f.defs.len(), 1);
        assert!(matches!(&f.defs[0], Def::Let { stage: Some(_), .. }));
        assert!(matches!(&f.main, Some(SurfaceBody::App { stage: Some(_), .. })));
        let f = parse("@a & !b: f x\n").expect("parses");
        assert!(f.defs.is_empty());
    }

    #[test]
    fn a_name_read_twice_shares_its_text() {
        let f = parse("f x x\n").expect("parses");
        let Some(SurfaceBody::App { args, .. }) = &f.main else {
            panic!("an application")
        };
        let names: Vec<&Arc<str>> = args
            .iter()
            .filter_map(|a| match a {
                SurfaceArg::Operand(SurfaceOperand::Name(i)) => Some(&i.name),
                _ => None,
            })
            .collect();
        assert_eq!(names.len(), 2);
        assert!(Arc::ptr_eq(names[0], names[1]));
    }

    #[test]
    fn operand_spans_find_the_application_at_a_place() {
        let text = "f x (a)\ng 1 (y) { y }\n";
        let start = text.find('g').expect("g");
        let (spans, is_if) = operand_spans(text, FileId(0), start).expect("an application");
        assert!(!is_if);
        let shown: Vec<&str> = spans.iter().map(|s| &text[s.range()]).collect();
        assert_eq!(shown, ["g", "1", "(y) { y }"]);
        assert!(operand_spans(text, FileId(0), start + 1).is_none());
    }
}
