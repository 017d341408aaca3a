//! `diff`: normal and unified output from a longest common subsequence, optionally blind to
//! white space (`-b`, `-w`), case (`-i`) and blank-line changes (`-B`).

use ultra_workspace::root::Kind;

use crate::builtins::basic::complain;
use crate::command::{Builtin, Cx, Example, Io, read_all};
use crate::opts::parse_opts;

use super::{format_time, usage_error};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Same,
    Del,
    Add,
}

/// What lines are compared by: the line itself, or with white space or case ignored.
#[derive(Debug, Clone, Copy, Default)]
struct Blind {
    /// -b: runs of white space count as one; trailing white space does not count.
    space_change: bool,
    /// -w: white space does not count at all.
    all_space: bool,
    /// -i: case does not count.
    case: bool,
}

impl Blind {
    fn key(&self, line: &str) -> String {
        let line = line.strip_suffix('\n').unwrap_or(line);
        let mut out = String::with_capacity(line.len());
        if self.all_space {
            out.extend(line.chars().filter(|c| !c.is_whitespace()));
        } else if self.space_change {
            let mut space = false;
            for c in line.trim_end().chars() {
                if c.is_whitespace() {
                    space = true;
                } else {
                    if space {
                        out.push(' ');
                        space = false;
                    }
                    out.push(c);
                }
            }
        } else {
            out.push_str(line);
        }
        if self.case {
            out = out.to_lowercase();
        }
        out
    }
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

/// Runs of changes: (first op, a start, a len, b start, b len), 0-based.
fn hunks(ops: &[Op]) -> Vec<(usize, usize, usize, usize, usize)> {
    let mut out = Vec::new();
    let (mut i, mut j, mut k) = (0, 0, 0);
    while k < ops.len() {
        if ops[k] == Op::Same {
            i += 1;
            j += 1;
            k += 1;
            continue;
        }
        let (sk, si, sj) = (k, i, j);
        while k < ops.len() && ops[k] != Op::Same {
            if ops[k] == Op::Del {
                i += 1;
            } else {
                j += 1;
            }
            k += 1;
        }
        out.push((sk, si, i - si, sj, j - sj));
    }
    out
}

/// For -B: which changes are only blank lines added or removed (ignored), op by op.
fn blank_only(a: &[String], b: &[String], ops: &[Op]) -> Vec<bool> {
    let mut ignored = vec![false; ops.len()];
    for (k, ai, al, bi, bl) in hunks(ops) {
        let blank = a[ai..ai + al]
            .iter()
            .chain(&b[bi..bi + bl])
            .all(|l| l.trim_end_matches('\n').is_empty());
        ignored[k..k + al + bl].fill(blank);
    }
    ignored
}

/// GNU diff's normal format; changes `ignored` marks (by op; none past its end) are left out.
fn normal_diff(a: &[String], b: &[String], ops: &[Op], ignored: &[bool]) -> String {
    let mut out = String::new();
    for (k, ai, al, bi, bl) in hunks(ops) {
        if ignored.get(k).copied().unwrap_or(false) {
            continue;
        }
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

fn unified_diff(a: &[String], b: &[String], ops: &[Op], ignored: &[bool], ctx: usize) -> String {
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
    let changed: Vec<usize> = (0..ops.len())
        .filter(|&k| ops[k] != Op::Same && !ignored.get(k).copied().unwrap_or(false))
        .collect();
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

/// `diff [-bBiqwu] [-U N] FILE1 FILE2`: normal or unified output; status 0 same, 1
/// different, 2 trouble.
pub static DIFF: Builtin = Builtin::new("diff", "diff [-bBiqwu] [-U N] FILE1 FILE2", &diff)
    .example(Example::new(&["f.txt", "f.txt"], ""));

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

fn diff(args: &[String], io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
    let o = match parse_opts(args, "uqbBiw", "U") {
        Ok(o) => o,
        Err(m) => return usage_error(io, &DIFF, &m),
    };
    if o.operands.len() != 2 {
        return usage_error(io, &DIFF, "expects two files");
    }
    let ctx = match o.last('U').map(str::parse::<usize>) {
        None => 3,
        Some(Ok(n)) => n,
        Some(Err(_)) => return usage_error(io, &DIFF, "invalid context length"),
    };
    let unified = o.has('u') || o.last('U').is_some();
    let (p1, p2) = (&o.operands[0], &o.operands[1]);
    if p1 == "-" && p2 == "-" {
        // The same input both times: no difference (GNU does not read it).
        return 0;
    }
    let mut texts = Vec::new();
    for p in [p1, p2] {
        match load(io, cx, p) {
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
    let blind = Blind {
        space_change: o.has('b'),
        all_space: o.has('w'),
        case: o.has('i'),
    };
    let ops = if o.has('b') || o.has('w') || o.has('i') {
        let key = |v: &[String]| v.iter().map(|l| blind.key(l)).collect::<Vec<_>>();
        edit_script(&key(&a), &key(&b))
    } else {
        edit_script(&a, &b)
    };
    let ignored = if o.has('B') {
        blank_only(&a, &b, &ops)
    } else {
        vec![false; ops.len()]
    };
    if ops
        .iter()
        .zip(&ignored)
        .all(|(op, ignored)| *op == Op::Same || *ignored)
    {
        return 0;
    }
    let text = if unified {
        format!(
            "--- {p1}\t{}\n+++ {p2}\t{}\n{}",
            texts[0].1,
            texts[1].1,
            unified_diff(&a, &b, &ops, &ignored, ctx)
        )
    } else {
        normal_diff(&a, &b, &ops, &ignored)
    };
    if io.stdout.write_all(text.as_bytes()).is_err() {
        return 2;
    }
    1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(s: &str) -> Vec<String> {
        split_lines(s)
    }

    #[test]
    fn normal_diff_formats() {
        let (a, b) = (lines("a\nb\nc\nd\n"), lines("a\nx\nc\nd\ne\n"));
        let ops = edit_script(&a, &b);
        assert_eq!(
            normal_diff(&a, &b, &ops, &[]),
            "2c2\n< b\n---\n> x\n4a5\n> e\n"
        );
        let (a, b) = (lines("a\nb\nc\n"), lines("c\n"));
        let ops = edit_script(&a, &b);
        assert_eq!(normal_diff(&a, &b, &ops, &[]), "1,2d0\n< a\n< b\n");
        let (a, b) = (lines("a"), lines("a\n"));
        let ops = edit_script(&a, &b);
        assert_eq!(
            normal_diff(&a, &b, &ops, &[]),
            "1c1\n< a\n\\ No newline at end of file\n---\n> a\n"
        );
    }

    #[test]
    fn unified_hunks() {
        let a = lines("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n");
        let b = lines("1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n");
        let ops = edit_script(&a, &b);
        assert_eq!(
            unified_diff(&a, &b, &ops, &[], 3),
            "@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"
        );
        let (a, b) = (lines(""), lines("x\n"));
        let ops = edit_script(&a, &b);
        assert_eq!(unified_diff(&a, &b, &ops, &[], 3), "@@ -0,0 +1 @@\n+x\n");
    }
}
