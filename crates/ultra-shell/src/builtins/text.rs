//! Text filters in the style of GNU coreutils: `head`, `tail`, `wc`, `sort`, `uniq`, `tac`,
//! `cut`, `tr`, `basename`, `dirname`, `seq`, and bash's `printf`.
//!
//! Everything works on bytes as coreutils does under `LC_ALL=C` (except `wc -m`, which counts
//! UTF-8 characters). Streaming filters read line by line or in chunks; `sort`, `tac` and
//! `tail -c` buffer their input up to [`MAX_BUFFER`]. A failed write to stdout (the reader
//! went away) ends a command quietly.

use std::cmp::Ordering;
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};

use super::opts::{Opts, getopt};
use crate::run::{Builtin, Cx, Example, Io};

/// Most bytes a buffering command (`sort`, `tac`, `tail`) holds.
pub const MAX_BUFFER: usize = 256 << 20;

/// The output went away (or failed): stop quietly.
struct Quit;

impl From<std::io::Error> for Quit {
    fn from(_: std::io::Error) -> Quit {
        Quit
    }
}

type Res = Result<i32, Quit>;

/// `cmd: msg` plus the usage line; returns `code`.
fn usage_error(err: &mut dyn Write, cmd: &str, msg: &str, usage: &str, code: i32) -> i32 {
    let _ = writeln!(err, "{cmd}: {msg}");
    let _ = writeln!(err, "Usage: {usage}");
    code
}

fn warn(err: &mut dyn Write, cmd: &str, path: &str, msg: impl std::fmt::Display) {
    let _ = writeln!(err, "{cmd}: {path}: {msg}");
}

/// A command's input: its stdin or an opened file.
enum Input<'a> {
    Stdin(&'a mut dyn BufRead),
    File(BufReader<std::fs::File>),
}

impl Read for Input<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Input::Stdin(s) => s.read(buf),
            Input::File(f) => f.read(buf),
        }
    }
}

impl BufRead for Input<'_> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        match self {
            Input::Stdin(s) => s.fill_buf(),
            Input::File(f) => f.fill_buf(),
        }
    }
    fn consume(&mut self, n: usize) {
        match self {
            Input::Stdin(s) => s.consume(n),
            Input::File(f) => f.consume(n),
        }
    }
}

/// Open `path` (`-` is stdin) or describe why not.
fn open<'a>(stdin: &'a mut dyn BufRead, cx: &Cx<'_>, path: &str) -> Result<Input<'a>, String> {
    if path == "-" {
        return Ok(Input::Stdin(stdin));
    }
    match cx.fs.open_read(cx.cwd, path) {
        Ok(f) => {
            if f.metadata().map(|m| m.is_dir()).unwrap_or(false) {
                return Err("Is a directory".to_string());
            }
            Ok(Input::File(BufReader::with_capacity(64 * 1024, f)))
        }
        Err(e) => Err(e.to_string()),
    }
}

/// Read everything, failing past [`MAX_BUFFER`] bytes in all (`used` counts across calls).
fn read_capped(r: &mut dyn Read, used: &mut usize, out: &mut Vec<u8>) -> Result<(), String> {
    let room = (MAX_BUFFER - (*used).min(MAX_BUFFER)) as u64;
    let before = out.len();
    r.take(room + 1)
        .read_to_end(out)
        .map_err(|e| e.to_string())?;
    *used += out.len() - before;
    if *used > MAX_BUFFER {
        return Err("input exceeds the 256 MiB buffering limit".to_string());
    }
    Ok(())
}

/// Split into lines without their terminators (a last line without `\n` still counts).
fn split_lines(data: &[u8]) -> Vec<&[u8]> {
    let mut v: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
    if data.is_empty() || data.ends_with(b"\n") {
        v.pop();
    }
    v
}

fn operands_or_stdin(o: &Opts) -> Vec<String> {
    if o.operands.is_empty() {
        vec!["-".to_string()]
    } else {
        o.operands.clone()
    }
}

fn display_name(path: &str) -> &str {
    if path == "-" { "standard input" } else { path }
}

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

// ---------------------------------------------------------------------------------------------
// head

/// `head [-n N] [-c N] [-qv] [FILE...]`.
pub struct Head;

impl Builtin for Head {
    fn name(&self) -> &'static str {
        "head"
    }
    fn usage(&self) -> &'static str {
        "head [-n [-]N] [-c [-]N] [-qv] [FILE...]"
    }
    fn example(&self) -> Example {
        Example {
            args: &["-n", "1", "f.txt"],
            stdin: "",
            stdout: "b\n",
            status: 0,
        }
    }
    fn run(&self, args: &[String], io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
        let (o, bytes, count) = match head_tail_options("head", args, io, self.usage()) {
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

// ---------------------------------------------------------------------------------------------
// tail

/// `tail [-n [+]N] [-c [+]N] [-qv] [FILE...]`.
pub struct Tail;

impl Builtin for Tail {
    fn name(&self) -> &'static str {
        "tail"
    }
    fn usage(&self) -> &'static str {
        "tail [-n [+]N] [-c [+]N] [-qv] [FILE...]"
    }
    fn example(&self) -> Example {
        Example {
            args: &["-n", "1", "f.txt"],
            stdin: "",
            stdout: "c\n",
            status: 0,
        }
    }
    fn run(&self, args: &[String], io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
        let (o, bytes, count) = match head_tail_options("tail", args, io, self.usage()) {
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

// ---------------------------------------------------------------------------------------------
// wc

/// `wc [-lwcm] [FILE...]`.
pub struct Wc;

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

impl Builtin for Wc {
    fn name(&self) -> &'static str {
        "wc"
    }
    fn usage(&self) -> &'static str {
        "wc [-clmwL] [FILE...]"
    }
    fn example(&self) -> Example {
        Example {
            args: &["-l", "f.txt"],
            stdin: "",
            stdout: "3 f.txt\n",
            status: 0,
        }
    }
    fn run(&self, args: &[String], io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
        let longs = [
            ("lines", 'l'),
            ("words", 'w'),
            ("bytes", 'c'),
            ("chars", 'm'),
            ("max-line-length", 'L'),
        ];
        let o = match getopt(args, "lwcmL", &longs) {
            Ok(o) => o,
            Err(m) => return usage_error(io.stderr, "wc", &m, self.usage(), 1),
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
}

// ---------------------------------------------------------------------------------------------
// sort

/// `sort [-bfnrsu] [-k POS1[,POS2]] [-t SEP] [FILE...]`.
pub struct Sort;

#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct KeyOpts {
    blanks: bool,
    fold: bool,
    numeric: bool,
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

fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
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

fn key_cmp(a: &[u8], b: &[u8], o: &KeyOpts) -> Ordering {
    let r = if o.numeric {
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

impl Builtin for Sort {
    fn name(&self) -> &'static str {
        "sort"
    }
    fn usage(&self) -> &'static str {
        "sort [-bfnrsu] [-k POS1[,POS2]] [-t SEP] [FILE...]"
    }
    fn example(&self) -> Example {
        Example {
            args: &["f.txt"],
            stdin: "",
            stdout: "a\nb\nc\n",
            status: 0,
        }
    }
    fn run(&self, args: &[String], io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
        let longs = [
            ("ignore-leading-blanks", 'b'),
            ("ignore-case", 'f'),
            ("numeric-sort", 'n'),
            ("reverse", 'r'),
            ("stable", 's'),
            ("unique", 'u'),
            ("key", 'k'),
            ("field-separator", 't'),
        ];
        let o = match getopt(args, "bfnrsuk:t:", &longs) {
            Ok(o) => o,
            Err(m) => return usage_error(io.stderr, "sort", &m, self.usage(), 2),
        };
        let global = KeyOpts {
            blanks: o.has('b'),
            fold: o.has('f'),
            numeric: o.has('n'),
            reverse: o.has('r'),
        };
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
            if !data.is_empty() && !data.ends_with(b"\n") {
                data.push(b'\n');
            }
        }
        let mut lines = split_lines(&data);
        lines.sort_by(|a, b| spec.cmp(a, b));
        if unique {
            lines.dedup_by(|b, a| spec.cmp(a, b) == Ordering::Equal);
        }
        let mut out = BufWriter::new(&mut *io.stdout);
        let r = (|| -> std::io::Result<()> {
            for l in lines {
                out.write_all(l)?;
                out.write_all(b"\n")?;
            }
            out.flush()
        })();
        i32::from(r.is_err())
    }
}

// ---------------------------------------------------------------------------------------------
// uniq

/// `uniq [-cdui] [-f N] [-s N] [-w N] [INPUT]`.
pub struct Uniq;

impl Builtin for Uniq {
    fn name(&self) -> &'static str {
        "uniq"
    }
    fn usage(&self) -> &'static str {
        "uniq [-cdui] [-f N] [-s N] [-w N] [INPUT]"
    }
    fn example(&self) -> Example {
        Example {
            args: &["-c"],
            stdin: "a\na\nb\n",
            stdout: "      2 a\n      1 b\n",
            status: 0,
        }
    }
    fn run(&self, args: &[String], io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
        let longs = [
            ("count", 'c'),
            ("repeated", 'd'),
            ("unique", 'u'),
            ("ignore-case", 'i'),
            ("skip-fields", 'f'),
            ("skip-chars", 's'),
            ("check-chars", 'w'),
        ];
        let o = match getopt(args, "cduif:s:w:", &longs) {
            Ok(o) => o,
            Err(m) => return usage_error(io.stderr, "uniq", &m, self.usage(), 1),
        };
        let mut nums = [0usize, 0, usize::MAX];
        for (i, c) in ['f', 's', 'w'].into_iter().enumerate() {
            if let Some(a) = o.last(c) {
                match a.parse() {
                    Ok(n) => nums[i] = n,
                    Err(_) => {
                        let _ = writeln!(io.stderr, "uniq: {a}: invalid number");
                        return 1;
                    }
                }
            }
        }
        if o.operands.len() > 1 {
            let _ = writeln!(
                io.stderr,
                "uniq: writing to an OUTPUT file is not supported; use a redirect"
            );
            return 1;
        }
        let f = o.operands.first().map_or("-", String::as_str);
        let mut input = match open(&mut *io.stdin, cx, f) {
            Ok(r) => r,
            Err(e) => {
                warn(io.stderr, "uniq", f, e);
                return 1;
            }
        };
        let (count, dups, uniques, fold) = (o.has('c'), o.has('d'), o.has('u'), o.has('i'));
        let [skip_f, skip_c, check] = nums;
        let key = |l: &[u8]| -> Vec<u8> {
            let l = l.strip_suffix(b"\n").unwrap_or(l);
            let mut p = 0;
            for _ in 0..skip_f {
                while p < l.len() && is_blank(l[p]) {
                    p += 1;
                }
                while p < l.len() && !is_blank(l[p]) {
                    p += 1;
                }
            }
            p = (p + skip_c).min(l.len());
            let end = p.saturating_add(check).min(l.len());
            let k = &l[p..end];
            if fold {
                k.to_ascii_lowercase()
            } else {
                k.to_vec()
            }
        };
        let mut out = BufWriter::new(&mut *io.stdout);
        let emit = |out: &mut dyn Write, line: &[u8], n: u64| -> std::io::Result<()> {
            if (dups && n < 2) || (uniques && n > 1) {
                return Ok(());
            }
            if count {
                write!(out, "{n:>7} ")?;
            }
            out.write_all(line.strip_suffix(b"\n").unwrap_or(line))?;
            out.write_all(b"\n")
        };
        let mut cur: Option<(Vec<u8>, Vec<u8>, u64)> = None;
        let mut status = 0;
        let r = (|| -> std::io::Result<()> {
            loop {
                let mut line = Vec::new();
                match input.read_until(b'\n', &mut line) {
                    Ok(0) => break,
                    Ok(_) => {
                        let k = key(&line);
                        match &mut cur {
                            Some((_, ck, n)) if *ck == k => *n += 1,
                            _ => {
                                if let Some((l, _, n)) = cur.take() {
                                    emit(&mut out, &l, n)?;
                                }
                                cur = Some((line, k, 1));
                            }
                        }
                    }
                    Err(e) => {
                        warn(io.stderr, "uniq", f, e);
                        status = 1;
                        break;
                    }
                }
            }
            if let Some((l, _, n)) = cur.take() {
                emit(&mut out, &l, n)?;
            }
            out.flush()
        })();
        if r.is_err() {
            return 1;
        }
        status
    }
}

// ---------------------------------------------------------------------------------------------
// tac

/// `tac [FILE...]`.
pub struct Tac;

impl Builtin for Tac {
    fn name(&self) -> &'static str {
        "tac"
    }
    fn usage(&self) -> &'static str {
        "tac [FILE...]"
    }
    fn example(&self) -> Example {
        Example {
            args: &["f.txt"],
            stdin: "",
            stdout: "c\na\nb\n",
            status: 0,
        }
    }
    fn run(&self, args: &[String], io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
        let o = match getopt(args, "", &[]) {
            Ok(o) => o,
            Err(m) => return usage_error(io.stderr, "tac", &m, self.usage(), 1),
        };
        let mut status = 0;
        let mut used = 0;
        for f in operands_or_stdin(&o) {
            let mut input = match open(&mut *io.stdin, cx, &f) {
                Ok(r) => r,
                Err(e) => {
                    let _ = writeln!(io.stderr, "tac: failed to open '{f}' for reading: {e}");
                    status = 1;
                    continue;
                }
            };
            let mut data = Vec::new();
            if let Err(e) = read_capped(&mut input, &mut used, &mut data) {
                warn(io.stderr, "tac", &f, e);
                status = 1;
                continue;
            }
            drop(input);
            // Records end after each '\n'; a last one without it is printed as it is.
            let mut recs: Vec<&[u8]> = data.split_inclusive(|&b| b == b'\n').collect();
            recs.reverse();
            let mut out = BufWriter::new(&mut *io.stdout);
            let r = (|| -> std::io::Result<()> {
                for r in recs {
                    out.write_all(r)?;
                }
                out.flush()
            })();
            if r.is_err() {
                return 1;
            }
        }
        status
    }
}

// ---------------------------------------------------------------------------------------------
// cut

/// `cut -b LIST | -c LIST | -f LIST [-d DELIM] [-s] [--complement] [FILE...]`.
pub struct Cut;

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

impl Builtin for Cut {
    fn name(&self) -> &'static str {
        "cut"
    }
    fn usage(&self) -> &'static str {
        "cut -b LIST | -c LIST | -f LIST [-d DELIM] [-s] [--complement] [FILE...]"
    }
    fn example(&self) -> Example {
        Example {
            args: &["-d", ":", "-f", "2"],
            stdin: "a:b:c\n",
            stdout: "b\n",
            status: 0,
        }
    }
    fn run(&self, args: &[String], io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
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
            Err(m) => return usage_error(io.stderr, "cut", &m, self.usage(), 1),
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
}

// ---------------------------------------------------------------------------------------------
// tr

/// `tr [-cdst] SET1 [SET2]`.
pub struct Tr;

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

impl Builtin for Tr {
    fn name(&self) -> &'static str {
        "tr"
    }
    fn usage(&self) -> &'static str {
        "tr [-cdst] SET1 [SET2]"
    }
    fn example(&self) -> Example {
        Example {
            args: &["a-z", "A-Z"],
            stdin: "hi\n",
            stdout: "HI\n",
            status: 0,
        }
    }
    fn run(&self, args: &[String], io: &mut Io<'_>, _cx: &Cx<'_>) -> i32 {
        let longs = [
            ("complement", 'c'),
            ("delete", 'd'),
            ("squeeze-repeats", 's'),
            ("truncate-set1", 't'),
        ];
        let o = match getopt(args, "cCdst", &longs) {
            Ok(o) => o,
            Err(m) => return usage_error(io.stderr, "tr", &m, self.usage(), 1),
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
            return usage_error(io.stderr, "tr", &m, self.usage(), 1);
        }
        if ops.len() > max {
            let m = format!("extra operand '{}'", ops[max]);
            return usage_error(io.stderr, "tr", &m, self.usage(), 1);
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
}

// ---------------------------------------------------------------------------------------------
// basename, dirname

/// `basename NAME [SUFFIX]`, `basename -a [-s SUFFIX] NAME...`.
pub struct Basename;

fn basename_of(name: &str, suffix: &str) -> String {
    let trimmed = name.trim_end_matches('/');
    if trimmed.is_empty() {
        return if name.is_empty() {
            String::new()
        } else {
            "/".to_string()
        };
    }
    let base = trimmed.rsplit('/').next().unwrap_or(trimmed);
    match base.strip_suffix(suffix) {
        Some(b) if !suffix.is_empty() && !b.is_empty() => b.to_string(),
        _ => base.to_string(),
    }
}

impl Builtin for Basename {
    fn name(&self) -> &'static str {
        "basename"
    }
    fn usage(&self) -> &'static str {
        "basename NAME [SUFFIX] | basename -a [-s SUFFIX] NAME..."
    }
    fn example(&self) -> Example {
        Example {
            args: &["src/main.rs", ".rs"],
            stdin: "",
            stdout: "main\n",
            status: 0,
        }
    }
    fn run(&self, args: &[String], io: &mut Io<'_>, _cx: &Cx<'_>) -> i32 {
        let longs = [("multiple", 'a'), ("suffix", 's'), ("zero", 'z')];
        let o = match getopt(args, "as:z", &longs) {
            Ok(o) => o,
            Err(m) => return usage_error(io.stderr, "basename", &m, self.usage(), 1),
        };
        let ops = &o.operands;
        if ops.is_empty() {
            return usage_error(io.stderr, "basename", "missing operand", self.usage(), 1);
        }
        let end = if o.has('z') { "\0" } else { "\n" };
        let multiple = o.has('a') || o.has('s');
        let (names, suffix): (&[String], &str) = if multiple {
            (ops, o.last('s').unwrap_or(""))
        } else if ops.len() > 2 {
            let m = format!("extra operand '{}'", ops[2]);
            return usage_error(io.stderr, "basename", &m, self.usage(), 1);
        } else {
            (&ops[..1], ops.get(1).map_or("", String::as_str))
        };
        for n in names {
            if write!(io.stdout, "{}{end}", basename_of(n, suffix)).is_err() {
                return 1;
            }
        }
        0
    }
}

/// `dirname NAME...`.
pub struct Dirname;

fn dirname_of(name: &str) -> String {
    let t = name.trim_end_matches('/');
    if t.is_empty() {
        return if name.starts_with('/') {
            "/".into()
        } else {
            ".".into()
        };
    }
    match t.rfind('/') {
        None => ".".to_string(),
        Some(i) => {
            let d = t[..i].trim_end_matches('/');
            if d.is_empty() {
                "/".to_string()
            } else {
                d.to_string()
            }
        }
    }
}

impl Builtin for Dirname {
    fn name(&self) -> &'static str {
        "dirname"
    }
    fn usage(&self) -> &'static str {
        "dirname NAME..."
    }
    fn example(&self) -> Example {
        Example {
            args: &["src/main.rs"],
            stdin: "",
            stdout: "src\n",
            status: 0,
        }
    }
    fn run(&self, args: &[String], io: &mut Io<'_>, _cx: &Cx<'_>) -> i32 {
        let o = match getopt(args, "z", &[("zero", 'z')]) {
            Ok(o) => o,
            Err(m) => return usage_error(io.stderr, "dirname", &m, self.usage(), 1),
        };
        if o.operands.is_empty() {
            return usage_error(io.stderr, "dirname", "missing operand", self.usage(), 1);
        }
        let end = if o.has('z') { "\0" } else { "\n" };
        for n in &o.operands {
            if write!(io.stdout, "{}{end}", dirname_of(n)).is_err() {
                return 1;
            }
        }
        0
    }
}

// ---------------------------------------------------------------------------------------------
// seq

/// `seq [-w] [-s SEP] [FIRST [INCR]] LAST`.
pub struct Seq;

/// A decimal operand: value scaled by 10^prec, digits after the point, width as typed.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Dec {
    val: i128,
    prec: u32,
    width: usize,
}

fn parse_dec(s: &str) -> Option<Dec> {
    let t = s.trim_start_matches([' ', '\t']);
    let t = t.strip_prefix('+').unwrap_or(t);
    let (neg, body) = match t.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, t),
    };
    let (int, frac) = match body.split_once('.') {
        Some((a, b)) => (a, b),
        None => (body, ""),
    };
    if int.is_empty() && frac.is_empty()
        || !int.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
        || frac.len() > 30
    {
        return None;
    }
    let digits = format!("{int}{frac}");
    let mut val: i128 = if digits.is_empty() {
        0
    } else {
        digits.parse().ok()?
    };
    if neg {
        val = -val;
    }
    Some(Dec {
        val,
        prec: frac.len() as u32,
        width: t.len(),
    })
}

fn rescale(d: Dec, prec: u32) -> Option<i128> {
    d.val.checked_mul(10i128.checked_pow(prec - d.prec)?)
}

fn fmt_dec(v: i128, prec: u32, width: usize) -> String {
    let neg = v < 0;
    let a = v.unsigned_abs();
    let p = 10u128.pow(prec);
    let mut s = if prec == 0 {
        a.to_string()
    } else {
        format!("{}.{:0w$}", a / p, a % p, w = prec as usize)
    };
    let w = width.saturating_sub(usize::from(neg));
    if s.len() < w {
        s = format!("{}{s}", "0".repeat(w - s.len()));
    }
    if neg {
        s.insert(0, '-');
    }
    s
}

impl Builtin for Seq {
    fn name(&self) -> &'static str {
        "seq"
    }
    fn usage(&self) -> &'static str {
        "seq [-w] [-s SEP] [FIRST [INCR]] LAST"
    }
    fn example(&self) -> Example {
        Example {
            args: &["3"],
            stdin: "",
            stdout: "1\n2\n3\n",
            status: 0,
        }
    }
    fn run(&self, args: &[String], io: &mut Io<'_>, _cx: &Cx<'_>) -> i32 {
        // Negative numbers are operands, not options.
        let mut sep = "\n".to_string();
        let mut equal = false;
        let mut ops: Vec<&str> = Vec::new();
        let mut i = 0;
        while i < args.len() {
            let a = args[i].as_str();
            i += 1;
            if a == "--" {
                ops.extend(args[i..].iter().map(String::as_str));
                break;
            }
            let numeric = a.len() > 1
                && a.starts_with('-')
                && a[1..].starts_with(|c: char| c.is_ascii_digit() || c == '.');
            if a.len() > 1 && a.starts_with('-') && !numeric {
                if a == "--equal-width" {
                    equal = true;
                    continue;
                }
                if let Some(v) = a.strip_prefix("--separator=") {
                    sep = v.to_string();
                    continue;
                }
                let body = &a[1..];
                for (j, c) in body.char_indices() {
                    match c {
                        'w' => equal = true,
                        's' => {
                            let rest = &body[j + 1..];
                            if !rest.is_empty() {
                                sep = rest.to_string();
                            } else if i < args.len() {
                                sep = args[i].clone();
                                i += 1;
                            } else {
                                let m = "option requires an argument -- 's'";
                                return usage_error(io.stderr, "seq", m, self.usage(), 1);
                            }
                            break;
                        }
                        _ => {
                            let m = format!("invalid option -- '{c}'");
                            return usage_error(io.stderr, "seq", &m, self.usage(), 1);
                        }
                    }
                }
                continue;
            }
            ops.push(a);
        }
        if ops.is_empty() {
            return usage_error(io.stderr, "seq", "missing operand", self.usage(), 1);
        }
        if ops.len() > 3 {
            let m = format!("extra operand '{}'", ops[3]);
            return usage_error(io.stderr, "seq", &m, self.usage(), 1);
        }
        let mut nums = Vec::new();
        for s in &ops {
            match parse_dec(s) {
                Some(d) => nums.push(d),
                None => {
                    let m = format!("invalid floating point argument: '{s}'");
                    return usage_error(io.stderr, "seq", &m, self.usage(), 1);
                }
            }
        }
        let one = Dec {
            val: 1,
            prec: 0,
            width: 1,
        };
        let (first, step, last) = match nums.len() {
            1 => (one, one, nums[0]),
            2 => (nums[0], one, nums[1]),
            _ => (nums[0], nums[1], nums[2]),
        };
        if step.val == 0 {
            let m = format!("invalid Zero increment value: '{}'", ops[1]);
            return usage_error(io.stderr, "seq", &m, self.usage(), 1);
        }
        let prec = first.prec.max(step.prec);
        let width = if equal {
            let fw = first.width
                + (prec - first.prec) as usize
                + usize::from(first.prec == 0 && prec > 0);
            let mut lw = (last.width + prec as usize).saturating_sub(last.prec as usize);
            if last.prec > 0 && prec == 0 {
                lw = lw.saturating_sub(1);
            }
            if last.prec == 0 && prec > 0 {
                lw += 1;
            }
            fw.max(lw)
        } else {
            0
        };
        let big = prec.max(last.prec);
        let (Some(f), Some(s), Some(l), Some(p)) = (
            rescale(first, big),
            rescale(step, big),
            rescale(last, big),
            10i128.checked_pow(big - prec),
        ) else {
            let _ = writeln!(io.stderr, "seq: number out of range");
            return 1;
        };
        let mut out = BufWriter::new(&mut *io.stdout);
        let r = (|| -> std::io::Result<()> {
            let mut x = f;
            let mut n = 0u64;
            while (s > 0 && x <= l) || (s < 0 && x >= l) {
                if n > 0 {
                    out.write_all(sep.as_bytes())?;
                }
                out.write_all(fmt_dec(x / p, prec, width).as_bytes())?;
                n += 1;
                match x.checked_add(s) {
                    Some(v) => x = v,
                    None => break,
                }
            }
            if n > 0 {
                out.write_all(b"\n")?;
            }
            out.flush()
        })();
        i32::from(r.is_err())
    }
}

// ---------------------------------------------------------------------------------------------
// printf

/// `printf FORMAT [ARG...]`, as bash's built-in.
pub struct Printf;

/// Backslash escapes of a printf format (`\NNN` octal) or of `%b` (`\0NNN`); the bool is
/// true when `\c` asked to stop all output.
fn printf_escapes(s: &[u8], out: &mut Vec<u8>, is_b: bool) -> bool {
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        i += 1;
        if c != b'\\' || i >= s.len() {
            out.push(c);
            continue;
        }
        let e = s[i];
        i += 1;
        match e {
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            b'r' => out.push(b'\r'),
            b'a' => out.push(7),
            b'b' => out.push(8),
            b'f' => out.push(12),
            b'v' => out.push(11),
            b'e' | b'E' => out.push(27),
            b'\\' => out.push(b'\\'),
            b'"' if !is_b => out.push(b'"'),
            b'\'' if !is_b => out.push(b'\''),
            b'?' if !is_b => out.push(b'?'),
            b'c' if is_b => return true,
            b'0'..=b'7' => {
                let mut n = 0u32;
                let mut max = 3;
                if is_b && e == b'0' {
                    // \0NNN
                } else {
                    n = u32::from(e - b'0');
                    max = 2;
                }
                for _ in 0..max {
                    match s.get(i) {
                        Some(&d @ b'0'..=b'7') => {
                            n = n * 8 + u32::from(d - b'0');
                            i += 1;
                        }
                        _ => break,
                    }
                }
                out.push(n as u8);
            }
            b'x' => {
                let mut n = 0u32;
                let mut k = 0;
                while k < 2 {
                    match s.get(i).and_then(|d| (*d as char).to_digit(16)) {
                        Some(d) => {
                            n = n * 16 + d;
                            i += 1;
                            k += 1;
                        }
                        None => break,
                    }
                }
                if k == 0 {
                    out.extend_from_slice(b"\\x");
                } else {
                    out.push(n as u8);
                }
            }
            other => {
                out.push(b'\\');
                out.push(other);
            }
        }
    }
    false
}

#[derive(Default, Clone, Copy)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: usize,
    prec: Option<usize>,
}

fn pad(spec: &Spec, body: String, numeric: bool) -> String {
    if body.len() >= spec.width {
        return body;
    }
    let n = spec.width - body.len();
    if spec.left {
        format!("{body}{}", " ".repeat(n))
    } else if spec.zero && numeric {
        // Zeros go after the sign and any 0x prefix.
        let mut cut = 0;
        if body.starts_with(['-', '+', ' ']) {
            cut = 1;
        }
        if body[cut..].starts_with("0x") || body[cut..].starts_with("0X") {
            cut += 2;
        }
        format!("{}{}{}", &body[..cut], "0".repeat(n), &body[cut..])
    } else {
        format!("{}{body}", " ".repeat(n))
    }
}

/// C's `%e` from Rust's: exponent with a sign and at least two digits.
fn fmt_exp(v: f64, prec: usize, upper: bool) -> String {
    let s = crate::numfmt::sci(v, prec);
    let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    let sign = if e < 0 { '-' } else { '+' };
    let r = format!("{m}e{sign}{:02}", e.abs());
    if upper { r.to_uppercase() } else { r }
}

fn strip_zeros(s: &str) -> String {
    if !s.contains('.') {
        return s.to_string();
    }
    let (m, e) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, ""),
    };
    let m = m.trim_end_matches('0').trim_end_matches('.');
    format!("{m}{e}")
}

fn fmt_float(v: f64, conv: u8, spec: &Spec) -> String {
    let upper = conv.is_ascii_uppercase();
    let mut body = if !v.is_finite() {
        let s = if v.is_nan() { "nan" } else { "inf" };
        let s = if v.is_sign_negative() && !v.is_nan() {
            format!("-{s}")
        } else {
            s.to_string()
        };
        if upper { s.to_uppercase() } else { s }
    } else {
        let prec = spec.prec.unwrap_or(6);
        match conv.to_ascii_lowercase() {
            b'f' => {
                let s = crate::numfmt::fixed(v, prec);
                if spec.alt && prec == 0 {
                    format!("{s}.")
                } else {
                    s
                }
            }
            b'e' => fmt_exp(v, prec, upper),
            _ => {
                let p = if prec == 0 { 1 } else { prec };
                let x = if v == 0.0 {
                    0
                } else {
                    let e = fmt_exp(v, p - 1, false);
                    e.split_once('e')
                        .map_or(0, |(_, e)| e.parse::<i32>().unwrap_or(0))
                };
                let s = if x < -4 || x >= p as i32 {
                    fmt_exp(v, p - 1, upper)
                } else {
                    let fp = (p as i32 - 1 - x).max(0) as usize;
                    crate::numfmt::fixed(v, fp)
                };
                if spec.alt { s } else { strip_zeros(&s) }
            }
        }
    };
    if !body.starts_with('-') {
        if spec.plus {
            body.insert(0, '+');
        } else if spec.space {
            body.insert(0, ' ');
        }
    }
    pad(spec, body, v.is_finite())
}

/// A numeric argument as bash reads it; `Err` carries the value used after a complaint.
fn printf_int(arg: &str) -> Result<i128, i128> {
    let t = arg.trim_start();
    if let Some(rest) = t.strip_prefix(['\'', '"']) {
        return Ok(rest.chars().next().map_or(0, |c| i128::from(u32::from(c))));
    }
    let (neg, body) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let (radix, digits) =
        if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
            (16, h)
        } else if body.len() > 1 && body.starts_with('0') {
            (8, &body[1..])
        } else {
            (10, body)
        };
    let end = digits
        .find(|c: char| !c.is_digit(radix))
        .unwrap_or(digits.len());
    let v = i128::from_str_radix(&digits[..end], radix).unwrap_or(0);
    let v = if neg { -v } else { v };
    if t.is_empty() || end < digits.len() || (end == 0 && radix != 8) {
        Err(v)
    } else {
        Ok(v)
    }
}

fn printf_float(arg: &str) -> Result<f64, f64> {
    let t = arg.trim();
    if let Some(rest) = t.strip_prefix(['\'', '"']) {
        return Ok(rest.chars().next().map_or(0.0, |c| f64::from(u32::from(c))));
    }
    if let Ok(v) = t.parse::<f64>() {
        return Ok(v);
    }
    if let Ok(v) = printf_int(t) {
        return Ok(v as f64);
    }
    // The longest parsable prefix.
    let mut best = 0.0;
    for i in (1..t.len()).rev().filter(|&i| t.is_char_boundary(i)) {
        if let Ok(v) = t[..i].parse::<f64>() {
            best = v;
            break;
        }
    }
    Err(best)
}

impl Builtin for Printf {
    fn name(&self) -> &'static str {
        "printf"
    }
    fn usage(&self) -> &'static str {
        "printf format [arguments]"
    }
    fn example(&self) -> Example {
        Example {
            args: &["%s-%d\\n", "a", "5"],
            stdin: "",
            stdout: "a-5\n",
            status: 0,
        }
    }
    fn run(&self, args: &[String], io: &mut Io<'_>, _cx: &Cx<'_>) -> i32 {
        let mut args = args;
        if let Some(a) = args.first() {
            if a == "--" {
                args = &args[1..];
            } else if a.len() > 1 && a.starts_with('-') {
                let _ = writeln!(io.stderr, "printf: {}: invalid option", &a[..2]);
                let _ = writeln!(io.stderr, "printf: usage: {}", self.usage());
                return 2;
            }
        }
        let Some(format) = args.first() else {
            let _ = writeln!(io.stderr, "printf: usage: {}", self.usage());
            return 2;
        };
        let fmt = format.as_bytes();
        let rest = &args[1..];
        let mut next = 0usize;
        let mut status = 0;
        let mut out: Vec<u8> = Vec::new();
        'outer: loop {
            let start_next = next;
            let mut i = 0;
            let mut lit = Vec::new();
            while i < fmt.len() {
                let c = fmt[i];
                if c == b'\\' {
                    // Collect the escape with its following literal run.
                    let mut j = i + 1;
                    if j < fmt.len() {
                        j += 1;
                        while j < fmt.len()
                            && j < i + 4
                            && fmt[j].is_ascii_hexdigit()
                            && matches!(fmt[i + 1], b'0'..=b'7' | b'x')
                        {
                            j += 1;
                        }
                    }
                    lit.extend_from_slice(&fmt[i..j]);
                    i = j;
                    continue;
                }
                if c != b'%' {
                    lit.push(c);
                    i += 1;
                    continue;
                }
                printf_escapes(&lit, &mut out, false);
                lit.clear();
                i += 1;
                if fmt.get(i) == Some(&b'%') {
                    out.push(b'%');
                    i += 1;
                    continue;
                }
                let mut spec = Spec::default();
                while let Some(&f) = fmt.get(i) {
                    match f {
                        b'-' => spec.left = true,
                        b'+' => spec.plus = true,
                        b' ' => spec.space = true,
                        b'#' => spec.alt = true,
                        b'0' => spec.zero = true,
                        _ => break,
                    }
                    i += 1;
                }
                let take_arg = |next: &mut usize| -> Option<&String> {
                    let a = rest.get(*next);
                    if a.is_some() {
                        *next += 1;
                    }
                    a
                };
                if fmt.get(i) == Some(&b'*') {
                    i += 1;
                    let w = take_arg(&mut next).map_or(0, |a| printf_int(a).unwrap_or_else(|v| v));
                    if w < 0 {
                        spec.left = true;
                    }
                    spec.width = usize::try_from(w.unsigned_abs()).unwrap_or(0);
                } else {
                    while let Some(d) = fmt.get(i).filter(|d| d.is_ascii_digit()) {
                        spec.width = spec
                            .width
                            .saturating_mul(10)
                            .saturating_add(usize::from(d - b'0'));
                        i += 1;
                    }
                }
                if fmt.get(i) == Some(&b'.') {
                    i += 1;
                    let mut p = 0usize;
                    if fmt.get(i) == Some(&b'*') {
                        i += 1;
                        let v =
                            take_arg(&mut next).map_or(0, |a| printf_int(a).unwrap_or_else(|v| v));
                        p = usize::try_from(v).unwrap_or(0);
                    } else {
                        while let Some(d) = fmt.get(i).filter(|d| d.is_ascii_digit()) {
                            p = p.saturating_mul(10).saturating_add(usize::from(d - b'0'));
                            i += 1;
                        }
                    }
                    spec.prec = Some(p);
                }
                // A width or precision is an allocation of that size: bounded.
                let limits = crate::numfmt::check_field(spec.width, "field width").and_then(|_| {
                    spec.prec
                        .map_or(Ok(0), |p| crate::numfmt::check_field(p, "precision"))
                });
                if let Err(e) = limits {
                    let _ = writeln!(io.stderr, "printf: {e}");
                    status = 1;
                    break 'outer;
                }
                while matches!(
                    fmt.get(i),
                    Some(b'l' | b'h' | b'L' | b'q' | b'j' | b'z' | b't')
                ) {
                    i += 1;
                }
                let Some(&conv) = fmt.get(i) else {
                    let _ = writeln!(io.stderr, "printf: `%': missing format character");
                    status = 1;
                    break 'outer;
                };
                i += 1;
                let arg = take_arg(&mut next);
                match conv {
                    b's' | b'b' => {
                        let a = arg.map_or("", String::as_str);
                        let mut bytes = Vec::new();
                        let stop = if conv == b'b' {
                            printf_escapes(a.as_bytes(), &mut bytes, true)
                        } else {
                            bytes.extend_from_slice(a.as_bytes());
                            false
                        };
                        if let Some(p) = spec.prec {
                            bytes.truncate(p);
                        }
                        let n = spec.width.saturating_sub(bytes.len());
                        if !spec.left {
                            out.extend(std::iter::repeat_n(b' ', n));
                        }
                        out.extend_from_slice(&bytes);
                        if spec.left {
                            out.extend(std::iter::repeat_n(b' ', n));
                        }
                        if stop {
                            break 'outer;
                        }
                    }
                    b'c' => {
                        let a = arg.map_or("", String::as_str);
                        let ch = a.as_bytes().first().map(|b| vec![*b]).unwrap_or_default();
                        let n = spec.width.saturating_sub(ch.len());
                        if !spec.left {
                            out.extend(std::iter::repeat_n(b' ', n));
                        }
                        out.extend_from_slice(&ch);
                        if spec.left {
                            out.extend(std::iter::repeat_n(b' ', n));
                        }
                    }
                    b'd' | b'i' | b'u' | b'x' | b'X' | b'o' => {
                        let v = match arg.map(|a| (a, printf_int(a))) {
                            None => 0,
                            Some((_, Ok(v))) => v,
                            Some((a, Err(v))) => {
                                let _ = writeln!(io.stderr, "printf: {a}: invalid number");
                                status = 1;
                                v
                            }
                        };
                        let v = v.clamp(i128::from(i64::MIN), i128::from(u64::MAX));
                        let signed = matches!(conv, b'd' | b'i');
                        let (neg, mag): (bool, u128) = if signed {
                            let v = v.clamp(i128::from(i64::MIN), i128::from(i64::MAX));
                            (v < 0, v.unsigned_abs())
                        } else if v < 0 {
                            (false, u128::from((v as i64) as u64))
                        } else {
                            (false, v as u128)
                        };
                        let mut digits = match conv {
                            b'x' => format!("{mag:x}"),
                            b'X' => format!("{mag:X}"),
                            b'o' => format!("{mag:o}"),
                            _ => mag.to_string(),
                        };
                        if let Some(p) = spec.prec {
                            if p == 0 && mag == 0 {
                                digits.clear();
                            }
                            if digits.len() < p {
                                digits = format!("{}{digits}", "0".repeat(p - digits.len()));
                            }
                        }
                        if spec.alt {
                            match conv {
                                b'o' if !digits.starts_with('0') => digits.insert(0, '0'),
                                b'x' if mag != 0 => digits.insert_str(0, "0x"),
                                b'X' if mag != 0 => digits.insert_str(0, "0X"),
                                _ => {}
                            }
                        }
                        if neg {
                            digits.insert(0, '-');
                        } else if signed && spec.plus {
                            digits.insert(0, '+');
                        } else if signed && spec.space {
                            digits.insert(0, ' ');
                        }
                        let mut s2 = spec;
                        if spec.prec.is_some() {
                            s2.zero = false;
                        }
                        out.extend_from_slice(pad(&s2, digits, true).as_bytes());
                    }
                    b'f' | b'F' | b'e' | b'E' | b'g' | b'G' => {
                        let v = match arg.map(|a| (a, printf_float(a))) {
                            None => 0.0,
                            Some((_, Ok(v))) => v,
                            Some((a, Err(v))) => {
                                let _ = writeln!(io.stderr, "printf: {a}: invalid number");
                                status = 1;
                                v
                            }
                        };
                        out.extend_from_slice(fmt_float(v, conv, &spec).as_bytes());
                    }
                    other => {
                        let _ = writeln!(
                            io.stderr,
                            "printf: `{}': invalid format character",
                            other as char
                        );
                        status = 1;
                        break 'outer;
                    }
                }
            }
            printf_escapes(&lit, &mut out, false);
            if next >= rest.len() || next == start_next {
                break;
            }
        }
        if io.stdout.write_all(&out).is_err() {
            return 1;
        }
        status
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn getopt_bundles_permutes_and_ends() {
        let o = getopt(
            &s(&["-rn", "f", "-k2,3", "-t", ",", "--", "-x"]),
            "rnk:t:",
            &[],
        )
        .unwrap();
        assert_eq!(
            o.flags,
            vec![
                ('r', String::new()),
                ('n', String::new()),
                ('k', "2,3".into()),
                ('t', ",".into())
            ]
        );
        assert_eq!(o.operands, s(&["f", "-x"]));
        assert_eq!(
            getopt(&s(&["-z"]), "a", &[]).unwrap_err(),
            "invalid option -- 'z'"
        );
        assert_eq!(
            getopt(&s(&["-n"]), "n:", &[]).unwrap_err(),
            "option requires an argument -- 'n'"
        );
        let o = getopt(&s(&["--lines=3", "-"]), "n:", &[("lines", 'n')]).unwrap();
        assert_eq!(o.last('n'), Some("3"));
        assert_eq!(o.operands, s(&["-"]));
        assert!(getopt(&s(&["--nope"]), "n:", &[]).is_err());
    }

    #[test]
    fn counts_and_obsolete_forms() {
        assert_eq!(parse_count("+3"), Some((3, Some('+'))));
        assert_eq!(parse_count("-3"), Some((3, Some('-'))));
        assert_eq!(parse_count("2k"), Some((2048, None)));
        assert_eq!(parse_count("x"), None);
        assert_eq!(obsolete_count(&s(&["-3", "f"])), s(&["-n", "3", "f"]));
    }

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

    #[test]
    fn cut_lists_and_tr_sets() {
        assert_eq!(
            parse_list("1,3-4,5-").unwrap(),
            vec![(1, 1), (3, 4), (5, usize::MAX)]
        );
        assert_eq!(parse_list("-2").unwrap(), vec![(1, 2)]);
        assert!(parse_list("0").is_err());
        assert!(parse_list("3-1").is_err());
        assert_eq!(expand_set("a-c\\n", false, 0).unwrap(), b"abc\n");
        assert_eq!(expand_set("[:digit:]", false, 0).unwrap(), b"0123456789");
        assert_eq!(expand_set("x[y*]z", true, 5).unwrap(), b"xyyyz");
        assert!(expand_set("z-a", false, 0).is_err());
    }

    #[test]
    fn names_numbers_and_formats() {
        assert_eq!(basename_of("/a/b.rs/", ".rs"), "b");
        assert_eq!(basename_of("///", ""), "/");
        assert_eq!(basename_of(".rs", ".rs"), ".rs");
        assert_eq!(dirname_of("a/b//c//"), "a/b");
        assert_eq!(dirname_of("c"), ".");
        assert_eq!(dirname_of("/c"), "/");
        assert_eq!(
            parse_dec("-1.50").unwrap(),
            Dec {
                val: -150,
                prec: 2,
                width: 5
            }
        );
        assert_eq!(fmt_dec(-5, 1, 5), "-00.5");
        assert_eq!(fmt_exp(31415.9, 2, false), "3.14e+04");
        assert_eq!(fmt_float(0.0001, b'g', &Spec::default()), "0.0001");
        assert_eq!(fmt_float(1e-5, b'g', &Spec::default()), "1e-05");
        assert_eq!(
            fmt_float(123456789.0, b'g', &Spec::default()),
            "1.23457e+08"
        );
        assert_eq!(printf_int("0x1f"), Ok(31));
        assert_eq!(printf_int("'A"), Ok(65));
        assert_eq!(printf_int("12abc"), Err(12));
    }
}
