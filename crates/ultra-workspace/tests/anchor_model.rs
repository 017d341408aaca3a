//! Property tests: a tolerant anchor edit gives exactly what the exact edit would.
//!
//! A random file (indented with tabs, 2 or 4 spaces; LF or CRLF) and a random edit of a
//! block of its lines (lines changed, lines inserted at other levels) are applied once with
//! the exact `old`/`new`, and once with the agent's text drifted: line endings swapped,
//! trailing spaces added to `old`, or the whole block re-indented (shifted by whole levels,
//! and in another unit). Every drifted edit must produce the exact edit's file.

#![allow(clippy::unwrap_used)]

use proptest::prelude::*;
use ropey::Rope;
use ultra_workspace::anchor;

#[derive(Debug, Clone, Copy)]
enum Unit {
    Tab,
    Spaces(usize),
}

impl Unit {
    fn render(self, level: usize) -> String {
        match self {
            Unit::Tab => "\t".repeat(level),
            Unit::Spaces(n) => " ".repeat(level * n),
        }
    }
}

fn unit() -> impl Strategy<Value = Unit> {
    prop_oneof![
        Just(Unit::Tab),
        Just(Unit::Spaces(2)),
        Just(Unit::Spaces(4))
    ]
}

#[derive(Debug, Clone)]
struct Case {
    file_unit: Unit,
    crlf: bool,
    /// (level, text) per line; texts are unique.
    lines: Vec<(usize, String)>,
    /// The block `start..start + len` is edited.
    start: usize,
    len: usize,
    /// The block's new lines: (level, text).
    new: Vec<(usize, String)>,
}

fn case() -> impl Strategy<Value = Case> {
    (
        unit(),
        any::<bool>(),
        proptest::collection::vec((0usize..4, "[a-z(){}:=]{1,8}"), 2..14),
    )
        .prop_flat_map(|(file_unit, crlf, raw)| {
            let lines: Vec<(usize, String)> = raw
                .into_iter()
                .enumerate()
                .map(|(i, (l, t))| (l, format!("l{i} {t}")))
                .collect();
            let n = lines.len();
            (Just(file_unit), Just(crlf), Just(lines), 0..n).prop_flat_map(
                move |(u, c, lines, start)| {
                    let max_len = (n - start).min(4);
                    (Just(u), Just(c), Just(lines), Just(start), 1..=max_len)
                },
            )
        })
        .prop_flat_map(|(file_unit, crlf, lines, start, len)| {
            let block = lines[start..start + len].to_vec();
            // Each block line kept, changed or followed by an inserted line.
            let edits = proptest::collection::vec((0u8..3, 0usize..3), len);
            (
                Just(file_unit),
                Just(crlf),
                Just(lines),
                Just(start),
                Just(len),
                Just(block),
                edits,
            )
        })
        .prop_map(|(file_unit, crlf, lines, start, len, block, edits)| {
            let mut new = Vec::new();
            for (k, ((level, text), (what, extra))) in block.into_iter().zip(edits).enumerate() {
                match what {
                    0 => new.push((level, text)),
                    1 => new.push((level, format!("{text} changed"))),
                    _ => {
                        new.push((level, text));
                        new.push((level + extra, format!("inserted {k}")));
                    }
                }
            }
            Case {
                file_unit,
                crlf,
                lines,
                start,
                len,
                new,
            }
        })
}

fn join(lines: &[(usize, String)], unit: Unit, shift: isize, eol: &str) -> String {
    lines
        .iter()
        .map(|(l, t)| format!("{}{t}{eol}", unit.render((*l as isize + shift) as usize)))
        .collect()
}

fn apply(
    file: &str,
    old: &str,
    new: &str,
    whitespace: bool,
) -> Result<(String, &'static str), String> {
    let rope = Rope::from_str(file);
    let (found, level) = anchor::find(&rope, old, new, whitespace, usize::MAX).expect("no limit");
    if found.len() != 1 {
        return Err(format!("{} matches at level {level}", found.len()));
    }
    let mut r = rope.clone();
    r.remove(found[0].start..found[0].end);
    r.insert(found[0].start, &found[0].new);
    Ok((r.to_string(), level))
}

impl Case {
    fn eol(&self) -> &'static str {
        if self.crlf { "\r\n" } else { "\n" }
    }

    fn file(&self) -> String {
        join(&self.lines, self.file_unit, 0, self.eol())
    }

    fn block(&self) -> &[(usize, String)] {
        &self.lines[self.start..self.start + self.len]
    }

    /// The file after the exact edit.
    fn expected(&self) -> String {
        let old = join(self.block(), self.file_unit, 0, self.eol());
        let new = join(&self.new, self.file_unit, 0, self.eol());
        let (out, level) = apply(&self.file(), &old, &new, false).unwrap();
        assert_eq!(level, "exact");
        out
    }

    /// The least level of any line of the block, old or new: how far it can shift left.
    fn min_level(&self) -> usize {
        self.block()
            .iter()
            .chain(&self.new)
            .map(|(l, _)| *l)
            .min()
            .unwrap_or(0)
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, .. ProptestConfig::default() })]

    #[test]
    fn line_endings_are_invisible(c in case()) {
        let expected = c.expected();
        let other = if c.crlf { "\n" } else { "\r\n" };
        let old = join(c.block(), c.file_unit, 0, other);
        let new = join(&c.new, c.file_unit, 0, other);
        let (out, level) = apply(&c.file(), &old, &new, false).map_err(TestCaseError::fail)?;
        prop_assert_eq!(level, "lineEndings");
        prop_assert_eq!(out, expected);
    }

    #[test]
    fn trailing_whitespace_in_old_is_tolerated(c in case(), pad in 1usize..4) {
        let expected = c.expected();
        let old: String = join(c.block(), c.file_unit, 0, "\n")
            .lines()
            .map(|l| format!("{l}{}\n", " ".repeat(pad)))
            .collect();
        let new = join(&c.new, c.file_unit, 0, "\n");
        let (out, level) = apply(&c.file(), &old, &new, true).map_err(TestCaseError::fail)?;
        prop_assert_eq!(level, "trailingWhitespace");
        prop_assert_eq!(out, expected);
    }

    #[test]
    fn drifted_indentation_is_rebased(c in case(), agent in unit(), shift in -3isize..3) {
        let shift = shift.max(-(c.min_level() as isize));
        // One level alone cannot tell an agent's 4 spaces from 8: keep cases where the
        // block spans two levels, or the agent writes in the file's unit.
        let levels: std::collections::BTreeSet<usize> = c.block().iter().map(|(l, _)| *l).collect();
        let same_unit = matches!((agent, c.file_unit), (Unit::Tab, Unit::Tab))
            || matches!((agent, c.file_unit), (Unit::Spaces(a), Unit::Spaces(b)) if a == b);
        prop_assume!(levels.len() > 1 || same_unit || matches!(agent, Unit::Tab));
        // The file shows its own unit (a line one level in), or has no indentation and
        // the agent's unit is taken: otherwise 2 spaces and 4 look alike.
        let shows_unit = c.lines.iter().any(|(l, _)| *l == 1);
        let unindented = c.lines.iter().all(|(l, _)| *l == 0);
        prop_assume!(shows_unit || (unindented && same_unit));
        let expected = c.expected();
        let old = join(c.block(), agent, shift, "\n");
        let new = join(&c.new, agent, shift, "\n");
        // An `old` the drift left as it was matches exactly, and `new` is then the agent's
        // word as written: nothing to re-base.
        prop_assume!(!c.file().replace("\r\n", "\n").contains(&old));
        let (out, level) = apply(&c.file(), &old, &new, true).map_err(TestCaseError::fail)?;
        prop_assert_eq!(level, "indentation");
        prop_assert_eq!(out, expected);
    }
}
