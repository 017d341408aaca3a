//! POSIX regular expressions (basic and extended, with the GNU escapes) translated into the
//! `regex` crate's syntax, for grep, sed and awk.
//!
//! Known departures, listed in the shell's INTENDED_DIFFERENCES: back-references inside a
//! pattern are refused (the `regex` crate has none), and alternation is leftmost-first
//! rather than POSIX leftmost-longest.

/// Which POSIX grammar a pattern is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    /// BRE: `\(`, `\{`, `\|`, `\+`, `\?` are operators; the bare characters are literal.
    Basic,
    /// ERE: `(`, `{`, `|`, `+`, `?` are operators.
    Extended,
}

/// Translate `pattern` into `regex`-crate syntax.
///
/// # Errors
/// A message for a back-reference, an unmatched bracket or parenthesis.
pub fn translate(pattern: &str, flavor: Flavor) -> Result<String, String> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut i = 0;
    // True where a `*` would be literal: at the start, after `(` or `|` (and after `^` in BRE).
    let mut at_start = true;
    let mut depth = 0usize;
    let basic = flavor == Flavor::Basic;
    while i < chars.len() {
        let c = chars[i];
        let start_before = at_start;
        at_start = false;
        match c {
            '\\' => {
                i += 1;
                let Some(&e) = chars.get(i) else {
                    return Err("trailing backslash (\\)".into());
                };
                match e {
                    '1'..='9' => {
                        return Err(format!(
                            "back-reference \\{e} in a pattern is not supported (Ultra's regex engine has none); match the text explicitly"
                        ));
                    }
                    '(' if basic => {
                        out.push('(');
                        depth += 1;
                        at_start = true;
                    }
                    ')' if basic => {
                        if depth == 0 {
                            return Err("Unmatched ) or \\)".into());
                        }
                        depth -= 1;
                        out.push(')');
                    }
                    '|' if basic => {
                        out.push('|');
                        at_start = true;
                    }
                    '{' if basic => {
                        let (text, next) = interval(&chars, i + 1, true)
                            .ok_or_else(|| "Invalid content of \\{\\}".to_string())?;
                        interval_error(&text)?;
                        if start_before {
                            return Err("Invalid preceding regular expression".into());
                        }
                        out.push_str(&text);
                        i = next;
                        continue;
                    }
                    '+' | '?' if basic => {
                        if start_before {
                            out.push('\\');
                        }
                        out.push(e);
                    }
                    '<' => out.push_str(r"\b{start}"),
                    '>' => out.push_str(r"\b{end}"),
                    '`' => out.push_str(r"\A"),
                    '\'' => out.push_str(r"\z"),
                    'w' | 'W' | 's' | 'S' | 'b' | 'B' => {
                        out.push('\\');
                        out.push(e);
                    }
                    'n' => out.push_str(r"\n"),
                    't' => out.push_str(r"\t"),
                    _ => push_literal(&mut out, e),
                }
                i += 1;
            }
            '[' => {
                let (class, next) = bracket(&chars, i)?;
                out.push_str(&class);
                i = next;
            }
            '*' if start_before => {
                out.push_str(r"\*");
                i += 1;
                // `^*` and `\(*` keep the next `*` an operator.
            }
            '*' => {
                out.push('*');
                i += 1;
            }
            '^' if basic && !start_before => {
                out.push_str(r"\^");
                i += 1;
            }
            '^' => {
                out.push('^');
                at_start = basic;
                i += 1;
            }
            '$' if basic && !ends_bre(&chars, i + 1) => {
                out.push_str(r"\$");
                i += 1;
            }
            '.' | '$' => {
                out.push(c);
                i += 1;
            }
            '(' | ')' | '|' | '+' | '?' | '{' | '}' if basic => {
                push_literal(&mut out, c);
                i += 1;
            }
            '(' => {
                depth += 1;
                out.push('(');
                at_start = true;
                i += 1;
            }
            ')' => {
                if depth == 0 {
                    // POSIX leaves a lone `)` undefined; GNU treats it as literal.
                    out.push_str(r"\)");
                } else {
                    depth -= 1;
                    out.push(')');
                }
                i += 1;
            }
            '|' => {
                out.push('|');
                at_start = true;
                i += 1;
            }
            '+' | '?' if start_before => {
                push_literal(&mut out, c);
                i += 1;
            }
            '+' | '?' => {
                out.push(c);
                i += 1;
            }
            '{' => match interval(&chars, i + 1, false) {
                Some((text, next)) if !start_before => {
                    interval_error(&text)?;
                    out.push_str(&text);
                    i = next;
                }
                _ => {
                    out.push_str(r"\{");
                    i += 1;
                }
            },
            _ => {
                push_literal(&mut out, c);
                i += 1;
            }
        }
    }
    if depth > 0 {
        return Err("Unmatched ( or \\(".into());
    }
    Ok(out)
}

/// Whether a BRE `$` at `i - 1` is an anchor: at the end, or before `\)` or `\|`.
fn ends_bre(chars: &[char], i: usize) -> bool {
    i == chars.len() || (chars.get(i) == Some(&'\\') && matches!(chars.get(i + 1), Some(')' | '|')))
}

fn push_literal(out: &mut String, c: char) {
    if c.is_ascii_punctuation() || c == ' ' {
        let mut b = [0u8; 4];
        out.push_str(&regex::escape(c.encode_utf8(&mut b)));
    } else {
        out.push(c);
    }
}

/// The largest count of an interval (POSIX's RE_DUP_MAX as GNU sets it).
const RE_DUP_MAX: u64 = 32767;
/// What [`interval`] returns for a count over [`RE_DUP_MAX`] (the caller turns it into the error).
const TOO_BIG: &str = "\u{0}too big";
/// What [`interval`] returns for `{m,n}` with `n < m`.
const BAD_INTERVAL: &str = "\u{0}bad";

/// The error for an interval [`interval`] flagged, if it did.
fn interval_error(text: &str) -> Result<(), String> {
    match text {
        TOO_BIG => Err("Regular expression too big".into()),
        BAD_INTERVAL => Err("Invalid content of \\{\\}".into()),
        _ => Ok(()),
    }
}

/// Parse `n}`, `n,}`, `n,m}` (`\}` in BRE) from `i`; the translated `{...}` and the index
/// after it.
fn interval(chars: &[char], mut i: usize, basic: bool) -> Option<(String, usize)> {
    let mut body = String::new();
    while let Some(&c) = chars.get(i) {
        if c.is_ascii_digit() || c == ',' {
            body.push(c);
            i += 1;
        } else {
            break;
        }
    }
    if basic {
        if chars.get(i) != Some(&'\\') || chars.get(i + 1) != Some(&'}') {
            return None;
        }
        i += 2;
    } else {
        if chars.get(i) != Some(&'}') {
            return None;
        }
        i += 1;
    }
    let (lo, hi) = match body.split_once(',') {
        Some((lo, hi)) => (lo, Some(hi)),
        None => (body.as_str(), None),
    };
    if lo.is_empty() && hi.is_none() {
        return None;
    }
    let lo = if lo.is_empty() { "0" } else { lo };
    if hi.is_some_and(|h| h.contains(',')) {
        return None;
    }
    // GNU's limits: counts up to RE_DUP_MAX, the low one first (else an error, not text).
    let n = |s: &str| s.parse::<u64>().unwrap_or(u64::MAX);
    if n(lo) > RE_DUP_MAX || hi.is_some_and(|h| !h.is_empty() && n(h) > RE_DUP_MAX) {
        return Some((String::from(TOO_BIG), i));
    }
    if hi.is_some_and(|h| !h.is_empty() && n(h) < n(lo)) {
        return Some((String::from(BAD_INTERVAL), i));
    }
    let text = match hi {
        None => format!("{{{lo}}}"),
        Some("") => format!("{{{lo},}}"),
        Some(h) => format!("{{{lo},{h}}}"),
    };
    Some((text, i))
}

/// Translate the bracket expression starting at `chars[start] == '['`.
fn bracket(chars: &[char], start: usize) -> Result<(String, usize), String> {
    let mut i = start + 1;
    let mut out = String::from("[");
    if chars.get(i) == Some(&'^') {
        out.push('^');
        i += 1;
    }
    let first = i;
    loop {
        let Some(&c) = chars.get(i) else {
            return Err("Unmatched [, [^, [:, [., or [=".into());
        };
        if c == ']' && i > first {
            out.push(']');
            return Ok((out, i + 1));
        }
        if c == '[' && matches!(chars.get(i + 1), Some(':' | '=' | '.')) {
            let kind = chars[i + 1];
            let mut j = i + 2;
            while j + 1 < chars.len() && !(chars[j] == kind && chars[j + 1] == ']') {
                j += 1;
            }
            if j + 1 >= chars.len() {
                return Err("Unmatched [, [^, [:, [., or [=".into());
            }
            let name: String = chars[i + 2..j].iter().collect();
            match kind {
                ':' => {
                    const CLASSES: &[&str] = &[
                        "alnum", "alpha", "blank", "cntrl", "digit", "graph", "lower", "print",
                        "punct", "space", "upper", "xdigit",
                    ];
                    if !CLASSES.contains(&name.as_str()) {
                        return Err(format!("Invalid character class name: {name}"));
                    }
                    out.push_str(&format!("[:{name}:]"));
                }
                _ => {
                    for ch in name.chars() {
                        class_char(&mut out, ch);
                    }
                }
            }
            i = j + 2;
            continue;
        }
        if c == '-' {
            let is_edge = i == first || chars.get(i + 1) == Some(&']');
            if is_edge {
                out.push_str(r"\-");
            } else {
                out.push('-');
            }
            i += 1;
            continue;
        }
        class_char(&mut out, c);
        i += 1;
    }
}

fn class_char(out: &mut String, c: char) {
    if matches!(c, '\\' | '[' | ']' | '^' | '-' | '&' | '~' | '|') {
        out.push('\\');
    }
    out.push(c);
}

/// Compile a POSIX pattern for byte input (the C locale: `.` matches any byte).
///
/// # Errors
/// A message naming what is wrong with the pattern.
pub fn compile(pattern: &str, flavor: Flavor, icase: bool) -> Result<regex::bytes::Regex, String> {
    let translated = translate(pattern, flavor)?;
    regex::bytes::RegexBuilder::new(&translated)
        .case_insensitive(icase)
        .unicode(false)
        .dot_matches_new_line(true)
        .build()
        .or_else(|_| {
            // Non-ASCII literals need Unicode mode.
            regex::bytes::RegexBuilder::new(&translated)
                .case_insensitive(icase)
                .dot_matches_new_line(true)
                .build()
        })
        .map_err(|e| short(&e))
}

/// Compile a POSIX pattern for text input.
///
/// # Errors
/// A message naming what is wrong with the pattern.
pub fn compile_str(pattern: &str, flavor: Flavor, icase: bool) -> Result<regex::Regex, String> {
    let translated = translate(pattern, flavor)?;
    regex::RegexBuilder::new(&translated)
        .case_insensitive(icase)
        .dot_matches_new_line(true)
        .build()
        .map_err(|e| short(&e))
}

/// The last line of a `regex` crate's multi-line error message (any error whose
/// `Display` is the regex crate's, e.g. grep-regex's).
pub fn short(e: &dyn std::fmt::Display) -> String {
    let s = e.to_string();
    s.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("invalid regular expression")
        .trim()
        .trim_start_matches("error: ")
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::{Flavor, compile, translate};

    fn m(p: &str, f: Flavor, s: &str) -> bool {
        compile(p, f, false)
            .unwrap_or_else(|e| panic!("{p}: {e}"))
            .is_match(s.as_bytes())
    }

    #[test]
    fn basic() {
        let b = Flavor::Basic;
        assert!(m(r"a\(b\)*c", b, "abbc"));
        assert!(m("a(b)", b, "a(b)"));
        assert!(m("a+", b, "a+"));
        assert!(!m("a+", b, "aa"));
        assert!(m(r"a\+", b, "aa"));
        assert!(m(r"x\{2\}", b, "axxb"));
        assert!(!m(r"x\{3\}", b, "axxb"));
        assert!(m("*a", b, "*a"));
        assert!(m("a^b", b, "a^b"));
        assert!(m("a$b", b, "a$b"));
        assert!(m("^ab$", b, "ab"));
        assert!(m(r"\(^a\)", b, "ab"));
        assert!(m(r"a\|b", b, "b"));
        assert!(m("a{1}", b, "a{1}"));
        assert!(translate(r"\(a\)\1", b).is_err());
        assert!(translate(r"\(a", b).is_err());
    }

    #[test]
    fn extended() {
        let e = Flavor::Extended;
        assert!(m("a(b|c)+d", e, "abcbd"));
        assert!(m("^[0-9]{3}$", e, "123"));
        assert!(m("a{", e, "a{"));
        assert!(m("a{,2}b", e, "b"));
        assert!(m("a)", e, "a)"));
        assert!(m("[]a]", e, "]"));
        assert!(m("[^]a]", e, "b"));
        assert!(!m("[^]a]", e, "]"));
        assert!(m("[a-]", e, "-"));
        assert!(m(r"[\]", e, r"\"));
        assert!(m("[[:digit:]]+", e, "42"));
        assert!(m("[[:alpha:]_][[:alnum:]_]*", e, "_x1"));
        assert!(m("[a[]", e, "["));
        assert!(m(r"\<fo", e, "a foo"));
        assert!(!m(r"\<oo", e, "a foo"));
        assert!(m(r"o\>", e, "foo bar"));
        assert!(m(r"\.", e, "."));
        assert!(!m(r"\.", e, "a"));
        assert!(m("a.c", e, "a\nc"));
        assert!(m(r"\/", e, "/"));
        assert!(translate("[[:nope:]]", e).is_err());
        assert!(translate("[abc", e).is_err());
        // GNU's interval limits: counts up to 32767, the low one first.
        assert_eq!(
            translate("a{1,70000}", e).unwrap_err(),
            "Regular expression too big"
        );
        assert_eq!(
            translate(r"a\{40000\}", Flavor::Basic).unwrap_err(),
            "Regular expression too big"
        );
        assert_eq!(
            translate("a{3,1}", e).unwrap_err(),
            "Invalid content of \\{\\}"
        );
        assert!(m("a{2,32767}", e, "aa"));
    }

    #[test]
    fn case_insensitive() {
        assert!(
            compile("HeLLo", Flavor::Basic, true)
                .unwrap()
                .is_match(b"say hello")
        );
    }
}
