//! `xargs`: runs a built-in, never a process.

use crate::command::{Builtin, Cx, Example, Io, Risk, read_all};
use crate::opts::parse_opts;

use super::usage_error;

/// Split xargs input on blanks and newlines, honouring quotes and backslashes.
fn xargs_words(s: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut have = false;
    let mut it = s.chars();
    while let Some(c) = it.next() {
        match c {
            ' ' | '\t' | '\n' => {
                if have {
                    out.push(std::mem::take(&mut cur));
                    have = false;
                }
            }
            '\'' | '"' => {
                have = true;
                loop {
                    match it.next() {
                        Some(q) if q == c => break,
                        Some('\n') | None => return Err(format!("unmatched {c} quote")),
                        Some(x) => cur.push(x),
                    }
                }
            }
            '\\' => {
                have = true;
                if let Some(x) = it.next() {
                    cur.push(x);
                }
            }
            _ => {
                have = true;
                cur.push(c);
            }
        }
    }
    if have {
        out.push(cur);
    }
    Ok(out)
}

/// Where xargs' own options end and the command it runs begins.
fn command_start(args: &[String]) -> usize {
    let mut i = 0;
    while i < args.len() && args[i].starts_with('-') && args[i].len() > 1 {
        if args[i] == "--" {
            return i + 1;
        }
        i += 1;
        // A valued option takes the next argument when not attached.
        let a = &args[i - 1];
        let last = a.chars().last().unwrap_or('-');
        if a.len() == 2 && matches!(last, 'n' | 'I' | 'd' | 'L' | 'E' | 's') && i < args.len() {
            i += 1;
        }
    }
    i
}

/// `xargs [-0rt] [-n N] [-s SIZE] [-E EOF] [-I R] [COMMAND [ARG...]]`: run a built-in
/// (default `echo`) with arguments read from stdin; never starts a process.
pub static XARGS: Builtin = Builtin::new(
    "xargs",
    "xargs [-0rt] [-n N] [-s SIZE] [-E EOF] [-I R] [COMMAND [ARG...]]",
    &xargs,
)
.example(Example::new(&["echo"], "a b\n").stdin("a b\n"))
.max_risk(Risk::OVERWRITE)
.risk(&xargs_risk);

/// `xargs rm` is as risky as `rm`: judged by the command it runs, whatever the input.
fn xargs_risk(args: &[String]) -> Risk {
    args.get(command_start(args))
        .and_then(|name| crate::builtins::lookup(name))
        .map_or(Risk::READ, |b| b.max_risk)
}

fn xargs(args: &[String], io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
    // Options end at the first operand: the rest is the command.
    let i = command_start(args);
    let o = match parse_opts(&args[..i], "0rtx", "nIdLEs") {
        Ok(o) => o,
        Err(m) => return usage_error(io, &XARGS, &m),
    };
    let cmd: Vec<String> = if i < args.len() {
        args[i..].to_vec()
    } else {
        vec!["echo".to_string()]
    };
    let Some(builtin) = crate::builtins::lookup(&cmd[0]) else {
        let _ = writeln!(
            io.stderr,
            "xargs: {}: command not found (xargs runs built-ins only)",
            cmd[0]
        );
        return 127;
    };
    let per = match o.last('n').or(o.last('L')).map(str::parse::<usize>) {
        None => usize::MAX,
        Some(Ok(n)) if n > 0 => n,
        Some(_) => return usage_error(io, &XARGS, "invalid number for -n"),
    };
    let input = match read_all(io.stdin) {
        Ok(s) => s,
        Err(e) => {
            let _ = writeln!(io.stderr, "xargs: read error: {e}");
            return 1;
        }
    };
    // -s: the most bytes of one command line (each word and its terminating NUL).
    let size = match o.last('s').map(str::parse::<usize>) {
        None => usize::MAX,
        Some(Ok(n)) if n > 0 => n,
        Some(_) => return usage_error(io, &XARGS, "invalid number for -s"),
    };
    let replace = o.last('I').map(str::to_string);
    let items: Vec<String> = if o.has('0') || o.last('d').is_some() {
        let sep = if o.has('0') {
            '\0'
        } else {
            o.last('d').and_then(|d| d.chars().next()).unwrap_or('\n')
        };
        let mut v: Vec<String> = input.split(sep).map(str::to_string).collect();
        if v.last().is_some_and(String::is_empty) {
            v.pop();
        }
        v
    } else if replace.is_some() {
        input
            .lines()
            .map(|l| l.trim_start().to_string())
            .filter(|l| !l.is_empty())
            .collect()
    } else {
        match xargs_words(&input) {
            // -E: a word equal to it ends the input.
            Ok(mut w) => {
                if let Some(eof) = o.last('E').filter(|e| !e.is_empty())
                    && let Some(end) = w.iter().position(|x| x == eof)
                {
                    w.truncate(end);
                }
                w
            }
            Err(m) => {
                let _ = writeln!(io.stderr, "xargs: {m}");
                return 1;
            }
        }
    };
    let fixed: usize = cmd.iter().map(|a| a.len() + 1).sum();
    if fixed > size {
        let _ = writeln!(io.stderr, "xargs: argument list too long (-s {size})");
        return 1;
    }
    let mut calls: Vec<Vec<String>> = Vec::new();
    if let Some(r) = &replace {
        for item in &items {
            calls.push(cmd[1..].iter().map(|a| a.replace(r, item)).collect());
        }
    } else if items.is_empty() {
        if !o.has('r') {
            calls.push(cmd[1..].to_vec());
        }
    } else {
        let mut a = cmd[1..].to_vec();
        let mut len = fixed;
        let mut n = 0;
        for item in items {
            let need = item.len() + 1;
            if n > 0 && (n == per || len + need > size) {
                calls.push(std::mem::replace(&mut a, cmd[1..].to_vec()));
                len = fixed;
                n = 0;
            }
            if len + need > size {
                let _ = writeln!(io.stderr, "xargs: argument line too long");
                return 1;
            }
            len += need;
            n += 1;
            a.push(item);
        }
        if n > 0 {
            calls.push(a);
        }
    }
    let mut status = 0;
    for a in calls {
        if o.has('t') {
            // -t: the command line, on stderr, before it runs.
            let _ = writeln!(io.stderr, "{} {}", cmd[0], a.join(" "));
        }
        let mut empty = std::io::empty();
        let mut sub = Io {
            stdin: &mut empty,
            stdout: &mut *io.stdout,
            stderr: &mut *io.stderr,
        };
        let s = (builtin.run)(&a, &mut sub, cx);
        if s == 255 {
            let _ = writeln!(io.stderr, "xargs: {}: exited with status 255", cmd[0]);
            return 124;
        }
        if s != 0 {
            status = 123;
        }
    }
    status
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn xargs_splitting() {
        assert_eq!(
            xargs_words("a 'b c' \"d\"\\ e\n f").unwrap(),
            vec!["a", "b c", "d e", "f"]
        );
    }
}
