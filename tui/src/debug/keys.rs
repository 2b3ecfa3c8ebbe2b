//! The debugger's keys: one table ([`KEYS`]) from which both the key
//! dispatch ([`App::handle_key`](super::app::App::handle_key), through
//! [`binding`]) and the help overlay (`ui`) are made, so the two cannot
//! drift apart.
//!
//! Each [`HelpEntry`] is one line of the help: the keys it names, what they do,
//! and the [`KeyBinding`]s it documents (a key or keys, when they apply, the
//! [`Action`]). A line names the main keys of its bindings; the others are
//! alternatives (the arrows for `j`/`k`, PageUp/PageDown, `g`/`G`, Home/End,
//! `w`, `=`, `x`, Delete) that the help leaves out so it fits 80×24. Two
//! lines name no keys: they explain marks on the screen. [`HELP_KEYS`] is
//! the help's own line, its last: the keys that open and close it.
//!
//! Text being typed (the prompts) and a count typed before a command keep
//! their own handling in the app.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::panes::Pane;

/// A key of a binding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    /// The key, with or without modifiers (Shift-Tab is its own code).
    Code(KeyCode),
    /// The letter with Ctrl held.
    Ctrl(char),
}

impl Key {
    /// Whether `ev` is this key.
    pub fn matches(self, ev: &KeyEvent) -> bool {
        match self {
            Key::Code(c) => ev.code == c,
            Key::Ctrl(c) => ev.code == KeyCode::Char(c) && ev.modifiers.contains(KeyModifiers::CONTROL),
        }
    }

    /// The key's name as the help writes it.
    pub fn name(self) -> String {
        match self {
            Key::Ctrl(c) => format!("Ctrl-{}", c.to_ascii_uppercase()),
            Key::Code(KeyCode::Char(' ')) => "space".into(),
            Key::Code(KeyCode::Char(c)) => c.to_string(),
            Key::Code(KeyCode::Right) => "→".into(),
            Key::Code(KeyCode::Left) => "←".into(),
            Key::Code(KeyCode::Up) => "↑".into(),
            Key::Code(KeyCode::Down) => "↓".into(),
            Key::Code(KeyCode::Tab) => "Tab".into(),
            Key::Code(KeyCode::BackTab) => "Shift-Tab".into(),
            Key::Code(KeyCode::Enter) => "Enter".into(),
            Key::Code(KeyCode::Esc) => "Esc".into(),
            Key::Code(c) => c.to_string(),
        }
    }
}

/// What state the debugger is in, for the keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyState {
    /// A prompt is being typed.
    Prompt,
    /// The help overlay is open.
    Help,
    /// A background run is going on.
    Running,
    /// Paused, keys going to this pane.
    Paused(Pane),
}

impl KeyState {
    /// Every state, for tests of the table.
    pub const ALL: [KeyState; 7] = [
        KeyState::Prompt,
        KeyState::Help,
        KeyState::Running,
        KeyState::Paused(Pane::Program),
        KeyState::Paused(Pane::Graph),
        KeyState::Paused(Pane::Chains),
        KeyState::Paused(Pane::Breakpoints),
    ];
}

/// When a binding applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum When {
    /// In every state, a prompt and the help included.
    Always,
    /// In the help overlay.
    Help,
    /// While running or paused (not in a prompt or the help).
    Screen,
    /// While a background run goes on.
    Running,
    /// While paused, whatever the pane.
    Paused,
    /// While paused, with one of these panes active.
    In(&'static [Pane]),
}

impl When {
    /// Whether it applies in `state`.
    pub fn applies(self, state: KeyState) -> bool {
        match (self, state) {
            (When::Always, _) => true,
            (When::Help, KeyState::Help) => true,
            (When::Screen, KeyState::Running | KeyState::Paused(_)) => true,
            (When::Running, KeyState::Running) => true,
            (When::Paused, KeyState::Paused(_)) => true,
            (When::In(panes), KeyState::Paused(p)) => panes.contains(&p),
            _ => false,
        }
    }
}

/// What a key does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Pause a run (and drop a prompt being typed).
    Pause,
    /// Quit (pausing a run first).
    Quit,
    /// Open the help.
    OpenHelp,
    /// Close the help.
    CloseHelp,
    /// End the search.
    EndSearch,
    /// Step (the count, or 1).
    Step,
    /// Step back (the count, or 1).
    Back,
    /// Prompt for a step to go to.
    GotoPrompt,
    /// Reduce the focused body's subtree.
    Reduce,
    /// Continue to a breakpoint or the end.
    Continue,
    /// Run to the end, breakpoints ignored.
    RunToEnd,
    /// Prompt for a breakpoint.
    BreakPrompt,
    /// The next pane.
    NextPane,
    /// The previous pane.
    PrevPane,
    /// Follow the ready body on or off.
    Follow,
    /// Prompt for a search.
    SearchPrompt,
    /// The next match of the search.
    NextMatch,
    /// The previous match of the search.
    PrevMatch,
    /// Program pane: the line below.
    LineDown,
    /// Program pane: the line above.
    LineUp,
    /// Program pane: a page down.
    PageDown,
    /// Program pane: a page up.
    PageUp,
    /// Program pane: the first line.
    Top,
    /// Program pane: the last line.
    Bottom,
    /// Program pane: the next variable occurrence.
    NextVar,
    /// Program pane: the previous variable occurrence.
    PrevVar,
    /// Program pane: the binder of the variable at the cursor.
    ToBinder,
    /// Graph pane: zoom in.
    ZoomIn,
    /// Graph pane: zoom out.
    ZoomOut,
    /// Graph pane: pan left.
    PanLeft,
    /// Graph pane: pan right.
    PanRight,
    /// Graph pane: pan up.
    PanUp,
    /// Graph pane: pan down.
    PanDown,
    /// Graph pane: centre on the focus again.
    Recentre,
    /// Graph pane: a larger radius.
    RadiusUp,
    /// Graph pane: a smaller radius.
    RadiusDown,
    /// Chains pane: the row below.
    ChainDown,
    /// Chains pane: the row above.
    ChainUp,
    /// Chains pane: a breakpoint on the selected row's variable.
    BreakOnChain,
    /// Breakpoints pane: the row below.
    BreakpointDown,
    /// Breakpoints pane: the row above.
    BreakpointUp,
    /// Breakpoints pane: turn the selected one on or off.
    ToggleBreakpoint,
    /// Breakpoints pane: delete the selected one.
    RemoveBreakpoint,
}

/// Keys that do one thing in some states.
#[derive(Debug)]
pub struct KeyBinding {
    /// The keys (any of them).
    pub keys: &'static [Key],
    /// When they apply.
    pub when: When,
    /// What they do.
    pub action: Action,
}

/// One line of the help and the bindings it documents.
#[derive(Debug)]
pub struct HelpEntry {
    /// The keys as the help names them.
    pub keys: &'static str,
    /// What they do, as the help says it.
    pub what: &'static str,
    /// The bindings (none for a line that explains a mark on the screen).
    pub bindings: &'static [KeyBinding],
}

const fn bind(keys: &'static [Key], when: When, action: Action) -> KeyBinding {
    KeyBinding { keys, when, action }
}

const fn ch(c: char) -> Key {
    Key::Code(KeyCode::Char(c))
}

const PROGRAM: When = When::In(&[Pane::Program]);
const GRAPH: When = When::In(&[Pane::Graph]);
const CHAINS: When = When::In(&[Pane::Chains]);
const BREAKPOINTS: When = When::In(&[Pane::Breakpoints]);
const UP: Key = Key::Code(KeyCode::Up);
const DOWN: Key = Key::Code(KeyCode::Down);
const ENTER: Key = Key::Code(KeyCode::Enter);

/// The keys, one help line each, in the order the help shows them.
pub const KEYS: &[HelpEntry] = &[
    HelpEntry {
        keys: "s, →",
        what: "one step (a count first: 100s)",
        bindings: &[bind(&[ch('s'), Key::Code(KeyCode::Right)], When::Paused, Action::Step)],
    },
    HelpEntry {
        keys: "u, ←",
        what: "one step back (100u)",
        bindings: &[bind(&[ch('u'), Key::Code(KeyCode::Left)], When::Paused, Action::Back)],
    },
    HelpEntry {
        keys: "U",
        what: "back (or forward) to a step you type",
        bindings: &[bind(&[ch('U')], When::Paused, Action::GotoPrompt)],
    },
    HelpEntry {
        keys: "e",
        what: "reduce the focused body's subtree",
        bindings: &[bind(&[ch('e')], When::Paused, Action::Reduce)],
    },
    HelpEntry {
        keys: "c",
        what: "continue to a breakpoint or the end",
        bindings: &[bind(&[ch('c')], When::Paused, Action::Continue)],
    },
    HelpEntry {
        keys: "r",
        what: "run to the end (breakpoints ignored)",
        bindings: &[bind(&[ch('r')], When::Paused, Action::RunToEnd)],
    },
    HelpEntry {
        keys: "space, Ctrl-C",
        what: "pause a run",
        bindings: &[
            bind(&[ch(' ')], When::Running, Action::Pause),
            bind(&[Key::Ctrl('c')], When::Always, Action::Pause),
        ],
    },
    HelpEntry {
        keys: "b",
        what: "breakpoint: pt (a staging variable), 12, file:12, step N, exit, error, stuck",
        // In the chains pane, `b` breaks on the selected row (the Enter line).
        bindings: &[bind(
            &[ch('b')],
            When::In(&[Pane::Program, Pane::Graph, Pane::Breakpoints]),
            Action::BreakPrompt,
        )],
    },
    HelpEntry {
        keys: "Tab, Shift-Tab",
        what: "next / previous pane (a narrow screen shows one at a time)",
        bindings: &[
            bind(&[Key::Code(KeyCode::Tab)], When::Paused, Action::NextPane),
            bind(&[Key::Code(KeyCode::BackTab)], When::Paused, Action::PrevPane),
        ],
    },
    HelpEntry {
        keys: "f",
        what: "follow the ready body on/off",
        bindings: &[bind(&[ch('f')], When::Paused, Action::Follow)],
    },
    HelpEntry {
        keys: "/  n  N",
        what: "search the term; next, previous match; Esc ends the search",
        bindings: &[
            bind(&[ch('/')], When::Paused, Action::SearchPrompt),
            bind(&[ch('n')], When::Paused, Action::NextMatch),
            bind(&[ch('N')], When::Paused, Action::PrevMatch),
            bind(&[Key::Code(KeyCode::Esc)], When::Paused, Action::EndSearch),
        ],
    },
    HelpEntry {
        keys: "j k h l",
        what: "program: lines, variables; graph: pan",
        bindings: &[
            bind(&[ch('j'), DOWN], PROGRAM, Action::LineDown),
            bind(&[ch('k'), UP], PROGRAM, Action::LineUp),
            bind(&[Key::Code(KeyCode::PageDown)], PROGRAM, Action::PageDown),
            bind(&[Key::Code(KeyCode::PageUp)], PROGRAM, Action::PageUp),
            bind(&[ch('g'), Key::Code(KeyCode::Home)], PROGRAM, Action::Top),
            bind(&[ch('G'), Key::Code(KeyCode::End)], PROGRAM, Action::Bottom),
            bind(&[ch('l'), ch('w')], PROGRAM, Action::NextVar),
            bind(&[ch('h')], PROGRAM, Action::PrevVar),
            bind(&[ch('h')], GRAPH, Action::PanLeft),
            bind(&[ch('l')], GRAPH, Action::PanRight),
            bind(&[ch('k'), UP], GRAPH, Action::PanUp),
            bind(&[ch('j'), DOWN], GRAPH, Action::PanDown),
            bind(&[ch('j'), DOWN], CHAINS, Action::ChainDown),
            bind(&[ch('k'), UP], CHAINS, Action::ChainUp),
            bind(&[ch('j'), DOWN], BREAKPOINTS, Action::BreakpointDown),
            bind(&[ch('k'), UP], BREAKPOINTS, Action::BreakpointUp),
        ],
    },
    HelpEntry {
        keys: "Enter",
        what: "program: jump to the binder; chains: break on the variable",
        bindings: &[
            bind(&[ENTER], PROGRAM, Action::ToBinder),
            bind(&[ENTER, ch('b')], CHAINS, Action::BreakOnChain),
        ],
    },
    HelpEntry {
        keys: "+ - [ ] 0",
        what: "graph: zoom, radius, recentre",
        bindings: &[
            bind(&[ch('+'), ch('=')], GRAPH, Action::ZoomIn),
            bind(&[ch('-')], GRAPH, Action::ZoomOut),
            bind(&[ch('[')], GRAPH, Action::RadiusDown),
            bind(&[ch(']')], GRAPH, Action::RadiusUp),
            bind(&[ch('0')], GRAPH, Action::Recentre),
        ],
    },
    HelpEntry {
        keys: "t  d",
        what: "breakpoints: toggle, delete",
        bindings: &[
            bind(&[ch('t'), ENTER], BREAKPOINTS, Action::ToggleBreakpoint),
            bind(
                &[ch('d'), ch('x'), Key::Code(KeyCode::Delete)],
                BREAKPOINTS,
                Action::RemoveBreakpoint,
            ),
        ],
    },
    HelpEntry {
        keys: "⊥  ⊤",
        what: "chains: a staging variable unbound, or bound (its bodies fired)",
        bindings: &[],
    },
    HelpEntry {
        keys: "…",
        what: "a large term's part left out: f off, the cursor on it opens it",
        bindings: &[],
    },
    HelpEntry {
        keys: "q",
        what: "quit",
        bindings: &[bind(&[ch('q')], When::Screen, Action::Quit)],
    },
];

/// The help's own keys, its last line (shown without the key column: the
/// status line names `?`).
pub const HELP_KEYS: HelpEntry = HelpEntry {
    keys: "?",
    what: "Esc closes this help",
    bindings: &[
        bind(&[ch('?')], When::Screen, Action::OpenHelp),
        bind(&[Key::Code(KeyCode::Esc), ch('?'), ch('q')], When::Help, Action::CloseHelp),
    ],
};

/// Every entry: the help's lines in order, then its own keys.
pub fn entries() -> impl Iterator<Item = &'static HelpEntry> {
    KEYS.iter().chain(std::iter::once(&HELP_KEYS))
}

/// The binding of `key` in `state`, with the help line it is on.
/// A Ctrl chord's own binding comes first: a letter's binding takes the
/// letter with any modifiers (Ctrl-C pauses, Ctrl-S steps).
pub fn binding(key: &KeyEvent, state: KeyState) -> Option<(&'static HelpEntry, &'static KeyBinding)> {
    let find = |chord: bool| {
        entries().find_map(|e| {
            e.bindings
                .iter()
                .find(|b| b.when.applies(state) && b.keys.iter().any(|k| matches!(k, Key::Ctrl(_)) == chord && k.matches(key)))
                .map(|b| (e, b))
        })
    };
    find(true).or_else(|| find(false))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The keys a help line names: its label's words (", " and spaces
    /// separate them).
    fn named(label: &str) -> Vec<&str> {
        label.split([',', ' ']).filter(|w| !w.is_empty()).collect()
    }

    fn event(key: Key) -> KeyEvent {
        match key {
            Key::Code(c) => KeyEvent::new(c, KeyModifiers::NONE),
            Key::Ctrl(c) => KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL),
        }
    }

    #[test]
    fn every_binding_is_on_a_help_line_that_names_its_keys() {
        for e in entries() {
            assert!(!e.what.is_empty(), "{e:?}");
            if e.bindings.is_empty() {
                continue;
            }
            assert!(!e.keys.is_empty(), "{e:?}");
            // The line names no key that does something else, or nothing.
            let bound: Vec<String> = e.bindings.iter().flat_map(|b| b.keys).map(|k| k.name()).collect();
            for word in named(e.keys) {
                assert!(
                    bound.iter().any(|b| b == word),
                    "`{word}` of `{}` is bound on another line or none",
                    e.keys
                );
            }
            // Each binding's first key is named by its line (its label or,
            // for Esc, a word of the description), but for the moves the
            // help leaves out for room.
            for b in e.bindings {
                let first = b.keys[0].name();
                let said = named(e.keys).contains(&first.as_str()) || e.what.split(' ').any(|w| w == first);
                assert!(said || UNNAMED.contains(&b.action), "{b:?} is not named by `{}`", e.keys);
            }
        }
    }

    /// The bindings whose keys the help does not name (see the header).
    const UNNAMED: &[Action] = &[Action::PageDown, Action::PageUp, Action::Top, Action::Bottom];

    #[test]
    fn dispatch_finds_each_binding_on_its_own_line() {
        for e in entries() {
            for b in e.bindings {
                for &k in b.keys {
                    for state in KeyState::ALL.into_iter().filter(|s| b.when.applies(*s)) {
                        let found = binding(&event(k), state);
                        assert!(
                            found.is_some_and(|(fe, fb)| std::ptr::eq(fe, e) && std::ptr::eq(fb, b)),
                            "{} in {state:?}: {:?} instead of {b:?} on `{}`",
                            k.name(),
                            found.map(|f| f.1),
                            e.keys
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn no_key_is_bound_twice_in_one_state() {
        for state in KeyState::ALL {
            let mut seen: Vec<(Key, &str)> = Vec::new();
            for e in entries() {
                for b in e.bindings.iter().filter(|b| b.when.applies(state)) {
                    for &k in b.keys {
                        assert!(
                            !seen.iter().any(|(s, _)| *s == k),
                            "{} twice in {state:?}: on `{}` and `{}`",
                            k.name(),
                            seen.iter().find(|(s, _)| *s == k).map_or("", |s| s.1),
                            e.keys
                        );
                        seen.push((k, e.keys));
                    }
                }
            }
        }
    }
}
