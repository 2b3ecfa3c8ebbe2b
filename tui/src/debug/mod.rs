//! `deepcps debug FILE`: the terminal debugger.
//!
//! The machine side is `deepcps_machine::session` (stepping, breakpoints,
//! snapshots for stepping back); this module is the terminal around it:
//!
//! - [`worker`]: the engine (the session on a background thread,
//!   [`worker::Request`]s in, [`worker::ViewFrame`]s of plain data out);
//! - [`app`]: the state of the screen and what keys and the mouse do
//!   ([`app::App::handle_key`] and [`app::App::handle_mouse`] return
//!   requests; pure: tests script keys);
//! - [`keys`]: the key table: what each key does, and the help drawn
//!   from it;
//! - [`panes`]: the panes and where they are on the screen, for drawing
//!   and for the mouse;
//! - [`ui`]: the drawing of the panes (program, graph, chains,
//!   breakpoints, status lines, help), [`ui::render`] a function of the
//!   [`app::App`];
//! - [`graph`]: the graph pane: the lambda graph around the focus, laid
//!   out in layers;
//! - [`chains`]: the rows of the staging chains pane;
//! - [`style`]: the palettes (256 colours, 16 colours, `NO_COLOR`);
//! - [`term`]: the real terminal (raw mode, restored by a guard and a
//!   panic hook) and the event loop;
//! - [`signals`]: SIGTERM, SIGHUP and SIGINT noted for the event loop, which
//!   restores the terminal and exits with 128 + the signal.
//!
//! Imports go one way: `term` → `ui` → `app` → `keys` → `panes`,
//! `term` → `signals`, and `app` → `worker`; `app` knows nothing of
//! drawing. A key is bound only in [`keys`]: `handle_key` dispatches
//! through its table and the help overlay is drawn from it.

pub mod app;
pub mod chains;
pub mod graph;
pub mod keys;
pub mod panes;
pub mod signals;
pub mod style;
pub mod term;
pub mod ui;
pub mod worker;
