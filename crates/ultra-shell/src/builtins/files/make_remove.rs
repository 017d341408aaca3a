//! `mkdir`, `touch`, `rm` and `rmdir`.

use ultra_workspace::root::Kind;

use crate::builtins::basic::complain;
use crate::command::{Builtin, Cx, Example, Io, Risk};
use crate::opts::parse_opts;

use super::usage_error;

/// `mkdir [-p] DIR...`.
pub static MKDIR: Builtin = Builtin::new("mkdir", "mkdir [-p] DIR...", &mkdir)
    .example(Example::new(&["-p", "out/x"], ""))
    .max_risk(Risk::WRITE);

fn mkdir(args: &[String], io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
    let o = match parse_opts(args, "pv", "m") {
        Ok(o) => o,
        Err(m) => return usage_error(io, &MKDIR, &m),
    };
    if o.operands.is_empty() {
        return usage_error(io, &MKDIR, "missing operand");
    }
    let parents = o.has('p');
    let mut status = 0;
    for d in &o.operands {
        let rel = match cx.fs.resolve_write(cx.cwd, d) {
            Ok(r) => r,
            Err(e) => {
                complain(io, "mkdir", d, e);
                status = 1;
                continue;
            }
        };
        match cx.fs.root().lstat(&rel) {
            Ok(m) if parents && m.kind == Kind::Dir => continue,
            Ok(_) => {
                let _ = writeln!(
                    io.stderr,
                    "mkdir: cannot create directory '{d}': File exists"
                );
                status = 1;
                continue;
            }
            Err(_) => {}
        }
        if let Err(e) = cx.fs.create_dir(&rel, parents) {
            let _ = writeln!(io.stderr, "mkdir: cannot create directory '{d}': {e}");
            status = 1;
        }
    }
    status
}

/// `touch FILE...`: creates missing files; existing ones are left unchanged (times are not
/// settable through the workspace root).
pub static TOUCH: Builtin = Builtin::new("touch", "touch [-c] FILE...", &touch)
    .example(Example::new(&["new.txt"], ""))
    .max_risk(Risk::WRITE);

fn touch(args: &[String], io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
    let o = match parse_opts(args, "cam", "") {
        Ok(o) => o,
        Err(m) => return usage_error(io, &TOUCH, &m),
    };
    if o.operands.is_empty() {
        return usage_error(io, &TOUCH, "missing file operand");
    }
    let mut status = 0;
    for f in &o.operands {
        let rel = match cx.fs.resolve_write(cx.cwd, f) {
            Ok(r) => r,
            Err(e) => {
                complain(io, "touch", f, e);
                status = 1;
                continue;
            }
        };
        if cx.fs.root().exists(&rel) || o.has('c') {
            continue;
        }
        if let Err(e) = cx.fs.create_empty(&rel) {
            let _ = writeln!(io.stderr, "touch: cannot touch '{f}': {e}");
            status = 1;
        }
    }
    status
}

/// True for operands rm and rmdir refuse: `/`, `.`, `..` and paths ending in them.
fn refused_operand(p: &str) -> Option<&'static str> {
    let t = p.trim_end_matches('/');
    if t.is_empty() {
        return Some("it is dangerous to operate recursively on '/'");
    }
    let last = t.rsplit('/').next().unwrap_or(t);
    if last == "." || last == ".." {
        return Some("refusing to remove '.' or '..' directory");
    }
    None
}

/// `rm [-rf] PATH...`.
pub static RM: Builtin = Builtin::new("rm", "rm [-rf] PATH...", &rm)
    .example(Example::new(&["f.txt"], ""))
    .max_risk(Risk::OVERWRITE);

fn rm(args: &[String], io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
    let o = match parse_opts(args, "rRfdv", "") {
        Ok(o) => o,
        Err(m) => return usage_error(io, &RM, &m),
    };
    let force = o.has('f');
    let recursive = o.has('r') || o.has('R');
    if o.operands.is_empty() {
        if force {
            return 0;
        }
        return usage_error(io, &RM, "missing operand");
    }
    let mut status = 0;
    for p in &o.operands {
        if let Some(why) = refused_operand(p) {
            let _ = writeln!(io.stderr, "rm: {why}: skipping '{p}'");
            status = 1;
            continue;
        }
        let rel = match cx.fs.resolve_entry(cx.cwd, p) {
            Ok(r) => r,
            Err(e) => {
                complain(io, "rm", p, e);
                status = 1;
                continue;
            }
        };
        if rel.as_str().is_empty() {
            let _ = writeln!(io.stderr, "rm: refusing to remove the workspace root");
            status = 1;
            continue;
        }
        let meta = match cx.fs.root().lstat(&rel) {
            Ok(m) => m,
            Err(e) => {
                if !force {
                    let _ = writeln!(io.stderr, "rm: cannot remove '{p}': {e}");
                    status = 1;
                }
                continue;
            }
        };
        let r = if meta.kind == Kind::Dir {
            if recursive {
                cx.fs.remove(&rel, true, true)
            } else if o.has('d') {
                cx.fs.remove(&rel, true, false)
            } else {
                let _ = writeln!(io.stderr, "rm: cannot remove '{p}': Is a directory");
                status = 1;
                continue;
            }
        } else {
            cx.fs.remove(&rel, false, false)
        };
        if let Err(e) = r {
            let _ = writeln!(io.stderr, "rm: cannot remove '{p}': {e}");
            status = 1;
        }
    }
    status
}

/// `rmdir DIR...`.
pub static RMDIR: Builtin = Builtin::new("rmdir", "rmdir DIR...", &rmdir)
    .example(Example::new(&["src"], "").status(1))
    .max_risk(Risk::OVERWRITE);

fn rmdir(args: &[String], io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
    let o = match parse_opts(args, "v", "") {
        Ok(o) => o,
        Err(m) => return usage_error(io, &RMDIR, &m),
    };
    if o.operands.is_empty() {
        return usage_error(io, &RMDIR, "missing operand");
    }
    let mut status = 0;
    for d in &o.operands {
        if refused_operand(d).is_some() {
            let _ = writeln!(io.stderr, "rmdir: failed to remove '{d}': Invalid argument");
            status = 1;
            continue;
        }
        let r = cx
            .fs
            .resolve_entry(cx.cwd, d)
            .and_then(|rel| cx.fs.remove(&rel, true, false));
        if let Err(e) = r {
            let _ = writeln!(io.stderr, "rmdir: failed to remove '{d}': {e}");
            status = 1;
        }
    }
    status
}
