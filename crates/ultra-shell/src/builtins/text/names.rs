//! `basename` and `dirname`.

use crate::command::{Builtin, Cx, Example, Io};
use crate::opts::getopt;

use super::usage_error;

/// `basename NAME [SUFFIX]`, `basename -a [-s SUFFIX] NAME...`.
pub static BASENAME: Builtin = Builtin::new(
    "basename",
    "basename NAME [SUFFIX] | basename -a [-s SUFFIX] NAME...",
    &basename,
)
.example(Example::new(&["src/main.rs", ".rs"], "main\n"));

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

fn basename(args: &[String], io: &mut Io<'_>, _cx: &Cx<'_>) -> i32 {
    let longs = [("multiple", 'a'), ("suffix", 's'), ("zero", 'z')];
    let o = match getopt(args, "as:z", &longs) {
        Ok(o) => o,
        Err(m) => return usage_error(io.stderr, "basename", &m, BASENAME.usage, 1),
    };
    let ops = &o.operands;
    if ops.is_empty() {
        return usage_error(io.stderr, "basename", "missing operand", BASENAME.usage, 1);
    }
    let end = if o.has('z') { "\0" } else { "\n" };
    let multiple = o.has('a') || o.has('s');
    let (names, suffix): (&[String], &str) = if multiple {
        (ops, o.last('s').unwrap_or(""))
    } else if ops.len() > 2 {
        let m = format!("extra operand '{}'", ops[2]);
        return usage_error(io.stderr, "basename", &m, BASENAME.usage, 1);
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

/// `dirname NAME...`.
pub static DIRNAME: Builtin = Builtin::new("dirname", "dirname NAME...", &dirname)
    .example(Example::new(&["src/main.rs"], "src\n"));

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

fn dirname(args: &[String], io: &mut Io<'_>, _cx: &Cx<'_>) -> i32 {
    let o = match getopt(args, "z", &[("zero", 'z')]) {
        Ok(o) => o,
        Err(m) => return usage_error(io.stderr, "dirname", &m, DIRNAME.usage, 1),
    };
    if o.operands.is_empty() {
        return usage_error(io.stderr, "dirname", "missing operand", DIRNAME.usage, 1);
    }
    let end = if o.has('z') { "\0" } else { "\n" };
    for n in &o.operands {
        if write!(io.stdout, "{}{end}", dirname_of(n)).is_err() {
            return 1;
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(basename_of("/a/b.rs/", ".rs"), "b");
        assert_eq!(basename_of("///", ""), "/");
        assert_eq!(basename_of(".rs", ".rs"), ".rs");
        assert_eq!(dirname_of("a/b//c//"), "a/b");
        assert_eq!(dirname_of("c"), ".");
        assert_eq!(dirname_of("/c"), "/");
    }
}
