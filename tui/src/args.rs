//! Parsers of command-line values shared by the subcommands (counts,
//! threads, megabytes, seconds), the reduction threads that `--threads`
//! asks for, and the subcommand suggested for a misspelt one.

use deepcps_machine::graph::par::Parallel;

/// A number of reduction threads: at least 1 (1 is the sequential machine).
pub fn parse_threads(s: &str) -> Result<usize, String> {
    parse_count(s, "threads", " (1 is the sequential machine)")
}

/// Megabytes, at least 1 (`--snapshot-memory`).
pub fn parse_megabytes(s: &str) -> Result<usize, String> {
    parse_count(s, "megabytes", "")
}

/// A count of `what` of at least 1 (`note` ends the error for 0).
pub fn parse_count(s: &str, what: &str, note: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        Ok(_) => Err(format!("the number of {what} is at least 1{note}")),
        Err(_) => Err(format!("`{s}` is not a number of {what}")),
    }
}

/// The reduction threads of `--threads` (all cores when absent).
pub fn parallel(threads: Option<usize>) -> Result<Parallel, String> {
    Parallel::new(threads.unwrap_or_else(Parallel::cores))
}

/// A number of seconds (fractions allowed) as a duration.
pub fn parse_seconds(s: &str) -> Result<std::time::Duration, String> {
    match s.parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 0.0 => Ok(std::time::Duration::from_secs_f64(x)),
        _ => Err(format!("`{s}` is not a number of seconds")),
    }
}

/// Adds to clap's error for an unknown subcommand the nearest of
/// `commands` by edit distance, when clap found none to suggest: clap
/// suggests by a similarity that short slips (`rn` for `run`) do not reach.
pub fn suggest_subcommand(e: &mut clap::Error, commands: &clap::Command) {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if e.kind() != ErrorKind::InvalidSubcommand || e.get(ContextKind::SuggestedSubcommand).is_some() {
        return;
    }
    let Some(ContextValue::String(typed)) = e.get(ContextKind::InvalidSubcommand) else {
        return;
    };
    let names = commands.get_subcommands().map(clap::Command::get_name);
    if let Some(near) = deepcps_machine::syntax::suggest::nearest(typed, names) {
        let near = near.to_string();
        e.insert(ContextKind::SuggestedSubcommand, ContextValue::Strings(vec![near]));
    }
}
