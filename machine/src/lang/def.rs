//! The text of a language definition (`language.lang`) read into a
//! [`Definition`]: its header lines, its tokens, what the input skips and
//! its rules, every part with its place for diagnostics.
//!
//! ```text
//! file    ::= item*
//! item    ::= 'language' NAME | 'actions' STRING | 'inputs' STRING
//!           | 'start' NAME | 'end' NAME
//!           | 'skip' ('whitespace' | 'line' STRING | 'block' STRING STRING)
//!           | 'token' NAME ('number' | 'name')
//!           | 'rule' NAME '=' alt ';'
//! alt     ::= seq ('|' seq)*
//! seq     ::= postfix+
//! postfix ::= primary ('?' | '*' | '+')?
//! primary ::= STRING | (NAME ':')? NAME | 'epsilon' | '(' alt ')'
//!           | ('@' | '^') NAME ('(' NAME (',' NAME)* ')')?
//! ```
//!
//! `//` starts a comment to the end of the line. Nesting of brackets is
//! bounded ([`MAX_DEF_NESTING`]) so that a hostile definition cannot
//! overflow the stack.

use crate::diag::Diagnostic;
use crate::span::{FileId, Span};

/// How deeply brackets may nest in a definition.
pub const MAX_DEF_NESTING: usize = 200;

/// A name with its place.
#[derive(Clone, Debug)]
pub struct Named {
    /// The text.
    pub name: String,
    /// Where it stands.
    pub span: Span,
}

/// What a token class matches in the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// Decimal digits; the value is an integer.
    Number,
    /// `[A-Za-z_][A-Za-z0-9_]*`, not a keyword; the value is a string.
    Name,
}

/// What the input skips between tokens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Skip {
    /// Spaces, tabs and newlines.
    Whitespace,
    /// From the marker to the end of the line.
    Line(String),
    /// From the opening marker to the closing one.
    Block(String, String),
}

/// A part of a production.
#[derive(Clone, Debug)]
pub enum Expr {
    /// A keyword or symbol, written quoted.
    Lit(String, Span),
    /// A name: a token class or a rule (told apart by the checker).
    Ref(Named),
    /// `label:TOKEN`: a token whose value an action takes by its label.
    Label(Named, Named),
    /// `epsilon`: nothing.
    Empty(Span),
    /// An action call: `@f(args)` here, `^f(args)` before everything the
    /// rule has produced so far (pre-order).
    Action {
        /// The action.
        name: Named,
        /// Token classes or labels whose latest values (in this rule) are
        /// passed.
        args: Vec<Named>,
        /// Written `^`.
        hoist: bool,
        /// The whole call.
        span: Span,
    },
    /// Parts one after the other.
    Seq(Vec<Expr>, Span),
    /// The first alternative that matches.
    Alt(Vec<Expr>, Span),
    /// `e?`.
    Opt(Box<Expr>, Span),
    /// `e*`.
    Star(Box<Expr>, Span),
    /// `e+`.
    Plus(Box<Expr>, Span),
}

impl Expr {
    /// Where the part is written.
    pub fn span(&self) -> Span {
        match self {
            Expr::Lit(_, s) | Expr::Empty(s) | Expr::Seq(_, s) | Expr::Alt(_, s) => *s,
            Expr::Opt(_, s) | Expr::Star(_, s) | Expr::Plus(_, s) => *s,
            Expr::Ref(n) => n.span,
            Expr::Label(l, n) => l.span.to(n.span),
            Expr::Action { span, .. } => *span,
        }
    }
}

/// A rule: `rule NAME = alt ;`.
#[derive(Clone, Debug)]
pub struct Rule {
    /// Its name.
    pub name: Named,
    /// Its production.
    pub body: Expr,
}

/// A token class: `token NAME number|name`.
#[derive(Clone, Debug)]
pub struct TokenDef {
    /// Its name.
    pub name: Named,
    /// What it matches.
    pub pattern: Pattern,
}

/// A language definition as written.
#[derive(Clone, Debug, Default)]
pub struct Definition {
    /// `language NAME`.
    pub language: Option<Named>,
    /// `actions "FILE"`: the actions file, relative to the folder.
    pub actions: Option<Named>,
    /// `inputs ".EXT"`: how the language's input files end.
    pub inputs: Option<Named>,
    /// `start NAME`: the action called first (default `start`).
    pub start: Option<Named>,
    /// `end NAME`: the action called last (default `end`).
    pub end: Option<Named>,
    /// What the input skips.
    pub skips: Vec<(Skip, Span)>,
    /// Token classes.
    pub tokens: Vec<TokenDef>,
    /// Rules; the first is where parsing starts.
    pub rules: Vec<Rule>,
}

#[derive(Clone, Debug, PartialEq)]
enum T {
    Name(String),
    Str(String),
    Sym(char),
    Eof,
}

struct P<'a> {
    toks: Vec<(T, Span)>,
    pos: usize,
    depth: usize,
    _text: &'a str,
}

type R<T> = Result<T, Diagnostic>;

/// Reads the definition in `text` (file `file`).
pub fn parse_definition(text: &str, file: FileId) -> R<Definition> {
    let toks = lex(text, file)?;
    let mut p = P {
        toks,
        pos: 0,
        depth: 0,
        _text: text,
    };
    p.file()
}

fn lex(text: &str, file: FileId) -> R<Vec<(T, Span)>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if text[i..].starts_with("//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let s = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push((T::Name(text[s..i].to_string()), Span::new(file, s, i)));
        } else if c == b'"' {
            let s = i;
            i += 1;
            while i < b.len() && b[i] != b'"' && b[i] != b'\n' {
                i += 1;
            }
            if i >= b.len() || b[i] != b'"' {
                return Err(Diagnostic::error(
                    "lang",
                    "this string is not closed",
                    Span::new(file, s, i),
                    "a `\"` is missing before the end of the line",
                ));
            }
            i += 1;
            out.push((T::Str(text[s + 1..i - 1].to_string()), Span::new(file, s, i)));
        } else if "=;|?*+()@^,:".contains(c as char) {
            out.push((T::Sym(c as char), Span::new(file, i, i + 1)));
            i += 1;
        } else {
            let ch = text[i..].chars().next().unwrap_or('?');
            return Err(Diagnostic::error(
                "lang",
                format!("unexpected character `{ch}` in the language definition"),
                Span::new(file, i, i + ch.len_utf8()),
                "not part of the definition's syntax",
            ));
        }
    }
    out.push((T::Eof, Span::new(file, text.len(), text.len())));
    Ok(out)
}

fn describe(t: &T) -> String {
    match t {
        T::Name(n) => format!("`{n}`"),
        T::Str(s) => format!("\"{s}\""),
        T::Sym(c) => format!("`{c}`"),
        T::Eof => "the end of the file".to_string(),
    }
}

impl P<'_> {
    fn peek(&self) -> &T {
        &self.toks[self.pos.min(self.toks.len() - 1)].0
    }
    fn span(&self) -> Span {
        self.toks[self.pos.min(self.toks.len() - 1)].1
    }
    fn prev_span(&self) -> Span {
        self.toks[self.pos.saturating_sub(1).min(self.toks.len() - 1)].1
    }
    fn bump(&mut self) -> (T, Span) {
        let t = self.toks[self.pos.min(self.toks.len() - 1)].clone();
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
        t
    }
    fn error(&self, what: &str) -> Diagnostic {
        Diagnostic::error(
            "lang",
            format!("expected {what}, found {}", describe(self.peek())),
            self.span(),
            format!("expected {what}"),
        )
    }
    fn name(&mut self, what: &str) -> R<Named> {
        match self.peek().clone() {
            T::Name(name) => {
                let span = self.bump().1;
                Ok(Named { name, span })
            }
            _ => Err(self.error(what)),
        }
    }
    fn string(&mut self, what: &str) -> R<Named> {
        match self.peek().clone() {
            T::Str(name) => {
                let span = self.bump().1;
                Ok(Named { name, span })
            }
            _ => Err(self.error(what)),
        }
    }
    fn sym(&mut self, c: char) -> R<Span> {
        if *self.peek() == T::Sym(c) {
            Ok(self.bump().1)
        } else {
            Err(self.error(&format!("`{c}`")))
        }
    }

    fn file(&mut self) -> R<Definition> {
        let mut d = Definition::default();
        loop {
            let (t, span) = (self.peek().clone(), self.span());
            let T::Name(word) = t else {
                if t == T::Eof {
                    return Ok(d);
                }
                return Err(self.error("`rule`, `token`, `skip` or a header line (`language`, `actions`, `inputs`, `start`, `end`)"));
            };
            self.bump();
            let once = |slot: &mut Option<Named>, v: Named| -> R<()> {
                if let Some(old) = slot {
                    return Err(
                        Diagnostic::error("lang", format!("`{word}` is given twice"), span, "given again here")
                            .with_secondary(old.span, "first given here"),
                    );
                }
                *slot = Some(v);
                Ok(())
            };
            match word.as_str() {
                "language" => once(&mut d.language, self.name("the language's name")?)?,
                "actions" => once(&mut d.actions, self.string("the actions file, quoted")?)?,
                "inputs" => once(&mut d.inputs, self.string("the input files' ending, quoted (\".arith\")")?)?,
                "start" => once(&mut d.start, self.name("the start action's name")?)?,
                "end" => once(&mut d.end, self.name("the end action's name")?)?,
                "skip" => {
                    let kind = self.name("`whitespace`, `line` or `block`")?;
                    let skip = match kind.name.as_str() {
                        "whitespace" => Skip::Whitespace,
                        "line" => Skip::Line(self.marker()?),
                        "block" => {
                            let open = self.marker()?;
                            Skip::Block(open, self.marker()?)
                        }
                        _ => {
                            return Err(Diagnostic::error(
                                "lang",
                                format!("`skip {}` is not a kind of skipping", kind.name),
                                kind.span,
                                "expected `whitespace`, `line \"//\"` or `block \"/*\" \"*/\"`",
                            ))
                        }
                    };
                    d.skips.push((skip, span.to(self.prev_span())));
                }
                "token" => {
                    let name = self.name("the token's name")?;
                    let pat = self.name("`number` or `name`")?;
                    let pattern = match pat.name.as_str() {
                        "number" => Pattern::Number,
                        "name" => Pattern::Name,
                        _ => {
                            return Err(Diagnostic::error(
                                "lang",
                                format!("`{}` is not a token pattern", pat.name),
                                pat.span,
                                "expected `number` (decimal digits) or `name` (letters, digits, `_`)",
                            ))
                        }
                    };
                    d.tokens.push(TokenDef { name, pattern });
                }
                "rule" => {
                    let name = self.name("the rule's name")?;
                    self.sym('=')?;
                    let body = self.alt()?;
                    self.sym(';').map_err(|e| e.with_note("a rule ends with `;`"))?;
                    d.rules.push(Rule { name, body });
                }
                _ => {
                    return Err(Diagnostic::error(
                        "lang",
                        format!("`{word}` does not start a line of a language definition"),
                        span,
                        "expected `rule`, `token`, `skip`, `language`, `actions`, `inputs`, `start` or `end`",
                    ))
                }
            }
        }
    }

    fn marker(&mut self) -> R<String> {
        let s = self.string("a quoted marker")?;
        if s.name.is_empty() {
            return Err(Diagnostic::error(
                "lang",
                "an empty marker",
                s.span,
                "a marker needs at least one character",
            ));
        }
        Ok(s.name)
    }

    fn alt(&mut self) -> R<Expr> {
        self.depth += 1;
        if self.depth > MAX_DEF_NESTING {
            return Err(Diagnostic::error(
                "lang",
                format!("brackets nest more than {MAX_DEF_NESTING} deep"),
                self.span(),
                "nested too deeply",
            ));
        }
        let start = self.span();
        let mut alts = vec![self.seq()?];
        while *self.peek() == T::Sym('|') {
            self.bump();
            alts.push(self.seq()?);
        }
        self.depth -= 1;
        let span = start.to(self.prev_span());
        Ok(if alts.len() == 1 {
            alts.pop().unwrap_or(Expr::Empty(span))
        } else {
            Expr::Alt(alts, span)
        })
    }

    fn seq(&mut self) -> R<Expr> {
        let start = self.span();
        let mut items = Vec::new();
        while let Some(e) = self.postfix()? {
            items.push(e);
        }
        if items.is_empty() {
            return Err(self.error("a part of the rule (write `epsilon` for nothing)"));
        }
        let span = start.to(self.prev_span());
        Ok(if items.len() == 1 {
            items.pop().unwrap_or(Expr::Empty(span))
        } else {
            Expr::Seq(items, span)
        })
    }

    fn postfix(&mut self) -> R<Option<Expr>> {
        let Some(e) = self.primary()? else { return Ok(None) };
        let span = e.span();
        Ok(Some(match self.peek() {
            T::Sym('?') => Expr::Opt(Box::new(e), span.to(self.bump().1)),
            T::Sym('*') => Expr::Star(Box::new(e), span.to(self.bump().1)),
            T::Sym('+') => Expr::Plus(Box::new(e), span.to(self.bump().1)),
            _ => e,
        }))
    }

    fn primary(&mut self) -> R<Option<Expr>> {
        let span = self.span();
        match self.peek().clone() {
            T::Str(s) => {
                self.bump();
                if s.is_empty() || s.chars().any(char::is_whitespace) {
                    return Err(Diagnostic::error(
                        "lang",
                        format!("\"{s}\" cannot be a keyword or symbol"),
                        span,
                        "a keyword or symbol is one or more characters without spaces",
                    ));
                }
                Ok(Some(Expr::Lit(s, span)))
            }
            T::Name(n) if n == "epsilon" => {
                self.bump();
                Ok(Some(Expr::Empty(span)))
            }
            // The words that start a line end a rule whose `;` is missing.
            T::Name(n) if matches!(n.as_str(), "rule" | "token" | "skip") => Ok(None),
            T::Name(n) => {
                self.bump();
                let named = Named { name: n, span };
                if *self.peek() == T::Sym(':') {
                    self.bump();
                    let token = self.name("the token the label names")?;
                    return Ok(Some(Expr::Label(named, token)));
                }
                Ok(Some(Expr::Ref(named)))
            }
            T::Sym('(') => {
                self.bump();
                let e = self.alt()?;
                let full = span.to(self.sym(')')?);
                // A bracketed sequence or choice is placed with its brackets.
                Ok(Some(match e {
                    Expr::Seq(items, _) => Expr::Seq(items, full),
                    Expr::Alt(alts, _) => Expr::Alt(alts, full),
                    other => other,
                }))
            }
            T::Sym(c @ ('@' | '^')) => {
                self.bump();
                let name = self.name("the action's name")?;
                let mut args = Vec::new();
                if *self.peek() == T::Sym('(') && self.span().start == name.span.end {
                    self.bump();
                    loop {
                        args.push(self.name("a token name (its latest value in this rule is passed)")?);
                        if *self.peek() == T::Sym(',') {
                            self.bump();
                            continue;
                        }
                        self.sym(')')?;
                        break;
                    }
                }
                Ok(Some(Expr::Action {
                    name,
                    args,
                    hoist: c == '^',
                    span: span.to(self.prev_span()),
                }))
            }
            _ => Ok(None),
        }
    }
}
