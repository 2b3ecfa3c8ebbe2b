//! The `deepcps` binary: runs [`deepcps::main_with`] on a thread with a large
//! stack (1 GiB: deeply nested terms are walked recursively in places) and
//! exits with its code; a panic there becomes an internal-error message.

use std::io::Write;
use std::process::ExitCode;

/// The allocator: the graph machine allocates and frees small nodes at every
/// step, which mimalloc serves several times faster than the system
/// allocator (scripts/bench.sh).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Stack size of the worker thread.
const STACK: usize = 1 << 30;

fn main() -> ExitCode {
    // Ctrl-C stops a reduction cleanly (it reports the counts so far);
    // anywhere else, and at a second press, it ends the process.
    let _ = ctrlc::set_handler(deepcps::ctrl_c::interrupt);
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let worker = std::thread::Builder::new().stack_size(STACK).spawn(move || {
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
