//! Loading a program: reading files, following `include`s (paths relative to
//! the including file; each file included once; cycles and missing files are
//! diagnostics), parsing and resolving.
//!
//! An included file is read at the path its `include` line makes, and named
//! in diagnostics by that path with `.` and `dir/..` taken out
//! ([`shown_path`]): `corpus/paper/builders.dcps`, not
//! `corpus/bench/../paper/builders.dcps`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::diag::Diagnostic;
use crate::span::{FileId, SourceMap, Span};
use crate::syntax::ast;
use crate::syntax::parser::{parse_file, parse_head, Chain};
use crate::syntax::resolve::Resolver;
use crate::term::{Application, Atom, Body, Cmd, Program, SExp, Sugar};

/// Where source files come from (the disk, or a table in tests).
pub trait FileSystem {
    /// The bytes of the file at `path`.
    fn read(&self, path: &Path) -> std::io::Result<Vec<u8>>;
    /// A canonical key for `path`, to recognise a file included twice.
    fn canonical(&self, path: &Path) -> PathBuf {
        path.to_path_buf()
    }
}

/// The real file system.
pub struct RealFs;

impl FileSystem for RealFs {
    fn read(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        std::fs::read(path)
    }
    fn canonical(&self, path: &Path) -> PathBuf {
        std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
    }
}

/// An in-memory file system: a table of paths to texts.
#[derive(Default)]
pub struct MemFs(pub HashMap<PathBuf, Vec<u8>>);

impl FileSystem for MemFs {
    fn read(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        self.0
            .get(path)
            .cloned()
            .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"))
    }
}

/// Registers `bytes` as file `name`, rejecting invalid UTF-8 with a
/// diagnostic that points at the first bad byte.
pub fn add_source(sources: &mut SourceMap, name: &str, path: Option<PathBuf>, bytes: Vec<u8>) -> Result<FileId, Diagnostic> {
    match String::from_utf8(bytes) {
        Ok(text) => Ok(sources.add(name, path, text)),
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let lossy = String::from_utf8_lossy(e.as_bytes()).into_owned();
            let file = sources.add(name, path, lossy);
            let span = Span::new(file, at, at + 1);
            Err(Diagnostic::error(
                "utf8",
                "source is not valid UTF-8",
                span,
                format!("invalid byte at offset {at}"),
            ))
        }
    }
}

/// Loads the program in file `path` (read through `fs`).
pub fn load_program(fs: &dyn FileSystem, path: &Path, sources: &mut SourceMap) -> Result<Program, Vec<Diagnostic>> {
    let name = path.display().to_string();
    let bytes = fs.read(path).map_err(|e| vec![cannot_read(path, &e)])?;
    let file = add_source(sources, &name, Some(path.to_path_buf()), bytes).map_err(|d| vec![d])?;
    load_from(fs, file, sources, false)
}

/// The diagnostic of a file that cannot be read, in the form of every
/// other: `[io] Error: cannot read `PATH`: REASON`.
pub fn cannot_read(path: &Path, e: &std::io::Error) -> Diagnostic {
    Diagnostic::error_nowhere("io", format!("cannot read `{}`: {}", path.display(), io_reason(e)))
}

/// `path` as diagnostics show it: with `.` components and every
/// `NAME/..` taken out, lexically (symbolic links are not followed; the
/// file is still read at `path`). A path that comes to nothing is `.`.
pub fn shown_path(path: &Path) -> String {
    use std::path::Component;
    let mut parts: Vec<Component> = Vec::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => match parts.last() {
                Some(Component::Normal(_)) => {
                    parts.pop();
                }
                // `/..` is `/`.
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => parts.push(c),
            },
            _ => parts.push(c),
        }
    }
    if parts.is_empty() {
        return ".".to_string();
    }
    parts.iter().collect::<PathBuf>().display().to_string()
}

/// Why a file cannot be read, in a few words (no OS error number).
pub fn io_reason(e: &std::io::Error) -> String {
    use std::io::ErrorKind;
    match e.kind() {
        ErrorKind::NotFound => "no such file".to_string(),
        ErrorKind::PermissionDenied => "permission denied".to_string(),
        ErrorKind::IsADirectory => "it is a directory".to_string(),
        _ => {
            // The OS's words without their "(os error N)".
            let text = e.to_string();
            match text.find(" (os error") {
                Some(i) => text[..i].to_string(),
                None => text,
            }
        }
    }
}

/// Loads a program whose main text is already registered as `file`; with
/// `allow_free`, unbound names are kept as free variables (for `fmt`) and
/// includes are not followed.
pub fn load_from(fs: &dyn FileSystem, file: FileId, sources: &mut SourceMap, allow_free: bool) -> Result<Program, Vec<Diagnostic>> {
    let mode = if allow_free { Mode::Format } else { Mode::Run };
    load(fs, file, sources, mode).map(|(program, _)| program)
}

/// What a file checked on its own is ([`check_from`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// A program: definitions and a main body.
    Program,
    /// A library: `include` lines and definitions, no main body (what
    /// `include` takes).
    Library,
}

/// Checks the file registered as `file` as `deepcps check` does: a program
/// is loaded as for a run; a library (a file of definitions alone) has its
/// includes followed and its definitions resolved and checked, as a file
/// that includes it would, without a main body.
pub fn check_from(fs: &dyn FileSystem, file: FileId, sources: &mut SourceMap) -> Result<FileKind, Vec<Diagnostic>> {
    load(fs, file, sources, Mode::Check).map(|(_, kind)| kind)
}

/// Why a file is loaded.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// To run it: a main body is needed.
    Run,
    /// To check it: a library is accepted.
    Check,
    /// To format it: a library is accepted, unbound names are free, and
    /// includes are not followed.
    Format,
}

fn load(fs: &dyn FileSystem, file: FileId, sources: &mut SourceMap, mode: Mode) -> Result<(Program, FileKind), Vec<Diagnostic>> {
    let allow_free = mode == Mode::Format;
    let text = sources.get(file).text.clone();
    // The main body is read a statement at a time as it is resolved.
    let (main, mut chain) = parse_head(&text, file).map_err(|d| vec![d])?;
    let mut libs = Libs::default();
    if !allow_free {
        let mut stack = vec![file];
        for (inc, span) in &main.includes {
            if let Err(e) = include(fs, file, inc, *span, sources, &mut stack, &mut libs) {
                // The file's own syntax errors come first.
                if let Some(d) = chain.as_mut().and_then(Chain::first_error) {
                    return Err(vec![d]);
                }
                return Err(e);
            }
        }
    }
    let libs = libs.files;
    let has_defs = !main.defs.is_empty() || (mode == Mode::Check && !main.includes.is_empty());
    let library_hole = mode != Mode::Run && chain.is_none() && has_defs;
    if chain.is_none() && !library_hole {
        return Err(vec![no_main_body(&text, file, &main)]);
    }
    let mut failed: Option<Diagnostic> = None;
    let mut r = Resolver::new(allow_free);
    // The definitions are moved, not cloned: a derived clone of a deep
    // definition's body would recurse as deep.
    let mut defs: Vec<ast::Def> = libs.into_iter().flat_map(|lib| lib.defs).chain(main.defs).collect();
    let body = r.defs(&mut defs, SExp::Const(true), &mut |r, natural| {
        if library_hole {
            // A library on its own: the scope of its definitions is a hole
            // that the source printer leaves out.
            Body {
                stage: natural,
                cmd: Cmd::App(Application {
                    head: Atom::Int(0),
                    args: Vec::new(),
                    sugar: Sugar::Hole,
                }),
                span: Span::new(file, text.len(), text.len()),
            }
        } else {
            let mut next = || match chain.as_mut()?.next_link()? {
                Ok(link) => Some(link),
                Err(e) => {
                    failed = Some(e);
                    None
                }
            };
            r.chain(&mut next, natural).unwrap_or_else(|| Body::hollow(Span::default()))
        }
    });
    if let Some(d) = failed {
        return Err(vec![d]);
    }
    if !r.errors.is_empty() {
        return Err(r.take_errors());
    }
    let kind = if library_hole { FileKind::Library } else { FileKind::Program };
    Ok((Program { body, vars: r.vars }, kind))
}

/// The error of a file without a main body: an empty file, one of comments
/// alone, or one of definitions alone (a library, which only `include` and
/// `deepcps check` take).
fn no_main_body(text: &str, file: FileId, parsed: &ast::File) -> Diagnostic {
    let end = Span::new(file, text.len(), text.len());
    if parsed.defs.is_empty() && parsed.includes.is_empty() {
        let message = if text.trim().is_empty() {
            "the file is empty"
        } else {
            "the file holds no code, only comments"
        };
        return Diagnostic::error("parse", message, end, "expected a program")
            .with_note("a program is a main body, after any `include` lines and definitions");
    }
    let after = if parsed.defs.is_empty() {
        "the includes"
    } else {
        "the definitions"
    };
    Diagnostic::error(
        "parse",
        "the program has no main body",
        end,
        format!("expected a body after {after}"),
    )
    .with_note("a file of definitions alone is a library: it can be included, or checked with `deepcps check`")
}

/// The included files, in the order their definitions take scope.
#[derive(Default)]
struct Libs {
    /// Parsed files.
    files: Vec<ast::File>,
    /// For each file, the indices of the files it includes, transitively.
    closures: Vec<Vec<usize>>,
    /// Index of each file by canonical path.
    index: HashMap<PathBuf, usize>,
}

impl Libs {
    /// Checks that the definitions of file `i` use only names that it defines
    /// or includes itself (not names of a file included before it by
    /// someone else).
    fn check_scope(&self, i: usize) -> Result<(), Vec<Diagnostic>> {
        let mut defs: Vec<ast::Def> = Vec::new();
        for &j in &self.closures[i] {
            defs.extend(self.files[j].defs.iter().cloned());
        }
        defs.extend(self.files[i].defs.iter().cloned());
        let mut r = Resolver::new(false);
        r.defs(&mut defs, SExp::Const(true), &mut |r, natural| {
            r.body(ast::SurfaceBody::hole(), natural)
        });
        if r.errors.is_empty() {
            Ok(())
        } else {
            Err(r
                .take_errors()
                .into_iter()
                .map(|d| d.with_note("an included file sees only its own definitions and what it includes itself"))
                .collect())
        }
    }
}

/// Includes `rel` (relative to file `from`); returns the indices of the
/// files it brings into scope (itself and what it includes, transitively).
fn include(
    fs: &dyn FileSystem,
    from: FileId,
    rel: &str,
    span: Span,
    sources: &mut SourceMap,
    stack: &mut Vec<FileId>,
    libs: &mut Libs,
) -> Result<Vec<usize>, Vec<Diagnostic>> {
    let base = sources
        .get(from)
        .path
        .as_ref()
        .and_then(|p| p.parent().map(Path::to_path_buf))
        .unwrap_or_default();
    let path = base.join(rel);
    let key = fs.canonical(&path);
    let on_stack = stack
        .iter()
        .any(|f| sources.get(*f).path.as_ref().map(|p| fs.canonical(p)) == Some(key.clone()));
    if on_stack {
        let chain: Vec<String> = stack.iter().map(|f| sources.get(*f).name.clone()).collect();
        return Err(vec![Diagnostic::error(
            "include",
            format!("include cycle: `{rel}` is already being included"),
            span,
            "this include closes a cycle",
        )
        .with_note(format!("include chain: {} -> {}", chain.join(" -> "), shown_path(&path)))]);
    }
    if let Some(&i) = libs.index.get(&key) {
        let mut c = libs.closures[i].clone();
        c.push(i);
        return Ok(c);
    }
    let bytes = fs.read(&path).map_err(|e| {
        vec![Diagnostic::error(
            "include",
            format!("cannot include `{rel}`: {}", io_reason(&e)),
            span,
            format!("looked for {}", shown_path(&path)),
        )]
    })?;
    let file = add_source(sources, &shown_path(&path), Some(path.clone()), bytes).map_err(|d| vec![d])?;
    let text = sources.get(file).text.clone();
    let parsed = parse_file(&text, file).map_err(|d| vec![d])?;
    if let Some(main) = &parsed.main {
        let s = body_start(main);
        return Err(vec![Diagnostic::error(
            "include",
            "an included file may hold only definitions",
            s,
            "a body that is not `let` or `fix`",
        )
        .with_secondary(span, "included here")]);
    }
    stack.push(file);
    let mut closure: Vec<usize> = Vec::new();
    for (inc, s) in &parsed.includes {
        closure.extend(include(fs, file, inc, *s, sources, stack, libs)?);
    }
    stack.pop();
    closure.sort_unstable();
    closure.dedup();
    let i = libs.files.len();
    libs.files.push(parsed);
    libs.closures.push(closure.clone());
    libs.index.insert(key, i);
    libs.check_scope(i)?;
    closure.push(i);
    Ok(closure)
}

fn body_start(b: &ast::SurfaceBody) -> Span {
    match b {
        ast::SurfaceBody::Def(d, _) => match &**d {
            ast::Def::Let { span, .. } | ast::Def::Fix { span, .. } => *span,
        },
        ast::SurfaceBody::App { head, .. } => head.span(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shown_paths_take_out_dot_and_dot_dot_lexically() {
        for (path, shown) in [
            ("corpus/bench/../paper/builders.dcps", "corpus/paper/builders.dcps"),
            ("./a/./b/../c.dcps", "a/c.dcps"),
            ("../x/../../y.dcps", "../../y.dcps"),
            ("/../a/b/../../c", "/c"),
            ("a/..", "."),
            ("lib.dcps", "lib.dcps"),
        ] {
            assert_eq!(shown_path(Path::new(path)), shown, "{path}");
        }
    }

    /// Loads `text` as `main.dcps` beside the given files; the messages of
    /// the errors, or the program.
    fn load_text(text: &str, others: &[(&str, &str)]) -> Result<Program, Vec<String>> {
        let mut files: HashMap<PathBuf, Vec<u8>> = HashMap::new();
        files.insert("main.dcps".into(), text.as_bytes().to_vec());
        for (name, t) in others {
            files.insert((*name).into(), t.as_bytes().to_vec());
        }
        load_program(&MemFs(files), Path::new("main.dcps"), &mut SourceMap::new()).map_err(|ds| ds.into_iter().map(|d| d.message).collect())
    }

    #[test]
    fn a_syntax_error_of_the_main_body_comes_before_a_missing_include() {
        let e = load_text("include \"missing.dcps\"\nf 1 (x)\ng x )\n", &[]).err();
        assert_eq!(e, Some(vec!["expected an argument, `}` or end of file, found `)`".to_string()]));
        let e = load_text("include \"missing.dcps\"\nf 1 (x)\ng x\n", &[]).err();
        let e = e.expect("the include fails");
        assert_eq!(e.len(), 1);
        assert!(e[0].starts_with("cannot include `missing.dcps`"), "{e:?}");
    }

    #[test]
    fn a_syntax_error_late_in_the_main_body_hides_name_errors_before_it() {
        let e = load_text("f 1 (x)\nunknown x (y)\ng y # z\n", &[]).err();
        assert_eq!(e, Some(vec!["unexpected character `#`".to_string()]));
        let e = load_text("f 1 (x)\nunknown x (y)\ng y (\n", &[]).err();
        let e = e.expect("a parse error");
        assert_eq!(e.len(), 1);
        assert!(e[0].starts_with("expected"), "{e:?}");
    }

    #[test]
    fn a_tail_lambdas_anonymous_staging_parameter_spans_the_rest_of_the_chain() {
        let text = "lib 1 (x)\n@always: lib x (y) {\n  $exit y\n}\n";
        let others = [];
        let p = load_text(&format!("let lib = (a, k) {{ k a }}\n{text}"), &others).expect("it loads");
        let offset = "let lib = (a, k) { k a }\n".len();
        let x = (0..p.vars.len() as u32)
            .map(crate::term::VarId)
            .find(|v| p.vars.name(*v) == Some("x"))
            .expect("x");
        // `x`'s lambda is the one after it in the table: its staging
        // parameter comes first.
        let sparam = crate::term::VarId(x.0 - 1);
        assert_eq!(p.vars.info(sparam).kind, crate::term::VarKind::Stage);
        let span = p.vars.info(sparam).span;
        let lam = offset + text.find("(x)").expect("(x)");
        assert_eq!(span.range(), lam..offset + text.trim_end().len());
    }
}
