//! Layers point down: every module of `machine/src` imports only from its
//! own layer and the layers below it, as the "Layers" section of
//! ARCHITECTURE.md lists them.
//!
//! The list is read from ARCHITECTURE.md (each numbered line of the section
//! is a layer, lowest first; its backticked names are top-level modules of
//! `machine/src`), and every `crate::NAME` path in the code of a module
//! (comments and `#[cfg(test)]` modules left out: tests may use anything)
//! is checked against it.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// The layers of ARCHITECTURE.md's "Layers" section: module name to layer
/// number (1 is the lowest).
fn layers(architecture: &str) -> Result<BTreeMap<String, usize>, String> {
    let section = architecture
        .split("\n## ")
        .find(|s| s.starts_with("Layers\n"))
        .ok_or("ARCHITECTURE.md has no `## Layers` section")?;
    let mut out = BTreeMap::new();
    for line in section.lines() {
        let Some((number, rest)) = line.split_once(". ") else { continue };
        let Ok(layer) = number.trim().parse::<usize>() else { continue };
        for name in rest.split('`').skip(1).step_by(2) {
            if let Some(earlier) = out.insert(name.to_string(), layer) {
                return Err(format!("`{name}` is listed in layers {earlier} and {layer}"));
            }
        }
    }
    if out.is_empty() {
        return Err("the Layers section lists no layer".into());
    }
    Ok(out)
}

/// The code of `src` without comments, string literals and `#[cfg(test)]`
/// items.
fn code_of(src: &str) -> String {
    let mut out = String::with_capacity(src.len());
    let b = src.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if src[i..].starts_with("//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if src[i..].starts_with("/*") {
            i = src[i..].find("*/").map_or(b.len(), |e| i + e + 2);
        } else if b[i] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if src[i..].starts_with("#[cfg(test)]") {
            // Skip the attribute and the item it guards: up to its `;` or
            // the brace that closes its block.
            let mut depth = 0usize;
            i += "#[cfg(test)]".len();
            while i < b.len() {
                match b[i] {
                    b'{' => depth += 1,
                    b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            i += 1;
                            break;
                        }
                    }
                    b';' if depth == 0 => {
                        i += 1;
                        break;
                    }
                    _ => {}
                }
                i += 1;
            }
        } else {
            let c = src[i..].chars().next().unwrap_or(' ');
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// The top-level module names a piece of code reaches with `crate::NAME`
/// (also inside `use crate::{a, b::c}`).
fn crate_paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        if code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
            continue; // `$crate::`, `my_crate::`
        }
        let rest = &code[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0;
            let mut name = String::new();
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        out.push(std::mem::take(&mut name));
                    }
                    _ if depth == 0 && name.contains("::") => {}
                    c if depth == 0 && (c.is_alphanumeric() || c == '_' || c == ':') => name.push(c),
                    _ => {}
                }
            }
            out.push(name);
        } else {
            out.push(rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect());
        }
    }
    out.into_iter()
        .map(|n| n.split("::").next().unwrap_or("").to_string())
        .filter(|n| !n.is_empty())
        .collect()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("machine/src is readable").flatten() {
        let p = entry.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The upward imports of the machine crate, one line each.
fn violations(root: &Path) -> Result<Vec<String>, String> {
    let architecture = fs::read_to_string(root.join("ARCHITECTURE.md")).map_err(|e| e.to_string())?;
    let layers = layers(&architecture)?;
    let src = root.join("machine/src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut out = Vec::new();
    for file in files {
        let rel = file.strip_prefix(&src).expect("under machine/src");
        let first = rel.components().next().expect("a path").as_os_str().to_string_lossy();
        let module = first.trim_end_matches(".rs").to_string();
        if module == "lib" {
            continue;
        }
        let Some(&own) = layers.get(&module) else {
            out.push(format!("module `{module}` ({}) is in no layer of ARCHITECTURE.md", rel.display()));
            continue;
        };
        let code = code_of(&fs::read_to_string(&file).map_err(|e| e.to_string())?);
        for name in crate_paths(&code) {
            match layers.get(&name) {
                Some(&layer) if layer > own => out.push(format!(
                    "machine/src/{} (layer {own}, `{module}`) imports `crate::{name}` (layer {layer})",
                    rel.display()
                )),
                Some(_) => {}
                None if name == module => {}
                None => out.push(format!("machine/src/{} names `crate::{name}`, which is in no layer", rel.display())),
            }
        }
    }
    out.dedup();
    Ok(out)
}

#[test]
fn machine_layers_point_down() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let v = violations(root).expect("the layers are listed");
    assert!(v.is_empty(), "imports that point up a layer:\n{}", v.join("\n"));
}

#[test]
fn every_top_level_module_has_a_layer() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let layers = layers(&fs::read_to_string(root.join("ARCHITECTURE.md")).expect("readable")).expect("listed");
    let lib = fs::read_to_string(root.join("machine/src/lib.rs")).expect("readable");
    let declared: Vec<&str> = lib
        .lines()
        .filter_map(|l| l.trim().trim_start_matches("pub ").strip_prefix("mod "))
        .map(|m| m.trim_end_matches(';'))
        .collect();
    assert!(declared.len() > 5, "lib.rs declares its modules");
    for m in &declared {
        assert!(
            layers.contains_key(*m),
            "`{m}` is declared in lib.rs but has no layer in ARCHITECTURE.md"
        );
    }
    for m in layers.keys() {
        assert!(
            declared.contains(&m.as_str()),
            "ARCHITECTURE.md lists `{m}`, which lib.rs does not declare"
        );
    }
}

#[test]
fn an_upward_import_is_caught() {
    let code = code_of(
        "use crate::span::Span;\n// use crate::graph::x;\nuse crate::{term::Atom, graph::Machine};\n\
         #[cfg(test)]\nmod tests { use crate::view::x; }\nfn f() { \"crate::run\"; }\n",
    );
    assert_eq!(crate_paths(&code), ["span", "term", "graph"]);
    let arch = "# A\n\n## Layers\n\n1. `span`, `diag`\n2. `graph`\n\n## Other\n3. `view`\n";
    let l = layers(arch).expect("parses");
    assert_eq!(l.get("diag"), Some(&1));
    assert_eq!(l.get("graph"), Some(&2));
    assert_eq!(l.get("view"), None, "only the Layers section counts");
    assert!(
        layers("# A\n## Layers\n\n1. `a`\n2. `a`\n").is_err(),
        "a module in two layers is refused"
    );
}
