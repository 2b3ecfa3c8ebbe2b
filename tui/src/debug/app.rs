//! The debugger's state ([`App`]) and what keys and the mouse do to it.
//!
//! `handle_key` and `handle_mouse` are pure: they change the state and
//! return the requests for the engine ([`Request`]); the event loop sends
//! them and feeds the engine's frames back with [`App::receive`]. Tests
//! drive the same functions with scripted keys. What a key does comes from the
//! key table ([`super::keys`]), which the help is drawn from too.

use std::sync::Arc;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::{Position, Rect};

use super::graph::GraphPane;
use super::keys::{self, Action, KeyState, When};
use super::panes::{layout, Areas, Pane};
use super::style::Palette;
use super::worker::{Request, ViewData, ViewFrame};

/// A line of text being typed at the bottom of the screen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prompt {
    /// What it is for.
    pub kind: PromptKind,
    /// The text so far.
    pub text: String,
}

/// What a prompt is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PromptKind {
    /// `/`: search the program pane.
    Search,
    /// `b`: a breakpoint.
    Break,
    /// `U`: go back (or forward) to a step.
    Goto,
}

impl PromptKind {
    /// The prompt's label, shorter on a screen narrower than 100 columns.
    pub fn label(self, width: usize) -> &'static str {
        match self {
            PromptKind::Search => "/",
            PromptKind::Break if width >= 100 => "break on (pt | 12 | file.dcps:12 | step N | exit | error | stuck): ",
            PromptKind::Break => "break on: ",
            PromptKind::Goto => "go to step: ",
        }
    }
}

/// The debugger's state.
pub struct App {
    /// The last frame from the engine.
    pub frame: ViewFrame,
    /// The last views (a background run's frames carry none).
    pub view: Option<Arc<ViewData>>,
    /// Segments of the program text by innermost body (cached per view).
    pub segments: Vec<(usize, usize, Option<usize>)>,
    /// Colours.
    pub palette: Palette,
    /// The pane keys go to.
    pub active: Pane,
    /// Whether the help overlay is open.
    pub help: bool,
    /// A prompt being typed.
    pub prompt: Option<Prompt>,
    /// A count typed before a command (`100s`).
    pub count: Option<u64>,
    /// Whether the program pane follows the ready body.
    pub follow: bool,
    /// First line shown in the program pane.
    pub scroll: usize,
    /// The cursor in the program pane: a byte offset into the text.
    pub cursor: usize,
    /// The last search and its matches (byte offsets).
    pub search: Option<(String, Vec<usize>)>,
    /// The graph pane's state.
    pub graph: GraphPane,
    /// Selected row of the chains pane.
    pub chains_sel: usize,
    /// Selected row of the breakpoints pane.
    pub bps_sel: usize,
    /// The terminal size at the last draw (for the mouse and scrolling).
    pub size: Rect,
    /// Set by `q`.
    pub quit: bool,
    /// A word from the app itself for the status line (what a key did not
    /// do), until the next key, click or message of the engine.
    pub notice: Option<String>,
}

/// What Ctrl-C says while nothing runs: in the terminal's raw mode it is a
/// key, not an interrupt, and it quits nothing.
pub const CTRL_C_PAUSED: &str = "Ctrl-C stops a run; press q to quit";

impl App {
    /// A new app showing `frame`.
    pub fn new(frame: ViewFrame, palette: Palette) -> App {
        let mut app = App {
            frame: frame.clone(),
            view: None,
            segments: Vec::new(),
            palette,
            active: Pane::Program,
            help: false,
            prompt: None,
            count: None,
            follow: true,
            scroll: 0,
            cursor: 0,
            search: None,
            graph: GraphPane::default(),
            chains_sel: 0,
            bps_sel: 0,
            size: Rect::new(0, 0, 120, 40),
            quit: false,
            notice: None,
        };
        app.receive(frame);
        app
    }

    /// Takes a frame from the engine.
    pub fn receive(&mut self, frame: ViewFrame) {
        if frame.message.is_some() {
            self.notice = None;
        }
        if let Some(v) = &frame.view {
            self.segments = v.program.segments();
            self.view = Some(v.clone());
            self.cursor = self.cursor.min(v.program.text.len().saturating_sub(1));
            if let Some((pat, _)) = self.search.take() {
                let found = find_all(&v.program.text, &pat);
                self.search = Some((pat, found));
            }
            let placed = if self.follow {
                self.follow_ready()
            } else if v.recentred {
                // A window opened on an elided part: the cursor goes to it.
                if let Some(b) = v.focus.and_then(|i| v.program.bodies.get(i)) {
                    self.cursor = b.start;
                    self.scroll_to_cursor();
                }
                true
            } else {
                false
            };
            // Nothing to follow (a run's end), or the cursor kept: the text
            // may be shorter than the one scrolled through (an exit value
            // after the program), and the pane never scrolls past its
            // last page, so the new text shows.
            if !placed {
                let last_page = v.program.line_starts.len().saturating_sub(self.program_height());
                self.scroll = self.scroll.min(last_page);
            }
            let rows = v.chains.len();
            self.chains_sel = self.chains_sel.min(rows.saturating_sub(1));
            self.bps_sel = self.bps_sel.min(v.breakpoints.len().saturating_sub(1));
        }
        self.frame = frame;
    }

    /// Puts the cursor on the ready body and scrolls it into view; whether
    /// there is one.
    fn follow_ready(&mut self) -> bool {
        let Some(v) = &self.view else { return false };
        let Some(b) = v.program.ready().and_then(|i| v.program.bodies.get(i)) else {
            return false;
        };
        self.cursor = b.start;
        self.scroll_to_cursor();
        true
    }

    /// Height of the program pane's text area.
    fn program_height(&self) -> usize {
        let a: Areas = layout(self.size, self.active);
        a.program.map_or(1, |r| r.height.saturating_sub(2).max(1) as usize)
    }

    fn scroll_to_cursor(&mut self) {
        let Some(v) = &self.view else { return };
        let line = v.program.line_of(self.cursor);
        let h = self.program_height();
        if line < self.scroll || line >= self.scroll + h {
            self.scroll = line.saturating_sub(h / 3);
        }
    }

    fn lines(&self) -> usize {
        self.view.as_ref().map_or(0, |v| v.program.line_starts.len())
    }

    /// The body the focus is on: the innermost body at the cursor when not
    /// following, else `None` (the ready body).
    fn focus_body(&self) -> Option<usize> {
        if self.follow {
            return None;
        }
        let v = self.view.as_ref()?;
        let i = self.segments.partition_point(|s| s.1 <= self.cursor);
        self.segments.get(i).and_then(|s| s.2).or_else(|| v.program.ready())
    }

    /// Takes the count typed so far (1 when none).
    fn take_count(&mut self) -> u64 {
        self.count.take().unwrap_or(1).max(1)
    }

    /// The state the keys see.
    fn key_state(&self) -> KeyState {
        if self.prompt.is_some() {
            KeyState::Prompt
        } else if self.help {
            KeyState::Help
        } else if self.frame.running {
            KeyState::Running
        } else {
            KeyState::Paused(self.active)
        }
    }

    /// What a key does: a digit while paused adds to the count; a prompt
    /// takes what is typed; any other key does what its binding in
    /// [`keys::KEYS`] says, or nothing.
    pub fn handle_key(&mut self, key: KeyEvent) -> Vec<Request> {
        if key.kind == KeyEventKind::Release {
            return Vec::new();
        }
        self.notice = None;
        let state = self.key_state();
        if let (KeyState::Paused(pane), KeyCode::Char(c @ '0'..='9')) = (state, key.code) {
            // `0` alone in the graph pane recentres it.
            if !(c == '0' && self.count.is_none() && pane == Pane::Graph) {
                let d = u64::from(c as u8 - b'0');
                self.count = Some(self.count.unwrap_or(0).saturating_mul(10).saturating_add(d));
                return Vec::new();
            }
        }
        let Some((_, b)) = keys::binding(&key, state) else {
            return match state {
                KeyState::Prompt => self.prompt_key(key),
                KeyState::Help | KeyState::Running => Vec::new(),
                KeyState::Paused(pane) => {
                    self.count = None;
                    // Any other key in the program pane tells the graph
                    // pane the focus, as its moves do.
                    if pane == Pane::Program {
                        self.program_key(None)
                    } else {
                        Vec::new()
                    }
                }
            };
        };
        let cmds = self.perform(b.action);
        // A count is for the next command; Ctrl-C leaves one being typed.
        if matches!(state, KeyState::Paused(_)) && b.when != When::Always {
            self.count = None;
        }
        cmds
    }

    /// A key typed into the prompt.
    fn prompt_key(&mut self, key: KeyEvent) -> Vec<Request> {
        let Some(p) = &mut self.prompt else { return Vec::new() };
        match key.code {
            KeyCode::Esc => {
                self.prompt = None;
                Vec::new()
            }
            KeyCode::Enter => match self.prompt.take() {
                Some(p) => self.submit(p.kind, p.text),
                None => Vec::new(),
            },
            KeyCode::Backspace => {
                p.text.pop();
                Vec::new()
            }
            KeyCode::Char(c) => {
                p.text.push(c);
                Vec::new()
            }
            _ => Vec::new(),
        }
    }

    /// Carries out `action`; the commands for the engine.
    fn perform(&mut self, action: Action) -> Vec<Request> {
        match action {
            Action::Pause => {
                // Paused, with no prompt to drop: nothing to stop, so say
                // what does quit. The engine is asked all the same (a run
                // it started may not have reached this screen yet).
                if self.prompt.take().is_none() && !self.frame.running {
                    self.notice = Some(CTRL_C_PAUSED.to_string());
                }
                vec![Request::Pause]
            }
            Action::Quit => {
                self.quit = true;
                if self.frame.running {
                    vec![Request::Pause, Request::Quit]
                } else {
                    vec![Request::Quit]
                }
            }
            Action::OpenHelp => {
                self.help = true;
                Vec::new()
            }
            Action::CloseHelp => {
                self.help = false;
                Vec::new()
            }
            Action::EndSearch => {
                self.search = None;
                Vec::new()
            }
            Action::Step => vec![Request::Step(self.take_count())],
            Action::Back => vec![Request::Back(self.take_count())],
            Action::GotoPrompt => self.open(PromptKind::Goto),
            Action::Continue => vec![Request::Continue],
            Action::RunToEnd => vec![Request::RunToEnd],
            Action::BreakPrompt => self.open(PromptKind::Break),
            Action::SearchPrompt => self.open(PromptKind::Search),
            Action::NextMatch => {
                self.next_match(true);
                Vec::new()
            }
            Action::PrevMatch => {
                self.next_match(false);
                Vec::new()
            }
            Action::Reduce => vec![Request::Next(self.focus_body())],
            Action::Follow => {
                self.follow = !self.follow;
                if self.follow {
                    self.follow_ready();
                }
                vec![Request::Focus(self.focus_body())]
            }
            Action::NextPane => {
                self.active = self.active.next();
                Vec::new()
            }
            Action::PrevPane => {
                self.active = self.active.prev();
                Vec::new()
            }
            Action::LineDown
            | Action::LineUp
            | Action::PageDown
            | Action::PageUp
            | Action::Top
            | Action::Bottom
            | Action::NextVar
            | Action::PrevVar
            | Action::ToBinder => self.program_key(Some(action)),
            Action::ZoomIn
            | Action::ZoomOut
            | Action::PanLeft
            | Action::PanRight
            | Action::PanUp
            | Action::PanDown
            | Action::Recentre
            | Action::RadiusUp
            | Action::RadiusDown => self.graph_key(action),
            Action::ChainDown | Action::ChainUp | Action::BreakOnChain => self.chains_key(action),
            Action::BreakpointDown | Action::BreakpointUp | Action::ToggleBreakpoint | Action::RemoveBreakpoint => {
                self.breakpoints_key(action)
            }
        }
    }

    fn open(&mut self, kind: PromptKind) -> Vec<Request> {
        self.prompt = Some(Prompt { kind, text: String::new() });
        Vec::new()
    }

    fn submit(&mut self, kind: PromptKind, text: String) -> Vec<Request> {
        match kind {
            PromptKind::Search => {
                if text.is_empty() {
                    self.search = None;
                    return Vec::new();
                }
                let found = self.view.as_ref().map(|v| find_all(&v.program.text, &text)).unwrap_or_default();
                self.search = Some((text, found));
                self.next_match(true);
                Vec::new()
            }
            PromptKind::Break => vec![Request::Break(text)],
            PromptKind::Goto => match text.trim().parse::<u64>() {
                Ok(k) => vec![Request::Goto(k)],
                Err(_) => Vec::new(),
            },
        }
    }

    /// Which match of the search the cursor is on (from 1) and how many
    /// there are; `None` without a search.
    pub fn match_position(&self) -> Option<(usize, usize)> {
        let (_, found) = self.search.as_ref()?;
        let at = found.iter().position(|&m| m == self.cursor).map_or(0, |i| i + 1);
        Some((at, found.len()))
    }

    /// Moves the cursor to the next (or previous) search match, wrapping.
    fn next_match(&mut self, forward: bool) {
        let Some((_, found)) = &self.search else { return };
        if found.is_empty() {
            return;
        }
        let at = if forward {
            found.iter().copied().find(|&m| m > self.cursor).unwrap_or(found[0])
        } else {
            found
                .iter()
                .rev()
                .copied()
                .find(|&m| m < self.cursor)
                .unwrap_or(found[found.len() - 1])
        };
        self.follow = false;
        self.cursor = at;
        self.scroll_to_cursor();
    }

    /// A move in the program pane (`None`: none), then the focus for the
    /// graph pane unless following.
    fn program_key(&mut self, action: Option<Action>) -> Vec<Request> {
        let Some(v) = self.view.clone() else { return Vec::new() };
        let pv = &v.program;
        let line = pv.line_of(self.cursor);
        let h = self.program_height();
        let goto_line = |app: &mut App, l: usize| {
            let l = l.min(pv.line_starts.len().saturating_sub(1));
            let start = pv.line_starts.get(l).copied().unwrap_or(0);
            let end = pv.line_starts.get(l + 1).copied().unwrap_or(pv.text.len());
            // Keep the column when the line is long enough, but not in its
            // indentation: on what the line holds (a body starting there,
            // an elided part of a large term, which then opens).
            let col = app.cursor - pv.line_starts.get(line).copied().unwrap_or(0);
            let text = pv.text.get(start..end).unwrap_or("");
            let indent = text.len() - text.trim_start_matches(' ').len();
            app.cursor = (start + col.max(indent)).min(end.saturating_sub(1)).max(start);
            app.follow = false;
            app.scroll_to_cursor();
        };
        match action {
            Some(Action::LineDown) => goto_line(self, line + 1),
            Some(Action::LineUp) => goto_line(self, line.saturating_sub(1)),
            Some(Action::PageDown) => goto_line(self, line + h),
            Some(Action::PageUp) => goto_line(self, line.saturating_sub(h)),
            Some(Action::Top) => goto_line(self, 0),
            Some(Action::Bottom) => goto_line(self, self.lines()),
            Some(Action::NextVar) => {
                // The next variable occurrence.
                if let Some(o) = pv.occurrences.iter().find(|o| o.start > self.cursor) {
                    self.cursor = o.start;
                    self.follow = false;
                    self.scroll_to_cursor();
                }
            }
            Some(Action::PrevVar) => {
                if let Some(o) = pv.occurrences.iter().rev().find(|o| o.start < self.cursor) {
                    self.cursor = o.start;
                    self.follow = false;
                    self.scroll_to_cursor();
                }
            }
            Some(Action::ToBinder) => {
                if let Some(o) = pv.occurrence_at(self.cursor) {
                    if let Some((b, _)) = o.binder {
                        self.cursor = b;
                        self.follow = false;
                        self.scroll_to_cursor();
                    }
                }
            }
            _ => {}
        }
        if self.follow {
            Vec::new()
        } else {
            vec![Request::Focus(self.focus_body())]
        }
    }

    /// A key of the graph pane.
    fn graph_key(&mut self, action: Action) -> Vec<Request> {
        let g = &mut self.graph;
        match action {
            Action::ZoomIn => g.zoom_in(),
            Action::ZoomOut => g.zoom_out(),
            Action::PanLeft => g.pan_by(-4, 0),
            Action::PanRight => g.pan_by(4, 0),
            Action::PanUp => g.pan_by(0, -2),
            Action::PanDown => g.pan_by(0, 2),
            Action::Recentre => g.recentre(),
            Action::RadiusUp => {
                g.radius_up();
                return vec![Request::Radius(g.radius)];
            }
            Action::RadiusDown => {
                g.radius_down();
                return vec![Request::Radius(g.radius)];
            }
            _ => {}
        }
        Vec::new()
    }

    /// A key of the chains pane.
    fn chains_key(&mut self, action: Action) -> Vec<Request> {
        let rows = self.view.as_ref().map_or(0, |v| v.chains.len());
        match action {
            Action::ChainDown => self.chains_sel = (self.chains_sel + 1).min(rows.saturating_sub(1)),
            Action::ChainUp => self.chains_sel = self.chains_sel.saturating_sub(1),
            Action::BreakOnChain => {
                let var = self
                    .view
                    .as_ref()
                    .and_then(|v| v.chains.get(self.chains_sel))
                    .and_then(|r| r.var.clone());
                if let Some(name) = var {
                    return vec![Request::BreakOn(name)];
                }
            }
            _ => {}
        }
        Vec::new()
    }

    /// A key of the breakpoints pane.
    fn breakpoints_key(&mut self, action: Action) -> Vec<Request> {
        let rows = self.view.as_ref().map_or(0, |v| v.breakpoints.len());
        match action {
            Action::BreakpointDown => self.bps_sel = (self.bps_sel + 1).min(rows.saturating_sub(1)),
            Action::BreakpointUp => self.bps_sel = self.bps_sel.saturating_sub(1),
            Action::ToggleBreakpoint if rows > 0 => return vec![Request::Toggle(self.bps_sel)],
            Action::RemoveBreakpoint if rows > 0 => {
                return vec![Request::Remove(self.bps_sel)];
            }
            _ => {}
        }
        Vec::new()
    }

    /// What the mouse does: the wheel scrolls the pane under the pointer, a
    /// click activates that pane (and in the program pane, puts the cursor
    /// there; in a list, selects the row).
    pub fn handle_mouse(&mut self, ev: MouseEvent) -> Vec<Request> {
        // A click or the wheel, not the pointer passing by.
        if matches!(
            ev.kind,
            MouseEventKind::Down(_) | MouseEventKind::ScrollDown | MouseEventKind::ScrollUp
        ) {
            self.notice = None;
        }
        let a = layout(self.size, self.active);
        let at = Position::new(ev.column, ev.row);
        let pane = [
            (Pane::Program, a.program),
            (Pane::Graph, a.graph),
            (Pane::Chains, a.chains),
            (Pane::Breakpoints, a.breakpoints),
        ]
        .into_iter()
        .find_map(|(p, r)| r.filter(|r| r.contains(at)).map(|r| (p, r)));
        let Some((pane, rect)) = pane else { return Vec::new() };
        match ev.kind {
            MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => {
                let down = ev.kind == MouseEventKind::ScrollDown;
                match pane {
                    Pane::Program => {
                        let max = self.lines().saturating_sub(1);
                        self.scroll = if down {
                            (self.scroll + 3).min(max)
                        } else {
                            self.scroll.saturating_sub(3)
                        };
                        self.follow = false;
                    }
                    Pane::Graph => self.graph.pan_by(0, if down { 2 } else { -2 }),
                    Pane::Chains => {
                        let rows = self.view.as_ref().map_or(0, |v| v.chains.len());
                        self.chains_sel = if down {
                            (self.chains_sel + 1).min(rows.saturating_sub(1))
                        } else {
                            self.chains_sel.saturating_sub(1)
                        };
                    }
                    Pane::Breakpoints => {}
                }
                Vec::new()
            }
            MouseEventKind::Down(MouseButton::Left) => {
                self.active = pane;
                let row = usize::from(ev.row.saturating_sub(rect.y + 1));
                match pane {
                    Pane::Program => {
                        let Some(v) = self.view.clone() else { return Vec::new() };
                        let line = self.scroll + row;
                        if let Some(&start) = v.program.line_starts.get(line) {
                            let end = v.program.line_starts.get(line + 1).copied().unwrap_or(v.program.text.len());
                            let col = usize::from(ev.column.saturating_sub(rect.x + 1));
                            let text = &v.program.text[start..end];
                            let off = text.char_indices().nth(col).map_or(end.saturating_sub(1), |(i, _)| start + i);
                            self.cursor = off.max(start);
                            self.follow = false;
                            return vec![Request::Focus(self.focus_body())];
                        }
                    }
                    Pane::Chains => self.chains_sel = row,
                    Pane::Breakpoints => self.bps_sel = row,
                    Pane::Graph => {}
                }
                Vec::new()
            }
            _ => Vec::new(),
        }
    }
}

/// Byte offsets of every match of `pat` in `text`.
fn find_all(text: &str, pat: &str) -> Vec<usize> {
    if pat.is_empty() {
        return Vec::new();
    }
    text.match_indices(pat).map(|(i, _)| i).collect()
}
