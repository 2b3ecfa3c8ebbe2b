//! The comments and blank lines of a source file put back into its
//! canonical text, which the printer makes without them (`deepcps fmt`).
//!
//! The canonical text is lexed and its tokens are matched with those of the
//! source by an alignment of the two sequences (`align`): the printer drops braces of tail
//! lambdas, quotes and natural `@e:` prefixes and may rename a binder, but
//! otherwise prints what was written, in the same order. Then:
//!
//! - a printed line that begins a statement (not the first line, not a
//!   line that closes a brace, not the first line of a block) gets a blank
//!   line before it when the source has one or more blank lines right
//!   before its first token (`with_blank_lines`). Without the comments, a
//!   blank line anywhere between that token and the code before it counts;
//!   with them, a blank line around a comment on its own line goes with
//!   that comment (below);
//! - a comment with code before it on its source line is *trailing*: it goes
//!   at the end of the printed line that holds the last matched token before
//!   it;
//! - any other comment is *leading*: it goes on a line of its own, indented
//!   like the printed line that holds the first matched token after it, just
//!   before that line (at the end of the text when no token follows). A
//!   blank line before or after it in the source is kept (one).
//!
//! Comments keep their order and their text (a line comment loses trailing
//! whitespace). Formatting the result again changes nothing: its tokens are
//! the canonical ones, so every comment and blank line finds the same
//! anchor.

use crate::diag::Diagnostic;
use crate::span::{FileId, Span};
use crate::syntax::lexer::{lex_with_comments, Tok, Token};

/// Where a comment goes in the canonical text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    /// At the end of the line whose `\n` is at this offset.
    LineEnd(usize),
    /// On a line of its own before the line that starts at this offset.
    LineStart(usize),
}

impl Place {
    /// The offset in the canonical text it stands at.
    fn offset(self) -> usize {
        match self {
            Place::LineEnd(k) | Place::LineStart(k) => k,
        }
    }
}

/// A comment of the source and where it goes.
struct Placed<'s> {
    text: &'s str,
    place: Place,
    blank_before: bool,
    blank_after: bool,
}

/// `canonical`, the printed form of the source `source` (the file `file`),
/// with the blank lines of `source` put back, and its comments if
/// `keep_comments`. An error if the source does not lex, or (which the
/// checks of the result rule out) if the comments could not be put back
/// leaving the canonical tokens as they are.
pub fn weave(source: &str, file: FileId, canonical: &str, keep_comments: bool) -> Result<String, Diagnostic> {
    let all = lex_with_comments(source, file)?;
    let items: Vec<&Token> = all.iter().filter(|t| t.tok != Tok::Eof).collect();
    let (comments, code): (Vec<&Token>, Vec<&Token>) = items.iter().copied().partition(|t| t.tok.is_comment());
    let failed = |span: Span| {
        Diagnostic::error("fmt", "cannot keep this comment in place", span, "this comment")
            .with_note("pass --drop-comments to format the file without its comments")
    };
    let lex_printed = |text: &str| -> Option<Vec<Token>> {
        lex_with_comments(text, file)
            .ok()
            .map(|ts| ts.into_iter().filter(|t| t.tok != Tok::Eof).collect())
    };
    let Some(printed) = lex_printed(canonical) else {
        return match comments.first() {
            Some(c) if keep_comments => Err(failed(c.span)),
            _ => Ok(canonical.to_string()),
        };
    };
    let matched = match_tokens(source, &code, canonical, &printed);
    let mut canonical = with_blank_lines(source, &items, &matched, canonical, &printed, keep_comments);
    if !keep_comments || comments.is_empty() {
        return Ok(canonical);
    }
    if !canonical.ends_with('\n') {
        canonical.push('\n');
    }
    // The same tokens, at the places the blank lines moved them to.
    let printed: Vec<Token> = match lex_printed(&canonical) {
        Some(ts) => ts,
        None => return Err(failed(comments[0].span)),
    };
    let placed = place(source, &all, &matched, &printed, &canonical);
    let woven = emit(&canonical, &placed);
    // The result must hold the canonical tokens and the comments, in order.
    let expected: Vec<(Tok, &str)> = printed.iter().map(|t| (t.tok.clone(), &canonical[t.span.range()])).collect();
    let texts: Vec<&str> = placed.iter().map(|p| p.text).collect();
    let ok = lex_with_comments(&woven, file).is_ok_and(|ts| {
        let (cs, ts): (Vec<Token>, Vec<Token>) = ts.into_iter().filter(|t| t.tok != Tok::Eof).partition(|t| t.tok.is_comment());
        let got: Vec<(Tok, &str)> = ts.iter().map(|t| (t.tok.clone(), &woven[t.span.range()])).collect();
        let got_texts: Vec<&str> = cs.iter().map(|t| woven[t.span.range()].trim_end()).collect();
        got == expected && got_texts == texts
    });
    if ok {
        Ok(woven)
    } else {
        Err(failed(comments[0].span))
    }
}

/// `canonical` (lexed as `printed`) with one blank line before each line
/// that begins a statement where the source has blank lines before the
/// token that begins it (`items`: the source's tokens and comments;
/// `matched`: the printed token of each code token). With
/// `keep_comments`, only the gap between that token and the item just
/// before it counts, and none after a comment on its own line, whose blank
/// lines [`emit`] keeps; without, a blank line anywhere since the code
/// before it.
fn with_blank_lines(
    source: &str,
    items: &[&Token],
    matched: &[Option<usize>],
    canonical: &str,
    printed: &[Token],
    keep_comments: bool,
) -> String {
    let mut at: Vec<usize> = Vec::new();
    let mut code_ix = 0usize;
    for (ix, item) in items.iter().enumerate() {
        if item.tok.is_comment() {
            continue;
        }
        let m = matched.get(code_ix).copied().flatten();
        code_ix += 1;
        let Some(j) = m else { continue };
        let start = printed[j].span.range().start;
        let line_start = canonical[..start].rfind('\n').map_or(0, |i| i + 1);
        if line_start == 0 || !canonical[line_start..start].bytes().all(|b| b == b' ') || printed[j].tok == Tok::RBrace {
            continue;
        }
        let before = &canonical[..line_start - 1];
        let previous_line = before.rsplit('\n').next().unwrap_or_default().trim_end();
        if previous_line.trim().is_empty() || previous_line.ends_with('{') {
            continue;
        }
        let here = item.span.range().start;
        let blank = if keep_comments {
            let Some(p) = ix.checked_sub(1) else { continue };
            if items[p].tok.is_comment() && !code_before_on_line(source, items, p) {
                continue;
            }
            source[items[p].span.range().end..here].matches('\n').count() >= 2
        } else {
            let Some(p) = items[..ix].iter().rposition(|t| !t.tok.is_comment()) else {
                continue;
            };
            // The gap with its comments masked: a line of a comment is
            // not blank.
            let mut gap = String::new();
            let mut from = items[p].span.range().end;
            for c in &items[p + 1..ix] {
                gap.push_str(&source[from..c.span.range().start]);
                gap.push('c');
                from = c.span.range().end;
            }
            gap.push_str(&source[from..here]);
            let lines: Vec<&str> = gap.split('\n').collect();
            lines.len() > 2 && lines[1..lines.len() - 1].iter().any(|l| l.trim().is_empty())
        };
        if blank {
            at.push(line_start);
        }
    }
    at.sort_unstable();
    at.dedup();
    let mut out = String::with_capacity(canonical.len() + at.len());
    let mut done = 0;
    for k in at {
        out.push_str(&canonical[done..k]);
        out.push('\n');
        done = k;
    }
    out.push_str(&canonical[done..]);
    out
}

/// Whether code stands before item `ix` of `items` on its source line
/// (comments between allowed).
fn code_before_on_line(source: &str, items: &[&Token], ix: usize) -> bool {
    let mut k = ix;
    while k > 0 && !source[items[k - 1].span.range().end..items[k].span.range().start].contains('\n') {
        if !items[k - 1].tok.is_comment() {
            return true;
        }
        k -= 1;
    }
    false
}

/// For each token of `code` (in `source`), the index of the token of
/// `printed` (in `canonical`) it matches, if any. Tokens match when they are
/// of one kind and spelt alike; expression strings match whatever their
/// spelling (the printer reprints them).
fn match_tokens(source: &str, code: &[&Token], canonical: &str, printed: &[Token]) -> Vec<Option<usize>> {
    // A token's spelling gives its kind, but for expression strings.
    fn key<'t>(text: &'t str, t: &Token) -> &'t str {
        if t.tok == Tok::Str {
            "\""
        } else {
            &text[t.span.range()]
        }
    }
    let old: Vec<&str> = code.iter().map(|t| key(source, t)).collect();
    let new: Vec<&str> = printed.iter().map(|t| key(canonical, t)).collect();
    align(&old, &new)
}

/// How far [`align`] looks past a difference for the two sequences to
/// agree again, in tokens skipped on both sides together.
const RESYNC_WINDOW: usize = 48;

/// How many tokens must agree after a difference for [`align`] to take it
/// as the place where the sequences agree again.
const RESYNC_RUN: usize = 3;

/// For each token of `old`, the index of the token of `new` it is matched
/// with: equal tokens in order, in time linear in the lengths.
///
/// The printer changes little (it drops tokens and renames binders), so
/// the two sequences agree but for short stretches. Where they differ, the
/// alignment skips the fewest tokens (`a` of `old`, `b` of `new`, same
/// counts first, then dropped source tokens) after which
/// [`RESYNC_RUN`] tokens agree (or both sequences end), within
/// [`RESYNC_WINDOW`]; failing that, it steps past one token on each side.
/// Deterministic: the result depends on the tokens alone.
fn align(old: &[&str], new: &[&str]) -> Vec<Option<usize>> {
    let mut matched = vec![None; old.len()];
    let agree = |i: usize, j: usize| {
        (0..RESYNC_RUN).all(|k| match (old.get(i + k), new.get(j + k)) {
            (Some(x), Some(y)) => x == y,
            (None, None) => true,
            _ => false,
        })
    };
    // The skips to try, fewest tokens first; for as many, same counts first
    // (a renamed token), then more source tokens dropped than printed ones
    // added. The same for every difference: made once.
    let mut skips: Vec<(usize, usize)> = (1..=RESYNC_WINDOW).flat_map(|k| (0..=k).map(move |a| (a, k - a))).collect();
    skips.sort_by_key(|&(a, b)| (a + b, a.abs_diff(b), std::cmp::Reverse(a)));
    let (mut i, mut j) = (0, 0);
    while i < old.len() && j < new.len() {
        if old[i] == new[j] {
            matched[i] = Some(j);
            i += 1;
            j += 1;
            continue;
        }
        let (a, b) = skips.iter().copied().find(|&(a, b)| agree(i + a, j + b)).unwrap_or((1, 1));
        i += a;
        j += b;
    }
    matched
}

/// Where each comment of `all` (the source's tokens and comments) goes,
/// in source order and at places that never go back in the text.
fn place<'s>(source: &'s str, all: &[Token], matched: &[Option<usize>], printed: &[Token], canonical: &str) -> Vec<Placed<'s>> {
    let items: Vec<&Token> = all.iter().filter(|t| t.tok != Tok::Eof).collect();
    let mut out: Vec<Placed<'s>> = Vec::new();
    // Code tokens before the current item.
    let mut code_before = 0usize;
    // Line ends that hold a line comment: nothing more can follow on them.
    let mut closed: Option<usize> = None;
    for (ix, item) in items.iter().enumerate() {
        if !item.tok.is_comment() {
            code_before += 1;
            continue;
        }
        let range = item.span.range();
        let gap_before = match ix.checked_sub(1) {
            Some(p) => &source[items[p].span.range().end..range.start],
            None => "",
        };
        let gap_after = match items.get(ix + 1) {
            Some(n) => &source[range.end..n.span.range().start],
            None => "",
        };
        // Code before it on its line (other comments between allowed)?
        let after_code = code_before_on_line(source, &items, ix);
        let prev = matched[..code_before].iter().rev().find_map(|m| *m);
        let next = matched[code_before..].iter().find_map(|m| *m);
        let line_end = |j: usize| {
            let at = printed[j].span.range().end;
            canonical[at..].find('\n').map_or(canonical.len(), |i| at + i)
        };
        let line_start = |j: usize| {
            let at = printed[j].span.range().start;
            canonical[..at].rfind('\n').map_or(0, |i| i + 1)
        };
        let trailing = after_code && prev.is_some();
        let mut place = match (trailing, prev, next) {
            (true, Some(j), _) => Place::LineEnd(line_end(j)),
            (_, _, Some(j)) => Place::LineStart(line_start(j)),
            _ => Place::LineStart(canonical.len()),
        };
        if let Some(last) = out.last() {
            if place.offset() < last.place.offset() {
                place = last.place;
            }
        }
        if let Place::LineEnd(k) = place {
            if closed == Some(k) {
                place = Place::LineStart(k + 1);
            }
        }
        let line = item.tok == Tok::LineComment;
        if let (Place::LineEnd(k), true) = (place, line) {
            closed = Some(k);
        }
        let leading = matches!(place, Place::LineStart(_));
        out.push(Placed {
            text: source[range].trim_end(),
            place,
            blank_before: leading && ix > 0 && gap_before.matches('\n').count() >= 2,
            blank_after: leading && gap_after.matches('\n').count() >= 2,
        });
    }
    out
}

/// `canonical` with the comments inserted at their places.
fn emit(canonical: &str, placed: &[Placed<'_>]) -> String {
    let mut out = String::with_capacity(canonical.len() + placed.iter().map(|p| p.text.len() + 8).sum::<usize>());
    let mut done = 0usize;
    let mut i = 0;
    while i < placed.len() {
        let place = placed[i].place;
        let mut j = i;
        while j < placed.len() && placed[j].place == place {
            j += 1;
        }
        let group = &placed[i..j];
        let at = place.offset().min(canonical.len());
        out.push_str(&canonical[done..at]);
        done = at;
        match place {
            Place::LineEnd(_) => {
                for c in group {
                    out.push(' ');
                    out.push_str(c.text);
                }
            }
            Place::LineStart(_) => {
                let rest = &canonical[at..];
                let indent = &rest[..rest.len() - rest.trim_start_matches(' ').len()];
                for c in group {
                    if c.blank_before && !out.is_empty() && !out.ends_with("\n\n") {
                        out.push('\n');
                    }
                    out.push_str(indent);
                    out.push_str(c.text);
                    out.push('\n');
                }
                let blank_after = group.last().is_some_and(|c| c.blank_after);
                if blank_after && !rest.is_empty() && !rest.starts_with('\n') {
                    out.push('\n');
                }
            }
        }
        i = j;
    }
    out.push_str(&canonical[done..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Weaves the comments of `source` into `canonical` and checks the
    /// result against `expect`, then that weaving again changes nothing.
    fn check(source: &str, canonical: &str, expect: &str) {
        let woven = weave(source, FileId(0), canonical, true).expect("woven");
        assert_eq!(woven, expect, "source:\n{source}");
        let again = weave(&woven, FileId(0), canonical, true).expect("woven again");
        assert_eq!(again, woven, "not stable; source:\n{source}");
    }

    #[test]
    fn header_comments_and_blank_lines_stay() {
        check(
            "// A program.\n// expect: exit 3\n\nlet x = 3\n$exit x\n",
            "let x = 3\n$exit x\n",
            "// A program.\n// expect: exit 3\n\nlet x = 3\n$exit x\n",
        );
    }

    #[test]
    fn comments_between_statements_take_the_next_ones_indentation() {
        check(
            "let f(x, k) {\n    // double it\n  \"2*x\" (y)\n\n  /* and return */ k y }\n// go\nf 1 $exit\n",
            "let f(x, k) {\n  \"2*x\" (y)\n  k y\n}\nf 1 $exit\n",
            "let f(x, k) {\n  // double it\n  \"2*x\" (y)\n\n  /* and return */\n  k y\n}\n// go\nf 1 $exit\n",
        );
    }

    #[test]
    fn trailing_comments_stay_at_the_end_of_their_line() {
        check(
            "f x // about x\n  y /* y */ // and y\n",
            "f x y\n",
            "f x y // about x\n/* y */\n// and y\n",
        );
        check("g (a) { // the tail\n h a }\n", "g (a)\nh a\n", "g (a) // the tail\nh a\n");
    }

    #[test]
    fn comments_at_the_end_of_the_file_stay_there() {
        check("f x\n\n// the end\n", "f x\n", "f x\n\n// the end\n");
        check("f x /* a\n   b */\n", "f x\n", "f x /* a\n   b */\n");
    }

    #[test]
    fn blank_lines_between_statements_stay_one() {
        let canonical = "let a = 1\nlet f(x, k) {\n  k x\n}\nf a (r)\n$exit r\n";
        check(
            "let a = 1\n\n\n\nlet f(x,k) {\n\n k x }\n\nf a (r) $exit r\n",
            canonical,
            "let a = 1\n\nlet f(x, k) {\n  k x\n}\n\nf a (r)\n$exit r\n",
        );
        // Within a block too; none after `{` or before `}`.
        check(
            "let f(x,k) {\n  \"x+1\" (y)\n\n  k y\n\n}\nf 1 $exit\n",
            "let f(x, k) {\n  \"x+1\" (y)\n  k y\n}\nf 1 $exit\n",
            "let f(x, k) {\n  \"x+1\" (y)\n\n  k y\n}\nf 1 $exit\n",
        );
    }

    #[test]
    fn blank_lines_around_comments_stay_where_they_were() {
        let canonical = "let a = 1\nlet b = 2\n$exit b\n";
        for source in [
            "let a = 1\n\n// b\nlet b = 2\n$exit b\n",
            "let a = 1\n// b\n\nlet b = 2\n$exit b\n",
            "let a = 1 // a\n\nlet b = 2\n$exit b\n",
        ] {
            check(source, canonical, source);
        }
    }

    #[test]
    fn without_comments_a_blank_line_anywhere_before_a_statement_counts() {
        let canonical = "let a = 1\nlet b = 2\n$exit b\n";
        let drop = |source: &str| weave(source, FileId(0), canonical, false).expect("formatted");
        let spaced = "let a = 1\n\nlet b = 2\n$exit b\n";
        assert_eq!(drop("let a = 1\n// b\n\nlet b = 2\n$exit b\n"), spaced);
        assert_eq!(drop("let a = 1\n\n// b\nlet b = 2\n$exit b\n"), spaced);
        assert_eq!(drop(spaced), spaced);
        // A comment's own lines are not blank, however many it has.
        assert_eq!(drop("let a = 1\n/* b\n\n */\nlet b = 2\n$exit b\n"), canonical);
        assert_eq!(drop("let a = 1\n// b\nlet b = 2\n$exit b\n"), canonical);
    }

    #[test]
    fn text_without_comments_is_the_canonical_text() {
        check("f   x\n", "f x\n", "f x\n");
    }

    #[test]
    fn every_comment_of_a_long_file_keeps_its_line() {
        // Every `in` is dropped, so the sequences differ at every line.
        let n = 20_000;
        let source: String = (0..n).map(|i| format!("let a{i} = {i} in // c{i}\n")).collect::<String>() + "$exit a0\n";
        let canonical: String = (0..n).map(|i| format!("let a{i} = {i}\n")).collect::<String>() + "$exit a0\n";
        let expect: String = (0..n).map(|i| format!("let a{i} = {i} // c{i}\n")).collect::<String>() + "$exit a0\n";
        check(&source, &canonical, &expect);
    }

    #[test]
    fn renamed_and_dropped_tokens_do_not_lose_the_thread() {
        assert_eq!(align(&["f", "x", "y"], &["f", "x_1", "y"]), [Some(0), None, Some(2)]);
        assert_eq!(
            align(&["a", "in", "b", "c", "d"], &["a", "b", "c", "d"]),
            [Some(0), None, Some(1), Some(2), Some(3)]
        );
        assert_eq!(align(&["a", "b"], &["z", "a", "b"]), [Some(1), Some(2)]);
    }
}
