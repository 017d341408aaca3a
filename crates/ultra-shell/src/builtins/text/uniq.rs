//! `uniq`.

use std::io::{BufRead, BufWriter, Write};

use crate::command::{Builtin, Cx, Example, Io, Risk};
use crate::opts::getopt;

use super::{is_blank, open, usage_error, warn};

/// `uniq [-cdui] [-f N] [-s N] [-w N] [INPUT [OUTPUT]]`.
pub static UNIQ: Builtin = Builtin::new(
    "uniq",
    "uniq [-cdui] [-f N] [-s N] [-w N] [INPUT [OUTPUT]]",
    &uniq,
)
.example(Example::new(&["-c"], "      2 a\n      1 b\n").stdin("a\na\nb\n"))
.max_risk(Risk::OVERWRITE)
.risk(&uniq_risk);

/// An OUTPUT operand replaces that file.
fn uniq_risk(args: &[String]) -> Risk {
    match crate::opts::getopt(args, "cduif:s:w:", &[]) {
        Ok(o) if o.operands.len() < 2 => Risk::READ,
        _ => Risk::OVERWRITE,
    }
}

fn uniq(args: &[String], io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
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
        Err(m) => return usage_error(io.stderr, "uniq", &m, UNIQ.usage, 1),
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
    if let Some(extra) = o.operands.get(2) {
        return usage_error(
            io.stderr,
            "uniq",
            &format!("extra operand '{extra}'"),
            UNIQ.usage,
            1,
        );
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
    // OUTPUT replaces its file (atomically, when everything is written).
    let mut staged = match o.operands.get(1) {
        Some(p) => match cx.fs.create(cx.cwd, p) {
            Ok(f) => Some((p.clone(), f)),
            Err(e) => {
                warn(io.stderr, "uniq", p, e);
                return 1;
            }
        },
        None => None,
    };
    let target: &mut dyn Write = match staged.as_mut() {
        Some((_, f)) => f,
        None => &mut *io.stdout,
    };
    let mut out = BufWriter::new(target);
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
    drop(out);
    if r.is_err() {
        return 1;
    }
    if let Some((p, f)) = staged
        && let Err(e) = f.commit()
    {
        warn(io.stderr, "uniq", &p, e);
        return 1;
    }
    status
}
