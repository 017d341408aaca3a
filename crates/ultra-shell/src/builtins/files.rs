//! File and system built-ins: `ls`, `mkdir`, `touch`, `rm`, `rmdir`, `cp`, `mv`, `stat`,
//! `tee`, `tree`, `date`, `whoami`, `which`, `clear`, `diff`, `xargs`.
//!
//! Every path goes through [`ShellFs`](crate::run::fs::ShellFs), so protected paths and
//! paths outside the root fail with its error before anything is touched. Differences from
//! GNU: `ls -l` prints mode, links, size and name (no owner, group or date, no `total`
//! line, no `-> target`); `touch` cannot set times, so an existing file is left as it is;
//! `tree` prints no `-> target` for symlinks; `date` is always UTC.

use std::io::Write;

use ultra_workspace::root::{Kind, Meta};

use super::basic::complain;
use super::opts::parse_opts;
use crate::run::{Builtin, Cx, Example, Io, Risk, read_all};

/// Report a usage error (status 2).
fn usage_error(io: &mut Io<'_>, b: &dyn Builtin, msg: &str) -> i32 {
    let _ = writeln!(io.stderr, "{}: {msg}\nusage: {}", b.name(), b.usage());
    2
}

/// `dir/name` for display and for resolving, keeping what the user wrote.
fn join_user(dir: &str, name: &str) -> String {
    if dir.ends_with('/') {
        format!("{dir}{name}")
    } else {
        format!("{dir}/{name}")
    }
}

/// The last component of a user path (`a/b/` gives `b`).
fn base_name(p: &str) -> &str {
    let t = p.trim_end_matches('/');
    if t.is_empty() {
        return "/";
    }
    t.rsplit('/').next().unwrap_or(t)
}

fn mode_string(m: &Meta) -> String {
    let mut s = String::with_capacity(10);
    s.push(match m.kind {
        Kind::Dir => 'd',
        Kind::Symlink => 'l',
        Kind::File => '-',
        Kind::Other => '?',
    });
    let bits = m.mode;
    for (shift, special, sc) in [(6, 0o4000, 's'), (3, 0o2000, 's'), (0, 0o1000, 't')] {
        let p = (bits >> shift) & 7;
        s.push(if p & 4 != 0 { 'r' } else { '-' });
        s.push(if p & 2 != 0 { 'w' } else { '-' });
        let x = p & 1 != 0;
        s.push(match (bits & special != 0, x) {
            (true, true) => sc,
            (true, false) => sc.to_ascii_uppercase(),
            (false, true) => 'x',
            (false, false) => '-',
        });
    }
    s
}

// ---------------------------------------------------------------------------------------
// ls

/// `ls [-1aAlRd] [PATH...]`.
pub struct Ls;

struct LsOpts {
    all: bool,
    almost: bool,
    long: bool,
    recursive: bool,
}

impl Ls {
    fn print_entries(
        io: &mut Io<'_>,
        o: &LsOpts,
        entries: &[(String, Meta)],
    ) -> std::io::Result<()> {
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
        if Self::print_entries(io, o, &shown).is_err() {
            return false;
        }
        if o.recursive {
            for name in subdirs {
                let sub = join_user(dir, &name);
                if writeln!(io.stdout, "\n{sub}:").is_err() {
                    return false;
                }
                if !Self::list_dir(io, cx, o, &sub, status) {
                    return false;
                }
            }
        }
        true
    }
}

impl Builtin for Ls {
    fn name(&self) -> &'static str {
        "ls"
    }
    fn usage(&self) -> &'static str {
        "ls [-1aAlRd] [PATH...]"
    }
    fn example(&self) -> Example {
        Example {
            args: &["src"],
            stdin: "",
            stdout: "main.rs\n",
            status: 0,
        }
    }
    fn run(&self, args: &[String], io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
        let opts = match parse_opts(args, "1aAlRd", "") {
            Ok(o) => o,
            Err(m) => return usage_error(io, self, &m),
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
        if Self::print_entries(io, &o, &files).is_err() {
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
            if !Self::list_dir(io, cx, &o, d, &mut status) {
                return status.max(1);
            }
        }
        status
    }
}

// ---------------------------------------------------------------------------------------
// mkdir, touch, rm, rmdir

/// `mkdir [-p] DIR...`.
pub struct Mkdir;

impl Builtin for Mkdir {
    fn max_risk(&self) -> Risk {
        Risk::WRITE
    }
    fn name(&self) -> &'static str {
        "mkdir"
    }
    fn usage(&self) -> &'static str {
        "mkdir [-p] DIR..."
    }
    fn example(&self) -> Example {
        Example {
            args: &["-p", "out/x"],
            stdin: "",
            stdout: "",
            status: 0,
        }
    }
    fn run(&self, args: &[String], io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
        let o = match parse_opts(args, "pv", "m") {
            Ok(o) => o,
            Err(m) => return usage_error(io, self, &m),
        };
        if o.operands.is_empty() {
            return usage_error(io, self, "missing operand");
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
}

/// `touch FILE...`: creates missing files; existing ones are left unchanged (times are not
/// settable through the workspace root).
pub struct Touch;

impl Builtin for Touch {
    fn max_risk(&self) -> Risk {
        Risk::WRITE
    }
    fn name(&self) -> &'static str {
        "touch"
    }
    fn usage(&self) -> &'static str {
        "touch [-c] FILE..."
    }
    fn example(&self) -> Example {
        Example {
            args: &["new.txt"],
            stdin: "",
            stdout: "",
            status: 0,
        }
    }
    fn run(&self, args: &[String], io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
        let o = match parse_opts(args, "cam", "") {
            Ok(o) => o,
            Err(m) => return usage_error(io, self, &m),
        };
        if o.operands.is_empty() {
            return usage_error(io, self, "missing file operand");
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
pub struct Rm;

impl Builtin for Rm {
    fn max_risk(&self) -> Risk {
        Risk::OVERWRITE
    }
    fn name(&self) -> &'static str {
        "rm"
    }
    fn usage(&self) -> &'static str {
        "rm [-rf] PATH..."
    }
    fn example(&self) -> Example {
        Example {
            args: &["f.txt"],
            stdin: "",
            stdout: "",
            status: 0,
        }
    }
    fn run(&self, args: &[String], io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
        let o = match parse_opts(args, "rRfdv", "") {
            Ok(o) => o,
            Err(m) => return usage_error(io, self, &m),
        };
        let force = o.has('f');
        let recursive = o.has('r') || o.has('R');
        if o.operands.is_empty() {
            if force {
                return 0;
            }
            return usage_error(io, self, "missing operand");
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
}

/// `rmdir DIR...`.
pub struct Rmdir;

impl Builtin for Rmdir {
    fn max_risk(&self) -> Risk {
        Risk::OVERWRITE
    }
    fn name(&self) -> &'static str {
        "rmdir"
    }
    fn usage(&self) -> &'static str {
        "rmdir DIR..."
    }
    fn example(&self) -> Example {
        Example {
            args: &["src"],
            stdin: "",
            stdout: "",
            status: 1,
        }
    }
    fn run(&self, args: &[String], io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
        let o = match parse_opts(args, "v", "") {
            Ok(o) => o,
            Err(m) => return usage_error(io, self, &m),
        };
        if o.operands.is_empty() {
            return usage_error(io, self, "missing operand");
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
}

// ---------------------------------------------------------------------------------------
// cp, mv

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
pub struct Cp;

impl Cp {
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
                Self::copy_tree(io, cx, &s, &t, status);
            } else if let Err(m) = Self::copy_file(cx, &s, &t) {
                complain(io, "cp", &s, m);
                *status = 1;
            }
        }
    }
}

impl Builtin for Cp {
    fn max_risk(&self) -> Risk {
        Risk::WRITE
    }
    fn name(&self) -> &'static str {
        "cp"
    }
    fn usage(&self) -> &'static str {
        "cp [-r] SRC... DEST"
    }
    fn example(&self) -> Example {
        Example {
            args: &["f.txt", "g.txt"],
            stdin: "",
            stdout: "",
            status: 0,
        }
    }
    fn run(&self, args: &[String], io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
        let o = match parse_opts(args, "rRaftpv", "") {
            Ok(o) => o,
            Err(m) => return usage_error(io, self, &m),
        };
        let recursive = o.has('r') || o.has('R') || o.has('a');
        if o.operands.len() < 2 {
            return usage_error(io, self, "missing file operand");
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
                Self::copy_tree(io, cx, src, &target, &mut status);
            } else if let Err(m) = Self::copy_file(cx, src, &target) {
                complain(io, "cp", src, m);
                status = 1;
            }
        }
        status
    }
}

/// `mv SRC... DEST`.
pub struct Mv;

impl Builtin for Mv {
    fn max_risk(&self) -> Risk {
        Risk::OVERWRITE
    }
    fn name(&self) -> &'static str {
        "mv"
    }
    fn usage(&self) -> &'static str {
        "mv [-f] SRC... DEST"
    }
    fn example(&self) -> Example {
        Example {
            args: &["f.txt", "g.txt"],
            stdin: "",
            stdout: "",
            status: 0,
        }
    }
    fn run(&self, args: &[String], io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
        let o = match parse_opts(args, "fnv", "") {
            Ok(o) => o,
            Err(m) => return usage_error(io, self, &m),
        };
        if o.operands.len() < 2 {
            return usage_error(io, self, "missing file operand");
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
}

// ---------------------------------------------------------------------------------------
// stat, tee, tree

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
pub struct Stat;

impl Builtin for Stat {
    fn name(&self) -> &'static str {
        "stat"
    }
    fn usage(&self) -> &'static str {
        "stat [-L] [-c FORMAT] PATH..."
    }
    fn example(&self) -> Example {
        Example {
            args: &["f.txt"],
            stdin: "",
            stdout: "  File: f.txt\n  Size: 6\n  Type: regular file\n",
            status: 0,
        }
    }
    fn run(&self, args: &[String], io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
        let o = match parse_opts(args, "L", "c") {
            Ok(o) => o,
            Err(m) => return usage_error(io, self, &m),
        };
        if o.operands.is_empty() {
            return usage_error(io, self, "missing operand");
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
}

/// `tee [-a] [FILE...]`.
pub struct Tee;

enum TeeOut {
    Replace(crate::run::fs::Staged),
    Append(crate::run::fs::Staged),
}

impl Builtin for Tee {
    fn max_risk(&self) -> Risk {
        Risk::WRITE
    }
    fn name(&self) -> &'static str {
        "tee"
    }
    fn usage(&self) -> &'static str {
        "tee [-a] [FILE...]"
    }
    fn example(&self) -> Example {
        Example {
            args: &["copy.txt"],
            stdin: "x\n",
            stdout: "x\n",
            status: 0,
        }
    }
    fn run(&self, args: &[String], io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
        let o = match parse_opts(args, "ai", "") {
            Ok(o) => o,
            Err(m) => return usage_error(io, self, &m),
        };
        let mut status = 0;
        let mut outs: Vec<(String, TeeOut)> = Vec::new();
        for f in &o.operands {
            let r = if o.has('a') {
                cx.fs.append(cx.cwd, f).map(TeeOut::Append)
            } else {
                cx.fs.create(cx.cwd, f).map(TeeOut::Replace)
            };
            match r {
                Ok(w) => outs.push((f.clone(), w)),
                Err(e) => {
                    complain(io, "tee", f, e);
                    status = 1;
                }
            }
        }
        let mut buf = vec![0u8; 64 * 1024];
        let mut stdout_ok = true;
        loop {
            let n = match io.stdin.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    let _ = writeln!(io.stderr, "tee: read error: {e}");
                    status = 1;
                    break;
                }
            };
            if stdout_ok && io.stdout.write_all(&buf[..n]).is_err() {
                stdout_ok = false;
                status = 1;
            }
            outs.retain_mut(|(name, w)| {
                let r = match w {
                    TeeOut::Replace(a) => a.write_all(&buf[..n]),
                    TeeOut::Append(f) => f.write_all(&buf[..n]),
                };
                if let Err(e) = r {
                    let _ = writeln!(io.stderr, "tee: {name}: {e}");
                    status = 1;
                    return false;
                }
                true
            });
        }
        for (name, w) in outs {
            let r = match w {
                TeeOut::Replace(a) => a.commit(),
                TeeOut::Append(f) => f.commit(),
            };
            if let Err(e) = r {
                complain(io, "tee", &name, e);
                status = 1;
            }
        }
        status
    }
}

/// `tree [-a] [-d] [-L N] [DIR...]`: the `tree` drawing and its final
/// `N directories, M files` line; symlinks are shown by name only.
pub struct Tree;

struct TreeOpts {
    all: bool,
    dirs_only: bool,
    max_depth: usize,
}

impl Tree {
    #[allow(clippy::too_many_arguments)]
    fn walk(
        io: &mut Io<'_>,
        cx: &Cx<'_>,
        o: &TreeOpts,
        dir: &str,
        prefix: &str,
        depth: usize,
        counts: &mut (usize, usize),
    ) -> std::io::Result<()> {
        let list = match cx.fs.list(cx.cwd, dir) {
            Ok(l) => l,
            Err(e) => {
                let _ = writeln!(io.stderr, "tree: {dir}: {e}");
                return Ok(());
            }
        };
        let shown: Vec<_> = list
            .into_iter()
            .filter(|e| o.all || !e.name.starts_with('.'))
            .filter(|e| !o.dirs_only || e.meta.kind == Kind::Dir)
            .collect();
        let n = shown.len();
        for (i, e) in shown.into_iter().enumerate() {
            let last = i + 1 == n;
            writeln!(
                io.stdout,
                "{prefix}{}{}",
                if last { "└── " } else { "├── " },
                e.name
            )?;
            if e.meta.kind == Kind::Dir {
                counts.0 += 1;
                if depth < o.max_depth {
                    let p = format!("{prefix}{}", if last { "    " } else { "│   " });
                    Self::walk(io, cx, o, &join_user(dir, &e.name), &p, depth + 1, counts)?;
                }
            } else {
                counts.1 += 1;
            }
        }
        Ok(())
    }
}

impl Builtin for Tree {
    fn name(&self) -> &'static str {
        "tree"
    }
    fn usage(&self) -> &'static str {
        "tree [-a] [-d] [-L N] [DIR...]"
    }
    fn example(&self) -> Example {
        Example {
            args: &["src"],
            stdin: "",
            stdout: "src\n\u{2514}\u{2500}\u{2500} main.rs\n\n0 directories, 1 file\n",
            status: 0,
        }
    }
    fn run(&self, args: &[String], io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
        let opts = match parse_opts(args, "ad", "L") {
            Ok(o) => o,
            Err(m) => return usage_error(io, self, &m),
        };
        let max_depth = match opts.last('L').map(str::parse::<usize>) {
            None => usize::MAX,
            Some(Ok(n)) if n > 0 => n,
            Some(_) => return usage_error(io, self, "invalid level, must be greater than 0"),
        };
        let o = TreeOpts {
            all: opts.has('a'),
            dirs_only: opts.has('d'),
            max_depth,
        };
        let dirs = if opts.operands.is_empty() {
            vec![".".to_string()]
        } else {
            opts.operands.clone()
        };
        let mut counts = (0, 0);
        let mut status = 0;
        for d in &dirs {
            match cx.fs.stat(cx.cwd, d) {
                Ok(m) if m.kind == Kind::Dir => {
                    if writeln!(io.stdout, "{d}").is_err()
                        || Self::walk(io, cx, &o, d, "", 1, &mut counts).is_err()
                    {
                        return 1;
                    }
                }
                Ok(_) => {
                    let _ = writeln!(io.stdout, "{d}  [error opening dir]");
                    status = 2;
                }
                Err(e) => {
                    let _ = writeln!(io.stderr, "tree: {d}: {e}");
                    let _ = writeln!(io.stdout, "{d}  [error opening dir]");
                    status = 2;
                }
            }
        }
        let plural =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        let summary = if o.dirs_only {
            plural(counts.0, "directory", "directories")
        } else {
            format!(
                "{}, {}",
                plural(counts.0, "directory", "directories"),
                plural(counts.1, "file", "files")
            )
        };
        if writeln!(io.stdout, "\n{summary}").is_err() {
            return 1;
        }
        status
    }
}

// ---------------------------------------------------------------------------------------
// date, whoami, which, clear

/// (year, month, day) of a day count since 1970-01-01 (Howard Hinnant's algorithm).
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// Format `secs` since the epoch (UTC) with strftime-style `fmt`.
pub fn format_time(secs: i64, nanos: u32, fmt: &str) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let days = secs.div_euclid(86_400);
    let tod = secs.rem_euclid(86_400);
    let (y, mo, d) = civil(days);
    let (h, mi, s) = (tod / 3600, tod / 60 % 60, tod % 60);
    let wd = DAYS[days.rem_euclid(7) as usize];
    let mon = MONTHS[(mo - 1) as usize];
    let yday = days - {
        // Days from the epoch to January 1st of year y.
        let mut jan1 = days - 400;
        while civil(jan1 + 1).0 < y {
            jan1 += 1;
        }
        while civil(jan1).0 >= y {
            jan1 -= 1;
        }
        jan1
    };
    let mut out = String::new();
    let mut it = fmt.chars();
    while let Some(c) = it.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('Y') => out.push_str(&y.to_string()),
            Some('y') => out.push_str(&format!("{:02}", y.rem_euclid(100))),
            Some('m') => out.push_str(&format!("{mo:02}")),
            Some('d') => out.push_str(&format!("{d:02}")),
            Some('e') => out.push_str(&format!("{d:>2}")),
            Some('H') => out.push_str(&format!("{h:02}")),
            Some('M') => out.push_str(&format!("{mi:02}")),
            Some('S') => out.push_str(&format!("{s:02}")),
            Some('N') => out.push_str(&format!("{nanos:09}")),
            Some('s') => out.push_str(&secs.to_string()),
            Some('F') => out.push_str(&format!("{y}-{mo:02}-{d:02}")),
            Some('T') => out.push_str(&format!("{h:02}:{mi:02}:{s:02}")),
            Some('a') => out.push_str(wd),
            Some('b') | Some('h') => out.push_str(mon),
            Some('j') => out.push_str(&format!("{yday:03}")),
            Some('Z') => out.push_str("UTC"),
            Some('z') => out.push_str("+0000"),
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('%') => out.push('%'),
            Some(x) => {
                out.push('%');
                out.push(x);
            }
            None => out.push('%'),
        }
    }
    out
}

/// `date [-u] [-d @SECONDS] [+FORMAT]`, always in UTC.
pub struct Date;

impl Builtin for Date {
    fn name(&self) -> &'static str {
        "date"
    }
    fn usage(&self) -> &'static str {
        "date [-u] [-d @SECONDS] [+FORMAT]"
    }
    fn example(&self) -> Example {
        Example {
            args: &["-d", "@0", "+%F"],
            stdin: "",
            stdout: "1970-01-01\n",
            status: 0,
        }
    }
    fn run(&self, args: &[String], io: &mut Io<'_>, _cx: &Cx<'_>) -> i32 {
        let o = match parse_opts(args, "uR", "d") {
            Ok(o) => o,
            Err(m) => return usage_error(io, self, &m),
        };
        let (secs, nanos) = match o.last('d') {
            Some(v) => match v.strip_prefix('@').and_then(|n| n.parse::<i64>().ok()) {
                Some(n) => (n, 0),
                None => {
                    let _ = writeln!(io.stderr, "date: invalid date '{v}' (only @SECONDS)");
                    return 1;
                }
            },
            None => {
                let now = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .unwrap_or_default();
                (now.as_secs() as i64, now.subsec_nanos())
            }
        };
        let mut fmt = "%a %b %e %H:%M:%S %Z %Y".to_string();
        for op in &o.operands {
            match op.strip_prefix('+') {
                Some(f) => fmt = f.to_string(),
                None => {
                    let _ = writeln!(io.stderr, "date: invalid date '{op}'");
                    return 1;
                }
            }
        }
        if writeln!(io.stdout, "{}", format_time(secs, nanos, &fmt)).is_err() {
            return 1;
        }
        0
    }
}

/// `whoami`: always `ultra`.
pub struct Whoami;

impl Builtin for Whoami {
    fn name(&self) -> &'static str {
        "whoami"
    }
    fn usage(&self) -> &'static str {
        "whoami"
    }
    fn example(&self) -> Example {
        Example {
            args: &[],
            stdin: "",
            stdout: "ultra\n",
            status: 0,
        }
    }
    fn run(&self, _: &[String], io: &mut Io<'_>, _: &Cx<'_>) -> i32 {
        i32::from(writeln!(io.stdout, "ultra").is_err())
    }
}

/// `which NAME...`: `NAME: shell built-in` for built-ins; status 1 if any is not one.
pub struct Which;

impl Builtin for Which {
    fn name(&self) -> &'static str {
        "which"
    }
    fn usage(&self) -> &'static str {
        "which NAME..."
    }
    fn example(&self) -> Example {
        Example {
            args: &["cat"],
            stdin: "",
            stdout: "cat: shell built-in\n",
            status: 0,
        }
    }
    fn run(&self, args: &[String], io: &mut Io<'_>, _: &Cx<'_>) -> i32 {
        let mut status = 0;
        for a in args {
            if a == "cd" || super::lookup(a).is_some() {
                if writeln!(io.stdout, "{a}: shell built-in").is_err() {
                    return 1;
                }
            } else {
                status = 1;
            }
        }
        status
    }
}

/// `clear`: home the cursor and clear the screen.
pub struct Clear;

impl Builtin for Clear {
    fn name(&self) -> &'static str {
        "clear"
    }
    fn usage(&self) -> &'static str {
        "clear"
    }
    fn example(&self) -> Example {
        Example {
            args: &[],
            stdin: "",
            stdout: "\x1b[H\x1b[2J",
            status: 0,
        }
    }
    fn run(&self, _: &[String], io: &mut Io<'_>, _: &Cx<'_>) -> i32 {
        i32::from(io.stdout.write_all(b"\x1b[H\x1b[2J").is_err())
    }
}

// ---------------------------------------------------------------------------------------
// diff

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Same,
    Del,
    Add,
}

/// The edit script turning `a` into `b` (longest common subsequence; deletions before
/// insertions within a change).
fn edit_script(a: &[String], b: &[String]) -> Vec<Op> {
    let pre = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suf = a[pre..]
        .iter()
        .rev()
        .zip(b[pre..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (ma, mb) = (&a[pre..a.len() - suf], &b[pre..b.len() - suf]);
    let mut ops = vec![Op::Same; pre];
    let (n, m) = (ma.len(), mb.len());
    if n.saturating_mul(m) > 40_000_000 {
        ops.extend(std::iter::repeat_n(Op::Del, n));
        ops.extend(std::iter::repeat_n(Op::Add, m));
    } else {
        // l[i][j]: LCS length of ma[i..] and mb[j..].
        let w = m + 1;
        let mut l = vec![0u32; (n + 1) * w];
        for i in (0..n).rev() {
            for j in (0..m).rev() {
                l[i * w + j] = if ma[i] == mb[j] {
                    l[(i + 1) * w + j + 1] + 1
                } else {
                    l[(i + 1) * w + j].max(l[i * w + j + 1])
                };
            }
        }
        let (mut i, mut j) = (0, 0);
        while i < n || j < m {
            if i < n && j < m && ma[i] == mb[j] {
                ops.push(Op::Same);
                i += 1;
                j += 1;
            } else if j == m || (i < n && l[(i + 1) * w + j] >= l[i * w + j + 1]) {
                ops.push(Op::Del);
                i += 1;
            } else {
                ops.push(Op::Add);
                j += 1;
            }
        }
    }
    ops.extend(std::iter::repeat_n(Op::Same, suf));
    ops
}

/// Lines with their terminators (the last may have none).
fn split_lines(s: &str) -> Vec<String> {
    s.split_inclusive('\n').map(str::to_string).collect()
}

fn push_line(out: &mut String, mark: &str, line: &str) {
    out.push_str(mark);
    match line.strip_suffix('\n') {
        Some(l) => {
            out.push_str(l);
            out.push('\n');
        }
        None => {
            out.push_str(line);
            out.push_str("\n\\ No newline at end of file\n");
        }
    }
}

fn range(start: usize, len: usize) -> String {
    // `start` is 1-based; an empty range names the line before it.
    if len <= 1 {
        format!("{}", if len == 0 { start - 1 } else { start })
    } else {
        format!("{start},{}", start + len - 1)
    }
}

/// Runs of changes: (a start, a len, b start, b len), 0-based.
fn hunks(ops: &[Op]) -> Vec<(usize, usize, usize, usize)> {
    let mut out = Vec::new();
    let (mut i, mut j, mut k) = (0, 0, 0);
    while k < ops.len() {
        if ops[k] == Op::Same {
            i += 1;
            j += 1;
            k += 1;
            continue;
        }
        let (si, sj) = (i, j);
        while k < ops.len() && ops[k] != Op::Same {
            if ops[k] == Op::Del {
                i += 1;
            } else {
                j += 1;
            }
            k += 1;
        }
        out.push((si, i - si, sj, j - sj));
    }
    out
}

fn normal_diff(a: &[String], b: &[String], ops: &[Op]) -> String {
    let mut out = String::new();
    for (ai, al, bi, bl) in hunks(ops) {
        let kind = match (al, bl) {
            (_, 0) => 'd',
            (0, _) => 'a',
            _ => 'c',
        };
        let ar = if al == 0 {
            ai.to_string()
        } else {
            range(ai + 1, al)
        };
        let br = if bl == 0 {
            bi.to_string()
        } else {
            range(bi + 1, bl)
        };
        out.push_str(&format!("{ar}{kind}{br}\n"));
        for l in &a[ai..ai + al] {
            push_line(&mut out, "< ", l);
        }
        if kind == 'c' {
            out.push_str("---\n");
        }
        for l in &b[bi..bi + bl] {
            push_line(&mut out, "> ", l);
        }
    }
    out
}

fn unified_diff(a: &[String], b: &[String], ops: &[Op], ctx: usize) -> String {
    // Positions of each op in a and b.
    let mut pos = Vec::with_capacity(ops.len());
    let (mut i, mut j) = (0, 0);
    for op in ops {
        pos.push((i, j));
        match op {
            Op::Same => {
                i += 1;
                j += 1;
            }
            Op::Del => i += 1,
            Op::Add => j += 1,
        }
    }
    let changed: Vec<usize> = (0..ops.len()).filter(|&k| ops[k] != Op::Same).collect();
    let mut out = String::new();
    let mut c = 0;
    while c < changed.len() {
        let start = changed[c].saturating_sub(ctx);
        let mut end = changed[c];
        while c < changed.len() && changed[c] <= end + 2 * ctx + 1 {
            end = changed[c];
            c += 1;
        }
        let stop = (end + ctx + 1).min(ops.len());
        let (a0, b0) = pos[start];
        let al = ops[start..stop].iter().filter(|o| **o != Op::Add).count();
        let bl = ops[start..stop].iter().filter(|o| **o != Op::Del).count();
        let hr = |s: usize, l: usize| {
            if l == 1 {
                format!("{}", s + 1)
            } else if l == 0 {
                format!("{s},0")
            } else {
                format!("{},{l}", s + 1)
            }
        };
        out.push_str(&format!("@@ -{} +{} @@\n", hr(a0, al), hr(b0, bl)));
        for k in start..stop {
            let (x, y) = pos[k];
            match ops[k] {
                Op::Same => push_line(&mut out, " ", &a[x]),
                Op::Del => push_line(&mut out, "-", &a[x]),
                Op::Add => push_line(&mut out, "+", &b[y]),
            }
        }
    }
    out
}

/// `diff [-u] [-U N] FILE1 FILE2`: normal or unified output; status 0 same, 1 different,
/// 2 trouble.
pub struct Diff;

impl Diff {
    fn load(io: &mut Io<'_>, cx: &Cx<'_>, p: &str) -> Result<(String, String), String> {
        let stamp = |ns: u128| {
            let secs = (ns / 1_000_000_000) as i64;
            format_time(
                secs,
                (ns % 1_000_000_000) as u32,
                "%Y-%m-%d %H:%M:%S.%N +0000",
            )
        };
        if p == "-" {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default();
            let text = read_all(io.stdin).map_err(|e| e.to_string())?;
            return Ok((text, stamp(now.as_nanos())));
        }
        let m = cx.fs.stat(cx.cwd, p).map_err(|e| e.to_string())?;
        if m.kind == Kind::Dir {
            return Err("is a directory (directory comparison is not supported)".into());
        }
        let mut f = cx.fs.open_read(cx.cwd, p).map_err(|e| e.to_string())?;
        let text = read_all(&mut f).map_err(|e| e.to_string())?;
        Ok((text, stamp(m.mtime_ns)))
    }
}

impl Builtin for Diff {
    fn name(&self) -> &'static str {
        "diff"
    }
    fn usage(&self) -> &'static str {
        "diff [-u] [-U N] [-q] FILE1 FILE2"
    }
    fn example(&self) -> Example {
        Example {
            args: &["f.txt", "f.txt"],
            stdin: "",
            stdout: "",
            status: 0,
        }
    }
    fn run(&self, args: &[String], io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
        let o = match parse_opts(args, "uq", "U") {
            Ok(o) => o,
            Err(m) => return usage_error(io, self, &m),
        };
        if o.operands.len() != 2 {
            return usage_error(io, self, "expects two files");
        }
        let ctx = match o.last('U').map(str::parse::<usize>) {
            None => 3,
            Some(Ok(n)) => n,
            Some(Err(_)) => return usage_error(io, self, "invalid context length"),
        };
        let unified = o.has('u') || o.last('U').is_some();
        let (p1, p2) = (&o.operands[0], &o.operands[1]);
        let mut texts = Vec::new();
        for p in [p1, p2] {
            match Self::load(io, cx, p) {
                Ok(t) => texts.push(t),
                Err(e) => {
                    complain(io, "diff", p, e);
                    return 2;
                }
            }
        }
        if texts[0].0 == texts[1].0 {
            return 0;
        }
        if o.has('q') {
            let _ = writeln!(io.stdout, "Files {p1} and {p2} differ");
            return 1;
        }
        let (a, b) = (split_lines(&texts[0].0), split_lines(&texts[1].0));
        let ops = edit_script(&a, &b);
        let text = if unified {
            format!(
                "--- {p1}\t{}\n+++ {p2}\t{}\n{}",
                texts[0].1,
                texts[1].1,
                unified_diff(&a, &b, &ops, ctx)
            )
        } else {
            normal_diff(&a, &b, &ops)
        };
        if io.stdout.write_all(text.as_bytes()).is_err() {
            return 2;
        }
        1
    }
}

// ---------------------------------------------------------------------------------------
// xargs

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
        if a.len() == 2 && matches!(last, 'n' | 'I' | 'd' | 'L') && i < args.len() {
            i += 1;
        }
    }
    i
}

/// `xargs [-0] [-n N] [-I R] [COMMAND [ARG...]]`: run a built-in (default `echo`) with
/// arguments read from stdin; never starts a process.
pub struct Xargs;

impl Builtin for Xargs {
    /// `xargs rm` is as risky as `rm`: judged by the command it runs, whatever the input.
    fn risk(&self, args: &[String]) -> Risk {
        args.get(command_start(args))
            .and_then(|name| crate::builtins::lookup(name))
            .map_or(Risk::READ, |b| b.max_risk())
    }
    fn max_risk(&self) -> Risk {
        Risk::OVERWRITE
    }
    fn name(&self) -> &'static str {
        "xargs"
    }
    fn usage(&self) -> &'static str {
        "xargs [-0] [-r] [-n N] [-I R] [COMMAND [ARG...]]"
    }
    fn example(&self) -> Example {
        Example {
            args: &["echo"],
            stdin: "a b\n",
            stdout: "a b\n",
            status: 0,
        }
    }
    fn run(&self, args: &[String], io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
        // Options end at the first operand: the rest is the command.
        let i = command_start(args);
        let o = match parse_opts(&args[..i], "0rtx", "nIdL") {
            Ok(o) => o,
            Err(m) => return usage_error(io, self, &m),
        };
        let cmd: Vec<String> = if i < args.len() {
            args[i..].to_vec()
        } else {
            vec!["echo".to_string()]
        };
        let Some(builtin) = super::lookup(&cmd[0]) else {
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
            Some(_) => return usage_error(io, self, "invalid number for -n"),
        };
        let input = match read_all(io.stdin) {
            Ok(s) => s,
            Err(e) => {
                let _ = writeln!(io.stderr, "xargs: read error: {e}");
                return 1;
            }
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
                Ok(w) => w,
                Err(m) => {
                    let _ = writeln!(io.stderr, "xargs: {m}");
                    return 1;
                }
            }
        };
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
            for chunk in items.chunks(per.min(items.len())) {
                let mut a = cmd[1..].to_vec();
                a.extend(chunk.iter().cloned());
                calls.push(a);
            }
        }
        let mut status = 0;
        for a in calls {
            let mut empty = std::io::empty();
            let mut sub = Io {
                stdin: &mut empty,
                stdout: &mut *io.stdout,
                stderr: &mut *io.stderr,
            };
            let s = builtin.run(&a, &mut sub, cx);
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::fs::ShellFs;

    fn lines(s: &str) -> Vec<String> {
        split_lines(s)
    }

    #[test]
    fn normal_diff_formats() {
        let (a, b) = (lines("a\nb\nc\nd\n"), lines("a\nx\nc\nd\ne\n"));
        let ops = edit_script(&a, &b);
        assert_eq!(normal_diff(&a, &b, &ops), "2c2\n< b\n---\n> x\n4a5\n> e\n");
        let (a, b) = (lines("a\nb\nc\n"), lines("c\n"));
        let ops = edit_script(&a, &b);
        assert_eq!(normal_diff(&a, &b, &ops), "1,2d0\n< a\n< b\n");
        let (a, b) = (lines("a"), lines("a\n"));
        let ops = edit_script(&a, &b);
        assert_eq!(
            normal_diff(&a, &b, &ops),
            "1c1\n< a\n\\ No newline at end of file\n---\n> a\n"
        );
    }

    #[test]
    fn unified_hunks() {
        let a = lines("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n");
        let b = lines("1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n");
        let ops = edit_script(&a, &b);
        assert_eq!(
            unified_diff(&a, &b, &ops, 3),
            "@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"
        );
        let (a, b) = (lines(""), lines("x\n"));
        let ops = edit_script(&a, &b);
        assert_eq!(unified_diff(&a, &b, &ops, 3), "@@ -0,0 +1 @@\n+x\n");
    }

    #[test]
    fn dates() {
        assert_eq!(
            format_time(0, 0, "%F %T %a %j"),
            "1970-01-01 00:00:00 Thu 001"
        );
        assert_eq!(
            format_time(1_700_000_000, 0, "%Y%m%d %H%M%S %s %b %e"),
            "20231114 221320 1700000000 Nov 14"
        );
        assert_eq!(format_time(951_782_400, 0, "%F %j"), "2000-02-29 060");
    }

    #[test]
    fn xargs_splitting() {
        assert_eq!(
            xargs_words("a 'b c' \"d\"\\ e\n f").unwrap(),
            vec!["a", "b c", "d e", "f"]
        );
    }

    #[test]
    fn options() {
        let args: Vec<String> = ["-la", "x", "-n", "3", "--", "-y"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let o = parse_opts(&args, "la", "n").unwrap();
        assert!(o.has('l') && o.has('a'));
        assert_eq!(o.last('n'), Some("3"));
        assert_eq!(o.operands, vec!["x", "-y"]);
        assert_eq!(base_name("a/b/"), "b");
        assert_eq!(ShellFs::join(&Default::default(), "x"), "x");
    }
}
