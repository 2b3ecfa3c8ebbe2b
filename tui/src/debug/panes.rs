//! The panes of the debugger ([`Pane`]) and where they are on a screen of
//! a given size ([`layout`]): what drawing and the mouse both need.
//!
//! Wide terminals (at least 90×16) show the program pane on the left and
//! the graph, chains and breakpoints panes stacked on the right; narrower
//! ones show the active pane alone (Tab cycles); below 30×8 a "too small"
//! notice replaces everything. Two status lines close the screen.

use ratatui::layout::{Constraint, Direction, Layout, Rect};

/// The panes keys can go to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pane {
    /// The printed term.
    Program,
    /// The lambda graph around the focus.
    Graph,
    /// The staging chains.
    Chains,
    /// The breakpoints.
    Breakpoints,
}

impl Pane {
    /// Every pane, in Tab order.
    pub const ALL: [Pane; 4] = [Pane::Program, Pane::Graph, Pane::Chains, Pane::Breakpoints];

    /// The pane after this one (Tab).
    pub fn next(self) -> Pane {
        let i = Pane::ALL.iter().position(|p| *p == self).unwrap_or(0);
        Pane::ALL[(i + 1) % Pane::ALL.len()]
    }

    /// The pane before this one (Shift-Tab).
    pub fn prev(self) -> Pane {
        let i = Pane::ALL.iter().position(|p| *p == self).unwrap_or(0);
        Pane::ALL[(i + Pane::ALL.len() - 1) % Pane::ALL.len()]
    }
}

/// Smallest screen drawn.
pub const MIN_WIDTH: u16 = 30;
/// Smallest screen drawn.
pub const MIN_HEIGHT: u16 = 8;

/// Where the panes are on a screen of a given size.
#[derive(Clone, Copy, Debug, Default)]
pub struct Areas {
    /// The program pane, when shown.
    pub program: Option<Rect>,
    /// The graph pane, when shown.
    pub graph: Option<Rect>,
    /// The chains pane, when shown.
    pub chains: Option<Rect>,
    /// The breakpoints pane, when shown.
    pub breakpoints: Option<Rect>,
    /// The two status lines.
    pub status: Rect,
    /// Whether the screen is too small to draw.
    pub too_small: bool,
}

/// The areas of the panes on a screen `size` with `active` the active pane.
pub fn layout(size: Rect, active: Pane) -> Areas {
    if size.width < MIN_WIDTH || size.height < MIN_HEIGHT {
        return Areas {
            too_small: true,
            ..Areas::default()
        };
    }
    let rows = Layout::default()
        .direction(Direction::Vertical)
        .constraints([Constraint::Min(3), Constraint::Length(2)])
        .split(size);
    let (main, status) = (rows[0], rows[1]);
    let mut a = Areas {
        status,
        ..Areas::default()
    };
    if size.width >= 90 && size.height >= 16 {
        let cols = Layout::default()
            .direction(Direction::Horizontal)
            .constraints([Constraint::Percentage(58), Constraint::Percentage(42)])
            .split(main);
        let right = Layout::default()
            .direction(Direction::Vertical)
            .constraints([Constraint::Percentage(45), Constraint::Percentage(35), Constraint::Percentage(20)])
            .split(cols[1]);
        a.program = Some(cols[0]);
        a.graph = Some(right[0]);
        a.chains = Some(right[1]);
        a.breakpoints = Some(right[2]);
    } else {
        match active {
            Pane::Program => a.program = Some(main),
            Pane::Graph => a.graph = Some(main),
            Pane::Chains => a.chains = Some(main),
            Pane::Breakpoints => a.breakpoints = Some(main),
        }
    }
    a
}
