//! The graph pane (to be written).
