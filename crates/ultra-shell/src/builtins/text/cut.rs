//! `cut`.

use std::io::{BufRead, BufWriter, Write};

use crate::command::{Builtin, Cx, Example, Io};
use crate::opts::getopt;

use super::{open, operands_or_stdin, usage_error, warn};

/// `cut -b LIST | -c LIST | -f LIST [-d DELIM] [-s] [--complement] [FILE...]`.
pub static CUT: Builtin = Builtin::new(
    "cut",
    "cut -b LIST | -c LIST | -f LIST [-d DELIM] [-s] [--complement] [FILE...]",
    &cut,
)
.example(Example::new(&["-d", ":", "-f", "2"], "b\n").stdin("a:b:c\n"));

/// 1-based inclusive ranges.
fn parse_list(s: &str) -> Result<Vec<(usize, usize)>, String> {
    let mut v = Vec::new();
    for item in s.split([',', ' ']) {
        let num = |t: &str| -> Result<usize, String> {
            let n: usize = t
                .parse()
                .map_err(|_| format!("invalid byte/character position '{t}'"))?;
            if n == 0 {
                return Err("fields and positions are numbered from 1".to_string());
            }
            Ok(n)
        };
        let r = match item.split_once('-') {
            None if item.is_empty() => return Err("invalid range with no endpoint: -".into()),
            None => {
                let n = num(item)?;
                (n, n)
            }
            Some(("", "")) => return Err("invalid range with no endpoint: -".into()),
            Some(("", b)) => (1, num(b)?),
            Some((a, "")) => (num(a)?, usize::MAX),
            Some((a, b)) => {
                let (a, b) = (num(a)?, num(b)?);
                if a > b {
                    return Err("invalid decreasing range".to_string());
                }
                (a, b)
            }
        };
        v.push(r);
    }
    Ok(v)
}

fn in_list(list: &[(usize, usize)], i: usize) -> bool {
    list.iter().any(|&(a, b)| a <= i && i <= b)
}

fn cut(args: &[String], io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
    let longs = [
        ("bytes", 'b'),
        ("characters", 'c'),
        ("fields", 'f'),
        ("delimiter", 'd'),
        ("only-delimited", 's'),
        ("complement", 'C'),
        ("output-delimiter", 'O'),
    ];
    let o = match getopt(args, "b:c:f:d:snCO:", &longs) {
        Ok(o) => o,
        Err(m) => return usage_error(io.stderr, "cut", &m, CUT.usage, 1),
    };
    let fail = |err: &mut dyn Write, m: &str| {
        let _ = writeln!(err, "cut: {m}");
        let _ = writeln!(err, "Try 'cut --help' for more information.");
        1
    };
    let modes: Vec<&(char, String)> = o
        .flags
        .iter()
        .filter(|(c, _)| matches!(c, 'b' | 'c' | 'f'))
        .collect();
    if modes.is_empty() {
        return fail(
            io.stderr,
            "you must specify a list of bytes, characters, or fields",
        );
    }
    if modes.iter().any(|(c, _)| *c != modes[0].0) || modes.len() > 1 {
        return fail(io.stderr, "only one list may be specified");
    }
    let (mode, list) = (modes[0].0, &modes[0].1);
    let list = match parse_list(list) {
        Ok(l) => l,
        Err(m) => return fail(io.stderr, &m),
    };
    let delim = match o.last('d') {
        Some(d) if mode != 'f' => {
            let _ = d;
            return fail(
                io.stderr,
                "an input delimiter may be specified only when operating on fields",
            );
        }
        Some(d) if d.len() != 1 => {
            return fail(io.stderr, "the delimiter must be a single character");
        }
        Some(d) => d.as_bytes()[0],
        None => b'\t',
    };
    if o.has('s') && mode != 'f' {
        return fail(
            io.stderr,
            "suppressing non-delimited lines makes sense\n\tonly when operating on fields",
        );
    }
    let complement = o.has('C');
    let only_delim = o.has('s');
    let out_delim: Vec<u8> = o
        .last('O')
        .map_or_else(|| vec![delim], |s| s.as_bytes().to_vec());
    let pick = |i: usize| in_list(&list, i) != complement;
    let mut out = BufWriter::new(&mut *io.stdout);
    let mut status = 0;
    for f in operands_or_stdin(&o) {
        let mut input = match open(&mut *io.stdin, cx, &f) {
            Ok(r) => r,
            Err(e) => {
                warn(io.stderr, "cut", &f, e);
                status = 1;
                continue;
            }
        };
        let r = (|| -> Result<(), Option<std::io::Error>> {
            let mut line = Vec::new();
            let mut o2 = Vec::new();
            loop {
                line.clear();
                match input.read_until(b'\n', &mut line) {
                    Ok(0) => return Ok(()),
                    Ok(_) => {}
                    Err(e) => return Err(Some(e)),
                }
                let l = line.strip_suffix(b"\n").unwrap_or(&line);
                o2.clear();
                if mode == 'f' {
                    if !l.contains(&delim) {
                        if only_delim {
                            continue;
                        }
                        o2.extend_from_slice(l);
                    } else {
                        let mut first = true;
                        for (i, field) in l.split(|&b| b == delim).enumerate() {
                            if pick(i + 1) {
                                if !first {
                                    o2.extend_from_slice(&out_delim);
                                }
                                first = false;
                                o2.extend_from_slice(field);
                            }
                        }
                    }
                } else {
                    for (i, &b) in l.iter().enumerate() {
                        if pick(i + 1) {
                            o2.push(b);
                        }
                    }
                }
                o2.push(b'\n');
                out.write_all(&o2).map_err(|_| None)?;
            }
        })();
        match r {
            Ok(()) => {}
            Err(Some(e)) => {
                warn(io.stderr, "cut", &f, e);
                status = 1;
            }
            Err(None) => return 1,
        }
    }
    if out.flush().is_err() {
        return 1;
    }
    status
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn cut_lists() {
        assert_eq!(
            parse_list("1,3-4,5-").unwrap(),
            vec![(1, 1), (3, 4), (5, usize::MAX)]
        );
        assert_eq!(parse_list("-2").unwrap(), vec![(1, 2)]);
        assert!(parse_list("0").is_err());
        assert!(parse_list("3-1").is_err());
    }
}
