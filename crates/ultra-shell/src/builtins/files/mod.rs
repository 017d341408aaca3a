//! File and system built-ins: `ls`, `mkdir`, `touch`, `rm`, `rmdir`, `cp`, `mv`, `stat`,
//! `tee`, `tree`, `date`, `whoami`, `which`, `clear`, `diff`, `xargs`.
//!
//! Every path goes through [`ShellFs`](crate::run::fs::ShellFs), so protected paths and
//! paths outside the root fail with its error before anything is touched. Differences from
//! GNU: `ls -l` prints mode, links, size and name (no owner, group or date, no `total`
//! line, no `-> target`); `touch` cannot set times, so an existing file is left as it is;
//! `tree` prints no `-> target` for symlinks; `date` is always UTC.

use ultra_workspace::root::{Kind, Meta};

use crate::command::{Builtin, Io};

/// Report a usage error (status 2).
fn usage_error(io: &mut Io<'_>, b: &Builtin, msg: &str) -> i32 {
    let _ = writeln!(io.stderr, "{}: {msg}\nusage: {}", b.name, b.usage);
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

mod cp_mv;
mod date;
mod diff;
mod ls;
mod make_remove;
mod stat;
mod system;
mod tee;
mod tree;
mod xargs;

pub use cp_mv::{CP, MV};
pub use date::{DATE, format_time};
pub use diff::DIFF;
pub use ls::LS;
pub use make_remove::{MKDIR, RM, RMDIR, TOUCH};
pub use stat::STAT;
pub use system::{CLEAR, WHICH, WHOAMI};
pub use tee::TEE;
pub use tree::TREE;
pub use xargs::XARGS;

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::opts::parse_opts;
    use crate::run::fs::ShellFs;

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
