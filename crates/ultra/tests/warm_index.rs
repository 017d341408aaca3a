//! A warm `ultra index` against a model: whatever happened to the tree since the last run
//! (files written, rewritten with the same content or the same size, deleted, a one-shot
//! query that saved to the store, a file too big to index), its summary must be what a cold
//! index of the same tree reports, and a run on a tree unchanged since the last one must
//! parse nothing.

#![allow(clippy::unwrap_used)]

mod common;

use common::{Rng, Ws};
use serde_json::{Value, json};

const MODULES: usize = 6;

/// A module of `pkg` with some functions (one-digit names, so a rename keeps the size)
/// and some imports of its siblings.
fn module(rng: &mut Rng) -> String {
    let mut text = String::new();
    for m in 0..MODULES {
        if rng.below(3) == 0 {
            text.push_str(&format!("from pkg import m{m}\n"));
        }
    }
    for f in 0..1 + rng.below(5) {
        text.push_str(&format!("def f{}():\n    return {f}\n", rng.below(10)));
    }
    text
}

/// What a summary says of the tree (not how long it took).
fn totals(summary: &Value) -> Value {
    json!({
        "files": summary["files"], "skipped": summary["skipped"],
        "definitions": summary["definitions"], "references": summary["references"],
        "imports": summary["imports"], "dependencyEdges": summary["dependencyEdges"],
    })
}

fn index(ws: &Ws, args: &[&str], state: Option<&std::path::Path>) -> Value {
    let mut all = vec!["index", "--json-summary"];
    all.extend_from_slice(args);
    let out = ws.cli_with(&all, |cmd| {
        if let Some(s) = state {
            cmd.env("XDG_STATE_HOME", s);
        }
    });
    out.ok();
    out.json().pop().unwrap()
}

#[test]
fn a_warm_index_reports_what_a_cold_one_would() {
    for seed in [7, 1_000_003] {
        run(seed);
    }
}

fn run(seed: u64) {
    let ws = Ws::new();
    let oracle_state = ws.base().join("oracle-state");
    let mut rng = Rng(seed);
    ws.write("pkg/__init__.py", "");
    for m in 0..MODULES {
        ws.write(&format!("pkg/m{m}.py"), &module(&mut rng));
    }
    ws.write("src/lib.rs", "pub fn top() {}\n");
    let mut big_added = false;
    for step in 0..14 {
        let ops = 1 + rng.below(3);
        let mut log = Vec::new();
        for _ in 0..ops {
            let rel = format!("pkg/m{}.py", rng.below(MODULES));
            match (rng.below(7), ws.exists(&rel)) {
                (0 | 1, _) => {
                    ws.write(&rel, &module(&mut rng));
                    log.push(format!("write {rel}"));
                }
                (2, true) => {
                    // The same content again: the stamp moves, nothing else.
                    let same = ws.read(&rel);
                    ws.write(&rel, &same);
                    log.push(format!("rewrite {rel}"));
                }
                (3, true) => {
                    // The same size, other content: only the stamp's time tells.
                    let text = ws.read(&rel);
                    let renamed = text.replacen("def f", "def g", 1);
                    ws.write(&rel, &renamed);
                    log.push(format!("rename a function in {rel}"));
                }
                (4, true) => {
                    std::fs::remove_file(ws.path(&rel)).unwrap();
                    log.push(format!("delete {rel}"));
                }
                (2..=4, false) => {}
                (5, _) => {
                    // A one-shot query refreshes the index and saves to the store.
                    let out = ws.cli(&[
                        "-c",
                        "code.findDefinition",
                        "-a",
                        r#"{"symbol": "top"}"#,
                        "--json",
                    ]);
                    out.ok();
                    log.push("one-shot query".into());
                }
                _ if !big_added => {
                    big_added = true;
                    ws.write("pkg/big.py", &"x = 1\n".repeat(800_000));
                    log.push("a file too big to index".into());
                }
                _ => {}
            }
        }
        // Now and then the tree rests past the clock tick a stamp can hide a write in.
        let rested = rng.below(2) == 0;
        if rested {
            std::thread::sleep(std::time::Duration::from_millis(40));
        }
        let warm = index(&ws, &[], None);
        let cold = index(&ws, &["--cold"], Some(&oracle_state));
        let context = format!("seed {seed}, step {step}: {log:?}");
        assert_eq!(totals(&warm), totals(&cold), "{context}");
        let again = index(&ws, &[], None);
        assert_eq!(totals(&again), totals(&cold), "{context}, run again");
        if rested {
            assert_eq!(again["parsed"], 0, "{context}, run again: {again}");
        }
    }
}

/// A warm run on an unchanged tree answers from the store's totals without loading the
/// index: it parses nothing and says so, and a change after it is seen again.
#[test]
fn an_unchanged_tree_is_checked_not_loaded() {
    let ws = Ws::new();
    ws.write("a.py", "def one():\n    pass\n");
    ws.write("b.py", "from a import one\n\ndef two():\n    one()\n");
    std::thread::sleep(std::time::Duration::from_millis(40));
    let cold = index(&ws, &["--cold"], None);
    assert_eq!(cold["parsed"], 2, "{cold}");
    assert_eq!(cold["definitions"], 2, "{cold}");
    assert_eq!(cold["dependencyEdges"], 1, "{cold}");
    let warm = index(&ws, &[], None);
    assert_eq!(warm["parsed"], 0, "{warm}");
    assert_eq!(totals(&warm), totals(&cold));
    let text = ws.cli(&["index"]).ok();
    assert!(
        text.starts_with("indexed 2 files (0 parsed now, 0 skipped)"),
        "{text}"
    );
    assert!(
        text.contains("2 definitions") && text.contains("(1 resolved to workspace files)"),
        "{text}"
    );
    ws.write("c.py", "def three():\n    pass\n");
    let after = index(&ws, &[], None);
    assert_eq!(after["parsed"], 1, "{after}");
    assert_eq!(after["files"], 3, "{after}");
    assert_eq!(after["definitions"], 3, "{after}");
}
