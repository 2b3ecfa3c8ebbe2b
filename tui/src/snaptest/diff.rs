//! Readable diffs of snapshot texts for `deepcps test`: unified, with three
//! lines of context, capped so that a renumbered graph dump does not flood
//! the terminal.

use similar::TextDiff;

/// Most lines of one diff that are printed; the rest are counted.
pub const MAX_DIFF_LINES: usize = 200;

/// A unified diff from `expected` (`-`) to `actual` (`+`) of the snapshot
/// file `name`, at most [`MAX_DIFF_LINES`] lines, ending in a line break.
pub fn unified(expected: &str, actual: &str, name: &str) -> String {
    let diff = TextDiff::from_lines(expected, actual);
    let text = diff
        .unified_diff()
        .context_radius(3)
        .missing_newline_hint(true)
        .header(&format!("{name} (expected)"), &format!("{name} (actual)"))
        .to_string();
    let total = text.lines().count();
    let mut out: String = text.lines().take(MAX_DIFF_LINES).flat_map(|l| [l, "\n"]).collect();
    if total > MAX_DIFF_LINES {
        out.push_str(&format!("... ({} more lines of diff)\n", total - MAX_DIFF_LINES));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_line_shows_as_minus_and_plus() {
        let d = unified("a\nb\nc\n", "a\nB\nc\n", "x.out");
        assert!(d.starts_with("--- x.out (expected)\n+++ x.out (actual)\n"), "{d}");
        assert!(d.contains("\n-b\n+B\n"), "{d}");
    }

    #[test]
    fn long_diffs_are_cut() {
        // Every line renumbered, as after a node inserted near the top.
        let old: String = (0..1000).map(|i| format!("n{i}\n")).collect();
        let new: String = (0..1000).map(|i| format!("m{i}\n")).collect();
        let d = unified(&old, &new, "x.graph");
        assert_eq!(d.lines().count(), MAX_DIFF_LINES + 1);
        assert!(d.ends_with("more lines of diff)\n"), "{d}");
    }
}
