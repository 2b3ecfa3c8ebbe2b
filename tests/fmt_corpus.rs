//! `deepcps fmt` preserves meaning: every corpus program, replaced by its
//! canonical formatting (includes still resolved from disk), gives the same
//! outcome, step counts and result; and formatting is idempotent.

use std::ffi::OsString;
use std::path::Path;

use deepcps_machine::syntax::RealFs;
use deepcps_tests::{outcome_via, root, Overlay};

fn fmt(path: &Path) -> Option<String> {
    let argv: Vec<OsString> = vec![
        "deepcps".into(),
        "fmt".into(),
        "--drop-comments".into(),
        path.as_os_str().to_owned(),
    ];
    let (mut out, mut err) = (Vec::new(), Vec::new());
    (deepcps::main_with(argv, &mut out, &mut err) == 0).then(|| String::from_utf8_lossy(&out).into_owned())
}

#[test]
fn formatting_every_corpus_program_preserves_its_meaning() {
    let base = root();
    std::env::set_current_dir(&base).expect("root");
    let mut checked = 0;
    let mut stack = vec![base.join("corpus")];
    while let Some(dir) = stack.pop() {
        let mut entries: Vec<_> = std::fs::read_dir(&dir).expect("corpus dir").flatten().map(|e| e.path()).collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            if p.extension().and_then(|e| e.to_str()) != Some("dcps") {
                continue;
            }
            let rel = p.strip_prefix(&base).unwrap_or(&p).to_path_buf();
            // Programs that do not parse have nothing to format.
            let Some(formatted) = fmt(&rel) else { continue };
            let original = outcome_via(&RealFs, &rel, 200_000);
            let overlay = Overlay {
                path: rel.clone(),
                text: formatted.clone(),
            };
            let reformatted = outcome_via(&overlay, &rel, 200_000);
            assert_eq!(
                original,
                reformatted,
                "{}: formatting changed the meaning:\n{formatted}",
                rel.display()
            );
            // Idempotent: formatting the formatted text changes nothing.
            let tmp = std::env::temp_dir().join(format!("deepcps-fmt-{}-{}", std::process::id(), checked));
            std::fs::write(&tmp, &formatted).expect("write");
            assert_eq!(
                fmt(&tmp).as_deref(),
                Some(formatted.as_str()),
                "{}: fmt is not idempotent",
                rel.display()
            );
            checked += 1;
        }
    }
    assert!(checked >= 40, "only {checked} programs checked");
}
