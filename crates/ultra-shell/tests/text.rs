//! The text filters (`head`, `tail`, `wc`, `sort`, `uniq`, `tac`, `cut`, `tr`, `basename`,
//! `dirname`, `seq`, `printf`) run through the runtime and compared with GNU coreutils and
//! bash under `LC_ALL=C` on the same files.

#![allow(clippy::unwrap_used)]

mod common;

use std::process::Command;
use std::time::{Duration, Instant};

use common::Ws;

const CASES: &[&str] = &[
    // head
    "head -3 lines.txt",
    "head -n 2 f.txt nonl.txt",
    "head -c 5 words.txt",
    "head -n -12 lines.txt",
    "head -c -3 f.txt",
    "cat lines.txt | head -n 4",
    "head -q -n1 f.txt f.csv",
    "head -v -n1 f.txt",
    "head -n1 f.txt missing.txt",
    "head -x f.txt",
    "head -n abc f.txt",
    "head nonl.txt",
    // tail
    "tail -n 3 lines.txt",
    "tail -n +13 lines.txt",
    "tail -3 lines.txt",
    "tail -c 4 lines.txt",
    "tail -n 1 nonl.txt",
    "tail -n +2 f.csv",
    "tail -n 2 f.txt f.csv",
    "cat lines.txt | tail -2",
    "tail -c +5 f.txt",
    // wc
    "wc f.txt",
    "wc -l f.txt",
    "wc -l *.txt",
    "wc -w words.txt",
    "wc -c nonl.txt",
    "cat words.txt | wc",
    "cat words.txt | wc -l",
    "wc -lw f.txt words.txt",
    "wc f.txt missing.txt",
    "wc -m f.csv",
    // sort
    "sort f.txt",
    "sort -r f.txt",
    "sort -n nums.txt",
    "sort -rn nums.txt",
    "sort -t, -k2 -n f.csv | head -2",
    "sort -t, -k2,2n -k1,1r f.csv",
    "sort -u dup.txt",
    "sort -f mixed.txt",
    "sort -fu dup.txt",
    "sort -k2n mixed.txt",
    "sort -k2,2 -r mixed.txt",
    "sort -t: -k3,3n pw.txt",
    "sort nonl.txt f.txt",
    "sort -s -k2,2n mixed.txt",
    "sort -k1.2,1.3 mixed.txt",
    "sort -b -k2 sp.txt",
    "sort missing.txt",
    "sort -x f.txt",
    // uniq
    "uniq dup.txt",
    "uniq -c dup.txt",
    "uniq -d dup.txt",
    "uniq -u dup.txt",
    "uniq -i -c dup.txt",
    "sort mixed.txt | uniq -c",
    "cat dup.txt | uniq -cd",
    // tac
    "tac f.txt",
    "tac nonl.txt",
    "tac f.txt lines.txt | head -5",
    // cut
    "cut -d: -f1,3 pw.txt",
    "cut -d: -f1,3-4,6- pw.txt",
    "cut -d: -s -f1 pw.txt",
    "cut -c 1-3 words.txt",
    "cut -c -2,5- f.csv",
    "cut -d, -f2 f.csv | sort -n | uniq",
    "cut -d, --complement -f2 f.csv",
    "cut -d, -f1,3 --output-delimiter=' | ' f.csv",
    "cut -f1 f.txt",
    "cut f.txt",
    "cut -d: -f0 pw.txt",
    // tr
    "tr -s ' ' < words.txt",
    "tr a-z A-Z < f.csv",
    "tr '[:lower:]' '[:upper:]' < words.txt",
    "tr -d '[:digit:]' < f.csv",
    "tr -d ',\\n' < f.csv",
    "tr -c '[:alnum:]\\n' '_' < pw.txt",
    "tr -cd '[:alpha:]' < f.csv",
    "tr -s '[:space:]' '\\n' < words.txt",
    "tr abc xy < f.txt",
    "tr -ds a-c '\\n' < dup.txt",
    "echo hello | tr -s l",
    "tr '\\t' ' ' < sp.txt",
    // basename / dirname
    "basename /a/b/c.txt",
    "basename /a/b/c.txt .txt",
    "basename -a x/y z/w/",
    "basename -s .rs src/a.rs b.rs",
    "basename /",
    "basename a b c",
    "dirname /a/b/c a/b/ c / //x",
    "dirname",
    // seq
    "seq 5",
    "seq 3 7",
    "seq 1 3 10",
    "seq 10 -3 1",
    "seq -w 8 11",
    "seq -s , 1 5",
    "seq 0 0.25 1",
    "seq 1.5 3",
    "seq -w 0.5 0.5 2",
    "seq -5 -2",
    "seq -w -3 2",
    "seq 5 1",
    "seq 1 0 3",
    "seq x",
    "seq 100000000 | head -2",
    // printf
    "printf '%5.2f|%-4s|%x\\n' 3.14159 ab 255",
    "printf '%s\\n' a b c",
    "printf '%d-%d\\n' 1 2 3",
    "printf '%05d|%+d|% d|%-5d|\\n' 42 42 42 42",
    "printf '%o %X %#x %#o\\n' 8 255 255 8",
    "printf '%e %E %g %G\\n' 12345.678 0.000123 0.0001 1e20",
    "printf '%c%c\\n' hello world",
    "printf '%%|%10.3s|\\n' abcdef",
    "printf '\\101\\t\\\\ %s\\n' x",
    "printf '%b\\n' 'a\\tb' 'c\\0101'",
    "printf '%d\\n' abc",
    "printf '%i %u\\n' 0x10 -1",
    "printf '%.3d|%8.3e|%-8g|\\n' 7 1234.5 0.5",
    "printf '%s %s\\n' only",
    "printf '%*d|%-*d|\\n' 5 1 4 2",
    "printf 'no newline'",
    "printf \"%d\\n\" \"'A\"",
    "printf '%g %g %g\\n' 100000 1000000 0.00001234",
    // edge cases
    "sort -t, -k2,2 f.csv",
    "sort -k1,1 -k2,2nr mixed.txt",
    "sort -n -r -u nums.txt",
    "sort -t ab f.txt",
    "sort -k 0 f.txt",
    "head -c 0 f.txt; tail -n 0 f.txt; tail -c 100 f.txt",
    "tail -n x f.txt",
    "wc nonl.txt f.txt",
    "wc -L words.txt",
    "uniq -f1 mixed.txt",
    "uniq -s1 -c dup.txt",
    "uniq -w1 -c mixed.txt",
    "uniq missing.txt",
    "tac missing.txt",
    "cut -c3 f.csv",
    "cut -d ' ' -f2 words.txt",
    "cut -c",
    "tr -s a-z < dup.txt",
    "tr '[:upper:]' '[:lower:]' < mixed.txt",
    "tr a-c A < dup.txt",
    "tr -t abc xy < dup.txt",
    "tr 'a-c' '[x*]' < dup.txt",
    "basename ''",
    "basename -a a/ b//",
    "dirname a//b a/ ./x",
    "seq -s ' ' 3",
    "seq 1 0.1 1.3",
    "seq -w 1 0.5 3",
    "seq 0.1 0.1 0.5",
    "seq -w 5 -1 -2",
    "printf '%.2f %.0f %.0f\\n' 2.675 0.5 1.5",
    "printf '%5s|%-5c|\\n' ab x",
    "printf '%-+6d|%x\\n' 5 -1",
    "printf '%#g %g\\n' 1 -0.0",
    "printf '%s=%d\\n' a 1 b",
    "printf 'x\\n' extra",
    "printf '%s'",
    "printf '%d\\n' 9999999999999999999",
    "printf '%z\\n' 1",
    "printf '%d %s\\n' 12abc x",
    "printf -- '%s\\n' dash",
    "printf '%b|%s\\n' 'x\\cy' z",
    // issue 20 §2: the flags GNU has that were missing
    "cat -n words.txt",
    "cat -b words.txt",
    "cat -s -n words.txt f.txt",
    "cat -E nonl.txt f.txt",
    "cat -A sp.txt",
    "cat -T sp.txt",
    "printf 'a\\001\\177\\351\\tb\\n' | cat -v",
    "printf 'a\\001\\351\\n' | cat -e",
    "printf 'x\\n\\n\\n\\ny\\n' | cat -s",
    "cat -n nonl.txt nonl.txt",
    "printf 'b\\0a\\0c' | sort -z | tr '\\0' '|'",
    "sort -o sorted.txt f.txt; cat sorted.txt",
    "sort -r -o f.txt f.txt; cat f.txt",
    "printf '10K\\n2M\\n1G\\n3\\n-5K\\n0.5M\\n2k\\n\\nabc\\n' | sort -h",
    "printf '10K\\n2M\\n1G\\n3\\n' | sort -rh",
    "printf 'Feb\\nJan\\n dec x\\nxyz\\nMAY\\n\\nmarch\\n' | sort -M",
    "printf 'x Feb\\ny Jan\\nz Dec\\n' | sort -k2M",
    "echo a b STOP c | xargs -E STOP echo",
    "printf 'a\\nSTOP\\nb\\n' | xargs -ESTOP",
    "echo a b c 2>&1 | xargs -t echo 2>&1",
    "echo a b c d | xargs -s 12 echo",
    "echo a b c d e | xargs -n 2 -s 11 echo",
    "echo aaaaaaaaaaaaa | xargs -s 8 echo; echo $?",
    "printf 'a  b\\n\\nc\\n' > d1; printf 'a b\\nc\\n' > d2; diff -b d1 d2; diff -B d1 d2; diff -bB d1 d2; echo $?",
    "printf 'A  b \\nx\\n\\n\\nc\\n' > d1; printf 'a b\\nc\\n' > d2; diff -w d1 d2; diff -i d1 d2; diff -iw d1 d2; echo $?",
    "printf 'a\\n\\nb\\n' > d1; printf 'a\\nb\\n\\n' > d2; diff -B d1 d2; echo $?; diff -u -B d1 d2 | tail -n +3",
    "printf 'x\\n' | diff - -; echo $?",
    "uniq dup.txt out.txt; cat out.txt",
    "uniq -c dup.txt out.txt; cat out.txt",
    "uniq dup.txt a b; echo $?",
    "printf '%.*f|%.*s|%*.*d|\\n' -1 3.14159 -2 abcdef 5 -3 42",
    "seq -0 3",
    "seq -w -0 2",
    "seq -0 -1 -2",
    "seq -0.0 1",
    // pipelines mixing them
    "cat words.txt | tr -s ' ' '\\n' | sort | uniq -c | sort -rn | head -3",
    "seq 20 | tail -n +15 | tac | head -2",
    "cut -d, -f3 f.csv | tail -n +2 | sort -r | head -1",
];

#[test]
fn matches_gnu() {
    let has_bash = Command::new("bash").arg("-c").arg("true").status().is_ok();
    if !has_bash {
        eprintln!("bash not available; skipping the GNU comparison");
        return;
    }
    common::differential(&mut Ws::new(), CASES);
    assert!(CASES.len() >= 60);
}

#[test]
fn usage_errors() {
    let mut ws = Ws::new();
    let (_, err, st) = ws.run("head -x f.txt");
    assert_eq!(st, 1);
    assert!(err.contains("head: invalid option -- 'x'") && err.contains("Usage: head"));
    let (_, err, st) = ws.run("sort -Z f.txt");
    assert_eq!(st, 2);
    assert!(err.contains("sort: invalid option -- 'Z'"), "{err}");
    let (_, err, st) = ws.run("printf");
    assert_eq!(st, 2);
    assert!(err.contains("usage"), "{err}");
    let (_, err, st) = ws.run("tr");
    assert_eq!(st, 1);
    assert!(err.contains("missing operand"), "{err}");
}

#[test]
fn head_stops_a_big_stream_early() {
    let mut ws = Ws::new();
    let line = "0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz\n";
    let body = line.repeat(50 * 1024 * 1024 / line.len() + 1);
    std::fs::write(ws.dir.path().join("root/big"), &body).unwrap();
    drop(body);
    let t = Instant::now();
    let (out, err, st) = ws.run("cat big | head -3");
    assert_eq!(out, line.repeat(3));
    assert_eq!((err.as_str(), st), ("", 0));
    let t2 = Instant::now();
    let (out, _, _) = ws.run("head -2 big; seq 1000000000 | head -1");
    assert_eq!(out, format!("{}1\n", line.repeat(2)));
    assert!(
        t.elapsed() < Duration::from_secs(5),
        "took {:?} (second part {:?})",
        t.elapsed(),
        t2.elapsed()
    );
    // The buffering commands still work on it.
    let (out, _, st) = ws.run("tail -n 1 big; cat big | wc -l");
    assert_eq!(st, 0);
    assert!(out.starts_with(line), "{out}");
}
