//! "Did you mean …?": the nearest of some names to a misspelt one, by edit
//! distance (adjacent transpositions count as one edit).

/// The keywords that begin a statement or a file's includes.
pub const STATEMENT_KEYWORDS: [&str; 3] = ["let", "fix", "include"];

/// The keywords that may stand where a name does.
pub const OPERAND_KEYWORDS: [&str; 5] = ["if", "true", "false", "always", "never"];

/// The candidate nearest to `name`, if one is close enough: at most one
/// edit for names of 2 to 4 characters, two for 5 to 7, and so on (none for
/// a one-letter name). Ties go to the alphabetically first.
pub fn nearest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let len = name.chars().count();
    let max = (len + 1) / 3;
    candidates
        .into_iter()
        .filter(|c| *c != name)
        .map(|c| (strsim::osa_distance(name, c), c))
        .filter(|(d, _)| *d <= max)
        .min()
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_names_are_found() {
        let cases: [(&str, &[&str], Option<&str>); 7] = [
            ("doubel", &["double", "half"], Some("double")),
            ("lett", &STATEMENT_KEYWORDS, Some("let")),
            ("inclde", &STATEMENT_KEYWORDS, Some("include")),
            ("iff", &OPERAND_KEYWORDS, Some("if")),
            ("f", &OPERAND_KEYWORDS, None),
            ("total", &["double", "half"], None),
            ("ab", &["ba", "ac"], Some("ac")),
        ];
        for (name, candidates, want) in cases {
            assert_eq!(nearest(name, candidates.iter().copied()), want, "{name}");
        }
    }
}
