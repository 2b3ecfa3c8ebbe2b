//! A run of the graph machine judged against a program's expected outcome
//! (its `// expect:` directive): the run's end as an
//! [`Observed`], handed to [`deepcps_machine::expect::verdict`], with the
//! runtime error's message or the first diagnostic of a program that did
//! not load added to the reason. `bench` and `test` judge through it, so
//! the two commands fail the same runs for the same reasons.

use deepcps_machine::diag::Diagnostic;
use deepcps_machine::expect::{verdict, Expected, Observed};
use deepcps_machine::run::{Outcome, Report};

/// Whether the run that ended in `report` meets `expected`: `Ok`, or why
/// not. `snapshot` is the expected printed result, for the expectations
/// [`verdict`] compares it with.
pub fn judge_run(expected: Option<&Expected>, report: &Report, snapshot: Option<&str>) -> Result<(), String> {
    let limit_words;
    let (observed, detail) = match &report.outcome {
        Outcome::Exit(_) => (Observed::Exit(&report.text), None),
        Outcome::Residual => (Observed::Residual(&report.text), None),
        Outcome::Error(e) => (Observed::Error(e.kind), Some(e.message.as_str())),
        Outcome::Limit(r) => {
            limit_words = r.to_string();
            (Observed::Limit(&limit_words), None)
        }
    };
    with_detail(verdict(expected, &observed, snapshot), detail)
}

/// Whether a program that did not load, for the reasons `diags`, meets
/// `expected`: `Ok`, or why not.
pub fn judge_static(expected: Option<&Expected>, diags: &[Diagnostic]) -> Result<(), String> {
    let detail = diags.first().map(|d| d.message.as_str());
    with_detail(verdict(expected, &Observed::StaticError, None), detail)
}

/// `result`, its reason followed by `detail`, if any.
fn with_detail(result: Result<(), String>, detail: Option<&str>) -> Result<(), String> {
    result.map_err(|why| match detail {
        Some(d) => format!("{why}: {d}"),
        None => why,
    })
}

/// The printed result a `NAME.out` file holds: the file itself, or the
/// `--- result` section of a snapshot that `deepcps test` wrote (which
/// starts `outcome:`).
pub fn printed_result(out_file: &str) -> &str {
    if !out_file.starts_with("outcome: ") {
        return out_file;
    }
    let Some(at) = out_file.find("\n--- result\n") else {
        return out_file;
    };
    let rest = &out_file[at + "\n--- result\n".len()..];
    match rest.find("\n--- diagnostics\n") {
        Some(end) => &rest[..=end],
        None => rest,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use deepcps_machine::graph::Machine;
    use deepcps_machine::run::Limits;
    use deepcps_machine::span::SourceMap;
    use deepcps_machine::syntax::load::add_source;
    use deepcps_machine::syntax::{load_from, MemFs};

    /// The report of a run of `text`, or the diagnostics of its load.
    fn run(text: &str, max_steps: u64) -> Result<Report, Vec<Diagnostic>> {
        let mut sources = SourceMap::new();
        let id = add_source(&mut sources, "t.dcps", None, text.as_bytes().to_vec()).map_err(|d| vec![d])?;
        let program = load_from(&MemFs::default(), id, &mut sources, false)?;
        let limits = Limits {
            max_steps,
            ..Limits::default()
        };
        Ok(Machine::new(program).report(&limits))
    }

    fn judge(expected: Option<&Expected>, text: &str) -> Result<(), String> {
        match run(text, 1000) {
            Ok(report) => judge_run(expected, &report, None),
            Err(diags) => judge_static(expected, &diags),
        }
    }

    #[test]
    fn a_run_is_judged_by_the_verdict() {
        let exit42 = Expected::Exit(Some("42".into()));
        assert_eq!(judge(Some(&exit42), "$exit 42\n"), Ok(()));
        assert_eq!(
            judge(Some(&Expected::Exit(Some("43".into()))), "$exit 42\n"),
            Err("expected exit 43, got exit 42".into())
        );
        assert_eq!(judge(None, "$exit 42\n"), Ok(()));
        let e = judge(Some(&Expected::Residual), "fix spin(n) { \"n+1\" (m) spin m } in\nspin 0\n").expect_err("a limit");
        assert!(e.starts_with("expected residual, got step limit reached"), "{e}");
    }

    #[test]
    fn errors_and_static_errors_carry_their_message() {
        let e = judge(Some(&Expected::Exit(None)), "\"1/0\" (z)\n$exit z\n").expect_err("an error");
        assert!(e.starts_with("expected exit, got error division-by-zero: "), "{e}");
        let e = judge(Some(&Expected::Exit(None)), "$exit nowhere\n").expect_err("a static error");
        assert!(e.starts_with("expected exit, got a static error: "), "{e}");
        assert!(e.contains("nowhere"), "{e}");
        assert_eq!(judge(Some(&Expected::StaticError), "$exit nowhere\n"), Ok(()));
        let e = judge(Some(&Expected::StaticError), "$exit 1\n").expect_err("it loads");
        assert_eq!(e, "expected static-error, got exit 1");
    }
}
