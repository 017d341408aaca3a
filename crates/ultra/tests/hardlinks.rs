//! Hard links, as a pnpm project has them (node_modules hard-linked from a store outside the
//! workspace), through the real binary: reading through a hard link is refused and says
//! why; walks (`grep -r`, the `grep` tool, find in files, the code index) skip such files
//! with one summary and a count instead of an error each, and still search everything else,
//! with the exit status the remaining files give; `security.allowHardlinkReads` lets them
//! be read.

#![allow(clippy::unwrap_used)]

mod common;

use common::Ws;
use serde_json::{Value, json};

/// Hard-linked files made by the tests below.
const LINKS: usize = 300;

/// A workspace whose `store/` files are each hard-linked to a file outside the root, plus
/// ordinary files that match too.
fn fixture() -> Ws {
    let ws = Ws::new();
    ws.write("src/a.rs", "fn a() {} // TODO: real work\n");
    ws.write("src/b.txt", "nothing here\n");
    ws.write("notes.md", "TODO: notes\n");
    let outside = ws.base().join("pnpm-store.rs");
    std::fs::write(&outside, "fn secret() {} // TODO: outside secret\n").unwrap();
    std::fs::create_dir_all(ws.path("store/pkg")).unwrap();
    for i in 0..LINKS {
        std::fs::hard_link(&outside, ws.path(&format!("store/pkg/f{i:03}.rs"))).unwrap();
    }
    ws
}

/// The note grep prints for `n` skipped files.
fn note(n: usize) -> String {
    format!(
        "grep: skipped {n} hard-linked files (reading through a hard link is refused; see security.allowHardlinkReads)\n"
    )
}

fn sh(ws: &Ws, script: &str) -> (String, String, i32) {
    let out = ws.cli(&["sh", script]);
    (out.stdout(), out.stderr(), out.code())
}

#[test]
fn grep_walks_skip_hard_links_with_one_note() {
    let ws = fixture();
    let (out, err, st) = sh(&ws, "grep -rn TODO .");
    assert_eq!(
        out,
        "./notes.md:1:TODO: notes\n./src/a.rs:1:fn a() {} // TODO: real work\n"
    );
    assert_eq!(err, note(LINKS));
    assert_eq!(st, 0);
    // Only hard-linked files would match: no match (1), not trouble (2).
    let (out, err, st) = sh(&ws, "grep -r secret store");
    assert_eq!((out.as_str(), st), ("", 1));
    assert_eq!(err, note(LINKS));
    // Listing and counting modes skip them too; -s keeps quiet.
    let (out, err, st) = sh(&ws, "grep -rlc TODO . ; grep -rsl TODO store src");
    assert_eq!(out, "./notes.md\n./src/a.rs\nsrc/a.rs\n");
    assert_eq!(err, note(LINKS));
    assert_eq!(st, 0);
    // A walk that meets none says nothing.
    let (_, err, st) = sh(&ws, "grep -r TODO src");
    assert_eq!((err.as_str(), st), ("", 0));
    // One file: singular.
    std::fs::create_dir(ws.path("one")).unwrap();
    std::fs::hard_link(ws.path("notes.md"), ws.path("one/x.md")).unwrap();
    let (out, err, st) = sh(&ws, "grep -r TODO one");
    assert_eq!((out.as_str(), st), ("", 1));
    assert_eq!(
        err,
        "grep: skipped 1 hard-linked file (reading through a hard link is refused; see security.allowHardlinkReads)\n"
    );
}

#[test]
fn a_direct_read_still_explains_the_refusal() {
    let ws = fixture();
    let (out, err, st) = sh(&ws, "grep TODO store/pkg/f000.rs");
    assert_eq!((out.as_str(), st), ("", 2));
    assert!(err.contains("store/pkg/f000.rs"), "{err}");
    assert!(err.contains("hard-linked file"), "{err}");
    assert!(err.contains("outside the workspace"), "{err}");
    // Through the file commands: NOT_A_FILE with how to allow it.
    let out = ws.cli(&[
        "-c",
        "code.getLines",
        "-a",
        r#"{"path": "store/pkg/f001.rs", "start": 1, "end": 1}"#,
        "--json",
    ]);
    let v = &out.json()[0];
    assert_eq!(v["error"]["code"], "NOT_A_FILE", "{v}");
    assert!(
        v["error"]["suggestion"]
            .as_str()
            .unwrap()
            .contains("security.allowHardlinkReads"),
        "{v}"
    );
}

/// The typed `grep` tool (seed 004's shape) reports the same note in its stderr.
#[test]
fn the_grep_tool_reports_the_count() {
    let ws = fixture();
    let out = ws.cli(&[
        "-c",
        "shell.grep",
        "-a",
        &json!({"pattern": "TODO", "include": "*.rs"}).to_string(),
        "--json",
    ]);
    let d = &out.json()[0]["data"];
    assert_eq!(
        d["stdout"], "src/a.rs:fn a() {} // TODO: real work\n",
        "{d}"
    );
    assert_eq!(d["stderr"], note(LINKS), "{d}");
    assert_eq!(d["exitCode"], 0);
}

/// Allowlisted hard links are searched like any file, and no note is printed.
#[test]
fn allowed_hard_links_are_searched() {
    let ws = fixture();
    ws.config(json!({ "security": { "allowHardlinkReads": ["store/pkg/f00*.rs"] } }));
    let (out, err, st) = sh(&ws, "grep -rl secret store");
    let expected: String = (0..10).map(|i| format!("store/pkg/f00{i}.rs\n")).collect();
    assert_eq!(out, expected);
    assert_eq!(err, note(LINKS - 10));
    assert_eq!(st, 0);
}

/// `find` reads no file, so it lists hard-linked files as GNU find does, with no errors.
#[test]
fn find_lists_hard_links_without_errors() {
    let ws = fixture();
    let (out, err, st) = sh(&ws, "find store -type f | wc -l");
    assert_eq!(
        (out.trim(), err.as_str(), st),
        (LINKS.to_string().as_str(), "", 0)
    );
}

#[test]
fn find_in_files_counts_what_it_skipped() {
    let ws = fixture();
    let out = ws.cli(&[
        "-c",
        "search.findInFiles",
        "-a",
        r#"{"query": "TODO"}"#,
        "--json",
    ]);
    let d: Value = out.json()[0]["data"].clone();
    let paths: Vec<&str> = d["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["notes.md", "src/a.rs"], "{d}");
    assert_eq!(d["skippedHardLinks"], LINKS, "{d}");
    // None skipped: no field.
    let out = ws.cli(&[
        "-c",
        "search.findInFiles",
        "-a",
        r#"{"query": "TODO", "options": {"include": "src/*"}}"#,
        "--json",
    ]);
    let d: Value = out.json()[0]["data"].clone();
    assert_eq!(d["count"], 1, "{d}");
    assert!(d.get("skippedHardLinks").is_none(), "{d}");
}

/// The code index leaves hard-linked files out (their text may be another file's) and
/// says how many in its state.
#[test]
fn the_code_index_leaves_hard_links_out() {
    let ws = fixture();
    let out = ws.cli(&["-c", "code.getTodos", "-a", "{}", "--json"]);
    let d: Value = out.json()[0]["data"].clone();
    let todos: Vec<&str> = d["todos"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["path"].as_str().unwrap())
        .collect();
    assert_eq!(todos, ["src/a.rs"], "{d}");
    assert_eq!(d["index"]["skippedHardLinks"], LINKS, "{d}");
    assert_eq!(d["index"]["files"], 1, "{d}");
    let out = ws.cli(&[
        "-c",
        "code.findDefinition",
        "-a",
        r#"{"symbol": "secret"}"#,
        "--json",
    ]);
    assert!(!out.stdout().contains("store/pkg"), "{}", out.stdout());
}
