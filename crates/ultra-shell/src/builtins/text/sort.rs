//! `sort`, with GNU's keys (`-k`), separators, numeric (`-n`), human (`-h`) and month (`-M`)
//! orders, NUL-ended records (`-z`) and an output file (`-o`).

use std::cmp::Ordering;
use std::io::{BufWriter, Write};

use crate::command::{Builtin, Cx, Example, Io, Risk};
use crate::opts::getopt;

use super::{is_blank, open, operands_or_stdin, read_capped, usage_error};

/// `sort [-bfhMnrsuz] [-k POS1[,POS2]] [-t SEP] [-o FILE] [FILE...]`.
pub static SORT: Builtin = Builtin::new(
    "sort",
    "sort [-bfhMnrsuz] [-k POS1[,POS2]] [-t SEP] [-o FILE] [FILE...]",
    &sort,
)
.example(Example::new(&["f.txt"], "a\nb\nc\n"))
.max_risk(Risk::OVERWRITE)
.risk(&sort_risk);

/// `-o FILE` replaces a file; otherwise sort only reads.
fn sort_risk(args: &[String]) -> Risk {
    let writes = args.iter().take_while(|a| *a != "--").any(|a| {
        a.starts_with("--output")
            || (a.starts_with('-') && !a.starts_with("--") && a[1..].contains('o'))
    });
    if writes { Risk::OVERWRITE } else { Risk::READ }
}

#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct KeyOpts {
    blanks: bool,
    fold: bool,
    numeric: bool,
    /// `-h`: numbers with SI suffixes (2K < 1M).
    human: bool,
    /// `-M`: month names (unknown < JAN < ... < DEC).
    month: bool,
    reverse: bool,
}

#[derive(Debug, Clone, PartialEq)]
struct Key {
    /// 0-based field and char offset of the start.
    sword: usize,
    schar: usize,
    /// 0-based end field and 1-based end char (0: end of the field); `None`: end of line.
    end: Option<(usize, usize)>,
    opts: KeyOpts,
    /// Start/end blank skipping.
    skip_start: bool,
    skip_end: bool,
}

fn parse_key_opts(s: &str, o: &mut KeyOpts, blank: &mut bool) -> Result<(), String> {
    for c in s.chars() {
        match c {
            'b' => *blank = true,
            'f' => o.fold = true,
            'n' => o.numeric = true,
            'h' => o.human = true,
            'M' => o.month = true,
            'r' => o.reverse = true,
            _ => return Err(format!("invalid option -- '{c}'")),
        }
    }
    Ok(())
}

fn parse_key(spec: &str, global: KeyOpts) -> Result<Key, String> {
    let bad = || format!("invalid number at field start: invalid count at start of '{spec}'");
    let num_prefix = |s: &str| -> (Option<usize>, usize) {
        let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
        (s[..end].parse().ok(), end)
    };
    let (start, end) = match spec.split_once(',') {
        Some((a, b)) => (a, Some(b)),
        None => (spec, None),
    };
    let (f1, k) = num_prefix(start);
    let f1 = f1.ok_or_else(bad)?;
    if f1 == 0 {
        return Err(format!(
            "invalid number at field start: invalid count at start of '{spec}'"
        ));
    }
    let mut rest = &start[k..];
    let mut c1 = 1;
    if let Some(r) = rest.strip_prefix('.') {
        let (c, k) = num_prefix(r);
        c1 = c.ok_or_else(bad)?;
        if c1 == 0 {
            return Err(format!(
                "character offset is zero: invalid field specification '{spec}'"
            ));
        }
        rest = &r[k..];
    }
    let mut opts = KeyOpts::default();
    let mut sb = false;
    let mut eb = false;
    parse_key_opts(rest, &mut opts, &mut sb)?;
    let mut key_end = None;
    if let Some(e) = end {
        let (f2, k) = num_prefix(e);
        let f2 = f2.ok_or_else(bad)?;
        if f2 == 0 {
            return Err(format!(
                "invalid number after ',': invalid count at start of '{e}'"
            ));
        }
        let mut rest = &e[k..];
        let mut c2 = 0;
        if let Some(r) = rest.strip_prefix('.') {
            let (c, k) = num_prefix(r);
            c2 = c.ok_or_else(bad)?;
            rest = &r[k..];
        }
        parse_key_opts(rest, &mut opts, &mut eb)?;
        key_end = Some((f2 - 1, c2));
    }
    let own = opts != KeyOpts::default() || sb || eb;
    if !own {
        opts = global;
        sb = global.blanks;
        eb = global.blanks;
    }
    Ok(Key {
        sword: f1 - 1,
        schar: c1 - 1,
        end: key_end,
        opts,
        skip_start: sb,
        skip_end: eb,
    })
}

fn key_slice<'l>(line: &'l [u8], key: &Key, tab: Option<u8>) -> &'l [u8] {
    let lim = line.len();
    // Start.
    let mut p = 0;
    let mut sword = key.sword;
    while p < lim && sword > 0 {
        sword -= 1;
        match tab {
            Some(t) => {
                while p < lim && line[p] != t {
                    p += 1;
                }
                if p < lim {
                    p += 1;
                }
            }
            None => {
                while p < lim && is_blank(line[p]) {
                    p += 1;
                }
                while p < lim && !is_blank(line[p]) {
                    p += 1;
                }
            }
        }
    }
    if key.skip_start {
        while p < lim && is_blank(line[p]) {
            p += 1;
        }
    }
    let start = (p + key.schar).min(lim);
    // End.
    let end = match key.end {
        None => lim,
        Some((eword, echar)) => {
            let mut eword = if echar == 0 { eword + 1 } else { eword };
            let mut p = 0;
            while p < lim && eword > 0 {
                eword -= 1;
                match tab {
                    Some(t) => {
                        while p < lim && line[p] != t {
                            p += 1;
                        }
                        if p < lim && (eword > 0 || echar > 0) {
                            p += 1;
                        }
                    }
                    None => {
                        while p < lim && is_blank(line[p]) {
                            p += 1;
                        }
                        while p < lim && !is_blank(line[p]) {
                            p += 1;
                        }
                    }
                }
            }
            if echar != 0 {
                if key.skip_end {
                    while p < lim && is_blank(line[p]) {
                        p += 1;
                    }
                }
                p = (p + echar).min(lim);
            }
            p
        }
    };
    if start >= end { &[] } else { &line[start..end] }
}

/// A leading number as GNU `sort -n` reads it: (negative, integer digits, fraction digits).
fn parse_num(s: &[u8]) -> (bool, &[u8], &[u8]) {
    let mut p = 0;
    while p < s.len() && is_blank(s[p]) {
        p += 1;
    }
    let neg = s.get(p) == Some(&b'-');
    if neg {
        p += 1;
    }
    let a = p;
    while p < s.len() && s[p].is_ascii_digit() {
        p += 1;
    }
    let int = &s[a..p];
    let mut frac: &[u8] = &[];
    if s.get(p) == Some(&b'.') {
        let b = p + 1;
        let mut q = b;
        while q < s.len() && s[q].is_ascii_digit() {
            q += 1;
        }
        frac = &s[b..q];
    }
    let mut i = 0;
    while i < int.len() && int[i] == b'0' {
        i += 1;
    }
    let mut j = frac.len();
    while j > 0 && frac[j - 1] == b'0' {
        j -= 1;
    }
    let (int, frac) = (&int[i..], &frac[..j]);
    let neg = neg && !(int.is_empty() && frac.is_empty());
    (neg, int, frac)
}

fn num_cmp(a: &[u8], b: &[u8]) -> Ordering {
    let (an, ai, af) = parse_num(a);
    let (bn, bi, bf) = parse_num(b);
    if an != bn {
        return if an {
            Ordering::Less
        } else {
            Ordering::Greater
        };
    }
    let mag = ai.len().cmp(&bi.len()).then(ai.cmp(bi)).then(af.cmp(bf));
    if an { mag.reverse() } else { mag }
}

/// `-h`: the sign, then the SI suffix (none, K, M, G, ...), then the number.
fn human_cmp(a: &[u8], b: &[u8]) -> Ordering {
    fn rank(s: &[u8]) -> (bool, u8) {
        let (neg, int, frac) = parse_num(s);
        // The suffix right after the number's digits.
        let mut p = 0;
        while p < s.len() && is_blank(s[p]) {
            p += 1;
        }
        if s.get(p) == Some(&b'-') {
            p += 1;
        }
        while p < s.len() && (s[p].is_ascii_digit() || s[p] == b'.') {
            p += 1;
        }
        let suffix = match s.get(p) {
            Some(b'k' | b'K') => 1,
            Some(b'M') => 2,
            Some(b'G') => 3,
            Some(b'T') => 4,
            Some(b'P') => 5,
            Some(b'E') => 6,
            Some(b'Z') => 7,
            Some(b'Y') => 8,
            Some(b'R') => 9,
            Some(b'Q') => 10,
            _ => 0,
        };
        let zero = int.is_empty() && frac.is_empty();
        (neg, if zero { 0 } else { suffix })
    }
    let ((an, asuf), (bn, bsuf)) = (rank(a), rank(b));
    if an != bn {
        return if an {
            Ordering::Less
        } else {
            Ordering::Greater
        };
    }
    let by_suffix = asuf.cmp(&bsuf);
    let by_suffix = if an { by_suffix.reverse() } else { by_suffix };
    by_suffix.then_with(|| num_cmp(a, b))
}

/// `-M`: 0 for no month, 1 to 12 for JAN to DEC (leading blanks skipped, any case).
fn month(s: &[u8]) -> u8 {
    const MONTHS: [&[u8; 3]; 12] = [
        b"JAN", b"FEB", b"MAR", b"APR", b"MAY", b"JUN", b"JUL", b"AUG", b"SEP", b"OCT", b"NOV",
        b"DEC",
    ];
    let s = &s[s.iter().take_while(|b| is_blank(**b)).count()..];
    let Some(head) = s.get(..3) else { return 0 };
    MONTHS
        .iter()
        .position(|m| m.eq_ignore_ascii_case(head))
        .map_or(0, |i| i as u8 + 1)
}

fn key_cmp(a: &[u8], b: &[u8], o: &KeyOpts) -> Ordering {
    let r = if o.month {
        month(a).cmp(&month(b))
    } else if o.human {
        human_cmp(a, b)
    } else if o.numeric {
        num_cmp(a, b)
    } else if o.fold {
        a.iter()
            .map(u8::to_ascii_uppercase)
            .cmp(b.iter().map(u8::to_ascii_uppercase))
    } else {
        a.cmp(b)
    };
    if o.reverse { r.reverse() } else { r }
}

struct SortSpec {
    keys: Vec<Key>,
    tab: Option<u8>,
    global: KeyOpts,
    last_resort: bool,
}

impl SortSpec {
    fn cmp(&self, a: &[u8], b: &[u8]) -> Ordering {
        for k in &self.keys {
            let r = key_cmp(
                key_slice(a, k, self.tab),
                key_slice(b, k, self.tab),
                &k.opts,
            );
            if r != Ordering::Equal {
                return r;
            }
        }
        if !self.last_resort {
            return Ordering::Equal;
        }
        let r = a.cmp(b);
        if self.global.reverse { r.reverse() } else { r }
    }
}

fn sort(args: &[String], io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
    let longs = [
        ("ignore-leading-blanks", 'b'),
        ("ignore-case", 'f'),
        ("numeric-sort", 'n'),
        ("human-numeric-sort", 'h'),
        ("month-sort", 'M'),
        ("reverse", 'r'),
        ("stable", 's'),
        ("unique", 'u'),
        ("key", 'k'),
        ("field-separator", 't'),
        ("output", 'o'),
        ("zero-terminated", 'z'),
    ];
    let o = match getopt(args, "bfhMnrsuzk:t:o:", &longs) {
        Ok(o) => o,
        Err(m) => return usage_error(io.stderr, "sort", &m, SORT.usage, 2),
    };
    let global = KeyOpts {
        blanks: o.has('b'),
        fold: o.has('f'),
        numeric: o.has('n'),
        human: o.has('h'),
        month: o.has('M'),
        reverse: o.has('r'),
    };
    let eol = if o.has('z') { b'\0' } else { b'\n' };
    let mut tab = None;
    if let Some(t) = o.last('t') {
        if t.len() != 1 {
            let msg = if t.is_empty() {
                "empty tab".to_string()
            } else {
                format!("multi-character tab '{t}'")
            };
            let _ = writeln!(io.stderr, "sort: {msg}");
            return 2;
        }
        tab = Some(t.as_bytes()[0]);
    }
    let mut keys = Vec::new();
    for (f, a) in &o.flags {
        if *f == 'k' {
            match parse_key(a, global) {
                Ok(k) => keys.push(k),
                Err(m) => {
                    let _ = writeln!(io.stderr, "sort: {m}");
                    return 2;
                }
            }
        }
    }
    if keys.is_empty() {
        keys.push(Key {
            sword: 0,
            schar: 0,
            end: None,
            opts: global,
            skip_start: global.blanks,
            skip_end: global.blanks,
        });
    }
    let unique = o.has('u');
    let spec = SortSpec {
        keys,
        tab,
        global,
        last_resort: !unique && !o.has('s'),
    };
    let mut data = Vec::new();
    let mut used = 0;
    for f in operands_or_stdin(&o) {
        let mut input = match open(&mut *io.stdin, cx, &f) {
            Ok(r) => r,
            Err(e) => {
                let _ = writeln!(io.stderr, "sort: cannot read: {f}: {e}");
                return 2;
            }
        };
        if let Err(e) = read_capped(&mut input, &mut used, &mut data) {
            let _ = writeln!(io.stderr, "sort: {f}: {e}");
            return 2;
        }
        if !data.is_empty() && data.last() != Some(&eol) {
            data.push(eol);
        }
    }
    let mut lines: Vec<&[u8]> = data.split(|&b| b == eol).collect();
    if data.is_empty() || data.last() == Some(&eol) {
        lines.pop();
    }
    lines.sort_by(|a, b| spec.cmp(a, b));
    if unique {
        lines.dedup_by(|b, a| spec.cmp(a, b) == Ordering::Equal);
    }
    let write = |out: &mut dyn Write| -> std::io::Result<()> {
        let mut out = BufWriter::new(out);
        for l in &lines {
            out.write_all(l)?;
            out.write_all(&[eol])?;
        }
        out.flush()
    };
    // `-o` is written after everything is read, so it may name an input (`sort -o f f`).
    match o.last('o') {
        None => i32::from(write(&mut *io.stdout).is_err()),
        Some(path) => {
            let landed = match cx.fs.create(cx.cwd, path) {
                Ok(mut f) => write(&mut f)
                    .and_then(|()| f.commit())
                    .map_err(|e| e.to_string()),
                Err(e) => Err(e.to_string()),
            };
            match landed {
                Ok(()) => 0,
                Err(e) => {
                    let _ = writeln!(io.stderr, "sort: {path}: {e}");
                    2
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn sort_keys() {
        let g = KeyOpts::default();
        let k = parse_key("2,2", g).unwrap();
        assert_eq!(key_slice(b"a b c", &k, None), b" b");
        assert_eq!(key_slice(b"a,b,c", &k, Some(b',')), b"b");
        let k = parse_key("2", g).unwrap();
        assert_eq!(key_slice(b"a,b,c", &k, Some(b',')), b"b,c");
        let k = parse_key("1.2,1.3", g).unwrap();
        assert_eq!(key_slice(b"abcd", &k, None), b"bc");
        let k = parse_key("2n", g).unwrap();
        assert!(k.opts.numeric);
        assert!(parse_key("0", g).is_err());
        assert_eq!(num_cmp(b"-1", b"0"), Ordering::Less);
        assert_eq!(num_cmp(b"10", b"9"), Ordering::Greater);
        assert_eq!(num_cmp(b"1.50", b"1.5"), Ordering::Equal);
        assert_eq!(num_cmp(b"-0", b"x"), Ordering::Equal);
        assert_eq!(num_cmp(b"-2", b"-10"), Ordering::Greater);
    }
}
