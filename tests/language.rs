//! The examples of LANGUAGE.md are real: wherever a program block is followed
//! by a sentence ending in "prints" and another block, running the program
//! prints exactly that block.

use deepcps_machine::reference::Reducer;
use deepcps_machine::run::Limits;
use deepcps_machine::span::SourceMap;
use deepcps_machine::syntax::load::add_source;
use deepcps_machine::syntax::{load_from, MemFs};
use deepcps_tests::root;

/// The fenced blocks of `text` and the prose just before each.
fn blocks(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut prose = String::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.starts_with("```") {
            let mut code = String::new();
            for l in lines.by_ref() {
                if l.starts_with("```") {
                    break;
                }
                code.push_str(l);
                code.push('\n');
            }
            out.push((std::mem::take(&mut prose), code));
        } else if !line.trim().is_empty() {
            prose = line.trim().to_string();
        }
    }
    out
}

fn printed(src: &str) -> String {
    let mut sources = SourceMap::new();
    let id = add_source(&mut sources, "example.dcps", None, src.as_bytes().to_vec()).expect("utf8");
    let program = load_from(&MemFs::default(), id, &mut sources, false).unwrap_or_else(|ds| {
        panic!(
            "example does not load:\n{src}\n{}",
            ds.iter().map(|d| d.render(&sources, false)).collect::<String>()
        )
    });
    Reducer::new(program).report(&Limits::default()).text
}

#[test]
fn language_reference_examples_print_what_they_say() {
    let text = std::fs::read_to_string(root().join("LANGUAGE.md")).expect("LANGUAGE.md");
    let blocks = blocks(&text);
    let mut checked = 0;
    for pair in blocks.windows(2) {
        let ((_, program), (prose, output)) = (&pair[0], &pair[1]);
        if prose.ends_with("prints") {
            assert_eq!(printed(program), *output, "LANGUAGE.md example:\n{program}");
            checked += 1;
        }
    }
    assert!(checked >= 8, "only {checked} examples found");
}
