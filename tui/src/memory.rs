//! What the memory this process may use allows: the default memory budget
//! (`--max-memory`, see [`deepcps_machine::memory`]), the default node
//! limit (`--max-nodes`: as many live graph nodes as fit), and the stacks
//! of its threads, so that a runaway program stops at a limit, with a
//! message, before the allocator fails or the kernel kills it. The memory
//! is the smaller of the machine's (`/proc/meminfo`) and the address space
//! a `ulimit -v` allows.

use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};

use deepcps_machine::memory::Exhausted;
use std::sync::OnceLock;

/// Bytes a live node takes with its variable slot, tour entries and share
/// of the growing vectors (the builders and `grow [t, t]` take about 185).
const BYTES_PER_NODE: u64 = 200;

/// The most nodes the default ever allows: about 16 GB of graph.
pub const MAX_DEFAULT_NODES: usize = 80_000_000;

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
        budget = budget.min(limit.saturating_sub(overhead_within(limit)) / 2);
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

/// The largest stack a thread gets without a `ulimit -v`: deep terms are
/// walked recursively in places (the reference reducer, some views).
pub const BIG_STACK: usize = 1 << 30;

/// The stack cap under an address-space limit of `limit` bytes: a
/// thirty-second of it (the worker, the reduction threads and the
/// process's own mappings share the rest with the program's memory).
fn stack_cap_within(limit: u64) -> usize {
    usize::try_from(limit / 32).unwrap_or(BIG_STACK).clamp(8 << 20, BIG_STACK)
}

/// The stack cap of this process.
pub fn stack_cap() -> usize {
    address_space_limit().map_or(BIG_STACK, stack_cap_within)
}

/// What the process takes besides the program's memory under a `ulimit
/// -v` of `limit`: its code and data and the allocator's reserve, and for
/// the worker and two reduction threads a stack and the C library's
/// arena of each thread (64 MB of address space).
fn overhead_within(limit: u64) -> u64 {
    (384 << 20) + 3 * (stack_cap_within(limit) as u64 + (64 << 20))
}

/// The default memory budget in bytes (`--max-memory`): three quarters of
/// the machine's available memory. (A `ulimit -v` is watched apart, as
/// address space: see [`install`].)
pub fn default_max_memory() -> u64 {
    available_memory().map_or(u64::MAX, |avail| avail / 4 * 3).max(16 << 20)
}

/// The bytes in use, as the binary's counting allocator reads them.
static LIVE: OnceLock<fn() -> usize> = OnceLock::new();

/// Under a `ulimit -v`: the address space in use when [`install`] ran,
/// less the allocator's reservation ([`HEAP_RESERVED`]).
static BASE_SPACE: AtomicUsize = AtomicUsize::new(0);

/// Under a `ulimit -v`: the address space the allocator had reserved for
/// its heap when [`install`] ran (mimalloc reserves an arena of up to
/// 1 GiB at start and allocates inside it): heap, not taken.
static HEAP_RESERVED: AtomicUsize = AtomicUsize::new(0);

/// Under a `ulimit -v`: the address space the program may add, the space
/// left at start less an eighth of the limit (room for a vector that
/// doubles while its old buffer still lives); 0 without a limit.
static SPACE_BUDGET: AtomicUsize = AtomicUsize::new(0);

/// The address space added since [`install`], as last read, and the bytes
/// in use then.
static SPACE_ADDED: AtomicUsize = AtomicUsize::new(0);
static LIVE_AT_READ: AtomicUsize = AtomicUsize::new(0);

/// The most bytes in use the gauge has seen.
static PEAK_LIVE: AtomicUsize = AtomicUsize::new(0);

/// Readings of the gauge since the address space was last read.
static READINGS: AtomicU32 = AtomicU32::new(0);

/// Installs the memory gauge of the machine's budget
/// ([`deepcps_machine::memory::set_gauge`]) over `live`, the bytes the
/// process's allocator has handed out and not taken back, and caps the
/// threads' stacks.
///
/// Under a `ulimit -v` what runs out is address space, which more than the
/// bytes in use take: the C library's arena of each thread, the stacks,
/// fragments. The gauge then adds to the bytes in use the address space
/// added since start beyond the peak of the bytes in use (freed heap the
/// allocator keeps is reused, so it does not count): `/proc/self/statm`,
/// read every 1024 readings or when the bytes in use moved by 16 MB (a
/// read costs a few microseconds).
pub fn install(live: fn() -> usize) {
    let _ = LIVE.set(live);
    if let (Some(limit), Some(space)) = (address_space_limit(), space_in_use()) {
        let limit = usize::try_from(limit).unwrap_or(usize::MAX);
        let reserved = reserved_heap().min(space);
        HEAP_RESERVED.store(reserved, Ordering::Relaxed);
        let base = space - reserved;
        BASE_SPACE.store(base, Ordering::Relaxed);
        SPACE_BUDGET.store(limit.saturating_sub(base).saturating_sub(limit / 8).max(1), Ordering::Relaxed);
    }
    deepcps_machine::memory::set_stack_cap(stack_cap());
    deepcps_machine::memory::set_gauge(gauge);
}

/// The machine's memory gauge (see [`install`]): with `extra` bytes about
/// to be allocated, the memory budget or the address space spent.
fn gauge(extra: usize) -> Option<Exhausted> {
    let live = LIVE.get().map_or(0, |f| f());
    if let Some(limit) = deepcps_machine::memory::limit() {
        if live.saturating_add(extra) > limit {
            return Some(Exhausted {
                allocated: live,
                asked: extra,
                limit,
                space: false,
            });
        }
    }
    let room = SPACE_BUDGET.load(Ordering::Relaxed);
    if room == 0 {
        return None;
    }
    let readings = READINGS.fetch_add(1, Ordering::Relaxed);
    let at_read = LIVE_AT_READ.load(Ordering::Relaxed);
    if readings.is_multiple_of(1024) || live.abs_diff(at_read) > 16 << 20 {
        if let Some(space) = space_in_use() {
            SPACE_ADDED.store(space.saturating_sub(BASE_SPACE.load(Ordering::Relaxed)), Ordering::Relaxed);
            LIVE_AT_READ.store(live, Ordering::Relaxed);
        }
    }
    let peak = PEAK_LIVE.fetch_max(live, Ordering::Relaxed).max(live);
    // The allocator reuses what it keeps of freed memory: of the address
    // space added, the part up to the peak of the bytes in use, or up to
    // what it reserved at start, is heap, free now but for what is in use;
    // the rest (stacks, the C library's arenas, fragments) is taken.
    let heap = peak.max(HEAP_RESERVED.load(Ordering::Relaxed));
    let taken = SPACE_ADDED.load(Ordering::Relaxed).saturating_sub(heap);
    let used = live.saturating_add(taken);
    (used.saturating_add(extra) > room).then_some(Exhausted {
        allocated: used,
        asked: extra,
        limit: room,
        space: true,
    })
}

/// The address space the allocator has reserved for its heap, read at
/// start: the private read-write mappings of no file of 32 MiB or more
/// (Linux: `/proc/self/maps`). No thread has a stack that large yet, and
/// the main thread's is named `[stack]`.
fn reserved_heap() -> usize {
    let Ok(maps) = std::fs::read_to_string("/proc/self/maps") else {
        return 0;
    };
    maps.lines().filter_map(reserved_mapping).sum()
}

/// The size of a line of `/proc/self/maps` if it is such a reservation.
fn reserved_mapping(line: &str) -> Option<usize> {
    let mut fields = line.split_whitespace();
    let (range, perms) = (fields.next()?, fields.next()?);
    let inode = fields.nth(2)?;
    if perms != "rw-p" || inode != "0" || fields.next().is_some() {
        return None;
    }
    let (start, end) = range.split_once('-')?;
    let size = usize::from_str_radix(end, 16)
        .ok()?
        .checked_sub(usize::from_str_radix(start, 16).ok()?)?;
    (size >= 32 << 20).then_some(size)
}

/// The address space of this process in bytes (Linux: the first field of
/// `/proc/self/statm`, in pages of 4 KiB).
fn space_in_use() -> Option<usize> {
    let text = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: usize = text.split_whitespace().next()?.parse().ok()?;
    pages.checked_mul(4096)
}

/// The memory available to new work, in bytes (Linux: `MemAvailable` of
/// `/proc/meminfo`, else `MemTotal`).
fn available_memory() -> Option<u64> {
    meminfo("MemAvailable:").or_else(total_memory)
}

/// The machine's memory in bytes (Linux: `MemTotal` of `/proc/meminfo`).
fn total_memory() -> Option<u64> {
    meminfo("MemTotal:")
}

/// A line of `/proc/meminfo` in bytes.
fn meminfo(key: &str) -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with(key))?;
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
    fn stacks_and_budget_shrink_with_the_address_space() {
        // 1 GB: stacks of 32 MB, a budget that leaves room for them.
        let gb = 1_024_000_000;
        assert_eq!(stack_cap_within(gb), 32_000_000);
        assert!(overhead_within(gb) < gb * 3 / 4);
        // Tiny limits keep a usable stack; huge ones the big stack.
        assert_eq!(stack_cap_within(1 << 20), 8 << 20);
        assert_eq!(stack_cap_within(1 << 40), BIG_STACK);
        assert!(default_max_memory() >= 16 << 20);
    }

    #[test]
    fn the_allocators_reservation_is_read_from_the_maps() {
        // mimalloc's arena, reserved at start: 1 GiB, private, no file.
        let arena = "20000000000-20040000000 rw-p 00000000 00:00 0 ";
        assert_eq!(reserved_mapping(arena), Some(1 << 30));
        // A small mapping, a file's data, the stack, a guard region: not.
        for line in [
            "7f0e3ea00000-7f0e3ec00000 rw-p 00000000 00:00 0",
            "55780dda6000-55780ddc7000 rw-p 00000000 00:00 0          [heap]",
            "7f0e3ea00000-7f0e4ea00000 rw-p 00000000 08:01 1234       /usr/lib/x.so",
            "7ffd00000000-7ffd10000000 rw-p 00000000 00:00 0          [stack]",
            "7f0e3ea00000-7f0e4ea00000 ---p 00000000 00:00 0",
        ] {
            assert_eq!(reserved_mapping(line), None, "{line}");
        }
    }

    #[test]
    fn the_default_is_within_its_bounds() {
        let n = default_max_nodes();
        assert!((1000..=MAX_DEFAULT_NODES).contains(&n), "{n}");
    }
}
