//! The matcher `grep` searches with: ripgrep's regex matcher, plus a line filter on the
//! longest literal every match must contain.
//!
//! `grep-regex` skips its own inner-literal filter when the regex has any prefilter, even a
//! poor one: for `T1[0-9]:.*item/99` on timestamped lines it scans every line with the DFA
//! after finding a `T` in each. Searching for `item/99` with `memmem` and running the regex
//! only on the lines that hold it is what ripgrep 13 and GNU grep do.

use grep_matcher::{ByteSet, LineMatchKind, LineTerminator, Match, Matcher, NoError};
use grep_regex::{RegexCaptures, RegexMatcher};
use memchr::memmem::Finder;
use regex_syntax::hir::{Hir, HirKind};

/// Shortest literal worth a filter of its own.
const MIN_LITERAL: usize = 3;

/// A [`RegexMatcher`], with a required literal to find candidate lines by when there is one.
#[derive(Clone, Debug)]
pub(super) struct GrepMatcher {
    regex: RegexMatcher,
    required: Option<Finder<'static>>,
}

impl GrepMatcher {
    /// `regex` as it is.
    pub(super) fn plain(regex: RegexMatcher) -> GrepMatcher {
        GrepMatcher {
            regex,
            required: None,
        }
    }

    /// `regex`, compiled from `pattern` (in the `regex` crate's syntax, case-sensitive),
    /// with a filter on the longest literal every match of it holds.
    pub(super) fn with_literal(regex: RegexMatcher, pattern: &str) -> GrepMatcher {
        let required = required_literal(pattern)
            .filter(|l| l.len() >= MIN_LITERAL)
            .map(|l| Finder::new(&l).into_owned());
        GrepMatcher { regex, required }
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
        self.regex.is_match_at(haystack, at)
    }

    fn shortest_match_at(&self, haystack: &[u8], at: usize) -> Result<Option<usize>, NoError> {
        self.regex.shortest_match_at(haystack, at)
    }

    fn non_matching_bytes(&self) -> Option<&ByteSet> {
        self.regex.non_matching_bytes()
    }

    fn line_terminator(&self) -> Option<LineTerminator> {
        self.regex.line_terminator()
    }

    fn find_candidate_line(&self, haystack: &[u8]) -> Result<Option<LineMatchKind>, NoError> {
        match &self.required {
            // A line without the literal cannot match; one with it is a candidate the
            // searcher confirms with the regex.
            Some(finder) => Ok(finder.find(haystack).map(LineMatchKind::Candidate)),
            None => self.regex.find_candidate_line(haystack),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::required_literal;

    fn lit(p: &str) -> Option<String> {
        required_literal(p).map(|l| String::from_utf8(l).unwrap_or_default())
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
