//! The real server over the real Unix socket: JSON-RPC flows, stale versions, concurrent
//! clients, atomic batches, per-agent undo, pushed events, bad input and external changes.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns unwrap too

mod common;

use std::sync::{Arc, Barrier};

use common::{Conn, Ws, envelope_execute, range};
use serde_json::{Value, json};

fn ws_with(files: &[(&str, &str)]) -> Ws {
    let ws = Ws::new();
    for (p, c) in files {
        ws.write(p, c);
    }
    ws
}

/// open → edit (with expectedVersion) → read → save, as a seed-003 style client would.
#[test]
fn open_edit_save() {
    let ws = ws_with(&[("src/app.ts", "const x = 1;\nconsole.log(x);\n")]);
    let _server = ws.serve();
    let mut c = ws.connect();
    let opened = c.ok("ultra.openFile", json!({ "path": "src/app.ts" }));
    assert_eq!(opened["version"], 1);
    assert_eq!(opened["lineCount"], 3);
    assert_eq!(opened["language"], "typescript");
    assert_eq!(opened["isDirty"], false);
    let hash0 = opened["hash"].as_str().unwrap().to_string();

    let edited = c.ok(
        "ultra.edit",
        json!({ "path": "src/app.ts", "range": range(0, 6, 0, 7), "text": "total", "expectedVersion": 1 }),
    );
    assert_eq!(edited["version"], 2);
    assert_eq!(edited["changedLines"], json!([1, 1]));
    // Unsaved: the buffer has it, the disk does not yet.
    let content = c.ok("ultra.getFileContent", json!({ "path": "src/app.ts" }));
    assert_eq!(content["content"], "const total = 1;\nconsole.log(x);\n");
    assert_eq!(content["isDirty"], true);
    assert_eq!(ws.read("src/app.ts"), "const x = 1;\nconsole.log(x);\n");

    // expectedHash works as the precondition too (the hash of the current content).
    let h = content["hash"].as_str().unwrap().to_string();
    assert_ne!(h, hash0);
    c.ok(
        "ultra.insertText",
        json!({ "path": "src/app.ts", "text": "// top\n", "position": {"line": 0, "character": 0}, "expectedHash": h }),
    );

    let saved = c.ok("ultra.save", json!({ "path": "src/app.ts" }));
    assert_eq!(saved["version"], 3);
    assert_eq!(
        ws.read("src/app.ts"),
        "// top\nconst total = 1;\nconsole.log(x);\n"
    );
    let files = c.ok("ultra.getOpenFiles", json!({}));
    assert_eq!(files[0]["isDirty"], false);
    assert_eq!(files[0]["active"], true);
    assert!(common::temp_files(&ws.path("src")).is_empty());
}

/// An old expectedVersion is refused with STALE_VERSION carrying the current version, the
/// current hash and a diff from the caller's version; the buffer is unchanged.
#[test]
fn stale_version_carries_version_hash_and_diff() {
    let ws = ws_with(&[("a.txt", "one\ntwo\nthree\n")]);
    let _server = ws.serve();
    let mut c = ws.connect();
    c.ok("ultra.openFile", json!({ "path": "a.txt" }));
    c.ok(
        "ultra.edit",
        json!({ "path": "a.txt", "range": range(1, 0, 1, 3), "text": "TWO", "expectedVersion": 1 }),
    );
    let e = c.err_code(
        "ultra.edit",
        json!({ "path": "a.txt", "range": range(0, 0, 0, 3), "text": "ONE", "expectedVersion": 1 }),
        "STALE_VERSION",
    );
    assert_eq!(e["code"], -32010);
    let d = &e["data"]["details"];
    assert_eq!(d["currentVersion"], 2, "{e}");
    let now = c.ok("ultra.getFileContent", json!({ "path": "a.txt" }));
    assert_eq!(d["currentHash"], now["hash"]);
    let diff = d["diff"].as_str().expect("a diff from version 1");
    assert!(diff.contains("-two"), "{diff}");
    assert!(diff.contains("+TWO"), "{diff}");
    assert!(e["data"]["suggestion"].is_string());
    assert_eq!(now["content"], "one\nTWO\nthree\n");
    assert_eq!(now["version"], 2);
    // A wrong hash is stale too.
    let e = c.err_code(
        "ultra.edit",
        json!({ "path": "a.txt", "range": range(0, 0, 0, 3), "text": "ONE", "expectedHash": "00" }),
        "STALE_VERSION",
    );
    assert_eq!(e["data"]["details"]["reason"], "hash");
}

/// K1: two clients edit the same file from the same base at the same moment. Exactly one
/// wins; the other gets STALE_VERSION, re-bases on the version it is told, and both edits
/// end up in the saved file.
#[test]
fn two_clients_from_the_same_base_lose_no_update() {
    let ws = ws_with(&[("shared.txt", "a\nb\nc\n")]);
    let _server = ws.serve();
    for round in 0..3 {
        let mut setup = ws.connect();
        let base = setup.ok("ultra.openFile", json!({ "path": "shared.txt" }))["version"]
            .as_u64()
            .unwrap();
        let barrier = Arc::new(Barrier::new(2));
        let handles: Vec<_> = [(0u32, "A"), (2u32, "C")]
            .into_iter()
            .map(|(line, text)| {
                let sock = ws.sock.clone();
                let barrier = barrier.clone();
                std::thread::spawn(move || {
                    let mut c = Conn::open(&sock);
                    c.identify(json!({ "source": "ai", "agentId": format!("agent-{text}") }));
                    let edit = |v: u64| json!({ "path": "shared.txt", "range": range(line, 0, line, 1), "text": text, "expectedVersion": v });
                    barrier.wait();
                    let first = c.call("ultra.edit", edit(base));
                    let won = first.get("error").is_none();
                    if !won {
                        let data = &first["error"]["data"];
                        assert_eq!(data["code"], "STALE_VERSION", "{first}");
                        let current = data["details"]["currentVersion"].as_u64().unwrap();
                        assert_eq!(current, base + 1);
                        c.ok("ultra.edit", edit(current));
                    }
                    won
                })
            })
            .collect();
        let wins: Vec<bool> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        assert_eq!(
            wins.iter().filter(|w| **w).count(),
            1,
            "round {round}: exactly one first attempt succeeds: {wins:?}"
        );
        setup.ok("ultra.save", json!({ "path": "shared.txt" }));
        assert_eq!(ws.read("shared.txt"), "A\nb\nC\n", "round {round}");
        // Reset for the next round.
        setup.ok(
            "ultra.edit",
            json!({ "path": "shared.txt", "range": range(0, 0, 3, 0), "text": "a\nb\nc\n" }),
        );
        setup.ok("ultra.save", json!({ "path": "shared.txt" }));
        assert_eq!(ws.read("shared.txt"), "a\nb\nc\n");
    }
}

/// `ultra.applyEdits` across two files where the second edit fails changes neither the
/// files nor the buffers.
#[test]
fn apply_edits_is_all_or_nothing() {
    let ws = ws_with(&[("a.txt", "alpha\nbeta\n"), ("b.txt", "gamma\ndelta\n")]);
    let _server = ws.serve();
    let mut c = ws.agent("bot");
    c.ok("ultra.openFile", json!({ "path": "a.txt" }));
    let before_a = c.ok("ultra.getFileContent", json!({ "path": "a.txt" }));
    let e = c.err_code(
        "ultra.applyEdits",
        json!({ "files": [
            { "path": "a.txt", "edits": [{ "old": "alpha", "new": "ALPHA" }] },
            { "path": "b.txt", "edits": [{ "old": "epsilon", "new": "EPSILON" }] }
        ], "save": true }),
        "NO_MATCH",
    );
    assert!(e["data"]["details"]["closest"].is_array(), "{e}");
    let after_a = c.ok("ultra.getFileContent", json!({ "path": "a.txt" }));
    assert_eq!(after_a["content"], "alpha\nbeta\n");
    assert_eq!(after_a["version"], before_a["version"]);
    assert_eq!(after_a["isDirty"], false);
    let b = c.ok("ultra.getFileContent", json!({ "path": "b.txt" }));
    assert_eq!(b["content"], "gamma\ndelta\n");
    assert_eq!(ws.read("a.txt"), "alpha\nbeta\n");
    assert_eq!(ws.read("b.txt"), "gamma\ndelta\n");
    // Nothing to undo: the failed batch left no transaction.
    c.err_code("ultra.undo", json!({}), "NOTHING_TO_UNDO");
    // An ambiguous anchor fails the same way, listing the candidate lines.
    let e = c.err_code(
        "ultra.applyEdits",
        json!({ "files": [
            { "path": "a.txt", "edits": [{ "old": "beta", "new": "BETA" }] },
            { "path": "b.txt", "edits": [{ "old": "a", "new": "A" }] }
        ] }),
        "AMBIGUOUS_MATCH",
    );
    assert_eq!(e["data"]["details"]["count"], 3, "{e}");
    assert_eq!(e["data"]["details"]["lines"], json!([1, 1, 2]), "{e}");
    assert_eq!(ws.read("a.txt"), "alpha\nbeta\n");
    assert_eq!(
        c.ok("ultra.getFileContent", json!({ "path": "a.txt" }))["content"],
        "alpha\nbeta\n"
    );

    // The same batch made valid applies to both, as one undo group.
    let ok = c.ok(
        "ultra.applyEdits",
        json!({ "files": [
            { "path": "a.txt", "edits": [{ "old": "alpha", "new": "ALPHA" }] },
            { "path": "b.txt", "edits": [{ "old": "delta", "new": "DELTA" }] }
        ] }),
    );
    let txn = ok["txnId"].clone();
    assert_eq!(ok["files"].as_array().unwrap().len(), 2);
    let undone = c.ok("ultra.undo", json!({ "txnId": txn }));
    assert_eq!(undone["files"].as_array().unwrap().len(), 2);
    assert_eq!(
        c.ok("ultra.getFileContent", json!({ "path": "b.txt" }))["content"],
        "gamma\ndelta\n"
    );
}

/// Two agents edit different lines; `undo {agentId: "a"}` reverts only a's edit.
#[test]
fn undo_by_agent_keeps_the_other_agents_edit() {
    let ws = ws_with(&[("f.txt", "one\ntwo\nthree\n")]);
    let _server = ws.serve();
    let mut a = ws.agent("a");
    let mut b = ws.agent("b");
    a.ok(
        "ultra.edit",
        json!({ "path": "f.txt", "range": range(0, 0, 0, 3), "text": "ONE" }),
    );
    b.ok(
        "ultra.edit",
        json!({ "path": "f.txt", "range": range(2, 0, 2, 5), "text": "THREE" }),
    );
    // A third client (plain ipc) undoes agent a's work by filter.
    let mut other = ws.connect();
    let undone = other.ok("ultra.undo", json!({ "agentId": "a" }));
    assert_eq!(undone["files"][0]["path"], "f.txt");
    let now = other.ok("ultra.getFileContent", json!({ "path": "f.txt" }));
    assert_eq!(now["content"], "one\ntwo\nTHREE\n");
    // Nothing of a's is left; b's own unfiltered undo reverts b's edit.
    other.err_code("ultra.undo", json!({ "agentId": "a" }), "NOTHING_TO_UNDO");
    b.ok("ultra.undo", json!({}));
    assert_eq!(
        b.ok("ultra.getFileContent", json!({ "path": "f.txt" }))["content"],
        "one\ntwo\nthree\n"
    );
    // Undo by source: only AI work, a plain ipc edit stays.
    other.ok(
        "ultra.edit",
        json!({ "path": "f.txt", "range": range(1, 0, 1, 3), "text": "TWO" }),
    );
    a.ok(
        "ultra.edit",
        json!({ "path": "f.txt", "range": range(0, 0, 0, 3), "text": "1" }),
    );
    other.ok("ultra.undo", json!({ "source": "ai" }));
    assert_eq!(
        other.ok("ultra.getFileContent", json!({ "path": "f.txt" }))["content"],
        "one\nTWO\nthree\n"
    );
}

/// `subscribe` pushes real notifications carrying the source; unsubscribed events are not
/// sent. The seed-000 envelope subscription gets `{type: "event"}` lines.
#[test]
fn subscriptions_push_events_with_their_source() {
    let ws = ws_with(&[("a.txt", "hello\n")]);
    let _server = ws.serve();
    let mut sub = ws.connect();
    let r = sub.ok("subscribe", json!({ "events": ["buffer.*", "file.saved"] }));
    assert_eq!(r["subscribed"], json!(["buffer.*", "file.saved"]));
    let mut env = ws.connect();
    env.send(&json!({ "id": 1, "type": "subscribe", "events": ["file.saved"] }));
    let r = env.reply();
    assert_eq!(r["success"], true, "{r}");

    let mut agent = ws.agent("writer");
    agent.ok(
        "ultra.edit",
        json!({ "path": "a.txt", "range": range(0, 0, 0, 5), "text": "HELLO" }),
    );
    agent.ok("ultra.save", json!({ "path": "a.txt" }));

    let changed = sub.wait_event(|e| e["method"] == "buffer.changed");
    assert_eq!(changed["jsonrpc"], "2.0");
    assert!(changed.get("id").is_none());
    let p = &changed["params"];
    assert_eq!(p["event"], "buffer.changed");
    assert_eq!(p["data"]["path"], "a.txt");
    assert_eq!(p["data"]["version"], 2);
    assert_eq!(p["data"]["command"], "ultra.edit");
    assert_eq!(p["source"]["type"], "ai");
    assert_eq!(p["source"]["agentId"], "writer");
    // Everything pushed between the edit and the save is a subscribed event: the
    // command.executed events in between were filtered out.
    let saved = sub.wait_event(|e| e["method"] == "file.saved");
    assert_eq!(saved["params"]["data"]["path"], "a.txt");
    assert_eq!(saved["params"]["source"]["agentId"], "writer");
    for e in sub.drain_events() {
        let m = e["method"].as_str().unwrap();
        assert!(m.starts_with("buffer.") || m == "file.saved", "{e}");
    }
    // Ordering on the subscriber connection is preserved; a call still gets its reply.
    assert_eq!(sub.ok("ultra.getOpenFiles", json!({}))[0]["path"], "a.txt");

    let ev = env.wait_event(|e| e["type"] == "event");
    assert_eq!(ev["event"], "file.saved");
    assert_eq!(ev["data"]["path"], "a.txt");
}

/// Malformed JSON (and invalid UTF-8) → -32700 with a null id; the connection keeps working.
#[test]
fn malformed_json_keeps_the_connection() {
    let ws = Ws::new();
    let mut server = ws.serve();
    let mut c = ws.connect();
    for bad in [
        &b"{not json"[..],
        b"{\"jsonrpc\": \"2.0\", \"id\": 1,",
        b"\xff\xfe{}",
    ] {
        c.send_raw(bad);
        let r = c.reply();
        assert_eq!(r["error"]["code"], -32700, "{r}");
        assert_eq!(r["id"], Value::Null);
        assert_eq!(r["error"]["data"]["code"], "PARSE_ERROR");
    }
    // JSON that is not a request: -32600.
    c.send_raw(b"42");
    assert_eq!(c.reply()["error"]["code"], -32600);
    // Unknown method: -32601 naming the closest.
    let e = c.err_code("ultra.getWorkspaceInf", json!({}), "UNKNOWN_COMMAND");
    assert_eq!(e["code"], -32601);
    assert_eq!(e["data"]["details"]["closest"][0], "ultra.getWorkspaceInfo");
    // Wrong params: -32602 with the pointer and usage.
    let e = c.err_code("ultra.openFile", json!({ "path": 7 }), "INVALID_ARGUMENTS");
    assert_eq!(e["code"], -32602);
    assert_eq!(e["data"]["details"]["issues"][0]["path"], "/path");
    assert!(e["data"]["details"]["usage"].is_string());
    let info = c.ok("ultra.getWorkspaceInfo", json!({}));
    assert_eq!(info["root"], ws.root.display().to_string());
    assert!(server.alive());
}

/// R1: a line over `ipc.maxLineBytes` gets one TOO_LARGE error and the connection is
/// closed, even while the client keeps sending; the server keeps serving others.
#[test]
fn an_over_long_line_closes_only_that_connection() {
    let ws = Ws::new();
    ws.config(json!({ "ipc": { "maxLineBytes": 4096 } }));
    let mut server = ws.serve();
    let mut bystander = ws.connect();
    bystander.ok("ultra.getOpenFiles", json!({}));

    let mut c = ws.connect();
    // Keep writing far past the cap without a newline, from another thread: the server
    // must cut us off rather than buffer it all.
    let mut w = c.writer.try_clone().unwrap();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        let chunk = vec![b'x'; 64 * 1024];
        let mut sent = 0usize;
        while sent < 64 << 20 {
            if w.write_all(&chunk).is_err() {
                return sent;
            }
            sent += chunk.len();
        }
        sent
    });
    let r = c.reply();
    assert_eq!(r["error"]["data"]["code"], "TOO_LARGE", "{r}");
    assert_eq!(r["error"]["data"]["details"]["maxLineBytes"], 4096);
    assert!(c.is_closed(), "the connection should be closed");
    let sent = writer.join().unwrap();
    assert!(sent < 64 << 20, "the server kept reading {sent} bytes");

    // Lines under the cap still work, on old and new connections.
    assert!(server.alive());
    bystander.ok("ultra.getOpenFiles", json!({}));
    ws.connect().ok("ultra.getWorkspaceInfo", json!({}));
}

/// R2: 100k nested `[` is a parse error, not a stack overflow; a 100k batch is refused by
/// the batch cap. The server survives both.
#[test]
fn deep_nesting_and_huge_batches_are_refused() {
    let ws = Ws::new();
    let mut server = ws.serve();
    let mut c = ws.connect();
    let deep = "[".repeat(100_000);
    c.send_raw(deep.as_bytes());
    let r = c.reply();
    assert_eq!(r["error"]["code"], -32700, "{r}");
    let deep_obj = "{\"a\":".repeat(100_000);
    c.send_raw(deep_obj.as_bytes());
    assert_eq!(c.reply()["error"]["code"], -32700);

    let mut batch = String::from("[");
    for i in 0..100_000 {
        if i > 0 {
            batch.push(',');
        }
        batch.push_str("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ultra.getOpenFiles\"}");
    }
    batch.push(']');
    c.send_raw(batch.as_bytes());
    let r = c.reply();
    assert_eq!(r["error"]["data"]["code"], "TOO_LARGE", "{r}");
    // A normal batch works on the same connection, answered in order.
    c.send(&json!([
        { "jsonrpc": "2.0", "id": "x", "method": "ultra.getOpenFiles" },
        { "jsonrpc": "2.0", "method": "ultra.getOpenFiles" },
        { "jsonrpc": "2.0", "id": "y", "method": "nope" }
    ]));
    let r = c.reply();
    let arr = r.as_array().expect("batch reply");
    assert_eq!(arr.len(), 2, "{r}");
    assert_eq!(arr[0]["id"], "x");
    assert_eq!(arr[1]["error"]["code"], -32601);
    assert!(server.alive());
    c.ok("ultra.getWorkspaceInfo", json!({}));
}

/// A file changed on disk behind the server's back: a clean buffer reloads (new version,
/// `buffer.changed` with `external: true`); a dirty one gets `file.changedOnDisk` and save
/// refuses with STALE_VERSION (reason changedOnDisk) unless forced.
#[test]
fn external_changes_are_detected() {
    let ws = ws_with(&[("clean.txt", "v1\n"), ("dirty.txt", "d1\n")]);
    let _server = ws.serve();
    let mut sub = ws.connect();
    sub.ok(
        "subscribe",
        json!({ "events": ["buffer.changed", "file.changedOnDisk"] }),
    );
    let mut c = ws.agent("bot");
    assert_eq!(
        c.ok("ultra.openFile", json!({ "path": "clean.txt" }))["version"],
        1
    );
    c.ok("ultra.openFile", json!({ "path": "dirty.txt" }));
    c.ok(
        "ultra.edit",
        json!({ "path": "dirty.txt", "range": range(0, 0, 0, 2), "text": "mine" }),
    );

    // Someone else writes both files.
    ws.write("clean.txt", "v2 from outside\n");
    ws.write("dirty.txt", "theirs, longer\n");

    let now = c.ok("ultra.getFileContent", json!({ "path": "clean.txt" }));
    assert_eq!(now["content"], "v2 from outside\n");
    assert_eq!(now["version"], 2);
    assert_eq!(now["isDirty"], false);
    let ev = sub.wait_event(|e| {
        e["method"] == "buffer.changed" && e["params"]["data"]["path"] == "clean.txt"
    });
    assert_eq!(ev["params"]["data"]["external"], true, "{ev}");
    assert_eq!(ev["params"]["data"]["version"], 2);

    // The dirty buffer keeps the agent's text and is flagged.
    let mine = c.ok("ultra.getFileContent", json!({ "path": "dirty.txt" }));
    assert_eq!(mine["content"], "mine\n");
    let ev = sub.wait_event(|e| e["method"] == "file.changedOnDisk");
    assert_eq!(ev["params"]["data"]["path"], "dirty.txt");
    assert_eq!(ev["params"]["data"]["external"], true);
    let open = c.ok("ultra.getOpenFiles", json!({}));
    let d = open
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == "dirty.txt")
        .unwrap()
        .clone();
    assert_eq!(d["diskConflict"], true, "{d}");
    let e = c.err_code(
        "ultra.save",
        json!({ "path": "dirty.txt" }),
        "STALE_VERSION",
    );
    assert_eq!(e["data"]["details"]["reason"], "changedOnDisk");
    assert_eq!(ws.read("dirty.txt"), "theirs, longer\n");
    c.ok("ultra.save", json!({ "path": "dirty.txt", "force": true }));
    assert_eq!(ws.read("dirty.txt"), "mine\n");
}

/// While the server runs, a change on disk to an open file is pushed to subscribers
/// without any request: a clean buffer reloads, a dirty one is flagged.
#[test]
fn external_changes_are_pushed_without_a_request() {
    let ws = ws_with(&[("w/clean.txt", "c0\n"), ("w/dirty.txt", "d0\n")]);
    let _server = ws.serve();
    let mut sub = ws.connect();
    sub.ok(
        "subscribe",
        json!({ "events": ["buffer.changed", "file.changedOnDisk"] }),
    );
    let mut c = ws.agent("bot");
    c.ok("ultra.openFile", json!({ "path": "w/clean.txt" }));
    c.ok("ultra.openFile", json!({ "path": "w/dirty.txt" }));
    c.ok(
        "ultra.edit",
        json!({ "path": "w/dirty.txt", "range": range(0, 0, 0, 2), "text": "mine" }),
    );
    sub.drain_events();
    // The watcher starts watching a buffer's directory shortly after it opens; write until
    // a change is noticed (each write differs in size, so every one is a change).
    let mut pushed = None;
    for attempt in 1..=20 {
        ws.write("w/clean.txt", &format!("outside {}\n", "x".repeat(attempt)));
        pushed = sub.try_event(std::time::Duration::from_millis(300), |e| {
            e["method"] == "buffer.changed" && e["params"]["data"]["path"] == "w/clean.txt"
        });
        if pushed.is_some() {
            break;
        }
    }
    let ev = pushed.expect("no buffer.changed was pushed for an external write");
    assert_eq!(ev["params"]["data"]["external"], true, "{ev}");
    // No request was made since the writes; the buffer already holds the disk content.
    let disk = ws.read("w/clean.txt");
    let now = c.ok("ultra.getFileContent", json!({ "path": "w/clean.txt" }));
    assert_eq!(now["content"], disk);
    assert!(now["version"].as_u64().unwrap() >= 2);

    ws.write("w/dirty.txt", "theirs, a longer line\n");
    let ev = sub
        .try_event(common::DEADLINE, |e| e["method"] == "file.changedOnDisk")
        .expect("file.changedOnDisk pushed");
    assert_eq!(ev["params"]["data"]["path"], "w/dirty.txt");
    assert_eq!(
        c.ok("ultra.getFileContent", json!({ "path": "w/dirty.txt" }))["content"],
        "mine\n"
    );
}

/// A4: the socket lives in a 0700 directory and is itself 0600; pre-planted paths (a
/// symlinked or group-readable runtime dir, a regular file at the socket path) make the
/// server refuse to start without touching them; a second server on a live socket is
/// refused; SIGTERM removes the socket.
#[test]
fn socket_files_are_private_and_preplanted_paths_are_refused() {
    use std::os::unix::fs::{PermissionsExt, symlink};
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    let ws = Ws::new();
    let server = ws.serve();
    assert_eq!(mode(ws.sock.parent().unwrap()), 0o700);
    assert_eq!(mode(&ws.sock), 0o600);
    // A second server on the same socket is refused; the first keeps serving.
    let out = ws.cli(&["serve", "--socket", ws.sock.to_str().unwrap()]);
    assert_eq!(out.code(), 1);
    assert!(out.stderr().contains("already running"), "{}", out.stderr());
    ws.connect().ok("ultra.getOpenFiles", json!({}));
    // SIGTERM: clean shutdown removes the socket.
    let pid = server.child.id() as libc::pid_t;
    // SAFETY: sending SIGTERM to the child we spawned.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
    let mut server = server;
    common::wait_until("server exit", || !server.alive());
    assert!(!ws.sock.exists(), "socket left behind after SIGTERM");

    let base = ws.base();
    let serve_at = |sock: &std::path::Path| ws.cli(&["serve", "--socket", sock.to_str().unwrap()]);
    // Runtime dir is a symlink to a real private dir.
    std::fs::create_dir(base.join("real")).unwrap();
    std::fs::set_permissions(base.join("real"), std::fs::Permissions::from_mode(0o700)).unwrap();
    symlink(base.join("real"), base.join("linked")).unwrap();
    let out = serve_at(&base.join("linked/u.sock"));
    assert_eq!(out.code(), 1);
    assert!(out.stderr().contains("symbolic link"), "{}", out.stderr());
    assert!(!base.join("real/u.sock").exists());
    // Runtime dir open to others.
    std::fs::create_dir(base.join("open")).unwrap();
    std::fs::set_permissions(base.join("open"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = serve_at(&base.join("open/u.sock"));
    assert_eq!(out.code(), 1);
    assert!(out.stderr().contains("755"), "{}", out.stderr());
    assert_eq!(mode(&base.join("open")), 0o755, "not silently repaired");
    // A regular file where the socket should go is never deleted.
    std::fs::write(base.join("real/file.sock"), "precious").unwrap();
    let out = serve_at(&base.join("real/file.sock"));
    assert_eq!(out.code(), 1);
    assert!(out.stderr().contains("not a socket"), "{}", out.stderr());
    assert_eq!(
        std::fs::read_to_string(base.join("real/file.sock")).unwrap(),
        "precious"
    );
}

/// The seed-000 envelope: execute returns the full CommandResult (success inside
/// `result`), batch returns one result per command, query lists AI-exposed commands.
#[test]
fn seed_envelope_execute_batch_query() {
    let ws = ws_with(&[("a.txt", "x\n")]);
    let _server = ws.serve();
    let mut c = ws.connect();
    let r = envelope_execute(&mut c, "ultra.openFile", json!({ "path": "a.txt" }));
    assert_eq!(r["success"], true);
    assert_eq!(r["result"]["success"], true);
    assert_eq!(r["result"]["data"]["version"], 1);
    let r = envelope_execute(&mut c, "ultra.openFile", json!({ "path": "nope.txt" }));
    assert_eq!(r["result"]["success"], false);
    assert_eq!(r["result"]["error"]["code"], "FILE_NOT_FOUND");
    c.send(
        &json!({ "id": 2, "type": "batch", "agentId": "bot", "commands": [
        { "command": "ultra.getOpenFiles" },
        { "command": "ultra.closeFile", "args": { "path": "a.txt" } },
        { "command": "ultra.getOpenFiles" }
    ] }),
    );
    let r = c.reply();
    assert_eq!(r["id"], 2);
    let results = r["result"].as_array().expect("batch results");
    assert_eq!(results.len(), 3);
    assert_eq!(results[0]["data"][0]["path"], "a.txt");
    assert_eq!(results[2]["data"], json!([]));
    c.send(&json!({ "id": 3, "type": "query" }));
    let r = c.reply();
    assert!(r["result"]["data"].as_array().unwrap().len() > 10);
    c.send(&json!({ "id": 4, "type": "launch" }));
    assert_eq!(c.reply()["error"]["code"], "UNKNOWN_REQUEST");
    // The batch ran as the agent it named.
    let audit = ws.audit();
    let close = audit
        .iter()
        .find(|e| e["command"] == "ultra.closeFile")
        .unwrap();
    assert_eq!(close["source"]["type"], "ai");
    assert_eq!(close["source"]["agentId"], "bot");
}

/// A socket client may not claim to be a person.
#[test]
fn clients_cannot_claim_human() {
    let ws = Ws::new();
    let _server = ws.serve();
    let mut c = ws.connect();
    let e = c.err("session.identify", json!({ "source": "human" }));
    assert_eq!(e["data"]["code"], "SOURCE_NOT_ALLOWED");
    c.send(&json!({ "id": 1, "type": "execute", "command": "ultra.getOpenFiles", "source": "internal" }));
    assert_eq!(c.reply()["error"]["code"], "SOURCE_NOT_ALLOWED");
}

/// Requests written at once (what an agent's client does when it pipelines) are answered
/// in order, however the server gathers the replies into writes; and every call is in the
/// audit log, the read-only ones (written just after their replies) as well as the edits
/// (written before theirs).
#[test]
fn pipelined_requests_are_answered_in_order_and_all_audited() {
    let ws = ws_with(&[("a.txt", "one\n")]);
    let _server = ws.serve();
    let mut c = ws.agent("piper");
    let before = ws.audit().len();
    let mut script = String::new();
    let n = 400;
    for id in 0..n {
        let line = match id % 50 {
            // An edit among the reads: it must come back at its place too.
            7 => json!({"jsonrpc": "2.0", "id": id, "method": "ultra.edit",
                "params": {"path": "a.txt", "range": range(0, 0, 0, 0), "text": "x"}}),
            // A notification: run, never answered.
            9 => json!({"jsonrpc": "2.0", "method": "ultra.getWorkspaceInfo"}),
            // A batch of two reads: one line with both replies.
            11 => json!([
                {"jsonrpc": "2.0", "id": format!("{id}a"), "method": "ultra.getWorkspaceInfo"},
                {"jsonrpc": "2.0", "id": format!("{id}b"), "method": "ultra.getOpenFiles"},
            ]),
            _ => json!({"jsonrpc": "2.0", "id": id, "method": "ultra.getWorkspaceInfo"}),
        };
        script.push_str(&line.to_string());
        script.push('\n');
    }
    use std::io::Write as _;
    c.writer.write_all(script.as_bytes()).unwrap();
    let mut calls = 0;
    for id in 0..n {
        match id % 50 {
            9 => calls += 1,
            11 => {
                let batch = c.read_line().expect("batch reply");
                let ids: Vec<&Value> = batch.as_array().unwrap().iter().map(|r| &r["id"]).collect();
                assert_eq!(ids, [&json!(format!("{id}a")), &json!(format!("{id}b"))]);
                calls += 2;
            }
            _ => {
                let r = c.read_line().expect("reply");
                assert_eq!(r["id"], id, "{r}");
                assert!(r.get("result").is_some(), "{r}");
                calls += 1;
            }
        }
    }
    let audit = ws.audit();
    let ours: Vec<&Value> = audit[before..]
        .iter()
        .filter(|e| e["source"]["agentId"] == "piper")
        .collect();
    assert_eq!(ours.len(), calls, "one audit line per call");
    let edits = ours.iter().filter(|e| e["command"] == "ultra.edit").count();
    assert_eq!(edits, n as usize / 50);
}
