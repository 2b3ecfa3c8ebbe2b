//! `deepcps bench --compiled`: each program's run-time part compiled
//! (as `deepcps compile` compiles it), its executable run and timed beside
//! the machine's run of the same part, and their results compared.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use deepcps_machine::compile::to_c_units;
use deepcps_machine::graph::calls::add_calls;
use deepcps_machine::graph::Machine;
use deepcps_machine::run::{Outcome, Report};
use deepcps_machine::span::SourceMap;
use deepcps_machine::syntax::runtime_diagnostic;
use deepcps_machine::term::Program;
use serde::{Deserialize, Serialize};

use super::run::Job;
use crate::compile::{build_units, run_time_part, RunTimePart};
use deepcps_machine::compile::Part;

/// One program's compiled run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CompiledRun {
    /// `runtime code` or `built` (the program its staging built), or why
    /// there is no executable (`not compiled: ...`).
    pub part: String,
    /// Wall time of the machine's run of the run-time part, in seconds: the
    /// row's own run for runtime code, a run of the built program (called
    /// with `$exit`) for a built one.
    pub machine_s: f64,
    /// Wall time of the executable, in seconds (0 without one).
    pub compiled_s: f64,
    /// Whether the executable printed what the machine printed (the exit
    /// value, or the error's report with its call sites) with the same
    /// exit code.
    pub agrees: bool,
}

impl CompiledRun {
    fn not_compiled(why: &str) -> CompiledRun {
        CompiledRun {
            part: format!("not compiled: {}", why.lines().next().unwrap_or_default()),
            machine_s: 0.0,
            compiled_s: 0.0,
            agrees: false,
        }
    }

    /// Whether an executable ran.
    pub fn ran(&self) -> bool {
        self.compiled_s > 0.0
    }
}

/// What the machine's run says the executable must print: standard
/// output and exit code, or standard error and the code.
enum Want {
    Out(String),
    Err(String),
}

fn want(report: &Report, program: Program, sources: &SourceMap) -> Option<Want> {
    match &report.outcome {
        Outcome::Exit(_) => Some(Want::Out(report.text.clone())),
        Outcome::Error(e) => {
            // With its call sites, as `run` reports it.
            let mut e = e.clone();
            add_calls(&mut e, program, report.counts.total());
            Some(Want::Err(runtime_diagnostic(&e, sources).render(sources, false)))
        }
        Outcome::Residual | Outcome::Limit(_) => None,
    }
}

/// Compiles `program` (as loaded for `job`), runs the executable and
/// compares it with the machine's `report` of the same program, which took
/// `machine_s` seconds.
pub fn measure(job: &Job<'_>, program: Program, sources: &SourceMap, report: &Report, machine_s: f64) -> CompiledRun {
    let rt = match run_time_part(program, job.path, sources, &job.limits, &job.par, false, &|_, d| d) {
        Ok(rt) => rt,
        Err(no) => return CompiledRun::not_compiled(&no.why),
    };
    let RunTimePart { body, vars, part } = rt;
    let units = match to_c_units(&body, &vars, sources, part, job.par.threads()) {
        Ok(units) => units,
        Err(ds) => return CompiledRun::not_compiled(&ds.first().map(|d| d.message.clone()).unwrap_or_default()),
    };
    // The machine's run of the same run-time part.
    let built_report;
    let (expected, machine_s) = match part {
        Part::Whole => (want(report, Program { body, vars }, sources), machine_s),
        Part::Built => {
            let program = Program { body, vars };
            let start = Instant::now();
            built_report = Machine::new(program.clone()).report_par(&job.limits, &job.par);
            (want(&built_report, program, sources), start.elapsed().as_secs_f64())
        }
    };
    // The executable's folder, removed with everything in it when done.
    let dir = match tempfile::Builder::new().prefix("deepcps-bench-").tempdir() {
        Ok(d) => d,
        Err(e) => return CompiledRun::not_compiled(&format!("cannot create a folder in `{}`: {e}", std::env::temp_dir().display())),
    };
    let exe = dir.path().join("program");
    if let Err(why) = build_units("cc", &units, &exe, &|_| {}) {
        return CompiledRun::not_compiled(&why);
    }
    let ran = run_exe(&exe, job.limits.timeout.unwrap_or(Duration::from_secs(60)));
    let Some((code, out, err, secs)) = ran else {
        return CompiledRun {
            part: "executable timed out".into(),
            machine_s,
            compiled_s: 0.0,
            agrees: false,
        };
    };
    let agrees = match &expected {
        Some(Want::Out(text)) => code == Some(0) && &out == text,
        Some(Want::Err(text)) => code == Some(1) && &err == text,
        None => false,
    };
    CompiledRun {
        part: match part {
            Part::Whole => "runtime code".into(),
            Part::Built => "built".into(),
        },
        machine_s,
        compiled_s: secs.max(1e-6),
        agrees,
    }
}

/// Runs `exe` for at most `limit`: its exit code, output, errors and wall
/// time, or `None` if it ran out of time (it is killed). Its output goes
/// to files beside it, so that a long one cannot block it.
fn run_exe(exe: &Path, limit: Duration) -> Option<(Option<i32>, String, String, f64)> {
    let (out_path, err_path) = (exe.with_extension("out"), exe.with_extension("err"));
    let start = Instant::now();
    let mut child = Command::new(exe)
        .stdout(Stdio::from(std::fs::File::create(&out_path).ok()?))
        .stderr(Stdio::from(std::fs::File::create(&err_path).ok()?))
        .spawn()
        .ok()?;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if start.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
            Ok(None) => std::thread::sleep(Duration::from_micros(200)),
            Err(_) => return None,
        }
    };
    let secs = start.elapsed().as_secs_f64();
    let read = |p: &Path| {
        let text = std::fs::read(p)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default();
        let _ = std::fs::remove_file(p);
        text
    };
    Some((status.code(), read(&out_path), read(&err_path), secs))
}
