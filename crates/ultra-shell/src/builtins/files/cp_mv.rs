//! `cp` and `mv`.

use ultra_workspace::root::Kind;

use crate::builtins::basic::complain;
use crate::command::{Builtin, Cx, Example, Io, Risk};
use crate::opts::parse_opts;

use super::{base_name, join_user, usage_error};

/// Where SRC goes when copied or moved to DEST: into DEST when it is a directory.
fn target_for(cx: &Cx<'_>, src: &str, dest: &str, many: bool) -> Result<String, String> {
    let dest_is_dir = cx.fs.stat(cx.cwd, dest).is_ok_and(|m| m.kind == Kind::Dir);
    if dest_is_dir {
        Ok(join_user(dest, base_name(src)))
    } else if many {
        Err(format!("target '{dest}' is not a directory"))
    } else {
        Ok(dest.to_string())
    }
}

/// True when `inner` is `outer` or lies beneath it.
fn is_within(outer: &str, inner: &str) -> bool {
    inner == outer || outer.is_empty() || inner.starts_with(&format!("{outer}/"))
}

/// `cp [-r] SRC... DEST`.
pub static CP: Builtin = Builtin::new("cp", "cp [-r] SRC... DEST", &cp)
    .example(Example::new(&["f.txt", "g.txt"], ""))
    .max_risk(Risk::WRITE);

fn copy_file(cx: &Cx<'_>, src: &str, dst: &str) -> Result<(), String> {
    let s = cx.fs.resolve_read(cx.cwd, src).map_err(|e| e.to_string())?;
    let d = cx
        .fs
        .resolve_write(cx.cwd, dst)
        .map_err(|e| e.to_string())?;
    if s == d {
        return Err(format!("'{src}' and '{dst}' are the same file"));
    }
    let (bytes, meta) = cx.fs.root().read(&s).map_err(|e| e.to_string())?;
    cx.fs
        .write_copy(&d, &bytes, meta.mode)
        .map_err(|e| e.to_string())?;
    Ok(())
}

fn copy_tree(io: &mut Io<'_>, cx: &Cx<'_>, src: &str, dst: &str, status: &mut i32) {
    let d = match cx.fs.resolve_write(cx.cwd, dst) {
        Ok(d) => d,
        Err(e) => {
            complain(io, "cp", dst, e);
            *status = 1;
            return;
        }
    };
    match cx.fs.root().lstat(&d) {
        Ok(m) if m.kind == Kind::Dir => {}
        Ok(_) => {
            let _ = writeln!(
                io.stderr,
                "cp: cannot overwrite non-directory '{dst}' with directory '{src}'"
            );
            *status = 1;
            return;
        }
        Err(_) => {
            if let Err(e) = cx.fs.create_dir(&d, false) {
                complain(io, "cp", dst, e);
                *status = 1;
                return;
            }
        }
    }
    let entries = match cx.fs.list(cx.cwd, src) {
        Ok(l) => l,
        Err(e) => {
            complain(io, "cp", src, e);
            *status = 1;
            return;
        }
    };
    for e in entries {
        let (s, t) = (join_user(src, &e.name), join_user(dst, &e.name));
        if e.meta.kind == Kind::Dir {
            copy_tree(io, cx, &s, &t, status);
        } else if let Err(m) = copy_file(cx, &s, &t) {
            complain(io, "cp", &s, m);
            *status = 1;
        }
    }
}

fn cp(args: &[String], io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
    let o = match parse_opts(args, "rRaftpv", "") {
        Ok(o) => o,
        Err(m) => return usage_error(io, &CP, &m),
    };
    let recursive = o.has('r') || o.has('R') || o.has('a');
    if o.operands.len() < 2 {
        return usage_error(io, &CP, "missing file operand");
    }
    let (srcs, dest) = o.operands.split_at(o.operands.len() - 1);
    let dest = &dest[0];
    let many = srcs.len() > 1;
    let mut status = 0;
    for src in srcs {
        let meta = match cx.fs.stat(cx.cwd, src) {
            Ok(m) => m,
            Err(e) => {
                let _ = writeln!(io.stderr, "cp: cannot stat '{src}': {e}");
                status = 1;
                continue;
            }
        };
        let target = match target_for(cx, src, dest, many) {
            Ok(t) => t,
            Err(m) => {
                let _ = writeln!(io.stderr, "cp: {m}");
                return 1;
            }
        };
        if meta.kind == Kind::Dir {
            if !recursive {
                let _ = writeln!(
                    io.stderr,
                    "cp: -r not specified; omitting directory '{src}'"
                );
                status = 1;
                continue;
            }
            let (s, t) = (
                cx.fs.resolve_read(cx.cwd, src),
                cx.fs.resolve_write(cx.cwd, &target),
            );
            if let (Ok(s), Ok(t)) = (&s, &t)
                && is_within(s.as_str(), t.as_str())
            {
                let _ = writeln!(
                    io.stderr,
                    "cp: cannot copy a directory, '{src}', into itself, '{target}'"
                );
                status = 1;
                continue;
            }
            copy_tree(io, cx, src, &target, &mut status);
        } else if let Err(m) = copy_file(cx, src, &target) {
            complain(io, "cp", src, m);
            status = 1;
        }
    }
    status
}

/// `mv SRC... DEST`.
pub static MV: Builtin = Builtin::new("mv", "mv [-f] SRC... DEST", &mv)
    .example(Example::new(&["f.txt", "g.txt"], ""))
    .max_risk(Risk::OVERWRITE);

fn mv(args: &[String], io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
    let o = match parse_opts(args, "fnv", "") {
        Ok(o) => o,
        Err(m) => return usage_error(io, &MV, &m),
    };
    if o.operands.len() < 2 {
        return usage_error(io, &MV, "missing file operand");
    }
    let no_clobber = o.has('n');
    let (srcs, dest) = o.operands.split_at(o.operands.len() - 1);
    let dest = &dest[0];
    let many = srcs.len() > 1;
    let mut status = 0;
    for src in srcs {
        let target = match target_for(cx, src, dest, many) {
            Ok(t) => t,
            Err(m) => {
                let _ = writeln!(io.stderr, "mv: {m}");
                return 1;
            }
        };
        let from = match cx.fs.resolve_entry(cx.cwd, src) {
            Ok(r) => r,
            Err(e) => {
                complain(io, "mv", src, e);
                status = 1;
                continue;
            }
        };
        let to = match cx.fs.resolve_entry(cx.cwd, &target) {
            Ok(r) => r,
            Err(e) => {
                complain(io, "mv", &target, e);
                status = 1;
                continue;
            }
        };
        if cx.fs.root().lstat(&from).is_err() {
            let _ = writeln!(
                io.stderr,
                "mv: cannot stat '{src}': No such file or directory"
            );
            status = 1;
            continue;
        }
        if from == to {
            let _ = writeln!(io.stderr, "mv: '{src}' and '{target}' are the same file");
            status = 1;
            continue;
        }
        if is_within(from.as_str(), to.as_str()) {
            let _ = writeln!(
                io.stderr,
                "mv: cannot move '{src}' to a subdirectory of itself, '{target}'"
            );
            status = 1;
            continue;
        }
        if no_clobber && cx.fs.root().lstat(&to).is_ok() {
            continue;
        }
        if let Err(e) = cx.fs.rename(&from, &to) {
            let _ = writeln!(io.stderr, "mv: cannot move '{src}' to '{target}': {e}");
            status = 1;
        }
    }
    status
}
