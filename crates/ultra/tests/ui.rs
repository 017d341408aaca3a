//! UICP (seed 002) through the real binary over the Unix socket: batches applied and
//! broadcast, markup sanitised on the server, validation errors with a pointer, idempotency
//! across connections, state watches, intents, file writes and http(s) under policy, and a
//! restart (after `kill -9`) that replays the same screen.

#![allow(clippy::unwrap_used)]

mod common;

use common::Ws;
use serde_json::{Value, json};

fn batch(c: &mut common::Conn, ops: Value) -> Value {
    c.ok("ui.batch", json!({ "batch": ops }))
}

#[test]
fn batches_are_sanitised_broadcast_and_replayed_after_a_crash() {
    let ws = Ws::new();
    let mut server = ws.serve();
    let mut page = ws.connect();
    page.ok("subscribe", json!({"events": ["ui.*"]}));
    let mut c = ws.agent("claude");

    let r = batch(
        &mut c,
        json!([
            {"op": "window.create", "idempotencyKey": "create-w1", "params": {"id": "w1", "title": "Status", "width": 400, "height": 300}},
            {"op": "dom.set", "params": {"windowId": "w1", "target": "root",
              "html": "<p id=\"status\" onclick=\"alert(1)\">Ready</p><img src=x onerror=alert(2)><script>alert(3)</script><a href=\"javascript:alert(4)\">x</a>"}},
            {"op": "dom.append", "window_id": "w2", "params": {"target": "root", "html": "<b>made by the safety net</b>"}},
        ]),
    );
    // Opened, filled, the key remembered, and w2 opened by the safety net and filled.
    assert_eq!(r["changes"], 5, "{r}");
    let applied = page.wait_event(|e| e["method"] == "ui.applied");
    let muts = applied["params"]["data"]["mutations"]
        .as_array()
        .unwrap_or_else(|| panic!("{applied}"));
    assert_eq!(muts[0]["type"], "windowOpen", "{applied}");
    assert_eq!(muts[1], json!({"type": "key", "key": "create-w1"}));
    let html = muts[2]["piece"]["html"].as_str().unwrap();
    assert_eq!(
        html,
        "<p id=\"u-status\">Ready</p><img><a rel=\"noopener noreferrer\">x</a>"
    );
    assert_eq!(applied["params"]["source"]["agentId"], "claude");

    // Invalid: the whole batch is refused with a pointer, the issues and a hint.
    let e = c.err_code(
        "ui.batch",
        json!({"batch": [
            {"op": "window.create", "params": {"id": "w3", "title": "ok"}},
            {"op": "window.update", "params": {"id": "w1", "height": 100}},
        ]}),
        "INVALID_ARGUMENTS",
    );
    let d = &e["data"]["details"];
    assert_eq!(d["pointer"], "/1/params/height", "{e}");
    assert!(d["hint"].as_str().unwrap().contains("height"), "{e}");
    assert_eq!(d["issues"][0]["pointer"], "/1/params/height");

    // A repeated idempotency key applies once, also from another connection.
    let mut again = ws.agent("claude");
    let r = batch(
        &mut again,
        json!([{"op": "window.create", "idempotencyKey": "create-w1", "params": {"id": "w1", "title": "Status"}}]),
    );
    assert_eq!(r["results"][0]["duplicate"], true, "{r}");
    assert_eq!(r["changes"], 0);

    let before = c.ok("ui.snapshot", json!({}));
    assert_eq!(before["windows"].as_array().unwrap().len(), 2, "{before}");
    assert_eq!(before["windows"][0]["width"], 400);

    // Acknowledged batches survive kill -9: a new server draws the same screen.
    server.kill9();
    let _server = ws.serve();
    let mut c = ws.agent("claude");
    let after = c.ok("ui.snapshot", json!({}));
    assert_eq!(after, before);
    let r = batch(
        &mut c,
        json!([{"op": "window.create", "idempotencyKey": "create-w1", "params": {"id": "w1", "title": "Status"}}]),
    );
    assert_eq!(r["results"][0]["duplicate"], true, "{r}");
}

#[test]
fn state_intents_files_and_http_follow_policy() {
    let ws = Ws::new();
    ws.config(json!({"ui": {"httpAllow": ["api.example.com"]}}));
    let _server = ws.serve();
    let mut watcher = ws.connect();
    watcher.identify(json!({"source": "ai", "agentId": "planner", "sessionId": "p1"}));
    watcher.ok(
        "subscribe",
        json!({"events": ["state.changed", "ui.intent", "ui.fetch"]}),
    );
    let mut c = ws.agent("claude");

    watcher.ok(
        "ui.batch",
        json!({"batch": [{"op": "state.watch", "params": {"scope": "global", "key": "theme"}}]}),
    );
    batch(
        &mut c,
        json!([{"op": "state.set", "params": {"scope": "global", "key": "theme", "value": "dark", "ttl_ms": 60000}}]),
    );
    let ev = watcher.wait_event(|e| e["method"] == "state.changed");
    assert_eq!(ev["params"]["data"]["value"], "dark", "{ev}");
    assert_eq!(ev["params"]["data"]["watchers"], json!(["p1"]));
    let got = c.ok("state.get", json!({"scope": "global", "key": "theme"}));
    assert_eq!(got["results"][0]["value"], "dark", "{got}");

    batch(
        &mut c,
        json!([{"op": "api.call", "params": {"method": "POST", "url": "uicp://intent", "body": {"text": "make it blue"}}}]),
    );
    let ev = watcher.wait_event(|e| e["method"] == "ui.intent");
    assert_eq!(ev["params"]["data"]["text"], "make it blue");

    // http(s): only allow-listed hosts; an agent's call reaches out, so a person is asked.
    c.err_code(
        "ui.batch",
        json!({"batch": [{"op": "api.call", "params": {"url": "https://api.example.com/x"}}]}),
        "CONFIRMATION_REQUIRED",
    );
    let out = ws.cli_with(
        &[
            "-c",
            "ui.batch",
            "-a",
            r#"{"batch": [{"op": "api.call", "params": {"url": "https://evil.example/x"}}, {"op": "api.call", "params": {"url": "https://api.example.com/y"}}]}"#,
            "--json",
        ],
        |cmd| {
            cmd.env("ULTRA_SOCKET", &ws.sock);
        },
    );
    let v = &out.json()[0];
    let results = &v["data"]["results"];
    assert!(
        results[0]["refused"]
            .as_str()
            .is_some_and(|r| r.contains("httpAllow")),
        "{v}"
    );
    assert!(results[1].get("refused").is_none(), "{v}");
    let ev = watcher.wait_event(|e| e["method"] == "ui.fetch");
    assert_eq!(ev["params"]["data"]["url"], "https://api.example.com/y");

    // writeTextFile is a workspace write: an agent's is put to a person; paths stay inside.
    c.err_code(
        "ui.batch",
        json!({"batch": [{"op": "api.call", "params": {"method": "POST", "url": "tauri://fs/writeTextFile", "body": {"path": "notes.txt", "contents": "hi"}}}]}),
        "CONFIRMATION_REQUIRED",
    );
    let out = ws.cli_with(
        &[
            "-c",
            "ui.batch",
            "-a",
            r#"{"batch": [{"op": "api.call", "params": {"method": "POST", "url": "tauri://fs/writeTextFile", "body": {"path": "notes.txt", "contents": "hi"}}}]}"#,
        ],
        |cmd| {
            cmd.env("ULTRA_SOCKET", &ws.sock);
        },
    );
    assert_eq!(out.code(), 0, "{}", out.stderr());
    assert_eq!(ws.read("notes.txt"), "hi");
    let out = ws.cli_with(
        &[
            "-c",
            "ui.batch",
            "-a",
            r#"{"batch": [{"op": "api.call", "params": {"method": "POST", "url": "tauri://fs/writeTextFile", "body": {"path": "../escape.txt", "contents": "x"}}}]}"#,
        ],
        |cmd| {
            cmd.env("ULTRA_SOCKET", &ws.sock);
        },
    );
    assert_ne!(out.code(), 0);
    assert!(!ws.base().join("escape.txt").exists());
}
