//! `deepcps debug FILE`: the terminal debugger (issue 5).
//!
//! - [`style`]: the palettes (256 colours, 16 colours, `NO_COLOR`).
//! - [`graph`]: the graph pane: the lambda graph around the focus, laid out
//!   in layers and drawn with box characters.

pub mod graph;
pub mod style;
