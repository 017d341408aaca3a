//! `grep` on files large enough to be split across threads (16 MiB and more), against GNU
//! grep: counts must add up and printed lines come out in order, numbered and offset from
//! the start of the file, whatever lines straddle the split points, with and without a
//! final newline, in binary files (NULs end lines) and behind a UTF-8 byte-order mark.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code

mod common;

use std::process::Command;

use common::Ws;

/// About 17 MiB of lines of random words, some long, from a fixed seed.
fn big_text(seed: u64) -> Vec<u8> {
    let words = [
        "alpha", "needle", "beta", "gamma", "Needle", "x", "needles", "T12:",
    ];
    let mut state = seed;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut out = Vec::with_capacity(18 << 20);
    while out.len() < 17 << 20 {
        let n = 1 + next() % if next() % 50 == 0 { 4000 } else { 8 };
        for i in 0..n {
            if i > 0 {
                out.push(b' ');
            }
            out.extend_from_slice(words[(next() % words.len() as u64) as usize].as_bytes());
        }
        out.push(b'\n');
    }
    out
}

const SCRIPT: &str = "for f in plain.txt noeol.txt binary.bin bom.txt; do
  grep -c needle $f; echo \"status $?\"
  grep -vc needle $f
  grep -ci 'NEEDLE$' $f
  grep -cx needle $f
  grep -cw needle $f
  grep -cE '^T12:.*needles' $f
  grep -c 'zzz-absent' $f; echo \"status $?\"
  grep -l needle $f
  grep -L needle $f; echo \"status $?\"
  grep -q needles $f; echo \"status $?\"
done
grep -c needle plain.txt noeol.txt
grep -c '.' binary.bin";

/// The four files, written into `ws`.
fn write_files(ws: &Ws) {
    let plain = big_text(0x1234_5678_9ABC_DEF1);
    std::fs::write(ws.root.join("plain.txt"), &plain).unwrap();
    let mut noeol = big_text(0x0F0F_F0F0_1357_2468);
    noeol.extend_from_slice(b"needle at the end without newline");
    std::fs::write(ws.root.join("noeol.txt"), &noeol).unwrap();
    // A NUL in the first block makes it binary; NULs later split lines too.
    let mut binary = b"needle\0x\0\0needle needles\n".to_vec();
    let mut rest = big_text(0x1111_2222_3333_4444);
    for i in (1000..rest.len()).step_by(7919) {
        rest[i] = 0;
    }
    binary.extend_from_slice(&rest);
    std::fs::write(ws.root.join("binary.bin"), &binary).unwrap();
    let mut bom = b"\xEF\xBB\xBFneedle first\n".to_vec();
    bom.extend_from_slice(&big_text(0x5555_6666_7777_8888));
    std::fs::write(ws.root.join("bom.txt"), &bom).unwrap();
}

/// `ultra sh SCRIPT` with a deadline a debug build meets on these files.
fn ultra_sh(ws: &Ws, script: &str) -> std::process::Output {
    let mut cmd = ws.command();
    cmd.args(["sh", script]).stdin(std::process::Stdio::null());
    common::run_within(cmd, std::time::Duration::from_secs(300))
}

#[test]
fn counts_on_large_files_match_gnu_grep() {
    let ws = Ws::new();
    write_files(&ws);

    let mine = ultra_sh(&ws, SCRIPT);
    let gnu = Command::new("bash")
        .arg("-c")
        .arg(SCRIPT)
        .current_dir(&ws.root)
        .env("LC_ALL", "C")
        .output()
        .unwrap();
    let theirs = String::from_utf8_lossy(&gnu.stdout);
    let mine_out = String::from_utf8_lossy(&mine.stdout).into_owned();
    for (i, (a, b)) in mine_out.lines().zip(theirs.lines()).enumerate() {
        assert_eq!(
            a,
            b,
            "line {} of the answers differs\nultra:\n{mine_out}\ngnu:\n{theirs}",
            i + 1
        );
    }
    assert_eq!(
        mine_out.lines().count(),
        theirs.lines().count(),
        "ultra:\n{mine_out}\ngnu:\n{theirs}"
    );
    assert_eq!(
        mine.status.code(),
        gnu.status.code(),
        "{}",
        String::from_utf8_lossy(&mine.stderr)
    );
}

#[test]
fn printed_lines_of_large_files_match_gnu_grep() {
    let ws = Ws::new();
    write_files(&ws);
    for args in [
        &["-n", "needle", "plain.txt"][..],
        &["-vnb", "needle", "noeol.txt"],
        &["-on", "needles$", "bom.txt"],
        &["-n", "needle", "binary.bin"],
        &["-H", "-E", "^T12:.*needles", "plain.txt"],
    ] {
        let quoted: Vec<String> = args.iter().map(|a| format!("'{a}'")).collect();
        let script = format!("grep {}", quoted.join(" "));
        let mine = ultra_sh(&ws, &script);
        let gnu = Command::new("grep")
            .args(args)
            .current_dir(&ws.root)
            .env("LC_ALL", "C")
            .output()
            .unwrap();
        assert!(
            !gnu.stdout.is_empty() || args[2] == "binary.bin",
            "{script}: GNU grep printed nothing"
        );
        let first_diff = mine
            .stdout
            .iter()
            .zip(&gnu.stdout)
            .position(|(a, b)| a != b);
        assert!(
            mine.stdout == gnu.stdout,
            "`{script}`: {} bytes vs GNU's {}, first difference at byte {first_diff:?}",
            mine.stdout.len(),
            gnu.stdout.len()
        );
        assert_eq!(mine.status.code(), gnu.status.code(), "{script}");
        assert_eq!(
            String::from_utf8_lossy(&mine.stderr),
            String::from_utf8_lossy(&gnu.stderr),
            "{script}"
        );
    }
}
