//! Code as the tools show it: lines numbered as `cat -n` does, at most
//! [`MAX_LINES_TEXT`] bytes of them in one answer, and where the answer stopped when a
//! file, function or class is longer than that.

use schemars::JsonSchema;
use serde::Serialize;

/// The most numbered text one answer holds: what MCP sends as one tool result
/// (`render::MAX_TEXT`), less room for the header and footer.
pub const MAX_LINES_TEXT: usize = ultra_core::render::MAX_TEXT - 2048;

/// Where an answer's numbered lines stopped, when they stopped before the lines asked for.
#[derive(Debug, Default, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Cut {
    /// First line left out (get_lines from here).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_start: Option<u32>,
    /// The last line was cut; its length in bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line_cut: Option<u64>,
}

/// Lines in `text` as people count them (a final newline ends the last line rather than
/// starting an empty one), as the index counts them.
pub(super) fn line_count(text: &str) -> u32 {
    ultra_index::passes::line_count(text.as_bytes())
}

/// Lines `start..=end` of a text, numbered, as much of them as fits in a budget.
pub(super) struct NumberedPage {
    pub(super) text: String,
    /// The last line given (`start - 1` when none was).
    pub(super) last: u32,
    /// The whole length of the last line given, when it alone was over the budget and was
    /// cut.
    line_cut: Option<u64>,
}

/// Lines `start..=end` (1-based) of `text`, numbered as `cat -n` does, stopping before
/// the first line that would take the text past `budget` bytes. A first line that alone
/// is over the budget is given cut, so an answer always moves on.
pub(super) fn numbered_page(text: &str, start: u32, end: u32, budget: usize) -> NumberedPage {
    let start = start.max(1);
    // The byte where line `start` begins.
    let from = match start {
        1 => 0,
        n => memchr::memchr_iter(b'\n', text.as_bytes())
            .nth(n as usize - 2)
            .map_or(text.len(), |i| i + 1),
    };
    numbered_window(&text[from..], start, end, budget, None)
}

/// [`numbered_page`] of a window of a file that begins at line `start`
/// (`ultra_workspace::workspace::Window`): `first_len` is the whole length of its first
/// line when the window holds only the start of it.
pub(super) fn numbered_window(
    text: &str,
    start: u32,
    end: u32,
    budget: usize,
    first_len: Option<u64>,
) -> NumberedPage {
    let start = start.max(1);
    let bytes = text.as_bytes();
    let mut pos = 0;
    let mut out = String::new();
    let mut n = start;
    let mut line_cut = None;
    while n <= end && pos < bytes.len() {
        let stop = memchr::memchr(b'\n', &bytes[pos..]).map_or(bytes.len(), |i| pos + i);
        let line = &text[pos..stop];
        // As `str::lines`: a `\r` goes with the `\n` after it, not at the very end.
        let line = if stop < bytes.len() {
            line.strip_suffix('\r').unwrap_or(line)
        } else {
            line
        };
        let prefix = format!("{n:>6}\t");
        if out.len() + prefix.len() + line.len() + 1 > budget {
            if n == start {
                let mut cut = budget.saturating_sub(prefix.len() + 1).min(line.len());
                while !line.is_char_boundary(cut) {
                    cut -= 1;
                }
                out.push_str(&prefix);
                out.push_str(&line[..cut]);
                out.push('\n');
                line_cut = Some(first_len.unwrap_or(line.len() as u64));
                n += 1;
            }
            break;
        }
        out.push_str(&prefix);
        out.push_str(line);
        out.push('\n');
        n += 1;
        pos = stop + 1;
    }
    NumberedPage {
        text: out,
        last: n - 1,
        line_cut,
    }
}

impl NumberedPage {
    /// Where the page stopped short of line `end`, if it did.
    pub(super) fn cut(&self, end: u32) -> Cut {
        Cut {
            next_start: (self.last < end).then_some(self.last + 1),
            line_cut: self.line_cut,
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::super::numbered;
    use super::{line_count, numbered_page, numbered_window};

    /// Texts of short lines, some ending in `\r\n`, some with characters of several bytes,
    /// with or without a final newline.
    fn texts() -> impl Strategy<Value = String> {
        let line = "[a-zé€😀 ]{0,12}\r?";
        (proptest::collection::vec(line, 0..40), any::<bool>()).prop_map(|(lines, last_nl)| {
            let mut t = lines.join("\n");
            if last_nl && !t.is_empty() {
                t.push('\n');
            }
            t
        })
    }

    proptest! {
        /// Pages followed by their `nextStart` give, together, what one unbounded read of
        /// the same range gives (`numbered`, the `cat -n` rendering), each within its
        /// budget, and the line count is `str::lines`'.
        #[test]
        fn pages_add_up_to_the_whole_range(text in texts(), start in 1u32..45, len in 0u32..45, budget in 60usize..400) {
            let total = line_count(&text);
            prop_assert_eq!(total as usize, text.lines().count());
            let end = (start + len).min(total);
            let whole = numbered(&text, start, end);
            let (mut got, mut from) = (String::new(), start);
            loop {
                let page = numbered_page(&text, from, end, budget);
                prop_assert!(page.text.len() <= budget, "{} > {budget}", page.text.len());
                prop_assert!(page.line_cut.is_none(), "a short line was cut");
                got.push_str(&page.text);
                if page.last >= end || page.last < from {
                    break;
                }
                from = page.last + 1;
            }
            prop_assert_eq!(got, whole);
        }
    }

    proptest! {
        /// A page numbered from a window of the file (what a big file is read as) is the
        /// page numbered from the whole text: the same lines, cut the same way, stopping
        /// at the same line.
        #[test]
        fn a_window_numbers_as_the_whole_text(
            text in texts(),
            start in 1u32..45,
            len in 0u32..45,
            budget in 12usize..300,
        ) {
            let end = (start + len).min(line_count(&text));
            let whole = numbered_page(&text, start, end, budget);
            let w = ultra_workspace::workspace::window_of(&text, start, budget);
            prop_assert_eq!(w.total_lines, line_count(&text));
            let windowed = numbered_window(&w.text, start, end, budget, w.first_line_len);
            prop_assert_eq!(&windowed.text, &whole.text);
            prop_assert_eq!(windowed.last, whole.last);
            prop_assert_eq!(windowed.line_cut, whole.line_cut);
        }
    }

    /// A line longer than the budget comes cut, alone, and says how long it is; the next
    /// page starts at the line after it.
    #[test]
    fn a_line_over_the_budget_is_cut_and_the_next_page_moves_on() {
        let text = format!("short\n{}\nafter\n", "€".repeat(100));
        let page = numbered_page(&text, 2, 3, 50);
        assert_eq!(page.last, 2);
        assert_eq!(page.line_cut, Some(300));
        assert!(page.text.len() <= 50, "{}", page.text);
        assert!(page.text.starts_with("     2\t€"), "{}", page.text);
        let next = numbered_page(&text, 3, 3, 50);
        assert_eq!(next.text, "     3\tafter\n");
        // A short line before it is given on its own first.
        let page = numbered_page(&text, 1, 3, 50);
        assert_eq!((page.last, page.line_cut), (1, None));
    }
}
