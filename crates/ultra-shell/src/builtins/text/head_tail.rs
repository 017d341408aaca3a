//! `head` and `tail`, and the count options they share.

use std::collections::VecDeque;
use std::io::{BufRead, BufWriter, Read, Write};

use crate::command::{Builtin, Cx, Example, Io};
use crate::opts::{Opts, getopt};

use super::{
    Input, MAX_BUFFER, Quit, Res, display_name, open, operands_or_stdin, read_capped, usage_error,
    warn,
};

/// A count like `10`, `+10` or `-10`: (value, leading sign).
/// Parsed `head`/`tail` options: the options, whether the count is in bytes, and the count
/// (with its `+`/`-` sign, if any).
type HeadTailOptions = (Opts, bool, (u64, Option<char>));

/// The options `head` and `tail` share: `-n`/`-c` with a count (and the obsolete `-N`),
/// `-q`, `-v`. Returns the parsed options, whether the count is in bytes, and the count.
fn head_tail_options(
    cmd: &str,
    args: &[String],
    io: &mut Io<'_>,
    usage: &str,
) -> Result<HeadTailOptions, i32> {
    let longs = [
        ("lines", 'n'),
        ("bytes", 'c'),
        ("quiet", 'q'),
        ("silent", 'q'),
        ("verbose", 'v'),
    ];
    let o = getopt(&obsolete_count(args), "n:c:qv", &longs)
        .map_err(|m| usage_error(io.stderr, cmd, &m, usage, 1))?;
    let mut bytes = false;
    let mut count = (10u64, None);
    for (f, a) in &o.flags {
        if *f == 'n' || *f == 'c' {
            bytes = *f == 'c';
            match parse_count(a) {
                Some(c) => count = c,
                None => {
                    let what = if bytes { "bytes" } else { "lines" };
                    let _ = writeln!(io.stderr, "{cmd}: invalid number of {what}: '{a}'");
                    return Err(1);
                }
            }
        }
    }
    Ok((o, bytes, count))
}

fn parse_count(s: &str) -> Option<(u64, Option<char>)> {
    let (sign, digits) = match s.chars().next() {
        Some(c @ ('+' | '-')) => (Some(c), &s[1..]),
        _ => (None, s),
    };
    let (num, mult) = match digits.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let m = match c {
                'b' => 512,
                'k' | 'K' => 1024,
                'M' => 1 << 20,
                'G' => 1 << 30,
                _ => return None,
            };
            (&digits[..i], m)
        }
        _ => (digits, 1),
    };
    if num.is_empty() || !num.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u64 = num.parse().ok()?;
    Some((n.checked_mul(mult)?, sign))
}

/// `-5` → `-n 5` for head/tail.
fn obsolete_count(args: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for (i, a) in args.iter().enumerate() {
        if i == 0 && a.len() > 1 && a.starts_with('-') && a[1..].bytes().all(|b| b.is_ascii_digit())
        {
            out.push("-n".to_string());
            out.push(a[1..].to_string());
        } else {
            out.push(a.clone());
        }
    }
    out
}

/// `head [-n N] [-c N] [-qv] [FILE...]`.
pub static HEAD: Builtin = Builtin::new("head", "head [-n [-]N] [-c [-]N] [-qv] [FILE...]", &head)
    .example(Example::new(&["-n", "1", "f.txt"], "b\n"));

fn head(args: &[String], io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
    let (o, bytes, count) = match head_tail_options("head", args, io, HEAD.usage) {
        Ok(x) => x,
        Err(status) => return status,
    };
    let files = operands_or_stdin(&o);
    let headers = o.has('v') || (files.len() > 1 && !o.has('q'));
    let mut out = BufWriter::new(&mut *io.stdout);
    let r = head_all(
        &files, bytes, count, headers, &mut out, io.stdin, io.stderr, cx,
    );
    let flushed = out.flush();
    match (r, flushed) {
        (Ok(s), Ok(())) => s,
        _ => 1,
    }
}

#[allow(clippy::too_many_arguments)]
fn head_all(
    files: &[String],
    bytes: bool,
    (n, sign): (u64, Option<char>),
    headers: bool,
    out: &mut dyn Write,
    stdin: &mut dyn BufRead,
    err: &mut dyn Write,
    cx: &Cx<'_>,
) -> Res {
    let mut status = 0;
    for (i, f) in files.iter().enumerate() {
        let mut input = match open(&mut *stdin, cx, f) {
            Ok(r) => r,
            Err(e) => {
                let _ = writeln!(err, "head: cannot open '{f}' for reading: {e}");
                status = 1;
                continue;
            }
        };
        if headers {
            let sep = if i > 0 { "\n" } else { "" };
            writeln!(out, "{sep}==> {} <==", display_name(f))?;
        }
        let n = usize::try_from(n).unwrap_or(usize::MAX);
        let res: Result<(), std::io::Error> = if sign == Some('-') {
            // All but the last n lines/bytes.
            if bytes {
                let mut data = Vec::new();
                let mut used = 0;
                if let Err(e) = read_capped(&mut input, &mut used, &mut data) {
                    warn(err, "head", f, e);
                    status = 1;
                    continue;
                }
                out.write_all(&data[..data.len().saturating_sub(n)])?;
                Ok(())
            } else {
                let mut ring: VecDeque<Vec<u8>> = VecDeque::new();
                let mut held = 0usize;
                loop {
                    let mut line = Vec::new();
                    match input.read_until(b'\n', &mut line) {
                        Ok(0) => break Ok(()),
                        Ok(_) => {
                            held += line.len();
                            ring.push_back(line);
                            if ring.len() > n {
                                let first = ring.pop_front().unwrap_or_default();
                                held -= first.len();
                                out.write_all(&first)?;
                            }
                            if held > MAX_BUFFER {
                                break Err(std::io::Error::other(
                                    "input exceeds the 256 MiB buffering limit",
                                ));
                            }
                        }
                        Err(e) => break Err(e),
                    }
                }
            }
        } else if bytes {
            let mut limited = (&mut input).take(n as u64);
            let mut buf = vec![0u8; 64 * 1024];
            loop {
                match limited.read(&mut buf) {
                    Ok(0) => break Ok(()),
                    Ok(k) => out.write_all(&buf[..k])?,
                    Err(e) => break Err(e),
                }
            }
        } else {
            let mut line = Vec::new();
            let mut left = n;
            loop {
                if left == 0 {
                    break Ok(());
                }
                line.clear();
                match input.read_until(b'\n', &mut line) {
                    Ok(0) => break Ok(()),
                    Ok(_) => {
                        out.write_all(&line)?;
                        left -= 1;
                    }
                    Err(e) => break Err(e),
                }
            }
        };
        if let Err(e) = res {
            warn(err, "head", f, e);
            status = 1;
        }
    }
    Ok(status)
}

/// `tail [-n [+]N] [-c [+]N] [-qv] [FILE...]`.
pub static TAIL: Builtin = Builtin::new("tail", "tail [-n [+]N] [-c [+]N] [-qv] [FILE...]", &tail)
    .example(Example::new(&["-n", "1", "f.txt"], "c\n"));

fn tail(args: &[String], io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
    let (o, bytes, count) = match head_tail_options("tail", args, io, TAIL.usage) {
        Ok(x) => x,
        Err(status) => return status,
    };
    let files = operands_or_stdin(&o);
    let headers = o.has('v') || (files.len() > 1 && !o.has('q'));
    let mut out = BufWriter::new(&mut *io.stdout);
    let mut status = 0;
    let stdin = &mut *io.stdin;
    let err = &mut *io.stderr;
    let r = (|| -> Res {
        for (i, f) in files.iter().enumerate() {
            let mut input = match open(&mut *stdin, cx, f) {
                Ok(r) => r,
                Err(e) => {
                    let _ = writeln!(err, "tail: cannot open '{f}' for reading: {e}");
                    status = 1;
                    continue;
                }
            };
            if headers {
                let sep = if i > 0 { "\n" } else { "" };
                writeln!(out, "{sep}==> {} <==", display_name(f))?;
            }
            if let Err(e) = tail_one(&mut input, bytes, count, &mut out) {
                match e {
                    TailErr::Out => return Err(Quit),
                    TailErr::In(m) => {
                        warn(err, "tail", f, m);
                        status = 1;
                    }
                }
            }
        }
        Ok(status)
    })();
    let flushed = out.flush();
    match (r, flushed) {
        (Ok(s), Ok(())) => s,
        _ => 1,
    }
}

enum TailErr {
    Out,
    In(String),
}

fn tail_one(
    input: &mut Input<'_>,
    bytes: bool,
    (n, sign): (u64, Option<char>),
    out: &mut dyn Write,
) -> Result<(), TailErr> {
    let n = usize::try_from(n).unwrap_or(usize::MAX);
    let o = |r: std::io::Result<()>| r.map_err(|_| TailErr::Out);
    if sign == Some('+') {
        // From the n-th line/byte on: skip, then copy.
        let mut skip = n.saturating_sub(1);
        if bytes {
            let mut sink = std::io::sink();
            std::io::copy(&mut (&mut *input).take(skip as u64), &mut sink)
                .map_err(|e| TailErr::In(e.to_string()))?;
        } else {
            let mut line = Vec::new();
            while skip > 0 {
                line.clear();
                match input.read_until(b'\n', &mut line) {
                    Ok(0) => return Ok(()),
                    Ok(_) => skip -= 1,
                    Err(e) => return Err(TailErr::In(e.to_string())),
                }
            }
        }
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match input.read(&mut buf) {
                Ok(0) => return Ok(()),
                Ok(k) => o(out.write_all(&buf[..k]))?,
                Err(e) => return Err(TailErr::In(e.to_string())),
            }
        }
    }
    if bytes {
        let mut ring: VecDeque<u8> = VecDeque::new();
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match input.read(&mut buf) {
                Ok(0) => break,
                Ok(k) => {
                    ring.extend(&buf[..k]);
                    while ring.len() > n {
                        let extra = ring.len() - n;
                        ring.drain(..extra);
                    }
                    if ring.len() > MAX_BUFFER {
                        return Err(TailErr::In(
                            "input exceeds the 256 MiB buffering limit".into(),
                        ));
                    }
                }
                Err(e) => return Err(TailErr::In(e.to_string())),
            }
        }
        let (a, b) = ring.as_slices();
        o(out.write_all(a))?;
        return o(out.write_all(b));
    }
    let mut ring: VecDeque<Vec<u8>> = VecDeque::new();
    let mut held = 0usize;
    loop {
        let mut line = Vec::new();
        match input.read_until(b'\n', &mut line) {
            Ok(0) => break,
            Ok(_) => {
                if n == 0 {
                    continue;
                }
                held += line.len();
                ring.push_back(line);
                if ring.len() > n {
                    held -= ring.pop_front().map_or(0, |l| l.len());
                }
                if held > MAX_BUFFER {
                    return Err(TailErr::In(
                        "input exceeds the 256 MiB buffering limit".into(),
                    ));
                }
            }
            Err(e) => return Err(TailErr::In(e.to_string())),
        }
    }
    for l in ring {
        o(out.write_all(&l))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn counts_and_obsolete_forms() {
        assert_eq!(parse_count("+3"), Some((3, Some('+'))));
        assert_eq!(parse_count("-3"), Some((3, Some('-'))));
        assert_eq!(parse_count("2k"), Some((2048, None)));
        assert_eq!(parse_count("x"), None);
        assert_eq!(obsolete_count(&s(&["-3", "f"])), s(&["-n", "3", "f"]));
    }
}
