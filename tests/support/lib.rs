//! Helpers shared by the integration and snapshot tests in `tests/`.
