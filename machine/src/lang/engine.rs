//! The grammar engine: a top-down parser with ordered choice (a PEG) over
//! the input's tokens, interpreting the compiled [`Grammar`], that records
//! the action calls in the order a left-to-right parse meets them.
//!
//! Each rule invocation collects its calls: a call written `@f` goes after
//! what the rule has produced so far, one written `^f` before it (so a
//! left-associative chain `term ("+" ^add term)*` gives the pre-order
//! `add add 1 2 3` of `1+2+3`). An alternative that fails takes back what
//! it produced. Without memoisation a PEG can backtrack; on the grammars
//! whose alternatives differ in their first token (every shipped one) the
//! parse is linear. The engine recurses once per rule invocation and stops
//! with a diagnostic past [`MAX_DEPTH`] nested invocations.

use std::collections::BTreeSet;

use crate::diag::Diagnostic;
use crate::lang::grammar::{ArgRef, Grammar, G};
use crate::lang::scan::{Kind, Tok};
use crate::span::Span;

/// How deeply rule invocations may nest (brackets in the input, say).
pub const MAX_DEPTH: usize = 1_000;

/// One action call the parse made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Call {
    /// The action site of the grammar.
    pub site: u32,
    /// The tokens passed, as indices into the token list.
    pub args: Vec<usize>,
    /// The part of the input it was made for.
    pub place: Span,
}

enum Item {
    Call(Call),
    Sub(Vec<Item>),
}

/// What one rule invocation produced.
#[derive(Default)]
struct Frame {
    front: Vec<Item>,
    back: Vec<Item>,
    /// Tokens this invocation matched itself (not its sub-rules), with
    /// their labels.
    matched: Vec<(usize, Option<u32>)>,
}

impl Frame {
    fn mark(&self) -> (usize, usize, usize) {
        (self.front.len(), self.back.len(), self.matched.len())
    }
    fn reset(&mut self, m: (usize, usize, usize)) {
        self.front.truncate(m.0);
        self.back.truncate(m.1);
        self.matched.truncate(m.2);
    }
    fn into_items(mut self) -> Vec<Item> {
        self.front.reverse();
        self.front.extend(self.back);
        self.front
    }
}

struct Engine<'a> {
    g: &'a Grammar,
    toks: &'a [Tok],
    pos: usize,
    depth: usize,
    /// The furthest position a terminal failed at, and what was expected
    /// there.
    far: usize,
    expected: BTreeSet<String>,
    /// A failure that is no parse error (too deep, a missing argument).
    fatal: Option<Diagnostic>,
}

/// Parses `toks` by `g` from rule 0 to the end of the input; the calls in
/// order, or the diagnostic of the first place the input cannot be read.
pub fn parse(g: &Grammar, toks: &[Tok]) -> Result<Vec<Call>, Diagnostic> {
    let mut e = Engine {
        g,
        toks,
        pos: 0,
        depth: 0,
        far: 0,
        expected: BTreeSet::new(),
        fatal: None,
    };
    let mut top = Frame::default();
    let ok = e.rule(0, &mut top) && e.at_end();
    if let Some(d) = e.fatal.take() {
        return Err(d);
    }
    if !ok {
        return Err(e.parse_error());
    }
    let mut calls = Vec::new();
    // Flattened without recursion: a stack of item iterators.
    let mut stack = vec![top.into_items().into_iter()];
    while let Some(it) = stack.last_mut() {
        match it.next() {
            Some(Item::Call(c)) => calls.push(c),
            Some(Item::Sub(items)) => stack.push(items.into_iter()),
            None => {
                stack.pop();
            }
        }
    }
    Ok(calls)
}

impl Engine<'_> {
    fn kind(&self) -> Kind {
        self.toks.get(self.pos).map_or(Kind::Eof, |t| t.kind)
    }

    fn fail(&mut self, what: String) {
        if self.pos > self.far {
            self.far = self.pos;
            self.expected.clear();
        }
        if self.pos == self.far {
            self.expected.insert(what);
        }
    }

    fn at_end(&mut self) -> bool {
        if self.kind() == Kind::Eof {
            return true;
        }
        self.fail("the end of the input".to_string());
        false
    }

    fn describe(&self, k: Kind) -> String {
        match k {
            Kind::Lit(i) => format!("`{}`", self.g.lits[i as usize]),
            Kind::Class(i) => {
                let c = &self.g.classes[i as usize];
                match c.pattern {
                    crate::lang::def::Pattern::Number => format!("a number ({})", c.name),
                    crate::lang::def::Pattern::Name => format!("a name ({})", c.name),
                }
            }
            Kind::Eof => "the end of the input".to_string(),
        }
    }

    fn parse_error(&self) -> Diagnostic {
        let at = self.toks.get(self.far).or(self.toks.last());
        let (span, found) = match at {
            Some(t) => (t.span, self.describe(t.kind)),
            None => (Span::default(), "nothing".to_string()),
        };
        let list: Vec<&String> = self.expected.iter().collect();
        let expected = match list.as_slice() {
            [] => "something else".to_string(),
            [one] => (*one).clone(),
            [init @ .., last] => {
                let init: Vec<&str> = init.iter().map(|s| s.as_str()).collect();
                format!("{} or {last}", init.join(", "))
            }
        };
        Diagnostic::error(
            "parse",
            format!("expected {expected}, found {found}"),
            span,
            format!("expected {expected} here"),
        )
    }

    /// Invokes rule `r`; its calls go into `parent` as one item.
    fn rule(&mut self, r: u32, parent: &mut Frame) -> bool {
        if self.fatal.is_some() {
            return false;
        }
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            let span = self.toks.get(self.pos).map(|t| t.span).unwrap_or_default();
            self.fatal = Some(
                Diagnostic::error(
                    "input",
                    format!("the input nests more than {MAX_DEPTH} rules deep"),
                    span,
                    "nested too deeply here",
                )
                .with_note("the language's parser recurses once per nested rule, and stops here"),
            );
            return false;
        }
        let g = self.g;
        let mut frame = Frame::default();
        let start = self.pos;
        let ok = self.eval(&g.rules[r as usize].body, &mut frame, start);
        self.depth -= 1;
        if ok {
            parent.back.push(Item::Sub(frame.into_items()));
        }
        ok
    }

    /// Matches `e` at the current position; on failure the position and
    /// `frame` are as before. `from` is where the rule invocation began: an
    /// action's place in the input is the tokens it passes, or else runs
    /// from there to the last token read (`4*2` for the `mul` of
    /// `term = factor ("*" factor @mul)*`).
    fn eval(&mut self, e: &G, frame: &mut Frame, from: usize) -> bool {
        match e {
            G::Lit(i) => self.terminal(Kind::Lit(*i), None, frame),
            G::Class(i, label) => self.terminal(Kind::Class(*i), *label, frame),
            G::Rule(r) => self.rule(*r, frame),
            G::Empty => true,
            G::Action(s) => self.action(*s, frame, from),
            G::Seq(items) => {
                let (pos, mark) = (self.pos, frame.mark());
                for i in items {
                    if !self.eval(i, frame, from) {
                        self.pos = pos;
                        frame.reset(mark);
                        return false;
                    }
                }
                true
            }
            G::Alt(alts) => alts.iter().any(|a| self.eval(a, frame, from)) && self.fatal.is_none(),
            G::Opt(inner) => {
                self.eval(inner, frame, from);
                self.fatal.is_none()
            }
            G::Star(inner) => {
                while self.fatal.is_none() {
                    let pos = self.pos;
                    if !self.eval(inner, frame, from) || self.pos == pos {
                        break;
                    }
                }
                self.fatal.is_none()
            }
            G::Plus(inner) => {
                if !self.eval(inner, frame, from) {
                    return false;
                }
                while self.fatal.is_none() {
                    let pos = self.pos;
                    if !self.eval(inner, frame, from) || self.pos == pos {
                        break;
                    }
                }
                self.fatal.is_none()
            }
        }
    }

    fn terminal(&mut self, k: Kind, label: Option<u32>, frame: &mut Frame) -> bool {
        if self.kind() == k {
            frame.matched.push((self.pos, label));
            self.pos += 1;
            true
        } else {
            let what = self.describe(k);
            self.fail(what);
            false
        }
    }

    fn action(&mut self, s: u32, frame: &mut Frame, from: usize) -> bool {
        let site = &self.g.sites[s as usize];
        let mut args = Vec::with_capacity(site.args.len());
        for &arg in &site.args {
            let found = frame.matched.iter().rev().find(|&&(t, label)| match arg {
                ArgRef::Label(l) => label == Some(l),
                ArgRef::Class(c) => self.toks.get(t).is_some_and(|tok| tok.kind == Kind::Class(c)),
            });
            match found {
                Some(&(t, _)) => args.push(t),
                None => {
                    let span = self.toks.get(self.pos).map(|t| t.span).unwrap_or_default();
                    let what = match arg {
                        ArgRef::Class(c) => format!("a {} token", self.g.classes[c as usize].name),
                        ArgRef::Label(l) => format!("the token labelled `{}`", self.g.labels[l as usize]),
                    };
                    self.fatal = Some(Diagnostic::error(
                        "input",
                        format!("the action `{}` needs {what}, and this part of its rule matched none", site.action),
                        span,
                        "the action is called here",
                    ));
                    return false;
                }
            }
        }
        let place = if let (Some(&first), Some(&last)) = (args.iter().min(), args.iter().max()) {
            // The tokens it passes.
            self.toks[first].span.to(self.toks[last].span)
        } else if self.pos > from {
            let first = self.toks[from].span;
            first.to(self.toks[self.pos - 1].span)
        } else {
            self.toks.get(self.pos).map(|t| t.span).unwrap_or_default()
        };
        let call = Item::Call(Call { site: s, args, place });
        if site.hoist {
            frame.front.push(call);
        } else {
            frame.back.push(call);
        }
        true
    }
}
