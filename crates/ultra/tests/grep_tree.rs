//! `grep -r` over random trees against GNU grep. The walk, the parallel search and the
//! ordered printing are what is under test, so the trees are big enough for many chunks of
//! files (and for the printer's window to fill), with names that sort differently per
//! directory than as whole paths (`a`, `a.txt`, `a-b`), binary files, files longer than the
//! first block, files without a final newline, symlinks and FIFOs.
//!
//! The oracle is GNU grep given the walk's files explicitly, in Ultra's order (per
//! directory, names in byte order; GNU grep's own `-r` follows readdir order).

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code

mod common;

use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::Command;

use common::Ws;

/// A small deterministic generator (xorshift), so a failing seed can be replayed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len() as u64) as usize]
    }
}

const NAMES: &[&str] = &[
    "a", "a.txt", "a-b", "B", "b.rs", "c.rs", "z", "_x", "a b", "é.rs",
];
const WORDS: &[&str] = &["alpha", "needle", "beta", "gamma", "needles", "Needle", "x"];

/// A line of text: mostly words, now and then the pattern.
fn line(rng: &mut Rng) -> String {
    let n = 1 + rng.below(6);
    (0..n)
        .map(|_| rng.pick(WORDS))
        .collect::<Vec<_>>()
        .join(" ")
}

fn contents(rng: &mut Rng) -> Vec<u8> {
    let mut out = Vec::new();
    match rng.below(10) {
        0 => {}
        1 => {
            // Binary: a NUL in the first block, matches before and after it.
            out.extend_from_slice(b"needle\0bin\nmore needle\n");
        }
        2 => {
            // Longer than the 64 KiB first block, with matches on both sides of the edge.
            while out.len() < 70_000 + rng.below(70_000) as usize {
                out.extend_from_slice(line(rng).as_bytes());
                out.push(b'\n');
            }
        }
        _ => {
            for _ in 0..rng.below(12) {
                out.extend_from_slice(line(rng).as_bytes());
                out.push(b'\n');
            }
            if rng.below(4) == 0 {
                out.extend_from_slice(b"needle without newline");
            }
        }
    }
    out
}

/// Fill `dir` with a random tree of at most `budget` files.
fn grow(rng: &mut Rng, dir: &Path, depth: u32, budget: &mut u32) {
    let entries = 3 + rng.below(12);
    for i in 0..entries {
        if *budget == 0 {
            return;
        }
        let name = format!(
            "{}{}",
            rng.pick(NAMES),
            if i % 3 == 0 {
                String::new()
            } else {
                i.to_string()
            }
        );
        let path = dir.join(&name);
        if path.exists() {
            continue;
        }
        if depth < 4 && rng.below(4) == 0 {
            std::fs::create_dir(&path).unwrap();
            grow(rng, &path, depth + 1, budget);
        } else {
            std::fs::write(&path, contents(rng)).unwrap();
            *budget -= 1;
        }
    }
}

/// The files a walk of `dir` visits, in Ultra's order, as paths under `base`.
fn walk_order(base: &Path, rel: &str, out: &mut Vec<String>) {
    let mut names: Vec<_> = std::fs::read_dir(base.join(rel))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    for name in names {
        let sub = format!("{rel}/{name}");
        let meta = std::fs::symlink_metadata(base.join(&sub)).unwrap();
        if meta.is_dir() {
            walk_order(base, &sub, out);
        } else if meta.is_file() {
            out.push(sub);
        }
    }
}

/// Flags tried on every tree (each with `-r` on Ultra's side).
const FLAG_SETS: &[&[&str]] = &[
    &["-n"],
    &["-c"],
    &["-l"],
    &["-L"],
    &["-nw"],
    &["-in"],
    &["-n", "-A1", "-B2"],
    &["-h", "-C1"],
    &["-o", "-b"],
    &["-m1", "-n"],
    &["-v", "-c"],
    &["-n", "--include=*.rs"],
    &["-l", "--exclude=a*"],
];

#[test]
fn grep_r_matches_gnu_grep_over_random_trees() {
    for seed in 1..=6u64 {
        let ws = Ws::new();
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ (seed * 0x2545_F491_4F6C_DD1D));
        let top = ws.root.join("t");
        std::fs::create_dir(&top).unwrap();
        let mut budget = 300 + rng.below(500) as u32;
        grow(&mut rng, &top, 0, &mut budget);
        // Never followed or read by a walk.
        symlink("..", top.join("up")).unwrap();
        symlink("a.txt", top.join("zz-link")).unwrap();
        assert!(
            Command::new("mkfifo")
                .arg(top.join("fifo"))
                .status()
                .unwrap()
                .success()
        );
        let mut files = Vec::new();
        walk_order(&ws.root, "t", &mut files);
        for flags in FLAG_SETS {
            let script = format!("grep -r {} needle t", flags.join(" "));
            let mine = ws.cli(&["sh", &script]);
            // Exclusions apply to what the walk visits; give GNU grep that list.
            let listed: Vec<&String> = files
                .iter()
                .filter(|f| {
                    let base = f.rsplit('/').next().unwrap();
                    let left_out = (flags.contains(&"--include=*.rs") && !base.ends_with(".rs"))
                        || (flags.contains(&"--exclude=a*") && base.starts_with('a'));
                    !left_out
                })
                .collect();
            let gnu = Command::new("grep")
                .args(flags.iter().filter(|f| !f.starts_with("--")))
                .arg("-H")
                .args(if flags.contains(&"-h") {
                    vec!["-h"]
                } else {
                    vec![]
                })
                .arg("needle")
                .args(&listed)
                .current_dir(&ws.root)
                .env("LC_ALL", "C")
                .output()
                .unwrap();
            let theirs = String::from_utf8_lossy(&gnu.stdout);
            let mine_out = mine.stdout();
            if (mine_out.as_str(), mine.code()) != (&*theirs, gnu.status.code().unwrap()) {
                // Name the first file the answers disagree on, with its start.
                let first = mine_out
                    .lines()
                    .zip(theirs.lines())
                    .find(|(a, b)| a != b)
                    .map(|(a, _)| a.split(':').next().unwrap().to_string());
                let start = first.as_ref().map(|f| {
                    let bytes = std::fs::read(ws.root.join(f)).unwrap_or_default();
                    format!(
                        "{:?}",
                        String::from_utf8_lossy(&bytes[..bytes.len().min(300)])
                    )
                });
                panic!(
                    "seed {seed}, `{script}` ({} files) differs from GNU grep (status {} vs {:?}); \
                     first differing file {first:?} starts {start:?}\nultra:\n{mine_out}\ngnu:\n{theirs}",
                    listed.len(),
                    mine.code(),
                    gnu.status.code()
                );
            }
        }
    }
}

#[test]
fn grep_r_stops_early_and_keeps_order_when_output_is_cut() {
    let ws = Ws::new();
    let mut rng = Rng(0xDEAD_BEEF);
    let top = ws.root.join("t");
    std::fs::create_dir(&top).unwrap();
    let mut budget = 800;
    grow(&mut rng, &top, 0, &mut budget);
    let full = ws.cli(&["sh", "grep -rn needle t"]).stdout();
    assert!(full.lines().count() > 200, "the tree should match often");
    // `-q` and a closed pipe end the walk; what was printed is the start of the full answer.
    assert_eq!(ws.cli(&["sh", "grep -rq needle t"]).code(), 0);
    let head = ws.cli(&["sh", "grep -rn needle t | head -n 7"]).stdout();
    let want: String = full.lines().take(7).map(|l| format!("{l}\n")).collect();
    assert_eq!(head, want);
    let first = ws.cli(&["sh", "grep -rl needle t | head -n 1"]).stdout();
    assert_eq!(
        first.lines().next(),
        full.lines().next().map(|l| l.split(':').next().unwrap())
    );
}
