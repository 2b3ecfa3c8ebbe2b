//! Expectations a program states about its own run, in directives in its
//! leading comments, and the verdict of a run against them.
//!
//! The directives sit in the `//` comment lines at the top of a file (up to
//! the first line that is neither such a comment nor blank), one per line:
//!
//! | directive | meaning |
//! |---|---|
//! | `// expect: exit` | the run ends with `$exit` |
//! | `// expect: exit VALUE` | ... and the printed value is `VALUE` |
//! | `// expect: residual` | the run ends with no body pending |
//! | `// expect: error KIND` or `// expect-error: KIND` | the run stops with the runtime error `KIND` |
//! | `// expect: static-error` or `// expect-static-error` | loading fails (parse or static error) |
//! | `// max-steps: N` | the step limit of the run |
//! | `// threads: N` | the reduction threads the program is run with |
//! | `// scale: VAR SIZE.. [size 2^VAR]` | a scaling family: `let VAR = ..` is its size line, and these are the values to try; `size 2^VAR`: the program's size is 2 to that power |
//!
//! A comment line is taken as a directive when it starts with one of these
//! keys, with any lowercase word holding a hyphen followed by a colon, or
//! with a word and a colon that is a small edit away from a key: those are
//! unknown directives, errors that name the nearest key (`// expext: exit
//! 42`: "unknown directive `expext`; did you mean `expect`?"), so that a
//! misspelt directive is not silently prose. Other comments (`// run: two
//! continuations ..`, `// Note: ..`) are prose. [`Expectations::parse`] is
//! pure; [`verdict`] compares what a run gave with what was expected.

use std::fmt;

use crate::diag::{Diagnostic, Severity};
use crate::error::ErrorKind;
use crate::span::{FileId, Span};

/// How a program's run must end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expected {
    /// `$exit` fires; with `Some(text)`, its printed value must be `text`.
    Exit(Option<String>),
    /// No body is left pending: the result is a residual program.
    Residual,
    /// The run stops with a runtime error of this kind.
    Error(ErrorKind),
    /// The program does not load (a parse or static error).
    StaticError,
}

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expected::Exit(None) => write!(f, "exit"),
            Expected::Exit(Some(v)) => write!(f, "exit {v}"),
            Expected::Residual => write!(f, "residual"),
            Expected::Error(k) => write!(f, "error {}", k.name()),
            Expected::StaticError => write!(f, "static-error"),
        }
    }
}

/// A scaling family: the variable of its size line and the sizes to run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scale {
    /// The name in the program's `let VAR = NUMBER` line.
    pub var: String,
    /// The sizes to substitute, as written.
    pub sizes: Vec<u64>,
    /// Whether the program's size is `2^VAR` (`scale: D 8 10 12 size 2^D`):
    /// a tree of depth `D` has `2^D` leaves. Growth is fitted and drawn
    /// against the size, not against `VAR`.
    pub power_of_two: bool,
}

impl Scale {
    /// The program's size when `VAR` is `value` (saturating).
    pub fn size_of(&self, value: u64) -> u64 {
        if self.power_of_two {
            u32::try_from(value).ok().and_then(|v| 1u64.checked_shl(v)).unwrap_or(u64::MAX)
        } else {
            value
        }
    }
}

/// Everything the directives of one program say.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Expectations {
    /// How the run must end; `None` when no directive says (then any
    /// result, an exit value or a residual, passes).
    pub outcome: Option<Expected>,
    /// The step limit.
    pub max_steps: Option<u64>,
    /// The reduction threads.
    pub threads: Option<usize>,
    /// The scaling family the program is, if any.
    pub scale: Option<Scale>,
}

/// A malformed or unknown directive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DirectiveError {
    /// The line, counted from 1.
    pub line: usize,
    /// What is wrong.
    pub message: String,
    /// The byte range of the directive (the comment's text after `//`) in
    /// the program's text.
    pub at: std::ops::Range<usize>,
}

impl DirectiveError {
    /// The error as a diagnostic of `severity` in `file`, whose text is the
    /// one parsed.
    pub fn diagnostic(&self, file: FileId, severity: Severity) -> Diagnostic {
        let span = Span::new(file, self.at.start, self.at.end);
        let d = Diagnostic::error("directive", self.message.clone(), span, "a directive in the leading comments");
        Diagnostic { severity, ..d }
    }
}

impl fmt::Display for DirectiveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for DirectiveError {}

/// The directive keys.
const KEYS: [&str; 6] = ["expect", "expect-error", "expect-static-error", "max-steps", "threads", "scale"];

/// What the expectation of a program without outcome directives is called.
pub const NO_EXPECTATION: &str = "none";

impl Expectations {
    /// Reads the directives of the program `text`.
    pub fn parse(text: &str) -> Result<Expectations, DirectiveError> {
        let mut e = Expectations::default();
        let mut seen: Vec<(&str, usize)> = Vec::new();
        let mut offset = 0;
        for (ix, raw) in text.split_inclusive('\n').enumerate() {
            let line = ix + 1;
            let line_start = offset;
            offset += raw.len();
            let l = raw.trim();
            if l.is_empty() {
                continue;
            }
            let Some(comment) = l.strip_prefix("//") else {
                break;
            };
            let comment = comment.trim_start_matches('/').trim();
            let Some((key, value)) = split_directive(comment) else {
                continue;
            };
            // `comment` is a slice of `text`.
            let start = comment.as_ptr() as usize - text.as_ptr() as usize;
            let at = start..start + comment.len();
            debug_assert!(at.start >= line_start && at.end <= offset, "the directive lies on its line");
            let err = |message: String| DirectiveError {
                line,
                message,
                at: at.clone(),
            };
            if !KEYS.contains(&key) {
                return Err(err(match nearest_key(key) {
                    Some(k) => format!("unknown directive `{key}`; did you mean `{k}`?"),
                    None => format!(
                        "unknown directive `{key}` (the directives are {})",
                        KEYS.map(|k| format!("`{k}`")).join(", ")
                    ),
                }));
            }
            let is_outcome = key.starts_with("expect");
            let slot = if is_outcome { "expect" } else { key };
            if let Some((_, first)) = seen.iter().find(|(k, _)| *k == slot) {
                let what = if is_outcome { "an expected outcome" } else { key };
                return Err(err(format!("a second `{key}` directive ({what} is already given on line {first})")));
            }
            seen.push((slot, line));
            match key {
                "expect" => e.outcome = Some(parse_expect(value).map_err(err)?),
                "expect-error" => e.outcome = Some(Expected::Error(parse_kind(value).map_err(err)?)),
                "expect-static-error" => {
                    if !value.is_empty() {
                        return Err(err(format!("`expect-static-error` takes no value, found `{value}`")));
                    }
                    e.outcome = Some(Expected::StaticError);
                }
                "max-steps" => e.max_steps = Some(parse_number(value, "max-steps").map_err(err)?),
                "threads" => {
                    let n = parse_number(value, "threads").map_err(err)?;
                    match usize::try_from(n) {
                        Ok(n) if n >= 1 => e.threads = Some(n),
                        _ => return Err(err(format!("`threads: {value}`: the number of threads is at least 1"))),
                    }
                }
                "scale" => e.scale = Some(parse_scale(value).map_err(err)?),
                _ => unreachable!("all keys handled"),
            }
        }
        Ok(e)
    }

    /// The expected outcome in words (`exit 12`, `residual`, ...), or
    /// [`NO_EXPECTATION`].
    pub fn describe(&self) -> String {
        match &self.outcome {
            Some(o) => o.to_string(),
            None => NO_EXPECTATION.to_string(),
        }
    }
}

/// Splits a comment into a directive key and value, if it is one: a known
/// key, a lowercase hyphenated word, or a word close to a key
/// ([`nearest_key`]), then a colon (or the end, for `expect-static-error`
/// and words close to it).
fn split_directive(comment: &str) -> Option<(&str, &str)> {
    let (key, value) = match comment.split_once(':') {
        Some((k, v)) => (k.trim_end(), v.trim()),
        None => (comment, ""),
    };
    let word =
        !key.is_empty() && key.starts_with(|c: char| c.is_ascii_alphabetic()) && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    if !word {
        return None;
    }
    let lowercase =
        key.starts_with(|c: char| c.is_ascii_lowercase()) && key.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    let has_colon = comment.contains(':');
    if KEYS.contains(&key) && (has_colon || key == "expect-static-error") {
        return Some((key, value));
    }
    let near = nearest_key(key);
    let near_bare = !has_colon && near == Some("expect-static-error");
    ((has_colon && (lowercase && key.contains('-') || near.is_some())) || near_bare).then_some((key, value))
}

/// The key that `word` (not a key) is a likely misspelling of: a small edit
/// away, ignoring case (one edit for keys of up to five letters, two for
/// longer ones; a swap of neighbours is one edit).
fn nearest_key(word: &str) -> Option<&'static str> {
    let word = word.to_ascii_lowercase();
    KEYS.iter()
        .map(|k| (edit_distance(&word, k), *k))
        .filter(|&(d, k)| d <= if k.len() <= 5 { 1 } else { 2 })
        .min_by_key(|&(d, _)| d)
        .map(|(_, k)| k)
}

/// The edit distance of `a` and `b` (insertions, deletions, substitutions
/// and swaps of neighbours: optimal string alignment), over bytes.
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    // Rows i-2, i-1 and i of the table.
    let mut two_back = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut row = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        row[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (prev[j] + 1).min(row[j - 1] + 1).min(prev[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(two_back[j - 2] + 1);
            }
            row[j] = d;
        }
        std::mem::swap(&mut two_back, &mut prev);
        std::mem::swap(&mut prev, &mut row);
    }
    prev[b.len()]
}

fn parse_expect(value: &str) -> Result<Expected, String> {
    let (word, rest) = match value.split_once(char::is_whitespace) {
        Some((w, r)) => (w, r.trim()),
        None => (value, ""),
    };
    match (word, rest) {
        ("exit", "") => Ok(Expected::Exit(None)),
        ("exit", v) => Ok(Expected::Exit(Some(v.to_string()))),
        ("residual", "") => Ok(Expected::Residual),
        ("error", kind) => Ok(Expected::Error(parse_kind(kind)?)),
        ("static-error", "") => Ok(Expected::StaticError),
        _ => Err(format!(
            "`expect: {value}`: expected `exit`, `exit VALUE`, `residual`, `error KIND` or `static-error`"
        )),
    }
}

fn parse_kind(kind: &str) -> Result<ErrorKind, String> {
    ErrorKind::from_name(kind).ok_or_else(|| {
        format!(
            "`{kind}` is not a runtime error kind (one of {})",
            ErrorKind::ALL.map(|k| k.name()).join(", ")
        )
    })
}

/// A decimal number; `_` may separate digits (`1_000_000`).
fn parse_number(value: &str, key: &str) -> Result<u64, String> {
    let digits: String = value.chars().filter(|&c| c != '_').collect();
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
        return Err(format!("`{key}: {value}`: expected a number"));
    }
    digits.parse().map_err(|_| format!("`{key}: {value}`: the number is too large"))
}

fn parse_scale(value: &str) -> Result<Scale, String> {
    let mut words = value.split_whitespace();
    let var = words.next().unwrap_or_default();
    let ident = var.starts_with(|c: char| c.is_alphabetic() || c == '_') && var.chars().all(|c| c.is_alphanumeric() || c == '_');
    if !ident {
        return Err(format!(
            "`scale: {value}`: expected a variable name, then sizes (`scale: N 10 100 1000`)"
        ));
    }
    let words: Vec<&str> = words.collect();
    let (values, power_of_two) = match words.iter().position(|w| *w == "size") {
        None => (&words[..], false),
        Some(at) if words[at + 1..] == [format!("2^{var}").as_str()] => (&words[..at], true),
        Some(_) => {
            return Err(format!(
                "`scale: {value}`: after the sizes, `size 2^{var}` says the program's size is 2 to the power {var}"
            ))
        }
    };
    let sizes = values
        .iter()
        .map(|w| parse_number(w, "scale"))
        .collect::<Result<Vec<u64>, String>>()?;
    if sizes.is_empty() {
        return Err(format!("`scale: {value}`: give at least one size after `{var}`"));
    }
    Ok(Scale {
        var: var.to_string(),
        sizes,
        power_of_two,
    })
}

/// How a run ended, as [`verdict`] compares it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Observed<'a> {
    /// `$exit` with this printed value.
    Exit(&'a str),
    /// A residual program, printed.
    Residual(&'a str),
    /// A runtime error of this kind.
    Error(ErrorKind),
    /// The program did not load.
    StaticError,
    /// A budget ran out; the words say which.
    Limit(&'a str),
}

impl fmt::Display for Observed<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Observed::Exit(v) => write!(f, "exit {}", one_line(v)),
            Observed::Residual(_) => write!(f, "a residual"),
            Observed::Error(k) => write!(f, "error {}", k.name()),
            Observed::StaticError => write!(f, "a static error"),
            Observed::Limit(why) => write!(f, "{why}"),
        }
    }
}

/// The first line of `text`, with `...` if there are more.
fn one_line(text: &str) -> String {
    let t = text.trim_end();
    match t.split_once('\n') {
        Some((first, _)) => format!("{first} ..."),
        None => t.to_string(),
    }
}

/// Whether a run that ended as `observed` meets `expected`: `Ok` or the
/// reason it does not. Without an expectation, an exit value or a residual
/// passes and anything else fails. `snapshot`, the expected printed result
/// (the file `NAME.out` beside a program), is compared with the result of a
/// program that expects `exit` (with no value) or `residual`; trailing
/// newlines do not count.
pub fn verdict(expected: Option<&Expected>, observed: &Observed<'_>, snapshot: Option<&str>) -> Result<(), String> {
    let check_snapshot = |got: &str| match snapshot {
        Some(want) if want.trim_end_matches('\n') != got.trim_end_matches('\n') => {
            let line = want
                .lines()
                .zip(got.lines())
                .position(|(a, b)| a != b)
                .unwrap_or_else(|| want.lines().count().min(got.lines().count()))
                + 1;
            Err(format!("the result differs from the snapshot (.out) from line {line} on"))
        }
        _ => Ok(()),
    };
    match (expected, observed) {
        (None, Observed::Exit(_) | Observed::Residual(_)) => Ok(()),
        (None, other) => Err(format!("{other} (no expectation: a result was wanted)")),
        (Some(Expected::Exit(None)), Observed::Exit(v)) => check_snapshot(v),
        (Some(Expected::Exit(Some(want))), Observed::Exit(v)) => {
            if v.trim_end() == want.trim() {
                Ok(())
            } else {
                Err(format!("expected exit {want}, got exit {}", one_line(v)))
            }
        }
        (Some(Expected::Residual), Observed::Residual(t)) => check_snapshot(t),
        (Some(Expected::Error(want)), Observed::Error(got)) if want == got => Ok(()),
        (Some(Expected::StaticError), Observed::StaticError) => Ok(()),
        (Some(want), got) => Err(format!("expected {want}, got {got}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_directive() {
        let e = Expectations::parse(
            "// A program.\n//\n// expect: exit 11\n// max-steps: 1_000\n// threads: 1\n// scale: N 10 100\n\nlet N = 3\n",
        )
        .expect("parses");
        assert_eq!(e.outcome, Some(Expected::Exit(Some("11".into()))));
        assert_eq!(e.max_steps, Some(1000));
        assert_eq!(e.threads, Some(1));
        assert_eq!(
            e.scale,
            Some(Scale {
                var: "N".into(),
                sizes: vec![10, 100],
                power_of_two: false,
            })
        );
        assert_eq!(e.describe(), "exit 11");
        let e = Expectations::parse("// scale: D 4 6 size 2^D\n").expect("parses");
        let sc = e.scale.expect("a scale");
        assert_eq!((sc.sizes.clone(), sc.power_of_two), (vec![4, 6], true));
        assert_eq!((sc.size_of(6), sc.size_of(64)), (64, u64::MAX));
        let e = Expectations::parse("// scale: D 4 6 size D^2\n").expect_err("not 2^D");
        assert!(format!("{e:?}").contains("size 2^D"), "{e:?}");
    }

    #[test]
    fn outcome_forms() {
        let p = |s: &str| Expectations::parse(s).map(|e| e.outcome);
        assert_eq!(p("// expect: residual"), Ok(Some(Expected::Residual)));
        assert_eq!(p("// expect: exit"), Ok(Some(Expected::Exit(None))));
        assert_eq!(
            p("// expect: exit [true, true]"),
            Ok(Some(Expected::Exit(Some("[true, true]".into()))))
        );
        assert_eq!(p("// expect: error arity"), Ok(Some(Expected::Error(ErrorKind::Arity))));
        assert_eq!(p("// expect-error: missing-key"), Ok(Some(Expected::Error(ErrorKind::MissingKey))));
        assert_eq!(p("// expect-static-error"), Ok(Some(Expected::StaticError)));
        assert_eq!(p("// expect: static-error"), Ok(Some(Expected::StaticError)));
        assert_eq!(p("f 1 2\n"), Ok(None));
        assert_eq!(Expectations::default().describe(), NO_EXPECTATION);
    }

    #[test]
    fn only_leading_comments_count() {
        let e = Expectations::parse("// expect: residual\nf x\n// expect: exit 3\n").expect("parses");
        assert_eq!(e.outcome, Some(Expected::Residual));
        let e = Expectations::parse("\n\nf x\n// bogus-key: 1\n").expect("parses");
        assert_eq!(e, Expectations::default());
    }

    #[test]
    fn prose_is_not_a_directive() {
        let text = "// run: two continuations wait for the stack\n// 5x60: the optimal order\n// Note: x\n// expect is good\nf x";
        assert_eq!(Expectations::parse(text), Ok(Expectations::default()));
    }

    #[test]
    fn errors_name_the_line() {
        let e = Expectations::parse("// hello\n// expect: bogus\n").expect_err("bogus");
        assert_eq!(e.line, 2);
        assert!(e.message.contains("`expect: bogus`"), "{e}");
        assert!(e.to_string().starts_with("line 2: "), "{e}");

        let e = Expectations::parse("// expext-error: arity\n").expect_err("unknown");
        assert_eq!(e.line, 1);
        assert_eq!(e.message, "unknown directive `expext-error`; did you mean `expect-error`?");
        let e = Expectations::parse("// bogus-key: 1\n").expect_err("unknown");
        assert!(
            e.message
                .starts_with("unknown directive `bogus-key` (the directives are `expect`, "),
            "{e}"
        );

        let e = Expectations::parse("// expect-error: aritty\n").expect_err("kind");
        assert!(e.message.contains("`aritty` is not a runtime error kind"), "{e}");
        assert!(e.message.contains("division-by-zero"), "{e}");

        let e = Expectations::parse("// max-steps: many\n").expect_err("number");
        assert!(e.message.contains("expected a number"), "{e}");
        let e = Expectations::parse("// max-steps: 99999999999999999999999\n").expect_err("big");
        assert!(e.message.contains("too large"), "{e}");
        let e = Expectations::parse("// threads: 0\n").expect_err("threads");
        assert!(e.message.contains("at least 1"), "{e}");
        let e = Expectations::parse("// expect-static-error: yes\n").expect_err("value");
        assert!(e.message.contains("takes no value"), "{e}");
        let e = Expectations::parse("// scale: 3 10\n").expect_err("var");
        assert!(e.message.contains("variable name"), "{e}");
        let e = Expectations::parse("// scale: N\n").expect_err("sizes");
        assert!(e.message.contains("at least one size"), "{e}");
    }

    #[test]
    fn near_misses_of_keys_are_unknown_directives() {
        let unknown = |text: &str| Expectations::parse(text).map_err(|e| (e.line, e.message));
        let suggests = |word: &str, key: &str| Err((2, format!("unknown directive `{word}`; did you mean `{key}`?")));
        assert_eq!(unknown("// A program.\n// expext: exit 42\n"), suggests("expext", "expect"));
        assert_eq!(unknown("//\n// Expect: exit 42\n"), suggests("Expect", "expect"));
        assert_eq!(unknown("//\n// expcet: residual\n"), suggests("expcet", "expect"));
        assert_eq!(unknown("//\n// expected: exit\n"), suggests("expected", "expect"));
        assert_eq!(unknown("//\n// thread: 1\n"), suggests("thread", "threads"));
        assert_eq!(unknown("//\n// maxsteps: 10\n"), suggests("maxsteps", "max-steps"));
        assert_eq!(unknown("//\n// scael: N 1 2\n"), suggests("scael", "scale"));
        assert_eq!(
            unknown("//\n// expect-static-eror\n"),
            suggests("expect-static-eror", "expect-static-error")
        );
        // Far from every key, or not followed by a colon: prose.
        for prose in [
            "// state: the stack\n",
            "// expext the result\n",
            "// Notes: x\n",
            "// express: x\n",
        ] {
            assert_eq!(unknown(prose), Ok(Expectations::default()), "{prose}");
        }
    }

    #[test]
    fn the_error_points_at_the_directive() {
        let text = "// A program.\n  //  expext: exit 42  \nf x\n";
        let e = Expectations::parse(text).expect_err("unknown");
        assert_eq!(&text[e.at.clone()], "expext: exit 42");
        let d = e.diagnostic(FileId(0), Severity::Warning);
        assert_eq!((d.severity, d.code), (Severity::Warning, "directive"));
        assert_eq!(d.primary.map(|(s, _)| s.range()), Some(e.at));
    }

    #[test]
    fn edit_distances() {
        for (a, b, d) in [
            ("expect", "expect", 0),
            ("expext", "expect", 1),
            ("expcet", "expect", 1),
            ("", "abc", 3),
            ("state", "scale", 2),
        ] {
            assert_eq!(edit_distance(a, b), d, "{a} {b}");
        }
    }

    #[test]
    fn duplicates_are_errors() {
        let e = Expectations::parse("// expect: residual\n\n// expect-error: arity\n").expect_err("two outcomes");
        assert_eq!(e.line, 3);
        assert!(e.message.contains("line 1"), "{e}");
        let e = Expectations::parse("// max-steps: 1\n// max-steps: 2\n").expect_err("two limits");
        assert_eq!(e.line, 2);
    }

    #[test]
    fn verdicts() {
        use Observed as O;
        assert_eq!(verdict(None, &O::Exit("3\n"), None), Ok(()));
        assert_eq!(verdict(None, &O::Residual("f x\n"), None), Ok(()));
        assert!(verdict(None, &O::Error(ErrorKind::Arity), None).is_err());
        assert!(verdict(None, &O::Limit("step limit reached"), None).is_err());
        assert!(verdict(None, &O::StaticError, None).is_err());

        let exit11 = Expected::Exit(Some("11".into()));
        assert_eq!(verdict(Some(&exit11), &O::Exit("11\n"), None), Ok(()));
        let e = verdict(Some(&exit11), &O::Exit("12\n"), None).expect_err("wrong value");
        assert_eq!(e, "expected exit 11, got exit 12");
        assert!(verdict(Some(&exit11), &O::Residual("x"), None).is_err());

        let res = Expected::Residual;
        assert_eq!(verdict(Some(&res), &O::Residual("a\nb\n"), None), Ok(()));
        assert_eq!(verdict(Some(&res), &O::Residual("a\nb\n"), Some("a\nb")), Ok(()));
        let e = verdict(Some(&res), &O::Residual("a\nb\n"), Some("a\nc\n")).expect_err("snapshot");
        assert!(e.contains("line 2"), "{e}");
        let e = verdict(Some(&res), &O::Exit("1\n"), None).expect_err("kind");
        assert_eq!(e, "expected residual, got exit 1");

        let arity = Expected::Error(ErrorKind::Arity);
        assert_eq!(verdict(Some(&arity), &O::Error(ErrorKind::Arity), None), Ok(()));
        let e = verdict(Some(&arity), &O::Error(ErrorKind::Type), None).expect_err("kind");
        assert_eq!(e, "expected error arity, got error type");
        assert_eq!(verdict(Some(&Expected::StaticError), &O::StaticError, None), Ok(()));
        assert!(verdict(Some(&Expected::StaticError), &O::Exit("1"), None).is_err());
    }
}
