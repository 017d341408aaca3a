//! awk regular expressions, translated byte by byte into the `regex` crate's syntax.
//!
//! The model is gawk's under `LC_ALL=C`: a pattern and the text it matches are bytes, so
//! `.` is one byte, a bracket expression is a set of bytes (`[é]` is the set of the two
//! bytes of `é`), and `[[:alpha:]]` is ASCII only. awk's escapes are resolved here, in and
//! out of brackets (`\t`, `\/`, octal `\ddd`, `\xHH`, `\b` is backspace, `\y` a word
//! boundary, gawk's `\<`, `\>`, `\B`, `\s`, `\S`, `\w`, `\W`, `` \` ``, `\'`); a repetition
//! with nothing to repeat (`*`, `+`, `?` or `{` at the start, after `(`, `|` or `^`) is a
//! literal character, as is a lone `)` and a `{` that does not start an interval.

use std::sync::{Arc, Mutex};

use regex::bytes::{Captures, Regex, RegexBuilder};
use regex_automata::hybrid::dfa::{Cache, DFA};
use regex_automata::util::syntax;
use regex_automata::{Anchored, Input, MatchKind};

/// A compiled awk regex. Matches are POSIX leftmost-longest in extent: the `regex` crate
/// finds the leftmost match (its start is the same under both rules), and where the
/// pattern has alternatives or groups a lazy DFA with "all matches" semantics, run
/// anchored at that start, finds the longest end (so `(a|ab)` matches all of `ab`).
/// Submatches (`gensub`'s `\N`, `match`'s array) keep the `regex` crate's choice.
#[derive(Clone, Debug)]
pub struct Re {
    re: Regex,
    longest: Option<Arc<Longest>>,
}

#[derive(Debug)]
struct Longest {
    dfa: DFA,
    cache: Mutex<Option<Cache>>,
}

/// The lazy DFA's cache: small, since one is kept per regex in use (up to the interpreter's
/// few hundred cached dynamic regexes). When it is too small for a search, that search
/// falls back to the leftmost-first end.
const DFA_CACHE: usize = 64 * 1024;

impl Re {
    #[inline]
    pub fn is_match(&self, h: &[u8]) -> bool {
        self.re.is_match(h)
    }

    /// The leftmost-longest match starting at or after `pos`.
    #[inline]
    pub fn find_at(&self, h: &[u8], pos: usize) -> Option<(usize, usize)> {
        let m = self.re.find_at(h, pos)?;
        let (s, mut e) = (m.start(), m.end());
        if let Some(l) = &self.longest {
            e = e.max(l.end(h, s).unwrap_or(e));
        }
        Some((s, e))
    }

    #[inline]
    pub fn find(&self, h: &[u8]) -> Option<(usize, usize)> {
        self.find_at(h, 0)
    }

    /// Successive matches, an empty one never right after the previous match (the
    /// `regex` crate's rule, which is gawk's for `FPAT` and `split`).
    pub fn find_iter<'r, 'h>(&'r self, h: &'h [u8]) -> FindIter<'r, 'h> {
        FindIter {
            re: self,
            h,
            pos: 0,
            last_end: None,
        }
    }

    /// The groups of the leftmost match at or after `pos`; the whole match is widened to
    /// the longest as in [`Re::find_at`] and returned with them.
    pub fn captures_at<'h>(
        &self,
        h: &'h [u8],
        pos: usize,
    ) -> Option<(Captures<'h>, (usize, usize))> {
        let c = self.re.captures_at(h, pos)?;
        let m = c.get(0)?;
        let (s, mut e) = (m.start(), m.end());
        if let Some(l) = &self.longest {
            e = e.max(l.end(h, s).unwrap_or(e));
        }
        Some((c, (s, e)))
    }
}

impl Longest {
    /// The end of the longest match anchored at `start`.
    fn end(&self, h: &[u8], start: usize) -> Option<usize> {
        let mut guard = self.cache.lock().ok()?;
        let cache = guard.get_or_insert_with(|| self.dfa.create_cache());
        let input = Input::new(h).range(start..).anchored(Anchored::Yes);
        let hm = self.dfa.try_search_fwd(cache, &input).ok()??;
        Some(hm.offset())
    }
}

/// See [`Re::find_iter`].
pub struct FindIter<'r, 'h> {
    re: &'r Re,
    h: &'h [u8],
    pos: usize,
    last_end: Option<usize>,
}

impl Iterator for FindIter<'_, '_> {
    type Item = (usize, usize);
    fn next(&mut self) -> Option<(usize, usize)> {
        loop {
            if self.pos > self.h.len() {
                return None;
            }
            let (s, e) = self.re.find_at(self.h, self.pos)?;
            if s == e && self.last_end == Some(s) {
                self.pos = s + 1;
                continue;
            }
            self.last_end = Some(e);
            self.pos = e;
            return Some((s, e));
        }
    }
}

/// Compile an awk ERE (as written in a regex literal or a dynamic regex string).
pub fn compile(pat: &[u8]) -> Result<Re, String> {
    build(pat, false)
}

/// Compile an awk ERE, ignoring (ASCII) case when `icase` (gawk's `IGNORECASE`).
pub fn build(pat: &[u8], icase: bool) -> Result<Re, String> {
    build_with(pat, icase, false)
}

/// [`build`], with `posix` leaving gawk's `\xHH` out (`\x` is then `x`).
pub fn build_with(pat: &[u8], icase: bool, posix: bool) -> Result<Re, String> {
    let text = translate(pat, !posix)?;
    from_text(&text, icase)
}

fn from_text(text: &str, icase: bool) -> Result<Re, String> {
    let re = RegexBuilder::new(text)
        .unicode(false)
        .dot_matches_new_line(true)
        .case_insensitive(icase)
        .build()
        .map_err(|e| crate::promoted::posix_re::short(&e))?;
    // Only alternatives (and optional or repeated groups) can make the first match found
    // shorter than the longest.
    let longest = if text.contains('|') || text.contains(')') {
        DFA::builder()
            .configure(
                DFA::config()
                    .match_kind(MatchKind::All)
                    .cache_capacity(DFA_CACHE)
                    .skip_cache_capacity_check(true),
            )
            .syntax(
                syntax::Config::new()
                    .unicode(false)
                    .utf8(false)
                    .case_insensitive(icase)
                    .dot_matches_new_line(true),
            )
            .thompson(regex_automata::nfa::thompson::Config::new().utf8(false))
            .build(text)
            .ok()
            .map(|dfa| {
                Arc::new(Longest {
                    dfa,
                    cache: Mutex::new(None),
                })
            })
    } else {
        None
    };
    Ok(Re { re, longest })
}

/// A regex matching `c` literally.
pub fn literal(c: &[u8]) -> Result<Re, String> {
    let mut out = String::new();
    for &b in c {
        push_byte(&mut out, b);
    }
    from_text(&out, false)
}

/// Append byte `b` as a literal outside a class.
fn push_byte(out: &mut String, b: u8) {
    if b.is_ascii_alphanumeric() || b == b'_' {
        out.push(b as char);
    } else {
        out.push_str(&format!("\\x{b:02X}"));
    }
}

/// Decode a numeric escape starting at `pat[i]` (just after the backslash): octal `\ddd`
/// or hex `\xHH`; the byte and the index after it.
fn numeric(pat: &[u8], i: usize, hex: bool) -> Option<(u8, usize)> {
    match pat.get(i)? {
        b'0'..=b'7' => {
            let mut v = 0u32;
            let mut j = i;
            while j < i + 3 && j < pat.len() && (b'0'..=b'7').contains(&pat[j]) {
                v = v * 8 + u32::from(pat[j] - b'0');
                j += 1;
            }
            Some(((v & 0xff) as u8, j))
        }
        b'x' if hex => {
            let mut v = 0u32;
            let mut j = i + 1;
            while j < i + 3 && j < pat.len() && pat[j].is_ascii_hexdigit() {
                v = v * 16 + (pat[j] as char).to_digit(16).unwrap_or(0);
                j += 1;
            }
            (j > i + 1).then_some((v as u8, j))
        }
        _ => None,
    }
}

/// The byte a simple escape letter stands for (`\n`, `\t`, ...).
fn simple_escape(e: u8) -> Option<u8> {
    Some(match e {
        b'n' => b'\n',
        b't' => b'\t',
        b'r' => b'\r',
        b'f' => 12,
        b'v' => 11,
        b'a' => 7,
        b'b' => 8,
        _ => return None,
    })
}

/// Translate an awk ERE into `regex`-crate syntax (bytes, no Unicode); `hex`: `\xHH`
/// escapes (gawk's).
pub fn translate(pat: &[u8], hex: bool) -> Result<String, String> {
    let mut out = String::with_capacity(pat.len() * 2);
    let mut i = 0;
    // Where a repetition would have nothing to repeat.
    let mut at_start = true;
    // Start (in `out`) of the last atom, and whether it already carries a repetition.
    let mut atom: Option<usize> = None;
    let mut repeated = false;
    let mut groups: Vec<usize> = Vec::new();
    while i < pat.len() {
        let b = pat[i];
        let start_before = at_start;
        at_start = false;
        let rep: Option<(String, usize)> = match b {
            b'*' | b'+' | b'?' if !start_before && atom.is_some() => {
                Some(((b as char).to_string(), i + 1))
            }
            b'{' if !start_before && atom.is_some() => interval(pat, i + 1),
            _ => None,
        };
        if let Some((op, next)) = rep {
            let a = atom.unwrap_or(out.len());
            if repeated {
                // `a+?` is `(a+)?` in POSIX (the regex crate would read a lazy `+`).
                out.insert_str(a, "(?:");
                out.push(')');
            }
            out.push_str(&op);
            repeated = true;
            i = next;
            continue;
        }
        repeated = false;
        match b {
            b'\\' => {
                let Some(&e) = pat.get(i + 1) else {
                    atom = Some(out.len());
                    out.push_str(r"\\");
                    i += 1;
                    continue;
                };
                if let Some((v, next)) = numeric(pat, i + 1, hex) {
                    atom = Some(out.len());
                    push_byte(&mut out, v);
                    i = next;
                    continue;
                }
                // gawk's assertions: nothing a repetition could apply to.
                let assertion = match e {
                    b'y' => Some(r"\b"),
                    b'B' => Some(r"\B"),
                    b'<' => Some(r"\b{start}"),
                    b'>' => Some(r"\b{end}"),
                    b'`' => Some(r"\A"),
                    b'\'' => Some(r"\z"),
                    _ => None,
                };
                if let Some(a) = assertion {
                    out.push_str(a);
                    atom = None;
                    i += 2;
                    continue;
                }
                atom = Some(out.len());
                match e {
                    b's' | b'S' | b'w' | b'W' => {
                        out.push('\\');
                        out.push(e as char);
                    }
                    _ => push_byte(&mut out, simple_escape(e).unwrap_or(e)),
                }
                i += 2;
            }
            b'[' => {
                let (class, next) = bracket(pat, i, hex)?;
                atom = Some(out.len());
                out.push_str(&class);
                i = next;
            }
            b'.' => {
                atom = Some(out.len());
                out.push('.');
                i += 1;
            }
            b'^' => {
                out.push('^');
                atom = None;
                at_start = true;
                i += 1;
            }
            b'$' => {
                out.push('$');
                atom = None;
                i += 1;
            }
            b'(' => {
                groups.push(out.len());
                out.push('(');
                atom = None;
                at_start = true;
                i += 1;
            }
            b')' => {
                match groups.pop() {
                    Some(g) => {
                        out.push(')');
                        atom = Some(g);
                    }
                    None => {
                        atom = Some(out.len());
                        push_byte(&mut out, b')');
                    }
                }
                i += 1;
            }
            b'|' => {
                out.push('|');
                atom = None;
                at_start = true;
                i += 1;
            }
            _ => {
                atom = Some(out.len());
                push_byte(&mut out, b);
                i += 1;
            }
        }
    }
    if !groups.is_empty() {
        return Err("Unmatched ( or \\(".into());
    }
    Ok(out)
}

/// Parse an interval body `n}`, `n,}`, `,m}`, `n,m}` from `i` (after `{`): the translated
/// `{...}` and the index after it; `None` when it is not one (then `{` is literal).
fn interval(pat: &[u8], mut i: usize) -> Option<(String, usize)> {
    let mut lo = String::new();
    let mut hi: Option<String> = None;
    while let Some(&c) = pat.get(i) {
        match c {
            b'0'..=b'9' => match &mut hi {
                Some(h) => h.push(c as char),
                None => lo.push(c as char),
            },
            b',' if hi.is_none() => hi = Some(String::new()),
            b'}' => break,
            _ => return None,
        }
        i += 1;
    }
    if pat.get(i) != Some(&b'}') || (lo.is_empty() && hi.as_deref().is_none_or(str::is_empty)) {
        return None;
    }
    let lo = if lo.is_empty() { "0".to_string() } else { lo };
    let text = match hi {
        None => format!("{{{lo}}}"),
        Some(h) if h.is_empty() => format!("{{{lo},}}"),
        Some(h) => format!("{{{lo},{h}}}"),
    };
    Some((text, i + 1))
}

/// One member of a bracket expression at `i`: a byte (escapes resolved) and the index
/// after it, or `None` at a class (`[:name:]`, `[=c=]`, `[.c.]`).
fn member(pat: &[u8], i: usize, hex: bool) -> (Option<u8>, usize) {
    let b = pat[i];
    if b == b'\\' && i + 1 < pat.len() {
        if let Some((v, next)) = numeric(pat, i + 1, hex) {
            return (Some(v), next);
        }
        let e = pat[i + 1];
        return (Some(simple_escape(e).unwrap_or(e)), i + 2);
    }
    if b == b'[' && matches!(pat.get(i + 1), Some(b':' | b'=' | b'.')) {
        return (None, i);
    }
    (Some(b), i + 1)
}

/// Translate the bracket expression starting at `pat[start] == '['` into a byte class.
fn bracket(pat: &[u8], start: usize, hex: bool) -> Result<(String, usize), String> {
    const UNMATCHED: &str = "Unmatched [, [^, [:, [., or [=";
    let mut i = start + 1;
    let mut out = String::from("[");
    if pat.get(i) == Some(&b'^') {
        out.push('^');
        i += 1;
    }
    let first = i;
    let mut any = false;
    loop {
        let Some(&c) = pat.get(i) else {
            return Err(UNMATCHED.into());
        };
        if c == b']' && i > first {
            break;
        }
        let (m, next) = member(pat, i, hex);
        let Some(lo) = m else {
            let kind = pat[i + 1];
            let mut j = i + 2;
            while j + 1 < pat.len() && !(pat[j] == kind && pat[j + 1] == b']') {
                j += 1;
            }
            if j + 1 >= pat.len() {
                return Err(UNMATCHED.into());
            }
            let name = &pat[i + 2..j];
            if kind == b':' {
                const CLASSES: &[&str] = &[
                    "alnum", "alpha", "blank", "cntrl", "digit", "graph", "lower", "print",
                    "punct", "space", "upper", "xdigit",
                ];
                let name = String::from_utf8_lossy(name);
                if !CLASSES.contains(&name.as_ref()) {
                    return Err(format!("Invalid character class name: {name}"));
                }
                out.push_str(&format!("[:{name}:]"));
            } else {
                for &ch in name {
                    out.push_str(&format!("\\x{ch:02X}"));
                }
            }
            any = true;
            i = j + 2;
            continue;
        };
        i = next;
        // A range `lo-hi` (a `-` before the closing `]` is literal).
        if pat.get(i) == Some(&b'-') && pat.get(i + 1).is_some_and(|&c| c != b']') {
            let (h, after) = member(pat, i + 1, hex);
            if let Some(hi) = h {
                if hi < lo {
                    return Err("Invalid range end".into());
                }
                out.push_str(&format!("\\x{lo:02X}-\\x{hi:02X}"));
                any = true;
                i = after;
                continue;
            }
        }
        out.push_str(&format!("\\x{lo:02X}"));
        any = true;
    }
    if !any {
        return Err(UNMATCHED.into());
    }
    out.push(']');
    Ok((out, i + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str, s: &[u8]) -> bool {
        compile(p.as_bytes()).is_ok_and(|r| r.is_match(s))
    }

    #[test]
    fn escapes() {
        assert!(m("a\\tb", b"xa\tb"));
        assert!(m("[\\/x]+$", b"a/x/"));
        assert!(m("a.c", b"abc"));
        assert!(m("^[0-9]+\\.[0-9]*$", b"12.5") && !m("^[0-9]+\\.[0-9]*$", b"12x5"));
        assert!(m("[é]", b"caf\xc3") && !m("[é]", b"cafe"));
        assert!(m("[0\\-9]", b"-") && !m("[0\\-9]", b"5"));
        assert!(m("^+[2-9]", b"+5") && m("*a", b"*a") && m("\\x41", b"A"));
        assert!(m("\\b", b"\x08") && !m("\\b", b"ab"));
        assert!(!m("^a+?$", b"a+") && m("^a**$", b"aaa") && m("a{", b"a{"));
        assert!(compile(b"[z-a]").is_err() && compile(b"(a").is_err());
        assert!(m("a)", b"a)"));
    }

    #[test]
    fn longest() {
        let f = |p: &str, s: &str| {
            compile(p.as_bytes())
                .ok()
                .and_then(|r| r.find(s.as_bytes()))
        };
        assert_eq!(f("(a|ab)", "xabc"), Some((1, 3)));
        assert_eq!(f("(x|xy)+z?", "xyxyxyz"), Some((0, 7)));
        assert_eq!(f("(ab)?(abcd)?", "abcd"), Some((0, 4)));
        let words = "(alpha|alphabet|beta|betamax|gamma|gammaray|delta|deltas)+";
        assert_eq!(f(words, "alphabetbetamaxdeltas!"), Some((0, 21)));
    }
}
