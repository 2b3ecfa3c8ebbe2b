//! The terminal debugger (`deepcps debug`), drawn on ratatui's
//! `TestBackend` after scripted keys, with the engine on the test's thread
//! (`Engine::inline`): the screens are snapshotted (insta) and checked for
//! what a user must see at each point of a debugging walkthrough: start, ten
//! steps, a step back, a breakpoint on `pt`, the end with the paper's
//! residual, help, small and large terminals.

use deepcps::debug::app::App;
use deepcps::debug::style::{Colours, Palette};
use deepcps::debug::ui::render;
use deepcps::debug::worker::{Engine, Worker};
use deepcps_machine::graph::par::Parallel;
use deepcps_machine::session::SNAPSHOT_BUDGET;
use deepcps_machine::view::Status;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::Terminal;

/// A debugger on `file` (relative to the repository root, where tests run).
struct Debugger {
    app: App,
    engine: Engine,
}

impl Debugger {
    fn open(file: &str) -> Debugger {
        Debugger::open_on(file, Parallel::sequential())
    }

    /// A debugger whose runs reduce on the threads of `par`.
    fn open_on(file: &str, par: Parallel) -> Debugger {
        let w = match Worker::load(std::path::Path::new(file), par, false, deepcps::memory::default_view_nodes() as u64) {
            Ok(w) => w,
            Err(e) => panic!("{file} does not load: {e}"),
        };
        let mut engine = Engine::inline(w);
        let first = engine.frames().expect("frames").remove(0);
        let mut app = App::new(first, Palette::new(Colours::None));
        app.frame.rss_bytes = None;
        Debugger { app, engine }
    }

    /// Types `keys`: characters as they are, `<Name>` for special keys.
    fn keys(&mut self, keys: &str) -> &mut Debugger {
        use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
        let mut rest = keys;
        while let Some(c) = rest.chars().next() {
            let (code, mods, len) = if c == '<' {
                let end = rest.find('>').expect("a closing >");
                let name = &rest[1..end];
                let code = match name {
                    "Enter" => (KeyCode::Enter, KeyModifiers::NONE),
                    "Esc" => (KeyCode::Esc, KeyModifiers::NONE),
                    "Left" => (KeyCode::Left, KeyModifiers::NONE),
                    "Right" => (KeyCode::Right, KeyModifiers::NONE),
                    "Up" => (KeyCode::Up, KeyModifiers::NONE),
                    "Down" => (KeyCode::Down, KeyModifiers::NONE),
                    "Tab" => (KeyCode::Tab, KeyModifiers::NONE),
                    "C-c" => (KeyCode::Char('c'), KeyModifiers::CONTROL),
                    "Space" => (KeyCode::Char(' '), KeyModifiers::NONE),
                    other => panic!("unknown key <{other}>"),
                };
                (code.0, code.1, end + 1)
            } else {
                (KeyCode::Char(c), KeyModifiers::NONE, c.len_utf8())
            };
            rest = &rest[len..];
            for cmd in self.app.handle_key(KeyEvent::new(code, mods)) {
                self.engine.send(cmd);
            }
            for f in self.engine.frames().expect("frames") {
                self.app.receive(f);
            }
            self.app.frame.rss_bytes = None;
        }
        self
    }

    /// The screen of a `w`×`h` terminal as text.
    fn screen(&mut self, w: u16, h: u16) -> String {
        self.app.size = Rect::new(0, 0, w, h);
        let mut t = Terminal::new(TestBackend::new(w, h)).expect("a test terminal");
        t.draw(|f| render(f, &self.app)).expect("draws");
        let buf = t.backend().buffer().clone();
        let mut out = String::new();
        for y in 0..h {
            let mut line = String::new();
            for x in 0..w {
                line.push_str(buf[(x, y)].symbol());
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }

    /// The modifiers of the first cell showing `needle` on the screen.
    fn modifiers_at(&mut self, w: u16, h: u16, needle: &str) -> Option<Modifier> {
        self.app.size = Rect::new(0, 0, w, h);
        let mut t = Terminal::new(TestBackend::new(w, h)).expect("a test terminal");
        t.draw(|f| render(f, &self.app)).expect("draws");
        let buf = t.backend().buffer().clone();
        for y in 0..h {
            let line: String = (0..w).map(|x| buf[(x, y)].symbol().to_string()).collect();
            if let Some(col) = line.find(needle) {
                let x = line[..col].chars().count() as u16;
                return Some(buf[(x, y)].modifier);
            }
        }
        None
    }
}

const FILE: &str = "corpus/paper/arith_built.dcps";

#[test]
fn start() {
    let mut d = Debugger::open(FILE);
    let s = d.screen(120, 40);
    assert!(s.contains("term · step 0"), "{s}");
    assert!(s.contains("‖ paused │ step 0"), "{s}");
    assert!(s.contains("ready 1"), "one ready body at the start: {s}");
    assert!(s.contains("next: beta at"), "{s}");
    // The ready body is drawn in the ready style (NO_COLOR: bold reversed).
    let m = d.modifiers_at(120, 40, "(push) {").expect("the ready body is on screen");
    assert_eq!(m, Palette::new(Colours::None).status(&Status::Ready).add_modifier);
    // The worklist heads the chains pane: the ready body first.
    let v = d.app.view.clone().expect("view");
    assert_eq!(v.chains[0].text, "worklist: 1 pending");
    assert!(v.chains[1].focus && v.chains[1].text.contains("(ready)"), "{:?}", v.chains[1]);
    insta::assert_snapshot!("start", s);
}

#[test]
fn ten_steps_then_back() {
    let mut d = Debugger::open(FILE);
    let s = d.keys("10s").screen(120, 40);
    assert!(s.contains("step 10 │"), "{s}");
    insta::assert_snapshot!("after_10_steps", s);
    let back = d.keys("u").screen(120, 40);
    assert!(back.contains("step 9 │"), "{back}");
    insta::assert_snapshot!("after_step_back", back);
    // Back once more and forward again: the same screen as after 9 steps.
    let again = d.keys("u<Right>").screen(120, 40);
    assert_eq!(again, back);
}

#[test]
fn breakpoint_on_pt_then_back_then_end() {
    let mut d = Debugger::open(FILE);
    let s = d.keys("bpt<Enter>").screen(120, 40);
    assert!(s.contains("breakpoint set: pt is bound"), "{s}");
    assert!(s.contains("1 [x] pt is bound"), "listed in the breakpoints pane: {s}");
    let hit = d.keys("c").screen(120, 40);
    assert!(hit.contains("breakpoint 1: pt is bound"), "{hit}");
    let step = d.app.frame.steps;
    assert!(step > 0 && step < 330, "stopped inside the run, at {step}");
    let chains = d
        .app
        .view
        .as_ref()
        .map(|v| v.chains.iter().map(|r| r.text.clone()).collect::<Vec<_>>())
        .unwrap_or_default();
    assert!(
        chains.iter().any(|r| r.contains(&format!("pt → pt handed on at step {step}"))),
        "the chains pane lists pt handed on at this step: {chains:?}"
    );
    assert!(chains.iter().any(|r| r.contains("pt ⊥ waiting")), "{chains:?}");
    let v = d.app.view.clone().expect("view");
    assert_eq!(
        v.chains[0].text, "worklist: 2 pending",
        "the ready body and the one it is nested in"
    );
    insta::assert_snapshot!("breakpoint_pt", hit);
    // Step back from the breakpoint, then run to the end.
    d.keys("u");
    assert_eq!(d.app.frame.steps, step - 1);
    let end = d.keys("r").screen(120, 40);
    assert_eq!(d.app.frame.steps, 330);
    assert!(end.contains("exit value"), "{end}");
    assert!(end.contains("■ ended"), "{end}");
    for line in [
        "(exit)[pt] {",
        "@pt: \"4*2\" (prod)[pt]",
        "@pt: \"1+prod\" (sum)[pt]",
        "@pt: \"sum+3\" (sum)[pt]",
        "@pt: exit sum",
    ] {
        assert!(end.contains(line), "the paper's residual line `{line}`: {end}");
    }
    insta::assert_snapshot!("end", end);
}

#[test]
fn on_two_threads_the_states_and_chains_are_those_of_one() {
    let mut seq = Debugger::open(FILE);
    let mut par = Debugger::open_on(FILE, Parallel::eager(2).expect("threads"));
    let s = par.screen(120, 40);
    assert!(s.contains("nodes │ 2 threads"), "{s}");
    assert!(seq.screen(120, 40).contains("nodes │ 1 thread"));
    // Runs without breakpoints (`r`, a count of steps), back, goto, and a
    // breakpoint run: the same step, term and chains pane each time.
    for keys in [
        "r",
        "u",
        "U100<Enter>",
        "40s",
        "U7<Enter>",
        "bct<Enter>c",
        "c",
        "r",
        "U0<Enter>",
        "r",
    ] {
        seq.keys(keys);
        par.keys(keys);
        let (a, b) = (&seq.app.frame, &par.app.frame);
        assert_eq!((a.steps, &a.end, &a.message), (b.steps, &b.end, &b.message), "after {keys}");
        let view = |d: &Debugger| {
            let v = d.app.view.clone().expect("view");
            let chains: Vec<String> = v.chains.iter().map(|r| r.text.clone()).collect();
            (v.step, v.program.text.clone(), chains)
        };
        assert_eq!(view(&seq), view(&par), "after {keys}");
    }
    assert_eq!(par.app.frame.steps, 330);
}

#[test]
fn help_opens_and_closes() {
    let mut d = Debugger::open(FILE);
    let s = d.keys("?").screen(120, 40);
    assert!(s.contains("deepcps debug: keys"), "{s}");
    assert!(s.contains("Esc closes this help"), "{s}");
    insta::assert_snapshot!("help", s);
    let closed = d.keys("<Esc>").screen(120, 40);
    assert!(!closed.contains("deepcps debug: keys"), "{closed}");
}

#[test]
fn small_and_large_terminals() {
    let mut d = Debugger::open(FILE);
    d.keys("5s");
    let small = d.screen(40, 12);
    assert!(small.contains("step 5"), "{small}");
    insta::assert_snapshot!("small_40x12", small);
    let large = d.screen(200, 60);
    assert!(large.contains("graph"), "{large}");
    assert!(large.contains("chains · ⊥ waits · ⊤ fired"), "{large}");
    insta::assert_snapshot!("large_200x60", large);
    let tiny = d.screen(20, 5);
    assert!(tiny.contains("too small"), "{tiny}");
    // Any size draws without a panic.
    for (w, h) in [(0, 0), (1, 1), (29, 8), (30, 7), (30, 8), (89, 15), (90, 16), (300, 3)] {
        d.screen(w, h);
    }
}

#[test]
fn search_and_jump_to_binder() {
    let mut d = Debugger::open(FILE);
    d.keys("/number<Enter>");
    let (pat, found) = d.app.search.clone().expect("a search");
    assert_eq!(pat, "number");
    assert!(found.len() >= 3, "{found:?}");
    let first = d.app.cursor;
    d.keys("n");
    assert!(d.app.cursor > first, "n goes to the next match");
    d.keys("N");
    assert_eq!(d.app.cursor, first, "N goes back");
    d.keys("<Esc>");
    assert!(d.app.search.is_none());
    // The cursor on an occurrence of F; Enter jumps to F's binder.
    let v = d.app.view.clone().expect("a view");
    let occ = v
        .program
        .occurrences
        .iter()
        .find(|o| o.binder.is_some() && &v.program.text[o.start..o.end] == "F")
        .expect("an F");
    d.app.cursor = occ.start;
    d.app.follow = false;
    d.keys("<Enter>");
    assert_eq!(Some(d.app.cursor), occ.binder.map(|b| b.0));
}

#[test]
fn count_prefix_goto_and_reduce_subtree() {
    let mut d = Debugger::open(FILE);
    d.keys("100s");
    assert_eq!(d.app.frame.steps, 100);
    d.keys("30u");
    assert_eq!(d.app.frame.steps, 70);
    d.keys("U250<Enter>");
    assert_eq!(d.app.frame.steps, 250);
    d.keys("U3<Enter>");
    assert_eq!(d.app.frame.steps, 3);
    let before = d.app.frame.steps;
    d.keys("e");
    assert!(d.app.frame.steps > before, "e reduces the ready body's subtree");
    // `n` without a search does nothing.
    let before = d.app.frame.steps;
    d.keys("n");
    assert_eq!(d.app.frame.steps, before);
}

#[test]
fn breakpoints_pane_toggles_and_deletes() {
    let mut d = Debugger::open(FILE);
    d.keys("bstep 40<Enter>bexit<Enter>");
    let v = d.app.view.clone().expect("view");
    assert_eq!(v.breakpoints.len(), 2);
    d.keys("<Tab><Tab><Tab>");
    d.keys("t");
    let v = d.app.view.clone().expect("view");
    assert!(!v.breakpoints[0].1, "the first is off");
    d.keys("c");
    assert_eq!(d.app.frame.steps, 329, "step 40 is off; stops before $exit");
    d.keys("d");
    let v = d.app.view.clone().expect("view");
    assert_eq!(v.breakpoints.len(), 1);
    // A bad breakpoint is an error message, not a crash.
    let s = d.keys("bline 9999<Enter>").screen(120, 40);
    assert!(s.contains("has no line 9999"), "{s}");
}

#[test]
fn mouse_scrolls_clicks_and_focuses_panes() {
    use crossterm::event::{KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
    use deepcps::debug::panes::Pane;
    let mut d = Debugger::open(FILE);
    d.screen(120, 40);
    let mouse = |kind, column, row| MouseEvent {
        kind,
        column,
        row,
        modifiers: KeyModifiers::NONE,
    };
    // The wheel over the program pane scrolls it and stops following.
    assert_eq!(d.app.scroll, 0);
    d.app.handle_mouse(mouse(MouseEventKind::ScrollDown, 10, 10));
    assert_eq!(d.app.scroll, 3);
    assert!(!d.app.follow);
    d.app.handle_mouse(mouse(MouseEventKind::ScrollUp, 10, 10));
    assert_eq!(d.app.scroll, 0);
    // A click on the third text line puts the cursor there.
    let cmds = d.app.handle_mouse(mouse(MouseEventKind::Down(MouseButton::Left), 5, 3));
    let v = d.app.view.clone().expect("view");
    assert_eq!(v.program.line_of(d.app.cursor), 2);
    assert!(!cmds.is_empty(), "the graph pane is told the new focus");
    // A click in the right column's lowest pane makes the breakpoints pane
    // active.
    d.app.handle_mouse(mouse(MouseEventKind::Down(MouseButton::Left), 100, 35));
    assert_eq!(d.app.active, Pane::Breakpoints);
    // Clicks outside every pane do nothing.
    assert!(d.app.handle_mouse(mouse(MouseEventKind::Down(MouseButton::Left), 5, 39)).is_empty());
}

#[test]
fn a_breakpoint_by_selection_in_the_chains_pane() {
    let mut d = Debugger::open(FILE);
    d.keys("300s<Tab><Tab>");
    let v = d.app.view.clone().expect("view");
    let row = v.chains.iter().position(|r| r.var.as_deref() == Some("pt")).expect("a pt row");
    for _ in 0..row {
        d.keys("j");
    }
    assert_eq!(d.app.chains_sel, row);
    d.keys("<Enter>");
    let v = d.app.view.clone().expect("view");
    assert_eq!(v.breakpoints.first().map(|b| b.0.as_str()), Some("pt is bound"));
}

#[test]
fn palettes_keep_statuses_apart() {
    let statuses = [
        Status::Ready,
        Status::Pending,
        Status::Stuck {
            var: deepcps_machine::term::VarId(0),
            what: "head",
        },
        Status::Error("e".into()),
        Status::Inactive,
    ];
    for colours in [Colours::None, Colours::Basic, Colours::Indexed] {
        let p = Palette::new(colours);
        let styles: Vec<_> = statuses.iter().map(|s| p.status(s)).collect();
        for i in 0..styles.len() {
            for j in 0..i {
                assert_ne!(
                    styles[i], styles[j],
                    "{colours:?}: {:?} and {:?} look alike",
                    statuses[i], statuses[j]
                );
            }
        }
        if colours == Colours::None {
            assert!(styles.iter().all(|s| s.fg.is_none() && s.bg.is_none()), "NO_COLOR uses no colour");
        }
    }
}

#[test]
fn debug_command_errors() {
    use deepcps_tests::deepcps;
    // A file that does not parse: its diagnostic, exit 2, before any terminal.
    let r = deepcps(&["debug", "corpus/err/syntax_truncated.dcps"]);
    assert_eq!(r.code, 2);
    assert!(r.err.contains("syntax_truncated.dcps"), "{}", r.err);
    // A missing file.
    let r = deepcps(&["debug", "corpus/nope.dcps"]);
    assert_eq!(r.code, 2);
    assert!(r.err.contains("nope.dcps"), "{}", r.err);
    // No threads at all.
    let r = deepcps(&["debug", "--threads", "0", FILE]);
    assert_eq!(r.code, 2);
    assert!(r.err.contains("the number of threads is at least 1"), "{}", r.err);
    // Any number of threads is fine: the refusal is the terminal's.
    let r = deepcps(&["debug", "--threads", "4", FILE]);
    assert_eq!(r.code, 2);
    assert!(r.err.contains("needs a terminal"), "{}", r.err);
    // Tests run without a terminal: a clear refusal, not a garbled screen.
    let r = deepcps(&["debug", FILE]);
    assert_eq!(r.code, 2);
    assert!(r.err.contains("needs a terminal"), "{}", r.err);
}

/// The worker on its own thread ends when told to quit; its channel closing
/// then is the answer, not the crash that `frames` reports otherwise (a
/// race between the worker's end and the UI's next look at its frames
/// must not show the crash message after `q`).
#[test]
fn a_threaded_worker_told_to_quit_is_not_reported_as_crashed() {
    use deepcps::debug::worker::Request;
    use std::time::{Duration, Instant};
    let mut engine = match Engine::spawn(FILE.into(), Parallel::sequential(), SNAPSHOT_BUDGET, false, u64::MAX) {
        Ok(e) => e,
        Err(e) => panic!("{FILE} does not load: {e}"),
    };
    let t0 = Instant::now();
    while engine.frames().expect("the worker runs").is_empty() {
        assert!(t0.elapsed() < Duration::from_secs(60), "no first frame");
        std::thread::sleep(Duration::from_millis(1));
    }
    engine.send(Request::Quit);
    // The worker ends within microseconds; every look for a second after
    // is an answer, not an error.
    let t1 = Instant::now();
    while t1.elapsed() < Duration::from_secs(1) {
        if let Err(e) = engine.frames() {
            panic!("after Quit: {e}");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn a_breakpoint_on_no_staging_variable_is_refused_with_the_choices() {
    let mut d = Debugger::open("corpus/paper/arith_built.dcps");
    for name in ["b", "zzz"] {
        d.keys(&format!("b{name}<Enter>"));
        let screen = d.screen(200, 40);
        assert!(
            screen.contains(&format!("`{name}` is no staging variable of this program; its staging variables: ")),
            "{screen}"
        );
        assert!(screen.contains("ct, next, program, pt, return"), "{screen}");
    }
    // A staging variable, also as the paper quotes it, is taken.
    d.keys("b'pt'<Enter>");
    assert!(d.screen(200, 40).contains("1 [x] pt is bound"), "{}", d.screen(200, 40));
}

#[test]
fn the_help_shows_every_line_whole() {
    let mut d = Debugger::open(FILE);
    d.keys("?");
    for (w, h) in [(200, 50), (120, 40), (80, 24)] {
        let screen = d.screen(w, h);
        // Each key and the start of its description are on the screen, and
        // every word of the descriptions (some wrapped at 80 columns).
        for deepcps::debug::keys::HelpEntry { keys: key, what, .. } in deepcps::debug::keys::KEYS {
            assert!(screen.contains(&format!("{key}  ")), "{w}x{h}: {key}\n{screen}");
            for word in what.split(' ') {
                assert!(screen.contains(word), "{w}x{h}: `{word}` of {key}\n{screen}");
            }
        }
        assert!(screen.contains("Esc closes this help"), "{w}x{h}\n{screen}");
    }
}

#[test]
fn search_says_which_match_and_when_there_is_none() {
    let mut d = Debugger::open(FILE);
    d.keys("/number<Enter>");
    let total = d.app.search.as_ref().map_or(0, |(_, f)| f.len());
    assert!(d
        .screen(120, 40)
        .contains(&format!("/number: match 1 of {total} · n next · N previous")));
    d.keys("n");
    assert!(d.screen(120, 40).contains(&format!("/number: match 2 of {total}")));
    d.keys("<Esc>/nothing-here<Enter>");
    assert!(d.screen(120, 40).contains("/nothing-here: not found"), "{}", d.screen(120, 40));
}

#[test]
fn a_narrow_screen_names_the_hidden_panes_and_fits_its_status_lines() {
    let mut d = Debugger::open(FILE);
    d.keys("5s");
    let screen = d.screen(80, 24);
    assert!(screen.contains("pane 1/4 · Tab: graph, chains, breakpoints"), "{screen}");
    for line in screen.lines() {
        assert!(line.chars().count() <= 80, "{line}");
    }
    let status: Vec<&str> = screen.lines().rev().take(2).collect();
    // The hints end whole (no word cut at the edge), with the help key.
    assert!(status[0].ends_with("? help"), "{screen}");
    assert!(status[1].starts_with("‖ paused │ step 5 │"), "{screen}");
    d.keys("<Tab>");
    assert!(d.screen(80, 24).contains("pane 2/4 · Tab: term, chains, breakpoints"));
}

#[test]
fn an_exit_value_fills_the_graph_pane_without_its_holder() {
    let mut d = Debugger::open(FILE);
    d.keys("r");
    let screen = d.screen(200, 50);
    assert!(screen.contains("exit value · step"), "{screen}");
    assert!(!screen.contains("@never: $exit"), "{screen}");
    assert!(screen.contains("[λ(exit)[pt]]"), "{screen}");
}

#[test]
fn the_exit_value_shows_whatever_the_cursor_did_before_the_run() {
    // On a screen of 20 lines the ready body of step 100 is far down the
    // program; the exit value is six lines. Following or not (`j` stops
    // following), and after `f`, the pane shows it from its first line.
    for keys in ["100sr", "100sjr", "100sjrf", "100sjrff"] {
        let mut d = Debugger::open(FILE);
        d.screen(100, 20);
        let s = d.keys(keys).screen(100, 20);
        assert!(s.contains("■ ended │ step 330"), "{keys}: {s}");
        for line in ["│(exit)[pt] {", "@pt: \"4*2\" (prod)[pt]", "@pt: exit sum"] {
            assert!(s.contains(line), "{keys}: the exit value's line `{line}`: {s}");
        }
    }
}

#[test]
fn ctrl_c_while_paused_says_how_to_quit() {
    let mut d = Debugger::open(FILE);
    let s = d.keys("<C-c>").screen(80, 24);
    let status = s.lines().nth(23).unwrap_or_default();
    assert_eq!(status, "Ctrl-C stops a run; press q to quit", "{s}");
    assert!(!d.app.quit);
    // The next key does its own work and the words go.
    let s = d.keys("s").screen(80, 24);
    assert!(s.contains("step 1 │"), "{s}");
    assert!(!s.contains("press q to quit"), "{s}");
    // In a prompt, Ctrl-C drops the prompt: that is what it did.
    let s = d.keys("b<C-c>").screen(80, 24);
    assert!(d.app.prompt.is_none());
    assert!(!s.contains("press q to quit"), "{s}");
    // After a run to the end, the same words.
    let s = d.keys("r<C-c>").screen(80, 24);
    assert!(s.contains("■ ended"), "{s}");
    assert!(s.contains("Ctrl-C stops a run; press q to quit"), "{s}");
}

/// The builders at `n` numbers, written to a temporary file.
fn builders_file(n: u64) -> String {
    let path = deepcps_tests::root().join("corpus/bench/arith_builders.dcps");
    let copy = deepcps::bench::scale::resized_copy(&path, "N", n, std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))).expect("the builders");
    copy.display().to_string()
}

#[test]
fn a_large_term_shows_a_window_that_opens_its_elided_parts() {
    let file = builders_file(300);
    let mut d = Debugger::open(&file);
    // Small at first: the whole term.
    assert!(d.screen(160, 45).contains("┌ term · step 0"), "{}", d.screen(160, 45));
    d.keys("U9000<Enter>");
    let screen = d.screen(160, 45);
    assert!(screen.contains("term window on the ready body"), "{screen}");
    assert!(screen.contains('…'), "{screen}");
    // The counts come from the machine: one ready body.
    assert!(screen.contains("ready 1"), "{screen}");
    // Off the ready body, the cursor onto the first `…` opens it.
    d.keys("fg");
    let mut opened = false;
    for _ in 0..40 {
        d.keys("j");
        if d.screen(160, 45).contains("term window on the opened part") {
            opened = true;
            break;
        }
    }
    assert!(opened, "{}", d.screen(160, 45));
    // Following again goes back to the ready body.
    d.keys("f");
    assert!(d.screen(160, 45).contains("term window on the ready body"), "{}", d.screen(160, 45));
    // Steps go on as before.
    d.keys("10s");
    assert!(d.screen(160, 45).contains("step 9010"), "{}", d.screen(160, 45));
    let _ = std::fs::remove_file(&file);
}
