//! The `deepcps` binary: runs [`deepcps::main_with`] on a thread with a large
//! stack (1 GiB, less under `ulimit -v`: deeply nested terms are walked
//! recursively in places) and exits with its code; a panic there becomes an
//! internal-error message. Its allocator counts the bytes in use, which the
//! machine's memory budget reads ([`deepcps_machine::memory`]).

use std::io::Write;
use std::process::ExitCode;

/// The allocator: the graph machine allocates and frees small nodes at every
/// step, which mimalloc serves several times faster than the system
/// allocator (scripts/bench.sh); `Cap` counts the bytes in use (no limit of
/// its own: a failed allocation aborts, the budget stops runs before).
#[global_allocator]
static GLOBAL: cap::Cap<Malloc> = cap::Cap::new(Malloc, usize::MAX);

/// mimalloc, asked for plain blocks where a layout's alignment is one every
/// block of its size has (16 bytes at most, and no more than the size, as
/// `std`'s system allocator decides), and for aligned blocks only beyond.
/// mimalloc serves an aligned request that misses its fast path from a
/// larger block class: asked always for aligned blocks, a 96-byte node
/// took a 112-byte block and the slow path at every page of them.
struct Malloc;

/// Whether a plain mimalloc block of `size` bytes has the alignment
/// `align`: blocks of 16 bytes or more are 16-byte aligned, smaller ones
/// 8-byte aligned.
fn plain(align: usize, size: usize) -> bool {
    align <= 16 && align <= size
}

// SAFETY: each method hands mimalloc's own functions the pointers and sizes
// the `GlobalAlloc` contract gives it; a plain block is used only where it
// has the layout's alignment (`plain`), and `mi_free` frees blocks of both
// kinds.
#[allow(unsafe_code)]
unsafe impl std::alloc::GlobalAlloc for Malloc {
    #[inline]
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        use libmimalloc_sys::{mi_malloc, mi_malloc_aligned};
        let (size, align) = (layout.size(), layout.align());
        // SAFETY: see the impl.
        unsafe {
            if plain(align, size) {
                mi_malloc(size)
            } else {
                mi_malloc_aligned(size, align)
            }
            .cast()
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        use libmimalloc_sys::{mi_zalloc, mi_zalloc_aligned};
        let (size, align) = (layout.size(), layout.align());
        // SAFETY: see the impl.
        unsafe {
            if plain(align, size) {
                mi_zalloc(size)
            } else {
                mi_zalloc_aligned(size, align)
            }
            .cast()
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: std::alloc::Layout) {
        // SAFETY: see the impl.
        unsafe { libmimalloc_sys::mi_free(ptr.cast()) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        use libmimalloc_sys::{mi_realloc, mi_realloc_aligned};
        let (p, align) = (ptr.cast(), layout.align());
        // SAFETY: see the impl.
        unsafe {
            if plain(align, new_size) {
                mi_realloc(p, new_size)
            } else {
                mi_realloc_aligned(p, new_size, align)
            }
            .cast()
        }
    }
}

/// The bytes in use, for the memory budget.
fn allocated() -> usize {
    GLOBAL.allocated()
}

/// Turns transparent huge pages off for the process. The machine's heap
/// grows by small nodes and gives pages back as terms shrink; with huge
/// pages, each page the allocator gives back and takes again is zeroed
/// 2 MiB at a time. Off, the builders at N=10^6 run in 0.93 of the time
/// and 0.90 of the memory (scripts/builders-bench.sh).
fn no_huge_pages() {
    #[cfg(target_os = "linux")]
    let _ = nix::sys::prctl::set_thp_disable(true);
}

fn main() -> ExitCode {
    no_huge_pages();
    // Ctrl-C stops a reduction cleanly (it reports the counts so far);
    // anywhere else, and at a second press, it ends the process.
    let _ = ctrlc::set_handler(deepcps::ctrl_c::interrupt);
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    deepcps::memory::install(allocated);
    // A spent memory budget unwinds to the run that reports it: no panic
    // message for it.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !deepcps_machine::memory::is_exhausted(info.payload()) {
            default_hook(info);
        }
    }));
    let stack = deepcps_machine::memory::stack(deepcps::memory::BIG_STACK);
    let worker = std::thread::Builder::new().stack_size(stack).spawn(move || {
        // stdout is locked for the whole command (results are written in
        // many pieces); stderr is not: the progress bar's thread and the
        // Ctrl-C handler write to it while a command runs.
        let stdout = std::io::stdout();
        let mut out = stdout.lock();
        let mut err = std::io::stderr();
        let code = deepcps::main_with(args, &mut out, &mut err);
        let _ = out.flush();
        code
    });
    let code = match worker.map(|h| h.join()) {
        Ok(Ok(code)) => code,
        Ok(Err(_)) => {
            let _ = writeln!(
                std::io::stderr(),
                "deepcps: internal error (a bug; please report it with the input)"
            );
            101
        }
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "deepcps: cannot start: {e}");
            2
        }
    };
    ExitCode::from(code)
}
