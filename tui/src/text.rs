//! Wording shared by the commands' messages.

/// `1 thread`, `2 threads`.
pub fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
