//! Fuzz target `roundtrip`: the printing round trip of `tests/roundtrip.rs`
//! on arbitrary bytes. When the bytes load as a program (UTF-8, no
//! includes), its canonical print must load again and print identically.
//!
//! The one documented exception (ARCHITECTURE.md, known limits): a lambda
//! or built-in substituted into an expression string prints as `<lambda>`
//! or `<builtin>` and does not round-trip; such prints are skipped, as
//! `tests/roundtrip.rs` skips them.

#![no_main]

use deepcps_machine::print::Printer;
use deepcps_machine::span::SourceMap;
use deepcps_machine::syntax::load::add_source;
use deepcps_machine::syntax::{load_from, MemFs};
use libfuzzer_sys::fuzz_target;

/// Loads `text` as a program (no includes) and prints it canonically; the
/// rendered diagnostics if it does not load.
fn reprint(name: &str, text: &[u8]) -> Result<String, String> {
    let mut sources = SourceMap::new();
    let render = |sources: &SourceMap, ds: &[deepcps_machine::diag::Diagnostic]| -> String {
        ds.iter().map(|d| d.render(sources, false)).collect()
    };
    let id = add_source(&mut sources, name, None, text.to_vec()).map_err(|d| render(&sources, &[d]))?;
    let p = load_from(&MemFs::default(), id, &mut sources, false).map_err(|ds| render(&sources, &ds))?;
    Ok(Printer::new(&p.vars).program_text(&p.body))
}

fn unprintable(text: &str) -> bool {
    text.contains("<lambda>") || text.contains("<builtin>")
}

fuzz_target!(|data: &[u8]| {
    let Ok(p1) = reprint("fuzz.dcps", data) else {
        return;
    };
    if unprintable(&p1) {
        return;
    }
    match reprint("printed.dcps", p1.as_bytes()) {
        Ok(p2) => assert!(
            p1 == p2,
            "print is not a fixed point\n=== source\n{}\n=== printed\n{p1}\n=== printed again\n{p2}",
            String::from_utf8_lossy(data)
        ),
        Err(e) => panic!(
            "the printed program does not load\n=== source\n{}\n=== printed\n{p1}\n=== diagnostics\n{e}",
            String::from_utf8_lossy(data)
        ),
    }
});
