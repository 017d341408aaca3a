//! The matcher `grep` searches with: ripgrep's regex matcher, plus a line filter on the
//! longest literal every match must contain.
//!
//! `grep-regex` skips its own inner-literal filter when the regex has any prefilter, even a
//! poor one: for `T1[0-9]:.*item/99` on timestamped lines it scans every line with the DFA
//! after finding a `T` in each. Searching for `item/99` with `memmem` and running the regex
//! only on the lines that hold it is what ripgrep 13 and GNU grep do.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

use grep_matcher::{ByteSet, LineMatchKind, LineTerminator, Match, Matcher, NoError};
use grep_regex::{RegexCaptures, RegexMatcher};
use memchr::memmem::Finder;
use regex_syntax::hir::{Hir, HirKind};

/// Shortest literal worth a filter of its own.
const MIN_LITERAL: usize = 3;

/// Candidates seen before the filter is judged.
const JUDGE_AFTER: u64 = 512;
/// A filter whose candidates come closer than this many bytes apart on average (a literal on
/// most lines, like `item/` in `item/(12|34)`) costs more than it saves: it is retired and
/// the regex finds lines by itself.
const MIN_GAP: u64 = 512;

/// A [`RegexMatcher`], with a required literal to find candidate lines by when there is one.
#[derive(Clone, Debug)]
pub(super) struct GrepMatcher {
    regex: RegexMatcher,
    required: Option<Finder<'static>>,
    /// The pattern is that literal and nothing else (`grep -F word`): `memmem` finds every
    /// match by itself. The regex engine is quadratic in a long literal's length (a
    /// 60,000-byte `-F` pattern took 23 s on one 60 KB line).
    whole: bool,
    /// How the filter fares, shared by the threads of a `grep -r`.
    stats: Arc<Stats>,
}

#[derive(Debug, Default)]
struct Stats {
    candidates: AtomicU64,
    skipped: AtomicU64,
    retired: AtomicBool,
}

impl GrepMatcher {
    /// `regex` as it is.
    pub(super) fn plain(regex: RegexMatcher) -> GrepMatcher {
        GrepMatcher {
            regex,
            required: None,
            whole: false,
            stats: Arc::default(),
        }
    }

    /// `regex`, compiled from `pattern` (in the `regex` crate's syntax, case-sensitive),
    /// with a filter on the longest literal every match of it holds.
    /// `whole`: the pattern's matches are exactly its literal (no `-w`, `-x` or `-i`
    /// around it), so `memmem` may stand in for the regex.
    pub(super) fn with_literal(regex: RegexMatcher, pattern: &str, whole: bool) -> GrepMatcher {
        let whole = whole.then(|| whole_literal(pattern)).flatten();
        let required = whole
            .clone()
            .or_else(|| required_literal(pattern).filter(|l| l.len() >= MIN_LITERAL))
            .map(|l| Finder::new(&l).into_owned());
        GrepMatcher {
            regex,
            whole: whole.is_some() && required.is_some(),
            required,
            stats: Arc::default(),
        }
    }
}

/// The pattern's bytes when it is one non-empty literal and nothing else.
fn whole_literal(pattern: &str) -> Option<Vec<u8>> {
    let hir = regex_syntax::ParserBuilder::new()
        .utf8(false)
        .build()
        .parse(pattern)
        .ok()?;
    match hir.kind() {
        HirKind::Literal(lit) if !lit.0.is_empty() && !lit.0.contains(&b'\n') => {
            Some(lit.0.to_vec())
        }
        _ => None,
    }
}

/// The longest run of literal bytes that every match of `pattern` contains, if any.
fn required_literal(pattern: &str) -> Option<Vec<u8>> {
    let hir = regex_syntax::ParserBuilder::new()
        .utf8(false)
        .build()
        .parse(pattern)
        .ok()?;
    let mut found = Vec::new();
    required(&hir, &mut found);
    found.into_iter().max_by_key(Vec::len)
}

/// Collects literals that must appear in any match of `h`.
fn required(h: &Hir, out: &mut Vec<Vec<u8>>) {
    match h.kind() {
        HirKind::Literal(lit) => out.push(lit.0.to_vec()),
        HirKind::Capture(c) => required(&c.sub, out),
        HirKind::Repetition(r) if r.min >= 1 => required(&r.sub, out),
        HirKind::Concat(parts) => {
            let mut run = Vec::new();
            for p in parts {
                match p.kind() {
                    HirKind::Literal(lit) => run.extend_from_slice(&lit.0),
                    _ => {
                        if !run.is_empty() {
                            out.push(std::mem::take(&mut run));
                        }
                        required(p, out);
                    }
                }
            }
            if !run.is_empty() {
                out.push(run);
            }
        }
        // Alternations, classes, assertions and optional parts require nothing.
        _ => {}
    }
}

impl Matcher for GrepMatcher {
    type Captures = RegexCaptures;
    type Error = NoError;

    fn find_at(&self, haystack: &[u8], at: usize) -> Result<Option<Match>, NoError> {
        if let Some(f) = self.required.as_ref().filter(|_| self.whole) {
            let n = f.needle().len();
            return Ok(haystack
                .get(at..)
                .and_then(|h| f.find(h))
                .map(|i| Match::new(at + i, at + i + n)));
        }
        self.regex.find_at(haystack, at)
    }

    fn new_captures(&self) -> Result<RegexCaptures, NoError> {
        self.regex.new_captures()
    }

    fn capture_count(&self) -> usize {
        self.regex.capture_count()
    }

    fn capture_index(&self, name: &str) -> Option<usize> {
        self.regex.capture_index(name)
    }

    fn captures_at(
        &self,
        haystack: &[u8],
        at: usize,
        caps: &mut RegexCaptures,
    ) -> Result<bool, NoError> {
        self.regex.captures_at(haystack, at, caps)
    }

    fn is_match_at(&self, haystack: &[u8], at: usize) -> Result<bool, NoError> {
        if self.whole {
            return Ok(self.find_at(haystack, at)?.is_some());
        }
        self.regex.is_match_at(haystack, at)
    }

    fn shortest_match_at(&self, haystack: &[u8], at: usize) -> Result<Option<usize>, NoError> {
        if self.whole {
            return Ok(self.find_at(haystack, at)?.map(|m| m.end()));
        }
        self.regex.shortest_match_at(haystack, at)
    }

    fn non_matching_bytes(&self) -> Option<&ByteSet> {
        self.regex.non_matching_bytes()
    }

    fn line_terminator(&self) -> Option<LineTerminator> {
        self.regex.line_terminator()
    }

    fn find_candidate_line(&self, haystack: &[u8]) -> Result<Option<LineMatchKind>, NoError> {
        if let Some(f) = self.required.as_ref().filter(|_| self.whole) {
            // The literal is the whole match: a line holding it matches.
            return Ok(f.find(haystack).map(LineMatchKind::Confirmed));
        }
        let Some(finder) = self
            .required
            .as_ref()
            .filter(|_| !self.stats.retired.load(Relaxed))
        else {
            return self.regex.find_candidate_line(haystack);
        };
        // A line without the literal cannot match; one with it is a candidate the searcher
        // confirms with the regex.
        let found = finder.find(haystack);
        let s = &self.stats;
        let n = s.candidates.fetch_add(1, Relaxed) + 1;
        let gap = found.map_or(haystack.len(), |i| i + 1) as u64;
        let skipped = s.skipped.fetch_add(gap, Relaxed) + gap;
        if n == JUDGE_AFTER && skipped / n < MIN_GAP {
            s.retired.store(true, Relaxed);
        }
        Ok(found.map(LineMatchKind::Candidate))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::sync::atomic::Ordering::Relaxed;

    /// Lines matching `pattern` by way of `find_candidate_line`, as the searcher finds them.
    fn lines(m: &GrepMatcher, text: &[u8]) -> usize {
        let (mut pos, mut found) = (0, 0);
        while pos < text.len() {
            let Some(kind) = m.find_candidate_line(&text[pos..]).unwrap() else {
                break;
            };
            let at = pos
                + match kind {
                    LineMatchKind::Candidate(i) | LineMatchKind::Confirmed(i) => i,
                };
            let start = text[..at]
                .iter()
                .rposition(|b| *b == b'\n')
                .map_or(0, |i| i + 1);
            let end = text[at..]
                .iter()
                .position(|b| *b == b'\n')
                .map_or(text.len(), |i| at + i + 1);
            found += usize::from(m.is_match(&text[start..end]).unwrap());
            pos = end;
        }
        found
    }

    #[test]
    fn a_filter_on_a_literal_in_every_line_retires_and_answers_stay_right() {
        let regex = |p: &str| {
            grep_regex::RegexMatcherBuilder::new()
                .line_terminator(Some(b'\n'))
                .multi_line(true)
                .build(p)
                .unwrap()
        };
        let mut text = Vec::new();
        for i in 0..20_000 {
            text.extend_from_slice(format!("GET /item/{i} 200\n").as_bytes());
        }
        let p = "GET /(x|item)/(12|34)5 200$";
        let common = GrepMatcher::with_literal(regex(p), p, true);
        assert_eq!(lines(&common, &text), 2);
        assert!(
            common.stats.retired.load(Relaxed),
            "`GET /` is on every line"
        );
        let p = "item/1999[0-9]";
        let sparse = GrepMatcher::with_literal(regex(p), p, true);
        assert_eq!(lines(&sparse, &text), 10);
        assert!(!sparse.stats.retired.load(Relaxed), "item/1999 is rare");
    }

    fn lit(p: &str) -> Option<String> {
        required_literal(p).map(|l| String::from_utf8(l).unwrap_or_default())
    }

    #[test]
    fn a_whole_literal_is_found_by_memmem_alone() {
        assert!(whole_literal("abc").is_some());
        assert!(whole_literal("a.c").is_none());
        assert!(whole_literal("abc|abd").is_none());
        let long = "x".repeat(60_000);
        let regex = grep_regex::RegexMatcherBuilder::new()
            .line_terminator(Some(b'\n'))
            .build(&long)
            .unwrap();
        let m = GrepMatcher::with_literal(regex, &long, true);
        assert!(m.whole);
        let mut text = long.clone().into_bytes();
        text.extend_from_slice(b"\nshort x line\n");
        let start = std::time::Instant::now();
        assert_eq!(lines(&m, &text), 1);
        assert_eq!(m.find_at(&text, 0).unwrap(), Some(Match::new(0, 60_000)));
        assert_eq!(m.find_at(&text, 1).unwrap(), None);
        assert!(
            start.elapsed() < std::time::Duration::from_secs(2),
            "{:?}",
            start.elapsed()
        );
    }

    #[test]
    fn the_longest_required_literal() {
        assert_eq!(lit("T1[0-9]:.*item/99").as_deref(), Some("item/99"));
        assert_eq!(lit("item/9[0-9]* 500$").as_deref(), Some("item/9"));
        assert_eq!(lit("(foo)+bar").as_deref(), Some("bar"));
        assert_eq!(lit("x(abcd)+").as_deref(), Some("abcd"));
        assert_eq!(lit("a(bc|de)f").map(|l| l.len()), Some(1));
        assert_eq!(lit("(abc|abd)"), None);
        assert_eq!(lit("(abc)?x"), Some("x".into()));
        assert_eq!(lit("[a-z]+"), None);
    }
}
