//! The NDJSON audit log: one line per executed command, from every surface, with source,
//! command, argsDigest, outcome and durationUs, and never the file content itself.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns unwrap too

mod common;

use std::os::unix::fs::PermissionsExt;

use common::{Ws, envelope_execute, range};
use serde_json::{Value, json};

const SECRET: &str = "TOP-SECRET-CONTENT-9f83a1";

#[test]
fn every_call_is_audited_without_its_content() {
    let ws = Ws::new();
    ws.config(json!({
        "validators": [{ "id": "style", "builtin": "patterns",
            "rules": [{ "rule": "no-console", "pattern": "console\\.log", "message": "use the logger" }] }]
    }));
    ws.write("notes.txt", &format!("{SECRET}\n"));
    let _server = ws.serve();
    assert!(ws.audit().is_empty(), "starting the server runs no command");

    let mut agent = ws.agent("auditor");
    let mut ipc = ws.connect();
    // (command, expected outcome, expected source type, expected agent)
    let mut expect: Vec<(&str, &str, &str, Option<&str>)> = Vec::new();

    agent.ok("ultra.openFile", json!({ "path": "notes.txt" }));
    expect.push(("ultra.openFile", "ok", "ai", Some("auditor")));
    agent.ok(
        "ultra.edit",
        json!({ "path": "notes.txt", "range": range(1, 0, 1, 0), "text": format!("more {SECRET}\n") }),
    );
    expect.push(("ultra.edit", "ok", "ai", Some("auditor")));
    agent.err_code(
        "ultra.edit",
        json!({ "path": "notes.txt", "range": range(0, 0, 0, 0), "text": format!("console.log('{SECRET}')\n") }),
        "CONTENT_VALIDATION_FAILED",
    );
    expect.push((
        "ultra.edit",
        "CONTENT_VALIDATION_FAILED",
        "ai",
        Some("auditor"),
    ));
    agent.err_code(
        "ultra.createFile",
        json!({ "path": "../escape.txt", "content": SECRET }),
        "PATH_OUTSIDE_WORKSPACE",
    );
    expect.push((
        "ultra.createFile",
        "PATH_OUTSIDE_WORKSPACE",
        "ai",
        Some("auditor"),
    ));
    agent.err_code(
        "ultra.deleteFile",
        json!({ "path": "notes.txt" }),
        "CONFIRMATION_REQUIRED",
    );
    expect.push((
        "ultra.deleteFile",
        "CONFIRMATION_REQUIRED",
        "ai",
        Some("auditor"),
    ));
    ipc.err_code("ultra.nope", json!({}), "UNKNOWN_COMMAND");
    expect.push(("ultra.nope", "UNKNOWN_COMMAND", "ipc", None));
    ipc.err_code("ultra.openFile", json!({ "path": 1 }), "INVALID_ARGUMENTS");
    expect.push(("ultra.openFile", "INVALID_ARGUMENTS", "ipc", None));
    let content = ipc.ok("ultra.getFileContent", json!({ "path": "notes.txt" }));
    assert!(content["content"].as_str().unwrap().contains(SECRET));
    expect.push(("ultra.getFileContent", "ok", "ipc", None));
    let r = envelope_execute(&mut ipc, "ultra.save", json!({ "path": "notes.txt" }));
    assert_eq!(r["result"]["success"], true, "{r}");
    expect.push(("ultra.save", "ok", "ipc", None));
    // A JSON-RPC batch: one line per call.
    ipc.send(&json!([
        { "jsonrpc": "2.0", "id": 1, "method": "ultra.getOpenFiles" },
        { "jsonrpc": "2.0", "id": 2, "method": "ultra.getWorkspaceInfo" }
    ]));
    ipc.reply();
    expect.push(("ultra.getOpenFiles", "ok", "ipc", None));
    expect.push(("ultra.getWorkspaceInfo", "ok", "ipc", None));
    // The CLI through the server.
    ws.cli(&[
        "--socket",
        ws.sock.to_str().unwrap(),
        "-c",
        "ultra.getFileContent:notes.txt",
    ])
    .ok();
    expect.push(("ultra.getFileContent", "ok", "cli", None));
    // Subscribing is not a command: not audited. A refused request is.
    ipc.ok("subscribe", json!({ "events": ["*"] }));
    ipc.send_raw(b"{broken");
    ipc.reply();
    expect.push(("(parse)", "PARSE_ERROR", "ipc", None));

    let audit = ws.audit();
    assert_eq!(audit.len(), expect.len(), "{audit:#?}");
    for (entry, (command, outcome, kind, agent)) in audit.iter().zip(&expect) {
        assert_eq!(entry["command"], *command, "{entry}");
        assert_eq!(entry["outcome"], *outcome, "{entry}");
        assert_eq!(entry["source"]["type"], *kind, "{entry}");
        assert_eq!(
            entry["source"].get("agentId").and_then(Value::as_str),
            *agent,
            "{entry}"
        );
        let digest = entry["argsDigest"].as_str().expect("argsDigest");
        assert_eq!(digest.len(), 32, "{entry}");
        assert!(digest.chars().all(|c| c.is_ascii_hexdigit()), "{entry}");
        assert!(entry["durationUs"].is_u64(), "{entry}");
        assert!(entry["ts"].is_u64(), "{entry}");
        let mut keys: Vec<&String> = entry.as_object().unwrap().keys().collect();
        keys.sort();
        assert_eq!(
            keys,
            [
                "argsDigest",
                "command",
                "durationUs",
                "outcome",
                "source",
                "ts"
            ],
            "no other fields (in particular no args): {entry}"
        );
    }
    // Same arguments, same digest; different arguments, different digest.
    let d = |i: usize| audit[i]["argsDigest"].as_str().unwrap().to_string();
    assert_ne!(d(1), d(2));
    assert_eq!(d(7), d(11), "getFileContent {{path: notes.txt}} twice");

    let text = ws.audit_text();
    assert!(
        !text.contains(SECRET),
        "file content leaked into the audit log"
    );
    assert!(
        !text.contains("console.log"),
        "arguments leaked into the audit log"
    );

    // The log is private.
    let dir = ws.base().join("state").join("ultra");
    let sub = std::fs::read_dir(&dir)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&sub.join("audit.ndjson")), 0o600);
    assert_eq!(mode(&sub), 0o700);
}

/// `audit.path` in config moves the log; `audit.enabled: false` turns it off.
#[test]
fn audit_path_from_config() {
    let ws = Ws::new();
    let log = ws.base().join("custom").join("audit.ndjson");
    ws.config(json!({ "audit": { "path": log } }));
    ws.cli(&["-c", "ultra.getOpenFiles"]).ok();
    let text = std::fs::read_to_string(&log).expect("custom audit log");
    assert_eq!(text.lines().count(), 1);
    assert!(
        text.contains("\"command\":\"ultra.getOpenFiles\""),
        "{text}"
    );
    assert!(ws.audit().is_empty(), "nothing at the default path");

    ws.config(json!({ "audit": { "enabled": false } }));
    ws.cli(&["-c", "ultra.getOpenFiles"]).ok();
    assert_eq!(std::fs::read_to_string(&log).unwrap().lines().count(), 1);
    assert!(ws.audit().is_empty());
}

/// Requests refused by the transport before they reach a command (bad JSON, invalid
/// requests, a claimed `human` source, an over-long line) are audited too.
#[test]
fn transport_refusals_are_audited() {
    let ws = Ws::new();
    ws.config(json!({ "ipc": { "maxLineBytes": 4096 } }));
    let _server = ws.serve();
    let mut c = ws.connect();
    c.send_raw(b"{not json\n");
    assert_eq!(c.reply()["error"]["code"], -32700);
    c.send(&json!({ "jsonrpc": "1.0", "id": 1, "method": "x" }));
    assert_eq!(c.reply()["error"]["code"], -32600);
    let refused = c.call("session.identify", json!({ "source": "human" }));
    assert_eq!(refused["error"]["data"]["code"], "SOURCE_NOT_ALLOWED");
    // The server closes the connection mid-line, so the write may fail: that is fine.
    let mut raw = std::os::unix::net::UnixStream::connect(&ws.sock).unwrap();
    let mut big = vec![b'x'; 10_000];
    big.push(b'\n');
    let _ = std::io::Write::write_all(&mut raw, &big);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    let wanted = [
        ("(parse)", "PARSE_ERROR"),
        ("(request)", "INVALID_REQUEST"),
        ("session.identify", "SOURCE_NOT_ALLOWED"),
        ("(frame)", "TOO_LARGE"),
    ];
    loop {
        let log = ws.audit();
        let found = wanted.iter().all(|(cmd, outcome)| {
            log.iter().any(|e| {
                e["command"] == *cmd && e["outcome"] == *outcome && e["source"]["type"] == "ipc"
            })
        });
        if found {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "missing refusals in audit log: {log:?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[test]
fn an_editors_frame_reads_are_not_audited_unless_they_fail() {
    let ws = Ws::new();
    ws.write("a.txt", "alpha\n");
    let _server = ws.serve();
    let mut c = ws.connect();
    c.ok("ultra.openFile", json!({ "path": "a.txt" }));
    c.ok("ultra.getViewState", json!({}));
    c.ok("ultra.getViewport", json!({ "top": 0, "height": 10 }));
    c.err_code(
        "ultra.getViewport",
        json!({ "height": 5000 }),
        "INVALID_ARGUMENTS",
    );
    let commands: Vec<String> = ws
        .audit()
        .iter()
        .map(|e| e["command"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(
        commands,
        ["ultra.openFile", "ultra.getViewport"],
        "{commands:?}"
    );
    let last = ws.audit().pop().unwrap();
    assert_eq!(last["outcome"], "INVALID_ARGUMENTS");
}
