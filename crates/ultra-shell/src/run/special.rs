//! The built-ins that change the shell itself, so the runtime runs them rather than the
//! command table: `cd`, `read`, `shift`, `set --`, `local`, `export`, `unset`, `return`,
//! `exit`, `break`, `continue` and `:`.

use std::collections::BTreeMap;
use std::io::{BufRead, Write};

use super::{Env, Flow, MAX_VAR, Shell, Streams};
use crate::syntax::is_name;

/// The names [`Shell::special`] runs.
const SPECIAL: &[&str] = &[
    "cd", "read", "shift", "set", "local", "export", "unset", "return", "exit", "break",
    "continue", ":",
];

/// Whether the runtime runs `name` itself.
pub(super) fn is_special(name: &str) -> bool {
    SPECIAL.contains(&name)
}

/// Most bytes `read` takes for one line.
const MAX_LINE: usize = MAX_VAR;

/// A loop count for `break N` / `continue N`.
fn count(name: &str, args: &[String], err: &mut dyn Write) -> Result<usize, i32> {
    match args.first() {
        None => Ok(1),
        Some(a) => match a.parse::<i64>() {
            Ok(n) if n >= 1 => Ok(usize::try_from(n).unwrap_or(usize::MAX)),
            Ok(_) => {
                let _ = writeln!(err, "ultra sh: {name}: {a}: loop count out of range");
                Err(1)
            }
            Err(_) => {
                let _ = writeln!(err, "ultra sh: {name}: {a}: numeric argument required");
                Err(128)
            }
        },
    }
}

/// An exit or return status argument (taken modulo 256, as bash does).
fn status_arg(name: &str, args: &[String], env: &Env, err: &mut dyn Write) -> i32 {
    match args.first() {
        None => env.status,
        Some(a) => match a.parse::<i64>() {
            Ok(n) => (n & 0xff) as i32,
            Err(_) => {
                let _ = writeln!(err, "ultra sh: {name}: {a}: numeric argument required");
                2
            }
        },
    }
}

impl Shell {
    /// Runs the special built-in `argv[0]`; `vars` are the session's variables with the
    /// command's prefix assignments (`IFS= read`).
    pub(super) fn special(
        &self,
        argv: &[String],
        vars: &BTreeMap<String, String>,
        env: &mut Env,
        io: Streams<'_>,
    ) -> i32 {
        let Streams { stdin, stderr, .. } = io;
        let (name, args) = (argv[0].as_str(), &argv[1..]);
        match name {
            ":" => 0,
            "cd" => self.cd(args, env, stderr),
            "read" => read(args, vars, env, stdin, stderr),
            "shift" => {
                let n = match args.first().map(|a| a.parse::<usize>()) {
                    None => 1,
                    Some(Ok(n)) => n,
                    Some(Err(_)) => {
                        let _ = writeln!(
                            stderr,
                            "ultra sh: shift: {}: numeric argument required",
                            args[0]
                        );
                        return 1;
                    }
                };
                if n > env.args.len() {
                    return 1;
                }
                env.args.drain(..n);
                0
            }
            "set" => set(args, env, stderr),
            "local" => {
                if env.locals.is_empty() {
                    let _ = writeln!(stderr, "ultra sh: local: can only be used in a function");
                    return 1;
                }
                assign(name, args, env, stderr, true)
            }
            "export" => {
                let args: Vec<String> = args.iter().filter(|a| *a != "-n").cloned().collect();
                assign(name, &args, env, stderr, false)
            }
            "unset" => {
                let mut functions = false;
                for a in args {
                    match a.as_str() {
                        "-f" => functions = true,
                        "-v" => functions = false,
                        _ if functions => {
                            env.functions.remove(a);
                        }
                        _ => {
                            env.vars.remove(a);
                        }
                    }
                }
                0
            }
            "return" => {
                if env.locals.is_empty() {
                    let _ = writeln!(
                        stderr,
                        "ultra sh: return: can only `return' from a function"
                    );
                    return 2;
                }
                let status = status_arg(name, args, env, stderr);
                env.flow = Some(Flow::Return);
                status
            }
            "exit" => {
                let status = status_arg(name, args, env, stderr);
                env.flow = Some(Flow::Exit);
                status
            }
            "break" | "continue" => {
                if env.loops == 0 {
                    let _ = writeln!(
                        stderr,
                        "ultra sh: {name}: only meaningful in a `for', `while', or `until' loop"
                    );
                    return 0;
                }
                let n = match count(name, args, stderr) {
                    Ok(n) => n.min(env.loops),
                    Err(status) => return status,
                };
                env.flow = Some(if name == "break" {
                    Flow::Break(n)
                } else {
                    Flow::Continue(n)
                });
                0
            }
            _ => 127,
        }
    }
}

/// `set [-euxo OPTION] [--] [ARG...]`: shell options, then the positional parameters.
fn set(args: &[String], env: &mut Env, stderr: &mut dyn Write) -> i32 {
    let mut i = 0;
    let mut options = env.options;
    while let Some(a) = args.get(i) {
        if a == "--" {
            env.options = options;
            env.args = args[i + 1..].to_vec();
            return 0;
        }
        let on = match a.as_bytes().first() {
            Some(b'-') if a.len() > 1 => true,
            Some(b'+') if a.len() > 1 => false,
            _ => break,
        };
        i += 1;
        for flag in a[1..].chars() {
            let name = match flag {
                'e' => "errexit",
                'u' => "nounset",
                'x' => "xtrace",
                'o' => {
                    let Some(name) = args.get(i) else {
                        let _ = writeln!(
                            stderr,
                            "ultra sh: set: -o: an option name is required (errexit, nounset, pipefail, xtrace)"
                        );
                        return 2;
                    };
                    i += 1;
                    name.as_str()
                }
                f => {
                    let _ = writeln!(
                        stderr,
                        "ultra sh: set: -{f}: not supported (supported: -e, -u, -x, -o pipefail, and -- ARGS)"
                    );
                    return 2;
                }
            };
            let field = match name {
                "errexit" => &mut options.errexit,
                "nounset" => &mut options.nounset,
                "pipefail" => &mut options.pipefail,
                "xtrace" => &mut options.xtrace,
                other => {
                    let _ = writeln!(
                        stderr,
                        "ultra sh: set: {other}: not supported (supported: errexit, nounset, pipefail, xtrace)"
                    );
                    return 2;
                }
            };
            *field = on;
        }
    }
    env.options = options;
    if i < args.len() {
        env.args = args[i..].to_vec();
    } else if args.is_empty() {
        let _ = writeln!(
            stderr,
            "ultra sh: set: listing variables is not supported; use `env`"
        );
        return 2;
    }
    0
}

/// `local` and `export`: `NAME=value` sets, `NAME` alone declares (a local starts unset).
fn assign(name: &str, args: &[String], env: &mut Env, stderr: &mut dyn Write, local: bool) -> i32 {
    let mut status = 0;
    for a in args {
        let (var, value) = match a.split_once('=') {
            Some((v, value)) => (v, Some(value)),
            None => (a.as_str(), None),
        };
        if !is_name(var) {
            let _ = writeln!(stderr, "ultra sh: {name}: `{a}': not a valid identifier");
            status = 1;
            continue;
        }
        if local {
            let old = env.vars.get(var).cloned();
            let frame = env.locals.last_mut().expect("checked: inside a function");
            if !frame.iter().any(|(n, _)| n == var) {
                frame.push((var.to_string(), old));
            }
            match value {
                Some(v) => {
                    env.vars.insert(var.to_string(), v.to_string());
                }
                None => {
                    env.vars.remove(var);
                }
            }
        } else if let Some(v) = value {
            env.vars.insert(var.to_string(), v.to_string());
        }
    }
    status
}

/// `read [-r] [NAME...]`: one line of stdin split into the names by `IFS`, the last taking
/// the rest. Status 1 at the end of input (the names still get what there was).
fn read(
    args: &[String],
    vars: &BTreeMap<String, String>,
    env: &mut Env,
    stdin: &mut (dyn BufRead + Send),
    stderr: &mut dyn Write,
) -> i32 {
    let mut raw = false;
    let mut names = Vec::new();
    let mut options = true;
    for a in args {
        match a.as_str() {
            "-r" if options => raw = true,
            "--" if options => options = false,
            o if options && o.starts_with('-') && o.len() > 1 => {
                let _ = writeln!(
                    stderr,
                    "ultra sh: read: {o}: not supported (supported: -r and variable names)"
                );
                return 2;
            }
            n => {
                options = false;
                if !is_name(n) {
                    let _ = writeln!(stderr, "ultra sh: read: `{n}': not a valid identifier");
                    return 1;
                }
                names.push(n.to_string());
            }
        }
    }
    if names.is_empty() {
        names.push("REPLY".to_string());
    }
    // One line; without -r a backslash escapes the next character and joins lines.
    let mut line = Vec::new();
    let mut eof = false;
    loop {
        let mut chunk = Vec::new();
        match stdin.read_until(b'\n', &mut chunk) {
            Ok(0) => {
                eof = true;
                break;
            }
            Ok(_) => {}
            Err(e) => {
                let _ = writeln!(stderr, "ultra sh: read: {e}");
                return 1;
            }
        }
        let ended = chunk.last() == Some(&b'\n');
        if ended {
            chunk.pop();
        }
        if line.len() + chunk.len() > MAX_LINE {
            let _ = writeln!(stderr, "ultra sh: read: a line over {MAX_LINE} bytes");
            return 1;
        }
        let continued = !raw && ended && {
            let trailing = chunk.iter().rev().take_while(|b| **b == b'\\').count();
            trailing % 2 == 1
        };
        line.extend_from_slice(&chunk);
        if continued {
            line.pop();
            continue;
        }
        if !ended {
            eof = true;
        }
        break;
    }
    let text = String::from_utf8_lossy(&line).into_owned();
    let ifs = vars.get("IFS").map_or(" \t\n", String::as_str);
    let values = split_read(&text, ifs, names.len(), raw);
    for (name, value) in names.iter().zip(values) {
        env.vars.insert(name.clone(), value);
    }
    i32::from(eof)
}

/// Characters of `text`, each with whether a backslash quoted it (without `-r`).
fn unescape(text: &str, raw: bool) -> Vec<(char, bool)> {
    let mut out = Vec::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\\' && !raw {
            if let Some(n) = chars.next() {
                out.push((n, true));
            }
        } else {
            out.push((c, false));
        }
    }
    out
}

/// Splits a line for `read` into `n` values, as bash does: IFS whitespace around fields is
/// dropped, each other IFS character ends one field, and the last name takes the rest of
/// the line (less trailing IFS whitespace, and one trailing delimiter when only one field
/// is left).
fn split_read(text: &str, ifs: &str, n: usize, raw: bool) -> Vec<String> {
    let chars = unescape(text, raw);
    let is_ws = |c: &(char, bool)| !c.1 && ifs.contains(c.0) && c.0.is_whitespace();
    let is_delim = |c: &(char, bool)| !c.1 && ifs.contains(c.0) && !c.0.is_whitespace();
    let collect = |s: &[(char, bool)]| s.iter().map(|c| c.0).collect::<String>();
    let mut values = Vec::new();
    let mut i = 0;
    while i < chars.len() && is_ws(&chars[i]) {
        i += 1;
    }
    let mut end = chars.len();
    while end > i && is_ws(&chars[end - 1]) {
        end -= 1;
    }
    while values.len() + 1 < n && i < end {
        let start = i;
        while i < end && !is_ws(&chars[i]) && !is_delim(&chars[i]) {
            i += 1;
        }
        values.push(collect(&chars[start..i]));
        // The delimiter: whitespace, at most one other IFS character, whitespace.
        while i < end && is_ws(&chars[i]) {
            i += 1;
        }
        if i < end && is_delim(&chars[i]) {
            i += 1;
            while i < end && is_ws(&chars[i]) {
                i += 1;
            }
        }
    }
    if values.len() < n {
        let mut rest = &chars[i.min(end)..end];
        // `a,b,` read into two names gives `b`: a lone field keeps no trailing delimiter.
        if let Some((last, body)) = rest.split_last()
            && is_delim(last)
            && !body.iter().any(|c| is_delim(c) || is_ws(c))
        {
            rest = body;
        }
        values.push(collect(rest));
    }
    while values.len() < n {
        values.push(String::new());
    }
    values
}

#[cfg(test)]
mod tests {
    use super::split_read;

    #[test]
    fn read_splits_as_bash_does() {
        assert_eq!(split_read(" a  b  c ", " \t\n", 2, true), ["a", "b  c"]);
        assert_eq!(split_read("a,b,", ",", 2, true), ["a", "b"]);
        assert_eq!(split_read("a,b,c,", ",", 2, true), ["a", "b,c,"]);
        assert_eq!(split_read("a", " \t\n", 3, true), ["a", "", ""]);
        assert_eq!(split_read("a\\ b c", " \t\n", 2, false), ["a b", "c"]);
        assert_eq!(split_read("  x  ", "", 1, true), ["  x  "]);
    }
}
