//! The properties the fuzz targets of `tests/fuzz/` check, one function per
//! target, each `Err` with a description when the property fails (a panic
//! inside the machine is a failure too, reported by whoever calls them).
//! The targets include this file by path (with `gen.rs` and `compare.rs`),
//! and `tests/fuzz_regressions.rs` runs the same checks on the saved inputs
//! of `tests/inputs/fuzz/TARGET/`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use deepcps_machine::diag::Diagnostic;
use deepcps_machine::graph::Machine;
use deepcps_machine::print::Printer;
use deepcps_machine::reference::Reducer;
use deepcps_machine::run::Limits;
use deepcps_machine::span::SourceMap;
use deepcps_machine::syntax::load::add_source;
use deepcps_machine::syntax::{load_from, load_program, MemFs};

/// The libraries a fuzzed file may include, by name in `corpus/paper/`.
const LIBS: [(&str, &str); 8] = [
    ("builders.dcps", include_str!("../../corpus/paper/builders.dcps")),
    ("simple_builders.dcps", include_str!("../../corpus/paper/simple_builders.dcps")),
    (
        "simple_staged_builders.dcps",
        include_str!("../../corpus/paper/simple_staged_builders.dcps"),
    ),
    ("arith_ast_actions.dcps", include_str!("../../corpus/paper/arith_ast_actions.dcps")),
    ("arith_env_actions.dcps", include_str!("../../corpus/paper/arith_env_actions.dcps")),
    (
        "arith_simple_actions.dcps",
        include_str!("../../corpus/paper/arith_simple_actions.dcps"),
    ),
    (
        "arith_stack_actions.dcps",
        include_str!("../../corpus/paper/arith_stack_actions.dcps"),
    ),
    ("matrix_actions.dcps", include_str!("../../corpus/paper/matrix_actions.dcps")),
];

/// The step budget of each machine in [`machines`] (that of
/// `tests/equivalence.rs`).
pub const MACHINE_STEPS: u64 = 2_000;

fn render(sources: &SourceMap, ds: &[Diagnostic]) -> String {
    ds.iter().map(|d| d.render(sources, false)).collect()
}

/// `parse`: `data` is the file `corpus/paper/main.dcps` in an in-memory
/// file system that also holds the libraries of `corpus/paper/` (so the
/// paper's programs load whole) and `main.dcps` itself (an include cycle).
/// Loading must give a program or at least one diagnostic, and every
/// diagnostic must render, with and without colour.
pub fn parse(data: &[u8]) -> Result<(), String> {
    let dir = Path::new("corpus/paper");
    let main = dir.join("main.dcps");
    let mut files: HashMap<PathBuf, Vec<u8>> = LIBS.iter().map(|(n, t)| (dir.join(n), t.as_bytes().to_vec())).collect();
    files.insert(main.clone(), data.to_vec());
    let fs = MemFs(files);
    let mut sources = SourceMap::new();
    if let Err(diags) = load_program(&fs, &main, &mut sources) {
        if diags.is_empty() {
            return Err("loading failed without a diagnostic".into());
        }
        for d in &diags {
            let _ = d.render(&sources, false);
            let _ = d.render(&sources, true);
        }
    }
    Ok(())
}

/// Loads `text` as a program (no includes) and prints it canonically; the
/// rendered diagnostics if it does not load.
fn reprint(name: &str, text: &[u8]) -> Result<String, String> {
    let mut sources = SourceMap::new();
    let id = add_source(&mut sources, name, None, text.to_vec()).map_err(|d| render(&sources, &[d]))?;
    let p = load_from(&MemFs::default(), id, &mut sources, false).map_err(|ds| render(&sources, &ds))?;
    Ok(Printer::new(&p.vars).program_text(&p.body))
}

/// `roundtrip`: when `data` loads as a program (no includes), its canonical
/// print loads again and prints identically. Prints holding `<lambda>` or
/// `<builtin>` (a lambda or built-in substituted into an expression string,
/// the documented exception) are skipped, as `tests/roundtrip.rs` skips them.
pub fn roundtrip(data: &[u8]) -> Result<(), String> {
    let Ok(p1) = reprint("fuzz.dcps", data) else {
        return Ok(());
    };
    if p1.contains("<lambda>") || p1.contains("<builtin>") {
        return Ok(());
    }
    let source = String::from_utf8_lossy(data);
    match reprint("printed.dcps", p1.as_bytes()) {
        Ok(p2) if p1 == p2 => Ok(()),
        Ok(p2) => Err(format!(
            "print is not a fixed point\n=== source\n{source}\n=== printed\n{p1}\n=== printed again\n{p2}"
        )),
        Err(e) => Err(format!(
            "the printed program does not load\n=== source\n{source}\n=== printed\n{p1}\n=== diagnostics\n{e}"
        )),
    }
}

/// `machines`: `data` is the choices of the staged program generator
/// (`StagedGen::from_bytes`), so every input is a well-scoped staged
/// program; it must load, and the graph machine and the reference reducer,
/// within [`MACHINE_STEPS`] steps each, must agree as `compare` says.
pub fn machines(data: &[u8]) -> Result<(), String> {
    let src = crate::gen::StagedGen::from_bytes(data).program().src;
    let mut sources = SourceMap::new();
    let loaded = add_source(&mut sources, "gen.dcps", None, src.clone().into_bytes())
        .map_err(|d| vec![d])
        .and_then(|id| load_from(&MemFs::default(), id, &mut sources, false));
    let program = loaded.map_err(|ds| format!("the generated program does not load\n=== program\n{src}\n{}", render(&sources, &ds)))?;
    let limits = Limits {
        max_steps: MACHINE_STEPS,
        ..Limits::default()
    };
    let graph = Machine::new(program.clone()).report(&limits);
    let reference = Reducer::new(program).report(&limits);
    crate::compare::compare(&graph, &reference).map_err(|e| format!("=== program\n{src}\n{e}"))
}
