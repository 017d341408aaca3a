//! `tr`, with POSIX sets, classes and repeats.

use crate::command::{Builtin, Cx, Example, Io};
use crate::opts::getopt;

use super::usage_error;

/// `tr [-cdst] SET1 [SET2]`.
pub static TR: Builtin = Builtin::new("tr", "tr [-cdst] SET1 [SET2]", &tr)
    .example(Example::new(&["a-z", "A-Z"], "HI\n").stdin("hi\n"));

/// Expand a `tr` set into its bytes, in order.
fn expand_set(s: &str, second: bool, fill_to: usize) -> Result<Vec<u8>, String> {
    let b = s.as_bytes();
    // First pass: unescape into tokens, where classes and repeats are kept apart.
    enum Tok {
        Byte(u8),
        Class(Vec<u8>),
        Repeat(u8, Option<usize>),
    }
    let mut toks = Vec::new();
    let mut i = 0;
    let esc = |i: &mut usize| -> u8 {
        // b[*i] == '\\'
        *i += 1;
        let Some(&c) = b.get(*i) else {
            return b'\\';
        };
        *i += 1;
        match c {
            b'n' => b'\n',
            b't' => b'\t',
            b'r' => b'\r',
            b'a' => 7,
            b'b' => 8,
            b'f' => 12,
            b'v' => 11,
            b'0'..=b'7' => {
                let mut n = u32::from(c - b'0');
                for _ in 0..2 {
                    match b.get(*i) {
                        Some(&d @ b'0'..=b'7') if n * 8 + u32::from(d - b'0') < 256 => {
                            n = n * 8 + u32::from(d - b'0');
                            *i += 1;
                        }
                        _ => break,
                    }
                }
                n as u8
            }
            other => other,
        }
    };
    while i < b.len() {
        if b[i] == b'['
            && b.get(i + 1) == Some(&b':')
            && let Some(end) = s[i + 2..].find(":]")
        {
            let name = &s[i + 2..i + 2 + end];
            let class: Vec<u8> = (0u8..=255)
                .filter(|&c| match name {
                    "alpha" => c.is_ascii_alphabetic(),
                    "alnum" => c.is_ascii_alphanumeric(),
                    "digit" => c.is_ascii_digit(),
                    "lower" => c.is_ascii_lowercase(),
                    "upper" => c.is_ascii_uppercase(),
                    "space" => matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c),
                    "blank" => c == b' ' || c == b'\t',
                    "punct" => c.is_ascii_punctuation(),
                    "xdigit" => c.is_ascii_hexdigit(),
                    "cntrl" => c.is_ascii_control(),
                    "print" => (0x20..0x7f).contains(&c),
                    "graph" => c.is_ascii_graphic(),
                    _ => false,
                })
                .collect();
            if class.is_empty() {
                return Err(format!("invalid character class '{name}'"));
            }
            if second && name != "upper" && name != "lower" {
                return Err(
                        "when translating, the only character classes that may appear in\nstring2 are 'upper' and 'lower'".to_string(),
                    );
            }
            toks.push(Tok::Class(class));
            i += 2 + end + 2;
            continue;
        }
        if b[i] == b'['
            && i + 2 < b.len()
            && b[i + 2] == b'*'
            && let Some(end) = s[i + 3..].find(']')
        {
            let n = &s[i + 3..i + 3 + end];
            let count = if n.is_empty() {
                None
            } else {
                let v = if n.starts_with('0') {
                    usize::from_str_radix(n, 8)
                } else {
                    n.parse()
                };
                Some(v.map_err(|_| format!("invalid repeat count '{n}' in [c*n] construct"))?)
            };
            toks.push(Tok::Repeat(b[i + 1], count.filter(|&c| c > 0)));
            i += 3 + end + 1;
            continue;
        }
        let c = if b[i] == b'\\' {
            esc(&mut i)
        } else {
            i += 1;
            b[i - 1]
        };
        toks.push(Tok::Byte(c));
    }
    // Second pass: ranges.
    let mut out = Vec::new();
    let mut fill_at = None;
    let mut k = 0;
    while k < toks.len() {
        match &toks[k] {
            Tok::Byte(a) => {
                if let (Some(Tok::Byte(b'-')), Some(Tok::Byte(z))) =
                    (toks.get(k + 1), toks.get(k + 2))
                {
                    if z < a {
                        return Err(format!(
                            "range-endpoints of '{}-{}' are in reverse collating sequence order",
                            *a as char, *z as char
                        ));
                    }
                    out.extend(*a..=*z);
                    k += 3;
                    continue;
                }
                out.push(*a);
            }
            Tok::Class(c) => out.extend_from_slice(c),
            Tok::Repeat(c, Some(n)) => out.extend(std::iter::repeat_n(*c, *n)),
            Tok::Repeat(c, None) => {
                fill_at = Some((out.len(), *c));
            }
        }
        k += 1;
    }
    if let Some((at, c)) = fill_at {
        let n = fill_to.saturating_sub(out.len());
        out.splice(at..at, std::iter::repeat_n(c, n));
    }
    Ok(out)
}

fn tr(args: &[String], io: &mut Io<'_>, _cx: &Cx<'_>) -> i32 {
    let longs = [
        ("complement", 'c'),
        ("delete", 'd'),
        ("squeeze-repeats", 's'),
        ("truncate-set1", 't'),
    ];
    let o = match getopt(args, "cCdst", &longs) {
        Ok(o) => o,
        Err(m) => return usage_error(io.stderr, "tr", &m, TR.usage, 1),
    };
    let (comp, del, squeeze) = (o.has('c') || o.has('C'), o.has('d'), o.has('s'));
    let ops = &o.operands;
    let need = if del == squeeze { 2 } else { 1 };
    let max = if del && !squeeze { 1 } else { 2 };
    if ops.len() < need {
        let m = if ops.is_empty() {
            "missing operand".to_string()
        } else {
            format!("missing operand after '{}'", ops[ops.len() - 1])
        };
        return usage_error(io.stderr, "tr", &m, TR.usage, 1);
    }
    if ops.len() > max {
        let m = format!("extra operand '{}'", ops[max]);
        return usage_error(io.stderr, "tr", &m, TR.usage, 1);
    }
    let set1 = match expand_set(&ops[0], false, 0) {
        Ok(s) => s,
        Err(m) => {
            let _ = writeln!(io.stderr, "tr: {m}");
            return 1;
        }
    };
    let mut in1 = [false; 256];
    for &c in &set1 {
        in1[c as usize] = true;
    }
    if comp {
        for v in in1.iter_mut() {
            *v = !*v;
        }
    }
    let set1_list: Vec<u8> = if comp {
        (0u8..=255).filter(|&c| in1[c as usize]).collect()
    } else {
        set1.clone()
    };
    let translate = !del && ops.len() == 2;
    let mut map: [u8; 256] = std::array::from_fn(|i| i as u8);
    let mut squeeze_set = [false; 256];
    if ops.len() == 2 {
        let set2 = match expand_set(&ops[1], translate, set1_list.len()) {
            Ok(s) => s,
            Err(m) => {
                let _ = writeln!(io.stderr, "tr: {m}");
                return 1;
            }
        };
        for &c in &set2 {
            squeeze_set[c as usize] = true;
        }
        if translate {
            if set2.is_empty() && !set1_list.is_empty() {
                let _ = writeln!(
                    io.stderr,
                    "tr: when not truncating set1, string2 must be non-empty"
                );
                return 1;
            }
            let n = if o.has('t') {
                set1_list.len().min(set2.len())
            } else {
                set1_list.len()
            };
            for (i, &c) in set1_list.iter().take(n).enumerate() {
                map[c as usize] = *set2.get(i).unwrap_or(&set2[set2.len() - 1]);
            }
        }
    } else {
        squeeze_set = in1;
    }
    let mut buf = vec![0u8; 64 * 1024];
    let mut outb = Vec::with_capacity(64 * 1024);
    let mut last: Option<u8> = None;
    loop {
        let k = match io.stdin.read(&mut buf) {
            Ok(0) => break,
            Ok(k) => k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                let _ = writeln!(io.stderr, "tr: read error: {e}");
                return 1;
            }
        };
        outb.clear();
        for &c in &buf[..k] {
            if del && in1[c as usize] {
                continue;
            }
            let c = map[c as usize];
            if squeeze && squeeze_set[c as usize] && last == Some(c) {
                continue;
            }
            last = Some(c);
            outb.push(c);
        }
        if io.stdout.write_all(&outb).is_err() {
            return 1;
        }
    }
    0
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn tr_sets() {
        assert_eq!(expand_set("a-c\\n", false, 0).unwrap(), b"abc\n");
        assert_eq!(expand_set("[:digit:]", false, 0).unwrap(), b"0123456789");
        assert_eq!(expand_set("x[y*]z", true, 5).unwrap(), b"xyyyz");
        assert!(expand_set("z-a", false, 0).is_err());
    }
}
