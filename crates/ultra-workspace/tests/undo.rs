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

/// Type `text` a character at a time at every cursor, as the editor does.
fn type_at_cursors(ws: &mut Workspace, rel: &RelPath, text: &str, by: &Source) -> Vec<u64> {
    let mut ids = Vec::new();
    for c in text.chars() {
        let edits = ws
            .buffer(rel)
            .unwrap()
            .selections
            .iter()
            .map(|s| EditOp::Chars {
                start: s.head,
                end: s.head,
                text: c.to_string(),
            })
            .collect();
        let p = ws
            .prepare(vec![FileEdits {
                path: rel.clone(),
                expected_version: None,
                expected_hash: None,
                edits,
            }])
            .unwrap();
        ids.push(ws.commit_typing(p, by, "type").txn_id);
    }
    ids
}

fn person() -> Source {
    let mut s = Source::new(SourceKind::Human);
    s.session_id = Some("editor-1".into());
    s
}

#[test]
fn a_run_of_typing_is_one_undo_step_per_word() {
    let (_d, mut ws, rel) = setup("x\n");
    let ids = type_at_cursors(&mut ws, &rel, "hello world", &person());
    assert_eq!(text(&ws, &rel), "hello worldx\n");
    // One transaction for `hello`, a second from the space on.
    assert!(ids[..5].iter().all(|i| *i == ids[0]), "{ids:?}");
    assert!(
        ids[5..].iter().all(|i| *i == ids[5]) && ids[5] != ids[0],
        "{ids:?}"
    );
    let mine = Filter {
        source: Some(SourceKind::Human),
        ..Filter::default()
    };
    ws.undo(&mine).unwrap();
    assert_eq!(text(&ws, &rel), "hellox\n");
    ws.undo(&mine).unwrap();
    assert_eq!(text(&ws, &rel), "x\n");
    ws.redo(&mine).unwrap();
    assert_eq!(text(&ws, &rel), "hellox\n");
}

#[test]
fn typing_at_several_cursors_groups_too_but_not_across_authors_or_lines() {
    let (_d, mut ws, rel) = setup("a\nb\nc\n");
    {
        let b = ws.buffer_mut(&rel).unwrap();
        b.selections = vec![
            ultra_workspace::buffer::Selection::cursor(1),
            ultra_workspace::buffer::Selection::cursor(3),
        ];
    }
    let ids = type_at_cursors(&mut ws, &rel, "xy", &person());
    assert_eq!(text(&ws, &rel), "axy\nbxy\nc\n");
    assert_eq!(ids[0], ids[1]);
    // Someone else's edit in between ends the run.
    anchor(&mut ws, &rel, "c\n", "cz\n", &agent("a"));
    let more = type_at_cursors(&mut ws, &rel, "q", &person());
    assert_ne!(more[0], ids[0]);
    // A line break is its own step.
    let nl = type_at_cursors(&mut ws, &rel, "\n", &person());
    assert_ne!(nl[0], more[0]);
    let mine = Filter {
        source: Some(SourceKind::Human),
        ..Filter::default()
    };
    ws.undo(&mine).unwrap();
    ws.undo(&mine).unwrap();
    ws.undo(&mine).unwrap();
    assert_eq!(text(&ws, &rel), "a\nb\ncz\n", "the agent's z stays");
}

#[test]
fn undoing_back_to_the_saved_text_is_clean() {
    let (_d, mut ws, rel) = setup("abc\n");
    assert!(!ws.buffer(&rel).unwrap().is_dirty());
    type_at_cursors(&mut ws, &rel, "x", &person());
    assert!(ws.buffer(&rel).unwrap().is_dirty());
    let mine = Filter {
        source: Some(SourceKind::Human),
        ..Filter::default()
    };
    ws.undo(&mine).unwrap();
    assert_eq!(text(&ws, &rel), "abc\n");
    assert!(!ws.buffer(&rel).unwrap().is_dirty(), "same text as on disk");
    // Same length, other text: dirty.
    anchor(&mut ws, &rel, "abc", "abd", &agent("a"));
    assert!(ws.buffer(&rel).unwrap().is_dirty());
    ws.save(&rel, false).unwrap();
    assert!(!ws.buffer(&rel).unwrap().is_dirty());
    anchor(&mut ws, &rel, "abd", "abc", &agent("a"));
    assert!(
        ws.buffer(&rel).unwrap().is_dirty(),
        "the saved text is now abd"
    );
}

#[test]
fn typing_over_a_selection_and_on_is_one_step() {
    let (_d, mut ws, rel) = setup("one two\n");
    // The first character replaces `two`; the rest go on after it.
    let p = ws
        .prepare(vec![FileEdits {
            path: rel.clone(),
            expected_version: None,
            expected_hash: None,
            edits: vec![EditOp::Chars {
                start: 4,
                end: 7,
                text: "t".into(),
            }],
        }])
        .unwrap();
    let first = ws.commit_typing(p, &person(), "type").txn_id;
    ws.buffer_mut(&rel).unwrap().selections = vec![ultra_workspace::buffer::Selection::cursor(5)];
    let rest = type_at_cursors(&mut ws, &rel, "hree", &person());
    assert_eq!(text(&ws, &rel), "one three\n");
    assert!(rest.iter().all(|i| *i == first), "{first} {rest:?}");
    let mine = Filter {
        source: Some(SourceKind::Human),
        ..Filter::default()
    };
    ws.undo(&mine).unwrap();
    assert_eq!(text(&ws, &rel), "one two\n");
}
