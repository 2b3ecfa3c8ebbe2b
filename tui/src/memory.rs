//! The default node limit (`--max-nodes`): as many live graph nodes as fit
//! in the memory this process may use, so that a runaway program stops at
//! a limit, with a message, before the allocator fails or the kernel kills
//! it. The memory is the smaller of the machine's (`/proc/meminfo`) and the
//! address space a `ulimit -v` allows.

/// Bytes a live node takes with its variable slot, tour entries and share
/// of the growing vectors (the builders and `grow [t, t]` take about 185).
const BYTES_PER_NODE: u64 = 200;

/// The most nodes the default ever allows: about 16 GB of graph.
pub const MAX_DEFAULT_NODES: usize = 80_000_000;

/// Address space the process takes besides the graph: the 1 GiB stack of
/// the worker thread, the reduction threads' stacks, the allocator's
/// reservations.
const RESERVED: u64 = 3 << 29;

/// The default of `--max-nodes`.
pub fn default_max_nodes() -> usize {
    let mut budget = u64::MAX;
    if let Some(total) = total_memory() {
        // Three quarters of the machine: the rest for the printed result
        // and everything else that runs.
        budget = budget.min(total / 4 * 3);
    }
    if let Some(limit) = address_space_limit() {
        // Vectors that double need room for the old and the new copy.
        budget = budget.min(limit.saturating_sub(RESERVED) / 2);
    }
    let nodes = budget / BYTES_PER_NODE;
    usize::try_from(nodes).unwrap_or(usize::MAX).clamp(1000, MAX_DEFAULT_NODES)
}

/// The default of `--max-nodes` for the views (`dot`, `chains`, `dump
/// --step`, the debugger): a term node in a view's lambda graph, with its
/// label and layout, takes about ten times a graph node.
pub fn default_view_nodes() -> usize {
    (default_max_nodes() / 10).max(1000)
}

/// The machine's memory in bytes (Linux: `MemTotal` of `/proc/meminfo`).
fn total_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kb.checked_mul(1024)
}

/// The soft limit of the address space (`ulimit -v`), if there is one.
#[cfg(unix)]
fn address_space_limit() -> Option<u64> {
    let (soft, _) = rlimit::getrlimit(rlimit::Resource::AS).ok()?;
    (soft != rlimit::INFINITY).then_some(soft)
}

#[cfg(not(unix))]
fn address_space_limit() -> Option<u64> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_is_within_its_bounds() {
        let n = default_max_nodes();
        assert!((1000..=MAX_DEFAULT_NODES).contains(&n), "{n}");
    }
}
