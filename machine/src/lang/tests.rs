//! Unit tests of the language layer: the definition's syntax, the grammar
//! checks, the scanner and the engine's call order, the generated program
//! and the way back to the input.

use std::collections::HashMap;
use std::path::PathBuf;

use crate::lang::def::parse_definition;
use crate::lang::engine::{parse, MAX_DEPTH};
use crate::lang::grammar::{compile, Grammar};
use crate::lang::scan::scan;
use crate::lang::{load_language, Ending};
use crate::span::{FileId, SourceMap};
use crate::syntax::MemFs;

const ARITH: &str = r#"
language t
actions "a.dcps"
skip whitespace
skip line "//"
skip block "/*" "*/"
token NUM number
token ID name
rule program = expr ;
rule expr = term ("+" term @add | "-" ^sub term)* ;
rule term = NUM @number(NUM) | ID @name(ID) | "(" expr ")" | "let" ID "=" @bind(ID) expr ;
"#;

fn grammar(text: &str) -> Grammar {
    let d = parse_definition(text, FileId(0)).expect("parses");
    compile(&d).unwrap_or_else(|e| panic!("{e:?}"))
}

/// The actions called for `input`, with their arguments, in order.
fn calls(g: &Grammar, input: &str) -> Vec<String> {
    let toks = scan(g, input, FileId(1)).expect("scans");
    let calls = parse(g, &toks).expect("parses");
    calls
        .iter()
        .map(|c| {
            let site = &g.sites[c.site as usize];
            let args: Vec<&str> = c.args.iter().map(|&t| &input[toks[t].span.range()]).collect();
            if args.is_empty() {
                site.action.clone()
            } else {
                format!("{}({})", site.action, args.join(","))
            }
        })
        .collect()
}

#[test]
fn post_order_and_hoisted_calls() {
    let g = grammar(ARITH);
    assert_eq!(calls(&g, "1+2+3"), ["number(1)", "number(2)", "add", "number(3)", "add"]);
    // `^sub` goes before what the rule produced so far.
    assert_eq!(calls(&g, "1-2-3"), ["sub", "sub", "number(1)", "number(2)", "number(3)"]);
    assert_eq!(calls(&g, "(1-2)+x"), ["sub", "number(1)", "number(2)", "name(x)", "add"]);
    // A keyword is not a name; an action takes the latest token of its rule.
    assert_eq!(calls(&g, "let y = 4 /* c */ // d\n"), ["bind(y)", "number(4)"]);
}

#[test]
fn a_failed_alternative_takes_back_its_calls() {
    let g = grammar(
        r#"actions "a.dcps"
        token NUM number
        rule p = NUM @one(NUM) "!" | NUM @two(NUM) "?" ;"#,
    );
    assert_eq!(calls(&g, "5?"), ["two(5)"]);
}

#[test]
fn parse_errors_say_what_was_expected() {
    let g = grammar(ARITH);
    let toks = scan(&g, "1+", FileId(1)).expect("scans");
    let e = parse(&g, &toks).expect_err("fails");
    assert_eq!(
        e.message,
        "expected `(`, `let`, a name (ID) or a number (NUM), found the end of the input"
    );
    let toks = scan(&g, "1 2", FileId(1)).expect("scans");
    let e = parse(&g, &toks).expect_err("fails");
    assert!(
        e.message.starts_with("expected `+`, `-` or the end of the input, found a number"),
        "{}",
        e.message
    );
}

#[test]
fn scanning_errors() {
    let g = grammar(ARITH);
    assert!(scan(&g, "1 # 2", FileId(1))
        .expect_err("fails")
        .message
        .contains("unexpected character `#`"));
    assert!(scan(&g, "1 /* open", FileId(1)).expect_err("fails").message.contains("not closed"));
    assert!(scan(&g, "123456789012345678901234", FileId(1))
        .expect_err("fails")
        .message
        .contains("too large"));
}

#[test]
fn grammar_checks() {
    let check = |rules: &str| {
        let text = format!("actions \"a.dcps\"\ntoken NUM number\n{rules}");
        let d = parse_definition(&text, FileId(0)).expect("parses");
        compile(&d).err().map(|e| e[0].message.clone()).unwrap_or_default()
    };
    assert_eq!(check("rule a = a NUM | NUM ;"), "the rule `a` is left-recursive: a → a");
    assert_eq!(
        check("rule a = b? c ; rule b = NUM ; rule c = a? \"x\" ;"),
        "the rule `a` is left-recursive: a → c → a"
    );
    assert_eq!(check("rule a = (NUM?)* ;"), "the rule `a` repeats a part that can match nothing");
    assert_eq!(check("rule a = b ;"), "`b` is neither a rule nor a token");
    assert_eq!(
        check("rule a = @f(NUM) NUM ;"),
        "the token `NUM` is not matched before this action in rule `a`"
    );
    assert_eq!(check("rule a = NUM ; rule a = NUM ;"), "the rule `a` is defined twice");
    assert_eq!(check(""), "the language definition has no rule");
    assert_eq!(check("rule a = x:NUM y:NUM @f(x, y) ;"), "");
}

#[test]
fn definition_syntax_errors() {
    let err = |text: &str| parse_definition(text, FileId(0)).expect_err("fails").message;
    assert_eq!(err("rule a = NUM"), "expected `;`, found the end of the file");
    assert_eq!(
        err("rule a = ;"),
        "expected a part of the rule (write `epsilon` for nothing), found `;`"
    );
    assert_eq!(err("grammar x"), "`grammar` does not start a line of a language definition");
    assert_eq!(err("actions \"a\" actions \"b\""), "`actions` is given twice");
    assert_eq!(err("skip tabs"), "`skip tabs` is not a kind of skipping");
    assert_eq!(err("rule a = \"x"), "this string is not closed");
    let deep = format!("rule a = {}NUM{} ;", "(".repeat(500), ")".repeat(500));
    assert!(err(&deep).contains("nest more than"));
}

#[test]
fn nesting_is_bounded() {
    let g = grammar(ARITH);
    let input = format!("{}1{}", "(".repeat(MAX_DEPTH), ")".repeat(MAX_DEPTH));
    let toks = scan(&g, &input, FileId(1)).expect("scans");
    assert!(parse(&g, &toks).expect_err("too deep").message.contains("nests more than"));
}

#[test]
fn parsing_is_linear_in_the_input() {
    let g = grammar(ARITH);
    let time = |n: usize| {
        let input: Vec<String> = (1..=n).map(|i| i.to_string()).collect();
        let input = input.join("+");
        let start = std::time::Instant::now();
        let toks = scan(&g, &input, FileId(1)).expect("scans");
        let calls = parse(&g, &toks).expect("parses");
        assert_eq!(calls.len(), 2 * n - 1);
        start.elapsed()
    };
    // 10^5 tokens; a quadratic engine would take 100 times as long as at
    // 10^4, a linear one about 10 times.
    let small = time(5_000);
    let large = time(50_000);
    eprintln!("scan and parse: {small:?} at 10^4 tokens, {large:?} at 10^5");
    assert!(large.as_secs_f64() < 2.0, "10^5 tokens took {large:?}");
    assert!(
        large.as_secs_f64() < 40.0 * small.as_secs_f64().max(1e-4),
        "{small:?} then {large:?}"
    );
}

fn fs(files: &[(&str, &str)]) -> MemFs {
    MemFs(
        files
            .iter()
            .map(|(p, t)| (PathBuf::from(p), t.as_bytes().to_vec()))
            .collect::<HashMap<_, _>>(),
    )
}

const ACTIONS: &str = "let start(return) { return 0 }\nlet number(F, v, return) { \"F+v\" (F) return F }\nlet add(F, return) { return F }\nlet end(F, return) { return F }\n";

#[test]
fn a_language_builds_the_program_of_its_calls() {
    let def = "actions \"a.dcps\"\nskip whitespace\ntoken NUM number\nrule p = NUM @number(NUM) (\"+\" NUM @number(NUM) @add)* ;\n";
    let files = fs(&[("l/language.lang", def), ("l/a.dcps", ACTIONS)]);
    let lang = load_language(&files, "l".as_ref(), &mut SourceMap::new()).expect("loads");
    let built = match lang.build(&files, "in.t", None, "2 + 40".to_string(), Ending::Residual) {
        Ok(b) => b,
        Err((s, ds)) => panic!("{}", ds[0].render(&s, false)),
    };
    let generated = &built.sources.get(built.origins.generated).text;
    assert!(
        generated.contains("start (F)\nnumber F 2 (F)\nnumber F 40 (F)\nadd F (F)\nend F (program)\n$exit program\n"),
        "{generated}"
    );
    // Each call line leads back to its input.
    let input = &built.sources.get(built.origins.input).text;
    let places: Vec<(&str, &str)> = built
        .origins
        .lines
        .iter()
        .map(|o| (o.action.as_str(), &input[o.place.range()]))
        .collect();
    assert_eq!(
        places,
        [("start", "2"), ("number", "2"), ("number", "40"), ("add", "2 + 40"), ("end", "")]
    );
}

#[test]
fn actions_are_held_to_their_definitions() {
    let load = |def: &str| {
        let files = fs(&[("l/language.lang", def), ("l/a.dcps", ACTIONS)]);
        let mut sources = SourceMap::new();
        load_language(&files, "l".as_ref(), &mut sources)
            .err()
            .map(|e| e[0].message.clone())
            .unwrap_or_default()
    };
    let head = "actions \"a.dcps\"\ntoken NUM number\n";
    assert_eq!(load(&format!("{head}rule p = NUM @number(NUM) ;")), "");
    assert_eq!(
        load(&format!("{head}rule p = NUM @numbr(NUM) ;")),
        "the action `numbr` is not defined in `l/a.dcps`"
    );
    assert_eq!(
        load(&format!("{head}rule p = NUM @add(NUM) ;")),
        "the action `add` takes 2 parameters (F, return), and this call passes 3"
    );
    assert_eq!(
        load(&format!("{head}start number\nrule p = NUM ;")),
        "the start action `number` takes 3 parameters (F, v, return); the run passes it 1, the continuation"
    );
    assert_eq!(
        load("token NUM number\nrule p = NUM ;"),
        "the definition does not name its actions file"
    );
}
