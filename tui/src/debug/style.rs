//! The debugger's colours: one [`Palette`] maps what is shown (a body's
//! status, the focus, a breakpoint hit, chrome) to a ratatui [`Style`].
//!
//! Three palettes, chosen from the environment by [`Palette::detect`]:
//! 256 colours (the default), the 16 basic ANSI colours (a `TERM` without
//! `256color`), and none at all when `NO_COLOR` is set
//! (<https://no-color.org>): then statuses differ by modifiers only (bold,
//! underline, dim, reverse), so every distinction survives a monochrome
//! terminal.

use deepcps_machine::view::Status;
use ratatui::style::{Color, Modifier, Style};

/// How many colours the terminal is assumed to have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Colours {
    /// No colour (`NO_COLOR`): modifiers only.
    None,
    /// The 16 basic ANSI colours.
    Basic,
    /// The 256-colour palette.
    Indexed,
}

/// Styles of everything the debugger draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Palette {
    /// The colour depth these styles use.
    pub colours: Colours,
}

impl Palette {
    /// A palette of the given depth.
    pub fn new(colours: Colours) -> Palette {
        Palette { colours }
    }

    /// The palette the environment asks for: `NO_COLOR` (set, non-empty)
    /// turns colour off; a `TERM` naming `256color` (or a `COLORTERM`)
    /// gets 256 colours; anything else the basic 16.
    pub fn detect() -> Palette {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let term = std::env::var("TERM").unwrap_or_default();
        let rich = term.contains("256color") || std::env::var_os("COLORTERM").is_some();
        Palette::new(if no_color {
            Colours::None
        } else if rich {
            Colours::Indexed
        } else {
            Colours::Basic
        })
    }

    /// The style of a body's text by its status.
    pub fn status(&self, s: &Status) -> Style {
        let base = Style::default();
        match self.colours {
            Colours::None => match s {
                Status::Ready => base.add_modifier(Modifier::BOLD | Modifier::REVERSED),
                Status::Pending => base.add_modifier(Modifier::BOLD),
                Status::Stuck { .. } => base.add_modifier(Modifier::UNDERLINED),
                Status::Error(_) => base.add_modifier(Modifier::REVERSED | Modifier::UNDERLINED),
                Status::Inactive => base.add_modifier(Modifier::DIM),
            },
            Colours::Basic => match s {
                Status::Ready => base.fg(Color::Green).add_modifier(Modifier::BOLD),
                Status::Pending => base.fg(Color::Yellow),
                Status::Stuck { .. } => base.fg(Color::Magenta),
                Status::Error(_) => base.fg(Color::Red).add_modifier(Modifier::BOLD),
                Status::Inactive => base.fg(Color::Gray),
            },
            Colours::Indexed => match s {
                Status::Ready => base.fg(Color::Indexed(46)).add_modifier(Modifier::BOLD),
                Status::Pending => base.fg(Color::Indexed(220)),
                Status::Stuck { .. } => base.fg(Color::Indexed(208)),
                Status::Error(_) => base.fg(Color::Indexed(196)).add_modifier(Modifier::BOLD),
                Status::Inactive => base.fg(Color::Indexed(250)),
            },
        }
    }

    /// The focused item (the body the debugger follows, the selected line
    /// of a list): reversed in every palette.
    pub fn focus(&self) -> Style {
        Style::default().add_modifier(Modifier::REVERSED)
    }

    /// A search match.
    pub fn matched(&self) -> Style {
        match self.colours {
            Colours::None => Style::default().add_modifier(Modifier::UNDERLINED | Modifier::BOLD),
            _ => Style::default().bg(Color::Blue).fg(Color::White),
        }
    }

    /// Borders and titles of panes; `active` for the pane keys go to.
    pub fn border(&self, active: bool) -> Style {
        match (self.colours, active) {
            (_, false) => Style::default(),
            (Colours::None, true) => Style::default().add_modifier(Modifier::BOLD),
            (_, true) => Style::default().fg(Color::Cyan).add_modifier(Modifier::BOLD),
        }
    }

    /// Hints and secondary text.
    pub fn dim(&self) -> Style {
        match self.colours {
            Colours::None => Style::default().add_modifier(Modifier::DIM),
            _ => Style::default().fg(Color::DarkGray),
        }
    }

    /// Warnings and errors in the status line.
    pub fn alert(&self) -> Style {
        match self.colours {
            Colours::None => Style::default().add_modifier(Modifier::BOLD | Modifier::REVERSED),
            _ => Style::default().fg(Color::White).bg(Color::Red).add_modifier(Modifier::BOLD),
        }
    }
}
