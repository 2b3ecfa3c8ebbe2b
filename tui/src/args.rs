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

/// A size in bytes (`--max-memory`): a number with an optional unit, `K`,
/// `M` or `G` (powers of 1000, `B` after them optional), at least 1 MB.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let t = t.strip_suffix(['B', 'b']).unwrap_or(t);
    let (num, scale) = match t.char_indices().last() {
        Some((i, 'k' | 'K')) => (&t[..i], 1e3),
        Some((i, 'm' | 'M')) => (&t[..i], 1e6),
        Some((i, 'g' | 'G')) => (&t[..i], 1e9),
        _ => (t, 1.0),
    };
    match num.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && x * scale >= 1e6 && x * scale < 1.8e19 => Ok((x * scale) as u64),
        Ok(x) if x.is_finite() && x >= 0.0 => Err(format!("`{s}` is less than the smallest memory budget, 1M")),
        _ => Err(format!("`{s}` is not a size (a number of bytes, or with a unit: `800M`, `4G`)")),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_take_units() {
        assert_eq!(parse_size("800M"), Ok(800_000_000));
        assert_eq!(parse_size("4G"), Ok(4_000_000_000));
        assert_eq!(parse_size("1.5GB"), Ok(1_500_000_000));
        assert_eq!(parse_size("2000000"), Ok(2_000_000));
        assert!(parse_size("12").is_err_and(|e| e.contains("smallest")));
        assert!(parse_size("lots").is_err_and(|e| e.contains("not a size")));
        assert!(parse_size("-3G").is_err());
    }
}
