//! Seed 003's WebSocket transport through the real binary: `ultra serve` with a WebSocket on
//! a free port, a tokio-tungstenite client doing the seed's authentication flow, JSON-RPC
//! calls and batches into the registry, and the attacks of security.md §4 that apply to a
//! WebSocket: wrong or replayed secrets, calls before authentication, foreign `Host` and
//! `Origin` headers, floods, malformed and oversized messages.

#![allow(clippy::unwrap_used)]

mod common;

use std::time::Duration;

use common::wsc::*;
use futures_util::SinkExt;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::{Error as WsErr, Message};

#[test]
fn the_seed_flow_authenticates_then_serves_the_registry() {
    let ws = workspace(json!({}));
    let server = ws.serve();
    let url = url(&server);
    assert!(
        server
            .wait_stderr("websocket token:")
            .contains("websocket token: from ultra.config.json"),
        "{}",
        server.stderr()
    );
    assert!(
        !server.stderr().contains(TOKEN),
        "the token is never printed"
    );
    rt().block_on(async {
        let (mut s, nonce) = challenged(&url).await;
        // Nothing but auth.authenticate before authenticating; the connection stays open.
        send(&mut s, json!({"jsonrpc": "2.0", "id": 1, "method": "editor.getContent",
                            "params": {"path": "src/app.ts"}}))
        .await;
        let r = recv(&mut s).await.unwrap();
        assert_eq!(r["error"]["code"], -32001, "{r}");
        assert_eq!(r["id"], 1);
        send(
            &mut s,
            json!({"jsonrpc": "2.0", "id": "auth-1", "method": "auth.authenticate",
                   "params": {"token": TOKEN, "nonce": nonce}}),
        )
        .await;
        let r = recv(&mut s).await.unwrap();
        assert_eq!(r["id"], "auth-1");
        assert_eq!(r["result"]["authenticated"], true, "{r}");
        assert!(r["result"]["sessionId"].as_str().unwrap().starts_with("session-"));

        // The seed's own calls: result is the command's data.
        send(&mut s, json!({"jsonrpc": "2.0", "id": 2, "method": "editor.getContent",
                            "params": {"path": "src/app.ts"}}))
        .await;
        let r = recv(&mut s).await.unwrap();
        assert_eq!(r["result"]["content"], "export const a = 1;\n", "{r}");
        // Errors carry the seed's numbers and the structured error.
        send(&mut s, json!({"jsonrpc": "2.0", "id": 3, "method": "editor.getContent",
                            "params": {"path": "missing.ts"}}))
        .await;
        let r = recv(&mut s).await.unwrap();
        assert_eq!(r["error"]["code"], -32002, "{r}");
        assert_eq!(r["error"]["data"]["code"], "FILE_NOT_FOUND", "{r}");
        // Paths outside the workspace are denied.
        send(&mut s, json!({"jsonrpc": "2.0", "id": 4, "method": "fs.readFile",
                            "params": {"path": "../outside.txt"}}))
        .await;
        let r = recv(&mut s).await.unwrap();
        assert_eq!(r["error"]["code"], -32003, "{r}");
        // A batch with a notification in it: replies for the two calls only, in order.
        send(
            &mut s,
            json!([
                {"jsonrpc": "2.0", "id": "a", "method": "editor.getContent", "params": {"path": "src/app.ts"}},
                {"jsonrpc": "2.0", "method": "editor.getContent", "params": {"path": "src/app.ts"}},
                {"jsonrpc": "2.0", "id": "b", "method": "no.such.method", "params": {}}
            ]),
        )
        .await;
        let r = recv(&mut s).await.unwrap();
        let replies = r.as_array().unwrap();
        assert_eq!(replies.len(), 2, "{r}");
        assert_eq!(replies[0]["id"], "a");
        assert_eq!(replies[1]["id"], "b");
        assert_eq!(replies[1]["error"]["code"], -32601, "{r}");
        // Bad JSON is a parse error, and the connection goes on.
        s.send(Message::Text("{not json".into())).await.unwrap();
        let r = recv(&mut s).await.unwrap();
        assert_eq!(r["error"]["code"], -32700, "{r}");
        send(&mut s, json!({"jsonrpc": "2.0", "id": 5, "method": "editor.getContent",
                            "params": {"path": "src/app.ts"}}))
        .await;
        assert_eq!(recv(&mut s).await.unwrap()["id"], 5);
    });
    // Every request is audited with the session; the token never is.
    let audit = ws.audit_text();
    assert!(audit.contains("editor.getContent"), "{audit}");
    assert!(audit.contains("session-"), "{audit}");
    assert!(!audit.contains(TOKEN));
}

#[test]
fn wrong_secrets_close_the_connection() {
    let ws = workspace(json!({}));
    let server = ws.serve();
    let url = url(&server);
    rt().block_on(async {
        // A wrong token.
        let (mut s, nonce) = challenged(&url).await;
        send(
            &mut s,
            json!({"jsonrpc": "2.0", "id": 1, "method": "auth.authenticate",
                            "params": {"token": "guess", "nonce": nonce}}),
        )
        .await;
        let r = recv(&mut s).await.unwrap();
        assert_eq!(r["error"]["code"], -32001, "{r}");
        assert!(recv(&mut s).await.is_none(), "closed after a failure");

        // The right token with another connection's nonce (a replay).
        let (_, old_nonce) = challenged(&url).await;
        let (mut s, _) = challenged(&url).await;
        send(
            &mut s,
            json!({"jsonrpc": "2.0", "id": 1, "method": "auth.authenticate",
                            "params": {"token": TOKEN, "nonce": old_nonce}}),
        )
        .await;
        let r = recv(&mut s).await.unwrap();
        assert_eq!(r["error"]["code"], -32001, "{r}");
        assert!(recv(&mut s).await.is_none());

        // Failures from one peer make it wait longer each time.
        let mut waits = Vec::new();
        for _ in 0..3 {
            let (mut s, nonce) = challenged(&url).await;
            let t = std::time::Instant::now();
            send(
                &mut s,
                json!({"jsonrpc": "2.0", "id": 1, "method": "auth.authenticate",
                                "params": {"token": "guess", "nonce": nonce}}),
            )
            .await;
            recv(&mut s).await.unwrap();
            waits.push(t.elapsed());
        }
        assert!(
            waits[2] > waits[0] && waits[2] >= Duration::from_millis(700),
            "{waits:?}"
        );

        // A MAC of the nonce instead of the token.
        let (mut s, nonce) = challenged(&url).await;
        let mac = signature(&nonce);
        send(
            &mut s,
            json!({"jsonrpc": "2.0", "id": 1, "method": "auth.authenticate",
                            "params": {"signature": mac, "nonce": nonce}}),
        )
        .await;
        let r = recv(&mut s).await.unwrap();
        assert_eq!(r["result"]["authenticated"], true, "{r}");
    });
    let audit = ws.audit_text();
    assert!(audit.contains("UNAUTHORIZED"), "{audit}");
    assert!(!audit.contains(TOKEN));
}

/// HMAC-SHA256 of the nonce keyed with the token, hex (what `signature` is; the unit test
/// in `ultra-ws` pins it to Python's `hmac`).
fn signature(nonce: &str) -> String {
    ultra_ws::Token::fixed(TOKEN, ultra_ws::TokenSource::Config).mac(nonce)
}

#[test]
fn foreign_hosts_and_origins_are_refused_before_the_upgrade() {
    let ws = workspace(json!({"allowedOrigins": ["http://localhost:3000"]}));
    let server = ws.serve();
    let url = url(&server);
    let port = url.rsplit(':').next().unwrap().to_string();
    rt().block_on(async {
        // DNS rebinding: a page on evil.example resolving to 127.0.0.1.
        let host = format!("evil.example:{port}");
        match open(&url, &[("host", &host)]).await {
            Err(WsErr::Http(resp)) => assert_eq!(resp.status(), 403),
            other => panic!("expected 403, got {:?}", other.map(|_| ())),
        }
        // Cross-site WebSocket hijacking.
        match open(&url, &[("origin", "https://evil.example")]).await {
            Err(WsErr::Http(resp)) => assert_eq!(resp.status(), 403),
            other => panic!("expected 403, got {:?}", other.map(|_| ())),
        }
        match open(&url, &[("origin", "null")]).await {
            Err(WsErr::Http(resp)) => assert_eq!(resp.status(), 403),
            other => panic!("expected 403, got {:?}", other.map(|_| ())),
        }
        // An allowed origin, localhost by name, and no origin at all (not a browser).
        let mut s = open(&url, &[("origin", "http://localhost:3000")])
            .await
            .unwrap();
        assert_eq!(recv(&mut s).await.unwrap()["method"], "auth.challenge");
        let local = format!("localhost:{port}");
        let mut s = open(&url, &[("host", &local)]).await.unwrap();
        assert_eq!(recv(&mut s).await.unwrap()["method"], "auth.challenge");
    });
    assert!(ws.audit_text().contains("(ws origin)"));
}

#[test]
fn floods_and_oversized_messages_are_bounded() {
    let ws =
        workspace(json!({"rateLimit": {"requestsPerSecond": 5}, "ipc": {"maxLineBytes": 65536}}));
    let server = ws.serve();
    let url = url(&server);
    rt().block_on(async {
        let mut s = authenticated(&url).await;
        for i in 0..30 {
            send(
                &mut s,
                json!({"jsonrpc": "2.0", "id": i, "method": "editor.getContent",
                                "params": {"path": "src/app.ts"}}),
            )
            .await;
        }
        let mut limited = 0;
        for _ in 0..30 {
            let r = recv(&mut s).await.unwrap();
            if r["error"]["code"] == -32007 {
                limited += 1;
            }
        }
        assert!(limited >= 20, "{limited} of 30 were rate limited");
        // A message over the limit ends the connection; the server stays up.
        let big = "x".repeat(200_000);
        let _ = s.send(Message::Text(big.into())).await;
        assert!(
            recv(&mut s).await.is_none(),
            "closed after an oversized message"
        );
        let mut s = authenticated(&url).await;
        send(
            &mut s,
            json!({"jsonrpc": "2.0", "id": 1, "method": "editor.getContent",
                            "params": {"path": "src/app.ts"}}),
        )
        .await;
        assert_eq!(recv(&mut s).await.unwrap()["id"], 1);
    });
}

#[test]
fn security_settings_bound_what_agents_may_do() {
    let ws = workspace(json!({"security": {
        "allowFileSystemAccess": false,
        "restrictedCommands": ["ultra.listCommands"]
    }}));
    let server = ws.serve();
    let url = url(&server);
    rt().block_on(async {
        let mut s = authenticated(&url).await;
        send(
            &mut s,
            json!({"jsonrpc": "2.0", "id": 1, "method": "editor.getContent",
                            "params": {"path": "src/app.ts"}}),
        )
        .await;
        let r = recv(&mut s).await.unwrap();
        assert_eq!(r["error"]["code"], -32003, "{r}");
        assert_eq!(r["error"]["data"]["code"], "FILE_ACCESS_DENIED", "{r}");
        send(
            &mut s,
            json!({"jsonrpc": "2.0", "id": 2, "method": "ultra.listCommands", "params": {}}),
        )
        .await;
        let r = recv(&mut s).await.unwrap();
        assert_eq!(r["error"]["code"], -32001, "{r}");
        assert_eq!(r["error"]["data"]["code"], "ACCESS_DENIED", "{r}");
        // What the settings do not name still works.
        send(
            &mut s,
            json!({"jsonrpc": "2.0", "id": 3, "method": "ultra.getWorkspaceInfo", "params": {}}),
        )
        .await;
        let r = recv(&mut s).await.unwrap();
        assert!(r["result"].is_object(), "{r}");
    });
    // The same settings hold on the socket.
    let out = ws.cli(&[
        "-c",
        "fs.readFile",
        "-a",
        r#"{"path": "src/app.ts"}"#,
        "--json",
    ]);
    assert!(
        out.stdout().contains("FILE_ACCESS_DENIED"),
        "{}",
        out.stdout()
    );
    assert!(ws.audit_text().contains("FILE_ACCESS_DENIED"));
}

#[test]
fn command_methods_and_the_workspace() {
    let ws = workspace(json!({}));
    let server = ws.serve();
    let url = url(&server);
    rt().block_on(async {
        let mut s = authenticated(&url).await;
        send(
            &mut s,
            json!({"jsonrpc": "2.0", "id": 1, "method": "command.execute",
                            "params": {"command": "get_lines", "args": [{"path": "src/app.ts"}]}}),
        )
        .await;
        let r = recv(&mut s).await.unwrap();
        assert!(
            r["result"]["result"]["text"]
                .as_str()
                .unwrap()
                .contains("export const a"),
            "{r}"
        );
        send(
            &mut s,
            json!({"jsonrpc": "2.0", "id": 2, "method": "command.list",
                            "params": {"filter": "terminal"}}),
        )
        .await;
        let r = recv(&mut s).await.unwrap();
        assert!(r["result"]["commands"].is_array(), "{r}");
        send(
            &mut s,
            json!({"jsonrpc": "2.0", "id": 3, "method": "state.getWorkspace", "params": {}}),
        )
        .await;
        let r = recv(&mut s).await.unwrap();
        assert_eq!(r["result"]["name"], "root", "{r}");
        assert_eq!(r["result"]["folders"].as_array().unwrap().len(), 1, "{r}");
        // A forwarded command meets its own checks: bad arguments are its error.
        send(
            &mut s,
            json!({"jsonrpc": "2.0", "id": 4, "method": "command.execute",
                            "params": {"command": "editor.getContent", "args": [{"nope": 1}]}}),
        )
        .await;
        let r = recv(&mut s).await.unwrap();
        assert_eq!(r["error"]["data"]["code"], "INVALID_ARGUMENTS", "{r}");
    });
    let audit = ws.audit_text();
    assert!(
        audit.contains("command.execute") && audit.contains("code.getLines"),
        "{audit}"
    );
}

/// Seed 003 §10's Python client, unchanged, against `ultra serve` (the `websockets`
/// package is installed by `.ci/run`).
#[test]
fn the_seeds_python_client_works_unchanged() {
    let ws = workspace(json!({}));
    let server = ws.serve();
    let url = url(&server);
    let port = url.rsplit(':').next().unwrap().to_string();
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/seed003/client.py");
    let out = std::process::Command::new("python3")
        .arg(&script)
        .arg(&port)
        .arg(TOKEN)
        .output()
        .expect("python3 runs (the `websockets` package is installed by .ci/run)");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{text}");
    assert!(text.trim_end().ends_with("ok"), "{text}");
    assert_eq!(ws.read("src/app.ts"), "export const a = 2;\n");
}

/// Seed 003 §10's TypeScript client, unchanged, compiled by `tsc` and run by Node against
/// `ultra serve` on `localhost`, as the seed calls it. Its npm packages come from the
/// lock file (`npm ci`, run here when `.ci/run` has not).
#[test]
fn the_seeds_typescript_client_works_unchanged() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/seed003/ts");
    common::npm_ci(&dir, "node_modules/.bin/tsc");
    let tsc = std::process::Command::new(dir.join("node_modules/.bin/tsc"))
        .args(["-p", "."])
        .current_dir(&dir)
        .output()
        .expect("tsc runs");
    assert!(
        tsc.status.success(),
        "{}",
        String::from_utf8_lossy(&tsc.stdout)
    );

    let ws = workspace(json!({}));
    ws.write("src/names.ts", "export const foo = 1;\n");
    let server = ws.serve();
    let url = url(&server);
    let port = url.rsplit(':').next().unwrap().to_string();
    let file = ws.path("src/names.ts");
    let out = std::process::Command::new("node")
        .arg(dir.join("dist/client.js"))
        .args([&port, TOKEN, file.to_str().unwrap()])
        .output()
        .expect("node runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{text}");
    assert!(text.trim_end().ends_with("ok"), "{text}");
    // The seed's flow saved through `workbench.action.files.save`.
    assert_eq!(ws.read("src/names.ts"), "export const bar = 1;\n");
}

/// Terminal output pushed so far, joined.
fn pushed(notes: &[Value]) -> String {
    notes
        .iter()
        .filter(|n| n["method"] == "terminal.output")
        .map(|n| n["params"]["data"].as_str().unwrap_or(""))
        .collect()
}

fn alive(pid: i64) -> bool {
    // Signal 0 checks existence; a zombie is gone for our purposes.
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    !stat.is_empty() && !stat.contains(") Z ")
}

fn wait_gone(pid: i64) {
    let start = std::time::Instant::now();
    while alive(pid) {
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "process {pid} still runs"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn terminals_stream_output_exit_codes_and_die_with_their_session() {
    let ws = workspace(json!({}));
    std::fs::create_dir_all(ws.path("sub")).unwrap();
    let mut cmd = ws.command();
    cmd.arg("serve")
        .arg("--socket")
        .arg(&ws.sock)
        .env("ULTRA_TEST_SECRET", "hunter2")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let server = common::Server::spawn(cmd, ws.sock.clone());
    let url = url(&server);
    rt().block_on(async {
        let mut s = authenticated(&url).await;
        let mut notes = Vec::new();
        let r = call(&mut s, 1, "terminal.create", json!({"name": "t", "cwd": "sub", "env": {"MY_VAR": "mine"}}), &mut notes).await;
        let id = r["result"]["terminalId"].as_str().unwrap().to_string();
        // Output streams as notifications; the environment is scrubbed but ours is there.
        call(&mut s, 2, "terminal.sendText", json!({"terminalId": id, "text": "echo out-$((6*7)) [$ULTRA_TEST_SECRET] [$MY_VAR] $(basename $PWD)"}), &mut notes).await;
        let r = call(&mut s, 3, "terminal.wait", json!({"terminalId": id, "until": {"output": "out-42"}, "since": 0, "timeoutMs": 10000}), &mut notes).await;
        assert_eq!(r["result"]["matched"], true, "{r}");
        let line = r["result"]["data"].as_str().unwrap();
        assert!(line.contains("out-42 [] [mine] sub"), "{line}");
        // Output that arrives before the wait call still counts: by default a wait looks
        // from the last sendText.
        call(&mut s, 30, "terminal.sendText", json!({"terminalId": id, "text": "echo quick-$((1+1))"}), &mut notes).await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        let r = call(&mut s, 31, "terminal.wait", json!({"terminalId": id, "until": {"output": "quick-2"}, "timeoutMs": 5000}), &mut notes).await;
        assert_eq!(r["result"]["matched"], true, "{r}");
        // A long-running command: its output arrives while it runs.
        call(&mut s, 4, "terminal.sendText", json!({"terminalId": id, "text": "for i in 1 2 3 4 5; do echo tick$i; sleep 0.3; done"}), &mut notes).await;
        let before = notes.len();
        let r = call(&mut s, 5, "terminal.wait", json!({"terminalId": id, "until": {"output": "tick5"}, "timeoutMs": 10000}), &mut notes).await;
        assert_eq!(r["result"]["matched"], true, "{r}");
        // Pushed while the wait was still blocking, not after its reply (tick3 comes 0.6 s
        // into the wait, well after the sendText reply).
        let during = pushed(&notes[before..]);
        assert!(during.contains("tick3"), "{during:?}");
        // A wait that times out says so.
        let r = call(&mut s, 6, "terminal.wait", json!({"terminalId": id, "until": {"output": "never-printed"}, "timeoutMs": 200}), &mut notes).await;
        assert_eq!(r["result"]["timedOut"], true, "{r}");
        // Notifications carried all of the output.
        let start = std::time::Instant::now();
        while !pushed(&notes).contains("tick2") {
            assert!(start.elapsed() < Duration::from_secs(5), "{notes:?}");
            if let Ok(Some(m)) = tokio::time::timeout(Duration::from_millis(200), recv(&mut s)).await {
                notes.push(m);
            }
        }
        assert!(pushed(&notes).contains("out-42"));
        // The exit code, and output that stays readable after the end.
        call(&mut s, 7, "terminal.sendText", json!({"terminalId": id, "text": "exit 3"}), &mut notes).await;
        let r = call(&mut s, 8, "terminal.wait", json!({"terminalId": id, "until": "exit", "timeoutMs": 10000}), &mut notes).await;
        assert_eq!(r["result"]["exitCode"], 3, "{r}");
        let r = call(&mut s, 9, "terminal.read", json!({"terminalId": id}), &mut notes).await;
        assert!(r["result"]["data"].as_str().unwrap().contains("tick3"), "{r}");
        assert_eq!(r["result"]["exited"], true);
        let r = call(&mut s, 10, "terminal.sendText", json!({"terminalId": id, "text": "echo late"}), &mut notes).await;
        assert_eq!(r["error"]["code"], -32004, "{r}");
        let r = call(&mut s, 11, "terminal.read", json!({"terminalId": "term-999"}), &mut notes).await;
        assert_eq!(r["error"]["code"], -32004, "{r}");

        // Dispose kills the whole process group, background children included.
        let r = call(&mut s, 12, "terminal.create", json!({}), &mut notes).await;
        let id2 = r["result"]["terminalId"].as_str().unwrap().to_string();
        call(&mut s, 13, "terminal.sendText", json!({"terminalId": id2, "text": "sleep 1000 & echo bg=$!"}), &mut notes).await;
        let r = call(&mut s, 14, "terminal.wait", json!({"terminalId": id2, "until": {"output": "bg=[0-9]+"}, "since": 0, "timeoutMs": 10000}), &mut notes).await;
        let data = r["result"]["data"].as_str().unwrap().to_string();
        let bg: i64 = data.split("bg=").last().unwrap().split_whitespace().next().unwrap().parse().unwrap();
        assert!(alive(bg));
        let r = call(&mut s, 15, "terminal.list", json!({}), &mut notes).await;
        assert_eq!(r["result"]["terminals"].as_array().unwrap().len(), 2, "{r}");
        let r = call(&mut s, 16, "terminal.dispose", json!({"terminalId": id2}), &mut notes).await;
        assert_eq!(r["result"]["success"], true, "{r}");
        wait_gone(bg);

        // Closing the connection kills what its terminals run.
        let r = call(&mut s, 17, "terminal.create", json!({}), &mut notes).await;
        let id3 = r["result"]["terminalId"].as_str().unwrap().to_string();
        call(&mut s, 18, "terminal.sendText", json!({"terminalId": id3, "text": "sleep 1000 & echo bg=$!"}), &mut notes).await;
        let r = call(&mut s, 19, "terminal.wait", json!({"terminalId": id3, "until": {"output": "bg=[0-9]+"}, "since": 0, "timeoutMs": 10000}), &mut notes).await;
        let data = r["result"]["data"].as_str().unwrap().to_string();
        let bg: i64 = data.split("bg=").last().unwrap().split_whitespace().next().unwrap().parse().unwrap();
        assert!(alive(bg));
        drop(s);
        wait_gone(bg);
    });
}

#[test]
fn find_and_replace_is_one_transaction_across_files() {
    let ws = workspace(json!({}));
    ws.write(
        "src/b.ts",
        "import { a } from './app';\nconsole.log(a, a2);\n",
    );
    ws.write("docs/n.md", "the a variable\n");
    let server = ws.serve();
    let url = url(&server);
    rt().block_on(async {
        let mut s = authenticated(&url).await;
        let mut notes = Vec::new();
        let r = call(
            &mut s,
            1,
            "search.findAndReplace",
            json!({
            "query": r"\b(a)\b", "replacement": "${1}lpha",
            "options": {"useRegex": true, "caseSensitive": true, "include": "src/**"}}),
            &mut notes,
        )
        .await;
        assert_eq!(r["result"]["count"], 3, "{r}");
        assert_eq!(
            r["result"]["files"],
            json!(["src/app.ts", "src/b.ts"]),
            "{r}"
        );
        let txn = r["result"]["txnId"].clone();
        assert_eq!(ws.read("src/app.ts"), "export const alpha = 1;\n");
        assert_eq!(
            ws.read("src/b.ts"),
            "import { alpha } from './app';\nconsole.log(alpha, a2);\n"
        );
        assert_eq!(ws.read("docs/n.md"), "the a variable\n", "outside include");
        // One undo takes back every file.
        let r = call(&mut s, 2, "ultra.undo", json!({"txnId": txn}), &mut notes).await;
        assert!(r["result"].is_object(), "{r}");
        let r = call(
            &mut s,
            3,
            "editor.getContent",
            json!({"path": "src/b.ts"}),
            &mut notes,
        )
        .await;
        assert_eq!(
            r["result"]["content"], "import { a } from './app';\nconsole.log(a, a2);\n",
            "{r}"
        );
        let r = call(
            &mut s,
            4,
            "editor.getContent",
            json!({"path": "src/app.ts"}),
            &mut notes,
        )
        .await;
        assert_eq!(r["result"]["content"], "export const a = 1;\n", "{r}");
        // Every text file is searched, not only source code.
        let r = call(
            &mut s,
            6,
            "search.findInFiles",
            json!({"query": "variable"}),
            &mut notes,
        )
        .await;
        assert_eq!(r["result"]["results"][0]["path"], "docs/n.md", "{r}");
        // Nothing matches: nothing changes.
        let r = call(
            &mut s,
            5,
            "search.findAndReplace",
            json!({"query": "zzz", "replacement": "y"}),
            &mut notes,
        )
        .await;
        assert_eq!(r["result"]["count"], 0, "{r}");
    });
}

/// The Unix socket's subscription names work here too, with the same limits and answers:
/// both transports serve one JSON-RPC session.
#[test]
fn the_sockets_subscription_names_are_aliases() {
    let ws = workspace(json!({}));
    let server = ws.serve();
    let url = url(&server);
    rt().block_on(async {
        let mut s = authenticated(&url).await;
        send(
            &mut s,
            json!({"jsonrpc": "2.0", "id": 1, "method": "subscribe",
                   "params": {"events": ["command.executed"]}}),
        )
        .await;
        let r = recv(&mut s).await.unwrap();
        assert_eq!(
            r["result"]["subscribed"],
            json!(["command.executed"]),
            "{r}"
        );
        send(
            &mut s,
            json!({"jsonrpc": "2.0", "id": 2, "method": "editor.getContent",
                   "params": {"path": "src/app.ts"}}),
        )
        .await;
        let mut seen = Vec::new();
        while seen.len() < 2 {
            seen.push(recv(&mut s).await.unwrap());
        }
        assert!(
            seen.iter().any(|m| m["method"] == "command.executed"
                && m["params"]["data"]["command"] == "editor.getContent"),
            "{seen:?}"
        );
        send(
            &mut s,
            json!({"jsonrpc": "2.0", "id": 3, "method": "unsubscribe", "params": {}}),
        )
        .await;
        let r = recv(&mut s).await.unwrap();
        assert_eq!(
            r["result"],
            json!({"unsubscribed": ["command.executed"], "subscribed": []}),
            "{r}"
        );
        send(
            &mut s,
            json!({"jsonrpc": "2.0", "id": 4, "method": "events.subscribe",
                   "params": {"events": [1]}}),
        )
        .await;
        let r = recv(&mut s).await.unwrap();
        assert_eq!(r["error"]["code"], -32602, "{r}");
    });
}

/// `allowedOrigins: ["*"]` admits a page from any origin; the `Host` check and the token
/// still apply. Without the wildcard the same origin is refused.
#[test]
fn a_wildcard_origin_admits_any_page_and_nothing_more() {
    let ws = workspace(json!({"allowedOrigins": ["*"]}));
    let server = ws.serve();
    let url = url(&server);
    let port = url.rsplit(':').next().unwrap().to_string();
    rt().block_on(async {
        for origin in ["https://evil.example", "null", "http://localhost:3001"] {
            let mut s = open(&url, &[("origin", origin)])
                .await
                .unwrap_or_else(|e| panic!("{origin} refused: {e}"));
            assert_eq!(recv(&mut s).await.unwrap()["method"], "auth.challenge");
        }
        // Still only loopback names in Host.
        let host = format!("evil.example:{port}");
        match open(&url, &[("host", &host), ("origin", "https://evil.example")]).await {
            Err(WsErr::Http(resp)) => assert_eq!(resp.status(), 403),
            other => panic!("expected 403, got {:?}", other.map(|_| ())),
        }
        // Still the token: a wrong one is refused and the connection closes.
        let mut s = open(&url, &[("origin", "https://evil.example")])
            .await
            .unwrap();
        let nonce = recv(&mut s).await.unwrap()["params"]["nonce"]
            .as_str()
            .unwrap()
            .to_string();
        send(
            &mut s,
            json!({"jsonrpc": "2.0", "id": 1, "method": "auth.authenticate",
                   "params": {"token": "wrong", "nonce": nonce}}),
        )
        .await;
        let r = recv(&mut s).await.unwrap();
        assert_eq!(r["error"]["code"], -32001, "{r}");
        assert!(recv(&mut s).await.is_none(), "closed after a wrong token");
    });
    drop(server);

    let ws = workspace(json!({"allowedOrigins": ["http://localhost:3000"]}));
    let server = ws.serve();
    let url = common::wsc::url(&server);
    rt().block_on(async {
        match open(&url, &[("origin", "https://evil.example")]).await {
            Err(WsErr::Http(resp)) => assert_eq!(resp.status(), 403),
            other => panic!("expected 403, got {:?}", other.map(|_| ())),
        }
    });
}

/// `sessionIdleSeconds`: a session that keeps sending stays open past the timeout; one
/// that stops is closed, with the reason, soon after it.
#[test]
fn an_idle_session_is_closed_and_a_busy_one_is_not() {
    let ws = workspace(json!({ "sessionIdleSeconds": 1 }));
    let server = ws.serve();
    let url = url(&server);
    rt().block_on(async {
        let mut s = authenticated(&url).await;
        let start = std::time::Instant::now();
        let mut notes = Vec::new();
        for id in 0..4 {
            tokio::time::sleep(Duration::from_millis(600)).await;
            let r = call(&mut s, id, "ultra.getWorkspaceInfo", json!({}), &mut notes).await;
            assert!(r.get("result").is_some(), "{r}");
        }
        assert!(start.elapsed() > Duration::from_millis(2300));
        let quiet = std::time::Instant::now();
        let closed = loop {
            match tokio::time::timeout(
                Duration::from_secs(5),
                futures_util::StreamExt::next(&mut s),
            )
            .await
            {
                Ok(Some(Ok(Message::Close(frame)))) => break frame,
                Ok(Some(Ok(_))) => continue,
                other => panic!("no close frame: {other:?}"),
            }
        };
        let waited = quiet.elapsed();
        assert!(
            closed.is_some_and(|f| f.reason.contains("idle")),
            "closed without the reason"
        );
        assert!(
            waited > Duration::from_millis(800) && waited < Duration::from_millis(2500),
            "closed {waited:?} after the last message"
        );
    });
}
