//! `ls`.

use ultra_workspace::root::{Kind, Meta};

use crate::command::{Builtin, Cx, Example, Io};
use crate::opts::parse_opts;

use super::{join_user, mode_string, usage_error};

/// `ls [-1aAlRd] [PATH...]`.
pub static LS: Builtin =
    Builtin::new("ls", "ls [-1aAlRd] [PATH...]", &ls).example(Example::new(&["src"], "main.rs\n"));

struct LsOpts {
    all: bool,
    almost: bool,
    long: bool,
    recursive: bool,
}

fn print_entries(io: &mut Io<'_>, o: &LsOpts, entries: &[(String, Meta)]) -> std::io::Result<()> {
    if o.long {
        let lw = entries
            .iter()
            .map(|(_, m)| m.nlink.to_string().len())
            .max()
            .unwrap_or(1);
        let sw = entries
            .iter()
            .map(|(_, m)| m.len.to_string().len())
            .max()
            .unwrap_or(1);
        for (name, m) in entries {
            writeln!(
                io.stdout,
                "{} {:>lw$} {:>sw$} {name}",
                mode_string(m),
                m.nlink,
                m.len
            )?;
        }
    } else {
        for (name, _) in entries {
            writeln!(io.stdout, "{name}")?;
        }
    }
    Ok(())
}

/// List one directory (and, with -R, its subdirectories). Returns false when stdout
/// is gone.
fn list_dir(io: &mut Io<'_>, cx: &Cx<'_>, o: &LsOpts, dir: &str, status: &mut i32) -> bool {
    let list = match cx.fs.list(cx.cwd, dir) {
        Ok(l) => l,
        Err(e) => {
            let _ = writeln!(io.stderr, "ls: cannot open directory '{dir}': {e}");
            *status = 2;
            return true;
        }
    };
    let mut shown: Vec<(String, Meta)> = Vec::new();
    if o.all
        && let Ok(m) = cx.fs.stat(cx.cwd, dir)
    {
        shown.push((".".into(), m));
        let parent = cx.fs.stat(cx.cwd, &join_user(dir, "..")).unwrap_or(m);
        shown.push(("..".into(), parent));
    }
    let mut subdirs = Vec::new();
    for e in list {
        if e.name.starts_with('.') && !o.all && !o.almost {
            continue;
        }
        if e.meta.kind == Kind::Dir {
            subdirs.push(e.name.clone());
        }
        shown.push((e.name, e.meta));
    }
    if print_entries(io, o, &shown).is_err() {
        return false;
    }
    if o.recursive {
        for name in subdirs {
            let sub = join_user(dir, &name);
            if writeln!(io.stdout, "\n{sub}:").is_err() {
                return false;
            }
            if !list_dir(io, cx, o, &sub, status) {
                return false;
            }
        }
    }
    true
}

fn ls(args: &[String], io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
    let opts = match parse_opts(args, "1aAlRd", "") {
        Ok(o) => o,
        Err(m) => return usage_error(io, &LS, &m),
    };
    let o = LsOpts {
        all: opts.has('a'),
        almost: opts.has('A'),
        long: opts.has('l'),
        recursive: opts.has('R'),
    };
    let dir_only = opts.has('d');
    let operands = if opts.operands.is_empty() {
        vec![".".to_string()]
    } else {
        opts.operands.clone()
    };
    let mut status = 0;
    let mut files: Vec<(String, Meta)> = Vec::new();
    let mut dirs: Vec<String> = Vec::new();
    for op in &operands {
        let meta = if o.long || dir_only {
            cx.fs.lstat(cx.cwd, op)
        } else {
            cx.fs.stat(cx.cwd, op)
        };
        match meta {
            Ok(m) => {
                let is_dir = m.kind == Kind::Dir
                    || (m.kind == Kind::Symlink
                        && !dir_only
                        && op.ends_with('/')
                        && cx.fs.stat(cx.cwd, op).is_ok_and(|t| t.kind == Kind::Dir));
                if is_dir && !dir_only {
                    dirs.push(op.clone());
                } else {
                    files.push((op.clone(), m));
                }
            }
            Err(e) => {
                let _ = writeln!(io.stderr, "ls: cannot access '{op}': {e}");
                status = 2;
            }
        }
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));
    dirs.sort();
    if print_entries(io, &o, &files).is_err() {
        return status.max(1);
    }
    let headers = operands.len() > 1 || o.recursive;
    for (i, d) in dirs.iter().enumerate() {
        if (i > 0 || !files.is_empty()) && writeln!(io.stdout).is_err() {
            return status.max(1);
        }
        if headers && writeln!(io.stdout, "{d}:").is_err() {
            return status.max(1);
        }
        if !list_dir(io, cx, &o, d, &mut status) {
            return status.max(1);
        }
    }
    status
}
