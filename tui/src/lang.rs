//! The commands on languages (`--lang DIR`): loading a language folder and
//! an input of it into the program of its action calls, with the
//! diagnostics of each failure printed in the form of every other, and
//! `check --lang`. `run`, `compile`, `debug`, `test` and `bench` take the
//! loaded program from here.

use std::io::Read;
use std::path::{Path, PathBuf};

use deepcps_machine::diag::Diagnostic;
use deepcps_machine::lang::{load_language, Built, Ending, Language, Origins};
use deepcps_machine::span::SourceMap;
use deepcps_machine::syntax::load::{cannot_read, io_reason};
use deepcps_machine::syntax::RealFs;
use deepcps_machine::term::Program;

use crate::commands::{Ctx, STDIN_NAME};
use crate::exit::{EXIT_OK, EXIT_STATIC};
use crate::text::plural;

/// A language and an input of it, for a command.
#[derive(Clone, Debug)]
pub struct LangInput {
    /// The language folder.
    pub dir: PathBuf,
    /// The input file (`-`: standard input).
    pub input: PathBuf,
}

/// An input loaded: its program of action calls, the sources (the
/// generated program first) and the way back to the input.
pub struct Loaded {
    /// The program.
    pub program: Program,
    /// Its sources.
    pub sources: SourceMap,
    /// The way back to the input.
    pub origins: Origins,
}

/// Loads the language in `dir`; its diagnostics rendered if it does not
/// load.
pub fn language(dir: &Path, color: bool) -> Result<Language, String> {
    language_diags(dir).map_err(|(sources, ds)| render(&sources, &ds, color))
}

/// Loads the language in `dir`; its diagnostics, with their sources, if it
/// does not load.
pub fn language_diags(dir: &Path) -> Result<Language, (SourceMap, Vec<Diagnostic>)> {
    let mut sources = SourceMap::new();
    load_language(&RealFs, dir, &mut sources).map_err(|ds| (sources, ds))
}

/// The language folder an input file belongs to: the nearest folder
/// above it holding a language definition whose `inputs` ending the file
/// has.
pub fn language_of(file: &Path) -> Option<PathBuf> {
    let mut dir = file.parent();
    while let Some(d) = dir {
        let here = if d.as_os_str().is_empty() { Path::new(".") } else { d };
        if deepcps_machine::lang::is_language_dir(here) {
            let def = std::fs::read_to_string(here.join(deepcps_machine::lang::DEFINITION_FILE)).ok()?;
            let ending = inputs_ending(&def)?;
            return file.to_string_lossy().ends_with(&ending).then(|| here.to_path_buf());
        }
        dir = d.parent();
    }
    None
}

/// The `inputs ".EXT"` line of a definition's text, read without checking
/// the rest (discovery reads every folder's definition).
pub fn inputs_ending(def: &str) -> Option<String> {
    def.lines().find_map(|l| {
        let rest = l.trim().strip_prefix("inputs")?.trim();
        let inner = rest.strip_prefix('"')?;
        Some(inner[..inner.find('"')?].to_string())
    })
}

/// Builds the input `file` (read from disk, named `name` in diagnostics)
/// of the language in `dir`; the diagnostics and their sources if the
/// language or the input does not load.
pub fn build_file(dir: &Path, file: &Path, name: &str) -> Result<Loaded, (SourceMap, Vec<Diagnostic>)> {
    let lang = language_diags(dir)?;
    let bytes = std::fs::read(file).map_err(|e| (SourceMap::new(), vec![cannot_read(file, &e)]))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        let mut s = SourceMap::new();
        let at = e.utf8_error().valid_up_to();
        let id = s.add(name, Some(file.to_path_buf()), String::from_utf8_lossy(e.as_bytes()).into_owned());
        let span = deepcps_machine::span::Span::new(id, at, at + 1);
        let d = Diagnostic::error("utf8", "the input is not valid UTF-8", span, format!("invalid byte at offset {at}"));
        (s, vec![d])
    })?;
    lang.build(&RealFs, name, Some(file.to_path_buf()), text, Ending::Residual)
        .map(|Built { program, sources, origins }| Loaded { program, sources, origins })
}

/// The program of `sources` loaded again from its first file as it was
/// read (a run consumes its program): a program's main file, or a
/// language input's generated program of action calls.
pub fn reload(sources: &SourceMap) -> Option<Program> {
    let main = sources.files().first()?;
    let mut again = SourceMap::new();
    let id = again.add(main.name.clone(), main.path.clone(), main.text.clone());
    deepcps_machine::syntax::load_from(&RealFs, id, &mut again, false).ok()
}

fn render(sources: &SourceMap, ds: &[Diagnostic], color: bool) -> String {
    ds.iter().map(|d| d.render(sources, color)).collect()
}

/// Reads the input `file` of `lang` (bytes from `stdin` for `-`) and
/// builds the program of its action calls; the diagnostics rendered if it
/// does not build.
pub fn build(lang: &Language, file: &Path, stdin: &mut dyn Read, ending: Ending, color: bool) -> Result<Loaded, String> {
    let (name, path, bytes) = if file == Path::new("-") {
        let mut bytes = Vec::new();
        if let Err(e) = stdin.read_to_end(&mut bytes) {
            return Err(
                Diagnostic::error_nowhere("io", format!("cannot read standard input: {}", io_reason(&e))).render(&SourceMap::new(), color),
            );
        }
        (STDIN_NAME.to_string(), None, bytes)
    } else {
        let bytes = std::fs::read(file).map_err(|e| cannot_read(file, &e).render(&SourceMap::new(), color))?;
        (file.display().to_string(), Some(file.to_path_buf()), bytes)
    };
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let mut s = SourceMap::new();
            let at = e.utf8_error().valid_up_to();
            let id = s.add(name, path, String::from_utf8_lossy(e.as_bytes()).into_owned());
            let span = deepcps_machine::span::Span::new(id, at, at + 1);
            return Err(
                Diagnostic::error("utf8", "the input is not valid UTF-8", span, format!("invalid byte at offset {at}")).render(&s, color),
            );
        }
    };
    match lang.build(&RealFs, &name, path, text, ending) {
        Ok(Built { program, sources, origins }) => Ok(Loaded { program, sources, origins }),
        Err((sources, ds)) => Err(render(&sources, &ds, color)),
    }
}

/// Loads `l.dir` and the input `l.input`, as [`build`] does.
pub fn load(l: &LangInput, stdin: &mut dyn Read, ending: Ending, color: bool) -> Result<Loaded, String> {
    let lang = language(&l.dir, color)?;
    build(&lang, &l.input, stdin, ending, color)
}

impl Ctx<'_> {
    /// The program the input `file` of the language in `dir` builds, for
    /// `run` and `compile`; or, its diagnostics written to the error
    /// stream, the exit code of a static error.
    pub(crate) fn load_lang_input(&mut self, dir: &Path, file: &Path, ending: Ending) -> Result<Loaded, u8> {
        let l = LangInput {
            dir: dir.to_path_buf(),
            input: file.to_path_buf(),
        };
        load(&l, self.input, ending, self.color).map_err(|text| {
            let _ = write!(self.err, "{text}");
            EXIT_STATIC
        })
    }

    /// `deepcps check --lang DIR [INPUT]`: checks the language, and the
    /// input if given (it parses, and the program of its calls loads).
    pub fn check_lang(self, dir: &Path, input: Option<&Path>) -> u8 {
        let lang = match language(dir, self.color) {
            Ok(l) => l,
            Err(text) => {
                let _ = write!(self.err, "{text}");
                return EXIT_STATIC;
            }
        };
        let Some(input) = input else {
            let _ = writeln!(
                self.out,
                "{}: ok (the language `{}`: {}, {}, {})",
                dir.display(),
                lang.name,
                plural(lang.grammar.rules.len(), "rule", "rules"),
                plural(lang.grammar.sites.len(), "action call", "action calls"),
                plural(lang.defs.len(), "definition", "definitions")
            );
            return EXIT_OK;
        };
        match build(&lang, input, self.input, Ending::Residual, self.color) {
            Ok(loaded) => {
                let name = loaded.sources.get(loaded.origins.input).name.clone();
                let _ = writeln!(
                    self.out,
                    "{name}: ok ({} in `{}`)",
                    plural(loaded.origins.lines.len(), "action call", "action calls"),
                    lang.name
                );
                EXIT_OK
            }
            Err(text) => {
                let _ = write!(self.err, "{text}");
                EXIT_STATIC
            }
        }
    }
}
