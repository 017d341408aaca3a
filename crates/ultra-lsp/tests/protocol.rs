//! What a server is told, read from the log of a minimal server (`log_server.py`, a real
//! process speaking the base protocol over stdio): documents opened, changed by the span
//! that differs (in UTF-16 columns), saved, closed when the disk changed under them, and
//! the server shut down politely when idle.

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use ultra_lsp::{ServerConfig, Servers};

/// The messages logged so far, once there are at least `n` (a few seconds at most).
fn logged(log: &Path, n: usize) -> Vec<Value> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        let msgs: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        if msgs.len() >= n || Instant::now() > deadline {
            return msgs;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn method(v: &Value) -> &str {
    v["method"].as_str().unwrap_or("")
}

#[test]
fn the_server_hears_opens_span_changes_saves_disk_changes_and_goodbye() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let log = root.join("server.log");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/log_server.py");
    let mut cfg = BTreeMap::new();
    cfg.insert(
        "python".to_string(),
        ServerConfig {
            command: Some("python3".into()),
            args: Some(vec![
                script.to_string_lossy().into(),
                log.to_string_lossy().into(),
            ]),
            ..ServerConfig::default()
        },
    );
    let servers = Servers::new(&root, &cfg);
    let file = root.join("app.py");
    let wait = Duration::from_secs(10);
    servers.document(&file, "é = 1\nb = 2\n", wait).unwrap();
    // After a two-unit (UTF-16) character: the change is one span, in UTF-16 columns.
    servers.document(&file, "é = 1\nb = 20\n", wait).unwrap();
    let doc = servers.document(&file, "😀é = 1\nb = 20\n", wait).unwrap();
    // It reported work under way from the first open: questions wait for it.
    let python = |s: &Servers| {
        s.status()
            .into_iter()
            .find(|x| x.language == "python")
            .unwrap()
    };
    let deadline = Instant::now() + Duration::from_secs(5);
    while python(&servers).working.is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(python(&servers).working, ["Indexing"]);
    assert!(!doc.client.wait_until_quiet(Duration::from_millis(100)));
    servers.saved(&file);
    assert!(doc.client.wait_until_quiet(Duration::from_secs(5)));
    assert!(python(&servers).working.is_empty());
    servers.files_changed(&[(root.join("other.py"), 2)]);
    let msgs = logged(&log, 8);
    let methods: Vec<&str> = msgs.iter().map(method).collect();
    assert_eq!(
        methods,
        [
            "initialize",
            "initialized",
            "textDocument/didOpen",
            "textDocument/didChange",
            "textDocument/didChange",
            "textDocument/didSave",
            "workspace/didChangeWatchedFiles",
            "textDocument/didClose"
        ],
        "{msgs:#?}"
    );
    assert_eq!(
        msgs[3]["params"]["contentChanges"],
        json!([{ "range": { "start": { "line": 1, "character": 5 }, "end": { "line": 1, "character": 5 } }, "text": "0" }]),
        "{:#?}",
        msgs[3]
    );
    assert_eq!(msgs[4]["params"]["textDocument"]["version"], 3);
    assert_eq!(
        msgs[4]["params"]["contentChanges"][0]["range"]["end"],
        json!({ "line": 0, "character": 0 }),
        "{:#?}",
        msgs[4]
    );
    assert_eq!(msgs[4]["params"]["contentChanges"][0]["text"], "😀");
    assert_eq!(msgs[6]["params"]["changes"][0]["type"], 2, "{:#?}", msgs[6]);
    assert_eq!(
        method(&msgs[7]),
        "textDocument/didClose",
        "a change on disk closes the language's documents"
    );
    // It never publishes diagnostics: waited for in full once, then briefly.
    let other = root.join("quiet.py");
    let t = Instant::now();
    let (_, p) = servers
        .diagnostics(&other, "x = 1\n", Duration::from_secs(2))
        .unwrap();
    assert!(p.is_none() && t.elapsed() >= Duration::from_secs(2));
    let t = Instant::now();
    let (_, p) = servers
        .diagnostics(&other, "x = 2\n", Duration::from_secs(2))
        .unwrap();
    assert!(
        p.is_none() && t.elapsed() < Duration::from_secs(1),
        "{:?}",
        t.elapsed()
    );
    // Idle: asked to shut down, then told to exit (once nobody holds it).
    drop(doc);
    assert_eq!(servers.stop_idle(Duration::ZERO), 1);
    let msgs = logged(&log, 12);
    let tail: Vec<&str> = msgs[msgs.len() - 2..].iter().map(method).collect();
    assert_eq!(tail, ["shutdown", "exit"], "{msgs:#?}");
}
