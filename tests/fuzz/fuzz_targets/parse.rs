//! Fuzz target `parse`: arbitrary bytes as a program file. Loading (UTF-8
//! check, lexer, parser, includes, resolution, static checks) must return a
//! program or diagnostics, never panic; rendering the diagnostics (with and
//! without colour) must not panic either.
//!
//! The file is `corpus/paper/main.dcps` in an in-memory file system that
//! also holds the libraries of `corpus/paper/` (so the seeds, the paper's
//! programs, load whole) and `main.dcps` itself (an include cycle).

#![no_main]

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use deepcps_machine::span::SourceMap;
use deepcps_machine::syntax::{load_program, MemFs};
use libfuzzer_sys::fuzz_target;

/// The libraries the fuzzed file may include, by name in `corpus/paper/`.
const LIBS: [(&str, &str); 8] = [
    ("builders.dcps", include_str!("../../../corpus/paper/builders.dcps")),
    ("simple_builders.dcps", include_str!("../../../corpus/paper/simple_builders.dcps")),
    ("simple_staged_builders.dcps", include_str!("../../../corpus/paper/simple_staged_builders.dcps")),
    ("arith_ast_actions.dcps", include_str!("../../../corpus/paper/arith_ast_actions.dcps")),
    ("arith_env_actions.dcps", include_str!("../../../corpus/paper/arith_env_actions.dcps")),
    ("arith_simple_actions.dcps", include_str!("../../../corpus/paper/arith_simple_actions.dcps")),
    ("arith_stack_actions.dcps", include_str!("../../../corpus/paper/arith_stack_actions.dcps")),
    ("matrix_actions.dcps", include_str!("../../../corpus/paper/matrix_actions.dcps")),
];

fuzz_target!(|data: &[u8]| {
    let dir = Path::new("corpus/paper");
    let main = dir.join("main.dcps");
    let mut files: HashMap<PathBuf, Vec<u8>> = LIBS.iter().map(|(n, t)| (dir.join(n), t.as_bytes().to_vec())).collect();
    files.insert(main.clone(), data.to_vec());
    let fs = MemFs(files);
    let mut sources = SourceMap::new();
    if let Err(diags) = load_program(&fs, &main, &mut sources) {
        assert!(!diags.is_empty(), "a load failed without a diagnostic");
        for d in &diags {
            let _ = d.render(&sources, false);
            let _ = d.render(&sources, true);
        }
    }
});
