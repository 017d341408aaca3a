//! awk regular expressions: awk's escapes (`\t`, `\/`, octal, escapes inside brackets)
//! folded into POSIX ERE text, then compiled by the shared POSIX translator.

use regex::bytes::Regex;

use crate::promoted::posix_re::{self, Flavor};

/// Compile an awk ERE (as written in a regex literal or a dynamic regex string).
pub fn compile(pat: &[u8]) -> Result<Regex, String> {
    let text = prepare(pat);
    posix_re::compile(&text, Flavor::Extended, false)
}

/// A regex matching `c` literally.
pub fn literal(c: &[u8]) -> Result<Regex, String> {
    regex::bytes::RegexBuilder::new(&regex::escape(&String::from_utf8_lossy(c)))
        .unicode(false)
        .build()
        .map_err(|e| e.to_string())
}

fn push_lit(out: &mut String, b: u8, in_bracket: bool) {
    let c = b as char;
    if in_bracket {
        out.push(c);
    } else if b".[]()*+?{}|^$\\/".contains(&b) {
        out.push('\\');
        out.push(c);
    } else {
        out.push(c);
    }
}

/// Resolve awk escapes so only POSIX ERE syntax remains.
fn prepare(pat: &[u8]) -> String {
    let mut out = String::with_capacity(pat.len());
    let mut i = 0;
    let mut in_bracket = false;
    let mut bracket_start = 0;
    while i < pat.len() {
        let b = pat[i];
        if b == b'\\' && i + 1 < pat.len() {
            let e = pat[i + 1];
            let lit = match e {
                b'n' => Some(b'\n'),
                b't' => Some(b'\t'),
                b'r' => Some(b'\r'),
                b'f' => Some(12),
                b'v' => Some(11),
                b'a' => Some(7),
                b'/' => Some(b'/'),
                b'"' => Some(b'"'),
                b'0'..=b'7' => {
                    let mut v = 0u32;
                    let mut j = i + 1;
                    while j < i + 4 && j < pat.len() && (b'0'..=b'7').contains(&pat[j]) {
                        v = v * 8 + u32::from(pat[j] - b'0');
                        j += 1;
                    }
                    push_lit(&mut out, (v & 0xff) as u8, in_bracket);
                    i = j;
                    continue;
                }
                b'\\' if in_bracket => Some(b'\\'),
                b']' | b'-' | b'^' | b'[' if in_bracket => {
                    // Escaped bracket specials: keep them as escapes the translator
                    // would otherwise misread; approximate with the literal character.
                    Some(e)
                }
                _ => None,
            };
            match lit {
                Some(c) => push_lit(&mut out, c, in_bracket),
                None => {
                    out.push('\\');
                    out.push(e as char);
                }
            }
            i += 2;
            continue;
        }
        if in_bracket {
            if b == b']' && i > bracket_start {
                in_bracket = false;
            } else if b == b'[' && matches!(pat.get(i + 1), Some(b':' | b'.' | b'=')) {
                let kind = pat[i + 1];
                let mut j = i + 2;
                while j + 1 < pat.len() && !(pat[j] == kind && pat[j + 1] == b']') {
                    j += 1;
                }
                let end = (j + 2).min(pat.len());
                out.push_str(&String::from_utf8_lossy(&pat[i..end]));
                i = end;
                continue;
            }
            out.push(b as char);
            i += 1;
            continue;
        }
        if b == b'[' {
            in_bracket = true;
            out.push('[');
            i += 1;
            if pat.get(i) == Some(&b'^') {
                out.push('^');
                i += 1;
            }
            bracket_start = i;
            continue;
        }
        if b < 0x80 {
            out.push(b as char);
            i += 1;
        } else {
            // Keep UTF-8 sequences whole.
            let mut j = i + 1;
            while j < pat.len() && (pat[j] & 0xc0) == 0x80 {
                j += 1;
            }
            out.push_str(&String::from_utf8_lossy(&pat[i..j]));
            i = j;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes() {
        let re = compile(b"a\\tb").ok();
        assert!(re.is_some_and(|r| r.is_match(b"xa\tb")));
        let re = compile(b"[\\/x]+$").ok();
        assert!(re.is_some_and(|r| r.is_match(b"a/x/")));
        let re = compile(b"a.c").ok();
        assert!(re.is_some_and(|r| r.is_match(b"abc")));
        let re = compile(b"^[0-9]+\\.[0-9]*$").ok();
        assert!(re.is_some_and(|r| r.is_match(b"12.5") && !r.is_match(b"12x5")));
    }
}
