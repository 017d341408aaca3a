//! Unified diffs: whole for previews, capped for agents' context windows.

use ropey::Rope;

/// A unified diff of a file's text, `a/PATH` to `b/PATH` as git shows it (whole, not capped).
pub fn file_diff(path: &str, old: &str, new: &str) -> String {
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string()
}

/// What the two sides of a [`unified_diff`] are, as its `---` / `+++` header names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiffSides {
    /// A change not made yet (a confirmation's preview): the text now, `--- current`, to
    /// what it would become, `+++ proposed`.
    Proposal,
    /// A stale caller: the text at the version or hash it expected, `--- yours`, to the
    /// text now, `+++ current`.
    Stale,
    /// A change just made: `--- before` to `+++ after`.
    Applied,
}

impl DiffSides {
    /// The `---` and `+++` labels.
    pub fn labels(self) -> (&'static str, &'static str) {
        match self {
            DiffSides::Proposal => ("current", "proposed"),
            DiffSides::Stale => ("yours", "current"),
            DiffSides::Applied => ("before", "after"),
        }
    }
}

/// A unified diff from `old` to `new`, headed with what the two are, capped for agents'
/// context windows.
pub fn unified_diff(old: &Rope, new: &Rope, sides: DiffSides) -> String {
    const CAP: usize = 16 * 1024;
    if old.len_bytes() > 4 << 20 || new.len_bytes() > 4 << 20 {
        return "(file too large to diff)".into();
    }
    let (a, b) = (old.to_string(), new.to_string());
    let diff = similar::TextDiff::from_lines(&a, &b);
    let (from, to) = sides.labels();
    let mut out = diff
        .unified_diff()
        .context_radius(2)
        .header(from, to)
        .to_string();
    if out.len() > CAP {
        let mut cut = CAP;
        while !out.is_char_boundary(cut) {
            cut -= 1;
        }
        out.truncate(cut);
        out.push_str("\n… diff truncated; re-read the file\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_name_both_sides() {
        let (a, b) = (Rope::from_str("one\n"), Rope::from_str("two\n"));
        for (sides, head) in [
            (DiffSides::Proposal, "--- current\n+++ proposed\n"),
            (DiffSides::Stale, "--- yours\n+++ current\n"),
            (DiffSides::Applied, "--- before\n+++ after\n"),
        ] {
            let diff = unified_diff(&a, &b, sides);
            assert!(diff.starts_with(head), "{diff}");
            assert!(diff.contains("-one\n+two\n"), "{diff}");
        }
    }
}
