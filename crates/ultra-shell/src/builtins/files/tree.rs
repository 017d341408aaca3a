//! `tree`.

use ultra_workspace::root::Kind;

use crate::command::{Builtin, Cx, Example, Io};
use crate::opts::parse_opts;

use super::{join_user, usage_error};

/// `tree [-a] [-d] [-L N] [DIR...]`: the `tree` drawing and its final
/// `N directories, M files` line; symlinks are shown by name only.
pub static TREE: Builtin =
    Builtin::new("tree", "tree [-a] [-d] [-L N] [DIR...]", &tree).example(Example::new(
        &["src"],
        "src\n\u{2514}\u{2500}\u{2500} main.rs\n\n0 directories, 1 file\n",
    ));

struct TreeOpts {
    all: bool,
    dirs_only: bool,
    max_depth: usize,
}

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
                walk(io, cx, o, &join_user(dir, &e.name), &p, depth + 1, counts)?;
            }
        } else {
            counts.1 += 1;
        }
    }
    Ok(())
}

fn tree(args: &[String], io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
    let opts = match parse_opts(args, "ad", "L") {
        Ok(o) => o,
        Err(m) => return usage_error(io, &TREE, &m),
    };
    let max_depth = match opts.last('L').map(str::parse::<usize>) {
        None => usize::MAX,
        Some(Ok(n)) if n > 0 => n,
        Some(_) => return usage_error(io, &TREE, "invalid level, must be greater than 0"),
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
                    || walk(io, cx, &o, d, "", 1, &mut counts).is_err()
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
