//! The shell language through the real binary: a script's risk is judged from every
//! command in its text, wherever it sits (a branch never taken, a function, a loop's
//! redirect, a substitution, a command named by a variable), before anything runs; a
//! read-only script with the same constructs still runs.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code

mod common;

use common::Ws;
use serde_json::json;

#[test]
fn risk_counts_every_command_in_the_text_before_anything_runs() {
    let ws = Ws::new();
    ws.write("notes.txt", "a\nb\n");
    ws.write("more.txt", "c\n");
    ws.config(json!({ "policy": { "sources": { "cli": { "destructive": "deny" } } } }));
    for script in [
        "echo started; if false; then rm notes.txt; fi",
        "f() { rm notes.txt; }; echo started",
        "echo started; for f in *.txt; do wc -l \"$f\"; done > counts.txt",
        "echo started; c=rm; $c notes.txt",
        "echo started $(rm notes.txt)",
        "echo started; case x in y) sed -i 's/a/b/' notes.txt;; esac",
        "echo started; while false; do echo x > notes.txt; done",
        "echo started; ls | while read f; do rm \"$f\"; done",
    ] {
        let out = ws.cli(&["sh", script]);
        assert_eq!(out.code(), 126, "{script}: {}", out.stderr());
        assert!(
            out.stderr().contains("policy.sources.cli.destructive"),
            "{script}: {}",
            out.stderr()
        );
        assert_eq!(out.stdout(), "", "{script}: refused before it ran");
        assert_eq!(ws.read("notes.txt"), "a\nb\n", "{script}");
        assert!(!ws.exists("counts.txt"), "{script}");
    }
    // The same constructs reading only run.
    let out = ws.cli(&[
        "sh",
        "n=0; for f in *.txt; do n=$((n + $(wc -l < \"$f\"))); done; if [ $n -gt 2 ]; then echo \"$n lines\"; fi",
    ]);
    assert_eq!(out.code(), 0, "{}", out.stderr());
    assert_eq!(out.stdout(), "3 lines\n");
    let out = ws.cli(&[
        "sh",
        "count() { grep -c \"$1\" notes.txt; }; case $(count a) in 1) echo one;; *) echo many;; esac",
    ]);
    assert_eq!(out.stdout(), "one\n", "{}", out.stderr());
}

/// A write from inside a construct meets the same checks as one at the top: confinement
/// refuses a path outside the root, and nothing is written.
#[test]
fn writes_inside_constructs_stay_confined() {
    let ws = Ws::new();
    ws.write("a.txt", "x\n");
    let out = ws.cli(&[
        "sh",
        "for d in ../outside /etc; do echo hi > \"$d/f.txt\" || echo refused; done; f() { cp a.txt ../b.txt; }; f || echo refused",
    ]);
    assert_eq!(
        out.stdout(),
        "refused\nrefused\nrefused\n",
        "{}",
        out.stderr()
    );
    assert!(!ws.base().join("b.txt").exists());
}
