//! The `deepcps` binary.
fn main() {}
