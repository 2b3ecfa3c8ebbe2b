//! Deep sequential terms on an ordinary thread stack (no big-stack thread
//! here, unlike the binary): the front end and `Drop` iterate rather than
//! recurse, so a long chain of statements (each nested in the previous
//! one's tail lambda) neither overflows nor needs a large stack.

use deepcps_machine::span::SourceMap;
use deepcps_machine::syntax::load::add_source;
use deepcps_machine::syntax::parser::parse_file;
use deepcps_machine::syntax::{load_from, MemFs};

/// `"x0+1" (x1)` lines: every statement is nested in the previous one.
fn chain(n: usize) -> String {
    let mut s = String::with_capacity(n * 24);
    for i in 0..n {
        s.push_str(&format!("\"x{}+1\" (x{})\n", i.saturating_sub(1), i));
    }
    s.push_str(&format!("$exit x{}\n", n - 1));
    s
}

/// Runs `f` on a thread with a 2 MiB stack, the default for spawned threads.
fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .expect("spawn")
        .join()
        .expect("no stack overflow, no panic");
}

#[test]
fn a_long_chain_parses_and_drops_on_a_small_stack() {
    on_small_stack(|| {
        let text = chain(200_000);
        let mut sources = SourceMap::new();
        let id = sources.add("chain.dcps", None, text.clone());
        let file = parse_file(&text, id).expect("parses");
        assert!(file.main.is_some());
        drop(file);
    });
}

#[test]
fn a_long_chain_resolves_and_drops_on_a_small_stack() {
    on_small_stack(|| {
        let text = chain(200_000);
        let mut sources = SourceMap::new();
        // `x0` in the first line is free: resolve with free names allowed.
        let id = add_source(&mut sources, "chain.dcps", None, text.into_bytes()).expect("utf8");
        let program = load_from(&MemFs::default(), id, &mut sources, true).expect("resolves");
        assert!(program.vars.len() > 400_000);
        drop(program);
    });
}

#[test]
fn a_long_chain_prints_on_a_small_stack() {
    on_small_stack(|| {
        let n = 200_000;
        let text = chain(n);
        let mut sources = SourceMap::new();
        let id = add_source(&mut sources, "chain.dcps", None, text.into_bytes()).expect("utf8");
        let program = load_from(&MemFs::default(), id, &mut sources, true).expect("resolves");
        let printed = deepcps_machine::print::Printer::new(&program.vars).program_text(&program.body);
        assert_eq!(printed.lines().count(), n + 1);
        assert!(
            printed.starts_with("\"x0+1\" (x0)\n\"x0+1\" (x1)\n\"x1+1\" (x2)\n"),
            "{}",
            &printed[..80]
        );
        assert!(printed.ends_with("\"x199998+1\" (x199999)\n$exit x199999\n"));
    });
}
