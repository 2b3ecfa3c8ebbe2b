//! The rows of a bench run as JSON: an array of objects, one per program,
//! with the fields of [`Row`] (`status` is `pass` or `fail`). The same file
//! is read back by `--baseline`.

use super::run::Row;

/// The rows as pretty-printed JSON, with a final newline.
pub fn render(rows: &[Row]) -> Result<String, String> {
    let mut s = serde_json::to_string_pretty(rows).map_err(|e| format!("cannot write JSON: {e}"))?;
    s.push('\n');
    Ok(s)
}
