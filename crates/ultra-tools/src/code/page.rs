//! Answers sized for a model's context: a list is paged by `limit`/`cursor` and, within a
//! page, by bytes ([`ANSWER_BYTES`]), so no single answer floods the context however common
//! the name or large the tree; totals always count everything; long lines (minified code)
//! are clipped around what was asked about.

use std::fmt::Write as _;

use serde::Serialize;

/// Most bytes a page of items may take by default. Each item is counted twice: answers
/// carry their data and its text rendering.
pub const ANSWER_BYTES: usize = 32 * 1024;

/// Longest line sent as context, in characters; longer lines are clipped around the match.
pub const LINE_CHARS: usize = 240;

/// Fills one page: items go in while the page is under its `limit` and its byte budget.
pub struct Pager {
    left: usize,
    limit: usize,
    taken: usize,
    /// The byte budget, not the limit, ended the page.
    pub full: bool,
}

impl Pager {
    /// A page of at most `limit` items and [`ANSWER_BYTES`].
    pub fn new(limit: usize) -> Pager {
        Pager {
            left: ANSWER_BYTES,
            limit,
            taken: 0,
            full: false,
        }
    }

    /// Whether `item` goes in the page, counting it if it does. The first item always
    /// goes in, so that every page makes progress.
    pub fn admit<T: Serialize>(&mut self, item: &T) -> bool {
        if self.taken >= self.limit || self.full {
            return false;
        }
        let bytes = 2 * serde_json::to_vec(item).map_or(0, |v| v.len());
        if bytes > self.left && self.taken > 0 {
            self.full = true;
            return false;
        }
        self.left = self.left.saturating_sub(bytes);
        self.taken += 1;
        true
    }

    /// How many items are in the page.
    pub fn taken(&self) -> usize {
        self.taken
    }
}

/// The line that ends a page's text when more remain: how many, the cursor that gets them,
/// and, when the byte budget cut the page, how to ask for less.
pub fn more(total: usize, next: usize, full: bool, narrow: &str) -> String {
    let mut out = format!("[{} more: pass cursor {next}", total - next);
    if full {
        let _ = write!(
            out,
            "; this page was cut at {} KB, narrow it down with {narrow}",
            ANSWER_BYTES / 1024
        );
    }
    out.push(']');
    out
}

/// `line` cut to [`LINE_CHARS`] characters around character `column` (the start when
/// none), with `…` where text was left out and how many characters it had.
pub fn clip(line: &str, column: Option<usize>) -> String {
    let n = line.chars().count();
    if n <= LINE_CHARS {
        return line.to_string();
    }
    let at = column.unwrap_or(0).min(n);
    let start = at.saturating_sub(LINE_CHARS / 3).min(n - LINE_CHARS);
    let end = start + LINE_CHARS;
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    out.extend(line.chars().skip(start).take(LINE_CHARS));
    if end < n {
        out.push('…');
    }
    let _ = write!(out, " [line of {n} chars clipped]");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_keeps_the_match_in_view() {
        assert_eq!(clip("short", Some(2)), "short");
        let long: String = "a".repeat(1000) + "NEEDLE" + &"b".repeat(1000);
        let c = clip(&long, Some(1000));
        assert!(c.contains("NEEDLE"), "{c}");
        assert!(
            c.starts_with('…') && c.ends_with("… [line of 2006 chars clipped]"),
            "{c}"
        );
        assert!(c.chars().count() < LINE_CHARS + 40, "{}", c.chars().count());
        let head = clip(&long, None);
        assert!(head.starts_with("aaa") && head.ends_with("… [line of 2006 chars clipped]"));
        let tail = clip(&long, Some(2005));
        assert!(tail.starts_with('…') && tail.contains("bbb"), "{tail}");
        assert!(tail.ends_with("b [line of 2006 chars clipped]"), "{tail}");
        // Multi-byte characters are counted as characters.
        let wide = "é".repeat(500);
        assert_eq!(
            clip(&wide, Some(250)).chars().filter(|&c| c == 'é').count(),
            LINE_CHARS
        );
    }

    #[test]
    fn pages_stop_at_the_limit_or_the_budget() {
        let mut p = Pager::new(3);
        assert!(p.admit(&"x") && p.admit(&"y") && p.admit(&"z"));
        assert!(!p.admit(&"w") && !p.full);
        let big = "z".repeat(ANSWER_BYTES);
        let mut p = Pager::new(100);
        assert!(p.admit(&big), "the first item always goes in");
        assert!(!p.admit(&"small") && p.full);
        let mut p = Pager::new(1000);
        let item = "q".repeat(1000);
        let mut n = 0;
        while p.admit(&item) {
            n += 1;
        }
        assert!(p.full && n > 10 && n * 2 * 1002 <= ANSWER_BYTES, "{n}");
    }
}
