//! What the runtime library of compiled programs computes (`machine/rt`
//! calls it): the reports of runtime errors with their call sites, and
//! values that hold lambdas, printed as `deepcps run` prints them.
//!
//! A compiled program hands over its [`Image`] and, when it fails, the
//! error site, the error's kind, message and label, and the record of the
//! steps its traced run took (`runtime/trace.c`); when it prints a value
//! holding a lambda, the value in the form `runtime/serial.c` writes. A
//! lambda's closure names its lambda by number and carries the values of
//! its free variables: the lambda is found in the term the program runs,
//! got back as compile got it ([`rebuild`]), and the values are
//! substituted into it, as a β of the machine substitutes them.

use std::sync::Arc;

use super::free::{atom_free_vars, free_vars};
use super::image::{fingerprint, Image, Via};
use super::sites::Place;
use super::{call_with_exit, numbered};
use crate::error::{ErrorKind, RuntimeError};
use crate::graph::Machine;
use crate::print::{short_atom, Printer};
use crate::run::{Limits, Outcome};
use crate::span::SourceMap;
use crate::subst::Copier;
use crate::syntax::{load_from, runtime_diagnostic, MemFs};
use crate::term::{Arg, Atom, Body, Builtin, Lambda, Matrix, RecLambda, VarId, VarKind, Vars};

/// A compiled program's image, with what is derived from it on demand.
pub struct Native {
    image: Image,
    sources: SourceMap,
    /// The term the program runs, once got back.
    program: Option<Result<(Body, Vars), String>>,
}

/// A runtime error of a compiled program, as it hands it over.
pub struct Failure<'a> {
    /// The error site.
    pub site: usize,
    /// The kind, by its place in [`ErrorKind::ALL`].
    pub kind: usize,
    /// For a call with the wrong number of arguments: the lifted lambda
    /// called, whose source is the error's place.
    pub lambda: Option<usize>,
    /// The message.
    pub message: &'a str,
    /// The label of the error's place.
    pub label: &'a str,
}

/// How a value is to be shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shown {
    /// As an exit value (the printer's text, with its final newline).
    Exit,
    /// As an error message quotes it ([`short_atom`]).
    Short,
}

impl Native {
    /// The image encoded in `bytes`.
    pub fn new(bytes: &[u8]) -> Result<Native, String> {
        let image = Image::decode(bytes)?;
        let sources = image.sources();
        Ok(Native {
            image,
            sources,
            program: None,
        })
    }

    /// The report of a runtime `failure`, as `run` renders it. `steps` is
    /// the record of the traced run: the site of
    /// every step that called a function, first to last; `None` if the run
    /// took too many steps to be traced.
    pub fn report(&self, failure: &Failure<'_>, steps: Option<&[u32]>, color: bool) -> Result<String, String> {
        let &Failure {
            site,
            kind,
            lambda,
            message,
            label,
        } = failure;
        let &(body, place) = self.image.sites.get(site).ok_or("no such error site")?;
        let kind = *ErrorKind::ALL.get(kind).ok_or("no such error kind")?;
        let lambda = match lambda {
            Some(l) => Some(*self.image.lambda_spans.get(l).ok_or("no such lambda")?),
            None => None,
        };
        let e = match (lambda, place) {
            (Some(at), _) | (None, Place::At(at)) => RuntimeError::new(kind, message.into(), body, Some(at)),
            (None, Place::Body) => RuntimeError::new(kind, message.into(), body, None),
            (None, Place::Operand(o)) => RuntimeError::new(kind, message.into(), body, None).at_operand(o, String::new()),
        };
        let mut e = e.labelled(label.into());
        if let Some(steps) = steps {
            let mut calls = Vec::with_capacity(steps.len());
            for site in self.calls(steps)?.into_iter().rev() {
                let &(span, _) = self.image.sites.get(site).ok_or("no such step site")?;
                calls.push(span);
            }
            e.calls = calls;
        }
        Ok(runtime_diagnostic(&e, &self.sources).render(&self.sources, color))
    }

    /// The sites of the β steps of a traced run, first to last, from its
    /// record (`runtime/trace.c`): an entry is the site of a β, or (top
    /// bit set) the last body of a call, whose steps are those on the way
    /// from the call's first body to it.
    fn calls(&self, record: &[u32]) -> Result<Vec<usize>, String> {
        let mut out = Vec::with_capacity(record.len());
        let mut path = Vec::new();
        for &entry in record {
            if entry & 0x8000_0000 == 0 {
                out.push(entry as usize);
                continue;
            }
            let mut body = Some(entry & 0x7fff_ffff);
            path.clear();
            while let Some(k) = body {
                let &(before, via) = self.image.bodies.get(k as usize).ok_or("no such body")?;
                // Bodies are numbered after the one before them.
                if before.is_some_and(|b| b >= k) {
                    return Err("a body numbered before the one before it".into());
                }
                match via {
                    Via::Beta(site) | Via::If(site) => path.push(site),
                    Via::Fix | Via::First => {}
                }
                body = before;
            }
            out.extend(path.iter().rev());
        }
        Ok(out)
    }

    /// The value serialized in `bytes`, shown as `how` says.
    pub fn value_text(&mut self, bytes: &[u8], how: Shown) -> Result<String, String> {
        let tokens = tokens(bytes)?;
        if self.program.is_none() {
            self.program = Some(rebuild(&self.image));
        }
        let (body, vars) = match &self.program {
            Some(Ok(p)) => p,
            Some(Err(e)) => return Err(e.clone()),
            None => return Err("no program".into()),
        };
        let mut vars = vars.clone();
        let atom = to_atom(tokens, body, &self.image.lambdas, &mut vars)?;
        Ok(match how {
            Shown::Exit => Printer::new(&vars).atom_text(&atom),
            Shown::Short => short_atom(&atom, &vars),
        })
    }
}

/// The term `deepcps compile` translated, got back from the image: the
/// program loaded again from the image's files and, if staging built it,
/// staged again (on one thread, without limits: the compile's staging run
/// ended). Fails if it is not the term the image was made from.
pub fn rebuild(image: &Image) -> Result<(Body, Vars), String> {
    let mut fs = MemFs::default();
    for f in &image.files {
        if let Some(p) = &f.path {
            fs.0.insert(p.clone(), f.text.as_bytes().to_vec());
        }
    }
    let main = image.files.first().ok_or("an image without files")?;
    let mut sources = SourceMap::new();
    let file = sources.add(main.name.clone(), main.path.clone(), main.text.clone());
    let program = load_from(&fs, file, &mut sources, false).map_err(|_| "the program does not load again".to_string())?;
    let (body, vars) = if image.built {
        let mut m = Machine::new(program);
        match m.run(&Limits::default()) {
            Outcome::Exit(v) => {
                let vars = m.exit_vars().cloned().unwrap_or_default();
                let body = call_with_exit(v, &vars)?;
                (body, vars)
            }
            _ => return Err("staging the program again did not end as it did".into()),
        }
    } else {
        (program.body, program.vars)
    };
    if fingerprint(&body, &vars) != image.fingerprint {
        return Err("the program got back differs from the one compiled".into());
    }
    Ok((body, vars))
}

/// One part of a serialized value, in prefix order.
enum Token {
    /// A value with nothing in it.
    Leaf(Atom),
    /// A tuple of this many values.
    Tuple(usize),
    /// A record of this many fields (each a string, then a value).
    Record(usize),
    /// A map of this many entries (each a key, then a value).
    Map(usize),
    /// The closure of lifted lambda `info`, with the values of its free
    /// variables.
    Closure { info: usize, env: usize },
    /// Tuple head `head` of the program, with the values of its variables.
    Head { head: usize, env: usize },
}

/// The tokens of a value serialized by the compiled program's
/// `serialize` (runtime/serial.c): a tag byte, then what the tag says
/// (numbers are 8 bytes, little-endian).
fn tokens(bytes: &[u8]) -> Result<Vec<Token>, String> {
    let mut at = 0;
    let word = |at: &mut usize| -> Result<u64, String> {
        let b: [u8; 8] = bytes
            .get(*at..*at + 8)
            .and_then(|s| s.try_into().ok())
            .ok_or("the value is cut short")?;
        *at += 8;
        Ok(u64::from_le_bytes(b))
    };
    let mut out = Vec::new();
    let size = |n: u64| usize::try_from(n).map_err(|_| "size out of range".to_string());
    while at < bytes.len() {
        let tag = bytes[at];
        at += 1;
        let t = match tag {
            b'i' => Token::Leaf(Atom::Int(word(&mut at)? as i64)),
            b'f' => Token::Leaf(Atom::Float(f64::from_bits(word(&mut at)?))),
            b'T' => Token::Leaf(Atom::Bool(true)),
            b'F' => Token::Leaf(Atom::Bool(false)),
            b'A' => Token::Leaf(Atom::Stage(true)),
            b'N' => Token::Leaf(Atom::Stage(false)),
            b'X' => Token::Leaf(Atom::Builtin(Builtin::Exit)),
            b'I' => Token::Leaf(Atom::Builtin(Builtin::If)),
            b's' => {
                let n = size(word(&mut at)?)?;
                let s = bytes.get(at..at + n).ok_or("the value is cut short")?;
                at += n;
                Token::Leaf(Atom::Str(Arc::from(String::from_utf8_lossy(s).as_ref())))
            }
            b'x' => {
                let rows = size(word(&mut at)?)?;
                let cols = size(word(&mut at)?)?;
                let n = rows.checked_mul(cols).ok_or("matrix size out of range")?;
                let mut data = Vec::with_capacity(n.min(1 << 20));
                for _ in 0..n {
                    data.push(word(&mut at)? as i64);
                }
                Token::Leaf(Atom::Matrix(Arc::new(Matrix { rows, cols, data })))
            }
            b't' => Token::Tuple(size(word(&mut at)?)?),
            b'r' => Token::Record(size(word(&mut at)?)?),
            b'm' => Token::Map(size(word(&mut at)?)?),
            b'c' => {
                let info = size(word(&mut at)?)?;
                let env = size(word(&mut at)?)?;
                Token::Closure { info, env }
            }
            b'h' => {
                let head = size(word(&mut at)?)?;
                let env = size(word(&mut at)?)?;
                Token::Head { head, env }
            }
            other => return Err(format!("unknown tag {other} in a value")),
        };
        out.push(t);
    }
    Ok(out)
}

/// The atom of a serialized value (its tokens), its closures made lambdas
/// of `body` (over `vars`) with their captured values substituted.
fn to_atom(tokens: Vec<Token>, body: &Body, infos: &[u32], vars: &mut Vars) -> Result<Atom, String> {
    let numbered = numbered(body);
    // Frames of the values being built: what they are, how many parts they
    // need, the parts so far.
    enum Kind {
        Tuple,
        Record,
        Map,
        Closure(u32),
        Head(usize),
    }
    let mut stack: Vec<(Kind, usize, Vec<Atom>)> = Vec::new();
    let mut tokens = tokens.into_iter();
    loop {
        let mut done = match tokens.next() {
            None => return Err("the value is cut short".into()),
            Some(Token::Leaf(a)) => Some(a),
            Some(Token::Tuple(n)) => {
                stack.push((Kind::Tuple, n, Vec::new()));
                None
            }
            Some(Token::Record(n)) => {
                stack.push((Kind::Record, 2 * n, Vec::new()));
                None
            }
            Some(Token::Map(n)) => {
                stack.push((Kind::Map, 2 * n, Vec::new()));
                None
            }
            Some(Token::Closure { info, env }) => {
                let l = *infos.get(info).ok_or("no such lambda")?;
                stack.push((Kind::Closure(l), env, Vec::new()));
                None
            }
            Some(Token::Head { head, env }) => {
                stack.push((Kind::Head(head), env, Vec::new()));
                None
            }
        };
        // Close every frame that has all its parts.
        loop {
            if let Some(a) = done.take() {
                match stack.last_mut() {
                    None => {
                        return match tokens.next() {
                            None => Ok(a),
                            Some(_) => Err("bytes after the value".into()),
                        }
                    }
                    Some(top) => top.2.push(a),
                }
            }
            match stack.last() {
                Some((_, n, parts)) if parts.len() == *n => {}
                _ => break,
            }
            let Some((kind, _, parts)) = stack.pop() else { break };
            done = Some(match kind {
                Kind::Tuple => Atom::Tuple(parts.into_iter().map(Arg::Atom).collect()),
                Kind::Map => {
                    let mut it = parts.into_iter();
                    let mut kvs = Vec::new();
                    while let (Some(k), Some(v)) = (it.next(), it.next()) {
                        kvs.push((k, v));
                    }
                    Atom::Map(kvs)
                }
                Kind::Record => {
                    let mut it = parts.into_iter();
                    let mut fs = Vec::new();
                    while let (Some(k), Some(v)) = (it.next(), it.next()) {
                        let Atom::Str(name) = &k else {
                            return Err("a record field without a name".into());
                        };
                        fs.push((name.clone(), v));
                    }
                    Atom::Record(fs)
                }
                Kind::Closure(l) => {
                    let &(lam, rec) = numbered.lambdas.get(l as usize).ok_or("no such lambda in the program")?;
                    closure(lam, rec, parts, vars)?
                }
                Kind::Head(h) => {
                    let head = *numbered.heads.get(h).ok_or("no such head in the program")?;
                    let free = atom_free_vars(head);
                    if free.len() != parts.len() {
                        return Err("a tuple head with other values than variables".into());
                    }
                    Copier::new(vars, free.into_iter().zip(parts)).atom(head)
                }
            });
        }
    }
}

/// The value of a closure of `lam` (recursive as `rec`) that captured
/// `env`: the lambda with its free variables replaced by their values (and
/// the staging parameters of the lambdas around it, called by then, by
/// `always`).
fn closure(lam: &Lambda, rec: Option<VarId>, env: Vec<Atom>, vars: &mut Vars) -> Result<Atom, String> {
    let free = free_vars(lam, rec);
    let mut env = env.into_iter();
    let mut subst = Vec::with_capacity(free.len());
    for v in free {
        if vars.info(v).kind == VarKind::Stage {
            subst.push((v, Atom::Stage(true)));
        } else {
            subst.push((v, env.next().ok_or("a closure with too few captured values")?));
        }
    }
    if env.next().is_some() {
        return Err("a closure with too many captured values".into());
    }
    let lam = Copier::new(vars, subst).lambda(lam);
    Ok(match rec {
        Some(name) => Atom::Rec(Box::new(RecLambda { name, lam })),
        None => Atom::Lambda(Box::new(lam)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::{program_c, Part};
    use crate::syntax::load::add_source;

    /// The image `program_c` makes of the runtime code `text`.
    fn image_of(text: &str) -> Image {
        let mut sources = SourceMap::new();
        let file = add_source(&mut sources, "t.dcps", None, text.as_bytes().to_vec()).expect("source");
        let p = load_from(&MemFs::default(), file, &mut sources, false).expect("loads");
        let c = program_c(&p.body, &p.vars, &sources, Part::Whole, "p_").expect("compiles");
        // The image is the one string literal named `p_IMAGE`.
        let start = c.find("p_IMAGE[] = ").expect("an image") + "p_IMAGE[] = ".len();
        let end = start + c[start..].find(";\n").expect("its end");
        Image::decode(&c_literal_bytes(&c[start..end])).expect("decodes")
    }

    /// The bytes of C string literals (as `sites::c_bytes` writes them).
    fn c_literal_bytes(lit: &str) -> Vec<u8> {
        let mut out = Vec::new();
        let b = lit.as_bytes();
        let (mut i, mut inside) = (0, false);
        while i < b.len() {
            match (inside, b[i]) {
                (false, b'"') | (true, b'"') => inside = !inside,
                (true, b'\\') if b[i + 1].is_ascii_digit() => {
                    let oct = std::str::from_utf8(&b[i + 1..i + 4]).expect("octal");
                    out.push(u8::from_str_radix(oct, 8).expect("octal"));
                    i += 3;
                }
                (true, b'\\') => {
                    out.push(b[i + 1]);
                    i += 1;
                }
                (true, c) => out.push(c),
                (false, _) => {}
            }
            i += 1;
        }
        out
    }

    #[test]
    fn the_runtime_stops_tracing_where_the_machine_does() {
        let limit = crate::graph::calls::MAX_TRACED_STEPS;
        assert!(crate::compile::runtime_c().contains(&format!("#define MAX_TRACED_STEPS {limit}\n")));
    }

    #[test]
    fn a_closure_prints_with_its_captured_values() {
        let image = image_of("let a = 5\nlet f(x, k) { \"x + a\" k }\n$exit f\n");
        let mut n = Native::new(&image.encode()).expect("an image");
        // The closure of lifted lambda 0 (`f`) capturing 5.
        let mut v = vec![b'c'];
        v.extend(0u64.to_le_bytes());
        v.extend(1u64.to_le_bytes());
        v.push(b'i');
        v.extend(5u64.to_le_bytes());
        assert_eq!(n.value_text(&v, Shown::Exit), Ok("(x, k) {\n  \"x+5\" k\n}\n".into()));
        assert_eq!(n.value_text(&v, Shown::Short), Ok("(x, k) { … }".into()));
    }

    #[test]
    fn what_does_not_fit_the_image_is_an_error() {
        let image = image_of("let f(x, k) { k x }\n$exit f\n");
        let mut n = Native::new(&image.encode()).expect("an image");
        for (bytes, why) in [
            (vec![b'?'], "unknown tag"),
            (vec![b'i', 1, 2], "cut short"),
            (vec![b't', 2, 0, 0, 0, 0, 0, 0, 0, b'T'], "cut short"),
            (
                [vec![b'c'], 7u64.to_le_bytes().to_vec(), 0u64.to_le_bytes().to_vec()].concat(),
                "no such lambda",
            ),
            (
                [vec![b'c'], 0u64.to_le_bytes().to_vec(), 1u64.to_le_bytes().to_vec(), vec![b'T']].concat(),
                "too many",
            ),
            (vec![b'T', b'F'], "after the value"),
        ] {
            let got = n.value_text(&bytes, Shown::Exit);
            assert!(got.as_ref().is_err_and(|e| e.contains(why)), "{bytes:?}: {got:?}");
        }
        let failure = Failure {
            site: 10_000,
            kind: 0,
            lambda: None,
            message: "m",
            label: "l",
        };
        assert!(n.report(&failure, None, false).is_err());
        // A term that is not the one compiled is not used.
        let mut other = image.clone();
        other.fingerprint ^= 1;
        let mut n = Native::new(&other.encode()).expect("an image");
        let v = [vec![b'c'], 0u64.to_le_bytes().to_vec(), 0u64.to_le_bytes().to_vec()].concat();
        assert!(n.value_text(&v, Shown::Exit).is_err_and(|e| e.contains("differs")));
        assert!(Native::new(b"3:abc").is_err());
    }
}
