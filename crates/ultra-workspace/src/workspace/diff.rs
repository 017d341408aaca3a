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

/// A unified diff from `old` to `new`, capped for agents' context windows.
pub fn unified_diff(old: &Rope, new: &Rope) -> String {
    const CAP: usize = 16 * 1024;
    if old.len_bytes() > 4 << 20 || new.len_bytes() > 4 << 20 {
        return "(file too large to diff)".into();
    }
    let (a, b) = (old.to_string(), new.to_string());
    let diff = similar::TextDiff::from_lines(&a, &b);
    let mut out = diff
        .unified_diff()
        .context_radius(2)
        .header("yours", "current")
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
