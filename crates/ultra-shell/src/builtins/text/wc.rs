//! `wc`.

use std::io::{Read, Write};

use crate::command::{Builtin, Cx, Example, Io};
use crate::opts::getopt;

use super::{open, operands_or_stdin, usage_error, warn};

/// `wc [-lwcm] [FILE...]`.
pub static WC: Builtin = Builtin::new("wc", "wc [-clmwL] [FILE...]", &wc)
    .example(Example::new(&["-l", "f.txt"], "3 f.txt\n"));

#[derive(Default, Clone, Copy)]
struct Counts {
    lines: u64,
    words: u64,
    chars: u64,
    bytes: u64,
    max_line: u64,
}

fn wc_count(r: &mut dyn Read) -> std::io::Result<Counts> {
    let mut c = Counts::default();
    let mut buf = vec![0u8; 64 * 1024];
    let mut in_word = false;
    let mut col = 0u64;
    loop {
        let k = match r.read(&mut buf) {
            Ok(0) => break,
            Ok(k) => k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        c.bytes += k as u64;
        for &b in &buf[..k] {
            if b & 0xC0 != 0x80 {
                c.chars += 1;
            }
            match b {
                b'\n' => {
                    c.lines += 1;
                    c.max_line = c.max_line.max(col);
                    col = 0;
                }
                b'\t' => col = (col / 8 + 1) * 8,
                _ if (0x20..0x7f).contains(&b) => col += 1,
                _ => {}
            }
            let space = matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c);
            if space {
                in_word = false;
            } else if !in_word {
                in_word = true;
                c.words += 1;
            }
        }
    }
    c.max_line = c.max_line.max(col);
    Ok(c)
}

fn wc(args: &[String], io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
    let longs = [
        ("lines", 'l'),
        ("words", 'w'),
        ("bytes", 'c'),
        ("chars", 'm'),
        ("max-line-length", 'L'),
    ];
    let o = match getopt(args, "lwcmL", &longs) {
        Ok(o) => o,
        Err(m) => return usage_error(io.stderr, "wc", &m, WC.usage, 1),
    };
    let mut want = [o.has('l'), o.has('w'), o.has('m'), o.has('c'), o.has('L')];
    if !want.iter().any(|w| *w) {
        want = [true, true, false, true, false];
    }
    let nwant = want.iter().filter(|w| **w).count();
    let named = !o.operands.is_empty();
    let files = operands_or_stdin(&o);
    // Column width as coreutils computes it: from the total size of regular files, at
    // least 7 when any input is not a regular file, 1 for a single count of one input.
    let mut width = 1usize;
    if !(files.len() == 1 && nwant == 1) {
        let mut min = 1;
        let mut total = 0u64;
        let mut first_failed = false;
        for (i, f) in files.iter().enumerate() {
            if f == "-" {
                min = 7;
                continue;
            }
            let meta = cx
                .fs
                .open_read(cx.cwd, f)
                .map_err(|e| e.to_string())
                .and_then(|h| h.metadata().map_err(|e| e.to_string()));
            match meta {
                Ok(m) if m.is_file() => total += m.len(),
                Ok(_) => min = 7,
                Err(_) => first_failed |= i == 0,
            }
        }
        if !first_failed {
            while total >= 10 {
                width += 1;
                total /= 10;
            }
            width = width.max(min);
        }
    }
    let mut status = 0;
    let mut sum = Counts::default();
    let print = |out: &mut dyn Write, c: &Counts, name: Option<&str>| -> std::io::Result<()> {
        let vals = [c.lines, c.words, c.chars, c.bytes, c.max_line];
        let mut line = String::new();
        for (v, w) in vals.iter().zip(want) {
            if w {
                if !line.is_empty() {
                    line.push(' ');
                }
                line.push_str(&format!("{v:>width$}"));
            }
        }
        if let Some(n) = name {
            line.push(' ');
            line.push_str(n);
        }
        line.push('\n');
        out.write_all(line.as_bytes())
    };
    for f in &files {
        let mut input = match open(&mut *io.stdin, cx, f) {
            Ok(r) => r,
            Err(e) => {
                warn(io.stderr, "wc", f, e);
                status = 1;
                continue;
            }
        };
        match wc_count(&mut input) {
            Ok(c) => {
                sum.lines += c.lines;
                sum.words += c.words;
                sum.chars += c.chars;
                sum.bytes += c.bytes;
                sum.max_line = sum.max_line.max(c.max_line);
                drop(input);
                if print(io.stdout, &c, named.then_some(f.as_str())).is_err() {
                    return 1;
                }
            }
            Err(e) => {
                warn(io.stderr, "wc", f, e);
                status = 1;
            }
        }
    }
    if files.len() > 1 && print(io.stdout, &sum, Some("total")).is_err() {
        return 1;
    }
    status
}
