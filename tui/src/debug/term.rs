//! The real terminal: raw mode, the alternate screen and mouse capture,
//! restored when the debugger ends, however it ends (a guard's `Drop`, a
//! panic hook that restores before the panic message is printed, SIGTERM,
//! SIGHUP and SIGINT seen by the loop: [`super::signals`]); and the event loop
//! that joins keys, the engine's frames, signals and drawing.

use std::io::{self, Stdout};
use std::path::PathBuf;
use std::time::Duration;

use crossterm::event::{self, DisableMouseCapture, EnableMouseCapture, Event};
use crossterm::execute;
use crossterm::terminal::{disable_raw_mode, enable_raw_mode, EnterAlternateScreen, LeaveAlternateScreen};
use deepcps_machine::graph::par::Parallel;
use ratatui::backend::CrosstermBackend;
use ratatui::Terminal;

use super::app::App;
use super::signals::{Caught, Signals};
use super::style::Palette;
use super::ui::render;
use super::worker::Engine;

/// How long the loop waits for a key before looking for frames.
const POLL: Duration = Duration::from_millis(15);

/// Puts the terminal back as it was: main screen, cooked mode, no mouse
/// capture, cursor shown. Safe to call twice.
pub fn restore() {
    let _ = disable_raw_mode();
    let _ = execute!(io::stdout(), LeaveAlternateScreen, DisableMouseCapture, crossterm::cursor::Show);
}

/// Owns the terminal while the debugger runs; restores it when dropped.
struct Guard {
    terminal: Terminal<CrosstermBackend<Stdout>>,
}

impl Guard {
    fn enter() -> io::Result<Guard> {
        enable_raw_mode()?;
        let mut out = io::stdout();
        if let Err(e) = execute!(out, EnterAlternateScreen, EnableMouseCapture) {
            restore();
            return Err(e);
        }
        // The panic hook restores first, then prints the message on the
        // normal screen.
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            // A spent memory budget is caught and reported where it is
            // spent: the screen stays.
            if deepcps_machine::memory::is_exhausted(info.payload()) {
                return;
            }
            restore();
            default(info);
        }));
        match Terminal::new(CrosstermBackend::new(out)) {
            Ok(terminal) => Ok(Guard { terminal }),
            Err(e) => {
                restore();
                Err(e)
            }
        }
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        restore();
        let _ = self.terminal.show_cursor();
    }
}

/// How the debugger ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ended {
    /// `q`.
    Quit,
    /// A termination signal (the terminal was given back first).
    Signal(Caught),
}

/// Runs the debugger on `file` in the real terminal, reducing on the
/// threads of `par`, its snapshots within `snapshot_bytes`; how it ended.
/// Errors: the program does not load (its diagnostics), or the terminal
/// or the signal handlers cannot be set up, or the terminal fails.
/// With `lang`, `file` is an input of the language in that folder and the
/// debugger runs the program of its action calls.
pub fn run(
    file: PathBuf,
    lang: Option<PathBuf>,
    par: Parallel,
    snapshot_bytes: usize,
    color: bool,
    max_nodes: u64,
) -> Result<Ended, String> {
    let mut engine = match lang {
        Some(dir) => {
            let l = crate::lang::LangInput { dir, input: file };
            Engine::spawn_with(
                Box::new(move || super::worker::Worker::load_lang(&l, par, color, max_nodes)),
                snapshot_bytes,
            )?
        }
        None => Engine::spawn(file, par, snapshot_bytes, color, max_nodes)?,
    };
    let first = engine
        .wait(Duration::from_secs(60))
        .ok_or("deepcps: the debugger's worker did not answer")?;
    let mut app = App::new(first, Palette::detect());
    let signals = Signals::watch()?;
    crate::ctrl_c::hold_terminal(true);
    let guard = Guard::enter().map_err(|e| format!("deepcps: cannot set up the terminal: {e}"));
    let mut guard = match guard {
        Ok(g) => g,
        Err(e) => {
            crate::ctrl_c::hold_terminal(false);
            return Err(e);
        }
    };
    let ended = event_loop(&mut guard, &mut app, &mut engine, &signals);
    drop(guard);
    crate::ctrl_c::hold_terminal(false);
    // A hung-up terminal fails the reads and the drawing too: the signal
    // is what ended the debugger.
    match signals.caught() {
        Some(caught) => Ok(Ended::Signal(caught)),
        None => ended,
    }
}

/// Draws, reads keys and the mouse, sends requests and takes frames until
/// `q` or a signal.
fn event_loop(guard: &mut Guard, app: &mut App, engine: &mut Engine, signals: &Signals) -> Result<Ended, String> {
    let mut dirty = true;
    // For scripts/tui-e2e.sh: a panic after the first screen, to check that
    // the panic hook gives the terminal back.
    let panic_for_test = std::env::var_os("DEEPCPS_DEBUG_TEST_PANIC").is_some();
    loop {
        if let Some(caught) = signals.caught() {
            return Ok(Ended::Signal(caught));
        }
        if dirty {
            if let Ok(size) = guard.terminal.size() {
                app.size = ratatui::layout::Rect::new(0, 0, size.width, size.height);
            }
            guard
                .terminal
                .draw(|f| render(f, app))
                .map_err(|e| format!("deepcps: cannot draw: {e}"))?;
            dirty = false;
            if panic_for_test {
                panic!("DEEPCPS_DEBUG_TEST_PANIC is set: panicking after the first screen, as asked");
            }
        }
        if event::poll(POLL).map_err(|e| format!("deepcps: cannot read the terminal: {e}"))? {
            let cmds = match event::read().map_err(|e| format!("deepcps: cannot read the terminal: {e}"))? {
                Event::Key(k) => app.handle_key(k),
                Event::Mouse(m) => app.handle_mouse(m),
                Event::Resize(w, h) => {
                    app.size = ratatui::layout::Rect::new(0, 0, w, h);
                    Vec::new()
                }
                _ => Vec::new(),
            };
            for c in cmds {
                engine.send(c);
            }
            dirty = true;
        }
        // Before the frames: after `Quit` the worker ends and its channel
        // closes.
        if app.quit {
            return Ok(Ended::Quit);
        }
        for fr in engine.frames()? {
            app.receive(fr);
            dirty = true;
        }
    }
}
