//! Anchor edits (`{old, new}`): finding an agent's `old` in a file, and fitting `new` to
//! the file so a tolerant match never corrupts it.
//!
//! Matching goes by levels, the first that finds something wins: `exact`; `lineEndings`
//! (CRLF and LF are the same); and with `whitespace`, `trailingWhitespace` then
//! `indentation` (whole lines compared trimmed). Whatever the level, `new` takes the
//! file's line endings where it lands; after an `indentation` match it is also re-based:
//! every line shifted by the difference between the file's indentation and the agent's,
//! keeping relative indentation, in the file's indent unit (tabs or spaces).

use ropey::Rope;

/// A line ending.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Eol {
    Lf,
    CrLf,
}

impl Eol {
    fn as_str(self) -> &'static str {
        match self {
            Eol::Lf => "\n",
            Eol::CrLf => "\r\n",
        }
    }
}

/// One place `old` matched: a char span of the file and the text to put there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub start: usize,
    pub end: usize,
    pub new: String,
}

/// A replace-all whose new text would pass the bytes allowed (`old` short and frequent,
/// `new` long): refused before any of it is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooMuch {
    /// Places `old` matched.
    pub matches: usize,
    /// Bytes of new text those would take (at least).
    pub bytes: usize,
}

/// Find every occurrence of `old` in `rope` at the first level that matches, with `new`
/// fitted to each. An empty result means no match (the level is then `exact`). Fails
/// when the fitted copies of `new` would take more than `room` bytes.
pub fn find(
    rope: &Rope,
    old: &str,
    new: &str,
    whitespace: bool,
    room: usize,
) -> Result<(Vec<Found>, &'static str), TooMuch> {
    if old.is_empty() {
        return Ok((Vec::new(), "exact"));
    }
    let fits = |matches: usize| {
        let bytes = matches.saturating_mul(new.len());
        if bytes > room {
            Err(TooMuch { matches, bytes })
        } else {
            Ok(())
        }
    };
    let hay = rope.to_string();
    let file = Text::new(&hay);
    let fit = |spans: Vec<(usize, usize)>, level| {
        fits(spans.len())?;
        let found = spans
            .into_iter()
            .map(|(s, e)| Found {
                start: rope.byte_to_char(s),
                end: rope.byte_to_char(e),
                new: file.fit_eol(s, e, new),
            })
            .collect();
        Ok((found, level))
    };
    let exact = find_all(&hay, old);
    if !exact.is_empty() {
        return fit(exact, "exact");
    }
    let old_lf = old.replace("\r\n", "\n");
    let crlf_involved = file.has_cr || old_lf.len() != old.len();
    if crlf_involved {
        let spans: Vec<_> = find_all(&file.lf, &old_lf)
            .into_iter()
            .map(|(s, e)| (file.to_orig(s), file.to_orig(e)))
            .collect();
        if !spans.is_empty() {
            return fit(spans, "lineEndings");
        }
    }
    if !whitespace {
        return Ok((Vec::new(), "exact"));
    }
    let trailing = line_matches(&file.lf, &old_lf, |s| s.trim_end());
    if !trailing.is_empty() {
        let spans = trailing
            .into_iter()
            .map(|(s, e, _)| (file.to_orig(s), file.to_orig(e)))
            .collect();
        return fit(spans, "trailingWhitespace");
    }
    let indented = line_matches(&file.lf, &old_lf, str::trim);
    if indented.is_empty() {
        return Ok((Vec::new(), "exact"));
    }
    let unit = Unit::of_file(&file.lf);
    let new_lf = new.replace("\r\n", "\n");
    let found = indented
        .into_iter()
        .map(|(s, e, first_line)| {
            let rebased = rebase(&old_lf, &new_lf, &file.lf[first_line..], unit);
            let (s, e) = (file.to_orig(s), file.to_orig(e));
            Found {
                start: rope.byte_to_char(s),
                end: rope.byte_to_char(e),
                new: file.fit_eol(s, e, &rebased),
            }
        })
        .collect();
    Ok((found, "indentation"))
}

/// `text` with its line endings made the file's where it replaces chars
/// `start_char..end_char`: see [`fit_eol_in`].
pub fn fit_eol_at(rope: &Rope, start_char: usize, end_char: usize, text: &str) -> String {
    if !text.contains('\n') {
        return text.to_string();
    }
    let hay = rope.to_string();
    fit_eol_in(
        &hay,
        rope.char_to_byte(start_char),
        rope.char_to_byte(end_char),
        text,
    )
}

/// `text` with its line endings made those of `file` where it replaces bytes
/// `start..end`, line by line: the n-th line break of `text` takes the style of the n-th
/// line break in the replaced span, the rest the span's last (or, with none, the style of
/// the line it sits on). Other bytes are kept.
pub fn fit_eol_in(file: &str, start: usize, end: usize, text: &str) -> String {
    if !text.contains('\n') {
        return text.to_string();
    }
    Text::new(file).fit_eol(start, end, text)
}

/// A whole new text for a file that has one line-ending style: that style (and a BOM the
/// file starts with is kept). A file of mixed or no line endings takes `text` as it is.
pub fn fit_whole(rope: &Rope, text: &str) -> String {
    fit_whole_str(&rope.to_string(), text)
}

/// [`fit_whole`] over the file's text.
pub fn fit_whole_str(file: &str, text: &str) -> String {
    let t = Text::new(file);
    let mut out = match t.uniform() {
        Some(eol) => with_eol(text, &[], eol),
        None => text.to_string(),
    };
    if file.starts_with('\u{feff}') && !out.starts_with('\u{feff}') && !out.is_empty() {
        out.insert(0, '\u{feff}');
    }
    out
}

/// Byte spans of `needle` in `hay`, exactly or else with CRLF and LF taken as the same;
/// the flag says whether line endings had to be ignored.
pub fn find_ignoring_eol(hay: &str, needle: &str) -> (Vec<(usize, usize)>, bool) {
    let exact = find_all(hay, needle);
    let needle_lf = needle.replace("\r\n", "\n");
    if !exact.is_empty() || needle.is_empty() || (!hay.contains("\r\n") && needle_lf == needle) {
        return (exact, false);
    }
    let t = Text::new(hay);
    let spans: Vec<_> = find_all(&t.lf, &needle_lf)
        .into_iter()
        .map(|(s, e)| (t.to_orig(s), t.to_orig(e)))
        .collect();
    let any = !spans.is_empty();
    (spans, any)
}

/// The original text with a CRLF-free copy and the way back.
struct Text<'a> {
    orig: &'a str,
    /// `orig` with each `\r\n` as `\n`.
    lf: String,
    /// Positions in `lf` of the `\n`s that were `\r\n`, ascending.
    crlf_at: Vec<usize>,
    has_cr: bool,
}

impl<'a> Text<'a> {
    fn new(orig: &'a str) -> Text<'a> {
        let has_cr = orig.contains("\r\n");
        if !has_cr {
            return Text {
                orig,
                lf: orig.to_string(),
                crlf_at: Vec::new(),
                has_cr,
            };
        }
        let mut lf = String::with_capacity(orig.len());
        let mut crlf_at = Vec::new();
        let mut rest = orig;
        while let Some(i) = rest.find("\r\n") {
            lf.push_str(&rest[..i]);
            crlf_at.push(lf.len());
            lf.push('\n');
            rest = &rest[i + 2..];
        }
        lf.push_str(rest);
        Text {
            orig,
            lf,
            crlf_at,
            has_cr,
        }
    }

    /// A byte offset of `lf` in the original: an offset at a `\n` that was `\r\n` lands
    /// before the `\r`, so the pair stays whole.
    fn to_orig(&self, at: usize) -> usize {
        at + self.crlf_at.partition_point(|&p| p < at)
    }

    /// The one line-ending style of the file, if it has exactly one.
    fn uniform(&self) -> Option<Eol> {
        let breaks = self.orig.matches('\n').count();
        match (self.crlf_at.len(), breaks) {
            (_, 0) => None,
            (c, b) if c == b => Some(Eol::CrLf),
            (0, _) => Some(Eol::Lf),
            _ => None,
        }
    }

    /// The style the file mostly uses (LF on a tie or with no line break).
    fn dominant(&self) -> Eol {
        let breaks = self.orig.matches('\n').count();
        if self.crlf_at.len() * 2 > breaks {
            Eol::CrLf
        } else {
            Eol::Lf
        }
    }

    /// The ending of the line holding original byte `at`: its own, or for a last line
    /// without one, the file's dominant style.
    fn eol_of_line_at(&self, at: usize) -> Eol {
        match self.orig[at..].find('\n') {
            Some(i) if i > 0 && self.orig.as_bytes()[at + i - 1] == b'\r' => Eol::CrLf,
            Some(0) if at > 0 && self.orig.as_bytes()[at - 1] == b'\r' => Eol::CrLf,
            Some(_) => Eol::Lf,
            None => self.dominant(),
        }
    }

    fn fit_eol(&self, start: usize, end: usize, text: &str) -> String {
        if !text.contains('\n') {
            return text.to_string();
        }
        let span = &self.orig[start..end];
        let styles: Vec<Eol> = span
            .match_indices('\n')
            .map(|(i, _)| {
                if i > 0 && span.as_bytes()[i - 1] == b'\r' {
                    Eol::CrLf
                } else {
                    Eol::Lf
                }
            })
            .collect();
        with_eol(text, &styles, self.eol_of_line_at(start))
    }
}

/// `text` with its n-th line break in `styles[n]`, the rest in the last style (or `other`).
fn with_eol(text: &str, styles: &[Eol], other: Eol) -> String {
    let lf = text.replace("\r\n", "\n");
    let mut out = String::with_capacity(lf.len() + lf.len() / 16);
    for (n, line) in lf.split_inclusive('\n').enumerate() {
        match line.strip_suffix('\n') {
            Some(body) => {
                out.push_str(body);
                let eol = styles.get(n).or(styles.last()).copied().unwrap_or(other);
                out.push_str(eol.as_str());
            }
            None => out.push_str(line),
        }
    }
    out
}

/// Byte spans of every non-overlapping occurrence of `needle`.
fn find_all(hay: &str, needle: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut from = 0;
    while let Some(i) = hay[from..].find(needle) {
        let b = from + i;
        spans.push((b, b + needle.len()));
        from = b + needle.len().max(1);
    }
    spans
}

/// Whole-line matches of `needle` in `hay` (both LF-only) with each line compared after
/// `norm`: byte spans from the first line's start, and that start again (for re-basing).
fn line_matches(hay: &str, needle: &str, norm: fn(&str) -> &str) -> Vec<(usize, usize, usize)> {
    let want: Vec<&str> = needle
        .trim_end_matches('\n')
        .split('\n')
        .map(norm)
        .collect();
    let mut starts = Vec::new();
    let mut pos = 0;
    for line in hay.split_inclusive('\n') {
        starts.push((pos, line.trim_end_matches('\n')));
        pos += line.len();
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i + want.len() <= starts.len() {
        if (0..want.len()).all(|k| norm(starts[i + k].1) == want[k]) {
            let (s, _) = starts[i];
            let (ls, lt) = starts[i + want.len() - 1];
            let mut e = ls + lt.len();
            if needle.ends_with('\n') && e < hay.len() {
                e = hay[e..].find('\n').map(|n| e + n + 1).unwrap_or(hay.len());
            }
            out.push((s, e, s));
            i += want.len();
        } else {
            i += 1;
        }
    }
    out
}

/// An indentation unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unit {
    Tab,
    Spaces(usize),
}

impl Unit {
    /// The file's unit: tabs if most indented lines start with one, else the step its
    /// space indentations share (their greatest common divisor); `None` if no line is
    /// indented, and then the agent's unit is taken.
    /// A file of 4- and 6-space lines steps by 2; one aligned by odd columns steps by 1,
    /// which still shifts a re-based block by exact columns.
    fn of_file(text: &str) -> Option<Unit> {
        let (mut tabs, mut spaced, mut step) = (0usize, 0usize, 0usize);
        for line in text.lines() {
            if line.trim().is_empty() {
                continue;
            }
            if line.starts_with('\t') {
                tabs += 1;
            } else {
                let n = line.len() - line.trim_start_matches(' ').len();
                if n > 0 {
                    spaced += 1;
                    step = gcd(step, n);
                }
            }
        }
        if tabs > spaced {
            Some(Unit::Tab)
        } else if step == 0 {
            None
        } else {
            Some(Unit::Spaces(step))
        }
    }

    /// Columns per level.
    fn width(self) -> usize {
        match self {
            Unit::Tab => 1,
            Unit::Spaces(n) => n.max(1),
        }
    }

    /// Levels and leftover columns of an indentation (a tab is one level of any unit).
    fn measure(self, ind: &str) -> (usize, usize) {
        let w = self.width();
        let cols: usize = ind.chars().map(|c| if c == '\t' { w } else { 1 }).sum();
        (cols / w, cols % w)
    }

    fn render(self, levels: usize, rem: usize) -> String {
        let mut s = match self {
            Unit::Tab => "\t".repeat(levels),
            Unit::Spaces(n) => " ".repeat(levels * n.max(1)),
        };
        s.push_str(&" ".repeat(rem));
        s
    }
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 { a } else { gcd(b, a % b) }
}

fn indent(line: &str) -> &str {
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

/// The agent's indentation unit, from its lines and the file lines its `old` matched:
/// tabs if it indents with them; else the width that maps its indentation onto the file's
/// levels when the match spans several levels; else the file's own width if the agent's
/// indentation steps by it; else the step its lines show (4 or 2 when those divide it,
/// since a jump of two levels alone cannot tell 4 from 8).
fn agent_unit(old: &[&str], new: &[&str], file: &[&str], file_unit: Option<Unit>) -> Unit {
    let lines = || old.iter().chain(new).filter(|l| !l.trim().is_empty());
    if lines().any(|l| indent(l).contains('\t')) {
        return Unit::Tab;
    }
    let pairs: Vec<(usize, usize)> = match file_unit {
        Some(unit) => old
            .iter()
            .zip(file)
            .filter(|(o, _)| !o.trim().is_empty())
            .map(|(o, f)| (indent(o).len(), unit.measure(indent(f)).0))
            .collect(),
        None => Vec::new(),
    };
    if let (Some(&(a0, f0)), Some(&(a1, f1))) =
        (pairs.first(), pairs.iter().find(|p| p.1 != pairs[0].1))
    {
        let (da, df) = (a1 as isize - a0 as isize, f1 as isize - f0 as isize);
        if da != 0 && da % df == 0 && da / df > 0 {
            let w = (da / df) as usize;
            let fits = pairs
                .iter()
                .all(|&(a, f)| a as isize - a0 as isize == (f as isize - f0 as isize) * w as isize);
            if fits {
                return Unit::Spaces(w);
            }
        }
    }
    let counts: Vec<usize> = lines().map(|l| indent(l).len()).collect();
    let least = counts.iter().copied().min().unwrap_or(0);
    let step = counts.iter().fold(0, |g, &c| gcd(g, c - least));
    if let Some(Unit::Spaces(n)) = file_unit
        && step % n.max(1) == 0
    {
        return Unit::Spaces(n.max(1));
    }
    match step {
        0 => Unit::Spaces(4),
        s if s % 4 == 0 => Unit::Spaces(4),
        s if s % 2 == 0 => Unit::Spaces(2),
        s => Unit::Spaces(s),
    }
}

/// `new` shifted from the agent's indentation to the file's: the first non-blank line of
/// `old` and the file line it matched fix the shift (in levels); each line of `new` keeps
/// its level relative to that and is drawn in the file's unit.
fn rebase(old: &str, new: &str, file_from_match: &str, file_unit: Option<Unit>) -> String {
    let old_lines: Vec<&str> = old.trim_end_matches('\n').split('\n').collect();
    let new_lines: Vec<&str> = new.split('\n').collect();
    let file_lines: Vec<&str> = file_from_match.split('\n').take(old_lines.len()).collect();
    let Some(k) = old_lines.iter().position(|l| !l.trim().is_empty()) else {
        return new.to_string();
    };
    let Some(file_line) = file_lines.get(k) else {
        return new.to_string();
    };
    let agent = agent_unit(&old_lines, &new_lines, &file_lines, file_unit);
    let file_unit = file_unit.unwrap_or(agent);
    let w = agent.width() as isize;
    let cols = |ind: &str| -> isize { ind.chars().map(|c| if c == '\t' { w } else { 1 }).sum() };
    let a0 = cols(indent(old_lines[k]));
    let (file_level, file_rem) = file_unit.measure(indent(file_line));
    let mut out = String::with_capacity(new.len());
    for (i, line) in new_lines.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        if line.trim().is_empty() {
            out.push_str(line.trim_start_matches([' ', '\t']));
            continue;
        }
        let ind = indent(line);
        // Levels and columns relative to the anchor's first line, in the agent's unit.
        let d = cols(ind) - a0;
        let (levels, rem) = (d.div_euclid(w), d.rem_euclid(w) as usize);
        let level = (file_level as isize + levels).max(0) as usize;
        out.push_str(&file_unit.render(level, file_rem + rem));
        out.push_str(&line[ind.len()..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apply(file: &str, old: &str, new: &str) -> (String, &'static str) {
        let rope = Rope::from_str(file);
        let (found, level) = find(&rope, old, new, true, usize::MAX).expect("no limit");
        assert_eq!(found.len(), 1, "{level}: {found:?}");
        let mut r = rope.clone();
        let f = &found[0];
        r.remove(f.start..f.end);
        r.insert(f.start, &f.new);
        (r.to_string(), level)
    }

    #[test]
    fn python_method_keeps_its_nesting() {
        let file =
            "class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        return 2\n";
        let (out, level) = apply(
            file,
            "def f(self):\n    return 1\n",
            "def f(self):\n    if self.x:\n        return 3\n    return 1\n",
        );
        assert_eq!(level, "indentation");
        assert_eq!(
            out,
            "class A:\n    def f(self):\n        if self.x:\n            return 3\n        return 1\n\n    def g(self):\n        return 2\n"
        );
    }

    #[test]
    fn go_keeps_tabs() {
        let file = "func main() {\n\tif x {\n\t\ty()\n\t}\n}\n";
        let (out, _) = apply(
            file,
            "    if x {\n        y()\n    }",
            "    if x {\n        y()\n        z()\n    }",
        );
        assert_eq!(out, "func main() {\n\tif x {\n\t\ty()\n\t\tz()\n\t}\n}\n");
    }

    #[test]
    fn yaml_steps_keep_their_nesting() {
        let file = "jobs:\n  build:\n    steps:\n      - run: make\n      - run: test\n";
        let (out, _) = apply(
            file,
            "- run: make\n- run: test",
            "- run: make\n- run: lint\n- run: test",
        );
        assert_eq!(
            out,
            "jobs:\n  build:\n    steps:\n      - run: make\n      - run: lint\n      - run: test\n"
        );
    }

    #[test]
    fn makefile_recipes_keep_tabs() {
        let file = "all:\n\tcc -o a a.c\n\tstrip a\n";
        let (out, _) = apply(file, "    cc -o a a.c", "    cc -O2 -o a a.c");
        assert_eq!(out, "all:\n\tcc -O2 -o a a.c\n\tstrip a\n");
    }

    #[test]
    fn crlf_files_stay_crlf() {
        let file = "a\r\nb\r\nc\r\n";
        let (out, level) = apply(file, "b\n", "B\nB2\n");
        assert_eq!(level, "lineEndings");
        assert_eq!(out, "a\r\nB\r\nB2\r\nc\r\n");
        // An exact single-line anchor in a CRLF file: inserted lines take CRLF.
        let (out, level) = apply(file, "b", "b\nb2");
        assert_eq!(level, "exact");
        assert_eq!(out, "a\r\nb\r\nb2\r\nc\r\n");
        // And an LF file does not get the agent's CRLF.
        let (out, level) = apply("a\nb\nc\n", "b\r\n", "B\r\nB2\r\n");
        assert_eq!(level, "lineEndings");
        assert_eq!(out, "a\nB\nB2\nc\n");
    }

    #[test]
    fn mixed_files_take_the_ending_of_each_replaced_line() {
        let file = "a\r\nb\nc\r\n";
        let (out, _) = apply(file, "a\nb\n", "A\nB\nX\n");
        assert_eq!(out, "A\r\nB\nX\nc\r\n");
    }

    #[test]
    fn a_bom_stays() {
        let rope = Rope::from_str("\u{feff}a\r\nb\r\n");
        assert_eq!(fit_whole(&rope, "x\ny\n"), "\u{feff}x\r\ny\r\n");
        let (out, _) = apply("\u{feff}a\nb\n", "a", "A");
        assert_eq!(out, "\u{feff}A\nb\n");
    }

    #[test]
    fn a_multiplying_replace_all_is_refused_before_it_is_built() {
        let rope = Rope::from_str(&"a".repeat(1000));
        let long = "x".repeat(1000);
        let e = find(&rope, "a", &long, false, 999_999).expect_err("over the room");
        assert_eq!(
            e,
            TooMuch {
                matches: 1000,
                bytes: 1_000_000
            }
        );
        let (found, _) = find(&rope, "a", &long, false, 1_000_000).expect("fits exactly");
        assert_eq!(found.len(), 1000);
    }
}
