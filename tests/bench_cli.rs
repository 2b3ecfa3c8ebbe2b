//! `deepcps bench`, driven in-process: the table over the paper's corpus,
//! expectations that fail, JSON and CSV, shards and their merge, baselines,
//! the plot of the scaling families, and bad input (exit code 2, never a
//! panic).

use std::path::PathBuf;

use deepcps_tests::deepcps;

/// A fresh directory under the system's temporary directory.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("bench-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn path(p: &std::path::Path) -> String {
    p.display().to_string()
}

/// The paper's programs (libraries left out).
fn paper_programs() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(deepcps_tests::root().join("corpus/paper"))
        .expect("corpus/paper")
        .map(|e| e.expect("entry").path())
        .filter(|p| {
            let text = std::fs::read_to_string(p).expect("read");
            !deepcps::bench::discover::is_library(&p.display().to_string(), &text)
        })
        .map(|p| format!("corpus/paper/{}", p.file_name().expect("name").to_string_lossy()))
        .collect();
    v.sort();
    v
}

/// The rows of a run's JSON: its programs', then its scaling runs'.
fn json_rows(text: &str) -> Vec<serde_json::Value> {
    let v: serde_json::Value = serde_json::from_str(text).expect("valid JSON");
    let mut rows = v["rows"].as_array().expect("an array of rows").clone();
    if let Some(scaling) = v.get("scaling_rows") {
        rows.extend(scaling.as_array().expect("an array of scaling rows").iter().cloned());
    }
    rows
}

#[test]
fn table_over_the_paper_has_a_row_per_program_and_a_summary() {
    let r = deepcps(&["bench", "--threads", "2", "corpus/paper"]);
    assert_eq!(r.code, 0, "{}\n{}", r.out, r.err);
    let programs = paper_programs();
    assert!(programs.len() >= 10, "{programs:?}");
    let lines: Vec<&str> = r.out.lines().collect();
    assert!(lines[0].starts_with("program"), "{}", r.out);
    for col in ["result", "steps", "beta", "wall", "steps/s", "peak nodes", "result B", "status"] {
        assert!(lines[0].contains(col), "{col}: {}", lines[0]);
    }
    let rows: Vec<&str> = lines[1..].iter().copied().filter(|l| l.starts_with("corpus/")).collect();
    assert_eq!(rows.len(), programs.len(), "{}", r.out);
    for (row, p) in rows.iter().zip(&programs) {
        assert!(row.starts_with(p.as_str()), "{row} vs {p}");
        assert!(row.ends_with("pass"), "{row}");
    }
    let built = rows.iter().find(|l| l.starts_with("corpus/paper/arith_built.dcps")).expect("row");
    assert!(built.contains(" 330 "), "{built}");
    let unbound = rows
        .iter()
        .find(|l| l.starts_with("corpus/paper/arith_env_unbound.dcps"))
        .expect("row");
    assert!(unbound.contains("error missing-key"), "{unbound}");
    let summary = lines.last().expect("summary");
    let n = programs.len();
    assert!(
        summary.starts_with(&format!("summary: {n} programs: {n} pass, 0 fail; ")),
        "{summary}"
    );
    assert!(summary.contains("libraries left out"), "{summary}");
}

#[test]
fn a_summary_of_one_says_one() {
    let dir = temp_dir("one");
    std::fs::write(dir.join("one.dcps"), "// expect: exit 1\n$exit 1\n").expect("write");
    let r = deepcps(&["bench", "--threads", "1", &path(&dir)]);
    assert_eq!(r.code, 0, "{}\n{}", r.out, r.err);
    let summary = r.out.lines().last().expect("a summary");
    assert!(summary.starts_with("summary: 1 program: 1 pass, 0 fail; 1 step, "), "{summary}");
    assert!(summary.ends_with("; 1 job at once, 1 reduction thread each"), "{summary}");
}

#[test]
fn help_keeps_code_spans_on_one_line() {
    // Joined into one line, the help's code spans hold no space: none is
    // broken across lines here, and none can be on a narrower terminal.
    for flag in ["--help", "-h"] {
        let r = deepcps(&["bench", flag]);
        assert_eq!(r.code, 0, "{}", r.err);
        let text = r.out.lines().map(str::trim).collect::<Vec<_>>().join(" ");
        assert_eq!(text.matches('`').count() % 2, 0, "unpaired backquotes:\n{}", r.out);
        let spans: Vec<&str> = text.split('`').skip(1).step_by(2).collect();
        assert!(spans.len() > 5, "{}", r.out);
        for s in spans {
            assert!(!s.contains(' '), "`{s}` can break across lines:\n{}", r.out);
        }
    }
}

#[test]
fn a_wrong_expectation_fails_the_row_and_the_exit_code() {
    let dir = temp_dir("wrong");
    std::fs::write(dir.join("eleven.dcps"), "// expect: exit 11\n$exit 12\n").expect("write");
    std::fs::write(dir.join("fine.dcps"), "// expect: exit 12\n\"5+7\" (x) $exit x\n").expect("write");
    std::fs::write(
        dir.join("arity.dcps"),
        "// expect-error: type\nlet f(x, k) { k x }\nf 1 2 (r) $exit r\n",
    )
    .expect("write");
    std::fs::write(dir.join("lib.dcps"), "let f(x, k) { k x }\n").expect("write");
    let r = deepcps(&["bench", "--json", "-", &path(&dir)]);
    assert_eq!(r.code, 1, "{}\n{}", r.out, r.err);
    let rows = json_rows(&r.out);
    assert_eq!(rows.len(), 3, "library left out: {}", r.out);
    let status = |name: &str| {
        let row = rows
            .iter()
            .find(|o| o["program"].as_str().is_some_and(|p| p.ends_with(name)))
            .expect("row");
        (
            row["status"].as_str().unwrap_or("").to_string(),
            row["reason"].as_str().unwrap_or("").to_string(),
        )
    };
    assert_eq!(status("eleven.dcps"), ("fail".into(), "expected exit 11, got exit 12".into()));
    assert_eq!(status("fine.dcps").0, "pass");
    let (s, why) = status("arity.dcps");
    assert_eq!(s, "fail");
    assert!(why.starts_with("expected error type, got error arity"), "{why}");
    // The table went to stderr, with FAIL lines and the summary.
    assert!(r.err.contains("FAIL "), "{}", r.err);
    assert!(r.err.contains("summary: 3 programs: 1 pass, 2 fail; "), "{}", r.err);
    assert!(r.err.contains("; 1 library left out"), "{}", r.err);
}

#[test]
fn residual_expectations_compare_with_the_snapshot_file() {
    let dir = temp_dir("snap");
    let src = "// expect: residual\n@never: $exit 1\n";
    std::fs::write(dir.join("good.dcps"), src).expect("write");
    std::fs::write(dir.join("bad.dcps"), src).expect("write");
    std::fs::write(dir.join("none.dcps"), src).expect("write");
    let ran = deepcps(&["run", &path(&dir.join("good.dcps"))]);
    assert_eq!(ran.code, 0, "{}", ran.err);
    std::fs::write(dir.join("good.out"), &ran.out).expect("write");
    std::fs::write(dir.join("bad.out"), "@never: $exit 2\n").expect("write");
    let r = deepcps(&["bench", "--csv", "-", &path(&dir)]);
    assert_eq!(r.code, 1, "{}\n{}", r.out, r.err);
    let fail: Vec<&str> = r.out.lines().filter(|l| l.contains(",fail,")).collect();
    assert_eq!(fail.len(), 1, "{}", r.out);
    assert!(fail[0].contains("bad.dcps") && fail[0].contains("snapshot"), "{}", fail[0]);
}

#[test]
fn json_is_the_run_and_a_row_per_program_with_a_status() {
    let dir = temp_dir("json");
    let file = dir.join("rows.json");
    let r = deepcps(&["bench", "--threads", "2", "--json", &path(&file), "corpus/err"]);
    assert_eq!(r.code, 0, "{}\n{}", r.out, r.err);
    assert!(r.out.contains("summary: "), "the table still goes to stdout: {}", r.out);
    let text = std::fs::read_to_string(&file).expect("json written");
    let run: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
    let head = &run["bench"];
    assert_eq!(head["settings"]["threads"], 2, "{head}");
    assert_eq!(head["settings"]["plot"], false, "{head}");
    assert_eq!(head["interrupted"], false, "{head}");
    assert!(head.get("shard").is_none(), "a whole run: {head}");
    assert_eq!(head["corpus"]["fingerprint"].as_str().map(str::len), Some(16), "{head}");
    let rows = json_rows(&text);
    assert_eq!(head["corpus"]["programs"].as_u64(), Some(rows.len() as u64), "{head}");
    assert!(rows.len() >= 20, "{}", rows.len());
    for o in &rows {
        assert_eq!(o["status"], "pass", "{o}");
        for key in [
            "program",
            "result",
            "steps",
            "beta",
            "expr",
            "if",
            "fix",
            "exit",
            "wall_s",
            "peak_live_nodes",
            "expectation",
        ] {
            assert!(o.get(key).is_some(), "{key} missing in {o}");
        }
    }
    let stat = rows.iter().find(|o| o["program"] == "corpus/err/static_unbound.dcps").expect("row");
    assert_eq!(
        (stat["result"].as_str(), stat["expectation"].as_str()),
        (Some("static-error"), Some("static-error"))
    );
}

#[test]
fn csv_has_a_header_and_a_record_per_program() {
    let r = deepcps(&["bench", "--csv", "-", "corpus/bench"]);
    assert_eq!(r.code, 0, "{}\n{}", r.out, r.err);
    let lines: Vec<&str> = r.out.lines().collect();
    assert!(
        lines[0].starts_with("program,result,steps,beta,expr,if,fix,exit,wall_s,"),
        "{}",
        lines[0]
    );
    let programs = std::fs::read_dir("corpus/bench")
        .expect("the benchmark folder")
        .filter(|e| e.as_ref().is_ok_and(|e| e.path().extension().is_some_and(|x| x == "dcps")))
        .count();
    assert!(programs >= 6, "{programs} benchmark programs");
    assert_eq!(lines.len(), programs + 1, "{}", r.out);
    let loop_row = lines.iter().find(|l| l.starts_with("corpus/bench/loop_sum.dcps,")).expect("row");
    assert!(
        loop_row.starts_with("corpus/bench/loop_sum.dcps,exit,6007,2003,3001,1001,1,1,"),
        "{loop_row}"
    );
    assert!(loop_row.contains(",exit 500500,pass,"), "{loop_row}");
    let summary = format!("summary: {programs} programs: {programs} pass");
    assert!(r.err.contains(&summary), "{}", r.err);
}

fn programs_of(json: &str) -> Vec<String> {
    json_rows(json)
        .iter()
        .map(|o| o["program"].as_str().expect("program").to_string())
        .collect()
}

#[test]
fn shards_partition_the_programs() {
    let all = programs_of(&deepcps(&["bench", "--json", "-", "corpus/err", "corpus/bench"]).out);
    let one = deepcps(&["bench", "--shard", "1/2", "--json", "-", "corpus/err", "corpus/bench"]);
    let two = deepcps(&["bench", "--shard", "2/2", "--json", "-", "corpus/bench", "corpus/err"]);
    assert_eq!((one.code, two.code), (0, 0), "{}{}", one.err, two.err);
    assert!(one.err.contains("; shard 1/2 of "), "{}", one.err);
    let (one, two) = (programs_of(&one.out), programs_of(&two.out));
    assert!(!one.is_empty() && !two.is_empty());
    assert!(one.iter().all(|p| !two.contains(p)), "disjoint: {one:?} {two:?}");
    let mut union: Vec<String> = one.into_iter().chain(two).collect();
    union.sort();
    assert_eq!(union, all);
}

/// A table as cells, without what depends on the clock: the columns `wall`
/// and `steps/s`, the time fits of the scaling families, and the summary
/// (whose counts are compared by the tests). Columns are two or more
/// spaces apart; no cell of these corpora holds two spaces in a row.
fn untimed_cells(table: &str) -> Vec<Vec<String>> {
    let mut timed: Vec<usize> = Vec::new();
    let mut out = Vec::new();
    for line in table.lines().filter(|l| !l.starts_with("summary:")) {
        if let Some((family, fits)) = line.split_once(": time ∝ ") {
            let memory = fits.split_once(", peak nodes ∝ ").map(|(_, m)| m).expect("a memory fit");
            out.push(vec![family.to_string(), memory.to_string()]);
            continue;
        }
        let cells: Vec<String> = line
            .split("  ")
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .map(String::from)
            .collect();
        if cells.first().is_some_and(|c| c == "program") {
            timed = cells
                .iter()
                .enumerate()
                .filter(|(_, c)| *c == "wall" || *c == "steps/s")
                .map(|(i, _)| i)
                .collect();
            assert_eq!(timed.len(), 2, "{line}");
        }
        out.push(
            cells
                .into_iter()
                .enumerate()
                .filter(|(i, _)| !timed.contains(i))
                .map(|(_, c)| c)
                .collect(),
        );
    }
    out
}

#[test]
fn merged_shards_print_the_table_of_one_run() {
    let dir = temp_dir("merge");
    // One reduction thread: peak nodes are then the same from run to run.
    let common = ["--threads", "1", "--plot", "PLOT", "--sizes", "4,6", "corpus/bench", "corpus/err"];
    let args = |plot: &std::path::Path, extra: &[String]| -> Vec<String> {
        let mut v = vec!["bench".to_string()];
        v.extend(extra.iter().cloned());
        v.extend(common.iter().map(|a| if *a == "PLOT" { path(plot) } else { a.to_string() }));
        v
    };
    let run = |argv: Vec<String>| {
        let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
        let r = deepcps(&argv);
        assert_eq!(r.code, 0, "{argv:?}: {}\n{}", r.out, r.err);
        r
    };
    let whole = run(args(&dir.join("whole.svg"), &["--json".into(), path(&dir.join("whole.json"))]));
    let shards: Vec<PathBuf> = (1..=3).map(|k| dir.join(format!("shard-{k}.json"))).collect();
    for (k, file) in shards.iter().enumerate() {
        let r = run(args(
            &dir.join(format!("shard-{k}.svg")),
            &["--shard".into(), format!("{}/3", k + 1), "--json".into(), path(file)],
        ));
        assert!(r.out.contains(&format!("; shard {}/3 of ", k + 1)), "{}", r.out);
    }
    // The files in any order.
    let merged_svg = dir.join("merged.svg");
    let merged = deepcps(&[
        "bench",
        "--merge",
        &path(&shards[2]),
        &path(&shards[0]),
        &path(&shards[1]),
        "--plot",
        &path(&merged_svg),
        "--json",
        &path(&dir.join("merged.json")),
    ]);
    assert_eq!(merged.code, 0, "{}\n{}", merged.out, merged.err);

    // The same rows, in the same order, with the same results, counts,
    // peaks and statuses; the scaling runs and memory fits too.
    let (got, want) = (untimed_cells(&merged.out), untimed_cells(&whole.out));
    assert!(want.len() > 40, "{}", whole.out);
    assert!(whole.out.contains("\nscaling runs\n"), "{}", whole.out);
    assert_eq!(got, want, "merged:\n{}\nwhole:\n{}", merged.out, whole.out);
    let summary = |out: &str| out.lines().last().expect("a summary").to_string();
    let head = |s: &str| s.split(';').next().expect("a head").to_string();
    assert_eq!(head(&summary(&merged.out)), head(&summary(&whole.out)));
    assert!(head(&summary(&whole.out)).ends_with(" pass, 0 fail"), "{}", whole.out);
    let whole_json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("whole.json")).expect("json")).expect("json");
    let n = whole_json["rows"].as_array().expect("rows").len();
    assert!(
        summary(&merged.out).contains(&format!("; merged from 3 shards of {n} programs; ")),
        "{}",
        merged.out
    );
    // The merged JSON has the rows of the whole run, and the plot its
    // families.
    let programs = |f: &str| programs_of(&std::fs::read_to_string(dir.join(f)).expect("json"));
    assert_eq!(programs("merged.json"), programs("whole.json"));
    let svg = std::fs::read_to_string(&merged_svg).expect("svg written");
    for family in ["loop_sum", "psum", "specialise_wide"] {
        assert!(svg.contains(family), "{family} not in the merged plot");
    }
}

#[test]
fn merge_refuses_shards_that_do_not_fit() {
    let dir = temp_dir("merge-bad");
    let shard = |spec: &str, extra: &[&str], name: &str| -> String {
        let file = path(&dir.join(name));
        let mut argv = vec!["bench", "--shard", spec, "--json", &file];
        argv.extend(extra);
        argv.push("corpus/bench");
        let r = deepcps(&argv);
        assert_eq!(r.code, 0, "{argv:?}: {}\n{}", r.out, r.err);
        file
    };
    let one = shard("1/3", &["--threads", "1"], "one.json");
    let two = shard("2/3", &["--threads", "1"], "two.json");
    let three = shard("3/3", &["--threads", "1"], "three.json");
    let fewer_steps = shard("3/3", &["--threads", "1", "--max-steps", "100000"], "steps.json");
    let split_two = shard("2/2", &["--threads", "1"], "half.json");
    let other_corpus = {
        let file = path(&dir.join("paper.json"));
        let r = deepcps(&["bench", "--threads", "1", "--shard", "3/3", "--json", &file, "corpus/paper"]);
        assert_eq!(r.code, 0, "{}", r.err);
        file
    };
    let doctored = |name: &str, edit: &dyn Fn(&mut serde_json::Value)| -> String {
        let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&three).expect("json")).expect("json");
        edit(&mut v);
        let file = path(&dir.join(name));
        std::fs::write(&file, serde_json::to_string(&v).expect("json")).expect("write");
        file
    };
    let interrupted = doctored("interrupted.json", &|v| v["bench"]["interrupted"] = serde_json::json!(true));
    let short = doctored("short.json", &|v| {
        v["rows"].as_array_mut().expect("rows").pop();
    });
    let bare = doctored("bare.json", &|v| *v = v["rows"].clone());

    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec![&one, &two, &two], "are both shard 2/3: the shards overlap"),
        (vec![&one, &three], "shard 2/3 of the run is missing"),
        (vec![&two], "shards 1/3, 3/3 of the run are missing"),
        (vec![&one, &two, &fewer_steps], "--max-steps 100000 against "),
        (vec![&one, &split_two], "is shard 2/2 and"),
        (vec![&one, &two, &other_corpus], "ran other corpora"),
        (vec![&one, &two, &interrupted], "Ctrl-C interrupted"),
        (vec![&one, &two, &short], "it is not the JSON that shard wrote"),
        (vec![&one, &two, &bare], "not the header of the run"),
        (vec!["corpus/bench"], "is a directory"),
    ];
    for (files, words) in cases {
        let mut argv = vec!["bench", "--merge"];
        argv.extend(files);
        let r = deepcps(&argv);
        assert_eq!(r.code, 2, "{argv:?}: {}\n{}", r.out, r.err);
        assert!(r.err.contains(words), "{argv:?}: {}", r.err);
        assert!(!r.out.contains("summary:"), "{argv:?}: {}", r.out);
    }
    // Flags of a run do not go with a merge.
    let r = deepcps(&["bench", "--merge", &one, "--threads", "2"]);
    assert_eq!(r.code, 2, "{}", r.err);
    assert!(r.err.contains("cannot be used with"), "{}", r.err);
    // The three shards merge.
    let r = deepcps(&["bench", "--merge", &one, &two, &three]);
    assert_eq!(r.code, 0, "{}\n{}", r.out, r.err);
}

#[test]
fn a_baseline_flags_regressions_and_an_equal_one_passes() {
    let dir = temp_dir("baseline");
    let base = dir.join("base.json");
    let r = deepcps(&["bench", "--json", &path(&base), "corpus/bench"]);
    assert_eq!(r.code, 0, "{}", r.err);
    let text = std::fs::read_to_string(&base).expect("baseline");

    // The same programs against their own run: steps and peaks equal (wall
    // time, which is noise here, is not flagged below 1000 s).
    let r = deepcps(&["bench", "--baseline", &path(&base), "--min-time", "1000", "corpus/bench"]);
    assert_eq!(r.code, 0, "{}\n{}", r.out, r.err);
    assert!(r.out.contains("1.00x"), "{}", r.out);
    assert!(r.out.contains(": 0 regressions (threshold 1.25x)"), "{}", r.out);

    // Steps halved in the baseline: now twice as many, a regression.
    let mut rows = json_rows(&text);
    for o in &mut rows {
        if o["program"] == "corpus/bench/loop_sum.dcps" {
            let steps = o["steps"].as_u64().expect("steps");
            o["steps"] = serde_json::json!(steps / 2);
        }
    }
    let doctored = dir.join("doctored.json");
    std::fs::write(&doctored, serde_json::to_string(&rows).expect("json")).expect("write");
    let r = deepcps(&[
        "bench",
        "--baseline",
        &path(&doctored),
        "--min-time",
        "1000",
        "--json",
        &path(&dir.join("new.json")),
        "corpus/bench",
    ]);
    assert_eq!(r.code, 1, "{}\n{}", r.out, r.err);
    assert!(
        r.out.contains("REGRESSION corpus/bench/loop_sum.dcps: steps 2.00x (3003 → 6007)"),
        "{}",
        r.out
    );
    assert!(r.out.contains(": 1 regression (threshold"), "{}", r.out);
    let new = json_rows(&std::fs::read_to_string(dir.join("new.json")).expect("new json"));
    let row = new.iter().find(|o| o["program"] == "corpus/bench/loop_sum.dcps").expect("row");
    assert_eq!(row["baseline"]["regressions"], serde_json::json!(["steps"]), "{row}");

    // Wall time scaled down a thousandfold, with no noise floor.
    let mut rows = json_rows(&text);
    for o in &mut rows {
        let w = o["wall_s"].as_f64().expect("wall");
        o["wall_s"] = serde_json::json!(w / 1000.0);
    }
    std::fs::write(&doctored, serde_json::to_string(&rows).expect("json")).expect("write");
    let r = deepcps(&[
        "bench",
        "--baseline",
        &path(&doctored),
        "--min-time",
        "0",
        "corpus/bench/loop_sum.dcps",
    ]);
    assert_eq!(r.code, 1, "{}\n{}", r.out, r.err);
    assert!(r.out.contains("REGRESSION corpus/bench/loop_sum.dcps: wall "), "{}", r.out);
}

#[test]
fn plot_draws_the_scaling_families() {
    let dir = temp_dir("plot");
    let svg = dir.join("scaling.svg");
    let r = deepcps(&[
        "bench",
        "--plot",
        &path(&svg),
        "--sizes",
        "4,8,16",
        "--json",
        &path(&dir.join("all.json")),
        // Not the whole of corpus/bench: its wide trees at size 16 (2^16
        // leaves) would take millions of steps.
        "corpus/bench/arith_builders.dcps",
        "corpus/bench/loop_sum.dcps",
        "corpus/bench/specialise.dcps",
    ]);
    assert_eq!(r.code, 0, "{}\n{}", r.out, r.err);
    let text = std::fs::read_to_string(&svg).expect("svg written");
    assert!(text.contains("<svg"), "{}", &text[..text.len().min(200)]);
    for family in ["loop_sum", "arith_builders", "specialise"] {
        assert!(text.contains(family), "{family} not in the plot");
        assert!(r.out.contains(&format!("{family}: time ∝ ")), "{}", r.out);
    }
    assert!(text.contains("slope 2 (quadratic)"));
    assert!(r.out.contains("corpus/bench/loop_sum.dcps N=16"), "{}", r.out);
    assert!(
        r.out.contains("summary: 3 programs and 9 scaling runs: 12 pass, 0 fail"),
        "{}",
        r.out
    );
    let rows = programs_of(&std::fs::read_to_string(dir.join("all.json")).expect("json"));
    assert!(rows.contains(&"corpus/bench/specialise.dcps K=8".to_string()), "{rows:?}");
}

#[test]
fn trees_are_fitted_against_their_leaves_not_their_depth() {
    // psum and tree_work have 2^D leaves (`scale: D .. size 2^D`): their
    // time grows linearly in the leaves, which against D would read as a
    // steep power.
    let dir = temp_dir("plot-trees");
    let svg = dir.join("trees.svg");
    let r = deepcps(&[
        "bench",
        "--plot",
        &path(&svg),
        "--sizes",
        "6,9,12",
        "corpus/bench/psum.dcps",
        "corpus/bench/tree_work.dcps",
    ]);
    assert_eq!(r.code, 0, "{}\n{}", r.out, r.err);
    for family in ["psum", "tree_work"] {
        let line = r
            .out
            .lines()
            .find(|l| l.starts_with(&format!("{family}: time ∝ (2^D)^")))
            .expect(family);
        // `psum: time ∝ (2^D)^0.99 (linear), ...`: the exponent after `)^`.
        let k: f64 = line
            .split_once(")^")
            .and_then(|(_, rest)| rest.split(' ').next())
            .and_then(|k| k.parse().ok())
            .expect("an exponent");
        // Against D, time linear in the leaves reads as a steep power
        // (about D ln 2 over these sizes, 6 or more); against the leaves,
        // at most linear. How far below linear it reads depends on fixed
        // costs and the machine's noise (fast runs take these trees in
        // well under a millisecond), so only the bound that tells the two
        // fits apart is checked.
        assert!(k < 1.6, "{line}");
    }
    assert!(r.out.contains("corpus/bench/psum.dcps D=9"), "{}", r.out);
    let text = std::fs::read_to_string(&svg).expect("svg written");
    assert!(text.contains("psum (time ∝ (2^D)^"), "the legend names the size");
}

#[test]
fn bad_inputs_are_usage_errors() {
    let dir = temp_dir("bad");
    let bogus = dir.join("bogus.dcps");
    std::fs::write(&bogus, "// A test.\n// expect: bogus\n$exit 1\n").expect("write");
    let misspelt = dir.join("misspelt.dcps");
    std::fs::write(&misspelt, "// A test.\n// expext: exit 42\n$exit 1\n").expect("write");
    let misscaled = dir.join("misscaled.dcps");
    std::fs::write(&misscaled, "// scael: N 10 20\nlet N = 10\n$exit N\n").expect("write");
    let missing = dir.join("nothing-here");
    std::fs::create_dir_all(dir.join("empty")).expect("empty dir");
    std::fs::write(dir.join("empty/lib.dcps"), "let f(x, k) { k x }\n").expect("write");
    let cases: Vec<(Vec<String>, &str)> = vec![
        (vec![path(&missing)], "cannot read"),
        (vec![path(&bogus)], "bogus.dcps:2: `expect: bogus`"),
        (
            vec![path(&misspelt)],
            "misspelt.dcps:2: unknown directive `expext`; did you mean `expect`?",
        ),
        (
            vec!["--plot".into(), path(&dir.join("s.svg")), path(&misscaled)],
            "misscaled.dcps:1: unknown directive `scael`; did you mean `scale`?",
        ),
        (vec!["--shard".into(), "3/2".into(), "corpus/bench".into()], "not a shard K/N"),
        (vec!["--shard".into(), "0/2".into(), "corpus/bench".into()], "not a shard K/N"),
        (
            vec!["--baseline".into(), path(&dir.join("no.json")), "corpus/bench".into()],
            "cannot read baseline",
        ),
        (
            vec!["--baseline".into(), path(&bogus), "corpus/bench".into()],
            "is not the JSON of `deepcps bench --json`",
        ),
        (
            vec!["--plot".into(), path(&dir.join("p.svg")), "corpus/paper/arith_run.dcps".into()],
            "no scaling family",
        ),
        (vec!["--threshold".into(), "0.5".into(), "corpus/bench".into()], "not a ratio"),
        (
            vec!["--threads".into(), "0".into(), "corpus/bench".into()],
            "the number of threads is at least 1",
        ),
        (
            vec!["--jobs".into(), "0".into(), "corpus/bench".into()],
            "the number of jobs is at least 1",
        ),
        (
            vec!["--jobs".into(), "x".into(), "corpus/bench".into()],
            "`x` is not a number of jobs",
        ),
        (vec![], "PATH"),
        (vec![path(&dir.join("empty"))], "no programs under"),
        (
            vec!["--plot".into(), "/nonexistent/x.svg".into(), "corpus/bench".into()],
            "--plot `/nonexistent/x.svg`: there is no directory `/nonexistent`",
        ),
        (
            vec!["--json".into(), path(&dir.join("no/such/j.json")), "corpus/bench".into()],
            "there is no directory",
        ),
        (vec!["--csv".into(), path(&dir), "corpus/bench".into()], "is a directory"),
        (
            vec!["--json".into(), "-".into(), "--csv".into(), "-".into(), "corpus/bench".into()],
            "both write to stdout",
        ),
    ];
    for (args, words) in cases {
        let mut argv = vec!["bench"];
        argv.extend(args.iter().map(String::as_str));
        let r = deepcps(&argv);
        assert_eq!(r.code, 2, "{argv:?}: {}\n{}", r.out, r.err);
        assert!(r.err.contains(words), "{argv:?}: {}", r.err);
        assert!(!r.err.contains("panicked"), "{}", r.err);
        // Refused before anything ran: no table.
        assert!(!r.out.contains("summary:"), "{argv:?}: {}", r.out);
    }
}

/// Seconds as `table::seconds` writes them (`0.560 ms`, `19.9 ms`, `1.006 s`).
fn seconds_of(words: &str) -> f64 {
    let (n, unit) = words.trim().split_once(' ').expect("a number and a unit");
    let n: f64 = n.parse().expect("a number");
    match unit {
        "ms" => n / 1e3,
        "s" => n,
        other => panic!("unit {other}"),
    }
}

#[test]
fn one_job_runs_one_program_at_a_time() {
    // Each program's time is its own: with one job, the runs' times add up
    // to no more than the whole bench took, also when each program reduces
    // on a pool of two threads.
    for _ in 0..3 {
        let r = deepcps(&["bench", "--jobs", "1", "--threads", "2", "corpus/bench", "corpus/paper"]);
        assert_eq!(r.code, 0, "{}\n{}", r.out, r.err);
        let summary = r.out.lines().find(|l| l.starts_with("summary:")).expect("a summary");
        let (_, tail) = summary.split_once(" steps, ").expect("steps");
        let (busy, tail) = tail.split_once(" of runs in ").expect("of runs in");
        let (elapsed, _) = tail.split_once(';').expect("elapsed");
        let (busy, elapsed) = (seconds_of(busy), seconds_of(elapsed));
        assert!(busy <= elapsed * 1.01 + 1e-4, "{summary}");
    }
}

#[test]
fn limits_and_thread_requests_are_rows() {
    let dir = temp_dir("limits");
    std::fs::write(dir.join("forever.dcps"), "// max-steps: 50\nfix f(x) { f x } in f 1\n").expect("write");
    std::fs::write(dir.join("two.dcps"), "// threads: 2\n$exit 1\n").expect("write");
    std::fs::write(dir.join("alone.dcps"), "// threads: 1\n// expect: exit 1\n$exit 1\n").expect("write");
    let r = deepcps(&["bench", "--json", "-", &path(&dir)]);
    assert_eq!(r.code, 1, "{}\n{}", r.out, r.err);
    let rows = json_rows(&r.out);
    let get = |n: &str| {
        rows.iter()
            .find(|o| o["program"].as_str().is_some_and(|p| p.ends_with(n)))
            .expect("row")
            .clone()
    };
    let f = get("forever.dcps");
    assert_eq!(
        (f["result"].as_str(), f["status"].as_str(), f["steps"].as_u64()),
        (Some("limit steps"), Some("fail"), Some(50))
    );
    assert!(f["reason"].as_str().unwrap_or("").contains("step limit reached"), "{f}");
    // A program's `// threads:` is the thread count of its run.
    let t = get("two.dcps");
    assert_eq!((t["status"].as_str(), t["threads"].as_u64()), (Some("pass"), Some(2)), "{t}");
    let a = get("alone.dcps");
    assert_eq!((a["status"].as_str(), a["threads"].as_u64()), (Some("pass"), Some(1)), "{a}");
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    assert_eq!(f["threads"].as_u64(), Some(cores), "{f}");
}

#[test]
fn threads_and_jobs_change_no_count() {
    // `--threads` is each program's reduction threads, `--jobs` how many
    // programs run at once: neither changes a result or a step count.
    let base = deepcps(&["bench", "--threads", "1", "--json", "-", "corpus/bench"]);
    assert_eq!(base.code, 0, "{}\n{}", base.out, base.err);
    let counts = |text: &str| -> Vec<(String, String, u64, u64, u64)> {
        json_rows(text)
            .iter()
            .map(|o| {
                (
                    o["program"].as_str().unwrap_or("").to_string(),
                    o["result"].as_str().unwrap_or("").to_string(),
                    o["steps"].as_u64().unwrap_or(0),
                    o["beta"].as_u64().unwrap_or(0),
                    o["result_bytes"].as_u64().unwrap_or(0),
                )
            })
            .collect()
    };
    assert!(json_rows(&base.out).iter().all(|o| o["threads"] == 1), "{}", base.out);
    assert!(base.err.contains("; 1 job at once, 1 reduction thread each"), "{}", base.err);
    for args in [["--threads", "2", "--jobs", "1"], ["--threads", "8", "--jobs", "3"]] {
        let mut argv = vec!["bench"];
        argv.extend(args);
        argv.extend(["--json", "-", "corpus/bench"]);
        let r = deepcps(&argv);
        assert_eq!(r.code, 0, "{argv:?}: {}\n{}", r.out, r.err);
        assert_eq!(counts(&r.out), counts(&base.out), "{argv:?}");
        let n: u64 = args[1].parse().expect("n");
        assert!(json_rows(&r.out).iter().all(|o| o["threads"] == n), "{}", r.out);
        let jobs = if args[3] == "1" {
            "1 job".to_string()
        } else {
            format!("{} jobs", args[3])
        };
        assert!(
            r.err.contains(&format!("; {jobs} at once, {n} reduction threads each")),
            "{}",
            r.err
        );
    }
    // The CSV has the column too.
    let r = deepcps(&["bench", "--threads", "2", "--csv", "-", "corpus/bench/loop_sum.dcps"]);
    assert_eq!(r.code, 0, "{}", r.err);
    let lines: Vec<&str> = r.out.lines().collect();
    assert!(lines[0].contains(",result_bytes,threads,expectation,"), "{}", lines[0]);
    assert!(lines[1].contains(",2,exit 500500,pass,"), "{}", lines[1]);
}

#[test]
fn compiled_runs_the_executables_beside_the_machine() {
    let r = deepcps(&[
        "bench",
        "--compiled",
        "--json",
        "-",
        "corpus/bench/loop_sum.dcps",
        "corpus/bench/psum.dcps",
    ]);
    assert_eq!(r.code, 0, "{}\n{}", r.out, r.err);
    let rows = json_rows(&r.out);
    let row = |name: &str| {
        rows.iter()
            .find(|x| x["program"] == name)
            .unwrap_or_else(|| panic!("no row {name}: {}", r.out))
    };
    let looped = &row("corpus/bench/loop_sum.dcps")["compiled"];
    assert_eq!(looped["part"], "runtime code", "{looped}");
    assert_eq!(looped["agrees"], true, "{looped}");
    assert!(looped["compiled_s"].as_f64().is_some_and(|s| s > 0.0), "{looped}");
    // The staged tree sum runs to its end while staging: no executable.
    let staged = &row("corpus/bench/psum.dcps")["compiled"];
    assert!(
        staged["part"]
            .as_str()
            .is_some_and(|p| p.starts_with("not compiled: staging ran it to its end")),
        "{staged}"
    );
    let table = deepcps(&["bench", "--compiled", "corpus/bench/loop_sum.dcps"]);
    let header: Vec<&str> = table
        .out
        .lines()
        .next()
        .expect("a header")
        .split("  ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect();
    assert!(header.ends_with(&["compiled", "vs machine", "same"]), "{}", table.out);
    // How many times faster or slower, in words: never a ratio below 1.
    let row = table.out.lines().nth(1).expect("a row");
    let (_, speed) = row.trim_end().trim_end_matches("yes").trim_end().rsplit_once("  ").expect("cells");
    let (ratio, words) = speed.trim().split_once("× ").expect("a ratio");
    assert!(matches!(words, "faster" | "slower"), "{row}");
    assert!(ratio.parse::<f64>().is_ok_and(|r| r >= 1.0), "{row}");
}
