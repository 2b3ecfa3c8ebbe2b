//! `deepcps debug FILE`: the terminal debugger (issue 5).
//!
//! The machine side is `deepcps_machine::session` (stepping, breakpoints,
//! snapshots for stepping back); this module is the terminal around it:
//!
//! - [`worker`]: the engine (the session on a background thread, commands
//!   in, frames of plain data out);
//! - [`app`]: the state of the screen and what keys and the mouse do
//!   (pure: tests script keys);
//! - [`keys`]: the key table: what each key does, and the help drawn
//!   from it;
//! - [`panes`]: the panes and where they are on the screen, for drawing
//!   and for the mouse;
//! - [`ui`]: the drawing of the panes (program, graph, chains,
//!   breakpoints, status lines, help);
//! - [`graph`]: the graph pane: the lambda graph around the focus, laid
//!   out in layers;
//! - [`chains`]: the rows of the staging chains pane;
//! - [`style`]: the palettes (256 colours, 16 colours, `NO_COLOR`);
//! - [`term`]: the real terminal and the event loop.
//!
//! Imports go one way: `term` → `ui` → `app` → `keys` → `panes`, and
//! `app` → `worker`; `app` knows nothing of drawing.

pub mod app;
pub mod chains;
pub mod graph;
pub mod keys;
pub mod panes;
pub mod style;
pub mod term;
pub mod ui;
pub mod worker;
