//! Open buffers follow the disk, through `ultra serve` over the real socket: git checkout,
//! stash and reset on a real repository, unlink + create, same-size writes with the mtime
//! restored, a dirty buffer's file changing (flagged once, never saved over), a symlink
//! swap, and `ultra.revert` as the way out of a conflict.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns unwrap too

mod common;

use std::time::{Duration, Instant};

use common::{Ws, git, range, wait_until};
use serde_json::{Value, json};

/// Every open buffer equals its file and is clean.
fn assert_all_follow(c: &mut common::Conn, ws: &Ws, paths: &[String], when: &str) {
    for p in paths {
        let got = c.ok("ultra.getFileContent", json!({ "path": p }));
        assert_eq!(got["content"], ws.read(p), "{when}: {p}");
        assert_eq!(got["isDirty"], false, "{when}: {p}");
    }
    for f in c.ok("ultra.getOpenFiles", json!({})).as_array().unwrap() {
        assert_eq!(f["isDirty"], false, "{when}: {f}");
        assert_eq!(f["diskConflict"], false, "{when}: {f}");
    }
}

/// 200 open buffers through branch switches, a stash and a hard reset: each stays equal
/// to its file and clean, as the watcher catches up (announced with `buffer.changed`, no
/// read needed) and at the next read; then `ultra.saveAll` writes nothing back. One
/// directory is removed by a checkout and comes back with new content by the next.
#[test]
fn git_checkout_stash_and_reset_leave_no_buffer_behind() {
    let ws = Ws::new();
    git(&ws, &["init", "-q", "-b", "main"]);
    git(&ws, &["config", "user.name", "Ada"]);
    git(&ws, &["config", "user.email", "ada@example.com"]);
    let paths: Vec<String> = (0..200)
        .map(|i| format!("src/m{}/f{i:03}.txt", i % 7))
        .collect();
    let in_m6 = |i: usize| i % 7 == 6;
    for (i, p) in paths.iter().enumerate() {
        ws.write(p, &format!("main {i}\n{}", "line\n".repeat(i % 13)));
    }
    git(&ws, &["add", "-A"]);
    git(&ws, &["commit", "-q", "-m", "main"]);
    // topic changes most files (some to the same length), deletes a few and all of m6.
    git(&ws, &["checkout", "-q", "-b", "topic"]);
    for (i, p) in paths.iter().enumerate() {
        match i % 10 {
            _ if in_m6(i) => std::fs::remove_file(ws.path(p)).unwrap(),
            0 => std::fs::remove_file(ws.path(p)).unwrap(),
            1..=7 => ws.write(p, &format!("topic {i}\n{}", "other\n".repeat(i % 5))),
            _ => {}
        }
    }
    git(&ws, &["add", "-A"]);
    git(&ws, &["commit", "-q", "-m", "topic"]);
    // next: main with m6 rewritten.
    git(&ws, &["checkout", "-q", "main"]);
    git(&ws, &["checkout", "-q", "-b", "next"]);
    for (i, p) in paths.iter().enumerate() {
        if in_m6(i) {
            ws.write(p, &format!("next {i}\n"));
        }
    }
    git(&ws, &["commit", "-q", "-am", "next"]);
    git(&ws, &["checkout", "-q", "main"]);

    let _server = ws.serve();
    let mut sub = ws.connect();
    sub.ok("subscribe", json!({ "events": ["buffer.changed"] }));
    let mut c = ws.agent("watcher");
    for p in &paths {
        c.ok("ultra.openFile", json!({ "path": p }));
    }
    // Wait until every directory is watched: a change made now is announced.
    std::thread::sleep(Duration::from_millis(600));

    // Reloads announced by the watcher alone, for these paths.
    let mut await_reloads = |want: Vec<&String>, when: &str| {
        let mut left: std::collections::BTreeSet<String> = want.into_iter().cloned().collect();
        let start = Instant::now();
        while !left.is_empty() {
            let ev = sub.try_event(Duration::from_secs(3), |e| {
                e["params"]["data"]["external"] == true
            });
            let Some(ev) = ev else {
                panic!(
                    "{when}: no reload for {} buffers, e.g. {:?}",
                    left.len(),
                    left.first()
                );
            };
            left.remove(ev["params"]["data"]["path"].as_str().unwrap());
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "{when}: too slow"
            );
        }
    };

    git(&ws, &["checkout", "-q", "topic"]);
    let changed: Vec<&String> = paths
        .iter()
        .enumerate()
        .filter(|(i, _)| !in_m6(*i) && (1..=7).contains(&(i % 10)))
        .map(|(_, p)| p)
        .collect();
    await_reloads(changed, "main -> topic");
    for (i, p) in paths.iter().enumerate() {
        let got = c.ok("ultra.getFileContent", json!({ "path": p }));
        if i % 10 == 0 || in_m6(i) {
            // Deleted on topic: the buffer keeps its text, clean.
            assert_eq!(got["isDirty"], false, "topic: {p}");
            continue;
        }
        assert_eq!(got["content"], ws.read(p), "topic: {p}");
        assert_eq!(got["isDirty"], false, "topic: {p}");
    }

    git(&ws, &["checkout", "-q", "next"]);
    let m6: Vec<&String> = paths
        .iter()
        .enumerate()
        .filter(|(i, _)| in_m6(*i))
        .map(|(_, p)| p)
        .collect();
    await_reloads(m6, "topic -> next (m6 recreated)");
    assert_all_follow(&mut c, &ws, &paths, "on next");

    git(&ws, &["checkout", "-q", "main"]);
    assert_all_follow(&mut c, &ws, &paths, "back on main");

    // A stash of outside changes, and a hard reset of others.
    for p in paths.iter().take(30) {
        ws.write(p, "changed outside\n");
    }
    assert_all_follow(&mut c, &ws, &paths, "changed outside");
    git(&ws, &["stash", "-q"]);
    assert_all_follow(&mut c, &ws, &paths, "after stash");
    git(&ws, &["stash", "pop", "-q"]);
    assert_all_follow(&mut c, &ws, &paths, "after stash pop");
    git(&ws, &["reset", "-q", "--hard"]);
    assert_all_follow(&mut c, &ws, &paths, "after reset --hard");

    let saved = c.ok("ultra.saveAll", json!({}));
    assert_eq!(saved["saved"], json!([]), "{saved}");
    assert_eq!(git(&ws, &["status", "--porcelain"]), "");
}

/// The repro: open, `rm`, write anew (a new inode, maybe the same one), read.
/// Every read follows, not only `read_file`: `get_lines` (with the same hash) and
/// `get_function`, asked first after the write in turn.
#[test]
fn unlink_and_create_is_followed() {
    let ws = Ws::new();
    ws.write("a.txt", "old text\n");
    ws.write("f.py", "def f():\n    return 0\n");
    let _server = ws.serve();
    let mut c = ws.agent("a");
    c.ok("ultra.openFile", json!({ "path": "a.txt" }));
    c.ok("ultra.openFile", json!({ "path": "f.py" }));
    for round in 0..20 {
        std::fs::remove_file(ws.path("a.txt")).unwrap();
        let text = format!("new {round}\n");
        std::fs::write(ws.path("a.txt"), &text).unwrap();
        let code = format!("def f():\n    return {round}\n");
        std::fs::write(ws.path("f.py"), &code).unwrap();
        let lines = c.ok("code.getLines", json!({ "path": "a.txt" }));
        let got = c.ok("ultra.getFileContent", json!({ "path": "a.txt" }));
        if round % 2 == 0 {
            let f = c.ok("code.getFunction", json!({ "path": "f.py", "name": "f" }));
            assert!(
                f["code"]
                    .as_str()
                    .unwrap()
                    .contains(&format!("return {round}")),
                "round {round}: {f}"
            );
        } else {
            let f = c.ok("code.getLines", json!({ "path": "f.py" }));
            assert_eq!(
                f["text"],
                format!("     1\tdef f():\n     2\t    return {round}\n")
            );
        }
        assert_eq!(lines["text"], format!("     1\t{text}"), "round {round}");
        assert_eq!(lines["hash"], got["hash"], "round {round}");
        assert_eq!(got["content"], text.as_str());
        assert_eq!(got["isDirty"], false);
    }
    // Deleted and not yet back: the buffer is clean (nothing was edited), and a save
    // (a person's deliberate act) writes it back.
    std::fs::remove_file(ws.path("a.txt")).unwrap();
    let files = c.ok("ultra.getOpenFiles", json!({}));
    assert_eq!(files[0]["isDirty"], false);
    c.ok("ultra.saveAll", json!({}));
    assert!(
        !ws.exists("a.txt"),
        "saveAll recreated a clean, deleted file"
    );
}

/// `cp -p`-style: same size, mtime put back. The agent's edit carrying the hash it read
/// before is refused instead of wiping the change.
#[test]
fn same_size_write_with_mtime_restored_is_not_overwritten() {
    let ws = Ws::new();
    ws.write("cfg.txt", "mode = fast\n");
    let _server = ws.serve();
    let mut c = ws.agent("a");
    let first = c.ok("ultra.getFileContent", json!({ "path": "cfg.txt" }));
    c.ok("ultra.openFile", json!({ "path": "cfg.txt" }));
    std::thread::sleep(Duration::from_millis(300));
    c.ok("ultra.getFileContent", json!({ "path": "cfg.txt" }));
    let p = ws.path("cfg.txt");
    let old = std::fs::metadata(&p).unwrap().modified().unwrap();
    std::fs::write(&p, "mode = slow\n").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&p)
        .unwrap()
        .set_modified(old)
        .unwrap();
    let err = c.err_code(
        "ultra.applyEdits",
        json!({ "files": [{ "path": "cfg.txt", "expectedHash": first["hash"], "edits": [{ "old": "mode", "new": "MODE" }] }], "save": true }),
        "STALE_VERSION",
    );
    assert!(err.to_string().contains("hash"), "{err}");
    assert_eq!(ws.read("cfg.txt"), "mode = slow\n");
    let now = c.ok("ultra.getFileContent", json!({ "path": "cfg.txt" }));
    assert_eq!(now["content"], "mode = slow\n");
}

/// A dirty buffer's file changes: one `file.changedOnDisk`, no storm, the conflict shows
/// both hashes, a save is refused and names `ultra.revert`, revert takes the disk's text
/// and `ultra.undo` brings the edit back. The same for a file that stops being UTF-8.
#[test]
fn a_conflict_is_flagged_once_and_reverted() {
    let ws = Ws::new();
    ws.write("doc.md", "# Title\n");
    ws.write("data.txt", "text\n");
    let _server = ws.serve();
    let mut sub = ws.connect();
    sub.ok("subscribe", json!({ "events": ["file.changedOnDisk"] }));
    let mut c = ws.agent("a");
    c.ok(
        "ultra.insertText",
        json!({ "path": "doc.md", "text": "draft\n", "position": { "line": 1, "character": 0 } }),
    );
    ws.write("doc.md", "# Title from outside\n");
    let ev = sub.wait_event(|e| e["method"] == "file.changedOnDisk");
    assert_eq!(ev["params"]["data"]["path"], "doc.md");
    assert_eq!(ev["params"]["data"]["reason"], "changed");
    // Reads keep looking; none of them announces the change again.
    for _ in 0..20 {
        c.ok("ultra.getFileContent", json!({ "path": "doc.md" }));
    }
    let more = sub.try_event(Duration::from_millis(1500), |e| {
        e["method"] == "file.changedOnDisk" && e["params"]["data"]["path"] == "doc.md"
    });
    assert!(more.is_none(), "announced twice: {more:?}");

    let files = c.ok("ultra.getOpenFiles", json!({}));
    assert_eq!(files[0]["diskConflict"], true, "{files}");
    let err = c.err_code("ultra.save", json!({ "path": "doc.md" }), "STALE_VERSION");
    let data = &err["data"];
    assert_eq!(data["details"]["reason"], "changedOnDisk", "{err}");
    assert!(data["details"]["diskHash"].is_string(), "{err}");
    assert!(data["details"]["currentHash"].is_string(), "{err}");
    assert_ne!(data["details"]["diskHash"], data["details"]["currentHash"]);
    assert!(
        data["suggestion"]
            .as_str()
            .unwrap()
            .contains("ultra.revert"),
        "{err}"
    );
    assert_eq!(ws.read("doc.md"), "# Title from outside\n");

    let reverted = c.ok("ultra.revert", json!({ "path": "doc.md" }));
    assert_eq!(reverted["files"][0]["path"], "doc.md");
    let now = c.ok("ultra.getFileContent", json!({ "path": "doc.md" }));
    assert_eq!(now["content"], "# Title from outside\n");
    assert_eq!(now["isDirty"], false);
    c.ok("ultra.undo", json!({ "path": "doc.md" }));
    let back = c.ok("ultra.getFileContent", json!({ "path": "doc.md" }));
    assert_eq!(back["content"], "# Title\ndraft\n");
    assert_eq!(back["isDirty"], true);
    // The disk is the one the buffer is based on now: a plain save is the person's choice.
    c.ok("ultra.save", json!({ "path": "doc.md" }));
    assert_eq!(ws.read("doc.md"), "# Title\ndraft\n");

    // A clean buffer whose file stops being text: flagged once, never saved over.
    c.ok("ultra.openFile", json!({ "path": "data.txt" }));
    std::fs::write(ws.path("data.txt"), [0xffu8, 0xfe, 0x00]).unwrap();
    let ev = sub.wait_event(|e| {
        e["method"] == "file.changedOnDisk" && e["params"]["data"]["path"] == "data.txt"
    });
    assert_eq!(ev["params"]["data"]["reason"], "notText");
    for _ in 0..20 {
        c.ok("ultra.getOpenFiles", json!({}));
        c.call("ultra.getFileContent", json!({ "path": "data.txt" }));
    }
    let more = sub.try_event(Duration::from_millis(1000), |e| {
        e["method"] == "file.changedOnDisk" && e["params"]["data"]["path"] == "data.txt"
    });
    assert!(more.is_none(), "announced twice: {more:?}");
    c.err_code("ultra.save", json!({ "path": "data.txt" }), "STALE_VERSION");
    assert_eq!(
        std::fs::read(ws.path("data.txt")).unwrap(),
        [0xffu8, 0xfe, 0x00]
    );
}

/// The server stays idle while a conflicted buffer stays open: its CPU time over two
/// seconds is a small fraction of them (the old loop burned 100-190%).
#[test]
fn a_conflicted_buffer_does_not_spin() {
    let ws = Ws::new();
    ws.write("a.txt", "one\n");
    let server = ws.serve();
    let mut c = ws.agent("a");
    c.ok(
        "ultra.insertText",
        json!({ "path": "a.txt", "text": "x", "position": { "line": 0, "character": 0 } }),
    );
    ws.write("a.txt", "two\n");
    wait_until("conflict seen", || {
        c.ok("ultra.getOpenFiles", json!({}))[0]["diskConflict"] == true
    });
    let cpu = |pid: u32| -> u64 {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
        let rest = &stat[stat.rfind(')').unwrap() + 2..];
        let f: Vec<&str> = rest.split_whitespace().collect();
        f[11].parse::<u64>().unwrap() + f[12].parse::<u64>().unwrap()
    };
    let pid = server.child.id();
    let before = cpu(pid);
    let t = Instant::now();
    std::thread::sleep(Duration::from_secs(2));
    let ticks = cpu(pid) - before;
    // Clock ticks are 1/100 s: 2 s at 100% would be 200.
    assert!(
        ticks < 40,
        "{ticks} ticks of CPU in {:?} while idle",
        t.elapsed()
    );
}

/// A file replaced by a symlink is not turned into a regular file (with the link's mode)
/// by a save; the link and its target stay as they were.
#[test]
fn a_save_never_replaces_a_planted_symlink() {
    let ws = Ws::new();
    ws.write("a.txt", "a\n");
    ws.write("target.txt", "target\n");
    let _server = ws.serve();
    let mut c = ws.agent("a");
    c.ok(
        "ultra.edit",
        json!({ "path": "a.txt", "range": range(0, 0, 0, 1), "text": "b" }),
    );
    std::fs::remove_file(ws.path("a.txt")).unwrap();
    std::os::unix::fs::symlink("target.txt", ws.path("a.txt")).unwrap();
    for force in [false, true] {
        let r = c.call("ultra.save", json!({ "path": "a.txt", "force": force }));
        assert!(r.get("error").is_some(), "force {force}: {r}");
    }
    let md = std::fs::symlink_metadata(ws.path("a.txt")).unwrap();
    assert!(md.file_type().is_symlink());
    assert_eq!(ws.read("target.txt"), "target\n");
    let err: Value = c.call("ultra.save", json!({ "path": "a.txt", "force": true }));
    assert!(err.to_string().contains("symbolic link"), "{err}");
}

/// A saved batch whose second file moved on under its buffer is refused before anything
/// changes: the first file is neither edited in its buffer nor written.
#[test]
fn a_saved_batch_checks_every_file_before_writing_any() {
    let ws = Ws::new();
    ws.write("a.txt", "a\n");
    ws.write("b.txt", "b\n");
    let _server = ws.serve();
    let mut c = ws.agent("a");
    c.ok(
        "ultra.insertText",
        json!({ "path": "b.txt", "text": "draft ", "position": { "line": 0, "character": 0 } }),
    );
    ws.write("b.txt", "b from outside\n");
    let err = c.err_code(
        "ultra.applyEdits",
        json!({ "files": [
            { "path": "a.txt", "edits": [{ "old": "a", "new": "A" }] },
            { "path": "b.txt", "edits": [{ "old": "draft", "new": "DRAFT" }] },
        ], "save": true }),
        "STALE_VERSION",
    );
    assert_eq!(err["data"]["details"]["path"], "b.txt", "{err}");
    assert_eq!(ws.read("a.txt"), "a\n");
    assert_eq!(ws.read("b.txt"), "b from outside\n");
    let a = c.ok("ultra.getFileContent", json!({ "path": "a.txt" }));
    assert_eq!(a["content"], "a\n");
    assert_eq!(a["isDirty"], false);
}
