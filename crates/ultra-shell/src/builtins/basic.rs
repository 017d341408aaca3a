//! The simplest built-ins: `cat` (with GNU's numbering and `-v` display), `echo`, `env`,
//! `true`, `false`, `pwd`.

use std::io::Read;

use crate::command::{Builtin, Cx, Example, Io};

/// Report a per-file error the way coreutils does: `cmd: path: message`.
pub(crate) fn complain(io: &mut Io<'_>, cmd: &str, path: &str, err: impl std::fmt::Display) {
    let _ = writeln!(io.stderr, "{cmd}: {path}: {err}");
}

/// Copy a file or stdin (`-`) to stdout; false when the output is gone.
fn copy_in(io: &mut Io<'_>, cx: &Cx<'_>, cmd: &str, path: &str, status: &mut i32) -> bool {
    if path == "-" {
        return std::io::copy(io.stdin, io.stdout).is_ok();
    }
    match cx.fs.open_read(cx.cwd, path) {
        Ok(mut f) => {
            let mut buf = vec![0u8; 64 * 1024];
            loop {
                match f.read(&mut buf) {
                    Ok(0) => return true,
                    Ok(n) => {
                        if io.stdout.write_all(&buf[..n]).is_err() {
                            return false;
                        }
                    }
                    Err(e) => {
                        complain(io, cmd, path, e);
                        *status = 1;
                        return true;
                    }
                }
            }
        }
        Err(e) => {
            complain(io, cmd, path, e);
            *status = 1;
            true
        }
    }
}

/// `cat [-AbeEnstTv] [FILE...]`.
pub static CAT: Builtin = Builtin::new("cat", "cat [-AbeEnstTv] [FILE...]", &cat)
    .example(Example::new(&["f.txt"], "b\na\nc\n"))
    .example(Example::new(
        &["-n", "f.txt"],
        "     1\tb\n     2\ta\n     3\tc\n",
    ));

/// What `cat`'s flags ask of each line.
#[derive(Default)]
struct CatShow {
    number: bool,
    number_nonblank: bool,
    squeeze: bool,
    nonprinting: bool,
    ends: bool,
    tabs: bool,
}

impl CatShow {
    fn plain(&self) -> bool {
        !(self.number
            || self.number_nonblank
            || self.squeeze
            || self.nonprinting
            || self.ends
            || self.tabs)
    }
}

fn cat(args: &[String], io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
    const LONGS: &[(&str, char)] = &[
        ("show-all", 'A'),
        ("number-nonblank", 'b'),
        ("show-ends", 'E'),
        ("number", 'n'),
        ("squeeze-blank", 's'),
        ("show-tabs", 'T'),
        ("show-nonprinting", 'v'),
    ];
    let o = match crate::opts::getopt(args, "AbeEnstTuv", LONGS) {
        Ok(o) => o,
        Err(e) => {
            let _ = writeln!(io.stderr, "cat: {e}");
            let _ = writeln!(io.stderr, "Usage: cat [-AbeEnstTv] [FILE...]");
            return 1;
        }
    };
    let mut show = CatShow::default();
    for (c, _) in &o.flags {
        match c {
            'A' => (show.nonprinting, show.ends, show.tabs) = (true, true, true),
            'b' => show.number_nonblank = true,
            'e' => (show.nonprinting, show.ends) = (true, true),
            'E' => show.ends = true,
            'n' => show.number = true,
            's' => show.squeeze = true,
            't' => (show.nonprinting, show.tabs) = (true, true),
            'T' => show.tabs = true,
            'v' => show.nonprinting = true,
            _ => {}
        }
    }
    let mut status = 0;
    let files: Vec<&str> = if o.operands.is_empty() {
        vec!["-"]
    } else {
        o.operands.iter().map(String::as_str).collect()
    };
    if show.plain() {
        for f in files {
            if !copy_in(io, cx, "cat", f, &mut status) {
                break;
            }
        }
        return status;
    }
    // Numbering and squeezing carry across files, as in GNU cat.
    let mut state = CatState::default();
    for f in files {
        let ok = if f == "-" {
            cat_lines(&mut *io.stdin, io.stdout, &show, &mut state)
        } else {
            match cx.fs.open_read(cx.cwd, f) {
                Ok(file) => {
                    let mut r = std::io::BufReader::with_capacity(64 * 1024, file);
                    cat_lines(&mut r, io.stdout, &show, &mut state)
                }
                Err(e) => {
                    complain(io, "cat", f, e);
                    status = 1;
                    continue;
                }
            }
        };
        if let Err(e) = ok {
            if e.kind() == std::io::ErrorKind::BrokenPipe || state.out_failed {
                break;
            }
            complain(io, "cat", f, e);
            status = 1;
        }
    }
    status
}

#[derive(Default)]
struct CatState {
    line: u64,
    /// The last line written was blank (for -s).
    blank: bool,
    /// The last file ended without a newline: the next line continues it.
    partial: bool,
    out_failed: bool,
}

fn cat_lines(
    r: &mut dyn std::io::BufRead,
    out: &mut dyn std::io::Write,
    show: &CatShow,
    st: &mut CatState,
) -> std::io::Result<()> {
    let mut line = Vec::new();
    let mut buf = Vec::new();
    loop {
        line.clear();
        if r.read_until(b'\n', &mut line)? == 0 {
            return Ok(());
        }
        let ended = line.last() == Some(&b'\n');
        let body = if ended {
            &line[..line.len() - 1]
        } else {
            &line[..]
        };
        let blank = body.is_empty() && !st.partial;
        if show.squeeze && blank && st.blank {
            continue;
        }
        buf.clear();
        if !st.partial && (show.number_nonblank && !blank || show.number && !show.number_nonblank) {
            st.line += 1;
            buf.extend_from_slice(format!("{:>6}\t", st.line).as_bytes());
        }
        for &b in body {
            visible(b, show, &mut buf);
        }
        if ended {
            if show.ends {
                buf.push(b'$');
            }
            buf.push(b'\n');
        }
        st.blank = blank;
        st.partial = !ended;
        if let Err(e) = out.write_all(&buf) {
            st.out_failed = true;
            return Err(e);
        }
    }
}

/// One byte as `cat -v`/`-T` shows it.
fn visible(b: u8, show: &CatShow, out: &mut Vec<u8>) {
    if b == b'\t' {
        if show.tabs {
            out.extend_from_slice(b"^I");
        } else {
            out.push(b);
        }
        return;
    }
    if !show.nonprinting {
        out.push(b);
        return;
    }
    let mut c = b;
    if c >= 128 {
        out.extend_from_slice(b"M-");
        c -= 128;
    }
    match c {
        0..=31 => {
            out.push(b'^');
            out.push(c + 64);
        }
        127 => out.extend_from_slice(b"^?"),
        _ => out.push(c),
    }
}

/// `echo [-n] [-e] [ARG...]`.
pub static ECHO: Builtin = Builtin::new("echo", "echo [-n] [-e] [ARG...]", &echo)
    .example(Example::new(&["hello"], "hello\n"));

fn echo(args: &[String], io: &mut Io<'_>, _cx: &Cx<'_>) -> i32 {
    let mut newline = true;
    let mut escapes = false;
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        if a.len() > 1 && a.starts_with('-') && a[1..].chars().all(|c| matches!(c, 'n' | 'e' | 'E'))
        {
            for c in a[1..].chars() {
                match c {
                    'n' => newline = false,
                    'e' => escapes = true,
                    _ => escapes = false,
                }
            }
            i += 1;
        } else {
            break;
        }
    }
    let mut out = args[i..].join(" ");
    if escapes {
        match unescape(&out) {
            (s, true) => {
                let _ = io.stdout.write_all(s.as_bytes());
                return 0;
            }
            (s, false) => out = s,
        }
    }
    if newline {
        out.push('\n');
    }
    if io.stdout.write_all(out.as_bytes()).is_err() {
        return 1;
    }
    0
}

/// Interpret `echo -e` escapes; the bool is true when `\c` ended the output.
fn unescape(s: &str) -> (String, bool) {
    let mut out = String::new();
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('\\') => out.push('\\'),
            Some('a') => out.push('\x07'),
            Some('b') => out.push('\x08'),
            Some('e') => out.push('\x1b'),
            Some('f') => out.push('\x0c'),
            Some('v') => out.push('\x0b'),
            Some('c') => return (out, true),
            Some('0') => {
                let mut n = 0u32;
                for _ in 0..3 {
                    match it.peek().and_then(|d| d.to_digit(8)) {
                        Some(d) => {
                            n = n * 8 + d;
                            it.next();
                        }
                        None => break,
                    }
                }
                out.push(char::from_u32(n).unwrap_or('\0'));
            }
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    (out, false)
}

/// `env`: print the session's variables.
pub static ENV: Builtin =
    Builtin::new("env", "env", &env).example(Example::new(&[], "HOME=/\nPWD=/\nUSER=ultra\n"));

fn env(args: &[String], io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
    if !args.is_empty() {
        let _ = writeln!(
            io.stderr,
            "env: running commands is not supported; usage: {}",
            ENV.usage
        );
        return 2;
    }
    for (k, v) in cx.vars {
        if writeln!(io.stdout, "{k}={v}").is_err() {
            return 1;
        }
    }
    0
}

/// `true`.
pub static TRUE: Builtin = Builtin::new("true", "true", &succeed).example(Example::new(&[], ""));

fn succeed(_: &[String], _: &mut Io<'_>, _: &Cx<'_>) -> i32 {
    0
}

/// `false`.
pub static FALSE: Builtin =
    Builtin::new("false", "false", &fail).example(Example::new(&[], "").status(1));

fn fail(_: &[String], _: &mut Io<'_>, _: &Cx<'_>) -> i32 {
    1
}

/// `pwd`: the working directory, as a path from the workspace root (`/` is the root).
pub static PWD: Builtin = Builtin::new("pwd", "pwd", &pwd).example(Example::new(&[], "/\n"));

fn pwd(_: &[String], io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
    let _ = writeln!(io.stdout, "/{}", cx.cwd.as_str());
    0
}
