//! Selective undo by author and transaction, and conflicts with overlapping later edits.

#![allow(clippy::unwrap_used)]

use ultra_protocol::{Source, SourceKind};
use ultra_workspace::history::Filter;
use ultra_workspace::workspace::{EditOp, FileEdits, WorkspaceOptions};
use ultra_workspace::{RelPath, Workspace, WsError};

fn agent(id: &str) -> Source {
    let mut s = Source::new(SourceKind::Ai);
    s.agent_id = Some(id.into());
    s
}

fn anchor(ws: &mut Workspace, rel: &RelPath, old: &str, new: &str, by: &Source) -> u64 {
    let p = ws
        .prepare(vec![FileEdits {
            path: rel.clone(),
            expected_version: None,
            expected_hash: None,
            edits: vec![EditOp::Anchor {
                old: old.into(),
                new: new.into(),
                replace_all: false,
                whitespace: false,
            }],
        }])
        .unwrap();
    ws.commit(p, by, "test").txn_id
}

fn setup(text: &str) -> (tempfile::TempDir, Workspace, RelPath) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f.rs"), text).unwrap();
    let mut ws = Workspace::open(dir.path(), WorkspaceOptions::default()).unwrap();
    let rel = ws.resolve_read("f.rs", false).unwrap();
    ws.open_buffer(&rel).unwrap();
    (dir, ws, rel)
}

fn text(ws: &Workspace, rel: &RelPath) -> String {
    ws.buffer(rel).unwrap().rope.to_string()
}

#[test]
fn undo_one_agent_keeps_the_others_later_edits() {
    let (_d, mut ws, rel) = setup("fn a() {}\nfn b() {}\nfn c() {}\n");
    anchor(&mut ws, &rel, "fn a()", "fn alpha()", &agent("a"));
    anchor(&mut ws, &rel, "fn c()", "fn gamma()", &agent("b"));
    anchor(&mut ws, &rel, "fn b()", "fn beta()", &agent("b"));
    let f = Filter {
        agent_id: Some("a".into()),
        ..Filter::default()
    };
    ws.undo(&f).unwrap();
    assert_eq!(text(&ws, &rel), "fn a() {}\nfn beta() {}\nfn gamma() {}\n");
    // Redo brings a's edit back without touching b's.
    ws.redo(&f).unwrap();
    assert_eq!(
        text(&ws, &rel),
        "fn alpha() {}\nfn beta() {}\nfn gamma() {}\n"
    );
    // Nothing more of a's to redo.
    assert!(matches!(ws.redo(&f), Err(WsError::NothingToUndo(_))));
}

#[test]
fn undo_by_txn_id_and_conflicts_are_refused() {
    let (_d, mut ws, rel) = setup("let x = 1;\n");
    let t1 = anchor(&mut ws, &rel, "x", "total", &agent("a"));
    anchor(&mut ws, &rel, "total = 1", "total = 2", &agent("b"));
    let before = text(&ws, &rel);
    let err = ws
        .undo(&Filter {
            txn_id: Some(t1),
            ..Filter::default()
        })
        .unwrap_err();
    assert!(matches!(err, WsError::UndoConflict { .. }), "{err:?}");
    assert_eq!(text(&ws, &rel), before, "a refused undo changes nothing");
}

#[test]
fn multi_file_transactions_undo_as_one() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
    std::fs::write(dir.path().join("b.txt"), "two\n").unwrap();
    let mut ws = Workspace::open(dir.path(), WorkspaceOptions::default()).unwrap();
    let a = ws.resolve_read("a.txt", false).unwrap();
    let b = ws.resolve_read("b.txt", false).unwrap();
    let edits = |p: &RelPath, old: &str, new: &str| FileEdits {
        path: p.clone(),
        expected_version: None,
        expected_hash: None,
        edits: vec![EditOp::Anchor {
            old: old.into(),
            new: new.into(),
            replace_all: false,
            whitespace: false,
        }],
    };
    // A batch whose second file fails changes neither.
    assert!(
        ws.prepare(vec![edits(&a, "one", "1"), edits(&b, "missing", "2")])
            .is_err()
    );
    let p = ws
        .prepare(vec![edits(&a, "one", "1"), edits(&b, "two", "2")])
        .unwrap();
    let out = ws.commit(p, &agent("a"), "test");
    assert_eq!(out.files.len(), 2);
    assert_eq!(text(&ws, &a), "1\n");
    ws.undo(&Filter {
        txn_id: Some(out.txn_id),
        ..Filter::default()
    })
    .unwrap();
    assert_eq!(text(&ws, &a), "one\n");
    assert_eq!(text(&ws, &b), "two\n");
}
