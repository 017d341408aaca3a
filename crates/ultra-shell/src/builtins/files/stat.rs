//! `stat`.

use ultra_workspace::root::{Kind, Meta};

use crate::command::{Builtin, Cx, Example, Io};
use crate::opts::parse_opts;

use super::{mode_string, usage_error};

fn type_name(m: &Meta, gnu_empty: bool) -> &'static str {
    match m.kind {
        Kind::File if gnu_empty && m.len == 0 => "regular empty file",
        Kind::File => "regular file",
        Kind::Dir => "directory",
        Kind::Symlink => "symbolic link",
        Kind::Other => "other",
    }
}

/// `stat [-c FORMAT] PATH...`: by default `  File: NAME`, `  Size: N`, `  Type: KIND`;
/// `-c` knows `%n %s %F %a %A %%`.
pub static STAT: Builtin =
    Builtin::new("stat", "stat [-L] [-c FORMAT] PATH...", &stat).example(Example::new(
        &["f.txt"],
        "  File: f.txt\n  Size: 6\n  Type: regular file\n",
    ));

fn stat(args: &[String], io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
    let o = match parse_opts(args, "L", "c") {
        Ok(o) => o,
        Err(m) => return usage_error(io, &STAT, &m),
    };
    if o.operands.is_empty() {
        return usage_error(io, &STAT, "missing operand");
    }
    let mut status = 0;
    for p in &o.operands {
        let meta = if o.has('L') {
            cx.fs.stat(cx.cwd, p)
        } else {
            cx.fs.lstat(cx.cwd, p)
        };
        let m = match meta {
            Ok(m) => m,
            Err(e) => {
                let _ = writeln!(io.stderr, "stat: cannot stat '{p}': {e}");
                status = 1;
                continue;
            }
        };
        let text = match o.last('c') {
            Some(fmt) => {
                let mut s = String::new();
                let mut it = fmt.chars();
                while let Some(c) = it.next() {
                    if c != '%' {
                        s.push(c);
                        continue;
                    }
                    match it.next() {
                        Some('n') => s.push_str(p),
                        Some('s') => s.push_str(&m.len.to_string()),
                        Some('F') => s.push_str(type_name(&m, true)),
                        Some('a') => s.push_str(&format!("{:o}", m.mode & 0o7777)),
                        Some('A') => s.push_str(&mode_string(&m)),
                        Some('%') => s.push('%'),
                        Some(x) => {
                            s.push('%');
                            s.push(x);
                        }
                        None => s.push('%'),
                    }
                }
                s.push('\n');
                s
            }
            None => format!(
                "  File: {p}\n  Size: {}\n  Type: {}\n",
                m.len,
                type_name(&m, false)
            ),
        };
        if io.stdout.write_all(text.as_bytes()).is_err() {
            return 1;
        }
    }
    status
}
