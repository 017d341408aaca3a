//! Model test: transactions that create, remove and rename files (as a language server's
//! workspace edit does) are saved as one batch and undone and redone on disk.
//!
//! Random sequences of batches over a few paths (creates, removes, renames as a remove
//! and a create, and text edits, several files at once) are committed and saved; then
//! every one is undone, newest first, and redone, each saved as the command layer does.
//! After every step the disk must hold exactly the snapshot the model expects: the state
//! after the batch, or, after k undos, the state k batches back. A batch that creates a
//! file that exists, or removes one that does not, is refused and changes nothing.
//! Interleaved with other processes' writes and deletes, what is refused changes nothing
//! on disk and what lands changes only its own files.

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;

use proptest::prelude::*;
use ultra_protocol::{Source, SourceKind};
use ultra_workspace::history::{Existence, Filter};
use ultra_workspace::workspace::{EditOp, FileEdits, FileOutcome, WorkspaceOptions};
use ultra_workspace::{RelPath, Workspace, WsError};

const PATHS: [&str; 4] = ["a.ts", "b.ts", "d/c.ts", "d/e/f.ts"];

/// What a step does to one path (an index into `PATHS`).
#[derive(Debug, Clone)]
enum Act {
    /// Create it if absent, or else replace its text.
    Write(usize, String),
    /// Insert at its start, if it exists.
    Prepend(usize, String),
    /// Remove it, if it exists.
    Remove(usize),
    /// Move it to the other path, if it exists and the other does not.
    Rename(usize, usize),
}

fn text() -> impl Strategy<Value = String> {
    proptest::collection::vec(prop_oneof![Just("x"), Just("yé\n"), Just("z\n")], 0..4)
        .prop_map(|v| v.concat())
}

fn act() -> impl Strategy<Value = Act> {
    prop_oneof![
        3 => (0..PATHS.len(), text()).prop_map(|(p, t)| Act::Write(p, t)),
        2 => (0..PATHS.len(), text()).prop_map(|(p, t)| Act::Prepend(p, t)),
        2 => (0..PATHS.len()).prop_map(Act::Remove),
        2 => (0..PATHS.len(), 0..PATHS.len()).prop_map(|(a, b)| Act::Rename(a, b)),
    ]
}

type Disk = BTreeMap<&'static str, String>;

fn read_disk(root: &std::path::Path) -> Disk {
    PATHS
        .iter()
        .filter_map(|p| Some((*p, std::fs::read_to_string(root.join(p)).ok()?)))
        .collect()
}

fn agent() -> Source {
    let mut s = Source::new(SourceKind::Ai);
    s.agent_id = Some("bot".into());
    s
}

/// The batch for `acts` on `disk`, and the disk it should leave; acts that do not apply
/// (or touch a path already in the batch) are left out.
fn batch(ws: &Workspace, acts: &[Act], disk: &Disk) -> (Vec<FileEdits>, Disk) {
    let mut after = disk.clone();
    let mut files: Vec<FileEdits> = Vec::new();
    let at = |i: usize| rel(ws, PATHS[i]);
    for a in acts {
        let busy = |i: usize| files.iter().any(|f| f.path.as_str() == PATHS[i]);
        match a {
            Act::Write(i, t) if !busy(*i) => {
                let op = if disk.contains_key(PATHS[*i]) {
                    EditOp::All { text: t.clone() }
                } else {
                    EditOp::Create { text: t.clone() }
                };
                files.push(fe(at(*i), op));
                after.insert(PATHS[*i], t.clone());
            }
            Act::Prepend(i, t) if !busy(*i) && disk.contains_key(PATHS[*i]) => {
                files.push(fe(
                    at(*i),
                    EditOp::Chars {
                        start: 0,
                        end: 0,
                        text: t.clone(),
                    },
                ));
                after.insert(PATHS[*i], format!("{t}{}", disk[PATHS[*i]]));
            }
            Act::Remove(i) if !busy(*i) && disk.contains_key(PATHS[*i]) => {
                files.push(fe(at(*i), EditOp::Remove));
                after.remove(PATHS[*i]);
            }
            Act::Rename(i, j)
                if i != j
                    && !busy(*i)
                    && !busy(*j)
                    && disk.contains_key(PATHS[*i])
                    && !disk.contains_key(PATHS[*j]) =>
            {
                let t = disk[PATHS[*i]].clone();
                files.push(fe(at(*i), EditOp::Remove));
                files.push(fe(at(*j), EditOp::Create { text: t.clone() }));
                after.remove(PATHS[*i]);
                after.insert(PATHS[*j], t);
            }
            _ => {}
        }
    }
    (files, after)
}

/// Put a transaction's files on disk as `persist_txn` in the command layer does.
fn persist(ws: &mut Workspace, files: &[FileOutcome]) {
    try_persist(ws, files).unwrap();
}

/// [`persist`], which may be refused.
fn try_persist(ws: &mut Workspace, files: &[FileOutcome]) -> Result<(), WsError> {
    let rels = |removed: bool| -> Vec<RelPath> {
        files
            .iter()
            .filter(|f| (f.existence == Existence::Removed) == removed)
            .map(|f| rel(ws, &f.path))
            .collect()
    };
    let (saved, removed) = (rels(false), rels(true));
    ws.save_and_remove(&saved, &removed, false).map(|_| ())
}

/// A workspace (with a journal) holding `files`: the temp dir, the root, the workspace.
fn setup(files: &[(&str, &str)]) -> (tempfile::TempDir, std::path::PathBuf, Workspace) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    std::fs::create_dir_all(&root).unwrap();
    for (path, text) in files {
        let abs = root.join(path);
        std::fs::create_dir_all(abs.parent().unwrap()).unwrap();
        std::fs::write(abs, text).unwrap();
    }
    let opts = WorkspaceOptions {
        journal_dir: Some(dir.path().join(".state")),
        ..WorkspaceOptions::default()
    };
    let ws = Workspace::open(&root, opts).unwrap();
    (dir, root, ws)
}

fn rel(ws: &Workspace, path: &str) -> RelPath {
    ws.root().lexical(path).unwrap()
}

/// One edit of one file, without preconditions.
fn fe(path: RelPath, op: EditOp) -> FileEdits {
    FileEdits {
        path,
        expected_version: None,
        expected_hash: None,
        edits: vec![op],
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn files_made_and_removed_by_transactions_undo_and_redo_on_disk(
        steps in proptest::collection::vec(proptest::collection::vec(act(), 1..4), 1..7),
    ) {
        let (_dir, root, mut ws) = setup(&[("a.ts", "one\n")]);
        let mut snapshots = vec![read_disk(&root)];
        let by = agent();
        let mut txns = 0;
        for acts in &steps {
            let disk = snapshots.last().unwrap().clone();
            let (files, after) = batch(&ws, acts, &disk);
            if files.is_empty() {
                continue;
            }
            let prepared = ws.prepare(files).unwrap();
            let outcome = ws.commit(prepared, &by, "test");
            persist(&mut ws, &outcome.files);
            prop_assert_eq!(read_disk(&root), after.clone(), "after batch {:?}", acts);
            // A batch that changes nothing is no transaction, and nothing to undo.
            if after != disk {
                snapshots.push(after);
                txns += 1;
            }
        }
        let filter = Filter { agent_id: Some("bot".into()), ..Filter::default() };
        for k in 1..=txns {
            let outcome = ws.undo(&filter).unwrap();
            persist(&mut ws, &outcome.files);
            prop_assert_eq!(read_disk(&root), snapshots[txns - k].clone(), "after undo {}", k);
        }
        for (k, expected) in snapshots.iter().enumerate().skip(1) {
            let outcome = ws.redo(&filter).unwrap();
            persist(&mut ws, &outcome.files);
            prop_assert_eq!(read_disk(&root), expected.clone(), "after redo {}", k);
        }
    }
}

#[test]
fn creating_what_exists_or_removing_what_does_not_changes_nothing() {
    let (_dir, root, mut ws) = setup(&[("a.ts", "one\n")]);
    let create_a = fe(
        rel(&ws, "a.ts"),
        EditOp::Create {
            text: "two\n".into(),
        },
    );
    let remove_b = fe(rel(&ws, "b.ts"), EditOp::Remove);
    assert!(matches!(
        ws.prepare(vec![create_a]),
        Err(WsError::Exists(_))
    ));
    assert!(matches!(
        ws.prepare(vec![remove_b]),
        Err(WsError::NotFound(_))
    ));
    // A create mixed with other edits of the same file is refused.
    let mixed = FileEdits {
        edits: vec![
            EditOp::Remove,
            EditOp::Chars {
                start: 0,
                end: 0,
                text: "x".into(),
            },
        ],
        ..fe(rel(&ws, "a.ts"), EditOp::Remove)
    };
    assert!(matches!(
        ws.prepare(vec![mixed]),
        Err(WsError::InvalidPosition(_))
    ));
    assert_eq!(
        read_disk(&root),
        Disk::from([("a.ts", "one\n".to_string())])
    );
}

#[test]
fn a_created_file_edited_since_is_not_removed_by_undo() {
    let (_dir, _root, mut ws) = setup(&[]);
    let by = agent();
    let new = rel(&ws, "n.ts");
    let fe = |op: EditOp| fe(new.clone(), op);
    let p = ws
        .prepare(vec![fe(EditOp::Create {
            text: "made\n".into(),
        })])
        .unwrap();
    let made = ws.commit(p, &by, "test");
    persist(&mut ws, &made.files);
    // A person adds a line after it: undoing the create would delete their text.
    let p = ws
        .prepare(vec![fe(EditOp::Chars {
            start: 5,
            end: 5,
            text: "mine\n".into(),
        })])
        .unwrap();
    ws.commit(p, &Source::new(SourceKind::Human), "test");
    let undo = ws.undo(&Filter {
        txn_id: Some(made.txn_id),
        ..Filter::default()
    });
    assert!(
        matches!(undo, Err(WsError::UndoConflict { .. })),
        "{undo:?}"
    );
    assert_eq!(ws.buffer(&new).unwrap().rope.to_string(), "made\nmine\n");
}

/// Undoing a move saves every file it changed: an importer with someone's unsaved changes
/// would be saved with them, so the undo waits (BUFFER_DIRTY) and changes nothing.
#[test]
fn a_move_is_not_undone_over_someones_unsaved_changes() {
    let (_dir, root, mut ws) = setup(&[("a.ts", "one\n"), ("b.ts", "import './a';\n")]);
    let moved = vec![
        fe(rel(&ws, "a.ts"), EditOp::Remove),
        fe(
            rel(&ws, "d/a.ts"),
            EditOp::Create {
                text: "one\n".into(),
            },
        ),
        fe(
            rel(&ws, "b.ts"),
            EditOp::All {
                text: "import './d/a';\n".into(),
            },
        ),
    ];
    let p = ws.prepare(moved).unwrap();
    let txn = ws.commit(p, &agent(), "test");
    persist(&mut ws, &txn.files);
    // A person types in the importer, and does not save.
    let p = ws
        .prepare(vec![fe(
            rel(&ws, "b.ts"),
            EditOp::Chars {
                start: 0,
                end: 0,
                text: "// wip\n".into(),
            },
        )])
        .unwrap();
    ws.commit(p, &Source::new(SourceKind::Human), "test");
    let undo = ws.undo(&Filter {
        txn_id: Some(txn.txn_id),
        ..Filter::default()
    });
    assert!(
        matches!(undo, Err(WsError::Dirty(ref p)) if p == "b.ts"),
        "{undo:?}"
    );
    assert_eq!(
        read_disk(&root),
        Disk::from([("b.ts", "import './d/a';\n".to_string())]),
        "nothing on disk changed"
    );
    assert!(root.join("d/a.ts").exists());
    let b = rel(&ws, "b.ts");
    assert_eq!(
        ws.buffer(&b).unwrap().rope.to_string(),
        "// wip\nimport './d/a';\n"
    );
}

/// One step of an interleaving: ours, or someone else's on the disk.
#[derive(Debug, Clone)]
enum Step {
    Batch(Vec<Act>),
    Undo,
    Redo,
    /// Another process writes (creates or replaces) a file.
    Write(usize, String),
    /// Another process deletes a file.
    Delete(usize),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => proptest::collection::vec(act(), 1..4).prop_map(Step::Batch),
        3 => Just(Step::Undo),
        2 => Just(Step::Redo),
        2 => (0..PATHS.len(), text()).prop_map(|(p, t)| Step::Write(p, t)),
        1 => (0..PATHS.len()).prop_map(Step::Delete),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Interleaved with other processes' writes and deletes, a batch, undo or redo that
    /// is refused changes nothing on disk, and one that lands creates no file where one
    /// is and changes only its own files:
    /// each saved one holds its buffer's text, each removed one is gone, and every other
    /// file is as the other process left it.
    #[test]
    fn file_transactions_never_touch_what_they_do_not_own(
        steps in proptest::collection::vec(step(), 1..12),
    ) {
        let (_dir, root, mut ws) = setup(&[("a.ts", "one\n")]);
        std::fs::create_dir_all(root.join("d/e")).unwrap();
        let by = agent();
        let filter = Filter { agent_id: Some("bot".into()), ..Filter::default() };
        for s in &steps {
            let before = read_disk(&root);
            let outcome = match s {
                Step::Write(i, t) => {
                    std::fs::write(root.join(PATHS[*i]), t).unwrap();
                    continue;
                }
                Step::Delete(i) => {
                    let _ = std::fs::remove_file(root.join(PATHS[*i]));
                    continue;
                }
                Step::Batch(acts) => {
                    let (files, _) = batch(&ws, acts, &before);
                    if files.is_empty() {
                        continue;
                    }
                    match ws.prepare(files) {
                        Ok(p) => Ok(ws.commit(p, &by, "test")),
                        Err(e) => Err(e),
                    }
                }
                Step::Undo => ws.undo(&filter),
                Step::Redo => ws.redo(&filter),
            };
            let Ok(outcome) = outcome else {
                prop_assert_eq!(read_disk(&root), before, "refused {:?} changed the disk", s);
                continue;
            };
            let mine: Vec<&str> = outcome.files.iter().map(|f| f.path.as_str()).collect();
            // A file is made only where none is: never over another process's.
            for f in outcome.files.iter().filter(|f| f.existence == Existence::Created) {
                prop_assert!(!before.contains_key(f.path.as_str()), "{:?} created {} over a file", s, f.path);
            }
            let saved = try_persist(&mut ws, &outcome.files);
            let after = read_disk(&root);
            for p in PATHS.iter().filter(|p| !mine.contains(p)) {
                prop_assert_eq!(after.get(p), before.get(p), "{} is not {:?}'s", p, s);
            }
            if saved.is_err() {
                continue;
            }
            for f in &outcome.files {
                let rel = ws.root().lexical(&f.path).unwrap();
                if f.existence == Existence::Removed {
                    prop_assert!(!after.contains_key(f.path.as_str()), "{} removed by {:?}", f.path, s);
                    prop_assert!(ws.buffer(&rel).is_none());
                } else {
                    let text = ws.buffer(&rel).unwrap().rope.to_string();
                    prop_assert_eq!(after.get(f.path.as_str()), Some(&text), "{} saved by {:?}", f.path, s);
                }
            }
        }
    }
}

/// A file that appears on disk between a batch's prepare and its commit (a validator may
/// run in between) is not written over: the save refuses, and the disk keeps both the
/// file the batch would remove and the one that appeared.
#[test]
fn a_file_that_appears_before_the_commit_is_not_written_over() {
    let (_dir, root, mut ws) = setup(&[("a.ts", "one\n")]);
    let moved = vec![
        fe(rel(&ws, "a.ts"), EditOp::Remove),
        fe(
            rel(&ws, "b.ts"),
            EditOp::Create {
                text: "one\n".into(),
            },
        ),
    ];
    let p = ws.prepare(moved).unwrap();
    std::fs::write(root.join("b.ts"), "theirs\n").unwrap();
    let txn = ws.commit(p, &agent(), "test");
    assert_eq!(txn.files.len(), 2, "the transaction stays whole: {txn:?}");
    let saved = ws.save_and_remove(&[rel(&ws, "b.ts")], &[rel(&ws, "a.ts")], false);
    assert!(saved.is_err(), "{saved:?}");
    assert_eq!(
        read_disk(&root),
        Disk::from([
            ("a.ts", "one\n".to_string()),
            ("b.ts", "theirs\n".to_string())
        ])
    );
}
