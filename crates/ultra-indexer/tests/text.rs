//! The text index against the scan it stands in for: after any sequence of changes on a
//! real disk (writes, deletes, directories removed and moved, `.gitignore` edits, hidden,
//! binary, hard-linked and symlinked files, open buffers), a search over the index's
//! candidates answers exactly what a search that walks the tree answers, for literal and
//! regex queries, either case, whole words, and answers cut at a cap.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use proptest::prelude::*;
use ultra_indexer::TextIndex;
use ultra_protocol::PositionEncoding;
use ultra_search::{Files, SearchOptions};
use ultra_workspace::Root;
use ultra_workspace::root::RootOptions;

const DIRS: [&str; 7] = ["", "a", "a/b", "c", ".hid", "node_modules", "ign"];
const NAMES: [&str; 5] = ["x.rs", "y.txt", "z.bin", ".h", "w.md"];
const WORDS: [&str; 10] = [
    "foo",
    "bar",
    "Baz",
    "qux_1",
    "hello world",
    "\n",
    "ÉTÉ",
    "fn main",
    "foobaz",
    " ",
];

#[derive(Debug, Clone)]
enum Op {
    Write {
        path: String,
        text: String,
        binary: bool,
    },
    Delete(String),
    RemoveDir(&'static str),
    MoveDir(&'static str, &'static str),
    Ignore(Vec<&'static str>),
    HardLink(String, String),
    Symlink(String, String),
    Buffer(String, String),
    /// The server stops and starts again: the index is read back from where it was saved.
    Restart,
}

fn path() -> impl Strategy<Value = String> {
    (0..DIRS.len(), 0..NAMES.len()).prop_map(|(d, n)| {
        if DIRS[d].is_empty() {
            NAMES[n].to_string()
        } else {
            format!("{}/{}", DIRS[d], NAMES[n])
        }
    })
}

fn text() -> impl Strategy<Value = String> {
    proptest::collection::vec(0..WORDS.len(), 0..12)
        .prop_map(|ws| ws.into_iter().map(|w| WORDS[w]).collect())
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (path(), text(), proptest::bool::weighted(0.1))
            .prop_map(|(path, text, binary)| Op::Write { path, text, binary }),
        2 => path().prop_map(Op::Delete),
        1 => (1..DIRS.len()).prop_map(|d| Op::RemoveDir(DIRS[d])),
        1 => (1..DIRS.len(), 1..DIRS.len()).prop_map(|(a, b)| Op::MoveDir(DIRS[a], DIRS[b])),
        1 => proptest::collection::vec(
            prop_oneof![Just("ign/"), Just("*.md"), Just("a/b"), Just("!w.md")],
            0..3
        )
        .prop_map(Op::Ignore),
        1 => (path(), path()).prop_map(|(a, b)| Op::HardLink(a, b)),
        1 => (path(), path()).prop_map(|(a, b)| Op::Symlink(a, b)),
        1 => (path(), text()).prop_map(|(p, t)| Op::Buffer(p, t)),
        1 => Just(Op::Restart),
    ]
}

fn apply(dir: &Path, op: &Op, buffers: &mut HashMap<String, String>) {
    let at = |p: &str| dir.join(p);
    let parent = |p: &str| {
        if let Some(parent) = at(p).parent() {
            let _ = std::fs::create_dir_all(parent);
        }
    };
    match op {
        Op::Write { path, text, binary } => {
            parent(path);
            let mut bytes = text.clone().into_bytes();
            if *binary {
                bytes.insert(bytes.len() / 2, 0);
            }
            // Through a fresh file: a hard link's other name keeps the old text.
            let _ = std::fs::remove_file(at(path));
            let _ = std::fs::write(at(path), bytes);
        }
        Op::Delete(p) => {
            let _ = std::fs::remove_file(at(p));
        }
        Op::RemoveDir(d) => {
            let _ = std::fs::remove_dir_all(at(d));
        }
        Op::MoveDir(a, b) => {
            if !b.starts_with(&format!("{a}/")) {
                let _ = std::fs::remove_dir_all(at(b));
                parent(b);
                let _ = std::fs::rename(at(a), at(b));
            }
        }
        Op::Ignore(lines) => {
            let _ = std::fs::write(at(".gitignore"), lines.join("\n"));
        }
        Op::HardLink(a, b) => {
            parent(b);
            let _ = std::fs::remove_file(at(b));
            let _ = std::fs::hard_link(at(a), at(b));
        }
        Op::Symlink(a, b) => {
            parent(b);
            let _ = std::fs::remove_file(at(b));
            let _ = std::os::unix::fs::symlink(at(a), at(b));
        }
        Op::Buffer(p, t) => {
            buffers.insert(p.clone(), t.clone());
        }
        Op::Restart => {}
    }
}

/// Queries and their options: literal and regex, either case, whole words, capped.
fn queries() -> Vec<(&'static str, SearchOptions)> {
    let o = |regex: bool, case: bool, word: bool, max: Option<usize>| SearchOptions {
        use_regex: regex,
        case_sensitive: case,
        whole_word: word,
        max_results: max,
        ..SearchOptions::default()
    };
    vec![
        ("foo", o(false, false, false, None)),
        ("foo", o(false, true, true, None)),
        ("hello WORLD", o(false, false, false, None)),
        ("baz", o(false, true, false, None)),
        ("baz", o(false, false, false, Some(3))),
        (r"qu.?x_\d", o(true, false, false, None)),
        ("(foo|bar)baz", o(true, true, false, None)),
        ("été", o(false, false, false, None)),
        ("x", o(false, false, false, Some(5))),
        (r"fn\s+main", o(true, false, false, Some(2))),
        ("o", o(false, false, false, Some(7))),
        (r"\w+", o(true, false, false, Some(4))),
    ]
}

fn answer(
    root: &Root,
    buffers: &HashMap<String, String>,
    q: &str,
    o: &SearchOptions,
    files: &Files,
) -> serde_json::Value {
    let query = ultra_search::compile(q, o).expect("compiles");
    let found = ultra_search::find(
        root,
        buffers,
        &query,
        o,
        PositionEncoding::Utf16,
        false,
        files,
    )
    .expect("searches");
    serde_json::to_value(&found).expect("json")
}

/// The index's answers equal the scan's. With `links`, a hard link may have been made
/// from a directory nobody watches (hidden or ignored), which no event reports: the index
/// may then count fewer skipped hard links, never more, and the matches are the same.
fn check(
    root: &Root,
    text: &TextIndex,
    buffers: &HashMap<String, String>,
    links: bool,
) -> Result<(), TestCaseError> {
    let open: Vec<&str> = buffers.keys().map(String::as_str).collect();
    for (q, o) in queries() {
        let query = ultra_search::compile(q, &o).expect("compiles");
        let listed = text
            .candidates(root, &query.grams, &open)
            .expect("the index answers");
        let mut scan = answer(root, buffers, q, &o, &Files::Walk);
        let mut indexed = answer(root, buffers, q, &o, &Files::Listed(listed.clone()));
        if links {
            let s = scan["skippedHardLinks"].take().as_u64().unwrap_or(0);
            let i = indexed["skippedHardLinks"].take().as_u64().unwrap_or(0);
            prop_assert!(i <= s, "{} > {}", i, s);
        }
        prop_assert_eq!(
            &indexed,
            &scan,
            "query {:?} {:?}; candidates {:?}",
            q,
            o,
            listed
        );
        check_view(root, text, q, &o)?;
    }
    // The count kept as files come and go is the count of the files held.
    prop_assert_eq!(text.state().files, text.stats().files);
    Ok(())
}

/// What the index tells `grep -r` (a view) is true of the disk: every directory it lists is
/// listed exactly as on disk, and every file it leaves unread holds no match. Returns how
/// many files it left unread.
fn check_view(
    root: &Root,
    text: &TextIndex,
    q: &str,
    o: &SearchOptions,
) -> Result<usize, TestCaseError> {
    let pattern = if o.use_regex {
        q.to_string()
    } else {
        regex_syntax::escape(q)
    };
    let view = text
        .view(root, &[pattern], !o.case_sensitive)
        .expect("the index answers");
    prop_assert!(view.dir("").is_some(), "the root is followed");
    let plain = SearchOptions {
        use_regex: o.use_regex,
        case_sensitive: o.case_sensitive,
        ..SearchOptions::default()
    };
    let mut unread = 0;
    let mut dirs = vec![String::new()];
    while let Some(d) = dirs.pop() {
        let rel = root.lexical(&d).expect("confined");
        let Ok((_, on_disk)) = root.walk_dir(&rel) else {
            prop_assert!(view.dir(&d).is_none(), "{:?} is gone but listed", d);
            continue;
        };
        for (name, kind) in &on_disk {
            if *kind == ultra_workspace::root::Kind::Dir {
                dirs.push(rel.join(name).as_str().to_string());
            }
        }
        let Some((listed, skip)) = view.dir(&d) else {
            continue;
        };
        prop_assert_eq!(&*listed, &on_disk, "the listing of {:?}", d);
        for (name, _) in listed
            .iter()
            .zip(skip.iter())
            .filter(|(_, s)| **s)
            .map(|(e, _)| e)
        {
            // A directory left out: every file a walk of it would read.
            let mut files = Vec::new();
            let mut todo = vec![rel.join(name)];
            while let Some(p) = todo.pop() {
                match root.walk_dir(&p) {
                    Ok((_, entries)) => {
                        for (n, k) in entries {
                            match k {
                                ultra_workspace::root::Kind::Dir => todo.push(p.join(&n)),
                                ultra_workspace::root::Kind::File => files.push(p.join(&n)),
                                _ => {}
                            }
                        }
                    }
                    Err(_) => files.push(p),
                }
            }
            for path in files {
                let path = path.as_str().to_string();
                let found = answer(
                    root,
                    &HashMap::new(),
                    q,
                    &plain,
                    &Files::Listed(vec![path.clone()]),
                );
                prop_assert_eq!(
                    found["results"].as_array().map(Vec::len),
                    Some(0),
                    "{:?} is left unread for {:?} but matches",
                    path,
                    q
                );
                unread += 1;
            }
        }
    }
    Ok(unread)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Changes made before the index is built and after, checked after each step.
    #[test]
    fn the_index_answers_what_the_scan_answers(
        before in proptest::collection::vec(op(), 0..12),
        after in proptest::collection::vec(op(), 1..16),
    ) {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut buffers = HashMap::new();
        for op in &before {
            apply(dir.path(), op, &mut buffers);
        }
        let root = Root::open(dir.path(), RootOptions::default()).expect("root");
        let state = tempfile::tempdir().expect("state dir");
        // Saved after every build, however small, so that restarts read it back.
        let start = || {
            let text = Arc::new(TextIndex::new(root.path().to_path_buf(), Some(state.path().join("text"))));
            let watch = text.watch().expect("inotify");
            text.build(&root);
            text.save_now();
            (text, watch)
        };
        let (mut text, mut watch) = start();
        check(&root, &text, &buffers, false)?;
        let mut links = false;
        for op in &after {
            if let Op::Restart = op {
                drop(watch);
                (text, watch) = start();
                prop_assert!(text.stats().restored);
            }
            apply(dir.path(), op, &mut buffers);
            links |= matches!(op, Op::HardLink(..));
            check(&root, &text, &buffers, links)?;
        }
        drop(watch);
    }
}

/// A view follows the directories the index walks (not hidden or ignored ones), sees a
/// change at once, and leaves unread exactly the text files that cannot match.
#[test]
fn a_view_lists_what_is_on_disk_and_leaves_unread_what_cannot_match() {
    let dir = tempfile::tempdir().expect("temp dir");
    let w = |p: &str, t: &str| {
        let at = dir.path().join(p);
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        std::fs::write(at, t).unwrap();
    };
    w("a/one.txt", "needle\n");
    w("a/two.txt", "hay\n");
    w("a/.hid/three.txt", "hay\n");
    w("gen/four.txt", "hay\n");
    w(".gitignore", "gen/\n");
    w("a/.dot", "hay\n");
    // Hidden and larger than what the index reads for grep alone: grep reads it.
    w("a/.big", &"hay ".repeat(2 << 20));
    std::fs::write(dir.path().join("a/bin"), b"hay\0").unwrap();
    std::fs::write(dir.path().join("a/bin2"), b"needle\0").unwrap();
    let root = Root::open(dir.path(), RootOptions::default()).expect("root");
    let text = Arc::new(TextIndex::new(root.path().to_path_buf(), None));
    let _watch = text.watch().expect("inotify");
    text.build(&root);
    let view = |p: &str| text.view(&root, &[p.to_string()], false).expect("answers");
    let v = view("needle");
    let (entries, unread) = v.dir("a").expect("a is followed");
    let names: Vec<(&str, bool)> = entries
        .iter()
        .zip(unread.iter())
        .map(|((n, _), u)| (n.as_str(), *u))
        .collect();
    // Files that may match and the hidden directory are read, whether text, binary or
    // hidden files; the others are not.
    assert_eq!(
        names,
        [
            (".big", false),
            (".dot", true),
            (".hid", false),
            ("bin", true),
            ("bin2", false),
            ("one.txt", false),
            ("two.txt", true)
        ]
    );
    assert!(v.dir("a/.hid").is_none() && v.dir("gen").is_none());
    let (root_entries, _) = v.dir("").expect("the root is followed");
    assert!(root_entries.iter().any(|(n, _)| n == "gen"));
    // A directory whose files are all known and none a candidate is not entered; one with
    // a hidden directory, an ignored one or a candidate below it is.
    w("c/d/hay.txt", "hay\n");
    w("e/.h/hay.txt", "hay\n");
    w("f/g/needle.txt", "needle\n");
    let skipped = |v: &ultra_indexer::TextView| -> Vec<String> {
        let (entries, unread) = v.dir("").unwrap();
        entries
            .iter()
            .zip(unread.iter())
            .filter(|(_, u)| **u)
            .map(|((n, _), _)| n.clone())
            .collect()
    };
    assert_eq!(skipped(&view("needle")), [".gitignore", "c"]);
    w("c/d/more.txt", "one more needle\n");
    assert_eq!(skipped(&view("needle")), [".gitignore"]);
    assert_eq!(skipped(&view("hay")), [".gitignore", "f"]);
    // A change shows in the next view, with no wait.
    w("a/two.txt", "a needle\n");
    w("a/new/five.txt", "hay\n");
    let v = view("needle");
    let (entries, unread) = v.dir("a").unwrap();
    let two = entries.iter().position(|(n, _)| n == "two.txt").unwrap();
    assert!(!unread[two]);
    assert!(entries.iter().any(|(n, _)| n == "new"));
    let (five, unread) = v.dir("a/new").expect("a new directory is followed");
    assert_eq!((five[0].0.as_str(), unread[0]), ("five.txt", true));
    std::fs::remove_dir_all(dir.path().join("a/new")).unwrap();
    std::fs::rename(dir.path().join("a"), dir.path().join("b")).unwrap();
    let v = view("needle");
    assert!(v.dir("a").is_none() && v.dir("a/new").is_none());
    let (entries, _) = v.dir("b").expect("moved");
    assert_eq!(entries.len(), 7);
    // Hidden and binary files are not searched by `search.findInFiles`.
    let q = ultra_search::compile("needle", &SearchOptions::default()).unwrap();
    let found = text.candidates(&root, &q.grams, &[]).unwrap();
    assert_eq!(
        found,
        ["b/one.txt", "b/two.txt", "c/d/more.txt", "f/g/needle.txt"]
    );
}

/// A protected file is not indexed (agents may not read it) but a person's `grep -r` reads
/// it: the directory holding it is always entered, and the file read.
#[test]
fn a_protected_file_is_always_read() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir_all(dir.path().join("p/q")).unwrap();
    std::fs::write(dir.path().join("p/q/secret.env"), "needle\n").unwrap();
    std::fs::write(dir.path().join("p/q/plain.txt"), "hay\n").unwrap();
    let opts = RootOptions {
        restricted: vec!["**/*.env".into()],
        ..RootOptions::default()
    };
    let root = Root::open(dir.path(), opts).expect("root");
    let text = Arc::new(TextIndex::new(root.path().to_path_buf(), None));
    let _watch = text.watch().expect("inotify");
    text.build(&root);
    let v = text
        .view(&root, &["needle".to_string()], false)
        .expect("answers");
    let (_, unread) = v.dir("").unwrap();
    assert_eq!(*unread, [false], "p is entered");
    let (entries, unread) = v.dir("p/q").unwrap();
    assert_eq!(entries[0].0, "plain.txt");
    assert_eq!(*unread, [true, false], "secret.env is read");
}

/// Without a watcher or before a build, the index says it cannot answer (searches scan).
#[test]
fn an_index_without_a_watcher_or_a_build_does_not_answer() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("a.txt"), "needle").expect("write");
    let root = Root::open(dir.path(), RootOptions::default()).expect("root");
    let text = Arc::new(TextIndex::new(root.path().to_path_buf(), None));
    let q = ultra_search::trigram::Query::literal(b"needle");
    assert_eq!(text.candidates(&root, &q, &[]), None, "not built");
    text.build(&root);
    assert_eq!(text.candidates(&root, &q, &[]), None, "no watcher");
    let watch = text.watch().expect("inotify");
    text.build(&root);
    assert_eq!(
        text.candidates(&root, &q, &[]),
        Some(vec!["a.txt".to_string()])
    );
    drop(watch);
    assert_eq!(text.candidates(&root, &q, &[]), None, "watcher stopped");
}

/// A hard link made in a watched directory, under a name searches skip (hidden) or under
/// one they read, makes the index read the file it links to at every query, as the scan
/// does: the counts agree.
#[test]
fn a_hard_link_in_a_watched_directory_is_seen() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join("a")).expect("mkdir");
    std::fs::write(dir.path().join("a/x.rs"), "needle").expect("write");
    std::fs::write(dir.path().join("y.txt"), "other").expect("write");
    let root = Root::open(dir.path(), RootOptions::default()).expect("root");
    let text = Arc::new(TextIndex::new(root.path().to_path_buf(), None));
    let _watch = text.watch().expect("inotify");
    text.build(&root);
    let o = SearchOptions::default();
    let both = |text: &TextIndex| {
        let query = ultra_search::compile("needle", &o).expect("compiles");
        let listed = text.candidates(&root, &query.grams, &[]).expect("answers");
        (
            answer(&root, &HashMap::new(), "needle", &o, &Files::Walk),
            answer(&root, &HashMap::new(), "needle", &o, &Files::Listed(listed)),
        )
    };
    let (scan, indexed) = both(&text);
    assert_eq!(scan["count"], 1);
    assert_eq!(indexed, scan);
    std::fs::hard_link(dir.path().join("y.txt"), dir.path().join(".hidden")).expect("link");
    std::fs::hard_link(dir.path().join("a/x.rs"), dir.path().join("a/z.rs")).expect("link");
    let (scan, indexed) = both(&text);
    assert_eq!(scan["skippedHardLinks"], 3, "{scan}");
    assert_eq!(indexed, scan);
}

/// A restart reads the saved index back and reads only the files changed meanwhile; a
/// saved file that is damaged is not used (every file is read again).
#[test]
fn a_restart_reads_only_what_changed_and_never_a_damaged_index() {
    let dir = tempfile::tempdir().expect("temp dir");
    for i in 0..300 {
        let path = dir.path().join(format!("d{}/f{i:03}.txt", i % 9));
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, format!("file {i} word{i}x\n")).expect("write");
    }
    // Older than a clock tick when read, so their stamps are kept (not rechecked).
    std::thread::sleep(std::time::Duration::from_millis(50));
    let state = tempfile::tempdir().expect("state dir");
    let saved = state.path().join("text");
    let root = Root::open(dir.path(), RootOptions::default()).expect("root");
    let start = || {
        let text = Arc::new(TextIndex::new(
            root.path().to_path_buf(),
            Some(saved.clone()),
        ));
        let watch = text.watch().expect("inotify");
        text.build(&root);
        (text, watch)
    };
    let find = |text: &TextIndex, q: &str| {
        text.candidates(
            &root,
            &ultra_search::trigram::Query::literal(q.as_bytes()),
            &[],
        )
        .expect("answers")
    };
    let (text, watch) = start();
    assert!(!text.stats().restored);
    assert_eq!(text.stats().read, 300);
    assert!(saved.exists(), "a bulk build is saved");
    drop((text, watch));

    // Changed while no server ran: one file rewritten, one deleted, one added.
    std::thread::sleep(std::time::Duration::from_millis(30));
    std::fs::write(dir.path().join("d1/f010.txt"), "file 10 zzzzz10x\n").expect("write");
    std::fs::remove_file(dir.path().join("d2/f020.txt")).expect("delete");
    std::fs::write(dir.path().join("new.txt"), "word20x\n").expect("write");
    let (text, watch) = start();
    let s = text.stats();
    assert!(s.restored);
    assert_eq!(s.read, 2, "the rewritten and the new file");
    assert_eq!(s.files, 300);
    assert_eq!(find(&text, "word10x"), Vec::<String>::new());
    assert_eq!(find(&text, "zzzzz10x"), ["d1/f010.txt"]);
    assert_eq!(find(&text, "word20x"), ["new.txt"]);
    assert_eq!(find(&text, "word299x"), ["d2/f299.txt"]);
    drop((text, watch));

    // Damaged: one byte changed, or cut short.
    let good = std::fs::read(&saved).expect("read");
    for damaged in [
        {
            let mut d = good.clone();
            let mid = d.len() / 2;
            d[mid] ^= 1;
            d
        },
        good[..good.len() - 40].to_vec(),
    ] {
        std::fs::write(&saved, &damaged).expect("write");
        let (text, watch) = start();
        let s = text.stats();
        assert!(!s.restored);
        assert_eq!(s.read, 300);
        assert_eq!(find(&text, "word299x"), ["d2/f299.txt"]);
        drop((text, watch));
    }
}
