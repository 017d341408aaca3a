//! `test` and `[`: POSIX conditional expressions, the way bash evaluates them. Up to four
//! arguments follow POSIX's rules by argument count (so `[ "$x" = -f ]` compares strings
//! whatever `$x` holds); more are parsed with `!`, `-a`, `-o` and parentheses, `-a` binding
//! tighter. File tests see the confined workspace: a path outside it, or one the shell may
//! not read, does not exist. Exit status: 0 true, 1 false, 2 a malformed expression.

use crate::command::{Builtin, Cx, Example, Io};
use ultra_workspace::root::{Kind, Meta};

/// `test EXPRESSION`.
pub static TEST: Builtin =
    Builtin::new("test", "test EXPRESSION", &test).example(Example::new(&["-f", "f.txt"], ""));

/// `[ EXPRESSION ]`.
pub static BRACKET: Builtin =
    Builtin::new("[", "[ EXPRESSION ]", &bracket).example(Example::new(&["-d", "src", "]"], ""));

fn test(args: &[String], io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
    run("test", args, io, cx)
}

fn bracket(args: &[String], io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
    match args.split_last() {
        Some((last, rest)) if last == "]" => run("[", rest, io, cx),
        _ => {
            let _ = writeln!(io.stderr, "[: missing `]'");
            2
        }
    }
}

fn run(name: &str, args: &[String], io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let eval = Eval { cx };
    match eval.by_count(&args) {
        Ok(true) => 0,
        Ok(false) => 1,
        Err(message) => {
            let _ = writeln!(io.stderr, "{name}: {message}");
            2
        }
    }
}

struct Eval<'a, 'c> {
    cx: &'a Cx<'c>,
}

const UNARY: &[&str] = &[
    "-b", "-c", "-d", "-e", "-f", "-g", "-h", "-k", "-L", "-n", "-p", "-r", "-s", "-S", "-t", "-u",
    "-w", "-x", "-z", "-O", "-G", "-N",
];
const BINARY: &[&str] = &[
    "=", "==", "!=", "<", ">", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-nt", "-ot", "-ef",
];

impl Eval<'_, '_> {
    /// POSIX's rules for zero to four arguments, then the general grammar.
    fn by_count(&self, a: &[&str]) -> Result<bool, String> {
        match a {
            [] => Ok(false),
            [one] => Ok(!one.is_empty()),
            ["!", x] => Ok(x.is_empty()),
            [op, x] if UNARY.contains(op) => self.unary(op, x),
            [op, _] => Err(format!("{op}: unary operator expected")),
            [l, op, r] if BINARY.contains(op) => self.binary(l, op, r),
            ["!", x, y] => self.by_count(&[x, y]).map(|b| !b),
            ["(", x, ")"] => Ok(!x.is_empty()),
            [l, "-a", r] => Ok(!l.is_empty() && !r.is_empty()),
            [l, "-o", r] => Ok(!l.is_empty() || !r.is_empty()),
            [_, op, _] => Err(format!("{op}: binary operator expected")),
            ["!", rest @ ..] if rest.len() == 3 => self.by_count(rest).map(|b| !b),
            ["(", x, y, ")"] => self.by_count(&[x, y]),
            _ => self.general(a),
        }
    }

    /// `expr: and (-o and)*; and: not (-a not)*; not: ! not | primary`.
    fn general(&self, a: &[&str]) -> Result<bool, String> {
        let mut at = 0;
        let value = self.or(a, &mut at)?;
        match a.get(at) {
            None => Ok(value),
            Some(extra) => Err(format!("{extra}: unexpected argument")),
        }
    }

    fn or(&self, a: &[&str], at: &mut usize) -> Result<bool, String> {
        let mut value = self.and(a, at)?;
        while a.get(*at) == Some(&"-o") {
            *at += 1;
            value |= self.and(a, at)?;
        }
        Ok(value)
    }

    fn and(&self, a: &[&str], at: &mut usize) -> Result<bool, String> {
        let mut value = self.not(a, at)?;
        while a.get(*at) == Some(&"-a") {
            *at += 1;
            value &= self.not(a, at)?;
        }
        Ok(value)
    }

    fn not(&self, a: &[&str], at: &mut usize) -> Result<bool, String> {
        if a.get(*at) == Some(&"!") && *at + 1 < a.len() {
            *at += 1;
            return self.not(a, at).map(|b| !b);
        }
        self.primary(a, at)
    }

    fn primary(&self, a: &[&str], at: &mut usize) -> Result<bool, String> {
        let Some(&first) = a.get(*at) else {
            return Err("argument expected".into());
        };
        if first == "(" {
            *at += 1;
            let value = self.or(a, at)?;
            if a.get(*at) != Some(&")") {
                return Err("`)' expected".into());
            }
            *at += 1;
            return Ok(value);
        }
        if let (Some(&op), Some(&r)) = (a.get(*at + 1), a.get(*at + 2))
            && BINARY.contains(&op)
        {
            *at += 3;
            return self.binary(first, op, r);
        }
        if UNARY.contains(&first)
            && let Some(&x) = a.get(*at + 1)
        {
            *at += 2;
            return self.unary(first, x);
        }
        *at += 1;
        Ok(!first.is_empty())
    }

    fn unary(&self, op: &str, x: &str) -> Result<bool, String> {
        Ok(match op {
            "-n" => !x.is_empty(),
            "-z" => x.is_empty(),
            // No terminal is attached to a script's descriptors.
            "-t" => false,
            "-h" | "-L" => self.lstat(x).is_some_and(|m| m.kind == Kind::Symlink),
            _ => {
                let Some(m) = self.stat(x) else {
                    return Ok(false);
                };
                match op {
                    "-e" => true,
                    "-f" => m.kind == Kind::File,
                    "-d" => m.kind == Kind::Dir,
                    "-s" => m.len > 0,
                    "-r" => m.mode & 0o444 != 0,
                    "-w" => m.mode & 0o222 != 0,
                    "-x" => m.mode & 0o111 != 0,
                    "-u" => m.mode & 0o4000 != 0,
                    "-g" => m.mode & 0o2000 != 0,
                    "-k" => m.mode & 0o1000 != 0,
                    // The owner is whoever runs the shell; modified since last read is
                    // not tracked.
                    "-O" | "-G" => true,
                    "-N" => false,
                    // Devices, pipes and sockets are not workspace files.
                    _ => false,
                }
            }
        })
    }

    fn binary(&self, l: &str, op: &str, r: &str) -> Result<bool, String> {
        let int = |s: &str| -> Result<i64, String> {
            s.trim()
                .parse::<i64>()
                .map_err(|_| format!("{s}: integer expression expected"))
        };
        Ok(match op {
            "=" | "==" => l == r,
            "!=" => l != r,
            "<" => l < r,
            ">" => l > r,
            "-eq" => int(l)? == int(r)?,
            "-ne" => int(l)? != int(r)?,
            "-lt" => int(l)? < int(r)?,
            "-le" => int(l)? <= int(r)?,
            "-gt" => int(l)? > int(r)?,
            "-ge" => int(l)? >= int(r)?,
            "-nt" => match (self.stat(l), self.stat(r)) {
                (Some(a), Some(b)) => a.mtime_ns > b.mtime_ns,
                (Some(_), None) => true,
                _ => false,
            },
            "-ot" => match (self.stat(l), self.stat(r)) {
                (Some(a), Some(b)) => a.mtime_ns < b.mtime_ns,
                (None, Some(_)) => true,
                _ => false,
            },
            "-ef" => match (self.stat(l), self.stat(r)) {
                (Some(a), Some(b)) => a.ino == b.ino,
                _ => false,
            },
            other => return Err(format!("{other}: binary operator expected")),
        })
    }

    fn stat(&self, path: &str) -> Option<Meta> {
        self.cx.fs.stat(self.cx.cwd, path).ok()
    }

    fn lstat(&self, path: &str) -> Option<Meta> {
        self.cx.fs.lstat(self.cx.cwd, path).ok()
    }
}
