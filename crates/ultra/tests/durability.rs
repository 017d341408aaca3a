//! D1: an acknowledged save survives `kill -9` of the server, and leaves no temp files.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns unwrap too

mod common;

use std::time::Instant;

use common::{Ws, range, temp_files};
use serde_json::json;

/// Start the server, open, edit, save and wait for the reply, then SIGKILL at once: the
/// file on disk has the saved content and no `.*.ultra-tmp.*` file is left. Repeated on
/// the same workspace, each round building on the last.
#[test]
fn acknowledged_save_survives_kill_9() {
    let ws = Ws::new();
    ws.write("src/data.txt", "round 0\n");
    let started = Instant::now();
    for round in 1..=6 {
        let mut server = ws.serve();
        let mut c = ws.agent("durable");
        let opened = c.ok("ultra.openFile", json!({ "path": "src/data.txt" }));
        assert_eq!(opened["isDirty"], false);
        let before = ws.read("src/data.txt");
        assert_eq!(before, format!("round {}\n", round - 1), "round {round}");
        let text = format!("round {round}\n{}", "payload line\n".repeat(round * 50));
        let lines = before.lines().count() as u32;
        c.ok(
            "ultra.edit",
            json!({ "path": "src/data.txt", "range": range(0, 0, lines, 0), "text": text, "expectedVersion": opened["version"] }),
        );
        let saved = c.ok("ultra.save", json!({ "path": "src/data.txt" }));
        // The reply is in hand: kill before anything else can happen.
        server.kill9();
        assert_eq!(saved["bytes"], text.len());
        assert_eq!(ws.read("src/data.txt"), text, "round {round}");
        assert!(
            temp_files(&ws.path("src")).is_empty(),
            "round {round}: {:?}",
            temp_files(&ws.path("src"))
        );
        // Reset for the next round with the exact expected prefix.
        ws.write("src/data.txt", &format!("round {round}\n"));
    }
    assert!(
        started.elapsed().as_secs() < 10,
        "took {:?}",
        started.elapsed()
    );
}

/// A save with several files in one batch (`applyEdits {save: true}`), then kill -9: every
/// acknowledged file is on disk. Created files survive too.
#[test]
fn batch_save_and_create_survive_kill_9() {
    let ws = Ws::new();
    ws.write("a.txt", "a0\n");
    ws.write("b.txt", "b0\n");
    let mut server = ws.serve();
    let mut c = ws.agent("durable");
    c.ok(
        "ultra.applyEdits",
        json!({ "files": [
            { "path": "a.txt", "edits": [{ "old": "a0", "new": "a1" }] },
            { "path": "b.txt", "edits": [{ "old": "b0", "new": "b1" }] }
        ], "save": true }),
    );
    c.ok(
        "ultra.createFile",
        json!({ "path": "new/c.txt", "content": "c1\n" }),
    );
    server.kill9();
    assert_eq!(ws.read("a.txt"), "a1\n");
    assert_eq!(ws.read("b.txt"), "b1\n");
    assert_eq!(ws.read("new/c.txt"), "c1\n");
    assert!(temp_files(&ws.root).is_empty());
    assert!(temp_files(&ws.path("new")).is_empty());
    // A new server on the same workspace serves the saved content.
    let _server = ws.serve();
    let mut c = ws.connect();
    assert_eq!(
        c.ok("ultra.getFileContent", json!({ "path": "a.txt" }))["content"],
        "a1\n"
    );
}

/// Temp files of a writer that died mid-write are swept when a server starts; those of a
/// live process and ordinary dot files are left alone.
#[test]
fn temp_files_of_dead_writers_are_swept_at_startup() {
    let ws = Ws::new();
    ws.write("src/a.txt", "a\n");
    // A pid that is certainly gone: a child we ran and reaped.
    let mut done = std::process::Command::new("true").spawn().unwrap();
    let dead = done.id();
    done.wait().unwrap();
    let live = std::process::id();
    let dead_tmp = format!("src/.a.txt.ultra-tmp.{dead}.0");
    let live_tmp = format!("src/.a.txt.ultra-tmp.{live}.0");
    ws.write(&dead_tmp, "half-written");
    ws.write(&live_tmp, "in progress");
    ws.write("src/.a.txt.ultra-tmp.notapid.0", "keep");
    ws.write("src/.hidden", "keep");
    let server = ws.serve();
    server.wait_stderr("removed 1 temp file");
    assert!(!ws.exists(&dead_tmp), "dead writer's temp file kept");
    assert!(ws.exists(&live_tmp), "live writer's temp file removed");
    assert!(ws.exists("src/.a.txt.ultra-tmp.notapid.0"));
    assert!(ws.exists("src/.hidden"));
    assert_eq!(ws.read("src/a.txt"), "a\n");
}

/// A saved batch of 20 files is all or nothing on disk whatever instant `kill -9` lands:
/// repeated with the kill at spread-out delays after the request is sent, each restart
/// finds every file old or every file new (the intent journal finishes a committed batch),
/// and no temp file or journal is left.
#[test]
fn a_saved_batch_is_all_or_nothing_across_kill_9() {
    let ws = Ws::new();
    let n = 20;
    let payload = "payload line for a bigger write\n".repeat(4000);
    let names: Vec<String> = (0..n).map(|i| format!("d{}/f{i:02}.txt", i % 3)).collect();
    for name in &names {
        ws.write(name, &format!("gen 0\n{payload}"));
    }
    // How long one whole batch takes here, to spread the kills over it.
    let took = {
        let _server = ws.serve();
        let mut c = ws.agent("batch");
        let files: Vec<_> = names
            .iter()
            .map(|p| json!({ "path": p, "edits": [{ "old": "gen 0", "new": "gen 0b" }] }))
            .collect();
        let t = Instant::now();
        c.ok("ultra.applyEdits", json!({ "files": files, "save": true }));
        let took = t.elapsed();
        for name in &names {
            ws.write(name, &format!("gen 0\n{payload}"));
        }
        took
    };
    let mut outcomes = [0usize; 2];
    for round in 1..=24u64 {
        let mut server = ws.serve();
        let mut c = ws.agent("batch");
        // Every file holds the same generation before the batch: read it.
        let before: Vec<String> = names
            .iter()
            .map(|p| ws.read(p).lines().next().unwrap().to_string())
            .collect();
        assert!(
            before.iter().all(|g| *g == before[0]),
            "round {round}: mixed before: {before:?}"
        );
        let old = before[0].clone();
        let new = format!("gen {round}");
        let files: Vec<_> = names
            .iter()
            .map(|p| json!({ "path": p, "edits": [{ "old": old, "new": new }] }))
            .collect();
        c.send(
            &json!({ "jsonrpc": "2.0", "id": 1, "method": "ultra.applyEdits",
                         "params": { "files": files, "save": true } }),
        );
        // Spread the kill over the batch's life: before, during and after the writes.
        std::thread::sleep(took.mul_f64((round as f64) / 18.0));
        server.kill9();
        // Recovery runs when the workspace opens again.
        let _server = ws.serve();
        let gens: Vec<String> = names
            .iter()
            .map(|p| ws.read(p).lines().next().unwrap().to_string())
            .collect();
        let all_old = gens.iter().all(|g| *g == old);
        let all_new = gens.iter().all(|g| *g == new);
        assert!(
            all_old || all_new,
            "round {round}: a half-written batch: {gens:?}"
        );
        outcomes[usize::from(all_new)] += 1;
        // The dead writer's temp files are swept once the restarted server has built its
        // index.
        common::wait_until("the temp files to be swept", || {
            ["d0", "d1", "d2"]
                .iter()
                .all(|d| temp_files(&ws.path(d)).is_empty())
        });
        if all_old {
            // Put the round's generation in place by hand so the next round builds on it.
            for name in &names {
                ws.write(name, &format!("{new}\n{payload}"));
            }
        }
    }
    assert_eq!(common::journals_left(&ws), 0, "journals left behind");
    eprintln!(
        "kills: {} before the batch committed, {} after",
        outcomes[0], outcomes[1]
    );
}
