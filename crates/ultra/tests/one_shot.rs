//! The one-shot CLI (`ultra -c` with no server) never drops an edit silently: a run that
//! succeeds writes the files it changed and names them; one that fails writes nothing more
//! and says what was dropped; `--dry-run` prints the diff and writes nothing; an answer
//! offers no undo that the next process could not do.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns unwrap too

mod common;

use common::Ws;

const EDIT: &str = r#"{"files":[{"path":"a.txt","edits":[{"old":"hello","new":"bye"}]}]}"#;

#[test]
fn a_successful_run_writes_what_it_changed() {
    let ws = Ws::new();
    ws.write("a.txt", "hello world\n");
    ws.write("b.txt", "one\n");
    let out = ws.cli(&[
        "-c",
        "ultra.applyEdits",
        "-a",
        EDIT,
        "-c",
        "ultra.insertText",
        "-a",
        r#"{"path":"b.txt","text":"zero\n","position":{"line":0,"character":0}}"#,
    ]);
    out.ok();
    assert_eq!(ws.read("a.txt"), "bye world\n");
    assert_eq!(ws.read("b.txt"), "zero\none\n");
    assert!(
        out.stderr().contains("wrote a.txt, b.txt"),
        "{}",
        out.stderr()
    );
    // A read writes nothing and says nothing of writing.
    let out = ws.cli(&["-c", "ultra.getFileContent:a.txt"]);
    out.ok();
    assert!(!out.stderr().contains("wrote"), "{}", out.stderr());
}

#[test]
fn a_failed_run_writes_nothing_more_and_says_so() {
    let ws = Ws::new();
    ws.write("a.txt", "hello world\n");
    let out = ws.cli(&[
        "-c",
        "ultra.applyEdits",
        "-a",
        EDIT,
        "-c",
        "ultra.applyEdits",
        "-a",
        r#"{"files":[{"path":"a.txt","edits":[{"old":"missing","new":"x"}]}]}"#,
    ]);
    assert_eq!(out.code(), 1);
    assert_eq!(ws.read("a.txt"), "hello world\n");
    assert!(
        out.stderr()
            .contains("unsaved changes to a.txt were not written"),
        "{}",
        out.stderr()
    );
}

#[test]
fn a_dry_run_shows_the_diff_and_writes_nothing() {
    let ws = Ws::new();
    ws.write("a.txt", "hello world\n");
    let out = ws.cli(&["--dry-run", "-c", "ultra.applyEdits", "-a", EDIT]);
    let stdout = out.ok();
    assert!(
        stdout.contains("--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-hello world\n+bye world"),
        "{stdout}"
    );
    assert!(
        out.stderr()
            .contains("1 file(s) would change; nothing was written")
    );
    assert_eq!(ws.read("a.txt"), "hello world\n");

    // JSON: the command's result, then the changes.
    let out = ws.cli(&["--dry-run", "--json", "-c", "ultra.applyEdits", "-a", EDIT]);
    out.ok();
    let values = out.json();
    assert_eq!(values.last().unwrap()["dryRun"], true);
    assert_eq!(values.last().unwrap()["changes"][0]["path"], "a.txt");
    assert_eq!(ws.read("a.txt"), "hello world\n");

    // A save inside a dry run writes nothing either; a create is refused.
    let out = ws.cli(&[
        "--dry-run",
        "-c",
        "ultra.applyEdits",
        "-a",
        r#"{"files":[{"path":"a.txt","edits":[{"old":"hello","new":"bye"}]}],"save":true}"#,
    ]);
    out.ok();
    assert_eq!(ws.read("a.txt"), "hello world\n");
    let out = ws.cli(&[
        "--dry-run",
        "--json",
        "-c",
        "ultra.createFile",
        "-a",
        r#"{"path":"new.txt","content":"x"}"#,
    ]);
    assert_eq!(out.code(), 1);
    assert_eq!(out.json()[0]["error"]["code"], "DRY_RUN");
    assert!(!ws.exists("new.txt"));

    // What the file layer cannot hold back is refused before it starts.
    for (cmd, args) in [
        ("run_command", r#"{"command":"touch x"}"#),
        ("shell", r#"{"script":"write y z"}"#),
        ("terminal.create", "{}"),
        ("git.stage", r#"{"files":["a.txt"]}"#),
        ("shell.git", r#"{"subcommand":"add","paths":["a.txt"]}"#),
    ] {
        let out = ws.cli(&["--dry-run", "--json", "-c", cmd, "-a", args]);
        assert_eq!(out.code(), 1, "{cmd}");
        assert_eq!(out.json()[0]["error"]["code"], "DRY_RUN", "{cmd}");
    }
    assert!(!ws.exists("x") && !ws.exists("y"));
}

#[test]
fn one_shot_answers_offer_no_undo_they_cannot_keep() {
    let ws = Ws::new();
    ws.write("a.txt", "one\ntwo\n");
    let out = ws.cli(&[
        "--json",
        "-c",
        "code.editLines",
        "-a",
        r#"{"path":"a.txt","start":1,"end":1,"content":"ONE"}"#,
    ]);
    out.ok();
    let text = out.json()[0]["data"]["output"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(!text.contains("ultra.undo"), "{text}");
    assert_eq!(ws.read("a.txt"), "ONE\ntwo\n");
}
